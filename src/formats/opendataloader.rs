//! opendataloader-pdf's JSON (`opendataloader-pdf FILE -f json`, or the Python package's
//! `convert(..., format="json")`) into a [`Doc`]: `{"file name", "number of pages", ...,
//! "kids": [...]}`, the kids in reading order.
//!
//! - **Kinds**, by `type`: `heading` → the document title for the first one at `heading level`
//!   1, else a heading at level `heading level` − 1 (at least 1; level 1 without a `heading
//!   level`): the levels the Markdown reader gives opendataloader's own Markdown, which writes a
//!   heading as that many `#`; `paragraph` and `text chunk` → paragraph; `caption` → caption;
//!   `list` → its `list items`, each a list item (its `content`), followed by the item's `kids`
//!   (continuation paragraphs, nested lists); `table` → a table; `image` → a figure; `formula`
//!   → a formula (`content` is its LaTeX); `header` / `footer` → their kids' text as page
//!   headers / footers (one block per kid, pictures left out); `text block` → its kids; `toc` →
//!   its `toc items`, each a paragraph; `line` (drawn line art) → nothing. Any other type is an
//!   error naming it: a new type is added here on purpose, never guessed.
//! - **Tables**: the cells of `rows[].cells[]`, placed at `row number` / `column number`
//!   (one-based) with `row span` / `column span`; a cell's text is the text of its kids in
//!   order; `is_header` marks header cells. The grid is at least `number of rows` × `number of
//!   columns`; the block's text is the cells row by row.
//! - **Pages**: `page number` is one-based; an element without one is on its parent's page,
//!   else on the page the caller names.
//! - **Boxes**: `bounding box` is `[left, bottom, right, top]` in PDF points with the origin at
//!   the page's bottom-left; y is turned over with the page's height. The file does not record
//!   page sizes, so the height is the caller's page size where it gives the PDF's sizes (then
//!   they are [`Doc::pages`]), and **792 pt (US Letter) otherwise**, with [`Doc::pages`] left
//!   empty: the height the table suite's detection and the HTML report assume for a page of
//!   unknown size, so that boxes and ground-truth regions are turned over alike.
//! - Left alone: fonts, colours, `level`, `id`, `linked content id`, `pdfua_tag`, image
//!   sources, and the document's metadata fields.

use serde_json::Value;

use super::{Format, FormatError};
use crate::doc::{BBox, Block, BlockKind, Cell, Doc, Page, Table};
use crate::normalize::{collapse_ws, latex_to_plain};

/// The format this file reads.
const FORMAT: Format = Format::OpenDataLoaderJson;

/// The page height boxes are turned over with when the caller gives no page sizes.
pub const DEFAULT_PAGE_HEIGHT: f32 = 792.0;

/// Reads an opendataloader-pdf JSON file. `page` (zero-based) is where elements without a
/// page number go; `sizes` are the PDF's page sizes in points where the caller knows them.
pub(crate) fn read_opendataloader(
    bytes: &[u8],
    page: u32,
    sizes: &[Page],
) -> Result<Doc, FormatError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| FormatError::json(FORMAT, e))?;
    let kids = v
        .as_object()
        .and_then(|o| o.get("kids"))
        .and_then(Value::as_array)
        .ok_or_else(|| FormatError::shape(FORMAT, "an object with a kids list", "$"))?;
    let mut r = Reader { sizes, blocks: Vec::new(), seen_title: false };
    for (i, k) in kids.iter().enumerate() {
        r.element(k, page, None, &format!("kids[{i}]"))?;
    }
    Ok(Doc { pages: sizes.to_vec(), blocks: r.blocks, markdown: None, meta: None })
}

fn shape(expected: &'static str, at: &str) -> FormatError {
    FormatError::shape(FORMAT, expected, at)
}

/// The list field `k` of `v` (empty when absent or null).
fn list<'v>(v: &'v Value, k: &str, at: &str) -> Result<&'v [Value], FormatError> {
    match v.get(k) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(shape("a list", &format!("{at}.{k}"))),
    }
}

/// The string field `content` (empty when absent or null).
fn content<'v>(v: &'v Value, at: &str) -> Result<&'v str, FormatError> {
    match v.get("content") {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(shape("a string", &format!("{at}.content"))),
    }
}

/// A positive integer field `k` of `v`, if present.
fn positive(v: &Value, k: &str, at: &str) -> Result<Option<u32>, FormatError> {
    match v.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(n) => match n.as_u64() {
            Some(n) if n >= 1 && n <= u64::from(u32::MAX) => Ok(Some(n as u32)),
            _ => Err(shape("a positive integer", &format!("{at}.{k}"))),
        },
    }
}

/// The text of an element and everything under it, in order, white space collapsed.
fn subtree_text(v: &Value) -> String {
    fn walk(v: &Value, out: &mut String) {
        if let Some(s) = v.get("content").and_then(Value::as_str) {
            out.push(' ');
            out.push_str(s);
        }
        for k in ["list items", "toc items", "rows", "cells", "kids"] {
            for c in v.get(k).and_then(Value::as_array).into_iter().flatten() {
                walk(c, out);
            }
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    collapse_ws(&out)
}

struct Reader<'s> {
    sizes: &'s [Page],
    blocks: Vec<Block>,
    seen_title: bool,
}

impl Reader<'_> {
    /// The element's page (zero-based) and its box turned to a top-left origin.
    fn place(&self, v: &Value, page: u32, at: &str) -> Result<(u32, BBox), FormatError> {
        let page = positive(v, "page number", at)?.map_or(page, |n| n - 1);
        let bbox = match v.get("bounding box") {
            None | Some(Value::Null) => BBox::default(),
            Some(b) => {
                let bad =
                    || shape("[left, bottom, right, top] numbers", &format!("{at}.bounding box"));
                let a = b.as_array().filter(|a| a.len() == 4).ok_or_else(bad)?;
                let mut n = [0f32; 4];
                for (x, v) in n.iter_mut().zip(a) {
                    *x = v.as_f64().filter(|f| f.is_finite()).ok_or_else(bad)? as f32;
                }
                let [l, bottom, r, top] = n;
                let h = self
                    .sizes
                    .get(page as usize)
                    .map(|p| p.height)
                    .filter(|&h| h > 0.0)
                    .unwrap_or(DEFAULT_PAGE_HEIGHT);
                BBox::new(l.min(r), h - top.max(bottom), l.max(r), h - top.min(bottom))
            }
        };
        Ok((page, bbox))
    }

    fn push(&mut self, b: Block) {
        if !b.text.is_empty() || matches!(b.kind, BlockKind::Table | BlockKind::Figure) {
            self.blocks.push(b);
        }
    }

    /// Reads one element (and what it holds). `furniture` is the kind every text under a
    /// page header or footer becomes.
    fn element(
        &mut self,
        v: &Value,
        page: u32,
        furniture: Option<BlockKind>,
        at: &str,
    ) -> Result<(), FormatError> {
        if !v.is_object() {
            return Err(shape("an object", at));
        }
        let t = v
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| shape("a string", &format!("{at}.type")))?;
        let (page, bbox) = self.place(v, page, at)?;
        let text = collapse_ws(content(v, at)?);
        let mut kids = "kids";
        if let Some(kind) = furniture {
            match t {
                "image" | "line" => {}
                "table" | "list" | "toc" => {
                    self.push(Block::new(kind, page, bbox, subtree_text(v)));
                    return Ok(());
                }
                "header" | "footer" | "text block" => {}
                "heading" | "paragraph" | "text chunk" | "caption" | "formula" | "list item"
                | "toc item" => self.push(Block::new(kind, page, bbox, text)),
                other => return Err(unknown(other, at)),
            }
        } else {
            match t {
                "heading" => {
                    let level = positive(v, "heading level", at)?.unwrap_or(2);
                    let mut b = Block::new(BlockKind::Heading, page, bbox, text);
                    if level == 1 && !self.seen_title {
                        self.seen_title = true;
                        b.kind = BlockKind::Title;
                    } else {
                        b.level = Some(level.saturating_sub(1).clamp(1, 9) as u8);
                    }
                    self.push(b);
                }
                "paragraph" | "text chunk" | "toc item" => {
                    self.push(Block::new(BlockKind::Paragraph, page, bbox, text))
                }
                "caption" => self.push(Block::new(BlockKind::Caption, page, bbox, text)),
                "list item" => self.push(Block::new(BlockKind::ListItem, page, bbox, text)),
                "list" => kids = "list items",
                "toc" => kids = "toc items",
                "text block" => {}
                "image" => self.push(Block::new(BlockKind::Figure, page, bbox, "")),
                "formula" => {
                    let latex = content(v, at)?.trim();
                    let mut b = Block::new(BlockKind::Formula, page, bbox, latex_to_plain(latex));
                    if !latex.is_empty() {
                        b.latex = Some(latex.to_string());
                    }
                    self.push(b);
                }
                "table" => {
                    let t = table(v, at)?;
                    let mut b = Block::new(BlockKind::Table, page, bbox, t.flat_text());
                    b.table = Some(t);
                    self.push(b);
                    return Ok(());
                }
                "header" => return self.furniture(v, page, BlockKind::PageHeader, at),
                "footer" => return self.furniture(v, page, BlockKind::PageFooter, at),
                "line" => {}
                other => return Err(unknown(other, at)),
            }
        }
        for (i, k) in list(v, kids, at)?.iter().enumerate() {
            self.element(k, page, furniture, &format!("{at}.{kids}[{i}]"))?;
        }
        Ok(())
    }

    fn furniture(
        &mut self,
        v: &Value,
        page: u32,
        kind: BlockKind,
        at: &str,
    ) -> Result<(), FormatError> {
        for (i, k) in list(v, "kids", at)?.iter().enumerate() {
            self.element(k, page, Some(kind), &format!("{at}.kids[{i}]"))?;
        }
        Ok(())
    }
}

fn unknown(t: &str, at: &str) -> FormatError {
    FormatError::new(FORMAT, format!("unknown element type {t:?}")).at(format!("{at}.type"))
}

/// A `table` element's cells.
fn table(v: &Value, at: &str) -> Result<Table, FormatError> {
    let mut cells = Vec::new();
    for (r, row) in list(v, "rows", at)?.iter().enumerate() {
        let at = format!("{at}.rows[{r}]");
        for (c, cell) in list(row, "cells", &at)?.iter().enumerate() {
            let at = format!("{at}.cells[{c}]");
            let need = |k: &str| {
                positive(cell, k, &at)?
                    .ok_or_else(|| shape("a positive integer", &format!("{at}.{k}")))
            };
            let (row_no, col_no) = (need("row number")?, need("column number")?);
            let span = |k: &str| positive(cell, k, &at).map(|s| s.unwrap_or(1));
            let header = match cell.get("is_header") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(shape("true or false", &format!("{at}.is_header"))),
            };
            let mut text = String::new();
            for k in list(cell, "kids", &at)? {
                text.push(' ');
                text.push_str(&subtree_text(k));
            }
            cells.push(Cell {
                row: row_no - 1,
                col: col_no - 1,
                row_span: span("row span")?,
                col_span: span("column span")?,
                text: collapse_ws(&text),
                header,
            });
        }
    }
    cells.sort_by_key(|c| (c.row, c.col));
    let rows = cells.iter().map(|c| c.row + c.row_span).max().unwrap_or(0);
    let cols = cells.iter().map(|c| c.col + c.col_span).max().unwrap_or(0);
    let count =
        |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0).min(u64::from(u32::MAX)) as u32;
    let (n_rows, n_cols) = (count("number of rows"), count("number of columns"));
    Ok(Table { rows: rows.max(n_rows), cols: cols.max(n_cols), cells })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn para(id: u32, page: u32, bbox: [f64; 4], text: &str) -> Value {
        json!({"type": "paragraph", "id": id, "page number": page, "bounding box": bbox,
               "font": "CMR10", "font size": 10.0, "text color": "[0.0]", "content": text})
    }

    /// A table of two rows and three columns: a header cell spanning two columns, one
    /// spanning two rows, a cell holding a paragraph and a list.
    fn table() -> Value {
        let cell = |id: u32, rc: [u32; 2], span: [u32; 2], header: bool, kids: Value| {
            json!({"type": "table cell", "id": id, "page number": 2, "bounding box": [0, 0, 1, 1],
                   "row number": rc[0], "column number": rc[1], "row span": span[0],
                   "column span": span[1], "is_header": header, "kids": kids})
        };
        let list = json!({"type": "list", "id": 26, "page number": 2, "bounding box": [72, 100, 180, 200],
            "list items": [{"type": "list item", "id": 27, "content": "a", "kids": []}]});
        json!({"type": "table", "id": 18, "page number": 2, "bounding box": [72, 100, 540, 300],
               "number of rows": 2, "number of columns": 3, "rows": [
                {"type": "table row", "row number": 1, "id": 19, "cells": [
                    cell(20, [1, 1], [1, 2], true, json!([para(21, 2, [72.0, 250.0, 300.0, 300.0], "Head")])),
                    cell(22, [1, 3], [2, 1], true, json!([]))]},
                {"type": "table row", "row number": 2, "id": 23, "cells": [
                    cell(24, [2, 1], [1, 1], false,
                         json!([para(25, 2, [72.0, 100.0, 180.0, 250.0], "1.5"), list])),
                    cell(28, [2, 2], [1, 1], false, json!([para(29, 2, [180.0, 100.0, 300.0, 250.0], "2")]))]}]})
    }

    /// A two-page file with every element type, written as opendataloader-pdf 2.5 writes them.
    fn sample() -> Value {
        let header = json!({"type": "header", "id": 1, "page number": 1, "bounding box": [72, 750, 540, 770],
            "kids": [{"type": "heading", "id": 2, "page number": 1, "heading level": 6,
                      "bounding box": [72, 750, 300, 770], "content": "Running  head"},
                     {"type": "image", "id": 3, "page number": 1, "bounding box": [500, 750, 540, 770]}]});
        let list = json!({"type": "list", "id": 7, "page number": 1, "bounding box": [72, 400, 540, 490],
            "numbering style": "bullets", "number of list items": 2, "list items": [
                {"type": "list item", "id": 8, "page number": 1, "bounding box": [72, 460, 540, 490],
                 "content": "first item", "kids": [para(9, 1, [90.0, 440.0, 540.0, 458.0], "continued")]},
                {"type": "list item", "id": 10, "page number": 1, "bounding box": [72, 400, 540, 430],
                 "content": "second item", "kids": []}]});
        let kids = vec![
            header,
            json!({"type": "heading", "id": 4, "level": "Doctitle", "heading level": 1, "page number": 1,
                   "bounding box": [100, 680, 500, 720], "content": "A Paper"}),
            json!({"type": "heading", "id": 5, "level": "Subtitle", "heading level": 2, "page number": 1,
                   "bounding box": [72, 600, 200, 615], "content": "1 Introduction"}),
            para(6, 1, [72.0, 500.0, 540.0, 590.0], "Body\ntext."),
            list,
            json!({"type": "heading", "id": 11, "heading level": 1, "page number": 1,
                   "bounding box": [72, 350, 200, 365], "content": "Appendix"}),
            json!({"type": "formula", "id": 12, "page number": 1, "bounding box": [200, 300, 400, 330],
                   "content": "x^2 + y^2"}),
            json!({"type": "line", "id": 13, "page number": 1, "bounding box": [72, 290, 540, 291]}),
            json!({"type": "footer", "id": 14, "page number": 1, "bounding box": [290, 20, 310, 30],
                   "kids": [para(15, 1, [290.0, 20.0, 310.0, 30.0], "1")]}),
            json!({"type": "image", "id": 16, "page number": 2, "bounding box": [100, 500, 300, 700],
                   "alt_source": "missing"}),
            json!({"type": "caption", "id": 17, "page number": 2, "bounding box": [100, 470, 300, 490],
                   "linked content id": 16, "content": "Figure 1: A plot."}),
            table(),
            json!({"type": "text block", "id": 30, "page number": 2, "bounding box": [72, 50, 540, 90],
                   "kids": [{"type": "text chunk", "id": 31, "page number": 2,
                             "bounding box": [72, 50, 540, 90], "content": "chunk"}]}),
            json!({"type": "toc", "id": 32, "page number": 2, "toc items": [
                {"type": "toc item", "id": 33, "page number": 2, "content": "1 Introduction .... 1"}]}),
        ];
        json!({"file name": "x.pdf", "number of pages": 2, "author": null, "title": null,
               "creation date": null, "modification date": null, "kids": kids})
    }

    #[test]
    fn reads_every_type_with_boxes_turned_over() {
        let d = read_opendataloader(sample().to_string().as_bytes(), 0, &[]).unwrap();
        use BlockKind::*;
        let got: Vec<(BlockKind, u32, &str)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.text.as_str())).collect();
        assert_eq!(
            got,
            [
                (PageHeader, 0, "Running head"),
                (Title, 0, "A Paper"),
                (Heading, 0, "1 Introduction"),
                (Paragraph, 0, "Body text."),
                (ListItem, 0, "first item"),
                (Paragraph, 0, "continued"),
                (ListItem, 0, "second item"),
                (Heading, 0, "Appendix"),
                (Formula, 0, "x2 + y2"),
                (PageFooter, 0, "1"),
                (Figure, 1, ""),
                (Caption, 1, "Figure 1: A plot."),
                (Table, 1, "Head\n1.5 a 2"),
                (Paragraph, 1, "chunk"),
                (Paragraph, 1, "1 Introduction .... 1"),
            ]
        );
        let b = &d.blocks;
        assert_eq!((b[1].level, b[2].level, b[7].level), (None, Some(1), Some(1)));
        assert_eq!(b[8].latex.as_deref(), Some("x^2 + y^2"));
        // [left, bottom, right, top] on a 792 pt page: y0 = 792 - top, y1 = 792 - bottom.
        assert_eq!(b[0].bbox, BBox::new(72.0, 22.0, 300.0, 42.0));
        assert_eq!(b[1].bbox, BBox::new(100.0, 72.0, 500.0, 112.0));
        assert_eq!(b[12].bbox, BBox::new(72.0, 492.0, 540.0, 692.0));
        assert!(d.pages.is_empty());
        let t = b[12].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols), (2, 3));
        let cells: Vec<(u32, u32, u32, u32, &str, bool)> = t
            .cells
            .iter()
            .map(|c| (c.row, c.col, c.row_span, c.col_span, c.text.as_str(), c.header))
            .collect();
        assert_eq!(
            cells,
            [
                (0, 0, 1, 2, "Head", true),
                (0, 2, 2, 1, "", true),
                (1, 0, 1, 1, "1.5 a", false),
                (1, 1, 1, 1, "2", false),
            ]
        );
    }

    #[test]
    fn given_page_sizes_turn_boxes_over_and_are_the_pages() {
        let a4 = [Page { width: 595.0, height: 842.0 }, Page { width: 842.0, height: 595.0 }];
        let d = read_opendataloader(sample().to_string().as_bytes(), 0, &a4).unwrap();
        assert_eq!(d.pages, a4);
        assert_eq!(d.blocks[1].bbox, BBox::new(100.0, 122.0, 500.0, 162.0));
        // Page 2 is landscape: 595 - 300 = 295.
        assert_eq!(d.blocks[12].bbox, BBox::new(72.0, 295.0, 540.0, 495.0));
    }

    #[test]
    fn elements_without_a_page_take_the_given_one() {
        let f = json!({"kids": [{"type": "paragraph", "content": "x"}]});
        let d = read_opendataloader(f.to_string().as_bytes(), 3, &[]).unwrap();
        assert_eq!((d.blocks[0].page, d.blocks[0].bbox), (3, BBox::default()));
        let d = read_opendataloader(br#"{"kids": []}"#, 0, &[]).unwrap();
        assert!(d.blocks.is_empty());
    }

    #[test]
    fn malformed_files_say_what_is_wrong() {
        let err = |v: Value| {
            read_opendataloader(v.to_string().as_bytes(), 0, &[]).unwrap_err().to_string()
        };
        assert!(read_opendataloader(b"{", 0, &[])
            .unwrap_err()
            .to_string()
            .starts_with("invalid JSON"));
        assert_eq!(err(json!([])), "expected an object with a kids list at $");
        assert_eq!(err(json!({"kids": [3]})), "expected an object at kids[0]");
        assert_eq!(err(json!({"kids": [{"content": "x"}]})), "expected a string at kids[0].type");
        assert_eq!(
            err(json!({"kids": [{"type": "sidebar", "content": "x"}]})),
            "unknown element type \"sidebar\" at kids[0].type"
        );
        assert_eq!(
            err(json!({"kids": [{"type": "header", "kids": [{"type": "table cell"}]}]})),
            "unknown element type \"table cell\" at kids[0].kids[0].type"
        );
        assert_eq!(
            err(json!({"kids": [{"type": "paragraph", "page number": 0}]})),
            "expected a positive integer at kids[0].page number"
        );
        assert_eq!(
            err(json!({"kids": [{"type": "paragraph", "bounding box": [1, 2, 3]}]})),
            "expected [left, bottom, right, top] numbers at kids[0].bounding box"
        );
        assert_eq!(
            err(
                json!({"kids": [{"type": "list", "list items": [{"type": "list item", "content": 7}]}]})
            ),
            "expected a string at kids[0].list items[0].content"
        );
        let cell = |c: Value| json!({"kids": [{"type": "table", "rows": [{"cells": [c]}]}]});
        assert_eq!(
            err(cell(json!({"column number": 1}))),
            "expected a positive integer at kids[0].rows[0].cells[0].row number"
        );
        assert_eq!(
            err(cell(json!({"row number": 1, "column number": 1, "is_header": "yes"}))),
            "expected true or false at kids[0].rows[0].cells[0].is_header"
        );
        assert_eq!(
            err(json!({"kids": [{"type": "table", "rows": {}}]})),
            "expected a list at kids[0].rows"
        );
    }
}
