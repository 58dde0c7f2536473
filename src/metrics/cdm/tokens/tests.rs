//! Hand-derived cases, one per construct; each expectation follows the rules in `docs/cdm.md`
//! step by step (the KaTeX printer's output, `normalize_latex`, then the colouring walk).

use super::*;

const BOTH: [Variant; 2] = [Variant::OmniDocBench, Variant::UniMERNet];

fn toks(latex: &str, v: Variant) -> Vec<String> {
    let p = prepare(latex, v);
    assert_eq!(p.error, None, "{latex}");
    p.tokens
}

fn normalized(latex: &str) -> String {
    tokenize_latex(latex).unwrap()
}

#[test]
fn colours_follow_the_official_grid() {
    assert_eq!(color(0), [0, 0, 15]);
    assert_eq!(color(16), [0, 0, 255]);
    assert_eq!(color(17), [0, 15, 0]);
    assert_eq!(color(323), [15, 0, 0]);
    let all: std::collections::HashSet<[u8; 3]> = (0..COLORS).map(color).collect();
    assert_eq!(all.len(), COLORS);
    assert!(!all.contains(&[0, 0, 0]) && !all.contains(&[255, 255, 255]));
}

#[test]
fn fraction_printed_coloured_and_braced() {
    assert_eq!(normalized("\\frac{a}{b}"), "\\frac { a } { b }");
    for v in BOTH {
        let p = prepare("\\frac{a}{b}", v);
        assert_eq!(p.tokens, ["\\frac", "a", "b"]);
        assert_eq!(
            p.body,
            "\\mathcolor[RGB]{0,0,15}{\\frac { \\mathcolor[RGB]{0,0,30}{a} } { \\mathcolor[RGB]{0,0,45}{b} } }"
        );
        assert_eq!((p.paper, p.template, p.tokenized), (5, Template::Formula, true));
        assert_eq!(p.colors, [[0, 0, 15], [0, 0, 30], [0, 0, 45]]);
    }
    // Infix \over becomes \frac; \frac's bare arguments get braces from normalize_latex.
    assert_eq!(normalized("a \\over b"), "\\frac { a } { b }");
    assert_eq!(normalized("\\frac 1 2"), "\\frac 1 2");
    assert_eq!(toks("\\frac 1 2", Variant::UniMERNet), ["\\frac", "1", "2"]);
    assert_eq!(normalized("\\binom{n}{k}"), "\\binom { n } { k }");
}

#[test]
fn sqrt_with_and_without_index() {
    assert_eq!(normalized("\\sqrt[3]{x}"), "\\sqrt [ 3 ] { x }");
    let p = prepare("\\sqrt[3]{x}", Variant::OmniDocBench);
    assert_eq!(p.tokens, ["\\sqrt", "3", "x"]);
    // The index's tokens are wrapped in an extra group (brace_color).
    assert_eq!(
        p.body,
        "\\mathcolor[RGB]{0,0,15}{\\sqrt [ {\\mathcolor[RGB]{0,0,30}{3}} ] { \\mathcolor[RGB]{0,0,45}{x} } }"
    );
    assert_eq!(normalized("\\sqrt x"), "\\sqrt x");
    assert_eq!(toks("\\sqrt x", Variant::UniMERNet), ["\\sqrt", "x"]);
}

#[test]
fn left_right_delimiters_are_single_tokens() {
    assert_eq!(normalized("\\left( x \\right)"), "\\left( x \\right)");
    assert_eq!(toks("\\left( x \\right)", Variant::OmniDocBench), ["\\left(", "x", "\\right)"]);
    assert_eq!(normalized("\\left. x \\right|"), "\\left. x \\right|");
    // \big( is glued by normalize_latex.
    assert_eq!(normalized("\\big( x \\big)"), "\\big ( x \\big )");
    assert_eq!(toks("\\big( x \\big)", Variant::UniMERNet), ["\\big(", "x", "\\big)"]);
}

#[test]
fn environments_become_arrays() {
    assert_eq!(
        normalized("\\begin{matrix} a & b \\\\ c & d \\end{matrix}"),
        "\\begin{array} { l l } { a } & { b } \\\\ { c } & { d } \\end{array}"
    );
    assert_eq!(
        toks("\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}", Variant::OmniDocBench),
        ["\\left(", "a", "b", "c", "d", "\\right)"]
    );
    // aligned: r/l columns, an empty group opening every second cell.
    assert_eq!(
        normalized("\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}"),
        "\\begin{array} { r l } { a } & { { } = b } \\\\ { c } & { { } = d } \\end{array}"
    );
    // align is rewritten to aligned first.
    assert_eq!(
        normalized("\\begin{align} a &= b \\end{align}"),
        normalized("\\begin{aligned} a &= b \\end{aligned}")
    );
    let p = prepare("\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}", Variant::UniMERNet);
    assert_eq!(p.tokens, ["a", "=", "b", "c", "=", "d"]);
    assert!(
        p.body.starts_with("\\begin{array} {rl} { \\mathcolor[RGB]{0,0,15}{a} } &"),
        "{}",
        p.body
    );
    // array keeps l/c/r and drops separators.
    assert_eq!(
        normalized("\\begin{array}{l|cr} 1 & 2 & 3 \\end{array}"),
        "\\begin{array} { l c r } { 1 } & { 2 } & { 3 } \\end{array}"
    );
    // cases: a \left\{ … \right. around a two-column array.
    assert_eq!(
        toks("\\begin{cases} 1 & x > 0 \\end{cases}", Variant::UniMERNet),
        ["\\left\\{", "1", "x", ">", "0", "\\right."]
    );
    // Plain-TeX \matrix{…} and \cases{…}.
    assert_eq!(
        normalized("\\matrix{a & b \\cr c & d}"),
        "\\begin{array} { l l } { a } & { b } \\\\ { c } & { d } \\end{array}"
    );
}

#[test]
fn text_and_mathrm_groups() {
    // Text mode keeps spaces as ~, letters one by one.
    assert_eq!(normalized("\\text{if } x"), "\\mathrm { i f ~ } x");
    assert_eq!(toks("\\text{if } x", Variant::OmniDocBench), ["i", "f", "x"]);
    // Inside \mathrm a mathord command is spelt out (\alpha -> \ a l p h a), a textord one
    // (\Delta) is not; the lone backslash is skipped when colouring.
    assert_eq!(normalized("\\mathrm{\\alpha \\Delta}"), "\\mathrm { \\ a l p h a \\Delta }");
    assert_eq!(
        toks("\\mathrm{\\alpha \\Delta}", Variant::UniMERNet),
        ["a", "l", "p", "h", "a", "\\Delta"]
    );
    // A one-token group is coloured inside its braces.
    let p = prepare("\\mathrm{d} x", Variant::OmniDocBench);
    assert_eq!(p.tokens, ["d", "x"]);
    assert_eq!(p.body, "\\mathrm { \\mathcolor[RGB]{0,0,15}{d} } \\mathcolor[RGB]{0,0,30}{x}");
    // {\rm d} is rewritten to \mathrm{ d} before parsing.
    assert_eq!(normalized("{\\rm d}x"), "\\mathrm { d } x");
    assert_eq!(normalized("\\mathbb{R}"), "\\mathbb { R }");
}

#[test]
fn accents_get_braces() {
    assert_eq!(normalized("\\hat{a} \\bar b"), "\\hat { a } \\bar { b }");
    let p = prepare("\\hat{a} \\bar b", Variant::OmniDocBench);
    assert_eq!(p.tokens, ["\\hat", "a", "\\bar", "b"]);
    assert_eq!(
        p.body,
        "\\mathcolor[RGB]{0,0,15}{\\hat { \\mathcolor[RGB]{0,0,30}{a} } } \\mathcolor[RGB]{0,0,45}{\\bar { \\mathcolor[RGB]{0,0,60}{b} } }"
    );
}

#[test]
fn scripts_subscript_first_and_primes() {
    assert_eq!(normalized("x^{2}_{i}"), "x _ { i } ^ { 2 }");
    assert_eq!(normalized("y_j"), "y _ { j }");
    assert_eq!(normalized("z'"), "z ^ { \\prime }");
    assert_eq!(toks("x^{2}_{i} z'", Variant::UniMERNet), ["x", "i", "2", "z", "\\prime"]);
    // A token right after `_` (no braces: only in a fallback) gets an extra group.
    let p = prepare("\\color{red} x _ 1", Variant::OmniDocBench);
    assert!(!p.tokenized);
    assert_eq!(p.tokens, ["\\color{red}", "x", "1"]);
    assert!(p.body.ends_with(" _ {\\mathcolor[RGB]{0,0,45}{1}}"), "{}", p.body);
}

#[test]
fn operators_and_dots_per_variant() {
    // \sin is printed as \operatorname { s i n }, rewritten back to \sin, then spelt out.
    assert_eq!(normalized("\\sin x"), "\\sin x");
    for v in BOTH {
        assert_eq!(toks("\\sin x", v), ["s", "i", "n", "x"]);
        assert_eq!(toks("\\ldots", v), [".", ".", "."]);
    }
    // \ln is spelt out by UniMERNet's list only.
    assert_eq!(toks("\\ln x", Variant::UniMERNet), ["l", "n", "x"]);
    assert_eq!(toks("\\ln x", Variant::OmniDocBench), ["\\ln", "x"]);
    // The operator rewrite's pattern never matches tanh, nor starred operators (\lim), whose
    // `\operatorname*` is no `\operatorname`: a token of its own.
    assert_eq!(normalized("\\tanh y"), "\\operatorname { t a n h } y");
    assert_eq!(normalized("\\lim_{n}"), "\\operatorname* { l i m } _ { n }");
    assert_eq!(toks("\\lim_{n}", Variant::OmniDocBench), ["\\operatorname*", "l", "i", "m", "n"]);
    // `--` is one KaTeX token; UniMERNet splits it.
    assert_eq!(toks("a -- b", Variant::UniMERNet), ["a", "-", "-", "b"]);
    assert_eq!(toks("a -- b", Variant::OmniDocBench), ["a", "--", "b"]);
}

#[test]
fn rejected_argument_repeats_the_previous_one() {
    // \rule (greediness 1) cannot be \frac's argument (2): JavaScript's function-scoped
    // `argNode` keeps the first argument, so the denominator is `.` again, and \rule is gone.
    assert_eq!(normalized("\\frac.\\rule{1pt}{2pt}"), "\\frac . . { 1 p t } { 2 p t }");
    // As the first argument there is nothing to repeat: the printer fails.
    assert_eq!(normalized("\\frac\\rule{1pt}{2pt}"), "");
}

#[test]
fn unknown_macros_pass_through() {
    assert_eq!(normalized("\\foo{x} \\baz"), "\\foo { x } \\baz");
    // A known command missing its argument fails the parser: empty output, fallback.
    assert_eq!(normalized("\\foo{x} \\bar"), "");
    assert_eq!(toks("\\foo{x}", Variant::OmniDocBench), ["\\foo", "x"]);
}

#[test]
fn tabular_is_tokenized_not_normalized() {
    let latex = "\\begin{tabular}{cc} a & b \\end{tabular}";
    assert_eq!(normalized(latex), "\\begin {tabular} { c c } a & b \\end {tabular}");
    let u = prepare(latex, Variant::UniMERNet);
    assert_eq!(u.tokens, ["a", "b"]);
    assert_eq!(u.template, Template::Tabular);
    assert!(u.body.starts_with("\\begin{tabular}{cc} "), "{}", u.body);
    // OmniDocBench picks the tabular template but renders with the formula one.
    assert_eq!(prepare(latex, Variant::OmniDocBench).template, Template::Formula);
    // A missing \end{tabular} is appended.
    assert_eq!(normalized("\\begin{tabular}{c} a"), "\\begin {tabular} { c } a \\end {tabular}");
}

#[test]
fn failures_fall_back_or_fail_as_the_official_code() {
    // Unbalanced: KaTeX fails, the raw LaTeX is normalized as it is (one token here).
    for v in BOTH {
        let p = prepare("\\frac{a}{b", v);
        assert!(!p.tokenized);
        assert_eq!(p.tokens, ["\\frac{a}{b"]);
        assert_eq!(p.body, "\\mathcolor[RGB]{0,0,15}{\\frac{a}{b}");
    }
    // \color has no printer in the patched script: fallback.
    assert!(!prepare("\\color{red}{x}", Variant::OmniDocBench).tokenized);
    // A lone \frac: the fallback's brace filling reads past the end (IndexError).
    let p = prepare("\\frac", Variant::UniMERNet);
    assert!(p.error.is_some() && p.tokens.is_empty());
    // A lone `}` fails the parser; normalize_latex then sees it as a skipped token.
    let p = prepare("x + }", Variant::UniMERNet);
    assert!(!p.tokenized);
    assert_eq!(p.tokens, ["x", "+"]);
    // Empty input: nothing to tokenize, nothing to render.
    let p = prepare("", Variant::OmniDocBench);
    assert!(!p.tokenized && p.tokens.is_empty());
}

#[test]
fn chinese_is_wrapped_in_text_for_unimernet_only() {
    let u = prepare("x，中文", Variant::UniMERNet);
    assert_eq!(u.template, Template::FormulaZh);
    assert_eq!(normalized("x, \\text{中文}"), "x , \\mathrm { 中 文 }");
    assert_eq!(u.tokens, ["x", ",", "中", "文"]);
    assert!(u.body.contains("\\text {"), "{}", u.body);
    assert_eq!(wrap_chinese_in_text("a中b\\text{文}"), "a\\text{中}b\\text{文}");
    let o = prepare("x，中文", Variant::OmniDocBench);
    assert_eq!(o.template, Template::Formula);
}

#[test]
fn percent_labels_and_dollars() {
    // \% survives tokenization as a placeholder.
    assert_eq!(toks("50\\% x", Variant::UniMERNet), ["5", "0", "\\%", "x"]);
    // A comment is cut, \label removed, dollars are spaces.
    assert_eq!(normalized("x \\label{eq} = 1 % comment"), "x = 1");
    assert_eq!(normalized("$x$"), "x");
    // Outside environments \\ becomes a thin space.
    assert_eq!(normalized("a\\\\b"), "a \\, b");
}

#[test]
fn paper_grows_with_the_token_count() {
    let long = "x+".repeat(350);
    assert_eq!(prepare(&long, Variant::OmniDocBench).paper, 4);
    let longer = "x+".repeat(700);
    assert_eq!(prepare(&longer, Variant::OmniDocBench).paper, 3);
}

#[test]
fn regex_environment_rewrite_needs_a_body_and_the_same_name() {
    assert_eq!(
        sub_environment("\\begin{split}a\\end{split*}", &["split"], "aligned"),
        "\\begin{aligned}a\\end{aligned}"
    );
    assert_eq!(
        sub_environment("\\begin{split}\\end{split}", &["split"], "aligned"),
        "\\begin{split}\\end{split}"
    );
    assert_eq!(
        sub_environment(
            "\\begin{alignat}{2}x\\end{alignat}",
            &["split", "align", "alignedat", "alignat"],
            "aligned"
        ),
        "\\begin{aligned}{2}x\\end{aligned}"
    );
}
