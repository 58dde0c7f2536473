//! The guide's worked examples are what the current build prints: docs/guide/compare.md's
//! fenced transcripts, each after a `<!-- example: ARGS -->` marker, are the output of
//! `corpus ARGS` on a store this test builds (twelve one-page documents with two tables each,
//! made by the project's PDF writer; provider `p` version 1 reads every table, version 2 drops
//! the second table of every third document and misreads a cell of every third from the
//! second; version 3, a re-run of version 2 on the first three reports only). A drifting
//! example fails here; `CORPUS_UPDATE_SNAPSHOTS=1 cargo test --test it
//! guide` rewrites the transcripts.

use std::path::Path;

use corpus::sample::pdf::{Font, Pdf, PdfPage};

use crate::util::{corpus, run};

const DOCS: usize = 12;

/// Document `i`'s two tables, as the latex-tables truth and as Markdown (version 2's reading
/// where `misread`).
fn tables(i: usize, misread: bool) -> [(String, String); 2] {
    [0, 1].map(|t| {
        let (a, b) = (10 * i + t, 100 + 7 * i + t);
        let latex = format!(
            "\\begin{{tabular}}{{lcc}}\n\\hline\nName & Value & Share \\\\\n\\hline\nalpha{t} & {a} & 0.{t}5 \\\\\nbeta{t} & {b} & 0.{t}7 \\\\\ngamma{t} & {} & 0.{t}9 \\\\\n\\hline\n\\end{{tabular}}",
            a + b
        );
        let seen = if misread && t == 1 { b + 1 } else { b };
        let md = format!(
            "| Name | Value | Share |\n|---|---|---|\n| alpha{t} | {a} | 0.{t}5 |\n| beta{t} | {seen} | 0.{t}7 |\n| gamma{t} | {} | 0.{t}9 |\n",
            a + b
        );
        (latex, md)
    })
}

/// The store the examples run on.
fn build(root: &Path) -> std::path::PathBuf {
    let pdfs = root.join("tables");
    let truth = root.join("ground_truth");
    std::fs::create_dir_all(&pdfs).unwrap();
    std::fs::create_dir_all(&truth).unwrap();
    for i in 0..DOCS {
        let mut page = PdfPage::new(612.0, 792.0);
        page.text(Font::Regular, 10.0, 72.0, 720.0, &format!("Report {i}."));
        let mut pdf = Pdf::new();
        pdf.push(page);
        std::fs::write(pdfs.join(format!("t{i:02}.pdf")), pdf.to_bytes()).unwrap();
        let items: Vec<serde_json::Value> = tables(i, false)
            .into_iter()
            .map(|(latex, _)| serde_json::json!({"type": "table", "complexity": "simple", "data": latex}))
            .collect();
        std::fs::write(
            truth.join(format!("t{i:02}.json")),
            serde_json::Value::from(items).to_string(),
        )
        .unwrap();
    }
    let db = root.join("c.db");
    let out = run(corpus(&db).args(["ingest", "--truth", "latex-tables", "-q"]).arg(&pdfs));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for version in ["1", "2", "3"] {
        let dir = root.join(format!("out-{version}"));
        std::fs::create_dir_all(&dir).unwrap();
        let docs = if version == "3" { 3 } else { DOCS };
        for i in 0..docs {
            let v2 = version != "1";
            let [first, second] = tables(i, v2 && i % 3 == 1);
            let mut md = format!("Report {i}.\n\n{}", first.1);
            if !(v2 && i % 3 == 0) {
                md.push('\n');
                md.push_str(&second.1);
            }
            std::fs::write(dir.join(format!("t{i:02}.md")), md).unwrap();
        }
        let out = run(corpus(&db)
            .args([
                "import",
                "--provider",
                "p",
                "--format",
                "markdown",
                "--provider-version",
                version,
            ])
            .arg(&dir));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let out = run(corpus(&db).args(["eval", "--suite", "table", "--provider", "p", "-q"]));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    db
}

/// A transcript: the command, its stdout, then its stderr (with `-q`: errors only), and its
/// exit status where it is not 0.
fn transcript(db: &Path, args: &str) -> String {
    let out = run(corpus(db).args(args.split_whitespace()).arg("-q"));
    let mut s = format!(
        "$ corpus {args}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !s.ends_with('\n') {
        s.push('\n');
    }
    let code = out.status.code().expect("an exit code");
    if code != 0 {
        s.push_str(&format!("$ echo $?\n{code}\n"));
    }
    s
}

/// Replaces each example's fenced block in `text` with its transcript; returns the new text
/// and the number of examples.
fn render(text: &str, db: &Path) -> (String, usize) {
    const MARK: &str = "<!-- example: ";
    let mut out = String::new();
    let mut rest = text;
    let mut count = 0;
    while let Some(at) = rest.find(MARK) {
        let line_end = at + rest[at..].find('\n').expect("a marker line");
        let args = rest[at + MARK.len()..line_end].trim_end().trim_end_matches("-->").trim();
        let open = line_end + 1;
        assert!(rest[open..].starts_with("```\n"), "a fenced block follows `{args}`");
        let body = open + 4;
        let close = body + rest[body..].find("```\n").expect("the block closes");
        out.push_str(&rest[..body]);
        out.push_str(&transcript(db, args));
        rest = &rest[close..];
        count += 1;
    }
    out.push_str(rest);
    (out, count)
}

#[test]
fn compare_guide_examples_are_what_the_build_prints() {
    let d = tempfile::tempdir().unwrap();
    let db = build(d.path());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/compare.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (want, count) = render(&text, &db);
    assert!(count >= 3, "the guide's examples: {count}");
    if std::env::var("CORPUS_UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    assert!(
        text == want,
        "docs/guide/compare.md's examples differ from what this build prints; if the change is \
         meant, rewrite them with CORPUS_UPDATE_SNAPSHOTS=1 cargo test --test it guide\n\n{}",
        want
    );
}
