//! Read one JSON string (an HTML document) per line on stdin and print the table cell specs
//! `[[[text, rowspan, colspan, is_heading], ...rows], ...tables]` per line, for
//! `bench/html_tables_reference.sh`.

use std::io::{BufRead, Write};

use corpus::metrics::olmocr::html_table_specs;

fn main() {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let html: String = serde_json::from_str(&line).unwrap_or_default();
        let tables: Vec<Vec<Vec<serde_json::Value>>> = html_table_specs(&html)
            .into_iter()
            .map(|t| {
                t.into_iter()
                    .map(|row| {
                        row.into_iter()
                            .map(|c| {
                                serde_json::json!([c.text, c.rowspan, c.colspan, c.is_heading])
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let _ = writeln!(out, "{}", serde_json::json!(tables));
    }
}
