//! PeerRead / science-parse JSON (`docs/paper-suite.md` §1.1): reader and writer.
//!
//! The reader keeps the text as stored (line numbers, mojibake and all: normalization deals
//! with them), takes a year's letter from `citeRegEx` (`\Q2016a\E`), and ignores the stored
//! `referenceMentions`: mentions are rebuilt. The writer emits exactly science-parse's key
//! order; a field the paper lacks (`None`) is written as `null`, so it reads back as lacking.

use serde_json::{Map, Value};

use super::{Format, FormatError};
use crate::paper::{Paper, Reference, Section};

/// The format this file reads and writes.
const FORMAT: Format = Format::PeerRead;
use crate::normalize::heading_key;

fn shape(expected: &'static str, path: impl Into<String>) -> FormatError {
    FormatError::shape(FORMAT, expected, path)
}

fn opt_str(v: Option<&Value>, path: &str) -> Result<Option<String>, FormatError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(shape("string or null", path)),
    }
}

fn str_list(v: Option<&Value>, path: &str) -> Result<Vec<String>, FormatError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                Value::String(s) => Ok(s.clone()),
                _ => Err(shape("string", format!("{path}[{i}]"))),
            })
            .collect(),
        Some(_) => Err(shape("array of strings", path)),
    }
}

fn opt_year(v: Option<&Value>, path: &str) -> Result<Option<i64>, FormatError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(|| shape("integer year", path)),
        Some(Value::String(s)) => {
            let d: String = s.chars().take_while(char::is_ascii_digit).collect();
            Ok(d.parse().ok())
        }
        Some(_) => Err(shape("integer year or null", path)),
    }
}

/// Returns the year as cited in a science-parse `citeRegEx`: the `\Q..\E` quote, else the
/// last token.
fn regex_year(re: &str) -> Option<&str> {
    if let Some(p) = re.find("\\Q") {
        let rest = &re[p + 2..];
        return Some(rest.split("\\E").next().unwrap_or(rest).trim());
    }
    re.split_whitespace().last()
}

/// The keys of a PeerRead file's `metadata` object, in the order science-parse writes them
/// (and [`write_peerread`] too).
pub const METADATA_KEYS: [&str; 10] = [
    "source",
    "title",
    "authors",
    "emails",
    "sections",
    "references",
    "referenceMentions",
    "year",
    "abstractText",
    "creator",
];

/// Reads a PeerRead / science-parse JSON file.
pub fn read_peerread(bytes: &[u8]) -> Result<Paper, FormatError> {
    let root: Value = serde_json::from_slice(bytes).map_err(|e| FormatError::json(FORMAT, e))?;
    let root = root.as_object().ok_or_else(|| shape("object", "$"))?;
    let meta = root
        .get("metadata")
        .and_then(Value::as_object)
        .ok_or_else(|| shape("object", "metadata"))?;
    let sections = match meta.get("sections") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .enumerate()
                .map(|(i, s)| {
                    let path = format!("metadata.sections[{i}]");
                    let o = s.as_object().ok_or_else(|| shape("object", path.clone()))?;
                    Ok(Section {
                        heading: opt_str(o.get("heading"), &format!("{path}.heading"))?,
                        level: None,
                        text: opt_str(o.get("text"), &format!("{path}.text"))?.unwrap_or_default(),
                    })
                })
                .collect::<Result<Vec<_>, FormatError>>()?,
        ),
        Some(_) => return Err(shape("array", "metadata.sections")),
    };
    let references = match meta.get("references") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .enumerate()
                .map(|(i, r)| read_reference(r, &format!("metadata.references[{i}]")))
                .collect::<Result<Vec<_>, FormatError>>()?,
        ),
        Some(_) => return Err(shape("array", "metadata.references")),
    };
    let mut p = Paper {
        title: opt_str(meta.get("title"), "metadata.title")?,
        abstract_text: opt_str(meta.get("abstractText"), "metadata.abstractText")?,
        sections,
        references,
        mentions: Vec::new(),
        tables: None,
        authors: str_list(meta.get("authors"), "metadata.authors")?,
        surnames: None,
        keywords: Vec::new(),
        emails: str_list(meta.get("emails"), "metadata.emails")?,
        year: opt_year(meta.get("year"), "metadata.year")?,
        source: opt_str(meta.get("source"), "metadata.source")?,
        creator: opt_str(meta.get("creator"), "metadata.creator")?,
    };
    p.rebuild_mentions();
    Ok(p)
}

fn read_reference(v: &Value, path: &str) -> Result<Reference, FormatError> {
    let o = v.as_object().ok_or_else(|| shape("object", path))?;
    let year = opt_year(o.get("year"), &format!("{path}.year"))?;
    let cite = opt_str(o.get("citeRegEx"), &format!("{path}.citeRegEx"))?;
    let year = year.map(|y| {
        let y = y.to_string();
        // Keep the letter that only the regex records (`\Q2016a\E`).
        match cite.as_deref().and_then(regex_year) {
            Some(c) if c.len() == y.len() + 1 && c.starts_with(&y) => c.to_string(),
            _ => y,
        }
    });
    Ok(Reference {
        title: opt_str(o.get("title"), &format!("{path}.title"))?,
        authors: str_list(o.get("author"), &format!("{path}.author"))?,
        venue: opt_str(o.get("venue"), &format!("{path}.venue"))?,
        year,
        ..Reference::default()
    })
}

/// Returns the science-parse `citeRegEx` and `shortCiteRegEx` of a reference.
fn cite_regexes(r: &Reference) -> (Value, Value) {
    let names: Vec<String> = r
        .authors
        .iter()
        .map(|a| crate::paper::references::last_name(a))
        .filter(|l| !l.is_empty())
        .collect();
    let short = match names.len() {
        0 => return (Value::Null, Value::Null),
        1 => names[0].clone(),
        2 => format!("{} and {}", names[0], names[1]),
        _ => format!("{} et al\\.", names[0]),
    };
    let full = match r.year.as_deref() {
        Some(y) => format!("{short},? \\Q{y}\\E"),
        None => short.clone(),
    };
    (Value::String(full), Value::String(short))
}

fn opt(v: &Option<String>) -> Value {
    v.as_ref().map_or(Value::Null, |s| Value::String(s.clone()))
}

/// Writes a paper as PeerRead JSON named `name` (`"<id>.pdf"`), in science-parse's key order.
/// Sections headed Abstract or References are left out (they live in `abstractText` and
/// `references`); mentions are written as rebuilt from the text.
pub fn write_peerread(paper: &Paper, name: &str) -> String {
    let sections = paper.sections.as_ref().map(|ss| {
        Value::Array(
            ss.iter()
                .filter(|s| {
                    let k = s.heading.as_deref().map(heading_key).unwrap_or_default();
                    !crate::paper::linearize::is_abstract_key(&k)
                        && !crate::paper::linearize::is_references_key(&k)
                })
                .map(|s| {
                    let mut o = Map::new();
                    o.insert("heading".into(), opt(&s.heading));
                    o.insert("text".into(), Value::String(s.text.clone()));
                    Value::Object(o)
                })
                .collect(),
        )
    });
    let references = paper.references.as_ref().map(|rs| {
        Value::Array(
            rs.iter()
                .map(|r| {
                    let (cite, short) = cite_regexes(r);
                    let mut o = Map::new();
                    o.insert("title".into(), opt(&r.title));
                    o.insert(
                        "author".into(),
                        Value::Array(r.authors.iter().cloned().map(Value::String).collect()),
                    );
                    o.insert("venue".into(), opt(&r.venue));
                    o.insert("citeRegEx".into(), cite);
                    o.insert("shortCiteRegEx".into(), short);
                    let y = r.year_digits().and_then(|d| d.parse::<i64>().ok());
                    o.insert("year".into(), y.map_or(Value::Null, Value::from));
                    Value::Object(o)
                })
                .collect(),
        )
    });
    let mut probe = paper.clone();
    probe.rebuild_mentions();
    let mentions: Vec<Value> = probe
        .mentions
        .iter()
        .map(|m| {
            let mut o = Map::new();
            o.insert("referenceID".into(), Value::from(m.reference));
            o.insert("context".into(), Value::String(m.context.clone()));
            o.insert("startOffset".into(), Value::from(m.start));
            o.insert("endOffset".into(), Value::from(m.end));
            Value::Object(o)
        })
        .collect();
    let strs = |v: &[String]| Value::Array(v.iter().cloned().map(Value::String).collect());
    let mut meta = Map::new();
    meta.insert("source".into(), opt(&paper.source));
    meta.insert("title".into(), opt(&paper.title));
    meta.insert("authors".into(), strs(&paper.authors));
    meta.insert("emails".into(), strs(&paper.emails));
    meta.insert("sections".into(), sections.unwrap_or(Value::Null));
    meta.insert("references".into(), references.unwrap_or(Value::Null));
    meta.insert("referenceMentions".into(), Value::Array(mentions));
    meta.insert("year".into(), paper.year.map_or(Value::Null, Value::from));
    meta.insert("abstractText".into(), opt(&paper.abstract_text));
    meta.insert("creator".into(), opt(&paper.creator));
    let mut root = Map::new();
    root.insert("name".into(), Value::String(name.to_string()));
    root.insert("metadata".into(), Value::Object(meta));
    // Serializing a Value built from strings and numbers cannot fail.
    serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small file in science-parse's exact shape, with its quirks.
    pub(crate) const SAMPLE: &str = r#"{ "name": "496.pdf",
  "metadata": {
    "source": "CRF", "title": "Neural Tagging", "authors": [], "emails": [],
    "sections": [
      { "heading": null, "text": "000\n001\n002\n" },
      { "heading": "1 Introduction", "text": "Tagging matters (Pasha et al., 2014). Schmid (1994) built a tagger.\n011\nWe extend Lee et al. (2016a) and Lee et al., 2016b." },
      { "heading": "2 Results", "text": "Table 1: Accuracy.\nTest 54,088 97.5 1,812\nThe loss is Ï = â1 x." }
    ],
    "references": [
      { "title": "MADAMIRA", "author": ["Arfath Pasha", "Mohamed Al-Badrashiny", "Owen Rambow"], "venue": "LREC",
        "citeRegEx": "Pasha et al\\.,? \\Q2014\\E", "shortCiteRegEx": "Pasha et al\\.", "year": 2014 },
      { "title": "Tree tagger", "author": ["Helmut Schmid."], "venue": null,
        "citeRegEx": "Schmid.,? 1994", "shortCiteRegEx": "Schmid.", "year": 1994 },
      { "title": "A", "author": ["Ann Lee", "Bo Wu", "Cy Ode"], "venue": null,
        "citeRegEx": "Lee et al\\.,? \\Q2016a\\E", "shortCiteRegEx": "Lee et al\\.", "year": 2016 },
      { "title": "B", "author": ["Ann Lee", "Bo Wu", "Cy Ode"], "venue": null,
        "citeRegEx": "Lee et al\\.,? \\Q2016b\\E", "shortCiteRegEx": "Lee et al\\.", "year": 2016 }
    ],
    "referenceMentions": [ { "referenceID": 0, "context": "stale", "startOffset": 0, "endOffset": 3 } ],
    "year": 2017, "abstractText": "We tag words.", "creator": "Preview" } }"#;

    #[test]
    fn reads_the_schema_and_its_quirks() {
        let p = read_peerread(SAMPLE.as_bytes()).unwrap();
        assert_eq!(p.title.as_deref(), Some("Neural Tagging"));
        let s = p.sections.as_ref().unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].heading, None);
        let r = p.references.as_ref().unwrap();
        assert_eq!(r[2].year.as_deref(), Some("2016a"));
        assert_eq!(r[3].year.as_deref(), Some("2016b"));
        assert_eq!(r[1].key(), Some(("schmid".into(), "1994".into())));
        // Rebuilt, not the stale stored one.
        let got: Vec<usize> = p.mentions.iter().map(|m| m.reference).collect();
        assert_eq!(got, vec![0, 1, 2, 3]);
        assert_eq!(p.year, Some(2017));
        assert!(p.tables.is_none());
    }

    #[test]
    fn errors_name_the_place() {
        let e =
            read_peerread(br#"{"metadata": {"sections": [{"heading": null, "text": "a"}, 3]}}"#)
                .unwrap_err();
        assert_eq!(e.to_string(), "expected object at metadata.sections[1]");
        let e = read_peerread(b"[]").unwrap_err();
        assert_eq!(e.to_string(), "expected object at $");
        assert!(read_peerread(b"{").unwrap_err().to_string().starts_with("invalid JSON"));
    }

    #[test]
    fn writer_keeps_key_order_and_reads_back() {
        let p = read_peerread(SAMPLE.as_bytes()).unwrap();
        let out = write_peerread(&p, "496.pdf");
        let v: Value = serde_json::from_str(&out).unwrap();
        let keys: Vec<&String> = v["metadata"].as_object().unwrap().keys().collect();
        assert_eq!(keys, METADATA_KEYS);
        assert_eq!(v["name"], "496.pdf");
        assert_eq!(v["metadata"]["references"][2]["citeRegEx"], "Lee et al\\.,? \\Q2016a\\E");
        assert_eq!(v["metadata"]["references"][2]["year"], 2016);
        assert_eq!(v["metadata"]["referenceMentions"].as_array().unwrap().len(), 4);
        assert_eq!(read_peerread(out.as_bytes()).unwrap(), p);
    }
}
