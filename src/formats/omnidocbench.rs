//! Serde types for the OmniDocBench ground-truth JSON (`OmniDocBench.json`, v1.5 layout): a list
//! of pages, each with `layout_dets` (annotated blocks), `extra.relation` (links between blocks,
//! `truncated` ones join split text) and `page_info` (image name and page attributes).
//!
//! Unknown fields are accepted and ignored; every field the evaluator does not strictly need is
//! optional.
//!
//! corpus extends the format for truths drafted from a parser's output (`corpus truth draft`,
//! `docs/label-studio.md`): `page_info.corpus_source` names the stored document (content hash),
//! the page (1-based) and the dpi of the page image the boxes are in, so the truth attaches to
//! that page of that document; `page_info.corpus_draft` says which provider and version the
//! draft was written from and holds a digest of its blocks, so a truth ingested unchanged is
//! told from a reviewed one; a block's `corpus_placement` says where its box came from. A
//! plain OmniDocBench file has none of these and reads as before.

use serde::{Deserialize, Serialize};
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
    /// corpus's extension in drafts: where the box came from (`provider`, `text-layer`, or
    /// `none` for a region-less transcription).
    #[serde(default)]
    pub corpus_placement: Option<String>,
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
    /// corpus's extension: the stored page this truth belongs to.
    #[serde(default)]
    pub corpus_source: Option<Source>,
    /// corpus's extension: the draft this page was written as.
    #[serde(default)]
    pub corpus_draft: Option<DraftMark>,
}

/// The stored page a drafted truth belongs to (`page_info.corpus_source`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Source {
    /// The document's content hash (blake3, hex) in the store.
    pub document: String,
    /// The page, 1-based.
    pub page: u32,
    /// Pixels per inch of the page image the boxes (`poly`) are in.
    pub dpi: f64,
}

impl Source {
    /// The truth part a page's truth is stored as (`page-3`): one truth per page.
    pub fn part(&self) -> String {
        format!("page-{}", self.page)
    }
}

/// What a draft says of itself (`page_info.corpus_draft`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct DraftMark {
    /// The provider it was drafted from.
    pub provider: String,
    /// That provider's version.
    pub version: String,
    /// For people: `drafted from layout@1, not reviewed`.
    pub note: String,
    /// [`dets_digest`] of the `layout_dets` as drafted.
    pub digest: String,
}

impl DraftMark {
    /// The `truth_status` attribute of a truth ingested unchanged from this draft.
    pub fn status(&self) -> String {
        format!("draft {}@{}", self.provider, self.version)
    }
}

/// The `truth_status` attribute of a page truth that was reviewed (changed from its draft, or
/// never a draft).
pub const REVIEWED: &str = "reviewed";

/// A digest of a page's `layout_dets` as JSON values (blake3 of their compact JSON): equal
/// when the blocks are as drafted.
pub fn dets_digest(dets: &Value) -> String {
    blake3::hash(dets.to_string().as_bytes()).to_hex()[..32].to_string()
}

/// The `truth_status` of a page object: `draft P@V` where it carries a draft mark whose digest
/// its blocks still have, else [`REVIEWED`].
pub fn truth_status(page: &Value) -> String {
    let mark = page
        .pointer("/page_info/corpus_draft")
        .and_then(|m| serde_json::from_value::<DraftMark>(m.clone()).ok());
    match (mark, page.get("layout_dets")) {
        (Some(m), Some(dets)) if dets_digest(dets) == m.digest => m.status(),
        _ => REVIEWED.to_string(),
    }
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
    fn corpus_source_and_draft_mark_read_and_status_follows_the_blocks() {
        let dets = serde_json::json!([{"category_type": "text_block", "text": "Hi", "order": 0}]);
        let digest = dets_digest(&dets);
        let mut page = serde_json::json!({"layout_dets": dets, "page_info": {
            "image_path": "abc_p2.png", "width": 100, "height": 200,
            "corpus_source": {"document": "abc", "page": 2, "dpi": 144.0},
            "corpus_draft": {"provider": "layout", "version": "3",
                "note": "drafted from layout@3, not reviewed", "digest": digest}}});
        let p: Page = serde_json::from_value(page.clone()).unwrap();
        let src = p.page_info.corpus_source.unwrap();
        assert_eq!((src.page, src.dpi, src.part()), (2, 144.0, "page-2".to_string()));
        assert_eq!(truth_status(&page), "draft layout@3");
        page["layout_dets"][0]["text"] = "Hello".into();
        assert_eq!(truth_status(&page), REVIEWED);
        // A plain OmniDocBench page has neither.
        let plain = parse_pages(r#"[{"page_info":{"image_path":"x.jpg"}}]"#).unwrap();
        assert!(plain[0].page_info.corpus_source.is_none());
        assert_eq!(truth_status(&serde_json::json!({"page_info": {}})), REVIEWED);
    }

    #[test]
    fn null_order_is_none() {
        let js = r#"[{"layout_dets":[{"category_type":"figure","order":null}],"page_info":{"image_path":"x.jpg"}}]"#;
        assert_eq!(parse_pages(js).unwrap()[0].layout_dets[0].order, None);
    }
}
