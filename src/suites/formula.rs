//! The `formula` suite: a provider's formulas against pdf-parse-bench formula truths
//! (`--truth pdf-parse-bench`, its `formulas/` folder: `inline-formula` and `display-formula`
//! items with LaTeX truth). Rules in `docs/formula-suite.md`.
//!
//! Per document, each GT formula is paired with the predicted formula it corresponds to
//! (`crate::metrics::formula::match_formulas` over the prediction's Markdown: the imported
//! Markdown itself where there is one, else the Doc rendered as Markdown, formula blocks as
//! `$$…$$`) and scored: `cdm` (CDM F1, OmniDocBench's variant unless the suite is
//! `formula-unimernet`), `cdm_exprate` (1 when F1 = 1), `edit_sim` (1 − normalised edit
//! distance) and `exact` (equal after normalisation). A GT formula without a prediction is
//! missed: 0 on each, CDM included, without rendering. A pair CDM cannot score (a formula TeX
//! cannot render, no TeX) has no CDM value: its error is in the trace, it is left out of the
//! CDM means and counted, and the other metrics are kept.
//!
//! **Storage**: one row per (output, truth, metric); its value is the document mean over the
//! document's GT formulas ([`METRIC_IDS`]: the four metrics, the same by `inline` / `display`,
//! and `found` = paired / GT formulas). The `cdm` row's trace holds every pair (GT, prediction,
//! where it was found, every score, CDM's error), so a later run rebuilds the result from it
//! without rendering or matching again; the other rows' traces list per-formula values.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::driver::{self, usable_doc, About, Opening, Scored, Scoring, Summary, Tally};
use super::EvalFailure;
use crate::doc::Doc;
use crate::error::Result;
use crate::external::cdm::CdmEngine;
use crate::formats::pdf_parse_bench::{read_formulas, FormulaKind, GtFormula};
use crate::formats::TruthFormat;
use crate::metrics::cdm::Variant;
use crate::metrics::formula::{edit_sim, exact, match_formulas, strip_delimiters, Found};
use crate::progress::Progress;
use crate::store::{MetricRow, OutputRow, RunId, Store};
use crate::truth::{truth_groups, TruthGroup};

/// The suite's id with OmniDocBench's CDM (the default).
pub const SUITE: &str = "formula";

/// The formula suites' headlines: CDM and the normalised edit similarity.
pub const HEADLINE: [&str; 2] = ["cdm", "edit_sim"];

/// The suite's id with UniMERNet's CDM (`eval --suite formula --cdm unimernet`): a suite id of
/// its own, so the two variants' rows never mix.
pub const SUITE_UNIMERNET: &str = "formula-unimernet";

/// Bump whenever a rule changes a value.
pub const FORMULA_SUITE_VERSION: u32 = 1;

/// The truth formats this suite reads (a truth without formulas is skipped).
pub const FORMATS: [TruthFormat; 1] = [TruthFormat::PdfParseBench];

/// The per-formula metric ids.
pub const FORMULA_METRICS: [&str; 4] = ["cdm", "cdm_exprate", "edit_sim", "exact"];

/// Every metric id stored, in report order.
pub const METRIC_IDS: [&str; 9] = [
    "cdm",
    "cdm_exprate",
    "edit_sim",
    "exact",
    "cdm_inline",
    "cdm_display",
    "edit_sim_inline",
    "edit_sim_display",
    "found",
];

/// The suite id of a CDM variant.
pub(crate) fn suite_id(variant: Variant) -> &'static str {
    match variant {
        Variant::OmniDocBench => SUITE,
        Variant::UniMERNet => SUITE_UNIMERNET,
    }
}

/// One pair's CDM.
#[derive(Debug, Clone, PartialEq)]
pub enum Cdm {
    /// No prediction: 0 without rendering.
    Missed,
    /// Scored.
    Score {
        /// F1.
        f1: f64,
        /// Recall.
        recall: f64,
        /// Precision.
        precision: f64,
    },
    /// CDM could not score the pair.
    Error(String),
}

impl Cdm {
    fn f1(&self) -> Option<f64> {
        match self {
            Cdm::Missed => Some(0.0),
            Cdm::Score { f1, .. } => Some(*f1),
            Cdm::Error(_) => None,
        }
    }
}

/// One GT formula's result.
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaResult {
    /// Index among the document's GT formulas.
    pub gt: usize,
    /// Inline or display.
    pub kind: FormulaKind,
    /// The GT formula as the truth writes it.
    pub gt_latex: String,
    /// The predicted formula, if one was paired.
    pub pred: Option<String>,
    /// Where it was found: `math` (a delimited span, with `display`) or `text`.
    pub found: Option<&'static str>,
    /// Match-key similarity of the pairing.
    pub similarity: Option<f64>,
    /// 1 − normalised edit distance (0 when missed).
    pub edit_sim: f64,
    /// Equal after normalisation.
    pub exact: bool,
    /// CDM.
    pub cdm: Cdm,
}

impl FormulaResult {
    /// Returns one per-formula metric (an id of [`FORMULA_METRICS`]).
    pub fn metric(&self, id: &str) -> Option<f64> {
        match id {
            "cdm" => self.cdm.f1(),
            "cdm_exprate" => self.cdm.f1().map(|f| if f >= 1.0 { 1.0 } else { 0.0 }),
            "edit_sim" => Some(self.edit_sim),
            "exact" => Some(if self.exact { 1.0 } else { 0.0 }),
            _ => None,
        }
    }

    fn to_json(&self) -> Value {
        let mut v = json!({
            "gt": self.gt, "type": self.kind.name(), "gt_latex": self.gt_latex,
            "pred": self.pred, "found": self.found, "similarity": self.similarity,
            "edit_sim": self.edit_sim, "exact": self.exact, "cdm": self.cdm.f1(),
        });
        match &self.cdm {
            Cdm::Score { recall, precision, .. } => {
                v["cdm_recall"] = json!(recall);
                v["cdm_precision"] = json!(precision);
            }
            Cdm::Error(e) => v["cdm_error"] = json!(e),
            Cdm::Missed => {}
        }
        v
    }

    fn from_json(v: &Value) -> Option<FormulaResult> {
        let kind = match v["type"].as_str()? {
            "inline" => FormulaKind::Inline,
            _ => FormulaKind::Display,
        };
        let pred = v["pred"].as_str().map(str::to_string);
        let cdm = match (&pred, v["cdm_error"].as_str(), v["cdm"].as_f64()) {
            (_, Some(e), _) => Cdm::Error(e.to_string()),
            (None, _, _) => Cdm::Missed,
            (Some(_), None, Some(f1)) => Cdm::Score {
                f1,
                recall: v["cdm_recall"].as_f64()?,
                precision: v["cdm_precision"].as_f64()?,
            },
            _ => return None,
        };
        Some(FormulaResult {
            gt: v["gt"].as_u64()? as usize,
            kind,
            gt_latex: v["gt_latex"].as_str()?.to_string(),
            found: match v["found"].as_str() {
                Some("math") => Some("math"),
                Some("text") => Some("text"),
                _ => None,
            },
            pred,
            similarity: v["similarity"].as_f64(),
            edit_sim: v["edit_sim"].as_f64()?,
            exact: v["exact"].as_bool()?,
            cdm,
        })
    }
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / n as f64)
}

/// One document's results.
#[derive(Debug, Clone, PartialEq)]
pub struct DocResult {
    /// Per GT formula, in order.
    pub formulas: Vec<FormulaResult>,
    /// The CDM variant.
    pub variant: Variant,
}

impl DocResult {
    /// Paired GT formulas.
    pub fn found(&self) -> usize {
        self.formulas.iter().filter(|f| f.pred.is_some()).count()
    }

    /// Pairs CDM could not score.
    pub fn cdm_errors(&self) -> usize {
        self.formulas.iter().filter(|f| matches!(f.cdm, Cdm::Error(_))).count()
    }

    /// Returns a document-level metric (an id of [`METRIC_IDS`]).
    pub fn metric(&self, id: &str) -> Option<f64> {
        if id == "found" {
            let n = self.formulas.len();
            return (n > 0).then(|| self.found() as f64 / n as f64);
        }
        let (base, kind) = match id.rsplit_once('_') {
            Some((b, "inline")) => (b, Some(FormulaKind::Inline)),
            Some((b, "display")) => (b, Some(FormulaKind::Display)),
            _ => (id, None),
        };
        mean(
            self.formulas
                .iter()
                .filter(|f| kind.is_none_or(|k| f.kind == k))
                .filter_map(|f| f.metric(base)),
        )
    }

    /// The metric rows to store: (metric id, document value, trace).
    pub fn rows(&self) -> Vec<(&'static str, Option<f64>, Value)> {
        METRIC_IDS
            .iter()
            .map(|&id| {
                let trace = match id {
                    "cdm" => json!({
                        "variant": self.variant.name(),
                        "cdm_errors": self.cdm_errors(),
                        "formulas": self.formulas.iter().map(FormulaResult::to_json).collect::<Vec<_>>(),
                    }),
                    "found" => json!({"gt": self.formulas.len(), "found": self.found()}),
                    _ => {
                        let base = id.trim_end_matches("_inline").trim_end_matches("_display");
                        json!({"formulas": self.formulas.iter().map(|f| json!({
                            "gt": f.gt, "type": f.kind.name(), "value": f.metric(base)}))
                            .collect::<Vec<_>>()})
                    }
                };
                (id, self.metric(id), trace)
            })
            .collect()
    }

    /// Rebuilds a result from its stored `cdm` row.
    pub(crate) fn from_rows(rows: &[MetricRow], variant: Variant) -> Option<DocResult> {
        let row = rows.iter().find(|r| r.metric == "cdm")?;
        let trace: Value = serde_json::from_str(row.trace.as_deref()?).ok()?;
        let formulas = trace["formulas"]
            .as_array()?
            .iter()
            .map(FormulaResult::from_json)
            .collect::<Option<Vec<_>>>()?;
        Some(DocResult { formulas, variant })
    }
}

/// The prediction's text the formulas are looked for in: the imported Markdown itself, else
/// the Doc as Markdown (formula blocks as `$$…$$`, their LaTeX where the provider has it).
pub(crate) fn prediction_text(doc: &Doc) -> String {
    doc.markdown()
}

/// A GT formula's prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// The predicted formula: a math span's LaTeX (no delimiters), or the text found.
    pub pred: String,
    /// `math` or `text`.
    pub found: &'static str,
    /// For a math span: displayed rather than inline.
    pub display: Option<bool>,
    /// The pairing's match-key similarity.
    pub similarity: f64,
}

impl Paired {
    /// The prediction as the prediction wrote it: a math span in `$…$` / `$$…$$`, text as
    /// is (what the judge is shown, as pdf-parse-bench shows both sides with delimiters).
    pub(crate) fn delimited(&self) -> String {
        match self.display {
            Some(true) => format!("$${}$$", self.pred),
            Some(false) => format!("${}$", self.pred),
            None => self.pred.clone(),
        }
    }
}

/// Pairs a document's GT formulas with their predictions in `text`: per GT formula, its
/// prediction, or `None` for a miss.
pub(crate) fn pair_formulas(gt: &[GtFormula], text: &str) -> Vec<Option<Paired>> {
    let sources: Vec<String> = gt.iter().map(|g| g.source.clone()).collect();
    match_formulas(&sources, text)
        .into_iter()
        .map(|m| {
            m.map(|m| {
                let (found, display) = match m.found {
                    Found::Math { display, .. } => ("math", Some(display)),
                    Found::Text { .. } => ("text", None),
                };
                Paired { pred: m.pred, found, display, similarity: m.similarity }
            })
        })
        .collect()
}

/// Scores one document: pairs its GT formulas with predictions in `text` and scores each
/// pair; `cdm` scores the pairs (GT LaTeX without delimiters, prediction), one result per pair.
pub(crate) fn score_document(
    gt: &[GtFormula],
    text: &str,
    variant: Variant,
    cdm: impl FnOnce(
        &[(String, String)],
    ) -> Vec<std::result::Result<crate::external::cdm::CdmScore, String>>,
) -> DocResult {
    let paired = pair_formulas(gt, text);
    let pairs: Vec<(String, String)> = gt
        .iter()
        .zip(&paired)
        .filter_map(|(g, p)| p.as_ref().map(|p| (strip_delimiters(&g.source), p.pred.clone())))
        .collect();
    let mut scores = if pairs.is_empty() { Vec::new() } else { cdm(&pairs) }.into_iter();
    let formulas = gt
        .iter()
        .zip(paired)
        .enumerate()
        .map(|(i, (g, p))| match p {
            None => FormulaResult {
                gt: i,
                kind: g.kind,
                gt_latex: g.source.clone(),
                pred: None,
                found: None,
                similarity: None,
                edit_sim: 0.0,
                exact: false,
                cdm: Cdm::Missed,
            },
            Some(Paired { pred, found, similarity: sim, .. }) => {
                let cdm = match scores.next() {
                    Some(Ok(s)) => {
                        Cdm::Score { f1: s.f1, recall: s.recall, precision: s.precision }
                    }
                    Some(Err(e)) => Cdm::Error(e),
                    None => Cdm::Error("CDM gave no result for the pair".into()),
                };
                FormulaResult {
                    gt: i,
                    kind: g.kind,
                    gt_latex: g.source.clone(),
                    edit_sim: edit_sim(&g.source, &pred),
                    exact: exact(&g.source, &pred),
                    pred: Some(pred),
                    found: Some(found),
                    similarity: Some(sim),
                    cdm,
                }
            }
        })
        .collect();
    DocResult { formulas, variant }
}

/// Reads a truth's formulas; the inner error says why it cannot be read.
pub(crate) fn load_truth(
    store: &Store,
    t: &TruthGroup,
) -> Result<std::result::Result<Vec<GtFormula>, String>> {
    let Some(part) = t.parts.first() else { return Ok(Err("no truth file".into())) };
    Ok(match store.blob(&part.blob)? {
        Some(b) => read_formulas(&b).map_err(|e| e.to_string()),
        None => Err(format!("truth blob {} missing from the store", part.blob)),
    })
}

/// What to score.
#[derive(Debug, Clone)]
pub struct FormulaOptions<'a> {
    /// The provider whose outputs are scored.
    pub provider: &'a str,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The CDM variant (which also names the suite: `suite_id`).
    pub variant: Variant,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// One document's line of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct DocRow {
    /// The document's name.
    pub document: String,
    /// GT formulas.
    pub gt_formulas: usize,
    /// Of those, paired with a prediction.
    pub found: usize,
    /// Pairs CDM could not score.
    pub cdm_errors: usize,
    /// (metric id, document value), in [`METRIC_IDS`] order.
    pub values: Vec<(String, Option<f64>)>,
}

/// Formula-level figures of a group of GT formulas.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GroupFigures {
    /// GT formulas.
    pub formulas: usize,
    /// Of those, paired.
    pub found: usize,
    /// Of those, pairs CDM could not score (left out of the CDM means).
    pub cdm_errors: usize,
    /// (metric id, mean over the group's formulas) for [`FORMULA_METRICS`]; `cdm_exprate` is
    /// ExpRate@CDM.
    pub values: Vec<(String, Option<f64>)>,
}

fn group_figures(formulas: &[&FormulaResult]) -> GroupFigures {
    GroupFigures {
        formulas: formulas.len(),
        found: formulas.iter().filter(|f| f.pred.is_some()).count(),
        cdm_errors: formulas.iter().filter(|f| matches!(f.cdm, Cdm::Error(_))).count(),
        values: FORMULA_METRICS
            .iter()
            .map(|id| (id.to_string(), mean(formulas.iter().filter_map(|f| f.metric(id)))))
            .collect(),
    }
}

/// What an eval did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FormulaSummary {
    /// Suite id (`formula` or `formula-unimernet`).
    pub suite: &'static str,
    /// Suite version.
    pub suite_version: u32,
    /// The CDM variant.
    pub cdm: &'static str,
    /// The provider scored.
    pub provider: String,
    /// Truths looked at.
    pub documents: u64,
    /// Of those, scored now.
    pub scored: u64,
    /// Of those, rebuilt from the rows stored before.
    pub cached: u64,
    /// Metric rows written now.
    pub rows_written: u64,
    /// Per document.
    pub rows: Vec<DocRow>,
    /// Means of the document values (what `report` shows).
    pub document_means: Vec<(String, Option<f64>)>,
    /// Over every GT formula of the scored documents.
    pub formulas: GroupFigures,
    /// By formula type (`inline`, `display`).
    pub by_type: BTreeMap<String, GroupFigures>,
    /// The first pair CDM could not score, with why (`document: formula: error`).
    pub cdm_error_example: Option<String>,
    /// Documents that could not be scored.
    pub failures: Vec<EvalFailure>,
}

struct FormulaSuite<'a> {
    opts: &'a FormulaOptions<'a>,
}

impl FormulaSuite<'_> {
    fn doc_row(&self, name: &str, r: &DocResult) -> DocRow {
        DocRow {
            document: name.to_string(),
            gt_formulas: r.formulas.len(),
            found: r.found(),
            cdm_errors: r.cdm_errors(),
            values: METRIC_IDS.iter().map(|id| (id.to_string(), r.metric(id))).collect(),
        }
    }
}

impl Scoring for FormulaSuite<'_> {
    type Item = TruthGroup;
    type Unit = (Vec<GtFormula>, OutputRow);
    type Kept = (DocRow, DocResult);
    type Summary = FormulaSummary;

    fn id(&self) -> &'static str {
        suite_id(self.opts.variant)
    }

    fn version(&self) -> u32 {
        FORMULA_SUITE_VERSION
    }

    fn formats(&self) -> &'static [TruthFormat] {
        &FORMATS
    }

    fn items(&mut self, store: &Store) -> Result<Vec<TruthGroup>> {
        truth_groups(store, self.opts.dataset, |f| FORMATS.contains(&f))
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
        // A truth of pdf-parse-bench's tables folder: not this suite's.
        if gt.is_empty() {
            return Ok(Opening::Skip);
        }
        Ok(match store.latest_output(t.document, self.opts.provider)? {
            None => Opening::Skip,
            Some(out) => Opening::Pair { output: out.id, truth: t.id(), unit: (gt, out) },
        })
    }

    fn reuse(
        &mut self,
        _: &TruthGroup,
        (gt, _): &Self::Unit,
        name: &str,
        stored: &[MetricRow],
    ) -> Option<Self::Kept> {
        let r = DocResult::from_rows(stored, self.opts.variant)?;
        (r.formulas.len() == gt.len()).then(|| (self.doc_row(name, &r), r))
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
        let variant = self.opts.variant;
        let engine = CdmEngine::new(variant, Some(store));
        let r =
            score_document(&gt, &prediction_text(&doc), variant, |pairs| engine.score_pairs(pairs));
        let rows =
            r.rows().into_iter().map(|(m, v, tr)| (m.to_string(), v, tr.to_string())).collect();
        Ok(Ok(Scored { kept: (self.doc_row(name, &r), r), rows }))
    }

    fn summarise(
        self,
        _: &mut Store,
        _: Option<RunId>,
        kept: Vec<Self::Kept>,
        tally: Tally,
    ) -> Result<FormulaSummary> {
        let (rows, results): (Vec<DocRow>, Vec<DocResult>) = kept.into_iter().unzip();
        let mut summary = FormulaSummary {
            suite: suite_id(self.opts.variant),
            suite_version: FORMULA_SUITE_VERSION,
            cdm: self.opts.variant.name(),
            provider: self.opts.provider.to_string(),
            documents: tally.items,
            scored: tally.scored,
            cached: tally.cached,
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
        let all: Vec<&FormulaResult> = results.iter().flat_map(|r| &r.formulas).collect();
        summary.formulas = group_figures(&all);
        summary.cdm_error_example = summary.rows.iter().zip(&results).find_map(|(row, r)| {
            r.formulas.iter().find_map(|f| match &f.cdm {
                Cdm::Error(e) => Some(format!("{}: {}: {e}", row.document, f.gt_latex)),
                _ => None,
            })
        });
        for kind in [FormulaKind::Inline, FormulaKind::Display] {
            let some: Vec<&FormulaResult> =
                all.iter().copied().filter(|f| f.kind == kind).collect();
            if !some.is_empty() {
                summary.by_type.insert(kind.name().to_string(), group_figures(&some));
            }
        }
        Ok(summary)
    }
}

/// Scores the provider's newest output of every document with a formula truth.
pub fn eval(
    store: &mut Store,
    opts: &FormulaOptions<'_>,
    progress: &dyn Progress,
) -> Result<FormulaSummary> {
    driver::run(store, FormulaSuite { opts }, opts.run, progress)
}

impl Summary for FormulaSummary {
    fn failures(&self) -> &[EvalFailure] {
        &self.failures
    }

    fn run_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version, "cdm": self.cdm,
            "documents": self.documents, "scored": self.scored, "cached": self.cached,
            "rows_written": self.rows_written, "formulas": self.formulas,
            "by_type": self.by_type, "failed": self.failures.len(),
        })
    }

    fn shard_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version, "documents": self.documents,
            "scored": self.scored, "cached": self.cached, "rows_written": self.rows_written,
            "failed": self.failures.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::external::cdm::CdmScore;
    use crate::formats::pdf_parse_bench::read_formulas;

    const TRUTH: &str = r#"[
        {"type": "display-formula", "data": "$$\\frac{a}{b}=c$$"},
        {"type": "text", "data": "Some prose."},
        {"type": "inline-formula", "data": "$\\alpha+\\beta$"},
        {"type": "inline-formula", "data": "$q_{zz}^{k}$"}
    ]"#;

    fn perfect(pairs: &[(String, String)]) -> Vec<std::result::Result<CdmScore, String>> {
        pairs
            .iter()
            .map(|(g, p)| {
                let f1 = if g == p { 1.0 } else { 0.5 };
                Ok(CdmScore { f1, recall: f1, precision: f1, trace: Value::Null })
            })
            .collect()
    }

    #[test]
    fn misses_score_zero_and_means_split_by_type() {
        let gt = read_formulas(TRUTH.as_bytes()).unwrap();
        let md = "Some prose. $\\alpha + \\beta$\n\n$$\\frac{a}{b}=d$$\n";
        let r = score_document(&gt, md, Variant::OmniDocBench, perfect);
        let f = &r.formulas;
        assert_eq!(f[0].pred.as_deref(), Some("\\frac{a}{b}=d"));
        assert_eq!(f[1].pred.as_deref(), Some("\\alpha + \\beta"));
        assert_eq!(f[2].pred, None);
        // Hand-computed: "\frac{a}{b}=c" vs "…=d", one of 13 characters.
        assert!((f[0].edit_sim - 12.0 / 13.0).abs() < 1e-12);
        assert!(f[1].exact && !f[0].exact);
        assert_eq!((f[2].edit_sim, f[2].cdm.clone()), (0.0, Cdm::Missed));
        // CDM as the engine gave it: 0.5 (differs), 0.5 ("\alpha + \beta" != "\alpha+\beta").
        assert_eq!(r.metric("cdm"), Some(1.0 / 3.0));
        assert_eq!(r.metric("cdm_exprate"), Some(0.0));
        assert_eq!(r.metric("cdm_display"), Some(0.5));
        assert_eq!(r.metric("cdm_inline"), Some(0.25));
        assert!((r.metric("edit_sim").unwrap() - (12.0 / 13.0 + 1.0) / 3.0).abs() < 1e-12);
        assert_eq!(r.metric("exact"), Some(1.0 / 3.0));
        assert_eq!(r.metric("found"), Some(2.0 / 3.0));
        // Stored rows rebuild the same result.
        let rows: Vec<MetricRow> = r
            .rows()
            .into_iter()
            .map(|(m, v, t)| MetricRow { metric: m.into(), value: v, trace: Some(t.to_string()) })
            .collect();
        assert_eq!(rows.iter().map(|r| r.metric.as_str()).collect::<Vec<_>>(), METRIC_IDS);
        // (JSON keeps floats to their shortest form, so to the last bit or so.)
        let back = DocResult::from_rows(&rows, Variant::OmniDocBench).unwrap();
        assert_eq!(back.formulas.len(), r.formulas.len());
        for (a, b) in back.formulas.iter().zip(&r.formulas) {
            assert_eq!((&a.pred, a.found, &a.cdm, a.exact), (&b.pred, b.found, &b.cdm, b.exact));
            assert!((a.edit_sim - b.edit_sim).abs() < 1e-12);
        }
    }

    #[test]
    fn a_cdm_error_is_recorded_per_formula_not_a_zero() {
        let gt = read_formulas(TRUTH.as_bytes()).unwrap();
        let md = "$$\\frac{a}{b}=c$$ and $\\alpha+\\beta$";
        let failing = |pairs: &[(String, String)]| -> Vec<std::result::Result<CdmScore, String>> {
            pairs
                .iter()
                .enumerate()
                .map(|(i, _)| match i {
                    0 => Err("! Undefined control sequence.".to_string()),
                    _ => Ok(CdmScore { f1: 1.0, recall: 1.0, precision: 1.0, trace: Value::Null }),
                })
                .collect()
        };
        let r = score_document(&gt, md, Variant::OmniDocBench, failing);
        assert_eq!(r.formulas[0].cdm, Cdm::Error("! Undefined control sequence.".into()));
        assert_eq!(r.cdm_errors(), 1);
        // Left out of the CDM mean (1 and the miss's 0), kept in the others.
        assert_eq!(r.metric("cdm"), Some(0.5));
        assert_eq!(r.metric("cdm_display"), None);
        assert_eq!(r.metric("edit_sim_display"), Some(1.0));
        let trace = &r.rows()[0].2;
        assert_eq!(trace["cdm_errors"], 1);
        assert_eq!(trace["formulas"][0]["cdm_error"], "! Undefined control sequence.");
        assert_eq!(trace["formulas"][0]["cdm"], Value::Null);
    }

    #[test]
    fn the_placeholder_engine_errors_are_kept_too() {
        let gt = read_formulas(TRUTH.as_bytes()).unwrap();
        let engine = CdmEngine::new(Variant::UniMERNet, None);
        let r = score_document(&gt, "$$\\frac{a}{b}=c$$", Variant::UniMERNet, |p| {
            engine.score_pairs(p)
        });
        // Whatever the engine says: a score in [0, 1] or an error with a message.
        match &r.formulas[0].cdm {
            Cdm::Score { f1, .. } => assert!((0.0..=1.0).contains(f1)),
            Cdm::Error(e) => assert!(!e.is_empty()),
            Cdm::Missed => panic!("paired"),
        }
        assert_eq!(r.formulas[0].edit_sim, 1.0);
    }
}
