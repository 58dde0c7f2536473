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
