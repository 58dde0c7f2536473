//! Ingest: PDFs and their ground truth into the store, content-hashed and idempotent.
//!
//! A PDF's identity is the blake3 of its bytes. The same bytes under two names or datasets
//! are one document with two names; re-ingesting changes nothing and says so. A file that is
//! not a usable PDF is a per-file error: recorded, reported, and the batch goes on. A
//! malformed ground truth is rejected with its path and the parse error while its PDF still
//! ingests.

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::formats::TruthFormat;
use crate::progress::Progress;
use crate::store::{IngestDoc, RunId, Store, TruthFile};
use crate::truth::DirCache;

pub mod isolated;
pub mod label_studio;
pub mod olmocr;
pub mod omnidoc;
pub mod page_truth;
pub mod parsebench;

/// Counts pages of a PDF (pdfium in the binary; a stand-in in tests).
pub trait PageCounter {
    /// Returns the page count of the PDF at `path`, or why it is not a usable PDF. `pdf` is
    /// its bytes when they are in memory; a PDF larger than one stored chunk is read from
    /// `path` instead (`None`).
    fn pages(&mut self, path: &Path, pdf: Option<&[u8]>) -> std::result::Result<u32, String>;
}

/// What to ingest.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// Files and folders (folders are searched recursively for `*.pdf`).
    pub paths: Vec<PathBuf>,
    /// The dataset the names go into.
    pub dataset: String,
    /// The ground-truth format to attach, if any.
    pub truth: Option<TruthFormat>,
    /// The run to record errors under.
    pub run: Option<RunId>,
    /// Attributes (name, value) set on every document ingested (for `report --by
    /// attribute:<name>`).
    pub attributes: Vec<(String, String)>,
    /// Follow folder symlinks (each folder is walked once: `docs/walking.md`).
    pub follow: bool,
}

/// One file that could not be ingested (or whose truth was rejected).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FileError {
    /// The file.
    pub path: String,
    /// What is wrong.
    pub error: String,
}

/// What an ingest did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestSummary {
    /// PDF files seen.
    pub files: u64,
    /// Documents new to the store.
    pub new_documents: u64,
    /// Names added for bytes the store already had.
    pub new_names: u64,
    /// Files that were already ingested under the same name (nothing changed).
    pub unchanged: u64,
    /// Pages of the new documents.
    pub new_pages: u64,
    /// Truth files attached that the store did not have.
    pub truths_added: u64,
    /// PDFs for which no truth file was found (when a truth format was asked for).
    pub truths_missing: Vec<String>,
    /// Per-file errors.
    pub errors: Vec<FileError>,
    /// Folder symlinks not followed (without `--follow`).
    pub dir_links_skipped: u64,
    /// Links back to a folder already being walked (with `--follow`), not walked again.
    pub loops: u64,
    /// Symlinks whose target does not exist.
    pub dangling_links: Vec<String>,
    /// Further names (symlinks, hard links) of PDFs already found, not ingested again.
    pub aliases: u64,
    /// ParseBench rule types this build does not run, with their numbers of rules (stored
    /// with the truth, counted by `eval`, never run).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub rules_not_run: std::collections::BTreeMap<String, u64>,
    /// Label Studio tasks not ingested, each named with why (skipped, cancelled, never
    /// annotated): recorded, never dropped silently.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tasks_not_ingested: Vec<String>,
    /// The truth versions this ingest stored, one entry per version number
    /// ([`stored_truths`]); empty when it stored no truth.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub truth_versions: Vec<StoredTruths>,
}

/// Truths one ingest stored at one version (`docs/truth-versions.md`).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct StoredTruths {
    /// The version (1 for a first truth, else one more than the highest it supersedes).
    pub version: u32,
    /// Documents that got a truth of this version.
    pub documents: u64,
    /// Truth files stored at this version (a document's truth in several parts counts each).
    pub truths: u64,
    /// The ids of the truths they supersede, ascending.
    pub supersedes: Vec<i64>,
    /// The versions of those superseded truths, ascending, without repeats.
    pub superseded_versions: Vec<u32>,
}

impl StoredTruths {
    /// One line for a person: `stored truth version v2 for 3 documents (supersedes v1:
    /// truths 4, 5, 6)`.
    pub fn describe(&self) -> String {
        let docs = if self.documents == 1 { "document" } else { "documents" };
        let mut s = format!("stored truth version v{} for {} {docs}", self.version, self.documents);
        if self.truths != self.documents {
            s.push_str(&format!(" ({} truth files)", self.truths));
        }
        if self.supersedes.is_empty() {
            s.push_str(" (their first truth)");
        } else {
            let versions: Vec<String> =
                self.superseded_versions.iter().map(|v| format!("v{v}")).collect();
            let ids: Vec<String> = self.supersedes.iter().take(8).map(i64::to_string).collect();
            let more = if self.supersedes.len() > 8 { ", …" } else { "" };
            s.push_str(&format!(
                " (supersedes {}: truth{} {}{more})",
                versions.join(", "),
                if self.supersedes.len() == 1 { "" } else { "s" },
                ids.join(", ")
            ));
        }
        s
    }
}

/// The truths stored with an id of at least `first_id` (those an ingest that started when the
/// store's next truth id was `first_id` stored), grouped by version, lowest first.
pub fn stored_truths(store: &Store, first_id: i64) -> Result<Vec<StoredTruths>> {
    use std::collections::{BTreeMap, BTreeSet};
    let all = store.truth_versions(None)?;
    let version: std::collections::HashMap<i64, u32> =
        all.iter().map(|t| (t.row.id, t.version)).collect();
    let mut by: BTreeMap<u32, (BTreeSet<i64>, u64, BTreeSet<i64>)> = BTreeMap::new();
    for t in all.iter().filter(|t| t.row.id >= first_id) {
        let e = by.entry(t.version).or_default();
        e.0.insert(t.row.document);
        e.1 += 1;
        e.2.extend(t.supersedes.iter().copied());
    }
    Ok(by
        .into_iter()
        .map(|(v, (docs, truths, old))| {
            let vs: BTreeSet<u32> = old.iter().filter_map(|o| version.get(o).copied()).collect();
            StoredTruths {
                version: v,
                documents: docs.len() as u64,
                truths,
                supersedes: old.into_iter().collect(),
                superseded_versions: vs.into_iter().collect(),
            }
        })
        .collect())
}

/// The id the next stored truth will have at least: one more than the highest stored.
pub fn next_truth_id(store: &Store) -> Result<i64> {
    Ok(store.truth_versions(None)?.iter().map(|t| t.row.id).max().unwrap_or(0) + 1)
}

impl IngestSummary {
    /// Counts one stored file: a new document (with its pages), a new name or unchanged.
    pub fn count(&mut self, out: &crate::store::IngestOutcome, pages: u32) {
        if out.new_document {
            self.new_documents += 1;
            self.new_pages += u64::from(pages);
        } else if out.new_name {
            self.new_names += 1;
        } else {
            self.unchanged += 1;
        }
        self.truths_added += u64::from(out.new_truths);
    }
}

/// Ingests every PDF under `opts.paths`.
pub fn ingest(
    store: &mut Store,
    opts: &IngestOptions,
    pages: &mut dyn PageCounter,
    progress: &dyn Progress,
) -> Result<IngestSummary> {
    let mut files = Vec::new();
    let mut summary = IngestSummary::default();
    let mut bench = BenchTruths::default();
    for p in &opts.paths {
        match opts.truth {
            Some(TruthFormat::OlmocrBench) => bench.collect(p, &mut files, &mut summary)?,
            Some(TruthFormat::ParseBench) => {
                bench.collect_parsebench(p, &mut files, &mut summary)?
            }
            _ => collect(p, opts.follow, &mut files, &mut summary)?,
        }
    }
    for e in &summary.errors {
        store.record_ingest_error(opts.run, &e.path, &e.error)?;
    }
    let mut dirs = DirCache::default();
    progress.start(files.len() as u64);
    for (i, (path, name)) in files.iter().enumerate() {
        summary.files += 1;
        let shown = path.display().to_string();
        let found = bench.of_file.get(&i).map(|&b| (&bench.sets[b], name.as_str()));
        let pb = bench.of_file_pb.get(&i).map(|&b| (&bench.parsebench[b], name.as_str()));
        let one = Found { path, name, bench: found, parsebench: pb };
        let ok = match ingest_one(store, opts, pages, &mut dirs, &one, &mut summary) {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!("{shown}: {error}");
                store.record_ingest_error(opts.run, &shown, &error)?;
                summary.errors.push(FileError { path: shown.clone(), error });
                false
            }
        };
        progress.advance(&shown, ok);
    }
    progress.finish();
    Ok(summary)
}

/// The olmOCR-bench and ParseBench folders of one ingest: their tests, and which files they
/// hold.
#[derive(Default)]
struct BenchTruths {
    sets: Vec<olmocr::BenchTests>,
    /// Index into the ingest's file list -> index into `sets`.
    of_file: std::collections::HashMap<usize, usize>,
    parsebench: Vec<parsebench::Folder>,
    /// Index into the ingest's file list -> index into `parsebench`.
    of_file_pb: std::collections::HashMap<usize, usize>,
}

impl BenchTruths {
    /// Collects a bench folder's PDFs (named relative to its `pdfs/`) and loads its tests;
    /// malformed lines become per-line errors in `summary`.
    fn collect(
        &mut self,
        path: &Path,
        files: &mut Vec<(PathBuf, String)>,
        summary: &mut IngestSummary,
    ) -> Result<()> {
        let Some(layout) = olmocr::BenchFolders::find(path) else {
            return Err(Error::Usage(format!(
                "{}: not an olmOCR-bench folder (expected a pdfs/ folder beside *.jsonl test files)",
                path.display()
            )));
        };
        let tests = olmocr::load(&layout.tests);
        summary.errors.extend(tests.errors.iter().cloned());
        let start = files.len();
        collect(&layout.pdfs, false, files, summary)?;
        let names: std::collections::HashSet<&str> =
            files[start..].iter().map(|(_, n)| n.as_str()).collect();
        let mut orphans: Vec<&String> =
            tests.by_pdf.keys().filter(|p| !names.contains(p.as_str())).collect();
        orphans.sort();
        for pdf in orphans {
            let from = tests.sources.get(pdf).map(|s| s.iter().cloned().collect::<Vec<_>>());
            summary.errors.push(FileError {
                path: from.unwrap_or_default().join(", "),
                error: format!("tests name {pdf}.pdf, which is not in {}", layout.pdfs.display()),
            });
        }
        for i in start..files.len() {
            self.of_file.insert(i, self.sets.len());
        }
        self.sets.push(tests);
        Ok(())
    }

    /// Collects a ParseBench folder's PDFs and reads its rules; malformed lines and files
    /// become per-line errors in `summary`, rule types not run are counted there.
    fn collect_parsebench(
        &mut self,
        path: &Path,
        files: &mut Vec<(PathBuf, String)>,
        summary: &mut IngestSummary,
    ) -> Result<()> {
        let Some(mut folder) = parsebench::Folder::load(path) else {
            return Err(Error::Usage(format!(
                "{}: not a ParseBench folder (expected *.jsonl rule files beside a pdfs/ folder, or PDFs with <stem>.test.json beside them)",
                path.display()
            )));
        };
        let start = files.len();
        collect(&folder.pdfs, false, files, summary)?;
        folder.attach(&files[start..]);
        summary.errors.extend(folder.errors.iter().cloned());
        for (k, n) in &folder.not_run {
            *summary.rules_not_run.entry(k.clone()).or_default() += n;
        }
        for i in start..files.len() {
            self.of_file_pb.insert(i, self.parsebench.len());
        }
        self.parsebench.push(folder);
        Ok(())
    }
}

/// One PDF to ingest: its path, its name, and for an olmOCR-bench or ParseBench folder its
/// tests.
struct Found<'a> {
    path: &'a Path,
    name: &'a str,
    bench: Option<(&'a olmocr::BenchTests, &'a str)>,
    parsebench: Option<(&'a parsebench::Folder, &'a str)>,
}

/// Ingests one PDF; an `Err` is the per-file error message to record.
fn ingest_one(
    store: &mut Store,
    opts: &IngestOptions,
    counter: &mut dyn PageCounter,
    dirs: &mut DirCache,
    found: &Found<'_>,
    summary: &mut IngestSummary,
) -> std::result::Result<(), String> {
    let (path, name) = (found.path, found.name);
    let (mut file, size) = crate::walk::open_regular(path, crate::store::MAX_PDF, "a PDF")?;
    let read_err = |e: std::io::Error| format!("cannot read: {}", crate::walk::io_words(&e));
    let mut bytes = Vec::new();
    let hash = if size <= crate::store::CHUNK {
        bytes.reserve_exact(size as usize);
        (&mut file).take(size + 1).read_to_end(&mut bytes).map_err(read_err)?;
        blake3::hash(&bytes).to_hex().to_string()
    } else {
        // Too large to hold: hashed while streaming, stored in chunks from the file.
        let (hash, n) = crate::store::hash_file(&mut file, size).map_err(read_err)?;
        if n != size {
            return Err(format!("the file changed while it was read ({size} then {n} bytes)"));
        }
        hash
    };
    if bytes.len() as u64 > size {
        return Err("the file grew while it was read".into());
    }
    let streamed = size > crate::store::CHUNK;
    let known = store.document_by_hash(&hash).map_err(|e| e.to_string())?;
    let pages = match known {
        Some((_, pages)) => pages,
        None if streamed => {
            let mut head = Vec::with_capacity(1024);
            file.seek(std::io::SeekFrom::Start(0)).map_err(read_err)?;
            (&mut file).take(1024).read_to_end(&mut head).map_err(read_err)?;
            check_pdf_header(&head)?;
            counter.pages(path, None)?
        }
        None => {
            check_pdf_header(&bytes)?;
            counter.pages(path, Some(&bytes))?
        }
    };
    // A truth is attached whole or not at all: one malformed part rejects every part.
    let mut loaded: Vec<(String, Vec<u8>, String)> = Vec::new();
    let mut attributes = opts.attributes.clone();
    if let Some((tests, pdf)) = found.bench {
        // Validated line by line when the folder's tests were loaded.
        loaded = tests.parts(pdf);
        for (_, _, source) in &mut loaded {
            if source.is_empty() {
                *source = path.display().to_string();
            }
        }
        for (k, v) in tests.attributes(pdf) {
            // `--attribute` given on the command line wins.
            if !attributes.iter().any(|(n, _)| *n == k) {
                attributes.push((k, v));
            }
        }
    } else if let Some((folder, pdf)) = found.parsebench {
        // Read line by line when the folder was loaded.
        loaded = folder.parts(pdf);
        if loaded.is_empty() {
            summary.truths_missing.push(path.display().to_string());
        }
    } else if let Some(format) = opts.truth {
        let parts = format.locate(path, dirs);
        if parts.is_empty() {
            summary.truths_missing.push(path.display().to_string());
        }
        for (part, tp) in parts {
            let shown = tp.display().to_string();
            let b =
                crate::walk::read_regular(&tp, crate::walk::MAX_TEXT_FILE, "a ground-truth file")
                    .map_err(|e| format!("{shown}: {e}"))?;
            let checked = format.validate(&b).and_then(|()| match format {
                // Its images must be pages of this PDF: known only here.
                crate::formats::TruthFormat::Coco => crate::formats::coco::read(&b)
                    .map_err(|e| e.to_string())
                    .and_then(|t| crate::formats::coco::check_pages(&t, pages)),
                _ => Ok(()),
            });
            if let Err(e) = checked {
                // The PDF still ingests; the truth is rejected and reported.
                let error = format!("malformed {} ground truth: {e}", format.as_str());
                tracing::warn!("{shown}: {error}");
                store.record_ingest_error(opts.run, &shown, &error).map_err(|e| e.to_string())?;
                summary.errors.push(FileError { path: shown, error });
                loaded.clear();
                break;
            }
            loaded.push((part.to_string(), b, shown));
        }
    }
    let truths: Vec<TruthFile<'_>> = match opts.truth {
        Some(f) => loaded
            .iter()
            .map(|(part, b, p)| TruthFile { format: f.as_str(), part, bytes: b, source_path: p })
            .collect(),
        None => Vec::new(),
    };
    if let Some(f) = opts.truth {
        for (_, b, _) in &loaded {
            for (k, v) in f.attributes(b) {
                // `--attribute` given on the command line wins.
                if !attributes.iter().any(|(n, _)| *n == k) {
                    attributes.push((k, v));
                }
            }
        }
    }
    let shown = path.display().to_string();
    let doc = IngestDoc {
        dataset: &opts.dataset,
        name,
        source_path: &shown,
        pdf: if streamed {
            crate::store::PdfData::File { path, size, hash: &hash }
        } else {
            crate::store::PdfData::Bytes(&bytes)
        },
        pages,
        truths: &truths,
        attributes: &attributes,
    };
    let out = store.ingest(&doc).map_err(|e| match e {
        Error::BadInput { msg, .. } => msg,
        other => other.to_string(),
    })?;
    summary.count(&out, pages);
    Ok(())
}

/// Refuses bytes that do not start like a PDF, before any native code sees them.
fn check_pdf_header(bytes: &[u8]) -> std::result::Result<(), String> {
    if bytes.is_empty() {
        return Err("not a PDF: the file is empty".into());
    }
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err("not a PDF: no %PDF- header in the first 1024 bytes".into());
    }
    Ok(())
}

/// Collects (file, name) pairs: a file is named by its stem; files in a folder by their
/// path relative to it, without the `.pdf` extension, with `/` separators. The walk's
/// refusals become per-file errors; skipped links are counted in `summary`.
fn collect(
    path: &Path,
    follow: bool,
    out: &mut Vec<(PathBuf, String)>,
    summary: &mut IngestSummary,
) -> Result<()> {
    let is_pdf = |rel: &Path| rel.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf"));
    let w = crate::walk::walk(path, follow, &is_pdf)
        .map_err(|r| Error::Usage(format!("{}: {}", r.path.display(), r.reason)))?;
    let single = !path.is_dir();
    for f in w.files {
        let name = if single {
            path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
        } else {
            f.rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        };
        out.push((f.path, name));
    }
    for r in w.refused {
        summary.errors.push(FileError { path: r.path.display().to_string(), error: r.reason });
    }
    for d in w.dangling {
        tracing::warn!(
            "{}: a symlink to nothing (its target does not exist); skipped",
            d.display()
        );
        summary.dangling_links.push(d.display().to_string());
    }
    for l in &w.dir_links_skipped {
        tracing::debug!("{}: a folder symlink, not followed (use --follow)", l.display());
    }
    summary.dir_links_skipped += w.dir_links_skipped.len() as u64;
    summary.loops += w.loops.len() as u64;
    summary.aliases += w.aliases;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    /// Counts "pages" as the number of `/Type /Page ` markers; refuses `%BROKEN`.
    struct FakeCounter;
    impl PageCounter for FakeCounter {
        fn pages(&mut self, _: &Path, pdf: Option<&[u8]>) -> std::result::Result<u32, String> {
            let pdf = pdf.unwrap_or_default();
            if pdf.windows(7).any(|w| w == b"%BROKEN") {
                return Err("truncated or damaged PDF".into());
            }
            Ok(1)
        }
    }

    fn opts(paths: Vec<PathBuf>, truth: Option<TruthFormat>) -> IngestOptions {
        IngestOptions {
            paths,
            dataset: "ds".into(),
            truth,
            run: None,
            attributes: Vec::new(),
            follow: false,
        }
    }

    #[test]
    fn folders_are_walked_and_named_by_relative_path() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("a.pdf"), b"%PDF-1.4 a").unwrap();
        std::fs::write(d.path().join("sub/b.PDF"), b"%PDF-1.4 b").unwrap();
        std::fs::write(d.path().join("notes.txt"), b"x").unwrap();
        let mut found = Vec::new();
        collect(d.path(), false, &mut found, &mut IngestSummary::default()).unwrap();
        let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, ["a", "sub/b"]);
    }

    #[test]
    fn bad_files_are_errors_that_do_not_stop_the_batch() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.pdf"), b"%PDF-1.4 good").unwrap();
        std::fs::write(d.path().join("b.pdf"), b"hello, not a pdf").unwrap();
        std::fs::write(d.path().join("c.pdf"), b"%PDF-1.4 %BROKEN").unwrap();
        std::fs::write(d.path().join("d.pdf"), b"").unwrap();
        let mut s = Store::open_in_memory().unwrap();
        let sum = ingest(&mut s, &opts(vec![d.path().into()], None), &mut FakeCounter, &NoProgress)
            .unwrap();
        assert_eq!(sum.new_documents, 1);
        assert_eq!(sum.errors.len(), 3);
        assert!(sum.errors[0].path.ends_with("b.pdf") && sum.errors[0].error.contains("not a PDF"));
        assert!(sum.errors[1].error.contains("truncated"));
        assert!(sum.errors[2].error.contains("empty"));
        assert_eq!(s.totals().unwrap(), (1, 1, 3));
    }

    #[test]
    fn reingest_is_a_no_op_and_a_second_name_shares_the_document() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.pdf"), b"%PDF-1.4 same").unwrap();
        std::fs::write(d.path().join("copy.pdf"), b"%PDF-1.4 same").unwrap();
        let mut s = Store::open_in_memory().unwrap();
        let o = opts(vec![d.path().join("a.pdf")], None);
        let first = ingest(&mut s, &o, &mut FakeCounter, &NoProgress).unwrap();
        assert_eq!(first.new_documents, 1);
        let again = ingest(&mut s, &o, &mut FakeCounter, &NoProgress).unwrap();
        assert_eq!((again.new_documents, again.unchanged), (0, 1));
        let o2 = opts(vec![d.path().join("copy.pdf")], None);
        let copy = ingest(&mut s, &o2, &mut FakeCounter, &NoProgress).unwrap();
        assert_eq!((copy.new_documents, copy.new_names), (0, 1));
        assert_eq!(s.totals().unwrap().0, 1);
        assert_eq!(
            s.find_documents("copy", None).unwrap()[0].id,
            s.find_documents("a", None).unwrap()[0].id
        );
    }

    #[test]
    fn malformed_truth_is_rejected_with_its_path_and_the_pdf_still_ingests() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.pdf"), b"%PDF-1.4 a").unwrap();
        std::fs::write(d.path().join("a.pdf.json"), b"{\"name\": \"a.pdf\", \"metadata\": {")
            .unwrap();
        let mut s = Store::open_in_memory().unwrap();
        let sum = ingest(
            &mut s,
            &opts(vec![d.path().into()], Some(TruthFormat::PeerRead)),
            &mut FakeCounter,
            &NoProgress,
        )
        .unwrap();
        assert_eq!(sum.new_documents, 1);
        assert_eq!(sum.truths_added, 0);
        assert_eq!(sum.errors.len(), 1);
        assert!(sum.errors[0].path.ends_with("a.pdf.json"), "{:?}", sum.errors);
        assert!(sum.errors[0].error.contains("malformed peerread"), "{:?}", sum.errors);
        assert!(s.truths(None).unwrap().is_empty());
    }
}
