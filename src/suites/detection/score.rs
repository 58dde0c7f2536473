//! One document's detection scoring, and the pooling of page sets (pure: no store).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::truth::RawTruth;
use crate::doc::Doc;
use crate::formats::classes::{kind_label, ClassMaps, Mapped};
use crate::metrics::coco::{self, DtBox, GtBox, Images, Params, Summary};

/// One page as scored: its truth boxes and detections in the taxonomy's category ids, in
/// points of the output's page, and which ones matched at IoU 0.5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetPage {
    /// The page, 0-based.
    pub page: u32,
    /// The page's size in points.
    pub size: [f64; 2],
    /// Truth boxes: `[category, x, y, w, h, area, crowd (0/1)]`.
    pub gts: Vec<[f64; 7]>,
    /// Detections: `[category, x, y, w, h, score]`, in the output's block order.
    pub dts: Vec<[f64; 6]>,
    /// Matches at IoU 0.50 (area all, 100 detections): `[truth, detection, IoU]`.
    pub tp: Vec<(usize, usize, f64)>,
    /// Detections that matched nothing (false positives).
    pub fp: Vec<usize>,
    /// Truth boxes that counted and were not found (misses).
    pub miss: Vec<usize>,
}

impl DetPage {
    /// The page as COCO's ground truths and detections.
    pub fn coco(&self) -> (Vec<GtBox>, Vec<DtBox>) {
        let g = self
            .gts
            .iter()
            .map(|g| GtBox {
                category: g[0] as u32,
                bbox: [g[1], g[2], g[3], g[4]],
                area: g[5],
                crowd: g[6] != 0.0,
            })
            .collect();
        let d = self
            .dts
            .iter()
            .map(|d| DtBox { category: d[0] as u32, bbox: [d[1], d[2], d[3], d[4]], score: d[5] })
            .collect();
        (g, d)
    }
}

/// A document's page set, as stored in the `map` row's trace.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PageSet {
    /// The taxonomy (`omnidoc`, `docling`).
    pub taxonomy: String,
    /// Its classes; category id = position + 1.
    pub classes: Vec<String>,
    /// The pages scored, ascending.
    pub pages: Vec<DetPage>,
    /// Boxes whose label the map does not name: `side vocabulary:label` → count.
    #[serde(default)]
    pub unmapped: BTreeMap<String, usize>,
    /// Boxes the map leaves out by rule (`"-"`): `side vocabulary:label` → count.
    #[serde(default)]
    pub left_out: BTreeMap<String, usize>,
    /// Detections without a box (a block with no area): not scored.
    #[serde(default)]
    pub without_box: usize,
}

/// One document's result.
#[derive(Debug, Clone, PartialEq)]
pub struct DocScore {
    /// Its page set.
    pub set: PageSet,
    /// COCO's figures over its pages alone.
    pub summary: Summary,
    /// ARD and weighted ARD: the mean over its pages with matched ordered truth boxes.
    pub ard: Option<(f64, f64)>,
}

/// The COCO figures of page sets pooled (one evaluation over all their pages, in the given
/// order); `None` where there is no page or the taxonomies differ.
pub fn pool(sets: &[&PageSet]) -> Option<Summary> {
    let first = sets.first()?;
    if sets.iter().any(|s| s.classes != first.classes) {
        return None;
    }
    let images: Vec<(Vec<GtBox>, Vec<DtBox>)> =
        sets.iter().flat_map(|s| s.pages.iter().map(DetPage::coco)).collect();
    let categories: Vec<u32> = (1..=first.classes.len() as u32).collect();
    Some(coco::coco_eval(&Images { images, categories }, &Params::default()))
}

/// A figure of a summary by metric id: `map`, `ap50`, `ap75`, `ar100`, or `<that>:<class>`.
pub fn figure(s: &Summary, classes: &[String], id: &str) -> Option<Option<f64>> {
    let stat = |m: &str| match m {
        "map" => Some(0),
        "ap50" => Some(1),
        "ap75" => Some(2),
        "ar100" => Some(8),
        _ => None,
    };
    match id.split_once(':') {
        None => stat(id).map(|k| s.stats[k]),
        Some((m, class)) => {
            let k = classes.iter().position(|c| c == class)?;
            let c = s.per_category.get(k)?;
            Some(match m {
                "ap" => c.ap,
                "ap50" => c.ap50,
                "ap75" => c.ap75,
                "ar100" => c.ar100,
                _ => return None,
            })
        }
    }
}

/// The matches of one page at IoU 0.50 (area all, 100 detections), as COCO's greedy matching
/// makes them per category: `(tp, fp, miss)`.
type PageMatches = (Vec<(usize, usize, f64)>, Vec<usize>, Vec<usize>);

fn page_matches(gts: &[GtBox], dts: &[DtBox], n_classes: u32, p: &Params) -> PageMatches {
    let (mut tp, mut fp, mut miss) = (Vec::new(), Vec::new(), Vec::new());
    let max_det = *p.max_dets.last().expect("max_dets");
    for c in 1..=n_classes {
        let gi: Vec<usize> = (0..gts.len()).filter(|&i| gts[i].category == c).collect();
        let mut di: Vec<usize> = (0..dts.len()).filter(|&i| dts[i].category == c).collect();
        let g: Vec<&GtBox> = gi.iter().map(|&i| &gts[i]).collect();
        let d: Vec<&DtBox> = di.iter().map(|&i| &dts[i]).collect();
        let Some(e) = coco::evaluate_image(&g, &d, p.area_rngs[0], p) else { continue };
        // The reference's order of the detections: by descending score, a stable sort.
        di.sort_by(|&a, &b| dts[b].score.partial_cmp(&dts[a].score).expect("scores"));
        let kept = di.len().min(max_det);
        let counted: Vec<usize> = gi.iter().copied().filter(|&i| !gts[i].crowd).collect();
        for (j, m) in e.gt_match.first().map(Vec::as_slice).unwrap_or(&[]).iter().enumerate() {
            match m {
                Some(k) => {
                    let (t, d) = (counted[j], di[*k]);
                    tp.push((t, d, coco::iou(&dts[d].bbox, &gts[t].bbox, false)));
                }
                None => miss.push(counted[j]),
            }
        }
        for (k, &d) in di.iter().enumerate() {
            if k >= kept || !e.matched[0][k] {
                fp.push(d);
            }
        }
    }
    tp.sort_by_key(|m| m.0);
    fp.sort_unstable();
    miss.sort_unstable();
    (tp, fp, miss)
}

/// Splits a block label `vocabulary:label` where the vocabulary has a map.
fn labelled<'a>(maps: &ClassMaps, label: Option<&'a str>) -> Option<(&'a str, &'a str)> {
    let (v, l) = label?.split_once(':')?;
    maps.vocabulary(v).map(|_| (v, l))
}

/// Scores one document's output against its truth in `taxonomy`.
pub fn score(
    maps: &ClassMaps,
    taxonomy: &str,
    truth: &RawTruth,
    doc: &Doc,
) -> Result<DocScore, String> {
    let classes = maps
        .taxonomies
        .get(taxonomy)
        .ok_or_else(|| format!("no taxonomy {taxonomy}"))?
        .classes
        .clone();
    let (pages, tboxes) = truth.place(&doc.pages)?;
    let p = Params::default();
    let mut set = PageSet { taxonomy: taxonomy.to_string(), classes, ..Default::default() };
    let (mut ard_sum, mut ward_sum, mut ard_pages) = (0.0, 0.0, 0usize);
    for &page in &pages {
        let size = doc.pages[page as usize];
        let mut gts = Vec::new();
        let mut orders = Vec::new();
        for b in tboxes.iter().filter(|b| b.page == page) {
            match maps.map(taxonomy, truth.vocabulary, &b.label) {
                Mapped::Class(c) => {
                    gts.push(GtBox { category: c, bbox: b.bbox, area: b.area, crowd: b.crowd });
                    orders.push(b.order);
                }
                Mapped::LeftOut => {
                    *set.left_out
                        .entry(format!("truth {}:{}", truth.vocabulary, b.label))
                        .or_default() += 1
                }
                Mapped::Unmapped => {
                    *set.unmapped
                        .entry(format!("truth {}:{}", truth.vocabulary, b.label))
                        .or_default() += 1
                }
            }
        }
        let mut dts = Vec::new();
        for b in doc.blocks.iter().filter(|b| b.page == page) {
            let (w, h) = (f64::from(b.bbox.x1 - b.bbox.x0), f64::from(b.bbox.y1 - b.bbox.y0));
            if !(w > 0.0 && h > 0.0) {
                set.without_box += 1;
                continue;
            }
            let kind = kind_label(b.kind);
            let (v, l) = labelled(maps, b.label.as_deref()).unwrap_or(("corpus", kind.as_str()));
            match maps.map(taxonomy, v, l) {
                Mapped::Class(c) => dts.push(DtBox {
                    category: c,
                    bbox: [f64::from(b.bbox.x0), f64::from(b.bbox.y0), w, h],
                    score: b.confidence.unwrap_or(1.0),
                }),
                Mapped::LeftOut => *set.left_out.entry(format!("output {v}:{l}")).or_default() += 1,
                Mapped::Unmapped => {
                    *set.unmapped.entry(format!("output {v}:{l}")).or_default() += 1
                }
            }
        }
        let (tp, fp, miss) = page_matches(&gts, &dts, set.classes.len() as u32, &p);
        // Reading order over the matched truth boxes that have an order.
        let mut ordered: Vec<(f64, usize, f64)> =
            tp.iter().filter_map(|&(t, d, _)| orders[t].map(|o| (o, d, gts[t].area))).collect();
        if !ordered.is_empty() {
            ordered.sort_by(|a, b| a.0.total_cmp(&b.0));
            let areas: Vec<f64> = ordered.iter().map(|o| o.2).collect();
            let mut read: Vec<(usize, usize)> =
                ordered.iter().enumerate().map(|(truth_ix, o)| (o.1, truth_ix)).collect();
            read.sort();
            let pred_order: Vec<usize> = read.iter().map(|r| r.1).collect();
            let (a, w) = coco::ard(&pred_order, &areas);
            ard_sum += a;
            ward_sum += w;
            ard_pages += 1;
        }
        set.pages.push(DetPage {
            page,
            size: [f64::from(size.width), f64::from(size.height)],
            gts: gts
                .iter()
                .map(|g| {
                    let [x, y, w, h] = g.bbox;
                    [g.category as f64, x, y, w, h, g.area, f64::from(u8::from(g.crowd))]
                })
                .collect(),
            dts: dts
                .iter()
                .map(|d| {
                    let [x, y, w, h] = d.bbox;
                    [d.category as f64, x, y, w, h, d.score]
                })
                .collect(),
            tp,
            fp,
            miss,
        });
    }
    let summary = pool(&[&set]).ok_or("no classes")?;
    let ard = (ard_pages > 0).then(|| (ard_sum / ard_pages as f64, ward_sum / ard_pages as f64));
    Ok(DocScore { set, summary, ard })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{BBox, Block, BlockKind, Page};
    use crate::formats::TruthFormat;

    /// A COCO truth of one page (DocLayNet's names) and an output with one hit, one false
    /// positive and one miss.
    #[test]
    fn a_page_scores_hits_false_positives_misses_and_unmapped_labels() {
        let coco = br#"{"images": [{"id": 1, "file_name": "p_1.png", "width": 100, "height": 100}],
          "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 50, 20]},
            {"id": 2, "image_id": 1, "category_id": 2, "bbox": [0, 50, 50, 40]}],
          "categories": [{"id": 1, "name": "Title"}, {"id": 2, "name": "Table"}]}"#;
        let truth = read(coco);
        let mut doc =
            Doc { pages: vec![Page { width: 100.0, height: 100.0 }], ..Default::default() };
        doc.blocks.push(Block::new(BlockKind::Title, 0, BBox::new(0.0, 0.0, 50.0, 20.0), "t"));
        doc.blocks.push(Block::new(BlockKind::Figure, 0, BBox::new(60.0, 60.0, 90.0, 90.0), ""));
        doc.blocks.push(Block::new(BlockKind::Paragraph, 0, BBox::default(), "no box"));
        let mut labelled = Block::new(BlockKind::Paragraph, 0, BBox::new(1.0, 1.0, 2.0, 2.0), "");
        labelled.label = Some("docling:form".into());
        doc.blocks.push(labelled);
        let maps = ClassMaps::builtin();
        let s = score(maps, "docling", &truth, &doc).unwrap();
        let page = &s.set.pages[0];
        assert_eq!(page.tp, [(0, 0, 1.0)]);
        assert_eq!(page.fp, [1]);
        assert_eq!(page.miss, [1]);
        assert_eq!(s.set.without_box, 1);
        assert_eq!(s.set.unmapped.get("output docling:form"), Some(&1));
        // Title: one hit, AP 1 (as pycocotools computes it: precision 1 / (1 + ε)); Table:
        // missed, AP 0; Picture: no truth, left out of the mean.
        let one = 1.0 / (1.0 + f64::EPSILON);
        let title = s.set.classes.iter().position(|c| c == "Title").unwrap();
        let close = |a: Option<f64>, b: f64| assert!((a.unwrap() - b).abs() < 1e-15, "{a:?}");
        close(s.summary.per_category[title].ap, one);
        assert_eq!(figure(&s.summary, &s.set.classes, "ap:Table"), Some(Some(0.0)));
        assert_eq!(figure(&s.summary, &s.set.classes, "ap:Picture"), Some(None));
        close(s.summary.stats[0], one / 2.0);
        // Pooled alone, the set gives its own figures.
        assert_eq!(pool(&[&s.set]).unwrap(), s.summary);
        assert_eq!(s.ard, None, "a COCO truth has no reading order");
    }

    fn read(coco: &[u8]) -> RawTruth {
        super::super::truth::read_parts(TruthFormat::Coco, &[(String::new(), coco.to_vec())])
            .unwrap()
    }

    /// OmniDocBench's order: two matched boxes read in reverse give ARD 1 − 2/4.
    #[test]
    fn reading_order_is_scored_on_matched_boxes() {
        let page = br#"{"layout_dets": [
            {"category_type": "text_block", "poly": [0,0,100,0,100,20,0,20], "order": 1},
            {"category_type": "text_block", "poly": [0,40,100,40,100,80,0,80], "order": 2},
            {"category_type": "text_mask", "poly": [0,90,10,90,10,95,0,95]}],
            "page_info": {"image_path": "a.jpg", "width": 200, "height": 100}}"#;
        let truth = super::super::truth::read_parts(
            TruthFormat::OmniDocBench,
            &[(String::new(), page.to_vec())],
        )
        .unwrap();
        let mut doc =
            Doc { pages: vec![Page { width: 200.0, height: 100.0 }], ..Default::default() };
        doc.blocks.push(Block::new(BlockKind::Paragraph, 0, BBox::new(0.0, 40.0, 100.0, 80.0), ""));
        doc.blocks.push(Block::new(BlockKind::Paragraph, 0, BBox::new(0.0, 0.0, 100.0, 20.0), ""));
        let s = score(ClassMaps::builtin(), "omnidoc", &truth, &doc).unwrap();
        assert!((s.summary.stats[0].unwrap() - 1.0).abs() < 1e-15);
        let (a, w) = s.ard.unwrap();
        assert_eq!(a, 0.5);
        // |0 − 1|·(2000/6000) + |1 − 0|·(4000/6000) = 1, over n² = 4.
        assert!((w - 0.75).abs() < 1e-15, "{w}");
        assert_eq!(s.set.unmapped.get("truth omnidocbench:text_mask"), Some(&1));
    }
}
