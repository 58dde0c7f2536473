//! The `normalize` printer (`preprocess_formula.js`): the tree printed back as spaced LaTeX.

use super::*;

/// The printer of `preprocess_formula.js`.
pub(super) struct Printer {
    pub(super) out: String,
}

impl Printer {
    pub(super) fn expression(&mut self, nodes: &[Node], font: Option<&str>) -> Res<()> {
        for n in nodes {
            self.group(n, font)?;
        }
        Ok(())
    }

    pub(super) fn group(&mut self, n: &Node, font: Option<&str>) -> Res<()> {
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
