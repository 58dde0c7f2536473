//! Page counting in a worker process (`corpus __pages`), so that a PDF that hangs or crashes
//! libpdfium during ingest costs that file, not the batch.
//!
//! Protocol: the parent writes a PDF's absolute path per line; the worker answers
//! `ok <pages>` or `error <message as a JSON string>`.

use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::PageCounter;
use crate::error::{Error, Result};
use crate::process::WorkerProc;

/// Counts pages in a `corpus __pages` worker, restarting it after a crash or a time-out.
pub struct IsolatedPageCounter {
    exe: PathBuf,
    timeout: Duration,
    proc: Option<WorkerProc>,
}

impl IsolatedPageCounter {
    /// Returns a counter that starts `exe __pages` when first needed.
    pub fn new(exe: PathBuf, timeout: Duration) -> IsolatedPageCounter {
        IsolatedPageCounter { exe, timeout, proc: None }
    }
}

impl Drop for IsolatedPageCounter {
    fn drop(&mut self) {
        if let Some(p) = self.proc.take() {
            p.close();
        }
    }
}

impl PageCounter for IsolatedPageCounter {
    fn pages(&mut self, path: &Path, _pdf: Option<&[u8]>) -> std::result::Result<u32, String> {
        let abs = std::path::absolute(path).map_err(|e| format!("cannot resolve path: {e}"))?;
        let line = abs.to_str().ok_or("the path is not valid UTF-8")?.to_string();
        if line.contains('\n') {
            return Err("the path holds a line break".into());
        }
        let w = match self.proc.as_mut() {
            Some(w) => w,
            None => self.proc.insert(WorkerProc::spawn(&self.exe, &[OsString::from("__pages")])?),
        };
        match w.request(&line, self.timeout) {
            Ok(reply) => decode(&reply),
            Err(gone) => {
                self.proc = None;
                Err(format!("pdfium could not count the pages: {gone}"))
            }
        }
    }
}

fn decode(reply: &str) -> std::result::Result<u32, String> {
    let bad = || format!("unreadable reply from the page counter: {reply:?}");
    match reply.split_once(' ') {
        Some(("ok", n)) => n.trim().parse().map_err(|_| bad()),
        Some(("error", msg)) => Err(serde_json::from_str::<String>(msg).map_err(|_| bad())?),
        _ => Err(bad()),
    }
}

/// Counts a file's pages: read whole when it is at most one stored chunk, else by path
/// (pdfium reads it on demand), so a PDF of several GB is never held in memory.
fn count_file(counter: &mut dyn PageCounter, path: &Path) -> std::result::Result<u32, String> {
    let (f, size) = crate::walk::open_regular(path, crate::store::MAX_PDF, "a PDF")?;
    if size > crate::store::CHUNK {
        return counter.pages(path, None);
    }
    let mut bytes = Vec::with_capacity(size as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(f, size + 1), &mut bytes)
        .map_err(|e| format!("cannot read: {}", crate::walk::io_words(&e)))?;
    counter.pages(path, Some(&bytes))
}

/// Serves page-count requests (one path per line) with `counter` until `input` closes.
pub fn serve_pages(
    counter: &mut dyn PageCounter,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<()> {
    for line in input.lines() {
        let line = line.map_err(|e| Error::io("<stdin>", e))?;
        let path = Path::new(line.trim_end());
        let reply = count_file(counter, path);
        let text = match reply {
            Ok(n) => format!("ok {n}\n"),
            Err(msg) => format!("error {}\n", serde_json::Value::String(msg)),
        };
        output.write_all(text.as_bytes()).map_err(|e| Error::io("<stdout>", e))?;
        output.flush().map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed;
    impl PageCounter for Fixed {
        fn pages(&mut self, _: &Path, pdf: Option<&[u8]>) -> std::result::Result<u32, String> {
            if pdf.is_none_or(|p| p.is_empty()) {
                Err("empty \"file\"".into())
            } else {
                Ok(pdf.map_or(0, |p| p.len()) as u32)
            }
        }
    }

    #[test]
    fn the_protocol_round_trips() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a.pdf"), d.path().join("b.pdf"));
        std::fs::write(&a, b"12345").unwrap();
        std::fs::write(&b, b"").unwrap();
        let input = format!("{}\n{}\n{}\n", a.display(), b.display(), d.path().join("c").display());
        let mut out = Vec::new();
        serve_pages(&mut Fixed, input.as_bytes(), &mut out).unwrap();
        let lines: Vec<String> =
            String::from_utf8(out).unwrap().lines().map(String::from).collect();
        assert_eq!(decode(&lines[0]), Ok(5));
        assert_eq!(decode(&lines[1]), Err("empty \"file\"".to_string()));
        assert!(decode(&lines[2]).unwrap_err().starts_with("cannot open"));
        assert!(decode("garbage").is_err());
    }
}
