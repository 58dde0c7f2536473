//! Plain text (`pdftotext` and the like): paragraphs split on blank lines, pages on form
//! feeds.

use crate::doc::{BBox, Block, BlockKind, Doc};

/// Plain text into paragraphs (split on blank lines), pages split on form feeds.
pub fn read_text(text: &str, first_page: u32) -> Doc {
    let mut blocks = Vec::new();
    for (i, page) in text.split('\u{c}').enumerate() {
        for para in page.split("\n\n") {
            let t = crate::normalize::collapse_ws(para);
            if !t.is_empty() {
                let p = first_page + i as u32;
                blocks.push(Block::new(BlockKind::Paragraph, p, BBox::default(), t));
            }
        }
    }
    Doc { pages: Vec::new(), blocks, markdown: None, meta: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_splits_paragraphs_and_pages() {
        let d = read_text("One\nline.\n\nTwo.\u{c}Three.\n", 0);
        let got: Vec<(u32, &str)> = d.blocks.iter().map(|b| (b.page, b.text.as_str())).collect();
        assert_eq!(got, [(0, "One line."), (0, "Two."), (1, "Three.")]);
    }
}
