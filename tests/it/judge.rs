//! `corpus judge` end to end against the local chat-completions test server: the request the
//! judge sends, the rows it stores beside the table suite's, a re-run and a dry run that send
//! nothing, a new model that adds rows beside the old, and (ignored unless
//! CORPUS_JUDGE_BASE_URL is set) one real judged pair against a user's server.

use std::sync::{Arc, Mutex};

use corpus::llm::testing::{chat_json, Reply, TestServer};

use crate::table::write_fixture;
use crate::util::{corpus, json, run};

fn judge_args<'a>(server: &'a str, model: &'a str) -> Vec<&'a str> {
    vec![
        "judge",
        "--suite",
        "table",
        "--provider",
        "pdfium",
        "--model",
        model,
        "--base-url",
        server,
        "--format",
        "json",
    ]
}

/// `judge --suite formula --model MODEL --base-url URL` and what follows.
fn formula_args<'a>(url: &'a str, model: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["judge", "--suite", "formula", "--model", model, "--base-url", url];
    a.extend_from_slice(rest);
    a
}

/// A store with the self-made table fixture ingested and parsed by `pdfium` (the folder, kept
/// alive by the caller, and the store's path).
fn parsed_tables() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    write_fixture(d.path());
    let db = d.path().join("c.db");
    assert!(run(corpus(&db)
        .args(["ingest", "--truth", "latex-tables", "-q"])
        .arg(d.path().join("pdfs")))
    .status
    .success());
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    (d, db)
}

#[test]
fn table_pairs_are_judged_once_and_stored_beside_the_suites_metrics() {
    let (_dir, db) = parsed_tables();

    let prompts = Arc::new(Mutex::new(Vec::new()));
    let seen = prompts.clone();
    let server = TestServer::start(move |_, req| {
        seen.lock().unwrap().push(req.json());
        Reply::Json(chat_json(
            r#"{"errors": ["1.12 became 112", "0.75 lost its sign"], "score": 4}"#,
            "judge-rev-2",
        ))
    });
    let url = server.base_url();

    // A dry run counts the one matched pair and sends nothing.
    let out = run(corpus(&db).args(judge_args(&url, "m")).arg("--dry-run"));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!(
        (s["pairs"].as_u64(), s["missed"].as_u64(), s["to_ask"].as_u64()),
        (Some(1), Some(1), Some(1))
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 call(s) would be made"));
    assert_eq!(server.calls(), 0);
    // A dry run needs no server at all.
    let out = run(corpus(&db).args([
        "judge",
        "--suite",
        "table",
        "--provider",
        "pdfium",
        "--model",
        "m",
        "--dry-run",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    assert_eq!(json(&out)["to_ask"], 1);

    // The run: one call, the key only in its header.
    let out =
        run(corpus(&db).args(judge_args(&url, "m")).env("CORPUS_JUDGE_API_KEY", "sk-judge-secret"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = json(&out);
    assert_eq!(server.calls(), 1);
    assert_eq!((s["asked"].as_u64(), s["rows_written"].as_u64()), (Some(1), Some(1)));
    assert_eq!(s["metric"], "judge:m@v1");
    // The document mean: 4/10 for the matched table, 0 for the GT table the PDF lacks.
    assert!((s["mean"].as_f64().unwrap() - 0.2).abs() < 1e-12, "{s}");
    let req = &server.requests()[0];
    assert_eq!(req.header("authorization"), Some("Bearer sk-judge-secret"));
    let body = prompts.lock().unwrap()[0].clone();
    assert_eq!(body["model"], "m");
    assert_eq!(
        (body["temperature"].as_f64(), body["max_tokens"].as_u64()),
        (Some(0.0), Some(2000))
    );
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["required"],
        serde_json::json!(["errors", "score"])
    );
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    // The GT as its truth file writes it (LaTeX), the prediction as HTML.
    assert!(prompt.contains("1 & 1.12 & 0.50") && prompt.contains("<td>112</td>"), "{prompt}");

    // A re-run sends nothing and writes nothing.
    let s = json(&run(corpus(&db).args(judge_args(&url, "m"))));
    assert_eq!(server.calls(), 1);
    assert_eq!(
        (s["asked"].as_u64(), s["cached"].as_u64(), s["rows_written"].as_u64()),
        (Some(0), Some(1), Some(0))
    );
    // A dry run now has nothing to ask.
    let s = json(&run(corpus(&db).args(judge_args(&url, "m")).arg("--dry-run")));
    assert_eq!(s["to_ask"], 0);

    // The table suite still scores the pair after the judge did (judge rows do not count as
    // the suite's own), and report shows both side by side.
    let e = json(&run(corpus(&db).args([
        "eval",
        "--suite",
        "table",
        "--provider",
        "pdfium",
        "--format",
        "json",
    ])));
    assert_eq!(e["rows_written"], 14);
    let out = run(corpus(&db).args(["report", "--suite", "table", "--format", "json"]));
    let rep = json(&out);
    let row = rep.as_array().unwrap().iter().find(|r| r["document"] == "t1").unwrap();
    assert!((row["judge:m@v1"].as_f64().unwrap() - 0.2).abs() < 1e-12, "{row}");
    assert!(row["teds"].as_f64().is_some() && row["score_avg"].as_f64().is_some(), "{row}");

    // The trace keeps the raw score and the reply; the key is stored nowhere.
    let out = run(corpus(&db).args([
        "sql",
        "SELECT trace FROM v_scores WHERE metric = 'judge:m@v1'",
        "--format",
        "json",
    ]));
    let trace: serde_json::Value =
        serde_json::from_str(json(&out)[0]["trace"].as_str().unwrap()).unwrap();
    assert_eq!(trace["tables"][0]["score"], 4);
    assert_eq!(trace["tables"][0]["served_by"], "judge-rev-2");
    assert!(trace["tables"][0]["reply"].as_str().unwrap().contains("lost its sign"));
    assert_eq!(trace["tables"][1]["pred"], serde_json::Value::Null);
    let db_bytes = std::fs::read(&db).unwrap();
    assert!(!db_bytes.windows(15).any(|w| w == b"sk-judge-secret"));

    // Another model adds its rows beside the first.
    let s = json(&run(corpus(&db).args(judge_args(&url, "m2"))));
    assert_eq!((server.calls(), s["rows_written"].as_u64()), (2, Some(1)));
}

#[test]
fn failures_and_caps_are_reported_and_nothing_half_is_stored() {
    let (_dir, db) = parsed_tables();
    let server = TestServer::start(|_, _| Reply::Raw {
        status: 503,
        headers: vec![],
        body: "overloaded".into(),
    });
    let out = run(corpus(&db)
        .args(judge_args(&server.base_url(), "m"))
        .args(["--retries", "1"])
        .env("CORPUS_LLM_BACKOFF_MS", "5"));
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("HTTP 503"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.calls(), 2);
    assert_eq!(json(&out)["rows_written"], 0);

    // A request cap of 0: stops before sending, says so.
    let out =
        run(corpus(&db).args(judge_args(&server.base_url(), "m")).args(["--max-requests", "0"]));
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("request cap of 0 reached"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.calls(), 2);

    // The formula suite judges a provider's stored pairs: it needs --provider.
    let out = run(corpus(&db).args(formula_args("http://127.0.0.1:9/v1", "m", &[])));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--provider"));
}

#[test]
#[ignore = "needs a real server: set CORPUS_JUDGE_BASE_URL (and CORPUS_JUDGE_MODEL, CORPUS_JUDGE_API_KEY)"]
fn a_real_server_judges_a_formula_pair() {
    let Ok(url) = std::env::var("CORPUS_JUDGE_BASE_URL") else {
        eprintln!("SKIP: CORPUS_JUDGE_BASE_URL is not set");
        return;
    };
    let model = std::env::var("CORPUS_JUDGE_MODEL").unwrap_or_else(|_| "openai/gpt-5-mini".into());
    let d = tempfile::tempdir().unwrap();
    let pairs = d.path().join("p.jsonl");
    std::fs::write(&pairs, "{\"id\": \"same\", \"gt\": \"E = mc^2\", \"pred\": \"E=mc^{2}\"}\n{\"id\": \"wrong\", \"gt\": \"\\\\frac{a}{b}\", \"pred\": \"\\\\frac{b}{a}\"}\n").unwrap();
    let out = run(corpus(&d.path().join("c.db"))
        .args(formula_args(&url, &model, &["--pairs"]))
        .arg(&pairs));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines[0]["score"].as_u64().unwrap() > lines[1]["score"].as_u64().unwrap(), "{lines:?}");
}

#[test]
fn judged_formula_pairs_join_a_study_and_are_correlated() {
    let d = tempfile::tempdir().unwrap();
    // A self-made study: three pairs, humans and one recorded judge.
    let study = serde_json::json!([
        {"gt_id": "p1", "gt_formula": "a+b", "extracted_formula": "a+b", "metrics": {"cdm_score": 1.0},
         "human_study_scores": [10, 10, 9], "llm_scores": [{"judge_model": "j", "score": 10}]},
        {"gt_id": "p2", "gt_formula": "\\frac{a}{b}", "extracted_formula": "a/b", "metrics": {"cdm_score": 0.4},
         "human_study_scores": [7, 8, 8], "llm_scores": [{"judge_model": "j", "score": 8}]},
        {"gt_id": "p3", "gt_formula": "x^{2}", "extracted_formula": "x2", "metrics": {"cdm_score": 0.6},
         "human_study_scores": [2, 3, 1], "llm_scores": [{"judge_model": "j", "score": 3}]}
    ]);
    let path = d.path().join("study.json");
    std::fs::write(&path, study.to_string()).unwrap();
    // Our judge (the test server) agrees with the humans' order.
    let server = TestServer::start(|_, req| {
        let p = req.json()["messages"][0]["content"].as_str().unwrap_or("").to_string();
        let score = if p.contains("Extracted formula:\na+b") {
            10
        } else if p.contains("a/b") {
            7
        } else {
            1
        };
        Reply::Json(chat_json(&format!("{{\"score\": {score}}}"), "m"))
    });
    let db = d.path().join("c.db");
    let url = server.base_url();
    let out = run(corpus(&db).args(formula_args(&url, "m", &["--pairs"])).arg(&path));
    assert!(out.status.success());
    assert_eq!(server.calls(), 3);
    let judged = d.path().join("judged.jsonl");
    std::fs::write(&judged, &out.stdout).unwrap();
    // A dry run now has nothing to send.
    let out = run(corpus(&db).args(formula_args(&url, "m", &["--dry-run", "--pairs"])).arg(&path));
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 call(s) would be made"));
    assert_eq!(server.calls(), 3);

    let out = run(corpus(&db)
        .args(["correlate", "--format", "json", "--study"])
        .arg(&path)
        .arg("--column")
        .arg(format!("mine={}", judged.display())));
    assert!(out.status.success());
    let c = json(&out);
    let names: Vec<&str> =
        c.as_array().unwrap().iter().map(|m| m["metric"].as_str().unwrap()).collect();
    assert_eq!(names, ["judge:j (recorded)", "cdm_score (recorded)", "edit_sim", "mine"]);
    let mine = &c[3];
    assert_eq!(
        (mine["n"].as_u64(), mine["spearman"].as_f64(), mine["kendall"].as_f64()),
        (Some(3), Some(1.0), Some(1.0))
    );
}

#[test]
fn the_formula_study_table_is_reproduced() {
    let Some(dir) = crate::util::shared_data("formula-metric-study") else { return };
    let data = dir.join("formulas-dev.json");
    let d = tempfile::tempdir().unwrap();
    let out = run(corpus(&d.path().join("c.db"))
        .args(["correlate", "--format", "json", "--study"])
        .arg(&data));
    assert!(out.status.success());
    let c = json(&out);
    let get = |m: &str| {
        c.as_array()
            .unwrap()
            .iter()
            .find(|r| r["metric"] == m)
            .unwrap_or_else(|| panic!("no {m}"))
            .clone()
    };
    // Seven recorded judges, CDM, and corpus's edit similarity, each on the 125 pairs.
    assert_eq!(
        c.as_array()
            .unwrap()
            .iter()
            .filter(|r| r["metric"].as_str().unwrap().starts_with("judge:"))
            .count(),
        7
    );
    for r in c.as_array().unwrap() {
        assert_eq!(r["n"], 125, "{r}");
    }
    // Cross-checked with Python's statistics.correlation on the same file.
    let cdm = get("cdm_score (recorded)");
    assert!((cdm["pearson"].as_f64().unwrap() - 0.4261573185314027).abs() < 1e-9, "{cdm}");
    let gpt = get("judge:openai/gpt-5-mini (recorded)");
    assert!((gpt["pearson"].as_f64().unwrap() - 0.8403570282404266).abs() < 1e-9, "{gpt}");
    assert!(get("edit_sim")["pearson"].as_f64().is_some());
}
