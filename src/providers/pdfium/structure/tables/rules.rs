//! Rules as the table finder uses them: split into horizontal and vertical, snapped to one
//! position where strokes nearly coincide (a rule drawn twice, a cell border shared by two
//! shaded cells) and joined where they continue one another, as pdfplumber's `snap` and
//! `join` steps do.

use crate::doc::BBox;

/// Rules whose positions differ by at most this (points) are one rule.
const SNAP: f32 = 2.0;
/// Collinear rules with at most this gap between them (points) are joined.
const JOIN: f32 = 3.0;

/// A horizontal rule at `y` from `x0` to `x1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HRule {
    pub(crate) y: f32,
    pub(crate) x0: f32,
    pub(crate) x1: f32,
}

/// A vertical rule at `x` from `y0` to `y1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct VRule {
    pub(crate) x: f32,
    pub(crate) y0: f32,
    pub(crate) y1: f32,
}

impl HRule {
    pub(crate) fn len(&self) -> f32 {
        self.x1 - self.x0
    }
}

impl VRule {
    pub(crate) fn len(&self) -> f32 {
        self.y1 - self.y0
    }
}

/// A page's rules, snapped and joined, each list sorted by position then start.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Rules {
    pub(crate) h: Vec<HRule>,
    pub(crate) v: Vec<VRule>,
}

impl Rules {
    /// Normalizes rule boxes: a box at least as wide as high is horizontal.
    pub(crate) fn new(boxes: &[BBox]) -> Rules {
        let mut h = Vec::new();
        let mut v = Vec::new();
        for b in boxes {
            if b.width() >= b.height() {
                h.push((0.5 * (b.y0 + b.y1), b.x0, b.x1));
            } else {
                v.push((0.5 * (b.x0 + b.x1), b.y0, b.y1));
            }
        }
        let h = snap_join(h).into_iter().map(|(y, x0, x1)| HRule { y, x0, x1 }).collect();
        let v = snap_join(v).into_iter().map(|(x, y0, y1)| VRule { x, y0, y1 }).collect();
        Rules { h, v }
    }

    /// The rules inside `b` (with `tol` points of slack), cut to it.
    pub(crate) fn within(&self, b: &BBox, tol: f32) -> Rules {
        let h = self
            .h
            .iter()
            .filter(|r| r.y >= b.y0 - tol && r.y <= b.y1 + tol && r.x1 > b.x0 && r.x0 < b.x1)
            .map(|r| HRule { y: r.y, x0: r.x0.max(b.x0), x1: r.x1.min(b.x1) })
            .filter(|r| r.len() > 0.0)
            .collect();
        let v = self
            .v
            .iter()
            .filter(|r| r.x >= b.x0 - tol && r.x <= b.x1 + tol && r.y1 > b.y0 && r.y0 < b.y1)
            .map(|r| VRule { x: r.x, y0: r.y0.max(b.y0), y1: r.y1.min(b.y1) })
            .filter(|r| r.len() > 0.0)
            .collect();
        Rules { h, v }
    }

    /// Whether a vertical rule near `x` (within `tol`) covers `[y0, y1]` for at least
    /// `frac` of its height.
    pub(crate) fn v_covers(&self, x: f32, tol: f32, y0: f32, y1: f32, frac: f32) -> bool {
        let need = frac * (y1 - y0);
        let mut covered = 0.0;
        for r in self.v.iter().filter(|r| (r.x - x).abs() <= tol) {
            covered += (r.y1.min(y1) - r.y0.max(y0)).max(0.0);
        }
        covered >= need && covered > 0.0
    }

    /// Whether a horizontal rule near `y` (within `tol`) covers `[x0, x1]` for at least
    /// `frac` of its width.
    pub(crate) fn h_covers(&self, y: f32, tol: f32, x0: f32, x1: f32, frac: f32) -> bool {
        let need = frac * (x1 - x0);
        let mut covered = 0.0;
        for r in self.h.iter().filter(|r| (r.y - y).abs() <= tol) {
            covered += (r.x1.min(x1) - r.x0.max(x0)).max(0.0);
        }
        covered >= need && covered > 0.0
    }
}

/// Snaps `(position, start, end)` segments whose positions are within [`SNAP`] to their
/// mean position, then joins overlapping or nearly touching ones at each position.
fn snap_join(mut segs: Vec<(f32, f32, f32)>) -> Vec<(f32, f32, f32)> {
    segs.retain(|s| s.0.is_finite() && s.1.is_finite() && s.2.is_finite());
    segs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = Vec::with_capacity(segs.len());
    let mut i = 0;
    while i < segs.len() {
        // A cluster: positions chained within SNAP of the cluster's first.
        let mut j = i + 1;
        while j < segs.len() && segs[j].0 - segs[i].0 <= SNAP {
            j += 1;
        }
        let cluster = &mut segs[i..j];
        let pos = cluster.iter().map(|s| s.0).sum::<f32>() / cluster.len() as f32;
        cluster.sort_by(|a, b| a.1.total_cmp(&b.1));
        let mut cur = (pos, cluster[0].1, cluster[0].2);
        for s in cluster.iter().skip(1) {
            if s.1 <= cur.2 + JOIN {
                cur.2 = cur.2.max(s.2);
            } else {
                out.push(cur);
                cur = (pos, s.1, s.2);
            }
        }
        out.push(cur);
        i = j;
    }
    out
}

/// Groups rules that touch or cross (within `tol`) into connected sets: the drawn grids of a
/// page. Returns, per set, the indices of its horizontal and vertical rules.
pub(crate) fn grids(r: &Rules, tol: f32) -> Vec<(Vec<usize>, Vec<usize>)> {
    let (nh, nv) = (r.h.len(), r.v.len());
    let mut parent: Vec<usize> = (0..nh + nv).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for (i, h) in r.h.iter().enumerate() {
        for (j, v) in r.v.iter().enumerate() {
            let touch =
                v.x >= h.x0 - tol && v.x <= h.x1 + tol && h.y >= v.y0 - tol && h.y <= v.y1 + tol;
            if touch {
                let (a, b) = (find(&mut parent, i), find(&mut parent, nh + j));
                if a != b {
                    parent[a] = b;
                }
            }
        }
    }
    let mut sets: std::collections::BTreeMap<usize, (Vec<usize>, Vec<usize>)> =
        std::collections::BTreeMap::new();
    for i in 0..nh {
        let root = find(&mut parent, i);
        sets.entry(root).or_default().0.push(i);
    }
    for j in 0..nv {
        let root = find(&mut parent, nh + j);
        sets.entry(root).or_default().1.push(j);
    }
    sets.into_values().filter(|(h, v)| !h.is_empty() && !v.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_rules_snap_and_collinear_ones_join() {
        let r = Rules::new(&[
            BBox::new(10.0, 100.0, 50.0, 100.8),
            BBox::new(51.0, 101.0, 90.0, 101.6),
            BBox::new(120.0, 100.2, 150.0, 100.6),
            BBox::new(10.0, 90.0, 10.6, 130.0),
        ]);
        assert_eq!(r.h.len(), 2, "{:?}", r.h);
        assert!((r.h[0].x0 - 10.0).abs() < 1e-4 && (r.h[0].x1 - 90.0).abs() < 1e-4);
        assert!((r.h[0].y - r.h[1].y).abs() < 1e-4);
        assert_eq!(r.v.len(), 1);
        let g = grids(&r, 2.0);
        assert_eq!(g, vec![(vec![0], vec![0])]);
    }
}
