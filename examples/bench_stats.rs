//! Times the report's intervals (issue 35's speed target) on one core: 10 metrics × 10
//! provider versions × 10,000 documents (two datasets, so the bootstrap is stratified), 2,000
//! resamples, through the same path `corpus report --by provider` takes (`wide_frame`, then
//! `summary_ci`). Also times a paired comparison of two versions on every metric and a rank
//! bootstrap. Values are deterministic pseudo-random scores.
//!
//! Usage: `bench_stats [DOCS] [PROVIDERS] [METRICS] [RESAMPLES]`; `bench/stats.sh` runs it
//! pinned to one core.

use std::time::Instant;

use corpus::metrics::stats::Rng;
use corpus::report::{compare, long_frame, rank_table, summary_ci, wide_frame, By, Ci, Selector};
use corpus::store::{ScoreColumns, ScoreKey};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let docs = args.next().transpose()?.unwrap_or(10_000);
    let providers = args.next().transpose()?.unwrap_or(10);
    let metrics = args.next().transpose()?.unwrap_or(10);
    let resamples = args.next().transpose()?.unwrap_or(2_000);
    let mut rng = Rng::new(7);
    // The columns filled directly, as the store's reader fills them (`push` looks keys up
    // one by one, for small callers).
    let names: Vec<String> = (0..metrics).map(|m| format!("m{m}")).collect();
    let mut c = ScoreColumns { metrics: names.clone(), ..ScoreColumns::default() };
    for p in 0..providers {
        for d in 0..docs {
            c.keys.push(ScoreKey {
                document: format!("d{d}"),
                dataset: if d % 3 == 0 { "a" } else { "b" }.into(),
                provider: "p".into(),
                provider_version: p.to_string(),
                model_digest: "model".into(),
                attribute: None,
            });
            let k = (c.keys.len() - 1) as u32;
            // One document in 50 failed for this version: no metric at all; one value in 100
            // null (a metric whose truth side is empty, the same document for every version).
            let failed = rng.below(50) == 0;
            for j in 0..metrics {
                let null = (d * 31 + j * 7) % 100 == 0;
                let v = (!failed && !null).then(|| 0.5 + 0.01 * p as f64 + 0.3 * rng.next_f64());
                c.key.push(k);
                c.metric.push(j as u32);
                c.value.push(v);
                c.run.push(None);
            }
        }
    }
    let ci = Ci { resamples, ..Ci::DEFAULT };
    let t = Instant::now();
    let wide = wide_frame(&c, &names)?;
    let pivot = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let table = summary_ci(&wide, &names, &By::Provider, Some(&ci), &[], None, &[])?;
    let intervals = t.elapsed().as_secs_f64();
    assert_eq!(table.height(), providers);
    println!(
        "intervals: {metrics} metrics x {providers} providers x {docs} documents, {resamples} resamples: {intervals:.3} s (pivot {pivot:.3} s; target <= 2 s on one core)"
    );
    let long = long_frame(&c)?;
    let (a, b) = (Selector::parse("p@0")?, Selector::parse("p@1")?);
    let t = Instant::now();
    let (per_metric, _) = compare(&long, &c, &a, &b, Some(&ci))?;
    println!(
        "paired comparison: {} metrics x {docs} documents, {resamples} resamples and sign flips: {:.3} s",
        per_metric.height(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let (ranks, _) = rank_table(&wide, "m0", &ci)?;
    println!(
        "ranks: {} providers x {docs} documents, {resamples} resamples: {:.3} s",
        ranks.height(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
