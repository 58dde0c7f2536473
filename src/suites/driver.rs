//! One loop for every suite, so that what happens around a score (which pairs are looked at,
//! when a pair counts as already scored, how a failure is reported, what is written and in
//! how many transactions) is the same whichever suite computes it.
//!
//! A suite says what it scores ([`Scoring::items`]: its truths, each with the output(s) that
//! answer it), how one item is read ([`Scoring::open`]: which (output, truth) pair its rows go
//! on), how it is scored ([`Scoring::score`]: metric rows with traces) and what the whole run
//! adds up to ([`Scoring::summarise`]). [`run`] does the rest: per item, the document's name,
//! the stored rows of this suite version (reused where the suite can rebuild its result from
//! them), the score, the rows written in one transaction, the progress, and every failure as
//! an [`EvalFailure`] the CLI reports the same way for every suite (exit code 3).

use serde::Serialize;
use serde_json::Value;

use super::EvalFailure;
use crate::doc::Doc;
use crate::error::Result;
use crate::progress::Progress;
use crate::store::{MetricRow, OutputRow, RunId, Store};

/// One stored metric row as a suite computes it: (metric id, value, trace JSON).
pub type Row = (String, Option<f64>, String);

/// Where one item stands once it is read.
#[derive(Debug)]
pub enum Opening<U> {
    /// Rows go on (output, truth); `unit` is what scoring needs.
    Pair {
        /// The output the rows are stored on.
        output: i64,
        /// The truth the rows are stored on.
        truth: i64,
        /// What was read.
        unit: U,
    },
    /// Nothing to score (no output of the provider): not a failure.
    Skip,
    /// The item cannot be scored: reported as a failure.
    Failed(String),
}

/// One item scored: what the summary keeps of it and the rows to store.
#[derive(Debug)]
pub struct Scored<S> {
    /// What [`Scoring::summarise`] needs of the item.
    pub kept: S,
    /// The rows, stored in one transaction unless this suite version stored them before.
    /// Empty for a suite that scores the run as a whole ([`Scoring::score_run`]).
    pub rows: Vec<Row>,
}

/// Rows computed over the whole run, one pair's at a time.
#[derive(Debug)]
pub struct PairRows {
    /// The output the rows are stored on.
    pub output: i64,
    /// The truth the rows are stored on.
    pub truth: i64,
    /// The rows.
    pub rows: Vec<Row>,
}

/// What the driver counted.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Items looked at.
    pub items: u64,
    /// Items scored now.
    pub scored: u64,
    /// Items whose stored rows were reused.
    pub cached: u64,
    /// Rows written now.
    pub rows_written: u64,
    /// Items that could not be scored, in order.
    pub failures: Vec<EvalFailure>,
}

/// The counts of a suite that scores pairs and reuses what it stored (paper, olmocr): the
/// first fields of its summary, and what its run's record keeps.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PairCounts {
    /// Suite id.
    pub suite: &'static str,
    /// Suite version.
    pub suite_version: u32,
    /// Pairs considered: (output, truth) for paper, (candidate, document) for olmocr.
    pub pairs: u64,
    /// Pairs scored now.
    pub scored: u64,
    /// Pairs already scored by this suite version.
    pub cached: u64,
    /// Pairs that could not be scored.
    pub failures: Vec<EvalFailure>,
}

impl PairCounts {
    /// The counts of a run of `suite`.
    pub fn new(suite: &impl Scoring, tally: Tally) -> PairCounts {
        PairCounts {
            suite: suite.id(),
            suite_version: suite.version(),
            pairs: tally.items,
            scored: tally.scored,
            cached: tally.cached,
            failures: tally.failures,
        }
    }

    /// What the run's record and a shard task keep: the counts, failures counted.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "suite": self.suite, "suite_version": self.suite_version, "pairs": self.pairs,
            "scored": self.scored, "cached": self.cached, "failed": self.failures.len(),
        })
    }
}

/// Who an item is about, for its name and its failures.
#[derive(Debug, Clone, Copy)]
pub struct About<'a> {
    /// The document.
    pub document: i64,
    /// The truth's dataset (the document is named in it).
    pub dataset: &'a str,
    /// The provider whose output is scored.
    pub provider: &'a str,
}

/// How a suite scores, as the driver runs it (the registry of suites is [`super::Suite`]).
pub trait Scoring {
    /// One unit of work: a document's truth and the output(s) that answer it.
    type Item;
    /// An item read: what scoring needs.
    type Unit;
    /// What the summary keeps of one scored item.
    type Kept;
    /// The whole-run figures.
    type Summary;

    /// The suite id the rows are stored under.
    fn id(&self) -> &'static str;

    /// The suite version the rows are stored under: bumped whenever a rule changes a value.
    fn version(&self) -> u32;

    /// The truth formats it scores.
    fn formats(&self) -> &'static [crate::formats::TruthFormat];

    /// The items to score, in order.
    fn items(&mut self, store: &Store) -> Result<Vec<Self::Item>>;

    /// Who an item is about.
    fn about<'a>(&'a self, item: &'a Self::Item) -> About<'a>;

    /// Reads an item: which pair its rows go on, or why it is skipped or failed.
    fn open(&mut self, store: &Store, item: &Self::Item, name: &str)
        -> Result<Opening<Self::Unit>>;

    /// Rebuilds an item's result from the rows this suite version stored before (never
    /// empty); `None` (the default) scores it again, and the stored rows are kept as they are.
    fn reuse(
        &mut self,
        _item: &Self::Item,
        _unit: &Self::Unit,
        _name: &str,
        _stored: &[MetricRow],
    ) -> Option<Self::Kept> {
        None
    }

    /// Scores one item; an inner `Err` is a failure to report.
    fn score(
        &mut self,
        store: &Store,
        item: &Self::Item,
        unit: Self::Unit,
        name: &str,
    ) -> Result<std::result::Result<Scored<Self::Kept>, String>>;

    /// Rows that only the whole run gives, after every item was scored (none by default).
    fn score_run(&mut self, _store: &Store) -> Vec<PairRows> {
        Vec::new()
    }

    /// The whole-run figures, from every item's kept result and the driver's counts.
    fn summarise(
        self,
        store: &mut Store,
        run: Option<RunId>,
        kept: Vec<Self::Kept>,
        tally: Tally,
    ) -> Result<Self::Summary>;
}

/// What every suite's summary tells the CLI, which renders them all through one path.
pub trait Summary: Serialize {
    /// The items that could not be scored.
    fn failures(&self) -> &[EvalFailure];

    /// What the run's record keeps (`runs.counts`).
    fn run_counts(&self) -> Value;

    /// What a shard task prints: counts only (whole-set figures come after `merge`).
    fn shard_counts(&self) -> Value;
}

/// Runs a suite: every item opened, scored (or its stored rows reused) and stored, then the
/// whole-run rows and figures.
pub fn run<S: Scoring>(
    store: &mut Store,
    mut suite: S,
    run: Option<RunId>,
    progress: &dyn Progress,
) -> Result<S::Summary> {
    let items = suite.items(store)?;
    let mut tally = Tally { items: items.len() as u64, ..Default::default() };
    let mut kept = Vec::new();
    // (output, truth) pairs this suite version had already scored before the run.
    let mut scored_before = std::collections::HashSet::new();
    progress.start(items.len() as u64);
    for item in &items {
        let (name, provider) = {
            let about = suite.about(item);
            let name = store.name_in(about.document, about.dataset)?.unwrap_or_default();
            (name, about.provider.to_string())
        };
        let fail = |error: String| EvalFailure {
            document: name.clone(),
            provider: provider.clone(),
            error,
        };
        let failure = match suite.open(store, item, &name)? {
            Opening::Skip => None,
            Opening::Failed(e) => Some(fail(e)),
            Opening::Pair { output, truth, unit } => {
                // Read once: what this suite version stored for the pair decides both reuse
                // and whether new rows are written (stored rows are kept as they are).
                // Judge rows (`corpus judge`, `judge:` ids) sit beside a suite's own rows and
                // do not make the pair scored.
                let mut stored = store.metric_rows(output, truth, suite.id(), suite.version())?;
                stored.retain(|r| !r.metric.starts_with(super::judge::PREFIX));
                if !stored.is_empty() {
                    scored_before.insert((output, truth));
                }
                let reused = match stored.is_empty() {
                    true => None,
                    false => suite.reuse(item, &unit, &name, &stored),
                };
                if let Some(k) = reused {
                    tally.cached += 1;
                    kept.push(k);
                    None
                } else {
                    match suite.score(store, item, unit, &name)? {
                        Err(e) => Some(fail(e)),
                        Ok(s) => {
                            if stored.is_empty() {
                                tally.rows_written +=
                                    put(store, &suite, run, output, truth, &s.rows)?;
                            }
                            tally.scored += 1;
                            kept.push(s.kept);
                            None
                        }
                    }
                }
            }
        };
        progress.advance(&name, failure.is_none());
        tally.failures.extend(failure);
    }
    progress.finish();
    for p in suite.score_run(store) {
        if !scored_before.contains(&(p.output, p.truth)) {
            tally.rows_written += put(store, &suite, run, p.output, p.truth, &p.rows)?;
        }
    }
    suite.summarise(store, run, kept, tally)
}

/// Stores one pair's rows in one transaction; returns the number written.
fn put<S: Scoring>(
    store: &mut Store,
    suite: &S,
    run: Option<RunId>,
    output: i64,
    truth: i64,
    rows: &[Row],
) -> Result<u64> {
    if rows.is_empty() {
        return Ok(0);
    }
    let refs: Vec<(&str, Option<f64>, String)> =
        rows.iter().map(|(m, v, t)| (m.as_str(), *v, t.clone())).collect();
    store.put_metrics(output, truth, suite.id(), suite.version(), run, &refs)?;
    Ok(rows.len() as u64)
}

/// The Doc of a provider's output, or why it cannot be scored.
pub(crate) fn usable_doc(store: &Store, out: &OutputRow) -> std::result::Result<Doc, String> {
    let doc = match out.blob.as_deref().map(|b| store.blob(b)) {
        Some(Ok(Some(json))) => serde_json::from_slice::<Doc>(&json).ok(),
        _ => None,
    };
    doc.ok_or_else(|| {
        let why = out.error.clone().unwrap_or_else(|| "unreadable output".into());
        format!("no usable output: {why}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::TruthFormat;
    use crate::progress::NoProgress;
    use crate::store::{IngestDoc, NewOutput, TruthFile, TruthRow};

    /// Scores every truth's output with one metric: document `skip` has nothing to score,
    /// `bad` cannot be read, `bad-output` fails when scored.
    struct Fake;

    impl Scoring for Fake {
        type Item = (TruthRow, i64);
        type Unit = ();
        type Kept = String;
        type Summary = (Vec<String>, Tally);

        fn id(&self) -> &'static str {
            "fake"
        }

        fn version(&self) -> u32 {
            1
        }

        fn formats(&self) -> &'static [TruthFormat] {
            &[]
        }

        fn items(&mut self, store: &Store) -> Result<Vec<(TruthRow, i64)>> {
            let outputs = store.scorable_outputs(Some("p"))?;
            Ok(store
                .truths(None)?
                .into_iter()
                .map(|t| {
                    let o = outputs.iter().find(|o| o.document == t.document).unwrap().id;
                    (t, o)
                })
                .collect())
        }

        fn about<'a>(&'a self, (t, _): &'a (TruthRow, i64)) -> About<'a> {
            About { document: t.document, dataset: &t.dataset, provider: "p" }
        }

        fn open(&mut self, _: &Store, (t, o): &(TruthRow, i64), name: &str) -> Result<Opening<()>> {
            Ok(match name {
                "skip" => Opening::Skip,
                "bad" => Opening::Failed("unreadable".into()),
                _ => Opening::Pair { output: *o, truth: t.id, unit: () },
            })
        }

        fn reuse(&mut self, _: &Self::Item, _: &(), name: &str, _: &[MetricRow]) -> Option<String> {
            Some(format!("{name} (stored)"))
        }

        fn score(
            &mut self,
            _: &Store,
            _: &Self::Item,
            _: (),
            name: &str,
        ) -> Result<std::result::Result<Scored<String>, String>> {
            if name == "bad-output" {
                return Ok(Err("no usable output".into()));
            }
            let rows = vec![("m".to_string(), Some(1.0), "{}".to_string())];
            Ok(Ok(Scored { kept: name.to_string(), rows }))
        }

        fn summarise(
            self,
            _: &mut Store,
            _: Option<RunId>,
            kept: Vec<String>,
            tally: Tally,
        ) -> Result<(Vec<String>, Tally)> {
            Ok((kept, tally))
        }
    }

    fn store() -> Store {
        let mut s = Store::open_in_memory().unwrap();
        for name in ["bad", "bad-output", "good", "skip"] {
            let truth =
                [TruthFile { format: "x", part: "", bytes: name.as_bytes(), source_path: "t" }];
            let pdf = format!("pdf {name}");
            let doc = s
                .ingest(&IngestDoc {
                    dataset: "d",
                    name,
                    source_path: "a.pdf",
                    pdf: crate::store::PdfData::Bytes(pdf.as_bytes()),
                    pages: 1,
                    truths: &truth,
                    attributes: &[],
                })
                .unwrap()
                .document;
            s.put_output(&NewOutput {
                cache_key: name,
                document: doc,
                provider: "p",
                provider_version: "1",
                model_digest: "-",
                config: "{}",
                pages: "all",
                result: Ok(b"{}"),
                usage: crate::store::Usage::default(),
                device: "import",
                run: None,
            })
            .unwrap();
        }
        s
    }

    #[test]
    fn failures_are_reported_rows_stored_once_and_reused_after() {
        let mut s = store();
        let (kept, tally) = run(&mut s, Fake, None, &NoProgress).unwrap();
        assert_eq!(kept, ["good"]);
        assert_eq!((tally.items, tally.scored, tally.cached, tally.rows_written), (4, 1, 0, 1));
        let failed: Vec<(&str, &str, &str)> = tally
            .failures
            .iter()
            .map(|f| (f.document.as_str(), f.provider.as_str(), f.error.as_str()))
            .collect();
        assert_eq!(failed, [("bad", "p", "unreadable"), ("bad-output", "p", "no usable output")]);
        // Again: the stored rows are reused, nothing is written twice.
        let (kept, tally) = run(&mut s, Fake, None, &NoProgress).unwrap();
        assert_eq!(kept, ["good (stored)"]);
        assert_eq!((tally.scored, tally.cached, tally.rows_written), (0, 1, 0));
        assert_eq!(tally.failures.len(), 2);
    }
}
