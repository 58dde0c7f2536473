//! Command-line types and one module per subcommand (binary only).

mod correlate;
mod eval;
mod export;
mod import;
mod ingest;
mod merge;
mod models;
mod ocr;
mod output;
mod progress;
mod report;
mod shard;
mod show;
mod sql;
mod status;
mod worker;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// Keep PDFs and their ground truth in one store, run parsers once per model version, and
/// score every output.
#[derive(Parser, Debug)]
#[command(name = "corpus", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Options every command takes.
#[derive(Args, Debug)]
pub struct GlobalArgs {
    /// The store file
    #[arg(long, global = true, env = "CORPUS_DB", default_value = "corpus.db")]
    pub db: PathBuf,
    /// Print no progress and no warnings
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Print more (-v info, -vv debug); CORPUS_LOG sets a tracing filter
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Add PDFs (files or folders, searched recursively) and their ground truth to the store
    Ingest(ingest::IngestArgs),
    /// Store outputs a parser produced elsewhere (Docling JSON, Markdown, GROBID TEI, ...) as
    /// a provider's cached outputs
    Import(import::ImportArgs),
    /// Run a provider over every document that has no cached output for it
    #[command(disable_version_flag = true)]
    Ocr(ocr::OcrArgs),
    /// Score outputs against their documents' ground truth and store every metric
    Eval(eval::EvalArgs),
    /// Fold shard files written by `ocr|eval --shard ... --into` into the store, by cache key:
    /// new, already present, superseded failures, conflicts (exit 3)
    Merge(merge::MergeArgs),
    /// Bring the store to this build's schema and empty its write-ahead log, so that tasks of
    /// a cluster array can read it without locks
    Checkpoint(merge::CheckpointArgs),
    /// Write a provider's output for one document in a standard schema
    Export(export::ExportArgs),
    /// Show datasets, documents, pages, truths, outputs per provider and errors
    Status(status::StatusArgs),
    /// Show one document's output from a provider
    Show(show::ShowArgs),
    /// Tables of the latest scores, comparisons between provider versions, and metric history
    Report(report::ReportArgs),
    /// Correlate each stored metric of a suite with human ratings (Pearson, Spearman, Kendall)
    Correlate(correlate::CorrelateArgs),
    /// Run one read-only SQL query over the store's views
    Sql(sql::SqlArgs),
    /// List the runs (ingest, ocr, eval) with their times and counts
    Runs(sql::RunsArgs),
    /// List the providers this build knows
    Providers(output::OutputArgs),
    /// The models the `layout` provider loads: list, check their hashes, run one on images
    Models(models::ModelsArgs),
    /// Parse PDFs named on stdin (internal: started by `corpus ocr`)
    #[command(name = "__worker", hide = true)]
    Worker(worker::WorkerArgs),
    /// Count pages of PDFs named on stdin (internal: started by `corpus ingest`)
    #[command(name = "__pages", hide = true)]
    Pages,
}

/// Runs the parsed command line and returns the exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let g = &cli.global;
    match &cli.command {
        Command::Ingest(a) => ingest::run(g, a),
        Command::Import(a) => import::run(g, a),
        Command::Ocr(a) => ocr::run(g, a),
        Command::Eval(a) => eval::run(g, a),
        Command::Merge(a) => merge::run(g, a),
        Command::Checkpoint(a) => merge::checkpoint(g, a),
        Command::Export(a) => export::run(g, a),
        Command::Status(a) => status::run(g, a),
        Command::Show(a) => show::run(g, a),
        Command::Report(a) => report::run(g, a),
        Command::Correlate(a) => correlate::run(g, a),
        Command::Sql(a) => sql::run(g, a),
        Command::Runs(a) => sql::runs(g, a),
        Command::Providers(a) => status::providers(a),
        Command::Models(a) => models::run(a),
        Command::Worker(a) => worker::run(a),
        Command::Pages => worker::pages(),
    }
}

/// Exit code for "finished, but some documents failed".
pub const EXIT_SOME_FAILED: u8 = 3;

/// Sets up tracing on stderr: `CORPUS_LOG` if set, else from -q/-v.
pub fn init_logging(g: &GlobalArgs) {
    let level = match (g.quiet, g.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, _) => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("CORPUS_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("corpus={level}")));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .init();
}

/// Prints an error and its causes; a broken pipe on stdout is a silent success.
pub fn report_error(e: &anyhow::Error) -> ExitCode {
    for cause in e.chain() {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                return ExitCode::SUCCESS;
            }
        }
    }
    eprintln!("corpus: error: {e}");
    for cause in e.chain().skip(1) {
        eprintln!("corpus: caused by: {cause}");
    }
    ExitCode::FAILURE
}

/// Returns the command line as given, for the run record.
fn argv() -> Vec<String> {
    std::env::args().collect()
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn command_line_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
