//! CDM: the pure matching against hand-computed values and the reference packages' numbers
//! (numpy's generator, scikit-image's `ransac`, SciPy's assignment), rendering with a real
//! TeX, the render cache, `corpus score --metric cdm`, and the two official variants' scores on
//! the shared data.

use corpus::external::cdm::render;
use corpus::external::cdm::{omnidocbench_input, CdmEngine};
use corpus::metrics::cdm::matching::{self, match_boxes, norm_same_token, ransac, round3};
use corpus::metrics::cdm::rng::Pcg64;
use corpus::metrics::cdm::tokens::prepare;
use corpus::metrics::cdm::Variant;

use crate::util::{corpus, run, shared_data, skip_or_fail};

const BOTH: [Variant; 2] = [Variant::OmniDocBench, Variant::UniMERNet];

/// Boxes in a row, 10 px wide with 10 px gaps, on a 200×40 image.
fn row(tokens: &[&str]) -> Vec<(String, [i32; 4])> {
    tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.to_string(), [10 + 20 * i as i32, 10, 20 + 20 * i as i32, 30]))
        .collect()
}

fn refs(v: &[(String, [i32; 4])]) -> Vec<(&str, [i32; 4])> {
    v.iter().map(|(t, b)| (t.as_str(), *b)).collect()
}

#[test]
fn identical_boxes_match_fully() {
    for v in BOTH {
        let g = row(&["a", "+", "b", "=", "c"]);
        let m = match_boxes(&refs(&g), (200, 40), &refs(&g), (200, 40), v);
        assert_eq!((m.matched, m.f1, m.recall, m.precision), (5, 1.0, 1.0, 1.0), "{v:?}");
    }
}

#[test]
fn a_different_token_is_assigned_but_not_counted() {
    // gt a + b = c, pred a + b = x: the assignment pairs c with x (same place), RANSAC keeps
    // it, the token filter drops it: 4 of 5 on each side, F1 = 8/10.
    for v in BOTH {
        let (g, p) = (row(&["a", "+", "b", "=", "c"]), row(&["a", "+", "b", "=", "x"]));
        let m = match_boxes(&refs(&g), (200, 40), &refs(&p), (200, 40), v);
        assert_eq!(m.matched, 4, "{v:?}");
        assert_eq!((m.f1, m.recall, m.precision), (0.8, 0.8, 0.8));
        assert!(m.pairs.contains(&(4, 4, false)), "{:?}", m.pairs);
    }
}

#[test]
fn a_missing_token_lowers_recall_only() {
    // gt 5 tokens, pred the first 4: 4 matched; F1 = 8/9 = 0.889, recall 0.8, precision 1.
    for v in BOTH {
        let (g, p) = (row(&["a", "+", "b", "=", "c"]), row(&["a", "+", "b", "="]));
        let m = match_boxes(&refs(&g), (200, 40), &refs(&p), (160, 40), v);
        assert_eq!((m.matched, m.f1, m.recall, m.precision), (4, 0.889, 0.8, 1.0), "{v:?}");
    }
}

#[test]
fn a_token_far_from_its_place_is_an_outlier() {
    // Same tokens, but the prediction's `b` sits 150 px lower: the assignment still pairs the
    // two `b`s (token cost 0), RANSAC's translation leaves it out (residual 150 > 20 or 25),
    // and the one leftover match is too few for another round: 4 of 5, F1 0.8.
    for v in BOTH {
        let g = row(&["a", "+", "b", "=", "c"]);
        let mut p = g.clone();
        p[2].1[1] += 150;
        p[2].1[3] += 150;
        let m = match_boxes(&refs(&g), (200, 40), &refs(&p), (200, 190), v);
        assert!(m.pairs.contains(&(2, 2, false)), "{v:?} {:?}", m.pairs);
        assert_eq!((m.matched, m.f1), (4, 0.8), "{v:?}");
    }
}

#[test]
fn tokens_that_draw_alike_cost_little_and_count() {
    // `\leq` and `\le` normalize alike in both variants: assigned and counted.
    for v in BOTH {
        let (g, p) = (row(&["a", "\\leq", "b"]), row(&["a", "\\le", "b"]));
        let m = match_boxes(&refs(&g), (100, 40), &refs(&p), (100, 40), v);
        assert_eq!(m.f1, 1.0, "{v:?}");
    }
}

#[test]
fn token_normalization_follows_each_variant() {
    let u = |t| norm_same_token(t, Variant::UniMERNet);
    let o = |t| norm_same_token(t, Variant::OmniDocBench);
    // UniMERNet: the dict's later `\neq` wins; `\left(` loses `\left`; `\leftarrow` keeps it.
    assert_eq!(u("\\neq"), "\\not=");
    assert_eq!(u("\\left("), "(");
    assert_eq!(u("\\leftarrow"), "\\leftarrow");
    assert_eq!(u("\\bigl\\{"), "\\{");
    assert_eq!(u("\\Bigr)"), ")");
    assert_eq!(u("\\varepsilon"), "\\epsilon");
    assert_eq!(u("\\lbrace"), "\\{");
    // OmniDocBench: `\to` maps to `\rightarrow`, which then loses `\right`.
    assert_eq!(o("\\to"), "arrow");
    assert_eq!(o("\\leq"), "\\le");
    assert_eq!(o("\\Longrightarrow"), "\\rightarrow");
    assert_eq!(o("\\varepsilon"), "epsilon");
    assert_eq!(o("\\widehat"), "\\hat");
}

#[test]
fn lsap_is_optimal_against_brute_force_and_breaks_ties_as_scipy() {
    // Small matrices with many ties: the assignment's cost equals the brute-force minimum.
    let mut rng = Pcg64::seed42();
    for trial in 0..300 {
        let (n, m) = (1 + trial % 4, 1 + (trial / 4) % 5);
        let cost: Vec<f64> = (0..n * m).map(|_| rng.bounded(3) as f64).collect();
        let (rows, cols) = lsap::solve(n, m, &cost, false).unwrap();
        let got: f64 = rows.iter().zip(&cols).map(|(&r, &c)| cost[r * m + c]).sum();
        assert_eq!(rows.len(), n.min(m));
        assert_eq!(got, brute_force(n, m, &cost), "{n}x{m} {cost:?}");
    }
    // SciPy 1.10.1's `linear_sum_assignment` on tied matrices (printed once with it).
    type Case = (usize, usize, Vec<f64>, Vec<usize>, Vec<usize>);
    let cases: [Case; 4] = [
        (3, 3, vec![0.0; 9], vec![0, 1, 2], vec![0, 1, 2]),
        (2, 4, vec![1.0; 8], vec![0, 1], vec![0, 1]),
        (4, 3, vec![1., 1., 0., 1., 1., 0., 0., 1., 1., 1., 0., 1.], vec![0, 2, 3], vec![2, 0, 1]),
        (3, 4, vec![2., 1., 1., 2., 1., 2., 2., 1., 1., 1., 2., 2.], vec![0, 1, 2], vec![2, 0, 1]),
    ];
    for (n, m, cost, rows, cols) in cases {
        assert_eq!(lsap::solve(n, m, &cost, false).unwrap(), (rows, cols), "{n}x{m}");
    }
}

fn brute_force(n: usize, m: usize, cost: &[f64]) -> f64 {
    // Every injective map from the shorter side into the longer.
    fn go(
        i: usize,
        n: usize,
        m: usize,
        used: &mut Vec<bool>,
        f: &dyn Fn(usize, usize) -> f64,
    ) -> f64 {
        if i == n {
            return 0.0;
        }
        let mut best = f64::INFINITY;
        for j in 0..m {
            if !used[j] {
                used[j] = true;
                best = best.min(f(i, j) + go(i + 1, n, m, used, f));
                used[j] = false;
            }
        }
        best
    }
    if n <= m {
        go(0, n, m, &mut vec![false; m], &|i, j| cost[i * m + j])
    } else {
        go(0, m, n, &mut vec![false; n], &|j, i| cost[i * m + j])
    }
}

#[test]
fn the_generator_draws_what_numpy_draws() {
    // numpy 1.24.4: `g = np.random.default_rng(42)`;
    // `g.integers(0, 2**64, size=4, dtype=np.uint64)` (raw 64-bit outputs).
    let mut g = Pcg64::seed42();
    let raw: Vec<u64> = (0..4).map(|_| g.next_u64()).collect();
    assert_eq!(
        raw,
        [14276969152011380360, 8095878257575067585, 15838336090824644132, 12864169557245331597]
    );
    // One generator, successive `g.choice(n, k, replace=False)` for (5,2), (10,3), (4,3),
    // (100,3), (7,2), (3,2).
    let mut g = Pcg64::seed42();
    let got: Vec<Vec<usize>> = [(5, 2), (10, 3), (4, 3), (100, 3), (7, 2), (3, 2)]
        .iter()
        .map(|&(n, k)| g.choice(n, k))
        .collect();
    let want: Vec<Vec<usize>> =
        vec![vec![0, 3], vec![9, 8, 3], vec![0, 2, 3], vec![78, 74, 71], vec![5, 3], vec![0, 2]];
    assert_eq!(got, want);
    // Above 10 000 items numpy shuffles the tail: `default_rng(42).choice(20000, 500,
    // replace=False)[:10]`.
    let mut g = Pcg64::seed42();
    assert_eq!(
        g.choice(20000, 500)[..10],
        [8305, 18068, 7297, 2318, 8047, 5653, 11764, 14696, 16928, 18207]
    );
}

#[test]
fn ransac_keeps_what_scikit_image_keeps() {
    // scikit-image 0.20.0 `ransac((src, dst), SimpleAffineTransform, min_samples,
    // residual_threshold, max_trials=50, random_state=42)`, SimpleAffineTransform from
    // UniMERNet's visual_matcher.py; data from numpy `default_rng(3)`: src uniform in
    // [0, 200) rounded, dst = round(1.3·src + (10, −5) + N(0, 14)).
    let src: Vec<[f64; 2]> = vec![
        [17., 47.],
        [160., 116.],
        [19., 87.],
        [96., 32.],
        [147., 23.],
        [78., 103.],
        [86., 117.],
        [148., 191.],
        [57., 130.],
        [139., 59.],
        [0., 195.],
        [60., 63.],
        [178., 117.],
        [94., 155.],
        [6., 141.],
    ];
    let dst: Vec<[f64; 2]> = vec![
        [20., 52.],
        [230., 154.],
        [36., 117.],
        [95., 51.],
        [188., 2.],
        [115., 139.],
        [116., 132.],
        [203., 243.],
        [104., 174.],
        [193., 87.],
        [7., 236.],
        [96., 85.],
        [238., 136.],
        [135., 162.],
        [27., 185.],
    ];
    let bits = |v: Option<Vec<bool>>| v.unwrap().iter().map(|&b| b as u8).collect::<Vec<_>>();
    assert_eq!(
        bits(ransac(&src, &dst, 2, 20.0, 50)),
        [0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1]
    );
    assert_eq!(
        bits(ransac(&src, &dst, 3, 25.0, 50)),
        [1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1]
    );
    assert_eq!(
        bits(ransac(&src, &dst, 2, 10.0, 50)),
        [0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1]
    );
    // A clean translation with three outliers.
    let src: Vec<[f64; 2]> =
        (0..12).map(|i| [10.0 + 7.0 * i as f64, 20.0 + 13.0 * (i % 4) as f64]).collect();
    let mut dst: Vec<[f64; 2]> = src.iter().map(|p| [p[0] + 5.0, p[1] - 3.0]).collect();
    for (i, d) in [(2, [60.0, 10.0]), (7, [-40.0, 35.0]), (10, [0.0, 90.0])] {
        dst[i][0] += d[0];
        dst[i][1] += d[1];
    }
    for (ms, rt) in [(2, 20.0), (3, 25.0)] {
        assert_eq!(bits(ransac(&src, &dst, ms, rt, 50)), [1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0, 1]);
    }
}

#[test]
fn rounding_is_pythons() {
    // Python 3.11 `round(x, 3)`.
    for (x, want) in [
        (0.8575, 0.858),
        (0.1235, 0.123),
        (2.0 / 3.0, 0.667),
        (0.0005, 0.001),
        (0.9995, 1.0),
        (0.0625, 0.062),
    ] {
        assert_eq!(round3(x), want, "{x}");
    }
    assert_eq!(matching::exp_rate(&[1.0, 0.5, 1.0, 0.999]), 0.5);
}

#[test]
fn omnidocbench_strips_dollars_and_fences_only() {
    let (g, p) = omnidocbench_input("$$ x^2 $$", "text ```latex\n$a+b$\n``` more");
    assert_eq!((g.as_str(), p.as_str()), ("x^2", "a+b"));
    let (g, p) = omnidocbench_input("\\[ x \\]", "$\\[ y \\]$");
    assert_eq!((g.as_str(), p.as_str()), ("\\[ x \\]", "\\[ y \\]"));
}

// ---- With a real TeX --------------------------------------------------------------------

/// Whether the variant's TeX, Ghostscript (and for OmniDocBench the CJK font) are here; a
/// test that cannot run says why and skips, and fails under `CI=true` (scripts/test.sh
/// installs them).
pub(crate) fn tex_ready(v: Variant) -> bool {
    let missing = corpus::external::cdm::render::missing_tools(v);
    if missing.is_empty() {
        return true;
    }
    skip_or_fail(&format!("CDM {} needs {}", v.name(), missing.join(", ")));
    false
}

#[test]
fn formulas_render_with_a_box_per_token_left_to_right() {
    for v in BOTH {
        if !tex_ready(v) {
            continue;
        }
        let p = prepare("a + b = c", v);
        let out = render::render_all(v, &[&p], 1);
        let r = out[0].as_ref().unwrap();
        assert_eq!(r.boxes.len(), p.colors.len());
        let boxes: Vec<[i32; 4]> = r.boxes.iter().map(|b| b.expect("every token drawn")).collect();
        for w in boxes.windows(2) {
            assert!(w[0][0] < w[1][0], "{v:?}: boxes not left to right: {boxes:?}");
        }
        // The crop leaves 8 px round the ink; each box is its pixels widened by 1.
        assert_eq!(boxes[0][0], 8 - 1, "{v:?} {boxes:?}");
        assert!(r.width > 60 && r.width < 400 && r.height > 20 && r.height < 80, "{v:?} {r:?}");
        assert!(r.tex_errors.is_empty(), "{:?}", r.tex_errors);
    }
}

#[test]
fn a_batch_renders_each_formula_as_it_renders_alone() {
    for v in BOTH {
        if !tex_ready(v) {
            continue;
        }
        let sources = [
            "x ^ 2 + y",
            "\\frac { a } { b }",
            "\\errmessage{boom} x",
            "\\alpha \\beta",
            "\\[ q \\]",
        ];
        let ps: Vec<_> = sources.iter().map(|s| prepare(s, v)).collect();
        let refs: Vec<_> = ps.iter().collect();
        let batch = render::render_all(v, &refs, 2);
        for (i, p) in ps.iter().enumerate() {
            let alone = render::render_all(v, &[p], 1);
            assert_eq!(batch[i], alone[0], "{v:?}: {}", sources[i]);
        }
        // A formula TeX stops on is an error with TeX's message, not a 0 (how far TeX gets
        // depends on how the tokenizer coloured `\errmessage`: no page, or a page with TeX's
        // complaint beside it) ...
        assert_tex_complains(&batch[2]);
        // ... while `\[` inside the display is TeX's complaint on a page that still renders
        // (the official code keeps it; that token gets no box).
        let q = batch[4].as_ref().unwrap();
        assert!(q.tex_errors.iter().any(|e| e.contains("Bad math environment delimiter")), "{q:?}");
        assert!(q.boxes.iter().any(Option::is_some));
    }
}

/// TeX's message is there: as the error when TeX wrote no page, else beside the page.
fn assert_tex_complains(r: &Result<render::RenderedBoxes, String>) {
    match r {
        Err(e) => assert!(e.starts_with("TeX: ") && e.len() > 10, "{e}"),
        Ok(b) => assert!(!b.tex_errors.is_empty(), "{b:?}"),
    }
}

#[test]
fn the_engine_scores_pairs_and_a_rerun_renders_nothing() {
    let v = Variant::UniMERNet;
    if !tex_ready(v) {
        return;
    }
    let store = corpus::store::Store::open_in_memory().unwrap();
    let pairs: Vec<(String, String)> =
        [("a + b = c", "a + b = c"), ("a + b = c", "a + b = x"), ("x ^ 2", "\\errmessage{boom} x")]
            .iter()
            .map(|(g, p)| (g.to_string(), p.to_string()))
            .collect();
    let e = CdmEngine::new(v, Some(&store));
    let first = e.score_pairs(&pairs);
    // Four distinct formulas, each rendered once.
    assert_eq!(e.renders(), 4);
    assert_eq!(first[0].as_ref().unwrap().f1, 1.0);
    let second = first[1].as_ref().unwrap();
    assert!(second.f1 < 1.0 && second.f1 > 0.5, "{second:?}");
    assert_eq!(second.trace["variant"], "unimernet");
    // TeX's complaint about the prediction: the pair's error, or in its trace.
    let failed = match &first[2] {
        Err(e) => {
            assert!(e.starts_with("pred: TeX: "), "{e}");
            1
        }
        Ok(s) => {
            assert!(s.trace["pred_tex_errors"].as_array().is_some_and(|a| !a.is_empty()), "{s:?}");
            0
        }
    };
    let again = CdmEngine::new(v, Some(&store));
    let rerun = again.score_pairs(&pairs);
    // Only a failed render is tried again.
    assert_eq!(again.renders(), failed);
    assert_eq!(rerun, first);
}

#[test]
fn corpus_score_cdm_scores_lines_and_reports_bad_ones() {
    let v = Variant::UniMERNet;
    if !tex_ready(v) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("pairs.jsonl");
    std::fs::write(
        &input,
        "{\"gt\": \"a + b\", \"pred\": \"a + b\", \"id\": 1}\nnot json\n{\"gt\": \"a + b\", \"pred\": \"a - b\"}\n",
    )
    .unwrap();
    let cache = d.path().join("cdm.db");
    let args = |c: &mut std::process::Command| {
        c.args(["score", "--metric", "cdm", "--cdm", "unimernet", "--cache"])
            .arg(&cache)
            .arg(&input);
    };
    let mut c = corpus(&d.path().join("unused.db"));
    args(&mut c);
    let out = run(&mut c);
    assert_eq!(out.status.code(), Some(3));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!((lines[0]["score"].as_f64(), lines[0]["id"].as_i64()), (Some(1.0), Some(1)));
    assert_eq!(lines[0]["metric"], "cdm");
    assert_eq!(lines[0]["trace"]["variant"], "unimernet");
    assert!(lines[1]["error"].as_str().unwrap().contains("line 2"), "{}", lines[1]);
    assert!(lines[2]["score"].as_f64().unwrap() < 1.0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 rendered"), "renders are reported");
    // The second run reads every render from the cache.
    let mut c = corpus(&d.path().join("unused.db"));
    args(&mut c);
    let out = run(&mut c);
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 rendered"));
}

// ---- The official variants' numbers (need the real tokenizer) ------------------------

#[test]
fn unimernet_variant_reproduces_the_formula_study_cdm_scores() {
    let Some(dir) = shared_data("formula-metric-study") else { return };
    if !tex_ready(Variant::UniMERNet) {
        return;
    }
    let rows: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("formulas-dev.json")).unwrap()).unwrap();
    let rows = rows.as_array().unwrap();
    let pairs: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["gt_formula"].as_str().unwrap().to_string(),
                r["extracted_formula"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let got = CdmEngine::new(Variant::UniMERNet, None).score_pairs(&pairs);
    let (mut close, mut equal, mut sum_diff) = (0, 0, 0.0);
    for (r, g) in rows.iter().zip(&got) {
        let want = r["metrics"]["cdm_score"].as_f64().unwrap();
        let f1 = g.as_ref().map_or(0.0, |s| s.f1);
        let d = (f1 - want).abs();
        sum_diff += d;
        close += usize::from(d <= 0.02);
        equal += usize::from(d == 0.0);
        if d > 0.0 {
            eprintln!("{}: ours {f1} official {want} ({:?})", r["gt_id"], g.as_ref().err());
        }
    }
    let n = rows.len();
    eprintln!(
        "unimernet: {equal}/{n} equal, {close}/{n} within 0.02, mean |diff| {:.4}",
        sum_diff / n as f64
    );
    assert!(close as f64 >= 0.95 * n as f64, "{close}/{n} within 0.02");
    assert!(sum_diff / n as f64 <= 0.01);
}

#[test]
fn omnidocbench_variant_reproduces_the_demo_cdm() {
    let Some(dir) = shared_data("omnidocbench/result-v1.5-cdm") else { return };
    if !tex_ready(Variant::OmniDocBench) {
        return;
    }
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("display_formula_cdm.json")).unwrap())
            .unwrap();
    let rows = v["pairs"].as_array().unwrap();
    let pairs: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["gt_fed_to_cdm"].as_str().unwrap().to_string(),
                r["pred_fed_to_cdm"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let got = CdmEngine::new(Variant::OmniDocBench, None).score_pairs(&pairs);
    let f1s: Vec<f64> = got.iter().map(|g| g.as_ref().map_or(0.0, |s| s.f1)).collect();
    for (r, f1) in rows.iter().zip(&f1s) {
        assert_eq!(*f1, r["F1_score"].as_f64().unwrap(), "pair {}", r["pair_index"]);
    }
    let mean = f1s.iter().sum::<f64>() / f1s.len() as f64;
    assert!((mean - 0.8758461538461539).abs() < 1e-12, "{mean}");
    assert!((matching::exp_rate(&f1s) - 0.3077).abs() < 1e-4);
}
