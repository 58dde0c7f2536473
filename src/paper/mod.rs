//! The `Paper` model of the paper suite (rules in `docs/paper-suite.md`): the paper, its reference
//! strings, its mentions, and the linearizer between a [`Doc`](crate::doc::Doc) and a paper.
//!
//! Every source (PeerRead JSON, GROBID TEI, S2ORC JSON, JATS XML, read in
//! [`crate::formats`]; a provider's [`Doc`](crate::doc::Doc)) is read into one [`Paper`]. A
//! field that a source does not have is `None`, which is not the same as present but empty: a
//! header-only truth has `sections: None`, and the metrics that need sections are then null
//! rather than zero.
//!
//! Mentions are never taken from a file: `Paper::rebuild_mentions` derives them from the text
//! and the references with the one extractor in [`mentions`], on every side alike.

pub mod linearize;
pub mod mentions;
pub mod references;

use serde::{Deserialize, Serialize};

pub use crate::doc::Reference;
pub use linearize::{canonical, from_doc, to_doc};

/// A paper as the paper suite compares it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Paper {
    /// The title, if the source has one.
    pub title: Option<String>,
    /// The abstract, if the source has one.
    pub abstract_text: Option<String>,
    /// The sections after the abstract (title block, Abstract and References excluded), or
    /// `None` where the source has no body (a header-only truth).
    pub sections: Option<Vec<Section>>,
    /// The reference list, or `None` where the source has none.
    pub references: Option<Vec<Reference>>,
    /// Citation mentions, rebuilt by `Paper::rebuild_mentions`, in order of appearance.
    pub mentions: Vec<Mention>,
    /// The flattened tables, each also a line of some section's text; `None` where the source
    /// does not mark its tables (PeerRead text), in which case the suite finds table lines with
    /// the heuristic of `docs/paper-suite.md` §4.1.
    pub tables: Option<Vec<String>>,
    /// Author names of the paper itself (empty for anonymised submissions).
    pub authors: Vec<String>,
    /// The authors' surnames where the source marks them (`None` where it gives names only).
    #[serde(default)]
    pub surnames: Option<Vec<String>>,
    /// The paper's keywords.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Author e-mail addresses.
    pub emails: Vec<String>,
    /// Publication year.
    pub year: Option<i64>,
    /// PeerRead's `source` (`"CRF"`).
    pub source: Option<String>,
    /// PeerRead's `creator` (the PDF producer).
    pub creator: Option<String>,
}

/// One section: its heading (`None` for text before the first heading) and its body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// The heading as printed (`1 Introduction`).
    pub heading: Option<String>,
    /// The heading's level where the source gives it (1 = section, 2 = subsection, ...).
    #[serde(default)]
    pub level: Option<u8>,
    /// The body, lines separated by `\n`.
    pub text: String,
}

/// Appends `line` (unless empty) to the last section's body, opening a heading-less section
/// when there is none yet: how the TEI and JATS readers build a body line by line.
pub(crate) fn push_line(sections: &mut Vec<Section>, line: &str) {
    if line.is_empty() {
        return;
    }
    if sections.is_empty() {
        sections.push(Section::default());
    }
    if let Some(s) = sections.last_mut() {
        if !s.text.is_empty() {
            s.text.push('\n');
        }
        s.text.push_str(line);
    }
}

/// One citation of a reference in the text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mention {
    /// Index into [`Paper::references`].
    pub reference: usize,
    /// The whole sentence around the citation.
    pub context: String,
    /// Char offset of the citation's start in `context`.
    pub start: usize,
    /// Char offset just past the citation's end in `context`.
    pub end: usize,
}

impl Reference {
    /// Returns the year's four digits without the letter.
    pub(crate) fn year_digits(&self) -> Option<&str> {
        let y = self.year.as_deref()?;
        let d = y.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        (!d.is_empty()).then_some(d)
    }

    /// Returns the suite's key for this reference (`docs/paper-suite.md` §2.1): a name and the
    /// year without its letter (an empty string where there is none). The name is the first
    /// author's folded last name where that author is a person (`("pylkkanen", "2008")`), the
    /// first words of the author's name where it is an organisation
    /// (`("worldhealthorganization", "2008")`), and the first words of the title where there
    /// is no author. `None` where no name can be formed: the reference is unkeyable.
    pub fn key(&self) -> Option<(String, String)> {
        let name = match self.authors.iter().map(|a| a.trim()).find(|a| !a.is_empty()) {
            Some(a) if references::is_person(a) => fold_name(&references::last_name(a)),
            Some(a) => references::words_key(a),
            None => String::new(),
        };
        let name = if name.is_empty() {
            self.title.as_deref().map(references::words_key).unwrap_or_default()
        } else {
            name
        };
        (!name.is_empty()).then(|| (name, self.year_digits().unwrap_or_default().to_string()))
    }
}

/// Folds a name for comparison: NFKD, ASCII only, lowercase, letters and digits only.
pub(crate) fn fold_name(name: &str) -> String {
    let mut s = String::new();
    crate::normalize::fold_line(name, &mut s);
    s.retain(|c| c.is_ascii_alphanumeric());
    s
}

impl Paper {
    /// Returns the prose of the paper: the abstract, then each section's text, joined by `\n`.
    pub fn body_text(&self) -> String {
        let mut out = String::new();
        for t in self
            .abstract_text
            .iter()
            .map(String::as_str)
            .chain(self.sections.iter().flatten().map(|s| s.text.as_str()))
        {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t);
        }
        out
    }

    /// Returns the headings in order (sections without a heading are skipped).
    pub fn headings(&self) -> Vec<&str> {
        self.sections.iter().flatten().filter_map(|s| s.heading.as_deref()).collect()
    }

    /// Replaces [`Paper::mentions`] with the ones the extractor finds in the abstract and
    /// sections for the references.
    pub(crate) fn rebuild_mentions(&mut self) {
        self.mentions = mentions::extract(self);
    }
}

/// Merges a header truth and a fulltext truth of the same paper: title, abstract and the
/// paper's own authors from the header, sections from the fulltext, and for every field the
/// other side's value where one side lacks it. Mentions are rebuilt.
#[cfg(test)]
pub(crate) fn merge_header_fulltext(header: Paper, fulltext: Paper) -> Paper {
    merge(vec![header, fulltext])
}

/// Merges parts of one paper: each field comes from the first part that has it (tables are
/// concatenated). Mentions are rebuilt.
pub fn merge(parts: Vec<Paper>) -> Paper {
    let mut out = Paper::default();
    for p in parts {
        out.title = out.title.or(p.title);
        out.abstract_text = out.abstract_text.or(p.abstract_text);
        out.sections = out.sections.or(p.sections);
        out.references = out.references.or(p.references);
        out.tables = match (out.tables, p.tables) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                Some(a)
            }
            (a, b) => a.or(b),
        };
        if out.authors.is_empty() {
            out.authors = p.authors;
            out.surnames = p.surnames;
        }
        if out.keywords.is_empty() {
            out.keywords = p.keywords;
        }
        if out.emails.is_empty() {
            out.emails = p.emails;
        }
        out.year = out.year.or(p.year);
        out.source = out.source.or(p.source);
        out.creator = out.creator.or(p.creator);
    }
    out.rebuild_mentions();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_key_folds_and_drops_the_letter() {
        let r = Reference {
            authors: vec!["Liina Pylkk¨ anen.".into()],
            year: Some("2008b".into()),
            ..Reference::default()
        };
        assert_eq!(r.key(), Some(("pylkkanen".to_string(), "2008".to_string())));
    }

    #[test]
    fn merge_takes_header_fields_and_fulltext_sections() {
        let h =
            Paper { title: Some("T".into()), abstract_text: Some("A".into()), ..Paper::default() };
        let f = Paper {
            sections: Some(vec![Section {
                heading: Some("1 Intro".into()),
                level: None,
                text: "x".into(),
            }]),
            ..Paper::default()
        };
        let m = merge_header_fulltext(h, f);
        assert_eq!(m.title.as_deref(), Some("T"));
        assert_eq!(m.sections.as_ref().map(Vec::len), Some(1));
        assert!(m.references.is_none());
    }
}
