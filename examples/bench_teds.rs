//! Times TEDS and TEDS-S on named pairs of a JSONL file (default: the `big30x10` and
//! `big60x20` pairs of `bench/gen_table_pairs.py`) and prints milliseconds per pair, one core.
//!
//! Usage: `bench_teds PAIRS.jsonl [ID ...]`. For each pair it reports the best wall time and the
//! mean thread CPU time of several runs of: parsing both sides, TEDS (`teds_tables`), TEDS-S, and the string-to-score
//! `teds()` call, plus the scores, as `key=value` lines the bench script reads.

use std::io::BufRead;
use std::time::Instant;

use corpus::metrics::teds::{parse_table, teds, teds_tables};

/// CPU time of this thread in ms (Linux `schedstat`), falling back to wall time.
fn cpu_ms(wall: Instant) -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(|| wall.elapsed().as_secs_f64() * 1e3, |ns| ns / 1e6)
}

/// Runs `f` at least 3 times and for about 2 s; returns the best wall ms, the mean CPU ms
/// (total thread CPU time over the runs, which evens out the clock-tick granularity) and a
/// result.
fn time_ms<T>(mut f: impl FnMut() -> T) -> (f64, f64, T) {
    let mut best = f64::INFINITY;
    let mut runs = 0;
    let mut last = None;
    let start = Instant::now();
    let cpu0 = cpu_ms(start);
    while runs < 3 || (start.elapsed().as_secs_f64() < 2.0 && runs < 500) {
        let t = Instant::now();
        last = Some(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        runs += 1;
    }
    let cpu = (cpu_ms(start) - cpu0) / runs as f64;
    (best, cpu, last.expect("at least three runs"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: bench_teds PAIRS.jsonl [ID ...]")?;
    let mut ids: Vec<String> = args.collect();
    if ids.is_empty() {
        ids = vec!["big30x10".into(), "big60x20".into()];
    }
    let file = std::io::BufReader::new(std::fs::File::open(&path)?);
    for line in file.lines() {
        let pair: serde_json::Value = serde_json::from_str(&line?)?;
        let id = pair["id"].as_str().unwrap_or_default();
        if !ids.iter().any(|x| x == id) {
            continue;
        }
        let gt_html = pair["gt"].as_str().unwrap_or_default();
        let pred_html = pair["pred"].as_str().unwrap_or_default();
        let (parse_best, parse_med, (pred, gt)) =
            time_ms(|| (parse_table(pred_html), parse_table(gt_html)));
        let (pred, gt) = (pred?, gt?);
        let (full_best, full_med, full) = time_ms(|| teds_tables(&pred, &gt, false));
        let (st_best, st_med, st) = time_ms(|| teds_tables(&pred, &gt, true));
        let (e2e_best, e2e_med, _) = time_ms(|| teds(pred_html, gt_html, false));
        let (e2es_best, e2es_med, _) = time_ms(|| teds(pred_html, gt_html, true));
        println!(
            "{id}: nodes pred={} gt={} n_elements={}/{} TEDS={full:?} TEDS-S={st:?}",
            pred.root.size(),
            gt.root.size(),
            pred.n_elements,
            gt.n_elements
        );
        println!("{id} parse_ms wall_best={parse_best:.3} cpu_mean={parse_med:.3}");
        println!("{id} teds_tables_full_ms wall_best={full_best:.3} cpu_mean={full_med:.3}");
        println!("{id} teds_tables_struct_ms wall_best={st_best:.3} cpu_mean={st_med:.3}");
        println!("{id} teds_html_full_ms wall_best={e2e_best:.3} cpu_mean={e2e_med:.3}");
        println!("{id} teds_html_struct_ms wall_best={e2es_best:.3} cpu_mean={e2es_med:.3}");
    }
    Ok(())
}
