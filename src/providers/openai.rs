//! The `openai` provider: any vision-language model behind an OpenAI-compatible endpoint
//! (vLLM, SGLang, OpenRouter, OpenAI) asked with a generic prompt (`--prompt olmocr|markdown|
//! FILE`) and read as Markdown. It runs on the endpoint machinery ([`super::endpoint`]); the
//! models with a format of their own have presets instead (`presets/*.toml`, `[endpoint]`).
//!
//! Pages are rendered by pdfium at the longest side the prompt preset names (`olmocr`: 1288
//! px, as olmOCR's pipeline renders; `markdown`: 1600 px) and sent one request per page as a
//! base64 PNG `image_url` after the prompt text. The output's config is the prompt's name and
//! digest, the render settings and the sampling parameters; its model digest covers the model
//! id and the revision the server reports. Rules: `docs/judge.md` §The openai provider and
//! `docs/endpoints.md`.

use super::endpoint::Endpoint;
use super::preset::{ImageSpec, PromptOrder, SamplingSpec};
use crate::error::{Error, Result};
use crate::formats::reply::ReplyFormat;

/// The provider id.
pub const ID: &str = "openai";

/// Bump when the same replies would give a different Doc (2: a reply cut by the token limit
/// loses its repeated tail, `formats::reply::trim_repetition`).
pub const ADAPTER_VERSION: u32 = 2;

/// A prompt preset: the text sent with each page and the resolution it expects.
#[derive(Debug, Clone, PartialEq)]
pub struct Preset {
    /// `olmocr`, `markdown`, or the file's name.
    pub name: String,
    /// The prompt text.
    pub text: String,
    /// The rendered page's longest side, in pixels.
    pub longest_side: u32,
}

impl Preset {
    /// `olmocr`, `markdown`, or a path to a prompt file (rendered at 1600 px unless told).
    pub fn parse(s: &str) -> Result<Preset> {
        let (name, text, longest_side) = match s {
            "olmocr" => ("olmocr-v1", include_str!("../../prompts/ocr/olmocr-v1.txt"), 1288),
            "markdown" => ("markdown-v1", include_str!("../../prompts/ocr/markdown-v1.txt"), 1600),
            path => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| Error::Io { path: path.into(), source: e })?;
                if text.trim().is_empty() {
                    return Err(Error::BadInput {
                        path: path.into(),
                        msg: "the prompt file is empty".into(),
                    });
                }
                return Ok(Preset { name: path.to_string(), text, longest_side: 1600 });
            }
        };
        Ok(Preset { name: name.into(), text: text.into(), longest_side })
    }

    /// blake3 of the prompt text.
    pub fn digest(&self) -> String {
        blake3::hash(self.text.as_bytes()).to_hex().to_string()
    }
}

impl Preset {
    /// The endpoint this prompt preset runs as: the prompt text before the page image, the
    /// page at the preset's longest side, Markdown replies (olmOCR's with their front matter).
    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            id: ID.to_string(),
            adapter: ADAPTER_VERSION,
            prompt: Some((self.name.clone(), self.text.clone())),
            system: None,
            order: PromptOrder::TextFirst,
            skip_special_tokens: None,
            vllm_xargs: None,
            context: None,
            max_tokens: None,
            image: ImageSpec { longest_side: Some(self.longest_side), ..ImageSpec::default() },
            reply: if self.name == "olmocr-v1" {
                ReplyFormat::OlmocrMarkdown
            } else {
                ReplyFormat::Markdown
            },
            boxes: None,
            two_stage: None,
            price: None,
            gpu_price: None,
            preset_digest: None,
            sampling: SamplingSpec::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_name_their_resolution_and_a_file_is_read() {
        assert_eq!(Preset::parse("olmocr").unwrap().longest_side, 1288);
        assert_eq!(Preset::parse("markdown").unwrap().name, "markdown-v1");
        assert_eq!(Preset::parse("olmocr").unwrap().endpoint().reply, ReplyFormat::OlmocrMarkdown);
        assert_eq!(Preset::parse("markdown").unwrap().endpoint().order, PromptOrder::TextFirst);
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("p.txt");
        std::fs::write(&p, "Read the page.").unwrap();
        let mine = Preset::parse(p.to_str().unwrap()).unwrap();
        assert_eq!(mine.text, "Read the page.");
        assert_ne!(mine.digest(), Preset::parse("markdown").unwrap().digest());
        let e = Preset::parse("/nonexistent/prompt.txt").unwrap_err().to_string();
        assert!(e.contains("/nonexistent/prompt.txt"), "{e}");
    }
}
