//! Runs the OmniDocBench v1.5 port on the demo data and compares with the official v1.5 output.
//!
//! Usage: `cargo run --example omnidoc_demo [DATA_DIR]` with DATA_DIR defaulting to
//! `../shared/data/omnidocbench`. TEDS is `corpus::metrics::teds`. The time printed is the
//! whole evaluation (GT JSON parse, extraction, matching, metrics, TEDS), as the official
//! evaluator's ≈ 6.5 s CPU covers the same work (plus ≈ 4.3 s of Python imports).

use corpus::formats::omnidocbench::parse_pages;
use corpus::suites::omnidoc::matching::MatchMethod;
use corpus::suites::omnidoc::metrics::{evaluate, ElementResult, Sample};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

fn load(p: &Path) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
    )
    .unwrap()
}

fn cpu_time() -> f64 {
    // utime + stime of this process from /proc (Linux); 0 elsewhere.
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = s.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (t(11) + t(12)) / 100.0
}

struct Cmp {
    n: usize,
    bad: usize,
    max: f64,
}

impl Cmp {
    fn num(&mut self, what: &str, ours: f64, theirs: Option<f64>) {
        self.n += 1;
        let Some(t) = theirs else {
            println!("  MISSING  {what}: ours {ours}");
            self.bad += 1;
            return;
        };
        let d = (ours - t).abs();
        if d.is_nan() || d > 1e-6 {
            self.bad += 1;
            println!("  DIFF     {what}: ours {ours:.9} ref {t:.9} (|d| {d:.3e})");
        } else if d > self.max {
            self.max = d;
        }
    }
}

fn idx(v: &Option<Vec<usize>>) -> Value {
    match v {
        None => Value::Array(vec![Value::String(String::new())]),
        Some(v) => Value::Array(v.iter().map(|x| Value::from(*x as u64)).collect()),
    }
}

/// Secondary fields of a pair that do not enter the metrics: returns the names that differ.
fn secondary_diffs(
    e: &corpus::suites::omnidoc::matching::MatchEntry,
    b: &Value,
) -> Vec<&'static str> {
    let mut d = Vec::new();
    if e.gt != b["gt"].as_str().unwrap_or("") {
        d.push("gt");
    }
    if e.pred != b["pred"].as_str().unwrap_or("") {
        d.push("pred");
    }
    if b["edit"].as_f64().is_none_or(|x| (x - e.edit).abs() > 1e-9) {
        d.push("edit");
    }
    if Some(e.gt_category_type.as_deref().unwrap_or("")) != b["gt_category_type"].as_str() {
        d.push("gt_category_type");
    }
    if Some(e.pred_category_type.as_str()) != b["pred_category_type"].as_str() {
        d.push("pred_category_type");
    }
    let pos: Vec<Value> = e
        .gt_position
        .iter()
        .map(|p| match p {
            Some(x) if x.fract() == 0.0 => Value::from(*x as i64),
            Some(x) => Value::from(*x),
            None => Value::String(String::new()),
        })
        .collect();
    if Value::Array(pos) != b["gt_position"] {
        d.push("gt_position");
    }
    let pp = e.pred_position.map_or(Value::String(String::new()), |p| Value::from(p as u64));
    if pp != b["pred_position"] {
        d.push("pred_position");
    }
    d
}

fn compare_pairs(name: &str, ours: &[Sample], theirs: &Value) {
    let Some(theirs) = theirs.as_array() else { return };
    // Group by page, compare in order.
    let mut by_page: BTreeMap<String, (Vec<&Sample>, Vec<&Value>)> = BTreeMap::new();
    for s in ours {
        by_page.entry(s.page.clone()).or_default().0.push(s);
    }
    for t in theirs {
        let p = t["img_id"].as_str().unwrap_or("").to_string();
        by_page.entry(p).or_default().1.push(t);
    }
    let mut same = 0;
    let mut diff = 0;
    let mut secondary: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut secondary_example: BTreeMap<&'static str, String> = BTreeMap::new();
    for (page, (o, t)) in &by_page {
        let mut reported = false;
        let n = o.len().max(t.len());
        for k in 0..n {
            let (a, b) = (o.get(k), t.get(k));
            let ok = match (a, b) {
                (Some(a), Some(b)) => match &a.entry {
                    Some(e) => {
                        e.norm_gt == b["norm_gt"].as_str().unwrap_or("")
                            && e.norm_pred == b["norm_pred"].as_str().unwrap_or("")
                            && idx(&e.gt_idx) == b["gt_idx"]
                            && idx(&e.pred_idx) == b["pred_idx"]
                    }
                    None => {
                        let g: Vec<f64> = b["gt"]
                            .as_array()
                            .map(|v| v.iter().filter_map(|x| x.as_f64()).collect())
                            .unwrap_or_default();
                        let p: Vec<f64> = b["pred"]
                            .as_array()
                            .map(|v| v.iter().filter_map(|x| x.as_f64()).collect())
                            .unwrap_or_default();
                        a.order_gt == g && a.order_pred == p
                    }
                },
                _ => false,
            };
            if let (Some(Sample { entry: Some(e), .. }), Some(b)) = (a, b) {
                for f in secondary_diffs(e, b) {
                    *secondary.entry(f).or_default() += 1;
                    secondary_example.entry(f).or_insert_with(|| {
                        let ours = match f {
                            "gt" => format!("{:?}", trunc(&e.gt)),
                            "pred" => format!("{:?}", trunc(&e.pred)),
                            "edit" => e.edit.to_string(),
                            "gt_position" => format!("{:?}", e.gt_position),
                            "pred_position" => format!("{:?}", e.pred_position),
                            "pred_category_type" => e.pred_category_type.clone(),
                            _ => format!("{:?}", e.gt_category_type),
                        };
                        let theirs = match &b[f] {
                            Value::String(s) => format!("{:?}", trunc(s)),
                            v => v.to_string(),
                        };
                        format!("{page} #{k}: ours {ours} / ref {theirs}")
                    });
                }
            }
            if ok {
                same += 1;
            } else {
                diff += 1;
                if !reported {
                    reported = true;
                    println!("  [{name}] first difference on {page} at pair #{k} (ours {} pairs, ref {}):", o.len(), t.len());
                    if let Some(a) = a {
                        match &a.entry {
                            Some(e) => println!("     ours: gt_idx {:?} pred_idx {:?} norm_gt {:?}\n           norm_pred {:?}", e.gt_idx, e.pred_idx, trunc(&e.norm_gt), trunc(&e.norm_pred)),
                            None => println!("     ours: gt {:?} pred {:?}", a.order_gt, a.order_pred),
                        }
                    }
                    if let Some(b) = b {
                        println!(
                            "     ref:  gt_idx {} pred_idx {} norm_gt {:?}\n           norm_pred {:?}",
                            b["gt_idx"],
                            b["pred_idx"],
                            trunc(b["norm_gt"].as_str().unwrap_or(&b["gt"].to_string())),
                            trunc(b["norm_pred"].as_str().unwrap_or(&b["pred"].to_string()))
                        );
                    }
                }
            }
        }
    }
    println!(
        "  [{name}] pairs identical (indices + normalized strings): {same}, different: {diff}"
    );
    for (f, n) in &secondary {
        println!("    secondary field {f} differs in {n} pairs, e.g. {}", secondary_example[f]);
    }
}

fn trunc(s: &str) -> String {
    let c: Vec<char> = s.chars().collect();
    if c.len() > 90 {
        format!("{}…", c[..90].iter().collect::<String>())
    } else {
        s.to_string()
    }
}

fn compare_element(cmp: &mut Cmp, name: &str, r: &ElementResult, reference: &Value) {
    let all = &reference[name]["all"];
    let e = &all["Edit_dist"];
    cmp.num(&format!("{name} ALL_page_avg"), r.edit.all_page_avg, e["ALL_page_avg"].as_f64());
    cmp.num(&format!("{name} edit_whole"), r.edit.edit_whole, e["edit_whole"].as_f64());
    cmp.num(
        &format!("{name} edit_sample_avg"),
        r.edit.edit_sample_avg,
        e["edit_sample_avg"].as_f64(),
    );
    if let Some(t) = r.teds {
        cmp.num(&format!("{name} TEDS"), t, all["TEDS"]["all"].as_f64());
    }
    if let Some(t) = r.teds_structure {
        cmp.num(
            &format!("{name} TEDS_structure_only"),
            t,
            all["TEDS_structure_only"]["all"].as_f64(),
        );
    }
    for (section, ours) in [("page", &r.breakdown.page), ("group", &r.breakdown.group)] {
        let theirs = &reference[name][section];
        for (metric, vals) in ours {
            for (attr, v) in vals {
                cmp.num(
                    &format!("{name} {section} {metric} [{attr}]"),
                    *v,
                    theirs[metric][attr].as_f64(),
                );
            }
        }
        if let Some(obj) = theirs.as_object() {
            for (metric, vals) in obj {
                for attr in vals
                    .as_object()
                    .map(|o| o.keys().cloned().collect::<Vec<_>>())
                    .unwrap_or_default()
                {
                    if !ours.get(metric).is_some_and(|m| m.contains_key(&attr)) {
                        cmp.n += 1;
                        cmp.bad += 1;
                        println!("  MISSING  {name} {section} {metric} [{attr}] only in reference");
                    }
                }
            }
        }
    }
    for (page, v) in &r.edit.per_page {
        let _ = (page, v);
    }
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "../shared/data/omnidocbench".into());
    let dir = Path::new(&dir);
    let gt_path = dir.join("demo_data/omnidocbench_demo/OmniDocBench_demo.json");
    if !gt_path.exists() {
        println!("skipping: {} not found", gt_path.display());
        return;
    }
    let res = dir.join("result-v1.5");
    let gt_json = std::fs::read_to_string(&gt_path).unwrap();
    let mut preds = BTreeMap::new();
    for e in std::fs::read_dir(dir.join("demo_data/end2end")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) == Some("md") {
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            preds.insert(stem, std::fs::read_to_string(&p).unwrap());
        }
    }
    // The project's TEDS (PubTabNet semantics, bit-identical to the reference on 253 pairs).
    let teds = |p: &str, g: &str, s: bool| -> f64 { corpus::metrics::teds::teds(p, g, s) };

    let cpu0 = cpu_time();
    let wall = Instant::now();
    let mut report = None;
    let reps = 20;
    for _ in 0..reps {
        let pages = parse_pages(&gt_json).unwrap();
        report = Some(evaluate(&pages, &preds, MatchMethod::Quick, Some(&teds)));
    }
    let el = wall.elapsed().as_secs_f64() / reps as f64;
    let cpu = (cpu_time() - cpu0) / reps as f64;
    let report = report.unwrap();
    println!(
        "evaluation of 18 pages: {:.1} ms wall, {:.1} ms CPU per run (mean of {reps})",
        el * 1e3,
        cpu * 1e3
    );

    let reference = load(&res.join("end2end_quick_match_metric_result.json"));
    let mut cmp = Cmp { n: 0, bad: 0, max: 0.0 };
    compare_element(&mut cmp, "text_block", &report.text_block, &reference);
    compare_element(&mut cmp, "display_formula", &report.display_formula, &reference);
    compare_element(&mut cmp, "table", &report.table, &reference);
    compare_element(&mut cmp, "reading_order", &report.reading_order, &reference);
    println!(
        "figures compared: {}, differing (>1e-6): {}, max |d| among agreeing: {:.3e}",
        cmp.n, cmp.bad, cmp.max
    );

    for (name, r) in [
        ("text_block", &report.text_block),
        ("display_formula", &report.display_formula),
        ("table", &report.table),
        ("reading_order", &report.reading_order),
    ] {
        let theirs = load(&res.join(format!("end2end_quick_match_{name}_result.json")));
        compare_pairs(name, &r.samples, &theirs);
    }
}
