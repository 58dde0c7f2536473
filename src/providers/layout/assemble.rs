//! Layout regions + the text layer → typed blocks in reading order.
//!
//! Each glyph goes to one region (a table's region first, else the smallest region holding
//! its centre); glyphs in no region become paragraphs of their own, so no text is lost. A
//! region's glyphs are grouped into lines, joined with hyphenation repaired, and typed by the
//! region's class. Regions are ordered by columns within bands cut by full-width regions.

use crate::doc::{BBox, Block, BlockKind, Cell, Page, Table};
use crate::providers::pdfium::structure::blocks::{
    caption_label, clean, is_keyword_heading, is_refs_heading, join_texts, numbering, run_in_end,
    run_in_heading,
};
use crate::providers::pdfium::structure::{drop_line_numbers, spans, Glyph, Span};

/// The CDLA classes, in the model's output order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Body text.
    Text,
    /// Title or section heading.
    Title,
    /// Picture.
    Figure,
    /// Figure caption.
    FigureCaption,
    /// Table.
    Table,
    /// Table caption.
    TableCaption,
    /// Running header.
    Header,
    /// Running footer, page number.
    Footer,
    /// Reference list.
    Reference,
    /// Display equation.
    Equation,
}

impl Class {
    /// The class's name in CDLA's own label set (`classes/cdla.toml`), which the detection
    /// suite maps to its taxonomies.
    pub fn cdla_name(self) -> &'static str {
        match self {
            Class::Text => "Text",
            Class::Title => "Title",
            Class::Figure => "Figure",
            Class::FigureCaption => "Figure caption",
            Class::Table => "Table",
            Class::TableCaption => "Table caption",
            Class::Header => "Header",
            Class::Footer => "Footer",
            Class::Reference => "Reference",
            Class::Equation => "Equation",
        }
    }

    /// The block kind a region of this class is when the assembler keeps it whole.
    fn kind(self) -> BlockKind {
        match self {
            Class::Text => BlockKind::Paragraph,
            Class::Title => BlockKind::Heading,
            Class::Figure => BlockKind::Figure,
            Class::FigureCaption | Class::TableCaption => BlockKind::Caption,
            Class::Table => BlockKind::Table,
            Class::Header => BlockKind::PageHeader,
            Class::Footer => BlockKind::PageFooter,
            Class::Reference => BlockKind::Reference,
            Class::Equation => BlockKind::Formula,
        }
    }

    /// Maps a model label to a class.
    pub(crate) fn from_label(label: &str) -> Option<Class> {
        Some(match label {
            "text" => Class::Text,
            "title" => Class::Title,
            "figure" => Class::Figure,
            "figure_caption" => Class::FigureCaption,
            "table" => Class::Table,
            "table_caption" => Class::TableCaption,
            "header" => Class::Header,
            "footer" => Class::Footer,
            "reference" => Class::Reference,
            "equation" => Class::Equation,
            _ => return None,
        })
    }
}

/// One detected region in page points, with its table cells where it is a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// Its class.
    pub class: Class,
    /// The detector's score.
    pub score: f32,
    /// Its box in page points.
    pub bbox: BBox,
    /// For tables: the structure's cells in page points (grid position + box).
    pub cells: Vec<(GridPos, BBox)>,
    /// For tables: the table the PDF draws there as a grid, with its text, kept instead of
    /// `cells` (see `docs/tables.md`, "The layout provider").
    pub ruled: Option<Table>,
}

/// A cell's place in its table grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridPos {
    /// Row.
    pub row: u32,
    /// Column.
    pub col: u32,
    /// Rows spanned.
    pub row_span: u32,
    /// Columns spanned.
    pub col_span: u32,
    /// Header cell.
    pub header: bool,
}

fn center(b: &BBox) -> (f32, f32) {
    ((b.x0 + b.x1) * 0.5, (b.y0 + b.y1) * 0.5)
}

fn contains(b: &BBox, (x, y): (f32, f32)) -> bool {
    x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1
}

/// Splits glyphs (in content order) into runs: words on one baseline with gaps under one
/// em, the spaces between them kept.
fn runs(glyphs: &[Glyph]) -> Vec<Vec<Glyph>> {
    let mut out: Vec<Vec<Glyph>> = Vec::new();
    let mut last: Option<Glyph> = None;
    for g in glyphs {
        if g.ch == ' ' {
            if let Some(r) = out.last_mut() {
                r.push(*g);
            }
            continue;
        }
        let continues = last.is_some_and(|p| {
            let em = g.size.max(p.size).max(1.0);
            let cy = (g.bbox.y0 + g.bbox.y1) * 0.5;
            let same_line = cy >= p.bbox.y0 && cy <= p.bbox.y1;
            let gap = g.bbox.x0 - p.bbox.x1;
            same_line && gap < em && gap > -0.5 * em
        });
        if !continues {
            out.push(Vec::new());
        }
        out.last_mut().expect("pushed above").push(*g);
        last = Some(*g);
    }
    out
}

/// The most common glyph size, to the nearest half point (10 when there are no glyphs).
pub(crate) fn common_size<'a>(glyphs: impl IntoIterator<Item = &'a Glyph>) -> f32 {
    let mut counts: std::collections::HashMap<i32, usize> = std::collections::HashMap::new();
    for g in glyphs.into_iter().filter(|g| g.ch != ' ' && g.size > 0.0) {
        *counts.entry((g.size * 2.0).round() as i32).or_default() += 1;
    }
    counts.into_iter().max_by_key(|&(s, n)| (n, -s)).map_or(10.0, |(s, _)| s as f32 / 2.0)
}

/// A line of text: spans on one baseline, left to right.
#[derive(Debug, Clone)]
struct TextLine {
    bbox: BBox,
    text: String,
    size: f32,
    /// Fraction of bold glyphs.
    bold: f32,
    /// Byte length of the text's leading run of bold glyphs (its first span's).
    lead_bold: usize,
}

/// Groups spans into lines (vertical overlap), top to bottom, left to right.
fn lines(mut sp: Vec<Span>) -> Vec<TextLine> {
    sp.sort_by(|a, b| a.bbox.y0.total_cmp(&b.bbox.y0).then(a.bbox.x0.total_cmp(&b.bbox.x0)));
    let mut out: Vec<(BBox, Vec<Span>)> = Vec::new();
    for s in sp {
        let cy = (s.bbox.y0 + s.bbox.y1) * 0.5;
        match out.iter_mut().rev().take(3).find(|(b, _)| cy >= b.y0 && cy <= b.y1) {
            Some((b, v)) => {
                *b = b.union(&s.bbox);
                v.push(s);
            }
            None => out.push((s.bbox, vec![s])),
        }
    }
    out.sort_by(|a, b| a.0.y0.total_cmp(&b.0.y0));
    out.into_iter()
        .map(|(bbox, mut v)| {
            v.sort_by(|a, b| a.bbox.x0.total_cmp(&b.bbox.x0));
            let size = v.iter().max_by_key(|s| s.chars).map_or(0.0, |s| s.size);
            // Spans touching each other join without a space: right-to-left text arrives
            // one glyph per span (each glyph left of the one before it).
            let mut text = String::new();
            let mut prev: Option<&Span> = None;
            for s in &v {
                let t = s.text.trim();
                if let Some(p) = prev {
                    let gap = s.bbox.x0 - p.bbox.x1;
                    if gap > 0.15 * p.size.max(s.size).max(1.0) {
                        text.push(' ');
                    }
                }
                text.push_str(t);
                prev = Some(s);
            }
            let chars: u32 = v.iter().map(|s| s.chars).sum();
            let bold = v.iter().map(|s| s.bold).sum::<u32>() as f32 / chars.max(1) as f32;
            let lead_bold = v.first().map_or(0, |s| {
                let t = s.text.trim();
                let skipped = s.text.len() - s.text.trim_start().len();
                s.lead_bold.saturating_sub(skipped).min(t.len())
            });
            TextLine { bbox, text, size, bold, lead_bold }
        })
        .collect()
}

fn join(lines: &[TextLine]) -> String {
    let mut out = String::new();
    for l in lines {
        let t = l.text.trim();
        if t.is_empty() {
            continue;
        }
        out = if out.is_empty() { t.to_owned() } else { join_texts(&out, t) };
    }
    clean(&out)
}

/// A block before document-level typing, with the font size headings are ranked by.
#[derive(Debug, Clone)]
pub struct PageBlock {
    /// The block.
    pub block: Block,
    /// Its main font size.
    pub size: f32,
    /// Whether it came from a `title` region (title or heading, settled per document).
    pub titled: bool,
    /// Whether it continues the previous reference entry (an entry broken across columns or
    /// pages: the region starts with an indented continuation line).
    pub continues: bool,
}

/// Builds one page's blocks in reading order.
pub(crate) fn page_blocks(
    page: u32,
    size: Page,
    glyphs: &[Glyph],
    regions: &[Region],
) -> Vec<PageBlock> {
    let merged = merge_overlapping(regions);
    let regions = &merged[..];
    // Assign runs of words on one baseline, whole: a line the detector cut in two (a title
    // half in a title box, half in a text box) stays one line. A run goes to the region it
    // overlaps most (a table's region first), or to no region.
    // Review copies' line-number columns are not text (the pdfium provider's rule).
    let numbers: Vec<BBox> = {
        let all = spans(glyphs);
        let mut kept = all.clone();
        drop_line_numbers(&mut kept, size.width);
        all.into_iter().filter(|s| !kept.contains(s)).map(|s| s.bbox).collect()
    };
    let mut owned: Vec<Vec<Glyph>> = vec![Vec::new(); regions.len() + 1];
    for run in runs(glyphs) {
        let bbox = run
            .iter()
            .filter(|g| g.ch != ' ')
            .fold(None, |b: Option<BBox>, g| Some(b.map_or(g.bbox, |b| b.union(&g.bbox))));
        let Some(bbox) = bbox else { continue };
        let c = center(&bbox);
        if numbers.iter().any(|n| contains(n, c)) {
            continue;
        }
        let mut best: Option<(bool, f32, f32, usize)> = None;
        for (i, r) in regions.iter().enumerate() {
            let ov = r.bbox.overlap(&bbox);
            if ov <= 0.0 || (!contains(&r.bbox, c) && ov < 0.3 * bbox.area().max(1e-3)) {
                continue;
            }
            let table = r.class == Class::Table && contains(&r.bbox, c);
            let key = (table, ov, -r.bbox.area(), i);
            let better = best.is_none_or(|b| {
                (key.0, key.1, key.2).partial_cmp(&(b.0, b.1, b.2))
                    == Some(std::cmp::Ordering::Greater)
            });
            if better {
                best = Some(key);
            }
        }
        // A short run just outside a region on the same line (a section number or a label
        // the box left out) joins it; a longer one is text of its own (the next column's
        // region can be that close).
        let best = best.map(|b| b.3).or_else(|| {
            let em = run.iter().map(|g| g.size).fold(0.0, f32::max).max(1.0);
            if bbox.width() > 3.0 * em {
                return None;
            }
            regions
                .iter()
                .enumerate()
                .filter(|(_, r)| r.class != Class::Table && r.class != Class::Figure)
                .filter(|(_, r)| {
                    let v = r.bbox.y1.min(bbox.y1) - r.bbox.y0.max(bbox.y0);
                    let gap = (r.bbox.x0 - bbox.x1).max(bbox.x0 - r.bbox.x1);
                    v >= 0.5 * bbox.height() && gap < 1.5 * em
                })
                .min_by(|a, b| {
                    let gap = |r: &Region| (r.bbox.x0 - bbox.x1).max(bbox.x0 - r.bbox.x1);
                    gap(a.1).total_cmp(&gap(b.1))
                })
                .map(|(i, _)| i)
        });
        owned[best.unwrap_or(regions.len())].extend(run);
    }
    let ctx = Ctx { width: size.width, height: size.height, body: common_size(glyphs) };
    let mut items: Vec<(BBox, Vec<PageBlock>, Class)> = Vec::new();
    for (i, r) in regions.iter().enumerate() {
        let gl = &owned[i];
        let mut blocks = region_blocks(page, r, gl, &ctx);
        mark_detection(&mut blocks, r);
        if !blocks.is_empty() {
            // Ordered by what it became: a header region read as a heading is body text.
            let margin =
                matches!(blocks[0].block.kind, BlockKind::PageHeader | BlockKind::PageFooter);
            let class = if matches!(r.class, Class::Header | Class::Footer) && !margin {
                Class::Text
            } else {
                r.class
            };
            items.push((r.bbox, blocks, class));
        }
    }
    // Orphan text: lines grouped into paragraphs by vertical proximity.
    let orphans = lines(spans(&owned[regions.len()]));
    // Each line joins the paragraph whose last line sits just above it in the same column
    // (two columns interleave in top-to-bottom order), else starts one.
    let mut groups: Vec<Vec<TextLine>> = Vec::new();
    for l in orphans {
        let target = groups.iter().rposition(|g| {
            let p = g.last().expect("groups are non-empty");
            let gap = l.bbox.y0 - p.bbox.y1;
            let overlap = p.bbox.x1.min(l.bbox.x1) - p.bbox.x0.max(l.bbox.x0);
            let h = p.bbox.height().max(l.bbox.height());
            gap > -0.5 * h && gap < 0.8 * h && overlap > 0.0
        });
        match target {
            Some(i) => groups[i].push(l),
            None => groups.push(vec![l]),
        }
    }
    for g in groups {
        let bbox = g.iter().skip(1).fold(g[0].bbox, |b, l| b.union(&l.bbox));
        let r = Region { class: Class::Text, score: 0.0, bbox, cells: Vec::new(), ruled: None };
        let size = g.iter().map(|l| l.size).fold(0.0, f32::max);
        let mut blocks = text_blocks(page, &r, &g, size);
        blocks.retain(|b| !b.block.text.is_empty());
        mark_detection(&mut blocks, &r);
        if !blocks.is_empty() {
            items.push((bbox, blocks, Class::Text));
        }
    }
    order(&mut items, size);
    items.into_iter().flat_map(|(_, b, _)| b).collect()
}

/// Gives a region's blocks the detector's score as their confidence (text in no region, an
/// orphan, has score 0: the detector found nothing there), and the block that is the region
/// itself (its box and its class's kind) the region's CDLA class as its label, which tells a
/// figure caption from a table caption where the kind cannot (`docs/detection.md` §4).
fn mark_detection(blocks: &mut [PageBlock], r: &Region) {
    for b in blocks {
        b.block.confidence = Some(f64::from(r.score));
        if b.block.bbox == r.bbox && b.block.kind == r.class.kind() && r.score > 0.0 {
            b.block.label = Some(format!("cdla:{}", r.class.cdla_name()));
        }
    }
}

/// Merges regions of one class (tables excepted) that overlap by more than a third of the
/// smaller one, and drops the weaker of two near-identical boxes of different classes: the
/// detector often gives a paragraph as several overlapping boxes, and text split between
/// them would interleave.
fn merge_overlapping(regions: &[Region]) -> Vec<Region> {
    let mut out: Vec<Region> = Vec::with_capacity(regions.len());
    for r in regions {
        let mut r = r.clone();
        loop {
            let hit = out.iter().position(|o| {
                o.class == r.class
                    && o.class != Class::Table
                    && o.bbox.overlap(&r.bbox) > 0.33 * o.bbox.area().min(r.bbox.area())
            });
            match hit {
                Some(i) => {
                    let o = out.remove(i);
                    r.bbox = r.bbox.union(&o.bbox);
                    r.score = r.score.max(o.score);
                }
                None => break,
            }
        }
        out.push(r);
    }
    // The same box with two classes (text and reference, say): the better score wins, text
    // on a tie; tables keep theirs.
    let iou = |a: &BBox, b: &BBox| {
        let i = a.overlap(b);
        i / (a.area() + b.area() - i).max(1e-3)
    };
    let mut keep = vec![true; out.len()];
    for i in 0..out.len() {
        for j in 0..out.len() {
            let (a, b) = (&out[i], &out[j]);
            if i == j || !keep[i] || !keep[j] || a.class == b.class || iou(&a.bbox, &b.bbox) < 0.7 {
                continue;
            }
            if a.class == Class::Table || b.class == Class::Table {
                continue;
            }
            let a_wins = a.score > b.score || (a.score == b.score && a.class == Class::Text);
            keep[if a_wins { j } else { i }] = false;
        }
    }
    out.into_iter().zip(keep).filter_map(|(r, k)| k.then_some(r)).collect()
}

/// Sorts page items: headers, then bands (cut by full-width items) read column by column,
/// then footers.
fn order(items: &mut [(BBox, Vec<PageBlock>, Class)], size: Page) {
    let mid = size.width * 0.5;
    let wide = |b: &BBox| b.x0 < mid - 0.05 * size.width && b.x1 > mid + 0.05 * size.width;
    let mut wide_y: Vec<f32> = items
        .iter()
        .filter(|(b, _, c)| wide(b) && !matches!(c, Class::Header | Class::Footer))
        .map(|(b, _, _)| center(b).1)
        .collect();
    wide_y.sort_by(f32::total_cmp);
    let key = |(b, _, c): &(BBox, Vec<PageBlock>, Class)| -> (u8, usize, u8, u8, f32) {
        let (cx, cy) = center(b);
        match c {
            Class::Header => (0, 0, 0, 0, b.y0),
            Class::Footer => (2, 0, 0, 0, b.y0),
            _ if wide(b) => {
                let i = wide_y.iter().position(|&y| y >= cy).unwrap_or(0);
                (1, i + 1, 0, 0, b.y0)
            }
            _ => {
                let band = wide_y.iter().filter(|&&y| y < cy).count();
                (1, band, 1, u8::from(cx >= mid), b.y0)
            }
        }
    };
    items.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        (ka.0, ka.1, ka.2, ka.3).cmp(&(kb.0, kb.1, kb.2, kb.3)).then(ka.4.total_cmp(&kb.4))
    });
}

/// What region typing needs to know about the page.
struct Ctx {
    /// Page width in points.
    width: f32,
    /// Page height in points.
    height: f32,
    /// The page's most common glyph size.
    body: f32,
}

fn region_blocks(page: u32, r: &Region, glyphs: &[Glyph], ctx: &Ctx) -> Vec<PageBlock> {
    let ls = lines(spans(glyphs));
    let size = ls.iter().map(|l| l.size).fold(0.0, f32::max);
    let one = |kind: BlockKind, text: String| {
        vec![PageBlock {
            block: Block::new(kind, page, r.bbox, text),
            size,
            titled: false,
            continues: false,
        }]
    };
    match r.class {
        // A "figure" over most of the page with text in it is the page itself (a poster, a
        // slide, a form): its text is kept as text. Other figures' text (axis labels, words
        // in a diagram) is not body text.
        Class::Figure if !ls.is_empty() && r.bbox.area() > 0.5 * ctx.width * ctx.height => {
            text_blocks(page, r, &ls, size)
        }
        Class::Figure => one(BlockKind::Figure, String::new()),
        // The detector sometimes boxes a table's caption as a table: a few lines that start
        // with `Table N` / `Figure N` are the caption.
        Class::Table if ls.len() <= 4 && caption_label(&join(&ls)).is_some() => {
            one(BlockKind::Caption, join(&ls))
        }
        Class::Table => {
            let table = r.ruled.clone().or_else(|| fill_table(r, glyphs));
            let mut b = Block::new(BlockKind::Table, page, r.bbox, String::new());
            match table {
                Some(t) => {
                    b.text = t.flat_text();
                    b.table = Some(t);
                }
                None => b.text = ls.iter().map(|l| clean(&l.text)).collect::<Vec<_>>().join("\n"),
            }
            vec![PageBlock { block: b, size, titled: false, continues: false }]
        }
        _ if ls.is_empty() => Vec::new(),
        Class::Text => text_blocks(page, r, &ls, size),
        Class::Title => {
            let mut v = one(BlockKind::Heading, join(&ls));
            v[0].titled = true;
            v
        }
        Class::FigureCaption | Class::TableCaption => one(BlockKind::Caption, join(&ls)),
        // A bold numbered heading at the top of a page is boxed as a running header at times;
        // running heads are seldom bold and numbered.
        Class::Header
            if ls.len() == 1 && ls[0].bold >= 0.75 && numbering(ls[0].text.trim()).is_some() =>
        {
            let mut v = one(BlockKind::Heading, join(&ls));
            v[0].titled = true;
            v
        }
        Class::Header => one(BlockKind::PageHeader, join(&ls)),
        Class::Footer => one(BlockKind::PageFooter, join(&ls)),
        Class::Equation => one(BlockKind::Formula, join(&ls)),
        Class::Reference => references(page, r, &ls, size, ctx),
    }
}

/// A text region: bold short lines among non-bold ones are headings of their own (the
/// detector often boxes `2.1 Features` with its paragraph, or several sections as one
/// region), as are keyword headings (`Abstract`) on a line of their own, and a run-in heading
/// at the start of a paragraph (`Methods. We ...`, `METHODS We ...`; the rule of `pdfium`'s
/// blocks, [`run_in_end`]) is split from it: at the region's start, after a gap, or at a
/// first-line indent after a line that ended a sentence.
fn text_blocks(page: u32, r: &Region, ls: &[TextLine], size: f32) -> Vec<PageBlock> {
    let bold_sum: f32 = ls.iter().map(|l| l.bold).sum();
    let heading_like = |i: usize| {
        let l = &ls[i];
        let t = l.text.trim();
        if is_keyword_heading(t) {
            return true;
        }
        // Mean boldness of the region's other lines.
        let body_bold =
            if ls.len() > 1 { (bold_sum - l.bold) / (ls.len() - 1) as f32 } else { 0.0 };
        let short = t.chars().count() <= 80 && !t.ends_with(['.', ',', ';']);
        if ls.len() == 1 {
            return l.bold >= 0.75 && numbering(t).is_some() && short;
        }
        l.bold >= 0.75 && body_bold < 0.5 && short
    };
    let mut out = Vec::new();
    let mut para: Vec<TextLine> = Vec::new();
    let flush = |para: &mut Vec<TextLine>, out: &mut Vec<PageBlock>| {
        if para.is_empty() {
            return;
        }
        let bbox = para.iter().skip(1).fold(para[0].bbox, |b, l| b.union(&l.bbox));
        let text = join(para);
        // A caption the detector took for text (`Table 1: ...`; `Table 1 shows` is prose).
        let kind =
            if caption_label(&text).is_some() { BlockKind::Caption } else { BlockKind::Paragraph };
        out.push(PageBlock {
            block: Block::new(kind, page, bbox, text),
            size,
            titled: false,
            continues: false,
        });
        para.clear();
    };
    for (i, l) in ls.iter().enumerate() {
        if heading_like(i) {
            flush(&mut para, &mut out);
            let t = clean(l.text.trim());
            let mut b = PageBlock {
                block: Block::new(BlockKind::Heading, page, l.bbox, t),
                size: l.size,
                titled: true,
                continues: false,
            };
            b.block.level = numbering(&b.block.text);
            out.push(b);
        } else {
            // A blank line's gap ends a paragraph (the detector boxes several as one).
            if let Some(p) = para.last() {
                if l.bbox.y0 - p.bbox.y1 > p.bbox.height().max(l.bbox.height()) {
                    flush(&mut para, &mut out);
                }
            }
            let mut l = l.clone();
            // A paragraph starts here: at the region's start, after a gap, or at a first-line
            // indent after a line that ended a sentence (the detector boxes a section's
            // paragraphs as one region; an indent splits them only for a run-in heading).
            let indented = para.last().is_some_and(|p| {
                let em = l.size.max(1.0);
                l.bbox.x0 > p.bbox.x0 + 0.8 * em
                    && l.bbox.x0 < p.bbox.x0 + 6.0 * em
                    && p.text.trim_end().ends_with(['.', '!', '?', ':'])
            });
            if para.is_empty() || indented {
                let below: Vec<&str> = ls[i + 1..].iter().map(|l| l.text.as_str()).collect();
                // Mean boldness of the region's other lines.
                let others = (bold_sum - l.bold) / (ls.len() - 1).max(1) as f32;
                let body_bold = ls.len() > 1 && others >= 0.5;
                if let Some((end, level)) =
                    run_in_end(&l.text, l.lead_bold, l.bold, body_bold, &below)
                {
                    flush(&mut para, &mut out);
                    let head = run_in_heading(&l.text[..end]);
                    // The heading's box: the line's, up to the run's share of its chars.
                    let share =
                        l.text[..end].chars().count() as f32 / l.text.chars().count() as f32;
                    let mut hb = l.bbox;
                    hb.x1 = hb.x0 + share * l.bbox.width();
                    let mut b = PageBlock {
                        block: Block::new(BlockKind::Heading, page, hb, clean(head)),
                        size: l.size,
                        titled: true,
                        continues: false,
                    };
                    b.block.level = Some(level);
                    out.push(b);
                    l.bbox.x0 = hb.x1;
                    l.text = l.text[end..].trim_start().to_string();
                    l.bold = 0.0;
                    l.lead_bold = 0;
                }
            }
            para.push(l);
        }
    }
    flush(&mut para, &mut out);
    // One paragraph alone keeps the region's box.
    if let [only] = &mut out[..] {
        if only.block.kind != BlockKind::Heading {
            only.block.bbox = r.bbox;
        }
    }
    out
}

/// Whether a text looks like a bibliography entry: a year, or a bracketed label.
fn looks_like_reference(t: &str) -> bool {
    let b = t.as_bytes();
    let year = b.windows(4).enumerate().any(|(i, w)| {
        (w.starts_with(b"19") || w.starts_with(b"20"))
            && w.iter().all(u8::is_ascii_digit)
            && (i == 0 || !b[i - 1].is_ascii_digit())
            && b.get(i + 4).is_none_or(|c| !c.is_ascii_digit())
    });
    year || t.trim_start().starts_with('[')
}

/// Whether a line starts with a reference label: `[12]`, `12.` or `12)`.
fn is_labelled(t: &str) -> bool {
    let t = t.trim_start();
    if let Some(rest) = t.strip_prefix('[') {
        return rest.find(']').is_some_and(|i| i > 0 && i <= 12);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits <= 3 && t[digits..].starts_with(['.', ')'])
}

/// Splits a reference list region into entries: a line starting with a label (`[12]`, `12.`)
/// starts one; without labels, a line at the region's left edge after indented lines
/// (hanging indent) does.
fn references(page: u32, r: &Region, ls: &[TextLine], size: f32, ctx: &Ctx) -> Vec<PageBlock> {
    // The list's heading, boxed with it.
    if ls.len() > 1 && is_refs_heading(ls[0].text.trim()) {
        let mut h = PageBlock {
            block: Block::new(BlockKind::Heading, page, ls[0].bbox, clean(&ls[0].text)),
            size: ls[0].size,
            titled: true,
            continues: false,
        };
        h.block.level = numbering(&ls[0].text);
        let mut out = vec![h];
        out.extend(references(page, r, &ls[1..], size, ctx));
        return out;
    }
    let left = ls.iter().map(|l| l.bbox.x0).fold(f32::MAX, f32::min);
    let em = size.max(1.0);
    let any_label = ls.iter().filter(|l| is_labelled(&l.text)).count() >= 2;
    let any_indent = ls.iter().any(|l| l.bbox.x0 > left + 0.8 * em);
    let right = ls.iter().map(|l| l.bbox.x1).fold(f32::MIN, f32::max);
    let mut entries: Vec<Vec<TextLine>> = Vec::new();
    for (i, l) in ls.iter().enumerate() {
        let starts = i == 0
            || if any_label {
                is_labelled(&l.text)
            } else if any_indent {
                l.bbox.x0 <= left + 0.5 * em
            } else {
                // No labels, no hanging indent: an entry ends on a short line ending a sentence.
                let p = &ls[i - 1];
                p.text.trim_end().ends_with('.') && p.bbox.x1 < right - 2.0 * em
            };
        if starts {
            entries.push(vec![l.clone()]);
        } else if let Some(e) = entries.last_mut() {
            e.push(l.clone());
        }
    }
    let entries: Vec<(BBox, String)> = entries
        .into_iter()
        .map(|e| (e.iter().skip(1).fold(e[0].bbox, |b, l| b.union(&l.bbox)), join(&e)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    // The detector also boxes footnotes and plain text as references: keep the class only
    // when most entries look like bibliography entries.
    let refs = entries.iter().filter(|(_, t)| looks_like_reference(t)).count();
    if 2 * refs < entries.len().max(1) {
        // Smaller than the page's body text and in its lower part: footnotes; else text.
        if r.bbox.y0 > 0.6 * ctx.height && size < 0.95 * ctx.body {
            return vec![PageBlock {
                block: Block::new(BlockKind::Footnote, page, r.bbox, join(ls)),
                size,
                titled: false,
                continues: false,
            }];
        }
        return text_blocks(page, r, ls, size);
    }
    // Hanging indent and an indented first line: the entry began in the previous column.
    let first_continues = !any_label && any_indent && ls[0].bbox.x0 > left + 0.5 * em;
    entries
        .into_iter()
        .enumerate()
        .map(|(i, (bbox, text))| PageBlock {
            block: Block::new(BlockKind::Reference, page, bbox, text),
            size,
            titled: false,
            continues: i == 0 && first_continues,
        })
        .collect()
}

/// Fills a table's cells with the words whose centres they hold (a word in no cell goes to
/// the nearest one), in reading order. `None` when the structure has no cells.
/// The model's table of a region: its cells filled with the words of `glyphs` (the region's)
/// whose centres they hold. Also what the layout provider compares with the page's own
/// reading of the table before assembly.
pub(crate) fn fill_table(r: &Region, glyphs: &[Glyph]) -> Option<Table> {
    if r.cells.is_empty() {
        return None;
    }
    let mut texts: Vec<Vec<Glyph>> = vec![Vec::new(); r.cells.len()];
    let mut last: Option<usize> = None;
    for w in words(glyphs) {
        let c = center(&w.0);
        let inside = r
            .cells
            .iter()
            .enumerate()
            .filter(|(_, (_, b))| contains(b, c))
            .min_by(|a, b| a.1 .1.area().total_cmp(&b.1 .1.area()));
        let i = match inside {
            Some((i, _)) => i,
            None => {
                let dist = |b: &BBox| {
                    let dx = (b.x0 - c.0).max(c.0 - b.x1).max(0.0);
                    let dy = (b.y0 - c.1).max(c.1 - b.y1).max(0.0);
                    dx * dx + dy * dy
                };
                r.cells.iter().enumerate().min_by(|a, b| dist(&a.1 .1).total_cmp(&dist(&b.1 .1)))?.0
            }
        };
        if last == Some(i) || !texts[i].is_empty() {
            // A space between words in one cell.
            if let Some(g) = texts[i].last().copied() {
                texts[i].push(Glyph { ch: ' ', ..g });
            }
        }
        texts[i].extend(w.1);
        last = Some(i);
    }
    let cells: Vec<Cell> = r
        .cells
        .iter()
        .zip(texts)
        .map(|((p, _), g)| Cell {
            row: p.row,
            col: p.col,
            row_span: p.row_span,
            col_span: p.col_span,
            text: join(&lines(spans(&g))),
            header: p.header,
        })
        .collect();
    Some(Table::compact(cells))
}

/// Splits glyphs into words: a space, a new line or a gap wider than a quarter em ends one.
fn words(glyphs: &[Glyph]) -> Vec<(BBox, Vec<Glyph>)> {
    let mut out: Vec<(BBox, Vec<Glyph>)> = Vec::new();
    let mut open = false;
    for g in glyphs {
        if g.ch == ' ' {
            open = false;
            continue;
        }
        let continues = open
            && out.last().is_some_and(|(b, v)| {
                let p = v.last().expect("words are non-empty");
                let em = g.size.max(p.size).max(1.0);
                let cy = (g.bbox.y0 + g.bbox.y1) * 0.5;
                cy >= b.y0
                    && cy <= b.y1
                    && g.bbox.x0 - p.bbox.x1 < 0.25 * em
                    && g.bbox.x0 >= p.bbox.x0 - 0.5 * em
            });
        if continues {
            let (b, v) = out.last_mut().expect("checked");
            *b = b.union(&g.bbox);
            v.push(*g);
        } else {
            out.push((g.bbox, vec![*g]));
        }
        open = true;
    }
    out
}

/// Settles title and heading levels over the document: the title by type size on the first
/// page; every other `title` region is a heading, its level from its numbering.
pub fn finish(pages: Vec<Vec<PageBlock>>, body: f32, page_h: f32) -> Vec<Block> {
    let mut all: Vec<PageBlock> = pages.into_iter().flatten().collect();
    let first_page = all.iter().map(|b| b.block.page).min();
    // The title is the largest type on the upper half of the first page, when it stands out
    // from the body; a `title` region wins a tie. Type size decides rather than the class:
    // the detector misses titles in some layouts and boxes section headings as `title`.
    let candidate = |b: &PageBlock| {
        Some(b.block.page) == first_page
            && b.block.bbox.y0 < 0.5 * page_h
            && (matches!(b.block.kind, BlockKind::Paragraph | BlockKind::Heading)
                // A title boxed as a running header (it is large where running heads are not).
                || b.block.kind == BlockKind::PageHeader && b.size >= 1.2 * body)
    };
    let top = all.iter().filter(|b| candidate(b)).map(|b| b.size).fold(0.0, f32::max);
    let title = (top >= 1.2 * body)
        .then(|| {
            let at_top = || all.iter().enumerate().filter(|(_, b)| candidate(b) && b.size == top);
            at_top().find(|(_, b)| b.titled).or_else(|| at_top().next()).map(|(i, _)| i)
        })
        .flatten();
    for (i, b) in all.iter_mut().enumerate() {
        if Some(i) == title {
            b.block.kind = BlockKind::Title;
            b.block.level = None;
            continue;
        }
        if b.titled {
            b.block.level = Some(numbering(&b.block.text).unwrap_or(1));
        }
    }
    // Unlabelled "reference" entries before the document's references heading are body text
    // the detector took for a bibliography (a paragraph citing `Smith (2018)`): consecutive
    // ones become one paragraph again.
    if let Some(refs_at) = all
        .iter()
        .position(|b| b.block.kind == BlockKind::Heading && is_refs_heading(&b.block.text))
    {
        let mut merged: Vec<PageBlock> = Vec::with_capacity(all.len());
        // Whether the last block kept is such a re-read paragraph.
        let mut last_reread = false;
        for (i, mut b) in all.into_iter().enumerate() {
            let reread =
                i < refs_at && b.block.kind == BlockKind::Reference && !is_labelled(&b.block.text);
            if reread {
                b.block.kind = BlockKind::Paragraph;
                b.continues = false;
                if let Some(prev) =
                    merged.last_mut().filter(|p| last_reread && p.block.page == b.block.page)
                {
                    prev.block.text = join_texts(&prev.block.text, &b.block.text);
                    prev.block.bbox = prev.block.bbox.union(&b.block.bbox);
                    continue;
                }
            }
            last_reread = reread;
            merged.push(b);
        }
        all = merged;
    }
    // Entries broken across columns or pages are joined to the entry they continue.
    let mut out: Vec<Block> = Vec::with_capacity(all.len());
    for b in all {
        if b.continues {
            if let Some(prev) = out.iter_mut().rev().find(|p| p.kind == BlockKind::Reference) {
                prev.text = join_texts(&prev.text, &b.block.text);
                continue;
            }
        }
        out.push(b.block);
    }
    out
}

#[cfg(test)]
mod tests;
