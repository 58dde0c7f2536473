//! The `truth` provider's rendering of a COCO truth ([`coco_doc`]).

use serde_json::json;

use crate::doc::{BBox, Block, BlockKind, Doc, Page};

/// A COCO truth as a Doc of the PDF's pages: one block per box, scaled from its image's
/// pixels to the page's points, labelled `vocabulary:category` (the vocabulary whose labels
/// hold the file's categories, `classes/`), its kind the vocabulary's `[kind]` (a paragraph
/// where it names none), in the file's order per page.
pub(crate) fn coco_doc(bytes: &[u8], sizes: Vec<Page>) -> std::result::Result<Doc, String> {
    let t = crate::formats::coco::read(bytes).map_err(|e| e.to_string())?;
    let maps = crate::formats::classes::ClassMaps::builtin();
    let names: Vec<&str> = t.categories.iter().map(String::as_str).collect();
    let vocab = maps.vocabulary_of(&names);
    let mut images: Vec<&crate::formats::coco::CocoImage> = t.images.iter().collect();
    images.sort_by_key(|i| i.page);
    let mut blocks = Vec::new();
    for im in images {
        let Some(size) = sizes.get(im.page as usize) else {
            return Err(format!(
                "image {} is page {}, the PDF has {}",
                im.id,
                im.page + 1,
                sizes.len()
            ));
        };
        let (sx, sy) = (f64::from(size.width) / im.size[0], f64::from(size.height) / im.size[1]);
        for b in &im.boxes {
            let [x, y, w, h] = b.bbox;
            let bbox = BBox::new(
                (x * sx) as f32,
                (y * sy) as f32,
                ((x + w) * sx) as f32,
                ((y + h) * sy) as f32,
            );
            let kind = vocab
                .and_then(|v| v.kind.get(&b.category))
                .and_then(|k| serde_json::from_value(json!(k)).ok())
                .unwrap_or(BlockKind::Paragraph);
            let mut block = Block::new(kind, im.page, bbox, "");
            let v = vocab.map(|v| v.vocabulary.as_str()).unwrap_or("coco");
            block.label = Some(format!("{v}:{}", b.category));
            blocks.push(block);
        }
    }
    Ok(Doc { pages: sizes, blocks, markdown: None, meta: None })
}
