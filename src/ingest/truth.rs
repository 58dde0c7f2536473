//! Ground-truth formats: where each one's file sits beside a PDF, and how it is validated on
//! ingest. Truths are stored verbatim; the suites parse them.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A ground-truth format that `ingest --truth` understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruthFormat {
    /// PeerRead / science-parse JSON: `<name>.pdf.json` beside the PDF or in a sibling
    /// `parsed_pdfs/` folder.
    PeerRead,
}

impl TruthFormat {
    /// Every format.
    pub const ALL: [TruthFormat; 1] = [TruthFormat::PeerRead];

    /// Returns the format's name as stored and typed (`peerread`).
    pub fn as_str(self) -> &'static str {
        match self {
            TruthFormat::PeerRead => "peerread",
        }
    }

    /// Parses a format name.
    pub fn parse(s: &str) -> Option<TruthFormat> {
        TruthFormat::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// Finds the truth file(s) for a PDF: (part, path) pairs, empty if there is none.
    pub fn locate(self, pdf: &Path) -> Vec<(&'static str, PathBuf)> {
        let Some(file) = pdf.file_name().map(|f| f.to_string_lossy().into_owned()) else {
            return Vec::new();
        };
        let dir = pdf.parent().unwrap_or(Path::new("."));
        match self {
            TruthFormat::PeerRead => {
                let beside = dir.join(format!("{file}.json"));
                // PeerRead's own layout: train/pdfs/496.pdf + train/parsed_pdfs/496.pdf.json.
                let sibling =
                    dir.parent().map(|p| p.join("parsed_pdfs").join(format!("{file}.json")));
                std::iter::once(beside)
                    .chain(sibling)
                    .find(|p| p.is_file())
                    .map(|p| ("", p))
                    .into_iter()
                    .collect()
            }
        }
    }

    /// Checks that the bytes are a well-formed file of this format.
    pub fn validate(self, bytes: &[u8]) -> Result<(), String> {
        match self {
            TruthFormat::PeerRead => validate_peerread(bytes),
        }
    }
}

fn validate_peerread(bytes: &[u8]) -> Result<(), String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let meta =
        v.get("metadata").and_then(Value::as_object).ok_or("expected an object at metadata")?;
    let opt_str = |key: &str, val: Option<&Value>| match val {
        None | Some(Value::Null) | Some(Value::String(_)) => Ok(()),
        Some(_) => Err(format!("expected a string or null at {key}")),
    };
    opt_str("metadata.title", meta.get("title"))?;
    opt_str("metadata.abstractText", meta.get("abstractText"))?;
    let array = |key: &str| match meta.get(key) {
        None | Some(Value::Null) => Ok(&[][..]),
        Some(Value::Array(a)) => Ok(a.as_slice()),
        Some(_) => Err(format!("expected an array at metadata.{key}")),
    };
    for (i, s) in array("sections")?.iter().enumerate() {
        opt_str(&format!("metadata.sections[{i}].heading"), s.get("heading"))?;
        if !s.get("text").is_some_and(Value::is_string) {
            return Err(format!("expected a string at metadata.sections[{i}].text"));
        }
    }
    for (i, r) in array("references")?.iter().enumerate() {
        if !r.is_object() {
            return Err(format!("expected an object at metadata.references[{i}]"));
        }
        opt_str(&format!("metadata.references[{i}].title"), r.get("title"))?;
        match r.get("author") {
            None | Some(Value::Null) => {}
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
            Some(_) => {
                return Err(format!(
                    "expected an array of strings at metadata.references[{i}].author"
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peerread_validation_names_the_broken_field() {
        let ok = br#"{"name":"a.pdf","metadata":{"title":"T","sections":[{"heading":null,"text":"x"}],"references":[{"title":"R","author":["A B"]}]}}"#;
        assert_eq!(TruthFormat::PeerRead.validate(ok), Ok(()));
        let bad_text = br#"{"metadata":{"sections":[{"heading":"1","text":3}]}}"#;
        assert_eq!(
            TruthFormat::PeerRead.validate(bad_text).unwrap_err(),
            "expected a string at metadata.sections[0].text"
        );
        let not_json = TruthFormat::PeerRead.validate(b"{\"metadata\": ").unwrap_err();
        assert!(not_json.contains("EOF"), "{not_json}");
        assert!(TruthFormat::PeerRead.validate(b"[]").unwrap_err().contains("metadata"));
    }

    #[test]
    fn peerread_truth_is_found_beside_or_in_parsed_pdfs() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("pdfs")).unwrap();
        std::fs::create_dir_all(d.path().join("parsed_pdfs")).unwrap();
        let pdf = d.path().join("pdfs/496.pdf");
        assert_eq!(TruthFormat::PeerRead.locate(&pdf), vec![]);
        std::fs::write(d.path().join("parsed_pdfs/496.pdf.json"), "{}").unwrap();
        assert_eq!(
            TruthFormat::PeerRead.locate(&pdf),
            vec![("", d.path().join("parsed_pdfs/496.pdf.json"))]
        );
        std::fs::write(d.path().join("pdfs/496.pdf.json"), "{}").unwrap();
        assert_eq!(
            TruthFormat::PeerRead.locate(&pdf),
            vec![("", d.path().join("pdfs/496.pdf.json"))]
        );
    }
}
