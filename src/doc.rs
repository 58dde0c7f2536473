//! The one document model that every provider returns and every suite reads.
//!
//! A [`Doc`] is a list of pages and a list of blocks in reading order. It is stored as JSON
//! (serde), so field names and kind names are part of the store's format: renaming one is a
//! breaking change that needs a `CACHE_VERSION` bump.

use serde::{Deserialize, Serialize};

/// A parsed document: its pages and its blocks in reading order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// Page sizes, in PDF points, in page order.
    pub pages: Vec<Page>,
    /// Blocks in reading order across all pages.
    pub blocks: Vec<Block>,
    /// The Markdown the Doc was read from, verbatim, where the provider's output was Markdown
    /// (the Markdown importer sets it). Suites that score Markdown itself (olmOCR-bench's unit
    /// tests) read this; for other outputs they render the blocks with `Doc::to_markdown`.
    /// Absent from the JSON when `None`, so Docs stored before it existed read unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// What the provider knows of the paper's header beyond its blocks (authors, keywords):
    /// structured outputs (GROBID TEI, a truth rendered as a Doc) have it, text-layer
    /// providers do not. Absent from the JSON when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<DocMeta>,
}

/// Header fields of a paper that are not blocks of their own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocMeta {
    /// The paper's authors' names as printed (`Hanna Berg`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// The authors' surnames where the source marks them (`None` where it gives names only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surnames: Option<Vec<String>>,
    /// The paper's keywords, one per entry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

/// One reference-list entry with its fields, as far as its source knows them.
///
/// The paper suite reads every source's references into this shape; a `reference` block
/// carries one where its provider knows the structure (GROBID's `biblStruct`, a truth rendered
/// as a Doc), so that the fields are never guessed back from the entry's text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The title of the work (the article or chapter; a book's own title where there is no
    /// article title).
    pub title: Option<String>,
    /// The authors' names as printed (a stray trailing `.` may remain).
    pub authors: Vec<String>,
    /// The authors' surnames where the source marks them (`None` where it gives names only,
    /// and then each author's last name is taken).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surnames: Option<Vec<String>>,
    /// The venue: the journal, proceedings or book that holds the work.
    pub venue: Option<String>,
    /// The year as cited, with its letter if any (`2016a`).
    pub year: Option<String>,
    /// The volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
    /// The issue (number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
    /// The first page (or article number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_page: Option<String>,
    /// The DOI, without a `doi:` or resolver prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
}

/// One page's size in PDF points (1/72 inch).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// Width in points.
    pub width: f32,
    /// Height in points.
    pub height: f32,
}

listed_enum! {
    /// What a block is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum BlockKind {
        /// The document title.
        Title,
        /// A section heading (with `level`).
        Heading,
        /// Body prose.
        Paragraph,
        /// One item of a list.
        ListItem,
        /// A figure or table caption (`Table 1: ...`).
        Caption,
        /// A table (with `table`).
        Table,
        /// A display formula (text, and `latex` where known).
        Formula,
        /// A picture.
        Figure,
        /// Running header at the top of a page.
        PageHeader,
        /// Running footer or page number at the bottom of a page.
        PageFooter,
        /// A footnote.
        Footnote,
        /// One entry of the reference list.
        Reference,
        /// Program code.
        Code,
    }
}

impl BlockKind {
    /// Returns the kind's name as stored in JSON (`page_header`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Title => "title",
            BlockKind::Heading => "heading",
            BlockKind::Paragraph => "paragraph",
            BlockKind::ListItem => "list_item",
            BlockKind::Caption => "caption",
            BlockKind::Table => "table",
            BlockKind::Formula => "formula",
            BlockKind::Figure => "figure",
            BlockKind::PageHeader => "page_header",
            BlockKind::PageFooter => "page_footer",
            BlockKind::Footnote => "footnote",
            BlockKind::Reference => "reference",
            BlockKind::Code => "code",
        }
    }
}

impl std::fmt::Display for BlockKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An axis-aligned box in PDF points, origin at the page's top-left corner, y growing down.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BBox {
    /// Left edge.
    pub x0: f32,
    /// Top edge.
    pub y0: f32,
    /// Right edge.
    pub x1: f32,
    /// Bottom edge.
    pub y1: f32,
}

impl BBox {
    /// Returns a box from its edges.
    pub fn new(x0: f32, y0: f32, x1: f32, y1: f32) -> BBox {
        BBox { x0, y0, x1, y1 }
    }

    /// Returns the width (never negative).
    pub fn width(&self) -> f32 {
        (self.x1 - self.x0).max(0.0)
    }

    /// Returns the height (never negative).
    pub fn height(&self) -> f32 {
        (self.y1 - self.y0).max(0.0)
    }

    /// Returns the area (never negative).
    pub(crate) fn area(&self) -> f32 {
        self.width() * self.height()
    }

    /// Returns the area the two boxes share (0 when they do not meet).
    pub(crate) fn overlap(&self, o: &BBox) -> f32 {
        let w = self.x1.min(o.x1) - self.x0.max(o.x0);
        let h = self.y1.min(o.y1) - self.y0.max(o.y0);
        if w <= 0.0 || h <= 0.0 {
            0.0
        } else {
            w * h
        }
    }

    /// Returns the smallest box that holds both.
    pub(crate) fn union(&self, o: &BBox) -> BBox {
        BBox {
            x0: self.x0.min(o.x0),
            y0: self.y0.min(o.y0),
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
        }
    }
}

/// One block of a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// What the block is.
    pub kind: BlockKind,
    /// Zero-based page index.
    pub page: u32,
    /// Where it is on the page.
    pub bbox: BBox,
    /// Its plain text (for tables, the cells flattened row by row).
    pub text: String,
    /// Heading level (1 = section, 2 = subsection, ...), for headings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// Cell structure, for tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Table>,
    /// LaTeX source, for formulas where the provider knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latex: Option<String>,
    /// The entry's fields, for reference blocks whose provider knows them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Box<Reference>>,
    /// The class the source gave the block in its own vocabulary, as `vocabulary:label`
    /// (`omnidocbench:table_caption`), where it is finer than `kind`: the detection suite maps
    /// it with that vocabulary's class map (`classes/`, `docs/detection.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The source's confidence in the block, where it gives one (the detection suite ranks by
    /// it; a block without one counts as 1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

impl Block {
    /// Returns a block with no level, table, LaTeX or reference fields.
    pub fn new(kind: BlockKind, page: u32, bbox: BBox, text: impl Into<String>) -> Block {
        Block {
            kind,
            page,
            bbox,
            text: text.into(),
            level: None,
            table: None,
            latex: None,
            reference: None,
            label: None,
            confidence: None,
        }
    }
}

/// A table's cell structure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Number of grid rows.
    pub rows: u32,
    /// Number of grid columns.
    pub cols: u32,
    /// The cells, each anchored at its top-left grid position.
    pub cells: Vec<Cell>,
}

/// One table cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Zero-based grid row of the cell's top-left corner.
    pub row: u32,
    /// Zero-based grid column of the cell's top-left corner.
    pub col: u32,
    /// Rows spanned (at least 1).
    pub row_span: u32,
    /// Columns spanned (at least 1).
    pub col_span: u32,
    /// The cell's text.
    pub text: String,
    /// Whether the cell is a header cell.
    #[serde(default)]
    pub header: bool,
}

impl Table {
    /// A table of one-slot cells from rows of texts, the first `header_rows` rows marked as
    /// header: the tables tests write by hand.
    #[cfg(test)]
    pub(crate) fn from_rows(rows: &[&[&str]], header_rows: usize) -> Table {
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, text) in row.iter().enumerate() {
                cells.push(Cell {
                    row: r as u32,
                    col: c as u32,
                    row_span: 1,
                    col_span: 1,
                    text: text.to_string(),
                    header: r < header_rows,
                });
            }
        }
        let cols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        Table { rows: rows.len() as u32, cols: cols as u32, cells }
    }

    /// Drops grid rows and columns in which no cell has text, shrinking spans across them;
    /// cells left covering nothing go too.
    pub(crate) fn compact(cells: Vec<Cell>) -> Table {
        let rows = cells.iter().map(|c| c.row + c.row_span).max().unwrap_or(0) as usize;
        let cols = cells.iter().map(|c| c.col + c.col_span).max().unwrap_or(0) as usize;
        let mut row_used = vec![false; rows];
        let mut col_used = vec![false; cols];
        for c in cells.iter().filter(|c| !c.text.is_empty()) {
            row_used[c.row as usize..(c.row + c.row_span) as usize]
                .iter_mut()
                .for_each(|u| *u = true);
            col_used[c.col as usize..(c.col + c.col_span) as usize]
                .iter_mut()
                .for_each(|u| *u = true);
        }
        let remap = |used: &[bool]| -> Vec<u32> {
            let mut n = 0;
            used.iter()
                .map(|&u| {
                    let i = n;
                    n += u32::from(u);
                    i
                })
                .collect()
        };
        let (rmap, cmap) = (remap(&row_used), remap(&col_used));
        let count = |used: &[bool], from: u32, span: u32| {
            used[from as usize..(from + span) as usize].iter().filter(|&&u| u).count() as u32
        };
        let cells: Vec<Cell> = cells
            .into_iter()
            .filter_map(|c| {
                let rs = count(&row_used, c.row, c.row_span);
                let cs = count(&col_used, c.col, c.col_span);
                // A cell whose anchor row or column went keeps its place at the next one used.
                (rs > 0 && cs > 0).then(|| Cell {
                    row: rmap[c.row as usize],
                    col: cmap[c.col as usize],
                    row_span: rs,
                    col_span: cs,
                    ..c
                })
            })
            .collect();
        let rows = row_used.iter().filter(|&&u| u).count() as u32;
        let cols = col_used.iter().filter(|&&u| u).count() as u32;
        Table { rows, cols, cells }
    }

    /// Returns the cells' text in row then column order: cells joined by spaces, rows by
    /// newlines (what a table block's `text` holds).
    pub(crate) fn flat_text(&self) -> String {
        let mut cells: Vec<&Cell> = self.cells.iter().collect();
        cells.sort_by_key(|c| (c.row, c.col));
        let mut out = String::new();
        let mut row = None;
        for c in cells {
            if c.text.is_empty() {
                continue;
            }
            match row {
                Some(r) if r == c.row => out.push(' '),
                Some(_) => out.push('\n'),
                None => {}
            }
            row = Some(c.row);
            out.push_str(&c.text);
        }
        out
    }
}

impl Doc {
    /// Returns the Markdown a Markdown-reading suite scores: the imported file verbatim where
    /// there is one, else the blocks rendered by `Doc::to_markdown`.
    pub fn markdown(&self) -> String {
        self.markdown.clone().unwrap_or_else(|| self.to_markdown())
    }

    /// Returns the blocks' text joined by blank lines, with `#` marks before headings.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for b in &self.blocks {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            match b.kind {
                BlockKind::Title => out.push_str("# "),
                BlockKind::Heading => {
                    for _ in 0..=b.level.unwrap_or(1) {
                        out.push('#');
                    }
                    out.push(' ');
                }
                _ => {}
            }
            out.push_str(&b.text);
        }
        out.push('\n');
        out
    }

    /// Renders the blocks as Markdown: the title as `#`, headings as `#` repeated level + 1
    /// times (as [`Doc::to_text`] marks them), list items as `- `, code fenced, formulas as
    /// `$$..$$` (their LaTeX where known), tables as pipe tables, or as HTML tables where a
    /// cell spans several rows or columns; figures without text are left out.
    pub(crate) fn to_markdown(&self) -> String {
        self.render_markdown(|_| true)
    }

    /// `Doc::to_markdown` of the blocks on one page (zero-based).
    pub fn page_markdown(&self, page: u32) -> String {
        self.render_markdown(|b| b.page == page)
    }

    fn render_markdown(&self, keep: impl Fn(&Block) -> bool) -> String {
        let mut parts: Vec<String> = Vec::new();
        for b in self.blocks.iter().filter(|b| keep(b)) {
            let text = b.text.trim();
            let part = match b.kind {
                BlockKind::Title => format!("# {text}"),
                BlockKind::Heading => {
                    let n = (usize::from(b.level.unwrap_or(1)) + 1).min(6);
                    format!("{} {text}", "#".repeat(n))
                }
                BlockKind::ListItem => format!("- {text}"),
                BlockKind::Code => format!("```\n{}\n```", b.text.trim_end_matches('\n')),
                BlockKind::Formula => {
                    format!("$${}$$", b.latex.as_deref().unwrap_or(text).trim())
                }
                BlockKind::Table => match &b.table {
                    Some(t) if !t.cells.is_empty() => t.to_markdown(),
                    _ => text.to_string(),
                },
                _ => text.to_string(),
            };
            if !part.trim().is_empty() {
                parts.push(part);
            }
        }
        let mut out = parts.join("\n\n");
        out.push('\n');
        out
    }
}

impl Table {
    /// Renders the table as a Markdown pipe table (the first row as its header), or as an HTML
    /// `<table>` (with `rowspan`/`colspan`, header cells as `<th>`) when a cell spans.
    pub(crate) fn to_markdown(&self) -> String {
        let spans = self.cells.iter().any(|c| c.row_span > 1 || c.col_span > 1);
        if spans {
            return self.to_html();
        }
        let rows = self.rows.max(self.cells.iter().map(|c| c.row + 1).max().unwrap_or(0));
        let cols = self.cols.max(self.cells.iter().map(|c| c.col + 1).max().unwrap_or(0));
        let mut grid = vec![vec![String::new(); cols as usize]; rows as usize];
        for c in &self.cells {
            let t = c.text.split_whitespace().collect::<Vec<_>>().join(" ");
            grid[c.row as usize][c.col as usize] = t.replace('|', "\\|");
        }
        let line = |cells: &[String]| format!("| {} |", cells.join(" | "));
        let mut out: Vec<String> = Vec::new();
        for (i, r) in grid.iter().enumerate() {
            out.push(line(r));
            if i == 0 {
                out.push(line(&vec!["---".to_string(); cols as usize]));
            }
        }
        out.join("\n")
    }

    /// Renders the table as HTML, rows in order, each cell at its anchor row.
    pub fn to_html(&self) -> String {
        let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        let mut cells: Vec<&Cell> = self.cells.iter().collect();
        cells.sort_by_key(|c| (c.row, c.col));
        let rows = self.rows.max(cells.iter().map(|c| c.row + 1).max().unwrap_or(0));
        let mut out = String::from("<table>");
        for r in 0..rows {
            out.push_str("<tr>");
            for c in cells.iter().filter(|c| c.row == r) {
                let tag = if c.header { "th" } else { "td" };
                out.push('<');
                out.push_str(tag);
                if c.row_span > 1 {
                    out.push_str(&format!(" rowspan=\"{}\"", c.row_span));
                }
                if c.col_span > 1 {
                    out.push_str(&format!(" colspan=\"{}\"", c.col_span));
                }
                out.push('>');
                out.push_str(&esc(&c.text));
                out.push_str(&format!("</{tag}>"));
            }
            out.push_str("</tr>");
        }
        out.push_str("</table>");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_serialize_as_snake_case_names() {
        for k in BlockKind::ALL {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
            let back: BlockKind = serde_json::from_str(&json).unwrap();
            assert_eq!(back, k);
        }
    }

    #[test]
    fn doc_round_trips_through_json() {
        let mut b = Block::new(BlockKind::Table, 1, BBox::new(1.0, 2.0, 3.0, 4.0), "a b");
        b.table = Some(Table {
            rows: 1,
            cols: 2,
            cells: vec![
                Cell { row: 0, col: 0, row_span: 1, col_span: 1, text: "a".into(), header: true },
                Cell { row: 0, col: 1, row_span: 1, col_span: 1, text: "b".into(), header: false },
            ],
        });
        let doc = Doc {
            pages: vec![Page { width: 612.0, height: 792.0 }],
            blocks: vec![b],
            markdown: None,
            meta: None,
        };
        let json = serde_json::to_string(&doc).unwrap();
        assert!(!json.contains("markdown"), "{json}");
        assert_eq!(serde_json::from_str::<Doc>(&json).unwrap(), doc);
        let with_md = Doc { markdown: Some("| a | b |".into()), ..doc };
        let json = serde_json::to_string(&with_md).unwrap();
        assert_eq!(serde_json::from_str::<Doc>(&json).unwrap(), with_md);
    }

    fn cell(row: u32, col: u32, span: (u32, u32), text: &str) -> Cell {
        Cell { row, col, row_span: span.0, col_span: span.1, text: text.into(), header: row == 0 }
    }

    #[test]
    fn markdown_renders_headings_formulas_and_both_table_forms() {
        let mut h = Block::new(BlockKind::Heading, 0, BBox::default(), "Intro");
        h.level = Some(1);
        let mut f = Block::new(BlockKind::Formula, 0, BBox::default(), "x2");
        f.latex = Some("x^2".into());
        let mut t = Block::new(BlockKind::Table, 1, BBox::default(), "a b 1 2");
        t.table = Some(Table {
            rows: 2,
            cols: 2,
            cells: vec![
                cell(0, 0, (1, 1), "a"),
                cell(0, 1, (1, 1), "b|c"),
                cell(1, 0, (1, 1), "1"),
                cell(1, 1, (1, 1), "2"),
            ],
        });
        let doc = Doc {
            pages: Vec::new(),
            blocks: vec![
                Block::new(BlockKind::Title, 0, BBox::default(), "T"),
                h,
                Block::new(BlockKind::ListItem, 0, BBox::default(), "item"),
                f,
                t.clone(),
            ],
            markdown: None,
            meta: None,
        };
        assert_eq!(
            doc.to_markdown(),
            "# T\n\n## Intro\n\n- item\n\n$$x^2$$\n\n| a | b\\|c |\n| --- | --- |\n| 1 | 2 |\n"
        );
        assert_eq!(doc.page_markdown(0), "# T\n\n## Intro\n\n- item\n\n$$x^2$$\n");
        let mut spans = t.table.clone().unwrap();
        spans.cells =
            vec![cell(0, 0, (1, 2), "a<b"), cell(1, 0, (1, 1), "1"), cell(1, 1, (1, 1), "2")];
        assert_eq!(
            spans.to_markdown(),
            "<table><tr><th colspan=\"2\">a&lt;b</th></tr><tr><td>1</td><td>2</td></tr></table>"
        );
    }
}
