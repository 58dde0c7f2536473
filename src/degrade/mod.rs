//! `corpus degrade`: scanned, faxed, photographed and damaged twins of a dataset's pages, with
//! the same truths (`docs/degrade.md`).
//!
//! Each document of the dataset becomes, per profile, an image-only PDF (no text layer) in the
//! dataset `<dataset>~<profile>`, under the same name, with the attributes `degrade_source`
//! (the source's content hash), `degrade_source_dataset`, `degrade_profile` (every parameter,
//! JSON), `degrade_seed` and `degrade_pages` (what each page drew), and the source's truths
//! with their boxes moved by each page's homography ([`truth::move_truth`]). A page's random
//! draws come from a seed made of the user's seed, the source's hash, the page and the profile,
//! so a twin does not depend on which other documents or shards there are, and the same seed
//! gives the same bytes (and so changes nothing in the store when run again).
//!
//! A document is stored whole or not at all (one transaction); one that fails (a page that
//! cannot be rendered, a truth whose boxes cannot be moved) is named, recorded as an ingest
//! error, and the others go on.

pub mod geometry;
pub mod ops;
pub mod pdf;
pub mod profile;
pub mod truth;

use crate::error::{Error, Result};
use crate::formats::TruthFormat;
use crate::metrics::stats::Rng;
use crate::progress::Progress;
use crate::providers::{pdfium, raster};
use crate::store::{IngestDoc, PdfData, Store, StoredPdf, TruthFile};

pub use profile::Profile;

/// Separates a source dataset's name from the profile in a twin dataset's name.
pub const SEPARATOR: char = '~';

/// What to degrade.
#[derive(Debug, Clone)]
pub struct DegradeOptions<'a> {
    /// The source dataset.
    pub dataset: &'a str,
    /// The profiles, each giving one twin dataset.
    pub profiles: &'a [Profile],
    /// The seed.
    pub seed: u64,
}

/// What one profile did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ProfileSummary {
    /// The profile as written.
    pub profile: String,
    /// The twin dataset.
    pub dataset: String,
    /// Twins stored that the store did not have.
    pub new: u64,
    /// Twins the store had already (the same bytes under the same name).
    pub unchanged: u64,
    /// Documents that failed (named on stderr and recorded).
    pub failed: u64,
    /// Pages made.
    pub pages: u64,
    /// Truth files the twins carry.
    pub truths: u64,
    /// Each failure: the document and why.
    pub failures: Vec<(String, String)>,
}

/// The twin dataset's name: `<dataset>~<profile>`.
pub fn twin_dataset(dataset: &str, profile: &Profile) -> String {
    format!("{dataset}{SEPARATOR}{}", profile.spec)
}

/// Makes the twins of every document of the dataset for every profile. An empty (or unknown)
/// dataset is a usage error.
///
/// A task's handle ([`Store::open_shard_task`], `degrade --shard K/N --into FILE`) sees only the
/// documents of its shard (by their content hash, as `ocr` shards) and writes the twins into its
/// shard file, for `corpus merge`; a shard that holds none of the dataset's documents has
/// nothing to do (every count 0). A twin depends only on its source, the profile and the seed,
/// so the twins are the same bytes however the dataset is sharded.
pub fn degrade(
    store: &mut Store,
    opts: &DegradeOptions<'_>,
    progress: &dyn Progress,
) -> Result<Vec<ProfileSummary>> {
    let docs = store.documents(Some(opts.dataset))?;
    let in_store = || -> Result<bool> {
        Ok(store.dataset_counts()?.iter().any(|c| c.0 == opts.dataset && c.1 > 0))
    };
    if docs.is_empty() && (store.shard().is_none() || !in_store()?) {
        return Err(Error::Usage(format!(
            "dataset {} has no documents; `corpus status` lists the datasets",
            opts.dataset
        )));
    }
    if docs.is_empty() {
        let summary = |p: &Profile| ProfileSummary {
            profile: p.spec.clone(),
            dataset: twin_dataset(opts.dataset, p),
            ..Default::default()
        };
        return Ok(opts.profiles.iter().map(summary).collect());
    }
    let lib = pdfium::bind().map_err(|e| Error::Usage(e.to_string()))?;
    let truths = store.truths(Some(opts.dataset))?;
    let mut out = Vec::new();
    progress.start((docs.len() * opts.profiles.len()) as u64);
    for profile in opts.profiles {
        let twin = twin_dataset(opts.dataset, profile);
        let mut s = ProfileSummary {
            profile: profile.spec.clone(),
            dataset: twin.clone(),
            ..Default::default()
        };
        for d in &docs {
            let mine: Vec<_> = truths.iter().filter(|t| t.document == d.id).collect();
            let name = store.name_in(d.id, opts.dataset)?.unwrap_or_else(|| d.name.clone());
            match one(store, &lib, opts, profile, &d.hash, &name, &mine, &twin)? {
                Ok((outcome, pages, n_truths)) => {
                    s.pages += u64::from(pages);
                    s.truths += n_truths;
                    if outcome {
                        s.new += 1
                    } else {
                        s.unchanged += 1
                    }
                    progress.advance(&name, true);
                }
                Err(why) => {
                    store.record_ingest_error(
                        None,
                        &format!("{}/{name}", opts.dataset),
                        &format!("degrade {}: {why}", profile.spec),
                    )?;
                    s.failed += 1;
                    s.failures.push((name.clone(), why));
                    progress.advance(&name, false);
                }
            }
        }
        out.push(s);
    }
    progress.finish();
    Ok(out)
}

/// One document's twin: `Ok(Ok((new, pages, truths)))`, or `Ok(Err(why))` when this document
/// cannot be degraded (nothing stored for it).
#[allow(clippy::too_many_arguments)]
fn one(
    store: &mut Store,
    lib: &pdfium_render::prelude::Pdfium,
    opts: &DegradeOptions<'_>,
    profile: &Profile,
    hash: &str,
    name: &str,
    truths: &[&crate::store::TruthRow],
    twin: &str,
) -> Result<std::result::Result<(bool, u32, u64), String>> {
    let bytes = match store.pdf(hash)? {
        Some(StoredPdf::Bytes(b)) => b,
        Some(StoredPdf::Reader(mut r)) => {
            let mut b = Vec::new();
            if let Err(e) = std::io::Read::read_to_end(&mut r, &mut b) {
                return Ok(Err(format!("reading the PDF from the store: {e}")));
            }
            b
        }
        None => return Ok(Err("the PDF is missing from the store".into())),
    };
    let made = match render_twin(lib, &bytes, profile, opts.seed, hash) {
        Ok(m) => m,
        Err(why) => return Ok(Err(why)),
    };
    let (pdf, moves, plans) = made;
    let twin_hash = blake3::hash(&pdf).to_hex().to_string();
    let mut files: Vec<(TruthFormat, String, Vec<u8>)> = Vec::new();
    for t in truths {
        let Some(format) = TruthFormat::parse(&t.format) else {
            return Ok(Err(format!(
                "truth {} has a format this build does not know ({})",
                t.id, t.format
            )));
        };
        let Some(src) = store.blob(&t.blob)? else {
            return Ok(Err(format!("truth {} is missing from the store", t.id)));
        };
        match truth::move_truth(format, &src, &moves, &twin_hash) {
            Ok((f, b)) => files.push((f, t.part.clone(), b)),
            Err(e) => {
                return Ok(Err(format!(
                    "truth {} ({}{}): {e}",
                    t.id,
                    t.format,
                    part_label(&t.part)
                )))
            }
        }
    }
    let sources: Vec<String> =
        truths.iter().map(|t| format!("degrade {} of truth {}", profile.spec, t.id)).collect();
    let truth_files: Vec<TruthFile<'_>> = files
        .iter()
        .zip(&sources)
        .map(|((f, part, b), src)| TruthFile {
            format: f.as_str(),
            part,
            bytes: b,
            source_path: src,
        })
        .collect();
    let attributes = vec![
        ("degrade_source".to_string(), hash.to_string()),
        ("degrade_source_dataset".to_string(), opts.dataset.to_string()),
        ("degrade_profile".to_string(), profile.describe().to_string()),
        ("degrade_seed".to_string(), opts.seed.to_string()),
        ("degrade_pages".to_string(), serde_json::to_string(&plans)?),
    ];
    let source_path = format!("degrade {} of {}/{name}", profile.spec, opts.dataset);
    let outcome = store.ingest_derived(
        &IngestDoc {
            dataset: twin,
            name,
            source_path: &source_path,
            pdf: PdfData::Bytes(&pdf),
            pages: moves.len() as u32,
            truths: &truth_files,
            attributes: &attributes,
        },
        hash,
    )?;
    Ok(Ok((outcome.new_document || outcome.new_name, moves.len() as u32, truth_files.len() as u64)))
}

fn part_label(part: &str) -> String {
    if part.is_empty() {
        String::new()
    } else {
        format!(", part {part}")
    }
}

/// The seed of one page's draws: the user's seed, the source's hash, the page and the profile.
pub fn page_seed(seed: u64, hash: &str, page: usize, spec: &str) -> u64 {
    let mut h = blake3::Hasher::new();
    h.update(&seed.to_le_bytes());
    h.update(hash.as_bytes());
    h.update(&(page as u64).to_le_bytes());
    h.update(spec.as_bytes());
    u64::from_le_bytes(h.finalize().as_bytes()[..8].try_into().expect("8 bytes"))
}

/// Renders and degrades every page: the twin PDF, each page's move and each page's plan.
type Twin = (Vec<u8>, Vec<truth::PageMove>, Vec<profile::PagePlan>);

/// The twin of a PDF under a profile, or why it cannot be made.
pub fn render_twin(
    lib: &pdfium_render::prelude::Pdfium,
    bytes: &[u8],
    profile: &Profile,
    seed: u64,
    hash: &str,
) -> std::result::Result<Twin, String> {
    let (mut pages, mut moves, mut plans) = (Vec::new(), Vec::new(), Vec::new());
    let mut page_one = |i: usize, img: raster::Bgr, w: f64, h: f64| {
        let mut rng = Rng::new(page_seed(seed, hash, i, &profile.spec));
        let plan = profile.plan(w, h, &mut rng);
        let (img, encoding) = profile.apply(img.data, img.width, img.height, (w, h), &plan);
        moves.push(truth::PageMove { width: w, height: h, h: profile.homography(&plan, w, h) });
        pages.push(pdf::ImagePage { width: w, height: h, img, encoding });
        plans.push(plan);
    };
    if let Some((mime, w, h)) = crate::providers::endpoint::image_header(bytes) {
        // A page image (an OmniDocBench page) is one page, degraded at its own pixels. Its
        // twin is a PDF page of pixels × 72 / the profile's dpi points, so that reading the
        // twin at that resolution gives the image's pixels again (not pixels taken as points,
        // which a reader rendering at 200 dpi would enlarge 2.8 times); its truth's boxes stay
        // in pixels, the frame `page_info` names (docs/degrade.md §2).
        if profile.kind == profile::Kind::Dpi {
            return Err("a page image has no resolution of its own to change (only its pixels): Ndpi needs a PDF".into());
        }
        let img = decode_image(mime, bytes)?;
        let pt = 72.0 / profile.dpi();
        page_one(0, img, f64::from(w) * pt, f64::from(h) * pt);
    } else {
        let doc = pdfium::open(lib, bytes).map_err(|e| e.to_string())?;
        let scale = profile.dpi() / 72.0;
        for (i, page) in doc.pages().iter().enumerate() {
            let (w, h) = (f64::from(page.width().value), f64::from(page.height().value));
            let img =
                raster::render(&page, scale as f32).map_err(|e| format!("page {}: {e}", i + 1))?;
            page_one(i, img, w, h);
        }
    }
    if pages.is_empty() {
        return Err("the PDF has no page".into());
    }
    let pdf = pdf::image_pdf(&pages).map_err(|e| e.to_string())?;
    Ok((pdf, moves, plans))
}

/// A stored page image as pixels: PNG, or JPEG (grey, RGB or CMYK).
fn decode_image(mime: &str, bytes: &[u8]) -> std::result::Result<raster::Bgr, String> {
    if mime == "image/png" {
        return crate::providers::endpoint::decode_png(bytes);
    }
    let mut d = jpeg_decoder::Decoder::new(bytes);
    let px = d.decode().map_err(|e| format!("JPEG: {e}"))?;
    let info = d.info().ok_or("JPEG: no frame")?;
    let (w, h) = (usize::from(info.width), usize::from(info.height));
    let rgb: Vec<u8> = match info.pixel_format {
        jpeg_decoder::PixelFormat::L8 => px.iter().flat_map(|&v| [v, v, v]).collect(),
        jpeg_decoder::PixelFormat::RGB24 => px,
        jpeg_decoder::PixelFormat::CMYK32 => px
            .chunks_exact(4)
            .flat_map(|p| {
                let k = 255 - u32::from(p[3]);
                let f = |c: u8| ((255 - u32::from(c)) * k / 255) as u8;
                [f(p[0]), f(p[1]), f(p[2])]
            })
            .collect(),
        jpeg_decoder::PixelFormat::L16 => return Err("JPEG: 16-bit grey is not read".into()),
    };
    if rgb.len() != w * h * 3 {
        return Err(format!("JPEG: {} bytes for {w} x {h} pixels", rgb.len()));
    }
    Ok(raster::Bgr::from_rgb(w, h, &rgb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::pdf::{Pdf, PdfPage};

    /// A 200 × 300 pt page with one black rectangle: x 40..120, y 60..100 from the top.
    fn page_with_a_box() -> Vec<u8> {
        let mut page = PdfPage::new(200.0, 300.0);
        page.fill_rect(40.0, 300.0 - 100.0, 80.0, 40.0);
        let mut pdf = Pdf::new();
        pdf.push(page);
        pdf.to_bytes()
    }

    /// Whether `(x, y)` lies inside the convex quadrilateral `q` (either winding).
    fn inside(q: &[(f64, f64); 4], x: f64, y: f64) -> bool {
        let side = |i: usize| {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0)
        };
        let s: Vec<f64> = (0..4).map(side).collect();
        s.iter().all(|v| *v >= 0.0) || s.iter().all(|v| *v <= 0.0)
    }

    #[test]
    fn a_boxs_content_is_where_its_moved_box_says_on_the_twin() {
        let _lock = pdfium::test_lock();
        let Ok(lib) = pdfium::bind() else {
            crate::test_support::skip_or_fail("libpdfium is not installed (scripts/setup.sh)");
            return;
        };
        let src = page_with_a_box();
        for spec in
            ["skew:min=4:max=4", "photo:blur=0:noise=0:quality=100", "scan:noise=0:blur=0:uneven=0"]
        {
            let p = Profile::parse(spec).unwrap();
            let (pdf, moves, _) = render_twin(&lib, &src, &p, 7, "h").unwrap();
            // The same seed, the same bytes; another seed, other noise (skew at a fixed angle
            // draws only its sign, which two seeds may share).
            assert!(render_twin(&lib, &src, &p, 7, "h").unwrap().0 == pdf, "{spec}: same seed");
            if p.kind != profile::Kind::Skew {
                assert!(
                    render_twin(&lib, &src, &p, 8, "h").unwrap().0 != pdf,
                    "{spec}: other seed"
                );
            }
            // The twin has no text layer and the source's page size.
            let doc = pdfium::open(&lib, &pdf).unwrap();
            let page = doc.pages().get(0).unwrap();
            assert_eq!((page.width().value, page.height().value), (200.0, 300.0));
            assert!(page.text().unwrap().all().trim().is_empty());
            // Rendered back at 2 px a point: the dark pixels lie inside the moved rectangle,
            // and the moved rectangle is dark.
            let img = raster::render(&page, 2.0).unwrap();
            let h = moves[0].h;
            let q = [(40.0, 60.0), (120.0, 60.0), (120.0, 100.0), (40.0, 100.0)]
                .map(|(x, y)| h.apply(x, y))
                .map(|(x, y)| (2.0 * x, 2.0 * y));
            let (mut dark_in, mut dark_out, mut cells_in) = (0u32, 0u32, 0u32);
            for y in 0..img.height {
                for x in 0..img.width {
                    let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
                    let i = (y * img.width + x) * 3;
                    let grey = (u32::from(img.data[i])
                        + u32::from(img.data[i + 1])
                        + u32::from(img.data[i + 2]))
                        / 3;
                    // The photo's table around the page is grey 90, at least 54 where its light
                    // is dimmest (× 0.6): dark is below 30.
                    let dark = grey < 30;
                    if inside(&q, cx, cy) {
                        cells_in += 1;
                        dark_in += u32::from(dark);
                    } else {
                        dark_out += u32::from(dark);
                    }
                }
            }
            let share_in = f64::from(dark_in) / f64::from(dark_in + dark_out);
            let filled = f64::from(dark_in) / f64::from(cells_in);
            assert!(
                share_in > 0.98 && filled > 0.95,
                "{spec}: {share_in} of the dark inside, {filled} of the box dark"
            );
        }
    }

    #[test]
    fn a_page_images_twin_is_its_pixels_at_the_profiles_dpi() {
        let _lock = pdfium::test_lock();
        let Ok(lib) = pdfium::bind() else {
            crate::test_support::skip_or_fail("libpdfium is not installed (scripts/setup.sh)");
            return;
        };
        // A 600 × 900 pixel page image: at scan's 300 dpi its twin is 144 × 216 points, and
        // rendering the twin back at 300 dpi gives 600 × 900 pixels again.
        let img = raster::Bgr { width: 600, height: 900, data: vec![255; 600 * 900 * 3] };
        let png = raster::png(&img).unwrap();
        let p = Profile::parse("scan").unwrap();
        let (pdf, moves, _) = render_twin(&lib, &png, &p, 1, "h").unwrap();
        assert_eq!((moves[0].width, moves[0].height), (144.0, 216.0));
        let doc = pdfium::open(&lib, &pdf).unwrap();
        let page = doc.pages().get(0).unwrap();
        assert_eq!((page.width().value, page.height().value), (144.0, 216.0));
        let back = raster::render(&page, (300.0 / 72.0) as f32).unwrap();
        assert_eq!((back.width, back.height), (600, 900));
    }

    #[test]
    fn the_page_seed_depends_on_each_of_its_parts() {
        let s = page_seed(1, "abc", 0, "scan");
        assert_eq!(s, page_seed(1, "abc", 0, "scan"));
        for other in [
            page_seed(2, "abc", 0, "scan"),
            page_seed(1, "abd", 0, "scan"),
            page_seed(1, "abc", 1, "scan"),
            page_seed(1, "abc", 0, "fax"),
        ] {
            assert_ne!(s, other);
        }
    }
}
