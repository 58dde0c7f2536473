//! DocTags, as granite-docling and SmolDocling answer for a page image, into blocks; and
//! OTSL tables (`otsl_table`), which two-stage models (MinerU2.5, PaddleOCR-VL) also answer
//! for a table region.
//!
//! **The format.** `<doctag>` holds one element per block in reading order, each
//! `<name><loc_x0><loc_y0><loc_x1><loc_y1>text</name>`; lists hold `<list_item>`s; a table is
//! `<otsl>` with its cells as OTSL tokens; a picture or table may hold a `<caption>` (with its
//! own locations); a picture may hold a class token (`<bar_chart>`), code a language token
//! (`<_Python_>`). The element names are docling-core's `DocumentToken`s
//! (`docling_core/types/doc/tokens.py`, docling-project/docling-core).
//!
//! **Elements.** `title` → title; `section_header_level_N` → heading of level N (0 read as
//! 1); `text`, `paragraph`, `checkbox_selected`, `checkbox_unselected` → paragraph;
//! `list_item` → list item (inside `ordered_list`/`unordered_list`, nested lists read in
//! turn); `caption` → caption; `footnote` → footnote; `page_header` → page header;
//! `page_footer` → page footer; `reference` → reference; `formula` → formula (its text is the
//! LaTeX); `code` → code (lines kept, language token dropped); `otsl`, `table` → table;
//! `picture`, `chart`, `smiles` → figure without text (a chart's data and a molecule's SMILES
//! are not page text), their `caption`/`footnote` read as blocks of their own; `inline`,
//! `document_index`, `form`, `key_value_region` → one paragraph of all the text inside (an
//! inline formula as plain Unicode). `doctag`, `ordered_list` and `unordered_list` only hold
//! other elements. A caption comes before or after its table or picture as the reply says
//! it. A closed element of any other name at the top level is a [`FormatError`] naming it;
//! unknown tokens that close nothing (`<end_of_utterance>`, class tokens) are ignored.
//!
//! **Boxes** are the element's first four `<loc_N>` tokens, `N` on a 0–500 grid on each axis
//! ([`super::BoxFrame::Normalized`]`(500.0)`), unscaled here: confirmed in
//! `docling_core/types/doc/tokens.py` (`get_location`: `round(500 × value ÷ page size)`,
//! clamped to 0..=499, x0 y0 x1 y1, top-left origin) and `document.py`'s `load_from_doctags`
//! (`loc ÷ 500` per axis). An element with fewer than four numeric locations has no box;
//! locations past the grid pass through ([`super::read_page`] clips them).
//!
//! **Failures.** A reply cut at the token limit keeps every element that was closed: an
//! element cut short is dropped, the closed elements inside it kept (the items of a list cut
//! in its middle). An empty reply, or an empty `<doctag>`, is an empty page. A reply with
//! text but no DocTags element is not this format: an error. Text outside any element is
//! ignored. Entities are left as the model wrote them (as docling-core's reader leaves them).
//! Blocks left without text are dropped, tables and figures excepted.
//!
//! **OTSL** (`otsl_table`): `<fcel>` (a cell with text), `<ecel>` (empty), `<ched>`
//! (column header), `<rhed>` (row header), `<srow>` (section row) each start a grid slot with
//! the text after them; `<lcel>` merges a slot into the cell on its left, `<ucel>` into the
//! one above, `<xcel>` both ways; `<nl>` ends a row. A cell spans right over the `lcel`/`xcel`
//! slots that follow it and down over the `ucel`/`xcel` slots below it (docling-core's rule).
//! `ched` and `rhed` cells are header cells. A merge token with nothing to merge into is an
//! empty cell of its own; text after a merge token joins the cell it merges into. Wrappers
//! (`<otsl>`, `<loc_N>`, a `<caption>`) may be present or not; a last row without `<nl>` (a
//! reply cut short) is kept.

use super::super::{Format, FormatError};
use super::dots::formula_block;
use crate::doc::{BBox, Block, BlockKind, Cell, Table};
use crate::normalize::{collapse_ws, latex_to_plain};

/// The format this file reads.
const FORMAT: Format = Format::DocTags;

/// Elements that open and close (docling-core's `DocumentToken`s but `page_break`).
const PAIRED: [&str; 25] = [
    "doctag",
    "otsl",
    "chart",
    "ordered_list",
    "unordered_list",
    "smiles",
    "inline",
    "caption",
    "footnote",
    "formula",
    "list_item",
    "page_footer",
    "page_header",
    "picture",
    "table",
    "text",
    "title",
    "document_index",
    "code",
    "checkbox_selected",
    "checkbox_unselected",
    "form",
    "key_value_region",
    "paragraph",
    "reference",
];

fn heading_level(name: &str) -> Option<u8> {
    let n = name.strip_prefix("section_header_level_")?;
    n.parse::<u8>().ok().map(|n| n.max(1))
}

fn is_paired(name: &str) -> bool {
    PAIRED.contains(&name) || heading_level(name).is_some()
}

/// One token of DocTags: a tag or the text between tags (byte offsets of the token).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Open(&'a str),
    Close(&'a str),
    Text(&'a str),
}

/// The tokens of `s` with their start and end offsets. A `<` that does not start a tag
/// (`<name>` or `</name>`, names of letters, digits and `_#+.-`) is text.
fn tokens(s: &str) -> Vec<(usize, usize, Tok<'_>)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut text_start = 0;
    let mut i = 0;
    while let Some(off) = s[i..].find('<') {
        let at = i + off;
        let close = b.get(at + 1) == Some(&b'/');
        let name_start = at + 1 + usize::from(close);
        let name_len = b[name_start..]
            .iter()
            .take_while(|c| {
                c.is_ascii_alphanumeric() || matches!(c, b'_' | b'#' | b'+' | b'.' | b'-')
            })
            .count();
        let end = name_start + name_len;
        if name_len == 0 || b.get(end) != Some(&b'>') {
            i = at + 1;
            continue;
        }
        if text_start < at {
            out.push((text_start, at, Tok::Text(&s[text_start..at])));
        }
        let name = &s[name_start..end];
        out.push((at, end + 1, if close { Tok::Close(name) } else { Tok::Open(name) }));
        i = end + 1;
        text_start = i;
    }
    if text_start < s.len() {
        out.push((text_start, s.len(), Tok::Text(&s[text_start..])));
    }
    out
}

/// An element: its name, children, whether the reply closed it, and its content's span.
#[derive(Debug)]
struct El<'a> {
    name: &'a str,
    children: Vec<Node<'a>>,
    closed: bool,
    start: usize,
    end: usize,
}

#[derive(Debug)]
enum Node<'a> {
    El(El<'a>),
    Text(&'a str),
    /// A tag that holds nothing: `<loc_N>`, an OTSL token, a class or language token.
    Leaf(&'a str),
}

/// The top-level nodes of a reply.
fn parse(s: &str) -> Result<Vec<Node<'_>>, FormatError> {
    fn new_el(name: &str, start: usize) -> El<'_> {
        El { name, children: Vec::new(), closed: false, start, end: start }
    }
    /// Moves the innermost open element into its parent, closed at `at` or cut short.
    fn close_top(stack: &mut Vec<El<'_>>, closed: bool, at: usize) {
        let mut el = stack.pop().expect("the root stays");
        el.closed = closed;
        el.end = at;
        stack.last_mut().expect("the root stays").children.push(Node::El(el));
    }
    let mut stack = vec![new_el("", 0)];
    for (start, end, tok) in tokens(s) {
        match tok {
            Tok::Text(t) => push(&mut stack, Node::Text(t)),
            Tok::Open(name) if is_paired(name) => stack.push(new_el(name, end)),
            Tok::Open(name) => push(&mut stack, Node::Leaf(name)),
            Tok::Close(name) => {
                if let Some(k) = stack.iter().skip(1).rposition(|e| e.name == name) {
                    while stack.len() > k + 2 {
                        close_top(&mut stack, false, start);
                    }
                    close_top(&mut stack, true, start);
                } else if !is_paired(name) {
                    // `</name>` after `<name>` at the top level: an element not in DocTags.
                    let top_level = stack.iter().skip(1).all(|e| e.name == "doctag");
                    let top = stack.last().expect("the root stays");
                    let opened =
                        top.children.iter().any(|c| matches!(c, Node::Leaf(n) if *n == name));
                    if top_level && opened {
                        return Err(FormatError::new(
                            FORMAT,
                            format!(
                                "unknown element <{name}> (expected DocTags elements: title, \
                                 section_header_level_N, text, list_item, otsl, picture, \
                                 formula, code, caption, footnote, page_header, page_footer, …)"
                            ),
                        )
                        .at(format!("byte {start}")));
                    }
                }
            }
        }
    }
    while stack.len() > 1 {
        close_top(&mut stack, false, s.len());
    }
    Ok(stack.pop().expect("the root stays").children)
}

fn push<'a>(stack: &mut [El<'a>], node: Node<'a>) {
    stack.last_mut().expect("the root stays").children.push(node);
}

/// Reads one page's reply: blocks in reading order on page `page`, boxes on the 500 grid.
pub fn read(text: &str, page: u32) -> Result<Vec<Block>, FormatError> {
    let nodes = parse(text)?;
    if !nodes.iter().any(has_element)
        && nodes.iter().any(|n| matches!(n, Node::Text(t) if !t.trim().is_empty()))
    {
        return Err(FormatError::new(
            FORMAT,
            "expected DocTags: <doctag> with elements such as <text><loc_x0><loc_y0><loc_x1>\
             <loc_y1>…</text>",
        ));
    }
    let mut out = Vec::new();
    for n in &nodes {
        if let Node::El(el) = n {
            element(el, text, page, &mut out);
        }
    }
    out.retain(|b| !b.text.is_empty() || matches!(b.kind, BlockKind::Table | BlockKind::Figure));
    Ok(out)
}

fn has_element(n: &Node<'_>) -> bool {
    match n {
        Node::El(e) => e.name != "doctag" || e.children.iter().any(has_element) || e.closed,
        _ => false,
    }
}

/// The blocks of one element (and of the elements inside it), appended to `out`.
fn element(el: &El<'_>, src: &str, page: u32, out: &mut Vec<Block>) {
    let children = |out: &mut Vec<Block>| {
        for c in &el.children {
            if let Node::El(c) = c {
                element(c, src, page, out);
            }
        }
    };
    if matches!(el.name, "doctag" | "ordered_list" | "unordered_list") || !el.closed {
        return children(out);
    }
    let bbox = locations(&el.children);
    // The element's tag, finer than the kind (`chart`, `section_header_level_2`), for the
    // detection suite (`classes/doctags.toml`).
    let block = |kind: BlockKind, text: String| {
        let mut b = Block::new(kind, page, bbox, text);
        b.label = Some(format!("doctags:{}", el.name));
        b
    };
    let kind = match el.name {
        "title" => BlockKind::Title,
        "text" | "paragraph" | "checkbox_selected" | "checkbox_unselected" => BlockKind::Paragraph,
        "list_item" => BlockKind::ListItem,
        "caption" => BlockKind::Caption,
        "footnote" => BlockKind::Footnote,
        "page_header" => BlockKind::PageHeader,
        "page_footer" => BlockKind::PageFooter,
        "reference" => BlockKind::Reference,
        "formula" => {
            out.extend(formula_block(&own_text(&el.children), page, bbox));
            return;
        }
        "code" => {
            let code = own_text(&el.children);
            out.push(block(BlockKind::Code, code.trim_matches('\n').trim_end().to_string()));
            return;
        }
        "otsl" | "table" => {
            let table = otsl_table(&src[el.start..el.end]);
            let mut b = block(BlockKind::Table, table.flat_text());
            b.table = Some(table);
            return with_captions(el, b, src, page, out);
        }
        "picture" | "chart" | "smiles" => {
            return with_captions(el, block(BlockKind::Figure, String::new()), src, page, out);
        }
        "inline" | "document_index" | "form" | "key_value_region" => {
            let mut s = String::new();
            deep_text(&el.children, &mut s);
            out.push(block(BlockKind::Paragraph, collapse_ws(&s)));
            return;
        }
        name => match heading_level(name) {
            Some(level) => {
                let mut b = block(BlockKind::Heading, collapse_ws(&own_text(&el.children)));
                b.level = Some(level);
                out.push(b);
                return;
            }
            None => return children(out),
        },
    };
    out.push(block(kind, collapse_ws(&own_text(&el.children))));
    // A list item may hold a nested list.
    children(out);
}

/// A table's or picture's own block, placed where its own content starts, with the captions
/// and footnotes inside it as blocks of their own in the order given.
fn with_captions(el: &El<'_>, own: Block, src: &str, page: u32, out: &mut Vec<Block>) {
    let mut own = Some(own);
    for c in &el.children {
        match c {
            Node::El(c) if matches!(c.name, "caption" | "footnote") => element(c, src, page, out),
            Node::El(_) => {}
            Node::Text(t) if t.trim().is_empty() => {}
            _ => out.extend(own.take()),
        }
    }
    out.extend(own);
}

/// The first four `<loc_N>` among `nodes` as a box; none without four.
fn locations(nodes: &[Node<'_>]) -> BBox {
    let locs: Vec<f32> = nodes
        .iter()
        .filter_map(|n| match n {
            Node::Leaf(l) => l.strip_prefix("loc_")?.parse::<u32>().ok(),
            _ => None,
        })
        .take(4)
        .map(|v| v as f32)
        .collect();
    if locs.len() == 4 {
        BBox::new(locs[0], locs[1], locs[2], locs[3])
    } else {
        BBox::default()
    }
}

/// The text directly inside an element, as written.
fn own_text(nodes: &[Node<'_>]) -> String {
    nodes
        .iter()
        .filter_map(|n| match n {
            Node::Text(t) => Some(*t),
            _ => None,
        })
        .collect()
}

/// All the text inside, formulas as plain Unicode, parts separated by spaces.
fn deep_text(nodes: &[Node<'_>], out: &mut String) {
    for n in nodes {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::El(e) if e.name == "formula" => {
                out.push(' ');
                out.push_str(&latex_to_plain(&own_text(&e.children)));
                out.push(' ');
            }
            Node::El(e) => {
                out.push(' ');
                deep_text(&e.children, out);
                out.push(' ');
            }
            Node::Leaf(_) => out.push(' '),
        }
    }
}

/// One OTSL grid slot.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Fcel,
    Ecel,
    Ched,
    Rhed,
    Srow,
    Lcel,
    Ucel,
    Xcel,
}

impl Slot {
    fn of(name: &str) -> Option<Slot> {
        Some(match name {
            "fcel" => Slot::Fcel,
            "ecel" => Slot::Ecel,
            "ched" => Slot::Ched,
            "rhed" => Slot::Rhed,
            "srow" => Slot::Srow,
            "lcel" => Slot::Lcel,
            "ucel" => Slot::Ucel,
            "xcel" => Slot::Xcel,
            _ => return None,
        })
    }

    /// Whether the slot starts a cell (rather than merging into one).
    fn anchors(self) -> bool {
        !matches!(self, Slot::Lcel | Slot::Ucel | Slot::Xcel)
    }
}

/// Reads an OTSL table, with or without its `<otsl>`/`<loc_N>` wrappers (see the module
/// comment); text that is no OTSL at all gives an empty table.
pub(crate) fn otsl_table(otsl: &str) -> Table {
    let mut rows: Vec<Vec<(Slot, String)>> = Vec::new();
    let mut row: Vec<(Slot, String)> = Vec::new();
    let mut in_caption = 0usize;
    for (_, _, tok) in tokens(otsl) {
        match tok {
            Tok::Open("caption") => in_caption += 1,
            Tok::Close("caption") => in_caption = in_caption.saturating_sub(1),
            _ if in_caption > 0 => {}
            Tok::Open("nl") => {
                if !row.is_empty() {
                    rows.push(std::mem::take(&mut row));
                }
            }
            Tok::Open(name) => {
                if let Some(slot) = Slot::of(name) {
                    row.push((slot, String::new()));
                }
            }
            Tok::Text(t) => {
                if let Some(last) = row.last_mut() {
                    last.1.push_str(t);
                }
            }
            Tok::Close(_) => {}
        }
    }
    if !row.is_empty() {
        rows.push(row);
    }
    let n_rows = rows.len();
    let n_cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let at = |r: usize, c: usize| rows.get(r).and_then(|row| row.get(c)).map(|s| s.0);
    let mut owner: Vec<Vec<Option<usize>>> = rows.iter().map(|r| vec![None; r.len()]).collect();
    let mut cells: Vec<Cell> = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, (slot, text)) in row.iter().enumerate() {
            if !slot.anchors() {
                continue;
            }
            let mut cs = 1;
            while matches!(at(r, c + cs), Some(Slot::Lcel | Slot::Xcel)) {
                cs += 1;
            }
            let mut rs = 1;
            while matches!(at(r + rs, c), Some(Slot::Ucel | Slot::Xcel)) {
                rs += 1;
            }
            for (rr, owners) in owner.iter_mut().enumerate().skip(r).take(rs) {
                for (cc, o) in owners.iter_mut().enumerate().skip(c).take(cs) {
                    if at(rr, cc).is_some_and(|s| !s.anchors()) && o.is_none() {
                        *o = Some(cells.len());
                    }
                }
            }
            cells.push(Cell {
                row: r as u32,
                col: c as u32,
                row_span: rs as u32,
                col_span: cs as u32,
                text: collapse_ws(text),
                header: matches!(slot, Slot::Ched | Slot::Rhed),
            });
        }
    }
    for (r, row) in rows.iter().enumerate() {
        for (c, (slot, text)) in row.iter().enumerate() {
            if slot.anchors() {
                continue;
            }
            let text = collapse_ws(text);
            match owner[r][c] {
                Some(i) if !text.is_empty() => {
                    let cell = &mut cells[i].text;
                    if !cell.is_empty() {
                        cell.push(' ');
                    }
                    cell.push_str(&text);
                }
                Some(_) => {}
                None => cells.push(Cell {
                    row: r as u32,
                    col: c as u32,
                    row_span: 1,
                    col_span: 1,
                    text,
                    header: false,
                }),
            }
        }
    }
    cells.sort_by_key(|c| (c.row, c.col));
    Table { rows: n_rows as u32, cols: n_cols as u32, cells }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<doctag><page_header><loc_40><loc_10><loc_460><loc_20>Journal of Tables, 2024</page_header>\
<title><loc_50><loc_30><loc_450><loc_45>Reading Tables</title>\
<section_header_level_1><loc_50><loc_60><loc_200><loc_70>1 Introduction</section_header_level_1>\
<text><loc_50><loc_75><loc_450><loc_110>Tables carry\n  structure.</text>\
<unordered_list><list_item><loc_60><loc_115><loc_450><loc_125>First point.</list_item>\
<list_item><loc_60><loc_126><loc_450><loc_136>Second point.</list_item></unordered_list>\
<formula><loc_150><loc_140><loc_350><loc_155>\\frac{a}{b}</formula>\
<otsl><loc_50><loc_160><loc_450><loc_220><ched>Model<ched>TEDS<nl><fcel>A<fcel>0.91<nl>\
<caption><loc_50><loc_222><loc_450><loc_230>Table 1: Scores.</caption></otsl>\
<picture><loc_50><loc_240><loc_450><loc_400><bar_chart><caption><loc_50><loc_402><loc_450><loc_410>Figure 1: Sizes.</caption></picture>\
<code><loc_50><loc_420><loc_450><loc_450><_Python_>x = 1\nprint(x)</code>\
<page_footer><loc_240><loc_480><loc_260><loc_490>3</page_footer></doctag><end_of_utterance>";

    fn b(kind: BlockKind, bbox: [f32; 4], text: &str) -> Block {
        Block::new(kind, 0, BBox::new(bbox[0], bbox[1], bbox[2], bbox[3]), text)
    }

    #[test]
    fn a_page_reads_into_exact_blocks() {
        let mut heading = b(BlockKind::Heading, [50.0, 60.0, 200.0, 70.0], "1 Introduction");
        heading.level = Some(1);
        let mut formula = b(BlockKind::Formula, [150.0, 140.0, 350.0, 155.0], "a/b");
        formula.latex = Some("\\frac{a}{b}".into());
        let mut table = b(BlockKind::Table, [50.0, 160.0, 450.0, 220.0], "Model TEDS\nA 0.91");
        table.table = Some(Table::from_rows(&[&["Model", "TEDS"], &["A", "0.91"]], 1));
        let want = vec![
            b(BlockKind::PageHeader, [40.0, 10.0, 460.0, 20.0], "Journal of Tables, 2024"),
            b(BlockKind::Title, [50.0, 30.0, 450.0, 45.0], "Reading Tables"),
            heading,
            b(BlockKind::Paragraph, [50.0, 75.0, 450.0, 110.0], "Tables carry structure."),
            b(BlockKind::ListItem, [60.0, 115.0, 450.0, 125.0], "First point."),
            b(BlockKind::ListItem, [60.0, 126.0, 450.0, 136.0], "Second point."),
            formula,
            table,
            b(BlockKind::Caption, [50.0, 222.0, 450.0, 230.0], "Table 1: Scores."),
            b(BlockKind::Figure, [50.0, 240.0, 450.0, 400.0], ""),
            b(BlockKind::Caption, [50.0, 402.0, 450.0, 410.0], "Figure 1: Sizes."),
            b(BlockKind::Code, [50.0, 420.0, 450.0, 450.0], "x = 1\nprint(x)"),
            b(BlockKind::PageFooter, [240.0, 480.0, 260.0, 490.0], "3"),
        ];
        let got = read(PAGE, 0).unwrap();
        // A block keeps its element's tag, finer than its kind.
        assert_eq!(got[0].label.as_deref(), Some("doctags:page_header"));
        assert_eq!(got[2].label.as_deref(), Some("doctags:section_header_level_1"));
        let got: Vec<Block> = got.into_iter().map(|b| Block { label: None, ..b }).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_reply_cut_at_the_token_limit_keeps_its_closed_elements() {
        let cut = &PAGE[..PAGE.find("Second point").unwrap()];
        let got = read(cut, 0).unwrap();
        let kinds: Vec<BlockKind> = got.iter().map(|b| b.kind).collect();
        use BlockKind::*;
        assert_eq!(kinds, [PageHeader, Title, Heading, Paragraph, ListItem]);
        // Cut inside a table: the table goes, what came before stays.
        let cut = &PAGE[..PAGE.find("<fcel>A").unwrap()];
        assert_eq!(read(cut, 0).unwrap().last().unwrap().kind, Formula);
        // Cut inside a tag.
        let cut = &PAGE[..PAGE.find("<title>").unwrap() + 4];
        assert_eq!(read(cut, 0).unwrap().len(), 1);
    }

    #[test]
    fn an_empty_page_is_empty() {
        assert_eq!(read("", 0).unwrap(), vec![]);
        assert_eq!(read("<doctag></doctag>", 0).unwrap(), vec![]);
        assert_eq!(read("<doctag>\n</doctag><end_of_utterance>", 0).unwrap(), vec![]);
    }

    #[test]
    fn locations_past_the_grid_pass_and_missing_ones_leave_no_box() {
        let r = "<doctag><text><loc_480><loc_490><loc_520><loc_530>Past the grid.</text>\
                 <text><loc_1><loc_2><loc_x><loc_4>Three numbers.</text>\
                 <text>No locations.</text></doctag>";
        let got = read(r, 0).unwrap();
        assert_eq!(got[0].bbox, BBox::new(480.0, 490.0, 520.0, 530.0));
        assert_eq!((got[1].bbox, got[1].text.as_str()), (BBox::default(), "Three numbers."));
        assert_eq!(got[2].bbox, BBox::default());
    }

    #[test]
    fn garbage_and_unknown_elements_are_errors() {
        let e = read("The page shows a table of results.", 0).unwrap_err();
        assert_eq!(e.format, Format::DocTags);
        assert!(e.to_string().contains("expected DocTags"), "{e}");
        let e = read("<doctag><sidebar><loc_1><loc_2><loc_3><loc_4>x</sidebar></doctag>", 0)
            .unwrap_err();
        assert!(e.to_string().contains("<sidebar>"), "{e}");
        // A stray end-of-sentence token closes nothing and is no element.
        assert_eq!(read("<doctag><text>a</text></doctag></s>", 0).unwrap().len(), 1);
    }

    #[test]
    fn nested_lists_inline_groups_and_levels() {
        let r = "<doctag><section_header_level_2><loc_1><loc_2><loc_3><loc_4>2.1 Data</section_header_level_2>\
                 <ordered_list><list_item><loc_1><loc_2><loc_3><loc_4>Outer<unordered_list>\
                 <list_item><loc_1><loc_5><loc_3><loc_6>Inner</list_item></unordered_list></list_item></ordered_list>\
                 <inline><loc_1><loc_7><loc_3><loc_8><text>Let</text><formula>x^2</formula><text>be even.</text></inline></doctag>";
        let got = read(r, 0).unwrap();
        let summary: Vec<(BlockKind, &str, Option<u8>)> =
            got.iter().map(|b| (b.kind, b.text.as_str(), b.level)).collect();
        use BlockKind::*;
        assert_eq!(
            summary,
            [
                (Heading, "2.1 Data", Some(2)),
                (ListItem, "Outer", None),
                (ListItem, "Inner", None),
                (Paragraph, "Let x2 be even.", None),
            ]
        );
        assert_eq!(got[3].bbox, BBox::new(1.0, 7.0, 3.0, 8.0));
    }

    fn cell(row: u32, col: u32, span: (u32, u32), text: &str, header: bool) -> Cell {
        Cell { row, col, row_span: span.0, col_span: span.1, text: text.into(), header }
    }

    #[test]
    fn otsl_spans_headers_and_bare_tokens() {
        let t = otsl_table(
            "<otsl><loc_1><loc_2><loc_3><loc_4><fcel>Region<ched>2023<lcel><nl>\
             <ucel><ched>Q1<ched>Q2<nl><rhed>North<fcel>5<ecel><nl></otsl>",
        );
        assert_eq!((t.rows, t.cols), (3, 3));
        assert_eq!(
            t.cells,
            [
                cell(0, 0, (2, 1), "Region", false),
                cell(0, 1, (1, 2), "2023", true),
                cell(1, 1, (1, 1), "Q1", true),
                cell(1, 2, (1, 1), "Q2", true),
                cell(2, 0, (1, 1), "North", true),
                cell(2, 1, (1, 1), "5", false),
                cell(2, 2, (1, 1), "", false),
            ]
        );
        // Both ways at once, as a two-stage model answers: no wrappers.
        let t = otsl_table("<fcel>big<lcel><fcel>c<nl><ucel><xcel><fcel>d<nl>");
        assert_eq!((t.rows, t.cols), (2, 3));
        assert_eq!(
            t.cells,
            [
                cell(0, 0, (2, 2), "big", false),
                cell(0, 2, (1, 1), "c", false),
                cell(1, 2, (1, 1), "d", false)
            ]
        );
    }

    #[test]
    fn otsl_cut_short_orphans_and_garbage() {
        // Cut at the token limit: the last row is kept as far as it goes.
        let t = otsl_table("<fcel>a<fcel>b<nl><fcel>c");
        assert_eq!((t.rows, t.cols), (2, 2));
        assert_eq!(t.flat_text(), "a b\nc");
        // A merge token with nothing to merge into is a cell of its own; text after a merge
        // token joins its cell.
        let t = otsl_table("<lcel>x<fcel>y<lcel>z<nl>");
        assert_eq!(t.cells, [cell(0, 0, (1, 1), "x", false), cell(0, 1, (1, 2), "y z", false)]);
        // A caption inside is not a cell.
        let t = otsl_table("<otsl><caption>Table 2</caption><fcel>a<nl></otsl>");
        assert_eq!(t.cells, [cell(0, 0, (1, 1), "a", false)]);
        assert_eq!(otsl_table("no table here"), Table::default());
    }
}
