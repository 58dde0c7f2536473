//! Very large one-page PDFs, written as a stream, for tests and benchmarks of files larger
//! than one SQLite value (`docs/large-files.md`).
//!
//! The page is what a scanned atlas page is: big uncompressed grey images filling the page,
//! with a line of real text over it; or the bulk is a file attached to the document. The file is written in pieces (memory: one
//! buffer), with a classic cross-reference table (10-digit offsets: up to 9.9 GB).

use std::io::Write;
use std::path::Path;

/// Where the bulk of a large PDF lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bulk {
    /// Page-sized grey images the page draws (a scan), in tiles of at most 1 GB each
    /// (pdfium refuses a single stream of 2 GB or more).
    Image,
    /// A file attached to the document (`/EmbeddedFiles`), which the page does not use.
    Attachment,
}

/// Writes a valid one-page PDF with at least `bulk_bytes` bytes of stream data placed as
/// `bulk` says, showing `text` in Courier; returns the file's size.
pub fn write_large_pdf(
    path: &Path,
    bulk_bytes: u64,
    bulk: Bulk,
    text: &str,
) -> std::io::Result<u64> {
    const TILE: u64 = 1_000_000_000;
    let width: u64 = 10_000;
    let tiles = match bulk {
        Bulk::Image => bulk_bytes.div_ceil(TILE).max(1),
        Bulk::Attachment => 1,
    };
    let per_tile = bulk_bytes.div_ceil(tiles);
    let height = per_tile.div_ceil(width).max(1);
    let length = match bulk {
        Bulk::Image => width * height,
        Bulk::Attachment => bulk_bytes,
    };
    // Objects: 1 catalog, 2 pages, 3 page, 4 content, 5 font, 6.. the bulk streams
    // (and for an attachment, its file specification after them).
    let mut draw = String::new();
    if bulk == Bulk::Image {
        let strip = 792.0 / tiles as f64;
        for t in 0..tiles {
            draw.push_str(&format!(
                "q 612 0 0 {strip:.4} 0 {:.4} cm /Im{t} Do Q ",
                strip * t as f64
            ));
        }
    }
    let content =
        format!("{draw}BT /F1 24 Tf 72 700 Td {} Tj ET\n", super::pdf::literal_string(text));
    let xobjects: String = match bulk {
        Bulk::Image => (0..tiles).map(|t| format!("/Im{t} {} 0 R ", 6 + t)).collect(),
        Bulk::Attachment => String::new(),
    };
    let names = match bulk {
        Bulk::Image => String::new(),
        Bulk::Attachment => {
            format!(" /Names << /EmbeddedFiles << /Names [(scan.bin) {} 0 R] >> >>", 6 + tiles)
        }
    };
    let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut w = Counting { inner: file, at: 0 };
    let mut offsets = Vec::new();
    w.write_all(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")?;
    let objects: [String; 5] = [
        format!("<< /Type /Catalog /Pages 2 0 R{names} >>"),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".into(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
             /Resources << /Font << /F1 5 0 R >> /XObject << {xobjects}>> >> >>"
        ),
        format!("<< /Length {} >>\nstream\n{content}endstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>".into(),
    ];
    for (i, body) in objects.iter().enumerate() {
        offsets.push(w.at);
        write!(w, "{} 0 obj\n{body}\nendobj\n", i + 1)?;
    }
    // A light grey, so that the text over it stays readable.
    let block = vec![0xE0u8; 1 << 20];
    for t in 0..tiles {
        offsets.push(w.at);
        match bulk {
            Bulk::Image => write!(
                w,
                "{} 0 obj\n<< /Type /XObject /Subtype /Image /Width {width} /Height {height} \
                 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length {length} >>\nstream\n",
                6 + t
            )?,
            Bulk::Attachment => {
                write!(w, "{} 0 obj\n<< /Type /EmbeddedFile /Length {length} >>\nstream\n", 6 + t)?
            }
        }
        let mut left = length;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            w.write_all(&block[..n])?;
            left -= n as u64;
        }
        w.write_all(b"\nendstream\nendobj\n")?;
    }
    if bulk == Bulk::Attachment {
        offsets.push(w.at);
        write!(
            w,
            "{} 0 obj\n<< /Type /Filespec /F (scan.bin) /EF << /F 6 0 R >> >>\nendobj\n",
            6 + tiles
        )?;
    }
    let xref = w.at;
    write!(w, "xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1)?;
    for o in &offsets {
        writeln!(w, "{o:010} 00000 n ")?;
    }
    write!(
        w,
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        offsets.len() + 1
    )?;
    w.inner.flush()?;
    Ok(w.at)
}

/// A writer that counts the bytes written (the objects' offsets).
struct Counting<W: Write> {
    inner: W,
    at: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.at += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
