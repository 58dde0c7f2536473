//! `corpus report --format html`: a static site, one index per suite and one page per
//! document, that opens from disk with no server and loads nothing from anywhere
//! (`docs/html-report.md` has what is drawn, the colours, the escaping and CSP rules and the
//! image cache).
//!
//! The numbers come from the same frames as the text report ([`super::summary`],
//! [`super::compare`], [`super::history`] over the caller's [`ScoreColumns`]), so a
//! leaderboard cell is the value `report --by provider --format json` prints. Document pages
//! are written one at a time as the documents are visited (a document's outputs are read,
//! drawn and dropped before the next), each file through a temporary name, the index last.

pub mod agree;
pub mod audit;
pub mod board;
pub mod cells;
mod detection;
pub mod escape;
pub mod images;
mod index;
pub mod robustness;
pub mod style;
pub mod svg;
pub mod trace;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use polars::prelude::*;

pub use self::board::{headline_columns, headline_metrics};
use self::escape::{esc, num};
use self::images::{ImageCounts, PageImage, PageImages};
use self::index::index_page;
use super::{By, Selector};
use crate::doc::{BlockKind, Doc};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::store::{ScoreColumns, ScoreFilter, Store};
use crate::suites::Suite;

/// What to write and where.
#[derive(Debug, Clone)]
pub struct SiteOptions {
    /// The suite reported.
    pub suite: String,
    /// The site's folder (created if absent).
    pub out: PathBuf,
    /// `--compare A B`.
    pub compare: Option<(Selector, Selector)>,
    /// With `compare`, at most this many regressions and as many wins are listed.
    pub limit: usize,
    /// The page-image cache folder; `None` draws the boxes on blank pages.
    pub image_cache: Option<PathBuf>,
    /// Page images' width in pixels.
    pub image_width: u32,
    /// At most this many pages of a document are drawn.
    pub max_pages: u32,
    /// The store's path, shown in the header.
    pub store_label: String,
    /// The agreement page's file, when the site has one (linked from the index).
    pub agreement: Option<String>,
}

/// A failing olmOCR test, for the index's "Failing tests".
#[derive(Debug, Clone)]
struct FailingTest {
    provider: String,
    group: String,
    id: String,
    href: String,
    document: String,
    explanation: String,
    best: Option<(String, f64, String)>,
}

/// At most this many failing tests are listed on the index (the rest are counted).
const MAX_FAILING: usize = 5000;

/// What [`write_site`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteSummary {
    /// Document pages written.
    pub documents: u64,
    /// Page figures drawn (one per page and provider).
    pub figures: u64,
    /// The image cache's counts.
    pub images: ImageCounts,
    /// Documents whose page could not be written completely (each is named on the page and
    /// passed to the progress as not ok).
    pub incomplete: u64,
}

pub(super) fn pe(e: PolarsError) -> Error {
    Error::Usage(format!("report: {e}"))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// Writes `text` to `path` through a temporary file in the same folder, renamed into place.
fn write_file(path: &Path, text: &str) -> Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))?;
    Ok(())
}

/// The head of every page: charset, CSP, title, stylesheet.
fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{}</style></head><body>",
        style::CSP,
        esc(title),
        style::css()
    )
}

/// A provider version's label as the report prints it (`pdfium@2`) with its short model.
fn label(provider: &str, version: &str) -> String {
    format!("{provider}@{version}")
}

fn short_model(m: &str) -> &str {
    m.get(..12).unwrap_or(m)
}

/// The file a document's page is written to, relative to the site's root.
pub fn doc_href(pdf_hash: &str) -> String {
    format!("doc/{}.html", &pdf_hash[..pdf_hash.len().min(24)])
}

/// One cell of a frame: its text and, for numbers, the value.
fn cell(c: &Column, i: usize) -> (String, Option<f64>) {
    match c.get(i) {
        Ok(AnyValue::Null) | Err(_) => ("–".into(), None),
        Ok(AnyValue::Float64(v)) => (num(Some(v)), Some(v)),
        Ok(AnyValue::Float32(v)) => (num(Some(v as f64)), Some(v as f64)),
        Ok(AnyValue::String(s)) => (s.to_string(), None),
        Ok(AnyValue::StringOwned(s)) => (s.to_string(), None),
        Ok(v) => match v.extract::<i64>() {
            Some(n) => (n.to_string(), None),
            None => (v.to_string(), None),
        },
    }
}

fn str_at(df: &DataFrame, name: &str, i: usize) -> String {
    df.column(name).map(|c| cell(c, i).0).unwrap_or_default()
}

/// Renders a frame as an HTML table. Numeric cells carry `data-metric`, `data-value` (the
/// full value) and the row's `data-provider` / `data-model` where the frame has them; the
/// `document` column links to the document's page through `links`.
fn frame_table(
    df: &DataFrame,
    class: &str,
    links: &HashMap<(String, String), String>,
    prefix: &str,
) -> String {
    let names: Vec<String> = df.get_column_names().iter().map(|s| s.to_string()).collect();
    let mut s = format!(r#"<div class="scroll"><table class="{}"><thead><tr>"#, esc(class));
    for n in &names {
        let _ = write!(s, "<th>{}</th>", esc(n));
    }
    s.push_str("</tr></thead><tbody>");
    let has = |n: &str| names.iter().any(|x| x == n);
    for i in 0..df.height() {
        let provider = if has("provider") { Some(str_at(df, "provider", i)) } else { None };
        let model = if has("model") { Some(str_at(df, "model", i)) } else { None };
        let _ = write!(
            s,
            r#"<tr{}{}>"#,
            provider.as_ref().map_or(String::new(), |p| format!(r#" data-provider="{}""#, esc(p))),
            model.as_ref().map_or(String::new(), |m| format!(r#" data-model="{}""#, esc(m)))
        );
        for (j, c) in df.columns().iter().enumerate() {
            let (text, v) = cell(c, i);
            let name = &names[j];
            if name == "document" {
                let ds = if has("dataset") { str_at(df, "dataset", i) } else { String::new() };
                match links.get(&(ds, text.clone())) {
                    Some(h) => {
                        let _ = write!(
                            s,
                            r#"<td><a href="{}{}">{}</a></td>"#,
                            esc(prefix),
                            esc(h),
                            esc(&text)
                        );
                    }
                    None => {
                        let _ = write!(s, "<td>{}</td>", esc(&text));
                    }
                }
                continue;
            }
            let numeric = c.dtype().is_float();
            if numeric {
                let cls = if name == "delta" {
                    match v {
                        Some(d) if d < 0.0 => "n neg",
                        Some(d) if d > 0.0 => "n pos",
                        _ => "n",
                    }
                } else {
                    "n"
                };
                let _ = write!(
                    s,
                    r#"<td class="{cls}" data-metric="{}" data-value="{}">{}</td>"#,
                    esc(name),
                    v.map_or("null".to_string(), |x| x.to_string()),
                    esc(&text)
                );
            } else if c.dtype().is_integer() {
                let _ = write!(s, r#"<td class="n">{}</td>"#, esc(&text));
            } else if ["provider", "model", "dataset"].contains(&name.as_str()) {
                let _ = write!(s, r#"<td class="id">{}</td>"#, esc(&text));
            } else {
                let _ = write!(s, "<td>{}</td>", esc(&text));
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table></div>");
    s
}

/// The metrics shown as leaderboard columns: all but olmOCR's per-test `pass:<id>` values
/// (one per test, shown on the documents' pages), the suite's headlines
/// ([`headline_columns`]) first, the rest in the report's order.
fn board_metrics(suite: &str, metrics: &[String]) -> Vec<String> {
    let rest: Vec<String> = metrics.iter().filter(|m| !m.starts_with("pass:")).cloned().collect();
    let mut out = headline_columns(suite, &rest);
    out.extend(rest.into_iter().filter(|m| !out.contains(m)).collect::<Vec<_>>());
    out
}

/// Writes the site: one page per scored document, then `index.html`.
pub fn write_site(
    store: &Store,
    filter: &ScoreFilter<'_>,
    cols: &ScoreColumns,
    metrics: &[String],
    opts: &SiteOptions,
    progress: &dyn Progress,
) -> Result<SiteSummary> {
    let out = &opts.out;
    std::fs::create_dir_all(out.join("doc")).map_err(io(out))?;
    std::fs::create_dir_all(out.join("img")).map_err(io(out))?;
    let board = board_metrics(&opts.suite, metrics);

    // (dataset, name) -> the document's page; and the documents in first-scored order.
    let mut by_name: HashMap<(String, String), (i64, String, u32)> = HashMap::new();
    for d in store.document_names(filter.dataset)? {
        by_name.insert((d.dataset.clone(), d.name.clone()), (d.id, d.hash, d.pages));
    }
    let mut links: HashMap<(String, String), String> = HashMap::new();
    let mut docs: Vec<(i64, String, u32)> = Vec::new();
    let mut doc_keys: HashMap<i64, Vec<usize>> = HashMap::new();
    for (k, key) in cols.keys.iter().enumerate() {
        let Some((id, hash, pages)) = by_name.get(&(key.dataset.clone(), key.document.clone()))
        else {
            continue;
        };
        links.insert((key.dataset.clone(), key.document.clone()), doc_href(hash));
        let e = doc_keys.entry(*id).or_default();
        if e.is_empty() {
            docs.push((*id, hash.clone(), *pages));
        }
        e.push(k);
    }

    // Document pages, one at a time.
    let mut summary = SiteSummary::default();
    let mut imgs = opts.image_cache.clone().map(|d| PageImages::new(d, opts.image_width));
    // The truths a page shows beside the predictions: papers, and the table suite's tables.
    let shown_truth: Option<fn(crate::formats::TruthFormat) -> bool> =
        match crate::suites::Suite::of_stored(&opts.suite) {
            Some(Suite::Paper) => Some(crate::formats::TruthFormat::is_paper),
            Some(Suite::Table) => Some(|f| crate::suites::table::FORMATS.contains(&f)),
            Some(
                Suite::Omnidoc
                | Suite::Olmocr
                | Suite::Formula
                | Suite::Parsebench
                | Suite::Detection,
            )
            | None => None,
        };
    let mut truths: HashMap<i64, Vec<crate::truth::TruthGroup>> = HashMap::new();
    if let Some(which) = shown_truth {
        for g in crate::truth::truth_groups(store, filter.dataset, which)? {
            truths.entry(g.document).or_default().push(g);
        }
    }
    let metric_set: HashSet<&str> = metrics.iter().map(String::as_str).collect();
    let mut failing: Vec<FailingTest> = Vec::new();
    let mut failing_total = 0usize;
    progress.start(docs.len() as u64);
    for (id, hash, pages) in &docs {
        let keys: Vec<&crate::store::ScoreKey> =
            doc_keys[id].iter().map(|&k| &cols.keys[k]).collect();
        let page = DocPage {
            store,
            id: *id,
            hash,
            pages: *pages,
            keys: &keys,
            suite: &opts.suite,
            metrics: &metric_set,
            truths: truths.get(id).map(Vec::as_slice).unwrap_or(&[]),
            max_pages: opts.max_pages,
        };
        let (html, figures, ok, fails) = page.render(imgs.as_mut(), &out.join("img"))?;
        failing_total += fails.len();
        failing.extend(fails.into_iter().take(MAX_FAILING.saturating_sub(failing.len())));
        write_file(&out.join(doc_href(hash)), &html)?;
        summary.documents += 1;
        summary.figures += figures;
        if !ok {
            summary.incomplete += 1;
        }
        let name = keys.first().map_or(hash.as_str(), |k| k.document.as_str());
        progress.advance(name, ok);
    }
    progress.finish();
    if let Some(i) = &imgs {
        summary.images = i.counts;
    }

    let index =
        index_page(store, filter, cols, &board, opts, &links, &summary, &failing, failing_total)?;
    write_file(&out.join("index.html"), &index)?;
    Ok(summary)
}

/// Every score's trace, one section per column of the scores table.
fn traces_section(
    s: &mut String,
    scores: &[crate::store::SiteScore],
    columns: &[(String, String, String)],
    metric_rows: &[String],
) {
    s.push_str(r#"<h2 id="traces">Traces</h2>"#);
    for (ci, (l, md, d)) in columns.iter().enumerate() {
        let _ = write!(
            s,
            "<h3>{} <span class=\"muted\">{} · {}</span></h3>",
            esc(l),
            esc(short_model(md)),
            esc(d)
        );
        for m in metric_rows {
            let Some(r) = scores.iter().find(|r| {
                &r.metric == m
                    && &label(&r.provider, &r.provider_version) == l
                    && &r.model_digest == md
                    && &r.dataset == d
            }) else {
                continue;
            };
            let _ = write!(
                s,
                r#"<details id="{}"{}><summary>{} = {}</summary>{}</details>"#,
                trace_id(ci, m),
                // A failing olmOCR test opens with its verdict and best match.
                if m.starts_with("pass:") && r.value.is_some_and(|v| v <= 0.5) {
                    " open"
                } else {
                    ""
                },
                esc(m),
                num(r.value),
                r.trace
                    .as_deref()
                    .map_or(String::from("<p class=\"muted\">no trace</p>"), trace::render)
            );
        }
    }
}

/// One document's page.
struct DocPage<'a> {
    store: &'a Store,
    id: i64,
    hash: &'a str,
    pages: u32,
    keys: &'a [&'a crate::store::ScoreKey],
    suite: &'a str,
    metrics: &'a HashSet<&'a str>,
    truths: &'a [crate::truth::TruthGroup],
    max_pages: u32,
}

/// A provider version's output of the document, read for drawing.
struct Shown {
    label: String,
    model: String,
    doc: std::result::Result<Doc, String>,
}

impl DocPage<'_> {
    /// Returns the page's HTML, the figures drawn, whether everything could be drawn, and
    /// the failing olmOCR tests.
    fn render(
        &self,
        imgs: Option<&mut PageImages>,
        img_dir: &Path,
    ) -> Result<(String, u64, bool, Vec<FailingTest>)> {
        let mut names: Vec<(String, String)> =
            self.keys.iter().map(|k| (k.dataset.clone(), k.document.clone())).collect();
        names.sort();
        names.dedup();
        let title = names.first().map_or(self.hash.to_string(), |n| n.1.clone());
        let mut s = head(&format!("{title} · {}", self.suite));
        let _ = write!(
            s,
            r#"<header><a href="../index.html">← {} index</a><h1>{}</h1><div>{} · {} pages · blake3 {}</div></header><main>"#,
            esc(self.suite),
            esc(&title),
            esc(&names.iter().map(|(d, n)| format!("{n} in {d}")).collect::<Vec<_>>().join(", ")),
            self.pages,
            esc(self.hash)
        );
        s.push_str(r##"<nav class="toc"><a href="#scores">Scores</a><a href="#pages">Pages</a><a href="#text">Truth and prediction</a><a href="#traces">Traces</a></nav>"##);

        let (wanted, shown) = self.shown_outputs()?;
        let scores = self.scores(&wanted)?;
        let (columns, metric_rows) = self.scores_section(&mut s, &scores);
        let (figures, drawn) = self.pages_section(&mut s, imgs, img_dir, &shown);
        if Suite::of_stored(self.suite) == Some(Suite::Detection) {
            s.push_str(&detection::matches_section(&scores, self.max_pages));
        }
        // Everything could be drawn: every output read as a Doc and every page image made.
        let ok = drawn && shown.iter().all(|sh| sh.doc.is_ok());

        // Truth and prediction side by side.
        s.push_str(r#"<h2 id="text">Truth and prediction</h2>"#);
        if Suite::of_stored(self.suite) == Some(Suite::Table) {
            s.push_str(&self.table_pairs(&shown, &scores)?);
        } else {
            self.truth_beside(&mut s, &shown, &scores);
        }

        traces_section(&mut s, &scores, &columns, &metric_rows);
        s.push_str("</main></body></html>\n");
        let fails = self.failing_tests(&scores, &title);
        Ok((s, figures, ok, fails))
    }

    /// The provider versions scored on this document (provider, version, model), and their
    /// newest ok outputs.
    #[allow(clippy::type_complexity)]
    fn shown_outputs(&self) -> Result<(Vec<(String, String, String)>, Vec<Shown>)> {
        let mut wanted: Vec<(String, String, String)> = self
            .keys
            .iter()
            .map(|k| (k.provider.clone(), k.provider_version.clone(), k.model_digest.clone()))
            .collect();
        wanted.sort();
        wanted.dedup();
        let outputs = self.store.document_outputs(self.id)?;
        let mut shown: Vec<Shown> = Vec::new();
        for (p, v, m) in &wanted {
            let Some(o) = outputs
                .iter()
                .find(|o| (&o.provider, &o.provider_version, &o.model_digest) == (p, v, m))
            else {
                continue;
            };
            let doc = match self.store.blob(&o.blob)? {
                Some(b) => serde_json::from_slice::<Doc>(&b)
                    .map_err(|e| format!("output {} does not read as a Doc: {e}", o.id)),
                None => Err(format!("output {}'s blob {} is missing", o.id, o.blob)),
            };
            shown.push(Shown { label: label(p, v), model: m.clone(), doc });
        }
        Ok((wanted, shown))
    }

    /// This document's scores of the shown metrics by the wanted provider versions.
    fn scores(&self, wanted: &[(String, String, String)]) -> Result<Vec<crate::store::SiteScore>> {
        let scores = self.store.document_scores(self.id, self.suite)?;
        Ok(scores
            .into_iter()
            .filter(|r| {
                self.metrics.contains(r.metric.as_str())
                    && wanted.contains(&(
                        r.provider.clone(),
                        r.provider_version.clone(),
                        r.model_digest.clone(),
                    ))
            })
            .collect())
    }

    /// Scores: metric rows × provider columns, each linking to its trace. Returns the columns
    /// (label, model, dataset) and the metric rows, in their order on the page.
    #[allow(clippy::type_complexity)]
    fn scores_section(
        &self,
        s: &mut String,
        scores: &[crate::store::SiteScore],
    ) -> (Vec<(String, String, String)>, Vec<String>) {
        let mut columns: Vec<(String, String, String)> = Vec::new(); // (label, model, dataset)
        let mut metric_rows: Vec<String> = Vec::new();
        for r in scores {
            let c = (
                label(&r.provider, &r.provider_version),
                r.model_digest.clone(),
                r.dataset.clone(),
            );
            if !columns.contains(&c) {
                columns.push(c);
            }
            if !metric_rows.contains(&r.metric) {
                metric_rows.push(r.metric.clone());
            }
        }
        let order: HashMap<&str, usize> = self.metrics_order();
        metric_rows
            .sort_by_key(|m| (order.get(m.as_str()).copied().unwrap_or(usize::MAX), m.clone()));
        s.push_str(r#"<h2 id="scores">Scores</h2><div class="scroll"><table class="scores"><thead><tr><th>metric</th>"#);
        for (l, m, d) in &columns {
            let _ = write!(
                s,
                "<th>{}<br><span class=\"muted\">{} · {}</span></th>",
                esc(l),
                esc(short_model(m)),
                esc(d)
            );
        }
        s.push_str("</tr></thead><tbody>");
        for m in &metric_rows {
            let _ = write!(s, "<tr><td>{}</td>", esc(m));
            for (ci, (l, md, d)) in columns.iter().enumerate() {
                match scores.iter().find(|r| {
                    &r.metric == m
                        && &label(&r.provider, &r.provider_version) == l
                        && &r.model_digest == md
                        && &r.dataset == d
                }) {
                    Some(r) => {
                        let _ = write!(
                            s,
                            r##"<td class="n" data-provider="{}" data-metric="{}" data-value="{}"><a href="#{}">{}</a></td>"##,
                            esc(l),
                            esc(m),
                            r.value.map_or("null".into(), |v| v.to_string()),
                            trace_id(ci, m),
                            num(r.value)
                        );
                    }
                    None => s.push_str("<td class=\"n\">–</td>"),
                }
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table></div>");
        (columns, metric_rows)
    }

    /// Pages with each provider's blocks drawn over them. Returns the figures drawn and
    /// whether every page image could be made.
    fn pages_section(
        &self,
        s: &mut String,
        imgs: Option<&mut PageImages>,
        img_dir: &Path,
        shown: &[Shown],
    ) -> (u64, bool) {
        let mut ok = true;
        s.push_str(r#"<h2 id="pages">Pages</h2>"#);
        s.push_str(&kind_legend());
        let n_pages = self.pages.min(self.max_pages);
        if self.pages > n_pages {
            let _ = write!(
                s,
                "<p class=\"muted\">The first {n_pages} of {} pages are drawn.</p>",
                self.pages
            );
        }
        let page_list: Vec<u32> = (0..n_pages).collect();
        let images: Vec<Option<PageImage>> = match imgs {
            Some(imgs) => imgs
                .pages(self.store, self.hash, &page_list)
                .into_iter()
                .map(|r| match r {
                    Ok(img) => match images::place(&img, img_dir) {
                        Ok(()) => Some(img),
                        Err(e) => {
                            ok = false;
                            let _ = write!(
                                s,
                                "<p class=\"err\">image {}: {}</p>",
                                esc(&img.name),
                                esc(&e.to_string())
                            );
                            None
                        }
                    },
                    Err(e) => {
                        ok = false;
                        let _ = write!(s, "<p class=\"err\">{}</p>", esc(&e));
                        None
                    }
                })
                .collect(),
            None => vec![None; page_list.len()],
        };
        let mut figures = 0u64;
        // Outputs without a single positioned block (a truth, imported Markdown) have
        // nothing to draw: they are named once instead of drawn as bare pages.
        let placed =
            |d: &Doc| d.blocks.iter().any(|b| b.bbox.width() > 0.0 && b.bbox.height() > 0.0);
        for sh in shown {
            if let Ok(doc) = &sh.doc {
                if !placed(doc) {
                    let _ = write!(
                        s,
                        "<p class=\"muted\">{} {}: none of its {} blocks has a position on the page; nothing to draw.</p>",
                        esc(&sh.label),
                        esc(short_model(&sh.model)),
                        doc.blocks.len()
                    );
                }
            }
        }
        s.push_str(r#"<div class="pages">"#);
        for &p in &page_list {
            s.push_str(r#"<div class="page-row">"#);
            let mut drawn = false;
            for sh in shown {
                let Ok(doc) = &sh.doc else { continue };
                if !placed(doc) {
                    continue;
                }
                s.push_str(&figure(doc, p, images[p as usize].as_ref(), &sh.label, &sh.model));
                figures += 1;
                drawn = true;
            }
            // No output has boxes (olmOCR's Markdown, a truth): the page itself, to read
            // beside the verdicts.
            if !drawn {
                if let Some(img) = &images[p as usize] {
                    let _ = write!(
                        s,
                        r#"<figure class="page" data-provider="" data-page="{n}"><div class="pv" style="width:{FIGURE_WIDTH}px"><img src="../img/{}" width="{}" height="{}" alt="page {n}" loading="lazy"></div><figcaption>page {n}</figcaption></figure>"#,
                        esc(&img.name),
                        img.width,
                        img.height,
                        n = p + 1
                    );
                    figures += 1;
                }
            }
            s.push_str("</div>");
        }
        s.push_str("</div>");
        for sh in shown {
            if let Err(e) = &sh.doc {
                let _ = write!(s, "<p class=\"err\">{}: {}</p>", esc(&sh.label), esc(e));
            }
        }
        (figures, ok)
    }

    /// The failing olmOCR tests among the document's scores, for the index.
    fn failing_tests(&self, scores: &[crate::store::SiteScore], title: &str) -> Vec<FailingTest> {
        let href = doc_href(self.hash);
        scores
            .iter()
            .filter(|r| r.metric.starts_with("pass:") && r.value.is_some_and(|v| v <= 0.5))
            .map(|r| {
                let t: serde_json::Value = r
                    .trace
                    .as_deref()
                    .and_then(|t| serde_json::from_str(t).ok())
                    .unwrap_or_default();
                let best = t["best_match"].as_array().and_then(|a| a.first()).map(|b| {
                    (
                        b["field"].as_str().unwrap_or_default().to_string(),
                        b["score"].as_f64().unwrap_or_default(),
                        b["text"].as_str().unwrap_or_default().to_string(),
                    )
                });
                FailingTest {
                    provider: label(&r.provider, &r.provider_version),
                    group: t["group"].as_str().unwrap_or("").to_string(),
                    id: r.metric["pass:".len()..].to_string(),
                    href: href.clone(),
                    document: self
                        .keys
                        .iter()
                        .find(|k| k.dataset == r.dataset)
                        .map_or(title.to_string(), |k| k.document.clone()),
                    explanation: t["explanation"].as_str().unwrap_or("").to_string(),
                    best,
                }
            })
            .collect()
    }

    fn metrics_order(&self) -> HashMap<&'static str, usize> {
        crate::metrics::paper::metric_ids().iter().enumerate().map(|(i, m)| (*m, i)).collect()
    }

    /// A paper truth's text beside each prediction's, with the tokens the traces list as
    /// missing or extra marked; for other suites, where the comparison is.
    fn truth_beside(&self, s: &mut String, shown: &[Shown], scores: &[crate::store::SiteScore]) {
        match self.truth_doc() {
            Some(Ok((what, gt))) => {
                for sh in shown {
                    let Ok(doc) = &sh.doc else { continue };
                    let miss = token_set(scores, &sh.label, &sh.model, "text_r", "missing");
                    let extra = token_set(scores, &sh.label, &sh.model, "text_p", "extra");
                    let _ = write!(
                        s,
                        r#"<h3>{} <span class="muted">{}</span></h3><p class="muted">Tokens of the truth the prediction has fewer of are <span class="miss">struck in red</span> on the truth's side, tokens the prediction has more of than the truth <span class="extra">in blue</span> on its side (every occurrence; from the text_r and text_p traces).</p><div class="side"><div class="gt"><b>truth ({})</b>{}</div><div class="pred"><b>{}</b>{}</div></div>"#,
                        esc(&sh.label),
                        esc(short_model(&sh.model)),
                        esc(&what),
                        marked_text(&gt, &miss, "miss"),
                        esc(&sh.label),
                        marked_text(doc, &extra, "extra")
                    );
                }
            }
            Some(Err(e)) => {
                let _ = write!(s, "<p class=\"err\">the truth could not be read: {}</p>", esc(&e));
            }
            None => s.push_str("<p class=\"muted\">This suite's truth is compared in the traces below: each pair of truth and prediction is shown side by side, differing pairs marked.</p>"),
        }
    }

    /// The table suite's GT tables beside each provider's predicted tables, as the stored
    /// `teds` trace paired them, cells that differ marked ([`cells`]).
    fn table_pairs(
        &self,
        shown: &[Shown],
        scores: &[crate::store::SiteScore],
    ) -> crate::Result<String> {
        let mut s = String::from(
            "<p class=\"muted\">Each GT table beside the predicted table the suite matched it to; \
             slots paired by GriTS-Con's row and column alignment. <span class=\"miss\">Truth \
             cells</span> the prediction lacks or reads otherwise, and <span class=\"extra\">the \
             prediction's</span>, are marked.</p>",
        );
        let Some(g) = self.truths.first() else {
            s.push_str("<p class=\"muted\">no table truth for this document</p>");
            return Ok(s);
        };
        let gt = match crate::suites::table::load_truth(self.store, g)? {
            Ok(doc) => doc.tables.into_iter().map(|t| t.table).collect::<Vec<_>>(),
            Err(e) => {
                let _ = write!(s, "<p class=\"err\">the truth could not be read: {}</p>", esc(&e));
                return Ok(s);
            }
        };
        for sh in shown {
            let Ok(doc) = &sh.doc else { continue };
            let pred = crate::suites::table::predicted_tables(doc);
            let pairs: Vec<(usize, Option<usize>)> = scores
                .iter()
                .find(|r| {
                    r.metric == "teds"
                        && label(&r.provider, &r.provider_version) == sh.label
                        && r.model_digest == sh.model
                })
                .and_then(|r| r.trace.as_deref())
                .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
                .and_then(|t| t["pairs"].as_array().cloned())
                .unwrap_or_default()
                .iter()
                .filter_map(|p| {
                    Some((p["gt"].as_u64()? as usize, p["pred"].as_u64().map(|x| x as usize)))
                })
                .collect();
            let _ = write!(
                s,
                "<h3>{} <span class=\"muted\">{}</span></h3>{}",
                esc(&sh.label),
                esc(short_model(&sh.model)),
                if pairs.is_empty() {
                    "<p class=\"muted\">not scored by the table suite</p>".to_string()
                } else {
                    cells::pairs_html(&gt, &pred, &pairs)
                }
            );
        }
        Ok(s)
    }

    /// The truth as a Doc, for suites whose truths are papers.
    fn truth_doc(&self) -> Option<std::result::Result<(String, Doc), String>> {
        let g = self.truths.first()?;
        Some(
            g.read_paper(self.store)
                .map(|p| (format!("{} {}", g.format.as_str(), g.dataset), crate::paper::to_doc(&p)))
                .map_err(|e| e.to_string()),
        )
    }
}

/// A trace's anchor: the score column and the metric.
fn trace_id(column: usize, metric: &str) -> String {
    format!("t{column}-{}", escape::slug(metric))
}

/// The tokens listed under `key` in a score's trace (`[{"token": t, ...}]` or strings).
fn token_set(
    scores: &[crate::store::SiteScore],
    lbl: &str,
    model: &str,
    metric: &str,
    key: &str,
) -> HashSet<String> {
    let mut out = HashSet::new();
    for r in scores {
        if r.metric != metric
            || label(&r.provider, &r.provider_version) != lbl
            || r.model_digest != model
        {
            continue;
        }
        let Some(t) =
            r.trace.as_deref().and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        else {
            continue;
        };
        for it in t.get(key).and_then(|v| v.as_array()).into_iter().flatten() {
            let tok = it.get("token").and_then(|x| x.as_str()).or(it.as_str());
            if let Some(tok) = tok {
                out.insert(norm_token(tok));
            }
        }
    }
    out
}

/// A token as the marks compare it: lower case, without punctuation at either end.
fn norm_token(t: &str) -> String {
    t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

/// At most this many characters of a Doc's text are shown side by side.
const MAX_TEXT: usize = 200_000;

/// A Doc's blocks' text, escaped, with the tokens in `marks` wrapped in `<span class=cls>`.
fn marked_text(doc: &Doc, marks: &HashSet<String>, cls: &str) -> String {
    let mut s = String::new();
    let mut used = 0usize;
    for b in &doc.blocks {
        if used > MAX_TEXT {
            s.push_str("\n…");
            break;
        }
        used += b.text.len();
        s.push('\n');
        for (i, tok) in b.text.split(' ').enumerate() {
            if i > 0 {
                s.push(' ');
            }
            if !marks.is_empty() && marks.contains(&norm_token(tok)) {
                let _ = write!(s, r#"<span class="{cls}">{}</span>"#, esc(tok));
            } else {
                s.push_str(&esc(tok));
            }
        }
        s.push('\n');
    }
    s
}

/// The legend of block kinds' colours.
fn kind_legend() -> String {
    let mut s = String::from(r#"<ul class="legend">"#);
    for k in BlockKind::ALL {
        let _ = write!(s, r#"<li><span class="sw k-{0}"></span>{0}</li>"#, k.as_str());
    }
    s.push_str("</ul><p class=\"muted\">Boxes are numbered in the output's reading order; hover one for its kind and text.</p>");
    s
}

/// Width in CSS pixels of one drawn page.
const FIGURE_WIDTH: u32 = 430;

/// One page of one provider's output: the page image with its blocks drawn over it.
fn figure(doc: &Doc, page: u32, img: Option<&PageImage>, lbl: &str, model: &str) -> String {
    let size = doc.pages.get(page as usize).copied();
    let (pw, ph) = match (size, img) {
        (Some(p), _) if p.width > 0.0 && p.height > 0.0 => (p.width, p.height),
        (_, Some(i)) => (612.0, 612.0 * i.height as f32 / i.width.max(1) as f32),
        _ => (612.0, 792.0),
    };
    let h = (FIGURE_WIDTH as f32 * ph / pw).round();
    let mut s = format!(
        r#"<figure class="page" data-provider="{}" data-page="{}"><div class="pv" style="width:{FIGURE_WIDTH}px;height:{h}px">"#,
        esc(lbl),
        page + 1
    );
    if let Some(i) = img {
        let _ = write!(
            s,
            r#"<img src="../img/{}" width="{}" height="{}" alt="page {}" loading="lazy">"#,
            esc(&i.name),
            i.width,
            i.height,
            page + 1
        );
    }
    let _ = write!(
        s,
        r#"<svg class="overlay" viewBox="0 0 {pw} {ph}" preserveAspectRatio="none" data-provider="{}">"#,
        esc(lbl)
    );
    let font = (pw / 60.0).max(6.0);
    let mut unplaced = 0usize;
    for (i, b) in doc.blocks.iter().enumerate() {
        if b.page != page {
            continue;
        }
        if !(b.bbox.width() > 0.0 && b.bbox.height() > 0.0) {
            unplaced += 1;
            continue;
        }
        let text: String = b.text.chars().take(300).collect();
        let _ = write!(
            s,
            r#"<rect class="blk k-{k}" data-block="{i}" data-kind="{k}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"><title>#{} {k}: {}</title></rect><text class="ord" x="{:.1}" y="{:.1}" font-size="{font:.1}">{}</text>"#,
            b.bbox.x0,
            b.bbox.y0,
            b.bbox.width(),
            b.bbox.height(),
            i + 1,
            esc(&text),
            b.bbox.x0 + 1.0,
            b.bbox.y0 + font,
            i + 1,
            k = b.kind.as_str(),
        );
    }
    s.push_str("</svg></div>");
    let _ = write!(
        s,
        "<figcaption>{} <span class=\"muted\">{}</span> · page {}{}</figcaption></figure>",
        esc(lbl),
        esc(short_model(model)),
        page + 1,
        if unplaced > 0 {
            format!(" · {unplaced} blocks without a position")
        } else {
            String::new()
        }
    );
    s
}
