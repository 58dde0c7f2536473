//! `corpus audit`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use corpus::store::Store;
use corpus::suites::audit::{audit, AuditOptions, AuditReport};
use corpus::suites::Suite;

use super::output::{print_json, print_table};
use super::GlobalArgs;

/// How the findings are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AuditFormat {
    /// Aligned columns for people
    Table,
    /// One JSON document: every finding with its texts, providers and box
    Json,
    /// A page in -o DIR: each finding with the crop of its page image (where the truth has
    /// boxes), the truth and the consensus
    Html,
}

/// Arguments of `corpus audit`.
#[derive(Args, Debug)]
pub struct AuditArgs {
    /// The suite whose truths are audited (omnidoc, table, olmocr; the others say they are
    /// not covered)
    #[arg(long, value_parser = super::values::suite())]
    suite: String,
    /// Only truths of this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// The providers compared (repeat; default: every provider with outputs, except truth
    /// and empty); at least two
    #[arg(long)]
    provider: Vec<String>,
    /// Show the N strongest findings (0: all)
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Output format
    #[arg(long, value_enum, default_value_t = AuditFormat::Table)]
    format: AuditFormat,
    /// With --format html: the folder the page is written to (created)
    #[arg(short, long, required_if_eq("format", "html"))]
    output: Option<PathBuf>,
}

fn clip(s: &str, n: usize) -> String {
    let s = s.replace('\n', " ");
    if s.chars().count() <= n {
        return s;
    }
    let mut out: String = s.chars().take(n - 1).collect();
    out.push('…');
    out
}

fn print_findings(r: &AuditReport) -> anyhow::Result<()> {
    let rows: Vec<Vec<String>> = r
        .findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut element = f.element.clone();
            if let Some(at) = &f.at {
                element.push_str(&format!(" {at}"));
            }
            vec![
                (i + 1).to_string(),
                format!("{:.3}", f.score),
                f.evidence.as_str().to_string(),
                clip(&f.document, 40),
                element,
                clip(&f.truth, 50),
                clip(&f.consensus, 50),
                f.providers.join(","),
            ]
        })
        .collect();
    print_table(
        &["rank", "score", "evidence", "document", "element", "truth", "consensus", "providers"],
        &rows,
    )?;
    Ok(())
}

/// Runs `corpus audit`.
pub fn run(g: &GlobalArgs, a: &AuditArgs) -> anyhow::Result<ExitCode> {
    let suite = Suite::parse(&a.suite)
        .ok_or_else(|| super::UsageError(format!("unknown suite {:?}", a.suite)))?;
    let store =
        Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let opts = AuditOptions { suite, dataset: a.dataset.as_deref(), providers: a.provider.clone() };
    let mut r = match audit(&store, &opts) {
        Ok(r) => r,
        Err(corpus::error::Error::Usage(msg)) => return Err(super::UsageError(msg).into()),
        Err(e) => return Err(e.into()),
    };
    for n in &r.notes {
        if !g.quiet {
            eprintln!("warning: {n}");
        }
    }
    let total = r.findings.len();
    if a.top > 0 {
        r.findings.truncate(a.top);
    }
    match a.format {
        AuditFormat::Json => print_json(&r)?,
        AuditFormat::Table => {
            if r.elements == 0 {
                println!(
                    "nothing to audit: no {} truth element{} read by two or more of {}",
                    r.suite,
                    if a.dataset.is_some() { " of that dataset" } else { "" },
                    r.providers.join(", ")
                );
                return Ok(ExitCode::SUCCESS);
            }
            println!(
                "{} truth elements read by ≥ 2 of {} providers ({}); {} contradicted by ≥ 2 \
                 together{}",
                r.elements,
                r.providers.len(),
                r.providers.join(", "),
                total,
                if total > r.findings.len() {
                    format!(", the {} strongest shown", r.findings.len())
                } else {
                    String::new()
                }
            );
            if !r.findings.is_empty() {
                print_findings(&r)?;
            }
        }
        AuditFormat::Html => {
            let dir = a.output.as_deref().context("--format html needs -o DIR")?;
            let page = corpus::report::html::audit::write(&store, &r, dir)?;
            println!("{} findings written to {}", r.findings.len(), page.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
