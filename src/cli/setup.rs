//! `corpus setup` and `corpus doctor` (docs/guide/install.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use corpus::install::doctor::{checks, satisfied, Need};
use corpus::install::{setup, Options, Outcome};

use super::output::{print_json, Format, OutputArgs};
use super::GlobalArgs;

/// Arguments of `corpus setup`.
#[derive(Args, Debug)]
pub struct SetupArgs {
    /// libpdfium only: not libonnxruntime and the `layout` provider's models
    #[arg(long, env = "CORPUS_SETUP_SKIP_MODELS", value_parser = clap::builder::BoolishValueParser::new(), default_value_t = false, hide_env_values = true)]
    skip_models: bool,
    /// Also the node packages of the KaTeX renderers (katex, playwright-core) for the olmocr
    /// suite's math tests, with npm, into the cache's node/ (needs Node.js 20 or later)
    #[arg(long)]
    katex: bool,
    /// The Python whose pip fetches the registry wheels
    #[arg(long, env = "PYTHON", default_value = "python3", hide_env_values = true)]
    python: PathBuf,
}

/// Runs `corpus setup`.
pub fn run(g: &GlobalArgs, a: &SetupArgs) -> anyhow::Result<ExitCode> {
    let opts = Options { models: !a.skip_models, katex: a.katex, python: a.python.clone() };
    let mut say = |m: &str| {
        if !g.quiet {
            eprintln!("setup: {m}");
        }
    };
    let done = setup(&opts, &mut say).map_err(|e| anyhow::anyhow!("setup: {e}"))?;
    let present = done.iter().filter(|d| d.outcome == Outcome::Present).count();
    let installed = done.len() - present;
    let cache = corpus::paths::cache_dir().map(|c| c.display().to_string()).unwrap_or_default();
    if installed == 0 {
        eprintln!("setup: nothing to do: all {present} file(s) present and verified under {cache}");
    } else {
        eprintln!(
            "setup: {installed} installed, {present} already present and verified, under {cache}"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `corpus doctor`.
#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// What you want to run: the exit status is 0 when every part it needs is found, 1
    /// otherwise (core: ingest, ocr --provider pdfium, eval, report; layout: ocr --provider
    /// layout; tex: CDM and synth; math: the olmocr suite's math tests; presets: Python
    /// parsers; java: the opendataloader preset). Repeatable; `all` for every one
    #[arg(long = "for", value_name = "NEED", default_value = "core", value_parser = need_names())]
    needs: Vec<String>,
    #[command(flatten)]
    out: OutputArgs,
}

fn need_names() -> clap::builder::PossibleValuesParser {
    let mut v: Vec<&'static str> = Need::ALL.iter().map(|n| n.name()).collect();
    v.push("all");
    clap::builder::PossibleValuesParser::new(v)
}

/// Runs `corpus doctor`.
pub fn doctor(a: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let needs: Vec<Need> = if a.needs.iter().any(|n| n == "all") {
        Need::ALL.to_vec()
    } else {
        a.needs.iter().filter_map(|n| Need::parse(n)).collect()
    };
    let all = checks();
    let ok = satisfied(&all, &needs);
    match a.out.format {
        Format::Json => print_json(&serde_json::json!({
            "ok": ok,
            "for": needs.iter().map(|n| n.name()).collect::<Vec<_>>(),
            "parts": all,
        }))?,
        Format::Table => {
            let width = all.iter().map(|c| c.part.chars().count()).max().unwrap_or(0);
            for c in &all {
                let mut line = format!("{:<7}  {:<width$}  ", c.status, c.part);
                if c.ok() {
                    line.push_str(c.version.as_deref().unwrap_or(""));
                    if let Some(p) = &c.path {
                        line.push_str(&format!("  {p}"));
                    }
                } else {
                    line.push_str(c.detail.as_deref().unwrap_or(""));
                    line.push_str(&format!("; fix: {}", c.fix));
                }
                line.push_str(&format!("  [{}]", c.needed_by.join(", ")));
                println!("{line}");
            }
            let names: Vec<&str> = needs.iter().map(|n| n.name()).collect();
            let lacking: Vec<String> = all
                .iter()
                .filter(|c| !c.ok() && c.needed_by.iter().any(|n| names.contains(n)))
                .map(|c| format!("{} (`{}`)", c.part, c.fix))
                .collect();
            if ok {
                println!("doctor: everything {} needs is present", names.join(", "));
            } else {
                println!("doctor: missing for {}: {}", names.join(", "), lacking.join("; "));
            }
        }
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
