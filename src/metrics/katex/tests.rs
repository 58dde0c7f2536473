//! Tests of `katex.rs`.

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
    let sorted = "<math><semantics><mrow><mo mathvariant=\"normal\" lspace=\"0em\">\u{2032}</mo>\
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
