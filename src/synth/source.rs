//! Sources: LaTeX read from `.tex` files, arXiv source tarballs (`.tar.gz`, `.tgz`), gzipped
//! single files (`.gz`, as arXiv serves one-file papers) and pdf-parse-bench truth files
//! (`.json`), all in memory (nothing is extracted to disk). From each, the items a page can
//! show: top-level `tabular`/`tabular*` environments, display math (`$$…$$`, `\[…\]`,
//! `equation`/`equation*`) and inline math (`$…$`, `\(…\)`), cleaned of what is not content.
//! The rules are in `docs/synth.md`.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// What kind of item a candidate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemKind {
    /// A `tabular` or `tabular*` environment.
    Table,
    /// Display math (its body, without delimiters).
    Display,
    /// Inline math (its body, without delimiters).
    Inline,
}

/// One item taken from a source, not yet compiled.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Table, display or inline formula.
    pub kind: ItemKind,
    /// The cleaned LaTeX: a whole `\begin{tabular}…\end{tabular}`, or a formula's body.
    pub latex: String,
    /// Where it came from: the file, and for a tarball the member (`paper.tar.gz:main.tex`).
    pub source: String,
    /// A complexity class the source gives (pdf-parse-bench truth files), if any.
    pub complexity: Option<String>,
}

/// Counts of what reading sources found and dropped.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct SourceStats {
    /// Files read (a tarball counts once).
    pub files: u64,
    /// LaTeX documents read (tarball members included).
    pub tex_files: u64,
    /// Items found, before any was dropped.
    pub found: u64,
    /// Items dropped because they use a macro the source defines itself (it would not expand
    /// without the paper's preamble).
    pub dropped_custom_macro: u64,
    /// Items dropped as unsafe or out of scope (file input, `\write`, catcode changes, too long
    /// or too short).
    pub dropped_other: u64,
    /// Items dropped as repeats of an item already kept.
    pub duplicates: u64,
    /// Files that could not be read, with why.
    pub errors: Vec<(String, String)>,
}

/// The longest LaTeX member or file read (larger ones are reported and skipped).
const MAX_TEX: u64 = 16 << 20;
/// The longest compressed source read.
const MAX_ARCHIVE: u64 = 512 << 20;

/// Reads every source under `paths` (files, or folders searched for `.tex`, `.tar.gz`,
/// `.tgz`, `.gz` and `.json`) and returns its candidates in a fixed order (paths sorted,
/// items in source order), without repeats.
pub(crate) fn read_sources(paths: &[PathBuf]) -> (Vec<Candidate>, SourceStats) {
    let mut stats = SourceStats::default();
    let mut files = Vec::new();
    for p in paths {
        match crate::walk::walk(p, false, &|rel: &Path| kind_of(rel).is_some()) {
            Ok(w) => {
                files.extend(w.files.into_iter().map(|f| f.path));
                for r in w.refused {
                    stats.errors.push((r.path.display().to_string(), r.reason));
                }
            }
            Err(r) => stats.errors.push((r.path.display().to_string(), r.reason)),
        }
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for f in files {
        stats.files += 1;
        let shown = f.display().to_string();
        let mut found = Vec::new();
        if let Err(e) = read_one(&f, &shown, &mut found, &mut stats) {
            stats.errors.push((shown, e));
            continue;
        }
        for c in found {
            if seen.insert((c.kind, c.latex.clone())) {
                out.push(c);
            } else {
                stats.duplicates += 1;
            }
        }
    }
    (out, stats)
}

#[derive(Clone, Copy)]
enum FileKind {
    Tex,
    Tarball,
    Gz,
    Json,
}

fn kind_of(p: &Path) -> Option<FileKind> {
    let name = p.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some(FileKind::Tarball)
    } else if name.ends_with(".gz") {
        Some(FileKind::Gz)
    } else if name.ends_with(".tex") {
        Some(FileKind::Tex)
    } else if name.ends_with(".json") {
        Some(FileKind::Json)
    } else {
        None
    }
}

fn read_one(
    path: &Path,
    shown: &str,
    out: &mut Vec<Candidate>,
    stats: &mut SourceStats,
) -> Result<(), String> {
    let kind = kind_of(path).unwrap_or(FileKind::Tex);
    let limit = if matches!(kind, FileKind::Tex | FileKind::Json) { MAX_TEX } else { MAX_ARCHIVE };
    let bytes = crate::walk::read_regular(path, limit, "a LaTeX source")?;
    match kind {
        FileKind::Tex => {
            stats.tex_files += 1;
            extract(&String::from_utf8_lossy(&bytes), shown, out, stats);
        }
        FileKind::Json => read_truth_json(&bytes, shown, out, stats)?,
        FileKind::Tarball => read_tar(&gunzip(&bytes)?, shown, out, stats)?,
        FileKind::Gz => {
            let raw = gunzip(&bytes)?;
            // arXiv serves a one-file paper gzipped, and a many-file one as a gzipped tar
            // under the same name: a tar header has "ustar" at offset 257.
            if raw.len() > 262 && &raw[257..262] == b"ustar" {
                read_tar(&raw, shown, out, stats)?;
            } else {
                stats.tex_files += 1;
                extract(&String::from_utf8_lossy(&raw), shown, out, stats);
            }
        }
    }
    Ok(())
}

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .take(MAX_ARCHIVE + 1)
        .read_to_end(&mut raw)
        .map_err(|e| format!("not a readable gzip file: {e}"))?;
    if raw.len() as u64 > MAX_ARCHIVE {
        return Err(format!("unpacks to more than {} MiB", MAX_ARCHIVE >> 20));
    }
    Ok(raw)
}

fn read_tar(
    raw: &[u8],
    shown: &str,
    out: &mut Vec<Candidate>,
    stats: &mut SourceStats,
) -> Result<(), String> {
    let mut ar = tar::Archive::new(raw);
    let entries = ar.entries().map_err(|e| format!("not a readable tar archive: {e}"))?;
    let mut members = Vec::new();
    for e in entries {
        let mut e = e.map_err(|e| format!("not a readable tar archive: {e}"))?;
        let name = e.path().map(|p| p.display().to_string()).unwrap_or_default();
        if !e.header().entry_type().is_file() || !name.to_ascii_lowercase().ends_with(".tex") {
            continue;
        }
        if e.size() > MAX_TEX {
            stats.errors.push((format!("{shown}:{name}"), "larger than 16 MiB; skipped".into()));
            continue;
        }
        let mut b = Vec::new();
        e.read_to_end(&mut b).map_err(|e| format!("{name}: cannot read: {e}"))?;
        members.push((name, b));
    }
    // Member order in a tarball is the packer's; sorted, the same sources give the same pages.
    members.sort();
    for (name, b) in members {
        stats.tex_files += 1;
        extract(&String::from_utf8_lossy(&b), &format!("{shown}:{name}"), out, stats);
    }
    Ok(())
}

/// pdf-parse-bench truth (`[{type, data, complexity?}]`): its tables and formulas, with the
/// complexity it gives.
fn read_truth_json(
    bytes: &[u8],
    shown: &str,
    out: &mut Vec<Candidate>,
    stats: &mut SourceStats,
) -> Result<(), String> {
    #[derive(serde::Deserialize)]
    struct Item {
        #[serde(rename = "type")]
        kind: String,
        data: String,
        #[serde(default)]
        complexity: Option<String>,
    }
    let items: Vec<Item> = serde_json::from_slice(bytes)
        .map_err(|e| format!("not a pdf-parse-bench truth file ([{{type, data}}]): {e}"))?;
    stats.tex_files += 1;
    for it in items {
        let (kind, body) = match it.kind.as_str() {
            "table" => (ItemKind::Table, it.data.trim().to_string()),
            "display-formula" => (ItemKind::Display, strip_delims(&it.data, "$$", "$$")),
            "inline-formula" => (ItemKind::Inline, strip_delims(&it.data, "$", "$")),
            _ => continue,
        };
        stats.found += 1;
        push_clean(kind, &body, shown, it.complexity, &BTreeSet::new(), out, stats);
    }
    Ok(())
}

fn strip_delims(s: &str, open: &str, close: &str) -> String {
    let t = s.trim();
    t.strip_prefix(open).and_then(|t| t.strip_suffix(close)).unwrap_or(t).trim().to_string()
}

/// Takes the items of one LaTeX document.
pub(crate) fn extract(src: &str, shown: &str, out: &mut Vec<Candidate>, stats: &mut SourceStats) {
    let text = strip_comments(src);
    let defined = defined_macros(&text);
    // The body only: math and tables in the preamble are macro definitions, not content.
    let body_at = text.find("\\begin{document}").map_or(0, |i| i + "\\begin{document}".len());
    let body = &text[body_at..];
    let b: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '\\' {
            if let Some((env, end)) = begin_at(&b, i) {
                match env.as_str() {
                    "tabular" | "tabular*" => {
                        if let Some(stop) = env_end(&b, i, &env) {
                            let latex: String = b[i..stop].iter().collect();
                            stats.found += 1;
                            push_clean(ItemKind::Table, &latex, shown, None, &defined, out, stats);
                            i = stop;
                            continue;
                        }
                    }
                    "equation" | "equation*" | "displaymath" => {
                        if let Some(stop) = env_end(&b, i, &env) {
                            let close = format!("\\end{{{env}}}").chars().count();
                            let inner: String = b[end..stop - close].iter().collect();
                            stats.found += 1;
                            push_clean(
                                ItemKind::Display,
                                &inner,
                                shown,
                                None,
                                &defined,
                                out,
                                stats,
                            );
                            i = stop;
                            continue;
                        }
                    }
                    _ => {}
                }
                i = end;
                continue;
            }
            match b.get(i + 1) {
                Some('[') | Some('(') => {
                    let (close, kind) = if b[i + 1] == '[' {
                        (['\\', ']'], ItemKind::Display)
                    } else {
                        (['\\', ')'], ItemKind::Inline)
                    };
                    if let Some(j) = find_seq(&b, i + 2, &close) {
                        let inner: String = b[i + 2..j].iter().collect();
                        stats.found += 1;
                        push_clean(kind, &inner, shown, None, &defined, out, stats);
                        i = j + 2;
                        continue;
                    }
                }
                _ => {}
            }
            i += 2;
            continue;
        }
        if c == '$' {
            let display = b.get(i + 1) == Some(&'$');
            let start = if display { i + 2 } else { i + 1 };
            let close: &[char] = if display { &['$', '$'] } else { &['$'] };
            if let Some(j) = find_seq(&b, start, close) {
                let inner: String = b[start..j].iter().collect();
                let kind = if display { ItemKind::Display } else { ItemKind::Inline };
                stats.found += 1;
                push_clean(kind, &inner, shown, None, &defined, out, stats);
                i = j + close.len();
                continue;
            }
            break;
        }
        i += 1;
    }
}

/// Commands that mark an item as unsafe or out of scope for a one-page typeset.
const REFUSED: [&str; 12] = [
    "\\input",
    "\\include",
    "\\write",
    "\\openout",
    "\\immediate",
    "\\catcode",
    "\\def",
    "\\newcommand",
    "\\renewcommand",
    "\\end{document}",
    "\\includegraphics",
    "\\usepackage",
];

/// Cleans one item and keeps it, or counts why it was dropped.
fn push_clean(
    kind: ItemKind,
    raw: &str,
    shown: &str,
    complexity: Option<String>,
    defined: &BTreeSet<String>,
    out: &mut Vec<Candidate>,
    stats: &mut SourceStats,
) {
    let latex = clean(raw);
    let len = latex.chars().count();
    let (lo, hi) = match kind {
        ItemKind::Table => (20, 6000),
        ItemKind::Display => (3, 400),
        ItemKind::Inline => (2, 120),
    };
    if len < lo || len > hi || REFUSED.iter().any(|r| latex.contains(r)) {
        stats.dropped_other += 1;
        return;
    }
    if kind != ItemKind::Table && (latex.contains("\\begin{") || latex.contains('&')) {
        // Aligned or array math is not a single formula for the formula truth.
        stats.dropped_other += 1;
        return;
    }
    if commands(&latex).any(|c| defined.contains(c)) {
        stats.dropped_custom_macro += 1;
        return;
    }
    out.push(Candidate { kind, latex, source: shown.to_string(), complexity });
}

/// Removes what is not content: `\label`, citations, cross-references and `\nonumber`, then
/// collapses the blank space they leave.
pub fn clean(s: &str) -> String {
    const DROP_WITH_ARG: [&str; 14] = [
        "label",
        "cite",
        "citep",
        "citet",
        "citealp",
        "citeauthor",
        "citeyear",
        "ref",
        "eqref",
        "autoref",
        "cref",
        "Cref",
        "pageref",
        "tag",
    ];
    let c: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        if c[i] == '\\' {
            let name_end =
                (i + 1..c.len()).find(|&j| !c[j].is_ascii_alphabetic()).unwrap_or(c.len());
            let name: String = c[i + 1..name_end].iter().collect();
            if name == "nonumber" || name == "notag" {
                i = name_end;
                continue;
            }
            if DROP_WITH_ARG.contains(&name.as_str()) {
                let mut j = name_end;
                if c.get(j) == Some(&'*') {
                    j += 1;
                }
                // Optional arguments, then the one braced argument.
                loop {
                    while c.get(j).is_some_and(|ch| ch.is_whitespace()) {
                        j += 1;
                    }
                    if c.get(j) == Some(&'[') {
                        match (j..c.len()).find(|&k| c[k] == ']') {
                            Some(k) => j = k + 1,
                            None => break,
                        }
                    } else {
                        break;
                    }
                }
                if c.get(j) == Some(&'{') {
                    if let Some(k) = group_end(&c, j) {
                        // A citation or reference leaves a `~` or space before it; drop
                        // that too (a label's neighbours are kept as they are).
                        if name != "label" && name != "tag" {
                            while out.ends_with('~') || out.ends_with(' ') {
                                out.pop();
                            }
                        }
                        i = k;
                        continue;
                    }
                }
            }
            if name_end == i + 1 && i + 1 < c.len() {
                out.push(c[i]);
                out.push(c[i + 1]);
                i += 2;
                continue;
            }
            out.extend(&c[i..name_end]);
            i = name_end;
            continue;
        }
        out.push(c[i]);
        i += 1;
    }
    let trimmed: Vec<&str> =
        out.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()).collect();
    trimmed.join("\n").trim().to_string()
}

/// Removes `%` comments (not `\%`) to the end of their line.
pub(crate) fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        let mut prev_backslashes = 0;
        let mut cut = line.len();
        for (i, ch) in line.char_indices() {
            if ch == '%' && prev_backslashes % 2 == 0 {
                cut = i;
                break;
            }
            prev_backslashes = if ch == '\\' { prev_backslashes + 1 } else { 0 };
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The names of the macros a document defines itself (`\newcommand`, `\renewcommand`,
/// `\providecommand`, `\def`, `\DeclareMathOperator`, `\newcolumntype` is handled by the
/// compile check), so items that use them can be dropped.
fn defined_macros(text: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(
        r"\\(?:(?:re|provide)?newcommand\*?|DeclareMathOperator\*?|DeclareRobustCommand\*?)\s*\{?\s*\\([A-Za-z]+)|\\(?:g|e|x)?def\s*\\([A-Za-z]+)",
    )
    .expect("a valid pattern");
    re.captures_iter(text)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .map(|m| m.as_str().to_string())
        .collect()
}

/// The command names (`\name` → `name`) used in `s`.
fn commands(s: &str) -> impl Iterator<Item = &str> {
    s.match_indices('\\').filter_map(move |(i, _)| {
        let rest = &s[i + 1..];
        let n = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
        (n > 0).then(|| &rest[..n])
    })
}

/// At a `\begin{env}` at `i`: the environment's name and the index after the `}`.
fn begin_at(b: &[char], i: usize) -> Option<(String, usize)> {
    const BEGIN: [char; 7] = ['b', 'e', 'g', 'i', 'n', '{', '_'];
    if b.len() < i + 7 || b[i + 1..i + 7] != BEGIN[..6] {
        return None;
    }
    let close = (i + 7..b.len().min(i + 40)).find(|&j| b[j] == '}')?;
    Some((b[i + 7..close].iter().collect(), close + 1))
}

/// The index after the `\end{env}` that closes the `\begin{env}` at `i` (nested ones of the
/// same name counted).
fn env_end(b: &[char], i: usize, env: &str) -> Option<usize> {
    let open: Vec<char> = format!("\\begin{{{env}}}").chars().collect();
    let close: Vec<char> = format!("\\end{{{env}}}").chars().collect();
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        if b[j..].starts_with(&open) {
            depth += 1;
            j += open.len();
        } else if b[j..].starts_with(&close) {
            depth -= 1;
            j += close.len();
            if depth == 0 {
                return Some(j);
            }
        } else if b[j] == '\\' {
            j += 2;
        } else {
            j += 1;
        }
    }
    None
}

/// The index of the next unescaped `seq` from `from`.
fn find_seq(b: &[char], from: usize, seq: &[char]) -> Option<usize> {
    let mut j = from;
    while j + seq.len() <= b.len() {
        if b[j] == '\\' && seq[0] != '\\' {
            j += 2;
            continue;
        }
        if b[j..].starts_with(seq) {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// The index after the `}` closing the group opened at `i`.
fn group_end(c: &[char], i: usize) -> Option<usize> {
    let mut depth = 0;
    let mut j = i;
    while j < c.len() {
        match c[j] {
            '\\' => j += 1,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAPER: &str = r"\documentclass{article}
\newcommand{\method}{\textsc{Ours}}
\def\R{\mathbb{R}}
\begin{document}
As shown in~\cite{x} and Table~\ref{t}, $x^2 + y^2 = z^2$ holds % a comment $q$
for $\R^n$. The cost is 5\% lower.
\begin{table}\centering
\begin{tabular}{lc}\toprule % rule
A & B \\ \midrule
x & \begin{tabular}{c} 1 \\ 2 \end{tabular} \\ \bottomrule
\end{tabular}
\caption{Results.}\label{t}
\end{table}
\begin{equation}\label{eq:1}
E = mc^2
\end{equation}
\[ \int_0^1 f(x)\,dx \]
\begin{tabular}{l} \method \\ \end{tabular}
$$a+b$$ and \(c_1\).
\end{document}";

    #[test]
    fn items_are_taken_cleaned_and_custom_macros_dropped() {
        let mut out = Vec::new();
        let mut st = SourceStats::default();
        extract(PAPER, "p.tex", &mut out, &mut st);
        let got: Vec<(ItemKind, &str)> = out.iter().map(|c| (c.kind, c.latex.as_str())).collect();
        assert_eq!(
            got,
            [
                (ItemKind::Inline, "x^2 + y^2 = z^2"),
                (
                    ItemKind::Table,
                    "\\begin{tabular}{lc}\\toprule\nA & B \\\\ \\midrule\nx & \\begin{tabular}{c} 1 \\\\ 2 \\end{tabular} \\\\ \\bottomrule\n\\end{tabular}"
                ),
                (ItemKind::Display, "E = mc^2"),
                (ItemKind::Display, "\\int_0^1 f(x)\\,dx"),
                (ItemKind::Display, "a+b"),
                (ItemKind::Inline, "c_1"),
            ]
        );
        // `$\R^n$` and the `\method` table use the paper's own macros.
        assert_eq!(st.dropped_custom_macro, 2);
        assert_eq!(st.found, 8);
    }

    #[test]
    fn citations_and_labels_go_escapes_stay() {
        assert_eq!(clean("a~\\cite[p.~3]{k} b \\label{x}\\% c"), "a b \\% c");
        assert_eq!(strip_comments("a \\% b % c\nd"), "a \\% b \nd\n");
    }

    #[test]
    fn tarballs_and_gzipped_files_are_read_in_memory() {
        use std::io::Write;
        let d = tempfile::tempdir().unwrap();
        let gz = |raw: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(raw).unwrap();
            e.finish().unwrap()
        };
        let mut tb = tar::Builder::new(Vec::new());
        for (name, body) in [("b.tex", "$y_2$"), ("a.tex", "$x_1$"), ("fig.png", "$no$")] {
            let mut h = tar::Header::new_gnu();
            h.set_size(body.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            tb.append_data(&mut h, name, body.as_bytes()).unwrap();
        }
        let tar = tb.into_inner().unwrap();
        std::fs::write(d.path().join("2501.00001.tar.gz"), gz(&tar)).unwrap();
        std::fs::write(d.path().join("2501.00002.gz"), gz(b"$z_3$")).unwrap();
        std::fs::write(d.path().join("bad.tgz"), b"not gzip").unwrap();
        let (c, st) = read_sources(&[d.path().to_path_buf()]);
        let got: Vec<(&str, &str)> =
            c.iter().map(|c| (c.latex.as_str(), c.source.rsplit('/').next().unwrap())).collect();
        assert_eq!(
            got,
            [
                ("x_1", "2501.00001.tar.gz:a.tex"),
                ("y_2", "2501.00001.tar.gz:b.tex"),
                ("z_3", "2501.00002.gz")
            ]
        );
        assert_eq!(st.errors.len(), 1);
        assert!(st.errors[0].0.ends_with("bad.tgz") && st.errors[0].1.contains("gzip"), "{st:?}");
    }
}
