//! The `table` suite: a provider's predicted tables against ground-truth tables, given as
//! LaTeX (pdf-parse-bench's `tables/`, truth format `latex-tables`) or as ICDAR 2013 region and
//! structure files (`icdar2013`, see [`crate::suites::icdar2013`]).
//!
//! Per document, the GT tables (each item of type `table` of the truth file, parsed by
//! [`crate::formats::latex_table`]) are paired with the provider's predicted tables (the
//! output's blocks of kind `table` that carry cells) by content, with the Hungarian solver,
//! never by index (`crate::metrics::table::match_tables`). Every GT table gets scores:
//! `teds`, `teds_s`, `grits_top_p|r|f`, `grits_con_p|r|f`, `value_acc` (definitions in
//! [`crate::metrics::table`]), and SCORE's `score_index` (structure), `score_content` and their
//! mean `score_avg` ([`crate::metrics::score`]); a GT table without a match scores 0 on each and is a detection
//! miss, a predicted table left over is a false positive. Per document, `det_p` = matched /
//! predicted tables (null without predictions) and `det_r` = matched / GT tables; for an
//! ICDAR 2013 truth, which has table regions, detection is by region instead: a GT region is
//! found by a predicted table block on its page with IoU ≥ 0.5 (one to one), `det_p` = found /
//! predicted table blocks, `det_r` = found / GT regions.
//!
//! **Storage**: one `metrics` row per (output, truth, metric), as the store's
//! `UNIQUE(output, truth, suite, suite_version, metric)` wants. Its value is the **document
//! mean** over the document's GT tables (tables where a metric is undefined — `value_acc` of a
//! matched table without numeric cells — are left out of the mean); its trace lists the
//! per-table values: `{"tables": [{"gt": 0, "pred": 2, "complexity": "simple", "value": 0.93},
//! …]}` (`pred` null for a miss), so per-table and per-complexity figures can be recomputed
//! from the store. `corpus report --suite table` therefore shows document means. The `teds`
//! row's trace also has the pairing detail (similarities, grid sizes, unmatched predictions),
//! the `value_acc` row's the cells whose values changed.
//!
//! [`eval`] returns the per-document rows plus document means, table-level means over all GT
//! tables, and table-level means by complexity (`det_r` there is matched / GT tables of that
//! class; `det_p` has no class since a false positive has none).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::driver::{self, usable_doc, About, Opening, Scored, Scoring, Summary, Tally};
use super::EvalFailure;
use crate::doc::{BlockKind, Doc, Table};
use crate::error::Result;
use crate::formats::pdf_parse_bench::{read_truth, GtTable};
use crate::formats::TruthFormat;
use crate::metrics::table::{match_tables, score_pair, similarity, TableScores};
use crate::progress::Progress;
use crate::store::{OutputRow, RunId, Store};
use crate::suites::icdar2013::{self, Detection};
use crate::truth::{truth_groups, TruthGroup};

/// The suite's id in the store.
pub const SUITE: &str = "table";

/// The table suite's headlines. The suite names none of its own, so they are chosen here:
/// TEDS (structure and content, the metric every table benchmark leads with: PubTabNet,
/// OmniDocBench, docling-eval), TEDS-S (structure alone, so a provider that reads cells
/// wrongly but finds the grid shows it) and GriTS-Con's F1 (PubTables-1M's content metric,
/// which aligns rows and columns instead of the tree).
pub const HEADLINE: [&str; 3] = ["teds", "teds_s", "grits_con_f"];

/// Bump whenever a rule changes a value.
pub const TABLE_SUITE_VERSION: u32 = 2;

/// The truth formats this suite reads.
/// A `pdf-parse-bench` truth without tables (one of its `formulas/`) is not this suite's and is
/// skipped.
pub const FORMATS: [TruthFormat; 3] =
    [TruthFormat::LatexTables, TruthFormat::PdfParseBench, TruthFormat::Icdar2013];

/// The per-table metric ids, in report order.
pub const TABLE_METRICS: [&str; 12] = [
    "teds",
    "teds_s",
    "grits_top_p",
    "grits_top_r",
    "grits_top_f",
    "grits_con_p",
    "grits_con_r",
    "grits_con_f",
    "value_acc",
    "score_index",
    "score_content",
    "score_avg",
];

/// Every metric id stored, in report order.
pub const METRIC_IDS: [&str; 14] = [
    "teds",
    "teds_s",
    "grits_top_p",
    "grits_top_r",
    "grits_top_f",
    "grits_con_p",
    "grits_con_r",
    "grits_con_f",
    "value_acc",
    "score_index",
    "score_content",
    "score_avg",
    "det_p",
    "det_r",
];

/// The predicted tables of a Doc: blocks of kind `table` with at least one cell, in order.
pub(crate) fn predicted_tables(doc: &Doc) -> Vec<Table> {
    doc.blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Table)
        .filter_map(|b| b.table.clone())
        .filter(|t| !t.cells.is_empty())
        .collect()
}

/// One GT table's result.
#[derive(Debug, Clone, PartialEq)]
pub struct TableResult {
    /// Index among the document's GT tables.
    pub gt: usize,
    /// The matched predicted table, if any.
    pub pred: Option<usize>,
    /// Its class.
    pub complexity: Option<String>,
    /// Its scores (all 0 for a miss).
    pub scores: TableScores,
}

impl TableResult {
    /// Returns one per-table metric (an id of [`TABLE_METRICS`]).
    pub fn metric(&self, id: &str) -> Option<f64> {
        let s = &self.scores;
        Some(match id {
            "teds" => s.teds,
            "teds_s" => s.teds_s,
            "grits_top_p" => s.grits_top.precision,
            "grits_top_r" => s.grits_top.recall,
            "grits_top_f" => s.grits_top.f,
            "grits_con_p" => s.grits_con.precision,
            "grits_con_r" => s.grits_con.recall,
            "grits_con_f" => s.grits_con.f,
            "value_acc" => return s.value_acc(self.pred.is_some()),
            "score_index" => s.score.index(),
            "score_content" => s.score.content(),
            "score_avg" => s.score.avg(),
            _ => return None,
        })
    }
}

/// One document's results.
#[derive(Debug, Clone, PartialEq)]
pub struct DocResult {
    /// Per GT table, in order.
    pub tables: Vec<TableResult>,
    /// Number of predicted tables.
    pub predicted: usize,
    /// Predicted tables no GT table matched (false positives).
    pub unmatched_pred: Vec<usize>,
    /// The `teds` row's pairing detail.
    detail: Vec<Value>,
    /// Region detection (ICDAR 2013), which then gives `det_p` and `det_r`.
    pub regions: Option<Detection>,
}

impl DocResult {
    /// Matched GT tables.
    pub fn matched(&self) -> usize {
        self.tables.iter().filter(|t| t.pred.is_some()).count()
    }

    /// Returns a document-level metric: the mean over GT tables, or detection P/R.
    pub fn metric(&self, id: &str) -> Option<f64> {
        let ratio = |n: usize, d: usize| (d > 0).then(|| n as f64 / d as f64);
        match (id, &self.regions) {
            ("det_p", Some(d)) => d.precision(),
            ("det_r", Some(d)) => d.recall(),
            ("det_p", None) => ratio(self.matched(), self.predicted),
            ("det_r", None) => ratio(self.matched(), self.tables.len()),
            _ => mean(self.tables.iter().filter_map(|t| t.metric(id))),
        }
    }

    /// The metric rows to store: (metric id, document value, trace).
    pub fn rows(&self) -> Vec<(&'static str, Option<f64>, Value)> {
        let mut out = Vec::new();
        for id in TABLE_METRICS {
            let per: Vec<Value> = self
                .tables
                .iter()
                .map(|t| {
                    let mut v = json!({"gt": t.gt, "pred": t.pred, "complexity": t.complexity,
                        "value": t.metric(id)});
                    if id == "value_acc" {
                        let vals = &t.scores.values;
                        v["numeric"] = json!(vals.numeric);
                        v["correct"] = json!(vals.correct);
                        v["errors"] = vals
                            .errors
                            .iter()
                            .take(20)
                            .map(
                                |e| json!({"row": e.row, "col": e.col, "gt": e.gt, "pred": e.pred}),
                            )
                            .collect();
                    }
                    v
                })
                .collect();
            let mut trace = json!({"tables": per});
            if id == "teds" {
                trace["pairs"] = Value::Array(self.detail.clone());
                trace["unmatched_pred"] = json!(self.unmatched_pred);
            }
            out.push((id, self.metric(id), trace));
        }
        let det = match &self.regions {
            Some(d) => json!({"by": "region IoU >= 0.5", "gt_regions": d.gt, "pred_boxes": d.pred,
                "found": d.found.iter().map(|(g, p, iou)| json!({"gt": g, "pred": p, "iou": iou}))
                    .collect::<Vec<_>>()}),
            None => json!({"by": "content match", "gt": self.tables.len(), "pred": self.predicted,
                "matched": self.matched(), "unmatched_pred": self.unmatched_pred}),
        };
        out.push(("det_p", self.metric("det_p"), det.clone()));
        out.push(("det_r", self.metric("det_r"), det));
        out
    }
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / n as f64)
}

/// Scores one document: pairs its GT and predicted tables and scores every GT table.
pub(crate) fn score_document(gt: &[GtTable], pred: &[Table]) -> DocResult {
    let gt_tables: Vec<Table> = gt.iter().map(|g| g.table.clone()).collect();
    let pairing = match_tables(&gt_tables, pred);
    let mut detail = Vec::new();
    let tables = gt
        .iter()
        .zip(&pairing)
        .enumerate()
        .map(|(i, (g, p))| {
            let scores = match p {
                Some(j) => score_pair(&g.table, &pred[*j]),
                None => TableScores::missed(&g.table),
            };
            let mut d =
                json!({"gt": i, "pred": p, "gt_rows": g.table.rows, "gt_cols": g.table.cols});
            if let Some(j) = p {
                let s = similarity(&g.table, &pred[*j]);
                d["overlap"] = json!(s.overlap);
                d["edit"] = json!(s.edit);
                d["pred_rows"] = json!(pred[*j].rows);
                d["pred_cols"] = json!(pred[*j].cols);
            }
            detail.push(d);
            TableResult { gt: i, pred: *p, complexity: g.complexity.clone(), scores }
        })
        .collect();
    let unmatched_pred = (0..pred.len()).filter(|j| !pairing.contains(&Some(*j))).collect();
    DocResult { tables, predicted: pred.len(), unmatched_pred, detail, regions: None }
}

/// A document's ground truth as the suite scores it.
#[derive(Debug, Clone, PartialEq)]
pub struct GtDoc {
    /// Its tables.
    pub tables: Vec<GtTable>,
    /// Its table regions, when the truth has them (ICDAR 2013).
    pub regions: Option<Vec<crate::formats::icdar2013::Region>>,
}

/// Reads a truth as the suite scores it; the inner error says why it cannot be read.
pub(crate) fn load_truth(
    store: &Store,
    t: &TruthGroup,
) -> Result<std::result::Result<GtDoc, String>> {
    let mut parts = Vec::new();
    for p in &t.parts {
        match store.blob(&p.blob)? {
            Some(b) => parts.push((p.part.as_str(), b)),
            None => return Ok(Err(format!("truth blob {} missing from the store", p.blob))),
        }
    }
    let part = |name: &str| parts.iter().find(|(n, _)| *n == name).map(|(_, b)| b.as_slice());
    Ok(match t.format {
        TruthFormat::Icdar2013 => match (part("reg"), part("str")) {
            (Some(reg), Some(st)) => crate::formats::icdar2013::read_truth(reg, st)
                .map_err(|e| e.to_string())
                .map(|i| GtDoc {
                    tables: i
                        .tables
                        .into_iter()
                        .map(|table| GtTable { table, complexity: None, source: None })
                        .collect(),
                    regions: Some(i.regions),
                }),
            _ => Err("needs both the reg and the str part".into()),
        },
        TruthFormat::PdfParseBench => match part("") {
            Some(b) => crate::formats::pdf_parse_bench::read_tables(b)
                .map_err(|e| e.to_string())
                .map(|tables| GtDoc { tables, regions: None }),
            None => Err("no truth file".into()),
        },
        TruthFormat::LatexTables => match part("") {
            Some(b) => read_truth(b)
                .map_err(|e| e.to_string())
                .map(|tables| GtDoc { tables, regions: None }),
            None => Err("no truth file".into()),
        },
        TruthFormat::PeerRead
        | TruthFormat::GrobidTei
        | TruthFormat::S2orc
        | TruthFormat::Jats
        | TruthFormat::Docling
        | TruthFormat::OmniDocBench
        | TruthFormat::OlmocrBench
        | TruthFormat::ParseBench
        | TruthFormat::LabelStudio
        | TruthFormat::Coco => {
            Err(format!("{} is not a truth the table suite reads", t.format.as_str()))
        }
    })
}

/// What to score.
#[derive(Debug, Clone)]
pub struct TableOptions<'a> {
    /// The provider whose outputs are scored.
    pub provider: &'a str,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// One document's line of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct DocRow {
    /// The document's name.
    pub document: String,
    /// GT tables.
    pub gt_tables: usize,
    /// Predicted tables.
    pub pred_tables: usize,
    /// Matched GT tables.
    pub matched: usize,
    /// (metric id, document value), in [`METRIC_IDS`] order.
    pub values: Vec<(String, Option<f64>)>,
}

/// Table-level figures of a group of GT tables.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GroupFigures {
    /// GT tables.
    pub tables: usize,
    /// Of those, matched.
    pub matched: usize,
    /// (metric id, mean over the group's tables); `det_r` = matched / tables, and overall
    /// `det_p` = matched / predicted tables.
    pub values: Vec<(String, Option<f64>)>,
}

/// What an eval did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TableSummary {
    /// Suite id.
    pub suite: &'static str,
    /// Suite version.
    pub suite_version: u32,
    /// The provider scored.
    pub provider: String,
    /// Documents with a truth.
    pub documents: u64,
    /// Of those, documents with an output of the provider.
    pub scored: u64,
    /// Metric rows written now (rows already stored are kept).
    pub rows_written: u64,
    /// Per document.
    pub rows: Vec<DocRow>,
    /// Means of the document values (what `report` shows).
    pub document_means: Vec<(String, Option<f64>)>,
    /// Over every GT table of the scored documents.
    pub tables: GroupFigures,
    /// By complexity class (`none` for tables without one).
    pub by_complexity: BTreeMap<String, GroupFigures>,
    /// Documents that could not be scored.
    pub failures: Vec<EvalFailure>,
}

fn group_figures(tables: &[&TableResult], predicted: Option<usize>) -> GroupFigures {
    let matched = tables.iter().filter(|t| t.pred.is_some()).count();
    let ratio = |n: usize, d: usize| (d > 0).then(|| n as f64 / d as f64);
    let mut values: Vec<(String, Option<f64>)> = TABLE_METRICS
        .iter()
        .map(|id| (id.to_string(), mean(tables.iter().filter_map(|t| t.metric(id)))))
        .collect();
    values.push(("det_p".into(), predicted.and_then(|p| ratio(matched, p))));
    values.push(("det_r".into(), ratio(matched, tables.len())));
    GroupFigures { tables: tables.len(), matched, values }
}

/// The table suite as the driver runs it: one item per truth, scored against the provider's
/// newest output of its document.
struct TableSuite<'a> {
    opts: &'a TableOptions<'a>,
}

impl Scoring for TableSuite<'_> {
    type Item = TruthGroup;
    type Unit = (GtDoc, OutputRow);
    type Kept = (DocRow, DocResult);
    type Summary = TableSummary;

    fn id(&self) -> &'static str {
        SUITE
    }

    fn version(&self) -> u32 {
        TABLE_SUITE_VERSION
    }

    fn formats(&self) -> &'static [TruthFormat] {
        &FORMATS
    }

    fn items(&mut self, store: &Store) -> Result<Vec<TruthGroup>> {
        let formats = self.formats();
        truth_groups(store, self.opts.dataset, |f| formats.contains(&f))
    }

    fn about<'a>(&'a self, t: &'a TruthGroup) -> About<'a> {
        About { document: t.document, dataset: &t.dataset, provider: self.opts.provider }
    }

    fn open(&mut self, store: &Store, t: &TruthGroup, _: &str) -> Result<Opening<Self::Unit>> {
        let gt = match load_truth(store, t)? {
            Ok(gt) => gt,
            Err(e) => {
                return Ok(Opening::Failed(format!("unreadable {} truth: {e}", t.format.as_str())))
            }
        };
        if gt.tables.is_empty() && t.format == TruthFormat::PdfParseBench {
            return Ok(Opening::Skip);
        }
        Ok(match store.latest_output(t.document, self.opts.provider)? {
            None => Opening::Skip,
            Some(out) => Opening::Pair { output: out.id, truth: t.id(), unit: (gt, out) },
        })
    }

    fn score(
        &mut self,
        store: &Store,
        _: &TruthGroup,
        (gt, out): Self::Unit,
        name: &str,
    ) -> Result<std::result::Result<Scored<Self::Kept>, String>> {
        let doc = match usable_doc(store, &out) {
            Ok(doc) => doc,
            Err(e) => return Ok(Err(e)),
        };
        let mut r = score_document(&gt.tables, &predicted_tables(&doc));
        if let Some(regions) = &gt.regions {
            let boxes: Vec<(u32, crate::doc::BBox)> = doc
                .blocks
                .iter()
                .filter(|b| b.kind == BlockKind::Table)
                .map(|b| (b.page, b.bbox))
                .collect();
            let heights: Vec<f32> = doc.pages.iter().map(|p| p.height).collect();
            r.regions = Some(icdar2013::detect(regions, &boxes, &heights));
        }
        let rows =
            r.rows().into_iter().map(|(m, v, tr)| (m.to_string(), v, tr.to_string())).collect();
        let row = DocRow {
            document: name.to_string(),
            gt_tables: r.tables.len(),
            pred_tables: r.predicted,
            matched: r.matched(),
            values: METRIC_IDS.iter().map(|id| (id.to_string(), r.metric(id))).collect(),
        };
        Ok(Ok(Scored { kept: (row, r), rows }))
    }

    fn summarise(
        self,
        _: &mut Store,
        _: Option<RunId>,
        kept: Vec<Self::Kept>,
        tally: Tally,
    ) -> Result<TableSummary> {
        let (rows, results): (Vec<DocRow>, Vec<DocResult>) = kept.into_iter().unzip();
        let mut summary = TableSummary {
            suite: SUITE,
            suite_version: TABLE_SUITE_VERSION,
            provider: self.opts.provider.to_string(),
            documents: tally.items,
            scored: tally.scored,
            rows_written: tally.rows_written,
            rows,
            failures: tally.failures,
            ..Default::default()
        };
        summary.document_means = METRIC_IDS
            .iter()
            .enumerate()
            .map(|(k, id)| {
                (id.to_string(), mean(summary.rows.iter().filter_map(|r| r.values[k].1)))
            })
            .collect();
        let all: Vec<&TableResult> = results.iter().flat_map(|r| &r.tables).collect();
        let predicted: usize = results.iter().map(|r| r.predicted).sum();
        summary.tables = group_figures(&all, Some(predicted));

        let mut classes: BTreeMap<String, Vec<&TableResult>> = BTreeMap::new();
        for t in &all {
            classes
                .entry(t.complexity.clone().unwrap_or_else(|| "none".into()))
                .or_default()
                .push(t);
        }
        summary.by_complexity =
            classes.into_iter().map(|(c, ts)| (c, group_figures(&ts, None))).collect();
        // Region detection, where the truth has regions, replaces the content-match counts.
        let dets: Vec<&Detection> = results.iter().filter_map(|r| r.regions.as_ref()).collect();
        if !dets.is_empty() && dets.len() == results.len() {
            let sum = |f: fn(&Detection) -> usize| dets.iter().map(|d| f(d)).sum::<usize>();
            let (found, gt, pred) = (sum(|d| d.found.len()), sum(|d| d.gt), sum(|d| d.pred));
            let ratio = |n: usize, d: usize| (d > 0).then(|| n as f64 / d as f64);
            for (id, v) in summary.tables.values.iter_mut() {
                match id.as_str() {
                    "det_p" => *v = ratio(found, pred),
                    "det_r" => *v = ratio(found, gt),
                    _ => {}
                }
            }
            // Regions have no complexity class: no per-class detection.
            for g in summary.by_complexity.values_mut() {
                for (id, v) in g.values.iter_mut() {
                    if id.starts_with("det_") {
                        *v = None;
                    }
                }
            }
        }
        Ok(summary)
    }
}

/// Scores the provider's newest output of every document with a `latex-tables` truth.
pub fn eval(
    store: &mut Store,
    opts: &TableOptions<'_>,
    progress: &dyn Progress,
) -> Result<TableSummary> {
    driver::run(store, TableSuite { opts }, opts.run, progress)
}

impl Summary for TableSummary {
    fn failures(&self) -> &[EvalFailure] {
        &self.failures
    }

    fn run_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version, "documents": self.documents,
            "scored": self.scored, "rows_written": self.rows_written, "tables": self.tables,
            "by_complexity": self.by_complexity, "failed": self.failures.len(),
        })
    }

    fn shard_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version, "documents": self.documents,
            "scored": self.scored, "rows_written": self.rows_written, "failed": self.failures.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::pdf_parse_bench::tests::TRUTH;

    #[test]
    fn a_missed_table_scores_zero_and_an_extra_one_is_a_false_positive() {
        let gt = read_truth(TRUTH.as_bytes()).unwrap();
        // Predicted: the second GT table (found first), and a junk table.
        let junk = read_truth(
            br#"[{"type": "table", "data": "\\begin{tabular}{l} zzzz \\\\ \\end{tabular}"}]"#,
        )
        .unwrap();
        let pred = vec![gt[1].table.clone(), junk[0].table.clone()];
        let r = score_document(&gt, &pred);
        assert_eq!(r.tables[0].pred, None);
        assert_eq!(r.tables[1].pred, Some(0));
        assert_eq!(r.unmatched_pred, [1]);
        assert_eq!(r.tables[0].metric("teds"), Some(0.0));
        assert_eq!(r.tables[0].metric("value_acc"), Some(0.0));
        assert_eq!(r.tables[1].metric("teds"), Some(1.0));
        // No numeric cell in the matched table: value_acc undefined there.
        assert_eq!(r.tables[1].metric("value_acc"), None);
        assert_eq!(r.metric("teds"), Some(0.5));
        assert_eq!(r.metric("value_acc"), Some(0.0));
        assert_eq!((r.metric("det_p"), r.metric("det_r")), (Some(0.5), Some(0.5)));
        let rows = r.rows();
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), METRIC_IDS);
        let teds = &rows[0].2;
        assert_eq!(teds["tables"][0]["pred"], Value::Null);
        assert_eq!(teds["tables"][1]["complexity"], "complex");
        assert_eq!(teds["unmatched_pred"], json!([1]));
    }

    #[test]
    fn no_predictions_leave_precision_undefined() {
        let gt = read_truth(TRUTH.as_bytes()).unwrap();
        let r = score_document(&gt, &[]);
        assert_eq!((r.metric("det_p"), r.metric("det_r")), (None, Some(0.0)));
        assert_eq!(r.metric("grits_con_f"), Some(0.0));
    }
}
