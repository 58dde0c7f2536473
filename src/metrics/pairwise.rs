//! One (ground truth, prediction) pair scored by a metric the suites use, outside any store:
//! what `corpus score` runs per line, so that scripts get the same numbers as the suites (and
//! as the reference packages' per-pair functions) without ingesting anything.
//!
//! | metric | inputs | score | as |
//! |---|---|---|---|
//! | `teds`, `teds_s` | HTML tables | TEDS / TEDS-S, 1 = same | PubTabNet `TEDS.evaluate` ([`super::teds`]) |
//! | `grits` | HTML tables | GriTS-Con F (Top and Con P/R/F in the trace) | table-transformer `grits_from_html` ([`super::grits`]) |
//! | `edit` | strings | Levenshtein distance / longer length, 0 = same | OmniDocBench's per-sample `Edit_dist` |
//!
//! TEDS input without a `<body>` is wrapped in `<html><body>…</body></html>` first, as
//! OmniDocBench does (PubTabNet's function reads `body/table` and scores a bare table 0).
//! Unlike the reference functions, input they would silently score 0 (no `<table>` in the
//! HTML; two empty strings, which OmniDocBench leaves out) is an error naming the side.

use serde_json::{json, Value};

use super::{grits, levenshtein, teds};

listed_enum! {
    /// A metric `corpus score` can compute per pair.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Metric {
        /// TEDS on HTML tables (structure and cell text).
        Teds,
        /// TEDS-S: structure only.
        TedsS,
        /// GriTS-Top and GriTS-Con; the score is GriTS-Con F.
        Grits,
        /// OmniDocBench's normalised edit distance (lower is better).
        Edit,
    }
}

impl Metric {
    /// The id on the command line and in the output.
    pub fn id(self) -> &'static str {
        match self {
            Metric::Teds => "teds",
            Metric::TedsS => "teds_s",
            Metric::Grits => "grits",
            Metric::Edit => "edit",
        }
    }

    /// The metric named `id`.
    pub fn from_id(id: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.id() == id)
    }
}

/// Scores one pair: the score, and a trace of what it was computed from. An error says which
/// side cannot be scored and why.
pub fn score(metric: Metric, gt: &str, pred: &str) -> Result<(f64, Value), String> {
    match metric {
        Metric::Teds | Metric::TedsS => {
            // PubTabNet's TEDS reads `body/table`; a bare table is wrapped as OmniDocBench wraps
            // it before calling TEDS.
            let parse = |side: &str, html: &str| {
                let doc = if html.to_ascii_lowercase().contains("<body") {
                    html.to_string()
                } else {
                    format!("<html><body>{html}</body></html>")
                };
                teds::parse_table(&doc).map_err(|e| format!("{side}: not an HTML table: {e}"))
            };
            let (g, p) = (parse("gt", gt)?, parse("pred", pred)?);
            let structure_only = metric == Metric::TedsS;
            let s = teds::teds_tables(&p, &g, structure_only);
            Ok((s, json!({"gt_nodes": g.n_elements, "pred_nodes": p.n_elements})))
        }
        Metric::Grits => {
            for (side, html) in [("gt", gt), ("pred", pred)] {
                if !html.to_ascii_lowercase().contains("<table") {
                    return Err(format!("{side}: not an HTML table: no <table> element"));
                }
            }
            let r = grits::grits_from_html(gt, pred);
            let trace = json!({
                "grits_top_p": r.top.precision, "grits_top_r": r.top.recall, "grits_top_f": r.top.f,
                "grits_con_p": r.con.precision, "grits_con_r": r.con.recall, "grits_con_f": r.con.f,
            });
            Ok((r.con.f, trace))
        }
        Metric::Edit => {
            let (g, p): (Vec<char>, Vec<char>) = (gt.chars().collect(), pred.chars().collect());
            let upper = g.len().max(p.len());
            if upper == 0 {
                return Err("gt and pred are both empty: the edit distance is undefined \
                            (OmniDocBench leaves such samples out)"
                    .into());
            }
            let d = levenshtein::levenshtein_chars(&g, &p);
            Ok((d as f64 / upper as f64, json!({"distance": d, "upper_len": upper})))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>";

    #[test]
    fn identical_tables_score_one_and_the_trace_names_the_parts() {
        for m in [Metric::Teds, Metric::TedsS, Metric::Grits] {
            let (s, trace) = score(m, T, T).unwrap();
            assert_eq!(s, 1.0, "{m:?}");
            assert!(trace.is_object());
        }
    }

    #[test]
    fn one_changed_cell_text_costs_teds_but_not_teds_s() {
        let pred = T.replace("<td>2</td>", "<td>3</td>");
        let (s, trace) = score(Metric::Teds, T, &pred).unwrap();
        // The denominator counts the table's descendant elements: 2 rows and 4 cells.
        let n = trace["gt_nodes"].as_u64().unwrap() as f64;
        assert_eq!(n, 6.0);
        // One cell's text differs in its one character: a rename costing 1.
        assert!((s - (1.0 - 1.0 / n)).abs() < 1e-12, "{s} with {n} nodes");
        assert_eq!(score(Metric::TedsS, T, &pred).unwrap().0, 1.0);
        // GriTS-Con: 3 of 4 cells identical, the fourth LCS 0 of 1.
        let (g, _) = score(Metric::Grits, T, &pred).unwrap();
        assert!((g - 0.75).abs() < 1e-12, "{g}");
    }

    #[test]
    fn edit_is_the_distance_over_the_longer_length() {
        assert_eq!(score(Metric::Edit, "kitten", "sitting").unwrap().0, 3.0 / 7.0);
        assert_eq!(score(Metric::Edit, "abc", "abc").unwrap().0, 0.0);
        assert_eq!(score(Metric::Edit, "", "ab").unwrap().0, 1.0);
        assert!(score(Metric::Edit, "", "").unwrap_err().contains("both empty"));
    }

    #[test]
    fn a_side_without_a_table_is_an_error_naming_it() {
        let e = score(Metric::Teds, T, "just text").unwrap_err();
        assert!(e.starts_with("pred:"), "{e}");
        let e = score(Metric::Grits, "<p>x</p>", T).unwrap_err();
        assert!(e.starts_with("gt:"), "{e}");
    }

    #[test]
    fn ids_round_trip() {
        for m in Metric::ALL {
            assert_eq!(Metric::from_id(m.id()), Some(m));
        }
        assert_eq!(Metric::from_id("cdm"), None);
    }
}
