//! The table suite end to end: `ingest --truth latex-tables` → `ocr --provider pdfium` →
//! `eval --suite table`, on a self-made PDF with hand-computed figures and on
//! pdf-parse-bench's tables.

use std::path::Path;

use corpus::sample::pdf::{Font, Pdf, PdfPage};

use crate::util::{corpus, json, run, shared_data};

/// Writes `pdfs/t1.pdf` (a 3 × 4 table, two values altered against the truth) and
/// `ground_truth/t1.json` (that table, a text item, and a table the PDF does not have).
pub fn write_fixture(root: &Path) {
    let rows =
        [["N", "Acc", "F1"], ["1", "112", "0.50"], ["2", "2.80", "-0.75"], ["3", "3.10", "0.90"]];
    let mut page = PdfPage::new(612.0, 792.0);
    page.text(Font::Regular, 10.0, 72.0, 720.0, "Some words before the table.");
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let y = 690.0 - 14.0 * r as f32;
            page.text(Font::Regular, 10.0, 72.0 + 90.0 * c as f32, y, cell);
        }
    }
    let mut pdf = Pdf::new();
    pdf.push(page);
    std::fs::create_dir_all(root.join("pdfs")).unwrap();
    std::fs::create_dir_all(root.join("ground_truth")).unwrap();
    std::fs::write(root.join("pdfs/t1.pdf"), pdf.to_bytes()).unwrap();
    let truth = serde_json::json!([
        {"type": "text", "data": "Some words before the table."},
        {"type": "table", "complexity": "simple", "data":
            "\\begin{tabular}{lcc}\n\\hline\nN & Acc & F1 \\\\\n\\hline\n1 & 1.12 & 0.50 \\\\\n2 & 2.80 & 0.75 \\\\\n3 & 3.10 & 0.90 \\\\\n\\hline\n\\end{tabular}"},
        {"type": "table", "complexity": "complex", "data":
            "\\begin{tabular}{ll}\nAlpha & Beta \\\\\nGamma & \\multicolumn{1}{c}{Delta} \\\\\n\\end{tabular}"}
    ]);
    std::fs::write(root.join("ground_truth/t1.json"), truth.to_string()).unwrap();
}

fn metric<'a>(values: &'a serde_json::Value, id: &str) -> Option<f64> {
    let v: &'a Vec<serde_json::Value> = values.as_array().unwrap();
    v.iter().find(|p| p[0] == id).unwrap_or_else(|| panic!("no {id}"))[1].as_f64()
}

fn close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or(f64::NAN);
    assert!((got - want).abs() < 1e-9, "{what}: got {got}, want {want}");
}

#[test]
fn self_made_table_gets_hand_computed_scores() {
    let d = tempfile::tempdir().unwrap();
    write_fixture(d.path());
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "latex-tables", "--format", "json"])
        .arg(d.path().join("pdfs")));
    assert!(out.status.success());
    assert_eq!(json(&out)["truths_added"], 1);
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"]));
    assert!(out.status.success());
    let out = run(corpus(&db)
        .args(["eval", "--suite", "table", "--provider", "pdfium"])
        .args(["--format", "json"]));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!(s["scored"], 1);
    let row = &s["rows"][0];
    assert_eq!((row["gt_tables"].as_u64(), row["pred_tables"].as_u64()), (Some(2), Some(1)));
    assert_eq!(row["matched"], 1);
    // The found table: same 4 × 3 grid, cells "1.12" → "112" and "0.75" → "-0.75".
    // TEDS: 16 nodes (4 tr + 12 td); renames cost lev/len: 1/4 + 1/5.
    let teds = 1.0 - (0.25 + 0.2) / 16.0;
    // GriTS-Con: 10 equal slots + lcs("1.12","112") = 6/7 + lcs("0.75","-0.75") = 8/9, of 12.
    let con = (10.0 + 6.0 / 7.0 + 8.0 / 9.0) / 12.0;
    // Value accuracy: 9 numeric GT cells, 2 changed.
    let vacc = 7.0 / 9.0;
    let by = &s["by_complexity"];
    close(metric(&by["simple"]["values"], "teds"), teds, "teds");
    close(metric(&by["simple"]["values"], "teds_s"), 1.0, "teds_s");
    close(metric(&by["simple"]["values"], "grits_top_f"), 1.0, "grits_top_f");
    close(metric(&by["simple"]["values"], "grits_con_p"), con, "grits_con_p");
    close(metric(&by["simple"]["values"], "grits_con_r"), con, "grits_con_r");
    close(metric(&by["simple"]["values"], "value_acc"), vacc, "value_acc");
    // SCORE: all 12 predicted cells find their GT cell in place ("112" ~ "1.12" at ratio
    // 6/7, "-0.75" ~ "0.75" at 8/9): structure 1. Content: rows "1 112 0.50" (lev 1 / 10)
    // and "2 2.80 -0.75" (1 / 12), columns "Acc 112 2.80 3.10" (1 / 17) and
    // "F1 0.50 -0.75 0.90" (1 / 18), the rest equal.
    let rows_c = (1.0 + 0.9 + (1.0 - 1.0 / 12.0) + 1.0) / 4.0;
    let cols_c = (1.0 + (1.0 - 1.0 / 17.0) + (1.0 - 1.0 / 18.0)) / 3.0;
    let content = (rows_c + cols_c) / 2.0;
    close(metric(&by["simple"]["values"], "score_index"), 1.0, "score_index");
    close(metric(&by["simple"]["values"], "score_content"), content, "score_content");
    close(metric(&by["simple"]["values"], "score_avg"), (1.0 + content) / 2.0, "score_avg");
    close(metric(&by["complex"]["values"], "score_avg"), 0.0, "missed score_avg");
    // The table the PDF does not have: 0 everywhere, a detection miss.
    close(metric(&by["complex"]["values"], "teds"), 0.0, "missed teds");
    close(metric(&by["complex"]["values"], "value_acc"), 0.0, "missed value_acc");
    assert_eq!(by["complex"]["matched"], 0);
    // The stored document values are means over the two GT tables.
    close(metric(&row["values"], "teds"), teds / 2.0, "document teds");
    close(metric(&row["values"], "grits_con_f"), con / 2.0, "document grits_con_f");
    close(metric(&row["values"], "value_acc"), vacc / 2.0, "document value_acc");
    close(metric(&row["values"], "det_p"), 1.0, "det_p");
    close(metric(&row["values"], "det_r"), 0.5, "det_r");
    // The store: one row per metric with per-table traces, the attribute from the truth.
    let out = run(corpus(&db).args([
        "sql",
        "SELECT metric, value, json_array_length(trace, '$.tables') AS n FROM v_scores \
         WHERE suite = 'table' ORDER BY metric",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    let rows = json(&out);
    assert_eq!(rows.as_array().unwrap().len(), 14, "{rows}");
    for r in rows.as_array().unwrap() {
        if r["metric"] != "det_p" && r["metric"] != "det_r" {
            assert_eq!(r["n"], 2, "{r}");
        }
    }
    let out = run(corpus(&db).args([
        "sql",
        "SELECT value FROM document_attributes WHERE name = 'complexity'",
        "--format",
        "json",
    ]));
    assert_eq!(json(&out)[0]["value"], "mixed");
    // A second eval writes nothing new and gives the same figures.
    let again = json(&run(corpus(&db).args([
        "eval",
        "--suite",
        "table",
        "--provider",
        "pdfium",
        "--format",
        "json",
    ])));
    assert_eq!(again["rows_written"], 0);
    assert_eq!(again["rows"], s["rows"]);
    // report shows the document means.
    let out =
        run(corpus(&db)
            .args(["report", "--suite", "table", "--metric", "teds", "--format", "json"]));
    assert!(out.status.success());
    let rep = json(&out);
    let doc = rep.as_array().unwrap().iter().find(|r| r["document"] == "t1").unwrap();
    close(doc["teds"].as_f64(), teds / 2.0, "report teds");
}

#[test]
fn pdf_parse_bench_tables_run_end_to_end() {
    let Some(data) = shared_data("pdf-parse-bench/tables") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "latex-tables", "--dataset", "pptables", "--format", "json"])
        .arg(&data));
    assert!(out.status.success());
    let ing = json(&out);
    assert_eq!(ing["truths_added"], ing["files"]);
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    let out = run(corpus(&db).args([
        "eval",
        "--suite",
        "table",
        "--provider",
        "pdfium",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!(s["scored"], s["documents"]);
    assert_eq!(s["documents"], ing["files"]);
    // Every GT table gets a result: 224 in the 50 documents.
    let gt: u64 =
        s["rows"].as_array().unwrap().iter().map(|r| r["gt_tables"].as_u64().unwrap()).sum();
    assert_eq!(gt, 224);
    assert_eq!(s["tables"]["tables"], 224);
    let in_unit = |v: &serde_json::Value| {
        for p in v.as_array().unwrap() {
            if let Some(x) = p[1].as_f64() {
                assert!((0.0..=1.0).contains(&x), "{p}");
            }
        }
    };
    for r in s["rows"].as_array().unwrap() {
        in_unit(&r["values"]);
    }
    in_unit(&s["document_means"]);
    in_unit(&s["tables"]["values"]);
    let classes: Vec<&String> = s["by_complexity"].as_object().unwrap().keys().collect();
    assert_eq!(classes, ["complex", "moderate", "simple"]);
    // Per-table traces in the store cover every GT table.
    let out = run(corpus(&db).args([
        "sql",
        "SELECT sum(json_array_length(trace, '$.tables')) AS n, count(*) AS docs FROM v_scores \
         WHERE suite = 'table' AND metric = 'teds'",
        "--format",
        "json",
    ]));
    let r = json(&out);
    assert_eq!((r[0]["n"].as_u64(), r[0]["docs"].as_u64()), (Some(224), Some(50)));
    // correlate: ratings equal to each document's TEDS correlate perfectly with `teds`.
    let mut csv = String::from("document,rating\n");
    for r in s["rows"].as_array().unwrap() {
        csv.push_str(&format!(
            "\"{}\",{}\n",
            r["document"].as_str().unwrap(),
            metric(&r["values"], "teds").unwrap()
        ));
    }
    let ratings = d.path().join("ratings.csv");
    std::fs::write(&ratings, csv).unwrap();
    let out = run(corpus(&db).args(["correlate", "--format", "json", "--ratings"]).arg(&ratings));
    assert!(out.status.success());
    let c = json(&out);
    let teds = c.as_array().unwrap().iter().find(|m| m["metric"] == "teds").unwrap();
    assert_eq!(teds["n"], 50);
    for k in ["pearson", "spearman", "kendall"] {
        close(teds[k].as_f64(), 1.0, k);
    }
    assert_eq!(c.as_array().unwrap().len(), 14);
    for m in c.as_array().unwrap() {
        if let Some(x) = m["pearson"].as_f64() {
            assert!((-1.0..=1.0).contains(&x), "{m}");
        }
    }
}

#[test]
fn icdar2013_runs_end_to_end_with_region_detection() {
    let Some(data) = shared_data("icdar2013/eu") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "icdar2013", "--dataset", "icdar", "--format", "json"])
        .arg(&data));
    assert!(out.status.success());
    let ing = json(&out);
    // Two parts (reg, str) per PDF.
    assert_eq!(ing["truths_added"].as_u64(), ing["files"].as_u64().map(|n| 2 * n));
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    let out = run(corpus(&db).args([
        "eval",
        "--suite",
        "table",
        "--provider",
        "pdfium",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!(s["scored"], ing["files"]);
    for r in s["rows"].as_array().unwrap() {
        for p in r["values"].as_array().unwrap() {
            if let Some(x) = p[1].as_f64() {
                assert!((0.0..=1.0).contains(&x), "{p}");
            }
        }
    }
    // Detection is by region: the traces count every GT region of the region files.
    let regions: usize = std::fs::read_dir(&data)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            // Only region files that have their PDF (eu-009b has none).
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix("-reg.xml").is_some_and(|s| data.join(format!("{s}.pdf")).is_file())
        })
        .map(|e| std::fs::read_to_string(e.path()).unwrap().matches("<region").count())
        .sum();
    let out = run(corpus(&db).args([
        "sql",
        "SELECT sum(json_extract(trace, '$.gt_regions')) AS n FROM v_scores \
         WHERE suite = 'table' AND metric = 'det_r'",
        "--format",
        "json",
    ]));
    assert_eq!(json(&out)[0]["n"].as_u64(), Some(regions as u64));
    assert!(s["tables"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p[0] == "det_p" && p[1].is_f64()));
}
