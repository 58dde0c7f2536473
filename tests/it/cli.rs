//! End-to-end runs of the `corpus` binary.

use std::time::{Duration, Instant};

use corpus::store::Store;

use crate::util::{corpus, encrypted_pdf, json, run, sample_dir, tiny_pdf};

#[test]
fn ingest_the_sample_corpus_run_pdfium_twice_and_show() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let args = ["ingest", "--dataset", "sample", "--truth", "peerread", "--format", "json"];
    let out = run(corpus(&db).args(args).arg(sample_dir()));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!((s["files"].as_u64(), s["new_documents"].as_u64()), (Some(3), Some(3)));
    assert_eq!((s["truths_added"].as_u64(), s["new_pages"].as_u64()), (Some(3), Some(6)));

    // Re-ingesting is a no-op that says so.
    let again = run(corpus(&db).args(["ingest", "--dataset", "sample"]).arg(sample_dir()));
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("Nothing new"));
    // The same bytes in a second dataset are the same documents under new names.
    let other = run(corpus(&db)
        .args(["ingest", "--dataset", "copy", "--format", "json"])
        .arg(sample_dir()));
    let o = json(&other);
    assert_eq!((o["new_documents"].as_u64(), o["new_names"].as_u64()), (Some(0), Some(3)));

    let first = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--format", "json"]));
    assert!(first.status.success());
    let f = json(&first);
    assert_eq!(
        (f["documents"].as_u64(), f["ran"].as_u64(), f["ok"].as_u64()),
        (Some(3), Some(3), Some(3))
    );
    let second = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--format", "json"]));
    let s2 = json(&second);
    assert_eq!((s2["cached"].as_u64(), s2["ran"].as_u64()), (Some(3), Some(0)));

    let status = json(&run(corpus(&db).args(["status", "--format", "json"])));
    assert_eq!(status["documents"].as_u64(), Some(3));
    assert_eq!(status["outputs"][0]["provider"], "pdfium");
    assert_eq!(status["outputs"][0]["ok"].as_u64(), Some(3));

    let shown = run(corpus(&db).args(["show", "101", "--dataset", "sample"]));
    assert!(shown.status.success());
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("Robust Sequence Tagging"), "{text}");
    let as_json = run(corpus(&db).args(["show", "101", "--format", "json"]));
    let doc: corpus::doc::Doc = serde_json::from_slice(&as_json.stdout).unwrap();
    assert_eq!(doc.pages.len(), 2);

    let store = Store::open_read_only(&db).unwrap();
    let names: i64 = store
        .connection()
        .query_row("SELECT count(*) FROM v_outputs WHERE provider = 'pdfium'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(names, 6, "one v_outputs row per (output, document name)");
}

#[test]
fn bad_files_are_named_recorded_and_exit_3_while_the_batch_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    let good = tiny_pdf("a good page", "");
    std::fs::write(dir.join("good.pdf"), &good).unwrap();
    std::fs::write(dir.join("text.pdf"), b"just some text, not a PDF").unwrap();
    std::fs::write(dir.join("truncated.pdf"), &good[..good.len() / 3]).unwrap();
    std::fs::write(dir.join("locked.pdf"), encrypted_pdf()).unwrap();
    std::fs::write(dir.join("zz.pdf"), tiny_pdf("after the bad ones", "")).unwrap();
    std::fs::write(dir.join("zz.pdf.json"), b"{\"metadata\": {\"sections\": [").unwrap();
    let db = d.path().join("c.db");
    let out =
        run(corpus(&db).args(["ingest", "--truth", "peerread", "--format", "json"]).arg(&dir));
    assert_eq!(out.status.code(), Some(3));
    let s = json(&out);
    assert_eq!(s["new_documents"].as_u64(), Some(2));
    let errors: Vec<(String, String)> = s["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["path"].as_str().unwrap().to_string(), e["error"].as_str().unwrap().to_string())
        })
        .collect();
    let find = |file: &str| {
        errors.iter().find(|(p, _)| p.ends_with(file)).map(|(_, e)| e.clone()).unwrap_or_default()
    };
    assert!(find("text.pdf").contains("not a PDF"), "{errors:?}");
    assert!(find("truncated.pdf").contains("truncated or damaged"), "{errors:?}");
    assert!(find("locked.pdf").contains("encrypted"), "{errors:?}");
    assert!(find("zz.pdf.json").contains("malformed peerread"), "{errors:?}");
    assert_eq!(errors.len(), 4);
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.totals().unwrap(), (2, 2, 4));
    assert!(store.truths(None).unwrap().is_empty(), "nothing partial: the bad truth is not stored");
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

fn ingest_tiny(db: &std::path::Path, dir: &std::path::Path, docs: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, marker) in docs {
        std::fs::write(dir.join(format!("{name}.pdf")), tiny_pdf(name, marker)).unwrap();
    }
    let out = run(corpus(db).arg("ingest").arg(dir));
    assert!(out.status.success());
}

#[test]
fn a_crash_a_hang_and_a_failure_cost_one_document_each() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let docs = [
        ("a", ""),
        ("crash", "%CORPUS-CRASH\n"),
        ("b", ""),
        ("hang", "%CORPUS-HANG\n"),
        ("fail", "%CORPUS-FAIL\n"),
        ("c", ""),
    ];
    ingest_tiny(&db, &d.path().join("in"), &docs);
    let t0 = Instant::now();
    let args =
        ["ocr", "--provider", "test-faulty", "--jobs", "2", "--timeout", "2", "--format", "json"];
    let out = run(corpus(&db).args(args));
    assert!(t0.elapsed() < Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(3));
    let s = json(&out);
    assert_eq!((s["ok"].as_u64(), s["failed"].as_u64()), (Some(3), Some(3)));
    let failure = |name: &str| {
        s["failures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["document"] == name)
            .map(|f| f["error"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert!(failure("crash").contains("worker process died: killed by signal 6"), "{s}");
    assert!(failure("hang").contains("timed out after 2 s"), "{s}");
    assert_eq!(failure("fail"), "asked to fail by %CORPUS-FAIL");

    // Failures are cached: a re-run skips them unless asked to retry.
    let again =
        json(&run(corpus(&db).args(["ocr", "--provider", "test-faulty", "--format", "json"])));
    assert_eq!((again["ran"].as_u64(), again["cached_errors"].as_u64()), (Some(0), Some(3)));
    let retry_args = [
        "ocr",
        "--provider",
        "test-faulty",
        "--retry-errors",
        "--timeout",
        "1",
        "--format",
        "json",
    ];
    let retried = json(&run(corpus(&db).args(retry_args)));
    assert_eq!(retried["ran"].as_u64(), Some(3));
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.duplicate_outputs().unwrap(), 0);
}

#[test]
fn kill_9_mid_run_then_a_rerun_completes_with_a_sound_store() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let names: Vec<String> = (0..40).map(|i| format!("doc{i:02}")).collect();
    let docs: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "%CORPUS-SLOW\n")).collect();
    ingest_tiny(&db, &d.path().join("in"), &docs);

    let mut child = corpus(&db)
        .args(["ocr", "--provider", "test-faulty", "--jobs", "2", "-q"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let count = || -> i64 {
        let s = Store::open_read_only(&db).unwrap();
        s.connection().query_row("SELECT count(*) FROM outputs", [], |r| r.get(0)).unwrap()
    };
    let t0 = Instant::now();
    while count() < 5 {
        assert!(t0.elapsed() < Duration::from_secs(60), "the run never wrote an output");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let at_kill = count();
    assert!(at_kill < 40, "the run finished before it could be killed");

    let store = Store::open(&db).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    drop(store);
    let rerun =
        json(&run(corpus(&db).args(["ocr", "--provider", "test-faulty", "--format", "json"])));
    assert_eq!(rerun["cached"].as_u64().unwrap() + rerun["ran"].as_u64().unwrap(), 40);
    assert!(rerun["cached"].as_u64().unwrap() >= at_kill as u64);
    assert_eq!(rerun["failed"].as_u64(), Some(0));
    let store = Store::open(&db).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    assert_eq!(count(), 40);
    assert_eq!(store.duplicate_outputs().unwrap(), 0);
    let runs: (i64, i64) = store
        .connection()
        .query_row(
            "SELECT count(*), sum(finished_at IS NULL) FROM runs WHERE command = 'ocr'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(runs, (2, 1), "the killed run stays recorded as unfinished");
}

#[test]
fn usage_errors_are_clear() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    // A value not in this build's lists: exit 2, and the valid values named.
    let out = run(corpus(&db).args(["ocr", "--provider", "nope"]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("'nope'") && err.contains("pdfium, layout"), "{err}");
    assert!(err.contains("command") && err.contains("truth"), "{err}");
    let out = run(corpus(&db).args(["ingest", "x", "--truth", "nope"]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("olmocr-bench") && err.contains("icdar2013"), "{err}");
    let out = run(corpus(&db).args(["eval", "--suite", "nope"]));
    assert_eq!(out.status.code(), Some(2));
    let out = run(corpus(&db).args(["status"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no store there"));
    // Options that parse but do not fit together: exit 2 too, with what to give.
    ingest_tiny(&db, &d.path().join("in"), &[("a", "")]);
    for (args, says) in [
        (&["eval", "--suite", "table"][..], "give --provider"),
        (&["eval", "--suite", "omnidoc"][..], "give --provider"),
        (&["ocr", "--timeout", "0"][..], "positive number of seconds"),
        (&["ocr", "--provider", "command"][..], "needs --name"),
        (&["report", "--format", "parquet"][..], "give --output FILE"),
    ] {
        let out = run(corpus(&db).args(args));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A missing document is not a usage error.
    let out = run(corpus(&db).args(["show", "nope"]));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn sql_is_read_only_and_runs_are_listed() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    ingest_tiny(&db, &d.path().join("in"), &[("a", ""), ("b", "")]);
    let q = "SELECT count(*) AS n FROM v_documents WHERE dataset = :ds";
    let out = run(corpus(&db).args(["sql", q, "-p", "ds=default", "--format", "json"]));
    assert!(out.status.success());
    assert_eq!(json(&out), serde_json::json!([{"n": 2}]));
    let before = std::fs::read(&db).unwrap();
    let write = run(corpus(&db).args(["sql", "DELETE FROM document_names"]));
    assert_eq!(write.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&write.stderr).contains("read-only"));
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let runs = json(&run(corpus(&db).args(["runs", "--format", "json"])));
    assert_eq!(runs[0]["command"], "ingest");
    assert!(runs[0]["finished_at"].is_string());
}

#[test]
fn a_pdf_that_crashes_or_hangs_the_page_counter_costs_that_file_only() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.pdf"), tiny_pdf("a", "")).unwrap();
    std::fs::write(dir.join("b_crash.pdf"), tiny_pdf("b", "%CORPUS-PAGES-CRASH\n")).unwrap();
    std::fs::write(dir.join("c.pdf"), tiny_pdf("c", "")).unwrap();
    std::fs::write(dir.join("d_hang.pdf"), tiny_pdf("d", "%CORPUS-PAGES-HANG\n")).unwrap();
    std::fs::write(dir.join("e.pdf"), tiny_pdf("e", "")).unwrap();
    let db = d.path().join("c.db");
    let args = ["ingest", "--timeout", "2", "--format", "json"];
    let out = run(corpus(&db).args(args).arg(&dir));
    assert_eq!(out.status.code(), Some(3));
    let s = json(&out);
    assert_eq!(s["new_documents"].as_u64(), Some(3), "{s}");
    let errors = s["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{s}");
    assert!(errors[0]["path"].as_str().unwrap().ends_with("b_crash.pdf"));
    assert!(errors[0]["error"].as_str().unwrap().contains("worker process died"), "{s}");
    assert!(errors[1]["path"].as_str().unwrap().ends_with("d_hang.pdf"));
    assert!(errors[1]["error"].as_str().unwrap().contains("timed out after 2 s"), "{s}");
}

#[test]
fn score_reads_json_lines_scores_each_and_names_the_bad_ones() {
    let d = tempfile::tempdir().unwrap();
    let pairs = d.path().join("pairs.jsonl");
    let gt =
        "<table><tr><td>Model</td><td>Acc</td></tr><tr><td>base</td><td>71.2</td></tr></table>";
    let lines = [
        serde_json::json!({"id": "same", "gt": gt, "pred": gt}).to_string(),
        String::from("{not json"),
        serde_json::json!({"id": "one cell", "gt": gt, "pred": gt.replace("71.2", "71.3")})
            .to_string(),
        serde_json::json!({"id": "no table", "gt": gt, "pred": "Model Acc base 71.2"}).to_string(),
        serde_json::json!({"id": "no pred", "gt": gt}).to_string(),
    ];
    std::fs::write(&pairs, lines.join("\n") + "\n").unwrap();
    // No store is opened or created.
    let db = d.path().join("never.db");
    let out = run(corpus(&db).args(["score", "--metric", "teds"]).arg(&pairs));
    assert_eq!(out.status.code(), Some(3), "some lines failed");
    assert!(!db.exists());
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 5, "every line comes back, in order");
    assert_eq!(rows[0]["id"], "same");
    assert_eq!(rows[0]["score"], 1.0);
    assert!(rows[1]["error"].as_str().unwrap().contains("line 2: not JSON"), "{}", rows[1]);
    // 6 elements (2 rows, 4 cells); one cell's text differs in 1 of 4 characters.
    let s = rows[2]["score"].as_f64().unwrap();
    assert!((s - (1.0 - 0.25 / 6.0)).abs() < 1e-12, "{s}");
    // Prose on one side: read as Markdown (no notation given), which holds no table.
    let e = rows[3]["error"].as_str().unwrap();
    assert!(e.contains("line 4: pred (markdown): no Markdown table"), "{e}");
    assert!(rows[4]["error"].as_str().unwrap().contains("no `pred` field"));
    // Edit distance on the same lines: strings are strings.
    let out = run(corpus(&db)
        .args(["score", "--metric", "edit", "-o"])
        .arg(d.path().join("o.jsonl"))
        .arg(&pairs));
    assert_eq!(out.status.code(), Some(3));
    let text = std::fs::read_to_string(d.path().join("o.jsonl")).unwrap();
    let no_table: serde_json::Value = serde_json::from_str(text.lines().nth(3).unwrap()).unwrap();
    assert!(no_table["score"].as_f64().unwrap() > 0.5, "{no_table}");
}
