//! The `detection` suite: layout detection as the field scores it (`docs/detection.md`).
//!
//! Per document, the truth's boxes (OmniDocBench `layout_dets`, ICDAR 2013 table regions, a
//! COCO file) and the provider's blocks with boxes are mapped into one evaluation taxonomy by
//! the class maps of `classes/` ([`crate::formats::classes`]: `--classes omnidoc`, OmniDocBench's ten layout
//! classes, or `docling`, DocLayNet's eleven), placed in the points of the output's pages
//! ([`truth`]) and evaluated as pycocotools' `COCOeval` does ([`crate::metrics::coco`]).
//! A block without a confidence counts as 1.0.
//!
//! **Storage**: per (output, truth), `map`, `ap50`, `ap75` and `ar100` over the document's own
//! pages, the same per class (`ap:<class>`, `ap50:<class>`, `ap75:<class>`,
//! `ar100:<class>`), and `ard`, `ard_weighted` (docling-eval's reading order on the matched
//! boxes, mean over the pages). The `map` row's trace holds the document's page set (every
//! box scored, in points, and the matches at IoU 0.5), from which [`eval`]'s summary and
//! `corpus report` pool COCO's figures over any set of documents: COCO mAP is one evaluation
//! over all the pages, not a mean of per-document values ([`score::pool`]). Scores of the
//! `docling` taxonomy are stored under the suite name `detection-docling`, never beside the
//! `omnidoc` ones.

pub mod score;
pub mod truth;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::driver::{self, usable_doc, About, Opening, Scored, Scoring, Summary, Tally};
use super::EvalFailure;
use crate::error::Result;
use crate::formats::TruthFormat;
use crate::progress::Progress;
use crate::store::{MetricRow, OutputRow, RunId, Store};
use crate::truth::{group_truths, TruthGroup};
use score::PageSet;

/// The suite's id in the store (the `omnidoc` taxonomy).
pub const SUITE: &str = "detection";

/// The id its `docling` taxonomy's scores are stored under.
pub const SUITE_DOCLING: &str = "detection-docling";

/// Bump whenever a rule changes a value.
pub const VERSION: u32 = 1;

/// The truth formats it scores.
pub const FORMATS: [TruthFormat; 6] = [
    TruthFormat::OmniDocBench,
    TruthFormat::LabelStudio,
    TruthFormat::Icdar2013,
    TruthFormat::Coco,
    TruthFormat::ParseBench,
    TruthFormat::Docling,
];

/// The metric ids stored per document besides the per-class ones.
pub const METRIC_IDS: [&str; 6] = ["map", "ap50", "ap75", "ar100", "ard", "ard_weighted"];

/// The figures stored per class, as `<figure>:<class>`.
pub const CLASS_FIGURES: [&str; 4] = ["ap", "ap50", "ap75", "ar100"];

/// The leaderboard's headline metrics.
pub const HEADLINE: [&str; 5] = ["map", "ap50", "ap75", "ar100", "ard"];

/// Whether a metric id of this suite is a COCO figure that `report` pools over documents
/// rather than averages.
pub fn is_pooled(metric: &str) -> bool {
    let head = metric.split_once(':').map(|(h, _)| h).unwrap_or(metric);
    match metric.contains(':') {
        true => CLASS_FIGURES.contains(&head),
        false => ["map", "ap50", "ap75", "ar100"].contains(&head),
    }
}

/// The taxonomy scores are computed in (`--classes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classes {
    /// OmniDocBench's layout classes.
    Omnidoc,
    /// DocLayNet's 11 classes.
    Docling,
}

impl Classes {
    /// Parses `--classes`.
    pub fn parse(s: &str) -> std::result::Result<Classes, String> {
        match s {
            "omnidoc" => Ok(Classes::Omnidoc),
            "docling" => Ok(Classes::Docling),
            _ => Err(format!("unknown taxonomy {s:?}: omnidoc or docling")),
        }
    }

    /// Its name in `classes/taxonomies.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Classes::Omnidoc => "omnidoc",
            Classes::Docling => "docling",
        }
    }

    /// The suite name its scores are stored under.
    pub fn suite(self) -> &'static str {
        match self {
            Classes::Omnidoc => SUITE,
            Classes::Docling => SUITE_DOCLING,
        }
    }
}

/// What to score.
#[derive(Debug, Clone)]
pub struct DetectionOptions<'a> {
    /// The provider whose outputs are scored.
    pub provider: &'a str,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The taxonomy.
    pub classes: Classes,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// One document's line of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct DocRow {
    /// The document's name.
    pub document: String,
    /// Pages scored.
    pub pages: usize,
    /// Truth boxes scored.
    pub gt_boxes: usize,
    /// Detections scored.
    pub dt_boxes: usize,
    /// (metric id, value) in [`METRIC_IDS`] order, over the document alone.
    pub values: Vec<(String, Option<f64>)>,
}

/// One class's pooled figures.
#[derive(Debug, Clone, Serialize)]
pub struct ClassRow {
    /// The class.
    pub class: String,
    /// Truth boxes of it.
    pub gt_boxes: usize,
    /// Detections of it.
    pub dt_boxes: usize,
    /// AP at IoU 0.50:0.95.
    pub ap: Option<f64>,
    /// AP at IoU 0.50.
    pub ap50: Option<f64>,
    /// AP at IoU 0.75.
    pub ap75: Option<f64>,
    /// AR at 100 detections.
    pub ar100: Option<f64>,
}

/// What an eval did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DetectionSummary {
    /// Suite id (`detection` or `detection-docling`).
    pub suite: &'static str,
    /// Suite version.
    pub suite_version: u32,
    /// The taxonomy.
    pub classes: &'static str,
    /// The provider scored.
    pub provider: String,
    /// Documents with a truth.
    pub documents: u64,
    /// Documents scored now.
    pub scored: u64,
    /// Documents whose stored rows were reused.
    pub cached: u64,
    /// Metric rows written now.
    pub rows_written: u64,
    /// Pages pooled.
    pub pages: usize,
    /// The frame boxes are compared in.
    pub frame: &'static str,
    /// COCO's twelve figures over every page of the scored documents (`null` where
    /// pycocotools gives −1), named as [`crate::metrics::coco::STAT_NAMES`].
    pub figures: Vec<(String, Option<f64>)>,
    /// Per class, pooled.
    pub per_class: Vec<ClassRow>,
    /// Mean ARD and weighted ARD over the documents that have them, and beside them the omnidoc
    /// suite's reading-order edit distance (`order_edit`) of the same provider, mean over the
    /// documents scored here that it has a stored value for (`None` where none).
    pub reading_order: Vec<(String, Option<f64>)>,
    /// How many of the documents scored here have a stored omnidoc `order_edit`.
    pub order_edit_documents: usize,
    /// Boxes whose label no map names, by side and label: never scored, never merged.
    pub unmapped: BTreeMap<String, usize>,
    /// Boxes the maps leave out by rule.
    pub left_out: BTreeMap<String, usize>,
    /// Detections without a box.
    pub without_box: usize,
    /// Per document.
    pub rows: Vec<DocRow>,
    /// Documents that could not be scored.
    pub failures: Vec<EvalFailure>,
}

/// What the summary keeps of a document: its sort key, row, page set and ARD.
type Kept = ((String, String), DocRow, PageSet, Option<(f64, f64)>);

struct DetectionSuite<'a> {
    opts: &'a DetectionOptions<'a>,
    /// pdfium, bound once where an output needs the PDF's page sizes.
    pdfium: Option<std::result::Result<crate::providers::pdfium::Pdfium, String>>,
}

impl DetectionSuite<'_> {
    /// The PDF's page sizes, for an output that gives none.
    fn pdf_pages(
        &mut self,
        store: &Store,
        document: i64,
    ) -> Result<std::result::Result<Vec<crate::doc::Page>, String>> {
        let Some(hash) = store.document_hash(document)? else {
            return Ok(Err("the document is missing from the store".into()));
        };
        let Some(bytes) = store.blob(&hash)? else {
            return Ok(Err("the PDF is missing from the store".into()));
        };
        let bound = self.pdfium.get_or_insert_with(|| {
            crate::providers::pdfium::bind().map_err(|e| format!("pdfium: {e}"))
        });
        Ok(match bound {
            Ok(p) => crate::providers::pdfium::page_sizes(p, &bytes).map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        })
    }
}

fn doc_row(name: &str, set: &PageSet, values: Vec<(String, Option<f64>)>) -> DocRow {
    DocRow {
        document: name.to_string(),
        pages: set.pages.len(),
        gt_boxes: set.pages.iter().map(|p| p.gts.len()).sum(),
        dt_boxes: set.pages.iter().map(|p| p.dts.len()).sum(),
        values,
    }
}

impl Scoring for DetectionSuite<'_> {
    type Item = TruthGroup;
    type Unit = (truth::RawTruth, OutputRow);
    type Kept = Kept;
    type Summary = DetectionSummary;

    fn id(&self) -> &'static str {
        self.opts.classes.suite()
    }

    fn version(&self) -> u32 {
        VERSION
    }

    fn formats(&self) -> &'static [TruthFormat] {
        &FORMATS
    }

    fn items(&mut self, store: &Store) -> Result<Vec<TruthGroup>> {
        // A page with truths of both page formats (a draft, then its Label Studio review) is
        // scored once, on the newest, as the omnidoc suite scores it.
        let rows = crate::truth::newest_page_truths(store.truths(self.opts.dataset)?);
        let mut groups = group_truths(rows, |f| FORMATS.contains(&f));
        // A ParseBench case has boxes only where it has layout elements (its `layout` part).
        groups.retain(|t| t.format != TruthFormat::ParseBench || truth::has_layout_part(t));
        Ok(groups)
    }

    fn about<'a>(&'a self, t: &'a TruthGroup) -> About<'a> {
        About { document: t.document, dataset: &t.dataset, provider: self.opts.provider }
    }

    fn open(&mut self, store: &Store, t: &TruthGroup, _: &str) -> Result<Opening<Self::Unit>> {
        let raw = match truth::read(store, t)? {
            Ok(r) => r,
            Err(e) => {
                return Ok(Opening::Failed(format!("unreadable {} truth: {e}", t.format.as_str())))
            }
        };
        Ok(match store.latest_output(t.document, self.opts.provider)? {
            None => Opening::Skip,
            Some(out) => Opening::Pair { output: out.id, truth: t.id(), unit: (raw, out) },
        })
    }

    fn reuse(
        &mut self,
        t: &TruthGroup,
        _: &Self::Unit,
        name: &str,
        stored: &[MetricRow],
    ) -> Option<Kept> {
        let map = stored.iter().find(|r| r.metric == "map")?;
        let set: PageSet = serde_json::from_str(map.trace.as_deref()?).ok()?;
        let value = |id: &str| stored.iter().find(|r| r.metric == id).and_then(|r| r.value);
        let values = METRIC_IDS.iter().map(|id| (id.to_string(), value(id))).collect();
        let ard = value("ard").zip(value("ard_weighted"));
        let row = doc_row(name, &set, values);
        Some(((t.dataset.clone(), name.to_string()), row, set, ard))
    }

    fn score(
        &mut self,
        store: &Store,
        t: &TruthGroup,
        (raw, out): Self::Unit,
        name: &str,
    ) -> Result<std::result::Result<Scored<Kept>, String>> {
        let mut doc = match usable_doc(store, &out) {
            Ok(doc) => doc,
            Err(e) => return Ok(Err(e)),
        };
        // An output without page sizes (opendataloader's, Markdown) is placed on the PDF's.
        if doc.pages.is_empty() {
            match self.pdf_pages(store, t.document)? {
                Ok(pages) => doc.pages = pages,
                Err(e) => return Ok(Err(format!("the output has no page sizes, and {e}"))),
            }
        }
        let maps = crate::formats::classes::ClassMaps::builtin();
        let s = match score::score(maps, self.opts.classes.name(), &raw, &doc) {
            Ok(s) => s,
            Err(e) => return Ok(Err(e)),
        };
        let get = |id: &str| score::figure(&s.summary, &s.set.classes, id).flatten();
        let mut rows = Vec::new();
        let values: Vec<(String, Option<f64>)> = METRIC_IDS
            .iter()
            .map(|&id| {
                let v = match id {
                    "ard" => s.ard.map(|a| a.0),
                    "ard_weighted" => s.ard.map(|a| a.1),
                    _ => get(id),
                };
                (id.to_string(), v)
            })
            .collect();
        for (id, v) in &values {
            let trace = match id.as_str() {
                "map" => serde_json::to_string(&s.set)?,
                "ard" | "ard_weighted" => json!({"by": "docling-eval _compute_ard on the boxes matched at IoU 0.5, mean over pages"}).to_string(),
                _ => "{}".to_string(),
            };
            rows.push((id.clone(), *v, trace));
        }
        for (k, class) in s.set.classes.iter().enumerate() {
            let (g, d) = count_class(&s.set, k as u32 + 1);
            for fig in CLASS_FIGURES {
                let id = format!("{fig}:{class}");
                let trace = json!({"gt_boxes": g, "dt_boxes": d}).to_string();
                rows.push((id.clone(), get(&id), trace));
            }
        }
        let row = doc_row(name, &s.set, values);
        Ok(Ok(Scored { kept: ((t.dataset.clone(), name.to_string()), row, s.set, s.ard), rows }))
    }

    fn summarise(
        self,
        store: &mut Store,
        _: Option<RunId>,
        mut kept: Vec<Kept>,
        tally: Tally,
    ) -> Result<DetectionSummary> {
        // Pooled in one order whatever order the documents were scored in: by dataset and
        // name, as `report` pools them (equal scores keep this order: it can change AP).
        kept.sort_by(|a, b| a.0.cmp(&b.0));
        let sets: Vec<&PageSet> = kept.iter().map(|k| &k.2).collect();
        let mut sum = DetectionSummary {
            suite: self.opts.classes.suite(),
            suite_version: VERSION,
            classes: self.opts.classes.name(),
            provider: self.opts.provider.to_string(),
            documents: tally.items,
            scored: tally.scored,
            cached: tally.cached,
            rows_written: tally.rows_written,
            frame: "points of the output's pages (top-left origin); areas in pt²",
            failures: tally.failures,
            ..Default::default()
        };
        sum.pages = sets.iter().map(|s| s.pages.len()).sum();
        if let Some(pooled) = score::pool(&sets) {
            sum.figures = crate::metrics::coco::STAT_NAMES
                .iter()
                .zip(pooled.stats)
                .map(|(n, v)| (n.to_string(), v))
                .collect();
            let classes = &sets[0].classes;
            sum.per_class = classes
                .iter()
                .enumerate()
                .map(|(k, class)| {
                    let (g, d) = sets.iter().fold((0, 0), |acc, s| {
                        let (g, d) = count_class(s, k as u32 + 1);
                        (acc.0 + g, acc.1 + d)
                    });
                    let c = &pooled.per_category[k];
                    ClassRow {
                        class: class.clone(),
                        gt_boxes: g,
                        dt_boxes: d,
                        ap: c.ap,
                        ap50: c.ap50,
                        ap75: c.ap75,
                        ar100: c.ar100,
                    }
                })
                .collect();
        }
        let ards: Vec<(f64, f64)> = kept.iter().filter_map(|k| k.3).collect();
        let mean = |f: fn(&(f64, f64)) -> f64| {
            (!ards.is_empty()).then(|| ards.iter().map(f).sum::<f64>() / ards.len() as f64)
        };
        // The text-based reading order of the same documents, where the omnidoc suite scored
        // this provider: beside ARD in one table (`docs/detection.md` §7).
        let scored: std::collections::HashSet<&(String, String)> =
            kept.iter().map(|k| &k.0).collect();
        let edits: Vec<f64> = store
            .latest_metric_values(crate::suites::omnidoc::SUITE, "order_edit", self.opts.provider)?
            .into_iter()
            .filter(|(ds, doc, _)| scored.contains(&(ds.clone(), doc.clone())))
            .filter_map(|r| r.2)
            .collect();
        sum.order_edit_documents = edits.len();
        let order_edit =
            (!edits.is_empty()).then(|| edits.iter().sum::<f64>() / edits.len() as f64);
        sum.reading_order = vec![
            ("ard".into(), mean(|a| a.0)),
            ("ard_weighted".into(), mean(|a| a.1)),
            ("order_edit".into(), order_edit),
        ];
        for s in &sets {
            for (k, n) in &s.unmapped {
                *sum.unmapped.entry(k.clone()).or_default() += n;
            }
            for (k, n) in &s.left_out {
                *sum.left_out.entry(k.clone()).or_default() += n;
            }
            sum.without_box += s.without_box;
        }
        sum.rows = kept.into_iter().map(|k| k.1).collect();
        Ok(sum)
    }
}

/// Truth boxes and detections of one category in a page set.
fn count_class(s: &PageSet, c: u32) -> (usize, usize) {
    let cf = f64::from(c);
    let g = s.pages.iter().map(|p| p.gts.iter().filter(|g| g[0] == cf).count()).sum();
    let d = s.pages.iter().map(|p| p.dts.iter().filter(|d| d[0] == cf).count()).sum();
    (g, d)
}

/// Scores the provider's newest output of every document with a truth that has boxes.
pub fn eval(
    store: &mut Store,
    opts: &DetectionOptions<'_>,
    progress: &dyn Progress,
) -> Result<DetectionSummary> {
    driver::run(store, DetectionSuite { opts, pdfium: None }, opts.run, progress)
}

impl Summary for DetectionSummary {
    fn failures(&self) -> &[EvalFailure] {
        &self.failures
    }

    fn run_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version, "classes": self.classes,
            "documents": self.documents, "scored": self.scored, "cached": self.cached,
            "rows_written": self.rows_written, "pages": self.pages, "figures": self.figures,
            "unmapped": self.unmapped, "failed": self.failures.len(),
        })
    }

    fn shard_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version, "documents": self.documents,
            "scored": self.scored, "rows_written": self.rows_written, "failed": self.failures.len(),
        })
    }
}

/// `report`'s pooled figures of a group of documents: their `map` rows' page sets, already in
/// pooling order, and the metric ids wanted; (metric, value) for each pooled one.
pub fn pooled_figures(traces: &[&str], metrics: &[String]) -> Vec<(String, Option<f64>)> {
    let sets: Vec<PageSet> = traces.iter().filter_map(|t| serde_json::from_str(t).ok()).collect();
    let refs: Vec<&PageSet> = sets.iter().collect();
    let Some(s) = score::pool(&refs) else { return Vec::new() };
    metrics
        .iter()
        .filter(|m| is_pooled(m))
        .filter_map(|m| Some((m.clone(), score::figure(&s, &refs[0].classes, m)?)))
        .collect()
}
