//! The lexer: the next token of the input in math or text mode.

use super::*;

pub(super) struct Lexer {
    pub(super) input: Vec<char>,
}

impl Lexer {
    pub(super) fn err(&self, msg: &str, pos: usize) -> String {
        format!("KaTeX parse error: {msg} at position {pos}")
    }

    pub(super) fn lex(&self, pos: usize, mode: LexMode) -> Res<Token> {
        match mode {
            LexMode::Math => self.inner(pos, true),
            LexMode::Text => self.inner(pos, false),
            LexMode::Color => self.color(pos),
            LexMode::Size => self.size(pos),
        }
    }

    pub(super) fn inner(&self, mut pos: usize, ignore_ws: bool) -> Res<Token> {
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

    pub(super) fn skip_space(&self, mut pos: usize) -> usize {
        while pos < self.input.len() && js_space(self.input[pos]) {
            pos += 1;
        }
        pos
    }

    pub(super) fn color(&self, pos: usize) -> Res<Token> {
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
    pub(super) fn size(&self, pos: usize) -> Res<Token> {
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
