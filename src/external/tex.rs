//! Running `pdflatex` (for `crate::synth`): one document in a fresh temporary folder, reproducibly
//! (`SOURCE_DATE_EPOCH` with `FORCE_SOURCE_DATE`, and `\pdftrailerid{}` in the preamble),
//! non-interactively, under a time limit; and what its log says (pages, errors, the
//! `SYNTH…` lines our documents print).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::process::{run_limited, Finished};

/// The fixed creation date of every PDF (2026-01-01T00:00:00Z).
pub const SOURCE_DATE_EPOCH: &str = "1767225600";

/// What one run produced.
#[derive(Debug, Clone)]
pub struct Run {
    /// The PDF, unless draft mode or no page was written.
    pub pdf: Option<Vec<u8>>,
    /// The log file (the terminal output when there is no log).
    pub log: String,
    /// Pages written, from the log's `Output written on … (N pages` line (0 if none).
    pub pages: u32,
    /// The first TeX error (`! …` and the line after), if any.
    pub error: Option<String>,
    /// The run passed its time limit and was killed.
    pub timed_out: bool,
}

/// Whether `pdflatex` can be run here, or why not.
pub fn available() -> Result<(), String> {
    match Command::new("pdflatex").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("pdflatex --version exited with {s}")),
        Err(e) => Err(format!(
            "pdflatex cannot be run ({e}); install Debian's texlive-latex-extra and texlive-fonts-recommended"
        )),
    }
}

/// Compiles `tex` (a whole document) in a fresh folder under `tmp`; `draft` writes no PDF
/// (`-draftmode`, for measuring). Stops at the first error (`-halt-on-error`).
pub fn pdflatex(tex: &str, draft: bool, timeout: Duration, tmp: &Path) -> Result<Run, String> {
    let dir = tempfile::Builder::new()
        .prefix("synth-")
        .tempdir_in(tmp)
        .map_err(|e| format!("cannot make a temporary folder in {}: {e}", tmp.display()))?;
    let src = dir.path().join("page.tex");
    std::fs::write(&src, tex).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let mut cmd = Command::new("pdflatex");
    cmd.current_dir(dir.path())
        .args(["-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape"])
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .env("FORCE_SOURCE_DATE", "1")
        // Unwrapped log lines, so `marks` reads each on one line.
        .env("max_print_line", "100000")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    // The terminal output is also in the log; kept in a file for when there is no log.
    let terminal = dir.path().join("terminal.txt");
    let out = std::fs::File::create(&terminal)
        .map_err(|e| format!("cannot write {}: {e}", terminal.display()))?;
    cmd.stdout(out);
    if draft {
        cmd.arg("-draftmode");
    }
    cmd.arg("page.tex");
    let timed_out = match run_limited(&mut cmd, timeout) {
        Ok(Finished::Exited(_)) => false,
        Ok(Finished::TimedOut) => true,
        Err(e) => return Err(format!("cannot run pdflatex: {e}")),
    };
    let read = |name: &str| std::fs::read(dir.path().join(name)).ok();
    let log = read("page.log").or_else(|| read("terminal.txt")).unwrap_or_default();
    let log = String::from_utf8_lossy(&log).into_owned();
    let pages = pages_written(&log);
    let pdf = if draft || pages == 0 || timed_out {
        None
    } else {
        std::fs::read(dir.path().join("page.pdf")).ok()
    };
    Ok(Run { pdf, error: first_error(&log), pages, log, timed_out })
}

/// The page count of the log's `Output written on page.pdf (N pages, …)` line (0 without
/// one: no page, or draft mode).
fn pages_written(log: &str) -> u32 {
    let Some(i) = log.find("Output written on") else { return 0 };
    let rest = &log[i..];
    let Some(open) = rest.find('(') else { return 0 };
    rest[open + 1..].split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// The first `! …` error line of a log, with the line that says where.
fn first_error(log: &str) -> Option<String> {
    let mut lines = log.lines();
    while let Some(l) = lines.next() {
        if let Some(msg) = l.strip_prefix("! ") {
            let at = lines.find(|l| l.starts_with("l.")).unwrap_or("");
            return Some(format!("{msg} {at}").trim().to_string());
        }
    }
    None
}

/// The values of `PREFIX:a:b:…` lines in a log, split at `:`, in log order (`pdflatex` runs
/// with `max_print_line` raised, so TeX does not wrap them).
pub(crate) fn marks(log: &str, prefix: &str) -> Vec<Vec<String>> {
    log.lines()
        .filter_map(|l| {
            l.find(prefix).map(|p| l[p + prefix.len()..].split(':').map(str::to_string).collect())
        })
        .collect()
}

/// A TeX dimension (`12.5pt`) in points.
pub(crate) fn points(s: &str) -> Option<f64> {
    s.trim().strip_suffix("pt")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_are_read() {
        let log = "x\nOutput written on page.pdf (1 page, 2032 bytes).\n! Undefined control sequence.\n<argument> \\foo\nl.12 \\foo\nSYNTHSIZE:3:10.0pt:2.0pt:1.0pt\n";
        assert_eq!(pages_written(log), 1);
        assert_eq!(first_error(log).as_deref(), Some("Undefined control sequence. l.12 \\foo"));
        assert_eq!(marks(log, "SYNTHSIZE:"), [vec!["3", "10.0pt", "2.0pt", "1.0pt"]]);
        assert_eq!(points("10.5pt"), Some(10.5));
        assert_eq!(pages_written("No pages of output."), 0);
    }
}
