//! olmOCR-bench folders: `pdfs/` (one-page PDFs, possibly in subfolders) beside `*.jsonl`
//! test files. Each PDF's truth is its tests, one part per JSONL file (the file's stem is the
//! tests' group), the lines kept verbatim. Every line is validated as the scorer reads it
//! ([`crate::metrics::olmocr::load_test`]); a malformed line is a per-line error naming the file
//! and the line, and the rest of the batch goes on.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::FileError;
use crate::metrics::olmocr::load_test;

/// Where a bench folder keeps its PDFs and its tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchFolders {
    /// The folder the PDFs are named relative to (`bench/pdfs`).
    pub pdfs: PathBuf,
    /// The folder holding the `*.jsonl` files (`bench`).
    pub tests: PathBuf,
}

impl BenchFolders {
    /// Reads an ingest path as a bench folder: `DIR` with a `pdfs/` subfolder, or the `pdfs/`
    /// folder itself (tests in its parent). `None` for anything else.
    pub fn find(path: &Path) -> Option<BenchFolders> {
        if path.join("pdfs").is_dir() {
            return Some(BenchFolders { pdfs: path.join("pdfs"), tests: path.to_path_buf() });
        }
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        (path.is_dir() && !jsonl_files(parent).is_empty())
            .then(|| BenchFolders { pdfs: path.to_path_buf(), tests: parent.to_path_buf() })
    }
}

/// One test line, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestLine {
    /// The test's id.
    pub id: String,
    /// Its `type`.
    pub kind: String,
    /// The line, verbatim.
    pub line: String,
}

/// The tests of a bench folder, by PDF name (the `pdf` field without `.pdf`) and group.
#[derive(Debug, Clone, Default)]
pub struct BenchTests {
    /// PDF name -> group -> lines, in file order.
    pub by_pdf: HashMap<String, BTreeMap<String, Vec<TestLine>>>,
    /// Malformed lines (path `file.jsonl:LINE`) and unreadable files.
    pub errors: Vec<FileError>,
    /// Where each PDF's tests came from, for messages: PDF name -> JSONL paths.
    pub sources: HashMap<String, BTreeSet<String>>,
}

impl BenchTests {
    /// Returns one PDF's truth parts: (group, verbatim JSONL, source path). A PDF without tests
    /// gets one empty part named `""`, so that it is still scored (by the default baseline
    /// test the runner adds for every PDF).
    pub fn parts(&self, name: &str) -> Vec<(String, Vec<u8>, String)> {
        let Some(groups) = self.by_pdf.get(name) else {
            return vec![(String::new(), Vec::new(), String::new())];
        };
        groups
            .iter()
            .map(|(g, lines)| {
                let mut bytes = Vec::new();
                for l in lines {
                    bytes.extend_from_slice(l.line.as_bytes());
                    bytes.push(b'\n');
                }
                (g.clone(), bytes, format!("{g}.jsonl"))
            })
            .collect()
    }

    /// Returns the attributes a PDF gets: `olmocr_group` (its groups) and `test_type` (the
    /// types of its tests), each sorted and joined by `,`; `baseline` for a PDF without tests.
    pub fn attributes(&self, name: &str) -> Vec<(String, String)> {
        let Some(groups) = self.by_pdf.get(name) else {
            return vec![
                ("olmocr_group".into(), "baseline".into()),
                ("test_type".into(), "baseline".into()),
            ];
        };
        let types: BTreeSet<&str> = groups.values().flatten().map(|l| l.kind.as_str()).collect();
        vec![
            ("olmocr_group".into(), groups.keys().cloned().collect::<Vec<_>>().join(",")),
            ("test_type".into(), types.into_iter().collect::<Vec<_>>().join(",")),
        ]
    }
}

fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.is_file() && p.extension().is_some_and(|e| e == "jsonl"));
    out.sort();
    out
}

/// Reads and validates every `*.jsonl` file in `dir`. Duplicate test ids (across all files)
/// are errors, as the reference runner refuses them.
pub fn load(dir: &Path) -> BenchTests {
    let mut out = BenchTests::default();
    let mut seen: HashSet<String> = HashSet::new();
    for path in jsonl_files(dir) {
        let shown = path.display().to_string();
        let group = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let read = crate::walk::read_regular(&path, crate::walk::MAX_TEXT_FILE, "a test file")
            .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8 text".to_string()));
        let text = match read {
            Ok(t) => t,
            Err(error) => {
                out.errors.push(FileError { path: shown, error });
                continue;
            }
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("{shown}:{}", i + 1);
            let bad = |msg: String| FileError {
                path: at.clone(),
                error: format!("malformed olmocr-bench test: {msg}"),
            };
            let test = match load_test(line) {
                Ok(t) => t,
                Err(e) => {
                    out.errors.push(bad(e.to_string()));
                    continue;
                }
            };
            let b = test.base();
            if !seen.insert(b.id.clone()) {
                out.errors.push(bad(format!("duplicate test id {}", b.id)));
                continue;
            }
            let pdf = b.pdf.strip_suffix(".pdf").unwrap_or(&b.pdf).to_string();
            out.sources.entry(pdf.clone()).or_default().insert(shown.clone());
            out.by_pdf.entry(pdf).or_default().entry(group.clone()).or_default().push(TestLine {
                id: b.id.clone(),
                kind: test.type_name().to_string(),
                line: line.to_string(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_grouped_by_pdf_and_file_and_bad_lines_are_named() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("pdfs/sub")).unwrap();
        std::fs::write(
            d.path().join("a.jsonl"),
            concat!(
                r#"{"pdf":"sub/x.pdf","page":1,"id":"t1","type":"present","text":"hi"}"#,
                "\n\n",
                r#"{"pdf":"x.pdf","page":1,"id":"t2","type":"present"}"#,
                "\n",
                r#"{"pdf":"sub/x.pdf","page":1,"id":"t1","type":"absent","text":"no"}"#,
                "\n",
            ),
        )
        .unwrap();
        std::fs::write(
            d.path().join("b.jsonl"),
            r#"{"pdf":"sub/x.pdf","page":1,"id":"t3","type":"baseline"}"#,
        )
        .unwrap();
        let layout = BenchFolders::find(d.path()).unwrap();
        assert_eq!(layout.pdfs, d.path().join("pdfs"));
        assert_eq!(BenchFolders::find(&d.path().join("pdfs")).unwrap().tests, d.path());
        let t = load(d.path());
        assert_eq!(t.errors.len(), 2, "{:?}", t.errors);
        assert!(t.errors[0].path.ends_with("a.jsonl:3"), "{:?}", t.errors);
        assert!(t.errors[0].error.contains("malformed olmocr-bench test"), "{:?}", t.errors);
        assert!(t.errors[1].error.contains("duplicate test id t1"), "{:?}", t.errors);
        let parts = t.parts("sub/x");
        let groups: Vec<&str> = parts.iter().map(|(g, _, _)| g.as_str()).collect();
        assert_eq!(groups, ["a", "b"]);
        assert_eq!(parts[0].1.iter().filter(|&&b| b == b'\n').count(), 1);
        let attrs = t.attributes("sub/x");
        assert_eq!(attrs[0], ("olmocr_group".to_string(), "a,b".to_string()));
        assert_eq!(attrs[1], ("test_type".to_string(), "baseline,present".to_string()));
        assert_eq!(t.parts("none"), vec![(String::new(), Vec::new(), String::new())]);
    }
}
