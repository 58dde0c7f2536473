//! Items without sources: seeded grammars for tables (header rows, column groups, row
//! groups, rules, signed numbers, decimals, units, text cells) and formulas, plus the filler
//! text between items, and the complexity rule every table is classed by.

use super::rng::Rng;

/// The words of the filler text and of text cells: plain ASCII, no LaTeX specials, so the
/// truth is the text as typed.
const WORDS: [&str; 96] = [
    "model",
    "data",
    "result",
    "method",
    "table",
    "value",
    "system",
    "sample",
    "test",
    "error",
    "rate",
    "signal",
    "layer",
    "network",
    "source",
    "field",
    "range",
    "level",
    "point",
    "set",
    "we",
    "the",
    "a",
    "of",
    "in",
    "and",
    "to",
    "for",
    "with",
    "on",
    "is",
    "are",
    "this",
    "that",
    "each",
    "both",
    "from",
    "over",
    "under",
    "after",
    "before",
    "between",
    "across",
    "while",
    "shows",
    "gives",
    "uses",
    "reports",
    "improves",
    "reduces",
    "keeps",
    "yields",
    "holds",
    "small",
    "large",
    "new",
    "low",
    "high",
    "mean",
    "final",
    "first",
    "second",
    "joint",
    "linear",
    "random",
    "robust",
    "stable",
    "sparse",
    "dense",
    "local",
    "global",
    "main",
    "baseline",
    "average",
    "training",
    "validation",
    "noise",
    "weight",
    "loss",
    "score",
    "measure",
    "dataset",
    "feature",
    "cluster",
    "region",
    "sensor",
    "phase",
    "energy",
    "density",
    "flow",
    "pressure",
    "volume",
    "time",
    "step",
    "count",
    "size",
];

const NAMES: [&str; 24] = [
    "Baseline", "Linear", "Ridge", "Lasso", "Boost", "Forest", "Kernel", "Graph", "Cascade",
    "Vector", "Sparse", "Dense", "Hybrid", "Adaptive", "Joint", "Local", "Global", "Naive",
    "Ensemble", "Residual", "Spectral", "Mixed", "Robust", "Neural",
];

const UNITS: [(&str, &str); 8] = [
    ("Time", "ms"),
    ("Memory", "GB"),
    ("Error", "\\%"),
    ("Accuracy", "\\%"),
    ("Energy", "J"),
    ("Speed", "km/h"),
    ("Size", "MB"),
    ("Rate", "Hz"),
];

/// A sentence of `min..=max` words, capitalised, ending with a period.
fn sentence(rng: &mut Rng, min: u64, max: u64) -> String {
    let n = rng.range(min, max) as usize;
    let mut words: Vec<String> = (0..n).map(|_| rng.pick(&WORDS).to_string()).collect();
    if let Some(first) = words.first_mut() {
        let mut c = first.chars();
        *first =
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default();
    }
    words.join(" ") + "."
}

/// Filler text of about `min..=max` characters (whole sentences).
pub(crate) fn filler(rng: &mut Rng, min: usize, max: usize) -> String {
    let target = rng.range(min as u64, max as u64) as usize;
    let mut out = String::new();
    while out.len() < target {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&sentence(rng, 5, 14));
    }
    out
}

/// How a generated column prints its numbers.
#[derive(Clone, Copy)]
enum NumStyle {
    Decimal(usize),
    Signed(usize),
    Percent(usize),
    PlusMinus(usize),
    Integer,
}

fn number(rng: &mut Rng, style: NumStyle) -> String {
    let v = (rng.next_u64() % 100_000) as f64 / 1000.0;
    match style {
        NumStyle::Decimal(d) => format!("{v:.d$}"),
        NumStyle::Signed(d) => {
            let s = if rng.chance(0.5) { "-" } else { "+" };
            format!("{s}{:.d$}", v / 10.0)
        }
        NumStyle::Percent(d) => format!("{:.d$}\\%", v.min(99.9)),
        NumStyle::PlusMinus(d) => format!("{v:.d$} $\\pm$ {:.d$}", v / 37.0),
        NumStyle::Integer => format!("{}", rng.range(1, 99_999)),
    }
}

fn text_cell(rng: &mut Rng) -> String {
    let n = rng.range(1, 3) as usize;
    let mut w: Vec<&str> = (0..n).map(|_| rng.pick(&WORDS)).collect();
    w.dedup();
    w.join(" ")
}

/// Rule styles of generated tables.
#[derive(Clone, Copy, PartialEq)]
enum Rules {
    Booktabs,
    Hlines,
    Grid,
    None,
}

/// Generates one table: `\begin{tabular}…\end{tabular}`.
pub fn table(rng: &mut Rng) -> String {
    let rules =
        rng.pick(&[Rules::Booktabs, Rules::Booktabs, Rules::Hlines, Rules::Grid, Rules::None]);
    let data_cols = rng.range(2, 6) as usize;
    let groups = rng.chance(0.35) && data_cols >= 4;
    let row_groups = rng.chance(0.3);
    let body_rows = rng.range(3, 9) as usize;
    let lead = usize::from(row_groups) + 1;
    let cols = lead + data_cols;
    let styles: Vec<NumStyle> = (0..data_cols)
        .map(|_| {
            let d = rng.range(1, 3) as usize;
            rng.pick(&[
                NumStyle::Decimal(d),
                NumStyle::Decimal(d),
                NumStyle::Signed(d),
                NumStyle::Percent(d),
                NumStyle::PlusMinus(d),
                NumStyle::Integer,
            ])
        })
        .collect();
    let text_col = rng.chance(0.25).then(|| rng.below(data_cols));
    let mut spec = String::new();
    let bar = if rules == Rules::Grid { "|" } else { "" };
    spec.push_str(bar);
    for c in 0..cols {
        spec.push(if c < lead { 'l' } else { rng.pick(&['c', 'c', 'r']) });
        spec.push_str(bar);
    }
    let (top, mid, bottom) = match rules {
        Rules::Booktabs => ("\\toprule", "\\midrule", "\\bottomrule"),
        Rules::Hlines | Rules::Grid => ("\\hline", "\\hline", "\\hline"),
        Rules::None => ("", "", ""),
    };
    let mut lines = vec![format!("\\begin{{tabular}}{{{spec}}}")];
    if !top.is_empty() {
        lines.push(top.to_string());
    }
    let bold_head = rng.chance(0.5);
    let head = |s: String| if bold_head { format!("\\textbf{{{s}}}") } else { s };
    let headers: Vec<String> = (0..data_cols)
        .map(|c| {
            if Some(c) == text_col {
                return head("Notes".to_string());
            }
            let (name, unit) = rng.pick(&UNITS);
            if rng.chance(0.5) {
                head(format!("{name} ({unit})"))
            } else {
                head(format!("{} {}", rng.pick(&NAMES), rng.range(1, 9)))
            }
        })
        .collect();
    let mut lead_heads = vec![head("Method".to_string())];
    if row_groups {
        lead_heads.insert(0, head("Group".to_string()));
    }
    if groups {
        // A header row of column groups over the data columns, in spans of two or more.
        let mut cells: Vec<String> = vec![String::new(); lead];
        let mut c = 0;
        let mut cmid = Vec::new();
        while c < data_cols {
            let w = (rng.range(2, 3) as usize).min(data_cols - c);
            let name = format!("{} {}", rng.pick(&NAMES), ["A", "B", "C", "D"][cmid.len() % 4]);
            if w == 1 {
                cells.push(name);
            } else {
                let a = if rules == Rules::Grid { "c|" } else { "c" };
                cells.push(format!("\\multicolumn{{{w}}}{{{a}}}{{{name}}}"));
                let (from, to) = (lead + c + 1, lead + c + w);
                cmid.push(match rules {
                    Rules::Booktabs => format!("\\cmidrule(lr){{{from}-{to}}}"),
                    Rules::None => String::new(),
                    _ => format!("\\cline{{{from}-{to}}}"),
                });
            }
            c += w;
        }
        lines.push(format!("{} \\\\ {}", cells.join(" & "), cmid.join(" ")).trim_end().to_string());
    }
    let mut hrow = lead_heads;
    hrow.extend(headers);
    lines.push(format!("{} \\\\{}", hrow.join(" & "), pre(mid)));
    let mut r = 0;
    let mut group_no = 0;
    while r < body_rows {
        let span =
            if row_groups { (rng.range(2, 3) as usize).min(body_rows - r).max(1) } else { 1 };
        for k in 0..span {
            let mut cells = Vec::new();
            if row_groups {
                cells.push(if k == 0 {
                    let g = format!("{} {}", rng.pick(&NAMES), group_no + 1);
                    if span > 1 {
                        format!("\\multirow{{{span}}}{{*}}{{{g}}}")
                    } else {
                        g
                    }
                } else {
                    String::new()
                });
            }
            cells.push(format!("{}-{}", rng.pick(&NAMES), rng.range(1, 99)));
            for (c, style) in styles.iter().enumerate() {
                let cell = if Some(c) == text_col {
                    text_cell(rng)
                } else if rng.chance(0.04) {
                    String::new()
                } else {
                    let v = number(rng, *style);
                    if rng.chance(0.08) {
                        format!("\\textbf{{{v}}}")
                    } else {
                        v
                    }
                };
                cells.push(cell);
            }
            let last_row = r + k + 1 == body_rows;
            let after = if last_row {
                pre(bottom)
            } else if rules == Rules::Grid {
                if row_groups && k + 1 < span {
                    format!(" \\cline{{2-{cols}}}")
                } else {
                    " \\hline".to_string()
                }
            } else if row_groups && k + 1 == span && rules != Rules::None {
                pre(mid)
            } else {
                String::new()
            };
            lines.push(format!("{} \\\\{after}", cells.join(" & ")));
        }
        r += span;
        group_no += 1;
    }
    lines.push("\\end{tabular}".to_string());
    lines.join("\n")
}

fn pre(rule: &str) -> String {
    if rule.is_empty() {
        String::new()
    } else {
        format!(" {rule}")
    }
}

const GREEK: [&str; 12] = [
    "\\alpha", "\\beta", "\\gamma", "\\delta", "\\lambda", "\\mu", "\\sigma", "\\theta", "\\phi",
    "\\omega", "\\rho", "\\tau",
];
const LETTERS: [&str; 10] = ["x", "y", "z", "a", "b", "n", "k", "t", "f", "g"];

fn atom(rng: &mut Rng) -> String {
    let base = if rng.chance(0.35) { rng.pick(&GREEK) } else { rng.pick(&LETTERS) };
    match rng.below(5) {
        0 => format!("{base}_{{{}}}", rng.pick(&["i", "j", "0", "1", "n", "k"])),
        1 => format!("{base}^{{{}}}", rng.pick(&["2", "3", "n", "-1", "\\prime"])),
        2 => format!("{base}_{{{}}}^{{{}}}", rng.pick(&["i", "0"]), rng.pick(&["2", "n"])),
        _ => base.to_string(),
    }
}

fn expr(rng: &mut Rng, depth: u32) -> String {
    let n = rng.range(1, 3);
    let mut out = atom(rng);
    for _ in 1..n {
        out.push_str(rng.pick(&[" + ", " - ", " ", " \\cdot "]));
        out.push_str(&if depth > 0 && rng.chance(0.4) { term(rng, depth - 1) } else { atom(rng) });
    }
    out
}

fn term(rng: &mut Rng, depth: u32) -> String {
    match rng.below(7) {
        0 => format!("\\frac{{{}}}{{{}}}", expr(rng, depth), expr(rng, depth)),
        1 => format!("\\sqrt{{{}}}", expr(rng, depth)),
        2 => format!("\\left( {} \\right)^{{2}}", expr(rng, depth)),
        3 => format!("\\sum_{{i=1}}^{{n}} {}", expr(rng, depth)),
        4 => format!("\\int_{{0}}^{{1}} {} \\, dx", expr(rng, depth)),
        5 => format!("\\log {}", atom(rng)),
        _ => expr(rng, depth),
    }
}

/// Generates one formula body (no delimiters); `inline` ones are kept flat.
pub fn formula(rng: &mut Rng, inline: bool) -> String {
    let depth = if inline { 0 } else { 2 };
    let lhs = atom(rng);
    let rel = rng.pick(&["=", "=", "\\leq", "\\approx", "\\geq"]);
    let rhs = if inline && rng.chance(0.5) { expr(rng, 0) } else { term(rng, depth) };
    format!("{lhs} {rel} {rhs}")
}

/// A table's complexity class (`docs/synth.md`): `complex` when it has both row spans
/// (`\multirow`) and column spans (`\multicolumn` over two or more columns), or nested
/// structure (a `tabular` inside a cell, `\makecell`, `\shortstack`, `\diagbox`);
/// `moderate` with one kind of span; `simple` otherwise.
pub fn complexity(latex: &str) -> &'static str {
    let rows = latex.contains("\\multirow");
    let cols = regex_multicolumn().is_match(latex);
    let nested = latex.matches("\\begin{tabular").count() > 1
        || ["\\makecell", "\\shortstack", "\\diagbox"].iter().any(|m| latex.contains(m));
    if nested || (rows && cols) {
        "complex"
    } else if rows || cols {
        "moderate"
    } else {
        "simple"
    }
}

fn regex_multicolumn() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"\\multicolumn\s*\{\s*(?:[2-9]|\d\d+)\s*\}").expect("a valid pattern")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::latex_table::parse_latex_table;

    #[test]
    fn generated_tables_parse_to_full_grids_and_vary() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let t = table(&mut Rng::new(seed));
            let parsed = parse_latex_table(&t).unwrap_or_else(|e| panic!("{e}: {t}"));
            assert!(parsed.rows >= 4 && parsed.cols >= 3, "{t}");
            seen.insert(complexity(&t));
        }
        assert_eq!(seen.len(), 3, "all three classes come out: {seen:?}");
        assert_eq!(table(&mut Rng::new(5)), table(&mut Rng::new(5)));
        assert_ne!(table(&mut Rng::new(5)), table(&mut Rng::new(6)));
    }

    #[test]
    fn complexity_rule() {
        assert_eq!(complexity("\\begin{tabular}{ll} a & b \\\\ \\end{tabular}"), "simple");
        assert_eq!(complexity("\\multicolumn{1}{c}{a} & b"), "simple");
        assert_eq!(complexity("\\multicolumn{2}{c}{a} \\\\"), "moderate");
        assert_eq!(complexity("\\multirow{2}{*}{a} & b"), "moderate");
        assert_eq!(complexity("\\multirow{2}{*}{a} & \\multicolumn{2}{c}{b}"), "complex");
        assert_eq!(complexity("a & \\makecell{b \\\\ c}"), "complex");
    }

    #[test]
    fn formulas_and_filler_are_seeded() {
        let f = formula(&mut Rng::new(1), false);
        assert_eq!(f, formula(&mut Rng::new(1), false));
        let text = filler(&mut Rng::new(2), 120, 200);
        assert!(text.len() >= 120 && text.ends_with('.'), "{text}");
        assert!(!text.contains(['\\', '$', '%', '&', '_']));
    }
}
