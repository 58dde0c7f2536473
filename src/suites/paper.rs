//! The `paper` suite (rules in `docs/paper-suite.md`): every output of a provider against every
//! PeerRead, GROBID TEI, S2ORC, JATS or Docling truth of the same document.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use serde::Serialize;

use super::driver::{self, About, Opening, PairCounts, Scored, Scoring, Summary, Tally};
use super::EvalFailure;
use crate::doc::Doc;
use crate::error::Result;
use crate::formats::TruthFormat;
use crate::metrics::fields::Pooled;
use crate::metrics::paper::{score, HEADLINE, PAPER_SUITE_VERSION};
use crate::paper::{from_doc, Paper};
use crate::progress::Progress;
use crate::store::{MetricRow, RunId, ScorableOutput, Store};
use crate::truth::{truth_groups, TruthGroup};

/// The suite's id in the store.
pub const SUITE: &str = "paper";

/// The truth formats this suite reads.
pub const FORMATS: [TruthFormat; 5] = [
    TruthFormat::PeerRead,
    TruthFormat::GrobidTei,
    TruthFormat::S2orc,
    TruthFormat::Jats,
    TruthFormat::Docling,
];

/// What to score.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions<'a> {
    /// Only outputs of this provider.
    pub provider: Option<&'a str>,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// One scored (document, provider, truth) with its metric values.
#[derive(Debug, Clone, Serialize)]
pub struct PaperRow {
    /// The document's name in the truth's dataset.
    pub document: String,
    /// The truth's dataset.
    pub dataset: String,
    /// The truth's format.
    pub truth_format: String,
    /// Provider id.
    pub provider: String,
    /// Provider adapter version.
    pub provider_version: String,
    /// Every metric of the suite: (id, value), null where the truth side is empty.
    pub metrics: Vec<(String, Option<f64>)>,
}

impl PaperRow {
    /// Returns a metric's value.
    pub fn get(&self, id: &str) -> Option<f64> {
        self.metrics.iter().find(|(m, _)| m == id).and_then(|(_, v)| *v)
    }
}

/// GROBID-style field scores pooled over the papers of one provider version and dataset:
/// counts summed over papers, then precision, recall and F1 per field and their micro and
/// macro averages, as GROBID's end-to-end evaluation reports a corpus.
#[derive(Debug, Clone, Serialize)]
pub struct FieldReport {
    /// Provider id.
    pub provider: String,
    /// Provider adapter version.
    pub provider_version: String,
    /// The truths' dataset.
    pub dataset: String,
    /// [`crate::metrics::fields::Pooled::report`]: `papers`, then per group (`header`,
    /// `citations`) and matching (`strict`, `soft`, `lev`, `ro`) the fields' `precision`,
    /// `recall`, `f1`, `support` and the `micro` and `macro` averages.
    pub report: serde_json::Value,
}

/// What an evaluation did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalSummary {
    /// Suite id and version, pairs considered, scored now, already scored, and failures.
    #[serde(flatten)]
    pub counts: PairCounts,
    /// Mean time of one scoring (all metrics and traces), in ms.
    pub score_ms_per_paper: Option<f64>,
    /// Every pair's values, computed now or before.
    pub rows: Vec<PaperRow>,
    /// The unweighted mean of each metric over the rows, nulls left out.
    pub average: Vec<(String, Option<f64>)>,
    /// The field scores pooled per provider version and dataset, GROBID's way.
    pub fields: Vec<FieldReport>,
}

/// The paper suite as the driver runs it: one item per (output, truth) pair.
struct PaperSuite<'a> {
    opts: &'a EvalOptions<'a>,
    groups: Vec<TruthGroup>,
    /// The prediction last read, by output id (items come output by output).
    pred: Option<(i64, std::result::Result<Paper, String>)>,
    /// Each truth, read once.
    truths: HashMap<usize, std::result::Result<Paper, String>>,
    /// The field counts pooled per (provider, provider version, dataset).
    pools: BTreeMap<(String, String, String), Pooled>,
    /// Time spent in [`score`], in ms.
    score_time: f64,
}

/// One (output, truth group) pair.
struct PaperItem {
    output: ScorableOutput,
    group: usize,
}

impl PaperSuite<'_> {
    fn pool(&mut self, item: &PaperItem) -> &mut Pooled {
        let o = &item.output;
        let key = (
            o.provider.clone(),
            o.provider_version.clone(),
            self.groups[item.group].dataset.clone(),
        );
        self.pools.entry(key).or_default()
    }

    fn row(&self, item: &PaperItem, name: &str, metrics: Vec<(String, Option<f64>)>) -> PaperRow {
        let g = &self.groups[item.group];
        PaperRow {
            document: name.to_string(),
            dataset: g.dataset.clone(),
            truth_format: g.format.as_str().to_string(),
            provider: item.output.provider.clone(),
            provider_version: item.output.provider_version.clone(),
            metrics,
        }
    }
}

impl Scoring for PaperSuite<'_> {
    type Item = PaperItem;
    type Unit = ();
    type Kept = PaperRow;
    type Summary = EvalSummary;

    fn id(&self) -> &'static str {
        SUITE
    }

    fn version(&self) -> u32 {
        PAPER_SUITE_VERSION
    }

    fn formats(&self) -> &'static [TruthFormat] {
        &FORMATS
    }

    fn items(&mut self, store: &Store) -> Result<Vec<PaperItem>> {
        let formats = self.formats();
        self.groups = truth_groups(store, self.opts.dataset, |f| formats.contains(&f))?;
        let mut by_doc: HashMap<i64, Vec<usize>> = HashMap::new();
        for (i, g) in self.groups.iter().enumerate() {
            by_doc.entry(g.document).or_default().push(i);
        }
        let mut items = Vec::new();
        for o in store.scorable_outputs(self.opts.provider)? {
            let Some(gs) = by_doc.get(&o.document) else { continue };
            for &group in gs {
                let g = &self.groups[group];
                // A truth output stands for one truth: it is scored against that truth only,
                // and only as the current adapter renders it (an older rendering is stale).
                if o.provider == crate::providers::truth::ID
                    && (o.model_digest != g.digest()
                        || o.provider_version
                            != crate::providers::truth::ADAPTER_VERSION.to_string())
                {
                    continue;
                }
                items.push(PaperItem { output: o.clone(), group });
            }
        }
        Ok(items)
    }

    fn about<'a>(&'a self, item: &'a PaperItem) -> About<'a> {
        let g = &self.groups[item.group];
        About { document: g.document, dataset: &g.dataset, provider: &item.output.provider }
    }

    fn open(&mut self, _: &Store, item: &PaperItem, _: &str) -> Result<Opening<()>> {
        // Every pair has its pool, scored or not.
        self.pool(item);
        let truth = self.groups[item.group].id();
        Ok(Opening::Pair { output: item.output.id, truth, unit: () })
    }

    fn reuse(
        &mut self,
        item: &PaperItem,
        _: &(),
        name: &str,
        stored: &[MetricRow],
    ) -> Option<PaperRow> {
        let traces: Vec<(&str, serde_json::Value)> = stored
            .iter()
            .filter(|r| is_field_f1(&r.metric))
            .map(|r| {
                let t = r.trace.as_deref().and_then(|t| serde_json::from_str(t).ok());
                (r.metric.as_str(), t.unwrap_or_default())
            })
            .collect();
        self.pool(item).add(traces.iter().map(|(m, t)| (*m, t)));
        let values = stored.iter().map(|r| (r.metric.clone(), r.value)).collect();
        Some(self.row(item, name, values))
    }

    fn score(
        &mut self,
        store: &Store,
        item: &PaperItem,
        _: (),
        name: &str,
    ) -> Result<std::result::Result<Scored<PaperRow>, String>> {
        let o = &item.output;
        if !matches!(&self.pred, Some((id, _)) if *id == o.id) {
            self.pred = None;
        }
        let (_, p) = self.pred.get_or_insert_with(|| (o.id, load_prediction(store, &o.blob)));
        let p = match p {
            Ok(p) => &*p,
            Err(e) => return Ok(Err(e.clone())),
        };
        let g = &self.groups[item.group];
        let truth = self
            .truths
            .entry(item.group)
            .or_insert_with(|| g.load_paper(store).map_err(|e| e.to_string()));
        let truth = match truth {
            Ok(t) => t,
            Err(e) => return Ok(Err(e.clone())),
        };
        let t0 = Instant::now();
        let metrics = score(truth, p);
        self.score_time += t0.elapsed().as_secs_f64() * 1000.0;
        self.pool(item).add(metrics.iter().filter(|m| is_field_f1(m.id)).map(|m| (m.id, &m.trace)));
        // The rows are written whole in one transaction: what was stored is this.
        let values = metrics.iter().map(|m| (m.id.to_string(), m.value)).collect();
        let rows =
            metrics.iter().map(|m| (m.id.to_string(), m.value, m.trace.to_string())).collect();
        Ok(Ok(Scored { kept: self.row(item, name, values), rows }))
    }

    fn summarise(
        self,
        _: &mut Store,
        _: Option<RunId>,
        mut rows: Vec<PaperRow>,
        tally: Tally,
    ) -> Result<EvalSummary> {
        rows.sort_by(|a, b| {
            (&a.provider, &a.provider_version, &a.dataset, &a.document).cmp(&(
                &b.provider,
                &b.provider_version,
                &b.dataset,
                &b.document,
            ))
        });
        let score_ms_per_paper = (tally.scored > 0).then(|| self.score_time / tally.scored as f64);
        let counts = PairCounts::new(&self, tally);
        let fields = self
            .pools
            .into_iter()
            .map(|((provider, provider_version, dataset), pool)| FieldReport {
                provider,
                provider_version,
                dataset,
                report: pool.report(),
            })
            .collect();
        Ok(EvalSummary { counts, score_ms_per_paper, average: average(&rows), rows, fields })
    }
}

/// Scores every selected output against every paper truth of its document.
pub fn eval(
    store: &mut Store,
    opts: &EvalOptions<'_>,
    progress: &dyn Progress,
) -> Result<EvalSummary> {
    let suite = PaperSuite {
        opts,
        groups: Vec::new(),
        pred: None,
        truths: HashMap::new(),
        pools: BTreeMap::new(),
        score_time: 0.0,
    };
    driver::run(store, suite, opts.run, progress)
}

impl Summary for EvalSummary {
    fn failures(&self) -> &[EvalFailure] {
        &self.counts.failures
    }

    fn run_counts(&self) -> serde_json::Value {
        self.counts.to_json()
    }

    fn shard_counts(&self) -> serde_json::Value {
        self.run_counts()
    }
}

/// Whether a metric is a field score's F1, whose trace holds the counts that are pooled.
fn is_field_f1(id: &str) -> bool {
    (id.starts_with("hdr_") || id.starts_with("cit_")) && id.ends_with("_f")
}

fn load_prediction(store: &Store, blob: &str) -> std::result::Result<Paper, String> {
    let bytes = store
        .blob(blob)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("output blob {blob} is missing"))?;
    let doc: Doc =
        serde_json::from_slice(&bytes).map_err(|e| format!("output is not a Doc: {e}"))?;
    Ok(from_doc(&doc))
}

/// The unweighted mean of each metric over rows, leaving nulls out (a metric that is null
/// everywhere stays null).
pub fn average(rows: &[PaperRow]) -> Vec<(String, Option<f64>)> {
    let Some(first) = rows.first() else { return Vec::new() };
    first
        .metrics
        .iter()
        .map(|(id, _)| {
            let vals: Vec<f64> = rows.iter().filter_map(|r| r.get(id)).collect();
            let mean = (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64);
            (id.clone(), mean)
        })
        .collect()
}

/// The per-paper table's columns: (header, metric id), as in the seed's report.
pub const COLUMNS: [(&str, &str); 6] = [
    ("Text", HEADLINE[0]),
    ("Table", HEADLINE[1]),
    ("Formula", HEADLINE[2]),
    ("Order", HEADLINE[3]),
    ("Refs", HEADLINE[4]),
    ("Mentions", HEADLINE[5]),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn row(vals: &[Option<f64>]) -> PaperRow {
        PaperRow {
            document: "d".into(),
            dataset: "s".into(),
            truth_format: "peerread".into(),
            provider: "p".into(),
            provider_version: "1".into(),
            metrics: vals.iter().enumerate().map(|(i, v)| (format!("m{i}"), *v)).collect(),
        }
    }

    #[test]
    fn the_formats_are_the_paper_formats() {
        let paper: Vec<TruthFormat> =
            TruthFormat::ALL.iter().copied().filter(|f| f.is_paper()).collect();
        assert_eq!(paper, FORMATS);
    }

    #[test]
    fn average_leaves_nulls_out_and_never_counts_them_as_zero() {
        let rows = [row(&[Some(1.0), None, None]), row(&[Some(0.5), Some(0.25), None])];
        let avg = average(&rows);
        assert_eq!(avg[0], ("m0".to_string(), Some(0.75)));
        assert_eq!(avg[1], ("m1".to_string(), Some(0.25)));
        assert_eq!(avg[2], ("m2".to_string(), None));
    }
}
