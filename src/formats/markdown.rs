//! Markdown (Marker, MinerU, Docling, olmOCR, VLM outputs) into a [`Doc`], by `pulldown-cmark`.
//!
//! - ATX and setext headings: the first level-1 heading is the title, other `#` headings are
//!   level-1 headings and `##`… are levels 2…, shifted by one (`##` = section, as Docling
//!   writes them).
//! - paragraphs, list items (one block each), block quotes (as paragraphs), fenced and
//!   indented code;
//! - pipe tables (the first row is the header) and HTML `<table>` blocks with
//!   `rowspan`/`colspan` (see [`super::html`]);
//! - display math (`$$..$$`, `\[..\]`) becomes a formula block whose text is the LaTeX in
//!   plain Unicode; inline math (`$..$`, `\(..\)`) is turned into plain Unicode in place;
//! - images are dropped with their alt text, HTML comments are removed, other inline HTML
//!   keeps its text.
//!
//! Markdown has no geometry: every block gets an empty box on the page it was given.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::html;
use crate::doc::{BBox, Block, BlockKind, Cell, Doc, Table};
use crate::normalize::{collapse_ws, latex_to_plain};

/// Reads one Markdown file as the blocks of page `page` (zero-based).
///
/// The Doc keeps the file's text verbatim in [`Doc::markdown`].
pub(crate) fn read_markdown(raw: &str, page: u32) -> Doc {
    let src = bracket_math_to_dollars(raw);
    let opts = Options::ENABLE_TABLES | Options::ENABLE_MATH | Options::ENABLE_STRIKETHROUGH;
    let mut r = Reader { page, ..Default::default() };
    for ev in Parser::new_ext(&src, opts) {
        r.event(ev);
    }
    r.flush();
    Doc { pages: Vec::new(), blocks: r.blocks, markdown: Some(raw.to_string()), meta: None }
}

/// Reads Markdown whose pages are separated by form feeds (`\f`, as pdftotext separates
/// them and parser presets join pages): the part after the k-th form feed is page
/// `first_page + k`. The title rule holds across pages: a `#` heading is the title only if no
/// heading came before it on an earlier page. The Doc keeps the whole text in
/// [`Doc::markdown`].
pub(crate) fn read_markdown_pages(raw: &str, first_page: u32) -> Doc {
    let mut blocks: Vec<Block> = Vec::new();
    for (i, part) in raw.split('\u{c}').enumerate() {
        let seen = blocks.iter().any(|b| matches!(b.kind, BlockKind::Title | BlockKind::Heading));
        for mut b in read_markdown(part, first_page + i as u32).blocks {
            if seen && b.kind == BlockKind::Title {
                b.kind = BlockKind::Heading;
                b.level = Some(1);
            }
            blocks.push(b);
        }
    }
    Doc { pages: Vec::new(), blocks, markdown: Some(raw.to_string()), meta: None }
}

/// Rewrites `\[..\]` as `$$..$$` and `\(..\)` as `$..$`, which is how pulldown-cmark spells
/// math (it would otherwise read `\[` as an escaped bracket).
fn bracket_math_to_dollars(src: &str) -> String {
    if !src.contains("\\[") && !src.contains("\\(") {
        return src.to_string();
    }
    let mut out = String::with_capacity(src.len() + 16);
    let mut rest = src;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let pair = if tail.starts_with("\\[") {
            Some(("\\]", "$$"))
        } else if tail.starts_with("\\(") {
            Some(("\\)", "$"))
        } else {
            None
        };
        match pair.and_then(|(close, d)| tail[2..].find(close).map(|j| (j, close, d))) {
            Some((j, close, d)) => {
                out.push_str(d);
                out.push_str(tail[2..2 + j].trim());
                out.push_str(d);
                rest = &tail[2 + j + close.len()..];
            }
            None => {
                let n = tail.chars().next().map_or(1, char::len_utf8);
                let m = tail[n..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&tail[..n + m]);
                rest = &tail[n + m..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[derive(Default)]
struct Reader {
    page: u32,
    blocks: Vec<Block>,
    /// Text of the block being read.
    buf: String,
    /// Kind and level of the block being read.
    kind: Option<(BlockKind, Option<u8>)>,
    seen_title: bool,
    image_depth: u32,
    item_depth: u32,
    code: Option<String>,
    html: Option<String>,
    table: Option<TableBuf>,
}

#[derive(Default)]
struct TableBuf {
    rows: Vec<Vec<(String, bool)>>,
    in_head: bool,
    cell: Option<String>,
}

impl Reader {
    fn push(&mut self, kind: BlockKind, level: Option<u8>, text: String) {
        let mut b = Block::new(kind, self.page, BBox::default(), text);
        b.level = level;
        self.blocks.push(b);
    }

    /// Ends the text block being read, if any.
    fn flush(&mut self) {
        let text = collapse_ws(&std::mem::take(&mut self.buf));
        let kind = self.kind.take();
        if text.is_empty() {
            return;
        }
        let (kind, level) = kind.unwrap_or((BlockKind::Paragraph, None));
        self.push(kind, level, text);
    }

    fn begin(&mut self, kind: BlockKind, level: Option<u8>) {
        self.flush();
        self.kind = Some((kind, level));
    }

    fn text(&mut self, s: &str) {
        if self.image_depth > 0 {
            return;
        }
        if let Some(c) = &mut self.code {
            c.push_str(s);
        } else if let Some(cell) = self.table.as_mut().and_then(|t| t.cell.as_mut()) {
            cell.push_str(s);
        } else {
            self.buf.push_str(s);
        }
    }

    fn formula(&mut self, latex: &str) {
        if let Some(cell) = self.table.as_mut().and_then(|t| t.cell.as_mut()) {
            cell.push_str(&latex_to_plain(latex));
            return;
        }
        // A display formula ends the paragraph it interrupts; the text after it starts a new
        // block of the same kind.
        let kind = self.kind;
        self.flush();
        let mut b =
            Block::new(BlockKind::Formula, self.page, BBox::default(), latex_to_plain(latex));
        b.latex = Some(latex.trim().to_string());
        self.blocks.push(b);
        self.kind = kind;
    }

    fn html_block(&mut self, src: &str) {
        let src = strip_comments(src);
        if src.to_ascii_lowercase().contains("<table") {
            for t in html::tables(&src) {
                self.push_table(t);
            }
        } else {
            let text = html::text(&src);
            if !text.is_empty() {
                self.push(BlockKind::Paragraph, None, text);
            }
        }
    }

    fn push_table(&mut self, t: Table) {
        let mut b = Block::new(BlockKind::Table, self.page, BBox::default(), t.flat_text());
        b.table = Some(t);
        self.blocks.push(b);
    }

    fn event(&mut self, ev: Event<'_>) {
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(s) | Event::Code(s) => self.text(&s),
            Event::InlineMath(s) => {
                let plain = latex_to_plain(&s);
                self.text(&plain);
            }
            Event::DisplayMath(s) => self.formula(&s),
            Event::Html(s) => match &mut self.html {
                Some(h) => h.push_str(&s),
                None => self.html_block(&s),
            },
            Event::InlineHtml(s) => {
                let lower = s.to_ascii_lowercase();
                if lower.starts_with("<br") {
                    self.text(" ");
                }
            }
            Event::SoftBreak | Event::HardBreak => self.text(" "),
            Event::Rule => self.flush(),
            Event::FootnoteReference(s) => self.text(&s),
            Event::TaskListMarker(_) => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                let (kind, lvl) = match level {
                    HeadingLevel::H1 if !self.seen_title => (BlockKind::Title, None),
                    HeadingLevel::H1 => (BlockKind::Heading, Some(1)),
                    other => (BlockKind::Heading, Some(other as u8 - 1)),
                };
                self.seen_title = true;
                self.begin(kind, lvl);
            }
            Tag::Paragraph if self.item_depth == 0 && self.table.is_none() => {
                self.begin(BlockKind::Paragraph, None);
            }
            Tag::Item => {
                self.item_depth += 1;
                self.begin(BlockKind::ListItem, None);
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let lang = match &kind {
                    CodeBlockKind::Fenced(l) => l.to_ascii_lowercase(),
                    CodeBlockKind::Indented => String::new(),
                };
                // A fence marked as Markdown, HTML or LaTeX wraps content, not code.
                if matches!(lang.as_str(), "markdown" | "md" | "html" | "latex") {
                    self.code = Some(format!("\u{0}{lang}\u{0}"));
                } else {
                    self.code = Some(String::new());
                }
            }
            Tag::HtmlBlock => {
                self.flush();
                self.html = Some(String::new());
            }
            Tag::Table(_) => {
                self.flush();
                self.table = Some(TableBuf::default());
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = true;
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.cell = Some(String::new());
                }
            }
            Tag::Image { .. } => self.image_depth += 1,
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) | TagEnd::Paragraph if self.item_depth == 0 => self.flush(),
            TagEnd::Paragraph => self.text(" "),
            TagEnd::Item => {
                self.flush();
                self.item_depth = self.item_depth.saturating_sub(1);
                if self.item_depth > 0 {
                    self.kind = Some((BlockKind::ListItem, None));
                }
            }
            TagEnd::CodeBlock => {
                let code = self.code.take().unwrap_or_default();
                if let Some(rest) = code.strip_prefix('\u{0}') {
                    // Re-read a wrapped fence's content as Markdown.
                    let body = rest.split_once('\u{0}').map_or("", |(_, b)| b);
                    let inner = read_markdown(body, self.page);
                    self.blocks.extend(inner.blocks);
                } else {
                    let code = code.trim_end_matches('\n').to_string();
                    if !code.trim().is_empty() {
                        self.push(BlockKind::Code, None, code);
                    }
                }
            }
            TagEnd::HtmlBlock => {
                let h = self.html.take().unwrap_or_default();
                self.html_block(&h);
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = false;
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let head = t.in_head;
                    let text = collapse_ws(&t.cell.take().unwrap_or_default());
                    if let Some(row) = t.rows.last_mut() {
                        row.push((text, head));
                    }
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.push_table(grid(t.rows));
                }
            }
            TagEnd::Image => self.image_depth = self.image_depth.saturating_sub(1),
            _ => {}
        }
    }
}

fn grid(rows: Vec<Vec<(String, bool)>>) -> Table {
    let rows: Vec<_> = rows.into_iter().filter(|r| !r.is_empty()).collect();
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let mut cells = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, (text, header)) in row.iter().enumerate() {
            cells.push(Cell {
                row: r as u32,
                col: c as u32,
                row_span: 1,
                col_span: 1,
                text: text.clone(),
                header: *header,
            });
        }
    }
    Table { rows: rows.len() as u32, cols, cells }
}

/// Removes `<!-- ... -->` comments (an unclosed one runs to the end).
pub(crate) fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        rest = rest[i + 4..].find("-->").map_or("", |j| &rest[i + 4 + j + 3..]);
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(d: &Doc) -> Vec<BlockKind> {
        d.blocks.iter().map(|b| b.kind).collect()
    }

    #[test]
    fn form_feeds_are_pages_and_the_title_rule_spans_them() {
        let d = read_markdown_pages("# Paper\n\nOne.\u{c}# Methods\n\nTwo.", 3);
        let got: Vec<(BlockKind, u32, Option<u8>)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.level)).collect();
        use BlockKind::*;
        assert_eq!(
            got,
            [(Title, 3, None), (Paragraph, 3, None), (Heading, 4, Some(1)), (Paragraph, 4, None)]
        );
        assert_eq!(d.markdown.as_deref(), Some("# Paper\n\nOne.\u{c}# Methods\n\nTwo."));
    }

    #[test]
    fn headings_paragraphs_lists_and_code() {
        let d = read_markdown(
            "# Title\n\nIntro *text*\nwraps.\n\n## 1 Intro\n\n- one\n- two\n\n```\nx = 1\n```\n\n# Late\n",
            0,
        );
        use BlockKind::*;
        assert_eq!(kinds(&d), [Title, Paragraph, Heading, ListItem, ListItem, Code, Heading]);
        assert_eq!(d.blocks[1].text, "Intro text wraps.");
        assert_eq!((d.blocks[2].text.as_str(), d.blocks[2].level), ("1 Intro", Some(1)));
        assert_eq!(d.blocks[6].level, Some(1));
        assert_eq!(d.blocks[5].text, "x = 1");
    }

    #[test]
    fn pipe_tables_keep_cells_and_header() {
        let d = read_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |  |\n", 2);
        let t = d.blocks[0].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols, t.cells.len()), (3, 2, 6));
        assert!(t.cells[0].header && !t.cells[2].header);
        assert_eq!(d.blocks[0].text, "a b\n1 2\n3");
        assert_eq!(d.blocks[0].page, 2);
    }

    #[test]
    fn html_tables_with_colspan_survive() {
        let d = read_markdown(
            "Before.\n\n<table><tr><td colspan=\"2\">wide</td></tr><tr><td>a</td><td>b</td></tr></table>\n\nAfter.\n",
            0,
        );
        use BlockKind::*;
        assert_eq!(kinds(&d), [Paragraph, Table, Paragraph]);
        let t = d.blocks[1].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols), (2, 2));
        assert_eq!(t.cells[0].col_span, 2);
    }

    #[test]
    fn math_images_and_comments() {
        let d = read_markdown(
            "Let $r_i = \\sigma(x_i)$ hold.\n\n$$\\frac{a}{b}$$\n\n\\[ x^2 \\]\n\n![alt text](img.png)\n\n<!-- page 2 -->\n\nEnd \\(\\alpha\\).\n",
            0,
        );
        use BlockKind::*;
        assert_eq!(kinds(&d), [Paragraph, Formula, Formula, Paragraph]);
        assert_eq!(d.blocks[0].text, "Let ri = σ(xi) hold.");
        assert_eq!(d.blocks[1].text, "a/b");
        assert_eq!(d.blocks[1].latex.as_deref(), Some("\\frac{a}{b}"));
        assert_eq!(d.blocks[2].latex.as_deref(), Some("x^2"));
        assert_eq!(d.blocks[3].text, "End α.");
    }

    #[test]
    fn wrapped_fences_are_read_as_markdown() {
        let d = read_markdown("```markdown\n# T\n\nbody\n```\n", 0);
        assert_eq!(kinds(&d), [BlockKind::Title, BlockKind::Paragraph]);
    }

    #[test]
    fn comments_are_stripped() {
        assert_eq!(strip_comments("a<!-- x -->b<!-- open"), "ab");
    }
}
