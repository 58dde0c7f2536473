//! Tests of `assemble.rs`.

use super::*;

fn line(x: f32, y: f32, size: f32, text: &str) -> Vec<Glyph> {
    let w = size * 0.5;
    text.chars()
        .enumerate()
        .map(|(i, ch)| {
            let x0 = x + i as f32 * w;
            Glyph { ch, bbox: BBox::new(x0, y, x0 + w, y + size * 1.1), size, bold: false }
        })
        .collect()
}

fn region(class: Class, x0: f32, y0: f32, x1: f32, y1: f32) -> Region {
    Region { class, score: 0.9, bbox: BBox::new(x0, y0, x1, y1), cells: Vec::new(), ruled: None }
}

const PAGE: Page = Page { width: 612.0, height: 792.0 };

#[test]
fn regions_type_and_order_two_columns() {
    let mut g = line(72.0, 60.0, 16.0, "A Title");
    g.extend(line(72.0, 100.0, 10.0, "left one"));
    g.extend(line(72.0, 112.0, 10.0, "left two"));
    g.extend(line(320.0, 100.0, 10.0, "right col"));
    g.extend(line(72.0, 700.0, 10.0, "stray text"));
    let regions = vec![
        region(Class::Text, 318.0, 98.0, 540.0, 125.0),
        region(Class::Title, 70.0, 58.0, 540.0, 80.0),
        region(Class::Text, 70.0, 98.0, 300.0, 125.0),
    ];
    let blocks = finish(vec![page_blocks(0, PAGE, &g, &regions)], 10.0, 792.0);
    let k: Vec<(BlockKind, &str)> = blocks.iter().map(|b| (b.kind, b.text.as_str())).collect();
    assert_eq!(
        k,
        vec![
            (BlockKind::Title, "A Title"),
            (BlockKind::Paragraph, "left one left two"),
            // Text in no region keeps its place: the bottom of the left column.
            (BlockKind::Paragraph, "stray text"),
            (BlockKind::Paragraph, "right col"),
        ]
    );
}

#[test]
fn references_split_on_labels() {
    let mut g = line(72.0, 100.0, 10.0, "[1] A. Author. A paper.");
    g.extend(line(80.0, 112.0, 10.0, "Journal, 2020."));
    g.extend(line(72.0, 124.0, 10.0, "[2] B. Author. Another."));
    let regions = vec![region(Class::Reference, 70.0, 98.0, 300.0, 140.0)];
    let b = finish(vec![page_blocks(0, PAGE, &g, &regions)], 10.0, 792.0);
    assert_eq!(b.len(), 2);
    assert!(b.iter().all(|b| b.kind == BlockKind::Reference));
    assert_eq!(b[0].text, "[1] A. Author. A paper. Journal, 2020.");
}

fn bold(mut g: Vec<Glyph>) -> Vec<Glyph> {
    g.iter_mut().for_each(|g| g.bold = true);
    g
}

/// Issue 40: an indented run-in inside a region (the detector boxes a section's paragraphs
/// as one) starts a paragraph; a plain indented line does not.
#[test]
fn an_indented_run_in_inside_a_region_starts_its_own_paragraph() {
    // One region: a paragraph, then at a first-line indent a bold run-in; then a plain
    // indented line after a sentence's end, which stays in its paragraph.
    let mut g = line(72.0, 100.0, 10.0, "The first paragraph ends here.");
    g.extend(bold(line(82.0, 112.0, 10.0, "Data extraction.")));
    g.extend(line(167.0, 112.0, 10.0, "Two reviewers"));
    g.extend(line(72.0, 124.0, 10.0, "extracted the data of each study."));
    g.extend(line(82.0, 136.0, 10.0, "Plain text goes on"));
    g.extend(line(72.0, 148.0, 10.0, "below it."));
    let regions = vec![region(Class::Text, 70.0, 98.0, 300.0, 160.0)];
    let b = finish(vec![page_blocks(0, PAGE, &g, &regions)], 10.0, 792.0);
    let k: Vec<(BlockKind, &str)> = b.iter().map(|b| (b.kind, b.text.as_str())).collect();
    assert_eq!(
        k,
        vec![
            (BlockKind::Paragraph, "The first paragraph ends here."),
            (BlockKind::Heading, "Data extraction"),
            (
                BlockKind::Paragraph,
                "Two reviewers extracted the data of each study. Plain text goes on below it."
            ),
        ]
    );
}

/// Issue 40: run-in headings at a paragraph's start are split from it, in bold (numbered
/// or not) and in capitals; a bold word inside a line, or a wholly bold line, is not one.
#[test]
fn run_in_headings_are_split_from_their_paragraphs() {
    let run_in = |head: &str, bold_head: bool, rest: &str, y: f32| {
        let mut g = line(72.0, y, 10.0, head);
        if bold_head {
            g = bold(g);
        }
        let x = 72.0 + (head.chars().count() + 1) as f32 * 5.0;
        g.extend(line(x, y, 10.0, rest));
        g.extend(line(72.0, y + 12.0, 10.0, "and the paragraph goes on below."));
        g
    };
    let mut g = run_in("2.1 Methods.", true, "We measured it", 100.0);
    g.extend(run_in("Search strategy.", true, "We searched", 150.0));
    g.extend(run_in("RESULTS", false, "Twelve studies met it", 200.0));
    g.extend(line(72.0, 250.0, 10.0, "A line with"));
    g.extend(bold(line(132.0, 250.0, 10.0, "bold")));
    g.extend(line(157.0, 250.0, 10.0, "inside it."));
    let regions = vec![region(Class::Text, 70.0, 98.0, 300.0, 270.0)];
    let b = finish(vec![page_blocks(0, PAGE, &g, &regions)], 10.0, 792.0);
    let k: Vec<(BlockKind, Option<u8>, &str)> =
        b.iter().map(|b| (b.kind, b.level, b.text.as_str())).collect();
    assert_eq!(
        k,
        vec![
            (BlockKind::Heading, Some(2), "2.1 Methods"),
            (BlockKind::Paragraph, None, "We measured it and the paragraph goes on below."),
            // An unnumbered heading's level is settled by size in `finish`.
            (BlockKind::Heading, Some(1), "Search strategy"),
            (BlockKind::Paragraph, None, "We searched and the paragraph goes on below."),
            (BlockKind::Heading, Some(1), "RESULTS"),
            (BlockKind::Paragraph, None, "Twelve studies met it and the paragraph goes on below."),
            (BlockKind::Paragraph, None, "A line with bold inside it."),
        ]
    );
}

#[test]
fn a_section_number_outside_its_box_joins_it_and_bold_lines_split_out() {
    // "6" sits 12 pt left of the title box; a bold line opens a text region.
    let mut g = bold(line(72.0, 100.0, 10.0, "6"));
    g.extend(bold(line(90.0, 100.0, 10.0, "Conclusion")));
    g.extend(bold(line(72.0, 130.0, 10.0, "6.1 Scope")));
    g.extend(line(72.0, 142.0, 10.0, "We end here."));
    let regions = vec![
        region(Class::Title, 88.0, 98.0, 160.0, 112.0),
        region(Class::Text, 70.0, 128.0, 300.0, 155.0),
    ];
    let b = finish(vec![page_blocks(0, PAGE, &g, &regions)], 10.0, 792.0);
    let k: Vec<(BlockKind, Option<u8>, &str)> =
        b.iter().map(|b| (b.kind, b.level, b.text.as_str())).collect();
    assert_eq!(
        k,
        vec![
            (BlockKind::Heading, Some(1), "6 Conclusion"),
            (BlockKind::Heading, Some(2), "6.1 Scope"),
            (BlockKind::Paragraph, None, "We end here."),
        ]
    );
}

#[test]
fn reference_boxes_without_years_are_text_and_large_first_page_type_is_the_title() {
    let mut g = line(72.0, 60.0, 18.0, "Big Title");
    g.extend(line(72.0, 300.0, 10.0, "Plain prose that the detector"));
    g.extend(line(72.0, 312.0, 10.0, "took for a reference list."));
    g.extend(bold(line(72.0, 500.0, 10.0, "2 Method")));
    let regions = vec![
        region(Class::Text, 70.0, 58.0, 300.0, 82.0),
        region(Class::Reference, 70.0, 298.0, 300.0, 325.0),
        region(Class::Header, 70.0, 498.0, 300.0, 512.0),
    ];
    let b = finish(vec![page_blocks(0, PAGE, &g, &regions)], 10.0, 792.0);
    let k: Vec<(BlockKind, &str)> = b.iter().map(|b| (b.kind, b.text.as_str())).collect();
    assert_eq!(
        k,
        vec![
            (BlockKind::Title, "Big Title"),
            (BlockKind::Paragraph, "Plain prose that the detector took for a reference list."),
            (BlockKind::Heading, "2 Method"),
        ]
    );
}

#[test]
fn unlabelled_reference_entries_before_the_references_heading_are_text() {
    // A paragraph citing a year, boxed as a reference list, then the real list.
    let mut g = line(72.0, 100.0, 10.0, "Smith (2018) argues that the noise");
    g.extend(line(72.0, 112.0, 10.0, "is not random."));
    g.extend(bold(line(72.0, 200.0, 10.0, "References")));
    g.extend(line(72.0, 212.0, 10.0, "Ann Lee. 2019. A paper."));
    g.extend(line(72.0, 224.0, 10.0, "Bo Wu and Cy Li. 2020. Another paper. Press."));
    let regions = vec![
        region(Class::Reference, 70.0, 98.0, 300.0, 125.0),
        region(Class::Reference, 70.0, 198.0, 300.0, 240.0),
    ];
    let b = finish(vec![page_blocks(0, PAGE, &g, &regions)], 10.0, 792.0);
    let k: Vec<(BlockKind, &str)> = b.iter().map(|b| (b.kind, b.text.as_str())).collect();
    assert_eq!(
        k,
        vec![
            (BlockKind::Paragraph, "Smith (2018) argues that the noise is not random."),
            (BlockKind::Heading, "References"),
            (BlockKind::Reference, "Ann Lee. 2019. A paper."),
            (BlockKind::Reference, "Bo Wu and Cy Li. 2020. Another paper. Press."),
        ]
    );
}

#[test]
fn figure_text_is_dropped_unless_the_figure_is_the_page() {
    let mut g = line(100.0, 100.0, 10.0, "axis label");
    g.extend(line(100.0, 400.0, 10.0, "poster text"));
    let small = vec![region(Class::Figure, 90.0, 90.0, 200.0, 200.0)];
    let b = finish(vec![page_blocks(0, PAGE, &g[..10], &small)], 10.0, 792.0);
    assert_eq!(
        b.iter().map(|b| (b.kind, b.text.as_str())).collect::<Vec<_>>(),
        vec![(BlockKind::Figure, "")]
    );
    let page = vec![region(Class::Figure, 10.0, 10.0, 600.0, 780.0)];
    let b = finish(vec![page_blocks(0, PAGE, &g, &page)], 10.0, 792.0);
    let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["axis label", "poster text"]);
}

#[test]
fn right_to_left_glyphs_join_without_spaces() {
    // Three glyphs in logical order, each left of the one before (visual order "cba").
    let g: Vec<Glyph> = ['a', 'b', 'c']
        .iter()
        .enumerate()
        .map(|(i, &ch)| {
            let x0 = 200.0 - 5.0 * i as f32;
            Glyph { ch, bbox: BBox::new(x0, 100.0, x0 + 5.0, 111.0), size: 10.0, bold: false }
        })
        .collect();
    let b = finish(vec![page_blocks(0, PAGE, &g, &[])], 10.0, 792.0);
    assert_eq!(b[0].text, "cba");
}

#[test]
fn empty_columns_and_rows_are_dropped_and_spans_shrink() {
    let c = |row, col, rs, cs, t: &str| Cell {
        row,
        col,
        row_span: rs,
        col_span: cs,
        text: t.into(),
        header: false,
    };
    // Column 0 empty; the header spans columns 0..3; row 2 empty.
    let t = Table::compact(vec![
        c(0, 1, 1, 2, "head"),
        c(1, 0, 1, 1, ""),
        c(1, 1, 1, 1, "a"),
        c(1, 2, 1, 1, "b"),
        c(2, 0, 1, 1, ""),
        c(2, 1, 1, 1, ""),
        c(2, 2, 1, 1, ""),
    ]);
    assert_eq!((t.rows, t.cols), (2, 2));
    let got: Vec<(u32, u32, u32, u32, &str)> =
        t.cells.iter().map(|c| (c.row, c.col, c.row_span, c.col_span, c.text.as_str())).collect();
    assert_eq!(got, vec![(0, 0, 1, 2, "head"), (1, 0, 1, 1, "a"), (1, 1, 1, 1, "b")]);
}

#[test]
fn table_cells_take_the_words_inside_them() {
    let mut g = line(100.0, 100.0, 10.0, "Name Value");
    g.extend(line(100.0, 115.0, 10.0, "alpha 1.5"));
    let pos = |row, col| GridPos { row, col, row_span: 1, col_span: 1, header: row == 0 };
    let mut r = region(Class::Table, 95.0, 95.0, 200.0, 130.0);
    r.cells = vec![
        (pos(0, 0), BBox::new(95.0, 95.0, 123.0, 111.0)),
        (pos(0, 1), BBox::new(123.0, 95.0, 200.0, 111.0)),
        (pos(1, 0), BBox::new(95.0, 111.0, 123.0, 130.0)),
        (pos(1, 1), BBox::new(123.0, 111.0, 200.0, 130.0)),
    ];
    let b = finish(vec![page_blocks(0, PAGE, &g, &[r])], 10.0, 792.0);
    let t = b[0].table.as_ref().unwrap();
    let texts: Vec<&str> = t.cells.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, vec!["Name", "Value", "alpha", "1.5"]);
    assert_eq!((t.rows, t.cols), (2, 2));
    assert!(t.cells[0].header && !t.cells[2].header);
}
