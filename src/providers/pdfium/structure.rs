//! Layout analysis: glyphs with boxes and fonts → spans → lines in reading order → blocks.
//!
//! Pure: no pdfium types, so every rule is tested on hand-made glyph lists. The stages:
//! 1. `spans`: consecutive glyphs on one baseline with no gap wider than
//!    `SPAN_GAP` body ems (a column gutter always splits);
//! 2. line-number columns of review copies are dropped, running heads and page numbers found
//!    by position and repetition across pages;
//! 3. `xycut` orders each page's spans by recursive XY-cut into columns and bands, finds
//!    tables and builds lines;
//! 4. `blocks` groups lines into typed blocks (title, headings, captions, references, ...).
//!
//! Every threshold is relative to the document's body font size or the page size.

pub(crate) mod blocks;
pub(crate) mod tables;
mod xycut;

use crate::doc::{BBox, Block, BlockKind, Doc, Page};

/// One character as the text layer gives it, in page coordinates (top-left origin, y down).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glyph {
    /// The character; `' '` for a space (a word-break hint, its box is not used).
    pub ch: char,
    /// Its box (loose: full ascent to descent).
    pub bbox: BBox,
    /// Font size in points, scale applied.
    pub size: f32,
    /// Whether the font is bold.
    pub bold: bool,
}

/// One page's size and glyphs in content-stream order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageGlyphs {
    /// Page width in points.
    pub width: f32,
    /// Page height in points.
    pub height: f32,
    /// Glyphs in the order the text layer lists them.
    pub glyphs: Vec<Glyph>,
    /// Horizontal and vertical rules the page draws (strokes, thin bars, rectangle edges),
    /// each as its box.
    pub rules: Vec<BBox>,
    /// Boxes of the other things drawn: curves, slanted strokes, images.
    pub art: Vec<BBox>,
}

/// Glyphs further apart than this many ems start a new span.
const SPAN_GAP: f32 = 1.0;
/// A gap wider than this many ems between glyphs is a word break even without a space.
const WORD_GAP: f32 = 0.25;
/// Page numbers sit in this top or bottom fraction of the page.
const NUMBER_ZONE: f32 = 0.1;
/// Running heads (text repeated across pages) sit in this top or bottom fraction.
const HEAD_ZONE: f32 = 0.15;

/// A run of glyphs on one baseline: the unit of XY-cut.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Span {
    pub(crate) bbox: BBox,
    pub(crate) text: String,
    /// The most common font size among its glyphs.
    pub(crate) size: f32,
    /// Non-space glyphs.
    pub(crate) chars: u32,
    /// Bold non-space glyphs.
    pub(crate) bold: u32,
    /// Byte length of the text's leading run of bold glyphs (a run-in heading's candidate).
    pub(crate) lead_bold: usize,
    /// For a stand-in of a table found before reading order: its index among the page's
    /// tables (its `text` is empty).
    pub(crate) table: Option<u32>,
}

impl Span {
    fn center_y(&self) -> f32 {
        (self.bbox.y0 + self.bbox.y1) * 0.5
    }
}

/// Builds one span while glyphs keep coming on the same baseline.
struct SpanBuilder {
    span: Span,
    last: Glyph,
    /// Majority vote over font sizes in tenths of a point (Boyer-Moore).
    vote: (i32, u32),
}

impl SpanBuilder {
    fn new(g: &Glyph) -> SpanBuilder {
        let mut text = String::with_capacity(16);
        text.push(g.ch);
        SpanBuilder {
            span: Span {
                bbox: g.bbox,
                text,
                size: g.size,
                chars: 1,
                bold: u32::from(g.bold),
                lead_bold: if g.bold { text_len_of(g.ch) } else { 0 },
                table: None,
            },
            last: *g,
            vote: (quantize(g.size), 1),
        }
    }

    /// Adds `g` if it continues this span; returns false when it starts another.
    fn push(&mut self, g: &Glyph, space_before: bool) -> bool {
        let s = &mut self.span;
        let em = s.size.max(g.size).max(1.0);
        let cy = (g.bbox.y0 + g.bbox.y1) * 0.5;
        let same_line = cy >= s.bbox.y0 && cy <= s.bbox.y1 || {
            let overlap = s.bbox.y1.min(g.bbox.y1) - s.bbox.y0.max(g.bbox.y0);
            overlap > 0.5 * s.bbox.height().min(g.bbox.height())
        };
        // A ligature's characters (`f`, `f`, `i` of `ﬃ`) share one box.
        let same_box = (g.bbox.x0 - self.last.bbox.x0).abs() < 0.01
            && (g.bbox.x1 - self.last.bbox.x1).abs() < 0.01;
        let gap = if same_box { 0.0 } else { g.bbox.x0 - self.last.bbox.x1 };
        if !same_line || gap > SPAN_GAP * em || gap < -0.5 * em {
            return false;
        }
        // Fake bold: the same glyph painted twice, slightly offset.
        let dx = (g.bbox.x0 - self.last.bbox.x0).abs();
        if g.ch == self.last.ch && !same_box && dx < 0.15 * em {
            s.bold += u32::from(!self.last.bold);
            self.last.bold = true;
            return true;
        }
        if (space_before || gap > WORD_GAP * em) && !s.text.ends_with(' ') {
            s.text.push(' ');
        }
        // The leading bold run goes on while every glyph so far is bold.
        let leading = s.lead_bold > 0 && s.lead_bold == s.text.trim_end().len();
        s.text.push(g.ch);
        if leading && g.bold {
            s.lead_bold = s.text.len();
        }
        s.bbox = s.bbox.union(&g.bbox);
        s.chars += 1;
        s.bold += u32::from(g.bold);
        let q = quantize(g.size);
        if self.vote.0 == q {
            self.vote.1 += 1;
        } else if self.vote.1 == 0 {
            self.vote = (q, 1);
        } else {
            self.vote.1 -= 1;
        }
        self.last = *g;
        true
    }

    fn finish(mut self) -> Span {
        self.span.size = self.vote.0 as f32 / 10.0;
        let t = self.span.text.trim_end().len();
        self.span.text.truncate(t);
        self.span
    }
}

fn text_len_of(c: char) -> usize {
    c.len_utf8()
}

fn quantize(size: f32) -> i32 {
    (size * 10.0).round() as i32
}

/// Groups a page's glyphs into spans, in content-stream order.
pub(crate) fn spans(glyphs: &[Glyph]) -> Vec<Span> {
    let mut out = Vec::new();
    let mut cur: Option<SpanBuilder> = None;
    let mut space = false;
    for g in glyphs {
        if g.ch == ' ' {
            space = true;
            continue;
        }
        let g = &Glyph { size: if g.size > 0.0 { g.size } else { g.bbox.height() }, ..*g };
        let continues = cur.as_mut().is_some_and(|b| b.push(g, space));
        if !continues {
            if let Some(b) = cur.replace(SpanBuilder::new(g)) {
                out.push(b.finish());
            }
        }
        space = false;
    }
    if let Some(b) = cur {
        out.push(b.finish());
    }
    out
}

/// Returns whether most glyphs at the body size are bold.
fn body_is_bold(pages: &[Vec<Span>], body: f32) -> bool {
    let (mut bold, mut all) = (0u64, 0u64);
    for s in pages.iter().flatten().filter(|s| (s.size - body).abs() < 0.3) {
        bold += u64::from(s.bold);
        all += u64::from(s.chars);
    }
    bold * 2 > all
}

/// Returns the body font size: the most common size over all non-space glyphs.
fn body_size(pages: &[Vec<Span>]) -> f32 {
    // Half-point buckets up to 100 pt.
    let mut hist = vec![0u32; 201];
    for s in pages.iter().flatten() {
        let b = ((s.size * 2.0).round() as usize).min(200);
        hist[b] += s.chars;
    }
    let best = (1..hist.len()).max_by_key(|&i| (hist[i], std::cmp::Reverse(i))).unwrap_or(20);
    if hist[best] == 0 {
        10.0
    } else {
        best as f32 / 2.0
    }
}

/// Drops margin columns of line numbers (review copies: `001 002 ...` down the margin).
pub(crate) fn drop_line_numbers(spans: &mut Vec<Span>, width: f32) {
    let numeric: Vec<usize> = (0..spans.len())
        .filter(|&i| {
            let t = &spans[i].text;
            (1..=4).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit())
        })
        .collect();
    if numeric.len() < 8 {
        return;
    }
    let mut drop = vec![false; spans.len()];
    // Right-aligned (same x1) or left-aligned (same x0) columns.
    for edge in [|b: &BBox| b.x1, |b: &BBox| b.x0] {
        let mut order = numeric.clone();
        order.sort_by(|&a, &b| edge(&spans[a].bbox).total_cmp(&edge(&spans[b].bbox)));
        let mut start = 0;
        for i in 1..=order.len() {
            let split = i == order.len()
                || edge(&spans[order[i]].bbox) - edge(&spans[order[i - 1]].bbox) > 2.0;
            if split {
                mark_if_counter(spans, &order[start..i], width, &mut drop);
                start = i;
            }
        }
    }
    let mut i = 0;
    spans.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

/// Marks `group` when it is a margin column of numbers rising by a constant small step.
fn mark_if_counter(spans: &[Span], group: &[usize], width: f32, drop: &mut [bool]) {
    if group.len() < 8 {
        return;
    }
    let x = (spans[group[0]].bbox.x0 + spans[group[0]].bbox.x1) * 0.5;
    if x > 0.2 * width && x < 0.8 * width {
        return;
    }
    let mut g = group.to_vec();
    g.sort_by(|&a, &b| spans[a].bbox.y0.total_cmp(&spans[b].bbox.y0));
    let values: Vec<i64> = g.iter().map(|&i| spans[i].text.parse::<i64>().unwrap_or(-1)).collect();
    let mut steps: Vec<i64> = values.windows(2).map(|w| w[1] - w[0]).collect();
    steps.sort_unstable();
    let step = steps[steps.len() / 2];
    let regular = steps.iter().filter(|&&s| s == step).count();
    if (1..=5).contains(&step) && regular * 10 >= steps.len() * 8 {
        for &i in group {
            drop[i] = true;
        }
    }
}

/// Whether a span is a page number (`12`, `- 12 -`, `Page 3 of 9`, `iv`).
fn is_page_number(text: &str) -> bool {
    let t = text.trim_matches(|c: char| c == '-' || c == '–' || c.is_whitespace());
    let lower = t.to_ascii_lowercase();
    let t = lower.strip_prefix("page").map(str::trim_start).unwrap_or(&lower);
    let digits = |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit());
    if digits(t) {
        return true;
    }
    if let Some((a, b)) = t.split_once(" of ").or_else(|| t.split_once('/')) {
        return digits(a.trim()) && digits(b.trim());
    }
    !t.is_empty() && t.len() <= 5 && t.chars().all(|c| "ivxlc".contains(c))
}

/// Returns the text with digits folded, for matching running heads across pages.
fn head_key(text: &str) -> String {
    let mut k = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !k.ends_with('#') {
                k.push('#');
            }
        } else if !c.is_whitespace() {
            k.extend(c.to_lowercase());
        }
    }
    k
}

/// Which spans of each page are running heads (`Some(true)` top, `Some(false)` bottom).
fn find_margins(pages: &[Vec<Span>], sizes: &[Page]) -> Vec<Vec<Option<bool>>> {
    use std::collections::HashMap;
    let mut seen: HashMap<String, Vec<(usize, f32)>> = HashMap::new();
    let zone = |p: usize, s: &Span| -> Option<bool> {
        let h = sizes[p].height;
        if s.bbox.y1 <= HEAD_ZONE * h {
            Some(true)
        } else if s.bbox.y0 >= (1.0 - HEAD_ZONE) * h {
            Some(false)
        } else {
            None
        }
    };
    for (p, spans) in pages.iter().enumerate() {
        for s in spans {
            if zone(p, s).is_some() {
                seen.entry(head_key(&s.text)).or_default().push((p, s.bbox.y0));
            }
        }
    }
    let n = pages.len();
    // Odd and even pages may carry different heads, so a third of the pages is enough.
    let need = 2.max((n * 3).div_ceil(10));
    pages
        .iter()
        .enumerate()
        .map(|(p, spans)| {
            spans
                .iter()
                .map(|s| {
                    let top = zone(p, s)?;
                    let h = sizes[p].height;
                    let in_number_zone =
                        s.bbox.y1 <= NUMBER_ZONE * h || s.bbox.y0 >= (1.0 - NUMBER_ZONE) * h;
                    if in_number_zone && is_page_number(&s.text) {
                        return Some(top);
                    }
                    // Numbers repeat by chance (table cells); a running head has words.
                    if s.text.chars().filter(|c| c.is_alphabetic()).count() < 3 {
                        return None;
                    }
                    let hits = seen.get(&head_key(&s.text))?;
                    let mut pages_hit: Vec<usize> = hits
                        .iter()
                        .filter(|(_, y)| (y - s.bbox.y0).abs() < 0.03 * h)
                        .map(|(q, _)| *q)
                        .collect();
                    pages_hit.dedup();
                    (pages_hit.len() >= need).then_some(top)
                })
                .collect()
        })
        .collect()
}

/// Where a table the `pdfium` provider reads came from (`docs/tables.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableSource {
    /// A grid with rules both ways (§ 2).
    Lattice,
    /// Horizontal rules only, as booktabs and `\hline` draw them (§ 2).
    RuleStack,
    /// No rules: aligned short cells found in reading order (§ 4).
    Alignment,
}

/// A table as the `pdfium` provider reads it from one page: its box in page points (top-left
/// origin), its cells and text, and what showed it.
#[derive(Debug, Clone, PartialEq)]
pub struct PageTable {
    /// The table's box.
    pub bbox: BBox,
    /// Its cells, with spans and text.
    pub table: crate::doc::Table,
    /// Rules both ways, rules across only, or text alignment.
    pub source: TableSource,
}

/// The tables of one page exactly as the `pdfium` provider finds them (the same reading as
/// [`build_doc`] on that page alone): ruled tables, then the tables text alignment shows in
/// reading order. The body size is the page's most common glyph size. What the `layout`
/// provider snaps its table regions to and adds where its model missed one (docs/tables.md
/// § 5).
pub(crate) fn page_tables(page: &PageGlyphs) -> Vec<PageTable> {
    let mut s = spans(&page.glyphs);
    drop_line_numbers(&mut s, page.width);
    let body = body_size(std::slice::from_ref(&s));
    let (items, ruled) = read_body(page, s, 0, body);
    items
        .into_iter()
        .filter_map(|item| match item {
            xycut::Item::Table(b) => {
                // A ruled table's block keeps the box it was found with.
                let source = match ruled.iter().find(|(r, _)| *r == b.bbox) {
                    Some((_, true)) => TableSource::Lattice,
                    Some((_, false)) => TableSource::RuleStack,
                    None => TableSource::Alignment,
                };
                Some(PageTable { bbox: b.bbox, table: b.table?, source })
            }
            xycut::Item::Line(_) => None,
        })
        .collect()
}

/// A table's box as another reader drew it (the `layout` provider's model), cut at the top
/// and bottom to the lines the page shows as the table's rows: lines of prose, lines in
/// another font size and lines more than two row pitches away at its edges are left out
/// (docs/tables.md § 5). The body size is the page's most common glyph size.
pub(crate) fn trim_table_box(glyphs: &[Glyph], page_width: f32, bbox: BBox) -> BBox {
    let mut s = spans(glyphs);
    drop_line_numbers(&mut s, page_width);
    let body = body_size(std::slice::from_ref(&s));
    tables::extent::trim(&s, bbox, body.max(1.0))
}

/// Reads a page's body spans (margins already taken out): the ruled tables first, each
/// standing in the reading order as one span, then XY-cut over the rest, which finds the
/// tables text alignment shows. Also returns each ruled table's box and whether it is a
/// lattice.
fn read_body(
    page: &PageGlyphs,
    mut rest: Vec<Span>,
    index: u32,
    body: f32,
) -> (Vec<xycut::Item>, Vec<(BBox, bool)>) {
    let rules = tables::rules::Rules::new(&page.rules);
    let input = tables::PageInput {
        glyphs: &page.glyphs,
        rules: &rules,
        art: &page.art,
        spans: &rest,
        em: body,
        pitch: tables::extent::line_pitch(&rest, body.max(1.0)),
    };
    let found = tables::find(&input);
    if !found.is_empty() {
        let held = |s: &Span| {
            let (cx, cy) = ((s.bbox.x0 + s.bbox.x1) * 0.5, s.center_y());
            found
                .iter()
                .any(|f| cx >= f.bbox.x0 && cx <= f.bbox.x1 && cy >= f.bbox.y0 && cy <= f.bbox.y1)
        };
        rest.retain(|s| !held(s));
        for (i, f) in found.iter().enumerate() {
            rest.push(Span {
                bbox: f.bbox,
                text: String::new(),
                size: body,
                chars: 0,
                bold: 0,
                lead_bold: 0,
                table: Some(i as u32),
            });
        }
    }
    let ruled = found.iter().map(|f| (f.bbox, f.lattice)).collect();
    let tables: Vec<Block> = found
        .into_iter()
        .map(|f| {
            let mut b = Block::new(BlockKind::Table, index, f.bbox, f.table.flat_text());
            b.table = Some(f.table);
            b
        })
        .collect();
    (xycut::order(&rest, index, body, tables, &page.glyphs, &rules), ruled)
}

/// Builds the document: blocks in reading order over all pages.
pub(crate) fn build_doc(pages: &[PageGlyphs]) -> Doc {
    let sizes: Vec<Page> =
        pages.iter().map(|p| Page { width: p.width, height: p.height }).collect();
    let mut page_spans: Vec<Vec<Span>> = pages
        .iter()
        .map(|p| {
            let mut s = spans(&p.glyphs);
            drop_line_numbers(&mut s, p.width);
            s
        })
        .collect();
    let margins = find_margins(&page_spans, &sizes);
    let body = body_size(&page_spans);
    let mut builder = blocks::Builder::new(body, body_is_bold(&page_spans, body));
    for (p, spans) in page_spans.iter_mut().enumerate() {
        let page = p as u32;
        let mut heads = Vec::new();
        let mut feet = Vec::new();
        let mut rest = Vec::with_capacity(spans.len());
        for (s, m) in spans.drain(..).zip(&margins[p]) {
            match m {
                Some(true) => heads.push(s),
                Some(false) => feet.push(s),
                None => rest.push(s),
            }
        }
        let by_pos = |a: &Span, b: &Span| {
            a.bbox.y0.total_cmp(&b.bbox.y0).then(a.bbox.x0.total_cmp(&b.bbox.x0))
        };
        heads.sort_by(by_pos);
        feet.sort_by(by_pos);
        for s in &heads {
            builder.margin(Block::new(BlockKind::PageHeader, page, s.bbox, blocks::clean(&s.text)));
        }
        let (items, _) = read_body(&pages[p], rest, page, body);
        builder.page(page, sizes[p], items);
        for s in &feet {
            builder.margin(Block::new(BlockKind::PageFooter, page, s.bbox, blocks::clean(&s.text)));
        }
    }
    Doc { pages: sizes, blocks: builder.finish(), markdown: None, meta: None }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Lays out `text` as glyphs from (x, y): 0.5 em per char, spaces as space glyphs.
    pub(crate) fn line(x: f32, y: f32, size: f32, bold: bool, text: &str) -> Vec<Glyph> {
        let w = size * 0.5;
        text.chars()
            .enumerate()
            .map(|(i, ch)| {
                let x0 = x + i as f32 * w;
                Glyph { ch, bbox: BBox::new(x0, y, x0 + w, y + size * 1.1), size, bold }
            })
            .collect()
    }

    fn page(lines: Vec<Vec<Glyph>>) -> PageGlyphs {
        PageGlyphs {
            width: 612.0,
            height: 792.0,
            glyphs: lines.into_iter().flatten().collect(),
            ..PageGlyphs::default()
        }
    }

    fn kinds(doc: &Doc) -> Vec<(BlockKind, String)> {
        doc.blocks.iter().map(|b| (b.kind, b.text.clone())).collect()
    }

    #[test]
    fn spans_split_at_wide_gaps_and_insert_word_spaces() {
        let mut g = line(10.0, 10.0, 10.0, false, "ab cd");
        g.extend(line(10.0 + 5.0 * 5.0 + 30.0, 10.0, 10.0, false, "ef"));
        let s = spans(&g);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].text, "ab cd");
        assert_eq!(s[1].text, "ef");
        assert_eq!(s[0].size, 10.0);
    }

    #[test]
    fn ligature_expansions_sharing_a_box_stay_in_order() {
        let mut g = line(10.0, 10.0, 10.0, false, "su");
        let b = BBox::new(20.0, 10.0, 29.0, 21.0);
        for ch in ['f', 'f', 'i'] {
            g.push(Glyph { ch, bbox: b, size: 10.0, bold: false });
        }
        g.extend(line(29.0, 10.0, 10.0, false, "cient"));
        let s = spans(&g);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].text, "sufficient");
    }

    #[test]
    fn page_numbers_are_recognised() {
        for t in ["12", "- 3 -", "Page 4", "page 2 of 9", "iv", "3/10"] {
            assert!(is_page_number(t), "{t}");
        }
        for t in ["Introduction", "2019 IEEE", "12a"] {
            assert!(!is_page_number(t), "{t}");
        }
    }

    /// A body paragraph of `n` lines at `x`, starting at `y`, 12 pt apart.
    pub(crate) fn para(x: f32, y: f32, n: usize, word: &str) -> Vec<Vec<Glyph>> {
        (0..n)
            .map(|i| {
                line(x, y + i as f32 * 12.0, 10.0, false, &format!("{word} text line {i} here"))
            })
            .collect()
    }

    /// A paragraph whose first line opens with `lead` (bold or not) followed by `rest`, then
    /// three more body lines.
    fn run_in_para(y: f32, lead: &str, bold: bool, rest: &str) -> Vec<Vec<Glyph>> {
        let mut first = line(72.0, y, 10.0, bold, lead);
        first.extend(line(72.0 + lead.chars().count() as f32 * 5.0, y, 10.0, false, rest));
        let mut out = vec![first];
        out.extend(para(72.0, y + 12.0, 3, "body"));
        out
    }

    /// Issue 40: run-in headings (bold, ALL-CAPS, numbered) are split from their paragraph.
    #[test]
    fn r40_run_in_headings_are_split_from_their_paragraph() {
        let mut lines =
            run_in_para(100.0, "Search strategy.", true, " We searched the records of it.");
        lines.extend(run_in_para(170.0, "METHODS", false, " Search strategy was the first of it."));
        lines.extend(run_in_para(240.0, "2.1 Methods.", true, " We measured the iron in blood."));
        // Not run-in: an acronym opening a sentence, a bold word inside one.
        lines.extend(run_in_para(310.0, "NASA", false, " launched the probe in the year."));
        lines.extend(run_in_para(380.0, "Note", true, " that the iron was measured twice."));
        let doc = build_doc(&[page(lines)]);
        let k: Vec<(BlockKind, String, Option<u8>)> =
            doc.blocks.iter().map(|b| (b.kind, b.text.clone(), b.level)).collect();
        let heads: Vec<(&str, Option<u8>)> =
            k.iter().filter(|b| b.0 == BlockKind::Heading).map(|b| (b.1.as_str(), b.2)).collect();
        assert_eq!(
            heads,
            [("Search strategy", Some(2)), ("METHODS", Some(1)), ("2.1 Methods", Some(2))],
            "{k:?}"
        );
        let paras: Vec<&str> = k
            .iter()
            .filter(|b| b.0 == BlockKind::Paragraph && !b.1.starts_with("body"))
            .map(|b| b.1.split(" body").next().unwrap_or(""))
            .collect();
        assert_eq!(
            paras,
            [
                "We searched the records of it.",
                "Search strategy was the first of it.",
                "We measured the iron in blood.",
                "NASA launched the probe in the year.",
                "Note that the iron was measured twice.",
            ],
            "{k:?}"
        );
    }

    #[test]
    fn two_columns_read_left_then_right() {
        let mut lines = para(72.0, 100.0, 10, "left");
        lines.extend(para(320.0, 100.0, 10, "right"));
        // Interleave the content stream line by line, as some producers do.
        let mut inter = Vec::new();
        for i in 0..10 {
            inter.push(lines[i].clone());
            inter.push(lines[10 + i].clone());
        }
        let doc = build_doc(&[page(inter)]);
        let text: Vec<&str> = doc.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(doc.blocks.len(), 2, "{text:?}");
        assert!(text[0].starts_with("left text line 0") && text[0].ends_with("line 9 here"));
        assert!(text[1].starts_with("right text line 0"));
        assert!(doc.blocks.iter().all(|b| b.kind == BlockKind::Paragraph));
    }

    #[test]
    fn title_heading_and_body_are_typed() {
        let mut lines = vec![line(150.0, 60.0, 18.0, true, "A Study of Things")];
        lines.push(line(72.0, 120.0, 12.0, true, "1 Introduction"));
        lines.extend(para(72.0, 140.0, 6, "body"));
        lines.push(line(72.0, 230.0, 10.0, true, "2.1 Data"));
        lines.extend(para(72.0, 248.0, 6, "more"));
        let doc = build_doc(&[page(lines)]);
        let k = kinds(&doc);
        assert_eq!(k[0], (BlockKind::Title, "A Study of Things".into()));
        assert_eq!(k[1], (BlockKind::Heading, "1 Introduction".into()));
        assert_eq!(doc.blocks[1].level, Some(1));
        assert_eq!(k[2].0, BlockKind::Paragraph);
        assert_eq!(k[3], (BlockKind::Heading, "2.1 Data".into()));
        assert_eq!(doc.blocks[3].level, Some(2));
        assert_eq!(k[4].0, BlockKind::Paragraph);
    }

    #[test]
    fn margin_line_numbers_are_dropped() {
        let mut lines = Vec::new();
        for i in 0..20 {
            let y = 100.0 + i as f32 * 12.0;
            lines.push(line(30.0, y, 7.0, false, &format!("{:03}", i + 1)));
            lines.push(line(72.0, y, 10.0, false, &format!("words of line {i} go here")));
        }
        let doc = build_doc(&[page(lines)]);
        assert_eq!(doc.blocks.len(), 1);
        assert!(doc.blocks[0].text.starts_with("words of line 0"), "{}", doc.blocks[0].text);
        assert!(!doc.blocks[0].text.contains("001"));
    }

    #[test]
    fn repeated_top_line_is_header_and_bottom_number_is_footer() {
        let pages: Vec<PageGlyphs> = (0..3)
            .map(|p| {
                let mut l = vec![line(200.0, 30.0, 9.0, false, "Journal of Examples")];
                l.extend(para(72.0, 100.0, 5, &format!("page{p}")));
                l.push(line(300.0, 750.0, 9.0, false, &format!("{}", p + 1)));
                page(l)
            })
            .collect();
        let doc = build_doc(&pages);
        for p in 0..3u32 {
            let b: Vec<&Block> = doc.blocks.iter().filter(|b| b.page == p).collect();
            assert_eq!(b.first().map(|b| b.kind), Some(BlockKind::PageHeader));
            assert_eq!(b.first().map(|b| b.text.as_str()), Some("Journal of Examples"));
            assert_eq!(b.last().map(|b| b.kind), Some(BlockKind::PageFooter));
            assert_eq!(b.last().map(|b| b.text.clone()), Some(format!("{}", p + 1)));
        }
    }

    #[test]
    fn hyphenated_line_ends_are_joined_and_ligatures_folded() {
        let lines = vec![
            line(72.0, 100.0, 10.0, false, "we present an evalu-"),
            line(72.0, 112.0, 10.0, false, "ation of state-of-"),
            line(72.0, 124.0, 10.0, false, "the-art ﬁndings for Bio-"),
            line(72.0, 136.0, 10.0, false, "Medical text"),
        ];
        let doc = build_doc(&[page(lines)]);
        assert_eq!(
            doc.blocks[0].text,
            "we present an evaluation of state-of-the-art findings for Bio-Medical text"
        );
    }

    #[test]
    fn table_caption_is_caption() {
        let mut lines = para(72.0, 100.0, 3, "body");
        lines.push(line(72.0, 150.0, 9.0, false, "Table 1: Results on the test set."));
        lines.extend(para(72.0, 180.0, 3, "after"));
        let doc = build_doc(&[page(lines)]);
        let k = kinds(&doc);
        assert_eq!(k[1], (BlockKind::Caption, "Table 1: Results on the test set.".into()));
        assert_eq!(k[2].0, BlockKind::Paragraph);
    }

    #[test]
    fn empty_and_degenerate_pages_do_not_panic() {
        let doc = build_doc(&[PageGlyphs::default(), page(vec![line(0.0, 0.0, 0.0, false, "x")])]);
        assert_eq!(doc.pages.len(), 2);
    }
}
