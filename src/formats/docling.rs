//! DoclingDocument JSON (docling-core schema 1.x) into a [`Doc`].
//!
//! - reading order is the `body` tree walked depth first, then the `furniture` tree (older
//!   files keep page headers and footers there);
//! - text labels map to kinds (`title`, `section_header` with its `level`, `text` and
//!   `paragraph`, `list_item`, `caption`, `footnote`, `page_header`, `page_footer`, `code`,
//!   `formula`, `reference`, ...); an `inline` group becomes one paragraph;
//! - a table's or picture's captions come before it, its footnotes after it;
//! - tables take their cells from `data.table_cells` (offsets, spans, `column_header` /
//!   `row_header` as header flags);
//! - formulas keep their LaTeX (`text`) and get its plain Unicode as text; a formula Docling
//!   did not decode keeps its `orig` text;
//! - boxes come from the first `prov` entry, turned to a top-left origin with the page's
//!   height; pages are numbered from 1 in Docling and from 0 here.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::Value;

use super::{Format, FormatError};
use crate::doc::{BBox, Block, BlockKind, Cell, Doc, Page, Table};
use crate::normalize::{collapse_ws, latex_to_plain};

/// The format this file reads.
const FORMAT: Format = Format::Docling;

/// What the Docling reader found besides the blocks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DoclingFile {
    /// The document.
    pub doc: Doc,
    /// `origin.filename`, when present.
    pub filename: Option<String>,
    /// `origin.binary_hash`: the low 64 bits of the PDF's SHA-256, when present.
    pub binary_hash: Option<u64>,
}

/// The error for JSON that is not a DoclingDocument at all (an import skips such files).
pub const NOT_DOCLING: &str = "not a DoclingDocument (no schema_name)";

/// Returns whether `e` says the file is JSON of some other kind (no `schema_name`), which an
/// import leaves alone rather than counting as broken.
pub(crate) fn is_not_docling(e: &FormatError) -> bool {
    e.format == FORMAT && e.source.to_string() == NOT_DOCLING
}

#[derive(Deserialize)]
struct RefItem {
    #[serde(rename = "$ref")]
    cref: String,
}

/// Reads a DoclingDocument JSON file.
pub(crate) fn read_docling(bytes: &[u8]) -> Result<DoclingFile, FormatError> {
    let err = |msg: String| FormatError::new(FORMAT, msg);
    let v: Value = serde_json::from_slice(bytes).map_err(|e| err(format!("not JSON: {e}")))?;
    let schema = v.get("schema_name").and_then(Value::as_str);
    if schema != Some("DoclingDocument") {
        return Err(err(match schema {
            Some(s) => format!("schema_name is {s:?}, not \"DoclingDocument\""),
            None => NOT_DOCLING.into(),
        }));
    }
    if !v.get("body").is_some_and(Value::is_object) {
        return Err(err("DoclingDocument without a body".into()));
    }
    let mut pages = Vec::new();
    let mut heights = Vec::new();
    if let Some(ps) = v.get("pages").and_then(Value::as_object) {
        let mut list: Vec<(u64, f32, f32)> = ps
            .values()
            .filter_map(|p| {
                let no = p.get("page_no")?.as_u64()?;
                let size = p.get("size")?;
                Some((no, f(size.get("width")), f(size.get("height"))))
            })
            .collect();
        list.sort_by_key(|p| p.0);
        for (no, w, h) in list {
            let i = no.saturating_sub(1) as usize;
            if pages.len() <= i {
                pages.resize(i + 1, Page::default());
                heights.resize(i + 1, 0.0);
            }
            pages[i] = Page { width: w, height: h };
            heights[i] = h;
        }
    }
    let mut r = Walker { root: &v, heights, blocks: Vec::new(), seen: HashSet::new() };
    for tree in ["body", "furniture"] {
        if let Some(node) = v.get(tree) {
            r.children(node);
        }
    }
    let origin = v.get("origin");
    Ok(DoclingFile {
        doc: Doc { pages, blocks: r.blocks, markdown: None, meta: None },
        filename: origin
            .and_then(|o| o.get("filename"))
            .and_then(Value::as_str)
            .map(str::to_string),
        binary_hash: origin
            .and_then(|o| o.get("binary_hash"))
            .and_then(|h| h.as_u64().or_else(|| h.as_str().and_then(|s| s.parse().ok()))),
    })
}

fn f(v: Option<&Value>) -> f32 {
    v.and_then(Value::as_f64).unwrap_or(0.0) as f32
}

struct Walker<'a> {
    root: &'a Value,
    heights: Vec<f32>,
    blocks: Vec<Block>,
    seen: HashSet<String>,
}

impl<'a> Walker<'a> {
    /// Resolves `#/texts/3` to its item.
    fn resolve(&self, cref: &str) -> Option<&'a Value> {
        let mut cur = self.root;
        for part in cref.strip_prefix("#/")?.split('/') {
            cur = match part.parse::<usize>() {
                Ok(i) => cur.get(i)?,
                Err(_) => cur.get(part)?,
            };
        }
        Some(cur)
    }

    fn refs(node: &Value, field: &str) -> Vec<String> {
        node.get(field)
            .and_then(|c| serde_json::from_value::<Vec<RefItem>>(c.clone()).ok())
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.cref)
            .collect()
    }

    fn children(&mut self, node: &'a Value) {
        for cref in Self::refs(node, "children") {
            self.visit(&cref);
        }
    }

    fn visit(&mut self, cref: &str) {
        if !self.seen.insert(cref.to_string()) {
            return;
        }
        let Some(item) = self.resolve(cref) else { return };
        let label = item.get("label").and_then(Value::as_str).unwrap_or("");
        if cref.starts_with("#/groups/") {
            if label == "inline" {
                let text = self.inline_text(item);
                if !text.is_empty() {
                    let (page, bbox) = self.first_prov_of_children(item);
                    self.blocks.push(Block::new(BlockKind::Paragraph, page, bbox, text));
                }
            } else {
                self.children(item);
            }
            return;
        }
        let floating = cref.starts_with("#/tables/") || cref.starts_with("#/pictures/");
        let captions = Self::refs(item, "captions");
        let footnotes = Self::refs(item, "footnotes");
        if floating || label == "code" {
            for c in &captions {
                self.visit(c);
            }
        }
        self.item(cref, item, label);
        for c in footnotes {
            self.visit(&c);
        }
        if !floating && label != "code" {
            for c in &captions {
                self.visit(c);
            }
        }
        // Children other than captions and footnotes (list groups in a list item, ...).
        self.children(item);
    }

    fn inline_text(&mut self, group: &'a Value) -> String {
        let mut parts = Vec::new();
        for cref in Self::refs(group, "children") {
            self.seen.insert(cref.clone());
            if let Some(it) = self.resolve(&cref) {
                let label = it.get("label").and_then(Value::as_str).unwrap_or("");
                let t = it.get("text").and_then(Value::as_str).unwrap_or("");
                parts.push(if label == "formula" { latex_to_plain(t) } else { t.to_string() });
            }
        }
        collapse_ws(&parts.join(" "))
    }

    fn first_prov_of_children(&self, group: &'a Value) -> (u32, BBox) {
        Self::refs(group, "children")
            .iter()
            .filter_map(|c| self.resolve(c))
            .find(|it| it.get("prov").and_then(|p| p.get(0)).is_some())
            .map_or((0, BBox::default()), |it| self.prov(it))
    }

    fn prov(&self, item: &Value) -> (u32, BBox) {
        let Some(p) = item.get("prov").and_then(|p| p.get(0)) else {
            return (0, BBox::default());
        };
        let page = p.get("page_no").and_then(Value::as_u64).unwrap_or(1).saturating_sub(1) as u32;
        let height = self.heights.get(page as usize).copied().unwrap_or(0.0);
        (page, bbox(p.get("bbox"), height))
    }

    fn item(&mut self, cref: &str, item: &'a Value, label: &str) {
        let (page, bbox) = self.prov(item);
        let text = item.get("text").and_then(Value::as_str).unwrap_or("");
        let kind = if cref.starts_with("#/tables/") {
            BlockKind::Table
        } else if cref.starts_with("#/pictures/") {
            BlockKind::Figure
        } else {
            match label {
                "title" => BlockKind::Title,
                "section_header" => BlockKind::Heading,
                "list_item" => BlockKind::ListItem,
                "caption" => BlockKind::Caption,
                "footnote" => BlockKind::Footnote,
                "page_header" => BlockKind::PageHeader,
                "page_footer" => BlockKind::PageFooter,
                "code" => BlockKind::Code,
                "formula" => BlockKind::Formula,
                "reference" => BlockKind::Reference,
                _ => BlockKind::Paragraph,
            }
        };
        let mut b = Block::new(kind, page, bbox, collapse_ws(text));
        // Docling's own class, finer than the kind (`chart`, `document_index`, `checkbox_*`):
        // the detection suite maps it with `classes/docling.toml`.
        if !label.is_empty() {
            b.label = Some(format!("docling:{label}"));
        }
        match kind {
            BlockKind::Heading => {
                let level = item.get("level").and_then(Value::as_u64).unwrap_or(1);
                b.level = Some(level.clamp(1, 9) as u8);
            }
            BlockKind::Formula => {
                if text.trim().is_empty() {
                    let orig = item.get("orig").and_then(Value::as_str).unwrap_or("");
                    b.text = collapse_ws(orig);
                } else {
                    b.latex = Some(text.trim().to_string());
                    b.text = latex_to_plain(text);
                }
            }
            BlockKind::Code => b.text = text.trim().to_string(),
            BlockKind::Table => {
                let t = table(item.get("data"));
                b.text = t.flat_text();
                b.table = Some(t);
            }
            _ => {}
        }
        if b.text.is_empty() && !matches!(kind, BlockKind::Table | BlockKind::Figure) {
            return;
        }
        self.blocks.push(b);
    }
}

fn bbox(b: Option<&Value>, page_height: f32) -> BBox {
    let Some(b) = b else { return BBox::default() };
    let (l, t, r, bo) = (f(b.get("l")), f(b.get("t")), f(b.get("r")), f(b.get("b")));
    let bottom_left = b.get("coord_origin").and_then(Value::as_str) == Some("BOTTOMLEFT");
    if bottom_left {
        BBox::new(l, page_height - t, r, page_height - bo)
    } else {
        BBox::new(l, t, r, bo)
    }
}

fn table(data: Option<&Value>) -> Table {
    let Some(data) = data else { return Table::default() };
    let u = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
    let mut cells: Vec<Cell> = data
        .get("table_cells")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    let (r0, r1) = (u(c, "start_row_offset_idx"), u(c, "end_row_offset_idx"));
                    let (c0, c1) = (u(c, "start_col_offset_idx"), u(c, "end_col_offset_idx"));
                    let flag = |k: &str| c.get(k).and_then(Value::as_bool).unwrap_or(false);
                    Cell {
                        row: r0,
                        col: c0,
                        row_span: r1.saturating_sub(r0).max(1),
                        col_span: c1.saturating_sub(c0).max(1),
                        text: collapse_ws(c.get("text").and_then(Value::as_str).unwrap_or("")),
                        header: flag("column_header") || flag("row_header"),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    cells.sort_by_key(|c| (c.row, c.col));
    cells.dedup_by_key(|c| (c.row, c.col));
    let rows = cells.iter().map(|c| c.row + c.row_span).max().unwrap_or(0).max(u(data, "num_rows"));
    let cols = cells.iter().map(|c| c.col + c.col_span).max().unwrap_or(0).max(u(data, "num_cols"));
    Table { rows, cols, cells }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Value {
        json!({
            "schema_name": "DoclingDocument", "version": "1.10.0", "name": "x",
            "origin": {"filename": "x.pdf", "binary_hash": 42u64, "mimetype": "application/pdf"},
            "body": {"self_ref": "#/body", "children": [
                {"$ref": "#/texts/0"}, {"$ref": "#/texts/1"}, {"$ref": "#/groups/0"},
                {"$ref": "#/tables/0"}, {"$ref": "#/texts/5"}, {"$ref": "#/texts/6"}]},
            "furniture": {"self_ref": "#/furniture", "children": []},
            "groups": [{"self_ref": "#/groups/0", "label": "list",
                        "children": [{"$ref": "#/texts/2"}, {"$ref": "#/texts/3"}]}],
            "texts": [
                {"self_ref": "#/texts/0", "label": "page_header", "text": "Running head",
                 "prov": [{"page_no": 1, "bbox": {"l": 10.0, "t": 780.0, "r": 100.0, "b": 770.0,
                                                   "coord_origin": "BOTTOMLEFT"}}]},
                {"self_ref": "#/texts/1", "label": "section_header", "level": 2, "text": "1.1 Setup",
                 "prov": [{"page_no": 1, "bbox": {"l": 0, "t": 0, "r": 1, "b": 1}}]},
                {"self_ref": "#/texts/2", "label": "list_item", "text": "one"},
                {"self_ref": "#/texts/3", "label": "list_item", "text": "two"},
                {"self_ref": "#/texts/4", "label": "caption", "text": "Table 1: Results."},
                {"self_ref": "#/texts/5", "label": "formula", "text": "r_i = \\sigma(x_i)", "orig": "r i"},
                {"self_ref": "#/texts/6", "label": "formula", "text": "", "orig": "a 2 +8 = 12"}],
            "tables": [{"self_ref": "#/tables/0", "label": "table",
                        "captions": [{"$ref": "#/texts/4"}], "children": [{"$ref": "#/texts/4"}],
                        "prov": [{"page_no": 2, "bbox": {"l": 0, "t": 10, "r": 5, "b": 0, "coord_origin": "BOTTOMLEFT"}}],
                        "data": {"num_rows": 2, "num_cols": 2, "table_cells": [
                            {"start_row_offset_idx": 0, "end_row_offset_idx": 1, "start_col_offset_idx": 0,
                             "end_col_offset_idx": 2, "text": "head", "column_header": true},
                            {"start_row_offset_idx": 1, "end_row_offset_idx": 2, "start_col_offset_idx": 0,
                             "end_col_offset_idx": 1, "text": "1.5"},
                            {"start_row_offset_idx": 1, "end_row_offset_idx": 2, "start_col_offset_idx": 1,
                             "end_col_offset_idx": 2, "text": "2"}]}}],
            "pictures": [],
            "pages": {"1": {"page_no": 1, "size": {"width": 612.0, "height": 792.0}},
                      "2": {"page_no": 2, "size": {"width": 612.0, "height": 792.0}}}
        })
    }

    #[test]
    fn reads_kinds_order_tables_and_formulas() {
        let f = read_docling(sample().to_string().as_bytes()).unwrap();
        use BlockKind::*;
        let kinds: Vec<_> = f.doc.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            [PageHeader, Heading, ListItem, ListItem, Caption, Table, Formula, Formula]
        );
        let b = &f.doc.blocks;
        assert_eq!(b[0].bbox, BBox::new(10.0, 12.0, 100.0, 22.0));
        assert_eq!(b[1].level, Some(2));
        let t = b[5].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols, t.cells[0].col_span, t.cells[0].header), (2, 2, 2, true));
        assert_eq!(b[5].page, 1);
        assert_eq!(b[5].text, "head\n1.5 2");
        assert_eq!(
            (b[6].text.as_str(), b[6].latex.as_deref()),
            ("ri = σ(xi)", Some("r_i = \\sigma(x_i)"))
        );
        assert_eq!((b[7].text.as_str(), b[7].latex.as_deref()), ("a 2 +8 = 12", None));
        assert_eq!(f.binary_hash, Some(42));
        assert_eq!(f.filename.as_deref(), Some("x.pdf"));
        assert_eq!(f.doc.pages.len(), 2);
    }

    #[test]
    fn rejects_other_json() {
        let e = read_docling(b"[{\"num_cells\": 1}]").unwrap_err().to_string();
        assert!(e.contains("not a DoclingDocument"), "{e}");
        let e = read_docling(b"{\"schema_name\": \"Other\"}").unwrap_err().to_string();
        assert!(e.contains("\"Other\""), "{e}");
        assert!(read_docling(b"{").unwrap_err().to_string().starts_with("not JSON"));
    }
}
