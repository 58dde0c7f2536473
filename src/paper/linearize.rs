//! A provider's [`Doc`] to a [`Paper`] (the linearizer of `docs/paper-suite.md` §2), and back.
//!
//! | block | becomes |
//! |---|---|
//! | formula | its LaTeX as plain Unicode ([`latex_to_plain`]), else its text |
//! | table | one line, cells joined by single spaces row by row; also listed in `tables` (except under the References heading, where it is entries) |
//! | caption, paragraph, list item, footnote, code | text, kept inline |
//! | heading | a section boundary (`Abstract` and `References`/`Bibliography` are special) |
//! | title | the title |
//! | reference | one reference-list entry: its fields where the block carries them, else parsed from its text |
//! | picture, page header, page footer | dropped |
//!
//! HTML comments are removed from every text. Text before the first heading is a section
//! without heading, unless it starts with `Abstract`, which makes it the abstract. The Doc's
//! `meta` gives the paper's authors and keywords.
//!
//! [`to_doc`] writes a paper as a Doc that [`from_doc`] reads back, and [`canonical`] is the
//! two in turn: the form in which the suite scores a ground truth, so that a truth and a
//! prediction always come out of the same linearizer (the "one extractor on both sides" rule).

use super::references::{format_reference, parse_reference, split_entries};
use super::{Paper, Section};
use crate::doc::{BBox, Block, BlockKind, Doc, DocMeta};
use crate::normalize::latex_to_plain;
use crate::normalize::{collapse_ws, heading_key, is_table_line, strip_html_comments};

/// Returns whether a heading key (see [`heading_key`]) names the abstract.
pub(crate) fn is_abstract_key(key: &str) -> bool {
    strip_number(key) == "abstract"
}

/// Returns whether a heading key names the reference list.
pub(crate) fn is_references_key(key: &str) -> bool {
    matches!(
        strip_number(key),
        "references" | "reference" | "bibliography" | "literature cited" | "works cited"
    )
}

/// Drops leading numbering tokens (`7 references` → `references`).
fn strip_number(key: &str) -> &str {
    let mut k = key;
    while let Some((first, rest)) = k.split_once(' ') {
        if first.chars().all(|c| c.is_ascii_digit()) {
            k = rest;
        } else {
            break;
        }
    }
    k
}

#[derive(PartialEq, Clone, Copy)]
enum Mode {
    Front,
    Abstract,
    Body,
    Refs,
}

/// Flattens a table block to one line: cells in row then column order, joined by single
/// spaces; without cells, its text with white space collapsed.
pub(crate) fn flatten_table(b: &Block) -> String {
    match &b.table {
        Some(t) if !t.cells.is_empty() => {
            let mut cells: Vec<_> = t.cells.iter().collect();
            cells.sort_by_key(|c| (c.row, c.col));
            let parts: Vec<String> = cells
                .iter()
                .map(|c| collapse_ws(&strip_html_comments(&c.text)))
                .filter(|s| !s.is_empty())
                .collect();
            parts.join(" ")
        }
        _ => collapse_ws(&strip_html_comments(&b.text)),
    }
}

/// Returns the text after a leading `Abstract` word (and `.`, `:`, dashes), if it starts so.
fn after_abstract_word(t: &str) -> Option<&str> {
    let t = t.trim_start();
    let head = t.get(..8)?;
    if !head.eq_ignore_ascii_case("abstract") {
        return None;
    }
    let rest = &t[8..];
    if rest.starts_with(|c: char| c.is_alphanumeric()) {
        return None;
    }
    Some(rest.trim_start_matches(|c: char| c.is_whitespace() || ".:-–—".contains(c)))
}

/// Returns the paper a provider's document holds (`docs/paper-suite.md` §2).
pub fn from_doc(doc: &Doc) -> Paper {
    let mut title: Option<String> = None;
    let mut abstract_parts: Vec<String> = Vec::new();
    let mut sections: Vec<Section> = Vec::new();
    let mut references: Vec<crate::paper::Reference> = Vec::new();
    let mut tables: Vec<String> = Vec::new();
    let mut mode = Mode::Front;
    let push = |mode: Mode,
                text: String,
                sections: &mut Vec<Section>,
                abs: &mut Vec<String>,
                entries: &mut Vec<crate::paper::Reference>| {
        if text.trim().is_empty() {
            return;
        }
        match mode {
            Mode::Abstract => abs.push(text),
            Mode::Refs => entries.extend(split_entries(&text).iter().map(|e| parse_reference(e))),
            Mode::Front | Mode::Body => {
                if mode == Mode::Front && sections.last().is_none_or(|s| s.heading.is_some()) {
                    sections.push(Section::default());
                }
                if let Some(s) = sections.last_mut() {
                    if !s.text.is_empty() {
                        s.text.push('\n');
                    }
                    s.text.push_str(&text);
                }
            }
        }
    };
    for b in &doc.blocks {
        match b.kind {
            BlockKind::Figure | BlockKind::PageHeader | BlockKind::PageFooter => {}
            BlockKind::Title => {
                let t = collapse_ws(&strip_html_comments(&b.text));
                if t.is_empty() {
                    continue;
                }
                title = Some(match title.take() {
                    Some(prev) => format!("{prev} {t}"),
                    None => t,
                });
            }
            BlockKind::Heading => {
                let h = collapse_ws(&strip_html_comments(&b.text));
                let key = heading_key(&h);
                if is_abstract_key(&key) {
                    mode = Mode::Abstract;
                } else if is_references_key(&key) {
                    mode = Mode::Refs;
                } else if !h.is_empty() {
                    mode = Mode::Body;
                    sections.push(Section {
                        heading: Some(h),
                        level: b.level,
                        text: String::new(),
                    });
                }
            }
            BlockKind::Reference => match &b.reference {
                Some(r) => references.push(r.as_ref().clone()),
                None => references.extend(
                    split_entries(&strip_html_comments(&b.text)).iter().map(|e| parse_reference(e)),
                ),
            },
            BlockKind::Table => {
                let line = flatten_table(b);
                if line.is_empty() {
                    continue;
                }
                // Under the References heading a table is read as entries, like any text
                // there; it is one of the paper's tables only where it is part of its text.
                if mode != Mode::Refs {
                    tables.push(line.clone());
                }
                push(mode, line, &mut sections, &mut abstract_parts, &mut references);
            }
            BlockKind::Formula => {
                let t = match &b.latex {
                    Some(l) => latex_to_plain(&strip_html_comments(l)),
                    None => strip_html_comments(&b.text).trim().to_string(),
                };
                push(mode, t, &mut sections, &mut abstract_parts, &mut references);
            }
            BlockKind::Paragraph
            | BlockKind::ListItem
            | BlockKind::Caption
            | BlockKind::Footnote
            | BlockKind::Code => {
                let t = strip_html_comments(&b.text).trim().to_string();
                if mode == Mode::Front && abstract_parts.is_empty() {
                    if let Some(rest) = after_abstract_word(&t) {
                        mode = Mode::Abstract;
                        push(
                            mode,
                            rest.to_string(),
                            &mut sections,
                            &mut abstract_parts,
                            &mut references,
                        );
                        continue;
                    }
                }
                push(mode, t, &mut sections, &mut abstract_parts, &mut references);
            }
        }
    }
    let meta = doc.meta.clone().unwrap_or_default();
    let mut p = Paper {
        title,
        abstract_text: (!abstract_parts.is_empty()).then(|| abstract_parts.join("\n")),
        sections: Some(sections),
        references: Some(references),
        tables: Some(tables),
        authors: meta.authors,
        surnames: meta.surnames,
        keywords: meta.keywords,
        ..Paper::default()
    };
    p.rebuild_mentions();
    p
}

/// Returns a ground truth as the suite scores it: written as a Doc by [`to_doc`] and read back
/// by [`from_doc`], the linearizer every prediction goes through, so that a truth scored
/// against itself (through the `truth` provider, or imported as a provider's output) is the
/// same paper on both sides whatever fields it has or lacks. What the source lacks stays
/// lacking: a truth without a body or a reference list keeps `None` there.
pub fn canonical(paper: &Paper) -> Paper {
    let mut p = from_doc(&to_doc(paper));
    if paper.sections.is_none() {
        p.sections = None;
    }
    if paper.references.is_none() {
        p.references = None;
    }
    p.rebuild_mentions();
    p
}

/// Returns the heading level of a printed heading: 2 for `3.1 ...`, else 1.
fn level_of(heading: &str) -> u8 {
    let first = heading.split_whitespace().next().unwrap_or("");
    let first = first.trim_end_matches('.');
    if first.contains('.')
        && first.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    {
        2
    } else {
        1
    }
}

/// Returns the paper as a document (the `truth` provider, and importers of structured
/// formats): the title, the text before the first heading, an `Abstract` heading and its lines,
/// each section's heading (with its level) and lines (table lines as table blocks: the paper's
/// own tables, each as many times as it is listed, or the §4.1 table lines when it marks none),
/// then a `References` heading and one reference block per entry, in ACL form and with its
/// fields; authors and keywords go in the Doc's `meta`.
pub fn to_doc(paper: &Paper) -> Doc {
    let mut blocks = Vec::new();
    let block = |kind: BlockKind, text: &str| Block::new(kind, 0, BBox::default(), text);
    if let Some(t) = &paper.title {
        blocks.push(block(BlockKind::Title, t));
    }
    // How many more times each listed table line is a table.
    let mut listed: Option<std::collections::HashMap<&str, usize>> =
        paper.tables.as_ref().map(|t| {
            let mut m = std::collections::HashMap::new();
            for l in t {
                *m.entry(l.trim()).or_insert(0) += 1;
            }
            m
        });
    let mut is_table = |line: &str| match listed.as_mut() {
        Some(m) => match m.get_mut(line.trim()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        },
        None => is_table_line(line),
    };
    let mut push_lines = |blocks: &mut Vec<Block>, text: &str| {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let kind = if is_table(line) { BlockKind::Table } else { BlockKind::Paragraph };
            blocks.push(block(kind, line));
        }
    };
    let sections = paper.sections.as_deref().unwrap_or_default();
    let mut rest = sections;
    if let Some((first, tail)) = sections.split_first() {
        if first.heading.is_none() {
            push_lines(&mut blocks, &first.text);
            rest = tail;
        }
    }
    if let Some(a) = &paper.abstract_text {
        blocks.push(block(BlockKind::Heading, "Abstract"));
        push_lines(&mut blocks, a);
    }
    for s in rest {
        if let Some(h) = &s.heading {
            let mut b = block(BlockKind::Heading, h);
            b.level = Some(s.level.unwrap_or_else(|| level_of(h)));
            blocks.push(b);
        }
        push_lines(&mut blocks, &s.text);
    }
    if let Some(refs) = &paper.references {
        let mut b = block(BlockKind::Heading, "References");
        b.level = Some(1);
        blocks.push(b);
        for r in refs {
            let mut b = block(BlockKind::Reference, &format_reference(r));
            b.reference = Some(Box::new(r.clone()));
            blocks.push(b);
        }
    }
    let meta = DocMeta {
        authors: paper.authors.clone(),
        surnames: paper.surnames.clone(),
        keywords: paper.keywords.clone(),
    };
    let meta = (meta != DocMeta::default()).then_some(meta);
    Doc { pages: Vec::new(), blocks, markdown: None, meta }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{Cell, Table};
    use crate::paper::Reference;

    fn b(kind: BlockKind, text: &str) -> Block {
        Block::new(kind, 0, BBox::default(), text)
    }

    fn sample_doc() -> Doc {
        let mut h1 = b(BlockKind::Heading, "1 Introduction");
        h1.level = Some(1);
        let mut f = b(BlockKind::Formula, "garbled");
        f.latex = Some(r"r_i = \sigma(W_r x_i + b_r)".into());
        let mut t = b(BlockKind::Table, "ignored");
        t.table = Some(Table {
            rows: 2,
            cols: 2,
            cells: vec![
                Cell {
                    row: 1,
                    col: 1,
                    row_span: 1,
                    col_span: 1,
                    text: "1,812".into(),
                    header: false,
                },
                Cell {
                    row: 0,
                    col: 0,
                    row_span: 1,
                    col_span: 1,
                    text: "Corpus".into(),
                    header: true,
                },
                Cell {
                    row: 0,
                    col: 1,
                    row_span: 1,
                    col_span: 1,
                    text: "# words".into(),
                    header: true,
                },
                Cell {
                    row: 1,
                    col: 0,
                    row_span: 1,
                    col_span: 1,
                    text: "Test <!-- x -->".into(),
                    header: false,
                },
            ],
        });
        Doc {
            pages: vec![],
            markdown: None,
            meta: None,
            blocks: vec![
                b(BlockKind::PageHeader, "Proceedings of ACL"),
                b(BlockKind::Title, "Neural <!-- image --> Tagging"),
                b(BlockKind::Paragraph, "Abstract: We tag words."),
                h1,
                b(BlockKind::Paragraph, "Tagging matters (Schmid, 1994)."),
                f,
                b(BlockKind::Figure, "axis 0 1 2"),
                t,
                b(BlockKind::Caption, "Table 1: Sizes."),
                b(BlockKind::PageFooter, "3"),
                b(BlockKind::Heading, "References"),
                b(BlockKind::Paragraph, "Helmut Schmid. 1994. Tree tagging. In NeMLaP."),
                b(BlockKind::Heading, "A Appendix"),
                b(BlockKind::Heading, "B Empty"),
            ],
        }
    }

    #[test]
    fn linearizes_per_the_table() {
        let p = from_doc(&sample_doc());
        assert_eq!(p.title.as_deref(), Some("Neural Tagging"));
        assert_eq!(p.abstract_text.as_deref(), Some("We tag words."));
        let s = p.sections.as_ref().unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].heading.as_deref(), Some("1 Introduction"));
        assert_eq!(
            s[0].text,
            "Tagging matters (Schmid, 1994).\nri = σ(Wr xi + br)\nCorpus # words Test 1,812\nTable 1: Sizes."
        );
        assert_eq!(s[1].heading.as_deref(), Some("A Appendix"));
        assert_eq!(s[2].text, "");
        assert_eq!(p.tables.as_deref(), Some(&["Corpus # words Test 1,812".to_string()][..]));
        let r = p.references.as_ref().unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].key(), Some(("schmid".into(), "1994".into())));
        assert_eq!(p.mentions.len(), 1);
    }

    #[test]
    fn to_doc_reads_back() {
        let p = Paper {
            title: Some("T".into()),
            abstract_text: Some("We tag.".into()),
            sections: Some(vec![
                Section { heading: None, level: None, text: "001\n002".into() },
                Section {
                    heading: Some("1 Intro".into()),
                    level: Some(1),
                    text: "See Lee et al. (2016a).\nTest 54,088 97.5 1,812".into(),
                },
                Section { heading: Some("1.1 More".into()), level: Some(2), text: String::new() },
            ]),
            references: Some(vec![Reference {
                title: Some("A study".into()),
                authors: vec!["Ann Lee".into(), "Bo Wu".into(), "Cy Ode".into()],
                venue: Some("ACL".into()),
                year: Some("2016a".into()),
                ..Reference::default()
            }]),
            ..Paper::default()
        };
        let mut p = p;
        p.rebuild_mentions();
        let back = from_doc(&to_doc(&p));
        let mut want = p.clone();
        want.tables = Some(vec!["Test 54,088 97.5 1,812".into()]);
        assert_eq!(back, want);
        assert_eq!(back.mentions.len(), 1);
    }
}
