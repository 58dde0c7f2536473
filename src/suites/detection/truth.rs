//! The detection suite's truths: boxes of OmniDocBench pages (`layout_dets`), ICDAR 2013 table
//! regions and COCO files, each turned into the frame the suite scores in — the points of the
//! scored output's pages, top-left origin (`docs/detection.md` §4).

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
        TruthFormat::OmniDocBench => {
            let mut boxes = Vec::new();
            let mut pages = Vec::new();
            for (name, bytes) in parts {
                let page = odb::read_page(bytes).map_err(|e| format!("part {name:?}: {e}"))?;
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
        other => Err(format!("the detection suite does not read {} truths", other.as_str())),
    }
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
