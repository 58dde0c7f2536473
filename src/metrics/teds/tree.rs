//! The lxml-like element tree built from the html5ever tree, and its conversion to the TED
//! tree (`load_html_tree`, `tokenize`).

use super::*;

#[derive(Debug)]
pub(super) enum LxNode {
    Element(LxElement),
    Text(String),
}

#[derive(Debug)]
pub(super) struct LxElement {
    pub(super) tag: String,
    pub(super) colspan: Option<String>,
    pub(super) rowspan: Option<String>,
    pub(super) children: Vec<LxNode>,
}

impl LxNode {
    fn element(&self) -> Option<&LxElement> {
        match self {
            LxNode::Element(e) => Some(e),
            LxNode::Text(_) => None,
        }
    }

    pub(super) fn element_named(&self, tag: &str) -> Option<&LxElement> {
        self.element().filter(|e| e.tag == tag)
    }
}

impl LxElement {
    pub(super) fn count_descendants(&self) -> usize {
        self.children.iter().filter_map(LxNode::element).map(|e| 1 + e.count_descendants()).sum()
    }
}

/// Appends the children of a `teds-*` element of the html5ever tree to `out`, with the
/// prefix taken off the names.
pub(super) fn build_children(
    node: ElementRef<'_>,
    out: &mut Vec<LxNode>,
    depth: usize,
) -> Result<(), TableError> {
    if depth > MAX_DEPTH {
        return Err(TableError::TooDeep);
    }
    for child in node.children() {
        match child.value() {
            DomNode::Text(t) => match out.last_mut() {
                Some(LxNode::Text(prev)) => prev.push_str(t),
                _ => out.push(LxNode::Text(t.to_string())),
            },
            DomNode::Element(e) => {
                // The child is an element, so wrapping it cannot fail.
                let Some(child) = ElementRef::wrap(child) else { continue };
                let name = e.name();
                let mut el = LxElement {
                    tag: name.strip_prefix(PREFIX).unwrap_or(name).to_string(),
                    colspan: e.attr("colspan").map(str::to_string),
                    rowspan: e.attr("rowspan").map(str::to_string),
                    children: Vec::new(),
                };
                build_children(child, &mut el.children, depth + 1)?;
                out.push(LxNode::Element(el));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `load_html_tree`: the TEDS tree of an element.
pub(super) fn to_tree(e: &LxElement) -> Result<TreeNode, TableError> {
    if e.tag == "td" {
        let span = |attr: &'static str, v: &Option<String>| match v {
            None => Ok(1),
            Some(s) => py_int(s).ok_or_else(|| TableError::InvalidSpan { attr, value: s.clone() }),
        };
        let mut content = Vec::new();
        tokenize_children(&e.children, &mut content);
        return Ok(TreeNode::cell(
            span("colspan", &e.colspan)?,
            span("rowspan", &e.rowspan)?,
            content,
        ));
    }
    let children =
        e.children.iter().filter_map(LxNode::element).map(to_tree).collect::<Result<_, _>>()?;
    Ok(TreeNode::element(&e.tag, children))
}

/// `tokenize` without the cell's own `<td>`/`</td>`: text chars, `<tag>`, children, `</tag>`
/// (none for `unk`), then the tail, except the tail of a nested `td`.
fn tokenize_children(children: &[LxNode], out: &mut Vec<String>) {
    let mut after_td = false;
    for c in children {
        match c {
            LxNode::Text(t) => {
                if !after_td {
                    out.extend(t.chars().map(String::from));
                }
            }
            LxNode::Element(e) => {
                out.push(format!("<{}>", e.tag));
                tokenize_children(&e.children, out);
                if e.tag != "unk" {
                    out.push(format!("</{}>", e.tag));
                }
                after_td = e.tag == "td";
            }
        }
    }
}

/// Python's `int(s)` for a `str`: surrounding whitespace, an optional sign, decimal digits of
/// any script with single `_` between them. `None` where Python raises (or beyond `i64`).
pub(super) fn py_int(s: &str) -> Option<i64> {
    let t = s.trim_matches(py_isspace);
    let (neg, digits) = match t.chars().next() {
        Some('+') => (false, &t[1..]),
        Some('-') => (true, &t[1..]),
        _ => (false, t),
    };
    let mut value: i64 = 0;
    let mut after_digit = false;
    for c in digits.chars() {
        if c == '_' {
            if !after_digit {
                return None;
            }
            after_digit = false;
            continue;
        }
        let d = unicode_decimal(c)?;
        value = value.checked_mul(10)?.checked_add(d)?;
        after_digit = true;
    }
    if !after_digit {
        return None;
    }
    Some(if neg { -value } else { value })
}

/// Zero code points of the Unicode decimal digit blocks (Python 3.11, Unicode 14.0); each
/// starts a run of ten digits 0..9.
const DECIMAL_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

fn unicode_decimal(c: char) -> Option<i64> {
    let c = c as u32;
    let k = DECIMAL_ZEROS.partition_point(|&z| z <= c);
    let zero = *DECIMAL_ZEROS.get(k.checked_sub(1)?)?;
    (c - zero < 10).then_some(i64::from(c - zero))
}
