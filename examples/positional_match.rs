//! The positional glyph comparison of olmOCR-bench's math tests
//! (`corpus::metrics::katex::positional_match`) on cases read from stdin, one JSON object per
//! line, `{"reference": [span, ...], "hypothesis": [span, ...]}` with spans
//! `{"text", "x", "y", "width", "height"}`; prints `true` or `false` per line. Used by
//! `bench/olmocr_positional_reference.sh` to compare with olmocr's `compare_rendered_equations`.

use std::io::{BufRead, Write};

use corpus::metrics::katex::{positional_match, SpanBox};

#[derive(serde::Deserialize)]
struct Case {
    reference: Vec<SpanBox>,
    hypothesis: Vec<SpanBox>,
}

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.unwrap_or_default();
        let answer = match serde_json::from_str::<Case>(&line) {
            Ok(c) => positional_match(&c.reference, &c.hypothesis).to_string(),
            Err(e) => format!("error: line {}: {e}", n + 1),
        };
        let _ = writeln!(out, "{answer}");
    }
}
