//! `corpus report`: score tables computed with polars (the only module that uses it).
//!
//! Rows come from the store's public views (`v_latest_scores`, `v_scores`, `v_runs`,
//! `v_document_attributes`) as one long frame (document, provider, version, model, metric,
//! value, ...). Metrics are pivoted into columns with one filtered aggregation each; means
//! skip nulls, so a metric missing for a document is never averaged as 0; a group whose
//! values are all null stays null.

pub mod agree;
mod compare;
pub mod correlate;
pub mod gate;
pub mod html;
pub mod render;
mod robustness;
mod summary;
mod truth_compare;
mod usage;

pub use robustness::{robustness, robustness_note, split_twin};
pub use summary::{summary_table, SummarySpec};

use polars::prelude::*;

use crate::store::ScoreColumns;

pub use compare::{compare, paired_rows, paired_table, PairedRow};
pub use render::{render, Rendered, ReportFormat};
pub use truth_compare::{truth_delta_frame, truth_deltas, TruthDelta};
pub use usage::{estimated_costs, with_usage, USAGE_COLUMNS};

/// A `provider[@version]` selector for `--compare`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    /// Provider id.
    pub provider: String,
    /// Provider version (`v2` and `2` are the same), or a model digest prefix.
    pub version: Option<String>,
}

impl Selector {
    /// Parses `pdfium`, `pdfium@2`, `pdfium@v2`.
    pub fn parse(s: &str) -> Result<Selector, String> {
        let (p, v) = match s.split_once('@') {
            Some((p, v)) => (p, Some(v.to_string())),
            None => (s, None),
        };
        if p.is_empty() || v.as_deref() == Some("") {
            return Err(format!("expected PROVIDER or PROVIDER@VERSION, got {s:?}"));
        }
        Ok(Selector { provider: p.to_string(), version: v })
    }

    /// Returns the selector as written: `pdfium` or `pdfium@2`.
    pub fn label(&self) -> String {
        match &self.version {
            Some(v) => format!("{}@{v}", self.provider),
            None => self.provider.clone(),
        }
    }

    /// Whether a score of `provider` at `version`, from model `model`, is one this selects.
    pub fn matches(&self, provider: &str, version: &str, model: &str) -> bool {
        if provider != self.provider {
            return false;
        }
        match &self.version {
            None => true,
            Some(v) => {
                let bare = |s: &str| s.strip_prefix('v').unwrap_or(s).to_string();
                bare(v) == bare(version) || (v.len() >= 6 && model.starts_with(v.as_str()))
            }
        }
    }
}

/// How the default report groups its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum By {
    /// One row per document and provider version (and an AVG row per provider version).
    Document,
    /// One row per provider version.
    Provider,
    /// One row per dataset and provider version.
    Dataset,
    /// One row per value of a document attribute and provider version.
    Attribute(String),
}

impl By {
    /// Parses `provider`, `document`, `dataset` or `attribute:<name>`.
    pub fn parse(s: &str) -> Result<By, String> {
        match s {
            "document" => Ok(By::Document),
            "provider" => Ok(By::Provider),
            "dataset" => Ok(By::Dataset),
            _ => match s.strip_prefix("attribute:") {
                Some(name) if !name.is_empty() => Ok(By::Attribute(name.to_string())),
                _ => Err(format!(
                    "expected provider, document, dataset or attribute:<name>, got {s:?}"
                )),
            },
        }
    }
}

/// The short form of a model digest shown in reports.
fn short_model(m: &str) -> &str {
    m.get(..12).unwrap_or(m)
}

/// Reads the score columns a report shows and the order of their metrics: the rows `filter`
/// selects, less the 216 GROBID-style field metrics unless `fields` is set or the filter
/// names a metric; the paper suite's metrics first (for `suite` paper or none), then by name.
/// The text, JSON and HTML reports all start here, so they show the same numbers.
pub fn report_columns(
    store: &crate::store::Store,
    filter: &crate::store::ScoreFilter<'_>,
    fields: bool,
) -> crate::error::Result<(ScoreColumns, Vec<String>)> {
    // Without --suite, metric ids name one thing each: the detection suite's second taxonomy
    // (DocLayNet's classes, stored as `detection-docling`) shares the first's ids, so it is
    // left out rather than mixed into the same columns (`--suite detection-docling` shows it).
    let skip = crate::suites::detection::SUITE_DOCLING;
    let filter = &crate::store::ScoreFilter {
        skip_suite: filter.suite.is_none().then_some(skip).or(filter.skip_suite),
        ..filter.clone()
    };
    let mut cols = store.score_columns(filter)?;
    if !fields && filter.metric.is_none() {
        let f: std::collections::HashSet<&str> =
            crate::metrics::fields::metric_ids().iter().copied().collect();
        cols.retain_metrics(|m| !f.contains(m));
    }
    // Without a suite, the paper metrics (the store's first suite) lead.
    let preferred: Vec<&str> = match filter.suite.map(crate::suites::Suite::of_stored) {
        None | Some(Some(crate::suites::Suite::Paper)) => {
            crate::metrics::paper::metric_ids().to_vec()
        }
        Some(Some(
            crate::suites::Suite::Omnidoc
            | crate::suites::Suite::Olmocr
            | crate::suites::Suite::Table
            | crate::suites::Suite::Formula
            | crate::suites::Suite::Parsebench
            | crate::suites::Suite::Detection,
        ))
        | Some(None) => Vec::new(),
    };
    let metrics = metric_order(&cols, &preferred);
    Ok((cols, metrics))
}

/// The detection suite's page sets that a report over `filter` pools its COCO figures from
/// (`docs/detection.md` §7): those of `suite` where it is one of the detection suite's stored
/// names, those of `detection` (the omnidoc taxonomy, the one [`report_columns`] keeps) where
/// no suite is given, none for another suite. Never both taxonomies.
pub fn detection_page_sets(
    store: &crate::store::Store,
    filter: &crate::store::ScoreFilter<'_>,
) -> crate::error::Result<Vec<(crate::store::ScoreKey, String)>> {
    use crate::suites::{detection, Suite};
    let suite = match filter.suite {
        Some(s) if Suite::of_stored(s) == Some(Suite::Detection) => s,
        Some(_) => return Ok(Vec::new()),
        None => detection::SUITE,
    };
    store.latest_traces(suite, "map", filter.dataset, filter.truths)
}

/// Builds the long frame: one row per score.
pub fn long_frame(c: &ScoreColumns) -> PolarsResult<DataFrame> {
    let n = c.len();
    let (mut document, mut dataset, mut provider, mut model, mut metric, mut started, mut attr) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let labels: Vec<String> =
        c.keys.iter().map(|k| format!("{}@{}", k.provider, k.provider_version)).collect();
    for i in 0..n {
        let k = &c.keys[c.key[i] as usize];
        document.push(k.document.as_str());
        dataset.push(k.dataset.as_str());
        provider.push(labels[c.key[i] as usize].as_str());
        model.push(short_model(&k.model_digest));
        metric.push(c.metrics[c.metric[i] as usize].as_str());
        started.push(c.run[i].and_then(|r| c.run_started_at.get(&r)).map(String::as_str));
        attr.push(k.attribute.as_deref());
    }
    DataFrame::new_infer_height(vec![
        Column::new("document".into(), document),
        Column::new("dataset".into(), dataset),
        Column::new("provider".into(), provider),
        Column::new("model".into(), model),
        Column::new("metric".into(), metric),
        Column::new("value".into(), &c.value),
        Column::new("run".into(), &c.run),
        Column::new("run_started_at".into(), started),
        Column::new("attribute".into(), attr),
    ])
}

/// Returns the metrics present, in `preferred` order first, then by name.
pub(crate) fn metric_order(c: &ScoreColumns, preferred: &[&str]) -> Vec<String> {
    let mut all: Vec<&str> = c.metrics.iter().map(String::as_str).collect();
    all.sort_unstable();
    all.dedup();
    let mut out: Vec<String> =
        preferred.iter().filter(|m| all.contains(m)).map(|m| m.to_string()).collect();
    for m in all {
        if !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    }
    out
}

/// Pivots score rows into one row per (provider version, model, dataset, document) with one
/// column per metric (null where the metric is missing or null), in first-seen order.
pub fn wide_frame(c: &ScoreColumns, metrics: &[String]) -> PolarsResult<DataFrame> {
    // metric id -> output column; key id -> output row (dense ids, so plain vectors).
    let col_of: Vec<Option<usize>> =
        c.metrics.iter().map(|m| metrics.iter().position(|x| x == m)).collect();
    let mut row_of: Vec<Option<usize>> = vec![None; c.keys.len()];
    let mut order: Vec<usize> = Vec::new();
    let mut values: Vec<Vec<Option<f64>>> = vec![Vec::new(); metrics.len()];
    for i in 0..c.len() {
        let Some(j) = col_of[c.metric[i] as usize] else { continue };
        let k = c.key[i] as usize;
        let r = match row_of[k] {
            Some(r) => r,
            None => {
                order.push(k);
                for v in values.iter_mut() {
                    v.push(None);
                }
                row_of[k] = Some(order.len() - 1);
                order.len() - 1
            }
        };
        values[j][r] = c.value[i];
    }
    // Rows in a fixed order (dataset, document, provider, version, model, attribute), not the
    // store's row order: the bootstrap draws documents by position, so the same scores stored
    // in another order (outputs of `ocr --jobs N` land as they finish) must give the same
    // intervals from the same seed.
    let mut perm: Vec<usize> = (0..order.len()).collect();
    perm.sort_by(|&a, &b| {
        let (x, y) = (&c.keys[order[a]], &c.keys[order[b]]);
        (&x.dataset, &x.document, &x.provider, &x.provider_version, &x.model_digest, &x.attribute)
            .cmp(&(
                &y.dataset,
                &y.document,
                &y.provider,
                &y.provider_version,
                &y.model_digest,
                &y.attribute,
            ))
    });
    let values: Vec<Vec<Option<f64>>> =
        values.into_iter().map(|v| perm.iter().map(|&r| v[r]).collect()).collect();
    let keys: Vec<&crate::store::ScoreKey> = perm.iter().map(|&r| &c.keys[order[r]]).collect();
    let mut cols = vec![
        Column::new(
            "provider".into(),
            keys.iter()
                .map(|k| format!("{}@{}", k.provider, k.provider_version))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "model".into(),
            keys.iter().map(|k| short_model(&k.model_digest)).collect::<Vec<_>>(),
        ),
        Column::new("dataset".into(), keys.iter().map(|k| k.dataset.as_str()).collect::<Vec<_>>()),
        Column::new(
            "document".into(),
            keys.iter().map(|k| k.document.as_str()).collect::<Vec<_>>(),
        ),
        Column::new(
            "attribute".into(),
            keys.iter().map(|k| k.attribute.as_deref()).collect::<Vec<_>>(),
        ),
    ];
    for (m, v) in metrics.iter().zip(values) {
        cols.push(Column::new(m.as_str().into(), v));
    }
    DataFrame::new_infer_height(cols)
}

fn means(metrics: &[String]) -> Vec<Expr> {
    metrics.iter().map(|m| col(m.as_str()).mean().alias(m.as_str())).collect()
}

/// The latest-score table from [`wide_frame`]'s rows, grouped as `by` says.
pub fn summary(wide: &DataFrame, metrics: &[String], by: &By) -> PolarsResult<DataFrame> {
    let wide = wide.clone().lazy();
    let sort = |keys: Vec<&str>| {
        let n = keys.len();
        (
            keys.into_iter().map(PlSmallStr::from).collect::<Vec<_>>(),
            SortMultipleOptions::default()
                .with_maintain_order(true)
                .with_nulls_last_multi(vec![true; n]),
        )
    };
    let grouped = |keys: Vec<&str>| {
        let mut aggs = vec![col("document").n_unique().alias("n")];
        aggs.extend(means(metrics));
        let exprs: Vec<Expr> = keys.iter().map(|k| col(*k)).collect();
        let (names, opts) = sort(keys);
        wide.clone().group_by(exprs).agg(aggs).sort(names, opts).collect()
    };
    match by {
        By::Document => {
            let (names, opts) = sort(vec!["provider", "model", "dataset", "document"]);
            let rows = wide.clone().sort(names, opts).collect()?;
            // One AVG row per provider version and model, after its documents.
            let mut aggs = vec![lit("AVG").alias("document"), lit("").alias("dataset")];
            aggs.extend(means(metrics));
            let avg = wide
                .clone()
                .group_by_stable([col("provider"), col("model")])
                .agg(aggs)
                .collect()?;
            let cols: Vec<String> = ["provider", "model", "dataset", "document"]
                .iter()
                .map(|s| s.to_string())
                .chain(metrics.iter().cloned())
                .collect();
            let rows = rows.select(cols.iter().map(String::as_str))?;
            let avg = avg.select(cols.iter().map(String::as_str))?;
            interleave_avg(&rows, &avg)
        }
        By::Provider => grouped(vec!["provider", "model"]),
        By::Dataset => grouped(vec!["dataset", "provider", "model"]),
        By::Attribute(_) => grouped(vec!["attribute", "provider", "model"]),
    }
}

/// How `report` computes the intervals of its means (`docs/statistics.md`): a percentile
/// bootstrap over documents, stratified by dataset, with a fixed seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ci {
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Confidence level, in (0, 1).
    pub level: f64,
    /// The random generator's seed.
    pub seed: u64,
}

impl Ci {
    /// 2,000 resamples, 95 %, seed 0.
    pub const DEFAULT: Ci = Ci { resamples: 2000, level: 0.95, seed: 0 };

    /// The one line that says how the intervals were computed.
    pub fn describe(&self) -> String {
        format!(
            "{}% intervals: percentile bootstrap over documents, stratified by dataset, {} resamples, seed {}",
            self.level * 100.0,
            self.resamples,
            self.seed
        )
    }
}

/// The note printed with `report --compare` (`docs/statistics.md` §2): what its intervals and
/// p-values are over, and what is stratified (nothing: the pairs are resampled as one pool).
pub fn compare_note(ci: &Ci) -> String {
    format!(
        "{}% intervals of B − A: percentile bootstrap of the pairs (documents paired by dataset and name; those scored on one side only left out and counted as dropped), resampled as one pool, NOT stratified by dataset, {} resamples, seed {}; p: two-sided paired sign-flip test, exact up to {} non-zero differences, else {} random flips; p_holm: Holm-adjusted across the metrics shown",
        ci.level * 100.0,
        ci.resamples,
        ci.seed,
        crate::metrics::stats::EXACT_MAX_PAIRS,
        ci.resamples
    )
}

/// A suite headline that is not a plain mean of per-document values, recomputed in a report
/// the suite's own way from the group's per-document (per-page) scores, and bootstrapped by
/// resampling those documents (`crate::metrics::stats::bootstrap_statistic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headline {
    /// OmniDocBench v1.5's `overall`: `((1 − text_edit)·100 + CDM·100 + TEDS·100) / 3` from
    /// the page-level means of `text_edit`, `formula_cdm` and `table_teds`, each over the pages
    /// that have it ([`crate::suites::omnidoc::metrics::overall`]), as `eval` prints it.
    OmniDocOverall,
}

impl Headline {
    /// The headline of a suite's reports, where it has one that is not a plain mean.
    pub fn of_suite(suite: &str) -> Option<Headline> {
        (suite == crate::suites::omnidoc::SUITE).then_some(Headline::OmniDocOverall)
    }

    /// The metric column the headline replaces.
    pub fn metric(self) -> &'static str {
        match self {
            Headline::OmniDocOverall => "overall",
        }
    }

    /// The headline from a group's series (one per metric, in `metrics`' order, NaN where a
    /// document has none), and its interval when `ci` is given; `None` where its parts are not
    /// among the metrics.
    fn recompute(
        self,
        metrics: &[String],
        series: &[Vec<f64>],
        strata: &[usize],
        ci: Option<&Ci>,
    ) -> Option<(Option<f64>, Option<crate::metrics::stats::Interval>)> {
        match self {
            Headline::OmniDocOverall => {
                let at = |m: &str| metrics.iter().position(|x| x == m);
                let (t, c, s) = (at("text_edit")?, at("formula_cdm")?, at("table_teds")?);
                let (t, c, s) = (&series[t], &series[c], &series[s]);
                let weighted = |v: &[f64], w: &[u32]| {
                    let (mut sum, mut n) = (0.0, 0.0);
                    for (x, &k) in v.iter().zip(w) {
                        if x.is_finite() {
                            sum += x * f64::from(k);
                            n += f64::from(k);
                        }
                    }
                    (n > 0.0).then(|| sum / n)
                };
                let stat = |w: &[u32]| {
                    crate::suites::omnidoc::metrics::overall(
                        weighted(t, w)?,
                        weighted(c, w),
                        weighted(s, w),
                    )
                };
                let ones = vec![1u32; strata.len()];
                let value = stat(&ones);
                let iv = ci.and_then(|ci| {
                    crate::metrics::stats::bootstrap_statistic(
                        strata,
                        ci.resamples,
                        ci.level,
                        ci.seed,
                        stat,
                    )
                });
                Some((value, iv))
            }
        }
    }
}

/// The group key columns of a summary grouped by `by` (for `Document`, its AVG rows').
fn group_columns(by: &By) -> &'static [&'static str] {
    match by {
        By::Document | By::Provider => &["provider", "model"],
        By::Dataset => &["dataset", "provider", "model"],
        By::Attribute(_) => &["attribute", "provider", "model"],
    }
}

/// The columns `names` of a frame, cast to strings.
fn string_columns(df: &DataFrame, names: &[&str]) -> PolarsResult<Vec<StringChunked>> {
    names.iter().map(|n| Ok(df.column(n)?.cast(&DataType::String)?.str()?.clone())).collect()
}

/// Joins the values of `names` in row `i` of string columns into one key.
fn row_key(cols: &[StringChunked], i: usize) -> String {
    let mut k = String::new();
    for c in cols {
        k.push_str(c.get(i).unwrap_or("\u{1}"));
        k.push('\u{0}');
    }
    k
}

/// [`summary`] with each mean's interval beside it: after each metric column `m`, `m_lo` and
/// `m_hi` (null where the group has no value, and on `--by document`'s document rows: only
/// its AVG rows are means). The intervals come from `crate::metrics::stats::bootstrap_means`
/// over the frame's documents, stratified by dataset, one set of draws for every group and
/// metric (a group's mean on a resample is over its documents drawn);
/// where a group's value of a metric is one stored score that carries its suite's own interval
/// (`stored`: olmOCR-bench's `overall` and group scores, resampled over tests as the benchmark
/// does), that interval is shown instead.
pub fn summary_ci(
    wide: &DataFrame,
    metrics: &[String],
    by: &By,
    ci: Option<&Ci>,
    stored: &[crate::store::StoredInterval],
    headline: Option<Headline>,
    pooled: &[(crate::store::ScoreKey, String)],
) -> PolarsResult<DataFrame> {
    let table = summary(wide, metrics, by)?;
    let with_ci = ci.is_some();
    let key_names = group_columns(by);
    // Each group's rows of the wide frame (one per document), and their datasets.
    let wide_keys = string_columns(wide, key_names)?;
    let datasets = wide.column("dataset")?.str()?.clone();
    let mut groups: std::collections::HashMap<String, Vec<usize>> = Default::default();
    for i in 0..wide.height() {
        groups.entry(row_key(&wide_keys, i)).or_default().push(i);
    }
    let values: Vec<Vec<f64>> = metrics
        .iter()
        .map(|m| {
            let c = wide.column(m.as_str())?.cast(&DataType::Float64)?;
            Ok(c.f64()?.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
        })
        .collect::<PolarsResult<_>>()?;
    // Stored intervals by (provider, model, dataset, document) and metric.
    let doc_keys = string_columns(wide, &["provider", "model", "dataset", "document"])?;
    let fixed: std::collections::HashMap<(String, &str), crate::metrics::stats::Interval> = stored
        .iter()
        .map(|s| {
            let k = &s.key;
            let label = format!("{}@{}", k.provider, k.provider_version);
            let mut key = String::new();
            for part in [label.as_str(), short_model(&k.model_digest), &k.dataset, &k.document] {
                key.push_str(part);
                key.push('\u{0}');
            }
            ((key, s.metric.as_str()), crate::metrics::stats::Interval { lo: s.lo, hi: s.hi })
        })
        .collect();
    // The detection suite's page sets by the same key: pooled per group below.
    let page_sets: std::collections::HashMap<String, &str> =
        pooled.iter().map(|(k, t)| (doc_key(k), t.as_str())).collect();
    // One set of draws for every group: the documents of the whole frame (by dataset and
    // name), resampled within datasets; a group's mean on a resample is over its own
    // documents drawn (`docs/statistics.md` §1). Groups over the same documents are thus
    // resampled alike, and every series is one dot product per resample.
    let mut union: std::collections::HashMap<(&str, &str), usize> = Default::default();
    let document = wide.column("document")?.str()?.clone();
    let mut column_of = Vec::with_capacity(wide.height());
    let mut union_strata: Vec<usize> = Vec::new();
    let mut dataset_ids: std::collections::HashMap<&str, usize> = Default::default();
    for i in 0..wide.height() {
        let (ds, doc) = (datasets.get(i).unwrap_or(""), document.get(i).unwrap_or(""));
        let n = union.len();
        let u = *union.entry((ds, doc)).or_insert_with(|| {
            let k = dataset_ids.len();
            union_strata.push(*dataset_ids.entry(ds).or_insert(k));
            n
        });
        column_of.push(u);
    }
    let mut group_keys: Vec<&String> = groups.keys().collect();
    group_keys.sort();
    let mut all_series: Vec<Vec<f64>> = Vec::new();
    if with_ci {
        for key in &group_keys {
            for v in &values {
                let mut series = vec![f64::NAN; union.len()];
                for &i in &groups[*key] {
                    series[column_of[i]] = v[i];
                }
                all_series.push(series);
            }
        }
    }
    let refs: Vec<&[f64]> = all_series.iter().map(Vec::as_slice).collect();
    let all_intervals = match ci {
        Some(ci) => crate::metrics::stats::bootstrap_means(
            &refs,
            &union_strata,
            ci.resamples,
            ci.level,
            ci.seed,
        ),
        None => Vec::new(),
    };
    drop(refs);
    drop(all_series);
    let mut intervals: std::collections::HashMap<
        String,
        Vec<Option<crate::metrics::stats::Interval>>,
    > = Default::default();
    // Headlines recomputed the suite's way: group key → (metric, value).
    let mut overrides: std::collections::HashMap<String, Vec<(String, Option<f64>)>> =
        Default::default();
    for (g, key) in group_keys.iter().enumerate() {
        let rows = &groups[*key];
        let mut ids: std::collections::HashMap<&str, usize> = Default::default();
        let strata: Vec<usize> = rows
            .iter()
            .map(|&i| {
                let n = ids.len();
                *ids.entry(datasets.get(i).unwrap_or("")).or_insert(n)
            })
            .collect();
        let mut got = if with_ci {
            all_intervals[g * metrics.len()..(g + 1) * metrics.len()].to_vec()
        } else {
            vec![None; metrics.len()]
        };
        for (j, m) in metrics.iter().enumerate() {
            let present: Vec<usize> =
                rows.iter().copied().filter(|&i| !values[j][i].is_nan()).collect();
            let [only] = present.as_slice() else { continue };
            if let Some(iv) = fixed.get(&(row_key(&doc_keys, *only), m.as_str())) {
                got[j] = Some(*iv);
            }
        }
        if let Some(h) = headline {
            let series: Vec<Vec<f64>> =
                values.iter().map(|v| rows.iter().map(|&i| v[i]).collect()).collect();
            if let Some((value, iv)) = h.recompute(metrics, &series, &strata, ci) {
                overrides.entry((*key).clone()).or_default().push((h.metric().into(), value));
                if let Some(j) = metrics.iter().position(|m| m == h.metric()) {
                    got[j] = iv;
                }
            }
        }
        if !page_sets.is_empty() {
            let pooled = pooled_group(rows, &page_sets, &doc_keys, &datasets, &document, metrics);
            for (m, v) in pooled {
                if let Some(j) = metrics.iter().position(|x| *x == m) {
                    got[j] = None;
                }
                overrides.entry((*key).clone()).or_default().push((m, v));
            }
        }
        intervals.insert((*key).clone(), got);
    }
    interval_columns(&table, metrics, by, with_ci, &intervals, &overrides)
}

/// A stored score's document key, as [`row_key`] builds it from the frame's provider, model,
/// dataset and document columns.
fn doc_key(k: &crate::store::ScoreKey) -> String {
    let label = format!("{}@{}", k.provider, k.provider_version);
    let mut key = String::new();
    for part in [label.as_str(), short_model(&k.model_digest), &k.dataset, &k.document] {
        key.push_str(part);
        key.push('\u{0}');
    }
    key
}

/// The detection suite's COCO figures of one group: one evaluation over the pages of its
/// documents (their stored page sets, in (dataset, name) order), not a mean of per-document
/// values; they get no bootstrap interval.
fn pooled_group(
    rows: &[usize],
    page_sets: &std::collections::HashMap<String, &str>,
    doc_keys: &[StringChunked],
    datasets: &StringChunked,
    document: &StringChunked,
    metrics: &[String],
) -> Vec<(String, Option<f64>)> {
    let mut docs: Vec<(&str, &str, &str)> = rows
        .iter()
        .filter_map(|&i| {
            let t = page_sets.get(&row_key(doc_keys, i))?;
            Some((datasets.get(i).unwrap_or(""), document.get(i).unwrap_or(""), *t))
        })
        .collect();
    docs.sort();
    docs.dedup();
    let traces: Vec<&str> = docs.iter().map(|d| d.2).collect();
    crate::suites::detection::pooled_figures(&traces, metrics)
}

/// [`summary_ci`]'s last step: the summary's columns with the headline overrides put in and,
/// with `with_ci`, each metric's `_lo` and `_hi` columns after it, the rows looked up by
/// their group key.
fn interval_columns(
    table: &DataFrame,
    metrics: &[String],
    by: &By,
    with_ci: bool,
    intervals: &std::collections::HashMap<String, Vec<Option<crate::metrics::stats::Interval>>>,
    overrides: &std::collections::HashMap<String, Vec<(String, Option<f64>)>>,
) -> PolarsResult<DataFrame> {
    let key_names = group_columns(by);
    // The summary's rows, looked up by the same key.
    let table_keys = string_columns(table, key_names)?;
    let avg_only = matches!(by, By::Document);
    let documents = if avg_only { Some(table.column("document")?.str()?.clone()) } else { None };
    let row_intervals: Vec<Option<&Vec<Option<crate::metrics::stats::Interval>>>> = (0..table
        .height())
        .map(|i| {
            let is_avg = documents.as_ref().is_none_or(|d| d.get(i) == Some("AVG"));
            is_avg.then(|| intervals.get(&row_key(&table_keys, i))).flatten()
        })
        .collect();
    let mut cols: Vec<Column> = Vec::with_capacity(table.width() + 2 * metrics.len());
    for c in table.columns() {
        let Some(j) = metrics.iter().position(|m| m.as_str() == c.name().as_str()) else {
            cols.push(c.clone());
            continue;
        };
        let name = c.name().as_str();
        if overrides.values().flatten().any(|(m, _)| m == name) {
            let old = c.cast(&DataType::Float64)?.f64()?.clone();
            let v: Vec<Option<f64>> = (0..table.height())
                .map(|i| {
                    let is_avg = documents.as_ref().is_none_or(|d| d.get(i) == Some("AVG"));
                    let put = overrides
                        .get(&row_key(&table_keys, i))
                        .and_then(|o| o.iter().find(|(m, _)| m == name))
                        .filter(|_| is_avg);
                    match put {
                        Some((_, value)) => *value,
                        None => old.get(i),
                    }
                })
                .collect();
            cols.push(Column::new(c.name().clone(), v));
        } else {
            cols.push(c.clone());
        }
        if !with_ci {
            continue;
        }
        let bound = |hi: bool| -> Vec<Option<f64>> {
            row_intervals
                .iter()
                .map(|r| r.and_then(|v| v[j]).map(|iv| if hi { iv.hi } else { iv.lo }))
                .collect()
        };
        cols.push(Column::new(format!("{}_lo", c.name()).into(), bound(false)));
        cols.push(Column::new(format!("{}_hi", c.name()).into(), bound(true)));
    }
    DataFrame::new_infer_height(cols)
}

/// Folds each `m`, `m_lo`, `m_hi` triple of [`summary_ci`] into one text column `m`,
/// `0.861 [0.842, 0.879]`, for the table and Markdown outputs (a mean without an interval
/// stays `0.861`, a null `–`).
pub fn fold_intervals(table: &DataFrame, metrics: &[String]) -> PolarsResult<DataFrame> {
    let mut cols = Vec::with_capacity(table.width());
    for c in table.columns() {
        let name = c.name().as_str();
        if metrics.iter().any(|m| format!("{m}_lo") == name || format!("{m}_hi") == name) {
            continue;
        }
        if !metrics.iter().any(|m| m == name) {
            cols.push(c.clone());
            continue;
        }
        let get = |n: String| -> PolarsResult<Float64Chunked> {
            Ok(table.column(n.as_str())?.cast(&DataType::Float64)?.f64()?.clone())
        };
        let (v, lo, hi) =
            (get(name.to_string())?, get(format!("{name}_lo"))?, get(format!("{name}_hi"))?);
        let text: Vec<Option<String>> = (0..table.height())
            .map(|i| {
                v.get(i).map(|x| match (lo.get(i), hi.get(i)) {
                    (Some(l), Some(h)) => format!("{x:.3} [{l:.3}, {h:.3}]"),
                    _ => format!("{x:.3}"),
                })
            })
            .collect();
        cols.push(Column::new(name.into(), text));
    }
    DataFrame::new_infer_height(cols)
}

/// What [`rank_table`] ranked on.
#[derive(Debug, Clone, PartialEq)]
pub struct RankNote {
    /// Documents every ranked provider version scored.
    pub documents: usize,
    /// Documents left out because some provider version did not score them.
    pub dropped: usize,
    /// Groups of provider labels tied on the full data (two or more each).
    pub ties: Vec<Vec<String>>,
}

/// `--rank`: the provider versions of a wide frame ranked by their mean of `metric` over the
/// documents all of them scored (`docs/statistics.md` §3): each one's rank on the full data,
/// its mean rank over the bootstrap resamples (stratified by dataset, as the intervals) and
/// the share of resamples in which it takes each place (`place_1`, `place_2`, ...). Best
/// first; lower is better for edit distances ([`crate::metrics::lower_is_better`]).
pub fn rank_table(wide: &DataFrame, metric: &str, ci: &Ci) -> PolarsResult<(DataFrame, RankNote)> {
    let provider = wide.column("provider")?.str()?.clone();
    let model = wide.column("model")?.str()?.clone();
    let dataset = wide.column("dataset")?.str()?.clone();
    let document = wide.column("document")?.str()?.clone();
    let values = wide.column(metric)?.cast(&DataType::Float64)?.f64()?.clone();
    let mut labels: Vec<(String, String)> = Vec::new();
    let mut docs: Vec<(String, String)> = Vec::new();
    let mut doc_index: std::collections::HashMap<(String, String), usize> = Default::default();
    let mut cells: std::collections::HashMap<(usize, usize), f64> = Default::default();
    for i in 0..wide.height() {
        let l = (provider.get(i).unwrap_or("").to_string(), model.get(i).unwrap_or("").to_string());
        let p = match labels.iter().position(|x| *x == l) {
            Some(p) => p,
            None => {
                labels.push(l);
                labels.len() - 1
            }
        };
        let d =
            (dataset.get(i).unwrap_or("").to_string(), document.get(i).unwrap_or("").to_string());
        let n = docs.len();
        let di = *doc_index.entry(d.clone()).or_insert_with(|| {
            docs.push(d);
            n
        });
        cells.insert((p, di), values.get(i).unwrap_or(f64::NAN));
    }
    let common: Vec<usize> = (0..docs.len())
        .filter(|&d| (0..labels.len()).all(|p| cells.contains_key(&(p, d))))
        .collect();
    let mut ids: std::collections::HashMap<&str, usize> = Default::default();
    let strata: Vec<usize> = common
        .iter()
        .map(|&d| {
            let n = ids.len();
            *ids.entry(docs[d].0.as_str()).or_insert(n)
        })
        .collect();
    let series: Vec<Vec<f64>> =
        (0..labels.len()).map(|p| common.iter().map(|&d| cells[&(p, d)]).collect()).collect();
    let refs: Vec<&[f64]> = series.iter().map(Vec::as_slice).collect();
    let higher = !crate::metrics::lower_is_better(metric);
    let r = crate::metrics::stats::rank_bootstrap(&refs, &strata, higher, ci.resamples, ci.seed);
    let mean = |v: &[f64]| {
        let x: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64)
    };
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by(|&a, &b| r.rank[a].total_cmp(&r.rank[b]).then(labels[a].cmp(&labels[b])));
    let mut cols = vec![
        Column::new(
            "provider".into(),
            order.iter().map(|&p| labels[p].0.as_str()).collect::<Vec<_>>(),
        ),
        Column::new(
            "model".into(),
            order.iter().map(|&p| labels[p].1.as_str()).collect::<Vec<_>>(),
        ),
        Column::new("n".into(), vec![common.len() as u32; labels.len()]),
        Column::new(metric.into(), order.iter().map(|&p| mean(&series[p])).collect::<Vec<_>>()),
        Column::new("rank".into(), order.iter().map(|&p| r.rank[p]).collect::<Vec<_>>()),
        Column::new(
            "mean_rank".into(),
            order
                .iter()
                .map(|&p| Some(r.mean_rank[p]).filter(|x| x.is_finite()))
                .collect::<Vec<_>>(),
        ),
    ];
    for k in 0..labels.len() {
        cols.push(Column::new(
            format!("place_{}", k + 1).into(),
            order.iter().map(|&p| r.place[p].get(k).copied()).collect::<Vec<_>>(),
        ));
    }
    let ties = r
        .ties
        .iter()
        .filter(|g| g.len() > 1)
        .map(|g| g.iter().map(|&p| labels[p].0.clone()).collect())
        .collect();
    let note = RankNote { documents: common.len(), dropped: docs.len() - common.len(), ties };
    Ok((DataFrame::new_infer_height(cols)?, note))
}

/// Places each provider's AVG row after that provider's document rows.
fn interleave_avg(rows: &DataFrame, avg: &DataFrame) -> PolarsResult<DataFrame> {
    let key = |df: &DataFrame| -> PolarsResult<Vec<String>> {
        let p = df.column("provider")?.str()?.clone();
        let m = df.column("model")?.str()?.clone();
        Ok(p.iter()
            .zip(m.iter())
            .map(|(p, m)| format!("{}\u{0}{}", p.unwrap_or(""), m.unwrap_or("")))
            .collect())
    };
    let (rk, ak) = (key(rows)?, key(avg)?);
    let mut out: Option<DataFrame> = None;
    let mut start = 0usize;
    let append = |df: DataFrame, out: &mut Option<DataFrame>| -> PolarsResult<()> {
        match out {
            Some(o) => {
                o.vstack_mut(&df)?;
            }
            None => *out = Some(df),
        }
        Ok(())
    };
    while start < rk.len() {
        let mut end = start;
        while end < rk.len() && rk[end] == rk[start] {
            end += 1;
        }
        append(rows.slice(start as i64, end - start), &mut out)?;
        if let Some(i) = ak.iter().position(|k| *k == rk[start]) {
            append(avg.slice(i as i64, 1), &mut out)?;
        }
        start = end;
    }
    Ok(out.unwrap_or_else(|| rows.clone()))
}

/// `--history`: one row per run and provider version: the mean of each metric over the
/// documents that run scored.
pub fn history(long: &DataFrame, metrics: &[String]) -> PolarsResult<DataFrame> {
    let mut aggs = vec![
        col("run_started_at").first().alias("started_at"),
        col("document").n_unique().alias("n"),
    ];
    aggs.extend(
        metrics.iter().map(|m| {
            col("value").filter(col("metric").eq(lit(m.as_str()))).mean().alias(m.as_str())
        }),
    );
    long.clone()
        .lazy()
        .group_by([col("run"), col("provider"), col("model")])
        .agg(aggs)
        .sort(
            ["run", "provider"],
            SortMultipleOptions::default().with_nulls_last(true).with_maintain_order(true),
        )
        .collect()
}

/// Where `--since` starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// Scores computed by this run or a later one.
    Run(i64),
    /// Scores computed at or after this UTC time (`YYYY-MM-DD...`).
    Time(String),
}

/// Seconds since the Unix epoch of `YYYY-MM-DD[THH:MM[:SS]]` (UTC).
pub(crate) fn parse_utc(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> { s.get(r)?.parse().ok() };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let (hh, mm, ss) = if b.len() >= 16 {
        (num(11..13)?, num(14..16)?, if b.len() >= 19 { num(17..19)? } else { 0 })
    } else {
        (0, 0, 0)
    };
    // Days-from-civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

impl Since {
    /// Parses a run id (`42`), a date or time (`2026-11-01`, `2026-11-01T12:00`), `today`,
    /// `yesterday`, `last-week`, `last-month`, or an age (`3d`, `12h`, `2w`), relative to
    /// `now` (as the store writes times).
    pub fn parse(s: &str, now: &str) -> Result<Since, String> {
        let s = s.trim();
        if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) {
            return s.parse().map(Since::Run).map_err(|e| format!("{s:?}: {e}"));
        }
        if let Some(t) = parse_utc(s) {
            return Ok(Since::Time(crate::store::format_utc(t, 0)));
        }
        let now = parse_utc(now).ok_or_else(|| format!("cannot read the current time {now:?}"))?;
        let ago = |secs: i64| Ok(Since::Time(crate::store::format_utc(now - secs, 0)));
        let today = now - now.rem_euclid(86_400);
        match s {
            "today" => return Ok(Since::Time(crate::store::format_utc(today, 0))),
            "yesterday" => return Ok(Since::Time(crate::store::format_utc(today - 86_400, 0))),
            "last-week" => return ago(7 * 86_400),
            "last-month" => return ago(30 * 86_400),
            _ => {}
        }
        let unit = s.chars().last().unwrap_or(' ');
        let n: Option<i64> = s[..s.len() - unit.len_utf8().min(s.len())].parse().ok();
        match (n, unit) {
            (Some(n), 'h') => ago(n * 3600),
            (Some(n), 'd') => ago(n * 86_400),
            (Some(n), 'w') => ago(n * 7 * 86_400),
            _ => Err(format!(
                "--since {s:?}: expected a run id, a date (2026-11-01), today, yesterday, last-week, last-month or an age (3d, 12h, 2w)"
            )),
        }
    }
}

#[cfg(test)]
mod tests;
