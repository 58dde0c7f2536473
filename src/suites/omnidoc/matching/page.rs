//! The page driver of `dataset/end2end_dataset.py`: `get_page_elements` (truncated blocks joined),
//! `get_sorted_text_list`, and `process_get_matched_elements` (tables matched first with simple
//! matching, unmatched predicted tables exploded into `<td>` strings for the text pool, then the
//! chosen matcher on the text pool and the split into text / display-formula pairs).

use super::*;

// ---------------------------------------------------------------------------------------------
// Page driver

/// `get_page_elements`: blocks per category, with `truncated` chains joined into one block
/// (text concatenated in order, category and order of the first, no attributes).
pub fn page_elements(page: &Page) -> BTreeMap<String, Vec<GtItem>> {
    let mut groups: Vec<Vec<i64>> = Vec::new();
    let mut truncated: BTreeSet<i64> = BTreeSet::new();
    for r in &page.extra.relation {
        if r.relation_type != "truncated" {
            continue;
        }
        truncated.insert(r.source_anno_id);
        truncated.insert(r.target_anno_id);
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
    let mut out: BTreeMap<String, Vec<GtItem>> = BTreeMap::new();
    let mut by_id: BTreeMap<i64, &LayoutDet> = BTreeMap::new();
    for d in &page.layout_dets {
        match d.anno_id {
            Some(id) if truncated.contains(&id) => {
                by_id.insert(id, d);
            }
            _ => out.entry(d.category_type.clone()).or_default().push(GtItem::from_det(d)),
        }
    }
    for g in groups {
        let mut blocks: Vec<&LayoutDet> =
            g.iter().filter_map(|id| by_id.get(id).copied()).collect();
        if blocks.is_empty() {
            continue;
        }
        blocks.sort_by(|a, b| {
            a.order.unwrap_or(f64::NEG_INFINITY).total_cmp(&b.order.unwrap_or(f64::NEG_INFINITY))
        });
        let text: String = blocks.iter().map(|b| b.text.as_deref().unwrap_or("")).collect();
        let first = blocks[0];
        out.entry(first.category_type.clone()).or_default().push(GtItem {
            category: first.category_type.clone(),
            order: first.order,
            text: Some(text),
            latex: None,
            html: None,
            attribute: None,
        });
    }
    out
}

/// `get_sorted_text_list`: stable sort by order (missing/0 → 0).
fn sorted_by_order(mut v: Vec<GtItem>) -> Vec<GtItem> {
    v.sort_by(|a, b| a.order.unwrap_or(0.0).total_cmp(&b.order.unwrap_or(0.0)));
    v
}

/// All matched pairs of one page, split the way `process_get_matched_elements` does.
#[derive(Debug, Clone, Default)]
pub struct PageMatches {
    /// Text pairs (ignore categories removed); the reading order is computed from these.
    pub text: Vec<MatchEntry>,
    /// Display-formula pairs with a GT.
    pub formula: Vec<MatchEntry>,
    /// HTML table pairs with a GT.
    pub html_table: Vec<MatchEntry>,
    /// LaTeX table pairs with a GT.
    pub latex_table: Vec<MatchEntry>,
}

/// `process_get_matched_elements` for one page and its prediction Markdown.
pub fn match_page(page: &Page, prediction: &str, method: MatchMethod) -> PageMatches {
    let pred: PredPage = md_tex_filter(prediction);
    let elements = page_elements(page);
    let mut pool: Vec<PredItem> = Vec::new();
    for (cat, blocks) in &pred.groups {
        if !matches!(cat, PredCategory::HtmlTable | PredCategory::LatexTable) {
            pool.extend(blocks.iter().cloned());
        }
    }
    let mut gt_mix: Vec<GtItem> = Vec::new();
    for cat in TEXT_CATEGORIES.iter().chain(std::iter::once(&"equation_isolated")) {
        if let Some(v) = elements.get(*cat) {
            gt_mix.extend(v.iter().cloned());
        }
    }
    let gt_mix = sorted_by_order(gt_mix);
    let mut out = PageMatches::default();
    if let Some(tables) = elements.get("table").filter(|t| !t.is_empty()) {
        let gt_table = sorted_by_order(tables.clone());
        let latex = pred.get(PredCategory::LatexTable);
        let html = pred.get(PredCategory::HtmlTable);
        let (entries, cells, is_latex) = if latex.is_empty() && html.is_empty() {
            let (e, c) = match_simple_typed(&gt_table, &[], LineType::HtmlTable);
            (e, c, false)
        } else if latex.len() > html.len() {
            let (e, c) = match_simple_typed(&gt_table, latex, LineType::LatexTable);
            (e, c, true)
        } else {
            let (e, c) = match_simple_typed(&gt_table, html, LineType::HtmlTable);
            (e, c, false)
        };
        let entries: Vec<MatchEntry> = entries.into_iter().filter(|e| e.gt_idx.is_some()).collect();
        if is_latex {
            out.latex_table = entries;
        } else {
            out.html_table = entries;
        }
        if let Some(c) = cells {
            pool.extend(c);
        }
    }
    let matched = match method {
        MatchMethod::Quick => match_quick(&gt_mix, &pool),
        MatchMethod::Simple => match_simple(&gt_mix, &pool),
        MatchMethod::NoSplit => match_no_split(&gt_mix, &pool),
    };
    for e in matched {
        match e.gt_category_type.as_deref() {
            Some(c) if TEXT_CATEGORIES.contains(&c) && !IGNORE_CATEGORIES.contains(&c) => {
                out.text.push(e)
            }
            Some(c) if TEXT_CATEGORIES.contains(&c) => {}
            Some("equation_isolated") if e.gt_idx.is_some() => out.formula.push(e),
            _ => {}
        }
    }
    out
}
