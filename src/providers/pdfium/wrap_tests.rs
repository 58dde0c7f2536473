//! Tables whose cells wrap over several lines (docs/tables.md § 3a), on pages the project
//! writes: wrapped cells in every column, a header over two and three lines, rows of one line
//! beside rows of four, prose before and after. Each table is compared with the table it was
//! written from: its row and column counts exactly, TEDS at least 0.95.

use super::table_tests::{doc_of, tables, Page};
use crate::doc::{BlockKind, Table};
use crate::metrics::table::teds_html;
use crate::metrics::teds::teds;

/// A table as written: rows of cells, each cell its lines.
type Written<'a> = [&'a [&'a [&'a str]]];

/// Writes `rows` with the cells' left edges at `xs` and their first lines' baselines from
/// `y` down: lines `pitch` apart, each row under the tallest cell of the row above, plus
/// `extra` points of blank between rows. `bottom` cells sit on the row's last line (a
/// bottom-aligned header); others start on its first. Returns the baseline after the table.
fn write(
    p: &mut Page,
    xs: &[f32],
    y: f32,
    pitch: f32,
    extra: f32,
    rows: &Written<'_>,
    bottom: bool,
) -> f32 {
    let mut top = y;
    for row in rows {
        let tall = row.iter().map(|c| c.len()).max().unwrap_or(1);
        for (c, cell) in row.iter().enumerate() {
            let skip = if bottom { tall - cell.len() } else { 0 };
            for (i, line) in cell.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
                p.text(xs[c], top + (skip + i) as f32 * pitch, line);
            }
        }
        top += tall as f32 * pitch + extra;
    }
    top
}

/// The table the written rows mean: each cell's lines joined by spaces.
fn intended(rows: &Written<'_>) -> Table {
    let joined: Vec<Vec<String>> =
        rows.iter().map(|r| r.iter().map(|c| c.join(" ")).collect()).collect();
    let refs: Vec<Vec<&str>> =
        joined.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
    let rows: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
    Table::from_rows(&rows, 1)
}

/// The one table of the page, checked against the intended one: counts exact, TEDS ≥ 0.95,
/// and the prose around it read as prose.
fn check(p: Page, want: &Table) -> f64 {
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (want.rows, want.cols), "{}", t.to_markdown());
    let score = teds(&teds_html(t), &teds_html(want), false);
    assert!(score >= 0.95, "TEDS {score}\n{}\nwanted\n{}", t.to_markdown(), want.to_markdown());
    let kinds: Vec<BlockKind> = doc.blocks.iter().map(|b| b.kind).collect();
    let ti = kinds.iter().position(|k| *k == BlockKind::Table).expect("a table");
    assert!(ti > 0 && ti + 1 < kinds.len(), "{kinds:?}");
    assert!(!t.cells.iter().any(|c| c.text.contains("results")), "{}", t.to_markdown());
    score
}

const XS: [f32; 4] = [72.0, 175.0, 270.0, 350.0];

#[test]
fn a_borderless_table_with_cells_wrapped_in_every_column_has_one_row_per_entry() {
    // Rows set at one line pitch throughout: only the key column (filled in every row) and
    // the wrapped text show where a row starts.
    let rows: &Written<'_> = &[
        &[
            &["Program"],
            &["Lead agency"],
            &["Households", "served, in", "thousands"],
            &["Status of", "the review"],
        ],
        &[
            &["Housing aid"],
            &["Office of", "housing and", "urban affairs", "in each state"],
            &["1,204"],
            &["Complete"],
        ],
        &[&["Food support"], &["USDA"], &["987"], &["Pending"]],
        &[
            &["Job training for", "young adults", "in rural", "counties"],
            &["Labor"],
            &["455"],
            &["Open"],
        ],
        &[&["Child care"], &["HHS"], &["2,310"], &["Under review", "by the", "regional", "office"]],
        &[&["Energy help"], &["DOE"], &["1,662 in", "winter, 410", "in summer"], &["Open"]],
        &[&["Legal aid"], &["DOJ"], &["120"], &["Closed"]],
    ];
    let mut p = Page::new();
    p.prose(72.0, 60.0, 3, 460.0);
    let end = write(&mut p, &XS, 110.0, 11.0, 0.0, rows, false);
    p.prose(72.0, end + 14.0, 3, 460.0);
    let want = intended(rows);
    assert_eq!((want.rows, want.cols), (7, 4));
    check(p, &want);
}

#[test]
fn rows_set_apart_by_a_blank_are_rows_even_where_the_text_gives_no_sign() {
    // Continuation lines in capitals with nothing to say they continue, and a row whose key
    // cell is empty starting in lower case: the blank between rows (4 pt more than the line
    // pitch) is the evidence.
    let rows: &Written<'_> = &[
        &[&["Region"], &["Office"], &["Staff"], &["Contact"]],
        &[
            &["North"],
            &["Regional Office", "Eastern Branch", "Capital City"],
            &["41"],
            &["Main Desk"],
        ],
        &[&["Central"], &["Field Office"], &["17"], &["Front Desk", "Annex Building"]],
        &[&[""], &["shared services"], &["6"], &["Main Desk"]],
        &[&["South Coast", "Harbor District"], &["Port Office"], &["23"], &["Help Line"]],
        &[&["West"], &["Valley Office"], &["9"], &["Front Desk"]],
    ];
    let mut p = Page::new();
    p.prose(72.0, 60.0, 3, 460.0);
    let end = write(&mut p, &XS, 110.0, 11.0, 4.0, rows, false);
    p.prose(72.0, end + 14.0, 3, 460.0);
    let want = intended(rows);
    assert_eq!((want.rows, want.cols), (6, 4));
    check(p, &want);
}

#[test]
fn a_ruled_table_keeps_a_bottom_aligned_header_over_three_lines_as_one_row() {
    // booktabs: a top rule, a header whose cells wrap over up to three lines, set on its last
    // line, a mid rule, a body with wrapped cells, a bottom rule.
    let header: &Written<'_> =
        &[&[&["Region"], &["Number of", "households", "served"], &["Share of", "all"], &["Notes"]]];
    let body: &Written<'_> = &[
        &[&["North"], &["1,204"], &["31.2"], &["Counted in", "spring and", "autumn"]],
        &[&["Central"], &["987"], &["25.6"], &["Estimated"]],
        &[&["South and", "islands"], &["1,662"], &["43.2"], &["Counted in", "autumn"]],
    ];
    let mut p = Page::new();
    p.prose(72.0, 60.0, 3, 460.0);
    p.bar(68.0, 420.0, 100.0, 0.8);
    let mid = write(&mut p, &XS, 111.0, 11.0, 0.0, header, true) - 7.0;
    p.bar(68.0, 420.0, mid, 0.5);
    let end = write(&mut p, &XS, mid + 11.0, 11.0, 0.0, body, false);
    p.bar(68.0, 420.0, end - 7.0, 0.8);
    p.prose(72.0, end + 14.0, 3, 460.0);
    let all: Vec<&[&[&str]]> = header.iter().chain(body.iter()).copied().collect();
    let want = intended(&all);
    assert_eq!((want.rows, want.cols), (4, 4));
    check(p, &want);
}

#[test]
fn a_header_cell_wrapped_tighter_than_the_rows_under_it_is_a_row_of_its_own() {
    // A form: a header over two of four columns, one of its cells over two lines set 11 pt
    // apart, above rows of one line set 18 pt apart. The table's tight pitch is the row
    // pitch; the header's own lines show the blank under it (§ 3a).
    let rows: &Written<'_> = &[
        &[&[""], &[""], &["State funded", "legal aid"], &["CSOs"]],
        &[&["North"], &["Regional office"], &["yes"], &["no"]],
        &[&["Central"], &["Field office"], &["no"], &["yes"]],
        &[&["South"], &["Port office"], &["yes"], &["yes"]],
        &[&["East"], &["Valley office"], &["no"], &["no"]],
        &[&["West"], &["Coast office"], &["yes"], &["no"]],
        &[&["Islands"], &["Ferry office"], &["no"], &["yes"]],
    ];
    let mut p = Page::new();
    p.prose(72.0, 60.0, 3, 460.0);
    let end = write(&mut p, &XS, 110.0, 11.0, 7.0, rows, false);
    p.prose(72.0, end + 14.0, 3, 460.0);
    let want = intended(rows);
    assert_eq!((want.rows, want.cols), (7, 4));
    check(p, &want);
}

#[test]
fn a_key_cell_centred_on_two_lines_spans_two_rows_whatever_their_text() {
    // booktabs, as LaTeX sets `\multirow{2}{*}{Model} & Feature & Feature \\ & stability &
    // co-direction`: the second line starts in lower case (a wrap's sign), but the key cell
    // stands alone, centred between the two lines: two rows under one label (§ 3a).
    let mut p = Page::new();
    p.prose(72.0, 60.0, 3, 460.0);
    let rowed = |p: &mut Page, y: f32, cells: [&str; 3]| {
        for (x, t) in XS.iter().zip(cells) {
            p.text(*x, y, t);
        }
    };
    p.bar(68.0, 340.0, 100.0, 0.8);
    rowed(&mut p, 111.0, ["Model", "Error", "Spread"]);
    p.bar(68.0, 340.0, 115.0, 0.5);
    rowed(&mut p, 126.0, ["Without pretraining", "1.134", "23.220"]);
    rowed(&mut p, 137.0, ["Full model", "0.156", "0.137"]);
    p.bar(68.0, 340.0, 141.0, 0.5);
    p.text(XS[1], 152.0, "Feature");
    p.text(XS[2], 152.0, "Feature");
    p.text(XS[0], 157.5, "Model");
    p.text(XS[1], 163.0, "stability");
    p.text(XS[2], 163.0, "co-direction");
    p.bar(68.0, 340.0, 167.0, 0.5);
    rowed(&mut p, 178.0, ["Without pretraining", "0.673", "46.78%"]);
    rowed(&mut p, 189.0, ["Full model", "0.893", "71.44%"]);
    p.bar(68.0, 340.0, 193.0, 0.8);
    p.prose(72.0, 210.0, 3, 460.0);
    let doc = doc_of(vec![p]);
    let ts = tables(&doc);
    assert_eq!(ts.len(), 1, "{:#?}", doc.blocks);
    let t = ts[0];
    assert_eq!((t.rows, t.cols), (7, 3), "{}", t.to_markdown());
    let cell = |text: &str| t.cells.iter().find(|c| c.text == text).expect(text);
    assert_eq!(cell("stability").row, cell("Feature").row + 1, "{}", t.to_markdown());
    let label = t.cells.iter().find(|c| c.text == "Model" && c.row > 0).expect("the label");
    assert_eq!((label.row, label.row_span), (cell("Feature").row, 2), "{}", t.to_markdown());
}
