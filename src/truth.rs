//! Ground truths: where each format's files sit beside a PDF, what ingest records when one does
//! not read, and how the suites load them from the store. The formats and their readers are
//! in [`crate::formats`]. Truths are stored verbatim, one blob per file; a truth kept in
//! several files (GROBID's header and fulltext TEI) is stored as named parts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::formats::tei::group_tei_files;
use crate::formats::TruthFormat;
use crate::formats::TEI_PARTS;
use crate::paper::{self, Paper};
use crate::store::{Store, TruthRow};

/// Remembers folder listings while one ingest looks up truths for many PDFs.
#[derive(Debug, Default)]
pub struct DirCache {
    listings: HashMap<PathBuf, Vec<String>>,
}

impl DirCache {
    fn names(&mut self, dir: &Path) -> &[String] {
        self.listings.entry(dir.to_path_buf()).or_insert_with(|| {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .map(|rd| {
                    rd.filter_map(|e| e.ok())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .filter(|n| n.ends_with(".tei.xml"))
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            names
        })
    }
}

impl TruthFormat {
    /// Finds the truth file(s) for a PDF: (part, path) pairs, empty if there is none.
    /// olmOCR-bench tests are found per folder, not per PDF ([`crate::ingest::olmocr`]): none
    /// here.
    pub fn locate(self, pdf: &Path, dirs: &mut DirCache) -> Vec<(&'static str, PathBuf)> {
        let Some(file) = pdf.file_name().map(|f| f.to_string_lossy().into_owned()) else {
            return Vec::new();
        };
        let dir = pdf.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let first = |cands: Vec<PathBuf>| -> Vec<(&'static str, PathBuf)> {
            cands.into_iter().find(|p| p.is_file()).map(|p| ("", p)).into_iter().collect()
        };
        match self {
            TruthFormat::PeerRead => {
                // PeerRead's own layout: train/pdfs/496.pdf + train/parsed_pdfs/496.pdf.json.
                let mut cands = vec![dir.join(format!("{file}.json"))];
                cands.extend(
                    dir.parent().map(|p| p.join("parsed_pdfs").join(format!("{file}.json"))),
                );
                first(cands)
            }
            TruthFormat::S2orc => {
                let stem = pdf.file_stem().map(|s| s.to_string_lossy().into_owned());
                first(stem.map(|s| dir.join(format!("{s}.json"))).into_iter().collect())
            }
            TruthFormat::Jats => {
                let stem =
                    pdf.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                first(vec![dir.join(format!("{stem}.nxml")), dir.join(format!("{stem}.xml"))])
            }
            TruthFormat::Docling => {
                let stem =
                    pdf.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let mut cands = vec![dir.join(format!("{stem}.json"))];
                cands.extend(
                    dir.parent().map(|p| p.join("groundtruth").join(format!("{stem}.json"))),
                );
                first(cands)
            }
            TruthFormat::LatexTables | TruthFormat::PdfParseBench => {
                let stem =
                    pdf.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let name = format!("{stem}.json");
                let mut cands = vec![dir.join("ground_truth").join(&name)];
                cands.extend(dir.parent().map(|p| p.join("ground_truth").join(&name)));
                cands.push(dir.join(&name));
                first(cands)
            }
            TruthFormat::Icdar2013 => {
                let stem =
                    pdf.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let parts = [
                    ("reg", dir.join(format!("{stem}-reg.xml"))),
                    ("str", dir.join(format!("{stem}-str.xml"))),
                ];
                // Both or nothing: one file alone cannot be scored.
                if parts.iter().all(|(_, p)| p.is_file()) {
                    parts.into_iter().collect()
                } else {
                    Vec::new()
                }
            }
            // Its pages are ingested from the JSON file itself (`ingest::omnidoc`), as a Label
            // Studio export's tasks are (`ingest::label_studio`).
            TruthFormat::OmniDocBench | TruthFormat::LabelStudio => Vec::new(),
            TruthFormat::Coco => {
                let stem =
                    pdf.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let mut cands = vec![
                    dir.join(format!("{stem}.coco.json")),
                    dir.join("coco").join(format!("{stem}.json")),
                ];
                cands.extend(dir.parent().map(|p| p.join("coco").join(format!("{stem}.json"))));
                first(cands)
            }
            TruthFormat::GrobidTei => {
                let stem =
                    pdf.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let mut folders = vec![dir.to_path_buf()];
                folders.extend(dir.parent().map(|p| p.join("tei")));
                for folder in folders {
                    let names: Vec<&str> = dirs.names(&folder).iter().map(String::as_str).collect();
                    let Some(g) = group_tei_files(&names).into_iter().find(|g| g.paper == stem)
                    else {
                        continue;
                    };
                    let slots = [g.full, g.header, g.fulltext, g.references];
                    return TEI_PARTS
                        .iter()
                        .zip(slots)
                        .filter_map(|(part, name)| Some((*part, folder.join(name?))))
                        .collect();
                }
                Vec::new()
            }
            // Found per folder, as olmOCR-bench's are (`ingest::parsebench`).
            TruthFormat::OlmocrBench | TruthFormat::ParseBench => Vec::new(),
        }
    }

    /// Checks that one file's bytes are well-formed for this format; the error is the
    /// message ingest records for the file.
    pub(crate) fn validate(self, bytes: &[u8]) -> Result<(), String> {
        self.check(bytes).map_err(|e| e.to_string())
    }
}

/// One document's truth in one dataset and format, with all its parts.
#[derive(Debug, Clone)]
pub struct TruthGroup {
    /// The document id.
    pub document: i64,
    /// The dataset the truth belongs to.
    pub dataset: String,
    /// The format.
    pub format: TruthFormat,
    /// The newest row of each part.
    pub parts: Vec<TruthRow>,
}

impl TruthGroup {
    /// Returns the id that stands for the whole truth in metric rows: the newest part's, so a
    /// changed part gives the truth a new id and its scores are computed afresh.
    pub fn id(&self) -> i64 {
        self.parts.iter().map(|p| p.id).max().unwrap_or_default()
    }

    /// Returns a digest of the truth's content (formats, parts and blob hashes).
    pub fn digest(&self) -> String {
        let mut h = blake3::Hasher::new();
        for s in std::iter::once(self.format.as_str())
            .chain(self.parts.iter().flat_map(|p| [p.part.as_str(), p.blob.as_str()]))
        {
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        }
        h.finalize().to_hex().to_string()
    }

    /// Reads the truth from the store as the paper suite scores it: read by its format's
    /// reader, then put through the linearizer that every prediction goes through
    /// ([`paper::canonical`]), so that one extractor makes both sides of every comparison.
    pub fn load_paper(&self, store: &Store) -> Result<Paper> {
        self.read_paper(store).map(|p| paper::canonical(&p))
    }

    /// Reads the truth from the store into a [`Paper`] as its format's reader gives it.
    pub(crate) fn read_paper(&self, store: &Store) -> Result<Paper> {
        let mut blobs = Vec::with_capacity(self.parts.len());
        for p in &self.parts {
            let bytes = store.blob(&p.blob)?.ok_or_else(|| {
                Error::Usage(format!("truth blob {} is missing from the store", p.blob))
            })?;
            blobs.push((p.part.as_str(), bytes));
        }
        let parts: Vec<(&str, &[u8])> = blobs.iter().map(|(p, b)| (*p, b.as_slice())).collect();
        self.format.to_paper(&parts).map_err(|e| Error::BadInput {
            path: format!("truth {} of document {}", self.format.as_str(), self.document).into(),
            msg: e.to_string(),
        })
    }
}

/// The page-truth formats one page may have a truth in each of: a draft ingested as
/// OmniDocBench JSON, then its review exported from Label Studio (`docs/label-studio.md`).
pub const PAGE_FORMATS: [TruthFormat; 2] = [TruthFormat::OmniDocBench, TruthFormat::LabelStudio];

/// `rows` less the page truths a newer one replaces: where a page (document, dataset, part)
/// has truths of several [`PAGE_FORMATS`], the newest (the highest id: the later ingest) is
/// the page's truth, as the newer truth of one format supersedes the older
/// (`docs/truth-versions.md`). Every suite that scores page truths reads them through this,
/// so a page is scored once. Truths of other formats are kept.
pub fn newest_page_truths(rows: Vec<TruthRow>) -> Vec<TruthRow> {
    let page = |t: &TruthRow| PAGE_FORMATS.iter().any(|f| f.as_str() == t.format);
    let mut newest: HashMap<(i64, &str, &str), i64> = HashMap::new();
    for t in rows.iter().filter(|t| page(t)) {
        let id = newest.entry((t.document, &t.dataset, &t.part)).or_insert(t.id);
        *id = (*id).max(t.id);
    }
    let replaced: std::collections::HashSet<i64> = rows
        .iter()
        .filter(|t| page(t) && newest[&(t.document, t.dataset.as_str(), t.part.as_str())] != t.id)
        .map(|t| t.id)
        .collect();
    rows.into_iter().filter(|t| !replaced.contains(&t.id)).collect()
}

/// Groups the store's truths (optionally of one dataset) by document, dataset and format,
/// keeping only the formats `keep` accepts.
pub fn truth_groups(
    store: &Store,
    dataset: Option<&str>,
    keep: impl Fn(TruthFormat) -> bool,
) -> Result<Vec<TruthGroup>> {
    Ok(group_truths(store.truths(dataset)?, keep))
}

/// [`truth_groups`] of the given truth rows (sorted by document, dataset, format and part, as
/// [`Store::truths`] gives them).
pub fn group_truths(rows: Vec<TruthRow>, keep: impl Fn(TruthFormat) -> bool) -> Vec<TruthGroup> {
    let mut out: Vec<TruthGroup> = Vec::new();
    for row in rows {
        let Some(format) = TruthFormat::parse(&row.format).filter(|f| keep(*f)) else { continue };
        match out.last_mut() {
            Some(g)
                if g.document == row.document && g.dataset == row.dataset && g.format == format =>
            {
                g.parts.push(row)
            }
            _ => out.push(TruthGroup {
                document: row.document,
                dataset: row.dataset.clone(),
                format,
                parts: vec![row],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peerread_validation_names_the_broken_field() {
        let ok = br#"{"name":"a.pdf","metadata":{"title":"T","sections":[{"heading":null,"text":"x"}],"references":[{"title":"R","author":["A B"]}]}}"#;
        assert_eq!(TruthFormat::PeerRead.validate(ok), Ok(()));
        let bad_text = br#"{"metadata":{"sections":[{"heading":"1","text":3}]}}"#;
        let e = TruthFormat::PeerRead.validate(bad_text).unwrap_err();
        assert!(e.contains("metadata.sections[0]"), "{e}");
        let not_json = TruthFormat::PeerRead.validate(b"{\"metadata\": ").unwrap_err();
        assert!(not_json.contains("EOF"), "{not_json}");
        assert_eq!(TruthFormat::PeerRead.validate(b"[]").unwrap_err(), "expected object at $");
        let no_meta = TruthFormat::PeerRead.validate(b"{}").unwrap_err();
        assert_eq!(no_meta, "expected object at metadata");
    }

    #[test]
    fn peerread_truth_is_found_beside_or_in_parsed_pdfs() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("pdfs")).unwrap();
        std::fs::create_dir_all(d.path().join("parsed_pdfs")).unwrap();
        let pdf = d.path().join("pdfs/496.pdf");
        let mut dirs = DirCache::default();
        assert_eq!(TruthFormat::PeerRead.locate(&pdf, &mut dirs), vec![]);
        std::fs::write(d.path().join("parsed_pdfs/496.pdf.json"), "{}").unwrap();
        let sibling = d.path().join("parsed_pdfs/496.pdf.json");
        assert_eq!(TruthFormat::PeerRead.locate(&pdf, &mut dirs), vec![("", sibling)]);
        std::fs::write(d.path().join("pdfs/496.pdf.json"), "{}").unwrap();
        let beside = d.path().join("pdfs/496.pdf.json");
        assert_eq!(TruthFormat::PeerRead.locate(&pdf, &mut dirs), vec![("", beside)]);
    }

    #[test]
    fn latex_tables_truth_is_found_in_ground_truth_beside_or_in_the_sibling_folder() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("pdfs/ground_truth")).unwrap();
        std::fs::create_dir_all(d.path().join("ground_truth")).unwrap();
        let pdf = d.path().join("pdfs/000.pdf");
        let f = TruthFormat::LatexTables;
        let mut dirs = DirCache::default();
        assert_eq!(f.locate(&pdf, &mut dirs), vec![]);
        let sibling = d.path().join("ground_truth/000.json");
        std::fs::write(&sibling, "[]").unwrap();
        assert_eq!(f.locate(&pdf, &mut dirs), vec![("", sibling)]);
        let beside = d.path().join("pdfs/ground_truth/000.json");
        std::fs::write(&beside, "[]").unwrap();
        assert_eq!(f.locate(&pdf, &mut dirs), vec![("", beside)]);
        let table = r#"[{"type": "table", "data": "\\begin{tabular}{l} a \\\\ \\end{tabular}",
            "complexity": "simple"}]"#;
        assert_eq!(f.validate(table.as_bytes()), Ok(()));
        assert_eq!(f.attributes(table.as_bytes()), [("complexity".into(), "simple".into())]);
        let broken = r#"[{"type": "table", "data": "\\begin{tabular}{l} a"}]"#;
        assert!(f.validate(broken.as_bytes()).unwrap_err().contains("does not parse"));
    }

    #[test]
    fn jats_truth_is_nxml_else_xml_beside_the_pdf() {
        let d = tempfile::tempdir().unwrap();
        let pdf = d.path().join("PMC1.pdf");
        let mut dirs = DirCache::default();
        let f = TruthFormat::Jats;
        assert_eq!(f.locate(&pdf, &mut dirs), vec![]);
        std::fs::write(d.path().join("PMC1.xml"), "<article/>").unwrap();
        assert_eq!(f.locate(&pdf, &mut dirs), vec![("", d.path().join("PMC1.xml"))]);
        std::fs::write(d.path().join("PMC1.nxml"), "<article/>").unwrap();
        assert_eq!(f.locate(&pdf, &mut dirs), vec![("", d.path().join("PMC1.nxml"))]);
        assert_eq!(f.validate(b"<article/>"), Ok(()));
        let e = f.validate(b"<TEI/>").unwrap_err();
        assert!(e.contains("not a JATS article"), "{e}");
        assert!(f.is_paper());
        assert_eq!(TruthFormat::parse("jats"), Some(f));
    }

    #[test]
    fn icdar2013_truth_needs_both_files_beside_the_pdf() {
        let d = tempfile::tempdir().unwrap();
        let pdf = d.path().join("eu-001.pdf");
        let mut dirs = DirCache::default();
        std::fs::write(d.path().join("eu-001-reg.xml"), "<document/>").unwrap();
        assert_eq!(TruthFormat::Icdar2013.locate(&pdf, &mut dirs), vec![]);
        std::fs::write(d.path().join("eu-001-str.xml"), "<document/>").unwrap();
        assert_eq!(
            TruthFormat::Icdar2013.locate(&pdf, &mut dirs),
            vec![
                ("reg", d.path().join("eu-001-reg.xml")),
                ("str", d.path().join("eu-001-str.xml"))
            ]
        );
        assert_eq!(TruthFormat::Icdar2013.validate(b"<document/>"), Ok(()));
        assert!(TruthFormat::Icdar2013.validate(b"<document>").is_err());
    }

    #[test]
    fn grobid_truth_is_found_as_output_tei_parts_or_training_files() {
        let d = tempfile::tempdir().unwrap();
        let (pdfs, tei) = (d.path().join("pdf"), d.path().join("tei"));
        std::fs::create_dir_all(&pdfs).unwrap();
        std::fs::create_dir_all(&tei).unwrap();
        for n in [
            "header__corpus__p1.training.header.tei.xml",
            "fulltext__evaluation__p1.training.fulltext.tei.xml",
            "fulltext__corpus__p1.training.fulltext.tei.xml",
            "figure__corpus__p1.training.figure.tei.xml",
            "header__corpus__p10.training.header.tei.xml",
        ] {
            std::fs::write(tei.join(n), "<TEI/>").unwrap();
        }
        std::fs::write(pdfs.join("p2.header.tei.xml"), "<TEI/>").unwrap();
        std::fs::write(pdfs.join("p2.fulltext.tei.xml"), "<TEI/>").unwrap();
        std::fs::write(pdfs.join("p3.tei.xml"), "<TEI/>").unwrap();
        let mut dirs = DirCache::default();
        let f = TruthFormat::GrobidTei;
        assert_eq!(
            f.locate(&pdfs.join("p1.pdf"), &mut dirs),
            vec![
                ("header", tei.join("header__corpus__p1.training.header.tei.xml")),
                ("fulltext", tei.join("fulltext__corpus__p1.training.fulltext.tei.xml")),
            ]
        );
        assert_eq!(
            f.locate(&pdfs.join("p2.pdf"), &mut dirs),
            vec![
                ("header", pdfs.join("p2.header.tei.xml")),
                ("fulltext", pdfs.join("p2.fulltext.tei.xml"))
            ]
        );
        assert_eq!(
            f.locate(&pdfs.join("p3.pdf"), &mut dirs),
            vec![("full", pdfs.join("p3.tei.xml"))]
        );
        assert_eq!(f.locate(&pdfs.join("p4.pdf"), &mut dirs), vec![]);
    }
}
