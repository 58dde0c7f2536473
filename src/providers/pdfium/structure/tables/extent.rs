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
//!
//! [`trim`] applies the same evidence to a box drawn around a table by someone else (the
//! `layout` provider's model): lines at its top and bottom that are no rows of the table are
//! cut off.

use super::super::blocks::caption_label;
use super::super::Span;
use crate::doc::BBox;

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

/// Groups spans (indices) into rows by vertical centre, top to bottom, each row left to right.
pub(crate) fn rows_of(spans: &[Span], mut idx: Vec<usize>) -> Vec<Vec<usize>> {
    idx.sort_by(|&a, &b| spans[a].center_y().total_cmp(&spans[b].center_y()));
    let mut rows: Vec<(BBox, Vec<usize>)> = Vec::new();
    for i in idx {
        let b = spans[i].bbox;
        let cy = spans[i].center_y();
        match rows.last_mut() {
            Some((rb, v)) if cy >= rb.y0 && cy <= rb.y1 => {
                v.push(i);
                *rb = rb.union(&b);
            }
            _ => rows.push((b, vec![i])),
        }
    }
    rows.into_iter()
        .map(|(_, mut v)| {
            v.sort_by(|&a, &b| spans[a].bbox.x0.total_cmp(&spans[b].bbox.x0));
            v
        })
        .collect()
}

fn row_box(spans: &[Span], row: &[usize]) -> BBox {
    row.iter().skip(1).fold(spans[row[0]].bbox, |b, &i| b.union(&spans[i].bbox))
}

/// Trims a box drawn around a table to the rows its text shows as the table's. The table's
/// body is its regular rows of cells: rows of two or more spans 0.9 body ems apart (§ 4), with as
/// many spans as a third of such rows reach (the grid builder's rule, § 3); its font size, row
/// pitch and gutters are theirs. From the top and from the bottom, a line outside the body is
/// cut off while it stands more than two row pitches from the line inside it, or is a caption
/// (`Table 3: ...`), or, unless it is a row of cells that keeps to the gutters, while it is set
/// in another size or is a line of prose: it starts at the table's left edge and runs across
/// the gutters over nine tenths of the table's width or more or ending a sentence (a section
/// label over some columns does neither), or it is the last line of a paragraph or caption
/// whose line above was cut without ending its sentence, set from the same edge. The first line that stays keeps
/// everything between it and the body. A box with fewer than two regular rows is kept as it
/// is: there is no body to measure.
pub(crate) fn trim(spans: &[Span], region: BBox, em: f32) -> BBox {
    // A cell row's gaps and the gutters, as alignment and the grid builder read them.
    let (gap, min_gutter) = (super::super::xycut::MIN_GUTTER * em, super::grid::MIN_GUTTER * em);
    let inside: Vec<usize> = (0..spans.len())
        .filter(|&i| {
            let s = &spans[i];
            let cx = 0.5 * (s.bbox.x0 + s.bbox.x1);
            let cy = s.center_y();
            s.table.is_none()
                && cx >= region.x0
                && cx <= region.x1
                && cy >= region.y0
                && cy <= region.y1
        })
        .collect();
    let rows = rows_of(spans, inside);
    let cells = |r: &[usize]| {
        r.len() >= 2 && r.windows(2).all(|w| spans[w[1]].bbox.x0 - spans[w[0]].bbox.x1 >= gap)
    };
    let cell_rows: Vec<usize> = (0..rows.len()).filter(|&k| cells(&rows[k])).collect();
    let mut counts: Vec<usize> = cell_rows.iter().map(|&k| rows[k].len()).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let need = 2.max(counts.len().div_ceil(3));
    let Some(&regular) = counts.get(need - 1) else { return region };
    let body: Vec<usize> = cell_rows.into_iter().filter(|&k| rows[k].len() >= regular).collect();
    let (first, last) = (body[0], body[body.len() - 1]);
    let body_rows: Vec<&[usize]> = body.iter().map(|&k| rows[k].as_slice()).collect();
    let g = gutters(spans, &body_rows, min_gutter);
    let sizes = {
        let all: Vec<usize> = body_rows.iter().flat_map(|r| r.iter().copied()).collect();
        sizes_of(spans, &all)
    };
    // Top to top between consecutive body rows.
    let steps: Vec<f32> = body
        .windows(2)
        .map(|w| row_box(spans, &rows[w[1]]).y0 - row_box(spans, &rows[w[0]]).y0)
        .collect();
    let Some(p) = pitch(&steps) else { return region };
    let text =
        body_rows.iter().fold(row_box(spans, body_rows[0]), |b, r| b.union(&row_box(spans, r)));
    // A line of a paragraph: from the table's left edge across its gutters, over (nearly) its
    // width or ending a sentence (a section label over some columns does neither).
    let line_of_prose = |k: usize| {
        let (r, b) = (&rows[k], row_box(spans, &rows[k]));
        let end = r.last().map_or("", |&i| spans[i].text.as_str());
        b.x0 <= text.x0 + gap
            && runs_across(spans, r, &g)
            && (b.width() >= 0.9 * text.width() || end.ends_with('.'))
    };
    // A line of prose or a caption that does not end its sentence: its last line may follow.
    let goes_on = |k: usize| {
        let r = &rows[k];
        let end = r.last().map_or("", |&i| spans[i].text.as_str());
        (r.first().and_then(|&i| caption_label(&spans[i].text)).is_some() || line_of_prose(k))
            && !end.ends_with(['.', ':', ';', '!', '?'])
    };
    // Whether row `k` is no row of the table, `inner` being the row next to it inside and
    // `para` the left edge of an unfinished line of prose cut off just outside it.
    let foreign = |k: usize, inner: usize, para: Option<f32>| {
        let r = &rows[k];
        let b = row_box(spans, r);
        let step = (row_box(spans, &rows[inner]).y0 - b.y0).abs();
        if step > 2.0 * p {
            return true;
        }
        let label = r.first().and_then(|&i| caption_label(&spans[i].text)).is_some();
        let across = runs_across(spans, r, &g);
        if label || cells(r) && !across {
            return label;
        }
        // A line of prose, or under one or under a caption, their last line, set from its edge.
        let prose =
            line_of_prose(k) || r.len() == 1 && para.is_some_and(|x| (b.x0 - x).abs() <= gap);
        prose || !in_sizes(spans, r, &sizes)
    };
    let mut top = 0;
    let mut para = None;
    while top < first && foreign(top, top + 1, para) {
        para = goes_on(top).then(|| row_box(spans, &rows[top]).x0);
        top += 1;
    }
    let mut bottom = rows.len() - 1;
    while bottom > last && foreign(bottom, bottom - 1, None) {
        bottom -= 1;
    }
    // The box keeps its width; its top and bottom move to halfway between the last line cut
    // off and the first line kept.
    let y0 = if top > 0 {
        let (cut, kept) = (row_box(spans, &rows[top - 1]), row_box(spans, &rows[top]));
        (0.5 * (cut.y1 + kept.y0)).max(region.y0)
    } else {
        region.y0
    };
    let y1 = if bottom + 1 < rows.len() {
        let (kept, cut) = (row_box(spans, &rows[bottom]), row_box(spans, &rows[bottom + 1]));
        (0.5 * (kept.y1 + cut.y0)).min(region.y1)
    } else {
        region.y1
    };
    BBox::new(region.x0, y0, region.x1, y1)
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

    #[test]
    fn a_box_over_prose_and_a_note_is_cut_to_the_table() {
        let prose = "the results of the study show that more data helps";
        let s = page(&[
            (72.0, 88.0, 10.0, prose),
            (72.0, 100.0, 10.0, prose),
            (72.0, 112.0, 10.0, "|Counts over both"),
            (72.0, 124.0, 10.0, "Name|Dev|Test"),
            (72.0, 136.0, 10.0, "base|71.2|70.1"),
            (72.0, 148.0, 10.0, "large|75.9|74.0"),
            (72.0, 160.0, 10.0, "xl|78.3|77.9"),
            (72.0, 172.0, 7.0, "Source: our own runs"),
            // A paragraph after a blank line.
            (72.0, 208.0, 10.0, "more text|of a list"),
        ]);
        let region = BBox::new(60.0, 80.0, 400.0, 220.0);
        let t = trim(&s, region, 10.0);
        // Cut between the prose and the spanning header, and above the note.
        assert!(t.y0 > 111.0 && t.y0 < 113.0, "{t:?}");
        assert!(t.y1 > 171.0 && t.y1 < 172.0, "{t:?}");
        assert_eq!((t.x0, t.x1), (60.0, 400.0));
        // A box around the table alone stays as it is.
        let tight = BBox::new(60.0, 110.0, 400.0, 171.0);
        assert_eq!(trim(&s, tight, 10.0), tight);
    }

    #[test]
    fn a_caption_and_its_second_line_are_cut_and_a_section_label_stays() {
        let s = page(&[
            (150.0, 88.0, 10.0, "Table 2: Scores"),
            (72.0, 100.0, 10.0, "This table gives the scores of all runs."),
            (72.0, 112.0, 10.0, "Panel A: base runs"),
            (72.0, 124.0, 10.0, "Name|Dev|Test|Size"),
            (72.0, 136.0, 10.0, "base|71.2|70.1|110"),
            (72.0, 148.0, 10.0, "large|75.9|74.0|340"),
        ]);
        let t = trim(&s, BBox::new(60.0, 80.0, 420.0, 160.0), 10.0);
        assert!(t.y0 > 110.0 && t.y0 < 112.0, "{t:?}");
        assert_eq!(t.y1, 160.0);
    }
}
