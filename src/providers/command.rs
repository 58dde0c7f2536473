//! The `command` provider: any command-line parser (Docling, GROBID's client, Marker,
//! `pdftotext`, a VLM script) run once per PDF and cached like a built-in provider.
//!
//! - The argv template is split like a shell would split it (quotes), but no shell runs it.
//!   `{pdf}` is the input PDF, `{outdir}` an empty folder for outputs, `{pages}` the page
//!   selection (`all` or `1-3,5`).
//! - Each document runs in a fresh temporary folder (the current directory of the command),
//!   which is removed afterwards. The command gets no stdin; its stdout and stderr go to files.
//! - A command over the time limit is killed with its whole process group and recorded as
//!   timed out. A non-zero exit is recorded with the exit status and the end of its stderr.
//! - The output is the first file (by name) under `{outdir}` with the declared format's ending,
//!   else the command's stdout; it is read by the same readers as `corpus import`.
//! - Cache key: the declared name is the provider id; the declared version is the model
//!   digest; the argv template, output format and version are the config. Changing any of them
//!   re-runs; the device it ran on is not part of the key.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{Engine, PageSelection, Provider};
use crate::doc::Doc;
use crate::error::{Error, Result};
use crate::formats::ImportFormat;

/// The provider id users type to select this provider.
pub const ID: &str = "command";

/// Bump when how a command's output becomes a Doc changes (2: Markdown keeps its source text; 3: a form feed in Markdown starts a new page; 4: Docling and Unstructured blocks carry their class as a label and Unstructured's its score).
pub const ADAPTER_VERSION: u32 = 4;

/// How much of a failing command's stderr is kept in the error message.
const STDERR_TAIL: usize = 2000;

/// An external command declared on the command line.
#[derive(Debug, Clone)]
pub struct CommandProvider {
    name: &'static str,
    version: String,
    template: String,
    argv: Vec<String>,
    format: ImportFormat,
    timeout: Duration,
}

impl CommandProvider {
    /// Declares a command provider. `name` becomes the provider id of its outputs.
    pub fn new(
        name: &str,
        version: &str,
        template: &str,
        format: ImportFormat,
        timeout: Duration,
    ) -> Result<CommandProvider> {
        super::check_provider_id(name)?;
        // The id must live as long as the registry's &'static ids; one leak per command line.
        let name: &'static str = Box::leak(name.to_string().into_boxed_str());
        CommandProvider::for_preset(name, version, template, format, timeout)
    }

    /// Declares the command of a preset (see `providers::preset`), whose id is its own.
    pub(crate) fn for_preset(
        name: &'static str,
        version: &str,
        template: &str,
        format: ImportFormat,
        timeout: Duration,
    ) -> Result<CommandProvider> {
        if version.trim().is_empty() {
            return Err(Error::Usage("--version must name the tool's version".into()));
        }
        let argv = shlex::split(template).filter(|a| !a.is_empty()).ok_or_else(|| {
            Error::Usage(format!("--argv {template:?}: unbalanced quotes or empty"))
        })?;
        if !argv.iter().any(|a| a.contains("{pdf}")) {
            return Err(Error::Usage(format!("--argv {template:?} never mentions {{pdf}}")));
        }
        Ok(CommandProvider {
            name,
            version: version.to_string(),
            template: template.to_string(),
            argv,
            format,
            timeout,
        })
    }
}

impl Provider for CommandProvider {
    fn id(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        "an external command, run once per PDF"
    }

    fn adapter_version(&self) -> u32 {
        ADAPTER_VERSION
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn model_digest(&self) -> Result<String> {
        Ok(self.version.clone())
    }

    fn config(&self) -> Value {
        json!({
            "argv": self.template,
            "output_format": self.format.as_str(),
            "version": self.version,
        })
    }

    fn load(&self) -> Result<Box<dyn Engine>> {
        Ok(Box::new(self.clone()))
    }
}

impl Engine for CommandProvider {
    fn run(&mut self, pdf: &[u8], pages: &PageSelection) -> std::result::Result<Doc, String> {
        self.run_on(pages, &mut |input| std::fs::write(input, pdf))
    }

    fn run_reader(
        &mut self,
        pdf: &mut dyn super::PdfRead,
        pages: &PageSelection,
    ) -> std::result::Result<Doc, String> {
        // The tool reads a file: the stored PDF is copied to it in pieces.
        self.run_on(pages, &mut |input| {
            let mut f = std::fs::File::create(input)?;
            std::io::copy(pdf, &mut f).map(drop)
        })
    }
}

impl CommandProvider {
    /// Runs the tool on the PDF that `write` puts at the input path.
    fn run_on(
        &mut self,
        pages: &PageSelection,
        write: &mut dyn FnMut(&Path) -> std::io::Result<()>,
    ) -> std::result::Result<Doc, String> {
        let dir = tempfile::Builder::new()
            .prefix("corpus-command-")
            .tempdir()
            .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        let input = dir.path().join("input.pdf");
        let outdir = dir.path().join("out");
        write(&input).map_err(|e| format!("writing {}: {e}", input.display()))?;
        std::fs::create_dir(&outdir).map_err(|e| format!("creating {}: {e}", outdir.display()))?;
        let pages = pages.to_string();
        let subst = |a: &str| {
            a.replace("{pdf}", &input.to_string_lossy())
                .replace("{outdir}", &outdir.to_string_lossy())
                .replace("{pages}", &pages)
        };
        let args: Vec<String> = self.argv.iter().map(|a| subst(a)).collect();
        let stdout_path = dir.path().join("stdout");
        let stderr_path = dir.path().join("stderr");
        let file = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
        let mut cmd = Command::new(&args[0]);
        cmd.args(&args[1..])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(file(&stdout_path)?)
            .stderr(file(&stderr_path)?);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| format!("cannot start {:?}: {e}", args[0]))?;
        let t0 = Instant::now();
        let mut nap = Duration::from_millis(2);
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if t0.elapsed() >= self.timeout => {
                    kill_group(&mut child);
                    return Err(format!(
                        "timed out after {} s: {} was killed",
                        self.timeout.as_secs_f64(),
                        args[0]
                    ));
                }
                Ok(None) => {
                    std::thread::sleep(nap);
                    nap = (nap * 2).min(Duration::from_millis(50));
                }
                Err(e) => return Err(format!("waiting for {}: {e}", args[0])),
            }
        };
        if !status.success() {
            let err = std::fs::read(&stderr_path).unwrap_or_default();
            let err = String::from_utf8_lossy(&err);
            let err = err.trim();
            let start = err.char_indices().rev().nth(STDERR_TAIL).map_or(0, |(i, _)| i);
            return Err(format!("{} exited with {status}; stderr: {}", args[0], &err[start..]));
        }
        let bytes = match first_output(&outdir, self.format) {
            Some(p) => std::fs::read(&p).map_err(|e| format!("reading {}: {e}", p.display()))?,
            None => {
                let out = std::fs::read(&stdout_path).unwrap_or_default();
                if out.iter().all(u8::is_ascii_whitespace) {
                    return Err(format!(
                        "{} wrote no {} file under {{outdir}} and nothing on stdout",
                        args[0],
                        self.format.as_str()
                    ));
                }
                out
            }
        };
        self.format.read(&bytes, 0).map(|p| p.doc).map_err(|e| format!("reading its output: {e}"))
    }
}

/// Kills the child's process group (the tool and anything it started), then the child.
///
/// The group is signalled with `kill(2)` on the negated group id, through rustix's safe
/// wrapper; the child was made the leader of its own group at spawn, so nothing else is hit.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The first file (by path) under `dir` with one of the format's endings.
fn first_output(dir: &Path, format: ImportFormat) -> Option<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = p.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase());
                if name.is_some_and(|n| format.extensions().iter().any(|x| n.ends_with(x))) {
                    found.push(p);
                }
            }
        }
    }
    found.sort();
    found.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(template: &str, format: ImportFormat, secs: f64) -> CommandProvider {
        CommandProvider::new("tool", "1.0", template, format, Duration::from_secs_f64(secs))
            .unwrap()
    }

    #[test]
    fn stdout_is_the_output_when_no_file_is_written() {
        let mut p = provider(
            "sh -c 'printf \"One.\\n\\nTwo.\\fThree.\"; test -f \"$0\"' {pdf}",
            ImportFormat::Text,
            10.0,
        );
        let doc = p.run(b"%PDF-1.4", &PageSelection::All).unwrap();
        let got: Vec<(u32, &str)> = doc.blocks.iter().map(|b| (b.page, b.text.as_str())).collect();
        assert_eq!(got, [(0, "One."), (0, "Two."), (1, "Three.")]);
    }

    #[test]
    fn a_file_in_outdir_wins_and_pages_are_substituted() {
        let mut p = provider(
            "sh -c 'echo \"# T\n\npages $1\" > \"$0/x.md\"' {outdir} {pages} {pdf}",
            ImportFormat::Markdown,
            10.0,
        );
        let pages = PageSelection::parse("2-3").unwrap();
        let doc = p.run(b"%PDF", &pages).unwrap();
        assert_eq!(doc.blocks[1].text, "pages 2-3");
    }

    #[test]
    fn failures_carry_status_and_stderr() {
        let mut p =
            provider("sh -c 'echo broken input >&2; exit 4' {pdf}", ImportFormat::Text, 10.0);
        let e = p.run(b"%PDF", &PageSelection::All).unwrap_err();
        assert!(e.contains("exit status: 4") && e.contains("broken input"), "{e}");
        let mut p = provider("true {pdf}", ImportFormat::Text, 10.0);
        let e = p.run(b"%PDF", &PageSelection::All).unwrap_err();
        assert!(e.contains("nothing on stdout"), "{e}");
        let mut p = provider("no-such-tool-here {pdf}", ImportFormat::Text, 10.0);
        assert!(p.run(b"%PDF", &PageSelection::All).unwrap_err().contains("cannot start"));
    }

    #[test]
    fn the_time_limit_kills_the_command() {
        let mut p = provider("sh -c 'sleep 30' {pdf}", ImportFormat::Text, 0.3);
        let t0 = Instant::now();
        let e = p.run(b"%PDF", &PageSelection::All).unwrap_err();
        assert!(e.starts_with("timed out after 0.3 s"), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn declarations_are_checked_and_enter_the_config() {
        let bad =
            |t: &str| CommandProvider::new("x", "1", t, ImportFormat::Text, Duration::from_secs(1));
        assert!(bad("tool --no-input").is_err());
        assert!(bad("tool '{pdf}").is_err());
        assert!(CommandProvider::new(
            "pdfium",
            "1",
            "t {pdf}",
            ImportFormat::Text,
            Duration::from_secs(1)
        )
        .is_err());
        let p = provider("t {pdf}", ImportFormat::Text, 1.0);
        assert_eq!(p.config()["argv"], "t {pdf}");
        assert_eq!(p.model_digest().unwrap(), "1.0");
        assert_eq!(p.version(), "1.0");
    }
}
