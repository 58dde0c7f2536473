//! Every outside format corpus reads (and PeerRead, which it also writes), in one place: one
//! file per format, one name and one media type per format ([`Format`]), and one error type
//! for every reader ([`FormatError`]).
//!
//! Readers turn bytes into corpus's own types ([`Doc`], [`Paper`], tables) and know nothing of
//! files on disk, the store or the suites: `truth`, `import` and `ingest` find the files, call
//! these readers and store what they give (with the file's path beside the message, which is
//! why those callers leave [`FormatError::path`] empty). Parsers that copy one evaluator's
//! quirks on purpose (TEDS's lxml-like tree, GriTS's, olmOCR-bench's test loader,
//! OmniDocBench's `html.parser` and pylatexenc ports) are not here: they stay beside the metric
//! whose numbers they must reproduce.

pub mod alto;
pub mod classes;
pub mod coco;
pub mod docling;
pub mod docling_out;
pub mod html;
pub mod html_page;
pub mod icdar2013;
pub mod jats;
pub mod label_studio;
pub mod latex_table;
pub mod markdown;
pub mod marker;
pub mod mineru;
pub mod olmocr_bench;
pub mod olmocr_jsonl;
pub mod omnidocbench;
pub mod opendataloader;
pub mod paddle;
pub mod parsebench;
pub mod pdf_parse_bench;
pub mod peerread;
pub mod reply;
pub mod s2orc;
pub mod tables;
pub mod tei;
pub mod text;
pub mod unstructured;
mod xml;

#[cfg(test)]
mod props_tests;

use std::path::PathBuf;

use crate::doc::{Doc, Page};
use crate::paper::{self, Paper};

listed_enum! {
/// An outside format: a file layout that some other tool or benchmark writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// PeerRead / science-parse JSON ([`peerread`]).
    PeerRead,
    /// GROBID TEI XML, output or training flavour ([`tei`]).
    GrobidTei,
    /// S2ORC JSON, `s2orc-doc2json` output ([`s2orc`]).
    S2orc,
    /// JATS (or NLM) XML ([`jats`]).
    Jats,
    /// DoclingDocument JSON ([`docling`]).
    Docling,
    /// OmniDocBench ground-truth JSON, one page per object ([`omnidocbench`]).
    OmniDocBench,
    /// olmOCR-bench unit tests, JSON lines ([`olmocr_bench`]).
    OlmocrBench,
    /// pdf-parse-bench tables: a JSON list whose tables are LaTeX `tabular` source
    /// ([`pdf_parse_bench`], [`latex_table`]).
    LatexTables,
    /// pdf-parse-bench truths of either kind: a JSON list of text, table, inline-formula and
    /// display-formula items ([`pdf_parse_bench`]).
    PdfParseBench,
    /// ICDAR 2013 table competition region and structure XML ([`icdar2013`]).
    Icdar2013,
    /// ParseBench test cases: rule JSON lines or `<pdf>.test.json` sidecars ([`parsebench`]).
    ParseBench,
    /// Markdown with pipe and HTML tables and math ([`markdown`], [`html`]).
    Markdown,
    /// Plain text, pages split on form feeds ([`text`]).
    Text,
    /// ALTO XML, as GROBID's `pdfalto` and OCR engines write it ([`alto`]).
    Alto,
    /// Unstructured's element list JSON ([`unstructured`]).
    UnstructuredJson,
    /// opendataloader-pdf's JSON ([`opendataloader`]).
    OpenDataLoaderJson,
    /// MinerU's `content_list.json` or `middle.json` ([`mineru`]).
    MinerU,
    /// PaddleOCR's PP-StructureV3 / PaddleOCR-VL result JSON ([`paddle`]).
    PaddleJson,
    /// Marker's JSON block tree ([`marker`]).
    MarkerJson,
    /// olmOCR's pipeline output: Dolma JSON lines with page spans ([`olmocr_jsonl`]).
    OlmocrJsonl,
    /// dots.ocr's layout JSON reply ([`reply::dots`]).
    DotsOcrJson,
    /// DeepSeek-OCR's Markdown with grounding tags ([`reply::deepseek`]).
    DeepseekGrounding,
    /// olmOCR's reply: YAML front matter and Markdown ([`reply`]).
    OlmocrMarkdown,
    /// Chandra's HTML with a box per block ([`reply::chandra`]).
    ChandraHtml,
    /// DocTags, as granite-docling and SmolDocling answer ([`reply::doctags`]).
    DocTags,
    /// MinerU2.5's layout reply: boxed, labelled regions ([`reply::mineru_vlm`]).
    MinerULayout,
    /// Label Studio's JSON export of a corpus labelling project ([`label_studio`]).
    LabelStudio,
    /// COCO detection JSON whose images are one PDF's pages ([`coco`]).
    Coco,
}
}

/// The one table of format names and media types, as an exhaustive `match` (a new format does
/// not compile until it has both): the name is what `--truth` and `--format` take and what the
/// store's `truths.format` column holds; the media type is what the store records for a truth
/// blob of the format.
fn name_and_media(f: Format) -> (&'static str, &'static str) {
    match f {
        Format::PeerRead => ("peerread", "application/json"),
        Format::GrobidTei => ("grobid-tei", "application/xml"),
        Format::S2orc => ("s2orc", "application/json"),
        Format::Jats => ("jats", "application/xml"),
        Format::Docling => ("docling", "application/json"),
        Format::OmniDocBench => ("omnidocbench", "application/json"),
        Format::OlmocrBench => ("olmocr-bench", "application/json"),
        Format::LatexTables => ("latex-tables", "application/json"),
        Format::PdfParseBench => ("pdf-parse-bench", "application/json"),
        Format::Icdar2013 => ("icdar2013", "application/xml"),
        Format::ParseBench => ("parsebench", "application/jsonl"),
        Format::Markdown => ("markdown", "text/markdown"),
        Format::Text => ("text", "text/plain"),
        Format::Alto => ("alto", "application/xml"),
        Format::UnstructuredJson => ("unstructured-json", "application/json"),
        Format::OpenDataLoaderJson => ("opendataloader-json", "application/json"),
        Format::MinerU => ("mineru", "application/json"),
        Format::PaddleJson => ("paddleocr-json", "application/json"),
        Format::MarkerJson => ("marker-json", "application/json"),
        Format::OlmocrJsonl => ("olmocr-jsonl", "application/jsonl"),
        Format::DotsOcrJson => ("dots-ocr-json", "application/json"),
        Format::DeepseekGrounding => ("deepseek-grounding", "text/markdown"),
        Format::OlmocrMarkdown => ("olmocr-markdown", "text/markdown"),
        Format::ChandraHtml => ("chandra-html", "text/html"),
        Format::DocTags => ("doctags", "text/plain"),
        Format::MinerULayout => ("mineru-layout", "text/plain"),
        Format::LabelStudio => ("label-studio", "application/json"),
        Format::Coco => ("coco", "application/json"),
    }
}

impl Format {
    /// Returns the format's name (`grobid-tei`).
    pub fn name(self) -> &'static str {
        name_and_media(self).0
    }

    /// Returns the media type of the format's files (`application/xml`).
    pub(crate) fn media_type(self) -> &'static str {
        name_and_media(self).1
    }

    /// Returns the format of a name, if any format has it.
    pub(crate) fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Returns the media type of files of the format named `name`; `application/octet-stream` for
/// a name no format has.
pub(crate) fn media_type_of(name: &str) -> &'static str {
    Format::from_name(name).map_or("application/octet-stream", Format::media_type)
}

/// What went wrong reading a file of an outside format. Readers fill in the format, the cause
/// and, where they can tell, the place in the file; callers that know them add the file and
/// the truth part. The message reads `[path: ][part: ]cause[ at place]`.
#[derive(Debug, thiserror::Error)]
#[error("{}{}{source}{}", prefix(.path.as_ref().map(|p| p.display())), prefix(.part.as_ref()), place(.at))]
pub struct FormatError {
    /// The format being read.
    pub format: Format,
    /// The file, where the caller knows it.
    pub path: Option<PathBuf>,
    /// The truth part (`header`, `reg`), where a truth has several files.
    pub part: Option<String>,
    /// Where in the file, as the format names places (`metadata.sections[3]`).
    pub at: Option<String>,
    /// What is wrong.
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

fn prefix(x: Option<impl std::fmt::Display>) -> String {
    x.map(|x| format!("{x}: ")).unwrap_or_default()
}

fn place(at: &Option<String>) -> String {
    at.as_ref().map(|a| format!(" at {a}")).unwrap_or_default()
}

impl FormatError {
    /// An error of `format` for `source` (a message or an underlying error).
    pub fn new(
        format: Format,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        FormatError { format, path: None, part: None, at: None, source: source.into() }
    }

    /// Bytes that are not JSON.
    pub fn json(format: Format, e: serde_json::Error) -> Self {
        FormatError::new(format, format!("invalid JSON: {e}"))
    }

    /// Bytes that are not well-formed XML (or not UTF-8).
    pub fn xml(format: Format, e: impl std::fmt::Display) -> Self {
        FormatError::new(format, format!("invalid XML: {e}"))
    }

    /// Text that is not UTF-8.
    pub(crate) fn utf8(format: Format, e: std::str::Utf8Error) -> Self {
        FormatError::new(format, format!("not UTF-8: {e}"))
    }

    /// A value of the wrong shape (`expected object at metadata.sections[3]`).
    pub fn shape(format: Format, expected: &'static str, at: impl Into<String>) -> Self {
        FormatError::new(format, format!("expected {expected}")).at(at)
    }

    /// Names the place in the file.
    pub fn at(mut self, at: impl Into<String>) -> Self {
        self.at = Some(at.into());
        self
    }

    /// Names the truth part the file is.
    pub(crate) fn in_part(mut self, part: impl Into<String>) -> Self {
        self.part = Some(part.into());
        self
    }

    /// Names the file.
    #[cfg(test)]
    pub(crate) fn in_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }
}

listed_enum! {
/// A ground-truth format that `ingest --truth` understands: one registry, its `ALL` written
/// once with the enum (a new format is wired when every `match` on it compiles and
/// `every_truth_format_has_a_reader_test_and_a_media_type` passes; recipe: CONTRIBUTING.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruthFormat {
    /// PeerRead / science-parse JSON: `<name>.pdf.json` beside the PDF or in a sibling
    /// `parsed_pdfs/` folder.
    PeerRead,
    /// GROBID TEI: `<stem>.tei.xml` (GROBID output), or `<stem>.header.tei.xml` +
    /// `<stem>.fulltext.tei.xml` (+ `<stem>.references.tei.xml`), beside the PDF or in a
    /// sibling `tei/` folder, where GROBID's training names
    /// (`header__corpus__<stem>.training.header.tei.xml`, ...) are understood too.
    GrobidTei,
    /// S2ORC JSON: `<stem>.json` beside the PDF.
    S2orc,
    /// JATS (or NLM) XML, as PubMed Central gives its articles: `<stem>.nxml`, else
    /// `<stem>.xml`, beside the PDF.
    Jats,
    /// DoclingDocument JSON, `<stem>.json` beside the PDF or in a sibling `groundtruth/`
    /// folder: a parser's output used as the reference, so scores measure agreement with
    /// Docling, not accuracy.
    Docling,
    /// OmniDocBench JSON: a list of pages, each with its layout blocks (`corpus ingest
    /// OmniDocBench.json --truth omnidocbench --images DIR`); scored by the omnidoc suite.
    OmniDocBench,
    /// olmOCR-bench unit tests: `*.jsonl` beside a `pdfs/` folder, each line naming its PDF
    /// (see `ingest::olmocr`); one part per JSONL file, named by the file's stem (the tests'
    /// group).
    OlmocrBench,
    /// pdf-parse-bench tables: `<stem>.json`, a list in page order of `{type: table|text,
    /// data, complexity?}` whose tables are LaTeX `tabular` source, in `ground_truth/` beside
    /// the PDF, in a sibling `ground_truth/` folder (`pdfs/000.pdf` +
    /// `ground_truth/000.json`), or beside the PDF; scored by the table suite.
    LatexTables,
    /// pdf-parse-bench truths of either of its folders, told apart by content: `<stem>.json`
    /// found as for `latex-tables`, a list in page order of `{type, data, complexity?}` items
    /// whose types are `text`, `table` (LaTeX `tabular`), `inline-formula` (`$…$`) and
    /// `display-formula` (`$$…$$`); its tables are scored by the table suite, its formulas
    /// by the formula suite.
    PdfParseBench,
    /// ICDAR 2013 table competition: `<stem>-reg.xml` (regions) and `<stem>-str.xml`
    /// (cells) beside `<stem>.pdf`, stored as parts `reg` and `str`; scored by the table suite.
    Icdar2013,
    /// ParseBench test cases: `{category}.jsonl` rule lines beside `pdfs/{category}/*.pdf`
    /// (+ `expected_markdown.json`), or `<stem>.test.json` beside each PDF (see
    /// `ingest::parsebench`); one part per category, and `expected_markdown`; scored by the
    /// parsebench suite.
    ParseBench,
    /// Label Studio's JSON export of a project made from `corpus truth draft --label-studio`
    /// (`corpus ingest EXPORT.json --truth label-studio`): each task's latest submitted
    /// annotation is one page's truth, attached to the stored document and page the task names;
    /// scored by the omnidoc suite (`docs/label-studio.md`).
    LabelStudio,
    /// COCO detection JSON whose images are the PDF's pages: `<stem>.coco.json` beside the
    /// PDF, or `coco/<stem>.json` in its folder or the folder above; boxes in each image's
    /// pixels, scaled to the page at scoring; scored by the detection suite.
    Coco,
}
}

/// The parts of a GROBID truth, in the order their fields take precedence when merged.
pub const TEI_PARTS: [&str; 4] = ["full", "header", "fulltext", "references"];

impl TruthFormat {
    /// Returns the outside format.
    pub fn format(self) -> Format {
        match self {
            TruthFormat::PeerRead => Format::PeerRead,
            TruthFormat::GrobidTei => Format::GrobidTei,
            TruthFormat::S2orc => Format::S2orc,
            TruthFormat::Jats => Format::Jats,
            TruthFormat::Docling => Format::Docling,
            TruthFormat::OmniDocBench => Format::OmniDocBench,
            TruthFormat::OlmocrBench => Format::OlmocrBench,
            TruthFormat::LatexTables => Format::LatexTables,
            TruthFormat::PdfParseBench => Format::PdfParseBench,
            TruthFormat::Icdar2013 => Format::Icdar2013,
            TruthFormat::ParseBench => Format::ParseBench,
            TruthFormat::LabelStudio => Format::LabelStudio,
            TruthFormat::Coco => Format::Coco,
        }
    }

    /// Returns the format's name as stored and typed (`peerread`).
    pub fn as_str(self) -> &'static str {
        self.format().name()
    }

    /// Returns whether the paper suite reads this format.
    pub fn is_paper(self) -> bool {
        match self {
            TruthFormat::PeerRead
            | TruthFormat::GrobidTei
            | TruthFormat::S2orc
            | TruthFormat::Jats
            | TruthFormat::Docling => true,
            TruthFormat::OmniDocBench
            | TruthFormat::OlmocrBench
            | TruthFormat::LatexTables
            | TruthFormat::PdfParseBench
            | TruthFormat::Icdar2013
            | TruthFormat::ParseBench
            | TruthFormat::LabelStudio
            | TruthFormat::Coco => false,
        }
    }

    /// Returns whether the format's truths place regions on pages (boxes): every such format
    /// is one the detection suite scores (`tests/it/gt_vs_gt.rs` checks each at GT-vs-GT).
    pub fn has_boxes(self) -> bool {
        match self {
            TruthFormat::OmniDocBench
            | TruthFormat::Icdar2013
            | TruthFormat::ParseBench
            | TruthFormat::LabelStudio
            | TruthFormat::Coco
            | TruthFormat::Docling => true,
            // GROBID's TEI carries `coords` only when asked for, and corpus's reader reads
            // none; the others have no regions.
            TruthFormat::PeerRead
            | TruthFormat::GrobidTei
            | TruthFormat::S2orc
            | TruthFormat::Jats
            | TruthFormat::OlmocrBench
            | TruthFormat::LatexTables
            | TruthFormat::PdfParseBench => false,
        }
    }

    /// Parses a format name.
    pub fn parse(s: &str) -> Option<TruthFormat> {
        TruthFormat::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// Checks that one file's bytes are well-formed for this format, as its reader reads
    /// them.
    pub fn check(self, bytes: &[u8]) -> Result<(), FormatError> {
        if self == TruthFormat::OlmocrBench {
            return olmocr_bench::read_tests(bytes).map(|_| ());
        }
        if self == TruthFormat::ParseBench {
            return parsebench::read_part(bytes).map(|_| ());
        }
        self.read_one(bytes).map(|_| ())
    }

    /// Returns the document attributes a truth file implies: for `latex-tables` and
    /// `pdf-parse-bench`, `complexity` = the class its tables share, or `mixed`.
    pub fn attributes(self, bytes: &[u8]) -> Vec<(String, String)> {
        match self {
            TruthFormat::PdfParseBench => pdf_parse_bench::read_tables(bytes)
                .ok()
                .and_then(|t| pdf_parse_bench::complexity_attribute(&t))
                .map(|c| vec![("complexity".to_string(), c)])
                .unwrap_or_default(),
            TruthFormat::LatexTables => pdf_parse_bench::read_truth(bytes)
                .ok()
                .and_then(|t| pdf_parse_bench::complexity_attribute(&t))
                .map(|c| vec![("complexity".to_string(), c)])
                .unwrap_or_default(),
            // The other truths carry no document attributes of their own (OmniDocBench's come
            // with its pages at ingest, not from one truth file).
            TruthFormat::PeerRead
            | TruthFormat::GrobidTei
            | TruthFormat::S2orc
            | TruthFormat::Jats
            | TruthFormat::Docling
            | TruthFormat::OmniDocBench
            | TruthFormat::OlmocrBench
            | TruthFormat::Icdar2013
            | TruthFormat::ParseBench
            | TruthFormat::LabelStudio
            | TruthFormat::Coco => Vec::new(),
        }
    }

    fn read_one(self, bytes: &[u8]) -> Result<Paper, FormatError> {
        match self {
            TruthFormat::PeerRead => peerread::read_peerread(bytes),
            TruthFormat::GrobidTei => tei::read_grobid_tei(bytes),
            TruthFormat::S2orc => s2orc::read_s2orc(bytes),
            TruthFormat::Jats => jats::read_jats(bytes),
            TruthFormat::Docling => docling::read_docling(bytes).map(|f| paper::from_doc(&f.doc)),
            TruthFormat::OmniDocBench => omnidocbench::read_page(bytes).map(|_| Paper::default()),
            // One stored task with its annotations.
            TruthFormat::LabelStudio => label_studio::read_page(bytes).map(|_| Paper::default()),
            TruthFormat::Coco => coco::read(bytes).map(|_| Paper::default()),
            TruthFormat::OlmocrBench => Err(FormatError::new(
                Format::OlmocrBench,
                "olmocr-bench tests are not a paper truth",
            )),
            TruthFormat::ParseBench => {
                Err(FormatError::new(Format::ParseBench, "parsebench rules are not a paper truth"))
            }
            TruthFormat::LatexTables => {
                pdf_parse_bench::read_truth(bytes).map(|_| Paper::default())
            }
            TruthFormat::PdfParseBench => {
                pdf_parse_bench::read_items(bytes).map(|_| Paper::default())
            }
            // Each part alone: a region file or a structure file, well-formed.
            TruthFormat::Icdar2013 => std::str::from_utf8(bytes)
                .map_err(|e| FormatError::new(Format::Icdar2013, e.to_string()))
                .and_then(icdar2013::read_structure)
                .map(|_| Paper::default()),
        }
    }

    /// Reads a truth (its parts as (part, bytes)) into a [`Paper`], as its format's reader
    /// gives it; several parts (GROBID's header and fulltext) are merged in [`TEI_PARTS`]
    /// order.
    pub(crate) fn to_paper(self, parts: &[(&str, &[u8])]) -> Result<Paper, FormatError> {
        if let [(_, bytes)] = parts {
            let mut p = self.read_one(bytes)?;
            p.rebuild_mentions();
            return Ok(p);
        }
        let mut ordered: Vec<&(&str, &[u8])> = parts.iter().collect();
        ordered.sort_by_key(|(part, _)| TEI_PARTS.iter().position(|p| p == part).unwrap_or(99));
        let papers = ordered
            .into_iter()
            .map(|(part, bytes)| self.read_one(bytes).map_err(|e| e.in_part(*part)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(paper::merge(papers))
    }
}

listed_enum! {
    /// A format `corpus import` (and the `command` provider) reads.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ImportFormat {
        /// DoclingDocument JSON.
        DoclingJson,
        /// Markdown (with pipe and HTML tables, math).
        Markdown,
        /// GROBID output TEI XML.
        GrobidTei,
        /// PeerRead / science-parse JSON.
        PeerRead,
        /// Plain text: paragraphs split on blank lines, pages on form feeds (`pdftotext`).
        Text,
        /// ALTO XML (`pdfalto`, OCR engines): one paragraph per text block, with boxes.
        Alto,
        /// Unstructured's element list JSON (`partition_pdf` + `elements_to_json`).
        UnstructuredJson,
        /// opendataloader-pdf's JSON.
        OpenDataLoaderJson,
        /// MinerU's `<name>_content_list.json` or `<name>_middle.json` ([`mineru`]).
        MinerU,
        /// PaddleOCR's PP-StructureV3 / PaddleOCR-VL `save_to_json` result, `<name>_res.json` or a
        /// PDF's `<name>_<page>_res.json` ([`paddle`]).
        PaddleJson,
        /// Marker's JSON block tree, `<name>/<name>.json` ([`marker`]).
        MarkerJson,
        /// olmOCR's pipeline results, `output_<hash>.jsonl`: one document per line, each the
        /// output of the PDF its Source-File names ([`olmocr_jsonl`]).
        OlmocrJsonl,
    }
}

/// A file read into a Doc.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The document.
    pub doc: Doc,
    /// The PDF's SHA-256 low 64 bits, where the file records it (Docling).
    pub binary_hash: Option<u64>,
}

impl ImportFormat {
    /// Returns the outside format.
    pub fn format(self) -> Format {
        match self {
            ImportFormat::DoclingJson => Format::Docling,
            ImportFormat::Markdown => Format::Markdown,
            ImportFormat::GrobidTei => Format::GrobidTei,
            ImportFormat::PeerRead => Format::PeerRead,
            ImportFormat::Text => Format::Text,
            ImportFormat::Alto => Format::Alto,
            ImportFormat::UnstructuredJson => Format::UnstructuredJson,
            ImportFormat::OpenDataLoaderJson => Format::OpenDataLoaderJson,
            ImportFormat::MinerU => Format::MinerU,
            ImportFormat::PaddleJson => Format::PaddleJson,
            ImportFormat::MarkerJson => Format::MarkerJson,
            ImportFormat::OlmocrJsonl => Format::OlmocrJsonl,
        }
    }

    /// The format's name as typed (`markdown`): its [`Format::name`], except Docling's, which
    /// `import` has always called `docling-json` (the name is part of the cache key of every
    /// imported Docling output, so it cannot change).
    pub fn as_str(self) -> &'static str {
        match self {
            ImportFormat::DoclingJson => "docling-json",
            f => f.format().name(),
        }
    }

    /// Parses a format name.
    pub fn parse(s: &str) -> std::result::Result<ImportFormat, String> {
        ImportFormat::ALL.into_iter().find(|f| f.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = ImportFormat::ALL.iter().map(|f| f.as_str()).collect();
            format!("unknown format {s:?}; known formats: {}", names.join(", "))
        })
    }

    /// File name endings this format's files have, longest first.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            ImportFormat::DoclingJson
            | ImportFormat::PeerRead
            | ImportFormat::UnstructuredJson
            | ImportFormat::OpenDataLoaderJson
            | ImportFormat::MarkerJson => &[".json"],
            ImportFormat::Markdown => &[".markdown", ".mmd", ".md"],
            ImportFormat::GrobidTei => &[".tei.xml", ".xml"],
            ImportFormat::Text => &[".txt"],
            // `pdfalto` writes `<name>.xml` (and `<name>_metadata.xml`, which is skipped as
            // not ALTO).
            ImportFormat::Alto => &[".alto.xml", ".alto", ".xml"],
            // MinerU writes both beside its Markdown (and `_model.json`, `_content_list_v2.json`,
            // which are not read); PaddleX names a result `<input stem>[_<page>]_res.json`.
            ImportFormat::MinerU => &["_content_list.json", "_middle.json"],
            ImportFormat::PaddleJson => &["_res.json"],
            ImportFormat::OlmocrJsonl => &[".jsonl"],
        }
    }

    /// Reads one file; `page` (zero-based) is where page-less formats put their blocks.
    /// The PDF's page sizes are not known: see `ImportFormat::read_sized`.
    pub fn read(self, bytes: &[u8], page: u32) -> Result<Parsed, FormatError> {
        self.read_sized(bytes, page, &[])
    }

    /// Reads one file as [`ImportFormat::read`] does, given the PDF's page sizes in points (in
    /// page order; empty where the caller does not know them). Formats whose boxes need them
    /// use them: `opendataloader-json` turns its bottom-left boxes over with the page height
    /// (792 pt without it), `unstructured-json` scales `PixelSpace` boxes to points (kept in
    /// pixels without them), `alto` scales `pixel` units to the page (read as points without
    /// them), `mineru` scales a content list's 0–1000 boxes to points (empty boxes without
    /// them) and a middle file's points to the page, `paddleocr-json` scales its pixel boxes to
    /// points (kept in pixels without them), `marker-json` scales its points to the page; the
    /// other formats ignore them.
    pub(crate) fn read_sized(
        self,
        bytes: &[u8],
        page: u32,
        sizes: &[Page],
    ) -> Result<Parsed, FormatError> {
        let doc = |d: Doc| Parsed { doc: d, binary_hash: None };
        let utf8 = || std::str::from_utf8(bytes).map_err(|e| FormatError::utf8(self.format(), e));
        let paper = |p: Paper| Parsed { doc: paper::to_doc(&p), binary_hash: None };
        match self {
            ImportFormat::DoclingJson => docling::read_docling(bytes)
                .map(|f| Parsed { doc: f.doc, binary_hash: f.binary_hash }),
            ImportFormat::Markdown => {
                // A form feed is a page break, as in pdftotext's output: parsers that give
                // pages (presets) join them with it.
                let src = utf8()?;
                Ok(Parsed { doc: markdown::read_markdown_pages(src, page), binary_hash: None })
            }
            ImportFormat::GrobidTei => tei::read_grobid_tei(bytes).map(paper),
            ImportFormat::PeerRead => peerread::read_peerread(bytes).map(paper),
            ImportFormat::Text => {
                Ok(Parsed { doc: text::read_text(utf8()?, page), binary_hash: None })
            }
            ImportFormat::Alto => alto::read_alto(bytes, sizes).map(doc),
            ImportFormat::UnstructuredJson => {
                unstructured::read_unstructured(bytes, page, sizes).map(doc)
            }
            ImportFormat::OpenDataLoaderJson => {
                opendataloader::read_opendataloader(bytes, page, sizes).map(doc)
            }
            ImportFormat::MinerU => mineru::read(bytes, page, sizes).map(doc),
            ImportFormat::PaddleJson => paddle::read(bytes, page, sizes).map(doc),
            ImportFormat::MarkerJson => marker::read(bytes, page, sizes).map(doc),
            ImportFormat::OlmocrJsonl => olmocr_jsonl::read(bytes, page, sizes).map(doc),
        }
    }

    /// Returns whether `e` says a file with this format's ending is another kind of file
    /// altogether (other JSON beside Docling's, `pdfalto`'s `_metadata.xml` beside its ALTO,
    /// Marker's `_meta.json` beside its JSON), which an import leaves alone rather than
    /// counting as broken.
    pub(crate) fn is_other_kind(e: &FormatError) -> bool {
        docling::is_not_docling(e) || alto::is_not_alto(e) || marker::is_not_marker(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_one_name_and_a_media_type() {
        let mut names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
            assert_eq!(media_type_of(f.name()), f.media_type());
        }
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "two formats share a name");
        for f in TruthFormat::ALL {
            assert_eq!(TruthFormat::parse(f.format().name()), Some(f));
        }
        assert_eq!(media_type_of("s2orc"), "application/json");
        assert_eq!(media_type_of("nope"), "application/octet-stream");
    }

    /// The file of each truth format's reader; each has unit tests, and its media type is a
    /// real one. A format added to the registry fails to compile here until it is named.
    fn reader_file(f: TruthFormat) -> &'static str {
        match f {
            TruthFormat::PeerRead => "peerread.rs",
            TruthFormat::GrobidTei => "tei.rs",
            TruthFormat::S2orc => "s2orc.rs",
            TruthFormat::Jats => "jats.rs",
            TruthFormat::Docling => "docling.rs",
            TruthFormat::OmniDocBench => "omnidocbench.rs",
            TruthFormat::OlmocrBench => "../metrics/olmocr.rs",
            TruthFormat::LatexTables => "latex_table.rs",
            TruthFormat::PdfParseBench => "pdf_parse_bench.rs",
            TruthFormat::Icdar2013 => "icdar2013.rs",
            TruthFormat::ParseBench => "parsebench.rs",
            TruthFormat::LabelStudio => "label_studio.rs",
            TruthFormat::Coco => "coco.rs",
        }
    }

    #[test]
    fn every_truth_format_has_a_reader_test_and_a_media_type() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/formats");
        for f in TruthFormat::ALL {
            let src = std::fs::read_to_string(dir.join(reader_file(f))).unwrap();
            assert!(src.contains("#[test]"), "{}: its reader has no test", f.as_str());
            assert_ne!(media_type_of(f.as_str()), "application/octet-stream", "{}", f.as_str());
            assert_eq!(TruthFormat::parse(f.as_str()), Some(f));
        }
    }

    #[test]
    fn form_feeds_split_markdown_and_text_into_pages() {
        let md = "# Title\n\nOne.\u{c}Two.\n\n<table><tr><td>a</td></tr></table>\n";
        let doc = ImportFormat::Markdown.read(md.as_bytes(), 0).unwrap().doc;
        let pages: Vec<(u32, &str)> =
            doc.blocks.iter().map(|b| (b.page, b.text.as_str())).collect();
        assert_eq!(pages[..3], [(0, "Title"), (0, "One."), (1, "Two.")]);
        assert_eq!(doc.blocks[3].page, 1);
        assert!(doc.blocks[3].table.is_some());
        assert_eq!(doc.markdown.as_deref(), Some(md));
        let doc = ImportFormat::Text.read("a\u{c}b".as_bytes(), 0).unwrap().doc;
        assert_eq!(doc.blocks.iter().map(|b| b.page).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn errors_read_file_part_cause_place() {
        let e = FormatError::shape(Format::PeerRead, "object", "$");
        assert_eq!(e.to_string(), "expected object at $");
        let e = e.in_part("header").in_file("a.json");
        assert_eq!(e.to_string(), "a.json: header: expected object at $");
    }
}
