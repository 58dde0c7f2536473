//! Finding input files in folders, and reading them without surprises.
//!
//! One walker serves `ingest`, `import` and truth look-up (rules in `docs/walking.md`):
//! - folder symlinks are not followed unless asked (`--follow`), as `fd` and ripgrep do; each
//!   one skipped is counted;
//! - when they are followed, a folder is walked once, whatever the number of paths that reach
//!   it (cycles and diamonds detected by device and inode);
//! - a file reached under several names (symlinks, hard links) is kept once, under its own
//!   name when the walk meets it, else under the first link in walk order;
//! - only regular files are ever opened: a FIFO, socket or device with a wanted name is a
//!   named error and is never read; a dangling link is one warning;
//! - the order is deterministic (names sorted byte-wise within each folder, depth first).
//!
//! Reads are bounded: a file is checked (type, size) on the open handle before any byte is
//! read, it is opened non-blocking so that a FIFO swapped in after the check cannot hang the
//! read, and it is never read past the size it had when checked.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A file the walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The path as walked (through the root given).
    pub path: PathBuf,
    /// The path relative to the root (the file's own name when the root is a file).
    pub rel: PathBuf,
    /// Its size when it was found.
    pub size: u64,
}

/// A path the walk refused or could not read: the path and what is wrong, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The path.
    pub path: PathBuf,
    /// What is wrong.
    pub reason: String,
}

/// What a walk found, and what it passed over.
#[derive(Debug, Default, Clone)]
pub struct Walk {
    /// Regular files whose name the caller wanted, in walk order, each once.
    pub files: Vec<Found>,
    /// Wanted names that are not regular files (FIFO, socket, device) or could not be read:
    /// errors to record.
    pub refused: Vec<Refused>,
    /// Folder symlinks not followed (without `--follow`).
    pub dir_links_skipped: Vec<PathBuf>,
    /// Symlinks whose target does not exist (one warning each).
    pub dangling: Vec<PathBuf>,
    /// Links back to a folder being walked, or to one already walked (with `--follow`).
    pub loops: Vec<PathBuf>,
    /// Further names of a file already kept (symlinks or hard links to it).
    pub aliases: u64,
}

/// The kind of a file that is not a regular file or a folder, in words.
pub(crate) fn special_kind(ft: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if ft.is_socket() {
        Some("a socket")
    } else if ft.is_block_device() {
        Some("a block device")
    } else if ft.is_char_device() {
        Some("a character device")
    } else {
        None
    }
}

/// Walks `root` (a folder, or one file) and keeps the regular files for which `wanted`
/// (given the path relative to the root) is true.
///
/// A root that does not exist or cannot be listed is an `Err` naming it; everything below
/// it that goes wrong is recorded in the [`Walk`] and the walk goes on.
pub fn walk(
    root: &Path,
    follow: bool,
    wanted: &dyn Fn(&Path) -> bool,
) -> std::result::Result<Walk, Refused> {
    let refuse = |reason: String| Refused { path: root.to_path_buf(), reason };
    let meta = std::fs::metadata(root).map_err(|e| refuse(io_words(&e)))?;
    let mut out = Walk::default();
    if !meta.is_dir() {
        // A file named on the command line is taken whatever its name.
        let rel = PathBuf::from(root.file_name().unwrap_or(root.as_os_str()));
        if let Some(kind) = special_kind(&meta.file_type()) {
            out.refused.push(refuse(format!("not a regular file: it is {kind}; not read")));
        } else {
            out.files.push(Found { path: root.to_path_buf(), rel, size: meta.len() });
        }
        return Ok(out);
    }
    // (device, inode) of every folder entered, and of every file kept.
    let mut dirs: HashSet<(u64, u64)> = HashSet::new();
    // (device, inode) -> index into `candidates`, and whether that name is a link.
    let mut by_inode: HashMap<(u64, u64), (usize, bool)> = HashMap::new();
    let mut candidates: Vec<Option<Found>> = Vec::new();
    let mut dangling_seen: HashSet<PathBuf> = HashSet::new();
    let it = walkdir::WalkDir::new(root)
        .follow_links(follow)
        .follow_root_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            if !e.file_type().is_dir() {
                return true;
            }
            // With links followed, a folder reached a second time is not walked again.
            match e.metadata() {
                Ok(m) => dirs.insert(dev_ino(&m)),
                Err(_) => true,
            }
        });
    for entry in it {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e.path().unwrap_or(root).to_path_buf();
                if e.loop_ancestor().is_some() {
                    out.loops.push(path);
                } else if e.io_error().is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
                    && is_link(&path)
                {
                    if dangling_seen.insert(path.clone()) {
                        out.dangling.push(path);
                    }
                } else {
                    let reason = e.io_error().map_or_else(|| e.to_string(), io_words);
                    out.refused.push(Refused { path, reason: format!("cannot read: {reason}") });
                }
                continue;
            }
        };
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(path).to_path_buf();
        let ft = entry.file_type();
        if ft.is_dir() {
            continue;
        }
        let link = entry.path_is_symlink();
        // Without `--follow`, a link is resolved here: a link to a file is that file, a link
        // to a folder is skipped and counted.
        let meta = if ft.is_symlink() {
            match std::fs::metadata(path) {
                Ok(m) if m.is_dir() => {
                    out.dir_links_skipped.push(path.to_path_buf());
                    continue;
                }
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if dangling_seen.insert(path.to_path_buf()) {
                        out.dangling.push(path.to_path_buf());
                    }
                    continue;
                }
                Err(e) => {
                    if wanted(&rel) {
                        let reason = format!("cannot read: {}", io_words(&e));
                        out.refused.push(Refused { path: path.to_path_buf(), reason });
                    }
                    continue;
                }
            }
        } else {
            match entry.metadata() {
                Ok(m) => m,
                Err(e) => {
                    if wanted(&rel) {
                        let reason = e.io_error().map_or_else(|| e.to_string(), io_words);
                        let reason = format!("cannot read: {reason}");
                        out.refused.push(Refused { path: path.to_path_buf(), reason });
                    }
                    continue;
                }
            }
        };
        if !wanted(&rel) {
            continue;
        }
        if let Some(kind) = special_kind(&meta.file_type()) {
            let reason = format!("not a regular file: it is {kind}; not read");
            out.refused.push(Refused { path: path.to_path_buf(), reason });
            continue;
        }
        let found = Found { path: path.to_path_buf(), rel, size: meta.len() };
        match by_inode.get(&dev_ino(&meta)).copied() {
            None => {
                by_inode.insert(dev_ino(&meta), (candidates.len(), link));
                candidates.push(Some(found));
            }
            Some((i, true)) if !link => {
                // The file itself, met after a link to it: it keeps its own name, at the
                // link's place in the order.
                candidates[i] = Some(found);
                by_inode.insert(dev_ino(&meta), (i, false));
                out.aliases += 1;
            }
            Some(_) => out.aliases += 1,
        }
    }
    out.files = candidates.into_iter().flatten().collect();
    Ok(out)
}

fn dev_ino(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// An I/O error in words, without Rust's debug form (`No such file or directory`).
pub(crate) fn io_words(e: &std::io::Error) -> String {
    let s = e.to_string();
    // std appends " (os error N)": users do not need the number.
    match s.rfind(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Formats a byte count for messages: `1.50 GB (1500000000 bytes)`.
pub(crate) fn size_words(n: u64) -> String {
    let (v, unit) = if n >= 1_000_000_000 {
        (n as f64 / 1e9, "GB")
    } else if n >= 1_000_000 {
        (n as f64 / 1e6, "MB")
    } else if n >= 1_000 {
        (n as f64 / 1e3, "kB")
    } else {
        return format!("{n} bytes");
    };
    format!("{v:.2} {unit} ({n} bytes)")
}

/// Opens `path` for reading if it is a regular file of at most `limit` bytes; returns the
/// handle and the size it has now. The error names what is wrong, in words (the caller adds
/// the path).
pub(crate) fn open_regular(
    path: &Path,
    limit: u64,
    what: &str,
) -> std::result::Result<(File, u64), String> {
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking, so that opening a FIFO (swapped in after any earlier check) returns at
    // once instead of waiting for a writer; regular files ignore the flag.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(|e| format!("cannot open: {}", io_words(&e)))?;
    let m = f.metadata().map_err(|e| format!("cannot read: {}", io_words(&e)))?;
    if let Some(kind) = special_kind(&m.file_type()) {
        return Err(format!("not a regular file: it is {kind}; not read"));
    }
    if m.is_dir() {
        return Err("is a folder, not a file".into());
    }
    if m.len() > limit {
        return Err(format!(
            "is {}; {what} may be at most {}",
            size_words(m.len()),
            size_words(limit)
        ));
    }
    Ok((f, m.len()))
}

/// Reads a regular file of at most `limit` bytes whole (see [`open_regular`]). A file that
/// grows while it is read is refused rather than read without bound.
pub(crate) fn read_regular(
    path: &Path,
    limit: u64,
    what: &str,
) -> std::result::Result<Vec<u8>, String> {
    let (f, size) = open_regular(path, limit, what)?;
    let mut buf = Vec::with_capacity(size as usize);
    f.take(size + 1).read_to_end(&mut buf).map_err(|e| format!("cannot read: {}", io_words(&e)))?;
    if buf.len() as u64 > size {
        return Err("the file grew while it was read".into());
    }
    Ok(buf)
}

/// The largest ground-truth or import file read (each is stored as one SQLite value, whose
/// limit is 1,000,000,000 bytes).
pub const MAX_TEXT_FILE: u64 = 1_000_000_000;

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn pdfs(rel: &Path) -> bool {
        rel.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
    }

    fn rels(w: &Walk) -> Vec<String> {
        w.files.iter().map(|f| f.rel.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn a_link_to_a_parent_is_skipped_or_walked_once() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("sub dir");
        std::fs::create_dir_all(sub.join("in")).unwrap();
        std::fs::write(sub.join("a b (1).pdf"), b"%PDF-1.4").unwrap();
        std::fs::write(sub.join("in/c.pdf"), b"%PDF-1.4 c").unwrap();
        symlink("..", sub.join("in/loop")).unwrap();
        symlink("nowhere", sub.join("in/dangling.pdf")).unwrap();
        let w = walk(d.path(), false, &pdfs).unwrap();
        assert_eq!(rels(&w), ["sub dir/a b (1).pdf", "sub dir/in/c.pdf"]);
        assert_eq!(w.dir_links_skipped, [sub.join("in/loop")]);
        assert_eq!(w.dangling, [sub.join("in/dangling.pdf")]);
        assert!(w.loops.is_empty() && w.refused.is_empty());

        let w = walk(d.path(), true, &pdfs).unwrap();
        assert_eq!(rels(&w), ["sub dir/a b (1).pdf", "sub dir/in/c.pdf"]);
        assert!(w.dir_links_skipped.is_empty());
        assert_eq!(w.dangling.len(), 1, "one warning, not one per path: {:?}", w.dangling);
        assert_eq!(w.loops, [sub.join("in/loop")]);
    }

    #[test]
    fn a_folder_reached_twice_with_follow_is_walked_once() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("b")).unwrap();
        std::fs::write(d.path().join("b/x.pdf"), b"%PDF-1.4").unwrap();
        symlink("b", d.path().join("a")).unwrap();
        let w = walk(d.path(), true, &pdfs).unwrap();
        // `a` sorts first, so the folder is entered through it.
        assert_eq!(rels(&w), ["a/x.pdf"]);
        assert!(w.loops.is_empty());
    }

    #[test]
    fn file_links_and_hard_links_keep_one_name() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("real.pdf"), b"%PDF-1.4").unwrap();
        symlink("real.pdf", d.path().join("a-link.pdf")).unwrap();
        std::fs::hard_link(d.path().join("real.pdf"), d.path().join("z-hard.pdf")).unwrap();
        let w = walk(d.path(), false, &pdfs).unwrap();
        assert_eq!(rels(&w), ["real.pdf"]);
        assert_eq!(w.aliases, 2);
        // A link to a file outside the tree is that file, under the link's name.
        let o = tempfile::tempdir().unwrap();
        symlink(d.path().join("real.pdf"), o.path().join("outside.pdf")).unwrap();
        let w = walk(o.path(), false, &pdfs).unwrap();
        assert_eq!(rels(&w), ["outside.pdf"]);
        assert_eq!(w.files[0].size, 8);
    }

    #[test]
    fn fifos_and_sockets_are_refused_unread() {
        let d = tempfile::tempdir().unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            d.path().join("x.pdf"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let _sock = std::os::unix::net::UnixListener::bind(d.path().join("s.pdf")).unwrap();
        std::fs::write(d.path().join("y.pdf"), b"%PDF-1.4").unwrap();
        let w = walk(d.path(), false, &pdfs).unwrap();
        assert_eq!(rels(&w), ["y.pdf"]);
        let reasons: Vec<String> =
            w.refused.iter().map(|r| format!("{}: {}", r.path.display(), r.reason)).collect();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(reasons[0].ends_with("s.pdf: not a regular file: it is a socket; not read"));
        assert!(
            reasons[1].ends_with("x.pdf: not a regular file: it is a named pipe (FIFO); not read")
        );
        // Named directly, a FIFO is refused too, and opening one never blocks.
        let w = walk(&d.path().join("x.pdf"), false, &pdfs).unwrap();
        assert!(w.files.is_empty() && w.refused.len() == 1);
        let e = read_regular(&d.path().join("x.pdf"), 100, "a file").unwrap_err();
        assert!(e.contains("named pipe"), "{e}");
    }

    #[test]
    fn reads_are_bounded() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.json");
        std::fs::write(&p, vec![b'x'; 2000]).unwrap();
        assert_eq!(read_regular(&p, 2000, "a truth file").unwrap().len(), 2000);
        let e = read_regular(&p, 1999, "a truth file").unwrap_err();
        assert_eq!(e, "is 2.00 kB (2000 bytes); a truth file may be at most 2.00 kB (1999 bytes)");
        let e = read_regular(d.path(), 10, "a file").unwrap_err();
        assert!(e.contains("folder"), "{e}");
        let e = read_regular(&d.path().join("none"), 10, "a file").unwrap_err();
        assert_eq!(e, "cannot open: No such file or directory");
    }

    #[test]
    fn a_missing_root_is_an_error_naming_it() {
        let e = walk(Path::new("/no/such/dir"), false, &pdfs).unwrap_err();
        assert_eq!(e.path, Path::new("/no/such/dir"));
        assert_eq!(e.reason, "No such file or directory");
    }
}
