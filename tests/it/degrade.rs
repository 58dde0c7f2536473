//! `corpus degrade` and `report --robustness` (`docs/degrade.md`) through the binary: twins
//! stored with their truths, the same seed storing nothing new, GT-vs-GT perfect on the
//! twins, the robustness table pairing twins with sources, and bad input said.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{corpus, json, run, shared_data};

/// Two documents in dataset `own` (one of two pages), pdfium's outputs, and drafts of
/// pdfium's blocks ingested as their page truths; returns the store.
fn store_with_truths(dir: &Path) -> PathBuf {
    use corpus::sample::pdf::{Font, Pdf, PdfPage};
    let db = dir.join("c.db");
    let pdfs = dir.join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    for (name, pages) in [("a", 2), ("b", 1)] {
        let mut pdf = Pdf::new();
        for p in 0..pages {
            let mut page = PdfPage::new(612.0, 792.0);
            page.text(Font::Bold, 18.0, 72.0, 700.0, &format!("Report {name} page {p}"));
            page.text(Font::Regular, 12.0, 72.0, 640.0, "The quarterly figures rose again.");
            page.text(Font::Regular, 12.0, 72.0, 600.0, "Costs fell by a tenth over the year.");
            pdf.push(page);
        }
        std::fs::write(pdfs.join(format!("{name}.pdf")), pdf.to_bytes()).unwrap();
    }
    assert!(run(corpus(&db).args(["ingest", "--dataset", "own"]).arg(&pdfs)).status.success());
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--dataset", "own", "-q"]));
    assert!(out.status.success());
    let out = run(corpus(&db)
        .args(["truth", "draft", "--dataset", "own", "--from", "pdfium", "-q", "-o"])
        .arg(dir.join("draft")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "own"])
        .arg(dir.join("draft/draft.json")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    db
}

/// Rows of a query as strings (the store read directly, as a notebook would).
fn rows(db: &Path, q: &str) -> Vec<Vec<String>> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c.prepare(q).unwrap();
    let n = st.column_count();
    st.query_map([], |r| {
        (0..n)
            .map(|i| {
                Ok(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    other => format!("{other:?}"),
                })
            })
            .collect()
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn degrade(db: &Path, args: &[&str]) -> std::process::Output {
    run(corpus(db).args(["degrade", "--format", "json"]).args(args))
}

/// `eval --suite omnidoc --provider P --dataset D`'s figures by name.
fn omnidoc(db: &Path, provider: &str, dataset: &str) -> serde_json::Map<String, Value> {
    let out = run(corpus(db)
        .args(["eval", "--suite", "omnidoc", "--provider", provider, "--dataset", dataset])
        .args(["--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    let summary = if v.is_array() { v[0].clone() } else { v };
    summary["figures"]
        .as_array()
        .unwrap_or_else(|| panic!("no figures: {summary}"))
        .iter()
        .map(|f| (f[0].as_str().unwrap().to_string(), f[1].clone()))
        .collect()
}

#[test]
fn twins_carry_the_truths_the_same_seed_changes_nothing_and_robustness_pairs_them() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_truths(d.path());

    let out = degrade(&db, &["--dataset", "own", "--profile", "skew,fax", "--seed", "3"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = json(&out);
    for (i, twin) in ["own~skew", "own~fax"].iter().enumerate() {
        assert_eq!(s[i]["dataset"], *twin);
        assert_eq!((s[i]["new"].as_u64(), s[i]["failed"].as_u64()), (Some(2), Some(0)), "{s}");
        assert_eq!((s[i]["pages"].as_u64(), s[i]["truths"].as_u64()), (Some(3), Some(3)), "{s}");
    }
    // Each twin names its source and profile; its truths are page truths of the twin.
    let twins = rows(
        &db,
        "SELECT n.name, a.value, d.blob FROM document_attributes a \
         JOIN datasets s ON s.id = a.dataset JOIN document_names n ON n.document = a.document \
         AND n.dataset = a.dataset JOIN documents d ON d.id = a.document \
         WHERE s.name = 'own~skew' AND a.name = 'degrade_source' ORDER BY n.name",
    );
    let sources = rows(
        &db,
        "SELECT n.name, d.blob FROM document_names n JOIN documents d ON d.id = n.document \
         JOIN datasets s ON s.id = n.dataset WHERE s.name = 'own' ORDER BY n.name",
    );
    assert_eq!(twins.len(), 2);
    for (t, src) in twins.iter().zip(&sources) {
        assert_eq!((&t[0], &t[1]), (&src[0], &src[1]), "a twin names its source");
        assert_ne!(t[2], src[1]);
    }
    let parts = rows(
        &db,
        "SELECT t.part FROM truths t JOIN datasets s ON s.id = t.dataset \
         WHERE s.name = 'own~skew' ORDER BY t.part",
    );
    assert_eq!(
        parts,
        vec![vec!["page-1".to_string()], vec!["page-1".into()], vec!["page-2".into()]]
    );

    // The same profile and seed again: nothing new; another seed: new twins.
    let again = json(&degrade(&db, &["--dataset", "own", "--profile", "skew", "--seed", "3"]));
    assert_eq!((again[0]["new"].as_u64(), again[0]["unchanged"].as_u64()), (Some(0), Some(2)));
    let text =
        run(corpus(&db).args(["degrade", "--dataset", "own", "--profile", "skew", "--seed", "3"]));
    assert!(
        String::from_utf8_lossy(&text.stderr).contains("Nothing new"),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );

    // GT-vs-GT on the twins: the truth travelled intact.
    assert!(run(corpus(&db).args(["ocr", "--provider", "truth", "-q"])).status.success());
    for twin in ["own~skew", "own~fax"] {
        let f = omnidoc(&db, "truth", twin);
        assert_eq!(f["text_edit"], Value::from(0.0), "{twin}: {f:?}");
        assert_eq!(f["order_edit"], Value::from(0.0), "{twin}: {f:?}");
    }

    // pdfium reads no text on an image-only twin: the robustness table says so, paired.
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--dataset", "own~skew", "-q"]));
    assert!(out.status.success());
    omnidoc(&db, "pdfium", "own");
    omnidoc(&db, "pdfium", "own~skew");
    let out = run(corpus(&db).args([
        "report",
        "--suite",
        "omnidoc",
        "--robustness",
        "own~skew",
        "--format",
        "json",
    ]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = json(&out);
    let row = t
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["provider"].as_str().unwrap().starts_with("pdfium@") && r["metric"] == "text_edit"
        })
        .unwrap_or_else(|| panic!("{t}"))
        .clone();
    assert_eq!(row["n"], 2, "{row}");
    assert_eq!(row["clean"].as_f64(), Some(0.0), "pdfium against its own draft: {row}");
    assert_eq!(row["degraded"].as_f64(), Some(1.0), "nothing read is all edits: {row}");
    assert_eq!(row["delta"].as_f64(), Some(1.0), "{row}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("paired with its source by name"));
}

#[test]
fn bad_profiles_empty_datasets_and_unknown_twins_are_said() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_truths(d.path());
    let out = degrade(&db, &["--dataset", "own", "--profile", "xerox"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no degradation profile `xerox`"));
    let out = degrade(&db, &["--dataset", "own", "--profile", "scan:tilt=3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no parameter `tilt`"));
    let out = degrade(&db, &["--dataset", "nothing", "--profile", "scan"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("dataset nothing has no documents"));
    let count = rows(&db, "SELECT count(*) FROM documents");
    assert_eq!(count, vec![vec!["2".to_string()]], "nothing stored by a usage error");
    let out = run(corpus(&db).args(["report", "--suite", "omnidoc", "--robustness", "own~scan"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no dataset own~scan"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The shared OmniDocBench demo pages (images made PDFs, truths in the images' pixels):
/// scanned and photographed twins score their own truths perfectly.
#[test]
fn omnidocbench_demo_twins_score_their_truths_perfectly() {
    // Absent shared data is said and skipped, as every shared-data test does here.
    let Some(data) = shared_data("omnidocbench") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "odb", "-q"])
        .arg(data.join("demo_data/omnidocbench_demo/OmniDocBench_demo.json")));
    assert!(out.status.success());
    let out = degrade(&db, &["--dataset", "odb", "--profile", "scan,photo", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = json(&out);
    assert_eq!((s[0]["new"].as_u64(), s[0]["failed"].as_u64()), (Some(18), Some(0)), "{s}");
    assert!(run(corpus(&db).args(["ocr", "--provider", "truth", "-q"])).status.success());
    for twin in ["odb~scan", "odb~photo"] {
        let f = omnidoc(&db, "truth", twin);
        for m in ["text_edit", "order_edit", "table_edit"] {
            assert_eq!(f[m], Value::from(0.0), "{twin} {m}: {f:?}");
        }
    }
}
