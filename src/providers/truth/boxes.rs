//! The `truth` provider's renderings of truths whose boxes the detection suite scores besides
//! their text: ParseBench's layout elements and DoclingDocument truths.

use crate::doc::{BBox, Block, Doc, Page};

/// A Docling truth as the Docling reader reads it, boxes and labels (`docling:<label>`) kept
/// for the detection suite; the paper suite reads it as it reads any output
/// ([`crate::paper::from_doc`]), which is the truth's own reading.
pub(crate) fn docling_doc(bytes: &[u8]) -> std::result::Result<Doc, String> {
    crate::formats::docling::read_docling(bytes).map(|f| f.doc).map_err(|e| e.to_string())
}

/// A ParseBench truth's expected Markdown as a Doc: read as an imported Markdown output is,
/// the Markdown kept verbatim (what the parsebench suite scores).
pub(crate) fn parsebench_doc(md: &[u8]) -> std::result::Result<Doc, String> {
    crate::formats::ImportFormat::Markdown.read(md, 0).map(|p| p.doc).map_err(|e| e.to_string())
}

/// A ParseBench truth's `layout` elements (not ignored) as blocks of the Doc: each box scaled
/// by its page's size, its content's text (a table's cell text) as the block's text, each
/// class as the block kind it is read back as
/// ([`crate::metrics::parsebench::layout::block_kind_of`]) and labelled `parsebench:<class>` for
/// the detection suite; the Doc's pages are the PDF's.
pub(crate) fn parsebench_layout(doc: &mut Doc, rules: &[u8], sizes: Vec<Page>) {
    use crate::metrics::parsebench::layout::{block_kind_of, Element};
    let Ok(rules) = crate::formats::parsebench::read_part(rules) else { return };
    for r in rules.iter().filter(|r| r.kind == "layout") {
        let Ok(e) = Element::from_fields(&r.fields) else { continue };
        let (Some(kind), Some(page)) =
            (block_kind_of(&e.class), (e.page as usize).checked_sub(1).and_then(|i| sizes.get(i)))
        else {
            continue;
        };
        if e.ignored {
            continue;
        }
        let [x0, y0, x1, y1] = e.xyxy();
        let (w, h) = (f64::from(page.width), f64::from(page.height));
        let bbox = BBox::new((x0 * w) as f32, (y0 * h) as f32, (x1 * w) as f32, (y1 * h) as f32);
        let text = e.content.clone().unwrap_or_default();
        let mut b = Block::new(kind, e.page as u32 - 1, bbox, text);
        b.label = Some(format!("parsebench:{}", e.class));
        doc.blocks.push(b);
    }
    doc.pages = sizes;
}
