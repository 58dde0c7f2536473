//! dots.ocr's layout reply (prompt `prompt_layout_all_en`) into blocks; and the helpers every
//! reply reader here shares to turn one box's content (Markdown, HTML table, LaTeX) into
//! blocks (`content_blocks`, `formula_block`, `table_block`).
//!
//! **The format.** A JSON list of layout cells in reading order, each
//! `{"bbox": [x1, y1, x2, y2], "category": …, "text": …}`: the text is Markdown for text
//! categories, HTML for `Table`, LaTeX for `Formula`, and absent for `Picture` (the prompt's
//! rules, `dots_ocr/utils/prompts.py` in rednote-hilab/dots.ocr).
//!
//! **Categories**, the prompt's fixed list of eleven (matched ignoring ASCII case):
//! `Title` → title; `Section-header` → heading, its level from the Markdown `#` marks the
//! model sometimes writes (`#`/`##` → 1, `###` → 2, …; none → 1); `Text` → paragraph;
//! `List-item` → list item; `Caption` → caption; `Footnote` → footnote; `Page-header` → page
//! header; `Page-footer` → page footer; `Table` → table; `Formula` → formula; `Picture` →
//! figure. Any other category is a [`FormatError`] naming it.
//!
//! **Boxes** are pixels of the image the model was shown, unscaled here
//! ([`super::BoxFrame::Pixels`]). Confirmed in `dots_ocr/utils/layout_utils.py`
//! (`post_process_cells` scales each box by original size ÷ the `smart_resize`d input size):
//! the frame is the image *after* dots.ocr's own `smart_resize` (sides rounded to multiples of
//! 28, pixel count kept within `min_pixels`..`max_pixels`), so the image sent should already
//! be of such a size for [`super::Seen`] to name the model's frame exactly. A `bbox` that is
//! not four finite numbers leaves the block without a box (the text is kept); boxes outside
//! the image pass through ([`super::read_page`] clips them).
//!
//! **Failures.** A reply cut at the token limit is truncated JSON: the list is scanned cell by
//! cell (braces matched outside strings) and every complete cell before the cut is kept. A
//! cell with LaTeX backslashes that JSON does not allow (`\l`) is read with them doubled; a
//! cell that is still not JSON is skipped (an error only when no cell at all could be read).
//! An empty reply or `[]` is an empty page. A reply with no JSON list in it is an error.
//! Text around the list (a code fence, a sentence) is ignored.
//!
//! **Content** (`content_blocks`): a paragraph or list item whose Markdown is a list becomes
//! one list item per entry (markers dropped, as `markdown::read_markdown` drops them);
//! other text is Markdown read inline: emphasis, links and inline math rendered as text, `#`
//! marks stripped, and a line-leading `1.` or `-` kept as text (a heading `1. Introduction`
//! keeps its number). Tables are read from HTML with spans ([`html::tables`]), else from a
//! Markdown pipe table, else keep their text without cells; formulas lose their `$$`/`\[`
//! delimiters and keep the LaTeX; code keeps its lines. Figures have no text (what a model
//! says about a picture is not page text). Blocks left without text are dropped, tables and
//! figures excepted.
//!
//! Left alone: keys other than `bbox`, `category` and `text`.

use serde_json::Value;

use super::super::{html, markdown, Format, FormatError};
use crate::doc::{BBox, Block, BlockKind};
use crate::normalize::{collapse_ws, latex_to_plain};

/// The format this file reads.
const FORMAT: Format = Format::DotsOcrJson;

/// dots.ocr's categories and their kinds.
const CATEGORIES: [(&str, BlockKind); 11] = [
    ("Caption", BlockKind::Caption),
    ("Footnote", BlockKind::Footnote),
    ("Formula", BlockKind::Formula),
    ("List-item", BlockKind::ListItem),
    ("Page-footer", BlockKind::PageFooter),
    ("Page-header", BlockKind::PageHeader),
    ("Picture", BlockKind::Figure),
    ("Section-header", BlockKind::Heading),
    ("Table", BlockKind::Table),
    ("Text", BlockKind::Paragraph),
    ("Title", BlockKind::Title),
];

fn kind(category: &str) -> Option<BlockKind> {
    CATEGORIES.iter().find(|(c, _)| c.eq_ignore_ascii_case(category.trim())).map(|(_, k)| *k)
}

/// Reads one page's reply: blocks in reading order on page `page`, boxes in image pixels.
pub fn read(text: &str, page: u32) -> Result<Vec<Block>, FormatError> {
    let mut out = Vec::new();
    for (i, cell) in cells(text)? {
        let at = |field: &str| format!("[{i}]{field}");
        let Value::Object(obj) = &cell else {
            return Err(FormatError::shape(FORMAT, "a layout cell object", at("")));
        };
        let category = obj
            .get("category")
            .and_then(Value::as_str)
            .ok_or_else(|| FormatError::shape(FORMAT, "a category string", at(".category")))?;
        let kind = kind(category).ok_or_else(|| {
            FormatError::new(
                FORMAT,
                format!(
                    "unknown category {category:?} (dots.ocr's are Caption, Footnote, Formula, \
                     List-item, Page-footer, Page-header, Picture, Section-header, Table, Text, \
                     Title)"
                ),
            )
            .at(at(".category"))
        })?;
        let bbox = obj.get("bbox").and_then(bbox_of).unwrap_or_default();
        let content = match obj.get("text") {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(FormatError::shape(FORMAT, "a text string", at(".text"))),
        };
        // dots.ocr's categories are DocLayNet's names (`classes/doclaynet.toml`).
        out.extend(content_blocks(kind, content, page, bbox).into_iter().map(|mut b| {
            b.label = Some(format!("doclaynet:{category}"));
            b
        }));
    }
    Ok(out)
}

/// A box from `[x1, y1, x2, y2]`: four finite numbers, else none.
fn bbox_of(v: &Value) -> Option<BBox> {
    let a = v.as_array().filter(|a| a.len() == 4)?;
    let n: Vec<f32> = a.iter().filter_map(Value::as_f64).map(|x| x as f32).collect();
    (n.len() == 4 && n.iter().all(|x| x.is_finite())).then(|| BBox::new(n[0], n[1], n[2], n[3]))
}

/// The complete cells of the reply's list, with their indexes, up to where the reply stops.
fn cells(text: &str) -> Result<Vec<(usize, Value)>, FormatError> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(Vec::new());
    }
    let Some(start) = list_start(t) else {
        return Err(FormatError::new(
            FORMAT,
            "expected a JSON list of layout cells ([{\"bbox\": [x1, y1, x2, y2], \"category\": \
             …, \"text\": …}, …])",
        ));
    };
    let b = t.as_bytes();
    let mut i = start + 1;
    let mut out = Vec::new();
    let mut first_error = None;
    let mut n = 0;
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
            i += 1;
        }
        if i >= b.len() || b[i] == b']' {
            break;
        }
        if b[i] != b'{' {
            return Err(FormatError::shape(FORMAT, "a layout cell object", format!("[{n}]")));
        }
        // An object the reply never closes was cut by the token limit: it and all after it go.
        let Some(end) = object_end(b, i) else { break };
        match parse_cell(&t[i..end]) {
            Ok(v) => out.push((n, v)),
            Err(e) => {
                first_error.get_or_insert((n, e));
            }
        }
        n += 1;
        i = end;
    }
    match first_error {
        Some((k, e)) if out.is_empty() => Err(FormatError::json(FORMAT, e).at(format!("[{k}]"))),
        _ => Ok(out),
    }
}

/// Where the list of cells opens: the first `[` followed by `{`, `]` or the end.
fn list_start(t: &str) -> Option<usize> {
    let b = t.as_bytes();
    (0..b.len()).filter(|&i| b[i] == b'[').find(|&i| {
        let next = b[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
        matches!(next, None | Some(b'{') | Some(b']'))
    })
}

/// The index just past the `}` that closes the object opening at `start`, braces inside
/// strings not counted; `None` when the text ends first.
fn object_end(b: &[u8], start: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (k, &c) in b.iter().enumerate().skip(start) {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// One cell's JSON, read again with stray backslashes doubled if it does not parse as given.
fn parse_cell(src: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(src)
        .or_else(|e| serde_json::from_str(&double_stray_backslashes(src)).map_err(|_| e))
}

/// Doubles every backslash that does not start a JSON escape (`\alpha` stays `\a…` → `\\a…`).
fn double_stray_backslashes(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + 8);
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some(&n) if matches!(n, '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u') => {
                out.push(c);
                out.push(n);
                chars.next();
            }
            _ => out.push_str("\\\\"),
        }
    }
    out
}

// ---- The content of one box, shared by the reply readers. ----

/// The blocks one box of `kind` holds, given its content as the models write it (Markdown;
/// HTML for tables; LaTeX for formulas), all with `bbox` on `page`. See the module comment.
pub(super) fn content_blocks(kind: BlockKind, content: &str, page: u32, bbox: BBox) -> Vec<Block> {
    let mut out = Vec::new();
    match kind {
        BlockKind::Table => out.push(table_block(content, page, bbox)),
        BlockKind::Figure => out.push(Block::new(BlockKind::Figure, page, bbox, "")),
        BlockKind::Formula => out.extend(formula_block(content, page, bbox)),
        BlockKind::Code => out.push(Block::new(BlockKind::Code, page, bbox, unfence(content))),
        BlockKind::Paragraph | BlockKind::ListItem => match list_items(content) {
            Some(items) => out
                .extend(items.into_iter().map(|t| Block::new(BlockKind::ListItem, page, bbox, t))),
            None => out.push(Block::new(kind, page, bbox, inline_text(content))),
        },
        _ => {
            let mut b = Block::new(kind, page, bbox, inline_text(content));
            if kind == BlockKind::Heading {
                b.level = Some(heading_level(content));
            }
            out.push(b);
        }
    }
    out.retain(|b| !b.text.is_empty() || matches!(b.kind, BlockKind::Table | BlockKind::Figure));
    out
}

/// A formula block from LaTeX, with or without `$$`, `\[`, `\(` or `$` delimiters; `None`
/// for an empty one.
pub(super) fn formula_block(src: &str, page: u32, bbox: BBox) -> Option<Block> {
    let latex = crate::normalize::latex::strip_math_delimiters(src);
    if latex.is_empty() {
        return None;
    }
    let plain = latex_to_plain(latex);
    let text = if plain.is_empty() { collapse_ws(latex) } else { plain };
    let mut b = Block::new(BlockKind::Formula, page, bbox, text);
    b.latex = Some(latex.to_string());
    Some(b)
}

/// A table block from an HTML table (spans kept), else a Markdown pipe table; without either
/// it keeps the content's text and has no cells.
pub(super) fn table_block(content: &str, page: u32, bbox: BBox) -> Block {
    let mut b = Block::new(BlockKind::Table, page, bbox, "");
    if let Some(t) = html::tables(content).into_iter().find(|t| !t.cells.is_empty()) {
        b.text = t.flat_text();
        b.table = Some(t);
    } else if let Some(t) = markdown::read_markdown(content, page)
        .blocks
        .into_iter()
        .find_map(|x| x.table.filter(|t| !t.cells.is_empty()))
    {
        b.text = t.flat_text();
        b.table = Some(t);
    } else {
        b.text = html::text(content);
    }
    b
}

/// The entries of content that is a Markdown list and nothing else; `None` otherwise.
fn list_items(md: &str) -> Option<Vec<String>> {
    let blocks = markdown::read_markdown(md, 0).blocks;
    let all = !blocks.is_empty() && blocks.iter().all(|b| b.kind == BlockKind::ListItem);
    all.then(|| blocks.into_iter().map(|b| b.text).collect())
}

/// Markdown read for its text only: `#` marks stripped, a line-leading list or quote marker
/// kept as text, inline markup and math rendered; the parts joined by newlines.
pub(super) fn inline_text(md: &str) -> String {
    let mut src = String::with_capacity(md.len() + 8);
    for line in md.lines() {
        let t = strip_heading_marks(line.trim_start());
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let after = |k: usize| t[k..].chars().next();
        let ends_marker = |k: usize| after(k).is_none_or(char::is_whitespace);
        let bullet = matches!(after(0), Some('-' | '+' | '*')) && ends_marker(1);
        if bullet || after(0) == Some('>') {
            src.push('\\');
            src.push_str(t);
        } else if (1..=9).contains(&digits)
            && matches!(after(digits), Some('.' | ')'))
            && ends_marker(digits + 1)
        {
            src.push_str(&t[..digits]);
            src.push('\\');
            src.push_str(&t[digits..]);
        } else {
            src.push_str(t);
        }
        src.push('\n');
    }
    let parts: Vec<String> = markdown::read_markdown(&src, 0)
        .blocks
        .into_iter()
        .map(|b| b.text)
        .filter(|t| !t.is_empty())
        .collect();
    parts.join("\n")
}

/// A line without its leading ATX heading marks (and closing ones).
fn strip_heading_marks(line: &str) -> &str {
    let n = line.bytes().take_while(|&c| c == b'#').count();
    let rest = &line[n..];
    if (1..=6).contains(&n) && rest.chars().next().is_none_or(char::is_whitespace) {
        let rest = rest.trim();
        let closing = rest.trim_end_matches('#');
        if closing.len() < rest.len()
            && (closing.is_empty() || closing.ends_with(char::is_whitespace))
        {
            return closing.trim_end();
        }
        rest
    } else {
        line
    }
}

/// A heading's level from the `#` marks of its first line, as [`markdown::read_markdown`]
/// shifts them (`#` and `##` → 1, `###` → 2, …); 1 without marks.
pub(super) fn heading_level(md: &str) -> u8 {
    let line = md.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let n = line.bytes().take_while(|&c| c == b'#').count();
    let marked = (1..=6).contains(&n) && line[n..].chars().next().is_none_or(char::is_whitespace);
    if marked {
        (n as u8 - 1).max(1)
    } else {
        1
    }
}

/// Code without a surrounding Markdown fence, its lines kept, trailing space trimmed.
fn unfence(code: &str) -> String {
    let t = code.trim_matches('\n').trim_end();
    let inner = t
        .trim_start()
        .strip_prefix("```")
        .and_then(|r| r.split_once('\n'))
        .map(|(_, body)| body.trim_end().strip_suffix("```").unwrap_or(body));
    inner.unwrap_or(t).trim_matches('\n').trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Table;

    fn kinds(bs: &[Block]) -> Vec<BlockKind> {
        bs.iter().map(|b| b.kind).collect()
    }

    const PAGE: &str = r####"[{"bbox": [98, 60, 1102, 118], "category": "Title", "text": "# Parsing Tables with Vision Models"},
{"bbox": [98, 150, 560, 180], "category": "Section-header", "text": "## 1. Introduction"},
{"bbox": [98, 190, 1102, 320], "category": "Text", "text": "Tables are **hard**: a cell may span $n$ rows.\nWe read them."},
{"bbox": [300, 340, 900, 390], "category": "Formula", "text": "$$\\frac{a}{b} = c$$"},
{"bbox": [98, 400, 1102, 600], "category": "Table", "text": "<table><thead><tr><th>Model</th><th>TEDS</th></tr></thead><tbody><tr><td>A</td><td>0.91</td></tr></tbody></table>"},
{"bbox": [98, 610, 700, 800], "category": "Picture"},
{"bbox": [560, 1540, 640, 1570], "category": "Page-footer", "text": "3"}]"####;

    #[test]
    fn a_page_reads_into_exact_blocks() {
        let got = read(PAGE, 4).unwrap();
        let b = |k, bbox: [f32; 4], t: &str| {
            Block::new(k, 4, BBox::new(bbox[0], bbox[1], bbox[2], bbox[3]), t)
        };
        let mut heading = b(BlockKind::Heading, [98.0, 150.0, 560.0, 180.0], "1. Introduction");
        heading.level = Some(1);
        let mut formula = b(BlockKind::Formula, [300.0, 340.0, 900.0, 390.0], "a/b = c");
        formula.latex = Some("\\frac{a}{b} = c".into());
        let mut table = b(BlockKind::Table, [98.0, 400.0, 1102.0, 600.0], "Model TEDS\nA 0.91");
        table.table = Some(Table::from_rows(&[&["Model", "TEDS"], &["A", "0.91"]], 1));
        let want = vec![
            b(BlockKind::Title, [98.0, 60.0, 1102.0, 118.0], "Parsing Tables with Vision Models"),
            heading,
            b(
                BlockKind::Paragraph,
                [98.0, 190.0, 1102.0, 320.0],
                "Tables are hard: a cell may span n rows. We read them.",
            ),
            formula,
            table,
            b(BlockKind::Figure, [98.0, 610.0, 700.0, 800.0], ""),
            b(BlockKind::PageFooter, [560.0, 1540.0, 640.0, 1570.0], "3"),
        ];
        // Each block keeps its box's category, a DocLayNet name.
        let labels: Vec<Option<&str>> = got.iter().map(|b| b.label.as_deref()).collect();
        assert_eq!(labels[0], Some("doclaynet:Title"));
        assert_eq!(labels[6], Some("doclaynet:Page-footer"));
        let got: Vec<Block> = got.into_iter().map(|b| Block { label: None, ..b }).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_reply_cut_at_the_token_limit_keeps_its_complete_cells() {
        let cut = &PAGE[..PAGE.find("Picture").unwrap()];
        let got = read(cut, 0).unwrap();
        use BlockKind::*;
        assert_eq!(kinds(&got), [Title, Heading, Paragraph, Formula, Table]);
        // Cut inside a string that holds braces and brackets.
        let cut = r#"[{"bbox": [1, 2, 3, 4], "category": "Text", "text": "a {b}"}, {"bbox": [5, 6, 7, 8], "category": "Text", "text": "c } ] d"#;
        let got = read(cut, 0).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].text, "a {b}");
        // Cut inside the first cell: nothing to keep, not an error.
        assert_eq!(read("[{\"bbox\": [1, 2", 0).unwrap(), vec![]);
    }

    #[test]
    fn an_empty_page_is_empty() {
        assert_eq!(read("", 0).unwrap(), vec![]);
        assert_eq!(read("[]", 0).unwrap(), vec![]);
        assert_eq!(read("```json\n[ ]\n```", 0).unwrap(), vec![]);
    }

    #[test]
    fn boxes_outside_the_image_pass_and_bad_boxes_are_dropped() {
        let r = r#"[{"bbox": [-20, 1500, 1300, 1700], "category": "Page-footer", "text": "Draft"},
            {"bbox": [1, "x", 3, 4], "category": "Text", "text": "kept without a box"},
            {"bbox": [1, 2, 3], "category": "Caption", "text": "Figure 1: three numbers"}]"#;
        let got = read(r, 0).unwrap();
        assert_eq!(got[0].bbox, BBox::new(-20.0, 1500.0, 1300.0, 1700.0));
        assert_eq!((got[1].bbox, got[1].text.as_str()), (BBox::default(), "kept without a box"));
        assert_eq!((got[2].kind, got[2].bbox), (BlockKind::Caption, BBox::default()));
    }

    #[test]
    fn garbage_and_unknown_categories_are_errors() {
        let e = read("I cannot read this page.", 0).unwrap_err();
        assert_eq!(e.format, Format::DotsOcrJson);
        assert!(e.to_string().contains("JSON list of layout cells"), "{e}");
        let e =
            read(r#"[{"bbox": [1, 2, 3, 4], "category": "Sidebar", "text": "x"}]"#, 0).unwrap_err();
        assert!(e.to_string().contains("\"Sidebar\""), "{e}");
        assert_eq!(e.at.as_deref(), Some("[0].category"));
        let e = read(r#"[{"bbox": [1, 2, 3, 4], "text": "x"}]"#, 0).unwrap_err();
        assert_eq!(e.at.as_deref(), Some("[0].category"));
        assert!(read("[1, 2]", 0).is_err());
        // A single cell that is not JSON at all.
        assert!(read(r#"[{"bbox": [1, 2, 3, 4], category: Text}]"#, 0).is_err());
    }

    #[test]
    fn stray_latex_backslashes_are_read() {
        let r = r#"[{"bbox": [1, 2, 3, 4], "category": "Formula", "text": "\\[ \lambda + \\beta \\]"}]"#;
        let got = read(r, 0).unwrap();
        assert_eq!(got[0].latex.as_deref(), Some("\\lambda + \\beta"));
        assert_eq!(got[0].text, "λ + β");
    }

    #[test]
    fn lists_split_and_numbers_stay_in_headings() {
        let r = r####"[{"bbox": [1, 2, 3, 4], "category": "Text", "text": "- first\n- second"},
            {"bbox": [1, 2, 3, 5], "category": "List-item", "text": "1. ИВАНОВ\n IVANOV"},
            {"bbox": [1, 2, 3, 6], "category": "Section-header", "text": "2.1 Data"},
            {"bbox": [1, 2, 3, 7], "category": "Section-header", "text": "### 2.2. Splits"},
            {"bbox": [1, 2, 3, 8], "category": "Page-footer", "text": "- 3 -"},
            {"bbox": [1, 2, 3, 9], "category": "Text", "text": "2023."}]"####;
        let got = read(r, 0).unwrap();
        let summary: Vec<(BlockKind, &str, Option<u8>)> =
            got.iter().map(|b| (b.kind, b.text.as_str(), b.level)).collect();
        use BlockKind::*;
        assert_eq!(
            summary,
            [
                (ListItem, "first", None),
                (ListItem, "second", None),
                (ListItem, "ИВАНОВ IVANOV", None),
                (Heading, "2.1 Data", Some(1)),
                (Heading, "2.2. Splits", Some(2)),
                (PageFooter, "- 3 -", None),
                (Paragraph, "2023.", None),
            ]
        );
    }

    #[test]
    fn content_helpers() {
        assert_eq!(unfence("```python\nx = 1\n  y = 2\n```"), "x = 1\n  y = 2");
        assert_eq!(heading_level("# A"), 1);
        assert_eq!(heading_level("#### A"), 3);
        assert_eq!(inline_text("## Results ##"), "Results");
        assert_eq!(inline_text("<center>Figure 2: A plot. </center>"), "Figure 2: A plot.");
        let t = table_block("| a | b |\n|---|---|\n| 1 | 2 |", 0, BBox::default());
        assert_eq!(t.table.unwrap().cells.len(), 4);
        assert!(formula_block(" $$ $$ ", 0, BBox::default()).is_none());
    }
}
