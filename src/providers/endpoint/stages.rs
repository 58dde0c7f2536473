//! The two stages of a layout-first model (MinerU2.5, PaddleOCR-VL, GLM-OCR): regions from
//! the model's layout reply or from corpus's own layout detector, then one request per region
//! with the prompt for its kind. Rules: `docs/endpoints.md` §Two stages.

use super::image::{data_url, decode_png, image_size, render_sized};
use super::{cached, reply_key, request, Ask, Ctx, DocJob, RegionState};
use crate::doc::{BBox, BlockKind, Page};
use crate::formats::reply::{self, BoxFrame, Seen};
use crate::providers::preset::TwoStage;
use crate::providers::raster::Bgr;
use crate::store::Store;
use pdfium_render::prelude::Pdfium;

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
pub(super) fn detect_regions(
    det: &mut crate::providers::layout::Pipeline,
    page: &pdfium_render::prelude::PdfPage<'_>,
    size: Page,
) -> Result<Vec<RegionState>, String> {
    let img = crate::providers::raster::render(page, 2.0)?;
    detect_on(det, &img, size)
}

/// Regions of a page image by corpus's layout detector, in the page's units.
pub(super) fn detect_on(
    det: &mut crate::providers::layout::Pipeline,
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
        let class = crate::providers::layout::assemble::Class::from_label(&label)
            .map(|c| format!("cdla:{}", c.cdla_name()));
        let score = Some(f64::from(d.score));
        out.push(RegionState { bbox: b, kind, label, class, score, got: None });
    }
    out.sort_by(|a, b| a.bbox.y0.total_cmp(&b.bbox.y0).then(a.bbox.x0.total_cmp(&b.bbox.x0)));
    Ok(out)
}

/// The prompt for a region of `kind`, or `None` for a region that is not read (a figure
/// without a chart prompt).
pub(super) fn region_prompt<'a>(ts: &'a TwoStage, r: &RegionState) -> Option<&'a str> {
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
pub(super) fn region_round(
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
                                class: Some(format!("mineru25:{}", r.label.to_ascii_lowercase())),
                                score: None,
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
            match crate::providers::pdfium::open(pdfium, &job.pdf) {
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
