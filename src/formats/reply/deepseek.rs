//! DeepSeek-OCR's (and DeepSeek-OCR 2's) grounded Markdown, the answer to
//! `<image>\n<|grounding|>Convert the document to markdown.`, into blocks.
//!
//! **The format.** Each block is a tag `<|ref|>LABEL<|/ref|><|det|>[[x1, y1, x2, y2]]<|/det|>`
//! followed by its content up to the next tag: Markdown for text (with `#` marks on titles),
//! an HTML `<table>` for tables, `\[ … \]` LaTeX for equations, nothing for images. A label may
//! carry several boxes (`[[…], […]]`): the block's box is their union. The reply may end with
//! the `<｜end▁of▁sentence｜>` token, which is dropped.
//!
//! **Labels.** DeepSeek publishes no list; these are the ones its own outputs show (the
//! DeepSeek-OCR paper's pages and the replies people have stored): `title` → title;
//! `sub_title` → heading, its level from the content's `#` marks (`##` → 1, `###` → 2); `text`
//! → paragraph, or one list item per entry when its Markdown is a list; `table` → table;
//! `table_caption`, `table_footnote`, `image_caption`, `image_footnote` → caption; `image` →
//! figure; `equation` → formula; `header` → page header; `footer`, `page_number` → page
//! footer; `footnote` → footnote; `code` → code. Any other label is read by `super::kind_of` (`figure`,
//! `formula`, `code`, `reference`, …); a label it does not know either is a [`FormatError`]
//! naming it (the answer to another prompt, `<|grounding|>OCR this image.`, puts the text
//! itself in `<|ref|>`).
//!
//! **Boxes** are `0..=999` on each axis whatever the image's shape
//! ([`super::BoxFrame::Normalized`]`(999.0)`), unscaled here: confirmed in
//! `DeepSeek-OCR-master/DeepSeek-OCR-vllm/run_dpsk_ocr_pdf.py` (deepseek-ai/DeepSeek-OCR) and
//! `DeepSeek-OCR2-master/DeepSeek-OCR2-vllm/run_dpsk_ocr2_image.py` (deepseek-ai/DeepSeek-OCR-2),
//! which draw each box at `x / 999 * image_width`, `y / 999 * image_height`; the paper says
//! "normalized into 1000 bins". A `<|det|>` whose content is not groups of four finite
//! numbers leaves the block without a box (its text is kept); boxes outside the frame pass
//! through ([`super::read_page`] clips them).
//!
//! **Quirks and failures.** The model often tags a table, then its caption, and writes the
//! caption's text before the table's HTML (`<|ref|>table…<|ref|>table_caption…Table 1 …`
//! then `<table>…`): an empty table followed by a caption holding a `<table>` gets that table
//! back.
//! Content before the first tag is read as paragraphs without a box; a reply without any tag
//! is read as plain Markdown (`markdown::read_markdown`), blocks without boxes. A reply cut
//! at the token limit keeps every block whose tag is complete (the last one with the content
//! it got); a tag cut before its `<|/det|>` is dropped. An empty reply is an empty page.
//! Block content is read as [`super::dots`] reads dots.ocr's (`content_blocks`): figures
//! keep no text, empty blocks other than tables and figures are dropped.

use super::super::{markdown, Format, FormatError};
use super::dots::content_blocks;
use crate::doc::{BBox, Block, BlockKind};

/// The format this file reads.
const FORMAT: Format = Format::DeepseekGrounding;

const REF: &str = "<|ref|>";
const REF_END: &str = "<|/ref|>";
const DET: &str = "<|det|>";
const DET_END: &str = "<|/det|>";
/// The end-of-sentence token a server may leave in the reply.
const EOS: &str = "<｜end▁of▁sentence｜>";

/// The labels DeepSeek-OCR's grounded Markdown uses and their kinds.
const LABELS: [(&str, BlockKind); 15] = [
    ("title", BlockKind::Title),
    ("sub_title", BlockKind::Heading),
    ("text", BlockKind::Paragraph),
    ("table", BlockKind::Table),
    ("table_caption", BlockKind::Caption),
    ("table_footnote", BlockKind::Caption),
    ("image", BlockKind::Figure),
    ("image_caption", BlockKind::Caption),
    ("image_footnote", BlockKind::Caption),
    ("equation", BlockKind::Formula),
    ("header", BlockKind::PageHeader),
    ("footer", BlockKind::PageFooter),
    ("page_number", BlockKind::PageFooter),
    ("footnote", BlockKind::Footnote),
    ("code", BlockKind::Code),
];

fn kind(label: &str) -> Option<BlockKind> {
    let l = label.trim().to_ascii_lowercase();
    LABELS.iter().find(|(n, _)| *n == l).map(|(_, k)| *k).or_else(|| super::kind_of(&l))
}

/// One tagged part of the reply.
struct Part {
    kind: BlockKind,
    bbox: BBox,
    content: String,
}

/// Reads one page's reply: blocks in reading order on page `page`, boxes in the 0–999 frame.
pub fn read(text: &str, page: u32) -> Result<Vec<Block>, FormatError> {
    let text = text.replace(EOS, "");
    let Some(first) = text.find(REF) else {
        return Ok(markdown::read_markdown(&text, page).blocks);
    };
    let mut out = content_blocks(BlockKind::Paragraph, &text[..first], page, BBox::default());
    let mut parts = tagged_parts(&text[first..])?;
    restore_tables(&mut parts);
    for p in parts {
        out.extend(content_blocks(p.kind, &p.content, page, p.bbox));
    }
    Ok(out)
}

/// The tagged parts of `text`, which starts at a tag, up to the first tag cut short.
fn tagged_parts(text: &str) -> Result<Vec<Part>, FormatError> {
    let mut parts = Vec::new();
    let mut rest = text;
    let mut n = 0;
    while let Some(after_ref) = rest.strip_prefix(REF) {
        let Some(end) = after_ref.find(REF_END) else { break };
        let label = after_ref[..end].trim().to_string();
        let mut tail = &after_ref[end + REF_END.len()..];
        let mut bbox = BBox::default();
        let trimmed = tail.trim_start();
        if let Some(det) = trimmed.strip_prefix(DET) {
            let Some(close) = det.find(DET_END) else { break };
            bbox = boxes(&det[..close]).unwrap_or_default();
            tail = &det[close + DET_END.len()..];
        } else if trimmed.is_empty() || DET.starts_with(trimmed) {
            // The reply stops before (or inside) this tag's boxes.
            break;
        }
        let kind = kind(&label).ok_or_else(|| {
            FormatError::new(
                FORMAT,
                format!(
                    "unknown label {label:?} (expected DeepSeek-OCR's layout labels: title, \
                     sub_title, text, table, table_caption, image, image_caption, equation, …)"
                ),
            )
            .at(format!("tag {n}"))
        })?;
        let next = tail.find(REF).unwrap_or(tail.len());
        parts.push(Part { kind, bbox, content: tail[..next].to_string() });
        rest = &tail[next..];
        n += 1;
    }
    Ok(parts)
}

/// The union of the boxes in a `<|det|>`'s `[[x1, y1, x2, y2], …]`; `None` unless it is
/// groups of four finite numbers.
fn boxes(det: &str) -> Option<BBox> {
    let mut nums = Vec::new();
    for tok in det.split(|c: char| matches!(c, '[' | ']' | ',') || c.is_whitespace()) {
        if tok.is_empty() {
            continue;
        }
        nums.push(tok.parse::<f32>().ok().filter(|x| x.is_finite())?);
    }
    if nums.is_empty() || nums.len() % 4 != 0 {
        return None;
    }
    nums.chunks(4).map(|c| BBox::new(c[0], c[1], c[2], c[3])).reduce(|a, b| a.union(&b))
}

/// Moves a table's HTML back from the caption the model wrote it after.
fn restore_tables(parts: &mut [Part]) {
    for i in 0..parts.len().saturating_sub(1) {
        if parts[i].kind != BlockKind::Table
            || !parts[i].content.trim().is_empty()
            || parts[i + 1].kind != BlockKind::Caption
        {
            continue;
        }
        let caption = &parts[i + 1].content;
        let lower = caption.to_ascii_lowercase();
        let Some(start) = lower.find("<table") else { continue };
        let end = lower.rfind("</table>").map_or(caption.len(), |e| e + "</table>".len());
        let table = caption[start..end].to_string();
        let rest = format!("{}{}", &caption[..start], &caption[end..]);
        parts[i].content = table;
        parts[i + 1].content = rest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Table;

    const PAGE: &str = "<|ref|>title<|/ref|><|det|>[[205, 132, 790, 157]]<|/det|>\n# Optical Compression of Pages  \n\n<|ref|>sub_title<|/ref|><|det|>[[115, 263, 300, 283]]<|/det|>\n## 1 Introduction  \n\n<|ref|>text<|/ref|><|det|>[[115, 306, 882, 365]]<|/det|>\nA page of \\(n\\) tokens is read in one pass.  \n\n<|ref|>equation<|/ref|><|det|>[[300, 370, 700, 400]]<|/det|>\n\\[ \\alpha = \\frac{1}{2} \\]\n\n<|ref|>table<|/ref|><|det|>[[167, 431, 828, 535]]<|/det|>\n<|ref|>table_caption<|/ref|><|det|>[[115, 400, 881, 420]]<|/det|>\nTable 1 | Modes.   \n\n<table><tr><td>Mode</td><td>Tokens</td></tr><tr><td>Tiny</td><td>64</td></tr></table>\n\n<|ref|>image<|/ref|><|det|>[[131, 620, 500, 840], [510, 620, 863, 850]]<|/det|>\n \n\n<|ref|>image_caption<|/ref|><|det|>[[115, 853, 883, 887]]<|/det|>\n<center>Figure 1: Results. </center>  \n\n<|ref|>footer<|/ref|><|det|>[[490, 960, 510, 975]]<|/det|>\n2<｜end▁of▁sentence｜>";

    fn b(kind: BlockKind, bbox: [f32; 4], text: &str) -> Block {
        Block::new(kind, 1, BBox::new(bbox[0], bbox[1], bbox[2], bbox[3]), text)
    }

    #[test]
    fn a_page_reads_into_exact_blocks() {
        let mut heading = b(BlockKind::Heading, [115.0, 263.0, 300.0, 283.0], "1 Introduction");
        heading.level = Some(1);
        let mut eq = b(BlockKind::Formula, [300.0, 370.0, 700.0, 400.0], "α = 1/2");
        eq.latex = Some("\\alpha = \\frac{1}{2}".into());
        let mut table = b(BlockKind::Table, [167.0, 431.0, 828.0, 535.0], "Mode Tokens\nTiny 64");
        table.table = Some(Table::from_rows(&[&["Mode", "Tokens"], &["Tiny", "64"]], 0));
        let want = vec![
            b(BlockKind::Title, [205.0, 132.0, 790.0, 157.0], "Optical Compression of Pages"),
            heading,
            b(
                BlockKind::Paragraph,
                [115.0, 306.0, 882.0, 365.0],
                "A page of n tokens is read in one pass.",
            ),
            eq,
            table,
            b(BlockKind::Caption, [115.0, 400.0, 881.0, 420.0], "Table 1 | Modes."),
            b(BlockKind::Figure, [131.0, 620.0, 863.0, 850.0], ""),
            b(BlockKind::Caption, [115.0, 853.0, 883.0, 887.0], "Figure 1: Results."),
            b(BlockKind::PageFooter, [490.0, 960.0, 510.0, 975.0], "2"),
        ];
        assert_eq!(read(PAGE, 1).unwrap(), want);
    }

    #[test]
    fn a_reply_cut_at_the_token_limit_keeps_its_complete_tags() {
        let cut = &PAGE[..PAGE.find("<|ref|>image<|").unwrap() + 40];
        let got = read(cut, 1).unwrap();
        assert_eq!(got.last().unwrap().kind, BlockKind::Caption);
        assert_eq!(got.len(), 6);
        // Cut inside the content of the last block: it keeps what it got.
        let cut = "<|ref|>text<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>\nThe first sente";
        assert_eq!(read(cut, 0).unwrap()[0].text, "The first sente");
        // Cut right after a label.
        let cut = "<|ref|>text<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>\nA.\n<|ref|>text<|/ref|><|de";
        assert_eq!(read(cut, 0).unwrap().len(), 1);
    }

    #[test]
    fn an_empty_page_is_empty() {
        assert_eq!(read("", 0).unwrap(), vec![]);
        assert_eq!(read("<｜end▁of▁sentence｜>", 0).unwrap(), vec![]);
    }

    #[test]
    fn boxes_outside_the_frame_pass_and_bad_boxes_are_dropped() {
        let r = "<|ref|>text<|/ref|><|det|>[[-5, 990, 1020, 1100]]<|/det|>\nOut.\n\
                 <|ref|>text<|/ref|><|det|>[[1, NaN, 3, 4]]<|/det|>\nNo box.\n\
                 <|ref|>text<|/ref|><|det|>[[1, 2, 3]]<|/det|>\nThree.\n\
                 <|ref|>text<|/ref|><|det|>[10, 20, 30, 40]<|/det|>\nSingle brackets.";
        let got = read(r, 0).unwrap();
        assert_eq!(got[0].bbox, BBox::new(-5.0, 990.0, 1020.0, 1100.0));
        assert_eq!((got[1].bbox, got[1].text.as_str()), (BBox::default(), "No box."));
        assert_eq!(got[2].bbox, BBox::default());
        assert_eq!(got[3].bbox, BBox::new(10.0, 20.0, 30.0, 40.0));
    }

    #[test]
    fn untagged_replies_are_markdown_and_unknown_labels_are_errors() {
        let got = read("# Title\n\nBody text.", 0).unwrap();
        assert_eq!(
            got.iter().map(|b| b.kind).collect::<Vec<_>>(),
            [BlockKind::Title, BlockKind::Paragraph]
        );
        assert!(got.iter().all(|b| b.bbox == BBox::default()));
        let got = read("Lead text.\n<|ref|>text<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>\nTagged.", 0)
            .unwrap();
        assert_eq!((got[0].text.as_str(), got[0].bbox), ("Lead text.", BBox::default()));
        assert_eq!(got[1].text, "Tagged.");
        // The answer to `<|grounding|>OCR this image.`: text where the label belongs.
        let e = read("<|ref|>Chapter One<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>", 0).unwrap_err();
        assert_eq!(e.format, Format::DeepseekGrounding);
        assert!(e.to_string().contains("\"Chapter One\""), "{e}");
    }

    #[test]
    fn text_holding_a_list_becomes_list_items() {
        let r = "<|ref|>text<|/ref|><|det|>[[115, 320, 880, 405]]<|/det|>\n- Matrices.\n- Inverses.\n\n\
                 <|ref|>header<|/ref|><|det|>[[40, 20, 960, 50]]<|/det|>Week 6";
        let got = read(r, 0).unwrap();
        let summary: Vec<(BlockKind, &str)> =
            got.iter().map(|b| (b.kind, b.text.as_str())).collect();
        assert_eq!(
            summary,
            [
                (BlockKind::ListItem, "Matrices."),
                (BlockKind::ListItem, "Inverses."),
                (BlockKind::PageHeader, "Week 6"),
            ]
        );
    }
}
