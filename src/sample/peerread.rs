//! The PeerRead ground truth of a sample paper, derived from the same [`Source`] as its PDF.

use serde::Serialize;

use super::source::{clean, Item, Reference, Source};

/// A PeerRead file. Fields serialize in declaration order, which is the schema's key order
/// (`docs/paper-suite.md` §1.1), whatever serde_json's map ordering.
#[derive(Serialize)]
struct PeerRead {
    name: String,
    metadata: Metadata,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Metadata {
    source: &'static str,
    title: String,
    authors: Vec<String>,
    emails: Vec<String>,
    sections: Vec<Section>,
    references: Vec<PeerReadRef>,
    reference_mentions: Vec<Mention>,
    year: u32,
    abstract_text: String,
    creator: &'static str,
}

#[derive(Serialize)]
struct Section {
    heading: Option<String>,
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PeerReadRef {
    title: String,
    author: Vec<String>,
    venue: Option<String>,
    cite_reg_ex: String,
    short_cite_reg_ex: String,
    year: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Mention {
    #[serde(rename = "referenceID")]
    reference_id: usize,
    context: String,
    start_offset: usize,
    end_offset: usize,
}

/// The publication year written into every sample's metadata.
const YEAR: u32 = 2026;

/// Returns the PeerRead JSON of `src`, pretty-printed with a final newline.
///
/// `line_numbers` are the review line numbers as typeset; when there are any they make the
/// first section, with a null heading, as science-parse writes them.
pub(crate) fn peerread_json(src: &Source, line_numbers: &[String]) -> String {
    let mut sections = Vec::new();
    if !line_numbers.is_empty() {
        sections.push(Section { heading: None, text: line_numbers.join("\n") });
    }
    let mut equations = 0;
    let mut lines: Vec<String> = Vec::new();
    let mut heading: Option<String> = None;
    for item in src.body {
        match item {
            Item::Heading(h) | Item::Subheading(h) => {
                if heading.is_some() || !lines.is_empty() {
                    sections.push(Section { heading: heading.take(), text: lines.join("\n") });
                    lines.clear();
                }
                heading = Some(h.to_string());
            }
            Item::Para(s) => lines.push(clean(&src.printed(s))),
            Item::Table(t) => {
                lines.push(t.caption.to_string());
                lines.push(t.header.join(" "));
                lines.extend(t.rows.iter().map(|r| r.join(" ")));
            }
            Item::Equation { text, .. } => {
                equations += 1;
                lines.push(format!("{text} ({equations})"));
            }
        }
    }
    if heading.is_some() || !lines.is_empty() {
        sections.push(Section { heading, text: lines.join("\n") });
    }

    let anonymous = src.review;
    let file = PeerRead {
        name: format!("{}.pdf", src.name),
        metadata: Metadata {
            source: "CRF",
            title: src.title.to_string(),
            authors: if anonymous { vec![] } else { strings(src.authors) },
            emails: if anonymous { vec![] } else { strings(src.emails) },
            sections,
            references: src.references.iter().map(peerread_ref).collect(),
            reference_mentions: mentions(src),
            year: YEAR,
            abstract_text: clean(&src.printed(src.abstract_)),
            creator: "corpus-sample",
        },
    };
    // Serializing plain structs of strings and numbers cannot fail.
    let mut json = serde_json::to_string_pretty(&file).expect("PeerRead structs serialize");
    json.push('\n');
    json
}

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// Returns the year's four digits as a number (`2016a` is 2016).
fn year_number(year: &str) -> u32 {
    year.get(..4).and_then(|y| y.parse().ok()).unwrap_or(0)
}

fn peerread_ref(r: &Reference) -> PeerReadRef {
    let last: Vec<&str> = if r.org {
        r.authors.to_vec()
    } else {
        r.authors.iter().map(|a| Reference::last_name(a)).collect()
    };
    let short = match last.as_slice() {
        [a] => a.to_string(),
        [a, b] => format!("{a} and {b}"),
        [a, ..] => format!("{a} et al\\."),
        [] => String::new(),
    };
    PeerReadRef {
        title: r.title.to_string(),
        author: strings(r.authors),
        venue: Some(r.printed_venue()),
        cite_reg_ex: format!("{short},? \\Q{}\\E", r.year),
        short_cite_reg_ex: short,
        year: year_number(r.year),
    }
}

/// Returns the ways the body cites `r`: `Last, YEAR`, `Last (YEAR)`, `A and B, YEAR`,
/// `A et al. (YEAR)`, ...
fn cite_forms(r: &Reference) -> Vec<String> {
    let last: Vec<&str> = r.authors.iter().map(|a| Reference::last_name(a)).collect();
    let y = r.year;
    let names: Vec<String> = match last.as_slice() {
        [a] => vec![a.to_string()],
        [a, b] => vec![format!("{a} and {b}"), format!("{a} & {b}")],
        [a, ..] => vec![format!("{a} et al.")],
        [] => vec![],
    };
    names
        .iter()
        .flat_map(|n| [format!("{n}, {y}"), format!("{n} ({y})"), format!("{n} {y}")])
        .collect()
}

/// Returns the citation forms of every reference, by reference index.
pub(crate) fn all_cite_forms(src: &Source) -> Vec<(usize, Vec<String>)> {
    src.references.iter().enumerate().map(|(i, r)| (i, cite_forms(r))).collect()
}

/// Returns a sentence as printed, without soft hyphens, and its citations: byte ranges and
/// reference index, in order. Citation markers (`[@1]`, see [`Source::render`]) are rendered
/// in the paper's style; a sentence without them has its author-year citations found by
/// `forms`.
pub(crate) fn sentence_citations(
    src: &Source,
    sentence: &str,
    forms: &[(usize, Vec<String>)],
) -> (String, Vec<(usize, usize, usize)>) {
    let s = clean(sentence);
    if s.contains("[@") {
        return src.render(&s);
    }
    let found = citations(&s, forms);
    (s, found)
}

/// Returns the citations in one (cleaned) sentence: byte ranges and reference index, in order.
pub(crate) fn citations(
    sentence: &str,
    forms: &[(usize, Vec<String>)],
) -> Vec<(usize, usize, usize)> {
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (id, fs) in forms {
        for f in fs {
            for (at, m) in sentence.match_indices(f.as_str()) {
                let end = at + m.len();
                let before = sentence[..at].chars().next_back();
                let after = sentence[end..].chars().next();
                if before.is_some_and(char::is_alphanumeric)
                    || after.is_some_and(char::is_alphanumeric)
                {
                    continue;
                }
                found.push((at, end, *id));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// Returns every citation of a reference in the abstract and body sentences, in order of
/// appearance, with char offsets of the citation inside its sentence.
fn mentions(src: &Source) -> Vec<Mention> {
    let forms = all_cite_forms(src);
    let body = src.body.iter().filter_map(|item| match item {
        Item::Para(s) => Some(*s),
        _ => None,
    });
    let mut out = Vec::new();
    for sentence in std::iter::once(src.abstract_).chain(body).flatten() {
        let (sentence, found) = sentence_citations(src, sentence, &forms);
        for (at, end, id) in found {
            out.push(Mention {
                reference_id: id,
                context: sentence.clone(),
                start_offset: sentence[..at].chars().count(),
                end_offset: sentence[..end].chars().count(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::source::{HeadingStyle, RefStyle};

    const ONE: Reference = Reference {
        authors: &["Ann Smith"],
        org: false,
        year: "2018",
        title: "T",
        venue: "V",
        volume: None,
        issue: None,
        pages: None,
    };
    const TWO: Reference = Reference {
        authors: &["Ann Smith", "Bo Jones"],
        org: false,
        year: "2019",
        title: "T",
        venue: "V",
        volume: None,
        issue: None,
        pages: None,
    };
    const MANY: Reference = Reference {
        authors: &["Kim Lee", "Ann Smith", "Bo Jones"],
        org: false,
        year: "2016a",
        title: "T",
        venue: "V",
        volume: None,
        issue: None,
        pages: None,
    };

    #[test]
    fn regexes_follow_science_parse() {
        assert_eq!(peerread_ref(&ONE).cite_reg_ex, r"Smith,? \Q2018\E");
        assert_eq!(peerread_ref(&TWO).cite_reg_ex, r"Smith and Jones,? \Q2019\E");
        let many = peerread_ref(&MANY);
        assert_eq!(many.cite_reg_ex, r"Lee et al\.,? \Q2016a\E");
        assert_eq!(many.short_cite_reg_ex, r"Lee et al\.");
        assert_eq!(many.year, 2016);
    }

    #[test]
    fn mentions_are_found_with_char_offsets() {
        let src = Source {
            name: "x",
            title: "T",
            short_title: "T",
            authors: &[],
            affiliation: "",
            emails: &[],
            review: false,
            abstract_: &[],
            body: &[Item::Para(&[
                "Prior work (Smith and Jones, 2019; Lee et al., 2016a) is ä start.",
                "Smith (2018) disagrees, unlike Smith (2018b) and Smithson (2018).",
            ])],
            references: &[ONE, TWO, MANY],
            refs: RefStyle::Acl,
            headings: HeadingStyle::Block,
        };
        let m = mentions(&src);
        let got: Vec<(usize, usize, usize)> =
            m.iter().map(|m| (m.reference_id, m.start_offset, m.end_offset)).collect();
        assert_eq!(got, [(1, 12, 33), (2, 35, 52), (0, 0, 12)]);
        assert_eq!(&m[1].context[35..52], "Lee et al., 2016a");
    }
}
