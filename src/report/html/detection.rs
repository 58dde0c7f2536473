//! The detection suite's pictures: each scored page of a document, per provider version, with
//! its matches at IoU 0.5 drawn in three colours — true positives (the detection, green),
//! false positives (red) and misses (the truth box no detection found, blue, dashed) — each
//! box's class and IoU on hover. Drawn from the `map` row's trace (the page set the suite
//! scored), so the picture is exactly what was counted.

use std::fmt::Write as _;

use super::escape::esc;
use crate::store::SiteScore;
use crate::suites::detection::score::PageSet;

/// Width in CSS pixels of one drawn page.
const WIDTH: f64 = 360.0;

/// The section, or nothing where no `map` row of the suite is among the scores.
pub(crate) fn matches_section(scores: &[SiteScore], max_pages: u32) -> String {
    let mut sets: Vec<(String, PageSet)> = Vec::new();
    for r in scores.iter().filter(|r| r.metric == "map") {
        let Some(set) = r.trace.as_deref().and_then(|t| serde_json::from_str::<PageSet>(t).ok())
        else {
            continue;
        };
        sets.push((format!("{}@{}", r.provider, r.provider_version), set));
    }
    if sets.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        r#"<h2 id="matches">Matches at IoU 0.5</h2><ul class="legend"><li><span class="sw" style="background:#2ca02c"></span>true positive</li><li><span class="sw" style="background:#d62728"></span>false positive</li><li><span class="sw" style="background:#1f77b4"></span>miss (truth box not found)</li></ul><p class="muted">Hover a box for its class and IoU; boxes in the classes of the scored taxonomy, in page points.</p><div class="pages">"#,
    );
    let pages: Vec<u32> = {
        let mut p: Vec<u32> =
            sets.iter().flat_map(|(_, s)| s.pages.iter().map(|p| p.page)).collect();
        p.sort_unstable();
        p.dedup();
        p.truncate(max_pages as usize);
        p
    };
    for page in pages {
        s.push_str(r#"<div class="page-row">"#);
        for (label, set) in &sets {
            if let Some(p) = set.pages.iter().find(|p| p.page == page) {
                s.push_str(&page_svg(label, set, p));
            }
        }
        s.push_str("</div>");
    }
    s.push_str("</div>");
    s
}

fn class(set: &PageSet, c: f64) -> &str {
    set.classes.get((c as usize).wrapping_sub(1)).map_or("?", String::as_str)
}

/// One page of one provider version.
fn page_svg(label: &str, set: &PageSet, p: &crate::suites::detection::score::DetPage) -> String {
    let [pw, ph] = p.size;
    let h = (WIDTH * ph / pw.max(1.0)).round();
    let mut s = format!(
        r#"<figure class="page det" data-provider="{}" data-page="{}"><svg width="{WIDTH}" height="{h}" viewBox="0 0 {pw} {ph}" preserveAspectRatio="none" style="border:1px solid #ccc">"#,
        esc(label),
        p.page + 1
    );
    let mut rect = |b: &[f64], colour: &str, dash: bool, title: String, kind: &str| {
        let _ = write!(
            s,
            r#"<rect class="m-{kind}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" style="stroke:{colour};fill:{colour};fill-opacity:0.12;stroke-width:{:.1}{}"><title>{}</title></rect>"#,
            b[1],
            b[2],
            b[3],
            b[4],
            (pw / 300.0).max(0.5),
            if dash { ";stroke-dasharray:4 2" } else { "" },
            esc(&title)
        );
    };
    for &(t, d, iou) in &p.tp {
        let b = &p.dts[d];
        rect(
            b,
            "#2ca02c",
            false,
            format!("true positive: {} · IoU {iou:.3}", class(set, b[0])),
            "tp",
        );
        let _ = t;
    }
    for &d in &p.fp {
        let b = &p.dts[d];
        rect(b, "#d62728", false, format!("false positive: {}", class(set, b[0])), "fp");
    }
    for &g in &p.miss {
        let b = &p.gts[g];
        rect(b, "#1f77b4", true, format!("miss: {}", class(set, b[0])), "miss");
    }
    let _ = write!(
        s,
        "</svg><figcaption>{} · page {} · {} TP, {} FP, {} missed</figcaption></figure>",
        esc(label),
        p.page + 1,
        p.tp.len(),
        p.fp.len(),
        p.miss.len()
    );
    s
}
