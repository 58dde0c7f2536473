//! Acceptance tests of the paper suite (`docs/paper-suite.md` §3–§6) on hand-made papers, plus
//! GT-vs-GT on the shared GROBID data when it is present.

use super::*;
use crate::formats::peerread::{read_peerread, write_peerread};
use crate::formats::s2orc::read_s2orc;
use crate::formats::tei::{group_tei_files, read_grobid_tei};
use crate::paper::{from_doc, merge, to_doc, Reference, Section};

/// A PeerRead GT in science-parse's shape, with its quirks: a line-number section, a stray
/// `.` on a name, `\Q..\E` years with letters, mojibake, a junk line, table rows.
const GT: &str = r#"{ "name": "1.pdf", "metadata": {
  "source": "CRF", "title": "Neural Tagging of Words", "authors": [], "emails": [],
  "sections": [
    { "heading": null, "text": "000\n001\n002" },
    { "heading": "1 Introduction", "text": "Tagging matters for parsing (Pasha et al., 2014; Schmid, 1994).\n011\nWe extend Lee et al. (2016a) and Lee et al., 2016b. Baroni and Lenci (2011) agree." },
    { "heading": "2 Model", "text": "The state is ri = σ(Wr xi + br) for each word.\nThe loss is L = sum of errors and y = Wx + b holds. The mojibake Ï = â1 stays." },
    { "heading": "3 Results", "text": "Table 1: Accuracy by split.\nTest 54,088 97.5 1,812\nDev 12,345 96.1 34%\n图 7 34 56 = 1\nSchmid (1994) reports similar numbers." },
    { "heading": "4 Conclusion", "text": "Zebra quokka wombat." }
  ],
  "references": [
    { "title": "MADAMIRA", "author": ["Arfath Pasha", "Mohamed Al-Badrashiny", "Owen Rambow"], "venue": "LREC", "citeRegEx": "Pasha et al\\.,? \\Q2014\\E", "shortCiteRegEx": "Pasha et al\\.", "year": 2014 },
    { "title": "Tree tagger", "author": ["Helmut Schmid."], "venue": null, "citeRegEx": "Schmid.,? 1994", "shortCiteRegEx": "Schmid.", "year": 1994 },
    { "title": "A", "author": ["Ann Lee", "Bo Wu", "Cy Ode"], "venue": null, "citeRegEx": "Lee et al\\.,? \\Q2016a\\E", "shortCiteRegEx": "Lee et al\\.", "year": 2016 },
    { "title": "B", "author": ["Ann Lee", "Bo Wu", "Cy Ode"], "venue": null, "citeRegEx": "Lee et al\\.,? \\Q2016b\\E", "shortCiteRegEx": "Lee et al\\.", "year": 2016 },
    { "title": "Distributional", "author": ["Marco Baroni", "Alessandro Lenci"], "venue": "CL", "citeRegEx": "Baroni and Lenci.,? 2011", "shortCiteRegEx": "Baroni and Lenci", "year": 2011 },
    { "title": "Uncited", "author": ["Liina Pylkk¨ anen."], "venue": null, "citeRegEx": "Pylkkanen.,? 2008", "shortCiteRegEx": "Pylkkanen.", "year": 2008 }
  ],
  "referenceMentions": [],
  "year": 2017, "abstractText": "We tag words with a neural model.", "creator": "Preview" } }"#;

fn gt() -> Paper {
    read_peerread(GT.as_bytes()).unwrap()
}

fn get<'a>(ms: &'a [Metric], id: &str) -> &'a Metric {
    ms.iter().find(|m| m.id == id).unwrap_or_else(|| panic!("no metric {id}"))
}

fn val(ms: &[Metric], id: &str) -> Option<f64> {
    get(ms, id).value
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

fn assert_perfect(ms: &[Metric], what: &str) {
    for m in ms {
        assert!(
            m.value.is_none() || m.value == Some(1.0),
            "{what}: {} = {:?} {}",
            m.id,
            m.value,
            m.trace
        );
    }
}

fn section_mut<'a>(p: &'a mut Paper, heading: &str) -> &'a mut Section {
    p.sections.as_mut().unwrap().iter_mut().find(|s| s.heading.as_deref() == Some(heading)).unwrap()
}

#[test]
fn ids_are_complete_and_in_order() {
    let ms = score(&gt(), &gt());
    let ids: Vec<&str> = ms.iter().map(|m| m.id).collect();
    assert_eq!(ids, metric_ids());
    assert_eq!(&ids[..19], METRIC_IDS);
    assert_eq!(&ids[..6], HEADLINE);
}

#[test]
fn gt_against_itself_is_one_everywhere() {
    let g = gt();
    let ms = score(&g, &g);
    for m in &ms[..METRIC_IDS.len()] {
        assert_eq!(m.value, Some(1.0), "{} {}", m.id, m.trace);
    }
    // Field scores are 1 where the truth has the field (no keywords, volumes, ... here).
    assert_perfect(&ms, "fields");
    assert_eq!(val(&ms, "cit_title_strict_f"), Some(1.0));
    assert_eq!(val(&ms, "cit_volume_strict_f"), None);
    // The GT's own counts, which the damage tests below rely on.
    assert_eq!(get(&ms, "formula").trace["gt"], 4); // the `=` of the junk line is not counted
    assert_eq!(get(&ms, "tbl_num_cov").trace["total"], 6);
    assert_eq!(get(&ms, "men_r").trace["total"], 6);
    // Keys drop the year's letter: Lee 2016a and Lee 2016b are one key.
    assert_eq!(get(&ms, "ref_r").trace["total"], 5);
    assert_eq!(get(&ms, "order").trace["total"], 4);
}

#[test]
fn truth_as_doc_scores_one() {
    let g = gt();
    let pred = from_doc(&to_doc(&g));
    assert_perfect(&score(&g, &pred), "gt via to_doc/from_doc");
}

fn unchanged(before: &[Metric], after: &[Metric], ids: &[&str]) {
    for id in ids {
        assert_eq!(val(before, id), val(after, id), "{id} moved");
    }
}

#[test]
fn dropping_a_section_lowers_text_and_order_only() {
    let g = gt();
    let base = score(&g, &g);
    let total = base[0].trace["total"].as_u64().unwrap() as f64;
    let mut p = g.clone();
    p.sections.as_mut().unwrap().retain(|s| s.heading.as_deref() != Some("4 Conclusion"));
    let ms = score(&g, &p);
    assert!(close(val(&ms, "text_r"), (total - 3.0) / total), "{}", get(&ms, "text_r").trace);
    assert!(close(val(&ms, "order"), 0.75));
    assert_eq!(get(&ms, "order").trace["unmatched"], json!(["4 Conclusion"]));
    unchanged(&base, &ms, &["tbl_num_cov", "formula", "ref_r", "men_r"]);
}

#[test]
fn shuffling_headings_lowers_order_only() {
    let g = gt();
    let mut p = g.clone();
    p.sections.as_mut().unwrap().swap(2, 3);
    let ms = score(&g, &p);
    assert!(close(val(&ms, "order"), 0.75));
    unchanged(&score(&g, &g), &ms, &["text_r", "tbl_num_cov", "formula", "ref_r", "men_r"]);
}

#[test]
fn deleting_a_reference_gives_n_minus_one_over_n() {
    let g = gt();
    let base = score(&g, &g);
    // An uncited one: only the reference metrics move (n = 5 distinct keys).
    let mut p = g.clone();
    p.references.as_mut().unwrap().pop();
    let ms = score(&g, &p);
    assert!(close(val(&ms, "ref_r"), 4.0 / 5.0));
    assert_eq!(get(&ms, "ref_r").trace["missing"], json!(["pylkkanen 2008"]));
    unchanged(&base, &ms, &["text_r", "tbl_num_cov", "formula", "order", "men_r"]);
    // A cited one (Schmid, cited twice): its mentions go too.
    let mut p = g.clone();
    p.references.as_mut().unwrap().remove(1);
    let ms = score(&g, &p);
    assert!(close(val(&ms, "ref_r"), 4.0 / 5.0));
    assert!(close(val(&ms, "men_r"), 4.0 / 6.0));
}

#[test]
fn changing_a_table_number_lowers_coverage_by_one_value() {
    let g = gt();
    let base = score(&g, &g);
    let mut p = g.clone();
    let s = section_mut(&mut p, "3 Results");
    s.text = s.text.replace("54,088", "54,089");
    let ms = score(&g, &p);
    assert!(close(val(&ms, "tbl_num_cov"), 5.0 / 6.0));
    assert_eq!(get(&ms, "tbl_num_cov").trace["missing"], json!(["54,088"]));
    assert!(close(val(&ms, "tbl_r"), 5.0 / 6.0));
    unchanged(&base, &ms, &["text_r", "formula", "order", "ref_r", "men_r"]);
}

#[test]
fn removing_every_equals_sign_zeroes_formula_only() {
    let g = gt();
    let mut p = g.clone();
    for s in p.sections.as_mut().unwrap() {
        s.text = s.text.replace('=', " ");
    }
    let ms = score(&g, &p);
    assert_eq!(val(&ms, "formula"), Some(0.0));
    unchanged(&score(&g, &g), &ms, &["text_r", "tbl_num_cov", "order", "ref_r", "men_r"]);
}

#[test]
fn line_number_lines_vanish() {
    let g = gt();
    let mut p = g.clone();
    p.sections.as_mut().unwrap().remove(0);
    for s in p.sections.as_mut().unwrap() {
        s.text = s.text.lines().filter(|l| l.trim() != "011").collect::<Vec<_>>().join("\n");
    }
    assert_perfect(&score(&g, &p), "without line numbers");
}

fn paper_of(sections: &[(&str, &str)]) -> Paper {
    Paper {
        sections: Some(
            sections
                .iter()
                .map(|(h, t)| Section {
                    heading: Some(h.to_string()),
                    level: None,
                    text: t.to_string(),
                })
                .collect(),
        ),
        ..Paper::default()
    }
}

#[test]
fn text_rules_by_hand() {
    // GT prose tokens: aa aa bb cc (the table line and the junk line are not prose).
    let g = paper_of(&[("1 A", "aa aa bb cc\nRow 11 22 33\nq w e r t")]);
    let p = paper_of(&[("1 A", "Aa bb dd")]);
    let ms = score(&g, &p);
    assert!(close(val(&ms, "text_r"), 2.0 / 4.0));
    assert!(close(val(&ms, "text_p"), 2.0 / 3.0));
    assert!(close(val(&ms, "text_f"), 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)));
    assert_eq!(
        get(&ms, "text_r").trace["missing"],
        json!([{"token": "aa", "count": 1}, {"token": "cc", "count": 1}])
    );
    // text_chr is over the whole squashed body.
    let d = crate::metrics::levenshtein::levenshtein("aaaabbccrow112233qwert", "aabbdd");
    assert!(close(val(&ms, "text_chr"), 1.0 - d as f64 / 22.0));
    // Extra predicted text is not penalized in recall.
    let p2 = paper_of(&[("1 A", "aa aa bb cc plus boilerplate"), ("Figure", "caption")]);
    assert_eq!(val(&score(&g, &p2), "text_r"), Some(1.0));
}

/// A prediction with nothing of a kind: its precision is undefined (null, the trace says why,
/// left out of means), never 0; the F1 is 0 where the recall is 0, else null.
#[test]
fn precision_of_an_empty_prediction_is_null() {
    let g = paper_of(&[("1 A", "aa bb cc"), ("2 R", "Test 54,088 1,812 97.5\nDev 12 12 7")]);
    let ms = score(&g, &paper_of(&[("1 A", "")]));
    for id in ["text_p", "tbl_p"] {
        let m = get(&ms, id);
        assert_eq!(m.value, None, "{id}: {}", m.trace);
        assert_eq!((&m.trace["hit"], &m.trace["total"]), (&json!(0), &json!(0)), "{id}");
        assert!(m.trace["reason"].as_str().unwrap().contains("the prediction has none"), "{id}");
    }
    for id in ["text_r", "text_f", "tbl_r", "tbl_f"] {
        assert_eq!(val(&ms, id), Some(0.0), "{id}");
    }
    // Table lines do not count as prose: with the prose empty, precision is null and recall
    // and F1 are 0.
    let mut p = paper_of(&[("1 A", "aa bb")]);
    p.sections.as_mut().unwrap()[0].text = String::new();
    p.tables = Some(vec!["aa bb 12".into()]);
    let ms = score(&g, &p);
    assert_eq!(val(&ms, "text_p"), None);
    assert_eq!(val(&ms, "text_r"), Some(0.0), "{:?}", get(&ms, "text_r").trace);
    assert_eq!(val(&ms, "text_f"), Some(0.0));
    // The average leaves the nulls out.
    let avg = average(&[ms.clone(), score(&g, &g)]);
    assert_eq!(val(&avg, "text_p"), Some(1.0));
}

#[test]
fn table_rules_by_hand() {
    // GT table lines (heuristic): two; values 54,088 1,812 97.5 and 12 12 (multiset).
    let g = paper_of(&[("1 R", "Test 54,088 1,812 97.5\nDev 12 12 7\nWe saw 12 cats.")]);
    // Pred marks its table; one value wrong, one extra; 1,812 appears only in prose.
    let mut p = paper_of(&[("1 R", "Test 54,088 97.5 12 99\nDev 1,812 appears here")]);
    p.tables = Some(vec!["Test 54,088 97.5 12 99".into()]);
    let ms = score(&g, &p);
    // Distinct GT values 54,088 1,812 97.5 12: all four appear somewhere in the prediction.
    assert_eq!(val(&ms, "tbl_num_cov"), Some(1.0));
    // Multisets: GT {54,088 1,812 97.5 12 12} vs pred tables {54,088 97.5 12 99}: hit 3.
    assert!(close(val(&ms, "tbl_r"), 3.0 / 5.0));
    assert!(close(val(&ms, "tbl_p"), 3.0 / 4.0));
    assert!(close(val(&ms, "tbl_f"), 2.0 * 0.6 * 0.75 / 1.35));
    // No table in GT: null, not 1 or 0.
    let none = score(&paper_of(&[("1 R", "just words")]), &p);
    assert_eq!(val(&none, "tbl_num_cov"), None);
}

#[test]
fn formula_and_order_rules_by_hand() {
    let g = paper_of(&[
        ("1. Introduction", "y = ax + b holds for the line\nΣ = Ï = â = ÿ"),
        ("2 Method", "p(x) = 1 for all x"),
        ("3 Results", "none"),
    ]);
    let p = paper_of(&[
        ("1 Introduction", "so y = ax holds here"),
        ("3 Results", ""),
        ("2 Method", ""),
    ]);
    let ms = score(&g, &p);
    // GT: 2 counted (the mojibake line is junk); pred: 1.
    assert!(close(val(&ms, "formula"), 0.5));
    assert!(close(val(&ms, "order"), 2.0 / 3.0));
    // Either of the two swapped headings is the unmatched one.
    assert_eq!(get(&ms, "order").trace["unmatched"].as_array().map(Vec::len), Some(1));
}

#[test]
fn mentions_are_a_multiset_of_reference_keys() {
    let refs = vec![
        Reference {
            authors: vec!["Ann Lee".into()],
            year: Some("2014".into()),
            ..Reference::default()
        },
        Reference {
            authors: vec!["Bo Wu".into()],
            year: Some("2015".into()),
            ..Reference::default()
        },
    ];
    let mut g = paper_of(&[("1 A", "Lee (2014) and (Lee, 2014; Wu, 2015).")]);
    g.references = Some(refs.clone());
    let mut p = paper_of(&[("1 A", "Lee (2014) and Wu (2015) and Wu, 2015.")]);
    p.references = Some(refs);
    let ms = score(&g, &p);
    assert!(close(val(&ms, "men_r"), 2.0 / 3.0));
    assert!(close(val(&ms, "men_p"), 2.0 / 3.0));
    assert_eq!(get(&ms, "men_r").trace["missing"], json!([{"key": "lee 2014", "count": 1}]));
}

#[test]
fn header_only_truth_scores_only_its_fields() {
    let h = Paper {
        title: Some("Neural Tagging of Words".into()),
        abstract_text: Some("We tag words with a neural model.".into()),
        ..Paper::default()
    };
    let ms = score(&h, &gt());
    for m in &ms {
        let header_field = m.id.starts_with("hdr_title_")
            || m.id.starts_with("hdr_abstract_")
            || m.id.starts_with("hdr_micro_")
            || m.id.starts_with("hdr_macro_");
        match m.id {
            "title_chr" | "abstract_r" => assert_eq!(m.value, Some(1.0)),
            _ if header_field => assert_eq!(m.value, Some(1.0), "{}", m.id),
            _ => assert_eq!(m.value, None, "{}", m.id),
        }
    }
}

#[test]
fn average_ignores_nulls() {
    let g = gt();
    let mut p = g.clone();
    p.references.as_mut().unwrap().pop();
    let h = Paper { title: Some("X".into()), ..Paper::default() };
    let rows = vec![score(&g, &g), score(&g, &p), score(&h, &g)];
    let avg = average(&rows);
    assert!(close(val(&avg, "ref_r"), (1.0 + 4.0 / 5.0) / 2.0));
    assert_eq!(get(&avg, "ref_r").trace, json!({"papers": 2, "null": 1}));
    assert!(close(val(&avg, "title_chr"), (1.0 + 1.0 + 0.0) / 3.0));
}

#[test]
fn peerread_written_from_a_doc_reads_back() {
    let g = gt();
    let p = from_doc(&to_doc(&g));
    let back = read_peerread(write_peerread(&p, "1.pdf").as_bytes()).unwrap();
    // PeerRead cannot mark tables or heading levels; everything else survives.
    let mut want = p.clone();
    want.tables = None;
    for s in want.sections.iter_mut().flatten() {
        s.level = None;
    }
    assert_eq!(back, want);
    assert_perfect(&score(&g, &back), "written and read back");
}

#[test]
fn pylkkanen_is_repaired_on_the_prediction_side() {
    let mut g = gt();
    g.references.as_mut().unwrap()[5].authors = vec!["Liina Pylkkänen".into()];
    let mut p = g.clone();
    p.references.as_mut().unwrap()[5] =
        crate::paper::references::parse_reference("Liina Pylkk¨ anen. 2008. Uncited. Journal.");
    assert_eq!(p.references.as_ref().unwrap()[5].authors, vec!["Liina Pylkkänen"]);
    assert_eq!(val(&score(&g, &p), "ref_r"), Some(1.0));
}

fn shared_data() -> Option<std::path::PathBuf> {
    crate::test_support::shared_data("")
}

#[test]
fn grobid_gold_papers_score_one_against_themselves() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("grobid-gold/tei");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        crate::test_support::skip_or_fail(&format!("{} is absent", dir.display()));
        return;
    };
    let names: Vec<String> =
        entries.filter_map(|e| Some(e.ok()?.path().to_str()?.to_string())).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let groups = group_tei_files(&refs);
    assert!(!groups.is_empty());
    for g in groups {
        let mut parts = Vec::new();
        for f in [&g.full, &g.header, &g.fulltext, &g.references].into_iter().flatten() {
            let bytes = std::fs::read(f).unwrap();
            parts.push(read_grobid_tei(&bytes).unwrap_or_else(|e| panic!("{f}: {e}")));
        }
        let p = merge(parts);
        let ms = score(&p, &p);
        assert_perfect(&ms, &g.paper);
        let line: Vec<String> = ms
            .iter()
            .map(|m| format!("{}={}", m.id, m.value.map_or("null".into(), |v| format!("{v:.3}"))))
            .collect();
        println!(
            "{}: sections={:?} refs={:?} mentions={} {}",
            g.paper,
            p.sections.as_ref().map(Vec::len),
            p.references.as_ref().map(Vec::len),
            p.mentions.len(),
            line.join(" ")
        );
        // The truth as a provider's document scores one too.
        assert_perfect(&score(&p, &from_doc(&to_doc(&p))), &format!("{} via to_doc", g.paper));
    }
}

#[test]
fn s2orc_paper_reads_from_tei_and_json() {
    let Some(data) = shared_data() else { return };
    let (Ok(tei), Ok(json)) = (
        std::fs::read(data.join("s2orc/N18-3011.tei.xml")),
        std::fs::read(data.join("s2orc/N18-3011.json")),
    ) else {
        crate::test_support::skip_or_fail("the shared s2orc files are absent");
        return;
    };
    let t = read_grobid_tei(&tei).unwrap();
    let j = read_s2orc(&json).unwrap();
    assert_eq!(
        t.title.as_deref(),
        Some("Construction of the Literature Graph in Semantic Scholar")
    );
    assert_eq!(t.references.as_ref().map(Vec::len), Some(27));
    assert!(t.mentions.len() >= 10, "{}", t.mentions.len());
    assert_perfect(&score(&t, &t), "tei");
    assert_perfect(&score(&j, &j), "s2orc");
    assert_perfect(&score(&t, &from_doc(&to_doc(&t))), "tei via to_doc");
    let cross = score(&t, &j);
    let line: Vec<String> = cross
        .iter()
        .map(|m| format!("{}={}", m.id, m.value.map_or("null".into(), |v| format!("{v:.3}"))))
        .collect();
    println!("N18-3011 TEI vs S2ORC JSON: {}", line.join(" "));
}

/// A synthetic paper of about `chars` chars of prose, with tables, formulas and citations.
pub(crate) fn synthetic(chars: usize, seed: u64) -> Paper {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let words = [
        "model", "parser", "table", "results", "the", "of", "we", "show", "that", "data", "neural",
        "tagging", "accuracy", "corpus", "sentence", "token", "graph", "entity",
    ];
    let refs: Vec<Reference> = (0..40)
        .map(|i| Reference {
            title: Some(format!("Paper {i}")),
            authors: vec![format!("Ann Name{i}"), format!("Bo Other{i}")],
            venue: Some("ACL".into()),
            year: Some(format!("{}", 1990 + i % 30)),
            ..Reference::default()
        })
        .collect();
    let mut sections = Vec::new();
    let mut total = 0;
    let mut s = 0;
    while total < chars {
        let mut text = String::new();
        for line in 0..40 {
            for _ in 0..12 {
                text.push_str(words[(next() % words.len() as u64) as usize]);
                text.push(' ');
            }
            match line % 10 {
                3 => {
                    let i = (next() % 40) as usize;
                    text.push_str(&format!("(Name{i} and Other{i}, {})", 1990 + i % 30));
                }
                5 => text.push_str(&format!(
                    "Test {},{:03} {}.{} {}",
                    next() % 90 + 10,
                    next() % 1000,
                    next() % 100,
                    next() % 10,
                    next() % 1000
                )),
                7 => text.push_str("y = Wx + b"),
                _ => {}
            }
            text.push('\n');
        }
        total += text.len();
        sections.push(Section {
            heading: Some(format!("{} Section {s}", s + 1)),
            level: None,
            text,
        });
        s += 1;
    }
    let mut p = Paper {
        title: Some("Synthetic".into()),
        abstract_text: Some("We test speed.".into()),
        sections: Some(sections),
        references: Some(refs),
        ..Paper::default()
    };
    p.rebuild_mentions();
    p
}

/// `g` with every `every`-th word of its sections replaced.
fn damaged(g: &Paper, every: usize) -> Paper {
    let mut p = g.clone();
    for s in p.sections.as_mut().unwrap() {
        let mut n = 0;
        s.text = s
            .text
            .split(' ')
            .map(|w| {
                n += 1;
                if n % every == 0 {
                    "changed"
                } else {
                    w
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
    p
}

fn time_score(g: &Paper, p: &Paper) -> std::time::Duration {
    let runs = 10;
    std::hint::black_box(score(g, p));
    let t = std::time::Instant::now();
    for _ in 0..runs {
        std::hint::black_box(score(g, p));
    }
    t.elapsed() / runs
}

#[test]
fn scoring_is_fast() {
    for chars in [40_000, 70_000] {
        let g = synthetic(chars, 7);
        let same = time_score(&g, &g);
        let mild = time_score(&g, &damaged(&g, 200));
        let heavy = time_score(&g, &damaged(&g, 50));
        println!(
            "score() on {chars} chars: GT vs GT {same:?}, 1 word in 200 changed {mild:?}, 1 in 50 {heavy:?}"
        );
        assert!(heavy.as_millis() < 1000, "{heavy:?}");
    }
}

/// Issue 19: a `biblStruct` without `imprint/date` whose title holds a year. Read from the
/// structure its key has no year; its ACL rendering parsed back as text finds the year in the
/// title. The truth's Doc carries the structure, so both sides read the same reference.
#[test]
fn r19_a_reference_without_a_date_whose_title_holds_a_year_scores_one() {
    let tei = r#"<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt>
        <title>Sentence vectors</title></titleStmt></fileDesc></teiHeader><text><body>
        <div><head n="1">Intro</head><p>Skip-thought vectors (Kiros, 2015) and (Kiros) again.</p></div>
        </body><back><div type="references"><listBibl>
        <biblStruct><analytic><title>Skip-thought vectors in 2015</title>
          <author><persName><forename>Ryan</forename><surname>Kiros</surname></persName></author></analytic>
          <monogr><title>NIPS</title><imprint/></monogr></biblStruct>
        <biblStruct><analytic><title>Other</title>
          <author><persName><surname>Lee</surname></persName></author></analytic>
          <monogr><title>ACL</title><imprint><date when="2015"/></imprint></monogr></biblStruct>
        </listBibl></div></back></text></TEI>"#;
    let raw = read_grobid_tei(tei.as_bytes()).unwrap();
    let r = &raw.references.as_ref().unwrap()[0];
    assert_eq!(r.key(), Some(("kiros".to_string(), String::new())));
    // The text path alone would disagree with the structure.
    let reparsed =
        crate::paper::references::parse_reference(&crate::paper::references::format_reference(r));
    assert_eq!(reparsed.key(), Some(("kiros".to_string(), "2015".to_string())));
    // The truth provider's Doc, stored as JSON and read back, against the truth as scored.
    let json = serde_json::to_vec(&to_doc(&raw)).unwrap();
    let pred = from_doc(&serde_json::from_slice(&json).unwrap());
    let gt = crate::paper::canonical(&raw);
    assert_eq!(gt.references, pred.references);
    assert_perfect(&score(&gt, &pred), "kiros");
}

/// Counts in a JATS file, read with plain element queries (not the reader under test).
struct JatsCounts {
    title: String,
    headed_body_secs: usize,
    /// The titled body `sec`s in document order: label and title, nesting depth (1 = top).
    body_heads: Vec<(String, u8)>,
    body_rows: usize,
    formulas: Vec<String>,
    refs: usize,
    xrefs: usize,
}

fn jats_counts(xml: &str) -> JatsCounts {
    let opts = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    let d = roxmltree::Document::parse_with_options(xml, opts).unwrap();
    let named = |n: &str| {
        let n = n.to_string();
        d.descendants().filter(move |e| e.is_element() && e.tag_name().name() == n)
    };
    let text = |e: roxmltree::Node| -> String {
        let t: String =
            e.descendants().filter(|x| x.is_text()).map(|x| x.text().unwrap()).collect();
        t.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let body = named("body").next().unwrap();
    let in_body = |e: &roxmltree::Node| e.ancestors().any(|a| a == body);
    let headed_body_secs = named("sec")
        .filter(in_body)
        .filter(|s| s.children().any(|c| c.has_tag_name("title") && !text(c).is_empty()))
        .count();
    let body_heads = named("sec")
        .filter(in_body)
        .filter_map(|s| {
            let part = |n: &str| s.children().find(|c| c.has_tag_name(n)).map(text);
            let h = format!("{} {}", part("label").unwrap_or_default(), part("title")?);
            let depth = s.ancestors().filter(|a| a.has_tag_name("sec")).count() as u8;
            let h = h.split_whitespace().collect::<Vec<_>>().join(" ");
            (!h.is_empty()).then_some((h, depth))
        })
        .collect();
    let body_rows = named("tr")
        .filter(|r| !r.ancestors().any(|a| a.has_tag_name("thead")))
        .filter(|r| {
            let cells: Vec<_> = r.children().filter(|c| c.is_element()).collect();
            !cells.iter().all(|c| c.has_tag_name("th"))
                && cells.iter().any(|c| !text(*c).is_empty())
        })
        .count();
    let formulas = named("disp-formula")
        .map(|f| f.children().find(|c| c.has_tag_name("label")).map(text).unwrap_or_default())
        .collect();
    JatsCounts {
        title: text(named("article-title").next().unwrap()),
        headed_body_secs,
        body_heads,
        body_rows,
        formulas,
        refs: named("ref").count(),
        xrefs: named("xref").filter(|x| x.attribute("ref-type") == Some("bibr")).count(),
    }
}

#[test]
fn pmc_jats_files_read_as_their_xml_says_and_score_one_against_themselves() {
    let Some(data) = shared_data() else { return };
    let Ok(entries) = std::fs::read_dir(data.join("jats")) else {
        crate::test_support::skip_or_fail("the shared JATS files are absent");
        return;
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "nxml"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let xml = std::fs::read_to_string(&f).unwrap();
        let want = jats_counts(&xml);
        let p = crate::formats::jats::read_jats(xml.as_bytes()).unwrap();
        let name = f.display().to_string();
        assert_eq!(p.title.as_deref(), Some(want.title.as_str()), "{name}");
        let s = p.sections.as_ref().unwrap();
        // Every titled body `sec` is a section, at the depth it is nested to.
        let body_headed = s.iter().filter(|x| x.heading.is_some()).count();
        assert!(body_headed >= want.headed_body_secs, "{name}: {body_headed}");
        assert!(s.iter().all(|x| x.heading.is_none() || x.level.is_some()), "{name}");
        assert!(s.iter().any(|x| x.level == Some(2)), "{name}: no nested sec");
        // The body's section tree, heading by heading and level by level, comes first.
        let heads: Vec<(String, u8)> = s
            .iter()
            .filter_map(|x| Some((x.heading.clone()?, x.level?)))
            .take(want.body_heads.len())
            .collect();
        assert_eq!(heads, want.body_heads, "{name}");
        // Every body row of every table is a table line (header rows are text).
        assert_eq!(p.tables.as_ref().map(Vec::len), Some(want.body_rows), "{name}");
        // Every display formula is a line that ends with its label.
        let lines: Vec<&str> = s.iter().flat_map(|x| x.text.lines()).collect();
        for label in &want.formulas {
            assert!(lines.iter().any(|l| l.ends_with(label.as_str()) && l.len() > label.len()));
        }
        assert_eq!(p.references.as_ref().map(Vec::len), Some(want.refs), "{name}");
        assert!(p.references.as_ref().unwrap().iter().all(|r| r.year.is_some()));
        // The one extractor finds mentions where the article marks its citations.
        assert!(
            p.mentions.len() * 2 >= want.xrefs,
            "{name}: {} of {}",
            p.mentions.len(),
            want.xrefs
        );
        let gt = crate::paper::canonical(&p);
        let pred = from_doc(&to_doc(&p));
        let ms = score(&gt, &pred);
        assert_perfect(&ms, &name);
        println!(
            "{name}: {} sections ({} body headings as the XML nests them), {} table lines, {} formulas, {} refs, {} mentions ({} bibr xrefs), {} non-null metrics",
            s.len(),
            want.body_heads.len(),
            want.body_rows,
            want.formulas.len(),
            want.refs,
            p.mentions.len(),
            want.xrefs,
            ms.iter().filter(|m| m.value.is_some()).count()
        );
    }
}

/// Issue 40: a reference no key can be formed for is counted as unkeyable and named in the
/// trace, never keyed as a blank; the others are scored as before.
#[test]
fn r40_unkeyable_references_are_named_not_keyed() {
    let r = |authors: &[&str], year: &str| Reference {
        authors: authors.iter().map(|a| a.to_string()).collect(),
        year: Some(year.into()),
        ..Reference::default()
    };
    let ids = Reference { doi: Some("10.1000/x".into()), ..Reference::default() };
    let gt = Paper {
        references: Some(vec![r(&["Zimmermann MB"], "2007"), ids.clone()]),
        ..Paper::default()
    };
    let pred =
        Paper { references: Some(vec![r(&["M. B. Zimmermann"], "2007"), ids]), ..Paper::default() };
    let ms = score(&gt, &pred);
    assert_eq!(val(&ms, "ref_r"), Some(1.0));
    assert_eq!(val(&ms, "ref_p"), Some(1.0));
    let t = &get(&ms, "ref_r").trace;
    assert_eq!(t["total"], 1);
    assert_eq!(t["unkeyable"], 1);
    assert_eq!(t["unkeyable_refs"][0], "doi:10.1000/x.");
    // Only unkeyable references: nothing to score.
    let only = Paper { references: Some(vec![Reference::default()]), ..Paper::default() };
    assert_eq!(val(&score(&only, &only), "ref_r"), None);
}

/// Issue 40: a JATS truth in a biomedical journal's style (element-citations, a plain-text
/// organisation author, a no-author report, an identifiers-only entry) against the reference
/// list a text-layer parser prints in Vancouver style scores `ref_r` = `ref_p` = 1.
#[test]
fn r40_vancouver_references_score_against_their_jats_truth() {
    use crate::doc::{BBox, Block, BlockKind, Doc};
    let name = |s: &str, g: &str| {
        format!("<name><surname>{s}</surname><given-names>{g}</given-names></name>")
    };
    let cite = |names: &[String], title: &str, source: &str, year: &str| {
        format!(
            "<ref><element-citation publication-type=\"journal\"><person-group \
             person-group-type=\"author\">{}</person-group><article-title>{title}\
             </article-title><source>{source}</source><year>{year}</year></element-citation></ref>",
            names.concat()
        )
    };
    let refs = [
        cite(&[name("Zimmermann", "MB"), name("Hurrell", "RF")], "Nutritional iron deficiency",
             "Lancet", "2007"),
        cite(&[name("van der Berg", "J"), name("Smith", "K")], "Iron in the diet", "BMJ", "2010"),
        "<ref><mixed-citation publication-type=\"other\">World Health Organization. <source>Iron \
         deficiency anaemia</source>. Geneva; <year>2001</year>.</mixed-citation></ref>"
            .to_string(),
        "<ref><element-citation publication-type=\"other\"><source>Global tuberculosis report \
         2015</source><publisher-name>WHO</publisher-name><year>2015</year></element-citation></ref>"
            .to_string(),
        "<ref><mixed-citation><pub-id pub-id-type=\"pmid\">12345678</pub-id></mixed-citation></ref>"
            .to_string(),
    ];
    let xml = format!(
        "<article><body><sec><title>Intro</title><p>Iron.</p></sec></body><back><ref-list>{}\
         </ref-list></back></article>",
        refs.concat()
    );
    let gt = crate::paper::canonical(&crate::formats::jats::read_jats(xml.as_bytes()).unwrap());
    let block = |kind, text: &str| Block::new(kind, 0, BBox::default(), text);
    let mut blocks = vec![block(BlockKind::Heading, "Intro"), block(BlockKind::Paragraph, "Iron.")];
    blocks.push(block(BlockKind::Heading, "References"));
    for entry in [
        "1. Zimmermann MB, Hurrell RF. Nutritional iron deficiency. Lancet 2007;370:511e20.",
        "2. van der Berg J, Smith K. Iron in the diet. BMJ 2010;340:c12.",
        "3. World Health Organization. Iron deficiency anaemia. Geneva; 2001.",
        "4. Global tuberculosis report 2015. Geneva: WHO; 2015.",
        "5. PMID: 12345678.",
    ] {
        blocks.push(block(BlockKind::Reference, entry));
    }
    let pred = from_doc(&Doc { pages: Vec::new(), blocks, markdown: None, meta: None });
    let ms = score(&gt, &pred);
    assert_eq!(val(&ms, "ref_r"), Some(1.0), "{}", get(&ms, "ref_r").trace);
    assert_eq!(val(&ms, "ref_p"), Some(1.0), "{}", get(&ms, "ref_p").trace);
    assert_eq!(get(&ms, "ref_r").trace["total"], 4);
    assert_eq!(get(&ms, "ref_r").trace["unkeyable"], 1);
    assert_eq!(get(&ms, "ref_p").trace["unkeyable"], 1);
    assert_perfect(&score(&gt, &gt), "vancouver truth");
}
