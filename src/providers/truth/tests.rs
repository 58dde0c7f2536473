//! Tests of `truth.rs`.

use super::*;
use crate::formats::icdar2013::tests::{REG, STR};
use crate::formats::pdf_parse_bench::tests::TRUTH;
use crate::metrics::olmocr::Test;
use crate::suites::table::{predicted_tables, score_document, METRIC_IDS};

/// Every document-level table metric the suite defines is 1.
fn tables_score_one(gt: &[GtTable], doc: &Doc) {
    let r = score_document(gt, &predicted_tables(doc));
    for id in METRIC_IDS {
        if let Some(v) = r.metric(id) {
            assert_eq!(v, 1.0, "{id}");
        }
    }
}

#[test]
fn latex_tables_carry_the_gt_tables_and_keep_the_truth_markdown() {
    let doc = pdf_parse_bench_doc(TRUTH.as_bytes(), TruthFormat::LatexTables).unwrap();
    let kinds: Vec<BlockKind> = doc.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BlockKind::Table, BlockKind::Paragraph, BlockKind::Table]);
    let gt = pdf_parse_bench::read_truth(TRUTH.as_bytes()).unwrap();
    assert_eq!(doc.blocks[0].table.as_ref(), Some(&gt[0].table));
    assert_eq!(doc.blocks[2].text, gt[1].table.flat_text());
    tables_score_one(&gt, &doc);
    let items = pdf_parse_bench::read_items(TRUTH.as_bytes()).unwrap();
    assert_eq!(doc.markdown, Some(pdf_parse_bench::to_markdown(&items)));
    // A type latex-tables does not read: its tables still render.
    let odd = r#"[{"type": "figure", "data": "x"},
        {"type": "table", "data": "\\begin{tabular}{l} a \\\\ \\end{tabular}"}]"#;
    let doc = pdf_parse_bench_doc(odd.as_bytes(), TruthFormat::LatexTables).unwrap();
    assert_eq!(predicted_tables(&doc).len(), 1);
    assert!(pdf_parse_bench_doc(odd.as_bytes(), TruthFormat::PdfParseBench).is_err());
}

#[test]
fn pdf_parse_bench_formulas_keep_their_delimiters() {
    let truth = r#"[{"type": "text", "data": "Let"}, {"type": "inline-formula", "data": "$x_{1}$"},
        {"type": "text", "data": "be. "}, {"type": "display-formula", "data": "$$E=mc^{2}$$"},
        {"type": "table", "data": "\\begin{tabular}{ll} p & 1 \\\\ \\end{tabular}"},
        {"type": "text", "data": "End."}]"#;
    let doc = pdf_parse_bench_doc(truth.as_bytes(), TruthFormat::PdfParseBench).unwrap();
    let md = "Let $x_{1}$ be.\n\n$$E=mc^{2}$$\n\n";
    assert!(doc.markdown.as_deref().unwrap().starts_with(md), "{:?}", doc.markdown);
    let kinds: Vec<BlockKind> = doc.blocks.iter().map(|b| b.kind).collect();
    let want = [BlockKind::Paragraph, BlockKind::Formula, BlockKind::Table, BlockKind::Paragraph];
    assert_eq!(kinds, want);
    assert_eq!(doc.blocks[0].text, "Let $x_{1}$ be.");
    assert_eq!(doc.blocks[1].latex.as_deref(), Some("E=mc^{2}"));
    tables_score_one(&pdf_parse_bench::read_tables(truth.as_bytes()).unwrap(), &doc);
}

#[test]
fn icdar_regions_are_table_blocks_in_the_doc_frame() {
    let sizes = [Page { width: 612.0, height: 792.0 }, Page { width: 612.0, height: 600.0 }];
    // Two tables of one region each (pages 1 and 2); the structure file has the first.
    let doc = icdar2013_doc(REG.as_bytes(), STR.as_bytes(), &sizes).unwrap();
    assert_eq!(doc.pages, sizes);
    assert_eq!(doc.blocks.len(), 2);
    assert_eq!((doc.blocks[0].page, doc.blocks[1].page), (0, 1));
    assert_eq!(doc.blocks[0].bbox, BBox::new(100.0, 192.0, 300.0, 292.0));
    assert_eq!(doc.blocks[1].bbox, BBox::new(100.0, 400.0, 200.0, 500.0));
    assert!(doc.blocks[1].table.is_none());
    let truth = crate::formats::icdar2013::read_truth(REG.as_bytes(), STR.as_bytes()).unwrap();
    let boxes: Vec<(u32, BBox)> = doc.blocks.iter().map(|b| (b.page, b.bbox)).collect();
    let heights: Vec<f32> = doc.pages.iter().map(|p| p.height).collect();
    let d = crate::suites::icdar2013::detect(&truth.regions, &boxes, &heights);
    assert_eq!(d.found, [(0, 0, 1.0), (1, 1, 1.0)]);
    let gt: Vec<GtTable> = truth
        .tables
        .into_iter()
        .map(|table| GtTable { table, complexity: None, source: None })
        .collect();
    tables_score_one(&gt, &doc);

    // One table over two pages: two boxes, the cells on the first.
    let two = r#"<document><table id='1'>
        <region id='1' page='1'><bounding-box x1='10' y1='20' x2='30' y2='40'/></region>
        <region id='2' page='2'><bounding-box x1='10' y1='500' x2='30' y2='580'/></region>
        </table></document>"#;
    let doc = icdar2013_doc(two.as_bytes(), STR.as_bytes(), &sizes).unwrap();
    assert_eq!(predicted_tables(&doc).len(), 1);
    assert_eq!(doc.blocks[1].bbox, BBox::new(10.0, 20.0, 30.0, 100.0));
    // A structure table without a region, a region beyond the PDF: failures that say so.
    let none = "<document></document>";
    let e = icdar2013_doc(none.as_bytes(), STR.as_bytes(), &sizes).unwrap_err();
    assert!(e.contains("without a region"), "{e}");
    let e = icdar2013_doc(REG.as_bytes(), STR.as_bytes(), &sizes[..1]).unwrap_err();
    assert!(e.contains("page 2 of a PDF of 1 pages"), "{e}");
}

/// A page with a title, a paragraph split over three blocks (one of them related twice,
/// which the suite's join repeats), a one-line and a three-line display formula, a table,
/// an ignored header, a figure and an `abandon` block.
const ODB_PAGE: &str = r#"{"layout_dets": [
    {"category_type": "title", "poly": [10, 10, 200, 10, 200, 30, 10, 30], "order": 1,
     "anno_id": 1, "text": "Introduction"},
    {"category_type": "text_block", "order": 2, "anno_id": 2,
     "text": "First part with $x^{2}$ of a"},
    {"category_type": "text_block", "order": 3, "anno_id": 3, "text": " paragraph split"},
    {"category_type": "equation_isolated", "order": 4, "anno_id": 5,
     "latex": "$$\na+b=c\n$$"},
    {"category_type": "text_block", "order": 5, "anno_id": 4, "text": " over three blocks."},
    {"category_type": "equation_isolated", "order": 6, "anno_id": 6,
     "latex": "$$\n\\begin{aligned}\na&=b \\\\\nc&=d\n\\end{aligned}\n$$"},
    {"category_type": "table", "order": 7, "anno_id": 7, "poly": [0, 100, 50, 100, 50, 150, 0, 150],
     "html": "<table><tr><td>Name</td><td>Value</td></tr><tr><td>a</td><td>1.5</td></tr></table>",
     "latex": "\\begin{tabular}{ll}Name&Value\\\\a&1.5\\end{tabular}"},
    {"category_type": "header", "order": null, "anno_id": 8, "text": "Journal of Tests"},
    {"category_type": "figure", "order": 8, "anno_id": 9},
    {"category_type": "abandon", "anno_id": 10, "text": "scribble"},
    {"category_type": "text_block", "order": 9, "anno_id": 11, "text": "Closing words."}
  ],
  "extra": {"relation": [
    {"source_anno_id": 2, "target_anno_id": 3, "relation_type": "truncated"},
    {"source_anno_id": 3, "target_anno_id": 4, "relation_type": "truncated"},
    {"source_anno_id": 7, "target_anno_id": 8, "relation_type": "parent_son"}]},
  "page_info": {"image_path": "imgs/p.pdf_1.jpg", "width": 1000, "height": 800,
    "page_attribute": {"language": "english"}}}"#;

#[test]
fn omnidoc_pages_score_best_in_the_suite() {
    use crate::suites::omnidoc::matching::MatchMethod;
    use crate::suites::omnidoc::metrics::evaluate;
    let doc = omnidoc_doc(ODB_PAGE.as_bytes()).unwrap();
    assert_eq!(doc.pages, [Page { width: 1000.0, height: 800.0 }]);
    let kinds: Vec<BlockKind> = doc.blocks.iter().map(|b| b.kind).collect();
    use BlockKind::*;
    // The last: the `abandon` block, no content but a box the detection suite scores.
    let want = [
        Heading, Paragraph, Paragraph, Formula, Paragraph, Formula, Table, Figure, Paragraph,
        PageHeader, PageHeader,
    ];
    assert_eq!(kinds, want);
    assert_eq!(doc.blocks[10].label.as_deref(), Some("omnidocbench:abandon"));
    assert_eq!(doc.blocks[0].bbox, BBox::new(10.0, 10.0, 200.0, 30.0));
    assert_eq!(doc.blocks[3].latex.as_deref(), Some("a+b=c"));
    assert_eq!(doc.blocks[6].table.as_ref().map(|t| (t.rows, t.cols)), Some((2, 2)));
    let md = doc.markdown.clone().unwrap();
    let joined = "First part with $x^{2}$ of a paragraph split paragraph split over three blocks.";
    assert!(md.contains(joined), "{md}");
    assert!(md.contains("$\n\\begin{aligned}\na&=b \\\\\nc&=d\n\\end{aligned}\n$\n"), "{md}");
    assert!(md.contains("$$\na+b=c\n$$") && md.contains("Journal of Tests"), "{md}");
    assert!(!md.contains("scribble"), "{md}");

    let page = odb::read_page(ODB_PAGE.as_bytes()).unwrap();
    let preds = [(page.stem().to_string(), md)].into_iter().collect();
    let teds = |p: &str, g: &str, s: bool| crate::metrics::teds::teds(p, g, s);
    let r = evaluate(std::slice::from_ref(&page), &preds, MatchMethod::Quick, Some(&teds));
    for (what, el, n) in [
        ("text", &r.text_block, 3),
        ("formula", &r.display_formula, 2),
        ("table", &r.table, 1),
        ("order", &r.reading_order, 1),
    ] {
        assert_eq!(el.samples.len(), n, "{what}");
        let e = &el.edit;
        assert_eq!((e.all_page_avg, e.edit_whole, e.edit_sample_avg), (0.0, 0.0, 0.0), "{what}");
    }
    assert_eq!((r.table.teds, r.table.teds_structure), (Some(1.0), Some(1.0)));

    let no_html = ODB_PAGE.replace("\"html\"", "\"_html\"");
    let e = omnidoc_doc(no_html.as_bytes()).unwrap_err();
    assert!(e.contains("has no HTML"), "{e}");
}

fn tests_of(lines: &[&str]) -> Vec<Test> {
    load_tests(&lines.join("\n")).unwrap()
}

#[test]
fn olmocr_tests_render_as_markdown_that_passes_them_or_are_named() {
    let tests = tests_of(&[
        r#"{"pdf": "a.pdf", "page": 1, "id": "p1", "type": "present", "text": "Hello world"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "o1", "type": "order", "before": "Second line", "after": "Third line"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "o2", "type": "order", "before": "First line", "after": "Second line"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "m1", "type": "math", "math": "a^{2}+b^{2}=c^{2}"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "t1", "type": "table", "cell": "3.32T", "left": "3.71T", "right": "9T", "up": "12.2B", "down": "3.7B", "top_heading": "Words", "left_heading": "Source"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "t2", "type": "table", "cell": "a | b", "up": "c", "ignore_markdown_tables": true}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "t3", "type": "table", "cell": "Year Ended"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "f1", "type": "format", "text": "Bold words", "format": "bold"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "n1", "type": "footnote", "marker": "1", "appears_before_marker": "as the study shows", "appears_after_marker": "See the appendix"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "a1", "type": "absent", "text": "SECRET"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "a2", "type": "absent", "text": "Hello"}"#,
        r#"{"pdf": "a.pdf", "page": 2, "id": "a3", "type": "absent", "text": "Running footer"}"#,
    ]);
    let r = olmocr_pages(&tests, "a");
    let pages: Vec<String> = r.pages.iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(pages, ["1", "2"]);
    // `a2` wants absent a text `p1` wants present: the one test not rendered.
    let named: Vec<(&str, &str)> =
        r.unrendered.iter().map(|(k, u)| (k.as_str(), u.id.as_str())).collect();
    assert_eq!(named, [("absent", "a2")]);
    let md = r.pages[0].1.markdown.as_deref().unwrap();
    let first = md.find("First line").unwrap();
    assert!(first < md.find("Second line").unwrap(), "{md}");
    assert!(md.contains("\\[a^{2}+b^{2}=c^{2}\\]") && md.contains("<th>a | b</th>"), "{md}");
    for t in tests.iter().filter(|t| t.base().page == 1 && t.base().id != "a2") {
        assert_eq!(t.run(md), (true, String::new()), "{}: {md}", t.base().id);
    }
    assert_eq!(r.pages[1].1.markdown.as_deref(), Some(""));
    assert!(r.pages[0].1.blocks.iter().all(|b| b.page == 0));

    // A page whose tests name no text: the baseline the suite adds cannot pass, and says so.
    let tests = tests_of(&[
        r#"{"pdf": "b.pdf", "page": 1, "id": "b1", "type": "absent", "text": "Header"}"#,
    ]);
    let r = olmocr_pages(&tests, "b");
    assert_eq!(r.unrendered.len(), 1);
    let (kind, u) = &r.unrendered[0];
    assert_eq!(
        (kind.as_str(), u.id.as_str(), u.document.as_str()),
        ("baseline", "b.pdf_baseline", "b")
    );
    assert!(u.why.starts_with("the page's tests name no text"), "{}", u.why);
    // Two `order` tests in a circle: one of them cannot pass.
    let tests = tests_of(&[
        r#"{"pdf": "c.pdf", "page": 1, "id": "c1", "type": "order", "before": "Alpha one", "after": "Beta two"}"#,
        r#"{"pdf": "c.pdf", "page": 1, "id": "c2", "type": "order", "before": "Beta two", "after": "Alpha one"}"#,
    ]);
    let r = olmocr_pages(&tests, "c");
    assert_eq!(r.unrendered.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["order"]);
}
