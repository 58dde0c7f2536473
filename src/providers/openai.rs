//! The `openai` provider: a vision-language model behind an OpenAI-compatible endpoint (vLLM,
//! SGLang, OpenRouter, OpenAI) reads each page image and answers with the page as Markdown.
//!
//! Pages are rendered by pdfium at the longest side the prompt preset names (`olmocr`: 1288
//! px, as olmOCR's pipeline renders; `markdown`: 1600 px), sent one request per page as a
//! base64 PNG `image_url` after the prompt text, and each reply is stored as it arrives
//! (`llm_replies`, by a page key), so a run that is interrupted and started again sends only
//! the pages it has no reply for. A document whose pages all have replies is read back into
//! a [`Doc`] page by page through the Markdown reader ([`crate::formats::markdown`]; olmOCR's
//! front matter is removed first) and stored as an ordinary output; a document with a page
//! that failed is stored as a failed output naming each failed page, and `--retry-errors`
//! re-sends only those pages. Rules: `docs/judge.md` §The openai provider.
//!
//! The output's cache key is the usual one ([`CacheKey`]) with model digest = blake3 of the
//! model id and the revision the server reports (`root` of its `/models` entry, the weights
//! vLLM serves; none if the server does not say), and config = prompt name and digest, render
//! settings (longest side, PNG, the libpdfium digest) and sampling parameters. The API key
//! and the base URL are not in it.

use std::time::Instant;

use base64::Engine as _;
use serde_json::{json, Value};

use super::key::{canonical_json, CacheKey, PageSelection};
use super::runner::{plan, record, KeyParts, OcrSummary, Plan};
use super::Provider;
use crate::doc::{Doc, Page};
use crate::error::{Error, Result};
use crate::llm::{for_each_bounded, Budget, Client, LlmError, Sampling};
use crate::progress::Progress;
use crate::store::{DocumentRow, RunId, Store, StoredPdf};

/// The provider id.
pub const ID: &str = "openai";

/// Bump when the same replies would give a different Doc.
pub const ADAPTER_VERSION: u32 = 1;

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

/// What to run.
#[derive(Debug, Clone)]
pub struct OpenAiOptions<'a> {
    /// The model id sent to the server.
    pub model: &'a str,
    /// The prompt and resolution.
    pub preset: Preset,
    /// Sampling parameters.
    pub sampling: Sampling,
    /// Requests at a time.
    pub concurrency: usize,
    /// Only documents of this dataset.
    pub dataset: Option<&'a str>,
    /// Re-run documents whose stored output is a failure (only their failed pages are sent).
    pub retry_errors: bool,
    /// The run the outputs belong to.
    pub run: Option<RunId>,
}

/// Removes a YAML front matter block (`---` … `---` at the very start), which olmOCR's models
/// put before the page text.
pub fn strip_front_matter(text: &str) -> &str {
    let t = text.trim_start_matches('\u{feff}');
    let Some(rest) = t.strip_prefix("---").filter(|r| r.starts_with('\n') || r.starts_with("\r\n"))
    else {
        return text;
    };
    match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            after.strip_prefix("\r\n").or_else(|| after.strip_prefix('\n')).unwrap_or(after)
        }
        None => text,
    }
}

/// Reads the pages' Markdown replies into one Doc: each page through the Markdown reader as
/// that page's blocks, page sizes from the PDF.
pub fn assemble(pages: &[(Page, String)]) -> Doc {
    let mut doc = Doc { pages: Vec::new(), blocks: Vec::new(), markdown: None, meta: None };
    let mut md = Vec::new();
    for (i, (size, text)) in pages.iter().enumerate() {
        let body = strip_front_matter(text);
        let d = crate::formats::markdown::read_markdown(body, i as u32);
        doc.pages.push(*size);
        doc.blocks.extend(d.blocks);
        md.push(body.trim().to_string());
    }
    doc.markdown = Some(md.join("\n\n"));
    doc
}

/// Encodes an RGB image as PNG.
fn png_rgb(width: usize, height: usize, rgb: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width as u32, height as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(rgb).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// One page to ask about.
struct PageJob {
    doc: usize,
    page: usize,
    key: String,
    request: Value,
}

/// A document being read.
struct DocJob {
    row: DocumentRow,
    key: CacheKey,
    sizes: Vec<Page>,
    texts: Vec<Option<String>>,
    errors: Vec<(usize, String)>,
    t0: Instant,
}

/// The server's revision of `model`: the `root` of its `/models` entry (vLLM: the weights
/// it serves), or `None` when the server lists none.
pub fn server_revision(client: &Client, budget: &Budget, model: &str) -> Option<String> {
    match client.models(budget) {
        Ok(list) => list
            .iter()
            .find(|m| m["id"].as_str() == Some(model))
            .and_then(|m| m["root"].as_str().map(str::to_string)),
        Err(e) => {
            tracing::info!(
                "{}: no /models listing ({e}); no revision in the cache key",
                client.config().base_url
            );
            None
        }
    }
}

/// Runs the provider over every document without a stored output for this configuration.
pub fn run_openai(
    store: &mut Store,
    client: &Client,
    budget: &Budget,
    opts: &OpenAiOptions<'_>,
    progress: &dyn Progress,
) -> Result<(OcrSummary, Option<String>)> {
    let t0 = Instant::now();
    let revision = server_revision(client, budget, opts.model);
    let digest = {
        let mut h = blake3::Hasher::new();
        for part in ["openai", opts.model, revision.as_deref().unwrap_or("")] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().to_hex().to_string()
    };
    let pdfium_digest = super::builtin::PdfiumProvider.model_digest()?;
    let config = json!({
        "model": opts.model,
        "revision": revision,
        "prompt": {"name": opts.preset.name, "digest": opts.preset.digest()},
        "render": {"longest_side": opts.preset.longest_side, "format": "png-rgb8",
                   "pdfium": pdfium_digest},
        "sampling": opts.sampling.canonical(),
    });
    let config_text = canonical_json(&config);
    let parts = KeyParts {
        id: ID,
        adapter_version: ADAPTER_VERSION,
        version: ADAPTER_VERSION.to_string(),
        model_digest: &digest,
        config: &config,
        pages: &PageSelection::All,
    };
    let Plan { mut summary, todo } = plan(store, &parts, opts.dataset, opts.retry_errors)?;
    let pdfium = super::pdfium::bind().map_err(|e| Error::Native(e.to_string()))?;
    progress.start(todo.len() as u64);
    let mut stopped = None;
    // Documents go in batches of at least 4 × concurrency pages, so that requests overlap
    // across documents while only one batch of page images is held in memory.
    let mut batch: Vec<DocJob> = Vec::new();
    let mut jobs: Vec<PageJob> = Vec::new();
    let mut iter = todo.into_iter().peekable();
    while iter.peek().is_some() || !batch.is_empty() {
        if let Some((row, key)) = iter.next() {
            let mut job = DocJob {
                row,
                key,
                sizes: Vec::new(),
                texts: Vec::new(),
                errors: Vec::new(),
                t0: Instant::now(),
            };
            let d = batch.len();
            render_document(store, &pdfium, opts, &config_text, &mut job, d, &mut jobs)?;
            batch.push(job);
            if jobs.len() < 4 * opts.concurrency.max(1) && iter.peek().is_some() {
                continue;
            }
        }
        // Send the batch's pages, store each reply as it arrives.
        let mut write_error = None;
        for_each_bounded(
            &jobs,
            opts.concurrency,
            |j| match client.chat(&j.request, budget) {
                Err(LlmError::Capped(_)) => None,
                r => Some(r),
            },
            |i, r| {
                let j = &jobs[i];
                match r {
                    Ok(reply) => {
                        let kept = json!({"text": reply.content, "served_by": reply.model,
                            "finish_reason": reply.finish_reason});
                        if let Err(e) = store.put_llm_reply(
                            &j.key,
                            "ocr-page",
                            opts.model,
                            &kept.to_string(),
                            (reply.prompt_tokens, reply.completion_tokens),
                        ) {
                            write_error.get_or_insert(e);
                        }
                        batch[j.doc].texts[j.page] = Some(reply.content);
                    }
                    Err(e) => batch[j.doc].errors.push((j.page, e.to_string())),
                }
            },
        );
        if let Some(e) = write_error {
            return Err(e);
        }
        if budget.stopped() && stopped.is_none() {
            stopped = Some(if budget.max_requests.is_some_and(|m| budget.sent() >= m) {
                format!("request cap of {} reached", budget.max_requests.unwrap_or(0))
            } else {
                format!("spend cap reached ({:.4} spent)", budget.cost())
            });
        }
        for job in batch.drain(..) {
            let complete = job.texts.iter().all(Option::is_some);
            if !complete && job.errors.is_empty() {
                // Pages not asked (a cap stopped the run): nothing is stored, the next run
                // sends what is missing.
                progress.advance(&job.row.name, false);
                continue;
            }
            let result: std::result::Result<String, String> = if job.errors.is_empty() {
                let pages: Vec<(Page, String)> = job
                    .sizes
                    .iter()
                    .cloned()
                    .zip(job.texts.iter().map(|t| t.clone().unwrap_or_default()))
                    .collect();
                Ok(serde_json::to_string(&assemble(&pages))?)
            } else {
                let mut errs = job.errors.clone();
                errs.sort();
                Err(errs
                    .iter()
                    .map(|(p, e)| format!("page {}: {e}", p + 1))
                    .collect::<Vec<_>>()
                    .join("; "))
            };
            let result = result.as_ref().map(|s| s.as_bytes()).map_err(|e| e.as_str());
            let wall_ms = job.t0.elapsed().as_millis() as u64;
            let pages = job.sizes.len() as u64;
            let (row, key) = (&job.row, &job.key);
            record(
                store,
                &mut summary,
                &parts,
                row,
                key,
                result,
                pages,
                wall_ms,
                "remote",
                opts.run,
            )?;
            progress.advance(&job.row.name, true);
        }
        jobs.clear();
        if stopped.is_some() {
            break;
        }
    }
    progress.finish();
    summary.wall_ms = t0.elapsed().as_millis() as u64;
    Ok((summary, stopped))
}

/// Renders a document's pages, takes stored replies, and queues a request for every other page.
#[allow(clippy::too_many_arguments)]
fn render_document(
    store: &Store,
    pdfium: &pdfium_render::prelude::Pdfium,
    opts: &OpenAiOptions<'_>,
    config_text: &str,
    job: &mut DocJob,
    doc_index: usize,
    jobs: &mut Vec<PageJob>,
) -> Result<()> {
    let bytes = match store.pdf(&job.row.hash)? {
        Some(StoredPdf::Bytes(b)) => b,
        Some(StoredPdf::Reader(mut r)) => {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut r, &mut v)
                .map_err(|e| Error::Native(format!("reading the stored PDF: {e}")))?;
            v
        }
        None => {
            job.errors.push((0, "the PDF is missing from the store".into()));
            return Ok(());
        }
    };
    let doc = match super::pdfium::open(pdfium, &bytes) {
        Ok(d) => d,
        Err(e) => {
            job.errors.push((0, format!("pdfium cannot open it: {e}")));
            return Ok(());
        }
    };
    let n = doc.pages().len() as usize;
    job.texts = vec![None; n];
    for i in 0..n {
        let page = match doc.pages().get(i as i32) {
            Ok(p) => p,
            Err(e) => {
                job.sizes.push(Page { width: 0.0, height: 0.0 });
                job.errors.push((i, format!("pdfium: {e}")));
                continue;
            }
        };
        let (w, h) = (page.width().value, page.height().value);
        job.sizes.push(Page { width: w, height: h });
        let key = {
            let mut hsh = blake3::Hasher::new();
            for part in ["corpus-ocr-page-1", config_text, &job.row.hash, &i.to_string()] {
                hsh.update(&(part.len() as u64).to_le_bytes());
                hsh.update(part.as_bytes());
            }
            hsh.finalize().to_hex().to_string()
        };
        if let Some(r) = store.llm_reply(&key)? {
            if let Some(t) = serde_json::from_str::<Value>(&r.reply)
                .ok()
                .and_then(|v| v["text"].as_str().map(str::to_string))
            {
                job.texts[i] = Some(t);
                continue;
            }
        }
        let scale = opts.preset.longest_side as f32 / w.max(h).max(1.0);
        let img = match super::layout::render(&page, scale) {
            Ok(img) => img,
            Err(e) => {
                job.errors.push((i, e));
                continue;
            }
        };
        let rgb: Vec<u8> = img.data.chunks_exact(3).flat_map(|p| [p[2], p[1], p[0]]).collect();
        let png = match png_rgb(img.width, img.height, &rgb) {
            Ok(p) => p,
            Err(e) => {
                job.errors.push((i, format!("PNG encoding: {e}")));
                continue;
            }
        };
        let url = format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&png)
        );
        let mut request = json!({
            "model": opts.model,
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": opts.preset.text},
                {"type": "image_url", "image_url": {"url": url}},
            ]}],
        });
        opts.sampling.apply(&mut request);
        jobs.push(PageJob { doc: doc_index, page: i, key, request });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_removed_and_plain_text_kept() {
        let olm = "---\nprimary_language: en\nis_table: false\n---\n# Title\n\nBody.";
        assert_eq!(strip_front_matter(olm), "# Title\n\nBody.");
        assert_eq!(strip_front_matter("# No front matter"), "# No front matter");
        assert_eq!(strip_front_matter("---\nunclosed"), "---\nunclosed");
        assert_eq!(strip_front_matter("--- not yaml"), "--- not yaml");
    }

    #[test]
    fn pages_are_read_in_order_with_their_sizes() {
        let doc = assemble(&[
            (Page { width: 612.0, height: 792.0 }, "---\nx: 1\n---\n# One\n\nFirst page.".into()),
            (Page { width: 612.0, height: 792.0 }, "| a | b |\n|---|---|\n| 1 | 2 |".into()),
        ]);
        assert_eq!(doc.pages.len(), 2);
        assert_eq!(doc.blocks.first().map(|b| b.page), Some(0));
        assert!(doc.blocks.iter().any(|b| b.page == 1 && b.table.is_some()));
        assert!(!doc.markdown.as_deref().unwrap().contains("x: 1"));
    }

    #[test]
    fn presets_name_their_resolution_and_a_file_is_read() {
        assert_eq!(Preset::parse("olmocr").unwrap().longest_side, 1288);
        assert_eq!(Preset::parse("markdown").unwrap().name, "markdown-v1");
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
