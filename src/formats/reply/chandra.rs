//! Chandra's layout HTML (datalab-to/chandra, the `ocr_layout` prompt) into blocks.
//!
//! **The format.** One top-level `<div data-bbox="x0 y0 x1 y1" data-label="Label">…</div>` per
//! block in reading order, its content HTML: `<p>`, `<h1>`…`<h6>`, `<ul>`/`<ol>` with `<li>`,
//! `<table>` with `colspan`/`rowspan`, `<math>` holding KaTeX LaTeX (`display="block"` for
//! display math), `<pre>`/`<code>`, `<img alt="…">` for pictures. `data-bbox` is read both as
//! the prompt first wrote it (`x0 y0 x1 y1`) and as later prompts write it (`[x0, y0, x1, y1]`),
//! as Chandra's own `parse_layout` reads it (`chandra/output.py`).
//!
//! **Labels**, Chandra's fixed list (`chandra/prompts.py`; the last four from Chandra OCR 2's
//! prompt), matched ignoring ASCII case: `Section-Header` → heading, its level from the
//! heading tag inside (the page's first `<h1>` is the title, as the Markdown reader takes the
//! first `#`; later `<h1>` and `<h2>` → level 1, `<h3>` → 2, …; none → 1); `Text`,
//! `Complex-Block`, `Form`, `Table-Of-Contents` → paragraph; `List-Group` → one list item per
//! `<li>` (nested lists give their own items; all share the group's box); `Caption` → caption;
//! `Footnote` → footnote; `Page-Header` → page header; `Page-Footer` → page footer;
//! `Equation-Block` → formula (the LaTeX of its `<math>` elements, one per line); `Table` →
//! table; `Code-Block` → code (lines kept); `Image`, `Figure`, `Diagram`, `Chemical-Block` →
//! figure, without text (the `alt` description, chart data and mermaid source Chandra writes
//! there are the model's words, not the page's); `Bibliography` → one reference per `<li>` (or
//! per `<p>`); `Blank-Page` → nothing. A top-level `div` without `data-label` is read as
//! `Text`; any other label is a [`FormatError`] naming it.
//!
//! **Boxes** are normalised per axis to the `bbox_scale` the prompt names, unscaled here. That
//! frame depends on the prompt sent: Chandra's first prompt said "normalized 0-1000";
//! `chandra/prompts.py` (datalab-to/chandra) now fills `0-{bbox_scale}` from
//! `settings.BBOX_SCALE`, which is 1024 in Chandra 1's `chandra/settings.py` and 1000 in
//! Chandra OCR 2's; `parse_layout` scales by image size ÷ `BBOX_SCALE` on each axis. The
//! preset's [`super::BoxFrame::Normalized`] must be the number its prompt names. A
//! `data-bbox` that is not four finite numbers leaves the block without a box (its text is
//! kept); boxes outside the frame pass through ([`super::read_page`] clips them).
//!
//! **Text** is the HTML's text with white space collapsed, `<br>` as a space, inline `<math>`
//! as plain Unicode ([`latex_to_plain`]), images and checkboxes dropped, entities decoded.
//!
//! **Failures.** A reply cut at the token limit keeps every top-level `div` that was closed;
//! the one cut short is dropped. An empty reply is an empty page. A reply with no top-level
//! `div` at all is not this format: an error. Text outside the top-level `div`s is ignored, as
//! Chandra ignores it. Blocks left without text are dropped, tables and figures excepted.

use scraper::{ElementRef, Html, Node, Selector};

use super::super::{Format, FormatError};
use super::dots::{formula_block, table_block};
use crate::doc::{BBox, Block, BlockKind};
use crate::normalize::{collapse_ws, latex_to_plain};

/// The format this file reads.
const FORMAT: Format = Format::ChandraHtml;

/// Chandra's labels and the kind each becomes (`None`: no block).
const LABELS: [(&str, Option<BlockKind>); 19] = [
    ("Caption", Some(BlockKind::Caption)),
    ("Footnote", Some(BlockKind::Footnote)),
    ("Equation-Block", Some(BlockKind::Formula)),
    ("List-Group", Some(BlockKind::ListItem)),
    ("Page-Header", Some(BlockKind::PageHeader)),
    ("Page-Footer", Some(BlockKind::PageFooter)),
    ("Image", Some(BlockKind::Figure)),
    ("Section-Header", Some(BlockKind::Heading)),
    ("Table", Some(BlockKind::Table)),
    ("Text", Some(BlockKind::Paragraph)),
    ("Complex-Block", Some(BlockKind::Paragraph)),
    ("Code-Block", Some(BlockKind::Code)),
    ("Form", Some(BlockKind::Paragraph)),
    ("Table-Of-Contents", Some(BlockKind::Paragraph)),
    ("Figure", Some(BlockKind::Figure)),
    ("Chemical-Block", Some(BlockKind::Figure)),
    ("Diagram", Some(BlockKind::Figure)),
    ("Bibliography", Some(BlockKind::Reference)),
    ("Blank-Page", None),
];

/// One top-level `div`: its start tag and its inner HTML.
struct Div<'a> {
    open: &'a str,
    inner: &'a str,
}

/// Reads one page's reply: blocks in reading order on page `page`, boxes in the prompt's
/// normalised frame.
pub fn read(text: &str, page: u32) -> Result<Vec<Block>, FormatError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let (divs, any) = top_divs(text);
    if !any {
        return Err(FormatError::new(
            FORMAT,
            "expected Chandra's layout HTML: top-level <div data-bbox=\"x0 y0 x1 y1\" \
             data-label=\"…\"> blocks",
        ));
    }
    let mut out = Vec::new();
    let mut seen_title = false;
    for (i, div) in divs.iter().enumerate() {
        let (bbox_attr, label) = attributes(div.open);
        let label = label.unwrap_or_else(|| "Text".to_string());
        let kind = LABELS
            .iter()
            .find(|(l, _)| l.eq_ignore_ascii_case(label.trim()))
            .map(|(_, k)| *k)
            .ok_or_else(|| {
                FormatError::new(
                    FORMAT,
                    format!(
                        "unknown data-label {label:?} (Chandra's are Caption, Footnote, \
                         Equation-Block, List-Group, Page-Header, Page-Footer, Image, \
                         Section-Header, Table, Text, Complex-Block, Code-Block, Form, \
                         Table-Of-Contents, Figure, Chemical-Block, Diagram, Bibliography, \
                         Blank-Page)"
                    ),
                )
                .at(format!("div {i}"))
            })?;
        let Some(kind) = kind else { continue };
        let bbox = bbox_attr.as_deref().and_then(bbox_of).unwrap_or_default();
        let blocks = div_blocks(kind, div.inner, page, bbox, &mut seen_title);
        out.extend(blocks.into_iter().filter(|b| {
            !b.text.is_empty() || matches!(b.kind, BlockKind::Table | BlockKind::Figure)
        }));
    }
    Ok(out)
}

/// The blocks of one top-level `div` of `kind`.
fn div_blocks(
    kind: BlockKind,
    inner: &str,
    page: u32,
    bbox: BBox,
    seen_title: &mut bool,
) -> Vec<Block> {
    let frag = Html::parse_fragment(inner);
    let root = frag.root_element();
    let block = |k: BlockKind, text: String| Block::new(k, page, bbox, text);
    match kind {
        BlockKind::Table => vec![table_block(inner, page, bbox)],
        BlockKind::Figure => vec![block(BlockKind::Figure, String::new())],
        BlockKind::Formula => {
            let maths: Vec<String> = select(root, "math").map(|m| m.text().collect()).collect();
            let latex = if maths.is_empty() { text_of(root, false) } else { maths.join("\n") };
            formula_block(&latex, page, bbox).into_iter().collect()
        }
        BlockKind::Code => {
            let code: String =
                match select(root, "pre").next().or_else(|| select(root, "code").next()) {
                    Some(el) => el.text().collect(),
                    None => root.text().collect(),
                };
            vec![block(BlockKind::Code, code.trim_matches('\n').trim_end().to_string())]
        }
        BlockKind::ListItem => {
            let items: Vec<String> = select(root, "li").map(|li| text_of(li, true)).collect();
            if items.is_empty() {
                return vec![block(BlockKind::ListItem, text_of(root, false))];
            }
            items.into_iter().map(|t| block(BlockKind::ListItem, t)).collect()
        }
        BlockKind::Reference => {
            let mut entries: Vec<String> = select(root, "li").map(|li| text_of(li, true)).collect();
            if entries.is_empty() {
                entries = select(root, "p").map(|p| text_of(p, false)).collect();
            }
            if entries.is_empty() {
                entries.push(text_of(root, false));
            }
            entries.into_iter().map(|t| block(BlockKind::Reference, t)).collect()
        }
        BlockKind::Heading => {
            let level = root.descendants().filter_map(ElementRef::wrap).find_map(|e| {
                match e.value().name() {
                    "h1" => Some(1u8),
                    "h2" => Some(2),
                    "h3" => Some(3),
                    "h4" => Some(4),
                    "h5" => Some(5),
                    "h6" => Some(6),
                    _ => None,
                }
            });
            let text = text_of(root, false);
            if level == Some(1) && !*seen_title && !text.is_empty() {
                *seen_title = true;
                return vec![block(BlockKind::Title, text)];
            }
            let mut b = block(BlockKind::Heading, text);
            b.level = Some(level.map_or(1, |n| (n - 1).max(1)));
            vec![b]
        }
        other => vec![block(other, text_of(root, false))],
    }
}

fn select<'a>(root: ElementRef<'a>, css: &str) -> impl Iterator<Item = ElementRef<'a>> + 'a {
    let sel = Selector::parse(css).expect("a valid selector");
    root.select(&sel).collect::<Vec<_>>().into_iter()
}

/// The text of an element (see the module comment); `skip_lists` leaves out nested lists.
fn text_of(el: ElementRef<'_>, skip_lists: bool) -> String {
    let mut s = String::new();
    walk(el, skip_lists, &mut s);
    collapse_ws(&s)
}

fn walk(el: ElementRef<'_>, skip_lists: bool, out: &mut String) {
    for child in el.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                let Some(c) = ElementRef::wrap(child) else { continue };
                match e.name() {
                    "math" => {
                        let display = e.attr("display") == Some("block");
                        let plain = latex_to_plain(&c.text().collect::<String>());
                        if display {
                            out.push(' ');
                        }
                        out.push_str(&plain);
                        if display {
                            out.push(' ');
                        }
                    }
                    "img" | "input" | "script" | "style" => {}
                    "br" | "hr" => out.push(' '),
                    "ul" | "ol" if skip_lists => {}
                    name => {
                        let block = matches!(
                            name,
                            "p" | "div"
                                | "li"
                                | "ul"
                                | "ol"
                                | "td"
                                | "th"
                                | "tr"
                                | "table"
                                | "caption"
                                | "pre"
                                | "h1"
                                | "h2"
                                | "h3"
                                | "h4"
                                | "h5"
                                | "h6"
                        );
                        if block {
                            out.push(' ');
                        }
                        walk(c, skip_lists, out);
                        if block {
                            out.push(' ');
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// A start tag's `data-bbox` and `data-label`.
fn attributes(open: &str) -> (Option<String>, Option<String>) {
    let frag = Html::parse_fragment(&format!("{open}</div>"));
    let Some(div) = select(frag.root_element(), "div").next() else { return (None, None) };
    let attr = |k: &str| div.value().attr(k).map(str::to_string);
    (attr("data-bbox"), attr("data-label"))
}

/// A box from `x0 y0 x1 y1` or `[x0, y0, x1, y1]`: four finite numbers, else none.
fn bbox_of(v: &str) -> Option<BBox> {
    let inner = v.trim().trim_start_matches('[').trim_end_matches(']');
    let nums: Vec<f32> = inner
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f32>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()?;
    (nums.len() == 4).then(|| BBox::new(nums[0], nums[1], nums[2], nums[3]))
}

/// The closed top-level `div`s, in order, and whether any top-level `div` opened at all.
fn top_divs(s: &str) -> (Vec<Div<'_>>, bool) {
    let b = s.as_bytes();
    let (mut out, mut any) = (Vec::new(), false);
    let mut depth = 0usize;
    let mut open: Option<(usize, usize)> = None; // (start tag start, inner start)
    let mut i = 0;
    while let Some(off) = s[i..].find('<') {
        let at = i + off;
        let close = b.get(at + 1) == Some(&b'/');
        let name = at + 1 + usize::from(close);
        let is_div = b.len() > name + 3
            && b[name..name + 3].eq_ignore_ascii_case(b"div")
            && (b[name + 3].is_ascii_whitespace() || matches!(b[name + 3], b'>' | b'/'));
        if !is_div {
            i = at + 1;
            continue;
        }
        // A tag the reply stops inside ends the scan.
        let Some(end) = tag_end(b, at) else { break };
        let self_closing = !close && b[end - 2] == b'/';
        if close {
            if depth > 0 {
                depth -= 1;
                if depth == 0 {
                    if let Some((os, is)) = open.take() {
                        out.push(Div { open: &s[os..is], inner: &s[is..at] });
                    }
                }
            }
        } else if depth == 0 {
            any = true;
            if self_closing {
                out.push(Div { open: &s[at..end], inner: "" });
            } else {
                depth = 1;
                open = Some((at, end));
            }
        } else if !self_closing {
            depth += 1;
        }
        i = end;
    }
    (out, any)
}

/// The index just past the `>` ending the tag that starts at `at`, quotes respected.
fn tag_end(b: &[u8], at: usize) -> Option<usize> {
    let mut quote = None;
    for (k, &c) in b.iter().enumerate().skip(at + 1) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' => quote = Some(c),
            None if c == b'>' => return Some(k + 1),
            None => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{Cell, Table};

    const PAGE: &str = r#"<div data-bbox="70 40 930 80" data-label="Section-Header"><h1>Layout-Aware OCR</h1></div>
<div data-bbox="70 100 930 180" data-label="Text"><p>We read <b>pages</b> with <math>\alpha</math>-level accuracy &amp; speed.</p></div>
<div data-bbox="[70, 190, 500, 210]" data-label="Section-Header"><h2>2 Method</h2></div>
<div data-bbox="300 220 700 260" data-label="Equation-Block"><p><math display="block">E = mc^2</math></p></div>
<div data-bbox="70 270 930 400" data-label="Table"><table><tr><th>a</th><th>b</th></tr><tr><td colspan="2">wide</td></tr></table></div>
<div data-bbox="70 410 930 470" data-label="List-Group"><ul><li>One</li><li>Two <math>x_1</math><ul><li>Inner</li></ul></li></ul></div>
<div data-bbox="100 480 900 700" data-label="Image"><img alt="A bar chart of accuracy"/><p>Accuracy rises with size.</p></div>
<div data-bbox="480 960 520 980" data-label="Page-Footer"><p>7</p></div>"#;

    fn b(kind: BlockKind, bbox: [f32; 4], text: &str) -> Block {
        Block::new(kind, 2, BBox::new(bbox[0], bbox[1], bbox[2], bbox[3]), text)
    }

    #[test]
    fn a_page_reads_into_exact_blocks() {
        let mut heading = b(BlockKind::Heading, [70.0, 190.0, 500.0, 210.0], "2 Method");
        heading.level = Some(1);
        let mut eq = b(BlockKind::Formula, [300.0, 220.0, 700.0, 260.0], "E = mc2");
        eq.latex = Some("E = mc^2".into());
        let mut table = b(BlockKind::Table, [70.0, 270.0, 930.0, 400.0], "a b\nwide");
        let cell = |row, col, col_span, text: &str, header| Cell {
            row,
            col,
            row_span: 1,
            col_span,
            text: text.into(),
            header,
        };
        table.table = Some(Table {
            rows: 2,
            cols: 2,
            cells: vec![
                cell(0, 0, 1, "a", true),
                cell(0, 1, 1, "b", true),
                cell(1, 0, 2, "wide", false),
            ],
        });
        let list = [70.0, 410.0, 930.0, 470.0];
        let want = vec![
            b(BlockKind::Title, [70.0, 40.0, 930.0, 80.0], "Layout-Aware OCR"),
            b(
                BlockKind::Paragraph,
                [70.0, 100.0, 930.0, 180.0],
                "We read pages with α-level accuracy & speed.",
            ),
            heading,
            eq,
            table,
            b(BlockKind::ListItem, list, "One"),
            b(BlockKind::ListItem, list, "Two x1"),
            b(BlockKind::ListItem, list, "Inner"),
            b(BlockKind::Figure, [100.0, 480.0, 900.0, 700.0], ""),
            b(BlockKind::PageFooter, [480.0, 960.0, 520.0, 980.0], "7"),
        ];
        assert_eq!(read(PAGE, 2).unwrap(), want);
    }

    #[test]
    fn a_reply_cut_at_the_token_limit_keeps_its_closed_divs() {
        let cut = &PAGE[..PAGE.find("<li>Two").unwrap()];
        let got = read(cut, 0).unwrap();
        assert_eq!(got.len(), 5);
        assert_eq!(got[4].kind, BlockKind::Table);
        // Cut inside a start tag.
        let got =
            read("<div data-bbox=\"1 2 3 4\" data-label=\"Text\"><p>A.</p></div><div data-bb", 0)
                .unwrap();
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn an_empty_page_is_empty() {
        assert_eq!(read("", 0).unwrap(), vec![]);
        assert_eq!(read("  \n", 0).unwrap(), vec![]);
        let blank = r#"<div data-bbox="0 0 1000 1000" data-label="Blank-Page"></div>"#;
        assert_eq!(read(blank, 0).unwrap(), vec![]);
    }

    #[test]
    fn boxes_outside_the_frame_pass_and_bad_boxes_are_dropped() {
        let r = r#"<div data-bbox="-10 990 1010 1030" data-label="Page-Footer">Draft</div>
<div data-bbox="1 2 NaN 4" data-label="Text"><p>No box.</p></div>
<div data-bbox="1 2 3" data-label="Caption"><p>Figure 1.</p></div>
<div data-label="Text"><p>No bbox attribute.</p></div>"#;
        let got = read(r, 0).unwrap();
        assert_eq!(got[0].bbox, BBox::new(-10.0, 990.0, 1010.0, 1030.0));
        assert_eq!((got[1].bbox, got[1].text.as_str()), (BBox::default(), "No box."));
        assert_eq!((got[2].kind, got[2].bbox), (BlockKind::Caption, BBox::default()));
        assert_eq!(got[3].text, "No bbox attribute.");
    }

    #[test]
    fn garbage_and_unknown_labels_are_errors() {
        let e = read("# Not HTML at all\n\nJust Markdown.", 0).unwrap_err();
        assert_eq!(e.format, Format::ChandraHtml);
        assert!(e.to_string().contains("data-label"), "{e}");
        let e = read(r#"<div data-bbox="1 2 3 4" data-label="Sidebar">x</div>"#, 0).unwrap_err();
        assert!(e.to_string().contains("\"Sidebar\""), "{e}");
        assert_eq!(e.at.as_deref(), Some("div 0"));
    }

    #[test]
    fn code_references_and_later_h1s() {
        let r = r#"<div data-bbox="1 1 9 9" data-label="Section-Header"><h1>Paper</h1></div>
<div data-bbox="1 1 9 9" data-label="Section-Header"><h1>Appendix</h1></div>
<div data-bbox="1 1 9 9" data-label="Section-Header"><h3>A.1 Proofs</h3></div>
<div data-bbox="1 1 9 9" data-label="Code-Block"><pre>fn main() {
    println!("&lt;hi&gt;");
}</pre></div>
<div data-bbox="1 1 9 9" data-label="Bibliography"><p>[1] A. Berg. Tables. 2020.</p><p>[2] B. Lee. Forms. 2021.</p></div>"#;
        let got = read(r, 0).unwrap();
        let summary: Vec<(BlockKind, &str, Option<u8>)> =
            got.iter().map(|b| (b.kind, b.text.as_str(), b.level)).collect();
        use BlockKind::*;
        assert_eq!(
            summary,
            [
                (Title, "Paper", None),
                (Heading, "Appendix", Some(1)),
                (Heading, "A.1 Proofs", Some(2)),
                (Code, "fn main() {\n    println!(\"<hi>\");\n}", None),
                (Reference, "[1] A. Berg. Tables. 2020.", None),
                (Reference, "[2] B. Lee. Forms. 2021.", None),
            ]
        );
    }
}
