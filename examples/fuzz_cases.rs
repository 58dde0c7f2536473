//! Read fuzz cross-check cases (JSON lines `{"a":..,"b":..,"seq":..,"k":..}`) on stdin and print
//! the Rust results as JSON lines, for `bench/fuzz_reference.sh`.

use std::io::{BufRead, Write};
use std::time::Instant;

use corpus::metrics::fuzz::{find_near_matches, levenshtein_search_chars, partial_ratio, ratio};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let start = Instant::now();
    let mut n = 0usize;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or_default().to_string();
        let (a, b, seq) = (s("a"), s("b"), s("seq"));
        let k = v.get("k").and_then(|x| x.as_u64()).unwrap_or(0) as usize;
        let ma = find_near_matches(&a, &seq, k);
        let mb = find_near_matches(&b, &seq, k);
        let order = !ma.is_empty()
            && !mb.is_empty()
            && ma.iter().any(|x| mb.iter().any(|y| x.start < y.start));
        let m: Vec<[usize; 3]> = ma.iter().map(|x| [x.start, x.end, x.dist]).collect();
        let (ac, sc): (Vec<char>, Vec<char>) = (a.chars().collect(), seq.chars().collect());
        let raw: Vec<[usize; 3]> = if k == 0 {
            Vec::new()
        } else {
            levenshtein_search_chars(&ac, &sc, k).iter().map(|x| [x.start, x.end, x.dist]).collect()
        };
        let rec = serde_json::json!({
            "ratio": ratio(&a, &b),
            "partial": partial_ratio(&a, &b),
            "partial_seq": partial_ratio(&a, &seq),
            "matches": m,
            "raw": raw,
            "order": order,
        });
        let _ = writeln!(out, "{rec}");
        n += 1;
    }
    eprintln!("rust: {n} cases in {:.3} s", start.elapsed().as_secs_f64());
}
