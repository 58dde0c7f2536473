//! End-to-end checks of the provider on the project's own sample papers
//! ([`crate::sample::papers`]), whose perfect [`Doc`] is known: headings and their levels,
//! reading order across columns, the table and its caption, reference entries, review line
//! numbers, running heads and page numbers.

use std::sync::OnceLock;

use super::{bind, parse, Pdfium};
use crate::doc::{Block, BlockKind, Doc};
use crate::sample::{papers, SamplePaper};

/// Binds libpdfium, or fails with the way to install it.
fn lib() -> Pdfium {
    bind().unwrap_or_else(|e| {
        panic!(
            "cannot bind libpdfium ({e}); run scripts/setup.sh first (it installs \
             libpdfium.so under ~/.cache/corpus/native/)"
        )
    })
}

/// Each sample paper with the provider's parse of its PDF, parsed once: pdfium is not
/// thread-safe, and the tests run on parallel threads.
fn parsed() -> &'static [(SamplePaper, Doc)] {
    static PARSED: OnceLock<Vec<(SamplePaper, Doc)>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let _serial = super::test_lock();
        let lib = lib();
        papers()
            .into_iter()
            .map(|p| {
                let doc = parse(&lib, &p.pdf).unwrap_or_else(|e| panic!("{}: {e}", p.name));
                (p, doc)
            })
            .collect()
    })
}

/// The parse of one paper.
fn paper(name: &str) -> &'static (SamplePaper, Doc) {
    parsed().iter().find(|(p, _)| p.name == name).unwrap_or_else(|| panic!("no paper {name}"))
}

/// Lowercase words joined by single spaces.
fn norm(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The blocks one per line, for failure messages.
fn dump(doc: &Doc) -> String {
    doc.blocks
        .iter()
        .map(|b| {
            let t: String = b.text.chars().take(70).collect();
            format!("  p{} {} {:?} | {t}\n", b.page, b.kind, b.level)
        })
        .collect()
}

fn of_kind(doc: &Doc, kind: BlockKind) -> Vec<&Block> {
    doc.blocks.iter().filter(|b| b.kind == kind).collect()
}

fn is_margin(b: &Block) -> bool {
    matches!(b.kind, BlockKind::PageHeader | BlockKind::PageFooter)
}

#[test]
fn headings_are_found_in_order_with_their_levels() {
    for (paper, got) in parsed() {
        let want: Vec<(String, Option<u8>)> = of_kind(&paper.doc, BlockKind::Heading)
            .iter()
            .map(|b| (norm(&b.text), b.level))
            .collect();
        let have: Vec<(String, Option<u8>)> =
            of_kind(got, BlockKind::Heading).iter().map(|b| (norm(&b.text), b.level)).collect();
        assert_eq!(have, want, "{}: headings differ; got:\n{}", paper.name, dump(got));
        let title: Vec<String> =
            of_kind(got, BlockKind::Title).iter().map(|b| norm(&b.text)).collect();
        let want_title: Vec<String> =
            of_kind(&paper.doc, BlockKind::Title).iter().map(|b| norm(&b.text)).collect();
        assert_eq!(title, want_title, "{}: title", paper.name);
    }
}

#[test]
fn columns_are_read_left_then_right() {
    for (paper, got) in parsed() {
        // The perfect reading order as one text; every predicted body block must start in it,
        // each after the one before.
        let truth: String = paper
            .doc
            .blocks
            .iter()
            .filter(|b| !is_margin(b))
            .map(|b| norm(&b.text))
            .collect::<Vec<_>>()
            .join(" ");
        // Each block is looked for after the one before (entries may share a prefix).
        let mut from = 0;
        let mut prev_head = String::new();
        let mut paragraphs = 0;
        for b in got.blocks.iter().filter(|b| !is_margin(b) && b.kind != BlockKind::Table) {
            let head: String = norm(&b.text).chars().take(30).collect();
            assert!(
                truth.contains(&head),
                "{}: {head:?} is not in the text; got:\n{}",
                paper.name,
                dump(got)
            );
            let pos = truth[from..].find(&head).map(|p| p + from).unwrap_or_else(|| {
                panic!(
                    "{}: {head:?} comes before {prev_head:?} but is read after it; got:\n{}",
                    paper.name,
                    dump(got)
                )
            });
            from = pos + truth[pos..].chars().next().map_or(1, char::len_utf8);
            prev_head = head;
            paragraphs += usize::from(b.kind == BlockKind::Paragraph);
        }
        let want = of_kind(&paper.doc, BlockKind::Paragraph).len();
        assert!(paragraphs + 2 >= want, "{}: {paragraphs} paragraphs of {want}", paper.name);
    }
}

#[test]
fn table_and_its_caption_are_kept() {
    for (paper, got) in parsed() {
        let caption = of_kind(got, BlockKind::Caption);
        assert!(
            caption.iter().any(|b| b.text.starts_with("Table 1:")),
            "{}: no `Table 1:` caption; got:\n{}",
            paper.name,
            dump(got)
        );
        let want = of_kind(&paper.doc, BlockKind::Table)[0].table.as_ref().expect("cells");
        let tables = of_kind(got, BlockKind::Table);
        assert_eq!(tables.len(), 1, "{}: tables; got:\n{}", paper.name, dump(got));
        let have = tables[0].table.as_ref().expect("a table block has cells");
        assert_eq!((have.rows, have.cols), (want.rows, want.cols), "{}: table shape", paper.name);
        let cells = |t: &crate::doc::Table| -> Vec<(u32, u32, String)> {
            t.cells.iter().map(|c| (c.row, c.col, norm(&c.text))).collect()
        };
        assert_eq!(cells(have), cells(want), "{}: table cells", paper.name);
        // The caption comes right before the table.
        let at = got.blocks.iter().position(|b| b.kind == BlockKind::Table).unwrap_or(0);
        assert_eq!(got.blocks[at - 1].kind, BlockKind::Caption, "{}", paper.name);
    }
}

#[test]
fn reference_entries_are_whole() {
    for (paper, got) in parsed() {
        // The perfect doc has one block per entry and column: a piece that starts indented
        // (hanging indent) continues the entry before it.
        let refs = of_kind(&paper.doc, BlockKind::Reference);
        let mut want: Vec<String> = Vec::new();
        for b in &refs {
            let left = refs
                .iter()
                .filter(|o| o.page == b.page && (o.bbox.x0 - b.bbox.x0).abs() < 40.0)
                .map(|o| o.bbox.x0)
                .fold(f32::INFINITY, f32::min);
            match want.last_mut() {
                Some(prev) if b.bbox.x0 > left + 1.0 => {
                    prev.push(' ');
                    prev.push_str(&norm(&b.text));
                }
                _ => want.push(norm(&b.text)),
            }
        }
        let have: Vec<String> =
            of_kind(got, BlockKind::Reference).iter().map(|b| norm(&b.text)).collect();
        assert_eq!(have, want, "{}: reference entries; got:\n{}", paper.name, dump(got));
    }
}

#[test]
fn review_line_numbers_are_dropped() {
    let (paper, got) = paper("102");
    let truth_tokens: Vec<String> = paper
        .doc
        .blocks
        .iter()
        .flat_map(|b| b.text.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    // 001 ... 202 run down both margins of both pages.
    for b in &got.blocks {
        for tok in b.text.split_whitespace() {
            let number = tok.len() == 3 && tok.bytes().all(|c| c.is_ascii_digit());
            let in_range = tok.parse::<u32>().is_ok_and(|n| (1..=202).contains(&n));
            assert!(
                !(number && in_range) || truth_tokens.iter().any(|t| t == tok),
                "line number {tok} kept in {:?}",
                b.text
            );
        }
    }
    assert!(got.blocks.iter().all(|b| !b.text.starts_with("001")));
}

#[test]
fn running_heads_and_page_numbers_are_marked() {
    for (paper, got) in parsed() {
        assert_eq!(got.pages.len(), paper.doc.pages.len(), "{}", paper.name);
        for page in 0..got.pages.len() as u32 {
            let on = |d: &Doc, kind: BlockKind| -> Vec<String> {
                d.blocks
                    .iter()
                    .filter(|b| b.page == page && b.kind == kind)
                    .map(|b| norm(&b.text))
                    .collect()
            };
            for kind in [BlockKind::PageHeader, BlockKind::PageFooter] {
                assert_eq!(
                    on(got, kind),
                    on(&paper.doc, kind),
                    "{} page {page}: {kind}; got:\n{}",
                    paper.name,
                    dump(got)
                );
            }
            let blocks: Vec<&Block> = got.blocks.iter().filter(|b| b.page == page).collect();
            assert_eq!(blocks.first().map(|b| b.kind), Some(BlockKind::PageHeader));
            assert_eq!(blocks.last().map(|b| b.kind), Some(BlockKind::PageFooter));
        }
    }
}

#[test]
fn line_end_hyphens_are_repaired() {
    let (_, got) = paper("101");
    let text = got.to_text();
    assert!(text.contains("careful evaluation on scanned"), "{text}");
    assert!(!text.contains('\u{fffe}') && !text.contains('\u{2}'));
}

/// The styled papers ([`crate::sample::styled_papers`]): references in Vancouver, APA,
/// Harvard, Nature, IEEE and ACM style, organisation authors, a work without authors, and
/// caps, bold and numbered run-in headings. pdfium's parse scored against each paper's JATS
/// truth finds the references (`ref_r`, `ref_p` ≥ 0.95) and the headings in order
/// (`order` ≥ 0.9).
#[test]
fn styled_papers_keep_their_references_and_run_in_headings() {
    use crate::formats::jats::read_jats;
    use crate::metrics::paper::score;
    use crate::paper::{canonical, from_doc};
    let parsed: Vec<(SamplePaper, Doc)> = {
        let _serial = super::test_lock();
        let lib = lib();
        crate::sample::styled_papers()
            .into_iter()
            .map(|p| {
                let doc = parse(&lib, &p.pdf).unwrap_or_else(|e| panic!("{}: {e}", p.name));
                (p, doc)
            })
            .collect()
    };
    let mut failures = Vec::new();
    for (p, got) in &parsed {
        let truth = canonical(&read_jats(p.jats_xml.as_bytes()).unwrap());
        let metrics = score(&truth, &from_doc(got));
        let value = |id: &str| metrics.iter().find(|m| m.id == id).and_then(|m| m.value);
        for (id, min) in [("ref_r", 0.95), ("ref_p", 0.95), ("order", 0.9)] {
            let v = value(id);
            if v.is_none_or(|v| v < min) {
                let trace = metrics.iter().find(|m| m.id == id).map(|m| m.trace.to_string());
                failures.push(format!("{} {id} {v:?} < {min}: {trace:?}\n{}", p.name, dump(got)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
