//! Reading order by recursive XY-cut over spans, table regions, and lines.
//!
//! A region is first cut horizontally into bands at every blank strip; consecutive bands
//! whose vertical gutters line up (the two columns of a page, even where the columns' blank
//! lines happen to align, or a left column running on below the right one) are merged back,
//! so a column is read to its end before the next one starts. A region whose bands all share
//! a gutter is cut vertically at its widest gutter, but only when both sides hold at least two
//! text rows, so a heading number or an equation number never splits from its line.

use super::{Span, WORD_GAP};
use crate::doc::{BBox, Block, BlockKind, Cell, Table};

/// A gutter at least this many body ems wide can separate columns.
const MIN_GUTTER: f32 = 0.9;
/// A blank horizontal strip at least this many body ems high separates bands.
const MIN_STRIP: f32 = 0.3;
/// Recursion limit; deeper regions are emitted as they are.
const MAX_DEPTH: u32 = 64;

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
}

/// What reading order yields: lines, and tables found whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Line(Line),
    Table(Block),
}

/// Returns a page's body spans as lines and tables in reading order.
pub(crate) fn order(spans: &[Span], page: u32, body: f32) -> Vec<Item> {
    let captions = spans
        .iter()
        .filter(|s| super::blocks::caption_label(&s.text) == Some(true))
        .map(|s| s.bbox)
        .collect();
    let mut cx = Cut { spans, em: body.max(1.0), page, captions, out: Vec::new() };
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
    page: u32,
    /// Boxes of `Table N` captions on the page.
    captions: Vec<BBox>,
    out: Vec<Item>,
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

/// Pairwise overlaps of two gap lists, each at least `min` long.
fn intersect(a: &[(f32, f32)], b: &[(f32, f32)], min: f32) -> Vec<(f32, f32)> {
    let mut out = Vec::new();
    for &(a0, a1) in a {
        for &(b0, b1) in b {
            let (lo, hi) = (a0.max(b0), a1.min(b1));
            if hi - lo >= min {
                out.push((lo, hi));
            }
        }
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
        let mut ys: Vec<f32> = idx.iter().map(|&i| self.spans[i].center_y()).collect();
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
        if idx.len() == 1 || depth > MAX_DEPTH {
            return self.leaf(&idx, col);
        }
        let bbox = self.bbox(&idx);
        let bands = self.bands(idx);
        if bands.len() > 1 {
            let groups = self.merge_bands(&bands, bbox);
            if groups.len() > 1 {
                for g in groups {
                    self.cut(g, col, depth + 1);
                }
                return;
            }
        }
        // Every band shares a gutter (or there is one band): try a vertical cut.
        let idx: Vec<usize> = bands.iter().flatten().copied().collect();
        let xs: Vec<(f32, f32)> =
            idx.iter().map(|&i| (self.spans[i].bbox.x0, self.spans[i].bbox.x1)).collect();
        let mut gutters = gaps(xs, bbox.x0, bbox.x1, MIN_GUTTER * self.em);
        if !gutters.is_empty() {
            if let Some(table) = self.table(&idx, &gutters, bbox) {
                self.out.push(Item::Table(table));
                return;
            }
            gutters.sort_by(|a, b| (b.1 - b.0).total_cmp(&(a.1 - a.0)));
            for g in gutters {
                let mid = (g.0 + g.1) * 0.5;
                let (left, right): (Vec<usize>, Vec<usize>) =
                    idx.iter().partition(|&&i| self.spans[i].bbox.x1 <= mid);
                if self.rows(&left) >= 2 && self.rows(&right) >= 2 && !self.all_eq_numbers(&right) {
                    let (lb, rb) = (self.bbox(&left), self.bbox(&right));
                    let lcol = BBox::new(lb.x0, bbox.y0, lb.x1, bbox.y1);
                    let rcol = BBox::new(rb.x0, bbox.y0, rb.x1, bbox.y1);
                    self.cut(left, lcol, depth + 1);
                    self.cut(right, rcol, depth + 1);
                    return;
                }
            }
        }
        if bands.len() == 1 {
            return self.leaf(&idx, col);
        }
        for b in bands {
            self.cut(b, col, depth + 1);
        }
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

    /// Merges consecutive bands whose vertical gutters (edges of the region included) line up.
    fn merge_bands(&self, bands: &[Vec<usize>], region: BBox) -> Vec<Vec<usize>> {
        let min = MIN_GUTTER * self.em;
        let mut out: Vec<Vec<usize>> = Vec::new();
        let mut shared: Vec<(f32, f32)> = Vec::new();
        for band in bands {
            let xs = band.iter().map(|&i| (self.spans[i].bbox.x0, self.spans[i].bbox.x1)).collect();
            // Empty space at a region edge counts only for a band of several rows (a column's
            // tail); a lone short line (a caption above a table) must not join on it.
            let g = if self.rows(band) >= 2 {
                gaps(xs, region.x0, region.x1, min)
            } else {
                let b = self.bbox(band);
                gaps(xs, b.x0, b.x1, min)
            };
            let common = intersect(&shared, &g, 0.5 * min);
            match out.last_mut() {
                Some(last) if !common.is_empty() => {
                    last.extend_from_slice(band);
                    shared = common;
                }
                _ => {
                    out.push(band.clone());
                    shared = g;
                }
            }
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

    /// Returns a table when the region is a grid of short, mostly numeric cells.
    fn table(&self, idx: &[usize], gutters: &[(f32, f32)], bbox: BBox) -> Option<Block> {
        let k = gutters.len() + 1;
        let mut order = idx.to_vec();
        order.sort_by(|&a, &b| self.spans[a].center_y().total_cmp(&self.spans[b].center_y()));
        // Row of each span in `order`.
        let mut rows = Vec::with_capacity(order.len());
        let mut r = 0usize;
        for w in 0..order.len() {
            if w > 0
                && self.spans[order[w]].center_y() - self.spans[order[w - 1]].center_y()
                    > 0.5 * self.em
            {
                r += 1;
            }
            rows.push(r);
        }
        let n_rows = r + 1;
        let has_caption =
            order.iter().any(|&i| super::blocks::caption_label(&self.spans[i].text).is_some());
        if n_rows < 2 || has_caption {
            return None;
        }
        let chars: usize = order.iter().map(|&i| self.spans[i].text.chars().count()).sum();
        if chars > 24 * order.len() {
            return None;
        }
        let numeric = order
            .iter()
            .filter(|&&i| self.spans[i].text.bytes().any(|b| b.is_ascii_digit()))
            .count() as f32
            / order.len() as f32;
        let near_caption = self.captions.iter().any(|c| {
            let dy = (c.y0 - bbox.y1).max(bbox.y0 - c.y1);
            dy < 6.0 * self.em && c.x0 < bbox.x1 && c.x1 > bbox.x0
        });
        let accept = (near_caption && numeric >= 0.25 && (k >= 3 || numeric >= 0.5))
            || (numeric >= 0.6 && k >= 3 && n_rows >= 3);
        if !accept {
            return None;
        }
        let col_of = |s: &Span| {
            let cx = (s.bbox.x0 + s.bbox.x1) * 0.5;
            gutters.iter().filter(|g| (g.0 + g.1) * 0.5 < cx).count()
        };
        let mut grid: Vec<Vec<Vec<&Span>>> = vec![vec![Vec::new(); k]; n_rows];
        for (w, &i) in order.iter().enumerate() {
            let s = &self.spans[i];
            grid[rows[w]][col_of(s)].push(s);
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

    /// Emits the region's spans as lines, top to bottom, each row left to right.
    fn leaf(&mut self, idx: &[usize], col: BBox) {
        let mut order = idx.to_vec();
        order.sort_by(|&a, &b| self.spans[a].center_y().total_cmp(&self.spans[b].center_y()));
        let mut row: Vec<&Span> = Vec::new();
        let mut row_box = BBox::default();
        for i in order {
            let s = &self.spans[i];
            let cy = s.center_y();
            let joins = !row.is_empty() && cy >= row_box.y0 && cy <= row_box.y1;
            if !joins && !row.is_empty() {
                self.emit_row(&mut row, col);
            }
            row_box = if row.is_empty() { s.bbox } else { row_box.union(&s.bbox) };
            row.push(s);
        }
        if !row.is_empty() {
            self.emit_row(&mut row, col);
        }
    }

    fn emit_row(&mut self, row: &mut Vec<&Span>, col: BBox) {
        row.sort_by(|a, b| a.bbox.x0.total_cmp(&b.bbox.x0));
        let mut text = String::new();
        let mut bbox = row[0].bbox;
        let (mut chars, mut bold) = (0u32, 0u32);
        let mut size = row[0].size;
        let mut longest = 0;
        for (j, s) in row.iter().enumerate() {
            if j > 0 {
                let gap = s.bbox.x0 - row[j - 1].bbox.x1;
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
        self.out.push(Item::Line(Line { page: self.page, bbox, col, text, size, bold }));
        row.clear();
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
        let items = order(&spans(&g), 0, 10.0);
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
        let t = lines_of(&order(&spans(&g), 0, 10.0));
        assert!(t[..8].iter().all(|l| l.starts_with("left")), "{t:?}");
    }

    #[test]
    fn equation_number_and_heading_number_stay_on_their_line() {
        let mut g = line(72.0, 100.0, 12.0, true, "1");
        g.extend(line(90.0, 100.0, 12.0, true, "Introduction"));
        g.extend(line(150.0, 140.0, 10.0, false, "x = y + z"));
        g.extend(line(500.0, 140.0, 10.0, false, "(1)"));
        let t = lines_of(&order(&spans(&g), 0, 10.0));
        assert_eq!(t, vec!["1 Introduction".to_string(), "x = y + z (1)".to_string()]);
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
        let items = order(&spans(&g), 0, 10.0);
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
