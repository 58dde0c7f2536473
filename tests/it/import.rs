//! `corpus import`, `--truth docling` and the `command` provider, end to end.

use std::io::Write;

use crate::util::{corpus, json, run, sample_dir, shared_data, skip_or_fail, tiny_pdf};

fn sql(db: &std::path::Path, q: &str) -> serde_json::Value {
    let out = run(corpus(db).args(["sql", "--format", "json", q]));
    assert!(out.status.success());
    json(&out)
}

/// Counts Docling's items as the reader should turn them into blocks.
fn docling_counts(v: &serde_json::Value) -> (usize, usize, usize) {
    let texts = v["texts"].as_array().unwrap();
    let headings = texts.iter().filter(|t| t["label"] == "section_header").count();
    let tables = v["tables"].as_array().unwrap().len();
    let cells: usize = v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["data"]["table_cells"].as_array().map_or(0, Vec::len))
        .sum();
    (headings, tables, cells)
}

#[test]
fn docling_json_and_markdown_import_against_their_pdfs() {
    let Some(data) = shared_data("docling") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).args(["ingest", "--dataset", "docling"]).arg(data.join("pdf")))
        .status
        .success());
    let out = run(corpus(&db)
        .args(["import", "--provider", "docling-2", "--format", "docling-json", "--print", "json"])
        .arg(data.join("groundtruth")));
    assert!(out.status.success(), "every DoclingDocument must match its PDF");
    let s = json(&out);
    assert_eq!((s["imported"].as_u64(), s["documents"].as_u64()), (Some(11), Some(11)));
    assert_eq!(s["unmatched"].as_array().unwrap().len(), 0);
    // The pages.meta.json files beside them are other JSON: skipped, not errors.
    assert_eq!(s["skipped"].as_array().unwrap().len(), 11);

    for entry in std::fs::read_dir(data.join("groundtruth")).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".json").filter(|s| !s.ends_with(".pages.meta")) else {
            continue;
        };
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        let (headings, tables, cells) = docling_counts(&v);
        let out =
            run(corpus(&db).args(["show", stem, "--provider", "docling-2", "--format", "json"]));
        assert!(out.status.success());
        let doc = json(&out);
        let blocks = doc["blocks"].as_array().unwrap();
        let count = |k: &str| blocks.iter().filter(|b| b["kind"] == k).count();
        assert_eq!(count("heading"), headings, "{stem}: headings");
        assert_eq!(count("table"), tables, "{stem}: tables");
        let got_cells: usize =
            blocks.iter().filter_map(|b| b["table"]["cells"].as_array()).map(Vec::len).sum();
        assert_eq!(got_cells, cells, "{stem}: table cells");
    }

    let out = run(corpus(&db)
        .args(["import", "--provider", "docling-md", "--format", "markdown", "--print", "json"])
        .arg(data.join("groundtruth")));
    assert!(out.status.success());
    assert_eq!(json(&out)["imported"].as_u64(), Some(11));
    // Docling's Markdown of the table page keeps its table.
    let out = run(corpus(&db).args([
        "show",
        "2305.03393v1-pg9",
        "--provider",
        "docling-md",
        "--format",
        "json",
    ]));
    let doc = json(&out);
    let t = doc["blocks"].as_array().unwrap().iter().find(|b| b["kind"] == "table").unwrap();
    assert_eq!(t["table"]["cols"].as_u64(), Some(8));

    // Importing again changes nothing.
    let out = run(corpus(&db)
        .args(["import", "--provider", "docling-2", "--format", "docling-json", "--print", "json"])
        .arg(data.join("groundtruth")));
    let s = json(&out);
    assert_eq!((s["imported"].as_u64(), s["unchanged"].as_u64()), (Some(0), Some(11)));
    let n = sql(&db, "SELECT count(*) AS n FROM outputs");
    assert_eq!(n[0]["n"].as_i64(), Some(22));
}

#[test]
fn docling_truth_makes_agreement_one_eval_away() {
    let Some(data) = shared_data("docling") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "docling", "--format", "json"])
        .arg(data.join("pdf")));
    assert!(out.status.success());
    assert_eq!(json(&out)["truths_added"].as_u64(), Some(11));
    let out = run(corpus(&db)
        .args(["import", "--provider", "docling-2", "--format", "docling-json", "-q"])
        .arg(data.join("groundtruth")));
    assert!(out.status.success());
    let out = run(corpus(&db).args(["eval", "--provider", "docling-2", "--format", "json"]));
    assert!(out.status.success());
    // The same Docling file on both sides agrees with itself everywhere it has content.
    let rows = sql(&db, "SELECT metric, min(value) AS lo FROM v_scores WHERE provider = 'docling-2' AND value IS NOT NULL GROUP BY metric");
    for r in rows.as_array().unwrap() {
        assert_eq!(r["lo"].as_f64(), Some(1.0), "{r}");
    }
}

#[test]
fn olmocr_outputs_import_as_per_page_repeats() {
    let Some(data) = shared_data("olmocr-bench/sample_data") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).arg("ingest").arg(data.join("pdfs"))).status.success());
    let out = run(corpus(&db)
        .args(["import", "--provider", "olmocr-0.4", "--format", "markdown", "--print", "json"])
        .arg(data.join("olmocr_pipeline")));
    assert!(out.status.success());
    let s = json(&out);
    fn count_md(dir: &std::path::Path) -> u64 {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                if p.is_dir() {
                    count_md(&p)
                } else {
                    u64::from(p.extension().is_some_and(|x| x == "md"))
                }
            })
            .sum()
    }
    let files = count_md(&data.join("olmocr_pipeline"));
    assert_eq!(s["imported"].as_u64(), Some(files));
    let rows = sql(&db, "SELECT count(*) AS n, sum(page_selection <> 'all') AS paged FROM v_outputs WHERE provider = 'olmocr-0.4'");
    assert_eq!(rows[0]["n"].as_u64(), Some(files));
    assert_eq!(rows[0]["paged"].as_u64(), Some(files));
}

#[test]
fn zip_input_is_read_in_memory_and_escaping_paths_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    std::fs::write(d.path().join("alpha.pdf"), tiny_pdf("Alpha", "")).unwrap();
    std::fs::write(d.path().join("beta.pdf"), tiny_pdf("Beta", "")).unwrap();
    assert!(run(corpus(&db)
        .arg("ingest")
        .arg(d.path().join("alpha.pdf"))
        .arg(d.path().join("beta.pdf")))
    .status
    .success());
    let zpath = d.path().join("out.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&zpath).unwrap());
    let opt =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, body) in [
        ("results/alpha.md", "# Alpha\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
        ("../beta.md", "# Beta\n"),
        ("gamma.md", "# Gamma\n"),
    ] {
        z.start_file(name, opt).unwrap();
        z.write_all(body.as_bytes()).unwrap();
    }
    z.finish().unwrap();
    let out = run(corpus(&db)
        .args(["import", "--provider", "marker-1", "--format", "markdown", "--print", "json"])
        .arg(&zpath));
    assert_eq!(out.status.code(), Some(3));
    let s = json(&out);
    assert_eq!(s["imported"].as_u64(), Some(1));
    let errors = s["errors"].to_string();
    assert!(errors.contains("../beta.md") && errors.contains("leaves the archive"), "{errors}");
    assert!(s["unmatched"].to_string().contains("gamma"), "{s}");
    assert!(!d.path().parent().unwrap().join("beta.md").exists());
    // Nothing was extracted next to the archive either.
    assert!(!d.path().join("results").exists());
    let out = run(corpus(&db)
        .args(["import", "--provider", "pdfium", "--format", "markdown"])
        .arg(&zpath));
    assert_eq!(out.status.code(), Some(2), "a built-in provider's id is refused (a usage error)");
}

#[test]
fn docling_files_match_by_recorded_pdf_hash_when_names_differ() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let pdf = tiny_pdf("Hashed", "");
    std::fs::write(d.path().join("original.pdf"), &pdf).unwrap();
    assert!(run(corpus(&db).arg("ingest").arg(d.path().join("original.pdf"))).status.success());
    let hash = corpus::import::sha256_low64(&pdf);
    let dj = serde_json::json!({
        "schema_name": "DoclingDocument", "version": "1.10.0", "name": "renamed",
        "origin": {"filename": "renamed.pdf", "binary_hash": hash, "mimetype": "application/pdf"},
        "body": {"self_ref": "#/body", "children": [{"$ref": "#/texts/0"}]},
        "furniture": {"self_ref": "#/furniture", "children": []},
        "groups": [], "tables": [], "pictures": [],
        "texts": [{"self_ref": "#/texts/0", "label": "text", "text": "Hashed"}],
        "pages": {}
    });
    let dir = d.path().join("out");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("renamed.json"), dj.to_string()).unwrap();
    let mut other = dj.clone();
    other["origin"]["binary_hash"] = serde_json::json!(12345u64);
    std::fs::write(dir.join("stranger.json"), other.to_string()).unwrap();
    let out = run(corpus(&db)
        .args(["import", "--provider", "docling-x", "--format", "docling-json", "--print", "json"])
        .arg(&dir));
    let s = json(&out);
    assert_eq!(s["imported"].as_u64(), Some(1));
    assert!(s["unmatched"].to_string().contains("stranger.json"));
    assert!(s["unmatched"].to_string().contains("recorded PDF hash 12345"));
}

#[test]
fn command_provider_runs_pdftotext_caches_and_records_failures() {
    if std::process::Command::new("pdftotext").arg("-v").output().is_err() {
        skip_or_fail("pdftotext (Debian's poppler-utils) is not installed");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).arg("ingest").arg(sample_dir())).status.success());
    let args = [
        "ocr",
        "--provider",
        "command",
        "--name",
        "pdftotext-layout",
        "--version",
        "poppler",
        "--argv",
        "pdftotext -layout {pdf} {outdir}/out.txt",
        "--output-format",
        "text",
        "--format",
        "json",
    ];
    let out = run(corpus(&db).args(args));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!((s["ran"].as_u64(), s["ok"].as_u64()), (Some(3), Some(3)));
    let out = run(corpus(&db).args(args));
    let s = json(&out);
    assert_eq!(
        (s["cached"].as_u64(), s["ran"].as_u64()),
        (Some(3), Some(0)),
        "a re-run is served from the cache"
    );
    let out = run(corpus(&db).args([
        "export",
        "101",
        "--provider",
        "pdftotext-layout",
        "--format",
        "text",
    ]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("Introduction"), "{text}");
    // A different argv template is a different cache key; a failing one records its stderr.
    let out = run(corpus(&db).args([
        "ocr",
        "--provider",
        "command",
        "--name",
        "pdftotext-layout",
        "--version",
        "poppler",
        "--argv",
        "pdftotext -f 99 {pdf} {outdir}/out.txt",
        "--output-format",
        "text",
        "--format",
        "json",
    ]));
    assert_eq!(out.status.code(), Some(3));
    let s = json(&out);
    assert_eq!(s["failed"].as_u64(), Some(3));
    let err = s["failures"][0]["error"].as_str().unwrap();
    assert!(err.contains("pdftotext exited with") && err.contains("stderr:"), "{err}");
    // The time limit is enforced on a real tool too.
    let out = run(corpus(&db).args([
        "ocr",
        "--provider",
        "command",
        "--name",
        "slow",
        "--version",
        "1",
        "--timeout",
        "0.5",
        "--argv",
        "sh -c 'sleep 20; pdftotext \"$0\" -' {pdf}",
        "--output-format",
        "text",
        "--format",
        "json",
    ]));
    let s = json(&out);
    assert_eq!(s["failed"].as_u64(), Some(3));
    assert!(s["failures"][0]["error"].as_str().unwrap().starts_with("timed out after 0.5 s"));
}

#[test]
fn peerread_and_grobid_tei_outputs_import_and_score() {
    // The sample corpus's own PeerRead files, imported as a provider's output, agree with the
    // truth everywhere.
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).args(["ingest", "--truth", "peerread"]).arg(sample_dir()))
        .status
        .success());
    let out = run(corpus(&db)
        .args(["import", "--provider", "papermate", "--format", "peerread", "--print", "json"])
        .arg(sample_dir()));
    assert!(out.status.success());
    assert_eq!(json(&out)["imported"].as_u64(), Some(3));
    assert!(run(corpus(&db).args(["eval", "--provider", "papermate", "-q"])).status.success());
    let rows = sql(&db, "SELECT min(value) AS lo, count(*) AS n FROM v_scores WHERE provider = 'papermate' AND metric = 'text_r'");
    assert_eq!((rows[0]["lo"].as_f64(), rows[0]["n"].as_i64()), (Some(1.0), Some(3)));

    // GROBID's output TEI of the S2ORC paper, imported as grobid-0.6.1.
    let Some(s2orc) = shared_data("s2orc") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).arg("ingest").arg(s2orc.join("N18-3011.pdf"))).status.success());
    let out = run(corpus(&db)
        .args(["import", "--provider", "grobid-0.6.1", "--format", "grobid-tei", "--print", "json"])
        .arg(s2orc.join("N18-3011.tei.xml")));
    assert!(out.status.success());
    assert_eq!(json(&out)["imported"].as_u64(), Some(1));
    let out = run(corpus(&db).args([
        "show",
        "N18-3011",
        "--provider",
        "grobid-0.6.1",
        "--format",
        "json",
    ]));
    let doc = json(&out);
    let kinds: Vec<&str> =
        doc["blocks"].as_array().unwrap().iter().map(|b| b["kind"].as_str().unwrap()).collect();
    assert!(
        kinds.contains(&"title") && kinds.contains(&"heading") && kinds.contains(&"reference"),
        "{kinds:?}"
    );
}

/// Unstructured's element types and `hi_res` scores reach the stored blocks through
/// `corpus import` (labels and confidences for the detection suite; import version 5, so files
/// imported before are read again when imported again), and the detection suite scores them.
#[test]
fn unstructured_import_keeps_element_types_and_scores() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let pdfs = d.path().join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    std::fs::copy(sample_dir().join("101.pdf"), pdfs.join("101.pdf")).unwrap();
    assert!(run(corpus(&db).args(["ingest", "-q"]).arg(&pdfs)).status.success());
    let coords = |x0: f64, y0: f64, x1: f64, y1: f64| {
        serde_json::json!({"points": [[x0, y0], [x0, y1], [x1, y1], [x1, y0]],
            "system": "PixelSpace", "layout_width": 1224, "layout_height": 1584})
    };
    let elements = serde_json::json!([
        {"type": "Title", "text": "A title", "metadata": {"page_number": 1,
            "coordinates": coords(200.0, 160.0, 1000.0, 190.0), "detection_class_prob": 0.91}},
        {"type": "NarrativeText", "text": "Some text.", "metadata": {"page_number": 1,
            "coordinates": coords(150.0, 300.0, 1070.0, 600.0)}}
    ]);
    let files = d.path().join("out");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("101.json"), elements.to_string()).unwrap();
    let out = run(corpus(&db)
        .args(["import", "--provider", "uns", "--format", "unstructured-json", "--print", "json"])
        .arg(&files));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["imported"].as_u64(), Some(1));
    let out = run(corpus(&db).args(["show", "101", "--provider", "uns", "--format", "json"]));
    let doc = json(&out);
    let blocks = doc["blocks"].as_array().unwrap();
    assert_eq!(blocks[0]["label"], "unstructured:Title", "{doc}");
    assert_eq!(blocks[0]["confidence"], 0.91, "{doc}");
    assert_eq!(blocks[1]["label"], "unstructured:NarrativeText", "{doc}");
    assert!(blocks[1].get("confidence").is_none_or(|c| c.is_null()), "{doc}");
}
