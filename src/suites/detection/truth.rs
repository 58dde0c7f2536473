//! The detection suite's truths: boxes of OmniDocBench pages (`layout_dets`) and of Label
//! Studio tasks (read as OmniDocBench pages), ICDAR 2013 table regions, COCO files, ParseBench
//! layout elements and DoclingDocument items, each turned into the frame the suite scores in —
//! the points of the scored output's pages, top-left origin (`docs/detection.md` §4).

use crate::doc::Page;
use crate::error::Result;
use crate::formats::omnidocbench as odb;
use crate::formats::TruthFormat;
use crate::store::Store;
use crate::truth::TruthGroup;

/// One truth box, in the truth's own frame until [`RawTruth::place`] scales it.
#[derive(Debug, Clone, PartialEq)]
pub struct TruthBox {
    /// The page, 0-based.
    pub page: u32,
    /// Its label in the truth's vocabulary.
    pub label: String,
    /// `[x, y, w, h]`.
    pub bbox: [f64; 4],
    /// Its area as the truth states it (`w·h` where it states none).
    pub area: f64,
    /// A crowd region (COCO's `iscrowd`).
    pub crowd: bool,
    /// Its reading-order index, where the truth has one.
    pub order: Option<f64>,
}

/// How a page's truth boxes reach the output's points.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Frame {
    /// An image of this size, stretched onto the output's page.
    Image([f64; 2]),
    /// Pixels at this many dots per inch (OmniDocBench page truths of a PDF).
    Dpi(f64),
    /// PDF points with the origin at the bottom left (ICDAR 2013).
    PdfBottomLeft,
    /// Fractions of the page's width and height (ParseBench's page-normalised boxes).
    Unit,
    /// Points with a top-left origin, already the page's (a DoclingDocument without page
    /// sizes).
    Points,
}

/// A truth as read, before it meets an output's pages.
#[derive(Debug, Clone, PartialEq)]
pub struct RawTruth {
    /// The vocabulary of its labels (`classes/<vocabulary>.toml`).
    pub vocabulary: &'static str,
    /// The pages it covers, ascending; `None`: every page of the output.
    pages: Option<Vec<(u32, Frame)>>,
    /// Its boxes.
    pub boxes: Vec<TruthBox>,
}

/// The smallest `[x, y, w, h]` holding a polygon `[x1, y1, …]`.
fn poly_xywh(poly: &[f64]) -> Option<[f64; 4]> {
    let xs = poly.iter().step_by(2);
    let ys = poly.iter().skip(1).step_by(2);
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| (a.min(y), b.max(y)));
    (x0.is_finite() && y0.is_finite()).then_some([x0, y0, x1 - x0, y1 - y0])
}

fn odb_boxes(page: &odb::Page, index: u32, out: &mut Vec<TruthBox>) {
    for d in &page.layout_dets {
        let Some(bbox) = poly_xywh(&d.poly) else { continue };
        out.push(TruthBox {
            page: index,
            label: d.category_type.clone(),
            bbox,
            area: bbox[2] * bbox[3],
            crowd: false,
            order: d.order,
        });
    }
}

/// Reads a truth's parts; the inner error says why it cannot be read.
pub fn read(store: &Store, t: &TruthGroup) -> Result<std::result::Result<RawTruth, String>> {
    let mut parts = Vec::new();
    for p in &t.parts {
        match store.blob(&p.blob)? {
            Some(b) => parts.push((p.part.clone(), b)),
            None => return Ok(Err(format!("truth blob {} missing from the store", p.blob))),
        }
    }
    Ok(read_parts(t.format, &parts))
}

/// [`read`] of parts already loaded.
pub fn read_parts(
    format: TruthFormat,
    parts: &[(String, Vec<u8>)],
) -> std::result::Result<RawTruth, String> {
    let part = |n: &str| parts.iter().find(|(p, _)| p == n).map(|(_, b)| b.as_slice());
    match format {
        TruthFormat::OmniDocBench | TruthFormat::LabelStudio => {
            let mut boxes = Vec::new();
            let mut pages = Vec::new();
            for (name, bytes) in parts {
                let page = match format {
                    TruthFormat::LabelStudio => crate::formats::label_studio::read_page(bytes),
                    _ => odb::read_page(bytes),
                }
                .map_err(|e| format!("part {name:?}: {e}"))?;
                let (index, frame) = match (&page.page_info.corpus_source, name.is_empty()) {
                    (Some(src), _) => (src.page.saturating_sub(1), Frame::Dpi(src.dpi)),
                    (None, true) => match (page.page_info.width, page.page_info.height) {
                        (Some(w), Some(h)) if w > 0.0 && h > 0.0 => (0, Frame::Image([w, h])),
                        _ => return Err("page_info has no width and height".into()),
                    },
                    (None, false) => {
                        return Err(format!("part {name}: a page truth without corpus_source"))
                    }
                };
                odb_boxes(&page, index, &mut boxes);
                pages.push((index, frame));
            }
            pages.sort_by_key(|p| p.0);
            Ok(RawTruth { vocabulary: "omnidocbench", pages: Some(pages), boxes })
        }
        TruthFormat::Icdar2013 => {
            let (Some(reg), Some(st)) = (part("reg"), part("str")) else {
                return Err("needs both the reg and the str part".into());
            };
            let t = crate::formats::icdar2013::read_truth(reg, st).map_err(|e| e.to_string())?;
            // Kept bottom-left until the page height is known ([`RawTruth::place`]).
            let boxes = t
                .regions
                .iter()
                .map(|r| {
                    let [x0, y0, x1, y1] = r.to_top_left(0.0);
                    let (w, h) = (x1 - x0, (y1 - y0).abs());
                    TruthBox {
                        page: r.page,
                        label: "table".into(),
                        bbox: [x0, y0.min(y1), w, h],
                        area: w * h,
                        crowd: false,
                        order: None,
                    }
                })
                .collect();
            Ok(RawTruth { vocabulary: "icdar2013", pages: None, boxes })
        }
        TruthFormat::Coco => {
            let b = part("").ok_or("no truth file")?;
            let t = crate::formats::coco::read(b).map_err(|e| e.to_string())?;
            let maps = crate::formats::classes::ClassMaps::builtin();
            let names: Vec<&str> = t.categories.iter().map(String::as_str).collect();
            let vocabulary = match maps.vocabulary_of(&names) {
                Some(v) => leak_name(&v.vocabulary),
                None => "coco",
            };
            let mut pages: Vec<(u32, Frame)> =
                t.images.iter().map(|i| (i.page, Frame::Image(i.size))).collect();
            pages.sort_by_key(|p| p.0);
            let boxes = t
                .images
                .iter()
                .flat_map(|i| {
                    i.boxes.iter().map(|b| TruthBox {
                        page: i.page,
                        label: b.category.clone(),
                        bbox: b.bbox,
                        area: b.area,
                        crowd: b.crowd,
                        order: None,
                    })
                })
                .collect();
            Ok(RawTruth { vocabulary, pages: Some(pages), boxes })
        }
        TruthFormat::ParseBench => parsebench(part("layout")),
        TruthFormat::Docling => {
            let b = part("").ok_or("no truth file")?;
            let doc = crate::formats::docling::read_docling(b).map_err(|e| e.to_string())?.doc;
            Ok(docling(&doc))
        }
        other => Err(format!("the detection suite does not read {} truths", other.as_str())),
    }
}

/// Whether a ParseBench truth has a `layout` part (its other cases have no boxes).
pub fn has_layout_part(t: &TruthGroup) -> bool {
    t.parts.iter().any(|p| p.part == "layout")
}

/// A ParseBench truth's `layout` elements: boxes in fractions of their page, the pages that
/// have elements scored; an element marked `ignore` is a crowd region (a detection on it
/// neither counts nor costs, as the evaluator drops the element).
fn parsebench(rules: Option<&[u8]>) -> std::result::Result<RawTruth, String> {
    use crate::metrics::parsebench::layout::Element;
    let rules = rules.ok_or("no layout elements (the truth has no `layout` part)")?;
    let rules = crate::formats::parsebench::read_part(rules).map_err(|e| e.to_string())?;
    let mut boxes = Vec::new();
    for (k, r) in rules.iter().enumerate().filter(|(_, r)| r.kind == "layout") {
        let name = || r.id.clone().unwrap_or_else(|| format!("#{}", k + 1));
        let e =
            Element::from_fields(&r.fields).map_err(|e| format!("layout rule {}: {e}", name()))?;
        if e.page < 1 {
            return Err(format!("layout rule {}: page {} (pages count from 1)", name(), e.page));
        }
        let [x, y, w, h] = e.bbox;
        if !(w >= 0.0 && h >= 0.0) {
            return Err(format!("layout rule {}: a box of negative size {:?}", name(), e.bbox));
        }
        boxes.push(TruthBox {
            page: e.page as u32 - 1,
            label: e.class.clone(),
            bbox: [x, y, w, h],
            area: w * h,
            crowd: e.ignored,
            order: e.ro_index.map(|o| o as f64),
        });
    }
    if boxes.is_empty() {
        return Err("no layout elements".into());
    }
    let mut pages: Vec<(u32, Frame)> = boxes.iter().map(|b| (b.page, Frame::Unit)).collect();
    pages.sort_by_key(|p| p.0);
    pages.dedup_by_key(|p| p.0);
    Ok(RawTruth { vocabulary: "parsebench", pages: Some(pages), boxes })
}

/// A DoclingDocument truth as the Docling reader reads it: each block with a box, labelled in
/// Docling's vocabulary (a block with no label, an `inline` group, is a `text`), in points of
/// Docling's page sizes, which are stretched onto the output's pages; every page Docling lists
/// is scored. The reading order is the reader's block order.
fn docling(doc: &crate::doc::Doc) -> RawTruth {
    let mut boxes = Vec::new();
    for b in &doc.blocks {
        let (w, h) = (f64::from(b.bbox.width()), f64::from(b.bbox.height()));
        if !(w > 0.0 && h > 0.0) {
            continue;
        }
        let label = b.label.as_deref().and_then(|l| l.strip_prefix("docling:")).unwrap_or("text");
        boxes.push(TruthBox {
            page: b.page,
            label: label.to_string(),
            bbox: [f64::from(b.bbox.x0), f64::from(b.bbox.y0), w, h],
            area: w * h,
            crowd: false,
            order: Some(boxes.len() as f64),
        });
    }
    let mut pages: Vec<(u32, Frame)> = doc
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| p.width > 0.0 && p.height > 0.0)
        .map(|(i, p)| (i as u32, Frame::Image([f64::from(p.width), f64::from(p.height)])))
        .collect();
    for b in &boxes {
        if !pages.iter().any(|p| p.0 == b.page) {
            pages.push((b.page, Frame::Points));
        }
    }
    pages.sort_by_key(|p| p.0);
    RawTruth { vocabulary: "docling", pages: Some(pages), boxes }
}

/// A vocabulary's name as a `'static` str (the maps are static).
fn leak_name(name: &str) -> &'static str {
    crate::formats::classes::ClassMaps::builtin()
        .vocabularies
        .iter()
        .find(|v| v.vocabulary == name)
        .map(|v| v.vocabulary.as_str())
        .unwrap_or("coco")
}

impl RawTruth {
    /// The pages scored and the boxes in the output's points (`pages`: the output's page
    /// sizes); an error names a page the output does not have.
    pub fn place(&self, pages: &[Page]) -> std::result::Result<(Vec<u32>, Vec<TruthBox>), String> {
        let size = |p: u32| -> std::result::Result<[f64; 2], String> {
            pages
                .get(p as usize)
                .map(|s| [f64::from(s.width), f64::from(s.height)])
                .filter(|s| s[0] > 0.0 && s[1] > 0.0)
                .ok_or_else(|| {
                    format!("the truth has page {}, the output {} page size(s)", p + 1, pages.len())
                })
        };
        let frames: Vec<(u32, Frame)> = match &self.pages {
            Some(f) => f.clone(),
            None => (0..pages.len() as u32).map(|p| (p, Frame::PdfBottomLeft)).collect(),
        };
        let mut out = Vec::with_capacity(self.boxes.len());
        for b in &self.boxes {
            let frame = match frames.iter().find(|f| f.0 == b.page) {
                Some(f) => f.1,
                None if self.pages.is_none() => Frame::PdfBottomLeft,
                None => continue,
            };
            let [pw, ph] = size(b.page)?;
            let [x, y, w, h] = b.bbox;
            let mut n = b.clone();
            match frame {
                Frame::Image([iw, ih]) => {
                    let (sx, sy) = (pw / iw, ph / ih);
                    n.bbox = [x * sx, y * sy, w * sx, h * sy];
                    n.area = b.area * sx * sy;
                }
                Frame::Dpi(dpi) => {
                    let k = 72.0 / dpi;
                    n.bbox = [x * k, y * k, w * k, h * k];
                    n.area = b.area * k * k;
                }
                // `y` is the region's top edge measured from the bottom (negated by
                // `to_top_left(0)`): from the top it is the page height less it.
                Frame::PdfBottomLeft => n.bbox = [x, ph + y, w, h],
                Frame::Unit => {
                    n.bbox = [x * pw, y * ph, w * pw, h * ph];
                    n.area = b.area * pw * ph;
                }
                Frame::Points => {}
            }
            out.push(n);
        }
        for f in &frames {
            size(f.0)?;
        }
        Ok((frames.iter().map(|f| f.0).collect(), out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_are_scaled_to_the_output_page() {
        let coco = br#"{"images": [{"id": 1, "file_name": "a_2.png", "width": 200, "height": 100}],
            "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [20, 10, 40, 30]}],
            "categories": [{"id": 1, "name": "Table"}]}"#;
        let t = read_parts(TruthFormat::Coco, &[(String::new(), coco.to_vec())]).unwrap();
        assert_eq!(t.vocabulary, "doclaynet");
        let pages = vec![Page { width: 100.0, height: 50.0 }; 2];
        let (scored, boxes) = t.place(&pages).unwrap();
        assert_eq!(scored, [1]);
        assert_eq!(boxes[0].bbox, [10.0, 5.0, 20.0, 15.0]);
        assert_eq!(boxes[0].area, 300.0);
        let e = t.place(&pages[..1]).unwrap_err();
        assert!(e.contains("page 2"), "{e}");
    }

    #[test]
    fn parsebench_elements_are_fractions_of_their_page() {
        let rules = concat!(
            r#"{"pdf": "a.pdf", "page": 2, "type": "layout", "id": "t", "rule": {"bbox": [0.1, 0.25, 0.5, 0.5], "canonical_class": "Table", "ro_index": 1}}"#,
            "\n",
            r#"{"pdf": "a.pdf", "page": 2, "type": "layout", "id": "s", "rule": {"bbox": [0, 0, 1, 0.1], "canonical_class": "Page-header", "attributes": {"ignore": "yes"}}}"#,
            "\n"
        );
        let parts = [("layout".to_string(), rules.as_bytes().to_vec())];
        let t = read_parts(TruthFormat::ParseBench, &parts).unwrap();
        assert_eq!(t.vocabulary, "parsebench");
        let pages = vec![Page { width: 600.0, height: 800.0 }; 2];
        let (scored, boxes) = t.place(&pages).unwrap();
        assert_eq!(scored, [1], "only the page with elements");
        assert_eq!(boxes[0].bbox, [60.0, 200.0, 300.0, 400.0]);
        assert_eq!(boxes[0].area, 120_000.0);
        assert_eq!((boxes[0].label.as_str(), boxes[0].order), ("Table", Some(1.0)));
        assert!(boxes[1].crowd && !boxes[0].crowd, "an ignored element is a crowd region");
        let bad = r#"{"pdf": "a.pdf", "page": 0, "type": "layout", "id": "z", "rule": {"bbox": [0, 0, 1, 1], "canonical_class": "Text"}}"#;
        let e = read_parts(TruthFormat::ParseBench, &[("layout".into(), bad.into())]).unwrap_err();
        assert!(e.contains("line 1") && e.contains("field page"), "{e}");
        let e = read_parts(TruthFormat::ParseBench, &[("text".into(), b"".to_vec())]).unwrap_err();
        assert!(e.contains("no layout"), "{e}");
    }

    #[test]
    fn docling_items_keep_their_labels_and_points() {
        let json = br##"{"schema_name": "DoclingDocument", "body": {"children": [
                {"$ref": "#/texts/0"}, {"$ref": "#/pictures/0"}]},
            "texts": [{"self_ref": "#/texts/0", "label": "section_header", "text": "Intro",
                "prov": [{"page_no": 1, "bbox": {"l": 10, "t": 780, "r": 110, "b": 760,
                          "coord_origin": "BOTTOMLEFT"}}]}],
            "pictures": [{"self_ref": "#/pictures/0", "label": "chart",
                "prov": [{"page_no": 1, "bbox": {"l": 0, "t": 100, "r": 300, "b": 400,
                          "coord_origin": "TOPLEFT"}}]}],
            "pages": {"1": {"page_no": 1, "size": {"width": 300, "height": 800}}}}"##;
        let t = read_parts(TruthFormat::Docling, &[(String::new(), json.to_vec())]).unwrap();
        assert_eq!(t.vocabulary, "docling");
        // The output's page is twice Docling's: the boxes are stretched onto it.
        let (scored, boxes) = t.place(&[Page { width: 600.0, height: 1600.0 }]).unwrap();
        assert_eq!(scored, [0]);
        let got: Vec<(&str, [f64; 4])> = boxes.iter().map(|b| (b.label.as_str(), b.bbox)).collect();
        assert_eq!(
            got,
            [("section_header", [20.0, 40.0, 200.0, 40.0]), ("chart", [0.0, 200.0, 600.0, 600.0])]
        );
    }

    #[test]
    fn icdar_regions_turn_top_left() {
        let reg = br#"<document filename="x.pdf"><table id="1"><region id="1" page="1">
            <bounding-box x1="100" y1="600" x2="300" y2="700"/></region></table></document>"#;
        let st = br#"<document filename="x.pdf"><table id="1"><region id="1" col-increment="0" row-increment="0">
            <cell id="1" start-row="0" start-col="0"><bounding-box x1="100" y1="600" x2="300" y2="700"/><content>a</content></cell>
            </region></table></document>"#;
        let parts = [("reg".to_string(), reg.to_vec()), ("str".to_string(), st.to_vec())];
        let t = read_parts(TruthFormat::Icdar2013, &parts).unwrap();
        let pages = vec![Page { width: 612.0, height: 792.0 }; 2];
        let (scored, boxes) = t.place(&pages).unwrap();
        assert_eq!(scored, [0, 1]);
        assert_eq!(boxes[0].bbox, [100.0, 92.0, 200.0, 100.0]);
    }
}
