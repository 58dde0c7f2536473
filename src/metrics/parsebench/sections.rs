//! The page-section and mark-colour rules of ParseBench's `rules_formatting.py`
//! (`PageSectionRule`: `is_header`, `is_footer`; `MarkColorRule`: `mark_color`), written from
//! its description; rules in `docs/parsebench.md`.
//!
//! - **`is_header` / `is_footer`**: the text (each space a whitespace run, each dash any of
//!   `-‐‑‒–—―−`), case-insensitive, in one of the output's structured page headers (footers)
//!   where the output has page sections ([`PageSections`]; only the rule's page when it names
//!   one), else inside a `<page_header>…</page_header>` (`<page_footer>`) span of the Markdown
//!   holding no other tag.
//! - **`mark_color`**: the text (words joined by whitespace that may carry inline markup)
//!   inside a `<mark …>` tag whose attributes hold the colour (case-insensitive substring), in
//!   the Markdown or, failing that, in the Markdown with every other kind of inline
//!   formatting stripped.

use std::sync::LazyLock;

use regex::Regex;

use super::format::{strip_other, tolerant};
use super::normalize::py_strip;
use super::Outcome;
use crate::doc::{BlockKind, Doc};

/// The page headers and footers of an output with structured pages, per 1-based page, and
/// each page's own Markdown.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageSections {
    /// (page, header text, footer text); empty texts are no section.
    pub pages: Vec<(i64, String, String)>,
    /// Each page's Markdown ([`Doc::page_markdown`]), page 1 first.
    pub markdown: Vec<String>,
}

impl PageSections {
    /// The Markdown of 1-based `page`, as `_scope_to_page` reads an output with per-page IR:
    /// "" for a page the output does not have (fail closed).
    pub fn page_markdown(&self, page: i64) -> &str {
        usize::try_from(page - 1).ok().and_then(|i| self.markdown.get(i)).map_or("", |s| s.as_str())
    }
}

impl PageSections {
    /// A Doc's page sections: each page's header and footer blocks' text, one per line, and
    /// each page's Markdown; `None`
    /// for a Doc read from Markdown or without pages (the Markdown's tags are read instead).
    pub fn of(doc: &Doc) -> Option<PageSections> {
        if doc.markdown.is_some() || doc.pages.is_empty() {
            return None;
        }
        let text = |page: usize, kind: BlockKind| {
            let lines: Vec<&str> = doc
                .blocks
                .iter()
                .filter(|b| b.page as usize == page && b.kind == kind)
                .map(|b| b.text.as_str())
                .collect();
            lines.join("\n")
        };
        let pages = (0..doc.pages.len())
            .map(|p| (p as i64 + 1, text(p, BlockKind::PageHeader), text(p, BlockKind::PageFooter)))
            .collect();
        let markdown = (0..doc.pages.len()).map(|p| doc.page_markdown(p as u32)).collect();
        Some(PageSections { pages, markdown })
    }
}

const DASHES: &str = "-\u{2010}\u{2011}\u{2012}\u{2013}\u{2014}\u{2015}\u{2212}";

/// `_build_page_section_query_pattern`.
fn section_query(text: &str) -> String {
    let dash = format!("[{}]", regex::escape(DASHES));
    text.chars()
        .map(|c| {
            if DASHES.contains(c) {
                dash.clone()
            } else if c == ' ' {
                r"\s+".to_string()
            } else {
                regex::escape(&c.to_string())
            }
        })
        .collect()
}

/// `is_header` (`footer` false) or `is_footer`.
pub fn page_section(
    footer: bool,
    text: &str,
    page: Option<i64>,
    md: &str,
    sections: Option<&PageSections>,
) -> Outcome {
    let text = py_strip(text);
    if text.is_empty() {
        return Outcome::error("Text field cannot be empty");
    }
    let (tag, label) = if footer { ("page_footer", "footer") } else { ("page_header", "header") };
    let flexible = section_query(text);
    let t40: String = text.chars().take(40).collect();
    if let Some(s) = sections {
        let values: Vec<&str> = s
            .pages
            .iter()
            .filter(|p| page.is_none_or(|n| n == p.0))
            .map(|p| if footer { p.2.as_str() } else { p.1.as_str() })
            .filter(|v| !v.is_empty())
            .collect();
        let re = Regex::new(&format!("(?is){flexible}")).expect("an escaped pattern");
        if values.iter().any(|v| re.is_match(v)) {
            return Outcome::pass();
        }
        let preview: Vec<String> = values
            .iter()
            .take(3)
            .map(|v| format!("{:?}", v.chars().take(80).collect::<String>()))
            .collect();
        let sample = if preview.is_empty() {
            String::new()
        } else {
            format!(" (sample: {})", preview.join("; "))
        };
        return Outcome::fail(format!(
            "Expected '{t40}' to appear in structured page {label} content, but it was not found{sample}"
        ));
    }
    let re = Regex::new(&format!("(?is)<{tag}>[^<]*?{flexible}[^<]*?</{tag}>"))
        .expect("an escaped pattern");
    if re.is_match(md) {
        return Outcome::pass();
    }
    Outcome::fail(format!(
        "Expected '{t40}' to appear inside a page {label} (<{tag}>...</{tag}>), but it was not found"
    ))
}

/// `_MARK_TAG_PATTERN`: a `<mark>` tag's attributes and content.
static MARK_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)<mark\b([^>]*)>([\s\S]+?)</mark>").expect("fixed"));

/// `mark_color`.
pub fn mark_color(text: &str, color: &str, md: &str) -> Outcome {
    let text = py_strip(text);
    if text.is_empty() {
        return Outcome::error("Text field cannot be empty");
    }
    let color = py_strip(color).to_lowercase();
    if color.is_empty() {
        return Outcome::error("Color field cannot be empty");
    }
    let query = Regex::new(&format!("(?i){}", tolerant(text))).expect("an escaped pattern");
    let found = |s: &str| {
        MARK_TAG
            .captures_iter(s)
            .any(|c| query.is_match(&c[2]) && c[1].to_lowercase().contains(color.as_str()))
    };
    if found(md) || found(&strip_other(md, "mark")) {
        return Outcome::pass();
    }
    let t40: String = text.chars().take(40).collect();
    Outcome::fail(format!(
        "Expected '{t40}' to be inside a <mark> tag with color '{color}', but no matching <mark> tag found"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{BBox, Block, Page};

    /// `_scope_to_page`: a paged output's `form_field` rule reads its own page only.
    #[test]
    fn form_fields_keep_to_the_rules_page_once_the_output_has_pages() {
        let b = |page: u32, text: &str| {
            Block::new(BlockKind::Paragraph, page, BBox::new(72.0, 72.0, 300.0, 90.0), text)
        };
        let doc = Doc {
            pages: vec![Page { width: 612.0, height: 792.0 }; 2],
            blocks: vec![b(0, "**Name:** Alice Smith"), b(1, "**Name:** Bob Jones")],
            ..Default::default()
        };
        let md = doc.to_markdown();
        let rule = |page: i64, value: &str| {
            let v = serde_json::json!({"type": "form_field", "page": page, "label": "Name", "value": value});
            super::super::Rule::from_fields(v.as_object().unwrap().clone()).unwrap()
        };
        let passed = |r: &super::super::Rule, doc: Option<&Doc>| {
            let c = super::super::score_case_in("form", std::slice::from_ref(r), &md, doc);
            c.rules[0].outcome.as_ref().map(|o| o.passed)
        };
        // With pages: page 2's field is Bob's; Alice is not on it.
        assert_eq!(passed(&rule(2, "Bob Jones"), Some(&doc)), Some(true));
        assert_eq!(passed(&rule(2, "Alice Smith"), Some(&doc)), Some(false));
        assert_eq!(passed(&rule(1, "Alice Smith"), Some(&doc)), Some(true));
        // A page the output lacks reads as empty: fail closed.
        assert_eq!(passed(&rule(3, "Alice Smith"), Some(&doc)), Some(false));
        // Without pages (Markdown): the whole document, where either Name is found (the
        // evaluator breaks the tie between equal labels with the expected value).
        assert_eq!(passed(&rule(2, "Alice Smith"), None), Some(true));
        assert_eq!(passed(&rule(2, "Bob Jones"), None), Some(true));
    }

    #[test]
    fn headers_and_footers_in_markdown_tags() {
        let md = "<page_header>ACME  Annual\nReport</page_header>\n\nBody\n\n<page_footer>Page 3 – of 9</page_footer>";
        assert!(page_section(false, "acme annual report", None, md, None).passed);
        assert!(page_section(true, "Page 3 - of 9", None, md, None).passed);
        // Wrong section, or the text outside the tags.
        assert!(!page_section(true, "ACME", None, md, None).passed);
        assert!(!page_section(false, "Body", None, md, None).passed);
        // Another tag inside the span breaks it.
        let md2 = "<page_header><b>ACME</b></page_header>";
        assert!(!page_section(false, "ACME", None, md2, None).passed);
        assert!(page_section(false, " ", None, md, None).error);
    }

    #[test]
    fn structured_sections_take_precedence_and_honour_the_page() {
        let s = PageSections {
            pages: vec![
                (1, "ACME Report".into(), String::new()),
                (2, String::new(), "p. 2".into()),
            ],
            markdown: Vec::new(),
        };
        let md = "<page_footer>ACME Report</page_footer>";
        assert!(page_section(false, "acme report", None, md, Some(&s)).passed);
        assert!(!page_section(true, "ACME Report", None, md, Some(&s)).passed);
        assert!(page_section(true, "p. 2", Some(2), md, Some(&s)).passed);
        let o = page_section(true, "p. 2", Some(1), md, Some(&s));
        assert!(!o.passed && o.explanation.contains("structured page footer"), "{o:?}");
    }

    #[test]
    fn mark_colour_in_the_tags_attributes() {
        let md = r#"A <mark style="background-color: Yellow">key **figure**</mark> and <mark>plain</mark>."#;
        assert!(mark_color("key figure", "yellow", md).passed);
        assert!(!mark_color("key figure", "green", md).passed);
        assert!(!mark_color("plain", "yellow", md).passed);
        assert!(!mark_color("A", "yellow", md).passed);
        assert!(mark_color("key", "", md).error);
    }
}
