//! ParseBench folders (`corpus ingest ParseBench/ --truth parsebench`), in the two layouts its
//! loader reads (`test_cases/loader.py`):
//!
//! - **JSON lines**: `*.jsonl` rule files in the folder, PDFs under its `pdfs/` (or the folder
//!   itself), each line naming its PDF relative to the folder (`pdfs/text/a.pdf`), and
//!   optionally `expected_markdown.json` (`{pdf: markdown}`). A PDF's name is its path under
//!   `pdfs/` without `.pdf` (`text/a`).
//! - **Sidecars** (no `*.jsonl` in the folder): every PDF under it, each with
//!   `<stem>.test.json` beside it (and optionally `<stem>.md`, its Markdown); the category is
//!   the PDF's folder name.
//!
//! Each PDF's truth is one part per category ([`crate::formats::parsebench`]) and its
//! Markdown as part `expected_markdown`. Every line is read as the suite reads it: a malformed
//! line is an error naming the file and line, and the rest goes on. Rule types this build does
//! not run are counted by type ([`Folder::not_run`]), never dropped silently.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::FileError;
use crate::formats::parsebench::{at_line, read_row, read_sidecar, EXPECTED_MARKDOWN};
use crate::metrics::parsebench::is_implemented;

/// A ParseBench folder's truths, by PDF name.
#[derive(Debug, Clone, Default)]
pub struct Folder {
    /// The folder given.
    pub root: PathBuf,
    /// Where its PDFs are collected from.
    pub pdfs: PathBuf,
    /// Whether it is the JSON-lines layout (else sidecars).
    pub jsonl: bool,
    /// PDF name -> part -> (bytes, source path).
    by_pdf: HashMap<String, BTreeMap<String, (Vec<u8>, String)>>,
    /// Malformed lines and files, unreadable files, rules naming a PDF that is not there.
    pub errors: Vec<FileError>,
    /// Rule types this build does not run -> rules of that type.
    pub not_run: BTreeMap<String, u64>,
}

fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.is_file() && p.extension().is_some_and(|e| e == "jsonl"));
    out.sort();
    out
}

fn read_text(path: &Path, what: &str) -> Result<String, FileError> {
    crate::walk::read_regular(path, crate::walk::MAX_TEXT_FILE, what)
        .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8 text".to_string()))
        .map_err(|error| FileError { path: path.display().to_string(), error })
}

/// `a/./b/../c` → `a/c`, lexically.
fn clean(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

impl Folder {
    /// Reads `path` as a ParseBench folder: its layout, and for the JSON-lines layout every
    /// rule line. `None` when it is not a folder.
    pub fn load(path: &Path) -> Option<Folder> {
        if !path.is_dir() {
            return None;
        }
        let files = jsonl_files(path);
        let mut f = Folder {
            root: path.to_path_buf(),
            pdfs: if path.join("pdfs").is_dir() { path.join("pdfs") } else { path.to_path_buf() },
            jsonl: !files.is_empty(),
            ..Default::default()
        };
        if f.jsonl {
            f.load_jsonl(&files);
        }
        Some(f)
    }

    fn count(&mut self, kind: &str) {
        if !is_implemented(kind) {
            *self.not_run.entry(kind.to_string()).or_default() += 1;
        }
    }

    /// The name a line's `pdf` gives: its path under `pdfs/`, without `.pdf`.
    fn name_of(&self, pdf: &str) -> Option<String> {
        let full = clean(&self.root.join(pdf));
        let rel = full.strip_prefix(clean(&self.pdfs)).ok()?;
        let s = rel.to_string_lossy().replace('\\', "/");
        Some(s.strip_suffix(".pdf").unwrap_or(&s).to_string())
    }

    fn load_jsonl(&mut self, files: &[PathBuf]) {
        let mut markdown: HashMap<String, String> = HashMap::new();
        let md_path = self.root.join("expected_markdown.json");
        if md_path.is_file() {
            match read_text(&md_path, "a Markdown map").and_then(|t| {
                serde_json::from_str::<BTreeMap<String, String>>(&t).map_err(|e| FileError {
                    path: md_path.display().to_string(),
                    error: format!("expected an object of Markdown strings: {e}"),
                })
            }) {
                Ok(m) => {
                    for (pdf, md) in m {
                        if let Some(n) = self.name_of(&pdf) {
                            markdown.insert(n, md);
                        }
                    }
                }
                Err(e) => self.errors.push(e),
            }
        }
        // Lines, per (PDF, category), in file order.
        let mut lines: BTreeMap<(String, String), (Vec<u8>, String)> = BTreeMap::new();
        let mut orphans: BTreeMap<String, String> = BTreeMap::new();
        for path in files {
            let shown = path.display().to_string();
            let stem =
                path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let text = match read_text(path, "a rule file") {
                Ok(t) => t,
                Err(e) => {
                    self.errors.push(e);
                    continue;
                }
            };
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let row = match read_row(line, &stem) {
                    Ok(r) => r,
                    Err(e) => {
                        self.errors.push(FileError {
                            path: format!("{shown}:{}", i + 1),
                            error: format!("malformed parsebench rule: {}", at_line(e, i + 1)),
                        });
                        continue;
                    }
                };
                let Some(name) = self.name_of(&row.pdf) else {
                    orphans.entry(row.pdf.clone()).or_insert_with(|| shown.clone());
                    continue;
                };
                if let Some(md) = row.expected_markdown {
                    markdown.entry(name.clone()).or_insert(md);
                }
                let Some(rule) = row.rule else { continue };
                self.count(&rule.kind);
                let e = lines
                    .entry((name, row.category))
                    .or_insert_with(|| (Vec::new(), shown.clone()));
                e.0.extend_from_slice(line.as_bytes());
                e.0.push(b'\n');
            }
        }
        for ((name, category), part) in lines {
            self.by_pdf.entry(name).or_default().insert(category, part);
        }
        for (name, md) in markdown {
            if let Some(parts) = self.by_pdf.get_mut(&name) {
                parts.insert(
                    EXPECTED_MARKDOWN.to_string(),
                    (md.into_bytes(), md_path.display().to_string()),
                );
            }
        }
        for (pdf, from) in orphans {
            self.errors.push(FileError {
                path: from,
                error: format!("rules name {pdf}, which is not under {}", self.pdfs.display()),
            });
        }
    }

    /// After the PDFs are collected: in the JSON-lines layout, names rules whose PDF is not
    /// there; in the sidecar layout, reads each PDF's `<stem>.test.json` (and `<stem>.md`).
    pub fn attach(&mut self, files: &[(PathBuf, String)]) {
        if self.jsonl {
            let names: std::collections::HashSet<&str> =
                files.iter().map(|(_, n)| n.as_str()).collect();
            let mut missing: Vec<(String, String)> = self
                .by_pdf
                .iter()
                .filter(|(n, _)| !names.contains(n.as_str()))
                .map(|(n, parts)| {
                    (n.clone(), parts.values().next().map(|p| p.1.clone()).unwrap_or_default())
                })
                .collect();
            missing.sort();
            for (n, from) in missing {
                self.errors.push(FileError {
                    path: from,
                    error: format!("rules name {n}.pdf, which is not in {}", self.pdfs.display()),
                });
            }
            return;
        }
        for (pdf, name) in files {
            let stem =
                pdf.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let dir = pdf.parent().unwrap_or(Path::new("."));
            let sidecar = dir.join(format!("{stem}.test.json"));
            if !sidecar.is_file() {
                continue;
            }
            let shown = sidecar.display().to_string();
            let text = match read_text(&sidecar, "a test file") {
                Ok(t) => t,
                Err(e) => {
                    self.errors.push(e);
                    continue;
                }
            };
            let (rules, inline_md) = match read_sidecar(text.as_bytes()) {
                Ok(x) => x,
                Err(e) => {
                    self.errors.push(FileError {
                        path: shown,
                        error: format!("malformed parsebench test file: {e}"),
                    });
                    continue;
                }
            };
            for r in &rules {
                self.count(&r.kind);
            }
            // The chart array rules read the CSV beside the PDF in place of their `data`.
            let csv_file = dir.join(format!("{stem}.csv"));
            let text = if csv_file.is_file() {
                match read_text(&csv_file, "a CSV file") {
                    Ok(csv) => crate::formats::parsebench::csv::with_chart_data(&text, &csv)
                        .unwrap_or(text),
                    Err(e) => {
                        self.errors.push(e);
                        text
                    }
                }
            } else {
                text
            };
            let category =
                dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let parts = self.by_pdf.entry(name.clone()).or_default();
            parts.insert(category, (text.into_bytes(), shown.clone()));
            let md_file = dir.join(format!("{stem}.md"));
            let md = match inline_md {
                Some(m) => Some((m, shown)),
                None if md_file.is_file() => match read_text(&md_file, "a Markdown file") {
                    Ok(m) => Some((m, md_file.display().to_string())),
                    Err(e) => {
                        self.errors.push(e);
                        None
                    }
                },
                None => None,
            };
            if let Some((m, from)) = md {
                parts.insert(EXPECTED_MARKDOWN.to_string(), (m.into_bytes(), from));
            }
        }
    }

    /// One PDF's truth parts: (part, bytes, source path); empty when it has no rules.
    pub fn parts(&self, name: &str) -> Vec<(String, Vec<u8>, String)> {
        self.by_pdf
            .get(name)
            .map(|p| p.iter().map(|(k, (b, s))| (k.clone(), b.clone(), s.clone())).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_rules_are_grouped_by_pdf_and_category_and_bad_lines_named() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("pdfs/text")).unwrap();
        std::fs::write(
            d.path().join("text_content.jsonl"),
            concat!(
                r#"{"pdf":"pdfs/text/a.pdf","category":"text_content","id":"1","type":"present","rule":{"text":"x"}}"#,
                "\n",
                r#"{"pdf":"pdfs/text/a.pdf","type":"not_a_rule_type","rule":"{\"label\":\"y\"}"}"#,
                "\n",
                "not json\n",
                r#"{"pdf":"pdfs/text/gone.pdf","type":"present","rule":{"text":"z"}}"#,
                "\n",
            ),
        )
        .unwrap();
        std::fs::write(d.path().join("expected_markdown.json"), r##"{"pdfs/text/a.pdf":"# x"}"##)
            .unwrap();
        let mut f = Folder::load(d.path()).unwrap();
        assert!(f.jsonl);
        let files = vec![(d.path().join("pdfs/text/a.pdf"), "text/a".to_string())];
        f.attach(&files);
        let parts = f.parts("text/a");
        let names: Vec<&str> = parts.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(names, ["expected_markdown", "text_content"]);
        assert_eq!(parts[0].1, b"# x");
        assert_eq!(String::from_utf8_lossy(&parts[1].1).lines().count(), 2);
        assert_eq!(f.not_run, [("not_a_rule_type".to_string(), 1)].into());
        assert_eq!(f.errors.len(), 2, "{:?}", f.errors);
        assert!(f.errors[0].path.ends_with("text_content.jsonl:3"), "{:?}", f.errors);
        assert!(f.errors[1].error.contains("text/gone.pdf"), "{:?}", f.errors);
    }

    #[test]
    fn sidecars_take_their_folder_as_category() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("chart")).unwrap();
        std::fs::write(
            d.path().join("chart/c.test.json"),
            r#"{"test_rules":[{"type":"not_a_rule_type","label":"3"}]}"#,
        )
        .unwrap();
        std::fs::write(d.path().join("chart/c.md"), "| a |").unwrap();
        std::fs::write(d.path().join("chart/bad.test.json"), "{").unwrap();
        let mut f = Folder::load(d.path()).unwrap();
        assert!(!f.jsonl);
        f.attach(&[
            (d.path().join("chart/c.pdf"), "chart/c".into()),
            (d.path().join("chart/bad.pdf"), "chart/bad".into()),
        ]);
        let parts = f.parts("chart/c");
        assert_eq!(
            parts.iter().map(|p| p.0.as_str()).collect::<Vec<_>>(),
            ["chart", "expected_markdown"]
        );
        assert_eq!(f.not_run["not_a_rule_type"], 1);
        assert!(f.errors[0].error.contains("malformed parsebench test file"), "{:?}", f.errors);
    }

    #[test]
    fn a_csv_beside_a_sidecar_is_its_chart_rules_data() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("chart")).unwrap();
        std::fs::write(
            d.path().join("chart/c.test.json"),
            r#"{"test_rules":[{"type":"chart_data_array_data","data":[["x"],["y"]]}]}"#,
        )
        .unwrap();
        std::fs::write(d.path().join("chart/c.csv"), "Title\nYear,Sales\n2021,10\n").unwrap();
        let mut f = Folder::load(d.path()).unwrap();
        f.attach(&[(d.path().join("chart/c.pdf"), "chart/c".into())]);
        let parts = f.parts("chart/c");
        let rules = crate::formats::parsebench::read_part(&parts[0].1).unwrap();
        assert_eq!(rules[0].fields["data"], serde_json::json!([["Year", "Sales"], ["2021", "10"]]));
        let md = "| Year | Sales |\n|---|---|\n| 2021 | 10 |";
        assert!(rules[0].run(md, md).unwrap().passed);
    }
}
