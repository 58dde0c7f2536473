//! Page images: a PDF page rendered to 8-bit BGR pixels ([`render`]) for the `layout`
//! provider's models, the images sent to vision-language endpoints and the HTML report's page
//! pictures; and the few image operations the models need: OpenCV-compatible bilinear
//! resizing (so our inputs equal the Python packages' `cv2.resize` inputs), crops, and the
//! normalised planar tensors the networks read.

use pdfium_render::prelude::{PdfBitmapFormat, PdfPage, PdfRenderConfig};

use super::pdfium as pdf;

/// An 8-bit image, 3 channels interleaved in BGR order (what pdfium renders and OpenCV uses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bgr {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `height * width * 3` bytes, row-major, B, G, R.
    pub data: Vec<u8>,
}

/// Fixed-point precision of OpenCV's 8-bit bilinear resize (`INTER_RESIZE_COEF_BITS`).
const COEF_BITS: u32 = 11;
const COEF_SCALE: f32 = (1 << COEF_BITS) as f32;

impl Bgr {
    /// Wraps interleaved BGR bytes; panics if the length does not match (a programming error).
    pub fn new(width: usize, height: usize, data: Vec<u8>) -> Bgr {
        assert_eq!(data.len(), width * height * 3, "BGR buffer size");
        Bgr { width, height, data }
    }

    /// Converts interleaved 4-channel BGRA (pdfium's bitmap format) with `stride` bytes per row.
    pub(crate) fn from_bgra(width: usize, height: usize, stride: usize, bgra: &[u8]) -> Bgr {
        // Written in place, row by row (no growth checks per pixel: a page at 300 dpi is
        // 8.7 million pixels).
        let mut data = vec![0u8; width * height * 3];
        if width > 0 {
            for (y, out) in data.chunks_exact_mut(width * 3).enumerate() {
                let row = &bgra[y * stride..y * stride + width * 4];
                for (o, px) in out.chunks_exact_mut(3).zip(row.chunks_exact(4)) {
                    o[0] = px[0];
                    o[1] = px[1];
                    o[2] = px[2];
                }
            }
        }
        Bgr { width, height, data }
    }

    /// Converts interleaved RGB (PNG order).
    pub fn from_rgb(width: usize, height: usize, rgb: &[u8]) -> Bgr {
        let mut data = Vec::with_capacity(width * height * 3);
        for px in rgb.chunks_exact(3) {
            data.extend_from_slice(&[px[2], px[1], px[0]]);
        }
        Bgr::new(width, height, data)
    }

    /// Returns the sub-image `[x0, x1) x [y0, y1)`, clamped to the image.
    pub fn crop(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> Bgr {
        let (x1, y1) = (x1.min(self.width), y1.min(self.height));
        let (x0, y0) = (x0.min(x1), y0.min(y1));
        let w = x1 - x0;
        let mut data = Vec::with_capacity(w * (y1 - y0) * 3);
        for y in y0..y1 {
            let start = (y * self.width + x0) * 3;
            data.extend_from_slice(&self.data[start..start + w * 3]);
        }
        Bgr { width: w, height: y1 - y0, data }
    }

    /// Returns the image turned a quarter turn counter-clockwise (numpy's `rot90`).
    pub(crate) fn rot90(&self) -> Bgr {
        let (w, h) = (self.width, self.height);
        let mut data = vec![0u8; w * h * 3];
        // out(y', x') with out width h, height w: out[y'][x'] = in[x'][w - 1 - y'].
        for yo in 0..w {
            for xo in 0..h {
                let src = (xo * w + (w - 1 - yo)) * 3;
                let dst = (yo * h + xo) * 3;
                data[dst..dst + 3].copy_from_slice(&self.data[src..src + 3]);
            }
        }
        Bgr { width: h, height: w, data }
    }

    /// Resizes to `width x height` exactly as OpenCV's `cv2.resize(..., INTER_LINEAR)` does
    /// for 8-bit images: half-pixel centres, edge clamping, 11-bit fixed-point weights.
    pub(crate) fn resize(&self, width: usize, height: usize) -> Bgr {
        if width == self.width && height == self.height {
            return self.clone();
        }
        let xs = taps(self.width, width);
        let ys = taps(self.height, height);
        let mut out = vec![0u8; width * height * 3];
        // Horizontally resampled rows, cached for the two source rows in use.
        let mut rows: [(usize, Vec<i32>); 2] =
            [(usize::MAX, vec![0; width * 3]), (usize::MAX, vec![0; width * 3])];
        for (y, &(sy, b0, b1)) in ys.iter().enumerate() {
            let sy1 = (sy + 1).min(self.height - 1);
            if rows[0].0 != sy {
                if rows[1].0 == sy {
                    rows.swap(0, 1);
                } else {
                    self.hresize(sy, &xs, &mut rows[0].1);
                    rows[0].0 = sy;
                }
            }
            if rows[1].0 != sy1 {
                if sy1 == sy {
                    let (a, b) = rows.split_at_mut(1);
                    b[0].1.copy_from_slice(&a[0].1);
                } else {
                    self.hresize(sy1, &xs, &mut rows[1].1);
                }
                rows[1].0 = sy1;
            }
            let (r0, r1) = (&rows[0].1, &rows[1].1);
            let dst = &mut out[y * width * 3..(y + 1) * width * 3];
            for i in 0..width * 3 {
                // OpenCV's VResizeLinear<uchar> with FixedPtCast: ((b0*(s0>>4))>>16) + ... .
                let v = (((b0 * (r0[i] >> 4)) >> 16) + ((b1 * (r1[i] >> 4)) >> 16) + 2) >> 2;
                dst[i] = v.clamp(0, 255) as u8;
            }
        }
        Bgr { width, height, data: out }
    }

    fn hresize(&self, row: usize, xs: &[(usize, i32, i32)], out: &mut [i32]) {
        let src = &self.data[row * self.width * 3..(row + 1) * self.width * 3];
        let last = self.width - 1;
        for (x, &(sx, a0, a1)) in xs.iter().enumerate() {
            let sx1 = (sx + 1).min(last);
            for c in 0..3 {
                out[x * 3 + c] = i32::from(src[sx * 3 + c]) * a0 + i32::from(src[sx1 * 3 + c]) * a1;
            }
        }
    }

    /// Writes the image as planar, normalised f32 (`(x / 255 - mean) / std` per channel, in
    /// the image's BGR order, or RGB when `rgb`) into `out`, which is `3 x out_h x out_w` and
    /// keeps its contents (zero padding) outside the image.
    pub(crate) fn write_planar(
        &self,
        mean: [f32; 3],
        std: [f32; 3],
        rgb: bool,
        out: &mut [f32],
        out_w: usize,
        out_h: usize,
    ) {
        let plane = out_w * out_h;
        for c in 0..3 {
            let src_c = if rgb { 2 - c } else { c };
            let (m, s) = (mean[c], std[c]);
            for y in 0..self.height.min(out_h) {
                let row = &self.data[y * self.width * 3..];
                let dst =
                    &mut out[c * plane + y * out_w..c * plane + y * out_w + self.width.min(out_w)];
                for (x, d) in dst.iter_mut().enumerate() {
                    *d = (f32::from(row[x * 3 + src_c]) * (1.0 / 255.0) - m) / s;
                }
            }
        }
    }
}

/// OpenCV's linear taps for one axis: (source index, weight of it, weight of the next), the
/// weights in 11-bit fixed point. As `cv::resize` computes them: the position in f32, each
/// weight rounded on its own (they need not sum to 2048).
fn taps(src: usize, dst: usize) -> Vec<(usize, i32, i32)> {
    let scale = 1.0 / (dst as f64 / src as f64);
    (0..dst)
        .map(|d| {
            let f = ((d as f64 + 0.5) * scale - 0.5) as f32;
            let mut s = f.floor() as i64;
            let mut frac = f - s as f32;
            if s < 0 {
                s = 0;
                frac = 0.0;
            }
            if s >= src as i64 - 1 {
                s = src as i64 - 1;
                frac = 0.0;
            }
            let a0 = ((1.0 - frac) * COEF_SCALE).round_ties_even() as i32;
            let a1 = (frac * COEF_SCALE).round_ties_even() as i32;
            (s as usize, a0, a1)
        })
        .collect()
}

/// Renders a page to BGR at `scale` pixels per point.
pub fn render(page: &PdfPage<'_>, scale: f32) -> std::result::Result<Bgr, String> {
    let cfg = PdfRenderConfig::new().scale_page_by_factor(scale).set_format(PdfBitmapFormat::BGRA);
    let bmp = page
        .render_with_config(&cfg)
        .map_err(|e| format!("rendering failed: {}", pdf::describe(&e)))?;
    let (w, h) = (bmp.width() as usize, bmp.height() as usize);
    let raw = bmp.as_raw_bytes();
    if w == 0 || h == 0 || raw.len() < w * h * 4 {
        return Err(format!("rendering gave a {w}x{h} bitmap of {} bytes", raw.len()));
    }
    Ok(Bgr::from_bgra(w, h, raw.len() / h, &raw))
}

/// Encodes an image as an 8-bit RGB PNG (the page images `corpus truth draft` writes).
pub fn png(img: &Bgr) -> std::result::Result<Vec<u8>, String> {
    let rgb: Vec<u8> = img.data.chunks_exact(3).flat_map(|p| [p[2], p[1], p[0]]).collect();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, img.width as u32, img.height as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| format!("PNG encoding: {e}"))?;
    w.write_image_data(&rgb).map_err(|e| format!("PNG encoding: {e}"))?;
    w.finish().map_err(|e| format!("PNG encoding: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gray(w: usize, h: usize, f: impl Fn(usize, usize) -> u8) -> Bgr {
        let mut d = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let v = f(x, y);
                d.extend_from_slice(&[v, v, v]);
            }
        }
        Bgr::new(w, h, d)
    }

    #[test]
    fn resize_matches_hand_computed_opencv_values() {
        // 2x1 -> 4x1: cv2.resize(np.array([[0, 100]], np.uint8), (4, 1)) == [0, 25, 75, 100].
        let img = gray(2, 1, |x, _| if x == 0 { 0 } else { 100 });
        let r = img.resize(4, 1);
        let px: Vec<u8> = r.data.chunks(3).map(|p| p[0]).collect();
        assert_eq!(px, vec![0, 25, 75, 100]);
        // Halving averages pairs: [10, 30, 50, 70] -> [20, 60].
        let img = gray(4, 1, |x, _| [10, 30, 50, 70][x]);
        let px: Vec<u8> = img.resize(2, 1).data.chunks(3).map(|p| p[0]).collect();
        assert_eq!(px, vec![20, 60]);
        // The same size is the identity.
        assert_eq!(img.resize(4, 1), img);
    }

    #[test]
    fn crop_rotate_and_planar_layout() {
        let img = gray(3, 2, |x, y| (y * 3 + x) as u8);
        let c = img.crop(1, 0, 3, 2);
        assert_eq!(c.width, 2);
        assert_eq!(c.data.chunks(3).map(|p| p[0]).collect::<Vec<_>>(), vec![1, 2, 4, 5]);
        let r = img.rot90();
        assert_eq!((r.width, r.height), (2, 3));
        // numpy.rot90([[0,1,2],[3,4,5]]) == [[2,5],[1,4],[0,3]].
        assert_eq!(r.data.chunks(3).map(|p| p[0]).collect::<Vec<_>>(), vec![2, 5, 1, 4, 0, 3]);
        let mut out = vec![9.0; 3 * 2 * 4];
        img.crop(0, 0, 1, 1).write_planar([0.0; 3], [1.0; 3], false, &mut out, 4, 2);
        assert_eq!(out[0], 0.0);
        assert_eq!(out[1], 9.0, "padding is left alone");
    }
}
