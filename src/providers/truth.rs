//! The `truth` provider: a document's own ground truth as a [`Doc`], so that scoring the truth
//! against itself (which must give each suite's best value on every metric) is two commands,
//! `corpus ocr --provider truth` and `corpus eval --suite S --provider truth`.
//!
//! It runs in the calling process, since it reads the store rather than the PDF (ICDAR 2013
//! truths excepted: their boxes need the PDF's page sizes). Its cache key uses the truth's
//! content digest as the model digest, so a changed truth gives a new output. Every truth
//! format a suite scores is rendered ([`TruthFormat::ALL`]):
//!
//! - **Papers** (PeerRead, GROBID TEI, S2ORC, JATS): [`paper::to_doc`] of the truth as its
//!   reader gives it; the suite scores the truth as [`paper::canonical`] (that Doc read back by
//!   the linearizer), so the two sides are one paper by construction. **Docling** truths are
//!   the Docling reader's Doc itself, boxes and labels kept for the detection suite.
//! - **pdf-parse-bench and latex-tables**: the truth written as Markdown
//!   (`pdf_parse_bench::to_markdown`: formulas with their delimiters, as the formula suite
//!   reads them) kept as the Doc's Markdown, and blocks in the truth's order whose table blocks
//!   carry exactly the GT tables the table suite reads.
//! - **ICDAR 2013**: one table block per GT region, on its page, its box the region's turned
//!   into the Doc's frame (top-left origin, points, the PDF's own page heights), so the table
//!   suite finds every region with IoU 1; a table's first region carries its cells.
//! - **OmniDocBench**: blocks from `layout_dets` in `order`, kinds by category (`abandon` a page
//!   header), labelled `omnidocbench:<category>` for the detection suite, boxes from
//!   `poly` (the page image's pixels are the Doc's points, as for every page-image document);
//!   the Doc's Markdown is what the omnidoc suite reads: the text of every block of its text
//!   pool (the ignored categories too, which the suite matches and does not score), blocks
//!   that `truncated` relations join written as one, display formulas as their `$$…$$` LaTeX
//!   and tables as their HTML, in `order`.
//! - **olmOCR-bench**: one output per tested page (`pages = "N"`), Markdown written from the
//!   page's tests: the texts of `present`, `order`, `format` and `footnote` tests in an order
//!   that keeps every `order` pair, each `math` formula as display math, each `table` test as a
//!   small table whose cells stand in the relations the test names. The tests are then run on
//!   that Markdown (the runner's own code, math by exact match), with the baseline the suite
//!   adds for a PDF without one: a test the rendering does not pass (an `absent` text another
//!   test needs, a page whose tests name no text for the baseline to find, …) is reported by
//!   type and id, never dropped silently.
//!
//! - **ParseBench**: its expected Markdown (where the data gives one), read as an imported
//!   Markdown output, the Markdown kept verbatim, and its layout elements as labelled blocks;
//!   a truth without the Markdown cannot be rendered.
//!
//! A truth that cannot be rendered is stored as a failed output with its reason and counted.
//! olmOCR-bench outputs record [`OLMOCR_DIGEST`] as their model digest instead of the truth's,
//! so that the olmocr suite takes a dataset's pages as one system.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::json;

use super::key::{CacheKey, PageSelection};
use crate::doc::{BBox, Block, BlockKind, Doc, Page, Table};
use crate::error::Result;
use crate::formats::omnidocbench::{self as odb, LayoutDet};
use crate::formats::pdf_parse_bench::{self, FormulaKind, GtTable, TruthItem};
use crate::formats::TruthFormat;
use crate::metrics::olmocr::load_tests;
use crate::paper;
use crate::store::{NewOutput, RunId, Store};
use crate::truth::{truth_groups, TruthGroup};

mod boxes;
mod coco;
mod olmocr;
use boxes::{docling_doc, parsebench_doc, parsebench_layout};
use coco::coco_doc;
use olmocr::olmocr_pages;

/// The provider id.
pub const ID: &str = "truth";

/// Bump when the Doc made from a truth changes (2: reference blocks carry their fields,
/// headings their levels, and the Doc the paper's authors and keywords; 3: every truth format
/// is rendered, table blocks carry the GT tables themselves; 4: blocks carry their truth's
/// class as a label, a Docling truth is the Docling reader's Doc with its boxes, a ParseBench
/// truth's layout elements are blocks).
pub const ADAPTER_VERSION: u32 = 4;

/// The model digest recorded with olmOCR-bench truth outputs (their cache key holds the
/// truth's digest): one for every document, since the olmocr suite takes a provider's outputs
/// with one model digest (and config) as one system.
pub const OLMOCR_DIGEST: &str = "olmocr-bench";

/// Outputs already stored, written now, and truths that failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TruthCounts {
    /// Truths whose outputs were all in the store already.
    pub cached: u64,
    /// Truths rendered and stored now.
    pub written: u64,
    /// Truths that could not be rendered (stored as failed outputs, with the reason).
    pub failed: u64,
}

/// A truth that could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TruthFailure {
    /// The document's name in the truth's dataset.
    pub document: String,
    /// The dataset.
    pub dataset: String,
    /// Why.
    pub error: String,
}

/// An olmOCR-bench test the rendered Markdown does not pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unrendered {
    /// The document's name in the truth's dataset.
    pub document: String,
    /// The test's id.
    pub id: String,
    /// The test's explanation of its failure on the rendering.
    pub why: String,
}

/// What [`materialize`] did with the truths of one format.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FormatCounts {
    /// The truth format's name.
    pub format: &'static str,
    /// Truths of the format.
    pub truths: u64,
    /// Cached, written and failed truths.
    #[serde(flatten)]
    pub counts: TruthCounts,
    /// The truths that could not be rendered.
    pub failures: Vec<TruthFailure>,
    /// olmOCR-bench: the tests the rendering does not pass, by test type.
    pub unrendered: BTreeMap<String, Vec<Unrendered>>,
}

/// What [`materialize`] did, per truth format (formats without truths left out).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Materialized {
    /// Per format, in [`TruthFormat::ALL`] order.
    pub formats: Vec<FormatCounts>,
}

impl Materialized {
    /// The counts over every format.
    pub fn totals(&self) -> TruthCounts {
        self.formats.iter().fold(TruthCounts::default(), |t, f| TruthCounts {
            cached: t.cached + f.counts.cached,
            written: t.written + f.counts.written,
            failed: t.failed + f.counts.failed,
        })
    }

    /// Truths of every format.
    pub fn truths(&self) -> u64 {
        self.formats.iter().map(|f| f.truths).sum()
    }

    /// olmOCR-bench tests the renderings do not pass.
    pub fn unrendered(&self) -> usize {
        self.formats.iter().flat_map(|f| f.unrendered.values()).map(Vec::len).sum()
    }
}

/// Stores a `truth` output for every truth (optionally of one dataset) of every format that
/// does not have one yet.
pub fn materialize(
    store: &mut Store,
    dataset: Option<&str>,
    run: Option<RunId>,
) -> Result<Materialized> {
    materialize_where(store, dataset, run, |_| true)
}

/// [`materialize`] for the truth formats `keep` accepts (a suite's).
pub fn materialize_where(
    store: &mut Store,
    dataset: Option<&str>,
    run: Option<RunId>,
    keep: impl Fn(TruthFormat) -> bool,
) -> Result<Materialized> {
    let groups = truth_groups(store, dataset, &keep)?;
    let mut per: BTreeMap<usize, FormatCounts> = BTreeMap::new();
    let mut pdfium: Option<std::result::Result<super::pdfium::Pdfium, String>> = None;
    for g in groups {
        let Some(pdf_hash) = store.document_hash(g.document)? else { continue };
        let slot = TruthFormat::ALL.iter().position(|f| *f == g.format).unwrap_or(usize::MAX);
        let fc = per
            .entry(slot)
            .or_insert_with(|| FormatCounts { format: g.format.as_str(), ..Default::default() });
        fc.truths += 1;
        let name = store.name_in(g.document, &g.dataset)?.unwrap_or_default();
        let digest = g.digest();
        let config = json!({"dataset": g.dataset, "format": g.format.as_str()});
        let key = |pages: &PageSelection| {
            CacheKey::builder(ID, ADAPTER_VERSION, &digest, &pdf_hash)
                .config(&config)
                .pages(pages)
                .compute()
        };
        let cached = |store: &Store, pages: &PageSelection| -> Result<bool> {
            Ok(store.output_status(key(pages).as_str())?.as_deref() == Some("ok"))
        };
        // olmOCR-bench renders (cheaply) even when cached: its unrendered tests are reported.
        if g.format != TruthFormat::OlmocrBench && cached(store, &PageSelection::All)? {
            fc.counts.cached += 1;
            continue;
        }
        let t0 = std::time::Instant::now();
        let rendered = render(store, &g, &name, &mut pdfium)?;
        let put = |store: &mut Store,
                   pages: &PageSelection,
                   doc: std::result::Result<&Doc, &str>|
         -> Result<()> {
            let json = match doc {
                Ok(d) => Ok(serde_json::to_vec(d)?),
                Err(e) => Err(e.to_string()),
            };
            store.put_output(&NewOutput {
                cache_key: key(pages).as_str(),
                document: g.document,
                provider: ID,
                provider_version: &ADAPTER_VERSION.to_string(),
                model_digest: if g.format == TruthFormat::OlmocrBench {
                    OLMOCR_DIGEST
                } else {
                    &digest
                },
                config: &super::key::canonical_json(&config),
                pages: &pages.to_string(),
                result: json.as_ref().map(Vec::as_slice).map_err(String::as_str),
                usage: crate::store::Usage {
                    wall_ms: t0.elapsed().as_millis() as u64,
                    ..Default::default()
                },
                device: "cpu",
                run,
            })?;
            Ok(())
        };
        match rendered {
            Err(e) => {
                put(store, &PageSelection::All, Err(&e))?;
                fc.counts.failed += 1;
                fc.failures.push(TruthFailure {
                    document: name,
                    dataset: g.dataset.clone(),
                    error: e,
                });
            }
            Ok(Rendered { pages, unrendered }) => {
                let mut wrote = false;
                for (sel, doc) in &pages {
                    if !cached(store, sel)? {
                        put(store, sel, Ok(doc))?;
                        wrote = true;
                    }
                }
                if wrote {
                    fc.counts.written += 1;
                } else {
                    fc.counts.cached += 1;
                }
                for (kind, u) in unrendered {
                    fc.unrendered.entry(kind).or_default().push(u);
                }
            }
        }
    }
    Ok(Materialized { formats: per.into_values().collect() })
}

/// A truth rendered: its outputs (page selection, Doc) and, for olmOCR-bench, the tests the
/// rendering does not pass (type, test).
struct Rendered {
    pages: Vec<(PageSelection, Doc)>,
    unrendered: Vec<(String, Unrendered)>,
}

impl Rendered {
    fn one(doc: Doc) -> Rendered {
        Rendered { pages: vec![(PageSelection::All, doc)], unrendered: Vec::new() }
    }
}

/// A truth's parts as (part, bytes).
type Parts = Vec<(String, Vec<u8>)>;

/// The truth's parts as (part, bytes).
fn parts(store: &Store, g: &TruthGroup) -> Result<std::result::Result<Parts, String>> {
    let mut out = Vec::new();
    for p in &g.parts {
        match store.blob(&p.blob)? {
            Some(b) => out.push((p.part.clone(), b)),
            None => return Ok(Err(format!("truth blob {} is missing from the store", p.blob))),
        }
    }
    Ok(Ok(out))
}

/// Renders one truth; the inner error is why it cannot be rendered.
fn render(
    store: &Store,
    g: &TruthGroup,
    name: &str,
    pdfium: &mut Option<std::result::Result<super::pdfium::Pdfium, String>>,
) -> Result<std::result::Result<Rendered, String>> {
    if g.format == TruthFormat::Docling {
        return Ok(match parts(store, g)? {
            Ok(p) if p.len() == 1 => docling_doc(&p[0].1).map(Rendered::one),
            Ok(p) => Err(format!("a Docling truth of {} parts, not one", p.len())),
            Err(e) => Err(e),
        });
    }
    if g.format.is_paper() {
        return Ok(g
            .read_paper(store)
            .map(|p| Rendered::one(paper::to_doc(&p)))
            .map_err(|e| e.to_string()));
    }
    let parts = match parts(store, g)? {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    let part = |n: &str| parts.iter().find(|(p, _)| p == n).map(|(_, b)| b.as_slice());
    Ok(match g.format {
        TruthFormat::LatexTables | TruthFormat::PdfParseBench => match part("") {
            Some(b) => pdf_parse_bench_doc(b, g.format).map(Rendered::one),
            None => Err("no truth file".into()),
        },
        TruthFormat::Icdar2013 => match (part("reg"), part("str")) {
            (Some(reg), Some(st)) => {
                let sizes = match page_sizes(store, g.document, pdfium)? {
                    Ok(s) => s,
                    Err(e) => return Ok(Err(format!("reading the PDF's page sizes: {e}"))),
                };
                icdar2013_doc(reg, st, &sizes).map(Rendered::one)
            }
            _ => Err("needs both the reg and the str part".into()),
        },
        TruthFormat::OmniDocBench if parts.len() == 1 && parts[0].0.is_empty() => {
            omnidoc_doc(&parts[0].1).map(Rendered::one)
        }
        TruthFormat::OmniDocBench | TruthFormat::LabelStudio => {
            let sizes = match page_sizes(store, g.document, pdfium)? {
                Ok(s) => s,
                Err(e) => return Ok(Err(format!("reading the PDF's page sizes: {e}"))),
            };
            page_truths_doc(g.format, &parts, sizes).map(Rendered::one)
        }
        TruthFormat::Coco => match part("") {
            Some(b) => {
                let sizes = match page_sizes(store, g.document, pdfium)? {
                    Ok(s) => s,
                    Err(e) => return Ok(Err(format!("reading the PDF's page sizes: {e}"))),
                };
                coco_doc(b, sizes).map(Rendered::one)
            }
            None => Err("no truth file".into()),
        },
        TruthFormat::OlmocrBench => {
            let mut tests = Vec::new();
            for (p, b) in &parts {
                let text = std::str::from_utf8(b).map_err(|e| format!("group {p}: not UTF-8: {e}"));
                match text.and_then(|t| load_tests(t).map_err(|e| format!("group {p}: {e}"))) {
                    Ok(t) => tests.extend(t),
                    Err(e) => return Ok(Err(e)),
                }
            }
            Ok(olmocr_pages(&tests, name))
        }
        TruthFormat::ParseBench => match part(crate::formats::parsebench::EXPECTED_MARKDOWN) {
            Some(b) => {
                let mut doc = parsebench_doc(b);
                if let (Ok(d), Some(rules)) = (doc.as_mut(), part("layout")) {
                    match page_sizes(store, g.document, pdfium)? {
                        Ok(sizes) => parsebench_layout(d, rules, sizes),
                        Err(e) => return Ok(Err(format!("reading the PDF's page sizes: {e}"))),
                    }
                }
                doc.map(Rendered::one)
            }
            None => Err("no expected Markdown (ParseBench gives it for some documents only; \
                         its rules alone do not make a document)"
                .into()),
        },
        // Returned above.
        TruthFormat::PeerRead
        | TruthFormat::GrobidTei
        | TruthFormat::S2orc
        | TruthFormat::Jats
        | TruthFormat::Docling => {
            Err(format!("{} is rendered as a paper or a Docling document", g.format.as_str()))
        }
    })
}

/// The PDF's page sizes, pdfium bound once per call of [`materialize`].
fn page_sizes(
    store: &Store,
    document: i64,
    pdfium: &mut Option<std::result::Result<super::pdfium::Pdfium, String>>,
) -> Result<std::result::Result<Vec<Page>, String>> {
    let Some(hash) = store.document_hash(document)? else {
        return Ok(Err("the document is missing from the store".into()));
    };
    let Some(bytes) = store.blob(&hash)? else {
        return Ok(Err("the PDF is missing from the store".into()));
    };
    let bound = pdfium.get_or_insert_with(|| super::pdfium::bind().map_err(|e| e.to_string()));
    Ok(match bound {
        Ok(p) => super::pdfium::page_sizes(p, &bytes).map_err(|e| e.to_string()),
        Err(e) => Err(e.clone()),
    })
}

// ---------------------------------------------------------------------------------------------
// pdf-parse-bench and latex-tables

/// A pdf-parse-bench truth (either folder) or a latex-tables truth as a Doc: its Markdown
/// ([`pdf_parse_bench::to_markdown`], formulas with their delimiters) kept as the Doc's, and
/// one block per paragraph, display formula and table in the truth's order, the table blocks
/// carrying the GT tables the table suite reads for the format.
pub(crate) fn pdf_parse_bench_doc(
    bytes: &[u8],
    format: TruthFormat,
) -> std::result::Result<Doc, String> {
    let tables: Vec<GtTable> = match format {
        TruthFormat::LatexTables => pdf_parse_bench::read_truth(bytes).map_err(|e| e.to_string()),
        TruthFormat::PdfParseBench => {
            pdf_parse_bench::read_tables(bytes).map_err(|e| e.to_string())
        }
        other @ (TruthFormat::PeerRead
        | TruthFormat::GrobidTei
        | TruthFormat::S2orc
        | TruthFormat::Jats
        | TruthFormat::Docling
        | TruthFormat::OmniDocBench
        | TruthFormat::OlmocrBench
        | TruthFormat::Icdar2013
        | TruthFormat::ParseBench
        | TruthFormat::LabelStudio
        | TruthFormat::Coco) => Err(format!("{} is not a pdf-parse-bench truth", other.as_str())),
    }?;
    // A latex-tables truth is read for its tables only: items of other types are left out.
    let items = match pdf_parse_bench::read_items(bytes) {
        Ok(items) => items,
        Err(_) if format == TruthFormat::LatexTables => {
            tables.iter().cloned().map(TruthItem::Table).collect()
        }
        Err(e) => return Err(e.to_string()),
    };
    let mut blocks = Vec::new();
    let mut para = String::new();
    let flush = |para: &mut String, blocks: &mut Vec<Block>| {
        if !para.trim().is_empty() {
            blocks.push(Block::new(BlockKind::Paragraph, 0, BBox::default(), para.as_str()));
        }
        para.clear();
    };
    let mut gt = tables.iter();
    for it in &items {
        match it {
            TruthItem::Text(t) => push_words(&mut para, t),
            TruthItem::Formula(f) if f.kind == FormulaKind::Inline => {
                push_words(&mut para, &f.source)
            }
            TruthItem::Formula(f) => {
                flush(&mut para, &mut blocks);
                let src = f.source.trim();
                let mut b = Block::new(BlockKind::Formula, 0, BBox::default(), src);
                b.latex = Some(src.trim_matches('$').trim().to_string());
                blocks.push(b);
            }
            TruthItem::Table(_) => {
                flush(&mut para, &mut blocks);
                let Some(t) = gt.next() else {
                    return Err("the truth's items hold more tables than its reader gives".into());
                };
                blocks.push(table_block(0, BBox::default(), Some(&t.table)));
            }
        }
    }
    flush(&mut para, &mut blocks);
    if gt.next().is_some() {
        return Err("the truth's reader gives more tables than its items hold".into());
    }
    let markdown = Some(pdf_parse_bench::to_markdown(&items));
    Ok(Doc { pages: Vec::new(), blocks, markdown, meta: None })
}

/// Appends trimmed text to a paragraph, a space between (as `to_markdown` joins them).
fn push_words(para: &mut String, t: &str) {
    if !para.is_empty() {
        para.push(' ');
    }
    para.push_str(t.trim());
}

/// A table block carrying `table` (its text the cells flattened), or an empty one.
fn table_block(page: u32, bbox: BBox, table: Option<&Table>) -> Block {
    let text = table.map(Table::flat_text).unwrap_or_default();
    let mut b = Block::new(BlockKind::Table, page, bbox, text);
    b.table = table.cloned();
    b
}

// ---------------------------------------------------------------------------------------------
// ICDAR 2013

/// An ICDAR 2013 truth as a Doc on pages of the given sizes (points): one table block per
/// region of the region file, in its order, the region's box turned into the Doc's frame with
/// its page's height; the first region of each table carries the table's cells from the
/// structure file (the `n`-th `<table>` of one file is the `n`-th of the other; a table of the
/// region file beyond the structure file's has no cells). Fails when the structure file has
/// more tables than the region file: such a table has no place on a page.
pub(crate) fn icdar2013_doc(
    reg: &[u8],
    st: &[u8],
    sizes: &[Page],
) -> std::result::Result<Doc, String> {
    let truth = crate::formats::icdar2013::read_truth(reg, st).map_err(|e| e.to_string())?;
    let reg_text = std::str::from_utf8(reg).map_err(|e| format!("reg: {e}"))?;
    let xml = roxmltree::Document::parse(reg_text).map_err(|e| format!("reg: {e}"))?;
    let element =
        |n: &roxmltree::Node<'_, '_>, tag: &str| n.is_element() && n.tag_name().name() == tag;
    let per_table: Vec<usize> = xml
        .root_element()
        .children()
        .filter(|t| element(t, "table"))
        .map(|t| t.children().filter(|r| element(r, "region")).count())
        .collect();
    if truth.tables.len() > per_table.len() {
        return Err(format!(
            "the structure file has {} tables and the region file {}: a table without a region \
             has no place on a page",
            truth.tables.len(),
            per_table.len()
        ));
    }
    let mut blocks = Vec::new();
    let mut regions = truth.regions.iter();
    let mut tables = truth.tables.iter();
    for n in per_table {
        let table = tables.next();
        for k in 0..n {
            let r = regions.next().ok_or("fewer regions than the region file's tables hold")?;
            let Some(size) = sizes.get(r.page as usize) else {
                return Err(format!(
                    "a region is on page {} of a PDF of {} pages",
                    r.page + 1,
                    sizes.len()
                ));
            };
            let [x0, y0, x1, y1] = r.to_top_left(f64::from(size.height));
            let bbox = BBox::new(x0 as f32, y0 as f32, x1 as f32, y1 as f32);
            blocks.push(table_block(r.page, bbox, table.filter(|_| k == 0)));
        }
    }
    Ok(Doc { pages: sizes.to_vec(), blocks, markdown: None, meta: None })
}

// ---------------------------------------------------------------------------------------------
// OmniDocBench

/// The block kind of an OmniDocBench category; `None` for blocks that are not content
/// (`abandon`, the masks).
fn odb_kind(category: &str) -> Option<BlockKind> {
    Some(match category {
        "title" => BlockKind::Heading,
        "text_block" => BlockKind::Paragraph,
        "equation_isolated" => BlockKind::Formula,
        "table" => BlockKind::Table,
        "figure" => BlockKind::Figure,
        "header" => BlockKind::PageHeader,
        "footer" | "page_number" => BlockKind::PageFooter,
        "page_footnote" | "figure_footnote" | "table_footnote" => BlockKind::Footnote,
        "code_txt" | "code_algorithm" => BlockKind::Code,
        "reference" => BlockKind::Reference,
        c if c.ends_with("_caption") => BlockKind::Caption,
        c if c == "abandon" || c.ends_with("_mask") => return None,
        _ => BlockKind::Paragraph,
    })
}

/// A display formula as Markdown the omnidoc suite reads back as the truth's LaTeX: `$$…$$`
/// (its `latex` as given, else wrapped so). The suite joins a `$$…$$` formula to one line while
/// the truth's keeps its line breaks, so a formula written over several lines goes between
/// single `$` on lines of their own, a paragraph the suite takes whole, line breaks kept
/// (`docs/omnidocbench.md` §2, step 7).
fn odb_formula(latex: &str) -> String {
    let inner = latex.trim().trim_matches('$').trim();
    if inner.contains('\n') {
        let lines: Vec<&str> = inner.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        format!("$\n{}\n$", lines.join("\n"))
    } else if latex.trim().starts_with("$$") && latex.trim().ends_with("$$") {
        latex.trim().to_string()
    } else {
        format!("$$\n{inner}\n$$")
    }
}

/// One page of an OmniDocBench truth as a Doc (see the module docs): blocks from its
/// `layout_dets` in `order`, and the Markdown the omnidoc suite reads. Fails on a table
/// without HTML (the suite scores a LaTeX table as missed).
pub(crate) fn omnidoc_doc(bytes: &[u8]) -> std::result::Result<Doc, String> {
    let page = odb::read_page(bytes).map_err(|e| e.to_string())?;
    let order = |d: &LayoutDet| d.order.unwrap_or(0.0);
    // Blocks: every content block, in order (blocks without one last).
    let mut dets: Vec<&LayoutDet> = page.layout_dets.iter().collect();
    dets.sort_by(|a, b| {
        (a.order.is_none(), order(a))
            .partial_cmp(&(b.order.is_none(), order(b)))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut blocks = Vec::new();
    for d in &dets {
        // `abandon` blocks are no content but are boxes the detection suite scores.
        let kind = match odb_kind(&d.category_type) {
            Some(k) => k,
            None if d.category_type == "abandon" => BlockKind::PageHeader,
            None => continue,
        };
        let bbox = poly_box(&d.poly);
        let mut b = Block::new(kind, 0, bbox, d.text.as_deref().unwrap_or("").trim());
        match kind {
            BlockKind::Heading => b.level = Some(1),
            BlockKind::Formula => {
                let src = d.latex.as_deref().unwrap_or("");
                b.text = src.trim().to_string();
                b.latex = Some(src.trim().trim_matches('$').trim().to_string());
            }
            BlockKind::Table => {
                let t = d
                    .html
                    .as_deref()
                    .and_then(|h| crate::formats::html::tables(h).into_iter().next());
                b = table_block(0, bbox, t.as_ref());
            }
            _ => {}
        }
        b.label = Some(format!("omnidocbench:{}", d.category_type));
        blocks.push(b);
    }
    // Markdown: the suite's elements (truncated chains joined), in order.
    let mut elements: Vec<(Option<f64>, String)> = Vec::new();
    let chains = truncated_chains(&page);
    let in_chain: std::collections::HashSet<i64> = chains.iter().flatten().copied().collect();
    let scored = |c: &str| {
        crate::formats::omnidocbench::TEXT_CATEGORIES.contains(&c)
            || c == "equation_isolated"
            || c == "table"
    };
    for (i, d) in page.layout_dets.iter().enumerate() {
        if d.anno_id.is_some_and(|id| in_chain.contains(&id)) || !scored(&d.category_type) {
            continue;
        }
        let md = match d.category_type.as_str() {
            "equation_isolated" => odb_formula(d.latex.as_deref().unwrap_or("")),
            "table" => match d.html.as_deref().filter(|h| h.contains("<table")) {
                Some(h) => h.trim().to_string(),
                None => {
                    return Err(format!(
                        "table {i} has no HTML (the omnidoc suite counts a LaTeX table as missed)"
                    ))
                }
            },
            "title" => format!("# {}", d.text.as_deref().unwrap_or("").trim()),
            _ => d.text.as_deref().unwrap_or("").trim().to_string(),
        };
        elements.push((d.order, md));
    }
    let by_id: HashMap<i64, &LayoutDet> =
        page.layout_dets.iter().filter_map(|d| Some((d.anno_id?, d))).collect();
    for chain in &chains {
        let mut members: Vec<&LayoutDet> =
            chain.iter().filter_map(|id| by_id.get(id).copied()).collect();
        members.sort_by(|a, b| {
            a.order.unwrap_or(f64::NEG_INFINITY).total_cmp(&b.order.unwrap_or(f64::NEG_INFINITY))
        });
        let Some(first) = members.first() else { continue };
        if !scored(&first.category_type) {
            continue;
        }
        let text: String = members.iter().map(|b| b.text.as_deref().unwrap_or("")).collect();
        let text = if first.category_type == "title" {
            format!("# {}", text.trim())
        } else {
            text.trim().to_string()
        };
        elements.push((first.order, text));
    }
    elements.sort_by(|a, b| {
        let k = |o: Option<f64>| (o.is_none(), o.unwrap_or(0.0));
        k(a.0).partial_cmp(&k(b.0)).unwrap_or(std::cmp::Ordering::Equal)
    });
    let parts: Vec<String> =
        elements.into_iter().map(|(_, m)| m).filter(|m| !m.trim().is_empty()).collect();
    let mut markdown = parts.join("\n\n");
    markdown.push('\n');
    let pages = match (page.page_info.width, page.page_info.height) {
        (Some(w), Some(h)) => vec![Page { width: w as f32, height: h as f32 }],
        _ => Vec::new(),
    };
    Ok(Doc { pages, blocks, markdown: Some(markdown), meta: None })
}

/// The page truths of a stored document (OmniDocBench pages with `corpus_source`, or Label
/// Studio tasks, one part per page) as one Doc of the document's pages: each page's blocks on
/// that page, their boxes turned from the page image's pixels into points (`72 / dpi`), and a
/// Markdown of every page joined by form feeds, a page's part the truth's own Markdown (empty
/// for pages without a truth), which the omnidoc suite takes page by page.
pub(crate) fn page_truths_doc(
    format: TruthFormat,
    parts: &[(String, Vec<u8>)],
    sizes: Vec<Page>,
) -> std::result::Result<Doc, String> {
    let mut pages_md = vec![String::new(); sizes.len()];
    let mut blocks = Vec::new();
    for (part, bytes) in parts {
        let page = match format {
            TruthFormat::LabelStudio => {
                crate::formats::label_studio::read_page(bytes).map_err(|e| e.to_string())
            }
            TruthFormat::OmniDocBench => odb::read_page(bytes).map_err(|e| e.to_string()),
            other @ (TruthFormat::PeerRead
            | TruthFormat::GrobidTei
            | TruthFormat::S2orc
            | TruthFormat::Jats
            | TruthFormat::Docling
            | TruthFormat::OlmocrBench
            | TruthFormat::LatexTables
            | TruthFormat::PdfParseBench
            | TruthFormat::Icdar2013
            | TruthFormat::ParseBench
            | TruthFormat::Coco) => Err(format!("{} has no page truths", other.as_str())),
        }
        .map_err(|e| format!("part {part}: {e}"))?;
        let Some(src) = page.page_info.corpus_source.clone() else {
            return Err(format!("part {part}: a page truth without corpus_source"));
        };
        let index = src.page.checked_sub(1).filter(|i| (*i as usize) < sizes.len());
        let Some(index) = index else {
            return Err(format!("part {part}: page {} is not in the document", src.page));
        };
        // Rendered as the page's own truth, then placed on its page.
        let json = serde_json::to_vec(&page_value(&page)).map_err(|e| e.to_string())?;
        let doc = omnidoc_doc(&json).map_err(|e| format!("part {part}: {e}"))?;
        let k = (72.0 / src.dpi) as f32;
        for mut b in doc.blocks {
            b.page = index;
            b.bbox = BBox::new(b.bbox.x0 * k, b.bbox.y0 * k, b.bbox.x1 * k, b.bbox.y1 * k);
            blocks.push(b);
        }
        pages_md[index as usize] = doc.markdown.unwrap_or_default();
    }
    blocks.sort_by_key(|b| b.page);
    Ok(Doc { pages: sizes, blocks, markdown: Some(pages_md.join("\u{c}")), meta: None })
}

/// A page read back into OmniDocBench's JSON (what [`omnidoc_doc`] reads).
fn page_value(page: &odb::Page) -> serde_json::Value {
    let dets: Vec<serde_json::Value> = page
        .layout_dets
        .iter()
        .map(|d| {
            json!({"category_type": d.category_type, "poly": d.poly, "order": d.order,
                "text": d.text, "latex": d.latex, "html": d.html, "ignore": d.ignore,
                "anno_id": d.anno_id})
        })
        .collect();
    let rel: Vec<serde_json::Value> = page
        .extra
        .relation
        .iter()
        .map(|r| {
            json!({"source_anno_id": r.source_anno_id, "target_anno_id": r.target_anno_id,
            "relation_type": r.relation_type})
        })
        .collect();
    json!({"layout_dets": dets, "extra": {"relation": rel},
        "page_info": {"image_path": page.page_info.image_path, "width": page.page_info.width,
            "height": page.page_info.height}})
}

/// The smallest box holding a polygon `[x1, y1, …]` (a default box without points).
fn poly_box(poly: &[f64]) -> BBox {
    let xs = poly.iter().step_by(2);
    let ys = poly.iter().skip(1).step_by(2);
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| (a.min(y), b.max(y)));
    if x0.is_finite() && y0.is_finite() {
        BBox::new(x0 as f32, y0 as f32, x1 as f32, y1 as f32)
    } else {
        BBox::default()
    }
}

/// The `anno_id`s that `truncated` relations join, one list per chain, grouped as the suite's
/// `get_page_elements` groups them.
fn truncated_chains(page: &odb::Page) -> Vec<Vec<i64>> {
    let mut groups: Vec<Vec<i64>> = Vec::new();
    for r in page.extra.relation.iter().filter(|r| r.relation_type == "truncated") {
        let mut found = false;
        for g in groups.iter_mut() {
            if g.contains(&r.source_anno_id) || g.contains(&r.target_anno_id) {
                g.push(r.source_anno_id);
                g.push(r.target_anno_id);
                found = true;
            }
        }
        if !found {
            groups.push(vec![r.source_anno_id, r.target_anno_id]);
        }
    }
    groups
}

#[cfg(test)]
mod tests;
