//! What each provider version's outputs took, beside its scores in `report --by provider`
//! (`docs/endpoints.md` §Cost and speed).

use polars::prelude::*;

use super::short_model;
use crate::store::ScoreColumns;

/// The cost-and-speed columns a `--by provider` table shows beside its scores, as ParseBench
/// and pdf-parse-bench print them: over the documents each provider version and model was
/// scored on, `s/page` (wall seconds), `cpu s/page` (CPU seconds of the worker), `tokens/page`
/// (prompt + completion, endpoints) and `¢/page` (US cents, endpoints with a token price, or a
/// GPU price: then an estimate, [`estimated_costs`]). Each is a total over a total of pages,
/// and null where any of its outputs did not record it (an unknown price is no cost, never 0).
/// For endpoint providers, the share of pages (%) whose reply was cut at the token limit
/// (`cut %`), had a repeated tail removed (`loop %`) or gave no text (`empty %`). A column with
/// no value in any row is left out. Rules: `docs/endpoints.md` §Cost and speed.
pub fn with_usage(
    table: &DataFrame,
    cols: &ScoreColumns,
    usage: &[crate::store::UsageRow],
) -> PolarsResult<DataFrame> {
    let sums = usage_sums(cols, usage);
    let providers = table.column("provider")?.str()?.clone();
    let models = table.column("model")?.str()?.clone();
    let mut cols_out: [Vec<Option<f64>>; 7] = Default::default();
    for (p, m) in providers.iter().zip(models.iter()) {
        let s = p.zip(m).and_then(|(p, m)| sums.get(&(p.to_string(), m.to_string())));
        let s0 = s.cloned().unwrap_or_default();
        let per = |v: Option<f64>, scale: f64| match s {
            Some(s) if s.pages > 0 => v.map(|v| v * scale / s.pages as f64),
            _ => None,
        };
        cols_out[0].push(per(s0.wall_ms.map(|v| v as f64), 1e-3));
        cols_out[1].push(per(s0.cpu_ms.map(|v| v as f64), 1e-3));
        cols_out[2].push(per(s0.tokens.map(|v| v as f64), 1.0));
        cols_out[3].push(per(s0.cost_usd, 100.0));
        // The shares are over the pages of the outputs that counted them (endpoint outputs).
        let share = |f: fn(&crate::store::ReplyHealth) -> u64| match s0.replies {
            Some((pages, h)) if pages > 0 => Some(100.0 * f(&h) as f64 / pages as f64),
            _ => None,
        };
        cols_out[4].push(share(|h| h.cut));
        cols_out[5].push(share(|h| h.looped));
        cols_out[6].push(share(|h| h.empty));
    }
    // A column nothing recorded (tokens of parsers on this machine, a store from before
    // costs were kept) is left out rather than shown empty.
    let mut t = table.clone();
    for (name, v) in USAGE_COLUMNS.iter().zip(cols_out) {
        if v.iter().any(Option::is_some) {
            t.with_column(Column::new((*name).into(), v))?;
        }
    }
    Ok(t)
}

/// The columns [`with_usage`] may add, in order.
pub const USAGE_COLUMNS: [&str; 7] =
    ["s/page", "cpu s/page", "tokens/page", "¢/page", "cut %", "loop %", "empty %"];

/// The provider versions (`provider@version`) whose `¢/page` in [`with_usage`] rests, for
/// some of their outputs, on GPU time rather than tokens: an estimate a report says it is.
pub fn estimated_costs(cols: &ScoreColumns, usage: &[crate::store::UsageRow]) -> Vec<String> {
    let mut out: Vec<String> = usage_sums(cols, usage)
        .into_iter()
        .filter(|(_, s)| s.gpu_time && s.cost_usd.is_some())
        .map(|((p, _), _)| p)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What a provider version and model's scored outputs took, summed.
#[derive(Debug, Clone, Default)]
struct UsageSums {
    pages: u64,
    wall_ms: Option<u64>,
    cpu_ms: Option<u64>,
    tokens: Option<u64>,
    cost_usd: Option<f64>,
    /// Whether a cost rests on GPU time.
    gpu_time: bool,
    /// Pages of the outputs that counted their replies, and the counts.
    replies: Option<(u64, crate::store::ReplyHealth)>,
}

/// [`UsageSums`] by (provider@version, short model), over the documents each was scored on;
/// a sum is None once one output did not record it.
fn usage_sums(
    cols: &ScoreColumns,
    usage: &[crate::store::UsageRow],
) -> std::collections::HashMap<(String, String), UsageSums> {
    use std::collections::{HashMap, HashSet};
    let scored: HashSet<(String, String, &str, &str)> = cols
        .keys
        .iter()
        .map(|k| {
            (
                format!("{}@{}", k.provider, k.provider_version),
                short_model(&k.model_digest).to_string(),
                k.document.as_str(),
                k.dataset.as_str(),
            )
        })
        .collect();
    let mut sums: HashMap<(String, String), UsageSums> = HashMap::new();
    for u in usage {
        let pv = format!("{}@{}", u.provider, u.provider_version);
        let m = short_model(&u.model_digest).to_string();
        if !scored.contains(&(pv.clone(), m.clone(), u.document.as_str(), u.dataset.as_str())) {
            continue;
        }
        let e = sums.entry((pv, m)).or_insert(UsageSums {
            wall_ms: Some(0),
            cpu_ms: Some(0),
            tokens: Some(0),
            cost_usd: Some(0.0),
            ..UsageSums::default()
        });
        e.pages += u.pages;
        e.wall_ms = e.wall_ms.zip(u.wall_ms).map(|(a, b)| a + b);
        e.cpu_ms = e.cpu_ms.zip(u.cpu_ms).map(|(a, b)| a + b);
        e.tokens = e.tokens.zip(u.tokens).map(|(a, b)| a + b);
        e.cost_usd = e.cost_usd.zip(u.cost_usd).map(|(a, b)| a + b);
        e.gpu_time |= u.cost_basis.as_deref() == Some(crate::store::CostBasis::GpuTime.as_str());
        if let Some(h) = u.replies {
            let (pages, sum) = e.replies.get_or_insert_with(Default::default);
            *pages += u.pages;
            sum.cut += h.cut;
            sum.looped += h.looped;
            sum.empty += h.empty;
        }
    }
    sums
}
