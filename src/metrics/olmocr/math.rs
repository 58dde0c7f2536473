//! Math tests: equation extraction and the renderer hook (`tests.py::MathTest`, `katex/render.py`).

use super::*;

/// Renders LaTeX and compares renders, standing in for olmOCR's `katex/render.py`.
///
/// What the reference does (olmocr 0.4.27 `katex/render.py`): `render_equation` loads the
/// bundled KaTeX (`katex.min.js`/`.css`) into a page of headless Chromium driven by Playwright
/// (an 800×400 viewport, 24 px font, 8 browser threads, results cached in SQLite by SHA-1 of the
/// formula and style), calls `katex.render(latex, el, {displayMode: true, throwOnError: true})`
/// and keeps (a) the MathML of `.katex-mathml math` and (b) every leaf `<span>` with
/// non-whitespace text, with its trimmed text and `getBoundingClientRect()` box. A KaTeX error
/// gives a render with `error` set, the message as its MathML and no spans; it is not `None`,
/// so the test is not rejected at load time and a failing hypothesis is still compared (a
/// reference with no spans then matches any hypothesis, see `super::katex`; a renderer that
/// returns `None` here instead fails the test, or skips the hypothesis). Hypotheses are tried in
/// descending `fuzz.ratio` to the reference. `compare_rendered_equations(reference, hypothesis)`
/// is true when
/// (1) the reference's MathML `<semantics>` children other than `<annotation>`, re-serialized
/// by BeautifulSoup's XML parser and with all whitespace removed, are a substring of the
/// hypothesis's; or else (2) after dropping zero-width-space spans and splitting multi-character
/// spans into equal-width per-character boxes, every reference glyph can be assigned (by
/// backtracking) to a distinct hypothesis glyph with the same text, so that for each direction
/// (up/down/left/right: the nearest glyph whose centre is within 5 px on the other axis) the
/// reference's neighbour maps to the hypothesis glyph's neighbour, or failing an assignment yet,
/// the neighbours carry the same text.
///
/// Not reproduced natively: KaTeX itself (its MathML serialization) and the browser layout
/// (font metrics, glyph boxes) on which step (2) depends. `crate::external::katex::KatexRenderer` runs
/// the `katex` npm package under node and reproduces (1) and the layout-free part of (2);
/// `crate::external::chromium::BrowserKatex` renders in headless Chromium as the runner does, and (2) is
/// then decided exactly ([`crate::metrics::katex::positional_match`]).
pub trait MathRenderer {
    /// A rendered formula.
    type Rendered;
    /// Render `latex`; `None` when the renderer failed (a KaTeX error is a render).
    fn render(&self, latex: &str) -> Option<Self::Rendered>;
    /// `compare_rendered_equations(reference, hypothesis)`, an undecided comparison counted as
    /// no match.
    fn matches(&self, reference: &Self::Rendered, hypothesis: &Self::Rendered) -> bool;
    /// `Some(matched)`, or `None` when this renderer cannot decide: the comparison needs the
    /// browser's glyph layout, which it lacks. By default [`MathRenderer::matches`] decides.
    fn decide(&self, reference: &Self::Rendered, hypothesis: &Self::Rendered) -> Option<bool> {
        Some(self.matches(reference, hypothesis))
    }
    /// Render these formulas ahead of the comparisons that need them, as one batch; by default
    /// nothing (each is rendered when asked).
    fn prefetch(&self, _latex: &[&str]) {}
}

/// One run of a test on one page's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRun {
    /// Whether it passed.
    pub passed: bool,
    /// Why not (empty on a pass).
    pub explanation: String,
    /// A `math` test failed while some formula comparison could not be decided without the
    /// browser's glyph layout ([`MathRenderer::decide`] gave `None`, counted as no match): with
    /// a browser, as the runner renders, it might pass.
    pub needs_browser: bool,
}

/// A [`MathRenderer`] that renders nothing: math tests pass only on an exact string match.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExactMathOnly;

impl MathRenderer for ExactMathOnly {
    type Rendered = ();
    fn render(&self, _latex: &str) -> Option<()> {
        None
    }
    fn matches(&self, _reference: &(), _hypothesis: &()) -> bool {
        false
    }
}

static_regex!(re_math_paren, r"(?s)\\\((.+?)\\\)");
static_regex!(re_math_bracket, r"(?s)\\\[(.+?)\\\]");
static_regex!(re_math_dd, r"(?s)\$\$(.+?)\$\$");
static_regex!(re_math_d, r"(?s)\$(.+?)\$");

/// `MathTest.run`'s extraction: formulas in `\(..\)`, then `\[..\]`, then (unless
/// `ignore_dollar`) `$$..$$`, then `$..$`, each pattern run on the text left after removing the
/// previous patterns' matches; each formula stripped of surrounding whitespace.
pub fn extract_equations(content: &str, ignore_dollar: bool) -> Vec<String> {
    let mut pats = vec![re_math_paren(), re_math_bracket()];
    if !ignore_dollar {
        pats.push(re_math_dd());
        pats.push(re_math_d());
    }
    let mut eqs = Vec::new();
    let mut text = content.to_string();
    for re in pats {
        for cap in re.captures_iter(&text) {
            eqs.push(py_strip(cap.get(1).map_or("", |m| m.as_str())).to_string());
        }
        text = re.replace_all(&text, "").into_owned();
    }
    eqs
}

impl MathTest {
    pub(super) fn run_traced<R: MathRenderer>(&self, content: &str, renderer: &R) -> TestRun {
        let mut eqs = extract_equations(content, self.ignore_dollar_delimited);
        let pass = TestRun { passed: true, explanation: String::new(), needs_browser: false };
        if eqs.contains(&self.math) {
            return pass;
        }
        let mut fail = TestRun {
            passed: false,
            explanation: format!("No match found for {} anywhere in content", self.math),
            needs_browser: false,
        };
        let mut batch: Vec<&str> = vec![self.math.as_str()];
        batch.extend(eqs.iter().map(String::as_str));
        renderer.prefetch(&batch);
        let Some(reference) = renderer.render(&self.math) else {
            return fail;
        };
        let mut keyed: Vec<(f64, String)> =
            eqs.drain(..).map(|e| (fuzz::ratio(&e, &self.math), e)).collect();
        // A stable sort on the negated ratio, as the runner's `sort(key=-ratio)`.
        keyed.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        let mut undecided = 0usize;
        for (_, hyp) in keyed {
            if let Some(h) = renderer.render(&hyp) {
                match renderer.decide(&reference, &h) {
                    Some(true) => return pass,
                    Some(false) => {}
                    None => undecided += 1,
                }
            }
        }
        if undecided > 0 {
            fail.needs_browser = true;
            fail.explanation.push_str(&format!(
                " ({undecided} formula comparison(s) need the browser's glyph layout, which was \
                 not available: counted as no match)"
            ));
        }
        fail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn math_extraction_and_exact_match() {
        let eqs = extract_equations(r"a \(x^2\) b \[ y \] c $$z$$ d $w$", false);
        assert_eq!(eqs, vec!["x^2", "y", "z", "w"]);
        assert_eq!(extract_equations(r"$a$ \(b\)", true), vec!["b"]);
        let m = t(r#"{"pdf":"a.pdf","page":1,"id":"m","type":"math","math":"x^2"}"#);
        assert!(passes(&m, r"see \( x^2 \)"));
        assert!(!passes(&m, r"see \( x^3 \)"));
    }

    struct Same;
    impl MathRenderer for Same {
        type Rendered = String;
        fn render(&self, latex: &str) -> Option<String> {
            Some(latex.replace(' ', ""))
        }
        fn matches(&self, r: &String, h: &String) -> bool {
            r == h
        }
    }

    #[test]
    fn math_renderer_hook() {
        let m = t(r#"{"pdf":"a.pdf","page":1,"id":"m","type":"math","math":"x ^ 2"}"#);
        assert!(!passes(&m, r"\(x^2\)"));
        assert!(m.run_with(r"\(x^2\)", &Same).0);
    }
}
