//! Blobs larger than one SQLite value: stored in chunks, written from a file while it is
//! hashed, read back through incremental blob I/O (rules in `docs/large-files.md`).
//!
//! A blob of at most [`CHUNK`] bytes is one value in `blobs.data` (`chunks = 0`), as in every
//! store before migration 0006. A larger one keeps its row in `blobs` (hash of all its bytes,
//! size, `data` empty) and its bytes in `blob_chunks`, `CHUNK` bytes a row, `seq` 0, 1, ...
//! The hash never depends on the layout.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use rusqlite::{params, Connection};

use super::{optional, Store};
use crate::error::{Error, Result};

/// The size of one stored chunk: 64 MiB (SQLite's limit for one value is 1,000,000,000
/// bytes; a chunk also bounds the memory one write or read needs).
pub const CHUNK: u64 = 64 << 20;

/// The largest PDF the store takes: 16 GiB. One PDF is written in one transaction, whose
/// write-ahead log grows to the PDF's size before it is checkpointed into the store.
pub const MAX_PDF: u64 = 16 << 30;

/// Writes the file's bytes as a blob in `tx`, in chunks of `chunk` bytes when it is larger
/// than one, hashing them on the way; `expect` is the hash read beforehand, and a file that
/// changed since (other bytes, another length) is refused and nothing is kept.
///
/// Returns the hash. A blob already stored under the hash is left as it is.
pub(super) fn put_file_blob(
    tx: &Connection,
    path: &Path,
    size: u64,
    expect: &str,
    media_type: &str,
    chunk: u64,
) -> Result<String> {
    let bad = |msg: String| Error::BadInput { path: path.to_path_buf(), msg };
    let exists = tx.prepare_cached("SELECT 1 FROM blobs WHERE hash = ?1")?.exists([expect])?;
    if exists {
        return Ok(expect.to_string());
    }
    let (file, now) = crate::walk::open_regular(path, MAX_PDF, "a PDF").map_err(&bad)?;
    if now != size {
        return Err(bad(format!("the file changed while it was read ({size} then {now} bytes)")));
    }
    let chunks = if size <= chunk { 0 } else { size.div_ceil(chunk) };
    let mut hasher = blake3::Hasher::new();
    let mut reader = file.take(size + 1);
    let mut buf = Vec::with_capacity(size.min(chunk) as usize);
    let read_err = |e: std::io::Error| bad(format!("cannot read: {}", crate::walk::io_words(&e)));
    if chunks == 0 {
        reader.read_to_end(&mut buf).map_err(read_err)?;
        hasher.update(&buf);
        unchanged(&hasher, size, buf.len() as u64, expect).map_err(&bad)?;
        tx.prepare_cached(
            "INSERT INTO blobs (hash, size, media_type, data) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![expect, size as i64, media_type, buf])?;
        return Ok(expect.to_string());
    }
    tx.prepare_cached(
        "INSERT INTO blobs (hash, size, media_type, data, chunks) VALUES (?1, ?2, ?3, X'', ?4)",
    )?
    .execute(params![expect, size as i64, media_type, chunks as i64])?;
    let mut total = 0u64;
    for seq in 0..chunks {
        buf.clear();
        (&mut reader).take(chunk).read_to_end(&mut buf).map_err(read_err)?;
        if buf.is_empty() {
            break;
        }
        total += buf.len() as u64;
        hasher.update(&buf);
        tx.prepare_cached("INSERT INTO blob_chunks (blob, seq, data) VALUES (?1, ?2, ?3)")?
            .execute(params![expect, seq as i64, buf])?;
    }
    // One byte more than the size means the file grew.
    buf.clear();
    reader.read_to_end(&mut buf).map_err(read_err)?;
    unchanged(&hasher, size, total + buf.len() as u64, expect).map_err(&bad)?;
    Ok(expect.to_string())
}

/// Checks that a file read for storing is the one hashed before: the same length, the
/// same hash.
fn unchanged(
    h: &blake3::Hasher,
    size: u64,
    read: u64,
    expect: &str,
) -> std::result::Result<(), String> {
    if read != size {
        return Err(format!("the file changed while it was read ({size} then {read} bytes)"));
    }
    if h.finalize().to_hex().as_str() != expect {
        return Err("the file changed while it was read (its bytes no longer hash the same)".into());
    }
    Ok(())
}

/// Hashes a file with blake3 while streaming it (memory: one buffer); returns the hex hash
/// and the number of bytes read, never more than `size` + 1.
pub fn hash_file(file: &mut std::fs::File, size: u64) -> std::io::Result<(String, u64)> {
    let mut h = blake3::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut r = file.take(size + 1);
    let mut n = 0u64;
    loop {
        let k = r.read(&mut buf)?;
        if k == 0 {
            break;
        }
        h.update(&buf[..k]);
        n += k as u64;
    }
    Ok((h.finalize().to_hex().to_string(), n))
}

/// Reads a stored blob on demand (`Read + Seek`) through SQLite's incremental blob I/O,
/// across its chunks: memory is what the caller asks for, never the whole blob.
pub struct BlobReader<'c> {
    conn: &'c Connection,
    /// (table, rowid, start offset, length) of each piece, in order.
    pieces: Vec<(&'static str, i64, u64, u64)>,
    size: u64,
    pos: u64,
    open: Option<(usize, rusqlite::blob::Blob<'c>)>,
}

impl<'c> BlobReader<'c> {
    /// Opens the blob with this hash, or `None` when there is none.
    pub(super) fn open(conn: &'c Connection, hash: &str) -> Result<Option<BlobReader<'c>>> {
        let row: Option<(i64, i64, i64)> = optional(
            conn.prepare_cached("SELECT rowid, size, chunks FROM blobs WHERE hash = ?1")?
                .query_row([hash], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))),
        )?;
        let Some((rowid, size, chunks)) = row else { return Ok(None) };
        let mut pieces = Vec::new();
        if chunks == 0 {
            pieces.push(("blobs", rowid, 0, size as u64));
        } else {
            let mut st = conn.prepare_cached(
                "SELECT rowid, length(data) FROM blob_chunks WHERE blob = ?1 ORDER BY seq",
            )?;
            let rows = st.query_map([hash], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
            let mut at = 0u64;
            for row in rows {
                let (id, len) = row?;
                pieces.push(("blob_chunks", id, at, len as u64));
                at += len as u64;
            }
            if at != size as u64 || pieces.len() as i64 != chunks {
                return Err(Error::Usage(format!(
                    "blob {hash} is damaged: {} of {chunks} chunks, {at} of {size} bytes",
                    pieces.len()
                )));
            }
        }
        Ok(Some(BlobReader { conn, pieces, size: size as u64, pos: 0, open: None }))
    }

    /// The blob's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Reads the whole blob into memory.
    pub(crate) fn read_all(mut self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.size as usize);
        self.read_to_end(&mut out).map_err(|e| Error::Usage(format!("reading a blob: {e}")))?;
        Ok(out)
    }
}

impl Read for BlobReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut filled = 0;
        while filled < buf.len() && self.pos < self.size {
            // The piece that holds `pos`: the last one starting at or before it.
            let i = self.pieces.partition_point(|p| p.2 <= self.pos) - 1;
            let (table, rowid, start, len) = self.pieces[i];
            if self.open.as_ref().is_none_or(|(j, _)| *j != i) {
                let blob = self
                    .conn
                    .blob_open("main", table, "data", rowid, true)
                    .map_err(std::io::Error::other)?;
                self.open = Some((i, blob));
            }
            let (_, blob) = self.open.as_ref().expect("opened just above");
            let off = self.pos - start;
            let want = ((len - off) as usize).min(buf.len() - filled);
            let n = blob
                .read_at(&mut buf[filled..filled + want], off as usize)
                .map_err(std::io::Error::other)?;
            if n == 0 {
                return Err(std::io::Error::other("a stored blob ended early"));
            }
            filled += n;
            self.pos += n as u64;
        }
        Ok(filled)
    }
}

impl Seek for BlobReader<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.size.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        let Some(target) = target else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "seek before the start of a blob",
            ));
        };
        self.pos = target;
        Ok(target)
    }
}

/// A stored PDF as a provider gets it: in memory when it is small, else read on demand.
pub enum StoredPdf<'c> {
    /// The whole file (at most [`CHUNK`] bytes).
    Bytes(Vec<u8>),
    /// A reader over a larger file.
    Reader(BlobReader<'c>),
}

impl Store {
    /// Returns a reader over the blob with this hash, or `None` when there is none.
    pub(crate) fn blob_reader(&self, hash: &str) -> Result<Option<BlobReader<'_>>> {
        BlobReader::open(&self.conn, hash)
    }

    /// Returns a stored PDF for a provider: its bytes when it is at most one chunk, else a
    /// reader, so that a PDF of several GB is never held in memory by the store.
    pub fn pdf(&self, hash: &str) -> Result<Option<StoredPdf<'_>>> {
        let Some(r) = self.blob_reader(hash)? else { return Ok(None) };
        if r.size() <= CHUNK {
            return Ok(Some(StoredPdf::Bytes(r.read_all()?)));
        }
        Ok(Some(StoredPdf::Reader(r)))
    }

    /// Stores a PDF file's bytes as a blob, from the file, for tests of the chunked layout
    /// with small chunks.
    #[cfg(test)]
    pub(crate) fn put_file_blob_chunked(&mut self, path: &Path, chunk: u64) -> Result<String> {
        let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let size = f.metadata().map_err(|e| Error::io(path, e))?.len();
        let (hash, _) = hash_file(&mut f, size).map_err(|e| Error::io(path, e))?;
        let tx = self.conn.transaction()?;
        put_file_blob(&tx, path, size, &hash, "application/pdf", chunk)?;
        tx.commit()?;
        Ok(hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn chunked_blobs_read_back_whole_and_by_seeks() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("big.pdf");
        let data = bytes(1000);
        std::fs::write(&p, &data).unwrap();
        let mut s = Store::open_in_memory().unwrap();
        let h = s.put_file_blob_chunked(&p, 64).unwrap();
        assert_eq!(h, blake3::hash(&data).to_hex().as_str(), "the hash is of the bytes");
        let n: i64 = s.conn.query_row("SELECT chunks FROM blobs", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 16);
        assert_eq!(s.blob(&h).unwrap().unwrap(), data);
        let mut r = s.blob_reader(&h).unwrap().unwrap();
        let mut buf = vec![0u8; 100];
        r.seek(SeekFrom::Start(60)).unwrap();
        r.read_exact(&mut buf).unwrap();
        assert_eq!(buf, data[60..160]);
        r.seek(SeekFrom::End(-10)).unwrap();
        let mut tail = Vec::new();
        r.read_to_end(&mut tail).unwrap();
        assert_eq!(tail, data[990..]);
        assert_eq!(r.read(&mut buf).unwrap(), 0);
        assert!(r.seek(SeekFrom::Current(-2000)).is_err());
        drop(r);
        // Stored again: nothing new.
        s.put_file_blob_chunked(&p, 64).unwrap();
        let rows: i64 =
            s.conn.query_row("SELECT count(*) FROM blob_chunks", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 16);
    }

    #[test]
    fn a_small_file_stays_inline() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("small.pdf");
        std::fs::write(&p, bytes(50)).unwrap();
        let mut s = Store::open_in_memory().unwrap();
        let h = s.put_file_blob_chunked(&p, 64).unwrap();
        let (n, len): (i64, i64) = s
            .conn
            .query_row("SELECT chunks, length(data) FROM blobs", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!((n, len), (0, 50));
        let small = matches!(s.pdf(&h).unwrap().unwrap(), StoredPdf::Bytes(b) if b == bytes(50));
        assert!(small, "a small PDF is read into memory");
    }

    #[test]
    fn a_file_that_changed_after_hashing_is_refused_and_nothing_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("moving.pdf");
        std::fs::write(&p, bytes(300)).unwrap();
        let mut s = Store::open_in_memory().unwrap();
        let stale = blake3::hash(&bytes(299)).to_hex().to_string();
        let tx = s.conn.transaction().unwrap();
        let e = put_file_blob(&tx, &p, 300, &stale, "application/pdf", 64).unwrap_err();
        drop(tx);
        assert!(e.to_string().contains("changed while it was read"), "{e}");
        assert!(e.to_string().contains("moving.pdf"), "{e}");
        let n: i64 =
            s.conn.query_row("SELECT count(*) FROM blob_chunks", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 0);
        let tx = s.conn.transaction().unwrap();
        let e = put_file_blob(&tx, &p, 299, &stale, "application/pdf", 64).unwrap_err();
        assert!(e.to_string().contains("299 then 300 bytes"), "{e}");
    }
}
