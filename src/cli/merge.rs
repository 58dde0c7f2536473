//! `corpus merge` and `corpus checkpoint`: the two ends of a sharded run on the store's side.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use corpus::store::merge::MergeCounts;
use corpus::store::Store;

use super::output::{print_json, print_table, Format, OutputArgs};
use super::{argv, GlobalArgs, EXIT_SOME_FAILED};

/// Arguments of `corpus merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Shard files written by `corpus ocr|eval|degrade --shard ... --into`, or folders of them
    /// (their *.db files, in name order)
    #[arg(required = true, value_name = "FILE|DIR")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    output: OutputArgs,
}

/// Arguments of `corpus checkpoint`.
#[derive(Args, Debug)]
pub struct CheckpointArgs {
    #[command(flatten)]
    output: OutputArgs,
}

fn shard_files(args: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in args {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("reading {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|e| e == "db") && f.is_file())
                .collect();
            found.sort();
            if found.is_empty() {
                eprintln!("corpus: warning: {}: no *.db shard files in this folder", p.display());
            }
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn row(c: &MergeCounts) -> Vec<String> {
    [
        c.runs_new,
        c.new,
        c.present,
        c.superseded,
        c.stale_errors,
        c.conflicts,
        c.metrics_new,
        c.metrics_present,
        c.metric_conflicts,
        c.documents_new,
        c.documents_present,
        c.truths_new,
    ]
    .iter()
    .map(|n| n.to_string())
    .collect()
}

/// Runs `corpus merge`.
pub fn run(g: &GlobalArgs, a: &MergeArgs) -> anyhow::Result<ExitCode> {
    let files = shard_files(&a.files)?;
    if !g.db.is_file() {
        anyhow::bail!(
            "{}: no store there; merge folds shard files into the store their tasks read (give --db)",
            g.db.display()
        );
    }
    let mut store = Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let args = argv();
    let t0 = Instant::now();
    let bar = super::progress::Bar::new("merge", g.quiet);
    corpus::progress::Progress::start(&bar, files.len() as u64);
    let mut merge_run = None;
    let mut reports = Vec::new();
    let mut refused: Vec<(String, String)> = Vec::new();
    let mut total = MergeCounts { file: "total".into(), ..Default::default() };
    store.begin_merge()?;
    for f in &files {
        let label = f.display().to_string();
        match store.merge_shard(f, &label, &args, &mut merge_run) {
            Ok(r) => {
                total.add(&r.counts);
                corpus::progress::Progress::advance(&bar, &label, true);
                reports.push(r);
            }
            Err(e) => {
                corpus::progress::Progress::advance(&bar, &label, false);
                refused.push((label, e.to_string()));
            }
        }
    }
    store.end_merge()?;
    corpus::progress::Progress::finish(&bar);
    let secs = t0.elapsed().as_secs_f64();
    let conflicts: Vec<_> = reports.iter().flat_map(|r| r.conflicts.iter().cloned()).collect();
    if let Some(run) = merge_run {
        let counts = serde_json::json!({
            "files": files.len(), "refused": refused.len(), "totals": total,
            "conflicts": conflicts.len(),
        });
        store.finish_run(run, &counts, (refused.len() + conflicts.len()) as u64)?;
    }
    match a.output.format {
        Format::Json => print_json(&serde_json::json!({
            "files": reports.iter().map(|r| &r.counts).collect::<Vec<_>>(),
            "total": total,
            "conflicts": conflicts,
            "refused": refused.iter().map(|(f, e)| serde_json::json!({"file": f, "error": e})).collect::<Vec<_>>(),
            "run": merge_run.map(|r| r.0),
            "seconds": secs,
        }))?,
        Format::Table => {
            let mut rows: Vec<Vec<String>> = reports
                .iter()
                .map(|r| {
                    let mut v = vec![short(&r.counts.file)];
                    v.extend(row(&r.counts));
                    v
                })
                .collect();
            if reports.len() > 1 {
                let mut v = vec!["total".to_string()];
                v.extend(row(&total));
                rows.push(v);
            }
            print_table(
                &[
                    "file",
                    "runs",
                    "new",
                    "present",
                    "superseded",
                    "stale errors",
                    "conflicts",
                    "scores new",
                    "scores present",
                    "score conflicts",
                    "documents new",
                    "documents present",
                    "truths new",
                ],
                &rows,
            )?;
        }
    }
    if !g.quiet {
        for c in &conflicts {
            match &c.metric {
                None => eprintln!(
                    "corpus: conflict: {}: output {} (document {}, provider {}): the store has \
                     blob {}, the shard file {}; the stored output is kept (is the provider \
                     deterministic?)",
                    c.file, c.cache_key, c.document, c.provider, c.stored, c.shard
                ),
                Some(m) => eprintln!(
                    "corpus: conflict: {}: score {m} of output {} (document {}): the store has \
                     {}, the shard file {}; the stored row is kept",
                    c.file, c.cache_key, c.document, c.stored, c.shard
                ),
            }
        }
        for (f, e) in &refused {
            eprintln!("corpus: refused: {e}");
            let _ = f;
        }
        let mb = total.bytes_new as f64 / 1e6;
        eprintln!(
            "{} file(s) in {secs:.2} s: {} output(s) new ({mb:.1} MB), {} present, {} superseded, \
             {} conflict(s); {} score row(s) new{}{}{}",
            reports.len(),
            total.new,
            total.present,
            total.superseded,
            total.conflicts + total.metric_conflicts,
            total.metrics_new,
            if total.documents_new + total.documents_present + total.truths_new > 0 {
                format!(
                    "; {} document(s) new, {} present, {} truth file(s) new",
                    total.documents_new, total.documents_present, total.truths_new
                )
            } else {
                String::new()
            },
            if refused.is_empty() {
                String::new()
            } else {
                format!("; {} file(s) refused", refused.len())
            },
            if merge_run.is_none() { "; nothing new, the store is unchanged" } else { "" }
        );
    }
    let bad = !refused.is_empty() || !conflicts.is_empty();
    Ok(if bad { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

fn short(p: &str) -> String {
    Path::new(p).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_else(|| p.into())
}

/// Runs `corpus checkpoint`.
pub fn checkpoint(g: &GlobalArgs, a: &CheckpointArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let version = store.checkpoint()?;
    drop(store);
    let info = serde_json::json!({"store": g.db.display().to_string(), "schema_version": version});
    match a.output.format {
        Format::Json => print_json(&info)?,
        Format::Table => {
            if !g.quiet {
                eprintln!(
                    "{}: schema version {version}, write-ahead log checkpointed and emptied: \
                     tasks can read it now (no writer may open it until they finish)",
                    g.db.display()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
