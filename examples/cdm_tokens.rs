//! Prints what `corpus::metrics::cdm::tokens::prepare` makes of each formula: reads JSON lines
//! `{"latex": "...", "variant": "omnidocbench"|"unimernet"}` on stdin and writes one JSON line
//! each, `{"tokens", "colors", "body", "paper", "template", "tokenized", "error"}` (the Rust
//! side of `bench/cdm_tokens_reference.sh`).

use std::io::{BufRead, Write};

use corpus::metrics::cdm::tokens::{prepare, Template};
use corpus::metrics::cdm::Variant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let item: serde_json::Value = serde_json::from_str(&line?)?;
        let latex = item["latex"].as_str().ok_or("a line without \"latex\"")?;
        let variant = match item["variant"].as_str() {
            Some("unimernet") => Variant::UniMERNet,
            _ => Variant::OmniDocBench,
        };
        let p = prepare(latex, variant);
        let template = match p.template {
            Template::Formula => "formula",
            Template::Tabular => "tabular",
            Template::FormulaZh => "formula_zh",
        };
        let json = serde_json::json!({
            "tokens": p.tokens,
            "colors": p.colors,
            "body": p.body,
            "paper": p.paper,
            "template": template,
            "tokenized": p.tokenized,
            "error": p.error,
        });
        writeln!(out, "{json}")?;
    }
    Ok(())
}
