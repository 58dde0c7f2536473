//! Child processes under a time limit: a worker spoken to one line at a time
//! ([`WorkerProc`], a limit per request) and a program run once to its end (`run_limited`).
//!
//! The worker is used by the provider runner, ingest's page counter and the node helpers of
//! [`crate::external`], so that native code that hangs or crashes on one PDF (or one formula)
//! costs that item, not the batch. Every program other than a parser (TeX, Ghostscript, node,
//! Chromium) is started by `crate::external`, on top of these two.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A running worker process with a thread feeding its stdout lines into a channel.
pub struct WorkerProc {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl WorkerProc {
    /// Starts `exe args...` with piped stdin, stdout and stderr.
    pub fn spawn(exe: &Path, args: &[OsString]) -> Result<WorkerProc, String> {
        let mut cmd = Command::new(exe);
        cmd.args(args);
        WorkerProc::spawn_command(cmd, &exe.display().to_string())
    }

    /// Starts a prepared command with piped stdin, stdout and stderr, as the leader of its own
    /// process group, so that a kill at the time limit also ends what it started (a parser
    /// that runs Java or a helper binary). `what` names it in errors.
    pub(crate) fn spawn_command(mut cmd: Command, what: &str) -> Result<WorkerProc, String> {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| format!("cannot start worker {what}: {e}"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("worker pipes missing".into());
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(l) = line else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(String::new()));
        let sink = tail.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            let mut stderr = stderr;
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = sink.lock() {
                    t.push_str(&String::from_utf8_lossy(&buf[..n]));
                    if t.len() > 4000 {
                        let cut = t.len() - 2000;
                        let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                        t.drain(..cut);
                    }
                }
            }
        });
        Ok(WorkerProc { child, stdin, lines, stderr: tail })
    }

    /// Sends one request line and waits up to `timeout` for one reply line.
    ///
    /// On `Err` the process is gone (killed at the time limit, or it died) and the message
    /// says how; the caller drops this handle and starts a new process for the next request.
    pub fn request(&mut self, line: &str, timeout: Duration) -> Result<String, String> {
        let sent = writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush());
        match sent {
            Ok(()) => self.recv(timeout),
            Err(_) => Err(format!("worker process died: {}", self.end_message())),
        }
    }

    /// Waits up to `timeout` for the next line the worker writes (a greeting it sends
    /// unasked); on `Err` the process is gone, as for [`WorkerProc::request`].
    pub(crate) fn recv(&mut self, timeout: Duration) -> Result<String, String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                let how = self.end_message();
                Err(format!("timed out after {} s (worker {how})", timeout.as_secs_f64()))
            }
            Err(RecvTimeoutError::Disconnected) => {
                Err(format!("worker process died: {}", self.end_message()))
            }
        }
    }

    /// Kills the worker's process group (it and whatever it started), then the worker.
    pub fn kill(&mut self) {
        #[cfg(unix)]
        {
            let pid = rustix::process::Pid::from_child(&self.child);
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
    }

    /// The worker's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Closes stdin, which ends the worker's loop, and waits so no zombie is left.
    pub fn close(self) {
        let WorkerProc { mut child, stdin, .. } = self;
        drop(stdin);
        let _ = child.wait();
    }

    fn end_message(&mut self) -> String {
        let status = self.child.wait().map(|s| describe_exit(&s)).unwrap_or_default();
        // Give the stderr thread a moment to drain the pipe.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self.stderr.lock().map(|t| t.trim().to_string()).unwrap_or_default();
        if tail.is_empty() {
            status
        } else {
            format!("{status}; stderr: {tail}")
        }
    }
}

fn describe_exit(s: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            let name = match sig {
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                7 => " (SIGBUS)",
                _ => "",
            };
            return format!("killed by signal {sig}{name}");
        }
    }
    format!("exited with {s}")
}

/// How a program run by `run_limited` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finished {
    /// It exited by itself (with this status).
    Exited(std::process::ExitStatus),
    /// It ran past the limit; it and everything it started were killed.
    TimedOut,
}

/// Runs `cmd` (its pipes as the caller set them) as the leader of its own process group and
/// waits at most `limit`; past it the whole group is killed, so a TeX that started
/// `mktexpk` or a node that started Chromium leaves nothing behind. `Err` only when the
/// program cannot be started (the message names it).
pub(crate) fn run_limited(cmd: &mut Command, limit: Duration) -> Result<Finished, std::io::Error> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn()?;
    let t0 = std::time::Instant::now();
    let mut nap = Duration::from_millis(2);
    loop {
        match child.try_wait()? {
            Some(status) => return Ok(Finished::Exited(status)),
            None if t0.elapsed() >= limit => {
                #[cfg(unix)]
                {
                    let pid = rustix::process::Pid::from_child(&child);
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                }
                let _ = child.kill();
                let _ = child.wait();
                return Ok(Finished::TimedOut);
            }
            None => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(20));
            }
        }
    }
}

/// CPU time (user + system) of this process and of the children it has waited for, in ms,
/// from `/proc/self/stat` (`None` where there is no `/proc`). The kernel reports it in
/// clock ticks of 1/100 s (`USER_HZ`, fixed at 100 for user space on Linux).
pub(crate) fn own_cpu_ms() -> Option<u64> {
    cpu_ms_of("self")
}

/// CPU time of process `pid` (`self`, or a number) and its waited-for children, in ms.
pub(crate) fn cpu_ms_of(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: fields after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3, so utime (14) .. cstime (17) are at 11..=14.
    let ticks: u64 = f.get(11..15)?.iter().map(|v| v.parse::<u64>().ok()).sum::<Option<u64>>()?;
    Some(ticks * 10)
}
