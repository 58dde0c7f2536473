//! One table region's words and rules → a cell grid with row and column spans.
//!
//! Column boundaries are the region's vertical rules and, between them, the gutters that the
//! text leaves: x ranges that no segment (words closer than [`SEG_GAP`] ems) of the table's
//! *regular* lines (those with the most segments) covers. Row boundaries are the horizontal
//! rules and, between them, bands of text lines ([`rows`]: a row is a band of lines, decided
//! by the key column, the table's line pitch and the wrapped text). When most bands between
//! horizontal rules hold one line, the rules alone make the rows (a fully ruled table, whose
//! multi-line cells are one row).
//!
//! Grid slots are then merged into cells: across a text boundary where one segment covers
//! both columns (a spanning header), across a rule boundary where the rule is missing and one
//! side is empty (a lattice's merged cell), and downwards where a cell's text stands centred
//! between its row and the next, whose slot is empty (`\multirow`). Empty rows and columns are
//! dropped.

mod rows;

pub(crate) use rows::numeric;

use super::rules::Rules;
use super::Word;
use crate::doc::{BBox, Cell, Table};
use crate::providers::pdfium::structure::blocks::{clean, join_texts};

/// Words closer than this many ems are one segment (one cell's text on one line).
pub(crate) const SEG_GAP: f32 = 0.8;
/// A text gutter is at least this many ems wide.
pub(crate) const MIN_GUTTER: f32 = 0.45;
/// Rules within this many points of a position are at it.
const TOL: f32 = 2.0;

/// A table read from a region.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Built {
    pub(crate) table: Table,
    /// The box of the table's words and interior rules.
    pub(crate) bbox: BBox,
    /// Lines of text in the region.
    pub(crate) lines: usize,
    /// Mean characters per non-empty cell.
    pub(crate) mean_cell: f32,
    /// Rows with at least two non-empty cells.
    pub(crate) multi_rows: usize,
}

/// A run of words on one line, closer than [`SEG_GAP`].
#[derive(Debug, Clone)]
struct Seg {
    bbox: BBox,
    text: String,
    line: usize,
    /// Its words, left to right.
    words: Vec<usize>,
}

/// A text line: its segments left to right.
#[derive(Debug, Clone)]
struct Line {
    bbox: BBox,
    segs: Vec<usize>,
}

impl Line {
    fn cy(&self) -> f32 {
        0.5 * (self.bbox.y0 + self.bbox.y1)
    }
}

/// A column: where its slot ends and where its regular lines' text lies.
#[derive(Debug, Clone, Copy)]
struct Col {
    /// Where its slot ends on the right.
    x1: f32,
    c0: f32,
    c1: f32,
    /// Whether the boundary at `x1` is a drawn rule.
    ruled_right: bool,
}

/// Groups words into lines: a word joins the line whose box holds its vertical centre or
/// overlaps it by half the lower of the two (a superscript, a subscript).
fn lines_of(words: &[Word], rules: &Rules) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..words.len()).collect();
    let cy = |w: &Word| 0.5 * (w.bbox.y0 + w.bbox.y1);
    order.sort_by(|&a, &b| cy(&words[a]).total_cmp(&cy(&words[b])));
    // Each line's first word's box (a union would grow with every tall glyph and swallow
    // the next line), and the union of all its words.
    let mut out: Vec<(BBox, BBox, Vec<usize>)> = Vec::new();
    for i in order {
        let w = &words[i];
        let c = cy(w);
        let joins = out.last().is_some_and(|(core, _, _)| {
            let ov = w.bbox.y1.min(core.y1) - w.bbox.y0.max(core.y0);
            let near =
                c >= core.y0 && c <= core.y1 || ov >= 0.5 * w.bbox.height().min(core.height());
            // A rule between them keeps them apart.
            let (a, b) =
                (cy(w).min(0.5 * (core.y0 + core.y1)), cy(w).max(0.5 * (core.y0 + core.y1)));
            let ruled = rules
                .h
                .iter()
                .any(|r| r.y > a && r.y < b && r.x0 <= w.bbox.x1 && r.x1 >= w.bbox.x0);
            near && !ruled
        });
        if joins {
            let (_, all, v) = out.last_mut().expect("checked");
            v.push(i);
            *all = all.union(&w.bbox);
        } else {
            out.push((w.bbox, w.bbox, vec![i]));
        }
    }
    out.into_iter()
        .map(|(_, _, mut v)| {
            v.sort_by(|&a, &b| words[a].bbox.x0.total_cmp(&words[b].bbox.x0));
            v
        })
        .collect()
}

/// Builds the grid of a region from its words and its rules (already cut to the region).
pub(crate) fn build(words: &[Word], rules: &Rules, region: BBox, em: f32) -> Option<Built> {
    if words.len() < 2 {
        return None;
    }
    let em = em.max(1.0);
    // Vertical rule boundaries: interior rules at least half a line tall.
    let mut vx: Vec<f32> = rules
        .v
        .iter()
        .filter(|r| r.len() >= 0.5 * em && r.x > region.x0 + TOL && r.x < region.x1 - TOL)
        .map(|r| r.x)
        .collect();
    vx.sort_by(f32::total_cmp);
    vx.dedup_by(|a, b| (*a - *b).abs() <= TOL);

    let (mut lines, segs) = segment_lines(words, rules, &vx);
    let cols = columns(&lines, &segs, &vx, region, em);
    let ncols = cols.len();
    if ncols < 2 {
        return None;
    }
    // A segment whose words fall on both sides of a column gutter (cells set closer than
    // SEG_GAP in a header) is two cells.
    let segs = split_at_gutters(&mut lines, segs, words, &cols);
    // Columns each segment covers: those whose text range it overlaps, else the nearest.
    let mut seg_cols: Vec<(usize, usize)> = segs.iter().map(|s| cover(&cols, &s.bbox)).collect();
    let text_box = lines.iter().skip(1).fold(lines[0].bbox, |b, l| b.union(&l.bbox));
    span_partial_rules(&lines, &segs, &mut seg_cols, rules, &cols, text_box, em);
    let occ = |l: &Line| -> Vec<bool> {
        let mut o = vec![false; ncols];
        for &s in &l.segs {
            let (a, b) = seg_cols[s];
            o[a..=b].iter_mut().for_each(|x| *x = true);
        }
        o
    };
    let occs: Vec<Vec<bool>> = lines.iter().map(occ).collect();

    // Horizontal rule boundaries strictly inside the text's vertical extent.
    let mut hy: Vec<f32> = rules
        .h
        .iter()
        .filter(|r| r.y > text_box.y0 + 0.5 && r.y < text_box.y1 - 0.5 && r.len() >= 1.0 * em)
        .map(|r| r.y)
        .collect();
    hy.sort_by(f32::total_cmp);
    hy.dedup_by(|a, b| (*a - *b).abs() <= TOL);
    let band_of = |y: f32| hy.partition_point(|&b| b < y);
    let bands: Vec<usize> = lines.iter().map(|l| band_of(l.cy())).collect();

    // A lattice: most column boundaries are drawn.
    let ruled = cols.iter().take(ncols.saturating_sub(1)).filter(|c| c.ruled_right).count();
    let lattice = ncols >= 2 && ruled * 2 >= ncols - 1;
    let size = rows::median_size(words, em);
    let input = rows::Input {
        lines: &lines,
        segs: &segs,
        seg_cols: &seg_cols,
        occs: &occs,
        bands: &bands,
        cols: &cols,
        size,
    };
    let rows = rows::rows_of(&input, hy.len() + 1, lattice);
    if rows.len() < 2 {
        return None;
    }
    // Each row's extent and the centre of its fullest line.
    let row_box: Vec<BBox> = rows
        .iter()
        .map(|ls| ls.iter().skip(1).fold(lines[ls[0]].bbox, |b, &l| b.union(&lines[l].bbox)))
        .collect();
    let main_cy: Vec<f32> = rows
        .iter()
        .map(|ls| {
            let best = ls.iter().max_by_key(|&&l| (lines[l].segs.len(), usize::MAX - l));
            best.map_or(0.0, |&l| lines[l].cy())
        })
        .collect();
    let frame = Frame {
        segs: &segs,
        seg_cols: &seg_cols,
        cols: &cols,
        rows: &rows,
        row_box: &row_box,
        main_cy: &main_cy,
        bands: &bands,
        hy: &hy,
        rules,
        lattice,
    };
    let mut row_of_line = vec![0; lines.len()];
    for (r, ls) in rows.iter().enumerate() {
        for &l in ls {
            row_of_line[l] = r;
        }
    }
    let mut slots = Slots::new(rows.len(), ncols);
    for (si, s) in segs.iter().enumerate() {
        let r = row_of_line[s.line];
        let (a, b) = seg_cols[si];
        let at = slots.at(r, a);
        slots.segs[at].push(si);
        for c in a..b {
            slots.union(slots.at(r, c), slots.at(r, c + 1));
        }
    }
    frame.merge_unruled(&mut slots);
    frame.merge_multirow(&mut slots);

    // The header is the rows above the first rule that crosses (nearly) the whole table: a
    // partial rule (`\cmidrule`) under a spanning header sits inside the header.
    let full = |y: f32| rules.h_covers(y, TOL, text_box.x0, text_box.x1, 0.9);
    let header_rows = match hy.iter().find(|&&y| full(y)) {
        Some(&y) if row_box[0].y1 < y + 0.5 => row_box.iter().filter(|b| b.y1 < y + 0.5).count(),
        _ => 1,
    };
    let out: Vec<Cell> = slots
        .cells()
        .into_iter()
        .map(|(r, c, rs, cs)| Cell {
            row: r as u32,
            col: c as u32,
            row_span: rs as u32,
            col_span: cs as u32,
            text: slots.text(&segs, r, c, rs, cs),
            header: r < header_rows,
        })
        .collect();
    let table = Table::compact(out);
    if table.rows < 2 || table.cols < 2 {
        return None;
    }
    let filled: Vec<&Cell> = table.cells.iter().filter(|c| !c.text.is_empty()).collect();
    let mean_cell = filled.iter().map(|c| c.text.chars().count()).sum::<usize>() as f32
        / filled.len().max(1) as f32;
    let mut per_row = vec![0usize; table.rows as usize];
    for c in &filled {
        per_row[c.row as usize] += 1;
    }
    let multi_rows = per_row.iter().filter(|&&n| n >= 2).count();
    let mut bbox = text_box;
    for r in rules.h.iter() {
        bbox = bbox.union(&BBox::new(r.x0, r.y, r.x1, r.y));
    }
    for r in rules.v.iter() {
        bbox = bbox.union(&BBox::new(r.x, r.y0, r.x, r.y1));
    }
    Some(Built { table, bbox, lines: lines.len(), mean_cell, multi_rows })
}

/// The region's text lines and their segments; a vertical rule between two words splits them.
fn segment_lines(words: &[Word], rules: &Rules, vx: &[f32]) -> (Vec<Line>, Vec<Seg>) {
    let mut lines: Vec<Line> = Vec::new();
    let mut segs: Vec<Seg> = Vec::new();
    for ws in lines_of(words, rules) {
        let li = lines.len();
        let mut line = Line { bbox: words[ws[0]].bbox, segs: Vec::new() };
        let mut cur: Option<Seg> = None;
        for &wi in &ws {
            let w = &words[wi];
            line.bbox = line.bbox.union(&w.bbox);
            let size = w.size.max(1.0);
            let split = cur.as_ref().is_some_and(|s| {
                let gap = w.bbox.x0 - s.bbox.x1;
                let cy = 0.5 * (w.bbox.y0 + w.bbox.y1);
                gap > SEG_GAP * size
                    || vx.iter().any(|&x| {
                        x > s.bbox.x1 - 0.5
                            && x < w.bbox.x0 + 0.5
                            && rules.v_covers(x, TOL, cy - 0.5, cy + 0.5, 0.5)
                    })
            });
            if split || cur.is_none() {
                if let Some(s) = cur.take() {
                    line.segs.push(segs.len());
                    segs.push(s);
                }
                cur = Some(Seg { bbox: w.bbox, text: w.text.clone(), line: li, words: vec![wi] });
            } else if let Some(s) = cur.as_mut() {
                s.bbox = s.bbox.union(&w.bbox);
                s.text.push(' ');
                s.text.push_str(&w.text);
                s.words.push(wi);
            }
        }
        if let Some(s) = cur.take() {
            line.segs.push(segs.len());
            segs.push(s);
        }
        lines.push(line);
    }
    (lines, segs)
}

/// A header set over a partial rule (`\cmidrule`, `\cline`) spans the columns the rule covers,
/// when nothing else on its line sits over them.
fn span_partial_rules(
    lines: &[Line],
    segs: &[Seg],
    seg_cols: &mut [(usize, usize)],
    rules: &Rules,
    cols: &[Col],
    text_box: BBox,
    em: f32,
) {
    for si in 0..segs.len() {
        let b = segs[si].bbox;
        let under = rules.h.iter().find(|r| {
            r.y > b.y1 - 1.0
                && r.y - b.y1 < 1.2 * em
                && r.x0 <= b.x0 + 1.0
                && r.x1 >= b.x1 - 1.0
                && r.len() < 0.9 * text_box.width()
        });
        let Some(r) = under else { continue };
        let covered: Vec<usize> = (0..cols.len())
            .filter(|&c| {
                let w = (cols[c].c1 - cols[c].c0).max(0.5);
                r.x1.min(cols[c].c1) - r.x0.max(cols[c].c0) > 0.5 * w
            })
            .collect();
        let (Some(&a), Some(&z)) = (covered.first(), covered.last()) else { continue };
        let (ca, cz) = seg_cols[si];
        if z <= a || a > ca || z < cz {
            continue;
        }
        let alone = lines[segs[si].line]
            .segs
            .iter()
            .all(|&o| o == si || seg_cols[o].1 < a || seg_cols[o].0 > z);
        if alone {
            seg_cols[si] = (a, z);
        }
    }
}

/// What the slot merges read: the grid's segments, columns, rows and rules.
struct Frame<'a> {
    segs: &'a [Seg],
    seg_cols: &'a [(usize, usize)],
    cols: &'a [Col],
    /// Each row's lines.
    rows: &'a [Vec<usize>],
    row_box: &'a [BBox],
    /// The centre of each row's fullest line.
    main_cy: &'a [f32],
    /// Each line's band between horizontal rules.
    bands: &'a [usize],
    /// The horizontal rule boundaries.
    hy: &'a [f32],
    rules: &'a Rules,
    lattice: bool,
}

impl Frame<'_> {
    /// Merges slots across a drawn boundary whose rule is missing beside an empty slot: a
    /// vertical rule absent over a row; a horizontal rule between rows of different bands
    /// absent over a column, in a table ruled between its columns too (a booktabs
    /// `\cmidrule` says nothing of the cells beside it: those are placed by the text, see
    /// [`Frame::merge_multirow`]).
    fn merge_unruled(&self, slots: &mut Slots) {
        let (nrows, ncols) = (self.rows.len(), self.cols.len());
        for (r, rb) in self.row_box.iter().enumerate().take(nrows) {
            let (y0, y1) = (rb.y0, rb.y1);
            for (c, col) in self.cols.iter().enumerate().take(ncols - 1) {
                if !col.ruled_right {
                    continue;
                }
                let x = col.x1;
                if !self.rules.v_covers(x, TOL, y0, y1, 0.3)
                    && (slots.empty(r, c) || slots.empty(r, c + 1))
                {
                    slots.union(slots.at(r, c), slots.at(r, c + 1));
                }
            }
        }
        for r in (0..nrows - 1).filter(|_| self.lattice) {
            let (la, lb) = (self.rows[r][0], self.rows[r + 1][0]);
            if self.bands[la] == self.bands[lb] {
                continue;
            }
            let y = self.hy[self.bands[lb] - 1];
            for (c, col) in self.cols.iter().enumerate().take(ncols) {
                let (x0, x1) = (col.c0, col.c1);
                if !self.rules.h_covers(y, TOL, x0, x1, 0.5)
                    && (slots.empty(r, c) || slots.empty(r + 1, c))
                {
                    slots.union(slots.at(r, c), slots.at(r + 1, c));
                }
            }
        }
    }

    /// Text centred on rows whose slots in its columns are empty, within one band: a cell
    /// spanning them (`\multirow`). A span of an odd number of rows (the text on the middle
    /// row's line) is only taken for a row label: not numeric, in the first two columns.
    fn merge_multirow(&self, slots: &mut Slots) {
        let (nrows, ncols) = (self.rows.len(), self.cols.len());
        let band_of_row: Vec<usize> = self.rows.iter().map(|ls| self.bands[ls[0]]).collect();
        for r in 0..nrows {
            for c in 0..ncols {
                let ss = slots.segs[slots.at(r, c)].clone();
                if ss.is_empty() {
                    continue;
                }
                let (a, b) = self.seg_cols[ss[0]];
                let free = |slots: &Slots, rr: usize| {
                    band_of_row[rr] == band_of_row[r] && (a..=b).all(|cc| slots.empty(rr, cc))
                };
                let mut lo = r;
                while lo > 0 && free(slots, lo - 1) {
                    lo -= 1;
                }
                let mut hi = r;
                while hi + 1 < nrows && free(slots, hi + 1) {
                    hi += 1;
                }
                if lo == hi {
                    continue;
                }
                let segs = self.segs;
                let cy = ss.iter().map(|&s| 0.5 * (segs[s].bbox.y0 + segs[s].bbox.y1)).sum::<f32>()
                    / ss.len() as f32;
                let text: String = ss.iter().map(|&s| segs[s].text.as_str()).collect();
                let label = c <= 1 && !text.chars().any(|ch| ch.is_ascii_digit());
                if let Some((r0, r1)) = self.centred_span(cy, lo, r, hi, label) {
                    for rr in r0..r1 {
                        for cc in a..=b {
                            slots.union(slots.at(rr, cc), slots.at(rr + 1, cc));
                        }
                    }
                }
            }
        }
    }

    /// The widest run of rows `r0..=r1` within `lo..=hi` that holds row `r`, on whose middle
    /// the text centre `cy` stands (within a quarter of the run's row pitch); odd runs only
    /// for a row `label`.
    fn centred_span(
        &self,
        cy: f32,
        lo: usize,
        r: usize,
        hi: usize,
        label: bool,
    ) -> Option<(usize, usize)> {
        let main_cy = self.main_cy;
        let mut best: Option<(usize, usize)> = None;
        for r0 in lo..=r {
            for r1 in r.max(r0 + 1)..=hi {
                let pitch = (main_cy[r1] - main_cy[r0]) / (r1 - r0) as f32;
                let mid = 0.5 * (main_cy[r0] + main_cy[r1]);
                let odd = (r1 - r0) % 2 == 0;
                if pitch > 0.0
                    && (cy - mid).abs() <= 0.25 * pitch
                    && (!odd || label)
                    && best.is_none_or(|(p0, p1)| r1 - r0 > p1 - p0)
                {
                    best = Some((r0, r1));
                }
            }
        }
        best
    }
}

/// The grid's slots (row-major): the segments in each, and a union-find over them whose
/// components become cells.
struct Slots {
    ncols: usize,
    nrows: usize,
    segs: Vec<Vec<usize>>,
    parent: Vec<usize>,
}

impl Slots {
    fn new(nrows: usize, ncols: usize) -> Slots {
        Slots {
            ncols,
            nrows,
            segs: vec![Vec::new(); nrows * ncols],
            parent: (0..nrows * ncols).collect(),
        }
    }

    fn at(&self, r: usize, c: usize) -> usize {
        r * self.ncols + c
    }

    fn empty(&self, r: usize, c: usize) -> bool {
        self.segs[self.at(r, c)].is_empty()
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (x, y) = (self.find(a), self.find(b));
        if x != y {
            self.parent[x.max(y)] = x.min(y);
        }
    }

    /// Components → rectangular cells `(row, col, row_span, col_span)`, sorted; a component
    /// that is not a rectangle stays slot by slot.
    fn cells(&mut self) -> Vec<(usize, usize, usize, usize)> {
        let mut comp: std::collections::BTreeMap<usize, (usize, usize, usize, usize, usize)> =
            std::collections::BTreeMap::new();
        for r in 0..self.nrows {
            for c in 0..self.ncols {
                let root = self.find(self.at(r, c));
                let e = comp.entry(root).or_insert((r, c, r, c, 0));
                e.0 = e.0.min(r);
                e.1 = e.1.min(c);
                e.2 = e.2.max(r);
                e.3 = e.3.max(c);
                e.4 += 1;
            }
        }
        let mut cells: Vec<(usize, usize, usize, usize)> = Vec::new();
        for (root, (r0, c0, r1, c1, n)) in &comp {
            if (r1 - r0 + 1) * (c1 - c0 + 1) == *n {
                cells.push((*r0, *c0, r1 - r0 + 1, c1 - c0 + 1));
            } else {
                for r in *r0..=*r1 {
                    for c in *c0..=*c1 {
                        if self.find(self.at(r, c)) == *root {
                            cells.push((r, c, 1, 1));
                        }
                    }
                }
            }
        }
        cells.sort_unstable();
        cells
    }

    /// A cell's text: its segments in line order, left to right, a line's segments joined by
    /// a space and lines by [`join_texts`].
    fn text(&self, segs: &[Seg], r: usize, c: usize, rs: usize, cs: usize) -> String {
        let mut ss: Vec<usize> = Vec::new();
        for rr in r..r + rs {
            for cc in c..c + cs {
                ss.extend(&self.segs[self.at(rr, cc)]);
            }
        }
        ss.sort_by(|&a, &b| {
            segs[a].line.cmp(&segs[b].line).then(segs[a].bbox.x0.total_cmp(&segs[b].bbox.x0))
        });
        let mut text = String::new();
        let mut last_line = usize::MAX;
        for s in ss {
            let t = clean(&segs[s].text);
            if t.is_empty() {
                continue;
            }
            if text.is_empty() {
                text = t;
            } else if segs[s].line == last_line {
                text.push(' ');
                text.push_str(&t);
            } else {
                text = join_texts(&text, &t);
            }
            last_line = segs[s].line;
        }
        text
    }
}

/// Splits segments between two words where one ends within a column's text range and the
/// next starts within the following column's, across the gutter between them.
fn split_at_gutters(lines: &mut [Line], segs: Vec<Seg>, words: &[Word], cols: &[Col]) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::with_capacity(segs.len());
    for l in lines.iter_mut() {
        let old = std::mem::take(&mut l.segs);
        for si in old {
            let s = &segs[si];
            let mut start = 0;
            for i in 0..s.words.len() {
                let end = i + 1 == s.words.len() || {
                    let (a, b) = (&words[s.words[i]].bbox, &words[s.words[i + 1]].bbox);
                    cols.windows(2).any(|c| {
                        a.x1 <= c[0].c1 + 1.0
                            && a.x1 < c[1].c0
                            && b.x0 >= c[1].c0 - 1.0
                            && b.x0 > c[0].c1
                    })
                };
                if end {
                    let ws = &s.words[start..=i];
                    let bbox =
                        ws.iter().skip(1).fold(words[ws[0]].bbox, |b, &w| b.union(&words[w].bbox));
                    let text =
                        ws.iter().map(|&w| words[w].text.as_str()).collect::<Vec<_>>().join(" ");
                    l.segs.push(out.len());
                    out.push(Seg { bbox, text, line: s.line, words: ws.to_vec() });
                    start = i + 1;
                }
            }
        }
    }
    out
}

/// The columns a box covers: those whose text range it overlaps by more than a point (or,
/// overlapping none, the one it is nearest to).
fn cover(cols: &[Col], b: &BBox) -> (usize, usize) {
    let hit: Vec<usize> =
        (0..cols.len()).filter(|&c| b.x1.min(cols[c].c1) - b.x0.max(cols[c].c0) > 1.0).collect();
    match (hit.first(), hit.last()) {
        (Some(&a), Some(&z)) => (a, z),
        _ => {
            let cx = 0.5 * (b.x0 + b.x1);
            let c = (0..cols.len())
                .min_by(|&p, &q| {
                    let d = |c: &Col| (c.c0 - cx).max(cx - c.c1).max(0.0);
                    d(&cols[p]).total_cmp(&d(&cols[q]))
                })
                .unwrap_or(0);
            (c, c)
        }
    }
}

/// Column boundaries: the vertical rules, and in each strip between them the gutters of its
/// regular lines.
fn columns(lines: &[Line], segs: &[Seg], vx: &[f32], region: BBox, em: f32) -> Vec<Col> {
    let mut edges = vec![region.x0.min(region.x1)];
    edges.extend(vx.iter().copied());
    edges.push(region.x1);
    let mut cols: Vec<Col> = Vec::new();
    for k in 0..edges.len() - 1 {
        let (sx0, sx1) = (edges[k], edges[k + 1]);
        let inside = |s: &Seg| s.bbox.x0 >= sx0 - TOL && s.bbox.x1 <= sx1 + TOL;
        // Segments per line inside the strip.
        let per_line: Vec<Vec<usize>> = lines
            .iter()
            .map(|l| l.segs.iter().copied().filter(|&s| inside(&segs[s])).collect())
            .collect();
        let mut counts: Vec<usize> = per_line.iter().map(Vec::len).filter(|&n| n > 0).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let used = counts.len();
        // The regular count: the largest that at least a third of the lines (two at least) reach.
        let need = 2.max(used.div_ceil(3));
        let regular = counts.get(need.saturating_sub(1)).copied().unwrap_or(0);
        let mut iv: Vec<(f32, f32)> = Vec::new();
        if regular >= 2 {
            for ss in per_line.iter().filter(|ss| ss.len() >= regular) {
                iv.extend(ss.iter().map(|&s| (segs[s].bbox.x0, segs[s].bbox.x1)));
            }
        }
        let ruled_right = k + 1 < edges.len() - 1;
        let mut sub: Vec<(f32, f32)> = Vec::new();
        if used == 0 {
            // No text between these rules (a shading's inset edge beside a border): the strip
            // belongs to the column before it.
            if let Some(last) = cols.last_mut() {
                last.x1 = sx1;
                last.ruled_right = ruled_right;
            }
            continue;
        }
        if iv.is_empty() {
            let all: Vec<(f32, f32)> =
                per_line.iter().flatten().map(|&s| (segs[s].bbox.x0, segs[s].bbox.x1)).collect();
            let (c0, c1) =
                all.iter().fold((f32::MAX, f32::MIN), |(a, b), &(x0, x1)| (a.min(x0), b.max(x1)));
            let (c0, c1) = if c0 > c1 { (sx0, sx1) } else { (c0, c1) };
            cols.push(Col { x1: sx1, c0, c1, ruled_right });
            continue;
        }
        iv.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Text ranges separated by gaps of at least MIN_GUTTER ems.
        for (a, b) in iv {
            match sub.last_mut() {
                Some(last) if a < last.1 + MIN_GUTTER * em => last.1 = last.1.max(b),
                _ => sub.push((a, b)),
            }
        }
        for (i, &(c0, c1)) in sub.iter().enumerate() {
            let x1 = if i + 1 == sub.len() { sx1 } else { 0.5 * (c1 + sub[i + 1].0) };
            let last = i + 1 == sub.len();
            cols.push(Col { x1, c0, c1, ruled_right: last && ruled_right });
        }
    }
    cols
}
