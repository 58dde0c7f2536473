//! The `corpus` binary: parse the command line, run it, map the outcome to an exit code.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Cli::parse();
    cli::init_logging(&args.global);
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => cli::report_error(&e),
    }
}
