//! JATS (and NLM) XML, the form in which PubMed Central gives its open-access articles, read
//! into a [`Paper`] (rules in `docs/paper-suite.md`, "JATS").
//!
//! * front: `article-meta/title-group/article-title`; the authors from
//!   `contrib-group/contrib[@contrib-type=author]` (`name` with `surname` and `given-names`, or
//!   `string-name`; group authors (`collab`) are not persons and are left out); the abstract
//!   (every `abstract` without `@abstract-type`, else the first one; its own `title` left out,
//!   the titles of a structured abstract's `sec`s kept as lines); `kwd-group/kwd` keywords.
//! * body: `sec` nesting gives the sections and their levels, the heading being `label` and
//!   `title`; paragraphs are lines; a `table-wrap` is its caption line (`label` and `caption`)
//!   and one line per table row, cells joined by spaces: body rows are the paper's table lines,
//!   header rows (in `thead`, or all `th`) are text, as a header line is in a text truth;
//!   `disp-formula` is one line of its MathML (or, without it, its `tex-math` as plain
//!   Unicode) and its label; `fig` is its caption line; lists, definition lists and boxed text
//!   are lines. Blocks inside a paragraph split it where they stand.
//! * back: `ack`, `sec`, `app`, `notes`, `glossary` and `fn-group` as further sections (with
//!   their titles); `ref-list/ref` as the reference list, each from its `element-citation`,
//!   `mixed-citation` (tagged parts, else its text parsed as an entry) or `nlm-citation`.
//! * `xref[@ref-type=bibr]` is where the article marks a citation; the text around it is kept
//!   as printed, and the suite's one mention extractor finds the mentions there, as it does on
//!   every side.

use roxmltree::Node;

use super::xml::{child, children, non_empty};
use super::{Format, FormatError};
use crate::normalize::{collapse_ws, latex_to_plain};
use crate::paper::references::{find_doi, find_years, last_name, parse_reference};
use crate::paper::{Paper, Reference, Section};

/// The format this file reads.
const FORMAT: Format = Format::Jats;

/// The error for well-formed XML that is not a JATS (or NLM) article.
fn not_jats(what: impl std::fmt::Display) -> FormatError {
    FormatError::new(FORMAT, format!("not a JATS article: {what}"))
}

/// Reads a JATS / NLM article.
pub(crate) fn read_jats(bytes: &[u8]) -> Result<Paper, FormatError> {
    let doc = super::xml::parse(bytes, FORMAT)?;
    let root = doc.root_element();
    if root.tag_name().name() != "article" {
        return Err(not_jats(format!("root element is <{}>", root.tag_name().name())));
    }
    let meta = child(root, "front").and_then(|f| child(f, "article-meta"));
    let title = meta
        .and_then(|m| child(m, "title-group"))
        .and_then(|t| child(t, "article-title"))
        .map(inline)
        .and_then(non_empty);
    let persons: Vec<Person> = meta
        .into_iter()
        .flat_map(|m| children(m, "contrib-group"))
        .flat_map(|g| children(g, "contrib"))
        .filter(|c| c.attribute("contrib-type").is_none_or(|t| t == "author"))
        .filter_map(|c| {
            c.children().filter(Node::is_element).find_map(|n| match n.tag_name().name() {
                "name" | "string-name" => person(n),
                _ => None,
            })
        })
        .collect();
    let abstract_text = meta.and_then(abstract_of);
    let keywords: Vec<String> = meta
        .into_iter()
        .flat_map(|m| children(m, "kwd-group"))
        .flat_map(|g| children(g, "kwd"))
        .map(inline)
        .filter(|k| !k.is_empty())
        .collect();
    let year = meta
        .into_iter()
        .flat_map(|m| children(m, "pub-date"))
        .filter_map(|d| child(d, "year"))
        .find_map(|y| inline(y).parse::<i64>().ok());

    let mut body = Body::default();
    let body_node = child(root, "body");
    if let Some(b) = body_node {
        body.container(b, 0);
    }
    let back = child(root, "back");
    let mut references = None;
    if let Some(back) = back {
        for c in back.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "ref-list" => references.get_or_insert_with(Vec::new).extend(ref_list(c)),
                "app-group" => body.container(c, 0),
                "fn-group" | "glossary" | "ack" | "sec" | "app" | "notes" => body.section(c, 0),
                _ => body.block(c, 0),
            }
        }
    }
    if let Some(f) = child(root, "floats-group") {
        body.container(f, 0);
    }
    let has_body = body_node.is_some() || !body.sections.is_empty();
    let (authors, surnames) = split_persons(persons);
    let mut p = Paper {
        title,
        abstract_text,
        sections: has_body.then_some(body.sections),
        references,
        tables: Some(body.tables),
        authors,
        surnames,
        keywords,
        year,
        ..Paper::default()
    };
    p.rebuild_mentions();
    Ok(p)
}

/// A person: the name as printed and the surname where it is marked.
type Person = (String, Option<String>);

fn person(n: Node) -> Option<Person> {
    let surname = child(n, "surname").map(inline).and_then(non_empty);
    let given = child(n, "given-names").map(inline).and_then(non_empty);
    let name = match (&given, &surname) {
        (Some(g), Some(s)) => format!("{g} {s}"),
        (None, Some(s)) => s.clone(),
        _ => inline(n),
    };
    non_empty(name).map(|name| (name, surname))
}

/// Names and, when any person has a marked surname, every person's surname (else `None`).
fn split_persons(persons: Vec<Person>) -> (Vec<String>, Option<Vec<String>>) {
    let marked = persons.iter().any(|(_, s)| s.is_some());
    let surnames = marked
        .then(|| persons.iter().map(|(n, s)| s.clone().unwrap_or_else(|| last_name(n))).collect());
    (persons.into_iter().map(|(n, _)| n).collect(), surnames)
}

fn abstract_of(meta: Node) -> Option<String> {
    let all: Vec<Node> = children(meta, "abstract").collect();
    let plain: Vec<Node> =
        all.iter().copied().filter(|a| a.attribute("abstract-type").is_none()).collect();
    let chosen = if plain.is_empty() { all.into_iter().take(1).collect() } else { plain };
    let mut lines = Vec::new();
    for a in chosen {
        abstract_lines(a, &mut lines);
    }
    non_empty(lines.join("\n"))
}

fn abstract_lines(n: Node, lines: &mut Vec<String>) {
    for c in n.children().filter(Node::is_element) {
        match c.tag_name().name() {
            "title" if n.tag_name().name() == "abstract" => {}
            "sec" => abstract_lines(c, lines),
            "label" => {}
            _ => {
                let t = inline(c);
                if !t.is_empty() {
                    lines.push(t);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Text

/// Elements that stand as blocks of their own, even inside a paragraph.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "table-wrap"
            | "table-wrap-group"
            | "fig"
            | "fig-group"
            | "disp-formula"
            | "disp-formula-group"
            | "list"
            | "def-list"
            | "boxed-text"
            | "disp-quote"
            | "statement"
            | "supplementary-material"
            | "array"
            | "table"
            | "preformat"
            | "code"
            | "verse-group"
            | "chem-struct-wrap"
            | "p"
    )
}

/// The element's text on one line: inline markup kept as its text, formulas as plain text,
/// graphics left out.
pub(crate) fn inline(n: Node) -> String {
    let mut out = String::new();
    gather(n, &mut out);
    collapse_ws(&out)
}

fn gather(n: Node, out: &mut String) {
    for c in n.children() {
        if c.is_text() {
            for ch in c.text().unwrap_or("").chars() {
                out.push(if ch.is_whitespace() { ' ' } else { ch });
            }
        } else if c.is_element() {
            gather_child(c, out, true);
        }
    }
}

/// Inline text of one child element: formulas as plain text, the preferred alternative,
/// graphics and footnotes left out. With `pad_blocks`, block-like children (of a caption or
/// cell) stand apart from their neighbours.
fn gather_child(c: Node, out: &mut String, pad_blocks: bool) {
    match c.tag_name().name() {
        "math" => {
            out.push(' ');
            out.push_str(&math_text(c));
            out.push(' ');
        }
        "tex-math" => out.push_str(&tex_text(c)),
        "alternatives" => {
            if let Some(a) = preferred_alternative(c) {
                gather_one(a, out);
            }
        }
        "graphic" | "inline-graphic" | "media" | "fn" | "object-id" => {}
        "break" => out.push(' '),
        "p" | "title" | "label" | "list-item" | "def" | "term" if pad_blocks => {
            out.push(' ');
            gather(c, out);
            out.push(' ');
        }
        _ => gather(c, out),
    }
}

fn gather_one(n: Node, out: &mut String) {
    match n.tag_name().name() {
        "math" => out.push_str(&math_text(n)),
        "tex-math" => out.push_str(&tex_text(n)),
        _ => gather(n, out),
    }
}

/// Of a formula's alternatives, the presentation MathML (what is printed), else the TeX, else
/// the first one.
fn preferred_alternative<'a, 'i>(n: Node<'a, 'i>) -> Option<Node<'a, 'i>> {
    let kids: Vec<Node> = n.children().filter(Node::is_element).collect();
    kids.iter()
        .find(|k| k.tag_name().name() == "math")
        .or_else(|| kids.iter().find(|k| k.tag_name().name() == "tex-math"))
        .or_else(|| kids.iter().find(|k| !matches!(k.tag_name().name(), "graphic" | "media")))
        .copied()
}

/// A `tex-math` as plain Unicode: the formula inside a `\begin{document}` wrapper, if any.
fn tex_text(n: Node) -> String {
    let raw: String = n.descendants().filter(Node::is_text).filter_map(|t| t.text()).collect();
    let body = match (raw.find("\\begin{document}"), raw.find("\\end{document}")) {
        (Some(a), Some(b)) if a < b => &raw[a + "\\begin{document}".len()..b],
        _ => raw.as_str(),
    };
    latex_to_plain(body)
}

/// Presentation MathML as the text it prints: leaves in order, `mfrac` as `a/b`, scripts
/// written after their base, operators spaced, annotations and phantoms left out.
pub(crate) fn math_text(n: Node) -> String {
    let mut leaves: Vec<String> = Vec::new();
    math_leaves(n, &mut leaves);
    let mut out = String::new();
    for (i, l) in leaves.iter().enumerate() {
        let word = |s: &str| s.chars().all(char::is_alphanumeric) && !s.is_empty();
        if i > 0 {
            let prev = &leaves[i - 1];
            // Multi-letter identifiers (`sin x`) print apart; single letters run together.
            if word(prev) && word(l) && (prev.chars().count() > 1 || l.chars().count() > 1) {
                out.push(' ');
            }
        }
        out.push_str(l);
    }
    collapse_ws(&out)
}

/// The leaves of every child of `n`, in order.
fn math_leaves(n: Node, out: &mut Vec<String>) {
    for c in n.children().filter(Node::is_element) {
        math_node(c, out);
    }
}

/// The leaves of one MathML element.
fn math_node(c: Node, out: &mut Vec<String>) {
    let text = || {
        collapse_ws(
            &c.descendants().filter(Node::is_text).filter_map(|t| t.text()).collect::<String>(),
        )
    };
    match c.tag_name().name() {
        "annotation" | "annotation-xml" | "mphantom" | "none" | "mprescripts" => {}
        // Its first child is the presentation; the rest are annotations.
        "semantics" => {
            if let Some(first) = c.children().find(Node::is_element) {
                math_node(first, out);
            }
        }
        "mi" | "mn" | "mtext" | "ms" => {
            let t = text();
            if !t.is_empty() {
                out.push(t);
            }
        }
        "mo" => {
            let t = text();
            let spaced = matches!(
                t.as_str(),
                "=" | "+"
                    | "\u{2212}"
                    | "-"
                    | "<"
                    | ">"
                    | "\u{2264}"
                    | "\u{2265}"
                    | "\u{2248}"
                    | "\u{d7}"
                    | "\u{b1}"
                    | "\u{2260}"
                    | "\u{2192}"
            );
            if !t.is_empty() {
                out.push(if spaced { format!(" {t} ") } else { t });
            }
        }
        "mfrac" => {
            let parts: Vec<Node> = c.children().filter(Node::is_element).collect();
            match parts.as_slice() {
                [a, b] => {
                    math_node(*a, out);
                    out.push("/".into());
                    math_node(*b, out);
                }
                _ => math_leaves(c, out),
            }
        }
        "msqrt" => {
            out.push("\u{221a}".into());
            math_leaves(c, out);
        }
        "mfenced" => {
            out.push(c.attribute("open").unwrap_or("(").to_string());
            let sep = c.attribute("separators").unwrap_or(",").trim().chars().next();
            for (i, k) in c.children().filter(Node::is_element).enumerate() {
                if i > 0 {
                    out.extend(sep.map(String::from));
                }
                math_node(k, out);
            }
            out.push(c.attribute("close").unwrap_or(")").to_string());
        }
        "mspace" => out.push(" ".into()),
        _ => math_leaves(c, out),
    }
}

// ---------------------------------------------------------------------------------------------
// Body

/// Collects sections in document order; text before any heading goes to a section without one.
#[derive(Default)]
struct Body {
    sections: Vec<Section>,
    tables: Vec<String>,
}

impl Body {
    fn heading(&mut self, h: String, level: u8) {
        self.sections.push(Section { heading: Some(h), level: Some(level), text: String::new() });
    }

    fn line(&mut self, t: &str) {
        crate::paper::push_line(&mut self.sections, &collapse_ws(t));
    }

    fn table_line(&mut self, t: &str) {
        let t = collapse_ws(t);
        if !t.is_empty() {
            self.line(&t);
            self.tables.push(t);
        }
    }

    /// A `sec`-like element at nesting depth `depth`: its heading (`label` and `title`), then
    /// its content one level deeper.
    fn section(&mut self, n: Node, depth: u8) {
        let label = child(n, "label").map(inline).unwrap_or_default();
        let title = child(n, "title").map(inline).unwrap_or_default();
        let h = collapse_ws(&format!("{label} {title}"));
        if !h.is_empty() {
            self.heading(h, depth + 1);
        }
        self.container(n, depth + 1);
    }

    /// The children of a container (`body`, a section) at nesting depth `depth`.
    fn container(&mut self, n: Node, depth: u8) {
        for c in n.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "label" | "title" | "sec-meta" | "object-id" => {}
                "sec" | "app" | "ack" | "notes" | "glossary" | "fn-group" => self.section(c, depth),
                "app-group" | "floats-group" => self.container(c, depth),
                _ => self.block(c, depth),
            }
        }
    }

    /// One block-level element.
    fn block(&mut self, n: Node, depth: u8) {
        match n.tag_name().name() {
            "p" => self.paragraph(n, depth),
            "table-wrap" => self.table_wrap(n),
            "table" | "array" => self.table(n),
            "fig" => self.line(&caption_line(n)),
            "disp-formula" => {
                let label = child(n, "label").map(inline).unwrap_or_default();
                let f = formula_text(n);
                self.line(&format!("{f} {label}"));
            }
            "list" => {
                for item in children(n, "list-item") {
                    let label = child(item, "label").map(inline).unwrap_or_default();
                    let mut first = true;
                    for c in item.children().filter(Node::is_element) {
                        match c.tag_name().name() {
                            "label" => {}
                            "p" if first => {
                                first = false;
                                let t = inline(c);
                                self.line(&format!("{label} {t}"));
                            }
                            _ => self.block(c, depth),
                        }
                    }
                }
            }
            "def-list" => {
                if let Some(t) = child(n, "title") {
                    self.line(&inline(t));
                }
                for item in children(n, "def-item") {
                    let term = child(item, "term").map(inline).unwrap_or_default();
                    let def = child(item, "def").map(inline).unwrap_or_default();
                    self.line(&format!("{term} {def}"));
                }
            }
            "table-wrap-group" | "fig-group" | "disp-formula-group" | "boxed-text"
            | "disp-quote" | "statement" | "chem-struct-wrap" | "verse-group" => {
                for c in n.children().filter(Node::is_element) {
                    match c.tag_name().name() {
                        "label" | "title" | "caption" => self.line(&inline(c)),
                        "sec" => self.section(c, depth),
                        _ => self.block(c, depth),
                    }
                }
            }
            "supplementary-material" => self.line(&caption_line(n)),
            "sec" | "app" | "ack" | "notes" | "glossary" | "fn-group" => self.section(n, depth),
            "fn" | "ref-list" | "graphic" | "media" | "alternatives" | "object-id" => {
                if n.tag_name().name() == "fn" {
                    self.container(n, depth);
                }
            }
            _ => self.line(&inline(n)),
        }
    }

    /// A paragraph: its inline text as lines, split wherever a block stands inside it.
    fn paragraph(&mut self, n: Node, depth: u8) {
        let mut buf = String::new();
        for c in n.children() {
            if c.is_element() && is_block(c.tag_name().name()) {
                self.line(&buf);
                buf.clear();
                self.block(c, depth);
            } else if c.is_text() {
                for ch in c.text().unwrap_or("").chars() {
                    buf.push(if ch.is_whitespace() { ' ' } else { ch });
                }
            } else if c.is_element() {
                let mut one = String::new();
                gather_child(c, &mut one, false);
                buf.push_str(&one);
            }
        }
        self.line(&buf);
    }

    fn table_wrap(&mut self, n: Node) {
        self.line(&caption_line(n));
        for c in n.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "table" | "array" => self.table(c),
                "alternatives" => {
                    if let Some(t) = c.children().find(|k| k.has_tag_name("table")) {
                        self.table(t);
                    }
                }
                "table-wrap-foot" => {
                    for f in c.descendants().filter(|d| d.is_element()) {
                        if matches!(f.tag_name().name(), "p" | "attrib") {
                            self.line(&inline(f));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A table's rows, each one line of its non-empty cells: header rows as text, the others
    /// as table lines.
    fn table(&mut self, n: Node) {
        let mut rows: Vec<(Node, bool)> = Vec::new();
        for c in n.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "thead" => rows.extend(children(c, "tr").map(|r| (r, true))),
                "tbody" | "tfoot" => rows.extend(children(c, "tr").map(|r| (r, false))),
                "tr" => rows.push((c, false)),
                _ => {}
            }
        }
        for (r, in_head) in rows {
            let cells: Vec<Node> =
                r.children().filter(|c| c.has_tag_name("td") || c.has_tag_name("th")).collect();
            let all_th = !cells.is_empty() && cells.iter().all(|c| c.has_tag_name("th"));
            let line: Vec<String> =
                cells.iter().map(|c| inline(*c)).filter(|t| !t.is_empty()).collect();
            let line = line.join(" ");
            if in_head || all_th {
                self.line(&line);
            } else {
                self.table_line(&line);
            }
        }
    }
}

/// A figure's or table's caption line: its label, then its caption's title and paragraphs.
fn caption_line(n: Node) -> String {
    let label = child(n, "label").map(inline).unwrap_or_default();
    let caption = child(n, "caption").map(inline).unwrap_or_default();
    collapse_ws(&format!("{label} {caption}"))
}

/// A display formula's text: its MathML, else its TeX, else its text.
fn formula_text(n: Node) -> String {
    let target = n
        .children()
        .filter(Node::is_element)
        .find(|c| matches!(c.tag_name().name(), "math" | "alternatives" | "tex-math"));
    match target {
        Some(t) if t.tag_name().name() == "alternatives" => preferred_alternative(t).map(|a| {
            let mut s = String::new();
            gather_one(a, &mut s);
            collapse_ws(&s)
        }),
        Some(t) => {
            let mut s = String::new();
            gather_one(t, &mut s);
            Some(collapse_ws(&s))
        }
        None => None,
    }
    .unwrap_or_else(|| {
        let mut s = String::new();
        for c in n.children() {
            if c.is_text() {
                s.push_str(c.text().unwrap_or(""));
            } else if c.is_element() && !c.has_tag_name("label") {
                gather_child(c, &mut s, false);
            }
        }
        collapse_ws(&s)
    })
}

// ---------------------------------------------------------------------------------------------
// References

fn ref_list(n: Node) -> Vec<Reference> {
    let mut out = Vec::new();
    for c in n.children().filter(Node::is_element) {
        match c.tag_name().name() {
            "ref" => out.push(reference(c)),
            "ref-list" => out.extend(ref_list(c)),
            _ => {}
        }
    }
    out
}

const CITATIONS: [&str; 4] = ["element-citation", "mixed-citation", "nlm-citation", "citation"];

fn reference(r: Node) -> Reference {
    let cite = r
        .children()
        .filter(Node::is_element)
        .find(|c| CITATIONS.contains(&c.tag_name().name()))
        .or_else(|| {
            child(r, "citation-alternatives").and_then(|a| {
                a.children()
                    .filter(Node::is_element)
                    .find(|c| CITATIONS.contains(&c.tag_name().name()))
            })
        });
    let Some(cite) = cite else {
        return parse_reference(&inline(r));
    };
    let tagged = cite.children().filter(Node::is_element).any(|c| {
        matches!(
            c.tag_name().name(),
            "person-group" | "name" | "string-name" | "article-title" | "source" | "year"
        )
    });
    if !tagged {
        return parse_reference(&inline(cite));
    }
    let mut authors: Vec<Person> = Vec::new();
    let mut collabs: Vec<String> = Vec::new();
    let mut editors: Vec<Person> = Vec::new();
    let mut take = |n: Node, into_editors: bool, authors: &mut Vec<Person>| {
        for c in n.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "name" | "string-name" => {
                    if let Some(p) = person(c) {
                        if into_editors {
                            editors.push(p);
                        } else {
                            authors.push(p);
                        }
                    }
                }
                "collab" if !into_editors => {
                    let t = inline(c);
                    if !t.is_empty() {
                        collabs.push(t.clone());
                        authors.push((t, None));
                    }
                }
                _ => {}
            }
        }
    };
    take(cite, false, &mut authors);
    for g in children(cite, "person-group") {
        let editor = g.attribute("person-group-type").is_some_and(|t| t != "author");
        take(g, editor, &mut authors);
    }
    if authors.is_empty() {
        authors = editors;
    }
    if authors.is_empty() {
        // A `mixed-citation` may print its organisation author as plain text before the first
        // tagged part (`World Health Organization. <source>...`): that text is the author,
        // without a surname, as a `collab` is.
        if let Some(t) = leading_text(cite) {
            collabs.push(t.clone());
            authors.push((t, None));
        }
    }
    // Group authors (`collab`) have no surname.
    let marked = authors.iter().any(|(_, s)| s.is_some());
    let surnames = marked.then(|| {
        authors
            .iter()
            .filter(|(n, s)| s.is_some() || !collabs.contains(n))
            .map(|(n, s)| s.clone().unwrap_or_else(|| last_name(n)))
            .collect()
    });
    let field = |name: &str| child(cite, name).map(inline).and_then(non_empty);
    let year = child(cite, "year")
        .or_else(|| child(cite, "date").and_then(|d| child(d, "year")))
        .map(inline)
        .and_then(|y| {
            let years = find_years(&y);
            years.first().map(|f| y[f.start..f.end].to_string()).or_else(|| non_empty(y))
        });
    let work = field("article-title").or_else(|| field("chapter-title"));
    let (title, venue) = match work {
        Some(t) => (Some(t), field("source")),
        None => (field("source").or_else(|| field("data-title")), None),
    };
    let doi = children(cite, "pub-id")
        .find(|p| p.attribute("pub-id-type").is_some_and(|t| t.eq_ignore_ascii_case("doi")))
        .map(inline)
        .or_else(|| {
            children(cite, "ext-link")
                .find(|e| e.attribute("ext-link-type").is_some_and(|t| t == "doi"))
                .map(inline)
        })
        .map(|d| find_doi(&d).map(|(_, _, x)| x).unwrap_or(d))
        .or_else(|| find_doi(&inline(cite)).map(|(_, _, d)| d))
        .and_then(non_empty);
    Reference {
        title,
        authors: authors.into_iter().map(|(n, _)| n).collect(),
        surnames,
        venue,
        year,
        volume: field("volume"),
        issue: field("issue"),
        first_page: field("fpage").or_else(|| field("elocation-id")),
        doi,
    }
}

/// Returns the plain text a citation holds before its first element, without a leading label
/// and the punctuation around it, where it holds a word.
fn leading_text(cite: Node) -> Option<String> {
    let mut t = String::new();
    for c in cite.children() {
        if c.is_element() {
            break;
        }
        t.push_str(c.text().unwrap_or(""));
    }
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || "[]().".contains(c)).trim();
    let t = t.trim_matches(|c: char| !c.is_alphanumeric()).trim();
    t.chars().any(char::is_alphabetic).then(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = r#"<?xml version="1.0"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.0 20120330//EN" "JATS-archivearticle1.dtd">
<article xmlns:mml="http://www.w3.org/1998/Math/MathML" xmlns:xlink="http://www.w3.org/1999/xlink">
<front><article-meta>
 <title-group><article-title>Crows in <italic>flocks</italic></article-title></title-group>
 <contrib-group>
  <contrib contrib-type="author"><name><surname>van Dam</surname><given-names>Ana</given-names></name><xref ref-type="aff" rid="A1">1</xref></contrib>
  <contrib contrib-type="author"><collab>The Crow Group</collab></contrib>
  <contrib contrib-type="editor"><name><surname>Ed</surname><given-names>E</given-names></name></contrib>
 </contrib-group>
 <abstract><title>Abstract</title><sec><title>Background</title><p>Crows flock.</p></sec><p>We count them.</p></abstract>
 <abstract abstract-type="teaser"><p>Short.</p></abstract>
 <kwd-group><title>Keywords</title><kwd><italic>Corvus</italic></kwd><kwd>flocks</kwd></kwd-group>
</article-meta></front>
<body>
 <p>Before any section.</p>
 <sec><label>1</label><title>Intro</title><p>Crows gather [<xref ref-type="bibr" rid="R1">1</xref>] as Lee and Wu (2015) saw.
   <disp-formula><label>(1)</label><mml:math><mml:mi>C</mml:mi><mml:mo>=</mml:mo><mml:mfrac><mml:mi>a</mml:mi><mml:msub><mml:mi>b</mml:mi><mml:mn>2</mml:mn></mml:msub></mml:mfrac></mml:math></disp-formula>
   So it goes.</p>
  <sec><label>1.1</label><title>Data</title>
   <table-wrap><label>Table 1:</label><caption><p>Counts.</p></caption>
    <table><thead><tr><th>Site</th><th>N</th></tr></thead>
     <tbody><tr><td>North</td><td>1,204</td></tr><tr><td>South</td><td>98.5</td></tr></tbody></table>
    <table-wrap-foot><fn><p>Rounded.</p></fn></table-wrap-foot></table-wrap>
   <disp-formula><alternatives><tex-math>\documentclass{minimal}\begin{document}$x = \alpha$\end{document}</tex-math></alternatives></disp-formula>
  </sec>
 </sec>
 <sec><title>Methods</title><list><list-item><p>Count.</p></list-item></list></sec>
</body>
<back><ack><title>Acknowledgements</title><p>Thanks.</p></ack>
 <ref-list><title>References</title>
  <ref id="R1"><element-citation publication-type="journal"><person-group person-group-type="author">
   <name><surname>Lee</surname><given-names>Ann</given-names></name><name><surname>Wu</surname><given-names>Bo</given-names></name><etal/></person-group>
   <article-title>Flocks</article-title><source>J Birds</source><year>2015</year><volume>12</volume><issue>3</issue><fpage>45</fpage><lpage>50</lpage>
   <pub-id pub-id-type="doi">10.1000/xyz.1</pub-id></element-citation></ref>
  <ref id="R2"><mixed-citation publication-type="book"><person-group person-group-type="author"><collab>WHO</collab></person-group>. <year>2010a</year>. <source>A book</source>. <publisher-name>P</publisher-name>.</mixed-citation></ref>
  <ref id="R3"><mixed-citation>John Smith. 2001. Plain entry. Journal X, 4:10-12.</mixed-citation></ref>
 </ref-list></back>
</article>"#;

    #[test]
    fn reads_front_body_back_and_references() {
        let p = read_jats(ARTICLE.as_bytes()).unwrap();
        assert_eq!(p.title.as_deref(), Some("Crows in flocks"));
        assert_eq!(p.authors, vec!["Ana van Dam"]);
        assert_eq!(p.surnames, Some(vec!["van Dam".to_string()]));
        assert_eq!(p.abstract_text.as_deref(), Some("Background\nCrows flock.\nWe count them."));
        assert_eq!(p.keywords, vec!["Corvus", "flocks"]);
        let s = p.sections.as_ref().unwrap();
        let heads: Vec<(Option<&str>, Option<u8>)> =
            s.iter().map(|s| (s.heading.as_deref(), s.level)).collect();
        assert_eq!(
            heads,
            [
                (None, None),
                (Some("1 Intro"), Some(1)),
                (Some("1.1 Data"), Some(2)),
                (Some("Methods"), Some(1)),
                (Some("Acknowledgements"), Some(1)),
            ]
        );
        assert_eq!(s[0].text, "Before any section.");
        assert_eq!(
            s[1].text,
            "Crows gather [1] as Lee and Wu (2015) saw.\nC = a/b2 (1)\nSo it goes."
        );
        assert_eq!(s[2].text, "Table 1: Counts.\nSite N\nNorth 1,204\nSouth 98.5\nRounded.\nx = α");
        assert_eq!(p.tables, Some(vec!["North 1,204".to_string(), "South 98.5".to_string()]));
        assert_eq!(s[3].text, "Count.");
        let r = p.references.as_ref().unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].authors, vec!["Ann Lee", "Bo Wu"]);
        assert_eq!(r[0].surnames, Some(vec!["Lee".to_string(), "Wu".to_string()]));
        assert_eq!(r[0].title.as_deref(), Some("Flocks"));
        assert_eq!(r[0].venue.as_deref(), Some("J Birds"));
        assert_eq!(
            (r[0].volume.as_deref(), r[0].issue.as_deref(), r[0].first_page.as_deref()),
            (Some("12"), Some("3"), Some("45"))
        );
        assert_eq!(r[0].doi.as_deref(), Some("10.1000/xyz.1"));
        // A book: its source is its title; a group author has no surname.
        assert_eq!(r[1].title.as_deref(), Some("A book"));
        assert_eq!(r[1].venue, None);
        assert_eq!(r[1].authors, vec!["WHO"]);
        assert_eq!(r[1].year.as_deref(), Some("2010a"));
        // An untagged citation is parsed as an entry.
        assert_eq!(r[2].key(), Some(("smith".into(), "2001".into())));
        assert_eq!(r[2].title.as_deref(), Some("Plain entry"));
        // Both the numbered and the author-year citation are found.
        let cited: Vec<usize> = p.mentions.iter().map(|m| m.reference).collect();
        assert_eq!(cited, vec![0, 0]);
    }

    /// Issue 40: an organisation author printed as plain text in a `mixed-citation` is the
    /// author (keyed from its name, as the printed entry is); identifiers alone key nothing.
    #[test]
    fn r40_a_plain_text_organisation_author_is_the_author() {
        let p = read_jats(
            br#"<article><back><ref-list>
            <ref id="R1"><mixed-citation publication-type="other">World Health Organization. <source>Iron deficiency anaemia</source>. Geneva; <year>2001</year>.</mixed-citation></ref>
            <ref id="R2"><mixed-citation publication-type="journal"><pub-id pub-id-type="pmid">12345678</pub-id><year>2003</year></mixed-citation></ref>
            </ref-list></back></article>"#,
        )
        .unwrap();
        let r = p.references.as_ref().unwrap();
        assert_eq!(r[0].authors, ["World Health Organization"]);
        assert_eq!(r[0].key(), Some(("worldhealthorganization".into(), "2001".into())));
        let printed = "World Health Organization. Iron deficiency anaemia. Geneva; 2001.";
        assert_eq!(parse_reference(printed).key(), r[0].key());
        assert_eq!(r[1].key(), None);
    }

    #[test]
    fn rejects_other_xml() {
        let e = read_jats(b"<TEI/>").unwrap_err();
        assert_eq!(e.to_string(), "not a JATS article: root element is <TEI>");
        assert!(read_jats(b"<article").unwrap_err().to_string().starts_with("invalid XML"));
    }

    #[test]
    fn an_article_without_body_or_references_lacks_them() {
        let p = read_jats(
            b"<article><front><article-meta><title-group><article-title>T</article-title>\
              </title-group></article-meta></front></article>",
        )
        .unwrap();
        assert_eq!(p.title.as_deref(), Some("T"));
        assert!(p.sections.is_none() && p.references.is_none());
    }
}
