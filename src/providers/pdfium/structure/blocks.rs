//! Lines in reading order → typed blocks.
//!
//! One pass groups lines into blocks (a break at a blank gap, a font change, an indent, a
//! caption or list start, a new reference entry), and types each block as it closes; the
//! title and unnumbered heading levels are settled at the end, when all sizes are known.

use unicode_normalization::UnicodeNormalization;

use super::xycut::{Item, Line};
use crate::doc::{Block, BlockKind, Page};

/// Text at least this many times the body size is large (headings, title).
const LARGE: f32 = 1.15;
/// A title is at least this many times the body size.
const TITLE: f32 = 1.2;
/// A line at least this bold (fraction of glyphs) is set in bold.
const BOLD: f32 = 0.75;

/// Returns the text NFKC-folded (ligatures, compatibility forms) with whitespace collapsed.
pub(crate) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut push = |c: char| {
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    };
    if text.is_ascii() {
        text.chars().for_each(&mut push);
    } else {
        text.nfkc().for_each(&mut push);
    }
    let t = out.trim_end().len();
    out.truncate(t);
    out
}

/// Returns `Some(true)` for a `Table N` caption start, `Some(false)` for `Figure N`.
pub(crate) fn caption_label(text: &str) -> Option<bool> {
    let t = text.trim_start();
    let (is_table, rest) = [
        ("Table", true),
        ("TABLE", true),
        ("Tab.", true),
        ("Figure", false),
        ("FIGURE", false),
        ("Fig.", false),
        ("FIG.", false),
        ("Fig", false),
    ]
    .iter()
    .find_map(|(w, t_)| text_after(t, w).map(|r| (*t_, r)))?;
    let rest = rest.trim_start();
    let num_len =
        rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.')).unwrap_or(rest.len());
    let num = rest[..num_len].trim_end_matches('.');
    let numeric = !num.is_empty()
        && num.len() <= 6
        && (num.bytes().any(|b| b.is_ascii_digit()) || num.bytes().all(|b| b"IVXL".contains(&b)));
    if !numeric {
        return None;
    }
    let after = &rest[num.len()..];
    // `Figure 1 Steps involved ...` (no punctuation) is a label; `Figure 1 shows` is prose.
    let ok = after.trim().is_empty()
        || after.starts_with(' ') && after.trim_start().starts_with(char::is_uppercase)
        || after.starts_with([':', '.', '|', '—', '–'])
        || after.trim_start().starts_with([':', '.', '|', '—', '–', '-']);
    ok.then_some(is_table)
}

fn text_after<'a>(t: &'a str, word: &str) -> Option<&'a str> {
    let rest = t.strip_prefix(word)?;
    // `Tables` or `Figurehead` are not labels.
    (!rest.starts_with(|c: char| c.is_alphabetic())).then_some(rest)
}

/// Heading numbering depth: `3` → 1, `2.1` → 2, `3.2.1` → 3, `IV.` → 1, `B.` → 2.
pub(crate) fn numbering(text: &str) -> Option<u8> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    let rest = words.next()?;
    if !rest.starts_with(|c: char| c.is_alphabetic()) {
        return None;
    }
    let tok = first.trim_end_matches('.');
    let parts: Vec<&str> = tok.split('.').collect();
    if parts.iter().all(|p| !p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Some(parts.len().min(6) as u8);
    }
    if first.ends_with('.') && !tok.is_empty() && tok.len() <= 4 {
        if tok.bytes().all(|b| b"IVX".contains(&b)) {
            return Some(1);
        }
        if tok.len() == 1 && tok.bytes().all(|b| b.is_ascii_uppercase()) {
            return Some(2);
        }
    }
    None
}

/// The heading text without numbering and trailing punctuation, lowercased.
fn bare_heading(text: &str) -> String {
    let t = if numbering(text).is_some() {
        text.split_once(char::is_whitespace).map(|x| x.1).unwrap_or(text)
    } else {
        text
    };
    t.trim().trim_end_matches(['.', ':']).to_lowercase()
}

pub(crate) fn is_refs_heading(text: &str) -> bool {
    matches!(
        bare_heading(text).as_str(),
        "references" | "reference" | "bibliography" | "literature cited" | "works cited"
    )
}

pub(crate) fn is_keyword_heading(text: &str) -> bool {
    let b = bare_heading(text);
    is_refs_heading(text)
        || b.starts_with("appendix")
        || matches!(
            b.as_str(),
            "abstract"
                | "introduction"
                | "related work"
                | "conclusion"
                | "conclusions"
                | "acknowledgments"
                | "acknowledgements"
                | "acknowledgment"
                | "acknowledgement"
        )
}

/// Whether a run-in heading is a front-matter label whose text is often set bold like it
/// (`Abstract—`, `Keywords:`, `Index Terms—`).
fn is_front_label(text: &str) -> bool {
    matches!(bare_heading(text).as_str(), "abstract" | "keywords" | "key words" | "index terms")
}

/// Whether the text starts with a list bullet or enumerator.
fn bullet(text: &str) -> bool {
    let mut cs = text.chars();
    match cs.next() {
        Some('•' | '◦' | '▪' | '‣' | '●' | '○' | '■' | '□' | '∙') => true,
        Some('–' | '-' | '*') => cs.next() == Some(' '),
        _ => false,
    }
}

fn enumerator(text: &str) -> bool {
    let t = text.strip_prefix('(').unwrap_or(text);
    let end = t.find([')', '.']).unwrap_or(0);
    let (label, rest) = t.split_at(end);
    let ok_label = (1..=2).contains(&label.len()) && label.bytes().all(|b| b.is_ascii_digit())
        || label.len() == 1 && label.bytes().all(|b| b.is_ascii_lowercase())
        || (1..=4).contains(&label.len()) && label.bytes().all(|b| b"ivx".contains(&b));
    ok_label && rest.len() > 1 && rest[1..].starts_with(' ')
}

/// Whether a line is a display equation: indented, with a relation and a `(N)` number.
fn is_formula(l: &Line) -> bool {
    let t = l.text.trim_end();
    let Some(open) = t.rfind('(') else {
        return false;
    };
    if !t.ends_with(')') {
        return false;
    }
    let num = &t[open + 1..t.len() - 1];
    let numbered = !num.is_empty()
        && num.len() <= 5
        && num.starts_with(|c: char| c.is_ascii_digit())
        && num.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
    let mathy = t.contains(['=', '≤', '≥', '≈', '∈', '→', '∑', '∫', '<', '>', '≡', '∝']);
    numbered && mathy && l.bbox.x0 > l.col.x0 + 1.5 * l.size && t.split(' ').count() <= 30
}

/// Whether a reference entry starts with a capitalised surname (`Smith, J.`, `Jane Smith,`).
fn surname_start(text: &str) -> bool {
    let cap = |w: &str| {
        let w = w.trim_end_matches(',');
        let mut cs = w.chars();
        cs.next().is_some_and(char::is_uppercase)
            && w.chars().any(char::is_lowercase)
            && w.chars().all(|c| c.is_alphabetic() || c == '-' || c == '\'' || c == '’')
    };
    let initial = |w: &str| {
        let w = w.trim_end_matches(',');
        w.ends_with('.') && w.len() <= 5 && w.starts_with(char::is_uppercase)
    };
    let mut words = text.split_whitespace();
    let Some(w1) = words.next() else { return false };
    if !cap(w1) {
        return false;
    }
    if w1.ends_with(',') {
        return true;
    }
    words.next().is_some_and(|w2| initial(w2) || cap(w2) && w2.ends_with(','))
}

/// What a run-in heading may end with: `Methods.`, `Aim:`, `Abstract—`, `Abstract-`.
const RUN_IN_ENDS: [char; 5] = ['.', ':', '-', '\u{2013}', '\u{2014}'];

/// Returns a run-in heading's text as a heading: without the stop that ends the run
/// (`Abstract—` → `Abstract`).
pub(crate) fn run_in_heading(run: &str) -> &str {
    run.trim().trim_end_matches(RUN_IN_ENDS).trim_end()
}

/// Returns where a run-in heading ends in a block's first line `t`, and its level: a leading
/// run of bold glyphs (`lead_bold` bytes, where body text is not bold) or of ALL-CAPS words,
/// followed on the line by ordinary text (`METHODS Search strategy ...`, `2.1 Methods. We
/// ...`). The run ends a word, holds at least five letters in caps or two in bold (and the
/// rest of the line is not bold, unless the run is a front-matter label such as `Keywords:`: the
/// line's `bold` share is the run's, within two glyphs), and what follows starts a sentence (a
/// capital or a digit) or the run ends in `.`, `:` or a dash; the block's text after the run
/// (the first line's rest and the lines `below`) holds three words or more, some in
/// lowercase, and goes on below the first line or ends a sentence on it (or follows a
/// front-matter label). The level is the numbering's, else 1 for caps and 2 for bold.
/// Used by `pdfium`'s blocks and `layout`'s text regions alike.
pub(crate) fn run_in_end(
    t: &str,
    lead_bold: usize,
    bold: f32,
    body_bold: bool,
    below: &[&str],
) -> Option<(usize, u8)> {
    let letters = |x: &str| x.chars().filter(|c| c.is_alphabetic()).count();
    // The glyphs after the bold run are not bold: the line's bold share is the run's
    // (within two glyphs), so a bold line whose first span is shorter is no run-in.
    let inked = |x: &str| x.chars().filter(|c| !c.is_whitespace()).count() as f32;
    let bold_run = (!body_bold && lead_bold > 0 && t.is_char_boundary(lead_bold))
        .then_some(lead_bold)
        .filter(|&e| e < t.trim_end().len() && letters(&t[..e]) >= 2)
        .filter(|&e| {
            is_front_label(run_in_heading(&t[..e]))
                || bold <= (inked(&t[..e]) + 2.0) / inked(t).max(1.0)
        });
    let (end, caps) = match bold_run {
        Some(e) => (e, false),
        None => (caps_run(t)?, true),
    };
    let head = t[..end].trim_end();
    let rest = t[end..].trim_start();
    let word_end = t[end..].starts_with(' ') || head.ends_with(RUN_IN_ENDS);
    let sentence = rest.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit());
    let words: Vec<&str> = std::iter::once(rest)
        .chain(below.iter().copied())
        .flat_map(str::split_whitespace)
        .take(3)
        .collect();
    // A paragraph goes on below its first line or ends a sentence on it (a one-line title in
    // two styles is no run-in); a front-matter label's list may end anyhow (`Keywords: A, B`).
    let paragraph = !below.is_empty()
        || rest.ends_with(['.', '!', '?', ':', ';'])
        || is_front_label(run_in_heading(head));
    let ordinary = !rest.is_empty()
        && paragraph
        && words.len() >= 3
        && words.iter().any(|w| w.chars().any(char::is_lowercase));
    if !word_end || !ordinary || !(sentence || head.ends_with(RUN_IN_ENDS)) {
        return None;
    }
    if head.split_whitespace().count() > 12 || head.ends_with(',') {
        return None;
    }
    let level = numbering(head).unwrap_or(if caps { 1 } else { 2 });
    Some((end, level))
}

/// Returns the byte length of a line's leading run of ALL-CAPS words (a numbering before them
/// included) when they hold at least five letters and a capitalised ordinary word follows.
fn caps_run(t: &str) -> Option<usize> {
    let mut end = 0;
    let mut letters = 0;
    for (i, w) in t.split(' ').enumerate() {
        let start = end + usize::from(i > 0);
        let numbered = i == 0 && numbering(t).is_some();
        let caps = w.chars().any(char::is_alphabetic)
            && w.chars().all(|c| !c.is_alphabetic() || c.is_uppercase());
        if numbered || caps {
            letters += w.chars().filter(|c| c.is_alphabetic()).count() * usize::from(caps);
            end = start + w.len();
            continue;
        }
        let next_ordinary = w.starts_with(char::is_uppercase) && w.chars().any(char::is_lowercase);
        return (letters >= 5 && next_ordinary).then_some(end);
    }
    None
}

/// A reference line indented by at least this many ems is indented.
const REF_INDENT: f32 = 0.5;

/// How far a line starts right of its column's left edge.
fn indent(l: &Line) -> f32 {
    l.bbox.x0 - l.col.x0
}

/// Whether a reference entry starts with a label: `[12]`, `12.`, `(3)`.
fn label_start(t: &str) -> bool {
    let bracket = t.strip_prefix('[').and_then(|r| r.split(']').next());
    bracket.is_some_and(|n| !n.is_empty() && n.len() <= 12 && !n.contains(' '))
        || enumerator(t) && t.trim_start_matches('(').starts_with(|c: char| c.is_ascii_digit())
}

/// The width the first word of a line takes at its mean character width, with a space.
fn first_word_width(l: &Line) -> f32 {
    let chars = l.text.chars().count().max(1) as f32;
    let word = l.text.split_whitespace().next().map_or(0, |w| w.chars().count()) as f32;
    l.bbox.width() / chars * (word + 1.0)
}

/// Sizes and style of a closed block, for the passes at the end.
struct Meta {
    size: f32,
    /// Level from the numbering or keyword; 0 when it must come from the font size.
    level: u8,
    keyword: bool,
}

/// Accumulates blocks page by page.
pub(crate) struct Builder {
    body: f32,
    /// Whether body text itself is bold (then bold marks nothing).
    body_bold: bool,
    blocks: Vec<Block>,
    meta: Vec<Meta>,
    cur: Vec<Line>,
    page: Page,
    in_refs: bool,
    /// How reference entries are indented, once known: `Some(true)` hanging (continuation
    /// lines indented), `Some(false)` first line indented, `None` not known (flush left).
    ref_hanging: Option<bool>,
    /// Reference lines seen since the references heading.
    ref_lines: usize,
    /// The last reference block, while nothing but running heads came after it.
    last_ref: Option<usize>,
    /// The last line added to a block, kept across blocks and pages.
    last_line: Option<Line>,
    /// The block being gathered continues the reference entry `last_ref` (from the column
    /// or page before).
    continues_ref: bool,
    first_page: Option<(u32, Page)>,
}

impl Builder {
    pub(crate) fn new(body: f32, body_bold: bool) -> Builder {
        Builder {
            body: body.max(1.0),
            body_bold,
            blocks: Vec::new(),
            meta: Vec::new(),
            cur: Vec::new(),
            page: Page::default(),
            in_refs: false,
            ref_hanging: None,
            ref_lines: 0,
            last_ref: None,
            last_line: None,
            continues_ref: false,
            first_page: None,
        }
    }

    fn push(&mut self, b: Block, size: f32, level: u8, keyword: bool) {
        match b.kind {
            BlockKind::Reference => self.last_ref = Some(self.blocks.len()),
            BlockKind::PageHeader | BlockKind::PageFooter => {}
            _ => self.last_ref = None,
        }
        self.blocks.push(b);
        self.meta.push(Meta { size, level, keyword });
    }

    /// Adds a running head or page number.
    pub(crate) fn margin(&mut self, b: Block) {
        if !b.text.is_empty() {
            self.push(b, 0.0, 0, false);
        }
    }

    /// Adds one page's lines and tables in reading order.
    pub(crate) fn page(&mut self, page: u32, size: Page, items: Vec<Item>) {
        self.page = size;
        if self.first_page.is_none() && !items.is_empty() {
            self.first_page = Some((page, size));
        }
        for item in items {
            match item {
                Item::Table(b) => {
                    self.flush();
                    self.push(b, self.body, 0, false);
                }
                Item::Line(l) => {
                    let prev = self.cur.last().or(self.last_line.as_ref()).cloned();
                    let new_block =
                        self.cur.is_empty() || prev.as_ref().is_some_and(|p| self.breaks(p, &l));
                    if new_block {
                        let cont = prev.as_ref().is_some_and(|p| self.continues_entry(p, &l));
                        self.flush();
                        self.continues_ref = cont && self.last_ref.is_some();
                    }
                    if self.in_refs {
                        if self.ref_lines == 0 && self.ref_hanging.is_none() {
                            // The first entry's first line shows the style: indented means
                            // first-line indents; at the margin, hanging or flush (decided by
                            // the first indented line).
                            self.ref_hanging = (indent(&l) >= REF_INDENT * l.size).then_some(false);
                        }
                        self.ref_lines += 1;
                    }
                    self.last_line = Some(l.clone());
                    self.cur.push(l);
                }
            }
        }
        self.flush();
    }

    /// Whether `l` starts a new block after `prev`.
    fn breaks(&mut self, prev: &Line, l: &Line) -> bool {
        let em = prev.size.max(l.size).max(1.0);
        if l.page != prev.page || l.col != prev.col || l.bbox.y0 < prev.bbox.y0 - 0.2 * em {
            return true;
        }
        if l.bbox.x0 > prev.bbox.x1 || l.bbox.x1 < prev.bbox.x0 {
            return true;
        }
        let gap = l.bbox.y0 - prev.bbox.y1;
        if gap > if self.in_refs { 0.3 } else { 0.5 } * em {
            return true;
        }
        if (l.size - prev.size).abs() > 0.08 * em || (prev.bold >= BOLD) != (l.bold >= BOLD) {
            return true;
        }
        if caption_label(&l.text).is_some() || is_formula(prev) || is_formula(l) || bullet(&l.text)
        {
            return true;
        }
        if self.in_refs {
            return self.ref_start(prev, l, em);
        }
        let ends_sentence = prev.text.ends_with(['.', ':', ';', '!', '?']);
        if enumerator(&l.text) && ends_sentence {
            return true;
        }
        let col = l.col;
        // Room left at the end of `prev`, and what the first word of `l` needed there: in
        // ragged-right text a line that ends short only ends a paragraph when the next word
        // would have fitted.
        // (A word that fits exactly leaves `room == need`: allow for rounding.)
        let room = col.x1 - prev.bbox.x1 + 0.2 * em;
        let need = first_word_width(l);
        let prev_short = room > (2.0 * em).max(need);
        let at_left = |x: f32, tol: f32| x <= col.x0 + tol * em;
        // A first-line indent after a line that ended a sentence or early, in left-aligned
        // text; a list item's continuation lines may hang indented.
        let indented = l.bbox.x0 > prev.bbox.x0 + 0.8 * em && l.bbox.x0 < prev.bbox.x0 + 6.0 * em;
        let in_list = self.cur.first().is_some_and(|f| bullet(&f.text) || enumerator(&f.text))
            && match self.cur.get(1) {
                Some(second) => (second.bbox.x0 - l.bbox.x0).abs() < 0.5 * em,
                None => !ends_sentence,
            };
        let ended = ends_sentence || prev_short || room > need;
        if at_left(prev.bbox.x0, 0.5) && indented && ended && !in_list {
            return true;
        }
        // A sentence that ends short of the margin, then a line back at the margin.
        prev_short && ends_sentence && at_left(prev.bbox.x0, 1.5) && at_left(l.bbox.x0, 0.5)
    }

    /// Whether `l`, which starts a block, continues the reference entry before it from the
    /// previous column or page: a hanging-indent list (or one whose indent is not known yet,
    /// after an entry that has not ended) whose next column opens indented.
    fn continues_entry(&self, prev: &Line, l: &Line) -> bool {
        let unfinished = !prev.text.ends_with('.');
        self.in_refs
            && (self.ref_hanging == Some(true) || self.ref_hanging.is_none() && unfinished)
            && (l.page != prev.page || l.col != prev.col)
            && indent(l) >= REF_INDENT * l.size
            && !label_start(&l.text)
    }

    /// Whether `l` starts a new reference entry.
    fn ref_start(&mut self, prev: &Line, l: &Line, em: f32) -> bool {
        let t = l.text.as_str();
        if label_start(t) {
            return true;
        }
        let tol = REF_INDENT * em;
        let (li, pi) = (indent(l) >= tol, indent(prev) >= tol);
        match self.ref_hanging {
            // Hanging indent: entries start at the margin, continuation lines are indented.
            Some(true) => !li,
            // First-line indent: entries start indented.
            Some(false) => li && (!pi || prev.text.ends_with('.')),
            None if li && !pi => {
                // The first indented line after one at the margin: a hanging indent.
                self.ref_hanging = Some(true);
                false
            }
            None => {
                let room = l.col.x1 - prev.bbox.x1 + 0.2 * em;
                let short = room > (2.0 * em).max(first_word_width(l));
                prev.text.ends_with('.') && (surname_start(t) || short && !li)
            }
        }
    }

    fn flush(&mut self) {
        if self.cur.is_empty() {
            return;
        }
        let mut lines = std::mem::take(&mut self.cur);
        if !self.in_refs && caption_label(&lines[0].text).is_none() {
            if let Some((end, level)) = self.run_in(&lines) {
                let first = &mut lines[0];
                let head = run_in_heading(&first.text[..end]);
                let mut b = Block::new(BlockKind::Heading, first.page, first.bbox, head);
                b.level = Some(level);
                self.in_refs = is_refs_heading(head);
                self.ref_hanging = None;
                self.ref_lines = 0;
                let keyword = is_keyword_heading(head);
                self.push(b, first.size, level, keyword);
                first.text = first.text[end..].trim_start().to_string();
                first.lead_bold = 0;
                first.bold = 0.0;
            }
        }
        let text = join_lines(&lines);
        if text.is_empty() {
            return;
        }
        let mut bbox = lines[0].bbox;
        let (mut size_sum, mut bold_sum, mut weight) = (0.0f32, 0.0f32, 0.0f32);
        for l in &lines {
            bbox = bbox.union(&l.bbox);
            let w = l.text.len() as f32;
            size_sum += l.size * w;
            bold_sum += l.bold * w;
            weight += w;
        }
        let size = if weight > 0.0 { size_sum / weight } else { lines[0].size };
        let bold = if weight > 0.0 { bold_sum / weight } else { 0.0 };
        let page = lines[0].page;
        let mut level = 0;
        let mut keyword = false;
        let kind = if caption_label(&lines[0].text).is_some() {
            BlockKind::Caption
        } else if lines.len() == 1 && is_formula(&lines[0]) {
            BlockKind::Formula
        } else if let Some(l) = self.heading(&lines, &text, size, bold) {
            level = l;
            keyword = is_keyword_heading(&text);
            self.in_refs = is_refs_heading(&text);
            self.ref_hanging = None;
            self.ref_lines = 0;
            BlockKind::Heading
        } else if self.in_refs {
            BlockKind::Reference
        } else if size <= 0.9 * self.body
            && bbox.y0 > 0.6 * self.page.height
            && text.chars().filter(|c| c.is_alphabetic()).count() >= 3
            && text.starts_with(|c: char| c.is_ascii_digit() || "*†‡§¶".contains(c))
        {
            BlockKind::Footnote
        } else if bullet(&text) || enumerator(&text) {
            BlockKind::ListItem
        } else {
            BlockKind::Paragraph
        };
        let continues = std::mem::take(&mut self.continues_ref);
        if let (true, BlockKind::Reference, Some(i)) = (continues, kind, self.last_ref) {
            let prev = &mut self.blocks[i];
            prev.text = join_texts(&prev.text, &text);
            if prev.page == page {
                prev.bbox = prev.bbox.union(&bbox);
            }
            return;
        }
        let mut b = Block::new(kind, page, bbox, text);
        if kind == BlockKind::Heading {
            b.level = Some(level.max(1));
        }
        self.push(b, size, level, keyword);
    }

    /// Returns where a run-in heading ends in a block's first line, and its level
    /// ([`run_in_end`]).
    fn run_in(&self, lines: &[Line]) -> Option<(usize, u8)> {
        let l = lines.first()?;
        let below: Vec<&str> = lines[1..].iter().map(|l| l.text.as_str()).collect();
        run_in_end(&l.text, l.lead_bold, l.bold, self.body_bold, &below)
    }

    /// Returns the heading level (0: decide by size later) when the block is a heading.
    fn heading(&self, lines: &[Line], text: &str, size: f32, bold: f32) -> Option<u8> {
        if lines.len() > 3 || text.len() > 200 || text.ends_with([',', ';']) {
            return None;
        }
        if text.chars().filter(|c| c.is_alphabetic()).count() < 2 {
            return None;
        }
        let lower = text.to_lowercase();
        if ["keywords", "key words", "index terms"].iter().any(|k| lower.starts_with(k)) {
            return None;
        }
        let words = text.split_whitespace().count();
        if is_keyword_heading(text) && words <= 4 {
            return Some(1);
        }
        let bold_style = bold >= BOLD && !self.body_bold && size >= 0.85 * self.body;
        let styled = size >= LARGE * self.body || bold_style;
        let sentence = text.ends_with('.') && words > 6;
        if styled && words <= 20 && !sentence {
            return Some(numbering(text).unwrap_or(0));
        }
        // `II. RELATED WORK`: numbered capitals at body size (IEEE small caps).
        let letters = text.chars().filter(|c| c.is_alphabetic());
        let upper = letters.clone().filter(|c| c.is_uppercase()).count();
        let caps = upper * 10 >= letters.count() * 9;
        let level = numbering(text)?;
        (caps && lines.len() == 1 && words <= 12 && !text.ends_with('.')).then_some(level)
    }

    /// Settles the title and size-based heading levels; returns the blocks.
    pub(crate) fn finish(mut self) -> Vec<Block> {
        self.flush();
        self.mark_title();
        let numbered_l1: Vec<f32> = self
            .blocks
            .iter()
            .zip(&self.meta)
            .filter(|(b, m)| b.kind == BlockKind::Heading && m.level == 1 && !m.keyword)
            .map(|(_, m)| m.size)
            .collect();
        let unknown_max = self
            .blocks
            .iter()
            .zip(&self.meta)
            .filter(|(b, m)| b.kind == BlockKind::Heading && m.level == 0)
            .map(|(_, m)| m.size)
            .fold(0.0f32, f32::max);
        let l1 = if numbered_l1.is_empty() {
            unknown_max
        } else {
            numbered_l1.iter().sum::<f32>() / numbered_l1.len() as f32
        };
        for (b, m) in self.blocks.iter_mut().zip(&self.meta) {
            if b.kind == BlockKind::Heading && m.level == 0 {
                b.level = Some(if m.size >= l1 - 0.5 { 1 } else { 2 });
            }
        }
        self.blocks
    }

    /// Marks the largest text near the top of the first page as the title.
    fn mark_title(&mut self) {
        let Some((page, size)) = self.first_page else {
            return;
        };
        let mut best: Option<(usize, f32)> = None;
        for (i, (b, m)) in self.blocks.iter().zip(&self.meta).enumerate() {
            if b.page != page {
                continue;
            }
            let eligible = matches!(b.kind, BlockKind::Heading | BlockKind::Paragraph)
                && !m.keyword
                && b.bbox.y0 < 0.45 * size.height
                && m.size >= TITLE * self.body
                && b.text.chars().filter(|c| c.is_alphabetic()).count() >= 3;
            if eligible && best.is_none_or(|(_, s)| m.size > s + 0.1) {
                best = Some((i, m.size));
            }
        }
        if let Some((i, _)) = best {
            self.blocks[i].kind = BlockKind::Title;
            self.blocks[i].level = None;
        }
    }
}

/// Joins two pieces of one text, repairing a word hyphenated across them.
pub(crate) fn join_texts(before: &str, next: &str) -> String {
    let mut out = before.to_string();
    match hyphen_join(&out, next) {
        Some(true) => {
            out.pop();
        }
        Some(false) => {}
        None => out.push(' '),
    }
    out.push_str(next);
    out
}

/// Joins a block's lines with single spaces, repairing words hyphenated at line ends.
fn join_lines(lines: &[Line]) -> String {
    let mut out = String::new();
    for l in lines {
        let t = l.text.trim();
        if t.is_empty() {
            continue;
        }
        if out.is_empty() {
            out.push_str(t);
            continue;
        }
        match hyphen_join(&out, t) {
            Some(true) => {
                out.pop();
            }
            Some(false) => {}
            None => out.push(' '),
        }
        out.push_str(t);
    }
    clean(&out)
}

/// For text ending in a hyphen: `Some(true)` drops it (`evalu-` + `ation`), `Some(false)`
/// keeps it and joins tight (`state-of-` + `the-art`); `None` when there is no such hyphen.
fn hyphen_join(before: &str, next: &str) -> Option<bool> {
    let stem = before.strip_suffix('-')?;
    let word = stem.rsplit(char::is_whitespace).next().unwrap_or(stem);
    let last = word.chars().last()?;
    if !last.is_alphabetic() {
        return None;
    }
    let next_first = next.chars().next()?;
    if !next_first.is_alphabetic() {
        return None;
    }
    Some(last.is_lowercase() && next_first.is_lowercase() && !word.contains('-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::BBox;

    fn l(x0: f32, y0: f32, x1: f32, text: &str) -> Line {
        Line {
            page: 0,
            bbox: BBox::new(x0, y0, x1, y0 + 11.0),
            col: BBox::new(72.0, 72.0, 540.0, 720.0),
            text: text.into(),
            size: 10.0,
            bold: 0.0,
            lead_bold: 0,
        }
    }

    #[test]
    fn clean_folds_ligatures_and_spaces() {
        assert_eq!(clean("ﬁne  ﬂow\u{a0}x "), "fine flow x");
    }

    #[test]
    fn caption_labels() {
        assert_eq!(caption_label("Table 1: Results"), Some(true));
        assert_eq!(caption_label("TABLE IV"), Some(true));
        assert_eq!(caption_label("Figure 3. A plot"), Some(false));
        assert_eq!(caption_label("Fig. 2: A plot"), Some(false));
        assert_eq!(caption_label("Table 1 shows the results"), None);
        assert_eq!(caption_label("Tables are useful"), None);
    }

    #[test]
    fn numbering_depths() {
        assert_eq!(numbering("1 Introduction"), Some(1));
        assert_eq!(numbering("2.1 Data"), Some(2));
        assert_eq!(numbering("3.2.1. Details"), Some(3));
        assert_eq!(numbering("IV. RESULTS"), Some(1));
        assert_eq!(numbering("B. Setup"), Some(2));
        assert_eq!(numbering("2019 was"), None);
        assert_eq!(numbering("Introduction"), None);
    }

    #[test]
    fn hyphen_rules() {
        assert_eq!(hyphen_join("an evalu-", "ation"), Some(true));
        assert_eq!(hyphen_join("state-of-", "the-art"), Some(false));
        assert_eq!(hyphen_join("Bio-", "Medical"), Some(false));
        assert_eq!(hyphen_join("pages 10-", "12"), None);
        assert_eq!(hyphen_join("no hyphen", "here"), None);
    }

    #[test]
    fn formula_lines() {
        assert!(is_formula(&l(200.0, 100.0, 540.0, "E = mc2 (1)")));
        assert!(!is_formula(&l(72.0, 100.0, 540.0, "as shown in (1)")));
        assert!(!is_formula(&l(200.0, 100.0, 540.0, "x = 2 (see above)")));
    }

    #[test]
    fn references_split_into_entries() {
        let mut b = Builder::new(10.0, false);
        let mut heading = l(72.0, 80.0, 150.0, "References");
        heading.bold = 1.0;
        heading.size = 12.0;
        let lines = vec![
            heading,
            l(72.0, 100.0, 540.0, "[1] A. Author. A paper title that goes on and on and"),
            l(72.0, 112.0, 400.0, "on. In Proc. of Things, 2001."),
            l(72.0, 124.0, 540.0, "[2] B. Writer. Another paper. Journal, 2002."),
            l(72.0, 140.0, 540.0, "Smith, J. and Doe, K. 2010. A third one with a long"),
            l(72.0, 152.0, 300.0, "title. Venue."),
            l(72.0, 164.0, 540.0, "Jane Roe, Ann Poe. 2011. A fourth one."),
        ];
        b.page(
            0,
            Page { width: 612.0, height: 792.0 },
            lines.into_iter().map(Item::Line).collect(),
        );
        let blocks = b.finish();
        let k: Vec<(BlockKind, &str)> = blocks.iter().map(|b| (b.kind, b.text.as_str())).collect();
        assert_eq!(k[0], (BlockKind::Heading, "References"));
        assert_eq!(blocks[0].level, Some(1));
        assert_eq!(k.len(), 5, "{k:?}");
        assert!(k[1..].iter().all(|(kind, _)| *kind == BlockKind::Reference));
        assert!(k[1].1.ends_with("2001."));
        assert!(k[3].1.starts_with("Smith, J."));
        assert!(k[4].1.starts_with("Jane Roe"));
    }

    #[test]
    fn hanging_indent_entries_continue_across_columns() {
        let mut b = Builder::new(10.0, false);
        let mut heading = l(72.0, 80.0, 150.0, "References");
        heading.bold = 1.0;
        let right = BBox::new(320.0, 72.0, 540.0, 720.0);
        let mut lines = vec![
            heading,
            l(72.0, 100.0, 300.0, "Ann Berg and Omar Haddad. 2019."),
            l(84.0, 112.0, 290.0, "Character noise in newspapers."),
            l(72.0, 124.0, 300.0, "Jae Kim. 2016. Learning rare tags"),
            l(84.0, 136.0, 200.0, "from few"),
        ];
        for (x, y, t) in
            [(332.0, 72.0, "examples. Journal, 4:1-18."), (320.0, 84.0, "Dan Smith. 2018.")]
        {
            let mut line = l(x, y, 500.0, t);
            line.col = right;
            lines.push(line);
        }
        b.page(
            0,
            Page { width: 612.0, height: 792.0 },
            lines.into_iter().map(Item::Line).collect(),
        );
        let blocks = b.finish();
        let refs: Vec<&str> = blocks[1..].iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            refs,
            [
                "Ann Berg and Omar Haddad. 2019. Character noise in newspapers.",
                "Jae Kim. 2016. Learning rare tags from few examples. Journal, 4:1-18.",
                "Dan Smith. 2018."
            ]
        );
    }

    #[test]
    fn ragged_right_lines_ending_a_sentence_early_only_break_when_the_next_word_fits() {
        let mut b = Builder::new(10.0, false);
        // Lines 5 pt per char; the column is 200 pt wide, so `they` (4 chars) did not fit
        // after `never typed:`, but `Smith` fits after `scanned.`.
        let lines = vec![
            l(72.0, 100.0, 272.0, "Most documents that reach a pipe"),
            l(72.0, 112.0, 255.0, "line today were never typed:"),
            l(72.0, 124.0, 272.0, "they were printed and scanned."),
            l(72.0, 136.0, 200.0, "Smith argues the noise"),
        ];
        let mut lines: Vec<Line> = lines;
        for line in &mut lines {
            line.col = BBox::new(72.0, 72.0, 272.0, 720.0);
        }
        lines[2].bbox.x1 = 222.0;
        b.page(
            0,
            Page { width: 612.0, height: 792.0 },
            lines.into_iter().map(Item::Line).collect(),
        );
        let texts: Vec<String> = b.finish().into_iter().map(|b| b.text).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[0].ends_with("printed and scanned."), "{texts:?}");
    }

    #[test]
    fn lists_and_paragraph_indents_break_blocks() {
        let mut b = Builder::new(10.0, false);
        let lines = vec![
            l(72.0, 100.0, 540.0, "A paragraph of text that runs to the right margin and"),
            l(72.0, 112.0, 300.0, "ends here."),
            l(90.0, 124.0, 540.0, "Next paragraph starts indented and runs to the margin"),
            l(72.0, 136.0, 200.0, "then ends."),
            l(72.0, 148.0, 400.0, "• a bullet item"),
            l(72.0, 160.0, 400.0, "• another one"),
        ];
        b.page(
            0,
            Page { width: 612.0, height: 792.0 },
            lines.into_iter().map(Item::Line).collect(),
        );
        let kinds: Vec<BlockKind> = b.finish().iter().map(|b| b.kind).collect();
        use BlockKind::*;
        assert_eq!(kinds, vec![Paragraph, Paragraph, ListItem, ListItem]);
    }
}
