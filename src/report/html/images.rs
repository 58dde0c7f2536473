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
pub const IMAGE_VERSION: u32 = 2;

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
            None => crate::paths::cache_dir().map(|d| d.join("page-images")),
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
                let img = crate::providers::raster::render(&page, width as f32 / pw)
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

/// The palette of colour pages: a 6×6×6 colour cube (indices 0–215) and a ramp of 40 greys
/// (216–255).
fn palette() -> Vec<u8> {
    let mut p = Vec::with_capacity(256 * 3);
    for r in 0..6u8 {
        for g in 0..6u8 {
            for b in 0..6u8 {
                p.extend_from_slice(&[r * 51, g * 51, b * 51]);
            }
        }
    }
    for k in 0..40u32 {
        let v = (k * 255 / 39) as u8;
        p.extend_from_slice(&[v, v, v]);
    }
    p
}

/// The palette index of a pixel: a near-grey pixel (channels within 12 of each other) takes
/// the nearest of the 40 greys, any other the nearest corner of the colour cube.
fn palette_index(b: u8, g: u8, r: u8) -> u8 {
    let (lo, hi) = (r.min(g).min(b), r.max(g).max(b));
    if hi - lo < 12 {
        let v = (u32::from(r) + u32::from(g) + u32::from(b)) / 3;
        return 216 + ((v * 39 + 127) / 255) as u8;
    }
    let q = |c: u8| (u32::from(c) + 25) / 51;
    (q(r) * 36 + q(g) * 6 + q(b)) as u8
}

/// Encodes BGR pixels as a small PNG: a page whose pixels are all grey as 4-bit greyscale
/// (16 levels: enough for antialiased text), any other as 8-bit indexed colour
/// ([`palette`]). A preview, not a copy: the PDF is the original.
fn encode_png(w: usize, h: usize, bgr: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let grey = bgr.chunks_exact(3).all(|p| p[0] == p[1] && p[1] == p[2]);
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w as u32, h as u32);
    enc.set_compression(png::Compression::Balanced);
    let data: Vec<u8> = if grey {
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Four);
        let row = w.div_ceil(2);
        let mut data = vec![0u8; row * h];
        for y in 0..h {
            for x in 0..w {
                let v = bgr[(y * w + x) * 3];
                let level = (u32::from(v) * 15 + 127) / 255;
                data[y * row + x / 2] |= (level as u8) << if x % 2 == 0 { 4 } else { 0 };
            }
        }
        data
    } else {
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette(palette());
        bgr.chunks_exact(3).map(|p| palette_index(p[0], p[1], p[2])).collect()
    };
    let mut wr = enc.write_header().map_err(|e| e.to_string())?;
    wr.write_image_data(&data).map_err(|e| e.to_string())?;
    wr.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// Writes a page image through a temporary file renamed into place.
fn write_png(path: &Path, w: usize, h: usize, bgr: &[u8]) -> std::result::Result<(), String> {
    let png = encode_png(w, h, bgr).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, png).map_err(|e| format!("{}: {e}", tmp.display()))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(png: &[u8]) -> (png::OutputInfo, Vec<u8>) {
        let mut r = png::Decoder::new(std::io::Cursor::new(png)).read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info, buf)
    }

    #[test]
    fn grey_pages_are_4_bit_and_colour_pages_indexed() {
        // 3×1 grey: black, mid grey, white.
        let grey = [0, 0, 0, 128, 128, 128, 255, 255, 255];
        let (info, data) = decode(&encode_png(3, 1, &grey).unwrap());
        assert_eq!(
            (info.color_type, info.bit_depth),
            (png::ColorType::Grayscale, png::BitDepth::Four)
        );
        assert_eq!(data, [0x08, 0xF0], "levels 0, 8, 15 packed two to a byte");
        // Pure red (BGR 0,0,255) and white.
        let colour = [0, 0, 255, 255, 255, 255];
        let (info, data) = decode(&encode_png(2, 1, &colour).unwrap());
        assert_eq!(info.color_type, png::ColorType::Indexed);
        assert_eq!(data, [5 * 36, 255]);
        let p = palette();
        assert_eq!(&p[(5 * 36) * 3..(5 * 36) * 3 + 3], &[255, 0, 0]);
        assert_eq!(&p[255 * 3..], &[255, 255, 255]);
        // Grey 10 lies between ramp levels 1 (6.5) and 2 (13.1), nearer 2.
        assert_eq!(palette_index(10, 12, 8), 216 + 2, "near-grey takes the grey ramp");
    }
}
