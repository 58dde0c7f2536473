//! A [`Doc`] written as DoclingDocument JSON (docling-core schema 1.x), the inverse of
//! [`super::docling`]'s reader, for `corpus export --format docling`.
//!
//! Every block becomes one item in the `body` tree, in reading order: text kinds in `texts`
//! with Docling's labels (`title`, `section_header` with `level`, `text`, `list_item` inside a
//! `list` group per run of items, `caption`, `footnote`, `page_header` and `page_footer` (in
//! the body, marked `content_layer: furniture`, so the order stays), `code`, `formula` with its
//! LaTeX as `text` and its plain text as `orig`, `reference`), tables in `tables` with their
//! cells as `data.table_cells`, figures in `pictures`. Boxes are written with a top-left
//! origin, pages numbered from 1. Reading the file back gives the same Doc except for what the
//! schema has no place for: a figure's text, a reference's parsed fields, the Markdown a Doc
//! was imported from and its header metadata; texts are read back with white space collapsed.

use serde_json::{json, Value};

use crate::doc::{BBox, Block, BlockKind, Doc};

/// The DoclingDocument of `doc`, named `name` (the file name without extension).
pub fn write_docling(doc: &Doc, name: &str) -> Value {
    let mut w = Writer::default();
    for b in &doc.blocks {
        w.block(b);
    }
    let pages: serde_json::Map<String, Value> = doc
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let no = i + 1;
            (no.to_string(), json!({"page_no": no, "size": {"width": p.width, "height": p.height}}))
        })
        .collect();
    json!({
        "schema_name": "DoclingDocument",
        "version": "1.0.0",
        "name": name,
        "origin": {"filename": format!("{name}.pdf"), "mimetype": "application/pdf"},
        "furniture": {"self_ref": "#/furniture", "children": [], "content_layer": "furniture",
                      "name": "_root_", "label": "unspecified"},
        "body": {"self_ref": "#/body", "children": w.body, "content_layer": "body",
                 "name": "_root_", "label": "unspecified"},
        "groups": w.groups,
        "texts": w.texts,
        "pictures": w.pictures,
        "tables": w.tables,
        "key_value_items": [],
        "form_items": [],
        "pages": pages,
    })
}

#[derive(Default)]
struct Writer {
    body: Vec<Value>,
    groups: Vec<Value>,
    texts: Vec<Value>,
    pictures: Vec<Value>,
    tables: Vec<Value>,
    /// The list group the last block opened, while list items follow each other.
    open_list: Option<usize>,
}

fn prov(b: &Block, chars: usize) -> Value {
    let BBox { x0, y0, x1, y1 } = b.bbox;
    json!([{"page_no": b.page + 1,
            "bbox": {"l": x0, "t": y0, "r": x1, "b": y1, "coord_origin": "TOPLEFT"},
            "charspan": [0, chars]}])
}

fn reference(r: String) -> Value {
    json!({"$ref": r})
}

impl Writer {
    fn block(&mut self, b: &Block) {
        if b.kind != BlockKind::ListItem {
            self.open_list = None;
        }
        match b.kind {
            BlockKind::Table => {
                let r = format!("#/tables/{}", self.tables.len());
                self.tables.push(self.table(b, &r));
                self.body.push(reference(r));
            }
            BlockKind::Figure => {
                let r = format!("#/pictures/{}", self.pictures.len());
                self.pictures.push(json!({
                    "self_ref": r, "parent": {"$ref": "#/body"}, "children": [],
                    "content_layer": "body", "label": "picture", "prov": prov(b, 0),
                    "captions": [], "references": [], "footnotes": [], "annotations": []}));
                self.body.push(reference(r));
            }
            BlockKind::ListItem => {
                let g = match self.open_list {
                    Some(g) => g,
                    None => {
                        let g = self.groups.len();
                        let r = format!("#/groups/{g}");
                        self.groups.push(json!({
                            "self_ref": r, "parent": {"$ref": "#/body"}, "children": [],
                            "content_layer": "body", "name": "list", "label": "list"}));
                        self.body.push(reference(r));
                        self.open_list = Some(g);
                        g
                    }
                };
                let parent = format!("#/groups/{g}");
                let r = self.text(b, &parent);
                self.groups[g]["children"].as_array_mut().expect("children").push(reference(r));
            }
            _ => {
                let r = self.text(b, "#/body");
                self.body.push(reference(r));
            }
        }
    }

    /// Adds a text item; returns its reference.
    fn text(&mut self, b: &Block, parent: &str) -> String {
        let r = format!("#/texts/{}", self.texts.len());
        let furniture = matches!(b.kind, BlockKind::PageHeader | BlockKind::PageFooter);
        let label = match b.kind {
            BlockKind::Title => "title",
            BlockKind::Heading => "section_header",
            BlockKind::ListItem => "list_item",
            BlockKind::Caption => "caption",
            BlockKind::Footnote => "footnote",
            BlockKind::PageHeader => "page_header",
            BlockKind::PageFooter => "page_footer",
            BlockKind::Code => "code",
            BlockKind::Formula => "formula",
            BlockKind::Reference => "reference",
            BlockKind::Paragraph | BlockKind::Table | BlockKind::Figure => "text",
        };
        // A formula keeps its LaTeX as text; one without LaTeX is a formula Docling did not
        // decode: empty text, its characters in `orig`.
        let (text, orig) = match (b.kind, &b.latex) {
            (BlockKind::Formula, Some(latex)) => (latex.clone(), b.text.clone()),
            (BlockKind::Formula, None) => (String::new(), b.text.clone()),
            _ => (b.text.clone(), b.text.clone()),
        };
        let mut item = json!({
            "self_ref": r, "parent": {"$ref": parent}, "children": [],
            "content_layer": if furniture { "furniture" } else { "body" },
            "label": label, "prov": prov(b, orig.chars().count()), "orig": orig, "text": text});
        if b.kind == BlockKind::Heading {
            item["level"] = json!(b.level.unwrap_or(1));
        }
        if b.kind == BlockKind::ListItem {
            item["enumerated"] = json!(false);
            item["marker"] = json!("-");
        }
        if b.kind == BlockKind::Code {
            item["code_language"] = json!("unknown");
        }
        self.texts.push(item);
        r
    }

    fn table(&self, b: &Block, r: &str) -> Value {
        let t = b.table.clone().unwrap_or_default();
        let cells: Vec<Value> = t
            .cells
            .iter()
            .map(|c| {
                json!({
                    "start_row_offset_idx": c.row, "end_row_offset_idx": c.row + c.row_span,
                    "start_col_offset_idx": c.col, "end_col_offset_idx": c.col + c.col_span,
                    "row_span": c.row_span, "col_span": c.col_span, "text": c.text,
                    "column_header": c.header, "row_header": false, "row_section": false})
            })
            .collect();
        json!({
            "self_ref": r, "parent": {"$ref": "#/body"}, "children": [],
            "content_layer": "body", "label": "table", "prov": prov(b, 0),
            "captions": [], "references": [], "footnotes": [],
            "data": {"num_rows": t.rows, "num_cols": t.cols, "table_cells": cells}})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{Page, Table};

    /// A Doc of every kind the schema keeps, as the reader would give it back.
    fn sample() -> Doc {
        let bb = |y: f32| BBox::new(72.0, y, 540.0, y + 12.0);
        let mut heading = Block::new(BlockKind::Heading, 0, bb(100.0), "1 Introduction");
        heading.level = Some(2);
        let mut formula = Block::new(BlockKind::Formula, 1, bb(50.0), "ri = σ(xi)");
        formula.latex = Some("r_i = \\sigma(x_i)".into());
        let undecoded = Block::new(BlockKind::Formula, 1, bb(70.0), "a 2 +8 = 12");
        let t = Table::from_rows(&[&["Name", "Score"], &["a", "0.5"]], 1);
        let mut table = Block::new(BlockKind::Table, 1, bb(90.0), t.flat_text());
        table.table = Some(t);
        Doc {
            pages: vec![Page { width: 612.0, height: 792.0 }; 2],
            blocks: vec![
                Block::new(BlockKind::PageHeader, 0, bb(10.0), "Running head"),
                Block::new(BlockKind::Title, 0, bb(40.0), "A Title"),
                heading,
                Block::new(BlockKind::Paragraph, 0, bb(120.0), "Some text."),
                Block::new(BlockKind::ListItem, 0, bb(140.0), "one"),
                Block::new(BlockKind::ListItem, 0, bb(160.0), "two"),
                Block::new(BlockKind::Caption, 1, bb(30.0), "Table 1: Scores."),
                table,
                formula,
                undecoded,
                Block::new(BlockKind::Figure, 1, bb(200.0), ""),
                Block::new(BlockKind::Code, 1, bb(300.0), "fn main() {}"),
                Block::new(BlockKind::Footnote, 1, bb(700.0), "1 A note."),
                Block::new(BlockKind::Reference, 1, bb(720.0), "[1] A. Author. A work. 2020."),
                Block::new(BlockKind::PageFooter, 1, bb(760.0), "2"),
            ],
            markdown: None,
            meta: None,
        }
    }

    #[test]
    fn reads_back_as_the_same_doc() {
        let doc = sample();
        let json = write_docling(&doc, "x");
        let back = super::super::docling::read_docling(json.to_string().as_bytes()).unwrap();
        // The reader keeps each item's Docling label (`docling:<label>`) beside its kind.
        let mut got = back.doc.clone();
        for b in &mut got.blocks {
            assert!(b.label.as_deref().is_some_and(|l| l.starts_with("docling:")), "{b:?}");
            b.label = None;
        }
        assert_eq!(got, doc);
        assert_eq!(back.filename.as_deref(), Some("x.pdf"));
    }

    #[test]
    fn consecutive_list_items_share_one_list_group() {
        let json = write_docling(&sample(), "x");
        assert_eq!(json["groups"].as_array().unwrap().len(), 1);
        assert_eq!(json["groups"][0]["children"].as_array().unwrap().len(), 2);
        assert_eq!(json["texts"][0]["content_layer"], "furniture");
    }
}
