//! `corpus score` on tables in any notation the table suite reads gives the suite's numbers,
//! and `corpus correlate --study` reads the table-metric study: the recorded correlations as
//! the study reports them, corpus's own columns beside them.

use corpus::sample::pdf::{Font, Pdf, PdfPage};
use serde_json::{json, Value};

use crate::util::{corpus, json, run, shared_data};

const TABULAR: &str = "\\begin{tabular}{|l|c|c|}\n\\hline\nModel & Acc & F1 \\\\\n\\hline\nbase & 71.2 & 0.64 \\\\\n\\hline\nlarge & 74.9 & 0.70 \\\\\n\\hline\n\\end{tabular}";

/// What a parser wrote: the header right, one number wrong, one row merged away.
const MARKDOWN: &str =
    "| Model | Acc | F1 |\n|---|---|---|\n| base | 71.2 | 0.46 |\n| large 74.9 | | 0.70 |\n";

#[test]
fn score_on_a_markdown_vs_latex_pair_equals_the_table_suite() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("pdfs")).unwrap();
    std::fs::create_dir_all(d.path().join("ground_truth")).unwrap();
    let mut pdf = Pdf::new();
    let mut page = PdfPage::new(612.0, 792.0);
    page.text(Font::Regular, 10.0, 72.0, 720.0, "A table.");
    pdf.push(page);
    std::fs::write(d.path().join("pdfs/t.pdf"), pdf.to_bytes()).unwrap();
    let truth = json!([{"type": "table", "complexity": "simple", "data": TABULAR}]);
    std::fs::write(d.path().join("ground_truth/t.json"), truth.to_string()).unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "-q", "--truth", "latex-tables", "--dataset", "t"])
        .arg(d.path().join("pdfs")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = d.path().join("md");
    std::fs::create_dir_all(&md).unwrap();
    std::fs::write(md.join("t.md"), MARKDOWN).unwrap();
    let out =
        run(corpus(&db).args(["import", "-q", "--provider", "p", "--format", "markdown"]).arg(&md));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db).args(["eval", "--suite", "table", "--provider", "p", "-q"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sql = |m: &str| {
        let q =
            format!("SELECT value FROM v_latest_scores WHERE suite = 'table' AND metric = '{m}'");
        let v = json(&run(corpus(&db).args(["sql", "--format", "json", &q])));
        v[0]["value"].as_f64().unwrap()
    };
    let pairs = d.path().join("pairs.jsonl");
    std::fs::write(&pairs, json!({"gt": TABULAR, "pred": MARKDOWN}).to_string() + "\n").unwrap();
    for (metric, stored) in [("teds", "teds"), ("teds_s", "teds_s"), ("grits", "grits_con_f")] {
        let out = run(corpus(&db).args(["score", "--metric", metric]).arg(&pairs));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let line: Value = serde_json::from_slice(&out.stdout).unwrap();
        let (ours, suite) = (line["score"].as_f64().unwrap(), sql(stored));
        assert!((ours - suite).abs() < 1e-12, "{metric}: score {ours}, suite {suite}");
        // The text differs; the grid is the same (TEDS-S sees only the grid).
        assert_eq!(ours < 1.0, metric != "teds_s", "{metric}: {ours}");
        assert_eq!(line["trace"]["gt_format"], "latex");
        assert_eq!(line["trace"]["pred_format"], "markdown");
    }
    // The notation can be given; a side that is not in it is an error on its line.
    let out = run(corpus(&db)
        .args(["score", "--metric", "teds", "--gt-format", "latex", "--pred-format", "html"])
        .arg(&pairs));
    assert_eq!(out.status.code(), Some(3));
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(line["error"].as_str().unwrap().contains("pred (html)"), "{line}");
}

#[test]
fn the_table_study_is_read_with_recorded_and_own_columns() {
    let Some(dir) = shared_data("table-metric-study") else { return };
    let study = dir.join("tables-dev.json");
    let out = run(corpus(std::path::Path::new("unused.db"))
        .args(["correlate", "--format", "json", "--study"])
        .arg(&study));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = json(&out);
    let row = |m: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["metric"] == m)
            .cloned()
            .unwrap_or_else(|| panic!("no {m} row in {rows}"))
    };
    // The study's own figures for this half (its data README): 259 rated, non-empty pairs.
    for (m, r) in [
        ("teds (recorded)", 0.694),
        ("grits_con (recorded)", 0.726),
        ("score_content (recorded)", 0.641),
    ] {
        let got = row(m);
        assert_eq!(got["n"], 259, "{m}");
        assert!((got["pearson"].as_f64().unwrap() - r).abs() < 5e-4, "{m}: {got}");
    }
    for m in
        ["teds", "teds_s", "grits_top", "grits_con", "score_index", "score_content", "value_acc"]
    {
        assert_eq!(row(m)["n"], 259, "{m}");
    }
    let judges = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["metric"].as_str().is_some_and(|m| m.starts_with("judge:")));
    assert_eq!(judges.count(), 8);
    let out = run(corpus(std::path::Path::new("unused.db"))
        .args(["correlate", "--format", "json", "--agreement", "--study"])
        .arg(&study));
    let agree = json(&out);
    assert_eq!(agree.as_array().unwrap().len(), 6, "{agree}");
    for a in agree.as_array().unwrap() {
        assert!(a["equal"].as_u64().unwrap() <= a["n"].as_u64().unwrap());
    }
}
