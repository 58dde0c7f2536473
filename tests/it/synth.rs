//! `corpus synth` end to end with Debian's TeX Live: pages from the generator and from
//! sources, reproducible bytes, truth equal to itself under the table suite, and every
//! table cell found in pdfium's text layer of its page.

use std::path::Path;

use crate::util::{corpus, json, run, skip_or_fail};

/// Whether pdflatex runs here; without it the test skips, and under `CI=true` fails
/// (`scripts/test.sh` installs it).
fn tex_here() -> bool {
    match corpus::external::tex::available() {
        Ok(()) => true,
        Err(why) => {
            skip_or_fail(&format!("the synth tests: {why}"));
            false
        }
    }
}

fn synth(db: &Path, args: &[&str]) -> serde_json::Value {
    let out = run(corpus(db).args(["synth", "--format", "json", "-q"]).args(args));
    let s = json(&out);
    assert!(out.status.success(), "{s}");
    s
}

/// Letters and digits only, compatibility-decomposed: text-layer spacing, ligatures
/// (`ﬁ`) and the minus sign TeX sets for `-` in math do not count.
fn squash(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfkc().filter(|c| c.is_alphanumeric() || matches!(c, '.' | '%' | '±' | '+')).collect()
}

fn doc_text(d: &corpus::doc::Doc) -> String {
    let mut s = String::new();
    for b in &d.blocks {
        s.push_str(&b.text);
        s.push(' ');
        if let Some(t) = &b.table {
            for c in &t.cells {
                s.push_str(&c.text);
                s.push(' ');
            }
        }
    }
    s
}

#[test]
fn generated_tables_are_exact_truth_found_in_the_text_layer() {
    if !tex_here() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = d.path().join("pages");
    let s = synth(
        &db,
        &[
            "tables",
            "--generate",
            "--pages",
            "24",
            "--seed",
            "7",
            "--dataset",
            "gen",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(s["summary"]["pages"], 24, "{s}");
    assert_eq!(s["summary"]["failed_pages"], 0, "{s}");
    assert_eq!(s["stored"]["truth_format"], "latex-tables");
    // GT-vs-GT through the table suite: each truth's tables written as HTML tables in
    // Markdown (spans kept), imported as a provider's outputs, scored against the truth.
    let gtgt = d.path().join("gtgt");
    std::fs::create_dir_all(&gtgt).unwrap();
    for e in std::fs::read_dir(out.join("ground_truth")).unwrap() {
        let p = e.unwrap().path();
        let gt = corpus::formats::pdf_parse_bench::read_truth(&std::fs::read(&p).unwrap()).unwrap();
        let md: Vec<String> = gt.iter().map(|t| t.table.to_html()).collect();
        let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
        std::fs::write(gtgt.join(format!("{stem}.md")), md.join("\n\n")).unwrap();
    }
    let imp = run(corpus(&db)
        .args(["import", "--provider", "gt-html", "--format", "markdown", "-q"])
        .arg(&gtgt));
    assert!(imp.status.success());
    let ev = run(corpus(&db).args([
        "eval",
        "--suite",
        "table",
        "--provider",
        "gt-html",
        "--format",
        "json",
    ]));
    let e = json(&ev);
    assert!(ev.status.success(), "{e}");
    assert_eq!(e["scored"], 24, "{e}");
    for p in e["document_means"].as_array().unwrap() {
        assert_eq!(p[1].as_f64(), Some(1.0), "GT-vs-GT {p}");
    }
    // Every non-empty cell of every table is in pdfium's text of its page.
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    let store = corpus::store::Store::open_read_only(&db).unwrap();
    let mut cells = 0;
    let mut tables = 0;
    for doc in store.documents(None).unwrap() {
        let o = store.latest_output(doc.id, "pdfium").unwrap().unwrap();
        let parsed: corpus::doc::Doc =
            serde_json::from_slice(&store.blob(o.blob.as_deref().unwrap()).unwrap().unwrap())
                .unwrap();
        let text = squash(&doc_text(&parsed));
        let truth =
            std::fs::read(out.join("ground_truth").join(format!("{}.json", doc.name))).unwrap();
        let gt = corpus::formats::pdf_parse_bench::read_truth(&truth).unwrap();
        assert!(!gt.is_empty(), "{} has no table", doc.name);
        for t in gt {
            tables += 1;
            for c in t.table.cells.iter().filter(|c| !c.text.trim().is_empty()) {
                cells += 1;
                let want = squash(&c.text);
                assert!(
                    text.contains(&want),
                    "{}: cell {:?} not in the text layer",
                    doc.name,
                    c.text
                );
            }
        }
    }
    assert!(tables >= 24 && cells > 24 * 10, "{tables} tables, {cells} cells");
    // Attributes for reports: complexity, layout, seed, on every page.
    let q = run(corpus(&db).args([
        "sql",
        "SELECT attribute, count(*) AS n FROM v_document_attributes \
         WHERE attribute IN ('complexity', 'layout.font', 'synth.seed', 'synth.sources') \
         GROUP BY attribute ORDER BY attribute",
        "--format",
        "json",
    ]));
    let rows = json(&q);
    assert_eq!(rows.as_array().map(Vec::len), Some(4), "{rows}");
    for r in rows.as_array().unwrap() {
        assert_eq!(r["n"], 24, "{r}");
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_pages() {
    if !tex_here() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let make = |seed: &str, dir: &str| {
        let out = d.path().join(dir);
        synth(
            &db,
            &[
                "tables",
                "--generate",
                "--pages",
                "3",
                "--seed",
                seed,
                "--no-ingest",
                "--out",
                out.to_str().unwrap(),
            ],
        );
        (0..3)
            .map(|i| std::fs::read(out.join(format!("pdfs/{i:03}.pdf"))).unwrap())
            .collect::<Vec<_>>()
    };
    let a = make("11", "a");
    let b = make("11", "b");
    let c = make("12", "c");
    assert_eq!(a, b, "same seed, same bytes");
    for (x, y) in a.iter().zip(&c) {
        assert_ne!(x, y, "another seed, another page");
    }
    assert!(a[0].starts_with(b"%PDF-"));
    // Pages of one run differ from each other too.
    assert_ne!(a[0], a[1]);
}

const SOURCE: &str = r"\documentclass{article}
\newcommand{\ours}{\textsc{Ours}}
\begin{document}
Results are in Table~\ref{t} \cite{k}. % comment
\begin{table}\centering
\begin{tabular}{lcc}\toprule
Method & Accuracy (\%) & Time (ms) \\ \midrule
Alpha & 91.2 & 13 \\
Beta & 89.7 & 9 \\ \bottomrule
\end{tabular}\label{t}
\end{table}
\begin{tabular}{lc} \ours & 1 \\ \end{tabular}
\begin{tabular}{lc} \undefinedmacro & 1 \\ \end{tabular}
\begin{tabular}{|l|c|}\hline
\multicolumn{2}{|c|}{Group} \\ \hline
Gamma & 0.5 \\ \hline
\end{tabular}
\end{document}
";

#[test]
fn tables_from_sources_are_cleaned_checked_and_counted() {
    if !tex_here() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    std::fs::write(d.path().join("paper.tex"), SOURCE).unwrap();
    let out = d.path().join("pages");
    let s = synth(
        &db,
        &[
            "tables",
            "--from",
            d.path().join("paper.tex").to_str().unwrap(),
            "--pages",
            "2",
            "--seed",
            "3",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let sum = &s["summary"];
    assert_eq!(sum["sources"]["found"], 4, "{s}");
    assert_eq!(sum["sources"]["dropped_custom_macro"], 1, "{s}");
    assert_eq!(sum["failed_compile"], 1, "{s}");
    assert_eq!(sum["pool"]["table/simple"], 1, "{s}");
    assert_eq!(sum["pool"]["table/moderate"], 1, "{s}");
    assert_eq!(sum["pages"], 2, "{s}");
    let truth = std::fs::read_to_string(out.join("ground_truth/000.json")).unwrap();
    assert!(!truth.contains("\\label") && !truth.contains("\\ref"), "{truth}");
    let store = corpus::store::Store::open_read_only(&db).unwrap();
    let docs = store.documents(None).unwrap();
    assert_eq!(docs.len(), 2);
}

#[test]
fn formula_pages_write_pdf_parse_bench_formula_truth() {
    if !tex_here() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = d.path().join("f");
    let s = synth(
        &db,
        &["formulas", "--generate", "--pages", "2", "--seed", "5", "--out", out.to_str().unwrap()],
    );
    assert_eq!(s["summary"]["pages"], 2, "{s}");
    let items: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(out.join("ground_truth/000.json")).unwrap()).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for it in &items {
        let k = it["type"].as_str().unwrap();
        let data = it["data"].as_str().unwrap();
        match k {
            "display-formula" => assert!(data.starts_with("$$") && data.ends_with("$$")),
            "inline-formula" => assert!(data.starts_with('$') && !data.starts_with("$$")),
            "text" => assert!(!data.contains('$')),
            other => panic!("unexpected item type {other}"),
        }
        kinds.insert(k.to_string());
    }
    assert!(kinds.contains("display-formula") || kinds.contains("inline-formula"), "{items:?}");
}

/// GT-vs-GT for formulas: the truth provider scored against the synthesized formula truth.
#[test]
fn formula_truth_scores_one_against_itself() {
    if !tex_here() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let out = d.path().join("f");
    let s = synth(
        &db,
        &["formulas", "--generate", "--pages", "3", "--seed", "5", "--out", out.to_str().unwrap()],
    );
    assert_eq!(s["stored"]["truth_format"], "pdf-parse-bench", "{s}");
    assert!(run(corpus(&db).args(["ocr", "--provider", "truth", "-q"])).status.success());
    let ev = run(corpus(&db).args([
        "eval",
        "--suite",
        "formula",
        "--provider",
        "truth",
        "--format",
        "json",
    ]));
    let e = json(&ev);
    assert!(ev.status.success(), "{e}");
    for p in e["document_means"].as_array().unwrap() {
        assert_eq!(p[1].as_f64(), Some(1.0), "GT-vs-GT {p}");
    }
}
