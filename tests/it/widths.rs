//! Tables that fit a terminal: every command's default table on the sample corpus (the steps of
//! `scripts/sample.sh`, and `runs`, `providers`) is at most 120 characters wide; a report with
//! more metrics than fit shows the suites' headline metrics and says how to see all; what a
//! table cuts with `…`, JSON shows whole. And a usage error (exit 2) writes nothing.

use std::path::Path;

use crate::util::{corpus, json, run, sample_dir};

/// The widest line of stdout, in characters.
fn widest(out: &std::process::Output) -> usize {
    String::from_utf8_lossy(&out.stdout).lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

fn sample_store(db: &Path) {
    for args in [
        &["ingest", "--dataset", "sample", "--truth", "peerread"][..],
        &["ocr", "--provider", "pdfium"],
        &["eval", "--suite", "paper", "--provider", "pdfium"],
        &["eval", "--suite", "paper", "--provider", "truth"],
    ] {
        let mut c = corpus(db);
        c.args(args);
        if args[0] == "ingest" {
            c.arg(sample_dir());
        }
        let out = run(&mut c);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn default_tables_fit_120_columns_and_json_keeps_every_field_whole() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    sample_store(&db);
    let commands: [&[&str]; 9] = [
        &["runs"],
        &["providers"],
        &["status"],
        &["eval", "--suite", "paper", "--provider", "pdfium"],
        &["report", "--suite", "paper", "--by", "provider"],
        &["report", "--by", "provider"],
        &["report", "--suite", "paper"],
        &["report", "--suite", "paper", "--by", "dataset"],
        &["report", "--suite", "paper", "--fields", "--by", "provider"],
    ];
    for args in commands {
        let out = run(corpus(&db).args(args));
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let w = widest(&out);
        assert!(w <= 120, "{args:?}: {w} columns\n{}", String::from_utf8_lossy(&out.stdout));
    }
    // The report shows the headline metrics and says how to see all of them.
    let out = run(corpus(&db).args(["report", "--suite", "paper", "--by", "provider"]));
    let text = String::from_utf8_lossy(&out.stdout);
    let head = text.lines().next().unwrap();
    assert!(head.contains("text_r") && !head.contains("text_p"), "{text}");
    let note = String::from_utf8_lossy(&out.stderr);
    assert!(
        note.contains("showing the headline metrics") && note.contains("--metric all"),
        "{note}"
    );
    // --metric all: every metric, however wide.
    let all = run(
        corpus(&db).args(["report", "--suite", "paper", "--by", "provider", "--metric", "all"])
    );
    assert!(String::from_utf8_lossy(&all.stdout).lines().next().unwrap().contains("text_p"));
    // A cut field ends in `…` in the table and is whole in JSON: the runs' arguments.
    let table = String::from_utf8_lossy(&run(corpus(&db).arg("runs")).stdout).into_owned();
    assert!(table.contains('…'), "{table}");
    let runs = json(&run(corpus(&db).args(["runs", "--format", "json"])));
    let counts = runs[0]["counts"].as_str().unwrap().to_string();
    assert!(counts.chars().count() > 40 && !counts.contains('…'), "{counts}");
    // eval and report name the metrics alike.
    let eval = run(corpus(&db).args(["eval", "--suite", "paper", "--provider", "pdfium"]));
    let head = String::from_utf8_lossy(&eval.stdout).lines().next().unwrap().to_string();
    for id in ["text_r", "tbl_num_cov", "formula", "order", "ref_r", "men_r"] {
        assert!(head.split_whitespace().any(|h| h == id), "{id} in {head}");
    }
}

/// A usage error (exit 2) writes nothing: no run is started, no row is stored.
#[test]
fn usage_errors_store_nothing() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db).args(["ingest", "--dataset", "sample"]).arg(sample_dir()));
    assert!(out.status.success());
    let count = |sql: &str| {
        let out = run(corpus(&db).args(["sql", sql, "--format", "json"]));
        json(&out)[0]["n"].as_i64().unwrap()
    };
    let runs = count("SELECT count(*) AS n FROM runs");
    let outputs = count("SELECT count(*) AS n FROM outputs");
    let md = d.path().join("md");
    std::fs::create_dir_all(&md).unwrap();
    let bad: [&[&str]; 10] = [
        &["eval", "--suite", "table"],
        &["eval", "--suite", "omnidoc"],
        &["eval", "--suite", "formula"],
        &["eval", "--suite", "parsebench"],
        &["ocr", "--provider", "pdfium", "--timeout", "0"],
        &["ocr", "--provider", "pdfium", "--gpu-price", "1"],
        &["ocr", "--provider", "pdfium", "--argv", "x {pdf}"],
        &["ocr", "--provider", "openai"],
        &["ocr", "--provider", "openai", "--prompt", "markdown", "--model", "m"],
        &["ingest", "--timeout", "0", "."],
    ];
    for args in bad {
        let out = run(corpus(&db).args(args));
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out =
        run(corpus(&db).args(["import", "--provider", "bad id", "--format", "markdown"]).arg(&md));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(count("SELECT count(*) AS n FROM runs"), runs, "a usage error started a run");
    assert_eq!(count("SELECT count(*) AS n FROM outputs"), outputs);
}
