//! Marker's JSON (`marker_single --output_format json`, written as `<stem>/<stem>.json`) into a
//! [`Doc`]: a tree `{block_type: "Document", children: [page], metadata}` whose pages
//! (`block_type` `Page`) hold blocks `{id, block_type, html, polygon, bbox, children,
//! section_hierarchy, images}`. Group blocks (`ListGroup`, `TableGroup`, `FigureGroup`,
//! `PictureGroup`) hold their parts as children; every other block is a leaf whose `html`
//! renders all of it (Marker gives leaves no children).
//!
//! - **Kinds**, by `block_type`: `SectionHeader` → heading, its level from the `<h1>`…`<h6>`
//!   in its HTML read as the Markdown reader reads Marker's `#` marks for the same headings
//!   (the first heading of the document is the title when it is an `<h1>`; other `<h1>` are
//!   level 1 and `<hN>` level N − 1); `Text`, `TextInlineMath`, `Handwriting`, `Form`,
//!   `TableOfContents`, `ComplexRegion` → paragraph; `ListItem` → list item; `Table` →
//!   table; `Equation` → formula; `Code` → code; `Caption` → caption; `Footnote` → footnote;
//!   `PageHeader` and `Marginal` (a margin note) → page header; `PageFooter` → page footer;
//!   `Figure`, `Picture` → figure; `Reference` (an anchor for links, no content) is left
//!   out; groups are read through to their children. Any other type (`Line`, `Span`, `Char`,
//!   `TableCell` or `Page` where a page's block should be, or a type Marker does not write)
//!   is an error naming it, never a paragraph by default.
//! - **Order and pages**: pages and blocks in the file's order (Marker's reading order). A
//!   page's index is the number in its `id` (`/page/3/Page/0` is page 3, zero-based, so a
//!   `--page_range` run keeps its pages' places), else its place in the list.
//! - **Boxes**: `bbox` (else the bounds of `polygon`) is already in PDF points, top-left
//!   origin, in the page's frame: the page block's `bbox` gives the page size (and
//!   [`Doc::pages`]) and its top-left corner is subtracted (it is `[0, 0, w, h]` in practice).
//!   Given the PDF's page sizes, boxes are scaled by page size ÷ that size (1 when they
//!   agree).
//! - **Text**: a block's HTML text ([`super::html`]-like, white space collapsed), its
//!   `<math>` LaTeX in plain Unicode ([`latex_to_plain`]). **Tables**: cells from the HTML
//!   (`rowspan`/`colspan`, `th`), the block's text their cells row by row. **Formulas**: the
//!   `<math>` LaTeX in [`Block::latex`], its plain form as text. **Code**: the text of its
//!   `<pre>` with its lines kept.
//! - Left alone: `images` (base64), `section_hierarchy`, `metadata` (table of contents, page
//!   statistics), `llm_hierarchy`, a figure's description text and links.
//!
//! JSON that is no Marker document at all (an object with neither `block_type` nor
//! `children`, such as the `<stem>_meta.json` Marker writes beside it) fails with
//! [`NOT_MARKER`], which an import counts as another kind of file (`is_not_marker`).

use scraper::{ElementRef, Html, Node, Selector};
use serde_json::{Map, Value};

use super::mineru::{four, md_heading, scaled, table};
use super::{Format, FormatError};
use crate::doc::{BBox, Block, BlockKind, Doc, Page};
use crate::normalize::{collapse_ws, latex_to_plain};

/// The format this file reads.
const FORMAT: Format = Format::MarkerJson;

/// The error for JSON that is not a Marker document at all (an import skips such files).
pub const NOT_MARKER: &str = "not a Marker JSON document (no block_type and no children)";

/// Returns whether `e` says the file is JSON of some other kind (Marker's `_meta.json`),
/// which an import leaves alone rather than counting as broken.
pub(crate) fn is_not_marker(e: &FormatError) -> bool {
    e.format == FORMAT && e.source.to_string() == NOT_MARKER
}

/// What a block type becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Becomes {
    /// A block of this kind.
    Kind(BlockKind),
    /// A section header (heading or title).
    Header,
    /// A group: its children are read.
    Group,
    /// Nothing (`Reference`).
    Skip,
}

/// The kind of every block type Marker writes inside a page; `None` for any other.
fn becomes(t: &str) -> Option<Becomes> {
    use BlockKind::*;
    Some(match t {
        "SectionHeader" => Becomes::Header,
        "Text" | "TextInlineMath" | "Handwriting" | "Form" | "TableOfContents"
        | "ComplexRegion" => Becomes::Kind(Paragraph),
        "ListItem" => Becomes::Kind(ListItem),
        "Table" => Becomes::Kind(Table),
        "Equation" => Becomes::Kind(Formula),
        "Code" => Becomes::Kind(Code),
        "Caption" => Becomes::Kind(Caption),
        "Footnote" => Becomes::Kind(Footnote),
        "PageHeader" | "Marginal" => Becomes::Kind(PageHeader),
        "PageFooter" => Becomes::Kind(PageFooter),
        "Figure" | "Picture" => Becomes::Kind(Figure),
        "ListGroup" | "TableGroup" | "FigureGroup" | "PictureGroup" => Becomes::Group,
        "Reference" => Becomes::Skip,
        _ => return None,
    })
}

/// Reads a Marker JSON document. `page` is not used (every Marker block is on a page);
/// `sizes` are the PDF's page sizes in points where the caller knows them, else empty.
pub fn read(bytes: &[u8], _page: u32, sizes: &[Page]) -> Result<Doc, FormatError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| FormatError::json(FORMAT, e))?;
    let Value::Object(o) = &v else {
        return Err(FormatError::shape(FORMAT, "a Marker document (an object)", "$"));
    };
    if !o.contains_key("block_type") && !o.contains_key("children") {
        return Err(FormatError::new(FORMAT, NOT_MARKER));
    }
    match o.get("block_type").and_then(Value::as_str) {
        None | Some("Document") => {}
        Some(other) => {
            return Err(FormatError::new(
                FORMAT,
                format!("the top block is a {other:?}, not the \"Document\""),
            )
            .at("$.block_type"))
        }
    }
    let Some(Value::Array(pages_v)) = o.get("children") else {
        return Err(FormatError::shape(FORMAT, "a list of pages", "$.children"));
    };
    let mut r = Reader { blocks: Vec::new(), seen_heading: false };
    let mut pages: Vec<Page> = Vec::new();
    for (pi, pg) in pages_v.iter().enumerate() {
        let at = format!("$.children[{pi}]");
        let po = pg.as_object().ok_or_else(|| FormatError::shape(FORMAT, "an object", &at))?;
        let t = po.get("block_type").and_then(Value::as_str);
        if t != Some("Page") {
            return Err(FormatError::shape(FORMAT, "a Page block", format!("{at}.block_type")));
        }
        let p = po
            .get("id")
            .and_then(Value::as_str)
            .and_then(|id| id.strip_prefix("/page/")?.split('/').next()?.parse::<u32>().ok())
            .unwrap_or(pi as u32);
        let frame = bounds(po, &at)?.filter(|b| b[2] > b[0] && b[3] > b[1]);
        let (ox, oy) = frame.map_or((0.0, 0.0), |b| (b[0], b[1]));
        let (sx, sy) =
            match (sizes.get(p as usize).filter(|s| s.width > 0.0 && s.height > 0.0), frame) {
                (Some(s), Some(b)) => {
                    (f64::from(s.width) / (b[2] - b[0]), f64::from(s.height) / (b[3] - b[1]))
                }
                _ => (1.0, 1.0),
            };
        if let Some(b) = frame {
            if pages.len() <= p as usize {
                pages.resize(p as usize + 1, Page::default());
            }
            pages[p as usize] = Page { width: (b[2] - b[0]) as f32, height: (b[3] - b[1]) as f32 };
        }
        let ctx = Ctx { page: p, ox, oy, sx, sy };
        for (k, child) in children(po, &at)?.iter().enumerate() {
            r.block(child, &ctx, &format!("{at}.children[{k}]"))?;
        }
    }
    let pages = if sizes.is_empty() { pages } else { sizes.to_vec() };
    Ok(Doc { pages, blocks: r.blocks, markdown: None, meta: None })
}

/// A block's box: `bbox`, else the bounds of `polygon`; `None` where it has neither.
fn bounds(o: &Map<String, Value>, at: &str) -> Result<Option<[f64; 4]>, FormatError> {
    if let Some(b) = o.get("bbox").filter(|v| !v.is_null()) {
        return four(FORMAT, b, &format!("{at}.bbox")).map(Some);
    }
    let Some(poly) = o.get("polygon").filter(|v| !v.is_null()) else { return Ok(None) };
    let bad = || FormatError::shape(FORMAT, "a polygon of [x, y] points", format!("{at}.polygon"));
    let points = poly.as_array().filter(|p| !p.is_empty()).ok_or_else(bad)?;
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for pt in points {
        let xy = pt.as_array().filter(|xy| xy.len() == 2).ok_or_else(bad)?;
        let (Some(x), Some(y)) = (xy[0].as_f64(), xy[1].as_f64()) else { return Err(bad()) };
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    Ok(Some([x0, y0, x1, y1]))
}

/// A block's `children` (none where absent or null).
fn children<'a>(o: &'a Map<String, Value>, at: &str) -> Result<&'a [Value], FormatError> {
    match o.get("children") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(c)) => Ok(c),
        Some(_) => Err(FormatError::shape(FORMAT, "a list of blocks", format!("{at}.children"))),
    }
}

/// One page: its index, the origin of its frame and the scale to the caller's page size.
struct Ctx {
    page: u32,
    ox: f64,
    oy: f64,
    sx: f64,
    sy: f64,
}

/// The blocks being read.
struct Reader {
    blocks: Vec<Block>,
    seen_heading: bool,
}

impl Reader {
    fn block(&mut self, v: &Value, ctx: &Ctx, at: &str) -> Result<(), FormatError> {
        let o = v.as_object().ok_or_else(|| FormatError::shape(FORMAT, "an object", at))?;
        let t = o
            .get("block_type")
            .and_then(Value::as_str)
            .ok_or_else(|| FormatError::shape(FORMAT, "a string", format!("{at}.block_type")))?;
        let becomes = becomes(t).ok_or_else(|| {
            FormatError::new(
                FORMAT,
                format!("unknown block type {t:?} (not one Marker writes inside a page)"),
            )
            .at(format!("{at}.block_type"))
        })?;
        let html = match o.get("html") {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(FormatError::shape(FORMAT, "a string", format!("{at}.html"))),
        };
        let bbox = match bounds(o, at)? {
            Some(b) => {
                scaled([b[0] - ctx.ox, b[1] - ctx.oy, b[2] - ctx.ox, b[3] - ctx.oy], ctx.sx, ctx.sy)
            }
            None => BBox::default(),
        };
        let p = ctx.page;
        let block = match becomes {
            Becomes::Skip => None,
            Becomes::Group => {
                for (k, c) in children(o, at)?.iter().enumerate() {
                    self.block(c, ctx, &format!("{at}.children[{k}]"))?;
                }
                None
            }
            Becomes::Header => {
                let frag = Html::parse_fragment(html);
                let marks = select_first(&frag, "h1, h2, h3, h4, h5, h6")
                    .and_then(|h| h.value().name()[1..].parse::<u64>().ok())
                    .unwrap_or(2);
                let text = text_of(&frag);
                if text.is_empty() {
                    None
                } else {
                    let (kind, level) = md_heading(marks, &mut self.seen_heading);
                    let mut b = Block::new(kind, p, bbox, text);
                    b.level = level;
                    Some(b)
                }
            }
            Becomes::Kind(BlockKind::Table) => Some(table(html, p, bbox)),
            Becomes::Kind(BlockKind::Figure) => Some(Block::new(BlockKind::Figure, p, bbox, "")),
            Becomes::Kind(BlockKind::Formula) => {
                let frag = Html::parse_fragment(html);
                match select_first(&frag, "math") {
                    Some(m) => {
                        let latex = m.text().collect::<String>().trim().to_string();
                        let mut b = Block::new(BlockKind::Formula, p, bbox, latex_to_plain(&latex));
                        b.latex = (!latex.is_empty()).then_some(latex);
                        Some(b)
                    }
                    None => Some(Block::new(BlockKind::Formula, p, bbox, text_of(&frag))),
                }
            }
            Becomes::Kind(BlockKind::Code) => {
                let frag = Html::parse_fragment(html);
                let code = frag.root_element().text().collect::<String>();
                Some(Block::new(BlockKind::Code, p, bbox, code.trim_matches('\n').trim_end()))
            }
            Becomes::Kind(kind) => {
                Some(Block::new(kind, p, bbox, text_of(&Html::parse_fragment(html))))
            }
        };
        if let Some(b) = block {
            if matches!(b.kind, BlockKind::Table | BlockKind::Figure) || !b.text.is_empty() {
                self.blocks.push(b);
            }
        }
        Ok(())
    }
}

/// The first element of `frag` that `css` selects.
fn select_first<'a>(frag: &'a Html, css: &str) -> Option<ElementRef<'a>> {
    let sel = Selector::parse(css).ok()?;
    frag.select(&sel).next()
}

/// A fragment's text: markup, images and comments dropped, `<math>` in plain Unicode, white
/// space collapsed.
fn text_of(frag: &Html) -> String {
    let mut out = String::new();
    text_into(frag.root_element(), &mut out);
    collapse_ws(&out)
}

fn text_into(el: ElementRef<'_>, out: &mut String) {
    for child in el.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                let name = e.name();
                if matches!(name, "script" | "style" | "img") {
                    continue;
                }
                if name == "br" {
                    out.push(' ');
                    continue;
                }
                let Some(c) = ElementRef::wrap(child) else { continue };
                if name == "math" {
                    out.push(' ');
                    out.push_str(&latex_to_plain(&c.text().collect::<String>()));
                    out.push(' ');
                    continue;
                }
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
                text_into(c, out);
                if block {
                    out.push(' ');
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LETTER: Page = Page { width: 612.0, height: 792.0 };

    fn blk(id: &str, t: &str, html: &str, bbox: [f64; 4]) -> Value {
        let [x0, y0, x1, y1] = bbox;
        json!({"id": id, "block_type": t, "html": html,
               "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], "bbox": bbox,
               "children": null, "section_hierarchy": {"1": "/page/0/SectionHeader/1"},
               "images": {}})
    }

    fn group(id: &str, t: &str, bbox: [f64; 4], children: Vec<Value>) -> Value {
        let mut g = blk(id, t, "<content-ref src='x'></content-ref>", bbox);
        g["children"] = json!(children);
        g
    }

    fn page(n: u32, children: Vec<Value>) -> Value {
        let mut p = group(&format!("/page/{n}/Page/0"), "Page", [0.0, 0.0, 612.0, 792.0], children);
        p["html"] = json!("");
        p
    }

    /// A two-page paper as `marker_single --output_format json` writes it.
    fn two_pages() -> Value {
        json!({
            "block_type": "Document",
            "children": [
                page(0, vec![
                    blk("/page/0/PageHeader/0", "PageHeader", "<p>Preprint. Under review.</p>", [72.0, 24.0, 245.0, 36.0]),
                    blk("/page/0/SectionHeader/1", "SectionHeader", "<h1>Sparse Tables in Practice</h1>", [122.0, 79.0, 490.0, 103.0]),
                    blk("/page/0/SectionHeader/2", "SectionHeader", "<h2>1 Introduction</h2>", [72.0, 142.0, 245.0, 158.0]),
                    blk("/page/0/Text/3", "TextInlineMath",
                        "<p block-type=\"TextInlineMath\">We measure <math display=\"inline\">\\alpha</math> on three <i>corpora</i>.</p>",
                        [72.0, 166.0, 540.0, 238.0]),
                    blk("/page/0/Equation/4", "Equation",
                        "<p block-type=\"Equation\"><math display=\"block\">E = mc^{2}</math></p>",
                        [184.0, 253.0, 428.0, 285.0]),
                    group("/page/0/ListGroup/5", "ListGroup", [72.0, 300.0, 540.0, 340.0], vec![
                        blk("/page/0/ListItem/6", "ListItem", "<li>one</li>", [72.0, 300.0, 540.0, 318.0]),
                        blk("/page/0/ListItem/7", "ListItem", "<li>two</li>", [72.0, 322.0, 540.0, 340.0]),
                    ]),
                    blk("/page/0/PageFooter/8", "PageFooter", "<p>1</p>", [300.0, 752.0, 312.0, 764.0]),
                ]),
                page(1, vec![
                    group("/page/1/TableGroup/0", "TableGroup", [72.0, 79.0, 540.0, 238.0], vec![
                        blk("/page/1/Caption/1", "Caption", "<p>Table 1: Scores.</p>", [72.0, 79.0, 540.0, 92.0]),
                        blk("/page/1/Table/2", "Table",
                            "<table><tbody><tr><th>Model</th><th>F1</th></tr><tr><td>Ours</td><td>0.91</td></tr></tbody></table>",
                            [72.0, 95.0, 540.0, 238.0]),
                    ]),
                    group("/page/1/FigureGroup/3", "FigureGroup", [72.0, 277.0, 540.0, 554.0], vec![
                        blk("/page/1/Figure/4", "Figure", "<p><img src=\"fig.jpeg\"/></p>", [72.0, 277.0, 540.0, 530.0]),
                        blk("/page/1/Caption/5", "Caption", "<p>Figure 1: Recall.</p>", [72.0, 535.0, 540.0, 554.0]),
                    ]),
                    blk("/page/1/Code/6", "Code", "<pre>for x in xs:\n    f(x)\n</pre>", [72.0, 570.0, 540.0, 600.0]),
                    blk("/page/1/Reference/7", "Reference", "<span id=\"page-1-7\"></span>", [72.0, 600.0, 73.0, 601.0]),
                    blk("/page/1/PageFooter/8", "PageFooter", "<p>2</p>", [300.0, 752.0, 312.0, 764.0]),
                ]),
            ],
            "metadata": {"table_of_contents": [], "page_stats": []}
        })
    }

    #[test]
    fn reads_the_tree_in_order_with_point_boxes() {
        let d = read(two_pages().to_string().as_bytes(), 0, &[]).unwrap();
        use BlockKind::*;
        let got: Vec<(BlockKind, u32, &str, Option<u8>)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.text.as_str(), b.level)).collect();
        assert_eq!(
            got,
            [
                (PageHeader, 0, "Preprint. Under review.", None),
                (Title, 0, "Sparse Tables in Practice", None),
                (Heading, 0, "1 Introduction", Some(1)),
                (Paragraph, 0, "We measure α on three corpora.", None),
                (Formula, 0, "E = mc2", None),
                (ListItem, 0, "one", None),
                (ListItem, 0, "two", None),
                (PageFooter, 0, "1", None),
                (Caption, 1, "Table 1: Scores.", None),
                (Table, 1, "Model F1\nOurs 0.91", None),
                (Figure, 1, "", None),
                (Caption, 1, "Figure 1: Recall.", None),
                (Code, 1, "for x in xs:\n    f(x)", None),
                (PageFooter, 1, "2", None),
            ]
        );
        let b = &d.blocks;
        assert_eq!(b[4].latex.as_deref(), Some("E = mc^{2}"));
        assert_eq!(b[3].bbox, BBox::new(72.0, 166.0, 540.0, 238.0));
        assert_eq!(b[9].bbox, BBox::new(72.0, 95.0, 540.0, 238.0));
        let t = b[9].table.as_ref().unwrap();
        assert_eq!(
            (t.rows, t.cols, t.cells[0].header, t.cells[3].text.as_str()),
            (2, 2, true, "0.91")
        );
        assert_eq!(d.pages, [LETTER, LETTER]);
    }

    #[test]
    fn page_ids_place_pages_and_given_sizes_scale() {
        let mut v = two_pages();
        v["children"][1]["id"] = json!("/page/4/Page/0");
        let a4 = Page { width: 595.0, height: 842.0 };
        let d = read(v.to_string().as_bytes(), 0, &[a4; 5]).unwrap();
        assert_eq!(d.blocks.last().unwrap().page, 4);
        let b = d.blocks[3].bbox;
        assert!(
            (b.x1 - 540.0 * 595.0 / 612.0).abs() < 1e-3
                && (b.y1 - 238.0 * 842.0 / 792.0).abs() < 1e-3
        );
        assert_eq!(d.pages, [a4; 5]);
        // Without sizes: the page blocks' sizes, pages 1–3 unknown.
        let d = read(v.to_string().as_bytes(), 0, &[]).unwrap();
        assert_eq!(
            (d.pages.len(), d.pages[0], d.pages[2], d.pages[4]),
            (5, LETTER, Page::default(), LETTER)
        );
    }

    #[test]
    fn malformed_unknown_and_other_json_say_what() {
        let err = |s: &str| read(s.as_bytes(), 0, &[]).unwrap_err();
        assert!(err("{").to_string().starts_with("invalid JSON"));
        assert_eq!(err("[]").to_string(), "expected a Marker document (an object) at $");
        let meta = err(r#"{"table_of_contents": [], "page_stats": []}"#);
        assert!(is_not_marker(&meta), "{meta}");
        assert_eq!(
            err(r#"{"block_type": "Document"}"#).to_string(),
            "expected a list of pages at $.children"
        );
        assert_eq!(
            err(r#"{"children": [{"block_type": "Text"}]}"#).to_string(),
            "expected a Page block at $.children[0].block_type"
        );
        let mut v = two_pages();
        v["children"][1]["children"][2]["block_type"] = json!("Sidebar");
        let e = err(&v.to_string());
        assert!(!is_not_marker(&e));
        assert_eq!(
            e.to_string(),
            "unknown block type \"Sidebar\" (not one Marker writes inside a page) at \
             $.children[1].children[2].block_type"
        );
        let mut v = two_pages();
        v["children"][0]["children"][1]["bbox"] = json!([1, 2]);
        assert_eq!(
            err(&v.to_string()).to_string(),
            "expected a box [x0, y0, x1, y1] at $.children[0].children[1].bbox"
        );
    }
}
