//! The `olmocr` suite end to end: `ingest --truth olmocr-bench`, `import` of olmOCR's
//! per-page repeats, `eval --suite olmocr`, `show TEST --suite olmocr`.

use std::path::{Path, PathBuf};

use corpus::metrics::olmocr::{
    add_default_baselines, is_page_file, is_repeat_of, load_tests, overall_score, score_test,
    ExactMathOnly,
};

use crate::util::{corpus, json, run, shared_data, tiny_pdf};

fn eval_json(db: &Path, provider: &str) -> serde_json::Value {
    eval_out(db, provider).1
}

/// The eval's JSON, as text (serde_json's parser rounds some floats by an ulp) and parsed.
fn eval_out(db: &Path, provider: &str) -> (String, serde_json::Value) {
    let out = run(corpus(db)
        .args(["eval", "--suite", "olmocr", "--math", "exact", "--provider", provider])
        .args(["--format", "json"]));
    assert!(out.status.success());
    (String::from_utf8_lossy(&out.stdout).into_owned(), json(&out))
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

fn walk(dir: &Path, root: &Path, ext: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            walk(&p, root, ext, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some(ext) {
            out.push(p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The port run directly on the folder, as olmOCR-bench's runner reads it: the failing ids
/// and the overall score.
fn port_on_folder(dir: &Path, candidate: &str) -> (Vec<String>, f64) {
    let mut pdfs = Vec::new();
    walk(&dir.join("pdfs"), &dir.join("pdfs"), "pdf", &mut pdfs);
    pdfs.sort();
    let mut jsonls: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    jsonls.sort();
    let mut tests = Vec::new();
    for p in &jsonls {
        let group = p.file_stem().unwrap().to_string_lossy().into_owned();
        let ts = load_tests(&std::fs::read_to_string(p).unwrap()).unwrap();
        tests.extend(ts.into_iter().map(|t| (group.clone(), t)));
    }
    add_default_baselines(&mut tests, &pdfs);
    let cand = dir.join(candidate);
    let mut mds = Vec::new();
    walk(&cand, &cand, "md", &mut mds);
    let mut results = Vec::new();
    let mut failing = Vec::new();
    for (group, test) in &tests {
        let b = test.base();
        let texts: Vec<Option<String>> = mds
            .iter()
            .filter(|m| is_repeat_of(&b.pdf, m) && is_page_file(m, b.page))
            .map(|m| std::fs::read_to_string(cand.join(m)).ok())
            .collect();
        let refs: Vec<Option<&str>> = texts.iter().map(|t| t.as_deref()).collect();
        let o = score_test(test, &refs, &ExactMathOnly);
        if !o.passed {
            failing.push(b.id.clone());
        }
        results.push((group.clone(), o.passed));
    }
    failing.sort();
    (failing, overall_score(&results))
}

fn failing_ids(c: &serde_json::Value) -> Vec<String> {
    let mut ids: Vec<String> = c["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["passed"] == false)
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
fn olmocr_bench_sample_scores_as_the_port_does() {
    let Some(dir) = shared_data("olmocr-bench/sample_data") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--dataset", "olmocr", "--truth", "olmocr-bench", "--format", "json"])
        .arg(&dir));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!((s["new_documents"].as_u64(), s["truths_added"].as_u64()), (Some(21), Some(21)));
    let out = run(corpus(&db)
        .args(["import", "--provider", "olmocr", "--format", "markdown", "--print", "json"])
        .arg(dir.join("olmocr_pipeline")));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!((s["imported"].as_u64(), s["documents"].as_u64()), (Some(23), Some(21)));

    let (text, e) = eval_out(&db, "olmocr");
    assert_eq!((e["scored"].as_u64(), e["cached"].as_u64()), (Some(21), Some(0)));
    let c = &e["candidates"][0];
    assert_eq!(c["tests"].as_array().unwrap().len(), 120);
    let failing = failing_ids(c);
    assert_eq!(failing.len(), 24);
    // olmocr 0.4.27 run the same way (math by exact match only) gives this overall.
    assert!(text.contains("\"overall\": 0.9058922558922559,"), "{text}");
    let (port_failing, port_overall) = port_on_folder(&dir, "olmocr_pipeline");
    assert_eq!(failing, port_failing);
    assert_eq!(port_overall, 0.9058922558922559);
    let (lo, hi) = (c["ci95"][0].as_f64().unwrap(), c["ci95"][1].as_f64().unwrap());
    assert!(lo < port_overall && port_overall < hi, "{lo} {hi}");

    // Again: every document is already scored, same numbers.
    let again = eval_json(&db, "olmocr");
    assert_eq!((again["scored"].as_u64(), again["cached"].as_u64()), (Some(0), Some(21)));

    // Math rendered with KaTeX (as the runner does before its layout comparison): stored under
    // suite `olmocr`, beside the exact-only rows of `olmocr-exact`, never mixed with them.
    if !std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/katex/node_modules/katex")
        .is_dir()
    {
        eprintln!("skipping the KaTeX part: run `npm ci --prefix scripts/katex`");
    } else {
        let out = run(corpus(&db).args([
            "eval",
            "--suite",
            "olmocr",
            "--provider",
            "olmocr",
            "--format",
            "json",
        ]));
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let k = json(&out);
        assert_eq!(k["suite"], "olmocr");
        let c = &k["candidates"][0];
        assert_eq!(c["tests"].as_array().unwrap().len(), 120);
        // The official runner fails 13; the 3 more here pass there only by its browser-layout
        // glyph comparison (math_2503_04086_00/02/03).
        assert_eq!(failing_ids(c).len(), 16);
        assert!(text.contains("\"overall\": 0.9328282828282829,"), "{text}");
        let exact = eval_json(&db, "olmocr");
        assert_eq!(exact["suite"], "olmocr-exact");
        assert_eq!(exact["cached"].as_u64(), Some(21), "the exact-only rows are untouched");
    }
    assert_eq!(again["candidates"][0]["overall"], c["overall"]);
    assert_eq!(failing_ids(&again["candidates"][0]), failing);

    // The stored rows: one per test, one pass_rate per document, groups and overall once.
    let q = |sql: &str| {
        let out = run(corpus(&db).args(["sql", "--format", "json", sql]));
        assert!(out.status.success());
        json(&out)
    };
    let n = q(
        "SELECT count(*) AS n FROM v_latest_scores WHERE suite = 'olmocr-exact' AND metric LIKE 'pass:%'",
    );
    assert_eq!(n[0]["n"].as_i64(), Some(120));
    let overall =
        q("SELECT value FROM v_latest_scores WHERE suite = 'olmocr-exact' AND metric = 'overall'");
    assert_eq!(overall.as_array().unwrap().len(), 1);
    assert!(close(overall[0]["value"].as_f64(), 0.9058922558922559), "{overall}");

    let out = run(corpus(&db).args(["show", "building_notes_02", "--suite", "olmocr-exact"]));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL") && text.contains("best match for text (score 0.800)"), "{text}");
}

/// A bench folder of two tiny PDFs (one in a subfolder), a test file with a malformed line,
/// and three repeats of one page: the repeat rule, the added baselines, the macro average.
#[test]
fn repeats_baselines_and_bad_lines_on_a_tiny_bench() {
    let d = tempfile::tempdir().unwrap();
    let bench = d.path().join("bench");
    std::fs::create_dir_all(bench.join("pdfs/sub")).unwrap();
    std::fs::write(bench.join("pdfs/a.pdf"), tiny_pdf("Hello world", "")).unwrap();
    std::fs::write(bench.join("pdfs/sub/b.pdf"), tiny_pdf("Only half", "")).unwrap();
    let t = [
        r#"{"pdf": "a.pdf", "page": 1, "id": "a_present", "type": "present", "text": "Hello world"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "a_absent", "type": "absent", "text": "SECRET"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "bad", "type": "present"}"#,
    ];
    std::fs::write(bench.join("t.jsonl"), t.join("\n") + "\n").unwrap();
    let u = r#"{"pdf": "sub/b.pdf", "page": 1, "id": "b_present", "type": "present", "text": "Only half"}"#;
    std::fs::write(bench.join("u.jsonl"), u).unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "olmocr-bench", "--format", "json"])
        .arg(&bench));
    assert_eq!(out.status.code(), Some(3), "a malformed line is a per-line error");
    let s = json(&out);
    assert_eq!((s["new_documents"].as_u64(), s["truths_added"].as_u64()), (Some(2), Some(2)));
    let errors = s["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0]["path"].as_str().unwrap().ends_with("t.jsonl:3"), "{errors:?}");
    assert!(errors[0]["error"].as_str().unwrap().contains("malformed olmocr-bench test"));

    let md = d.path().join("md");
    std::fs::create_dir_all(md.join("sub")).unwrap();
    for (name, text) in [
        ("a_pg1_repeat1.md", "Hello world"),
        ("a_pg1_repeat2.md", "**Hello** world"),
        ("a_pg1_repeat3.md", "Goodbye SECRET"),
        ("sub/b_pg1_repeat1.md", "Only half"),
        ("sub/b_pg1_repeat2.md", "nothing here"),
    ] {
        std::fs::write(md.join(name), text).unwrap();
    }
    let out =
        run(corpus(&db).args(["import", "--provider", "vlm", "--format", "markdown"]).arg(&md));
    assert!(out.status.success());
    let e = eval_json(&db, "vlm");
    let c = &e["candidates"][0];
    let test =
        |id: &str| c["tests"].as_array().unwrap().iter().find(|t| t["id"] == id).unwrap().clone();
    // 2 of 3 repeats pass: passed. 1 of 2: a value of 0.5 is not above 0.5.
    assert_eq!(test("a_present")["passed"], true);
    assert!((test("a_present")["value"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(test("a_absent")["passed"], true);
    assert_eq!(
        (test("b_present")["value"].as_f64(), test("b_present")["passed"].as_bool()),
        (Some(0.5), Some(false))
    );
    assert_eq!(test("sub/b.pdf_baseline")["group"], "baseline");
    assert_eq!(c["tests"].as_array().unwrap().len(), 5);
    // Groups t (1.0), u (0.0), baseline (1.0): the overall is their mean.
    assert!((c["overall"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12, "{c}");

    // Outputs without their Markdown are rendered from the Doc: plain text, one output each.
    let txt = d.path().join("txt");
    std::fs::create_dir_all(txt.join("sub")).unwrap();
    std::fs::write(txt.join("a.txt"), "Hello\nworld").unwrap();
    std::fs::write(txt.join("sub/b.txt"), "Only half").unwrap();
    assert!(run(corpus(&db).args(["import", "--provider", "txt", "--format", "text"]).arg(&txt))
        .status
        .success());
    let e = eval_json(&db, "txt");
    assert!(close(e["candidates"][0]["overall"].as_f64(), 1.0), "{e}");

    let out = run(corpus(&db).args([
        "show",
        "b_present",
        "--suite",
        "olmocr-exact",
        "--provider",
        "vlm",
    ]));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("b_present FAIL: 1 of 2 repeat(s) passed"), "{text}");
    assert!(text.contains("repeat 2: fail"), "{text}");
}
