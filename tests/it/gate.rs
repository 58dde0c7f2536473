//! `corpus gate` end to end: a provider version that drops one table per page fails the gate
//! (exit 4, with a JUnit report that names the documents), an unchanged re-run passes (exit 0),
//! too few paired documents cannot be decided (exit 5, or 0 with --allow-undecided).

use std::path::Path;

use corpus::sample::pdf::{Font, Pdf, PdfPage};

use crate::util::{corpus, json, run};

const DOCS: usize = 8;

/// Two tables of document `i`, as the latex-tables truth and as Markdown.
fn tables(i: usize) -> [(String, String); 2] {
    [0, 1].map(|t| {
        let (a, b) = (10 * i + t, 100 + i + t);
        let latex = format!(
            "\\begin{{tabular}}{{lc}}\n\\hline\nName & Value \\\\\n\\hline\nalpha{t} & {a} \\\\\nbeta{t} & {b} \\\\\n\\hline\n\\end{{tabular}}"
        );
        let md = format!("| Name | Value |\n|---|---|\n| alpha{t} | {a} |\n| beta{t} | {b} |\n");
        (latex, md)
    })
}

/// `pdfs/d<i>.pdf` and `ground_truth/d<i>.json` for the first `docs` documents.
fn write_docs(root: &Path, docs: usize) {
    std::fs::create_dir_all(root.join("pdfs")).unwrap();
    std::fs::create_dir_all(root.join("ground_truth")).unwrap();
    for i in 0..docs {
        let mut page = PdfPage::new(612.0, 792.0);
        page.text(Font::Regular, 10.0, 72.0, 720.0, &format!("Document {i}."));
        let mut pdf = Pdf::new();
        pdf.push(page);
        std::fs::write(root.join(format!("pdfs/d{i}.pdf")), pdf.to_bytes()).unwrap();
        let truth: Vec<serde_json::Value> = tables(i)
            .into_iter()
            .map(|(latex, _)| serde_json::json!({"type": "table", "complexity": "simple", "data": latex}))
            .collect();
        std::fs::write(
            root.join(format!("ground_truth/d{i}.json")),
            serde_json::Value::from(truth).to_string(),
        )
        .unwrap();
    }
}

/// Imports version `version` of provider `p` (each page's tables, the second left out where
/// `drop_one`) and scores it.
fn import_and_eval(db: &Path, root: &Path, version: &str, drop_one: bool) {
    import_and_eval_docs(db, root, version, drop_one, 0..DOCS);
}

/// [`import_and_eval`] for the documents `docs` only.
fn import_and_eval_docs(
    db: &Path,
    root: &Path,
    version: &str,
    drop_one: bool,
    docs: std::ops::Range<usize>,
) {
    let dir = root.join(format!("out-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    for i in docs {
        let [first, second] = tables(i);
        let mut md = format!("Document {i}.\n\n{}", first.1);
        if !drop_one {
            md.push('\n');
            md.push_str(&second.1);
        }
        std::fs::write(dir.join(format!("d{i}.md")), md).unwrap();
    }
    let out = run(corpus(db)
        .args(["import", "--provider", "p", "--format", "markdown", "--provider-version", version])
        .arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(db).args(["eval", "--suite", "table", "--provider", "p", "-q"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_planted_regression_fails_and_an_unchanged_rerun_passes() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write_docs(root, DOCS);
    let db = root.join("c.db");
    let out =
        run(corpus(&db).args(["ingest", "--truth", "latex-tables", "-q"]).arg(root.join("pdfs")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    import_and_eval(&db, root, "1", false);
    import_and_eval(&db, root, "2", true);
    import_and_eval(&db, root, "3", false);

    let gate_on = |candidate: &str, metric: &str, extra: &[&str]| {
        run(corpus(&db)
            .args(["gate", "--suite", "table", "--baseline", "p@1", "--candidate", candidate])
            .args(["--metric", metric])
            .args(extra))
    };
    let gate = |candidate: &str, extra: &[&str]| {
        gate_on(candidate, "teds", &[&["--max-drop", "0.005"], extra].concat())
    };
    // Every page lost a table: 8 of 8 documents worse, exact one-sided p = 1/256.
    let out = gate("p@2", &["--format", "json"]);
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["regressed"], true);
    let m = &v["metrics"][0];
    assert_eq!((m["metric"].as_str(), m["n"].as_u64()), (Some("teds"), Some(DOCS as u64)));
    assert!(m["diff"].as_f64().unwrap() < -0.005, "{m}");
    assert!((m["p"].as_f64().unwrap() - 1.0 / 256.0).abs() < 1e-12, "{m}");
    assert_eq!(m["losses"].as_array().unwrap().len(), DOCS);

    let xml = root.join("gate.xml");
    let out = gate("p@2", &["--format", "junit", "-o", xml.to_str().unwrap(), "--limit", "3"]);
    assert_eq!(out.status.code(), Some(4));
    let text = std::fs::read_to_string(&xml).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap();
    assert_eq!((suite.attribute("tests"), suite.attribute("failures")), (Some("1"), Some("1")));
    let failure = doc.descendants().find(|n| n.has_tag_name("failure")).unwrap();
    assert!(failure.attribute("message").unwrap().starts_with("teds: worse beyond"));
    assert_eq!(failure.text().unwrap().lines().count(), 3, "--limit 3 documents");

    // The same outputs again: nothing moved, the gate passes; and text output says so.
    let out = gate("p@3", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok   teds: within the allowed drop"));
    // A loss within a generous allowance passes too.
    let out = gate_on("p@2", "teds:0.9", &[]);
    assert_eq!(out.status.code(), Some(0));
    // Unknown metric and unknown version are usage errors.
    let out = gate("p@9", &[]);
    assert_eq!(out.status.code(), Some(2));
    let out = gate_on("p@2", "nope", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stored: "));
}

/// Too few paired documents is its own outcome: exit 5 "cannot decide", never a pass, unless
/// --allow-undecided; with no paired document at all as with two.
#[test]
fn too_few_paired_documents_cannot_decide() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write_docs(root, 2);
    let db = root.join("c.db");
    let out =
        run(corpus(&db).args(["ingest", "--truth", "latex-tables", "-q"]).arg(root.join("pdfs")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Versions 1 and 2 scored one document each, not the same one; 3 and 4 both documents,
    // 4 losing a table on each.
    import_and_eval_docs(&db, root, "1", false, 0..1);
    import_and_eval_docs(&db, root, "2", false, 1..2);
    import_and_eval_docs(&db, root, "3", false, 0..2);
    import_and_eval_docs(&db, root, "4", true, 0..2);
    let gate = |base: &str, cand: &str, extra: &[&str]| {
        run(corpus(&db)
            .args(["gate", "--suite", "table", "--baseline", base, "--candidate", cand])
            .args(["--metric", "teds"])
            .args(extra))
    };
    let out = gate("p@1", "p@2", &[]);
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(5), "{stdout}{stderr}");
    assert!(
        stdout.contains("teds: cannot decide: no document has both a baseline and a candidate value (2 one-sided)"),
        "{stdout}"
    );
    assert!(stderr.contains("cannot decide on 1 of 1 metric(s)"), "{stderr}");
    // Two documents, both worse: the smallest one-sided p of two is 1/4, never below 0.05.
    let out = gate("p@3", "p@4", &["--format", "json"]);
    assert_eq!(out.status.code(), Some(5), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!((v["outcome"].as_str(), v["regressed"].as_bool()), (Some("undecided"), Some(false)));
    let m = &v["metrics"][0];
    assert_eq!((m["n"].as_u64(), m["min_n"].as_u64()), (Some(2), Some(5)), "{m}");
    assert!(m["p"].is_null(), "{m}");
    assert!(m["reason"].as_str().unwrap().contains("cannot decide: 2 paired document(s)"), "{m}");
    let out = gate("p@3", "p@4", &["--format", "junit"]);
    assert_eq!(out.status.code(), Some(5));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap();
    assert_eq!((suite.attribute("failures"), suite.attribute("skipped")), (Some("0"), Some("1")));
    // --allow-undecided passes it, and says so.
    let out = gate("p@3", "p@4", &["--allow-undecided"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("passed as --allow-undecided asks"));
}
