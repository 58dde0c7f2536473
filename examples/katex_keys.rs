//! Print the normalized MathML keys and positional glyphs of formulas, for cross-checks.
//!
//! Usage: `cargo run --example katex_keys < formulas.jsonl` where each input line is a JSON
//! string (one formula); each output line is a JSON object `{"tex", "xml", "raw", "chars",
//! "error"}`.

use std::io::{BufRead, Write};
use std::path::Path;

use corpus::external::katex::KatexRenderer;
use corpus::metrics::katex::Normalization;

fn main() {
    let dir = KatexRenderer::default_dir();
    let start = |mode| {
        KatexRenderer::start_with(Path::new("node"), &dir, mode).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1);
        })
    };
    let (xml, raw) = (start(Normalization::Xml), start(Normalization::RawHtml));
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("readable stdin");
        let tex: String = serde_json::from_str(&line).expect("a JSON string per line");
        let x = xml.render_checked(&tex).expect("render");
        let r = raw.render_checked(&tex).expect("render");
        let chars: String = x.chars.iter().collect();
        let obj = serde_json::json!({
            "tex": tex, "xml": x.key, "raw": r.key, "chars": chars, "error": x.error,
        });
        writeln!(out, "{obj}").expect("writable stdout");
    }
}
