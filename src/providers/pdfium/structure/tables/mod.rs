//! Tables from the page's own drawing: where the rules a page draws enclose a table, and the
//! grid of its cells (see `docs/tables.md` for the rules in full).
//!
//! Two kinds of ruled regions are found on a page ([`find`]):
//! * **lattices**: sets of horizontal and vertical rules that touch or cross, the box of each
//!   set a candidate region;
//! * **rule stacks**: horizontal rules of (nearly) the same extent above one another, with
//!   nothing but table text between them (booktabs' `\toprule`/`\midrule`/`\bottomrule`,
//!   `\hline` tables without vertical rules), extended up and down by the rows just outside
//!   the outer rules (a header above a first `\midrule`).
//!
//! Each region's words and rules go to [`grid::build`]; a region becomes a table when its
//! grid has at least two rows and two columns with text in several rows, and its cells read
//! like cells, not prose (a box around a paragraph, an algorithm or a figure is no table).
//! Tables without rules are found by text alignment inside reading-order columns
//! ([`super::xycut`]), and read by the same grid builder.

pub(crate) mod extent;
pub(crate) mod grid;
pub(crate) mod rules;

use self::rules::Rules;
use super::{Glyph, Span, WORD_GAP};
use crate::doc::{BBox, Table};

/// Horizontal rules at most this many ems apart in their ends have the same extent.
const SAME_EXTENT: f32 = 1.5;
/// A rule stack breaks at a blank vertical stretch taller than this many ems.
const MAX_BLANK: f32 = 2.0;
/// A stack's rules are at least this many ems long.
const MIN_STACK_RULE: f32 = 4.0;
/// Cells average at most this many characters (more is prose in a box).
const MAX_MEAN_CELL: f32 = 48.0;
/// A drawn grid is no table when art (curves, images) covers this share of it.
const MAX_ART: f32 = 0.25;

/// One word of a table region.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    pub(crate) bbox: BBox,
    pub(crate) text: String,
    pub(crate) size: f32,
}

/// A table found on a page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    pub(crate) bbox: BBox,
    pub(crate) table: Table,
    /// Found as a drawn grid (rules both ways), not a rule stack.
    pub(crate) lattice: bool,
}

/// What the finder needs of a page.
pub(crate) struct PageInput<'a> {
    pub(crate) glyphs: &'a [Glyph],
    pub(crate) rules: &'a Rules,
    pub(crate) art: &'a [BBox],
    pub(crate) spans: &'a [Span],
    /// The body font size.
    pub(crate) em: f32,
    /// The page's line pitch (top to top, [`extent::line_pitch`]).
    pub(crate) pitch: f32,
}

fn center(b: &BBox) -> (f32, f32) {
    (0.5 * (b.x0 + b.x1), 0.5 * (b.y0 + b.y1))
}

fn inside(b: &BBox, (x, y): (f32, f32)) -> bool {
    x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1
}

/// The words whose glyphs' centres lie in `region`: glyphs on one line closer than
/// [`WORD_GAP`] ems, not split by a space or by a vertical rule.
pub(crate) fn words_in(glyphs: &[Glyph], region: &BBox, rules: &Rules) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut heights: Vec<(f32, f32)> = Vec::new();
    let mut last: Option<Glyph> = None;
    let mut space = true;
    for g in glyphs {
        if g.ch == ' ' {
            space = true;
            continue;
        }
        if !inside(region, center(&g.bbox)) {
            space = true;
            last = None;
            continue;
        }
        let size = if g.size > 0.0 { g.size } else { g.bbox.height() };
        let joins = !space
            && last.is_some_and(|p| {
                let em = size.max(p.size).max(1.0);
                let cy = 0.5 * (g.bbox.y0 + g.bbox.y1);
                let same_box = (g.bbox.x0 - p.bbox.x0).abs() < 0.01;
                let gap = if same_box { 0.0 } else { g.bbox.x0 - p.bbox.x1 };
                let on_line = cy >= p.bbox.y0 && cy <= p.bbox.y1 || {
                    let pcy = 0.5 * (p.bbox.y0 + p.bbox.y1);
                    pcy >= g.bbox.y0 && pcy <= g.bbox.y1
                };
                on_line
                    && gap <= WORD_GAP * em
                    && gap >= -0.5 * em
                    && !rules.v.iter().any(|r| {
                        r.x > p.bbox.x1 - 0.3 && r.x < g.bbox.x0 + 0.3 && r.y0 <= cy && r.y1 >= cy
                    })
            });
        match (joins, out.last_mut()) {
            (true, Some(w)) => {
                w.bbox = w.bbox.union(&g.bbox);
                w.text.push(g.ch);
            }
            _ => {
                settle(&mut out, &mut heights);
                out.push(Word { bbox: g.bbox, text: g.ch.to_string(), size });
            }
        }
        heights.push((g.bbox.y0, g.bbox.y1));
        last = Some(*g);
        space = false;
    }
    settle(&mut out, &mut heights);
    out
}

/// Gives the last word the vertical extent of its glyphs of common height: a math symbol's
/// box (an arrow, a large operator) can reach far below or above the line, and would move
/// the word's centre onto another line.
fn settle(words: &mut [Word], glyphs: &mut Vec<(f32, f32)>) {
    if let (Some(w), true) = (words.last_mut(), glyphs.len() >= 2) {
        let mut hs: Vec<f32> = glyphs.iter().map(|g| g.1 - g.0).collect();
        hs.sort_by(f32::total_cmp);
        let median = hs[hs.len() / 2];
        let (mut y0, mut y1) = (f32::MAX, f32::MIN);
        for &(a, b) in glyphs.iter().filter(|g| g.1 - g.0 <= 1.3 * median) {
            y0 = y0.min(a);
            y1 = y1.max(b);
        }
        if y0 < y1 {
            w.bbox.y0 = y0;
            w.bbox.y1 = y1;
        }
    }
    glyphs.clear();
}

/// Finds the ruled tables of a page.
pub(crate) fn find(p: &PageInput<'_>) -> Vec<Found> {
    if p.rules.h.is_empty() {
        return Vec::new();
    }
    let em = p.em.max(1.0);
    let mut cands: Vec<(BBox, bool)> = Vec::new();
    // Lattices: rule sets with at least two rules each way.
    let mut in_lattice = vec![false; p.rules.h.len()];
    for (hs, vs) in rules::grids(p.rules, 2.0) {
        if hs.len() < 2 || vs.len() < 2 {
            continue;
        }
        let mut b = BBox::new(f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for &i in &hs {
            let r = p.rules.h[i];
            b = b.union(&BBox::new(r.x0, r.y, r.x1, r.y));
        }
        for &j in &vs {
            let r = p.rules.v[j];
            b = b.union(&BBox::new(r.x, r.y0, r.x, r.y1));
        }
        if b.width() < 3.0 * em || b.height() < 1.2 * em {
            continue;
        }
        for &i in &hs {
            in_lattice[i] = true;
        }
        tracing::trace!(target: "corpus::tables", "lattice {b:?}: {} x {} rules", hs.len(), vs.len());
        cands.push((b, true));
    }
    merge_stacked(p, &mut cands, em);
    for b in stacks(p, &in_lattice, em) {
        tracing::trace!(target: "corpus::tables", "rule stack {b:?}");
        cands.push((b, false));
    }
    // Drawn grids first, then stacks, larger regions first. A region mostly inside a table
    // already found is part of it; a stack that reaches over a drawn grid's table is not one
    // table with it (section rules above and below ruled tables).
    cands.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.area().total_cmp(&a.0.area())));
    let mut found: Vec<Found> = Vec::new();
    let mut grids_found = 0;
    for (region, lattice) in cands {
        if found.iter().any(|f| f.bbox.overlap(&region) > 0.5 * region.area().max(1e-3)) {
            continue;
        }
        if !lattice
            && found[..grids_found]
                .iter()
                .any(|f| f.bbox.overlap(&region) > 0.1 * f.bbox.area().max(1e-3))
        {
            continue;
        }
        let grown =
            BBox::new(region.x0 - 0.3 * em, region.y0 - 0.2, region.x1 + 0.3 * em, region.y1 + 0.2);
        let rules = p.rules.within(&grown, 2.0);
        let words = words_in(p.glyphs, &grown, p.rules);
        let Some(built) = grid::build(&words, &rules, grown, em) else {
            tracing::trace!(target: "corpus::tables", "no grid in {region:?}");
            continue;
        };
        if !table_like(&built, &region, p.art, lattice) {
            tracing::trace!(
                target: "corpus::tables",
                "not table-like: {region:?}, {} x {}, {} rows of several cells, mean cell {}",
                built.table.rows,
                built.table.cols,
                built.multi_rows,
                built.mean_cell
            );
            continue;
        }
        let bbox = built.bbox.union(&region);
        found.push(Found { bbox, table: built.table, lattice });
        if lattice {
            grids_found = found.len();
        }
    }
    found
}

/// Whether a built grid reads as a table: text in several rows and columns, cells short
/// enough, and (for a drawn grid) no figure inside.
fn table_like(b: &grid::Built, region: &BBox, art: &[BBox], lattice: bool) -> bool {
    if b.multi_rows < 2 || b.mean_cell > MAX_MEAN_CELL {
        return false;
    }
    let art_area: f32 = art.iter().map(|a| a.overlap(region)).sum();
    if art_area > MAX_ART * region.area() {
        return false;
    }
    let filled = b.table.cells.iter().filter(|c| !c.text.is_empty()).count();
    let slots = (b.table.rows * b.table.cols) as usize;
    // A form or a figure's grid leaves most of its cells empty.
    filled * 10 >= slots * if lattice { 4 } else { 3 }
}

/// Merges drawn grids of one width stacked closely above one another with table text between:
/// one table whose vertical rules stop at a full-width row (a `\multicolumn` section row).
fn merge_stacked(p: &PageInput<'_>, cands: &mut Vec<(BBox, bool)>, em: f32) {
    cands.sort_by(|a, b| a.0.y0.total_cmp(&b.0.y0));
    let tol = SAME_EXTENT * em;
    let mut out: Vec<(BBox, bool)> = Vec::new();
    for &(b, lattice) in cands.iter() {
        let fit = out.iter_mut().rev().find(|(a, _)| {
            (a.x0 - b.x0).abs() <= tol
                && (a.x1 - b.x1).abs() <= tol
                && b.y0 >= a.y1 - 1.0
                && b.y0 - a.y1 <= MAX_BLANK * em
                && filled_gap(p, a.x0.min(b.x0), a.x1.max(b.x1), a.y1, b.y0, em)
        });
        match fit {
            Some((a, _)) => *a = a.union(&b),
            None => out.push((b, lattice)),
        }
    }
    *cands = out;
}

/// Whether the gap between two grids holds rows of text and next to no blank: a row the
/// grids' vertical rules stop at, not the space between two tables.
fn filled_gap(p: &PageInput<'_>, x0: f32, x1: f32, ya: f32, yb: f32, em: f32) -> bool {
    let idx = spans_between(p, x0, x1, ya, yb);
    if idx.is_empty() || idx.iter().any(|&i| prose(&p.spans[i], x0, x1 - x0, em)) {
        return false;
    }
    let top = idx.iter().map(|&i| p.spans[i].bbox.y0).fold(f32::MAX, f32::min);
    let bottom = idx.iter().map(|&i| p.spans[i].bbox.y1).fold(f32::MIN, f32::max);
    top - ya <= 0.8 * em && yb - bottom <= 0.8 * em
}

/// Rule stacks: long horizontal rules of one extent above one another, with table text between.
fn stacks(p: &PageInput<'_>, in_lattice: &[bool], em: f32) -> Vec<BBox> {
    let long: Vec<usize> = (0..p.rules.h.len())
        .filter(|&i| !in_lattice[i] && p.rules.h[i].len() >= MIN_STACK_RULE * em)
        .collect();
    // Stacks as lists of rule indices, each with its extent.
    let mut stacks: Vec<(f32, f32, Vec<usize>)> = Vec::new();
    let mut order = long.clone();
    order.sort_by(|&a, &b| p.rules.h[a].y.total_cmp(&p.rules.h[b].y));
    for i in order {
        let r = p.rules.h[i];
        let tol = SAME_EXTENT * em;
        let fit = stacks
            .iter_mut()
            .rev()
            .find(|(x0, x1, _)| (r.x0 - *x0).abs() <= tol && (r.x1 - *x1).abs() <= tol);
        match fit {
            Some(s) => {
                let above = p.rules.h[*s.2.last().expect("stacks are non-empty")].y;
                if joinable(p, s.0.min(r.x0), s.1.max(r.x1), above, r.y, em) {
                    s.2.push(i);
                } else {
                    stacks.push((r.x0, r.x1, vec![i]));
                }
            }
            None => stacks.push((r.x0, r.x1, vec![i])),
        }
    }
    let mut out = Vec::new();
    for (x0, x1, rs) in stacks {
        let top = p.rules.h[rs[0]].y;
        let bottom = p.rules.h[*rs.last().expect("non-empty")].y;
        let inner = Inner::new(p, x0, x1, top, bottom, em);
        let (up, down) =
            (extend(p, x0, x1, top, -1.0, em, &inner), extend(p, x0, x1, bottom, 1.0, em, &inner));
        if rs.len() < 2 && (up - top).abs() < 0.5 && (down - bottom).abs() < 0.5 {
            continue;
        }
        // A lone rule with text only below is a section or footnote rule, unless vertical
        // rules cross it (a header row's rule in a table ruled between columns).
        let crossed = p.rules.v.iter().any(|v| {
            v.x > x0 && v.x < x1 && v.y0 <= top + 2.0 && v.y1 >= top - 2.0 && v.len() >= em
        });
        if rs.len() < 2 && (up - top).abs() < 0.5 && !crossed {
            continue;
        }
        out.push(BBox::new(x0, up, x1, down));
    }
    out
}

/// The spans whose centres lie in a horizontal band of a column range.
fn spans_between(p: &PageInput<'_>, x0: f32, x1: f32, y0: f32, y1: f32) -> Vec<usize> {
    (0..p.spans.len())
        .filter(|&i| {
            let (cx, cy) = center(&p.spans[i].bbox);
            cx >= x0 && cx <= x1 && cy > y0 && cy < y1
        })
        .collect()
}

/// Whether a span reads as a line of prose: several words over most of the width from `x0`,
/// starting at its left edge (a paragraph's line does, a centred spanning header does not).
fn prose(s: &Span, x0: f32, width: f32, em: f32) -> bool {
    s.text.split_whitespace().count() >= 5
        && s.bbox.width() >= 0.6 * width
        && s.bbox.x0 <= x0 + 3.0 * em
}

/// Groups spans (indices) into rows by vertical centre, top to bottom.
fn span_rows(p: &PageInput<'_>, mut idx: Vec<usize>) -> Vec<Vec<usize>> {
    idx.sort_by(|&a, &b| p.spans[a].center_y().total_cmp(&p.spans[b].center_y()));
    let mut rows: Vec<(BBox, Vec<usize>)> = Vec::new();
    for i in idx {
        let b = p.spans[i].bbox;
        let cy = p.spans[i].center_y();
        match rows.last_mut() {
            Some((rb, v)) if cy >= rb.y0 && cy <= rb.y1 => {
                v.push(i);
                *rb = rb.union(&b);
            }
            _ => rows.push((b, vec![i])),
        }
    }
    rows.into_iter().map(|(_, v)| v).collect()
}

/// Whether two rules of a stack hold table text between them: no paragraph (two lines of
/// prose, or one with no row of cells beside it), no tall blank.
fn joinable(p: &PageInput<'_>, x0: f32, x1: f32, ya: f32, yb: f32, em: f32) -> bool {
    let idx = spans_between(p, x0, x1, ya, yb);
    let rows = span_rows(p, idx);
    let prose_rows =
        rows.iter().filter(|r| r.len() == 1 && prose(&p.spans[r[0]], x0, x1 - x0, em)).count();
    let cell_rows = rows.iter().filter(|r| r.len() >= 2).count();
    let _ = cell_rows;
    if prose_rows >= 1 {
        return false;
    }
    let mut cursor = ya;
    for r in &rows {
        let top = r.iter().map(|&i| p.spans[i].bbox.y0).fold(f32::MAX, f32::min);
        let bottom = r.iter().map(|&i| p.spans[i].bbox.y1).fold(f32::MIN, f32::max);
        if top - cursor > MAX_BLANK * em {
            return false;
        }
        cursor = cursor.max(bottom);
    }
    yb - cursor <= MAX_BLANK * em
}

/// Text outside a stack's extent this close (in ems) to a row's cells is on the same line as
/// them: the row is part of a longer line, not the table's.
const STRAY_GAP: f32 = 2.0;

/// What the rows between a stack's outer rules show of the table: its rows (whose font sizes
/// and gutters the rows beyond the rules are measured against) and its row pitch.
struct Inner {
    /// Its rows, top to bottom.
    rows: Vec<Vec<usize>>,
    /// Top-to-top steps between consecutive rows of two or more spans (a label centred
    /// between two rows is no row step).
    steps: Vec<f32>,
}

impl Inner {
    fn new(p: &PageInput<'_>, x0: f32, x1: f32, top: f32, bottom: f32, em: f32) -> Inner {
        let rows = span_rows(p, spans_between(p, x0 - 0.5 * em, x1 + 0.5 * em, top, bottom));
        let top_of = |r: &[usize]| r.iter().map(|&i| p.spans[i].bbox.y0).fold(f32::MAX, f32::min);
        let tops: Vec<f32> = rows.iter().filter(|r| r.len() >= 2).map(|r| top_of(r)).collect();
        let steps = tops.windows(2).map(|w| w[1] - w[0]).collect();
        Inner { rows, steps }
    }
}

/// Extends a stack from its outer rule at `y` up (`dir` −1) or down (+1) over the text rows
/// that continue the table: within the rules' extent, close to the rule and to each other,
/// not prose, not a caption, and as the page shows the table's own rows (docs/tables.md § 2):
/// in the table's font size, at most two of its row pitches from the row before (the page's
/// line pitch where the table has no rows of its own yet), and not running across its
/// gutters.
fn extend(p: &PageInput<'_>, x0: f32, x1: f32, y: f32, dir: f32, em: f32, inner: &Inner) -> f32 {
    let mut edge = y;
    let mut steps = inner.steps.clone();
    let mut rows: Vec<Vec<usize>> = inner.rows.clone();
    // The far side of the last row taken (its top going down, its bottom going up).
    let mut last: Option<f32> = None;
    // Every pass takes a row beyond the edge, so there are at most as many as spans.
    for _ in 0..p.spans.len() {
        let pitch = extent::pitch(&steps).unwrap_or(p.pitch);
        // Rows are looked for within two pitches (and, as before, two ems) of the edge.
        let reach = (2.0 * em).max(2.0 * pitch);
        let (lo, hi) = if dir < 0.0 { (edge - reach, edge) } else { (edge, edge + reach) };
        let found = span_rows(p, spans_between(p, x0 - 0.5 * em, x1 + 0.5 * em, lo, hi));
        // The row nearest the edge.
        let row = if dir < 0.0 { found.last() } else { found.first() };
        let Some(row) = row else { break };
        // Spans of the row lie within the extent, and none is prose or a caption.
        // A row of one span continues the table only where a vertical rule runs beside it.
        let cy = p.spans[row[0]].center_y();
        let ruled = p.rules.v.iter().any(|v| v.x > x0 && v.x < x1 && v.y0 <= cy && v.y1 >= cy);
        let ok = (row.len() >= 2 || ruled)
            && row.iter().all(|&i| {
                let s = &p.spans[i];
                s.bbox.x0 >= x0 - 0.5 * em
                    && s.bbox.x1 <= x1 + 0.5 * em
                    && !prose(s, x0, x1 - x0, em)
                    && super::blocks::caption_label(&s.text).is_none()
            });
        if !ok {
            break;
        }
        let b = row.iter().fold(p.spans[row[0]].bbox, |b, &i| b.union(&p.spans[i].bbox));
        // Other text on the same line, outside the extent: this is not the table's row.
        let stray = p.spans.iter().any(|s| {
            let cy = s.center_y();
            cy >= b.y0
                && cy <= b.y1
                && (s.bbox.x1 < x0 - 0.5 * em || s.bbox.x0 > x1 + 0.5 * em)
                && s.bbox.x0 < b.x1 + STRAY_GAP * em
                && s.bbox.x1 > b.x0 - STRAY_GAP * em
        });
        // The step from the row before, top to top (bottom to bottom going up); from the
        // rule, as far as the row's far side reaches.
        let step = match (last, dir < 0.0) {
            (Some(l), true) => l - b.y1,
            (Some(l), false) => b.y0 - l,
            (None, true) => edge - b.y0,
            (None, false) => b.y1 - edge,
        };
        let all: Vec<usize> = rows.iter().flatten().copied().collect();
        let sizes = extent::sizes_of(p.spans, &all);
        let other_size = !extent::in_sizes(p.spans, row, &sizes);
        let body: Vec<&[usize]> = rows.iter().map(Vec::as_slice).collect();
        let gutters = extent::gutters(p.spans, &body, grid::MIN_GUTTER * em);
        let across = extent::runs_across(p.spans, row, &gutters);
        if stray || step > 2.0 * pitch || other_size || across {
            tracing::trace!(
                target: "corpus::tables",
                "stack {x0}..{x1} ends before the row at y {}: stray text {stray}, step {step} pt \
                 (pitch {pitch}), in another size {other_size} (table {sizes:?}), across the \
                 gutters {across}",
                b.y0
            );
            break;
        }
        if last.is_some() && row.len() >= 2 {
            steps.push(step);
        }
        rows.push(row.clone());
        last = Some(if dir < 0.0 { b.y1 } else { b.y0 });
        edge = if dir < 0.0 { b.y0 } else { b.y1 };
    }
    edge
}
