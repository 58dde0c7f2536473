//! Parser presets: the parsers users compare (pymupdf4llm, pdfplumber, docling, …) as data
//! files, one per parser, so that adding a parser that writes a format corpus reads is one
//! file and no code. The format is documented in `docs/presets.md`.
//!
//! A preset is either a Python parser, run in a persistent worker inside its own pinned
//! virtual environment ([`env`], [`run`]), or an external command such as poppler's
//! `pdftotext`, run once per PDF by the `command` machinery. Presets come from `presets/` in
//! the repository (compiled in, [`BUILTIN`]) and from the user's folders
//! (`CORPUS_PRESETS`, else `${XDG_CONFIG_HOME:-~/.config}/corpus/presets`).
//!
//! Cache key: a preset's [`Preset::digest`] covers everything that decides its output (the
//! pins, the code it runs, the argv, the output format, the tools it needs, its adapter
//! number) and nothing that does not (its description, licence, home); the digest, the
//! environment's full `pip freeze` and the Python version, or a command's own version line,
//! make the model digest (see [`run::PresetProvider`]).

pub mod env;
pub mod run;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::{Error, Result};
use crate::formats::ImportFormat;

/// The preset files compiled into this build: (file name under `presets/`, text). A test
/// checks that every file in `presets/` is listed.
pub const BUILTIN: &[(&str, &str)] = &[
    ("camelot-lattice.toml", include_str!("../../../presets/camelot-lattice.toml")),
    ("camelot-stream.toml", include_str!("../../../presets/camelot-stream.toml")),
    ("docling.toml", include_str!("../../../presets/docling.toml")),
    ("kreuzberg.toml", include_str!("../../../presets/kreuzberg.toml")),
    ("markitdown.toml", include_str!("../../../presets/markitdown.toml")),
    ("mineru.toml", include_str!("../../../presets/mineru.toml")),
    ("mutool.toml", include_str!("../../../presets/mutool.toml")),
    ("opendataloader.toml", include_str!("../../../presets/opendataloader.toml")),
    ("pdf-oxide.toml", include_str!("../../../presets/pdf-oxide.toml")),
    ("pdfalto.toml", include_str!("../../../presets/pdfalto.toml")),
    ("pdfminer.toml", include_str!("../../../presets/pdfminer.toml")),
    ("pdfplumber.toml", include_str!("../../../presets/pdfplumber.toml")),
    ("pdftext.toml", include_str!("../../../presets/pdftext.toml")),
    ("pdftotext.toml", include_str!("../../../presets/pdftotext.toml")),
    ("pymupdf.toml", include_str!("../../../presets/pymupdf.toml")),
    ("pymupdf4llm.toml", include_str!("../../../presets/pymupdf4llm.toml")),
    ("pypdf.toml", include_str!("../../../presets/pypdf.toml")),
    ("rapidocr.toml", include_str!("../../../presets/rapidocr.toml")),
    ("tesseract.toml", include_str!("../../../presets/tesseract.toml")),
    ("unstructured.toml", include_str!("../../../presets/unstructured.toml")),
];

/// What a parser's output carries, as its preset declares it (shown by `corpus providers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Carries {
    /// Text.
    Text,
    /// Blocks (paragraphs, headings) rather than a flat text.
    Blocks,
    /// Boxes on the page.
    Boxes,
    /// Tables with their cells.
    Tables,
    /// Formulas as LaTeX.
    Formulas,
    /// Page breaks (outputs that run pages together do not).
    Pages,
}

/// A tool a preset needs on `PATH`, and the Debian package that provides it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// The program's name (`pdftotext`).
    pub name: String,
    /// The Debian package to install when it is missing (`poppler-utils`).
    pub debian: String,
}

/// A Python parser: pinned packages and the code the worker runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonRun {
    /// Requirements, each pinned with `==` (pip syntax, extras allowed).
    pub packages: Vec<String>,
    /// The package whose installed version is the provider version stored with each output.
    pub version_of: String,
    /// Python source defining `parse(pdf, pages, workdir)`: `pdf` is the PDF's path, `pages`
    /// `None` or a list of 1-based page numbers, `workdir` an empty folder of its own; it
    /// returns the output as a string (or bytes, or a JSON-serialisable value).
    pub code: String,
}

/// An external command, run once per PDF (see `providers::command`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandRun {
    /// The argv template: `{pdf}`, `{outdir}`, `{pages}` as for `--provider command`.
    pub argv: String,
    /// The command that prints the tool's version (its first line with a digit is kept).
    pub version: Vec<String>,
}

/// One preset file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    /// The provider id users type (`pymupdf4llm`).
    pub id: String,
    /// The parser's own name (`PyMuPDF4LLM`).
    pub name: String,
    /// Where the parser lives (its repository).
    pub home: String,
    /// The parser's licence (SPDX).
    pub licence: String,
    /// One line for listings.
    pub description: String,
    /// The format of what it returns: a `corpus import --format` name.
    pub output: String,
    /// What that output carries.
    pub carries: Vec<Carries>,
    /// Whether it pulls a heavy stack (torch): run by the benchmark, not by CI.
    #[serde(default)]
    pub heavy: bool,
    /// What it needs that no package registry gives (model weights), said plainly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<String>,
    /// Whether an empty output is a result (a table extractor that found no table on the
    /// page) rather than a failure; by default an empty output is recorded as a failure.
    #[serde(default)]
    pub empty_ok: bool,
    /// Bump when the preset's code changes what it returns without its text changing.
    #[serde(default = "one")]
    pub adapter: u32,
    /// Tools that must be on `PATH`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// The Python parser, for a preset run by a Python worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<PythonRun>,
    /// The command, for a preset run as an external command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRun>,
    /// Where the preset was read from (`presets/pypdf.toml`, or a user file's path).
    #[serde(skip)]
    pub source: String,
}

fn one() -> u32 {
    1
}

/// How a preset runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// A persistent Python worker in the preset's own environment.
    Python,
    /// An external command per PDF.
    Command,
}

impl Preset {
    /// Parses and checks one preset file; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Preset> {
        let bad = |msg: String| Error::Usage(format!("preset {source}: {msg}"));
        let mut p: Preset = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        p.source = source.to_string();
        if p.id.is_empty()
            || !p.id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(bad(format!("id {:?} must be letters, digits, '-', '_' or '.'", p.id)));
        }
        ImportFormat::parse(&p.output).map_err(|e| bad(format!("output: {e}")))?;
        match (&p.python, &p.command) {
            (Some(py), None) => {
                if py.packages.is_empty() {
                    return Err(bad("[python] packages is empty".into()));
                }
                for pkg in &py.packages {
                    if !pkg.contains("==") {
                        return Err(bad(format!("package {pkg:?} is not pinned with ==")));
                    }
                }
                if !py.packages.iter().any(|pkg| requirement_name(pkg) == norm(&py.version_of)) {
                    return Err(bad(format!(
                        "version_of {:?} is not one of its packages",
                        py.version_of
                    )));
                }
                if !py.code.contains("def parse(") {
                    return Err(bad(
                        "[python] code does not define parse(pdf, pages, workdir)".into()
                    ));
                }
            }
            (None, Some(cmd)) => {
                if !cmd.argv.contains("{pdf}") {
                    return Err(bad("[command] argv never mentions {pdf}".into()));
                }
                if cmd.version.is_empty() {
                    return Err(bad("[command] version is empty".into()));
                }
            }
            (Some(_), Some(_)) => return Err(bad("has both [python] and [command]".into())),
            (None, None) => return Err(bad("has neither [python] nor [command]".into())),
        }
        Ok(p)
    }

    /// How it runs.
    pub fn kind(&self) -> RunKind {
        if self.python.is_some() {
            RunKind::Python
        } else {
            RunKind::Command
        }
    }

    /// The output format (checked when the preset was read).
    pub fn format(&self) -> ImportFormat {
        // Invariant: `parse` rejected a preset whose output is not a format name.
        ImportFormat::parse(&self.output).expect("checked by Preset::parse")
    }

    /// blake3 over what decides the preset's output (canonical JSON): part of the cache key.
    pub fn digest(&self) -> String {
        let v = json!({
            "id": self.id,
            "adapter": self.adapter,
            "output": self.output,
            "empty_ok": self.empty_ok,
            "tools": self.tools,
            "python": self.python,
            "command": self.command,
        });
        blake3::hash(super::key::canonical_json(&v).as_bytes()).to_hex().to_string()
    }
}

/// The normalised project name of a pip requirement (`PyMuPDF==1.2` → `pymupdf`,
/// `markitdown[pdf]==0.1` → `markitdown`).
pub fn requirement_name(req: &str) -> String {
    let end = req.find(|c: char| "=<>!~[; ".contains(c)).unwrap_or(req.len());
    norm(&req[..end])
}

/// PEP 503 normalisation: lower case, runs of `-`, `_`, `.` as one `-`.
pub fn norm(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The user's preset folders: `CORPUS_PRESETS` (folders separated by `:`), else
/// `${XDG_CONFIG_HOME:-$HOME/.config}/corpus/presets`.
pub fn user_dirs() -> Vec<PathBuf> {
    if let Some(v) = std::env::var_os("CORPUS_PRESETS") {
        return std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect();
    }
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("XDG_CONFIG_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".config")))
        .map(|c| vec![c.join("corpus").join("presets")])
        .unwrap_or_default()
}

/// Every preset: the built-in ones, then the user's, with an error for each file that could
/// not be used (it names the file). A user preset may not reuse a built-in id or another
/// user preset's id: two presets under one id would mix their outputs.
pub fn load_all(reserved: &[&str]) -> (Vec<Preset>, Vec<Error>) {
    let mut out: Vec<Preset> = Vec::new();
    let mut errors = Vec::new();
    for (file, text) in BUILTIN {
        match Preset::parse(text, &format!("presets/{file}")) {
            Ok(p) => out.push(p),
            Err(e) => errors.push(e),
        }
    }
    for dir in user_dirs() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for f in files {
            match read_user(&f) {
                Ok(p) => {
                    if reserved.contains(&p.id.as_str()) {
                        errors.push(Error::Usage(format!(
                            "preset {}: id {:?} is a built-in provider's",
                            f.display(),
                            p.id
                        )));
                    } else if let Some(o) = out.iter().find(|o| o.id == p.id) {
                        errors.push(Error::Usage(format!(
                            "preset {}: id {:?} is already taken by {}",
                            f.display(),
                            p.id,
                            o.source
                        )));
                    } else {
                        out.push(p);
                    }
                }
                Err(e) => errors.push(e),
            }
        }
    }
    (out, errors)
}

fn read_user(path: &Path) -> Result<Preset> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    Preset::parse(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_in_presets_is_compiled_in_and_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("presets");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let listed: Vec<String> = BUILTIN.iter().map(|(f, _)| f.to_string()).collect();
        assert_eq!(on_disk, listed, "presets/ and BUILTIN differ");
        let mut ids = Vec::new();
        for (file, text) in BUILTIN {
            let p = Preset::parse(text, file).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(format!("{}.toml", p.id), *file, "a preset's file is named by its id");
            ids.push(p.id);
        }
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n);
    }

    const MINIMAL: &str = r#"
id = "x"
name = "X"
home = "https://example.org/x"
licence = "MIT"
description = "d"
output = "text"
carries = ["text"]
[python]
packages = ["Some_Pkg==1.0", "other[extra]==2"]
version_of = "some-pkg"
code = "def parse(pdf, pages, workdir):\n    return ''\n"
"#;

    #[test]
    fn presets_are_checked_with_the_file_named() {
        let p = Preset::parse(MINIMAL, "a.toml").unwrap();
        assert_eq!(p.kind(), RunKind::Python);
        assert_eq!(p.format(), ImportFormat::Text);
        let err = |t: String| Preset::parse(&t, "bad.toml").unwrap_err().to_string();
        let e = err(MINIMAL.replace("\"text\"\ncarries", "\"nope\"\ncarries"));
        assert!(e.contains("bad.toml") && e.contains("unknown format"), "{e}");
        let e = err(MINIMAL.replace("Some_Pkg==1.0", "Some_Pkg>=1.0"));
        assert!(e.contains("not pinned"), "{e}");
        let e = err(MINIMAL.replace("version_of = \"some-pkg\"", "version_of = \"zzz\""));
        assert!(e.contains("version_of"), "{e}");
        let e = err(MINIMAL.replace("licence", "license"));
        assert!(e.contains("unknown field"), "{e}");
        let e = err(MINIMAL.replace("id = \"x\"", "id = \"a b\""));
        assert!(e.contains("must be letters"), "{e}");
        let e = err(format!("{MINIMAL}\n[command]\nargv = \"t {{pdf}}\"\nversion = [\"t\"]\n"));
        assert!(e.contains("both"), "{e}");
    }

    #[test]
    fn the_digest_follows_what_decides_the_output_only() {
        let p = Preset::parse(MINIMAL, "a.toml").unwrap();
        let same =
            Preset::parse(&MINIMAL.replace("description = \"d\"", "description = \"e\""), "b")
                .unwrap();
        assert_eq!(p.digest(), same.digest());
        let pinned =
            Preset::parse(&MINIMAL.replace("Some_Pkg==1.0", "Some_Pkg==1.1"), "c").unwrap();
        assert_ne!(p.digest(), pinned.digest());
        let code = Preset::parse(&MINIMAL.replace("return ''", "return ' '"), "d").unwrap();
        assert_ne!(p.digest(), code.digest());
    }

    #[test]
    fn requirement_names_are_normalised() {
        assert_eq!(requirement_name("PyMuPDF==1.2"), "pymupdf");
        assert_eq!(requirement_name("markitdown[pdf]==0.1.9"), "markitdown");
        assert_eq!(requirement_name("pdfminer.six==20260107"), "pdfminer-six");
        assert_eq!(norm("Foo__Bar.baz"), "foo-bar-baz");
    }
}
