//! Reading order by recursive XY-cut over spans, table regions, and lines.
//!
//! Columns come first: a region is searched for a vertical gutter, a strip that splits its
//! text into a left and a right side, each at least two rows tall and reasonably wide, and
//! that only a few lines cross (a title, a full-width caption or table row). When the gutter
//! is clean the region is cut vertically, so a column is read to its end before the next one
//! starts, however its blank lines happen to line up with the other column's. When lines cross
//! it, the region is cut horizontally only at those lines: the parts between them are cut
//! again (each is two columns again), the crossing lines are read where they stand. A region
//! without a gutter is cut horizontally at its blank strips, and the strips that have a gutter
//! of their own are cut again; the rest is read top to bottom as rows, where runs of aligned
//! short cells (near a `Table N` caption, or mostly numeric) become tables.
//!
//! A heading number or an equation number never splits from its line: each side of a gutter
//! needs two rows, a side of only `(N)` numbers is no column, and a side must be a sizeable
//! share of the region's width.

use super::tables::{self, extent, rules::Rules};
use super::{Glyph, Span, WORD_GAP};
use crate::doc::{BBox, Block, BlockKind, Cell, Table};

/// A gutter at least this many body ems wide can separate columns (and table cells).
pub(crate) const MIN_GUTTER: f32 = 0.9;
/// A blank horizontal strip at least this many body ems high separates bands.
const MIN_STRIP: f32 = 0.3;
/// A line crosses a gutter when it reaches this many body ems past it on both sides.
const CROSS_REACH: f32 = 1.0;
/// Each side of a gutter spans at least this share of the region's width.
const MIN_SIDE: f32 = 0.15;
/// A table cell has at most this many characters.
const MAX_CELL: usize = 32;
/// Table cells average at most this many characters.
const MEAN_CELL: usize = 16;
/// At most this many candidate gutters (the least crossed) are checked per region.
const MAX_CANDIDATES: usize = 48;
/// Recursion limit; deeper regions are emitted as they are.
const MAX_DEPTH: u32 = 64;

/// Whether a cell is a list marker or an equation number: a bullet, or a short label of
/// digits, letters or roman numerals closed by `.` or `)` or held in brackets (`3.`, `b)`,
/// `(iv)`, `[2]`, `(12)`).
fn marker(text: &str) -> bool {
    let t = text.trim();
    if t.chars().count() == 1 && t.chars().all(|c| "•◦▪▫‣●○■□∙·-–—*>".contains(c))
    {
        return true;
    }
    let inner = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| t.strip_prefix('[').and_then(|r| r.strip_suffix(']')))
        .or_else(|| t.strip_suffix('.'))
        .or_else(|| t.strip_suffix(')'));
    inner.is_some_and(|l| {
        (1..=4).contains(&l.len())
            && (l.bytes().all(|b| b.is_ascii_digit())
                || l.len() == 1 && l.bytes().all(|b| b.is_ascii_alphabetic())
                || l.bytes().all(|b| b"ivxlIVXL".contains(&b)))
    })
}

/// One text line of a page, in reading order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    pub(crate) page: u32,
    pub(crate) bbox: BBox,
    /// The column (region after the last vertical cut) the line sits in.
    pub(crate) col: BBox,
    pub(crate) text: String,
    /// Font size of the line's longest span.
    pub(crate) size: f32,
    /// Fraction of bold glyphs.
    pub(crate) bold: f32,
    /// Byte length of the text's leading run of bold glyphs (from the line's first span).
    pub(crate) lead_bold: usize,
}

/// What reading order yields: lines, and tables found whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Line(Line),
    Table(Block),
}

/// Returns a page's body spans as lines and tables in reading order. A span whose `table` is
/// `Some(i)` stands for `tables[i]`, found before (ruled tables): it is read where it stands.
pub(crate) fn order(
    spans: &[Span],
    page: u32,
    body: f32,
    tables: Vec<Block>,
    glyphs: &[Glyph],
    rules: &Rules,
) -> Vec<Item> {
    let captions = spans
        .iter()
        .filter(|s| super::blocks::caption_label(&s.text) == Some(true))
        .map(|s| s.bbox)
        .collect();
    let tables = tables.into_iter().map(Some).collect();
    let em = body.max(1.0);
    let pitch = extent::line_pitch(spans, em);
    let mut cx = Cut { spans, em, pitch, page, captions, tables, glyphs, rules, out: Vec::new() };
    let all: Vec<usize> = (0..spans.len()).collect();
    if !all.is_empty() {
        // The root column is the text's own extent, so indents are measured from the margin.
        let col = cx.bbox(&all);
        cx.cut(all, col, 0);
    }
    cx.out
}

struct Cut<'a> {
    spans: &'a [Span],
    em: f32,
    /// The page's line pitch (top to top), the first step a table's rows may take.
    pitch: f32,
    page: u32,
    /// Boxes of `Table N` captions on the page.
    captions: Vec<BBox>,
    /// The tables found before reading order, taken when their stand-in span is read.
    tables: Vec<Option<Block>>,
    /// The page's glyphs and rules, for reading the grid of a table found by alignment.
    glyphs: &'a [Glyph],
    rules: &'a Rules,
    out: Vec<Item>,
}

/// A vertical gutter of a region: where to split it, and the lines that cross it.
struct Gutter {
    /// Spans left of the gutter, right of it, and crossing it.
    left: Vec<usize>,
    right: Vec<usize>,
    crossers: Vec<usize>,
    /// Blank width between the sides.
    width: f32,
}

/// Uncovered stretches of `[lo, hi]`, each at least `min` long.
fn gaps(mut iv: Vec<(f32, f32)>, lo: f32, hi: f32, min: f32) -> Vec<(f32, f32)> {
    iv.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = Vec::new();
    let mut cursor = lo;
    for (a, b) in iv {
        if a - cursor >= min {
            out.push((cursor, a));
        }
        cursor = cursor.max(b);
    }
    if hi - cursor >= min {
        out.push((cursor, hi));
    }
    out
}

impl Cut<'_> {
    fn bbox(&self, idx: &[usize]) -> BBox {
        let mut it = idx.iter().map(|&i| self.spans[i].bbox);
        let first = it.next().unwrap_or_default();
        it.fold(first, |a, b| a.union(&b))
    }

    /// Number of distinct text rows (baselines) among `idx`.
    fn rows(&self, idx: &[usize]) -> usize {
        // A table's stand-in counts as the rows of text its height would hold.
        let mut ys: Vec<f32> = Vec::with_capacity(idx.len());
        for &i in idx {
            let s = &self.spans[i];
            if s.table.is_some() {
                let mut y = s.bbox.y0;
                while y < s.bbox.y1 {
                    ys.push(y);
                    y += self.em;
                }
            } else {
                ys.push(s.center_y());
            }
        }
        ys.sort_by(f32::total_cmp);
        let mut n = usize::from(!ys.is_empty());
        for w in ys.windows(2) {
            if w[1] - w[0] > 0.5 * self.em {
                n += 1;
            }
        }
        n
    }

    fn cut(&mut self, idx: Vec<usize>, col: BBox, depth: u32) {
        if idx.len() <= 1 || depth > MAX_DEPTH {
            return self.leaf(&idx, col);
        }
        let bbox = self.bbox(&idx);
        if let Some(g) = self.gutter(&idx, bbox) {
            if g.crossers.is_empty() {
                // A table's cell columns are gutters too: keep a table whole (a column of
                // prose beside a table is no table column: its lines are long).
                if self.mean_chars(&g.right) <= MEAN_CELL as f32 && self.mostly_table(&idx) {
                    return self.leaf(&idx, col);
                }
                let (lb, rb) = (self.bbox(&g.left), self.bbox(&g.right));
                let lcol = BBox::new(lb.x0, bbox.y0, lb.x1, bbox.y1);
                let rcol = BBox::new(rb.x0, bbox.y0, rb.x1, bbox.y1);
                self.cut(g.left, lcol, depth + 1);
                self.cut(g.right, rcol, depth + 1);
                return;
            }
            let parts = self.split_at_crossers(&idx, &g.crossers);
            if parts.len() > 1 {
                for part in parts {
                    self.cut(part, col, depth + 1);
                }
                return;
            }
        }
        let bands = self.bands(idx);
        if bands.len() == 1 {
            return self.leaf(&bands[0], col);
        }
        // Bands without a gutter of their own are read together, so a table or a paragraph
        // that blank strips cut apart stays one run of rows; so are bands of table cells, so
        // that a table's header rows stay with its body.
        let mut run: Vec<usize> = Vec::new();
        for band in bands {
            if band.len() > 1
                && !self.tabular(&band)
                && self.gutter(&band, self.bbox(&band)).is_some()
            {
                if !run.is_empty() {
                    self.leaf(&std::mem::take(&mut run), col);
                }
                self.cut(band, col, depth + 1);
            } else {
                run.extend(band);
            }
        }
        if !run.is_empty() {
            self.leaf(&run, col);
        }
    }

    /// Returns the region's best column gutter: the fewest crossing lines, then the widest.
    fn gutter(&self, idx: &[usize], bbox: BBox) -> Option<Gutter> {
        if idx.len() < 4 {
            return None;
        }
        let em = self.em;
        let w = MIN_GUTTER * em;
        let mut x0s: Vec<f32> = idx.iter().map(|&i| self.spans[i].bbox.x0).collect();
        let mut x1s: Vec<f32> = idx.iter().map(|&i| self.spans[i].bbox.x1).collect();
        x0s.sort_by(f32::total_cmp);
        x1s.sort_by(f32::total_cmp);
        // Candidate strips start where a span ends; a strip is `[a, a + w]`.
        let mut cands: Vec<(usize, f32)> = Vec::new();
        for (k, &a) in x1s.iter().enumerate() {
            if x1s.get(k + 1).is_some_and(|&next| next - a < 0.01) || a + w > bbox.x1 {
                continue;
            }
            let left = x1s.partition_point(|&x| x <= a + 0.01);
            let right = x0s.len() - x0s.partition_point(|&x| x < a + w);
            let over = idx.len().saturating_sub(left + right);
            if left >= 2 && right >= 2 && over * 2 <= idx.len() {
                cands.push((over, a));
            }
        }
        cands.sort_by(|p, q| p.0.cmp(&q.0).then(p.1.total_cmp(&q.1)));
        let mut best: Option<(usize, Gutter)> = None;
        for (_, a) in cands.into_iter().take(MAX_CANDIDATES) {
            let Some(g) = self.check_gutter(idx, bbox, a, w) else { continue };
            let rows = self.rows(&g.crossers);
            let better = match &best {
                None => true,
                Some((r, b)) => rows < *r || rows == *r && g.width > b.width,
            };
            if better {
                best = Some((rows, g));
            }
        }
        best.map(|(_, g)| g)
    }

    /// Returns the gutter at the strip `[a, a + w]` if it separates two real columns.
    fn check_gutter(&self, idx: &[usize], bbox: BBox, a: f32, w: f32) -> Option<Gutter> {
        let reach = CROSS_REACH * self.em;
        let mid = a + 0.5 * w;
        let (mut left, mut right, mut crossers) = (Vec::new(), Vec::new(), Vec::new());
        let mut strays = Vec::new();
        for &i in idx {
            let b = self.spans[i].bbox;
            if b.x1 <= a + 0.01 {
                left.push(i);
            } else if b.x0 >= a + w {
                right.push(i);
            } else if b.x0 < a - reach && b.x1 > a + w + reach {
                crossers.push(i);
            } else {
                // A line that reaches into the strip but not across: its side is its centre.
                strays.push(i);
                if (b.x0 + b.x1) * 0.5 < mid {
                    left.push(i);
                } else {
                    right.push(i);
                }
            }
        }
        let (lr, rr) = (self.rows(&left), self.rows(&right));
        if lr < 2 || rr < 2 || self.all_eq_numbers(&right) || self.all_eq_numbers(&left) {
            return None;
        }
        // Rows, not spans: a text layer may give one span per glyph.
        if self.rows(&crossers) > lr.max(rr) || self.rows(&strays) * 8 > lr.max(rr) {
            return None;
        }
        let (lb, rb) = (self.bbox(&left), self.bbox(&right));
        let min_side = (MIN_SIDE * bbox.width()).max(3.0 * self.em);
        if lb.width() < min_side || rb.width() < min_side {
            return None;
        }
        // Side by side, not one above the other.
        if lb.y1.min(rb.y1) - lb.y0.max(rb.y0) <= 0.0 {
            return None;
        }
        let x1 = left.iter().map(|&i| self.spans[i].bbox.x1).fold(f32::NEG_INFINITY, f32::max);
        let x0 = right.iter().map(|&i| self.spans[i].bbox.x0).fold(f32::INFINITY, f32::min);
        Some(Gutter { left, right, crossers, width: x0 - x1 })
    }

    /// Cuts a region horizontally at its crossing lines: the parts between them, and the
    /// crossing lines (with anything on their rows), top to bottom.
    fn split_at_crossers(&self, idx: &[usize], crossers: &[usize]) -> Vec<Vec<usize>> {
        // The crossing rows' vertical extents, merged where they overlap.
        let mut bands: Vec<(f32, f32)> =
            crossers.iter().map(|&i| (self.spans[i].bbox.y0, self.spans[i].bbox.y1)).collect();
        bands.sort_by(|p, q| p.0.total_cmp(&q.0));
        let mut merged: Vec<(f32, f32)> = Vec::new();
        for (y0, y1) in bands {
            match merged.last_mut() {
                Some(m) if y0 <= m.1 => m.1 = m.1.max(y1),
                _ => merged.push((y0, y1)),
            }
        }
        // Slot 2k is the part above crossing band k, slot 2k+1 is band k.
        let mut slots: Vec<Vec<usize>> = vec![Vec::new(); 2 * merged.len() + 1];
        let is_crosser = |i: usize| crossers.contains(&i);
        for &i in idx {
            let cy = self.spans[i].center_y();
            let k = merged.partition_point(|m| m.1 < cy);
            let inside = k < merged.len() && cy >= merged[k].0;
            let slot = if is_crosser(i) || inside { 2 * k + 1 } else { 2 * k };
            slots[slot.min(2 * merged.len())].push(i);
        }
        // Crossing bands with nothing between them are read as one.
        let mut out: Vec<Vec<usize>> = Vec::new();
        let mut prev_band = false;
        for (s, part) in slots.into_iter().enumerate() {
            if part.is_empty() {
                continue;
            }
            let band = s % 2 == 1;
            match out.last_mut() {
                Some(last) if band && prev_band => last.extend(part),
                _ => out.push(part),
            }
            prev_band = band;
        }
        out
    }

    /// Splits at every blank horizontal strip, top to bottom.
    fn bands(&self, mut idx: Vec<usize>) -> Vec<Vec<usize>> {
        idx.sort_by(|&a, &b| self.spans[a].bbox.y0.total_cmp(&self.spans[b].bbox.y0));
        let mut out: Vec<Vec<usize>> = Vec::new();
        let mut bottom = f32::NEG_INFINITY;
        for i in idx {
            let b = self.spans[i].bbox;
            match out.last_mut() {
                Some(band) if b.y0 - bottom < MIN_STRIP * self.em => band.push(i),
                _ => out.push(vec![i]),
            }
            bottom = bottom.max(b.y1);
        }
        out
    }

    /// Whether every span is an equation number like `(12)`.
    fn all_eq_numbers(&self, idx: &[usize]) -> bool {
        idx.iter().all(|&i| {
            let t = self.spans[i].text.as_str();
            t.len() <= 8 && t.starts_with('(') && t.ends_with(')')
        })
    }

    /// Groups spans into rows, top to bottom, each row's spans left to right.
    fn row_groups(&self, idx: &[usize]) -> Vec<Vec<usize>> {
        let mut order: Vec<usize> =
            idx.iter().copied().filter(|&i| self.spans[i].table.is_none()).collect();
        order.sort_by(|&a, &b| self.spans[a].center_y().total_cmp(&self.spans[b].center_y()));
        let mut rows: Vec<Vec<usize>> = Vec::new();
        let mut row_box = BBox::default();
        for i in order {
            let s = &self.spans[i];
            let cy = s.center_y();
            match rows.last_mut() {
                Some(row) if cy >= row_box.y0 && cy <= row_box.y1 => {
                    row.push(i);
                    row_box = row_box.union(&s.bbox);
                }
                _ => {
                    rows.push(vec![i]);
                    row_box = s.bbox;
                }
            }
        }
        for row in &mut rows {
            row.sort_by(|&a, &b| self.spans[a].bbox.x0.total_cmp(&self.spans[b].bbox.x0));
        }
        rows
    }

    /// Whether a row looks like a row of table cells: two or more short spans, well apart.
    fn cell_row(&self, row: &[usize]) -> bool {
        row.len() >= 2
            && row.iter().all(|&i| self.spans[i].text.chars().count() <= MAX_CELL)
            && row.windows(2).all(|w| {
                self.spans[w[1]].bbox.x0 - self.spans[w[0]].bbox.x1 >= MIN_GUTTER * self.em
            })
    }

    /// Mean characters per span.
    fn mean_chars(&self, idx: &[usize]) -> f32 {
        let chars: usize = idx.iter().map(|&i| self.spans[i].text.chars().count()).sum();
        chars as f32 / idx.len().max(1) as f32
    }

    /// Whether every row of the region is a row of short table cells.
    fn tabular(&self, idx: &[usize]) -> bool {
        let chars: usize = idx.iter().map(|&i| self.spans[i].text.chars().count()).sum();
        chars <= MEAN_CELL * idx.len() && self.row_groups(idx).iter().all(|r| self.cell_row(r))
    }

    /// Whether most of the region's rows belong to tables (a caption's last line or a note
    /// may sit beside them).
    fn mostly_table(&self, idx: &[usize]) -> bool {
        let rows = self.row_groups(idx);
        let (mut r, mut in_tables) = (0, 0);
        while r < rows.len() {
            match self.table_at(&rows, r) {
                Some((end, _)) => {
                    in_tables += end - r;
                    r = end;
                }
                None => r += 1,
            }
        }
        in_tables * 2 >= rows.len()
    }

    /// Finds a table starting at `rows[start]`; returns the end of its rows and the table.
    ///
    /// The run of rows grows while the page shows them as the table's (docs/tables.md § 4):
    /// each row a row of cells (or lone short cells between two), in the font size of the
    /// table's first row, at most two row pitches below the row before (the table's own pitch,
    /// the page's line pitch for its first step), and not running across the gutters of the
    /// rows below the first as prose.
    fn table_at(&self, rows: &[Vec<usize>], start: usize) -> Option<(usize, Block)> {
        if !self.cell_row(&rows[start]) {
            return None;
        }
        let top = |r: &Vec<usize>| self.bbox(r).y0;
        let gap = 0.5 * MIN_GUTTER * self.em;
        // The gutters of the run's rows below its first (which may be a header spanning
        // columns): none while the first is alone.
        let gutters_of = |end: usize| {
            let body: Vec<&[usize]> = rows[start + 1..end].iter().map(Vec::as_slice).collect();
            extent::gutters(self.spans, &body, gap)
        };
        // The run's font sizes.
        let sizes_of = |end: usize| {
            let all: Vec<usize> = rows[start..end].iter().flatten().copied().collect();
            extent::sizes_of(self.spans, &all)
        };
        // Top-to-top steps between the run's consecutive rows of cells.
        let mut steps: Vec<f32> = Vec::new();
        let mut last_cells = top(&rows[start]);
        // Whether `rows[k]` may follow `rows[k - 1]` in the run `start..end`.
        let follows = |k: usize, end: usize, steps: &[f32]| {
            let step = top(&rows[k]) - top(&rows[k - 1]);
            let pitch = extent::pitch(steps).unwrap_or(self.pitch);
            step <= 2.0 * pitch
                && extent::in_sizes(self.spans, &rows[k], &sizes_of(end))
                && (!extent::runs_across(self.spans, &rows[k], &gutters_of(end))
                    || self.under_cell(&rows[start..k], &rows[k]))
        };
        let mut end = start + 1;
        while end < rows.len() {
            if !follows(end, end, &steps) {
                tracing::trace!(
                    target: "corpus::tables",
                    "run from {:?} stops before {:?}: step {}, pitch {:?}, sizes {}, across {}",
                    self.spans[rows[start][0]].text,
                    self.spans[rows[end][0]].text,
                    top(&rows[end]) - top(&rows[end - 1]),
                    extent::pitch(&steps),
                    extent::in_sizes(self.spans, &rows[end], &sizes_of(end)),
                    extent::runs_across(self.spans, &rows[end], &gutters_of(end)),
                );
                break;
            }
            if self.cell_row(&rows[end]) {
                steps.push(top(&rows[end]) - last_cells);
                last_cells = top(&rows[end]);
                end += 1;
                continue;
            }
            // Lone short cells between cell rows (a row label, the lines of a wrapped cell),
            // each as the table's rows are (size, pitch, gutters), and a cell row after them.
            let short = |k: usize| {
                rows[k].len() == 1 && self.spans[rows[k][0]].text.chars().count() <= MAX_CELL
            };
            let mut k = end;
            while k < rows.len() && short(k) && (k == end || follows(k, end, &steps)) {
                k += 1;
            }
            // Several lone lines are a wrapped cell's only where none is a number: numbers do
            // not wrap (a chart's axis labels stand one under another); else one, as a label.
            if k > end + 1 && (end..k).any(|i| tables::grid::numeric(&self.spans[rows[i][0]].text))
            {
                k = end + 1;
            }
            let lone =
                k > end && k < rows.len() && self.cell_row(&rows[k]) && follows(k, end, &steps);
            if !lone {
                tracing::trace!(
                    target: "corpus::tables",
                    "run from {:?} stops at lone rows {:?}",
                    self.spans[rows[start][0]].text,
                    rows[end..k.min(rows.len() - 1) + 1]
                        .iter()
                        .map(|r| r.iter().map(|&i| self.spans[i].text.as_str()).collect::<Vec<_>>())
                        .collect::<Vec<_>>()
                );
                break;
            }
            end = k;
        }
        let run = &rows[start..end];
        if run.len() < 2 {
            return None;
        }
        // A first row whose text runs across the body's gutters is a line of prose that
        // happens to have wide word spaces, not the table's header.
        if run.len() > 2 && extent::runs_across(self.spans, &run[0], &gutters_of(end)) {
            return None;
        }
        let spans: Vec<usize> = run.iter().flatten().copied().collect();
        let bbox = self.bbox(&spans);
        // Cell columns: the gaps of the cell rows' projection onto x.
        let xs: Vec<(f32, f32)> = run
            .iter()
            .filter(|r| r.len() >= 2)
            .flatten()
            .map(|&i| (self.spans[i].bbox.x0, self.spans[i].bbox.x1))
            .collect();
        let gutters = gaps(xs, bbox.x0, bbox.x1, 0.5 * MIN_GUTTER * self.em);
        let gutters: Vec<(f32, f32)> =
            gutters.into_iter().filter(|g| g.0 > bbox.x0 && g.1 < bbox.x1).collect();
        let k = gutters.len() + 1;
        if k < 2 {
            return None;
        }
        if !self.accepted(run, &spans, &gutters, bbox) {
            return None;
        }
        // The cells as the grid builder reads them from the words (spans, rowspans, header
        // lines); the alignment of spans below is the fallback.
        let (em, pad) = (self.em, 0.3 * self.em);
        let region = BBox::new(bbox.x0 - pad, bbox.y0 - 0.2, bbox.x1 + pad, bbox.y1 + 0.2);
        let words = tables::words_in(self.glyphs, &region, self.rules);
        let inner = self.rules.within(&region, 2.0);
        if let Some(built) = tables::grid::build(&words, &inner, region, em) {
            let t = built.table;
            let mut b = Block::new(BlockKind::Table, self.page, bbox, t.flat_text());
            b.table = Some(t);
            return Some((end, b));
        }
        self.aligned_table(run, &gutters, bbox).map(|b| (end, b))
    }

    /// Whether a lone span sits under one cell of the nearest row of cells above it (`rows`,
    /// top to bottom): it starts within that cell's width and stops before the next cell on
    /// its right. A wrapped cell's next line, read before the table's gutters are known.
    fn under_cell(&self, rows: &[Vec<usize>], row: &[usize]) -> bool {
        let [i] = row else { return false };
        let Some(above) = rows.iter().rev().find(|r| r.len() >= 2) else { return false };
        let b = &self.spans[*i].bbox;
        above.iter().enumerate().any(|(j, &a)| {
            let a = &self.spans[a].bbox;
            let next = above.get(j + 1).map_or(f32::MAX, |&n| self.spans[n].bbox.x0);
            b.x0 >= a.x0 - 0.5 * self.em && b.x0 < a.x1 && b.x1 < next
        })
    }

    /// Whether a run of cell rows is a table (docs/tables.md § 4, acceptance): short cells,
    /// and numbers near a caption, or mostly numbers in three columns and rows, or alignment
    /// alone.
    fn accepted(
        &self,
        run: &[Vec<usize>],
        spans: &[usize],
        gutters: &[(f32, f32)],
        bbox: BBox,
    ) -> bool {
        let k = gutters.len() + 1;
        let n_rows = run.len();
        let chars: usize = spans.iter().map(|&i| self.spans[i].text.chars().count()).sum();
        if chars > MEAN_CELL * spans.len() {
            return false;
        }
        let numeric = spans
            .iter()
            .filter(|&&i| self.spans[i].text.bytes().any(|b| b.is_ascii_digit()))
            .count() as f32
            / spans.len() as f32;
        let em = self.em;
        let near_caption = self.captions.iter().any(|c| {
            c.x0 < bbox.x1
                && c.x1 > bbox.x0
                && c.y0 > bbox.y0 - 12.0 * em
                && c.y0 < bbox.y1 + 4.0 * em
        });
        // Without a caption or numbers, alignment alone: three or more rows of cells with
        // text on both sides of one gutter (the run's rows keep to its gutters), unless one
        // side of a two-column run is a column of list markers or equation numbers (a list,
        // numbered equations).
        let cell_rows: Vec<&Vec<usize>> = run.iter().filter(|r| r.len() >= 2).collect();
        // Rows with text on both sides of a gutter, for its best-supported gutter (a display
        // equation's number stands beside one line of it, not three).
        let support = gutters
            .iter()
            .map(|g| {
                let side = |r: &Vec<usize>, left: bool| {
                    r.iter().any(|&i| {
                        let b = &self.spans[i].bbox;
                        if left {
                            b.x1 <= g.0 + 0.01
                        } else {
                            b.x0 >= g.1 - 0.01
                        }
                    })
                };
                cell_rows.iter().filter(|r| side(r, true) && side(r, false)).count()
            })
            .max()
            .unwrap_or(0);
        let aligned = support >= 3
            && !(k == 2
                && (cell_rows.iter().all(|r| marker(&self.spans[r[0]].text))
                    || cell_rows.iter().all(|r| marker(&self.spans[r[r.len() - 1]].text))));
        (near_caption && numeric >= 0.25 && (k >= 3 || numeric >= 0.5))
            || (numeric >= 0.6 && k >= 3 && n_rows >= 3)
            || aligned
    }

    /// The fallback grid of an accepted run: each span in the column of the gutters its
    /// centre falls between; `None` when fewer than 60 % of the rows have two filled cells.
    fn aligned_table(
        &self,
        run: &[Vec<usize>],
        gutters: &[(f32, f32)],
        bbox: BBox,
    ) -> Option<Block> {
        let (k, n_rows) = (gutters.len() + 1, run.len());
        let col_of = |s: &Span| {
            let cx = (s.bbox.x0 + s.bbox.x1) * 0.5;
            gutters.iter().filter(|g| (g.0 + g.1) * 0.5 < cx).count()
        };
        let mut grid: Vec<Vec<Vec<&Span>>> = vec![vec![Vec::new(); k]; n_rows];
        for (r, row) in run.iter().enumerate() {
            for &i in row {
                let s = &self.spans[i];
                grid[r][col_of(s)].push(s);
            }
        }
        let multi = grid.iter().filter(|row| row.iter().filter(|c| !c.is_empty()).count() >= 2);
        if multi.count() * 10 < n_rows * 6 {
            return None;
        }
        let mut cells = Vec::new();
        let mut text = String::new();
        for (r, row) in grid.iter_mut().enumerate() {
            if r > 0 {
                text.push('\n');
            }
            let mut first = true;
            for (c, cell) in row.iter_mut().enumerate() {
                if cell.is_empty() {
                    continue;
                }
                cell.sort_by(|a, b| a.bbox.x0.total_cmp(&b.bbox.x0));
                let t: Vec<&str> = cell.iter().map(|s| s.text.as_str()).collect();
                let t = super::blocks::clean(&t.join(" "));
                if !first {
                    text.push(' ');
                }
                first = false;
                text.push_str(&t);
                cells.push(Cell {
                    row: r as u32,
                    col: c as u32,
                    row_span: 1,
                    col_span: 1,
                    text: t,
                    header: r == 0,
                });
            }
        }
        let mut b = Block::new(BlockKind::Table, self.page, bbox, text);
        b.table = Some(Table { rows: n_rows as u32, cols: k as u32, cells });
        Some(b)
    }

    /// Emits the region's spans as lines, top to bottom, each row left to right; runs of
    /// rows that form a table are emitted as one table.
    fn leaf(&mut self, idx: &[usize], col: BBox) {
        let rows = self.row_groups(idx);
        let mut found: Vec<usize> =
            idx.iter().copied().filter(|&i| self.spans[i].table.is_some()).collect();
        found.sort_by(|&a, &b| self.spans[a].bbox.y0.total_cmp(&self.spans[b].bbox.y0));
        let mut found = found.into_iter().peekable();
        let mut r = 0;
        while r < rows.len() {
            let top = self.bbox(&rows[r]).y0;
            while let Some(t) = found.next_if(|&t| self.spans[t].bbox.y0 <= top) {
                self.take_table(t);
            }
            if let Some((end, table)) = self.table_at(&rows, r) {
                self.out.push(Item::Table(table));
                r = end;
                continue;
            }
            self.emit_row(&rows[r], col);
            r += 1;
        }
        for t in found {
            self.take_table(t);
        }
    }

    /// Emits the table a stand-in span holds the place of.
    fn take_table(&mut self, span: usize) {
        let i = self.spans[span].table.map_or(usize::MAX, |i| i as usize);
        if let Some(b) = self.tables.get_mut(i).and_then(Option::take) {
            self.out.push(Item::Table(b));
        }
    }

    fn emit_row(&mut self, row: &[usize], col: BBox) {
        let mut text = String::new();
        let mut bbox = self.spans[row[0]].bbox;
        let (mut chars, mut bold) = (0u32, 0u32);
        let mut size = self.spans[row[0]].size;
        let mut longest = 0;
        for (j, &i) in row.iter().enumerate() {
            let s = &self.spans[i];
            if j > 0 {
                let gap = s.bbox.x0 - self.spans[row[j - 1]].bbox.x1;
                if gap > WORD_GAP * s.size.max(1.0) {
                    text.push(' ');
                }
            }
            text.push_str(&s.text);
            bbox = bbox.union(&s.bbox);
            chars += s.chars;
            bold += s.bold;
            if s.chars > longest {
                longest = s.chars;
                size = s.size;
            }
        }
        let bold = if chars == 0 { 0.0 } else { bold as f32 / chars as f32 };
        let lead_bold = self.spans[row[0]].lead_bold;
        self.out.push(Item::Line(Line { page: self.page, bbox, col, text, size, bold, lead_bold }));
    }
}

#[cfg(test)]
mod tests {
    use super::super::spans;
    use super::super::tests::{line, para};
    use super::*;

    fn lines_of(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Line(l) => l.text.clone(),
                Item::Table(t) => format!("TABLE {}", t.text),
            })
            .collect()
    }

    #[test]
    fn full_width_title_then_two_columns_then_full_width_caption() {
        let mut g: Vec<_> = line(150.0, 50.0, 10.0, false, "a title line spanning the page width")
            .into_iter()
            .collect();
        for l in para(72.0, 100.0, 5, "left").into_iter().chain(para(320.0, 100.0, 5, "right")) {
            g.extend(l);
        }
        g.extend(line(
            72.0,
            200.0,
            10.0,
            false,
            "a wide caption that crosses the gutter of the page",
        ));
        for l in para(72.0, 230.0, 3, "low").into_iter().chain(para(320.0, 230.0, 3, "lor")) {
            g.extend(l);
        }
        let items = order(&spans(&g), 0, 10.0, Vec::new(), &g, &Rules::default());
        let t = lines_of(&items);
        assert_eq!(t[0], "a title line spanning the page width");
        assert!(t[1..6].iter().all(|l| l.starts_with("left")), "{t:?}");
        assert!(t[6..11].iter().all(|l| l.starts_with("right")), "{t:?}");
        assert!(t[11].starts_with("a wide caption"));
        assert!(t[12..15].iter().all(|l| l.starts_with("low")), "{t:?}");
        assert!(t[15..18].iter().all(|l| l.starts_with("lor")), "{t:?}");
    }

    #[test]
    fn short_left_column_tail_is_read_before_right_column() {
        let mut g = Vec::new();
        for l in para(72.0, 100.0, 8, "left").into_iter().chain(para(320.0, 100.0, 4, "right")) {
            g.extend(l);
        }
        let t = lines_of(&order(&spans(&g), 0, 10.0, Vec::new(), &g, &Rules::default()));
        assert!(t[..8].iter().all(|l| l.starts_with("left")), "{t:?}");
    }

    #[test]
    fn equation_number_and_heading_number_stay_on_their_line() {
        let mut g = line(72.0, 100.0, 12.0, true, "1");
        g.extend(line(90.0, 100.0, 12.0, true, "Introduction"));
        g.extend(line(150.0, 140.0, 10.0, false, "x = y + z"));
        g.extend(line(500.0, 140.0, 10.0, false, "(1)"));
        let t = lines_of(&order(&spans(&g), 0, 10.0, Vec::new(), &g, &Rules::default()));
        assert_eq!(t, vec!["1 Introduction".to_string(), "x = y + z (1)".to_string()]);
    }

    #[test]
    fn blank_lines_level_in_both_columns_do_not_cut_across_the_gutter() {
        // Both columns have a blank line at y = 160: a full-width cut there would read the
        // right column's top before the left column's bottom.
        let mut g = line(150.0, 50.0, 10.0, false, "a title line spanning the page width");
        let parts = [(72.0, 100.0, 5, "la"), (72.0, 172.0, 5, "lb"), (320.0, 100.0, 5, "ra")];
        for (x, y, n, w) in parts {
            for l in para(x, y, n, w) {
                g.extend(l);
            }
        }
        for l in para(320.0, 172.0, 5, "rb") {
            g.extend(l);
        }
        let t = lines_of(&order(&spans(&g), 0, 10.0, Vec::new(), &g, &Rules::default()));
        let firsts: Vec<&str> = t.iter().map(|l| l.split(' ').next().unwrap_or("")).collect();
        let mut want = vec!["a"];
        for w in ["la", "lb", "ra", "rb"] {
            want.extend([w; 5]);
        }
        assert_eq!(firsts, want, "{t:?}");
    }

    #[test]
    fn table_under_a_caption_inside_a_column_is_found_whole() {
        let mut g = Vec::new();
        for l in para(72.0, 60.0, 3, "body") {
            g.extend(l);
        }
        g.extend(line(72.0, 100.0, 10.0, false, "Table 1: Scores of the systems on the"));
        g.extend(line(72.0, 112.0, 10.0, false, "sets."));
        let rows = [["System", "Acc", "F1"], ["base", "71.2", "68.0"], ["ours", "75.9", "70.3"]];
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                g.extend(line(90.0 + c as f32 * 60.0, 124.0 + r as f32 * 12.0, 9.0, r == 0, cell));
            }
        }
        for l in para(72.0, 172.0, 3, "after").into_iter().chain(para(320.0, 60.0, 12, "right")) {
            g.extend(l);
        }
        let t = lines_of(&order(&spans(&g), 0, 10.0, Vec::new(), &g, &Rules::default()));
        assert_eq!(t[3], "Table 1: Scores of the systems on the", "{t:?}");
        assert_eq!(t[4], "sets.");
        assert_eq!(t[5], "TABLE System Acc F1\nbase 71.2 68.0\nours 75.9 70.3");
        assert!(t[6].starts_with("after") && t[9].starts_with("right"), "{t:?}");
    }

    #[test]
    fn list_markers_and_equation_numbers_are_markers() {
        for t in ["•", "-", "1.", "12.", "a)", "(iv)", "[3]", "(12)", "B."] {
            assert!(marker(t), "{t}");
        }
        for t in ["Total", "1,204", "31.2", "(a note)", "2010", "NASA"] {
            assert!(!marker(t), "{t}");
        }
    }

    #[test]
    fn numeric_grid_near_caption_is_a_table() {
        let mut g = line(72.0, 100.0, 10.0, false, "Table 2: Scores.");
        let rows = [["Model", "P", "R"], ["base", "71.2", "68.0"], ["ours", "75.9", "70.3"]];
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                g.extend(line(72.0 + c as f32 * 80.0, 120.0 + r as f32 * 12.0, 10.0, false, cell));
            }
        }
        let items = order(&spans(&g), 0, 10.0, Vec::new(), &g, &Rules::default());
        let table = items.iter().find_map(|i| match i {
            Item::Table(t) => Some(t),
            Item::Line(_) => None,
        });
        let t = table.and_then(|t| t.table.as_ref()).expect("a table");
        assert_eq!((t.rows, t.cols), (3, 3));
        assert_eq!(t.cells[4].text, "71.2");
        assert!(t.cells[0].header && !t.cells[3].header);
    }
}
