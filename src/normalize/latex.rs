//! LaTeX to plain Unicode, just enough to match a PDF text layer (`docs/paper-suite.md` §2): the
//! linearizer's formula rule, shared by the Markdown and Docling importers and the suites.
//!
//! Not a renderer: Greek letters and operators become their symbols, `\frac{a}{b}` becomes
//! `a/b`, `_` and `^` are dropped with their content kept, other commands are dropped with
//! their arguments kept, braces vanish and white space collapses.

/// Returns the plain-Unicode form of a LaTeX formula.
pub fn latex_to_plain(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    convert(src, &mut out);
    crate::normalize::collapse_ws(&out)
}

/// The LaTeX inside one pair of math delimiters (`$$…$$`, `\[…\]`, `\(…\)`, `$…$`), trimmed;
/// the trimmed source where it has none. Models and parsers wrap a formula block's LaTeX in
/// any of them (MinerU, dots.ocr, layout-model endpoints).
pub(crate) fn strip_math_delimiters(src: &str) -> &str {
    let t = src.trim();
    for (open, close) in [("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")] {
        if let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            return inner.trim();
        }
    }
    t
}

fn convert(src: &str, out: &mut String) {
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => i = command(&chars, i, out),
            '{' | '}' | '_' | '^' | '$' => i += 1,
            '&' | '~' => {
                out.push(' ');
                i += 1;
            }
            '%' => {
                // A comment runs to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// Reads a brace group (or a single token) starting at `i`; returns its content and the index
/// after it.
fn group(chars: &[char], mut i: usize) -> (String, usize) {
    while i < chars.len() && chars[i] == ' ' {
        i += 1;
    }
    if i >= chars.len() {
        return (String::new(), i);
    }
    if chars[i] == '{' {
        let mut depth = 0usize;
        let start = i + 1;
        while i < chars.len() {
            match chars[i] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (chars[start..i].iter().collect(), i + 1);
                    }
                }
                '\\' => i += 1,
                _ => {}
            }
            i += 1;
        }
        return (chars[start.min(chars.len())..].iter().collect(), chars.len());
    }
    if chars[i] == '\\' {
        let mut j = i + 1;
        while j < chars.len() && chars[j].is_ascii_alphabetic() {
            j += 1;
        }
        if j == i + 1 && j < chars.len() {
            j += 1;
        }
        return (chars[i..j].iter().collect(), j);
    }
    (chars[i].to_string(), i + 1)
}

fn command(chars: &[char], i: usize, out: &mut String) -> usize {
    let mut j = i + 1;
    while j < chars.len() && chars[j].is_ascii_alphabetic() {
        j += 1;
    }
    if j == i + 1 {
        // A control symbol: \\ \, \{ ...
        let Some(&s) = chars.get(j) else { return j };
        match s {
            '{' | '}' | '%' | '_' | '&' | '#' | '$' => out.push(s),
            '|' => out.push('‖'),
            '\\' | ',' | ';' | ':' | ' ' => out.push(' '),
            _ => {}
        }
        return j + 1;
    }
    let name: String = chars[i + 1..j].iter().collect();
    if name == "frac" || name == "dfrac" || name == "tfrac" {
        let (a, k) = group(chars, j);
        let (b, k) = group(chars, k);
        convert(&a, out);
        out.push('/');
        convert(&b, out);
        return k;
    }
    if name == "begin" || name == "end" {
        let (_, k) = group(chars, j);
        return k;
    }
    if matches!(name.as_str(), "quad" | "qquad" | "hspace" | "vspace") {
        out.push(' ');
        if name.ends_with("space") {
            let (_, k) = group(chars, j);
            return k;
        }
        return j;
    }
    if let Some(sym) = symbol(&name) {
        out.push_str(sym);
    }
    // Any other command vanishes; its arguments are read as ordinary text.
    j
}

/// Returns the Unicode text of a symbol command, `None` for one that is dropped.
pub(crate) fn symbol(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => "α",
        "beta" => "β",
        "gamma" => "γ",
        "delta" => "δ",
        "epsilon" => "ϵ",
        "varepsilon" => "ε",
        "zeta" => "ζ",
        "eta" => "η",
        "theta" => "θ",
        "vartheta" => "ϑ",
        "iota" => "ι",
        "kappa" => "κ",
        "lambda" => "λ",
        "mu" => "μ",
        "nu" => "ν",
        "xi" => "ξ",
        "pi" => "π",
        "varpi" => "ϖ",
        "rho" => "ρ",
        "varrho" => "ϱ",
        "sigma" => "σ",
        "varsigma" => "ς",
        "tau" => "τ",
        "upsilon" => "υ",
        "phi" => "ϕ",
        "varphi" => "φ",
        "chi" => "χ",
        "psi" => "ψ",
        "omega" => "ω",
        "Gamma" => "Γ",
        "Delta" => "Δ",
        "Theta" => "Θ",
        "Lambda" => "Λ",
        "Xi" => "Ξ",
        "Pi" => "Π",
        "Sigma" => "Σ",
        "Upsilon" => "Υ",
        "Phi" => "Φ",
        "Psi" => "Ψ",
        "Omega" => "Ω",
        "sum" => "∑",
        "prod" => "∏",
        "coprod" => "∐",
        "int" => "∫",
        "iint" => "∬",
        "oint" => "∮",
        "partial" => "∂",
        "nabla" => "∇",
        "infty" => "∞",
        "cdot" => "·",
        "times" => "×",
        "div" => "÷",
        "pm" => "±",
        "mp" => "∓",
        "leq" | "le" => "≤",
        "geq" | "ge" => "≥",
        "neq" | "ne" => "≠",
        "approx" => "≈",
        "sim" => "∼",
        "simeq" => "≃",
        "equiv" => "≡",
        "propto" => "∝",
        "ll" => "≪",
        "gg" => "≫",
        "in" => "∈",
        "notin" => "∉",
        "ni" => "∋",
        "subset" => "⊂",
        "subseteq" => "⊆",
        "supset" => "⊃",
        "supseteq" => "⊇",
        "cup" => "∪",
        "cap" => "∩",
        "setminus" => "∖",
        "forall" => "∀",
        "exists" => "∃",
        "neg" | "lnot" => "¬",
        "wedge" | "land" => "∧",
        "vee" | "lor" => "∨",
        "to" | "rightarrow" => "→",
        "leftarrow" | "gets" => "←",
        "Rightarrow" => "⇒",
        "Leftarrow" => "⇐",
        "leftrightarrow" => "↔",
        "Leftrightarrow" | "iff" => "⇔",
        "mapsto" => "↦",
        "ldots" | "dots" | "cdots" => "…",
        "circ" => "∘",
        "ell" => "ℓ",
        "hbar" => "ħ",
        "emptyset" | "varnothing" => "∅",
        "sqrt" => "√",
        "prime" => "′",
        "langle" => "⟨",
        "rangle" => "⟩",
        "lceil" => "⌈",
        "rceil" => "⌉",
        "lfloor" => "⌊",
        "rfloor" => "⌋",
        "oplus" => "⊕",
        "otimes" => "⊗",
        "odot" => "⊙",
        "perp" => "⊥",
        "parallel" => "∥",
        "mid" => "|",
        "ast" => "∗",
        "star" => "⋆",
        "bullet" => "•",
        "top" => "⊤",
        "lbrace" => "{",
        "rbrace" => "}",
        "log" | "ln" | "exp" | "sin" | "cos" | "tan" | "tanh" | "sinh" | "cosh" | "max" | "min"
        | "arg" | "lim" | "sup" | "inf" | "det" | "dim" | "Pr" | "argmax" | "argmin" => {
            return Some(op_name(name));
        }
        _ => return None,
    })
}

fn op_name(name: &str) -> &'static str {
    match name {
        "log" => "log",
        "ln" => "ln",
        "exp" => "exp",
        "sin" => "sin",
        "cos" => "cos",
        "tan" => "tan",
        "tanh" => "tanh",
        "sinh" => "sinh",
        "cosh" => "cosh",
        "max" => "max",
        "min" => "min",
        "arg" => "arg",
        "lim" => "lim",
        "sup" => "sup",
        "inf" => "inf",
        "det" => "det",
        "dim" => "dim",
        "Pr" => "Pr",
        "argmax" => "argmax",
        _ => "argmin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pair_of_math_delimiters_is_removed() {
        assert_eq!(strip_math_delimiters("  $$ x^2 $$ "), "x^2");
        assert_eq!(strip_math_delimiters(" $$\nx\n$$ "), "x");
        assert_eq!(strip_math_delimiters(" \\[ a+b \\] "), "a+b");
        assert_eq!(strip_math_delimiters("\\( a \\)"), "a");
        assert_eq!(strip_math_delimiters("$y$"), "y");
        assert_eq!(strip_math_delimiters("\\frac{a}{b}"), "\\frac{a}{b}");
        assert_eq!(strip_math_delimiters("$$"), "");
        assert_eq!(strip_math_delimiters("$$$"), "$");
    }

    #[test]
    fn table_of_conversions() {
        let cases = [
            // The seed's examples (seed 001: the linearizer's formula rule and the GT's
            // subscript folding `w_l→wl`, `h_i→hi`, `s_j→sj`).
            (r"r_i = \sigma(W_r x_i + b_r)", "ri = σ(Wr xi + br)"),
            (r"w_l", "wl"),
            (r"h_i", "hi"),
            (r"s_j", "sj"),
            (r"\sum \prod \int", "∑ ∏ ∫"),
            (r"\frac{a}{b}", "a/b"),
            (r"x_{i}", "xi"),
            (r"\sum_{i=1}^{n} x_i", "∑i=1n xi"),
            (r"\prod_k p_k", "∏k pk"),
            (r"\int_0^1 f(x)\,dx", "∫01 f(x) dx"),
            (r"\mathbf{W} \cdot \hat{h}", "W · h"),
            (r"\left( \alpha \leq \beta \right)", "( α ≤ β )"),
            (r"\frac{\partial L}{\partial \theta}", "∂ L/∂ θ"),
            (r"a \\ b & c", "a b c"),
            (r"\{x\}", "{x}"),
            (r"\log p(y|x) % comment", "log p(y|x)"),
            (r"\begin{aligned} y &= x \end{aligned}", "y = x"),
            (r"\mathrm{softmax}(z)", "softmax(z)"),
        ];
        for (src, want) in cases {
            assert_eq!(latex_to_plain(src), want, "{src}");
        }
    }
}
