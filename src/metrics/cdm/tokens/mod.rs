//! LaTeX to coloured tokens, as the official CDM prepares a formula before rendering it
//! (`latex2bbox_color.py` up to the TeX run): the im2markup-style normalization the official
//! code runs through a patched KaTeX under node (`katex`, with the node scripts' own line
//! edits here), the Python post-processing of `tokenize_latex.py`, `normalize_latex`
//! (`normalize`) and one colour per token ([`color`]). Byte for byte the official output on
//! the study's and OmniDocBench's formulas (`bench/cdm_tokens_reference.sh`); the rules are in
//! `docs/cdm.md` ("Tokens and colours").

mod color;
mod katex;
mod normalize;
mod py;
mod symbols;

use std::sync::OnceLock;

use regex::Regex;

use super::Variant;

/// Which document template the renderer must wrap [`Prepared::body`] in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// An ordinary formula.
    Formula,
    /// A formula holding `tabular` (UniMERNet's variant only: OmniDocBench's picks the
    /// tabular template and then renders with the formula one).
    Tabular,
    /// A formula with CJK text (UniMERNet's variant only: the `CJK` package's template).
    FormulaZh,
}

/// A formula ready to render.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The tokens, in order; token `i` is drawn in `colors[i]`.
    pub tokens: Vec<String>,
    /// One RGB colour per token.
    pub colors: Vec<[u8; 3]>,
    /// The coloured LaTeX to put inside the template's `displaymath`.
    pub body: String,
    /// The `a<N>paper` size the official code picks from the token count (3, 4 or 5).
    pub paper: u8,
    /// The template.
    pub template: Template,
    /// False when tokenization failed and the raw LaTeX was normalized instead (as the
    /// official code falls back).
    pub tokenized: bool,
    /// Set when the official code gives up on this formula before rendering it (a Python
    /// exception in `normalize_latex` or the colouring, e.g. an unclosed brace after the
    /// fallback): it then writes no boxes at all. `tokens`, `colors` and `body` are empty.
    pub error: Option<String>,
}

/// The colours the official code hands out, `gen_color_list(num=5800, gap=15)`: token `i`
/// gets the `i+1`-th point of an 18×18×18 grid with steps of 15, blue fastest.
pub fn color(i: usize) -> [u8; 3] {
    let idx = i + 1;
    [(idx / 324 * 15) as u8, (idx % 324 / 18 * 15) as u8, (idx % 18 * 15) as u8]
}

/// How many colours the official list holds.
const COLORS: usize = 5800;

/// Prepares `latex` for rendering as `variant` does.
pub fn prepare(latex: &str, variant: Variant) -> Prepared {
    let uni = variant == Variant::UniMERNet;
    let mut latex = latex.to_string();
    let mut template = Template::Formula;
    if uni {
        if latex.contains("tabular") {
            template = Template::Tabular;
        } else if contains_chinese(&latex) {
            template = Template::FormulaZh;
            latex = latex.replace('，', ", ").replace('：', ": ").replace('；', "; ");
            latex = wrap_chinese_in_text(&latex);
        }
    }
    let latex = latex.replace('\n', " ").replace("\\%", "<PERCENTAGETOKEN>");
    let tokenized_latex = tokenize_latex(&latex);
    let tokenized = tokenized_latex.as_deref().is_some_and(|s| !s.is_empty());
    let mut new_latex = match tokenized_latex {
        Some(s) if !s.is_empty() => s,
        _ => latex,
    };
    if uni && contains_chinese(&new_latex) {
        new_latex = new_latex.replace("\\mathrm", "\\text");
    }
    let new_latex = new_latex.replace("< P E R C E N T A G E T O K E N >", "\\%");
    match colour(&new_latex, variant) {
        Ok((tokens, body)) => {
            let paper = match tokens.len() {
                n if n > 1300 => 3,
                n if n > 600 => 4,
                _ => 5,
            };
            let colors = (0..tokens.len()).map(color).collect();
            Prepared { tokens, colors, body, paper, template, tokenized, error: None }
        }
        Err(e) => Prepared {
            tokens: Vec::new(),
            colors: Vec::new(),
            body: String::new(),
            paper: 5,
            template,
            tokenized,
            error: Some(e),
        },
    }
}

/// `normalize_latex`, then the colouring walk and the colour numbers filled in.
fn colour(latex: &str, variant: Variant) -> py::Res<(Vec<String>, String)> {
    let classes = normalize::classes(variant);
    let normalized = normalize::normalize_latex(latex, variant)?;
    let mut v: Vec<String> = py::strip(&normalized).split(' ').map(str::to_string).collect();
    let n_colors = v.len().min(COLORS);
    let mut tokens = Vec::new();
    let mut idx = 0isize;
    while (idx as usize) < v.len() {
        let next = color::add_color(&mut v, idx, &mut tokens, false, &classes)?;
        if next <= idx {
            return Err(format!("the official colouring loops forever at token {idx}"));
        }
        idx = next;
    }
    let joined = v.join(" ");
    static PLACEHOLDER: OnceLock<Regex> = OnceLock::new();
    let placeholder = PLACEHOLDER.get_or_init(|| Regex::new(r"<color_([0-9]+)>").unwrap());
    let body = placeholder
        .replace_all(&joined, |c: &regex::Captures| {
            let n: usize = c[1].parse().unwrap_or(usize::MAX);
            if n < n_colors && n.to_string() == c[1] {
                let [r, g, b] = color(n);
                format!("{r},{g},{b}")
            } else {
                c[0].to_string()
            }
        })
        .into_owned();
    Ok((tokens, body))
}

fn is_cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// `contains_chinese` (UniMERNet's `latex2bbox_color.py`).
fn contains_chinese(s: &str) -> bool {
    s.chars().any(is_cjk)
}

/// `wrap_chinese_in_text`: each run of CJK characters in `\text{…}`, unless it is already
/// the whole of one.
fn wrap_chinese_in_text(s: &str) -> String {
    let wide = |c: char| is_cjk(c) || ('\u{3400}'..='\u{4dbf}').contains(&c);
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if !wide(chars[i]) {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && wide(chars[i]) {
            i += 1;
        }
        let run: String = chars[start..i].iter().collect();
        let before: String = chars[start.saturating_sub(6)..start].iter().collect();
        if before.ends_with("\\text{") && chars.get(i) == Some(&'}') {
            out.push_str(&run);
        } else {
            out.push_str(&format!("\\text{{{run}}}"));
        }
    }
    out
}

/// `tokenize_latex.tokenize_latex`: `Some(tokens)` (possibly empty, when the node script
/// failed on the formula) or `None` for an empty input.
fn tokenize_latex(latex: &str) -> Option<String> {
    if latex.is_empty() {
        return None;
    }
    if latex.contains("tabular") {
        return Some(tokenize_tabular(latex));
    }
    let pre =
        sub_environment(latex, &["split", "align", "alignedat", "alignat", "eqnarray"], "aligned");
    let pre = sub_environment(&pre, &["smallmatrix"], "matrix");
    let out = run_script(&pre, false)?;
    let post = py::split_ws(&out).join(" ");
    Some(operator_names(&post).replace("\\\\ \\end{array}", "\\end{array}"))
}

/// `re.sub(r'\\begin{(NAMES)\*?}(.+?)\\end{\1\*?}', r'\\begin{TO}\2\\end{TO}', s, flags=re.S)`.
fn sub_environment(s: &str, names: &[&str], to: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    'scan: while i < s.len() {
        let rest = &s[i..];
        if let Some(after) = rest.strip_prefix("\\begin{") {
            for name in names {
                let Some(r) = after.strip_prefix(name) else { continue };
                let r = r.strip_prefix('*').filter(|r| r.starts_with('}')).unwrap_or(r);
                let Some(body) = r.strip_prefix('}') else { continue };
                // `(.+?)`: at least one character, then the first `\end{NAME*?}`.
                let Some(first) = body.chars().next() else { continue };
                let mut j = first.len_utf8();
                while j <= body.len() {
                    let tail = &body[j..];
                    if let Some(t) = tail.strip_prefix("\\end{").and_then(|t| t.strip_prefix(name))
                    {
                        let t = t.strip_prefix('*').filter(|t| t.starts_with('}')).unwrap_or(t);
                        if let Some(t) = t.strip_prefix('}') {
                            out.push_str(&format!("\\begin{{{to}}}{}\\end{{{to}}}", &body[..j]));
                            i = s.len() - t.len();
                            continue 'scan;
                        }
                    }
                    match tail.chars().next() {
                        Some(c) => j += c.len_utf8(),
                        None => break,
                    }
                }
            }
        }
        let c = rest.chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// `tokenize_latex`'s `\operatorname {…}` -> `\sin` rewrite. Its pattern joins the names
/// character by character with `\s?` (the `|`s too), so `arccos` (no leading `\s?`) and `tanh`
/// (no trailing one) never match; we build the same pattern.
fn operator_names(s: &str) -> String {
    static OPS: OnceLock<Regex> = OnceLock::new();
    let ops = OPS.get_or_init(|| {
        let names = [
            "arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg", "det",
            "dim", "exp", "gcd", "hom", "inf", "injlim", "ker", "lg", "lim", "liminf", "limsup",
            "ln", "log", "max", "min", "Pr", "projlim", "sec", "sin", "sinh", "sup", "tan", "tanh",
        ]
        .join("|");
        let joined = names.chars().map(String::from).collect::<Vec<_>>().join("\\s?");
        Regex::new(&format!("\\\\operatorname \\{{({joined})\\}}")).unwrap()
    });
    ops.replace_all(s, |c: &regex::Captures| format!("\\{}", c[1].replace(' ', ""))).into_owned()
}

/// The tabular branch of `tokenize_latex`: `%` comments cut, `\end{tabular}` appended when
/// missing, `hskip…pt` as `hspace{…pt}` (its perl one-liner), then every token KaTeX reads.
fn tokenize_tabular(latex: &str) -> String {
    let mut l = latex.replace("\\\\%", "\\\\ %").replace("\\%", "<PERCENTAGE_TOKEN>");
    l = l.split('%').next().unwrap_or("").replace("<PERCENTAGE_TOKEN>", "\\%");
    if !l.contains("\\end{tabular}") {
        l.push_str("\\end{tabular}");
    }
    let l = l.replace(['\r', '\n'], " ");
    static HSKIP: OnceLock<Regex> = OnceLock::new();
    let hskip = HSKIP.get_or_init(|| Regex::new(r"hskip(.*?)(cm|in|pt|mm|em)").unwrap());
    let l = hskip.replace_all(&l, "hspace{${1}${2}}").into_owned();
    let out = run_script(&l, true).unwrap_or_default();
    py::split_ws(&out).join(" ")
}

/// Runs `preprocess_formula.js normalize` (or `preprocess_tabular.js tokenize`) on `input`:
/// node's `readline` splits it into lines, each printed on its own; Python keeps the last.
fn run_script(input: &str, tabular: bool) -> Option<String> {
    let mut lines: Vec<&str> = Vec::new();
    let mut rest = input;
    while let Some(p) = rest.find(['\r', '\n']) {
        lines.push(&rest[..p]);
        let skip = if rest[p..].starts_with("\r\n") { 2 } else { 1 };
        rest = &rest[p + skip..];
    }
    if !rest.is_empty() {
        lines.push(rest);
    }
    lines.last().map(|line| script_line(line, tabular))
}

/// `String.prototype.replace` with a string or regex: the first occurrence only.
fn replace_first(s: &mut String, pat: &str, with: &str) -> bool {
    match s.find(pat) {
        Some(p) => {
            s.replace_range(p..p + pat.len(), with);
            true
        }
        None => false,
    }
}

/// `/\\label{.*?}/` (`.` stops at line terminators), first match removed.
fn remove_label(s: &mut String) -> bool {
    let mut from = 0;
    while let Some(p) = s[from..].find("\\label{").map(|p| p + from) {
        let body = p + "\\label{".len();
        if let Some(q) = s[body..].find('}') {
            if !s[body..body + q].contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
                s.replace_range(p..body + q + 1, "");
                return true;
            }
        }
        from = body;
    }
    false
}

/// One line through the node script.
fn script_line(line: &str, tabular: bool) -> String {
    let mut line = line.strip_prefix('%').unwrap_or(line).to_string();
    if !tabular {
        line = line.split('%').next().unwrap_or("").to_string();
    }
    line = line.replace("\\~", " ");
    for _ in 0..300 {
        let a = replace_first(&mut line, "\\>", " ");
        let b = !tabular && replace_first(&mut line, "$", " ");
        let c = remove_label(&mut line);
        if !(a || b || c) {
            break;
        }
    }
    if !["matrix", "cases", "array", "begin"].iter().any(|w| line.contains(w)) {
        for _ in 0..300 {
            if !replace_first(&mut line, "\\\\", "\\,") {
                break;
            }
        }
    }
    line.push(' ');
    static LABEL: OnceLock<Regex> = OnceLock::new();
    let label = LABEL.get_or_init(|| Regex::new(r"\\label \{ .*? \}").unwrap());
    if tabular {
        return match katex::tokenize(&line) {
            Ok(g) => label.replacen(&g, 1, "").into_owned(),
            Err(_) => String::new(),
        };
    }
    for _ in 0..300 {
        let a = replace_first(&mut line, "{\\rm", "\\mathrm{");
        let b = replace_first(&mut line, "{ \\rm", "\\mathrm{");
        let c = replace_first(&mut line, "\\rm{", "\\mathrm{");
        if !(a || b || c) {
            break;
        }
    }
    match katex::normalize(&line) {
        Ok(mut norm) => {
            for _ in 0..300 {
                let a = replace_first(&mut norm, "SSSSSS", "$");
                let b = replace_first(&mut norm, " S S S S S S", "$");
                if !(a || b) {
                    break;
                }
            }
            label.replacen(&norm, 1, "").into_owned()
        }
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests;
