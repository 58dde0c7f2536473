//! The `parsebench` suite: ParseBench's rule-based parse evaluation (truth format
//! `parsebench`) on one provider's outputs ([`crate::metrics::parsebench`]); rules in
//! `docs/parsebench.md`.
//!
//! - **What the rules see.** The Markdown the output was read from ([`Doc::markdown`]), else
//!   the Doc rendered with `Doc::to_markdown`: the whole document, as ParseBench runs its
//!   rules on the document's Markdown. An output that failed counts as empty Markdown (every
//!   rule fails), as ParseBench counts a failed inference 0 on every score. The `layout`
//!   rules read the Doc's blocks (kind, box, page size) and `is_header`/`is_footer` its page
//!   header and footer blocks ([`score_case_in`]).
//! - **Test cases.** One per (document, category): each category part of the truth.
//! - **Rows.** Per document, on (its newest output, its truth): for each category `c`,
//!   `c/<metric>` for every metric of the case ([`crate::metrics::parsebench::case_metrics`]:
//!   `rule_pass_rate`, `rule_<type>_pass_rate`, `normalized_*`, `content_faithfulness`,
//!   `semantic_formatting`), the trace of `c/rule_pass_rate` holding every rule's result and
//!   the rule types not run; the dimension ids of [`METRIC_IDS`] (`text_content`,
//!   `text_formatting`, `chart`, ...) holding the case's headline metric, so a report's mean
//!   over documents is ParseBench's leaderboard figure; and `rule_pass_rate`, the mean score
//!   of all the document's rules run (corpus's own summary, not a ParseBench figure).
//!   Scoring is idempotent per [`PARSEBENCH_SUITE_VERSION`].

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::driver::{self, usable_doc, About, Opening, Scored, Scoring, Summary, Tally};
use super::EvalFailure;
use crate::doc::Doc;
use crate::error::Result;
use crate::formats::parsebench::{read_part, read_table_options, EXPECTED_MARKDOWN};
use crate::formats::TruthFormat;
use crate::metrics::parsebench::table_score::{table_metrics, TableOptions};
use crate::metrics::parsebench::{
    headline_of, score_case_in, Aggregate, CaseScore, Rule, DIMENSIONS,
};
use crate::progress::Progress;
use crate::store::{OutputRow, RunId, Store};
use crate::truth::{truth_groups, TruthGroup};

/// The suite's id in the store.
pub const SUITE: &str = "parsebench";

/// Bump whenever a rule changes a value.
pub const PARSEBENCH_SUITE_VERSION: u32 = 2;

/// The truth formats it reads.
pub const FORMATS: [TruthFormat; 1] = [TruthFormat::ParseBench];

/// The metric ids with fixed names: the six dimensions (each the headline metric of that
/// category's test case) and the document's `rule_pass_rate`; per category `c`, `c/<metric>`
/// ids are named by the data.
pub const METRIC_IDS: [&str; 7] =
    ["text_content", "text_formatting", "chart", "table", "layout", "form", "rule_pass_rate"];

/// The leaderboard's columns: the dimensions.
pub const HEADLINE: [&str; 6] =
    ["text_content", "text_formatting", "chart", "table", "layout", "form"];

/// A truth read: its test cases (category, rules) and its Markdown.
#[derive(Debug, Clone, Default)]
pub struct Truth {
    /// (category, rules), in category order.
    pub cases: Vec<(String, Vec<Rule>)>,
    /// The expected Markdown, where given.
    pub expected_markdown: Option<String>,
    /// Per category, its table settings (`trm_unsupported`, ...).
    pub table_options: BTreeMap<String, TableOptions>,
}

/// Reads a truth from the store; the inner error says why it cannot be read.
pub fn load_truth(store: &Store, t: &TruthGroup) -> Result<std::result::Result<Truth, String>> {
    let mut out = Truth::default();
    for p in &t.parts {
        let Some(bytes) = store.blob(&p.blob)? else {
            return Ok(Err(format!("truth blob {} missing from the store", p.blob)));
        };
        if p.part == EXPECTED_MARKDOWN {
            out.expected_markdown = Some(String::from_utf8_lossy(&bytes).into_owned());
            continue;
        }
        match read_part(&bytes) {
            Ok(rules) => {
                out.table_options.insert(p.part.clone(), read_table_options(&bytes));
                out.cases.push((p.part.clone(), rules));
            }
            Err(e) => return Ok(Err(format!("category {}: {e}", p.part))),
        }
    }
    Ok(Ok(out))
}

/// One document scored.
#[derive(Debug, Clone, Serialize)]
pub struct DocScore {
    /// The document's name.
    pub document: String,
    /// Its test cases.
    pub cases: Vec<CaseScore>,
    /// The provider's output failed (scored as empty Markdown): why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_error: Option<String>,
}

/// Scores one document's test cases on `md` (an output with no boxes).
pub fn score_document(truth: &Truth, md: &str) -> Vec<CaseScore> {
    score_document_in(truth, md, None)
}

/// Scores one document's test cases on the provider's Doc (`md`: its Markdown): each case's
/// rules (the `layout` rules read its blocks, `is_header`/`is_footer` its page sections), and,
/// where the truth's Markdown holds tables, the table dimension's metrics (as the evaluator
/// computes them for every case with such Markdown).
pub fn score_document_in(truth: &Truth, md: &str, doc: Option<&Doc>) -> Vec<CaseScore> {
    // The table metrics depend only on the Markdown pair and the case's settings: computed
    // once per distinct settings, not once per category.
    let mut tables: Vec<(TableOptions, BTreeMap<String, f64>)> = Vec::new();
    truth
        .cases
        .iter()
        .map(|(c, rules)| {
            let mut case = score_case_in(c, rules, md, doc);
            if let Some(expected) = &truth.expected_markdown {
                let opts = truth.table_options.get(c).cloned().unwrap_or_default();
                let i = match tables.iter().position(|(o, _)| *o == opts) {
                    Some(i) => i,
                    None => {
                        let m = table_metrics(expected, md, &opts);
                        tables.push((opts, m));
                        tables.len() - 1
                    }
                };
                case.metrics.extend(tables[i].1.iter().map(|(k, v)| (k.clone(), *v)));
            }
            case
        })
        .collect()
}

/// The rows of one document: (metric id, value, trace).
pub fn rows(cases: &[CaseScore], output_error: Option<&str>) -> Vec<(String, Option<f64>, Value)> {
    let mut out = Vec::new();
    let (mut sum, mut n) = (0.0, 0usize);
    for c in cases {
        for r in &c.rules {
            if let Some(o) = &r.outcome {
                sum += o.score;
                n += 1;
            }
        }
        // Always a `c/rule_pass_rate` row, for its trace: without a value when no rule of the
        // case was run (every one of a type this build does not run).
        let trace =
            json!({"rules": c.rules, "not_run": c.unimplemented(), "output_error": output_error});
        out.push((
            format!("{}/rule_pass_rate", c.category),
            c.metrics.get("rule_pass_rate").copied(),
            trace,
        ));
        for (m, v) in c.metrics.iter().filter(|(m, _)| *m != "rule_pass_rate") {
            out.push((format!("{}/{m}", c.category), Some(*v), json!({})));
        }
        if DIMENSIONS.iter().any(|(d, _)| *d == c.category) {
            let h = headline_of(&c.category);
            if let Some(v) = c.metrics.get(h) {
                out.push((c.category.clone(), Some(*v), json!({"metric": h})));
            }
        }
    }
    if n > 0 {
        out.push(("rule_pass_rate".into(), Some(sum / n as f64), json!({"rules": n})));
    }
    out
}

/// What to score.
#[derive(Debug, Clone)]
pub struct ParsebenchOptions<'a> {
    /// The provider whose outputs are scored.
    pub provider: &'a str,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// One dimension's line of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct DimensionRow {
    /// The category.
    pub category: String,
    /// The metric its leaderboard shows.
    pub metric: &'static str,
    /// Its mean over the category's test cases (`None`: not computed by this build, or no
    /// case has it).
    pub value: Option<f64>,
    /// Test cases of the category.
    pub cases: usize,
    /// Rules of types this build does not run.
    pub rules_not_run: usize,
}

/// What an eval did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ParsebenchSummary {
    /// Suite id.
    pub suite: &'static str,
    /// Suite version.
    pub suite_version: u32,
    /// The provider scored.
    pub provider: String,
    /// Truths looked at.
    pub documents: u64,
    /// Of those, scored now.
    pub scored: u64,
    /// Metric rows written now.
    pub rows_written: u64,
    /// The five dimensions (then any other category), as ParseBench's leaderboard shows them.
    pub dimensions: Vec<DimensionRow>,
    /// Per category, every metric's mean over its test cases and the number of cases
    /// (`avg_<metric>`).
    pub aggregate: Aggregate,
    /// Every document's results.
    pub documents_scored: Vec<DocScore>,
    /// Documents whose output failed (scored as empty Markdown).
    pub failed_outputs: usize,
    /// Documents that could not be scored.
    pub failures: Vec<EvalFailure>,
}

struct ParsebenchSuite<'a> {
    opts: &'a ParsebenchOptions<'a>,
}

impl Scoring for ParsebenchSuite<'_> {
    type Item = TruthGroup;
    type Unit = (Truth, OutputRow);
    type Kept = DocScore;
    type Summary = ParsebenchSummary;

    fn id(&self) -> &'static str {
        SUITE
    }

    fn version(&self) -> u32 {
        PARSEBENCH_SUITE_VERSION
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
        let truth = match load_truth(store, t)? {
            Ok(x) => x,
            Err(e) => return Ok(Opening::Failed(format!("unreadable parsebench truth: {e}"))),
        };
        // GT-vs-GT covers the documents whose truth gives its Markdown: the others have no
        // `truth` output to score (it failed, saying why), which is not a score of 0.
        let truth_without_md =
            self.opts.provider == crate::providers::truth::ID && truth.expected_markdown.is_none();
        if truth.cases.is_empty() || truth_without_md {
            return Ok(Opening::Skip);
        }
        Ok(match store.latest_output(t.document, self.opts.provider)? {
            None => Opening::Skip,
            Some(out) => Opening::Pair { output: out.id, truth: t.id(), unit: (truth, out) },
        })
    }

    fn score(
        &mut self,
        store: &Store,
        _: &TruthGroup,
        (truth, out): Self::Unit,
        name: &str,
    ) -> Result<std::result::Result<Scored<Self::Kept>, String>> {
        let (md, doc, output_error) = match usable_doc(store, &out) {
            Ok(doc) => (doc.markdown(), Some(doc), None),
            Err(e) => (String::new(), None, Some(e)),
        };
        let cases = score_document_in(&truth, &md, doc.as_ref());
        let rows = rows(&cases, output_error.as_deref())
            .into_iter()
            .map(|(m, v, t)| (m, v, t.to_string()))
            .collect();
        Ok(Ok(Scored { kept: DocScore { document: name.to_string(), cases, output_error }, rows }))
    }

    fn summarise(
        self,
        _: &mut Store,
        _: Option<RunId>,
        kept: Vec<DocScore>,
        tally: Tally,
    ) -> Result<ParsebenchSummary> {
        let mut agg = Aggregate::default();
        for d in &kept {
            for c in &d.cases {
                agg.add(&c.category, &c.metrics, &c.unimplemented());
            }
        }
        let agg = agg.finish();
        let mut categories: Vec<&str> = DIMENSIONS.iter().map(|(c, _)| *c).collect();
        for c in agg.cases.keys() {
            if !categories.contains(&c.as_str()) {
                categories.push(c);
            }
        }
        let dimensions = categories
            .iter()
            .map(|c| {
                let metric = headline_of(c);
                DimensionRow {
                    category: c.to_string(),
                    metric,
                    value: agg.get(c, metric),
                    cases: agg.cases.get(*c).copied().unwrap_or(0),
                    rules_not_run: agg.unimplemented.get(*c).map(|m| m.values().sum()).unwrap_or(0),
                }
            })
            .collect();
        Ok(ParsebenchSummary {
            suite: SUITE,
            suite_version: PARSEBENCH_SUITE_VERSION,
            provider: self.opts.provider.to_string(),
            documents: tally.items,
            scored: tally.scored,
            rows_written: tally.rows_written,
            dimensions,
            failed_outputs: kept.iter().filter(|d| d.output_error.is_some()).count(),
            aggregate: agg,
            documents_scored: kept,
            failures: tally.failures,
        })
    }
}

/// Scores the provider's newest output of every document with a ParseBench truth.
pub fn eval(
    store: &mut Store,
    opts: &ParsebenchOptions<'_>,
    progress: &dyn Progress,
) -> Result<ParsebenchSummary> {
    driver::run(store, ParsebenchSuite { opts }, opts.run, progress)
}

impl Summary for ParsebenchSummary {
    fn failures(&self) -> &[EvalFailure] {
        &self.failures
    }

    fn run_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version,
            "documents": self.documents, "scored": self.scored,
            "rows_written": self.rows_written, "dimensions": self.dimensions,
            "failed_outputs": self.failed_outputs, "failed": self.failures.len(),
        })
    }

    fn shard_counts(&self) -> Value {
        json!({
            "suite": self.suite, "suite_version": self.suite_version, "documents": self.documents,
            "scored": self.scored, "rows_written": self.rows_written,
            "failed": self.failures.len(),
        })
    }
}

/// Per category, rule type -> (mean pass rate over the cases that have it, cases): what
/// ParseBench reports as `avg_rule_<type>_pass_rate`.
pub fn type_rates(agg: &Aggregate) -> BTreeMap<String, BTreeMap<String, (f64, usize)>> {
    agg.categories
        .iter()
        .map(|(c, m)| {
            let types = m
                .iter()
                .filter_map(|(k, v)| {
                    let t = k.strip_prefix("rule_")?.strip_suffix("_pass_rate")?;
                    (!t.is_empty()).then(|| (t.to_string(), *v))
                })
                .collect();
            (c.clone(), types)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::parsebench::read_part;

    #[test]
    fn rows_hold_category_metrics_dimensions_and_rule_traces() {
        let lines = concat!(
            r#"{"pdf":"a.pdf","type":"present","id":"p1","rule":{"text":"Revenue grew"}}"#,
            "\n",
            r#"{"pdf":"a.pdf","type":"order","id":"o1","rule":{"before":"Costs fell","after":"Revenue grew"}}"#,
            "\n",
            r#"{"pdf":"a.pdf","type":"not_a_rule_type","id":"c1","rule":{"label":"3"}}"#,
            "\n",
        );
        let truth = Truth {
            cases: vec![("text_content".into(), read_part(lines.as_bytes()).unwrap())],
            expected_markdown: None,
            table_options: BTreeMap::new(),
        };
        let cases = score_document(&truth, "Revenue grew. Costs fell.");
        let rows = rows(&cases, None);
        let get = |id: &str| rows.iter().find(|r| r.0 == id).map(|r| r.1);
        assert_eq!(get("text_content/rule_pass_rate"), Some(Some(0.5)));
        assert_eq!(get("text_content/rule_order_pass_rate"), Some(Some(0.0)));
        // content_faithfulness: order only (no correctness rule): 0.
        assert_eq!(get("text_content"), Some(Some(0.0)));
        assert_eq!(get("rule_pass_rate"), Some(Some(0.5)));
        let trace = &rows.iter().find(|r| r.0 == "text_content/rule_pass_rate").unwrap().2;
        assert_eq!(trace["not_run"]["not_a_rule_type"], 1);
        assert_eq!(trace["rules"][1]["id"], "o1");
        assert_eq!(trace["rules"][1]["passed"], false);
        assert!(trace["rules"][2].get("passed").is_none());
        let summary = type_rates(&{
            let mut a = Aggregate::default();
            a.add("text_content", &cases[0].metrics, &cases[0].unimplemented());
            a.finish()
        });
        assert_eq!(summary["text_content"]["present"], (1.0, 1));
        assert!(!summary["text_content"].contains_key(""));
    }
}
