//! Read `{"test": {...}, "md": "..."}` JSON lines on stdin, run each test natively and print
//! `{"ok": bool, "why": "..."}` per line (`"error"` when the test is rejected at load time), for
//! `bench/olmocr_cases_reference.sh`.

use std::io::{BufRead, Write};
use std::time::Instant;

use corpus::metrics::olmocr::load_test;

fn main() {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let start = Instant::now();
    let mut n = 0usize;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        let md = v.get("md").and_then(|m| m.as_str()).unwrap_or_default();
        let test = v.get("test").map(|t| t.to_string()).unwrap_or_default();
        let rec = match load_test(&test) {
            Ok(t) => {
                let (ok, why) = t.run(md);
                serde_json::json!({"ok": ok, "why": why})
            }
            Err(e) => serde_json::json!({"error": e.0}),
        };
        let _ = writeln!(out, "{rec}");
        n += 1;
    }
    eprintln!("rust: {n} cases in {:.3} s", start.elapsed().as_secs_f64());
}
