//! The omnidoc suite against the official OmniDocBench v1.5 evaluator's output on its demo.

use crate::util::{corpus, json, run, shared_data};

#[test]
fn demo_reproduces_the_official_v15_result() {
    let Some(data) = shared_data("omnidocbench") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let demo = data.join("demo_data");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "omnidoc", "--format", "json"])
        .arg(demo.join("omnidocbench_demo/OmniDocBench_demo.json")));
    assert!(out.status.success());
    assert_eq!(json(&out)["new_documents"].as_u64(), Some(18));
    let out = run(corpus(&db)
        .args(["import", "--provider", "demo", "--format", "markdown", "--print", "json"])
        .arg(demo.join("end2end")));
    assert!(out.status.success());
    assert_eq!(json(&out)["imported"].as_u64(), Some(18));
    let out = run(corpus(&db).args([
        "eval",
        "--suite",
        "omnidoc",
        "--provider",
        "demo",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    let ours = json(&out);
    let want: serde_json::Value = serde_json::from_slice(
        &std::fs::read(data.join("result-v1.5/end2end_quick_match_metric_result.json")).unwrap(),
    )
    .unwrap();
    let fig = |id: &str| {
        ours["figures"].as_array().unwrap().iter().find(|f| f[0] == id).unwrap()[1].as_f64()
    };
    let close = |a: Option<f64>, b: &serde_json::Value, what: &str| {
        let (a, b) = (a.unwrap_or(f64::NAN), b.as_f64().unwrap());
        assert!((a - b).abs() < 1e-6, "{what}: ours {a}, official {b}");
    };
    let e = |el: &str, k: &str| &want[el]["all"]["Edit_dist"][k];
    close(fig("text_edit"), e("text_block", "ALL_page_avg"), "text ALL_page_avg");
    close(fig("text_edit_whole"), e("text_block", "edit_whole"), "text edit_whole");
    close(fig("text_edit_sample"), e("text_block", "edit_sample_avg"), "text edit_sample_avg");
    close(fig("formula_edit"), e("display_formula", "ALL_page_avg"), "formula Edit_dist");
    close(fig("table_edit"), e("table", "ALL_page_avg"), "table Edit_dist");
    close(fig("order_edit"), e("reading_order", "ALL_page_avg"), "reading order Edit_dist");
    close(fig("table_teds"), &want["table"]["all"]["TEDS"]["all"], "table TEDS");
    close(fig("table_teds_s"), &want["table"]["all"]["TEDS_structure_only"]["all"], "table TEDS-S");
    // overall is a number exactly when CDM scored some display formula (and null, with the
    // errors said, when it could not: no TeX).
    assert_eq!(fig("overall").is_some(), fig("formula_cdm_page").is_some(), "{ours}");
    if fig("formula_cdm").is_none() {
        assert_eq!(ours["cdm_errors"].as_array().map(Vec::len), Some(13), "{ours}");
    }
    // The per-attribute "page" breakdowns.
    let mut checked = 0;
    for el in ["text_block", "display_formula", "table", "reading_order"] {
        for (metric, by_attr) in want[el]["page"].as_object().unwrap() {
            for (attr, v) in by_attr.as_object().unwrap() {
                let got = ours["page"][el][metric][attr].as_f64();
                close(got, v, &format!("{el} page {metric} {attr}"));
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked} page breakdowns");
    // Per-page rows are stored, grouped by page attributes, and a second eval adds nothing.
    let out = run(corpus(&db).args([
        "report",
        "--suite",
        "omnidoc",
        "--by",
        "attribute:data_source",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    assert!(json(&out).as_array().unwrap().len() >= 3);
    let out = run(corpus(&db).args([
        "eval",
        "--suite",
        "omnidoc",
        "--provider",
        "demo",
        "--format",
        "json",
    ]));
    assert_eq!(json(&out)["rows_written"].as_u64(), Some(0));
    let out = run(corpus(&db).args([
        "show",
        "docstructbench_dianzishu_zhongwenzaixian-o.O-60599898.pdf_30",
        "--provider",
        "demo",
        "--suite",
        "omnidoc",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("norm_gt"),
        "traces list the matched pairs"
    );
}

/// With the real CDM: the demo's display-formula CDM equals the reference run's
/// (`result-v1.5-cdm/display_formula_cdm.json`), and `overall` is OmniDocBench's own figure.
#[test]
fn demo_formula_cdm_and_overall_equal_the_reference() {
    let Some(data) = shared_data("omnidocbench") else { return };
    if !crate::cdm::tex_ready(corpus::metrics::cdm::Variant::OmniDocBench) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let demo = data.join("demo_data");
    assert!(run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "-q"])
        .arg(demo.join("omnidocbench_demo/OmniDocBench_demo.json")))
    .status
    .success());
    assert!(run(corpus(&db)
        .args(["import", "--provider", "demo", "--format", "markdown", "-q"])
        .arg(demo.join("end2end")))
    .status
    .success());
    let out = run(corpus(&db)
        .args(["eval", "--suite", "omnidoc", "--provider", "demo"])
        .args(["--format", "json"]));
    assert!(out.status.success());
    let ours = json(&out);
    let fig = |id: &str| {
        ours["figures"].as_array().unwrap().iter().find(|f| f[0] == id).unwrap()[1].as_f64()
    };
    let close = |a: Option<f64>, b: f64, what: &str| {
        let a = a.unwrap_or(f64::NAN);
        assert!((a - b).abs() < 1e-9, "{what}: ours {a}, reference {b}");
    };
    close(fig("formula_cdm"), 0.8758461538461539, "mean CDM");
    close(fig("formula_exprate"), 4.0 / 13.0, "ExpRate@CDM");
    close(fig("formula_cdm_page"), 0.8594875, "page-level CDM");
    // ((1 − 0.351)·100 + 85.949 + 80.012) / 3, as tools/generate_result_tables.ipynb.
    close(fig("overall"), 76.95366666666666, "overall");
    // `report` recomputes the same overall from the pages' scores (not a mean of per-page
    // overalls, which no demo page has), with a bootstrap interval over the pages (issue 35).
    let r = run(corpus(&db)
        .args(["report", "--suite", "omnidoc", "--by", "provider"])
        .args(["--format", "json"]));
    let r = &json(&r)[0];
    close(r["overall"].as_f64(), 76.95366666666666, "report's overall");
    let (lo, hi) = (r["overall_lo"].as_f64().unwrap(), r["overall_hi"].as_f64().unwrap());
    assert!(lo < 76.95 && 76.96 < hi && hi - lo < 30.0, "{lo} {hi}");
}
