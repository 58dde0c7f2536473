//! Ground truth against itself (issue 36): for every suite, on the shared data, `corpus ocr
//! --provider truth` then `corpus eval --suite S --provider truth` gives every metric its best
//! value (1, or 0 for an edit distance), each failure naming the metric and the document. A
//! few documents per set where the sets are large; CDM only where TeX is here (as in
//! `formula.rs`). Two bounds come from the metrics themselves, not from the rendering, and are
//! asserted as such: GriTS-Top of an ICDAR 2013 table with holes (grid slots no cell covers:
//! `grits.py` scores a hole 0 even against a hole), and olmOCR-bench tests the truth cannot
//! write as Markdown, which the `ocr` output names and which are then exactly the failing ones.

use std::collections::BTreeSet;
use std::path::Path;

use corpus::suites::Suite;
use serde_json::Value;

use crate::util::{corpus, json, run, sample_dir, shared_data};

const EPS: f64 = 1e-9;

/// Each suite's GT-vs-GT case below: an exhaustive match, so a suite added to the registry
/// does not compile here until it has one (with `every_suite_has_its_own_case`).
fn case_of(suite: Suite) -> fn() {
    match suite {
        Suite::Paper => paper_truths_score_one,
        Suite::Omnidoc => omnidoc_truths_score_best,
        Suite::Olmocr => olmocr_truths_pass_every_test_they_render,
        Suite::Table => table_truths_score_one,
        Suite::Formula => formula_truths_score_one,
        Suite::Parsebench => parsebench_truths_pass_every_rule,
        Suite::Detection => detection_truths_score_one,
    }
}

/// Every suite has a case of its own (the cases run as the tests they are).
#[test]
fn every_suite_has_its_own_case() {
    let cases: Vec<usize> = Suite::ALL.iter().map(|s| case_of(*s) as usize).collect();
    let distinct: BTreeSet<usize> = cases.iter().copied().collect();
    assert_eq!(distinct.len(), Suite::ALL.len(), "two suites share a case");
}

/// `ocr --provider truth` on the whole store: it succeeds, renders every truth it has (none
/// failed), and returns its JSON summary.
pub fn ocr_truth(db: &Path) -> Value {
    let out = run(corpus(db).args(["ocr", "--provider", "truth", "--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = json(&out);
    for f in s["formats"].as_array().unwrap() {
        assert_eq!(f["failed"], 0, "{}: {f}", f["format"]);
        assert_eq!(f["written"], f["truths"], "{}: {f}", f["format"]);
    }
    s
}

fn eval(db: &Path, suite: &str, extra: &[&str]) -> Value {
    let out = run(corpus(db)
        .args(["eval", "--suite", suite, "--provider", "truth", "--format", "json"])
        .args(extra));
    assert!(out.status.success(), "{suite}: {}", String::from_utf8_lossy(&out.stderr));
    json(&out)
}

fn ingest(db: &Path, truth: &str, dataset: &str, dir: &Path) {
    let out = run(corpus(db)
        .args(["ingest", "--truth", truth, "--dataset", dataset, "--format", "json"])
        .arg(dir));
    let s = json(&out);
    assert!(out.status.success(), "{s}");
    assert!(s["truths_added"].as_u64().unwrap() > 0, "{truth} {}: {s}", dir.display());
}

/// Asserts `got` is `want` within [`EPS`], naming what.
fn best(what: &str, got: Option<f64>, want: f64) {
    let got = got.unwrap_or_else(|| panic!("{what}: no value, want {want}"));
    assert!((got - want).abs() < EPS, "{what}: {got}, want {want}");
}

/// `[[id, value], ...]` as pairs.
fn pairs(v: &Value) -> Vec<(String, Option<f64>)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_f64()))
        .collect()
}

/// Copies the first `n` PDFs of a pdf-parse-bench folder with their truths.
pub fn first_pdfs(src: &Path, dst: &Path, n: usize) {
    for sub in ["pdfs", "ground_truth"] {
        std::fs::create_dir_all(dst.join(sub)).unwrap();
    }
    let mut pdfs: Vec<_> = std::fs::read_dir(src.join("pdfs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    pdfs.sort();
    for p in pdfs.into_iter().take(n) {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        std::fs::copy(&p, dst.join("pdfs").join(format!("{stem}.pdf"))).unwrap();
        let gt = format!("{stem}.json");
        std::fs::copy(src.join("ground_truth").join(&gt), dst.join("ground_truth").join(&gt))
            .unwrap();
    }
}

#[test]
fn truth_with_nothing_to_render_says_so() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db).args(["ocr", "--provider", "truth"]));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("nothing to do"), "{text}");
    let out = run(corpus(&db).args(["ocr", "--provider", "truth", "--format", "json"]));
    let s = json(&out);
    assert!(s["note"].as_str().unwrap().contains("no truth"), "{s}");
    assert_eq!(s["formats"], serde_json::json!([]));
}

/// GROBID's hand-corrected TEI, S2ORC JSON, Docling JSON and the sample's JATS: 1 on every
/// paper metric a truth defines.
#[test]
fn paper_truths_score_one() {
    let (Some(gold), Some(s2orc), Some(docling)) =
        (shared_data("grobid-gold/pdf"), shared_data("s2orc"), shared_data("docling/pdf"))
    else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    ingest(&db, "grobid-tei", "grobid", &gold);
    ingest(&db, "s2orc", "s2orc", &s2orc);
    ingest(&db, "docling", "docling", &docling);
    ingest(&db, "jats", "jats", &sample_dir());
    let o = ocr_truth(&db);
    let formats: BTreeSet<&str> =
        o["formats"].as_array().unwrap().iter().map(|f| f["format"].as_str().unwrap()).collect();
    assert_eq!(formats, ["docling", "grobid-tei", "jats", "s2orc"].into_iter().collect());
    let s = eval(&db, "paper", &[]);
    assert!(s["failures"].as_array().unwrap().is_empty(), "{s}");
    let rows = s["rows"].as_array().unwrap();
    assert_eq!(rows.len() as u64, o["ok"].as_u64().unwrap(), "one row per truth");
    for r in rows {
        let doc = format!("{} ({})", r["document"], r["dataset"]);
        for (m, v) in pairs(&r["metrics"]).into_iter().filter(|(_, v)| v.is_some()) {
            best(&format!("paper {m} of {doc}"), v, 1.0);
        }
    }
}

/// The share of a table's grid slots some cell covers: GriTS-Top's best for it (a slot no cell
/// covers scores 0 whatever it is compared with).
fn covered_share(t: &corpus::doc::Table) -> f64 {
    let mut slots = BTreeSet::new();
    for c in &t.cells {
        for r in c.row..c.row + c.row_span.max(1) {
            for k in c.col..c.col + c.col_span.max(1) {
                slots.insert((r, k));
            }
        }
    }
    let rows = t.cells.iter().map(|c| c.row + c.row_span.max(1)).max().unwrap_or(0);
    let cols = t.cells.iter().map(|c| c.col + c.col_span.max(1)).max().unwrap_or(0);
    let all = (rows * cols) as usize;
    if all == 0 {
        1.0
    } else {
        slots.len() as f64 / all as f64
    }
}

/// pdf-parse-bench's LaTeX tables (the first 8) and ICDAR 2013's EU set: TEDS, GriTS, value
/// accuracy, SCORE and detection all 1 (every region found with IoU 1), but GriTS-Top on
/// ICDAR tables with holes, which is their covered share.
#[test]
fn table_truths_score_one() {
    let (Some(tables), Some(icdar)) =
        (shared_data("pdf-parse-bench/tables"), shared_data("icdar2013/eu"))
    else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let few = d.path().join("tables");
    first_pdfs(&tables, &few, 8);
    ingest(&db, "latex-tables", "pptables", &few.join("pdfs"));
    ingest(&db, "icdar2013", "icdar", &icdar);
    ocr_truth(&db);
    let s = eval(&db, "table", &[]);
    assert!(s["failures"].as_array().unwrap().is_empty(), "{s}");
    let rows = s["rows"].as_array().unwrap();
    let icdar_docs = rows.iter().filter(|r| r["document"].as_str().unwrap().starts_with("eu-"));
    assert_eq!((rows.len(), icdar_docs.count()), (8 + 27, 27));
    for r in rows {
        let doc = r["document"].as_str().unwrap();
        assert_eq!(r["matched"], r["gt_tables"], "{doc}");
        assert_eq!(r["pred_tables"], r["gt_tables"], "{doc}");
        let top = if doc.starts_with("eu-") {
            let reg = std::fs::read(icdar.join(format!("{doc}-reg.xml"))).unwrap();
            let st = std::fs::read(icdar.join(format!("{doc}-str.xml"))).unwrap();
            let t = corpus::formats::icdar2013::read_truth(&reg, &st).unwrap();
            t.tables.iter().map(covered_share).sum::<f64>() / t.tables.len() as f64
        } else {
            1.0
        };
        for (m, v) in pairs(&r["values"]) {
            let want = if m.starts_with("grits_top") { top } else { 1.0 };
            best(&format!("table {m} of {doc}"), v, want);
        }
    }
    // Every region of every ICDAR page is found, with IoU 1.
    let out = run(corpus(&db).args([
        "sql",
        "--format",
        "json",
        "SELECT document, trace FROM v_scores WHERE suite = 'table' AND provider = 'truth' \
         AND metric = 'det_r' AND document LIKE 'eu-%'",
    ]));
    let found = json(&out);
    assert_eq!(found.as_array().unwrap().len(), 27);
    for r in found.as_array().unwrap() {
        let t: Value = serde_json::from_str(r["trace"].as_str().unwrap()).unwrap();
        let ious: Vec<f64> =
            t["found"].as_array().unwrap().iter().map(|f| f["iou"].as_f64().unwrap()).collect();
        assert_eq!(ious.len() as u64, t["gt_regions"].as_u64().unwrap(), "{}", r["document"]);
        for iou in ious {
            best(&format!("region IoU of {}", r["document"]), Some(iou), 1.0);
        }
    }
}

/// pdf-parse-bench's formulas (the first 3 pages): every formula found, equal, CDM 1 (with TeX).
#[test]
fn formula_truths_score_one() {
    let Some(data) = shared_data("pdf-parse-bench/formulas") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let few = d.path().join("formulas");
    first_pdfs(&data, &few, 3);
    ingest(&db, "pdf-parse-bench", "ppformulas", &few.join("pdfs"));
    ocr_truth(&db);
    let tex = crate::cdm::tex_ready(corpus::metrics::cdm::Variant::OmniDocBench);
    let s = eval(&db, "formula", &[]);
    assert_eq!((s["documents"].as_u64(), s["scored"].as_u64()), (Some(3), Some(3)), "{s}");
    let mut groups = vec![("all".to_string(), &s["formulas"])];
    groups.extend(s["by_type"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v)));
    for (what, g) in groups {
        assert_eq!(g["found"], g["formulas"], "{what}");
        if tex {
            assert_eq!(g["cdm_errors"], 0, "{what}");
        }
        for (m, v) in pairs(&g["values"]) {
            if tex || !m.starts_with("cdm") {
                best(&format!("formula {m} of {what} formulas"), v, 1.0);
            }
        }
    }
    for r in s["rows"].as_array().unwrap() {
        for (m, v) in pairs(&r["values"]).into_iter().filter(|(_, v)| v.is_some()) {
            if tex || !m.starts_with("cdm") {
                best(&format!("formula {m} of {}", r["document"]), v, 1.0);
            }
        }
    }
}

/// OmniDocBench's demo: every edit distance 0, TEDS, CDM (with TeX) and ExpRate 1, `overall`
/// 100, over the run and on every page.
#[test]
fn omnidoc_truths_score_best() {
    let Some(data) = shared_data("omnidocbench") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let demo = data.join("demo_data/omnidocbench_demo/OmniDocBench_demo.json");
    ingest(&db, "omnidocbench", "omnidoc", &demo);
    ocr_truth(&db);
    let tex = crate::cdm::tex_ready(corpus::metrics::cdm::Variant::OmniDocBench);
    let s = eval(&db, "omnidoc", &[]);
    assert_eq!((s["pages"].as_u64(), s["scored"].as_u64()), (Some(18), Some(18)), "{s}");
    let needs_cdm =
        |m: &str| m.starts_with("formula_cdm") || m == "formula_exprate" || m == "overall";
    let want = |m: &str| match m {
        m if m.ends_with("_edit") || m.starts_with("text_edit") => 0.0,
        "overall" => 100.0,
        _ => 1.0,
    };
    for (m, v) in pairs(&s["figures"]) {
        if tex || !needs_cdm(&m) {
            best(&format!("omnidoc {m} of the run"), v, want(&m));
        }
    }
    let out = run(corpus(&db).args([
        "sql",
        "--format",
        "json",
        "SELECT document, metric, value FROM v_scores WHERE suite = 'omnidoc' \
         AND provider = 'truth' AND value IS NOT NULL",
    ]));
    let rows = json(&out);
    assert!(rows.as_array().unwrap().len() > 18 * 5, "{rows}");
    for r in rows.as_array().unwrap() {
        let m = r["metric"].as_str().unwrap();
        if tex || !needs_cdm(m) {
            best(&format!("omnidoc {m} of {}", r["document"]), r["value"].as_f64(), want(m));
        }
    }
}

/// olmOCR-bench's sample: every test the truth renders passes, and the ones it cannot render
/// (the baselines the suite adds to pages whose tests are all `absent`: nothing to write) are
/// exactly the failing ones, named by `ocr`.
#[test]
fn olmocr_truths_pass_every_test_they_render() {
    let Some(dir) = shared_data("olmocr-bench/sample_data") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    ingest(&db, "olmocr-bench", "olmocr", &dir);
    let o = ocr_truth(&db);
    let f = o["formats"].as_array().unwrap().iter().find(|f| f["format"] == "olmocr-bench");
    let unrendered = &f.unwrap()["unrendered"];
    let mut named = BTreeSet::new();
    for (kind, tests) in unrendered.as_object().unwrap() {
        assert_eq!(kind, "baseline", "{unrendered}");
        for t in tests.as_array().unwrap() {
            assert!(t["why"].as_str().unwrap().contains("name no text"), "{t}");
            named.insert(t["id"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(named.len(), 7, "{unrendered}");
    assert_eq!(o["unrendered_tests"], 7);

    let s = eval(&db, "olmocr", &["--math", "exact"]);
    let cands = s["candidates"].as_array().unwrap();
    assert_eq!(
        cands.len(),
        1,
        "one system, the truth (suites/olmocr.rs must take its outputs): {s}"
    );
    let c = &cands[0];
    assert_eq!((c["provider"].as_str(), c["documents"].as_u64()), (Some("truth"), Some(21)));
    let tests = c["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 120);
    let mut failing = BTreeSet::new();
    for t in tests {
        let id = t["id"].as_str().unwrap();
        if t["passed"] == false {
            failing.insert(id.to_string());
        }
        if !named.contains(id) {
            assert_eq!(t["value"], 1.0, "olmocr {} test {id} of {}: {t}", t["kind"], t["document"]);
        }
    }
    assert_eq!(failing, named);
}

/// ParseBench: the project's test cases, each document with its expected Markdown; every rule
/// run passes on the truth (but `rotate_check`), so each dimension this build computes is 1.
#[test]
fn parsebench_truths_pass_every_rule() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let cases = d.path().join("pb");
    std::fs::create_dir_all(&cases).unwrap();
    crate::parsebench::ingest_cases(&db, &cases);
    let o = ocr_truth(&db);
    assert_eq!(o["formats"][0]["format"], "parsebench", "{o}");
    let s = eval(&db, "parsebench", &[]);
    assert!(s["failures"].as_array().unwrap().is_empty(), "{s}");
    let got = crate::parsebench::rule_results(&s);
    assert_eq!(got, crate::parsebench::expected("truth"));
    // `rotate_check` reads the page angle a provider reports, which no corpus output carries:
    // it fails on the truth too (docs/parsebench.md), and counts in no dimension.
    assert!(got.iter().all(|(id, p)| *p != Some(false) || id.contains("-rotate-")), "{got:?}");
    for d in s["dimensions"].as_array().unwrap() {
        if let Some(v) = d["value"].as_f64() {
            best(&format!("parsebench {}", d["category"]), Some(v), 1.0);
        }
    }
}

/// A two-page PDF of the project's own and its COCO truth (DocLayNet's names, boxes in images
/// at twice the page's size), in `dir`: `doc.pdf` + `doc.coco.json`.
pub fn coco_fixture(dir: &Path) {
    use corpus::sample::pdf::{Font, Pdf, PdfPage};
    std::fs::create_dir_all(dir).unwrap();
    let mut pdf = Pdf::new();
    for k in 0..2 {
        let mut page = PdfPage::new(612.0, 792.0);
        page.text(Font::Regular, 18.0, 72.0, 720.0, &format!("Title of page {}", k + 1));
        page.text(Font::Regular, 10.0, 72.0, 600.0, "A paragraph of body text.");
        pdf.push(page);
    }
    std::fs::write(dir.join("doc.pdf"), pdf.to_bytes()).unwrap();
    let coco = serde_json::json!({
        "images": [
            {"id": 1, "file_name": "doc_1.png", "width": 1224, "height": 1584},
            {"id": 2, "file_name": "doc_2.png", "width": 1224, "height": 1584}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 11, "bbox": [144, 120, 600, 50], "area": 30000},
            {"id": 2, "image_id": 1, "category_id": 10, "bbox": [144, 360, 900, 300], "area": 270000},
            {"id": 3, "image_id": 1, "category_id": 5, "bbox": [580, 1500, 60, 30], "area": 1800},
            {"id": 4, "image_id": 2, "category_id": 9, "bbox": [144, 200, 900, 600], "area": 540000},
            {"id": 5, "image_id": 2, "category_id": 1, "bbox": [144, 820, 900, 40], "area": 36000}],
        "categories": [
            {"id": 1, "name": "Caption"}, {"id": 2, "name": "Footnote"}, {"id": 3, "name": "Formula"},
            {"id": 4, "name": "List-item"}, {"id": 5, "name": "Page-footer"},
            {"id": 6, "name": "Page-header"}, {"id": 7, "name": "Picture"},
            {"id": 8, "name": "Section-header"}, {"id": 9, "name": "Table"},
            {"id": 10, "name": "Text"}, {"id": 11, "name": "Title"}]
    });
    std::fs::write(dir.join("doc.coco.json"), coco.to_string()).unwrap();
}

/// A Label Studio truth of the project's own PDF, in dataset `ls`: pdfium's reading drafted
/// (`truth draft --label-studio`), every task exported as Label Studio exports a task an
/// annotator submitted unchanged, and ingested with `--truth label-studio`.
fn label_studio_truth(db: &Path, dir: &Path) {
    use corpus::sample::pdf::{Font, Pdf, PdfPage};
    let mut pdf = Pdf::new();
    for k in 0..2 {
        let mut page = PdfPage::new(612.0, 792.0);
        page.text(Font::Bold, 18.0, 72.0, 700.0, &format!("Annotated page {}", k + 1));
        page.text(Font::Regular, 10.0, 72.0, 640.0, "A first paragraph of the page.");
        page.text(Font::Regular, 10.0, 72.0, 560.0, "A second paragraph, lower down.");
        pdf.push(page);
    }
    std::fs::create_dir_all(dir.join("pdfs")).unwrap();
    std::fs::write(dir.join("pdfs/ls.pdf"), pdf.to_bytes()).unwrap();
    assert!(run(corpus(db).args(["ingest", "--dataset", "ls"]).arg(dir.join("pdfs")))
        .status
        .success());
    let pdfium = ["ocr", "--provider", "pdfium", "--dataset", "ls", "-q"];
    assert!(run(corpus(db).args(pdfium)).status.success());
    let ls = dir.join("ls");
    let out = run(corpus(db)
        .args(["truth", "draft", "--dataset", "ls", "--from", "pdfium", "-o"])
        .arg(dir.join("draft"))
        .arg("--label-studio")
        .arg(&ls));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tasks: Vec<Value> =
        serde_json::from_slice(&std::fs::read(ls.join("tasks.json")).unwrap()).unwrap();
    let export: Vec<Value> = tasks
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let mut t = t.clone();
            t["id"] = serde_json::json!(k + 1);
            t["annotations"] = serde_json::json!([{"id": k + 1, "was_cancelled": false,
                "result": t["predictions"][0]["result"].clone(),
                "updated_at": "2026-01-01T00:00:00Z"}]);
            t
        })
        .collect();
    let path = dir.join("export.json");
    std::fs::write(&path, serde_json::to_vec(&export).unwrap()).unwrap();
    ingest(db, "label-studio", "ls", &path);
}

/// Unmapped labels, which GT-vs-GT must name as often on the output's side as on the truth's.
fn unmapped_both_sides(what: &str, s: &Value) {
    let u = s["unmapped"].as_object().unwrap();
    for (k, n) in u {
        let other = match k.split_once(' ') {
            Some(("truth", l)) => format!("output {l}"),
            Some(("output", l)) => format!("truth {l}"),
            _ => panic!("{what}: unmapped key {k}"),
        };
        assert_eq!(u.get(&other), Some(n), "{what}: {k} unmapped {n} times, {other} not as often");
    }
}

/// Docling's truths as the detection suite reads them: ARD 1 on every document but those with
/// two items on one box, whose matches COCO's greedy matching swaps (a tie goes to the later
/// truth box, as pycocotools' `evaluateImg` has it), which reads as two elements out of order.
fn docling_reading_order(what: &str, s: &Value) {
    let gt = shared_data("docling/groundtruth").unwrap();
    for r in s["rows"].as_array().unwrap() {
        let name = r["document"].as_str().unwrap();
        let ard = pairs(&r["values"]).into_iter().find(|(k, _)| k == "ard").unwrap().1;
        if ard.is_some_and(|a| (a - 1.0).abs() < EPS) {
            continue;
        }
        let v: Value = serde_json::from_slice(
            &std::fs::read(gt.join(format!("{}.json", name.trim_end_matches(".pdf")))).unwrap(),
        )
        .unwrap();
        let mut boxes = BTreeSet::new();
        let repeated = ["texts", "tables", "pictures"]
            .iter()
            .flat_map(|k| v[*k].as_array().cloned().unwrap_or_default())
            .filter_map(|it| it["prov"].get(0).cloned())
            .any(|p| !boxes.insert((p["page_no"].to_string(), p["bbox"].to_string())));
        assert!(repeated, "{what}: ARD {ard:?} of {name}, which repeats no box");
    }
}

/// Detection: COCO's figures 1 on the truth's own boxes, in both taxonomies, for every truth
/// format with boxes ([`corpus::formats::TruthFormat::has_boxes`]: OmniDocBench's demo, ICDAR
/// 2013's EU set, a COCO file, a Label Studio export, ParseBench's layout cases, Docling's
/// truths), reading order 1 where the truth's order is the rendering's, and an unmapped label
/// only as often on the output's side as on the truth's. A format with boxes that the suite does
/// not read fails, as does one this test has no data for (but shared data absent here).
#[test]
fn detection_truths_score_one() {
    use corpus::formats::TruthFormat;
    use corpus::suites::detection::FORMATS;
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let coco = d.path().join("coco");
    coco_fixture(&coco);
    ingest(&db, "coco", "coco", &coco);
    let mut datasets = vec![("coco", TruthFormat::Coco)];
    let mut absent = Vec::new();
    label_studio_truth(&db, &d.path().join("ls"));
    datasets.push(("ls", TruthFormat::LabelStudio));
    let cases = d.path().join("pb");
    std::fs::create_dir_all(&cases).unwrap();
    crate::parsebench::ingest_cases(&db, &cases);
    datasets.push(("pb", TruthFormat::ParseBench));
    match shared_data("omnidocbench") {
        Some(data) => {
            let demo = data.join("demo_data/omnidocbench_demo/OmniDocBench_demo.json");
            ingest(&db, "omnidocbench", "omnidoc", &demo);
            datasets.push(("omnidoc", TruthFormat::OmniDocBench));
        }
        None => absent.push(TruthFormat::OmniDocBench),
    }
    match shared_data("icdar2013/eu") {
        Some(icdar) => {
            ingest(&db, "icdar2013", "icdar", &icdar);
            datasets.push(("icdar", TruthFormat::Icdar2013));
        }
        None => absent.push(TruthFormat::Icdar2013),
    }
    match shared_data("docling/pdf") {
        Some(docling) => {
            ingest(&db, "docling", "docling", &docling);
            datasets.push(("docling", TruthFormat::Docling));
        }
        None => absent.push(TruthFormat::Docling),
    }
    for f in TruthFormat::ALL.into_iter().filter(|f| f.has_boxes()) {
        assert!(
            FORMATS.contains(&f),
            "{} has boxes; the detection suite does not read it",
            f.as_str()
        );
        let covered = datasets.iter().any(|d| d.1 == f) || absent.contains(&f);
        assert!(covered, "{} has boxes; this test scores no truth of it", f.as_str());
    }
    ocr_truth(&db);
    for classes in ["omnidoc", "docling"] {
        for &(dataset, format) in &datasets {
            let s = eval(&db, "detection", &["--classes", classes, "--dataset", dataset]);
            let what = format!("detection {classes} on {dataset}");
            assert!(s["documents"].as_u64() > Some(0), "{what}: no document scored: {s}");
            assert!(s["failures"].as_array().unwrap().is_empty(), "{what}: {s}");
            unmapped_both_sides(&what, &s);
            for m in ["map", "ap50", "ap75", "ar100"] {
                let v = pairs(&s["figures"]).into_iter().find(|(k, _)| k == m).unwrap().1;
                best(&format!("{what}: {m}"), v, 1.0);
            }
            for c in s["per_class"].as_array().unwrap() {
                if c["gt_boxes"].as_u64() > Some(0) {
                    best(&format!("{what}: ap of {}", c["class"]), c["ap"].as_f64(), 1.0);
                }
            }
            if [TruthFormat::OmniDocBench, TruthFormat::LabelStudio].contains(&format) {
                for (m, v) in pairs(&s["reading_order"]).into_iter().filter(|p| p.0 != "order_edit")
                {
                    best(&format!("{what}: {m}"), v, 1.0);
                }
            }
            if format == TruthFormat::Docling {
                docling_reading_order(&what, &s);
            }
        }
    }
    // The omnidoc suite's text-based reading order of the same documents stands beside ARD
    // once it is scored: 0 edits on the Label Studio truth against itself.
    let s = eval(&db, "detection", &["--dataset", "ls"]);
    let order_edit = pairs(&s["reading_order"]).into_iter().find(|p| p.0 == "order_edit");
    assert_eq!(order_edit, Some(("order_edit".into(), None)), "not scored yet: {s}");
    eval(&db, "omnidoc", &["--dataset", "ls"]);
    let s = eval(&db, "detection", &["--dataset", "ls"]);
    let order_edit = pairs(&s["reading_order"]).into_iter().find(|p| p.0 == "order_edit");
    best("order_edit beside ard", order_edit.and_then(|p| p.1), 0.0);
    assert_eq!(s["order_edit_documents"], s["documents"], "{s}");
    // Stored per document too; the report pools them to the same figure.
    let out = run(corpus(&db).args([
        "report",
        "--suite",
        "detection",
        "--by",
        "provider",
        "--metric",
        "map",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    let r = json(&out);
    best("report's pooled map", r[0]["map"].as_f64(), 1.0);
    // The HTML report draws the COCO document's matches: five true positives, nothing else.
    let site = d.path().join("site");
    let out = run(corpus(&db)
        .args(["report", "--suite", "detection", "--dataset", "coco", "--format", "html", "-o"])
        .arg(&site));
    assert!(out.status.success());
    let pages: Vec<String> = std::fs::read_dir(site.join("doc"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(pages.len(), 1);
    let html = &pages[0];
    assert!(html.contains("Matches at IoU 0.5"), "no matches section");
    let count = |cls: &str| html.matches(&format!("class=\"{cls}\"")).count();
    assert_eq!((count("m-tp"), count("m-fp"), count("m-miss")), (5, 0, 0));
    assert!(html.contains("true positive: title · IoU 1.000"), "hover text");
}
