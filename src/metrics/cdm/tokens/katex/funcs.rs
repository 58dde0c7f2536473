//! The parser's tables: the functions it knows (argument counts and types, greediness, what
//! node each builds), the environments, and the symbol and character classes it looks up.

use super::*;

pub(super) const NAMED_COLORS: &[&str] = &[
    "\\blue",
    "\\orange",
    "\\pink",
    "\\red",
    "\\green",
    "\\gray",
    "\\purple",
    "\\blueA",
    "\\blueB",
    "\\blueC",
    "\\blueD",
    "\\blueE",
    "\\tealA",
    "\\tealB",
    "\\tealC",
    "\\tealD",
    "\\tealE",
    "\\greenA",
    "\\greenB",
    "\\greenC",
    "\\greenD",
    "\\greenE",
    "\\goldA",
    "\\goldB",
    "\\goldC",
    "\\goldD",
    "\\goldE",
    "\\redA",
    "\\redB",
    "\\redC",
    "\\redD",
    "\\redE",
    "\\maroonA",
    "\\maroonB",
    "\\maroonC",
    "\\maroonD",
    "\\maroonE",
    "\\purpleA",
    "\\purpleB",
    "\\purpleC",
    "\\purpleD",
    "\\purpleE",
    "\\mintA",
    "\\mintB",
    "\\mintC",
    "\\grayA",
    "\\grayB",
    "\\grayC",
    "\\grayD",
    "\\grayE",
    "\\grayF",
    "\\grayG",
    "\\grayH",
    "\\grayI",
    "\\kaBlue",
    "\\kaGreen",
];
pub(super) const OPS_PLAIN: &[&str] = &[
    "\\arcsin", "\\arccos", "\\arctan", "\\arg", "\\cos", "\\cosh", "\\cot", "\\coth", "\\csc",
    "\\deg", "\\dim", "\\exp", "\\hom", "\\ker", "\\lg", "\\ln", "\\log", "\\sec", "\\sin",
    "\\sinh", "\\tan", "\\tanh",
];
pub(super) const OPS_LIMITS: &[&str] = &[
    "\\det", "\\gcd", "\\inf", "\\lim", "\\liminf", "\\limsup", "\\max", "\\min", "\\Pr", "\\sup",
];
pub(super) const OPS_INT: &[&str] = &["\\int", "\\iint", "\\iiint", "\\oint"];
pub(super) const OPS_BIG: &[&str] = &[
    "\\coprod",
    "\\bigvee",
    "\\bigwedge",
    "\\biguplus",
    "\\bigcap",
    "\\bigcup",
    "\\intop",
    "\\prod",
    "\\sum",
    "\\bigotimes",
    "\\bigoplus",
    "\\bigodot",
    "\\bigsqcup",
    "\\smallint",
];
pub(super) const FRACS: &[&str] =
    &["\\dfrac", "\\frac", "\\tfrac", "\\dbinom", "\\binom", "\\tbinom"];
pub(super) const DELIM_FUNCS: &[&str] = &[
    "\\bigl", "\\Bigl", "\\biggl", "\\Biggl", "\\bigr", "\\Bigr", "\\biggr", "\\Biggr", "\\bigm",
    "\\Bigm", "\\biggm", "\\Biggm", "\\big", "\\Big", "\\bigg", "\\Bigg", "\\left", "\\right",
];
pub(super) const DELIMITERS: &[&str] = &[
    "(",
    ")",
    "[",
    "\\lbrack",
    "]",
    "\\rbrack",
    "\\{",
    "\\lbrace",
    "\\}",
    "\\rbrace",
    "\\lfloor",
    "\\rfloor",
    "\\lceil",
    "\\rceil",
    "<",
    ">",
    "\\langle",
    "\\rangle",
    "\\lt",
    "\\gt",
    "\\lvert",
    "\\rvert",
    "\\lVert",
    "\\rVert",
    "\\lgroup",
    "\\rgroup",
    "\\lmoustache",
    "\\rmoustache",
    "/",
    "\\backslash",
    "|",
    "\\vert",
    "\\|",
    "\\Vert",
    "\\uparrow",
    "\\Uparrow",
    "\\downarrow",
    "\\Downarrow",
    "\\updownarrow",
    "\\Updownarrow",
    ".",
];
/// The implicit-group sizing commands (the patched list: `\textrm`, `\rm`, `\cal`, `\bf`,
/// `\boldmath`, `\it` and the misspelt `\siptstyle` included).
pub(super) const SIZE_FUNCS: &[&str] = &[
    "\\tiny",
    "\\scriptsize",
    "\\footnotesize",
    "\\small",
    "\\normalsize",
    "\\large",
    "\\Large",
    "\\LARGE",
    "\\huge",
    "\\Huge",
    "\\textrm",
    "\\rm",
    "\\cal",
    "\\bf",
    "\\siptstyle",
    "\\boldmath",
    "\\it",
];
pub(super) const STYLE_FUNCS: &[&str] =
    &["\\displaystyle", "\\textstyle", "\\scriptstyle", "\\scriptscriptstyle"];
pub(super) const FONT_FUNCS: &[&str] = &[
    "\\mathrm",
    "\\mathit",
    "\\mathbf",
    "\\mathop",
    "\\stackrel",
    "\\mathbb",
    "\\mathcal",
    "\\mathfrak",
    "\\mathscr",
    "\\mathsf",
    "\\mathtt",
    "\\label",
    "\\comment",
    "\\hspace",
    "\\vspace",
    "\\atop",
    "\\fbox",
    "\\tag",
    "\\makebox",
    "\\raisebox",
    "\\framebox",
    "\\circle",
    "\\line",
    "\\put",
    "\\vphantom",
    "\\textup",
    "\\noalign",
    "\\Bbb",
    "\\bold",
    "\\frak",
];
pub(super) const ACCENTS: &[&str] = &[
    "\\acute", "\\grave", "\\ddot", "\\tilde", "\\bar", "\\breve", "\\check", "\\hat", "\\vec",
    "\\dot",
];

pub(super) fn func(name: &str) -> Option<Func> {
    const TEXT: &[ArgType] = &[ArgType::Text];
    const COLOR: &[ArgType] = &[ArgType::Color, ArgType::Original];
    const SIZE3: &[ArgType] = &[ArgType::Size, ArgType::Size, ArgType::Size];
    const SIZE1: &[ArgType] = &[ArgType::Size];
    let f = |num_args, num_optional, arg_types, greediness, kind| {
        Some(Func { num_args, num_optional, arg_types, greediness, kind })
    };
    let is = |list: &[&str]| list.contains(&name);
    match name {
        "\\sqrt" => f(1, 1, None, 1, Kind::Sqrt),
        "\\text" | "\\mbox" | "\\hbox" | "\\vbox" => f(1, 0, Some(TEXT), 2, Kind::Text),
        "\\color" => f(2, 0, Some(COLOR), 3, Kind::Color),
        "\\overline" => f(1, 0, None, 1, Kind::Overline),
        "\\underline" => f(1, 0, None, 1, Kind::Underline),
        "\\rule" => f(2, 1, Some(SIZE3), 1, Kind::Rule),
        "\\KaTeX" => f(0, 0, None, 1, Kind::KaTeX),
        "\\phantom" => f(1, 0, None, 1, Kind::Phantom),
        "\\llap" | "\\rlap" => f(1, 0, None, 1, Kind::Lap),
        "\\over" | "\\choose" => f(0, 0, None, 1, Kind::Infix),
        "\\\\" | "\\cr" => f(0, 1, Some(SIZE1), 1, Kind::Cr),
        "\\begin" | "\\end" => f(1, 0, Some(TEXT), 1, Kind::Env),
        _ if is(NAMED_COLORS) => f(1, 0, None, 3, Kind::NamedColor),
        _ if is(OPS_PLAIN) => f(0, 0, None, 1, Kind::Op { limits: false, symbol: false }),
        _ if is(OPS_LIMITS) => f(0, 0, None, 1, Kind::Op { limits: true, symbol: false }),
        _ if is(OPS_INT) => f(0, 0, None, 1, Kind::Op { limits: false, symbol: true }),
        _ if is(OPS_BIG) => f(0, 0, None, 1, Kind::Op { limits: true, symbol: true }),
        _ if is(FRACS) => f(2, 0, None, 2, Kind::Frac),
        _ if is(DELIM_FUNCS) => f(1, 0, None, 1, Kind::Delim),
        _ if is(SIZE_FUNCS) || is(STYLE_FUNCS) => f(0, 0, None, 1, Kind::NoHandler),
        _ if is(FONT_FUNCS) => f(1, 0, None, 2, Kind::Font),
        _ if is(ACCENTS) => f(1, 0, None, 1, Kind::Accent),
        _ => None,
    }
}

/// Whether a known symbol or unknown token is a `mathord` (spelt out inside `\mathrm`).
pub(super) fn is_ord(mode: Mode, text: &str) -> bool {
    match mode {
        Mode::Math => MATH_NON_ORD.binary_search(&text).is_err(),
        Mode::Text => {
            let mut cs = text.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => {
                    !(c.is_ascii_alphanumeric()
                        || c == ' '
                        || c == '~'
                        || "`!@*()-=+[]'\";:?/.,".contains(c))
                }
                _ => text != "\\ ",
            }
        }
    }
}

/// JavaScript's `\s`.
pub(super) fn js_space(c: char) -> bool {
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

/// One code point the lexer takes as a token of its own.
pub(super) fn single_codepoint(c: char) -> bool {
    let u = c as u32;
    (0x21..=0x5b).contains(&u)
        || (0x5d..=0x2027).contains(&u)
        || (0x202a..=0xd7ff).contains(&u)
        || (0xf900..=0xffff).contains(&u)
        || u > 0xffff
}

/// A number as JavaScript prints it.
pub(super) fn js_number(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    format!("{x}")
}

pub(super) fn env_spec(name: &str) -> Option<Func> {
    let num_args = match name {
        "array" | "tabular" => 1,
        "matrix" | "pmatrix" | "bmatrix" | "Bmatrix" | "vmatrix" | "Vmatrix" | "picture"
        | "cases" | "aligned" => 0,
        _ => return None,
    };
    Some(Func { num_args, num_optional: 0, arg_types: None, greediness: 1, kind: Kind::Env })
}
