//! A minimal PDF 1.4 writer: pages of text in the standard Courier fonts, straight lines,
//! filled and stroked rectangles and curves (the vector drawing tables and figures are made of).
//!
//! Just enough to typeset the sample papers, hand-written so that the fixtures owe nothing to a
//! third-party library. The fonts are the standard-14 Courier family, referenced as Type1 fonts
//! without embedding: every Courier glyph is 600/1000 em wide, so `text_width` is exact and no
//! width table is needed. Strings are WinAnsi-encoded; a char that WinAnsi lacks becomes `?`.
//!
//! The output is deterministic (no dates, no `/ID`, nothing compressed), so writing the same
//! pages twice gives the same bytes, and the files diff as text.

use std::fmt::Write as _;

/// Width of every Courier glyph, in text-space units per unit of font size.
pub const CHAR_WIDTH_EM: f32 = 0.6;

/// Courier's ascender above the baseline, per unit of font size (from its AFM).
pub const ASCENT_EM: f32 = 0.629;

/// Courier's descender below the baseline, per unit of font size (from its AFM, made positive).
pub const DESCENT_EM: f32 = 0.157;

/// One of the three fonts a page can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Font {
    /// Courier.
    Regular,
    /// Courier-Bold.
    Bold,
    /// Courier-Oblique.
    Oblique,
}

impl Font {
    /// Every font, in the order of their resource names `/F1`, `/F2`, `/F3`.
    const ALL: [Font; 3] = [Font::Regular, Font::Bold, Font::Oblique];

    /// Returns the name of the font in a page's resource dictionary.
    fn resource(self) -> &'static str {
        match self {
            Font::Regular => "F1",
            Font::Bold => "F2",
            Font::Oblique => "F3",
        }
    }

    /// Returns the standard-14 base font name.
    fn base_font(self) -> &'static str {
        match self {
            Font::Regular => "Courier",
            Font::Bold => "Courier-Bold",
            Font::Oblique => "Courier-Oblique",
        }
    }
}

/// Returns the width in points of `text` set in Courier at `size` points.
///
/// Exact for every char, since a char that WinAnsi lacks is drawn as the one-glyph `?`.
pub(crate) fn text_width(text: &str, size: f32) -> f32 {
    text.chars().count() as f32 * CHAR_WIDTH_EM * size
}

/// One page: its size and its content stream.
#[derive(Debug, Clone)]
pub struct PdfPage {
    width: f32,
    height: f32,
    content: String,
}

impl PdfPage {
    /// Returns an empty page of the given size in points (US Letter is 612 × 792).
    pub fn new(width: f32, height: f32) -> PdfPage {
        PdfPage { width, height, content: String::new() }
    }

    /// Returns the page height in points.
    pub fn height(&self) -> f32 {
        self.height
    }

    /// Draws one line of text with its baseline starting at `(x, y)`, in PDF coordinates
    /// (origin at the bottom-left corner, y up).
    pub fn text(&mut self, font: Font, size: f32, x: f32, y: f32, text: &str) {
        let _ = writeln!(
            self.content,
            "BT /{} {} Tf {} {} Td {} Tj ET",
            font.resource(),
            num(size),
            num(x),
            num(y),
            literal_string(text)
        );
    }

    /// Strokes a straight line of the given width from `(x0, y0)` to `(x1, y1)`, in PDF
    /// coordinates.
    pub fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, width: f32) {
        let _ = writeln!(
            self.content,
            "{} w {} {} m {} {} l S",
            num(width),
            num(x0),
            num(y0),
            num(x1),
            num(y1)
        );
    }
}

impl PdfPage {
    /// Fills a rectangle with its lower-left corner at `(x, y)`, in PDF coordinates: LaTeX
    /// draws `\hline` and booktabs rules this way, as thin black bars.
    #[cfg(test)]
    pub(crate) fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32) {
        let _ = writeln!(self.content, "{} {} {} {} re f", num(x), num(y), num(w), num(h));
    }

    /// Strokes a rectangle's outline with lines of the given width.
    #[cfg(test)]
    pub(crate) fn stroke_rect(&mut self, x: f32, y: f32, w: f32, h: f32, width: f32) {
        let _ = writeln!(
            self.content,
            "{} w {} {} {} {} re S",
            num(width),
            num(x),
            num(y),
            num(w),
            num(h)
        );
    }

    /// Strokes a cubic Bézier curve from `p0` through control points `c1`, `c2` to `p1`.
    #[cfg(test)]
    pub(crate) fn curve(&mut self, p0: (f32, f32), c1: (f32, f32), c2: (f32, f32), p1: (f32, f32)) {
        let _ = writeln!(
            self.content,
            "1 w {} {} m {} {} {} {} {} {} c S",
            num(p0.0),
            num(p0.1),
            num(c1.0),
            num(c1.1),
            num(c2.0),
            num(c2.1),
            num(p1.0),
            num(p1.1)
        );
    }

    /// Strokes a line from `(x0, y0)` to `(x1, y1)` seen only inside the clip rectangle
    /// `clip` (`x, y, w, h`).
    #[cfg(test)]
    pub(crate) fn clipped_line(
        &mut self,
        clip: (f32, f32, f32, f32),
        from: (f32, f32),
        to: (f32, f32),
    ) {
        let _ = writeln!(
            self.content,
            "q {} {} {} {} re W n 1 w {} {} m {} {} l S Q",
            num(clip.0),
            num(clip.1),
            num(clip.2),
            num(clip.3),
            num(from.0),
            num(from.1),
            num(to.0),
            num(to.1)
        );
    }
}

/// A document under construction: pages plus the `/Info` title and creator.
#[derive(Debug, Clone, Default)]
pub struct Pdf {
    pages: Vec<PdfPage>,
    title: Option<String>,
    creator: Option<String>,
}

impl Pdf {
    /// Returns an empty document.
    pub fn new() -> Pdf {
        Pdf::default()
    }

    /// Sets the `/Title` and `/Creator` entries of the document information dictionary.
    pub(crate) fn set_info(&mut self, title: &str, creator: &str) {
        self.title = Some(title.to_string());
        self.creator = Some(creator.to_string());
    }

    /// Appends a page.
    pub fn push(&mut self, page: PdfPage) {
        self.pages.push(page);
    }

    /// Returns the file's bytes: header, objects, cross-reference table and trailer.
    ///
    /// Objects are numbered 1 catalog, 2 page tree, 3–5 fonts, 6 info (when set), then a page
    /// object and its content stream for each page.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut objects: Vec<String> = Vec::new();
        let first_page = 6 + usize::from(self.has_info());
        let kids: Vec<String> =
            (0..self.pages.len()).map(|i| format!("{} 0 R", first_page + 2 * i)).collect();
        objects.push("<< /Type /Catalog /Pages 2 0 R >>".to_string());
        objects.push(format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            kids.join(" "),
            self.pages.len()
        ));
        for font in Font::ALL {
            objects.push(format!(
                "<< /Type /Font /Subtype /Type1 /BaseFont /{} /Encoding /WinAnsiEncoding >>",
                font.base_font()
            ));
        }
        if self.has_info() {
            let mut info = String::from("<<");
            if let Some(t) = &self.title {
                let _ = write!(info, " /Title {}", info_string(t));
            }
            if let Some(c) = &self.creator {
                let _ = write!(info, " /Creator {} /Producer {}", info_string(c), info_string(c));
            }
            info.push_str(" >>");
            objects.push(info);
        }
        let fonts: String = Font::ALL
            .iter()
            .map(|f| format!(" /{} {} 0 R", f.resource(), 3 + *f as usize))
            .collect();
        for (i, page) in self.pages.iter().enumerate() {
            let content_id = first_page + 2 * i + 1;
            objects.push(format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {} {}] \
                 /Resources << /Font <<{} >> /ProcSet [/PDF /Text] >> /Contents {} 0 R >>",
                num(page.width),
                num(page.height),
                fonts,
                content_id
            ));
            objects.push(format!(
                "<< /Length {} >>\nstream\n{}endstream",
                page.content.len(),
                page.content
            ));
        }

        // The binary comment marks the file as binary for transfer tools; everything else is
        // ASCII, since non-ASCII string bytes are written as octal escapes.
        let mut out: Vec<u8> = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
        let mut offsets = Vec::with_capacity(objects.len());
        for (i, body) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n{}\nendobj\n", i + 1, body).as_bytes());
        }
        let xref = out.len();
        let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
        for off in offsets {
            // Each entry is exactly 20 bytes: the trailing space and the newline make its EOL.
            let _ = writeln!(table, "{off:010} 00000 n ");
        }
        let info = if self.has_info() { " /Info 6 0 R" } else { "" };
        let _ = write!(
            table,
            "trailer\n<< /Size {} /Root 1 0 R{} >>\nstartxref\n{}\n%%EOF\n",
            objects.len() + 1,
            info,
            xref
        );
        out.extend_from_slice(table.as_bytes());
        out
    }

    fn has_info(&self) -> bool {
        self.title.is_some() || self.creator.is_some()
    }
}

/// Returns the WinAnsiEncoding code of `c`, or `None` where WinAnsi has no such char.
pub(crate) fn win_ansi(c: char) -> Option<u8> {
    let code = c as u32;
    match code {
        0x20..=0x7E | 0xA0..=0xFF => Some(code as u8),
        _ => {
            let b = match c {
                '€' => 0x80,
                '‚' => 0x82,
                'ƒ' => 0x83,
                '„' => 0x84,
                '…' => 0x85,
                '†' => 0x86,
                '‡' => 0x87,
                'ˆ' => 0x88,
                '‰' => 0x89,
                'Š' => 0x8A,
                '‹' => 0x8B,
                'Œ' => 0x8C,
                'Ž' => 0x8E,
                '\u{2018}' => 0x91,
                '\u{2019}' => 0x92,
                '\u{201C}' => 0x93,
                '\u{201D}' => 0x94,
                '•' => 0x95,
                '–' => 0x96,
                '—' => 0x97,
                '˜' => 0x98,
                '™' => 0x99,
                'š' => 0x9A,
                '›' => 0x9B,
                'œ' => 0x9C,
                'ž' => 0x9E,
                'Ÿ' => 0x9F,
                _ => return None,
            };
            Some(b)
        }
    }
}

/// Returns `text` as a PDF literal string in WinAnsi: `(`, `)` and `\` escaped, bytes outside
/// printable ASCII written as octal escapes, and chars that WinAnsi lacks replaced by `?`.
pub(crate) fn literal_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('(');
    for c in text.chars() {
        let b = win_ansi(c).unwrap_or(b'?');
        match b {
            b'(' | b')' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7E => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push(')');
    out
}

/// Returns a document-information string: a literal when ASCII, else UTF-16BE hex with a BOM.
fn info_string(text: &str) -> String {
    if text.chars().all(|c| (' '..='~').contains(&c)) {
        return literal_string(text);
    }
    let mut out = String::from("<FEFF");
    for unit in text.encode_utf16() {
        let _ = write!(out, "{unit:04X}");
    }
    out.push('>');
    out
}

/// Formats a coordinate with at most two decimals and no trailing zeros (`72`, `90.5`).
fn num(v: f32) -> String {
    let s = format!("{:.2}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_and_win_ansi_encoded() {
        assert_eq!(literal_string(r"a(b)c\d"), r"(a\(b\)c\\d)");
        assert_eq!(literal_string("Pylkkänen é"), r"(Pylkk\344nen \351)");
        assert_eq!(literal_string("– ’ Š"), r"(\226 \222 \212)");
        assert_eq!(literal_string("σ∑x"), "(??x)");
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(72.0), "72");
        assert_eq!(num(90.5), "90.5");
        assert_eq!(num(1.234), "1.23");
        assert_eq!(num(-0.001), "0");
    }

    #[test]
    fn widths_are_exact_for_courier() {
        assert_eq!(text_width("abcde", 10.0), 30.0);
        assert_eq!(text_width("ä", 10.0), 6.0);
    }

    #[test]
    fn xref_offsets_point_at_objects() {
        let mut pdf = Pdf::new();
        pdf.set_info("T", "corpus-sample");
        for _ in 0..2 {
            let mut p = PdfPage::new(612.0, 792.0);
            p.text(Font::Bold, 12.0, 72.0, 700.0, "Hello (world)");
            p.line(72.0, 690.0, 300.0, 690.0, 0.5);
            pdf.push(p);
        }
        let bytes = pdf.to_bytes();
        assert_eq!(bytes, pdf.to_bytes(), "deterministic");
        // One char per byte, so that byte offsets index the string.
        let text: String = bytes.iter().map(|&b| if b < 128 { b as char } else { '?' }).collect();
        let sx: usize = text
            .rsplit("startxref\n")
            .next()
            .and_then(|t| t.lines().next())
            .and_then(|l| l.parse().ok())
            .unwrap();
        assert!(text[sx..].starts_with("xref\n0 11\n"));
        let entries: Vec<usize> = text[sx..]
            .lines()
            .skip(3)
            .take(10)
            .map(|l| {
                assert_eq!(l.len(), 19, "entry {l:?} (20 bytes with its newline)");
                l[..10].parse().unwrap()
            })
            .collect();
        for (i, off) in entries.iter().enumerate() {
            assert!(text[*off..].starts_with(&format!("{} 0 obj\n", i + 1)), "object {}", i + 1);
        }
        // Each stream's /Length is the number of bytes between `stream\n` and `endstream`.
        for part in text.split("/Length ").skip(1) {
            let len: usize = part.split(' ').next().unwrap().parse().unwrap();
            let body = part.split_once("stream\n").unwrap().1;
            assert_eq!(&body[len..len + 9], "endstream");
        }
    }
}
