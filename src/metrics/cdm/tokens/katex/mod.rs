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

mod funcs;
mod lexer;
mod parser;
mod printer;

use super::symbols::MATH_NON_ORD;
use funcs::*;
use lexer::*;
use parser::*;
use printer::*;

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
