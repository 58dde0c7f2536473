//! Reads each page's characters with boxes, font size and weight: one pass over pdfium's
//! character list, nothing allocated per character except the font name lookup.

use pdfium_render::prelude::{PdfDocument, PdfFontWeight, PdfPage, PdfPageRenderRotation};

use super::structure::{Glyph, PageGlyphs};
use crate::doc::BBox;

/// Characters whose angle differs from the page's main text direction by more than this
/// (degrees) are dropped: arXiv margin stamps, rotated axis labels.
const MAX_ANGLE_DIFF: f32 = 10.0;

/// Returns every page's glyphs; a page pdfium cannot read becomes an empty page.
pub(super) fn pages(doc: &PdfDocument<'_>) -> Vec<PageGlyphs> {
    let pages = doc.pages();
    let mut out = Vec::with_capacity(usize::try_from(pages.len()).unwrap_or(0));
    for i in 0..pages.len() {
        match pages.get(i) {
            Ok(page) => out.push(page_glyphs(&page, i)),
            Err(e) => {
                tracing::warn!(page = i, error = %e, "pdfium could not load a page");
                out.push(PageGlyphs::default());
            }
        }
    }
    out
}

/// Maps PDF user space (y up) to the displayed page (top-left origin, y down, rotation applied).
pub(crate) struct Frame {
    left: f32,
    top: f32,
    /// Unrotated width and height.
    w: f32,
    h: f32,
    quarter_turns: u8,
}

impl Frame {
    fn new(page: &PdfPage<'_>) -> Frame {
        let bounds =
            page.boundaries().crop().or_else(|_| page.boundaries().media()).map(|b| b.bounds).ok();
        let quarter_turns = match page.rotation() {
            Ok(PdfPageRenderRotation::Degrees90) => 1,
            Ok(PdfPageRenderRotation::Degrees180) => 2,
            Ok(PdfPageRenderRotation::Degrees270) => 3,
            _ => 0,
        };
        let (left, top, w, h) = match bounds {
            Some(r) => (
                r.left().value,
                r.top().value,
                r.right().value - r.left().value,
                r.top().value - r.bottom().value,
            ),
            None => {
                let (w, h) = (page.width().value, page.height().value);
                if quarter_turns % 2 == 1 {
                    (0.0, w, h, w)
                } else {
                    (0.0, h, w, h)
                }
            }
        };
        Frame { left, top, w, h, quarter_turns }
    }

    /// Displayed width and height.
    fn size(&self) -> (f32, f32) {
        if self.quarter_turns % 2 == 1 {
            (self.h, self.w)
        } else {
            (self.w, self.h)
        }
    }

    pub(crate) fn point(&self, x: f32, y: f32) -> (f32, f32) {
        let (u, v) = (x - self.left, self.top - y);
        match self.quarter_turns {
            1 => (self.h - v, u),
            2 => (self.w - u, self.h - v),
            3 => (v, self.w - u),
            _ => (u, v),
        }
    }

    fn rect(&self, left: f32, bottom: f32, right: f32, top: f32) -> BBox {
        let (ax, ay) = self.point(left, top);
        let (bx, by) = self.point(right, bottom);
        BBox::new(ax.min(bx), ay.min(by), ax.max(bx), ay.max(by))
    }
}

/// One character as read, before the angle filter.
struct Raw {
    glyph: Glyph,
    angle: f32,
}

pub(crate) fn page_glyphs(page: &PdfPage<'_>, index: i32) -> PageGlyphs {
    let frame = Frame::new(page);
    let (width, height) = frame.size();
    let text = match page.text() {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(page = index, error = %e, "pdfium could not read a page's text");
            return PageGlyphs { width, height, ..PageGlyphs::default() };
        }
    };
    let chars = text.chars();
    let mut raw: Vec<Raw> = Vec::with_capacity(chars.len());
    // The boldness verdict per font name: the name lookup allocates, the verdict does not.
    // Standard fonts (`Courier-Bold`, not embedded) often report weight 400, so the name
    // decides as well; size and weight alone cannot tell `Courier` from `Courier-Bold`.
    let mut verdicts: Vec<(String, bool)> = Vec::new();
    // pdfium gives a character outside the Basic Multilingual Plane (the mathematical
    // alphanumerics of math fonts: 𝑁, 𝑂) as two UTF-16 surrogates, each a char of its own.
    let mut high: Option<u32> = None;
    for c in chars.iter() {
        let v = c.unicode_value();
        let ch = match v {
            0xD800..=0xDBFF => {
                high = Some(v);
                continue;
            }
            0xDC00..=0xDFFF => match high.take() {
                Some(h) => char::from_u32(0x10000 + ((h - 0xD800) << 10) + (v - 0xDC00)),
                None => None,
            },
            _ => {
                high = None;
                c.unicode_char()
            }
        };
        let Some(ch) = ch else { continue };
        let ch = match ch {
            // pdfium reports a hyphen it takes for a soft one at a line end as U+0002 or
            // U+FFFE (a noncharacter, not a control).
            '\u{2}' | '\u{ad}' | '\u{fffe}' => '-',
            '\r' | '\n' => continue,
            c if c.is_whitespace() => ' ',
            c if c.is_control() => continue,
            c => c,
        };
        let Ok(r) = c.loose_bounds() else { continue };
        let bbox = frame.rect(r.left().value, r.bottom().value, r.right().value, r.top().value);
        if ch != ' ' && (bbox.height() <= 0.0 || !bbox.x0.is_finite() || !bbox.y0.is_finite()) {
            continue;
        }
        let size = c.scaled_font_size().value;
        let weight = match c.font_weight() {
            Some(PdfFontWeight::Weight100) => 100,
            Some(PdfFontWeight::Weight200) => 200,
            Some(PdfFontWeight::Weight300) => 300,
            Some(PdfFontWeight::Weight400Normal) => 400,
            Some(PdfFontWeight::Weight500) => 500,
            Some(PdfFontWeight::Weight600) => 600,
            Some(PdfFontWeight::Weight700Bold) => 700,
            Some(PdfFontWeight::Weight800) => 800,
            Some(PdfFontWeight::Weight900) => 900,
            Some(PdfFontWeight::Custom(w)) => w,
            None => 0,
        };
        let bold = ch != ' ' && {
            let name = c.font_name();
            match verdicts.iter().find(|(n, _)| *n == name) {
                Some(&(_, b)) => b || weight >= 600,
                None => {
                    let b = name_is_bold(&name);
                    verdicts.push((name, b));
                    b || weight >= 600
                }
            }
        };
        let angle = c.angle_degrees().unwrap_or(0.0);
        raw.push(Raw { glyph: Glyph { ch, bbox, size: size.abs(), bold }, angle });
    }
    let g = super::paths::page_graphics(page, &frame);
    PageGlyphs { width, height, glyphs: keep_main_direction(raw), rules: g.rules, art: g.art }
}

/// Drops characters whose angle is off the page's most common text angle.
fn keep_main_direction(raw: Vec<Raw>) -> Vec<Glyph> {
    // 36 buckets of 10 degrees; the fullest one is the main direction.
    let mut buckets = [0u32; 36];
    for r in &raw {
        buckets[bucket(r.angle)] += 1;
    }
    let main = (0..36).max_by_key(|&i| buckets[i]).unwrap_or(0) as f32 * 10.0 + 5.0;
    raw.into_iter()
        .filter(|r| {
            let d = (r.angle - main).rem_euclid(360.0);
            d.min(360.0 - d) <= MAX_ANGLE_DIFF || r.glyph.ch == ' '
        })
        .map(|r| r.glyph)
        .collect()
}

fn bucket(angle: f32) -> usize {
    let a = angle.rem_euclid(360.0);
    ((a / 10.0) as usize).min(35)
}

/// Returns whether a font name says bold (`Times-Bold`, `NimbusRomNo9L-Medi`, `CMBX10`, ...).
fn name_is_bold(name: &str) -> bool {
    // Subset prefixes (`ABCDEF+`) and case do not matter.
    let base = name.rsplit('+').next().unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    ["bold", "black", "heavy", "semibold", "demi", "-medi", ",medi", "cmbx", "cmb10", "-bd"]
        .iter()
        .any(|k| lower.contains(k))
        || base.ends_with("-B")
        || base.ends_with("-SB")
}
