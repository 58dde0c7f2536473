//! Unstructured's element JSON (`partition_pdf` then `elements_to_json`, or the API's
//! response) into a [`Doc`]: a list of `{type, element_id, text, metadata}` objects in reading
//! order.
//!
//! - **Kinds**, by `type`: `Title` → the document title for the first one (as the Markdown
//!   reader takes the first `#`), a heading at level `metadata.category_depth` + 1 for the
//!   others; `NarrativeText`, `UncategorizedText`, `Address`, `EmailAddress` and
//!   `CompositeElement` (a chunker's merged elements) → paragraph; `ListItem` → list item;
//!   `Table` and `TableChunk` → table; `Header` → page header; `Footer` and `PageNumber` →
//!   page footer; `FigureCaption` → caption; `Image` → figure (with any text Unstructured read
//!   in it); `Formula` → formula (its text as given; no LaTeX); `CodeSnippet` → code;
//!   `PageBreak` and `CheckBox` are markers, not blocks. Any other type is an error naming it:
//!   a new type is added here on purpose, never read as a paragraph by default.
//! - **Pages**: `metadata.page_number` is one-based; an element without it is on the page
//!   the caller names (a page-less file).
//! - **Tables**: cells from `metadata.text_as_html` (see [`super::html`], with spans and `th`
//!   header cells), the block's text their cells row by row; a table without HTML keeps its
//!   text and has no cells.
//! - **Boxes**: the bounding box of `metadata.coordinates.points`. In `PointSpace` (PDF
//!   points, bottom-left origin) y is turned over with `layout_height`, and `layout_width` ×
//!   `layout_height` is the page's size. In `PixelSpace` (top-left origin, the size of the
//!   page image Unstructured looked at: the page in points for the `fast` strategy, 200 dpi
//!   pixels for `hi_res`) the box is scaled by page size ÷ layout size where the caller gives
//!   the PDF's page sizes, and **kept as given otherwise** (so `hi_res` boxes stay in pixels
//!   and [`Doc::pages`] stays empty). `RelativeCoordinateSystem` (0–1, bottom-left) needs the
//!   page size and is an empty box without it. An element without coordinates has an empty
//!   box.
//! - Left alone: `element_id`, `parent_id`, `detection_class_prob`, `languages`, links,
//!   emphasis, `image_base64` and the other metadata.
//!
//! An empty list is an error ("no elements"): Unstructured writes `[]` when partitioning found
//! nothing at all (a scanned PDF without OCR, a failed model), and such a run must not be
//! stored as a parse that found an empty document.

use serde_json::Value;

use super::{html, Format, FormatError};
use crate::doc::{BBox, Block, BlockKind, Doc, Page};
use crate::normalize::collapse_ws;

/// The format this file reads.
const FORMAT: Format = Format::UnstructuredJson;

/// What an element type becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Becomes {
    /// A block of this kind.
    Block(BlockKind),
    /// Nothing: a marker (`PageBreak`) or an element without text (`CheckBox`).
    Marker,
}

/// The kind of every element type Unstructured writes; `None` for a type it does not.
fn becomes(t: &str) -> Option<Becomes> {
    use BlockKind::*;
    Some(match t {
        "Title" => Becomes::Block(Heading),
        "NarrativeText" | "UncategorizedText" | "Address" | "EmailAddress" | "CompositeElement" => {
            Becomes::Block(Paragraph)
        }
        "ListItem" => Becomes::Block(ListItem),
        "Table" | "TableChunk" => Becomes::Block(Table),
        "Header" => Becomes::Block(PageHeader),
        "Footer" | "PageNumber" => Becomes::Block(PageFooter),
        "FigureCaption" => Becomes::Block(Caption),
        "Image" => Becomes::Block(Figure),
        "Formula" => Becomes::Block(Formula),
        "CodeSnippet" => Becomes::Block(Code),
        "PageBreak" | "CheckBox" => Becomes::Marker,
        _ => return None,
    })
}

/// Reads an element list. `page` (zero-based) is where elements without a page number go;
/// `sizes` are the PDF's page sizes in points where the caller knows them, else empty.
pub(crate) fn read_unstructured(
    bytes: &[u8],
    page: u32,
    sizes: &[Page],
) -> Result<Doc, FormatError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| FormatError::json(FORMAT, e))?;
    let Value::Array(elements) = v else {
        return Err(FormatError::shape(FORMAT, "a list of elements", "$"));
    };
    if elements.is_empty() {
        return Err(FormatError::new(
            FORMAT,
            "no elements: the list is empty (Unstructured found nothing in the document)",
        ));
    }
    let mut pages: Vec<Page> = sizes.to_vec();
    let mut blocks = Vec::new();
    let mut seen_title = false;
    for (i, el) in elements.iter().enumerate() {
        let at = |field: &str| format!("[{i}]{field}");
        if !el.is_object() {
            return Err(FormatError::shape(FORMAT, "an object", at("")));
        }
        let t = el
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| FormatError::shape(FORMAT, "a string", at(".type")))?;
        let kind = match becomes(t) {
            Some(Becomes::Block(k)) => k,
            Some(Becomes::Marker) => continue,
            None => {
                return Err(FormatError::new(
                    FORMAT,
                    format!("unknown element type {t:?} (not one Unstructured writes for a PDF)"),
                )
                .at(at(".type")))
            }
        };
        let text = match el.get("text") {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(FormatError::shape(FORMAT, "a string", at(".text"))),
        };
        let meta = match el.get("metadata") {
            None | Some(Value::Null) => None,
            Some(m @ Value::Object(_)) => Some(m),
            Some(_) => return Err(FormatError::shape(FORMAT, "an object", at(".metadata"))),
        };
        let field = |k: &str| meta.and_then(|m| m.get(k)).filter(|v| !v.is_null());
        let p = match field("page_number") {
            None => page,
            Some(n) => match n.as_u64() {
                Some(n) if n >= 1 => (n - 1) as u32,
                _ => {
                    return Err(FormatError::new(
                        FORMAT,
                        format!("page_number {n} is not a page (they count from 1)"),
                    )
                    .at(at(".metadata.page_number")))
                }
            },
        };
        let (bbox, implied) = match field("coordinates") {
            None => (BBox::default(), None),
            Some(c) => coordinates(c, sizes.get(p as usize), &at(".metadata.coordinates"))?,
        };
        if let Some(size) = implied.filter(|_| sizes.is_empty()) {
            if pages.len() <= p as usize {
                pages.resize(p as usize + 1, Page::default());
            }
            if pages[p as usize] == Page::default() {
                pages[p as usize] = size;
            }
        }
        let mut b = Block::new(kind, p, bbox, collapse_ws(text));
        // Its element type (`classes/unstructured.toml`) and, from `hi_res`, the layout
        // model's score for the box (`detection_class_prob`), for the detection suite.
        b.label = Some(format!("unstructured:{t}"));
        b.confidence = field("detection_class_prob").and_then(Value::as_f64);
        match kind {
            BlockKind::Heading if !seen_title => {
                seen_title = true;
                b.kind = BlockKind::Title;
            }
            BlockKind::Heading => {
                let depth = field("category_depth").and_then(Value::as_u64).unwrap_or(0);
                b.level = Some((depth + 1).min(9) as u8);
            }
            BlockKind::Code => b.text = text.trim().to_string(),
            BlockKind::Table => {
                if let Some(h) = field("text_as_html") {
                    let h = h.as_str().ok_or_else(|| {
                        FormatError::shape(FORMAT, "a string", at(".metadata.text_as_html"))
                    })?;
                    if let Some(t) = html::tables(h).into_iter().find(|t| !t.cells.is_empty()) {
                        b.text = t.flat_text();
                        b.table = Some(t);
                    }
                }
            }
            _ => {}
        }
        if b.text.is_empty() && !matches!(b.kind, BlockKind::Table | BlockKind::Figure) {
            continue;
        }
        blocks.push(b);
    }
    Ok(Doc { pages, blocks, markdown: None, meta: None })
}

/// A number field of `coordinates`, if present.
fn number(c: &Value, k: &str, at: &str) -> Result<Option<f64>, FormatError> {
    match c.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| FormatError::shape(FORMAT, "a number", format!("{at}.{k}"))),
    }
}

/// The box of `metadata.coordinates` in points on a page of size `size` (when known), and the
/// page size its system implies (`PointSpace`'s layout size).
fn coordinates(
    c: &Value,
    size: Option<&Page>,
    at: &str,
) -> Result<(BBox, Option<Page>), FormatError> {
    let bad_points =
        || FormatError::shape(FORMAT, "a list of [x, y] points", format!("{at}.points"));
    let points = match c.get("points") {
        None | Some(Value::Null) => return Ok((BBox::default(), None)),
        Some(Value::Array(ps)) if !ps.is_empty() => ps,
        Some(_) => return Err(bad_points()),
    };
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for p in points {
        let xy = p.as_array().filter(|xy| xy.len() == 2).ok_or_else(bad_points)?;
        let (Some(x), Some(y)) = (xy[0].as_f64(), xy[1].as_f64()) else { return Err(bad_points()) };
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    let (lw, lh) = (number(c, "layout_width", at)?, number(c, "layout_height", at)?);
    let size = size.filter(|s| s.width > 0.0 && s.height > 0.0);
    let system = c.get("system").and_then(Value::as_str).unwrap_or("");
    let bbox =
        |x0: f64, y0: f64, x1: f64, y1: f64| BBox::new(x0 as f32, y0 as f32, x1 as f32, y1 as f32);
    match system {
        "PixelSpace" => Ok(match (size, lw, lh) {
            (Some(s), Some(lw), Some(lh)) if lw > 0.0 && lh > 0.0 => {
                let (sx, sy) = (f64::from(s.width) / lw, f64::from(s.height) / lh);
                (bbox(x0 * sx, y0 * sy, x1 * sx, y1 * sy), None)
            }
            _ => (bbox(x0, y0, x1, y1), None),
        }),
        "PointSpace" => {
            let (Some(lw), Some(lh)) = (lw, lh) else {
                return Err(FormatError::new(
                    FORMAT,
                    "PointSpace coordinates without layout_width and layout_height",
                )
                .at(at));
            };
            let (sx, sy) = match size {
                Some(s) if lw > 0.0 && lh > 0.0 => {
                    (f64::from(s.width) / lw, f64::from(s.height) / lh)
                }
                _ => (1.0, 1.0),
            };
            let b = bbox(x0 * sx, (lh - y1) * sy, x1 * sx, (lh - y0) * sy);
            Ok((b, Some(Page { width: lw as f32, height: lh as f32 })))
        }
        "RelativeCoordinateSystem" => Ok(match size {
            Some(s) => {
                let (w, h) = (f64::from(s.width), f64::from(s.height));
                (bbox(x0 * w, (1.0 - y1) * h, x1 * w, (1.0 - y0) * h), None)
            }
            None => (BBox::default(), None),
        }),
        other => Err(FormatError::new(
            FORMAT,
            format!(
                "unknown coordinate system {other:?} (Unstructured writes PixelSpace, PointSpace \
                 or RelativeCoordinateSystem)"
            ),
        )
        .at(format!("{at}.system"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn coords(points: [[f64; 2]; 4], system: &str, w: f64, h: f64) -> Value {
        json!({"points": points, "system": system, "layout_width": w, "layout_height": h})
    }

    /// A `hi_res` run (PixelSpace at 200 dpi on a Letter page: 1700 x 2200 px) with every
    /// type that makes a block, and the markers.
    fn hi_res() -> Value {
        let px = |x0: f64, y0: f64, x1: f64, y1: f64| {
            coords([[x0, y0], [x0, y1], [x1, y1], [x1, y0]], "PixelSpace", 1700.0, 2200.0)
        };
        json!([
            {"type": "Header", "element_id": "h", "text": "Journal  of Tests",
             "metadata": {"page_number": 1, "coordinates": px(200.0, 100.0, 900.0, 150.0)}},
            {"type": "Title", "element_id": "t", "text": "A Paper",
             "metadata": {"page_number": 1, "category_depth": 0,
                          "coordinates": px(400.0, 300.0, 1300.0, 400.0)}},
            {"type": "NarrativeText", "element_id": "n", "text": "Some\nprose.",
             "metadata": {"page_number": 1, "parent_id": "t",
                          "coordinates": px(200.0, 500.0, 1500.0, 800.0)}},
            {"type": "Title", "element_id": "s", "text": "1.1 Setup",
             "metadata": {"page_number": 1, "category_depth": 1}},
            {"type": "ListItem", "element_id": "l", "text": "one", "metadata": {"page_number": 1}},
            {"type": "Address", "element_id": "a", "text": "1 Main St", "metadata": {"page_number": 1}},
            {"type": "EmailAddress", "element_id": "e", "text": "a@b.c", "metadata": {"page_number": 1}},
            {"type": "UncategorizedText", "element_id": "u", "text": "misc", "metadata": {"page_number": 1}},
            {"type": "Formula", "element_id": "f", "text": "E = mc2", "metadata": {"page_number": 1}},
            {"type": "CodeSnippet", "element_id": "c", "text": "  x = 1\n", "metadata": {"page_number": 1}},
            {"type": "PageNumber", "element_id": "pn", "text": "1", "metadata": {"page_number": 1}},
            {"type": "Footer", "element_id": "ft", "text": "Footnote", "metadata": {"page_number": 1}},
            {"type": "PageBreak", "element_id": "pb", "text": "", "metadata": {"page_number": 1}},
            {"type": "Image", "element_id": "i", "text": "",
             "metadata": {"page_number": 2, "coordinates": px(100.0, 100.0, 300.0, 200.0)}},
            {"type": "FigureCaption", "element_id": "fc", "text": "Figure 1: A plot.",
             "metadata": {"page_number": 2}},
            {"type": "Table", "element_id": "tb", "text": "a b 1 2",
             "metadata": {"page_number": 2, "coordinates": px(200.0, 1000.0, 1000.0, 1400.0),
                          "text_as_html": "<table><thead><tr><th colspan=\"2\">a b</th></tr></thead>\
                                           <tbody><tr><td>1</td><td>2</td></tr></tbody></table>"}},
            {"type": "Table", "element_id": "tb2", "text": "x y", "metadata": {"page_number": 2}},
            {"type": "CompositeElement", "element_id": "ce", "text": "merged text",
             "metadata": {"page_number": 2}}
        ])
    }

    #[test]
    fn maps_every_type_and_keeps_pixel_boxes_without_page_sizes() {
        let d = read_unstructured(hi_res().to_string().as_bytes(), 0, &[]).unwrap();
        use BlockKind::*;
        let got: Vec<(BlockKind, u32, &str)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.text.as_str())).collect();
        assert_eq!(
            got,
            [
                (PageHeader, 0, "Journal of Tests"),
                (Title, 0, "A Paper"),
                (Paragraph, 0, "Some prose."),
                (Heading, 0, "1.1 Setup"),
                (ListItem, 0, "one"),
                (Paragraph, 0, "1 Main St"),
                (Paragraph, 0, "a@b.c"),
                (Paragraph, 0, "misc"),
                (Formula, 0, "E = mc2"),
                (Code, 0, "x = 1"),
                (PageFooter, 0, "1"),
                (PageFooter, 0, "Footnote"),
                (Figure, 1, ""),
                (Caption, 1, "Figure 1: A plot."),
                (Table, 1, "a b\n1 2"),
                (Table, 1, "x y"),
                (Paragraph, 1, "merged text"),
            ]
        );
        let b = &d.blocks;
        assert_eq!((b[1].level, b[3].level), (None, Some(2)));
        // Kept in pixels, page sizes unknown.
        assert_eq!(b[0].bbox, BBox::new(200.0, 100.0, 900.0, 150.0));
        assert_eq!(b[4].bbox, BBox::default());
        assert!(d.pages.is_empty());
        let t = b[14].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols, t.cells.len()), (2, 2, 3));
        assert_eq!((t.cells[0].col_span, t.cells[0].header, t.cells[2].header), (2, true, false));
        assert_eq!(b[15].table, None);
    }

    #[test]
    fn pixel_boxes_are_scaled_to_given_page_sizes() {
        let letter = [Page { width: 612.0, height: 792.0 }; 2];
        let d = read_unstructured(hi_res().to_string().as_bytes(), 0, &letter).unwrap();
        // 200 dpi: 1700 px = 612 pt, so 1 px = 0.36 pt.
        let near = |a: BBox, b: BBox| {
            (a.x0 - b.x0).abs() < 1e-3
                && (a.y0 - b.y0).abs() < 1e-3
                && (a.x1 - b.x1).abs() < 1e-3
                && (a.y1 - b.y1).abs() < 1e-3
        };
        let b = &d.blocks;
        assert!(near(b[0].bbox, BBox::new(72.0, 36.0, 324.0, 54.0)), "{:?}", b[0].bbox);
        assert!(near(b[14].bbox, BBox::new(72.0, 360.0, 360.0, 504.0)), "{:?}", b[14].bbox);
        assert_eq!(d.pages, letter);
    }

    #[test]
    fn point_space_is_turned_over_and_gives_the_page_size() {
        let el = json!([{"type": "NarrativeText", "text": "x", "metadata": {"page_number": 2,
            "coordinates": coords([[72.0, 700.0], [72.0, 720.0], [300.0, 720.0], [300.0, 700.0]],
                                  "PointSpace", 612.0, 792.0)}}]);
        let d = read_unstructured(el.to_string().as_bytes(), 0, &[]).unwrap();
        assert_eq!((d.blocks[0].page, d.blocks[0].bbox), (1, BBox::new(72.0, 72.0, 300.0, 92.0)));
        assert_eq!(d.pages, [Page::default(), Page { width: 612.0, height: 792.0 }]);
        // Relative coordinates need the page size.
        let rel = json!([{"type": "Title", "text": "T", "metadata": {
            "coordinates": {"points": [[0.25, 0.5], [0.5, 0.75]], "system": "RelativeCoordinateSystem"}}}]);
        let size = [Page { width: 600.0, height: 800.0 }];
        let d = read_unstructured(rel.to_string().as_bytes(), 0, &size).unwrap();
        assert_eq!(d.blocks[0].bbox, BBox::new(150.0, 200.0, 300.0, 400.0));
        let d = read_unstructured(rel.to_string().as_bytes(), 0, &[]).unwrap();
        assert_eq!(d.blocks[0].bbox, BBox::default());
    }

    #[test]
    fn elements_without_a_page_go_to_the_given_page() {
        let d = read_unstructured(br#"[{"type": "NarrativeText", "text": "x"}]"#, 4, &[]).unwrap();
        assert_eq!(d.blocks[0].page, 4);
    }

    #[test]
    fn empty_and_malformed_lists_say_what_is_wrong() {
        let err = |s: &str| read_unstructured(s.as_bytes(), 0, &[]).unwrap_err().to_string();
        assert!(err("[]").starts_with("no elements"), "{}", err("[]"));
        assert!(err("[").starts_with("invalid JSON"), "{}", err("["));
        assert_eq!(err("{\"elements\": []}"), "expected a list of elements at $");
        assert_eq!(err("[1]"), "expected an object at [0]");
        assert_eq!(err("[{\"text\": \"x\"}]"), "expected a string at [0].type");
        assert_eq!(
            err("[{\"type\": \"Title\", \"text\": \"a\"}, {\"type\": \"Sidebar\", \"text\": \"x\"}]"),
            "unknown element type \"Sidebar\" (not one Unstructured writes for a PDF) at [1].type"
        );
        assert_eq!(
            err("[{\"type\": \"Title\", \"text\": \"a\", \"metadata\": {\"page_number\": 0}}]"),
            "page_number 0 is not a page (they count from 1) at [0].metadata.page_number"
        );
        assert_eq!(err("[{\"type\": \"Title\", \"text\": 3}]"), "expected a string at [0].text");
        let with = |c: Value| {
            err(&json!([{"type": "Title", "text": "a", "metadata": {"coordinates": c}}])
                .to_string())
        };
        assert_eq!(
            with(json!({"points": [[1, 2, 3]], "system": "PixelSpace"})),
            "expected a list of [x, y] points at [0].metadata.coordinates.points"
        );
        assert_eq!(
            with(
                json!({"points": [[1, 2]], "system": "Inches", "layout_width": 1, "layout_height": 1})
            ),
            "unknown coordinate system \"Inches\" (Unstructured writes PixelSpace, PointSpace or \
             RelativeCoordinateSystem) at [0].metadata.coordinates.system"
        );
        assert_eq!(
            with(json!({"points": [[1, 2]], "system": "PointSpace"})),
            "PointSpace coordinates without layout_width and layout_height at [0].metadata.coordinates"
        );
        assert_eq!(
            with(json!({"points": [[1, 2]], "system": "PixelSpace", "layout_width": "wide"})),
            "expected a number at [0].metadata.coordinates.layout_width"
        );
        assert_eq!(
            err(&json!([{"type": "Table", "text": "a", "metadata": {"text_as_html": 5}}])
                .to_string()),
            "expected a string at [0].metadata.text_as_html"
        );
    }
}
