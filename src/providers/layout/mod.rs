//! The `layout` provider: an ONNX pipeline in the spirit of Docling's standard one, on the
//! models that registry packages ship (see `models/layout/`).
//!
//! Per page: pdfium renders it; the CDLA layout model ([`picodet`]) finds regions of ten
//! classes; the page's text layer supplies the words, each given to one region; table
//! regions go through SLANet-plus ([`slanet`]) and their cells are filled with the words
//! inside them; regions are typed and ordered ([`assemble`]). A page with no text layer is
//! read by PP-OCRv4 detection and recognition ([`ocr`]) and its lines take the text layer's
//! place. Sessions are created once per worker and reused for every page.

pub mod assemble;
pub mod ocr;
pub mod picodet;
pub mod runtime;
pub mod slanet;

use ort::session::Session;
use ort::value::TensorRef;
use pdfium_render::prelude::PdfPage;
use serde_json::json;

use self::assemble::{Class, GridPos, Region};
use self::runtime::Device;
use super::manifest::{Installed, ModelInfo};
use super::pdfium::structure::{Glyph, PageTable, TableSource};
use super::pdfium::{self as pdf, Pdfium};
use super::raster::{render, Bgr};
use super::{Engine, PageSelection, Provider};
use crate::doc::{BBox, Doc, Page};
use crate::error::{Error, Result};

/// Bump when the output for the same input and models changes (5: run-in headings are split
/// from the paragraph they open; 6: the page's tables as `pdfium` 6 reads them, and a table
/// region is cut to the lines its text shows as the table's rows, docs/tables.md § 5; 7: each
/// block carries its region's detector score, and a whole region its CDLA class as its label;
/// on an OCR page a Figure region without OCR text stays a picture).
pub const ADAPTER_VERSION: u32 = 7;
/// Pages are rendered at this many pixels per point for the layout and table models
/// (2 = 144 dpi).
pub const RENDER_SCALE: f32 = 2.0;
/// A page with fewer text-layer characters than this is read by OCR.
const OCR_MIN_CHARS: usize = 16;
/// Layout boxes kept above this score; NMS at this IoU (rapid-layout's defaults).
const CONF: f32 = 0.5;
const IOU: f32 = 0.5;

/// The models' manifests, under models/.
pub const LAYOUT_MANIFEST: &str = "layout/layout_cdla.toml";
/// Table structure.
pub const TABLE_MANIFEST: &str = "layout/slanet_plus.toml";
/// Text detection.
pub const DET_MANIFEST: &str = "layout/ppocrv4_det.toml";
/// Text recognition.
pub const REC_MANIFEST: &str = "layout/ppocrv4_rec.toml";
/// Everything the provider loads, the runtime first.
pub const MANIFESTS: [&str; 5] =
    [runtime::RUNTIME_MANIFEST, LAYOUT_MANIFEST, TABLE_MANIFEST, DET_MANIFEST, REC_MANIFEST];

/// The provider's id.
pub const ID: &str = "layout";

/// Creates a session of the layout model on `device`: the error says why it cannot be used.
pub fn check_device(device: Device) -> Result<()> {
    Model::load(LAYOUT_MANIFEST, device).map(|_| ())
}

/// The layout provider.
#[derive(Debug)]
pub struct LayoutProvider;

impl Provider for LayoutProvider {
    fn id(&self) -> &'static str {
        ID
    }

    fn description(&self) -> &'static str {
        "ONNX pipeline: CDLA layout model, SLANet-plus tables, text layer words, PP-OCRv4 for image pages"
    }

    fn adapter_version(&self) -> u32 {
        ADAPTER_VERSION
    }

    fn model_digest(&self) -> Result<String> {
        // Every file is verified (size, blake3) before any work; a new model or runtime is a
        // new digest, so its documents re-run.
        let mut h = blake3::Hasher::new();
        for m in MANIFESTS {
            let d = Installed::find(m)?.verify()?;
            h.update(m.as_bytes());
            h.update(d.as_bytes());
        }
        // libpdfium renders the pages and gives the text layer: a new build can move boxes
        // and glyphs, so its digest (the pdfium provider's) is folded in too.
        h.update(super::pdfium::PdfiumProvider.model_digest()?.as_bytes());
        Ok(h.finalize().to_hex().to_string())
    }

    fn config(&self) -> serde_json::Value {
        json!({"render_scale": RENDER_SCALE, "conf": CONF, "iou": IOU, "ocr_min_chars": OCR_MIN_CHARS})
    }

    fn load(&self) -> Result<Box<dyn Engine>> {
        let device = Device::from_env().map_err(Error::Usage)?;
        Ok(Box::new(LayoutEngine::new(device)?))
    }
}

/// A model with its session and conventions.
struct Model {
    session: Session,
    info: ModelInfo,
}

impl Model {
    fn load(manifest: &'static str, device: Device) -> Result<Model> {
        let inst = Installed::find(manifest)?;
        inst.verify()?;
        let info = inst
            .manifest
            .model
            .clone()
            .ok_or_else(|| Error::Native(format!("{manifest} has no [model] section")))?;
        let session = runtime::session(&inst, device, 1).map_err(Error::Native)?;
        Ok(Model { session, info })
    }
}

/// The model sessions of one worker, reused for every page.
pub struct Pipeline {
    device: Device,
    layout: Model,
    labels: Vec<Option<Class>>,
    table: Model,
    table_dict: Vec<String>,
    /// Detection and recognition, loaded on the first page that needs OCR.
    ocr: Option<(Model, Model, Vec<String>)>,
    buf: Vec<f32>,
}

impl Pipeline {
    /// Loads the layout and table models on `device` (the OCR models load when first needed).
    pub fn new(device: Device) -> Result<Pipeline> {
        let layout = Model::load(LAYOUT_MANIFEST, device)?;
        let labels = layout.info.labels.iter().map(|l| Class::from_label(l)).collect();
        let table = Model::load(TABLE_MANIFEST, device)?;
        let chars = runtime::metadata_lines(&table.session, "character").map_err(Error::Native)?;
        let table_dict = slanet::dictionary(chars);
        Ok(Pipeline { device, layout, labels, table, table_dict, ocr: None, buf: Vec::new() })
    }

    /// The layout model's labels, in output order.
    pub fn labels(&self) -> Vec<String> {
        self.layout.info.labels.clone()
    }

    /// Runs the layout model on a page image: regions in image pixels.
    pub fn detect(&mut self, img: &Bgr) -> Result<Vec<picodet::Detection>> {
        let n = 3 * picodet::INPUT_W * picodet::INPUT_H;
        self.buf.resize(n, 0.0);
        let rgb = self.layout.info.channels == "rgb";
        picodet::preprocess(img, self.layout.info.mean, self.layout.info.std, rgb, &mut self.buf);
        let input = TensorRef::from_array_view((
            [1usize, 3, picodet::INPUT_H, picodet::INPUT_W],
            &self.buf[..],
        ))
        .map_err(native)?;
        let out = self.layout.session.run(ort::inputs![input]).map_err(native)?;
        let mut heads = Vec::with_capacity(out.len());
        for i in 0..out.len() {
            let (shape, data) = out[i].try_extract_tensor::<f32>().map_err(native)?;
            let width = shape.last().copied().unwrap_or(1).max(1) as usize;
            heads.push(picodet::Head { data, width });
        }
        if heads.len() != 8 {
            return Err(Error::Native(format!(
                "layout model gave {} outputs, expected 8",
                heads.len()
            )));
        }
        let (scores, boxes) = heads.split_at(4);
        Ok(picodet::decode(scores, boxes, img.width, img.height, CONF, IOU))
    }

    /// Runs the table model on a table crop: structure and cells in crop pixels.
    pub fn table_structure(&mut self, crop: &Bgr) -> Result<slanet::Structure> {
        let n = 3 * slanet::SIDE * slanet::SIDE;
        self.buf.resize(n, 0.0);
        slanet::preprocess(crop, self.table.info.mean, self.table.info.std, &mut self.buf);
        let input =
            TensorRef::from_array_view(([1usize, 3, slanet::SIDE, slanet::SIDE], &self.buf[..]))
                .map_err(native)?;
        let out = self.table.session.run(ort::inputs![input]).map_err(native)?;
        let (_, locs) = out[0].try_extract_tensor::<f32>().map_err(native)?;
        let (shape, probs) = out[1].try_extract_tensor::<f32>().map_err(native)?;
        let k = shape.last().copied().unwrap_or(1).max(1) as usize;
        Ok(slanet::decode(&self.table_dict, locs, probs, k, crop.width, crop.height))
    }

    /// Reads the text of an image: line boxes in image pixels with their text and score.
    pub fn read_text(&mut self, img: &Bgr) -> Result<Vec<([f32; 4], String, f32)>> {
        if self.ocr.is_none() {
            let det = Model::load(DET_MANIFEST, self.device)?;
            let rec = Model::load(REC_MANIFEST, self.device)?;
            let dict = runtime::metadata_lines(&rec.session, "character").map_err(Error::Native)?;
            self.ocr = Some((det, rec, dict));
        }
        let (det, rec, dict) = self.ocr.as_mut().expect("loaded above");
        let (w, h) = ocr::det_size(img.width, img.height);
        self.buf.resize(3 * w * h, 0.0);
        ocr::det_preprocess(img, w, h, &mut self.buf);
        let input =
            TensorRef::from_array_view(([1usize, 3, h, w], &self.buf[..])).map_err(native)?;
        let boxes = {
            let out = det.session.run(ort::inputs![input]).map_err(native)?;
            let (_, prob) = out[0].try_extract_tensor::<f32>().map_err(native)?;
            ocr::det_boxes(prob, w, h, img.width, img.height)
        };
        let crops: Vec<Bgr> = boxes.iter().map(|b| ocr::line_crop(img, b)).collect();
        // Batches of similar aspect ratio, as rapidocr forms them.
        let mut order: Vec<usize> = (0..crops.len()).collect();
        order.sort_by(|&a, &b| {
            let r = |c: &Bgr| c.width as f32 / c.height.max(1) as f32;
            r(&crops[a]).total_cmp(&r(&crops[b]))
        });
        let mut texts: Vec<Option<(String, f32)>> = vec![None; crops.len()];
        for chunk in order.chunks(ocr::REC_BATCH) {
            let batch: Vec<&Bgr> = chunk.iter().map(|&i| &crops[i]).collect();
            let width = ocr::rec_preprocess(&batch, &mut self.buf);
            let input =
                TensorRef::from_array_view(([batch.len(), 3, ocr::REC_H, width], &self.buf[..]))
                    .map_err(native)?;
            let out = rec.session.run(ort::inputs![input]).map_err(native)?;
            let (shape, scores) = out[0].try_extract_tensor::<f32>().map_err(native)?;
            let k = shape.last().copied().unwrap_or(1).max(1) as usize;
            let per = scores.len() / batch.len().max(1);
            for (j, &i) in chunk.iter().enumerate() {
                texts[i] = ocr::ctc(&scores[j * per..(j + 1) * per], k, dict);
            }
        }
        Ok(boxes.into_iter().zip(texts).filter_map(|(b, t)| t.map(|(s, p)| (b, s, p))).collect())
    }

    fn page(
        &mut self,
        page: &PdfPage<'_>,
        index: u32,
    ) -> std::result::Result<(Page, Vec<assemble::PageBlock>, Vec<Glyph>), String> {
        let pg = pdf::extract::page_glyphs(page, index as i32);
        let size = Page { width: pg.width, height: pg.height };
        let img = render(page, RENDER_SCALE).map_err(|e| format!("page {}: {e}", index + 1))?;
        let scale = img.width as f32 / size.width.max(1.0);
        let chars = pg.glyphs.iter().filter(|g| g.ch != ' ').count();
        let ocr_page = chars < OCR_MIN_CHARS;
        let dets = self.detect(&img).map_err(|e| format!("page {}: layout: {e}", index + 1))?;
        // The tables the page's own rules draw: snapped to, or added where the model missed
        // them (docs/tables.md § 5).
        // The tables the `pdfium` provider reads on this page (drawn grids, rule stacks,
        // aligned cells): snapped to, split by, or added where the model missed them
        // (docs/tables.md § 5).
        let drawn = if !ocr_page { pdf::structure::page_tables(&pg) } else { Vec::new() };
        let mut taken = vec![false; drawn.len()];
        let glyphs = if ocr_page {
            let lines =
                self.read_text(&img).map_err(|e| format!("page {}: OCR: {e}", index + 1))?;
            ocr_glyphs(&lines, scale)
        } else {
            pg.glyphs
        };
        let mut regions = Vec::with_capacity(dets.len());
        for d in dets {
            let Some(class) = self.labels.get(d.class).copied().flatten() else { continue };
            let mut bbox = BBox::new(
                d.bbox[0] / scale,
                d.bbox[1] / scale,
                d.bbox[2] / scale,
                d.bbox[3] / scale,
            );
            let class = ocr_page_class(class, &bbox, ocr_page, &glyphs);
            let mut cells = Vec::new();
            let mut table = None;
            if class == Class::Table {
                if let Some(i) = same_table(&bbox, &drawn, &taken, true) {
                    taken[i] = true;
                    bbox = bbox.union(&drawn[i].bbox);
                    table = Some(drawn[i].table.clone());
                }
            }
            if class == Class::Table && table.is_none() {
                // One region over several tables the page shows apart: the page splits what
                // the model merged.
                let parts = held_tables(&bbox, &drawn, &taken);
                if parts.len() >= 2 {
                    for i in parts {
                        taken[i] = true;
                        regions.push(Region {
                            class,
                            score: d.score,
                            bbox: drawn[i].bbox,
                            cells: Vec::new(),
                            ruled: Some(drawn[i].table.clone()),
                        });
                    }
                    continue;
                }
            }
            if class == Class::Table && table.is_none() {
                // The model's box, cut to the lines the page shows as the table's rows (no
                // prose, no other font size, no line beyond a spacing change at its edges).
                let trimmed = if ocr_page {
                    bbox
                } else {
                    pdf::structure::trim_table_box(&glyphs, size.width, bbox)
                };
                let px = if trimmed == bbox {
                    d.bbox
                } else {
                    [trimmed.x0 * scale, trimmed.y0 * scale, trimmed.x1 * scale, trimmed.y1 * scale]
                };
                bbox = trimmed;
                let (x0, y0) = (px[0].floor().max(0.0) as usize, px[1].floor().max(0.0) as usize);
                let (x1, y1) = (px[2].ceil() as usize, px[3].ceil() as usize);
                let crop = img.crop(x0, y0, x1, y1);
                if crop.width >= 8 && crop.height >= 8 {
                    let s = self
                        .table_structure(&crop)
                        .map_err(|e| format!("page {}: table: {e}", index + 1))?;
                    let (_, _, grid) = slanet::grid(&s.tokens);
                    for c in grid {
                        let Some(b) = s.cells.get(c.index) else { continue };
                        let pos = GridPos {
                            row: c.row,
                            col: c.col,
                            row_span: c.row_span,
                            col_span: c.col_span,
                            header: c.header,
                        };
                        let to_pt = |v: f32, o: usize| (v + o as f32) / scale;
                        cells.push((
                            pos,
                            BBox::new(
                                to_pt(b[0], x0),
                                to_pt(b[1], y0),
                                to_pt(b[2], x0),
                                to_pt(b[3], y0),
                            ),
                        ));
                    }
                }
            }
            // Where the page reads the same table (a rule stack or aligned cells, IoU >= 0.5),
            // the reading that holds the text better is kept (docs/tables.md § 5).
            if !cells.is_empty() {
                if let Some(i) = same_table(&bbox, &drawn, &taken, false) {
                    let region = Region { class, score: d.score, bbox, cells, ruled: None };
                    // The region's glyphs once, not the page's for every cell.
                    let held: Vec<Glyph> =
                        glyphs.iter().filter(|g| centre_in(g, &bbox)).copied().collect();
                    let page_reads_better = merged_rows(&region.cells, &held)
                        || merged_columns(&region.cells, &held)
                        || assemble::fill_table(&region, &held)
                            .is_none_or(|m| page_fits_better(&m, &drawn[i].table));
                    cells = region.cells;
                    if page_reads_better {
                        taken[i] = true;
                        bbox = bbox.union(&drawn[i].bbox);
                        table = Some(drawn[i].table.clone());
                        cells.clear();
                    }
                }
            }
            regions.push(Region { class, score: d.score, bbox, cells, ruled: table });
        }
        add_missed_tables(&mut regions, &drawn, &taken);
        let blocks = assemble::page_blocks(index, size, &glyphs, &regions);
        Ok((size, blocks, glyphs))
    }
}

/// A table region and a ruled table are the same table when their boxes' intersection over
/// union is at least this.
const SNAP_IOU: f32 = 0.5;

/// The drawn grid (a lattice, not yet taken by another region) that is the same table as the
/// model's region `bbox`: the one of highest IoU, when that is at least [`SNAP_IOU`]. Rule
/// stacks and aligned cells state rows or nothing: there the model's structure is kept.
fn same_table(
    bbox: &BBox,
    drawn: &[PageTable],
    used: &[bool],
    lattice_only: bool,
) -> Option<usize> {
    let iou = |a: &BBox, b: &BBox| {
        let i = a.overlap(b);
        let u = a.area() + b.area() - i;
        if u > 0.0 {
            i / u
        } else {
            0.0
        }
    };
    drawn
        .iter()
        .enumerate()
        .filter(|(i, t)| !used[*i] && (!lattice_only || t.source == TableSource::Lattice))
        .map(|(i, t)| (i, iou(bbox, &t.bbox)))
        .filter(|&(_, v)| v >= SNAP_IOU)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// A reading that misses this share of the words the other holds has lost text.
const LOST_WORDS: f64 = 0.2;
/// A reading with this share of words the other does not hold reaches over other text.
const EXTRA_WORDS: f64 = 0.1;
/// A reading with this share of empty cells or more is sparse.
const SPARSE: f64 = 0.2;

/// Whether the page's reading of a table holds its text better than the model's (both read
/// from the text layer): the model's cells miss a fifth or more of the words the page's hold,
/// or leave more of their cells empty, or hold a tenth or more words the page's table does
/// not while the page's reading leaves few cells empty (the model's region reaches over text
/// that is not the table's). docs/tables.md § 5.
fn page_fits_better(model: &crate::doc::Table, page: &crate::doc::Table) -> bool {
    fn words(t: &crate::doc::Table) -> std::collections::HashMap<&str, usize> {
        let mut m = std::collections::HashMap::new();
        for w in t.cells.iter().flat_map(|c| c.text.split_whitespace()) {
            *m.entry(w).or_default() += 1;
        }
        m
    }
    // The share of `a`'s words (with multiplicity) that `b` lacks.
    fn missing(
        a: &std::collections::HashMap<&str, usize>,
        b: &std::collections::HashMap<&str, usize>,
    ) -> f64 {
        let total: usize = a.values().sum();
        let lacking: usize =
            a.iter().map(|(w, &n)| n.saturating_sub(*b.get(w).unwrap_or(&0))).sum();
        lacking as f64 / total.max(1) as f64
    }
    fn empty(t: &crate::doc::Table) -> f64 {
        t.cells.iter().filter(|c| c.text.trim().is_empty()).count() as f64
            / t.cells.len().max(1) as f64
    }
    let (m, p) = (words(model), words(page));
    let (empty_m, empty_p) = (empty(model), empty(page));
    missing(&p, &m) >= LOST_WORDS
        || empty_m > empty_p
        || (missing(&m, &p) >= EXTRA_WORDS && empty_p < SPARSE)
}

/// The glyphs (spaces left out) whose centres lie in `b`.
fn glyphs_in<'a>(b: &BBox, glyphs: &'a [Glyph]) -> Vec<&'a Glyph> {
    glyphs.iter().filter(|g| !g.ch.is_whitespace() && centre_in(g, b)).collect()
}

/// Whether a glyph's centre lies in `b`.
fn centre_in(g: &Glyph, b: &BBox) -> bool {
    let (cx, cy) = ((g.bbox.x0 + g.bbox.x1) * 0.5, (g.bbox.y0 + g.bbox.y1) * 0.5);
    cx >= b.x0 && cx <= b.x1 && cy >= b.y0 && cy <= b.y1
}

/// A gap this many ems wide inside a cell's line is a column gutter, not a word space.
const GUTTER: f32 = 1.0;

/// Whether the model's cells merge columns the text shows apart: two or more one-column cells
/// of one column each hold a line with a gutter (a gap of [`GUTTER`] ems or more) inside it.
fn merged_columns(cells: &[(GridPos, BBox)], glyphs: &[Glyph]) -> bool {
    let mut gutters: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for (pos, b) in cells {
        if pos.col_span != 1 {
            continue;
        }
        let mut inside = glyphs_in(b, glyphs);
        // By line (centres closer than half a glyph height), then left to right.
        inside.sort_by(|a, b| {
            let (ya, yb) = ((a.bbox.y0 + a.bbox.y1) * 0.5, (b.bbox.y0 + b.bbox.y1) * 0.5);
            if (ya - yb).abs() < 0.5 * a.size.max(1.0) {
                a.bbox.x0.total_cmp(&b.bbox.x0)
            } else {
                ya.total_cmp(&yb)
            }
        });
        let gutter = inside.windows(2).any(|w| {
            let same_line =
                ((w[0].bbox.y0 + w[0].bbox.y1) * 0.5 - (w[1].bbox.y0 + w[1].bbox.y1) * 0.5).abs()
                    < 0.5 * w[0].size.max(1.0);
            same_line && w[1].bbox.x0 - w[0].bbox.x1 >= GUTTER * w[0].size.max(1.0)
        });
        if gutter {
            *gutters.entry(pos.col).or_default() += 1;
        }
    }
    gutters.values().any(|&n| n >= 2)
}

/// Whether the model's cells merge rows the text shows apart: two or more cells of one row
/// each hold two or more lines of text (one wrapped cell beside one-line cells is a row; a
/// row of several two-line cells is two rows read as one).
fn merged_rows(cells: &[(GridPos, BBox)], glyphs: &[Glyph]) -> bool {
    let mut multi: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for (pos, b) in cells {
        if pos.row_span != 1 {
            continue;
        }
        let mut ys: Vec<(f32, f32)> = glyphs_in(b, glyphs)
            .into_iter()
            .map(|g| ((g.bbox.y0 + g.bbox.y1) * 0.5, g.size))
            .collect();
        ys.sort_by(|a, b| a.0.total_cmp(&b.0));
        let lines = 1 + ys.windows(2).filter(|w| w[1].0 - w[0].0 > 0.6 * w[0].1.max(1.0)).count();
        if !ys.is_empty() && lines >= 2 {
            *multi.entry(pos.row).or_default() += 1;
        }
    }
    multi.values().any(|&n| n >= 2)
}

/// The page's tables (not yet taken) that lie mostly (half their area or more) inside `bbox`.
fn held_tables(bbox: &BBox, drawn: &[PageTable], used: &[bool]) -> Vec<usize> {
    (0..drawn.len())
        .filter(|&i| !used[i] && bbox.overlap(&drawn[i].bbox) >= 0.5 * drawn[i].bbox.area())
        .collect()
}

/// Adds each of the page's tables that no table region overlaps as a table the model missed,
/// and drops the regions with half or more of their area inside it (docs/tables.md § 5).
fn add_missed_tables(regions: &mut Vec<Region>, drawn: &[PageTable], used: &[bool]) {
    for (i, t) in drawn.iter().enumerate() {
        let seen = regions.iter().any(|r| r.class == Class::Table && r.bbox.overlap(&t.bbox) > 0.0);
        if used[i] || seen {
            continue;
        }
        regions.retain(|r| r.bbox.overlap(&t.bbox) < 0.5 * r.bbox.area());
        let ruled = Some(t.table.clone());
        regions.push(Region {
            class: Class::Table,
            score: 1.0,
            bbox: t.bbox,
            cells: vec![],
            ruled,
        });
    }
}

fn native(e: impl std::fmt::Display) -> Error {
    Error::Native(e.to_string())
}

/// OCR lines as text-layer glyphs: each line's characters spread evenly over its box, so
/// the rest of the pipeline treats an image page like a digital one.
/// A region's class on a page read by OCR: the detector sees handwriting and photographed
/// text as pictures, so a Figure region holding text OCR read (a glyph's centre inside it) is
/// text; a Figure with no text in it stays a picture (it would otherwise be a text region
/// without text, and dropped). Other pages and classes keep theirs.
fn ocr_page_class(class: Class, bbox: &BBox, ocr_page: bool, glyphs: &[Glyph]) -> Class {
    let inside = |g: &Glyph| {
        let (x, y) = ((g.bbox.x0 + g.bbox.x1) * 0.5, (g.bbox.y0 + g.bbox.y1) * 0.5);
        g.ch != ' ' && x >= bbox.x0 && x <= bbox.x1 && y >= bbox.y0 && y <= bbox.y1
    };
    match class {
        Class::Figure if ocr_page && glyphs.iter().any(inside) => Class::Text,
        c => c,
    }
}

fn ocr_glyphs(lines: &[([f32; 4], String, f32)], scale: f32) -> Vec<Glyph> {
    let mut out = Vec::new();
    for (b, text, _) in lines {
        let chars: Vec<char> = text.chars().collect();
        if chars.is_empty() {
            continue;
        }
        let (x0, y0, x1, y1) = (b[0] / scale, b[1] / scale, b[2] / scale, b[3] / scale);
        let w = (x1 - x0) / chars.len() as f32;
        let size = (y1 - y0) * 0.8;
        for (i, &ch) in chars.iter().enumerate() {
            let gx = x0 + i as f32 * w;
            let ch = if ch.is_whitespace() { ' ' } else { ch };
            out.push(Glyph { ch, bbox: BBox::new(gx, y0, gx + w, y1), size, bold: false });
        }
    }
    out
}

/// pdfium and the pipeline of one worker.
pub struct LayoutEngine {
    pdfium: Pdfium,
    pipeline: Pipeline,
}

impl LayoutEngine {
    /// Binds pdfium and loads the models on `device`.
    pub fn new(device: Device) -> Result<LayoutEngine> {
        let pdfium = pdf::bind().map_err(|e| Error::Native(e.to_string()))?;
        Ok(LayoutEngine { pdfium, pipeline: Pipeline::new(device)? })
    }
}

impl Engine for LayoutEngine {
    fn run(&mut self, bytes: &[u8], pages: &PageSelection) -> std::result::Result<Doc, String> {
        let doc = pdf::open(&self.pdfium, bytes).map_err(|e| e.to_string())?;
        {
            let n = doc.pages().len();
            let mut sizes = Vec::with_capacity(n as usize);
            let mut page_blocks = Vec::new();
            let mut glyphs = Vec::new();
            for i in 0..n {
                let page = doc
                    .pages()
                    .get(i)
                    .map_err(|e| format!("page {}: {}", i + 1, pdf::describe(&e)))?;
                let idx = i as u32;
                if !pages.contains(idx) {
                    sizes.push(Page { width: page.width().value, height: page.height().value });
                    continue;
                }
                let (size, blocks, g) = self.pipeline.page(&page, idx)?;
                sizes.push(size);
                page_blocks.push(blocks);
                glyphs.push(g);
            }
            let body = assemble::common_size(glyphs.iter().flatten());
            let first_h = sizes.first().map_or(792.0, |p| p.height);
            Ok(Doc {
                pages: sizes,
                blocks: assemble::finish(page_blocks, body, first_h),
                markdown: None,
                meta: None,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_picture_on_a_scanned_page_stays_a_picture_unless_ocr_read_text_in_it() {
        use super::{ocr_glyphs, ocr_page_class, BBox, Class};
        // One OCR line at (100..200, 100..120) in pixels of a 2× render.
        let glyphs = ocr_glyphs(&[([200.0, 200.0, 400.0, 240.0], "Hello".into(), 0.9)], 2.0);
        let over_text = BBox::new(90.0, 90.0, 210.0, 130.0);
        let photo = BBox::new(300.0, 300.0, 500.0, 500.0);
        assert_eq!(ocr_page_class(Class::Figure, &over_text, true, &glyphs), Class::Text);
        assert_eq!(ocr_page_class(Class::Figure, &photo, true, &glyphs), Class::Figure);
        assert_eq!(ocr_page_class(Class::Figure, &over_text, false, &glyphs), Class::Figure);
        assert_eq!(ocr_page_class(Class::Table, &over_text, true, &glyphs), Class::Table);
    }

    use super::*;

    #[test]
    fn the_provider_registry_agrees_with_the_model_manifests() {
        use crate::providers::manifest::{Manifest, MANIFESTS as ALL};
        // Every provider that loads models names manifests that are compiled in and parse.
        let layout = crate::providers::find(ID).unwrap();
        assert_eq!(layout.id(), ID);
        for path in MANIFESTS {
            let text = ALL.iter().find(|(p, _)| *p == path).map(|(_, t)| *t);
            let m = Manifest::parse(text.unwrap_or_else(|| panic!("{path} not compiled in")), path)
                .unwrap();
            assert_eq!(m.source.registry, "pypi", "{path}");
            assert_eq!(m.source.blake3.as_deref().map(str::len), Some(64), "{path}");
            if m.task == "runtime" {
                assert!(m.model.is_none());
                continue;
            }
            let info = m.model.unwrap_or_else(|| panic!("{path}: no [model]"));
            assert_eq!(info.input.len(), 3, "{path}");
            assert!(matches!(info.channels.as_str(), "bgr" | "rgb"), "{path}");
            assert!(info.std.iter().all(|&s| s > 0.0), "{path}");
        }
        // The layout model's labels are exactly the classes the pipeline types.
        let m = Manifest::parse(crate::providers::manifest::text(LAYOUT_MANIFEST), LAYOUT_MANIFEST)
            .unwrap();
        let labels = m.model.unwrap().labels;
        assert_eq!(labels.len(), 10);
        assert!(labels.iter().all(|l| Class::from_label(l).is_some()), "{labels:?}");
        // The input sizes the code uses are the manifests'.
        let t = Manifest::parse(crate::providers::manifest::text(TABLE_MANIFEST), TABLE_MANIFEST)
            .unwrap();
        assert_eq!(t.model.unwrap().input, vec![3, slanet::SIDE as u32, slanet::SIDE as u32]);
        let l = Manifest::parse(crate::providers::manifest::text(LAYOUT_MANIFEST), LAYOUT_MANIFEST)
            .unwrap();
        assert_eq!(
            l.model.unwrap().input,
            vec![3, picodet::INPUT_H as u32, picodet::INPUT_W as u32]
        );
        let r =
            Manifest::parse(crate::providers::manifest::text(REC_MANIFEST), REC_MANIFEST).unwrap();
        assert_eq!(r.model.unwrap().input[1], ocr::REC_H as u32);
    }

    #[test]
    fn ocr_lines_become_evenly_spaced_glyphs() {
        let g = ocr_glyphs(&[([0.0, 0.0, 40.0, 20.0], "ab c".into(), 0.9)], 2.0);
        assert_eq!(g.len(), 4);
        assert_eq!(g[2].ch, ' ');
        assert!((g[1].bbox.x0 - 5.0).abs() < 1e-5);
        assert!((g[0].size - 8.0).abs() < 1e-5);
    }

    #[test]
    fn body_size_is_the_most_common() {
        let gl = |size: f32, n: usize| {
            vec![Glyph { ch: 'a', bbox: BBox::new(0.0, 0.0, 1.0, 1.0), size, bold: false }; n]
        };
        let mut p = gl(10.0, 50);
        p.extend(gl(14.0, 10));
        assert_eq!(assemble::common_size(&p), 10.0);
    }

    #[test]
    fn a_table_region_snaps_to_the_drawn_grid_it_overlaps_most() {
        let ruled = vec![
            page_table(BBox::new(100.0, 100.0, 300.0, 200.0), TableSource::Lattice),
            page_table(BBox::new(100.0, 300.0, 300.0, 400.0), TableSource::Lattice),
            page_table(BBox::new(110.0, 310.0, 290.0, 390.0), TableSource::Lattice),
        ];
        // The model's box a little off the drawn one.
        let region = BBox::new(95.0, 305.0, 305.0, 395.0);
        assert_eq!(same_table(&region, &ruled, &[false; 3], true), Some(1));
        assert_eq!(same_table(&region, &ruled, &[false, true, false], true), Some(2));
        // A region over two tables, or half of one, is the model's.
        assert_eq!(
            same_table(&BBox::new(100.0, 100.0, 300.0, 400.0), &ruled, &[false; 3], true),
            None
        );
        assert_eq!(
            same_table(&BBox::new(100.0, 100.0, 170.0, 200.0), &ruled, &[false; 3], true),
            None
        );
        // Rule stacks and aligned cells do not state columns: the model's structure stays.
        for source in [TableSource::RuleStack, TableSource::Alignment] {
            let stack = vec![page_table(BBox::new(100.0, 300.0, 300.0, 400.0), source)];
            assert_eq!(same_table(&region, &stack, &[false], true), None, "{source:?}");
        }
    }

    fn page_table(bbox: BBox, source: TableSource) -> PageTable {
        let table = crate::doc::Table { rows: 2, cols: 2, cells: Vec::new() };
        PageTable { bbox, table, source }
    }

    /// 10 pt glyphs, 5 pt apart, from (x, y).
    fn run(x: f32, y: f32, text: &str) -> Vec<Glyph> {
        text.chars()
            .enumerate()
            .map(|(i, ch)| Glyph {
                ch,
                bbox: BBox::new(x + i as f32 * 5.0, y, x + i as f32 * 5.0 + 5.0, y + 10.0),
                size: 10.0,
                bold: false,
            })
            .collect()
    }

    /// A one-slot model cell.
    fn cell(row: u32, col: u32, b: BBox) -> (GridPos, BBox) {
        (GridPos { row, col, row_span: 1, col_span: 1, header: false }, b)
    }

    #[test]
    fn rows_merged_by_the_model_are_told_from_a_wrapped_cell() {
        // Two text rows, y 100 and 114; the model's row 0 holds both, in both columns.
        let mut page = run(100.0, 100.0, "base");
        page.extend(run(200.0, 100.0, "71.2"));
        page.extend(run(100.0, 114.0, "large"));
        page.extend(run(200.0, 114.0, "75.9"));
        let merged = [
            cell(0, 0, BBox::new(95.0, 95.0, 180.0, 128.0)),
            cell(0, 1, BBox::new(195.0, 95.0, 260.0, 128.0)),
        ];
        assert!(merged_rows(&merged, &page));
        // One cell wrapped over two lines beside a one-line cell: one row.
        let mut wrapped = run(100.0, 100.0, "a long");
        wrapped.extend(run(100.0, 114.0, "label"));
        wrapped.extend(run(200.0, 107.0, "71.2"));
        assert!(!merged_rows(&merged, &wrapped));
        // Each row in its own cells: nothing merged.
        let split = [
            cell(0, 0, BBox::new(95.0, 95.0, 180.0, 112.0)),
            cell(0, 1, BBox::new(195.0, 95.0, 260.0, 112.0)),
            cell(1, 0, BBox::new(95.0, 112.0, 180.0, 128.0)),
            cell(1, 1, BBox::new(195.0, 112.0, 260.0, 128.0)),
        ];
        assert!(!merged_rows(&split, &page));
    }

    #[test]
    fn columns_merged_by_the_model_show_a_gutter_inside_its_cells() {
        // Two text columns at x 100 and 150 (a 30 pt gutter); the model reads one column.
        let mut page = run(100.0, 100.0, "base");
        page.extend(run(150.0, 100.0, "71.2"));
        page.extend(run(100.0, 114.0, "xl"));
        page.extend(run(150.0, 114.0, "75.9"));
        let merged = [
            cell(0, 0, BBox::new(95.0, 95.0, 180.0, 112.0)),
            cell(1, 0, BBox::new(95.0, 112.0, 180.0, 128.0)),
        ];
        assert!(merged_columns(&merged, &page));
        let split = [
            cell(0, 0, BBox::new(95.0, 95.0, 130.0, 112.0)),
            cell(0, 1, BBox::new(145.0, 95.0, 180.0, 112.0)),
            cell(1, 0, BBox::new(95.0, 112.0, 130.0, 128.0)),
            cell(1, 1, BBox::new(145.0, 112.0, 180.0, 128.0)),
        ];
        assert!(!merged_columns(&split, &page));
        // One cell with a wide gap is not enough: two cells of the column must show it.
        assert!(!merged_columns(&merged[..1], &page));
    }

    #[test]
    fn the_reading_that_holds_the_text_better_is_kept() {
        use crate::doc::Table;
        let table = |rows: &[&[&str]]| Table::from_rows(rows, 1);
        let page = table(&[&["Model", "Acc"], &["base", "71.2"], &["large", "75.9"]]);
        // The same words, the same empties: the model's structure stays.
        assert!(!page_fits_better(&page.clone(), &page));
        // The model lost a row's words (its cells missed them).
        let lost = table(&[&["Model", "Acc"], &["base", "71.2"], &["", ""]]);
        assert!(page_fits_better(&lost, &page));
        // The model split cells the page reads whole, leaving some empty.
        let sparse = table(&[&["Model", "Acc", ""], &["base", "71.2", ""], &["large", "", "75.9"]]);
        assert!(page_fits_better(&sparse, &page));
        // The model's region reached over a caption the page's table leaves out.
        let over = table(&[
            &["Table 1: scores", ""],
            &["Model", "Acc"],
            &["base", "71.2"],
            &["large", "75.9"],
        ]);
        assert!(page_fits_better(&over, &page));
        // ... unless the page's reading is itself sparse.
        let sparse_page =
            table(&[&["Model", "", "Acc"], &["base", "", "71.2"], &["large", "", "75.9"]]);
        let over_full = table(&[
            &["Table 1", "scores"],
            &["Model", "Acc"],
            &["base", "71.2"],
            &["large", "75.9"],
        ]);
        assert!(!page_fits_better(&over_full, &sparse_page));
    }

    #[test]
    fn a_region_over_several_of_the_pages_tables_is_split_into_them() {
        let drawn = vec![
            page_table(BBox::new(100.0, 100.0, 300.0, 200.0), TableSource::RuleStack),
            page_table(BBox::new(100.0, 220.0, 300.0, 300.0), TableSource::Alignment),
            page_table(BBox::new(100.0, 500.0, 300.0, 600.0), TableSource::Lattice),
        ];
        // The model's region covers the first two tables and a margin around them.
        let region = BBox::new(90.0, 95.0, 310.0, 310.0);
        assert_eq!(held_tables(&region, &drawn, &[false; 3]), [0, 1]);
        assert_eq!(held_tables(&region, &drawn, &[true, false, false]), [1]);
        // Less than half of a table inside the region: not held.
        assert!(held_tables(&BBox::new(90.0, 95.0, 310.0, 140.0), &drawn, &[false; 3]).is_empty());
    }

    #[test]
    fn a_table_the_model_missed_is_added_and_replaces_what_it_holds() {
        let region = |class, bbox| Region { class, score: 0.9, bbox, cells: vec![], ruled: None };
        let grid = BBox::new(100.0, 100.0, 300.0, 200.0);
        let ruled = vec![
            page_table(grid, TableSource::Alignment),
            page_table(BBox::new(100.0, 500.0, 300.0, 600.0), TableSource::Lattice),
        ];
        let mut regions = vec![
            // Text the detector saw inside the first table, and a paragraph below it.
            region(Class::Text, BBox::new(105.0, 105.0, 295.0, 150.0)),
            region(Class::Text, BBox::new(100.0, 210.0, 300.0, 260.0)),
            // A table region over part of the second grid: that one is the model's.
            region(Class::Table, BBox::new(100.0, 550.0, 300.0, 620.0)),
        ];
        add_missed_tables(&mut regions, &ruled, &[false, false]);
        let kinds: Vec<(Class, bool)> =
            regions.iter().map(|r| (r.class, r.ruled.is_some())).collect();
        assert_eq!(
            kinds,
            [(Class::Text, false), (Class::Table, false), (Class::Table, true)],
            "the text inside the table is dropped, it is a table, the other grid is left"
        );
        assert_eq!(regions[2].bbox, grid);
        // A table already taken by a region is not added again.
        let mut none = Vec::new();
        add_missed_tables(&mut none, &ruled[..1], &[true]);
        assert!(none.is_empty());
    }
}
