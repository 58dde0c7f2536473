//! Image-only PDFs: each page one image filling it, no text layer (a degraded twin is what a
//! scanner or a phone gives, `docs/degrade.md`). The bytes depend only on the images, so the
//! same images give the same file (and the same content hash).

use std::io::Write;

use super::ops::Img;
use super::profile::Encoding;

/// One page: its size in points and its image.
pub struct ImagePage {
    /// Width, points.
    pub width: f64,
    /// Height, points.
    pub height: f64,
    /// The picture.
    pub img: Img,
    /// How it is stored.
    pub encoding: Encoding,
}

/// The image's stream: its dictionary entries (less `/Length`) and bytes.
fn image_stream(img: &Img, encoding: Encoding) -> Result<(String, Vec<u8>), String> {
    let (w, h) = (img.width, img.height);
    let space = if img.channels == 1 { "/DeviceGray" } else { "/DeviceRGB" };
    // PDF wants R, G, B; the image is B, G, R.
    let samples = || -> Vec<u8> {
        if img.channels == 1 {
            img.data.clone()
        } else {
            img.data.chunks_exact(3).flat_map(|p| [p[2], p[1], p[0]]).collect()
        }
    };
    let deflate = |raw: &[u8]| -> Result<Vec<u8>, String> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(raw)
            .and_then(|_| z.finish())
            .map_err(|e| format!("deflating a page image: {e}"))
    };
    match encoding {
        Encoding::Flate => Ok((
            format!("/Width {w} /Height {h} /ColorSpace {space} /BitsPerComponent 8 /Filter /FlateDecode"),
            deflate(&samples())?,
        )),
        Encoding::Bits => {
            // Rows padded to whole bytes; a set bit is white (DeviceGray 1).
            let row = w.div_ceil(8);
            let mut bits = vec![0u8; row * h];
            let grey = if img.channels == 1 {
                img.data.clone()
            } else {
                super::ops::Img::from_bgr(w, h, img.data.clone(), true).data
            };
            for y in 0..h {
                for x in 0..w {
                    if grey[y * w + x] >= 128 {
                        bits[y * row + x / 8] |= 0x80 >> (x % 8);
                    }
                }
            }
            Ok((
                format!("/Width {w} /Height {h} /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /FlateDecode"),
                deflate(&bits)?,
            ))
        }
        Encoding::Jpeg(quality) => {
            let (ww, hh) = (u16::try_from(w), u16::try_from(h));
            let (Ok(ww), Ok(hh)) = (ww, hh) else {
                return Err(format!("a {w} × {h} page is too large for a JPEG (65,535 at most)"));
            };
            let mut out = Vec::new();
            let enc = jpeg_encoder::Encoder::new(&mut out, quality);
            let color =
                if img.channels == 1 { jpeg_encoder::ColorType::Luma } else { jpeg_encoder::ColorType::Bgr };
            enc.encode(&img.data, ww, hh, color).map_err(|e| format!("JPEG encoding: {e}"))?;
            Ok((
                format!("/Width {w} /Height {h} /ColorSpace {space} /BitsPerComponent 8 /Filter /DCTDecode"),
                out,
            ))
        }
    }
}

/// The PDF of these pages. Objects: 1 catalog, 2 page tree, then for each page its page
/// object, content stream and image.
pub fn image_pdf(pages: &[ImagePage]) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets: Vec<usize> = Vec::new();
    let mut object = |out: &mut Vec<u8>, body: &[u8]| {
        offsets.push(out.len());
        let n = offsets.len();
        out.extend_from_slice(format!("{n} 0 obj\n").as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    };
    let kids: Vec<String> = (0..pages.len()).map(|i| format!("{} 0 R", 3 + 3 * i)).collect();
    object(&mut out, b"<< /Type /Catalog /Pages 2 0 R >>");
    object(
        &mut out,
        format!("<< /Type /Pages /Kids [{}] /Count {} >>", kids.join(" "), pages.len()).as_bytes(),
    );
    for (i, p) in pages.iter().enumerate() {
        let (content_id, image_id) = (4 + 3 * i, 5 + 3 * i);
        let (w, h) = (num(p.width), num(p.height));
        object(
            &mut out,
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] \
                 /Resources << /XObject << /Im0 {image_id} 0 R >> >> /Contents {content_id} 0 R >>"
            )
            .as_bytes(),
        );
        let content = format!("q {w} 0 0 {h} 0 0 cm /Im0 Do Q\n");
        object(
            &mut out,
            format!("<< /Length {} >>\nstream\n{content}endstream", content.len()).as_bytes(),
        );
        let (dict, bytes) = image_stream(&p.img, p.encoding)?;
        let mut body = format!(
            "<< /Type /XObject /Subtype /Image {dict} /Length {} >>\nstream\n",
            bytes.len()
        )
        .into_bytes();
        body.extend_from_slice(&bytes);
        body.extend_from_slice(b"\nendstream");
        object(&mut out, &body);
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes(),
    );
    for o in &offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            offsets.len() + 1
        )
        .as_bytes(),
    );
    Ok(out)
}

/// A number as PDF writes it: up to 4 decimals, no trailing zeros.
fn num(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
