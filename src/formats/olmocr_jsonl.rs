//! olmOCR's pipeline output (`python -m olmocr.pipeline WORKSPACE --pdfs …` writes
//! `WORKSPACE/results/output_<hash>.jsonl`) into a [`Doc`]: JSON lines, one Dolma document per
//! PDF, `{id, text, source, added, created, metadata: {Source-File, olmocr-version,
//! pdf-total-pages, total-input-tokens, total-output-tokens, total-fallback-pages},
//! attributes: {pdf_page_numbers: [[start, end, page], …], …}}`.
//!
//! - **Pages**: each span `[start, end, page]` cuts page `page` (one-based) out of `text`;
//!   `start` and `end` count characters (Unicode code points, as Python indexes strings), not
//!   bytes. The pipeline joins pages with a newline (two in some versions), which stays
//!   with the page before.
//! - **Blocks**: each page's text is read as Markdown by `markdown::read_markdown` on its
//!   page (headings, paragraphs, lists, pipe and HTML tables, `$$`/`\[` formulas with their
//!   LaTeX; olmOCR leaves out running headers and footers, so there are none), the title rule
//!   holding across pages as in `markdown::read_markdown_pages`. There are no boxes and no
//!   page sizes. [`Doc::markdown`] keeps `text` verbatim.
//! - Left alone: `id`, `source`, `added`, `created`, the token and fallback counts,
//!   `olmocr-version`, `attributes` other than `pdf_page_numbers` (`primary_language`, …).
//!
//! **Several documents in one file.** A results file holds every PDF of one work item. `corpus
//! import` takes it apart with [`documents`] and stores each line as the output of the PDF
//! its `metadata.Source-File` names; [`read`] reads a file of exactly one document and refuses
//! a file of several with an error listing their Source-Files, since it cannot tell which one
//! is wanted.

use serde_json::Value;

use super::{markdown, Format, FormatError};
use crate::doc::{BlockKind, Doc, Page};

/// The format this file reads.
const FORMAT: Format = Format::OlmocrJsonl;

/// One non-blank line of a results file: a document and the PDF it is of.
#[derive(Debug)]
pub struct DocLine<'a> {
    /// Its line number (one-based).
    pub line: usize,
    /// The line.
    pub bytes: &'a [u8],
    /// Its `metadata.Source-File`, or why it has none.
    pub source_file: Result<String, FormatError>,
}

/// Splits a results file into its documents (blank lines skipped), each with its Source-File.
pub fn documents(bytes: &[u8]) -> Vec<DocLine<'_>> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .map(|(line, bytes)| DocLine { line, bytes, source_file: source_file(bytes) })
        .collect()
}

/// A document's `metadata.Source-File`.
fn source_file(line: &[u8]) -> Result<String, FormatError> {
    let v: Value = serde_json::from_slice(line).map_err(|e| FormatError::json(FORMAT, e))?;
    v.get("metadata")
        .and_then(|m| m.get("Source-File"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| FormatError::shape(FORMAT, "a string", "$.metadata.Source-File"))
}

/// Reads a results file of one document. `page` and `sizes` are not used (the spans give the
/// pages; there are no boxes).
pub fn read(bytes: &[u8], _page: u32, _sizes: &[Page]) -> Result<Doc, FormatError> {
    let docs = documents(bytes);
    match docs.as_slice() {
        [] => Err(FormatError::new(FORMAT, "no documents: the file has no lines")),
        [one] => read_document(one.bytes),
        many => {
            let names: Vec<String> = many
                .iter()
                .take(3)
                .map(|d| d.source_file.as_ref().map_or_else(|_| "?".to_string(), Clone::clone))
                .collect();
            let more = if many.len() > 3 { ", …" } else { "" };
            Err(FormatError::new(
                FORMAT,
                format!(
                    "{} documents in one file ({}{more}): `corpus import` stores each line as the \
                     output of the PDF its metadata.Source-File names; read one document at a time",
                    many.len(),
                    names.join(", ")
                ),
            ))
        }
    }
}

/// Reads one Dolma document (one line).
pub(crate) fn read_document(line: &[u8]) -> Result<Doc, FormatError> {
    let v: Value = serde_json::from_slice(line).map_err(|e| FormatError::json(FORMAT, e))?;
    let Value::Object(o) = &v else {
        return Err(FormatError::shape(FORMAT, "a Dolma document (an object)", "$"));
    };
    let text = o
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| FormatError::shape(FORMAT, "a string", "$.text"))?;
    let at = "$.attributes.pdf_page_numbers";
    let Some(Value::Array(spans)) = o.get("attributes").and_then(|a| a.get("pdf_page_numbers"))
    else {
        return Err(FormatError::shape(FORMAT, "a list of [start, end, page] spans", at));
    };
    // The byte offset of each character, and of the end.
    let offsets: Vec<usize> =
        text.char_indices().map(|(b, _)| b).chain(std::iter::once(text.len())).collect();
    let chars = offsets.len() - 1;
    let mut blocks = Vec::new();
    for (k, s) in spans.iter().enumerate() {
        let at = format!("{at}[{k}]");
        let span = s
            .as_array()
            .filter(|a| a.len() == 3)
            .and_then(|a| Some((a[0].as_u64()?, a[1].as_u64()?, a[2].as_u64()?)))
            .ok_or_else(|| FormatError::shape(FORMAT, "a span [start, end, page]", &at))?;
        let (start, end, page) = (span.0 as usize, span.1 as usize, span.2);
        if start > end || end > chars {
            return Err(FormatError::new(
                FORMAT,
                format!("span [{start}, {end}] is outside the text ({chars} characters)"),
            )
            .at(at));
        }
        let page = match u32::try_from(page) {
            Ok(p) if p >= 1 => p - 1,
            _ => {
                return Err(FormatError::new(
                    FORMAT,
                    format!("page {page} is not a page (they count from 1)"),
                )
                .at(at))
            }
        };
        let part = &text[offsets[start]..offsets[end]];
        let seen = blocks
            .iter()
            .any(|b: &crate::doc::Block| matches!(b.kind, BlockKind::Title | BlockKind::Heading));
        for mut b in markdown::read_markdown(part, page).blocks {
            if seen && b.kind == BlockKind::Title {
                b.kind = BlockKind::Heading;
                b.level = Some(1);
            }
            blocks.push(b);
        }
    }
    Ok(Doc { pages: Vec::new(), blocks, markdown: Some(text.to_string()), meta: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Dolma document as the pipeline builds it: pages joined by a newline, spans counting
    /// characters.
    fn dolma(source: &str, pages: &[&str]) -> Value {
        let mut text = String::new();
        let mut spans = Vec::new();
        for (i, p) in pages.iter().enumerate() {
            let start = text.chars().count();
            text.push_str(p);
            if i + 1 < pages.len() {
                text.push('\n');
            }
            spans.push(json!([start, text.chars().count(), i + 1]));
        }
        json!({
            "id": "5f2c0d1e", "text": text, "source": "olmocr", "added": "2025-06-02",
            "created": "2025-06-02",
            "metadata": {"Source-File": source, "olmocr-version": "0.3.0",
                         "pdf-total-pages": pages.len(), "total-input-tokens": 4410,
                         "total-output-tokens": 612, "total-fallback-pages": 0},
            "attributes": {"pdf_page_numbers": spans, "primary_language": ["en", "en"]}
        })
    }

    /// olmOCR leaves out running headers and footers, so the pages have none.
    fn paper() -> Value {
        dolma(
            "s3://ai2-bucket/pdfs/sparse-tables.pdf",
            &[
                "# Sparse Tables in Practice\n\n## 1 Introduction\n\nWe measure $\\alpha$ on three \
                 corpora — café menus included.\n\n\\[\nE = mc^{2}\n\\]",
                "Table 1: Scores on the test set.\n\n<table><tr><th>Model</th><th>F1</th></tr>\
                 <tr><td>Ours</td><td>0.91</td></tr></table>\n\n## 2 Results\n\nOurs wins.",
            ],
        )
    }

    #[test]
    fn spans_cut_pages_by_characters_and_pages_read_as_markdown() {
        let line = paper().to_string();
        let d = read(line.as_bytes(), 9, &[]).unwrap();
        use BlockKind::*;
        let got: Vec<(BlockKind, u32, &str, Option<u8>)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.text.as_str(), b.level)).collect();
        assert_eq!(
            got,
            [
                (Title, 0, "Sparse Tables in Practice", None),
                (Heading, 0, "1 Introduction", Some(1)),
                (Paragraph, 0, "We measure α on three corpora — café menus included.", None),
                (Formula, 0, "E = mc2", None),
                (Paragraph, 1, "Table 1: Scores on the test set.", None),
                (Table, 1, "Model F1\nOurs 0.91", None),
                (Heading, 1, "2 Results", Some(1)),
                (Paragraph, 1, "Ours wins.", None),
            ]
        );
        assert_eq!(d.blocks[3].latex.as_deref(), Some("E = mc^{2}"));
        let t = d.blocks[5].table.as_ref().unwrap();
        assert_eq!((t.rows, t.cols, t.cells[0].header), (2, 2, true));
        assert!(d.blocks.iter().all(|b| b.bbox == crate::doc::BBox::default()));
        assert_eq!(d.markdown.as_deref(), paper()["text"].as_str());
        assert!(d.pages.is_empty());
    }

    #[test]
    fn a_file_of_several_documents_is_split_not_read() {
        let other = dolma("/data/pdfs/other.pdf", &["Just one page."]);
        let file = format!("{}\n\n{}\n", paper(), other);
        let docs = documents(file.as_bytes());
        let got: Vec<(usize, String)> =
            docs.iter().map(|d| (d.line, d.source_file.as_ref().unwrap().clone())).collect();
        assert_eq!(
            got,
            [
                (1, "s3://ai2-bucket/pdfs/sparse-tables.pdf".to_string()),
                (3, "/data/pdfs/other.pdf".to_string())
            ]
        );
        let d = read_document(docs[1].bytes).unwrap();
        assert_eq!(d.blocks[0].text, "Just one page.");
        let e = read(file.as_bytes(), 0, &[]).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "2 documents in one file (s3://ai2-bucket/pdfs/sparse-tables.pdf, \
                           /data/pdfs/other.pdf): `corpus import`"
            ),
            "{e}"
        );
    }

    #[test]
    fn malformed_documents_say_what_and_where() {
        let err = |s: &str| read(s.as_bytes(), 0, &[]).unwrap_err().to_string();
        assert_eq!(err("\n \n"), "no documents: the file has no lines");
        assert!(err("{").starts_with("invalid JSON"), "{}", err("{"));
        assert_eq!(err("[1]"), "expected a Dolma document (an object) at $");
        assert_eq!(err("{\"text\": 3}"), "expected a string at $.text");
        assert_eq!(
            err("{\"text\": \"x\"}"),
            "expected a list of [start, end, page] spans at $.attributes.pdf_page_numbers"
        );
        let with = |spans: Value| {
            err(&json!({"text": "añb", "attributes": {"pdf_page_numbers": spans}}).to_string())
        };
        assert_eq!(
            with(json!([[0, 4, 1]])),
            "span [0, 4] is outside the text (3 characters) at $.attributes.pdf_page_numbers[0]"
        );
        assert_eq!(
            with(json!([[0, 3, 0]])),
            "page 0 is not a page (they count from 1) at $.attributes.pdf_page_numbers[0]"
        );
        assert_eq!(
            with(json!([[0, "3", 1]])),
            "expected a span [start, end, page] at $.attributes.pdf_page_numbers[0]"
        );
        let e = documents(b"{\"text\": \"x\", \"metadata\": {}}")[0]
            .source_file
            .as_ref()
            .unwrap_err()
            .to_string();
        assert_eq!(e, "expected a string at $.metadata.Source-File");
    }
}
