//! Parser presets: the parsers users compare (pymupdf4llm, pdfplumber, docling, …) as data
//! files, one per parser, so that adding a parser that writes a format corpus reads is one
//! file and no code. The format is documented in `docs/presets.md`.
//!
//! A preset is either a Python parser, run in a persistent worker inside its own pinned
//! virtual environment ([`mod@env`], [`run`]), or an external command such as poppler's
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
    /// The context the server command serves (its `--max-model-len`, else the model's own
    /// length): prompt, image and reply tokens together.
    pub context: u32,
    /// An upper bound of one request's prompt tokens, image tokens included (the derivation is
    /// said beside it in the preset). Without `max_tokens` in `[endpoint.sampling]`, corpus
    /// sends `max_tokens = context - prompt_tokens`; with it, the sum must fit the context.
    pub prompt_tokens: u32,
    /// `skip_special_tokens` as the authors' client sends it (`false` where the reply's boxes
    /// or layout are written in special tokens, DeepSeek-OCR's `<|det|>`); not sent if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_special_tokens: Option<bool>,
    /// The former spelling of `skip_special_tokens = false`, still read.
    #[serde(default, skip_serializing)]
    pub keep_special_tokens: Option<bool>,
    /// vLLM's per-request arguments for its custom logits processors (`vllm_xargs` in the
    /// request body: DeepSeek-OCR's `ngram_size`, MinerU's `no_repeat_ngram_size`); each value
    /// a string, a number or a list of them, as vLLM reads them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_xargs: Option<serde_json::Map<String, serde_json::Value>>,
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
    /// Render at a higher resolution where needed so that the page's shorter side is at least
    /// this many pixels (Chandra: `max(192, 1024 / shorter side × 72)` dpi).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_short_side: Option<u32>,
    /// Which rule fits the rendered size to `factor` and the pixel bounds (default
    /// `smart-resize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resize: Option<Resize>,
}

/// The rule that fits an image to a grid of `factor` pixels within pixel bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resize {
    /// Qwen2-VL's `smart_resize`: sides rounded to the grid, floored when too large, ceiled
    /// when too small.
    SmartResize,
    /// Chandra's `scale_to_fit`: scaled into the bounds, sides rounded to the grid, then one
    /// grid step taken off the side that keeps the aspect ratio best until the area fits.
    ScaleToFit,
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
    /// `top_k` (vLLM's extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
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
    pub layout: RegionSource,
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
pub enum RegionSource {
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
        if let Some(ep) = p.endpoint.as_mut() {
            match (ep.keep_special_tokens.take(), ep.skip_special_tokens) {
                (Some(keep), None) => ep.skip_special_tokens = Some(!keep),
                (Some(keep), Some(skip)) if keep == skip => {
                    return Err(bad(
                        "keep_special_tokens and skip_special_tokens say opposite things".into(),
                    ))
                }
                _ => {}
            }
        }
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
                RegionSource::Model => {
                    if ts.layout_prompt.as_deref().is_none_or(|p| p.trim().is_empty()) {
                        return Err(
                            "[endpoint.two_stage] layout = \"model\" needs layout_prompt".into()
                        );
                    }
                }
                RegionSource::CorpusLayout => {
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
    check_budget(ep, reply)?;
    if reply.has_boxes() && ep.boxes.is_none() && ep.two_stage.is_none() {
        return Err(format!(
            "{} replies carry boxes: say their frame in [endpoint] boxes",
            reply.name()
        ));
    }
    Ok(())
}

/// Checks the context arithmetic, the special tokens and `vllm_xargs` of an endpoint preset.
fn check_budget(ep: &EndpointRun, reply: ReplyFormat) -> std::result::Result<(), String> {
    if ep.prompt_tokens >= ep.context {
        return Err(format!(
            "[endpoint] prompt_tokens {} leaves nothing of the context {} for the reply",
            ep.prompt_tokens, ep.context
        ));
    }
    if let Some(m) = ep.sampling.max_tokens {
        if u64::from(m) + u64::from(ep.prompt_tokens) > u64::from(ep.context) {
            return Err(format!(
                "[endpoint.sampling] max_tokens {m} + prompt_tokens {} = {} exceeds the context {}: vLLM answers 400 (or cuts the reply at the context); send at most {}",
                ep.prompt_tokens,
                u64::from(m) + u64::from(ep.prompt_tokens),
                ep.context,
                ep.context - ep.prompt_tokens
            ));
        }
    }
    if let Some(at) = ep.server.find("--max-model-len") {
        let n = ep.server[at + "--max-model-len".len()..]
            .trim_start_matches([' ', '='])
            .split_whitespace()
            .next()
            .and_then(|t| t.parse::<u32>().ok());
        if n != Some(ep.context) {
            return Err(format!(
                "[endpoint] context {} is not the server command's --max-model-len ({})",
                ep.context,
                n.map_or("unreadable".to_string(), |n| n.to_string())
            ));
        }
    }
    let layout_in_tokens = ep.two_stage.as_ref().is_some_and(|t| t.layout == RegionSource::Model);
    let boxes_in_tokens = matches!(reply, ReplyFormat::DeepseekGrounding | ReplyFormat::DocTags);
    if (layout_in_tokens || boxes_in_tokens) && ep.skip_special_tokens != Some(false) {
        return Err(format!(
            "{} replies are written in special tokens: set skip_special_tokens = false",
            if layout_in_tokens { "layout" } else { reply.name() }
        ));
    }
    if let Some(x) = &ep.vllm_xargs {
        check_vllm_xargs(x)?;
    }
    Ok(())
}

impl EndpointRun {
    /// What decides the replies (not the server command, the price or the prompt's source).
    fn decisive(&self) -> serde_json::Value {
        json!({
            "prompt": self.prompt, "system": self.system, "order": self.order,
            "skip_special_tokens": self.skip_special_tokens,
            "vllm_xargs": self.vllm_xargs,
            "context": self.context, "prompt_tokens": self.prompt_tokens,
            "boxes": self.boxes, "image": self.image, "sampling": self.sampling,
            "two_stage": self.two_stage,
        })
    }

    /// The `max_tokens` corpus sends: the authors' value where the preset has one, else the
    /// context less the bound of the prompt's tokens (`docs/endpoints.md` §Context).
    pub fn max_tokens(&self) -> u32 {
        self.sampling.max_tokens.unwrap_or(self.context.saturating_sub(self.prompt_tokens))
    }

    /// Where [`Self::max_tokens`] comes from, said for `providers show`.
    pub fn max_tokens_source(&self) -> String {
        match self.sampling.max_tokens {
            Some(m) => format!(
                "the authors' value; {m} + {} prompt tokens at most = {} of the {} context",
                self.prompt_tokens,
                m + self.prompt_tokens,
                self.context
            ),
            None => format!(
                "context {} - {} prompt tokens at most (the authors set none)",
                self.context, self.prompt_tokens
            ),
        }
    }
}

/// Checks `vllm_xargs` as vLLM's request model reads it: each value a string, a number, or a
/// list of strings and numbers.
pub fn check_vllm_xargs(
    xargs: &serde_json::Map<String, serde_json::Value>,
) -> std::result::Result<(), String> {
    use serde_json::Value;
    // pydantic's lax mode reads a JSON boolean as an int (MinerU's client sends "debug": false).
    let scalar = |v: &Value| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_));
    for (k, v) in xargs {
        let ok = scalar(v) || v.as_array().is_some_and(|a| a.iter().all(scalar));
        if !ok {
            return Err(format!(
                "vllm_xargs.{k} is {v}: vLLM takes a string, a number, a boolean or a list of them"
            ));
        }
    }
    Ok(())
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

    /// blake3 of every prompt of every endpoint preset, as read from the authors' sources (each
    /// preset's prompt_source): a change to a prompt, even a space, fails here.
    const PROMPT_DIGESTS: &[(&str, &str, &str)] = &[
        ("chandra", "prompt", "04afddf0bc0bc421c4fe30e34edf43db8439164eda87682a6b28590e8cc6d92a"),
        (
            "deepseek-ocr-2",
            "prompt",
            "7ab4ac97e345a38f71160b6f9058799dc90950423e4d90e411e04ab833e48e2c",
        ),
        (
            "deepseek-ocr",
            "prompt",
            "7ab4ac97e345a38f71160b6f9058799dc90950423e4d90e411e04ab833e48e2c",
        ),
        ("dots.ocr", "prompt", "ed3f4d6ac32ba73b120137504f8a5cd174b65b206f4f5293a4a0c73dfd3262ee"),
        (
            "glm-ocr",
            "two_stage.text_prompt",
            "472642c0cce411b7d49cf151e2ecf8a2b94a91ad16750f5700399f3806204ed0",
        ),
        (
            "glm-ocr",
            "two_stage.table_prompt",
            "b9192da02c147eb545eb2cf3cbe6093d1a14bb8e7b701b1583a6868e7ee6ada7",
        ),
        (
            "glm-ocr",
            "two_stage.formula_prompt",
            "f6160524d2194b88ef4e9eacd0e1e6b3d31db1b78009480177f6880365ad7ba6",
        ),
        (
            "granite-docling",
            "prompt",
            "cf66fffe918f6362a364ab7b89b44d987aa6251396941de1a076b7e64d263a86",
        ),
        (
            "lightonocr-2",
            "prompt",
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
        ),
        (
            "mineru-2.5",
            "system",
            "b8c5de4f2d4c609746f1dc226580d4f9ddd4267c28d96a6edc1693a9095cb411",
        ),
        (
            "mineru-2.5",
            "two_stage.layout_prompt",
            "465f073eeb1308fb0ce85199f0b550a28799f3c95d56accb2b24268d64b44305",
        ),
        (
            "mineru-2.5",
            "two_stage.text_prompt",
            "983be8c3d87f1be2fb312d52171818e4765b4842b2d2189d86083cbb1d462425",
        ),
        (
            "mineru-2.5",
            "two_stage.table_prompt",
            "1b41aaf5f85ba01574dfe5459f0616fece3a71bf6b4b7549c5aa4ce268770b56",
        ),
        (
            "mineru-2.5",
            "two_stage.formula_prompt",
            "142381e038f5bffbbf83e762f883bee40c26939c7f29ad8c06f9364f3e409643",
        ),
        (
            "nanonets-ocr2",
            "system",
            "b8c5de4f2d4c609746f1dc226580d4f9ddd4267c28d96a6edc1693a9095cb411",
        ),
        (
            "nanonets-ocr2",
            "prompt",
            "1eddbfc9443849522e8310967d7c8b9b58c85a4757f638077d4816a63c38ea47",
        ),
        ("olmocr-2", "prompt", "6e05d8577d0b5038dede1014f34a3bdfae26a5d980fb1e22db4d40eacd9c1d72"),
        (
            "paddleocr-vl",
            "two_stage.text_prompt",
            "a8712f13aac8a0e5dc3fcd8f98ed29f0b8de47ae6d1c9c86bde2e7ee9b6e3aea",
        ),
        (
            "paddleocr-vl",
            "two_stage.table_prompt",
            "b9192da02c147eb545eb2cf3cbe6093d1a14bb8e7b701b1583a6868e7ee6ada7",
        ),
        (
            "paddleocr-vl",
            "two_stage.formula_prompt",
            "f6160524d2194b88ef4e9eacd0e1e6b3d31db1b78009480177f6880365ad7ba6",
        ),
        (
            "paddleocr-vl",
            "two_stage.chart_prompt",
            "9a6de6a376a3575c79c26d2622c9829617b8ca2be0ee56c2f669fd8e1a123ed1",
        ),
    ];

    #[test]
    fn endpoint_prompts_keep_their_digests() {
        let mut seen = Vec::new();
        for (file, text) in BUILTIN {
            let p = Preset::parse(text, file).unwrap();
            let Some(ep) = &p.endpoint else { continue };
            let mut prompts = vec![("system", ep.system.clone()), ("prompt", ep.prompt.clone())];
            if let Some(ts) = &ep.two_stage {
                prompts.extend([
                    ("two_stage.layout_prompt", ts.layout_prompt.clone()),
                    ("two_stage.text_prompt", Some(ts.text_prompt.clone())),
                    ("two_stage.table_prompt", Some(ts.table_prompt.clone())),
                    ("two_stage.formula_prompt", Some(ts.formula_prompt.clone())),
                    ("two_stage.chart_prompt", ts.chart_prompt.clone()),
                ]);
            }
            for (field, text) in prompts {
                if let Some(t) = text {
                    let d = blake3::hash(t.as_bytes()).to_hex().to_string();
                    seen.push((p.id.clone(), field.to_string(), d));
                }
            }
        }
        let want: Vec<(String, String, String)> = PROMPT_DIGESTS
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn max_tokens_must_fit_the_context() {
        let text = BUILTIN.iter().find(|(f, _)| *f == "deepseek-ocr.toml").unwrap().1;
        let p = Preset::parse(text, "d").unwrap();
        let ep = p.endpoint.as_ref().unwrap();
        assert_eq!((ep.context, ep.max_tokens()), (8192, 2048));
        // The authors' offline max_tokens beside the image: refused, naming the arithmetic.
        let e = Preset::parse(&text.replace("max_tokens = 2048", "max_tokens = 8192"), "d")
            .unwrap_err()
            .to_string();
        assert!(e.contains("8192 + prompt_tokens 1300 = 9492 exceeds the context 8192"), "{e}");
        // Without max_tokens: the context less the bound.
        let none = Preset::parse(&text.replace("max_tokens = 2048\n", ""), "d").unwrap();
        assert_eq!(none.endpoint.unwrap().max_tokens(), 8192 - 1300);
        // The context must be the command's --max-model-len where it has one.
        let olm = BUILTIN.iter().find(|(f, _)| *f == "olmocr-2.toml").unwrap().1;
        let e = Preset::parse(&olm.replace("context = 16384", "context = 32768"), "o")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not the server command's --max-model-len (16384)"), "{e}");
        // Boxes written in special tokens need skip_special_tokens = false.
        let e = Preset::parse(&text.replace("skip_special_tokens = false\n", ""), "d")
            .unwrap_err()
            .to_string();
        assert!(e.contains("skip_special_tokens = false"), "{e}");
        // The old spelling still reads.
        let old = text.replace("skip_special_tokens = false", "keep_special_tokens = true");
        let old = Preset::parse(&old, "d").unwrap();
        assert_eq!(old.endpoint.as_ref().unwrap().skip_special_tokens, Some(false));
        assert_eq!(old.digest(), p.digest());
        // vllm_xargs as vLLM types them.
        let e = Preset::parse(&text.replace("window_size = 90", "window_size = { a = 1 }"), "d")
            .unwrap_err()
            .to_string();
        assert!(e.contains("vllm_xargs.window_size"), "{e}");
    }
}
