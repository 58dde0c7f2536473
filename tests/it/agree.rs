//! `corpus agree`, end to end: the sample PDFs (no truth) read by Markdown imported under
//! several provider names and by the `empty` provider.

use std::path::Path;

use crate::util::{corpus, json, run, sample_dir};

/// Three pages of Markdown for document `name`: a heading, two paragraphs, a table and a
/// display formula per page; `plant` replaces one word on one page.
fn markdown(name: &str, plant: Option<(u32, &str, &str)>) -> String {
    let pages: Vec<String> = (0..3u32)
        .map(|p| {
            let mut s = format!(
                "# Section {p} of {name}\n\nThe parsers read page {p} of document {name} and agree on its words.\n\n\
                 A second paragraph follows the first one on page {p} with different words.\n\n\
                 | metric | value |\n|---|---|\n| recall | 0.{p}1 |\n| precision | 0.{p}2 |\n\n\
                 $$x^{{2}} + y_{p} = z$$\n"
            );
            if let Some((page, from, to)) = plant {
                if page == p {
                    s = s.replacen(from, to, 1);
                }
            }
            s
        })
        .collect();
    pages.join("\u{c}")
}

/// Writes `<doc>.md` for the three sample PDFs into `dir`.
fn write_outputs(dir: &Path, plant: Option<(&str, u32, &str, &str)>) {
    std::fs::create_dir_all(dir).unwrap();
    for name in ["101", "102", "103"] {
        let p = plant.filter(|x| x.0 == name).map(|x| (x.1, x.2, x.3));
        std::fs::write(dir.join(format!("{name}.md")), markdown(name, p)).unwrap();
    }
}

fn agree_json(db: &Path, providers: &[&str]) -> serde_json::Value {
    let mut c = corpus(db);
    c.args(["agree", "-q", "--format", "json"]);
    for p in providers {
        c.args(["--provider", p]);
    }
    let out = run(&mut c);
    assert!(out.status.success());
    json(&out)
}

/// The mean of `measure` between providers 0 and 1.
fn cell(v: &serde_json::Value, measure: &str) -> Option<f64> {
    v["measures"][measure]["matrix"][0][1]["mean"].as_f64()
}

#[test]
fn identical_providers_agree_empty_disagrees_and_a_planted_word_ranks_first() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).args(["ingest", "-q", "--dataset", "mine"]).arg(sample_dir()))
        .status
        .success());
    // Nothing to compare yet: said, and a failure.
    let out = run(corpus(&db).args(["agree"]));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to compare"));

    let same = d.path().join("same");
    write_outputs(&same, None);
    let planted = d.path().join("planted");
    write_outputs(&planted, Some(("102", 1, "different", "other")));
    for (p, dir) in [("md-a", &same), ("md-b", &same), ("md-c", &planted)] {
        let out = run(corpus(&db)
            .args(["import", "-q", "--format", "markdown", "--provider", p])
            .arg(dir));
        assert!(out.status.success());
    }
    // One provider only: still nothing to compare.
    let out = run(corpus(&db).args(["agree", "--provider", "md-a"]));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("only one provider"));
    let out = run(corpus(&db).args(["agree", "--dataset", "nope"]));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no document in dataset"));

    // The same Markdown under two names: every measure 1.
    let v = agree_json(&db, &["md-a", "md-b"]);
    for m in ["text", "table", "formula", "order"] {
        assert_eq!(cell(&v, m), Some(1.0), "{m}: {}", v["measures"][m]);
    }
    assert_eq!(v["measures"]["text"]["matrix"][0][1]["pages"], 9);
    assert_eq!(v["labels"], serde_json::json!(["md-a@imported", "md-b@imported"]));
    assert!(v["top"].as_array().unwrap().iter().all(|p| p["spread"] == 0.0));

    // `empty` against anything: 0 wherever the measure is defined.
    assert!(run(corpus(&db).args(["ocr", "-q", "--provider", "empty"])).status.success());
    let v = agree_json(&db, &["empty", "md-a"]);
    for m in ["text", "table", "formula"] {
        assert_eq!(cell(&v, m), Some(0.0), "{m}");
    }
    // No block of `empty` pairs with one of md-a: order is undefined, never 0 or 1.
    assert_eq!(cell(&v, "order"), None);

    // The planted word: page 2 of 102 first, alone with a spread; the ranking in text too.
    let v = agree_json(&db, &["md-a", "md-c"]);
    let top = v["top"].as_array().unwrap();
    assert_eq!((top[0]["document"].as_str(), top[0]["page"].as_u64()), (Some("102"), Some(2)));
    let s0 = top[0]["spread"].as_f64().unwrap();
    assert!(s0 > 0.0 && s0 < 0.1, "{s0}");
    assert!(top[1..].iter().all(|p| p["spread"] == 0.0));
    let text = cell(&v, "text").unwrap();
    assert!(text < 1.0 && text > 0.99, "{text}");

    let out = run(corpus(&db).args(["agree", "-q", "--top", "3"]));
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.lines().all(|l| l.chars().count() <= 120), "{s}");
    assert!(s.contains("top 3 of 9"), "{s}");
    let first = s.lines().skip_while(|l| !l.contains("least agreeing")).nth(1).unwrap();
    assert!(first.contains("102"), "{first}");
    // With `empty` among four providers every page has a spread of at least 0.5 (three of
    // its six pairs agree 0), and the planted page still leads.
    assert!(s.contains("[1] empty@"), "{s}");
}
