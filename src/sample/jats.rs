//! The JATS ground truth of a sample paper, derived from the same [`Source`] as its PDF and
//! its PeerRead truth, so that the three agree by construction and the JATS reader is tested
//! end to end.
//!
//! Written the way PubMed Central marks an article: `article-meta` (title, authors with
//! `surname` and `given-names`, abstract), nested `sec`s with `label` and `title`, paragraphs
//! whose citations are `xref[@ref-type=bibr]`, a `table-wrap` with its header row in `thead`,
//! each equation a `disp-formula` with its MathML (the printed text, spaces as `mspace`) and
//! its TeX as alternatives, the acknowledgments in `back/ack`, and the references in `ref-list`:
//! journal articles as `element-citation`, the others as `mixed-citation`.

use super::peerread::{all_cite_forms, sentence_citations};
use super::source::{clean, split_name, Item, Reference, Source, TableSource};

/// Returns the JATS XML of `src`, with a final newline.
pub(crate) fn jats_xml(src: &Source) -> String {
    let mut x = String::new();
    x.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    x.push_str(
        "<!DOCTYPE article PUBLIC \"-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange \
         DTD v1.2 20190208//EN\" \"JATS-archivearticle1.dtd\">\n",
    );
    x.push_str(
        "<article xmlns:mml=\"http://www.w3.org/1998/Math/MathML\" \
         xmlns:xlink=\"http://www.w3.org/1999/xlink\" article-type=\"research-article\">\n",
    );
    front(src, &mut x);
    let forms = all_cite_forms(src);
    // An unnumbered `Acknowledgments` heading at the end is back matter.
    let ack_at = src
        .body
        .iter()
        .rposition(|i| matches!(i, Item::Heading(h) if h.eq_ignore_ascii_case("acknowledgments")));
    let (body, ack) = match ack_at {
        Some(i) if src.body[i + 1..].iter().all(|i| matches!(i, Item::Para(_))) => {
            src.body.split_at(i)
        }
        _ => (src.body, &[][..]),
    };
    x.push_str("<body>\n");
    let mut open: Vec<u8> = Vec::new();
    let mut equations = 0;
    let mut sections = 0;
    for item in body {
        match item {
            Item::Heading(h) | Item::Subheading(h) => {
                let level = item.level().unwrap_or(1);
                while open.last().is_some_and(|&l| l >= level) {
                    open.pop();
                    x.push_str("</sec>\n");
                }
                open.push(level);
                let (label, title) = match h.split_once(' ') {
                    Some((n, t)) if n.chars().all(|c| c.is_ascii_digit() || c == '.') => (n, t),
                    _ => ("", *h),
                };
                sections += 1;
                let id = match label {
                    "" => format!("u{sections}"),
                    l => l.replace('.', "_"),
                };
                x.push_str(&format!("<sec id=\"s{id}\">"));
                if !label.is_empty() {
                    x.push_str(&format!("<label>{}</label>", esc(label)));
                }
                x.push_str(&format!("<title>{}</title>\n", esc(title)));
            }
            Item::Para(sentences) => paragraph(src, sentences, &forms, &mut x),
            Item::Table(t) => table(t, &mut x),
            Item::Equation { text, latex } => {
                equations += 1;
                x.push_str(&format!(
                    "<disp-formula id=\"E{equations}\"><label>({equations})</label><alternatives>{}<tex-math>{}</tex-math></alternatives></disp-formula>\n",
                    mathml(text),
                    esc(latex)
                ));
            }
        }
    }
    for _ in open {
        x.push_str("</sec>\n");
    }
    x.push_str("</body>\n<back>\n");
    if let Some((Item::Heading(h), paras)) = ack.split_first() {
        x.push_str(&format!("<ack><title>{}</title>\n", esc(h)));
        for p in paras {
            if let Item::Para(s) = p {
                paragraph(src, s, &forms, &mut x);
            }
        }
        x.push_str("</ack>\n");
    }
    x.push_str("<ref-list><title>References</title>\n");
    for (i, r) in src.references.iter().enumerate() {
        x.push_str(&format!("<ref id=\"R{}\">", i + 1));
        citation(r, &mut x);
        x.push_str("</ref>\n");
    }
    x.push_str("</ref-list>\n</back>\n</article>\n");
    x
}

fn front(src: &Source, x: &mut String) {
    x.push_str("<front>\n<journal-meta><journal-title-group><journal-title>Corpus Sample Papers</journal-title></journal-title-group></journal-meta>\n<article-meta>\n");
    x.push_str(&format!(
        "<article-id pub-id-type=\"publisher-id\">{}</article-id>\n",
        esc(src.name)
    ));
    x.push_str(&format!(
        "<title-group><article-title>{}</article-title></title-group>\n",
        esc(src.title)
    ));
    if !src.review && !src.authors.is_empty() {
        x.push_str("<contrib-group>\n");
        for a in src.authors {
            let (given, surname) = split_name(a);
            x.push_str(&format!(
                "<contrib contrib-type=\"author\"><name><surname>{}</surname><given-names>{}</given-names></name><xref ref-type=\"aff\" rid=\"A1\">1</xref></contrib>\n",
                esc(surname),
                esc(given)
            ));
        }
        x.push_str("</contrib-group>\n");
        x.push_str(&format!("<aff id=\"A1\"><label>1</label>{}</aff>\n", esc(src.affiliation)));
    }
    x.push_str("<pub-date pub-type=\"epub\"><year>2026</year></pub-date>\n");
    x.push_str(&format!(
        "<abstract><title>Abstract</title><p>{}</p></abstract>\n",
        esc(&clean(&src.printed(src.abstract_)))
    ));
    x.push_str("</article-meta>\n</front>\n");
}

/// A paragraph: its sentences joined by spaces, each citation an `xref` to its reference.
fn paragraph(src: &Source, sentences: &[&str], forms: &[(usize, Vec<String>)], x: &mut String) {
    x.push_str("<p>");
    for (k, s) in sentences.iter().enumerate() {
        if k > 0 {
            x.push(' ');
        }
        let (s, found) = sentence_citations(src, s, forms);
        let mut at = 0;
        for (start, end, id) in found {
            if start < at {
                continue;
            }
            x.push_str(&esc(&s[at..start]));
            x.push_str(&format!(
                "<xref ref-type=\"bibr\" rid=\"R{}\">{}</xref>",
                id + 1,
                esc(&s[start..end])
            ));
            at = end;
        }
        x.push_str(&esc(&s[at..]));
    }
    x.push_str("</p>\n");
}

/// A table under its caption: `Table N:` is the label, the rest the caption; the header row in
/// `thead`.
fn table(t: &TableSource, x: &mut String) {
    let (label, caption) = match t.caption.split_once(": ") {
        Some((l, c)) => (format!("{l}:"), c),
        None => (String::new(), t.caption),
    };
    x.push_str("<table-wrap id=\"T1\" position=\"float\">");
    if !label.is_empty() {
        x.push_str(&format!("<label>{}</label>", esc(&label)));
    }
    x.push_str(&format!("<caption><p>{}</p></caption>\n<table><thead><tr>", esc(caption)));
    for h in t.header {
        x.push_str(&format!("<th>{}</th>", esc(h)));
    }
    x.push_str("</tr></thead>\n<tbody>\n");
    for r in t.rows {
        x.push_str("<tr>");
        for c in *r {
            x.push_str(&format!("<td>{}</td>", esc(c)));
        }
        x.push_str("</tr>\n");
    }
    x.push_str("</tbody></table></table-wrap>\n");
}

/// The printed formula as presentation MathML: letter runs as `mi`, digit runs as `mn`, every
/// other character an `mo`, and the spaces as `mspace`.
fn mathml(text: &str) -> String {
    let mut out = String::from("<mml:math><mml:mrow>");
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = |pred: fn(&char) -> bool, i: &mut usize| {
            let s = *i;
            while *i < chars.len() && pred(&chars[*i]) {
                *i += 1;
            }
            chars[s..*i].iter().collect::<String>()
        };
        if c.is_alphabetic() {
            let t = run(|c| c.is_alphabetic(), &mut i);
            out.push_str(&format!("<mml:mi>{}</mml:mi>", esc(&t)));
        } else if c.is_ascii_digit() {
            let t = run(|c| c.is_ascii_digit() || *c == '.', &mut i);
            out.push_str(&format!("<mml:mn>{}</mml:mn>", esc(&t)));
        } else if c == ' ' {
            i += 1;
            out.push_str("<mml:mspace width=\"0.25em\"/>");
        } else {
            i += 1;
            out.push_str(&format!("<mml:mo>{}</mml:mo>", esc(&c.to_string())));
        }
    }
    out.push_str("</mml:mrow></mml:math>");
    out
}

/// One reference: a journal article (it has a volume) as an `element-citation`, anything else
/// as a `mixed-citation` with its printed punctuation. An organisation author is a `collab` in
/// an `element-citation` and plain text in a `mixed-citation` (as many publishers write it);
/// a work without authors has no `person-group`.
fn citation(r: &Reference, x: &mut String) {
    let names: String = r
        .authors
        .iter()
        .map(|a| {
            if r.org {
                return format!("<collab>{}</collab>", esc(a));
            }
            let (g, s) = split_name(a);
            format!(
                "<name><surname>{}</surname><given-names>{}</given-names></name>",
                esc(s),
                esc(g)
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let group = match (r.authors.is_empty(), r.org && r.volume.is_none()) {
        (true, _) => String::new(),
        (false, true) => esc(&r.authors.join(", ")),
        (false, false) => {
            format!("<person-group person-group-type=\"author\">{names}</person-group>")
        }
    };
    let (first, last) = match r.pages.and_then(|p| p.split_once('-')) {
        Some((f, l)) => (Some(f), Some(l)),
        None => (None, None),
    };
    let tag = |name: &str, v: Option<&str>| {
        v.map(|v| format!("<{name}>{}</{name}>", esc(v))).unwrap_or_default()
    };
    if r.volume.is_some() {
        x.push_str(&format!(
            "<element-citation publication-type=\"journal\">{group}<year>{}</year><article-title>{}</article-title><source>{}</source>{}{}{}{}</element-citation>",
            esc(r.year),
            esc(r.title),
            esc(r.venue),
            tag("volume", r.volume),
            tag("issue", r.issue),
            tag("fpage", first),
            tag("lpage", last)
        ));
    } else {
        let pages = match (first, last) {
            (Some(f), Some(l)) => {
                format!(", pages <fpage>{}</fpage>-<lpage>{}</lpage>", esc(f), esc(l))
            }
            _ => String::new(),
        };
        let group = if group.is_empty() { group } else { format!("{group}. ") };
        x.push_str(&format!(
            "<mixed-citation publication-type=\"other\">{group}<year>{}</year>. <article-title>{}</article-title>. <source>{}</source>{pages}.</mixed-citation>",
            esc(r.year),
            esc(r.title),
            esc(r.venue)
        ));
    }
}

/// Escapes text for XML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_keep_their_printed_text() {
        let m = mathml("s(t,v) = c(t,v) / c(v)");
        assert!(m.starts_with("<mml:math><mml:mrow><mml:mi>s</mml:mi><mml:mo>(</mml:mo>"), "{m}");
        assert_eq!(m.matches("<mml:mspace").count(), 4);
    }

    #[test]
    fn names_split_at_the_last_token() {
        assert_eq!(split_name("Inés Ferreira"), ("Inés", "Ferreira"));
        assert_eq!(split_name("Lucia Moretti"), ("Lucia", "Moretti"));
    }
}
