//! The agreement pages of the HTML site (`docs/html-report.md`, "Agreement"): `agree.html`
//! with one heat map per measure (the provider × provider matrices of `corpus agree`), each
//! provider's mean, and the pages ranked by disagreement, each linked to its drawing; and one
//! page per compared document under `agree/`, every page with every provider's blocks drawn
//! over the page image (the figures of the scored documents' pages) and the page's pairwise
//! agreements. None needs a truth.

use std::fmt::Write as _;
use std::path::Path;

use super::escape::{esc, num};
use super::images::{self, PageImage, PageImages};
use super::{figure, head, io, kind_legend, write_file};
use crate::doc::Doc;
use crate::error::Result;
use crate::metrics::agree::Measure;
use crate::progress::Progress;
use crate::report::agree::render::measure_caption;
use crate::report::agree::{read_doc, AgreeReport, PageResult};
use crate::store::Store;

/// At most this many ranked pages are listed on `agree.html` (the rest are counted).
const MAX_RANKED: usize = 200;

/// What the agreement pages wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AgreeSite {
    /// Document pages written under `agree/`.
    pub documents: u64,
    /// Page figures drawn.
    pub figures: u64,
    /// Documents whose page could not be drawn completely.
    pub incomplete: u64,
}

/// The file of a document's agreement page, relative to the site's root.
pub fn agree_href(pdf_hash: &str) -> String {
    format!("agree/{}.html", &pdf_hash[..pdf_hash.len().min(24)])
}

/// A heat-map cell's background: red (0) through yellow to green (1).
fn heat(v: f64) -> String {
    format!("hsl({:.0},70%,{:.0}%)", 120.0 * v.clamp(0.0, 1.0), 82.0 - 10.0 * v.clamp(0.0, 1.0))
}

/// Writes `agree.html` (as `file`, relative to `out`) and the document pages under `agree/`.
/// `back` is the link to the scores' index, when the site has one.
#[allow(clippy::too_many_arguments)]
pub fn write_agreement(
    store: &Store,
    r: &AgreeReport,
    out: &Path,
    file: &str,
    back: Option<&str>,
    imgs: Option<&mut PageImages>,
    max_pages: u32,
    store_label: &str,
    progress: &dyn Progress,
) -> Result<AgreeSite> {
    std::fs::create_dir_all(out.join("agree")).map_err(io(out))?;
    std::fs::create_dir_all(out.join("img")).map_err(io(out))?;
    let mut s = head("corpus: agreement between providers");
    let _ = write!(
        s,
        "<header>{}<h1>Agreement between providers</h1><div>store {} · {} providers · {} of {} documents compared{} · no truth used · generated {}</div></header><main>",
        back.map(|b| format!(r#"<a href="{}">← scores</a>"#, esc(b))).unwrap_or_default(),
        esc(store_label),
        r.providers.len(),
        r.compared_documents,
        r.documents,
        r.dataset.as_deref().map(|d| format!(" in dataset {}", esc(d))).unwrap_or_default(),
        esc(&crate::store::now())
    );
    s.push_str(r##"<nav class="toc"><a href="#matrices">Matrices</a><a href="#ranking">Pages ranked by disagreement</a></nav>"##);
    providers_list(&mut s, r);
    s.push_str(r#"<h2 id="matrices">Matrices</h2><p class="muted">Each cell is the mean over the pages where the measure is defined for both providers (n below it); rules in docs/agree.md.</p>"#);
    for m in Measure::ALL {
        heat_map(&mut s, r, m);
    }
    ranking(&mut s, r, max_pages);
    s.push_str("</main></body></html>\n");
    write_file(&out.join(file), &s)?;
    documents(store, r, out, file, imgs, max_pages, progress)
}

fn providers_list(s: &mut String, r: &AgreeReport) {
    s.push_str(r#"<h2 id="providers">Providers</h2><table class="providers"><thead><tr><th></th><th>provider</th><th>documents</th><th>failed or unreadable</th></tr></thead><tbody>"#);
    for (i, p) in r.providers.iter().enumerate() {
        let _ = write!(
            s,
            r#"<tr><td class="n">[{}]</td><td class="id">{}</td><td class="n">{}</td><td class="n">{}</td></tr>"#,
            i + 1,
            esc(&p.label()),
            p.documents,
            p.unusable
        );
    }
    s.push_str("</tbody></table>");
}

fn heat_map(s: &mut String, r: &AgreeReport, m: Measure) {
    let mat = r.matrix(m);
    let means = r.means(m);
    let _ = write!(
        s,
        r#"<h3>{}</h3><div class="scroll"><table class="heatmap" data-measure="{}"><thead><tr><th></th>"#,
        esc(measure_caption(m)),
        m.as_str()
    );
    for i in 0..r.providers.len() {
        let _ = write!(s, "<th title=\"{}\">[{}]</th>", esc(&r.providers[i].label()), i + 1);
    }
    s.push_str("<th>mean</th></tr></thead><tbody>");
    for (i, row) in mat.iter().enumerate() {
        let _ =
            write!(s, r#"<tr><th class="id">[{}] {}</th>"#, i + 1, esc(&r.providers[i].label()));
        for (j, c) in row.iter().enumerate() {
            if i == j {
                s.push_str(r#"<td class="n muted">·</td>"#);
                continue;
            }
            let style =
                c.mean.map(|v| format!(" style=\"background:{}\"", heat(v))).unwrap_or_default();
            let value = c.mean.map_or("null".to_string(), |v| format!("{v}"));
            let _ = write!(
                s,
                r#"<td class="n heat" data-a="{i}" data-b="{j}" data-value="{value}"{style}>{}<span class="ci">n {}</span></td>"#,
                num(c.mean),
                c.pages
            );
        }
        let mean = means.get(i).copied().flatten();
        let _ = write!(
            s,
            r#"<td class="n" data-mean="{}">{}</td></tr>"#,
            mean.map_or("null".to_string(), |v| format!("{v}")),
            num(mean)
        );
    }
    s.push_str("</tbody></table></div>");
}

fn least(p: &PageResult, r: &AgreeReport) -> String {
    match p.least_agreeing() {
        Some(x) => format!(
            "{} – {}: {}",
            esc(&r.providers[x.a].label()),
            esc(&r.providers[x.b].label()),
            num(x.agreement.text)
        ),
        None => "–".into(),
    }
}

fn ranking(s: &mut String, r: &AgreeReport, max_pages: u32) {
    let ranked: Vec<&PageResult> = r.ranked().collect();
    let _ = write!(
        s,
        r#"<h2 id="ranking">Pages ranked by disagreement</h2><p class="muted">Spread = 1 − the mean text agreement of the page's provider pairs; the pages to annotate first. {} pages{}.</p>"#,
        ranked.len(),
        if ranked.len() > MAX_RANKED {
            format!(", the first {MAX_RANKED} listed")
        } else {
            String::new()
        }
    );
    s.push_str(r#"<table class="ranking"><thead><tr><th>rank</th><th>spread</th><th>document</th><th>page</th><th>least agreeing pair (text)</th></tr></thead><tbody>"#);
    // A document page draws its `max_pages` most disagreed pages: those get an anchor.
    let mut per_doc: std::collections::HashMap<i64, u32> = std::collections::HashMap::new();
    for (k, p) in ranked.iter().take(MAX_RANKED).enumerate() {
        let seen = per_doc.entry(p.document_id).or_default();
        *seen += 1;
        let href = match *seen <= max_pages {
            true => format!("{}#p{}", agree_href(&p.hash), p.page + 1),
            false => agree_href(&p.hash),
        };
        let _ = write!(
            s,
            r#"<tr data-spread="{}"><td class="n">{}</td><td class="n">{}</td><td class="id"><a href="{}">{}</a> <span class="muted">{}</span></td><td class="n">{}</td><td>{}</td></tr>"#,
            p.spread.unwrap_or(0.0),
            k + 1,
            num(p.spread),
            esc(&href),
            esc(&p.document),
            esc(&p.dataset),
            p.page + 1,
            least(p, r)
        );
    }
    s.push_str("</tbody></table>");
}

/// One page per compared document, in the order of its most disagreed page.
fn documents(
    store: &Store,
    r: &AgreeReport,
    out: &Path,
    index: &str,
    mut imgs: Option<&mut PageImages>,
    max_pages: u32,
    progress: &dyn Progress,
) -> Result<AgreeSite> {
    // The pages grouped by document in one pass, in ranking order within and between groups.
    let mut groups: Vec<Vec<&PageResult>> = Vec::new();
    let mut slot: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    for p in &r.pages {
        let k = *slot.entry(p.document_id).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[k].push(p);
    }
    let mut site = AgreeSite::default();
    progress.start(groups.len() as u64);
    for pages in groups {
        let (html, figures, ok) =
            document_page(store, r, &pages, index, imgs.as_deref_mut(), out, max_pages)?;
        write_file(&out.join(agree_href(&pages[0].hash)), &html)?;
        site.documents += 1;
        site.figures += figures;
        if !ok {
            site.incomplete += 1;
        }
        progress.advance(&pages[0].document, ok);
    }
    progress.finish();
    Ok(site)
}

/// The page images of `pages`, placed in the site; an image that cannot be made is `None`
/// and its reason is written into `s`.
pub(super) fn page_images(
    s: &mut String,
    imgs: Option<&mut PageImages>,
    store: &Store,
    hash: &str,
    pages: &[u32],
    img_dir: &Path,
) -> (Vec<Option<PageImage>>, bool) {
    let Some(imgs) = imgs else { return (vec![None; pages.len()], true) };
    let mut ok = true;
    let out = imgs
        .pages(store, hash, pages)
        .into_iter()
        .map(|r| match r.map(|img| images::place(&img, img_dir).map(|()| img)) {
            Ok(Ok(img)) => Some(img),
            Ok(Err(e)) => {
                ok = false;
                let _ = write!(s, "<p class=\"err\">image: {}</p>", esc(&e.to_string()));
                None
            }
            Err(e) => {
                ok = false;
                let _ = write!(s, "<p class=\"err\">{}</p>", esc(&e));
                None
            }
        })
        .collect();
    (out, ok)
}

/// The blocks of a page of an output without positions, as text.
fn unplaced(doc: &Doc, page: u32, label: &str) -> String {
    let mut s = format!(
        r#"<div class="unplaced" data-provider="{}"><div class="muted">{} · page {} · no positions</div>"#,
        esc(label),
        esc(label),
        page + 1
    );
    for b in doc.blocks.iter().filter(|b| b.page == page) {
        let text: String = b.text.chars().take(400).collect();
        let _ = write!(s, "<p><span class=\"muted\">{}</span> {}</p>", b.kind.as_str(), esc(&text));
    }
    s.push_str("</div>");
    s
}

/// One document's agreement page.
fn document_page(
    store: &Store,
    r: &AgreeReport,
    pages: &[&PageResult],
    index: &str,
    imgs: Option<&mut PageImages>,
    out: &Path,
    max_pages: u32,
) -> Result<(String, u64, bool)> {
    let first = pages[0];
    let mut s = head(&format!("{} · agreement", first.document));
    let _ = write!(
        s,
        r#"<header><a href="../{}">← agreement</a><h1>{}</h1><div>{} in {} · {} pages · blake3 {}</div></header><main>"#,
        esc(index),
        esc(&first.document),
        esc(&first.document),
        esc(&first.dataset),
        pages.len(),
        esc(&first.hash)
    );
    s.push_str(&kind_legend());
    let mut shown: Vec<(String, std::result::Result<Doc, String>)> = Vec::new();
    for &i in &first.providers {
        let p = &r.providers[i];
        shown.push((p.label(), read_doc(store, first.document_id, &p.provider)?));
    }
    // The most disagreed pages (`pages` is in ranking order), drawn in page order.
    let mut drawn_pages: Vec<&PageResult> =
        pages.iter().copied().take(max_pages as usize).collect();
    drawn_pages.sort_by_key(|p| p.page);
    if pages.len() > drawn_pages.len() {
        let _ = write!(
            s,
            "<p class=\"muted\">The {} most disagreed of {} pages are drawn (--max-pages).</p>",
            drawn_pages.len(),
            pages.len()
        );
    }
    let list: Vec<u32> = drawn_pages.iter().map(|p| p.page).collect();
    let (images, mut ok) = page_images(&mut s, imgs, store, &first.hash, &list, &out.join("img"));
    let mut figures = 0u64;
    for (k, p) in drawn_pages.iter().enumerate() {
        let _ = write!(
            s,
            r#"<section class="agree-page" id="p{n}" data-page="{n}" data-spread="{}"><h2>page {n} · spread {}</h2>"#,
            p.spread.map_or("null".into(), |v| format!("{v}")),
            num(p.spread),
            n = p.page + 1
        );
        pairs_table(&mut s, r, p);
        s.push_str(r#"<div class="page-row">"#);
        for (label, doc) in &shown {
            match doc {
                // Drawn: an output with a positioned block, or with no block at all (`empty`).
                Ok(d)
                    if d.blocks.is_empty()
                        || d.blocks
                            .iter()
                            .any(|b| b.bbox.width() > 0.0 && b.bbox.height() > 0.0) =>
                {
                    s.push_str(&figure(d, p.page, images[k].as_ref(), label, ""));
                    figures += 1;
                }
                Ok(d) => s.push_str(&unplaced(d, p.page, label)),
                Err(e) => {
                    ok = false;
                    let _ = write!(s, "<p class=\"err\">{}: {}</p>", esc(label), esc(e));
                }
            }
        }
        s.push_str("</div></section>");
    }
    s.push_str("</main></body></html>\n");
    Ok((s, figures, ok))
}

/// A page's pairs and their four measures.
fn pairs_table(s: &mut String, r: &AgreeReport, p: &PageResult) {
    s.push_str(r#"<table class="pairs"><thead><tr><th>pair</th>"#);
    for m in Measure::ALL {
        let _ = write!(s, "<th>{}</th>", m.as_str());
    }
    s.push_str("</tr></thead><tbody>");
    for pair in &p.pairs {
        let _ = write!(
            s,
            r#"<tr><td class="id">{} – {}</td>"#,
            esc(&r.providers[pair.a].label()),
            esc(&r.providers[pair.b].label())
        );
        for m in Measure::ALL {
            let v = pair.agreement.get(m);
            let style = v.map(|v| format!(" style=\"background:{}\"", heat(v))).unwrap_or_default();
            let _ = write!(s, r#"<td class="n"{style}>{}</td>"#, num(v));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
}
