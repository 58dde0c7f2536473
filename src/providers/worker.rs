//! The worker side of the provider runner: a process that parses PDFs named on stdin.
//!
//! Protocol (one line each way per document, UTF-8):
//! - parent → worker: the PDF's blob hash;
//! - worker → parent: `ok <wall_ms>/<cpu_ms> <Doc JSON>` or `error <wall_ms>/<cpu_ms> <message as a
//!   JSON string>`, `cpu_ms` being `-` where it could not be measured.
//!
//! The worker reads PDFs from the store itself (read-only), so only hashes and results cross
//! the pipe. It exits when stdin closes, which is also what happens when the parent dies.

use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::store::{Store, StoredPdf};

use super::{Engine, PageSelection, Provider};

/// One finished document as the worker reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The Doc, as JSON.
    Ok {
        /// Time spent parsing.
        wall_ms: u64,
        /// CPU time spent parsing (this process, its children, a parser's own worker).
        cpu_ms: Option<u64>,
        /// The Doc JSON.
        json: String,
    },
    /// A per-document failure.
    Error {
        /// Time spent before failing.
        wall_ms: u64,
        /// CPU time spent before failing.
        cpu_ms: Option<u64>,
        /// What went wrong.
        message: String,
    },
}

impl Reply {
    /// Encodes the reply as one line (without the newline).
    pub(crate) fn encode(&self) -> String {
        match self {
            Reply::Ok { wall_ms, cpu_ms, json } => format!("ok {wall_ms}/{} {json}", cpu(cpu_ms)),
            Reply::Error { wall_ms, cpu_ms, message } => {
                format!(
                    "error {wall_ms}/{} {}",
                    cpu(cpu_ms),
                    serde_json::Value::String(message.clone())
                )
            }
        }
    }

    /// Decodes one reply line.
    pub fn decode(line: &str) -> std::result::Result<Reply, String> {
        let bad = || {
            format!("unreadable reply from worker: {:?}", line.chars().take(80).collect::<String>())
        };
        let (tag, rest) = line.split_once(' ').ok_or_else(bad)?;
        let (ms, body) = rest.split_once(' ').ok_or_else(bad)?;
        let (wall, cpu) = ms.split_once('/').unwrap_or((ms, "-"));
        let wall_ms: u64 = wall.parse().map_err(|_| bad())?;
        let cpu_ms: Option<u64> = match cpu {
            "-" => None,
            c => Some(c.parse().map_err(|_| bad())?),
        };
        match tag {
            "ok" => Ok(Reply::Ok { wall_ms, cpu_ms, json: body.to_string() }),
            "error" => {
                let message = serde_json::from_str::<String>(body).map_err(|_| bad())?;
                Ok(Reply::Error { wall_ms, cpu_ms, message })
            }
            _ => Err(bad()),
        }
    }
}

/// `-` for an unknown CPU time.
fn cpu(ms: &Option<u64>) -> String {
    ms.map_or_else(|| "-".to_string(), |m| m.to_string())
}

/// Parses one PDF with a loaded engine, turning a panic into a per-document error.
///
/// A small PDF is parsed from memory; a large one is read on demand from the store.
pub(crate) fn run_one(engine: &mut dyn Engine, pdf: StoredPdf<'_>, pages: &PageSelection) -> Reply {
    let t0 = Instant::now();
    let cpu0 = crate::process::own_cpu_ms();
    let result = catch_unwind(AssertUnwindSafe(|| match pdf {
        StoredPdf::Bytes(bytes) => engine.run(&bytes, pages),
        StoredPdf::Reader(mut r) => engine.run_reader(&mut r, pages),
    }));
    let wall_ms = t0.elapsed().as_millis() as u64;
    let own = match (cpu0, crate::process::own_cpu_ms()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let cpu_ms = match (own, engine.outside_cpu_ms()) {
        (Some(a), Some(b)) => Some(a + b),
        (a, None) => a,
        (None, b) => b,
    };
    match result {
        Ok(Ok(doc)) => match serde_json::to_string(&doc) {
            Ok(json) => Reply::Ok { wall_ms, cpu_ms, json },
            Err(e) => {
                Reply::Error { wall_ms, cpu_ms, message: format!("cannot serialise output: {e}") }
            }
        },
        Ok(Err(message)) => Reply::Error { wall_ms, cpu_ms, message },
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Reply::Error { wall_ms, cpu_ms, message: format!("provider panicked: {what}") }
        }
    }
}

/// Serves parse requests until `input` closes.
pub fn serve(
    provider: &dyn Provider,
    db: &Path,
    pages: &PageSelection,
    snapshot: bool,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<()> {
    let store = if snapshot { Store::open_snapshot(db)? } else { Store::open_read_only(db)? };
    let mut engine: Option<Box<dyn Engine>> = None;
    for line in input.lines() {
        let line = line.map_err(|e| Error::io("<stdin>", e))?;
        let hash = line.trim();
        if hash.is_empty() {
            continue;
        }
        let reply = match store.pdf(hash)? {
            None => Reply::Error {
                wall_ms: 0,
                cpu_ms: None,
                message: format!("blob {hash} is not in the store"),
            },
            Some(pdf) => {
                if engine.is_none() {
                    engine = Some(provider.load()?);
                }
                // Invariant: loaded just above.
                let e = engine.as_deref_mut().expect("engine is loaded");
                run_one(e, pdf, pages)
            }
        };
        let mut text = reply.encode();
        text.push('\n');
        output.write_all(text.as_bytes()).map_err(|e| Error::io("<stdout>", e))?;
        output.flush().map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_round_trip() {
        for r in [
            Reply::Ok { wall_ms: 12, cpu_ms: Some(7), json: "{\"pages\":[],\"blocks\":[]}".into() },
            Reply::Error { wall_ms: 0, cpu_ms: None, message: "bad \"pdf\"\nline two".into() },
        ] {
            let line = r.encode();
            assert!(!line.contains('\n'));
            assert_eq!(Reply::decode(&line).unwrap(), r);
        }
        assert!(Reply::decode("garbage").is_err());
        assert!(Reply::decode("ok x {}").is_err());
    }
}
