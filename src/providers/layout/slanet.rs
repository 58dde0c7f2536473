//! SLANet-plus table structure: input preparation, token and cell-box decoding, and the
//! token sequence read into a cell grid. Follows rapid-table 0.3.0 (`TablePreprocess`,
//! `TableLabelDecode`, `adapt_slanet_plus`).

use crate::providers::raster::Bgr;

/// Network input side.
pub const SIDE: usize = 488;

/// A decoded table structure: HTML tokens and one box per cell token, in crop pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Structure {
    /// Tokens (`<tr>`, `<td></td>`, `<td`, ` colspan="2"`, `>`, `</td>`, ...).
    pub tokens: Vec<String>,
    /// x0, y0, x1, y1 of each cell, in the order of the cell tokens.
    pub cells: Vec<[f32; 4]>,
}

/// Builds the decoding dictionary from the model's `character` metadata: `<td></td>` added,
/// `<td>` dropped, between `sos` and `eos`.
pub fn dictionary(mut chars: Vec<String>) -> Vec<String> {
    if !chars.iter().any(|c| c == "<td></td>") {
        chars.push("<td></td>".into());
    }
    if let Some(i) = chars.iter().position(|c| c == "<td>") {
        chars.remove(i);
    }
    let mut d = Vec::with_capacity(chars.len() + 2);
    d.push("sos".to_owned());
    d.extend(chars);
    d.push("eos".to_owned());
    d
}

/// Writes the crop as the network input `[3, 488, 488]` (longer side 488, zero padding).
pub(crate) fn preprocess(img: &Bgr, mean: [f32; 3], std: [f32; 3], out: &mut [f32]) {
    // In f64, as Python computes it: in f32, 744 * (488 / 744) truncates to 487.
    let ratio = SIDE as f64 / img.width.max(img.height) as f64;
    let w = ((img.width as f64 * ratio) as usize).max(1);
    let h = ((img.height as f64 * ratio) as usize).max(1);
    out.iter_mut().for_each(|v| *v = 0.0);
    img.resize(w, h).write_planar(mean, std, false, out, SIDE, SIDE);
}

/// Decodes one image's outputs: `locs` is `[T, 8]`, `probs` is `[T, K]`; `w x h` the crop.
pub fn decode(
    dict: &[String],
    locs: &[f32],
    probs: &[f32],
    k: usize,
    w: usize,
    h: usize,
) -> Structure {
    let end = dict.len() - 1;
    let steps = probs.len() / k.max(1);
    // adapt_slanet_plus: boxes come normalised to the padded square.
    let ratio = (SIDE as f32 / h as f32).min(SIDE as f32 / w as f32);
    let wr = SIDE as f32 / (w as f32 * ratio);
    let hr = SIDE as f32 / (h as f32 * ratio);
    let mut tokens = Vec::new();
    let mut cells = Vec::new();
    for t in 0..steps {
        let row = &probs[t * k..(t + 1) * k];
        let mut best = 0;
        for (i, &p) in row.iter().enumerate() {
            if p > row[best] {
                best = i;
            }
        }
        if t > 0 && best == end {
            break;
        }
        if best == 0 || best == end {
            continue;
        }
        let tok = &dict[best];
        if tok == "<td>" || tok == "<td" || tok == "<td></td>" {
            let l = &locs[t * 8..t * 8 + 8];
            let xs = [l[0], l[2], l[4], l[6]].map(|x| x * w as f32 * wr);
            let ys = [l[1], l[3], l[5], l[7]].map(|y| y * h as f32 * hr);
            let min = |v: [f32; 4]| v.iter().copied().fold(f32::MAX, f32::min);
            let max = |v: [f32; 4]| v.iter().copied().fold(f32::MIN, f32::max);
            cells.push([min(xs), min(ys), max(xs), max(ys)]);
        }
        tokens.push(tok.clone());
    }
    Structure { tokens, cells }
}

/// One cell of the grid read from the tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct GridCell {
    /// Row and column of its top-left slot.
    pub row: u32,
    /// Column.
    pub col: u32,
    /// Spans.
    pub row_span: u32,
    /// Spans.
    pub col_span: u32,
    /// Whether it is inside `<thead>`.
    pub header: bool,
    /// Index into [`Structure::cells`].
    pub index: usize,
}

/// Reads the token sequence into cells on a grid: spans occupy slots, later cells skip
/// occupied ones, as an HTML table lays out. Returns (rows, cols, cells).
pub fn grid(tokens: &[String]) -> (u32, u32, Vec<GridCell>) {
    let mut cells = Vec::new();
    let mut occupied: Vec<Vec<bool>> = Vec::new();
    let mut row: i64 = -1;
    let mut col = 0usize;
    let mut header = false;
    let mut pending: Option<(u32, u32)> = None;
    let mut index = 0usize;
    let span_of = |t: &str, key: &str| -> Option<u32> {
        let t = t.trim();
        let v = t.strip_prefix(key)?.trim_start_matches('=').trim_matches('"');
        v.parse().ok()
    };
    let place = |row: usize, col: &mut usize, rs: u32, cs: u32, occupied: &mut Vec<Vec<bool>>| {
        while occupied.len() <= row {
            occupied.push(Vec::new());
        }
        while occupied[row].get(*col).copied().unwrap_or(false) {
            *col += 1;
        }
        let c = *col;
        for r in row..row + rs as usize {
            while occupied.len() <= r {
                occupied.push(Vec::new());
            }
            let line = &mut occupied[r];
            if line.len() < c + cs as usize {
                line.resize(c + cs as usize, false);
            }
            for slot in &mut line[c..c + cs as usize] {
                *slot = true;
            }
        }
        *col += cs as usize;
        c
    };
    for t in tokens {
        match t.as_str() {
            "<thead>" => header = true,
            "</thead>" => header = false,
            "<tr>" => {
                row += 1;
                col = 0;
            }
            "<td></td>" | "<td>" => {
                let r = row.max(0) as usize;
                let c = place(r, &mut col, 1, 1, &mut occupied);
                cells.push(GridCell {
                    row: r as u32,
                    col: c as u32,
                    row_span: 1,
                    col_span: 1,
                    header,
                    index,
                });
                index += 1;
            }
            "<td" => pending = Some((1, 1)),
            ">" => {
                if let Some((rs, cs)) = pending.take() {
                    let r = row.max(0) as usize;
                    let c = place(r, &mut col, rs, cs, &mut occupied);
                    cells.push(GridCell {
                        row: r as u32,
                        col: c as u32,
                        row_span: rs,
                        col_span: cs,
                        header,
                        index,
                    });
                    index += 1;
                }
            }
            other => {
                if let Some(p) = pending.as_mut() {
                    if let Some(v) = span_of(other, "colspan") {
                        p.1 = v.max(1);
                    } else if let Some(v) = span_of(other, "rowspan") {
                        p.0 = v.max(1);
                    }
                }
            }
        }
    }
    let rows = occupied.len() as u32;
    let cols = occupied.iter().map(Vec::len).max().unwrap_or(0) as u32;
    (rows, cols, cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split('|').map(str::to_owned).collect()
    }

    #[test]
    fn dictionary_merges_td() {
        let d = dictionary(vec!["<thead>".into(), "<td>".into(), "<tr>".into()]);
        assert_eq!(d, vec!["sos", "<thead>", "<tr>", "<td></td>", "eos"]);
    }

    #[test]
    fn grid_places_spans_like_html() {
        // | a (rowspan 2) | b c (colspan 2) |
        // |               | d     | e       |
        let t = toks("<thead>|<tr>|<td| rowspan=\"2\"|>|</td>|<td| colspan=\"2\"|>|</td>|</tr>|</thead>|<tbody>|<tr>|<td></td>|<td></td>|</tr>|</tbody>");
        let (rows, cols, cells) = grid(&t);
        assert_eq!((rows, cols), (2, 3));
        let pos: Vec<(u32, u32, u32, u32, bool)> =
            cells.iter().map(|c| (c.row, c.col, c.row_span, c.col_span, c.header)).collect();
        assert_eq!(
            pos,
            vec![(0, 0, 2, 1, true), (0, 1, 1, 2, true), (1, 1, 1, 1, false), (1, 2, 1, 1, false)]
        );
        assert_eq!(cells.iter().map(|c| c.index).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn decode_stops_at_eos_and_scales_cells() {
        let dict = dictionary(vec!["<tr>".into(), "</tr>".into()]);
        // sos <tr> <td></td> </tr> eos
        let k = dict.len();
        let seq = [0usize, 1, 3, 2, 4, 1];
        let mut probs = vec![0.0f32; seq.len() * k];
        for (t, &i) in seq.iter().enumerate() {
            probs[t * k + i] = 1.0;
        }
        let mut locs = vec![0.0f32; seq.len() * 8];
        locs[2 * 8..3 * 8].copy_from_slice(&[0.1, 0.2, 0.5, 0.2, 0.5, 0.4, 0.1, 0.4]);
        // A 976 x 488 crop: ratio 0.5; boxes are fractions of the 488 square, whose content
        // spans all of x and half of y.
        let s = decode(&dict, &locs, &probs, k, 976, 488);
        assert_eq!(s.tokens, vec!["<tr>", "<td></td>", "</tr>"]);
        let c = s.cells[0];
        let want = [97.6, 195.2, 488.0, 390.4];
        for (g, w) in c.iter().zip(want) {
            assert!((g - w).abs() < 1e-2, "{c:?}");
        }
    }
}
