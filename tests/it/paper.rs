//! The paper suite end to end: truth against itself, pdfium against the truth, idempotency,
//! scores through `v_scores`, traces through `show`, and `export --format peerread`.

use corpus::store::Store;

use crate::util::{corpus, json, run, sample_dir, shared_data};

fn all_values(db: &std::path::Path, provider: &str) -> Vec<(String, String, Option<f64>)> {
    let store = Store::open_read_only(db).unwrap();
    let mut st = store
        .connection()
        .prepare("SELECT document, metric, value FROM v_scores WHERE provider = ?1 ORDER BY 1, 2")
        .unwrap();
    st.query_map([provider], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn truth_scores_one_everywhere_and_pdfium_is_scored_once_per_suite_version() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let ingest = ["ingest", "--dataset", "sample", "--truth", "peerread", "-q"];
    assert!(run(corpus(&db).args(ingest).arg(sample_dir())).status.success());

    let truth = run(corpus(&db).args(["eval", "--suite", "paper", "--provider", "truth"]));
    assert!(truth.status.success());
    let table = String::from_utf8_lossy(&truth.stdout);
    assert!(table.starts_with("document "), "{table}");
    assert!(table.lines().last().unwrap().starts_with("AVG"), "{table}");
    let values = all_values(&db, "truth");
    assert_eq!(values.len(), 3 * corpus::metrics::paper::metric_ids().len());
    for (doc, metric, v) in &values {
        assert!(v.is_none() || *v == Some(1.0), "truth vs itself: {doc} {metric} = {v:?}");
    }
    assert!(values.iter().filter(|(_, _, v)| v.is_some()).count() > 40);

    assert!(run(corpus(&db).args(["ocr", "-q"])).status.success());
    let first = json(&run(corpus(&db).args(["eval", "--provider", "pdfium", "--format", "json"])));
    assert_eq!((first["scored"].as_u64(), first["cached"].as_u64()), (Some(3), Some(0)));
    let again = json(&run(corpus(&db).args(["eval", "--provider", "pdfium", "--format", "json"])));
    assert_eq!((again["scored"].as_u64(), again["cached"].as_u64()), (Some(0), Some(3)));
    assert_eq!(again["rows"], first["rows"], "a re-run reports the stored values");
    let n = all_values(&db, "pdfium").len();
    assert_eq!(n, 3 * corpus::metrics::paper::metric_ids().len(), "no duplicate rows");

    // The view has the documented columns.
    let store = Store::open_read_only(&db).unwrap();
    let cols: Vec<String> = store
        .connection()
        .prepare("SELECT * FROM v_scores LIMIT 1")
        .unwrap()
        .column_names()
        .into_iter()
        .map(String::from)
        .collect();
    for c in [
        "document",
        "dataset",
        "provider",
        "provider_version",
        "model_digest",
        "suite",
        "suite_version",
        "metric",
        "value",
        "computed_at",
        "run",
    ] {
        assert!(cols.contains(&c.to_string()), "v_scores lacks {c}: {cols:?}");
    }

    // A score comes with its trace.
    let shown =
        run(corpus(&db).args(["show", "101", "--provider", "pdfium", "--metric", "tbl_num_cov"]));
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.starts_with("tbl_num_cov = "), "{text}");
    assert!(text.contains("\"total\": 12"), "{text}");

    // export --format peerread writes the schema, key order as the ground truth's.
    let exported =
        run(corpus(&db).args(["export", "101", "--provider", "pdfium", "--format", "peerread"]));
    assert!(exported.status.success());
    let paper = corpus::formats::peerread::read_peerread(&exported.stdout).unwrap();
    assert_eq!(paper.title.as_deref(), Some("Robust Sequence Tagging for Noisy Scanned Text"));
    let v: serde_json::Value = serde_json::from_slice(&exported.stdout).unwrap();
    let keys: Vec<&String> = v["metadata"].as_object().unwrap().keys().collect();
    let gt: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sample_dir().join("101.pdf.json")).unwrap()).unwrap();
    let gt_keys: Vec<&String> = gt["metadata"].as_object().unwrap().keys().collect();
    assert_eq!(keys, gt_keys);
    assert_eq!(v["name"], "101.pdf");
}

/// Issue 35: the `empty` provider is every suite's floor; on the sample papers every paper
/// metric it gets is 0 (no metric rewards an empty output), and `report --by provider` shows it.
#[test]
fn the_empty_provider_scores_zero() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let ingest = ["ingest", "--dataset", "sample", "--truth", "peerread", "-q"];
    assert!(run(corpus(&db).args(ingest).arg(sample_dir())).status.success());
    let out = run(corpus(&db).args(["ocr", "--provider", "empty", "-q"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db).args(["eval", "--suite", "paper", "--provider", "empty", "-q"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let values = all_values(&db, "empty");
    assert!(values.iter().filter(|(_, _, v)| v.is_some()).count() > 40);
    for (doc, metric, v) in &values {
        assert!(v.is_none() || *v == Some(0.0), "empty output: {doc} {metric} = {v:?}");
    }
    let rows = json(&run(corpus(&db).args(["report", "--by", "provider", "--format", "json"])));
    assert_eq!(rows[0]["provider"], "empty@1");
    assert_eq!(rows[0]["text_r"], 0.0);
}

#[test]
fn every_grobid_gold_truth_scores_one_against_itself() {
    let (Some(gold), Some(s2orc)) = (shared_data("grobid-gold/pdf"), shared_data("s2orc")) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let ingest = |dir: &std::path::Path, dataset: &str, truth: &str| {
        let out = run(corpus(&db)
            .args(["ingest", "--dataset", dataset, "--truth", truth, "--format", "json"])
            .arg(dir));
        let s = json(&out);
        assert!(out.status.success(), "{s}");
        assert_eq!(s["truths_missing"].as_array().map(Vec::len), Some(0), "{s}");
    };
    ingest(&gold, "grobid", "grobid-tei");
    ingest(&s2orc, "s2orc-tei", "grobid-tei");
    ingest(&s2orc, "s2orc-json", "s2orc");
    let out = run(corpus(&db).args(["eval", "--provider", "truth", "--format", "json"]));
    assert!(out.status.success());
    let s = json(&out);
    // 6 GROBID papers, and N18-3011 with two truths (TEI and S2ORC JSON): each truth output
    // is scored against its own truth only.
    assert_eq!(s["rows"].as_array().map(Vec::len), Some(8));
    let values = all_values(&db, "truth");
    for (doc, metric, v) in &values {
        assert!(v.is_none() || *v == Some(1.0), "truth vs itself: {doc} {metric} = {v:?}");
    }
    // Header-only truths still score the fields they have.
    let title = values.iter().filter(|(_, m, v)| m == "title_chr" && v.is_some()).count();
    assert_eq!(title, 8);
}

/// Issue 19: the sample corpus with its JATS truth beside its PeerRead truth (both derived
/// from the same source as the PDFs). The truth scores 1 against itself, and pdfium's output
/// scores the same against either truth on every metric both define.
#[test]
fn sample_jats_truth_scores_one_and_as_the_peerread_truth_does() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    for (dataset, truth) in [("sample", "peerread"), ("sample-jats", "jats")] {
        let out = run(corpus(&db)
            .args(["ingest", "--dataset", dataset, "--truth", truth, "--format", "json"])
            .arg(sample_dir()));
        let s = json(&out);
        assert!(out.status.success(), "{s}");
        assert_eq!(s["truths_missing"].as_array().map(Vec::len), Some(0), "{s}");
    }
    let truth = run(corpus(&db).args(["eval", "--provider", "truth", "--dataset", "sample-jats"]));
    assert!(truth.status.success());
    let values = all_values(&db, "truth");
    assert_eq!(values.len(), 3 * corpus::metrics::paper::metric_ids().len());
    for (doc, metric, v) in &values {
        assert!(v.is_none() || *v == Some(1.0), "jats truth vs itself: {doc} {metric} = {v:?}");
    }
    assert!(run(corpus(&db).args(["ocr", "-q"])).status.success());
    assert!(run(corpus(&db).args(["eval", "--provider", "pdfium", "-q"])).status.success());
    let store = Store::open_read_only(&db).unwrap();
    let mut st = store
        .connection()
        .prepare(
            "SELECT dataset, document, metric, value FROM v_scores
             WHERE provider = 'pdfium' AND suite = 'paper' ORDER BY 2, 3",
        )
        .unwrap();
    let rows: Vec<(String, String, String, Option<f64>)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let of = |ds: &str| -> std::collections::HashMap<(String, String), Option<f64>> {
        rows.iter().filter(|r| r.0 == ds).map(|r| ((r.1.clone(), r.2.clone()), r.3)).collect()
    };
    let (peer, jats) = (of("sample"), of("sample-jats"));
    assert_eq!(peer.len(), jats.len());
    let mut shared = 0;
    for (k, v) in &peer {
        if let (Some(a), Some(Some(b))) = (v, jats.get(k)) {
            shared += 1;
            assert!((a - b).abs() < 1e-12, "{k:?}: peerread {a}, jats {b}");
        }
    }
    assert!(shared >= 3 * 15, "{shared}");

    // The field scores pooled GROBID's way, in JSON and as tables.
    let out = json(&run(corpus(&db).args([
        "eval",
        "--provider",
        "pdfium",
        "--dataset",
        "sample-jats",
        "--format",
        "json",
    ])));
    let f = &out["fields"][0];
    assert_eq!(f["dataset"], "sample-jats");
    assert_eq!(f["report"]["papers"], 3);
    let cit = &f["report"]["groups"]["citations"]["strict"]["fields"][0];
    assert_eq!((cit["field"].as_str(), cit["support"].as_u64()), (Some("title"), Some(17)));
    let text = run(corpus(&db).args(["eval", "--provider", "pdfium", "--fields", "-q"]));
    let text = String::from_utf8_lossy(&text.stdout);
    let version = corpus::providers::find("pdfium").unwrap().version();
    let head = format!("pdfium@{version} on sample-jats (3 papers): citation fields");
    assert!(text.contains(&head), "{text}");
    assert!(text.contains("all (micro)"), "{text}");
}

/// Issue 19: GROBID's own TEI of the S2ORC paper, imported as a provider's output and scored
/// against the S2ORC JSON truth of the same paper. Both come from one GROBID run, so the
/// header fields agree exactly; citations agree but for what the JSON lost.
#[test]
fn imported_grobid_tei_against_the_s2orc_json_truth() {
    let Some(s2orc) = shared_data("s2orc") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--dataset", "s2orc", "--truth", "s2orc", "--format", "json"])
        .arg(&s2orc));
    assert!(out.status.success(), "{}", json(&out));
    let out = run(corpus(&db)
        .args(["import", "--provider", "grobid-0.6.1", "--format", "grobid-tei"])
        .arg(s2orc.join("N18-3011.tei.xml")));
    assert!(out.status.success());
    let out = run(corpus(&db).args([
        "eval",
        "--provider",
        "grobid-0.6.1",
        "--fields",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    let v = json(&out);
    let f = &v["fields"][0];
    assert_eq!((f["dataset"].as_str(), f["report"]["papers"].as_u64()), (Some("s2orc"), Some(1)));
    let groups = &f["report"]["groups"];
    let micro = |g: &str, m: &str| groups[g][m]["micro"]["f1"].as_f64().unwrap();
    for m in ["strict", "soft", "lev", "ro"] {
        assert_eq!(micro("header", m), 1.0, "header {m}: {}", groups["header"][m]);
    }
    let cit = micro("citations", "strict");
    assert!(cit > 0.99 && cit < 1.0, "citations strict micro F1 {cit}");
    eprintln!("{}", groups["citations"]["strict"]);
}

/// `report` leaves the 216 GROBID-style field metrics out unless asked (`--fields`, or
/// `--metric` naming one): the paper table stays readable on a terminal.
#[test]
fn report_shows_field_scores_only_when_asked() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let ingest = ["ingest", "--dataset", "sample", "--truth", "peerread", "-q"];
    assert!(run(corpus(&db).args(ingest).arg(sample_dir())).status.success());
    assert!(run(corpus(&db).args(["eval", "--provider", "truth", "-q"])).status.success());
    let header = |extra: &[&str]| {
        let out = run(corpus(&db)
            .args([
                "report", "--suite", "paper", "--by", "provider", "--format", "csv", "--ci", "none",
            ])
            .args(extra));
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_string()
    };
    let plain = header(&[]);
    assert!(plain.contains("text_r") && plain.contains("ref_r"), "{plain}");
    assert!(!plain.contains("hdr_") && !plain.contains("cit_"), "{plain}");
    let all = header(&["--fields"]);
    assert!(all.contains("text_r") && all.contains("cit_micro_strict_f"), "{all}");
    let cols = all.split(',').count() - plain.split(',').count();
    assert_eq!(cols, corpus::metrics::fields::metric_ids().len());
    let one = header(&["--metric", "hdr_title_soft_f"]);
    assert!(one.contains("hdr_title_soft_f") && !one.contains("text_r"), "{one}");
}
