//! The `omnidoc` suite: OmniDocBench v1.5's end-to-end evaluation (opendatalab/OmniDocBench
//! @ 7bd6c2e, `configs/end2end.yaml`), reproduced exactly (rules in `docs/omnidocbench.md`).
//!
//! - [`gt`]: the ground-truth JSON; [`extract`]: the prediction Markdown split as
//!   `md_tex_filter` does; [`normalize`]: text, formula and table normalization (with a port
//!   of the pylatexenc steps the reference uses); [`matching`]: `quick_match`, `simple_match`
//!   and `no_split`, deterministic (no timeout fallback); [`metrics`]: Edit_dist
//!   (`ALL_page_avg`, `edit_whole`, `edit_sample_avg`), TEDS / TEDS-S (through
//!   [`crate::metrics::teds`]), reading order, and the `group` / `page` breakdowns.
//! - [`eval`] scores one provider's outputs of the pages that have an `omnidocbench` truth:
//!   it stores per-page rows (metric ids [`METRIC_IDS`]) whose traces list the matched pairs,
//!   and returns the whole-run figures, which are what OmniDocBench's leaderboard reports
//!   (they are kept in the run's record too: `v_runs.counts`).
//! - Display formulas are scored by CDM too (OmniDocBench's variant, [`crate::external::cdm`]), each
//!   matched pair prepared as v1.5 does (`metrics::cdm_input`): per page `formula_cdm` and
//!   `formula_exprate`, over the run the pair mean, ExpRate@CDM and the page-level mean; and
//!   `overall`, v1.5's `((1 − text_edit)·100 + CDM + TEDS) / 3` from page-level averages as
//!   OmniDocBench's own table script computes it ([`metrics::overall`]). A pair CDM cannot
//!   score has no CDM (its error is in the trace) and is left out of the means.

pub mod extract;
pub mod matching;
pub mod metrics;
pub mod normalize;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{json, Value};

use super::driver::{self, usable_doc, About, Opening, PairRows, Scored, Scoring, Summary, Tally};
use super::EvalFailure;
use crate::error::Result;
use crate::formats::omnidocbench as gt;
use crate::formats::TruthFormat;
use crate::progress::Progress;
use crate::store::{OutputRow, RunId, Store, TruthRow};
pub use matching::MatchMethod;

/// The suite's id in the store.
pub const SUITE: &str = "omnidoc";

/// OmniDocBench's headlines as its `eval` leads with them: the v1.5 `overall`, then the
/// text's edit distance (lower is better), the tables' TEDS and the formulas' CDM.
pub const HEADLINE: [&str; 4] = ["overall", "text_edit", "table_teds", "formula_cdm"];

/// Bump whenever a rule changes a value (2: display-formula CDM, and `overall` a number).
pub const OMNIDOC_SUITE_VERSION: u32 = 2;

/// The metric ids, in report order.
pub const METRIC_IDS: [&str; 11] = [
    "text_edit",
    "text_edit_whole",
    "text_edit_sample",
    "formula_edit",
    "formula_cdm",
    "formula_exprate",
    "table_teds",
    "table_teds_s",
    "table_edit",
    "order_edit",
    "overall",
];

/// The truth formats the suite scores: OmniDocBench pages, and Label Studio tasks read into
/// them (`docs/label-studio.md`).
pub const FORMATS: &[TruthFormat] = &[TruthFormat::OmniDocBench, TruthFormat::LabelStudio];

/// Reads one stored page truth of either format.
fn read_truth(format: &str, bytes: &[u8]) -> std::result::Result<gt::Page, String> {
    if format == TruthFormat::LabelStudio.as_str() {
        crate::formats::label_studio::read_page(bytes).map_err(|e| e.to_string())
    } else {
        gt::read_page(bytes).map_err(|e| e.to_string())
    }
}

/// The Markdown of one page (zero-based) of an output, for a truth of that page of a
/// multi-page document: the page's part where the output's Markdown is split into its pages by
/// form feeds (imported Markdown, the `truth` provider), else its blocks on that page.
pub fn page_markdown(doc: &crate::doc::Doc, page: u32) -> String {
    if let Some(md) = &doc.markdown {
        let parts: Vec<&str> = md.split('\u{c}').collect();
        if parts.len() > 1 || doc.pages.len() <= 1 {
            return parts.get(page as usize).map(|p| p.to_string()).unwrap_or_default();
        }
    }
    doc.page_markdown(page)
}

/// Parses `quick`, `simple` or `none` (`no_split`).
pub fn parse_method(s: &str) -> std::result::Result<MatchMethod, String> {
    match s {
        "quick" => Ok(MatchMethod::Quick),
        "simple" => Ok(MatchMethod::Simple),
        "none" | "no_split" => Ok(MatchMethod::NoSplit),
        _ => Err(format!("expected quick, simple or none, got {s:?}")),
    }
}

/// What to score.
#[derive(Debug, Clone)]
pub struct OmnidocOptions<'a> {
    /// The provider whose outputs are scored.
    pub provider: &'a str,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The matching method.
    pub method: MatchMethod,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// The whole-run figures, as OmniDocBench reports them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OmnidocSummary {
    /// Suite id.
    pub suite: &'static str,
    /// Suite version.
    pub suite_version: u32,
    /// The provider scored.
    pub provider: String,
    /// The matching method (`quick`, `simple`, `no_split`).
    pub method: &'static str,
    /// Pages with a truth.
    pub pages: u64,
    /// Of those, pages with an output of the provider (the others are skipped, as the
    /// reference skips pages without a prediction).
    pub scored: u64,
    /// Per-page metric rows written now (rows already stored are kept).
    pub rows_written: u64,
    /// (metric id, value) over the whole run: [`METRIC_IDS`] (`formula_cdm` the mean over
    /// display-formula pairs, `formula_exprate` ExpRate@CDM over them), then
    /// `formula_cdm_page` and `table_teds_page`, the page-level means `overall` is made of.
    pub figures: Vec<(String, Option<f64>)>,
    /// Display-formula pairs CDM could not score (left out of the CDM figures), with why.
    pub cdm_errors: Vec<String>,
    /// The official result's `page` breakdowns: element → metric → page attribute → value.
    pub page: BTreeMap<String, BTreeMap<String, BTreeMap<String, f64>>>,
    /// Pages that could not be scored.
    pub failures: Vec<EvalFailure>,
}

/// One per-page metric row: (metric id, value, trace).
type PageRow = (&'static str, Option<f64>, Value);

fn teds(pred: &str, gt: &str, structure_only: bool) -> f64 {
    crate::metrics::teds::teds(pred, gt, structure_only)
}

fn method_name(m: MatchMethod) -> &'static str {
    match m {
        MatchMethod::Quick => "quick",
        MatchMethod::Simple => "simple",
        MatchMethod::NoSplit => "no_split",
    }
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The omnidoc suite as the driver runs it: one item per page with a truth. OmniDocBench
/// scores the run as a whole (its hybrid matching moves formulas into the text samples only
/// when the run has text), so the pages are read one by one and their rows come from the run.
struct OmnidocSuite<'a> {
    opts: &'a OmnidocOptions<'a>,
    /// Every page with a readable truth, in order.
    pages: Vec<gt::Page>,
    /// Page stem -> the prediction's Markdown.
    predictions: BTreeMap<String, String>,
    /// Image name -> (output id, truth id) of the pages scored.
    pairs: HashMap<String, (i64, i64)>,
    /// The run's report, once scored.
    report: Option<metrics::Report>,
}

impl Scoring for OmnidocSuite<'_> {
    type Item = TruthRow;
    type Unit = (gt::Page, OutputRow);
    type Kept = ();
    type Summary = OmnidocSummary;

    fn id(&self) -> &'static str {
        SUITE
    }

    fn version(&self) -> u32 {
        OMNIDOC_SUITE_VERSION
    }

    fn formats(&self) -> &'static [TruthFormat] {
        FORMATS
    }

    fn items(&mut self, store: &Store) -> Result<Vec<TruthRow>> {
        // Page by page: never grouped, one truth is one page. A page with truths of both
        // formats (a draft ingested, then its Label Studio review) is scored on the newest.
        let rows: Vec<TruthRow> = store
            .truths(self.opts.dataset)?
            .into_iter()
            .filter(|t| FORMATS.iter().any(|f| f.as_str() == t.format))
            .collect();
        Ok(crate::truth::newest_page_truths(rows))
    }

    fn about<'a>(&'a self, t: &'a TruthRow) -> About<'a> {
        About { document: t.document, dataset: &t.dataset, provider: self.opts.provider }
    }

    fn open(&mut self, store: &Store, t: &TruthRow, _: &str) -> Result<Opening<Self::Unit>> {
        let Some(bytes) = store.blob(&t.blob)? else { return Ok(Opening::Skip) };
        let page: gt::Page = match read_truth(&t.format, &bytes) {
            Ok(p) => p,
            Err(e) => return Ok(Opening::Failed(format!("unreadable {} truth: {e}", t.format))),
        };
        Ok(match store.latest_output(t.document, self.opts.provider)? {
            None => {
                self.pages.push(page);
                Opening::Skip
            }
            Some(out) => Opening::Pair { output: out.id, truth: t.id, unit: (page, out) },
        })
    }

    fn score(
        &mut self,
        store: &Store,
        t: &TruthRow,
        (page, out): Self::Unit,
        _: &str,
    ) -> Result<std::result::Result<Scored<()>, String>> {
        let doc = usable_doc(store, &out);
        if let Ok(doc) = &doc {
            // A page of a stored document is scored on that page of the output alone.
            let md = match &page.page_info.corpus_source {
                Some(s) => page_markdown(doc, s.page.saturating_sub(1)),
                None => doc.markdown(),
            };
            self.predictions.insert(page.stem().to_string(), md);
            self.pairs.insert(page.image_name().to_string(), (out.id, t.id));
        }
        self.pages.push(page);
        Ok(doc.map(|_| Scored { kept: (), rows: Vec::new() }))
    }

    fn score_run(&mut self, store: &Store) -> Vec<PairRows> {
        let engine = crate::external::cdm::CdmEngine::new(
            crate::metrics::cdm::Variant::OmniDocBench,
            Some(store),
        );
        let cdm = |pairs: &[(String, String)]| engine.score_pairs(pairs);
        let report = metrics::evaluate_with_cdm(
            &self.pages,
            &self.predictions,
            self.opts.method,
            Some(&teds),
            Some(&cdm),
        );
        let pages = &self.pages;
        let pairs = &self.pairs;
        // Per-page rows.
        let mut per_page: BTreeMap<String, Vec<PageRow>> = BTreeMap::new();
        let elements = [
            ("text", &report.text_block),
            ("formula", &report.display_formula),
            ("table", &report.table),
            ("order", &report.reading_order),
        ];
        for page in pages {
            let img = page.image_name();
            if !pairs.contains_key(img) {
                continue;
            }
            let key = metrics::edit_page_key(img);
            let mut rows = Vec::new();
            let mut page_cdm = None;
            let mut page_teds = None;
            let mut page_text = None;
            for (element, result) in elements {
                let samples: Vec<&metrics::Sample> =
                    result.samples.iter().filter(|s| s.page == img).collect();
                let trace: Vec<Value> = samples
                .iter()
                .map(|s| match &s.entry {
                    Some(e) => json!({
                        "gt": e.gt, "pred": e.pred, "norm_gt": e.norm_gt, "norm_pred": e.norm_pred,
                        "category": e.gt_category_type, "metric": s.metric,
                    }),
                    None => json!({"order_gt": s.order_gt, "order_pred": s.order_pred, "metric": s.metric}),
                })
                .collect();
                let page_edit = result.edit.per_page.get(&key).copied();
                let sample_edits: Vec<f64> =
                    samples.iter().filter_map(|s| s.metric.get("Edit_dist").copied()).collect();
                let trace = json!({"pairs": trace});
                match element {
                    "text" => {
                        page_text = page_edit;
                        rows.push(("text_edit", page_edit, trace.clone()));
                        let (num, den) = samples.iter().fold((0usize, 0usize), |(n, d), s| {
                            (n + s.edit_num.unwrap_or(0), d + s.upper_len)
                        });
                        let whole = (den > 0).then(|| num as f64 / den as f64);
                        rows.push((
                            "text_edit_whole",
                            whole,
                            json!({"edit_num": num, "upper_len": den}),
                        ));
                        rows.push((
                            "text_edit_sample",
                            mean(&sample_edits),
                            json!({"samples": sample_edits.len()}),
                        ));
                    }
                    "formula" => {
                        rows.push(("formula_edit", page_edit, trace));
                        let outcomes: Vec<&metrics::CdmOutcome> = result
                            .samples
                            .iter()
                            .zip(&result.cdm)
                            .filter(|(s, _)| s.page == img)
                            .map(|(_, c)| c)
                            .collect();
                        let f1: Vec<f64> = outcomes
                            .iter()
                            .filter_map(|c| c.score.as_ref().ok().map(|s| s.0))
                            .collect();
                        let exp: Vec<f64> =
                            f1.iter().map(|x| if *x >= 1.0 { 1.0 } else { 0.0 }).collect();
                        let pairs: Vec<Value> = outcomes
                            .iter()
                            .map(|c| match &c.score {
                                Ok((f1, r, p)) => json!({"gt": c.gt, "pred": c.pred,
                                    "f1": f1, "recall": r, "precision": p}),
                                Err(e) => json!({"gt": c.gt, "pred": c.pred, "error": e}),
                            })
                            .collect();
                        let errors = pairs.iter().filter(|p| p.get("error").is_some()).count();
                        let trace = json!({"variant": "omnidocbench", "pairs": pairs,
                            "cdm_errors": errors});
                        page_cdm = mean(&f1);
                        rows.push(("formula_cdm", page_cdm, trace));
                        rows.push(("formula_exprate", mean(&exp), json!({"pairs": f1.len()})));
                    }
                    "table" => {
                        let t: Vec<f64> =
                            samples.iter().filter_map(|s| s.metric.get("TEDS").copied()).collect();
                        let ts: Vec<f64> = samples
                            .iter()
                            .filter_map(|s| s.metric.get("TEDS_structure_only").copied())
                            .collect();
                        page_teds = mean(&t);
                        rows.push(("table_teds", page_teds, trace.clone()));
                        rows.push(("table_teds_s", mean(&ts), json!({"tables": ts.len()})));
                        rows.push(("table_edit", page_edit, json!({"tables": sample_edits.len()})));
                    }
                    _ => rows.push(("order_edit", page_edit, trace)),
                }
            }
            // The page's own overall, where it has text, a display formula CDM scored and a
            // table; the run's is from page-level means ([`metrics::overall`]).
            let (value, why) = match (page_text, page_cdm, page_teds) {
                (Some(t), Some(c), Some(s)) => {
                    (Some(((1.0 - t) * 100.0 + c * 100.0 + s * 100.0) / 3.0), Value::Null)
                }
                _ => (
                    None,
                    json!("the page lacks text, a display formula scored by CDM, or a table"),
                ),
            };
            rows.push((
                "overall",
                value,
                json!({"text_edit": page_text, "formula_cdm": page_cdm, "table_teds": page_teds,
                    "why": why}),
            ));
            per_page.insert(img.to_string(), rows);
        }
        let out = per_page
            .into_iter()
            .filter_map(|(img, rows)| {
                let &(output, truth) = pairs.get(&img)?;
                let rows =
                    rows.into_iter().map(|(m, v, t)| (m.to_string(), v, t.to_string())).collect();
                Some(PairRows { output, truth, rows })
            })
            .collect();
        self.report = Some(report);
        out
    }

    fn summarise(
        self,
        _: &mut Store,
        _: Option<RunId>,
        _: Vec<()>,
        tally: Tally,
    ) -> Result<OmnidocSummary> {
        let report = self.report.unwrap_or_default();
        let pairs = self.pairs;
        let mut summary = OmnidocSummary {
            suite: SUITE,
            suite_version: OMNIDOC_SUITE_VERSION,
            provider: self.opts.provider.to_string(),
            method: method_name(self.opts.method),
            pages: tally.items,
            scored: pairs.len() as u64,
            rows_written: tally.rows_written,
            failures: tally.failures,
            ..Default::default()
        };
        // Whole-run figures. OmniDocBench's mean over no pages (a run without display
        // formulas, tables or reading-order samples) is NaN; it is undefined here (`None`: `–`
        // in tables, null in JSON), never a number.
        let f = |v: f64| (!pairs.is_empty() && v.is_finite()).then_some(v);
        summary.figures = vec![
            ("text_edit".into(), f(report.text_block.edit.all_page_avg)),
            ("text_edit_whole".into(), f(report.text_block.edit.edit_whole)),
            ("text_edit_sample".into(), f(report.text_block.edit.edit_sample_avg)),
            ("formula_edit".into(), f(report.display_formula.edit.all_page_avg)),
            ("formula_cdm".into(), report.display_formula.cdm_mean()),
            ("formula_exprate".into(), report.display_formula.cdm_exprate()),
            ("table_teds".into(), report.table.teds),
            ("table_teds_s".into(), report.table.teds_structure),
            ("table_edit".into(), f(report.table.edit.all_page_avg)),
            ("order_edit".into(), f(report.reading_order.edit.all_page_avg)),
        ];
        let page_all = |el: &metrics::ElementResult, m: &str| {
            el.breakdown.page.get(m).and_then(|a| a.get("ALL")).copied()
        };
        let cdm_page = page_all(&report.display_formula, "CDM");
        let teds_page = page_all(&report.table, "TEDS");
        let overall = (!pairs.is_empty())
            .then(|| metrics::overall(report.text_block.edit.all_page_avg, cdm_page, teds_page))
            .flatten()
            .filter(|v| v.is_finite());
        summary.figures.push(("overall".into(), overall));
        summary.figures.push(("formula_cdm_page".into(), cdm_page));
        summary.figures.push(("table_teds_page".into(), teds_page));
        summary.cdm_errors = report
            .display_formula
            .cdm
            .iter()
            .filter_map(|c| c.score.as_ref().err().map(|e| format!("{}: {e}", c.gt)))
            .collect();
        for (name, el) in [
            ("text_block", &report.text_block),
            ("display_formula", &report.display_formula),
            ("table", &report.table),
            ("reading_order", &report.reading_order),
        ] {
            summary.page.insert(name.into(), el.breakdown.page.clone());
        }
        Ok(summary)
    }
}

/// Scores the provider's newest output of every page with an `omnidocbench` truth.
pub fn eval(
    store: &mut Store,
    opts: &OmnidocOptions<'_>,
    progress: &dyn Progress,
) -> Result<OmnidocSummary> {
    let suite = OmnidocSuite {
        opts,
        pages: Vec::new(),
        predictions: BTreeMap::new(),
        pairs: HashMap::new(),
        report: None,
    };
    driver::run(store, suite, opts.run, progress)
}

impl Summary for OmnidocSummary {
    fn failures(&self) -> &[EvalFailure] {
        &self.failures
    }

    fn run_counts(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn shard_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version, "pages": self.pages,
            "scored": self.scored, "rows_written": self.rows_written, "failed": self.failures.len(),
        })
    }
}
