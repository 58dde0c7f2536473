//! GROBID TEI, both flavours, read into a [`Paper`].
//!
//! * GROBID's output TEI (namespace `http://www.tei-c.org/ns/1.0`): title from
//!   `teiHeader//titleStmt/title`, abstract from `profileDesc/abstract`, sections from
//!   `body//div` (`head`, with its `@n` number, then `p`, `formula`, lists, notes), figure
//!   captions inline, `figure[@type=table]/table` rows as table lines, the reference list from
//!   `back//listBibl/biblStruct` (`analytic/author/persName`, `monogr/title` as venue,
//!   `monogr/imprint/date/@when`, `biblScope` volume, issue and page `@from`, `idno[@type=DOI]`),
//!   other `back` divs (acknowledgements, appendix) as sections; the paper's authors from
//!   `sourceDesc/biblStruct/analytic/author/persName` and keywords from
//!   `profileDesc/textClass/keywords` (`term`s).
//! * GROBID's training TEI (root `tei`, no namespace; `<lb/>` is a line break): the header model
//!   (`docTitle/titlePart`, `div[@type=abstract]`, `docAuthor`, `keyword`) gives only title,
//!   abstract, authors and keywords; the fulltext
//!   model (`head`, `p`, `formula`, `figure`, `list/item`) only sections; the
//!   reference-segmenter model (`listBibl/bibl`) only references. Combine them with
//!   [`merge`](crate::paper::merge) after grouping the file names with `group_tei_files`.

use roxmltree::Node;

use super::xml::{child, children, descendant, non_empty};
use super::{Format, FormatError};
use crate::normalize::collapse_ws;
use crate::paper::references::{find_doi, find_years, parse_reference, split_authors};
use crate::paper::{Paper, Reference, Section};

/// The format this file reads.
const FORMAT: Format = Format::GrobidTei;

/// The error for well-formed XML that is not one of the TEI flavours read here.
fn not_tei(what: impl std::fmt::Display) -> FormatError {
    FormatError::new(FORMAT, format!("not a GROBID TEI document: {what}"))
}

/// Reads a GROBID TEI file, output or training flavour (detected from the root element).
pub(crate) fn read_grobid_tei(bytes: &[u8]) -> Result<Paper, FormatError> {
    let doc = super::xml::parse(bytes, FORMAT)?;
    let root = doc.root_element();
    let name = root.tag_name().name();
    if !name.eq_ignore_ascii_case("tei") {
        return Err(not_tei(format!("root element is <{name}>")));
    }
    let mut p = if name == "TEI" || root.tag_name().namespace().is_some() {
        read_output(root)
    } else {
        read_training(root)?
    };
    p.rebuild_mentions();
    Ok(p)
}

/// Gathers an element's text: `<lb/>` becomes a line break, other white space a space; then
/// each line is collapsed and empty lines dropped.
fn lines_of(n: Node) -> String {
    let mut raw = String::new();
    gather(n, &mut raw);
    raw.split('\n').map(collapse_ws).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
}

fn gather(n: Node, out: &mut String) {
    for c in n.children() {
        if c.is_text() {
            for ch in c.text().unwrap_or("").chars() {
                out.push(if ch.is_whitespace() { ' ' } else { ch });
            }
        } else if c.is_element() {
            if c.tag_name().name() == "lb" {
                out.push('\n');
            } else {
                gather(c, out);
            }
        }
    }
}

/// The element's text on one line.
fn line_of(n: Node) -> String {
    collapse_ws(&lines_of(n))
}

/// Collects sections in document order; text before any heading goes to a section without one.
#[derive(Default)]
struct Body {
    sections: Vec<Section>,
    tables: Vec<String>,
}

impl Body {
    fn heading(&mut self, h: String) {
        self.sections.push(Section { heading: Some(h), ..Section::default() });
    }

    fn text(&mut self, t: &str) {
        crate::paper::push_line(&mut self.sections, t);
    }

    fn table(&mut self, line: String) {
        if !line.is_empty() {
            self.text(&line);
            self.tables.push(line);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Output TEI

fn read_output(root: Node) -> Paper {
    let header = child(root, "teiHeader");
    let title = header
        .and_then(|h| descendant(h, "titleStmt"))
        .and_then(|t| {
            let titles: Vec<Node> = children(t, "title").collect();
            titles.iter().find(|n| n.attribute("type") == Some("main")).or(titles.first()).copied()
        })
        .map(line_of)
        .and_then(non_empty);
    let abstract_text = header
        .and_then(|h| descendant(h, "abstract"))
        .map(|a| {
            let ps: Vec<String> = a
                .descendants()
                .filter(|c| c.is_element() && c.tag_name().name() == "p")
                .map(line_of)
                .filter(|s| !s.is_empty())
                .collect();
            if ps.is_empty() {
                line_of(a)
            } else {
                ps.join("\n")
            }
        })
        .and_then(non_empty);
    let persons: Vec<(String, Option<String>)> = header
        .and_then(|h| descendant(h, "sourceDesc"))
        .and_then(|s| descendant(s, "biblStruct"))
        .and_then(|b| child(b, "analytic"))
        .map(|a| children(a, "author").filter_map(|au| child(au, "persName")).map(person).collect())
        .unwrap_or_default();
    let keywords: Vec<String> = header
        .and_then(|h| descendant(h, "textClass"))
        .and_then(|t| descendant(t, "keywords"))
        .map(|k| {
            let terms: Vec<String> =
                children(k, "term").map(line_of).filter(|t| !t.is_empty()).collect();
            if terms.is_empty() {
                split_keywords(&lines_of(k))
            } else {
                terms
            }
        })
        .unwrap_or_default();
    let text = child(root, "text");
    let mut body = Body::default();
    let mut references = None;
    if let Some(b) = text.and_then(|t| child(t, "body")) {
        output_div(b, &mut body);
    }
    if let Some(back) = text.and_then(|t| child(t, "back")) {
        for d in children(back, "div") {
            if d.attribute("type") == Some("references") {
                let list: Vec<Reference> = d
                    .descendants()
                    .filter(|c| c.is_element() && c.tag_name().name() == "biblStruct")
                    .map(bibl_struct)
                    .collect();
                references = Some(list);
            } else {
                output_div(d, &mut body);
            }
        }
        if references.is_none() && descendant(back, "listBibl").is_some() {
            references = Some(Vec::new());
        }
    }
    let (authors, surnames) = split_persons(persons);
    Paper {
        title,
        abstract_text,
        sections: text.map(|_| body.sections),
        references: references.or_else(|| text.map(|_| Vec::new())),
        tables: Some(body.tables),
        authors,
        surnames,
        keywords,
        ..Paper::default()
    }
}

/// A `persName`: its name as printed (forenames and surname) and its surname, if marked.
fn person(p: Node) -> (String, Option<String>) {
    let surname = child(p, "surname").map(line_of).filter(|s| !s.is_empty());
    (pers_name(p), surname)
}

/// Splits persons into names and surnames: the surnames are kept (as marked, else each name's
/// last name) when the source marks any, else `None`.
fn split_persons(persons: Vec<(String, Option<String>)>) -> (Vec<String>, Option<Vec<String>>) {
    let persons: Vec<(String, Option<String>)> =
        persons.into_iter().filter(|(n, _)| !n.is_empty()).collect();
    let marked = persons.iter().any(|(_, s)| s.is_some());
    let surnames = marked.then(|| {
        persons
            .iter()
            .map(|(n, s)| s.clone().unwrap_or_else(|| crate::paper::references::last_name(n)))
            .collect()
    });
    (persons.into_iter().map(|(n, _)| n).collect(), surnames)
}

/// Splits a keyword list as printed (`a, b; c.`) into keywords, rejoining words hyphenated at a
/// line break.
pub(crate) fn split_keywords(text: &str) -> Vec<String> {
    let mut joined = String::new();
    for line in text.lines() {
        let line = line.trim();
        if joined.ends_with('-') && line.starts_with(|c: char| c.is_lowercase()) {
            joined.pop();
        } else if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(line);
    }
    joined
        .split([',', ';', '\u{b7}'])
        .map(|k| k.trim().trim_end_matches(['.', ' ']).trim().to_string())
        .filter(|k| !k.is_empty())
        .collect()
}

fn output_div(div: Node, body: &mut Body) {
    for c in div.children().filter(Node::is_element) {
        match c.tag_name().name() {
            "div" => output_div(c, body),
            "head" => {
                let h = line_of(c);
                let h = match c.attribute("n") {
                    Some(n) if !h.starts_with(n) => format!("{n} {h}"),
                    _ => h,
                };
                if !h.is_empty() {
                    body.heading(h);
                }
            }
            "figure" => output_figure(c, body),
            "list" => {
                for item in children(c, "item") {
                    body.text(&line_of(item));
                }
            }
            _ => body.text(&line_of(c)),
        }
    }
}

fn output_figure(f: Node, body: &mut Body) {
    let caption: Vec<String> = f
        .children()
        .filter(|c| c.is_element() && matches!(c.tag_name().name(), "head" | "label" | "figDesc"))
        .map(line_of)
        .filter(|s| !s.is_empty())
        .collect();
    body.text(&caption.join(" "));
    if let Some(t) = child(f, "table") {
        let cells: Vec<String> = t
            .descendants()
            .filter(|c| c.is_element() && c.tag_name().name() == "cell")
            .map(line_of)
            .collect();
        let line = if cells.is_empty() { line_of(t) } else { collapse_ws(&cells.join(" ")) };
        body.table(line);
    }
}

fn pers_name(p: Node) -> String {
    let parts: Vec<String> = p
        .children()
        .filter(|c| c.is_element() && matches!(c.tag_name().name(), "forename" | "surname"))
        .map(line_of)
        .filter(|s| !s.is_empty())
        .collect();
    if parts.is_empty() {
        line_of(p)
    } else {
        parts.join(" ")
    }
}

fn bibl_struct(b: Node) -> Reference {
    let analytic = child(b, "analytic");
    let monogr = child(b, "monogr");
    let authors_of = |n: Node| -> Vec<(String, Option<String>)> {
        children(n, "author").filter_map(|a| child(a, "persName")).map(person).collect()
    };
    let mut persons = analytic.map(authors_of).unwrap_or_default();
    if persons.iter().all(|(n, _)| n.is_empty()) {
        persons = monogr.map(authors_of).unwrap_or_default();
    }
    let (authors, surnames) = split_persons(persons);
    let title_of = |n: Node| child(n, "title").map(line_of).and_then(non_empty);
    let (title, venue) = match analytic.and_then(title_of) {
        Some(t) => (Some(t), monogr.and_then(title_of)),
        None => (monogr.and_then(title_of), None),
    };
    let imprint = monogr.and_then(|m| child(m, "imprint"));
    let date = imprint.and_then(|i| child(i, "date"));
    let year = date.and_then(|d| {
        let when = d.attribute("when").unwrap_or("");
        let y: String = when.chars().take(4).collect();
        if y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()) {
            return Some(y);
        }
        let t = line_of(d);
        find_years(&t).first().map(|y| t[y.start..y.end].to_string())
    });
    let scope = |units: &[&str]| {
        imprint.and_then(|i| {
            children(i, "biblScope")
                .find(|s| s.attribute("unit").is_some_and(|u| units.contains(&u)))
        })
    };
    let volume = scope(&["volume", "vol"]).map(line_of).and_then(non_empty);
    let issue = scope(&["issue"]).map(line_of).and_then(non_empty);
    let first_page = scope(&["page", "pp"]).and_then(|p| {
        p.attribute("from")
            .map(|f| f.trim().to_string())
            .or_else(|| line_of(p).split(['-', '\u{2013}']).next().map(|x| x.trim().to_string()))
            .and_then(non_empty)
    });
    let doi = [analytic, monogr, Some(b)]
        .into_iter()
        .flatten()
        .flat_map(|n| children(n, "idno"))
        .find(|i| i.attribute("type").is_some_and(|t| t.eq_ignore_ascii_case("doi")))
        .map(|i| {
            let t = line_of(i);
            find_doi(&t).map(|(_, _, d)| d).unwrap_or(t)
        })
        .and_then(non_empty);
    Reference { title, authors, surnames, venue, year, volume, issue, first_page, doi }
}

// ---------------------------------------------------------------------------------------------
// Training TEI

fn read_training(root: Node) -> Result<Paper, FormatError> {
    let text = child(root, "text").ok_or_else(|| not_tei("no <text> element"))?;
    if let Some(front) = child(text, "front") {
        let title = descendant(front, "docTitle")
            .map(|d| {
                let parts: Vec<String> = children(d, "titlePart").map(line_of).collect();
                collapse_ws(&parts.join(" "))
            })
            .and_then(non_empty);
        let abs: Vec<String> = front
            .descendants()
            .filter(|c| c.is_element() && c.tag_name().name() == "div")
            .filter(|c| c.attribute("type") == Some("abstract"))
            .map(lines_of)
            .filter(|s| !s.is_empty())
            .collect();
        let named = |name: &'static str| {
            front.descendants().filter(move |c| c.is_element() && c.tag_name().name() == name)
        };
        let authors: Vec<String> =
            named("docAuthor").flat_map(|a| split_authors(&clean_byline(&line_of(a)))).collect();
        let keywords: Vec<String> =
            named("keyword").flat_map(|k| split_keywords(&lines_of(k))).collect();
        return Ok(Paper {
            title,
            abstract_text: non_empty(abs.join("\n")),
            authors,
            keywords,
            ..Paper::default()
        });
    }
    if let Some(list) = child(text, "listBibl") {
        let refs = children(list, "bibl").map(|b| parse_reference(&line_of(b))).collect();
        return Ok(Paper { references: Some(refs), ..Paper::default() });
    }
    let has_body = text
        .children()
        .any(|c| c.is_element() && matches!(c.tag_name().name(), "head" | "p" | "div"));
    if !has_body {
        return Err(not_tei(
            "a training TEI of a model that holds no header, body or reference list",
        ));
    }
    let mut body = Body::default();
    training_body(text, &mut body);
    Ok(Paper { sections: Some(body.sections), tables: Some(body.tables), ..Paper::default() })
}

/// Removes affiliation markers from a printed author line (`Rui Wang 1 and Günter Neumann 2`,
/// `Yu.A.Pusep 1*`): digits, `*`, daggers and quotes.
fn clean_byline(s: &str) -> String {
    let kept: String =
        s.chars()
            .map(|c| {
                if c.is_ascii_digit() || "*\u{2020}\u{2021}\u{a7}'\"".contains(c) {
                    ' '
                } else {
                    c
                }
            })
            .collect();
    // Markers leave lone commas behind (`Pusep 1* , L. Santos`).
    let parts: Vec<&str> = kept.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    collapse_ws(&parts.join(", "))
}

fn training_body(n: Node, body: &mut Body) {
    for c in n.children().filter(Node::is_element) {
        match c.tag_name().name() {
            "div" => training_body(c, body),
            "head" => {
                let h = line_of(c);
                if !h.is_empty() {
                    body.heading(h);
                }
            }
            "figure" if c.attribute("type") == Some("table") => body.table(line_of(c)),
            "list" => {
                for item in children(c, "item") {
                    body.text(&line_of(item));
                }
            }
            _ => body.text(&lines_of(c)),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// File names

/// The TEI files of one paper, by model, as found by `group_tei_files`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeiFiles {
    /// The paper's id (`0807.3577`).
    pub paper: String,
    /// GROBID output TEI (`<id>.tei.xml`).
    pub full: Option<String>,
    /// Header training TEI or `<id>.header.tei.xml`.
    pub header: Option<String>,
    /// Fulltext training TEI or `<id>.fulltext.tei.xml`.
    pub fulltext: Option<String>,
    /// Reference-segmenter training TEI or `<id>.references.tei.xml`.
    pub references: Option<String>,
}

/// Groups TEI file names (base names or paths) into papers, sorted by id. Understands GROBID's
/// training names `<model>__<corpus|evaluation>__<id>.training.<model>.tei.xml` (a `corpus`
/// file wins over an `evaluation` copy) and `<id>.<header|fulltext|references>.tei.xml` /
/// `<id>.tei.xml`. Files of other models (segmentation, figure, table, ...) are ignored.
pub(crate) fn group_tei_files(names: &[&str]) -> Vec<TeiFiles> {
    let mut groups: std::collections::BTreeMap<String, (TeiFiles, [u8; 4])> = Default::default();
    for &full_name in names {
        let base = full_name.rsplit(['/', '\\']).next().unwrap_or(full_name);
        let Some(stem) = base.strip_suffix(".tei.xml") else {
            continue;
        };
        let (model, rank, id) = if let Some((model, rest)) = stem.split_once("__") {
            let (corpus, rest) = rest.split_once("__").unwrap_or(("corpus", rest));
            let id = rest.split(".training.").next().unwrap_or(rest);
            (model.to_string(), u8::from(corpus != "corpus"), id.to_string())
        } else {
            match stem.rsplit_once('.') {
                Some((id, m @ ("header" | "fulltext" | "references" | "referenceSegmenter"))) => {
                    (m.to_string(), 0, id.to_string())
                }
                _ => ("full".to_string(), 0, stem.to_string()),
            }
        };
        let slot = match model.as_str() {
            "full" => 0,
            "header" => 1,
            "fulltext" => 2,
            "reference-segmenter" | "referenceSegmenter" | "references" => 3,
            _ => continue,
        };
        let (files, ranks) = groups.entry(id.clone()).or_insert_with(|| {
            (TeiFiles { paper: id.clone(), ..TeiFiles::default() }, [u8::MAX; 4])
        });
        if rank < ranks[slot] {
            ranks[slot] = rank;
            let field = match slot {
                0 => &mut files.full,
                1 => &mut files.header,
                2 => &mut files.fulltext,
                _ => &mut files.references,
            };
            *field = Some(full_name.to_string());
        }
    }
    groups.into_values().map(|(f, _)| f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<TEI xml:space="preserve" xmlns="http://www.tei-c.org/ns/1.0">
 <teiHeader><fileDesc><titleStmt><title level="a" type="main">Neural Tagging</title></titleStmt>
  <sourceDesc><biblStruct><analytic><author><persName><surname>Self</surname></persName></author></analytic></biblStruct></sourceDesc></fileDesc>
  <profileDesc><abstract><div><p>We tag words.</p></div></abstract></profileDesc></teiHeader>
 <text><body>
  <div><head n="1">Introduction</head><p>Tagging matters <ref type="bibr">(Schmid, 1994)</ref>.</p>
   <formula xml:id="f0">y = x + 1</formula></div>
  <div><head n="2">Results</head><p>See Table 1.</p></div>
  <figure type="table"><head>Table 1:</head><figDesc>Sizes.</figDesc>
   <table><row><cell>Test</cell><cell>54,088</cell></row><row><cell>Dev</cell><cell>1,812</cell></row></table></figure>
 </body>
 <back><div type="acknowledgement"><div><head>Acknowledgments</head><p>Thanks.</p></div></div>
  <div type="references"><listBibl>
   <biblStruct><analytic><title level="a">Tree tagging</title>
    <author><persName><forename type="first">Helmut</forename><surname>Schmid</surname></persName></author></analytic>
    <monogr><title level="m">NeMLaP</title><imprint><date type="published" when="1994-09"/></imprint></monogr></biblStruct>
  </listBibl></div></back></text></TEI>"#;

    #[test]
    fn reads_output_tei() {
        let p = read_grobid_tei(OUTPUT.as_bytes()).unwrap();
        assert_eq!(p.title.as_deref(), Some("Neural Tagging"));
        assert_eq!(p.abstract_text.as_deref(), Some("We tag words."));
        let s = p.sections.as_ref().unwrap();
        let heads: Vec<_> = s.iter().map(|s| s.heading.as_deref().unwrap()).collect();
        assert_eq!(heads, ["1 Introduction", "2 Results", "Acknowledgments"]);
        assert_eq!(s[0].text, "Tagging matters (Schmid, 1994).\ny = x + 1");
        assert_eq!(s[1].text, "See Table 1.\nTable 1: Sizes.\nTest 54,088 Dev 1,812");
        assert_eq!(p.tables, Some(vec!["Test 54,088 Dev 1,812".to_string()]));
        let r = p.references.as_ref().unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].authors, vec!["Helmut Schmid"]);
        assert_eq!(r[0].venue.as_deref(), Some("NeMLaP"));
        assert_eq!(r[0].year.as_deref(), Some("1994"));
        assert_eq!(p.mentions.len(), 1);
    }

    #[test]
    fn reads_training_tei() {
        let header = r#"<tei xml:space="preserve"><teiHeader/><text><front>
            <docTitle><titlePart>Apparent accelerations of<lb/> the Universe<lb/></titlePart></docTitle>
            Abstract. <div type="abstract">In this paper<lb/> we consider.<lb/></div></front></text></tei>"#;
        let p = read_grobid_tei(header.as_bytes()).unwrap();
        assert_eq!(p.title.as_deref(), Some("Apparent accelerations of the Universe"));
        assert_eq!(p.abstract_text.as_deref(), Some("In this paper\nwe consider."));
        assert!(p.sections.is_none() && p.references.is_none());

        let full = r#"<tei><teiHeader/><text xml:lang="en">
            <head level="1">3<lb/> The AVE System<lb/></head>
            <p>Line one <ref type="biblio">[1]</ref><lb/> line two.<lb/></p>
            <figure type="table">Table 1. Results<lb/> Run<lb/> 0.62<lb/> 0.37<lb/></figure>
            <formula>a = b<lb/> (<label>1</label>)<lb/></formula></text></tei>"#;
        let p = read_grobid_tei(full.as_bytes()).unwrap();
        let s = p.sections.as_ref().unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].heading.as_deref(), Some("3 The AVE System"));
        assert_eq!(
            s[0].text,
            "Line one [1]\nline two.\nTable 1. Results Run 0.62 0.37\na = b\n(1)"
        );
        assert_eq!(p.tables, Some(vec!["Table 1. Results Run 0.62 0.37".to_string()]));
        assert!(p.title.is_none());

        let refs = r#"<tei><text><listBibl>References<lb/>
            <bibl><label>1</label>. Bar-Haim, R. and Dagan, I. 2006. The Second PASCAL<lb/> Challenge. In Proc.<lb/></bibl>
            </listBibl></text></tei>"#;
        let p = read_grobid_tei(refs.as_bytes()).unwrap();
        let r = p.references.as_ref().unwrap();
        assert_eq!(r[0].key(), Some(("barhaim".into(), "2006".into())));
        assert_eq!(r[0].title.as_deref(), Some("The Second PASCAL Challenge"));
    }

    #[test]
    fn rejects_other_xml() {
        let e = read_grobid_tei(b"<html/>").unwrap_err();
        assert_eq!(e.to_string(), "not a GROBID TEI document: root element is <html>");
        assert!(read_grobid_tei(b"<tei").unwrap_err().to_string().starts_with("invalid XML"));
    }

    #[test]
    fn groups_file_names() {
        let g = group_tei_files(&[
            "tei/fulltext__evaluation__W.training.fulltext.tei.xml",
            "tei/fulltext__corpus__W.training.fulltext.tei.xml",
            "tei/header__corpus__W.training.header.tei.xml",
            "tei/segmentation__corpus__W.training.segmentation.tei.xml",
            "tei/reference-segmenter__corpus__W.training.referenceSegmenter.tei.xml",
            "tei/header__corpus__M.training.header.tei.xml",
            "x/N18.tei.xml",
            "x/P1.header.tei.xml",
            "x/P1.fulltext.tei.xml",
        ]);
        let ids: Vec<&str> = g.iter().map(|f| f.paper.as_str()).collect();
        assert_eq!(ids, ["M", "N18", "P1", "W"]);
        assert_eq!(
            g[3].fulltext.as_deref(),
            Some("tei/fulltext__corpus__W.training.fulltext.tei.xml")
        );
        assert!(g[3].references.is_some() && g[3].header.is_some() && g[3].full.is_none());
        assert_eq!(g[1].full.as_deref(), Some("x/N18.tei.xml"));
        assert!(g[2].header.is_some() && g[2].fulltext.is_some());
    }
}
