//! Hand-computed cases of the COCO evaluation and of ARD. Agreement with pycocotools itself on
//! random page sets is `tests/it/detection.rs`.

use super::*;

fn gt(category: u32, bbox: [f64; 4]) -> GtBox {
    GtBox { category, bbox, area: bbox[2] * bbox[3], crowd: false }
}

fn dt(category: u32, bbox: [f64; 4], score: f64) -> DtBox {
    DtBox { category, bbox, score }
}

fn close(a: Option<f64>, b: f64) {
    let a = a.expect("defined");
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

#[test]
fn iou_is_bbiou_with_crowds_over_the_detection() {
    let d = [0.0, 0.0, 10.0, 10.0];
    let g = [5.0, 0.0, 10.0, 10.0];
    assert!((iou(&d, &g, false) - 50.0 / 150.0).abs() < 1e-15);
    assert!((iou(&d, &g, true) - 0.5).abs() < 1e-15);
    assert_eq!(iou(&d, &[10.0, 0.0, 5.0, 5.0], false), 0.0, "touching edges do not meet");
}

#[test]
fn thresholds_are_numpys_linspace() {
    let p = Params::default();
    assert_eq!(p.iou_thrs.len(), 10);
    assert_eq!(p.iou_thrs[0], 0.5);
    assert_eq!(p.iou_thrs[5], 0.75, "AP75 finds its threshold by equality");
    assert_eq!(p.iou_thrs[9], 0.95);
    assert_eq!(p.rec_thrs.len(), 101);
    assert_eq!(p.rec_thrs[100], 1.0);
}

/// Two truths, three detections: hit, miss, hit. Precision after each: 1, 1/2, 2/3; recall
/// 1/2, 1/2, 1. Interpolated: 1 up to recall 0.5 (51 thresholds), 2/3 above (50):
/// AP = (51 + 50·2/3) / 101 = 253/303 at every IoU threshold.
#[test]
fn a_false_positive_between_two_hits() {
    let set = Images {
        images: vec![(
            vec![gt(1, [0.0, 0.0, 10.0, 10.0]), gt(1, [20.0, 0.0, 10.0, 10.0])],
            vec![
                dt(1, [0.0, 0.0, 10.0, 10.0], 0.9),
                dt(1, [50.0, 50.0, 10.0, 10.0], 0.8),
                dt(1, [20.0, 0.0, 10.0, 10.0], 0.7),
            ],
        )],
        categories: vec![1],
    };
    let s = coco_eval(&set, &Params::default());
    close(s.stats[0], 253.0 / 303.0);
    close(s.stats[1], 253.0 / 303.0);
    close(s.stats[3], 253.0 / 303.0); // every box is small (area 100 ≤ 32²)
    assert_eq!(s.stats[4], None, "no truth is medium");
    assert_eq!(s.stats[5], None);
    close(s.stats[6], 0.5); // AR@1: one detection per image
    close(s.stats[8], 1.0);
    close(s.per_category[0].ap, 253.0 / 303.0);
}

/// A detection inside a crowd region is ignored, not a false positive; the regular truth is
/// matched first (ignored truths are tried last).
#[test]
fn crowds_absorb_detections() {
    let mut crowd = gt(1, [0.0, 0.0, 100.0, 100.0]);
    crowd.crowd = true;
    let set = |c: GtBox| Images {
        images: vec![(
            vec![c, gt(1, [0.0, 0.0, 10.0, 10.0])],
            vec![dt(1, [0.0, 0.0, 10.0, 10.0], 0.9), dt(1, [50.0, 50.0, 10.0, 10.0], 0.8)],
        )],
        categories: vec![1],
    };
    let s = coco_eval(&set(crowd.clone()), &Params::default());
    close(s.stats[0], 1.0);
    // Without the flag the big box is a truth of its own that nothing matches well enough.
    crowd.crowd = false;
    let s = coco_eval(&set(crowd), &Params::default());
    // Recall 1/2 at precision 1, then a false positive: AP = 51/101.
    close(s.stats[0], 51.0 / 101.0);
}

/// Equal scores keep the order they were given in: a miss before a hit gives precision 0
/// then 1/2 (interpolated 1/2 everywhere), a hit before a miss gives 1 everywhere.
#[test]
fn ties_keep_the_given_order() {
    let truth = vec![gt(1, [0.0, 0.0, 10.0, 10.0])];
    let hit = dt(1, [0.0, 0.0, 10.0, 10.0], 0.5);
    let miss = dt(1, [40.0, 40.0, 10.0, 10.0], 0.5);
    let run = |dts: Vec<DtBox>| {
        coco_eval(
            &Images { images: vec![(truth.clone(), dts)], categories: vec![1] },
            &Params::default(),
        )
    };
    close(run(vec![miss.clone(), hit.clone()]).stats[0], 0.5);
    close(run(vec![hit, miss]).stats[0], 1.0);
}

/// A category without truths is −1 (left out of the mean) even when it has detections; one
/// with truths and no detections counts as 0.
#[test]
fn absent_categories_are_left_out_and_missed_ones_count_zero() {
    let set = Images {
        images: vec![(
            vec![gt(1, [0.0, 0.0, 10.0, 10.0]), gt(2, [0.0, 20.0, 10.0, 10.0])],
            vec![dt(1, [0.0, 0.0, 10.0, 10.0], 1.0), dt(3, [0.0, 40.0, 10.0, 10.0], 1.0)],
        )],
        categories: vec![1, 2, 3],
    };
    let s = coco_eval(&set, &Params::default());
    close(s.stats[0], 0.5);
    assert_eq!(s.per_category[1].ap, Some(0.0));
    assert_eq!(s.per_category[2].ap, None);
}

/// IoU 0.58 passes thresholds 0.50 and 0.55 only: AP = 2/10, AP50 = 1, AP75 = 0.
#[test]
fn a_loose_box_counts_at_the_low_thresholds_only() {
    // 10×10 truth, 10×5.8 detection inside it: IoU 0.58.
    let set = Images {
        images: vec![(
            vec![gt(1, [0.0, 0.0, 10.0, 10.0])],
            vec![dt(1, [0.0, 0.0, 10.0, 5.8], 1.0)],
        )],
        categories: vec![1],
    };
    let s = coco_eval(&set, &Params::default());
    close(s.stats[0], 0.2);
    close(s.stats[1], 1.0);
    close(s.stats[2], 0.0);
}

#[test]
fn stored_evaluations_pool_to_the_same_figures() {
    let p = Params::default();
    let a = (vec![gt(1, [0.0, 0.0, 10.0, 10.0])], vec![dt(1, [0.0, 0.0, 10.0, 10.0], 0.3)]);
    let b = (vec![gt(1, [0.0, 0.0, 50.0, 50.0])], vec![dt(1, [60.0, 0.0, 50.0, 50.0], 0.9)]);
    let whole = Images { images: vec![a.clone(), b.clone()], categories: vec![1] };
    let direct = coco_eval(&whole, &p);
    // Evaluate page by page, store as JSON, read back and pool.
    let per_page: Vec<Evals> = [a, b]
        .into_iter()
        .map(|img| evaluate(&Images { images: vec![img], categories: vec![1] }, &p))
        .collect();
    let json = serde_json::to_string(&per_page).unwrap();
    let back: Vec<Evals> = serde_json::from_str(&json).unwrap();
    let pooled: Evals = vec![(0..p.area_rngs.len())
        .map(|ai| back.iter().map(|e| e[0][ai][0].clone()).collect())
        .collect()];
    let s = summarize(&accumulate_all(&pooled, &p), &[1], &p);
    assert_eq!(s, direct);
    // A false positive at 0.9 before the hit at 0.3: precision 0 then 1/2, recall 1/2.
    close(direct.stats[0], 51.0 / 101.0 * 0.5);
}

#[test]
fn ard_as_doclings_code_computes_it() {
    assert_eq!(ard(&[0, 1, 2], &[1.0, 1.0, 2.0]), (1.0, 1.0));
    // Read backwards: distances 2, 0, 2 → 1 − 4/9; weights 1/4, 1/4, 1/2 by position → 1 − 1.5/9.
    let (a, w) = ard(&[2, 1, 0], &[1.0, 1.0, 2.0]);
    assert!((a - 5.0 / 9.0).abs() < 1e-15);
    assert!((w - 5.0 / 6.0).abs() < 1e-15);
    assert_eq!(ard(&[], &[]), (0.0, 0.0));
}
