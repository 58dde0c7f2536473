//! `--shard`, `--shards` and `--into` of `corpus ocr` and `corpus eval`: one task of a cluster
//! array reads the store and writes only its own shard file (docs/scale-out.md).

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use corpus::cluster::{ShardArg, ShardSpec};
use corpus::store::Store;

use super::GlobalArgs;

/// The options that make a run one task of a sharded run.
#[derive(Args, Debug, Clone)]
pub struct ShardArgs {
    /// Work on one shard of the documents and write into --into, never into the store: K/N
    /// takes the documents whose blake3 hash is K modulo N; auto reads K and N from a Slurm
    /// job array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job
    /// (JOB_COMPLETION_INDEX, with --shards)
    #[arg(long, value_parser = ShardArg::parse, requires = "into", value_name = "K/N|auto")]
    pub shard: Option<ShardArg>,
    /// With --shard auto: the number of shards (needed on Kubernetes, and when one task of a
    /// Slurm array is resubmitted on its own)
    #[arg(long, env = "CORPUS_SHARDS", value_name = "N")]
    pub shards: Option<u64>,
    /// The shard file to write (a path ending in .db), or a folder to write it in, named by
    /// command, provider and shard (ocr-layout-03-of-50.db); the store (--db) is only read.
    /// Fold shard files into the store with `corpus merge`
    #[arg(long, value_name = "FILE|DIR")]
    pub into: Option<PathBuf>,
}

/// A task's shard and file, when the run is one.
pub struct Task {
    /// Its shard.
    pub spec: ShardSpec,
    /// Its shard file.
    pub file: PathBuf,
}

impl ShardArgs {
    /// Resolves the shard and the shard file; `None` for an ordinary run.
    pub fn task(&self, command: &str, what: &str) -> anyhow::Result<Option<Task>> {
        let Some(into) = &self.into else { return Ok(None) };
        let spec = match &self.shard {
            None => ShardSpec::ALL,
            Some(ShardArg::Fixed(s)) => *s,
            Some(ShardArg::Auto) => ShardSpec::from_env(self.shards, &|k| std::env::var(k).ok())
                .map_err(|e| anyhow::anyhow!(e))?,
        };
        let file = if is_file_path(into) {
            if let Some(parent) = into.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            into.clone()
        } else {
            std::fs::create_dir_all(into)
                .with_context(|| format!("creating {}", into.display()))?;
            into.join(shard_file_name(command, what, spec))
        };
        Ok(Some(Task { spec, file }))
    }
}

fn is_file_path(p: &Path) -> bool {
    p.is_file() || p.extension().is_some_and(|e| e == "db")
}

/// `ocr-layout-03-of-50.db`: the command, what it ran (characters other than letters, digits,
/// `.`, `_` and `-` become `_`), and the shard, zero-padded so that names sort by index.
pub fn shard_file_name(command: &str, what: &str, spec: ShardSpec) -> String {
    let safe: String = what
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
        .collect();
    let width = (spec.count.saturating_sub(1)).to_string().len();
    format!("{command}-{safe}-{:0width$}-of-{}.db", spec.index, spec.count)
}

/// Opens the store for this run: a task's handle (snapshot + shard file) or an ordinary one.
pub fn open(g: &GlobalArgs, task: Option<&Task>) -> anyhow::Result<Store> {
    match task {
        Some(t) => Store::open_shard_task(&g.db, &t.file, t.spec).with_context(|| {
            format!("opening {} for shard {} into {}", g.db.display(), t.spec, t.file.display())
        }),
        None => Store::open(&g.db).with_context(|| format!("opening {}", g.db.display())),
    }
}

/// Tells the user where a task's results went (stderr).
pub fn note(g: &GlobalArgs, store: &Store, what: &str) {
    if g.quiet {
        return;
    }
    if let Some((file, spec)) = store.shard() {
        let docs = store.visible_documents().unwrap_or(0);
        eprintln!(
            "shard {spec}: {docs} document(s) of the store are in this shard; {what} written to {} \
             (fold it in with `corpus merge`)",
            file.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_files_are_named_by_command_provider_and_index() {
        let s = |k, n| ShardSpec::new(k, n).unwrap();
        assert_eq!(shard_file_name("ocr", "layout", s(3, 50)), "ocr-layout-03-of-50.db");
        assert_eq!(shard_file_name("ocr", "layout", s(0, 1)), "ocr-layout-0-of-1.db");
        assert_eq!(
            shard_file_name("eval", "paper.my tool/2", s(7, 100)),
            "eval-paper.my_tool_2-07-of-100.db"
        );
        assert_eq!(shard_file_name("ocr", "x", s(99, 101)), "ocr-x-099-of-101.db");
    }
}
