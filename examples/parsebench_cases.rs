//! Writes the project's ParseBench test cases as a ParseBench folder: the rule files and the
//! Markdown map of `tests/fixtures/parsebench`, and a one-page PDF (its first line as text)
//! for every document the map names, made by corpus's own PDF writer.
//!
//! Usage: `cargo run --example parsebench_cases -- OUT_DIR` (used by
//! `bench/parsebench_agreement.sh`; `tests/it/parsebench.rs` does the same).

use std::path::Path;

fn main() {
    let out = std::env::args().nth(1).expect("usage: parsebench_cases OUT_DIR");
    let out = Path::new(&out);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parsebench");
    std::fs::create_dir_all(out).expect("the output folder");
    for e in std::fs::read_dir(&src).expect("the fixture folder") {
        let p = e.expect("a fixture entry").path();
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.ends_with(".jsonl") || name == "expected_markdown.json" {
            std::fs::copy(&p, out.join(&name)).expect("a copied rule file");
        }
    }
    let map: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(
        &std::fs::read(src.join("expected_markdown.json")).expect("the Markdown map"),
    )
    .expect("a JSON object");
    for (pdf, md) in map {
        let first = md.as_str().unwrap_or("").lines().next().unwrap_or("");
        let mut doc = corpus::sample::pdf::Pdf::new();
        let mut page = corpus::sample::pdf::PdfPage::new(612.0, 792.0);
        page.text(
            corpus::sample::pdf::Font::Regular,
            10.0,
            72.0,
            700.0,
            first.trim_start_matches('#').trim(),
        );
        doc.push(page);
        let mut bytes = doc.to_bytes();
        bytes.extend_from_slice(format!("%{pdf}\n").as_bytes());
        let path = out.join(&pdf);
        std::fs::create_dir_all(path.parent().expect("a PDF's folder")).expect("the PDF's folder");
        std::fs::write(&path, bytes).expect("a PDF");
    }
    println!("{}", out.display());
}
