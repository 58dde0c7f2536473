//! GriTS (grid table similarity) exactly as microsoft/table-transformer's `src/grits.py`
//! computes it (commit `ef21069`, `docs/table-metrics.md` §2): GriTS_Top, GriTS_Con and GriTS_Loc.
//!
//! A table becomes a grid with one entry per row × column slot, a spanning cell repeated at
//! every slot it covers (`cells_to_grid`, `cells_to_relspan_grid`):
//! * Con: the cell's text; reward = `lcs_similarity`, i.e. `2·M / (|a| + |b|)` with `M` the
//!   size of `difflib.SequenceMatcher(None, a, b).get_matching_blocks()` (Ratcliff/Obershelp
//!   with autojunk, see [`crate::metrics::difflib`]; not a true LCS), 1 when both are empty;
//! * Top: the slot's *relative span box* `[min_col − j, min_row − i, max_col + 1 − j,
//!   max_row + 1 − i]`; reward = [`iou`];
//! * Loc: the cell's bounding box; reward = [`iou`].
//!
//! `factored_2dmss` ("factored two-dimensional most-similar substructures") aligns the true
//! and predicted rows with a DP whose match reward for a row pair is the best monotone
//! alignment score of the two rows' slots (`align_1d`), then the columns the same way on the
//! transposed grids (`align_2d_outer`); ties prefer the diagonal, then skipping a true row or
//! column, then skipping a predicted one, and the traceback is the reference's. The score is the
//! sum of the rewards over (aligned rows) × (aligned columns); precision divides it by the
//! number of predicted slots, recall by the number of true slots (`compute_fscore`).
//! Arithmetic happens in the reference's order, so results are bit-identical to it.
//!
//! [`iou`] is PyMuPDF's, as `grits.py::iou` uses it: the denominator is the area of the
//! **bounding hull** (`Rect.include_rect`), not the union; intersection and hull are computed by
//! MuPDF in `f32` (`fz_intersect_rect`, `fz_union_rect`), and an empty rectangle
//! (`x0 >= x1 or y0 >= y1`) contributes nothing to the hull. PyMuPDF's "infinite" rectangle
//! (coordinates ±2^31) is not special-cased.
//!
//! Where the reference is undefined we do what its open fix (PR #208) does:
//! * **Holes** (slots no cell covers): the reference leaves the float `0.0` there, and then
//!   crashes (`np.array` of mixed lists, or `len(0.0)` in `lcs_similarity`). Here a hole is the
//!   empty string for Con (so it matches an empty cell or another hole with reward 1) and the
//!   empty box `[0, 0, 0, 0]` for Top and Loc (reward 0 against anything).
//!   Holes arise from cell lists that do not tile the grid, e.g. HTML rows of unequal length.
//! * **Overlapping cells**: the later cell overwrites the earlier one's slots, as in the
//!   reference.
//! * Spans of 0 are taken as 1 (the reference crashes on an empty `row_nums`).
//! * The grid's size is the cells' extent (`max(row + row_span)`, `max(col + col_span)`), as in
//!   the reference; `Table::rows` and `Table::cols` are not read. A table without cells is the
//!   reference's `[[]]`, a 1 × 0 grid (0 slots: precision or recall 1 by convention).
//!
//! [`html_to_table`] follows `html_to_cells`: every `td`/`th` in document order is a cell in the
//! row of the last `tr` seen, at the first free column of that row (columns taken by earlier
//! `rowspan`s are skipped), text = `' '.join(cell.itertext())`, header = `th` or inside `thead`
//! or `th`. The reference parses with XML `ElementTree.fromstring` and gets `None` for anything
//! that is not well-formed XML (undefined entities such as `&nbsp;`, unclosed `<br>`, bare `&`),
//! after which `grits_from_html` raises. Here the input is parsed with html5ever (`scraper`),
//! which never fails: well-formed input gives the reference's cells; other input is scored as
//! the HTML5 parser recovers it (entities decoded, tag names case-insensitive, a `td` outside a
//! `tr` gets an implied row instead of the reference's row −1). An unparsable `colspan`/`rowspan`
//! counts as 1 (the reference raises on `int()`).

use std::collections::HashMap;

use scraper::{ElementRef, Html, Node};

use crate::doc::{Cell, Table};
use crate::metrics::difflib::{CharMatcher, Scratch, SequenceMatcher};

/// Precision, recall and F-score of one GriTS comparison (`compute_fscore`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grits {
    /// Matched score / number of predicted grid slots (1 when there are none).
    pub precision: f64,
    /// Matched score / number of true grid slots (1 when there are none).
    pub recall: f64,
    /// `2PR / (P + R)`, 0 when `P + R` is 0.
    pub f: f64,
}

/// GriTS_Top and GriTS_Con of one table pair, as `grits_from_html` returns them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GritsTopCon {
    /// Topology (relative spans).
    pub top: Grits,
    /// Content (cell text).
    pub con: Grits,
}

/// A rectangle `[x0, y0, x1, y1]`.
pub type BBox = [f64; 4];

/// A dense row-major grid of slot features.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid<T> {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// `rows * cols` entries, row by row.
    pub slots: Vec<T>,
}

impl<T> Grid<T> {
    /// Returns the entry at row `r`, column `c`.
    pub fn get(&self, r: usize, c: usize) -> &T {
        &self.slots[r * self.cols + c]
    }
}

/// Returns `(precision, recall, f)` for a matched score (`grits.py::compute_fscore`).
pub(crate) fn compute_fscore(true_positives: f64, num_true: usize, num_positives: usize) -> Grits {
    let precision = if num_positives > 0 { true_positives / num_positives as f64 } else { 1.0 };
    let recall = if num_true > 0 { true_positives / num_true as f64 } else { 1.0 };
    let f = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Grits { precision, recall, f }
}

/// The reward of every (true row, true col, pred row, pred col), row-major in that order.
struct Rewards {
    ct: usize,
    rp: usize,
    cp: usize,
    values: Vec<f64>,
}

impl Rewards {
    fn at(&self, tr: usize, tc: usize, pr: usize, pc: usize) -> f64 {
        self.values[((tr * self.ct + tc) * self.rp + pr) * self.cp + pc]
    }
}

/// Best monotone alignment score of two sequences of lengths `m` and `n` (`align_1d` without
/// traceback; the score does not depend on tie-breaking). `row` is scratch of length `n + 1`.
fn align_1d(m: usize, n: usize, reward: impl Fn(usize, usize) -> f64, row: &mut [f64]) -> f64 {
    row[..=n].fill(0.0);
    for i in 0..m {
        // `diag_prev` is scores[i][j - 1] of the previous row, `row[j]` becomes scores[i + 1][j].
        let mut diag_prev = 0.0;
        for j in 1..=n {
            let up = row[j];
            let diag = diag_prev + reward(i, j - 1);
            let left = row[j - 1];
            diag_prev = up;
            row[j] = max3(diag, up, left);
        }
    }
    row[n]
}

fn max3(a: f64, b: f64, c: f64) -> f64 {
    let m = if b > a { b } else { a };
    if c > m {
        c
    } else {
        m
    }
}

/// `align_2d_outer`: aligns `n1` true against `n2` predicted outer items (rows, or columns on
/// the transposed grids); the reward of a pair is the `align_1d` score of their `m1` × `m2`
/// inner entries. Returns the aligned index pairs in increasing order and the score.
fn align_2d_outer(
    (n1, m1): (usize, usize),
    (n2, m2): (usize, usize),
    reward: impl Fn(usize, usize, usize, usize) -> f64,
) -> (Vec<(usize, usize)>, f64) {
    let w = n2 + 1;
    let mut scores = vec![0.0f64; (n1 + 1) * w];
    // Pointers: 0 = diagonal, -1 = up (skip a true item), 1 = left (skip a predicted item).
    let mut ptr = vec![0i8; (n1 + 1) * w];
    for i in 1..=n1 {
        ptr[i * w] = -1;
    }
    for p in ptr.iter_mut().take(w).skip(1) {
        *p = 1;
    }
    let mut row = vec![0.0f64; m2 + 1];
    for i in 1..=n1 {
        for j in 1..=n2 {
            let r = align_1d(m1, m2, |a, b| reward(i - 1, a, j - 1, b), &mut row);
            let diag = scores[(i - 1) * w + j - 1] + r;
            let left = scores[i * w + j - 1];
            let up = scores[(i - 1) * w + j];
            let best = max3(diag, up, left);
            scores[i * w + j] = best;
            ptr[i * w + j] = if diag == best {
                0
            } else if up == best {
                -1
            } else {
                1
            };
        }
    }
    let (mut i, mut j) = (n1, n2);
    let mut pairs = Vec::new();
    while i > 0 || j > 0 {
        match ptr[i * w + j] {
            -1 => i -= 1,
            1 => j -= 1,
            _ => {
                i -= 1;
                j -= 1;
                pairs.push((i, j));
            }
        }
    }
    pairs.reverse();
    (pairs, scores[n1 * w + n2])
}

/// Factored 2D-MSS score of two grids under `reward(true_entry, pred_entry)`
/// (`grits.py::factored_2dmss`; the upper bound it also returns is not computed).
pub(crate) fn factored_2dmss<A, B>(
    true_grid: &Grid<A>,
    pred_grid: &Grid<B>,
    reward: impl FnMut(&A, &B) -> f64,
) -> Grits {
    factored_2dmss_aligned(true_grid, pred_grid, reward).0
}

/// The rows and columns that `factored_2dmss` aligns: (true index, predicted index) pairs in
/// increasing order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alignment {
    /// Aligned (true row, predicted row) pairs.
    pub rows: Vec<(usize, usize)>,
    /// Aligned (true column, predicted column) pairs.
    pub cols: Vec<(usize, usize)>,
}

/// [`factored_2dmss`], also returning the row and column alignment its score sums over.
pub(crate) fn factored_2dmss_aligned<A, B>(
    true_grid: &Grid<A>,
    pred_grid: &Grid<B>,
    mut reward: impl FnMut(&A, &B) -> f64,
) -> (Grits, Alignment) {
    let (rt, ct, rp, cp) = (true_grid.rows, true_grid.cols, pred_grid.rows, pred_grid.cols);
    let mut values = Vec::with_capacity(rt * ct * rp * cp);
    for tr in 0..rt {
        for tc in 0..ct {
            let t = true_grid.get(tr, tc);
            for pr in 0..rp {
                for pc in 0..cp {
                    values.push(reward(t, pred_grid.get(pr, pc)));
                }
            }
        }
    }
    let rw = Rewards { ct, rp, cp, values };
    let (row_pairs, _) = align_2d_outer((rt, ct), (rp, cp), |tr, tc, pr, pc| rw.at(tr, tc, pr, pc));
    let (col_pairs, _) = align_2d_outer((ct, rt), (cp, rp), |tc, tr, pc, pr| rw.at(tr, tc, pr, pc));
    let mut score = 0.0;
    for &(tr, pr) in &row_pairs {
        for &(tc, pc) in &col_pairs {
            score += rw.at(tr, tc, pr, pc);
        }
    }
    (compute_fscore(score, rt * ct, rp * cp), Alignment { rows: row_pairs, cols: col_pairs })
}

/// `grits.py::lcs_similarity`: `2·M / (|a| + |b|)` over `char`s with `M` the difflib matching
/// blocks' total size (`SequenceMatcher(None, a, b)`, autojunk on); 1 when both are empty.
#[cfg(test)]
pub(crate) fn lcs_similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    lcs_similarity_chars(&a, &b)
}

#[cfg(test)]
fn lcs_similarity_chars(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let m = SequenceMatcher::new(a, b).matched();
    (2 * m) as f64 / (a.len() + b.len()) as f64
}

fn is_empty(r: &BBox) -> bool {
    r[0] >= r[2] || r[1] >= r[3]
}

/// PyMuPDF `Rect.get_area`: `max(0, x1 − x0) · max(0, y1 − y0)`.
fn area(r: &BBox) -> f64 {
    (r[2] - r[0]).max(0.0) * (r[3] - r[1]).max(0.0)
}

/// Rounds coordinates to `f32` as MuPDF's `fz_rect` stores them.
fn to_f32(r: &BBox) -> BBox {
    r.map(|v| f64::from(v as f32))
}

/// `grits.py::iou` with PyMuPDF: intersection area over **bounding-hull** area, 0 when the hull
/// is empty.
pub fn iou(b1: &BBox, b2: &BBox) -> f64 {
    // `Rect(b1).intersect(b2)`: an empty operand makes the result empty (area 0); otherwise
    // MuPDF clamps in f32.
    let inter = if is_empty(b1) || is_empty(b2) {
        0.0
    } else {
        let (a, b) = (to_f32(b1), to_f32(b2));
        area(&[a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3])])
    };
    // `Rect(b1).include_rect(b2)`: an empty operand is ignored (the other keeps its f64
    // coordinates); otherwise MuPDF takes the hull in f32.
    let hull = if is_empty(b2) {
        area(b1)
    } else if is_empty(b1) {
        area(b2)
    } else {
        let (a, b) = (to_f32(b1), to_f32(b2));
        area(&[a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])])
    };
    if hull > 0.0 {
        inter / hull
    } else {
        0.0
    }
}

/// Grid of the index of the cell covering each slot (`None` for holes), the later cell winning
/// where cells overlap; the size is the cells' extent, 1 × 0 without cells.
pub(crate) fn cell_index_grid(table: &Table) -> Grid<Option<usize>> {
    if table.cells.is_empty() {
        return Grid { rows: 1, cols: 0, slots: Vec::new() };
    }
    let rows = table.cells.iter().map(|c| (c.row + c.row_span.max(1)) as usize).max();
    let cols = table.cells.iter().map(|c| (c.col + c.col_span.max(1)) as usize).max();
    // Non-empty `cells` makes both maxima `Some`.
    let (rows, cols) = (rows.unwrap_or(0), cols.unwrap_or(0));
    let mut slots = vec![None; rows * cols];
    for (k, c) in table.cells.iter().enumerate() {
        for r in spanned(c.row, c.row_span) {
            for col in spanned(c.col, c.col_span) {
                slots[r * cols + col] = Some(k);
            }
        }
    }
    Grid { rows, cols, slots }
}

fn spanned(start: u32, span: u32) -> std::ops::Range<usize> {
    start as usize..(start + span.max(1)) as usize
}

/// `cells_to_relspan_grid`: the relative span box of every slot; holes are `[0, 0, 0, 0]`.
pub(crate) fn relspan_grid(table: &Table) -> Grid<BBox> {
    let idx = cell_index_grid(table);
    let mut slots = Vec::with_capacity(idx.slots.len());
    for i in 0..idx.rows {
        for j in 0..idx.cols {
            slots.push(match *idx.get(i, j) {
                None => [0.0; 4],
                Some(k) => relspan(&table.cells[k], i, j),
            });
        }
    }
    Grid { rows: idx.rows, cols: idx.cols, slots }
}

fn relspan(c: &Cell, i: usize, j: usize) -> BBox {
    let (i, j) = (i as f64, j as f64);
    [
        f64::from(c.col) - j,
        f64::from(c.row) - i,
        f64::from(c.col + c.col_span.max(1)) - j,
        f64::from(c.row + c.row_span.max(1)) - i,
    ]
}

/// `cells_to_grid(cells, 'cell_text')`: each slot's cell text; holes are `""`.
pub(crate) fn text_grid(table: &Table) -> Grid<&str> {
    let idx = cell_index_grid(table);
    let slots = idx.slots.iter().map(|k| k.map_or("", |k| table.cells[k].text.as_str())).collect();
    Grid { rows: idx.rows, cols: idx.cols, slots }
}

/// `cells_to_grid(cells, 'bbox')` with `boxes[k]` the box of `table.cells[k]`; holes are
/// `[0, 0, 0, 0]`. Returns `None` when `boxes` and the cells differ in number.
pub(crate) fn bbox_grid(table: &Table, boxes: &[BBox]) -> Option<Grid<BBox>> {
    if boxes.len() != table.cells.len() {
        return None;
    }
    let idx = cell_index_grid(table);
    let slots = idx.slots.iter().map(|k| k.map_or([0.0; 4], |k| boxes[k])).collect();
    Some(Grid { rows: idx.rows, cols: idx.cols, slots })
}

/// GriTS_Top: factored 2D-MSS of the relative-span grids under [`iou`].
pub fn grits_top(gt: &Table, pred: &Table) -> Grits {
    factored_2dmss(&relspan_grid(gt), &relspan_grid(pred), iou)
}

/// GriTS_Loc: factored 2D-MSS of the cell-box grids under [`iou`]; `gt_boxes[k]` is the box of
/// `gt.cells[k]` (same for `pred`). Returns `None` when a box list and its cells differ in
/// number.
pub fn grits_loc(
    gt: &Table,
    gt_boxes: &[BBox],
    pred: &Table,
    pred_boxes: &[BBox],
) -> Option<Grits> {
    Some(factored_2dmss(&bbox_grid(gt, gt_boxes)?, &bbox_grid(pred, pred_boxes)?, iou))
}

/// GriTS_Con: factored 2D-MSS of the text grids under `lcs_similarity`.
///
/// Each distinct (true text, predicted text) pair is scored once.
pub fn grits_con(gt: &Table, pred: &Table) -> Grits {
    grits_con_aligned(gt, pred).0
}

/// [`grits_con`], also returning its row and column alignment (grid slots, as
/// [`cell_index_grid`] lays them out).
pub(crate) fn grits_con_aligned(gt: &Table, pred: &Table) -> (Grits, Alignment) {
    let (tg, pg) = (text_grid(gt), text_grid(pred));
    let (tids, tstr) = intern(&tg);
    let (pids, pstr) = intern(&pg);
    // Bitmask of `char % 64` per string: disjoint masks mean no common item, so no match.
    let mask = |s: &[char]| s.iter().fold(0u64, |m, &c| m | 1u64 << (c as u32 % 64));
    let tmask: Vec<u64> = tstr.iter().map(|s| mask(s)).collect();
    let pmask: Vec<u64> = pstr.iter().map(|s| mask(s)).collect();
    let mut sim = vec![0.0f64; tstr.len() * pstr.len()];
    let mut scratch = Scratch::default();
    for (p, b) in pstr.iter().enumerate() {
        // Short texts (almost all cells) take the bit-parallel matcher; both give difflib's blocks.
        let short = CharMatcher::new(b);
        let mut m = SequenceMatcher::new(&[], b);
        for (t, a) in tstr.iter().enumerate() {
            sim[t * pstr.len() + p] = if a.is_empty() && b.is_empty() {
                1.0
            } else if tmask[t] & pmask[p] == 0 {
                0.0
            } else {
                let matched = match &short {
                    Some(cm) => cm.matched(a, &mut scratch),
                    None => {
                        m.set_seq1(a);
                        m.matched_with(&mut scratch)
                    }
                };
                (2 * matched) as f64 / (a.len() + b.len()) as f64
            };
        }
    }
    let np = pstr.len();
    factored_2dmss_aligned(&tids, &pids, |&t, &p| sim[t * np + p])
}

/// Replaces each text by the id of its first occurrence; returns the id grid and the texts.
fn intern(g: &Grid<&str>) -> (Grid<usize>, Vec<Vec<char>>) {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut texts = Vec::new();
    let slots = g
        .slots
        .iter()
        .map(|&s| {
            *ids.entry(s).or_insert_with(|| {
                texts.push(s.chars().collect());
                texts.len() - 1
            })
        })
        .collect();
    (Grid { rows: g.rows, cols: g.cols, slots }, texts)
}

/// GriTS_Top and GriTS_Con of two HTML tables (`grits.py::grits_from_html`), parsed by
/// [`html_to_table`].
pub fn grits_from_html(gt_html: &str, pred_html: &str) -> GritsTopCon {
    let (gt, pred) = (html_to_table(gt_html), html_to_table(pred_html));
    GritsTopCon { top: grits_top(&gt, &pred), con: grits_con(&gt, &pred) }
}

/// Cells of an HTML table as `grits.py::html_to_cells` reads them (see the module doc for how
/// input that is not well-formed XML is handled). `rows`/`cols` are the cells' extent.
pub fn html_to_table(html: &str) -> Table {
    let doc = Html::parse_document(html);
    let mut cells = Vec::new();
    let mut occupied: HashMap<usize, Vec<bool>> = HashMap::new();
    let mut current_row: Option<usize> = None;
    let mut stack = vec![(doc.tree.root(), false)];
    while let Some((node, in_header)) = stack.pop() {
        let name = match node.value() {
            Node::Element(e) => Some(e.name()),
            _ => None,
        };
        if name == Some("tr") {
            current_row = Some(current_row.map_or(0, |r| r + 1));
        }
        if let (Some(tag @ ("td" | "th")), Node::Element(e)) = (name, node.value()) {
            // html5ever puts every cell inside a `tr`, so a row has been seen here.
            let row = current_row.unwrap_or(0);
            let col_span = span_attr(e.attr("colspan"));
            let row_span = span_attr(e.attr("rowspan"));
            let taken = occupied.entry(row).or_default();
            let col = taken.iter().position(|&t| !t).unwrap_or(taken.len());
            for r in row..row + row_span as usize {
                let taken = occupied.entry(r).or_default();
                let end = col + col_span as usize;
                if taken.len() < end {
                    taken.resize(end, false);
                }
                taken[col..end].fill(true);
            }
            cells.push(Cell {
                row: row as u32,
                col: col as u32,
                row_span,
                col_span,
                // `node` is an element (matched above), so `wrap` succeeds.
                text: ElementRef::wrap(node).map(itertext).unwrap_or_default(),
                header: tag == "th" || in_header,
            });
        }
        let child_header = in_header || matches!(name, Some("th" | "thead"));
        let children: Vec<_> = node.children().collect();
        for child in children.into_iter().rev() {
            stack.push((child, child_header));
        }
    }
    let rows = cells.iter().map(|c| c.row + c.row_span).max().unwrap_or(0);
    let cols = cells.iter().map(|c| c.col + c.col_span).max().unwrap_or(0);
    Table { rows, cols, cells }
}

/// `int(attrib[...])` for a span attribute; absent, unparsable or < 1 gives 1.
fn span_attr(v: Option<&str>) -> u32 {
    let Some(v) = v else { return 1 };
    let v = v.trim();
    let v = v.strip_prefix('+').unwrap_or(v);
    v.parse::<u32>().ok().filter(|&n| n >= 1).unwrap_or(1)
}

/// `' '.join(element.itertext())`: the non-empty text runs between element boundaries, in
/// document order (comments do not split a run, as ElementTree drops them before building text).
fn itertext(el: ElementRef<'_>) -> String {
    fn walk(el: ElementRef<'_>, runs: &mut Vec<String>, cur: &mut String) {
        for child in el.children() {
            if let Node::Text(t) = child.value() {
                cur.push_str(t);
            } else if let Some(e) = ElementRef::wrap(child) {
                flush(runs, cur);
                walk(e, runs, cur);
                flush(runs, cur);
            }
        }
    }
    fn flush(runs: &mut Vec<String>, cur: &mut String) {
        if !cur.is_empty() {
            runs.push(std::mem::take(cur));
        }
    }
    let (mut runs, mut cur) = (Vec::new(), String::new());
    walk(el, &mut runs, &mut cur);
    flush(&mut runs, &mut cur);
    runs.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: u32, col: u32, rs: u32, cs: u32, text: &str) -> Cell {
        Cell { row, col, row_span: rs, col_span: cs, text: text.into(), header: false }
    }

    /// A plain `rows` × `cols` table whose cell (i, j) holds `"{i}{j}"`.
    fn plain(rows: u32, cols: u32) -> Table {
        let mut cells = Vec::new();
        for i in 0..rows {
            for j in 0..cols {
                cells.push(cell(i, j, 1, 1, &format!("{i}{j}")));
            }
        }
        Table { rows, cols, cells }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn identical_tables_score_one() {
        let t = plain(3, 4);
        let one = Grits { precision: 1.0, recall: 1.0, f: 1.0 };
        assert_eq!(grits_top(&t, &t), one);
        assert_eq!(grits_con(&t, &t), one);
    }

    #[test]
    fn one_wrong_cell() {
        // 2 × 2, cell (1, 1) "11" predicted as "1x": reward 2·1/4 = 0.5 there, 1 elsewhere.
        let gt = plain(2, 2);
        let mut pred = gt.clone();
        pred.cells[3].text = "1x".into();
        let g = grits_con(&gt, &pred);
        assert_eq!(g.precision, 3.5 / 4.0);
        assert_eq!(g.recall, 3.5 / 4.0);
        assert_eq!(g.f, 3.5 / 4.0);
        // Topology is untouched.
        assert_eq!(grits_top(&gt, &pred).f, 1.0);
    }

    #[test]
    fn dropped_row() {
        // 3 × 2 truth, prediction without row 1: the 2 remaining rows align exactly.
        let gt = plain(3, 2);
        let pred = Table {
            rows: 2,
            cols: 2,
            cells: vec![
                cell(0, 0, 1, 1, "00"),
                cell(0, 1, 1, 1, "01"),
                cell(1, 0, 1, 1, "20"),
                cell(1, 1, 1, 1, "21"),
            ],
        };
        let g = grits_con(&gt, &pred);
        assert_eq!(g.precision, 1.0);
        assert_eq!(g.recall, 4.0 / 6.0);
        assert!(close(g.f, 0.8));
        let t = grits_top(&gt, &pred);
        assert_eq!((t.precision, t.recall), (1.0, 4.0 / 6.0));
    }

    #[test]
    fn span_change() {
        // Truth: row 0 = one cell spanning 2 columns, row 1 = two cells. Prediction: all 1 × 1.
        let gt = Table {
            rows: 2,
            cols: 2,
            cells: vec![cell(0, 0, 1, 2, "h"), cell(1, 0, 1, 1, "a"), cell(1, 1, 1, 1, "b")],
        };
        let pred = Table {
            rows: 2,
            cols: 2,
            cells: vec![
                cell(0, 0, 1, 1, "h"),
                cell(0, 1, 1, 1, ""),
                cell(1, 0, 1, 1, "a"),
                cell(1, 1, 1, 1, "b"),
            ],
        };
        // Relspan of truth (0,0) = [0,0,2,1], (0,1) = [-1,0,1,1]; both have IoU 1/2 with the
        // unit box [0,0,1,1]. Score = 0.5 + 0.5 + 1 + 1 = 3 of 4.
        let t = grits_top(&gt, &pred);
        assert_eq!((t.precision, t.recall, t.f), (0.75, 0.75, 0.75));
        // Content: truth (0,1) repeats "h", prediction has "" there: reward 0. 3 of 4.
        let c = grits_con(&gt, &pred);
        assert_eq!((c.precision, c.recall), (0.75, 0.75));
    }

    #[test]
    fn relspan_boxes() {
        let t = Table { rows: 2, cols: 2, cells: vec![cell(0, 0, 2, 2, "x")] };
        let g = relspan_grid(&t);
        assert_eq!(
            g.slots,
            vec![[0., 0., 2., 2.], [-1., 0., 1., 2.], [0., -1., 2., 1.], [-1., -1., 1., 1.]]
        );
    }

    #[test]
    fn iou_uses_bounding_hull() {
        // Two unit squares touching diagonally at a corner overlap nowhere.
        assert_eq!(iou(&[0., 0., 1., 1.], &[1., 1., 2., 2.]), 0.0);
        // Overlap 1 × 1; true union 7, bounding hull 3 × 3 = 9.
        assert_eq!(iou(&[0., 0., 2., 2.], &[1., 1., 3., 3.]), 1.0 / 9.0);
        assert_eq!(iou(&[0., 0., 2., 1.], &[0., 0., 1., 1.]), 0.5);
        // Empty boxes (holes) score 0, even against themselves.
        assert_eq!(iou(&[0.; 4], &[0.; 4]), 0.0);
        assert_eq!(iou(&[0.; 4], &[0., 0., 1., 1.]), 0.0);
        // MuPDF rounds to f32: 0.1 and 0.3 become 0.10000000149 and 0.30000001192.
        let v = iou(&[0.1, 0.2, 1.3, 1.7], &[0.3, 0.1, 2.1, 1.1]);
        let inter =
            (1.2999999523162842 - 0.30000001192092896) * (1.100000023841858 - 0.20000000298023224);
        let hull =
            (2.0999999046325684 - 0.10000000149011612) * (1.7000000476837158 - 0.10000000149011612);
        assert_eq!(v, inter / hull);
    }

    #[test]
    fn lcs_similarity_values() {
        assert_eq!(lcs_similarity("", ""), 1.0);
        assert_eq!(lcs_similarity("abc", ""), 0.0);
        assert_eq!(lcs_similarity("abxcd", "abcd"), 8.0 / 9.0);
        // Ratcliff/Obershelp, not LCS: the true LCS of these is 4 ("abcd"), difflib finds 4 too,
        // but for "abcdxyz"/"xyzabcd" difflib takes "abcd" then nothing: 8/14.
        assert_eq!(lcs_similarity("abcdxyz", "xyzabcd"), 8.0 / 14.0);
    }

    #[test]
    fn holes_and_empty_tables() {
        // Truth 1 × 2 with a hole at (0, 1).
        let gt =
            Table { rows: 1, cols: 2, cells: vec![cell(0, 0, 1, 1, "a"), cell(0, 1, 0, 0, "b")] };
        let holed = Table { rows: 1, cols: 2, cells: vec![cell(0, 0, 1, 1, "a")] };
        // The hole-less grid is only 1 × 1: extent, not `cols`.
        assert_eq!(cell_index_grid(&holed).cols, 1);
        let holed =
            Table { rows: 1, cols: 3, cells: vec![cell(0, 0, 1, 1, "a"), cell(0, 2, 1, 1, "")] };
        // Con: hole "" vs "b" → 0, "a" vs "a" → 1; pred has 3 slots, the extra "" slot unmatched.
        let c = grits_con(&gt, &holed);
        assert_eq!((c.precision, c.recall), (1.0 / 3.0, 0.5));
        // Top: the hole is the empty box, reward 0; the 1 × 1 cells match.
        let t = grits_top(&gt, &holed);
        assert_eq!((t.precision, t.recall), (2.0 / 3.0, 1.0));
        // No cells: a 1 × 0 grid.
        let empty = Table::default();
        assert_eq!(grits_top(&empty, &empty), Grits { precision: 1.0, recall: 1.0, f: 1.0 });
        assert_eq!(grits_con(&gt, &empty), Grits { precision: 1.0, recall: 0.0, f: 0.0 });
        assert_eq!(grits_con(&empty, &gt), Grits { precision: 0.0, recall: 1.0, f: 0.0 });
    }

    #[test]
    fn zero_span_counts_as_one() {
        let a =
            Table { rows: 1, cols: 2, cells: vec![cell(0, 0, 1, 1, "a"), cell(0, 1, 0, 0, "b")] };
        assert_eq!(grits_top(&a, &plain(1, 2)).f, 1.0);
    }

    #[test]
    fn fscore_conventions() {
        assert_eq!(compute_fscore(0.0, 4, 0), Grits { precision: 1.0, recall: 0.0, f: 0.0 });
        assert_eq!(compute_fscore(0.0, 0, 0), Grits { precision: 1.0, recall: 1.0, f: 1.0 });
        assert_eq!(compute_fscore(0.0, 3, 3), Grits { precision: 0.0, recall: 0.0, f: 0.0 });
        assert_eq!(compute_fscore(3.0, 4, 6).f, 2.0 * 0.5 * 0.75 / 1.25);
    }

    #[test]
    fn row_alignment_prefers_diagonal_then_up() {
        // Truth rows "a","a"; prediction one row "a": both true rows tie; the traceback takes
        // the diagonal at (2, 1), i.e. aligns the *last* true row.
        let (pairs, score) = align_2d_outer((2, 1), (1, 1), |_, _, _, _| 1.0);
        assert_eq!((pairs, score), (vec![(1, 0)], 1.0));
        // Zero rewards: all-diagonal pointers (0 == 0), min(n1, n2) pairs from the end.
        let (pairs, _) = align_2d_outer((3, 1), (2, 1), |_, _, _, _| 0.0);
        assert_eq!(pairs, vec![(1, 0), (2, 1)]);
    }

    #[test]
    fn html_cells_follow_html_to_cells() {
        let html = "<table><thead><tr><th colspan=\"2\">H <b>x</b></th></tr></thead>\
                    <tr><td rowspan=\"2\">a</td><td>b<!-- c -->c</td></tr><tr><td>d</td></tr></table>";
        let t = html_to_table(html);
        assert_eq!((t.rows, t.cols), (3, 2));
        assert_eq!(
            t.cells[0],
            Cell { row: 0, col: 0, row_span: 1, col_span: 2, text: "H  x".into(), header: true }
        );
        assert_eq!(t.cells[1], cell(1, 0, 2, 1, "a"));
        assert_eq!(t.cells[2], cell(1, 1, 1, 1, "bc"));
        // The rowspan keeps column 0 of row 2 taken.
        assert_eq!(t.cells[3], cell(2, 1, 1, 1, "d"));
        let g = grits_from_html(html, html);
        assert_eq!(g.top.f, 1.0);
        assert_eq!(g.con.f, 1.0);
    }

    #[test]
    fn html_span_attributes() {
        assert_eq!(span_attr(None), 1);
        assert_eq!(span_attr(Some(" 3 ")), 3);
        assert_eq!(span_attr(Some("+2")), 2);
        assert_eq!(span_attr(Some("0")), 1);
        assert_eq!(span_attr(Some("x")), 1);
    }
}
