//! Scoring: repeats, default baselines, group scores and the bootstrap (`benchmark.py`, `utils.py`).

use super::*;

/// Group name of the baseline tests added by [`add_default_baselines`].
pub const BASELINE_GROUP: &str = "baseline";

/// The result of one test over all repeats of its page.
#[derive(Debug, Clone, PartialEq)]
pub struct TestOutcome {
    /// Fraction of repeats that passed (`test_avg`).
    pub value: f64,
    /// `value > 0.5`.
    pub passed: bool,
    /// First failure explanation, or `"All repeats passed"`.
    pub explanation: String,
    /// The test failed and some failing repeat needed the browser's glyph layout that the
    /// renderer lacked ([`TestRun::needs_browser`]): decided without the browser.
    pub needs_browser: bool,
}

/// `benchmark.py::process_test` for one test: run it on every repeat of its page. A repeat that
/// could not be read is passed as `None` and counts as a failed repeat. With no repeat at all the
/// test scores 0 ("Missing MD files").
pub fn score_test<R: MathRenderer>(
    test: &Test,
    repeats: &[Option<&str>],
    renderer: &R,
) -> TestOutcome {
    if repeats.is_empty() {
        return TestOutcome {
            value: 0.0,
            passed: false,
            explanation: "Missing MD files".to_string(),
            needs_browser: false,
        };
    }
    let mut passes = 0usize;
    let mut explanations = Vec::new();
    let mut needs_browser = false;
    // An unreadable repeat (`None`) counts in the denominator only.
    for md in repeats.iter().flatten() {
        let r = test.run_traced(md, renderer);
        if r.passed {
            passes += 1;
        } else {
            needs_browser |= r.needs_browser;
            explanations.push(r.explanation);
        }
    }
    let value = passes as f64 / repeats.len() as f64;
    let passed = value > 0.5;
    TestOutcome {
        value,
        passed,
        explanation: explanations.into_iter().next().unwrap_or_else(|| "All repeats passed".into()),
        needs_browser: needs_browser && !passed,
    }
}

/// The runner's default `baseline` test for a PDF without one (`BaselineTest(id=f"{pdf}_baseline",
/// pdf=pdf, page=1, type="baseline")`).
pub(crate) fn default_baseline(pdf: &str) -> Test {
    Test::Baseline(BaselineTest {
        base: BaseFields {
            pdf: pdf.to_string(),
            page: 1,
            id: format!("{pdf}_baseline"),
            max_diffs: 0,
            checked: None,
            url: None,
        },
        max_length: None,
        max_length_skips_image_alt_tags: false,
        max_repeats: 30,
        check_disallowed_characters: true,
    })
}

/// Append a default baseline test, in group [`BASELINE_GROUP`], for every PDF (in the given
/// order) that has no `baseline` test yet. `tests` holds `(group, test)` pairs.
pub fn add_default_baselines(tests: &mut Vec<(String, Test)>, pdfs: &[String]) {
    for pdf in pdfs {
        let has = tests.iter().any(|(_, t)| t.base().pdf == *pdf && matches!(t, Test::Baseline(_)));
        if !has {
            tests.push((BASELINE_GROUP.to_string(), default_baseline(pdf)));
        }
    }
}

/// Whether a candidate file (path relative to the candidate folder, `/`-separated) is a repeat
/// of `pdf` (path relative to `pdfs/`): `^<pdf stem>_pg\d+_repeat\d+\.md$`.
pub fn is_repeat_of(pdf: &str, rel_md: &str) -> bool {
    let stem = pdf.strip_suffix(".pdf").or_else(|| pdf.rsplit_once('.').map(|(s, _)| s));
    let stem = stem.unwrap_or(pdf);
    let Some(rest) = rel_md.strip_prefix(stem) else { return false };
    let Some(rest) = rest.strip_prefix("_pg") else { return false };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let Some(rest) = rest[digits..].strip_prefix("_repeat") else { return false };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && &rest[digits..] == ".md"
}

/// Whether a repeat file belongs to `page`: its file name contains `_pg<page>_`.
pub fn is_page_file(rel_md: &str, page: i64) -> bool {
    let name = rel_md.rsplit('/').next().unwrap_or(rel_md);
    name.contains(&format!("_pg{page}_"))
}

/// Pass rate of one group of tests.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupScore {
    /// Group name (JSONL file name or `baseline`).
    pub group: String,
    /// Tests passed.
    pub passed: usize,
    /// Tests in the group.
    pub total: usize,
}

impl GroupScore {
    /// `passed / total`.
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.passed as f64 / self.total as f64
        }
    }
}

/// Per-group pass counts, groups in order of first appearance.
pub fn group_scores(results: &[(String, bool)]) -> Vec<GroupScore> {
    let mut out: Vec<GroupScore> = Vec::new();
    for (g, passed) in results {
        let i = match out.iter().position(|s| s.group == *g) {
            Some(i) => i,
            None => {
                out.push(GroupScore { group: g.clone(), passed: 0, total: 0 });
                out.len() - 1
            }
        };
        out[i].total += 1;
        out[i].passed += usize::from(*passed);
    }
    out
}

/// Overall olmOCR-bench score: mean over groups of the group pass rate (0 when empty).
pub fn overall_score(results: &[(String, bool)]) -> f64 {
    let groups = group_scores(results);
    if groups.is_empty() {
        return 0.0;
    }
    groups.iter().map(GroupScore::rate).sum::<f64>() / groups.len() as f64
}

/// NumPy's default (`linear`) percentile of unsorted values, `q` in `[0, 100]`.
pub(crate) fn percentile_linear(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let pos = q / 100.0 * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    v[lo] + (v[hi] - v[lo]) * frac
}

/// `utils.py::calculate_bootstrap_ci` with `splits`: resample each group's 0/1 test results with
/// replacement (independently per group), average the group means, repeat `n_bootstrap` times,
/// and return the `(1 - ci_level) / 2` and `1 - (1 - ci_level) / 2` percentiles. The PRNG is
/// [`crate::metrics::stats::Rng`] (xoshiro256**) seeded with `seed`, so the bounds are reproducible but not NumPy's draws.
pub fn bootstrap_ci(
    groups: &[Vec<f64>],
    n_bootstrap: usize,
    ci_level: f64,
    seed: u64,
) -> (f64, f64) {
    let groups: Vec<&Vec<f64>> = groups.iter().filter(|g| !g.is_empty()).collect();
    if groups.is_empty() || n_bootstrap == 0 {
        return (0.0, 0.0);
    }
    let mut rng = crate::metrics::stats::Rng::new(seed);
    let mut means = Vec::with_capacity(n_bootstrap);
    for _ in 0..n_bootstrap {
        let mut sum_of_means = 0.0;
        for g in &groups {
            let n = g.len() as u64;
            let s: f64 = (0..n).map(|_| g[rng.below(n) as usize]).sum();
            sum_of_means += s / n as f64;
        }
        means.push(sum_of_means / groups.len() as f64);
    }
    let alpha = (1.0 - ci_level) / 2.0;
    (percentile_linear(&means, alpha * 100.0), percentile_linear(&means, (1.0 - alpha) * 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoring_rules() {
        let test = t(r#"{"pdf":"a.pdf","page":1,"id":"p","type":"present","text":"hello"}"#);
        let o = score_test(&test, &[Some("hello"), Some("nope!"), Some("hello")], &ExactMathOnly);
        assert!((o.value - 2.0 / 3.0).abs() < 1e-12 && o.passed);
        let o = score_test(&test, &[Some("hello"), Some("nope!")], &ExactMathOnly);
        assert!(!o.passed);
        let o = score_test(&test, &[Some("hello"), None], &ExactMathOnly);
        assert!(!o.passed);
        assert!(!score_test(&test, &[], &ExactMathOnly).passed);
        let results = vec![
            ("a.jsonl".to_string(), true),
            ("a.jsonl".to_string(), false),
            ("baseline".to_string(), true),
        ];
        assert!((overall_score(&results) - 0.75).abs() < 1e-12);
        let mut tests = vec![("a.jsonl".to_string(), test)];
        add_default_baselines(&mut tests, &["a.pdf".to_string(), "b.pdf".to_string()]);
        assert_eq!(tests.len(), 3);
        assert_eq!(tests[2].1.base().id, "b.pdf_baseline");
        assert!(is_repeat_of("dir/x_pg2.pdf", "dir/x_pg2_pg1_repeat1.md"));
        assert!(!is_repeat_of("x.pdf", "x_pg1_repeat1.txt"));
        assert!(!is_repeat_of("x.pdf", "xy_pg1_repeat1.md"));
        assert!(is_page_file("dir/x_pg2_pg1_repeat1.md", 1));
        assert!(!is_page_file("dir/x_pg1_repeat1.md", 2));
    }

    #[test]
    fn bootstrap_and_percentile() {
        assert_eq!(percentile_linear(&[1.0, 2.0, 3.0, 4.0], 50.0), 2.5);
        assert_eq!(percentile_linear(&[0.0, 10.0], 2.5), 0.25);
        let all_pass = vec![vec![1.0; 10], vec![1.0; 3]];
        assert_eq!(bootstrap_ci(&all_pass, 100, 0.95, 7), (1.0, 1.0));
        let mixed = vec![vec![1.0, 0.0, 1.0, 1.0], vec![0.0, 1.0]];
        let (lo, hi) = bootstrap_ci(&mixed, 1000, 0.95, 7);
        assert!(lo < 0.625 && hi > 0.625 && lo >= 0.0 && hi <= 1.0);
        assert_eq!(bootstrap_ci(&mixed, 1000, 0.95, 7), (lo, hi));
        let mut r = crate::metrics::stats::Rng::new(1);
        assert!((0..1000).all(|_| r.below(6) < 6));
    }
}
