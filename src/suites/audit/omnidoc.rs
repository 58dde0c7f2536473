//! The omnidoc suite's truth elements for the audit: every OmniDocBench page truth, each
//! provider's newest output turned into Markdown and matched to the page's blocks by the
//! suite's own `match_page` (quick matching, as `corpus eval --suite omnidoc` scores).
//!
//! Elements: each matched text block (keyed by the truth blocks it covers, so a provider that
//! merges two blocks reads a different element than one that keeps them apart), each display
//! formula (LaTeX tokens; a provider that gave the formula as plain text is no reader of it),
//! each HTML table (the words of its cells) and each page's reading order (the truth orders of
//! the text blocks in the provider's order, as `get_order_paired` lists them).

use std::collections::BTreeMap;

use super::Element;
use crate::error::Result;
use crate::formats::omnidocbench::Page;
use crate::formats::TruthFormat;
use crate::metrics::audit::{is_math_span, text_tokens};
use crate::store::Store;
use crate::suites::driver::usable_doc;
use crate::suites::omnidoc::matching::{match_page, MatchEntry, MatchMethod};
use crate::suites::omnidoc::metrics::reading_order;
use crate::suites::omnidoc::normalize::formula_tokens;

/// The text of an HTML table's cells, tags dropped.
pub fn table_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&nbsp;", " ").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
}

/// The union of the boxes of the truth blocks with these orders and category.
fn bbox(page: &Page, orders: &[Option<f64>], category: Option<&str>) -> Option<[f64; 4]> {
    let mut b: Option<[f64; 4]> = None;
    for d in &page.layout_dets {
        let hit = d.order.is_some()
            && orders.contains(&d.order)
            && category.is_none_or(|c| c == d.category_type);
        if !hit || d.poly.len() < 4 {
            continue;
        }
        let xs = d.poly.iter().step_by(2);
        let ys = d.poly.iter().skip(1).step_by(2);
        let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, z), &x| (a.min(x), z.max(x)));
        let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, z), &y| (a.min(y), z.max(y)));
        b = Some(match b {
            None => [x0, y0, x1, y1],
            Some(o) => [o[0].min(x0), o[1].min(y0), o[2].max(x1), o[3].max(y1)],
        });
    }
    b
}

fn label(e: &MatchEntry) -> String {
    let cat = e.gt_category_type.as_deref().unwrap_or("block");
    let orders: Vec<String> = e
        .gt_position
        .iter()
        .map(|o| o.map(|x| format!("{x}")).unwrap_or_else(|| "-".into()))
        .collect();
    format!("{cat} order {}", orders.join("+"))
}

/// One page's elements, keyed so that every provider's reading of the same truth element
/// lands on one.
struct PageElements<'a> {
    page: &'a Page,
    dataset: &'a str,
    document: &'a str,
    image: Option<(String, [f64; 2])>,
    by_key: BTreeMap<String, Element>,
}

impl PageElements<'_> {
    fn add(
        &mut self,
        key: String,
        kind: &'static str,
        e: &MatchEntry,
        provider: &str,
        tokens: fn(&str) -> Vec<String>,
    ) {
        let (truth_text, reading) = match kind {
            "table" => (table_text(&e.gt), table_text(&e.pred)),
            _ => (e.gt.clone(), e.pred.clone()),
        };
        let el = self.by_key.entry(key).or_insert_with(|| Element {
            kind,
            dataset: self.dataset.to_string(),
            document: self.document.to_string(),
            page: Some(1),
            label: label(e),
            truth: tokens(&truth_text),
            truth_text: e.gt.clone(),
            units: None,
            bbox: bbox(self.page, &e.gt_position, e.gt_category_type.as_deref()),
            image: self.image.clone(),
            readings: Vec::new(),
        });
        el.readings.push((provider.to_string(), e.pred.clone(), tokens(&reading)));
    }

    fn add_provider(&mut self, provider: &str, markdown: &str) {
        let m = match_page(self.page, markdown, MatchMethod::Quick);
        let key = |kind: &str, e: &MatchEntry| format!("{kind} {:?}", e.gt_idx);
        for e in m.text.iter().filter(|e| e.gt_idx.is_some() && e.pred_idx.is_some()) {
            self.add(key("text", e), "text", e, provider, text_tokens);
        }
        for e in m.formula.iter().filter(|e| e.pred_idx.is_some()) {
            // A formula matched to a plain-text prediction is scored as text by the suite
            // (hybrid matching); its LaTeX tokens would not compare. A prediction the
            // suite's extraction left in a paragraph but that is one math span (`\[…\]`) is
            // LaTeX all the same.
            let latex =
                matches!(e.pred_category_type.as_str(), "equation_inline" | "equation_isolated");
            if latex || is_math_span(&e.pred) {
                self.add(key("formula", e), "formula", e, provider, formula_tokens);
            }
        }
        for e in m.html_table.iter().filter(|e| e.pred_idx.is_some()) {
            self.add(key("table", e), "table", e, provider, text_tokens);
        }
        if let Some(o) = reading_order(&m.text, self.page.image_name()) {
            let tok = |v: &[f64]| v.iter().map(|x| format!("{x}")).collect::<Vec<String>>();
            let truth = tok(&o.order_gt);
            let el = self.by_key.entry("order".into()).or_insert_with(|| Element {
                kind: "order",
                dataset: self.dataset.to_string(),
                document: self.document.to_string(),
                page: Some(1),
                label: "reading order".into(),
                truth_text: truth.join(" "),
                truth: truth.clone(),
                units: None,
                bbox: None,
                image: self.image.clone(),
                readings: Vec::new(),
            });
            // The truth's order list is the same for every provider unless the matching
            // split the blocks otherwise for one: the element's truth is the union (the order
            // judgement compares pairs of blocks a reader has, `judge_order`).
            if el.truth != truth {
                let mut all: Vec<f64> = o.order_gt.clone();
                all.extend(el.truth.iter().filter_map(|t| t.parse::<f64>().ok()));
                all.sort_by(f64::total_cmp);
                all.dedup();
                el.truth = tok(&all);
                el.truth_text = el.truth.join(" ");
            }
            let read = tok(&o.order_pred);
            el.readings.push((provider.to_string(), read.join(" "), read));
        }
    }
}

/// Every truth element of the omnidoc suite in scope, with the providers' readings.
pub fn elements(
    store: &Store,
    dataset: Option<&str>,
    providers: &[String],
    notes: &mut Vec<String>,
) -> Result<Vec<Element>> {
    let mut out = Vec::new();
    for t in store.truths(dataset)? {
        if t.format != TruthFormat::OmniDocBench.as_str() {
            continue;
        }
        let Some(bytes) = store.blob(&t.blob)? else {
            notes.push(format!("truth {}: its blob is missing from the store", t.id));
            continue;
        };
        let page: Page = match serde_json::from_slice(&bytes) {
            Ok(p) => p,
            Err(e) => {
                notes.push(format!("truth {}: unreadable omnidocbench truth: {e}", t.id));
                continue;
            }
        };
        let name = store.name_in(t.document, &t.dataset)?.unwrap_or_else(|| page.stem().into());
        let hash =
            store.find_documents(&name, Some(&t.dataset))?.into_iter().next().map(|d| d.hash);
        let size = page.page_info.width.zip(page.page_info.height);
        let mut pe = PageElements {
            page: &page,
            dataset: &t.dataset,
            document: &name,
            image: hash.zip(size).map(|(h, (w, ht))| (h, [w, ht])),
            by_key: BTreeMap::new(),
        };
        for p in providers {
            let Some(output) = store.latest_output(t.document, p)? else { continue };
            match usable_doc(store, &output) {
                Ok(doc) => pe.add_provider(p, &doc.markdown()),
                Err(e) => notes.push(format!("{name}: {p}: {e}")),
            }
        }
        out.extend(pe.by_key.into_values());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_text_drops_tags_and_common_entities() {
        assert_eq!(
            text_tokens(&table_text("<table><tr><td>a&amp;b</td><td>12.5</td></tr></table>")),
            ["a", "b", "12", "5"]
        );
    }
}
