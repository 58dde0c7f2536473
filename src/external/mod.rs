//! Every outside program corpus runs that is not a parser: TeX and Ghostscript
//! ([`tex`], and CDM's renders in [`cdm`]), node with KaTeX ([`katex`]) and node driving
//! headless Chromium ([`chromium`]). They all start through [`crate::process`]: a program run
//! once to its end under a time limit ([`run`]), or a helper script spoken to one JSON line at
//! a time ([`NodeHelper`], on [`WorkerProc`]) whose every answer has a time limit too. So a
//! program that hangs costs its item and is killed with everything it started, and a missing
//! program is an error that names it and the command that installs it.
//!
//! Parsers (presets, commands, endpoints) are started by `crate::providers`; the pure halves
//! of what these programs serve (CDM's matching, KaTeX's comparison) are in `crate::metrics`.

pub mod cdm;
pub mod chromium;
pub mod katex;
pub mod tex;

use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use crate::process::{run_limited, Finished, WorkerProc};

/// Runs `cmd` to its end within `limit` (see `run_limited`). `Err` names `name` when it
/// cannot be started (followed by `hint`, what installs it) or ran past the limit; an exit
/// status is the caller's to judge, from the files the program wrote.
pub fn run(cmd: &mut Command, limit: Duration, name: &str, hint: &str) -> Result<(), String> {
    match run_limited(cmd, limit) {
        Ok(Finished::Exited(_)) => Ok(()),
        Ok(Finished::TimedOut) => Err(format!("{name} timed out after {} s", limit.as_secs())),
        Err(e) => Err(format!("cannot start {name}: {e} ({hint})")),
    }
}

/// What a program run by [`capture`] wrote and how it ended.
#[derive(Debug, Clone)]
pub struct Captured {
    /// Its exit status.
    pub status: ExitStatus,
    /// Its standard output (lossy UTF-8).
    pub stdout: String,
    /// Its standard error (lossy UTF-8).
    pub stderr: String,
}

/// Runs `cmd` to its end within `limit`, keeping what it writes (through files, so a full
/// pipe never blocks it). `Err` names `name` when it cannot be started or ran past the limit.
pub fn capture(cmd: &mut Command, limit: Duration, name: &str) -> Result<Captured, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let (out, err) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let file = |p: &std::path::Path| {
        std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    cmd.stdin(Stdio::null()).stdout(file(&out)?).stderr(file(&err)?);
    let status = match run_limited(cmd, limit) {
        Ok(Finished::Exited(s)) => s,
        Ok(Finished::TimedOut) => {
            return Err(format!("{name} timed out after {} s", limit.as_secs()))
        }
        Err(e) => return Err(format!("cannot start {name}: {e}")),
    };
    let read = |p: &std::path::Path| {
        String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned()
    };
    Ok(Captured { status, stdout: read(&out), stderr: read(&err) })
}

/// The first line `program args` prints (on stdout, else stderr) when it runs and exits 0
/// within ten seconds: a version probe. `None` when it is not there or fails.
pub fn probe(program: &std::path::Path, args: &[&str]) -> Option<String> {
    let mut cmd = Command::new(program);
    cmd.args(args);
    let c = capture(&mut cmd, Duration::from_secs(10), &program.display().to_string()).ok()?;
    if !c.status.success() {
        return None;
    }
    let first = |s: &str| s.lines().map(str::trim).find(|l| !l.is_empty()).map(String::from);
    first(&c.stdout).or_else(|| first(&c.stderr)).or(Some(String::new()))
}

/// `name` on `PATH` (the first executable file of that name), as a shell would find it.
pub fn which(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| {
        use std::os::unix::fs::PermissionsExt;
        p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// A node script that answers one JSON line per request line (a greeting first), running
/// for as long as this handle lives: dropping it closes the script's stdin, which ends its
/// loop, and waits for it.
pub struct NodeHelper {
    proc: Option<WorkerProc>,
}

impl std::fmt::Debug for NodeHelper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pid = self.proc.as_ref().map(WorkerProc::id);
        f.debug_struct("NodeHelper").field("pid", &pid).finish()
    }
}

impl NodeHelper {
    /// Starts `cmd` (node and its script, with the environment the caller set). `Err` when it
    /// cannot be started at all.
    pub fn start(cmd: Command, what: &str) -> Result<NodeHelper, String> {
        Ok(NodeHelper { proc: Some(WorkerProc::spawn_command(cmd, what)?) })
    }

    /// The next line the script writes unasked (its greeting), waiting at most `timeout`.
    pub(crate) fn greeting(&mut self, timeout: Duration) -> Result<String, String> {
        self.live()?.recv(timeout).inspect_err(|_| self.proc = None)
    }

    /// Sends one request line and waits at most `timeout` for its answer. On `Err` the script
    /// is gone (killed at the limit, or it died; the message says how, with its stderr's tail)
    /// and every later request fails at once.
    pub fn request(&mut self, line: &str, timeout: Duration) -> Result<String, String> {
        self.live()?.request(line, timeout).inspect_err(|_| self.proc = None)
    }

    fn live(&mut self) -> Result<&mut WorkerProc, String> {
        self.proc.as_mut().ok_or_else(|| "the node process has already failed".to_string())
    }
}

impl Drop for NodeHelper {
    fn drop(&mut self) {
        if let Some(p) = self.proc.take() {
            p.close();
        }
    }
}
