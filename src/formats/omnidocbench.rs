//! Serde types for the OmniDocBench ground-truth JSON (`OmniDocBench.json`, v1.5 layout): a list
//! of pages, each with `layout_dets` (annotated blocks), `extra.relation` (links between blocks,
//! `truncated` ones join split text) and `page_info` (image name and page attributes).
//!
//! Unknown fields are accepted and ignored; every field the evaluator does not strictly need is
//! optional.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Format, FormatError};

/// One page of the benchmark.
#[derive(Debug, Clone, Deserialize)]
pub struct Page {
    /// Annotated blocks of the page.
    #[serde(default)]
    pub layout_dets: Vec<LayoutDet>,
    /// Relations between blocks.
    #[serde(default)]
    pub extra: Extra,
    /// Page metadata.
    pub page_info: PageInfo,
}

/// One annotated block.
#[derive(Debug, Clone, Deserialize)]
pub struct LayoutDet {
    /// Category (`text_block`, `title`, `equation_isolated`, `table`, `header`, …).
    pub category_type: String,
    /// Polygon `[x1, y1, …, x4, y4]` in page pixels.
    #[serde(default)]
    pub poly: Vec<f64>,
    /// Reading-order index; absent or `null` for blocks outside the reading order.
    #[serde(default)]
    pub order: Option<f64>,
    /// Text content (text categories).
    #[serde(default)]
    pub text: Option<String>,
    /// LaTeX source (formulas, LaTeX tables).
    #[serde(default)]
    pub latex: Option<String>,
    /// HTML source (tables).
    #[serde(default)]
    pub html: Option<String>,
    /// Whether annotators marked the block as ignorable.
    #[serde(default)]
    pub ignore: bool,
    /// Block attributes (`text_language`, `formula_type`, table attributes, …).
    #[serde(default)]
    pub attribute: Option<Map<String, Value>>,
    /// Line-level spans.
    #[serde(default)]
    pub line_with_spans: Vec<Value>,
    /// Annotation id, referenced by relations.
    #[serde(default)]
    pub anno_id: Option<i64>,
}

/// The `extra` object of a page.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Extra {
    /// Relations between blocks.
    #[serde(default)]
    pub relation: Vec<Relation>,
}

/// A relation between two blocks.
#[derive(Debug, Clone, Deserialize)]
pub struct Relation {
    /// Source block `anno_id`.
    pub source_anno_id: i64,
    /// Target block `anno_id`.
    pub target_anno_id: i64,
    /// `truncated` (one text split over several blocks) or other kinds.
    pub relation_type: String,
}

/// The `page_info` object.
#[derive(Debug, Clone, Deserialize)]
pub struct PageInfo {
    /// Image file name (also the prediction file stem with `.md`).
    pub image_path: String,
    /// Page attributes: `data_source`, `language`, `layout`, `special_issue` (list), ….
    #[serde(default)]
    pub page_attribute: Map<String, Value>,
    /// Page number in the source document.
    #[serde(default)]
    pub page_no: Option<i64>,
    /// Image height in pixels.
    #[serde(default)]
    pub height: Option<f64>,
    /// Image width in pixels.
    #[serde(default)]
    pub width: Option<f64>,
}

impl Page {
    /// The image file name without directories (`os.path.basename(image_path)`).
    pub(crate) fn image_name(&self) -> &str {
        self.page_info.image_path.rsplit(['/', '\\']).next().unwrap_or(&self.page_info.image_path)
    }

    /// The prediction stem: the image name without its extension.
    pub fn stem(&self) -> &str {
        let name = self.image_name();
        match name.rfind('.') {
            Some(k) if k > 0 => &name[..k],
            _ => name,
        }
    }
}

/// Reads a whole ground-truth file as its list of page objects, each left as it is: the store
/// keeps every page's object verbatim, as that page's truth.
pub(crate) fn read_page_list(bytes: &[u8]) -> Result<Vec<Value>, FormatError> {
    serde_json::from_slice(bytes).map_err(|e| {
        FormatError::new(
            Format::OmniDocBench,
            format!("not an OmniDocBench JSON list of pages: {e}"),
        )
    })
}

/// Reads one page of the ground truth (as the store keeps it, one page per truth).
pub fn read_page(bytes: &[u8]) -> Result<Page, FormatError> {
    serde_json::from_slice(bytes).map_err(|e| {
        FormatError::new(Format::OmniDocBench, format!("not an OmniDocBench page: {e}"))
    })
}

/// Parses the ground-truth JSON (a list of pages).
pub fn parse_pages(json: &str) -> serde_json::Result<Vec<Page>> {
    serde_json::from_str(json)
}

/// GT categories of the omnidoc suite's text pool, in the reference's order (here so that the
/// suite and the `truth` provider, which renders them, read one list).
pub const TEXT_CATEGORIES: &[&str] = &[
    "text_block",
    "title",
    "code_txt",
    "code_txt_caption",
    "reference",
    "equation_caption",
    "figure_caption",
    "figure_footnote",
    "table_caption",
    "table_footnote",
    "code_algorithm",
    "code_algorithm_caption",
    "header",
    "footer",
    "page_footnote",
    "page_number",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_minimal_page_with_unknown_fields() {
        let js = r#"[{"layout_dets":[{"category_type":"text_block","poly":[0,0,1,0,1,1,0,1],
            "ignore":false,"order":3,"anno_id":7,"text":"Hi","attribute":{"text_language":"en"},
            "something_new":1}],
            "extra":{"relation":[{"source_anno_id":7,"target_anno_id":8,"relation_type":"truncated","x":0}]},
            "page_info":{"image_path":"dir/a.pdf_3.jpg","page_attribute":{"language":"english"},"foo":2}}]"#;
        let pages = parse_pages(js).unwrap();
        assert_eq!(pages[0].layout_dets[0].order, Some(3.0));
        assert_eq!(pages[0].extra.relation[0].relation_type, "truncated");
        assert_eq!(pages[0].image_name(), "a.pdf_3.jpg");
        assert_eq!(pages[0].stem(), "a.pdf_3");
    }

    #[test]
    fn null_order_is_none() {
        let js = r#"[{"layout_dets":[{"category_type":"figure","order":null}],"page_info":{"image_path":"x.jpg"}}]"#;
        assert_eq!(parse_pages(js).unwrap()[0].layout_dets[0].order, None);
    }
}
