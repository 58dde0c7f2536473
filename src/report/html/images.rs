//! Page images for the HTML report: rendered by pdfium at a fixed width, written as PNG,
//! cached across runs (`docs/html-report.md`, "Page images").
//!
//! The cache file's name is a blake3 key over [`IMAGE_VERSION`], the libpdfium file's own
//! blake3 (the renderer's version), the PDF's blob hash, the page index and the width: the
//! same page at the same settings is rendered once, whatever site it goes into. Files are
//! written to a temporary name and renamed, so a killed run never leaves half an image.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::providers::pdfium as pdf;
use crate::store::{Store, StoredPdf};

/// Bump when the images for the same inputs change (encoding, colour handling).
pub const IMAGE_VERSION: u32 = 1;

/// What the cache did in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImageCounts {
    /// Pages found in the cache.
    pub reused: u64,
    /// Pages rendered now.
    pub rendered: u64,
    /// Pages that could not be rendered.
    pub failed: u64,
}

/// One page's image: where it is, and its pixel size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageImage {
    /// The cached PNG.
    pub path: PathBuf,
    /// The file name it gets in the site (the cache key).
    pub name: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Renders and caches page images.
pub struct PageImages {
    dir: PathBuf,
    width: u32,
    pdfium: Option<std::result::Result<(pdf::Pdfium, String), String>>,
    /// What happened so far.
    pub counts: ImageCounts,
}

impl PageImages {
    /// A cache in `dir` of pages `width` pixels wide. pdfium is bound on the first miss.
    pub fn new(dir: PathBuf, width: u32) -> PageImages {
        PageImages {
            dir,
            width: width.clamp(64, 4000),
            pdfium: None,
            counts: ImageCounts::default(),
        }
    }

    /// The default cache folder: `$CORPUS_PAGE_IMAGES`, else
    /// `${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}/page-images`.
    pub fn default_dir() -> Option<PathBuf> {
        match std::env::var_os("CORPUS_PAGE_IMAGES").filter(|v| !v.is_empty()) {
            Some(d) => Some(PathBuf::from(d)),
            None => pdf::cache_dir().map(|d| d.join("page-images")),
        }
    }

    fn renderer(&mut self) -> std::result::Result<(&pdf::Pdfium, &str), String> {
        let r = self.pdfium.get_or_insert_with(|| {
            let path = pdf::library_path().map_err(|e| e.to_string())?;
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let version = format!("{}:{}", pdf::PDFIUM_DIR, blake3::hash(&bytes).to_hex());
            let p = pdf::bind().map_err(|e| e.to_string())?;
            Ok((p, version))
        });
        match r {
            Ok((p, v)) => Ok((p, v.as_str())),
            Err(e) => Err(e.clone()),
        }
    }

    fn key(&self, version: &str, pdf_hash: &str, page: u32) -> String {
        let mut h = blake3::Hasher::new();
        for part in [
            "corpus page image".to_string(),
            IMAGE_VERSION.to_string(),
            version.to_string(),
            pdf_hash.to_string(),
            page.to_string(),
            self.width.to_string(),
        ] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().to_hex()[..32].to_string()
    }

    /// Returns the images of `pages` (zero-based) of the stored PDF `pdf_hash`, rendering
    /// those not cached; a page that cannot be rendered gives its reason.
    pub fn pages(
        &mut self,
        store: &Store,
        pdf_hash: &str,
        pages: &[u32],
    ) -> Vec<std::result::Result<PageImage, String>> {
        let version = match self.renderer() {
            Ok((_, v)) => v.to_string(),
            Err(e) => {
                self.counts.failed += pages.len() as u64;
                return pages.iter().map(|_| Err(e.clone())).collect();
            }
        };
        let mut out: Vec<Option<std::result::Result<PageImage, String>>> = vec![None; pages.len()];
        let mut missing: HashMap<u32, (usize, String)> = HashMap::new();
        for (i, &p) in pages.iter().enumerate() {
            let name = format!("{}.png", self.key(&version, pdf_hash, p));
            let path = self.dir.join(&name);
            match png_size(&path) {
                Some((width, height)) => {
                    self.counts.reused += 1;
                    out[i] = Some(Ok(PageImage { path, name, width, height }));
                }
                None => {
                    missing.insert(p, (i, name));
                }
            }
        }
        if !missing.is_empty() {
            let rendered = self.render(store, pdf_hash, &missing);
            for (p, (i, name)) in missing {
                let r = match rendered.get(&p) {
                    Some(Ok((w, h))) => {
                        self.counts.rendered += 1;
                        Ok(PageImage { path: self.dir.join(&name), name, width: *w, height: *h })
                    }
                    Some(Err(e)) => Err(e.clone()),
                    None => Err("not rendered".to_string()),
                };
                if r.is_err() {
                    self.counts.failed += 1;
                }
                out[i] = Some(r);
            }
        }
        out.into_iter().map(|r| r.unwrap_or_else(|| Err("not rendered".into()))).collect()
    }

    /// Renders the `missing` pages (page -> (slot, file name)) into the cache.
    fn render(
        &mut self,
        store: &Store,
        pdf_hash: &str,
        missing: &HashMap<u32, (usize, String)>,
    ) -> HashMap<u32, std::result::Result<(u32, u32), String>> {
        let width = self.width;
        let dir = self.dir.clone();
        let all_err = |e: String| missing.keys().map(|&p| (p, Err(e.clone()))).collect();
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return all_err(format!("{}: {e}", dir.display()));
        }
        let pdfium = match self.renderer() {
            Ok((p, _)) => p,
            Err(e) => return all_err(e),
        };
        let stored = match store.pdf(pdf_hash) {
            Ok(Some(s)) => s,
            Ok(None) => return all_err(format!("the store has no PDF {pdf_hash}")),
            Err(e) => return all_err(e.to_string()),
        };
        let bytes;
        let doc = match stored {
            StoredPdf::Bytes(b) => {
                bytes = b;
                pdf::open(pdfium, &bytes)
            }
            StoredPdf::Reader(r) => pdf::open_reader(pdfium, r),
        };
        let doc = match doc {
            Ok(d) => d,
            Err(e) => return all_err(e.to_string()),
        };
        let mut out = HashMap::new();
        for (&p, (_, name)) in missing {
            let r = (|| {
                let page = doc
                    .pages()
                    .get(i32::try_from(p).unwrap_or(i32::MAX))
                    .map_err(|e| format!("page {}: {}", p + 1, pdf::describe(&e)))?;
                let pw = page.width().value.max(1.0);
                let img = crate::providers::layout::render(&page, width as f32 / pw)
                    .map_err(|e| format!("page {}: {e}", p + 1))?;
                write_png(&dir.join(name), img.width, img.height, &img.data)?;
                Ok((img.width as u32, img.height as u32))
            })();
            out.insert(p, r);
        }
        out
    }
}

/// Reads a cached PNG's size from its header, `None` if it is not a whole PNG.
fn png_size(path: &Path) -> Option<(u32, u32)> {
    let f = std::fs::File::open(path).ok()?;
    let dec = png::Decoder::new(std::io::BufReader::new(f));
    let r = dec.read_info().ok()?;
    let info = r.info();
    Some((info.width, info.height))
}

/// Writes BGR pixels as an 8-bit PNG, greyscale when every pixel is grey (a third of the
/// size for the usual black-on-white page), through a temporary file renamed into place.
fn write_png(path: &Path, w: usize, h: usize, bgr: &[u8]) -> std::result::Result<(), String> {
    let grey = bgr.chunks_exact(3).all(|p| p[0] == p[1] && p[1] == p[2]);
    let (color, data): (png::ColorType, Vec<u8>) = if grey {
        (png::ColorType::Grayscale, bgr.chunks_exact(3).map(|p| p[0]).collect())
    } else {
        (png::ColorType::Rgb, bgr.chunks_exact(3).flat_map(|p| [p[2], p[1], p[0]]).collect())
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    {
        let f = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(f), w as u32, h as u32);
        enc.set_color(color);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut wr = enc.write_header().map_err(|e| format!("{}: {e}", path.display()))?;
        wr.write_image_data(&data).map_err(|e| format!("{}: {e}", path.display()))?;
        wr.finish().map_err(|e| format!("{}: {e}", path.display()))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

/// Puts a cached image into the site folder under its name: a hard link where the two are
/// on one file system, else a copy; an image already there (same name, same content) stays.
pub fn place(img: &PageImage, site_img_dir: &Path) -> std::io::Result<()> {
    let to = site_img_dir.join(&img.name);
    if to.is_file() {
        return Ok(());
    }
    if std::fs::hard_link(&img.path, &to).is_err() {
        let tmp = site_img_dir.join(format!(".{}.tmp", img.name));
        std::fs::copy(&img.path, &tmp)?;
        std::fs::rename(&tmp, &to)?;
    }
    Ok(())
}
