//! ParseBench's text normalization, written from its description in
//! `evaluation/metrics/parse/utils.py` (`normalize_text`, `normalize_text_light`) and the
//! helpers of `rules_base.py` (`_strip_and_replace_latex`, `_strip_fenced_code_blocks`,
//! `_strip_html_tables_and_content`, `_unescape_html_entities`). Every step is applied in the
//! evaluator's order; positions and lengths count characters, as Python's `str` does.
//!
//! Python's `re` has look-around assertions that the `regex` crate lacks: those patterns are
//! scanned by hand here, with the same left-to-right, non-overlapping semantics as `re.sub`.

use std::sync::LazyLock;

use regex::Regex;

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a fixed pattern")
}

static AUTOLINK: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)<((?:https?://|mailto:)[^>\s]+|[^>@\s]+@[^>@\s]+\.[^>@\s]+)>"));
static BR: LazyLock<Regex> = LazyLock::new(|| re(r"<br\s*/?>"));
static BR_LIGHT: LazyLock<Regex> = LazyLock::new(|| re(r"<br/?>"));
static SPACES: LazyLock<Regex> = LazyLock::new(|| re(r"\s+"));
static BOLD_STARS: LazyLock<Regex> = LazyLock::new(|| re(r"\*\*(.*?)\*\*"));
static BOLD_UNDERSCORES: LazyLock<Regex> = LazyLock::new(|| re(r"__(.*?)__"));
static B_TAG: LazyLock<Regex> = LazyLock::new(|| re(r"</?b>"));
static I_TAG: LazyLock<Regex> = LazyLock::new(|| re(r"</?i>"));
static ITALIC_STAR: LazyLock<Regex> = LazyLock::new(|| re(r"\*(.*?)\*"));
static ITALIC_UNDERSCORE: LazyLock<Regex> = LazyLock::new(|| re(r"_(.*?)_"));
static STRIKE_TAGS: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)</?(?:s|del|strike)>"));
static SPAN: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)</?span\b[^>]*>"));
static SUP: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<sup[^>]*>.*?</sup>"));
static SUB: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<sub[^>]*>.*?</sub>"));
static SUP_DIGITS: LazyLock<Regex> =
    LazyLock::new(|| re("[\u{00b9}\u{00b2}\u{00b3}\u{2070}\u{2074}-\u{2079}]+"));
static SUB_DIGITS: LazyLock<Regex> = LazyLock::new(|| re("[\u{2080}-\u{2089}]+"));
static DASHES: LazyLock<Regex> = LazyLock::new(|| re(r"-{2,}"));
static TRAILING_DOTS: LazyLock<Regex> = LazyLock::new(|| re(r"\.{2,}\s*$"));
static MN: LazyLock<Regex> = LazyLock::new(|| re(r"^\p{Mn}$"));
static LATEX_COMMAND: LazyLock<Regex> = LazyLock::new(|| re(r"\\(?:[a-zA-Z]+|[^a-zA-Z])"));
static FENCED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?ms)^`{3,}(?:mermaid|description)[^\S\n]*\n.*?^`{3,}[^\S\n]*$"));
static HTML_TABLE_BLOCK: LazyLock<Regex> = LazyLock::new(|| re(r"(?is)<table\b[^>]*>.*?</table>"));
static HTML_TABLE_START: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<table\b[^>]*>"));

/// Single-quote look-alikes mapped to `'`.
const SINGLE_QUOTES: &str = "\u{2018}\u{2019}\u{201a}\u{201b}`\u{b4}\u{2bc}\u{2b9}\u{ff07}\u{2032}\u{2035}\u{2bb}\u{2ca}\u{2cb}";
/// Double-quote look-alikes mapped to `"`.
const DOUBLE_QUOTES: &str =
    "\u{201c}\u{201d}\u{201e}\u{201f}\u{301d}\u{301e}\u{ff02}\u{2033}\u{2036}\u{2ee}";

fn quote(c: char) -> Option<char> {
    if SINGLE_QUOTES.contains(c) {
        return Some('\'');
    }
    if DOUBLE_QUOTES.contains(c) {
        return Some('"');
    }
    Some(match c {
        '\u{ff0c}' | '\u{3001}' => ',',
        '\u{ff0e}' | '\u{3002}' => '.',
        '\u{ff1a}' => ':',
        '\u{ff1b}' => ';',
        '\u{ff01}' => '!',
        '\u{ff1f}' => '?',
        '\u{ff08}' => '(',
        '\u{ff09}' => ')',
        _ => return None,
    })
}

/// Quote and full-width punctuation variants to ASCII.
pub fn normalize_quotes(s: &str) -> String {
    s.chars().map(|c| quote(c).unwrap_or(c)).collect()
}

/// Bullet-like dots to `•`, circled crosses to `⊗`.
pub(super) fn symbol(c: char) -> char {
    match c {
        '\u{25cf}' | '\u{25cb}' | '\u{25e6}' | '\u{2219}' | '\u{2981}' | '\u{b7}' => '\u{2022}',
        '\u{2bbe}' | '\u{24e7}' | '\u{2a02}' => '\u{2297}',
        c => c,
    }
}

fn is_cjk_base(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{309f}' | '\u{30a0}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'
        | '\u{3400}'..='\u{4dbf}' | '\u{f900}'..='\u{faff}' | '\u{ac00}'..='\u{d7af}'
        | '\u{1100}'..='\u{11ff}' | '\u{0b80}'..='\u{0bff}' | '\u{0c80}'..='\u{0cff}')
}

/// Whether `c` is a nonspacing mark (Unicode category `Mn`).
pub(super) fn is_mn(c: char) -> bool {
    let mut b = [0u8; 4];
    MN.is_match(c.encode_utf8(&mut b))
}

/// NFD, nonspacing marks dropped (kept after a CJK base character when `keep_cjk`), NFC.
fn strip_accents(s: &str, keep_cjk: bool) -> String {
    use unicode_normalization::UnicodeNormalization;
    let mut out: Vec<char> = Vec::with_capacity(s.len());
    for c in s.nfd() {
        if !is_mn(c) || (keep_cjk && out.last().is_some_and(|&p| is_cjk_base(p))) {
            out.push(c);
        }
    }
    out.into_iter().collect::<String>().nfc().collect()
}

/// `normalize_text`: the text every rule compares, lower-cased, without Markdown emphasis,
/// HTML styling tags, accents, footnote super/subscripts and dot leaders.
pub fn normalize_text(md: &str) -> String {
    let s = AUTOLINK.replace_all(md, "$1");
    let s = BR.replace_all(&s, " ");
    let s = normalize_quotes(&s);
    let s = SPACES.replace_all(&s, " ");
    let s = BOLD_STARS.replace_all(&s, "$1");
    let s = BOLD_UNDERSCORES.replace_all(&s, "$1");
    let s = B_TAG.replace_all(&s, "");
    let s = I_TAG.replace_all(&s, "");
    let s = ITALIC_STAR.replace_all(&s, "$1");
    let s = ITALIC_UNDERSCORE.replace_all(&s, "$1");
    let s = s.replace('_', " ");
    let mut s = strip_accents(&s, true);
    for (from, to) in [
        ("\u{ff3f}", "_"),
        ("\u{2013}", "-"),
        ("\u{2014}", "-"),
        ("\u{2011}", "-"),
        ("\u{2012}", "-"),
        ("\u{2212}", "-"),
        ("\u{2026}", "..."),
        ("<ins>", ""),
        ("</ins>", ""),
        ("<u>", ""),
        ("</u>", ""),
        ("~~", ""),
        ("<mark>", ""),
        ("</mark>", ""),
        ("<br/>", " "),
        ("<br />", " "),
        ("\n", " "),
        ("$$", ""),
        ("\u{b5}", "\u{3bc}"),
    ] {
        if s.contains(from) {
            s = s.replace(from, to);
        }
    }
    let s: String = s.chars().map(symbol).collect();
    let s = STRIKE_TAGS.replace_all(&s, "");
    let s = SPAN.replace_all(&s, "");
    let s = SUP.replace_all(&s, "");
    let s = SUB.replace_all(&s, "");
    let s = SUP_DIGITS.replace_all(&s, "");
    let s = SUB_DIGITS.replace_all(&s, "");
    let s = DASHES.replace_all(&s, "-");
    let s = TRAILING_DOTS.replace_all(&s, "");
    s.to_lowercase()
}

/// `normalize_text_light`: whitespace, quotes, accents and dashes normalized, formatting
/// (Markdown emphasis, HTML styling tags), dots and case kept.
pub fn normalize_text_light(md: &str) -> String {
    let s = AUTOLINK.replace_all(md, "$1");
    let s = BR_LIGHT.replace_all(&s, " ");
    let s = SPAN.replace_all(&s, "");
    let s = normalize_quotes(&s);
    let s = SPACES.replace_all(&s, " ");
    let mut s = strip_accents(&s, false);
    for (from, to) in [
        ("\u{ff3f}", "_"),
        ("\u{2013}", "-"),
        ("\u{2014}", "-"),
        ("\u{2011}", "-"),
        ("\u{2012}", "-"),
        ("\u{2212}", "-"),
        ("\u{2026}", "..."),
        ("\u{b5}", "\u{3bc}"),
    ] {
        if s.contains(from) {
            s = s.replace(from, to);
        }
    }
    let s: String = s.chars().map(symbol).collect();
    let s = DASHES.replace_all(&s, "-");
    py_strip(&s).to_string()
}

/// Python's `str.strip()` (whitespace as `str.isspace` has it).
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Python's `str.isspace` for one character.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// A LaTeX body reduced to its digits, ASCII letters and operators (`a2+b2=c2`), or `LATEX`
/// when nothing is left.
fn simplify_latex_body(body: &str) -> String {
    let s = LATEX_COMMAND.replace_all(body, " ");
    let out: String = s
        .chars()
        .filter(|&c| !matches!(c, '{' | '}' | '^' | '_'))
        .filter(|c| c.is_ascii_alphanumeric() || "+-*/=<>().,".contains(*c))
        .collect();
    if out.is_empty() {
        "LATEX".to_string()
    } else {
        out
    }
}

/// `_strip_and_replace_latex`: every `$$…$$` block and every inline `$…$` (not one opening
/// before a digit, so `$15.00` stays) replaced by its simplified body.
pub fn strip_and_replace_latex(md: &str) -> String {
    let chars: Vec<char> = md.chars().collect();
    // Block math: `\$\$(?:[^$]|\$[^$])+\$\$`, DOTALL.
    let mut no_block: Vec<char> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '$' && chars.get(i + 1) == Some(&'$') {
            let mut j = i + 2;
            loop {
                match (chars.get(j), chars.get(j + 1)) {
                    (Some('$'), Some(c)) if *c != '$' => j += 2,
                    (Some(c), _) if *c != '$' => j += 1,
                    _ => break,
                }
            }
            if j > i + 2 && chars.get(j) == Some(&'$') && chars.get(j + 1) == Some(&'$') {
                let body: String = chars[i + 2..j].iter().collect();
                no_block.push(' ');
                no_block.extend(simplify_latex_body(&body).chars());
                no_block.push(' ');
                i = j + 2;
                continue;
            }
        }
        no_block.push(chars[i]);
        i += 1;
    }
    // Inline math: `\$(?!\d)(?:[^$\\\n]|\\.)+\$`.
    let chars = no_block;
    let mut out = String::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '$' && !chars.get(i + 1).is_some_and(|c| c.is_numeric() && is_decimal(*c)) {
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    Some('\\') if chars.get(j + 1).is_some_and(|&c| c != '\n') => j += 2,
                    Some(&c) if c != '$' && c != '\\' && c != '\n' => j += 1,
                    _ => break,
                }
            }
            if j > i + 1 && chars.get(j) == Some(&'$') {
                let body: String = chars[i + 1..j].iter().collect();
                out.push_str(&simplify_latex_body(&body));
                i = j + 1;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Python's `\d` in a `str` pattern: a decimal digit (category `Nd`); approximated by
/// `char::is_numeric` minus the non-decimal numerals this text meets (super/subscripts,
/// fractions, Roman numerals).
pub fn is_decimal(c: char) -> bool {
    c.is_ascii_digit()
        || (c.is_numeric()
            && !matches!(c,
                '\u{b2}' | '\u{b3}' | '\u{b9}' | '\u{bc}'..='\u{be}' | '\u{2070}'..='\u{209f}'
                | '\u{2150}'..='\u{218f}' | '\u{2460}'..='\u{24ff}' | '\u{2776}'..='\u{2793}'))
}

/// Python's `\w` in a `str` pattern: a letter, a number or `_`.
pub fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `_strip_fenced_code_blocks`: `mermaid` and `description` fenced blocks removed.
pub fn strip_fenced_code_blocks(md: &str) -> String {
    FENCED.replace_all(md, " ").into_owned()
}

/// `_strip_html_tables_and_content`: every `<table>…</table>` removed (repeatedly, for nested
/// ones), and everything from an unclosed `<table>` on.
pub fn strip_html_tables(md: &str) -> String {
    if !md.to_lowercase().contains("<table") {
        return md.to_string();
    }
    let mut s = md.to_string();
    loop {
        let next = HTML_TABLE_BLOCK.replace_all(&s, " ").into_owned();
        if next == s {
            break;
        }
        s = next;
    }
    if let Some(m) = HTML_TABLE_START.find(&s) {
        s = format!("{} ", &s[..m.start()]);
    }
    s
}

/// The HTML named entities decoded here (a subset of HTML5's: those met in documents' text).
const NAMED: &[(&str, &str)] = &[
    ("amp", "&"),
    ("lt", "<"),
    ("gt", ">"),
    ("quot", "\""),
    ("apos", "'"),
    ("nbsp", "\u{a0}"),
    ("times", "\u{d7}"),
    ("divide", "\u{f7}"),
    ("plusmn", "\u{b1}"),
    ("middot", "\u{b7}"),
    ("deg", "\u{b0}"),
    ("ndash", "\u{2013}"),
    ("mdash", "\u{2014}"),
    ("hellip", "\u{2026}"),
    ("lsquo", "\u{2018}"),
    ("rsquo", "\u{2019}"),
    ("ldquo", "\u{201c}"),
    ("rdquo", "\u{201d}"),
    ("copy", "\u{a9}"),
    ("reg", "\u{ae}"),
    ("trade", "\u{2122}"),
    ("micro", "\u{b5}"),
    ("le", "\u{2264}"),
    ("ge", "\u{2265}"),
    ("ne", "\u{2260}"),
    ("minus", "\u{2212}"),
    ("euro", "\u{20ac}"),
    ("pound", "\u{a3}"),
    ("yen", "\u{a5}"),
    ("cent", "\u{a2}"),
    ("sect", "\u{a7}"),
    ("para", "\u{b6}"),
    ("bull", "\u{2022}"),
];

/// `html.unescape` for numeric references and the entities of [`NAMED`] ending in `;`.
fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find('&') {
        out.push_str(&rest[..k]);
        let tail = &rest[k + 1..];
        if let Some(num) = tail.strip_prefix('#') {
            let (hex, digits) = match num.strip_prefix(['x', 'X']) {
                Some(h) => (true, h),
                None => (false, num),
            };
            let len = digits
                .find(|c: char| if hex { !c.is_ascii_hexdigit() } else { !c.is_ascii_digit() })
                .unwrap_or(digits.len());
            if len > 0 {
                let code = u32::from_str_radix(&digits[..len], if hex { 16 } else { 10 }).ok();
                out.push(match code {
                    Some(0) | None => '\u{fffd}',
                    Some(c) => char::from_u32(c).unwrap_or('\u{fffd}'),
                });
                let after = &digits[len..];
                rest = after.strip_prefix(';').unwrap_or(after);
                continue;
            }
        } else if let Some(semi) = tail.find(';') {
            if let Some((_, v)) = NAMED.iter().find(|(n, _)| *n == &tail[..semi]) {
                out.push_str(v);
                rest = &tail[semi + 1..];
                continue;
            }
        }
        out.push('&');
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// `_unescape_html_entities`: at most two decoding passes, stopping before a pass that adds
/// `&` characters.
pub fn unescape_html_entities(s: &str) -> String {
    let mut decoded = s.to_string();
    for _ in 0..2 {
        let next = unescape(&decoded);
        if next == decoded {
            break;
        }
        if next.matches('&').count() > decoded.matches('&').count() {
            break;
        }
        decoded = next;
    }
    decoded
}

/// The autolink pattern's substitution (`<http://x>` → `http://x`).
pub fn strip_autolinks(s: &str) -> String {
    AUTOLINK.replace_all(s, "$1").into_owned()
}

/// Python's `str.count` on characters: non-overlapping occurrences, left to right.
pub fn count_substr(hay: &str, needle: &str) -> usize {
    if needle.is_empty() {
        return hay.chars().count() + 1;
    }
    hay.matches(needle).count()
}

/// Python's `str.find`, as a character index.
pub fn find_chars(hay: &str, needle: &str) -> Option<usize> {
    hay.find(needle).map(|b| hay[..b].chars().count())
}

/// Python's `str.rfind`, as a character index.
pub fn rfind_chars(hay: &str, needle: &str) -> Option<usize> {
    hay.rfind(needle).map(|b| hay[..b].chars().count())
}

/// `len(re.findall(r"(?<!\w)" + re.escape(needle) + r"(?!\w)", hay))`: occurrences of `needle`
/// not touching a word character on either side, non-overlapping, left to right.
pub fn count_bounded(needle: &str, hay: &str) -> usize {
    let n: Vec<char> = needle.chars().collect();
    let h: Vec<char> = hay.chars().collect();
    if n.is_empty() || n.len() > h.len() {
        return 0;
    }
    let mut count = 0;
    let mut i = 0;
    while i + n.len() <= h.len() {
        let ok = h[i..i + n.len()] == n[..]
            && (i == 0 || !is_word(h[i - 1]))
            && h.get(i + n.len()).is_none_or(|&c| !is_word(c));
        if ok {
            count += 1;
            i += n.len();
        } else {
            i += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_text_drops_emphasis_accents_and_footnotes() {
        assert_eq!(
            normalize_text("**Héllo**  _world_\n“quoted” — ok"),
            "hello world \"quoted\" - ok"
        );
        assert_eq!(normalize_text("84.1<sup>(2)</sup> and x¹"), "84.1 and x");
        assert_eq!(normalize_text("Operating income.........."), "operating income");
        assert_eq!(normalize_text("<http://a.b/c> a_b"), "http://a.b/c a b");
        assert_eq!(normalize_text("µ <u>under</u> ~~gone~~"), "μ under gone");
    }

    #[test]
    fn light_normalization_keeps_formatting_and_case() {
        assert_eq!(normalize_text_light("  **Bold**  <br> <span a=1>x</span> é "), "**Bold** x e");
    }

    #[test]
    fn latex_is_replaced_by_its_simplified_body_but_prices_stay() {
        assert_eq!(strip_and_replace_latex("a $x^2 + y$ b"), "a x2+y b");
        assert_eq!(strip_and_replace_latex("$$\\frac{a}{b}$$"), " ab ");
        assert_eq!(strip_and_replace_latex("costs $15.00 and $20"), "costs $15.00 and $20");
        // Commands go with their names: only what they act on stays.
        assert_eq!(strip_and_replace_latex("$\\alpha$"), "LATEX");
        assert_eq!(strip_and_replace_latex("$a+\\beta_1$"), "a+1");
        assert_eq!(strip_and_replace_latex("$\\,$"), "LATEX");
    }

    #[test]
    fn bounded_counts_respect_word_edges() {
        assert_eq!(count_bounded("the", "the then other the."), 2);
        assert_eq!(count_bounded("a b", "a b a b"), 2);
    }

    #[test]
    fn tables_and_fences_are_stripped() {
        assert_eq!(strip_html_tables("x <table><tr><td>1</td></tr></table> y"), "x   y");
        assert_eq!(strip_html_tables("x <table><tr>"), "x  ");
        assert_eq!(strip_fenced_code_blocks("a\n```mermaid\ngraph\n```\nb"), "a\n \nb");
        assert_eq!(unescape_html_entities("&amp;lt;h1&amp;gt; &lt;"), "<h1> <");
    }
}
