//! Endpoint providers: a vision-language model behind an OpenAI-compatible endpoint (vLLM,
//! SGLang, OpenRouter, OpenAI) reads each page image and answers in its own format.
//!
//! Two kinds of entries run here: `openai`, a generic prompt (`--prompt olmocr|markdown|FILE`)
//! whose replies are Markdown, and the endpoint presets (`presets/*.toml` with `[endpoint]`:
//! dots.ocr, olmOCR 2, MinerU2.5, …), each with its model's own trigger prompt, image size,
//! sampling, reply reader ([`crate::formats::reply`]) and box frame. A preset may be
//! **two-stage** (MinerU2.5, PaddleOCR-VL): regions first (asked of the model, or found by
//! corpus's `layout` detector where the model's own detector ships in no registry package),
//! then one request per region with the prompt for its kind.
//!
//! Every reply is stored as it arrives (`llm_replies`, by a key over the config, the PDF's
//! hash, the page and, for regions, the region), so an interrupted run sends only what is
//! missing. A document whose pages all have readable replies is stored as an output with its
//! pages, wall time, tokens and cost ([`super::runner::Usage`]); a page whose request or reply
//! failed fails the document, naming the page, and `--retry-errors` sends only what is
//! missing. Rules: `docs/endpoints.md`.
//!
//! The output's cache key is the usual one with model digest = blake3 of the provider id, the
//! model id and the revision the server reports (`root` of its `/models` entry: the weights
//! vLLM serves; none if the server does not say), and config = the prompt (or the preset's
//! digest), the render settings with the libpdfium digest, and the sampling parameters. The
//! API key, the base URL and the prices are not in it.

mod image;
mod stages;

use std::time::Instant;

pub(crate) use self::image::decode_png;
use self::image::{data_url, render_sized};
pub use self::image::{image_header, image_size, smart_resize};
use self::stages::{detect_on, detect_regions, region_prompt, region_round};

use base64::Engine as _;
use pdfium_render::prelude::{PdfDocument, Pdfium};
use serde_json::{json, Value};

use super::key::{canonical_json, CacheKey, PageSelection};
use super::preset::{
    ImageSpec, Price, PromptOrder, RegionSource, SamplingSpec, TableReply, TwoStage,
};
use super::raster::Bgr;
use super::runner::{plan, record, KeyParts, OcrSummary, Plan, Usage};
use super::Provider;
use crate::doc::{BBox, Block, BlockKind, Doc, Page};
use crate::formats::reply::{self, BoxFrame, ReplyFormat, Seen};
use crate::llm::{for_each_bounded, Budget, Client, LlmError, Sampling};
use crate::progress::Progress;
use crate::store::{CostBasis, DocumentRow, ReplyHealth, RunId, Store, StoredPdf};

/// What to ask, and how to read the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// The provider id outputs are stored under (`openai`, `dots.ocr`).
    pub id: String,
    /// The adapter version: bump when the same replies would give a different Doc.
    pub adapter: u32,
    /// The prompt (one-stage), with its name for listings.
    pub prompt: Option<(String, String)>,
    /// A system message.
    pub system: Option<String>,
    /// Text before or after the image.
    pub order: PromptOrder,
    /// `skip_special_tokens` to send, if any.
    pub skip_special_tokens: Option<bool>,
    /// vLLM's per-request arguments for its logits processors, if any.
    pub vllm_xargs: Option<serde_json::Map<String, Value>>,
    /// The context the preset's server serves and the bound of a request's prompt tokens
    /// (`None` for the generic `openai` entry).
    pub context: Option<(u32, u32)>,
    /// The `max_tokens` the preset sends unless `--max-tokens` says otherwise.
    pub max_tokens: Option<u32>,
    /// The page image.
    pub image: ImageSpec,
    /// How a reply is read.
    pub reply: ReplyFormat,
    /// The frame of the reply's boxes.
    pub boxes: Option<BoxFrame>,
    /// The two stages, for a layout-first model.
    pub two_stage: Option<TwoStage>,
    /// Prices, per million tokens.
    pub price: Option<Price>,
    /// The GPU's price, US dollars per hour, for a cost estimate where there is no token price.
    pub gpu_price: Option<f64>,
    /// The preset's digest (`None` for the generic `openai` entry, whose config names its
    /// prompt instead).
    pub preset_digest: Option<String>,
    /// The preset's sampling defaults.
    pub sampling: SamplingSpec,
}

impl Endpoint {
    /// The endpoint of a preset with `[endpoint]`.
    pub fn of_preset(p: &super::preset::Preset) -> Option<Endpoint> {
        let ep = p.endpoint.as_ref()?;
        Some(Endpoint {
            id: p.id.clone(),
            adapter: ADAPTER_VERSION * 1000 + p.adapter,
            prompt: ep.prompt.clone().map(|t| (p.id.clone(), t)),
            system: ep.system.clone(),
            order: ep.order,
            skip_special_tokens: ep.skip_special_tokens,
            vllm_xargs: ep.vllm_xargs.clone(),
            context: Some((ep.context, ep.prompt_tokens)),
            max_tokens: Some(ep.max_tokens()),
            image: ep.image,
            reply: p.reply_format()?,
            boxes: ep.boxes,
            two_stage: ep.two_stage.clone(),
            price: ep.price,
            gpu_price: ep.gpu_price,
            preset_digest: Some(p.digest()),
            sampling: ep.sampling,
        })
    }

    /// The config that enters the cache key.
    fn config(
        &self,
        model: &str,
        revision: Option<&str>,
        sampling: &Sampling,
        pdfium: &str,
    ) -> Value {
        match &self.preset_digest {
            // The generic entry's config is what it has always been, so its caches stay.
            None => json!({
                "model": model,
                "revision": revision,
                "prompt": {"name": self.prompt.as_ref().map(|p| &p.0),
                           "digest": self.prompt.as_ref().map(|p| blake3::hash(p.1.as_bytes()).to_hex().to_string())},
                "render": {"longest_side": self.image.longest_side, "format": "png-rgb8",
                           "pdfium": pdfium},
                "sampling": sampling.canonical(),
            }),
            Some(d) => json!({
                "model": model,
                "revision": revision,
                "preset": d,
                "render": {"image": self.image, "format": "png-rgb8", "pdfium": pdfium},
                "sampling": sampling.canonical(),
            }),
        }
    }
}

/// The endpoint machinery's own version, part of every preset's adapter version.
pub const ADAPTER_VERSION: u32 = 1;

/// What to run.
#[derive(Debug, Clone)]
pub struct RunOptions<'a> {
    /// The model id sent to the server.
    pub model: &'a str,
    /// Sampling parameters.
    pub sampling: Sampling,
    /// Requests at a time.
    pub concurrency: usize,
    /// Only documents of this dataset.
    pub dataset: Option<&'a str>,
    /// Re-run documents whose stored output is a failure (only their missing replies are sent).
    pub retry_errors: bool,
    /// The run the outputs belong to.
    pub run: Option<RunId>,
    /// Prices per million tokens (the preset's unless overridden); `None`: no token cost.
    pub price: Option<Price>,
    /// The GPU's price in US dollars per hour (`--gpu-price`, else the preset's): without a
    /// token price, each output's cost is estimated from the GPU time its requests took.
    pub gpu_price: Option<f64>,
}

/// A reply: its text, how it ended, its tokens, and what it took: its request's wall time
/// and the concurrency the server ran it at (`None` for replies stored before they were kept).
#[derive(Debug, Clone, Default)]
struct Got {
    text: String,
    finish: Option<String>,
    tokens: (u64, u64),
    image: Option<(u32, u32)>,
    ms: Option<u64>,
    concurrency: Option<f64>,
}

impl Got {
    /// The GPU time this reply took, ms: its request's wall time shared among the requests
    /// the server ran at once.
    fn gpu_ms(&self) -> Option<f64> {
        Some(self.ms? as f64 / self.concurrency?.max(1.0))
    }
}

/// One request to send.
struct Ask {
    doc: usize,
    page: usize,
    /// `None`: the page (or its layout stage); `Some(i)`: region `i` of the page.
    region: Option<usize>,
    key: String,
    image: (u32, u32),
    request: Value,
}

/// A region of a two-stage page, in page points.
#[derive(Debug, Clone)]
struct RegionState {
    bbox: BBox,
    kind: BlockKind,
    label: String,
    /// The block's label for the detection suite: `cdla:<name>` from corpus's detector,
    /// `mineru25:<type>` from MinerU's layout reply.
    class: Option<String>,
    /// The detector's score, where it gives one (MinerU's layout reply does not).
    score: Option<f64>,
    got: Option<Got>,
}

/// One page being read.
#[derive(Debug, Clone, Default)]
struct PageState {
    size: Page,
    /// The page's reply (one-stage) or its layout reply (two-stage, model layout).
    got: Option<Got>,
    /// Two-stage: the regions, once known.
    regions: Option<Vec<RegionState>>,
}

/// A document being read.
struct DocJob {
    row: DocumentRow,
    key: CacheKey,
    pdf: Vec<u8>,
    /// A page image stored as the document (OmniDocBench): its media type and size.
    image: Option<(&'static str, u32, u32)>,
    pages: Vec<PageState>,
    errors: Vec<(usize, String)>,
    t0: Instant,
}

/// The server's revision of `model`: the `root` of its `/models` entry (vLLM: the weights
/// it serves), or `None` when the server lists none; and the context it serves the model
/// with (vLLM's `max_model_len`), where it says.
pub(crate) fn server_revision(
    client: &Client,
    budget: &Budget,
    model: &str,
) -> (Option<String>, Option<u64>) {
    match client.models(budget) {
        Ok(list) => {
            let entry = list.iter().find(|m| m["id"].as_str() == Some(model));
            (
                entry.and_then(|m| m["root"].as_str().map(str::to_string)),
                entry.and_then(|m| m["max_model_len"].as_u64()),
            )
        }
        Err(e) => {
            tracing::info!(
                "{}: no /models listing ({e}); no revision in the cache key",
                client.config().base_url
            );
            (None, None)
        }
    }
}

/// Why the requests cannot fit the context the server says it serves (vLLM's
/// `max_model_len` in `/models`): `max_tokens` plus the preset's bound of the prompt's tokens
/// must fit it, or vLLM answers 400 (`docs/endpoints.md` §Context).
fn context_problem(ep: &Endpoint, opts: &RunOptions<'_>, served: Option<u64>) -> Option<String> {
    let (preset_ctx, prompt) = ep.context?;
    let need = u64::from(opts.sampling.max_tokens) + u64::from(prompt);
    match served {
        Some(ctx) if need > ctx => Some(format!(
            "the server serves {} with a context of {ctx} tokens (max_model_len), but max_tokens {} + up to {prompt} prompt tokens need {need}: start it with the preset's command (context {preset_ctx}; corpus providers show {}) or send --max-tokens {}",
            opts.model,
            opts.sampling.max_tokens,
            ep.id,
            ctx.saturating_sub(u64::from(prompt))
        )),
        Some(_) => None,
        None => {
            if need > u64::from(preset_ctx) {
                tracing::warn!(
                    "max_tokens {} + up to {prompt} prompt tokens exceed the preset's context {preset_ctx}: a vLLM server started with its command answers 400",
                    opts.sampling.max_tokens
                );
            }
            None
        }
    }
}

/// The cache key of one reply: the config, the PDF, the page and what part of it.
fn reply_key(config_text: &str, hash: &str, page: usize, part: &str) -> String {
    let mut h = blake3::Hasher::new();
    let page = page.to_string();
    let mut parts = vec!["corpus-ocr-page-1", config_text, hash, page.as_str()];
    if !part.is_empty() {
        parts.push(part);
    }
    for p in parts {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().to_hex().to_string()
}

/// A stored reply, if any.
fn cached(store: &Store, key: &str) -> crate::error::Result<Option<Got>> {
    let Some(r) = store.llm_reply(key)? else { return Ok(None) };
    let v: Value = serde_json::from_str(&r.reply).unwrap_or(Value::Null);
    let Some(text) = v["text"].as_str() else { return Ok(None) };
    let image = v["image"]
        .as_array()
        .and_then(|a| Some((a.first()?.as_u64()? as u32, a.get(1)?.as_u64()? as u32)));
    Ok(Some(Got {
        text: text.to_string(),
        finish: v["finish_reason"].as_str().map(str::to_string),
        tokens: (r.prompt_tokens.unwrap_or(0), r.completion_tokens.unwrap_or(0)),
        image,
        ms: v["ms"].as_u64(),
        concurrency: v["concurrency"].as_f64(),
    }))
}

/// The request body for one image and prompt.
fn request(model: &str, ep: &Endpoint, prompt: &str, url: &str, sampling: &Sampling) -> Value {
    let text = json!({"type": "text", "text": prompt});
    let image = json!({"type": "image_url", "image_url": {"url": url}});
    // An empty prompt is the image alone (LightOnOCR-2).
    let content = match (prompt.is_empty(), ep.order) {
        (true, _) => json!([image]),
        (false, PromptOrder::ImageFirst) => json!([image, text]),
        (false, PromptOrder::TextFirst) => json!([text, image]),
    };
    let mut messages = Vec::new();
    if let Some(s) = &ep.system {
        messages.push(json!({"role": "system", "content": s}));
    }
    messages.push(json!({"role": "user", "content": content}));
    let mut r = json!({"model": model, "messages": messages});
    sampling.apply(&mut r);
    if let Some(skip) = ep.skip_special_tokens {
        // MinerU2.5 answers layouts in special tokens (`<|box_start|>`), DeepSeek-OCR its
        // boxes (`<|det|>`): vLLM strips them unless told not to.
        r["skip_special_tokens"] = json!(skip);
    }
    if let Some(x) = &ep.vllm_xargs {
        r["vllm_xargs"] = Value::Object(x.clone());
    }
    r
}

/// Runs an endpoint provider over every document without a stored output for this
/// configuration; returns the summary and, when a cap stopped it, why.
pub fn run_endpoint(
    store: &mut Store,
    client: &Client,
    budget: &Budget,
    ep: &Endpoint,
    opts: &RunOptions<'_>,
    progress: &dyn Progress,
) -> crate::error::Result<(OcrSummary, Option<String>)> {
    let t0 = Instant::now();
    let (revision, served) = server_revision(client, budget, opts.model);
    if let Some(why) = context_problem(ep, opts, served) {
        return Err(crate::error::Error::Usage(why));
    }
    let digest = {
        let mut h = blake3::Hasher::new();
        // The generic entry's digest is what it has always been.
        let id = if ep.preset_digest.is_none() { "openai" } else { ep.id.as_str() };
        for part in [id, opts.model, revision.as_deref().unwrap_or("")] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().to_hex().to_string()
    };
    let pdfium_digest = super::pdfium::PdfiumProvider.model_digest()?;
    let config = ep.config(opts.model, revision.as_deref(), &opts.sampling, &pdfium_digest);
    let config_text = canonical_json(&config);
    let parts = KeyParts {
        id: &ep.id,
        adapter_version: ep.adapter,
        version: ep.adapter.to_string(),
        model_digest: &digest,
        config: &config,
        pages: &PageSelection::All,
    };
    let Plan { mut summary, todo } = plan(store, &parts, opts.dataset, opts.retry_errors)?;
    let pdfium = super::pdfium::bind().map_err(|e| crate::error::Error::Native(e.to_string()))?;
    let mut detector = match ep.two_stage.as_ref().map(|t| t.layout) {
        Some(RegionSource::CorpusLayout) if !todo.is_empty() => {
            Some(super::layout::Pipeline::new(super::layout::runtime::Device::Cpu)?)
        }
        _ => None,
    };
    progress.start(todo.len() as u64);
    let mut stopped = None;
    let mut batch: Vec<DocJob> = Vec::new();
    let mut iter = todo.into_iter().peekable();
    let ctx = Ctx { ep, opts, config_text: &config_text };
    while iter.peek().is_some() || !batch.is_empty() {
        let mut pages_queued = 0;
        for (row, key) in iter.by_ref() {
            let job = open_document(store, &pdfium, &ctx, row, key, &mut detector)?;
            pages_queued += job.pages.len();
            batch.push(job);
            // Documents go in batches of at least 4 × concurrency pages, so that requests
            // overlap across documents while only one batch is held in memory.
            if pages_queued >= 4 * opts.concurrency.max(1) {
                break;
            }
        }
        // Round 1: each page (one-stage) or each page's layout (two-stage, model layout).
        let asks = first_round(store, &pdfium, &ctx, &mut batch)?;
        send(store, client, budget, &ctx, &asks, &mut batch)?;
        // Round 2: the regions of two-stage pages.
        if ep.two_stage.is_some() {
            let asks = region_round(store, &pdfium, &ctx, &mut batch)?;
            send(store, client, budget, &ctx, &asks, &mut batch)?;
        }
        if budget.stopped() && stopped.is_none() {
            stopped = Some(if budget.max_requests.is_some_and(|m| budget.sent() >= m) {
                format!("request cap of {} reached", budget.max_requests.unwrap_or(0))
            } else {
                format!("spend cap reached ({:.4} spent)", budget.cost())
            });
        }
        for job in batch.drain(..) {
            finish_document(store, &mut summary, &parts, &ctx, job, progress)?;
        }
        if stopped.is_some() {
            break;
        }
    }
    progress.finish();
    summary.wall_ms = t0.elapsed().as_millis() as u64;
    Ok((summary, stopped))
}

/// What every step needs.
struct Ctx<'a> {
    ep: &'a Endpoint,
    opts: &'a RunOptions<'a>,
    config_text: &'a str,
}

/// Reads a stored PDF's bytes and page sizes; for a corpus-layout two-stage preset, finds
/// each page's regions now.
fn open_document(
    store: &Store,
    pdfium: &Pdfium,
    ctx: &Ctx<'_>,
    row: DocumentRow,
    key: CacheKey,
    detector: &mut Option<super::layout::Pipeline>,
) -> crate::error::Result<DocJob> {
    let mut job = DocJob {
        row,
        key,
        pdf: Vec::new(),
        image: None,
        pages: Vec::new(),
        errors: Vec::new(),
        t0: Instant::now(),
    };
    let pdf = match store.pdf(&job.row.hash)? {
        Some(StoredPdf::Bytes(b)) => b,
        Some(StoredPdf::Reader(mut r)) => {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut r, &mut v)
                .map_err(|e| crate::error::Error::Native(format!("reading the stored PDF: {e}")))?;
            v
        }
        None => {
            job.errors.push((0, "the PDF is missing from the store".into()));
            return Ok(job);
        }
    };
    if let Some((mime, w, h)) = image_header(&pdf) {
        // A page image is one page whose size in "points" is its size in pixels, the frame
        // its benchmark's boxes are in; the model is shown the image as it is.
        job.image = Some((mime, w, h));
        job.pages.push(PageState {
            size: Page { width: w as f32, height: h as f32 },
            ..PageState::default()
        });
        if let Some(det) = detector.as_mut() {
            let found = match mime {
                "image/png" => decode_png(&pdf).and_then(|img| {
                    detect_on(det, &img, Page { width: w as f32, height: h as f32 })
                }),
                other => Err(format!(
                    "corpus's layout detector reads PDF pages and PNG images, not {other}"
                )),
            };
            match found {
                Ok(r) => job.pages[0].regions = Some(r),
                Err(e) => job.errors.push((0, format!("layout: {e}"))),
            }
        }
        job.pdf = pdf;
        return Ok(job);
    }
    let doc = match super::pdfium::open(pdfium, &pdf) {
        Ok(d) => d,
        Err(e) => {
            job.errors.push((0, format!("pdfium cannot open it: {e}")));
            return Ok(job);
        }
    };
    for i in 0..doc.pages().len() as usize {
        let mut st = PageState::default();
        match doc.pages().get(i as i32) {
            Ok(p) => {
                st.size = Page { width: p.width().value, height: p.height().value };
                if let Some(det) = detector.as_mut() {
                    match detect_regions(det, &p, st.size) {
                        Ok(r) => st.regions = Some(r),
                        Err(e) => job.errors.push((i, format!("layout: {e}"))),
                    }
                }
            }
            Err(e) => job.errors.push((i, format!("pdfium: {e}"))),
        }
        job.pages.push(st);
    }
    drop(doc);
    let _ = ctx;
    job.pdf = pdf;
    Ok(job)
}

/// Queues the first request of every page that has no stored reply: the page itself, or its
/// layout stage.
fn first_round(
    store: &Store,
    pdfium: &Pdfium,
    ctx: &Ctx<'_>,
    batch: &mut [DocJob],
) -> crate::error::Result<Vec<Ask>> {
    let ep = ctx.ep;
    let (prompt, image, part) = match &ep.two_stage {
        None => match &ep.prompt {
            Some((_, p)) => (p.as_str(), ep.image, ""),
            None => return Ok(Vec::new()),
        },
        Some(ts) => match (ts.layout, &ts.layout_prompt) {
            (RegionSource::Model, Some(p)) => {
                (p.as_str(), ts.layout_image.unwrap_or(ep.image), "layout")
            }
            _ => return Ok(Vec::new()),
        },
    };
    let mut asks = Vec::new();
    for (d, job) in batch.iter_mut().enumerate() {
        if job.pdf.is_empty() {
            continue;
        }
        if let Some((mime, w, h)) = job.image {
            if job.errors.is_empty() {
                let key = reply_key(ctx.config_text, &job.row.hash, 0, part);
                if let Some(g) = cached(store, &key)? {
                    job.pages[0].got = Some(g);
                    continue;
                }
                let url = format!(
                    "data:{mime};base64,{}",
                    base64::engine::general_purpose::STANDARD.encode(&job.pdf)
                );
                asks.push(Ask {
                    doc: d,
                    page: 0,
                    region: None,
                    key,
                    image: (w, h),
                    request: request(ctx.opts.model, ep, prompt, &url, &ctx.opts.sampling),
                });
            }
            continue;
        }
        let doc = match super::pdfium::open(pdfium, &job.pdf) {
            Ok(doc) => doc,
            Err(e) => {
                job.errors.push((0, format!("pdfium cannot open it: {e}")));
                continue;
            }
        };
        for i in 0..job.pages.len() {
            if job.errors.iter().any(|(p, _)| *p == i) {
                continue;
            }
            let key = reply_key(ctx.config_text, &job.row.hash, i, part);
            if let Some(g) = cached(store, &key)? {
                job.pages[i].got = Some(g);
                continue;
            }
            match page_image(&doc, i, &image, job.pages[i].size) {
                Ok((img, url)) => asks.push(Ask {
                    doc: d,
                    page: i,
                    region: None,
                    key,
                    image: (img.width as u32, img.height as u32),
                    request: request(ctx.opts.model, ep, prompt, &url, &ctx.opts.sampling),
                }),
                Err(e) => job.errors.push((i, e)),
            }
        }
    }
    Ok(asks)
}

/// Renders page `i` as `spec` says and encodes it.
fn page_image(
    doc: &PdfDocument<'_>,
    i: usize,
    spec: &ImageSpec,
    size: Page,
) -> Result<(Bgr, String), String> {
    let page = doc.pages().get(i as i32).map_err(|e| format!("pdfium: {e}"))?;
    let (w, h) = image_size(spec, size);
    let img = render_sized(&page, w, h)?;
    let url = data_url(&img)?;
    Ok((img, url))
}

/// Sends the requests, `concurrency` at a time, storing each reply as it arrives.
fn send(
    store: &mut Store,
    client: &Client,
    budget: &Budget,
    ctx: &Ctx<'_>,
    asks: &[Ask],
    batch: &mut [DocJob],
) -> crate::error::Result<()> {
    let mut write_error = None;
    let t0 = Instant::now();
    // At most this many requests ran at once; what the server really ran is measured below.
    let most = ctx.opts.concurrency.clamp(1, asks.len().max(1)) as f64;
    let mut timed: Vec<(usize, usize, Option<usize>)> = Vec::new();
    let mut busy_ms = 0u64;
    for_each_bounded(
        asks,
        ctx.opts.concurrency,
        |a| {
            let t = Instant::now();
            match client.chat(&a.request, budget) {
                Err(LlmError::Capped(_)) => None,
                r => Some((r, t.elapsed().as_millis() as u64)),
            }
        },
        |i, (r, ms)| {
            let a = &asks[i];
            busy_ms += ms;
            match r {
                Ok(reply) => {
                    let kept = json!({"text": reply.content, "served_by": reply.model,
                        "finish_reason": reply.finish_reason, "image": [a.image.0, a.image.1],
                        "ms": ms, "concurrency": most});
                    if let Err(e) = store.put_llm_reply(
                        &a.key,
                        "ocr-page",
                        ctx.opts.model,
                        &kept.to_string(),
                        (reply.prompt_tokens, reply.completion_tokens),
                    ) {
                        write_error.get_or_insert(e);
                    }
                    let got = Got {
                        text: reply.content,
                        finish: reply.finish_reason,
                        tokens: (reply.prompt_tokens, reply.completion_tokens),
                        image: Some(a.image),
                        ms: Some(ms),
                        concurrency: Some(most),
                    };
                    timed.push((a.doc, a.page, a.region));
                    let st = &mut batch[a.doc].pages[a.page];
                    match a.region {
                        None => st.got = Some(got),
                        Some(k) => {
                            if let Some(r) = st.regions.as_mut().and_then(|r| r.get_mut(k)) {
                                r.got = Some(got);
                            }
                        }
                    }
                }
                Err(e) => {
                    let what = match a.region {
                        None => e.to_string(),
                        Some(k) => format!(
                            "region {} ({}): {e}",
                            k + 1,
                            batch[a.doc].pages[a.page]
                                .regions
                                .as_ref()
                                .and_then(|r| r.get(k))
                                .map_or("", |r| r.label.as_str())
                        ),
                    };
                    batch[a.doc].errors.push((a.page, what))
                }
            }
        },
    );
    // The concurrency the server actually ran: the requests' summed wall time over the
    // round's wall time, between 1 and the most sent at once (docs/endpoints.md §Cost).
    let wall = t0.elapsed().as_millis().max(1) as f64;
    let used = (busy_ms as f64 / wall).clamp(1.0, most);
    for (d, p, region) in timed {
        let st = &mut batch[d].pages[p];
        let got = match region {
            None => st.got.as_mut(),
            Some(k) => st.regions.as_mut().and_then(|r| r.get_mut(k)).and_then(|r| r.got.as_mut()),
        };
        if let Some(g) = got {
            g.concurrency = Some(used);
        }
    }
    match write_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A page's blocks from its replies, or why they cannot be read.
fn read_page_blocks(ep: &Endpoint, i: usize, st: &PageState) -> Result<PageBlocks, String> {
    let page = i as u32;
    match (&ep.two_stage, &st.regions) {
        (None, _) => {
            let g = st.got.as_ref().ok_or("no reply")?;
            let (iw, ih) = g.image.unwrap_or_else(|| image_size(&ep.image, st.size));
            let seen = Seen { image_width: iw, image_height: ih, page: st.size };
            let r = reply::read_page(ep.reply, &g.text, page, ep.boxes, &seen, g.finish.as_deref())
                .map_err(|e| e.to_string())?;
            if r.clipped > 0 {
                tracing::info!(
                    page = i + 1,
                    "{} boxes reached outside the page and were clipped",
                    r.clipped
                );
            }
            Ok(PageBlocks { blocks: r.blocks, markdown: r.markdown, looped: r.repeated_lines > 0 })
        }
        (Some(ts), Some(regions)) => {
            let mut blocks = Vec::new();
            let mut looped = false;
            for r in regions {
                let mut b = Block::new(r.kind, page, r.bbox, "");
                b.label = r.class.clone();
                b.confidence = r.score;
                if let Some(g) = &r.got {
                    let text = if g.finish.as_deref() == Some("length") {
                        let (t, dropped) = reply::trim_repetition(&g.text);
                        looped |= dropped > 0;
                        t
                    } else {
                        g.text.clone()
                    };
                    let text = text.trim();
                    match r.kind {
                        BlockKind::Table => {
                            let table = match ts.table_reply {
                                TableReply::Otsl => Some(reply::doctags::otsl_table(text)),
                                TableReply::Html => {
                                    crate::formats::html::tables(text).into_iter().next()
                                }
                            };
                            if let Some(t) = table {
                                b.text = t.flat_text();
                                b.table = Some(t);
                            } else {
                                b.text = crate::formats::html::text(text);
                            }
                        }
                        BlockKind::Formula => {
                            let latex = crate::normalize::latex::strip_math_delimiters(text);
                            b.text = crate::normalize::latex_to_plain(latex);
                            b.latex = Some(latex.to_string());
                        }
                        _ => b.text = crate::normalize::collapse_ws(text),
                    }
                } else if region_prompt(ts, r).is_some() {
                    return Err(format!("no reply for region {} ({})", b.kind, r.label));
                }
                if b.kind == BlockKind::Heading {
                    b.level = Some(1);
                }
                blocks.push(b);
            }
            Ok(PageBlocks { blocks, markdown: None, looped })
        }
        (Some(_), None) => Err("no layout".into()),
    }
}

/// A page read from its replies.
struct PageBlocks {
    blocks: Vec<Block>,
    /// The page as Markdown, where the reply is Markdown.
    markdown: Option<String>,
    /// Whether a reply's repeated tail was removed.
    looped: bool,
}

/// Stores a finished document (or its failure); leaves one whose requests a cap stopped.
fn finish_document(
    store: &mut Store,
    summary: &mut OcrSummary,
    parts: &KeyParts<'_>,
    ctx: &Ctx<'_>,
    mut job: DocJob,
    progress: &dyn Progress,
) -> crate::error::Result<()> {
    let ep = ctx.ep;
    let complete = |st: &PageState| match (&ep.two_stage, &st.regions) {
        (None, _) => st.got.is_some(),
        (Some(ts), Some(rs)) => {
            rs.iter().all(|r| r.got.is_some() || region_prompt(ts, r).is_none())
        }
        (Some(_), None) => false,
    };
    if job.errors.is_empty() && !job.pages.iter().all(complete) {
        // Requests not sent (a cap stopped the run): nothing is stored, the next run sends
        // what is missing.
        progress.advance(&job.row.name, false);
        return Ok(());
    }
    let mut doc = Doc { pages: Vec::new(), blocks: Vec::new(), markdown: None, meta: None };
    let mut md = Vec::new();
    let mut all_md = true;
    let (mut pt, mut ct) = (0u64, 0u64);
    let mut gpu_ms = Some(0.0);
    let mut health = ReplyHealth::default();
    for (i, st) in job.pages.iter().enumerate() {
        doc.pages.push(st.size);
        let mut cut = false;
        for g in st.got.iter().chain(st.regions.iter().flatten().filter_map(|r| r.got.as_ref())) {
            pt += g.tokens.0;
            ct += g.tokens.1;
            gpu_ms = gpu_ms.zip(g.gpu_ms()).map(|(a, b)| a + b);
            cut |= g.finish.as_deref() == Some("length");
        }
        if job.errors.iter().any(|(p, _)| *p == i) {
            continue;
        }
        match read_page_blocks(ep, i, st) {
            Ok(p) => {
                health.cut += cut as u64;
                health.looped += p.looped as u64;
                health.empty += p.blocks.iter().all(|b| b.text.trim().is_empty()) as u64;
                doc.blocks.extend(p.blocks);
                match p.markdown {
                    Some(m) => md.push(m),
                    None => all_md = false,
                }
            }
            Err(e) => job.errors.push((i, e)),
        }
    }
    if all_md && !job.pages.is_empty() {
        doc.markdown = Some(md.join("\n\n"));
    }
    let result: Result<String, String> = if job.errors.is_empty() {
        Ok(serde_json::to_string(&doc)?)
    } else {
        let mut errs = job.errors.clone();
        errs.sort();
        errs.dedup();
        Err(errs.iter().map(|(p, e)| format!("page {}: {e}", p + 1)).collect::<Vec<_>>().join("; "))
    };
    let result = result.as_ref().map(|s| s.as_bytes()).map_err(|e| e.as_str());
    let (cost, basis) = match (ctx.opts.price, ctx.opts.gpu_price) {
        (Some(p), _) => {
            (Some((pt as f64 * p.prompt + ct as f64 * p.completion) / 1e6), Some(CostBasis::Tokens))
        }
        (None, Some(per_hour)) => match gpu_ms {
            Some(ms) => (Some(ms / 3.6e6 * per_hour), Some(CostBasis::GpuTime)),
            None => (None, None),
        },
        (None, None) => (None, None),
    };
    let usage = Usage {
        pages: job.pages.len() as u64,
        wall_ms: job.t0.elapsed().as_millis() as u64,
        cpu_ms: None,
        prompt_tokens: Some(pt),
        completion_tokens: Some(ct),
        cost_usd: cost,
        cost_basis: basis,
        replies: Some(health),
    };
    record(store, summary, parts, &job.row, &job.key, result, &usage, "remote", ctx.opts.run)?;
    progress.advance(&job.row.name, true);
    Ok(())
}
