//! Documents without a truth (eval, report and status say so; export writes every document
//! at once) and truth versions (a correction supersedes, eval scores the newest, every score
//! keeps its truth, report names the versions and compares two), through the binary.

use std::path::Path;

use crate::util::{corpus, json, run, tiny_pdf};

/// A PeerRead truth whose one section holds `text`.
fn peerread(text: &str) -> String {
    serde_json::json!({"name": "x.pdf", "metadata": {"title": "T", "sections": [
        {"heading": null, "text": text}], "references": []}})
    .to_string()
}

const A_V1: &str = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
const A_V2: &str = "alpha beta gamma delta lambda mu nu xi omicron pi";
const B: &str = "one two three four five six seven eight nine ten";

/// Imports Markdown outputs for provider `p`: `(document, text)` pairs.
fn import_markdown(db: &Path, dir: &Path, p: &str, docs: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in docs {
        std::fs::write(dir.join(format!("{name}.md")), format!("# T\n\n{text}\n")).unwrap();
    }
    let out = run(corpus(db)
        .args(["import", "--provider", p, "--format", "markdown", "--dataset", "own"])
        .arg(dir));
    assert!(out.status.success());
}

fn sql(db: &Path, q: &str) -> serde_json::Value {
    let out = run(corpus(db).args(["sql", q, "--format", "json"]));
    assert!(out.status.success());
    json(&out)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn without_a_truth_eval_report_and_status_say_so_then_a_correction_supersedes() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let pdfs = d.path().join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    for name in ["a", "b", "c"] {
        std::fs::write(pdfs.join(format!("{name}.pdf")), tiny_pdf(name, "")).unwrap();
    }
    assert!(run(corpus(&db).args(["ingest", "--dataset", "own"]).arg(&pdfs)).status.success());
    import_markdown(&db, &d.path().join("good"), "good", &[("a", A_V1), ("b", B), ("c", B)]);
    import_markdown(&db, &d.path().join("other"), "other", &[("a", A_V2), ("b", B), ("c", B)]);

    // No truth at all: eval and report say so, exit 6, and point to agree and truth draft.
    let out = run(corpus(&db).args(["eval", "--suite", "paper", "--dataset", "own"]));
    assert_eq!(out.status.code(), Some(6));
    let err = stderr(&out);
    assert!(err.contains("none of the 3 document(s) in dataset own has a truth"), "{err}");
    assert!(
        err.contains("corpus agree --dataset own") && err.contains("corpus truth draft"),
        "{err}"
    );
    let out = run(corpus(&db).args(["report", "--suite", "paper", "--dataset", "own"]));
    assert_eq!(out.status.code(), Some(6));
    assert!(stderr(&out).contains("nothing is scored: none of the 3 document(s)"));
    assert!(!stderr(&out).contains("run `corpus eval` first"));
    let s = json(&run(corpus(&db).args(["status", "--format", "json"])));
    assert_eq!(s["without_truth"].as_u64(), Some(3));
    assert_eq!(s["datasets"][0]["without_truth"].as_u64(), Some(3));
    let table = run(corpus(&db).arg("status"));
    assert!(String::from_utf8_lossy(&table.stdout).contains("without truth"));

    // Truths for a and b, not c: eval scores those two and says one had none.
    std::fs::write(pdfs.join("a.pdf.json"), peerread(A_V1)).unwrap();
    std::fs::write(pdfs.join("b.pdf.json"), peerread(B)).unwrap();
    let ingest_truths = || {
        let out = run(corpus(&db)
            .args(["ingest", "--dataset", "own", "--truth", "peerread", "-q"])
            .arg(&pdfs));
        assert!(out.status.success());
    };
    ingest_truths();
    let s = json(&run(corpus(&db).args(["status", "--format", "json"])));
    assert_eq!(
        (s["without_truth"].as_u64(), s["datasets"][0]["truths"].as_u64()),
        (Some(1), Some(2))
    );
    let eval = || {
        let out = run(corpus(&db).args(["eval", "--suite", "paper", "--dataset", "own"]));
        assert!(out.status.success());
        stderr(&out)
    };
    let err = eval();
    assert!(err.contains("1 of the 3 document(s) in dataset own have no truth"), "{err}");
    let v1 = sql(&db, "SELECT truth_id FROM v_truths WHERE document = 'a'");
    let a_v1 = v1[0]["truth_id"].as_i64().unwrap();

    // The corrected truth of a: a newer ingest of the same document, dataset and format.
    std::fs::write(pdfs.join("a.pdf.json"), peerread(A_V2)).unwrap();
    ingest_truths();
    let t = sql(
        &db,
        "SELECT truth_id, version, latest, supersedes FROM v_truths WHERE document = 'a' ORDER BY version",
    );
    let rows = t.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{t}");
    let r = |i: usize, k: &str| rows[i][k].clone();
    assert_eq!(
        (r(0, "truth_id").as_i64(), r(0, "version").as_i64(), r(0, "latest").as_i64()),
        (Some(a_v1), Some(1), Some(0))
    );
    let a_v2 = r(1, "truth_id").as_i64().unwrap();
    assert_eq!((r(1, "version").as_i64(), r(1, "latest").as_i64()), (Some(2), Some(1)));
    assert_eq!(r(1, "supersedes").as_str(), Some(a_v1.to_string().as_str()));

    // eval scores the newest; the scores against v1 stay, each with its truth.
    eval();
    let scores = sql(
        &db,
        "SELECT truth_id, value FROM v_scores WHERE document = 'a' AND provider = 'good' \
         AND metric = 'text_r' ORDER BY truth_id",
    );
    let s = scores.as_array().unwrap();
    assert_eq!(s.len(), 2, "{scores}");
    assert_eq!((s[0]["truth_id"].as_i64(), s[1]["truth_id"].as_i64()), (Some(a_v1), Some(a_v2)));
    assert_eq!(s[0]["value"].as_f64(), Some(1.0));
    assert!(s[1]["value"].as_f64().unwrap() < 1.0, "{scores}");

    // The report uses the newest truths and says which versions: a mix in dataset own.
    let report = |extra: &[&str]| {
        let out = run(corpus(&db)
            .args(["report", "--suite", "paper", "--dataset", "own", "--by", "provider"])
            .args(["--metric", "text_r", "--ci", "none", "--format", "json"])
            .args(extra));
        assert!(out.status.success());
        (json(&out), stderr(&out))
    };
    let mean = |v: &serde_json::Value, p: &str| {
        let rows = v.as_array().unwrap();
        let r = rows.iter().find(|r| r["provider"].as_str().unwrap().starts_with(p)).unwrap();
        r["text_r"].as_f64().unwrap()
    };
    let (latest, err) = report(&[]);
    assert!(err.contains("truths of own the figures use: v1 (1), v2 (1) - mixed"), "{err}");
    let (old, _) = report(&["--truth-version", "v1"]);
    assert!(mean(&latest, "other") > mean(&latest, "good"));
    assert!(mean(&old, "good") > mean(&old, "other"));

    // The compare across versions: each provider's change and the ranks, swapped.
    let out = run(corpus(&db).args([
        "report",
        "--suite",
        "paper",
        "--dataset",
        "own",
        "--metric",
        "text_r",
        "--truth-compare",
        "previous..latest",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    assert!(stderr(&out).contains("1 document(s) have a different truth"), "{}", stderr(&out));
    let cmp = json(&out);
    let row = |p: &str| {
        cmp.as_array()
            .unwrap()
            .iter()
            .find(|r| r["provider"].as_str().unwrap().starts_with(p))
            .unwrap()
            .clone()
    };
    let (good, other) = (row("good"), row("other"));
    assert_eq!((good["rank_previous"].as_u64(), good["rank_latest"].as_u64()), (Some(1), Some(2)));
    assert_eq!(
        (other["rank_previous"].as_u64(), other["rank_latest"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!((good["documents"].as_u64(), good["corrected"].as_u64()), (Some(2), Some(1)));
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(good["mean_previous"].as_f64().unwrap(), mean(&old, "good")));
    assert!(close(good["mean_latest"].as_f64().unwrap(), mean(&latest, "good")));
    assert!(good["delta"].as_f64().unwrap() < 0.0 && other["delta"].as_f64().unwrap() > 0.0);

    // An explicit --supersedes names a truth of another document: said, exit 3.
    let one = d.path().join("one");
    std::fs::create_dir_all(&one).unwrap();
    std::fs::copy(pdfs.join("b.pdf"), one.join("b.pdf")).unwrap();
    std::fs::write(one.join("b.pdf.json"), peerread("one two three")).unwrap();
    let out = run(corpus(&db)
        .args(["ingest", "--dataset", "own", "--truth", "peerread"])
        .args(["--supersedes", &a_v2.to_string()])
        .arg(&one));
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains(&format!("truth {a_v2} (of own/a) was not superseded")),
        "{}",
        stderr(&out)
    );
    let out =
        run(corpus(&db).args(["ingest", "--truth", "peerread", "--supersedes", "99999"]).arg(&one));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--supersedes 99999: no truth has that id"));
}

#[test]
fn an_explicit_supersedes_replaces_a_truth_of_another_format() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let pdfs = d.path().join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    std::fs::write(pdfs.join("a.pdf"), tiny_pdf("a", "")).unwrap();
    std::fs::write(pdfs.join("a.pdf.json"), peerread(A_V1)).unwrap();
    let out =
        run(corpus(&db).args(["ingest", "--dataset", "own", "--truth", "peerread"]).arg(&pdfs));
    assert!(out.status.success());
    let first = sql(&db, "SELECT truth_id FROM v_truths")[0]["truth_id"].as_i64().unwrap();
    // The correction comes as a Docling truth (another format): only --supersedes links it.
    let mut doc = corpus::doc::Doc::default();
    let bb = corpus::doc::BBox::default();
    doc.blocks.push(corpus::doc::Block::new(corpus::doc::BlockKind::Paragraph, 0, bb, A_V2));
    let docling = corpus::formats::docling_out::write_docling(&doc, "a");
    std::fs::write(pdfs.join("a.json"), docling.to_string()).unwrap();
    let out = run(corpus(&db)
        .args([
            "ingest",
            "--dataset",
            "own",
            "--truth",
            "docling",
            "--supersedes",
            &first.to_string(),
        ])
        .arg(&pdfs));
    assert!(out.status.success(), "{}", stderr(&out));
    let t = sql(&db, "SELECT format, version, latest FROM v_truths ORDER BY truth_id");
    assert_eq!(
        t,
        serde_json::json!([{"format": "peerread", "version": 1, "latest": 0},
                           {"format": "docling", "version": 2, "latest": 1}])
    );
    let how = sql(&db, "SELECT how FROM truth_supersedes");
    assert_eq!(how, serde_json::json!([{"how": "explicit"}]));
}

#[test]
fn export_writes_every_document_in_each_format_and_docling_reads_back() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let pdfs = d.path().join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    for name in ["a", "b"] {
        std::fs::write(pdfs.join(format!("{name}.pdf")), tiny_pdf(name, "")).unwrap();
    }
    assert!(run(corpus(&db).args(["ingest", "--dataset", "own"]).arg(&pdfs)).status.success());
    let md = d.path().join("md-in");
    std::fs::create_dir_all(&md).unwrap();
    let text = "# A Title\n\n## Methods\n\nSome text here.\n\n- one\n- two\n\n| x | y |\n|---|---|\n| 1 | 2 |\n";
    std::fs::write(md.join("a.md"), text).unwrap();
    std::fs::write(md.join("b.md"), "Just a line.\n").unwrap();
    let out =
        run(corpus(&db).args(["import", "--provider", "mdp", "--format", "markdown"]).arg(&md));
    assert!(out.status.success());

    let export = |format: &str, dir: &Path| {
        run(corpus(&db)
            .args(["export", "--dataset", "own", "--provider", "mdp", "--format", format, "-o"])
            .arg(dir))
    };
    for (format, ext) in
        [("markdown", "md"), ("html", "html"), ("json", "doc.json"), ("docling", "json")]
    {
        let dir = d.path().join(format!("out-{format}"));
        let out = export(format, &dir);
        assert!(out.status.success(), "{format}");
        assert!(stderr(&out).contains("exported 2 of 2 document(s)"), "{}", stderr(&out));
        for name in ["a", "b"] {
            assert!(dir.join(format!("{name}.{ext}")).is_file(), "{format}: {name}");
        }
    }
    // Markdown is exactly what the suites score: here the imported file verbatim.
    assert_eq!(std::fs::read_to_string(d.path().join("out-markdown/a.md")).unwrap(), text);
    let html = std::fs::read_to_string(d.path().join("out-html/a.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("class=\"heading\""), "{html}");
    let shown = |p: &str| {
        let out = run(corpus(&db).args(["show", "a", "--provider", p, "--format", "json"]));
        serde_json::from_slice::<corpus::doc::Doc>(&out.stdout).unwrap()
    };
    let stored: corpus::doc::Doc =
        serde_json::from_slice(&std::fs::read(d.path().join("out-json/a.doc.json")).unwrap())
            .unwrap();
    assert_eq!(stored, shown("mdp"));
    // Docling JSON imported again reads back to the same blocks and pages (the Markdown the
    // Doc was imported from is not part of a DoclingDocument).
    let out = run(corpus(&db)
        .args(["import", "--provider", "back", "--format", "docling-json"])
        .arg(d.path().join("out-docling")));
    assert!(out.status.success());
    // The reader adds Docling's label to each block (`docling:title`, issue 49), which the
    // Markdown import had not: the blocks are the same but for it.
    let (orig, mut back) = (shown("mdp"), shown("back"));
    for b in &mut back.blocks {
        let label = b.label.take().unwrap_or_default();
        assert!(label.starts_with("docling:"), "{label}");
    }
    assert_eq!((&back.blocks, &back.pages), (&orig.blocks, &orig.pages));
    assert!(orig.blocks.iter().any(|b| b.table.is_some()));

    // A folder that cannot be made, a file given as the folder, and nothing to export.
    let file = d.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    let out = export("markdown", &file.join("sub"));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot create the folder"), "{}", stderr(&out));
    let out = export("markdown", &file);
    assert_eq!(out.status.code(), Some(2));
    let out = run(corpus(&db)
        .args(["export", "--dataset", "own", "--provider", "nobody", "-o"])
        .arg(d.path().join("none")));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("nothing exported: none of the 2 document(s)"),
        "{}",
        stderr(&out)
    );
    // One document to stdout, as before.
    let out = run(corpus(&db).args(["export", "b", "--provider", "mdp", "--format", "markdown"]));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Just a line.\n");
}

#[test]
fn a_re_ingest_that_stores_a_new_truth_version_says_so_and_a_no_op_says_nothing_new() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let pdfs = d.path().join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    for name in ["a", "b", "c"] {
        std::fs::write(pdfs.join(format!("{name}.pdf")), tiny_pdf(name, "")).unwrap();
        std::fs::write(pdfs.join(format!("{name}.pdf.json")), peerread(B)).unwrap();
    }
    let ingest =
        || run(corpus(&db).args(["ingest", "--dataset", "own", "--truth", "peerread"]).arg(&pdfs));
    let out = ingest();
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("stored truth version v1 for 3 documents (their first truth)"),
        "{}",
        stderr(&out)
    );
    // The same files again: a true no-op.
    let out = ingest();
    assert!(out.status.success());
    let err = stderr(&out);
    assert!(err.contains("Nothing new: every file was already ingested under its name."), "{err}");
    assert!(!err.contains("stored truth"), "{err}");
    // Two corrected truths: the PDFs are unchanged, the truths are version 2.
    std::fs::write(pdfs.join("a.pdf.json"), peerread(A_V1)).unwrap();
    std::fs::write(pdfs.join("b.pdf.json"), peerread(A_V2)).unwrap();
    let out = run(corpus(&db)
        .args(["ingest", "--dataset", "own", "--truth", "peerread", "--format", "json"])
        .arg(&pdfs));
    assert!(out.status.success());
    let v = json(&out);
    assert_eq!(v["truths_added"], 2);
    assert_eq!(v["truth_versions"][0]["version"], 2);
    assert_eq!(v["truth_versions"][0]["documents"], 2);
    assert_eq!(v["truth_versions"][0]["supersedes"], serde_json::json!([1, 2]));
    assert_eq!(v["truth_versions"][0]["superseded_versions"], serde_json::json!([1]));
    // In the table form: only c changes.
    std::fs::write(pdfs.join("c.pdf.json"), peerread(A_V2)).unwrap();
    let out = ingest();
    assert!(out.status.success());
    let err = stderr(&out);
    assert!(!err.contains("Nothing new"), "{err}");
    assert!(
        err.contains("stored truth version v2 for 1 document (supersedes v1: truth 3)"),
        "{err}"
    );
}
