//! Hand-computed tests of the GROBID-style field scores: normalization, the two string
//! similarities, each matching, citation alignment by each rule, averages and pooling.

use super::*;
use crate::paper::{Paper, Reference};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn get<'a>(ms: &'a [FieldMetric], id: &str) -> &'a FieldMetric {
    ms.iter().find(|m| m.0 == id).unwrap_or_else(|| panic!("no metric {id}"))
}

fn val(ms: &[FieldMetric], id: &str) -> Option<f64> {
    get(ms, id).1
}

#[test]
fn normalizations_follow_grobid() {
    assert_eq!(basic_normalization("  Deep\n Learning\t&apos;s  Way "), "deep learning 's way");
    assert_eq!(remove_full_punct("Deep Learning: a (new) “way”—fast."), "deeplearninganewway—fast");
    assert_eq!(remove_full_punct("J. Birds · 12"), "jbirds12");
    assert_eq!(identifier_normalization(" DOI: 10.1000/ABC "), "10.1000/abc");
    assert_eq!(identifier_normalization("PMC12345"), "12345");
}

#[test]
fn ratcliff_obershelp_is_stringmetrics() {
    // The library's own test values.
    let ro = |a, b| ratcliff_obershelp(a, b).unwrap();
    assert!(close(ro("aleksander", "alexandre"), 0.7368421052631579));
    assert!(close(ro("alexandre", "aleksander"), 0.7368421052631579));
    assert!(close(ro("pennsylvania", "pencilvaneya"), 0.6666666666666666));
    assert!(close(ro("abcefglmn", "abefglmo"), 0.8235294117647058));
    assert_eq!(ro("abc", "xyz"), 0.0);
    assert_eq!(ro("abc", "abc"), 1.0);
    assert_eq!(ratcliff_obershelp("", "abc"), None);
    // By hand: "neural tagg" (11) + " models" (7) of 21 + 20 chars.
    assert!(close(ro("neural tagging models", "neural tagger models"), 36.0 / 41.0));
}

#[test]
fn levenshtein_counts_utf16_units() {
    let u = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
    assert_eq!(levenshtein_utf16(&u("kitten"), &u("sitting")), 3);
    assert_eq!(levenshtein_utf16(&u(""), &u("abc")), 3);
    // A char outside the BMP is two units, as in Java.
    assert_eq!(levenshtein_utf16(&u("a𝛼"), &u("a")), 2);
}

fn header(title: &str, surnames: &[&str], abs: &str, keywords: &[&str]) -> Paper {
    Paper {
        title: Some(title.into()),
        authors: surnames.iter().map(|s| format!("X {s}")).collect(),
        surnames: Some(surnames.iter().map(|s| s.to_string()).collect()),
        abstract_text: Some(abs.into()),
        keywords: keywords.iter().map(|s| s.to_string()).collect(),
        ..Paper::default()
    }
}

#[test]
fn each_matching_by_hand_on_header_fields() {
    let gt = header("Neural Tagging Models", &["van Dam", "Lee"], "Abstract We tag.", &["a", "b"]);
    let pred = header("neural tagger models", &["Van Dam", "Lee"], "We tag", &[]);
    let ms = score(&gt, &pred);
    // Title: soft differs ("neuraltaggingmodels" vs "neuraltaggermodels"); Levenshtein 3 of
    // 21 → 0.857 ≥ 0.8; Ratcliff/Obershelp 36/41 = 0.878 < 0.95.
    for (m, hit) in [("strict", 0.0), ("soft", 0.0), ("lev", 1.0), ("ro", 0.0)] {
        assert_eq!(val(&ms, &format!("hdr_title_{m}_r")), Some(hit), "{m}");
        assert_eq!(val(&ms, &format!("hdr_title_{m}_p")), Some(hit), "{m}");
    }
    assert_eq!(get(&ms, "hdr_title_strict_p").2["fp"], 1);
    assert_eq!(get(&ms, "hdr_title_ro_r").2["missing"][0]["gold"], "neural tagging models");
    // Surnames joined, lowercased: equal under every matching.
    for m in MATCHINGS {
        assert_eq!(val(&ms, &format!("hdr_authors_{m}_f")), Some(1.0));
        assert_eq!(val(&ms, &format!("hdr_first_author_{m}_f")), Some(1.0));
    }
    // Abstract: its heading is dropped; "we tag." vs "we tag" is a soft match only (and
    // Levenshtein 6/7, Ratcliff/Obershelp 12/13 = 0.923).
    assert_eq!(val(&ms, "hdr_abstract_strict_r"), Some(0.0));
    assert_eq!(val(&ms, "hdr_abstract_soft_r"), Some(1.0));
    assert_eq!(val(&ms, "hdr_abstract_lev_r"), Some(1.0));
    assert_eq!(val(&ms, "hdr_abstract_ro_r"), Some(0.0));
    // Keywords predicted none: recall 0, precision 0 (no true positive), a false negative.
    assert_eq!(val(&ms, "hdr_keywords_strict_r"), Some(0.0));
    assert_eq!(get(&ms, "hdr_keywords_strict_f").2["fn"], 1);
    // Micro strict over 5 fields with an expected value: tp 2 (authors, first author) of 5
    // expected, fp 2 (title, abstract): P 2/4, R 2/5.
    assert!(close(val(&ms, "hdr_micro_strict_p").unwrap(), 0.5));
    assert!(close(val(&ms, "hdr_micro_strict_r").unwrap(), 0.4));
    assert!(close(val(&ms, "hdr_micro_strict_f").unwrap(), 2.0 * 0.5 * 0.4 / 0.9));
    // Macro soft: per-field recall 0,1,1,1,0 → 0.6; precision 0,1,1,1,0 → 0.6.
    assert!(close(val(&ms, "hdr_macro_soft_r").unwrap(), 0.6));
    assert!(close(val(&ms, "hdr_macro_soft_p").unwrap(), 0.6));
    assert!(close(val(&ms, "hdr_macro_soft_f").unwrap(), 0.6));
    // A truth without keywords leaves them null, not 0 or 1.
    let no_kw = header("T", &[], "", &[]);
    let ms = score(&no_kw, &pred);
    assert_eq!(val(&ms, "hdr_keywords_strict_f"), None);
    assert_eq!(val(&ms, "cit_title_strict_f"), None);
}

fn r(title: &str, surnames: &[&str], year: &str) -> Reference {
    Reference {
        title: (!title.is_empty()).then(|| title.to_string()),
        authors: surnames.iter().map(|s| format!("A {s}")).collect(),
        surnames: Some(surnames.iter().map(|s| s.to_string()).collect()),
        year: (!year.is_empty()).then(|| year.to_string()),
        ..Reference::default()
    }
}

fn refs(list: Vec<Reference>) -> Paper {
    Paper { references: Some(list), ..Paper::default() }
}

#[test]
fn citations_align_by_each_rule_in_turn() {
    let g0 = r("Tree tagging", &["Schmid"], "2001");
    let g1 = r("", &["Lee", "Wu"], "2005");
    let g2 = Reference {
        venue: Some("J Birds".into()),
        volume: Some("12".into()),
        first_page: Some("45".into()),
        ..Reference::default()
    };
    let g3 = r("Flocks", &["Kim"], "");
    let g4 = Reference { doi: Some("10.1000/abc".into()), ..Reference::default() };
    let gt = refs(vec![g0, g1, g2, g3, g4]);
    let p0 = r("Flocks!", &["Kim"], ""); // rule 4: first author + title
    let p1 = r("", &["Lee", "Wu"], "2005"); // rule 2: authors + date
    let p2 = r("Tree tagging.", &["Schmid"], "2001"); // rule 1: title + date
    let p3 = Reference {
        venue: Some("J. Birds".into()),
        volume: Some("12".into()),
        first_page: Some("45".into()),
        ..Reference::default()
    }; // rule 3: venue + volume + page
    let p4 = Reference { doi: Some("doi:10.1000/ABC".into()), ..Reference::default() }; // rule 5
    let p5 = r("Nope", &[], "1999"); // aligns with nothing
    let pred = refs(vec![p0, p1, p2, p3, p4, p5]);
    let ms = score(&gt, &pred);
    let a = &get(&ms, "cit_title_strict_f").2["alignment"];
    assert_eq!(a["by_rule"], json!([1, 1, 1, 1, 1]), "{a}");
    assert_eq!((a["unaligned_pred"].as_u64(), a["unaligned_gold"].as_u64()), (Some(1), Some(0)));
    // Titles: expected 2 (g0, g3). Strict: "flocks!" and "tree tagging." differ, "nope" is
    // unaligned: tp 0, fp 3. Soft: tp 2, fp 1.
    let t = &get(&ms, "cit_title_strict_f").2;
    assert_eq!(
        (t["tp"].as_u64(), t["fp"].as_u64(), t["expected"].as_u64()),
        (Some(0), Some(3), Some(2))
    );
    assert!(close(val(&ms, "cit_title_soft_p").unwrap(), 2.0 / 3.0));
    assert_eq!(val(&ms, "cit_title_soft_r"), Some(1.0));
    // Dates are not textual: soft is strict. Expected 2001, 2005; "1999" unaligned.
    assert!(close(val(&ms, "cit_date_soft_p").unwrap(), 2.0 / 3.0));
    assert_eq!(val(&ms, "cit_date_soft_r"), Some(1.0));
    // The venue: soft only ("j birds" vs "j. birds").
    assert_eq!(val(&ms, "cit_venue_strict_r"), Some(0.0));
    assert_eq!(val(&ms, "cit_venue_soft_r"), Some(1.0));
    // The DOI is an identifier: its prefix and case go.
    assert_eq!(val(&ms, "cit_doi_strict_f"), Some(1.0));
    // The unaligned prediction's title is named in the trace.
    let extra = get(&ms, "cit_title_soft_p").2["extra"].as_array().unwrap().clone();
    assert!(extra.iter().any(|e| e["pred"] == "nope" && e["gold"].is_null()), "{extra:?}");
}

#[test]
fn an_unaligned_gold_citation_is_missed_and_venue_tails_are_split() {
    let gt = refs(vec![
        Reference {
            title: Some("A".into()),
            year: Some("2014".into()),
            venue: Some("Journal of X, 14(2):33-51".into()),
            ..Reference::default()
        },
        r("B", &["Kim"], "2015"),
    ]);
    let pred = refs(vec![Reference {
        title: Some("A".into()),
        year: Some("2014".into()),
        venue: Some("Journal of X".into()),
        volume: Some("14".into()),
        issue: Some("2".into()),
        first_page: Some("33".into()),
        ..Reference::default()
    }]);
    let ms = score(&gt, &pred);
    for f in ["venue", "volume", "issue", "page"] {
        assert_eq!(val(&ms, &format!("cit_{f}_strict_f")), Some(1.0), "{f}");
    }
    // "B" was never predicted: expected but not a hit, and named as missing.
    assert_eq!(val(&ms, "cit_title_strict_r"), Some(0.5));
    assert_eq!(val(&ms, "cit_title_strict_p"), Some(1.0));
    let missing = &get(&ms, "cit_title_strict_r").2["missing"];
    assert_eq!(missing[0]["gold"], "b");
    assert_eq!(val(&ms, "cit_authors_strict_r"), Some(0.0));
    assert_eq!(val(&ms, "cit_authors_strict_p"), Some(0.0));
    // A truth without a reference list counts no false positives (nothing to pool).
    let ms = score(&Paper::default(), &pred);
    assert_eq!(get(&ms, "cit_title_strict_f").2["fp"], 0);
    // One with an empty list does.
    let ms = score(&refs(vec![]), &pred);
    assert_eq!(get(&ms, "cit_title_strict_f").2["fp"], 1);
}

#[test]
fn a_truth_against_itself_is_one_even_with_duplicates_and_bare_citations() {
    let g = refs(vec![
        r("Same", &["Lee"], "2001"),
        Reference { volume: Some("3".into()), ..r("Same", &["Lee"], "2001") },
        Reference { issue: Some("7".into()), ..Reference::default() },
        Reference { issue: Some("7".into()), ..Reference::default() },
        Reference::default(),
    ]);
    let ms = score(&g, &g);
    for (id, v, t) in &ms {
        assert!(v.is_none() || *v == Some(1.0), "{id} = {v:?} {t}");
    }
    assert_eq!(val(&ms, "cit_volume_strict_f"), Some(1.0));
    assert_eq!(val(&ms, "cit_issue_ro_f"), Some(1.0));
}

#[test]
fn ids_match_the_metrics_and_pooling_sums_counts() {
    let gt = header("Title One", &["Lee"], "", &[]);
    let ms = score(&gt, &header("Title One", &["Wu"], "", &[]));
    let ids: Vec<&str> = ms.iter().map(|m| m.0).collect();
    assert_eq!(ids, metric_ids());
    assert_eq!(ids.len(), (5 + 2 + 9 + 2) * 4 * 3);
    let ms2 = score(&gt, &header("Other", &["Lee"], "", &[]));
    let mut pool = Pooled::default();
    for m in [&ms, &ms2] {
        pool.add(m.iter().map(|(id, _, t)| (*id, t)));
    }
    assert_eq!(pool.papers, 2);
    let t = pool.get("hdr", "title", "strict");
    assert_eq!((t.tp, t.fp, t.expected), (1, 1, 2));
    let rep = pool.report();
    let strict = &rep["groups"]["header"]["strict"];
    // title 1/2, authors 1/2, first author 1/2: micro P = 3/6, R = 3/6.
    assert!(close(strict["micro"]["precision"].as_f64().unwrap(), 0.5));
    assert!(close(strict["micro"]["recall"].as_f64().unwrap(), 0.5));
    assert_eq!(strict["fields"][0]["support"], 2);
}
