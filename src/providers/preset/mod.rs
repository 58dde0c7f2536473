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
use crate::formats::reply::ReplyFormat;
use crate::formats::ImportFormat;

/// The preset files compiled into this build: (file name under `presets/`, text). A test
/// checks that every file in `presets/` is listed.
pub const BUILTIN: &[(&str, &str)] = &[
    ("camelot-lattice.toml", include_str!("../../../presets/camelot-lattice.toml")),
    ("camelot-stream.toml", include_str!("../../../presets/camelot-stream.toml")),
    ("chandra.toml", include_str!("../../../presets/chandra.toml")),
    ("deepseek-ocr-2.toml", include_str!("../../../presets/deepseek-ocr-2.toml")),
    ("deepseek-ocr.toml", include_str!("../../../presets/deepseek-ocr.toml")),
    ("docling.toml", include_str!("../../../presets/docling.toml")),
    ("dots.ocr.toml", include_str!("../../../presets/dots.ocr.toml")),
    ("glm-ocr.toml", include_str!("../../../presets/glm-ocr.toml")),
    ("granite-docling.toml", include_str!("../../../presets/granite-docling.toml")),
    ("kreuzberg.toml", include_str!("../../../presets/kreuzberg.toml")),
    ("lightonocr-2.toml", include_str!("../../../presets/lightonocr-2.toml")),
    ("markitdown.toml", include_str!("../../../presets/markitdown.toml")),
    ("mineru-2.5.toml", include_str!("../../../presets/mineru-2.5.toml")),
    ("mineru.toml", include_str!("../../../presets/mineru.toml")),
    ("mutool.toml", include_str!("../../../presets/mutool.toml")),
    ("nanonets-ocr2.toml", include_str!("../../../presets/nanonets-ocr2.toml")),
    ("olmocr-2.toml", include_str!("../../../presets/olmocr-2.toml")),
    ("opendataloader.toml", include_str!("../../../presets/opendataloader.toml")),
    ("paddleocr-vl.toml", include_str!("../../../presets/paddleocr-vl.toml")),
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

/// A vision-language model behind an OpenAI-compatible endpoint (vLLM, SGLang), as its
/// authors run it: its own prompt, image size, sampling and reply format
/// (`docs/endpoints.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointRun {
    /// The model id the authors' server command serves (`rednote-hilab/dots.ocr`); `--model`
    /// overrides it.
    pub model: String,
    /// The authors' command that starts the server, shown by `corpus providers show`.
    pub server: String,
    /// The model's trigger prompt, verbatim (one-stage presets; two-stage presets name theirs
    /// per stage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// A system message sent before the prompt, where the model's code sends one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Where the prompt comes from: file, commit and repository.
    pub prompt_source: String,
    /// Whether the reply is read with the model's special tokens kept (`skip_special_tokens:
    /// false`), where its boxes are written in them (DeepSeek-OCR's `<|det|>`).
    #[serde(default)]
    pub keep_special_tokens: bool,
    /// Whether the prompt text goes before the image (`text-first`, as most chat templates
    /// in the authors' clients) or after it (`image-first`).
    #[serde(default)]
    pub order: PromptOrder,
    /// The frame of the boxes in the reply; absent where the reply has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boxes: Option<crate::formats::reply::BoxFrame>,
    /// How the page image is made.
    pub image: ImageSpec,
    /// Sampling parameters sent with every request.
    #[serde(default)]
    pub sampling: SamplingSpec,
    /// Prices, US dollars per million tokens, where the model has a published price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Price>,
    /// The GPU's price in US dollars per hour, where the model is self-hosted: without a token
    /// price, each output's cost is estimated from the GPU time its requests took
    /// (`--gpu-price` overrides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_price: Option<f64>,
    /// The two stages, for a model run layout-first (MinerU2.5, PaddleOCR-VL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_stage: Option<TwoStage>,
}

/// Whether the prompt text is sent before or after the image.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromptOrder {
    /// Image, then text.
    #[default]
    ImageFirst,
    /// Text, then image.
    TextFirst,
}

/// How a page image is made for a model: rendered at `dpi` (or to `longest_side` pixels),
/// then, where `factor` is given, resized as Qwen2-VL's `smart_resize` does (each side a
/// multiple of `factor`, the area between `min_pixels` and `max_pixels`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageSpec {
    /// Render at this resolution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpi: Option<f32>,
    /// Render so that the longest side is this many pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest_side: Option<u32>,
    /// `smart_resize`'s factor (28 for Qwen2-VL's 14-pixel patches merged 2 × 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factor: Option<u32>,
    /// `smart_resize`'s least area.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_pixels: Option<u64>,
    /// `smart_resize`'s greatest area.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pixels: Option<u64>,
    /// Exactly this width and height in pixels, whatever the page's shape (MinerU2.5's
    /// layout stage: 1036 × 1036).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[u32; 2]>,
}

/// Sampling parameters a preset sends (each overridable on the command line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamplingSpec {
    /// `temperature`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// `top_p`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// `max_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// `repetition_penalty` (vLLM's extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition_penalty: Option<f64>,
}

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Per million prompt (input) tokens.
    pub prompt: f64,
    /// Per million completion (output) tokens.
    pub completion: f64,
}

/// A model run layout-first: regions from a layout stage, then one request per region with
/// the prompt for its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwoStage {
    /// Where the regions come from.
    pub layout: LayoutSource,
    /// The layout stage's prompt, verbatim (`layout = "model"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_prompt: Option<String>,
    /// The layout stage's image (`layout = "model"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_image: Option<ImageSpec>,
    /// Why the layout comes from where it does, said plainly (`layout = "corpus-layout"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_note: Option<String>,
    /// The region prompt for text-like regions, verbatim.
    pub text_prompt: String,
    /// The region prompt for tables, verbatim.
    pub table_prompt: String,
    /// The region prompt for display formulas, verbatim.
    pub formula_prompt: String,
    /// The region prompt for charts, where the model has one (else charts are figures, not
    /// read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_prompt: Option<String>,
    /// How a table region's reply is written.
    pub table_reply: TableReply,
}

/// Where a two-stage model's regions come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayoutSource {
    /// The model itself, asked with `layout_prompt` (MinerU2.5).
    Model,
    /// corpus's own `layout` detector (where the model's layout detector ships in no
    /// registry package).
    CorpusLayout,
}

/// How a two-stage model writes a table region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableReply {
    /// OTSL tokens (`<fcel>`, `<ecel>`, `<lcel>`, `<ucel>`, `<xcel>`, `<nl>`).
    Otsl,
    /// An HTML `<table>`.
    Html,
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
    /// What installing it pulls and what it does not do, in a few words, for the `providers`
    /// listing (`torch + CUDA wheels, ~GBs; no table model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
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
    /// The model behind an endpoint, for a vision-language model preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<EndpointRun>,
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
    /// A model behind an OpenAI-compatible endpoint.
    Endpoint,
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
        if let Some(ep) = &p.endpoint {
            if p.python.is_some() || p.command.is_some() {
                return Err(bad("has [endpoint] and [python] or [command]".into()));
            }
            let reply = ReplyFormat::ALL.into_iter().find(|f| f.name() == p.output);
            let Some(reply) = reply else {
                let names: Vec<&str> = ReplyFormat::ALL.iter().map(|f| f.name()).collect();
                return Err(bad(format!(
                    "output {:?} is not a reply format; reply formats: {}",
                    p.output,
                    names.join(", ")
                )));
            };
            check_endpoint(ep, reply).map_err(bad)?;
            return Ok(p);
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
        if self.endpoint.is_some() {
            RunKind::Endpoint
        } else if self.python.is_some() {
            RunKind::Python
        } else {
            RunKind::Command
        }
    }

    /// The reply format of an endpoint preset (checked when the preset was read).
    pub(crate) fn reply_format(&self) -> Option<ReplyFormat> {
        self.endpoint.as_ref()?;
        ReplyFormat::ALL.into_iter().find(|f| f.name() == self.output)
    }

    /// The output format of a Python or command preset (checked when the preset was read).
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
            "endpoint": self.endpoint.as_ref().map(EndpointRun::decisive),
        });
        blake3::hash(super::key::canonical_json(&v).as_bytes()).to_hex().to_string()
    }
}

/// Checks an endpoint preset: a prompt for each stage, an image size, boxes where the reply
/// format has them.
fn check_endpoint(ep: &EndpointRun, reply: ReplyFormat) -> std::result::Result<(), String> {
    let image_ok = |i: &ImageSpec| i.dpi.is_some() || i.longest_side.is_some() || i.size.is_some();
    if !image_ok(&ep.image) {
        return Err("[endpoint.image] needs dpi, longest_side or size".into());
    }
    if ep.prompt_source.trim().is_empty() {
        return Err("[endpoint] prompt_source is empty: name the file and commit".into());
    }
    if ep.gpu_price.is_some_and(|p| !p.is_finite() || p <= 0.0) {
        return Err("[endpoint] gpu_price must be a positive number of US dollars per hour".into());
    }
    match (&ep.prompt, &ep.two_stage) {
        // An empty prompt: the image alone, as LightOnOCR-2's authors send it.
        (Some(_), None) => {}
        (None, Some(ts)) => {
            match ts.layout {
                LayoutSource::Model => {
                    if ts.layout_prompt.as_deref().is_none_or(|p| p.trim().is_empty()) {
                        return Err(
                            "[endpoint.two_stage] layout = \"model\" needs layout_prompt".into()
                        );
                    }
                }
                LayoutSource::CorpusLayout => {
                    if ts.layout_note.as_deref().is_none_or(|p| p.trim().is_empty()) {
                        return Err("[endpoint.two_stage] layout = \"corpus-layout\" needs a layout_note saying why".into());
                    }
                }
            }
            for (name, p) in [
                ("text", &ts.text_prompt),
                ("table", &ts.table_prompt),
                ("formula", &ts.formula_prompt),
            ] {
                if p.trim().is_empty() {
                    return Err(format!("[endpoint.two_stage] {name}_prompt is empty"));
                }
            }
        }
        (Some(_), Some(_)) => {
            return Err("[endpoint] has both prompt and [endpoint.two_stage]".into())
        }
        _ => return Err("[endpoint] needs a prompt (or [endpoint.two_stage])".into()),
    }
    if reply.has_boxes() && ep.boxes.is_none() && ep.two_stage.is_none() {
        return Err(format!(
            "{} replies carry boxes: say their frame in [endpoint] boxes",
            reply.name()
        ));
    }
    Ok(())
}

impl EndpointRun {
    /// What decides the replies (not the server command, the price or the prompt's source).
    fn decisive(&self) -> serde_json::Value {
        json!({
            "prompt": self.prompt, "system": self.system, "order": self.order,
            "keep_special_tokens": self.keep_special_tokens,
            "boxes": self.boxes, "image": self.image, "sampling": self.sampling,
            "two_stage": self.two_stage,
        })
    }
}

/// The normalised project name of a pip requirement (`PyMuPDF==1.2` → `pymupdf`,
/// `markitdown[pdf]==0.1` → `markitdown`).
pub(crate) fn requirement_name(req: &str) -> String {
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
pub(crate) fn user_dirs() -> Vec<PathBuf> {
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
pub(crate) fn load_all(reserved: &[&str]) -> (Vec<Preset>, Vec<Error>) {
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
