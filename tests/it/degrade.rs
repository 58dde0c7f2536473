//! `corpus degrade` and `report --robustness` (`docs/degrade.md`) through the binary: twins
//! stored with their truths, the same seed storing nothing new, GT-vs-GT perfect on the
//! twins, the robustness table pairing twins with sources, and bad input said.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{corpus, json, run, shared_data};

/// Two documents in dataset `own` (one of two pages), pdfium's outputs, and drafts of
/// pdfium's blocks ingested as their page truths; returns the store.
fn store_with_truths(dir: &Path) -> PathBuf {
    use corpus::sample::pdf::{Font, Pdf, PdfPage};
    let db = dir.join("c.db");
    let pdfs = dir.join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    for (name, pages) in [("a", 2), ("b", 1)] {
        let mut pdf = Pdf::new();
        for p in 0..pages {
            let mut page = PdfPage::new(612.0, 792.0);
            page.text(Font::Bold, 18.0, 72.0, 700.0, &format!("Report {name} page {p}"));
            page.text(Font::Regular, 12.0, 72.0, 640.0, "The quarterly figures rose again.");
            page.text(Font::Regular, 12.0, 72.0, 600.0, "Costs fell by a tenth over the year.");
            pdf.push(page);
        }
        std::fs::write(pdfs.join(format!("{name}.pdf")), pdf.to_bytes()).unwrap();
    }
    assert!(run(corpus(&db).args(["ingest", "--dataset", "own"]).arg(&pdfs)).status.success());
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--dataset", "own", "-q"]));
    assert!(out.status.success());
    let out = run(corpus(&db)
        .args(["truth", "draft", "--dataset", "own", "--from", "pdfium", "-q", "-o"])
        .arg(dir.join("draft")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "own"])
        .arg(dir.join("draft/draft.json")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    db
}

/// Rows of a query as strings (the store read directly, as a notebook would).
fn rows(db: &Path, q: &str) -> Vec<Vec<String>> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c.prepare(q).unwrap();
    let n = st.column_count();
    st.query_map([], |r| {
        (0..n)
            .map(|i| {
                Ok(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Real(v) => v.to_string(),
                    other => format!("{other:?}"),
                })
            })
            .collect()
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn degrade(db: &Path, args: &[&str]) -> std::process::Output {
    run(corpus(db).args(["degrade", "--format", "json"]).args(args))
}

/// `eval --suite omnidoc --provider P --dataset D`'s figures by name.
fn omnidoc(db: &Path, provider: &str, dataset: &str) -> serde_json::Map<String, Value> {
    let out = run(corpus(db)
        .args(["eval", "--suite", "omnidoc", "--provider", provider, "--dataset", dataset])
        .args(["--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    let summary = if v.is_array() { v[0].clone() } else { v };
    summary["figures"]
        .as_array()
        .unwrap_or_else(|| panic!("no figures: {summary}"))
        .iter()
        .map(|f| (f[0].as_str().unwrap().to_string(), f[1].clone()))
        .collect()
}

#[test]
fn twins_carry_the_truths_the_same_seed_changes_nothing_and_robustness_pairs_them() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_truths(d.path());

    let out = degrade(&db, &["--dataset", "own", "--profile", "skew,fax", "--seed", "3"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = json(&out);
    for (i, twin) in ["own~skew", "own~fax"].iter().enumerate() {
        assert_eq!(s[i]["dataset"], *twin);
        assert_eq!((s[i]["new"].as_u64(), s[i]["failed"].as_u64()), (Some(2), Some(0)), "{s}");
        assert_eq!((s[i]["pages"].as_u64(), s[i]["truths"].as_u64()), (Some(3), Some(3)), "{s}");
    }
    // Each twin names its source and profile; its truths are page truths of the twin.
    let twins = rows(
        &db,
        "SELECT n.name, a.value, d.blob FROM document_attributes a \
         JOIN datasets s ON s.id = a.dataset JOIN document_names n ON n.document = a.document \
         AND n.dataset = a.dataset JOIN documents d ON d.id = a.document \
         WHERE s.name = 'own~skew' AND a.name = 'degrade_source' ORDER BY n.name",
    );
    let sources = rows(
        &db,
        "SELECT n.name, d.blob FROM document_names n JOIN documents d ON d.id = n.document \
         JOIN datasets s ON s.id = n.dataset WHERE s.name = 'own' ORDER BY n.name",
    );
    assert_eq!(twins.len(), 2);
    for (t, src) in twins.iter().zip(&sources) {
        assert_eq!((&t[0], &t[1]), (&src[0], &src[1]), "a twin names its source");
        assert_ne!(t[2], src[1]);
    }
    let parts = rows(
        &db,
        "SELECT t.part FROM truths t JOIN datasets s ON s.id = t.dataset \
         WHERE s.name = 'own~skew' ORDER BY t.part",
    );
    assert_eq!(
        parts,
        vec![vec!["page-1".to_string()], vec!["page-1".into()], vec!["page-2".into()]]
    );

    // The same profile and seed again: nothing new; another seed: new twins.
    let again = json(&degrade(&db, &["--dataset", "own", "--profile", "skew", "--seed", "3"]));
    assert_eq!((again[0]["new"].as_u64(), again[0]["unchanged"].as_u64()), (Some(0), Some(2)));
    let text =
        run(corpus(&db).args(["degrade", "--dataset", "own", "--profile", "skew", "--seed", "3"]));
    assert!(
        String::from_utf8_lossy(&text.stderr).contains("Nothing new"),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );

    // GT-vs-GT on the twins: the truth travelled intact.
    assert!(run(corpus(&db).args(["ocr", "--provider", "truth", "-q"])).status.success());
    for twin in ["own~skew", "own~fax"] {
        let f = omnidoc(&db, "truth", twin);
        assert_eq!(f["text_edit"], Value::from(0.0), "{twin}: {f:?}");
        assert_eq!(f["order_edit"], Value::from(0.0), "{twin}: {f:?}");
    }

    // pdfium reads no text on an image-only twin: the robustness table says so, paired.
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--dataset", "own~skew", "-q"]));
    assert!(out.status.success());
    omnidoc(&db, "pdfium", "own");
    omnidoc(&db, "pdfium", "own~skew");
    let out = run(corpus(&db).args([
        "report",
        "--suite",
        "omnidoc",
        "--robustness",
        "own~skew",
        "--format",
        "json",
    ]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = json(&out);
    let row = t
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["provider"].as_str().unwrap().starts_with("pdfium@") && r["metric"] == "text_edit"
        })
        .unwrap_or_else(|| panic!("{t}"))
        .clone();
    assert_eq!(row["n"], 2, "{row}");
    assert_eq!(row["clean"].as_f64(), Some(0.0), "pdfium against its own draft: {row}");
    assert_eq!(row["degraded"].as_f64(), Some(1.0), "nothing read is all edits: {row}");
    assert_eq!(row["delta"].as_f64(), Some(1.0), "{row}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("paired with its source by name"));

    // The HTML report: robustness.html with the table and the two twins, and each twin's
    // page with its pages clean and degraded side by side and pdfium's text on both (the
    // clean page's words; nothing from the twin).
    let site = d.path().join("site");
    let out = run(corpus(&db)
        .args(["report", "--suite", "omnidoc", "--robustness", "own~skew", "--format", "html"])
        .arg("-o")
        .arg(&site));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let index = std::fs::read_to_string(site.join("robustness.html")).unwrap();
    assert!(index.contains("Robustness: own~skew against own"), "{index}");
    assert!(index.contains("text_edit"), "the table: {index}");
    let pages: Vec<PathBuf> =
        std::fs::read_dir(site.join("robust")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(pages.len(), 2, "a page per twin");
    for p in &pages {
        let html = std::fs::read_to_string(p).unwrap();
        let a = html.contains("<h1>a</h1>");
        let sections = html.matches("class=\"twin-page\"").count();
        assert_eq!(sections, if a { 2 } else { 1 }, "one section per page: {html}");
        assert_eq!(html.matches("<figure class=\"page\"").count(), 2 * sections);
        assert!(html.contains("clean · own") && html.contains("degraded · own~skew"));
        // pdfium's row: the clean page's text beside an empty twin page.
        let texts = html.split("class=\"robust-text\"").nth(1).unwrap_or_else(|| panic!("{html}"));
        let row = texts.split("<tr><td>pdfium</td>").nth(1).unwrap_or_else(|| panic!("{html}"));
        let cells: Vec<&str> = row.split("</td>").take(2).collect();
        assert!(cells[0].contains("The quarterly figures rose again."), "{}", cells[0]);
        assert!(!cells[1].contains("quarterly"), "{}", cells[1]);
    }
}

#[test]
fn bad_profiles_empty_datasets_and_unknown_twins_are_said() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_truths(d.path());
    let out = degrade(&db, &["--dataset", "own", "--profile", "xerox"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no degradation profile `xerox`"));
    let out = degrade(&db, &["--dataset", "own", "--profile", "scan:tilt=3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no parameter `tilt`"));
    let out = degrade(&db, &["--dataset", "nothing", "--profile", "scan"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("dataset nothing has no documents"));
    let count = rows(&db, "SELECT count(*) FROM documents");
    assert_eq!(count, vec![vec!["2".to_string()]], "nothing stored by a usage error");
    let out = run(corpus(&db).args(["report", "--suite", "omnidoc", "--robustness", "own~scan"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no dataset own~scan"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The twins, their truths and their attributes of every `own~*` dataset, as rows.
fn twin_rows(db: &Path) -> [Vec<Vec<String>>; 3] {
    [
        rows(
            db,
            "SELECT s.name, n.name, d.blob, d.pages FROM document_names n \
             JOIN documents d ON d.id = n.document JOIN datasets s ON s.id = n.dataset \
             WHERE s.name LIKE 'own~%' ORDER BY 1, 2",
        ),
        rows(
            db,
            "SELECT s.name, n.name, t.format, t.part, t.blob, t.source_path FROM truths t \
             JOIN datasets s ON s.id = t.dataset JOIN document_names n \
             ON n.document = t.document AND n.dataset = t.dataset \
             WHERE s.name LIKE 'own~%' ORDER BY 1, 2, 3, 4, 5",
        ),
        rows(
            db,
            "SELECT s.name, n.name, a.name, a.value FROM document_attributes a \
             JOIN datasets s ON s.id = a.dataset JOIN document_names n \
             ON n.document = a.document AND n.dataset = a.dataset \
             WHERE s.name LIKE 'own~%' ORDER BY 1, 2, 3",
        ),
    ]
}

/// `degrade --shard K/N --into DIR` in two shards, merged, stores exactly what one unsharded
/// run stores (the same twins by hash, truths and attributes); merging again, or degrading
/// again sharded, changes nothing; a shard file of another store, or a missing one, is refused
/// by name.
#[test]
fn sharded_twins_merge_into_what_one_run_stores() {
    let d = tempfile::tempdir().unwrap();
    let a = store_with_truths(d.path());
    assert!(run(corpus(&a).args(["checkpoint"])).status.success());
    let b = d.path().join("b.db");
    std::fs::copy(&a, &b).unwrap();
    let profiles = ["--dataset", "own", "--profile", "scan,skew:min=1:max=3", "--seed", "5"];
    let out = degrade(&a, &profiles);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let shards = d.path().join("shards");
    let mut made = 0;
    for k in ["0/2", "1/2"] {
        let out = degrade(
            &b,
            &[&profiles[..], &["--shard", k, "--into", shards.to_str().unwrap()]].concat(),
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        made +=
            json(&out).as_array().unwrap().iter().map(|s| s["new"].as_u64().unwrap()).sum::<u64>();
    }
    assert_eq!(made, 4, "2 documents x 2 profiles, each in exactly one shard");
    assert_eq!(
        rows(&b, "SELECT count(*) FROM documents"),
        vec![vec!["2".to_string()]],
        "tasks never write the store"
    );
    let names: Vec<String> = std::fs::read_dir(&shards)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| n.starts_with("degrade-own-") && n.ends_with("-of-2.db")),
        "{names:?}"
    );

    let merge =
        |db: &Path, what: &Path| run(corpus(db).args(["merge", "--format", "json"]).arg(what));
    let out = merge(&b, &shards);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m = json(&out);
    assert_eq!(
        (m["total"]["documents_new"].as_u64(), m["total"]["truths_new"].as_u64()),
        (Some(4), Some(6)),
        "{m}"
    );
    let want = twin_rows(&a);
    assert_eq!(want[0].len(), 4);
    assert_eq!(want[1].len(), 6);
    assert_eq!(want[2].len(), 4 * 5, "five degrade_* attributes a twin");
    assert_eq!(twin_rows(&b), want, "sharded + merged = one run: twins, truths, attributes");

    // Merging again, degrading again (whole or sharded): nothing new.
    let runs = rows(&b, "SELECT count(*) FROM runs");
    let out = merge(&b, &shards);
    assert!(out.status.success());
    let m = json(&out);
    assert_eq!(
        (m["total"]["documents_new"].as_u64(), m["total"]["documents_present"].as_u64()),
        (Some(0), Some(4)),
        "{m}"
    );
    assert_eq!(m["run"], Value::Null, "{m}");
    assert_eq!(rows(&b, "SELECT count(*) FROM runs"), runs);
    let out = degrade(&b, &profiles);
    let s = json(&out);
    assert!(s.as_array().unwrap().iter().all(|p| p["new"] == 0 && p["unchanged"] == 2), "{s}");
    let again = d.path().join("again.db");
    let out = degrade(
        &b,
        &[&profiles[..], &["--shard", "0/1", "--into", again.to_str().unwrap()]].concat(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(json(&out).as_array().unwrap().iter().all(|p| p["new"] == 0), "the store has them");
    assert_eq!(rows(&again, "SELECT count(*) FROM ingests"), vec![vec!["0".to_string()]]);
    assert_eq!(twin_rows(&b), want);

    // A shard file merged into another store, and a missing file: refused, by name.
    let c = d.path().join("foreign.db"); // (a is c.db)
    std::fs::write(d.path().join("other.pdf"), crate::util::tiny_pdf("Another store", "")).unwrap();
    assert!(run(corpus(&c).args(["ingest", "--dataset", "x"]).arg(d.path().join("other.pdf")))
        .status
        .success());
    let out = merge(&c, &shards);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("degrade-own-") && err.contains("does not hold"), "{err}");
    assert_eq!(
        rows(&c, "SELECT count(*) FROM documents"),
        vec![vec!["1".to_string()]],
        "nothing merged"
    );
    let missing = d.path().join("missing.db");
    let out = merge(&b, &missing);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.db"), "names the file");
}

/// The shared OmniDocBench demo pages (images made PDFs, truths in the images' pixels):
/// scanned and photographed twins score their own truths perfectly.
#[test]
fn omnidocbench_demo_twins_score_their_truths_perfectly() {
    // Absent shared data is said and skipped, as every shared-data test does here.
    let Some(data) = shared_data("omnidocbench") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "odb", "-q"])
        .arg(data.join("demo_data/omnidocbench_demo/OmniDocBench_demo.json")));
    assert!(out.status.success());
    let out = degrade(&db, &["--dataset", "odb", "--profile", "scan,photo", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = json(&out);
    assert_eq!((s[0]["new"].as_u64(), s[0]["failed"].as_u64()), (Some(18), Some(0)), "{s}");
    assert!(run(corpus(&db).args(["ocr", "--provider", "truth", "-q"])).status.success());
    for twin in ["odb~scan", "odb~photo"] {
        let f = omnidoc(&db, "truth", twin);
        for m in ["text_edit", "order_edit", "table_edit"] {
            assert_eq!(f[m], Value::from(0.0), "{twin} {m}: {f:?}");
        }
    }
}

/// GT-vs-GT on the twins of every suite's truths (issue 50's acceptance: the truth travels
/// intact): a skewed twin of each set scores, with the truth provider, exactly what its
/// source scores, document by document and metric by metric (and the sources score their
/// best: `gt_vs_gt.rs`). Papers (the sample's JATS), tables (pdf-parse-bench's LaTeX and
/// ICDAR 2013's regions, moved), formulas, olmOCR-bench's unit tests, ParseBench's rules and
/// a COCO layout file (moved); the OmniDocBench demo is the test above.
#[test]
fn twins_score_what_their_sources_score_in_every_suite() {
    use crate::gt_vs_gt::{coco_fixture, first_pdfs, ocr_truth};
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let ingest = |truth: &str, dataset: &str, path: &Path| {
        let out = run(corpus(&db)
            .args(["ingest", "--truth", truth, "--dataset", dataset, "-q"])
            .arg(path));
        assert!(out.status.success(), "{dataset}: {}", String::from_utf8_lossy(&out.stderr));
    };
    // suite -> the datasets it scores here.
    let mut sets: Vec<(&str, &str)> = vec![("paper", "jats"), ("detection", "coco")];
    ingest("jats", "jats", &crate::util::sample_dir());
    coco_fixture(&d.path().join("coco"));
    ingest("coco", "coco", &d.path().join("coco"));
    crate::parsebench::ingest_cases(&db, &d.path().join("pb"));
    sets.push(("parsebench", "pb"));
    if let Some(tables) = shared_data("pdf-parse-bench/tables") {
        first_pdfs(&tables, &d.path().join("tables"), 3);
        ingest("latex-tables", "pptables", &d.path().join("tables/pdfs"));
        sets.push(("table", "pptables"));
    }
    if let Some(icdar) = shared_data("icdar2013/eu") {
        let few = d.path().join("icdar");
        std::fs::create_dir_all(&few).unwrap();
        for e in std::fs::read_dir(&icdar).unwrap().map(|e| e.unwrap().path()) {
            let name = e.file_name().unwrap().to_string_lossy().to_string();
            if ["eu-001", "eu-002", "eu-003"]
                .iter()
                .any(|s| name.starts_with(&format!("{s}.")) || name.starts_with(&format!("{s}-")))
            {
                std::fs::copy(&e, few.join(&name)).unwrap();
            }
        }
        ingest("icdar2013", "icdar", &few);
        sets.push(("table", "icdar"));
        sets.push(("detection", "icdar"));
    }
    if let Some(formulas) = shared_data("pdf-parse-bench/formulas") {
        first_pdfs(&formulas, &d.path().join("formulas"), 2);
        ingest("pdf-parse-bench", "ppformulas", &d.path().join("formulas/pdfs"));
        sets.push(("formula", "ppformulas"));
    }
    if let Some(olmocr) = shared_data("olmocr-bench/sample_data") {
        ingest("olmocr-bench", "olmocr", &olmocr);
        sets.push(("olmocr", "olmocr"));
    }
    let mut datasets: Vec<&str> = sets.iter().map(|s| s.1).collect();
    datasets.sort();
    datasets.dedup();
    for ds in &datasets {
        let out = degrade(&db, &["--dataset", ds, "--profile", "skew", "--seed", "3", "-q"]);
        assert!(out.status.success(), "{ds}: {}", String::from_utf8_lossy(&out.stderr));
        let s = json(&out);
        assert_eq!(s[0]["failed"], 0, "{ds}: {s}");
        assert!(s[0]["truths"].as_u64() > Some(0), "{ds}: {s}");
    }
    ocr_truth(&db);
    let mut suites: Vec<&str> = sets.iter().map(|s| s.0).collect();
    suites.sort();
    suites.dedup();
    for suite in &suites {
        let mut cmd = corpus(&db);
        cmd.args(["eval", "--suite", suite, "--provider", "truth", "-q"]);
        if *suite == "olmocr" {
            cmd.args(["--math", "exact"]);
        }
        let out = run(&mut cmd);
        assert!(out.status.success(), "{suite}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // (suite, dataset, document, metric) -> value, as stored.
    let scores = rows(
        &db,
        "SELECT suite, dataset, document, metric, value FROM v_scores WHERE provider = 'truth'",
    );
    let mut clean = std::collections::BTreeMap::new();
    let mut twins = std::collections::BTreeMap::new();
    for r in &scores {
        match r[1].strip_suffix("~skew") {
            Some(src) => twins
                .insert((r[0].clone(), src.to_string(), r[2].clone(), r[3].clone()), r[4].clone()),
            None => {
                clean.insert((r[0].clone(), r[1].clone(), r[2].clone(), r[3].clone()), r[4].clone())
            }
        };
    }
    for (suite, ds) in &sets {
        let of = |m: &std::collections::BTreeMap<(String, String, String, String), String>| {
            m.iter()
                // Stored under the suite's variant where it has one (`olmocr-exact`).
                .filter(|(k, _)| {
                    (k.0 == *suite || k.0.starts_with(&format!("{suite}-"))) && k.1 == *ds
                })
                .map(|(k, v)| ((k.2.clone(), k.3.clone()), v.clone()))
                .collect::<Vec<_>>()
        };
        let (a, b) = (of(&clean), of(&twins));
        assert!(!a.is_empty(), "{suite} on {ds}: no scores on the source");
        assert_eq!(a.len(), b.len(), "{suite} on {ds}: scores on the source and on the twin");
        for ((ka, va), (kb, vb)) in a.iter().zip(&b) {
            assert_eq!(ka, kb, "{suite} on {ds}");
            let close = match (va.parse::<f64>(), vb.parse::<f64>()) {
                (Ok(x), Ok(y)) => (x - y).abs() < 1e-9,
                _ => va == vb,
            };
            assert!(close, "{suite} on {ds}, {} {}: source {va}, twin {vb}", ka.0, ka.1);
        }
    }
}
