//! CDM's tokenizer (`corpus::metrics::cdm::tokens`): token lists derived by hand from the
//! official rules (docs/cdm.md, "Tokens and colours"), the token counts the official
//! OmniDocBench run recorded for its demo pairs, and properties over the formula-metric
//! study's formulas. The byte-for-byte comparison with the official code itself is
//! `bench/cdm_tokens_reference.sh` (it needs node and the reference code).

use corpus::metrics::cdm::tokens::{color, prepare, Prepared, Template};
use corpus::metrics::cdm::Variant;

use crate::util::shared_data;

const BOTH: [Variant; 2] = [Variant::OmniDocBench, Variant::UniMERNet];

fn tokens(latex: &str, v: Variant) -> Vec<String> {
    let p = prepare(latex, v);
    assert_eq!(p.error, None, "{latex}");
    p.tokens
}

/// Every token is drawn in its own colour, right after its `\mathcolor`; nothing is left
/// uncoloured or unnumbered.
fn check_properties(latex: &str, p: &Prepared) {
    assert_eq!(p.tokens.len(), p.colors.len(), "{latex}");
    let distinct: std::collections::HashSet<_> = p.colors.iter().collect();
    assert_eq!(distinct.len(), p.colors.len(), "{latex}");
    if p.error.is_some() {
        assert!(p.tokens.is_empty() && p.body.is_empty(), "{latex}");
        return;
    }
    assert_eq!(p.body.matches("\\mathcolor[RGB]{").count(), p.tokens.len(), "{latex}: {}", p.body);
    for (i, (t, c)) in p.tokens.iter().zip(&p.colors).enumerate() {
        assert!(!t.is_empty(), "{latex}");
        assert_eq!(*c, color(i));
        let drawn = format!("\\mathcolor[RGB]{{{},{},{}}}{{{t}", c[0], c[1], c[2]);
        assert!(p.body.contains(&drawn), "{latex}: {drawn} not in {}", p.body);
    }
    assert!(!p.body.contains("<color_"), "{latex}");
    let expected_paper = match p.tokens.len() {
        n if n > 1300 => 3,
        n if n > 600 => 4,
        _ => 5,
    };
    assert_eq!(p.paper, expected_paper);
}

#[test]
fn hand_derived_token_lists() {
    for v in BOTH {
        // \frac { \alpha } { 2 } + \sqrt { x _ { 1 } }: the commands with arguments are tokens,
        // braces and `_` are not.
        assert_eq!(
            tokens("\\frac{\\alpha}{2}+\\sqrt{x_1}", v),
            ["\\frac", "\\alpha", "2", "+", "\\sqrt", "x", "1"]
        );
        // pmatrix: \left( \begin{array} { l l } … \end{array} \right), the delimiters whole.
        assert_eq!(
            tokens("\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}", v),
            ["\\left(", "1", "0", "0", "1", "\\right)"]
        );
        // \text's letters one by one, its space a skipped `~`; \mathbf is not a token.
        assert_eq!(tokens("\\text{if } \\mathbf{v}^2", v), ["i", "f", "v", "2"]);
        // \hat wraps its argument; an unknown macro is a token like any other.
        assert_eq!(tokens("\\hat{y} = \\myop(x)", v), ["\\hat", "y", "=", "\\myop", "(", "x", ")"]);
        // Unbalanced: the parser fails and the raw LaTeX is split on spaces instead; `{c`
        // starts with a brace, which the colouring skips.
        let p = prepare("\\frac{a}{b} + {c", v);
        assert!(!p.tokenized);
        assert_eq!(p.tokens, ["\\frac{a}{b}", "+"]);
    }
    // The variants differ: UniMERNet spells \ln out and splits `--`.
    assert_eq!(tokens("\\ln x -- y", Variant::UniMERNet), ["l", "n", "x", "-", "-", "y"]);
    assert_eq!(tokens("\\ln x -- y", Variant::OmniDocBench), ["\\ln", "x", "--", "y"]);
    // … and only UniMERNet renders CJK with its own template.
    assert_eq!(prepare("x=\\text{中}", Variant::UniMERNet).template, Template::FormulaZh);
    assert_eq!(prepare("x=\\text{中}", Variant::OmniDocBench).template, Template::Formula);
}

#[test]
fn token_counts_equal_the_official_omnidocbench_run() {
    let Some(dir) = shared_data("omnidocbench/result-v1.5-cdm") else { return };
    let text = std::fs::read_to_string(dir.join("display_formula_cdm.json")).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pairs = reference["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 13);
    for pair in pairs {
        for (latex, file) in
            [("gt_fed_to_cdm", "gt_bbox_file"), ("pred_fed_to_cdm", "pred_bbox_file")]
        {
            let latex = pair[latex].as_str().unwrap();
            let p = prepare(latex, Variant::OmniDocBench);
            check_properties(latex, &p);
            assert_eq!(p.tokens.len() as u64, pair[file]["tokens"].as_u64().unwrap(), "{latex}");
        }
    }
}

#[test]
fn properties_hold_on_the_study_formulas() {
    let Some(dir) = shared_data("formula-metric-study") else { return };
    let text = std::fs::read_to_string(dir.join("formulas-dev.json")).unwrap();
    let items: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(items.len(), 125);
    let mut tokenized = 0;
    for item in &items {
        for key in ["gt_formula", "extracted_formula"] {
            let latex = item[key].as_str().unwrap();
            for v in BOTH {
                let p = prepare(latex, v);
                check_properties(latex, &p);
                tokenized += usize::from(p.tokenized);
            }
        }
    }
    // Most formulas parse; the rest fall back to the raw LaTeX as the official code does.
    assert!(tokenized > 400, "{tokenized} of 500 tokenized");
}
