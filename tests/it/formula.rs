//! The formula suite end to end: `ingest --truth pdf-parse-bench` → a provider's output
//! (`pdfium`, `layout`, an imported Markdown, the truth itself) → `eval --suite formula`, on a
//! self-made PDF with hand-computed figures and on pdf-parse-bench's formulas; and
//! `judge --suite formula` on the stored pairs against the local test server.

use std::path::Path;

use corpus::llm::testing::{chat_json, Reply, TestServer};
use corpus::sample::pdf::{Font, Pdf, PdfPage};
use serde_json::Value;

use crate::util::{corpus, json, run, shared_data};

/// Writes `pdfs/f1.pdf` (prose with two of the three formulas as plain text),
/// `ground_truth/f1.json` (text, an inline and two display formulas) and `md/f1.md` (a
/// Markdown prediction with all three, in three delimiter styles).
pub fn write_fixture(root: &Path) {
    let mut page = PdfPage::new(612.0, 792.0);
    page.text(Font::Regular, 10.0, 72.0, 720.0, "Some words before x1+y2=z and after.");
    page.text(Font::Regular, 10.0, 200.0, 690.0, "a/b=c");
    page.text(Font::Regular, 10.0, 72.0, 660.0, "Closing words of the page.");
    let mut pdf = Pdf::new();
    pdf.push(page);
    for d in ["pdfs", "ground_truth", "md"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(root.join("pdfs/f1.pdf"), pdf.to_bytes()).unwrap();
    let truth = serde_json::json!([
        {"type": "text", "data": "Some words before"},
        {"type": "inline-formula", "data": "$x_{1}+y^{2}=z$"},
        {"type": "text", "data": "and after."},
        {"type": "display-formula", "data": "$$\\frac{a}{b}=c$$"},
        {"type": "text", "data": "Closing words of the page."},
        {"type": "display-formula", "data": "$$E=mc^{2}$$"}
    ]);
    std::fs::write(root.join("ground_truth/f1.json"), truth.to_string()).unwrap();
    std::fs::write(
        root.join("md/f1.md"),
        "Some words before \\(x_1 + y^2 = z\\) and after.\n\n\\[\\frac{a}{b}=c\\]\n\nClosing words of the page.\n\n$$E=mc^2$$\n",
    )
    .unwrap();
}

fn value(values: &Value, id: &str) -> Option<f64> {
    values.as_array().unwrap().iter().find(|p| p[0] == id).unwrap_or_else(|| panic!("no {id}"))[1]
        .as_f64()
}

fn close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or(f64::NAN);
    assert!((got - want).abs() < 1e-9, "{what}: got {got}, want {want}");
}

fn eval(db: &Path, provider: &str) -> Value {
    let out = run(corpus(db)
        .args(["eval", "--suite", "formula", "--provider", provider])
        .args(["--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    json(&out)
}

/// Every pair's CDM is a score in [0, 1] or an error with its message: never a silent 0 for
/// a pair CDM could not score.
fn cdm_is_a_score_or_an_error(db: &Path, suite: &str) {
    let out = run(corpus(db).args([
        "sql",
        &format!("SELECT trace FROM v_scores WHERE suite = '{suite}' AND metric = 'cdm'"),
        "--format",
        "json",
    ]));
    for row in json(&out).as_array().unwrap() {
        let t: Value = serde_json::from_str(row["trace"].as_str().unwrap()).unwrap();
        for f in t["formulas"].as_array().unwrap() {
            match (f["pred"].is_null(), f["cdm"].as_f64(), f["cdm_error"].as_str()) {
                (true, Some(x), None) => assert_eq!(x, 0.0, "a miss scores 0: {f}"),
                (false, Some(x), None) => assert!((0.0..=1.0).contains(&x), "{f}"),
                (false, None, Some(e)) => assert!(!e.is_empty(), "{f}"),
                _ => panic!("neither a score nor an error: {f}"),
            }
        }
    }
}

#[test]
fn self_made_formulas_get_hand_computed_scores() {
    let d = tempfile::tempdir().unwrap();
    write_fixture(d.path());
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "pdf-parse-bench", "--format", "json"])
        .arg(d.path().join("pdfs")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["truths_added"], 1);

    // GT against GT: every formula found and equal.
    let s = eval(&db, "truth");
    assert_eq!(s["scored"], 1);
    for id in ["edit_sim", "exact", "found", "edit_sim_inline", "edit_sim_display"] {
        close(value(&s["document_means"], id), 1.0, id);
    }
    assert_eq!(s["formulas"]["formulas"], 3);
    assert_eq!(s["by_type"]["inline"]["formulas"], 1);

    // An imported Markdown with \( \), \[ \] and $$: hand-computed edit similarities on the
    // normal forms: "x_1+y^2=z" vs "x_{1}+y^{2}=z" (4 of 13), exact, "E=mc^2" vs "E=mc^{2}"
    // (2 of 8).
    let out = run(corpus(&db)
        .args(["import", "--provider", "mdparser", "--format", "markdown", "-q"])
        .arg(d.path().join("md")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = eval(&db, "mdparser");
    let m = &s["document_means"];
    close(value(m, "edit_sim"), (9.0 / 13.0 + 1.0 + 0.75) / 3.0, "edit_sim");
    close(value(m, "edit_sim_inline"), 9.0 / 13.0, "edit_sim_inline");
    close(value(m, "edit_sim_display"), (1.0 + 0.75) / 2.0, "edit_sim_display");
    close(value(m, "exact"), 1.0 / 3.0, "exact");
    close(value(m, "found"), 1.0, "found");
    // A re-run rebuilds the result from the stored rows.
    let again = eval(&db, "mdparser");
    assert_eq!((again["scored"].as_u64(), again["cached"].as_u64()), (Some(0), Some(1)));
    assert_eq!(again["rows_written"], 0);
    assert_eq!(again["document_means"], s["document_means"]);

    // The text layer: the two formulas printed are found as text, the third is missed.
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    let s = eval(&db, "pdfium");
    close(value(&s["document_means"], "found"), 2.0 / 3.0, "pdfium found");
    let out = run(corpus(&db).args([
        "sql",
        "SELECT trace FROM v_scores WHERE suite = 'formula' AND metric = 'cdm' AND provider = 'pdfium'",
        "--format",
        "json",
    ]));
    let t: Value = serde_json::from_str(json(&out)[0]["trace"].as_str().unwrap()).unwrap();
    let f = t["formulas"].as_array().unwrap();
    assert_eq!((f[0]["pred"].as_str(), f[0]["found"].as_str()), (Some("x1+y2=z"), Some("text")));
    assert_eq!(f[1]["pred"], "a/b=c");
    assert_eq!((f[2]["pred"].clone(), f[2]["edit_sim"].as_f64()), (Value::Null, Some(0.0)));
    cdm_is_a_score_or_an_error(&db, "formula");

    // report sees the rows; the UniMERNet variant is a suite of its own.
    let out = run(corpus(&db).args(["report", "--suite", "formula", "--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db).args([
        "eval",
        "--suite",
        "formula",
        "--provider",
        "mdparser",
        "--cdm",
        "unimernet",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!((s["suite"].as_str(), s["scored"].as_u64()), (Some("formula-unimernet"), Some(1)));
    cdm_is_a_score_or_an_error(&db, "formula-unimernet");
    // The table suite leaves a truth without tables alone.
    let out = run(corpus(&db).args([
        "eval",
        "--suite",
        "table",
        "--provider",
        "mdparser",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    assert_eq!(json(&out)["scored"], 0);
}

#[test]
fn formula_pairs_are_judged_once() {
    let d = tempfile::tempdir().unwrap();
    write_fixture(d.path());
    let db = d.path().join("c.db");
    assert!(run(corpus(&db)
        .args(["ingest", "--truth", "pdf-parse-bench", "-q"])
        .arg(d.path().join("pdfs")))
    .status
    .success());
    assert!(run(corpus(&db)
        .args(["import", "--provider", "mdparser", "--format", "markdown", "-q"])
        .arg(d.path().join("md")))
    .status
    .success());
    let server = TestServer::start(move |_, req| {
        let prompt = req.json()["messages"][0]["content"].as_str().unwrap_or("").to_string();
        let score = if prompt.contains("Extracted formula:\n$$\\frac{a}{b}=c$$") { 10 } else { 6 };
        Reply::Json(chat_json(&format!("{{\"score\": {score}}}"), "judge-1"))
    });
    let args = |url: &str| {
        vec![
            "judge".to_string(),
            "--suite".into(),
            "formula".into(),
            "--provider".into(),
            "mdparser".into(),
            "--model".into(),
            "m".into(),
            "--base-url".into(),
            url.to_string(),
            "--format".into(),
            "json".into(),
        ]
    };
    let out = run(corpus(&db).args(args(&server.base_url())).arg("--dry-run"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["to_ask"], 3);
    assert_eq!(server.calls(), 0);
    let out = run(corpus(&db).args(args(&server.base_url())));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = json(&out);
    assert_eq!((s["asked"].as_u64(), s["rows_written"].as_u64()), (Some(3), Some(1)));
    close(s["mean"].as_f64(), (0.6 + 1.0 + 0.6) / 3.0, "judge mean");
    assert_eq!(server.calls(), 3);
    // A re-run makes no call and writes nothing.
    let out = run(corpus(&db).args(args(&server.base_url())));
    let s = json(&out);
    assert_eq!((s["asked"].as_u64(), s["cached"].as_u64()), (Some(0), Some(3)));
    assert_eq!(s["rows_written"], 0);
    assert_eq!(server.calls(), 3);
    // The row sits beside the suite's own, with the pairs in its trace.
    let out = run(corpus(&db).args([
        "sql",
        "SELECT value, trace FROM v_scores WHERE suite = 'formula' AND metric = 'judge:m@v1'",
        "--format",
        "json",
    ]));
    let r = json(&out);
    let t: Value = serde_json::from_str(r[0]["trace"].as_str().unwrap()).unwrap();
    assert_eq!(t["formulas"][1]["score"], 10);
    assert_eq!(t["formulas"][1]["type"], "display");
}

/// pdf-parse-bench's 50 formula pages for a provider: every GT formula gets a result.
fn shared_formulas(provider: &str, db: &Path, data: &Path) -> Value {
    if provider != "truth" && !provider.starts_with("md") {
        let out = run(corpus(db).args(["ocr", "--provider", provider, "-q"]));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let s = eval(db, provider);
    assert_eq!(s["scored"], s["documents"], "{provider}");
    assert_eq!(s["documents"], 50);
    let total: u64 =
        s["rows"].as_array().unwrap().iter().map(|r| r["gt_formulas"].as_u64().unwrap()).sum();
    assert_eq!(s["formulas"]["formulas"].as_u64(), Some(total));
    for (k, v) in s["document_means"].as_array().unwrap().iter().map(|p| (&p[0], &p[1])) {
        if let Some(x) = v.as_f64() {
            assert!((0.0..=1.0).contains(&x), "{provider} {k} {x}");
        }
    }
    let _ = data;
    let m = &s["formulas"]["values"];
    println!(
        "formula suite, {provider} on pdf-parse-bench formulas ({total} GT formulas): found {}/{}, edit_sim {:.4}, exact {:.4}, cdm {:?}, exprate {:?}; inline edit_sim {:?}, display edit_sim {:?}",
        s["formulas"]["found"],
        total,
        value(m, "edit_sim").unwrap(),
        value(m, "exact").unwrap(),
        value(m, "cdm"),
        value(m, "cdm_exprate"),
        value(&s["by_type"]["inline"]["values"], "edit_sim"),
        value(&s["by_type"]["display"]["values"], "edit_sim"),
    );
    s
}

/// Writes a Markdown per truth as a parser might: inline formulas as `\(…\)` with spaces
/// around operators, display ones as `\[…\]`, every fifth formula left out (a made-up
/// prediction, so the import path and both delimiter styles run on real truths).
fn write_markdown_prediction(data: &Path, out: &Path) {
    std::fs::create_dir_all(out).unwrap();
    for e in std::fs::read_dir(data.join("ground_truth")).unwrap() {
        let p = e.unwrap().path();
        let items: Vec<Value> = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        let mut md = String::new();
        let mut k = 0;
        for it in &items {
            let data = it["data"].as_str().unwrap();
            let inner = data.trim().trim_matches('$');
            match it["type"].as_str().unwrap() {
                "text" => md.push_str(&format!("{data} ")),
                kind => {
                    k += 1;
                    if k % 5 == 0 {
                        continue;
                    }
                    let spaced = inner.replace('=', " = ").replace('+', " + ");
                    if kind == "inline-formula" {
                        md.push_str(&format!("\\({spaced}\\) "));
                    } else {
                        md.push_str(&format!("\n\n\\[{spaced}\\]\n\n"));
                    }
                }
            }
        }
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        std::fs::write(out.join(format!("{stem}.md")), md).unwrap();
    }
}

#[test]
fn pdf_parse_bench_formulas_run_end_to_end() {
    let Some(data) = shared_data("pdf-parse-bench/formulas") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args([
            "ingest",
            "--truth",
            "pdf-parse-bench",
            "--dataset",
            "ppformulas",
            "--format",
            "json",
        ])
        .arg(&data));
    assert!(out.status.success());
    let ing = json(&out);
    assert_eq!(ing["truths_added"], ing["files"]);

    // GT against GT is 1.0 on every string metric.
    let s = shared_formulas("truth", &db, &data);
    for id in ["edit_sim", "exact"] {
        close(value(&s["formulas"]["values"], id), 1.0, id);
    }
    assert_eq!(s["formulas"]["found"], s["formulas"]["formulas"]);

    let s = shared_formulas("pdfium", &db, &data);
    assert!(s["formulas"]["found"].as_u64().unwrap() > 0);
    cdm_is_a_score_or_an_error(&db, "formula");

    // An imported Markdown: 4 of every 5 formulas written, each found.
    let md = d.path().join("md");
    write_markdown_prediction(&data, &md);
    let out = run(corpus(&db)
        .args(["import", "--provider", "mdparser", "--format", "markdown", "-q"])
        .arg(&md));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = shared_formulas("mdparser", &db, &data);
    let found =
        s["formulas"]["found"].as_f64().unwrap() / s["formulas"]["formulas"].as_f64().unwrap();
    assert!((0.75..=0.85).contains(&found), "found {found}");
}

#[test]
fn pdf_parse_bench_formulas_through_layout() {
    let Some(data) = shared_data("pdf-parse-bench/formulas") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).args(["ingest", "--truth", "pdf-parse-bench", "-q"]).arg(&data))
        .status
        .success());
    let s = shared_formulas("layout", &db, &data);
    assert!(s["formulas"]["found"].as_u64().unwrap() > 0);
}

/// With the real CDM, the truth against itself scores CDM 1 on every formula, in both
/// variants, on the self-made page and on pdf-parse-bench's 50 pages.
#[test]
fn gt_vs_gt_cdm_is_one() {
    use corpus::metrics::cdm::Variant;
    if !crate::cdm::tex_ready(Variant::OmniDocBench) || !crate::cdm::tex_ready(Variant::UniMERNet) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    write_fixture(d.path());
    let db = d.path().join("c.db");
    assert!(run(corpus(&db)
        .args(["ingest", "--truth", "pdf-parse-bench", "-q"])
        .arg(d.path().join("pdfs")))
    .status
    .success());
    if let Some(data) = shared_data("pdf-parse-bench/formulas") {
        assert!(run(corpus(&db)
            .args(["ingest", "--truth", "pdf-parse-bench", "-q", "--dataset", "ppformulas"])
            .arg(&data))
        .status
        .success());
    }
    for cdm in ["omnidocbench", "unimernet"] {
        let out = run(corpus(&db).args([
            "eval",
            "--suite",
            "formula",
            "--provider",
            "truth",
            "--cdm",
            cdm,
            "--format",
            "json",
        ]));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let s = json(&out);
        assert_eq!(s["formulas"]["cdm_errors"], 0, "{cdm}: {s}");
        close(value(&s["formulas"]["values"], "cdm"), 1.0, cdm);
        close(value(&s["formulas"]["values"], "cdm_exprate"), 1.0, cdm);
    }
}
