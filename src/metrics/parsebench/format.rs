//! Formatting, title, LaTeX and code-block rules (ParseBench's `rules_formatting.py`:
//! `FormattingRule`, `TitleLevelRule`, `TitleHierarchyPercentRule`, `LatexRule`,
//! `CodeBlockRule`).
//!
//! These rules search the *raw* Markdown with regular expressions that use look-around and
//! lazy "tempered" tokens, so they run on `fancy-regex`, a backtracking engine with Python's
//! `re` semantics for these constructs; every pattern is the evaluator's, written out here.
//!
//! - **Styling** (`is_bold`, `is_italic`, `is_underline`, `is_strikeout`, `is_mark`, `is_sup`,
//!   `is_sub` and their `is_not_` forms): the rule's text (words joined by whitespace runs
//!   that may carry inline markup: `**`, `*`, `~~`, `_`, `__`, tags) inside the kind's markers
//!   (`**…**`, a `<b>` span or a heading line for bold; `*…*`, `_…_`, `<i>`, `<em>` for italic;
//!   `<u>`/`<ins>`; `~~`/`<s>`/`<del>`/`<strike>`; `<mark>`; `<sup>`; `<sub>`), in the Markdown
//!   with backslash escapes removed; failing that, in the Markdown with every *other* kind of
//!   markup stripped; for sup/sub, also a run of Unicode super/subscript characters whose
//!   NFKD holds the text. `is_` passes when found, `is_not_` when not.
//! - **`is_title`**: the text as a Markdown or HTML heading, or alone on a line in bold
//!   (`level` is not checked, as in the evaluator), in the Markdown, its HTML-unescaped form, or
//!   that with `\#` and `\*\*` unescaped; else a heading or bold line whose normalized text
//!   equals the rule's.
//! - **`title_hierarchy_percent`**: each title of the expected tree found, each parent before
//!   and above (a lower level; bold lines are level 7) its children, siblings in order:
//!   satisfied constraints / constraints; passes at ≥ 0.999.
//! - **`is_latex`**: the formula (delimiters stripped, entities decoded, whitespace removed) is
//!   one of the output's `$$…$$`, `$…$`, `\(…\)`, `\[…\]` formulas normalized the same way.
//! - **`is_code_block`**: a fenced block of the language holds the code (verbatim, or with
//!   whitespace runs collapsed).

use std::sync::LazyLock;

use fancy_regex::Regex as Fancy;
use regex::Regex;
use serde_json::Value;

use super::normalize::{normalize_text, py_strip, unescape_html_entities};
use super::Outcome;

fn fancy(p: &str) -> Fancy {
    Fancy::new(p).expect("a pattern built from escaped text")
}

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a fixed pattern")
}

/// `_INLINE_MARKUP_OPT`: optional inline markup between and around words.
const MARKUP: &str = r"(?:\*{1,2}|~~|__?|</?\w+(?:\s[^>]*)?>)*";

static BACKSLASH_ESCAPE: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\\([!"\#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])"#));

/// The words of a text, each escaped: Python's `re.escape(text).split("\\ ")`.
fn escaped_words(text: &str) -> Vec<String> {
    text.split(' ').map(regex::escape).collect()
}

/// `_make_markup_tolerant(re.escape(text))`.
pub(crate) fn tolerant(text: &str) -> String {
    let joiner = format!(r"{MARKUP}\s+{MARKUP}");
    format!("{MARKUP}{}{MARKUP}", escaped_words(text).join(&joiner))
}

/// `re.sub(r"\\ ", r"\\s+", re.escape(text))`.
fn simple(text: &str) -> String {
    escaped_words(text).join(r"\s+")
}

/// The styling kinds.
const KINDS: [&str; 7] = ["bold", "italic", "underline", "strikeout", "mark", "sup", "sub"];

/// The detectors of a kind around the query pattern `q`.
fn patterns(kind: &str, q: &str) -> Vec<Fancy> {
    let p = |s: String| fancy(&s);
    match kind {
        "bold" => {
            let nb = r"(?:(?!\*\*).)*?";
            let nt = r"(?:(?!</b>).)*?";
            vec![
                p(format!(r"(?is)\*\*(?!\s){nb}{q}{nb}(?<!\s)\*\*")),
                p(format!(r"(?is)<b>{nt}{q}{nt}</b>")),
                p(format!(r"(?im)^[ \t]*#{{1,6}}[ \t]+[^\n]*?{q}[^\n]*?[ \t]*(?:#+[ \t]*)?$")),
            ]
        }
        "italic" => {
            let ns = r"(?:(?!\*(?!\*)).)*?";
            let nu = r"(?:(?!_(?!_)).)*?";
            let ni = r"(?:(?!</i>).)*?";
            let ne = r"(?:(?!</em>).)*?";
            vec![
                p(format!(r"(?is)(?<!\*)\*(?!\*){ns}{q}{ns}\*(?!\*)")),
                p(format!(r"(?is)(?<!_)_(?!_){nu}{q}{nu}_(?!_)")),
                p(format!(r"(?is)<i>{ni}{q}{ni}</i>")),
                p(format!(r"(?is)<em>{ne}{q}{ne}</em>")),
            ]
        }
        "underline" => vec![p(format!(r"(?i)<u>{q}</u>")), p(format!(r"(?i)<ins>{q}</ins>"))],
        "strikeout" => vec![
            p(format!(r"(?i)~~{q}~~")),
            p(format!(r"(?i)<(?:s|del|strike)>{q}</(?:s|del|strike)>")),
        ],
        "mark" => vec![p(format!(r"(?i)<mark>{q}</mark>"))],
        "sup" => vec![p(format!(r"(?i)<sup>{q}</sup>"))],
        "sub" => vec![p(format!(r"(?i)<sub>{q}</sub>"))],
        _ => Vec::new(),
    }
}

/// `_STRIP_PATTERNS`: how each kind's markup is removed.
fn strip_patterns(kind: &str) -> Vec<(Fancy, &'static str)> {
    match kind {
        "bold" => vec![
            (fancy(r"(?s)\*\*\*(.+?)\*\*\*"), "$1"),
            (fancy(r"(?s)\*\*(.+?)\*\*"), "$1"),
            (fancy(r"(?i)</?b>"), ""),
        ],
        "italic" => vec![
            (fancy(r"(?<!\*)\*(?!\*)(.+?)(?<!\*)\*(?!\*)"), "$1"),
            (fancy(r"(?<!_)_(?!_)(.+?)(?<!_)_(?!_)"), "$1"),
            (fancy(r"(?i)</?(?:i|em)>"), ""),
        ],
        "underline" => vec![(fancy(r"(?i)</?(?:u|ins)>"), "")],
        "strikeout" => vec![(fancy(r"~~"), ""), (fancy(r"(?i)</?(?:s|del|strike)>"), "")],
        "mark" => vec![(fancy(r"(?i)</?mark\b[^>]*>"), "")],
        "sup" => vec![(fancy(r"(?i)</?sup>"), "")],
        "sub" => vec![(fancy(r"(?i)</?sub>"), "")],
        _ => Vec::new(),
    }
}

static HSPACE: LazyLock<Regex> = LazyLock::new(|| re(r"[^\S\n]+"));
static NEWLINE_SPACES: LazyLock<Regex> = LazyLock::new(|| re(r" ?\n ?"));
static SPACE_PUNCT: LazyLock<Regex> = LazyLock::new(|| re(r" ([,;:!?.\)\]\}])"));

/// `_strip_other_formatting`: every kind's markup but `keep`'s removed, spaces tidied.
pub(crate) fn strip_other(text: &str, keep: &str) -> String {
    let mut s = text.to_string();
    for kind in KINDS.iter().filter(|k| **k != keep) {
        for (p, rep) in strip_patterns(kind) {
            s = p.replace_all(&s, rep).into_owned();
        }
    }
    let s = HSPACE.replace_all(&s, " ");
    let s = NEWLINE_SPACES.replace_all(&s, "\n");
    SPACE_PUNCT.replace_all(&s, "$1").into_owned()
}

const SUPERSCRIPTS: &str = "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ";
const SUBSCRIPTS: &str = "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ";

/// Whether a run of the given script characters, in NFKD and lower case, holds `query`.
fn unicode_script_holds(content: &str, set: &str, query: &str) -> bool {
    use unicode_normalization::UnicodeNormalization;
    let q = query.to_lowercase();
    let mut run = String::new();
    for c in content.chars().chain(std::iter::once('\0')) {
        if set.contains(c) && c != '\0' {
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            let t: String = run.nfkd().collect::<String>().to_lowercase();
            if t.contains(&q) {
                return true;
            }
            run.clear();
        }
    }
    false
}

fn any_match(ps: &[Fancy], text: &str) -> bool {
    // A search that exceeds the engine's backtracking limit counts as no match.
    ps.iter().any(|p| p.is_match(text).unwrap_or(false))
}

/// A styling rule: `is_<kind>` (`present`) or `is_not_<kind>`.
pub fn styling(kind: &str, present: bool, text: &str, md: &str) -> Outcome {
    let text = py_strip(text);
    if text.is_empty() {
        return Outcome::error("Text field cannot be empty");
    }
    let clean = BACKSLASH_ESCAPE.replace_all(md, "$1");
    let mut found = any_match(&patterns(kind, &tolerant(text)), &clean);
    if !found {
        let stripped = strip_other(&clean, kind);
        found = any_match(&patterns(kind, &simple(text)), &stripped);
    }
    if !found && kind == "sup" {
        found = unicode_script_holds(md, SUPERSCRIPTS, text);
    }
    if !found && kind == "sub" {
        found = unicode_script_holds(md, SUBSCRIPTS, text);
    }
    let t40: String = text.chars().take(40).collect();
    match (present, found) {
        (true, true) | (false, false) => Outcome::pass(),
        (true, false) => Outcome::fail(format!(
            "Expected '{t40}' to be formatted as {kind}, but no {kind} formatting found"
        )),
        (false, true) => Outcome::fail(format!(
            "Expected '{t40}' NOT to be formatted as {kind}, but unexpectedly had {kind} formatting"
        )),
    }
}

/// The kind and polarity of a styling type (`is_not_bold` → (`bold`, false)).
pub fn styling_kind(kind: &str) -> Option<(&'static str, bool)> {
    if let Some(k) = kind.strip_prefix("is_not_") {
        return KINDS.iter().find(|x| **x == k).map(|x| (*x, false));
    }
    let k = kind.strip_prefix("is_")?;
    KINDS.iter().find(|x| **x == k).map(|x| (*x, true))
}

static ESCAPED_HEADING: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\\(#{1,6}\s+)"));

/// `_title_content_candidates`: the Markdown, HTML-unescaped, then with `\#` and `\*\*`
/// unescaped (each once).
fn candidates(md: &str) -> Vec<String> {
    let mut out = vec![md.to_string()];
    let un = unescape_html_entities(md);
    if !out.contains(&un) {
        out.push(un.clone());
    }
    let md_un = ESCAPED_HEADING.replace_all(&un, "$1").replace(r"\*\*", "**");
    if !out.contains(&md_un) {
        out.push(md_un);
    }
    out
}

/// Python's `str.splitlines`.
pub(super) fn splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let brk = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if brk {
            out.push(&s[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r' {
                if let Some(&(j, '\n')) = it.peek() {
                    it.next();
                    end = j + 1;
                }
            }
            start = end;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

static MD_HEADING: LazyLock<Fancy> = LazyLock::new(|| fancy(r"^\s*(#{1,6})\s+(.+?)\s*$"));
static TRAILING_HASHES: LazyLock<Regex> = LazyLock::new(|| re(r"\s+#+\s*$"));
static HTML_HEADING: LazyLock<Fancy> =
    LazyLock::new(|| fancy(r"(?i)<h([1-6])[^>]*>\s*(.*?)\s*</h\1>"));
static MD_BOLD_LINE: LazyLock<Fancy> = LazyLock::new(|| fancy(r"^\s*\*\*\s*(.+?)\s*\*\*\s*$"));
static HTML_BOLD_LINE: LazyLock<Fancy> =
    LazyLock::new(|| fancy(r"(?i)^\s*<b[^>]*>\s*(.*?)\s*</b>\s*$"));
static TAGS: LazyLock<Regex> = LazyLock::new(|| re(r"<[^>]+>"));

fn title_label(s: &str) -> String {
    py_strip(&normalize_text(s)).to_string()
}

/// `_extract_title_events`: (line, level, normalized title), sorted; bold lines are level 7.
pub fn title_events(md: &str) -> Vec<(usize, u8, String)> {
    let mut events: Vec<(usize, u8, String)> = Vec::new();
    let mut push = |e: (usize, u8, String)| {
        if !e.2.is_empty() && !events.contains(&e) {
            events.push(e);
        }
    };
    for cand in candidates(md) {
        for (i, line) in splitlines(&cand).into_iter().enumerate() {
            if let Ok(Some(c)) = MD_HEADING.captures(line) {
                let level = c.get(1).map_or(0, |m| m.as_str().len()) as u8;
                let t = TRAILING_HASHES.replace(c.get(2).map_or("", |m| m.as_str()), "");
                push((i, level, title_label(py_strip(&t))));
            }
            for c in HTML_HEADING.captures_iter(line).flatten() {
                let level: u8 = c.get(1).and_then(|l| l.as_str().parse().ok()).unwrap_or(0);
                let t = TAGS.replace_all(c.get(2).map_or("", |m| m.as_str()), " ");
                push((i, level, title_label(py_strip(&t))));
            }
            if let Ok(Some(c)) = MD_BOLD_LINE.captures(line) {
                push((i, 7, title_label(c.get(1).map_or("", |m| m.as_str()))));
            }
            if let Ok(Some(c)) = HTML_BOLD_LINE.captures(line) {
                let t = TAGS.replace_all(c.get(1).map_or("", |m| m.as_str()), " ");
                push((i, 7, title_label(py_strip(&t))));
            }
        }
    }
    events.sort();
    events
}

/// `is_title`.
pub fn is_title(text: &str, md: &str) -> Outcome {
    let text = py_strip(text);
    if text.is_empty() {
        return Outcome::error("Text field cannot be empty");
    }
    let f = tolerant(text);
    let ps = [
        fancy(&format!(r"(?im)^#{{1,6}}\s+{f}")),
        fancy(&format!(r"(?i)<h[1-6][^>]*>\s*{f}\s*</h[1-6]>")),
        fancy(&format!(r"(?im)^\s*\*\*\s*{f}\s*\*\*\s*$")),
        fancy(&format!(r"(?im)^\s*<b[^>]*>\s*{f}\s*</b>\s*$")),
    ];
    if candidates(md).iter().any(|c| any_match(&ps, c)) {
        return Outcome::pass();
    }
    let want = title_label(text);
    if !want.is_empty() && title_events(md).iter().any(|e| e.2 == want) {
        return Outcome::pass();
    }
    let t40: String = text.chars().take(40).collect();
    Outcome::fail(format!(
        "Expected '{t40}' to be a title, but no matching heading or bold formatting found"
    ))
}

/// The titles and (parent, child, deeper) constraints of an expected title tree.
fn constraints(
    tree: &serde_json::Map<String, Value>,
) -> (Vec<String>, Vec<(String, String, bool)>) {
    let mut titles: Vec<String> = Vec::new();
    let mut edges = Vec::new();
    fn add(titles: &mut Vec<String>, t: &str) {
        if !titles.iter().any(|x| x == t) {
            titles.push(t.to_string());
        }
    }
    fn walk(
        parent: &str,
        children: &Value,
        titles: &mut Vec<String>,
        edges: &mut Vec<(String, String, bool)>,
    ) {
        let mut order: Vec<String> = Vec::new();
        let mut child =
            |raw: &str, grand: Option<&Value>, titles: &mut Vec<String>, edges: &mut Vec<_>| {
                let n = title_label(raw);
                if n.is_empty() {
                    return;
                }
                add(titles, &n);
                edges.push((parent.to_string(), n.clone(), true));
                order.push(n.clone());
                if let Some(g) = grand {
                    walk(&n, g, titles, edges);
                }
            };
        match children {
            Value::String(s) => child(s, None, titles, edges),
            Value::Object(m) => {
                for (k, g) in m {
                    child(k, Some(g), titles, edges);
                }
            }
            Value::Array(a) => {
                for c in a {
                    match c {
                        Value::String(s) => child(s, None, titles, edges),
                        Value::Object(m) => {
                            for (k, g) in m {
                                child(k, Some(g), titles, edges);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        for w in order.windows(2) {
            edges.push((w[0].clone(), w[1].clone(), false));
        }
    }
    for (root, children) in tree {
        let n = title_label(root);
        if n.is_empty() {
            continue;
        }
        add(&mut titles, &n);
        walk(&n, children, &mut titles, &mut edges);
    }
    (titles, edges)
}

/// `title_hierarchy_percent`.
pub fn title_hierarchy(tree: &Value, md: &str) -> Outcome {
    let Some(tree) = tree.as_object().filter(|m| !m.is_empty()) else {
        return Outcome::error("title_hierarchy must be a non-empty dictionary");
    };
    let mut first: std::collections::HashMap<String, (usize, u8)> = Default::default();
    for (i, level, t) in title_events(md) {
        first.entry(t).or_insert((i, level));
    }
    let (titles, edges) = constraints(tree);
    if titles.is_empty() {
        return Outcome::scored(
            false,
            0.0,
            "title_hierarchy has no valid titles after normalization".into(),
        );
    }
    let total = titles.len() + edges.len();
    let mut sorted = titles.clone();
    sorted.sort();
    let mut ok = 0;
    let mut failures = Vec::new();
    for t in &sorted {
        if first.contains_key(t) {
            ok += 1;
        } else {
            failures.push(format!("missing title '{t}'"));
        }
    }
    for (p, c, deeper) in &edges {
        let (Some(&(pp, pl)), Some(&(cp, cl))) = (first.get(p), first.get(c)) else {
            failures.push(format!("missing edge '{p}' -> '{c}'"));
            continue;
        };
        if pp < cp && (!deeper || pl < cl) {
            ok += 1;
        } else {
            let kind = if *deeper { "order/level" } else { "order" };
            failures.push(format!(
                "{kind} violation '{p}'(line={pp},lvl={pl}) -> '{c}'(line={cp},lvl={cl})"
            ));
        }
    }
    let score = (ok as f64 / total as f64).clamp(0.0, 1.0);
    if score >= 0.999 {
        return Outcome::scored(true, score, String::new());
    }
    let preview: Vec<String> = failures.into_iter().take(5).collect();
    Outcome::scored(
        false,
        score,
        format!("Title hierarchy score={score:.3}; {}", preview.join("; ")),
    )
}

static WS: LazyLock<Regex> = LazyLock::new(|| re(r"\s+"));

fn strip_delimiters(f: &str) -> &str {
    let s = py_strip(f);
    let n = s.chars().count();
    if s.starts_with("$$") && s.ends_with("$$") && n >= 4 {
        return py_strip(&s[2..s.len() - 2]);
    }
    if s.starts_with('$') && s.ends_with('$') && n >= 2 {
        return py_strip(&s[1..s.len() - 1]);
    }
    for (a, b) in [(r"\(", r"\)"), (r"\[", r"\]")] {
        if s.starts_with(a) && s.ends_with(b) && n >= 4 {
            return py_strip(&s[2..s.len() - 2]);
        }
    }
    s
}

fn normalize_formula(f: &str) -> String {
    WS.replace_all(&unescape_html_entities(strip_delimiters(f)), "").into_owned()
}

static FORMULAS: LazyLock<[Fancy; 4]> = LazyLock::new(|| {
    [
        fancy(r"(?s)(?<!\\)\$\$(.+?)(?<!\\)\$\$"),
        fancy(r"(?s)(?<!\\)\$(?!\$)(.+?)(?<!\\)\$(?!\$)"),
        fancy(r"(?s)\\\((.+?)\\\)"),
        fancy(r"(?s)\\\[(.+?)\\\]"),
    ]
});

/// `_extract_latex_formulas`: every formula of the output, normalized.
pub fn latex_formulas(md: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for cand in candidates(md) {
        for p in FORMULAS.iter() {
            for c in p.captures_iter(&cand).flatten() {
                let n = normalize_formula(c.get(1).map_or("", |m| m.as_str()));
                if !n.is_empty() && !out.contains(&n) {
                    out.push(n);
                }
            }
        }
    }
    out
}

/// `is_latex`.
pub fn is_latex(formula: &str, md: &str) -> Outcome {
    let f = py_strip(formula);
    if f.is_empty() {
        return Outcome::error("formula must be a non-empty string");
    }
    let want = normalize_formula(f);
    if want.is_empty() {
        return Outcome::error("formula is empty after normalization");
    }
    let found = latex_formulas(md);
    if found.contains(&want) {
        return Outcome::pass();
    }
    let f80: String = f.chars().take(80).collect();
    let mut sorted = found;
    sorted.sort();
    if sorted.is_empty() {
        Outcome::fail(format!("Expected LaTeX formula '{f80}' not found."))
    } else {
        let preview: Vec<&str> = sorted.iter().take(3).map(String::as_str).collect();
        Outcome::fail(format!(
            "Expected LaTeX formula '{f80}' not found. Detected formulas (normalized preview): {}",
            preview.join(", ")
        ))
    }
}

static FENCE: LazyLock<Fancy> = LazyLock::new(|| {
    fancy(r"(?ms)^[ \t]*```(?P<lang>[^\n`]*)\n(?P<body>.*?)[ \t]*\n[ \t]*```[ \t]*$")
});

/// `is_code_block`.
pub fn is_code_block(language: &str, code: &str, md: &str) -> Outcome {
    let lang = py_strip(language).to_lowercase();
    let code = py_strip(code);
    if lang.is_empty() {
        return Outcome::error("language must be a non-empty string");
    }
    if code.is_empty() {
        return Outcome::error("code must be a non-empty string");
    }
    let collapsed = WS.replace_all(code, " ").into_owned();
    let mut blocks: Vec<(String, String)> = Vec::new();
    for cand in candidates(md) {
        for c in FENCE.captures_iter(&cand).flatten() {
            let l = py_strip(c.name("lang").map_or("", |m| m.as_str())).to_lowercase();
            let b = py_strip(c.name("body").map_or("", |m| m.as_str())).to_string();
            blocks.push((l, b));
        }
    }
    let same: Vec<&String> = blocks.iter().filter(|(l, _)| *l == lang).map(|(_, b)| b).collect();
    if same.is_empty() {
        let mut langs: Vec<&str> =
            blocks.iter().map(|(l, _)| l.as_str()).filter(|l| !l.is_empty()).collect();
        langs.sort();
        langs.dedup();
        let avail = if langs.is_empty() {
            String::new()
        } else {
            format!(" Available languages: {}", langs.join(", "))
        };
        return Outcome::fail(format!("No fenced code block found with language '{lang}'.{avail}"));
    }
    if same.iter().any(|b| b.contains(code) || WS.replace_all(b, " ").contains(&collapsed)) {
        return Outcome::pass();
    }
    let c80: String = code.chars().take(80).collect();
    Outcome::fail(format!("Found '{lang}' code block(s), but none contained snippet '{c80}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bold_spans_headings_and_their_limits() {
        let md =
            "# Annual Report\n\n**Name:** John **Age:** 40\n\nPlain text and <b>html bold</b>.";
        assert!(styling("bold", true, "Annual Report", md).passed);
        assert!(styling("bold", true, "Name", md).passed);
        assert!(styling("bold", true, "html bold", md).passed);
        // The text between two bold spans is not bold.
        assert!(!styling("bold", true, "John", md).passed);
        assert!(styling("bold", false, "John", md).passed);
        assert!(!styling("bold", true, "Plain text", md).passed);
    }

    #[test]
    fn italic_strikeout_sup_sub_and_markup_between_words() {
        let md =
            "An *italic phrase* here, ~~gone text~~, x<sup>2</sup>, H₂O and *hello ~~world~~*.";
        assert!(styling("italic", true, "italic phrase", md).passed);
        assert!(styling("strikeout", true, "gone text", md).passed);
        assert!(styling("sup", true, "2", md).passed);
        assert!(styling("sub", true, "2", md).passed);
        assert!(styling("italic", true, "hello world", md).passed);
        assert!(!styling("underline", true, "here", md).passed);
    }

    #[test]
    fn titles_hierarchy_latex_and_code() {
        let md = "# Report\n\n## Methods\n\n**Sampling**\n\nText.\n\n## Results\n\n$$E = mc^2$$ and \\(a+b\\)\n\n```python\nprint( 1 )\n```\n";
        assert!(is_title("Report", md).passed);
        assert!(is_title("Sampling", md).passed);
        assert!(!is_title("Text", md).passed);
        let tree: Value = serde_json::json!({"Report": {"Methods": ["Sampling"], "Results": null}});
        let o = title_hierarchy(&tree, md);
        assert!(o.passed, "{o:?}");
        let swapped: Value = serde_json::json!({"Report": ["Results", "Methods"]});
        let o = title_hierarchy(&swapped, md);
        // 3 titles + 2 parent edges + 1 sibling edge (violated).
        assert!((o.score - 5.0 / 6.0).abs() < 1e-12, "{o:?}");
        assert!(is_latex("E=mc^2", md).passed);
        assert!(is_latex("$a + b$", md).passed);
        assert!(!is_latex("c", md).passed);
        assert!(is_code_block("Python", "print( 1 )", md).passed);
        assert!(!is_code_block("rust", "print", md).passed);
    }
}
