//! Scores the pairs written by `bench/grits_reference.py gen` (JSONL on stdin or a path):
//! table pairs through `grits_from_html`'s parts, difflib pairs through `SequenceMatcher`.
//! Writes one JSON line per pair to stdout, in the shape `grits_reference.py compare` reads.

use std::io::{BufRead, BufReader, Write};

use corpus::doc::{Cell, Table};
use corpus::metrics::difflib::{CharMatcher, Scratch, SequenceMatcher};
use corpus::metrics::grits::{grits_con, grits_loc, grits_top, html_to_table, iou, BBox, Grits};
use serde_json::{json, Value};

fn prf(g: Grits) -> Value {
    json!([g.precision, g.recall, g.f])
}

fn cells(t: &Table) -> Value {
    t.cells
        .iter()
        .map(|c| json!([c.row, c.col, c.row_span, c.col_span, c.text, c.header]))
        .collect()
}

fn bbox(v: &Value) -> BBox {
    let f = |i: usize| v[i].as_f64().unwrap_or(f64::NAN);
    [f(0), f(1), f(2), f(3)]
}

fn table(v: &Value) -> Table {
    let n = |c: &Value, i: usize| c[i].as_u64().unwrap_or(0) as u32;
    let cells: Vec<Cell> = v
        .as_array()
        .map_or(&[][..], |a| a.as_slice())
        .iter()
        .map(|c| Cell {
            row: n(c, 0),
            col: n(c, 1),
            row_span: n(c, 2),
            col_span: n(c, 3),
            text: c[4].as_str().unwrap_or_default().into(),
            header: c[5].as_bool().unwrap_or(false),
        })
        .collect();
    let rows = cells.iter().map(|c| c.row + c.row_span).max().unwrap_or(0);
    let cols = cells.iter().map(|c| c.col + c.col_span).max().unwrap_or(0);
    Table { rows, cols, cells }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let input: Box<dyn BufRead> = match std::env::args().nth(1) {
        Some(p) => Box::new(BufReader::new(std::fs::File::open(p)?)),
        None => Box::new(BufReader::new(std::io::stdin())),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in input.lines() {
        let p: Value = serde_json::from_str(&line?)?;
        let s = |k: &str| p[k].as_str().unwrap_or_default().to_string();
        let row = if p["kind"] == "iou" {
            json!({"id": p["id"], "iou": iou(&bbox(&p["b1"]), &bbox(&p["b2"]))})
        } else if p["kind"] == "loc" {
            let side = |k: &str| {
                let t = table(&p[format!("{k}_cells")]);
                let b: Vec<BBox> = p[format!("{k}_boxes")]
                    .as_array()
                    .map_or(Vec::new(), |v| v.iter().map(bbox).collect());
                (t, b)
            };
            let ((gt, gb), (pred, pb)) = (side("gt"), side("pred"));
            let loc = grits_loc(&gt, &gb, &pred, &pb).ok_or("box count differs from cell count")?;
            json!({"id": p["id"], "loc": prf(loc)})
        } else if p["kind"] == "difflib" {
            let (a, b): (Vec<char>, Vec<char>) =
                (s("a").chars().collect(), s("b").chars().collect());
            let m = SequenceMatcher::new(&a, &b);
            let blocks: Vec<Value> =
                m.matching_blocks().iter().map(|x| json!([x.a, x.b, x.size])).collect();
            // The bit-parallel matcher (used by GriTS_Con for short texts) must count the same.
            let mut scratch = Scratch::default();
            let char_ok =
                CharMatcher::new(&b).is_none_or(|cm| cm.matched(&a, &mut scratch) == m.matched());
            json!({"id": p["id"], "ratio": m.ratio(), "blocks": blocks, "char_ok": char_ok})
        } else {
            let (gt, pred) = (html_to_table(&s("gt")), html_to_table(&s("pred")));
            json!({"id": p["id"], "top": prf(grits_top(&gt, &pred)), "con": prf(grits_con(&gt, &pred)),
                   "gt_cells": cells(&gt), "pred_cells": cells(&pred)})
        };
        writeln!(out, "{row}")?;
    }
    Ok(())
}
