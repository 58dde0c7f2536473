//! The `olmocr` suite: olmOCR-bench's unit tests (truth format `olmocr-bench`) run on every
//! repeat of a provider's output for the tested page, scored as olmOCR-bench's runner does
//! ([`crate::metrics::olmocr`]).
//!
//! - **Candidates.** Outputs are grouped by provider, provider version, model digest and
//!   config without its `repeat`: one candidate is one system. Its repeats of a page are its
//!   outputs for that page (`pages = "N"`, or `all`) that differ in `repeat`; of two outputs
//!   with the same repeat (a re-import of a changed file) the newer counts.
//! - **What a test sees.** The Markdown the output was read from ([`Doc::markdown`]), else the
//!   Doc rendered with `Doc::to_markdown` (only the tested page's blocks when a whole-document
//!   output of a multi-page PDF is tested).
//! - **Values.** A test's value is the fraction of repeats passing; it passes when that is
//!   above 0.5. A `baseline` test is added for every PDF that has none (group `baseline`). A
//!   group's score is its pass rate; the overall score is the mean over groups, with a 95%
//!   bootstrap interval (1000 resamples within each group, seed 0).
//! - **Rows.** Per document, on (its newest repeat used, its truth): `pass:<test id>` per test
//!   (the value; the trace holds id, type, group, page, passed, the explanation, each repeat's
//!   result and the best fuzzy matches of a failing text test) and `pass_rate` (the document's
//!   tests passed / tests). Per candidate and dataset, on the pair of its first-ingested
//!   document (lowest document id): `group_score:<group>` and `overall`, whose traces hold the
//!   counts, the interval and the documents; these derived rows are rewritten when the set of
//!   documents or results changes. Scoring is idempotent per [`OLMOCR_SUITE_VERSION`].

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{json, Value};

use super::driver::{self, About, Opening, PairCounts, Row, Scored, Scoring, Summary, Tally};
use super::EvalFailure;
use crate::doc::Doc;
use crate::error::Result;
use crate::formats::TruthFormat;
use crate::metrics::olmocr::{
    best_matches, bootstrap_ci, default_baseline, group_scores, load_tests, overall_score,
    score_test, MathRenderer, Test, BASELINE_GROUP,
};
use crate::progress::Progress;
use crate::providers::key::canonical_json;
use crate::store::{MetricRow, PageOutput, RunId, Store};
use crate::truth::{truth_groups, TruthGroup};

/// The suite's id in the store.
pub const SUITE: &str = "olmocr";

/// olmOCR-bench's headline: its `overall` (the mean of the group scores); each
/// `group_score:<group>` follows it ([`GROUP_PREFIX`]).
pub const HEADLINE: [&str; 1] = ["overall"];

/// The prefix of olmOCR-bench's per-group scores, headlines after `overall`.
pub const GROUP_PREFIX: &str = "group_score:";

/// The suite id under which scores with math tests decided by exact match only are stored
/// (`eval --suite olmocr --math exact`), so they never mix with KaTeX-rendered ones.
pub const SUITE_EXACT: &str = "olmocr-exact";

/// The suite id under which scores with math rendered by KaTeX without a browser are stored
/// (`--math mathml`, or no Chromium): MathML containment and the layout-free part of the glyph
/// comparison; a test whose result needed the browser's layout fails and is marked
/// `needs_browser`. Never mixed with [`SUITE`], whose math is rendered in Chromium as the
/// runner does.
pub const SUITE_MATHML: &str = "olmocr-mathml";

/// How math tests are decided under each name the suite stores its scores under.
pub const MATH_RULES: [(&str, &str); 3] = [
    (SUITE, "KaTeX in Chromium, as the runner (MathML, then glyph positions)"),
    (SUITE_MATHML, "KaTeX without a browser (MathML containment only)"),
    (SUITE_EXACT, "exact matches only"),
];

/// Bump when a value the suite stores for the same inputs changes (2: math decided by the
/// positional glyph comparison in Chromium under [`SUITE`]).
pub const OLMOCR_SUITE_VERSION: u32 = 2;

/// Bootstrap resamples for the overall score's interval.
pub const BOOTSTRAP_SAMPLES: usize = 1000;

/// The bootstrap's fixed seed.
pub const BOOTSTRAP_SEED: u64 = 0;

/// What to score.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions<'a> {
    /// Only outputs of this provider.
    pub provider: Option<&'a str>,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The run the rows belong to.
    pub run: Option<RunId>,
    /// The suite id the rows are stored under: [`SUITE`] when math is rendered with KaTeX in
    /// Chromium, [`SUITE_MATHML`] with KaTeX without a browser, [`SUITE_EXACT`] when math tests
    /// pass on exact matches only.
    pub suite: &'static str,
}

/// One test's result.
#[derive(Debug, Clone, Serialize)]
pub struct TestResult {
    /// The document's name.
    pub document: String,
    /// Test id.
    pub id: String,
    /// Test type.
    pub kind: String,
    /// Group (JSONL file stem, or `baseline` for the added tests).
    pub group: String,
    /// Fraction of repeats passing.
    pub value: f64,
    /// `value > 0.5`.
    pub passed: bool,
    /// The first failing repeat's explanation.
    pub explanation: String,
    /// A failing `math` test that was decided without the browser: some formula comparison
    /// needed the glyph layout the renderer lacked and counted as no match (the runner, which
    /// renders in Chromium, may pass it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub needs_browser: bool,
}

/// One group's pass rate.
#[derive(Debug, Clone, Serialize)]
pub struct GroupRow {
    /// Group name.
    pub group: String,
    /// Tests passed.
    pub passed: usize,
    /// Tests.
    pub total: usize,
    /// `passed / total`.
    pub rate: f64,
}

/// The scores of one candidate on one dataset.
#[derive(Debug, Clone, Serialize)]
pub struct CandidateScore {
    /// Provider id.
    pub provider: String,
    /// Provider version.
    pub provider_version: String,
    /// Model digest.
    pub model_digest: String,
    /// The truth's dataset.
    pub dataset: String,
    /// Documents scored.
    pub documents: usize,
    /// Every test, in group then document order.
    pub tests: Vec<TestResult>,
    /// Per-group pass rates.
    pub groups: Vec<GroupRow>,
    /// Mean of the group pass rates.
    pub overall: f64,
    /// 95% bootstrap interval of `overall`.
    pub ci95: (f64, f64),
    /// Documents of the dataset with tests but no output of this candidate: left out of the
    /// scores (olmOCR-bench's runner refuses such a candidate altogether).
    pub missing: Vec<String>,
    /// Ids of the failing tests decided without the browser ([`TestResult::needs_browser`]).
    pub without_browser: Vec<String>,
}

/// What an evaluation did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalSummary {
    /// Suite id and version, pairs considered, scored now, already scored, and failures.
    #[serde(flatten)]
    pub counts: PairCounts,
    /// Per candidate and dataset.
    pub candidates: Vec<CandidateScore>,
}

/// One system: outputs that differ only in their repeat.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Candidate {
    provider: String,
    provider_version: String,
    model_digest: String,
    config: String,
}

/// A candidate's outputs of one document: page selection -> repeat -> output (the newest),
/// as an index into [`OlmocrSuite::outputs`].
type Repeats = BTreeMap<String, BTreeMap<Option<i64>, usize>>;

fn candidate_of(o: &PageOutput) -> (Candidate, Option<i64>) {
    let mut config: Value = serde_json::from_str(&o.config).unwrap_or(Value::Null);
    let repeat = config.as_object_mut().and_then(|m| m.remove("repeat")).and_then(|r| r.as_i64());
    let c = Candidate {
        provider: o.provider.clone(),
        provider_version: o.provider_version.clone(),
        model_digest: o.model_digest.clone(),
        config: canonical_json(&config),
    };
    (c, repeat)
}

/// Scores every olmOCR-bench truth against every candidate with outputs for its document.
/// `renderer` decides `math` tests that are not reproduced verbatim (see [`MathRenderer`]).
pub fn eval<R: MathRenderer>(
    store: &mut Store,
    opts: &EvalOptions<'_>,
    renderer: &R,
    progress: &dyn Progress,
) -> Result<EvalSummary> {
    let suite =
        OlmocrSuite { opts, renderer, groups: Vec::new(), outputs: Vec::new(), cands: Vec::new() };
    driver::run(store, suite, opts.run, progress)
}

impl Summary for EvalSummary {
    fn failures(&self) -> &[EvalFailure] {
        &self.counts.failures
    }

    fn run_counts(&self) -> Value {
        self.counts.to_json()
    }

    fn shard_counts(&self) -> Value {
        self.run_counts()
    }
}

/// The olmocr suite as the driver runs it: one item per (candidate, document, truth), in
/// candidate then document order.
struct OlmocrSuite<'a, R> {
    opts: &'a EvalOptions<'a>,
    renderer: &'a R,
    groups: Vec<TruthGroup>,
    outputs: Vec<PageOutput>,
    /// Per candidate, in order: its repeats of each document.
    cands: Vec<(Candidate, HashMap<i64, Repeats>)>,
}

/// One (candidate, document, truth) to score.
struct OlmocrItem {
    cand: usize,
    document: i64,
    group: usize,
}

/// A document's tests, read.
struct Tests {
    tests: Vec<(String, Test)>,
    pages_of_doc: u32,
}

/// One document's stored results.
struct DocScore {
    cand: usize,
    dataset: String,
    document: i64,
    truth: i64,
    output: i64,
    tests: Vec<TestResult>,
}

impl<R> OlmocrSuite<'_, R> {
    /// The outputs each page's tests read.
    fn for_page(&self, item: &OlmocrItem, page: i64) -> Vec<&PageOutput> {
        let repeats = &self.cands[item.cand].1[&item.document];
        let exact = repeats.get(&page.to_string());
        let all = repeats.get("all");
        exact.or(all).map(|r| r.values().map(|&i| &self.outputs[i]).collect()).unwrap_or_default()
    }

    /// The newest output the tests read: the output the document's rows go on.
    fn newest_used(&self, item: &OlmocrItem, tests: &[(String, Test)]) -> Option<i64> {
        tests.iter().flat_map(|(_, t)| self.for_page(item, t.base().page)).map(|o| o.id).max()
    }

    fn kept(&self, item: &OlmocrItem, output: i64, tests: Vec<TestResult>) -> DocScore {
        let g = &self.groups[item.group];
        DocScore {
            cand: item.cand,
            dataset: g.dataset.clone(),
            document: g.document,
            truth: g.id(),
            output,
            tests,
        }
    }

    /// A document's tests, with the added baseline; an `Err` is the failure to report.
    fn read_tests(
        &self,
        store: &Store,
        item: &OlmocrItem,
        name: &str,
    ) -> std::result::Result<Tests, String> {
        let g = &self.groups[item.group];
        let err = |e: crate::error::Error| e.to_string();
        let mut tests: Vec<(String, Test)> = Vec::new();
        for part in &g.parts {
            let bytes = store.blob(&part.blob).map_err(err)?.ok_or("truth blob missing")?;
            let text = String::from_utf8(bytes).map_err(|e| format!("truth is not UTF-8: {e}"))?;
            let loaded = load_tests(&text).map_err(|e| format!("group {}: {e}", part.part))?;
            tests.extend(loaded.into_iter().map(|t| (part.part.clone(), t)));
        }
        if !tests.iter().any(|(_, t)| matches!(t, Test::Baseline(_))) {
            tests.push((BASELINE_GROUP.to_string(), default_baseline(&format!("{name}.pdf"))));
        }
        let pages_of_doc = store.document_pages(g.document).map_err(err)?;
        Ok(Tests { tests, pages_of_doc })
    }
}

impl<R: MathRenderer> Scoring for OlmocrSuite<'_, R> {
    type Item = OlmocrItem;
    type Unit = (i64, Tests);
    type Kept = DocScore;
    type Summary = EvalSummary;

    fn id(&self) -> &'static str {
        self.opts.suite
    }

    fn version(&self) -> u32 {
        OLMOCR_SUITE_VERSION
    }

    fn formats(&self) -> &'static [TruthFormat] {
        &[TruthFormat::OlmocrBench]
    }

    fn items(&mut self, store: &Store) -> Result<Vec<OlmocrItem>> {
        let formats = self.formats();
        self.groups = truth_groups(store, self.opts.dataset, |f| formats.contains(&f))?;
        let mut by_doc: HashMap<i64, Vec<usize>> = HashMap::new();
        for (i, g) in self.groups.iter().enumerate() {
            by_doc.entry(g.document).or_default().push(i);
        }
        self.outputs = store
            .page_outputs(self.opts.provider)?
            .into_iter()
            .filter(|o| {
                by_doc.contains_key(&o.document)
                    && (o.provider != crate::providers::truth::ID || renders_tests(o))
            })
            .collect();
        let mut cands: BTreeMap<Candidate, HashMap<i64, Repeats>> = BTreeMap::new();
        for (i, o) in self.outputs.iter().enumerate() {
            let (c, repeat) = candidate_of(o);
            let pages = cands.entry(c).or_default().entry(o.document).or_default();
            // Outputs come in id order: a later one with the same repeat replaces the earlier.
            pages.entry(o.pages.clone()).or_default().insert(repeat, i);
        }
        self.cands = cands.into_iter().collect();
        let mut items = Vec::new();
        for (cand, (_, docs)) in self.cands.iter().enumerate() {
            let mut doc_ids: Vec<&i64> = docs.keys().collect();
            doc_ids.sort();
            for &document in doc_ids {
                for &group in &by_doc[&document] {
                    items.push(OlmocrItem { cand, document, group });
                }
            }
        }
        Ok(items)
    }

    fn about<'a>(&'a self, item: &'a OlmocrItem) -> About<'a> {
        let g = &self.groups[item.group];
        let provider = &self.cands[item.cand].0.provider;
        About { document: g.document, dataset: &g.dataset, provider }
    }

    fn open(
        &mut self,
        store: &Store,
        item: &OlmocrItem,
        name: &str,
    ) -> Result<Opening<Self::Unit>> {
        let tests = match self.read_tests(store, item, name) {
            Ok(t) => t,
            Err(e) => return Ok(Opening::Failed(e)),
        };
        Ok(match self.newest_used(item, &tests.tests) {
            None => Opening::Failed("no output for the tested pages".into()),
            Some(output) => {
                let truth = self.groups[item.group].id();
                Opening::Pair { output, truth, unit: (output, tests) }
            }
        })
    }

    fn reuse(
        &mut self,
        item: &OlmocrItem,
        &(output, _): &Self::Unit,
        name: &str,
        stored: &[MetricRow],
    ) -> Option<DocScore> {
        let tests = stored
            .iter()
            .filter(|r| r.metric.starts_with("pass:"))
            .filter_map(|r| {
                let t: Value = serde_json::from_str(r.trace.as_deref()?).ok()?;
                Some(TestResult {
                    document: name.to_string(),
                    id: t["id"].as_str()?.to_string(),
                    kind: t["type"].as_str()?.to_string(),
                    group: t["group"].as_str()?.to_string(),
                    value: r.value?,
                    passed: t["passed"].as_bool()?,
                    explanation: t["explanation"].as_str().unwrap_or_default().to_string(),
                    needs_browser: t["needs_browser"].as_bool().unwrap_or(false),
                })
            })
            .collect();
        Some(self.kept(item, output, tests))
    }

    fn score(
        &mut self,
        store: &Store,
        item: &OlmocrItem,
        (output, unit): Self::Unit,
        name: &str,
    ) -> Result<std::result::Result<Scored<DocScore>, String>> {
        let Tests { tests, pages_of_doc } = unit;
        // Read each used output once.
        let mut texts: HashMap<(i64, i64), Option<String>> = HashMap::new();
        let mut docs: HashMap<i64, Option<Doc>> = HashMap::new();
        let mut rows: Vec<Row> = Vec::new();
        let mut results = Vec::new();
        for (group, test) in &tests {
            let b = test.base();
            let outs = self.for_page(item, b.page);
            let mut mds: Vec<Option<&str>> = Vec::new();
            for o in &outs {
                if let std::collections::hash_map::Entry::Vacant(slot) = texts.entry((o.id, b.page))
                {
                    let doc = docs.entry(o.id).or_insert_with(|| {
                        let bytes = store.blob(&o.blob).ok().flatten()?;
                        serde_json::from_slice::<Doc>(&bytes).ok()
                    });
                    slot.insert(doc.as_ref().map(|d| page_text(d, &o.pages, b.page, pages_of_doc)));
                }
            }
            for o in &outs {
                mds.push(texts[&(o.id, b.page)].as_deref());
            }
            let outcome = score_test(test, &mds, self.renderer);
            let per_repeat: Vec<Value> = outs
                .iter()
                .zip(&mds)
                .map(|(o, md)| {
                    let repeat = candidate_of(o).1;
                    let Some(md) = md else {
                        let why = "output could not be read";
                        return json!({"output": o.id, "repeat": repeat, "passed": false, "explanation": why});
                    };
                    let r = test.run_traced(md, self.renderer);
                    let mut v = json!({"output": o.id, "repeat": repeat, "passed": r.passed, "explanation": r.explanation});
                    if r.needs_browser {
                        v["needs_browser"] = Value::Bool(true);
                    }
                    v
                })
                .collect();
            let mut trace = json!({
                "id": b.id, "type": test.type_name(), "group": group, "page": b.page,
                "passed": outcome.passed, "explanation": outcome.explanation, "repeats": per_repeat,
            });
            if outcome.needs_browser {
                trace["needs_browser"] = Value::Bool(true);
            }
            if !outcome.passed {
                if let Some(md) = mds.iter().flatten().next() {
                    let m = best_matches(test, md);
                    if !m.is_empty() {
                        trace["best_match"] = serde_json::to_value(m).unwrap_or(Value::Null);
                    }
                }
            }
            rows.push((format!("pass:{}", b.id), Some(outcome.value), trace.to_string()));
            results.push(TestResult {
                document: name.to_string(),
                id: b.id.clone(),
                kind: test.type_name().to_string(),
                group: group.clone(),
                value: outcome.value,
                passed: outcome.passed,
                explanation: outcome.explanation,
                needs_browser: outcome.needs_browser,
            });
        }
        let passed = results.iter().filter(|t| t.passed).count();
        let failing: Vec<&str> =
            results.iter().filter(|t| !t.passed).map(|t| t.id.as_str()).collect();
        let rate = passed as f64 / results.len() as f64;
        let trace = json!({"tests": results.len(), "passed": passed, "failing": failing});
        rows.push(("pass_rate".to_string(), Some(rate), trace.to_string()));
        Ok(Ok(Scored { kept: self.kept(item, output, results), rows }))
    }

    fn summarise(
        self,
        store: &mut Store,
        run: Option<RunId>,
        kept: Vec<DocScore>,
        tally: Tally,
    ) -> Result<EvalSummary> {
        let mut summary =
            EvalSummary { counts: PairCounts::new(&self, tally), candidates: Vec::new() };
        // Per candidate, in order, then per dataset: the group and overall scores.
        let mut per_cand: BTreeMap<usize, BTreeMap<String, Vec<DocScore>>> = BTreeMap::new();
        for d in kept {
            per_cand.entry(d.cand).or_default().entry(d.dataset.clone()).or_default().push(d);
        }
        for (c, per_dataset) in per_cand {
            let (cand, docs_of) = &self.cands[c];
            for (dataset, mut docs) in per_dataset {
                let mut score = aggregate(store, self.opts.suite, run, cand, &dataset, &mut docs)?;
                let missing = self
                    .groups
                    .iter()
                    .filter(|g| g.dataset == dataset && !docs_of.contains_key(&g.document));
                for g in missing {
                    score.missing.push(store.name_in(g.document, &g.dataset)?.unwrap_or_default());
                }
                summary.candidates.push(score);
            }
        }
        Ok(summary)
    }
}

/// Whether a `truth` output is the current rendering of olmOCR-bench tests (the truth
/// provider renders other formats too, which are no candidate here).
fn renders_tests(o: &PageOutput) -> bool {
    let config: Value = serde_json::from_str(&o.config).unwrap_or(Value::Null);
    config["format"] == TruthFormat::OlmocrBench.as_str()
        && o.provider_version == crate::providers::truth::ADAPTER_VERSION.to_string()
}

/// The text a test of `page` (one-based) sees in an output with page selection `pages`.
fn page_text(doc: &Doc, pages: &str, page: i64, pages_of_doc: u32) -> String {
    if pages != "all" || pages_of_doc <= 1 {
        return doc.markdown();
    }
    doc.page_markdown(u32::try_from(page - 1).unwrap_or(0))
}

/// Group and overall scores of one candidate on one dataset, stored on the pair of its
/// first-ingested document.
fn aggregate(
    store: &mut Store,
    suite: &'static str,
    run: Option<RunId>,
    cand: &Candidate,
    dataset: &str,
    docs: &mut [DocScore],
) -> Result<CandidateScore> {
    docs.sort_by_key(|d| d.document);
    let mut tests: Vec<TestResult> = docs.iter().flat_map(|d| d.tests.iter().cloned()).collect();
    // The runner's order: the JSONL files' tests by file name, then the added baselines
    // (the group order is the order the group rates are summed in).
    tests.sort_by(|a, b| {
        let key = |t: &TestResult| (t.group == BASELINE_GROUP, t.group.clone());
        key(a).cmp(&key(b))
    });
    let results: Vec<(String, bool)> = tests.iter().map(|t| (t.group.clone(), t.passed)).collect();
    let groups: Vec<GroupRow> = group_scores(&results)
        .into_iter()
        .map(|g| GroupRow { rate: g.rate(), group: g.group, passed: g.passed, total: g.total })
        .collect();
    let samples: Vec<Vec<f64>> = groups
        .iter()
        .map(|g| {
            results
                .iter()
                .filter(|(n, _)| *n == g.group)
                .map(|(_, p)| f64::from(u8::from(*p)))
                .collect()
        })
        .collect();
    let overall = overall_score(&results);
    let ci95 = bootstrap_ci(&samples, BOOTSTRAP_SAMPLES, 0.95, BOOTSTRAP_SEED);
    let without_browser: Vec<String> =
        tests.iter().filter(|t| t.needs_browser).map(|t| t.id.clone()).collect();
    if let Some(first) = docs.first() {
        let failing: Vec<&str> =
            tests.iter().filter(|t| !t.passed).map(|t| t.id.as_str()).collect();
        // Each group's interval: the same bootstrap over that group's tests alone.
        let mut rows: Vec<(String, Option<f64>, String)> = groups
            .iter()
            .zip(&samples)
            .map(|(g, s)| {
                let ci =
                    bootstrap_ci(std::slice::from_ref(s), BOOTSTRAP_SAMPLES, 0.95, BOOTSTRAP_SEED);
                let trace = json!({"passed": g.passed, "total": g.total, "ci95": [ci.0, ci.1]});
                (format!("group_score:{}", g.group), Some(g.rate), trace.to_string())
            })
            .collect();
        let mut trace = json!({
            "documents": docs.len(), "tests": tests.len(), "failing": failing,
            "groups": groups.iter().map(|g| json!({"group": g.group, "rate": g.rate})).collect::<Vec<_>>(),
            "ci95": [ci95.0, ci95.1],
            "bootstrap": {"samples": BOOTSTRAP_SAMPLES, "seed": BOOTSTRAP_SEED},
        });
        if !without_browser.is_empty() {
            trace["decided_without_browser"] = json!(without_browser);
        }
        rows.push(("overall".to_string(), Some(overall), trace.to_string()));
        let refs: Vec<(&str, Option<f64>, String)> =
            rows.iter().map(|(m, v, t)| (m.as_str(), *v, t.clone())).collect();
        store.put_derived_metrics(
            first.output,
            first.truth,
            suite,
            OLMOCR_SUITE_VERSION,
            run,
            &refs,
        )?;
    }
    Ok(CandidateScore {
        provider: cand.provider.clone(),
        provider_version: cand.provider_version.clone(),
        model_digest: cand.model_digest.clone(),
        dataset: dataset.to_string(),
        documents: docs.len(),
        tests,
        groups,
        overall,
        ci95,
        missing: Vec::new(),
        without_browser,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{BBox, Block, BlockKind};

    #[test]
    fn repeats_are_one_candidate_and_pages_of_whole_outputs_are_split() {
        let o = |config: &str| PageOutput {
            id: 1,
            document: 1,
            provider: "p".into(),
            provider_version: "1".into(),
            model_digest: "-".into(),
            config: config.into(),
            pages: "1".into(),
            blob: String::new(),
        };
        let (a, ra) = candidate_of(&o(r#"{"import":"markdown","repeat":1}"#));
        let (b, rb) = candidate_of(&o(r#"{"import":"markdown","repeat":2}"#));
        assert_eq!(a, b);
        assert_eq!((ra, rb), (Some(1), Some(2)));
        let doc = Doc {
            pages: Vec::new(),
            blocks: vec![
                Block::new(BlockKind::Paragraph, 0, BBox::default(), "one"),
                Block::new(BlockKind::Paragraph, 1, BBox::default(), "two"),
            ],
            markdown: None,
            meta: None,
        };
        assert_eq!(page_text(&doc, "all", 2, 2), "two\n");
        assert_eq!(page_text(&doc, "all", 1, 1), "one\n\ntwo\n");
        let md = Doc { markdown: Some("raw *md*".into()), ..doc };
        assert_eq!(page_text(&md, "1", 1, 2), "raw *md*");
    }
}
