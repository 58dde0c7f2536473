//! A preset behind the [`Provider`] trait: a persistent Python worker per job slot, or an
//! external command per PDF.
//!
//! The Python worker (`driver.py`, compiled in) is started in the preset's environment the
//! first time its slot gets a document; it loads the preset's code once (imports, models) and
//! then parses one PDF per request, so a one-page PDF costs the parser's own time. A request
//! that runs over the time limit kills the worker's process group; a worker that dies
//! (a crash, `kill -9`) costs the document in flight, which is recorded as failed, and the
//! slot's next document starts a new worker. An output that is empty is a failure, never an
//! empty success.
//!
//! Cache key parts (see [`super`] and `providers::key`): id = the preset's id; adapter
//! version = its `adapter`; model digest = blake3 of the preset's digest with, for a Python
//! preset, the Python version and the environment's full `pip freeze`, or, for a command,
//! the tool's version line; config = the preset digest and the output format.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use super::env::{self, Env};
use super::{Preset, RunKind};
use crate::doc::Doc;
use crate::error::{Error, Result};
use crate::formats::ImportFormat;
use crate::process::WorkerProc;
use crate::providers::command::CommandProvider;
use crate::providers::{Engine, PageSelection, Provider};

/// The worker program, written next to each worker's preset code.
pub const DRIVER: &str = include_str!("driver.py");

/// How long a worker may take to load its preset's code (imports, models), at least.
const MIN_LOAD_TIME: Duration = Duration::from_secs(300);

/// A preset made runnable: its environment or tool found, its version known.
#[derive(Debug, Clone)]
pub struct PresetProvider {
    id: &'static str,
    description: &'static str,
    preset: Preset,
    version: String,
    model_digest: String,
    how: How,
}

#[derive(Debug, Clone)]
enum How {
    Python { python: PathBuf, timeout: Duration },
    Command(CommandProvider),
}

impl PresetProvider {
    /// Makes the preset runnable: checks its tools, installs its environment when it is
    /// missing (saying so through `say`), and reads the versions that enter the cache key.
    pub fn prepare(
        preset: &Preset,
        timeout: Duration,
        say: &mut dyn FnMut(&str),
    ) -> Result<PresetProvider> {
        let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
        let (id, description) = (leak(&preset.id), leak(&preset.description));
        match preset.kind() {
            RunKind::Python => {
                let (env, _) = env::ensure(preset, say)?.ok_or_else(|| {
                    Error::Usage(format!("preset {} has no [python] section", preset.id))
                })?;
                Ok(Self::python(preset, &env, timeout, id, description))
            }
            RunKind::Command => {
                env::check_tools(preset)?;
                // Invariant: a Command-kind preset has a [command] section.
                let cmd = preset.command.as_ref().expect("command preset");
                let version = tool_version(&preset.id, &cmd.version)?;
                let mut h = blake3::Hasher::new();
                h.update(preset.digest().as_bytes());
                h.update(b"\n");
                h.update(version.as_bytes());
                let runner =
                    CommandProvider::for_preset(id, &version, &cmd.argv, preset.format(), timeout)?;
                Ok(PresetProvider {
                    id,
                    description,
                    preset: preset.clone(),
                    version,
                    model_digest: h.finalize().to_hex().to_string(),
                    how: How::Command(runner),
                })
            }
            RunKind::Endpoint => Err(Error::Usage(format!(
                "preset {} is a model behind an endpoint: it runs with `corpus ocr --provider {} --base-url URL`, not in a worker",
                preset.id, preset.id
            ))),
        }
    }

    fn python(
        preset: &Preset,
        env: &Env,
        timeout: Duration,
        id: &'static str,
        description: &'static str,
    ) -> PresetProvider {
        // Invariant: a Python-kind preset has a [python] section.
        let py = preset.python.as_ref().expect("python preset");
        let version = env.version_of(&py.version_of).unwrap_or_else(|| "unknown".into());
        PresetProvider {
            id,
            description,
            preset: preset.clone(),
            version,
            model_digest: python_digest(preset, env),
            how: How::Python { python: env.python(), timeout },
        }
    }

    /// The preset.
    pub fn preset(&self) -> &Preset {
        &self.preset
    }
}

/// The model digest of a Python preset in an environment: the preset, the Python version,
/// the environment's freeze and the worker program.
pub fn python_digest(preset: &Preset, env: &Env) -> String {
    let mut h = blake3::Hasher::new();
    let driver = blake3::hash(DRIVER.as_bytes()).to_hex().to_string();
    for part in [preset.digest(), env.python.clone(), env.freeze_digest(), driver] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().to_hex().to_string()
}

/// The first line with a digit of what `argv` prints (stdout, then stderr).
fn tool_version(id: &str, argv: &[String]) -> Result<String> {
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .output()
        .map_err(|e| Error::Native(format!("{id}: cannot run {}: {e}", argv.join(" "))))?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .map(str::trim)
        .find(|l| l.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .ok_or_else(|| Error::Native(format!("{id}: {} printed no version", argv.join(" "))))
}

impl Provider for PresetProvider {
    fn id(&self) -> &'static str {
        self.id
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn adapter_version(&self) -> u32 {
        self.preset.adapter
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn model_digest(&self) -> Result<String> {
        Ok(self.model_digest.clone())
    }

    fn config(&self) -> Value {
        json!({"preset": self.preset.digest(), "output": self.preset.output})
    }

    fn load(&self) -> Result<Box<dyn Engine>> {
        match &self.how {
            How::Command(c) => c.load(),
            How::Python { python, timeout } => {
                let dir = tempfile::Builder::new()
                    .prefix("corpus-preset-")
                    .tempdir()
                    .map_err(|e| Error::io(std::env::temp_dir(), e))?;
                // Not named after the preset: a file `pypdf.py` would shadow the package it imports.
                let code = dir.path().join("corpus_preset.py");
                // Invariant: How::Python is made only from a preset with [python].
                let src = &self.preset.python.as_ref().expect("python preset").code;
                std::fs::write(&code, src).map_err(|e| Error::io(&code, e))?;
                let driver = dir.path().join("corpus_driver.py");
                std::fs::write(&driver, DRIVER).map_err(|e| Error::io(&driver, e))?;
                let mut engine = PythonEngine {
                    id: self.id,
                    python: python.clone(),
                    driver,
                    code,
                    format: self.preset.format(),
                    empty_ok: self.preset.empty_ok,
                    timeout: *timeout,
                    proc: None,
                    dir,
                    n: 0,
                    last_cpu_ms: None,
                };
                // Started now, so that code that cannot even load stops the run with its
                // error instead of being recorded as every document's failure.
                engine.worker().map_err(Error::Native)?;
                Ok(Box::new(engine))
            }
        }
    }
}

/// One job slot's Python worker.
struct PythonEngine {
    id: &'static str,
    python: PathBuf,
    driver: PathBuf,
    code: PathBuf,
    format: ImportFormat,
    empty_ok: bool,
    timeout: Duration,
    proc: Option<WorkerProc>,
    dir: tempfile::TempDir,
    n: u64,
    /// The CPU time the worker reported for the last document.
    last_cpu_ms: Option<u64>,
}

impl PythonEngine {
    /// The slot's worker, started (and waited for until its code is loaded) if needed.
    fn worker(&mut self) -> std::result::Result<&mut WorkerProc, String> {
        if self.proc.is_none() {
            let mut cmd = Command::new(&self.python);
            cmd.arg(&self.driver)
                .arg(&self.code)
                .current_dir(self.dir.path())
                .env("PYTHONUNBUFFERED", "1")
                .env("PYTHONDONTWRITEBYTECODE", "1");
            let mut w = WorkerProc::spawn_command(cmd, self.id)?;
            let greeting = w.recv(self.timeout.max(MIN_LOAD_TIME))?;
            let v: Value = serde_json::from_str(&greeting)
                .map_err(|_| format!("{}: unreadable worker greeting {greeting:?}", self.id))?;
            if v["ready"] != Value::Bool(true) {
                w.kill();
                // Reaped now, not left a zombie until corpus exits.
                w.close();
                return Err(format!(
                    "the preset's code failed to load: {}\n{}",
                    v["error"].as_str().unwrap_or("?"),
                    v["trace"].as_str().unwrap_or("")
                ));
            }
            self.proc = Some(w);
        }
        // Invariant: set just above.
        Ok(self.proc.as_mut().expect("worker started"))
    }

    fn parse(
        &mut self,
        pdf: &std::path::Path,
        pages: &PageSelection,
    ) -> std::result::Result<Doc, String> {
        self.n += 1;
        let workdir = self.dir.path().join(format!("w{}", self.n));
        std::fs::create_dir(&workdir).map_err(|e| format!("{}: {e}", workdir.display()))?;
        let pages = match pages {
            PageSelection::All => Value::Null,
            PageSelection::Pages(p) => json!(p),
        };
        let req = json!({"pdf": pdf, "pages": pages, "workdir": workdir}).to_string();
        let timeout = self.timeout;
        let answer = self.worker()?.request(&req, timeout);
        let _ = std::fs::remove_dir_all(&workdir);
        let line = match answer {
            Ok(l) => l,
            Err(gone) => {
                self.proc = None;
                return Err(gone);
            }
        };
        let v: Value = serde_json::from_str(&line).map_err(|_| {
            self.proc = None;
            format!(
                "unreadable reply from the {} worker: {:?}",
                self.id,
                line.chars().take(120).collect::<String>()
            )
        })?;
        self.last_cpu_ms = v["cpu_ms"].as_f64().map(|ms| ms.round() as u64);
        if v["ok"] != Value::Bool(true) {
            let err = v["error"].as_str().unwrap_or("unknown error");
            let trace = v["trace"].as_str().unwrap_or("").trim();
            return Err(format!("{err}\n{trace}"));
        }
        let out = v["output"].as_str().unwrap_or_default();
        if out.trim().is_empty() && !self.empty_ok {
            return Err(format!("{} returned no output", self.id));
        }
        self.format
            .read(out.as_bytes(), 0)
            .map(|p| p.doc)
            .map_err(|e| format!("reading its {} output: {e}", self.format.as_str()))
    }
}

impl PythonEngine {
    /// Puts the PDF that `write` writes at the slot's input path and parses it.
    fn parse_written(
        &mut self,
        pages: &PageSelection,
        write: &mut dyn FnMut(&std::path::Path) -> std::io::Result<()>,
    ) -> std::result::Result<Doc, String> {
        let input = self.dir.path().join("input.pdf");
        write(&input).map_err(|e| format!("writing {}: {e}", input.display()))?;
        let r = self.parse(&input, pages);
        let _ = std::fs::remove_file(&input);
        r
    }
}

impl Engine for PythonEngine {
    fn run(&mut self, pdf: &[u8], pages: &PageSelection) -> std::result::Result<Doc, String> {
        self.last_cpu_ms = None;
        self.parse_written(pages, &mut |input| std::fs::write(input, pdf))
    }

    fn outside_cpu_ms(&mut self) -> Option<u64> {
        self.last_cpu_ms.take()
    }

    fn run_reader(
        &mut self,
        pdf: &mut dyn crate::providers::PdfRead,
        pages: &PageSelection,
    ) -> std::result::Result<Doc, String> {
        self.parse_written(pages, &mut |input| {
            let mut f = std::fs::File::create(input)?;
            std::io::copy(pdf, &mut f).map(drop)
        })
    }
}

impl Drop for PythonEngine {
    fn drop(&mut self) {
        if let Some(w) = self.proc.take() {
            w.close();
        }
    }
}
