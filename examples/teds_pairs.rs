//! Scores every pair of a JSONL file (`{"id", "gt", "pred"}` per line) with TEDS and TEDS-S
//! and prints one JSON line per pair: `{"id", "teds", "teds_s", "error"}` (cross-check side
//! of `bench/teds_reference.sh`).

use std::io::{BufRead, Write};

use corpus::metrics::teds::{parse_table, teds_both, Table, TableError};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: teds_pairs PAIRS.jsonl")?;
    let file = std::io::BufReader::new(std::fs::File::open(&path)?);
    let mut out = std::io::stdout().lock();
    for line in file.lines() {
        let pair: serde_json::Value = serde_json::from_str(&line?)?;
        let text = |k: &str| pair[k].as_str().unwrap_or_default().to_string();
        let parsed: Result<(Table, Table), TableError> =
            parse_table(&text("pred")).and_then(|p| Ok((p, parse_table(&text("gt"))?)));
        let (full, structure, error) = match parsed {
            Ok((pred, gt)) => {
                let (f, s) = teds_both(&pred, &gt);
                (f, s, serde_json::Value::Null)
            }
            Err(e) => (0.0, 0.0, e.to_string().into()),
        };
        let row = serde_json::json!({"id": pair["id"], "teds": full, "teds_s": structure, "error": error});
        writeln!(out, "{row}")?;
    }
    Ok(())
}
