//! `corpus truth draft`: a provider's stored blocks written as a truth a person corrects
//! (`docs/label-studio.md`).
//!
//! Each chosen page of a stored document becomes one OmniDocBench page object
//! ([`crate::formats::omnidocbench`]): the provider's blocks of that page, in its reading order
//! (`order`), categories mapped from [`BlockKind`] ([`category`]), boxes as `poly` in the pixels
//! of the page image rendered at `dpi` ([`crate::providers::raster`]), text, LaTeX for formulas,
//! HTML for tables; and corpus's extension: `corpus_source` (document hash, page, dpi), so that
//! the truth attaches to that page of that document when ingested, and `corpus_draft` (the
//! provider, its version, "not reviewed", a digest of the blocks), so that a truth ingested
//! unchanged is marked a draft. The page images are written beside the JSON (`images/`), so
//! `corpus ingest DIR/draft.json --truth omnidocbench` reads it as it is.
//!
//! Blocks without a box (Markdown imports) are placed by finding their text in the page's text
//! layer (pdfium's extraction, `place`); where it is not found they are region-less
//! transcriptions (`poly` empty). Each block says which in `corpus_placement`, and the summary
//! counts them. With a Label Studio folder, the same pages are written as Label Studio tasks
//! with the labelling configuration ([`crate::formats::label_studio`]).

mod place;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};

use crate::doc::{Block, BlockKind, Doc};
use crate::error::{Error, Result};
use crate::formats::label_studio;
use crate::formats::omnidocbench::{dets_digest, DraftMark, Source};
use crate::progress::Progress;
use crate::providers::{pdfium, raster};
use crate::store::{Store, StoredPdf};

/// The page images' resolution unless asked otherwise.
pub const DEFAULT_DPI: f64 = 144.0;

/// One page of a stored document (page 1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PageRef {
    /// The document's id.
    pub document: i64,
    /// The page, 1-based.
    pub page: u32,
}

/// What to draft.
#[derive(Debug, Clone)]
pub struct DraftOptions<'a> {
    /// The dataset whose documents are drafted.
    pub dataset: &'a str,
    /// The provider whose newest outputs are drafted.
    pub provider: &'a str,
    /// The folder the OmniDocBench JSON (`draft.json`) and `images/` are written to.
    pub out: &'a Path,
    /// Where Label Studio's tasks and configuration go, if anywhere.
    pub label_studio: Option<&'a Path>,
    /// The page images' resolution.
    pub dpi: f64,
}

/// What [`draft`] wrote.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DraftSummary {
    /// The provider drafted from.
    pub provider: String,
    /// Its version (of the outputs drafted; several when outputs differ).
    pub versions: Vec<String>,
    /// Pages drafted.
    pub pages: u64,
    /// Blocks drafted.
    pub blocks: u64,
    /// Blocks whose box is the provider's.
    pub placed_by_provider: u64,
    /// Blocks without a box placed by finding their text in the page's text layer.
    pub placed_by_text_layer: u64,
    /// Blocks written as region-less transcriptions (no box, text not found on the page).
    pub unplaced: u64,
    /// The OmniDocBench JSON written.
    pub json: PathBuf,
    /// The Label Studio tasks written, if asked.
    pub label_studio_tasks: Option<PathBuf>,
    /// The Label Studio labelling configuration written, if asked.
    pub label_studio_config: Option<PathBuf>,
}

/// The first `n` pages (all without `n`) of the documents of `dataset` that have an output of
/// `provider`, in document then page order. An error when the provider has no output there.
pub fn first_pages(
    store: &Store,
    dataset: &str,
    provider: &str,
    n: Option<usize>,
) -> Result<Vec<PageRef>> {
    let mut out = Vec::new();
    for d in store.documents(Some(dataset))? {
        match store.latest_output(d.id, provider)? {
            Some(o) if o.status == "ok" => {}
            _ => continue,
        }
        out.extend((1..=d.pages).map(|page| PageRef { document: d.id, page }));
    }
    if out.is_empty() {
        return Err(no_outputs(dataset, provider));
    }
    out.truncate(n.unwrap_or(usize::MAX));
    Ok(out)
}

fn no_outputs(dataset: &str, provider: &str) -> Error {
    Error::Usage(format!(
        "provider {provider} has no outputs on dataset {dataset}: nothing to draft \
         (run `corpus ocr --provider {provider} --dataset {dataset}` first)"
    ))
}

/// The pages of a ranking (`(document, page)` pairs, best first) kept to the first `n`: how
/// `--most-disagreed` takes the pages `corpus agree` ranks.
pub fn top_pages(ranked: &[PageRef], n: Option<usize>) -> Vec<PageRef> {
    let mut out: Vec<PageRef> = Vec::new();
    for p in ranked {
        if !out.contains(p) {
            out.push(*p);
        }
    }
    out.truncate(n.unwrap_or(usize::MAX));
    out
}

/// The OmniDocBench category of a block (`docs/label-studio.md` lists the mapping): captions
/// are a table's when the block before or after them on the page is a table, a footer that is
/// a number is the page number.
pub fn category(blocks: &[&Block], i: usize) -> &'static str {
    let b = blocks[i];
    match b.kind {
        BlockKind::Title | BlockKind::Heading => "title",
        BlockKind::Paragraph | BlockKind::ListItem => "text_block",
        BlockKind::Caption => {
            let near = |j: Option<usize>| {
                j.and_then(|j| blocks.get(j)).is_some_and(|n| n.kind == BlockKind::Table)
            };
            if near(i.checked_sub(1)) || near(Some(i + 1)) {
                "table_caption"
            } else {
                "figure_caption"
            }
        }
        BlockKind::Table => "table",
        BlockKind::Formula => "equation_isolated",
        BlockKind::Figure => "figure",
        BlockKind::PageHeader => "header",
        BlockKind::PageFooter => {
            let t = b.text.trim();
            if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
                "page_number"
            } else {
                "footer"
            }
        }
        BlockKind::Footnote => "page_footnote",
        BlockKind::Reference => "reference",
        BlockKind::Code => "code_txt",
    }
}

/// The page's blocks as OmniDocBench `layout_dets`: boxes scaled by `scale` pixels per point,
/// `boxes` the box each block was placed at (`None`: region-less) and how.
fn layout_dets(blocks: &[&Block], boxes: &[(Option<crate::doc::BBox>, &str)], scale: f64) -> Value {
    let mut dets = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let cat = category(blocks, i);
        let poly: Vec<f64> = match boxes[i].0 {
            Some(r) => {
                let [x0, y0, x1, y1] = [r.x0, r.y0, r.x1, r.y1]
                    .map(|v| (f64::from(v) * scale * 100.0).round() / 100.0);
                vec![x0, y0, x1, y0, x1, y1, x0, y1]
            }
            None => Vec::new(),
        };
        let mut det = json!({"category_type": cat, "poly": poly, "ignore": false, "order": i,
            "anno_id": i, "text": b.text.trim(), "corpus_placement": boxes[i].1});
        match b.kind {
            BlockKind::Formula => {
                let src = b.latex.as_deref().unwrap_or(&b.text).trim();
                det["latex"] = json!(format!("$${}$$", src.trim_matches('$').trim()));
            }
            BlockKind::Table => {
                if let Some(t) = b.table.as_ref().filter(|t| !t.cells.is_empty()) {
                    det["html"] = json!(t.to_html());
                }
            }
            _ => {}
        }
        dets.push(det);
    }
    Value::Array(dets)
}

/// One page drafted: its OmniDocBench object and its image (PNG).
struct Drafted {
    page: Value,
    image_name: String,
    png: Vec<u8>,
}

/// Drafts `pages` from the newest output of `opts.provider` (see the module docs). Every file
/// is made in memory first: an error (no output, a page the document does not have, a PDF
/// pdfium cannot render) writes nothing.
pub fn draft(
    store: &Store,
    opts: &DraftOptions<'_>,
    pages: &[PageRef],
    progress: &dyn Progress,
) -> Result<DraftSummary> {
    if pages.is_empty() {
        return Err(Error::Usage("no pages to draft".into()));
    }
    if !(opts.dpi.is_finite() && opts.dpi >= 18.0 && opts.dpi <= 600.0) {
        return Err(Error::Usage(format!("--dpi must be between 18 and 600, not {}", opts.dpi)));
    }
    let lib = pdfium::bind().map_err(|e| Error::Native(e.to_string()))?;
    let mut summary = DraftSummary { provider: opts.provider.to_string(), ..Default::default() };
    let mut drafted = Vec::new();
    progress.start(pages.len() as u64);
    let mut k = 0;
    while k < pages.len() {
        let document = pages[k].document;
        let same: Vec<u32> =
            pages[k..].iter().take_while(|p| p.document == document).map(|p| p.page).collect();
        k += same.len();
        drafted.extend(draft_document(store, opts, &lib, document, &same, &mut summary)?);
        for p in &same {
            progress.advance(&format!("{document}:{p}"), true);
        }
    }
    progress.finish();
    write(opts, &drafted, &mut summary)?;
    Ok(summary)
}

/// Drafts the pages of one document.
fn draft_document(
    store: &Store,
    opts: &DraftOptions<'_>,
    lib: &pdfium::Pdfium,
    document: i64,
    pages: &[u32],
    summary: &mut DraftSummary,
) -> Result<Vec<Drafted>> {
    let Some(out) = store.latest_output(document, opts.provider)?.filter(|o| o.status == "ok")
    else {
        return Err(no_outputs(opts.dataset, opts.provider));
    };
    let doc: Doc = match out.blob.as_deref().map(|b| store.blob(b)) {
        Some(Ok(Some(json))) => serde_json::from_slice(&json)?,
        _ => {
            return Err(Error::Usage(format!(
                "output {} of {} is unreadable",
                out.id, opts.provider
            )))
        }
    };
    if !summary.versions.contains(&out.provider_version) {
        summary.versions.push(out.provider_version.clone());
    }
    let hash = store.document_hash(document)?.unwrap_or_default();
    let pdf = match store.pdf(&hash)? {
        Some(StoredPdf::Bytes(b)) => b,
        Some(StoredPdf::Reader(mut r)) => {
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut r, &mut b)
                .map_err(|e| Error::Usage(format!("reading document {hash}: {e}")))?;
            b
        }
        None => return Err(Error::Usage(format!("document {hash} is missing from the store"))),
    };
    let name = store.name_in(document, opts.dataset)?.unwrap_or_else(|| hash[..16].to_string());
    let bad = |msg: String| Error::BadInput { path: name.clone().into(), msg };
    let pdf_doc = pdfium::open(lib, &pdf).map_err(|e| bad(e.to_string()))?;
    let scale = opts.dpi / 72.0;
    let mut outs = Vec::new();
    for &page_no in pages {
        let index = page_no.checked_sub(1).ok_or_else(|| bad("page 0".into()))?;
        let page =
            pdf_doc.pages().get(index as i32).map_err(|_| bad(format!("has no page {page_no}")))?;
        let img =
            raster::render(&page, scale as f32).map_err(|e| bad(format!("page {page_no}: {e}")))?;
        let png = raster::png(&img).map_err(|e| bad(format!("page {page_no}: {e}")))?;
        let blocks: Vec<&Block> = doc.blocks.iter().filter(|b| b.page == index).collect();
        let boxes = place::place(&blocks, &page, index as i32);
        for (_, how) in &boxes {
            match *how {
                place::PROVIDER => summary.placed_by_provider += 1,
                place::TEXT_LAYER => summary.placed_by_text_layer += 1,
                _ => summary.unplaced += 1,
            }
        }
        summary.blocks += blocks.len() as u64;
        let dets = layout_dets(&blocks, &boxes, scale);
        let version = &out.provider_version;
        let mark = DraftMark {
            provider: opts.provider.to_string(),
            version: version.clone(),
            note: format!("drafted from {}@{version}, not reviewed", opts.provider),
            digest: dets_digest(&dets),
        };
        let source = Source { document: hash.clone(), page: page_no, dpi: opts.dpi };
        // OmniDocBench keys a `.png` page by its name less the last `_` part: `<hash>_p<N>`.
        let image_name = format!("{}_p{page_no}_draft.png", &hash[..16]);
        let page_obj = json!({"layout_dets": dets, "extra": {"relation": []},
            "page_info": {"image_path": image_name, "page_no": page_no,
                "width": img.width, "height": img.height,
                "page_attribute": {"corpus_document": name},
                "corpus_source": source, "corpus_draft": mark}});
        outs.push(Drafted { page: page_obj, image_name, png });
        summary.pages += 1;
    }
    Ok(outs)
}

/// Writes the JSON, the images and the Label Studio files.
fn write(opts: &DraftOptions<'_>, drafted: &[Drafted], summary: &mut DraftSummary) -> Result<()> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source: std::io::Error| Error::Io { path, source }
    };
    let images = opts.out.join("images");
    std::fs::create_dir_all(&images).map_err(io(&images))?;
    for d in drafted {
        let p = images.join(&d.image_name);
        std::fs::write(&p, &d.png).map_err(io(&p))?;
    }
    let pages: Vec<&Value> = drafted.iter().map(|d| &d.page).collect();
    let json_path = opts.out.join("draft.json");
    std::fs::write(&json_path, serde_json::to_vec_pretty(&pages)?).map_err(io(&json_path))?;
    summary.json = json_path;
    let Some(dir) = opts.label_studio else { return Ok(()) };
    let ls_images = dir.join("images");
    std::fs::create_dir_all(&ls_images).map_err(io(&ls_images))?;
    let mut tasks = Vec::new();
    for d in drafted {
        let p = ls_images.join(&d.image_name);
        std::fs::write(&p, &d.png).map_err(io(&p))?;
        // Served by Label Studio's local files with its document root at `dir`.
        let url = format!("/data/local-files/?d=images/{}", d.image_name);
        let task = label_studio::task(&d.page, &url, opts.dataset)
            .map_err(|e| Error::Usage(format!("{}: {e}", d.image_name)))?;
        tasks.push(task);
    }
    let tasks_path = dir.join("tasks.json");
    std::fs::write(&tasks_path, serde_json::to_vec_pretty(&tasks)?).map_err(io(&tasks_path))?;
    let config = dir.join("label_config.xml");
    std::fs::write(&config, label_studio::label_config()).map_err(io(&config))?;
    summary.label_studio_tasks = Some(tasks_path);
    summary.label_studio_config = Some(config);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::BBox;

    #[test]
    fn categories_follow_the_block_kinds_and_their_neighbours() {
        let b = |k: BlockKind, t: &str| Block::new(k, 0, BBox::default(), t);
        let blocks = [
            b(BlockKind::Heading, "1 Intro"),
            b(BlockKind::Caption, "Table 1"),
            b(BlockKind::Table, ""),
            b(BlockKind::Caption, "Figure 2"),
            b(BlockKind::PageFooter, "12"),
            b(BlockKind::PageFooter, "Journal"),
            b(BlockKind::Formula, "x"),
        ];
        let refs: Vec<&Block> = blocks.iter().collect();
        let cats: Vec<&str> = (0..refs.len()).map(|i| category(&refs, i)).collect();
        assert_eq!(
            cats,
            [
                "title",
                "table_caption",
                "table",
                "table_caption",
                "page_number",
                "footer",
                "equation_isolated"
            ]
        );
        let mut f = b(BlockKind::Formula, "x");
        f.latex = Some("E=mc^2".into());
        let boxes = [(Some(BBox::new(10.0, 20.0, 30.0, 40.0)), place::PROVIDER)];
        let dets = layout_dets(&[&f], &boxes, 2.0);
        assert_eq!(dets[0]["poly"], json!([20.0, 40.0, 60.0, 40.0, 60.0, 80.0, 20.0, 80.0]));
        assert_eq!(dets[0]["latex"], json!("$$E=mc^2$$"));
        assert_eq!(dets[0]["corpus_placement"], json!("provider"));
    }

    #[test]
    fn top_pages_keeps_the_ranking_order_without_repeats() {
        let p = |d, page| PageRef { document: d, page };
        let ranked = [p(2, 1), p(1, 3), p(2, 1), p(1, 1)];
        assert_eq!(top_pages(&ranked, Some(2)), vec![p(2, 1), p(1, 3)]);
        assert_eq!(top_pages(&ranked, None).len(), 3);
    }
}
