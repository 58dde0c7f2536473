//! ICDAR 2013 table detection for the table suite: GT table regions (read by
//! [`crate::formats::icdar2013`]) are paired with predicted table boxes on the same page one
//! to one ([`detect`]: Hungarian on IoU, true union as denominator), and a pair counts as
//! found when IoU ≥ 0.5.

use crate::doc::BBox;
use crate::formats::icdar2013::Region;

/// The IoU a predicted box needs to count as finding a GT region.
pub const MIN_IOU: f64 = 0.5;

/// Intersection over (true) union of two `[x0, y0, x1, y1]` boxes; 0 when the union is empty.
pub(crate) fn box_iou(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    let area = |r: &[f64; 4]| (r[2] - r[0]).max(0.0) * (r[3] - r[1]).max(0.0);
    let inter = area(&[a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3])]);
    let union = area(a) + area(b) - inter;
    if union > 0.0 {
        inter / union
    } else {
        0.0
    }
}

/// Region detection of one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detection {
    /// GT regions.
    pub gt: usize,
    /// Predicted table boxes.
    pub pred: usize,
    /// (GT region, predicted box, IoU) pairs with IoU ≥ [`MIN_IOU`].
    pub found: Vec<(usize, usize, f64)>,
}

impl Detection {
    /// Found / predicted, `None` without predictions.
    pub fn precision(&self) -> Option<f64> {
        (self.pred > 0).then(|| self.found.len() as f64 / self.pred as f64)
    }

    /// Found / GT regions, `None` without regions.
    pub fn recall(&self) -> Option<f64> {
        (self.gt > 0).then(|| self.found.len() as f64 / self.gt as f64)
    }
}

/// Pairs GT regions with predicted `(page, top-left box)` tables page by page (Hungarian on
/// IoU); `page_heights[p]` converts the regions of page `p` (a missing page uses 792 pt).
pub fn detect(gt: &[Region], pred: &[(u32, BBox)], page_heights: &[f32]) -> Detection {
    let mut det = Detection { gt: gt.len(), pred: pred.len(), found: Vec::new() };
    let mut pages: Vec<u32> = gt.iter().map(|r| r.page).collect();
    pages.sort_unstable();
    pages.dedup();
    for p in pages {
        let h = f64::from(page_heights.get(p as usize).copied().unwrap_or(792.0));
        let g: Vec<(usize, [f64; 4])> = gt
            .iter()
            .enumerate()
            .filter(|(_, r)| r.page == p)
            .map(|(i, r)| (i, r.to_top_left(h)))
            .collect();
        let q: Vec<(usize, [f64; 4])> = pred
            .iter()
            .enumerate()
            .filter(|(_, (pp, _))| *pp == p)
            .map(|(j, (_, b))| {
                (j, [f64::from(b.x0), f64::from(b.y0), f64::from(b.x1), f64::from(b.y1)])
            })
            .collect();
        if q.is_empty() {
            continue;
        }
        let w: Vec<f64> =
            g.iter().flat_map(|(_, a)| q.iter().map(move |(_, b)| box_iou(a, b))).collect();
        // Finite weights on a dense matrix: always feasible.
        if let Ok((rows, cols)) = lsap::solve(g.len(), q.len(), &w, true) {
            for (r, c) in rows.into_iter().zip(cols) {
                let iou = w[r * q.len() + c];
                if iou >= MIN_IOU {
                    det.found.push((g[r].0, q[c].0, iou));
                }
            }
        }
    }
    det.found.sort_by_key(|f| f.0);
    det
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::icdar2013::read_truth;
    use crate::formats::icdar2013::tests::{REG, STR};

    #[test]
    fn regions_are_found_at_iou_half_on_their_page() {
        let t = read_truth(REG.as_bytes(), STR.as_bytes()).unwrap();
        let heights = [792.0, 792.0];
        // Exact box of region 0; a box for region 1 that overlaps a third (IoU 1/3); one on the
        // wrong page.
        let pred = vec![
            (0, BBox::new(100.0, 192.0, 300.0, 292.0)),
            (1, BBox::new(150.0, 592.0, 250.0, 692.0)),
            (0, BBox::new(100.0, 592.0, 200.0, 692.0)),
        ];
        let d = detect(&t.regions, &pred, &heights);
        assert_eq!(d.found, [(0, 0, 1.0)]);
        assert_eq!((d.precision(), d.recall()), (Some(1.0 / 3.0), Some(0.5)));
        assert!((box_iou(&[0.0, 0.0, 2.0, 1.0], &[1.0, 0.0, 3.0, 1.0]) - 1.0 / 3.0).abs() < 1e-12);
    }
}
