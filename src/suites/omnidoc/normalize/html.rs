//! A minimal HTML tree in the manner of BeautifulSoup with Python's `html.parser` backend, as the
//! OmniDocBench v1.5 evaluator uses it (`utils/data_preprocess.py::normalized_html_table` and the
//! `<td>` explosion of unmatched predicted tables in `utils/match.py::match_gt2pred_simple`).
//!
//! `html.parser` builds no implicit elements (no `tbody`, no auto-closing of `td`/`tr`): a start
//! tag opens an element, an end tag closes the nearest open element of that name (and everything
//! opened after it) or is ignored when none is open, void elements never hold children.
//! Serialization follows `str(soup)`: attributes re-quoted with `"`, valueless attributes as
//! `name=""`, void elements as `<br/>`, text re-escaped (`&amp; &lt; &gt;`).
//!
//! Known differences: entity decoding covers the numeric forms and the common named entities
//! only (see [`unescape`]); `<script>`/`<style>` raw-text content and processing instructions
//! are treated as ordinary markup.

/// A node of the parsed tree.
#[derive(Debug, Clone, PartialEq)]
pub enum HtmlNode {
    /// An element with lowercased name, attributes in source order, and children.
    Element {
        /// Tag name, lowercased.
        name: String,
        /// Attributes `(name, decoded value)`; `None` for an attribute written without value.
        attrs: Vec<(String, Option<String>)>,
        /// Child nodes.
        children: Vec<HtmlNode>,
    },
    /// Decoded character data.
    Text(String),
    /// A comment (`<!--…-->`), kept verbatim.
    Comment(String),
    /// A declaration such as `<!DOCTYPE html>`, kept verbatim.
    Decl(String),
}

/// An open element on the parser stack: name, attributes, children so far.
type Open = (String, Vec<(String, Option<String>)>, Vec<HtmlNode>);

const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr", "menuitem", "basefont", "bgsound", "command", "frame", "image",
    "isindex", "nextid", "spacer",
];

fn is_void(name: &str) -> bool {
    VOID.contains(&name)
}

/// Parses an HTML fragment into a list of top-level nodes (see module docs for the rules).
pub fn parse(src: &str) -> Vec<HtmlNode> {
    // Stack of open elements: (name, attrs, children).
    let mut stack: Vec<Open> = vec![(String::new(), vec![], vec![])];
    let b = src.as_bytes();
    let mut i = 0;
    let mut text_start = 0;
    let push_text = |stack: &mut Vec<Open>, t: &str| {
        if t.is_empty() {
            return;
        }
        let decoded = unescape(t);
        // The bottom element always exists: it is never popped.
        if let Some(top) = stack.last_mut() {
            if let Some(HtmlNode::Text(prev)) = top.2.last_mut() {
                prev.push_str(&decoded);
            } else {
                top.2.push(HtmlNode::Text(decoded));
            }
        }
    };
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &src[i..];
        if let Some(body) = rest.strip_prefix("<!--") {
            push_text(&mut stack, &src[text_start..i]);
            let (inner, end) = match body.find("-->") {
                Some(k) => (&body[..k], 4 + k + 3),
                None => (body, rest.len()),
            };
            if let Some(top) = stack.last_mut() {
                top.2.push(HtmlNode::Comment(inner.to_string()));
            }
            i += end;
            text_start = i;
            continue;
        }
        if rest.starts_with("<!") {
            push_text(&mut stack, &src[text_start..i]);
            let end = rest.find('>').map(|k| k + 1).unwrap_or(rest.len());
            if let Some(top) = stack.last_mut() {
                top.2.push(HtmlNode::Decl(rest[2..end.saturating_sub(1).max(2)].to_string()));
            }
            i += end;
            text_start = i;
            continue;
        }
        let closing = rest.starts_with("</");
        let name_start = if closing { 2 } else { 1 };
        if !rest[name_start..].starts_with(|c: char| c.is_ascii_alphabetic()) {
            i += 1;
            continue;
        }
        let Some(tag_len) = tag_end(rest) else {
            i += 1;
            continue;
        };
        push_text(&mut stack, &src[text_start..i]);
        let tag = &rest[..tag_len];
        let (name, attrs, self_closing) = parse_tag(&tag[name_start..tag_len - 1]);
        if closing {
            if let Some(pos) = stack.iter().rposition(|(n, _, _)| *n == name) {
                if pos > 0 {
                    while stack.len() > pos {
                        close_top(&mut stack);
                    }
                }
            }
        } else if self_closing || is_void(&name) {
            if let Some(top) = stack.last_mut() {
                top.2.push(HtmlNode::Element { name, attrs, children: vec![] });
            }
        } else {
            stack.push((name, attrs, vec![]));
        }
        i += tag_len;
        text_start = i;
    }
    push_text(&mut stack, &src[text_start..]);
    while stack.len() > 1 {
        close_top(&mut stack);
    }
    stack.pop().map(|(_, _, c)| c).unwrap_or_default()
}

fn close_top(stack: &mut Vec<Open>) {
    if let Some((name, attrs, children)) = stack.pop() {
        if let Some(top) = stack.last_mut() {
            top.2.push(HtmlNode::Element { name, attrs, children });
        }
    }
}

/// Length of the tag starting at `s[0] == '<'`, honouring quoted attribute values.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (k, c) in s.char_indices().skip(1) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '>' => return Some(k + 1),
            None if c == '<' => return None,
            None => {}
        }
    }
    None
}

fn parse_tag(inner: &str) -> (String, Vec<(String, Option<String>)>, bool) {
    let inner = inner.trim_end();
    let (inner, self_closing) = match inner.strip_suffix('/') {
        Some(x) => (x, true),
        None => (inner, false),
    };
    let name_len = inner.find(|c: char| c.is_whitespace() || c == '/').unwrap_or(inner.len());
    let name = inner[..name_len].to_ascii_lowercase();
    let mut attrs = Vec::new();
    let chars: Vec<char> = inner[name_len..].chars().collect();
    let mut k = 0;
    while k < chars.len() {
        while k < chars.len() && (chars[k].is_whitespace() || chars[k] == '/') {
            k += 1;
        }
        let start = k;
        while k < chars.len() && !chars[k].is_whitespace() && chars[k] != '=' {
            k += 1;
        }
        if start == k {
            k += 1;
            continue;
        }
        let aname: String = chars[start..k].iter().collect::<String>().to_ascii_lowercase();
        while k < chars.len() && chars[k].is_whitespace() {
            k += 1;
        }
        if k < chars.len() && chars[k] == '=' {
            k += 1;
            while k < chars.len() && chars[k].is_whitespace() {
                k += 1;
            }
            let value: String = if k < chars.len() && (chars[k] == '"' || chars[k] == '\'') {
                let q = chars[k];
                k += 1;
                let vs = k;
                while k < chars.len() && chars[k] != q {
                    k += 1;
                }
                let v = chars[vs..k].iter().collect();
                k += 1;
                v
            } else {
                let vs = k;
                while k < chars.len() && !chars[k].is_whitespace() {
                    k += 1;
                }
                chars[vs..k].iter().collect()
            };
            attrs.push((aname, Some(unescape(&value))));
        } else {
            attrs.push((aname, None));
        }
    }
    (name, attrs, self_closing)
}

/// Serializes nodes like BeautifulSoup's `str()` with the default (minimal) formatter.
pub fn serialize(nodes: &[HtmlNode], out: &mut String) {
    for n in nodes {
        match n {
            HtmlNode::Text(t) => escape_into(t, out, false),
            HtmlNode::Comment(c) => {
                out.push_str("<!--");
                out.push_str(c);
                out.push_str("-->");
            }
            HtmlNode::Decl(d) => {
                out.push_str("<!");
                out.push_str(d);
                out.push('>');
            }
            HtmlNode::Element { name, attrs, children } => {
                out.push('<');
                out.push_str(name);
                for (k, v) in attrs {
                    out.push(' ');
                    out.push_str(k);
                    out.push('=');
                    let v = v.as_deref().unwrap_or("");
                    if v.contains('"') && !v.contains('\'') {
                        out.push('\'');
                        escape_into(v, out, false);
                        out.push('\'');
                    } else {
                        out.push('"');
                        escape_into(v, out, true);
                        out.push('"');
                    }
                }
                if is_void(name) && children.is_empty() {
                    out.push_str("/>");
                    continue;
                }
                out.push('>');
                serialize(children, out);
                out.push_str("</");
                out.push_str(name);
                out.push('>');
            }
        }
    }
}

fn escape_into(t: &str, out: &mut String, quote: bool) {
    for c in t.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quote => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// BeautifulSoup's `Tag.string`: the text of a node that has exactly one child, recursively;
/// `None` for elements with zero or several children.
pub fn tag_string(node: &HtmlNode) -> Option<&str> {
    match node {
        HtmlNode::Text(t) | HtmlNode::Comment(t) => Some(t),
        HtmlNode::Decl(_) => None,
        HtmlNode::Element { children, .. } => match children.as_slice() {
            [only] => tag_string(only),
            _ => None,
        },
    }
}

/// Collects every element named `name` in document order (BeautifulSoup `find_all(name)`).
pub fn find_all<'a>(nodes: &'a [HtmlNode], name: &str, out: &mut Vec<&'a HtmlNode>) {
    for n in nodes {
        if let HtmlNode::Element { name: n_name, children, .. } = n {
            if n_name == name {
                out.push(n);
            }
            find_all(children, name, out);
        }
    }
}

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
    ("micro", "\u{b5}"),
    ("le", "\u{2264}"),
    ("ge", "\u{2265}"),
    ("ne", "\u{2260}"),
    ("minus", "\u{2212}"),
    ("alpha", "\u{3b1}"),
    ("beta", "\u{3b2}"),
    ("gamma", "\u{3b3}"),
    ("delta", "\u{3b4}"),
    ("mu", "\u{3bc}"),
    ("pi", "\u{3c0}"),
    ("sigma", "\u{3c3}"),
    ("ensp", "\u{2002}"),
    ("emsp", "\u{2003}"),
    ("thinsp", "\u{2009}"),
    ("shy", "\u{ad}"),
    ("laquo", "\u{ab}"),
    ("raquo", "\u{bb}"),
    ("bull", "\u{2022}"),
    ("prime", "\u{2032}"),
    ("sup2", "\u{b2}"),
    ("sup3", "\u{b3}"),
    ("frac12", "\u{bd}"),
    ("yen", "\u{a5}"),
    ("euro", "\u{20ac}"),
    ("pound", "\u{a3}"),
];

/// `html.unescape` for numeric references and the named entities in `NAMED` (terminated by
/// `;`); anything else is left as written.
pub fn unescape(s: &str) -> String {
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
                let ch = match code {
                    Some(0) | None => '\u{fffd}',
                    Some(c) => char::from_u32(c).unwrap_or('\u{fffd}'),
                };
                out.push(ch);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(s: &str) -> String {
        let mut out = String::new();
        serialize(&parse(s), &mut out);
        out
    }

    #[test]
    fn serializes_like_beautifulsoup() {
        assert_eq!(
            roundtrip("<td colspan=2 nowrap>a<br>b</td>"),
            "<td colspan=\"2\" nowrap=\"\">a<br/>b</td>"
        );
        assert_eq!(
            roundtrip("<TABLE><tr><td>x &amp; y</td></tr></TABLE>"),
            "<table><tr><td>x &amp; y</td></tr></table>"
        );
        // A stray end tag is dropped; an unclosed element is closed at the end.
        assert_eq!(roundtrip("a</b><i>c"), "a<i>c</i>");
    }

    #[test]
    fn string_of_single_child_only() {
        let doc = parse("<td>x</td><td><b>y</b></td><td>a<br>b</td><td></td>");
        let mut tds = Vec::new();
        find_all(&doc, "td", &mut tds);
        let got: Vec<Option<&str>> = tds.iter().map(|t| tag_string(t)).collect();
        assert_eq!(got, vec![Some("x"), Some("y"), None, None]);
    }

    #[test]
    fn unescapes_numeric_and_named() {
        assert_eq!(unescape("&#65;&#x42;&lt;&nbsp;&bogus;"), "AB<\u{a0}&bogus;");
    }
}
