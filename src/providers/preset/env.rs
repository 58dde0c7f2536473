//! Each Python preset's own virtual environment, made by `python3 -m venv` and `pip install`
//! of its pinned packages under the user cache, and the tools a preset needs on `PATH`.
//!
//! - Where: `${CORPUS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/corpus}/envs/py-<key>`, the key
//!   being blake3 of the Python version and the pinned requirements: presets with the same
//!   pins share one environment (camelot's two flavours), and a new pin gets a new one.
//! - Complete or absent: the marker `corpus-env.json` (requirements, Python version, the full
//!   `pip freeze`) is written last, by rename. A folder without it is a half-made environment
//!   (an install that was killed) and is removed and made again, never used. A lock file
//!   beside the folder keeps two installs of the same environment apart.
//! - Offline: an environment with its marker needs no network. Without the package registry
//!   the error names the requirement pip could not get.
//! - The Python is `CORPUS_PYTHON`, else `python3` on `PATH`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::{Preset, Tool};
use crate::error::{Error, Result};

/// The marker file of a complete environment.
pub const MARKER: &str = "corpus-env.json";

/// An installed environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Env {
    /// Its folder.
    #[serde(skip)]
    pub dir: PathBuf,
    /// The requirements it was made from, as the preset pins them.
    pub packages: Vec<String>,
    /// The Python version (`3.11.7`).
    pub python: String,
    /// `pip freeze` of the finished environment: every package's resolved version.
    pub freeze: String,
    /// What pip downloaded to make it, bytes (as pip reported each file; absent in
    /// environments made before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downloaded_bytes: Option<u64>,
    /// Its size on disk, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_bytes: Option<u64>,
}

impl Env {
    /// The environment's Python.
    pub fn python(&self) -> PathBuf {
        self.dir.join("bin").join("python")
    }

    /// The installed version of a package (PEP 503 name), from the freeze.
    pub fn version_of(&self, name: &str) -> Option<String> {
        let want = super::norm(name);
        self.freeze.lines().find_map(|l| {
            let (n, v) = l.split_once("==")?;
            (super::norm(n) == want).then(|| v.trim().to_string())
        })
    }

    /// blake3 of the freeze: the resolved versions of everything installed.
    pub fn freeze_digest(&self) -> String {
        blake3::hash(self.freeze.as_bytes()).to_hex().to_string()
    }
}

/// The base Python: `CORPUS_PYTHON`, else `python3`.
pub(crate) fn base_python() -> PathBuf {
    std::env::var_os("CORPUS_PYTHON")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// The base Python's version (`3.11.7`), asked once per process.
pub fn python_version() -> Result<String> {
    static VERSION: std::sync::OnceLock<std::result::Result<String, String>> =
        std::sync::OnceLock::new();
    VERSION
        .get_or_init(|| ask_python_version().map_err(|e| e.to_string()))
        .clone()
        .map_err(Error::Native)
}

fn ask_python_version() -> Result<String> {
    let py = base_python();
    let out = Command::new(&py)
        .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
        .output()
        .map_err(|e| {
            Error::Native(format!(
                "cannot run {} ({e}); Python presets need Python 3 with venv and pip \
                 (Debian: apt-get install python3-venv), or CORPUS_PYTHON set to one",
                py.display()
            ))
        })?;
    if !out.status.success() {
        return Err(Error::Native(format!("{} failed: {}", py.display(), tail(&out.stderr))));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The folder environments live in.
pub fn root() -> PathBuf {
    crate::paths::cache_dir().unwrap_or_else(|| PathBuf::from(".corpus-cache")).join("envs")
}

/// The folder of the environment for these requirements under this Python.
pub fn dir_for(packages: &[String], python: &str) -> PathBuf {
    let mut h = blake3::Hasher::new();
    h.update(python.as_bytes());
    for p in packages {
        h.update(b"\n");
        h.update(p.as_bytes());
    }
    root().join(format!("py-{}", &h.finalize().to_hex()[..16]))
}

/// The preset's environment if it is installed and complete.
pub fn locate(preset: &Preset) -> Result<Option<Env>> {
    let Some(py) = &preset.python else { return Ok(None) };
    let dir = dir_for(&py.packages, &python_version()?);
    read_marker(&dir)
}

fn read_marker(dir: &Path) -> Result<Option<Env>> {
    let marker = dir.join(MARKER);
    let text = match std::fs::read_to_string(&marker) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&marker, e)),
    };
    let mut env: Env = serde_json::from_str(&text)
        .map_err(|e| Error::Usage(format!("{}: unreadable ({e}); delete it", marker.display())))?;
    env.dir = dir.to_path_buf();
    Ok(Some(env))
}

/// Where a missing tool comes from: the error for the first tool not on `PATH`.
pub fn check_tools(preset: &Preset) -> Result<()> {
    for Tool { name, debian } in &preset.tools {
        if which(name).is_none() {
            return Err(Error::Native(format!(
                "{} needs `{name}`, which is not on PATH; install Debian's {debian} \
                 (apt-get install {debian})",
                preset.id
            )));
        }
    }
    Ok(())
}

/// The first executable called `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| {
        use std::os::unix::fs::PermissionsExt;
        p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// Makes the preset's environment if it is not there (saying what it does through `say`),
/// and returns it with whether it was made now. A preset without `[python]` has none.
pub(crate) fn ensure(preset: &Preset, say: &mut dyn FnMut(&str)) -> Result<Option<(Env, bool)>> {
    check_tools(preset)?;
    let Some(py) = &preset.python else { return Ok(None) };
    let python = python_version()?;
    let dir = dir_for(&py.packages, &python);
    if let Some(env) = read_marker(&dir)? {
        return Ok(Some((env, false)));
    }
    std::fs::create_dir_all(root()).map_err(|e| Error::io(root(), e))?;
    let lock_path = dir.with_extension("lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| Error::io(&lock_path, e.into()))?;
    // Another process may have finished it while this one waited for the lock.
    if let Some(env) = read_marker(&dir)? {
        return Ok(Some((env, false)));
    }
    if dir.exists() {
        say(&format!("removing a half-made environment at {}", dir.display()));
        std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    }
    let made = make(preset, &py.packages, &python, &dir, say);
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let env = made?;
    Ok(Some((env, true)))
}

fn make(
    preset: &Preset,
    packages: &[String],
    python: &str,
    dir: &Path,
    say: &mut dyn FnMut(&str),
) -> Result<Env> {
    say(&format!("creating a Python {python} environment at {}", dir.display()));
    let base = base_python();
    let out = Command::new(&base)
        .args(["-m", "venv"])
        .arg(dir)
        .output()
        .map_err(|e| Error::Native(format!("cannot run {}: {e}", base.display())))?;
    if !out.status.success() {
        return Err(Error::Native(format!(
            "{} -m venv failed (Debian: apt-get install python3-venv): {}",
            base.display(),
            tail(&out.stderr)
        )));
    }
    let env_py = dir.join("bin").join("python");
    say(&format!("installing {}", packages.join(" ")));
    let mut child = Command::new(&env_py)
        .args(["-m", "pip", "install", "--disable-pip-version-check", "--no-input"])
        .args(["--progress-bar", "off"])
        .args(packages)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Native(format!("cannot run {}: {e}", env_py.display())))?;
    let mut stderr = child.stderr.take().expect("piped");
    let err_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let mut log = String::new();
    let mut downloaded = 0u64;
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let l = line.trim();
            if l.starts_with("Downloading") {
                downloaded += pip_file_size(l).unwrap_or(0);
                say(&format!("{l}: {} downloaded so far", human_bytes(downloaded)));
            } else if l.starts_with("Collecting")
                || l.starts_with("Installing")
                || l.starts_with("Successfully")
            {
                say(l);
            }
            log.push_str(&line);
            log.push('\n');
        }
    }
    let status = child.wait().map_err(|e| Error::Native(format!("pip: {e}")))?;
    let err = err_thread.join().unwrap_or_default();
    if !status.success() {
        let err = String::from_utf8_lossy(&err);
        return Err(Error::Native(pip_failure(&preset.id, packages, &err)));
    }
    let out = Command::new(&env_py)
        .args(["-m", "pip", "freeze", "--disable-pip-version-check"])
        .output()
        .map_err(|e| Error::Native(format!("pip freeze: {e}")))?;
    if !out.status.success() {
        return Err(Error::Native(format!("pip freeze failed: {}", tail(&out.stderr))));
    }
    let mut lines: Vec<&str> =
        std::str::from_utf8(&out.stdout).unwrap_or_default().lines().map(str::trim).collect();
    lines.retain(|l| !l.is_empty());
    lines.sort_unstable();
    let env = Env {
        dir: dir.to_path_buf(),
        packages: packages.to_vec(),
        python: python.to_string(),
        freeze: lines.join("\n") + "\n",
        downloaded_bytes: Some(downloaded),
        disk_bytes: Some(disk_size(dir)),
    };
    let tmp = dir.join(format!("{MARKER}.tmp"));
    let text = serde_json::to_string_pretty(&env).map_err(|e| Error::Native(e.to_string()))?;
    std::fs::write(&tmp, text).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, dir.join(MARKER)).map_err(|e| Error::io(dir.join(MARKER), e))?;
    say(&format!(
        "{}: environment ready ({} packages; {} downloaded, {} on disk)",
        preset.id,
        env.freeze.lines().count(),
        human_bytes(downloaded),
        human_bytes(env.disk_bytes.unwrap_or(0))
    ));
    Ok(env)
}

/// The size pip gives a file it downloads: `Downloading torch-2.5.1-….whl (906.4 MB)`.
fn pip_file_size(line: &str) -> Option<u64> {
    let inner = line.trim_end().strip_suffix(')')?;
    let (_, size) = inner.rsplit_once('(')?;
    let (n, unit) = size.trim().split_once(' ')?;
    let n: f64 = n.parse().ok()?;
    let scale = match unit {
        "bytes" => 1.0,
        "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => return None,
    };
    Some((n * scale).round() as u64)
}

/// Bytes as pip writes them (decimal units): `906.4 MB`.
pub fn human_bytes(b: u64) -> String {
    match b {
        0..1_000 => format!("{b} bytes"),
        1_000..1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        _ => format!("{:.1} GB", b as f64 / 1e9),
    }
}

/// The bytes of the regular files under `dir` (links not followed).
fn disk_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => disk_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// The message for a failed `pip install`: the requirement pip could not get, when it says
/// which, and the end of what it printed.
fn pip_failure(id: &str, packages: &[String], stderr: &str) -> String {
    let missing = stderr.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("ERROR: No matching distribution found for ")
            .or_else(|| {
                l.strip_prefix("ERROR: Could not find a version that satisfies the requirement ")
                    .map(|r| r.split(" (").next().unwrap_or(r))
            })
            .map(str::to_string)
    });
    let end = tail(stderr.as_bytes());
    match missing {
        Some(req) => format!(
            "{id}: could not get {req} from the package registry (is it reachable, and is the pin \
             right?); pip said: {end}"
        ),
        None => format!("{id}: pip install {} failed: {end}", packages.join(" ")),
    }
}

fn tail(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(8)..].join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pip_download_sizes_are_read_and_written_as_pip_does() {
        let l = "Downloading torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl (906.4 MB)";
        assert_eq!(pip_file_size(l), Some(906_400_000));
        assert_eq!(pip_file_size("Downloading a-1.0-py3-none-any.whl (9.8 kB)"), Some(9_800));
        assert_eq!(pip_file_size("Downloading a.tar.gz (512 bytes)"), Some(512));
        assert_eq!(pip_file_size("Downloading a.whl"), None);
        assert_eq!(human_bytes(906_400_000), "906.4 MB");
        assert_eq!(human_bytes(8_100_000_000), "8.1 GB");
        assert_eq!(human_bytes(999), "999 bytes");
    }

    #[test]
    fn pip_failures_name_the_requirement() {
        let e = pip_failure(
            "x",
            &["nope==1".into()],
            "ERROR: Could not find a version that satisfies the requirement nope==1 (from versions: none)\nERROR: No matching distribution found for nope==1\n",
        );
        assert!(e.starts_with("x: could not get nope==1 from the package registry"), "{e}");
        let e = pip_failure("x", &["a==1".into()], "some other failure\n");
        assert!(e.contains("pip install a==1 failed: some other failure"), "{e}");
    }

    #[test]
    fn versions_come_from_the_freeze() {
        let env = Env {
            dir: PathBuf::new(),
            packages: vec![],
            python: "3".into(),
            freeze: "PyMuPDF==2.0\npdfminer.six==20260107\n".into(),
            downloaded_bytes: None,
            disk_bytes: None,
        };
        assert_eq!(env.version_of("pymupdf").as_deref(), Some("2.0"));
        assert_eq!(env.version_of("pdfminer-six").as_deref(), Some("20260107"));
        assert_eq!(env.version_of("nope"), None);
    }

    #[test]
    fn environments_are_keyed_by_pins_and_python() {
        let a = dir_for(&["a==1".into()], "3.11.7");
        assert_eq!(a, dir_for(&["a==1".into()], "3.11.7"));
        assert_ne!(a, dir_for(&["a==2".into()], "3.11.7"));
        assert_ne!(a, dir_for(&["a==1".into()], "3.12.0"));
    }
}
