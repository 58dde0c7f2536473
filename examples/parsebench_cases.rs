//! Writes the project's ParseBench test cases as a ParseBench folder: the rule files and the
//! Markdown map of `tests/fixtures/parsebench`, and a one-page PDF (its first line as text)
//! for every document the map names, made by corpus's own PDF writer. A layout document
//! (`pdfs/layout/`) gets every line of its Markdown, placed as [`layout_page`] says, so that
//! the boxes of its layout rules can be computed by hand; a Markdown with [`PAGE_BREAK`] lines
//! gets one such page per part (the form case whose rules keep to their page).
//!
//! Usage: `cargo run --example parsebench_cases -- OUT_DIR` (used by
//! `bench/parsebench_agreement.sh`; `tests/it/parsebench.rs` does the same).

use std::path::Path;

fn main() {
    let out = std::env::args().nth(1).expect("usage: parsebench_cases OUT_DIR");
    write_cases(Path::new(&out));
    println!("{out}");
}

/// Writes the cases into `out` (also used by `tests/it/parsebench.rs`).
pub fn write_cases(out: &Path) {
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
        let md = md.as_str().unwrap_or("");
        let mut doc = corpus::sample::pdf::Pdf::new();
        if md.contains(PAGE_BREAK) {
            // A paged document: each page's lines drawn as on a layout page.
            for part in md.split(PAGE_BREAK) {
                let mut page = corpus::sample::pdf::PdfPage::new(612.0, 792.0);
                layout_page(&mut page, part.trim_matches('\n'));
                doc.push(page);
            }
            write_pdf(out, &pdf, doc);
            continue;
        }
        let mut page = corpus::sample::pdf::PdfPage::new(612.0, 792.0);
        if pdf.starts_with("pdfs/layout/") {
            layout_page(&mut page, md);
        } else {
            let first = md.lines().next().unwrap_or("");
            page.text(
                corpus::sample::pdf::Font::Regular,
                10.0,
                72.0,
                700.0,
                first.trim_start_matches('#').trim(),
            );
        }
        doc.push(page);
        write_pdf(out, &pdf, doc);
    }
}

/// The line that separates the pages of a document's Markdown (one page otherwise): every page
/// is drawn whole, as [`layout_page`] draws a layout page.
pub const PAGE_BREAK: &str = "<!-- pagebreak -->";

/// Writes `doc` at `out/pdf`, its path in a trailing comment (so no two cases share a hash).
fn write_pdf(out: &Path, pdf: &str, doc: corpus::sample::pdf::Pdf) {
    let mut bytes = doc.to_bytes();
    bytes.extend_from_slice(format!("%{pdf}\n").as_bytes());
    let path = out.join(pdf);
    std::fs::create_dir_all(path.parent().expect("a PDF's folder")).expect("the PDF's folder");
    std::fs::write(&path, bytes).expect("a PDF");
}

/// A layout test page: each Markdown line drawn at x = 72 pt, from a baseline at y = 720 pt
/// down (PDF coordinates, y up): `# ` lines in Courier-Bold 16 pt, `## ` lines in Courier-Bold
/// 12 pt, other lines in Courier 10 pt, each line 2 × its size below the previous baseline and
/// a blank line 10 pt; `<page_header>T</page_header>` is T in Courier 8 pt at y = 760 and
/// `<page_footer>T</page_footer>` at y = 30, both outside the flow. Courier's advance is
/// 0.6 em, so a line of n characters at size s spans x = 72 to 72 + 0.6·n·s.
pub fn layout_page(page: &mut corpus::sample::pdf::PdfPage, md: &str) {
    use corpus::sample::pdf::Font;
    let mut y = 720.0;
    for line in md.lines() {
        let tag = |t: &str| {
            let open = format!("<{t}>");
            let close = format!("</{t}>");
            line.strip_prefix(open.as_str()).and_then(|r| r.strip_suffix(close.as_str()))
        };
        if let Some(t) = tag("page_header") {
            page.text(Font::Regular, 8.0, 72.0, 760.0, t);
            continue;
        }
        if let Some(t) = tag("page_footer") {
            page.text(Font::Regular, 8.0, 72.0, 30.0, t);
            continue;
        }
        if line.trim().is_empty() {
            y -= 10.0;
            continue;
        }
        let (font, size, text) = if let Some(t) = line.strip_prefix("# ") {
            (Font::Bold, 16.0, t)
        } else if let Some(t) = line.strip_prefix("## ") {
            (Font::Bold, 12.0, t)
        } else {
            (Font::Regular, 10.0, line)
        };
        page.text(font, size, 72.0, y, text);
        y -= 2.0 * size;
    }
}
