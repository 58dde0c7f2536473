//! The parser: the token stream to the tree of [`Node`]s, with the patches the official
//! tokenizer applies (see the module above).

use super::*;

pub(super) enum Pfa {
    Func(String),
    Node(Node),
}

pub(super) struct Parser {
    pub(super) lexer: Lexer,
    pub(super) mode: Mode,
    pub(super) pos: usize,
    pub(super) next: Token,
    /// Every consumed token, each after a space (the patched parser's `global_str`).
    pub(super) global: String,
}

pub(super) const END_OF_EXPRESSION: &[&str] = &["}", "\\end", "\\right", "&", "\\\\", "\\cr"];

impl Parser {
    pub(super) fn lex_mode(&self) -> LexMode {
        match self.mode {
            Mode::Math => LexMode::Math,
            Mode::Text => LexMode::Text,
        }
    }

    pub(super) fn expect(&mut self, text: &str, consume: bool) -> Res<()> {
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

    pub(super) fn consume(&mut self) -> Res<()> {
        self.consume_in(self.lex_mode())
    }

    pub(super) fn consume_in(&mut self, mode: LexMode) -> Res<()> {
        self.pos = self.next.end;
        self.global.push(' ');
        self.global.push_str(&self.next.text);
        self.next = self.lexer.lex(self.pos, mode)?;
        Ok(())
    }

    pub(super) fn parse(&mut self) -> Res<Vec<Node>> {
        self.mode = Mode::Math;
        self.pos = 0;
        self.next = self.lexer.lex(0, LexMode::Math)?;
        let e = self.parse_expression(false, None)?;
        self.expect("EOF", false)?;
        Ok(e)
    }

    pub(super) fn parse_expression(
        &mut self,
        break_on_infix: bool,
        break_on: Option<&str>,
    ) -> Res<Vec<Node>> {
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

    pub(super) fn handle_infix(&mut self, mut body: Vec<Node>) -> Res<Vec<Node>> {
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

    pub(super) fn handle_supsub(&mut self, name: &str) -> Res<Option<Node>> {
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

    pub(super) fn parse_atom(&mut self) -> Res<Option<Node>> {
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
    pub(super) fn splice_env_name(&mut self, name: &str) {
        let cut = name.encode_utf16().count() * 2 + 2;
        let units: Vec<u16> = self.global.encode_utf16().collect();
        let keep = units.len().saturating_sub(cut);
        self.global = String::from_utf16_lossy(&units[..keep]) + name + "}";
    }

    pub(super) fn parse_implicit_group(&mut self) -> Res<Option<Node>> {
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

    pub(super) fn parse_function(&mut self, base: Option<Pfa>) -> Res<Option<Node>> {
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

    pub(super) fn call_function(
        &mut self,
        name: &str,
        kind: Kind,
        mut args: Vec<Option<Node>>,
    ) -> Res<Node> {
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
    pub(super) fn parse_arguments(&mut self, name: &str, data: &Func) -> Res<Vec<Option<Node>>> {
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

    pub(super) fn parse_special_group(&mut self, t: ArgType, optional: bool) -> Res<Option<Pfa>> {
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

    pub(super) fn parse_group(&mut self) -> Res<Option<Pfa>> {
        if self.next.text == "{" {
            self.consume()?;
            let e = self.parse_expression(false, None)?;
            self.expect("}", true)?;
            Ok(Some(Pfa::Node(Node::OrdGroup(e))))
        } else {
            self.parse_symbol()
        }
    }

    pub(super) fn parse_optional_group(&mut self) -> Res<Option<Pfa>> {
        if self.next.text == "[" {
            self.consume()?;
            let e = self.parse_expression(false, Some("]"))?;
            self.expect("]", true)?;
            Ok(Some(Pfa::Node(Node::OrdGroup(e))))
        } else {
            Ok(None)
        }
    }

    pub(super) fn parse_symbol(&mut self) -> Res<Option<Pfa>> {
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

    pub(super) fn environment(&mut self, name: &str, args: Vec<Option<Node>>) -> Res<Node> {
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

    pub(super) fn parse_array(&mut self, cols: Option<Vec<Option<String>>>) -> Res<Node> {
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
pub(super) fn col_align(n: &Node) -> Option<String> {
    match n {
        // JavaScript's `"lcr".indexOf(ca) !== -1`: also true for the empty string, never
        // for more than one character here.
        Node::Sym { text, .. } if "lcr".contains(text.as_str()) => Some(text.clone()),
        _ => None,
    }
}
