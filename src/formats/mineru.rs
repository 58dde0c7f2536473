//! MinerU's structured outputs into a [`Doc`]: `<stem>_content_list.json` (a flat list of
//! content items in reading order) or `<stem>_middle.json` (`{pdf_info: [page], _backend,
//! _version_name}`, every page's blocks with their lines and spans). Which one a file is, is
//! told by its shape: a list is a content list, an object with `pdf_info` a middle file. The
//! `content_list_v2.json` of MinerU 2.5+ (a list of per-page lists) is refused with a hint.
//!
//! - **Kinds** (both files): `text` → paragraph, or a heading where `text_level` (content
//!   list) or the `title` block's `level` (middle file, 1 when absent) is 1 or more: the first
//!   heading of the document is the title when it is of level 1, other headings get level 1
//!   for `text_level` 1 and `text_level` − 1 above that (how the Markdown reader reads the `#`
//!   marks MinerU writes for the same headings, so both imports of one run agree); `equation`
//!   and `interline_equation` → formula; `table` (and `table_body`) → table, `table_caption`
//!   → caption, `table_footnote` → footnote; `image`, `chart` (and their `_body`) → figure,
//!   their captions → caption, footnotes → footnote; `code` (`code_body`, also `algorithm`)
//!   → code, `code_caption` → caption; `list` → one list item per entry (`sub_type` or block
//!   type `ref_text` → reference); `ref_text` → reference; `index`, `abstract`, `phonetic`,
//!   `vertical_text` → paragraph; `header`, `aside_text` (a margin note) and `header_image` →
//!   page header; `footer`, `page_number` and `footer_image` → page footer; `page_footnote`
//!   and `footnote` → footnote; `caption` → caption; `seal` → figure; `doc_title` →
//!   heading as `title` is, `paragraph_title` likewise. The pipeline backend's `discarded`
//!   blocks (headers, footers, page numbers and margin notes together) → page header when
//!   their middle is in the upper half of the page, page footer otherwise. `formula_number`
//!   (an equation's `(1)`) is left out, as MinerU's own content list leaves it out. Any other
//!   type is an error naming it, never a paragraph by default.
//! - **Order and pages**: the file's order (MinerU's reading order; a middle page's
//!   `para_blocks`, then its `discarded_blocks`, as MinerU writes its content list). `page_idx`
//!   is zero-based; a content item without it is on the page the caller names.
//! - **Boxes**: a middle file's `bbox` is in PDF points, top-left origin, on a page of
//!   `page_size` points (which also gives [`Doc::pages`]); given the PDF's page sizes, boxes
//!   are scaled by page size ÷ `page_size` (the VLM backend rounds `page_size` to whole
//!   points). A content list's `bbox` (MinerU 2.2 and later; none before) is normalised to
//!   0–1000 on each axis of the page (`int(x · 1000 / page_width)`), whatever the backend: it
//!   is scaled to points with the PDF's page sizes and is an **empty box without them**
//!   (a content list records no page size). A content item's captions and footnotes have
//!   empty boxes (the item's box covers them all); a middle file gives each its own.
//! - **Text**: a middle block's text is its spans joined (a line-end hyphen before a lowercase
//!   word is dropped, no space between CJK characters), `inline_equation` spans in plain
//!   Unicode ([`latex_to_plain`]). A content list's text is MinerU's Markdown-escaped text:
//!   `\*`-style escapes are undone and `$…$` math is turned into plain Unicode.
//! - **Tables**: cells from the table's HTML (`table_body`, a `table` span's `html`; see
//!   [`super::html`]), the block's text their cells row by row; a table without HTML (table
//!   recognition off) is kept, with no cells. **Formulas**: the LaTeX (`$$` delimiters
//!   removed) in [`Block::latex`], its plain form as text; a formula without LaTeX (formula
//!   recognition off) is left out.
//! - Left alone: images and their paths, an image's or chart's recognised `content`, a code
//!   block's `guess_lang`, `preproc_blocks`, `layout_bboxes`, `_layout_tree`, `images`,
//!   `tables`, `interline_equations` (the same blocks again), span scores, `angle`, `index`,
//!   `_backend`, `_version_name`, a table's LaTeX and `drop_reason`.

use serde_json::{Map, Value};

use super::{html, Format, FormatError};
use crate::doc::{BBox, Block, BlockKind, Doc, Page};
use crate::normalize::{collapse_ws, is_cjk, latex_to_plain};

/// The format this file reads.
const FORMAT: Format = Format::MinerU;

/// Reads a content list or a middle file (told apart by shape). `page` (zero-based) is where
/// content items without `page_idx` go; `sizes` are the PDF's page sizes in points where the
/// caller knows them, else empty.
pub fn read(bytes: &[u8], page: u32, sizes: &[Page]) -> Result<Doc, FormatError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| FormatError::json(FORMAT, e))?;
    match &v {
        Value::Object(o) if o.contains_key("pdf_info") => read_middle(o, sizes),
        Value::Array(items) => {
            if items.first().is_some_and(Value::is_array) {
                return Err(FormatError::new(
                    FORMAT,
                    "a list of per-page lists is MinerU's content_list_v2.json, which is not \
                     read: import <name>_content_list.json or <name>_middle.json",
                ));
            }
            read_content_list(items, page, sizes)
        }
        _ => Err(FormatError::shape(
            FORMAT,
            "a content list (a JSON list) or a middle file (an object with pdf_info)",
            "$",
        )),
    }
}

/// What a block or content type becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Becomes {
    /// A block of this kind.
    Kind(BlockKind),
    /// A heading (its level from the item).
    Heading,
    /// A group whose parts (`blocks`) are blocks of their own.
    Group,
    /// A list: one item per entry.
    List,
    /// The pipeline's `discarded`: header or footer by where it is.
    Discarded,
    /// Nothing (`formula_number`).
    Skip,
}

/// The kind of every block and content type MinerU writes; `None` for a type it does not.
fn becomes(t: &str) -> Option<Becomes> {
    use BlockKind::*;
    Some(match t {
        "text" | "index" | "abstract" | "phonetic" | "vertical_text" => Becomes::Kind(Paragraph),
        "title" | "doc_title" | "paragraph_title" => Becomes::Heading,
        "equation" | "interline_equation" => Becomes::Kind(Formula),
        "image" | "table" | "chart" | "code" => Becomes::Group,
        "image_body" | "chart_body" | "seal" => Becomes::Kind(Figure),
        "table_body" => Becomes::Kind(Table),
        "code_body" | "algorithm" => Becomes::Kind(Code),
        "image_caption" | "table_caption" | "chart_caption" | "code_caption" | "caption" => {
            Becomes::Kind(Caption)
        }
        "image_footnote" | "table_footnote" | "chart_footnote" | "code_footnote" | "footnote"
        | "page_footnote" => Becomes::Kind(Footnote),
        "list" => Becomes::List,
        "ref_text" => Becomes::Kind(Reference),
        "header" | "aside_text" | "header_image" => Becomes::Kind(PageHeader),
        "footer" | "page_number" | "footer_image" => Becomes::Kind(PageFooter),
        "discarded" => Becomes::Discarded,
        "formula_number" => Becomes::Skip,
        _ => return None,
    })
}

fn unknown_type(t: &str, at: String) -> FormatError {
    FormatError::new(FORMAT, format!("unknown block type {t:?} (not one MinerU writes)")).at(at)
}

/// The heading a Markdown heading of `marks` `#` becomes, as the Markdown reader reads it: the
/// first heading of a document is the title when it has one mark; other one-mark headings are
/// level 1 and `n` marks are level `n` − 1. `seen` says whether a heading came before.
pub(super) fn md_heading(marks: u64, seen: &mut bool) -> (BlockKind, Option<u8>) {
    let first = !*seen;
    *seen = true;
    match marks {
        0 | 1 if first => (BlockKind::Title, None),
        0 | 1 => (BlockKind::Heading, Some(1)),
        n => (BlockKind::Heading, Some((n - 1).min(9) as u8)),
    }
}

/// Characters MinerU escapes with a backslash in text it writes as Markdown.
const ESCAPED: [char; 8] = ['*', '_', '`', '~', '$', '#', '+', '-'];

/// Text written as Markdown (MinerU's content list, PaddleX's block content) in plain form:
/// `\*`-style escapes undone, `$…$` and `$$…$$` math in plain Unicode, white space collapsed.
pub(super) fn markdown_text(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1).is_some_and(|n| ESCAPED.contains(n)) {
            out.push(chars[i + 1]);
            i += 2;
            continue;
        }
        if c == '$' {
            let width = if chars.get(i + 1) == Some(&'$') { 2 } else { 1 };
            if let Some(end) = math_end(&chars, i + width, width) {
                let inner: String = chars[i + width..end].iter().collect();
                out.push(' ');
                out.push_str(&latex_to_plain(&inner));
                out.push(' ');
                i = end + width;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    collapse_ws(&out)
}

/// Where math opened with `width` dollars before `from` closes, if it does.
fn math_end(chars: &[char], from: usize, width: usize) -> Option<usize> {
    let mut j = from;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            '$' if width == 1 || chars.get(j + 1) == Some(&'$') => {
                return (j > from).then_some(j);
            }
            _ => j += 1,
        }
    }
    None
}

/// A formula block from its LaTeX; `None` where there is none.
pub(super) fn formula(latex: &str, page: u32, bbox: BBox) -> Option<Block> {
    let latex = crate::normalize::latex::strip_math_delimiters(latex);
    if latex.is_empty() {
        return None;
    }
    let mut b = Block::new(BlockKind::Formula, page, bbox, latex_to_plain(latex));
    b.latex = Some(latex.to_string());
    Some(b)
}

/// A table block from its HTML (no cells where it has no table).
pub(super) fn table(html_src: &str, page: u32, bbox: BBox) -> Block {
    let mut b = Block::new(BlockKind::Table, page, bbox, "");
    if let Some(t) = html::tables(html_src).into_iter().find(|t| !t.cells.is_empty()) {
        b.text = t.flat_text();
        b.table = Some(t);
    } else {
        b.text = html::text(html_src);
    }
    b
}

/// Four numbers `[x0, y0, x1, y1]` at `at`.
pub(super) fn four(format: Format, v: &Value, at: &str) -> Result<[f64; 4], FormatError> {
    let bad = || FormatError::shape(format, "a box [x0, y0, x1, y1]", at.to_string());
    let a = v.as_array().filter(|a| a.len() == 4).ok_or_else(bad)?;
    let mut out = [0.0; 4];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x.as_f64().filter(|x| x.is_finite()).ok_or_else(bad)?;
    }
    Ok(out)
}

/// A box from edges scaled by `(sx, sy)`.
pub(super) fn scaled(b: [f64; 4], sx: f64, sy: f64) -> BBox {
    BBox::new((b[0] * sx) as f32, (b[1] * sy) as f32, (b[2] * sx) as f32, (b[3] * sy) as f32)
}

/// A page size that can scale (both sides positive).
pub(super) fn usable(s: Option<&Page>) -> Option<&Page> {
    s.filter(|s| s.width > 0.0 && s.height > 0.0)
}

/// An optional string field (absent and `null` are `""`).
fn opt_str<'a>(o: &'a Map<String, Value>, k: &str, at: &str) -> Result<&'a str, FormatError> {
    match o.get(k) {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(FormatError::shape(FORMAT, "a string", format!("{at}.{k}"))),
    }
}

/// An optional list of strings (captions, footnotes, list items).
fn strings<'a>(o: &'a Map<String, Value>, k: &str, at: &str) -> Result<Vec<&'a str>, FormatError> {
    let bad = || FormatError::shape(FORMAT, "a list of strings", format!("{at}.{k}"));
    match o.get(k) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a.iter().map(|s| s.as_str().ok_or_else(bad)).collect(),
        Some(_) => Err(bad()),
    }
}

/// An optional whole number.
fn opt_u64(o: &Map<String, Value>, k: &str, at: &str) -> Result<Option<u64>, FormatError> {
    match o.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| FormatError::shape(FORMAT, "a whole number", format!("{at}.{k}"))),
    }
}

fn push_text(blocks: &mut Vec<Block>, kind: BlockKind, page: u32, bbox: BBox, text: String) {
    if !text.is_empty() {
        blocks.push(Block::new(kind, page, bbox, text));
    }
}

fn read_content_list(items: &[Value], page: u32, sizes: &[Page]) -> Result<Doc, FormatError> {
    let mut blocks = Vec::new();
    let mut seen_heading = false;
    for (i, item) in items.iter().enumerate() {
        let at = format!("$[{i}]");
        let o = item.as_object().ok_or_else(|| FormatError::shape(FORMAT, "an object", &at))?;
        let t = o
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| FormatError::shape(FORMAT, "a string", format!("{at}.type")))?;
        let p = match opt_u64(o, "page_idx", &at)? {
            Some(n) => u32::try_from(n).map_err(|_| {
                FormatError::shape(FORMAT, "a page index", format!("{at}.page_idx"))
            })?,
            None => page,
        };
        let bbox = match o.get("bbox") {
            None | Some(Value::Null) => BBox::default(),
            Some(v) => {
                let b = four(FORMAT, v, &format!("{at}.bbox"))?;
                match usable(sizes.get(p as usize)) {
                    Some(s) => scaled(b, f64::from(s.width) / 1000.0, f64::from(s.height) / 1000.0),
                    None => BBox::default(),
                }
            }
        };
        let text = || opt_str(o, "text", &at).map(markdown_text);
        let none = BBox::default();
        match becomes(t) {
            None | Some(Becomes::Discarded) => return Err(unknown_type(t, format!("{at}.type"))),
            Some(Becomes::Skip) => {}
            Some(Becomes::Heading) => {
                push_heading(&mut blocks, &mut seen_heading, Some(1), p, bbox, text()?)
            }
            Some(Becomes::Kind(BlockKind::Paragraph)) => {
                let level = opt_u64(o, "text_level", &at)?.filter(|&l| l > 0);
                let text = text()?;
                match level {
                    Some(l) => push_heading(&mut blocks, &mut seen_heading, Some(l), p, bbox, text),
                    None => push_text(&mut blocks, BlockKind::Paragraph, p, bbox, text),
                }
            }
            Some(Becomes::Kind(BlockKind::Formula)) => {
                blocks.extend(formula(opt_str(o, "text", &at)?, p, bbox));
            }
            Some(Becomes::Kind(kind)) => push_text(&mut blocks, kind, p, bbox, text()?),
            Some(Becomes::List) => {
                let kind = match opt_str(o, "sub_type", &at)? {
                    "ref_text" => BlockKind::Reference,
                    _ => BlockKind::ListItem,
                };
                for item in strings(o, "list_items", &at)? {
                    push_text(&mut blocks, kind, p, bbox, markdown_text(item));
                }
            }
            Some(Becomes::Group) => {
                let caps = |k: &[&str]| -> Result<Vec<String>, FormatError> {
                    let mut out = Vec::new();
                    for k in k {
                        out.extend(strings(o, k, &at)?.into_iter().map(markdown_text));
                    }
                    Ok(out)
                };
                let (caption, footnote) = match t {
                    "image" => (
                        caps(&["image_caption", "img_caption"])?,
                        caps(&["image_footnote", "img_footnote"])?,
                    ),
                    "chart" => (caps(&["chart_caption"])?, caps(&["chart_footnote"])?),
                    "table" => (caps(&["table_caption"])?, caps(&["table_footnote"])?),
                    _ => (caps(&["code_caption"])?, caps(&["code_footnote"])?),
                };
                let body = match t {
                    "table" => Some(table(opt_str(o, "table_body", &at)?, p, bbox)),
                    "code" => {
                        let code = strip_fence(opt_str(o, "code_body", &at)?);
                        (!code.is_empty()).then(|| Block::new(BlockKind::Code, p, bbox, code))
                    }
                    _ => Some(Block::new(BlockKind::Figure, p, bbox, "")),
                };
                // Tables and code under their captions, figures above theirs, as MinerU's
                // Markdown places them.
                let caption_first = matches!(t, "table" | "code");
                let captions =
                    caption.into_iter().map(|c| Block::new(BlockKind::Caption, p, none, c));
                if caption_first {
                    blocks.extend(captions.filter(|b| !b.text.is_empty()));
                    blocks.extend(body);
                } else {
                    blocks.extend(body);
                    blocks.extend(captions.filter(|b| !b.text.is_empty()));
                }
                for f in footnote {
                    push_text(&mut blocks, BlockKind::Footnote, p, none, f);
                }
            }
        }
    }
    let pages = if sizes.is_empty() { Vec::new() } else { sizes.to_vec() };
    Ok(Doc { pages, blocks, markdown: None, meta: None })
}

fn push_heading(
    blocks: &mut Vec<Block>,
    seen: &mut bool,
    level: Option<u64>,
    page: u32,
    bbox: BBox,
    text: String,
) {
    if text.is_empty() {
        return;
    }
    let (kind, level) = md_heading(level.unwrap_or(1), seen);
    let mut b = Block::new(kind, page, bbox, text);
    b.level = level;
    blocks.push(b);
}

/// Code without the Markdown fence MinerU's VLM backend wraps it in.
fn strip_fence(code: &str) -> String {
    let t = code.trim_matches('\n');
    if let Some(rest) = t.strip_prefix("```") {
        let body = rest.split_once('\n').map_or("", |(_, b)| b);
        return body.strip_suffix("```").unwrap_or(body).trim_end().to_string();
    }
    t.trim_end().to_string()
}

fn read_middle(o: &Map<String, Value>, sizes: &[Page]) -> Result<Doc, FormatError> {
    let Some(Value::Array(pdf_info)) = o.get("pdf_info") else {
        return Err(FormatError::shape(FORMAT, "a list of pages", "$.pdf_info"));
    };
    let mut r = Middle { blocks: Vec::new(), seen_heading: false };
    let mut pages: Vec<Page> = Vec::new();
    for (pi, pg) in pdf_info.iter().enumerate() {
        let at = format!("$.pdf_info[{pi}]");
        let pg = pg.as_object().ok_or_else(|| FormatError::shape(FORMAT, "an object", &at))?;
        let p = match opt_u64(pg, "page_idx", &at)? {
            Some(n) => u32::try_from(n).map_err(|_| {
                FormatError::shape(FORMAT, "a page index", format!("{at}.page_idx"))
            })?,
            None => pi as u32,
        };
        let bad_size =
            || FormatError::shape(FORMAT, "a page size [width, height]", format!("{at}.page_size"));
        let size = pg
            .get("page_size")
            .and_then(Value::as_array)
            .filter(|a| a.len() == 2)
            .and_then(|a| Some((a[0].as_f64()?, a[1].as_f64()?)))
            .filter(|(w, h)| *w > 0.0 && *h > 0.0)
            .ok_or_else(bad_size)?;
        if pages.len() <= p as usize {
            pages.resize(p as usize + 1, Page::default());
        }
        pages[p as usize] = Page { width: size.0 as f32, height: size.1 as f32 };
        let (sx, sy) = match usable(sizes.get(p as usize)) {
            Some(s) => (f64::from(s.width) / size.0, f64::from(s.height) / size.1),
            None => (1.0, 1.0),
        };
        let ctx = PageCtx { page: p, sx, sy, height: size.1 };
        for key in ["para_blocks", "discarded_blocks"] {
            match pg.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Array(bs)) => {
                    for (bi, b) in bs.iter().enumerate() {
                        r.block(b, &ctx, &format!("{at}.{key}[{bi}]"))?;
                    }
                }
                Some(_) => {
                    return Err(FormatError::shape(
                        FORMAT,
                        "a list of blocks",
                        format!("{at}.{key}"),
                    ))
                }
            }
        }
    }
    let pages = if sizes.is_empty() { pages } else { sizes.to_vec() };
    Ok(Doc { pages, blocks: r.blocks, markdown: None, meta: None })
}

/// One middle page: its index, the scale to the caller's page size, its height in points.
struct PageCtx {
    page: u32,
    sx: f64,
    sy: f64,
    height: f64,
}

/// The blocks of a middle file being read.
struct Middle {
    blocks: Vec<Block>,
    seen_heading: bool,
}

impl Middle {
    fn block(&mut self, b: &Value, ctx: &PageCtx, at: &str) -> Result<(), FormatError> {
        let o = b.as_object().ok_or_else(|| FormatError::shape(FORMAT, "an object", at))?;
        let t = o
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| FormatError::shape(FORMAT, "a string", format!("{at}.type")))?;
        let raw = match o.get("bbox") {
            None | Some(Value::Null) => None,
            Some(v) => Some(four(FORMAT, v, &format!("{at}.bbox"))?),
        };
        let bbox = raw.map_or(BBox::default(), |r| scaled(r, ctx.sx, ctx.sy));
        let p = ctx.page;
        match becomes(t).ok_or_else(|| unknown_type(t, format!("{at}.type")))? {
            Becomes::Skip => {}
            Becomes::Heading => {
                let level = match o.get("level") {
                    None | Some(Value::Null) => 1,
                    Some(v) => v.as_f64().map_or(1, |l| l.max(0.0) as u64),
                };
                let text = line_text(o, at)?;
                if level == 0 {
                    push_text(&mut self.blocks, BlockKind::Paragraph, p, bbox, text);
                } else {
                    push_heading(
                        &mut self.blocks,
                        &mut self.seen_heading,
                        Some(level),
                        p,
                        bbox,
                        text,
                    );
                }
            }
            Becomes::Group => match o.get("blocks") {
                Some(Value::Array(parts)) if !parts.is_empty() => {
                    for (k, part) in parts.iter().enumerate() {
                        self.block(part, ctx, &format!("{at}.blocks[{k}]"))?;
                    }
                }
                _ => {
                    let body = match t {
                        "table" => "table_body",
                        "code" => "code_body",
                        _ => "image_body",
                    };
                    self.body(becomes(body), o, p, bbox, at)?;
                }
            },
            Becomes::List => match o.get("blocks") {
                Some(Value::Array(items)) if !items.is_empty() => {
                    let kind = match o.get("sub_type").and_then(Value::as_str) {
                        Some("ref_text") => BlockKind::Reference,
                        _ => BlockKind::ListItem,
                    };
                    for (k, item) in items.iter().enumerate() {
                        let at = format!("{at}.blocks[{k}]");
                        let io = item
                            .as_object()
                            .ok_or_else(|| FormatError::shape(FORMAT, "an object", &at))?;
                        let ib = match io.get("bbox") {
                            None | Some(Value::Null) => bbox,
                            Some(v) => {
                                scaled(four(FORMAT, v, &format!("{at}.bbox"))?, ctx.sx, ctx.sy)
                            }
                        };
                        let kind = match io.get("type").and_then(Value::as_str) {
                            Some("ref_text") => BlockKind::Reference,
                            _ => kind,
                        };
                        push_text(&mut self.blocks, kind, p, ib, line_text(io, &at)?);
                    }
                }
                _ => {
                    for item in list_items(o, at)? {
                        push_text(&mut self.blocks, BlockKind::ListItem, p, bbox, item);
                    }
                }
            },
            Becomes::Discarded => {
                let kind = match raw {
                    Some(r) if (r[1] + r[3]) / 2.0 >= ctx.height / 2.0 => BlockKind::PageFooter,
                    _ => BlockKind::PageHeader,
                };
                push_text(&mut self.blocks, kind, p, bbox, line_text(o, at)?);
            }
            k @ Becomes::Kind(_) => self.body(Some(k), o, p, bbox, at)?,
        }
        Ok(())
    }

    /// A block of a plain kind: its text, table, formula or code from its lines.
    fn body(
        &mut self,
        k: Option<Becomes>,
        o: &Map<String, Value>,
        p: u32,
        bbox: BBox,
        at: &str,
    ) -> Result<(), FormatError> {
        let Some(Becomes::Kind(kind)) = k else { return Ok(()) };
        match kind {
            BlockKind::Table => {
                let html = span_field(o, "table", "html", at)?.unwrap_or_default();
                self.blocks.push(table(&html, p, bbox));
            }
            BlockKind::Formula => {
                let latex = span_field(o, "interline_equation", "content", at)?.unwrap_or_default();
                self.blocks.extend(formula(&latex, p, bbox));
            }
            BlockKind::Figure => self.blocks.push(Block::new(kind, p, bbox, "")),
            BlockKind::Code => {
                let code = code_text(o, at)?;
                if !code.is_empty() {
                    self.blocks.push(Block::new(kind, p, bbox, code));
                }
            }
            _ => push_text(&mut self.blocks, kind, p, bbox, line_text(o, at)?),
        }
        Ok(())
    }
}

/// The `lines` of a block (none where absent).
fn lines<'a>(o: &'a Map<String, Value>, at: &str) -> Result<&'a [Value], FormatError> {
    match o.get("lines") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(ls)) => Ok(ls),
        Some(_) => Err(FormatError::shape(FORMAT, "a list of lines", format!("{at}.lines"))),
    }
}

/// The `spans` of a line.
fn spans<'a>(line: &'a Value, at: &str) -> Result<&'a [Value], FormatError> {
    match line.get("spans") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(s)) => Ok(s),
        Some(_) => Err(FormatError::shape(FORMAT, "a list of spans", format!("{at}.spans"))),
    }
}

/// A span's type and content.
fn span<'a>(s: &'a Value, at: &str) -> Result<(&'a str, &'a str), FormatError> {
    let t = s
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| FormatError::shape(FORMAT, "a string", format!("{at}.type")))?;
    let content = match s.get("content") {
        None | Some(Value::Null) => "",
        Some(Value::String(c)) => c,
        Some(_) => return Err(FormatError::shape(FORMAT, "a string", format!("{at}.content"))),
    };
    Ok((t, content))
}

/// What a span of type `t` adds to its block's text; an error for a type MinerU does not write.
fn span_text(t: &str, content: &str, at: &str) -> Result<String, FormatError> {
    Ok(match t {
        "text" | "hyperlink" | "code" => content.to_string(),
        "inline_equation" | "interline_equation" | "equation" => latex_to_plain(content),
        "image" | "table" | "chart" => String::new(),
        other => {
            return Err(FormatError::new(
                FORMAT,
                format!("unknown span type {other:?} (not one MinerU writes)"),
            )
            .at(format!("{at}.type")))
        }
    })
}

/// The text of one line's spans.
fn one_line(line: &Value, at: &str) -> Result<String, FormatError> {
    let mut out = String::new();
    for (k, s) in spans(line, at)?.iter().enumerate() {
        let at = format!("{at}.spans[{k}]");
        let (t, content) = span(s, &at)?;
        join(&mut out, &span_text(t, content, &at)?);
    }
    Ok(out)
}

/// Appends `next` to `out` with one space, none between CJK characters, and a line-end
/// hyphen before a lowercase word dropped.
fn join(out: &mut String, next: &str) {
    let next = next.trim();
    if next.is_empty() {
        return;
    }
    let first = next.chars().next().unwrap_or(' ');
    match out.chars().last() {
        None => {}
        Some('-') if first.is_lowercase() && out.len() > 1 => {
            out.pop();
        }
        Some(last) if is_cjk(last) && is_cjk(first) => {}
        Some(_) => out.push(' '),
    }
    out.push_str(next);
}

/// A block's text: its lines' spans joined.
fn line_text(o: &Map<String, Value>, at: &str) -> Result<String, FormatError> {
    let mut out = String::new();
    for (li, line) in lines(o, at)?.iter().enumerate() {
        join(&mut out, &one_line(line, &format!("{at}.lines[{li}]"))?);
    }
    Ok(collapse_ws(&out))
}

/// Code: its lines kept as lines.
fn code_text(o: &Map<String, Value>, at: &str) -> Result<String, FormatError> {
    let mut out = Vec::new();
    for (li, line) in lines(o, at)?.iter().enumerate() {
        let at = format!("{at}.lines[{li}]");
        let mut l = String::new();
        for (k, s) in spans(line, &at)?.iter().enumerate() {
            let at = format!("{at}.spans[{k}]");
            let (t, content) = span(s, &at)?;
            l.push_str(&span_text(t, content, &at)?);
        }
        out.push(l);
    }
    Ok(strip_fence(&out.join("\n")))
}

/// A list block of the pipeline backend: one item per run of lines that starts with a line
/// marked `is_list_start_line` (the whole block where none is marked).
fn list_items(o: &Map<String, Value>, at: &str) -> Result<Vec<String>, FormatError> {
    let mut items: Vec<String> = Vec::new();
    for (li, line) in lines(o, at)?.iter().enumerate() {
        let start = line.get("is_list_start_line").and_then(Value::as_bool).unwrap_or(false);
        let text = one_line(line, &format!("{at}.lines[{li}]"))?;
        match items.last_mut() {
            Some(last) if !start => join(last, &text),
            _ => items.push(text),
        }
    }
    Ok(items.into_iter().map(|t| collapse_ws(&t)).collect())
}

/// The `field` of the first span of type `span_type` in a block (or its parts).
fn span_field(
    o: &Map<String, Value>,
    span_type: &str,
    field: &str,
    at: &str,
) -> Result<Option<String>, FormatError> {
    for (li, line) in lines(o, at)?.iter().enumerate() {
        let at = format!("{at}.lines[{li}]");
        for (k, s) in spans(line, &at)?.iter().enumerate() {
            if s.get("type").and_then(Value::as_str) == Some(span_type) {
                return match s.get(field) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::String(v)) => Ok(Some(v.clone())),
                    Some(_) => Err(FormatError::shape(
                        FORMAT,
                        "a string",
                        format!("{at}.spans[{k}].{field}"),
                    )),
                };
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LETTER: Page = Page { width: 612.0, height: 792.0 };

    fn near(a: BBox, b: BBox) -> bool {
        (a.x0 - b.x0).abs() < 1e-3
            && (a.y0 - b.y0).abs() < 1e-3
            && (a.x1 - b.x1).abs() < 1e-3
            && (a.y1 - b.y1).abs() < 1e-3
    }

    /// A two-page paper as MinerU 2.5's VLM backend writes its content list (boxes 0–1000).
    fn content_list() -> Value {
        json!([
            {"type": "text", "text": "Sparse Tables in Practice", "text_level": 1,
             "bbox": [200, 100, 800, 130], "page_idx": 0},
            {"type": "text", "text": "1 Introduction", "text_level": 2,
             "bbox": [117, 180, 400, 200], "page_idx": 0},
            {"type": "text", "text": "We measure $\\alpha$ on three corpora and report \\*all\\* runs. ",
             "bbox": [117, 210, 883, 300], "page_idx": 0},
            {"type": "equation", "img_path": "images/3c1f.jpg",
             "text": "$$\nE = m c ^ { 2 }\n$$", "text_format": "latex",
             "bbox": [300, 320, 700, 360], "page_idx": 0},
            {"type": "header", "text": "Preprint. Under review.", "bbox": [117, 30, 400, 45],
             "page_idx": 0},
            {"type": "page_number", "text": "1", "bbox": [490, 950, 510, 965], "page_idx": 0},
            {"type": "table", "img_path": "images/9a0e.jpg",
             "table_caption": ["Table 1: Scores on the test set."],
             "table_footnote": ["* best of three runs"],
             "table_body": "<table><tr><td>Model</td><td>F1</td></tr><tr><td>Ours</td><td>0.91</td></tr></table>",
             "bbox": [117, 100, 883, 300], "page_idx": 1},
            {"type": "image", "img_path": "images/77b2.jpg",
             "image_caption": ["Figure 1: Recall by table size."], "image_footnote": [],
             "bbox": [117, 350, 883, 700], "page_idx": 1},
            {"type": "list", "sub_type": "ref_text",
             "list_items": ["[1] A. Author. Tables. 2020.", "[2] B. Author. More tables. 2021."],
             "bbox": [117, 720, 883, 800], "page_idx": 1},
            {"type": "footer", "text": "© 2024 The Authors", "bbox": [117, 960, 500, 975],
             "page_idx": 1}
        ])
    }

    #[test]
    fn content_list_maps_every_item_and_scales_boxes_to_the_page() {
        let bytes = content_list().to_string();
        let d = read(bytes.as_bytes(), 0, &[LETTER, LETTER]).unwrap();
        use BlockKind::*;
        let got: Vec<(BlockKind, u32, &str, Option<u8>)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.text.as_str(), b.level)).collect();
        assert_eq!(
            got,
            [
                (Title, 0, "Sparse Tables in Practice", None),
                (Heading, 0, "1 Introduction", Some(1)),
                (Paragraph, 0, "We measure α on three corpora and report *all* runs.", None),
                (Formula, 0, "E = m c 2", None),
                (PageHeader, 0, "Preprint. Under review.", None),
                (PageFooter, 0, "1", None),
                (Caption, 1, "Table 1: Scores on the test set.", None),
                (Table, 1, "Model F1\nOurs 0.91", None),
                (Footnote, 1, "* best of three runs", None),
                (Figure, 1, "", None),
                (Caption, 1, "Figure 1: Recall by table size.", None),
                (Reference, 1, "[1] A. Author. Tables. 2020.", None),
                (Reference, 1, "[2] B. Author. More tables. 2021.", None),
                (PageFooter, 1, "© 2024 The Authors", None),
            ]
        );
        let b = &d.blocks;
        assert_eq!(b[3].latex.as_deref(), Some("E = m c ^ { 2 }"));
        // 0–1000 → points: x · 612 / 1000, y · 792 / 1000.
        assert!(near(b[0].bbox, BBox::new(122.4, 79.2, 489.6, 102.96)), "{:?}", b[0].bbox);
        assert!(near(b[7].bbox, BBox::new(71.604, 79.2, 540.396, 237.6)), "{:?}", b[7].bbox);
        assert_eq!(b[6].bbox, BBox::default(), "a caption of an item has no box of its own");
        let t = b[7].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols, t.cells.len()), (2, 2, 4));
        assert_eq!(t.cells[3].text, "0.91");
        assert_eq!(d.pages, [LETTER, LETTER]);
    }

    #[test]
    fn content_list_boxes_are_empty_without_page_sizes() {
        let d = read(content_list().to_string().as_bytes(), 0, &[]).unwrap();
        assert!(d.blocks.iter().all(|b| b.bbox == BBox::default()));
        assert!(d.pages.is_empty());
        // Items without page_idx go to the page given.
        let d = read(br#"[{"type": "text", "text": "x"}]"#, 3, &[]).unwrap();
        assert_eq!(d.blocks[0].page, 3);
    }

    /// The same paper's middle file (VLM backend: typed headers and footers; one pipeline
    /// `discarded` block, a list with marked item starts).
    fn middle() -> Value {
        let line = |spans: Value| json!({"bbox": [0, 0, 1, 1], "spans": spans});
        let text = |s: &str| json!([{"bbox": [0, 0, 1, 1], "type": "text", "content": s}]);
        json!({
            "pdf_info": [
                {"page_idx": 0, "page_size": [612, 792], "para_blocks": [
                    {"type": "title", "bbox": [122, 79, 490, 103], "level": 1,
                     "lines": [line(text("Sparse Tables"))]},
                    {"type": "title", "bbox": [72, 142, 245, 158], "level": 2,
                     "lines": [line(text("1 Introduction"))]},
                    {"type": "text", "bbox": [72, 166, 540, 238], "lines": [
                        line(json!([
                            {"type": "text", "content": "We measure"},
                            {"type": "inline_equation", "content": "\\alpha"},
                            {"type": "text", "content": "on three cor-"}])),
                        line(text("pora."))]},
                    {"type": "interline_equation", "bbox": [184, 253, 428, 285], "lines": [
                        line(json!([{"type": "interline_equation", "content": "E = mc^{2}",
                                     "image_path": "3c1f.jpg"}]))]},
                    {"type": "list", "bbox": [72, 300, 540, 340], "lines": [
                        {"is_list_start_line": true, "spans": [{"type": "text", "content": "• one"}]},
                        {"spans": [{"type": "text", "content": "continued"}]},
                        {"is_list_start_line": true, "spans": [{"type": "text", "content": "• two"}]}]}
                ], "discarded_blocks": [
                    {"type": "header", "bbox": [72, 24, 245, 36], "lines": [line(text("Preprint."))]},
                    {"type": "discarded", "bbox": [300, 752, 312, 764], "lines": [line(text("1"))]}
                ]},
                {"page_idx": 1, "page_size": [612, 792], "para_blocks": [
                    {"type": "table", "bbox": [72, 79, 540, 238], "blocks": [
                        {"type": "table_caption", "bbox": [72, 79, 540, 92],
                         "lines": [line(text("Table 1: Scores."))]},
                        {"type": "table_body", "bbox": [72, 95, 540, 238], "lines": [line(json!([
                            {"type": "table", "image_path": "9a0e.jpg",
                             "html": "<table><tr><th>Model</th><th>F1</th></tr><tr><td>Ours</td><td>0.91</td></tr></table>"}]))]}
                    ]},
                    {"type": "image", "bbox": [72, 277, 540, 554], "blocks": [
                        {"type": "image_body", "bbox": [72, 277, 540, 530],
                         "lines": [line(json!([{"type": "image", "image_path": "77b2.jpg"}]))]},
                        {"type": "image_caption", "bbox": [72, 535, 540, 554],
                         "lines": [line(text("Figure 1: Recall."))]}
                    ]},
                    {"type": "list", "sub_type": "ref_text", "bbox": [72, 570, 540, 620], "blocks": [
                        {"type": "text", "bbox": [72, 570, 540, 590], "lines": [line(text("[1] A. Author. 2020."))]},
                        {"type": "text", "bbox": [72, 595, 540, 620], "lines": [line(text("[2] B. Author. 2021."))]}
                    ]},
                    {"type": "formula_number", "bbox": [500, 630, 540, 640], "lines": [line(text("(1)"))]}
                ], "discarded_blocks": [
                    {"type": "footer", "bbox": [72, 760, 306, 772], "lines": [line(text("© 2024"))]}
                ]}
            ],
            "_backend": "vlm",
            "_version_name": "2.5.4"
        })
    }

    #[test]
    fn middle_file_keeps_point_boxes_page_sizes_and_parts() {
        let d = read(middle().to_string().as_bytes(), 0, &[]).unwrap();
        use BlockKind::*;
        let got: Vec<(BlockKind, u32, &str, Option<u8>)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.text.as_str(), b.level)).collect();
        assert_eq!(
            got,
            [
                (Title, 0, "Sparse Tables", None),
                (Heading, 0, "1 Introduction", Some(1)),
                (Paragraph, 0, "We measure α on three corpora.", None),
                (Formula, 0, "E = mc2", None),
                (ListItem, 0, "• one continued", None),
                (ListItem, 0, "• two", None),
                (PageHeader, 0, "Preprint.", None),
                (PageFooter, 0, "1", None),
                (Caption, 1, "Table 1: Scores.", None),
                (Table, 1, "Model F1\nOurs 0.91", None),
                (Figure, 1, "", None),
                (Caption, 1, "Figure 1: Recall.", None),
                (Reference, 1, "[1] A. Author. 2020.", None),
                (Reference, 1, "[2] B. Author. 2021.", None),
                (PageFooter, 1, "© 2024", None),
            ]
        );
        let b = &d.blocks;
        assert_eq!(b[3].latex.as_deref(), Some("E = mc^{2}"));
        assert_eq!(b[2].bbox, BBox::new(72.0, 166.0, 540.0, 238.0));
        assert_eq!(b[9].bbox, BBox::new(72.0, 95.0, 540.0, 238.0));
        assert_eq!(b[13].bbox, BBox::new(72.0, 595.0, 540.0, 620.0));
        let t = b[9].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols, t.cells[0].header, t.cells[2].header), (2, 2, true, false));
        assert_eq!(d.pages, [LETTER, LETTER]);
        // Given page sizes scale the boxes (an A4 PDF read against a Letter-sized middle file).
        let a4 = Page { width: 595.0, height: 842.0 };
        let d = read(middle().to_string().as_bytes(), 0, &[a4, a4]).unwrap();
        let want = BBox::new(
            72.0 * 595.0 / 612.0,
            166.0 * 842.0 / 792.0,
            595.0 * 540.0 / 612.0,
            238.0 * 842.0 / 792.0,
        );
        assert!(near(d.blocks[2].bbox, want), "{:?}", d.blocks[2].bbox);
        assert_eq!(d.pages, [a4, a4]);
    }

    #[test]
    fn malformed_and_unknown_input_say_what_and_where() {
        let err = |s: &str| read(s.as_bytes(), 0, &[]).unwrap_err().to_string();
        assert!(err("{").starts_with("invalid JSON"), "{}", err("{"));
        assert_eq!(
            err("{\"pages\": []}"),
            "expected a content list (a JSON list) or a middle file (an object with pdf_info) at $"
        );
        assert!(err("[[{\"type\": \"paragraph\"}]]").contains("content_list_v2.json"));
        assert_eq!(err("[3]"), "expected an object at $[0]");
        assert_eq!(err("[{\"text\": \"x\"}]"), "expected a string at $[0].type");
        assert_eq!(
            err(
                "[{\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"sidebar\", \"text\": \"x\"}]"
            ),
            "unknown block type \"sidebar\" (not one MinerU writes) at $[1].type"
        );
        assert_eq!(
            err("[{\"type\": \"text\", \"text\": \"a\", \"bbox\": [1, 2, 3]}]"),
            "expected a box [x0, y0, x1, y1] at $[0].bbox"
        );
        assert_eq!(err("{\"pdf_info\": {}}"), "expected a list of pages at $.pdf_info");
        assert_eq!(
            err("{\"pdf_info\": [{\"page_idx\": 0}]}"),
            "expected a page size [width, height] at $.pdf_info[0].page_size"
        );
        let mut m = middle();
        m["pdf_info"][1]["para_blocks"][0]["type"] = json!("margin_note");
        assert_eq!(
            err(&m.to_string()),
            "unknown block type \"margin_note\" (not one MinerU writes) at $.pdf_info[1].para_blocks[0].type"
        );
        let mut m = middle();
        m["pdf_info"][0]["para_blocks"][2]["lines"][0]["spans"][1]["type"] = json!("sparkline");
        assert_eq!(
            err(&m.to_string()),
            "unknown span type \"sparkline\" (not one MinerU writes) at \
             $.pdf_info[0].para_blocks[2].lines[0].spans[1].type"
        );
    }

    #[test]
    fn markdown_text_undoes_escapes_and_reads_math() {
        assert_eq!(markdown_text("a \\_b\\_ \\$5 and $x^{2}$ \n c"), "a _b_ $5 and x2 c");
        assert_eq!(markdown_text("cost $ 5"), "cost $ 5");
        assert_eq!(strip_fence("```python\nx = 1\n```"), "x = 1");
    }
}
