//! Helpers for end-to-end tests: running the binary, writing small PDFs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Returns a `corpus` command on the store `db`, with the test-only providers enabled.
pub fn corpus(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_corpus"));
    c.env("CORPUS_DB", db).env("CORPUS_TEST_PROVIDERS", "1").env_remove("CORPUS_LOG");
    c
}

/// Runs the command and returns its output, printing stderr on the way for debugging.
pub fn run(c: &mut Command) -> Output {
    let out = c.output().expect("running corpus");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Parses stdout as JSON.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout))
    })
}

/// The committed sample corpus.
pub fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/papers")
}

/// Returns `../shared/data/<sub>` (or `$CORPUS_SHARED_DATA/<sub>`) if it exists.
pub fn shared_data(sub: &str) -> Option<PathBuf> {
    let root = std::env::var_os("CORPUS_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    let p = root.join(sub);
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipping: {} is absent", p.display());
        None
    }
}

/// A one-page PDF showing `text`, with `extra` (e.g. a `%CORPUS-...` marker comment)
/// appended after `%%EOF`.
pub fn tiny_pdf(text: &str, extra: &str) -> Vec<u8> {
    let mut pdf = corpus::sample::pdf::Pdf::new();
    let mut page = corpus::sample::pdf::PdfPage::new(612.0, 792.0);
    page.text(corpus::sample::pdf::Font::Regular, 10.0, 72.0, 700.0, text);
    pdf.push(page);
    let mut bytes = pdf.to_bytes();
    bytes.extend_from_slice(extra.as_bytes());
    bytes
}

/// A PDF whose trailer names a standard-security /Encrypt dictionary that the empty user
/// password does not open: pdfium must ask for a password.
pub fn encrypted_pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_string(),
        format!(
            "<< /Filter /Standard /V 1 /R 2 /O <{}> /U <{}> /P -4 >>",
            "11".repeat(32),
            "22".repeat(32)
        ),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R /Encrypt 4 0 R /ID [<{id}> <{id}>] >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1,
            id = "ab".repeat(16)
        )
        .as_bytes(),
    );
    out
}
