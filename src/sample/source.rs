//! The structured source of a sample paper: typeset into a PDF by `layout`, and turned into its
//! PeerRead ground truth by `truth`, so the two cannot disagree.

/// A paper as written, before layout.
#[derive(Debug)]
pub(crate) struct Source {
    /// File stem: the PDF is `<name>.pdf`.
    pub name: &'static str,
    /// Full title.
    pub title: &'static str,
    /// Short title for the running header.
    pub short_title: &'static str,
    /// Author names; empty for an anonymised review submission.
    pub authors: &'static [&'static str],
    /// Affiliation line under the authors.
    pub affiliation: &'static str,
    /// E-mail addresses, printed as `{a,b}@host` when they share a host.
    pub emails: &'static [&'static str],
    /// Whether the paper is a review submission: anonymous, with line numbers in the margins.
    pub review: bool,
    /// Abstract, one sentence per entry.
    pub abstract_: &'static [&'static str],
    /// Body, in reading order.
    pub body: &'static [Item],
    /// Reference list, in print order.
    pub references: &'static [Reference],
}

/// One element of a paper's body.
#[derive(Debug)]
pub(crate) enum Item {
    /// A numbered heading, `"2.1 Data"`; its level is one more than the dots in its number.
    Heading(&'static str),
    /// A paragraph, one sentence per entry. A soft hyphen (U+00AD) inside a word marks where
    /// the line breaker may hyphenate it; it never reaches the ground truth.
    Para(&'static [&'static str]),
    /// A table under its caption.
    Table(TableSource),
    /// A numbered display equation, numbered in order of appearance.
    Equation {
        /// The equation as printed.
        text: &'static str,
        /// Its LaTeX source.
        latex: &'static str,
    },
}

/// A table: caption, header row and body rows.
#[derive(Debug)]
pub(crate) struct TableSource {
    /// The caption, starting `Table N:`.
    pub caption: &'static str,
    /// Header cells.
    pub header: &'static [&'static str],
    /// Body rows.
    pub rows: &'static [&'static [&'static str]],
}

/// One entry of the reference list: `Authors. Year. Title. Venue.`
#[derive(Debug)]
pub(crate) struct Reference {
    /// Full author names.
    pub authors: &'static [&'static str],
    /// Year as cited, with its letter where there is one (`2016a`).
    pub year: &'static str,
    /// Title, without its final period.
    pub title: &'static str,
    /// Venue's name (journal, proceedings, publisher), without its final period.
    pub venue: &'static str,
    /// Volume.
    pub volume: Option<&'static str>,
    /// Issue.
    pub issue: Option<&'static str>,
    /// Page range, `first-last`.
    pub pages: Option<&'static str>,
}

impl Item {
    /// Returns the heading level of a heading (`"2.1 Data"` is 2), else `None`.
    pub fn level(&self) -> Option<u8> {
        match self {
            Item::Heading(h) => {
                let number = h.split(' ').next().unwrap_or("");
                Some(1 + number.matches('.').count() as u8)
            }
            _ => None,
        }
    }
}

impl Reference {
    /// Returns the authors as printed: `A`, `A and B`, or `A, B, and C`.
    pub fn author_list(&self) -> String {
        match self.authors {
            [] => String::new(),
            [a] => a.to_string(),
            [a, b] => format!("{a} and {b}"),
            [init @ .., last] => format!("{}, and {last}", init.join(", ")),
        }
    }

    /// Returns the venue as printed: `Name, 14(2):33-51`, `Name, 4:101-118`,
    /// `Name, pages 12-20` or `Name`.
    pub fn printed_venue(&self) -> String {
        match (self.volume, self.issue, self.pages) {
            (Some(v), Some(i), Some(p)) => format!("{}, {v}({i}):{p}", self.venue),
            (Some(v), None, Some(p)) => format!("{}, {v}:{p}", self.venue),
            (None, None, Some(p)) => format!("{}, pages {p}", self.venue),
            (Some(v), _, None) => format!("{}, {v}", self.venue),
            _ => self.venue.to_string(),
        }
    }

    /// Returns the entry as printed in the reference list.
    pub fn entry(&self) -> String {
        format!("{}. {}. {}. {}.", self.author_list(), self.year, self.title, self.printed_venue())
    }

    /// Returns the last name of an author: the final name token.
    pub fn last_name(author: &str) -> &str {
        author.rsplit(' ').next().unwrap_or(author)
    }
}

/// Returns `text` without soft hyphens.
pub(crate) fn clean(text: &str) -> String {
    text.replace('\u{AD}', "")
}
