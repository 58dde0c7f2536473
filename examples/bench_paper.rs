//! Times the paper suite (all metrics, traces included) per paper, on one core.
//!
//! Usage: `bench_paper STORE.db [REPS]` — scores every ok non-truth output in the store
//! against every paper truth of its document, REPS times each (default 20), and prints the
//! median time per paper. `bench/paper_suite.sh` builds such a store from the shared data.

use std::time::Instant;

use corpus::doc::Doc;
use corpus::formats::TruthFormat;
use corpus::metrics::paper::score;
use corpus::store::Store;
use corpus::truth::truth_groups;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let db = args.next().ok_or("usage: bench_paper STORE.db [REPS]")?;
    let reps: usize = args.next().map(|r| r.parse()).transpose()?.unwrap_or(20);
    let store = Store::open_read_only(db.as_ref())?;
    let groups = truth_groups(&store, None, TruthFormat::is_paper)?;
    let mut all = Vec::new();
    println!(
        "{:<28} {:>10} {:>10} {:>12} {:>12}",
        "paper", "gt chars", "pred chars", "median ms", "with parse"
    );
    for o in store.scorable_outputs(None)? {
        if o.provider == "truth" {
            continue;
        }
        for g in groups.iter().filter(|g| g.document == o.document) {
            let truth = g.load_paper(&store)?;
            let bytes = store.blob(&o.blob)?.ok_or("missing output blob")?;
            let mut times = Vec::new();
            let mut with_parse = Vec::new();
            for _ in 0..reps {
                let t0 = Instant::now();
                let doc: Doc = serde_json::from_slice(&bytes)?;
                let pred = corpus::paper::from_doc(&doc);
                let t1 = Instant::now();
                let m = score(&truth, &pred);
                std::hint::black_box(&m);
                times.push(t1.elapsed().as_secs_f64() * 1000.0);
                with_parse.push(t0.elapsed().as_secs_f64() * 1000.0);
            }
            let med = |v: &mut Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let (t, p) = (med(&mut times), med(&mut with_parse));
            let pred = corpus::paper::from_doc(&serde_json::from_slice(&bytes)?);
            let name = store.name_in(g.document, &g.dataset)?.unwrap_or_default();
            println!(
                "{:<28} {:>10} {:>10} {:>12.3} {:>12.3}",
                format!("{}/{}:{}", g.dataset, name, o.provider),
                truth.body_text().chars().count(),
                pred.body_text().chars().count(),
                t,
                p
            );
            all.push(t);
        }
    }
    if all.is_empty() {
        return Err("no (output, truth) pairs in the store".into());
    }
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    all.sort_by(f64::total_cmp);
    println!(
        "paper suite: {} pairs, mean {:.3} ms, max {:.3} ms per paper (target <= 5 ms; GROBID's scorer ~350 ms)",
        all.len(),
        mean,
        all[all.len() - 1]
    );
    Ok(())
}
