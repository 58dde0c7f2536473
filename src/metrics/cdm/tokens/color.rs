//! `latex_processor.token_add_color_RGB`: walks the normalized token list, wraps each token
//! that renders in `\mathcolor[RGB]{<color_N>}{…}` and records it. Python's list semantics
//! (negative indices, clamping slices, `IndexError`) are kept, since the official code relies
//! on them at the edges.

use std::sync::OnceLock;

use regex::Regex;

use super::normalize::{Classes, AB_TAIL, ONE_TAIL_INVISIBLE, TWO_TAIL, TWO_TAIL_INVISIBLE};
use super::py::{at, cat, find_matching_brace, one, slice, tail, Res};

fn skip_patterns() -> &'static [Regex] {
    static CELL: OnceLock<Vec<Regex>> = OnceLock::new();
    CELL.get_or_init(|| {
        [
            r"^\{",
            r"^\}",
            r"^[\[\]]",
            r"^\\begin\{.*?\}",
            r"^\\end\{.*?\}",
            r"^\^",
            r"^_",
            r"^\\.*rule.*",
            r"^\\.*line.*",
            r"^\[[\-.0-9]+[epm][xtm]\]",
        ]
        .iter()
        .map(|p| Regex::new(p).expect("a valid pattern"))
        .collect()
    })
}

fn color_token(n: usize) -> String {
    format!("\\mathcolor[RGB]{{<color_{n}>}}{{")
}

/// One step of the walk at `idx`; returns the index to continue from.
pub(super) fn add_color(
    v: &mut Vec<String>,
    idx: isize,
    tokens: &mut Vec<String>,
    brace_color: bool,
    c: &Classes,
) -> Res<isize> {
    let token = at(v, idx)?.to_string();
    let t = token.as_str();
    let fmb = |v: &Vec<String>, i: isize| find_matching_brace(v, i, "{", "}");
    let next = if t.is_empty() {
        idx + 1
    } else if c.phantom.contains(&t) {
        let end = if at(v, idx + 1)? == "{" { fmb(v, idx + 1)? } else { idx + 1 };
        end + 1
    } else if TWO_TAIL.contains(&t) {
        let num_end = fmb(v, idx + 1)?;
        let den_end = fmb(v, num_end + 1)?;
        let ct = color_token(tokens.len());
        *v = cat(vec![
            slice(v, 0, idx),
            one(ct + t),
            slice(v, idx + 1, den_end + 1),
            one("}"),
            tail(v, den_end + 1),
        ]);
        tokens.push(token);
        idx + 1
    } else if c.one_tail.contains(&t) {
        let num_end = fmb(v, idx + 1)?;
        let ct = color_token(tokens.len());
        if t != "\\underbrace" && num_end + 1 < v.len() as isize && at(v, num_end + 1)? == "_" {
            *v = cat(vec![
                slice(v, 0, idx),
                one(format!("{{{ct}{t}")),
                slice(v, idx + 1, num_end + 1),
                one("}}"),
                tail(v, num_end + 1),
            ]);
        } else {
            *v = cat(vec![
                slice(v, 0, idx),
                one(ct + t),
                slice(v, idx + 1, num_end + 1),
                one("}"),
                tail(v, num_end + 1),
            ]);
        }
        tokens.push(token);
        idx + 1
    } else if ONE_TAIL_INVISIBLE.contains(&t) {
        let num_start = idx + 1;
        let num_end = fmb(v, num_start)?;
        if num_end - num_start == 2 {
            let ct = color_token(tokens.len());
            let inner = at(v, num_start + 1)?.to_string();
            tokens.push(inner.clone());
            *v = cat(vec![
                slice(v, 0, num_start + 1),
                one(format!("{ct}{inner}}}")),
                tail(v, num_end),
            ]);
        } else {
            walk(v, num_start + 1, num_end, tokens, false, c)?;
        }
        num_end + 1
    } else if AB_TAIL.contains(&t) {
        let open = at(v, idx + 1)?.to_string();
        if open == "{" {
            let num_start = idx + 1;
            let num_end = fmb(v, num_start)?;
            let ct = color_token(tokens.len());
            *v = cat(vec![
                slice(v, 0, idx),
                one(ct + t),
                slice(v, idx + 1, num_end + 1),
                one("}"),
                tail(v, num_end + 1),
            ]);
            tokens.push(token);
            walk(v, num_start + 1, num_end, tokens, false, c)?;
            num_end + 1
        } else if open == "[" {
            let num_start = idx + 1;
            let num_end = find_matching_brace(v, num_start, "[", "]")?;
            let den_start = num_end + 1;
            let den_end = fmb(v, den_start)?;
            let ct = color_token(tokens.len());
            *v = cat(vec![
                slice(v, 0, idx),
                one(ct + t),
                slice(v, idx + 1, den_end + 1),
                one("}"),
                tail(v, den_end + 1),
            ]);
            tokens.push(token);
            walk(v, num_start + 1, num_end, tokens, true, c)?;
            walk(v, den_start + 1, den_end, tokens, false, c)?;
            den_end + 1
        } else {
            return Err(format!("UnboundLocalError: '{t}' followed by neither '{{' nor '['"));
        }
    } else if t == "\\multicolumn" || t == "\\multirow" {
        let first_end = fmb(v, idx + 1)?;
        let second_end = fmb(v, first_end + 1)?;
        let third_start = second_end + 1;
        let third_end = fmb(v, third_start)?;
        walk(v, third_start + 1, third_end, tokens, false, c)?;
        third_end + 1
    } else if c.skip.contains(&t)
        || TWO_TAIL_INVISIBLE.contains(&t)
        || skip_patterns().iter().any(|p| p.is_match(t))
    {
        if (t == "[" && at(v, idx - 1)? != "\\sqrt")
            || (t == "]" && idx >= 3 && at(v, idx - 3)? != "\\sqrt")
        {
            let ct = color_token(tokens.len());
            *v = cat(vec![slice(v, 0, idx), one(format!("{ct}{t}}}")), tail(v, idx + 1)]);
            tokens.push(token);
        }
        idx + 1
    } else {
        let ct = color_token(tokens.len());
        let wrapped = if brace_color || (idx > 1 && at(v, idx - 1)? == "_") {
            format!("{{{ct}{t}}}}}")
        } else {
            format!("{ct}{t}}}")
        };
        *v = cat(vec![slice(v, 0, idx), one(wrapped), tail(v, idx + 1)]);
        tokens.push(token);
        idx + 1
    };
    Ok(next)
}

/// `while sub_idx < end: l_split, sub_idx, token_list = token_add_color_RGB(...)`.
pub(super) fn walk(
    v: &mut Vec<String>,
    mut idx: isize,
    end: isize,
    tokens: &mut Vec<String>,
    brace_color: bool,
    c: &Classes,
) -> Res<()> {
    while idx < end {
        let next = add_color(v, idx, tokens, brace_color, c)?;
        if next <= idx {
            // The official loop would start over here and never end.
            return Err(format!("the official colouring loops forever at token {idx}"));
        }
        idx = next;
    }
    Ok(())
}
