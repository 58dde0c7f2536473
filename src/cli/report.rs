//! `corpus report`.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::report::{self, render, By, Rendered, ReportFormat, Selector, Since};
use corpus::store::{ScoreFilter, Store};

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
    /// Only this metric (required with --history)
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
    /// per-metric means and per-document deltas (B − A), biggest losses first
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
    /// Output format: table, markdown, csv, json, ndjson, parquet, or html (a static site in
    /// the folder -o names: an index with leaderboard, breakdowns, history and --compare,
    /// and one page per document with its pages, boxes, differences and traces; needs --suite)
    #[arg(long, default_value = "table", value_parser = OutFormat::parse)]
    format: OutFormat,
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
    /// With --compare: print only the per-metric table (difference, interval, p, Holm's
    /// adjusted p) in any format, instead of the per-document rows
    #[arg(long, requires = "compare")]
    per_metric: bool,
}

impl ReportArgs {
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

/// A report format: one of the frame renderers', or the HTML site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutFormat {
    Frame(ReportFormat),
    Html,
}

impl OutFormat {
    fn parse(s: &str) -> Result<OutFormat, String> {
        if s == "html" {
            return Ok(OutFormat::Html);
        }
        ReportFormat::parse(s).map(OutFormat::Frame).map_err(|e| format!("{e}, html"))
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

/// A usage error unless some score of `sel` is among `cols`: `what` says which command asked.
pub(super) fn require_scores(
    cols: &corpus::store::ScoreColumns,
    sel: &Selector,
    what: &str,
) -> anyhow::Result<()> {
    if !cols.keys.iter().any(|k| sel.matches(&k.provider, &k.provider_version, &k.model_digest)) {
        usage_bail!(
            "{what}: no scores of {} match; `corpus report --by provider` lists the provider versions",
            sel.label()
        );
    }
    Ok(())
}

/// The rows the options select.
fn score_filter<'a>(a: &'a ReportArgs, since: &'a Option<Since>) -> ScoreFilter<'a> {
    ScoreFilter {
        latest: !a.history,
        suite: a.suite.as_deref(),
        dataset: a.dataset.as_deref(),
        provider: a.provider.as_deref(),
        metric: a.metric.as_deref(),
        since_run: since_bounds(since).0,
        since_time: since_bounds(since).1,
        attribute: match &a.by {
            By::Attribute(name) => Some(name.as_str()),
            _ => None,
        },
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
    let mut filter = score_filter(a, &since);
    filter.attribute = None;
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
                Some(_) => eprintln!(
                    "corpus: no scores match; run `corpus eval` first, or widen the filters"
                ),
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

/// Runs `corpus report`.
pub fn run(g: &GlobalArgs, a: &ReportArgs) -> anyhow::Result<ExitCode> {
    let format = match a.format {
        OutFormat::Frame(f) => f,
        OutFormat::Html => return html(g, a),
    };
    if format == ReportFormat::Parquet && a.output.is_none() {
        usage_bail!("--format parquet writes a binary file: give --output FILE");
    }
    let store =
        Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let since = parse_since(a)?;
    let filter = score_filter(a, &since);
    let (cols, metrics) = report::report_columns(&store, &filter, a.fields)?;
    if cols.is_empty() {
        if !g.quiet {
            eprintln!("corpus: no scores match; run `corpus eval` first, or widen the filters");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let textual = matches!(format, ReportFormat::Table | ReportFormat::Markdown);
    let ci = a.ci();
    if let [sel_a, sel_b] = a.compare.as_slice() {
        for sel in [sel_a, sel_b] {
            require_scores(&cols, sel, "--compare")?;
        }
        let long = report::long_frame(&cols)?;
        let (per_metric, rows) = report::compare(&long, &cols, sel_a, sel_b, ci.as_ref())?;
        if let (Some(ci), false) = (&ci, g.quiet) {
            eprintln!(
                "corpus: {}; paired over the documents both scored (n), one-sided documents left out (dropped); p: paired sign-flip test, Holm-adjusted across the metrics shown",
                ci.describe()
            );
        }
        if a.per_metric {
            report::render::write(&render(&per_metric, format)?, &mut out)?;
        } else if textual {
            report::render::write(&render(&per_metric, format)?, &mut out)?;
            writeln!(out)?;
            let shown = rows.head(Some(a.limit));
            report::render::write(&render(&shown, format)?, &mut out)?;
            if rows.height() > a.limit && !g.quiet {
                eprintln!(
                    "corpus: showing the first {} of {} (document, metric) rows; --limit or --format csv for all",
                    a.limit,
                    rows.height()
                );
            }
        } else {
            report::render::write(&render(&rows, format)?, &mut out)?;
        }
    } else if a.rank {
        let Some(metric) = a.metric.clone().or_else(|| metrics.first().cloned()) else {
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
        // --by provider leads with the suite's headline metrics and sorts by the first, best
        // first, as the HTML leaderboard does.
        let headlines = match (&a.by, a.suite.as_deref()) {
            (By::Provider, Some(suite)) => report::html::board::headline_columns(suite, &metrics),
            _ => Vec::new(),
        };
        let metrics: Vec<String> = headlines
            .iter()
            .cloned()
            .chain(metrics.iter().filter(|m| !headlines.contains(m)).cloned())
            .collect();
        let wide = report::wide_frame(&cols, &metrics)?;
        let stored = match (&ci, a.suite.as_deref()) {
            (Some(_), Some(suite)) => store.stored_intervals(suite, a.dataset.as_deref())?,
            _ => Vec::new(),
        };
        let headline = a.suite.as_deref().and_then(report::Headline::of_suite);
        let mut t = report::summary_ci(&wide, &metrics, &a.by, ci.as_ref(), &stored, headline)?;
        if let Some(first) = headlines.first() {
            let descending = !corpus::metrics::lower_is_better(first);
            t = t.sort(
                [first.as_str()],
                polars::prelude::SortMultipleOptions::default()
                    .with_order_descending(descending)
                    .with_nulls_last(true)
                    .with_maintain_order(true),
            )?;
        }
        // Beside the scores: what each provider version took per page.
        if a.by == By::Provider {
            t = report::with_usage(&t, &cols, &store.output_usage()?)?;
        }
        let t = match &ci {
            Some(ci) => {
                if !g.quiet {
                    eprintln!("corpus: {}", ci.describe());
                }
                if textual {
                    report::fold_intervals(&t, &metrics)?
                } else {
                    t
                }
            }
            None => t,
        };
        let t = match &a.by {
            By::Attribute(name) => {
                let mut t = t;
                t.rename("attribute", name.as_str().into())?;
                t
            }
            _ => t,
        };
        let r = render(&t, format)?;
        if let (Rendered::Bytes(_), None) = (&r, &a.output) {
            usage_bail!("binary output needs --output FILE");
        }
        report::render::write(&r, &mut out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
