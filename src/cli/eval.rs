//! `corpus eval`.

use std::process::ExitCode;

use clap::Args;
use corpus::store::Store;
use corpus::suites::paper::{eval, EvalOptions, COLUMNS};

use super::output::{fmt_value, print_json, print_table, Format, OutputArgs};
use super::{argv, GlobalArgs, EXIT_SOME_FAILED};

/// Arguments of `corpus eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The suite
    ///
    /// paper: PeerRead, GROBID TEI, S2ORC, JATS or Docling truths. omnidoc: OmniDocBench v1.5
    /// end-to-end (text, formula, table TEDS, reading order). olmocr: olmOCR-bench unit tests
    /// on every repeat of a page. table: LaTeX or ICDAR 2013 GT tables (TEDS, GriTS, value
    /// accuracy, detection).
    #[arg(long, default_value = "paper", value_parser = super::values::suite())]
    suite: String,
    /// omnidoc: how predicted blocks are matched to the truth's (quick = OmniDocBench's
    /// adjacency search, simple = Hungarian only, none = whole page against whole page)
    #[arg(long = "match", default_value = "quick", value_parser = corpus::suites::omnidoc::parse_method)]
    method: corpus::suites::omnidoc::MatchMethod,
    /// Only outputs of this provider; `truth` scores each ground truth against itself
    #[arg(long)]
    provider: Option<String>,
    /// Only truths of this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// olmocr: how math tests compare formulas. katex renders both with the katex npm package
    /// (scripts/katex, `npm ci --prefix scripts/katex`) and checks MathML containment, as the
    /// official runner does first; exact passes only verbatim formulas. Stored under suite
    /// olmocr or olmocr-exact, so the two never mix
    #[arg(long, default_value = "katex", value_parser = ["katex", "exact"])]
    math: String,
    /// paper: also print GROBID-style field scores (header and citation fields, strict / soft
    /// / Levenshtein / Ratcliff-Obershelp matching), pooled per provider version and dataset,
    /// in percent as GROBID reports them (always in --format json)
    #[arg(long)]
    fields: bool,
    #[command(flatten)]
    shard: super::shard::ShardArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `corpus eval`.
pub fn run(g: &GlobalArgs, a: &EvalArgs) -> anyhow::Result<ExitCode> {
    let what = format!("{}-{}", a.suite, a.provider.as_deref().unwrap_or("all"));
    let task = a.shard.task("eval", &what)?;
    if task.is_some() && a.provider.as_deref() == Some(corpus::providers::truth::ID) {
        usage_bail!(
            "--provider truth is not sharded (it takes seconds): run `corpus eval --provider truth` without --shard/--into"
        );
    }
    let mut store = super::shard::open(g, task.as_ref())?;
    let run = store.start_run("eval", &argv())?;
    if a.suite == corpus::suites::omnidoc::SUITE {
        return run_omnidoc(g, a, &mut store, run);
    }
    if a.suite == corpus::suites::olmocr::SUITE {
        return run_olmocr(g, a, &mut store, run);
    }
    if a.suite == corpus::suites::table::SUITE {
        return run_table(g, a, &mut store, run);
    }
    if a.provider.as_deref() == Some(corpus::providers::truth::ID) {
        corpus::providers::truth::materialize(&mut store, a.dataset.as_deref(), Some(run))?;
    }
    let opts = EvalOptions {
        provider: a.provider.as_deref(),
        dataset: a.dataset.as_deref(),
        run: Some(run),
    };
    let bar = super::progress::Bar::new("eval", g.quiet);
    let sum = eval(&mut store, &opts, &bar)?;
    let counts = serde_json::json!({
        "suite": sum.suite, "suite_version": sum.suite_version, "pairs": sum.pairs,
        "scored": sum.scored, "cached": sum.cached, "failed": sum.failures.len(),
    });
    store.finish_run(run, &counts, sum.failures.len() as u64)?;
    if store.shard().is_some() {
        return shard_summary(
            g,
            a,
            &store,
            &counts,
            sum.failures.iter().map(|f| (&f.document, &f.error)),
        );
    }
    match a.output.format {
        Format::Json => print_json(&sum)?,
        Format::Table => {
            let several = sum.rows.iter().any(|r| r.provider != sum.rows[0].provider);
            // Header-only truths have no headline metric: show what they do score.
            let mut columns = COLUMNS.to_vec();
            if sum.rows.iter().any(|r| COLUMNS.iter().all(|(_, id)| r.get(id).is_none())) {
                columns.extend([("Title", "title_chr"), ("Abstract", "abstract_r")]);
            }
            let mut headers = vec!["ID"];
            if several {
                headers.push("Provider");
            }
            headers.extend(columns.iter().map(|(h, _)| *h));
            let mut rows: Vec<Vec<String>> = sum
                .rows
                .iter()
                .map(|r| {
                    let mut cells = vec![r.document.clone()];
                    if several {
                        cells.push(format!("{}@{}", r.provider, r.provider_version));
                    }
                    cells.extend(columns.iter().map(|(_, id)| fmt_value(r.get(id))));
                    cells
                })
                .collect();
            if !rows.is_empty() {
                let mut avg = vec!["AVG".to_string()];
                if several {
                    avg.push(String::new());
                }
                avg.extend(columns.iter().map(|(_, id)| {
                    fmt_value(sum.average.iter().find(|(m, _)| m == id).and_then(|(_, v)| *v))
                }));
                rows.push(avg);
            }
            print_table(&headers, &rows)?;
            if a.fields {
                print_fields(&sum.fields)?;
            }
            if !g.quiet {
                eprintln!(
                    "{} pairs: {} scored now, {} already scored by paper v{}{}.",
                    sum.pairs,
                    sum.scored,
                    sum.cached,
                    sum.suite_version,
                    sum.score_ms_per_paper
                        .map(|ms| format!(" ({ms:.2} ms per paper)"))
                        .unwrap_or_default()
                );
                for f in &sum.failures {
                    eprintln!("corpus: {} ({}): {}", f.document, f.provider, f.error);
                }
            }
        }
    }
    Ok(if sum.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// Prints the pooled field scores: per provider version, dataset and field group, one row per
/// field (then micro and macro averages) with precision, recall and F1 under each matching, in
/// percent, and the support.
fn print_fields(reports: &[corpus::suites::paper::FieldReport]) -> anyhow::Result<()> {
    use corpus::metrics::fields::MATCHINGS;
    let pct = |v: &serde_json::Value| {
        v.as_f64().map(|x| format!("{:.2}", x * 100.0)).unwrap_or_else(|| "–".into())
    };
    let mut headers = vec!["Field", "Support"];
    let names: Vec<String> =
        MATCHINGS.iter().flat_map(|m| ["P", "R", "F1"].map(|k| format!("{m} {k}"))).collect();
    headers.extend(names.iter().map(String::as_str));
    for r in reports {
        let papers = r.report["papers"].as_u64().unwrap_or(0);
        for (group, title) in [("header", "header fields"), ("citations", "citation fields")] {
            let g = &r.report["groups"][group];
            let fields = g[MATCHINGS[0]]["fields"].as_array().cloned().unwrap_or_default();
            if fields.iter().all(|f| f["support"].as_u64() == Some(0)) {
                continue;
            }
            println!();
            println!(
                "{}@{} on {} ({papers} papers): {title}",
                r.provider, r.provider_version, r.dataset
            );
            let mut rows: Vec<Vec<String>> = Vec::new();
            for (i, f) in fields.iter().enumerate() {
                let mut row =
                    vec![f["field"].as_str().unwrap_or("").to_string(), f["support"].to_string()];
                let none = f["support"].as_u64() == Some(0);
                for m in MATCHINGS {
                    let x = &g[m]["fields"][i];
                    if none {
                        row.extend(["–", "–", "–"].map(String::from));
                    } else {
                        row.extend([pct(&x["precision"]), pct(&x["recall"]), pct(&x["f1"])]);
                    }
                }
                rows.push(row);
            }
            for avg in ["micro", "macro"] {
                let mut row = vec![format!("all ({avg})"), String::new()];
                for m in MATCHINGS {
                    let x = &g[m][avg];
                    row.extend([pct(&x["precision"]), pct(&x["recall"]), pct(&x["f1"])]);
                }
                rows.push(row);
            }
            print_table(&headers, &rows)?;
        }
    }
    Ok(())
}

/// `eval --suite omnidoc`: the whole-run figures as OmniDocBench reports them.
fn run_omnidoc(
    g: &GlobalArgs,
    a: &EvalArgs,
    store: &mut Store,
    run: corpus::store::RunId,
) -> anyhow::Result<ExitCode> {
    use corpus::suites::omnidoc::{eval, OmnidocOptions};
    let Some(provider) = a.provider.as_deref() else {
        usage_bail!("--suite omnidoc scores one provider: give --provider");
    };
    let opts = OmnidocOptions {
        provider,
        dataset: a.dataset.as_deref(),
        method: a.method,
        run: Some(run),
    };
    let bar = super::progress::Bar::new("eval", g.quiet);
    let sum = eval(store, &opts, &bar)?;
    store.finish_run(run, &serde_json::to_value(&sum)?, sum.failures.len() as u64)?;
    if store.shard().is_some() {
        let counts = serde_json::json!({
            "suite": sum.suite, "suite_version": sum.suite_version, "pages": sum.pages,
            "scored": sum.scored, "rows_written": sum.rows_written, "failed": sum.failures.len(),
        });
        return shard_summary(
            g,
            a,
            store,
            &counts,
            sum.failures.iter().map(|f| (&f.document, &f.error)),
        );
    }
    match a.output.format {
        Format::Json => print_json(&sum)?,
        Format::Table => {
            let rows: Vec<Vec<String>> =
                sum.figures.iter().map(|(m, v)| vec![m.clone(), fmt_value(*v)]).collect();
            print_table(&["metric", provider], &rows)?;
            if !g.quiet {
                eprintln!(
                    "{} of {} pages scored ({} match); overall needs CDM (a LaTeX renderer) and is not computed.",
                    sum.scored, sum.pages, sum.method
                );
                for f in &sum.failures {
                    eprintln!("corpus: {}: {}", f.document, f.error);
                }
            }
        }
    }
    Ok(if sum.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// `corpus eval --suite olmocr`: per candidate, the pass rate of each group, the overall score
/// with its interval, and the failing tests.
fn run_olmocr(
    g: &GlobalArgs,
    a: &EvalArgs,
    store: &mut Store,
    run: corpus::store::RunId,
) -> anyhow::Result<ExitCode> {
    use corpus::metrics::katex::KatexRenderer;
    use corpus::suites::olmocr::{eval, EvalOptions};
    let katex = a.math == "katex";
    let suite =
        if katex { corpus::suites::olmocr::SUITE } else { corpus::suites::olmocr::SUITE_EXACT };
    let opts = EvalOptions {
        provider: a.provider.as_deref(),
        dataset: a.dataset.as_deref(),
        run: Some(run),
        suite,
    };
    let bar = super::progress::Bar::new("eval", g.quiet);
    let sum = if katex {
        let dir = std::env::var_os("CORPUS_KATEX_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(KatexRenderer::default_dir);
        let renderer = KatexRenderer::start(&dir).map_err(|e| {
            anyhow::anyhow!("{e}; or score math by exact match only with --math exact")
        })?;
        let sum = eval(store, &opts, &renderer, &bar)?;
        if let Some(e) = renderer.failure() {
            anyhow::bail!("KaTeX stopped during the run: {e}");
        }
        sum
    } else {
        eval(store, &opts, &corpus::metrics::olmocr::ExactMathOnly, &bar)?
    };
    let counts = serde_json::json!({
        "suite": sum.suite, "suite_version": sum.suite_version, "pairs": sum.pairs,
        "scored": sum.scored, "cached": sum.cached, "failed": sum.failures.len(),
    });
    store.finish_run(run, &counts, sum.failures.len() as u64)?;
    if store.shard().is_some() {
        return shard_summary(
            g,
            a,
            store,
            &counts,
            sum.failures.iter().map(|f| (&f.document, &f.error)),
        );
    }
    if a.output.format == Format::Json {
        print_json(&sum)?;
    } else {
        let mut rows = Vec::new();
        let mut failing = Vec::new();
        for c in &sum.candidates {
            let who = format!("{}@{}", c.provider, c.provider_version);
            for gr in &c.groups {
                rows.push(vec![
                    who.clone(),
                    c.dataset.clone(),
                    gr.group.clone(),
                    gr.passed.to_string(),
                    gr.total.to_string(),
                    format!("{:.1}%", gr.rate * 100.0),
                    String::new(),
                ]);
            }
            let passed = c.tests.iter().filter(|t| t.passed).count();
            rows.push(vec![
                who.clone(),
                c.dataset.clone(),
                "overall".into(),
                passed.to_string(),
                c.tests.len().to_string(),
                format!("{:.1}%", c.overall * 100.0),
                format!("[{:.1}%, {:.1}%]", c.ci95.0 * 100.0, c.ci95.1 * 100.0),
            ]);
            for t in c.tests.iter().filter(|t| !t.passed) {
                let why: String = t.explanation.chars().take(100).collect();
                failing.push(vec![
                    who.clone(),
                    t.document.clone(),
                    t.id.clone(),
                    t.kind.clone(),
                    format!("{:.2}", t.value),
                    why,
                ]);
            }
        }
        print_table(&["Provider", "Dataset", "Group", "Passed", "Tests", "Rate", "95% CI"], &rows)?;
        if !failing.is_empty() {
            println!();
            print_table(
                &["Provider", "Document", "Failing test", "Type", "Value", "Why"],
                &failing,
            )?;
        }
        if !g.quiet {
            eprintln!(
                "{} documents: {} scored now, {} already scored by {} v{}. Math tests: {} \
                 (overall = mean of the group pass rates).",
                sum.pairs,
                sum.scored,
                sum.cached,
                sum.suite,
                sum.suite_version,
                if katex { "KaTeX MathML containment" } else { "exact matches only" }
            );
            for f in &sum.failures {
                eprintln!("corpus: {} ({}): {}", f.document, f.provider, f.error);
            }
            for c in sum.candidates.iter().filter(|c| !c.missing.is_empty()) {
                eprintln!(
                    "corpus: warning: {} document(s) of {} have tests but no output from {}@{} \
                     and are left out of its scores, e.g. {}",
                    c.missing.len(),
                    c.dataset,
                    c.provider,
                    c.provider_version,
                    c.missing[0]
                );
            }
        }
    }
    Ok(if sum.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// `eval --suite table`: per-document means, then table-level means overall and by complexity.
fn run_table(
    g: &GlobalArgs,
    a: &EvalArgs,
    store: &mut Store,
    run: corpus::store::RunId,
) -> anyhow::Result<ExitCode> {
    use corpus::suites::table::{eval, TableOptions, METRIC_IDS};
    let Some(provider) = a.provider.as_deref() else {
        usage_bail!("--suite table scores one provider: give --provider");
    };
    let opts = TableOptions { provider, dataset: a.dataset.as_deref(), run: Some(run) };
    let bar = super::progress::Bar::new("eval", g.quiet);
    let sum = eval(store, &opts, &bar)?;
    let counts = serde_json::json!({
        "suite": sum.suite, "suite_version": sum.suite_version, "documents": sum.documents,
        "scored": sum.scored, "rows_written": sum.rows_written, "tables": sum.tables,
        "by_complexity": sum.by_complexity, "failed": sum.failures.len(),
    });
    store.finish_run(run, &counts, sum.failures.len() as u64)?;
    if store.shard().is_some() {
        let counts = serde_json::json!({
            "suite": sum.suite, "suite_version": sum.suite_version, "documents": sum.documents,
            "scored": sum.scored, "rows_written": sum.rows_written, "failed": sum.failures.len(),
        });
        return shard_summary(
            g,
            a,
            store,
            &counts,
            sum.failures.iter().map(|f| (&f.document, &f.error)),
        );
    }
    match a.output.format {
        Format::Json => print_json(&sum)?,
        Format::Table => {
            let mut headers = vec!["ID", "gt", "pred", "matched"];
            headers.extend(METRIC_IDS);
            let vals = |v: &[(String, Option<f64>)]| -> Vec<String> {
                v.iter().map(|(_, x)| fmt_value(*x)).collect()
            };
            let mut rows: Vec<Vec<String>> = sum
                .rows
                .iter()
                .map(|r| {
                    let mut c = vec![
                        r.document.clone(),
                        r.gt_tables.to_string(),
                        r.pred_tables.to_string(),
                        r.matched.to_string(),
                    ];
                    c.extend(vals(&r.values));
                    c
                })
                .collect();
            if !rows.is_empty() {
                let mut avg =
                    vec!["AVG (documents)".into(), String::new(), String::new(), String::new()];
                avg.extend(vals(&sum.document_means));
                rows.push(avg);
                let group = |label: String, f: &corpus::suites::table::GroupFigures| {
                    let mut c =
                        vec![label, f.tables.to_string(), String::new(), f.matched.to_string()];
                    c.extend(vals(&f.values));
                    c
                };
                rows.push(group("ALL (tables)".into(), &sum.tables));
                for (class, f) in &sum.by_complexity {
                    rows.push(group(format!("complexity={class}"), f));
                }
            }
            print_table(&headers, &rows)?;
            if !g.quiet {
                eprintln!(
                    "{} of {} documents scored ({} rows written, table v{}); AVG = mean of document means, ALL and complexity rows = mean over GT tables.",
                    sum.scored, sum.documents, sum.rows_written, sum.suite_version
                );
                for f in &sum.failures {
                    eprintln!("corpus: {}: {}", f.document, f.error);
                }
            }
        }
    }
    Ok(if sum.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// A task's `eval`: its counts only. Whole-set figures (means, OmniDocBench's run figures,
/// olmOCR's group and overall scores) are over every document, so they come from `eval` or
/// `report` on the merged store.
fn shard_summary<'a>(
    g: &GlobalArgs,
    a: &EvalArgs,
    store: &Store,
    counts: &serde_json::Value,
    failures: impl Iterator<Item = (&'a String, &'a String)>,
) -> anyhow::Result<ExitCode> {
    let mut failed = 0;
    for (document, error) in failures {
        failed += 1;
        if !g.quiet {
            eprintln!("corpus: {document}: {error}");
        }
    }
    match a.output.format {
        Format::Json => print_json(counts)?,
        Format::Table => {
            let fields: Vec<(&String, String)> = counts
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k, v.to_string().trim_matches('"').to_string()))
                        .collect()
                })
                .unwrap_or_default();
            let headers: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
            print_table(&headers, &[fields.iter().map(|(_, v)| v.clone()).collect()])?;
        }
    }
    super::shard::note(g, store, "scores");
    if !g.quiet {
        eprintln!(
            "summaries over every document come after `corpus merge`: `corpus report --suite {} \
             --by provider` on the merged store{}",
            a.suite,
            if a.suite == corpus::suites::olmocr::SUITE {
                "; `corpus eval --suite olmocr` there rewrites the group and overall scores \
                 without scoring any document again"
            } else {
                ""
            }
        );
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}
