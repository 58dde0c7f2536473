//! `corpus judge`: an LLM judge scores (ground truth, prediction) pairs of a suite on a 0–10
//! scale and the scores are stored beside the suite's own metrics (docs/judge.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::store::Store;
use corpus::suites::judge::{self, FormulaJudgeOptions, Judge, Kind, TableJudgeOptions};

use super::llm::{api_key, LlmArgs};
use super::output::{fmt_value, print_json, print_table, Format, OutputArgs};
use super::{argv, GlobalArgs, UsageError, EXIT_SOME_FAILED};

/// The environment variable the judge's API key is read from.
pub const KEY_VAR: &str = "CORPUS_JUDGE_API_KEY";

/// Arguments of `corpus judge`.
#[derive(Args, Debug)]
pub struct JudgeArgs {
    /// What is judged: table (the table suite's matched (GT, predicted) table pairs), or
    /// formula (the formula suite's (GT, predicted) formula pairs)
    #[arg(long, value_parser = ["table", "formula"])]
    suite: String,
    /// The provider whose outputs are judged
    #[arg(long)]
    provider: Option<String>,
    /// Only documents of this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Judge pairs from a file instead of the store: a JSON array or JSON lines of objects
    /// with `gt` and `pred` (or `gt_formula`/`extracted_formula`,
    /// `gt_table`/`extracted_table`) and an optional `id` (or `gt_id`); prints one JSON line
    /// per pair. Replies are still cached in the store
    #[arg(long)]
    pairs: Option<PathBuf>,
    /// Count the calls a run would make (and estimate their tokens) without making any
    #[arg(long)]
    dry_run: bool,
    /// Send the prompt without `response_format` (for servers without structured output);
    /// the reply's first JSON object is read instead (part of the cache key)
    #[arg(long)]
    no_structured: bool,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    output: OutputArgs,
}

fn read_pairs(path: &std::path::Path) -> anyhow::Result<Vec<(String, String, String)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let items: Vec<serde_json::Value> = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Array(a)) => a,
        _ => text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l)
                    .map_err(|e| anyhow::anyhow!("{}: line {}: {e}", path.display(), i + 1))
            })
            .collect::<anyhow::Result<_>>()?,
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let field =
                |names: &[&str]| names.iter().find_map(|n| v[*n].as_str().map(str::to_string));
            let gt = field(&["gt", "gt_formula", "gt_table"]);
            let pred = field(&["pred", "extracted_formula", "extracted_table", "prediction"]);
            let id = field(&["id", "gt_id"]).unwrap_or_else(|| (i + 1).to_string());
            match (gt, pred) {
                (Some(g), Some(p)) => Ok((id, g, p)),
                _ => Err(anyhow::anyhow!(
                    "{}: item {}: needs `gt` and `pred` strings (or gt_formula/extracted_formula)",
                    path.display(),
                    i + 1
                )),
            }
        })
        .collect()
}

/// Runs `corpus judge`.
pub fn run(g: &GlobalArgs, a: &JudgeArgs) -> anyhow::Result<ExitCode> {
    a.llm.check()?;
    // A dry run sends nothing, so it needs no server.
    let (model, base_url) = match (a.dry_run, a.llm.model.as_deref(), a.llm.base_url.as_deref()) {
        (true, Some(m), None) => (m, "http://127.0.0.1:9/v1"),
        _ => a.llm.target()?,
    };
    let judge = Judge {
        model: model.to_string(),
        sampling: a.llm.sampling(&Default::default(), 2000),
        structured: !a.no_structured,
        concurrency: a.llm.concurrency,
    };
    let kind = if a.suite == "table" { Kind::Table } else { Kind::Formula };
    let client = a.llm.client(base_url, api_key(&[KEY_VAR]));
    let price = a.llm.price(None);
    let budget = a.llm.budget(price);
    let mut store = Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let bar = super::progress::Bar::new("judge", g.quiet);

    if let Some(path) = &a.pairs {
        let triples = read_pairs(path)?;
        let (out, asked) = judge::judge_pairs(
            &mut store,
            (!a.dry_run).then_some(&client),
            &budget,
            &judge,
            kind,
            &triples,
            &bar,
        )?;
        if a.dry_run {
            let todo = out.iter().filter(|p| p.score.is_none()).count();
            eprintln!(
                "dry run: {} pair(s), {} judged before, {todo} call(s) would be made; none was",
                out.len(),
                asked.cached
            );
            return Ok(ExitCode::SUCCESS);
        }
        for p in &out {
            println!("{}", serde_json::to_string(p)?);
        }
        report_end(
            g,
            asked.asked as u64,
            asked.cached as u64,
            &budget,
            price.is_some(),
            asked.stopped.as_deref(),
        );
        let failed = out.iter().any(|p| p.score.is_none());
        return Ok(if failed { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS });
    }
    let Some(provider) = a.provider.as_deref() else {
        return Err(UsageError(format!(
            "judge --suite {} needs --provider (or --pairs FILE)",
            a.suite
        ))
        .into());
    };
    let run = if a.dry_run { None } else { Some(store.start_run("judge", &argv())?) };
    let client = (!a.dry_run).then_some(&client);
    let dataset = a.dataset.as_deref();
    let sum = if kind == Kind::Formula {
        let opts = FormulaJudgeOptions { provider, dataset, run };
        judge::judge_formulas(&mut store, client, &budget, &judge, &opts, &bar)?
    } else {
        let opts = TableJudgeOptions { provider, dataset, run };
        judge::judge_tables(&mut store, client, &budget, &judge, &opts, &bar)?
    };
    if let Some(run) = run {
        store.finish_run(run, &serde_json::to_value(&sum)?, sum.failures.len() as u64)?;
    }
    match a.output.format {
        Format::Json => print_json(&sum)?,
        Format::Table => {
            print_table(
                &["metric", "documents", "pairs", "missed", "cached", "asked", "rows", "mean"],
                &[vec![
                    sum.metric.clone(),
                    sum.documents.to_string(),
                    sum.pairs.to_string(),
                    sum.missed.to_string(),
                    sum.cached.to_string(),
                    sum.asked.to_string(),
                    sum.rows_written.to_string(),
                    fmt_value(sum.mean),
                ]],
            )?;
        }
    }
    if a.dry_run {
        let (p, c) = sum.estimated_tokens;
        eprintln!(
            "dry run: {} call(s) would be made ({} pair(s) judged before, {} GT {}(s) without a match score 0 without a call); about {p} prompt + {c} completion tokens (prompt chars / 4, 150 per reply); none was made",
            sum.to_ask, sum.cached, sum.missed, a.suite
        );
        if let Some(price) = price {
            eprintln!(
                "estimated cost: {:.4}",
                (p as f64 * price.prompt + c as f64 * price.completion) / 1e6
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !g.quiet {
        for f in &sum.failures {
            eprintln!("corpus: {}: {}: {}", f.document, f.provider, f.error);
        }
    }
    report_end(g, sum.asked, sum.cached, &budget, price.is_some(), sum.stopped.as_deref());
    let bad = !sum.failures.is_empty() || sum.stopped.is_some();
    Ok(if bad { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

fn report_end(
    g: &GlobalArgs,
    asked: u64,
    cached: u64,
    budget: &corpus::llm::Budget,
    priced: bool,
    stopped: Option<&str>,
) {
    if g.quiet {
        return;
    }
    let (p, c) = budget.tokens();
    // Per pair, as the OCR report gives tokens and cents per page.
    let per_pair = if asked > 0 {
        let n = asked as f64;
        let cents = if priced {
            format!(", {:.4} ¢/pair", budget.cost() * 100.0 / n)
        } else {
            String::new()
        };
        format!(" ({:.0} tokens/pair{cents})", (p + c) as f64 / n)
    } else {
        String::new()
    };
    eprintln!(
        "{asked} pair(s) sent, {cached} from the cache; {} HTTP request(s), {p} prompt + {c} completion tokens{}{per_pair}",
        budget.sent(),
        if priced { format!(", cost {:.4}", budget.cost()) } else { String::new() }
    );
    if let Some(s) = stopped {
        eprintln!("stopped early: {s}; what arrived is stored, run again to continue");
    }
}
