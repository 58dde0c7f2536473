//! Score an olmOCR-bench folder (`*.jsonl`, `pdfs/`, one folder per candidate holding
//! `<pdf stem>_pg<N>_repeat<K>.md`) the way `olmocr.bench.benchmark` does, and print one line per
//! test plus the per-group and overall scores.
//!
//! Usage: `cargo build --example olmocr_sample`, then `olmocr_sample [DIR]` (default: the shared sample data).

use std::path::{Path, PathBuf};
use std::time::Instant;

use corpus::metrics::olmocr::{
    add_default_baselines, bootstrap_ci, group_scores, is_page_file, is_repeat_of, load_tests,
    overall_score, score_test, ExactMathOnly,
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
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| DEFAULT_DIR.to_string()));
    if !dir.join("pdfs").is_dir() {
        eprintln!("skipping: {} has no pdfs/ folder", dir.display());
        return;
    }
    let mut pdfs = Vec::new();
    walk(&dir.join("pdfs"), &dir.join("pdfs"), "pdf", &mut pdfs);
    pdfs.sort();
    let mut jsonls: Vec<PathBuf> = std::fs::read_dir(&dir)
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
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(&dir)
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
            let outcome = score_test(test, &refs, &ExactMathOnly);
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
