//! The `olmocr` suite end to end: `ingest --truth olmocr-bench`, `import` of olmOCR's
//! per-page repeats, `eval --suite olmocr`, `show TEST --suite olmocr`.

use std::path::{Path, PathBuf};

use corpus::metrics::olmocr::{
    add_default_baselines, is_page_file, is_repeat_of, load_tests, overall_score, score_test,
    ExactMathOnly,
};

use corpus::external::chromium::BrowserKatex;
use corpus::external::katex::KatexRenderer;
use corpus::metrics::katex::{compare, Comparison};

use crate::util::{corpus, json, run, shared_data, skip_or_fail, tiny_pdf};

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

/// The tests olmOCR-bench's runner (olmocr 0.4.27, KaTeX in Chromium) fails on the sample
/// (`bench/olmocr_reference.sh`).
const RUNNER_FAILING: [&str; 13] = [
    "building_notes_02",
    "discoverworld_crazy_table4_02",
    "earnings_table00",
    "ff3d6e051903fe5ca9bc172ece14964c5632_01a",
    "headers_footers/ffaac214730d2b8c2ec842e3618ccb9c4259_pg1.pdf_baseline",
    "lincoln_letter_minediff_00",
    "mathfuncs_06",
    "mathfuncscol_01",
    "mattsnotes_minediff_03",
    "olmo2-discoverworld_crazy_table4_t02",
    "olmo2-pg4_table08",
    "test_graphical_text_00",
    "test_graphical_text_01",
];

/// The three math tests the runner passes only by its positional glyph comparison.
const BY_LAYOUT: [&str; 3] = ["math_2503_04086_00", "math_2503_04086_02", "math_2503_04086_03"];

/// `eval --suite olmocr` (math as the runner: KaTeX in Chromium) gives the runner's numbers.
fn math_in_chromium(db: &Path) {
    let out = run(corpus(db).args([
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
    assert_eq!(failing_ids(c), RUNNER_FAILING.map(String::from).to_vec());
    assert!(text.contains("\"overall\": 0.9429292929292931,"), "{text}");
    assert_eq!(c["without_browser"].as_array().map(Vec::len), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("without the browser"), "{stderr}");
}

/// Without a browser (`--math mathml`, or the default when Chromium cannot start): MathML
/// alone decides what it can, the three tests that need the glyph layout fail and are named in
/// the JSON, the stored traces and a warning; the rows go to suite `olmocr-mathml`.
fn math_without_browser(db: &Path) {
    let missing = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/browser/absent.mjs");
    for fallback in [false, true] {
        let mut cmd = corpus(db);
        cmd.args(["eval", "--suite", "olmocr", "--provider", "olmocr", "--format", "json"]);
        if fallback {
            cmd.env("CORPUS_KATEX_BROWSER_SCRIPT", &missing);
        } else {
            cmd.args(["--math", "mathml"]);
        }
        let out = run(&mut cmd);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let k = json(&out);
        assert_eq!(k["suite"], "olmocr-mathml");
        let c = &k["candidates"][0];
        let mut expected: Vec<String> =
            RUNNER_FAILING.iter().chain(&BY_LAYOUT).map(|s| s.to_string()).collect();
        expected.sort();
        assert_eq!(failing_ids(c), expected);
        assert!(text.contains("\"overall\": 0.9328282828282829,"), "{text}");
        assert_eq!(c["without_browser"], serde_json::json!(BY_LAYOUT));
        for t in c["tests"].as_array().unwrap() {
            let by_layout = BY_LAYOUT.contains(&t["id"].as_str().unwrap());
            assert_eq!(t["needs_browser"].as_bool().unwrap_or(false), by_layout, "{t}");
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("3 math test(s) of olmocr@") && stderr.contains(BY_LAYOUT[1]),
            "{stderr}"
        );
        assert_eq!(stderr.contains("no headless Chromium for KaTeX"), fallback, "{stderr}");
        // Cached the second time: the flags come back from the stored traces.
        assert_eq!(k["cached"].as_u64(), Some(if fallback { 21 } else { 0 }));
    }
    let out = run(corpus(db).args(["show", BY_LAYOUT[0], "--suite", "olmocr-mathml"]));
    assert!(out.status.success());
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("browser's glyph layout"), "{shown}");
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

    // `report` shows the same overall interval, and each group's (issue 35): the olmOCR
    // bootstrap over tests, not a bootstrap over the one document the suite stores it on.
    let out = run(corpus(&db).args([
        "report",
        "--suite",
        "olmocr-exact",
        "--by",
        "provider",
        "--format",
        "json",
    ]));
    let r = &json(&out)[0];
    assert!((r["overall_lo"].as_f64().unwrap() - lo).abs() < 1e-12, "{r}");
    assert!((r["overall_hi"].as_f64().unwrap() - hi).abs() < 1e-12, "{r}");
    let (glo, ghi) = (r["group_score:dataset_lo"].as_f64(), r["group_score:dataset_hi"].as_f64());
    let g = r["group_score:dataset"].as_f64().unwrap();
    assert!(glo.unwrap() < g && g < ghi.unwrap(), "{r}");

    // Again: every document is already scored, same numbers.
    let again = eval_json(&db, "olmocr");
    assert_eq!((again["scored"].as_u64(), again["cached"].as_u64()), (Some(0), Some(21)));

    // Math rendered with KaTeX: in Chromium as the runner does (suite `olmocr`), or without a
    // browser (suite `olmocr-mathml`), beside the exact-only rows of `olmocr-exact`, never
    // mixed with them.
    if !std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/katex/node_modules/katex")
        .is_dir()
    {
        skip_or_fail("scripts/katex has no KaTeX: run `npm ci --prefix scripts/katex`");
    } else {
        math_without_browser(&db);
        match BrowserKatex::start(&BrowserKatex::default_script(), None) {
            Err(e) => skip_or_fail(&format!("the olmocr math part in Chromium: {e}")),
            Ok(_) => math_in_chromium(&db),
        }
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
    // Each PDF carries its groups and test types as attributes (docs/guide/olmocr.md):
    // `report --by attribute:olmocr_group` has one row per group mix.
    let out = run(corpus(&db)
        .args(["report", "--suite", "olmocr-exact", "--provider", "vlm"])
        .args(["--by", "attribute:olmocr_group", "--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let groups: std::collections::BTreeSet<String> = json(&out)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["olmocr_group"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(groups, ["t", "u"].map(String::from).into(), "{}", json(&out));

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

/// KaTeX in Debian's headless chromium (scripts/browser/katex.mjs): render.py's spans and
/// MathML, one browser and one cache for the run, and the runner's positional comparison on
/// real boxes. Skips without chromium, node or the npm packages; under `CI=true` that fails.
#[test]
fn chromium_renders_katex_as_the_runner_does() {
    let b = match BrowserKatex::start(&BrowserKatex::default_script(), None) {
        Ok(b) => b,
        Err(e) => return skip_or_fail(&e.to_string()),
    };
    assert_eq!(b.katex_version(), corpus::metrics::katex::KATEX_VERSION);
    let texs = ["a^{2}+b^{2}=c^{2}", "\\frac{a}{b}", "\\frac{b}{a}", "\\text{a b}<c", "\\frac{1}{"];
    b.render_batch(&texs).unwrap();
    b.render_batch(&texs[..2]).unwrap();
    assert_eq!((b.cached(), b.batches()), (5, 1), "each formula rendered once, in one batch");
    let get = |t: &str| b.render_checked(t).unwrap();
    let a = get(texs[0]);
    // The inner-most spans render.py records, in document order, at 24 px.
    let boxes = a.boxes.as_ref().unwrap();
    let text: String = boxes.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(text, "a2+b2=c2");
    assert!(boxes.iter().all(|s| s.width > 0.0 && s.height > 10.0), "{boxes:?}");
    assert!(boxes[1].y < boxes[0].y, "the exponent sits higher than its base");
    assert!(boxes.windows(2).all(|w| w[0].x < w[1].x), "left to right");
    // The MathML key equals the one computed from KaTeX's markup under node (verified against
    // lxml + BeautifulSoup), here and for a text with a no-break space.
    if let Ok(node) = KatexRenderer::start(&KatexRenderer::default_dir()) {
        for t in &texs[..4] {
            assert_eq!(get(t).key, node.render_checked(t).unwrap().key, "{t}");
            assert_eq!(get(t).chars, node.render_checked(t).unwrap().chars, "{t}");
        }
    }
    // A KaTeX error is a render without spans whose MathML is the message.
    let e = get(texs[4]);
    assert!(e.error.as_deref().is_some_and(|m| m.starts_with("KaTeX parse error")));
    assert_eq!(e.boxes.as_deref(), Some(&[][..]));
    // Same glyphs stacked the other way: the browser decides (no longer "needs layout").
    assert_eq!(compare(&get("\\frac{a}{b}"), &get("\\frac{b}{a}")), Comparison::LayoutMismatch);
    // x^2 is not in y = x^2 + 1's MathML (KaTeX wraps a lone superscript in an mrow), but its
    // glyphs sit the same way there: the positional step passes it, as in the runner.
    assert_eq!(compare(&get("x^{2}"), &get("y = x^2 + 1")), Comparison::LayoutMatch);
    assert!(b.failure().is_none());
}
