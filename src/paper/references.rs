//! Reference-list entries: diacritic repair, author splitting, last names and parsing
//! (`docs/paper-suite.md` §2.1).
//!
//! ACL author-year entries are `Authors. Year. Title. Venue.`; numbered entries
//! (`[1] A. Smith and B. Jones. Title. Venue, 2014.`) are read with the same pieces, the year
//! then being the last one in the entry. A venue's tail gives volume, issue and first page
//! (`Journal, 14(2):33-51`, `Proc. of X, pages 12-20`, `vol. 5, no. 2, pp. 7-9`;
//! `split_venue`), and a DOI anywhere in an entry is its DOI (`find_doi`).

use std::sync::OnceLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use super::Reference;
use crate::normalize::collapse_ws;

/// Returns the combining mark for a spacing diacritic that text layers split off a letter.
fn combining(c: char) -> Option<char> {
    Some(match c {
        '\u{A8}' => '\u{308}',        // ¨
        '\u{B4}' => '\u{301}',        // ´
        '\u{2DC}' | '~' => '\u{303}', // ˜
        '^' | '\u{2C6}' => '\u{302}', // ^ ˆ
        '`' => '\u{300}',             // `
        '\u{B8}' => '\u{327}',        // ¸
        '\u{2C7}' => '\u{30C}',       // ˇ
        '\u{2D8}' => '\u{306}',       // ˘
        '\u{2DA}' => '\u{30A}',       // ˚
        _ => return None,
    })
}

/// Returns the single precomposed char for `base` + `mark`, if Unicode has one.
fn compose(base: char, mark: char) -> Option<char> {
    // A dotless i takes the accent as a dotted one would (`´ı` is how TeX prints `í`).
    let base = if base == 'ı' { 'i' } else { base };
    let mut it = [base, mark].into_iter().nfc();
    let c = it.next()?;
    (it.next().is_none() && c != base).then_some(c)
}

/// Repairs diacritics that a text layer split off their letter: a lone spacing modifier
/// (`¨ ´ ˜ ^ ˆ ` ¸ ˇ ˘ ˚`) loses the white space around it and combines with the letter after
/// it (else the one before it), then the text is NFC-normalized. `Pylkk¨ anen` → `Pylkkänen`.
/// A modifier that combines with neither neighbour is left alone.
pub(crate) fn repair_diacritics(s: &str) -> String {
    if !s.chars().any(|c| combining(c).is_some()) {
        return s.nfc().collect();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let Some(mark) = combining(c) else {
            out.push(c);
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        if let Some(composed) = chars.get(j).and_then(|&n| compose(n, mark)) {
            while out.last() == Some(&' ') {
                out.pop();
            }
            out.push(composed);
            i = j + 1;
            continue;
        }
        let mut k = out.len();
        while k > 0 && out[k - 1] == ' ' {
            k -= 1;
        }
        if let Some(composed) = k.checked_sub(1).and_then(|p| compose(out[p], mark)) {
            out.truncate(k - 1);
            out.push(composed);
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out.into_iter().collect::<String>().nfc().collect()
}

/// Returns an author's last name: the final name token after diacritic repair, without a
/// trailing `.`; for `Last, First` the part before the comma; for Vancouver's `Surname AB`
/// (a final run of one to three capitals without periods) the word before the initials.
pub(crate) fn last_name(author: &str) -> String {
    let a = repair_diacritics(author.trim());
    let a = match a.split_once(',') {
        Some((last, _)) if !last.trim().is_empty() => last.trim().to_string(),
        _ => a,
    };
    let words: Vec<&str> = a.split_whitespace().collect();
    let bare = |w: &str| w.trim_end_matches(['.', ',', ';']).to_string();
    match words.as_slice() {
        [.., prev, last] if is_vancouver_initials(last) && !is_vancouver_initials(prev) => {
            bare(prev)
        }
        [.., last] => bare(last),
        [] => String::new(),
    }
}

/// Returns whether a word is Vancouver's initials: one to three capitals, no periods inside,
/// a hyphenated given name's kept (`AB`, `J`, `AB.`, `J-P`).
fn is_vancouver_initials(word: &str) -> bool {
    let w = word.trim_end_matches(['.', ',', ';']);
    let n = w.chars().filter(|&c| c != '-').count();
    (1..=3).contains(&n)
        && !w.starts_with('-')
        && !w.ends_with('-')
        && !w.contains("--")
        && w.chars().all(|c| c.is_uppercase() || c == '-')
}

/// Name particles that may stand lowercase inside a person's name (`Ludwig van Beethoven`).
const PARTICLES: [&str; 19] = [
    "van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "dos", "das", "le", "la",
    "ten", "ter", "bin", "al", "zu",
];

/// Words that make an author an organisation (`World Health Organization`, `GBD 2019
/// Collaborators`, `The Crow Group`), compared lowercase.
const ORGANISATION_WORDS: [&str; 40] = [
    "organization",
    "organisation",
    "association",
    "society",
    "institute",
    "institutes",
    "group",
    "groups",
    "consortium",
    "collaboration",
    "collaborators",
    "collaborative",
    "committee",
    "agency",
    "council",
    "center",
    "centre",
    "centers",
    "centres",
    "department",
    "ministry",
    "foundation",
    "office",
    "board",
    "union",
    "network",
    "investigators",
    "team",
    "commission",
    "federation",
    "university",
    "program",
    "programme",
    "alliance",
    "academy",
    "college",
    "panel",
    "administration",
    "bureau",
    "authority",
];

/// Returns whether an author string names a person (`Zimmermann MB`, `A. B. Smith`, `Smith,
/// A. B.`, `Ludwig van Beethoven`) rather than an organisation or a title read where the
/// authors stand: it holds no organisation word, no digit, and no lowercase word other than a
/// name particle.
pub(crate) fn is_person(author: &str) -> bool {
    repair_diacritics(author).split_whitespace().all(|w| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        let lower = bare.to_lowercase();
        !bare.chars().any(|c| c.is_ascii_digit())
            && !ORGANISATION_WORDS.contains(&lower.as_str())
            && (bare.chars().next().is_none_or(|c| !c.is_lowercase())
                || PARTICLES.contains(&lower.as_str()))
    })
}

/// The number of words of an organisation's name or a title that make its key.
const NAME_KEY_WORDS: usize = 3;

/// Labels of identifiers and links, which name no work (`PMID: 12345678`).
const IDENTIFIER_LABELS: [&str; 9] =
    ["pmid", "pmcid", "doi", "isbn", "issn", "arxiv", "url", "http", "https"];

/// Returns the name part of a reference key (`docs/paper-suite.md` §2.1) for an author string
/// that is not a person's name, or for a title: its first three words, folded and joined
/// (`World Health Organization` → `worldhealthorganization`). Words with a digit (numbers,
/// identifiers, years) and identifier labels are skipped, so an entry of identifiers only
/// gives an empty name.
pub(crate) fn words_key(text: &str) -> String {
    let t = repair_diacritics(text);
    t.split_whitespace()
        .map(crate::paper::fold_name)
        .filter(|w| {
            !w.is_empty()
                && !w.chars().any(|c| c.is_ascii_digit())
                && !IDENTIFIER_LABELS.contains(&w.as_str())
        })
        .take(NAME_KEY_WORDS)
        .collect()
}

/// Returns whether a word is an initial or a run of them (`R.`, `R.J.`, `J.-P.`, `R`).
fn is_initials(word: &str) -> bool {
    let w = word.trim_end_matches(['.', ',']);
    !w.is_empty()
        && w.split(['.', '-']).all(|p| p.is_empty() || p.chars().count() == 1)
        && w.chars().next().is_some_and(char::is_uppercase)
}

/// Splits an author list on `,`, ` and ` and `&`; `Last, F.` pairs become `F. Last`; `et al.`
/// is dropped.
pub(crate) fn split_authors(s: &str) -> Vec<String> {
    let s = et_al().replace_all(s, ",");
    let s = s.replace(" & ", ", ").replace(" and ", ", ");
    let mut out: Vec<String> = Vec::new();
    let mut merged_last = false;
    for part in s.split([',', ';']) {
        let p = part.trim();
        let p = p.strip_prefix("and ").unwrap_or(p).trim();
        if p.is_empty() || p == "et al." || p == "et al" {
            continue;
        }
        let initials_only = p.split_whitespace().all(is_initials);
        match out.last_mut() {
            Some(prev) if initials_only && !merged_last => {
                *prev = format!("{p} {prev}");
                merged_last = true;
            }
            _ => {
                out.push(p.to_string());
                merged_last = false;
            }
        }
    }
    out
}

/// Matches `et al.` (and `et al`) as a word.
fn et_al() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"\bet\s+al\b\.?").unwrap())
}

/// Matches an entry that opens in Vancouver form: a surname, then its initials as capitals
/// without periods (a hyphenated name's kept, `J-P`), then `,` (`Smith J, ...`), or two or
/// three of them then `.` (`Zimmermann MB. ...`). One capital and a `.` is a middle initial
/// (`Alice B. Smith`), unless a title follows (see [`opens_vancouver`]).
fn vancouver() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"^(?:\p{Lu}|\p{Ll}+ )[\p{L}'’-]+(?: [\p{L}'’-]+)*? (?:\p{Lu}(?:-?\p{Lu}){0,2},|\p{Lu}(?:-?\p{Lu}){1,2}\.)",
        )
        .unwrap()
    })
}

/// Matches a one-word surname, one initial and `.`, then two words, the second lowercase:
/// `Nyström Å. Measuring reading ...`, a single author in Vancouver form followed by a title.
fn vancouver_single() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^\p{Lu}[\p{L}'’-]+ \p{Lu}\. \p{Lu}[\p{L}'’-]* (\p{Ll}+)").unwrap()
    })
}

/// Returns whether an entry opens in Vancouver form: [`vancouver`], or a single author's
/// `Surname A.` followed by a title (a capitalised word, then a lowercase one that is not
/// `and`, `et` or a name particle, as in `Alice B. Smith and ...`).
fn opens_vancouver(s: &str) -> bool {
    if vancouver().is_match(s) {
        return true;
    }
    vancouver_single().captures(s).is_some_and(|c| {
        let w = c.get(1).map_or("", |m| m.as_str());
        w != "and" && w != "et" && !PARTICLES.contains(&w)
    })
}

/// A year found in an entry: byte range and text (with its letter).
pub(crate) struct YearAt {
    /// Byte offset of the first digit.
    pub start: usize,
    /// Byte offset just past the year (and its letter).
    pub end: usize,
}

/// Finds the years in `s`: four digits from 1500 to 2099 plus an optional lowercase letter,
/// not inside a longer word or number.
pub(crate) fn find_years(s: &str) -> Vec<YearAt> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i + 4 <= b.len() {
        let ok_before = i == 0 || !(b[i - 1].is_ascii_alphanumeric());
        if ok_before && b[i..i + 4].iter().all(u8::is_ascii_digit) {
            let y: u32 = s[i..i + 4].parse().unwrap_or(0);
            let mut e = i + 4;
            if e < b.len() && b[e].is_ascii_lowercase() {
                e += 1;
            }
            let ok_after = e == b.len() || !b[e].is_ascii_alphanumeric();
            if ok_after && (1500..2100).contains(&y) {
                v.push(YearAt { start: i, end: e });
                i = e;
                continue;
            }
        }
        i += 1;
    }
    v
}

/// Strips a leading list label: `[12]`, `(12)`, `12.` or `12 `.
fn strip_label(s: &str) -> &str {
    let t = s.trim_start();
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(rest) = t.strip_prefix(open) {
            if let Some(p) = rest.find(close) {
                if p > 0 && rest[..p].chars().all(|c| c.is_ascii_digit()) {
                    return rest[p + 1..].trim_start();
                }
            }
        }
    }
    let d = t.chars().take_while(char::is_ascii_digit).count();
    if d > 0 && d <= 3 {
        let rest = &t[d..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(' ')) {
            return r.trim_start();
        }
    }
    t
}

/// Returns the byte index where the author block ends: the first `.` that follows a word which
/// is not an initial (nor `Jr`, `St`), or the `.` of `et al.`, or a `“`/`"` that opens a
/// quoted title. In an entry that opens in Vancouver form (`Smith J, Jones K. Title.`),
/// initials without periods end the block too.
fn author_block_end(s: &str) -> usize {
    let b = s.as_bytes();
    let vancouver = opens_vancouver(s);
    for (i, c) in s.char_indices() {
        if c == '"' || c == '“' {
            return i;
        }
        if c != '.' {
            continue;
        }
        let next_ok = i + 1 >= b.len() || b[i + 1] == b' ';
        if !next_ok {
            continue;
        }
        let word_start = s[..i].rfind(' ').map_or(0, |p| p + 1);
        let word = &s[word_start..=i];
        let bare = word.trim_start_matches(|c: char| !c.is_alphanumeric());
        if bare == "al." && s[..word_start].trim_end().ends_with("et") {
            return i;
        }
        let vancouver_end = vancouver && is_vancouver_initials(bare);
        if !vancouver_end && (is_initials(bare) || matches!(bare, "Jr." | "jr." | "St." | "Sr.")) {
            continue;
        }
        return i;
    }
    s.len()
}

/// Parses one reference-list entry (label, if any, stripped) after diacritic repair. The
/// venue is the entry's tail as printed (locators and all, see [`split_venue`]); a DOI anywhere
/// in the entry is taken as the DOI.
pub(crate) fn parse_reference(entry: &str) -> Reference {
    let s = repair_diacritics(&collapse_ws(entry));
    let doi = find_doi(&s).map(|(_, _, d)| d);
    let s = strip_label(&s);
    let years = find_years(s);
    let block_end = author_block_end(s);
    let trim_tail = |t: &str| t.trim_end_matches([' ', '.', ',', '(', ':', ';']).to_string();
    let trim_head = |t: &str| t.trim_start_matches([' ', '.', ',', ')', ':', ';']).to_string();
    // ACL style: the first year comes right after the author block.
    if let Some(y) = years.first().filter(|y| y.start <= block_end + 3) {
        let authors = split_authors(&trim_tail(&s[..y.start]));
        let (title, venue) = title_and_venue(&trim_head(&s[y.end..]));
        let year = Some(s[y.start..y.end].to_string());
        return Reference { title, authors, venue, year, doi, ..Reference::default() };
    }
    let authors = split_authors(&trim_tail(&s[..block_end]));
    let rest = trim_head(&s[block_end.min(s.len())..]);
    let (title, venue) = title_and_venue(&rest);
    let year = years.last().map(|y| s[y.start..y.end].to_string());
    Reference { title, authors, venue, year, doi, ..Reference::default() }
}

/// A venue string split into its name and the locators in its tail.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VenueParts {
    /// The venue's name (`Journal of Document Studies`).
    pub name: Option<String>,
    /// The volume.
    pub volume: Option<String>,
    /// The issue.
    pub issue: Option<String>,
    /// The first page.
    pub first_page: Option<String>,
}

fn regexes() -> &'static [Regex; 5] {
    static R: OnceLock<[Regex; 5]> = OnceLock::new();
    R.get_or_init(|| {
        let page = r"([A-Za-z]?\d+)";
        [
            // 14(2):33-51, 14 (2), 33-51
            Regex::new(&format!(
                r"(\d+)\s*\((\d+(?:[-–/]\d+)?)\)\s*(?:[:,]\s*(?:pp?\.?\s*)?{page})?"
            ))
            .unwrap(),
            // 4:101-118
            Regex::new(&format!(r"(\d+)\s*:\s*{page}")).unwrap(),
            // vol. 5, Vol 5, Volume 5
            Regex::new(r"(?i)\bvol(?:ume)?\.?\s*(\d+)").unwrap(),
            // no. 2, issue 2, number 2
            Regex::new(r"(?i)\b(?:no|issue|number|nr)\.?\s*(\d+)").unwrap(),
            // pages 12-20, pp. 12-20, p. 12
            Regex::new(&format!(r"(?i)\b(?:pages|pp?)\.?\s*{page}")).unwrap(),
        ]
    })
}

/// Splits a venue string into its name and the volume, issue and first page its tail holds:
/// `Journal of Document Studies, 14(2):33-51` → `Journal of Document Studies`, 14, 2, 33;
/// `Proceedings of X, pages 12-20` → `Proceedings of X`, page 12; `Transactions on Y, 4:101-118`
/// → volume 4, page 101; `IEEE T. Z, vol. 5, no. 2, pp. 7-9`. The name is the text before the
/// first locator. A venue without locators is its own name.
pub(crate) fn split_venue(venue: &str) -> VenueParts {
    let v = collapse_ws(venue);
    let [vip, vp, vol, no, pages] = regexes();
    let mut out = VenueParts::default();
    let mut first = v.len();
    // The compact forms first; the worded ones fill what is left.
    if let Some(c) = vip.captures(&v) {
        out.volume = Some(c[1].to_string());
        out.issue = Some(c[2].to_string());
        out.first_page = c.get(3).map(|m| m.as_str().to_string());
        first = first.min(c.get(0).map_or(first, |m| m.start()));
    } else if let Some(c) = vp.captures(&v) {
        out.volume = Some(c[1].to_string());
        out.first_page = Some(c[2].to_string());
        first = first.min(c.get(0).map_or(first, |m| m.start()));
    }
    for (re, slot) in [(vol, 0), (no, 1), (pages, 2)] {
        let field = match slot {
            0 => &mut out.volume,
            1 => &mut out.issue,
            _ => &mut out.first_page,
        };
        if field.is_some() {
            continue;
        }
        if let Some(c) = re.captures(&v) {
            *field = Some(c[1].to_string());
            first = first.min(c.get(0).map_or(first, |m| m.start()));
        }
    }
    let name = v[..first].trim().trim_end_matches([',', ';', ':', '.', ' ']).trim();
    let name = name.strip_prefix("In ").unwrap_or(name).trim();
    out.name = (!name.is_empty()).then(|| name.to_string());
    out
}

/// Finds a DOI in a text: `10.<registrant>/<suffix>`, with a `doi:`, `DOI` or resolver
/// (`https://doi.org/`) prefix if there is one. Returns the byte range of the whole mention
/// (prefix included) and the DOI without its trailing punctuation.
pub(crate) fn find_doi(text: &str) -> Option<(usize, usize, String)> {
    static R: OnceLock<Regex> = OnceLock::new();
    let re = R.get_or_init(|| {
        Regex::new(r"(?i)(?:(?:https?://)?(?:dx\.)?doi\.org/|\bdoi\s*:?\s*)?\b(10\.\d{4,9}/[^\s]+)")
            .unwrap()
    });
    let c = re.captures(text)?;
    let whole = c.get(0)?;
    let doi = c[1].trim_end_matches(['.', ',', ';', ')', ']']);
    let end = c.get(1)?.start() + doi.len();
    Some((whole.start(), end, doi.to_string()))
}

/// Splits what follows the year (or the authors): a quoted title, or the text up to the first
/// sentence end; the rest is the venue (`In ` and the final `.` removed).
fn title_and_venue(rest: &str) -> (Option<String>, Option<String>) {
    let rest = rest.trim();
    let non_empty = |t: &str| {
        let t = t.trim().trim_end_matches(['.', ',']).trim();
        let t = t.strip_prefix("In ").unwrap_or(t).trim();
        (!t.is_empty()).then(|| t.to_string())
    };
    for (open, close) in [('“', '”'), ('"', '"')] {
        if let Some(r) = rest.strip_prefix(open) {
            if let Some(p) = r.find(close) {
                let title = r[..p].trim().trim_end_matches(',');
                return (non_empty(title), non_empty(&r[p + close.len_utf8()..]));
            }
        }
    }
    let mut end = None;
    for (i, c) in rest.char_indices() {
        if matches!(c, '.' | '?' | '!') && rest[i + 1..].starts_with(' ') {
            end = Some(i);
            break;
        }
    }
    match end {
        Some(i) => {
            let keep = if rest[i..].starts_with('.') { i } else { i + 1 };
            (non_empty(&rest[..keep]), non_empty(&rest[i + 1..]))
        }
        None => (non_empty(rest), None),
    }
}

/// Returns an entry in ACL form, `Authors. Year. Title. Venue.`, which [`parse_reference`]
/// reads back to the same authors, year, title and venue.
pub(crate) fn format_reference(r: &Reference) -> String {
    let mut out = String::new();
    let names: Vec<&str> = r.authors.iter().map(|a| a.trim()).collect();
    match names.len() {
        0 => {}
        1 => out.push_str(names[0]),
        2 => {
            out.push_str(names[0]);
            out.push_str(" and ");
            out.push_str(names[1]);
        }
        n => {
            for a in &names[..n - 1] {
                out.push_str(a);
                out.push_str(", ");
            }
            out.push_str("and ");
            out.push_str(names[n - 1]);
        }
    }
    let push_part = |out: &mut String, p: &str| {
        if p.is_empty() {
            return;
        }
        if !out.is_empty() {
            if !out.ends_with('.') {
                out.push('.');
            }
            out.push(' ');
        }
        out.push_str(p);
    };
    push_part(&mut out, r.year.as_deref().unwrap_or(""));
    push_part(&mut out, r.title.as_deref().unwrap_or(""));
    let mut venue = r.venue.clone().unwrap_or_default();
    let mut locators = String::new();
    if let Some(v) = &r.volume {
        locators.push_str(v);
        if let Some(i) = &r.issue {
            locators.push_str(&format!("({i})"));
        }
        if let Some(p) = &r.first_page {
            locators.push_str(&format!(":{p}"));
        }
    } else {
        if let Some(i) = &r.issue {
            locators.push_str(&format!("no. {i}"));
        }
        if let Some(p) = &r.first_page {
            if !locators.is_empty() {
                locators.push_str(", ");
            }
            locators.push_str(&format!("pages {p}"));
        }
    }
    if !locators.is_empty() {
        if !venue.is_empty() {
            venue.push_str(", ");
        }
        venue.push_str(&locators);
    }
    if !venue.is_empty() {
        push_part(&mut out, &format!("In {venue}"));
    }
    if let Some(d) = &r.doi {
        push_part(&mut out, &format!("doi:{d}"));
    }
    if !out.is_empty() && !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// Splits one block of reference-list text into entries: at every `[n]` label that starts a
/// line or follows white space when the block starts with one, else the block is one entry.
pub(crate) fn split_entries(text: &str) -> Vec<String> {
    let t = text.trim();
    if t.is_empty() {
        return Vec::new();
    }
    if !t.starts_with('[') || strip_label(t).len() == t.len() {
        return vec![collapse_ws(t)];
    }
    let mut starts = Vec::new();
    let b = t.as_bytes();
    for (i, _) in t.match_indices('[') {
        let prev_ok = i == 0 || b[i - 1].is_ascii_whitespace();
        let rest = &t[i + 1..];
        let d = rest.bytes().take_while(u8::is_ascii_digit).count();
        if prev_ok && d > 0 && rest[d..].starts_with(']') {
            starts.push(i);
        }
    }
    starts.push(t.len());
    starts.windows(2).map(|w| collapse_ws(&t[w[0]..w[1]])).filter(|e| !e.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diacritics_split_off_by_the_text_layer_are_repaired() {
        assert_eq!(repair_diacritics("Liina Pylkk¨ anen"), "Liina Pylkkänen");
        assert_eq!(repair_diacritics("Mart´ ınez"), "Martínez");
        assert_eq!(repair_diacritics("Dvoˇ r´ ak"), "Dvořák");
        // Per the rule, spaces around a lone modifier go even in `a ^ b`; `x^2` has no letter to take it.
        assert_eq!(repair_diacritics("x^2 and a ^ b"), "x^2 and âb");
        assert_eq!(repair_diacritics("plain"), "plain");
    }

    #[test]
    fn last_names() {
        assert_eq!(last_name("Helmut Schmid."), "Schmid");
        assert_eq!(last_name("Liina Pylkk¨ anen."), "Pylkkänen");
        assert_eq!(last_name("Bar-Haim, R."), "Bar-Haim");
        assert_eq!(last_name("Marco Antonio Valenzuela"), "Valenzuela");
    }

    #[test]
    fn authors_split_on_commas_and_and() {
        assert_eq!(
            split_authors("Jenny Rose Finkel, Trond Grenager, and Christopher Manning"),
            vec!["Jenny Rose Finkel", "Trond Grenager", "Christopher Manning"]
        );
        assert_eq!(
            split_authors("Bar-Haim, R., Dagan, I. and Szpektor, I."),
            vec!["R. Bar-Haim", "I. Dagan", "I. Szpektor"]
        );
        assert_eq!(split_authors("A. Smith & B. Jones"), vec!["A. Smith", "B. Jones"]);
    }

    #[test]
    fn acl_entries_parse() {
        let r = parse_reference(
            "Liina Pylkk¨ anen. 2008. Mismatching meanings in brain and behavior. \
             Language and Linguistics Compass.",
        );
        assert_eq!(r.authors, vec!["Liina Pylkkänen"]);
        assert_eq!(r.year.as_deref(), Some("2008"));
        assert_eq!(r.title.as_deref(), Some("Mismatching meanings in brain and behavior"));
        assert_eq!(r.venue.as_deref(), Some("Language and Linguistics Compass"));
        assert_eq!(r.key(), Some(("pylkkanen".into(), "2008".into())));

        let r = parse_reference(
            "Arfath Pasha, Mohamed Al-Badrashiny, and Owen Rambow. 2016a. MADAMIRA: A fast \
             system. In Proceedings of LREC.",
        );
        assert_eq!(r.authors.len(), 3);
        assert_eq!(r.year.as_deref(), Some("2016a"));
        assert_eq!(r.title.as_deref(), Some("MADAMIRA: A fast system"));
        assert_eq!(r.venue.as_deref(), Some("Proceedings of LREC"));

        let r = parse_reference(
            "1. Bar-Haim, R., Dagan, I. and Szpektor, I. 2006. The Second PASCAL Challenge. \
             In Proceedings of the Workshop, Venice, Italy.",
        );
        // The author block's closing `.` goes with the separator.
        assert_eq!(r.authors, vec!["R. Bar-Haim", "I. Dagan", "I Szpektor"]);
        assert_eq!(r.key(), Some(("barhaim".into(), "2006".into())));
    }

    #[test]
    fn numbered_entries_parse() {
        let r = parse_reference(
            "[3] A. Smith and B. Jones. Learning to parse. In Proc. of ACL, pages 1-9, 2014.",
        );
        assert_eq!(r.authors, vec!["A. Smith", "B. Jones"]);
        assert_eq!(r.year.as_deref(), Some("2014"));
        assert_eq!(r.title.as_deref(), Some("Learning to parse"));
        let r = parse_reference("[7] K. Lee, “Deep nets,” Nature, vol. 5, 2015.");
        assert_eq!(r.authors, vec!["K. Lee"]);
        assert_eq!(r.title.as_deref(), Some("Deep nets"));
        assert_eq!(r.year.as_deref(), Some("2015"));
    }

    #[test]
    fn format_reads_back() {
        let r = Reference {
            title: Some("A title".into()),
            authors: vec!["Ann Lee".into(), "Bo Wu".into(), "Cy Ode".into()],
            venue: Some("Proceedings of ACL".into()),
            year: Some("2016b".into()),
            ..Reference::default()
        };
        assert_eq!(parse_reference(&format_reference(&r)), r);
    }

    #[test]
    fn entries_split_at_labels() {
        assert_eq!(
            split_entries("[1] A. 2001. T.\n[2] B. 2002. U."),
            vec!["[1] A. 2001. T.", "[2] B. 2002. U."]
        );
        assert_eq!(split_entries("Smith, J. 2001. T [1]."), vec!["Smith, J. 2001. T [1]."]);
    }

    fn key(entry: &str) -> Option<(String, String)> {
        parse_reference(entry).key()
    }

    fn k(name: &str, year: &str) -> Option<(String, String)> {
        Some((name.to_string(), year.to_string()))
    }

    /// One hand-written entry per common style (`docs/paper-suite.md` §2.1, issue 40).
    #[test]
    fn r40_every_common_style_is_keyed() {
        // Vancouver (medicine): surname and initials without periods, year after the journal.
        let v =
            "2. Zimmermann MB, Hurrell RF. Nutritional iron deficiency. Lancet 2007;370:511e20.";
        assert_eq!(key(v), k("zimmermann", "2007"));
        assert_eq!(parse_reference(v).title.as_deref(), Some("Nutritional iron deficiency"));
        let v1 = "Smith J, Jones K. Iron in the diet. BMJ. 2010;340:c12.";
        assert_eq!(key(v1), k("smith", "2010"));
        assert_eq!(parse_reference(v1).title.as_deref(), Some("Iron in the diet"));
        let v2 = "Smith J, Jones K, Lee D, et al. Iron in the diet. BMJ. 2010;340:c12.";
        assert_eq!(key(v2), k("smith", "2010"));
        assert_eq!(parse_reference(v2).authors, ["Smith J", "Jones K", "Lee D"]);
        // APA and Harvard: `Surname, A. B.`, year in parentheses after the authors.
        let apa = "Smith, A. B., & Jones, C. (2010). Iron in the diet. Journal of X, 1(2), 3–4.";
        assert_eq!(key(apa), k("smith", "2010"));
        assert_eq!(parse_reference(apa).title.as_deref(), Some("Iron in the diet"));
        let harvard =
            "Smith, A.B. and Jones, C. (2010) Iron in the diet. Journal of X, 1, pp. 3-4.";
        assert_eq!(key(harvard), k("smith", "2010"));
        // IEEE: initials first, quoted title, year at the end.
        let ieee = r#"[3] A. B. Smith, C. Jones, and D. Lee, "Iron in the diet," in Proc. X, 2010, pp. 1–2."#;
        assert_eq!(key(ieee), k("smith", "2010"));
        // ACM and ACL: full names, year after the authors.
        let acm = "Alice B. Smith and Carl Jones. 2010. Iron in the diet. In Proc. X. 1–2.";
        assert_eq!(key(acm), k("smith", "2010"));
        // Nature: `Surname, A. B. et al.`, year in parentheses at the end.
        let nature = "Smith, A. B. et al. Iron in the diet. Nature 465, 12–15 (2010).";
        assert_eq!(key(nature), k("smith", "2010"));
        assert_eq!(parse_reference(nature).title.as_deref(), Some("Iron in the diet"));
        // Author–year with particles.
        assert_eq!(key("van der Berg J, Smith K. Title. J X. 2001;1:2."), k("berg", "2001"));
        // An organisation keyed from its name, in any style.
        let org = "World Health Organization. Iron deficiency anaemia. Geneva: WHO; 2001.";
        assert_eq!(key(org), k("worldhealthorganization", "2001"));
        let collab = Reference {
            authors: vec!["World Health Organization".into()],
            year: Some("2001".into()),
            ..Reference::default()
        };
        assert_eq!(collab.key(), key(org));
        // No author: the title's first words; the entry printed as text agrees.
        let untitled = Reference {
            title: Some("Global tuberculosis report 2015".into()),
            year: Some("2015".into()),
            ..Reference::default()
        };
        assert_eq!(untitled.key(), k("globaltuberculosisreport", "2015"));
        assert_eq!(key("Global tuberculosis report 2015. Geneva: WHO; 2015."), untitled.key());
        // Nothing to key: identifiers only.
        let ids = Reference { doi: Some("10.1000/xyz".into()), ..Reference::default() };
        assert_eq!(ids.key(), None);
        assert_eq!(key("PMID: 12345678."), None);
    }

    #[test]
    fn persons_organisations_and_titles() {
        assert!(is_person("Zimmermann MB"));
        assert!(is_person("Ludwig van Beethoven"));
        assert!(is_person("Smith, A. B."));
        assert!(!is_person("World Health Organization"));
        assert!(!is_person("GBD 2019 Collaborators"));
        assert!(!is_person("Global tuberculosis report"));
        assert_eq!(last_name("Zimmermann MB"), "Zimmermann");
        assert_eq!(last_name("Smith J."), "Smith");
        assert_eq!(last_name("A. B. Smith"), "Smith");
        assert_eq!(last_name("WHO"), "WHO");
    }
}
