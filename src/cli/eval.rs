//! `corpus eval`.

use std::process::ExitCode;

use clap::Args;
use corpus::external::chromium::BrowserKatex;
use corpus::external::katex::KatexRenderer;
use corpus::store::Store;
use corpus::suites::driver::Summary;
use corpus::suites::paper::COLUMNS;
use corpus::suites::{
    detection, formula, olmocr, omnidoc, paper, parsebench, table, EvalFailure, Suite,
};

use super::output::{fmt_value, print_json, print_metric_table, print_table, Format, OutputArgs};
use super::{argv, GlobalArgs, EXIT_NO_TRUTH, EXIT_SOME_FAILED};

/// Arguments of `corpus eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The suite
    ///
    /// paper: PeerRead, GROBID TEI, S2ORC, JATS or Docling truths. omnidoc: OmniDocBench v1.5
    /// end-to-end (text, formula, table TEDS, reading order). olmocr: olmOCR-bench unit tests
    /// on every repeat of a page. table: LaTeX or ICDAR 2013 GT tables (TEDS, GriTS, value
    /// accuracy, detection). formula: pdf-parse-bench formulas (CDM, edit similarity, exact
    /// match, by inline/display). parsebench: ParseBench's rules, per dimension and rule type.
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
    /// olmocr: how math tests compare formulas. katex does as the official runner: KaTeX in
    /// headless Chromium (Debian's chromium, driven by scripts/browser/katex.mjs), MathML
    /// containment, then the positional comparison of the rendered glyphs; without a browser it
    /// falls back to mathml, saying so. mathml renders with KaTeX under node only (MathML
    /// containment; a test that needs the glyph layout fails and is listed). exact passes only
    /// verbatim formulas. Stored under suite olmocr, olmocr-mathml or olmocr-exact, never mixed
    #[arg(long, default_value = "katex", value_parser = ["katex", "mathml", "exact"])]
    math: String,
    /// formula: which official CDM scores formulas (omnidocbench = OmniDocBench v1.5's,
    /// xelatex; unimernet = UniMERNet's, pdflatex); unimernet scores are stored under suite
    /// formula-unimernet, so the two never mix. omnidoc always uses omnidocbench, as its
    /// `overall` does
    #[arg(long, default_value = "omnidocbench", value_parser = super::values::cdm_variant())]
    cdm: corpus::metrics::cdm::Variant,
    /// detection: the classes boxes are scored in (omnidoc = OmniDocBench's ten layout
    /// classes; docling = DocLayNet's eleven, stored under suite detection-docling). Every
    /// truth and provider label is mapped by the class maps of classes/; a label no map names
    /// is listed as unmapped, never scored as another class
    #[arg(long, default_value = "omnidoc", value_parser = corpus::suites::detection::Classes::parse)]
    classes: corpus::suites::detection::Classes,
    /// paper: also print GROBID-style field scores (header and citation fields, strict / soft
    /// / Levenshtein / Ratcliff-Obershelp matching), pooled per provider version and dataset,
    /// in percent as GROBID reports them (always in --format json)
    #[arg(long)]
    fields: bool,
    /// Which truth of each document to score: latest (the newest version, what nothing
    /// supersedes), previous (the one the newest superseded, where there is one), v<N> (the
    /// newest version numbered at most N: v1 = the truths first ingested), or a truth id
    /// (that one truth only). Every score keeps the truth it used (docs/truth-versions.md)
    #[arg(long, default_value = "latest", value_parser = corpus::store::TruthSelect::parse)]
    truth_version: corpus::store::TruthSelect,
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
    // Invariant: clap took only a registry name (`values::suite`).
    let suite = Suite::parse(&a.suite).expect("--suite is one of the registry's");
    // A usage error writes nothing: every check of the command line comes before the store is
    // opened and the run started.
    let one_provider = matches!(
        suite,
        Suite::Omnidoc | Suite::Formula | Suite::Table | Suite::Parsebench | Suite::Detection
    );
    if one_provider && a.provider.is_none() {
        usage_bail!("--suite {} scores one provider: give --provider", a.suite);
    }
    let mut store = super::shard::open(g, task.as_ref())?;
    store.set_truth_select(a.truth_version);
    let dataset = a.dataset.as_deref();
    let scope = TruthScope::of(&store, suite, dataset)?;
    // A shard task without truths has nothing to do, as any task may: the array goes on.
    if scope.with_truth == 0 && store.shard().is_none() {
        return scope.nothing_to_score(a, suite);
    }
    let run = store.start_run("eval", &argv())?;
    let store = &mut store;
    let bar = super::progress::Bar::new("eval", g.quiet);
    // `--provider truth`: every suite renders the truths it reads first (what `ocr --provider
    // truth` stores), so each truth is scored against itself in one command.
    if a.provider.as_deref() == Some(corpus::providers::truth::ID) {
        let keep = |f| suite.formats().contains(&f);
        corpus::providers::truth::materialize_where(store, dataset, Some(run), keep)?;
    }
    let code = match suite {
        Suite::Omnidoc => {
            let provider = a.provider.as_deref().expect("checked before the run");
            let opts =
                omnidoc::OmnidocOptions { provider, dataset, method: a.method, run: Some(run) };
            let sum = omnidoc::eval(store, &opts, &bar)?;
            finish(g, a, store, run, &sum)
        }
        Suite::Olmocr => {
            let sum = eval_olmocr(g, a, store, run, dataset, &bar)?;
            finish(g, a, store, run, &sum)
        }
        Suite::Formula => {
            let provider = a.provider.as_deref().expect("checked before the run");
            let opts =
                formula::FormulaOptions { provider, dataset, variant: a.cdm, run: Some(run) };
            let sum = formula::eval(store, &opts, &bar)?;
            finish(g, a, store, run, &sum)
        }
        Suite::Table => {
            let provider = a.provider.as_deref().expect("checked before the run");
            let opts = table::TableOptions { provider, dataset, run: Some(run) };
            let sum = table::eval(store, &opts, &bar)?;
            finish(g, a, store, run, &sum)
        }
        Suite::Parsebench => {
            let provider = a.provider.as_deref().expect("checked before the run");
            let opts = parsebench::ParsebenchOptions { provider, dataset, run: Some(run) };
            let sum = parsebench::eval(store, &opts, &bar)?;
            finish(g, a, store, run, &sum)
        }
        Suite::Detection => {
            let provider = a.provider.as_deref().expect("checked before the run");
            let opts = detection::DetectionOptions {
                provider,
                dataset,
                classes: a.classes,
                run: Some(run),
            };
            let sum = detection::eval(store, &opts, &bar)?;
            finish(g, a, store, run, &sum)
        }
        Suite::Paper => {
            let opts =
                paper::EvalOptions { provider: a.provider.as_deref(), dataset, run: Some(run) };
            let sum = paper::eval(store, &opts, &bar)?;
            finish(g, a, store, run, &sum)
        }
    }?;
    scope.say_without(g, suite);
    Ok(code)
}

/// The documents in an eval's scope and how many have a truth the suite reads.
struct TruthScope {
    /// Documents in scope (of `--dataset`, or all; a shard task's only).
    documents: usize,
    /// Of them, those with a truth of one of the suite's formats (of the selected version).
    with_truth: usize,
    /// What the scope is, for messages (`dataset contracts`, `the store`).
    what: String,
    /// The truth formats the suite reads.
    formats: String,
}

impl TruthScope {
    fn of(store: &Store, suite: Suite, dataset: Option<&str>) -> anyhow::Result<TruthScope> {
        let docs = store.documents(dataset)?;
        let formats = suite.formats();
        let truths: std::collections::HashSet<i64> = store
            .truths(dataset)?
            .into_iter()
            .filter(|t| formats.iter().any(|f| f.as_str() == t.format))
            .map(|t| t.document)
            .collect();
        Ok(TruthScope {
            documents: docs.len(),
            with_truth: docs.iter().filter(|d| truths.contains(&d.id)).count(),
            what: match dataset {
                Some(d) => format!("dataset {d}"),
                None => "the store".into(),
            },
            formats: formats.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", "),
        })
    }

    /// Says that nothing can be scored, and what to do instead; exit code 6. Said even with
    /// --quiet: it is the command's result.
    fn nothing_to_score(&self, a: &EvalArgs, suite: Suite) -> anyhow::Result<ExitCode> {
        let ds = a.dataset.as_deref().map(|d| format!(" --dataset {d}")).unwrap_or_default();
        if self.documents == 0 {
            eprintln!(
                "corpus: {} has no documents: nothing to score (`corpus ingest` adds some)",
                self.what
            );
        } else {
            let version = match a.truth_version {
                corpus::store::TruthSelect::Latest => String::new(),
                v => format!(" (truth version {})", v.label()),
            };
            eprintln!(
                "corpus: none of the {} document(s) in {} has a truth the {} suite reads ({}){version}: \
                 nothing to score.\n  compare the parsers without a truth:  corpus agree{ds}\n  \
                 draft a truth to correct:             corpus truth draft{ds} --provider P\n  \
                 or ingest one:                        corpus ingest ... --truth FORMAT{ds}",
                self.documents,
                self.what,
                suite.name(),
                self.formats
            );
        }
        Ok(ExitCode::from(EXIT_NO_TRUTH))
    }

    /// Says how many documents in scope the eval left unscored for want of a truth (stderr,
    /// unless quiet).
    fn say_without(&self, g: &GlobalArgs, suite: Suite) {
        let without = self.documents - self.with_truth;
        if without > 0 && !g.quiet {
            eprintln!(
                "corpus: {without} of the {} document(s) in {} have no truth the {} suite reads \
                 and were not scored (`corpus agree` compares parsers on them)",
                self.documents,
                self.what,
                suite.name()
            );
        }
    }
}

/// `eval --suite olmocr`: math rendered in Chromium when `--math katex` and a browser is there,
/// else KaTeX under node (`--math mathml`, or the fallback, with a warning), else exact matches.
fn eval_olmocr(
    g: &GlobalArgs,
    a: &EvalArgs,
    store: &mut Store,
    run: corpus::store::RunId,
    dataset: Option<&str>,
    bar: &dyn corpus::progress::Progress,
) -> anyhow::Result<olmocr::EvalSummary> {
    let opts = |suite| olmocr::EvalOptions {
        provider: a.provider.as_deref(),
        dataset,
        run: Some(run),
        suite,
    };
    let warn = |what: &str| {
        if !g.quiet {
            eprintln!("corpus: warning: {what}");
        }
    };
    if a.math == "katex" {
        let script = std::env::var_os("CORPUS_KATEX_BROWSER_SCRIPT")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(BrowserKatex::default_script);
        match BrowserKatex::start(&script, None) {
            Ok(renderer) => {
                let sum = olmocr::eval(store, &opts(olmocr::SUITE), &renderer, bar)?;
                if let Some(e) = renderer.failure() {
                    anyhow::bail!("Chromium stopped during the run: {e}");
                }
                return Ok(sum);
            }
            Err(e) => warn(&format!(
                "{e}; math is decided without the browser (MathML only, stored as suite {}): \
                 tests that need the glyph layout fail and are listed",
                olmocr::SUITE_MATHML
            )),
        }
    }
    if a.math != "exact" {
        let dir = KatexRenderer::default_dir();
        match KatexRenderer::start(&dir) {
            Ok(renderer) => {
                let sum = olmocr::eval(store, &opts(olmocr::SUITE_MATHML), &renderer, bar)?;
                if let Some(e) = renderer.failure() {
                    anyhow::bail!("KaTeX stopped during the run: {e}");
                }
                // Whatever the output format: these numbers are not the runner's.
                for c in sum.candidates.iter().filter(|c| !c.without_browser.is_empty()) {
                    warn(&format!(
                        "{} math test(s) of {}@{} were decided without the browser (they need \
                         its glyph layout; counted as failed, the runner may pass them): {}",
                        c.without_browser.len(),
                        c.provider,
                        c.provider_version,
                        c.without_browser.join(", ")
                    ));
                }
                return Ok(sum);
            }
            Err(e) => warn(&format!(
                "{e}; math tests pass on exact matches only (stored as suite {})",
                olmocr::SUITE_EXACT
            )),
        }
    }
    let exact = corpus::metrics::olmocr::ExactMathOnly;
    Ok(olmocr::eval(store, &opts(olmocr::SUITE_EXACT), &exact, bar)?)
}

/// How a suite's summary prints as a table; `--format json` prints the summary itself.
pub trait Render: Summary {
    /// Prints the table (stdout) and the counts (stderr, unless quiet).
    fn render(&self, g: &GlobalArgs, a: &EvalArgs) -> anyhow::Result<()>;
}

/// The one way every suite's run ends: the run's record, then the shard task's counts, the
/// JSON summary or the table, and exit code 3 when any item could not be scored.
fn finish<S: Render>(
    g: &GlobalArgs,
    a: &EvalArgs,
    store: &mut Store,
    run: corpus::store::RunId,
    sum: &S,
) -> anyhow::Result<ExitCode> {
    let failures = sum.failures();
    store.finish_run(run, &sum.run_counts(), failures.len() as u64)?;
    if store.shard().is_some() {
        return shard_summary(g, a, store, &sum.shard_counts(), failures);
    }
    match a.output.format {
        Format::Json => print_json(sum)?,
        Format::Table => {
            sum.render(g, a)?;
            print_failures(g, failures);
        }
    }
    Ok(if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// Names every item that could not be scored (stderr, unless quiet), the same for every suite.
pub(super) fn print_failures(g: &GlobalArgs, failures: &[EvalFailure]) {
    if !g.quiet {
        for f in failures {
            eprintln!("corpus: {} ({}): {}", f.document, f.provider, f.error);
        }
    }
}

impl Render for paper::EvalSummary {
    fn render(&self, g: &GlobalArgs, a: &EvalArgs) -> anyhow::Result<()> {
        let sum = self;
        let several = sum.rows.iter().any(|r| r.provider != sum.rows[0].provider);
        // Header-only truths have no headline metric: show what they do score.
        let mut columns = COLUMNS.to_vec();
        if sum.rows.iter().any(|r| COLUMNS.iter().all(|(_, id)| r.get(id).is_none())) {
            columns.extend([("Title", "title_chr"), ("Abstract", "abstract_r")]);
        }
        // The metric ids as headers: the names `report`, `show --metric` and the store use.
        let mut headers = vec!["document"];
        if several {
            headers.push("provider");
        }
        headers.extend(columns.iter().map(|(_, id)| *id));
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
                sum.counts.pairs,
                sum.counts.scored,
                sum.counts.cached,
                sum.counts.suite_version,
                sum.score_ms_per_paper
                    .map(|ms| format!(" ({ms:.2} ms per paper)"))
                    .unwrap_or_default()
            );
        }
        Ok(())
    }
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
impl Render for omnidoc::OmnidocSummary {
    fn render(&self, g: &GlobalArgs, _: &EvalArgs) -> anyhow::Result<()> {
        let sum = self;
        let rows: Vec<Vec<String>> =
            sum.figures.iter().map(|(m, v)| vec![m.clone(), fmt_value(*v)]).collect();
        print_table(&["metric", &sum.provider], &rows)?;
        if !g.quiet {
            eprintln!(
                "{} of {} pages scored ({} match); formula CDM is OmniDocBench's variant; overall = ((1 - text_edit)*100 + formula_cdm_page*100 + table_teds_page*100)/3 as OmniDocBench's table script computes it.",
                sum.scored, sum.pages, sum.method
            );
            if !sum.cdm_errors.is_empty() {
                eprintln!(
                    "corpus: warning: CDM could not score {} display formula(s), left out of the CDM figures, e.g. {}",
                    sum.cdm_errors.len(),
                    sum.cdm_errors[0]
                );
            }
        }
        Ok(())
    }
}

/// `corpus eval --suite olmocr`: per candidate, the pass rate of each group, the overall score
/// with its interval, and the failing tests.
impl Render for olmocr::EvalSummary {
    fn render(&self, g: &GlobalArgs, _: &EvalArgs) -> anyhow::Result<()> {
        let sum = self;
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
                sum.counts.pairs,
                sum.counts.scored,
                sum.counts.cached,
                sum.counts.suite,
                sum.counts.suite_version,
                olmocr::MATH_RULES
                    .iter()
                    .find(|(name, _)| *name == sum.counts.suite)
                    .map_or("(not recorded)", |(_, rule)| rule)
            );
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
        Ok(())
    }
}

/// `eval --suite table`: per-document means, then table-level means overall and by complexity.
impl Render for table::TableSummary {
    fn render(&self, g: &GlobalArgs, _: &EvalArgs) -> anyhow::Result<()> {
        let sum = self;
        let mut headers = vec!["ID", "gt", "pred", "matched"];
        headers.extend(table::METRIC_IDS);
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
            let group = |label: String, f: &table::GroupFigures| {
                let mut c = vec![label, f.tables.to_string(), String::new(), f.matched.to_string()];
                c.extend(vals(&f.values));
                c
            };
            rows.push(group("ALL (tables)".into(), &sum.tables));
            for (class, f) in &sum.by_complexity {
                rows.push(group(format!("complexity={class}"), f));
            }
        }
        let keep = corpus::report::html::board::headline_metrics(table::SUITE);
        print_metric_table(&headers, &rows, 4, keep, g.quiet)?;
        if !g.quiet {
            eprintln!(
                "{} of {} documents scored ({} rows written, table v{}); AVG = mean of document means, ALL and complexity rows = mean over GT tables.",
                sum.scored, sum.documents, sum.rows_written, sum.suite_version
            );
        }
        Ok(())
    }
}

/// `eval --suite formula`: per-document means, then formula-level means overall and by type.
impl Render for formula::FormulaSummary {
    fn render(&self, g: &GlobalArgs, _: &EvalArgs) -> anyhow::Result<()> {
        let sum = self;
        let mut headers = vec!["ID", "gt", "n_found", "cdm_err"];
        headers.extend(formula::METRIC_IDS);
        let vals = |v: &[(String, Option<f64>)]| -> Vec<String> {
            v.iter().map(|(_, x)| fmt_value(*x)).collect()
        };
        let mut rows: Vec<Vec<String>> = sum
            .rows
            .iter()
            .map(|r| {
                let mut c = vec![
                    r.document.clone(),
                    r.gt_formulas.to_string(),
                    r.found.to_string(),
                    r.cdm_errors.to_string(),
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
        }
        let keep = corpus::report::html::board::headline_metrics(formula::SUITE);
        print_metric_table(&headers, &rows, 4, keep, g.quiet)?;
        println!();
        let mut by = vec!["formulas", "gt", "found", "cdm_err"];
        by.extend(formula::FORMULA_METRICS);
        let group = |label: &str, f: &formula::GroupFigures| {
            let mut c = vec![
                label.to_string(),
                f.formulas.to_string(),
                f.found.to_string(),
                f.cdm_errors.to_string(),
            ];
            c.extend(vals(&f.values));
            c
        };
        let mut groups = vec![group("all", &sum.formulas)];
        for (kind, f) in &sum.by_type {
            groups.push(group(kind, f));
        }
        print_table(&by, &groups)?;
        if !g.quiet {
            eprintln!(
                "{} of {} documents scored now, {} from stored rows ({} rows written, {} v{}, CDM {}); AVG = mean of document means; n_found = GT formulas paired, found = their share; the second table is over GT formulas (cdm_exprate = ExpRate@CDM; missed formulas score 0; CDM errors are left out of the CDM means).",
                sum.scored, sum.documents, sum.cached, sum.rows_written, sum.suite, sum.suite_version, sum.cdm
            );
            if let Some(e) = &sum.cdm_error_example {
                eprintln!(
                    "corpus: warning: CDM could not score {} pair(s), left out of the CDM means (their errors are in the traces), e.g. {e}",
                    sum.formulas.cdm_errors
                );
            }
        }
        Ok(())
    }
}

/// A task's `eval`: its counts only. Whole-set figures (means, OmniDocBench's run figures,
/// olmOCR's group and overall scores) are over every document, so they come from `eval` or
/// `report` on the merged store.
fn shard_summary(
    g: &GlobalArgs,
    a: &EvalArgs,
    store: &Store,
    counts: &serde_json::Value,
    failures: &[EvalFailure],
) -> anyhow::Result<ExitCode> {
    print_failures(g, failures);
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
    Ok(if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// `eval --suite parsebench`: the five dimensions as ParseBench's leaderboard shows them, then
/// every rule type's pass rate per category, then the rule types not run.
impl Render for parsebench::ParsebenchSummary {
    fn render(&self, g: &GlobalArgs, _: &EvalArgs) -> anyhow::Result<()> {
        let sum = self;
        let rows: Vec<Vec<String>> = sum
            .dimensions
            .iter()
            .map(|d| {
                let value = match (d.value, d.cases) {
                    (Some(v), _) => format!("{:.1}%", v * 100.0),
                    (None, 0) => "–".to_string(),
                    (None, _) => "not computed".to_string(),
                };
                vec![
                    d.category.clone(),
                    d.metric.to_string(),
                    value,
                    d.cases.to_string(),
                    d.rules_not_run.to_string(),
                ]
            })
            .collect();
        print_table(&["Dimension", "Metric", &sum.provider, "Cases", "Rules not run"], &rows)?;
        let mut types = Vec::new();
        for (cat, m) in parsebench::type_rates(&sum.aggregate) {
            for (t, (v, n)) in m {
                types.push(vec![cat.clone(), t, format!("{:.1}%", v * 100.0), n.to_string()]);
            }
        }
        if !types.is_empty() {
            println!();
            print_table(&["Category", "Rule type", "Pass rate", "Cases"], &types)?;
        }
        if !g.quiet {
            let mut not_run: std::collections::BTreeMap<&str, usize> = Default::default();
            for m in sum.aggregate.unimplemented.values() {
                for (k, n) in m {
                    *not_run.entry(k.as_str()).or_default() += n;
                }
            }
            eprintln!(
                "{} documents: {} scored now (parsebench v{}); rates are means over each category's test cases, as ParseBench's avg_ figures.",
                sum.documents, sum.scored, sum.suite_version
            );
            if !not_run.is_empty() {
                let list: Vec<String> = not_run.iter().map(|(k, n)| format!("{k} ({n})")).collect();
                eprintln!(
                    "corpus: warning: rules of types this build does not run were left out of every rate: {}",
                    list.join(", ")
                );
            }
            if sum.failed_outputs > 0 {
                eprintln!(
                    "corpus: {} document(s) had a failed output, scored as empty Markdown (every rule fails), as ParseBench counts a failed inference",
                    sum.failed_outputs
                );
            }
        }
        Ok(())
    }
}
