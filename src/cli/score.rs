//! `corpus score`: a pairwise metric over JSON lines, outside any store (see
//! [`corpus::metrics::pairwise`]), or CDM, which renders every formula with TeX and can keep
//! its renders in a store (`--cache`; see [`corpus::external::cdm`] and `docs/cdm.md`).

use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::external::cdm::CdmEngine;
use corpus::formats::tables::{read_table, TableFormat};
use corpus::metrics::cdm::Variant;
use corpus::metrics::pairwise::{self, Metric};
use corpus::store::Store;
use serde_json::Value;

use super::{GlobalArgs, EXIT_SOME_FAILED};

/// Arguments of `corpus score`.
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// The metric: teds and teds_s (PubTabNet TEDS on HTML tables, 1 = same), grits (GriTS-Con F
    /// on HTML tables; Top and Con precision, recall and F in the trace), edit (OmniDocBench's
    /// Edit_dist on strings: Levenshtein distance / the longer length, 0 = same), cdm (CDM F1 on
    /// LaTeX formulas rendered with TeX, 1 = same; see --cdm)
    #[arg(long, value_parser = super::values::score_metric())]
    metric: ScoreMetric,
    /// With --metric cdm, the official CDM to reproduce: omnidocbench (OmniDocBench v1.5:
    /// xelatex; `$` and ```latex fences stripped) or unimernet (UniMERNet's upstream: pdflatex;
    /// formulas as given)
    #[arg(long, value_parser = super::values::cdm_variant(), default_value = "omnidocbench")]
    cdm: Variant,
    /// With teds, teds_s and grits: the notation of the `gt` tables, html, markdown (pipe
    /// tables), latex (`tabular`) or auto (LaTeX where there is a \begin{tabular}, else HTML
    /// where there is a <table, else Markdown). A pair with a side that is not HTML is read as
    /// the table suite reads it and scored as the suite scores it; an HTML pair is scored on
    /// its HTML as given (PubTabNet's and GriTS's own functions)
    #[arg(long, value_parser = super::values::table_format(), default_value = "auto")]
    gt_format: Notation,
    /// With teds, teds_s and grits: the notation of the `pred` tables (as --gt-format)
    #[arg(long, value_parser = super::values::table_format(), default_value = "auto")]
    pred_format: Notation,
    /// With --metric cdm, keep renders in this store file (created if absent): a re-run renders
    /// nothing
    #[arg(long, value_name = "DB")]
    cache: Option<PathBuf>,
    /// JSON lines, each an object with string fields `gt` and `pred` (other fields are kept);
    /// `-` or nothing reads standard input
    input: Option<PathBuf>,
    /// Write the scored lines here instead of standard output
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// `--gt-format`/`--pred-format`: a table notation, or `None` for `auto` (detected per line).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Notation(pub Option<TableFormat>);

/// A metric of `corpus score`: one of the pairwise metrics, or CDM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScoreMetric {
    /// A pure pairwise metric, scored line by line as the lines stream in.
    Pairwise(Metric),
    /// CDM: all lines read first, so that each distinct formula is rendered once.
    Cdm,
}

impl ScoreMetric {
    fn id(self) -> &'static str {
        match self {
            ScoreMetric::Pairwise(m) => m.id(),
            ScoreMetric::Cdm => "cdm",
        }
    }
}

/// Writes scored lines and counts them.
struct Sink {
    out: Box<dyn Write>,
    name: String,
    metric: &'static str,
    quiet: bool,
    scored: usize,
    failed: usize,
    sum: f64,
}

impl Sink {
    /// Writes line `i` (0-based) back with `metric`, `score` and `trace`, or with `error`.
    fn emit(
        &mut self,
        i: usize,
        line: &str,
        obj: Option<Value>,
        result: Result<(f64, Value), String>,
    ) -> anyhow::Result<()> {
        let mut obj = obj.unwrap_or_else(|| serde_json::json!({ "line": line }));
        let map = obj.as_object_mut().expect("parse_line returns objects");
        map.insert("metric".into(), self.metric.into());
        match result {
            Ok((score, trace)) => {
                self.scored += 1;
                self.sum += score;
                map.insert("score".into(), score.into());
                map.insert("trace".into(), trace);
            }
            Err(e) => {
                self.failed += 1;
                let msg = format!("{}: line {}: {e}", self.name, i + 1);
                if !self.quiet {
                    eprintln!("score: {msg}");
                }
                map.insert("error".into(), msg.into());
            }
        }
        serde_json::to_writer(&mut self.out, &obj)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }
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
    let out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let mut sink = Sink {
        out,
        name: name.clone(),
        metric: a.metric.id(),
        quiet: g.quiet,
        scored: 0,
        failed: 0,
        sum: 0.0,
    };
    let mut note = String::new();
    let mut lines = reader.lines().enumerate().filter_map(|(i, l)| match l {
        Ok(l) if l.trim().is_empty() => None,
        Ok(l) => Some(Ok((i, l))),
        Err(e) => Some(Err(e)),
    });
    match a.metric {
        ScoreMetric::Pairwise(m) => {
            for item in lines.by_ref() {
                let (i, line) = item.with_context(|| format!("reading {name}"))?;
                let (obj, pair) = parse_line(&line);
                let result = pair.and_then(|(gt, pred)| {
                    score_pair(m, &gt, &pred, a.gt_format.0, a.pred_format.0)
                });
                sink.emit(i, &line, obj, result)?;
            }
        }
        ScoreMetric::Cdm => {
            let mut rows = Vec::new();
            for item in lines.by_ref() {
                let (i, line) = item.with_context(|| format!("reading {name}"))?;
                let (obj, pair) = parse_line(&line);
                rows.push((i, line, obj, pair));
            }
            let store = match &a.cache {
                Some(p) => {
                    Some(Store::open(p).with_context(|| format!("opening {}", p.display()))?)
                }
                None => None,
            };
            let engine = CdmEngine::new(a.cdm, store.as_ref());
            let pairs: Vec<(String, String)> =
                rows.iter().filter_map(|r| r.3.as_ref().ok().cloned()).collect();
            let mut scores = engine.score_pairs(&pairs).into_iter();
            for (i, line, obj, pair) in rows {
                let result = match pair {
                    Ok(_) => scores
                        .next()
                        .unwrap_or_else(|| Err("no score".into()))
                        .map(|s| (s.f1, s.trace)),
                    Err(e) => Err(e),
                };
                sink.emit(i, &line, obj, result)?;
            }
            note = format!(" ({}, {} rendered)", a.cdm.name(), engine.renders());
        }
    }
    sink.out.flush()?;
    let (scored, failed) = (sink.scored, sink.failed);
    if !g.quiet {
        let mean =
            if scored > 0 { format!("{:.4}", sink.sum / scored as f64) } else { "–".into() };
        eprintln!(
            "score: {}{note} {scored} pairs scored, {failed} failed, mean {mean}",
            sink.metric
        );
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// Scores one pair: a table metric on a pair with a side that is not HTML reads both sides
/// as the table suite reads them (`formats::tables`) and scores them as it does
/// (`metrics::table::score_pair`); anything else goes to the pairwise metric as given.
fn score_pair(
    m: Metric,
    gt: &str,
    pred: &str,
    gt_format: Option<TableFormat>,
    pred_format: Option<TableFormat>,
) -> Result<(f64, Value), String> {
    use corpus::metrics::table::TableScores;
    let pick: fn(&TableScores) -> f64 = match m {
        Metric::Teds => |s| s.teds,
        Metric::TedsS => |s| s.teds_s,
        Metric::Grits => |s| s.grits_con.f,
        Metric::Edit => return pairwise::score(m, gt, pred),
    };
    let gf = gt_format.unwrap_or_else(|| TableFormat::detect(gt));
    let pf = pred_format.unwrap_or_else(|| TableFormat::detect(pred));
    if gf == TableFormat::Html && pf == TableFormat::Html {
        return pairwise::score(m, gt, pred);
    }
    let g = read_table(gt, Some(gf)).map_err(|e| format!("gt ({}): {e}", gf.name()))?;
    let p = read_table(pred, Some(pf)).map_err(|e| format!("pred ({}): {e}", pf.name()))?;
    let s = corpus::metrics::table::score_pair(&g, &p);
    let score = pick(&s);
    let mut trace = serde_json::json!({
        "gt_format": gf.name(), "pred_format": pf.name(),
        "gt_grid": [g.rows, g.cols], "pred_grid": [p.rows, p.cols],
        "read_as": "the table suite's readers and scores",
    });
    if m == Metric::Grits {
        trace["grits_top"] = serde_json::json!({"p": s.grits_top.precision, "r": s.grits_top.recall, "f": s.grits_top.f});
        trace["grits_con"] = serde_json::json!({"p": s.grits_con.precision, "r": s.grits_con.recall, "f": s.grits_con.f});
    }
    Ok((score, trace))
}

/// The line's object (when it is one) and its `gt` and `pred`, or what is wrong with it.
fn parse_line(line: &str) -> (Option<Value>, Result<(String, String), String>) {
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
    let result = field("gt").and_then(|gt| Ok((gt, field("pred")?)));
    (Some(v), result)
}
