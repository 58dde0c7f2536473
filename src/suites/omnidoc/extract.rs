//! Prediction parsing of the OmniDocBench v1.5 evaluator: `utils/extract.py::md_tex_filter` (with
//! `utils/table_utils.py::convert_markdown_to_html` for pipe tables), `docs/omnidocbench.md` §2.
//!
//! Order, as in the reference: remove images, Markdown fences, collapse `_{4,}` and ` {4,}`,
//! drop `<html>/<body>`; LaTeX tables; HTML tables; display and inline math; Markdown pipe tables
//! (converted to HTML); fenced code; unwrap `\title{}`, `\text{}`, `\section{}`; paragraphs split
//! on blank lines (single newlines when there is only one paragraph). Every extracted span is
//! blanked with as many spaces as it has characters, so positions (in code points, as Python)
//! stay valid. Reproduced quirks: the paragraph position counter does not count the separators;
//! the HTML/LaTeX table scanners advance by `len("</table>")` / `len(r"\\end{tabular}")` after a
//! start tag and restart at `len(pattern)` after an unclosed one; inline formulas are emitted as
//! `equation_isolated` blocks with `fine_category_type = equation_inline` but stay in the text.

use crate::suites::omnidoc::normalize::re;
use regex::Regex;
use std::sync::LazyLock;

/// Top-level category of a predicted block (`category_type` in the reference).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PredCategory {
    /// `text_all`: paragraphs, code, exploded table cells.
    TextAll,
    /// `equation_isolated`: display (and inline) formulas.
    EquationIsolated,
    /// `html_table`.
    HtmlTable,
    /// `latex_table`.
    LatexTable,
}

impl PredCategory {
    /// The reference's category string.
    pub fn as_str(self) -> &'static str {
        match self {
            PredCategory::TextAll => "text_all",
            PredCategory::EquationIsolated => "equation_isolated",
            PredCategory::HtmlTable => "html_table",
            PredCategory::LatexTable => "latex_table",
        }
    }
}

/// One predicted block.
#[derive(Debug, Clone, PartialEq)]
pub struct PredBlock {
    /// Top-level category.
    pub category: PredCategory,
    /// `fine_category_type`: `text_block`, `code`, `equation_inline`, `md2html_table`, or none.
    pub fine: Option<&'static str>,
    /// `[start, end)` in code points of the (progressively rewritten) page text.
    pub position: (usize, usize),
    /// Block content.
    pub content: String,
}

impl PredBlock {
    /// `get_pred_category_type`: the fine category when set, else the category.
    pub(crate) fn category_name(&self) -> &'static str {
        self.fine.unwrap_or(self.category.as_str())
    }
}

/// Blocks of one page grouped by category in order of first appearance (the reference's
/// `defaultdict(list)` filled from the position-sorted list).
#[derive(Debug, Clone, Default)]
pub struct PredPage {
    /// `(category, blocks sorted by start position)`.
    pub groups: Vec<(PredCategory, Vec<PredBlock>)>,
}

impl PredPage {
    /// Blocks of one category (empty when none).
    pub fn get(&self, cat: PredCategory) -> &[PredBlock] {
        self.groups.iter().find(|(c, _)| *c == cat).map(|(_, v)| v.as_slice()).unwrap_or(&[])
    }
}

static IMG_RE: LazyLock<Regex> = LazyLock::new(|| re(r"!\[.*?\]\(.*?\)"));
static FENCE_RES: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    [
        re(r"(?m)^```markdown\n?"),
        re(r"(?m)^```html\n?"),
        re(r"(?m)^```latex\n?"),
        re(r"(?m)```\n?$"),
    ]
});
static UNDERSCORES_RE: LazyLock<Regex> = LazyLock::new(|| re(r"_{4,}"));
static SPACES_RE: LazyLock<Regex> = LazyLock::new(|| re(r" {4,}"));
static TABLE_ENV_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)\\begin\{table\}(.*?)\\end\{table\}"));
static TABULAR_BEGIN_RE: LazyLock<Regex> = LazyLock::new(|| re(r"\\begin\{tabular\}"));
static TABULAR_END_RE: LazyLock<Regex> = LazyLock::new(|| re(r"\\end\{tabular\}"));
static HTML_BEGIN_RE: LazyLock<Regex> = LazyLock::new(|| re(r"<table(?:[^>]*)>"));
static HTML_END_RE: LazyLock<Regex> = LazyLock::new(|| re(r"</table>"));
static DISPLAY_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)\$\$(.*?)\$\$|\\\[(.*?)\\\]|\$(.*?)\$|\\\((.*?)\\\)"));
static DOLLAR_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)\$\$(.*?)\$\$|\$(.*?)\$|\\\((.*?)\\\)"));
static MD_TABLE_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)\|\s*.*?\s*\|\n"));
static HTML_TABLE_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)(<table.*?</table>)"));
static CODE_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)```(\w+)\n(.*?)```"));
static STYLE_RES: LazyLock<[Regex; 5]> = LazyLock::new(|| {
    [
        re(r"\\title\{(.*?)\}"),
        re(r"(?s)\\title\s*\{\s*(.*?)\s*\}"),
        re(r"(?s)\\text\s*\{\s*(.*?)\s*\}"),
        re(r"\\section\*?\{(.*?)\}"),
        re(r"(?s)\\section\*?\{\s*(.*?)\s*\}"),
    ]
});
static COMMENT_RE: LazyLock<Regex> = LazyLock::new(|| re(r"<!--[\s\S]*?-->"));
static TABLE_BLOCK_RE: LazyLock<Regex> = LazyLock::new(|| re(r"<table>[\s\S]*?</table>"));
static TABLE_BODY_TAG_RE: LazyLock<Regex> = LazyLock::new(|| re(r"</?t(able|head|body)>"));

/// The page text as characters, with regex access through a string snapshot.
struct Text {
    chars: Vec<char>,
}

impl Text {
    fn snapshot(&self) -> (String, Vec<usize>) {
        let s: String = self.chars.iter().collect();
        // byte offset -> char index
        let mut map = vec![0; s.len() + 1];
        let mut ci = 0;
        for (bi, c) in s.char_indices() {
            for slot in map.iter_mut().skip(bi).take(c.len_utf8()) {
                *slot = ci;
            }
            ci += 1;
        }
        map[s.len()] = ci;
        (s, map)
    }

    fn blank(&mut self, start: usize, end: usize) {
        for c in &mut self.chars[start..end] {
            *c = ' ';
        }
    }

    fn slice(&self, start: usize, end: usize) -> String {
        self.chars[start..end].iter().collect()
    }
}

/// `extract_tabular` / `extract_html_table`: nesting-aware scan with the reference's cursor
/// quirks. Returns `(start, end)` byte ranges.
fn nested_scan(
    text: &str,
    begin: &Regex,
    end: &Regex,
    begin_skip: usize,
    restart: usize,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut cur = 0;
    let mut stack: Vec<usize> = Vec::new();
    while cur < text.len() {
        let b = begin.find(&text[cur..]);
        let e = end.find(&text[cur..]);
        if b.is_none() && e.is_none() {
            break;
        }
        match (b, e) {
            (Some(b), e) if e.is_none_or(|e| b.start() < e.start()) => {
                stack.push(cur + b.start());
                cur += b.start() + begin_skip;
            }
            (_, Some(e)) => {
                if let Some(start) = stack.pop() {
                    if stack.is_empty() {
                        out.push((start, cur + e.start() + e.as_str().len()));
                    }
                }
                cur += e.start() + e.as_str().len();
            }
            _ => cur += 1,
        }
        while cur < text.len() && !text.is_char_boundary(cur) {
            cur += 1;
        }
    }
    if let Some(&first) = stack.first() {
        let mut new_start = first + restart;
        while new_start < text.len() && !text.is_char_boundary(new_start) {
            new_start += 1;
        }
        if new_start <= text.len() {
            for (s, e) in nested_scan(&text[new_start..], begin, end, begin_skip, restart) {
                out.push((s + new_start, e + new_start));
            }
        }
    }
    out
}

/// `markdown_to_html` (from intsig-textin/markdown_tester, as bundled by the reference).
fn markdown_to_html(md: &str) -> String {
    let rows: Vec<&str> = md
        .trim_matches(crate::suites::omnidoc::normalize::py_space)
        .split('\n')
        .map(|r| r.trim_matches(crate::suites::omnidoc::normalize::py_space))
        .collect();
    let cells = |row: &str| -> Vec<String> {
        let parts: Vec<&str> = row.split('|').collect();
        if parts.len() < 2 {
            return vec![];
        }
        parts[1..parts.len() - 1]
            .iter()
            .map(|c| crate::suites::omnidoc::normalize::py_strip(c).to_string())
            .collect()
    };
    let mut html = String::from("<table>\n  <thead>\n    <tr>\n");
    for c in cells(rows[0]) {
        html.push_str(&format!("      <th>{c}</th>\n"));
    }
    html.push_str("    </tr>\n  </thead>\n  <tbody>\n");
    for row in rows.iter().skip(2) {
        html.push_str("    <tr>\n");
        for c in cells(row) {
            html.push_str(&format!("      <td>{c}</td>\n"));
        }
        html.push_str("    </tr>\n");
    }
    html.push_str("  </tbody>\n</table>\n");
    html
}

fn merge_tables(input: &str) -> String {
    let input = COMMENT_RE.replace_all(input, "");
    let mut lines_out: Vec<String> = Vec::new();
    for block in TABLE_BLOCK_RE.find_iter(&input) {
        let lines: Vec<String> = block
            .as_str()
            .split('\n')
            .map(|l| {
                if l.contains("<th>") {
                    l.replace("<th>", "<td>").replace("</th>", "</td>")
                } else {
                    l.to_string()
                }
            })
            .filter(|l| !TABLE_BODY_TAG_RE.is_match(l))
            .collect();
        if lines.len() > 2 {
            lines_out.extend(lines);
        }
    }
    format!("\n\n<table>\n{}\n</table>\n\n", lines_out.join("\n"))
}

fn md_table_mode(line: &str) -> bool {
    line.contains(':') || line.contains("---")
}

fn replace_table_with_placeholder(input: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut in_block = false;
    let mut temp = String::new();
    let mut last = String::new();
    for line in input.split('\n') {
        if line.contains("<table>") {
            in_block = true;
            temp.push_str(&last);
        } else if in_block {
            if !md_table_mode(&last) && !last.contains("</thead>") {
                temp.push('\n');
                temp.push_str(&last);
            }
            if last.contains("</table>") && !line.contains("<table>") {
                in_block = false;
                out.push(merge_tables(&temp));
                temp.clear();
            }
        } else {
            out.push(last.clone());
        }
        last = line.to_string();
    }
    if !last.is_empty() {
        if in_block || last.contains("</table>") {
            temp.push('\n');
            temp.push_str(&last);
            out.push(merge_tables(&temp));
        } else {
            out.push(last);
        }
    }
    out.join("\n")
}

/// `convert_markdown_to_html`: every pipe-table row becomes a one-row HTML table, consecutive ones
/// are merged, then `<table>` / `<td>` get the reference's default attributes.
pub(crate) fn convert_markdown_to_html(content: &str) -> String {
    let mut content = content.replace('\r', "");
    content.push('\n');
    let matches: Vec<String> =
        MD_TABLE_RE.find_iter(&content).map(|m| m.as_str().to_string()).collect();
    for m in matches {
        let html = markdown_to_html(&m);
        content = content.replacen(&m, &html, 1);
    }
    replace_table_with_placeholder(&content)
        .replace("<table>", "<table border=\"1\" >")
        .replace("<td>", "<td colspan=\"1\" rowspan=\"1\">")
}

/// `md_tex_filter`: splits one page of Markdown/LaTeX prediction into typed blocks.
pub(crate) fn md_tex_filter(content: &str) -> PredPage {
    let mut s = IMG_RE.replace_all(content, "").into_owned();
    for r in FENCE_RES.iter() {
        s = r.replace_all(&s, "").into_owned();
    }
    s = UNDERSCORES_RE.replace_all(&s, "____").into_owned();
    s = SPACES_RE.replace_all(&s, "    ").into_owned();
    s = s.replace("<html>", "").replace("</html>", "").replace("<body>", "").replace("</body>", "");
    let mut text = Text { chars: s.chars().collect() };
    let mut all: Vec<PredBlock> = Vec::new();

    // LaTeX tables: \begin{table} environments first, then nesting-aware tabulars.
    {
        let (snap, map) = text.snapshot();
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut work = text.chars.clone();
        for m in TABLE_ENV_RE.find_iter(&snap) {
            let (a, b) = (map[m.start()], map[m.end()]);
            spans.push((a, b));
            for c in &mut work[a..b] {
                *c = ' ';
            }
        }
        let work_s: String = work.iter().collect();
        let wmap = Text { chars: work.clone() }.snapshot().1;
        for (a, b) in nested_scan(&work_s, &TABULAR_BEGIN_RE, &TABULAR_END_RE, 14, 16) {
            spans.push((wmap[a], wmap[b]));
        }
        spans.sort_by_key(|p| p.0);
        for (a, b) in spans {
            // Table text comes from the env-blanked copy for tabulars, the original for envs;
            // both agree on the span itself.
            let table: String = if work[a..b].iter().all(|c| *c == ' ') {
                text.slice(a, b)
            } else {
                work[a..b].iter().collect()
            };
            let end = a + table.chars().count();
            all.push(PredBlock {
                category: PredCategory::LatexTable,
                fine: None,
                position: (a, end),
                content: table,
            });
            text.blank(a, end.min(text.chars.len()));
        }
    }

    // HTML tables.
    {
        let (snap, map) = text.snapshot();
        for (a, b) in nested_scan(&snap, &HTML_BEGIN_RE, &HTML_END_RE, 8, 16) {
            let (a, b) = (map[a], map[b]);
            let table = text.slice(a, b);
            all.push(PredBlock {
                category: PredCategory::HtmlTable,
                fine: None,
                position: (a, b),
                content: table,
            });
            text.blank(a, b);
        }
    }

    // Display and inline formulas (matched on the text as it was before this step).
    {
        let (snap, map) = text.snapshot();
        for m in DISPLAY_RE.find_iter(&snap) {
            let matched = m.as_str();
            if matched.is_empty() {
                continue;
            }
            let single = crate::suites::omnidoc::normalize::py_strip(matched)
                .split('\n')
                .collect::<Vec<_>>()
                .join(" ");
            let pos = (map[m.start()], map[m.end()]);
            match DOLLAR_RE.captures(&single) {
                None => {
                    text.blank(pos.0, pos.1);
                    all.push(PredBlock {
                        category: PredCategory::EquationIsolated,
                        fine: None,
                        position: pos,
                        content: single,
                    });
                }
                Some(c) if c.get(1).is_some_and(|g| !g.as_str().is_empty()) => {
                    let line = DOLLAR_RE
                        .replace_all(&single, |c: &regex::Captures| {
                            format!("\\[{}\\]", c.get(1).map_or("", |g| g.as_str()))
                        })
                        .into_owned();
                    text.blank(pos.0, pos.1);
                    all.push(PredBlock {
                        category: PredCategory::EquationIsolated,
                        fine: None,
                        position: pos,
                        content: line,
                    });
                }
                Some(_) => {
                    let line = DOLLAR_RE
                        .replace_all(&single, |c: &regex::Captures| {
                            format!(
                                "\\[{}{}\\]",
                                c.get(2).map_or("", |g| g.as_str()),
                                c.get(3).map_or("", |g| g.as_str())
                            )
                        })
                        .into_owned();
                    all.push(PredBlock {
                        category: PredCategory::EquationIsolated,
                        fine: Some("equation_inline"),
                        position: pos,
                        content: line,
                    });
                }
            }
        }
    }

    // Markdown pipe tables.
    {
        let snap: String = text.chars.iter().collect::<String>();
        let probe = format!("{snap}\n");
        if MD_TABLE_RE.find_iter(&probe).count() >= 2 {
            let converted = convert_markdown_to_html(&snap);
            text = Text { chars: converted.chars().collect() };
            let (snap, map) = text.snapshot();
            for m in HTML_TABLE_RE.find_iter(&snap) {
                let pos = (map[m.start()], map[m.end()]);
                text.blank(pos.0, pos.1);
                all.push(PredBlock {
                    category: PredCategory::HtmlTable,
                    fine: Some("md2html_table"),
                    position: pos,
                    content: crate::suites::omnidoc::normalize::py_strip(m.as_str()).to_string(),
                });
            }
        }
    }

    // Fenced code blocks.
    {
        let (snap, map) = text.snapshot();
        for c in CODE_RE.captures_iter(&snap) {
            let (Some(whole), Some(code)) = (c.get(0), c.get(2)) else { continue };
            let pos = (map[whole.start()], map[whole.end()]);
            text.blank(pos.0, pos.1);
            all.push(PredBlock {
                category: PredCategory::TextAll,
                fine: Some("code"),
                position: pos,
                content: crate::suites::omnidoc::normalize::py_strip(code.as_str()).to_string(),
            });
        }
    }

    // LaTeX styling, then paragraphs.
    let mut s: String = text.chars.iter().collect();
    for r in STYLE_RES.iter() {
        s = r.replace_all(&s, "$1").into_owned();
    }
    let mut parts: Vec<&str> = s.split("\n\n").collect();
    if parts.len() == 1 {
        parts = s.split('\n').collect();
    }
    let mut cursor = 0;
    for part in parts {
        let n = part.chars().count();
        let position = (cursor, cursor + n);
        cursor += n;
        let t = crate::suites::omnidoc::normalize::py_strip(part).trim_matches('\n');
        let t: Vec<&str> = t
            .split('\n')
            .map(crate::suites::omnidoc::normalize::py_strip)
            .filter(|l| !l.is_empty())
            .collect();
        let t = t.join("\n");
        if t.is_empty() {
            continue;
        }
        if t.starts_with("<table") && t.ends_with("</table>") {
            all.push(PredBlock {
                category: PredCategory::HtmlTable,
                fine: None,
                position,
                content: t,
            });
        } else if t.starts_with('$') && t.ends_with('$') {
            if !crate::suites::omnidoc::normalize::py_strip(&t.replace('$', "")).is_empty() {
                all.push(PredBlock {
                    category: PredCategory::EquationIsolated,
                    fine: None,
                    position,
                    content: crate::suites::omnidoc::normalize::py_strip(&t).to_string(),
                });
            }
        } else {
            all.push(PredBlock {
                category: PredCategory::TextAll,
                fine: Some("text_block"),
                position,
                content: t,
            });
        }
    }

    all.sort_by_key(|b| b.position.0);
    let mut page = PredPage::default();
    for b in all {
        match page.groups.iter_mut().find(|(c, _)| *c == b.category) {
            Some((_, v)) => v.push(b),
            None => page.groups.push((b.category, vec![b])),
        }
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(p: &PredPage) -> Vec<(&'static str, (usize, usize), String)> {
        let mut v: Vec<_> = p
            .groups
            .iter()
            .flat_map(|(_, b)| b.iter())
            .map(|b| (b.category_name(), b.position, b.content.clone()))
            .collect();
        v.sort_by_key(|x| x.1 .0);
        v
    }

    #[test]
    fn paragraphs_and_positions_without_separators() {
        let p = md_tex_filter("Hello\n\nWorld here\n\n\n\nEnd");
        assert_eq!(
            flat(&p),
            vec![
                ("text_block", (0, 5), "Hello".to_string()),
                ("text_block", (5, 15), "World here".to_string()),
                ("text_block", (15, 18), "End".to_string())
            ]
        );
    }

    #[test]
    fn display_math_is_blanked_and_dollars_become_brackets() {
        let p = md_tex_filter("Text $a_1$ more\n\n$$x^2$$\n\nafter");
        let f = flat(&p);
        assert!(f.contains(&("equation_inline", (5, 10), "\\[a_1\\]".to_string())));
        assert!(f.contains(&("equation_isolated", (17, 24), "\\[x^2\\]".to_string())));
        // The inline formula stays inside the paragraph.
        assert!(f.iter().any(|x| x.2 == "Text $a_1$ more"));
    }

    #[test]
    fn html_table_extracted_with_position() {
        let p = md_tex_filter("a\n\n<table><tr><td>1</td></tr></table>\n\nb");
        let t = p.get(PredCategory::HtmlTable);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].position, (3, 37));
    }

    #[test]
    fn pipe_table_becomes_html() {
        let p = md_tex_filter("intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nafter");
        let t = p.get(PredCategory::HtmlTable);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].fine, Some("md2html_table"));
        assert!(
            t[0].content.contains("<td colspan=\"1\" rowspan=\"1\">a</td>"),
            "{}",
            t[0].content
        );
        assert!(t[0].content.contains("<td colspan=\"1\" rowspan=\"1\">2</td>"));
        assert!(!t[0].content.contains("---"));
    }

    #[test]
    fn nested_html_tables_and_unclosed_outer() {
        let nested = "<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table>";
        let spans = nested_scan(nested, &HTML_BEGIN_RE, &HTML_END_RE, 8, 16);
        assert_eq!(spans, vec![(0, nested.len())]);
        // Unclosed outer table: the inner pair closes nothing at depth 0 and the restart at
        // `len(pattern)` = 16 finds no new start, so nothing is extracted (as in the reference).
        assert_eq!(
            nested_scan("<table>a<table>b</table>c", &HTML_BEGIN_RE, &HTML_END_RE, 8, 16),
            vec![]
        );
    }

    #[test]
    fn single_paragraph_splits_on_newlines() {
        let p = md_tex_filter("line one\nline two");
        assert_eq!(
            flat(&p),
            vec![
                ("text_block", (0, 8), "line one".to_string()),
                ("text_block", (8, 16), "line two".to_string())
            ]
        );
    }

    #[test]
    fn images_and_fences_removed() {
        let p = md_tex_filter("```markdown\n![x](y.png)Title\n```");
        assert_eq!(flat(&p), vec![("text_block", (0, 5), "Title".to_string())]);
    }
}
