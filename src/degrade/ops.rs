//! The image operations the degradation profiles are made of (`docs/degrade.md`): pure
//! functions of an 8-bit image and their parameters (and, for noise, a seeded generator), so
//! that the same parameters and seed give the same bytes on every machine.

use super::geometry::Homography;
use crate::metrics::stats::Rng;

/// An 8-bit image: 1 channel (grey) or 3 (B, G, R), row-major, interleaved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Img {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// Channels: 1 or 3.
    pub channels: usize,
    /// `height * width * channels` bytes.
    pub data: Vec<u8>,
}

impl Img {
    /// A BGR image as it is, or turned to grey (ITU-R BT.601 luma, rounded).
    pub fn from_bgr(width: usize, height: usize, bgr: Vec<u8>, grey: bool) -> Img {
        if !grey {
            return Img { width, height, channels: 3, data: bgr };
        }
        let data = bgr
            .chunks_exact(3)
            .map(|p| {
                let y = 114 * u32::from(p[0]) + 587 * u32::from(p[1]) + 299 * u32::from(p[2]);
                ((y + 500) / 1000) as u8
            })
            .collect();
        Img { width, height, channels: 1, data }
    }
}

/// Warps `src` by the homography `h` (in `src`'s pixels: a destination pixel's centre is
/// looked up at `h⁻¹` of it, bilinearly); what falls outside the source is `fill`.
pub fn warp(src: &Img, h: &Homography, fill: u8) -> Img {
    let Some(inv) = h.inverse() else { return src.clone() };
    let (w, hgt, ch) = (src.width, src.height, src.channels);
    let mut out = vec![fill; w * hgt * ch];
    let m = inv.0;
    for y in 0..hgt {
        let yc = y as f64 + 0.5;
        for x in 0..w {
            let xc = x as f64 + 0.5;
            let d = m[6] * xc + m[7] * yc + m[8];
            let sx = (m[0] * xc + m[1] * yc + m[2]) / d - 0.5;
            let sy = (m[3] * xc + m[4] * yc + m[5]) / d - 0.5;
            if !(sx > -1.0 && sy > -1.0 && sx < w as f64 && sy < hgt as f64) {
                continue;
            }
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = (sx - x0, sy - y0);
            let (x0, y0) = (x0 as isize, y0 as isize);
            let o = (y * w + x) * ch;
            if x0 >= 0 && y0 >= 0 && x0 + 1 < w as isize && y0 + 1 < hgt as isize {
                // All four neighbours inside: straight indexing.
                let i = (y0 as usize * w + x0 as usize) * ch;
                let j = i + w * ch;
                for c in 0..ch {
                    let d = &src.data;
                    let top = f64::from(d[i + c]) * (1.0 - fx) + f64::from(d[i + ch + c]) * fx;
                    let bottom = f64::from(d[j + c]) * (1.0 - fx) + f64::from(d[j + ch + c]) * fx;
                    out[o + c] = (top * (1.0 - fy) + bottom * fy).round().clamp(0.0, 255.0) as u8;
                }
                continue;
            }
            let at = |xx: isize, yy: isize, c: usize| -> f64 {
                if xx < 0 || yy < 0 || xx >= w as isize || yy >= hgt as isize {
                    f64::from(fill)
                } else {
                    f64::from(src.data[(yy as usize * w + xx as usize) * ch + c])
                }
            };
            for c in 0..ch {
                let top = at(x0, y0, c) * (1.0 - fx) + at(x0 + 1, y0, c) * fx;
                let bottom = at(x0, y0 + 1, c) * (1.0 - fx) + at(x0 + 1, y0 + 1, c) * fx;
                let v = top * (1.0 - fy) + bottom * fy;
                out[o + c] = v.round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    Img { width: w, height: hgt, channels: ch, data: out }
}

/// A Gaussian blur of standard deviation `sigma` pixels (separable, kernel radius ⌈3σ⌉, edges
/// repeated); `sigma` ≤ 0 leaves the image as it is.
pub fn blur(src: &Img, sigma: f64) -> Img {
    if sigma <= 0.0 {
        return src.clone();
    }
    let r = (3.0 * sigma).ceil() as isize;
    let k: Vec<f64> = (-r..=r).map(|i| (-((i * i) as f64) / (2.0 * sigma * sigma)).exp()).collect();
    let sum: f64 = k.iter().sum();
    // Fixed-point weights (16 bits), so the result does not depend on float summation order.
    let k: Vec<u32> = k.iter().map(|v| (v / sum * 65536.0).round() as u32).collect();
    let (w, h, ch) = (src.width, src.height, src.channels);
    let r = r as usize;
    let row = w * ch;
    // Rows of u32 sums: each tap adds one shifted row (edges repeated), a loop the compiler
    // vectorises; the same weights and rounding as a tap-by-tap sum per pixel.
    let round = |acc: &[u32], out: &mut [u8]| {
        for (o, a) in out.iter_mut().zip(acc) {
            *o = ((a + 32768) >> 16).min(255) as u8;
        }
    };
    let mut horizontal = vec![0u8; src.data.len()];
    let mut padded = vec![0u8; (w + 2 * r) * ch];
    let mut acc = vec![0u32; row];
    for y in 0..h {
        let line = &src.data[y * row..(y + 1) * row];
        for x in 0..w + 2 * r {
            let sx = x.saturating_sub(r).min(w - 1);
            padded[x * ch..(x + 1) * ch].copy_from_slice(&line[sx * ch..(sx + 1) * ch]);
        }
        acc.iter_mut().for_each(|a| *a = 0);
        for (j, &kw) in k.iter().enumerate() {
            for (a, &v) in acc.iter_mut().zip(&padded[j * ch..j * ch + row]) {
                *a += kw * u32::from(v);
            }
        }
        round(&acc, &mut horizontal[y * row..(y + 1) * row]);
    }
    let mut data = vec![0u8; src.data.len()];
    for y in 0..h {
        acc.iter_mut().for_each(|a| *a = 0);
        for (j, &kw) in k.iter().enumerate() {
            let sy = (y + j).saturating_sub(r).min(h - 1);
            for (a, &v) in acc.iter_mut().zip(&horizontal[sy * row..(sy + 1) * row]) {
                *a += kw * u32::from(v);
            }
        }
        round(&acc, &mut data[y * row..(y + 1) * row]);
    }
    Img { data, ..src.clone() }
}

/// A draw of mean 0 and variance 1, close to a standard normal: the sum of four uniform
/// 16-bit draws taken from one 64-bit draw (Irwin–Hall), centred and scaled. Tails end at
/// ±√12 ≈ 3.46 standard deviations, which grey levels clamped to 0..255 do not miss; one draw
/// of the generator per sample keeps a 300 dpi page's noise cheap.
pub fn normal(rng: &mut Rng) -> f64 {
    let r = rng.next_u64();
    let sum = (r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48);
    // Each 16-bit draw is uniform on 0..65536: mean 32767.5, variance (65536² − 1) / 12.
    const MEAN: f64 = 4.0 * 32767.5;
    const SD: f64 = 37_837.227_237_206_48; // sqrt(4 (65536² − 1) / 12)
    (sum as f64 - MEAN) / SD
}

/// Adds noise of standard deviation `sigma` grey levels ([`normal`]) to every sample, drawn
/// in pixel order from `rng`.
pub fn noise(src: &mut Img, sigma: f64, rng: &mut Rng) {
    if sigma <= 0.0 {
        return;
    }
    for v in &mut src.data {
        *v = (f64::from(*v) + sigma * normal(rng)).round().clamp(0.0, 255.0) as u8;
    }
}

/// Multiplies the image by a linear light gradient: `from` at the side the direction
/// `angle_degrees` points away from, `to` at the side it points to.
pub fn illumination(src: &mut Img, from: f64, to: f64, angle_degrees: f64) {
    let (s, c) = angle_degrees.to_radians().sin_cos();
    let (w, h, ch) = (src.width as f64, src.height as f64, src.channels);
    // The projection of the corners on the direction: the gradient spans the whole page.
    let proj = |x: f64, y: f64| x * c + y * s;
    let ends = [proj(0.0, 0.0), proj(w, 0.0), proj(0.0, h), proj(w, h)];
    let lo = ends.iter().copied().fold(f64::MAX, f64::min);
    let hi = ends.iter().copied().fold(f64::MIN, f64::max);
    let span = (hi - lo).max(1.0);
    for y in 0..src.height {
        for x in 0..src.width {
            let t = (proj(x as f64 + 0.5, y as f64 + 0.5) - lo) / span;
            let f = from + (to - from) * t;
            for k in 0..ch {
                let i = (y * src.width + x) * ch + k;
                src.data[i] = (f64::from(src.data[i]) * f).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
}

/// Turns the image to black and white (one channel, 0 or 255): a pixel is black where its grey
/// is below the threshold, `base` plus `amplitude` × a smooth field over the page (a product of
/// two sines of `period` pixels, phases `phase`) that makes the threshold uneven as a scanner's
/// lamp and paper make it; `amplitude` 0 is a plain global threshold.
pub fn threshold(src: &Img, base: f64, amplitude: f64, period: f64, phase: (f64, f64)) -> Img {
    let grey = if src.channels == 1 {
        src.clone()
    } else {
        Img::from_bgr(src.width, src.height, src.data.clone(), true)
    };
    let tau = std::f64::consts::TAU;
    let mut data = vec![0u8; grey.width * grey.height];
    let fx: Vec<f64> = (0..grey.width).map(|x| (tau * x as f64 / period + phase.0).sin()).collect();
    for y in 0..grey.height {
        let fy = (tau * y as f64 / period + phase.1).cos();
        for (x, fx) in fx.iter().enumerate() {
            let t = base + amplitude * fx * fy;
            let i = y * grey.width + x;
            data[i] = if f64::from(grey.data[i]) < t { 0 } else { 255 };
        }
    }
    Img { width: grey.width, height: grey.height, channels: 1, data }
}

/// Ink that bled: every pixel takes the darkest value within `radius` pixels (a square
/// window), so strokes thicken by `radius` on each side.
pub fn bleed(src: &Img, radius: usize) -> Img {
    if radius == 0 {
        return src.clone();
    }
    let (w, h, ch) = (src.width, src.height, src.channels);
    // Separable: the minimum over a square is the minimum of row minima.
    let pass = |data: &[u8], horizontal: bool| -> Vec<u8> {
        let mut out = vec![0u8; data.len()];
        for y in 0..h {
            for x in 0..w {
                for c in 0..ch {
                    let (a, b) = if horizontal {
                        (x.saturating_sub(radius), (x + radius).min(w - 1))
                    } else {
                        (y.saturating_sub(radius), (y + radius).min(h - 1))
                    };
                    let m = (a..=b)
                        .map(|t| {
                            if horizontal {
                                data[(y * w + t) * ch + c]
                            } else {
                                data[(t * w + x) * ch + c]
                            }
                        })
                        .min()
                        .unwrap_or(255);
                    out[(y * w + x) * ch + c] = m;
                }
            }
        }
        out
    };
    let horizontal = pass(&src.data, true);
    Img { data: pass(&horizontal, false), ..src.clone() }
}

/// Faded ink: every sample moves `amount` (0..1) of the way to white.
pub fn fade(src: &mut Img, amount: f64) {
    for v in &mut src.data {
        let d = 255.0 - f64::from(*v);
        *v = (255.0 - d * (1.0 - amount)).round().clamp(0.0, 255.0) as u8;
    }
}

/// Keeps every `factor`-th row's worth of resolution: the image is averaged down `factor`
/// times vertically (a fax's 100 lines per inch from a 200 dpi page).
pub fn halve_rows(src: &Img, factor: usize) -> Img {
    if factor <= 1 {
        return src.clone();
    }
    let (w, ch) = (src.width, src.channels);
    let h = src.height.div_ceil(factor);
    let mut data = vec![0u8; w * h * ch];
    for y in 0..h {
        let rows: Vec<usize> = (y * factor..((y + 1) * factor).min(src.height)).collect();
        for x in 0..w * ch {
            let s: u32 = rows.iter().map(|&r| u32::from(src.data[r * w * ch + x])).sum();
            data[y * w * ch + x] = ((s + rows.len() as u32 / 2) / rows.len() as u32) as u8;
        }
    }
    Img { width: w, height: h, channels: ch, data }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grey(w: usize, h: usize, f: impl Fn(usize, usize) -> u8) -> Img {
        let mut data = Vec::new();
        for y in 0..h {
            for x in 0..w {
                data.push(f(x, y));
            }
        }
        Img { width: w, height: h, channels: 1, data }
    }

    #[test]
    fn the_identity_warp_and_a_half_turn_by_hand() {
        let img = grey(4, 3, |x, y| (10 * x + 50 * y) as u8);
        assert_eq!(warp(&img, &Homography::IDENTITY, 255), img);
        // A half turn about the centre (2, 1.5) maps pixel (x, y) to (3 - x, 2 - y).
        let turned = warp(&img, &Homography::rotation(180.0, 2.0, 1.5), 255);
        for y in 0..3 {
            for x in 0..4 {
                assert_eq!(turned.data[y * 4 + x], img.data[(2 - y) * 4 + (3 - x)]);
            }
        }
        // Moved off the image: the fill.
        let shifted = Homography([1.0, 0.0, 10.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        assert!(warp(&img, &shifted, 7).data.iter().all(|&v| v == 7));
    }

    #[test]
    fn blur_keeps_flat_regions_and_spreads_a_dot_symmetrically() {
        let flat = grey(9, 9, |_, _| 200);
        assert_eq!(blur(&flat, 1.5), flat);
        let dot = grey(9, 9, |x, y| if (x, y) == (4, 4) { 0 } else { 255 });
        let b = blur(&dot, 1.0);
        assert!(b.data[4 * 9 + 4] > 0 && b.data[4 * 9 + 4] < 255);
        assert_eq!(b.data[4 * 9 + 3], b.data[4 * 9 + 5]);
        assert_eq!(b.data[3 * 9 + 4], b.data[5 * 9 + 4]);
        assert_eq!(blur(&dot, 0.0), dot);
    }

    #[test]
    fn noise_is_the_seeds_and_gradients_thresholds_bleed_and_fade_by_hand() {
        let page = grey(16, 16, |_, _| 128);
        let (mut a, mut b) = (page.clone(), page.clone());
        noise(&mut a, 10.0, &mut Rng::new(3));
        noise(&mut b, 10.0, &mut Rng::new(3));
        assert_eq!(a, b);
        assert_ne!(a, page);
        let mean = a.data.iter().map(|&v| f64::from(v)).sum::<f64>() / 256.0;
        assert!((mean - 128.0).abs() < 3.0, "{mean}");

        // Angle 0: from 1.0 at the left edge to 0.5 at the right; a pixel's centre decides.
        let mut g = grey(4, 1, |_, _| 200);
        illumination(&mut g, 1.0, 0.5, 0.0);
        // Centres at 0.5, 1.5, 2.5, 3.5 of 4: factors 0.9375, 0.8125, 0.6875, 0.5625.
        assert_eq!(g.data, vec![188, 163, 138, 113]);

        let ramp = grey(4, 1, |x, _| (x * 80) as u8);
        assert_eq!(threshold(&ramp, 100.0, 0.0, 10.0, (0.0, 0.0)).data, vec![0, 0, 255, 255]);

        let dot = grey(5, 5, |x, y| if (x, y) == (2, 2) { 0 } else { 255 });
        let bled = bleed(&dot, 1);
        let black: usize = bled.data.iter().filter(|&&v| v == 0).count();
        assert_eq!(black, 9);

        let mut ink = grey(2, 1, |x, _| if x == 0 { 0 } else { 255 });
        fade(&mut ink, 0.5);
        assert_eq!(ink.data, vec![128, 255]);

        let tall = grey(1, 4, |_, y| [0, 100, 200, 255][y]);
        assert_eq!(halve_rows(&tall, 2).data, vec![50, 228]);
    }
}
