//! Small element lookups shared by the XML truth readers (GROBID TEI, JATS), which match
//! elements by local name whatever their namespace.

use roxmltree::{Document, Node, ParsingOptions};

use super::{Format, FormatError};

/// Parses a file of an XML format: UTF-8, DTDs allowed (JATS and TEI files declare theirs).
pub(crate) fn parse(bytes: &[u8], format: Format) -> Result<Document<'_>, FormatError> {
    let text = std::str::from_utf8(bytes).map_err(|e| FormatError::xml(format, e))?;
    let opts = ParsingOptions { allow_dtd: true, ..ParsingOptions::default() };
    Document::parse_with_options(text, opts).map_err(|e| FormatError::xml(format, e))
}

/// Returns the first child element named `name`.
pub(crate) fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.is_element() && c.tag_name().name() == name)
}

/// Returns the child elements named `name`, in order.
pub(crate) fn children<'a, 'i: 'a>(
    n: Node<'a, 'i>,
    name: &'a str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    n.children().filter(move |c| c.is_element() && c.tag_name().name() == name)
}

/// Returns the first descendant element named `name`, in document order.
pub(crate) fn descendant<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.descendants().find(|c| c.is_element() && c.tag_name().name() == name)
}

/// Returns `s` unless it is empty.
pub(crate) fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}
