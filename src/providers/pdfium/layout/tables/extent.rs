//! Where a table's text stops: the evidence a page gives of its own rows (docs/tables.md § 4,
//! "Where a table stops"). Every measure here is taken from the page: its line spacing, the
//! table's own row pitch and font size, and the table's column gutters.
//!
//! A row continues a table when
//! * it is set in the table's font size (some of its text is; two sizes are one when they
//!   differ by less than [`SIZE_STEP`] of the larger);
//! * it follows at most two of the table's own row pitches below the row before it (a
//!   line-spacing change larger than the row pitch is where the table ends); and
//! * its text does not run across the table's column gutters as prose ([`runs_across`]): a
//!   row of cells leaves one gap at each gutter it does not span, a line of text broken at
//!   wide word spaces has its gaps anywhere, and one label reaches into at most half of them.

use super::super::Span;

/// Two font sizes are one when they differ by less than this share of the larger: the
/// smallest step of the traditional type scale (11 → 12 pt) is 1/12.
pub(crate) const SIZE_STEP: f32 = 1.0 / 12.0;

/// Whether two font sizes are the same size.
pub(crate) fn same_size(a: f32, b: f32) -> bool {
    (a - b).abs() < SIZE_STEP * a.max(b)
}

/// The font sizes of some spans that hold a quarter or more of their characters (a table's
/// body size, and its header's or its sub- and superscripts' where they are that common).
pub(crate) fn sizes_of(spans: &[Span], idx: &[usize]) -> Vec<f32> {
    let mut by: Vec<(f32, u32)> = Vec::new();
    for &i in idx {
        let s = &spans[i];
        match by.iter_mut().find(|(z, _)| same_size(*z, s.size)) {
            Some(e) => e.1 += s.chars.max(1),
            None => by.push((s.size, s.chars.max(1))),
        }
    }
    let total: u32 = by.iter().map(|e| e.1).sum();
    by.into_iter().filter(|e| e.1 * 4 >= total).map(|e| e.0).collect()
}

/// Whether a row is set in one of a table's sizes: some span of it is (a header's words may
/// stand beside symbols with sub- and superscripts, whose spans are smaller). Any row fits a
/// table whose sizes are not known.
pub(crate) fn in_sizes(spans: &[Span], row: &[usize], sizes: &[f32]) -> bool {
    sizes.is_empty() || row.iter().any(|&i| sizes.iter().any(|&z| same_size(z, spans[i].size)))
}

/// The lower median of some steps (the row pitch of a table from its rows' top-to-top
/// distances): with few rows, a header's wider step does not set the pitch.
pub(crate) fn pitch(steps: &[f32]) -> Option<f32> {
    if steps.is_empty() {
        return None;
    }
    let mut v = steps.to_vec();
    v.sort_by(f32::total_cmp);
    Some(v[(v.len() - 1) / 2])
}

/// The page's line pitch: the median distance from the top of a span to the top of the
/// nearest span below it that shares some of its width (the next line of its column), over
/// lines that follow within four line heights (farther is a blank, not a line step). Falls
/// back on 1.2 body ems (a line set solid plus the usual leading) on a page of single lines.
pub(crate) fn line_pitch(spans: &[Span], em: f32) -> f32 {
    let mut order: Vec<usize> = (0..spans.len()).filter(|&i| spans[i].table.is_none()).collect();
    order.sort_by(|&a, &b| spans[a].bbox.y0.total_cmp(&spans[b].bbox.y0));
    let mut steps = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let a = &spans[i].bbox;
        let h = a.height().max(0.5 * em);
        let next = order[k + 1..]
            .iter()
            .map(|&j| &spans[j].bbox)
            .take_while(|b| b.y0 - a.y0 <= 4.0 * h)
            .find(|b| b.y0 - a.y0 > 0.5 * h && b.x0.max(a.x0) < b.x1.min(a.x1));
        if let Some(b) = next {
            steps.push(b.y0 - a.y0);
        }
    }
    if steps.is_empty() {
        return 1.2 * em;
    }
    steps.sort_by(f32::total_cmp);
    steps[steps.len() / 2]
}

/// The columns some rows show: the x ranges that no span of their regular rows covers
/// (gutters, at least `min` wide, strictly inside those rows' extent), and that extent. The
/// regular rows are those with as many spans as a third of the rows of two or more spans
/// reach (the grid builder's rule, § 3): a header row whose labels join over several
/// columns does not hide the columns' gutters.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Gutters {
    pub(crate) gaps: Vec<(f32, f32)>,
    pub(crate) x0: f32,
    pub(crate) x1: f32,
}

/// The gutters of some rows (see [`Gutters`]).
pub(crate) fn gutters(spans: &[Span], rows: &[&[usize]], min: f32) -> Gutters {
    let mut counts: Vec<usize> = rows.iter().map(|r| r.len()).filter(|&n| n >= 2).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let Some(&regular) = counts.get(counts.len().div_ceil(3).max(1) - 1) else {
        return Gutters::default();
    };
    let mut iv: Vec<(f32, f32)> = rows
        .iter()
        .filter(|r| r.len() >= regular)
        .flat_map(|r| r.iter())
        .map(|&i| (spans[i].bbox.x0, spans[i].bbox.x1))
        .collect();
    if iv.is_empty() {
        return Gutters::default();
    }
    iv.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut gaps = Vec::new();
    let mut cursor = iv[0].1;
    for &(a, b) in &iv[1..] {
        if a - cursor >= min {
            gaps.push((cursor, a));
        }
        cursor = cursor.max(b);
    }
    Gutters { gaps, x0: iv[0].0, x1: cursor }
}

/// Whether a row's text runs across the column gutters as prose: some of its text lies in a
/// gutter (where the table's rows have none), and the row is one span reaching into more than
/// half of them (a line of text; a label over some columns reaches into fewer), or its own
/// gaps, inside the columns' extent, are not one to a gutter: a gap inside a column, or two
/// gaps inside one gutter (a line of text broken at wide word spaces; a row of cells leaves
/// one gap at each gutter it does not span).
pub(crate) fn runs_across(spans: &[Span], row: &[usize], g: &Gutters) -> bool {
    // Reaching into a gutter: more than a quarter of its width, so that a cell a little wider
    // than those above it is no line of text.
    let into = g
        .gaps
        .iter()
        .filter(|c| {
            let inset = 0.25 * (c.1 - c.0);
            row.iter().any(|&i| spans[i].bbox.x0 < c.1 - inset && spans[i].bbox.x1 > c.0 + inset)
        })
        .count();
    if into == 0 {
        return false;
    }
    if row.len() == 1 {
        return into * 2 > g.gaps.len();
    }
    let mut xs: Vec<(f32, f32)> =
        row.iter().map(|&i| (spans[i].bbox.x0, spans[i].bbox.x1)).collect();
    xs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut used = vec![false; g.gaps.len()];
    for w in xs.windows(2) {
        let (a, b) = (w[0].1, w[1].0);
        if b <= a || a < g.x0 || b > g.x1 {
            continue;
        }
        // A gap wholly inside a gutter takes it; a gap over several gutters and the columns
        // between them (beside a label centred over some columns) takes none.
        match g.gaps.iter().position(|c| c.0 <= a && b <= c.1) {
            Some(k) if used[k] => return true,
            Some(k) => used[k] = true,
            None if !g.gaps.iter().any(|c| c.0 < b && c.1 > a) => return true,
            None => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::super::spans;
    use super::super::super::tests::line;
    use super::*;

    /// Spans of lines given as (x, y, size, text), each text's cells split at `|`, a cell
    /// every 100 pt from x.
    fn page(lines: &[(f32, f32, f32, &str)]) -> Vec<Span> {
        let mut g = Vec::new();
        for &(x, y, size, text) in lines {
            for (c, cell) in text.split('|').enumerate() {
                if !cell.is_empty() {
                    g.extend(line(x + c as f32 * 100.0, y, size, false, cell));
                }
            }
        }
        spans(&g)
    }

    fn row_at(s: &[Span], y: f32) -> Vec<usize> {
        (0..s.len()).filter(|&i| (s[i].bbox.y0 - y).abs() < 0.5).collect()
    }

    #[test]
    fn sizes_one_step_of_the_type_scale_apart_differ() {
        assert!(same_size(10.0, 10.5) && same_size(9.0, 9.6));
        assert!(!same_size(11.0, 12.0) && !same_size(9.0, 10.0) && !same_size(8.0, 10.0));
    }

    #[test]
    fn a_line_broken_at_wide_spaces_runs_across_the_gutters_and_cells_do_not() {
        let mut s = page(&[
            (72.0, 100.0, 10.0, "Region|Households|Share"),
            (72.0, 112.0, 10.0, "North|1,204|31.2"),
            // A spanning header: its gaps on the gutters.
            (72.0, 124.0, 10.0, "Name|Counts over both columns"),
            // One label into one of two gutters, one line into both.
            (72.0, 148.0, 10.0, "Section label over"),
            (72.0, 160.0, 10.0, "a line of prose that runs over the page and on"),
        ]);
        // A line of prose broken by one wide space, inside a column.
        s.extend(spans(&line(72.0, 136.0, 10.0, false, "the study of all the")));
        s.extend(spans(&line(182.0, 136.0, 10.0, false, "data and more of it here")));
        let body = [row_at(&s, 100.0), row_at(&s, 112.0)];
        let g = gutters(&s, &[&body[0], &body[1]], 4.5);
        assert_eq!(g.gaps.len(), 2, "{g:?}");
        assert!(!runs_across(&s, &row_at(&s, 112.0), &g));
        assert!(!runs_across(&s, &row_at(&s, 124.0), &g));
        assert!(runs_across(&s, &row_at(&s, 136.0), &g));
        assert!(!runs_across(&s, &row_at(&s, 148.0), &g));
        assert!(runs_across(&s, &row_at(&s, 160.0), &g));
        // Words spaced wide, two gaps inside one gutter.
        let mut w = Vec::new();
        for (x, word) in
            [(72.0, "the"), (105.0, "of"), (128.0, "all"), (155.0, "it"), (185.0, "as")]
        {
            w.extend(line(x, 200.0, 10.0, false, word));
        }
        let w = spans(&w);
        let all: Vec<usize> = (0..w.len()).collect();
        let g = Gutters { gaps: vec![(102.0, 172.0), (222.0, 272.0)], x0: 72.0, x1: 300.0 };
        assert!(runs_across(&w, &all, &g));
    }

    #[test]
    fn sizes_of_a_table_keep_a_header_beside_its_symbols() {
        let s = page(&[(72.0, 100.0, 6.0, "|d1|d2|d3"), (72.0, 112.0, 9.0, "a|1|2|3")]);
        let all: Vec<usize> = (0..s.len()).collect();
        let sizes = sizes_of(&s, &all);
        assert!(sizes.contains(&9.0), "{sizes:?}");
        let header = page(&[(72.0, 100.0, 9.0, "Case"), (172.0, 100.0, 6.0, "d1|d2")]);
        assert!(in_sizes(&header, &[0, 1, 2], &[9.0]));
        assert!(!in_sizes(&header, &[1, 2], &[9.0]));
    }

    #[test]
    fn line_pitch_is_the_common_step_of_a_column() {
        let s = page(&[
            (72.0, 100.0, 10.0, "a line of text"),
            (72.0, 112.0, 10.0, "a line of text"),
            (72.0, 124.0, 10.0, "a line of text"),
            (72.0, 160.0, 10.0, "a line of text"),
            (72.0, 172.0, 10.0, "a line of text"),
        ]);
        assert_eq!(line_pitch(&s, 10.0), 12.0);
        assert_eq!(pitch(&[12.0, 24.0, 12.5, 30.0]), Some(12.5));
        assert_eq!(pitch(&[]), None);
    }
}
