//! Page images as the models are shown them: the size a preset asks for (DPI, longest side,
//! an exact size, Qwen2-VL's `smart_resize`), rendered by pdfium at that size, encoded as a
//! PNG data URL; and page images stored as the document (OmniDocBench's PNG and JPEG pages).
//! Rules: `docs/endpoints.md` §Pages and images.

use base64::Engine as _;
use pdfium_render::prelude::PdfRenderConfig;

use crate::doc::Page;
use crate::providers::preset::{ImageSpec, Resize};
use crate::providers::raster::Bgr;

/// Qwen2-VL's `smart_resize`: the image size closest to `height` × `width` whose sides are
/// multiples of `factor` and whose area lies in `[min_pixels, max_pixels]` (Python's
/// `round`, half to even, as the model's image processor rounds).
pub fn smart_resize(
    height: u32,
    width: u32,
    factor: u32,
    min_pixels: u64,
    max_pixels: u64,
) -> (u32, u32) {
    let f = factor.max(1) as f64;
    let (h, w) = (height.max(1) as f64, width.max(1) as f64);
    let round_even = round_half_even;
    let mut hb = f.max(round_even(h / f) * f);
    let mut wb = f.max(round_even(w / f) * f);
    if hb * wb > max_pixels as f64 {
        let beta = (h * w / max_pixels as f64).sqrt();
        hb = f.max((h / beta / f).floor() * f);
        wb = f.max((w / beta / f).floor() * f);
    } else if hb * wb < min_pixels as f64 {
        let beta = (min_pixels as f64 / (h * w)).sqrt();
        hb = (h * beta / f).ceil() * f;
        wb = (w * beta / f).ceil() * f;
    }
    (hb as u32, wb as u32)
}

/// Chandra's `scale_to_fit` (`chandra/model/util.py`, PyPI chandra-ocr 0.2.0): the scale
/// that brings the area into `[min_pixels, max_pixels]` (1 when it is inside), each side
/// rounded (half to even) to whole `grid` cells, then, while the area is still above
/// `max_pixels`, one cell taken off the side whose loss keeps the aspect ratio closer. Returns
/// (width, height).
pub fn scale_to_fit(
    width: u32,
    height: u32,
    grid: u32,
    min_pixels: u64,
    max_pixels: u64,
) -> (u32, u32) {
    if width == 0 || height == 0 {
        return (width, height);
    }
    let (w, h, g) = (width as f64, height as f64, grid.max(1) as f64);
    let px = w * h;
    let scale = if px > max_pixels as f64 {
        (max_pixels as f64 / px).sqrt()
    } else if px < min_pixels as f64 {
        (min_pixels as f64 / px).sqrt()
    } else {
        1.0
    };
    let mut wb = (round_half_even(w * scale / g) as u64).max(1);
    let mut hb = (round_half_even(h * scale / g) as u64).max(1);
    let ar = w / h;
    let cell = u64::from(grid.max(1)).pow(2);
    while wb * hb * cell > max_pixels {
        match (wb, hb) {
            (1, 1) => break,
            (1, _) => hb -= 1,
            (_, 1) => wb -= 1,
            _ => {
                let w_loss = ((wb - 1) as f64 / hb as f64 - ar).abs();
                let h_loss = (wb as f64 / (hb - 1) as f64 - ar).abs();
                if w_loss < h_loss {
                    wb -= 1
                } else {
                    hb -= 1
                }
            }
        }
    }
    ((wb * u64::from(grid)) as u32, (hb * u64::from(grid)) as u32)
}

/// Python's `round`: half to even.
fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - 1.0
    } else {
        r
    }
}

/// The pixel size a page of `page` points is shown at under `spec`: rendered at `dpi` (raised
/// where the shorter side would fall under `min_short_side`) or to `longest_side`, then fitted
/// to the `factor` grid by the spec's rule (`smart_resize` unless it says `scale-to-fit`).
pub fn image_size(spec: &ImageSpec, page: Page) -> (u32, u32) {
    if let Some([w, h]) = spec.size {
        return (w.max(1), h.max(1));
    }
    let (w, h) = (page.width.max(1.0), page.height.max(1.0));
    let mut scale = match (spec.dpi, spec.longest_side) {
        (Some(dpi), _) => dpi / 72.0,
        (None, Some(px)) => px as f32 / w.max(h),
        (None, None) => 2.0,
    };
    if let Some(short) = spec.min_short_side {
        // Chandra's load_pdf_images: max(IMAGE_DPI, MIN_PDF_IMAGE_DIM / shorter side * 72).
        scale = scale.max(short as f32 / w.min(h));
    }
    let (pw, ph) = (((w * scale).round() as u32).max(1), ((h * scale).round() as u32).max(1));
    let (min_px, max_px) =
        (spec.min_pixels.unwrap_or(56 * 56), spec.max_pixels.unwrap_or(28 * 28 * 1280));
    match (spec.factor, spec.resize.unwrap_or(Resize::SmartResize)) {
        (Some(f), Resize::SmartResize) => {
            let (hb, wb) = smart_resize(ph, pw, f, min_px, max_px);
            (wb, hb)
        }
        (Some(f), Resize::ScaleToFit) => scale_to_fit(pw, ph, f, min_px, max_px),
        (None, _) => (pw, ph),
    }
}

/// Renders a page at exactly `width` × `height` pixels.
pub(super) fn render_sized(
    page: &pdfium_render::prelude::PdfPage<'_>,
    width: u32,
    height: u32,
) -> Result<Bgr, String> {
    let cfg = PdfRenderConfig::new()
        .set_fixed_size(width as i32, height as i32)
        .set_format(pdfium_render::prelude::PdfBitmapFormat::BGRA);
    let bmp = page.render_with_config(&cfg).map_err(|e| format!("rendering failed: {e}"))?;
    let (w, h) = (bmp.width() as usize, bmp.height() as usize);
    let raw = bmp.as_raw_bytes();
    if w == 0 || h == 0 || raw.len() < w * h * 4 {
        return Err(format!("rendering gave a {w}x{h} bitmap of {} bytes", raw.len()));
    }
    Ok(Bgr::from_bgra(w, h, raw.len() / h, &raw))
}

/// The media type and pixel size of a page image stored as a document (PNG, JPEG), or
/// `None` for anything else (a PDF).
pub fn image_header(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let be16 = |i: usize| Some(u16::from_be_bytes(bytes.get(i..i + 2)?.try_into().ok()?) as u32);
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        let be32 = |i: usize| Some(u32::from_be_bytes(bytes.get(i..i + 4)?.try_into().ok()?));
        return Some(("image/png", be32(16)?, be32(20)?));
    }
    if !bytes.starts_with(&[0xff, 0xd8]) {
        return None;
    }
    // JPEG: walk the markers to the first start-of-frame, which holds the size.
    let mut i = 2;
    while i + 9 < bytes.len() {
        if bytes[i] != 0xff {
            return None;
        }
        let m = bytes[i + 1];
        if m == 0xff {
            i += 1;
            continue;
        }
        let len = be16(i + 2)? as usize;
        if (0xc0..=0xcf).contains(&m) && !matches!(m, 0xc4 | 0xc8 | 0xcc) {
            return Some(("image/jpeg", be16(i + 7)?, be16(i + 5)?));
        }
        i += 2 + len;
    }
    None
}

/// Decodes a PNG page image (8-bit gray, RGB or RGBA).
pub(crate) fn decode_png(bytes: &[u8]) -> Result<Bgr, String> {
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| format!("PNG: {e}"))?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("PNG: too large")?];
    let info = reader.next_frame(&mut buf).map_err(|e| format!("PNG: {e}"))?;
    let (w, h) = (info.width as usize, info.height as usize);
    let px = &buf[..info.buffer_size()];
    let ch = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err("PNG: indexed colours left after expansion".into()),
    };
    let rgb: Vec<u8> = px
        .chunks_exact(ch)
        .flat_map(|p| if ch < 3 { [p[0], p[0], p[0]] } else { [p[0], p[1], p[2]] })
        .collect();
    Ok(Bgr::from_rgb(w, h, &rgb))
}

/// Encodes an image as a PNG data URL (the PNG is [`crate::providers::raster::png`]'s).
pub(super) fn data_url(img: &Bgr) -> Result<String, String> {
    let out = crate::providers::raster::png(img)?;
    Ok(format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(&out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Page;

    #[test]
    fn smart_resize_matches_qwen2_vl() {
        // Hand-computed with the image processor's rule.
        assert_eq!(smart_resize(2200, 1700, 28, 3136, 11_289_600), (2212, 1708));
        // Too big: scaled down to fit max_pixels, sides floored to the factor.
        let (h, w) = smart_resize(4000, 3000, 28, 3136, 1_003_520);
        assert!(h * w <= 1_003_520 && h % 28 == 0 && w % 28 == 0, "{h}x{w}");
        assert_eq!((h, w), (1148, 840));
        // Too small: scaled up to min_pixels, sides ceiled.
        assert_eq!(smart_resize(20, 20, 28, 3136, 11_289_600), (56, 56));
        // Half rounds to even: 42/28 = 1.5 -> 2; 70/28 = 2.5 -> 2.
        assert_eq!(smart_resize(42, 70, 28, 0, u64::MAX), (56, 56));
    }

    #[test]
    fn image_sizes_follow_the_spec() {
        let letter = Page { width: 612.0, height: 792.0 };
        let dpi = ImageSpec { dpi: Some(200.0), ..ImageSpec::default() };
        assert_eq!(image_size(&dpi, letter), (1700, 2200));
        let long = ImageSpec { longest_side: Some(1288), ..ImageSpec::default() };
        assert_eq!(image_size(&long, letter), (995, 1288));
        let qwen = ImageSpec {
            factor: Some(28),
            min_pixels: Some(3136),
            max_pixels: Some(11_289_600),
            ..dpi
        };
        assert_eq!(image_size(&qwen, letter), (1708, 2212));
    }

    #[test]
    fn scale_to_fit_matches_chandra_by_hand() {
        let (min, max) = (1792 * 28, 3072 * 2048);
        // Inside the bounds: each side rounded to 28: 1632/28 = 58.29 -> 58, 2112/28 = 75.43
        // -> 75.
        assert_eq!(scale_to_fit(1632, 2112, 28, min, max), (1624, 2100));
        // 5333 x 5333 (28.4 MP): scale sqrt(6291456 / 28440889) = 0.47033, each side
        // 2508.3 / 28 = 89.58 -> 90; 90 * 90 * 784 = 6350400 is over, and taking a cell off
        // the width (|89/90 - 1| = 0.01111) keeps the ratio closer than off the height
        // (|90/89 - 1| = 0.01124): 89 x 90 cells = 6279840 fits. smart_resize floors both
        // sides to 89 instead.
        assert_eq!(scale_to_fit(5333, 5333, 28, min, max), (2492, 2520));
        assert_eq!(smart_resize(5333, 5333, 28, min, max), (2492, 2492));
        // 2667 x 8000: scale 0.54302, 1448.2 / 28 = 51.72 -> 52, 4344.2 / 28 = 155.15 -> 155;
        // 52 * 155 * 784 = 6319040 is over; ratio 0.333375: off the width |51/155 - r| =
        // 0.004343, off the height |52/154 - r| = 0.004287, so the height loses a cell:
        // 52 x 154 = 6278272 fits. smart_resize gives 51 x 155 cells.
        assert_eq!(scale_to_fit(2667, 8000, 28, min, max), (1456, 4312));
        assert_eq!(smart_resize(8000, 2667, 28, min, max), (4340, 1428));
        // Below min_pixels: scaled up, then rounded (not ceiled): 100 x 100 -> scale
        // sqrt(50176 / 10000) = 2.24, 224 / 28 = 8 cells each.
        assert_eq!(scale_to_fit(100, 100, 28, min, max), (224, 224));
    }

    #[test]
    fn chandra_renders_small_pages_above_192_dpi() {
        let spec = ImageSpec {
            dpi: Some(192.0),
            min_short_side: Some(1024),
            factor: Some(28),
            min_pixels: Some(1792 * 28),
            max_pixels: Some(3072 * 2048),
            resize: Some(Resize::ScaleToFit),
            ..ImageSpec::default()
        };
        // Letter: 192 dpi (1024 / 612 * 72 = 120.5 < 192): 1632 x 2112 -> 1624 x 2100.
        assert_eq!(image_size(&spec, Page { width: 612.0, height: 792.0 }), (1624, 2100));
        // 300 x 400 pt: max(192, 1024 / 300 * 72 = 245.76) dpi -> 1024 x 1365.3 -> 1024 x
        // 1365 rendered; 1024/28 = 36.57 -> 37 cells, 1365/28 = 48.75 -> 49: 1036 x 1372.
        assert_eq!(image_size(&spec, Page { width: 300.0, height: 400.0 }), (1036, 1372));
        // 1000 x 3000 pt at 192 dpi: 2667 x 8000, fitted as above.
        assert_eq!(image_size(&spec, Page { width: 1000.0, height: 3000.0 }), (1456, 4312));
    }
}
