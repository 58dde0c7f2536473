//! Score an olmOCR-bench folder (`*.jsonl`, `pdfs/`, one folder per candidate holding
//! `<pdf stem>_pg<N>_repeat<K>.md`) the way `olmocr.bench.benchmark` does, and print one line per
//! test plus the per-group and overall scores.
//!
//! Usage: `cargo run --example olmocr_sample -- [DIR] [--katex|--katex-raw|--browser|--browser-raw]`
//! (default: the shared sample data; math exact-match only). `--katex` renders math with KaTeX
//! under node (`scripts/katex`, lxml normalization, no layout); `--katex-raw` uses the
//! lxml-less normalization; `--browser` renders in headless Chromium as the runner does
//! (`scripts/browser/katex.mjs`), so the positional glyph comparison decides too;
//! `--browser-raw` does so with the lxml-less normalization.

use std::path::{Path, PathBuf};
use std::time::Instant;

use std::sync::Arc;

use corpus::external::chromium::BrowserKatex;
use corpus::external::katex::KatexRenderer;
use corpus::metrics::katex::{compare, Comparison, KatexRender, Normalization};
use corpus::metrics::olmocr::{
    add_default_baselines, bootstrap_ci, extract_equations, group_scores, is_page_file,
    is_repeat_of, load_tests, overall_score, score_test, ExactMathOnly, MathRenderer, Test,
};

const DEFAULT_DIR: &str = "../shared/data/olmocr-bench/sample_data";

fn walk(dir: &Path, root: &Path, ext: &str, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for entry in rd.flatten() {
        let p = entry.path();
        if p.is_dir() {
            walk(&p, root, ext, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some(ext) {
            if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = if args.iter().any(|a| a == "--katex") {
        Some(Normalization::Xml)
    } else if args.iter().any(|a| a == "--katex-raw") {
        Some(Normalization::RawHtml)
    } else {
        None
    };
    let dir = args.iter().find(|a| !a.starts_with("--")).cloned();
    let dir = PathBuf::from(dir.unwrap_or_else(|| DEFAULT_DIR.to_string()));
    let browser = args.iter().find(|a| *a == "--browser" || *a == "--browser-raw");
    if let Some(flag) = browser {
        let start = Instant::now();
        let norm = if flag == "--browser" { Normalization::Xml } else { Normalization::RawHtml };
        let script = BrowserKatex::default_script();
        let r =
            BrowserKatex::start_with(Path::new("node"), &script, None, norm).unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(1);
            });
        eprintln!(
            "katex {} in chromium {} started in {:.1} ms",
            r.katex_version(),
            r.browser_version(),
            start.elapsed().as_secs_f64() * 1e3
        );
        let render = |t: &str| r.render_checked(t).ok();
        run(&dir, &r, Some(&render));
        eprintln!("chromium: {} distinct formulas in {} batches", r.cached(), r.batches());
        if let Some(e) = r.failure() {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        return;
    }
    match mode {
        None => run(&dir, &ExactMathOnly, None),
        Some(mode) => {
            let start = Instant::now();
            let r =
                KatexRenderer::start_with(Path::new("node"), &KatexRenderer::default_dir(), mode)
                    .unwrap_or_else(|e| {
                        eprintln!("error: {e}");
                        std::process::exit(1);
                    });
            eprintln!(
                "katex {} started in {:.1} ms",
                r.version(),
                start.elapsed().as_secs_f64() * 1e3
            );
            let render = |t: &str| r.render_checked(t).ok();
            run(&dir, &r, Some(&render));
            eprintln!("katex: {} distinct formulas rendered", r.cached());
            if let Some(e) = r.failure() {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
}

/// Renders a formula for the diagnostics.
type Render<'a> = &'a dyn Fn(&str) -> Option<Arc<KatexRender>>;

/// The most favourable way a failing math test's reference compared with any hypothesis.
fn best_comparison(r: Render<'_>, test: &Test, contents: &[Option<String>]) -> String {
    let Test::Math(m) = test else { return String::new() };
    let rank = |c: Comparison| match c {
        Comparison::MathmlContained | Comparison::LayoutMatch => 3,
        Comparison::NoReferenceGlyphs => 2,
        Comparison::NeedsLayout | Comparison::LayoutMismatch => 1,
        Comparison::GlyphsMissing => 0,
    };
    let Some(reference) = r(&m.math) else { return "render failure".into() };
    let mut best: Option<Comparison> = None;
    for md in contents.iter().flatten() {
        for eq in extract_equations(md, m.ignore_dollar_delimited) {
            let Some(h) = r(&eq) else { continue };
            let c = compare(&reference, &h);
            if best.is_none_or(|b| rank(c) > rank(b)) {
                best = Some(c);
            }
        }
    }
    best.map_or_else(|| "no equations".to_string(), |c| format!("{c:?}"))
}

fn run<R: MathRenderer>(dir: &Path, renderer: &R, diag: Option<Render<'_>>) {
    if !dir.join("pdfs").is_dir() {
        eprintln!("skipping: {} has no pdfs/ folder", dir.display());
        return;
    }
    let mut pdfs = Vec::new();
    walk(&dir.join("pdfs"), &dir.join("pdfs"), "pdf", &mut pdfs);
    pdfs.sort();
    let mut jsonls: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    jsonls.retain(|p| p.extension().and_then(|e| e.to_str()) == Some("jsonl"));
    jsonls.sort();
    let mut tests = Vec::new();
    for path in &jsonls {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let text = std::fs::read_to_string(path).unwrap_or_default();
        match load_tests(&text) {
            Ok(ts) => tests.extend(ts.into_iter().map(|t| (name.clone(), t))),
            Err(e) => {
                eprintln!("error loading {name}: {e}");
                std::process::exit(1);
            }
        }
    }
    add_default_baselines(&mut tests, &pdfs);
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    candidates.retain(|p| p.file_name().is_some_and(|n| n != "pdfs"));
    candidates.sort();
    for cand in candidates {
        let name = cand.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut mds = Vec::new();
        walk(&cand, &cand, "md", &mut mds);
        let missing: Vec<&String> =
            pdfs.iter().filter(|pdf| !mds.iter().any(|m| is_repeat_of(pdf, m))).collect();
        if !missing.is_empty() {
            for pdf in missing {
                println!("[ERROR] candidate '{name}' is missing MD repeats for {pdf}");
            }
            continue;
        }
        let start = Instant::now();
        let mut results = Vec::new();
        let mut failed = 0usize;
        for (group, test) in &tests {
            let b = test.base();
            let files: Vec<&String> =
                mds.iter().filter(|m| is_repeat_of(&b.pdf, m) && is_page_file(m, b.page)).collect();
            let contents: Vec<Option<String>> =
                files.iter().map(|m| std::fs::read_to_string(cand.join(m)).ok()).collect();
            let refs: Vec<Option<&str>> = contents.iter().map(|c| c.as_deref()).collect();
            let outcome = score_test(test, &refs, renderer);
            failed += usize::from(!outcome.passed);
            println!(
                "TEST\t{}\t{}\t{}\t{:.3}\t{}\t{}",
                b.id,
                test.type_name(),
                if outcome.passed { "pass" } else { "FAIL" },
                outcome.value,
                group,
                if outcome.passed { "" } else { outcome.explanation.as_str() }
            );
            if let (Some(r), false) = (diag, outcome.passed) {
                if matches!(test, Test::Math(_)) {
                    println!("MATHCMP\t{}\t{}", b.id, best_comparison(r, test, &contents));
                }
            }
            results.push((group.clone(), outcome.passed));
        }
        let elapsed = start.elapsed();
        println!("candidate {name}: {} tests, {failed} failing", results.len());
        for g in group_scores(&results) {
            println!("  {:30} {:.1}% ({}/{})", g.group, g.rate() * 100.0, g.passed, g.total);
        }
        let groups: Vec<Vec<f64>> = group_scores(&results)
            .iter()
            .map(|g| {
                results
                    .iter()
                    .filter(|(n, _)| *n == g.group)
                    .map(|(_, p)| f64::from(u8::from(*p)))
                    .collect()
            })
            .collect();
        let (lo, hi) = bootstrap_ci(&groups, 1000, 0.95, 0);
        println!(
            "OVERALL\t{name}\t{}\t95% CI [{lo:.4}, {hi:.4}]\t({:.1} ms scoring)",
            overall_score(&results),
            elapsed.as_secs_f64() * 1000.0
        );
    }
}
