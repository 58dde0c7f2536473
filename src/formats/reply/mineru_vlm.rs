//! MinerU2.5's layout reply (its first stage, prompt `\nLayout Detection:`) into regions.
//!
//! **The format.** One region per line, in reading order:
//! `<|box_start|>x1 y1 x2 y2<|box_end|><|ref_start|>type<|ref_end|><|rotate_up|>`, the
//! coordinates integers and the rotation one of `<|rotate_up|>`, `<|rotate_right|>`,
//! `<|rotate_down|>`, `<|rotate_left|>` (0, 90, 180, 270 degrees: how far the region's crop
//! must turn to read). As read by `mineru_vl_utils/mineru_client.py`
//! (opendatalab/mineru-vl-utils: `_layout_re`, `_convert_bbox`, `ANGLE_MAPPING`).
//!
//! **Types**, MinerU's fixed list (`BLOCK_TYPES` in `mineru_vl_utils/structs.py`), matched
//! ignoring ASCII case as MinerU lowercases them: `text`, `aside_text`, `phonetic`, `unknown`
//! → paragraph; `title` (a section title) → heading; `list` → list item; `table` → table;
//! `image` → figure; `equation`, `equation_block` → formula; `code`, `algorithm` → code;
//! `table_caption`, `image_caption`, `code_caption`, `table_footnote`, `image_footnote` →
//! caption; `header` → page header; `footer`, `page_number` → page footer; `page_footnote` →
//! footnote; `ref_text` → reference. Any other type is a [`FormatError`] naming it. The
//! region's `label` is the type as MinerU writes it.
//!
//! `list` and `equation_block` are containers: the lines and equations inside them come as
//! regions of their own, and MinerU reads neither (nor `image`) in its second stage
//! (`is_container`; `skip_list` in `prepare_for_extract`).
//!
//! **Boxes** are `0..=1000` on each axis of the page image (MinerU resizes it to 1036 × 1036
//! for this stage and divides by 1000), left unscaled ([`super::BoxFrame::Normalized`]`(1000.0)`).
//! Boxes outside `0..=1000` pass through (the caller clips them; MinerU drops them); a region
//! whose coordinates are not four finite numbers, or whose box has no width or height, is
//! skipped, as MinerU skips it.
//!
//! **Failures.** A reply cut at the token limit keeps every region whose type was closed
//! (`<|ref_end|>`); a region without its rotation token is kept with no rotation. An empty
//! reply is a page without regions. A reply with text but no `<|box_start|>` is not this
//! format: an error. Text between regions is ignored.

use super::super::{Format, FormatError};
use super::Region;
use crate::doc::{BBox, BlockKind};

/// The format this file reads.
const FORMAT: Format = Format::MinerULayout;

const BOX: &str = "<|box_start|>";
const BOX_END: &str = "<|box_end|>";
const REF: &str = "<|ref_start|>";
const REF_END: &str = "<|ref_end|>";

/// The rotation tokens and their angles in degrees.
const ANGLES: [(&str, u16); 4] = [
    ("<|rotate_up|>", 0),
    ("<|rotate_right|>", 90),
    ("<|rotate_down|>", 180),
    ("<|rotate_left|>", 270),
];

/// MinerU2.5's block types and their kinds.
const TYPES: [(&str, BlockKind); 22] = [
    ("text", BlockKind::Paragraph),
    ("title", BlockKind::Heading),
    ("table", BlockKind::Table),
    ("image", BlockKind::Figure),
    ("code", BlockKind::Code),
    ("algorithm", BlockKind::Code),
    ("header", BlockKind::PageHeader),
    ("footer", BlockKind::PageFooter),
    ("page_number", BlockKind::PageFooter),
    ("page_footnote", BlockKind::Footnote),
    ("aside_text", BlockKind::Paragraph),
    ("equation", BlockKind::Formula),
    ("equation_block", BlockKind::Formula),
    ("ref_text", BlockKind::Reference),
    ("list", BlockKind::ListItem),
    ("phonetic", BlockKind::Paragraph),
    ("table_caption", BlockKind::Caption),
    ("image_caption", BlockKind::Caption),
    ("code_caption", BlockKind::Caption),
    ("table_footnote", BlockKind::Caption),
    ("image_footnote", BlockKind::Caption),
    ("unknown", BlockKind::Paragraph),
];

/// Whether a region of this MinerU type only holds other regions (`list`, `equation_block`)
/// or is a picture (`image`): MinerU's second stage reads none of them.
pub(crate) fn is_container(label: &str) -> bool {
    matches!(label.to_ascii_lowercase().as_str(), "list" | "equation_block" | "image")
}

/// Reads MinerU2.5's layout reply: regions in reading order, boxes in the 0–1000 frame.
pub(crate) fn read_layout(text: &str) -> Result<Vec<Region>, FormatError> {
    Ok(read_layout_rotated(text)?.into_iter().map(|(r, _)| r).collect())
}

/// [`read_layout`] with each region's rotation in degrees (0, 90, 180 or 270; `None` where
/// the reply gives none).
pub(crate) fn read_layout_rotated(text: &str) -> Result<Vec<(Region, Option<u16>)>, FormatError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let Some(first) = text.find(BOX) else {
        return Err(FormatError::new(
            FORMAT,
            "expected MinerU2.5 layout lines (<|box_start|>x1 y1 x2 y2<|box_end|>\
             <|ref_start|>type<|ref_end|><|rotate_up|>)",
        ));
    };
    let mut out = Vec::new();
    let mut rest = &text[first..];
    let mut n = 0;
    while let Some(after_box) = rest.strip_prefix(BOX) {
        // Each part stops where the reply stops: a region cut short ends the reading.
        let Some(end) = after_box.find(BOX_END) else { break };
        let coords = &after_box[..end];
        let tail = after_box[end + BOX_END.len()..].trim_start();
        let Some(after_ref) = tail.strip_prefix(REF) else {
            if REF.starts_with(tail) {
                break;
            }
            // A box without a type: nothing to read it as.
            let next = tail.find(BOX).unwrap_or(tail.len());
            rest = &tail[next..];
            n += 1;
            continue;
        };
        let Some(ref_end) = after_ref.find(REF_END) else { break };
        let label = after_ref[..ref_end].trim();
        let after = &after_ref[ref_end + REF_END.len()..];
        let next = after.find(BOX).unwrap_or(after.len());
        let angle = ANGLES.iter().find(|(t, _)| after[..next].contains(t)).map(|(_, a)| *a);
        rest = &after[next..];
        let lower = label.to_ascii_lowercase();
        let kind = TYPES.iter().find(|(t, _)| *t == lower).map(|(_, k)| *k).ok_or_else(|| {
            FormatError::new(
                FORMAT,
                format!(
                    "unknown block type {label:?} (MinerU2.5's are text, title, table, image, \
                     code, algorithm, header, footer, page_number, page_footnote, aside_text, \
                     equation, equation_block, ref_text, list, phonetic, table_caption, \
                     image_caption, code_caption, table_footnote, image_footnote, unknown)"
                ),
            )
            .at(format!("region {n}"))
        })?;
        n += 1;
        let Some(bbox) = bbox_of(coords) else { continue };
        out.push((Region { bbox, kind, label: label.to_string() }, angle));
    }
    Ok(out)
}

/// A box from `x1 y1 x2 y2`: four finite numbers spanning some width and height, else none.
fn bbox_of(coords: &str) -> Option<BBox> {
    let nums: Vec<f32> = coords
        .split_whitespace()
        .map(|t| t.parse::<f32>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()?;
    if nums.len() != 4 || nums[0] == nums[2] || nums[1] == nums[3] {
        return None;
    }
    Some(BBox::new(nums[0], nums[1], nums[2], nums[3]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str =
        "<|box_start|>088 062 912 098<|box_end|><|ref_start|>title<|ref_end|><|rotate_up|>\n\
<|box_start|>088 110 912 300<|box_end|><|ref_start|>text<|ref_end|><|rotate_up|>\n\
<|box_start|>300 310 700 350<|box_end|><|ref_start|>equation<|ref_end|><|rotate_up|>\n\
<|box_start|>088 380 912 402<|box_end|><|ref_start|>table_caption<|ref_end|><|rotate_up|>\n\
<|box_start|>088 405 912 700<|box_end|><|ref_start|>table<|ref_end|><|rotate_up|>\n\
<|box_start|>020 300 050 700<|box_end|><|ref_start|>aside_text<|ref_end|><|rotate_left|>\n\
<|box_start|>480 950 520 970<|box_end|><|ref_start|>page_number<|ref_end|><|rotate_up|>";

    fn region(bbox: [f32; 4], kind: BlockKind, label: &str) -> Region {
        Region { bbox: BBox::new(bbox[0], bbox[1], bbox[2], bbox[3]), kind, label: label.into() }
    }

    #[test]
    fn a_page_reads_into_exact_regions() {
        let want = vec![
            region([88.0, 62.0, 912.0, 98.0], BlockKind::Heading, "title"),
            region([88.0, 110.0, 912.0, 300.0], BlockKind::Paragraph, "text"),
            region([300.0, 310.0, 700.0, 350.0], BlockKind::Formula, "equation"),
            region([88.0, 380.0, 912.0, 402.0], BlockKind::Caption, "table_caption"),
            region([88.0, 405.0, 912.0, 700.0], BlockKind::Table, "table"),
            region([20.0, 300.0, 50.0, 700.0], BlockKind::Paragraph, "aside_text"),
            region([480.0, 950.0, 520.0, 970.0], BlockKind::PageFooter, "page_number"),
        ];
        assert_eq!(read_layout(PAGE).unwrap(), want);
        let angles: Vec<Option<u16>> =
            read_layout_rotated(PAGE).unwrap().into_iter().map(|(_, a)| a).collect();
        assert_eq!(angles, [Some(0), Some(0), Some(0), Some(0), Some(0), Some(270), Some(0)]);
    }

    #[test]
    fn a_reply_cut_at_the_token_limit_keeps_its_complete_regions() {
        let cut = &PAGE[..PAGE.find("table<|ref_end|>").unwrap() + 3];
        let got = read_layout(cut).unwrap();
        assert_eq!(got.len(), 4);
        // Cut before the rotation: the region stays, with no rotation.
        let cut = &PAGE[..PAGE.find("<|rotate_left|>").unwrap()];
        let got = read_layout_rotated(cut).unwrap();
        assert_eq!(got.len(), 6);
        assert_eq!(got[5].1, None);
        // Cut inside the coordinates or right after the box.
        assert_eq!(read_layout("<|box_start|>100 200 3").unwrap(), vec![]);
        assert_eq!(read_layout("<|box_start|>1 2 3 4<|box_end|><|ref_st").unwrap(), vec![]);
    }

    #[test]
    fn an_empty_page_has_no_regions() {
        assert_eq!(read_layout("").unwrap(), vec![]);
        assert_eq!(read_layout("\n").unwrap(), vec![]);
    }

    #[test]
    fn boxes_outside_the_frame_pass_and_bad_ones_are_skipped() {
        let r = "<|box_start|>-5 990 1010 1020<|box_end|><|ref_start|>footer<|ref_end|><|rotate_up|>\n\
                 <|box_start|>1 2 x 4<|box_end|><|ref_start|>text<|ref_end|><|rotate_up|>\n\
                 <|box_start|>1 2 1 4<|box_end|><|ref_start|>text<|ref_end|><|rotate_up|>\n\
                 <|box_start|>1 2 3 NaN<|box_end|><|ref_start|>text<|ref_end|><|rotate_up|>\n\
                 <|box_start|>100 200 300 400<|box_end|><|ref_start|>Image<|ref_end|><|rotate_down|>";
        let got = read_layout_rotated(r).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.bbox, BBox::new(-5.0, 990.0, 1010.0, 1020.0));
        assert_eq!(
            (got[1].0.kind, got[1].0.label.as_str(), got[1].1),
            (BlockKind::Figure, "Image", Some(180))
        );
    }

    #[test]
    fn garbage_and_unknown_types_are_errors() {
        let e = read_layout("# A page\n\nSome Markdown instead of a layout.").unwrap_err();
        assert_eq!(e.format, Format::MinerULayout);
        assert!(e.to_string().contains("<|box_start|>"), "{e}");
        let e = read_layout("<|box_start|>1 2 3 4<|box_end|><|ref_start|>sidebar<|ref_end|>")
            .unwrap_err();
        assert!(e.to_string().contains("\"sidebar\""), "{e}");
        assert_eq!(e.at.as_deref(), Some("region 0"));
    }

    #[test]
    fn containers_are_named() {
        assert!(is_container("list") && is_container("equation_block") && is_container("image"));
        assert!(!is_container("equation") && !is_container("text"));
    }
}
