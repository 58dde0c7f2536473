//! Which filter matched nothing: when `report`, `report --compare` or `gate` find no scores,
//! the filters are applied one at a time (suite, dataset, since, metric, provider, version)
//! and the first after which nothing is left is named, with what was there before it.

use corpus::report::Selector;
use corpus::store::{ScoreColumns, ScoreFilter, Store};

/// The filters of a query, with how the user wrote `--since`.
pub(super) struct Filters<'a> {
    /// The query's filter.
    pub filter: &'a ScoreFilter<'a>,
    /// `--since` as given.
    pub since: Option<&'a str>,
}

/// Distinct values, sorted, at most 8 shown.
fn listed<'a>(values: impl Iterator<Item = &'a str>) -> String {
    let mut v: Vec<&str> = values.collect();
    v.sort_unstable();
    v.dedup();
    let more = v.len().saturating_sub(8);
    let mut s = v.into_iter().take(8).collect::<Vec<_>>().join(", ");
    if more > 0 {
        s.push_str(&format!(" and {more} more"));
    }
    s
}

/// The sentence that names the filter that matched nothing (`what` is the asking command's
/// context, e.g. `--compare`), for the selection `sel` (or all providers).
pub(super) fn explain(
    store: &Store,
    f: &Filters<'_>,
    sel: Option<&Selector>,
    what: &str,
) -> anyhow::Result<String> {
    let full = f.filter;
    let mut q = ScoreFilter {
        latest: full.latest,
        suite: None,
        skip_suite: full.skip_suite,
        dataset: None,
        provider: None,
        metric: None,
        since_run: None,
        since_time: None,
        attribute: None,
        truths: full.truths,
    };
    let mut before: ScoreColumns = store.score_columns(&q)?;
    if before.is_empty() {
        return Ok(format!("{what}: the store holds no scores yet; run `corpus eval` first"));
    }
    let mut applied: Vec<String> = Vec::new();
    let within = |applied: &[String]| {
        if applied.is_empty() {
            String::new()
        } else {
            format!(" (within {})", applied.join(" "))
        }
    };
    let provider = sel.map(|s| s.provider.as_str()).or(full.provider);
    let steps: [(&str, Option<String>); 5] = [
        ("suite", full.suite.map(|s| format!("--suite {s}"))),
        ("dataset", full.dataset.map(|d| format!("--dataset {d}"))),
        ("since", f.since.map(|s| format!("--since {s}"))),
        ("metric", full.metric.map(|m| format!("--metric {m}"))),
        ("provider", provider.map(|p| format!("provider {p}"))),
    ];
    for (kind, label) in steps {
        let Some(label) = label else { continue };
        match kind {
            "suite" => q.suite = full.suite,
            "dataset" => q.dataset = full.dataset,
            "since" => (q.since_run, q.since_time) = (full.since_run, full.since_time),
            "metric" => q.metric = full.metric,
            _ => q.provider = provider,
        }
        let now = store.score_columns(&q)?;
        if now.is_empty() {
            let there = match kind {
                "dataset" => format!("; datasets there: {}", listed(before.keys.iter().map(|k| k.dataset.as_str()))),
                "metric" => format!("; metrics there: {}", listed(before.metrics.iter().map(String::as_str))),
                "provider" => format!("; providers there: {}", listed(before.keys.iter().map(|k| k.provider.as_str()))),
                "suite" => "; `corpus eval --suite` stores a suite's scores, `corpus status` shows what is stored".to_string(),
                _ => String::new(),
            };
            return Ok(format!("{what}: no scores match {label}{}{there}", within(&applied)));
        }
        if kind != "provider" {
            applied.push(label);
        }
        before = now;
    }
    if let Some(sel) = sel {
        if !before
            .keys
            .iter()
            .any(|k| sel.matches(&k.provider, &k.provider_version, &k.model_digest))
        {
            let versions = listed(
                before
                    .keys
                    .iter()
                    .filter(|k| k.provider == sel.provider)
                    .map(|k| k.provider_version.as_str()),
            );
            return Ok(format!(
                "{what}: no scores of {} match{}; versions there: {versions} (`corpus report --by provider` lists them)",
                sel.label(),
                within(&applied)
            ));
        }
    }
    Ok(format!("{what}: no scores match{}", within(&applied)))
}
