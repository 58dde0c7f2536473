//! `corpus report`.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::report::{self, render, By, Rendered, ReportFormat, Selector, Since};
use corpus::store::{ScoreFilter, Store};

use super::output::report_formats;
use super::GlobalArgs;

/// Arguments of `corpus report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Only this suite's scores
    #[arg(long, value_parser = super::values::stored_suite())]
    suite: Option<String>,
    /// Only this provider's scores
    #[arg(long)]
    provider: Option<String>,
    /// Only documents named in this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Only this metric (required with --history); `all`: every metric, where a table too wide
    /// for 120 columns would show only the suites' headline metrics
    #[arg(long)]
    metric: Option<String>,
    /// Only scores computed since then: a run id (42), a date (2026-11-01), today, yesterday,
    /// last-week, last-month, or an age (3d, 12h, 2w)
    #[arg(long)]
    since: Option<String>,
    /// Group rows by provider, document, dataset or attribute:<name>; by provider with --suite,
    /// the suite's headline metrics come first and the rows are sorted by the first, best first
    #[arg(long, default_value = "document", value_parser = By::parse)]
    by: By,
    /// Compare two provider versions side by side: PROVIDER[@VERSION] PROVIDER[@VERSION];
    /// per-metric means, B − A with its paired interval, p and Holm's p, and per-document
    /// deltas, biggest losses first (json: one object with both; csv, ndjson and parquet: the
    /// per-document rows, --per-metric for the summary)
    #[arg(long, num_args = 2, value_names = ["A", "B"], value_parser = Selector::parse)]
    compare: Vec<Selector>,
    /// One row per run and provider version: how the metric moved over time
    #[arg(long, requires = "metric", conflicts_with = "compare")]
    history: bool,
    /// Rank the provider versions by --metric (default: the suite's first metric) over the
    /// documents all of them scored: rank, mean rank and the share of bootstrap resamples in
    /// which each takes each place
    #[arg(long, conflicts_with_all = ["compare", "history"])]
    rank: bool,
    /// With --compare, at most this many per-document rows in table and markdown output (html:
    /// this many regressions and as many wins)
    #[arg(long, default_value_t = 30)]
    limit: usize,
    /// paper: also the GROBID-style field scores (`hdr_*`, `cit_*`: 216 metrics per paper,
    /// left out otherwise, as `eval` prints them only with --fields); --metric names one alone
    #[arg(long)]
    fields: bool,
    /// Output format; html is a static site in the folder -o names (an index with
    /// leaderboard, breakdowns, history and --compare, and one page per document with its
    /// pages, boxes, differences and traces; needs --suite)
    #[arg(long, default_value = "table", value_parser = report_formats(&ReportFormat::REPORT))]
    format: ReportFormat,
    /// Write to this file instead of stdout (required for parquet); for html, the site's folder
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// html: draw at most this many pages of each document
    #[arg(long, default_value_t = 20)]
    max_pages: u32,
    /// Intervals of the means: bootstrap (a percentile bootstrap over documents, stratified by
    /// dataset; the default with --by provider, dataset or attribute) or none (the default
    /// with --by document). Text output shows `mean [lo, hi]`; csv, json, ndjson and parquet
    /// add `<metric>_lo` and `<metric>_hi` columns. With --compare: the paired intervals and
    /// tests, or none to leave them out
    #[arg(long, value_parser = ["bootstrap", "none"])]
    ci: Option<String>,
    /// Bootstrap resamples for intervals, paired tests and ranks
    #[arg(long, default_value_t = report::Ci::DEFAULT.resamples as u32, value_parser = clap::value_parser!(u32).range(100..=1_000_000))]
    resamples: u32,
    /// Seed of the bootstrap's random draws (the same seed gives the same intervals)
    #[arg(long, default_value_t = report::Ci::DEFAULT.seed)]
    seed: u64,
    /// Which truths the figures are scored against: latest (each document's newest truth
    /// version), previous (the version its newest superseded, where there is one), v<N> (the
    /// newest version numbered at most N), a truth id, or all (the newest score whatever truth
    /// it used, as before truth versions). A note says which versions the figures use
    /// [default: latest; all with --history]
    #[arg(long, value_parser = super::report_truths::TruthVersionArg::parse)]
    truth_version: Option<super::report_truths::TruthVersionArg>,
    /// Compare two truth versions, OLD..NEW (previous..latest, v1..v2, or truth ids): per
    /// metric and provider version, the mean against the old truths and against the new ones
    /// (over the documents scored against both), the change, and each one's rank under both
    #[arg(long, value_name = "OLD..NEW", value_parser = super::report_truths::TruthPair::parse,
          conflicts_with_all = ["compare", "history", "rank"])]
    truth_compare: Option<super::report_truths::TruthPair>,
    /// With --compare: print only the per-metric table (difference, interval, p, Holm's
    /// adjusted p) in any format, instead of the per-document rows. --format json gives both
    /// in one object ({"a", "b", "note", "metrics": [...], "documents": [...]}); csv, ndjson
    /// and parquet give the per-document rows, and this flag their per-metric summary
    #[arg(long, requires = "compare")]
    per_metric: bool,
    /// How much each provider loses on the degraded twins of `corpus degrade`
    /// (DATASET~PROFILE): per provider version and metric, the mean on the source documents
    /// (clean), on their twins (degraded), degraded − clean with its paired interval, p and
    /// Holm's p, each twin paired with its source by name; with --format html also
    /// robustness.html, each twin's pages clean and degraded side by side with every
    /// provider's text
    #[arg(long, value_name = "DATASET~PROFILE",
          conflicts_with_all = ["compare", "history", "rank", "truth_compare", "dataset"])]
    robustness: Option<String>,
}

impl ReportArgs {
    /// The one metric asked for (`--metric all` asks for none in particular).
    fn metric(&self) -> Option<&str> {
        self.metric.as_deref().filter(|m| *m != "all")
    }

    /// `--truth-version`, or its default: the newest truths, or every truth for --history
    /// (a metric's history runs across corrections).
    fn truth_version(&self) -> super::report_truths::TruthVersionArg {
        use super::report_truths::TruthVersionArg;
        self.truth_version.unwrap_or(if self.history {
            TruthVersionArg::All
        } else {
            TruthVersionArg::One(corpus::store::TruthSelect::Latest)
        })
    }

    /// The interval settings, or `None` where --ci (or its default for --by) says none.
    fn ci(&self) -> Option<report::Ci> {
        let on = match self.ci.as_deref() {
            Some("none") => false,
            Some(_) => true,
            None => !self.compare.is_empty() || !matches!(self.by, By::Document),
        };
        on.then_some(report::Ci {
            resamples: self.resamples as usize,
            level: report::Ci::DEFAULT.level,
            seed: self.seed,
        })
    }
}

/// Parses `--since` against the current time.
fn parse_since(a: &ReportArgs) -> anyhow::Result<Option<Since>> {
    parse_since_arg(a.since.as_deref())
}

/// Parses a `--since` value against the current time (`report`, `gate`).
pub(super) fn parse_since_arg(since: Option<&str>) -> anyhow::Result<Option<Since>> {
    since.map(|s| Since::parse(s, &corpus::store::now())).transpose().map_err(anyhow::Error::msg)
}

/// The run and the time that `--since` starts from, as a [`ScoreFilter`] takes them.
pub(super) fn since_bounds(since: &Option<Since>) -> (Option<i64>, Option<&str>) {
    match since {
        Some(Since::Run(r)) => (Some(*r), None),
        Some(Since::Time(t)) => (None, Some(t.as_str())),
        None => (None, None),
    }
}

/// A usage error unless some score of `sel` is among `cols`: `what` says which command asked;
/// the error names the filter that matched nothing ([`super::nomatch::explain`]).
pub(super) fn require_scores(
    store: &Store,
    cols: &corpus::store::ScoreColumns,
    filters: &super::nomatch::Filters<'_>,
    sel: &Selector,
    what: &str,
) -> anyhow::Result<()> {
    if !cols.keys.iter().any(|k| sel.matches(&k.provider, &k.provider_version, &k.model_digest)) {
        let why = super::nomatch::explain(store, filters, Some(sel), what)?;
        usage_bail!("{why}");
    }
    Ok(())
}

/// The rows the options select.
fn score_filter<'a>(a: &'a ReportArgs, since: &'a Option<Since>) -> ScoreFilter<'a> {
    ScoreFilter {
        latest: !a.history,
        suite: a.suite.as_deref(),
        skip_suite: None,
        dataset: a.dataset.as_deref(),
        provider: a.provider.as_deref(),
        metric: a.metric(),
        since_run: since_bounds(since).0,
        since_time: since_bounds(since).1,
        attribute: match &a.by {
            By::Attribute(name) => Some(name.as_str()),
            _ => None,
        },
        truths: None,
    }
}

/// `--format html`: the static site: the scores' index and document pages where scores match,
/// and the agreement pages (`agree.html`, `agree/`) where two providers have outputs; a store
/// without scores (no truth) gets the agreement pages alone, `agree.html` as `index.html`.
fn html(g: &GlobalArgs, a: &ReportArgs) -> anyhow::Result<ExitCode> {
    let Some(out) = &a.output else {
        usage_bail!("--format html writes a site: give --output FOLDER (-o site/)");
    };
    if a.history {
        usage_bail!("--format html draws the history on its index: leave out --history");
    }
    if out.is_file() {
        usage_bail!("{} is a file; --format html writes a folder", out.display());
    }
    let store =
        Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let since = parse_since(a)?;
    let keep = super::report_truths::truth_ids(&store, a.truth_version())?;
    let mut filter = score_filter(a, &since);
    filter.attribute = None;
    filter.truths = keep.as_ref();
    let (cols, metrics) = match a.suite.as_deref() {
        Some(_) => report::report_columns(&store, &filter, a.fields)?,
        None => Default::default(),
    };
    // The agreement needs no truth: every provider with outputs (or the one --provider names
    // and the others), on the documents of --dataset.
    let agree_bar = super::progress::Bar::new("agree", g.quiet);
    let agreement = match report::agree::agree(
        &store,
        &report::agree::AgreeOptions { dataset: a.dataset.as_deref(), providers: &[], threads: 0 },
        &agree_bar,
    ) {
        Ok(r) => Ok(r),
        Err(corpus::Error::Usage(why)) => Err(why),
        Err(e) => return Err(e.into()),
    };
    if cols.is_empty() {
        if let Err(why) = &agreement {
            // No site to write: a failure, said even with --quiet (a CI job must not publish
            // an empty folder as the report).
            match a.suite.as_deref() {
                Some(_) => {
                    let filters =
                        super::nomatch::Filters { filter: &filter, since: a.since.as_deref() };
                    eprintln!(
                        "corpus: {}",
                        super::nomatch::explain(&store, &filters, None, "report")?
                    )
                }
                None => {
                    eprintln!("corpus: no --suite given, and {}", why.trim_start_matches("agree: "))
                }
            }
            return Ok(ExitCode::FAILURE);
        }
        if let Some(suite) = a.suite.as_deref() {
            eprintln!(
                "corpus: no scores of suite {suite} match (no truth, or nothing evaluated): the site shows how the providers agree"
            );
        }
    }
    let t = std::time::Instant::now();
    let mut incomplete = 0;
    let mut summary = String::new();
    let mut imgs = report::html::images::PageImages::default_dir()
        .map(|d| report::html::images::PageImages::new(d, 800));
    if let (Some(suite), false) = (a.suite.as_deref(), cols.is_empty()) {
        let opts = report::html::SiteOptions {
            suite: suite.to_string(),
            out: out.clone(),
            compare: match a.compare.as_slice() {
                [x, y] => Some((x.clone(), y.clone())),
                _ => None,
            },
            limit: a.limit,
            image_cache: report::html::images::PageImages::default_dir(),
            image_width: 800,
            max_pages: a.max_pages,
            store_label: g.db.display().to_string(),
            agreement: agreement.is_ok().then(|| "agree.html".to_string()),
        };
        let bar = super::progress::Bar::new("html", g.quiet);
        let s = report::html::write_site(&store, &filter, &cols, &metrics, &opts, &bar)
            .with_context(|| format!("writing the site into {}", out.display()))?;
        incomplete += s.incomplete;
        summary = format!(
            "{} document pages, {} page figures; page images: {} rendered, {} reused, {} failed",
            s.documents, s.figures, s.images.rendered, s.images.reused, s.images.failed
        );
    }
    if let (Some(twin), false) = (&a.robustness, cols.is_empty()) {
        let (line, bad) = html_robustness(g, a, &store, &cols, &metrics, twin, imgs.as_mut())?;
        incomplete += bad;
        if !summary.is_empty() {
            summary.push_str("; ");
        }
        summary.push_str(&line);
    }
    if let Ok(r) = &agreement {
        let (file, back) =
            if cols.is_empty() { ("index.html", None) } else { ("agree.html", Some("index.html")) };
        let bar = super::progress::Bar::new("html", g.quiet);
        let s = report::html::agree::write_agreement(
            &store,
            r,
            out,
            file,
            back,
            imgs.as_mut(),
            a.max_pages,
            &g.db.display().to_string(),
            &bar,
        )
        .with_context(|| format!("writing the agreement pages into {}", out.display()))?;
        incomplete += s.incomplete;
        if !summary.is_empty() {
            summary.push_str("; ");
        }
        let _ = write!(
            summary,
            "agreement: {} of {} providers, {} document pages, {} page figures",
            file,
            r.providers.len(),
            s.documents,
            s.figures
        );
        if let Some(i) = &imgs {
            let _ = write!(
                summary,
                " (page images: {} rendered, {} reused, {} failed)",
                i.counts.rendered, i.counts.reused, i.counts.failed
            );
        }
    }
    if !g.quiet {
        eprintln!(
            "corpus: wrote {} ({summary}) in {:.2} s",
            out.join("index.html").display(),
            t.elapsed().as_secs_f64()
        );
    }
    Ok(if incomplete > 0 { ExitCode::from(3) } else { ExitCode::SUCCESS })
}

/// `--robustness TWIN --format html`: robustness.html and a page per twin (clean and
/// degraded images side by side, each provider's text on both); the summary's line and the
/// twins not drawn whole.
#[allow(clippy::too_many_arguments)]
fn html_robustness(
    g: &GlobalArgs,
    a: &ReportArgs,
    store: &Store,
    cols: &corpus::store::ScoreColumns,
    metrics: &[String],
    twin: &str,
    imgs: Option<&mut report::html::images::PageImages>,
) -> anyhow::Result<(String, u64)> {
    let source = check_twin(store, twin)?;
    let ci = a.ci().unwrap_or(report::Ci {
        resamples: a.resamples as usize,
        level: report::Ci::DEFAULT.level,
        seed: a.seed,
    });
    let table = report::robustness(&report::long_frame(cols)?, twin, &ci)?;
    let out = a.output.as_deref().expect("html has --output");
    let bar = super::progress::Bar::new("robustness", g.quiet);
    let r = report::html::robustness::write_robustness(
        store,
        cols,
        &table,
        (source, twin),
        metrics,
        out,
        imgs,
        a.max_pages,
        &bar,
    )
    .with_context(|| format!("writing the robustness pages into {}", out.display()))?;
    let line = format!(
        "robustness: robustness.html, {} twins, {} pages drawn clean and degraded{}",
        r.documents,
        r.pages,
        if r.unpaired > 0 {
            format!(", {} twins without a source", r.unpaired)
        } else {
            String::new()
        }
    );
    Ok((line, u64::from(!r.complete)))
}

/// Where the report goes: -o's file, or stdout.
fn open_output(a: &ReportArgs) -> anyhow::Result<Box<dyn Write>> {
    Ok(match &a.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    })
}

/// `--compare A B`'s output: the per-metric summary and the per-document rows (json: one
/// object holding both).
fn write_compare(
    g: &GlobalArgs,
    a: &ReportArgs,
    cols: &corpus::store::ScoreColumns,
    [sel_a, sel_b]: [&Selector; 2],
    ci: Option<&report::Ci>,
    format: ReportFormat,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let long = report::long_frame(cols)?;
    let (per_metric, rows) = report::compare(&long, cols, sel_a, sel_b, ci)?;
    if let (Some(ci), false) = (ci, g.quiet) {
        eprintln!("corpus: {}", report::compare_note(ci));
    }
    if format == ReportFormat::Json && !a.per_metric {
        // One object: the per-metric summary beside the per-document rows.
        let obj = serde_json::json!({
            "a": sel_a.label(),
            "b": sel_b.label(),
            "note": ci.map(report::compare_note),
            "metrics": report::render::json_rows(&per_metric)?,
            "documents": report::render::json_rows(&rows)?,
        });
        let mut s = serde_json::to_string_pretty(&obj)?;
        s.push('\n');
        out.write_all(s.as_bytes())?;
    } else if a.per_metric {
        report::render::write(&render(&per_metric, format)?, out)?;
    } else if matches!(format, ReportFormat::Table | ReportFormat::Markdown) {
        report::render::write(&render(&per_metric, format)?, out)?;
        writeln!(out)?;
        let shown = rows.head(Some(a.limit));
        report::render::write(&render(&shown, format)?, out)?;
        if rows.height() > a.limit && !g.quiet {
            eprintln!(
                "corpus: showing the first {} of {} (document, metric) rows; --limit or --format csv for all",
                a.limit,
                rows.height()
            );
        }
    } else {
        report::render::write(&render(&rows, format)?, out)?;
    }
    Ok(())
}

/// `--robustness TWIN`'s datasets, both in the store; returns the source's name.
fn check_twin<'t>(store: &Store, twin: &'t str) -> anyhow::Result<&'t str> {
    let Some((source, _)) = report::split_twin(twin) else {
        usage_bail!("--robustness {twin}: not a twin dataset (DATASET~PROFILE, as `corpus degrade` names them)");
    };
    let known: Vec<String> = store.dataset_counts()?.into_iter().map(|c| c.0).collect();
    for ds in [twin, source] {
        if !known.iter().any(|k| k == ds) {
            usage_bail!("--robustness {twin}: the store has no dataset {ds} (`corpus degrade --dataset {source} --profile ...` makes the twins)");
        }
    }
    Ok(source)
}

/// `--robustness TWIN`: the clean-vs-degraded table of docs/degrade.md.
fn write_robustness(
    g: &GlobalArgs,
    a: &ReportArgs,
    store: &Store,
    cols: &corpus::store::ScoreColumns,
    twin: &str,
    format: ReportFormat,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<()> {
    let source = check_twin(store, twin)?;
    let scored = |ds: &str| cols.keys.iter().any(|k| k.dataset == ds);
    for ds in [twin, source] {
        if !scored(ds) {
            usage_bail!("--robustness {twin}: no scores on {ds}{}: run `corpus ocr` and `corpus eval` on it first", a.suite.as_deref().map(|s| format!(" in suite {s}")).unwrap_or_default());
        }
    }
    let ci = a.ci().unwrap_or(report::Ci {
        resamples: a.resamples as usize,
        level: report::Ci::DEFAULT.level,
        seed: a.seed,
    });
    let t = report::robustness(&report::long_frame(cols)?, twin, &ci)?;
    if !g.quiet {
        eprintln!("corpus: {}", report::robustness_note(twin, &ci));
    }
    report::render::write(&render(&t, format)?, out)?;
    Ok(())
}

/// Runs `corpus report`.
pub fn run(g: &GlobalArgs, a: &ReportArgs) -> anyhow::Result<ExitCode> {
    let format = a.format;
    if format == ReportFormat::Html {
        return html(g, a);
    }
    if format == ReportFormat::Parquet && a.output.is_none() {
        usage_bail!("--format parquet writes a binary file: give --output FILE");
    }
    let store =
        Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let since = parse_since(a)?;
    let keep = super::report_truths::truth_ids(&store, a.truth_version())?;
    let mut filter = score_filter(a, &since);
    filter.truths = keep.as_ref();
    if let Some(pair) = a.truth_compare {
        let mut out = open_output(a)?;
        let code =
            super::report_truths::compare(g, &store, &filter, pair, a.fields, format, &mut out)?;
        out.flush()?;
        return Ok(code);
    }
    if let Some(twin) = &a.robustness {
        check_twin(&store, twin)?;
    }
    let (cols, metrics) = report::report_columns(&store, &filter, a.fields)?;
    let filters = super::nomatch::Filters { filter: &filter, since: a.since.as_deref() };
    if cols.is_empty() {
        let (suite, dataset) = (a.suite.as_deref(), a.dataset.as_deref());
        let why = super::nomatch::explain(&store, &filters, None, "report")?;
        let compare = !a.compare.is_empty();
        return super::report_truths::no_scores(g, &store, suite, dataset, &cols, &why, compare);
    }
    let mut out = open_output(a)?;
    let ci = a.ci();
    if let Some(twin) = &a.robustness {
        write_robustness(g, a, &store, &cols, twin, format, &mut out)?;
    } else if let [sel_a, sel_b] = a.compare.as_slice() {
        for sel in [sel_a, sel_b] {
            require_scores(&store, &cols, &filters, sel, "--compare")?;
        }
        write_compare(g, a, &cols, [sel_a, sel_b], ci.as_ref(), format, &mut out)?;
    } else if a.rank {
        let Some(metric) = a.metric().map(str::to_string).or_else(|| metrics.first().cloned())
        else {
            usage_bail!("--rank: no metric to rank by");
        };
        let ci = ci.unwrap_or(report::Ci {
            resamples: a.resamples as usize,
            level: report::Ci::DEFAULT.level,
            seed: a.seed,
        });
        let (t, note) = report::rank_table(&report::wide_frame(&cols, &metrics)?, &metric, &ci)?;
        if !g.quiet {
            eprintln!(
                "corpus: ranked by {metric} over the {} documents every provider version scored ({} left out); place_k: share of {} resamples (seed {}) in which it came k-th",
                note.documents, note.dropped, ci.resamples, ci.seed
            );
            for t in &note.ties {
                eprintln!("corpus: tied on the full data (sharing their places): {}", t.join(", "));
            }
        }
        report::render::write(&render(&t, format)?, &mut out)?;
    } else if a.history {
        let h = report::history(&report::long_frame(&cols)?, &metrics)?;
        report::render::write(&render(&h, format)?, &mut out)?;
    } else {
        let r = summary(g, a, &store, &filter, &cols, &metrics, format)?;
        if let (Rendered::Bytes(_), None) = (&r, &a.output) {
            usage_bail!("binary output needs --output FILE");
        }
        report::render::write(&r, &mut out)?;
    }
    out.flush()?;
    super::report_truths::note_versions(g, &store, &cols)?;
    Ok(ExitCode::SUCCESS)
}

/// The summary (`--by`): each group's means with their intervals, the usage columns with
/// `--by provider`. A default text table wider than a terminal's 120 columns shows the
/// headline metrics of the suites instead, and says how to see all (`--metric all`,
/// `--format csv`).
fn summary(
    g: &GlobalArgs,
    a: &ReportArgs,
    store: &Store,
    filter: &ScoreFilter<'_>,
    cols: &corpus::store::ScoreColumns,
    metrics: &[String],
    format: ReportFormat,
) -> anyhow::Result<Rendered> {
    let ci = a.ci();
    let textual = matches!(format, ReportFormat::Table | ReportFormat::Markdown);
    let usage = match a.by {
        By::Provider => store.output_usage()?,
        _ => Vec::new(),
    };
    // The detection suite's COCO figures are pooled over each group's pages, with or
    // without --suite (a mean of per-document mAP is no COCO figure).
    let pooled = report::detection_page_sets(store, filter)?;
    let spec = report::SummarySpec {
        by: &a.by,
        suite: a.suite.as_deref(),
        dataset: a.dataset.as_deref(),
        ci: ci.as_ref(),
        usage: &usage,
        pooled: &pooled,
        textual,
    };
    let table = |metrics: &[String]| -> anyhow::Result<Rendered> {
        let t = report::summary_table(store, cols, metrics, &spec)?;
        Ok(render(&t, format)?)
    };
    let r = table(metrics)?;
    let fits = |r: &Rendered| match r {
        Rendered::Text(t) => t.lines().all(|l| l.chars().count() <= report::render::TABLE_WIDTH),
        Rendered::Bytes(_) => true,
    };
    let heads = headline_set(a.suite.as_deref(), metrics);
    let mut intervals = ci.is_some();
    let r = if format == ReportFormat::Table
        && a.metric.is_none()
        && !fits(&r)
        && !heads.is_empty()
        && heads.len() < metrics.len()
    {
        if !g.quiet {
            eprintln!(
                "corpus: showing the headline metrics ({} of {}: {}) to fit 120 columns; --metric all for every metric, --format csv or json for every column",
                heads.len(),
                metrics.len(),
                heads.join(", ")
            );
        }
        let r = table(&heads)?;
        if fits(&r) || ci.is_none() {
            r
        } else {
            // Still too wide with each mean's interval beside it: the means alone.
            if !g.quiet {
                eprintln!(
                    "corpus: intervals left out to fit 120 columns; --metric NAME shows one metric with its interval, --format csv or json every interval"
                );
            }
            intervals = false;
            let t = report::summary_table(
                store,
                cols,
                &heads,
                &report::SummarySpec { ci: None, ..spec },
            )?;
            render(&t, format)?
        }
    } else {
        r
    };
    if !g.quiet {
        note_docling_left_out(store, filter)?;
        if let (Some(ci), true) = (&ci, intervals) {
            eprintln!("corpus: {}", ci.describe());
        }
        let estimated = report::estimated_costs(cols, &usage);
        if !estimated.is_empty() {
            eprintln!(
                "corpus: ¢/page of {} is an estimate: the GPU time its requests took (their wall time ÷ the concurrency the server ran) × the --gpu-price given",
                estimated.join(", ")
            );
        }
    }
    Ok(r)
}

/// Says so where a report without --suite leaves out scores of the detection suite's second
/// taxonomy (`detection-docling`: its metric ids are `detection`'s, never mixed with them).
fn note_docling_left_out(store: &Store, filter: &ScoreFilter<'_>) -> anyhow::Result<()> {
    use corpus::suites::detection::SUITE_DOCLING;
    if filter.suite.is_some() {
        return Ok(());
    }
    let docling = ScoreFilter { suite: Some(SUITE_DOCLING), metric: Some("map"), ..filter.clone() };
    if !store.score_columns(&docling)?.is_empty() {
        eprintln!(
            "corpus: {SUITE_DOCLING}'s scores (DocLayNet's classes) are left out: their metric ids are detection's (OmniDocBench's classes), and the two taxonomies are never pooled; --suite {SUITE_DOCLING} shows them"
        );
    }
    Ok(())
}

/// The headline metrics among `metrics`: the suite's ([`report::html::board::headline_columns`]),
/// or without --suite every suite's, in the registry's order.
fn headline_set(suite: Option<&str>, metrics: &[String]) -> Vec<String> {
    use corpus::report::html::board::{headline_columns, headline_metrics};
    if let Some(suite) = suite {
        return headline_columns(suite, metrics);
    }
    let mut out: Vec<String> = Vec::new();
    for s in corpus::suites::Suite::ALL {
        for name in s.stored_names() {
            for h in headline_metrics(name) {
                if metrics.iter().any(|m| m == h) && !out.iter().any(|o| o == h) {
                    out.push(h.to_string());
                }
            }
        }
    }
    out
}
