//! The table suite's pairs drawn side by side on a document page: each GT table beside the
//! predicted table the suite matched it to (the `pairs` of the stored `teds` trace), with the
//! cells that differ marked. Slots are paired by GriTS-Con's row and column alignment (the
//! alignment `grits_con` and the value accuracy use), so a missing row does not shift every
//! cell below it into a "difference".

use std::collections::HashMap;

use super::escape::esc;
use crate::doc::Table;
use crate::metrics::grits::{grits_con_aligned, text_grid};

/// How a slot of one table stands against the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Its aligned slot holds the same text (whitespace collapsed).
    Same,
    /// Its aligned slot holds other text.
    Differs,
    /// Its row or column has no aligned counterpart.
    Unaligned,
}

/// The mark of every slot (row-major) of the GT table and of the predicted table.
pub(crate) fn marks(gt: &Table, pred: &Table) -> (Vec<Mark>, Vec<Mark>) {
    let (_, al) = grits_con_aligned(gt, pred);
    let (tg, pg) = (text_grid(gt), text_grid(pred));
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let rows: HashMap<usize, usize> = al.rows.iter().copied().collect();
    let cols: HashMap<usize, usize> = al.cols.iter().copied().collect();
    let mut gm = vec![Mark::Unaligned; tg.rows * tg.cols];
    let mut pm = vec![Mark::Unaligned; pg.rows * pg.cols];
    for r in 0..tg.rows {
        for c in 0..tg.cols {
            let (Some(&pr), Some(&pc)) = (rows.get(&r), cols.get(&c)) else { continue };
            let same = norm(tg.slots[r * tg.cols + c]) == norm(pg.slots[pr * pg.cols + pc]);
            let m = if same { Mark::Same } else { Mark::Differs };
            gm[r * tg.cols + c] = m;
            pm[pr * pg.cols + pc] = m;
        }
    }
    (gm, pm)
}

/// A table as HTML, each cell classed by the mark of its top-left slot: `miss` (the truth's
/// cell the prediction lacks or reads otherwise), `extra` (the prediction's), or none.
pub fn table_html(t: &Table, marks: &[Mark], class: &str) -> String {
    let cols = t.cols as usize;
    let mut s = String::from("<table class=\"cells\"><tbody>");
    for r in 0..t.rows {
        s.push_str("<tr>");
        let mut row: Vec<&crate::doc::Cell> = t.cells.iter().filter(|c| c.row == r).collect();
        row.sort_by_key(|c| c.col);
        for c in row {
            let m = marks.get(c.row as usize * cols + c.col as usize).copied();
            let cls = if m == Some(Mark::Same) { "" } else { class };
            let span =
                |n: u32, a: &str| if n > 1 { format!(" {a}=\"{n}\"") } else { String::new() };
            s.push_str(&format!(
                "<td class=\"{cls}\"{}{}>{}</td>",
                span(c.row_span, "rowspan"),
                span(c.col_span, "colspan"),
                esc(&c.text)
            ));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

/// The matched pairs of one provider's output, side by side; unmatched GT tables and
/// unmatched predicted tables listed whole.
pub(crate) fn pairs_html(gt: &[Table], pred: &[Table], pairs: &[(usize, Option<usize>)]) -> String {
    let mut s = String::new();
    for &(g, p) in pairs {
        let Some(gt_t) = gt.get(g) else { continue };
        match p.and_then(|p| pred.get(p).map(|t| (p, t))) {
            Some((p, pred_t)) => {
                let (gm, pm) = marks(gt_t, pred_t);
                let differs = gm.iter().filter(|m| **m != Mark::Same).count();
                s.push_str(&format!(
                    "<p class=\"muted\">GT table {} ↔ predicted table {}: {differs} of {} truth slots differ</p><div class=\"side\"><div class=\"gt\">{}</div><div class=\"pred\">{}</div></div>",
                    g + 1,
                    p + 1,
                    gm.len(),
                    table_html(gt_t, &gm, "miss"),
                    table_html(pred_t, &pm, "extra"),
                ));
            }
            None => s.push_str(&format!(
                "<p class=\"muted\">GT table {}: no predicted table matched</p><div class=\"side\"><div class=\"gt\">{}</div><div class=\"pred\"></div></div>",
                g + 1,
                table_html(gt_t, &[], "miss")
            )),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_row_marks_its_cells_and_not_the_rows_below() {
        let gt = Table::from_rows(&[&["Model", "Acc"], &["base", "71.2"], &["large", "75.9"]], 1);
        let pred = Table::from_rows(&[&["Model", "Acc"], &["large", "75.8"]], 1);
        let (gm, pm) = marks(&gt, &pred);
        use Mark::*;
        assert_eq!(gm, [Same, Same, Unaligned, Unaligned, Same, Differs]);
        assert_eq!(pm, [Same, Same, Same, Differs]);
        let html = table_html(&gt, &gm, "miss");
        assert_eq!(html.matches("class=\"miss\"").count(), 3, "{html}");
        assert!(html.contains("<td class=\"\">large</td>"), "{html}");
    }

    #[test]
    fn cell_text_is_escaped() {
        let t = Table::from_rows(&[&["<script>x</script>", "a"], &["b", "c"]], 1);
        let one = std::slice::from_ref(&t);
        let html = pairs_html(one, one, &[(0, Some(0))]);
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(html.contains("0 of 4 truth slots differ"));
    }
}
