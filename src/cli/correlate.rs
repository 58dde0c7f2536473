//! `corpus correlate`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::external::cdm::CdmEngine;
use corpus::metrics::cdm::Variant;
use corpus::report::correlate::{
    agreement, correlate, correlate_study, read_ratings, read_study, Agreement, Correlation, Study,
};
use corpus::store::Store;

use super::output::{fmt_value, print_json, print_table, Format, OutputArgs};
use super::GlobalArgs;

/// Arguments of `corpus correlate`.
#[derive(Args, Debug)]
pub struct CorrelateArgs {
    /// CSV of human ratings with a header naming `document` and `rating` columns (and
    /// optionally `provider`)
    #[arg(long, required_unless_present = "study", conflicts_with = "study")]
    ratings: Option<PathBuf>,
    /// A study file instead of the store: pdf-parse-bench's formula study (formulas-dev.json,
    /// a JSON array of pairs) or table study (tables-dev.json, ground-truth tables with their
    /// extractions), with human ratings and recorded metric and judge scores; every recorded
    /// score, and corpus's own (edit similarity; for tables the table suite's TEDS, TEDS-S,
    /// GriTS, SCORE and value accuracy of each pair), is correlated with the mean human score.
    /// For tables, each recorded metric is also compared with corpus's of the same definition
    /// (the share of pairs within 1e-6), printed to standard error and in JSON
    #[arg(long)]
    study: Option<PathBuf>,
    /// With a table study: print, for each recorded metric, how often corpus's value of the
    /// same definition equals it (|diff| <= 1e-6) instead of the correlations
    #[arg(long, requires = "study")]
    agreement: bool,
    /// With --study: the judges' prompt variant whose recorded scores are read (a score
    /// without a variant is always read)
    #[arg(long, requires = "study", default_value = "tuned")]
    prompt_variant: String,
    /// With --study: another column, NAME=FILE, FILE being JSON lines with `id` and `value`
    /// (what `corpus judge --pairs` prints); may be repeated
    #[arg(long, requires = "study")]
    column: Vec<String>,
    /// With --study: also compute CDM on each pair with this variant (omnidocbench or
    /// unimernet; the formula-metric study's recorded `cdm_score` is unimernet's), rendering
    /// with TeX Live, as the column `cdm:<variant>`; a pair that cannot be rendered is left
    /// out of that column and named on standard error
    #[arg(long, requires = "study", value_parser = super::values::cdm_variant())]
    cdm: Option<Variant>,
    /// The suite whose stored metrics are correlated
    #[arg(long, default_value = "table", value_parser = super::values::stored_suite())]
    suite: String,
    /// Only this provider's scores
    #[arg(long)]
    provider: Option<String>,
    #[command(flatten)]
    output: OutputArgs,
}

fn study_rows(
    a: &CorrelateArgs,
    path: &std::path::Path,
) -> anyhow::Result<(Vec<Correlation>, Vec<Agreement>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut study = read_study(&text, &a.prompt_variant)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    for spec in &a.column {
        let Some((name, file)) = spec.split_once('=') else {
            return Err(super::UsageError(format!("--column {spec:?}: expected NAME=FILE")).into());
        };
        let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
        let mut values = Vec::new();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| anyhow::anyhow!("{file}: line {}: {e}", i + 1))?;
            let id = v["id"]
                .as_str()
                .map(str::to_string)
                .or_else(|| v["id"].as_i64().map(|n| n.to_string()));
            if let (Some(id), Some(x)) = (id, v["value"].as_f64()) {
                values.push((id, x));
            }
        }
        let missing = study.add_column(name, &values);
        if missing > 0 {
            eprintln!("corpus: {file}: {missing} id(s) are not in {}", path.display());
        }
    }
    if let Some(variant) = a.cdm {
        add_cdm_column(&mut study, variant, path);
    }
    Ok((correlate_study(&study), agreement(&study)))
}

/// Scores every pair of the study with CDM and adds the column; failures are named, not 0.
fn add_cdm_column(study: &mut Study, variant: Variant, path: &std::path::Path) {
    let (ids, pairs): (Vec<String>, Vec<(String, String)>) = study
        .ids
        .iter()
        .zip(&study.pairs)
        .filter_map(|(id, p)| p.clone().map(|p| (id.clone(), p)))
        .unzip();
    let scores = CdmEngine::new(variant, None).score_pairs(&pairs);
    let mut values = Vec::new();
    for (id, score) in ids.into_iter().zip(scores) {
        match score {
            Ok(s) => values.push((id, s.f1)),
            Err(e) => eprintln!("corpus: {}: pair {id}: CDM: {e}", path.display()),
        }
    }
    study.add_column(&format!("cdm:{}", variant.name()), &values);
}

/// Runs `corpus correlate`: Pearson, Spearman and Kendall τ-b per stored metric.
pub fn run(g: &GlobalArgs, a: &CorrelateArgs) -> anyhow::Result<ExitCode> {
    let rows = if let Some(path) = &a.study {
        let (rows, agree) = study_rows(a, path)?;
        if a.agreement {
            if agree.is_empty() {
                usage_bail!("--agreement: {} is not a table study (no recorded table metrics beside corpus's)", path.display());
            }
            return print_agreement(&agree, a);
        }
        if !g.quiet {
            for r in &agree {
                eprintln!(
                    "corpus: {} equals {} on {} of {} pairs (|diff| <= 1e-6; largest diff {:.4})",
                    r.corpus, r.recorded, r.equal, r.n, r.max_diff
                );
            }
        }
        rows
    } else {
        let path = a.ratings.as_ref().expect("clap requires --ratings without --study");
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let ratings =
            read_ratings(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let store =
            Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
        let values = store.latest_values(&a.suite, a.provider.as_deref())?;
        correlate(&values, &ratings)
    };
    match a.output.format {
        Format::Json => print_json(&rows)?,
        Format::Table => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.metric.clone(),
                        r.n.to_string(),
                        fmt_value(r.pearson),
                        fmt_value(r.spearman),
                        fmt_value(r.kendall),
                    ]
                })
                .collect();
            print_table(&["metric", "n", "pearson", "spearman", "kendall_tau_b"], &cells)?;
            if !g.quiet && a.study.is_none() && rows.iter().all(|r| r.n == 0) {
                eprintln!("No rated document has a stored {} score.", a.suite);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The agreement table of a table study.
fn print_agreement(rows: &[Agreement], a: &CorrelateArgs) -> anyhow::Result<ExitCode> {
    match a.output.format {
        Format::Json => print_json(&rows)?,
        Format::Table => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.recorded.clone(),
                        r.corpus.clone(),
                        r.n.to_string(),
                        r.equal.to_string(),
                        format!("{:.1}%", 100.0 * r.equal as f64 / r.n.max(1) as f64),
                        format!("{:.4}", r.max_diff),
                        format!("{:+.4}", r.mean_diff),
                    ]
                })
                .collect();
            print_table(
                &["recorded", "corpus", "n", "equal", "share", "max_diff", "mean_diff"],
                &cells,
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
