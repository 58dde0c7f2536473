//! `corpus agree`'s text and JSON output. The text fits 120 columns: providers are numbered
//! once and the matrices' columns carry the numbers (at most [`COLS_PER_BLOCK`] a block, more
//! providers take several blocks); long document names are cut in the middle.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::{AgreeReport, PageResult};
use crate::metrics::agree::{Measure, MAX_ASSIGN, MAX_TEXT_CHARS};

/// Matrix columns per block of the text output (keeps a line within 120 columns).
pub const COLS_PER_BLOCK: usize = 12;

/// Width of the row label of a matrix (`[10] provider@version`).
const LABEL: usize = 26;

/// What each measure's matrix says, for the headings.
pub fn measure_caption(m: Measure) -> &'static str {
    match m {
        Measure::Text => "text: 1 − normalised edit distance of the page text",
        Measure::Table => "table: TEDS of the paired tables, an unpaired table 0",
        Measure::Formula => {
            "formula: edit similarity of the paired display formulas, an unpaired one 0"
        }
        Measure::Order => {
            "order: 1 − normalised edit distance of the order of the paired text blocks"
        }
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.3}"))
}

/// Cuts `s` to `n` chars, keeping both ends (`abc…xyz`).
pub fn cut(s: &str, n: usize) -> String {
    let len = s.chars().count();
    if len <= n {
        return s.to_string();
    }
    let head = (n - 1) / 2;
    let tail = n - 1 - head;
    let c: Vec<char> = s.chars().collect();
    format!(
        "{}…{}",
        c[..head].iter().collect::<String>(),
        c[len - tail..].iter().collect::<String>()
    )
}

/// The text output: providers, one matrix per measure with each provider's mean, and the
/// `top` most disagreed pages.
pub fn text(r: &AgreeReport, top: usize) -> String {
    let mut s = String::new();
    let compared = r.pages.len();
    let _ = writeln!(
        s,
        "Agreement of {} providers on {} of {} documents{} ({} pages); no truth used.",
        r.providers.len(),
        r.compared_documents,
        r.documents,
        r.dataset.as_deref().map(|d| format!(" in dataset {d}")).unwrap_or_default(),
        compared
    );
    if r.compared_documents < r.documents {
        let _ = writeln!(
            s,
            "{} documents without outputs of two providers are not compared.",
            r.documents - r.compared_documents
        );
    }
    s.push_str("\nProviders (newest output per document):\n");
    for (i, p) in r.providers.iter().enumerate() {
        let _ = write!(s, "  [{}] {:<40} {:>6} documents", i + 1, cut(&p.label(), 40), p.documents);
        if p.unusable > 0 {
            let _ = write!(s, ", {} failed or unreadable (left out)", p.unusable);
        }
        s.push('\n');
    }
    for m in Measure::ALL {
        matrix_text(&mut s, r, m);
    }
    ranking_text(&mut s, r, top);
    s
}

fn matrix_text(s: &mut String, r: &AgreeReport, m: Measure) {
    let mat = r.matrix(m);
    let means = r.means(m);
    let n = r.providers.len();
    let _ = writeln!(s, "\n{} (mean over the pages where it is defined)", measure_caption(m));
    let blocks: Vec<std::ops::Range<usize>> =
        (0..n).step_by(COLS_PER_BLOCK).map(|a| a..(a + COLS_PER_BLOCK).min(n)).collect();
    for (k, cols) in blocks.iter().enumerate() {
        let last = k + 1 == blocks.len();
        let _ = write!(s, "{:<LABEL$}", "");
        for j in cols.clone() {
            let _ = write!(s, "{:>7}", format!("[{}]", j + 1));
        }
        if last {
            let _ = write!(s, "{:>8}", "mean");
        }
        s.push('\n');
        for (i, (provider, row)) in r.providers.iter().zip(mat).enumerate().take(n) {
            let lbl = format!("[{}] {}", i + 1, provider.label());
            let _ = write!(s, "{:<LABEL$}", cut(&lbl, LABEL - 1));
            for j in cols.clone() {
                let v = if i == j { "·".to_string() } else { num(row[j].mean) };
                let _ = write!(s, "{v:>7}");
            }
            if last {
                let _ = write!(s, "{:>8}", num(means.get(i).copied().flatten()));
            }
            s.push('\n');
        }
    }
}

/// The pair of a page with the lowest text agreement, as `[1]–[3] 0.412`.
fn least_pair(p: &PageResult) -> String {
    match p.least_agreeing() {
        Some(x) => format!("[{}]–[{}] {}", x.a + 1, x.b + 1, num(x.agreement.text)),
        None => "–".into(),
    }
}

fn ranking_text(s: &mut String, r: &AgreeReport, top: usize) {
    let ranked: Vec<&PageResult> = r.ranked().collect();
    let _ = writeln!(
        s,
        "\nPages ranked by disagreement (spread = 1 − mean pairwise text agreement), top {} of {}:",
        top.min(ranked.len()),
        ranked.len()
    );
    if ranked.is_empty() {
        s.push_str("  none: no page has text from two providers\n");
        return;
    }
    let _ = writeln!(
        s,
        "{:>5} {:>7} {:>5}  {:<60} least agreeing",
        "rank", "spread", "page", "document"
    );
    for (k, p) in ranked.iter().take(top).enumerate() {
        let _ = writeln!(
            s,
            "{:>5} {:>7} {:>5}  {:<60} {}",
            k + 1,
            num(p.spread),
            p.page + 1,
            cut(&p.document, 60),
            least_pair(p)
        );
    }
}

/// The JSON output: everything, with the rules' constants and the `top` pages first.
pub fn json(r: &AgreeReport, top: usize) -> Value {
    let labels: Vec<String> = r.providers.iter().map(|p| p.label()).collect();
    let matrices: Value = Measure::ALL
        .iter()
        .map(|&m| {
            let rows: Vec<Value> = r
                .matrix(m)
                .iter()
                .map(|row| row.iter().map(|c| json!({"mean": c.mean, "pages": c.pages})).collect())
                .collect();
            (
                m.as_str().to_string(),
                json!({"matrix": rows, "provider_means": r.means(m),
                "definition": measure_caption(m)}),
            )
        })
        .collect::<serde_json::Map<String, Value>>()
        .into();
    let top_pages: Vec<Value> = r
        .ranked()
        .take(top)
        .enumerate()
        .map(|(k, p)| {
            json!({"rank": k + 1, "document": p.document, "dataset": p.dataset, "document_id": p.document_id,
                "page": p.page + 1, "spread": p.spread})
        })
        .collect();
    json!({
        "dataset": r.dataset,
        "documents": r.documents,
        "compared_documents": r.compared_documents,
        "providers": r.providers,
        "labels": labels,
        "measures": matrices,
        "top": top_pages,
        "pages": r.pages.iter().map(|p| json!({
            "document": p.document, "dataset": p.dataset, "document_id": p.document_id, "hash": p.hash,
            "page": p.page + 1, "spread": p.spread, "providers": p.providers, "pairs": p.pairs,
        })).collect::<Vec<_>>(),
        "limits": {"max_text_chars": MAX_TEXT_CHARS, "max_assign": MAX_ASSIGN},
    })
}
