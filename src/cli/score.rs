//! `corpus score`: a pairwise metric over JSON lines, outside any store (see
//! [`corpus::metrics::pairwise`]).

use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::metrics::pairwise::{self, Metric};
use serde_json::Value;

use super::{GlobalArgs, EXIT_SOME_FAILED};

/// Arguments of `corpus score`.
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// The metric: teds and teds_s (PubTabNet TEDS on HTML tables, 1 = same), grits (GriTS-Con F
    /// on HTML tables; Top and Con precision, recall and F in the trace), edit (OmniDocBench's
    /// Edit_dist on strings: Levenshtein distance / the longer length, 0 = same)
    #[arg(long, value_parser = super::values::pairwise_metric())]
    metric: Metric,
    /// JSON lines, each an object with string fields `gt` and `pred` (other fields are kept);
    /// `-` or nothing reads standard input
    input: Option<PathBuf>,
    /// Write the scored lines here instead of standard output
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Scores every line and writes it back with `metric`, `score` and `trace`, or with `error`
/// (the line number and what is wrong); a bad line never stops the others. Exit 3 when some
/// line could not be scored.
pub fn run(g: &GlobalArgs, a: &ScoreArgs) -> anyhow::Result<ExitCode> {
    let name = match &a.input {
        Some(p) if p.as_os_str() != "-" => p.display().to_string(),
        _ => "stdin".to_string(),
    };
    let reader: Box<dyn BufRead> = match &a.input {
        Some(p) if p.as_os_str() != "-" => Box::new(std::io::BufReader::new(
            std::fs::File::open(p).with_context(|| format!("opening {}", p.display()))?,
        )),
        _ => Box::new(std::io::stdin().lock()),
    };
    let mut out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let (mut scored, mut failed, mut sum) = (0usize, 0usize, 0.0f64);
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("reading {name}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let (obj, result) = score_line(a.metric, &line);
        let mut obj = obj.unwrap_or_else(|| serde_json::json!({ "line": line }));
        let map = obj.as_object_mut().expect("score_line returns objects");
        map.insert("metric".into(), a.metric.id().into());
        match result {
            Ok((score, trace)) => {
                scored += 1;
                sum += score;
                map.insert("score".into(), score.into());
                map.insert("trace".into(), trace);
            }
            Err(e) => {
                failed += 1;
                let msg = format!("{name}: line {}: {e}", i + 1);
                if !g.quiet {
                    eprintln!("score: {msg}");
                }
                map.insert("error".into(), msg.into());
            }
        }
        serde_json::to_writer(&mut out, &obj)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    if !g.quiet {
        let mean = if scored > 0 { format!("{:.4}", sum / scored as f64) } else { "–".into() };
        eprintln!("score: {} {scored} pairs scored, {failed} failed, mean {mean}", a.metric.id());
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// The line's object (when it is one) and its score or what is wrong with it.
fn score_line(metric: Metric, line: &str) -> (Option<Value>, Result<(f64, Value), String>) {
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return (None, Err(format!("not JSON: {e}"))),
    };
    if !v.is_object() {
        return (None, Err("not a JSON object".into()));
    }
    let field = |k: &str| match &v[k] {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Err(format!("no `{k}` field")),
        _ => Err(format!("`{k}` is not a string")),
    };
    let result = field("gt").and_then(|gt| {
        let pred = field("pred")?;
        pairwise::score(metric, &gt, &pred)
    });
    (Some(v), result)
}
