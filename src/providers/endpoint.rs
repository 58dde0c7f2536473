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

use std::time::Instant;

use base64::Engine as _;
use pdfium_render::prelude::{PdfDocument, PdfRenderConfig, Pdfium};
use serde_json::{json, Value};

use super::key::{canonical_json, CacheKey, PageSelection};
use super::layout::image::Bgr;
use super::preset::{
    ImageSpec, LayoutSource, Price, PromptOrder, SamplingSpec, TableReply, TwoStage,
};
use super::runner::{plan, record, KeyParts, OcrSummary, Plan, Usage};
use super::Provider;
use crate::doc::{BBox, Block, BlockKind, Doc, Page};
use crate::formats::reply::{self, BoxFrame, ReplyFormat, Seen};
use crate::llm::{for_each_bounded, Budget, Client, LlmError, Sampling};
use crate::progress::Progress;
use crate::store::{DocumentRow, RunId, Store, StoredPdf};

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
    /// Send `skip_special_tokens: false`.
    pub keep_special_tokens: bool,
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
            keep_special_tokens: ep.keep_special_tokens,
            image: ep.image,
            reply: p.reply_format()?,
            boxes: ep.boxes,
            two_stage: ep.two_stage.clone(),
            price: ep.price,
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
    /// Prices per million tokens (the preset's unless overridden); `None`: no cost recorded.
    pub price: Option<Price>,
}

/// Qwen2-VL's `smart_resize`: the image size closest to `height` × `width` whose sides are
/// multiples of `factor` and whose area lies in `[min_pixels, max_pixels]` (Python's
/// `round`, half to even, as the model's image processor rounds).
pub fn smart_resize(
    height: u32,
    width: u32,
    factor: u32,
    min_pixels: u64,
    max_pixels: u64,
) -> (u32, u32) {
    let f = factor.max(1) as f64;
    let (h, w) = (height.max(1) as f64, width.max(1) as f64);
    let round_even = |x: f64| {
        let r = x.round();
        if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
            r - 1.0
        } else {
            r
        }
    };
    let mut hb = f.max(round_even(h / f) * f);
    let mut wb = f.max(round_even(w / f) * f);
    if hb * wb > max_pixels as f64 {
        let beta = (h * w / max_pixels as f64).sqrt();
        hb = f.max((h / beta / f).floor() * f);
        wb = f.max((w / beta / f).floor() * f);
    } else if hb * wb < min_pixels as f64 {
        let beta = (min_pixels as f64 / (h * w)).sqrt();
        hb = (h * beta / f).ceil() * f;
        wb = (w * beta / f).ceil() * f;
    }
    (hb as u32, wb as u32)
}

/// The pixel size a page of `page` points is shown at under `spec`: rendered at `dpi` (or
/// to `longest_side`), then resized as `smart_resize` says where the spec has a factor.
pub fn image_size(spec: &ImageSpec, page: Page) -> (u32, u32) {
    if let Some([w, h]) = spec.size {
        return (w.max(1), h.max(1));
    }
    let (w, h) = (page.width.max(1.0), page.height.max(1.0));
    let scale = match (spec.dpi, spec.longest_side) {
        (Some(dpi), _) => dpi / 72.0,
        (None, Some(px)) => px as f32 / w.max(h),
        (None, None) => 2.0,
    };
    let (pw, ph) = (((w * scale).round() as u32).max(1), ((h * scale).round() as u32).max(1));
    match spec.factor {
        Some(f) => {
            let (hb, wb) = smart_resize(
                ph,
                pw,
                f,
                spec.min_pixels.unwrap_or(56 * 56),
                spec.max_pixels.unwrap_or(28 * 28 * 1280),
            );
            (wb, hb)
        }
        None => (pw, ph),
    }
}

/// Renders a page at exactly `width` × `height` pixels.
fn render_sized(
    page: &pdfium_render::prelude::PdfPage<'_>,
    width: u32,
    height: u32,
) -> Result<Bgr, String> {
    let cfg = PdfRenderConfig::new()
        .set_fixed_size(width as i32, height as i32)
        .set_format(pdfium_render::prelude::PdfBitmapFormat::BGRA);
    let bmp = page.render_with_config(&cfg).map_err(|e| format!("rendering failed: {e}"))?;
    let (w, h) = (bmp.width() as usize, bmp.height() as usize);
    let raw = bmp.as_raw_bytes();
    if w == 0 || h == 0 || raw.len() < w * h * 4 {
        return Err(format!("rendering gave a {w}x{h} bitmap of {} bytes", raw.len()));
    }
    Ok(Bgr::from_bgra(w, h, raw.len() / h, &raw))
}

/// The media type and pixel size of a page image stored as a document (PNG, JPEG), or
/// `None` for anything else (a PDF).
pub fn image_header(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let be16 = |i: usize| Some(u16::from_be_bytes(bytes.get(i..i + 2)?.try_into().ok()?) as u32);
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        let be32 = |i: usize| Some(u32::from_be_bytes(bytes.get(i..i + 4)?.try_into().ok()?));
        return Some(("image/png", be32(16)?, be32(20)?));
    }
    if !bytes.starts_with(&[0xff, 0xd8]) {
        return None;
    }
    // JPEG: walk the markers to the first start-of-frame, which holds the size.
    let mut i = 2;
    while i + 9 < bytes.len() {
        if bytes[i] != 0xff {
            return None;
        }
        let m = bytes[i + 1];
        if m == 0xff {
            i += 1;
            continue;
        }
        let len = be16(i + 2)? as usize;
        if (0xc0..=0xcf).contains(&m) && !matches!(m, 0xc4 | 0xc8 | 0xcc) {
            return Some(("image/jpeg", be16(i + 7)?, be16(i + 5)?));
        }
        i += 2 + len;
    }
    None
}

/// Decodes a PNG page image (8-bit gray, RGB or RGBA).
fn decode_png(bytes: &[u8]) -> Result<Bgr, String> {
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| format!("PNG: {e}"))?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("PNG: too large")?];
    let info = reader.next_frame(&mut buf).map_err(|e| format!("PNG: {e}"))?;
    let (w, h) = (info.width as usize, info.height as usize);
    let px = &buf[..info.buffer_size()];
    let ch = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err("PNG: indexed colours left after expansion".into()),
    };
    let rgb: Vec<u8> = px
        .chunks_exact(ch)
        .flat_map(|p| if ch < 3 { [p[0], p[0], p[0]] } else { [p[0], p[1], p[2]] })
        .collect();
    Ok(Bgr::from_rgb(w, h, &rgb))
}

/// Encodes an image as a PNG data URL.
fn data_url(img: &Bgr) -> Result<String, String> {
    let rgb: Vec<u8> = img.data.chunks_exact(3).flat_map(|p| [p[2], p[1], p[0]]).collect();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, img.width as u32, img.height as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| format!("PNG encoding: {e}"))?;
    w.write_image_data(&rgb).map_err(|e| format!("PNG encoding: {e}"))?;
    w.finish().map_err(|e| format!("PNG encoding: {e}"))?;
    Ok(format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(&out)))
}

/// A reply: its text, how it ended, its tokens.
#[derive(Debug, Clone, Default)]
struct Got {
    text: String,
    finish: Option<String>,
    tokens: (u64, u64),
    image: Option<(u32, u32)>,
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
    if ep.two_stage.is_some() || ep.keep_special_tokens {
        // Two-stage models answer layouts in special tokens (`<|box_start|>`), DeepSeek-OCR
        // its boxes (`<|det|>`): vLLM strips them unless told not to.
        r["skip_special_tokens"] = json!(false);
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
    let revision = server_revision(client, budget, opts.model);
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
    let pdfium_digest = super::builtin::PdfiumProvider.model_digest()?;
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
        Some(LayoutSource::CorpusLayout) if !todo.is_empty() => {
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

/// The block kind of each label of corpus's layout detector (CDLA's ten classes).
fn cdla_kind(label: &str) -> Option<BlockKind> {
    Some(match label {
        "text" => BlockKind::Paragraph,
        "title" => BlockKind::Heading,
        "figure" => BlockKind::Figure,
        "figure_caption" | "table_caption" => BlockKind::Caption,
        "table" => BlockKind::Table,
        "header" => BlockKind::PageHeader,
        "footer" => BlockKind::PageFooter,
        "reference" => BlockKind::Reference,
        "equation" => BlockKind::Formula,
        _ => return None,
    })
}

/// Regions of a page by corpus's layout detector, in page points, top to bottom then left to
/// right.
fn detect_regions(
    det: &mut super::layout::Pipeline,
    page: &pdfium_render::prelude::PdfPage<'_>,
    size: Page,
) -> Result<Vec<RegionState>, String> {
    let img = super::layout::render(page, 2.0)?;
    detect_on(det, &img, size)
}

/// Regions of a page image by corpus's layout detector, in the page's units.
fn detect_on(
    det: &mut super::layout::Pipeline,
    img: &Bgr,
    size: Page,
) -> Result<Vec<RegionState>, String> {
    let labels = det.labels();
    let found = det.detect(img).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for d in found {
        let label = labels.get(d.class).cloned().unwrap_or_default();
        let Some(kind) = cdla_kind(&label) else {
            return Err(format!("the layout model gave a label corpus does not know: {label:?}"));
        };
        let sx = size.width / img.width as f32;
        let sy = size.height / img.height as f32;
        let b = BBox::new(d.bbox[0] * sx, d.bbox[1] * sy, d.bbox[2] * sx, d.bbox[3] * sy);
        out.push(RegionState { bbox: b, kind, label, got: None });
    }
    out.sort_by(|a, b| a.bbox.y0.total_cmp(&b.bbox.y0).then(a.bbox.x0.total_cmp(&b.bbox.x0)));
    Ok(out)
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
            (LayoutSource::Model, Some(p)) => {
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

/// The prompt for a region of `kind`, or `None` for a region that is not read (a figure
/// without a chart prompt).
fn region_prompt<'a>(ts: &'a TwoStage, r: &RegionState) -> Option<&'a str> {
    match r.kind {
        BlockKind::Table => Some(&ts.table_prompt),
        BlockKind::Formula => Some(&ts.formula_prompt),
        BlockKind::Figure => match r.label.as_str() {
            "chart" => ts.chart_prompt.as_deref(),
            _ => None,
        },
        BlockKind::Title
        | BlockKind::Heading
        | BlockKind::Paragraph
        | BlockKind::ListItem
        | BlockKind::Caption
        | BlockKind::PageHeader
        | BlockKind::PageFooter
        | BlockKind::Footnote
        | BlockKind::Reference
        | BlockKind::Code => Some(&ts.text_prompt),
    }
}

/// Reads each two-stage page's layout reply into regions, and queues a request for every
/// region without a stored reply.
fn region_round(
    store: &Store,
    pdfium: &Pdfium,
    ctx: &Ctx<'_>,
    batch: &mut [DocJob],
) -> crate::error::Result<Vec<Ask>> {
    let ep = ctx.ep;
    let Some(ts) = &ep.two_stage else { return Ok(Vec::new()) };
    let mut asks = Vec::new();
    for (d, job) in batch.iter_mut().enumerate() {
        if job.pdf.is_empty() {
            continue;
        }
        // Regions from the model's layout reply.
        for i in 0..job.pages.len() {
            let st = &mut job.pages[i];
            if st.regions.is_some() {
                continue;
            }
            let Some(g) = &st.got else { continue };
            let (iw, ih) = g
                .image
                .unwrap_or_else(|| image_size(&ts.layout_image.unwrap_or(ep.image), st.size));
            let seen = Seen { image_width: iw, image_height: ih, page: st.size };
            match reply::mineru_vlm::read_layout(&g.text) {
                Ok(regions) => {
                    let frame = ep.boxes.unwrap_or(BoxFrame::Normalized(1000.0));
                    st.regions = Some(
                        regions
                            .into_iter()
                            // MinerU's `list` and `equation_block` only hold regions that come
                            // on their own; MinerU reads none of them (pictures stay figures).
                            .filter(|r| {
                                r.label == "image" || !reply::mineru_vlm::is_container(&r.label)
                            })
                            .map(|r| RegionState {
                                bbox: reply::to_page(r.bbox, frame, &seen).0,
                                kind: r.kind,
                                label: r.label,
                                got: None,
                            })
                            .collect(),
                    );
                }
                Err(e) => job.errors.push((i, format!("layout reply: {e}"))),
            }
        }
        let page_image: Option<Bgr> = match job.image {
            None => None,
            Some(("image/png", _, _)) => match decode_png(&job.pdf) {
                Ok(img) => Some(img),
                Err(e) => {
                    job.errors.push((0, e));
                    continue;
                }
            },
            Some((mime, _, _)) => {
                job.errors.push((
                    0,
                    format!(
                        "regions of a {mime} page image cannot be cut out (PNG and PDF pages can)"
                    ),
                ));
                continue;
            }
        };
        let doc = if page_image.is_some() {
            None
        } else {
            match super::pdfium::open(pdfium, &job.pdf) {
                Ok(doc) => Some(doc),
                Err(e) => {
                    job.errors.push((0, format!("pdfium cannot open it: {e}")));
                    continue;
                }
            }
        };
        for i in 0..job.pages.len() {
            let size = job.pages[i].size;
            let Some(regions) = job.pages[i].regions.as_mut() else { continue };
            let mut page_img: Option<Bgr> = page_image.clone();
            for (k, r) in regions.iter_mut().enumerate() {
                let Some(prompt) = region_prompt(ts, r) else { continue };
                let part = format!(
                    "region:{k}:{:.1},{:.1},{:.1},{:.1}",
                    r.bbox.x0, r.bbox.y0, r.bbox.x1, r.bbox.y1
                );
                let key = reply_key(ctx.config_text, &job.row.hash, i, &part);
                if let Some(g) = cached(store, &key)? {
                    r.got = Some(g);
                    continue;
                }
                if page_img.is_none() {
                    let (w, h) = image_size(&ep.image, size);
                    let rendered = doc
                        .as_ref()
                        .ok_or_else(|| "no PDF".to_string())
                        .and_then(|doc| {
                            doc.pages().get(i as i32).map_err(|e| format!("pdfium: {e}"))
                        })
                        .and_then(|p| render_sized(&p, w, h));
                    match rendered {
                        Ok(img) => page_img = Some(img),
                        Err(e) => {
                            job.errors.push((i, e));
                            break;
                        }
                    }
                }
                let Some(img) = page_img.as_ref() else { break };
                let (sx, sy) = (img.width as f32 / size.width, img.height as f32 / size.height);
                let x0 = ((r.bbox.x0 * sx).floor().max(0.0) as usize).min(img.width - 1);
                let y0 = ((r.bbox.y0 * sy).floor().max(0.0) as usize).min(img.height - 1);
                let x1 = ((r.bbox.x1 * sx).ceil() as usize).clamp(x0 + 1, img.width);
                let y1 = ((r.bbox.y1 * sy).ceil() as usize).clamp(y0 + 1, img.height);
                let crop = img.crop(x0, y0, x1, y1);
                match data_url(&crop) {
                    Ok(url) => asks.push(Ask {
                        doc: d,
                        page: i,
                        region: Some(k),
                        key,
                        image: (crop.width as u32, crop.height as u32),
                        request: request(ctx.opts.model, ep, prompt, &url, &ctx.opts.sampling),
                    }),
                    Err(e) => job.errors.push((i, e)),
                }
            }
        }
    }
    Ok(asks)
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
    for_each_bounded(
        asks,
        ctx.opts.concurrency,
        |a| match client.chat(&a.request, budget) {
            Err(LlmError::Capped(_)) => None,
            r => Some(r),
        },
        |i, r| {
            let a = &asks[i];
            match r {
                Ok(reply) => {
                    let kept = json!({"text": reply.content, "served_by": reply.model,
                        "finish_reason": reply.finish_reason, "image": [a.image.0, a.image.1]});
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
                    };
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
    match write_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A page's blocks from its replies, or why they cannot be read.
fn read_page_blocks(
    ep: &Endpoint,
    i: usize,
    st: &PageState,
) -> Result<(Vec<Block>, Option<String>), String> {
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
            Ok((r.blocks, r.markdown))
        }
        (Some(ts), Some(regions)) => {
            let mut blocks = Vec::new();
            for r in regions {
                let mut b = Block::new(r.kind, page, r.bbox, "");
                if let Some(g) = &r.got {
                    let text = if g.finish.as_deref() == Some("length") {
                        reply::trim_repetition(&g.text).0
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
                            let latex = strip_math(text);
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
            Ok((blocks, None))
        }
        (Some(_), None) => Err("no layout".into()),
    }
}

/// LaTeX without the `$$`/`\[` delimiters a model may wrap it in.
fn strip_math(s: &str) -> &str {
    let s = s.trim();
    for (a, b) in [("$$", "$$"), ("\\[", "\\]"), ("$", "$")] {
        if let Some(inner) = s.strip_prefix(a).and_then(|r| r.strip_suffix(b)) {
            return inner.trim();
        }
    }
    s
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
    for (i, st) in job.pages.iter().enumerate() {
        doc.pages.push(st.size);
        for g in st.got.iter().chain(st.regions.iter().flatten().filter_map(|r| r.got.as_ref())) {
            pt += g.tokens.0;
            ct += g.tokens.1;
        }
        if job.errors.iter().any(|(p, _)| *p == i) {
            continue;
        }
        match read_page_blocks(ep, i, st) {
            Ok((blocks, page_md)) => {
                doc.blocks.extend(blocks);
                match page_md {
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
    let cost = ctx.opts.price.map(|p| (pt as f64 * p.prompt + ct as f64 * p.completion) / 1e6);
    let usage = Usage {
        pages: job.pages.len() as u64,
        wall_ms: job.t0.elapsed().as_millis() as u64,
        cpu_ms: None,
        prompt_tokens: Some(pt),
        completion_tokens: Some(ct),
        cost_usd: cost,
    };
    record(store, summary, parts, &job.row, &job.key, result, &usage, "remote", ctx.opts.run)?;
    progress.advance(&job.row.name, true);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_resize_matches_qwen2_vl() {
        // Hand-computed with the image processor's rule.
        assert_eq!(smart_resize(2200, 1700, 28, 3136, 11_289_600), (2212, 1708));
        // Too big: scaled down to fit max_pixels, sides floored to the factor.
        let (h, w) = smart_resize(4000, 3000, 28, 3136, 1_003_520);
        assert!(h * w <= 1_003_520 && h % 28 == 0 && w % 28 == 0, "{h}x{w}");
        assert_eq!((h, w), (1148, 840));
        // Too small: scaled up to min_pixels, sides ceiled.
        assert_eq!(smart_resize(20, 20, 28, 3136, 11_289_600), (56, 56));
        // Half rounds to even: 42/28 = 1.5 -> 2; 70/28 = 2.5 -> 2.
        assert_eq!(smart_resize(42, 70, 28, 0, u64::MAX), (56, 56));
    }

    #[test]
    fn image_sizes_follow_the_spec() {
        let letter = Page { width: 612.0, height: 792.0 };
        let dpi = ImageSpec { dpi: Some(200.0), ..ImageSpec::default() };
        assert_eq!(image_size(&dpi, letter), (1700, 2200));
        let long = ImageSpec { longest_side: Some(1288), ..ImageSpec::default() };
        assert_eq!(image_size(&long, letter), (995, 1288));
        let qwen = ImageSpec {
            factor: Some(28),
            min_pixels: Some(3136),
            max_pixels: Some(11_289_600),
            ..dpi
        };
        assert_eq!(image_size(&qwen, letter), (1708, 2212));
    }

    #[test]
    fn math_delimiters_are_removed() {
        assert_eq!(strip_math("$$x^2$$"), "x^2");
        assert_eq!(strip_math(" \\[ a+b \\] "), "a+b");
        assert_eq!(strip_math("\\frac{a}{b}"), "\\frac{a}{b}");
    }
}
