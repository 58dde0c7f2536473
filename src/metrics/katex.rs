//! KaTeX rendering for olmOCR-bench `math` tests: a [`MathRenderer`] backed by the `katex` npm
//! package under Node.js, reproducing the MathML half of olmOCR's comparison. Reference: PyPI
//! olmocr 0.4.27, `olmocr/bench/katex/render.py` (`render_equation`,
//! `compare_rendered_equations`) and `olmocr/bench/tests.py` (`MathTest`), with the KaTeX that
//! olmocr bundles (`bench/katex/katex.min.js`, KaTeX 0.16.21; `scripts/katex/package.json` pins
//! the same version, whose `dist/katex.min.js` is byte-identical to the bundled one).
//!
//! What the reference does. `render_equation(tex)` renders `tex` in headless Chromium with
//! `katex.render(tex, el, {displayMode: true, throwOnError: true})` and keeps the
//! `outerHTML` of `.katex-mathml math` plus every leaf `<span>` (no child element) whose text has
//! a non-whitespace character, with its trimmed text and bounding box. A KaTeX error does not
//! raise: it gives a render whose MathML is the error message and whose span list is empty (and
//! such a render is truthy, so neither the test's load nor the hypothesis loop skips it).
//! `compare_rendered_equations(reference, hypothesis)` is true when
//! 1. the reference's MathML "inner" is a substring of the hypothesis's. The inner is computed by
//!    `BeautifulSoup(mathml, "xml")`: the children of the first `<semantics>` other than
//!    `<annotation>`, each re-serialized by BeautifulSoup, concatenated (without `<semantics>`,
//!    the whole document re-serialized, which for an error message is just the XML declaration);
//!    then every `\s` character is removed. That needs lxml (olmocr's `bench` extra lists it).
//!    Without lxml, BeautifulSoup raises, the exception is caught, and the inner is the raw
//!    `outerHTML` of `<math>` (annotation included) with whitespace removed;
//! 2. or else the leaf-span glyphs match positionally: zero-width-space spans dropped,
//!    multi-character spans split into equal-width one-character boxes, and a backtracking search
//!    for an injective map from each reference glyph to a hypothesis glyph with the same text
//!    such that, for each direction (up/down/left/right: the nearest glyph whose centre is
//!    within 5 px on the other axis), the reference neighbour maps onto the hypothesis
//!    neighbour (or, if that neighbour is not assigned yet, the hypothesis neighbour carries the
//!    same text).
//!
//! What is reproduced here. Rendering: `scripts/katex/render.js` runs `katex.renderToString` with
//! the same options (default output, HTML and MathML); the markup describes the same DOM tree
//! that `katex.render` builds. Step 1 exactly, for both the lxml case ([`Normalization::Xml`])
//! and the lxml-less fallback ([`Normalization::RawHtml`]): the KaTeX markup is parsed
//! ([`parse_markup`]) and re-serialized the way Chromium's `outerHTML`, and then lxml plus
//! BeautifulSoup, would ([`mathml_key`]). That includes three quirks: KaTeX's markup writes a
//! `SpaceNode` (`\,`, `\;`, ...) as `<mtext>`, but its DOM (what the page holds) as a bare text
//! node; BeautifulSoup's lxml builder writes attributes sorted by name; and lxml (6.1.3, libxml2
//! 2.14.6) drops `&nbsp;` and, once it has met one, every later entity in text (`&amp;` `&lt;`
//! `&gt;`), which can empty an element into `<x/>`. On 1431 formulas (the sample's and
//! generated ones, 168 of them KaTeX errors) the keys, the glyphs and the errors equal
//! Chromium's (`bench/katex_reference.sh`). Step 2 exactly on boxes laid out by a browser
//! ([`positional_match`], pure; the boxes come from `crate::browser::BrowserKatex`, KaTeX in
//! headless Chromium as the runner renders), and otherwise only where it does not depend on
//! layout ([`compare`]): the glyph texts come from the DOM alone ([`glyphs`]), so a reference
//! without glyphs (for example a KaTeX error) matches any hypothesis, and a reference glyph
//! multiset that is not contained in the hypothesis's cannot match. When the multiset is
//! contained and no boxes are there, [`compare`] reports [`Comparison::NeedsLayout`]:
//! [`MathRenderer::matches`] counts it as no match and [`MathRenderer::decide`] says it is
//! undecided, so a suite can say which tests were decided without the browser.
//!
//! IO. [`KatexRenderer`] owns one long-lived `node` process (requests and replies are JSON lines)
//! and a cache of renders; everything else in this module is pure.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::olmocr::{py_isspace, MathRenderer};

/// The KaTeX version olmocr 0.4.27 bundles (and `scripts/katex/package.json` pins).
pub const KATEX_VERSION: &str = "0.16.21";

/// The command that installs the pinned KaTeX, relative to the project root.
pub const INSTALL_HINT: &str = "npm ci --prefix scripts/katex";

// ---------------------------------------------------------------------------------------------
// Markup tree
// ---------------------------------------------------------------------------------------------

/// A node of KaTeX's markup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// An element.
    Element(Element),
    /// A text node, entities decoded.
    Text(String),
}

/// An element with its attributes in source order (values decoded) and children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Tag name.
    pub name: String,
    /// Attributes as `(name, value)`.
    pub attrs: Vec<(String, String)>,
    /// Child nodes.
    pub children: Vec<Node>,
}

impl Element {
    /// The first element named `name` in document order (this element included).
    pub fn find(&self, name: &str) -> Option<&Element> {
        if self.name == name {
            return Some(self);
        }
        self.children.iter().find_map(|c| match c {
            Node::Element(e) => e.find(name),
            Node::Text(_) => None,
        })
    }
}

/// Decode the character references KaTeX's `utils.escape` writes (`&amp;` `&lt;` `&gt;`
/// `&quot;` `&#x27;`) and numeric references; anything else stays as written.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let decoded = rest.find(';').and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse::<u32>().ok()?,
                    };
                    char::from_u32(code)
                }
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')
}

/// Parse KaTeX's `renderToString` markup into a node list. The markup is well-formed apart from
/// `<img>` (void, and written with a stray `'`); this parser is lenient: `/>` closes an element,
/// `img` never has children, an end tag closes the nearest open element of that name (ignored if
/// there is none), unclosed elements are closed at the end, and a `<` that starts no tag is text.
pub fn parse_markup(markup: &str) -> Vec<Node> {
    fn attach(stack: &mut [Element], roots: &mut Vec<Node>, node: Node) {
        match stack.last_mut() {
            Some(top) => top.children.push(node),
            None => roots.push(node),
        }
    }
    let mut roots = Vec::new();
    let mut stack: Vec<Element> = Vec::new();
    let mut rest = markup;
    loop {
        let Some(lt) = rest.find('<') else {
            if !rest.is_empty() {
                attach(&mut stack, &mut roots, Node::Text(unescape(rest)));
            }
            break;
        };
        let after = &rest[lt + 1..];
        let closing = after.starts_with('/');
        let name_start = if closing { &after[1..] } else { after };
        let name_len = name_start.find(|c: char| !is_name_char(c)).unwrap_or(name_start.len());
        if name_len == 0 || !name_start.starts_with(|c: char| c.is_ascii_alphabetic()) {
            // Not a tag: the `<` is text.
            let text = &rest[..lt + 1];
            attach(&mut stack, &mut roots, Node::Text(unescape(text)));
            rest = after;
            continue;
        }
        if lt > 0 {
            attach(&mut stack, &mut roots, Node::Text(unescape(&rest[..lt])));
        }
        let name = name_start[..name_len].to_string();
        let mut tail = &name_start[name_len..];
        if closing {
            tail = tail.find('>').map_or("", |i| &tail[i + 1..]);
            if let Some(pos) = stack.iter().rposition(|e| e.name == name) {
                while stack.len() > pos {
                    // Invariant: `pos < stack.len()`, so the stack is not empty here.
                    let Some(el) = stack.pop() else { break };
                    attach(&mut stack, &mut roots, Node::Element(el));
                }
            }
            rest = tail;
            continue;
        }
        let mut attrs = Vec::new();
        let mut self_closing = false;
        loop {
            tail = tail.trim_start();
            if tail.is_empty() {
                break;
            }
            if let Some(t) = tail.strip_prefix("/>") {
                self_closing = true;
                tail = t;
                break;
            }
            if let Some(t) = tail.strip_prefix('>') {
                tail = t;
                break;
            }
            let an_len = tail
                .find(|c: char| c.is_whitespace() || matches!(c, '=' | '>' | '/' | '"' | '\''))
                .unwrap_or(tail.len());
            if an_len == 0 {
                // A stray character (KaTeX's `<img ...'/>`): skip it.
                let skip = tail.chars().next().map_or(0, char::len_utf8);
                tail = &tail[skip..];
                continue;
            }
            let an = tail[..an_len].to_string();
            tail = tail[an_len..].trim_start();
            let mut value = String::new();
            if let Some(t) = tail.strip_prefix('=') {
                let t = t.trim_start();
                if let Some(q) = t.chars().next().filter(|&c| c == '"' || c == '\'') {
                    let body = &t[1..];
                    let end = body.find(q).unwrap_or(body.len());
                    value = unescape(&body[..end]);
                    tail = body.get(end + 1..).unwrap_or("");
                } else {
                    let end = t.find(|c: char| c.is_whitespace() || c == '>').unwrap_or(t.len());
                    value = unescape(&t[..end]);
                    tail = &t[end..];
                }
            } else {
                tail = tail.trim_start();
            }
            attrs.push((an, value));
        }
        let el = Element { name, attrs, children: Vec::new() };
        if self_closing || el.name == "img" {
            attach(&mut stack, &mut roots, Node::Element(el));
        } else {
            stack.push(el);
        }
        rest = tail;
    }
    while let Some(el) = stack.pop() {
        attach(&mut stack, &mut roots, Node::Element(el));
    }
    roots
}

fn find_in<'a>(nodes: &'a [Node], name: &str) -> Option<&'a Element> {
    nodes.iter().find_map(|n| match n {
        Node::Element(e) => e.find(name),
        Node::Text(_) => None,
    })
}

// ---------------------------------------------------------------------------------------------
// MathML normalization (compare_rendered_equations, step 1)
// ---------------------------------------------------------------------------------------------

/// How `compare_rendered_equations` sees a render's MathML, which depends on the Python
/// environment of the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Normalization {
    /// lxml is installed (as olmocr's `bench` extra requires): the `<semantics>` children other
    /// than `<annotation>`, parsed by lxml and re-serialized by BeautifulSoup.
    #[default]
    Xml,
    /// lxml is missing: `BeautifulSoup(..., "xml")` raises, and the raw Chromium `outerHTML` of
    /// `<math>`, annotation included, is used.
    RawHtml,
}

/// The characters KaTeX's `SpaceNode` uses for the widths it knows (`\\,`, `\\:`, `\\;`, ...).
const SPACE_NODE_TEXTS: [&str; 8] = [
    "\u{200a}",
    "\u{2009}",
    "\u{2005}",
    "\u{2005}\u{200a}",
    "\u{200a}\u{2063}",
    "\u{2009}\u{2063}",
    "\u{205f}\u{2063}",
    "\u{2005}\u{2063}",
];

/// A `SpaceNode` with a character: `toMarkup` writes `<mtext>` + the character, but `toNode`
/// (what `katex.render` puts in the page) makes a bare text node. Returns that text.
fn space_node_text(el: &Element) -> Option<&str> {
    if el.name != "mtext" || !el.attrs.is_empty() {
        return None;
    }
    match el.children.as_slice() {
        [Node::Text(t)] if SPACE_NODE_TEXTS.contains(&t.as_str()) => Some(t),
        _ => None,
    }
}

/// Chromium's `outerHTML` escaping of a text node: `&`, U+00A0, `<`, `>`.
fn html_text(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
}

/// Chromium's (version 138 and later) attribute-value escaping: `&`, U+00A0, `"`, `<`, `>`.
fn html_attr(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
}

/// `outerHTML` of a MathML element: every element gets an end tag (no MathML element is void).
fn outer_html(el: &Element, out: &mut String) {
    out.push('<');
    out.push_str(&el.name);
    for (k, v) in &el.attrs {
        out.push(' ');
        out.push_str(k);
        out.push_str("=\"");
        html_attr(v, out);
        out.push('"');
    }
    out.push('>');
    for c in &el.children {
        match c {
            Node::Element(e) => match space_node_text(e) {
                Some(t) => html_text(t, out),
                None => outer_html(e, out),
            },
            Node::Text(t) => html_text(t, out),
        }
    }
    out.push_str("</");
    out.push_str(&el.name);
    out.push('>');
}

/// BeautifulSoup's "minimal" escaping: `&`, `<`, `>`.
fn soup_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
}

/// What lxml (6.1.3, libxml2 2.14.6, recovering parser) keeps of Chromium's serialization, read
/// in document order. `&nbsp;` is not an XML entity: it is dropped, and from then on the document
/// is not well-formed, after which every entity reference in text content is dropped as well
/// (`&amp;`, `&lt;`, `&gt;`: Chromium writes `&`, `<`, `>` in text that way). Attribute values
/// keep decoding normally. Checked against BeautifulSoup 4.15.0 + lxml 6.1.3.
#[derive(Default)]
struct Lxml {
    /// An undefined entity has been met.
    broken: bool,
}

impl Lxml {
    fn attr(&mut self, v: &str) -> String {
        if v.contains('\u{a0}') {
            self.broken = true;
        }
        v.chars().filter(|&c| c != '\u{a0}').collect()
    }

    fn text(&mut self, t: &str) -> String {
        let mut out = String::with_capacity(t.len());
        for c in t.chars() {
            match c {
                '\u{a0}' => self.broken = true,
                '&' | '<' | '>' if self.broken => {}
                _ => out.push(c),
            }
        }
        out
    }

    /// `str(tag)` for the lxml-parsed form of `el`: attributes sorted by name (BeautifulSoup's
    /// lxml XML builder hands them over sorted); an element without children is written
    /// `<name/>`; attribute values are double-quoted, or single-quoted when they hold `"` but
    /// no `'`.
    fn serialize(&mut self, el: &Element, out: &mut String) {
        out.push('<');
        out.push_str(&el.name);
        // Decode in source order (the state is positional), write sorted.
        let mut attrs: Vec<(&str, String)> =
            el.attrs.iter().map(|(k, v)| (k.as_str(), self.attr(v))).collect();
        attrs.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in attrs {
            let mut escaped = String::new();
            soup_escape(&v, &mut escaped);
            out.push(' ');
            out.push_str(k);
            out.push('=');
            if escaped.contains('"') {
                if escaped.contains('\'') {
                    out.push('"');
                    out.push_str(&escaped.replace('"', "&quot;"));
                    out.push('"');
                } else {
                    out.push('\'');
                    out.push_str(&escaped);
                    out.push('\'');
                }
            } else {
                out.push('"');
                out.push_str(&escaped);
                out.push('"');
            }
        }
        let mut inner = String::new();
        let mut empty = true;
        for c in &el.children {
            let text = match c {
                Node::Element(e) => match space_node_text(e) {
                    Some(t) => t,
                    None => {
                        empty = false;
                        self.serialize(e, &mut inner);
                        continue;
                    }
                },
                Node::Text(t) => t.as_str(),
            };
            let t = self.text(text);
            if !t.is_empty() {
                empty = false;
                soup_escape(&t, &mut inner);
            }
        }
        if empty {
            out.push_str("/>");
            return;
        }
        out.push('>');
        out.push_str(&inner);
        out.push_str("</");
        out.push_str(&el.name);
        out.push('>');
    }
}

/// `re.sub(r"\s+", "", s)` with Python's (Unicode) `\s`.
pub fn strip_whitespace(s: &str) -> String {
    s.chars().filter(|&c| !py_isspace(c)).collect()
}

/// The XML declaration BeautifulSoup writes for a document, whitespace removed.
const SOUP_EMPTY_DOC: &str = "<?xmlversion=\"1.0\"encoding=\"utf-8\"?>";

/// The normalized MathML "inner" of a successful render (`normalize(extract_inner(mathml))`),
/// from KaTeX's markup (the whole `renderToString` output, or just its `<math>`).
pub fn mathml_key(markup: &str, mode: Normalization) -> String {
    let nodes = parse_markup(markup);
    let Some(math) = find_in(&nodes, "math") else {
        return match mode {
            Normalization::Xml => SOUP_EMPTY_DOC.to_string(),
            Normalization::RawHtml => String::new(),
        };
    };
    let mut out = String::new();
    match mode {
        Normalization::RawHtml => outer_html(math, &mut out),
        Normalization::Xml => {
            let mut lxml = Lxml::default();
            match math.find("semantics") {
                // (`<math>`'s and `<semantics>`'s own attributes never hold U+00A0 in KaTeX's
                // output, so the lxml state starts clean at the first child.)
                Some(sem) => {
                    for c in &sem.children {
                        match c {
                            Node::Element(e) if e.name == "annotation" => {
                                lxml.serialize(e, &mut String::new());
                            }
                            Node::Element(e) => lxml.serialize(e, &mut out),
                            Node::Text(t) => soup_escape(&lxml.text(t), &mut out),
                        }
                    }
                }
                None => {
                    out.push_str(SOUP_EMPTY_DOC);
                    lxml.serialize(math, &mut out);
                }
            }
        }
    }
    strip_whitespace(&out)
}

/// The normalized "inner" of a failed render, whose MathML is the error message: with lxml, an
/// XML parse of plain text yields an empty document (the declaration only); without, the
/// message itself. (A message holding something that lxml reads as a tag is not modelled.)
pub fn error_key(message: &str, mode: Normalization) -> String {
    match mode {
        Normalization::Xml => SOUP_EMPTY_DOC.to_string(),
        Normalization::RawHtml => strip_whitespace(message),
    }
}

// ---------------------------------------------------------------------------------------------
// Glyphs (compare_rendered_equations, step 2, layout-free part)
// ---------------------------------------------------------------------------------------------

/// JavaScript's `\s` / `String.prototype.trim` whitespace.
fn js_isspace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The texts of the leaf spans that `render_equation` records, in document order: every
/// `<span>` without child elements whose text has a non-whitespace character, trimmed.
pub fn glyphs(markup: &str) -> Vec<String> {
    fn walk(nodes: &[Node], out: &mut Vec<String>) {
        for n in nodes {
            let Node::Element(e) = n else { continue };
            if e.name == "span" && !e.children.iter().any(|c| matches!(c, Node::Element(_))) {
                let text: String = e
                    .children
                    .iter()
                    .filter_map(|c| match c {
                        Node::Text(t) => Some(t.as_str()),
                        Node::Element(_) => None,
                    })
                    .collect();
                if text.chars().any(|c| !js_isspace(c)) {
                    out.push(text.trim_matches(js_isspace).to_string());
                }
            }
            walk(&e.children, out);
        }
    }
    let mut out = Vec::new();
    walk(&parse_markup(markup), &mut out);
    out
}

/// The one-character glyphs the positional comparison works on: spans that are exactly U+200B
/// dropped, the rest split into characters.
pub fn positional_chars(glyphs: &[String]) -> Vec<char> {
    glyphs.iter().filter(|g| g.as_str() != "\u{200b}").flat_map(|g| g.chars()).collect()
}

/// A render as `compare_rendered_equations` sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct KatexRender {
    /// The normalized MathML inner ([`mathml_key`] or [`error_key`]).
    pub key: String,
    /// The positional glyphs ([`positional_chars`]); empty for an error.
    pub chars: Vec<char>,
    /// KaTeX's error message, if it rejected the formula.
    pub error: Option<String>,
    /// The inner-most spans with their boxes as the browser laid them out (`render_equation`'s
    /// `spans`), when rendered in a browser; `None` when rendered without one (no layout).
    pub boxes: Option<Vec<SpanBox>>,
}

/// An inner-most `<span>` of KaTeX's HTML in the page: its trimmed text and its
/// `getBoundingClientRect()` (CSS pixels, viewport coordinates).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanBox {
    /// The span's text, trimmed.
    pub text: String,
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// One glyph of the positional comparison: a character and its box.
#[derive(Debug, Clone, Copy, PartialEq)]
struct GlyphBox {
    c: char,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

/// `expand_span_info` over a render's spans after dropping the spans that are exactly U+200B:
/// each span split into one box per character (Python's `len` counts code points), of equal
/// width, in order.
fn expand_spans(spans: &[SpanBox]) -> Vec<GlyphBox> {
    let mut out = Vec::new();
    for s in spans.iter().filter(|s| s.text != "\u{200b}") {
        let total = s.text.chars().count() as f64;
        for (index, c) in s.text.chars().enumerate() {
            out.push(GlyphBox {
                c,
                x: s.x + (s.width * index as f64) / total,
                y: s.y,
                width: s.width / total,
                height: s.height,
            });
        }
    }
    out
}

/// Neighbour tolerance of `compute_neighbors`, in pixels.
const NEIGHBOR_TOLERANCE: f64 = 5.0;

/// `compute_neighbors(spans, tol=5)`: per glyph, the nearest other glyph (by centre) above,
/// below, to the left and to the right whose centre is within `tol` on the other axis; the first
/// one met wins a tie. Order: up, down, left, right.
fn neighbors(glyphs: &[GlyphBox]) -> Vec<[Option<usize>; 4]> {
    let centre = |g: &GlyphBox| (g.x + g.width / 2.0, g.y + g.height / 2.0);
    glyphs
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let (cx, cy) = centre(g);
            let mut best: [Option<(usize, f64)>; 4] = [None; 4];
            let mut offer = |slot: usize, j: usize, dist: f64| {
                if best[slot].is_none_or(|(_, d)| dist < d) {
                    best[slot] = Some((j, dist));
                }
            };
            for (j, o) in glyphs.iter().enumerate() {
                if i == j {
                    continue;
                }
                let (ocx, ocy) = centre(o);
                if ocy < cy && (ocx - cx).abs() <= NEIGHBOR_TOLERANCE {
                    offer(0, j, cy - ocy);
                }
                if ocy > cy && (ocx - cx).abs() <= NEIGHBOR_TOLERANCE {
                    offer(1, j, ocy - cy);
                }
                if ocx < cx && (ocy - cy).abs() <= NEIGHBOR_TOLERANCE {
                    offer(2, j, cx - ocx);
                }
                if ocx > cx && (ocy - cy).abs() <= NEIGHBOR_TOLERANCE {
                    offer(3, j, ocx - cx);
                }
            }
            best.map(|b| b.map(|(j, _)| j))
        })
        .collect()
}

/// Step 2 of `compare_rendered_equations` on laid-out spans: after [`expand_spans`], is there an
/// injective assignment of every reference glyph to a hypothesis glyph with the same character
/// such that, in each direction where the reference glyph has a neighbour, the hypothesis glyph
/// has one too, and it is the image of the reference neighbour when that neighbour comes earlier
/// (is assigned already), else a glyph with the neighbour's character. Searched as the runner
/// does: reference glyphs in order, candidates in order, backtracking (exponential in the worst
/// case, as there).
pub fn positional_match(reference: &[SpanBox], hypothesis: &[SpanBox]) -> bool {
    let h = expand_spans(reference);
    let r = expand_spans(hypothesis);
    let mut candidates = Vec::with_capacity(h.len());
    for g in &h {
        let c: Vec<usize> = (0..r.len()).filter(|&j| r[j].c == g.c).collect();
        if c.is_empty() {
            return false;
        }
        candidates.push(c);
    }
    let hn = neighbors(&h);
    let rn = neighbors(&r);
    let mut search = Search {
        h: &h,
        r: &r,
        hn: &hn,
        rn: &rn,
        candidates: &candidates,
        used: vec![false; r.len()],
        assignment: vec![None; h.len()],
    };
    search.backtrack(0)
}

/// The backtracking state of [`positional_match`].
struct Search<'a> {
    h: &'a [GlyphBox],
    r: &'a [GlyphBox],
    hn: &'a [[Option<usize>; 4]],
    rn: &'a [[Option<usize>; 4]],
    candidates: &'a [Vec<usize>],
    used: Vec<bool>,
    assignment: Vec<Option<usize>>,
}

impl Search<'_> {
    fn valid(&self, i: usize, cand: usize) -> bool {
        for dir in 0..4 {
            let Some(h_nb) = self.hn[i][dir] else { continue };
            let Some(r_nb) = self.rn[cand][dir] else { return false };
            match self.assignment[h_nb] {
                Some(assigned) => {
                    if assigned != r_nb {
                        return false;
                    }
                }
                None => {
                    if self.r[r_nb].c != self.h[h_nb].c {
                        return false;
                    }
                }
            }
        }
        true
    }

    fn backtrack(&mut self, i: usize) -> bool {
        if i == self.h.len() {
            return true;
        }
        for k in 0..self.candidates[i].len() {
            let cand = self.candidates[i][k];
            if self.used[cand] {
                continue;
            }
            self.assignment[i] = Some(cand);
            self.used[cand] = true;
            if self.valid(i, cand) && self.backtrack(i + 1) {
                return true;
            }
            self.used[cand] = false;
            self.assignment[i] = None;
        }
        false
    }
}

impl KatexRender {
    /// Build a render from `render.js`'s reply: KaTeX's markup, or its error message.
    pub fn from_reply(reply: Result<&str, &str>, mode: Normalization) -> KatexRender {
        match reply {
            Ok(markup) => KatexRender {
                key: mathml_key(markup, mode),
                chars: positional_chars(&glyphs(markup)),
                error: None,
                boxes: None,
            },
            Err(message) => KatexRender {
                key: error_key(message, mode),
                chars: Vec::new(),
                error: Some(message.to_string()),
                boxes: None,
            },
        }
    }

    /// Build a render from what the browser extracted (`render_equation`'s result): the
    /// `outerHTML` of `<math>` and the inner-most spans with their boxes, or KaTeX's error
    /// message (whose render has no spans).
    pub fn from_browser(
        reply: Result<(&str, Vec<SpanBox>), &str>,
        mode: Normalization,
    ) -> KatexRender {
        match reply {
            Ok((mathml, spans)) => {
                let texts: Vec<String> = spans.iter().map(|s| s.text.clone()).collect();
                KatexRender {
                    key: mathml_key(mathml, mode),
                    chars: positional_chars(&texts),
                    error: None,
                    boxes: Some(spans),
                }
            }
            Err(message) => KatexRender {
                key: error_key(message, mode),
                chars: Vec::new(),
                error: Some(message.to_string()),
                boxes: Some(Vec::new()),
            },
        }
    }
}

/// How [`compare`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// Step 1: the reference's MathML inner is a substring of the hypothesis's (match).
    MathmlContained,
    /// Step 2 with no reference glyph: the backtracking succeeds at once (match).
    NoReferenceGlyphs,
    /// Step 2 cannot succeed: some reference glyph has no distinct same-text hypothesis glyph
    /// (no match).
    GlyphsMissing,
    /// Step 2 on the browser's boxes: the glyphs match positionally (match).
    LayoutMatch,
    /// Step 2 on the browser's boxes: no positional assignment exists (no match).
    LayoutMismatch,
    /// Step 2 depends on the browser's glyph boxes, which a render without a browser lacks
    /// (counted as no match; the runner may pass it).
    NeedsLayout,
}

impl Comparison {
    /// Whether this counts as a match here.
    pub fn matched(self) -> bool {
        matches!(
            self,
            Comparison::MathmlContained | Comparison::NoReferenceGlyphs | Comparison::LayoutMatch
        )
    }

    /// `Some(matched)`, or `None` when undecided ([`Comparison::NeedsLayout`]).
    pub fn decided(self) -> Option<bool> {
        match self {
            Comparison::NeedsLayout => None,
            c => Some(c.matched()),
        }
    }
}

/// `compare_rendered_equations(reference, hypothesis)`: exact when both renders carry the
/// browser's boxes, else as far as it goes without layout ([`Comparison::NeedsLayout`]).
pub fn compare(reference: &KatexRender, hypothesis: &KatexRender) -> Comparison {
    if hypothesis.key.contains(&reference.key) {
        return Comparison::MathmlContained;
    }
    if reference.chars.is_empty() {
        return Comparison::NoReferenceGlyphs;
    }
    let mut available: HashMap<char, usize> = HashMap::new();
    for &c in &hypothesis.chars {
        *available.entry(c).or_default() += 1;
    }
    let mut needed: HashMap<char, usize> = HashMap::new();
    for &c in &reference.chars {
        *needed.entry(c).or_default() += 1;
    }
    if needed.iter().any(|(c, n)| available.get(c).copied().unwrap_or(0) < *n) {
        return Comparison::GlyphsMissing;
    }
    match (&reference.boxes, &hypothesis.boxes) {
        (Some(r), Some(h)) if positional_match(r, h) => Comparison::LayoutMatch,
        (Some(_), Some(_)) => Comparison::LayoutMismatch,
        _ => Comparison::NeedsLayout,
    }
}

// ---------------------------------------------------------------------------------------------
// The node process
// ---------------------------------------------------------------------------------------------

/// Why the renderer could not start or answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KatexError {
    /// The `node` executable could not be started.
    NodeMissing(String),
    /// The script or the katex package is missing or does not load.
    KatexMissing(String),
    /// The node process died or answered something unexpected.
    Protocol(String),
}

impl fmt::Display for KatexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KatexError::NodeMissing(why) => write!(
                f,
                "cannot run node ({why}); install Node.js (20 or later), then run `{INSTALL_HINT}`"
            ),
            KatexError::KatexMissing(why) => {
                write!(
                    f,
                    "KaTeX is not available ({why}); run `{INSTALL_HINT}` in the project root"
                )
            }
            KatexError::Protocol(why) => write!(f, "KaTeX renderer failed: {why}"),
        }
    }
}

impl std::error::Error for KatexError {}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    markup: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    ready: bool,
    #[serde(default)]
    katex: Option<String>,
    #[serde(default)]
    fatal: Option<String>,
}

struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Process {
    fn read_reply(&mut self) -> Result<Reply, KatexError> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err(KatexError::Protocol("node exited".to_string())),
            Ok(_) => serde_json::from_str(&line)
                .map_err(|e| KatexError::Protocol(format!("bad reply {line:?}: {e}"))),
            Err(e) => Err(KatexError::Protocol(format!("reading from node: {e}"))),
        }
    }

    fn request(&mut self, tex: &str) -> Result<Reply, KatexError> {
        let msg = serde_json::json!({ "tex": tex }).to_string();
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| KatexError::Protocol("node's stdin is closed".to_string()))?;
        writeln!(stdin, "{msg}")
            .and_then(|()| stdin.flush())
            .map_err(|e| KatexError::Protocol(format!("writing to node: {e}")))?;
        self.read_reply()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // Closing stdin ends render.js's read loop; then reap the child.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

struct State {
    process: Process,
    cache: HashMap<String, Arc<KatexRender>>,
    failure: Option<KatexError>,
}

/// A [`MathRenderer`] that renders with KaTeX in one long-lived `node` process running
/// `scripts/katex/render.js`, caching renders by formula.
pub struct KatexRenderer {
    state: Mutex<State>,
    mode: Normalization,
    version: String,
}

impl fmt::Debug for KatexRenderer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KatexRenderer")
            .field("mode", &self.mode)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl KatexRenderer {
    /// The folder holding `render.js` and `node_modules/katex` in this source tree.
    pub fn default_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join("katex")
    }

    /// Start `node` (from `PATH`) on `dir/render.js`, with the lxml normalization.
    pub fn start(dir: &Path) -> Result<KatexRenderer, KatexError> {
        KatexRenderer::start_with(Path::new("node"), dir, Normalization::Xml)
    }

    /// Start the given `node` executable on `dir/render.js` with the given normalization.
    pub fn start_with(
        node: &Path,
        dir: &Path,
        mode: Normalization,
    ) -> Result<KatexRenderer, KatexError> {
        let script = dir.join("render.js");
        if !script.is_file() {
            return Err(KatexError::KatexMissing(format!("{} not found", script.display())));
        }
        let package = dir.join("node_modules").join("katex").join("package.json");
        if !package.is_file() {
            return Err(KatexError::KatexMissing(format!("{} not found", package.display())));
        }
        let mut child = Command::new(node)
            .arg(&script)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| KatexError::NodeMissing(format!("{}: {e}", node.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(KatexError::Protocol("no pipes to node".to_string()));
        };
        let mut process = Process { child, stdin: Some(stdin), stdout: BufReader::new(stdout) };
        let hello = process.read_reply()?;
        if let Some(fatal) = hello.fatal {
            return Err(KatexError::KatexMissing(fatal));
        }
        let version = match (hello.ready, hello.katex) {
            (true, Some(v)) => v,
            _ => return Err(KatexError::Protocol("no handshake from render.js".to_string())),
        };
        Ok(KatexRenderer {
            state: Mutex::new(State { process, cache: HashMap::new(), failure: None }),
            mode,
            version,
        })
    }

    /// The KaTeX version the node process loaded.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The normalization in use.
    pub fn normalization(&self) -> Normalization {
        self.mode
    }

    /// Render `tex` (cached). A KaTeX error is a successful call whose render has `error` set;
    /// `Err` means the node process failed.
    pub fn render_checked(&self, tex: &str) -> Result<Arc<KatexRender>, KatexError> {
        let mut state = self.state.lock().map_err(|_| KatexError::Protocol("poisoned".into()))?;
        if let Some(r) = state.cache.get(tex) {
            return Ok(Arc::clone(r));
        }
        let reply = state.process.request(tex)?;
        let render = match (reply.markup, reply.error) {
            (Some(m), _) => KatexRender::from_reply(Ok(&m), self.mode),
            (None, Some(e)) => KatexRender::from_reply(Err(&e), self.mode),
            (None, None) => return Err(KatexError::Protocol("empty reply".to_string())),
        };
        let render = Arc::new(render);
        state.cache.insert(tex.to_string(), Arc::clone(&render));
        Ok(render)
    }

    /// The first process failure met by [`MathRenderer::render`] (which can only answer
    /// `None`), if any. A caller should check it after scoring.
    pub fn failure(&self) -> Option<KatexError> {
        self.state.lock().ok().and_then(|s| s.failure.clone())
    }

    /// Number of distinct formulas rendered so far.
    pub fn cached(&self) -> usize {
        self.state.lock().map_or(0, |s| s.cache.len())
    }
}

impl MathRenderer for KatexRenderer {
    type Rendered = Arc<KatexRender>;

    /// Always `Some` while node works, KaTeX errors included (olmocr 0.4.27's `render_equation`
    /// never returns `None`); `None` after a process failure (see [`KatexRenderer::failure`]).
    fn render(&self, latex: &str) -> Option<Arc<KatexRender>> {
        match self.render_checked(latex) {
            Ok(r) => Some(r),
            Err(e) => {
                if let Ok(mut s) = self.state.lock() {
                    s.failure.get_or_insert(e);
                }
                None
            }
        }
    }

    fn matches(&self, reference: &Arc<KatexRender>, hypothesis: &Arc<KatexRender>) -> bool {
        compare(reference, hypothesis).matched()
    }

    fn decide(&self, reference: &Arc<KatexRender>, hypothesis: &Arc<KatexRender>) -> Option<bool> {
        compare(reference, hypothesis).decided()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(name: &str, attrs: &[(&str, &str)], children: Vec<Node>) -> Node {
        Node::Element(Element {
            name: name.into(),
            attrs: attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            children,
        })
    }
    fn text(s: &str) -> Node {
        Node::Text(s.into())
    }

    #[test]
    fn parses_katex_markup() {
        let m = r#"<span class ="a&amp;b"><mi x='1'>&lt;&#x27;&quot;&#955;&foo;</mi><mspace width="1em"/>t</span>"#;
        assert_eq!(
            parse_markup(m),
            vec![el(
                "span",
                &[("class", "a&b")],
                vec![
                    el("mi", &[("x", "1")], vec![text("<'\"λ&foo;")]),
                    el("mspace", &[("width", "1em")], vec![]),
                    text("t"),
                ]
            )]
        );
        // KaTeX's <img> markup (void, stray quote), a stray '<', and an unclosed element.
        let m = r#"<span><img src="a.png" alt="x" style="width:1em;"'/>b < c<i>d"#;
        assert_eq!(
            parse_markup(m),
            vec![el(
                "span",
                &[],
                vec![
                    el("img", &[("src", "a.png"), ("alt", "x"), ("style", "width:1em;")], vec![]),
                    text("b <"),
                    text(" c"),
                    el("i", &[], vec![text("d")]),
                ]
            )]
        );
        // An end tag without a matching start is ignored.
        assert_eq!(parse_markup("a</b>c"), vec![text("a"), text("c")]);
    }

    const MATH: &str = "<math xmlns=\"http://www.w3.org/1998/Math/MathML\" display=\"block\">\
        <semantics><mrow><mtext>a\u{a0}b</mtext><mtext>\u{a0}</mtext><mi mathvariant=\"x&quot;y\">\
        &amp;</mi><mspace width=\"1em\"/></mrow>\
        <annotation encoding=\"application/x-tex\">\\text{a b}\\ </annotation></semantics></math>";

    #[test]
    fn xml_normalization_matches_lxml_and_beautifulsoup() {
        // Checked against BeautifulSoup 4.15 + lxml 6.1 on Chromium's serialization of the same
        // tree: nbsp dropped (an `&nbsp;`-only mtext becomes empty, hence `<mtext/>`), so is the
        // later `&amp;` (see `Lxml`), `"` in an attribute switches to single quotes, empty
        // elements self-close, annotation dropped.
        assert_eq!(
            mathml_key(MATH, Normalization::Xml),
            "<mrow><mtext>ab</mtext><mtext/><mimathvariant='x\"y'/><mspacewidth=\"1em\"/></mrow>"
        );
        // Attributes come out sorted; a SpaceNode's <mtext> is a bare text node in the page
        // (U+2009, whitespace to Python), a real one with an attribute is kept (and, holding
        // a non-nbsp character, is not empty for lxml).
        let sorted =
            "<math><semantics><mrow><mo mathvariant=\"normal\" lspace=\"0em\">\u{2032}</mo>\
            <mtext>\u{2009}</mtext><mtext>\u{2009}\u{2063}</mtext><mtext a=\"1\">\u{2009}</mtext>\
            </mrow></semantics></math>";
        assert_eq!(
            mathml_key(sorted, Normalization::Xml),
            "<mrow><molspace=\"0em\"mathvariant=\"normal\">\u{2032}</mo>\u{2063}<mtexta=\"1\"></mtext></mrow>"
        );
        assert_eq!(
            mathml_key(sorted, Normalization::RawHtml),
            "<math><semantics><mrow><momathvariant=\"normal\"lspace=\"0em\">\u{2032}</mo>\u{2063}\
             <mtexta=\"1\"></mtext></mrow></semantics></math>"
        );
        // After the first nbsp (text or attribute), entity-escaped text characters vanish;
        // attribute values still decode. (Checked with lxml 6.1.3 on Chromium's serialization.)
        let broken = "<math><semantics><mrow><mo>&lt;</mo><mtext>a\u{a0}</mtext><mo>&lt;</mo>\
            <mi>a&amp;b</mi><mi x=\"p&amp;q\">&gt;&gt;</mi></mrow></semantics></math>";
        assert_eq!(
            mathml_key(broken, Normalization::Xml),
            "<mrow><mo>&lt;</mo><mtext>a</mtext><mo/><mi>ab</mi><mix=\"p&amp;q\"/></mrow>"
        );
        let by_attr = "<math><semantics><mrow><mi x=\"a\u{a0}b\">1</mi><mo>&lt;</mo>\
            </mrow></semantics></math>";
        assert_eq!(mathml_key(by_attr, Normalization::Xml), "<mrow><mix=\"ab\">1</mi><mo/></mrow>");
        let both = r#"<math><semantics><mi a="p&quot;q&#x27;r">x</mi></semantics></math>"#;
        assert_eq!(mathml_key(both, Normalization::Xml), "<mia=\"p&quot;q'r\">x</mi>");
        // No <semantics>: the whole document, after the XML declaration.
        assert_eq!(
            mathml_key("<math><mi>a</mi></math>", Normalization::Xml),
            "<?xmlversion=\"1.0\"encoding=\"utf-8\"?><math><mi>a</mi></math>"
        );
    }

    #[test]
    fn raw_normalization_matches_chromium_outer_html() {
        assert_eq!(
            mathml_key(MATH, Normalization::RawHtml),
            "<mathxmlns=\"http://www.w3.org/1998/Math/MathML\"display=\"block\"><semantics><mrow>\
             <mtext>a&nbsp;b</mtext><mtext>&nbsp;</mtext><mimathvariant=\"x&quot;y\">&amp;</mi>\
             <mspacewidth=\"1em\"></mspace></mrow><annotationencoding=\"application/x-tex\">\
             \\text{ab}\\</annotation></semantics></math>"
        );
    }

    #[test]
    fn error_keys() {
        let msg = "KaTeX parse error: Undefined control sequence: \\foo at position 1";
        assert_eq!(error_key(msg, Normalization::Xml), "<?xmlversion=\"1.0\"encoding=\"utf-8\"?>");
        assert_eq!(
            error_key(msg, Normalization::RawHtml),
            "KaTeXparseerror:Undefinedcontrolsequence:\\fooatposition1"
        );
    }

    #[test]
    fn python_whitespace() {
        assert_eq!(strip_whitespace(" a\u{a0}b\u{1c}c\u{200b}d\u{3000}\n"), "abc\u{200b}d");
    }

    #[test]
    fn glyph_extraction() {
        let m = "<span class=\"katex\"><span class=\"katex-mathml\"><math><mi>q</mi></math></span>\
            <span class=\"strut\"></span><span class=\"mord\"> x\u{a0}</span>\
            <span class=\"mord\">i\u{3c0}<span>z</span></span><span>\u{200b}</span>\
            <span>\u{a0}</span><span>ab</span></span>";
        assert_eq!(glyphs(m), vec!["x", "z", "\u{200b}", "ab"]);
        assert_eq!(positional_chars(&glyphs(m)), vec!['x', 'z', 'a', 'b']);
    }

    fn render(key: &str, chars: &str) -> KatexRender {
        KatexRender { key: key.into(), chars: chars.chars().collect(), error: None, boxes: None }
    }

    #[test]
    fn comparison_steps() {
        // Reference inner must be a substring of the hypothesis inner, not the other way.
        assert_eq!(compare(&render("<mi>a</mi>", "a"), &render("<mrow><mi>a</mi></mrow>", "b")), {
            Comparison::MathmlContained
        });
        assert_eq!(
            compare(&render("<mrow><mi>a</mi></mrow>", "a"), &render("<mi>a</mi>", "b")),
            Comparison::GlyphsMissing
        );
        // Glyph multiset: two 'a's needed, one available.
        assert_eq!(compare(&render("r", "aab"), &render("h", "abc")), Comparison::GlyphsMissing);
        assert_eq!(compare(&render("r", "aab"), &render("h", "cbaa")), Comparison::NeedsLayout);
        assert!(!Comparison::NeedsLayout.matched());
        // A reference without glyphs (an error render) matches anything.
        let err = KatexRender::from_reply(Err("KaTeX parse error: x"), Normalization::Xml);
        assert!(err.chars.is_empty());
        assert_eq!(compare(&err, &render("h", "")), Comparison::NoReferenceGlyphs);
        // Two error renders share the XML-declaration key; a good reference vs an error
        // hypothesis fails.
        let err2 = KatexRender::from_reply(Err("other"), Normalization::Xml);
        assert_eq!(compare(&err, &err2), Comparison::MathmlContained);
        assert_eq!(compare(&render("<mi>a</mi>", "a"), &err2), Comparison::GlyphsMissing);
    }

    fn sb(text: &str, x: f64, y: f64, width: f64, height: f64) -> SpanBox {
        SpanBox { text: text.into(), x, y, width, height }
    }

    /// `a = b` on one line: three 10x10 glyphs 20 px apart.
    fn line(texts: [&str; 3]) -> Vec<SpanBox> {
        texts.iter().enumerate().map(|(i, t)| sb(t, 20.0 * i as f64, 0.0, 10.0, 10.0)).collect()
    }

    #[test]
    fn expansion_and_neighbours() {
        // "ab" of width 20 splits into two 10-wide boxes; a U+200B span is dropped, but a span
        // holding U+200B with something else is split like any other.
        let g = expand_spans(&[
            sb("ab", 0.0, 0.0, 20.0, 10.0),
            sb("\u{200b}", 5.0, 5.0, 1.0, 1.0),
            sb("c\u{200b}", 40.0, 0.0, 8.0, 10.0),
        ]);
        let got: Vec<(char, f64, f64)> = g.iter().map(|b| (b.c, b.x, b.width)).collect();
        assert_eq!(
            got,
            vec![('a', 0.0, 10.0), ('b', 10.0, 10.0), ('c', 40.0, 4.0), ('\u{200b}', 44.0, 4.0)]
        );
        // A fraction x/y with a bar-less stack: x above y (centres 4 px apart horizontally, within
        // the 5 px tolerance), z to the right of x only.
        let g = expand_spans(&[
            sb("x", 0.0, 0.0, 10.0, 10.0),
            sb("y", 4.0, 20.0, 10.0, 10.0),
            sb("z", 30.0, 2.0, 10.0, 10.0),
        ]);
        let n = neighbors(&g);
        assert_eq!(n[0], [None, Some(1), None, Some(2)]);
        assert_eq!(n[1], [Some(0), None, None, None]);
        assert_eq!(n[2], [None, None, Some(0), None]);
        // 6 px off is no longer a neighbour; on a tie in distance the first glyph wins.
        let g = expand_spans(&[
            sb("x", 0.0, 0.0, 10.0, 10.0),
            sb("y", 6.0, 20.0, 10.0, 10.0),
            sb("p", 20.0, 0.0, 10.0, 10.0),
            sb("q", 20.0, 0.0, 10.0, 10.0),
        ]);
        assert_eq!(neighbors(&g)[0], [None, None, None, Some(2)]);
    }

    #[test]
    fn positional_comparison_on_hand_built_boxes() {
        let r = line(["a", "=", "b"]);
        // Same glyphs in the same arrangement anywhere on the page: a match.
        let moved: Vec<SpanBox> =
            r.iter().map(|s| SpanBox { x: s.x + 300.0, y: s.y + 7.0, ..s.clone() }).collect();
        assert!(positional_match(&r, &moved));
        // The reference embedded in a longer hypothesis "c + a = b": a match (extra glyphs
        // only matter where they are someone's neighbour).
        let longer: Vec<SpanBox> = ["c", "+", "a", "=", "b"]
            .iter()
            .enumerate()
            .map(|(i, t)| sb(t, 20.0 * i as f64, 0.0, 10.0, 10.0))
            .collect();
        assert!(positional_match(&r, &longer));
        // Swapped sides: every glyph exists, but a's right neighbour is not '='.
        assert!(!positional_match(&r, &line(["b", "=", "a"])));
        // A missing glyph: no candidate.
        assert!(!positional_match(&r, &line(["a", "=", "c"])));
        // The reference has a right neighbour where the hypothesis glyph has none (a gap of more
        // than 5 px vertically breaks the row).
        let broken = vec![
            sb("a", 0.0, 0.0, 10.0, 10.0),
            sb("=", 20.0, 6.0, 10.0, 10.0),
            sb("b", 40.0, 6.0, 10.0, 10.0),
        ];
        assert!(!positional_match(&r, &broken));
        // No reference glyph: vacuously a match.
        assert!(positional_match(&[], &r));
        // Injective: two reference 'a's cannot both map to the one hypothesis 'a'.
        assert!(!positional_match(&line(["a", "+", "a"]), &line(["a", "+", "b"])));
        // Backtracking: the first candidate for 'x' (the lone one at the left) fails the
        // neighbour check, the second (followed by '2') succeeds.
        let r2 = vec![sb("x", 0.0, 0.0, 10.0, 10.0), sb("2", 20.0, 0.0, 10.0, 10.0)];
        let h2 = vec![
            sb("x", 0.0, 100.0, 10.0, 10.0),
            sb("x", 0.0, 0.0, 10.0, 10.0),
            sb("2", 20.0, 0.0, 10.0, 10.0),
        ];
        assert!(positional_match(&r2, &h2));
        // Up and down are told apart: 'a' above 'c' is not 'c' above 'a'.
        let stacked_r = vec![sb("a", 0.0, 0.0, 10.0, 10.0), sb("c", 0.0, 20.0, 10.0, 10.0)];
        let stacked_h = vec![sb("c", 0.0, 0.0, 10.0, 10.0), sb("a", 0.0, 20.0, 10.0, 10.0)];
        assert!(!positional_match(&stacked_r, &stacked_h));
    }

    #[test]
    fn comparison_uses_boxes_when_both_have_them() {
        let with = |key: &str, spans: Vec<SpanBox>| {
            KatexRender::from_browser(Ok((key, spans)), Normalization::Xml)
        };
        let math = |inner: &str| {
            format!("<math><semantics>{inner}<annotation>x</annotation></semantics></math>")
        };
        let r = with(&math("<mi>a</mi><mo>=</mo><mi>b</mi>"), line(["a", "=", "b"]));
        assert_eq!(r.chars, vec!['a', '=', 'b']);
        let h = with(&math("<mrow><mi>a</mi><mo>=</mo><mi>b</mi></mrow>"), line(["a", "=", "b"]));
        assert_eq!(compare(&r, &h), Comparison::MathmlContained);
        let h = with(&math("<mi>a</mi><mo>=</mo><mi>B</mi>"), line(["a", "=", "b"]));
        assert_eq!(compare(&r, &h), Comparison::LayoutMatch);
        assert_eq!(Comparison::LayoutMatch.decided(), Some(true));
        let h = with(&math("<mi>b</mi><mo>=</mo><mi>a</mi>"), line(["b", "=", "a"]));
        assert_eq!(compare(&r, &h), Comparison::LayoutMismatch);
        assert_eq!(Comparison::LayoutMismatch.decided(), Some(false));
        // Without boxes on either side, undecided.
        let mut no_boxes = h.clone();
        no_boxes.boxes = None;
        assert_eq!(compare(&r, &no_boxes), Comparison::NeedsLayout);
        assert_eq!(Comparison::NeedsLayout.decided(), None);
        // A browser error render: no spans, the XML-declaration key.
        let e = KatexRender::from_browser(Err("KaTeX parse error: x"), Normalization::Xml);
        assert_eq!(compare(&e, &h), Comparison::NoReferenceGlyphs);
        // Chromium writes U+00A0 as &nbsp; in outerHTML: decoded, so lxml's behaviour applies.
        let nb = with(&math("<mtext>a&nbsp;b</mtext><mo>&lt;</mo>"), vec![]);
        assert_eq!(nb.key, "<mtext>ab</mtext><mo/>");
    }

    // ------------------------------------------------------------------------------------------
    // Tests with the real node + katex (skipped, saying why, when either is missing)
    // ------------------------------------------------------------------------------------------

    fn renderer() -> Option<KatexRenderer> {
        match KatexRenderer::start(&KatexRenderer::default_dir()) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("skipping: {e}");
                None
            }
        }
    }

    #[test]
    fn node_renders_and_caches() {
        let Some(r) = renderer() else { return };
        assert_eq!(r.version(), KATEX_VERSION);
        let a = r.render_checked("a^{2}+b^{2}=c^{2}").expect("render");
        // Chromium's outerHTML of this formula (olmocr's equation cache), run through lxml +
        // BeautifulSoup and whitespace removal.
        assert_eq!(
            a.key,
            "<mrow><msup><mi>a</mi><mn>2</mn></msup><mo>+</mo><msup><mi>b</mi><mn>2</mn></msup>\
             <mo>=</mo><msup><mi>c</mi><mn>2</mn></msup></mrow>"
        );
        assert_eq!(a.chars.iter().collect::<String>(), "a2+b2=c2");
        assert!(a.error.is_none());
        let b = r.render_checked("a^{2}+b^{2}=c^{2}").expect("render");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(r.cached(), 1);
        let e = r.render_checked("\\frac{1}{").expect("render");
        assert!(e.error.as_deref().is_some_and(|m| m.starts_with("KaTeX parse error")));
        assert_eq!(r.cached(), 2);
        assert!(r.failure().is_none());
    }

    #[test]
    fn node_comparisons() {
        let Some(r) = renderer() else { return };
        let get = |t: &str| r.render(t).expect("render");
        // Spacing and braces do not change KaTeX's MathML.
        assert!(r.matches(&get("e^{i \\pi}+1=0"), &get("e^{i\\pi} + 1 = 0")));
        // A reference that is part of a larger hypothesis.
        // (A lone x^2 is wrapped in an <mrow>, so it is not contained in y = x^2 + 1; a
        // \left..\right group is its own wrapper.)
        assert!(r.matches(&get("\\left(x^{2}\\right)"), &get("\\left( x^2 \\right) + 1")));
        assert!(!r.matches(&get("x^{2}"), &get("y = x^2 + 1")));
        assert_eq!(compare(&get("x^{2}"), &get("y = x^2 + 1")), Comparison::NeedsLayout);
        // Different symbols: glyphs missing.
        assert_eq!(compare(&get("x^2"), &get("y^2")), Comparison::GlyphsMissing);
        // In display mode \dfrac and \frac give the same MathML.
        assert!(r.matches(&get("\\dfrac{a}{b}"), &get("\\frac{a}{b}")));
        // Same glyphs in another order: different MathML, so only layout decides.
        assert_eq!(compare(&get("\\frac{a}{b}"), &get("\\frac{b}{a}")), Comparison::NeedsLayout);
        // A reference KaTeX rejects matches any hypothesis (no reference glyphs).
        assert!(r.matches(&get("\\frac{a}{"), &get("z")));
        let raw = KatexRenderer::start_with(
            Path::new("node"),
            &KatexRenderer::default_dir(),
            Normalization::RawHtml,
        )
        .expect("second renderer");
        let get_raw = |t: &str| raw.render(t).expect("render");
        // Without lxml the annotation (TeX source minus whitespace) is part of the key.
        assert!(raw.matches(&get_raw("e^{i \\pi}+1=0"), &get_raw("e^{i\\pi} + 1 = 0")));
        assert!(!raw.matches(&get_raw("e^{i \\pi}+1=0"), &get_raw("e^{i \\pi}+1={0}")));
        assert!(r.matches(&get("e^{i \\pi}+1=0"), &get("e^{i \\pi}+1={0}")));
    }

    #[test]
    fn missing_katex_is_reported() {
        let dir = std::env::temp_dir().join("corpus-katex-missing-test");
        let err = KatexRenderer::start(&dir).expect_err("no script there");
        assert!(matches!(err, KatexError::KatexMissing(_)));
        assert!(err.to_string().contains(INSTALL_HINT));
        let err = KatexRenderer::start_with(
            Path::new("/nonexistent/node"),
            &KatexRenderer::default_dir(),
            Normalization::Xml,
        );
        match err {
            Err(KatexError::NodeMissing(_)) => {}
            Err(KatexError::KatexMissing(why)) => eprintln!("skipping node-missing check: {why}"),
            other => panic!("unexpected: {other:?}"),
        }
    }
}
