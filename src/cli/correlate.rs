//! `corpus correlate`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::cdm::CdmEngine;
use corpus::metrics::cdm::Variant;
use corpus::report::correlate::{
    correlate, correlate_study, read_ratings, read_study, Correlation, Study,
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
    /// A study file instead of the store: a JSON array of pairs with human ratings and
    /// recorded metric and judge scores (pdf-parse-bench's formulas-dev.json); every recorded
    /// score, and corpus's own edit similarity, is correlated with the mean human score
    #[arg(long)]
    study: Option<PathBuf>,
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

fn study_rows(a: &CorrelateArgs, path: &std::path::Path) -> anyhow::Result<Vec<Correlation>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut study = read_study(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
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
    Ok(correlate_study(&study))
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
        study_rows(a, path)?
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
