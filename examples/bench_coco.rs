//! Times the detection suite's COCO evaluation (issue 49's speed target): PAGES pages with
//! BOXES truth boxes and BOXES detections each (jittered copies of the truths, a few strays),
//! 11 categories (DocLayNet's count), scores with ties; evaluate, accumulate and summarize as
//! one page set. With a path, also writes the same page sets as `bench/coco_reference.py`
//! reads them, so `bench/coco_speed.sh` times pycocotools on the very same boxes.
//!
//! Usage: `bench_coco [PAGES] [BOXES] [JSON-OUT]`.

use std::time::Instant;

use corpus::metrics::coco::{coco_eval, DtBox, GtBox, Images, Params};
use corpus::metrics::stats::Rng;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pages: usize = args.first().map(|a| a.parse()).transpose()?.unwrap_or(10_000);
    let boxes: usize = args.get(1).map(|a| a.parse()).transpose()?.unwrap_or(50);
    let mut rng = Rng::new(49);
    let categories: Vec<u32> = (1..=11).collect();
    let mut images = Vec::with_capacity(pages);
    for _ in 0..pages {
        let mut gts = Vec::with_capacity(boxes);
        let mut dts = Vec::with_capacity(boxes);
        for _ in 0..boxes {
            let (w, h) = (10.0 + rng.below(200) as f64, 5.0 + rng.below(80) as f64);
            let bbox = [rng.below(400) as f64, rng.below(700) as f64, w, h];
            let category = 1 + rng.below(11) as u32;
            gts.push(GtBox { category, bbox, area: w * h, crowd: false });
            let j = |r: &mut Rng| r.below(9) as f64 - 4.0;
            let d = if rng.below(10) == 0 {
                [rng.below(400) as f64, rng.below(700) as f64, w, h]
            } else {
                [bbox[0] + j(&mut rng), bbox[1] + j(&mut rng), w + j(&mut rng), h + j(&mut rng)]
            };
            let c = if rng.below(20) == 0 { 1 + rng.below(11) as u32 } else { category };
            dts.push(DtBox { category: c, bbox: d, score: rng.below(100) as f64 / 100.0 });
        }
        images.push((gts, dts));
    }
    let set = Images { images, categories };
    let start = Instant::now();
    let cpu0 = cpu_ns();
    let s = coco_eval(&set, &Params::default());
    let secs = start.elapsed().as_secs_f64();
    // CPU seconds too: on a shared machine the wall time counts other processes' load, and
    // pycocotools' side is timed in CPU seconds (`time.process_time()`).
    let cpu = cpu_ns().saturating_sub(cpu0) as f64 / 1e9;
    println!(
        "corpus: {pages} pages x {boxes} boxes (truth and detections each): {secs:.2} s wall, {cpu:.2} CPU s, mAP {:.6}, AP50 {:.6}, AR@100 {:.6}",
        s.stats[0].unwrap_or(-1.0),
        s.stats[1].unwrap_or(-1.0),
        s.stats[8].unwrap_or(-1.0)
    );
    if let Some(path) = args.get(2) {
        let json = serde_json::json!([{
            "categories": set.categories,
            "images": set.images.iter().map(|(g, d)| serde_json::json!({
                "gts": g.iter().map(|g| serde_json::json!({"category": g.category, "bbox": g.bbox, "area": g.area, "crowd": g.crowd})).collect::<Vec<_>>(),
                "dts": d.iter().map(|d| serde_json::json!({"category": d.category, "bbox": d.bbox, "score": d.score})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        }]);
        std::fs::write(path, serde_json::to_vec(&json)?)?;
        println!("corpus_seconds={cpu:.4}");
    }
    Ok(())
}

/// This thread's CPU time in ns (`/proc/thread-self/schedstat`; the evaluation is one
/// thread), 0 where it cannot be read.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
