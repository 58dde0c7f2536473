//! S2ORC JSON (`s2orc-doc2json` output) read into a [`Paper`].
//!
//! Title and abstract from the top level (else `pdf_parse.abstract`), sections from
//! `pdf_parse.body_text` then `back_matter` (a new section wherever `sec_num` + `section`
//! changes; paragraphs are lines), references from `pdf_parse.bib_entries` in file order
//! (`authors[].last` as surnames, `volume`, `issue`, the first of `pages`,
//! `other_ids.DOI[0]`), the paper's authors from the top-level `authors`.
//! S2ORC keeps no table text in the body, so `tables` is `None`.

use serde_json::Value;

use super::{Format, FormatError};
use crate::paper::{Paper, Reference, Section};

/// The format this file reads.
const FORMAT: Format = Format::S2orc;

fn shape(expected: &'static str, path: impl Into<String>) -> FormatError {
    FormatError::shape(FORMAT, expected, path)
}

fn text_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// Reads an S2ORC author list (`[{first, middle, last}]`): names as printed, and the surnames
/// (`last`) when there are any authors.
fn people(v: Option<&Value>) -> (Vec<String>, Option<Vec<String>>) {
    let mut names = Vec::new();
    let mut surnames = Vec::new();
    for x in v.and_then(Value::as_array).into_iter().flatten() {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(text_of(x.get("first")));
        if let Some(m) = x.get("middle").and_then(Value::as_array) {
            parts.extend(m.iter().filter_map(|m| text_of(Some(m))));
        }
        let last = text_of(x.get("last"));
        parts.extend(last.clone());
        if parts.is_empty() {
            continue;
        }
        let name = parts.join(" ");
        surnames.push(last.unwrap_or_else(|| crate::paper::references::last_name(&name)));
        names.push(name);
    }
    let surnames = (!names.is_empty()).then_some(surnames);
    (names, surnames)
}

/// Reads an S2ORC JSON file.
pub(crate) fn read_s2orc(bytes: &[u8]) -> Result<Paper, FormatError> {
    let root: Value = serde_json::from_slice(bytes).map_err(|e| FormatError::json(FORMAT, e))?;
    let root = root.as_object().ok_or_else(|| shape("object", "$"))?;
    let parse = root.get("pdf_parse").and_then(Value::as_object);
    let paragraphs = |key: &str| -> Result<Vec<(String, String)>, FormatError> {
        let Some(v) = parse.and_then(|p| p.get(key)) else {
            return Ok(Vec::new());
        };
        let arr = v.as_array().ok_or_else(|| shape("array", format!("pdf_parse.{key}")))?;
        arr.iter()
            .enumerate()
            .map(|(i, p)| {
                let o = p
                    .as_object()
                    .ok_or_else(|| shape("object", format!("pdf_parse.{key}[{i}]")))?;
                let name = text_of(o.get("section")).unwrap_or_default();
                let heading = match text_of(o.get("sec_num")) {
                    Some(n) if !name.is_empty() => format!("{n} {name}"),
                    _ => name,
                };
                Ok((heading, text_of(o.get("text")).unwrap_or_default()))
            })
            .collect()
    };
    let abstract_text = text_of(root.get("abstract")).or_else(|| {
        let ps = paragraphs("abstract").ok()?;
        let t: Vec<String> = ps.into_iter().map(|(_, t)| t).filter(|t| !t.is_empty()).collect();
        (!t.is_empty()).then(|| t.join("\n"))
    });
    let mut sections: Vec<Section> = Vec::new();
    let mut last: Option<String> = None;
    for (heading, text) in paragraphs("body_text")?.into_iter().chain(paragraphs("back_matter")?) {
        if last.as_deref() != Some(heading.as_str()) {
            let h = (!heading.is_empty()).then(|| heading.clone());
            sections.push(Section { heading: h, ..Section::default() });
            last = Some(heading);
        }
        // A section was opened just above for the first heading: never a new one here.
        crate::paper::push_line(&mut sections, &text);
    }
    let mut references = Vec::new();
    if let Some(bib) = parse.and_then(|p| p.get("bib_entries")) {
        let bib = bib.as_object().ok_or_else(|| shape("object", "pdf_parse.bib_entries"))?;
        for (id, e) in bib {
            let path = format!("pdf_parse.bib_entries.{id}");
            let o = e.as_object().ok_or_else(|| shape("object", path.clone()))?;
            let (authors, surnames) = people(o.get("authors"));
            let year = match o.get("year") {
                Some(Value::Number(n)) => Some(n.to_string()),
                Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                _ => None,
            };
            let first_page = text_of(o.get("pages")).and_then(|p| {
                let f = p.split(['-', '\u{2013}']).next().unwrap_or("").trim().to_string();
                (!f.is_empty()).then_some(f)
            });
            let doi = o
                .get("other_ids")
                .and_then(|i| i.get("DOI"))
                .and_then(Value::as_array)
                .and_then(|a| a.iter().find_map(|d| text_of(Some(d))));
            references.push(Reference {
                title: text_of(o.get("title")),
                authors,
                surnames,
                venue: text_of(o.get("venue")),
                year,
                volume: text_of(o.get("volume")),
                issue: text_of(o.get("issue")),
                first_page,
                doi,
            });
        }
    }
    let (authors, surnames) = people(root.get("authors"));
    let mut p = Paper {
        title: text_of(root.get("title")),
        abstract_text,
        sections: Some(sections),
        references: Some(references),
        authors,
        surnames,
        ..Paper::default()
    };
    p.rebuild_mentions();
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_s2orc() {
        let j = r#"{"title": "T", "abstract": "We tag.", "pdf_parse": {
            "body_text": [
              {"text": "A (Schmid, 1994).", "section": "Introduction", "sec_num": "1"},
              {"text": "B.", "section": "Introduction", "sec_num": "1"},
              {"text": "C.", "section": "Method", "sec_num": null}],
            "back_matter": [],
            "bib_entries": {"BIBREF0": {"title": "Tree", "authors": [{"first": "Helmut", "middle": [], "last": "Schmid"}],
              "year": 1994, "venue": "NeMLaP"}}}}"#;
        let p = read_s2orc(j.as_bytes()).unwrap();
        let s = p.sections.as_ref().unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].heading.as_deref(), Some("1 Introduction"));
        assert_eq!(s[0].text, "A (Schmid, 1994).\nB.");
        assert_eq!(s[1].heading.as_deref(), Some("Method"));
        assert_eq!(p.references.as_ref().unwrap()[0].key(), Some(("schmid".into(), "1994".into())));
        assert_eq!(p.mentions.len(), 1);
    }
}
