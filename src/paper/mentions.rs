//! The one citation-mention extractor (`docs/paper-suite.md` §2.2), run on GT and prediction alike.
//!
//! For each reference the citation forms are built from its authors' last names and its year
//! as cited (`2016a` keeps its letter):
//!
//! | authors | forms |
//! |---|---|
//! | 1 | `Last,? YEAR`, `Last (YEAR` |
//! | 2 | `Last1 and Last2,? YEAR`, `Last1 and Last2 (YEAR` (also `&`) |
//! | 3+ | `Last1 et al.,? YEAR`, `Last1 et al. (YEAR` (the `.` optional) |
//!
//! so each entry of `(A, 2014; B et al., 2016a)` is one mention. Numbered citations `[3]`,
//! `[3-5]`, `[2, 7]` map to the 1-based reference index. Names match exactly, at a word start.

use std::collections::HashMap;

use super::references::{find_years, last_name};
use super::{Mention, Paper};

/// The citation pattern of one reference.
struct Pattern {
    index: usize,
    first: String,
    second: Option<String>,
    many: bool,
}

/// Returns the mentions found in the abstract and the sections, in order of appearance.
pub(crate) fn extract(paper: &Paper) -> Vec<Mention> {
    let mut out = Vec::new();
    scan(paper, |text, found| {
        let sentences = sentences(text);
        for &(s, e, reference) in found {
            let k = sentences.partition_point(|&(_, end)| end <= s);
            let (ss, se) = sentences.get(k).copied().unwrap_or((0, text.len()));
            let (ss, se) = (ss.min(s), se.max(e));
            out.push(Mention {
                reference,
                context: text[ss..se].to_string(),
                start: text[ss..s].chars().count(),
                end: text[ss..e].chars().count(),
            });
        }
    });
    out
}

/// Returns the reference index of every mention, in order of appearance: [`extract`] without
/// the contexts, for the metrics.
pub(crate) fn cited(paper: &Paper) -> Vec<usize> {
    let mut out = Vec::new();
    scan(paper, |_, found| out.extend(found.iter().map(|f| f.2)));
    out
}

/// Finds the citations in each text piece and hands them, sorted, to `each`.
fn scan(paper: &Paper, mut each: impl FnMut(&str, &[(usize, usize, usize)])) {
    let Some(refs) = paper.references.as_ref().filter(|r| !r.is_empty()) else {
        return;
    };
    let mut by_year: HashMap<&str, Vec<Pattern>> = HashMap::new();
    for (index, r) in refs.iter().enumerate() {
        let Some(year) = r.year.as_deref() else {
            continue;
        };
        let names: Vec<String> =
            r.authors.iter().map(|a| last_name(a)).filter(|l| !l.is_empty()).collect();
        let Some(first) = names.first().cloned() else {
            continue;
        };
        let pattern = Pattern {
            index,
            first,
            second: (names.len() == 2).then(|| names[1].clone()),
            many: names.len() >= 3,
        };
        by_year.entry(year).or_default().push(pattern);
    }
    let pieces = paper.abstract_text.iter().chain(paper.sections.iter().flatten().map(|s| &s.text));
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for text in pieces {
        found.clear();
        if !by_year.is_empty() {
            author_year(text, &by_year, &mut found);
        }
        numbered(text, refs.len(), &mut found);
        if found.is_empty() {
            continue;
        }
        found.sort_by_key(|&(s, e, _)| (s, e));
        each(text, &found);
    }
}

/// Returns the byte index where `word` ends `s` at a word start, if it does.
fn ends_with_word(s: &str, word: &str) -> Option<usize> {
    let start = s.len().checked_sub(word.len())?;
    if !s.is_char_boundary(start) || &s[start..] != word {
        return None;
    }
    let boundary = s[..start].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
    boundary.then_some(start)
}

/// Strips trailing white space; returns `None` when there was none and `need` is set.
fn strip_ws(s: &str, need: bool) -> Option<&str> {
    let t = s.trim_end();
    (!need || t.len() < s.len()).then_some(t)
}

/// Returns where a citation of `p` starts if `before` (the text up to the year) ends with one.
fn name_start(before: &str, p: &Pattern) -> Option<usize> {
    // `(YEAR` or `,? YEAR`
    let t = before.trim_end();
    let name_end = if let Some(t) = t.strip_suffix('(') {
        t.trim_end()
    } else {
        let t = strip_ws(before, true)?;
        t.strip_suffix(',').unwrap_or(t).trim_end()
    };
    if p.many {
        let t = name_end.strip_suffix('.').unwrap_or(name_end);
        let t = t.strip_suffix("al")?;
        let t = strip_ws(t, true)?;
        let t = t.strip_suffix("et")?;
        let t = strip_ws(t, true)?;
        return ends_with_word(t, &p.first);
    }
    if let Some(second) = &p.second {
        let s2 = ends_with_word(name_end, second)?;
        let t = strip_ws(&name_end[..s2], true)?;
        let t = t.strip_suffix("and").or_else(|| t.strip_suffix('&'))?;
        let t = strip_ws(t, true)?;
        return ends_with_word(t, &p.first);
    }
    ends_with_word(name_end, &p.first)
}

fn author_year(
    text: &str,
    by_year: &HashMap<&str, Vec<Pattern>>,
    found: &mut Vec<(usize, usize, usize)>,
) {
    for y in find_years(text) {
        let Some(cands) = by_year.get(&text[y.start..y.end]) else {
            continue;
        };
        let before = &text[..y.start];
        for p in cands {
            if let Some(s) = name_start(before, p) {
                let mut e = y.end;
                if text[e..].starts_with(')') && before.trim_end().ends_with('(') {
                    e += 1;
                }
                found.push((s, e, p.index));
                break;
            }
        }
    }
}

/// Finds `[n]`, `[n-m]`, `[n, m, ...]` citations whose numbers are all in `1..=count`.
fn numbered(text: &str, count: usize, found: &mut Vec<(usize, usize, usize)>) {
    for (open, _) in text.match_indices('[') {
        let Some(len) = text[open + 1..].find(']') else {
            continue;
        };
        let inner = &text[open + 1..open + 1 + len];
        if inner.is_empty() || inner.len() > 80 {
            continue;
        }
        let mut nums = Vec::new();
        let mut ok = true;
        for part in inner.split([',', ';']) {
            let part = part.trim();
            let (a, b) = match part.split_once(['-', '–', '—']) {
                Some((a, b)) => (a.trim(), b.trim()),
                None => (part, part),
            };
            match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) if a >= 1 && a <= b && b <= count && b - a < 50 => {
                    nums.extend(a..=b)
                }
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            let end = open + len + 2;
            found.extend(nums.into_iter().map(|n| (open, end, n - 1)));
        }
    }
}

/// Returns the sentences of a text as byte ranges, in order, covering it: a sentence ends at
/// `.`, `!` or `?` followed by white space and an uppercase letter, a digit or a bracket, unless
/// the word before is an abbreviation (`al.`, `e.g.`, `Fig.`, an initial); a blank line also
/// ends one.
fn sentences(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let skip_ws = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        j
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' && b.get(i + 1) == Some(&b'\n') {
            out.push((start, i));
            start = skip_ws(i);
            i = start;
            continue;
        }
        if matches!(c, b'.' | b'!' | b'?') && b.get(i + 1).is_some_and(u8::is_ascii_whitespace) {
            let j = skip_ws(i + 1);
            let opens = text[j..]
                .chars()
                .next()
                .is_some_and(|n| n.is_uppercase() || n.is_ascii_digit() || n == '(' || n == '[');
            let word_start = text[..i].rfind(char::is_whitespace).map_or(0, |p| p + 1);
            let word = &text[word_start..i];
            let abbrev = c == b'.'
                && (matches!(
                    word,
                    "al" | "e.g"
                        | "i.e"
                        | "cf"
                        | "Fig"
                        | "Figs"
                        | "Eq"
                        | "Eqs"
                        | "Sec"
                        | "Tab"
                        | "vs"
                        | "etc"
                        | "No"
                        | "Dr"
                        | "Mr"
                        | "Ms"
                        | "Prof"
                ) || (word.chars().count() == 1 && word.chars().all(char::is_uppercase)));
            if opens && !abbrev {
                out.push((start, i + 1));
                start = j;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    if start < b.len() {
        out.push((start, b.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::{Reference, Section};

    fn r(authors: &[&str], year: &str) -> Reference {
        Reference {
            title: Some("T".into()),
            authors: authors.iter().map(|a| a.to_string()).collect(),
            venue: None,
            year: Some(year.into()),
            ..Reference::default()
        }
    }

    fn paper(text: &str, refs: Vec<Reference>) -> Paper {
        Paper {
            sections: Some(vec![Section {
                heading: Some("1 Intro".into()),
                level: None,
                text: text.into(),
            }]),
            references: Some(refs),
            ..Paper::default()
        }
    }

    #[test]
    fn author_year_forms_are_found() {
        let refs = vec![
            r(&["Arfath Pasha", "Mohamed Al-Badrashiny", "Owen Rambow"], "2014"),
            r(&["Helmut Schmid."], "1994"),
            r(&["Marco Baroni", "Alessandro Lenci"], "2011"),
            r(&["Ann Lee", "Bo Wu", "Cy Ode"], "2016a"),
            r(&["Ann Lee", "Bo Wu", "Cy Ode"], "2016b"),
        ];
        let text = "We follow prior work (Pasha et al., 2014; Schmid, 1994). Schmid (1994) \
                    disagrees. Baroni and Lenci (2011) and Baroni & Lenci, 2011 agree. Lee et al. \
                    (2016b) extends Lee et al., 2016a.";
        let p = paper(text, refs);
        let m = extract(&p);
        let got: Vec<usize> = m.iter().map(|m| m.reference).collect();
        assert_eq!(got, vec![0, 1, 1, 2, 2, 4, 3]);
        assert_eq!(m[0].context, "We follow prior work (Pasha et al., 2014; Schmid, 1994).");
        let span: String =
            m[0].context.chars().skip(m[0].start).take(m[0].end - m[0].start).collect();
        assert_eq!(span, "Pasha et al., 2014");
        assert_eq!(m[2].context, "Schmid (1994) disagrees.");
        let span: String =
            m[2].context.chars().skip(m[2].start).take(m[2].end - m[2].start).collect();
        assert_eq!(span, "Schmid (1994)");
    }

    #[test]
    fn a_year_without_its_letter_or_another_name_is_not_a_mention() {
        let p = paper(
            "Lee et al. (2016) and Smith (2016a) and Schmidt, 1994.",
            vec![r(&["Ann Lee", "Bo Wu", "Cy Ode"], "2016a"), r(&["Helmut Schmid"], "1994")],
        );
        assert!(extract(&p).is_empty());
    }

    #[test]
    fn numbered_citations() {
        let refs: Vec<Reference> = (0..6).map(|i| r(&["X Y"], &format!("200{i}"))).collect();
        let p = paper("Shown in [3] and [1-2], also [4, 6]. Not [9] nor [a].", refs);
        let got: Vec<usize> = extract(&p).iter().map(|m| m.reference).collect();
        assert_eq!(got, vec![2, 0, 1, 3, 5]);
    }
}
