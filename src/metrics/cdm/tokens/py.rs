//! Python's list and string semantics where the official code relies on them: negative
//! indices counting from the end, slices that clamp, `IndexError`s, `str.isspace`.

pub(super) type Res<T> = Result<T, String>;

/// Python's `str.isspace` for one character.
pub(super) fn isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.strip()`.
pub(super) fn strip(s: &str) -> &str {
    s.trim_matches(isspace)
}

/// `s.split()`.
pub(super) fn split_ws(s: &str) -> Vec<&str> {
    s.split(isspace).filter(|t| !t.is_empty()).collect()
}

/// `v[i]`.
pub(super) fn at(v: &[String], i: isize) -> Res<&str> {
    let n = v.len() as isize;
    let j = if i < 0 { i + n } else { i };
    if j < 0 || j >= n {
        return Err(format!("IndexError: list index {i} out of range (len {n})"));
    }
    Ok(&v[j as usize])
}

fn clamp(i: isize, n: isize) -> usize {
    let j = if i < 0 { i + n } else { i };
    j.clamp(0, n) as usize
}

/// `v[a:b]`.
pub(super) fn slice(v: &[String], a: isize, b: isize) -> Vec<String> {
    let n = v.len() as isize;
    let (a, b) = (clamp(a, n), clamp(b, n));
    if a >= b {
        Vec::new()
    } else {
        v[a..b].to_vec()
    }
}

/// `v[a:]`.
pub(super) fn tail(v: &[String], a: isize) -> Vec<String> {
    slice(v, a, v.len() as isize)
}

/// `latex_processor.find_matching_brace`: the index of the brace closing the first group
/// that opens at or after `start`, -1 when none closes, an error (the official `ValueError`)
/// when one is left open.
pub(super) fn find_matching_brace(
    v: &[String],
    start: isize,
    open: &str,
    close: &str,
) -> Res<isize> {
    let mut depth = 0i64;
    for (k, t) in tail(v, start).iter().enumerate() {
        let i = start + k as isize;
        if t == open {
            depth += 1;
        } else if t == close {
            depth -= 1;
            if depth == 0 {
                return Ok(i);
            }
        }
    }
    if depth > 0 {
        return Err("ValueError: Warning! found no matching brace in sequence !".into());
    }
    Ok(-1)
}

/// Concatenates list pieces.
pub(super) fn cat(parts: Vec<Vec<String>>) -> Vec<String> {
    parts.into_iter().flatten().collect()
}

/// A one-element list.
pub(super) fn one(s: impl Into<String>) -> Vec<String> {
    vec![s.into()]
}
