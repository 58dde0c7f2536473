//! `corpus agree`: how far the providers agree with each other on the documents in scope,
//! page by page, with no truth (rules in `docs/agree.md`).
//!
//! Every provider's newest usable output of each document (as `eval` picks it:
//! [`Store::latest_output`]) is read once and cut into pages; each page becomes a
//! [`PageView`] normalised with the omnidoc suite's functions (`normalize_text` for text
//! blocks, `normalized_formula` for display formulas). Then every pair of providers with an
//! output of the document is compared on every page ([`crate::metrics::agree::compare`]), on
//! as many threads as the machine has cores. The results are the per-measure provider ×
//! provider matrices (the mean over the pages where the measure is defined), each provider's
//! mean agreement with the others, and the pages ranked by spread ([`most_disagreed_pages`]).

pub mod render;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use serde::Serialize;

use crate::doc::{BlockKind, Doc};
use crate::error::{Error, Result};
use crate::metrics::agree::{self, Agreement, Measure, PageView};
use crate::progress::Progress;
use crate::store::{DocumentRow, OutputRow, Store};
use crate::suites::omnidoc::normalize::{normalize_text, normalized_formula};

/// What to compare.
#[derive(Debug, Clone, Default)]
pub struct AgreeOptions<'a> {
    /// Only documents named in this dataset.
    pub dataset: Option<&'a str>,
    /// Only these providers (empty: every provider with outputs).
    pub providers: &'a [String],
    /// Worker threads (0: as many as the machine has cores).
    pub threads: usize,
}

/// A provider compared.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProviderInfo {
    /// Provider id.
    pub provider: String,
    /// The provider versions of the outputs read (usually one).
    pub versions: Vec<String>,
    /// Documents with a usable output.
    pub documents: usize,
    /// Documents whose newest output is a failure or cannot be read (left out).
    pub unusable: usize,
}

impl ProviderInfo {
    /// `pdfium@2` (versions joined by `+` when the outputs come from several).
    pub fn label(&self) -> String {
        if self.versions.is_empty() {
            return self.provider.clone();
        }
        format!("{}@{}", self.provider, self.versions.join("+"))
    }
}

/// One measure's matrix cell: the mean over the pages where it is defined, and their count.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Cell {
    /// The mean, `None` when no page has the measure defined.
    pub mean: Option<f64>,
    /// Pages it is defined on.
    pub pages: usize,
}

/// One provider pair on one page.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PairOnPage {
    /// Index of the first provider in [`AgreeReport::providers`].
    pub a: usize,
    /// Index of the second (`a < b`).
    pub b: usize,
    /// The measures.
    pub agreement: Agreement,
}

/// One page compared.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PageResult {
    /// Document id in the store.
    pub document_id: i64,
    /// The document's name (its first name in the dataset).
    pub document: String,
    /// Its dataset.
    pub dataset: String,
    /// The PDF's blake3 hash.
    pub hash: String,
    /// Zero-based page.
    pub page: u32,
    /// The providers with an output of the document (indices).
    pub providers: Vec<usize>,
    /// Every pair of them.
    pub pairs: Vec<PairOnPage>,
    /// `1 − mean pairwise text agreement`, `None` when no pair has text.
    pub spread: Option<f64>,
}

impl PageResult {
    /// The pair with the lowest text agreement (first such pair in order).
    pub fn least_agreeing(&self) -> Option<&PairOnPage> {
        self.pairs.iter().filter(|p| p.agreement.text.is_some()).min_by(|x, y| {
            x.agreement.text.unwrap_or(1.0).total_cmp(&y.agreement.text.unwrap_or(1.0))
        })
    }
}

/// Everything `corpus agree` found.
#[derive(Debug, Clone, Serialize)]
pub struct AgreeReport {
    /// The dataset, if one was chosen.
    pub dataset: Option<String>,
    /// The providers compared, in name order.
    pub providers: Vec<ProviderInfo>,
    /// Documents in scope.
    pub documents: usize,
    /// Of those, documents with outputs of at least two providers (the others are not
    /// compared).
    pub compared_documents: usize,
    /// Per measure (in [`Measure::ALL`] order): the provider × provider matrix (symmetric;
    /// the diagonal is empty).
    pub matrices: Vec<(Measure, Vec<Vec<Cell>>)>,
    /// Per measure: each provider's mean of its row (the other providers' cells that are
    /// defined).
    pub provider_means: Vec<(Measure, Vec<Option<f64>>)>,
    /// Every page compared, ranked: largest spread first (pages with no spread last), ties by
    /// document name and page.
    pub pages: Vec<PageResult>,
}

impl AgreeReport {
    /// The pages with a spread, most disagreed first.
    pub fn ranked(&self) -> impl Iterator<Item = &PageResult> {
        self.pages.iter().filter(|p| p.spread.is_some())
    }

    /// One measure's matrix.
    pub fn matrix(&self, m: Measure) -> &[Vec<Cell>] {
        self.matrices.iter().find(|(x, _)| *x == m).map_or(&[], |(_, v)| v.as_slice())
    }

    /// One measure's provider means.
    pub fn means(&self, m: Measure) -> &[Option<f64>] {
        self.provider_means.iter().find(|(x, _)| *x == m).map_or(&[], |(_, v)| v.as_slice())
    }
}

/// A page chosen for annotation: the ranking [`most_disagreed_pages`] returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DisagreedPage {
    /// Document id in the store.
    pub document_id: i64,
    /// The document's name.
    pub document: String,
    /// Its dataset.
    pub dataset: String,
    /// Zero-based page.
    pub page: u32,
    /// `1 − mean pairwise text agreement` on the page.
    pub spread: f64,
}

/// The pages of the documents in scope ranked by disagreement, most disagreed first (what
/// `truth draft --most-disagreed` annotates first). Pages where no two providers have text
/// are left out. Errors as [`fn@agree`] does: fewer than two providers, or no document.
pub fn most_disagreed_pages(
    store: &Store,
    opts: &AgreeOptions<'_>,
    progress: &dyn Progress,
) -> Result<Vec<DisagreedPage>> {
    let report = agree(store, opts, progress)?;
    Ok(report
        .ranked()
        .map(|p| DisagreedPage {
            document_id: p.document_id,
            document: p.document.clone(),
            dataset: p.dataset.clone(),
            page: p.page,
            spread: p.spread.unwrap_or(0.0),
        })
        .collect())
}

/// Whether a block's text is page text for the text and order measures: tables and display
/// formulas are measured apart; pictures, running headers and footers are left out, as
/// OmniDocBench leaves them out of its text.
fn is_text(kind: BlockKind) -> bool {
    match kind {
        BlockKind::Title
        | BlockKind::Heading
        | BlockKind::Paragraph
        | BlockKind::ListItem
        | BlockKind::Caption
        | BlockKind::Footnote
        | BlockKind::Reference
        | BlockKind::Code => true,
        BlockKind::Table | BlockKind::Formula | BlockKind::Figure => false,
        BlockKind::PageHeader | BlockKind::PageFooter => false,
    }
}

/// A Doc cut into pages: `views[p]` for `p < pages` (blocks on later pages are dropped).
pub fn page_views(doc: &Doc, pages: u32) -> Vec<PageView> {
    let mut views = vec![PageView::default(); pages as usize];
    for b in &doc.blocks {
        let Some(v) = views.get_mut(b.page as usize) else { continue };
        match b.kind {
            BlockKind::Table => {
                if let Some(t) = b.table.as_ref().filter(|t| !t.cells.is_empty()) {
                    v.tables.push(t.clone());
                }
            }
            BlockKind::Formula => {
                let f: Vec<char> =
                    normalized_formula(b.latex.as_deref().unwrap_or(&b.text)).chars().collect();
                if !f.is_empty() {
                    v.formulas.push(f);
                }
            }
            k if is_text(k) => {
                let t: Vec<char> = normalize_text(&b.text).chars().collect();
                if !t.is_empty() {
                    v.blocks.push(t);
                }
            }
            _ => {}
        }
    }
    views
}

/// One document's readings: per provider index, its page views.
struct DocViews {
    row: DocumentRow,
    pages: u32,
    views: Vec<(usize, Vec<PageView>)>,
}

/// The providers to compare: those named (each must have outputs), or every provider with
/// outputs, in name order.
fn providers_in_scope(store: &Store, opts: &AgreeOptions<'_>) -> Result<Vec<String>> {
    let stored: BTreeSet<String> =
        store.provider_counts()?.into_iter().filter(|c| c.ok > 0).map(|c| c.provider).collect();
    if opts.providers.is_empty() {
        return Ok(stored.into_iter().collect());
    }
    let mut out = BTreeSet::new();
    for p in opts.providers {
        if !stored.contains(p) {
            return Err(Error::Usage(format!(
                "agree: provider {p:?} has no outputs in the store; run `corpus ocr --provider {p}` first"
            )));
        }
        out.insert(p.clone());
    }
    Ok(out.into_iter().collect())
}

/// A provider's newest output of a document as a Doc, or why there is none to use.
pub fn read_doc(
    store: &Store,
    document: i64,
    provider: &str,
) -> Result<std::result::Result<Doc, String>> {
    let Some(o) = store.latest_output(document, provider)? else {
        return Ok(Err(format!("no output of {provider}")));
    };
    output_doc(store, &o, provider)
}

/// An output as a Doc, or why it cannot be used (a failure, a missing blob, unreadable JSON).
fn output_doc(
    store: &Store,
    o: &OutputRow,
    provider: &str,
) -> Result<std::result::Result<Doc, String>> {
    if o.status != "ok" {
        return Ok(Err(format!("{provider} failed: {}", o.error.as_deref().unwrap_or_default())));
    }
    let Some(json) = o.blob.as_deref().map(|b| store.blob(b)).transpose()?.flatten() else {
        return Ok(Err(format!("the output of {provider} is missing from the store")));
    };
    Ok(serde_json::from_slice::<Doc>(&json)
        .map_err(|e| format!("the output of {provider} is unreadable: {e}")))
}

/// Reads every provider's newest output of each document in scope.
fn read_outputs(
    store: &Store,
    names: &[String],
    docs: Vec<DocumentRow>,
) -> Result<(Vec<ProviderInfo>, Vec<DocViews>)> {
    let mut infos: Vec<ProviderInfo> = names
        .iter()
        .map(|p| ProviderInfo { provider: p.clone(), versions: vec![], documents: 0, unusable: 0 })
        .collect();
    let mut versions: Vec<BTreeSet<String>> = vec![BTreeSet::new(); names.len()];
    let mut out = Vec::new();
    for row in docs {
        let mut docs_read = Vec::new();
        for (i, p) in names.iter().enumerate() {
            let Some(o) = store.latest_output(row.id, p)? else { continue };
            // Any reason not to use it (a store read error included) only counts it unusable.
            match output_doc(store, &o, p) {
                Ok(Ok(d)) => {
                    versions[i].insert(o.provider_version.clone());
                    infos[i].documents += 1;
                    docs_read.push((i, d));
                }
                Ok(Err(_)) | Err(_) => infos[i].unusable += 1,
            }
        }
        let last_block = docs_read
            .iter()
            .flat_map(|(_, d)| d.blocks.iter().map(|b| b.page + 1))
            .max()
            .unwrap_or(0);
        let pages = row.pages.max(last_block);
        let views = docs_read.into_iter().map(|(i, d)| (i, page_views(&d, pages))).collect();
        out.push(DocViews { row, pages, views });
    }
    for (info, v) in infos.iter_mut().zip(versions) {
        info.versions = v.into_iter().collect();
    }
    Ok((infos, out))
}

/// Compares every pair of providers of one document on one page.
fn compare_page(d: &DocViews, page: u32) -> PageResult {
    let mut pairs = Vec::new();
    for (x, (a, va)) in d.views.iter().enumerate() {
        for (b, vb) in &d.views[x + 1..] {
            let agreement = agree::compare(&va[page as usize], &vb[page as usize]);
            pairs.push(PairOnPage { a: *a, b: *b, agreement });
        }
    }
    let spread = agree::spread(pairs.iter().map(|p| p.agreement.text));
    PageResult {
        document_id: d.row.id,
        document: d.row.name.clone(),
        dataset: d.row.dataset.clone(),
        hash: d.row.hash.clone(),
        page,
        providers: d.views.iter().map(|(i, _)| *i).collect(),
        pairs,
        spread,
    }
}

/// Compares all pages on `threads` threads; progress is advanced per page on this thread.
fn compare_all(docs: &[DocViews], threads: usize, progress: &dyn Progress) -> Vec<PageResult> {
    let jobs: Vec<(usize, u32)> =
        docs.iter().enumerate().flat_map(|(i, d)| (0..d.pages).map(move |p| (i, p))).collect();
    progress.start(jobs.len() as u64);
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<PageResult>> = vec![None; jobs.len()];
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, PageResult)>();
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, jobs) = (&next, &jobs);
            scope.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, p)) = jobs.get(k) else { break };
                if tx.send((k, compare_page(&docs[i], p))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (k, r) in rx {
            progress.advance(&format!("{} p{}", r.document, r.page + 1), true);
            results[k] = Some(r);
        }
    });
    progress.finish();
    results.into_iter().flatten().collect()
}

/// Per measure, a provider × provider matrix.
type Matrices = Vec<(Measure, Vec<Vec<Cell>>)>;
/// Per measure, each provider's mean agreement with the others.
type Means = Vec<(Measure, Vec<Option<f64>>)>;

/// The matrices and the provider means of the pages compared.
fn matrices(n: usize, pages: &[PageResult]) -> (Matrices, Means) {
    let mut mats = Vec::new();
    let mut means = Vec::new();
    for m in Measure::ALL {
        let mut sums = vec![vec![(0.0f64, 0usize); n]; n];
        for p in pages {
            for pair in &p.pairs {
                if let Some(v) = pair.agreement.get(m) {
                    for (x, y) in [(pair.a, pair.b), (pair.b, pair.a)] {
                        sums[x][y].0 += v;
                        sums[x][y].1 += 1;
                    }
                }
            }
        }
        let mat: Vec<Vec<Cell>> = sums
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&(s, k)| Cell { mean: (k > 0).then(|| s / k as f64), pages: k })
                    .collect()
            })
            .collect();
        let row_means = mat
            .iter()
            .enumerate()
            .map(|(i, row)| {
                agree::mean_defined(
                    row.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, c)| c.mean),
                )
                .0
            })
            .collect();
        mats.push((m, mat));
        means.push((m, row_means));
    }
    (mats, means)
}

/// Compares the providers on the documents in scope. Nothing to compare (no document, fewer
/// than two providers with outputs, or no document that two of them read) is an error that
/// says which.
pub fn agree(
    store: &Store,
    opts: &AgreeOptions<'_>,
    progress: &dyn Progress,
) -> Result<AgreeReport> {
    let names = providers_in_scope(store, opts)?;
    if names.len() < 2 {
        return Err(Error::Usage(format!(
            "agree: nothing to compare: {} with outputs in the store ({}); run `corpus ocr` with at least two providers",
            match names.len() {
                0 => "no provider".to_string(),
                _ => "only one provider".to_string(),
            },
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        )));
    }
    let docs = store.documents(opts.dataset)?;
    if docs.is_empty() {
        return Err(Error::Usage(match opts.dataset {
            Some(d) => format!("agree: nothing to compare: no document in dataset {d:?}"),
            None => "agree: nothing to compare: the store has no document".into(),
        }));
    }
    let n_docs = docs.len();
    let (providers, mut views) = read_outputs(store, &names, docs)?;
    views.retain(|d| d.views.len() >= 2);
    if views.is_empty() {
        return Err(Error::Usage(format!(
            "agree: nothing to compare: none of the {n_docs} documents has outputs of two providers ({})",
            names.join(", ")
        )));
    }
    let threads = match opts.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    };
    let mut pages = compare_all(&views, threads, progress);
    let (matrices, provider_means) = matrices(providers.len(), &pages);
    rank(&mut pages);
    Ok(AgreeReport {
        dataset: opts.dataset.map(str::to_string),
        providers,
        documents: n_docs,
        compared_documents: views.len(),
        matrices,
        provider_means,
        pages,
    })
}

/// Orders pages by [`agree::cmp_disagreement`], then by document id.
fn rank(pages: &mut [PageResult]) {
    pages.sort_by(|x, y| {
        agree::cmp_disagreement((x.spread, &x.document, x.page), (y.spread, &y.document, y.page))
            .then(x.document_id.cmp(&y.document_id))
    });
}
