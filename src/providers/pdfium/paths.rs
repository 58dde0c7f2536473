//! Reads a page's vector geometry: the ruling lines and bars a table is drawn with, and the
//! boxes of everything else drawn (curves, slanted strokes, images), so that the layout can
//! find ruled tables and tell a table grid from a figure.
//!
//! Every path object on the page (and inside form XObjects, their matrices composed) is
//! mapped to the displayed page (top-left origin, rotation applied) and cut to its clip box.
//! A path whose box is thin in one direction is a rule as it stands (LaTeX draws `\hline` and
//! booktabs rules as filled bars); other paths are read segment by segment: straight
//! axis-parallel segments of a stroked path are rules, a filled axis-parallel rectangle gives
//! its four edges (as pdfplumber and PyMuPDF take cell shading), and anything curved or
//! slanted is art. Invisible paths (white on the page, neither filled nor stroked) are skipped.

use pdfium_render::prelude::{
    PdfPage, PdfPageObject, PdfPageObjectCommon, PdfPageObjectType, PdfPageObjectsCommon,
    PdfPagePathObject, PdfPathFillMode, PdfPathSegmentType, PdfPathSegments, PdfRect,
};

use super::extract::Frame;
use crate::doc::BBox;

/// A path box at most this thick (points) is a rule without looking at its segments.
pub(crate) const THIN: f32 = 2.5;
/// Rules shorter than this (points) are dropped: glyph parts, tick marks, bullets.
const MIN_RULE: f32 = 2.0;
/// A segment whose ends differ by less than this across its direction (points) is
/// axis-parallel.
const SLANT: f32 = 0.5;
/// Paths with more segments than this are art without reading them (plots, drawn glyphs).
const MAX_SEGMENTS: u32 = 4000;
/// Form XObjects nest at most this deep.
const MAX_DEPTH: u32 = 8;

/// What a page draws besides text.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Graphics {
    /// Horizontal and vertical rules, each as its box.
    pub(crate) rules: Vec<BBox>,
    /// Boxes of curves, slanted strokes and images.
    pub(crate) art: Vec<BBox>,
}

/// An affine map `(x, y) ↦ (a·x + c·y + e, b·x + d·y + f)`, as PDF writes matrices.
#[derive(Debug, Clone, Copy)]
struct Affine([f32; 6]);

impl Affine {
    const IDENTITY: Affine = Affine([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    fn apply(&self, x: f32, y: f32) -> (f32, f32) {
        let [a, b, c, d, e, f] = self.0;
        (a * x + c * y + e, b * x + d * y + f)
    }

    /// The map that applies `inner` first, then `self`.
    fn then_after(&self, inner: &Affine) -> Affine {
        let [a, b, c, d, e, f] = inner.0;
        let (e2, f2) = self.apply(e, f);
        let (a2, b2) = (self.0[0] * a + self.0[2] * b, self.0[1] * a + self.0[3] * b);
        let (c2, d2) = (self.0[0] * c + self.0[2] * d, self.0[1] * c + self.0[3] * d);
        Affine([a2, b2, c2, d2, e2, f2])
    }

    fn is_identity(&self) -> bool {
        self.0 == Affine::IDENTITY.0
    }
}

/// Returns the page's rules and art in page coordinates.
pub(crate) fn page_graphics(page: &PdfPage<'_>, frame: &Frame) -> Graphics {
    let mut out = Graphics::default();
    let mut cx = Walk { frame, out: &mut out };
    for obj in page.objects().iter() {
        cx.object(&obj, Affine::IDENTITY, None, 0);
    }
    out
}

struct Walk<'f, 'o> {
    frame: &'f Frame,
    out: &'o mut Graphics,
}

impl Walk<'_, '_> {
    /// Maps a box in the user space of `m` to the page, cut to `clip`; `None` when nothing
    /// is left.
    fn to_page(&self, m: &Affine, r: (f32, f32, f32, f32), clip: Option<BBox>) -> Option<BBox> {
        let (l, b, rt, t) = r;
        let corners = [m.apply(l, b), m.apply(rt, b), m.apply(l, t), m.apply(rt, t)];
        let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for (x, y) in corners {
            let (px, py) = self.frame.point(x, y);
            x0 = x0.min(px);
            y0 = y0.min(py);
            x1 = x1.max(px);
            y1 = y1.max(py);
        }
        let mut bbox = BBox::new(x0, y0, x1, y1);
        if let Some(c) = clip {
            bbox = BBox::new(
                bbox.x0.max(c.x0),
                bbox.y0.max(c.y0),
                bbox.x1.min(c.x1),
                bbox.y1.min(c.y1),
            );
            // A rule can be thinner than nothing after the cut only if it lay outside.
            if bbox.x1 < bbox.x0 || bbox.y1 < bbox.y0 {
                return None;
            }
        }
        (bbox.x0.is_finite() && bbox.y0.is_finite() && bbox.x1.is_finite() && bbox.y1.is_finite())
            .then_some(bbox)
    }

    fn object(&mut self, obj: &PdfPageObject<'_>, m: Affine, clip: Option<BBox>, depth: u32) {
        match obj.object_type() {
            PdfPageObjectType::Path => {
                let clip = self.clip(obj, &m).map_or(clip, |c| Some(intersect(c, clip)));
                if let Some(path) = obj.as_path_object() {
                    self.path(path, &m, clip);
                }
            }
            PdfPageObjectType::Image | PdfPageObjectType::Shading => {
                if let Some(b) = bounds(obj).and_then(|r| self.to_page(&m, r, clip)) {
                    self.out.art.push(b);
                }
            }
            PdfPageObjectType::XObjectForm if depth < MAX_DEPTH => {
                let Some(form) = obj.as_x_object_form_object() else { return };
                let inner = form.matrix().map(|x| affine(&x)).unwrap_or(Affine::IDENTITY);
                let m2 = m.then_after(&inner);
                let clip = self.clip(obj, &m).map_or(clip, |c| Some(intersect(c, clip)));
                for child in form.iter() {
                    self.object(&child, m2, clip, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// The box of an object's clip path, in page coordinates.
    fn clip(&self, obj: &PdfPageObject<'_>, m: &Affine) -> Option<BBox> {
        let cp = obj.get_clip_path()?;
        let mut acc: Option<BBox> = None;
        for sub in cp.iter() {
            let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
            for seg in sub.iter() {
                let (x, y) = seg.point();
                x0 = x0.min(x.value);
                y0 = y0.min(y.value);
                x1 = x1.max(x.value);
                y1 = y1.max(y.value);
            }
            if x0 > x1 {
                continue;
            }
            let b = self.to_page(m, (x0, y0, x1, y1), None)?;
            acc = Some(acc.map_or(b, |a| intersect(a, Some(b))));
        }
        acc
    }

    fn path(&mut self, path: &PdfPagePathObject<'_>, m: &Affine, clip: Option<BBox>) {
        let filled = path.fill_mode().is_ok_and(|f| f != PdfPathFillMode::None);
        let stroked = path.is_stroked().unwrap_or(false);
        let white = |c: Result<pdfium_render::prelude::PdfColor, _>| {
            c.is_ok_and(|c| c.alpha() == 0 || c.red() > 245 && c.green() > 245 && c.blue() > 245)
        };
        let visible_fill = filled && !white(path.fill_color());
        let visible_stroke = stroked && !white(path.stroke_color());
        if !visible_fill && !visible_stroke {
            return;
        }
        let Some(r) = path_bounds(path) else { return };
        let Some(bbox) = self.to_page(m, r, clip) else { return };
        let (w, h) = (bbox.width(), bbox.height());
        if w.max(h) < MIN_RULE {
            return;
        }
        if w <= THIN || h <= THIN {
            self.out.rules.push(bbox);
            return;
        }
        let n = path.segments().len();
        if n == 0 || n > MAX_SEGMENTS {
            self.out.art.push(bbox);
            return;
        }
        let inner = path.matrix().map(|x| affine(&x)).unwrap_or(Affine::IDENTITY);
        let full = if inner.is_identity() { *m } else { m.then_after(&inner) };
        let half = if visible_stroke {
            0.5 * path.stroke_width().map(|w| w.value).unwrap_or(1.0).max(0.1)
        } else {
            0.25
        };
        let mut pts: Vec<(f32, f32)> = Vec::new();
        let mut curved = false;
        let segs = path.segments();
        for seg in segs.iter() {
            let (x, y) = seg.point();
            let (ux, uy) = full.apply(x.value, y.value);
            let p = self.frame.point(ux, uy);
            match seg.segment_type() {
                PdfPathSegmentType::MoveTo => {
                    self.subpath(&pts, curved, half, clip);
                    pts.clear();
                    curved = false;
                    pts.push(p);
                }
                PdfPathSegmentType::LineTo => pts.push(p),
                PdfPathSegmentType::BezierTo => {
                    curved = true;
                    pts.push(p);
                }
                PdfPathSegmentType::Unknown => {}
            }
            if seg.is_close() {
                if let Some(&first) = pts.first() {
                    pts.push(first);
                }
            }
        }
        self.subpath(&pts, curved, half, clip);
    }

    /// One subpath's points, in page coordinates.
    fn subpath(&mut self, pts: &[(f32, f32)], curved: bool, half: f32, clip: Option<BBox>) {
        if pts.len() < 2 {
            return;
        }
        let bbox =
            pts.iter().fold(BBox::new(f32::MAX, f32::MAX, f32::MIN, f32::MIN), |b, &(x, y)| {
                BBox::new(b.x0.min(x), b.y0.min(y), b.x1.max(x), b.y1.max(y))
            });
        if curved {
            self.out.art.push(bbox);
            return;
        }
        // A filled-only subpath counts by its outline: a rectangle's four edges, a bar as a
        // rule. Stroked subpaths give each straight segment.
        let mut slanted = false;
        let mut rules = Vec::new();
        for w in pts.windows(2) {
            let ((ax, ay), (bx, by)) = (w[0], w[1]);
            let (dx, dy) = ((bx - ax).abs(), (by - ay).abs());
            let r = if dy < SLANT && dx >= MIN_RULE {
                let y = 0.5 * (ay + by);
                BBox::new(ax.min(bx), y - half, ax.max(bx), y + half)
            } else if dx < SLANT && dy >= MIN_RULE {
                let x = 0.5 * (ax + bx);
                BBox::new(x - half, ay.min(by), x + half, ay.max(by))
            } else {
                if dx >= SLANT && dy >= SLANT {
                    slanted = true;
                }
                continue;
            };
            rules.push(r);
        }
        if slanted {
            self.out.art.push(bbox);
            return;
        }
        for r in rules {
            let r = match clip {
                Some(c) => {
                    let r =
                        BBox::new(r.x0.max(c.x0), r.y0.max(c.y0), r.x1.min(c.x1), r.y1.min(c.y1));
                    if r.x1 < r.x0 || r.y1 < r.y0 || r.width().max(r.height()) < MIN_RULE {
                        continue;
                    }
                    r
                }
                None => r,
            };
            self.out.rules.push(r);
        }
    }
}

fn intersect(a: BBox, b: Option<BBox>) -> BBox {
    match b {
        Some(b) => BBox::new(a.x0.max(b.x0), a.y0.max(b.y0), a.x1.min(b.x1), a.y1.min(b.y1)),
        None => a,
    }
}

fn affine(m: &pdfium_render::prelude::PdfMatrix) -> Affine {
    Affine([m.a(), m.b(), m.c(), m.d(), m.e(), m.f()])
}

fn rect_tuple(r: &PdfRect) -> (f32, f32, f32, f32) {
    (r.left().value, r.bottom().value, r.right().value, r.top().value)
}

/// An object's box in its parent's user space (its own matrix applied).
fn bounds(obj: &PdfPageObject<'_>) -> Option<(f32, f32, f32, f32)> {
    obj.bounds().ok().map(|q| rect_tuple(&q.to_rect()))
}

fn path_bounds(path: &PdfPagePathObject<'_>) -> Option<(f32, f32, f32, f32)> {
    path.bounds().ok().map(|q| rect_tuple(&q.to_rect()))
}
