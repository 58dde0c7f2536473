//! The `detection` suite's COCO evaluation against pycocotools itself.

use std::io::Write;
use std::process::{Command, Stdio};

use corpus::metrics::coco::{coco_eval, DtBox, GtBox, Images, Params, Summary};
use serde_json::{json, Value};

use crate::util::skip_or_fail;

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
