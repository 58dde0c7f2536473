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
    /// How the reference list and the citations are printed.
    pub refs: RefStyle,
    /// How headings are set.
    pub headings: HeadingStyle,
}

/// A reference style: how the list's entries and the citations in the text are printed
/// (`docs/paper-suite.md` §2.1 reads each of them back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefStyle {
    /// ACL: `Hanna Berg and Omar Haddad. 2019. Title. Venue, 14(2):33-51.`, cited
    /// `(Berg and Haddad, 2019)`.
    Acl,
    /// Vancouver (medicine): `1. Berg H, Haddad O. Title. Venue. 2019;14(2):33-51.`, cited `[1]`;
    /// more than six authors are cut to six and `et al.`
    Vancouver,
    /// APA: `Berg, H., & Haddad, O. (2019). Title. Venue, 14(2), 33-51.`, cited
    /// `(Berg & Haddad, 2019)`.
    Apa,
    /// Harvard: `Berg, H. and Haddad, O. (2019) 'Title', Venue, 14(2), pp. 33-51.`, cited
    /// `(Berg and Haddad 2019)`.
    Harvard,
    /// IEEE: `[1] H. Berg and O. Haddad, "Title," Venue, vol. 14, no. 2, pp. 33-51, 2019.`,
    /// cited `[1]`.
    Ieee,
    /// ACM: `[1] Hanna Berg and Omar Haddad. 2019. Title. Venue 14, 2 (2019), 33-51.`, cited
    /// `[1]`.
    Acm,
    /// Nature: `1. Berg, H. & Haddad, O. Title. Venue 14, 33-51 (2019).`, cited `[1]`.
    Nature,
}

impl RefStyle {
    /// Returns whether entries carry a number and the text cites by number.
    pub fn numbered(self) -> bool {
        match self {
            RefStyle::Vancouver | RefStyle::Ieee | RefStyle::Acm | RefStyle::Nature => true,
            RefStyle::Acl | RefStyle::Apa | RefStyle::Harvard => false,
        }
    }
}

/// How headings are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeadingStyle {
    /// Each heading on its own line(s), in bold.
    Block,
    /// A heading followed by a paragraph is run into the paragraph's first line: a section's
    /// in capitals of the body font (`METHODS We ...`), a subsection's in bold with a period
    /// (`Search strategy. We ...`). Other headings are set as blocks.
    RunInCaps,
    /// A heading followed by a paragraph is run in, in bold with a period (`2.1 Methods. We
    /// ...`); other headings are set as blocks.
    RunInBold,
}

/// One element of a paper's body.
#[derive(Debug)]
pub(crate) enum Item {
    /// A heading, `"2.1 Data"`: its level is one more than the dots in its number (1 when it
    /// has none).
    Heading(&'static str),
    /// An unnumbered subsection heading (level 2).
    Subheading(&'static str),
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
    /// Full author names (`Given Names Surname`), or one organisation's name when `org` is
    /// set; empty for a work without an author.
    pub authors: &'static [&'static str],
    /// Whether `authors` holds an organisation's name rather than persons'.
    pub org: bool,
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

impl Source {
    /// Returns a sentence as printed (soft hyphens kept) and its citation markers' spans: each
    /// marker `[@1]`, `[@2,5]` (1-based reference numbers) becomes the style's citation,
    /// `[1]`, `[2, 5]` in a numbered style, `(Berg & Haddad, 2019; Kim et al., 2016)` in an
    /// author-year one. A span is (byte start, byte end, reference index) of one cited
    /// reference's number or name-and-year; a sentence without markers has none.
    pub fn render(&self, sentence: &str) -> (String, Vec<(usize, usize, usize)>) {
        let mut out = String::new();
        let mut spans = Vec::new();
        let mut rest = sentence;
        while let Some(at) = rest.find("[@") {
            out.push_str(&rest[..at]);
            let Some(close) = rest[at..].find(']') else {
                break;
            };
            let ids: Vec<usize> = rest[at + 2..at + close]
                .split(',')
                .filter_map(|n| n.trim().parse::<usize>().ok())
                .filter(|&n| n >= 1 && n <= self.references.len())
                .map(|n| n - 1)
                .collect();
            let numbered = self.refs.numbered();
            out.push(if numbered { '[' } else { '(' });
            for (k, &id) in ids.iter().enumerate() {
                if k > 0 {
                    out.push_str(if numbered { ", " } else { "; " });
                }
                let text = if numbered {
                    (id + 1).to_string()
                } else {
                    self.references[id].author_year(self.refs)
                };
                spans.push((out.len(), out.len() + text.len(), id));
                out.push_str(&text);
            }
            out.push(if numbered { ']' } else { ')' });
            rest = &rest[at + close + 1..];
        }
        out.push_str(rest);
        (out, spans)
    }

    /// Returns a paragraph's sentences as printed, joined by spaces (soft hyphens kept).
    pub fn printed(&self, sentences: &[&str]) -> String {
        sentences.iter().map(|s| self.render(s).0).collect::<Vec<_>>().join(" ")
    }
}

impl Item {
    /// Returns the heading level of a heading (`"2.1 Data"` is 2), else `None`.
    pub fn level(&self) -> Option<u8> {
        match self {
            Item::Heading(h) => {
                let number = h.split(' ').next().unwrap_or("");
                let numbered = number.starts_with(|c: char| c.is_ascii_digit());
                Some(if numbered { 1 + number.matches('.').count() as u8 } else { 1 })
            }
            Item::Subheading(_) => Some(2),
            Item::Para(_) | Item::Table(_) | Item::Equation { .. } => None,
        }
    }
}

impl Reference {
    /// Returns the authors as printed: `A`, `A and B`, or `A, B, and C`.
    pub(crate) fn author_list(&self) -> String {
        let n: Vec<String> = self.authors.iter().map(|a| a.to_string()).collect();
        join_names(&n, " and ", ", and ").unwrap_or_default()
    }

    /// Returns the venue as printed: `Name, 14(2):33-51`, `Name, 4:101-118`,
    /// `Name, pages 12-20` or `Name`.
    pub(crate) fn printed_venue(&self) -> String {
        match (self.volume, self.issue, self.pages) {
            (Some(v), Some(i), Some(p)) => format!("{}, {v}({i}):{p}", self.venue),
            (Some(v), None, Some(p)) => format!("{}, {v}:{p}", self.venue),
            (None, None, Some(p)) => format!("{}, pages {p}", self.venue),
            (Some(v), _, None) => format!("{}, {v}", self.venue),
            _ => self.venue.to_string(),
        }
    }

    /// Returns the entry as printed in an ACL reference list.
    pub fn entry(&self) -> String {
        if self.authors.is_empty() {
            return format!("{}. {}. {}.", self.title, self.year, self.printed_venue());
        }
        format!("{}. {}. {}. {}.", self.author_list(), self.year, self.title, self.printed_venue())
    }

    /// Returns the entry as printed in `style`'s reference list, with its label (`1. `,
    /// `[1] `) where the style numbers entries; `number` is 1-based.
    pub(crate) fn entry_in(&self, style: RefStyle, number: usize) -> String {
        let y = self.year;
        let t = self.title;
        let v = self.venue;
        let (vol, iss) = (self.volume, self.issue);
        let pages = self.pages;
        let names = |f: &dyn Fn(&str, &str) -> String| -> Vec<String> {
            if self.org {
                return self.authors.iter().map(|a| a.to_string()).collect();
            }
            self.authors
                .iter()
                .map(|a| {
                    let (given, surname) = split_name(a);
                    f(given, surname)
                })
                .collect()
        };
        match style {
            RefStyle::Acl => self.entry(),
            RefStyle::Vancouver => {
                let mut n = names(&|g, s| format!("{s} {}", initials(g, "", "")));
                if n.len() > 6 {
                    n.truncate(6);
                    n.push("et al".to_string());
                }
                let who = if n.is_empty() { String::new() } else { format!("{}. ", n.join(", ")) };
                let loc = match (vol, iss, pages) {
                    (Some(v), Some(i), Some(p)) => format!("{y};{v}({i}):{p}"),
                    (Some(v), None, Some(p)) => format!("{y};{v}:{p}"),
                    (Some(v), _, None) => format!("{y};{v}"),
                    (None, _, Some(p)) => format!("{y}. p. {p}"),
                    (None, _, None) => y.to_string(),
                };
                format!("{number}. {who}{t}. {v}. {loc}.")
            }
            RefStyle::Apa => {
                let n = names(&|g, s| format!("{s}, {}", initials(g, ".", " ")));
                let who = join_names(&n, ", & ", ", & ");
                let loc = match (vol, iss, pages) {
                    (Some(v), Some(i), Some(p)) => format!(", {v}({i}), {p}"),
                    (Some(v), None, Some(p)) => format!(", {v}, {p}"),
                    (Some(v), _, None) => format!(", {v}"),
                    (None, _, Some(p)) => format!(" (pp. {p})"),
                    (None, _, None) => String::new(),
                };
                match who {
                    // `Smith, A.` ends in its initial's period.
                    Some(w) => format!("{}. ({y}). {t}. {v}{loc}.", w.trim_end_matches('.')),
                    None => format!("{t}. ({y}). {v}{loc}."),
                }
            }
            RefStyle::Harvard => {
                let n = names(&|g, s| format!("{s}, {}", initials(g, ".", "")));
                let who = join_names(&n, " and ", " and ");
                let loc = match (vol, iss, pages) {
                    (Some(v), Some(i), Some(p)) => format!(", {v}({i}), pp. {p}"),
                    (Some(v), None, Some(p)) => format!(", {v}, pp. {p}"),
                    (Some(v), _, None) => format!(", {v}"),
                    (None, _, Some(p)) => format!(", pp. {p}"),
                    (None, _, None) => String::new(),
                };
                match who {
                    Some(w) => format!("{w} ({y}) '{t}', {v}{loc}."),
                    None => format!("'{t}' ({y}) {v}{loc}."),
                }
            }
            RefStyle::Ieee => {
                let n = names(&|g, s| format!("{} {s}", initials(g, ".", " ")));
                let who =
                    join_names(&n, " and ", ", and ").map_or(String::new(), |w| format!("{w}, "));
                let mut loc = String::new();
                if let Some(v) = vol {
                    loc.push_str(&format!(", vol. {v}"));
                }
                if let Some(i) = iss {
                    loc.push_str(&format!(", no. {i}"));
                }
                if let Some(p) = pages {
                    loc.push_str(&format!(", pp. {p}"));
                }
                format!("[{number}] {who}\"{t},\" {v}{loc}, {y}.")
            }
            RefStyle::Acm => {
                let n = names(&|g, s| format!("{g} {s}"));
                let who =
                    join_names(&n, " and ", ", and ").map_or(String::new(), |w| format!("{w}. "));
                let year = y.get(..4).unwrap_or(y);
                let loc = match (vol, iss, pages) {
                    (Some(v), Some(i), Some(p)) => format!(" {v}, {i} ({year}), {p}"),
                    (Some(v), None, Some(p)) => format!(" {v} ({year}), {p}"),
                    (Some(v), _, None) => format!(" {v} ({year})"),
                    (None, _, Some(p)) => format!(", {p}"),
                    (None, _, None) => String::new(),
                };
                if who.is_empty() {
                    format!("[{number}] {t}. {y}. {v}{loc}.")
                } else {
                    format!("[{number}] {who}{y}. {t}. {v}{loc}.")
                }
            }
            RefStyle::Nature => {
                let n = names(&|g, s| format!("{s}, {}", initials(g, ".", " ")));
                let who = join_names(&n, " & ", " & ").map_or(String::new(), |w| format!("{w} "));
                let who = if self.org { format!("{}. ", who.trim_end()) } else { who };
                let loc = match (vol, pages) {
                    (Some(v), Some(p)) => format!(" {v}, {p}"),
                    (Some(v), None) => format!(" {v}"),
                    (None, Some(p)) => format!(", {p}"),
                    (None, None) => String::new(),
                };
                format!("{number}. {who}{t}. {v}{loc} ({y}).")
            }
        }
    }

    /// Returns how the text cites this reference in an author-year style: `Berg & Haddad, 2019`
    /// (APA), `Berg and Haddad 2019` (Harvard), `Berg and Haddad, 2019` (ACL); an organisation
    /// by its name, a work without authors by its title's first two words.
    pub(crate) fn author_year(&self, style: RefStyle) -> String {
        let last: Vec<&str> = if self.org {
            self.authors.to_vec()
        } else {
            self.authors.iter().map(|a| Reference::last_name(a)).collect()
        };
        let amp = if style == RefStyle::Apa { "&" } else { "and" };
        let who = match last.as_slice() {
            [] => self.title.split(' ').take(2).collect::<Vec<_>>().join(" "),
            [a] => a.to_string(),
            [a, b] => format!("{a} {amp} {b}"),
            [a, ..] => format!("{a} et al."),
        };
        let comma = if style == RefStyle::Harvard { "" } else { "," };
        format!("{who}{comma} {}", self.year)
    }

    /// Returns the last name of an author: the final name token.
    pub(crate) fn last_name(author: &str) -> &str {
        author.rsplit(' ').next().unwrap_or(author)
    }
}

/// Joins names as a reference list prints them: two with `pair` between them (`A and B`),
/// more with `, ` and `last` before the last (`A, B, and C`); `None` for no name.
fn join_names(names: &[String], pair: &str, last: &str) -> Option<String> {
    match names {
        [] => None,
        [a] => Some(a.clone()),
        [a, b] => Some(format!("{a}{pair}{b}")),
        [init @ .., end] => Some(format!("{}{last}{end}", init.join(", "))),
    }
}

/// `Given Names Surname` → (`Given Names`, `Surname`): the surname is the last name token.
pub(crate) fn split_name(a: &str) -> (&str, &str) {
    let surname = Reference::last_name(a);
    (a[..a.len() - surname.len()].trim(), surname)
}

/// Returns the initials of given names, each followed by `dot` and separated by `sep`:
/// `Mary Anne` → `MA` (`"", ""`) or `M. A.` (`".", " "`); a hyphenated name keeps its hyphen
/// (`Jean-Paul` → `J-P`, `J.-P.`).
pub(crate) fn initials(given: &str, dot: &str, sep: &str) -> String {
    given
        .split_whitespace()
        .map(|name| {
            name.split('-')
                .filter_map(|part| part.chars().next())
                .map(|c| format!("{c}{dot}"))
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect::<Vec<_>>()
        .join(sep)
}

/// Returns `text` without soft hyphens.
pub(crate) fn clean(text: &str) -> String {
    text.replace('\u{AD}', "")
}
