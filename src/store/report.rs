//! Score rows for `corpus report` (the rows the public views define), and document attributes.

use rusqlite::params;

use super::Store;
use crate::error::Result;

/// Which scores to read.
#[derive(Debug, Clone, Default)]
pub struct ScoreFilter<'a> {
    /// Only the newest score per document / provider version / model / suite / metric
    /// (`v_latest_scores`), else every score ever computed (`v_scores`).
    pub latest: bool,
    /// Only this suite.
    pub suite: Option<&'a str>,
    /// Not this suite: `report` without `--suite` leaves out the detection suite's second
    /// taxonomy (`detection-docling`), whose metric ids are the first's.
    pub skip_suite: Option<&'a str>,
    /// Only documents named in this dataset.
    pub dataset: Option<&'a str>,
    /// Only this provider.
    pub provider: Option<&'a str>,
    /// Only this metric.
    pub metric: Option<&'a str>,
    /// Only scores computed by this run or a later one.
    pub since_run: Option<i64>,
    /// Only scores computed at or after this time (`YYYY-MM-DDTHH:MM:SS.mmmZ` or a prefix).
    pub since_time: Option<&'a str>,
    /// Also read this document attribute.
    pub attribute: Option<&'a str>,
    /// Only scores against these truths (by id: a [`super::TruthSelect`]'s truths, e.g. the
    /// latest versions); `None` reads scores against any truth.
    pub truths: Option<&'a std::collections::HashSet<i64>>,
}

/// What one score row is about: a document in a dataset, scored from one provider version
/// and model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ScoreKey {
    /// Document name.
    pub document: String,
    /// Dataset of the truth.
    pub dataset: String,
    /// Provider id.
    pub provider: String,
    /// Provider version.
    pub provider_version: String,
    /// Model digest.
    pub model_digest: String,
    /// The requested attribute's value.
    pub attribute: Option<String>,
}

/// Score rows in columns of small integers, with their keys and metric names beside them
/// (a million rows must not mean a million copies of each name).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreColumns {
    /// The distinct keys.
    pub keys: Vec<ScoreKey>,
    /// The distinct metric ids.
    pub metrics: Vec<String>,
    /// Per row: index into `keys`.
    pub key: Vec<u32>,
    /// Per row: index into `metrics`.
    pub metric: Vec<u32>,
    /// Per row: the value (`None` where the truth side is empty).
    pub value: Vec<Option<f64>>,
    /// Per row: the run that computed it.
    pub run: Vec<Option<i64>>,
    /// When each run started.
    pub run_started_at: std::collections::HashMap<i64, String>,
    /// The truths (ids) the rows read were scored against.
    pub truths: std::collections::BTreeSet<i64>,
    /// Truths with scores that the filter's `truths` left out (superseded versions, say).
    pub left_out_truths: std::collections::BTreeSet<i64>,
}

impl ScoreColumns {
    /// Adds one row (for tests and small callers; the store fills the columns directly).
    pub fn push(&mut self, key: ScoreKey, metric: &str, value: Option<f64>, run: Option<i64>) {
        let k = match self.keys.iter().position(|x| *x == key) {
            Some(k) => k,
            None => {
                self.keys.push(key);
                self.keys.len() - 1
            }
        };
        let m = match self.metrics.iter().position(|x| x == metric) {
            Some(m) => m,
            None => {
                self.metrics.push(metric.to_string());
                self.metrics.len() - 1
            }
        };
        self.key.push(k as u32);
        self.metric.push(m as u32);
        self.value.push(value);
        self.run.push(run);
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.key.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.key.is_empty()
    }

    /// Keeps only the rows (and metric ids) whose metric `keep` accepts.
    pub(crate) fn retain_metrics(&mut self, keep: impl Fn(&str) -> bool) {
        let mut new_index: Vec<Option<u32>> = Vec::with_capacity(self.metrics.len());
        let mut metrics = Vec::new();
        for m in std::mem::take(&mut self.metrics) {
            if keep(&m) {
                new_index.push(Some(metrics.len() as u32));
                metrics.push(m);
            } else {
                new_index.push(None);
            }
        }
        self.metrics = metrics;
        let mut w = 0;
        for r in 0..self.key.len() {
            if let Some(m) = new_index[self.metric[r] as usize] {
                self.key[w] = self.key[r];
                self.metric[w] = m;
                self.value[w] = self.value[r];
                self.run[w] = self.run[r];
                w += 1;
            }
        }
        self.key.truncate(w);
        self.metric.truncate(w);
        self.value.truncate(w);
        self.run.truncate(w);
    }
}

impl Store {
    /// The tables [`Store::score_columns`] joins its metric rows with: outputs (of the
    /// filter's provider), truths (of its dataset) with their dataset, document names,
    /// runs' start times, and the filter's attribute.
    fn score_lookups(&self, f: &ScoreFilter<'_>) -> Result<Lookups> {
        use std::collections::HashMap;
        let mut outputs: HashMap<i64, Out> = HashMap::new();
        let mut st = self.conn.prepare(
            "SELECT id, document, provider, provider_version, model_digest FROM outputs
                 WHERE ?1 IS NULL OR provider = ?1",
        )?;
        let mut rows = st.query(params![f.provider])?;
        while let Some(r) = rows.next()? {
            outputs.insert(
                r.get(0)?,
                Out {
                    document: r.get(1)?,
                    provider: r.get(2)?,
                    version: r.get(3)?,
                    model: r.get(4)?,
                },
            );
        }
        // truth id -> (dataset id, dataset name)
        let mut truths: HashMap<i64, (i64, String)> = HashMap::new();
        let mut st = self.conn.prepare(
            "SELECT t.id, t.dataset, s.name FROM truths t JOIN datasets s ON s.id = t.dataset
                 WHERE ?1 IS NULL OR s.name = ?1",
        )?;
        let mut rows = st.query(params![f.dataset])?;
        let mut excluded = std::collections::HashSet::new();
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            if f.truths.is_some_and(|keep| !keep.contains(&id)) {
                excluded.insert(id);
                continue;
            }
            truths.insert(id, (r.get(1)?, r.get(2)?));
        }
        let mut names: HashMap<(i64, i64), String> = HashMap::new();
        let mut st = self.conn.prepare(
            "SELECT document, dataset, min(name) FROM document_names GROUP BY document, dataset",
        )?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            names.insert((r.get(0)?, r.get(1)?), r.get(2)?);
        }
        let mut started: HashMap<i64, String> = HashMap::new();
        let mut st = self.conn.prepare("SELECT id, started_at FROM runs")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            started.insert(r.get(0)?, r.get(1)?);
        }
        let mut attrs: HashMap<(i64, i64), String> = HashMap::new();
        if let Some(a) = f.attribute {
            let mut st = self.conn.prepare(
                "SELECT document, dataset, value FROM document_attributes WHERE name = ?1",
            )?;
            let mut rows = st.query([a])?;
            while let Some(r) = rows.next()? {
                attrs.insert((r.get(0)?, r.get(1)?), r.get(2)?);
            }
        }
        Ok(Lookups { outputs, truths, excluded, names, started, attrs })
    }

    /// Reads score rows: the rows of `v_latest_scores` (or of `v_scores` when not
    /// `latest`), one per document name in the truth's dataset (the first name where a
    /// document has several), with the filters applied.
    ///
    /// The views define the rows; this reads them from the tables the views are made of,
    /// through the covering index `metrics_report`, and picks the newest score per key in
    /// memory: a million scores take a fraction of a second instead of the seconds the
    /// views' joins and window function need.
    pub fn score_columns(&self, f: &ScoreFilter<'_>) -> Result<ScoreColumns> {
        use std::collections::HashMap;
        let Lookups { outputs, truths, excluded, names, started, attrs } = self.score_lookups(f)?;

        // One scan of the covering index, in (suite, output, truth) order, so consecutive
        // rows share their output, truth and usually their time: those lookups are cached.
        // For `latest`, a later row of the same key replaces an older one in place.
        let mut names_of = Interned::default();
        let mut kept: Vec<ScanRow> = Vec::new();
        let mut c = ScoreColumns::default();
        let mut key_of: HashMap<(i64, i64, u32), u32> = HashMap::new();
        let mut gids: HashMap<(&str, &str, &str), u32> = HashMap::new();
        let mut last_pair: Option<(i64, i64, Option<u32>)> = None;
        // For `latest`: the pair that first filled each key, and where its rows start. A key
        // filled again by another pair (a re-import, a second output) is the rare case that
        // searches the earlier rows.
        let mut owner: Vec<Option<(i64, i64)>> = Vec::new();
        let mut starts: Vec<Vec<usize>> = Vec::new();
        let mut revisit = false;
        let mut st = self.conn.prepare(
            "SELECT output, truth, suite, metric, value, computed_at, run, suite_version
             FROM metrics INDEXED BY metrics_report
             WHERE suite >= '' AND (?1 IS NULL OR suite = ?1) AND (?2 IS NULL OR metric = ?2)
               AND (?3 IS NULL OR run >= ?3) AND (?4 IS NULL OR computed_at >= ?4)
               AND (?5 IS NULL OR suite <> ?5)",
        )?;
        let mut rows =
            st.query(params![f.suite, f.metric, f.since_run, f.since_time, f.skip_suite])?;
        while let Some(r) = rows.next()? {
            let output: i64 = r.get(0)?;
            let truth: i64 = r.get(1)?;
            let key = match last_pair {
                Some((o, t, k)) if o == output && t == truth => k,
                _ => {
                    let k = (|| {
                        let o = outputs.get(&output)?;
                        let (dataset, dataset_name) = truths.get(&truth)?;
                        let name = names.get(&(o.document, *dataset))?;
                        let n = gids.len() as u32;
                        let g = *gids.entry((&o.provider, &o.version, &o.model)).or_insert(n);
                        let n = c.keys.len() as u32;
                        Some(*key_of.entry((o.document, *dataset, g)).or_insert_with(|| {
                            c.keys.push(ScoreKey {
                                document: name.clone(),
                                dataset: dataset_name.clone(),
                                provider: o.provider.clone(),
                                provider_version: o.version.clone(),
                                model_digest: o.model.clone(),
                                attribute: attrs.get(&(o.document, *dataset)).cloned(),
                            });
                            n
                        }))
                    })();
                    last_pair = Some((output, truth, k));
                    if k.is_some() {
                        c.truths.insert(truth);
                    } else if excluded.contains(&truth) && outputs.contains_key(&output) {
                        c.left_out_truths.insert(truth);
                    }
                    names_of.next_pair();
                    if let Some(k) = k.map(|k| k as usize) {
                        if owner.len() <= k {
                            owner.resize(k + 1, None);
                            starts.resize(k + 1, Vec::new());
                        }
                        revisit = owner[k].is_some_and(|p| p != (output, truth));
                        owner[k].get_or_insert((output, truth));
                        starts[k].push(kept.len());
                    }
                    k
                }
            };
            let Some(key) = key else { continue };
            let text = |i: usize| r.get_ref(i)?.as_str().map_err(rusqlite::Error::from);
            let metric = names_of.metric(text(3)?);
            let at = names_of.time(text(5)?);
            let suite = names_of.suite(text(2)?);
            let row = ScanRow {
                key,
                metric,
                suite,
                value: r.get(4)?,
                at,
                output,
                run: r.get(6)?,
                suite_version: r.get(7)?,
            };
            if !f.latest {
                kept.push(row);
                continue;
            }
            let rival = rival(&kept, &row, revisit.then(|| &starts[key as usize][..]));
            match rival {
                Some(i) => {
                    // The view's order: newest computed_at, then output, then suite version.
                    let t = &names_of.times;
                    if (&t[row.at as usize], row.output, row.suite_version)
                        > (&t[kept[i].at as usize], kept[i].output, kept[i].suite_version)
                    {
                        kept[i] = row;
                    }
                }
                None => kept.push(row),
            }
        }
        drop(rows);
        c.metrics = names_of.metric_names;
        c.run_started_at = started;
        c.key.reserve(kept.len());
        for row in kept {
            c.key.push(row.key);
            c.metric.push(row.metric);
            c.value.push(row.value);
            c.run.push(row.run);
        }
        Ok(c)
    }
}

/// One metrics row kept by [`Store::score_columns`]'s scan, its strings interned.
struct ScanRow {
    key: u32,
    metric: u32,
    suite: u32,
    value: Option<f64>,
    at: u32,
    output: i64,
    run: Option<i64>,
    suite_version: i64,
}

/// The row a new `latest` row competes with: the previous row (same pair, same metric: two
/// suite versions), or, when its key was filled by another pair (`earlier`: where each of
/// that key's pairs starts in `kept`), that pair's row of the same metric.
fn rival(kept: &[ScanRow], row: &ScanRow, earlier: Option<&[usize]>) -> Option<usize> {
    let same = |o: &ScanRow| o.key == row.key && o.metric == row.metric && o.suite == row.suite;
    match (kept.last(), earlier) {
        (Some(last), _) if same(last) => Some(kept.len() - 1),
        (_, Some(starts)) => starts.iter().find_map(|&start| {
            (start..kept.len()).take_while(|&i| kept[i].key == row.key).find(|&i| same(&kept[i]))
        }),
        (_, None) => None,
    }
}

/// The strings of one scan as small ids: metric names, times and suites.
#[derive(Default)]
struct Interned {
    metric_ids: std::collections::HashMap<String, u32>,
    metric_names: Vec<String>,
    times: Vec<String>,
    suite_ids: std::collections::HashMap<String, u32>,
    /// Rows of one (output, truth) pair are contiguous and sorted by suite and metric, and
    /// the next pair usually repeats the same metric sequence: the metric id is guessed from
    /// the previous pair's sequence (`prev_seq`) before it is looked up.
    seq: Vec<u32>,
    prev_seq: Vec<u32>,
}

impl Interned {
    /// A new (output, truth) pair starts.
    fn next_pair(&mut self) {
        self.prev_seq = std::mem::take(&mut self.seq);
    }

    fn metric(&mut self, m: &str) -> u32 {
        let id = match self.prev_seq.get(self.seq.len()).copied() {
            Some(id) if self.metric_names[id as usize] == m => id,
            _ => match self.metric_ids.get(m) {
                Some(&id) => id,
                None => {
                    let id = self.metric_names.len() as u32;
                    self.metric_names.push(m.to_string());
                    self.metric_ids.insert(m.to_string(), id);
                    id
                }
            },
        };
        self.seq.push(id);
        id
    }

    /// Times come in runs of equal values: only the last one is compared.
    fn time(&mut self, t: &str) -> u32 {
        if self.times.last().is_none_or(|last| last != t) {
            self.times.push(t.to_string());
        }
        self.times.len() as u32 - 1
    }

    fn suite(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.suite_ids.get(s) {
            return id;
        }
        let n = self.suite_ids.len() as u32;
        self.suite_ids.insert(s.to_string(), n);
        n
    }
}

/// One output's identity, as the report keys it.
struct Out {
    document: i64,
    provider: String,
    version: String,
    model: String,
}

/// What [`Store::score_lookups`] reads.
struct Lookups {
    /// output id -> its document, provider, version and model
    outputs: std::collections::HashMap<i64, Out>,
    /// truth id -> (dataset id, dataset name)
    truths: std::collections::HashMap<i64, (i64, String)>,
    /// truths of the dataset that the filter's `truths` leaves out
    excluded: std::collections::HashSet<i64>,
    /// (document, dataset) -> the document's first name in the dataset
    names: std::collections::HashMap<(i64, i64), String>,
    /// run id -> started_at
    started: std::collections::HashMap<i64, String>,
    /// (document, dataset) -> the asked attribute's value
    attrs: std::collections::HashMap<(i64, i64), String>,
}

/// An interval a suite stored with a score whose value is not a mean over documents
/// (olmOCR-bench's `overall` and `group_score:<group>`, stored on one document per dataset,
/// with `ci95` in their traces).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredInterval {
    /// The score's key.
    pub key: ScoreKey,
    /// Metric id.
    pub metric: String,
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

impl Store {
    /// Returns the intervals stored in the traces (`"ci95": [lo, hi]`) of the latest scores of
    /// `suite` (of `dataset` only, where given).
    pub fn stored_intervals(
        &self,
        suite: &str,
        dataset: Option<&str>,
    ) -> Result<Vec<StoredInterval>> {
        let mut st = self.conn.prepare(
            "SELECT document, dataset, provider, provider_version, model_digest, metric,
                    json_extract(trace, '$.ci95[0]'), json_extract(trace, '$.ci95[1]')
             FROM v_latest_scores
             WHERE suite = ?1 AND (?2 IS NULL OR dataset = ?2) AND json_valid(trace)
               AND json_type(trace, '$.ci95') = 'array'",
        )?;
        let rows = st.query_map(params![suite, dataset], |r| {
            Ok((
                ScoreKey {
                    document: r.get(0)?,
                    dataset: r.get(1)?,
                    provider: r.get(2)?,
                    provider_version: r.get(3)?,
                    model_digest: r.get(4)?,
                    attribute: None,
                },
                r.get::<_, String>(5)?,
                r.get::<_, Option<f64>>(6)?,
                r.get::<_, Option<f64>>(7)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            if let (key, metric, Some(lo), Some(hi)) = row? {
                out.push(StoredInterval { key, metric, lo, hi });
            }
        }
        Ok(out)
    }

    /// Returns the latest values of one metric of `suite` for one provider: per (dataset,
    /// document), the most recently computed of its versions' latest scores (dataset,
    /// document, value).
    pub fn latest_metric_values(
        &self,
        suite: &str,
        metric: &str,
        provider: &str,
    ) -> Result<Vec<(String, String, Option<f64>)>> {
        let mut st = self.conn.prepare(
            "SELECT dataset, document, value FROM v_latest_scores
             WHERE suite = ?1 AND metric = ?2 AND provider = ?3
             ORDER BY computed_at DESC, output_id DESC",
        )?;
        let rows = st.query_map(params![suite, metric, provider], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<(String, String, Option<f64>)> = Vec::new();
        for row in rows {
            let row: (String, String, Option<f64>) = row?;
            if seen.insert((row.0.clone(), row.1.clone())) {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// Returns the traces of the latest scores of one metric of `suite` (of `dataset` only,
    /// where given, and against the truths `truths` names, where given: as
    /// [`Store::score_columns`] picks them, the newest per document, provider version and
    /// model), with their keys: the detection suite's page sets, which a report pools.
    pub fn latest_traces(
        &self,
        suite: &str,
        metric: &str,
        dataset: Option<&str>,
        truths: Option<&std::collections::HashSet<i64>>,
    ) -> Result<Vec<(ScoreKey, String)>> {
        let mut st = self.conn.prepare(
            "SELECT document, dataset, provider, provider_version, model_digest, trace, truth_id
             FROM v_scores
             WHERE suite = ?1 AND metric = ?2 AND (?3 IS NULL OR dataset = ?3)
               AND trace IS NOT NULL
             ORDER BY computed_at DESC, output_id DESC, suite_version DESC",
        )?;
        let rows = st.query_map(params![suite, metric, dataset], |r| {
            Ok((
                ScoreKey {
                    document: r.get(0)?,
                    dataset: r.get(1)?,
                    provider: r.get(2)?,
                    provider_version: r.get(3)?,
                    model_digest: r.get(4)?,
                    attribute: None,
                },
                r.get::<_, String>(5)?,
                r.get::<_, i64>(6)?,
            ))
        })?;
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for row in rows {
            let (key, trace, truth) = row?;
            if truths.is_some_and(|t| !t.contains(&truth)) {
                continue;
            }
            if seen.insert(key.clone()) {
                out.push((key, trace));
            }
        }
        Ok(out)
    }
}

/// What one stored output took, for the cost-and-speed columns of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRow {
    /// Document name.
    pub document: String,
    /// Dataset.
    pub dataset: String,
    /// Provider id.
    pub provider: String,
    /// Provider version.
    pub provider_version: String,
    /// Model digest.
    pub model_digest: String,
    /// Pages read (the document's pages for outputs stored before they were recorded).
    pub pages: u64,
    /// Wall time, ms.
    pub wall_ms: Option<u64>,
    /// CPU time, ms.
    pub cpu_ms: Option<u64>,
    /// Prompt plus completion tokens.
    pub tokens: Option<u64>,
    /// Cost, US dollars.
    pub cost_usd: Option<f64>,
    /// What the cost rests on (`tokens`, `gpu-time`).
    pub cost_basis: Option<String>,
    /// How the model's page replies ended (endpoint outputs).
    pub replies: Option<super::ReplyHealth>,
}

impl Store {
    /// The newest successful output of each (document, provider version, model) with what it
    /// took, under each of the document's names.
    pub fn output_usage(&self) -> Result<Vec<UsageRow>> {
        let mut st = self.conn.prepare(
            "SELECT n.name, ds.name, o.provider, o.provider_version, o.model_digest,
                    coalesce(o.page_count, d.pages), o.wall_ms, o.cpu_ms,
                    o.prompt_tokens + o.completion_tokens, o.cost_usd, o.cost_basis,
                    o.pages_cut, o.pages_looped, o.pages_empty
             FROM outputs o
             JOIN documents d ON d.id = o.document
             JOIN document_names n ON n.document = o.document
             JOIN datasets ds ON ds.id = n.dataset
             WHERE o.id IN (SELECT max(id) FROM outputs WHERE status = 'ok'
                            GROUP BY document, provider, provider_version, model_digest)",
        )?;
        let u = |v: Option<i64>| v.map(|x| x.max(0) as u64);
        let rows = st.query_map([], |r| {
            Ok(UsageRow {
                document: r.get(0)?,
                dataset: r.get(1)?,
                provider: r.get(2)?,
                provider_version: r.get(3)?,
                model_digest: r.get(4)?,
                pages: u(r.get(5)?).unwrap_or(0),
                wall_ms: u(r.get(6)?),
                cpu_ms: u(r.get(7)?),
                tokens: u(r.get(8)?),
                cost_usd: r.get(9)?,
                cost_basis: r.get(10)?,
                replies: match (u(r.get(11)?), u(r.get(12)?), u(r.get(13)?)) {
                    (Some(cut), Some(looped), Some(empty)) => {
                        Some(super::ReplyHealth { cut, looped, empty })
                    }
                    _ => None,
                },
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}
