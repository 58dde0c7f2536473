//! Typesets a [`Source`] as a two-column paper on US Letter pages.
//!
//! Everything below the title block sits on one grid of line slots (12 pt apart), so body
//! lines of the two columns align and review line numbers can be set one per slot. Text flows
//! top to bottom in the left column, then the right column, then onto the next page. Headings
//! keep with the line after them and a table never splits; neither ever floats, so the
//! printed order is the source order.

use crate::doc::{BBox, Block, BlockKind, Cell, Doc, Page, Table};

use super::pdf::{self, Font, Pdf, PdfPage, ASCENT_EM, CHAR_WIDTH_EM, DESCENT_EM};
use super::source::{clean, HeadingStyle, Item, Source, TableSource};

const PAGE_W: f32 = 612.0;
const PAGE_H: f32 = 792.0;
/// Body font size; the column holds [`COL_CHARS`] chars of it.
const BODY: f32 = 10.0;
const COL_CHARS: usize = 36;
const COL_W: f32 = COL_CHARS as f32 * CHAR_WIDTH_EM * BODY;
const GUTTER: f32 = 24.0;
const LEFT: f32 = (PAGE_W - 2.0 * COL_W - GUTTER) / 2.0;
const COL_X: [f32; 2] = [LEFT, LEFT + COL_W + GUTTER];
/// Top of the slot grid and distance between slots.
const TOP: f32 = 72.0;
const LEAD: f32 = 12.0;
/// Slots per column: the grid fills the page down to a 72 pt bottom margin.
const SLOTS: usize = ((PAGE_H - 2.0 * TOP) / LEAD) as usize;
/// Baseline of a slot's text, below the slot's top.
const BASELINE: f32 = 9.0;
const HEADING: f32 = 11.0;
const SUBHEADING: f32 = 10.0;
const SMALL: f32 = 9.0;
const TITLE: f32 = 15.0;
const LINE_NUMBER: f32 = 7.0;
/// Paragraph indent and reference hanging indent, in chars.
const INDENT: usize = 2;

/// A typeset paper.
pub(crate) struct Typeset {
    /// The PDF file.
    pub pdf: Vec<u8>,
    /// The blocks as laid out, in reading order, with their boxes.
    pub doc: Doc,
    /// The review line numbers, in order (empty unless the source is a review submission).
    pub line_numbers: Vec<String>,
}

/// One wrapped line.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    text: String,
    /// Whether it ends with a hyphen that the line breaker added inside a word.
    hyphen: bool,
}

/// Returns the lines of `text` broken greedily: the first line `first` chars wide at most, the
/// others `rest`. A word too long for the line is hyphenated at one of its soft hyphens where
/// that fits, else moved whole to the next line; soft hyphens never show.
fn wrap(text: &str, first: usize, rest: usize) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    let width = |lines: &Vec<Line>| if lines.is_empty() { first } else { rest };
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        loop {
            let shown = clean(&word);
            let sep = usize::from(!cur.is_empty());
            let room = width(&lines);
            if cur.chars().count() + sep + shown.chars().count() <= room {
                if sep == 1 {
                    cur.push(' ');
                }
                cur.push_str(&shown);
                break;
            }
            // Try the last soft hyphen whose prefix (plus its hyphen) still fits.
            let split =
                word.match_indices('\u{AD}').map(|(i, _)| i).rev().find(|&i| {
                    cur.chars().count() + sep + clean(&word[..i]).chars().count() < room
                });
            if let Some(i) = split {
                if sep == 1 {
                    cur.push(' ');
                }
                cur.push_str(&clean(&word[..i]));
                cur.push('-');
                lines.push(Line { text: std::mem::take(&mut cur), hyphen: true });
                word = word[i + '\u{AD}'.len_utf8()..].to_string();
                continue;
            }
            if cur.is_empty() {
                // Longer than a whole line: let it overflow rather than loop.
                cur = shown;
                break;
            }
            lines.push(Line { text: std::mem::take(&mut cur), hyphen: false });
        }
    }
    if !cur.is_empty() {
        lines.push(Line { text: cur, hyphen: false });
    }
    lines
}

/// Returns the text of consecutive lines as one string, undoing the breaker's hyphens.
fn join(lines: &[Line]) -> String {
    let mut out = String::new();
    let mut glue = false;
    for l in lines {
        if glue {
            out.pop();
        } else if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&l.text);
        glue = l.hyphen;
    }
    out
}

/// Returns the box of a line of `chars` chars with its baseline at `(x, y)`, y down.
fn line_box(x: f32, y: f32, chars: usize, size: f32) -> BBox {
    let w = chars as f32 * CHAR_WIDTH_EM * size;
    BBox::new(x, y - ASCENT_EM * size, x + w, y + DESCENT_EM * size)
}

/// Where a slot is: page, column, slot index.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pos {
    page: usize,
    col: usize,
    slot: usize,
}

impl Pos {
    fn top(&self) -> f32 {
        TOP + self.slot as f32 * LEAD
    }

    fn baseline(&self) -> f32 {
        self.top() + BASELINE
    }
}

/// How one run of lines is set: font, size, indent of its first and other lines (in chars of
/// its own size), and the kind of block it makes.
struct Style {
    font: Font,
    size: f32,
    first_indent: usize,
    rest_indent: usize,
    kind: BlockKind,
    level: Option<u8>,
}

struct Engine {
    pages: Vec<PdfPage>,
    blocks: Vec<Block>,
    pos: Pos,
    /// First free slot of page 0's columns, below the title block.
    first_slot: usize,
    header: String,
}

impl Engine {
    fn new(header: String) -> Engine {
        let mut e = Engine {
            pages: Vec::new(),
            blocks: Vec::new(),
            pos: Pos { page: 0, col: 0, slot: 0 },
            first_slot: 0,
            header,
        };
        e.new_page();
        e
    }

    /// Draws text at `(x, y)`, y measured down from the page top to the baseline.
    fn draw(&mut self, page: usize, font: Font, size: f32, x: f32, y: f32, text: &str) {
        let p = &mut self.pages[page];
        let h = p.height();
        p.text(font, size, x, h - y, text);
    }

    fn rule(&mut self, page: usize, x0: f32, x1: f32, y: f32) {
        let p = &mut self.pages[page];
        let h = p.height();
        p.line(x0, h - y, x1, h - y, 0.5);
    }

    fn block(&mut self, kind: BlockKind, page: usize, bbox: BBox, text: String) -> &mut Block {
        self.blocks.push(Block::new(kind, page as u32, bbox, text));
        let last = self.blocks.len() - 1;
        &mut self.blocks[last]
    }

    /// Draws a centred single line spanning the page, and records it as a block.
    fn centred(&mut self, font: Font, size: f32, y: f32, text: &str) -> BBox {
        let n = text.chars().count();
        let x = (PAGE_W - pdf::text_width(text, size)) / 2.0;
        let page = self.pos.page;
        self.draw(page, font, size, x, y, text);
        line_box(x, y, n, size)
    }

    fn new_page(&mut self) {
        let page = self.pages.len();
        self.pages.push(PdfPage::new(PAGE_W, PAGE_H));
        let header = self.header.clone();
        self.pos.page = page;
        let bbox = self.centred(Font::Oblique, 8.0, 50.0, &header);
        self.block(BlockKind::PageHeader, page, bbox, header);
    }

    fn footer(&mut self) {
        let text = (self.pos.page + 1).to_string();
        let bbox = self.centred(Font::Regular, BODY, PAGE_H - 45.0, &text);
        self.block(BlockKind::PageFooter, self.pos.page, bbox, text);
    }

    fn column_start(&self, page: usize) -> usize {
        if page == 0 {
            self.first_slot
        } else {
            0
        }
    }

    fn at_column_top(&self) -> bool {
        self.pos.slot == self.column_start(self.pos.page)
    }

    fn next_column(&mut self) {
        if self.pos.col == 0 {
            self.pos.col = 1;
        } else {
            self.footer();
            self.new_page();
            self.pos.col = 0;
        }
        self.pos.slot = self.column_start(self.pos.page);
    }

    /// Moves to the next column unless `n` slots are left in this one.
    fn ensure(&mut self, n: usize) {
        if self.pos.slot + n > SLOTS {
            self.next_column();
        }
    }

    /// Leaves one slot empty, except at the top of a column.
    fn blank(&mut self) {
        if !self.at_column_top() {
            self.pos.slot += 1;
        }
    }

    /// Returns the next free slot and takes it.
    fn take(&mut self) -> Pos {
        if self.pos.slot >= SLOTS {
            self.next_column();
        }
        let p = self.pos;
        self.pos.slot += 1;
        p
    }

    /// Sets `lines` one per slot in `style`, and records them as blocks: one block per column
    /// that the run touches.
    fn flow(&mut self, lines: &[Line], style: &Style) {
        let mut start = 0;
        let mut piece: Option<(Pos, BBox)> = None;
        for (i, line) in lines.iter().enumerate() {
            let pos = self.take();
            if let Some((p, bbox)) = piece {
                if (p.page, p.col) != (pos.page, pos.col) {
                    self.finish_piece(style, p.page, bbox, &lines[start..i]);
                    start = i;
                    piece = None;
                }
            }
            let indent = if i == 0 { style.first_indent } else { style.rest_indent };
            let x = COL_X[pos.col] + indent as f32 * CHAR_WIDTH_EM * style.size;
            let y = pos.baseline();
            self.draw(pos.page, style.font, style.size, x, y, &line.text);
            let b = line_box(x, y, line.text.chars().count(), style.size);
            piece = Some(match piece {
                Some((p, bbox)) => (p, bbox.union(&b)),
                None => (pos, b),
            });
        }
        if let Some((p, bbox)) = piece {
            self.finish_piece(style, p.page, bbox, &lines[start..]);
        }
    }

    fn finish_piece(&mut self, style: &Style, page: usize, bbox: BBox, lines: &[Line]) {
        let level = style.level;
        self.block(style.kind, page, bbox, join(lines)).level = level;
    }

    fn title_block(&mut self, src: &Source) {
        let mut y = 92.0;
        let mut bbox: Option<BBox> = None;
        let chars = (2.0 * COL_W + GUTTER) / (CHAR_WIDTH_EM * TITLE);
        for line in wrap(src.title, chars as usize, chars as usize) {
            let b = self.centred(Font::Bold, TITLE, y, &line.text);
            bbox = Some(bbox.map_or(b, |o| o.union(&b)));
            y += 18.0;
        }
        if let Some(b) = bbox {
            self.block(BlockKind::Title, 0, b, src.title.to_string());
        }
        let mut lines: Vec<(f32, String)> = Vec::new();
        if src.review {
            lines.push((11.0, "Anonymous ACL submission".to_string()));
        } else {
            lines.push((11.0, author_line(src.authors)));
            lines.push((BODY, src.affiliation.to_string()));
            lines.push((BODY, email_line(src.emails)));
        }
        y += 4.0;
        for (size, text) in lines {
            let b = self.centred(Font::Regular, size, y, &text);
            self.block(BlockKind::Paragraph, 0, b, text);
            y += size + 3.0;
        }
        self.first_slot = ((y + 6.0 - TOP) / LEAD).ceil() as usize;
        self.pos.slot = self.first_slot;
    }

    /// Sets a heading, moving to the next column unless it and the first `keep` slots of what
    /// follows it fit in this one.
    fn heading(&mut self, text: &str, level: u8, keep: usize) {
        self.blank();
        self.ensure(1 + keep);
        let size = if level == 1 { HEADING } else { SUBHEADING };
        let chars = (COL_W / (CHAR_WIDTH_EM * size)) as usize;
        let style = Style {
            font: Font::Bold,
            size,
            first_indent: 0,
            rest_indent: 0,
            kind: BlockKind::Heading,
            level: Some(level),
        };
        self.flow(&wrap(text, chars, chars), &style);
    }

    fn abstract_(&mut self, text: &str) {
        let pos = self.take();
        let head = "Abstract";
        let x = COL_X[pos.col] + (COL_W - pdf::text_width(head, HEADING)) / 2.0;
        self.draw(pos.page, Font::Bold, HEADING, x, pos.baseline(), head);
        let b = line_box(x, pos.baseline(), head.len(), HEADING);
        self.block(BlockKind::Heading, pos.page, b, head.to_string()).level = Some(1);
        let width = COL_CHARS - 2 * INDENT;
        let style = Style {
            font: Font::Regular,
            size: BODY,
            first_indent: INDENT,
            rest_indent: INDENT,
            kind: BlockKind::Paragraph,
            level: None,
        };
        self.flow(&wrap(text, width, width), &style);
    }

    fn paragraph(&mut self, text: &str, indent: bool) {
        let first = if indent { INDENT } else { 0 };
        let style = Style {
            font: Font::Regular,
            size: BODY,
            first_indent: first,
            rest_indent: 0,
            kind: BlockKind::Paragraph,
            level: None,
        };
        self.flow(&wrap(text, COL_CHARS - first, COL_CHARS), &style);
    }

    /// Sets a paragraph with a run-in heading: `head` (as printed) in `font` at the start of
    /// its first line, the text after it. Returns false, setting nothing, when the heading
    /// does not fit on the first line with a word of the text.
    fn run_in(&mut self, head: &str, font: Font, level: u8, text: &str, indent: bool) -> bool {
        let first = if indent { INDENT } else { 0 };
        let lead = head.chars().count() + 1;
        let lines = wrap(&format!("{head} {text}"), COL_CHARS - first, COL_CHARS);
        let Some(rest) = lines.first().and_then(|l| l.text.strip_prefix(&format!("{head} ")))
        else {
            return false;
        };
        let mut lines = lines.clone();
        lines[0].text = rest.to_string();
        if level == 1 {
            self.blank();
        }
        self.ensure(2);
        let pos = self.pos;
        let x = COL_X[pos.col] + first as f32 * CHAR_WIDTH_EM * BODY;
        self.draw(pos.page, font, BODY, x, pos.baseline(), head);
        let b = line_box(x, pos.baseline(), head.chars().count(), BODY);
        let shown = head.trim_end_matches('.');
        self.block(BlockKind::Heading, pos.page, b, shown.to_string()).level = Some(level);
        let style = Style {
            font: Font::Regular,
            size: BODY,
            first_indent: first + lead,
            rest_indent: 0,
            kind: BlockKind::Paragraph,
            level: None,
        };
        self.flow(&lines, &style);
        true
    }

    /// Returns the slots a table takes, without the blank slots around it.
    fn table_slots(t: &TableSource) -> usize {
        wrap(t.caption, COL_CHARS, COL_CHARS).len() + 1 + t.rows.len()
    }

    fn table(&mut self, t: &TableSource) {
        let caption = wrap(t.caption, COL_CHARS, COL_CHARS);
        self.blank();
        self.ensure(Engine::table_slots(t));
        let style = Style {
            font: Font::Regular,
            size: BODY,
            first_indent: 0,
            rest_indent: 0,
            kind: BlockKind::Caption,
            level: None,
        };
        self.flow(&caption, &style);

        let all: Vec<&[&str]> = std::iter::once(t.header).chain(t.rows.iter().copied()).collect();
        let cols = t.header.len();
        let widths: Vec<usize> = (0..cols)
            .map(|c| {
                all.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0)
            })
            .collect();
        let total = widths.iter().sum::<usize>() + 2 * (cols.saturating_sub(1));
        let w = total as f32 * CHAR_WIDTH_EM * SMALL;
        let mut bbox: Option<BBox> = None;
        let mut page = self.pos.page;
        let mut cells = Vec::new();
        let mut rows_text = Vec::new();
        let last = all.len() - 1;
        for (r, row) in all.iter().enumerate() {
            let pos = self.take();
            page = pos.page;
            let x0 = COL_X[pos.col] + (COL_W - w) / 2.0;
            let printed: Vec<String> = (0..cols)
                .map(|c| {
                    let s = row.get(c).copied().unwrap_or("");
                    if c == 0 {
                        format!("{s:<width$}", width = widths[c])
                    } else {
                        format!("{s:>width$}", width = widths[c])
                    }
                })
                .collect();
            let line = printed.join("  ");
            let font = if r == 0 { Font::Bold } else { Font::Regular };
            self.draw(pos.page, font, SMALL, x0, pos.baseline(), line.trim_end());
            let (rx0, rx1) = (x0 - 3.0, x0 + w + 3.0);
            if r == 0 {
                self.rule(pos.page, rx0, rx1, pos.top() + 1.5);
            }
            if r == 0 || r == last {
                self.rule(pos.page, rx0, rx1, pos.top() + LEAD - 0.5);
            }
            let b = line_box(x0, pos.baseline(), total, SMALL);
            bbox = Some(bbox.map_or(b, |o| o.union(&b)));
            for (c, s) in row.iter().enumerate() {
                cells.push(Cell {
                    row: r as u32,
                    col: c as u32,
                    row_span: 1,
                    col_span: 1,
                    text: s.to_string(),
                    header: r == 0,
                });
            }
            rows_text.push(row.join(" "));
        }
        if let Some(b) = bbox {
            let table = Table { rows: all.len() as u32, cols: cols as u32, cells };
            self.block(BlockKind::Table, page, b, rows_text.join("\n")).table = Some(table);
        }
        self.blank();
    }

    fn equation(&mut self, text: &str, number: usize, latex: &str) {
        self.blank();
        let pos = self.take();
        let x = COL_X[pos.col] + (COL_W - pdf::text_width(text, BODY)) / 2.0;
        let y = pos.baseline();
        self.draw(pos.page, Font::Regular, BODY, x, y, text);
        let tag = format!("({number})");
        let tx = COL_X[pos.col] + COL_W - pdf::text_width(&tag, BODY);
        self.draw(pos.page, Font::Regular, BODY, tx, y, &tag);
        let b = line_box(x, y, text.chars().count(), BODY).union(&line_box(tx, y, tag.len(), BODY));
        let block = self.block(BlockKind::Formula, pos.page, b, format!("{text} {tag}"));
        block.latex = Some(latex.to_string());
        self.blank();
    }

    fn references(&mut self, entries: &[String], caps: bool) {
        self.heading(if caps { "REFERENCES" } else { "References" }, 1, 1);
        let chars = (COL_W / (CHAR_WIDTH_EM * SMALL)) as usize;
        let style = Style {
            font: Font::Regular,
            size: SMALL,
            first_indent: 0,
            rest_indent: INDENT,
            kind: BlockKind::Reference,
            level: None,
        };
        for e in entries {
            self.flow(&wrap(e, chars, chars - INDENT), &style);
        }
    }

    /// Sets a line number beside every slot of every column, left of the left column and
    /// right of the right column, numbered on from page to page; returns them in order.
    fn line_numbers(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for page in 0..self.pages.len() {
            for col in 0..2 {
                for slot in self.column_start(page)..SLOTS {
                    let text = format!("{:03}", out.len() + 1);
                    let w = pdf::text_width(&text, LINE_NUMBER);
                    let x = if col == 0 { COL_X[0] - 10.0 - w } else { COL_X[1] + COL_W + 10.0 };
                    let y = Pos { page, col, slot }.baseline();
                    self.draw(page, Font::Regular, LINE_NUMBER, x, y, &text);
                    out.push(text);
                }
            }
        }
        out
    }
}

/// Returns the author line: `A`, `A and B`, or `A, B and C`.
fn author_line(authors: &[&str]) -> String {
    match authors {
        [] => String::new(),
        [a] => a.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Returns the e-mail line: `{a,b}@host` when all share one host, else the addresses spaced.
fn email_line(emails: &[&str]) -> String {
    let parts: Vec<(&str, &str)> = emails.iter().filter_map(|e| e.split_once('@')).collect();
    match parts.first() {
        Some((_, host)) if parts.len() > 1 && parts.iter().all(|(_, h)| h == host) => {
            let users: Vec<&str> = parts.iter().map(|(u, _)| *u).collect();
            format!("{{{}}}@{host}", users.join(","))
        }
        _ => emails.join("  "),
    }
}

/// Typesets `src`: title block, abstract, body and references, two columns, page headers and
/// numbers, and line numbers for a review submission.
pub(crate) fn typeset(src: &Source) -> Typeset {
    let header = if src.review {
        "ACL 2026 Submission ***. Confidential Review Copy. DO NOT DISTRIBUTE.".to_string()
    } else {
        src.short_title.to_string()
    };
    let mut e = Engine::new(header);
    e.title_block(src);
    e.abstract_(&src.printed(src.abstract_));
    let caps = src.headings == HeadingStyle::RunInCaps;
    let mut equations = 0;
    let mut after_heading = true;
    let mut run_in: Option<(&str, u8)> = None;
    for (i, item) in src.body.iter().enumerate() {
        match item {
            Item::Heading(h) | Item::Subheading(h) => {
                let level = item.level().unwrap_or(1);
                let next_para = matches!(src.body.get(i + 1), Some(Item::Para(_)));
                if src.headings != HeadingStyle::Block && next_para {
                    run_in = Some((h, level));
                    continue;
                }
                let keep = match src.body.get(i + 1) {
                    Some(Item::Table(t)) => 1 + Engine::table_slots(t),
                    _ => 1,
                };
                let shown = if caps && level == 1 { h.to_uppercase() } else { h.to_string() };
                e.heading(&shown, level, keep);
                after_heading = true;
                continue;
            }
            Item::Para(s) => {
                let text = src.printed(s);
                let mut indent = !after_heading;
                if let Some((h, level)) = run_in.take() {
                    let (head, font) = match (caps, level) {
                        (true, 1) => (h.to_uppercase(), Font::Regular),
                        _ => (format!("{h}."), Font::Bold),
                    };
                    if e.run_in(&head, font, level, &text, level > 1) {
                        after_heading = false;
                        continue;
                    }
                    let shown = if caps && level == 1 { h.to_uppercase() } else { h.to_string() };
                    e.heading(&shown, level, 1);
                    indent = false;
                }
                e.paragraph(&text, indent);
            }
            Item::Table(t) => e.table(t),
            Item::Equation { text, latex } => {
                equations += 1;
                e.equation(text, equations, latex);
            }
        }
        after_heading = false;
    }
    let entries: Vec<String> =
        src.references.iter().enumerate().map(|(i, r)| r.entry_in(src.refs, i + 1)).collect();
    e.references(&entries, caps);
    e.footer();
    let line_numbers = if src.review { e.line_numbers() } else { Vec::new() };

    let mut pdf = Pdf::new();
    pdf.set_info(src.title, "corpus-sample");
    let pages = vec![Page { width: PAGE_W, height: PAGE_H }; e.pages.len()];
    for p in e.pages {
        pdf.push(p);
    }
    Typeset {
        pdf: pdf.to_bytes(),
        doc: Doc { pages, blocks: e.blocks, markdown: None, meta: None },
        line_numbers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn wrap_is_greedy() {
        let l = wrap("aa bb cc dd", 5, 5);
        assert_eq!(texts(&l), ["aa bb", "cc dd"]);
        let l = wrap("aa bb cc dd", 2, 8);
        assert_eq!(texts(&l), ["aa", "bb cc dd"]);
    }

    #[test]
    fn wrap_hyphenates_at_soft_hyphens_only_when_needed() {
        let l = wrap("we evalu\u{AD}ation", 20, 20);
        assert_eq!(texts(&l), ["we evaluation"]);
        let l = wrap("the first evalu\u{AD}ation", 16, 16);
        assert_eq!(texts(&l), ["the first evalu-", "ation"]);
        assert!(l[0].hyphen);
        assert_eq!(join(&l), "the first evaluation");
    }

    const _: () = assert!(LEFT >= 72.0 && SLOTS == 54);

    #[test]
    fn equations_leave_room_for_their_numbers() {
        for src in &super::super::papers::SOURCES {
            let mut n = 0;
            for item in src.body {
                if let Item::Equation { text, .. } = item {
                    n += 1;
                    let len = text.chars().count() as f32;
                    let end = (COL_CHARS as f32 - len) / 2.0 + len;
                    let tag = format!("({n})").len() as f32;
                    assert!(end + 1.0 <= COL_CHARS as f32 - tag, "{}: {text}", src.name);
                }
            }
        }
    }

    #[test]
    fn tables_fit_their_column() {
        for src in &super::super::papers::SOURCES {
            for item in src.body {
                if let Item::Table(t) = item {
                    let cols = t.header.len();
                    let width: usize = (0..cols)
                        .map(|c| {
                            let cells = std::iter::once(t.header).chain(t.rows.iter().copied());
                            cells.map(|r| r[c].chars().count()).max().unwrap_or(0)
                        })
                        .sum::<usize>()
                        + 2 * (cols - 1);
                    assert!(width as f32 * CHAR_WIDTH_EM * SMALL <= COL_W, "{}", src.name);
                    assert!(t.rows.iter().all(|r| r.len() == cols), "{}", src.name);
                }
            }
        }
    }

    #[test]
    fn emails_share_a_host() {
        assert_eq!(email_line(&["a@x.org", "b@x.org"]), "{a,b}@x.org");
        assert_eq!(email_line(&["a@x.org", "b@y.org"]), "a@x.org  b@y.org");
    }
}
