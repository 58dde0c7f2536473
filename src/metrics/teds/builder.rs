//! libxml2's tree construction (`HTMLparser.c`, 2.14: HTML5 tokenizer, legacy tree
//! building), written out as balanced markup for html5ever (see the parent module's doc).

/// Prefix of the element names written for html5ever (custom elements, which html5ever nests
/// as written, with no implied, reordered or foster-parented elements).
pub(super) const PREFIX: &str = "teds-";

/// `htmlStartClose`: (open element, start tag) pairs where the start tag closes the element.
/// Sorted, for binary search.
#[rustfmt::skip]
pub(super) const START_CLOSE: [(&str, &str); 249] = [
    ("a", "a"), ("a", "fieldset"), ("a", "table"), ("a", "td"), ("a", "th"),
    ("address", "dd"), ("address", "dl"), ("address", "dt"), ("address", "form"),
    ("address", "li"), ("address", "ul"), ("b", "center"), ("b", "p"), ("b", "td"),
    ("b", "th"), ("big", "p"), ("caption", "col"), ("caption", "colgroup"),
    ("caption", "tbody"), ("caption", "tfoot"), ("caption", "thead"), ("caption", "tr"),
    ("col", "col"), ("col", "colgroup"), ("col", "tbody"), ("col", "tfoot"), ("col", "thead"),
    ("col", "tr"), ("colgroup", "colgroup"), ("colgroup", "tbody"), ("colgroup", "tfoot"),
    ("colgroup", "thead"), ("colgroup", "tr"), ("dd", "dt"), ("dir", "dd"), ("dir", "dl"),
    ("dir", "dt"), ("dir", "form"), ("dir", "ul"), ("dl", "form"), ("dl", "li"), ("dt", "dd"),
    ("dt", "dl"), ("font", "center"), ("font", "td"), ("font", "th"), ("form", "form"),
    ("h1", "fieldset"), ("h1", "form"), ("h1", "li"), ("h1", "p"), ("h1", "table"),
    ("h2", "fieldset"), ("h2", "form"), ("h2", "li"), ("h2", "p"), ("h2", "table"),
    ("h3", "fieldset"), ("h3", "form"), ("h3", "li"), ("h3", "p"), ("h3", "table"),
    ("h4", "fieldset"), ("h4", "form"), ("h4", "li"), ("h4", "p"), ("h4", "table"),
    ("h5", "fieldset"), ("h5", "form"), ("h5", "li"), ("h5", "p"), ("h5", "table"),
    ("h6", "fieldset"), ("h6", "form"), ("h6", "li"), ("h6", "p"), ("h6", "table"),
    ("head", "a"), ("head", "abbr"), ("head", "acronym"), ("head", "address"), ("head", "b"),
    ("head", "bdo"), ("head", "big"), ("head", "blockquote"), ("head", "body"), ("head", "br"),
    ("head", "center"), ("head", "cite"), ("head", "code"), ("head", "dd"), ("head", "dfn"),
    ("head", "dir"), ("head", "div"), ("head", "dl"), ("head", "dt"), ("head", "em"),
    ("head", "fieldset"), ("head", "font"), ("head", "form"), ("head", "frameset"),
    ("head", "h1"), ("head", "h2"), ("head", "h3"), ("head", "h4"), ("head", "h5"),
    ("head", "h6"), ("head", "hr"), ("head", "i"), ("head", "iframe"), ("head", "img"),
    ("head", "kbd"), ("head", "li"), ("head", "listing"), ("head", "map"), ("head", "menu"),
    ("head", "ol"), ("head", "p"), ("head", "pre"), ("head", "q"), ("head", "s"),
    ("head", "samp"), ("head", "small"), ("head", "span"), ("head", "strike"),
    ("head", "strong"), ("head", "sub"), ("head", "sup"), ("head", "table"), ("head", "tt"),
    ("head", "u"), ("head", "ul"), ("head", "var"), ("head", "xmp"), ("hr", "form"),
    ("i", "center"), ("i", "p"), ("i", "td"), ("i", "th"), ("legend", "fieldset"),
    ("li", "li"), ("link", "body"), ("link", "frameset"), ("listing", "dd"), ("listing", "dl"),
    ("listing", "dt"), ("listing", "fieldset"), ("listing", "form"), ("listing", "li"),
    ("listing", "table"), ("listing", "ul"), ("menu", "dd"), ("menu", "dl"), ("menu", "dt"),
    ("menu", "form"), ("menu", "ul"), ("ol", "form"), ("option", "optgroup"),
    ("option", "option"), ("p", "address"), ("p", "blockquote"), ("p", "body"),
    ("p", "caption"), ("p", "center"), ("p", "col"), ("p", "colgroup"), ("p", "dd"),
    ("p", "dir"), ("p", "div"), ("p", "dl"), ("p", "dt"), ("p", "fieldset"), ("p", "form"),
    ("p", "frameset"), ("p", "h1"), ("p", "h2"), ("p", "h3"), ("p", "h4"), ("p", "h5"),
    ("p", "h6"), ("p", "head"), ("p", "hr"), ("p", "li"), ("p", "listing"), ("p", "menu"),
    ("p", "ol"), ("p", "p"), ("p", "pre"), ("p", "table"), ("p", "tbody"), ("p", "td"),
    ("p", "tfoot"), ("p", "th"), ("p", "title"), ("p", "tr"), ("p", "ul"), ("p", "xmp"),
    ("pre", "dd"), ("pre", "dl"), ("pre", "dt"), ("pre", "fieldset"), ("pre", "form"),
    ("pre", "li"), ("pre", "table"), ("pre", "ul"), ("s", "p"), ("script", "noscript"),
    ("small", "p"), ("span", "td"), ("span", "th"), ("strike", "p"), ("style", "body"),
    ("style", "frameset"), ("tbody", "tbody"), ("tbody", "tfoot"), ("td", "tbody"),
    ("td", "td"), ("td", "tfoot"), ("td", "th"), ("td", "tr"), ("tfoot", "tbody"),
    ("th", "tbody"), ("th", "td"), ("th", "tfoot"), ("th", "th"), ("th", "tr"),
    ("thead", "tbody"), ("thead", "tfoot"), ("title", "body"), ("title", "frameset"),
    ("tr", "tbody"), ("tr", "tfoot"), ("tr", "tr"), ("tt", "p"), ("u", "p"), ("u", "td"),
    ("u", "th"), ("ul", "address"), ("ul", "form"), ("ul", "menu"), ("ul", "pre"),
    ("xmp", "dd"), ("xmp", "dl"), ("xmp", "dt"), ("xmp", "fieldset"), ("xmp", "form"),
    ("xmp", "li"), ("xmp", "table"), ("xmp", "ul"),
];

/// `htmlEndPriority`: an end tag only closes elements of lower or equal priority.
fn end_priority(name: &str) -> u8 {
    match name {
        "div" => 150,
        "td" | "th" => 160,
        "tr" => 170,
        "thead" | "tbody" | "tfoot" => 180,
        "table" => 190,
        "head" | "body" => 200,
        "html" => 220,
        _ => 100,
    }
}

/// Elements with `empty` set in libxml2's `html40ElementTable` (they never hold content).
fn is_empty_element(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "br"
            | "col"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "isindex"
            | "link"
            | "meta"
            | "param"
    )
}

/// How libxml2 reads an element's content (`dataMode` in `html40ElementTable`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum DataMode {
    Markup,
    /// Text with character references, up to the end tag (`title`, `textarea`).
    RcData,
    /// Literal text up to the end tag (`script`, `style`, `xmp`, `iframe`, …).
    RawText,
    /// Literal text to the end of the input.
    PlainText,
}

fn data_mode(name: &str) -> DataMode {
    match name {
        "title" | "textarea" => DataMode::RcData,
        "script" | "style" | "xmp" | "iframe" | "noembed" | "noframes" => DataMode::RawText,
        "plaintext" => DataMode::PlainText,
        _ => DataMode::Markup,
    }
}

fn is_tag_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// Where libxml2's insertion mode stands (`ctxt->html`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Insert {
    Initial,
    InHead,
    InBody,
}

/// The element structure libxml2 builds for an input, written out as explicit, balanced
/// markup over custom element names (`teds-td`, …) for html5ever to tokenize: html5ever then
/// only decodes text and attributes and nests the elements exactly as written.
pub(super) struct Libxml2Tree {
    pub(super) markup: String,
    /// Any element was made (else lxml raises "Document is empty").
    pub(super) has_root: bool,
    /// A `head` element was made (lxml's `fromstring` then returns the whole document).
    pub(super) has_head: bool,
}

struct Builder<'s> {
    out: String,
    stack: Vec<&'s str>,
    mode: Insert,
    /// Misplaced `html`/`head`/`body` start tags ignored so far (`ctxt->depth`).
    discarded: usize,
    has_root: bool,
    has_head: bool,
}

impl<'s> Builder<'s> {
    fn push(&mut self, name: &'s str, attrs: &str) {
        match name {
            "head" => {
                self.mode = self.mode.max(Insert::InHead);
                self.has_head = true;
            }
            "body" => self.mode = Insert::InBody,
            _ => {}
        }
        self.has_root = true;
        self.out.push('<');
        self.out.push_str(PREFIX);
        self.out.push_str(name);
        self.out.push_str(attrs);
        self.out.push('>');
        self.stack.push(name);
    }

    fn pop(&mut self) {
        if let Some(name) = self.stack.pop() {
            self.out.push_str("</");
            self.out.push_str(PREFIX);
            self.out.push_str(name);
            self.out.push('>');
        }
    }

    /// `htmlAutoClose`: close open elements that the start tag `name` ends.
    fn auto_close(&mut self, name: &str) {
        while let Some(&top) = self.stack.last() {
            if START_CLOSE.binary_search(&(top, name)).is_err() {
                break;
            }
            self.pop();
        }
    }

    /// `htmlCheckImplied`: open the `html`, `head` or `body` the start tag `name` needs.
    fn check_implied(&mut self, name: &str) {
        if name == "html" {
            return;
        }
        if self.stack.is_empty() {
            self.push("html", "");
        }
        if name == "body" || name == "head" {
            return;
        }
        let head_tag = matches!(name, "script" | "style" | "meta" | "link" | "title" | "base");
        if self.stack.len() <= 1 && head_tag {
            if self.mode < Insert::InHead {
                self.push("head", "");
            }
        } else if !matches!(name, "noframes" | "frame" | "frameset")
            && self.mode < Insert::InBody
            && !self.stack.iter().any(|n| *n == "body" || *n == "head")
        {
            self.push("body", "");
        }
    }

    /// Text (raw source, decoded later by html5ever); `htmlCharDataSAXCallback`.
    fn text(&mut self, raw: &str) {
        if raw.is_empty() {
            return;
        }
        let mut rest = raw;
        if matches!(self.stack.last(), None | Some(&"html") | Some(&"head")) {
            let ws = raw.bytes().take_while(|&c| is_tag_space(c)).count();
            self.emit_text(&raw[..ws]);
            rest = &raw[ws..];
            if rest.is_empty() {
                return;
            }
            self.start_char_data();
        }
        self.emit_text(rest);
    }

    /// Writes source text into the open element, followed by an empty comment: whatever
    /// followed the text in the source (a comment, an ignored tag) may be gone, and the
    /// comment keeps html5ever from reading the text with what follows it now (a `<` or
    /// `&am` running into the next text, a CR into an LF).
    fn emit_text(&mut self, raw: &str) {
        if !raw.is_empty() && !self.stack.is_empty() {
            self.out.push_str(raw);
            self.out.push_str("<!---->");
        }
    }

    /// `htmlStartCharData`: non-blank text in `head` (or before any element) starts the body.
    fn start_char_data(&mut self) {
        if self.stack.last() == Some(&"head") {
            self.auto_close("p");
        }
        self.check_implied("p");
    }

    /// `htmlParseStartTag` + `htmlParseElementInternal` (the tokens already carry the raw
    /// text of the elements that read one).
    fn start_tag(&mut self, name: &'s str, attrs: &str, self_closing: bool) {
        self.auto_close(name);
        self.check_implied(name);
        let misplaced = (name == "html" && !self.stack.is_empty())
            || (name == "head" && self.stack.len() != 1)
            || (name == "body" && self.stack.contains(&"body"));
        if misplaced {
            self.discarded += 1;
            // libxml2 then applies the `/>` to the element that is open.
            if self_closing {
                self.pop();
            }
            return;
        }
        self.push(name, attrs);
        if self_closing || is_empty_element(name) {
            self.pop();
        }
    }

    /// `htmlParseEndTag` with `htmlAutoCloseOnClose`.
    fn end_tag(&mut self, name: &str) {
        if self.discarded > 0 && matches!(name, "html" | "body" | "head") {
            self.discarded -= 1;
            return;
        }
        let Some(pos) = self.stack.iter().rposition(|n| *n == name) else { return };
        let priority = end_priority(name);
        if self.stack[pos + 1..].iter().any(|n| end_priority(n) > priority) {
            return;
        }
        while self.stack.len() > pos {
            self.pop();
        }
    }

    /// Raw or RCDATA content, escaped so that html5ever reads it as text.
    fn literal_text(&mut self, raw: &str, mode: DataMode) {
        for c in raw.chars() {
            match c {
                '<' => self.out.push_str("&lt;"),
                '&' if mode != DataMode::RcData => self.out.push_str("&amp;"),
                _ => self.out.push(c),
            }
        }
    }
}

impl Libxml2Tree {
    pub(super) fn build(input: &str) -> Libxml2Tree {
        // libxml2 reads NUL as U+FFFD; html5ever would drop it from text.
        let owned;
        let src: &str = if input.contains('\0') {
            owned = input.replace('\0', "\u{FFFD}");
            &owned
        } else {
            input
        };
        // First pass: the HTML5 tokens, with lower-cased tag names collected in `names` (so
        // that the builder can borrow them); libxml2 skips leading blanks.
        let mut names: Vec<String> = Vec::new();
        let b = src.as_bytes();
        let n = b.len();
        let mut i = b.iter().take_while(|&&c| is_tag_space(c)).count();
        enum Tok {
            Text(usize, usize),
            Start { name: usize, attrs: (usize, usize), self_closing: bool, eof: bool },
            End(usize),
            Literal(usize, usize, DataMode),
        }
        let mut toks = Vec::new();
        let mut text_start = i;
        while i < n {
            if b[i] != b'<' {
                i += 1;
                continue;
            }
            let next = b.get(i + 1).copied();
            let tag_like = matches!(next, Some(b'!' | b'?' | b'/'))
                || next.is_some_and(|c| c.is_ascii_alphabetic());
            if !tag_like {
                i += 1;
                continue;
            }
            toks.push(Tok::Text(text_start, i));
            if b[i..].starts_with(b"<!--") {
                i = comment_end(b, i + 4);
            } else if matches!(next, Some(b'!' | b'?')) {
                i = after_gt(b, i + 2);
            } else if next == Some(b'/') {
                match b.get(i + 2) {
                    None => {
                        // "</" at the end is text.
                        toks.push(Tok::Text(i, n));
                        i = n;
                    }
                    Some(c) if c.is_ascii_alphabetic() => {
                        let name_end = tag_name_end(b, i + 2);
                        let Some((end, _)) = tag_end(b, name_end) else {
                            // EOF inside an end tag: dropped.
                            text_start = n;
                            break;
                        };
                        names.push(src[i + 2..name_end].to_ascii_lowercase());
                        toks.push(Tok::End(names.len() - 1));
                        i = end;
                    }
                    Some(_) => i = after_gt(b, i + 2),
                }
            } else {
                let name_end = tag_name_end(b, i + 1);
                names.push(src[i + 1..name_end].to_ascii_lowercase());
                let name = names.len() - 1;
                match tag_end(b, name_end) {
                    None => {
                        toks.push(Tok::Start {
                            name,
                            attrs: (0, 0),
                            self_closing: false,
                            eof: true,
                        });
                        i = n;
                    }
                    Some((end, slash)) => {
                        let attrs_end = slash.unwrap_or(end - 1);
                        toks.push(Tok::Start {
                            name,
                            attrs: (name_end, attrs_end),
                            self_closing: slash.is_some(),
                            eof: false,
                        });
                        i = end;
                        let mode = data_mode(&names[name]);
                        if slash.is_none() && mode != DataMode::Markup {
                            let stop = if mode == DataMode::PlainText {
                                n
                            } else {
                                raw_text_end(b, end, names[name].as_bytes())
                            };
                            toks.push(Tok::Literal(end, stop, mode));
                            i = stop;
                        }
                    }
                }
            }
            text_start = i;
        }
        if text_start < n {
            toks.push(Tok::Text(text_start, n));
        }
        let mut bld = Builder {
            out: String::with_capacity(src.len() * 2 + 32),
            stack: Vec::new(),
            mode: Insert::Initial,
            discarded: 0,
            has_root: false,
            has_head: false,
        };
        bld.out.push_str("<!DOCTYPE html>");
        for tok in &toks {
            match *tok {
                Tok::Text(s, e) => bld.text(&src[s..e]),
                Tok::Start { name, attrs, self_closing, eof } => {
                    let name = names[name].as_str();
                    if eof {
                        // EOF inside the tag: closes and implies as usual, then is dropped.
                        bld.auto_close(name);
                        bld.check_implied(name);
                    } else {
                        bld.start_tag(name, &src[attrs.0..attrs.1], self_closing);
                    }
                }
                Tok::End(name) => bld.end_tag(&names[name]),
                Tok::Literal(s, e, mode) => bld.literal_text(&src[s..e], mode),
            }
        }
        while !bld.stack.is_empty() {
            bld.pop();
        }
        Libxml2Tree { markup: bld.out, has_root: bld.has_root, has_head: bld.has_head }
    }
}

/// End of a comment whose `<!--` ends just before `start` (HTML5 comment states).
fn comment_end(b: &[u8], start: usize) -> usize {
    let rest = &b[start..];
    if rest.starts_with(b">") {
        return start + 1;
    }
    if rest.starts_with(b"->") {
        return start + 2;
    }
    for k in 0..rest.len() {
        if rest[k..].starts_with(b"-->") {
            return start + k + 3;
        }
        if rest[k..].starts_with(b"--!>") {
            return start + k + 4;
        }
    }
    b.len()
}

/// Position after the next `>` at or after `from` (or the end).
fn after_gt(b: &[u8], from: usize) -> usize {
    b[from.min(b.len())..].iter().position(|&c| c == b'>').map_or(b.len(), |k| from + k + 1)
}

fn tag_name_end(b: &[u8], from: usize) -> usize {
    let mut k = from;
    while k < b.len() && !is_tag_space(b[k]) && b[k] != b'/' && b[k] != b'>' {
        k += 1;
    }
    k
}

/// Scans attributes after a tag name; returns the position after `>` and, for a self-closing
/// tag, the position of its `/`. `None` at EOF inside the tag.
fn tag_end(b: &[u8], mut k: usize) -> Option<(usize, Option<usize>)> {
    let n = b.len();
    loop {
        while k < n && is_tag_space(b[k]) {
            k += 1;
        }
        if k >= n {
            return None;
        }
        match b[k] {
            b'>' => return Some((k + 1, None)),
            b'/' => {
                if b.get(k + 1) == Some(&b'>') {
                    return Some((k + 2, Some(k)));
                }
                k += 1;
            }
            _ => {
                // Attribute name: the first char is taken whatever it is (even `=`).
                k += 1;
                while k < n && !is_tag_space(b[k]) && !matches!(b[k], b'/' | b'>' | b'=') {
                    k += 1;
                }
                while k < n && is_tag_space(b[k]) {
                    k += 1;
                }
                if k < n && b[k] == b'=' {
                    k += 1;
                    while k < n && is_tag_space(b[k]) {
                        k += 1;
                    }
                    match b.get(k) {
                        Some(&q @ (b'"' | b'\'')) => {
                            let close = b[k + 1..].iter().position(|&c| c == q)?;
                            k = k + 1 + close + 1;
                        }
                        _ => {
                            while k < n && !is_tag_space(b[k]) && b[k] != b'>' {
                                k += 1;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Start of the end tag `</name` (followed by space, `/` or `>`) closing a raw text element.
fn raw_text_end(b: &[u8], from: usize, name: &[u8]) -> usize {
    if name == b"plaintext" {
        return b.len();
    }
    let mut k = from;
    while k + 2 + name.len() <= b.len() {
        if b[k] == b'<'
            && b[k + 1] == b'/'
            && b[k + 2..k + 2 + name.len()].eq_ignore_ascii_case(name)
            && b.get(k + 2 + name.len()).is_none_or(|&c| is_tag_space(c) || c == b'/' || c == b'>')
        {
            return k;
        }
        k += 1;
    }
    b.len()
}
