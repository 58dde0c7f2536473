//! Where a block of a provider without boxes (Markdown imports) is on its page: its text found
//! in the page's text layer (pdfium's glyphs, [`crate::providers::pdfium::extract`]).
//!
//! Both sides are compared as their letters and digits only, lowercased, so line breaks,
//! hyphenation marks, spaces and Markdown's emphasis do not matter. A block is found where its
//! whole text occurs after the previous block's match (reading order), else anywhere; failing
//! that, where its first and last 24 letters both occur, in that order, within twice its
//! length. Its box is then the union of the matched glyphs' boxes. Otherwise it stays
//! region-less. Blocks with a box of their own keep it.

use pdfium_render::prelude::PdfPage;

use crate::doc::{BBox, Block};
use crate::providers::pdfium::extract::page_glyphs;

/// The block's box is the provider's.
pub const PROVIDER: &str = "provider";
/// The block was placed by its text in the page's text layer.
pub const TEXT_LAYER: &str = "text-layer";
/// The block has no box: a region-less transcription.
pub const NONE: &str = "none";

/// Letters on each side of a long block matched on their own.
const END_LETTERS: usize = 24;

/// The box of each block (points) and where it came from.
pub(super) fn place(
    blocks: &[&Block],
    page: &PdfPage<'_>,
    index: i32,
) -> Vec<(Option<BBox>, &'static str)> {
    let has_box = |b: &Block| b.bbox.area() > 0.0;
    if blocks.iter().all(|b| has_box(b)) {
        return blocks.iter().map(|b| (Some(b.bbox), PROVIDER)).collect();
    }
    let glyphs = page_glyphs(page, index).glyphs;
    let mut layer: Vec<char> = Vec::new();
    let mut boxes: Vec<BBox> = Vec::new();
    for g in &glyphs {
        for c in g.ch.to_lowercase().filter(|c| c.is_alphanumeric()) {
            layer.push(c);
            boxes.push(g.bbox);
        }
    }
    let mut from = 0;
    blocks
        .iter()
        .map(|b| {
            if has_box(b) {
                return (Some(b.bbox), PROVIDER);
            }
            match find(&layer, &letters(&b.text), from) {
                Some((s, e)) => {
                    from = e;
                    let bbox = boxes[s..e].iter().skip(1).fold(boxes[s], |a, g| a.union(g));
                    (Some(bbox), TEXT_LAYER)
                }
                None => (None, NONE),
            }
        })
        .collect()
}

/// The text's letters and digits, lowercased.
pub(super) fn letters(s: &str) -> Vec<char> {
    s.chars().flat_map(char::to_lowercase).filter(|c| c.is_alphanumeric()).collect()
}

fn find_from(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

/// The range of `hay` that `needle` occupies (see the module docs).
pub(super) fn find(hay: &[char], needle: &[char], from: usize) -> Option<(usize, usize)> {
    if needle.len() < 2 {
        return None;
    }
    for start in [from.min(hay.len()), 0] {
        if let Some(i) = find_from(hay, needle, start) {
            return Some((i, i + needle.len()));
        }
    }
    if needle.len() <= 2 * END_LETTERS {
        return None;
    }
    let (head, tail) = (&needle[..END_LETTERS], &needle[needle.len() - END_LETTERS..]);
    for start in [from.min(hay.len()), 0] {
        let Some(i) = find_from(hay, head, start) else { continue };
        let limit = (i + 2 * needle.len()).min(hay.len());
        if let Some(j) = find_from(&hay[..limit], tail, i + END_LETTERS) {
            return Some((i, j + END_LETTERS));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_found_whole_in_order_or_by_its_ends() {
        let hay = letters("Title here. The quick brown fox jumps over the lazy dog. Title here.");
        // Whole, after the previous match.
        let t = letters("title here");
        assert_eq!(find(&hay, &t, 0), Some((0, 9)));
        assert_eq!(find(&hay, &t, 9), Some((44, 53)));
        // Markdown emphasis and line breaks do not matter.
        assert_eq!(find(&hay, &letters("*quick*\nbrown"), 0), Some((12, 22)));
        assert_eq!(find(&hay, &letters("nowhere at all"), 0), None);
        // A long block with a changed middle: found by its ends.
        let long = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi";
        let hay = letters(long);
        let edited = long.replace("theta", "THETA!!").replace("iota", "io-ta");
        assert_eq!(find(&hay, &letters(&edited), 0), Some((0, hay.len())));
        // A word changed between the first and the last END_LETTERS letters.
        let changed = long.replace("zeta", "zulu");
        assert_eq!(find(&hay, &letters(&changed), 0), Some((0, hay.len())));
    }
}
