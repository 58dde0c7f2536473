//! What vision-language models answer for one page image, read into blocks: each model is
//! trained to answer in its own format, and its endpoint preset (`presets/*.toml`,
//! `[endpoint] reply`) names which reader reads it.
//!
//! | reply | models | boxes |
//! |---|---|---|
//! | `markdown` | LightOnOCR-2, Nanonets-OCR2, GLM-OCR, any prompt file | none |
//! | `olmocr-markdown` | olmOCR 2 | none; YAML front matter read ([`FrontMatter`]) |
//! | `dots-ocr-json` | dots.ocr | image pixels ([`dots`]) |
//! | `deepseek-grounding` | DeepSeek-OCR, DeepSeek-OCR 2 | 0–999 per axis ([`deepseek`]) |
//! | `chandra-html` | Chandra | 0–1000 per axis ([`chandra`]) |
//! | `doctags` | granite-docling | 0–500 per axis ([`doctags`]) |
//! | `mineru-layout` | MinerU2.5's first stage | 0–1000 per axis ([`mineru_vlm`]) |
//!
//! Readers give blocks whose boxes are in the model's own frame; [`read_page`] turns them
//! into page points with the frame the preset declares ([`BoxFrame`]) and the image the model
//! was shown ([`Seen`]), and clips a box that reaches outside the page to the page (counted
//! in [`PageRead::clipped`]). A reply that is not in its format at all is a [`FormatError`];
//! a reply that stops early (the token limit) keeps what it says completely. Rules:
//! `docs/endpoints.md`.

pub mod chandra;
pub mod deepseek;
pub mod doctags;
pub mod dots;
pub mod mineru_vlm;

use serde::{Deserialize, Serialize};

use super::{Format, FormatError};
use crate::doc::{BBox, Block, BlockKind, Page};

listed_enum! {
    /// A reply format: how one model's answer for one page is read.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum ReplyFormat {
        /// Markdown with pipe or HTML tables and `$`/`\[` math.
        Markdown,
        /// olmOCR's YAML front matter, then Markdown.
        OlmocrMarkdown,
        /// dots.ocr's JSON list of layout cells.
        DotsOcrJson,
        /// DeepSeek-OCR's `<|ref|>…<|/ref|><|det|>[[…]]<|/det|>` grounding markup.
        DeepseekGrounding,
        /// Chandra's HTML, one `div` with `data-bbox` and `data-label` per block.
        ChandraHtml,
        /// DocTags (granite-docling).
        DocTags,
    }
}

impl ReplyFormat {
    /// The outside format it is.
    pub fn format(self) -> Format {
        match self {
            ReplyFormat::Markdown => Format::Markdown,
            ReplyFormat::OlmocrMarkdown => Format::OlmocrMarkdown,
            ReplyFormat::DotsOcrJson => Format::DotsOcrJson,
            ReplyFormat::DeepseekGrounding => Format::DeepseekGrounding,
            ReplyFormat::ChandraHtml => Format::ChandraHtml,
            ReplyFormat::DocTags => Format::DocTags,
        }
    }

    /// Its name (`dots-ocr-json`).
    pub fn name(self) -> &'static str {
        self.format().name()
    }

    /// Whether its replies carry boxes.
    pub fn has_boxes(self) -> bool {
        match self {
            ReplyFormat::Markdown | ReplyFormat::OlmocrMarkdown => false,
            ReplyFormat::DotsOcrJson
            | ReplyFormat::DeepseekGrounding
            | ReplyFormat::ChandraHtml
            | ReplyFormat::DocTags => true,
        }
    }
}

/// The frame a model's boxes are in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoxFrame {
    /// Pixels of the image the model was shown (dots.ocr).
    Pixels,
    /// `0..=n` on each axis, whatever the image's shape (DeepSeek 999, Chandra and MinerU2.5
    /// 1000, DocTags 500).
    Normalized(f32),
}

/// What the model was shown: the page image's size in pixels, and the page's in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    /// The image's width in pixels.
    pub image_width: u32,
    /// The image's height in pixels.
    pub image_height: u32,
    /// The page, in points.
    pub page: Page,
}

/// A region of a page found by a layout stage, in page points.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// Where it is (in the frame of the reader that gave it, until `to_page`).
    pub bbox: BBox,
    /// What block it becomes.
    pub kind: BlockKind,
    /// The model's own label (`table`, `interline_equation`).
    pub label: String,
}

/// olmOCR's front matter: what the model says about the page before its text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FrontMatter {
    /// `primary_language` (`en`), where given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_language: Option<String>,
    /// `is_rotation_valid`: false when the model says the page is turned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_rotation_valid: Option<bool>,
    /// `rotation_correction`: degrees (0, 90, 180, 270) to turn the page to read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation_correction: Option<u32>,
    /// `is_table`: the page is mostly a table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_table: Option<bool>,
    /// `is_diagram`: the page is mostly a diagram.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_diagram: Option<bool>,
}

/// One page's reply, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageRead {
    /// The blocks, in reading order, boxes in page points.
    pub blocks: Vec<Block>,
    /// The page as Markdown where the reply is Markdown (front matter removed).
    pub markdown: Option<String>,
    /// olmOCR's front matter, where the reply has one.
    pub front_matter: Option<FrontMatter>,
    /// Boxes that reached outside the page and were clipped to it.
    pub clipped: usize,
    /// Lines dropped from a reply that repeated itself until the token limit.
    pub repeated_lines: usize,
}

/// Maps a box from the model's frame to page points, clipped to the page; returns whether
/// it had to be clipped. An empty box (no geometry) stays empty.
pub(crate) fn to_page(b: BBox, frame: BoxFrame, seen: &Seen) -> (BBox, bool) {
    if b == BBox::default() {
        return (b, false);
    }
    let (fw, fh) = match frame {
        BoxFrame::Pixels => (seen.image_width.max(1) as f32, seen.image_height.max(1) as f32),
        BoxFrame::Normalized(n) => (n.max(1.0), n.max(1.0)),
    };
    let (sx, sy) = (seen.page.width / fw, seen.page.height / fh);
    let (x0, x1) = (b.x0.min(b.x1) * sx, b.x0.max(b.x1) * sx);
    let (y0, y1) = (b.y0.min(b.y1) * sy, b.y0.max(b.y1) * sy);
    let c = |v: f32, hi: f32| v.clamp(0.0, hi);
    let out = BBox::new(
        c(x0, seen.page.width),
        c(y0, seen.page.height),
        c(x1, seen.page.width),
        c(y1, seen.page.height),
    );
    let tol = 0.5;
    let clipped =
        x0 < -tol || y0 < -tol || x1 > seen.page.width + tol || y1 > seen.page.height + tol;
    (out, clipped)
}

/// Reads one page's reply: `finish_reason` is the server's (`length` when the token limit
/// cut the reply, whose repeated tail is then dropped: see `trim_repetition`).
pub fn read_page(
    format: ReplyFormat,
    text: &str,
    page: u32,
    frame: Option<BoxFrame>,
    seen: &Seen,
    finish_reason: Option<&str>,
) -> Result<PageRead, FormatError> {
    let (text, repeated_lines) =
        if finish_reason == Some("length") { trim_repetition(text) } else { (text.to_string(), 0) };
    let mut out = PageRead { repeated_lines, ..PageRead::default() };
    let blocks = match format {
        ReplyFormat::Markdown | ReplyFormat::OlmocrMarkdown => {
            let (fm, body) = split_front_matter(&text);
            if format == ReplyFormat::OlmocrMarkdown {
                out.front_matter = fm;
            }
            out.markdown = Some(body.trim().to_string());
            super::markdown::read_markdown(body, page).blocks
        }
        ReplyFormat::DotsOcrJson => dots::read(&text, page)?,
        ReplyFormat::DeepseekGrounding => deepseek::read(&text, page)?,
        ReplyFormat::ChandraHtml => chandra::read(&text, page)?,
        ReplyFormat::DocTags => doctags::read(&text, page)?,
    };
    for mut b in blocks {
        if let Some(frame) = frame {
            let (bb, clipped) = to_page(b.bbox, frame, seen);
            b.bbox = bb;
            out.clipped += clipped as usize;
        }
        out.blocks.push(b);
    }
    Ok(out)
}

/// Splits a YAML front matter block (`---` … `---` at the very start) from the Markdown
/// after it, reading the keys olmOCR's models write; a reply without one is all body.
pub(crate) fn split_front_matter(text: &str) -> (Option<FrontMatter>, &str) {
    let t = text.trim_start_matches('\u{feff}');
    let Some(rest) = t.strip_prefix("---").filter(|r| r.starts_with('\n') || r.starts_with("\r\n"))
    else {
        return (None, text);
    };
    let Some(end) = rest.find("\n---") else { return (None, text) };
    let mut fm = FrontMatter::default();
    for line in rest[..end].lines() {
        let Some((k, v)) = line.split_once(':') else { continue };
        let v = v.trim().trim_matches('"');
        let flag = || match v.to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        };
        match k.trim() {
            "primary_language" => {
                fm.primary_language = (!v.is_empty() && v != "null").then(|| v.to_string())
            }
            "is_rotation_valid" => fm.is_rotation_valid = flag(),
            "rotation_correction" => fm.rotation_correction = v.parse().ok(),
            "is_table" => fm.is_table = flag(),
            "is_diagram" => fm.is_diagram = flag(),
            _ => {}
        }
    }
    let after = &rest[end + 4..];
    let body = after.strip_prefix("\r\n").or_else(|| after.strip_prefix('\n')).unwrap_or(after);
    (Some(fm), body)
}

/// Drops the tail of a reply that repeats itself until the token limit: when the last lines
/// are one group of 1 to 8 lines said at least 4 times in a row (the last copy may be cut
/// short), one copy is kept. Returns the text and how many lines were dropped.
pub(crate) fn trim_repetition(text: &str) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    let mut best: Option<(usize, usize)> = None; // (end of the kept copy, lines dropped)
                                                 // The last line may be a copy cut short by the limit: look with and without it.
    for end in [n, n.saturating_sub(1)] {
        let body = &lines[..end];
        for period in 1..=8usize {
            if body.len() < period * 4 {
                break;
            }
            let mut copies = 1;
            let mut start = body.len() - period;
            while start >= period && body[start - period..start] == body[start..start + period] {
                copies += 1;
                start -= period;
            }
            if copies >= 4 && body[start..start + period].iter().any(|l| !l.trim().is_empty()) {
                let keep_end = start + period;
                let dropped = n - keep_end;
                if best.is_none_or(|(_, d)| dropped > d) {
                    best = Some((keep_end, dropped));
                }
            }
        }
    }
    match best {
        Some((keep_end, dropped)) => (lines[..keep_end].join("\n"), dropped),
        None => (text.to_string(), 0),
    }
}

/// The block kind of a layout category, by the names the models use (case and `-`/`_`/space
/// ignored); `None` for a name no model here uses, which the reader reports.
pub(crate) fn kind_of(category: &str) -> Option<BlockKind> {
    use BlockKind::*;
    let c: String = category
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    Some(match c.as_str() {
        "title" | "doctitle" | "documenttitle" => Title,
        "sectionheader" | "sectiontitle" | "header" | "heading" | "subtitle" | "paragraphtitle" => {
            Heading
        }
        "text" | "plaintext" | "paragraph" | "abstract" | "textblock" | "content" | "aside"
        | "asidetext" | "form" | "handwriting" | "phonetic" | "vertical text" | "verticaltext"
        | "seal" | "number" | "reftext" | "tableofcontents" | "toc" | "index" => Paragraph,
        "listitem" | "list" => ListItem,
        "caption" | "figurecaption" | "tablecaption" | "imagecaption" | "chartcaption"
        | "tablefootnote" | "imagefootnote" | "figuretitle" | "charttitle" | "tabletitle" => {
            Caption
        }
        "table" => Table,
        "formula" | "equation" | "interlineequation" | "displayformula" | "isolateformula"
        | "formulablock" => Formula,
        "picture" | "figure" | "image" | "chart" | "diagram" | "photo" | "logo" | "graphic" => {
            Figure
        }
        "pageheader" | "headerblock" => PageHeader,
        "pagefooter" | "footer" | "pagenumber" | "footerblock" => PageFooter,
        "footnote" | "pagefootnote" => Footnote,
        "reference" | "references" | "bibliography" | "refitem" => Reference,
        "code" | "codeblock" | "algorithm" => Code,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen() -> Seen {
        Seen { image_width: 1000, image_height: 2000, page: Page { width: 500.0, height: 800.0 } }
    }

    #[test]
    fn boxes_are_scaled_from_each_frame_and_clipped_to_the_page() {
        let (b, c) = to_page(BBox::new(100.0, 200.0, 300.0, 400.0), BoxFrame::Pixels, &seen());
        assert_eq!((b, c), (BBox::new(50.0, 80.0, 150.0, 160.0), false));
        let (b, c) =
            to_page(BBox::new(0.0, 500.0, 1000.0, 1000.0), BoxFrame::Normalized(1000.0), &seen());
        assert_eq!((b, c), (BBox::new(0.0, 400.0, 500.0, 800.0), false));
        let (b, c) = to_page(BBox::new(900.0, 1900.0, 1200.0, 2100.0), BoxFrame::Pixels, &seen());
        assert_eq!((b, c), (BBox::new(450.0, 760.0, 500.0, 800.0), true));
        // Corners given in the wrong order are put right.
        let (b, _) = to_page(BBox::new(300.0, 400.0, 100.0, 200.0), BoxFrame::Pixels, &seen());
        assert_eq!(b, BBox::new(50.0, 80.0, 150.0, 160.0));
        assert_eq!(to_page(BBox::default(), BoxFrame::Pixels, &seen()).0, BBox::default());
    }

    #[test]
    fn front_matter_is_read_and_removed() {
        let r = "---\nprimary_language: en\nis_rotation_valid: false\nrotation_correction: 90\nis_table: true\nis_diagram: False\n---\n# Title\n\nBody.";
        let (fm, body) = split_front_matter(r);
        let fm = fm.unwrap();
        assert_eq!(fm.primary_language.as_deref(), Some("en"));
        assert_eq!(fm.is_rotation_valid, Some(false));
        assert_eq!(fm.rotation_correction, Some(90));
        assert_eq!((fm.is_table, fm.is_diagram), (Some(true), Some(false)));
        assert_eq!(body, "# Title\n\nBody.");
        assert_eq!(split_front_matter("# None").1, "# None");
        assert_eq!(split_front_matter("---\nunclosed").1, "---\nunclosed");
        let p = read_page(ReplyFormat::OlmocrMarkdown, r, 2, None, &seen(), Some("stop")).unwrap();
        assert_eq!(p.blocks[0].page, 2);
        assert_eq!(p.markdown.as_deref(), Some("# Title\n\nBody."));
        assert!(p.front_matter.is_some());
    }

    #[test]
    fn a_reply_that_repeats_until_the_limit_keeps_one_copy() {
        let mut r = String::from("# Title\n\nIntro.\n");
        for _ in 0..40 {
            r.push_str("| 1 | 2 |\n| 3 | 4 |\n");
        }
        r.push_str("| 1 | ");
        let (t, dropped) = trim_repetition(&r);
        assert_eq!(t, "# Title\n\nIntro.\n| 1 | 2 |\n| 3 | 4 |");
        assert_eq!(dropped, 79);
        // Three copies are not a loop; text that ends normally is kept whole.
        let ok = "a\nb\nb\nb\nc";
        assert_eq!(trim_repetition(ok), (ok.to_string(), 0));
        let p = read_page(ReplyFormat::Markdown, &r, 0, None, &seen(), Some("length")).unwrap();
        assert_eq!(p.repeated_lines, 79);
        let p = read_page(ReplyFormat::Markdown, &r, 0, None, &seen(), Some("stop")).unwrap();
        assert_eq!(p.repeated_lines, 0);
    }

    #[test]
    fn categories_map_to_kinds() {
        assert_eq!(kind_of("Section-header"), Some(BlockKind::Heading));
        assert_eq!(kind_of("interline_equation"), Some(BlockKind::Formula));
        assert_eq!(kind_of("Page-footer"), Some(BlockKind::PageFooter));
        assert_eq!(kind_of("List-item"), Some(BlockKind::ListItem));
        assert_eq!(kind_of("spaceship"), None);
        for f in ReplyFormat::ALL {
            assert_eq!(crate::formats::Format::from_name(f.name()), Some(f.format()));
        }
    }
}
