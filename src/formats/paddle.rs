//! PaddleOCR's PP-StructureV3 and PaddleOCR-VL results (`res.save_to_json(save_path)`, one
//! `<stem>_<page_index>_res.json` per PDF page, `<stem>_res.json` for an image) into a
//! [`Doc`]: an object `{input_path, page_index, page_count?, width?, height?, model_settings,
//! parsing_res_list: [{block_label, block_content, block_bbox, block_id?, block_order?}],
//! layout_det_res, overall_ocr_res, table_res_list?, …}`. A file may also hold a list of such
//! page results (what `corpus import` makes of a PDF's page files), or one wrapped as
//! `{"res": …}` (the result's `json` property).
//!
//! - **Kinds**, by `block_label`: `doc_title` → the document title (the first; later ones
//!   level-1 headings); `paragraph_title`, `abstract_title`, `content_title`,
//!   `reference_title` → heading, level 1; `text`, `abstract`, `content` (a table of
//!   contents), `vertical_text` → paragraph; `reference`, `reference_content` → reference;
//!   `table` → table; `formula`, `display_formula`, `inline_formula` → formula; `image`,
//!   `chart`, `seal` → figure; `figure_title`, `table_title`, `chart_title`,
//!   `figure_table_chart_title` → caption; `header` and `aside_text` (a margin note) and
//!   `header_image` → page header; `footer`, `number` (the page number) and `footer_image` →
//!   page footer; `footnote`, `vision_footnote` → footnote; `algorithm` → code.
//!   `formula_number` (an equation's `(1)`) is left out. Any other label is an error naming
//!   it, never a paragraph by default.
//! - **Order and pages**: `parsing_res_list` in its order (PaddleX's reading order; blocks
//!   outside it, such as headers, have `block_order` null but keep their place in the list).
//!   `page_index` is zero-based; where it is null (an image input) the page is the one the
//!   caller names, plus the result's place in a list.
//! - **Boxes**: `block_bbox` is `[x1, y1, x2, y2]` in pixels of the page image the pipeline
//!   read, top-left origin. PaddleX renders a PDF page at zoom 2 (144 dpi); the image's size
//!   is `width` × `height` in newer results. Given the PDF's page sizes, boxes are scaled by
//!   page size ÷ image size (÷ twice the page size for a PDF result without `width`, i.e.
//!   halved); **without them boxes stay in pixels** and [`Doc::pages`] stays empty, as
//!   Unstructured's `hi_res` boxes do. An image input without `width` keeps its pixels. A page
//!   the document preprocessor turned or unwarped keeps boxes in the turned image's frame.
//! - **Text**: `block_content` with white space collapsed, its `$…$` math in plain Unicode.
//!   **Tables**: cells from the HTML `block_content` (see [`super::html`]), the block's text
//!   their cells row by row; a table without HTML keeps its text and has no cells.
//!   **Formulas**: the LaTeX (delimiters removed) in [`Block::latex`], its plain form as text.
//! - Left alone: `layout_det_res`, `overall_ocr_res`, `table_res_list`, `formula_res_list`,
//!   `seal_res_list`, `doc_preprocessor_res`, `model_settings`, `block_id`, `block_order`,
//!   `group_id`, a figure's or chart's recognised content (chart data, text in an image).

use serde_json::{Map, Value};

use super::mineru::{formula, four, markdown_text, scaled, table, usable};
use super::{Format, FormatError};
use crate::doc::{BBox, Block, BlockKind, Doc, Page};
use crate::normalize::collapse_ws;

/// The format this file reads.
const FORMAT: Format = Format::PaddleJson;

/// The zoom PaddleX renders PDF pages at (pixels per point).
const PDF_ZOOM: f64 = 2.0;

/// What a block label becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Becomes {
    /// A block of this kind.
    Kind(BlockKind),
    /// The document title (`doc_title`).
    DocTitle,
    /// Nothing (`formula_number`).
    Skip,
}

/// The kind of every block label PP-StructureV3 and PaddleOCR-VL write; `None` for a label
/// they do not.
fn becomes(label: &str) -> Option<Becomes> {
    use BlockKind::*;
    Some(match label {
        "doc_title" => Becomes::DocTitle,
        "paragraph_title" | "abstract_title" | "content_title" | "reference_title" => {
            Becomes::Kind(Heading)
        }
        "text" | "abstract" | "content" | "vertical_text" => Becomes::Kind(Paragraph),
        "reference" | "reference_content" => Becomes::Kind(Reference),
        "table" => Becomes::Kind(Table),
        "formula" | "display_formula" | "inline_formula" => Becomes::Kind(Formula),
        "image" | "chart" | "seal" => Becomes::Kind(Figure),
        "figure_title" | "table_title" | "chart_title" | "figure_table_chart_title" => {
            Becomes::Kind(Caption)
        }
        "header" | "aside_text" | "header_image" => Becomes::Kind(PageHeader),
        "footer" | "number" | "footer_image" => Becomes::Kind(PageFooter),
        "footnote" | "vision_footnote" => Becomes::Kind(Footnote),
        "algorithm" => Becomes::Kind(Code),
        "formula_number" => Becomes::Skip,
        _ => return None,
    })
}

/// Reads one page result or a list of them. `page` (zero-based) is where a result without
/// `page_index` goes; `sizes` are the PDF's page sizes in points where the caller knows them,
/// else empty.
pub fn read(bytes: &[u8], page: u32, sizes: &[Page]) -> Result<Doc, FormatError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| FormatError::json(FORMAT, e))?;
    // Where a result is: `$` or `$[i]`, then `.res` where it is wrapped.
    let at_of = |r: &Value, base: String| {
        if std::ptr::eq(unwrap_res(r), r) {
            base
        } else {
            format!("{base}.res")
        }
    };
    let results: Vec<(&Value, String)> = match &v {
        Value::Array(list) if list.is_empty() => {
            return Err(FormatError::new(FORMAT, "no page results: the list is empty"))
        }
        Value::Array(list) => list
            .iter()
            .enumerate()
            .map(|(i, r)| (unwrap_res(r), at_of(r, format!("$[{i}]"))))
            .collect(),
        Value::Object(_) => vec![(unwrap_res(&v), at_of(&v, "$".to_string()))],
        _ => {
            return Err(FormatError::shape(
                FORMAT,
                "a page result (an object with parsing_res_list) or a list of them",
                "$",
            ))
        }
    };
    let mut blocks = Vec::new();
    let mut seen_title = false;
    for (k, (r, at)) in results.into_iter().enumerate() {
        let o = r.as_object().ok_or_else(|| FormatError::shape(FORMAT, "an object", &at))?;
        read_result(o, page + k as u32, sizes, &at, &mut blocks, &mut seen_title)?;
    }
    let pages = if sizes.is_empty() { Vec::new() } else { sizes.to_vec() };
    Ok(Doc { pages, blocks, markdown: None, meta: None })
}

/// The result inside `{"res": …}` (the `json` property's shape), else the value itself.
fn unwrap_res(v: &Value) -> &Value {
    match v.get("res") {
        Some(inner @ Value::Object(_)) if v.get("parsing_res_list").is_none() => inner,
        _ => v,
    }
}

/// A number field, if present.
fn number(o: &Map<String, Value>, k: &str, at: &str) -> Result<Option<f64>, FormatError> {
    match o.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| FormatError::shape(FORMAT, "a number", format!("{at}.{k}"))),
    }
}

fn read_result(
    o: &Map<String, Value>,
    default_page: u32,
    sizes: &[Page],
    at: &str,
    blocks: &mut Vec<Block>,
    seen_title: &mut bool,
) -> Result<(), FormatError> {
    let Some(Value::Array(list)) = o.get("parsing_res_list") else {
        return Err(FormatError::shape(
            FORMAT,
            "a list of blocks",
            format!("{at}.parsing_res_list"),
        ));
    };
    let p = match o.get("page_index") {
        None | Some(Value::Null) => default_page,
        Some(v) => v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| {
            FormatError::shape(FORMAT, "a page index", format!("{at}.page_index"))
        })?,
    };
    let image = match (number(o, "width", at)?, number(o, "height", at)?) {
        (Some(w), Some(h)) if w > 0.0 && h > 0.0 => Some((w, h)),
        _ => None,
    };
    let is_pdf = o
        .get("input_path")
        .and_then(Value::as_str)
        .is_some_and(|p| p.to_ascii_lowercase().ends_with(".pdf"));
    let (sx, sy) = match (usable(sizes.get(p as usize)), image) {
        (Some(s), Some((w, h))) => (f64::from(s.width) / w, f64::from(s.height) / h),
        (Some(_), None) if is_pdf => (1.0 / PDF_ZOOM, 1.0 / PDF_ZOOM),
        _ => (1.0, 1.0),
    };
    for (j, blk) in list.iter().enumerate() {
        let at = format!("{at}.parsing_res_list[{j}]");
        let b = blk.as_object().ok_or_else(|| FormatError::shape(FORMAT, "an object", &at))?;
        let label = b
            .get("block_label")
            .and_then(Value::as_str)
            .ok_or_else(|| FormatError::shape(FORMAT, "a string", format!("{at}.block_label")))?;
        let content = match b.get("block_content") {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s.as_str(),
            Some(_) => {
                return Err(FormatError::shape(FORMAT, "a string", format!("{at}.block_content")))
            }
        };
        let bbox = match b.get("block_bbox") {
            None | Some(Value::Null) => BBox::default(),
            Some(v) => scaled(four(FORMAT, v, &format!("{at}.block_bbox"))?, sx, sy),
        };
        let becomes = becomes(label).ok_or_else(|| {
            FormatError::new(
                FORMAT,
                format!(
                    "unknown block label {label:?} (not one PP-StructureV3 or PaddleOCR-VL writes)"
                ),
            )
            .at(format!("{at}.block_label"))
        })?;
        let block = match becomes {
            Becomes::Skip => None,
            Becomes::DocTitle => {
                let mut b = Block::new(BlockKind::Title, p, bbox, markdown_text(content));
                if *seen_title {
                    b.kind = BlockKind::Heading;
                    b.level = Some(1);
                }
                *seen_title = true;
                Some(b)
            }
            Becomes::Kind(BlockKind::Heading) => {
                let mut b = Block::new(BlockKind::Heading, p, bbox, markdown_text(content));
                b.level = Some(1);
                Some(b)
            }
            Becomes::Kind(BlockKind::Table) => Some(table(content, p, bbox)),
            Becomes::Kind(BlockKind::Formula) => formula(content, p, bbox),
            Becomes::Kind(BlockKind::Figure) => Some(Block::new(BlockKind::Figure, p, bbox, "")),
            Becomes::Kind(BlockKind::Code) => {
                let code = content.trim_matches('\n').trim_end();
                Some(Block::new(BlockKind::Code, p, bbox, code))
            }
            Becomes::Kind(kind) => Some(Block::new(kind, p, bbox, markdown_text(content))),
        };
        if let Some(b) = block {
            let keep = matches!(b.kind, BlockKind::Table | BlockKind::Figure)
                || !collapse_ws(&b.text).is_empty();
            if keep {
                blocks.push(b);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LETTER: Page = Page { width: 612.0, height: 792.0 };

    fn near(a: BBox, b: BBox) -> bool {
        (a.x0 - b.x0).abs() < 1e-3
            && (a.y0 - b.y0).abs() < 1e-3
            && (a.x1 - b.x1).abs() < 1e-3
            && (a.y1 - b.y1).abs() < 1e-3
    }

    /// Page `n` of `paper.pdf` as PP-StructureV3 saves it: a Letter page rendered at zoom 2
    /// (1224 × 1584 px).
    fn page(n: u32, blocks: Value) -> Value {
        json!({
            "input_path": "/data/pdfs/paper.pdf", "page_index": n, "page_count": 2,
            "width": 1224, "height": 1584,
            "model_settings": {"use_doc_preprocessor": false, "use_table_recognition": true},
            "parsing_res_list": blocks,
            "layout_det_res": {"boxes": []}, "overall_ocr_res": {"rec_texts": []}
        })
    }

    fn two_pages() -> Value {
        let blk = |label: &str, content: &str, bbox: [u32; 4], order: Value| {
            json!({"block_label": label, "block_content": content, "block_bbox": bbox,
                   "block_id": 0, "block_order": order})
        };
        json!([
            page(0, json!([
                blk("header", "Preprint", [144, 60, 600, 90], Value::Null),
                blk("doc_title", "Sparse Tables in Practice", [300, 160, 924, 220], json!(1)),
                blk("paragraph_title", "1 Introduction", [144, 280, 500, 316], json!(2)),
                blk("text", "We measure $\\alpha$ on three\ncorpora.", [144, 330, 1080, 480], json!(3)),
                blk("formula", "E = mc^{2}", [400, 500, 824, 560], json!(4)),
                blk("formula_number", "(1)", [1000, 510, 1080, 550], Value::Null),
                blk("number", "1", [600, 1500, 624, 1530], Value::Null)
            ])),
            page(1, json!([
                blk("table_title", "Table 1: Scores on the test set.", [144, 160, 1080, 190], json!(1)),
                blk("table", "<html><body><table><tr><td>Model</td><td>F1</td></tr><tr><td>Ours</td><td>0.91</td></tr></table></body></html>",
                    [144, 200, 1080, 480], json!(2)),
                blk("image", "", [144, 520, 1080, 1000], json!(3)),
                blk("figure_title", "Figure 1: Recall by table size.", [144, 1010, 1080, 1040], json!(4)),
                blk("footer", "© 2024 The Authors", [144, 1520, 700, 1550], Value::Null)
            ]))
        ])
    }

    #[test]
    fn maps_every_label_and_keeps_pixels_without_page_sizes() {
        let d = read(two_pages().to_string().as_bytes(), 0, &[]).unwrap();
        use BlockKind::*;
        let got: Vec<(BlockKind, u32, &str, Option<u8>)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.text.as_str(), b.level)).collect();
        assert_eq!(
            got,
            [
                (PageHeader, 0, "Preprint", None),
                (Title, 0, "Sparse Tables in Practice", None),
                (Heading, 0, "1 Introduction", Some(1)),
                (Paragraph, 0, "We measure α on three corpora.", None),
                (Formula, 0, "E = mc2", None),
                (PageFooter, 0, "1", None),
                (Caption, 1, "Table 1: Scores on the test set.", None),
                (Table, 1, "Model F1\nOurs 0.91", None),
                (Figure, 1, "", None),
                (Caption, 1, "Figure 1: Recall by table size.", None),
                (PageFooter, 1, "© 2024 The Authors", None),
            ]
        );
        let b = &d.blocks;
        assert_eq!(b[4].latex.as_deref(), Some("E = mc^{2}"));
        assert_eq!(b[1].bbox, BBox::new(300.0, 160.0, 924.0, 220.0), "kept in pixels");
        let t = b[7].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols, t.cells.len()), (2, 2, 4));
        assert!(d.pages.is_empty());
    }

    #[test]
    fn pixels_are_scaled_to_given_page_sizes() {
        let d = read(two_pages().to_string().as_bytes(), 0, &[LETTER, LETTER]).unwrap();
        assert!(
            near(d.blocks[1].bbox, BBox::new(150.0, 80.0, 462.0, 110.0)),
            "{:?}",
            d.blocks[1].bbox
        );
        assert!(
            near(d.blocks[7].bbox, BBox::new(72.0, 100.0, 540.0, 240.0)),
            "{:?}",
            d.blocks[7].bbox
        );
        assert_eq!(d.pages, [LETTER, LETTER]);
        // An older result without width and height: the PDF was rendered at zoom 2.
        let mut old = page(
            0,
            json!([{"block_label": "text", "block_content": "x",
                                      "block_bbox": [144, 330, 1080, 480]}]),
        );
        old.as_object_mut().unwrap().remove("width");
        old.as_object_mut().unwrap().remove("height");
        let d = read(old.to_string().as_bytes(), 0, &[LETTER]).unwrap();
        assert_eq!(d.blocks[0].bbox, BBox::new(72.0, 165.0, 540.0, 240.0));
    }

    #[test]
    fn one_result_a_wrapped_one_and_image_inputs() {
        let one = page(
            1,
            json!([{"block_label": "text", "block_content": "x", "block_bbox": [0, 0, 2, 2]}]),
        );
        let d = read(one.to_string().as_bytes(), 0, &[]).unwrap();
        assert_eq!(d.blocks[0].page, 1);
        let wrapped = json!({"res": one});
        assert_eq!(read(wrapped.to_string().as_bytes(), 0, &[]).unwrap(), d);
        let mut img = page(0, json!([{"block_label": "text", "block_content": "y"}]));
        img["page_index"] = Value::Null;
        img["input_path"] = json!("scan.png");
        let d = read(img.to_string().as_bytes(), 5, &[]).unwrap();
        assert_eq!((d.blocks[0].page, d.blocks[0].bbox), (5, BBox::default()));
    }

    #[test]
    fn malformed_and_unknown_labels_say_what_and_where() {
        let err = |s: &str| read(s.as_bytes(), 0, &[]).unwrap_err().to_string();
        assert!(err("{").starts_with("invalid JSON"), "{}", err("{"));
        assert_eq!(
            err("3"),
            "expected a page result (an object with parsing_res_list) or a list of them at $"
        );
        assert_eq!(err("[]"), "no page results: the list is empty");
        assert_eq!(err("{\"page_index\": 0}"), "expected a list of blocks at $.parsing_res_list");
        assert_eq!(err("[1]"), "expected an object at $[0]");
        let mut two = two_pages();
        two[1]["parsing_res_list"][2]["block_label"] = json!("sticker");
        assert_eq!(
            err(&two.to_string()),
            "unknown block label \"sticker\" (not one PP-StructureV3 or PaddleOCR-VL writes) at \
             $[1].parsing_res_list[2].block_label"
        );
        let mut two = two_pages();
        two[0]["parsing_res_list"][1]["block_bbox"] = json!([1, 2]);
        assert_eq!(
            err(&two.to_string()),
            "expected a box [x0, y0, x1, y1] at $[0].parsing_res_list[1].block_bbox"
        );
        let mut two = two_pages();
        two[0]["page_index"] = json!("first");
        assert_eq!(err(&two.to_string()), "expected a page index at $[0].page_index");
    }
}
