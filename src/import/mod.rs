//! `corpus import`: outputs that a parser produced elsewhere (Docling JSON, Markdown from
//! Marker / MinerU / olmOCR / a VLM, GROBID TEI, PeerRead JSON, plain text, ALTO XML from
//! `pdfalto`, Unstructured's and opendataloader-pdf's JSON, MinerU's content list and middle
//! JSON, PaddleOCR's result JSON, Marker's JSON, olmOCR's pipeline JSONL) become ordinary
//! cached outputs of a named provider, scored by every suite like any other.
//!
//! - **Inputs** are files, folders (walked recursively) or zip archives, read in memory
//!   without extracting; a zip entry whose path is absolute or escapes with `..` is refused.
//! - **Names**: a file is matched to a document by the name it was ingested under
//!   (`paper.json`, `paper.pdf.md` and `sub/paper.md` all name `paper`), else by the PDF hash
//!   the file records (Docling's `origin.binary_hash`, the low 64 bits of the PDF's SHA-256),
//!   else it is reported as unmatched. olmOCR's `<pdf>_pg<N>_repeat<K>.md` names page `N`
//!   of `<pdf>`, repeat `K`; each repeat is its own output.
//! - **Pipelines' folder layouts** ([`entries`]): MinerU writes `<out>/<pdf>/auto/` (or
//!   `vlm/`, `hybrid_auto/`) `<pdf>_content_list.json` and `<pdf>_middle.json`; where both are
//!   there the middle file is imported (boxes in points, page sizes) and the content list is
//!   reported as skipped. PaddleX writes one `<pdf>_<page>_res.json` per page (zero-based):
//!   a PDF's page files are imported together as one output of the whole document (a list of
//!   page results in page order), since a document has one output per provider. Marker writes
//!   `<out>/<pdf>/<pdf>.json` and `<pdf>_meta.json` (skipped as another kind of JSON). olmOCR
//!   writes `results/output_<hash>.jsonl`, one document per line: each line is imported as
//!   the output of the PDF its `metadata.Source-File` names (`s3://bucket/dir/x.pdf`,
//!   `/abs/x.pdf`, `bundle.tar.gz::x.pdf` all name `x`), shown as `<file>:<line>`.
//! - **Cache key**: the provider id the user gives, the importer's adapter version, the
//!   file's blake3 as the model digest, the page, and a config holding the format, the
//!   declared provider and model versions and the repeat. Importing the same file again
//!   changes nothing; a changed file is a new output, and the older one stays in the history.
//!
//! The files are read by the readers in [`crate::formats`]; this module finds them, matches
//! them to documents and stores what the readers give.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use serde_json::json;

use crate::error::{Error, Result};
use crate::formats::ImportFormat;
use crate::progress::Progress;
use crate::providers::key::{canonical_json, CacheKey, PageSelection};
use crate::store::{DocumentRow, NewOutput, RunId, Store};

/// Bump when an importer's Doc for the same file changes (2: Markdown keeps its source text;
/// 3: GROBID TEI and PeerRead reference blocks carry their fields, headings their levels, the
/// Doc the paper's authors and keywords; 4: a form feed in Markdown starts a new page, and
/// the readers of ALTO, Unstructured and OpenDataLoader JSON; 5: blocks carry their source's
/// class as a label, Docling's `docling:<label>` and Unstructured's `unstructured:<type>` with
/// its `detection_class_prob` as the confidence, for the detection suite).
pub const IMPORT_ADAPTER_VERSION: u32 = 5;

/// The largest file (or zip entry) an import reads.
const MAX_FILE_BYTES: u64 = 1 << 30;

/// Whether a file is of `format` by its name, and its name without the ending.
fn strip(format: ImportFormat, name: &str) -> Option<&str> {
    let lower = name.to_ascii_lowercase();
    format
        .extensions()
        .iter()
        .find(|e| lower.ends_with(*e) && lower.len() > e.len())
        .map(|e| &name[..name.len() - e.len()])
}

/// What a file's name says about the document and page it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileName {
    /// The relative path without the format's ending and a `.pdf`/image ending (`sub/paper`).
    pub rel_stem: String,
    /// Its last component (`paper`).
    pub stem: String,
    /// One-based page, for per-page files (`_pg3`).
    pub page: Option<u32>,
    /// Repeat number, for olmOCR's `_repeat2`.
    pub repeat: Option<u32>,
}

/// Reads a relative path (`/`-separated) as a file name of `format`; `None` if the file is
/// not of that format.
pub(crate) fn parse_name(rel: &str, format: ImportFormat) -> Option<FileName> {
    let base = strip(format, rel)?;
    let mut base = base.to_string();
    for ext in [".pdf", ".png", ".jpg", ".jpeg"] {
        if base.to_ascii_lowercase().ends_with(ext) && base.len() > ext.len() {
            base.truncate(base.len() - ext.len());
            break;
        }
    }
    let (mut page, mut repeat) = (None, None);
    if format == ImportFormat::PaddleJson {
        if let Some((stem, n)) = paddle_page(&base) {
            page = Some(n);
            base = stem.to_string();
        }
    }
    // olmOCR: <pdf>_pg<N>_repeat<K>
    if let Some((head, k)) = base.rsplit_once("_repeat") {
        if let (Ok(k), Some((stem, n))) = (k.parse::<u32>(), head.rsplit_once("_pg")) {
            if let Ok(n) = n.parse::<u32>() {
                if n >= 1 && !stem.is_empty() {
                    page = Some(n);
                    repeat = Some(k);
                    base = stem.to_string();
                }
            }
        }
    }
    let stem = base.rsplit('/').next().unwrap_or(&base).to_string();
    Some(FileName { rel_stem: base, stem, page, repeat })
}

/// Whether a file name says it is one page of a PDF's PaddleX results: `<pdf>_<n>_res.json`
/// is page `n` (zero-based) of `<pdf>`; returns the name without `_<n>` and the one-based
/// page.
fn paddle_page(base: &str) -> Option<(&str, u32)> {
    let (stem, n) = base.rsplit_once('_')?;
    let n: u32 = n.parse().ok().filter(|_| n.bytes().all(|b| b.is_ascii_digit()))?;
    let last = stem.rsplit('/').next().unwrap_or(stem);
    (!last.is_empty()).then_some((stem, n.checked_add(1)?))
}

/// One input file, read into memory.
#[derive(Debug, Clone)]
pub struct InputFile {
    /// Where it came from, for messages (`dir/a.md`, `out.zip!a.md`).
    pub display: String,
    /// Its path relative to the input folder or zip, `/`-separated.
    pub rel: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A file that was not imported, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Skipped {
    /// The file.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// Collects the input files of `format` under `path` (a file, a folder or a zip archive).
/// Folders are walked by the one walker ([`crate::walk`]): folder symlinks only with
/// `follow`, each file once, only regular files read. Unreadable files, files that are not
/// regular files and refused zip entries go to `errors`; files of other formats are left
/// out silently.
pub(crate) fn read_inputs(
    path: &Path,
    format: ImportFormat,
    follow: bool,
    out: &mut Vec<InputFile>,
    errors: &mut Vec<Skipped>,
) -> Result<()> {
    let is_zip = |p: &Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"));
    let wanted = |rel: &Path| {
        is_zip(rel) || parse_name(&rel.to_string_lossy().replace('\\', "/"), format).is_some()
    };
    let w = crate::walk::walk(path, follow, &wanted)
        .map_err(|r| Error::Usage(format!("{}: {}", r.path.display(), r.reason)))?;
    for r in w.refused {
        errors.push(Skipped { file: r.path.display().to_string(), reason: r.reason });
    }
    for d in w.dangling {
        tracing::warn!(
            "{}: a symlink to nothing (its target does not exist); skipped",
            d.display()
        );
    }
    if !path.is_dir() {
        let Some(f) = w.files.into_iter().next() else { return Ok(()) };
        let name = f.rel.to_string_lossy().into_owned();
        if is_zip(&f.path) {
            read_zip(&f.path, format, out, errors);
        } else if parse_name(&name, format).is_none() {
            let want = format.extensions().join(", ");
            errors.push(Skipped {
                file: path.display().to_string(),
                reason: format!(
                    "not a {} file (expected a name ending in {want})",
                    format.as_str()
                ),
            });
        } else {
            read_file(&f.path, name, out, errors);
        }
        return Ok(());
    }
    for f in w.files {
        let rel = f.rel.to_string_lossy().replace('\\', "/");
        if is_zip(&f.path) {
            read_zip(&f.path, format, out, errors);
        } else {
            read_file(&f.path, rel, out, errors);
        }
    }
    Ok(())
}

fn read_file(path: &Path, rel: String, out: &mut Vec<InputFile>, errors: &mut Vec<Skipped>) {
    let display = path.display().to_string();
    match crate::walk::read_regular(path, MAX_FILE_BYTES, "an imported file") {
        Ok(bytes) => out.push(InputFile { display, rel, bytes }),
        Err(reason) => errors.push(Skipped { file: display, reason }),
    }
}

/// Whether a zip entry name is a safe relative path.
fn safe_entry_name(name: &str) -> bool {
    let p = Path::new(name);
    !name.starts_with('/')
        && !name.starts_with('\\')
        && !name.contains('\\')
        && p.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

fn read_zip(
    path: &Path,
    format: ImportFormat,
    out: &mut Vec<InputFile>,
    errors: &mut Vec<Skipped>,
) {
    let shown = path.display().to_string();
    let file = match crate::walk::open_regular(path, u64::MAX, "a zip archive") {
        Ok((f, _)) => f,
        Err(reason) => return errors.push(Skipped { file: shown, reason }),
    };
    let mut zip = match zip::ZipArchive::new(std::io::BufReader::new(file)) {
        Ok(z) => z,
        Err(e) => {
            return errors.push(Skipped { file: shown, reason: format!("not a readable zip: {e}") })
        }
    };
    for i in 0..zip.len() {
        let mut entry = match zip.by_index(i) {
            Ok(e) => e,
            Err(e) => {
                errors.push(Skipped { file: format!("{shown}!#{i}"), reason: e.to_string() });
                continue;
            }
        };
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().to_string();
        let display = format!("{shown}!{name}");
        if !safe_entry_name(&name) {
            errors.push(Skipped {
                file: display,
                reason: "refused: the entry's path is absolute or leaves the archive (..)".into(),
            });
            continue;
        }
        if parse_name(&name, format).is_none() {
            continue;
        }
        if entry.size() > MAX_FILE_BYTES {
            errors.push(Skipped { file: display, reason: "entry larger than 1 GiB".into() });
            continue;
        }
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        match (&mut entry).take(MAX_FILE_BYTES).read_to_end(&mut bytes) {
            Ok(_) => {
                out.push(InputFile { display, rel: name.trim_start_matches("./").into(), bytes })
            }
            Err(e) => errors.push(Skipped { file: display, reason: e.to_string() }),
        }
    }
}

/// One output to import: an input file, or what [`entries`] made of several (a PDF's PaddleX
/// page results) or of part of one (a document of an olmOCR results file).
#[derive(Debug, Clone)]
pub struct Entry {
    /// Where it came from, for messages (`dir/a_middle.json`, `results/output_1.jsonl:3`).
    pub display: String,
    /// What its name says about the document and page it holds.
    pub name: FileName,
    /// Its bytes, as the format's reader reads them.
    pub bytes: Vec<u8>,
}

/// Turns the input files of `format` into the outputs to import, following the folder layout
/// each pipeline writes (see the module notes): MinerU's content list beside a middle file is
/// skipped, a PDF's PaddleX page files become one output, an olmOCR results file one output
/// per document. Files that are left alone go to `skipped`, parts that cannot be read to
/// `errors`.
pub fn entries(
    format: ImportFormat,
    files: Vec<InputFile>,
    skipped: &mut Vec<Skipped>,
    errors: &mut Vec<Skipped>,
) -> Vec<Entry> {
    if format == ImportFormat::OlmocrJsonl {
        let mut out = Vec::new();
        for f in files {
            let docs = crate::formats::olmocr_jsonl::documents(&f.bytes);
            if docs.is_empty() {
                let reason = "no documents: the file has no lines".to_string();
                errors.push(Skipped { file: f.display.clone(), reason });
            }
            for d in docs {
                let display = format!("{}:{}", f.display, d.line);
                match d.source_file {
                    Ok(src) => out.push(Entry {
                        display,
                        name: source_name(&src),
                        bytes: d.bytes.to_vec(),
                    }),
                    Err(e) => errors.push(Skipped { file: display, reason: e.to_string() }),
                }
            }
        }
        return out;
    }
    let mut out: Vec<(String, Entry)> = files
        .into_iter()
        .filter_map(|f| {
            let name = parse_name(&f.rel, format)?;
            Some((f.rel, Entry { display: f.display, name, bytes: f.bytes }))
        })
        .collect();
    match format {
        ImportFormat::MinerU => {
            let is_middle = |rel: &str| rel.to_ascii_lowercase().ends_with("_middle.json");
            let middles: BTreeSet<String> = out
                .iter()
                .filter(|(rel, _)| is_middle(rel))
                .map(|(_, e)| e.name.rel_stem.clone())
                .collect();
            out.retain(|(rel, e)| {
                let keep = is_middle(rel) || !middles.contains(&e.name.rel_stem);
                if !keep {
                    skipped.push(Skipped {
                        file: e.display.clone(),
                        reason: "MinerU's _middle.json beside it is imported instead (boxes in \
                                 points, page sizes)"
                            .into(),
                    });
                }
                keep
            });
            out.into_iter().map(|(_, e)| e).collect()
        }
        ImportFormat::PaddleJson => join_pages(out.into_iter().map(|(_, e)| e).collect(), errors),
        // One file per document.
        ImportFormat::DoclingJson
        | ImportFormat::Markdown
        | ImportFormat::GrobidTei
        | ImportFormat::PeerRead
        | ImportFormat::Text
        | ImportFormat::Alto
        | ImportFormat::UnstructuredJson
        | ImportFormat::OpenDataLoaderJson
        | ImportFormat::MarkerJson
        | ImportFormat::OlmocrJsonl => out.into_iter().map(|(_, e)| e).collect(),
    }
}

/// Joins the page files of each PDF (entries with a page) into one entry of the whole
/// document: a JSON list of the page results in page order. A PDF with two files for one
/// page is an error.
fn join_pages(list: Vec<Entry>, errors: &mut Vec<Skipped>) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut groups: Vec<Vec<Entry>> = Vec::new();
    let mut by_stem: HashMap<String, usize> = HashMap::new();
    for e in list {
        if e.name.page.is_none() {
            out.push(e);
            continue;
        }
        let next = groups.len();
        let i = *by_stem.entry(e.name.rel_stem.clone()).or_insert(next);
        if i == groups.len() {
            groups.push(Vec::new());
        }
        groups[i].push(e);
    }
    for mut g in groups {
        g.sort_by_key(|e| e.name.page);
        let first = &g[0];
        if let Some(w) = g.windows(2).find(|w| w[0].name.page == w[1].name.page) {
            errors.push(Skipped {
                file: w[1].display.clone(),
                reason: format!(
                    "two results for page {} of {} ({} and this one)",
                    w[1].name.page.unwrap_or(0).saturating_sub(1),
                    first.name.rel_stem,
                    w[0].display
                ),
            });
            continue;
        }
        let display = match g.len() {
            1 => first.display.clone(),
            n => format!("{} and {} more page files", first.display, n - 1),
        };
        let name = FileName { page: None, ..first.name.clone() };
        let mut bytes = b"[".to_vec();
        for (k, e) in g.iter().enumerate() {
            if k > 0 {
                bytes.push(b',');
            }
            bytes.extend_from_slice(&e.bytes);
        }
        bytes.push(b']');
        out.push(Entry { display, name, bytes });
    }
    out
}

/// What an olmOCR `Source-File` says about the PDF: its path without a URL scheme (and an
/// `s3://` bucket stays a folder), a tarball member's own path after `::`, the `.pdf` or image
/// ending dropped.
pub(crate) fn source_name(src: &str) -> FileName {
    let path = src.rsplit("::").next().unwrap_or(src).replace('\\', "/");
    let path = path.split_once("://").map_or(path.as_str(), |(_, rest)| rest);
    let mut base = path.trim_start_matches('/').to_string();
    for ext in [".pdf", ".png", ".jpg", ".jpeg"] {
        if base.to_ascii_lowercase().ends_with(ext) && base.len() > ext.len() {
            base.truncate(base.len() - ext.len());
            break;
        }
    }
    let stem = base.rsplit('/').next().unwrap_or(&base).to_string();
    FileName { rel_stem: base, stem, page: None, repeat: None }
}

/// Matches file names to documents: by name, then by recorded PDF hash.
pub struct Matcher {
    /// Document rows by id.
    docs: HashMap<i64, DocumentRow>,
    /// Ids by full name and by the name's last path component.
    by_name: HashMap<String, BTreeSet<i64>>,
    by_last: HashMap<String, BTreeSet<i64>>,
    /// Ids by the low 64 bits of the PDF's SHA-256, computed on first use.
    by_sha: Option<HashMap<u64, i64>>,
}

impl Matcher {
    /// Indexes the documents named in `dataset` (or in any dataset).
    pub fn new(store: &Store, dataset: Option<&str>) -> Result<Matcher> {
        let mut m = Matcher {
            docs: HashMap::new(),
            by_name: HashMap::new(),
            by_last: HashMap::new(),
            by_sha: None,
        };
        for row in store.document_names(dataset)? {
            let last = row.name.rsplit('/').next().unwrap_or(&row.name).to_string();
            m.by_name.entry(row.name.clone()).or_default().insert(row.id);
            m.by_last.entry(last).or_default().insert(row.id);
            m.docs.entry(row.id).or_insert(row);
        }
        Ok(m)
    }

    /// Returns the document a file is for, or why none is.
    pub fn find(
        &mut self,
        store: &Store,
        name: &FileName,
        binary_hash: Option<u64>,
    ) -> Result<std::result::Result<DocumentRow, String>> {
        for (map, key) in [
            (&self.by_name, &name.rel_stem),
            (&self.by_name, &name.stem),
            (&self.by_last, &name.stem),
        ] {
            if let Some(ids) = map.get(key.as_str()) {
                if ids.len() == 1 {
                    let id = *ids.iter().next().unwrap_or(&0);
                    if let Some(d) = self.docs.get(&id) {
                        return Ok(Ok(d.clone()));
                    }
                }
                let names: Vec<String> =
                    ids.iter().filter_map(|i| self.docs.get(i)).map(|d| d.name.clone()).collect();
                return Ok(Err(format!(
                    "ambiguous: {} documents are named {key:?} ({}); use --dataset",
                    ids.len(),
                    names.join(", ")
                )));
            }
        }
        if let Some(h) = binary_hash {
            if self.by_sha.is_none() {
                let mut map = HashMap::new();
                for d in self.docs.values() {
                    if let Some(bytes) = store.blob(&d.hash)? {
                        map.insert(sha256_low64(&bytes), d.id);
                    }
                }
                self.by_sha = Some(map);
            }
            if let Some(d) =
                self.by_sha.as_ref().and_then(|m| m.get(&h)).and_then(|id| self.docs.get(id))
            {
                return Ok(Ok(d.clone()));
            }
            return Ok(Err(format!(
                "unmatched: no document is named {:?} and none has the recorded PDF hash {h}",
                name.stem
            )));
        }
        Ok(Err(format!("unmatched: no document is named {:?}", name.stem)))
    }
}

/// The low 64 bits of a SHA-256, as Docling's `binary_hash` records a PDF.
pub fn sha256_low64(bytes: &[u8]) -> u64 {
    use sha2::Digest;
    let d = sha2::Sha256::digest(bytes);
    let mut low = [0u8; 8];
    low.copy_from_slice(&d[24..32]);
    u64::from_be_bytes(low)
}

/// What to import.
#[derive(Debug, Clone)]
pub struct ImportOptions<'a> {
    /// Files, folders or zip archives.
    pub inputs: &'a [PathBuf],
    /// Their format.
    pub format: ImportFormat,
    /// The provider id the outputs are stored under (`docling-2.143`).
    pub provider: &'a str,
    /// The provider version the outputs are stored under.
    pub provider_version: &'a str,
    /// The model version, where the tool has one (`granite-258m`).
    pub model_version: Option<&'a str>,
    /// Match only documents named in this dataset.
    pub dataset: Option<&'a str>,
    /// The run the outputs belong to.
    pub run: Option<RunId>,
    /// Follow folder symlinks (each folder walked once).
    pub follow: bool,
}

/// What an import did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ImportSummary {
    /// Input files of the format that were read.
    pub files: u64,
    /// Outputs stored now.
    pub imported: u64,
    /// Files already imported (same content, same provider and versions).
    pub unchanged: u64,
    /// Distinct documents that got an output from this import (new or unchanged).
    pub documents: u64,
    /// Files of the right ending that are not of the format at all (other JSON beside
    /// Docling's, `pdfalto`'s `_metadata.xml` beside its ALTO, Marker's `_meta.json`), or that
    /// another file stands for (MinerU's content list beside its middle file), left alone.
    pub skipped: Vec<Skipped>,
    /// Files matched to no document.
    pub unmatched: Vec<Skipped>,
    /// Files that could not be read, with the reason.
    pub errors: Vec<Skipped>,
}

/// Imports every file of `opts.inputs`. Per-file problems are collected in the summary and
/// recorded in the store's error log; they never stop the import.
pub fn import(
    store: &mut Store,
    opts: &ImportOptions<'_>,
    progress: &dyn Progress,
) -> Result<ImportSummary> {
    crate::providers::check_provider_id(opts.provider)?;
    let mut summary = ImportSummary::default();
    let mut files = Vec::new();
    for input in opts.inputs {
        read_inputs(input, opts.format, opts.follow, &mut files, &mut summary.errors)?;
    }
    summary.files = files.len() as u64;
    let entries = entries(opts.format, files, &mut summary.skipped, &mut summary.errors);
    let mut matcher = Matcher::new(store, opts.dataset)?;
    let mut docs = BTreeSet::new();
    progress.start(entries.len() as u64);
    for e in &entries {
        let ok = import_one(store, opts, &mut matcher, e, &mut summary, &mut docs)?;
        progress.advance(&e.display, ok);
    }
    progress.finish();
    summary.documents = docs.len() as u64;
    for e in &summary.errors {
        store.record_ingest_error(opts.run, &e.file, &e.reason)?;
    }
    Ok(summary)
}

fn import_one(
    store: &mut Store,
    opts: &ImportOptions<'_>,
    matcher: &mut Matcher,
    f: &Entry,
    summary: &mut ImportSummary,
    docs: &mut BTreeSet<i64>,
) -> Result<bool> {
    let name = &f.name;
    let page0 = name.page.map_or(0, |p| p - 1);
    let parsed = match opts.format.read(&f.bytes, page0) {
        Ok(p) => p,
        Err(e) if ImportFormat::is_other_kind(&e) => {
            summary.skipped.push(Skipped { file: f.display.clone(), reason: e.to_string() });
            return Ok(false);
        }
        Err(e) => {
            summary.errors.push(Skipped { file: f.display.clone(), reason: e.to_string() });
            return Ok(false);
        }
    };
    let doc = match matcher.find(store, name, parsed.binary_hash)? {
        Ok(d) => d,
        Err(reason) => {
            summary.unmatched.push(Skipped { file: f.display.clone(), reason });
            return Ok(false);
        }
    };
    if let Some(p) = name.page.filter(|&p| p > doc.pages) {
        summary.errors.push(Skipped {
            file: f.display.clone(),
            reason: format!("page {p} is past the end of {} ({} pages)", doc.name, doc.pages),
        });
        return Ok(false);
    }
    let pages = match name.page {
        Some(p) => PageSelection::parse(&p.to_string()).map_err(Error::Usage)?,
        None => PageSelection::All,
    };
    let digest = blake3::hash(&f.bytes).to_hex().to_string();
    let config = json!({
        "import": opts.format.as_str(),
        "provider_version": opts.provider_version,
        "model_version": opts.model_version,
        "repeat": name.repeat,
    });
    let key = CacheKey::builder(opts.provider, IMPORT_ADAPTER_VERSION, &digest, &doc.hash)
        .config(&config)
        .pages(&pages)
        .compute();
    docs.insert(doc.id);
    if store.output_status(key.as_str())?.as_deref() == Some("ok") {
        summary.unchanged += 1;
        return Ok(true);
    }
    let json = serde_json::to_vec(&parsed.doc)?;
    store.put_output(&NewOutput {
        cache_key: key.as_str(),
        document: doc.id,
        provider: opts.provider,
        provider_version: opts.provider_version,
        model_digest: opts.model_version.unwrap_or("-"),
        config: &canonical_json(&config),
        pages: &pages.to_string(),
        result: Ok(&json),
        usage: crate::store::Usage::default(),
        device: "import",
        run: opts.run,
    })?;
    summary.imported += 1;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_strip_endings_and_read_olmocr_pages() {
        let n = parse_name("sub/paper.pdf.md", ImportFormat::Markdown).unwrap();
        assert_eq!((n.rel_stem.as_str(), n.stem.as_str(), n.page), ("sub/paper", "paper", None));
        let n = parse_name("doc_pg3_repeat2.md", ImportFormat::Markdown).unwrap();
        assert_eq!((n.stem.as_str(), n.page, n.repeat), ("doc", Some(3), Some(2)));
        let n = parse_name("doc_pg0_repeat2.md", ImportFormat::Markdown).unwrap();
        assert_eq!((n.stem.as_str(), n.page), ("doc_pg0_repeat2", None));
        assert_eq!(parse_name("page.jpg.md", ImportFormat::Markdown).unwrap().stem, "page");
        assert_eq!(parse_name("a.tei.xml", ImportFormat::GrobidTei).unwrap().stem, "a");
        assert_eq!(parse_name("a.alto.xml", ImportFormat::Alto).unwrap().stem, "a");
        assert_eq!(parse_name("a.pdf.xml", ImportFormat::Alto).unwrap().stem, "a");
        assert!(parse_name("a.json", ImportFormat::Markdown).is_none());
        assert!(parse_name(".md", ImportFormat::Markdown).is_none());
    }

    #[test]
    fn unsafe_zip_names_are_refused() {
        assert!(safe_entry_name("a/b.md"));
        assert!(safe_entry_name("./a.md"));
        assert!(!safe_entry_name("../a.md"));
        assert!(!safe_entry_name("a/../../b.md"));
        assert!(!safe_entry_name("/etc/passwd"));
        assert!(!safe_entry_name("a\\..\\b.md"));
    }

    #[test]
    fn sha256_low64_is_the_last_eight_bytes() {
        // sha256("abc") = ba7816bf...f20015ad; Docling keeps int(hexdigest) mod 2^64.
        assert_eq!(sha256_low64(b"abc"), 0xb410ff61f20015ad);
    }

    #[test]
    fn pipeline_names_are_read() {
        let n = parse_name("out/paper/auto/paper_middle.json", ImportFormat::MinerU).unwrap();
        assert_eq!((n.rel_stem.as_str(), n.stem.as_str()), ("out/paper/auto/paper", "paper"));
        let n = parse_name("paper/vlm/paper_content_list.json", ImportFormat::MinerU).unwrap();
        assert_eq!(n.stem, "paper");
        assert!(parse_name("paper_content_list_v2.json", ImportFormat::MinerU).is_none());
        assert!(parse_name("paper_model.json", ImportFormat::MinerU).is_none());
        let n = parse_name("pp/report_2024_3_res.json", ImportFormat::PaddleJson).unwrap();
        assert_eq!(
            (n.rel_stem.as_str(), n.stem.as_str(), n.page),
            ("pp/report_2024", "report_2024", Some(4))
        );
        let n = parse_name("scan_res.json", ImportFormat::PaddleJson).unwrap();
        assert_eq!((n.stem.as_str(), n.page), ("scan", None));
        assert_eq!(parse_name("_0_res.json", ImportFormat::PaddleJson).unwrap().page, None);
        let n = parse_name("marker/paper/paper.json", ImportFormat::MarkerJson).unwrap();
        assert_eq!((n.rel_stem.as_str(), n.stem.as_str()), ("marker/paper/paper", "paper"));
        assert!(parse_name("results/output_ab12.jsonl", ImportFormat::OlmocrJsonl).is_some());
        assert!(parse_name("results/output_ab12.jsonl", ImportFormat::MarkerJson).is_none());
        for (src, rel, stem) in [
            ("s3://ai2-bucket/pdfs/a/doc.pdf", "ai2-bucket/pdfs/a/doc", "doc"),
            ("/data/pdfs/doc.PDF", "data/pdfs/doc", "doc"),
            ("pdfs/scan.png", "pdfs/scan", "scan"),
            ("/data/bundle.tar.gz::inner/doc.pdf", "inner/doc", "doc"),
            ("doc.pdf", "doc", "doc"),
        ] {
            let n = source_name(src);
            assert_eq!((n.rel_stem.as_str(), n.stem.as_str(), n.page), (rel, stem, None), "{src}");
        }
    }

    fn input(rel: &str, body: &str) -> InputFile {
        InputFile { display: format!("in/{rel}"), rel: rel.into(), bytes: body.as_bytes().to_vec() }
    }

    #[test]
    fn entries_follow_each_pipelines_layout() {
        let (mut skipped, mut errors) = (Vec::new(), Vec::new());
        // MinerU: the middle file stands for the content list beside it.
        let e = entries(
            ImportFormat::MinerU,
            vec![
                input("a/auto/a_content_list.json", "[]"),
                input("a/auto/a_middle.json", "{}"),
                input("b/vlm/b_content_list.json", "[]"),
            ],
            &mut skipped,
            &mut errors,
        );
        let got: Vec<&str> = e.iter().map(|e| e.display.as_str()).collect();
        assert_eq!(got, ["in/a/auto/a_middle.json", "in/b/vlm/b_content_list.json"]);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].file, "in/a/auto/a_content_list.json");
        // PaddleX: a PDF's page files become one list in page order; an image result stays.
        let e = entries(
            ImportFormat::PaddleJson,
            vec![
                input("p/a_1_res.json", "{\"page_index\": 1}"),
                input("p/scan_res.json", "{\"page_index\": null}"),
                input("p/a_0_res.json", "{\"page_index\": 0}"),
                input("q/a_0_res.json", "{}"),
                input("q/a_0_res.json", "{}"),
            ],
            &mut skipped,
            &mut errors,
        );
        let got: Vec<(&str, &str, Option<u32>, &str)> = e
            .iter()
            .map(|e| {
                let body = std::str::from_utf8(&e.bytes).unwrap();
                (e.display.as_str(), e.name.rel_stem.as_str(), e.name.page, body)
            })
            .collect();
        assert_eq!(
            got,
            [
                ("in/p/scan_res.json", "p/scan", None, "{\"page_index\": null}"),
                (
                    "in/p/a_0_res.json and 1 more page files",
                    "p/a",
                    None,
                    "[{\"page_index\": 0},{\"page_index\": 1}]"
                ),
            ]
        );
        assert_eq!(errors.len(), 1);
        assert!(errors[0].reason.starts_with("two results for page 0 of q/a"), "{errors:?}");
        // olmOCR: one entry per document, named by its Source-File.
        errors.clear();
        let line = |src: &str| {
            serde_json::json!({"text": "x", "metadata": {"Source-File": src},
                               "attributes": {"pdf_page_numbers": [[0, 1, 1]]}})
            .to_string()
        };
        let file = format!("{}\n{}\n{{\"text\": \"y\"}}\n", line("s3://b/a.pdf"), line("/d/c.pdf"));
        let e = entries(
            ImportFormat::OlmocrJsonl,
            vec![input("results/output_1.jsonl", &file), input("results/output_2.jsonl", "\n")],
            &mut skipped,
            &mut errors,
        );
        let got: Vec<(&str, &str)> =
            e.iter().map(|e| (e.display.as_str(), e.name.stem.as_str())).collect();
        assert_eq!(
            got,
            [("in/results/output_1.jsonl:1", "a"), ("in/results/output_1.jsonl:2", "c")]
        );
        assert_eq!(e[1].bytes, line("/d/c.pdf").into_bytes());
        let errs: Vec<(&str, &str)> =
            errors.iter().map(|e| (e.file.as_str(), e.reason.as_str())).collect();
        assert_eq!(
            errs,
            [
                ("in/results/output_1.jsonl:3", "expected a string at $.metadata.Source-File"),
                ("in/results/output_2.jsonl", "no documents: the file has no lines"),
            ]
        );
    }

    #[test]
    fn formats_parse_by_name() {
        for f in ImportFormat::ALL {
            assert_eq!(ImportFormat::parse(f.as_str()), Ok(f));
        }
        assert!(ImportFormat::parse("docx").unwrap_err().contains("docling-json"));
    }
}
