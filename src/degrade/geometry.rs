//! The geometric half of a degradation: one plane homography per page, in page points
//! (origin at the page's top-left corner, x right, y down), which moves the page's pixels and
//! its truth's boxes alike (`docs/degrade.md`).

/// A 3 × 3 homography `[x', y', w'] = H · [x, y, 1]`, row-major.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography(pub [f64; 9]);

impl Homography {
    /// The identity.
    pub const IDENTITY: Homography = Homography([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);

    /// A rotation by `degrees` (counter-clockwise as seen on the page) about `(cx, cy)`.
    pub fn rotation(degrees: f64, cx: f64, cy: f64) -> Homography {
        let (s, c) = degrees.to_radians().sin_cos();
        // y points down: a counter-clockwise turn as seen is (x, y) -> (c x + s y, -s x + c y).
        let tx = cx - (c * cx + s * cy);
        let ty = cy - (-s * cx + c * cy);
        Homography([c, s, tx, -s, c, ty, 0.0, 0.0, 1.0])
    }

    /// The homography that maps the four points `from` to the four points `to` (no three of
    /// either collinear); `None` when they are degenerate.
    pub fn from_points(from: [(f64, f64); 4], to: [(f64, f64); 4]) -> Option<Homography> {
        // The eight unknowns h0..h7 (h8 = 1) from two equations a correspondence.
        let mut a = [[0.0f64; 9]; 8];
        for (i, (&(x, y), &(u, v))) in from.iter().zip(&to).enumerate() {
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        let h = solve8(a)?;
        Some(Homography([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0]))
    }

    /// `self` after `first`: the homography that applies `first`, then `self`.
    pub fn after(&self, first: &Homography) -> Homography {
        let (a, b) = (&self.0, &first.0);
        let mut m = [0.0; 9];
        for r in 0..3 {
            for c in 0..3 {
                m[r * 3 + c] = (0..3).map(|k| a[r * 3 + k] * b[k * 3 + c]).sum();
            }
        }
        Homography(m)
    }

    /// The inverse; `None` when singular.
    pub fn inverse(&self) -> Option<Homography> {
        let m = &self.0;
        let cof = [
            m[4] * m[8] - m[5] * m[7],
            m[2] * m[7] - m[1] * m[8],
            m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8],
            m[0] * m[8] - m[2] * m[6],
            m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6],
            m[1] * m[6] - m[0] * m[7],
            m[0] * m[4] - m[1] * m[3],
        ];
        let det = m[0] * cof[0] + m[1] * cof[3] + m[2] * cof[6];
        if det.abs() < 1e-12 {
            return None;
        }
        Some(Homography(cof.map(|c| c / det)))
    }

    /// Where the point `(x, y)` goes.
    pub fn apply(&self, x: f64, y: f64) -> (f64, f64) {
        let m = &self.0;
        let w = m[6] * x + m[7] * y + m[8];
        ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }

    /// Whether this is the identity (within rounding).
    pub fn is_identity(&self) -> bool {
        self.0.iter().zip(&Self::IDENTITY.0).all(|(a, b)| (a - b).abs() < 1e-12)
    }

    /// The same map in a frame `sx` × `sy` times finer than points (pixels at some dpi, or a
    /// truth's own image frame): `S · H · S⁻¹`.
    pub fn in_frame(&self, sx: f64, sy: f64) -> Homography {
        let s = Homography([sx, 0.0, 0.0, 0.0, sy, 0.0, 0.0, 0.0, 1.0]);
        let s_inv = Homography([1.0 / sx, 0.0, 0.0, 0.0, 1.0 / sy, 0.0, 0.0, 0.0, 1.0]);
        s.after(self).after(&s_inv)
    }

    /// An axis-aligned box `[x0, y0, x1, y1]` moved: the smallest axis-aligned box holding its
    /// four moved corners, clamped to `[0, width] × [0, height]` (a box turned off the page is
    /// cut by the page's edge, as its pixels are).
    pub fn move_box(&self, b: [f64; 4], width: f64, height: f64) -> [f64; 4] {
        let corners = [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])];
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for (x, y) in corners {
            let (u, v) = self.apply(x, y);
            x0 = x0.min(u);
            y0 = y0.min(v);
            x1 = x1.max(u);
            y1 = y1.max(v);
        }
        [x0.clamp(0.0, width), y0.clamp(0.0, height), x1.clamp(0.0, width), y1.clamp(0.0, height)]
    }
}

/// Solves the 8 × 8 system `[A | b]` by Gaussian elimination with partial pivoting.
fn solve8(mut a: [[f64; 9]; 8]) -> Option<[f64; 8]> {
    for col in 0..8 {
        let pivot = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        let p = a[col];
        for (row, r) in a.iter_mut().enumerate() {
            if row != col {
                let f = r[col] / p[col];
                for (x, y) in r.iter_mut().zip(&p).skip(col) {
                    *x -= f * y;
                }
            }
        }
    }
    let mut x = [0.0; 8];
    for i in 0..8 {
        x[i] = a[i][8] / a[i][i];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9
    }

    #[test]
    fn a_quarter_turn_about_the_centre_moves_the_corners_by_hand() {
        // Counter-clockwise as seen with y down: the top-right corner (10, 0) of a 10 × 10
        // square about (5, 5) goes to the top-left (0, 0); the top-left goes to the
        // bottom-left (0, 10).
        let h = Homography::rotation(90.0, 5.0, 5.0);
        assert!(close(h.apply(10.0, 0.0), (0.0, 0.0)));
        assert!(close(h.apply(0.0, 0.0), (0.0, 10.0)));
        assert!(close(h.apply(5.0, 5.0), (5.0, 5.0)));
        let back = h.inverse().unwrap();
        assert!(close(back.apply(0.0, 10.0), (0.0, 0.0)));
        assert!(h.after(&back).is_identity());
    }

    #[test]
    fn four_points_give_the_homography_that_maps_them() {
        let from = [(0.0, 0.0), (100.0, 0.0), (100.0, 200.0), (0.0, 200.0)];
        let to = [(3.0, 5.0), (96.0, 2.0), (98.0, 190.0), (4.0, 197.0)];
        let h = Homography::from_points(from, to).unwrap();
        for (f, t) in from.iter().zip(&to) {
            assert!(close(h.apply(f.0, f.1), *t), "{:?}", h.apply(f.0, f.1));
        }
        // A plain scale: (x, y) -> (2x, 3y).
        let s = Homography::from_points(from, from.map(|(x, y)| (2.0 * x, 3.0 * y))).unwrap();
        assert!(close(s.apply(7.0, 11.0), (14.0, 33.0)));
        assert!(Homography::from_points(from, [(0.0, 0.0); 4]).is_none());
    }

    #[test]
    fn frames_and_boxes() {
        // A 90° turn about (5, 5) in points is a 90° turn about (10, 10) in a frame 2× finer.
        let h = Homography::rotation(90.0, 5.0, 5.0).in_frame(2.0, 2.0);
        assert!(close(h.apply(20.0, 0.0), (0.0, 0.0)));
        // A box [2, 1, 4, 3] turned a quarter about (5, 5): corners (1, 8), (1, 6), (3, 6), (3, 8).
        let b = Homography::rotation(90.0, 5.0, 5.0).move_box([2.0, 1.0, 4.0, 3.0], 10.0, 10.0);
        for (x, y) in b.iter().zip([1.0, 6.0, 3.0, 8.0]) {
            assert!((x - y).abs() < 1e-9, "{b:?}");
        }
        // Clamped by the page.
        let b = Homography::IDENTITY.move_box([-5.0, 2.0, 50.0, 3.0], 10.0, 10.0);
        assert_eq!(b, [0.0, 2.0, 10.0, 3.0]);
    }
}
