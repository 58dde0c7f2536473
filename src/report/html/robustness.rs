//! The HTML report's robustness pages (`report --robustness DATASET~PROFILE --format html`,
//! `docs/degrade.md` §5): `robustness.html` with the clean-vs-degraded table and the twins,
//! and one page per twin showing each page's clean and degraded images side by side and, per
//! provider, its scores on both and the text it read from each.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use polars::prelude::DataFrame;

use super::images::PageImages;
use super::{esc, figure, frame_table, head, io, num, write_file};
use crate::doc::Doc;
use crate::error::Result;
use crate::progress::Progress;
use crate::store::{ScoreColumns, Store};

/// What the robustness pages hold.
#[derive(Debug, Clone, Default)]
pub struct RobustnessSite {
    /// Twins with a page of their own.
    pub documents: u64,
    /// Twins without a source of the same name (not drawn, counted).
    pub unpaired: u64,
    /// Pages drawn (each as two images).
    pub pages: u64,
    /// Whether every image and output could be read.
    pub complete: bool,
}

/// The file a twin's page is written to, relative to the site's root.
pub fn twin_href(twin_hash: &str) -> String {
    format!("robust/{}.html", &twin_hash[..twin_hash.len().min(24)])
}

/// Characters of a page's text shown per provider and side.
const MAX_TEXT: usize = 3000;

/// The scores the columns hold: (provider, dataset, document, metric) -> value.
type Scores<'c> = HashMap<(&'c str, &'c str, &'c str, &'c str), Option<f64>>;

/// Writes `robustness.html` and a page per twin of `twin` (whose source is `source`) into
/// `out`. `table` is [`crate::report::robustness`]'s; `metrics` the metrics shown per twin.
#[allow(clippy::too_many_arguments)]
pub fn write_robustness(
    store: &Store,
    cols: &ScoreColumns,
    table: &DataFrame,
    (source, twin): (&str, &str),
    metrics: &[String],
    out: &Path,
    mut imgs: Option<&mut PageImages>,
    max_pages: u32,
    progress: &dyn Progress,
) -> Result<RobustnessSite> {
    std::fs::create_dir_all(out.join("robust")).map_err(io(out))?;
    std::fs::create_dir_all(out.join("img")).map_err(io(out))?;
    let mut scores: Scores<'_> = HashMap::new();
    for i in 0..cols.key.len() {
        let k = &cols.keys[cols.key[i] as usize];
        let m = cols.metrics[cols.metric[i] as usize].as_str();
        scores.insert((&k.provider, &k.dataset, &k.document, m), cols.value[i]);
    }
    let sources: HashMap<String, (i64, String, u32)> = store
        .document_names(Some(source))?
        .into_iter()
        .map(|d| (d.name, (d.id, d.hash, d.pages)))
        .collect();
    let mut twins = store.document_names(Some(twin))?;
    twins.sort_by(|a, b| a.name.cmp(&b.name));
    // Every provider scored on either side, by name; the first metric is the twins table's.
    let all_providers: BTreeSet<&str> = cols
        .keys
        .iter()
        .filter(|k| k.dataset == twin || k.dataset == source)
        .map(|k| k.provider.as_str())
        .collect();
    let first = metrics.first().map(String::as_str).unwrap_or("");
    let mut site = RobustnessSite { complete: true, ..Default::default() };
    let mut rows = String::new();
    progress.start(twins.len() as u64);
    for t in &twins {
        let Some((src_id, src_hash, src_pages)) = sources.get(&t.name) else {
            site.unpaired += 1;
            progress.advance(&t.name, false);
            continue;
        };
        let providers: BTreeSet<&str> = cols
            .keys
            .iter()
            .filter(|k| k.document == t.name && (k.dataset == twin || k.dataset == source))
            .map(|k| k.provider.as_str())
            .collect();
        let twin_page = TwinPage {
            store,
            scores: &scores,
            metrics,
            names: (source, twin, &t.name),
            ids: (*src_id, t.id),
            hashes: (src_hash, &t.hash),
            pages: (*src_pages).min(t.pages).min(max_pages.max(1)),
            providers: &providers,
        };
        let (html, pages, ok) = twin_page.render(imgs.as_deref_mut(), &out.join("img"))?;
        write_file(&out.join(twin_href(&t.hash)), &html)?;
        site.documents += 1;
        site.pages += pages;
        site.complete &= ok;
        let _ = write!(
            rows,
            r#"<tr><td><a href="{}">{}</a></td><td>{}</td>"#,
            esc(&twin_href(&t.hash)),
            esc(&t.name),
            t.pages
        );
        for p in &all_providers {
            let get = |ds: &str| scores.get(&(*p, ds, t.name.as_str(), first)).copied().flatten();
            let _ = write!(rows, "<td>{} → {}</td>", num(get(source)), num(get(twin)));
        }
        rows.push_str("</tr>");
        progress.advance(&t.name, ok);
    }
    progress.finish();
    let mut s = head(&format!("robustness · {twin}"));
    let _ = write!(
        s,
        r#"<header><a href="index.html">← report</a><h1>Robustness: {} against {}</h1><div>{} twins of {} documents; a twin keeps its source's name and truth (<code>corpus degrade</code>)</div></header><main>"#,
        esc(twin),
        esc(source),
        twins.len(),
        sources.len()
    );
    s.push_str(
        "<h2>Clean against degraded</h2><p class=\"muted\">Per provider version and metric: \
         pairs, clean and degraded means over the pairs, the paired difference (degraded − \
         clean) with its interval and p, Holm-corrected across each provider's metrics.</p>",
    );
    s.push_str(&frame_table(table, "robustness", &HashMap::new(), ""));
    if site.unpaired > 0 {
        let _ = write!(
            s,
            "<p class=\"err\">{} twins have no document of the same name in {}: not drawn</p>",
            site.unpaired,
            esc(source)
        );
    }
    let _ = write!(
        s,
        "<h2>Twins</h2><p class=\"muted\">{} per provider, clean → degraded; each twin's page \
         shows its pages clean and degraded side by side, and each provider's scores and text \
         on both.</p><table class=\"twins\"><thead><tr><th>document</th><th>pages</th>",
        esc(first)
    );
    for p in &all_providers {
        let _ = write!(s, "<th>{}</th>", esc(p));
    }
    s.push_str("</tr></thead><tbody>");
    s.push_str(&rows);
    s.push_str("</tbody></table></main></body></html>\n");
    write_file(&out.join("robustness.html"), &s)?;
    Ok(site)
}

/// One twin's page.
struct TwinPage<'a> {
    store: &'a Store,
    scores: &'a Scores<'a>,
    metrics: &'a [String],
    /// Source dataset, twin dataset, document name.
    names: (&'a str, &'a str, &'a str),
    /// Source and twin document ids.
    ids: (i64, i64),
    /// Source and twin content hashes.
    hashes: (&'a str, &'a str),
    /// Pages drawn.
    pages: u32,
    providers: &'a BTreeSet<&'a str>,
}

impl TwinPage<'_> {
    /// The page's HTML, the pages drawn and whether every image could be made.
    fn render(
        &self,
        mut imgs: Option<&mut PageImages>,
        img_dir: &Path,
    ) -> Result<(String, u64, bool)> {
        let (source, twin, name) = self.names;
        let mut s = head(&format!("{name} · {twin}"));
        let _ = write!(
            s,
            r#"<header><a href="../robustness.html">← robustness</a><h1>{}</h1><div>{} (clean, blake3 {}) against {} (degraded, blake3 {})</div></header><main>"#,
            esc(name),
            esc(source),
            esc(self.hashes.0),
            esc(twin),
            esc(self.hashes.1)
        );
        self.scores_table(&mut s);
        let list: Vec<u32> = (0..self.pages).collect();
        let (clean, ok_clean) = super::agree::page_images(
            &mut s,
            imgs.as_deref_mut(),
            self.store,
            self.hashes.0,
            &list,
            img_dir,
        );
        let (degraded, ok_degraded) =
            super::agree::page_images(&mut s, imgs, self.store, self.hashes.1, &list, img_dir);
        let mut outputs: Vec<(&str, [std::result::Result<Doc, String>; 2])> = Vec::new();
        for p in self.providers {
            let read = |id| crate::report::agree::read_doc(self.store, id, p);
            outputs.push((p, [read(self.ids.0)?, read(self.ids.1)?]));
        }
        let empty = Doc::default();
        for (k, &page) in list.iter().enumerate() {
            let _ = write!(
                s,
                r#"<section class="twin-page" id="p{n}" data-page="{n}"><h2>page {n}</h2><div class="page-row">"#,
                n = page + 1
            );
            s.push_str(&figure(&empty, page, clean[k].as_ref(), &format!("clean · {source}"), ""));
            s.push_str(&figure(
                &empty,
                page,
                degraded[k].as_ref(),
                &format!("degraded · {twin}"),
                "",
            ));
            s.push_str(
                r#"</div><table class="robust-text"><thead><tr><th>provider</th><th>clean</th><th>degraded</th></tr></thead><tbody>"#,
            );
            for (p, sides) in &outputs {
                let _ = write!(s, "<tr><td>{}</td>", esc(p));
                for side in sides {
                    s.push_str(&page_text(side, page));
                }
                s.push_str("</tr>");
            }
            s.push_str("</tbody></table></section>");
        }
        s.push_str("</main></body></html>\n");
        Ok((s, list.len() as u64, ok_clean && ok_degraded))
    }

    /// Per provider and metric: clean → degraded on this document.
    fn scores_table(&self, s: &mut String) {
        let (source, twin, name) = self.names;
        s.push_str(r#"<h2>Scores</h2><table class="robust-scores"><thead><tr><th>provider</th>"#);
        for m in self.metrics {
            let _ = write!(s, "<th>{}</th>", esc(m));
        }
        s.push_str("</tr></thead><tbody>");
        for p in self.providers {
            let _ = write!(s, "<tr><td>{}</td>", esc(p));
            for m in self.metrics {
                let get =
                    |ds: &str| self.scores.get(&(*p, ds, name, m.as_str())).copied().flatten();
                let _ = write!(
                    s,
                    r#"<td data-metric="{}">{} → {}</td>"#,
                    esc(m),
                    num(get(source)),
                    num(get(twin))
                );
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>");
    }
}

/// A provider's text of one page as a table cell (its blocks in reading order, cut at
/// [`MAX_TEXT`] characters), or why there is none.
fn page_text(doc: &std::result::Result<Doc, String>, page: u32) -> String {
    match doc {
        Ok(d) => {
            let text: Vec<&str> =
                d.blocks.iter().filter(|b| b.page == page).map(|b| b.text.as_str()).collect();
            let text = text.join("\n");
            let cut: String = text.chars().take(MAX_TEXT).collect();
            let more = if cut.len() < text.len() { " …" } else { "" };
            format!(
                r#"<td><div class="ptext" style="white-space:pre-wrap">{}{more}</div></td>"#,
                esc(&cut)
            )
        }
        Err(e) => format!(r#"<td class="muted">{}</td>"#, esc(e)),
    }
}
