//! KaTeX rendering for olmOCR-bench `math` tests: the `MathRenderer` backed by the `katex` npm
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
//! BeautifulSoup, would (`mathml_key`). That includes three quirks: KaTeX's markup writes a
//! `SpaceNode` (`\,`, `\;`, ...) as `<mtext>`, but its DOM (what the page holds) as a bare text
//! node; BeautifulSoup's lxml builder writes attributes sorted by name; and lxml (6.1.3, libxml2
//! 2.14.6) drops `&nbsp;` and, once it has met one, every later entity in text (`&amp;` `&lt;`
//! `&gt;`), which can empty an element into `<x/>`. On 1431 formulas (the sample's and
//! generated ones, 168 of them KaTeX errors) the keys, the glyphs and the errors equal
//! Chromium's (`bench/katex_reference.sh`). Step 2 exactly on boxes laid out by a browser
//! ([`positional_match`], pure; the boxes come from `crate::external::chromium::BrowserKatex`, KaTeX in
//! headless Chromium as the runner renders), and otherwise only where it does not depend on
//! layout ([`compare`]): the glyph texts come from the DOM alone ([`glyphs`]), so a reference
//! without glyphs (for example a KaTeX error) matches any hypothesis, and a reference glyph
//! multiset that is not contained in the hypothesis's cannot match. When the multiset is
//! contained and no boxes are there, [`compare`] reports [`Comparison::NeedsLayout`]:
//! `MathRenderer::matches` counts it as no match and [`crate::metrics::olmocr::MathRenderer::decide`] says it is
//! undecided, so a suite can say which tests were decided without the browser.
//!
//! Pure: the renders come from `crate::external::katex::KatexRenderer` (KaTeX under node) or
//! `crate::external::chromium::BrowserKatex` (KaTeX in headless Chromium).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::olmocr::py_isspace;

/// The KaTeX version olmocr 0.4.27 bundles (and `scripts/katex/package.json` pins).
pub const KATEX_VERSION: &str = "0.16.21";

/// The command that installs the pinned KaTeX (with npm, into the cache; docs/guide/install.md).
pub const INSTALL_HINT: &str = "corpus setup --katex";

mod markup;

use markup::find_in;
pub use markup::{parse_markup, Element, Node};

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
pub(crate) fn strip_whitespace(s: &str) -> String {
    s.chars().filter(|&c| !py_isspace(c)).collect()
}

/// The XML declaration BeautifulSoup writes for a document, whitespace removed.
const SOUP_EMPTY_DOC: &str = "<?xmlversion=\"1.0\"encoding=\"utf-8\"?>";

/// The normalized MathML "inner" of a successful render (`normalize(extract_inner(mathml))`),
/// from KaTeX's markup (the whole `renderToString` output, or just its `<math>`).
pub(crate) fn mathml_key(markup: &str, mode: Normalization) -> String {
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
pub(crate) fn error_key(message: &str, mode: Normalization) -> String {
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
pub(crate) fn positional_chars(glyphs: &[String]) -> Vec<char> {
    glyphs.iter().filter(|g| g.as_str() != "\u{200b}").flat_map(|g| g.chars()).collect()
}

/// A render as `compare_rendered_equations` sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct KatexRender {
    /// The normalized MathML inner (`mathml_key` or `error_key`).
    pub key: String,
    /// The positional glyphs (`positional_chars`); empty for an error.
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

/// Step 2 of `compare_rendered_equations` on laid-out spans: after `expand_spans`, is there an
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
    pub(crate) fn from_reply(reply: Result<&str, &str>, mode: Normalization) -> KatexRender {
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
    pub(crate) fn from_browser(
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

#[cfg(test)]
mod tests;
