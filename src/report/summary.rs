//! The summary table `corpus report` prints: one row per group (`--by`), the metrics' means,
//! the suite's headline metrics first and the rows sorted by the first of them (best first)
//! for `--by provider`, each provider version's usage beside its scores, and intervals folded
//! into the mean's cell for a text table.

use polars::prelude::*;

use super::html::pe;
use super::{fold_intervals, summary_ci, wide_frame, with_usage, By, Ci, Headline};
use crate::store::{ScoreColumns, ScoreKey, Store, UsageRow};

/// What one summary table is of, beside the scores and metrics it shows.
#[derive(Debug, Clone, Copy)]
pub struct SummarySpec<'a> {
    /// How rows are grouped.
    pub by: &'a By,
    /// The suite, where the report names one.
    pub suite: Option<&'a str>,
    /// The dataset, where the report names one (for the suite's stored intervals).
    pub dataset: Option<&'a str>,
    /// Intervals, when asked for.
    pub ci: Option<&'a Ci>,
    /// Each provider version's usage (`--by provider`).
    pub usage: &'a [UsageRow],
    /// The detection suite's page sets, for COCO figures pooled over each group's pages.
    pub pooled: &'a [(ScoreKey, String)],
    /// A text table (intervals folded into the mean's cell).
    pub textual: bool,
}

/// The summary frame of `cols` over `metrics`.
pub fn summary_table(
    store: &Store,
    cols: &ScoreColumns,
    metrics: &[String],
    spec: &SummarySpec<'_>,
) -> crate::error::Result<DataFrame> {
    // --by provider leads with the suite's headline metrics and sorts by the first, best
    // first, as the HTML leaderboard does.
    let headlines = match (spec.by, spec.suite) {
        (By::Provider, Some(suite)) => super::html::board::headline_columns(suite, metrics),
        _ => Vec::new(),
    };
    let metrics: Vec<String> = headlines
        .iter()
        .cloned()
        .chain(metrics.iter().filter(|m| !headlines.contains(m)).cloned())
        .collect();
    let wide = wide_frame(cols, &metrics).map_err(pe)?;
    let stored = match (spec.ci, spec.suite) {
        (Some(_), Some(suite)) => store.stored_intervals(suite, spec.dataset)?,
        _ => Vec::new(),
    };
    let headline = spec.suite.and_then(Headline::of_suite);
    let mut t = summary_ci(&wide, &metrics, spec.by, spec.ci, &stored, headline, spec.pooled)
        .map_err(pe)?;
    if let Some(first) = headlines.first() {
        let descending = !crate::metrics::lower_is_better(first);
        t = t
            .sort(
                [first.as_str()],
                SortMultipleOptions::default()
                    .with_order_descending(descending)
                    .with_nulls_last(true)
                    .with_maintain_order(true),
            )
            .map_err(pe)?;
    }
    // Beside the scores: what each provider version took per page.
    if *spec.by == By::Provider {
        t = with_usage(&t, cols, spec.usage).map_err(pe)?;
    }
    if spec.ci.is_some() && spec.textual {
        t = fold_intervals(&t, &metrics).map_err(pe)?;
    }
    if let By::Attribute(name) = spec.by {
        t.rename("attribute", name.as_str().into()).map_err(pe)?;
    }
    Ok(t)
}
