//! `corpus report`'s truth versions: which truths its figures use (`--truth-version`), the
//! note that names them, `--truth-compare OLD..NEW`, and what it says when nothing is scored
//! because there is no truth (docs/truth-versions.md).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::process::ExitCode;

use corpus::report::{self, render, ReportFormat};
use corpus::store::{ScoreColumns, ScoreFilter, Store, TruthSelect, TruthVersion};

use super::{GlobalArgs, EXIT_NO_TRUTH};

/// `report --truth-version`: one selection, or every truth (the newest score whatever truth it
/// used).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TruthVersionArg {
    /// Scores against any truth.
    All,
    /// Scores against the truths of this selection.
    One(TruthSelect),
}

impl TruthVersionArg {
    pub(super) fn parse(s: &str) -> Result<TruthVersionArg, String> {
        if s == "all" {
            return Ok(TruthVersionArg::All);
        }
        TruthSelect::parse(s).map(TruthVersionArg::One).map_err(|e| format!("{e}, or all"))
    }
}

/// `report --truth-compare OLD..NEW`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TruthPair(pub TruthSelect, pub TruthSelect);

impl TruthPair {
    pub(super) fn parse(s: &str) -> Result<TruthPair, String> {
        let Some((a, b)) = s.split_once("..") else {
            return Err(format!("{s:?}: give OLD..NEW, e.g. previous..latest or v1..v2"));
        };
        let (a, b) = (TruthSelect::parse(a)?, TruthSelect::parse(b)?);
        if a == b {
            return Err(format!("{s:?} compares a truth version with itself"));
        }
        Ok(TruthPair(a, b))
    }
}

/// The truth ids a selection names (for [`ScoreFilter::truths`]); `None` for all.
pub(super) fn truth_ids(store: &Store, v: TruthVersionArg) -> anyhow::Result<Option<HashSet<i64>>> {
    Ok(match v {
        TruthVersionArg::All => None,
        TruthVersionArg::One(sel) => Some(store.truth_ids(sel)?),
    })
}

/// Reports with no scores: says why. Where no document in scope has a truth the suite
/// reads, says so and exits 6 (as `eval`); where the scores are against superseded truths
/// only, says to score the newest; else says which filter matched nothing (`why`), a usage
/// error (exit 2) for `--compare`.
pub(super) fn no_scores(
    g: &GlobalArgs,
    store: &Store,
    suite: Option<&str>,
    dataset: Option<&str>,
    cols: &ScoreColumns,
    why: &str,
    compare: bool,
) -> anyhow::Result<ExitCode> {
    let formats: Option<&[corpus::formats::TruthFormat]> = suite.and_then(|s| {
        corpus::suites::Suite::ALL
            .into_iter()
            .find(|x| x.stored_names().contains(&s))
            .map(|x| x.formats())
    });
    let reads =
        |t: &TruthVersion| formats.is_none_or(|f| f.iter().any(|f| f.as_str() == t.row.format));
    let any_truth = store.truth_versions(dataset)?.iter().any(reads);
    let scope = dataset.map_or("the store".to_string(), |d| format!("dataset {d}"));
    let ds = dataset.map(|d| format!(" --dataset {d}")).unwrap_or_default();
    let documents = store.documents(dataset)?.len();
    if !any_truth && documents > 0 {
        let what = match (suite, formats) {
            (Some(s), Some(f)) => format!(
                "the {s} suite reads ({})",
                f.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")
            ),
            _ => "any suite reads".into(),
        };
        eprintln!(
            "corpus: nothing is scored: none of the {documents} document(s) in {scope} has a truth {what}.\n  \
             compare the parsers without a truth:  corpus agree{ds}\n  \
             draft a truth to correct:             corpus truth draft{ds} --provider P"
        );
        return Ok(ExitCode::from(EXIT_NO_TRUTH));
    }
    if compare && cols.left_out_truths.is_empty() {
        // Two selections to compare and nothing matched: the command line asks for what is not
        // there, named.
        usage_bail!("{why}");
    }
    if !g.quiet {
        if cols.left_out_truths.is_empty() {
            eprintln!("corpus: {why}");
        } else {
            eprintln!(
                "corpus: no scores against the truth version asked for; {} superseded truth(s) \
                 have scores: `corpus eval` scores the newest, `--truth-version all` shows them",
                cols.left_out_truths.len()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Says which truth versions the figures use, per dataset (stderr, unless quiet): a note
/// where a dataset mixes versions, and where superseded truths' scores were left out for
/// documents whose newest truth has none yet.
pub(super) fn note_versions(
    g: &GlobalArgs,
    store: &Store,
    cols: &ScoreColumns,
) -> anyhow::Result<()> {
    if g.quiet || cols.truths.is_empty() {
        return Ok(());
    }
    let all = store.truth_versions(None)?;
    let by_id: HashMap<i64, &TruthVersion> = all.iter().map(|t| (t.row.id, t)).collect();
    let mut per: BTreeMap<&str, BTreeMap<u32, usize>> = BTreeMap::new();
    let mut scored_docs: HashSet<(i64, &str)> = HashSet::new();
    for t in cols.truths.iter().filter_map(|id| by_id.get(id)) {
        *per.entry(t.row.dataset.as_str()).or_default().entry(t.version).or_default() += 1;
        scored_docs.insert((t.row.document, t.row.dataset.as_str()));
    }
    for (dataset, versions) in &per {
        let list: Vec<String> = versions.iter().map(|(v, n)| format!("v{v} ({n})")).collect();
        let mixed = if versions.len() > 1 {
            " - mixed: some truths were corrected, the rest are as first ingested"
        } else {
            ""
        };
        eprintln!("corpus: truths of {dataset} the figures use: {}{mixed}", list.join(", "));
    }
    let stale = cols
        .left_out_truths
        .iter()
        .filter_map(|id| by_id.get(id))
        .filter(|t| !scored_docs.contains(&(t.row.document, t.row.dataset.as_str())))
        .map(|t| t.row.document)
        .collect::<HashSet<_>>()
        .len();
    if stale > 0 {
        eprintln!(
            "corpus: {stale} document(s) have scores against a superseded truth only, left out: \
             `corpus eval` scores their newest truth (`--truth-version all` shows the old scores)"
        );
    }
    Ok(())
}

/// `report --truth-compare OLD..NEW`: per metric and provider version, the means against the
/// old and the new truths over the documents scored against both, the change and the ranks.
pub(super) fn compare(
    g: &GlobalArgs,
    store: &Store,
    filter: &ScoreFilter<'_>,
    pair: TruthPair,
    fields: bool,
    format: ReportFormat,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let (old_ids, new_ids) = (store.truth_ids(pair.0)?, store.truth_ids(pair.1)?);
    let read = |ids: &HashSet<i64>| {
        let f = ScoreFilter { truths: Some(ids), latest: true, ..filter.clone() };
        report::report_columns(store, &f, fields)
    };
    let ((old, metrics), (new, _)) = (read(&old_ids)?, read(&new_ids)?);
    let (lo, ln) = (pair.0.label(), pair.1.label());
    if old.is_empty() || new.is_empty() {
        let which = if old.is_empty() { &lo } else { &ln };
        eprintln!(
            "corpus: --truth-compare: no scores against the truths of version {which}: score them \
             with `corpus eval --truth-version {which}` (scores are kept per truth)"
        );
        return Ok(ExitCode::FAILURE);
    }
    // A document's truth differs between the versions where its truth ids differ.
    let all = store.truth_versions(None)?;
    let name = store.truth_document_names()?;
    let side = |ids: &HashSet<i64>| -> HashMap<(String, String), Vec<i64>> {
        let mut m: HashMap<(String, String), Vec<i64>> = HashMap::new();
        for t in all.iter().filter(|t| ids.contains(&t.row.id)) {
            if let Some(n) = name.get(&(t.row.document, t.row.dataset.clone())) {
                m.entry((t.row.dataset.clone(), n.clone())).or_default().push(t.row.id);
            }
        }
        m.values_mut().for_each(|v| v.sort());
        m
    };
    let (so, sn) = (side(&old_ids), side(&new_ids));
    let changed = |dataset: &str, doc: &str| {
        let k = (dataset.to_string(), doc.to_string());
        so.get(&k) != sn.get(&k)
    };
    let rows = report::truth_deltas(&old, &new, &metrics, changed);
    if rows.is_empty() {
        eprintln!(
            "corpus: --truth-compare: no provider version has scores against both {lo} and {ln}"
        );
        return Ok(ExitCode::FAILURE);
    }
    if !g.quiet {
        let corrected = so.keys().chain(sn.keys()).collect::<HashSet<_>>();
        let n = corrected.iter().filter(|k| changed(&k.0, &k.1)).count();
        eprintln!(
            "corpus: truths {lo} vs {ln}: {n} document(s) have a different truth; means paired over \
             the documents each provider version has scores for under both (documents); ranks \
             best first, equal means sharing a place"
        );
    }
    let frame = report::truth_delta_frame(&rows, &lo, &ln)?;
    report::render::write(&render(&frame, format)?, out)?;
    Ok(ExitCode::SUCCESS)
}
