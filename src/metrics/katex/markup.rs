//! KaTeX's markup as a tree: a small parser of the HTML/MathML that `katex.renderToString`
//! writes.

/// A node of KaTeX's markup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// An element.
    Element(Element),
    /// A text node, entities decoded.
    Text(String),
}

/// An element with its attributes in source order (values decoded) and children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Tag name.
    pub name: String,
    /// Attributes as `(name, value)`.
    pub attrs: Vec<(String, String)>,
    /// Child nodes.
    pub children: Vec<Node>,
}

impl Element {
    /// The first element named `name` in document order (this element included).
    pub fn find(&self, name: &str) -> Option<&Element> {
        if self.name == name {
            return Some(self);
        }
        self.children.iter().find_map(|c| match c {
            Node::Element(e) => e.find(name),
            Node::Text(_) => None,
        })
    }
}

/// Decode the character references KaTeX's `utils.escape` writes (`&amp;` `&lt;` `&gt;`
/// `&quot;` `&#x27;`) and numeric references; anything else stays as written.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let decoded = rest.find(';').and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse::<u32>().ok()?,
                    };
                    char::from_u32(code)
                }
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')
}

/// Parse KaTeX's `renderToString` markup into a node list. The markup is well-formed apart from
/// `<img>` (void, and written with a stray `'`); this parser is lenient: `/>` closes an element,
/// `img` never has children, an end tag closes the nearest open element of that name (ignored if
/// there is none), unclosed elements are closed at the end, and a `<` that starts no tag is text.
pub fn parse_markup(markup: &str) -> Vec<Node> {
    fn attach(stack: &mut [Element], roots: &mut Vec<Node>, node: Node) {
        match stack.last_mut() {
            Some(top) => top.children.push(node),
            None => roots.push(node),
        }
    }
    let mut roots = Vec::new();
    let mut stack: Vec<Element> = Vec::new();
    let mut rest = markup;
    loop {
        let Some(lt) = rest.find('<') else {
            if !rest.is_empty() {
                attach(&mut stack, &mut roots, Node::Text(unescape(rest)));
            }
            break;
        };
        let after = &rest[lt + 1..];
        let closing = after.starts_with('/');
        let name_start = if closing { &after[1..] } else { after };
        let name_len = name_start.find(|c: char| !is_name_char(c)).unwrap_or(name_start.len());
        if name_len == 0 || !name_start.starts_with(|c: char| c.is_ascii_alphabetic()) {
            // Not a tag: the `<` is text.
            let text = &rest[..lt + 1];
            attach(&mut stack, &mut roots, Node::Text(unescape(text)));
            rest = after;
            continue;
        }
        if lt > 0 {
            attach(&mut stack, &mut roots, Node::Text(unescape(&rest[..lt])));
        }
        let name = name_start[..name_len].to_string();
        let mut tail = &name_start[name_len..];
        if closing {
            tail = tail.find('>').map_or("", |i| &tail[i + 1..]);
            if let Some(pos) = stack.iter().rposition(|e| e.name == name) {
                while stack.len() > pos {
                    // Invariant: `pos < stack.len()`, so the stack is not empty here.
                    let Some(el) = stack.pop() else { break };
                    attach(&mut stack, &mut roots, Node::Element(el));
                }
            }
            rest = tail;
            continue;
        }
        let mut attrs = Vec::new();
        let mut self_closing = false;
        loop {
            tail = tail.trim_start();
            if tail.is_empty() {
                break;
            }
            if let Some(t) = tail.strip_prefix("/>") {
                self_closing = true;
                tail = t;
                break;
            }
            if let Some(t) = tail.strip_prefix('>') {
                tail = t;
                break;
            }
            let an_len = tail
                .find(|c: char| c.is_whitespace() || matches!(c, '=' | '>' | '/' | '"' | '\''))
                .unwrap_or(tail.len());
            if an_len == 0 {
                // A stray character (KaTeX's `<img ...'/>`): skip it.
                let skip = tail.chars().next().map_or(0, char::len_utf8);
                tail = &tail[skip..];
                continue;
            }
            let an = tail[..an_len].to_string();
            tail = tail[an_len..].trim_start();
            let mut value = String::new();
            if let Some(t) = tail.strip_prefix('=') {
                let t = t.trim_start();
                if let Some(q) = t.chars().next().filter(|&c| c == '"' || c == '\'') {
                    let body = &t[1..];
                    let end = body.find(q).unwrap_or(body.len());
                    value = unescape(&body[..end]);
                    tail = body.get(end + 1..).unwrap_or("");
                } else {
                    let end = t.find(|c: char| c.is_whitespace() || c == '>').unwrap_or(t.len());
                    value = unescape(&t[..end]);
                    tail = &t[end..];
                }
            } else {
                tail = tail.trim_start();
            }
            attrs.push((an, value));
        }
        let el = Element { name, attrs, children: Vec::new() };
        if self_closing || el.name == "img" {
            attach(&mut stack, &mut roots, Node::Element(el));
        } else {
            stack.push(el);
        }
        rest = tail;
    }
    while let Some(el) = stack.pop() {
        attach(&mut stack, &mut roots, Node::Element(el));
    }
    roots
}

pub(super) fn find_in<'a>(nodes: &'a [Node], name: &str) -> Option<&'a Element> {
    nodes.iter().find_map(|n| match n {
        Node::Element(e) => e.find(name),
        Node::Text(_) => None,
    })
}
