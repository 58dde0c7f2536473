//! The `detection` suite's COCO evaluation against pycocotools itself.

use std::io::Write;
use std::process::{Command, Stdio};

use corpus::metrics::coco::{coco_eval, DtBox, GtBox, Images, Params, Summary};
use serde_json::{json, Value};

use crate::util::{corpus, json, run, skip_or_fail};

/// splitmix64: a seeded stream for the random page sets.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A random page set: 1–5 pages (some empty), 1–4 categories, boxes of every area range,
/// crowds, detections near truths with jittered edges (IoUs on the thresholds), tied scores,
/// and detections of a category the truth does not have.
fn random_set(s: &mut Stream) -> Images {
    let categories: Vec<u32> = (1..=1 + s.below(4) as u32).collect();
    let mut images = Vec::new();
    for _ in 0..1 + s.below(5) {
        let mut gts = Vec::new();
        for _ in 0..s.below(9) {
            let big = s.chance(30);
            let w = if big { 20 + s.below(120) } else { 2 + s.below(40) } as f64;
            let h = if big { 20 + s.below(120) } else { 2 + s.below(40) } as f64;
            let bbox = [s.below(300) as f64, s.below(300) as f64, w, h];
            let category = categories[s.below(categories.len() as u64) as usize];
            gts.push(GtBox { category, bbox, area: w * h, crowd: s.chance(10) });
        }
        let mut dts = Vec::new();
        for _ in 0..s.below(13) {
            let bbox = if !gts.is_empty() && s.chance(70) {
                let g: &GtBox = &gts[s.below(gts.len() as u64) as usize];
                let j = |s: &mut Stream| s.below(7) as f64 - 3.0;
                let (dx, dy, dw, dh) = (j(s), j(s), j(s), j(s));
                [
                    g.bbox[0] + dx,
                    g.bbox[1] + dy,
                    (g.bbox[2] + dw).max(1.0),
                    (g.bbox[3] + dh).max(1.0),
                ]
            } else {
                [
                    s.below(300) as f64,
                    s.below(300) as f64,
                    1.0 + s.below(100) as f64,
                    1.0 + s.below(100) as f64,
                ]
            };
            let category =
                if s.chance(5) { 9 } else { categories[s.below(categories.len() as u64) as usize] };
            let score = if s.chance(50) {
                (1 + s.below(10)) as f64 / 10.0
            } else {
                s.below(1_000_000) as f64 / 1e6
            };
            dts.push(DtBox { category, bbox, score });
        }
        images.push((gts, dts));
    }
    if images.iter().all(|(_, d)| d.is_empty()) {
        // pycocotools' loadRes cannot read an empty result list.
        images[0].1.push(DtBox { category: 1, bbox: [0.0, 0.0, 10.0, 10.0], score: 0.5 });
    }
    Images { images, categories }
}

fn to_json(set: &Images) -> Value {
    json!({
        "categories": set.categories,
        "images": set.images.iter().map(|(g, d)| json!({
            "gts": g.iter().map(|g| json!({"category": g.category, "bbox": g.bbox, "area": g.area, "crowd": g.crowd})).collect::<Vec<_>>(),
            "dts": d.iter().map(|d| json!({"category": d.category, "bbox": d.bbox, "score": d.score})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn same(ours: Option<f64>, theirs: &Value, what: &str) {
    match (ours, theirs.as_f64()) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            assert!((a - b).abs() <= 1e-12, "{what}: corpus {a}, pycocotools {b}")
        }
        (a, _) => panic!("{what}: corpus {a:?}, pycocotools {theirs}"),
    }
}

fn check(ours: &Summary, theirs: &Value, set: usize) {
    for (i, v) in theirs["stats"].as_array().unwrap().iter().enumerate() {
        same(ours.stats[i], v, &format!("set {set} stat {i}"));
    }
    for (k, c) in theirs["per_category"].as_array().unwrap().iter().enumerate() {
        let o = &ours.per_category[k];
        assert_eq!(c["category"].as_u64(), Some(o.category as u64));
        same(o.ap, &c["ap"], &format!("set {set} category {} ap", o.category));
        same(o.ap50, &c["ap50"], &format!("set {set} category {} ap50", o.category));
        same(o.ap75, &c["ap75"], &format!("set {set} category {} ap75", o.category));
        same(o.ar100, &c["ar100"], &format!("set {set} category {} ar100", o.category));
    }
}

/// The Python with pycocotools that `scripts/test.sh` installs (`CORPUS_COCO_PYTHON`).
fn coco_python() -> Option<String> {
    let python = std::env::var("CORPUS_COCO_PYTHON").ok();
    let ok = python.as_ref().is_some_and(|p| {
        Command::new(p)
            .args(["-c", "import pycocotools.cocoeval"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !ok {
        skip_or_fail(
            "CORPUS_COCO_PYTHON names no Python with pycocotools (scripts/test.sh installs it)",
        );
        return None;
    }
    python
}

fn run_reference(python: &str, sets: &[Value]) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/coco_reference.py");
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starting pycocotools");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(Value::from(sets.to_vec()).to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "pycocotools failed");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["results"].as_array().unwrap().clone()
}

#[test]
fn coco_equals_pycocotools_on_random_page_sets() {
    let Some(python) = coco_python() else { return };
    let mut s = Stream(20261207);
    let sets: Vec<Images> = (0..1000).map(|_| random_set(&mut s)).collect();
    let theirs = run_reference(&python, &sets.iter().map(to_json).collect::<Vec<_>>());
    let p = Params::default();
    let mut defined = 0;
    for (i, (set, t)) in sets.iter().zip(&theirs).enumerate() {
        let ours = coco_eval(set, &p);
        defined += ours.stats.iter().flatten().count();
        check(&ours, t, i);
    }
    assert!(defined > 5000, "the random sets exercise the figures ({defined} defined)");
}

/// `(width, height, components)` of a JPEG, from its first SOF marker.
fn jpeg_info(b: &[u8]) -> (u32, u32, u8) {
    let mut i = 2;
    while i + 9 < b.len() {
        assert_eq!(b[i], 0xFF, "a JPEG marker");
        let m = b[i + 1];
        let len = u16::from_be_bytes([b[i + 2], b[i + 3]]) as usize;
        if (0xC0..=0xCF).contains(&m) && ![0xC4, 0xC8, 0xCC].contains(&m) {
            let h = u16::from_be_bytes([b[i + 5], b[i + 6]]) as u32;
            let w = u16::from_be_bytes([b[i + 7], b[i + 8]]) as u32;
            return (w, h, b[i + 9]);
        }
        i += 2 + len;
    }
    panic!("no SOF marker");
}

/// A one-page PDF showing a JPEG as a 200 dpi scan (no text layer).
fn jpeg_pdf(jpg: &[u8]) -> Vec<u8> {
    let (w, h, comps) = jpeg_info(jpg);
    let (pw, ph) = (w as f64 * 72.0 / 200.0, h as f64 * 72.0 / 200.0);
    let space = match comps {
        1 => "/DeviceGray",
        4 => "/DeviceCMYK",
        _ => "/DeviceRGB",
    };
    let content = format!("q {pw:.2} 0 0 {ph:.2} 0 0 cm /Im0 Do Q");
    let mut image = format!(
        "<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace {space} \
         /BitsPerComponent 8 /Filter /DCTDecode /Length {} >>\nstream\n",
        jpg.len()
    )
    .into_bytes();
    image.extend_from_slice(jpg);
    image.extend_from_slice(b"\nendstream");
    let objs: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2} {ph:.2}] \
             /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>"
        )
        .into_bytes(),
        image,
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()).into_bytes(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (k, o) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", k + 1).as_bytes());
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objs.len() + 1)
            .as_bytes(),
    );
    out
}

/// The OmniDocBench demo with its pages as scanned PDFs (as `bench/audit_plant.py` writes
/// them), ingested into `db` as dataset `omnidoc`.
pub fn ingest_demo_as_scans(db: &std::path::Path, work: &std::path::Path, data: &std::path::Path) {
    let demo = data.join("demo_data/omnidocbench_demo");
    let mut pages: Vec<Value> =
        serde_json::from_slice(&std::fs::read(demo.join("OmniDocBench_demo.json")).unwrap())
            .unwrap();
    let dir = work.join("pages");
    std::fs::create_dir_all(&dir).unwrap();
    for p in &mut pages {
        let image = p["page_info"]["image_path"].as_str().unwrap().to_string();
        let jpg = std::fs::read(demo.join("images").join(&image)).unwrap();
        let stem = image.rsplit_once('.').unwrap().0.to_string();
        std::fs::write(dir.join(format!("{stem}.pdf")), jpeg_pdf(&jpg)).unwrap();
        p["page_info"]["image_path"] = Value::from(format!("{stem}.pdf"));
    }
    let truth = work.join("omnidoc.json");
    std::fs::write(&truth, Value::from(pages).to_string()).unwrap();
    let out = run(corpus(db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "omnidoc", "-q", "--images"])
        .arg(&dir)
        .arg(&truth));
    assert!(out.status.success());
}

/// Every figure the suite pools for `provider` equals pycocotools' on the boxes the suite
/// stored (its page sets, read back from the store in the pooling order).
fn check_provider_against_pycocotools(db: &std::path::Path, python: &str, provider: &str) -> Value {
    let out = run(corpus(db).args([
        "eval",
        "--suite",
        "detection",
        "--provider",
        provider,
        "--format",
        "json",
    ]));
    let s = json(&out);
    assert!(s["failures"].as_array().unwrap().is_empty(), "{s}");
    let out = run(corpus(db).args([
        "sql",
        "--format",
        "json",
        &format!(
            "SELECT dataset, document, trace FROM v_latest_scores WHERE suite = 'detection' \
             AND metric = 'map' AND provider = '{provider}' ORDER BY dataset, document"
        ),
    ]));
    let rows = json(&out);
    let mut images = Vec::new();
    let mut classes = Vec::new();
    for r in rows.as_array().unwrap() {
        let t: Value = serde_json::from_str(r["trace"].as_str().unwrap()).unwrap();
        classes = t["classes"].as_array().unwrap().clone();
        for p in t["pages"].as_array().unwrap() {
            let gts: Vec<Value> = p["gts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| {
                    json!({
                "category": g[0].as_f64().unwrap() as u32, "bbox": [g[1], g[2], g[3], g[4]],
                "area": g[5], "crowd": g[6].as_f64() == Some(1.0)})
                })
                .collect();
            let dts: Vec<Value> = p["dts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    json!({
                "category": d[0].as_f64().unwrap() as u32, "bbox": [d[1], d[2], d[3], d[4]],
                "score": d[5]})
                })
                .collect();
            images.push(json!({"gts": gts, "dts": dts}));
        }
    }
    assert_eq!(images.len() as u64, s["pages"].as_u64().unwrap());
    let dts: usize = images.iter().map(|i| i["dts"].as_array().unwrap().len()).sum();
    if dts == 0 {
        eprintln!("{provider}: no detection in the scored classes; pycocotools cannot load none");
        return s;
    }
    let categories: Vec<u32> = (1..=classes.len() as u32).collect();
    let theirs = &run_reference(python, &[json!({"categories": categories, "images": images})])[0];
    let fig = |n: &str| pairs_get(&s["figures"], n);
    for (i, name) in corpus::metrics::coco::STAT_NAMES.iter().enumerate() {
        same(fig(name), &theirs["stats"][i], &format!("{provider} {name}"));
    }
    for (k, c) in s["per_class"].as_array().unwrap().iter().enumerate() {
        let t = &theirs["per_category"][k];
        for m in ["ap", "ap50", "ap75", "ar100"] {
            same(c[m].as_f64(), &t[m], &format!("{provider} {} {m}", c["class"]));
        }
    }
    s
}

fn pairs_get(v: &Value, name: &str) -> Option<f64> {
    v.as_array().unwrap().iter().find(|p| p[0] == name).and_then(|p| p[1].as_f64())
}

/// Real outputs (pdfium's and the layout model's) of the OmniDocBench demo's pages, scored by
/// the suite: every pooled figure equals pycocotools' within 1e-12; the layout model finds
/// something.
#[test]
fn real_outputs_equal_pycocotools_on_the_omnidoc_demo() {
    let Some(python) = coco_python() else { return };
    let Some(data) = crate::util::shared_data("omnidocbench") else {
        skip_or_fail("the shared OmniDocBench demo is absent");
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    ingest_demo_as_scans(&db, d.path(), &data);
    for provider in ["pdfium", "layout"] {
        let out = run(corpus(&db).args(["ocr", "--provider", provider, "-q"]));
        assert!(out.status.success(), "{provider}");
    }
    check_provider_against_pycocotools(&db, &python, "pdfium");
    let s = check_provider_against_pycocotools(&db, &python, "layout");
    assert!(pairs_get(&s["figures"], "ar100").unwrap_or(0.0) > 0.0, "{s}");
}

/// Bad COCO truths are refused at ingest, naming the file and the item; the PDF still
/// ingests, the truth is not stored.
#[test]
fn bad_coco_truths_name_the_file_and_the_item() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("c");
    crate::gt_vs_gt::coco_fixture(&dir);
    let good = std::fs::read_to_string(dir.join("doc.coco.json")).unwrap();
    for (from, to, want) in [
        ("doc_2.png", "doc_3.png", "image 2 (\"doc_3.png\") is page 3, but the PDF has 2 page(s)"),
        ("[144,200,900,600]", "[1000,200,900,600]", "annotation 4: box"),
        ("\"category_id\":9,", "\"category_id\":99,", "annotation 4: category_id 99"),
    ] {
        let db = d.path().join(format!("{}.db", want.len()));
        assert!(good.contains(from), "{from}");
        std::fs::write(dir.join("doc.coco.json"), good.replace(from, to)).unwrap();
        let out =
            run(corpus(&db).args(["ingest", "--truth", "coco", "--format", "json"]).arg(&dir));
        let s = json(&out);
        let errors = s["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1, "{s}");
        let e = &errors[0];
        assert!(e["path"].as_str().unwrap().ends_with("doc.coco.json"), "{e}");
        assert!(e["error"].as_str().unwrap().contains(want), "{e}");
        assert_eq!(s["truths_added"], 0, "{s}");
    }
}

/// One page of 612 × 792 pt with a paragraph at each of the given heights (PDF points from
/// the bottom), far enough apart to be separate blocks.
fn paragraphs_pdf(ys: &[f32]) -> Vec<u8> {
    use corpus::sample::pdf::{Font, Pdf, PdfPage};
    let mut pdf = Pdf::new();
    let mut page = PdfPage::new(612.0, 792.0);
    for (k, y) in ys.iter().enumerate() {
        page.text(
            Font::Regular,
            10.0,
            72.0,
            *y,
            &format!("Paragraph number {} of the page.", k + 1),
        );
    }
    pdf.push(page);
    pdf.to_bytes()
}

/// pdfium's blocks of a document as COCO boxes `[x, y, w, h]` in points (top-left origin).
fn pdfium_boxes(db: &std::path::Path, name: &str) -> Vec<[f64; 4]> {
    let out = run(corpus(db).args(["show", name, "--provider", "pdfium", "--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    let f = |b: &Value, k: &str| b["bbox"][k].as_f64().unwrap();
    doc["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| [f(b, "x0"), f(b, "y0"), f(b, "x1") - f(b, "x0"), f(b, "y1") - f(b, "y0")])
        .collect()
}

/// A COCO truth of one page (its image 612 × 792, a pixel per point) with one `Text` box.
fn one_box_coco(b: [f64; 4]) -> Value {
    json!({
        "images": [{"id": 1, "file_name": "p_1.png", "width": 612, "height": 792}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": b, "area": b[2] * b[3]}],
        "categories": [{"id": 1, "name": "Text"}]
    })
}

/// `report --by provider` (with and without `--suite`) gives the COCO figures of one
/// evaluation over every page, not the mean of the per-document figures. Two one-page
/// documents scored with pdfium (every confidence 1.0, so the ranking is page order, then
/// block order): `a` has one paragraph and its truth box (AP 1); `b` has two paragraphs and
/// a truth box on the second only (a false positive ranked before the true positive: AP 1/2).
/// Their mean is 0.75. Pooled, the ranked detections are a's hit, b's miss, b's hit over two
/// truth boxes: precision 1, 1/2, 2/3 at recall 1/2, 1/2, 1; made non-increasing, 1 up to
/// recall 0.5 (51 of COCO's 101 recall points) and 2/3 above (50): AP = (51 + 50 · 2/3) / 101
/// at every IoU threshold (the boxes are the detections' own), so mAP and AP50 alike.
#[test]
fn report_pools_coco_figures_over_pages_with_or_without_suite() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let dir = d.path().join("pdfs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.pdf"), paragraphs_pdf(&[700.0])).unwrap();
    std::fs::write(dir.join("b.pdf"), paragraphs_pdf(&[700.0, 400.0])).unwrap();
    assert!(run(corpus(&db).args(["ingest", "-q", "--dataset", "two"]).arg(&dir)).status.success());
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    let (a, b) = (pdfium_boxes(&db, "a"), pdfium_boxes(&db, "b"));
    assert_eq!((a.len(), b.len()), (1, 2), "one block per paragraph: {a:?} {b:?}");
    std::fs::write(dir.join("a.coco.json"), one_box_coco(a[0]).to_string()).unwrap();
    std::fs::write(dir.join("b.coco.json"), one_box_coco(b[1]).to_string()).unwrap();
    let out =
        run(corpus(&db).args(["ingest", "-q", "--dataset", "two", "--truth", "coco"]).arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for classes in ["omnidoc", "docling"] {
        let out = run(corpus(&db)
            .args(["eval", "--suite", "detection", "--provider", "pdfium"])
            .args(["--classes", classes, "-q"]));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let eps = f64::EPSILON;
    let (p_a, p_b) = (1.0 / (1.0 + eps), 1.0 / (2.0 + eps));
    let pooled = (51.0 / (1.0 + eps) + 50.0 * 2.0 / (3.0 + eps)) / 101.0;
    let mean = (p_a + p_b) / 2.0;
    assert!((pooled - mean).abs() > 0.08, "the case tells the two apart");
    let near = |v: &Value, want: f64, what: &str| {
        let got = v.as_f64().unwrap_or_else(|| panic!("{what}: {v}"));
        assert!((got - want).abs() < 1e-12, "{what}: {got}, want {want} (the mean is {mean})");
    };
    // Each document's own figure, as stored.
    let docs = json(&run(corpus(&db)
        .args(["report", "--suite", "detection", "--by", "document"])
        .args(["--metric", "map", "--format", "json"])));
    let per_doc: Vec<f64> = docs
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["document"] != "AVG")
        .map(|r| r["map"].as_f64().unwrap())
        .collect();
    assert_eq!(per_doc.len(), 2, "{docs}");
    for (got, want) in per_doc.iter().zip([p_a, p_b]) {
        assert!((got - want).abs() < 1e-12, "{docs}");
    }
    for args in [&["--suite", "detection"][..], &["--suite", "detection-docling"][..], &[][..]] {
        let out = run(corpus(&db)
            .args(["report", "--by", "provider", "--format", "json"])
            .args(args)
            .args(["--metric", "all"]));
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let r = json(&out);
        let row = r
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["provider"].as_str().unwrap().starts_with("pdfium@"));
        let row = row.unwrap_or_else(|| panic!("{args:?}: {r}"));
        for m in ["map", "ap50", "ap75"] {
            near(&row[m], pooled, &format!("{args:?} {m}"));
        }
        near(&row["ar100"], 1.0, &format!("{args:?} ar100"));
        if args.is_empty() {
            // The second taxonomy is left out, and said so: never pooled with the first.
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("detection-docling's scores (DocLayNet's classes) are left out"),
                "{err}"
            );
        }
    }
    // The text table shows the pooled figure too.
    let out =
        run(corpus(&db).args(["report", "--by", "provider", "--metric", "map", "--ci", "none"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("{pooled:.4}")[..5]), "{text}");
}

/// A page with a draft truth (OmniDocBench JSON from `truth draft`) and, ingested after it, its
/// reviewed Label Studio export is scored once, against the review, as the omnidoc suite
/// scores it.
#[test]
fn a_page_with_a_draft_and_its_review_is_scored_once_on_the_review() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let dir = d.path().join("pdfs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("doc.pdf"), paragraphs_pdf(&[700.0, 600.0, 500.0])).unwrap();
    assert!(run(corpus(&db).args(["ingest", "-q", "--dataset", "mine"]).arg(&dir))
        .status
        .success());
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    let ls = d.path().join("ls");
    let out = run(corpus(&db)
        .args(["truth", "draft", "--dataset", "mine", "--from", "pdfium", "-o"])
        .arg(d.path().join("draft"))
        .arg("--label-studio")
        .arg(&ls));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let draft = d.path().join("draft/draft.json");
    let out = run(corpus(&db)
        .args(["ingest", "-q", "--truth", "omnidocbench", "--dataset", "mine"])
        .arg(&draft));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The reviewer deletes the last paragraph's region: the review has two boxes, the draft three.
    let tasks: Vec<Value> =
        serde_json::from_slice(&std::fs::read(ls.join("tasks.json")).unwrap()).unwrap();
    assert_eq!(tasks.len(), 1);
    let mut result = tasks[0]["predictions"][0]["result"].as_array().unwrap().clone();
    let ids: Vec<String> =
        result.iter().filter_map(|r| r["id"].as_str().map(str::to_string)).collect();
    let last = ids.last().unwrap().clone();
    result.retain(|r| r["id"].as_str() != Some(last.as_str()));
    let mut t = tasks[0].clone();
    t["id"] = json!(1);
    t["annotations"] = json!([{"id": 1, "was_cancelled": false, "result": result,
        "updated_at": "2026-01-01T00:00:00Z"}]);
    let export = d.path().join("export.json");
    std::fs::write(&export, serde_json::to_vec(&json!([t])).unwrap()).unwrap();
    let out = run(corpus(&db)
        .args(["ingest", "-q", "--truth", "label-studio", "--dataset", "mine"])
        .arg(&export));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db).args([
        "eval",
        "--suite",
        "detection",
        "--provider",
        "pdfium",
        "--format",
        "json",
    ]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = json(&out);
    assert_eq!((s["documents"].as_u64(), s["pages"].as_u64()), (Some(1), Some(1)), "{s}");
    let rows = s["rows"].as_array().unwrap();
    assert_eq!((rows.len(), rows[0]["gt_boxes"].as_u64()), (1, Some(2)), "the review's boxes: {s}");
    // The score row is on the Label Studio truth.
    let out = run(corpus(&db).args([
        "sql",
        "--format",
        "json",
        "SELECT DISTINCT truth_format FROM v_latest_scores WHERE suite = 'detection'",
    ]));
    assert_eq!(json(&out), json!([{"truth_format": "label-studio"}]));
}
