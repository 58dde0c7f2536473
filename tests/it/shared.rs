//! Real public PDFs from `../shared/data` (skipped when absent): every one ingests and runs.

use crate::util::{corpus, json, run, shared_data};

#[test]
fn every_shared_pdf_ingests_and_runs_through_pdfium() {
    let dirs: Vec<_> =
        ["docling/pdf", "grobid-gold/pdf", "s2orc"].iter().filter_map(|d| shared_data(d)).collect();
    if dirs.is_empty() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    for dir in &dirs {
        let out =
            run(corpus(&db).args(["ingest", "--dataset", "shared", "--format", "json"]).arg(dir));
        let s = json(&out);
        assert!(out.status.success(), "{s}");
        assert_eq!(s["errors"].as_array().map(Vec::len), Some(0), "{s}");
    }
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--format", "json"]));
    let s = json(&out);
    assert!(out.status.success(), "{s}");
    assert_eq!(s["failed"].as_u64(), Some(0), "{s}");
    assert_eq!(s["ran"], s["documents"]);
    let (pages, ms) = (s["pages_ran"].as_u64().unwrap(), s["wall_ms"].as_u64().unwrap().max(1));
    println!(
        "pdfium on shared PDFs: {} documents, {pages} pages in {ms} ms = {:.1} pages/s (dev profile, 2 workers)",
        s["documents"],
        pages as f64 * 1000.0 / ms as f64
    );
    // Every output is a Doc with one entry per page and some text.
    let store = corpus::store::Store::open_read_only(&db).unwrap();
    for doc in store.documents(None).unwrap() {
        let out = store.latest_output(doc.id, "pdfium").unwrap().unwrap();
        let bytes = store.blob(out.blob.as_deref().unwrap()).unwrap().unwrap();
        let parsed: corpus::doc::Doc = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(parsed.pages.len() as u32, doc.pages, "{}", doc.name);
        assert!(!parsed.blocks.is_empty(), "{} has no blocks", doc.name);
    }
}
