//! The official CDM tokenizer's parser, in Rust: the 2016 KaTeX parser that UniMERNet's
//! `modules/tokenize_latex/` vendors and patches (unknown commands become symbols, a few
//! checks commented out, `\matrix{…}`/`\cases{…}`, the `\begin` name spliced into the token
//! string), and the two printers its node scripts run on the tree: `preprocess_formula.js`
//! (`normalize`: the tree printed back as spaced LaTeX) and `preprocess_tabular.js`
//! (`tokenize`: every token the parser consumed). `docs/cdm.md` lists the rules.
//!
//! Positions are counted in `char`s where KaTeX counts UTF-16 units; they only reach error
//! messages. Where the JavaScript fails with a `TypeError`/`ReferenceError` (an argument the
//! patched parser left `undefined`, a `\color` node, whose printer calls an undefined
//! `mathMLTree`) we return an error too: the official script then prints an empty line and the
//! caller falls back to the raw LaTeX.

use super::symbols::MATH_NON_ORD;

type Res<T> = Result<T, String>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Math,
    Text,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LexMode {
    Math,
    Text,
    Color,
    Size,
}

#[derive(Debug, Clone)]
struct Token {
    text: String,
    /// The position just after the token (KaTeX's `Token.position`).
    end: usize,
    /// A size token's number (as JavaScript prints it) and unit.
    size: Option<(String, String)>,
}

/// A parse node; `Undefined` is an argument the patched parser leaves `undefined`.
#[derive(Debug, Clone)]
enum Node {
    /// A symbol or a token no table knows (the patched parser makes those `mathord`s).
    Sym {
        text: String,
        ord: bool,
    },
    OrdGroup(Vec<Node>),
    Text(Vec<Node>),
    SupSub {
        base: Option<Box<Node>>,
        sup: Option<Box<Node>>,
        sub: Option<Box<Node>>,
    },
    GenFrac {
        bar: bool,
        numer: Box<Node>,
        denom: Box<Node>,
    },
    Array {
        cols: Option<Vec<Option<String>>>,
        body: Vec<Vec<Vec<Node>>>,
    },
    Sqrt {
        index: Option<Vec<Node>>,
        body: Box<Node>,
    },
    LeftRight {
        left: String,
        right: String,
        body: Vec<Node>,
    },
    Accent {
        accent: String,
        base: Box<Node>,
    },
    Op {
        name: String,
        limits: bool,
        symbol: bool,
    },
    Font {
        font: String,
        body: Box<Node>,
    },
    DelimSizing {
        func: String,
        value: String,
    },
    Styling {
        original: String,
        body: Vec<Node>,
    },
    Sizing {
        original: String,
        body: Vec<Node>,
    },
    Overline(Box<Node>),
    Underline(Box<Node>),
    Rule {
        width: (String, String),
        height: (String, String),
    },
    Lap {
        name: &'static str,
        body: Box<Node>,
    },
    Phantom(Vec<Node>),
    Infix {
        replace_with: &'static str,
    },
    /// A size argument: the number as JavaScript prints it, and the unit.
    Size((String, String)),
    /// `\begin`/`\end` parsed as a plain function: the environment name.
    Environment(String),
    /// A node that parses but has no printer (`color`, `katex`, `cr`, a size or colour
    /// argument): printing it fails.
    Unprintable(&'static str),
    Undefined,
}

impl Node {
    fn is_ordgroup(&self) -> bool {
        matches!(self, Node::OrdGroup(_))
    }
    fn is_infix(&self) -> bool {
        matches!(self, Node::Infix { .. })
    }
    /// JavaScript's `body.type === "ordgroup" ? body.value : [body]`, failing on `undefined`.
    fn into_inner(self, func: &str) -> Res<Vec<Node>> {
        match self {
            Node::OrdGroup(v) => Ok(v),
            Node::Undefined => Err(format!("TypeError: argument of '{func}' is undefined")),
            n => Ok(vec![n]),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgType {
    Text,
    Color,
    Size,
    Original,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sqrt,
    Text,
    Color,
    Overline,
    Underline,
    Rule,
    KaTeX,
    Phantom,
    NamedColor,
    Op {
        limits: bool,
        symbol: bool,
    },
    Frac,
    Lap,
    Delim,
    /// Sizing and styling commands: the parser handles them; their handler is `null`.
    NoHandler,
    Font,
    Accent,
    Infix,
    Cr,
    Env,
}

#[derive(Debug, Clone, Copy)]
struct Func {
    num_args: usize,
    num_optional: usize,
    arg_types: Option<&'static [ArgType]>,
    greediness: u8,
    kind: Kind,
}

const NAMED_COLORS: &[&str] = &[
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
const OPS_PLAIN: &[&str] = &[
    "\\arcsin", "\\arccos", "\\arctan", "\\arg", "\\cos", "\\cosh", "\\cot", "\\coth", "\\csc",
    "\\deg", "\\dim", "\\exp", "\\hom", "\\ker", "\\lg", "\\ln", "\\log", "\\sec", "\\sin",
    "\\sinh", "\\tan", "\\tanh",
];
const OPS_LIMITS: &[&str] = &[
    "\\det", "\\gcd", "\\inf", "\\lim", "\\liminf", "\\limsup", "\\max", "\\min", "\\Pr", "\\sup",
];
const OPS_INT: &[&str] = &["\\int", "\\iint", "\\iiint", "\\oint"];
const OPS_BIG: &[&str] = &[
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
const FRACS: &[&str] = &["\\dfrac", "\\frac", "\\tfrac", "\\dbinom", "\\binom", "\\tbinom"];
const DELIM_FUNCS: &[&str] = &[
    "\\bigl", "\\Bigl", "\\biggl", "\\Biggl", "\\bigr", "\\Bigr", "\\biggr", "\\Biggr", "\\bigm",
    "\\Bigm", "\\biggm", "\\Biggm", "\\big", "\\Big", "\\bigg", "\\Bigg", "\\left", "\\right",
];
const DELIMITERS: &[&str] = &[
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
const SIZE_FUNCS: &[&str] = &[
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
const STYLE_FUNCS: &[&str] =
    &["\\displaystyle", "\\textstyle", "\\scriptstyle", "\\scriptscriptstyle"];
const FONT_FUNCS: &[&str] = &[
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
const ACCENTS: &[&str] = &[
    "\\acute", "\\grave", "\\ddot", "\\tilde", "\\bar", "\\breve", "\\check", "\\hat", "\\vec",
    "\\dot",
];

fn func(name: &str) -> Option<Func> {
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
fn is_ord(mode: Mode, text: &str) -> bool {
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
fn js_space(c: char) -> bool {
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
fn single_codepoint(c: char) -> bool {
    let u = c as u32;
    (0x21..=0x5b).contains(&u)
        || (0x5d..=0x2027).contains(&u)
        || (0x202a..=0xd7ff).contains(&u)
        || (0xf900..=0xffff).contains(&u)
        || u > 0xffff
}

/// A number as JavaScript prints it.
fn js_number(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    format!("{x}")
}

struct Lexer {
    input: Vec<char>,
}

impl Lexer {
    fn err(&self, msg: &str, pos: usize) -> String {
        format!("KaTeX parse error: {msg} at position {pos}")
    }

    fn lex(&self, pos: usize, mode: LexMode) -> Res<Token> {
        match mode {
            LexMode::Math => self.inner(pos, true),
            LexMode::Text => self.inner(pos, false),
            LexMode::Color => self.color(pos),
            LexMode::Size => self.size(pos),
        }
    }

    fn inner(&self, mut pos: usize, ignore_ws: bool) -> Res<Token> {
        let s = &self.input;
        loop {
            if pos == s.len() {
                return Ok(Token { text: "EOF".into(), end: pos, size: None });
            }
            let c = s[pos];
            if matches!(c, ' ' | '\r' | '\n' | '\t') {
                let mut e = pos;
                while e < s.len() && matches!(s[e], ' ' | '\r' | '\n' | '\t') {
                    e += 1;
                }
                if ignore_ws {
                    pos = e;
                    continue;
                }
                return Ok(Token { text: " ".into(), end: e, size: None });
            }
            let tok = |n: usize| Token {
                text: s[pos..pos + n].iter().collect(),
                end: pos + n,
                size: None,
            };
            if c == '-' && s.get(pos + 1) == Some(&'-') {
                return Ok(tok(if s.get(pos + 2) == Some(&'-') { 3 } else { 2 }));
            }
            if single_codepoint(c) {
                return Ok(tok(1));
            }
            if c == '\\' {
                let mut e = pos + 1;
                while e < s.len() && s[e].is_ascii_alphabetic() {
                    e += 1;
                }
                if e > pos + 1 {
                    return Ok(tok(e - pos));
                }
                if let Some(&n) = s.get(pos + 1) {
                    if (n as u32) <= 0xffff {
                        return Ok(tok(2));
                    }
                }
            }
            return Err(self.err(&format!("Unexpected character: '{c}'"), pos));
        }
    }

    fn skip_space(&self, mut pos: usize) -> usize {
        while pos < self.input.len() && js_space(self.input[pos]) {
            pos += 1;
        }
        pos
    }

    fn color(&self, pos: usize) -> Res<Token> {
        let s = &self.input;
        let pos = self.skip_space(pos);
        let mut e = pos;
        if s.get(pos) == Some(&'#') {
            e += 1;
            while e < s.len() && s[e].is_ascii_alphanumeric() {
                e += 1;
            }
            if e > pos + 1 {
                return Ok(Token { text: s[pos..e].iter().collect(), end: e, size: None });
            }
            e = pos;
        }
        while e < s.len() && s[e].is_ascii_alphabetic() {
            e += 1;
        }
        if e > pos {
            return Ok(Token { text: s[pos..e].iter().collect(), end: e, size: None });
        }
        Err(self.err("Invalid color", pos))
    }

    /// `(-?)\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]{2})`
    fn size(&self, pos: usize) -> Res<Token> {
        let s = &self.input;
        let pos = self.skip_space(pos);
        let mut i = pos;
        let neg = s.get(i) == Some(&'-');
        if neg {
            i += 1;
        }
        i = self.skip_space(i);
        let num_start = i;
        let digits = |mut j: usize| {
            while j < s.len() && s[j].is_ascii_digit() {
                j += 1;
            }
            j
        };
        let d = digits(i);
        if d > i {
            i = d;
            if s.get(i) == Some(&'.') {
                i = digits(i + 1);
            }
        } else if s.get(i) == Some(&'.') && digits(i + 1) > i + 1 {
            i = digits(i + 1);
        } else {
            return Err(self.err("Invalid size", pos));
        }
        let num: String = s[num_start..i].iter().collect();
        i = self.skip_space(i);
        if i + 2 <= s.len() && s[i].is_ascii_lowercase() && s[i + 1].is_ascii_lowercase() {
            let unit: String = s[i..i + 2].iter().collect();
            let text: String = s[pos..i + 2].iter().collect();
            let digits = if num.starts_with('.') { format!("0{num}") } else { num.clone() };
            let x: f64 = digits.trim_end_matches('.').parse().unwrap_or(0.0);
            let x = if neg { -x } else { x };
            return Ok(Token { text, end: i + 2, size: Some((js_number(x), unit)) });
        }
        Err(self.err("Invalid size", pos))
    }
}

enum Pfa {
    Func(String),
    Node(Node),
}

struct Parser {
    lexer: Lexer,
    mode: Mode,
    pos: usize,
    next: Token,
    /// Every consumed token, each after a space (the patched parser's `global_str`).
    global: String,
}

const END_OF_EXPRESSION: &[&str] = &["}", "\\end", "\\right", "&", "\\\\", "\\cr"];

impl Parser {
    fn lex_mode(&self) -> LexMode {
        match self.mode {
            Mode::Math => LexMode::Math,
            Mode::Text => LexMode::Text,
        }
    }

    fn expect(&mut self, text: &str, consume: bool) -> Res<()> {
        if self.next.text != text {
            return Err(self
                .lexer
                .err(&format!("Expected '{text}', got '{}'", self.next.text), self.next.end));
        }
        if consume {
            self.consume()?;
        }
        Ok(())
    }

    fn consume(&mut self) -> Res<()> {
        self.consume_in(self.lex_mode())
    }

    fn consume_in(&mut self, mode: LexMode) -> Res<()> {
        self.pos = self.next.end;
        self.global.push(' ');
        self.global.push_str(&self.next.text);
        self.next = self.lexer.lex(self.pos, mode)?;
        Ok(())
    }

    fn parse(&mut self) -> Res<Vec<Node>> {
        self.mode = Mode::Math;
        self.pos = 0;
        self.next = self.lexer.lex(0, LexMode::Math)?;
        let e = self.parse_expression(false, None)?;
        self.expect("EOF", false)?;
        Ok(e)
    }

    fn parse_expression(&mut self, break_on_infix: bool, break_on: Option<&str>) -> Res<Vec<Node>> {
        let mut body = Vec::new();
        loop {
            let lex = self.next.clone();
            let pos = self.pos;
            if END_OF_EXPRESSION.contains(&lex.text.as_str()) {
                break;
            }
            if break_on == Some(lex.text.as_str()) {
                break;
            }
            let Some(atom) = self.parse_atom()? else { break };
            if break_on_infix && atom.is_infix() {
                self.pos = pos;
                self.next = lex;
                break;
            }
            body.push(atom);
        }
        self.handle_infix(body)
    }

    fn handle_infix(&mut self, mut body: Vec<Node>) -> Res<Vec<Node>> {
        let mut over = None;
        for (i, n) in body.iter().enumerate() {
            if let Node::Infix { replace_with } = n {
                if over.is_some() {
                    return Err("KaTeX parse error: only one infix operator per group".into());
                }
                over = Some((i, *replace_with));
            }
        }
        let Some((i, with)) = over else { return Ok(body) };
        let denom: Vec<Node> = body.split_off(i + 1);
        body.pop();
        let group = |mut v: Vec<Node>| {
            if v.len() == 1 && v[0].is_ordgroup() {
                v.pop().unwrap()
            } else {
                Node::OrdGroup(v)
            }
        };
        let (numer, denom) = (group(body), group(denom));
        Ok(vec![Node::GenFrac {
            bar: with == "\\frac",
            numer: Box::new(numer),
            denom: Box::new(denom),
        }])
    }

    fn handle_supsub(&mut self, name: &str) -> Res<Option<Node>> {
        self.consume()?;
        match self.parse_group()? {
            None => Ok(None),
            Some(Pfa::Func(f)) => {
                if func(&f).map(|d| d.greediness).unwrap_or(1) > 1 {
                    Ok(Some(self.parse_function(Some(Pfa::Func(f)))?.unwrap_or(Node::Undefined)))
                } else {
                    Err(format!(
                        "KaTeX parse error: Got function '{f}' with no arguments as {name}"
                    ))
                }
            }
            Some(Pfa::Node(n)) => Ok(Some(n)),
        }
    }

    fn parse_atom(&mut self) -> Res<Option<Node>> {
        let base = self.parse_implicit_group()?;
        if self.mode == Mode::Text {
            return Ok(base);
        }
        let mut base = base;
        let mut sup: Option<Node> = None;
        let mut sub: Option<Node> = None;
        loop {
            let t = self.next.text.clone();
            if t == "\\limits" || t == "\\nolimits" {
                match &mut base {
                    Some(Node::Op { limits, .. }) => *limits = t == "\\limits",
                    _ => {
                        return Err(
                            "KaTeX parse error: Limit controls must follow a math operator".into()
                        )
                    }
                }
                self.consume()?;
            } else if t == "^" {
                sup = self.handle_supsub("superscript")?;
            } else if t == "_" {
                sub = self.handle_supsub("subscript")?;
            } else if t == "'" {
                let prime = Node::Sym { text: "\\prime".into(), ord: false };
                let mut primes = vec![prime.clone()];
                self.consume()?;
                while self.next.text == "'" {
                    primes.push(prime.clone());
                    self.consume()?;
                }
                sup = Some(Node::OrdGroup(primes));
            } else {
                break;
            }
        }
        if sup.is_some() || sub.is_some() {
            Ok(Some(Node::SupSub {
                base: base.map(Box::new),
                sup: sup.map(Box::new),
                sub: sub.map(Box::new),
            }))
        } else {
            Ok(base)
        }
    }

    /// Splices the environment name into the token string as the patched parser does.
    fn splice_env_name(&mut self, name: &str) {
        let cut = name.encode_utf16().count() * 2 + 2;
        let units: Vec<u16> = self.global.encode_utf16().collect();
        let keep = units.len().saturating_sub(cut);
        self.global = String::from_utf16_lossy(&units[..keep]) + name + "}";
    }

    fn parse_implicit_group(&mut self) -> Res<Option<Node>> {
        let Some(start) = self.parse_symbol()? else { return self.parse_function(None) };
        match &start {
            Pfa::Func(f) if f == "\\left" => {
                let left = self.parse_function(Some(start))?;
                let body = self.parse_expression(false, None)?;
                self.expect("\\right", false)?;
                let right = self.parse_function(None)?;
                let delim = |n: Option<Node>| match n {
                    Some(Node::DelimSizing { value, .. }) => value,
                    _ => String::new(),
                };
                Ok(Some(Node::LeftRight { left: delim(left), right: delim(right), body }))
            }
            Pfa::Func(f) if f == "\\begin" => {
                let begin = self.parse_function(Some(start))?;
                let Some(Node::Environment(name)) = begin else {
                    return Err("TypeError: \\begin".into());
                };
                self.splice_env_name(&name);
                let env = env_spec(&name)
                    .ok_or_else(|| format!("KaTeX parse error: No such environment: {name}"))?;
                let args = self.parse_arguments(&format!("\\begin{{{name}}}"), &env)?;
                let result = self.environment(&name, args)?;
                self.expect("\\end", false)?;
                let end = self.parse_function(None)?;
                self.splice_env_name(&name);
                match end {
                    Some(Node::Environment(e)) if e == name => Ok(Some(result)),
                    Some(Node::Environment(e)) => Err(format!(
                        "KaTeX parse error: Mismatch: \\begin{{{name}}} matched by \\end{{{e}}}"
                    )),
                    _ => Err("TypeError: \\end".into()),
                }
            }
            Pfa::Node(Node::Sym { text, .. })
                if text == "\\matrix" || text == "\\pmatrix" || text == "\\cases" =>
            {
                let env = text[1..].to_string();
                self.expect("{", true)?;
                let result = self.environment(&env, Vec::new())?;
                self.expect("}", true)?;
                Ok(Some(result))
            }
            Pfa::Func(f) if SIZE_FUNCS.contains(&f.as_str()) => {
                let body = self.parse_expression(false, None)?;
                Ok(Some(Node::Sizing { original: f.clone(), body }))
            }
            Pfa::Func(f) if STYLE_FUNCS.contains(&f.as_str()) => {
                let body = self.parse_expression(true, None)?;
                Ok(Some(Node::Styling { original: f.clone(), body }))
            }
            _ => self.parse_function(Some(start)),
        }
    }

    fn parse_function(&mut self, base: Option<Pfa>) -> Res<Option<Node>> {
        let base = match base {
            Some(b) => Some(b),
            None => self.parse_group()?,
        };
        match base {
            None => Ok(None),
            Some(Pfa::Node(n)) => Ok(Some(n)),
            Some(Pfa::Func(f)) => {
                let data = func(&f).expect("a function");
                let args = self.parse_arguments(&f, &data)?;
                Ok(Some(self.call_function(&f, data.kind, args)?))
            }
        }
    }

    fn call_function(&mut self, name: &str, kind: Kind, mut args: Vec<Option<Node>>) -> Res<Node> {
        // `null` (an absent optional argument) is None; `undefined` is Some(Undefined).
        let mut take = |i: usize| args.get_mut(i).and_then(Option::take);
        let req = |n: Option<Node>| n.unwrap_or(Node::Undefined);
        Ok(match kind {
            Kind::Sqrt => {
                let index = match take(0) {
                    Some(Node::OrdGroup(v)) => Some(v),
                    Some(_) => return Err("TypeError: sqrt index".into()),
                    None => None,
                };
                Node::Sqrt { index, body: Box::new(req(take(1))) }
            }
            Kind::Text => Node::Text(req(take(0)).into_inner(name)?),
            Kind::Color => {
                req(take(0));
                req(take(1)).into_inner(name)?;
                Node::Unprintable("color")
            }
            Kind::NamedColor => {
                req(take(0)).into_inner(name)?;
                Node::Unprintable("color")
            }
            Kind::Overline => Node::Overline(Box::new(req(take(0)))),
            Kind::Underline => Node::Underline(Box::new(req(take(0)))),
            Kind::Rule => {
                let _shift = take(0);
                match (take(1), take(2)) {
                    (Some(Node::Size(w)), Some(Node::Size(h))) => {
                        Node::Rule { width: w, height: h }
                    }
                    _ => return Err("TypeError: \\rule".into()),
                }
            }
            Kind::KaTeX => Node::Unprintable("katex"),
            Kind::Phantom => Node::Phantom(req(take(0)).into_inner(name)?),
            Kind::Op { limits, symbol } => Node::Op { name: name.to_string(), limits, symbol },
            Kind::Frac => Node::GenFrac {
                bar: matches!(name, "\\dfrac" | "\\frac" | "\\tfrac"),
                numer: Box::new(req(take(0))),
                denom: Box::new(req(take(1))),
            },
            Kind::Lap => Node::Lap {
                name: if name == "\\llap" { "\\llap" } else { "\\rlap" },
                body: Box::new(req(take(0))),
            },
            Kind::Delim => {
                let value = match req(take(0)) {
                    Node::Sym { text, .. } => text,
                    Node::Undefined => return Err(format!("TypeError: argument of '{name}'")),
                    _ => String::new(),
                };
                if !DELIMITERS.contains(&value.as_str()) {
                    return Err(format!(
                        "KaTeX parse error: Invalid delimiter: '{value}' after '{name}'"
                    ));
                }
                Node::DelimSizing { func: name.to_string(), value }
            }
            Kind::NoHandler => return Err(format!("TypeError: '{name}' has no handler")),
            Kind::Font => {
                let font = match name {
                    "\\Bbb" => "mathbb",
                    "\\bold" => "mathbf",
                    "\\frak" => "mathfrak",
                    n => &n[1..],
                };
                Node::Font { font: font.to_string(), body: Box::new(req(take(0))) }
            }
            Kind::Accent => Node::Accent { accent: name.to_string(), base: Box::new(req(take(0))) },
            Kind::Infix => {
                Node::Infix { replace_with: if name == "\\over" { "\\frac" } else { "\\binom" } }
            }
            Kind::Cr => Node::Unprintable("cr"),
            Kind::Env => match req(take(0)) {
                Node::OrdGroup(v) => {
                    let mut name = String::new();
                    for n in v {
                        match n {
                            Node::Sym { text, .. } => name.push_str(&text),
                            _ => return Err("TypeError: environment name".into()),
                        }
                    }
                    Node::Environment(name)
                }
                Node::Undefined => return Err("TypeError: environment name".into()),
                _ => return Err("KaTeX parse error: Invalid environment name".into()),
            },
        })
    }

    /// The arguments of a function or environment: `None` for `null` (an absent optional
    /// argument), `Some(Undefined)` for an argument the patched parser leaves `undefined`.
    fn parse_arguments(&mut self, name: &str, data: &Func) -> Res<Vec<Option<Node>>> {
        let total = data.num_args + data.num_optional;
        let mut args = Vec::with_capacity(total);
        // JavaScript's `var argNode` lives across the loop: an argument the greediness check
        // rejects repeats the previous one (or is `undefined` when there is none).
        let mut last: Option<Node> = None;
        for i in 0..total {
            let arg_type = data.arg_types.map(|t| t[i]);
            let arg = if i < data.num_optional {
                let arg = match arg_type {
                    Some(t) => self.parse_special_group(t, true)?,
                    None => self.parse_optional_group()?,
                };
                match arg {
                    Some(a) => a,
                    None => {
                        args.push(None);
                        continue;
                    }
                }
            } else {
                let arg = match arg_type {
                    Some(t) => self.parse_special_group(t, false)?,
                    None => self.parse_group()?,
                };
                arg.ok_or_else(|| format!("KaTeX parse error: Expected group after '{name}'"))?
            };
            let node = match arg {
                Pfa::Func(f) => {
                    let g = func(&f).map(|d| d.greediness).unwrap_or(1);
                    if g > data.greediness {
                        self.parse_function(Some(Pfa::Func(f)))?.unwrap_or(Node::Undefined)
                    } else {
                        last.clone().unwrap_or(Node::Undefined)
                    }
                }
                Pfa::Node(n) => n,
            };
            last = Some(node.clone());
            args.push(Some(node));
        }
        Ok(args)
    }

    fn parse_special_group(&mut self, t: ArgType, optional: bool) -> Res<Option<Pfa>> {
        let outer = self.mode;
        let inner = match t {
            ArgType::Color | ArgType::Size => {
                if optional && self.next.text != "[" {
                    return Ok(None);
                }
                let lex = if t == ArgType::Color { LexMode::Color } else { LexMode::Size };
                let open = if optional { "[" } else { "{" };
                if self.next.text != open {
                    return Err(format!(
                        "KaTeX parse error: Expected '{open}', got '{}'",
                        self.next.text
                    ));
                }
                self.consume_in(lex)?;
                let inner = self.next.clone();
                self.consume()?;
                self.expect(if optional { "]" } else { "}" }, true)?;
                let node = match (t, inner.size) {
                    // A size argument: number and unit, for `\rule`.
                    (ArgType::Size, Some(size)) => Node::Size(size),
                    _ => Node::Unprintable("color"),
                };
                return Ok(Some(Pfa::Node(node)));
            }
            ArgType::Text => {
                self.pos = self.lexer.skip_space(self.pos);
                Mode::Text
            }
            ArgType::Original => outer,
        };
        self.mode = inner;
        self.next = self.lexer.lex(self.pos, self.lex_mode())?;
        let res = if optional { self.parse_optional_group()? } else { self.parse_group()? };
        self.mode = outer;
        self.next = self.lexer.lex(self.pos, self.lex_mode())?;
        Ok(res)
    }

    fn parse_group(&mut self) -> Res<Option<Pfa>> {
        if self.next.text == "{" {
            self.consume()?;
            let e = self.parse_expression(false, None)?;
            self.expect("}", true)?;
            Ok(Some(Pfa::Node(Node::OrdGroup(e))))
        } else {
            self.parse_symbol()
        }
    }

    fn parse_optional_group(&mut self) -> Res<Option<Pfa>> {
        if self.next.text == "[" {
            self.consume()?;
            let e = self.parse_expression(false, Some("]"))?;
            self.expect("]", true)?;
            Ok(Some(Pfa::Node(Node::OrdGroup(e))))
        } else {
            Ok(None)
        }
    }

    fn parse_symbol(&mut self) -> Res<Option<Pfa>> {
        let text = self.next.text.clone();
        if func(&text).is_some() {
            self.consume()?;
            return Ok(Some(Pfa::Func(text)));
        }
        if text == "EOF" || text == "{" {
            return Ok(None);
        }
        self.consume()?;
        let ord = is_ord(self.mode, &text);
        Ok(Some(Pfa::Node(Node::Sym { text, ord })))
    }

    fn environment(&mut self, name: &str, args: Vec<Option<Node>>) -> Res<Node> {
        let array = |p: &mut Parser, cols| p.parse_array(cols);
        Ok(match name {
            "array" | "tabular" => {
                let cols: Vec<Option<String>> = match args.into_iter().next().flatten() {
                    Some(Node::OrdGroup(v)) => v.iter().map(col_align).collect(),
                    Some(Node::Undefined) | None => return Err("TypeError: array columns".into()),
                    Some(n) => vec![col_align(&n)],
                };
                array(self, Some(cols))?
            }
            "matrix" | "pmatrix" | "bmatrix" | "Bmatrix" | "vmatrix" | "Vmatrix" => {
                let res = array(self, None)?;
                let delims = match name {
                    "pmatrix" => Some(("(", ")")),
                    "bmatrix" => Some(("[", "]")),
                    "Bmatrix" => Some(("\\{", "\\}")),
                    "vmatrix" => Some(("|", "|")),
                    "Vmatrix" => Some(("\\Vert", "\\Vert")),
                    _ => None,
                };
                match delims {
                    Some((l, r)) => {
                        Node::LeftRight { left: l.into(), right: r.into(), body: vec![res] }
                    }
                    None => res,
                }
            }
            "picture" | "cases" => {
                let res = array(self, Some(vec![Some("l".into()), Some("l".into())]))?;
                Node::LeftRight { left: "\\{".into(), right: ".".into(), body: vec![res] }
            }
            "aligned" => {
                let Node::Array { mut body, .. } = array(self, Some(Vec::new()))? else {
                    unreachable!()
                };
                let mut num_cols = 0;
                for row in body.iter_mut() {
                    for cell in row.iter_mut().skip(1).step_by(2) {
                        cell.insert(0, Node::OrdGroup(Vec::new()));
                    }
                    num_cols = num_cols.max(row.len());
                }
                let cols = (0..num_cols)
                    .map(|i| Some(if i % 2 == 1 { "l" } else { "r" }.to_string()))
                    .collect();
                Node::Array { cols: Some(cols), body }
            }
            _ => return Err(format!("KaTeX parse error: No such environment: {name}")),
        })
    }

    fn parse_array(&mut self, cols: Option<Vec<Option<String>>>) -> Res<Node> {
        let mut body: Vec<Vec<Vec<Node>>> = vec![Vec::new()];
        loop {
            let cell = self.parse_expression(false, None)?;
            body.last_mut().unwrap().push(cell);
            let next = self.next.text.clone();
            if next == "&" {
                self.consume()?;
            } else if next == "\\end" || next == "}" {
                break;
            } else if next == "\\\\" || next == "\\cr" {
                self.parse_function(None)?;
                body.push(Vec::new());
            } else {
                return Err("KaTeX parse error: Expected & or \\\\ or \\end".into());
            }
        }
        Ok(Node::Array { cols, body })
    }
}

/// An array column: `l`, `c` or `r` (anything else prints nothing).
fn col_align(n: &Node) -> Option<String> {
    match n {
        // JavaScript's `"lcr".indexOf(ca) !== -1`: also true for the empty string, never
        // for more than one character here.
        Node::Sym { text, .. } if "lcr".contains(text.as_str()) => Some(text.clone()),
        _ => None,
    }
}

fn env_spec(name: &str) -> Option<Func> {
    let num_args = match name {
        "array" | "tabular" => 1,
        "matrix" | "pmatrix" | "bmatrix" | "Bmatrix" | "vmatrix" | "Vmatrix" | "picture"
        | "cases" | "aligned" => 0,
        _ => return None,
    };
    Some(Func { num_args, num_optional: 0, arg_types: None, greediness: 1, kind: Kind::Env })
}

/// The printer of `preprocess_formula.js`.
struct Printer {
    out: String,
}

impl Printer {
    fn expression(&mut self, nodes: &[Node], font: Option<&str>) -> Res<()> {
        for n in nodes {
            self.group(n, font)?;
        }
        Ok(())
    }

    fn group(&mut self, n: &Node, font: Option<&str>) -> Res<()> {
        let o = &mut self.out;
        match n {
            Node::Sym { text, ord } => {
                if *ord && font == Some("mathrm") {
                    for c in text.chars() {
                        if c == ' ' {
                            // `"\\; "` in the JavaScript source is `"; "`.
                            o.push_str(" ; ");
                        } else if (c as u32) > 0xffff {
                            // JavaScript indexes UTF-16 units: half a surrogate pair each,
                            // which node writes out as U+FFFD.
                            o.push_str("\u{fffd} \u{fffd} ");
                        } else {
                            o.push(c);
                            o.push(' ');
                        }
                    }
                } else if text == " " {
                    o.push_str("~ ");
                } else {
                    o.push_str(text);
                    o.push(' ');
                }
            }
            Node::OrdGroup(v) => {
                o.push_str("{ ");
                self.expression(v, font)?;
                self.out.push_str("} ");
            }
            Node::Text(v) => {
                o.push_str("\\mathrm { ");
                self.expression(v, font)?;
                self.out.push_str("} ");
            }
            Node::SupSub { base, sup, sub } => {
                match base {
                    Some(b) => self.group(b, font)?,
                    None => return Err("TypeError: supsub base".into()),
                }
                for (mark, s) in [("_ ", sub), ("^ ", sup)] {
                    if let Some(s) = s {
                        self.out.push_str(mark);
                        if s.is_ordgroup() {
                            self.group(s, font)?;
                        } else {
                            self.out.push_str(" { ");
                            self.group(s, font)?;
                            self.out.push_str("} ");
                        }
                    }
                }
            }
            Node::GenFrac { bar, numer, denom } => {
                o.push_str(if *bar { "\\frac " } else { "\\binom " });
                self.group(numer, font)?;
                self.group(denom, font)?;
            }
            Node::Array { cols, body } => {
                o.push_str("\\begin{array} { ");
                match cols {
                    Some(cols) => {
                        for c in cols.iter().flatten() {
                            self.out.push_str(c);
                            self.out.push(' ');
                        }
                    }
                    None => {
                        for _ in &body[0] {
                            self.out.push_str("l ");
                        }
                    }
                }
                self.out.push_str("} ");
                for row in body {
                    if row.iter().any(|c| !c.is_empty()) {
                        for cell in row {
                            self.out.push_str("{ ");
                            self.expression(cell, font)?;
                            self.out.push_str("} ");
                            if self.out.len() > 4 && self.out.ends_with("{ } ") {
                                self.out.truncate(self.out.len() - 4);
                            }
                            self.out.push_str("& ");
                        }
                        self.out.truncate(self.out.len() - 2);
                        self.out.push_str("\\\\ ");
                    }
                }
                self.out.push_str("\\end{array} ");
            }
            Node::Sqrt { index, body } => {
                if let Some(index) = index {
                    o.push_str("\\sqrt [ ");
                    self.expression(index, font)?;
                    self.out.push_str("] ");
                } else {
                    o.push_str("\\sqrt ");
                }
                self.group(body, font)?;
            }
            Node::LeftRight { left, right, body } => {
                o.push_str("\\left");
                o.push_str(left);
                o.push(' ');
                self.expression(body, font)?;
                self.out.push_str("\\right");
                self.out.push_str(right);
                self.out.push(' ');
            }
            Node::Accent { accent, base } => {
                if matches!(**base, Node::Undefined) {
                    return Err("TypeError: accent base".into());
                }
                if base.is_ordgroup() {
                    o.push_str(accent);
                    o.push(' ');
                    self.group(base, font)?;
                } else {
                    o.push_str(accent);
                    o.push_str(" { ");
                    self.group(base, font)?;
                    self.out.push_str("} ");
                }
            }
            Node::Op { name, limits, symbol } => {
                if *symbol {
                    o.push_str(name);
                    o.push(' ');
                } else {
                    o.push_str(if *limits { "\\operatorname* { " } else { "\\operatorname { " });
                    for c in name.chars().skip(1) {
                        o.push(c);
                        o.push(' ');
                    }
                    o.push_str("} ");
                }
            }
            Node::Font { font: f, body } => {
                o.push('\\');
                o.push_str(f);
                o.push(' ');
                self.group(body, Some(f))?;
            }
            Node::DelimSizing { func, value } => {
                o.push_str(func);
                o.push(' ');
                o.push_str(value);
                o.push(' ');
            }
            Node::Styling { original, body } => {
                o.push(' ');
                o.push_str(original);
                o.push(' ');
                self.expression(body, font)?;
            }
            Node::Sizing { original, body } => {
                if original == "\\rm" {
                    o.push_str("\\mathrm { ");
                    self.expression(body, Some("mathrm"))?;
                    self.out.push_str("} ");
                } else {
                    o.push(' ');
                    o.push_str(original);
                    o.push(' ');
                    self.expression(body, font)?;
                }
            }
            Node::Overline(b) | Node::Underline(b) => {
                o.push_str(if matches!(n, Node::Overline(_)) {
                    "\\overline { "
                } else {
                    "\\underline { "
                });
                self.group(b, font)?;
                self.out.push_str("} ");
            }
            Node::Rule { width, height } => {
                o.push_str(&format!(
                    "\\rule {{ {} {}  }} {{ {} {} }} ",
                    width.0, width.1, height.0, height.1
                ));
            }
            Node::Lap { name, body } => {
                o.push_str(name);
                o.push(' ');
                self.group(body, font)?;
            }
            Node::Phantom(v) => {
                o.push_str("\\phantom { ");
                self.expression(v, font)?;
                self.out.push_str("} ");
            }
            Node::Infix { .. } => return Err("Got group of unknown type: 'infix'".into()),
            Node::Size(_) => return Err("Got group of unknown type: 'size'".into()),
            Node::Environment(_) => return Err("Got group of unknown type: 'environment'".into()),
            Node::Unprintable(t) => return Err(format!("cannot print a '{t}' node")),
            Node::Undefined => return Err("TypeError: Cannot read properties of undefined".into()),
        }
        Ok(())
    }
}

fn parser(line: &str) -> Parser {
    Parser {
        lexer: Lexer { input: line.chars().collect() },
        mode: Mode::Math,
        pos: 0,
        next: Token { text: String::new(), end: 0, size: None },
        global: String::new(),
    }
}

/// `katex.__parse` then the `normalize` printer: the LaTeX printed back from the tree.
pub(super) fn normalize(line: &str) -> Res<String> {
    let mut p = parser(line);
    let tree = p.parse()?;
    let mut pr = Printer { out: String::new() };
    pr.expression(&tree, None)?;
    Ok(pr.out)
}

/// `katex.__parse`, then every token the parser consumed (`tokenize` mode).
pub(super) fn tokenize(line: &str) -> Res<String> {
    let mut p = parser(line);
    p.parse()?;
    Ok(p.global)
}
