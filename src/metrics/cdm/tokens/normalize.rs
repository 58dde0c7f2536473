//! `latex_processor.normalize_latex`: the tokenized LaTeX regrouped for colouring (`\big(`,
//! `\not=`, `\hspace{1cm}` … as one token, `\ldots` as `. . .`, `\sin` spelt out, missing
//! braces after `\frac`, `\hat`, `\sqrt`, `\mathrm` … filled in). The two variants' copies
//! differ; [`Variant`] picks.

use std::sync::OnceLock;

use regex::Regex;

use super::py::{at, cat, find_matching_brace, isspace, one, slice, strip, tail, Res};
use crate::metrics::cdm::Variant;

/// The token classes of `latex_processor.py`, per variant.
pub(super) struct Classes {
    pub skip: &'static [&'static str],
    pub phantom: &'static [&'static str],
    pub one_tail: &'static [&'static str],
}

pub(super) const TWO_TAIL: &[&str] = &["\\frac", "\\binom"];
pub(super) const AB_TAIL: &[&str] = &["\\xrightarrow", "\\xleftarrow", "\\sqrt"];
pub(super) const TWO_TAIL_INVISIBLE: &[&str] = &["\\overset", "\\underset", "\\stackrel"];
pub(super) const ONE_TAIL_INVISIBLE: &[&str] = &[
    "\\boldsymbol",
    "\\pmb",
    "\\textbf",
    "\\mathrm",
    "\\mathbf",
    "\\mathbb",
    "\\mathcal",
    "\\textmd",
    "\\texttt",
    "\\textnormal",
    "\\text",
    "\\textit",
    "\\textup",
    "\\mathop",
    "\\mathbin",
    "\\smash",
    "\\operatorname",
    "\\textrm",
    "\\mathfrak",
    "\\emph",
    "\\textsf",
    "\\textsc",
];

const SKIP_COMMON: [&str; 23] = [
    "\\",
    "\\\\",
    "\\index",
    "\\a",
    "&",
    "$",
    "\\multirow",
    "\\def",
    "\\raggedright",
    "\\url",
    "\\cr",
    "\\ensuremath",
    "\\left",
    "\\right",
    "\\mathchoice",
    "\\scriptstyle",
    "\\displaystyle",
    "\\qquad",
    "\\quad",
    "\\,",
    "\\!",
    "~",
    "\\boldmath",
];

pub(super) fn classes(variant: Variant) -> Classes {
    const SKIP_UNIMERNET: &[&str] = &[
        "\\",
        "\\\\",
        "\\index",
        "\\a",
        "&",
        "$",
        "\\multirow",
        "\\def",
        "\\edef",
        "\\raggedright",
        "\\url",
        "\\cr",
        "\\ensuremath",
        "\\left",
        "\\right",
        "\\mathchoice",
        "\\scriptstyle",
        "\\displaystyle",
        "\\qquad",
        "\\quad",
        "\\,",
        "\\!",
        "~",
        "\\boldmath",
        "\\gdef",
        "\\today",
        "\\the",
    ];
    const PHANTOM_OMNIDOC: &[&str] =
        &["\\fontfamily", "\\vphantom", "\\phantom", "\\rowcolor", "\\ref"];
    const PHANTOM_UNIMERNET: &[&str] = &[
        "\\fontfamily",
        "\\vphantom",
        "\\phantom",
        "\\rowcolor",
        "\\ref",
        "\\thesubequation",
        "\\global",
        "\\theboldgroup",
    ];
    const ONE_OMNIDOC: &[&str] = &[
        "\\widetilde",
        "\\overline",
        "\\hat",
        "\\widehat",
        "\\tilde",
        "\\Tilde",
        "\\dot",
        "\\bar",
        "\\vec",
        "\\underline",
        "\\underbrace",
        "\\check",
        "\\breve",
        "\\Bar",
        "\\Vec",
        "\\mathring",
        "\\ddot",
    ];
    const ONE_UNIMERNET: &[&str] = &[
        "\\widetilde",
        "\\overline",
        "\\hat",
        "\\widehat",
        "\\tilde",
        "\\Tilde",
        "\\dot",
        "\\bar",
        "\\vec",
        "\\underline",
        "\\underbrace",
        "\\check",
        "\\breve",
        "\\Bar",
        "\\Vec",
        "\\mathring",
        "\\ddot",
        "\\Ddot",
        "\\dddot",
        "\\ddddot",
    ];
    match variant {
        Variant::OmniDocBench => {
            Classes { skip: &SKIP_COMMON, phantom: PHANTOM_OMNIDOC, one_tail: ONE_OMNIDOC }
        }
        Variant::UniMERNet => {
            Classes { skip: SKIP_UNIMERNET, phantom: PHANTOM_UNIMERNET, one_tail: ONE_UNIMERNET }
        }
    }
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid pattern"))
}

macro_rules! regex {
    ($p:expr) => {{
        static CELL: OnceLock<Regex> = OnceLock::new();
        re(&CELL, $p)
    }};
}

/// `old = re.findall(p, l); for bef, aft in zip(old, map(f, old)): l = l.replace(bef, aft)`.
fn replace_found(l: &str, pattern: &Regex, f: impl Fn(&str) -> String) -> String {
    let found: Vec<String> = pattern.find_iter(l).map(|m| m.as_str().to_string()).collect();
    let mut l = l.to_string();
    for bef in found {
        let aft = f(&bef);
        l = l.replace(&bef, &aft);
    }
    l
}

fn no_spaces(s: &str) -> String {
    s.replace(' ', "")
}

/// `re.sub(r'(?<=\s)PAT(?=\s)', rep, l)` for a literal `PAT`.
fn sub_spaced(l: &str, pat: &str, rep: &str) -> String {
    let mut out = String::with_capacity(l.len());
    let mut prev: Option<char> = None;
    let mut i = 0;
    while i < l.len() {
        let rest = &l[i..];
        if prev.is_some_and(isspace) && rest.starts_with(pat) {
            if let Some(next) = rest[pat.len()..].chars().next() {
                if isspace(next) {
                    out.push_str(rep);
                    i += pat.len();
                    prev = pat.chars().last();
                    continue;
                }
            }
        }
        let c = rest.chars().next().unwrap();
        out.push(c);
        prev = Some(c);
        i += c.len_utf8();
    }
    out
}

/// Words the UniMERNet variant spells out or rewrites (in this order).
const SPACED_UNIMERNET: &[(&str, &str)] = &[
    ("--", "- -"),
    ("---", "- - -"),
    ("…", ". . ."),
    ("\\ldots", ". . ."),
    ("\\hdots", ". . ."),
    ("\\cdots", ". . ."),
    ("\\dddot", ". . ."),
    ("\\dots", ". . ."),
    ("\\dotsc", ". . ."),
    ("\\dotsi", ". . ."),
    ("\\dotsm", ". . ."),
    ("\\dotso", ". . ."),
    ("\\dotsb", ". . ."),
    ("\\mathellipsis", ". . ."),
    ("\\ex", "\\mathrm { e x }"),
    ("\\ln", "\\mathrm { l n }"),
    ("\\lg", "\\mathrm { l g }"),
    ("\\cot", "\\mathrm { c o t }"),
    ("\\mod", "\\mathrm { m o d }"),
    ("\\bmod", "\\mathrm { m o d }"),
    ("\\pmod", "\\mathrm { m o d }"),
    ("\\min", "\\mathrm { m i n }"),
    ("\\max", "\\mathrm { m a x }"),
    ("\\ker", "\\mathrm { k e r }"),
    ("\\hom", "\\mathrm { h o m }"),
    ("\\sec", "\\mathrm { s e c }"),
    ("\\scs", "\\mathrm { s c s }"),
    ("\\csc", "\\mathrm { c s c }"),
    ("\\deg", "\\mathrm { d e g }"),
    ("\\arg", "\\mathrm { a r g }"),
    ("\\log", "\\mathrm { l o g }"),
    ("\\dim", "\\mathrm { d i m }"),
    ("\\exp", "\\mathrm { e x p }"),
    ("\\sin", "\\mathrm { s i n }"),
    ("\\cos", "\\mathrm { c o s }"),
    ("\\tan", "\\mathrm { t a n }"),
    ("\\tanh", "\\mathrm { t a n h }"),
    ("\\cosh", "\\mathrm { c o s h }"),
    ("\\sinh", "\\mathrm { s i n h }"),
    ("\\coth", "\\mathrm { c o t h }"),
    ("\\arcsin", "\\mathrm { a r c s i n }"),
    ("\\arccos", "\\mathrm { a r c c o s }"),
    ("\\arctan", "\\mathrm { a r c t a n }"),
];

/// What the OmniDocBench variant rewrites (plain `str.replace`, spaces included).
const REPLACED_OMNIDOC: &[(&str, &str)] = &[
    (" \\ldots ", " . . . "),
    (" \\cdots ", " . . . "),
    (" \\dots ", " . . . "),
    (" \\dotsb ", " . . . "),
    (" \\log ", " \\mathrm { l o g } "),
    (" \\exp ", " \\mathrm { e x p } "),
    (" \\sin ", " \\mathrm { s i n } "),
    (" \\cos ", " \\mathrm { c o s } "),
    (" \\tan ", " \\mathrm { t a n } "),
    (" \\tanh ", " \\mathrm { t a n h } "),
    (" \\cosh ", " \\mathrm { c o s h } "),
    (" \\sinh ", " \\mathrm { s i n h } "),
];

/// `normalize_latex(l)` (with `rm_trail=False`, as the pipeline calls it).
pub(super) fn normalize_latex(l: &str, variant: Variant) -> Res<String> {
    let tabular = l.contains("tabular");
    let uni = variant == Variant::UniMERNet;
    let mut l = strip(l).replace("\\pmatrix", "\\mypmatrix").replace("\\matrix", "\\mymatrix");
    for item in ["\\raggedright", "\\arraybackslash", "\\lowercase", "\\uppercase"] {
        l = l.replace(item, "");
    }
    l = replace_found(&l, regex!(r"(?s)\\[hv]space \{ [.0-9a-z ]+ \}"), |b| {
        if tabular {
            String::new()
        } else {
            no_spaces(b)
        }
    });
    if tabular {
        l = l
            .replace("\\begin {tabular}", "\\begin{tabular}")
            .replace("\\end {tabular}", "\\end{tabular}")
            .replace("\\begin {array}", "\\begin{array}")
            .replace("\\end {array}", "\\end{array}");
        let mut v: Vec<String> = l.split(' ').map(str::to_string).collect();
        let mut idx = 0isize;
        while (idx as usize) < v.len() {
            if v[idx as usize] == "\\begin{tabular}" {
                let end = find_matching_brace(&v, idx + 1, "{", "}")?;
                let joined = slice(&v, idx, end + 1).concat();
                v = cat(vec![slice(&v, 0, idx), one(joined), tail(&v, end + 1)]);
                break;
            }
            idx += 1;
        }
        let l2 = v.join(" ");
        let mut v: Vec<String> = l2.split(' ').map(str::to_string).collect();
        let mut idx = 0isize;
        while (idx as usize) < v.len() {
            let t = &v[idx as usize];
            if t == "\\cmidrule" || t == "\\cline" {
                let sub = idx + 1;
                let end = if at(&v, sub)? == "(" {
                    let mid = find_matching_brace(&v, sub, "(", ")")?;
                    find_matching_brace(&v, mid + 1, "{", "}")?
                } else {
                    find_matching_brace(&v, sub, "{", "}")?
                };
                let joined = slice(&v, idx, end + 1).concat();
                v = cat(vec![slice(&v, 0, idx), one(joined), tail(&v, end + 1)]);
            }
            idx += 1;
        }
        l = v.join(" ");
    }
    l = replace_found(&l, regex!(r"(?s)\\begin\{array\} \{ [lrc ]+ \}"), |b| {
        b.replace("\\begin{array} ", "<s>").replace(' ', "").replace("<s>", "\\begin{array} ")
    });
    if !uni {
        l = replace_found(&l, regex!(r"(?s)\\not [<>+=\-]"), no_spaces);
    }
    l = format!(" {l} ");
    if uni {
        for (pat, rep) in SPACED_UNIMERNET {
            l = sub_spaced(&l, pat, rep);
        }
        l = replace_found(&l, regex!(r"(?s)\\string [^ ]+ "), |b| no_spaces(b) + " ");
    } else {
        for (pat, rep) in REPLACED_OMNIDOC {
            l = l.replace(pat, rep);
        }
    }
    l = replace_found(&l, regex!(r"(?s)\\[Bb]ig[g]?[glrm]? [(){}|\[\]] "), |b| no_spaces(b) + " ");
    l = replace_found(&l, regex!(r"(?s)\\[Bb]ig[g]?[glrm]? \\.*? "), |b| no_spaces(b) + " ");
    l = replace_found(&l, regex!(r"(?s)\\operatorname \*"), |_| "\\operatorname".to_string());
    l = l.replace("\\lefteqn", "");
    l = l.replace("\\footnote ", "^ ");
    l = replace_found(&l, regex!(r"(?s)\\' [^{] "), |b| no_spaces(b) + " ");
    if tabular {
        l = replace_found(&l, regex!(r"(?s)\[ [\-.0-9 ]+[exptcm ]+ \]"), no_spaces);
    }
    l = replace_found(&l, regex!(r"(?s)\\parbox \{[^{]+\}"), no_spaces);
    l = replace_found(&l, regex!(r"(?s)\\raisebox \{[^{]+\} [\[\]0-9 exptcm]+\{"), |b| {
        let a = no_spaces(b);
        let mut cs = a.chars();
        cs.next_back();
        format!("{} {{", cs.as_str())
    });
    l = replace_found(&l, regex!(r"(?s)\{ \\char[0-9' ]+\}"), |b| {
        let a = no_spaces(b);
        let mut cs = a.chars();
        cs.next();
        cs.next_back();
        format!("{{ {} }}", cs.as_str())
    });
    if uni {
        l = replace_found(&l, regex!(r"(?s)\\rule \{[ .0-9a-z]+\} \{[ .0-9a-z]+\}"), no_spaces);
    } else {
        l = replace_found(&l, regex!(r"(?s)\\not [\\=<>][^ ]+ "), |b| no_spaces(b) + " ");
    }
    l = replace_found(
        &l,
        regex!(r"(?s)\\specialrule \{[ .0-9a-z]+\} \{[ .0-9a-z]+\} \{[ .0-9a-z]+\}"),
        no_spaces,
    );
    l = replace_found(
        &l,
        regex!(
            r"(?s)\\colorbox[ \[\]RGBrgb]+\{ [A-Za-z 0-9,!]+ \} |\\color[ \[\]RGBrgb]+\{ [A-Za-z 0-9,!]+ \} |\\textcolor[ \[\]RGBrgb]+\{ [A-Za-z 0-9,!]+ \} |\\cellcolor[ \[\]RGBrgb]+\{ [A-Za-z 0-9,!]+ \} "
        ),
        |_| String::new(),
    );
    let v: Vec<String> = l.split(' ').map(str::to_string).collect();
    Ok(fill_braces(v, &classes(variant))?.join(" "))
}

/// The last step of `normalize_latex`: braces filled in after the commands that take
/// arguments (`\hat \lambda` -> `\hat { \lambda }`, `\frac 1 2` -> `\frac { 1 } { 2 }`).
fn fill_braces(mut v: Vec<String>, c: &Classes) -> Res<Vec<String>> {
    let one_tail = |t: &str| c.one_tail.contains(&t) || ONE_TAIL_INVISIBLE.contains(&t);
    let mut idx = 0isize;
    while (idx as usize) < v.len() {
        let token = v[idx as usize].clone();
        if one_tail(&token) {
            let mut sub = idx + 1;
            while (sub as usize) < v.len() && one_tail(&v[sub as usize]) {
                sub += 1;
            }
            let mut new = slice(&v, 0, idx);
            for ii in idx..sub {
                new.push(v[ii as usize].clone());
                new.push("{".into());
            }
            let closes = vec!["}".to_string(); (sub - idx) as usize];
            if at(&v, sub)? != "{" {
                new.push(at(&v, sub)?.to_string());
                new.extend(closes);
                v = cat(vec![new, tail(&v, sub + 1)]);
            } else {
                let end = find_matching_brace(&v, sub, "{", "}")?;
                new.extend(slice(&v, sub + 1, end));
                new.extend(closes);
                v = cat(vec![new, tail(&v, end + 1)]);
            }
        } else if AB_TAIL.contains(&token.as_str()) {
            let next = at(&v, idx + 1)?.to_string();
            if next != "[" && next != "{" {
                v = cat(vec![
                    slice(&v, 0, idx + 1),
                    one("{"),
                    one(next),
                    one("}"),
                    tail(&v, idx + 2),
                ]);
            } else {
                let end1 =
                    if next == "[" { find_matching_brace(&v, idx + 1, "[", "]")? } else { idx };
                let after = at(&v, end1 + 1)?.to_string();
                if after != "{" {
                    v = cat(vec![
                        slice(&v, 0, end1 + 1),
                        one("{"),
                        one(after),
                        one("}"),
                        tail(&v, end1 + 2),
                    ]);
                }
            }
        } else if TWO_TAIL.contains(&token.as_str()) || TWO_TAIL_INVISIBLE.contains(&token.as_str())
        {
            let next = at(&v, idx + 1)?.to_string();
            if next != "{" {
                v = cat(vec![
                    slice(&v, 0, idx + 1),
                    one("{"),
                    one(next),
                    one("}"),
                    tail(&v, idx + 2),
                ]);
            }
            let end1 = find_matching_brace(&v, idx + 1, "{", "}")?;
            let after = at(&v, end1 + 1)?.to_string();
            if after != "{" {
                v = cat(vec![
                    slice(&v, 0, end1 + 1),
                    one("{"),
                    one(after),
                    one("}"),
                    tail(&v, end1 + 2),
                ]);
            }
        }
        idx += 1;
    }
    Ok(v)
}
