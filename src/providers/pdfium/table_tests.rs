//! End-to-end checks of the table finder on PDFs the project writes itself
//! ([`crate::sample::pdf`]): a ruled table with a spanning header, a booktabs table, a
//! borderless table, a page of two-column prose and a figure with a grid (no table there), and
//! the rule extraction itself (clip, filled bars).

use super::{bind, parse, read_pages, Pdfium};
use crate::doc::{BlockKind, Cell, Doc, Table};
use crate::sample::pdf::{Font, Pdf, PdfPage};

const W: f32 = 612.0;
const H: f32 = 792.0;

/// Binds libpdfium, or fails with the way to install it.
fn lib() -> Pdfium {
    bind().unwrap_or_else(|e| panic!("cannot bind libpdfium ({e}); run scripts/setup.sh first"))
}

/// A page drawn in top-left coordinates (y down), as the layout sees it.
pub(super) struct Page(PdfPage);

impl Page {
    pub(super) fn new() -> Page {
        Page(PdfPage::new(W, H))
    }

    /// Text with its baseline at `y` from the top.
    pub(super) fn text(&mut self, x: f32, y: f32, text: &str) {
        self.0.text(Font::Regular, 9.0, x, H - y, text);
    }

    /// Text at `size` points with its baseline at `y` from the top.
    fn sized(&mut self, x: f32, y: f32, size: f32, text: &str) {
        self.0.text(Font::Regular, size, x, H - y, text);
    }

    /// Text centred on `cx`.
    fn centred(&mut self, cx: f32, y: f32, text: &str) {
        let w = crate::sample::pdf::text_width(text, 9.0);
        self.text(cx - 0.5 * w, y, text);
    }

    pub(super) fn hline(&mut self, x0: f32, x1: f32, y: f32) {
        self.0.line(x0, H - y, x1, H - y, 0.5);
    }

    fn vline(&mut self, x: f32, y0: f32, y1: f32) {
        self.0.line(x, H - y0, x, H - y1, 0.5);
    }

    /// A filled bar `thick` points high whose top is at `y`, as LaTeX draws rules.
    pub(super) fn bar(&mut self, x0: f32, x1: f32, y: f32, thick: f32) {
        self.0.fill_rect(x0, H - y - thick, x1 - x0, thick);
    }

    /// Lines of prose filling `[x, x + width]` from `y` down.
    pub(super) fn prose(&mut self, x: f32, y: f32, lines: usize, width: f32) {
        let words = ["the", "results", "of", "our", "study", "show", "that", "more", "data"];
        for i in 0..lines {
            let mut line = String::new();
            let mut k = i;
            while crate::sample::pdf::text_width(&line, 9.0) < width - 40.0 {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(words[k % words.len()]);
                k += 1;
            }
            self.text(x, y + i as f32 * 11.0, &line);
        }
    }
}

impl Page {
    /// Justified prose: `lines` lines from `y` down, `pitch` apart, each set to exactly `width`
    /// by widening its word spaces equally (each word placed on its own, as a typesetter
    /// places them), so that some lines' spaces are wider than an em. Returns the words.
    fn justified(
        &mut self,
        x: f32,
        y: f32,
        lines: usize,
        width: f32,
        pitch: f32,
    ) -> Vec<&'static str> {
        let words = [
            "the",
            "committee",
            "reviewed",
            "all",
            "of",
            "the",
            "data",
            "and",
            "found",
            "that",
            "most",
            "regions",
            "grew",
            "in",
            "each",
            "year",
            "of",
            "the",
            "study",
        ];
        let cw = crate::sample::pdf::text_width("m", 9.0);
        let mut k = 0;
        let mut all = Vec::new();
        for i in 0..lines {
            let mut line: Vec<&str> = Vec::new();
            // Words while they fit with single spaces, leaving some room to stretch.
            loop {
                let w = words[k % words.len()];
                let chars: usize = line.iter().map(|w| w.len() + 1).sum::<usize>() + w.len();
                if chars as f32 * cw > width - 2.0 * cw && line.len() >= 4 {
                    break;
                }
                line.push(w);
                k += 1;
            }
            let ink: f32 = line.iter().map(|w| w.len() as f32 * cw).sum();
            let space = (width - ink) / (line.len() - 1) as f32;
            let mut at = x;
            for w in line {
                self.text(at, y + i as f32 * pitch, w);
                at += w.len() as f32 * cw + space;
                all.push(w);
            }
        }
        all
    }
}

pub(super) fn doc_of(pages: Vec<Page>) -> Doc {
    let mut pdf = Pdf::new();
    for p in pages {
        pdf.push(p.0);
    }
    let _serial = super::test_lock();
    parse(&lib(), &pdf.to_bytes()).expect("parses")
}

pub(super) fn tables(doc: &Doc) -> Vec<&Table> {
    doc.blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Table)
        .filter_map(|b| b.table.as_ref())
        .collect()
}

fn cell<'a>(t: &'a Table, text: &str) -> &'a Cell {
    t.cells.iter().find(|c| c.text == text).unwrap_or_else(|| panic!("no cell {text:?} in {t:?}"))
}

fn at(c: &Cell) -> (u32, u32, u32, u32) {
    (c.row, c.col, c.row_span, c.col_span)
}

#[test]
fn ruled_table_with_a_spanning_header() {
    let mut p = Page::new();
    p.prose(72.0, 60.0, 3, 460.0);
    // Columns at x 100 | 180 | 240 | 300; rows at y 100 | 116 | 132 | 148 | 164.
    let (xs, ys) = ([100.0, 180.0, 240.0, 300.0], [100.0, 116.0, 132.0, 148.0, 164.0]);
    for &y in &[ys[0], ys[2], ys[3], ys[4]] {
        p.hline(xs[0], xs[3], y);
    }
    // Under the spanning header only.
    p.hline(xs[1], xs[3], ys[1]);
    for &x in &[xs[0], xs[1], xs[3]] {
        p.vline(x, ys[0], ys[4]);
    }
    // Not through the spanning header.
    p.vline(xs[2], ys[1], ys[4]);
    p.centred(240.0, 111.0, "Scores");
    p.centred(140.0, 119.0, "Model");
    p.centred(210.0, 127.0, "Acc");
    p.centred(270.0, 127.0, "F1");
    for (r, row) in [["base", "71.2", "68.0"], ["ours", "75.9", "70.3"]].iter().enumerate() {
        let y = 143.0 + r as f32 * 16.0;
        p.text(104.0, y, row[0]);
        p.centred(210.0, y, row[1]);
        p.centred(270.0, y, row[2]);
    }
    p.prose(72.0, 190.0, 3, 460.0);
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (4, 3), "{t:?}");
    assert_eq!(at(cell(t, "Model")), (0, 0, 2, 1));
    assert_eq!(at(cell(t, "Scores")), (0, 1, 1, 2));
    assert_eq!(at(cell(t, "Acc")), (1, 1, 1, 1));
    assert_eq!(at(cell(t, "70.3")), (3, 2, 1, 1));
    // The prose around it stays prose, in order: before, the table, after.
    let kinds: Vec<BlockKind> = doc.blocks.iter().map(|b| b.kind).collect();
    let ti = kinds.iter().position(|k| *k == BlockKind::Table).expect("a table");
    assert!(ti > 0 && ti + 1 < kinds.len(), "{kinds:?}");
    assert!(!doc.blocks[ti + 1].text.contains("71.2"));
}

#[test]
fn booktabs_table_with_a_header_over_a_partial_rule() {
    let mut p = Page::new();
    p.prose(72.0, 60.0, 2, 460.0);
    let (x0, x1) = (100.0, 400.0);
    p.bar(x0, x1, 100.0, 0.8);
    p.centred(255.0, 112.0, "Accuracy");
    // \cmidrule under "Accuracy", over the Dev and Test columns.
    p.bar(200.0, 310.0, 116.0, 0.4);
    p.text(104.0, 126.0, "Model");
    p.centred(230.0, 126.0, "Dev");
    p.centred(280.0, 126.0, "Test");
    p.centred(360.0, 126.0, "Size");
    p.bar(x0, x1, 131.0, 0.5);
    let body = [
        ["base", "71.2", "70.1", "110"],
        ["large", "75.9", "74.0", "340"],
        ["xl", "78.3", "77.9", "900"],
    ];
    for (r, row) in body.iter().enumerate() {
        let y = 143.0 + r as f32 * 12.0;
        p.text(104.0, y, row[0]);
        p.centred(230.0, y, row[1]);
        p.centred(280.0, y, row[2]);
        p.centred(360.0, y, row[3]);
    }
    p.bar(x0, x1, 172.0, 0.8);
    p.prose(72.0, 200.0, 2, 460.0);
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (5, 4), "{t:?}");
    assert_eq!(at(cell(t, "Accuracy")), (0, 1, 1, 2));
    assert_eq!(at(cell(t, "Model")), (1, 0, 1, 1));
    assert_eq!(at(cell(t, "Size")), (1, 3, 1, 1));
    assert_eq!(at(cell(t, "77.9")), (4, 2, 1, 1));
    assert!(cell(t, "Dev").header && !cell(t, "base").header);
}

#[test]
fn borderless_table_under_its_caption() {
    let mut p = Page::new();
    p.prose(72.0, 60.0, 3, 460.0);
    p.text(72.0, 110.0, "Table 1: Scores of the systems on the test sets.");
    let rows = [
        ["System", "Acc", "F1", "Time"],
        ["base", "71.2", "68.0", "1.5"],
        ["ours", "75.9", "70.3", "2.1"],
        ["large", "77.0", "72.4", "9.8"],
    ];
    for (r, row) in rows.iter().enumerate() {
        for (c, text) in row.iter().enumerate() {
            p.text(90.0 + c as f32 * 70.0, 128.0 + r as f32 * 12.0, text);
        }
    }
    p.prose(72.0, 190.0, 3, 460.0);
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (4, 4), "{t:?}");
    assert_eq!(at(cell(t, "72.4")), (3, 2, 1, 1));
    assert!(doc.blocks.iter().any(|b| b.kind == BlockKind::Caption));
}

#[test]
fn a_table_under_one_rule_in_the_right_column_keeps_its_header_and_spaced_rows() {
    let mut p = Page::new();
    // Prose down the left column, beside the table's every line.
    p.prose(72.0, 80.0, 30, 220.0);
    p.prose(320.0, 80.0, 4, 220.0);
    // One rule, under the header (a `\hline` after the first row), then the body; the last
    // row sits 1.2 ems further down (a blank line inside the tabular).
    p.hline(330.0, 530.0, 139.0);
    let rows: [(f32, [&str; 4]); 4] = [
        (135.0, ["Model", "Dev", "Test", "Size"]),
        (151.0, ["base", "71.2", "70.1", "110"]),
        (163.0, ["large", "75.9", "74.0", "340"]),
        (184.0, ["xl", "78.3", "77.9", "900"]),
    ];
    for (y, row) in rows {
        for (c, text) in row.iter().enumerate() {
            p.text(340.0 + c as f32 * 50.0, y, text);
        }
    }
    p.prose(320.0, 215.0, 4, 220.0);
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (4, 4), "{}", t.to_markdown());
    assert_eq!(at(cell(t, "Model")), (0, 0, 1, 1));
    assert_eq!(at(cell(t, "900")), (3, 3, 1, 1));
}

#[test]
fn two_column_prose_is_no_table() {
    let mut p = Page::new();
    p.prose(72.0, 80.0, 40, 220.0);
    p.prose(320.0, 80.0, 40, 220.0);
    // A section rule over the left column, as some styles draw under headings.
    p.hline(72.0, 292.0, 70.0);
    let doc = doc_of(vec![p]);
    assert!(tables(&doc).is_empty(), "{:#?}", doc.blocks);
    assert!(doc.blocks.iter().all(|b| b.kind == BlockKind::Paragraph), "{:#?}", doc.blocks);
}

#[test]
fn a_figure_with_a_grid_or_a_form_is_no_table() {
    // A plot: a frame with grid lines every 20 pt, a curve, tick labels outside, a legend.
    let mut plot = Page::new();
    let (x0, y0, x1, y1) = (120.0, 100.0, 400.0, 300.0);
    let mut x = x0;
    while x <= x1 {
        plot.vline(x, y0, y1);
        plot.text(x - 6.0, y1 + 12.0, &format!("{}", (x - x0) as i32 / 20));
        x += 20.0;
    }
    let mut y = y0;
    while y <= y1 {
        plot.hline(x0, x1, y);
        plot.text(x0 - 24.0, y + 3.0, &format!("{:.1}", (y1 - y) / 200.0));
        y += 20.0;
    }
    plot.0.curve((x0, H - y1), (200.0, H - 120.0), (300.0, H - 280.0), (x1, H - y0));
    plot.text(330.0, 117.0, "train");
    plot.text(330.0, 137.0, "test");
    plot.text(120.0, 330.0, "Figure 1: Loss over epochs.");
    // A form: boxes with labels and empty fields.
    let mut form = Page::new();
    for (i, label) in ["Name:", "Address:", "Date:", "Signature:"].iter().enumerate() {
        let top = 100.0 + i as f32 * 24.0;
        form.0.stroke_rect(100.0, H - top - 24.0, 100.0, 24.0, 0.5);
        form.0.stroke_rect(200.0, H - top - 24.0, 250.0, 24.0, 0.5);
        form.text(104.0, top + 15.0, label);
    }
    let doc = doc_of(vec![plot, form]);
    assert!(tables(&doc).is_empty(), "{:#?}", doc.blocks);
}

#[test]
fn rules_are_read_as_drawn_cut_to_their_clip() {
    let mut p = Page::new();
    p.bar(100.0, 300.0, 50.0, 0.8);
    p.0.stroke_rect(100.0, H - 200.0, 50.0, 40.0, 1.0);
    // A line across the page seen only between x 200 and 260.
    p.0.clipped_line((200.0, H - 260.0, 60.0, 20.0), (50.0, H - 250.0), (550.0, H - 250.0));
    p.0.curve((100.0, H - 400.0), (150.0, H - 300.0), (200.0, H - 500.0), (250.0, H - 400.0));
    let mut pdf = Pdf::new();
    pdf.push(p.0);
    let pages = {
        let _serial = super::test_lock();
        read_pages(&lib(), &pdf.to_bytes()).expect("reads")
    };
    let rules = &pages[0].rules;
    let near = |a: f32, b: f32| (a - b).abs() < 1.0;
    // The bar, as it is.
    assert!(
        rules.iter().any(|r| near(r.x0, 100.0) && near(r.x1, 300.0) && near(r.y0, 50.0)),
        "{rules:?}"
    );
    // The rectangle's four edges.
    let edges =
        rules.iter().filter(|r| r.x0 >= 99.0 && r.x1 <= 151.0 && r.y0 >= 159.0 && r.y1 <= 201.0);
    assert_eq!(edges.count(), 4, "{rules:?}");
    // The clipped line, cut to the clip.
    assert!(
        rules
            .iter()
            .any(|r| near(r.x0, 200.0) && near(r.x1, 260.0) && near(0.5 * (r.y0 + r.y1), 250.0)),
        "{rules:?}"
    );
    assert!(!rules.iter().any(|r| r.x0 < 150.0 && near(0.5 * (r.y0 + r.y1), 250.0)));
    // The curve is art, not a rule.
    assert!(pages[0].art.iter().any(|a| a.x0 >= 99.0 && a.x1 <= 251.0 && a.y0 >= 299.0));
}

/// The words of every block of `kind`, joined.
fn text_of(doc: &Doc, kind: BlockKind) -> String {
    doc.blocks
        .iter()
        .filter(|b| b.kind == kind)
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Rows of cells (`cols` across `xs`) with baselines from `y`, `pitch` apart.
fn grid(p: &mut Page, xs: &[f32], y: f32, pitch: f32, rows: &[&[&str]]) {
    for (r, row) in rows.iter().enumerate() {
        for (c, text) in row.iter().enumerate() {
            p.text(xs[c], y + r as f32 * pitch, text);
        }
    }
}

#[test]
fn a_borderless_table_between_paragraphs_stops_at_the_prose() {
    // Justified paragraphs directly above and below, at the table's font size and line
    // pitch: their widened word spaces break each line into spans, as a table's cells are.
    let mut p = Page::new();
    let mut words = p.justified(72.0, 80.0, 5, 300.0, 11.0);
    let rows: [&[&str]; 4] = [
        &["Region", "Households", "Share"],
        &["North", "1,204", "31.2"],
        &["Central", "987", "25.6"],
        &["South", "1,662", "43.2"],
    ];
    grid(&mut p, &[72.0, 180.0, 290.0], 135.0, 11.0, &rows);
    words.extend(p.justified(72.0, 179.0, 5, 300.0, 11.0));
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (4, 3), "{}", t.to_markdown());
    assert_eq!(at(cell(t, "Region")), (0, 0, 1, 1));
    assert_eq!(at(cell(t, "43.2")), (3, 2, 1, 1));
    // The prose is read as prose, all of it.
    assert!(!t.cells.iter().any(|c| c.text.contains("committee")), "{}", t.to_markdown());
    let prose = text_of(&doc, BlockKind::Paragraph);
    assert_eq!(prose.split_whitespace().collect::<Vec<_>>(), words, "{:#?}", doc.blocks);
}

#[test]
fn a_small_three_column_borderless_table_is_found() {
    // Four rows of words in three aligned columns, no rules, no caption, no numbers.
    let mut p = Page::new();
    p.prose(72.0, 80.0, 3, 460.0);
    let rows: [&[&str]; 4] = [
        &["Program", "Agency", "Contact"],
        &["Housing aid", "HUD", "Field office"],
        &["Food support", "USDA", "State agency"],
        &["Job training", "Labor", "Local board"],
    ];
    grid(&mut p, &[90.0, 220.0, 320.0], 125.0, 12.0, &rows);
    p.prose(72.0, 185.0, 3, 460.0);
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (4, 3), "{}", t.to_markdown());
    assert_eq!(at(cell(t, "Housing aid")), (1, 0, 1, 1));
    assert_eq!(at(cell(t, "Local board")), (3, 2, 1, 1));
}

#[test]
fn a_table_stops_at_a_spacing_change_and_at_a_note_in_another_size() {
    let mut p = Page::new();
    p.prose(72.0, 60.0, 2, 460.0);
    let xs = [90.0, 200.0, 300.0];
    // Two tables of one layout, rows 10 pt apart, one blank line (2.2 pitches) between them.
    let a: [&[&str]; 4] = [
        &["Year", "Cases", "Rate"],
        &["2008", "412", "3.1"],
        &["2009", "455", "3.4"],
        &["2010", "470", "3.5"],
    ];
    grid(&mut p, &xs, 100.0, 10.0, &a);
    let b: [&[&str]; 3] =
        [&["Age", "Cases", "Rate"], &["0-17", "88", "1.2"], &["18-64", "301", "4.0"]];
    grid(&mut p, &xs, 152.0, 10.0, &b);
    // A note right under the second table, in a smaller size, in two parts.
    p.sized(90.0, 180.0, 7.0, "Source: state");
    p.sized(200.0, 180.0, 7.0, "registries");
    p.prose(72.0, 210.0, 2, 460.0);
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 2, "{:#?}", doc.blocks);
    assert_eq!((ts[0].rows, ts[0].cols), (4, 3), "{}", ts[0].to_markdown());
    assert_eq!((ts[1].rows, ts[1].cols), (3, 3), "{}", ts[1].to_markdown());
    assert!(!ts[1].cells.iter().any(|c| c.text.contains("Source")), "{}", ts[1].to_markdown());
}

#[test]
fn a_table_under_one_rule_stops_at_the_justified_paragraph_below_it() {
    // A header over one rule (`\hline`), the body, and a justified paragraph at the table's
    // size and pitch right below its last row.
    let mut p = Page::new();
    p.prose(72.0, 60.0, 2, 460.0);
    let xs = [80.0, 190.0, 290.0];
    grid(&mut p, &xs, 100.0, 11.0, &[&["Model", "Dev", "Test"]]);
    p.hline(72.0, 360.0, 103.5);
    let body: [&[&str]; 3] =
        [&["base", "71.2", "70.1"], &["large", "75.9", "74.0"], &["xl", "78.3", "77.9"]];
    grid(&mut p, &xs, 114.0, 11.0, &body);
    p.justified(72.0, 147.0, 4, 288.0, 11.0);
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (4, 3), "{}", t.to_markdown());
    assert!(!t.cells.iter().any(|c| c.text.contains("committee")), "{}", t.to_markdown());
}

#[test]
fn a_list_and_numbered_equations_are_no_tables() {
    let mut p = Page::new();
    p.prose(72.0, 60.0, 2, 460.0);
    for (i, item) in ["apples", "pears", "plums", "cherries"].iter().enumerate() {
        let y = 100.0 + i as f32 * 11.0;
        p.text(80.0, y, "\u{2022}");
        p.text(100.0, y, item);
    }
    p.prose(72.0, 160.0, 2, 460.0);
    for (i, eq) in ["x = a + b", "y = c - d", "z = x * y"].iter().enumerate() {
        let y = 200.0 + i as f32 * 14.0;
        p.text(200.0, y, eq);
        p.text(500.0, y, &format!("({})", i + 1));
    }
    p.prose(72.0, 260.0, 2, 460.0);
    let doc = doc_of(vec![p]);
    assert!(tables(&doc).is_empty(), "{:#?}", doc.blocks);
}
