//! Which text lines of a table region make one row (docs/tables.md § 3a).
//!
//! A row is a band of lines, not a line. Between horizontal rules, the lines are grouped by
//! what the page shows of its rows: a blank wider than the table's own line pitch, or than
//! the pitch of the row's own lines, starts a row; a key cell standing alone, centred on two
//! lines, names two rows; a line whose key column (the one filled in every row) is filled
//! starts one; a line whose key column is empty continues the row above when its text
//! continues that row's cells (top-aligned cells, text that wraps: it starts in lower case,
//! the text above it stops mid-phrase or filled its column); a header cell wrapped over
//! lines above the rest of the table's first row joins it. Every threshold is a share of
//! the table's own font size or line pitch.

use super::{Col, Line, Seg, Word};

/// A step between two lines wider than the table's tight line pitch by more than this many
/// of its font sizes is a blank between rows (a quarter em of extra leading: more than the
/// jitter of one line pitch, less than half a blank line).
const ROW_GAP: f32 = 0.25;

/// Words that do not end a phrase: a cell line ending in one wraps onto the next line.
const OPEN_WORDS: [&str; 20] = [
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "per",
    "than", "the", "to", "with", "without", "&",
];

/// What the row grouping reads of a region.
pub(super) struct Input<'a> {
    pub(super) lines: &'a [Line],
    pub(super) segs: &'a [Seg],
    pub(super) seg_cols: &'a [(usize, usize)],
    /// Each line's filled columns.
    pub(super) occs: &'a [Vec<bool>],
    /// Each line's band between horizontal rules.
    pub(super) bands: &'a [usize],
    pub(super) cols: &'a [Col],
    /// The table's font size (the median size of its words).
    pub(super) size: f32,
}

/// The median size of the words (the table's font size); `em` where there are none.
pub(super) fn median_size(words: &[Word], em: f32) -> f32 {
    let mut sizes: Vec<f32> = words.iter().map(|w| w.size).filter(|s| *s > 0.0).collect();
    if sizes.is_empty() {
        return em;
    }
    sizes.sort_by(f32::total_cmp);
    sizes[sizes.len() / 2]
}

fn count(o: &[bool]) -> usize {
    o.iter().filter(|&&x| x).count()
}

/// Groups lines into rows; returns each row's lines, top to bottom.
pub(super) fn rows_of(x: &Input<'_>, nbands: usize, lattice: bool) -> Vec<Vec<usize>> {
    // One line per band in most bands: the rules make the rows.
    let mut per_band = vec![0usize; nbands];
    for &b in x.bands {
        per_band[b] += 1;
    }
    let text_bands: Vec<usize> = per_band.iter().copied().filter(|&n| n > 0).collect();
    let single = text_bands.iter().filter(|&&n| n == 1).count();
    let text = text_rows(x);
    if lattice && text_bands.len() >= 3 && single * 2 > text_bands.len() {
        // A band is one row, unless two of its lines are rows of their own: each with a row
        // label (the first column) and more.
        let mut row_like = vec![0usize; nbands];
        for (l, &b) in x.bands.iter().enumerate() {
            row_like[b] += usize::from(x.occs[l].first() == Some(&true) && count(&x.occs[l]) >= 2);
        }
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); nbands];
        for (l, &b) in x.bands.iter().enumerate() {
            if row_like[b] < 2 {
                rows[b].push(l);
            }
        }
        rows.extend(text.into_iter().filter(|r| row_like[x.bands[r[0]]] >= 2));
        rows.retain(|r| !r.is_empty());
        rows.sort_by_key(|r| r[0]);
        return rows;
    }
    text
}

/// What the table's lines show of its rows: its pitches and its key column.
struct Evidence {
    /// The pitch between lines that are rows of their own (two columns or more).
    row_pitch: f32,
    /// The tight line pitch: the lower quartile of the steps between consecutive lines of one
    /// band (the pitch of a wrapped cell's lines where cells wrap, the row pitch where not).
    tight: f32,
    /// The column filled in every row: the leftmost one filled in half or more of the
    /// table's full lines (those filling as many columns as a third of its lines reach).
    key: Option<usize>,
}

impl Evidence {
    fn of(x: &Input<'_>) -> Evidence {
        let (lines, occs, bands) = (x.lines, x.occs, x.bands);
        let mut pitches: Vec<f32> = Vec::new();
        let mut steps: Vec<f32> = Vec::new();
        for i in 1..lines.len() {
            if bands[i] != bands[i - 1] {
                continue;
            }
            let step = lines[i].cy() - lines[i - 1].cy();
            // Lines closer than half a size apart are one line's parts (a superscript).
            if step >= 0.5 * x.size {
                steps.push(step);
            }
            if count(&occs[i]) >= 2 && count(&occs[i - 1]) >= 2 {
                pitches.push(step);
            }
        }
        if pitches.is_empty() {
            pitches = (1..lines.len()).map(|i| lines[i].cy() - lines[i - 1].cy()).collect();
        }
        pitches.sort_by(f32::total_cmp);
        let row_pitch = pitches.get(pitches.len() / 2).copied().unwrap_or(x.size);
        steps.sort_by(f32::total_cmp);
        let tight = steps.get(steps.len() / 4).copied().unwrap_or(row_pitch);

        let mut counts: Vec<usize> = occs.iter().map(|o| count(o)).filter(|&n| n > 0).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let need = 2.max(counts.len().div_ceil(3));
        let regular = counts.get(need.saturating_sub(1)).copied().unwrap_or(0);
        let full: Vec<&Vec<bool>> =
            occs.iter().filter(|o| regular >= 2 && count(o) >= regular).collect();
        let ncols = x.cols.len();
        let key = (0..ncols)
            .find(|&c| !full.is_empty() && full.iter().filter(|o| o[c]).count() * 2 >= full.len());
        Evidence { row_pitch, tight, key }
    }

    /// Whether a step between two lines is a blank between rows.
    fn gap(&self, step: f32, size: f32) -> bool {
        step > self.tight + ROW_GAP * size
    }
}

/// Groups lines into rows by text alone (within bands), top to bottom.
fn text_rows(x: &Input<'_>) -> Vec<Vec<usize>> {
    let ev = Evidence::of(x);
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut row_occ: Vec<bool> = Vec::new();
    for l in 0..x.lines.len() {
        let first_row = rows.len() == 1;
        let joins = rows.last().is_some_and(|row| joins(x, &ev, row, &row_occ, l, first_row));
        if joins {
            let row = rows.last_mut().expect("checked");
            row.push(l);
            for (a, b) in row_occ.iter_mut().zip(&x.occs[l]) {
                *a |= *b;
            }
        } else {
            rows.push(vec![l]);
            row_occ = x.occs[l].clone();
        }
    }
    rows
}

/// Whether line `l` joins `row` (the last row so far; `first_row` when it is the table's
/// first).
fn joins(
    x: &Input<'_>,
    ev: &Evidence,
    row: &[usize],
    row_occ: &[bool],
    l: usize,
    first_row: bool,
) -> bool {
    let (lines, occs) = (x.lines, x.occs);
    let last = *row.last().expect("rows are non-empty");
    if x.bands[last] != x.bands[l] {
        return false;
    }
    let pitch = ev.row_pitch;
    let main = row.iter().copied().max_by_key(|&i| count(&occs[i])).unwrap_or(last);
    let off = lines[l].cy() - lines[main].cy();
    let step = lines[l].cy() - lines[last].cy();
    // A blank against the row's own line pitch: a cell's lines are set evenly, so a line
    // further below the row than its lines are apart is no line of its cells.
    if own_pitch(x, row).is_some_and(|own| step > own + ROW_GAP * x.size) {
        return false;
    }
    let disjoint = !occs[l].iter().zip(row_occ).any(|(a, b)| *a && *b);
    // A label centred between the rows of a row.
    if disjoint && off < 0.75 * pitch {
        return true;
    }
    if header_above(x, ev, row, row_occ, l, first_row, step) {
        return true;
    }
    if ev.gap(step, x.size) || key_spans_down(x, ev, row, l) {
        return false;
    }
    match ev.key.map(|k| occs[l][k]) {
        Some(false) if continues(x, row, row_occ, l) => return true,
        Some(true) if key_wraps(x, ev, row, row_occ, l) => return true,
        _ => {}
    }
    wrapped_cell(x, row_occ, l, last, step, pitch)
}

/// The row's own line pitch: the widest step from one of its lines to the nearest line above
/// it in the row that shares a column with it (a cell's wrapped lines; a line centred beside
/// them is not one of them, and steps under half a font size are one line's parts).
fn own_pitch(x: &Input<'_>, row: &[usize]) -> Option<f32> {
    let shares = |a: usize, b: usize| x.occs[a].iter().zip(&x.occs[b]).any(|(p, q)| *p && *q);
    (1..row.len())
        .filter_map(|j| {
            let b = row[j];
            let a = row[..j].iter().rev().copied().find(|&a| shares(a, b))?;
            Some(x.lines[b].cy() - x.lines[a].cy())
        })
        .filter(|&s| s >= 0.5 * x.size)
        .max_by(f32::total_cmp)
}

/// Whether the row's key cell stands alone, centred between the row's first line and line `l`:
/// a line of the row below its first holding only the key cell (which the first line leaves
/// empty), its centre within a quarter of the step of the midpoint between the first line's
/// centre and `l`'s. The key names an entry; a key centred on two lines of other cells names
/// two rows (`\multirow`, read as a span by § 3), so `l` starts a row. (Cells centred beside a
/// key wrapped over two lines are one entry: the key-wrap rule.)
fn key_spans_down(x: &Input<'_>, ev: &Evidence, row: &[usize], l: usize) -> bool {
    let (lines, occs) = (x.lines, x.occs);
    let Some(k) = ev.key else { return false };
    let first = row[0];
    let (top, below) = (lines[first].cy(), lines[l].cy());
    let step = below - top;
    if step <= 0.0 || occs[first][k] || occs[l][k] {
        return false;
    }
    let mid = 0.5 * (top + below);
    row[1..]
        .iter()
        .any(|&m| occs[m][k] && count(&occs[m]) == 1 && (lines[m].cy() - mid).abs() <= 0.25 * step)
}

/// A header cell wrapped onto lines above the rest of its row (bottom-aligned headers): lines
/// filling at most half the columns of this one, each of the last one's segments over a
/// one-column segment here, set tight; over the table's first row, lines without the key,
/// as many as there are.
#[allow(clippy::too_many_arguments)]
fn header_above(
    x: &Input<'_>,
    ev: &Evidence,
    row: &[usize],
    row_occ: &[bool],
    l: usize,
    first_row: bool,
    step: f32,
) -> bool {
    let (lines, occs, seg_cols) = (x.lines, x.occs, x.seg_cols);
    let last = *row.last().expect("rows are non-empty");
    let keyless = ev.key.is_some_and(|k| row.iter().all(|&i| !occs[i][k]));
    let tight = if row.len() == 1 { step < 0.8 * ev.row_pitch } else { false };
    let stacked = first_row && keyless && !ev.gap(step, x.size);
    if !tight && !stacked {
        return false;
    }
    let sup = row_occ.iter().zip(&occs[l]).all(|(a, b)| !*a || *b);
    // Each cell of the line above over a one-column cell here (and, without the tight pitch,
    // aligned with it: one cell's lines, not a header centred over others).
    let over = lines[last].segs.iter().all(|&s| {
        lines[l].segs.iter().any(|&o| {
            seg_cols[o] == seg_cols[s]
                && seg_cols[o].0 == seg_cols[o].1
                && (tight || aligned(x, s, o))
        })
    });
    sup && count(row_occ) * 2 <= count(&occs[l]) && over
}

/// Whether a line whose key column is empty continues the row above: each of its segments
/// under text of the row (top-aligned cells: a cell does not start below its row's first
/// line) or a number (centred in a tall row), no number under a number (numbers do not wrap:
/// a new row under a label that spans rows), each aligned with the text above it (see
/// [`breaks`]), and some cell showing that it wraps.
fn continues(x: &Input<'_>, row: &[usize], row_occ: &[bool], l: usize) -> bool {
    let mut wraps = false;
    for &s in &x.lines[l].segs {
        let (a, b) = x.seg_cols[s];
        let text = x.segs[s].text.as_str();
        match last_above(x, row, a, b) {
            None if !numeric(text) || row_occ[a..=b].iter().any(|&o| o) => return false,
            None => {}
            Some(o) if breaks(x, o, s) => return false,
            Some(o) => wraps |= wrap_shown(x, o, s, b, false),
        }
    }
    wraps
}

/// Whether segment `s` under segment `above` is no continuation of it: a number under a
/// number, or text not aligned with it (a wrapped cell's lines keep the cell's alignment;
/// sub-headers under a header centred over them do not).
fn breaks(x: &Input<'_>, above: usize, s: usize) -> bool {
    numeric(&x.segs[s].text) && numeric(&x.segs[above].text) || !aligned(x, above, s)
}

/// Whether two segments share a left edge, a centre or a right edge, within half the table's
/// font size.
fn aligned(x: &Input<'_>, a: usize, b: usize) -> bool {
    let (a, b, tol) = (&x.segs[a].bbox, &x.segs[b].bbox, 0.5 * x.size);
    (a.x0 - b.x0).abs() <= tol
        || (a.x1 - b.x1).abs() <= tol
        || (0.5 * (a.x0 + a.x1) - 0.5 * (b.x0 + b.x1)).abs() <= tol
}

/// Whether a line filling the key column continues the row's key cell (a label over two
/// lines): fewer columns than the row fills, only where the row has text, no cell
/// that [`breaks`] from the one above, and its key text shows the wrap as a label does.
fn key_wraps(x: &Input<'_>, ev: &Evidence, row: &[usize], row_occ: &[bool], l: usize) -> bool {
    let Some(k) = ev.key else { return false };
    let occ = &x.occs[l];
    if count(occ) >= count(row_occ) || occ.iter().zip(row_occ).any(|(a, b)| *a && !*b) {
        return false;
    }
    let mut key_seg = None;
    for &s in &x.lines[l].segs {
        let (a, b) = x.seg_cols[s];
        match last_above(x, row, a, b) {
            Some(o) if breaks(x, o, s) => return false,
            Some(o) if a <= k && b >= k => key_seg = Some((o, s, b)),
            _ => {}
        }
    }
    key_seg.is_some_and(|(o, s, b)| !numeric(&x.segs[o].text) && wrap_shown(x, o, s, b, true))
}

/// The row's last segment (lowest line, rightmost) in columns `a..=b`.
fn last_above(x: &Input<'_>, row: &[usize], a: usize, b: usize) -> Option<usize> {
    row.iter().rev().find_map(|&i| {
        x.lines[i].segs.iter().rev().copied().find(|&o| {
            let (c0, c1) = x.seg_cols[o];
            c0 <= b && c1 >= a
        })
    })
}

/// Whether segment `s` reads as the continuation of segment `above` (one cell wrapped over
/// two lines): it starts in lower case (for a row `label`, under a phrase of two words or
/// more: a label such as `vdc` or `fbase` starts in lower case by itself), or `above` stops
/// mid-phrase (a hyphen, a comma, an open parenthesis, a word such as `of` or `and`), or
/// `above` is a phrase (three words or more, ending in a word, not a number or a mark) that
/// filled its column: the first word of `s` would not have fitted after it.
fn wrap_shown(x: &Input<'_>, above: usize, s: usize, col: usize, label: bool) -> bool {
    let (a, t) = (&x.segs[above], x.segs[s].text.as_str());
    let at = a.text.trim_end();
    let phrase = !label || at.split_whitespace().count() >= 2;
    if phrase && t.chars().next().is_some_and(char::is_lowercase) {
        return true;
    }
    if at.ends_with(['-', ',', '(', '/', '\u{2013}']) {
        return true;
    }
    let last = at.rsplit(char::is_whitespace).next().unwrap_or("");
    if OPEN_WORDS.contains(&last.to_lowercase().as_str()) {
        return true;
    }
    let words = at.split_whitespace().count();
    let first = t.split_whitespace().next().unwrap_or("");
    let chars = t.chars().count().max(1) as f32;
    // The first word's width, and a space, in the segment's own character width.
    let per_char = x.segs[s].bbox.width() / chars;
    let need = (first.chars().count() + 1) as f32 * per_char;
    let open = at.chars().last().is_some_and(char::is_alphabetic);
    words >= 3 && open && a.bbox.x1 + need > x.cols[col].c1
}

/// Whether a cell's text is a number: it starts with a digit, a sign or a currency and holds
/// a digit (`1,204`, `−0.45°`, `60 Hz`, `$3.1 m`; docs/tables.md § 3a). The stream finder
/// reads a lone line between rows with it too.
pub(crate) fn numeric(t: &str) -> bool {
    let t = t.trim_start();
    t.chars().any(|c| c.is_ascii_digit())
        && t.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || "+-.$€£\u{2013}\u{2212}".contains(c))
}

/// A wrapped cell: a line filling at most half the row's columns, each of its (at most two)
/// segments under a one-column segment of the line above, set tighter than the rows (or
/// starting in lower case within 1.2 row pitches).
fn wrapped_cell(
    x: &Input<'_>,
    row_occ: &[bool],
    l: usize,
    last: usize,
    step: f32,
    pitch: f32,
) -> bool {
    let (lines, occs, seg_cols) = (x.lines, x.occs, x.seg_cols);
    let subset = occs[l].iter().zip(row_occ).all(|(a, b)| !*a || *b);
    if !subset || count(&occs[l]) * 2 > count(row_occ) || lines[l].segs.len() > 2 {
        return false;
    }
    let under = lines[l].segs.iter().all(|&s| {
        lines[last]
            .segs
            .iter()
            .any(|&o| seg_cols[o] == seg_cols[s] && seg_cols[o].0 == seg_cols[o].1)
    });
    if !under {
        return false;
    }
    let first = lines[l].segs.first().map(|&s| x.segs[s].text.as_str()).unwrap_or("");
    let lower = first.chars().next().is_some_and(char::is_lowercase);
    step < 0.8 * pitch || lower && step < 1.2 * pitch
}
