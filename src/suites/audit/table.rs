//! The table suite's truth elements for the audit: each GT table of a `latex-tables`,
//! `pdf-parse-bench` or `icdar2013` truth, and each provider's predicted table paired with it
//! by the table suite's own `match_tables` (by content, never by index). A table is read as
//! the words of its cells in row-major order; each word knows its cell, so a finding names
//! the cell (`r2c3`: grid row 2, column 3, from 0).

use super::Element;
use crate::doc::Table;
use crate::error::Result;
use crate::metrics::audit::text_tokens;
use crate::metrics::table::match_tables;
use crate::store::Store;
use crate::suites::driver::usable_doc;
use crate::suites::table::{load_truth, predicted_tables, FORMATS};
use crate::truth::truth_groups;

/// A table's words in row-major cell order, each with its cell's label.
pub fn table_tokens(t: &Table) -> (Vec<String>, Vec<String>) {
    let mut cells: Vec<_> = t.cells.iter().collect();
    cells.sort_by_key(|c| (c.row, c.col));
    let (mut words, mut units) = (Vec::new(), Vec::new());
    for c in cells {
        for w in text_tokens(&c.text) {
            words.push(w);
            units.push(format!("r{}c{}", c.row, c.col));
        }
    }
    (words, units)
}

fn cells_text(t: &Table) -> String {
    let mut cells: Vec<_> = t.cells.iter().collect();
    cells.sort_by_key(|c| (c.row, c.col));
    let mut out = String::new();
    let mut row = None;
    for c in cells {
        if row.is_some() && row != Some(c.row) {
            out.push('\n');
        } else if row.is_some() {
            out.push_str(" | ");
        }
        row = Some(c.row);
        out.push_str(&c.text);
    }
    out
}

/// Every GT table in scope, with the providers' matched tables.
pub fn elements(
    store: &Store,
    dataset: Option<&str>,
    providers: &[String],
    notes: &mut Vec<String>,
) -> Result<Vec<Element>> {
    let mut out = Vec::new();
    for t in truth_groups(store, dataset, |f| FORMATS.contains(&f))? {
        let name = store.name_in(t.document, &t.dataset)?.unwrap_or_else(|| t.document.to_string());
        let gt = match load_truth(store, &t)? {
            Ok(gt) => gt,
            Err(e) => {
                notes.push(format!("{name}: unreadable {} truth: {e}", t.format.as_str()));
                continue;
            }
        };
        let gt_tables: Vec<Table> = gt.tables.iter().map(|g| g.table.clone()).collect();
        let mut els: Vec<Element> = gt_tables
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let (truth, units) = table_tokens(g);
                Element {
                    kind: "table",
                    dataset: t.dataset.clone(),
                    document: name.clone(),
                    page: None,
                    label: format!("table {i}"),
                    truth_text: cells_text(g),
                    truth,
                    units: Some(units),
                    bbox: None,
                    image: None,
                    readings: Vec::new(),
                }
            })
            .collect();
        for p in providers {
            let Some(output) = store.latest_output(t.document, p)? else { continue };
            let doc = match usable_doc(store, &output) {
                Ok(doc) => doc,
                Err(e) => {
                    notes.push(format!("{name}: {p}: {e}"));
                    continue;
                }
            };
            let pred = predicted_tables(&doc);
            for (i, m) in match_tables(&gt_tables, &pred).into_iter().enumerate() {
                if let Some(j) = m {
                    let (words, _) = table_tokens(&pred[j]);
                    els[i].readings.push((p.clone(), cells_text(&pred[j]), words));
                }
            }
        }
        out.extend(els);
    }
    Ok(out)
}
