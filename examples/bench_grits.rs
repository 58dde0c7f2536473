//! Times GriTS_Top and GriTS_Con on the `"bench": true` pairs (about 30 × 10) written by
//! `bench/grits_reference.py gen`. Usage: `bench_grits PAIRS.jsonl [ITERATIONS]`.

use std::io::BufRead;
use std::time::Instant;

use corpus::metrics::grits::{grits_con, grits_top, html_to_table};
use serde_json::Value;

/// This process's user + system CPU time from `/proc/self/stat` (Linux, 100 ticks/s), or 0.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |k: usize| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: bench_grits PAIRS.jsonl [ITERATIONS]")?;
    let iters: u32 = std::env::args().nth(2).map_or(Ok(20), |s| s.parse())?;
    let mut pairs = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(&path)?).lines() {
        let p: Value = serde_json::from_str(&line?)?;
        if p["bench"] == true {
            let gt = p["gt"].as_str().unwrap_or_default().to_string();
            let pred = p["pred"].as_str().unwrap_or_default().to_string();
            pairs.push((p["id"].to_string(), gt, pred));
        }
    }
    if pairs.is_empty() {
        return Err("no bench pairs".into());
    }
    let (mut t_parse, mut t_top, mut t_con) = (0.0, 0.0, 0.0);
    let (mut c_top, mut c_con) = (0.0, 0.0);
    let mut sink = 0.0;
    for _ in 0..iters {
        for (_, gt, pred) in &pairs {
            let t = Instant::now();
            let (g, p) = (html_to_table(gt), html_to_table(pred));
            t_parse += t.elapsed().as_secs_f64();
            let (t, c) = (Instant::now(), cpu_seconds());
            sink += grits_top(&g, &p).f;
            t_top += t.elapsed().as_secs_f64();
            c_top += cpu_seconds() - c;
            let (t, c) = (Instant::now(), cpu_seconds());
            sink += grits_con(&g, &p).f;
            t_con += t.elapsed().as_secs_f64();
            c_con += cpu_seconds() - c;
        }
    }
    let n = f64::from(iters) * pairs.len() as f64;
    let g = html_to_table(&pairs[0].1);
    println!(
        "rust: {} pairs (first {}x{}), {} iterations: parse {:.3} ms, Top {:.3} ms, Con {:.3} ms, \
         Top+Con {:.3} ms per pair (checksum {sink:.6})",
        pairs.len(),
        g.rows,
        g.cols,
        iters,
        1e3 * t_parse / n,
        1e3 * t_top / n,
        1e3 * t_con / n,
        1e3 * (t_top + t_con) / n
    );
    println!(
        "rust CPU (process user+sys, 10 ms ticks): Top {:.3} ms, Con {:.3} ms, Top+Con {:.3} ms per pair",
        1e3 * c_top / n,
        1e3 * c_con / n,
        1e3 * (c_top + c_con) / n
    );
    println!("TOP_CON_MS {:.6}", 1e3 * (t_top + t_con) / n);
    println!("TOP_CON_CPU_MS {:.6}", 1e3 * (c_top + c_con) / n);
    Ok(())
}
