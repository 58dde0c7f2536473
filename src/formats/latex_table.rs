//! LaTeX `tabular` source → [`Table`], for ground truth given as LaTeX (pdf-parse-bench's
//! `tables/ground_truth/*.json`, whose `data` is a `\begin{tabular}…\end{tabular}` string).
//!
//! This is not a port of a reference evaluator; it reads the subset of LaTeX that tables use:
//! * the first `tabular`, `tabular*`, `tabularx`, `tabulary`, `longtable` or `array`
//!   environment (optional `[pos]`, the width argument of the starred/x forms, then the column
//!   spec, whose columns are counted: `l c r p{} m{} b{} X S…`, `*{n}{…}`, with `| @{} !{} >{} <{}`
//!   not counting);
//! * rows end at a top-level `\\` (with an optional `*` and `[len]`) or `\tabularnewline`; cells at
//!   a top-level `&` ("top level" = outside braces and nested environments; `\&` is text);
//! * `\multicolumn{n}{spec}{…}` gives a column span, `\multirow{n}[…]{width}[…]{…}` a row span
//!   (a negative `n` spans upwards, as with `\multirow{-2}`); the cells that LaTeX still writes
//!   (empty) in the slots under or over a multirow are dropped, and a non-empty one stops the span;
//! * rules and row decoration are removed: `\hline \toprule \midrule \bottomrule \cline{} \cmidrule(){}
//!   \Xhline{} \specialrule{}{}{} \addlinespace[] \rowcolor[]{} \arrayrulecolor{} \noalign{}`;
//!   rows with nothing left are dropped; short rows are padded with empty cells, so the result
//!   tiles its grid exactly (`rows` × `cols`, `cols` = the larger of the spec and the widest row);
//! * `%` comments are removed (`\%` is text) and `\verb<d>…<d>` is kept verbatim.
//!
//! Cell text: formatting commands are unwrapped (`\textbf{x}` → `x`, likewise `\textit \emph
//! \underline \texttt \textsc \mathbf \mathrm \text \makecell[]{} \shortstack …`), colour, size and
//! spacing commands dropped (`\color{} \cellcolor[]{} \small \hspace{} …`), `\textcolor{c}{x}` → `x`,
//! escapes decoded (`\% \& \_ \# \$ \{ \}`), `~`, `\,` and an inner `\\` become spaces, `$` is
//! dropped, a few common symbols map to Unicode (`\pm` → `±`, `\times` → `×`, Greek letters, arrows,
//! `\checkmark` → `✓`, …), `^`/`_` are dropped keeping their argument, an unknown command is dropped
//! keeping its braced arguments' text; whitespace is collapsed. This is a light approximation of
//! rendered text (not `pylatexenc`), meant for content comparison. The first row is marked as a
//! header when a `\midrule`/`\hline` follows it.

use std::fmt;

use crate::doc::{Cell, Table};

/// Why a LaTeX table could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LatexTableError {
    /// No `\begin{tabular}` (or a sibling environment) in the source.
    NoTabular,
    /// The environment, a brace group or a `\verb` is not closed.
    Unterminated(&'static str),
}

impl fmt::Display for LatexTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LatexTableError::NoTabular => write!(f, "no tabular environment found"),
            LatexTableError::Unterminated(what) => write!(f, "unterminated {what}"),
        }
    }
}

impl std::error::Error for LatexTableError {}

const ENVS: [&str; 6] = ["tabular", "tabular*", "tabularx", "tabulary", "longtable", "array"];

/// Parses the first tabular-like environment of `src` into a [`Table`].
pub(crate) fn parse_latex_table(src: &str) -> Result<Table, LatexTableError> {
    let s: Vec<char> = strip_comments(src).chars().collect();
    let (env, after_begin) = find_begin(&s).ok_or(LatexTableError::NoTabular)?;
    let mut i = skip_ws(&s, after_begin);
    if s.get(i) == Some(&'[') {
        i = skip_ws(&s, skip_optional(&s, i)?);
    }
    if matches!(env, "tabular*" | "tabularx" | "tabulary") {
        let (_, next) = read_group(&s, i)?;
        i = skip_ws(&s, next);
    }
    let (spec, body_start) = read_group(&s, i)?;
    let spec_cols = count_spec_columns(&spec);
    let body_end = find_end(&s, body_start, env)?;
    let rows = split_rows(&s[body_start..body_end])?;
    Ok(layout(rows, spec_cols))
}

/// One cell as written: spans and raw LaTeX content.
#[derive(Debug)]
struct RawCell {
    col_span: u32,
    row_span: i64,
    text: String,
}

/// Removes `%` comments (to end of line, and the line break with the following indentation, as
/// TeX does); `\%` and `\verb` contents are kept.
fn strip_comments(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '\\' if i + 1 < c.len() => {
                if let Some(end) = verb_end(&c, i) {
                    out.extend(&c[i..end]);
                    i = end;
                } else {
                    out.push(c[i]);
                    out.push(c[i + 1]);
                    i += 2;
                }
            }
            '%' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
                i += 1;
                while i < c.len() && (c[i] == ' ' || c[i] == '\t') {
                    i += 1;
                }
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

/// If `c[i..]` starts `\verb<d>…<d>` (or `\verb*`), returns the index after the closing `<d>`.
fn verb_end(c: &[char], i: usize) -> Option<usize> {
    if !starts_with(c, i, "\\verb") || c.get(i + 5).is_some_and(|ch| ch.is_ascii_alphabetic()) {
        return None;
    }
    let mut j = i + 5;
    if c.get(j) == Some(&'*') {
        j += 1;
    }
    let d = *c.get(j)?;
    let close = c[j + 1..].iter().position(|&ch| ch == d || ch == '\n')?;
    (c[j + 1 + close] == d).then_some(j + close + 2)
}

fn starts_with(c: &[char], i: usize, pat: &str) -> bool {
    (i..).zip(pat.chars()).all(|(k, p)| c.get(k) == Some(&p))
}

fn skip_ws(c: &[char], mut i: usize) -> usize {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    i
}

/// Reads the command name at `c[i] == '\\'`: letters, or the one following character.
fn command_name(c: &[char], i: usize) -> (String, usize) {
    let mut j = i + 1;
    while j < c.len() && c[j].is_ascii_alphabetic() {
        j += 1;
    }
    if j == i + 1 && j < c.len() {
        j += 1;
    }
    (c[i + 1..j].iter().collect(), j)
}

/// Reads `{…}` at `c[i]` (after spaces); returns the content and the index after `}`.
fn read_group(c: &[char], i: usize) -> Result<(String, usize), LatexTableError> {
    let i = skip_ws(c, i);
    if c.get(i) != Some(&'{') {
        // A single token argument (`\multirow2*x` is rare; treat the next char as the group).
        return match c.get(i) {
            Some(&ch) => Ok((ch.to_string(), i + 1)),
            None => Err(LatexTableError::Unterminated("argument")),
        };
    }
    let end = group_end(c, i, '{', '}')?;
    Ok((c[i + 1..end - 1].iter().collect(), end))
}

/// Index after the bracket that closes the one at `c[i]`, skipping escapes and `\verb`.
fn group_end(c: &[char], i: usize, open: char, close: char) -> Result<usize, LatexTableError> {
    let mut depth = 0usize;
    let mut j = i;
    while j < c.len() {
        match c[j] {
            '\\' => {
                j = verb_end(c, j).unwrap_or(j + 2);
                continue;
            }
            ch if ch == open => depth += 1,
            ch if ch == close => {
                depth -= 1;
                if depth == 0 {
                    return Ok(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    Err(LatexTableError::Unterminated("group"))
}

/// Skips `[…]` at `c[i]` (braces inside are balanced).
fn skip_optional(c: &[char], i: usize) -> Result<usize, LatexTableError> {
    let mut j = i + 1;
    let mut depth = 0usize;
    while j < c.len() {
        match c[j] {
            '\\' => {
                j += 2;
                continue;
            }
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ']' if depth == 0 => return Ok(j + 1),
            _ => {}
        }
        j += 1;
    }
    Err(LatexTableError::Unterminated("optional argument"))
}

/// Skips optional `[…]` arguments (and `(…)` trims when `parens`, for `\cmidrule(lr)`) after
/// spaces, returning the new index.
fn skip_optionals(c: &[char], mut i: usize, parens: bool) -> Result<usize, LatexTableError> {
    loop {
        let j = skip_ws(c, i);
        match c.get(j) {
            Some('[') => i = skip_optional(c, j)?,
            Some('(') if parens => {
                i = c[j..].iter().position(|&ch| ch == ')').map_or(j + 1, |p| j + p + 1)
            }
            _ => return Ok(i),
        }
    }
}

fn find_begin(c: &[char]) -> Option<(&'static str, usize)> {
    let mut i = 0;
    while i < c.len() {
        if c[i] == '\\' {
            if let Some(end) = verb_end(c, i) {
                i = end;
                continue;
            }
            if starts_with(c, i, "\\begin{") {
                let close = c[i + 7..].iter().position(|&ch| ch == '}')? + i + 7;
                let name: String = c[i + 7..close].iter().collect();
                if let Some(env) = ENVS.iter().find(|e| **e == name) {
                    return Some((env, close + 1));
                }
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    None
}

/// Index of the `\end{env}` that closes the body starting at `from` (nested same-name
/// environments are skipped).
fn find_end(c: &[char], from: usize, env: &str) -> Result<usize, LatexTableError> {
    let (begin, end) = (format!("\\begin{{{env}}}"), format!("\\end{{{env}}}"));
    let mut depth = 0usize;
    let mut i = from;
    while i < c.len() {
        if c[i] == '\\' {
            if let Some(e) = verb_end(c, i) {
                i = e;
                continue;
            }
            if starts_with(c, i, &begin) {
                depth += 1;
            } else if starts_with(c, i, &end) {
                if depth == 0 {
                    return Ok(i);
                }
                depth -= 1;
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    Err(LatexTableError::Unterminated("tabular environment"))
}

/// Counts the columns of a column spec.
fn count_spec_columns(spec: &str) -> u32 {
    let c: Vec<char> = spec.chars().collect();
    count_spec(&c)
}

fn count_spec(c: &[char]) -> u32 {
    let mut n = 0u32;
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '@' | '!' | '>' | '<' => {
                i = skip_arg(c, i + 1);
            }
            '*' => {
                let (count, j) = arg_text(c, i + 1);
                let (inner, k) = arg_text(c, j);
                let inner: Vec<char> = inner.chars().collect();
                n += count.trim().parse::<u32>().unwrap_or(1) * count_spec(&inner);
                i = k;
            }
            '\\' => {
                // A command in the spec (`\centering`, `\arraybackslash`): not a column.
                let (_, j) = command_name(c, i);
                i = j;
            }
            '{' => i = skip_arg(c, i),
            ch if ch.is_ascii_alphabetic() => {
                // One column; its arguments follow directly: `p{2cm}`, `w{c}{1cm}`, `S[…]`.
                n += 1;
                i += 1;
                loop {
                    let j = skip_ws(c, i);
                    match c.get(j) {
                        Some('[') => i = skip_optional(c, j).unwrap_or(c.len()),
                        Some('{') => i = skip_arg(c, j),
                        _ => break,
                    }
                }
            }
            _ => i += 1,
        }
    }
    n
}

fn skip_arg(c: &[char], i: usize) -> usize {
    arg_text(c, i).1
}

fn arg_text(c: &[char], i: usize) -> (String, usize) {
    let i = skip_ws(c, i);
    match c.get(i) {
        Some('{') => match group_end(c, i, '{', '}') {
            Ok(e) => (c[i + 1..e - 1].iter().collect(), e),
            Err(_) => (String::new(), c.len()),
        },
        Some(&ch) => (ch.to_string(), i + 1),
        None => (String::new(), i),
    }
}

/// A row: its cells' raw LaTeX and whether a horizontal rule follows it.
#[derive(Debug, Default)]
struct RawRow {
    cells: Vec<String>,
    rule_after: bool,
}

/// Splits the body into rows and cells at top-level `\\` and `&`, removing rule commands.
fn split_rows(c: &[char]) -> Result<Vec<RawRow>, LatexTableError> {
    let mut rows: Vec<RawRow> = Vec::new();
    let mut row = RawRow::default();
    let mut cell = String::new();
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '{' => {
                let e = group_end(c, i, '{', '}')?;
                cell.extend(&c[i..e]);
                i = e;
            }
            '&' => {
                row.cells.push(std::mem::take(&mut cell));
                i += 1;
            }
            '\\' => {
                if let Some(e) = verb_end(c, i) {
                    cell.extend(&c[i..e]);
                    i = e;
                    continue;
                }
                let (name, mut j) = command_name(c, i);
                match name.as_str() {
                    "\\" | "tabularnewline" | "cr" => {
                        if c.get(j) == Some(&'*') {
                            j += 1;
                        }
                        let k = skip_ws(c, j);
                        if c.get(k) == Some(&'[') {
                            j = skip_optional(c, k)?;
                        }
                        row.cells.push(std::mem::take(&mut cell));
                        rows.push(std::mem::take(&mut row));
                        i = j;
                    }
                    "hline" | "toprule" | "midrule" | "bottomrule" | "Xhline" | "cline"
                    | "cmidrule" | "specialrule" | "addlinespace" | "arrayrulecolor"
                    | "rowcolor" | "noalign" | "hhline" | "firsthline" | "lasthline"
                    | "endhead" | "endfirsthead" | "endfoot" | "endlastfoot" => {
                        let full_rule =
                            matches!(name.as_str(), "hline" | "midrule" | "Xhline" | "specialrule");
                        if full_rule && cell.trim().is_empty() && row.cells.is_empty() {
                            if let Some(prev) = rows.last_mut() {
                                prev.rule_after = true;
                            }
                        }
                        let nargs = match name.as_str() {
                            "Xhline" | "cline" | "cmidrule" | "arrayrulecolor" | "rowcolor"
                            | "noalign" | "hhline" => 1,
                            "specialrule" => 3,
                            _ => 0,
                        };
                        j = skip_optionals(c, j, name == "cmidrule")?;
                        for _ in 0..nargs {
                            j = read_group(c, j)?.1;
                        }
                        i = j;
                    }
                    "begin" => {
                        // A nested environment stays inside the cell, `&` and `\\` included.
                        let (env, _) = read_group(c, j)?;
                        let end = find_env_end(c, i, &env)?;
                        cell.extend(&c[i..end]);
                        i = end;
                    }
                    _ => {
                        cell.extend(&c[i..j]);
                        i = j;
                    }
                }
            }
            ch => {
                cell.push(ch);
                i += 1;
            }
        }
    }
    if !cell.trim().is_empty() || !row.cells.is_empty() {
        row.cells.push(cell);
        rows.push(row);
    }
    // Rows that hold nothing (the space after the last `\\`, rule-only lines) are dropped.
    rows.retain(|r| r.cells.len() > 1 || r.cells.first().is_some_and(|t| !t.trim().is_empty()));
    Ok(rows)
}

/// Index after the `\end{env}` matching the `\begin{env}` at `c[i]`.
fn find_env_end(c: &[char], i: usize, env: &str) -> Result<usize, LatexTableError> {
    let begin_len = format!("\\begin{{{env}}}").chars().count();
    let end = find_end(c, i + begin_len, env)?;
    Ok(end + format!("\\end{{{env}}}").chars().count())
}

/// Reads `\multicolumn` / `\multirow` wrappers at the start of a cell.
fn raw_cell(src: &str) -> Result<RawCell, LatexTableError> {
    let c: Vec<char> = src.trim().chars().collect();
    let mut cell = RawCell { col_span: 1, row_span: 1, text: src.to_string() };
    let mut body: Vec<char> = c.clone();
    if starts_with(&c, 0, "\\multicolumn") {
        let (n, j) = read_group(&c, 12)?;
        let (_, j) = read_group(&c, j)?;
        let (content, _) = read_group(&c, j)?;
        cell.col_span = n.trim().parse::<u32>().unwrap_or(1).max(1);
        body = content.trim().chars().collect();
        cell.text = content;
    }
    // Skip leading colour commands, then look for `\multirow`.
    let mut k = 0;
    loop {
        k = skip_ws(&body, k);
        if starts_with(&body, k, "\\cellcolor") || starts_with(&body, k, "\\rowcolor") {
            let (_, j) = command_name(&body, k);
            let j = skip_optionals(&body, j, false)?;
            k = read_group(&body, j)?.1;
        } else {
            break;
        }
    }
    if starts_with(&body, k, "\\multirow")
        && !body.get(k + 9).is_some_and(|ch| ch.is_ascii_alphabetic())
    {
        let (n, j) = read_group(&body, k + 9)?;
        let j = skip_optionals(&body, j, false)?;
        let (_, j) = read_group(&body, j)?;
        let j = skip_optionals(&body, j, false)?;
        let (content, _) = read_group(&body, j)?;
        cell.row_span = n.trim().parse::<i64>().unwrap_or(1);
        if cell.row_span == 0 {
            cell.row_span = 1;
        }
        cell.text = content;
    }
    Ok(cell)
}

/// Places the rows' cells on the grid (see the module doc).
fn layout(rows: Vec<RawRow>, spec_cols: u32) -> Table {
    struct Placed {
        row: u32,
        col: u32,
        row_span: i64,
        col_span: u32,
        text: String,
        dropped: bool,
    }
    let mut placed: Vec<Placed> = Vec::new();
    let header_rows = rows.first().map_or(0, |r| u32::from(r.rule_after));
    for (r, row) in rows.iter().enumerate() {
        let mut col = 0u32;
        for src in &row.cells {
            let rc =
                raw_cell(src).unwrap_or(RawCell { col_span: 1, row_span: 1, text: src.clone() });
            placed.push(Placed {
                row: r as u32,
                col,
                row_span: rc.row_span,
                col_span: rc.col_span,
                text: latex_to_text(&rc.text),
                dropped: false,
            });
            col += rc.col_span;
        }
    }
    let nrows = rows.len() as u32;
    let widest = placed.iter().map(|p| p.col + p.col_span).max().unwrap_or(0);
    let cols = widest.max(spec_cols);
    // Resolve multirows: move negative spans up, absorb the (empty) cells they cover.
    for k in 0..placed.len() {
        if placed[k].row_span == 1 || placed[k].dropped {
            continue;
        }
        let (row, col, cs) = (placed[k].row, placed[k].col, placed[k].col_span);
        let n = placed[k].row_span.unsigned_abs() as u32;
        let up = placed[k].row_span < 0;
        let mut span = 1;
        let mut covered = Vec::new();
        for step in 1..n {
            let r =
                if up { row.checked_sub(step) } else { Some(row + step).filter(|&r| r < nrows) };
            let Some(r) = r else { break };
            let here: Vec<usize> = (0..placed.len())
                .filter(|&q| {
                    let p = &placed[q];
                    !p.dropped && p.row == r && p.col < col + cs && col < p.col + p.col_span
                })
                .collect();
            if here.iter().any(|&q| {
                !placed[q].text.is_empty()
                    || placed[q].col < col
                    || placed[q].col + placed[q].col_span > col + cs
            }) {
                break;
            }
            covered.extend(here);
            span += 1;
        }
        for q in covered {
            placed[q].dropped = true;
        }
        if up {
            placed[k].row -= span - 1;
        }
        placed[k].row_span = i64::from(span);
    }
    let mut cells: Vec<Cell> = placed
        .into_iter()
        .filter(|p| !p.dropped)
        .map(|p| Cell {
            row: p.row,
            col: p.col,
            row_span: p.row_span as u32,
            col_span: p.col_span,
            text: p.text,
            header: p.row < header_rows,
        })
        .collect();
    // Pad short rows with empty cells so that the grid is tiled.
    let mut taken = vec![false; (nrows * cols) as usize];
    for c in &cells {
        for r in c.row..c.row + c.row_span {
            for k in c.col..(c.col + c.col_span).min(cols) {
                taken[(r * cols + k) as usize] = true;
            }
        }
    }
    for r in 0..nrows {
        for k in 0..cols {
            if !taken[(r * cols + k) as usize] {
                cells.push(Cell {
                    row: r,
                    col: k,
                    row_span: 1,
                    col_span: 1,
                    text: String::new(),
                    header: r < header_rows,
                });
            }
        }
    }
    cells.sort_by_key(|c| (c.row, c.col));
    Table { rows: nrows, cols, cells }
}

/// Symbols mapped to text: the text-mode ones tables use, and the few whose text form differs
/// from the formula rule's (`\phi` is φ here); every other symbol is the shared
/// [`crate::normalize::latex::symbol`]'s.
fn symbol(name: &str) -> Option<&'static str> {
    table_symbol(name).or_else(|| crate::normalize::latex::symbol(name))
}

fn table_symbol(name: &str) -> Option<&'static str> {
    Some(match name {
        "uparrow" => "↑",
        "downarrow" => "↓",
        "checkmark" | "cmark" => "✓",
        "xmark" => "✗",
        "dagger" | "dag" => "†",
        "ddagger" | "ddag" => "‡",
        "textdegree" | "degree" => "°",
        "S" => "§",
        "P" => "¶",
        "copyright" => "©",
        "pounds" => "£",
        "textendash" => "–",
        "textemdash" => "—",
        "textasciitilde" => "~",
        "textbackslash" => "\\",
        "textless" => "<",
        "textgreater" => ">",
        "textbar" => "|",
        "epsilon" | "varepsilon" => "ε",
        "phi" | "varphi" => "φ",
        "log" => "log",
        "max" => "max",
        "min" => "min",
        "exp" => "exp",
        "sin" => "sin",
        "cos" => "cos",
        "quad" | "qquad" | "," | ";" | ":" | " " | "enspace" | "thinspace" | "\\" | "newline" => {
            " "
        }
        "%" => "%",
        "&" => "&",
        "_" => "_",
        "#" => "#",
        "$" => "$",
        "{" => "{",
        "}" => "}",
        "!" | "/" | "-" => "",
        _ => return None,
    })
}

/// Commands whose arguments are all dropped (number of braced arguments after optionals).
fn dropped_args(name: &str) -> Option<usize> {
    Some(match name {
        "color" | "hspace" | "vspace" | "phantom" | "hphantom" | "vphantom" | "label"
        | "arrayrulecolor" | "rowcolor" | "columncolor" | "cellcolor" | "extracolsep"
        | "setlength" | "cite" | "citep" | "citet" | "ref" | "footnote" | "footnotemark"
        | "rule" => match name {
            "setlength" | "rule" => 2,
            "footnotemark" => 0,
            _ => 1,
        },
        _ => return None,
    })
}

/// Commands that take arguments whose *last* one is the text (`\textcolor{c}{x}` → x).
fn last_arg_of(name: &str) -> Option<usize> {
    Some(match name {
        "textcolor" | "colorbox" | "href" | "scalebox" | "parbox" => 2,
        "resizebox" | "fcolorbox" => 3,
        "raisebox" | "makebox" | "framebox" => 1,
        _ => return None,
    })
}

/// Converts a cell's LaTeX to plain text (see the module doc).
pub fn latex_to_text(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::new();
    to_text(&c, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn to_text(c: &[char], out: &mut String) {
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '{' | '}' | '$' | '^' | '_' => i += 1,
            '~' => {
                out.push(' ');
                i += 1;
            }
            '\\' => {
                if let Some(end) = verb_end(c, i) {
                    let d = if c[i + 5] == '*' { i + 6 } else { i + 5 };
                    out.extend(&c[d + 1..end - 1]);
                    i = end;
                    continue;
                }
                let (name, j) = command_name(c, i);
                i = j;
                // TeX drops the spaces after a control word (`\pm 0.1` is `±0.1`).
                if name.chars().next().is_some_and(|ch| ch.is_ascii_alphabetic()) {
                    i = skip_ws(c, i);
                }
                if let Some(s) = symbol(&name) {
                    out.push_str(s);
                    continue;
                }
                if let Some(n) = dropped_args(&name) {
                    i = skip_optionals(c, i, false).unwrap_or(c.len());
                    for _ in 0..n {
                        i = read_group(c, i).map_or(c.len(), |g| g.1);
                    }
                    continue;
                }
                if let Some(n) = last_arg_of(&name) {
                    i = skip_optionals(c, i, false).unwrap_or(c.len());
                    for _ in 0..n.saturating_sub(1) {
                        i = read_group(c, i).map_or(c.len(), |g| g.1);
                        i = skip_optionals(c, i, false).unwrap_or(c.len());
                    }
                    continue;
                }
                if name == "begin" || name == "end" {
                    // Environment names are not text; nested `tabular` cells become spaced text.
                    let g = read_group(c, i).map_or((String::new(), c.len()), |g| g);
                    i = g.1;
                    if name == "begin" && ENVS.contains(&g.0.as_str()) {
                        i = skip_optionals(c, i, false).unwrap_or(c.len());
                        i = read_group(c, i).map_or(c.len(), |g| g.1);
                    }
                    out.push(' ');
                    continue;
                }
                // Anything else (formatting, `\makecell[c]{…}`, sizes): drop the name and any
                // optional arguments; braced arguments are read as text by the loop.
                i = skip_optionals_only_square(c, i);
            }
            '&' => {
                out.push(' ');
                i += 1;
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
}

/// Skips `[…]` groups directly after a command (not `(`, which is text here).
fn skip_optionals_only_square(c: &[char], mut i: usize) -> usize {
    while c.get(i) == Some(&'[') {
        match skip_optional(c, i) {
            Ok(j) => i = j,
            Err(_) => return i,
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: u32, col: u32, rs: u32, cs: u32, text: &str) -> Cell {
        Cell { row, col, row_span: rs, col_span: cs, text: text.into(), header: false }
    }

    fn texts(t: &Table) -> Vec<(u32, u32, u32, u32, &str)> {
        t.cells.iter().map(|c| (c.row, c.col, c.row_span, c.col_span, c.text.as_str())).collect()
    }

    #[test]
    fn simple_with_rules_and_header() {
        let t = parse_latex_table(
            "\\begin{tabular}{lcc}\n\\toprule\n\\textbf{Class} & P & R \\\\\n\\midrule\nA & 0.89 & 0.87 \\\\\n\\bottomrule\n\\end{tabular}",
        )
        .unwrap();
        assert_eq!((t.rows, t.cols), (2, 3));
        assert_eq!(
            texts(&t),
            vec![
                (0, 0, 1, 1, "Class"),
                (0, 1, 1, 1, "P"),
                (0, 2, 1, 1, "R"),
                (1, 0, 1, 1, "A"),
                (1, 1, 1, 1, "0.89"),
                (1, 2, 1, 1, "0.87")
            ]
        );
        assert!(t.cells[0].header && !t.cells[3].header);
    }

    #[test]
    fn multicolumn_and_escapes() {
        let t = parse_latex_table(
            "\\begin{tabular}{lcccc}\n\\hline\n\\multicolumn{4}{r}{\\textbf{Overall accuracy}} & 0.881 \\\\\nR\\&D \\% & a~b & 10\\,000 & $98.87^{\\pm0.00}$ & x % comment & y\n\\\\\n\\end{tabular}",
        )
        .unwrap();
        assert_eq!((t.rows, t.cols), (2, 5));
        assert_eq!(t.cells[0], cell(0, 0, 1, 4, "Overall accuracy"));
        assert_eq!(t.cells[1], cell(0, 4, 1, 1, "0.881"));
        assert_eq!(
            texts(&t)[2..],
            [
                (1, 0, 1, 1, "R&D %"),
                (1, 1, 1, 1, "a b"),
                (1, 2, 1, 1, "10 000"),
                (1, 3, 1, 1, "98.87±0.00"),
                (1, 4, 1, 1, "x")
            ]
        );
    }

    #[test]
    fn multirow_down_and_up() {
        let t = parse_latex_table(
            "\\begin{tabular}{ll}\n\\multirow{2}{*}{A} & 1 \\\\\n & 2 \\\\\nB & 3 \\\\\n & 4 \\\\\n\\multirow{-2}{*}{C} & 5 \\\\\n\\end{tabular}",
        )
        .unwrap();
        assert_eq!((t.rows, t.cols), (5, 2));
        assert_eq!(
            texts(&t),
            vec![
                (0, 0, 2, 1, "A"),
                (0, 1, 1, 1, "1"),
                (1, 1, 1, 1, "2"),
                (2, 0, 1, 1, "B"),
                (2, 1, 1, 1, "3"),
                (3, 0, 2, 1, "C"),
                (3, 1, 1, 1, "4"),
                (4, 1, 1, 1, "5")
            ]
        );
    }

    #[test]
    fn multirow_stops_at_text_and_table_end() {
        let t = parse_latex_table(
            "\\begin{tabular}{ll}\\multirow{3}{*}{A} & 1 \\\\ x & 2 \\\\ \\end{tabular}",
        )
        .unwrap();
        assert_eq!(texts(&t)[0], (0, 0, 1, 1, "A"));
        let t = parse_latex_table(
            "\\begin{tabular}{ll}\\multirow{3}{*}{A} & 1 \\\\ & 2 \\end{tabular}",
        )
        .unwrap();
        assert_eq!(texts(&t)[0], (0, 0, 2, 1, "A"));
    }

    #[test]
    fn short_rows_are_padded_and_spec_counts() {
        let t =
            parse_latex_table("\\begin{tabular}{|l|*{2}{c}|p{2cm}@{}}\na & b \\\\ \\end{tabular}")
                .unwrap();
        assert_eq!((t.rows, t.cols), (1, 4));
        assert_eq!(t.cells.len(), 4);
        assert_eq!(t.cells[3], cell(0, 3, 1, 1, ""));
        assert_eq!(
            count_spec_columns("@{}>{\\columncolor[HTML]{FFFFFF}}c l @{\\hspace{2em}}ll"),
            4
        );
        assert_eq!(count_spec_columns("@{\\extracolsep{\\fill}}lc"), 2);
        assert_eq!(count_spec_columns("lS[table-format=2.1]X"), 3);
    }

    #[test]
    fn starred_and_x_forms_and_nested_tabular() {
        let t = parse_latex_table("\\begin{tabular*}{0.65\\linewidth}{@{\\extracolsep{\\fill}}lc}\nModel & mIoU \\\\\n\\end{tabular*}").unwrap();
        assert_eq!((t.rows, t.cols), (1, 2));
        let t = parse_latex_table("\\begin{tabularx}{\\textwidth}{XX} a & \\begin{tabular}[c]{@{}c@{}}Inference\\\\ Time\\end{tabular} \\\\ \\end{tabularx}").unwrap();
        assert_eq!(texts(&t), vec![(0, 0, 1, 1, "a"), (0, 1, 1, 1, "Inference Time")]);
    }

    #[test]
    fn verb_is_verbatim() {
        let t = parse_latex_table("\\begin{tabular}{ll}\n\\% & \\verb\"\\%\" \\\\\n\\& & \\verb\"\\&\" \\\\\n\\end{tabular}").unwrap();
        assert_eq!(
            texts(&t),
            vec![(0, 0, 1, 1, "%"), (0, 1, 1, 1, "\\%"), (1, 0, 1, 1, "&"), (1, 1, 1, 1, "\\&")]
        );
    }

    #[test]
    fn text_cleanup() {
        assert_eq!(latex_to_text("\\textcolor{gray}{YOLOv8n}"), "YOLOv8n");
        assert_eq!(latex_to_text("{\\color[HTML]{333333} \\textbf{ID}}"), "ID");
        assert_eq!(
            latex_to_text("\\makecell[c]{Unseen damage\\\\severities}"),
            "Unseen damage severities"
        );
        assert_eq!(latex_to_text("$\\uparrow$ 3.2 $\\times$ \\cellcolor[HTML]{FFF}x"), "↑ 3.2 × x");
        assert_eq!(latex_to_text("{\\footnotesize{}Algebra}"), "Algebra");
    }

    #[test]
    fn errors() {
        assert_eq!(parse_latex_table("no table"), Err(LatexTableError::NoTabular));
        assert!(matches!(
            parse_latex_table("\\begin{tabular}{ll} a & b"),
            Err(LatexTableError::Unterminated(_))
        ));
    }

    #[test]
    fn pdf_parse_bench_ground_truth_parses() {
        let Some(dir) = crate::test_support::shared_data("pdf-parse-bench/tables/ground_truth")
        else {
            return;
        };
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        let mut n = 0;
        for p in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
            let text = std::fs::read_to_string(p).unwrap();
            let items: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
            for (k, item) in items.iter().enumerate() {
                if item["type"] != "table" {
                    continue;
                }
                let src = item["data"].as_str().unwrap();
                let t =
                    parse_latex_table(src).unwrap_or_else(|e| panic!("{}#{k}: {e}", p.display()));
                // Every slot is covered exactly once.
                let mut seen = vec![0u32; (t.rows * t.cols) as usize];
                for c in &t.cells {
                    for r in c.row..c.row + c.row_span {
                        for col in c.col..c.col + c.col_span {
                            seen[(r * t.cols + col) as usize] += 1;
                        }
                    }
                }
                assert!(seen.iter().all(|&s| s == 1), "{}#{k} does not tile", p.display());
                assert!(t.rows > 0 && t.cols > 0, "{}#{k} is empty", p.display());
                println!(
                    "{}#{k}: {} x {}",
                    p.file_name().unwrap().to_string_lossy(),
                    t.rows,
                    t.cols
                );
                n += 1;
            }
        }
        println!("{n} tables parsed");
        assert!(n > 0);
    }
}
