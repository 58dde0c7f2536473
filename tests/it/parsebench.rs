//! The parsebench suite end to end on the project's own test cases (`tests/fixtures/parsebench`:
//! rule files written for this project in ParseBench's JSON-lines layout, the truth Markdown,
//! two providers' Markdown and every rule's expected result per provider), with the one-page
//! PDFs of `examples/parsebench_cases.rs`: ingest (rule types not run named), import, eval (each rule's result as
//! expected, the dimensions as ParseBench aggregates them), GT-vs-GT (in `gt_vs_gt.rs`) and
//! `show`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{corpus, json, run};

/// The fixture folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parsebench")
}

/// The example that writes the cases (its `main` unused here).
#[allow(dead_code)]
#[path = "../../examples/parsebench_cases.rs"]
mod cases;

/// A ParseBench folder in `dir`: the fixture's rule files and Markdown map, and a one-page PDF
/// for every document the Markdown map names, as `examples/parsebench_cases.rs` writes them
/// (a layout document's page holds its Markdown's lines at known places).
pub fn make_cases(dir: &Path) {
    cases::write_cases(dir);
}

/// `ingest --truth parsebench` of a fresh folder; returns the summary.
pub fn ingest_cases(db: &Path, dir: &Path) -> Value {
    make_cases(dir);
    let out = run(corpus(db)
        .args(["ingest", "--truth", "parsebench", "--dataset", "pb", "--format", "json"])
        .arg(dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    json(&out)
}

/// Every rule's result in an eval summary: id -> passed (`None`: not run).
pub fn rule_results(s: &Value) -> std::collections::BTreeMap<String, Option<bool>> {
    let mut out = std::collections::BTreeMap::new();
    for d in s["documents_scored"].as_array().unwrap() {
        for c in d["cases"].as_array().unwrap() {
            for r in c["rules"].as_array().unwrap() {
                out.insert(r["id"].as_str().unwrap().to_string(), r["passed"].as_bool());
            }
        }
    }
    out
}

/// The expected result of every rule for `provider` (`truth`, `good`, `bad`), as ParseBench's
/// evaluator gave it (`bench/parsebench_agreement.sh`).
pub fn expected(provider: &str) -> std::collections::BTreeMap<String, Option<bool>> {
    let v: Value =
        serde_json::from_slice(&std::fs::read(fixtures().join("expected.json")).unwrap()).unwrap();
    v["rules"][provider]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_bool()))
        .collect()
}

fn eval(db: &Path, provider: &str) -> Value {
    let out = run(corpus(db).args([
        "eval",
        "--suite",
        "parsebench",
        "--provider",
        provider,
        "--format",
        "json",
    ]));
    assert!(out.status.success(), "{provider}: {}", String::from_utf8_lossy(&out.stderr));
    json(&out)
}

fn dimension(s: &Value, name: &str) -> (Option<f64>, u64, u64) {
    let d = s["dimensions"].as_array().unwrap().iter().find(|d| d["category"] == name).unwrap();
    (d["value"].as_f64(), d["cases"].as_u64().unwrap(), d["rules_not_run"].as_u64().unwrap())
}

#[test]
fn parsebench_rules_pass_and_fail_as_written_and_aggregate_per_dimension() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let cases = d.path().join("ParseBench");
    std::fs::create_dir_all(&cases).unwrap();
    let s = ingest_cases(&db, &cases);
    assert_eq!(s["new_documents"], 21, "{s}");
    assert!(s["errors"].as_array().unwrap().is_empty(), "{s}");
    // Every rule type of the cases runs (ingest names none as not run).
    assert!(s["rules_not_run"].as_object().is_none_or(|m| m.is_empty()), "{s}");
    for (provider, dir) in [("pb-good", "good"), ("pb-bad", "bad")] {
        let out = run(corpus(&db)
            .args(["import", "--provider", provider, "--format", "markdown", "--print", "json"])
            .arg(fixtures().join("outputs").join(dir)));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(json(&out)["imported"], 21);
        let s = eval(&db, provider);
        assert!(s["failures"].as_array().unwrap().is_empty(), "{s}");
        let got = rule_results(&s);
        let want = expected(dir);
        let wrong: Vec<String> = want
            .iter()
            .filter(|(id, w)| got.get(*id) != Some(w))
            .map(|(id, w)| format!("{id}: got {:?}, want {w:?}", got.get(id)))
            .collect();
        assert!(wrong.is_empty(), "{provider}: {}", wrong.join("; "));
        // Six dimensions, as the leaderboard shows them, all computed by this build.
        let names: Vec<&str> = s["dimensions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["category"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["table", "chart", "text_content", "text_formatting", "layout", "form"]);
        // ParseBench's figures on the same Markdown. Layout: an imported Markdown has no boxes,
        // 0 (the ignored element is the one rule not run).
        let v: Value =
            serde_json::from_slice(&std::fs::read(fixtures().join("expected.json")).unwrap())
                .unwrap();
        let dims = [
            ("text_content", 4, 0),
            ("text_formatting", 5, 0),
            ("chart", 4, 0),
            ("table", 5, 0),
            ("layout", 6, 1),
            ("form", 3, 0),
        ];
        for (name, cases, not_run) in dims {
            let (got, n, nr) = dimension(&s, name);
            let want = v["dimensions"][dir][name].as_f64().unwrap();
            assert!((got.unwrap() - want).abs() < 1e-12, "{dir} {name}: {got:?}, want {want}");
            assert_eq!((n, nr), (cases, not_run), "{name}");
        }
        assert_eq!(dimension(&s, "layout").0, Some(0.0));
    }
    // `show` names each failed rule, what it looked for and the closest match.
    let out =
        run(corpus(&db).args(["show", "text/t2", "--suite", "parsebench", "--provider", "pb-bad"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("text_content: rule_pass_rate"), "{text}");
    assert!(text.contains("FAIL 0.000  present  t2-first-n"), "{text}");
    assert!(text.contains("looked for: methods"), "{text}");
    assert!(text.contains("best match"), "{text}");
    let out = run(corpus(&db).args([
        "show",
        "table/tb1",
        "--suite",
        "parsebench",
        "--provider",
        "pb-bad",
    ]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL 0.000  table  tb1-table"), "{text}");
}

/// The layout cases on corpus's pdfium provider (boxes from the PDF's text layer): each element
/// passes or fails as ParseBench's `LayoutDetectionEvaluator` decided on the same blocks
/// (`bench/parsebench_agreement.sh`), and the `layout` dimension is its figure.
#[test]
fn parsebench_layout_cases_on_pdfium_boxes() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let cases = d.path().join("pb");
    std::fs::create_dir_all(&cases).unwrap();
    ingest_cases(&db, &cases);
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = eval(&db, "pdfium");
    assert!(s["failures"].as_array().unwrap().is_empty(), "{s}");
    let got = rule_results(&s);
    let want = expected("pdfium");
    assert!(want.len() >= 19 && want.values().any(|p| *p == Some(true)), "{want:?}");
    assert!(want.values().any(|p| *p == Some(false)), "{want:?}");
    let wrong: Vec<String> = want
        .iter()
        .filter(|(id, w)| got.get(*id) != Some(w))
        .map(|(id, w)| format!("{id}: got {:?}, want {w:?}", got.get(id)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("; "));
    let v: Value =
        serde_json::from_slice(&std::fs::read(fixtures().join("expected.json")).unwrap()).unwrap();
    let want = v["dimensions"]["pdfium"]["layout"].as_f64().unwrap();
    let (layout, n, _) = dimension(&s, "layout");
    assert!((layout.unwrap() - want).abs() < 1e-12, "{layout:?}, want {want}");
    assert_eq!(n, 6);
    // The failing elements say why: a class mismatch names both classes.
    let out = run(corpus(&db).args([
        "show",
        "layout/ly1",
        "--suite",
        "parsebench",
        "--provider",
        "pdfium",
    ]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("class_mismatch: expected Page-header"), "{text}");
}

#[test]
fn malformed_parsebench_lines_are_named_and_the_rest_ingests() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let cases = d.path().join("pb");
    std::fs::create_dir_all(&cases).unwrap();
    make_cases(&cases);
    let mut lines = std::fs::read_to_string(cases.join("chart.jsonl")).unwrap();
    let bad_line = lines.lines().count() + 1;
    lines.push_str(
        "{\"pdf\": \"pdfs/chart/c1.pdf\", \"type\": \"present\", \"rule\": {\"text\": 4}}\n",
    );
    std::fs::write(cases.join("chart.jsonl"), lines).unwrap();
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "parsebench", "--dataset", "pb", "--format", "json"])
        .arg(&cases));
    let s = json(&out);
    assert!(!out.status.success(), "a malformed line is reported: {s}");
    let errors = s["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{s}");
    let at = format!("chart.jsonl:{bad_line}");
    assert!(errors[0]["path"].as_str().unwrap().ends_with(&at), "{s}");
    assert!(errors[0]["error"].as_str().unwrap().contains("field text: expected a string"), "{s}");
    assert_eq!(s["new_documents"], 21, "{s}");
}

/// GT-vs-GT scores the documents whose truth gives its Markdown; one without is named by `ocr`
/// and left out of `eval`, not scored 0.
#[test]
fn truths_without_markdown_are_left_out_of_gt_vs_gt() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let cases = d.path().join("pb");
    std::fs::create_dir_all(&cases).unwrap();
    make_cases(&cases);
    let map = cases.join("expected_markdown.json");
    let mut md: serde_json::Map<String, Value> =
        serde_json::from_slice(&std::fs::read(&map).unwrap()).unwrap();
    md.remove("pdfs/chart/c4.pdf");
    std::fs::write(&map, serde_json::to_vec(&md).unwrap()).unwrap();
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "parsebench", "--dataset", "pb", "--format", "json"])
        .arg(&cases));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db).args(["ocr", "--provider", "truth", "--format", "json"]));
    let o = json(&out);
    let f = &o["formats"][0];
    assert_eq!(
        (f["failed"].as_u64(), f["failures"][0]["document"].as_str()),
        (Some(1), Some("chart/c4")),
        "{o}"
    );
    assert!(f["failures"][0]["error"].as_str().unwrap().contains("no expected Markdown"), "{o}");
    let s = eval(&db, "truth");
    assert!(s["failures"].as_array().unwrap().is_empty(), "{s}");
    let docs: Vec<&str> = s["documents_scored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["document"].as_str().unwrap())
        .collect();
    assert_eq!(docs.len(), 20, "{docs:?}");
    assert!(!docs.contains(&"chart/c4"));
    let (chart, n, _) = dimension(&s, "chart");
    assert_eq!((chart, n), (Some(1.0), 3));
}
