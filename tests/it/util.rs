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

/// A test that needs a tool or service this machine lacks says why and returns; under
/// `CI=true` that is a failure, because `scripts/test.sh` installs what the tests need.
pub fn skip_or_fail(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("cannot run under CI=true: {why}");
    }
    eprintln!("skipping: {why}");
}

/// The committed sample corpus.
pub fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/papers")
}

/// Returns `../shared/data/<sub>` (or `$CORPUS_SHARED_DATA/<sub>`) if it exists; else a skip
/// ([`skip_or_fail`]: a failure under `CI=true`) and `None`.
pub fn shared_data(sub: &str) -> Option<PathBuf> {
    let root = std::env::var_os("CORPUS_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    let p = root.join(sub);
    if p.is_dir() {
        Some(p)
    } else {
        skip_or_fail(&format!("{} is absent (set CORPUS_SHARED_DATA)", p.display()));
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

/// Writes `copies` variants of each sample paper into `dir`: the paper's PDF with a comment
/// after `%%EOF` (so each variant is a document of its own, by hash) and its PeerRead truth
/// under the variant's name. Returns the number of PDFs written.
pub fn sample_variants(dir: &Path, copies: usize) -> usize {
    std::fs::create_dir_all(dir).unwrap();
    let mut n = 0;
    for p in corpus::sample::papers() {
        for k in 0..copies {
            let name = format!("{}-v{k}", p.name);
            let mut pdf = p.pdf.clone();
            pdf.extend_from_slice(format!("%variant {k}\n").as_bytes());
            std::fs::write(dir.join(format!("{name}.pdf")), pdf).unwrap();
            std::fs::write(dir.join(format!("{name}.pdf.json")), &p.truth_json).unwrap();
            n += 1;
        }
    }
    n
}

/// The (cache key, output blob) pairs of a store: what a run produced, independent of ids.
pub fn output_set(db: &Path) -> Vec<(String, Option<String>, String)> {
    let s = corpus::store::Store::open_read_only(db).unwrap();
    let mut st = s
        .connection()
        .prepare("SELECT cache_key, blob, status FROM outputs ORDER BY cache_key")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// A score by identity: (document hash, provider, suite, metric, value's bits, trace).
pub type ScoreIdentity = (String, String, String, String, Option<u64>, Option<String>);

/// Every score of a store by identity.
pub fn score_set(db: &Path) -> Vec<ScoreIdentity> {
    let s = corpus::store::Store::open_read_only(db).unwrap();
    let mut st = s
        .connection()
        .prepare(
            "SELECT d.blob, o.provider, m.suite, m.metric, m.value, m.trace FROM metrics m
             JOIN outputs o ON o.id = m.output JOIN documents d ON d.id = o.document
             ORDER BY 1, 2, 3, 4",
        )
        .unwrap();
    st.query_map([], |r| {
        let v: Option<f64> = r.get(4)?;
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, v.map(f64::to_bits), r.get(5)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}
