//! `corpus show --format markdown` prints exactly the Markdown the suites score: written to
//! files and imported back as Markdown under another provider, it scores as the provider's own
//! output does on the table, olmocr and parsebench suites (pdfium's outputs on the fixtures the
//! other tests build: its tables become pipe tables).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::util::{corpus, json, run, tiny_pdf};

/// Writes `show DOC --provider pdfium --format markdown` of every document pdfium read to
/// `dir/<name>.md` and imports the folder as provider `shown`.
fn show_and_import(db: &Path, dir: &Path) {
    let out = run(corpus(db).args([
        "sql",
        "SELECT DISTINCT document, dataset FROM v_outputs WHERE provider = 'pdfium' AND status = 'ok'",
        "--format",
        "json",
    ]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let docs = json(&out);
    assert!(!docs.as_array().unwrap().is_empty());
    for d in docs.as_array().unwrap() {
        let name = d["document"].as_str().unwrap();
        let out = run(corpus(db)
            .args(["show", name, "--provider", "pdfium", "--format", "markdown", "--dataset"])
            .arg(d["dataset"].as_str().unwrap()));
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let path = dir.join(format!("{name}.md"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &out.stdout).unwrap();
    }
    let out =
        run(corpus(db).args(["import", "--provider", "shown", "--format", "markdown"]).arg(dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn eval(db: &Path, suite: &str, provider: &str, extra: &[&str]) -> Value {
    let out = run(corpus(db)
        .args(["eval", "--suite", suite, "--provider", provider, "--format", "json"])
        .args(extra));
    assert!(out.status.success(), "{suite} {provider}: {}", String::from_utf8_lossy(&out.stderr));
    json(&out)
}

#[test]
fn shown_markdown_imported_back_scores_as_the_table_suite_did() {
    let d = tempfile::tempdir().unwrap();
    crate::table::write_fixture(d.path());
    let db = d.path().join("c.db");
    let out =
        run(corpus(&db).args(["ingest", "--truth", "latex-tables"]).arg(d.path().join("pdfs")));
    assert!(out.status.success());
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    show_and_import(&db, &d.path().join("shown"));
    let rows = |p: &str| -> Vec<(Value, Value, Value)> {
        let s = eval(&db, "table", p, &[]);
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["document"].clone(), r["values"].clone(), r["matched"].clone()))
            .collect()
    };
    let own = rows("pdfium");
    // pdfium found one of the two GT tables (tests/it/table.rs): the comparison is about a real
    // table, not two empty outputs.
    assert_eq!(own[0].2, 1, "{own:?}");
    let teds = own[0].1.as_array().unwrap().iter().find(|p| p[0] == "teds").unwrap()[1].as_f64();
    assert!(teds.is_some_and(|t| t > 0.0), "{own:?}");
    assert_eq!(rows("shown"), own);
}

#[test]
fn shown_markdown_imported_back_scores_as_the_olmocr_suite_did() {
    let d = tempfile::tempdir().unwrap();
    let bench = d.path().join("bench");
    crate::table::write_fixture(&d.path().join("t"));
    std::fs::create_dir_all(bench.join("pdfs")).unwrap();
    std::fs::copy(d.path().join("t/pdfs/t1.pdf"), bench.join("pdfs/t1.pdf")).unwrap();
    std::fs::write(bench.join("pdfs/a.pdf"), tiny_pdf("Hello | world", "")).unwrap();
    let tests = [
        r#"{"pdf": "t1.pdf", "page": 1, "id": "t_present", "type": "present", "text": "Some words before the table."}"#,
        r#"{"pdf": "t1.pdf", "page": 1, "id": "t_order", "type": "order", "before": "Some words", "after": "3.10"}"#,
        r#"{"pdf": "t1.pdf", "page": 1, "id": "t_cell", "type": "table", "cell": "2.80", "up": "112", "left": "2"}"#,
        r#"{"pdf": "t1.pdf", "page": 1, "id": "t_head", "type": "table", "cell": "0.90", "top_heading": "F1"}"#,
        r#"{"pdf": "a.pdf", "page": 1, "id": "a_present", "type": "present", "text": "Hello | world"}"#,
    ];
    std::fs::write(bench.join("t.jsonl"), tests.join("\n") + "\n").unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db).args(["ingest", "--truth", "olmocr-bench"]).arg(&bench));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    show_and_import(&db, &d.path().join("shown"));
    let results = |p: &str| -> BTreeMap<String, (Value, Value)> {
        let s = eval(&db, "olmocr", p, &["--math", "exact"]);
        s["candidates"][0]["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (t["id"].as_str().unwrap().to_string(), (t["passed"].clone(), t["value"].clone()))
            })
            .collect()
    };
    let own = results("pdfium");
    assert_eq!(own.len(), 7, "{own:?}");
    assert!(own.values().any(|(p, _)| p == true), "{own:?}");
    assert_eq!(results("shown"), own);
}

#[test]
fn shown_markdown_imported_back_scores_as_the_parsebench_suite_did() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let cases = d.path().join("pb");
    std::fs::create_dir_all(&cases).unwrap();
    crate::parsebench::ingest_cases(&db, &cases);
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    show_and_import(&db, &d.path().join("shown"));
    // The layout rules read the Doc's boxes, and `is_header`/`is_footer` and `form_field` its
    // page sections (`form_field` keeps to the rule's page once the output has pages:
    // docs/parsebench.md), which Markdown has none of: every other rule reads the Markdown and
    // must give the same result.
    let results = |p: &str| -> BTreeMap<String, Option<bool>> {
        let s = eval(&db, "parsebench", p, &[]);
        let mut out = BTreeMap::new();
        for doc in s["documents_scored"].as_array().unwrap() {
            for c in doc["cases"].as_array().unwrap() {
                if c["category"] == "layout" {
                    continue;
                }
                for r in c["rules"].as_array().unwrap() {
                    if ["is_header", "is_footer", "form_field"].iter().any(|t| r["type"] == *t) {
                        continue;
                    }
                    out.insert(r["id"].as_str().unwrap().to_string(), r["passed"].as_bool());
                }
            }
        }
        out
    };
    let own = results("pdfium");
    assert!(own.len() >= 15, "{own:?}");
    assert!(own.values().any(|p| *p == Some(true)) && own.values().any(|p| *p == Some(false)));
    assert_eq!(results("shown"), own);
}
