//! Tests of the report tables (`report/mod.rs`).

use super::*;

const NOW: &str = "2026-12-02T10:30:00.000Z";

#[test]
fn since_reads_runs_dates_and_ages() {
    assert_eq!(Since::parse("42", NOW), Ok(Since::Run(42)));
    assert_eq!(Since::parse("2026-11-01", NOW), Ok(Since::Time("2026-11-01T00:00:00.000Z".into())));
    assert_eq!(Since::parse("last-week", NOW), Ok(Since::Time("2026-11-25T10:30:00.000Z".into())));
    assert_eq!(Since::parse("yesterday", NOW), Ok(Since::Time("2026-12-01T00:00:00.000Z".into())));
    assert_eq!(Since::parse("36h", NOW), Ok(Since::Time("2026-11-30T22:30:00.000Z".into())));
    assert!(Since::parse("soon", NOW).is_err());
    assert_eq!(parse_utc("1970-01-02"), Some(86_400));
    assert_eq!(parse_utc("2000-03-01T00:00:01"), Some(951_868_801));
}

#[test]
fn selectors_and_groupings_parse() {
    let s = Selector::parse("pdfium@v2").unwrap();
    assert!(s.matches("pdfium", "2", "abc"));
    assert!(!s.matches("pdfium", "1", "abc"));
    assert!(Selector::parse("pdfium@").is_err());
    assert_eq!(By::parse("attribute:lang"), Ok(By::Attribute("lang".into())));
    assert!(By::parse("attribute:").is_err());
}

fn columns() -> ScoreColumns {
    // Two providers versions, two documents, two metrics; one value missing, one null.
    let rows: [(&str, &str, &str, Option<f64>); 7] = [
        ("d1", "1", "m1", Some(0.5)),
        ("d1", "1", "m2", Some(1.0)),
        ("d2", "1", "m1", Some(0.7)),
        ("d2", "1", "m2", None),
        ("d1", "2", "m1", Some(0.9)),
        ("d2", "2", "m1", Some(0.6)),
        ("d2", "2", "m2", Some(0.25)),
    ];
    let mut c = ScoreColumns::default();
    for (d, v, m, x) in rows {
        let key = crate::store::ScoreKey {
            document: d.into(),
            dataset: "s".into(),
            provider: "p".into(),
            provider_version: v.into(),
            model_digest: "abc".into(),
            attribute: Some(if d == "d1" { "en" } else { "zh" }.into()),
        };
        let run = if v == "1" { 1 } else { 2 };
        c.push(key, m, x, Some(run));
        c.run_started_at.insert(run, NOW.into());
    }
    c
}

fn f64s(df: &DataFrame, name: &str) -> Vec<Option<f64>> {
    df.column(name).unwrap().f64().unwrap().iter().collect()
}

#[test]
fn retained_metrics_drop_their_rows_and_ids() {
    let mut c = columns();
    c.retain_metrics(|m| m != "m1");
    assert_eq!(c.metrics, ["m2"]);
    assert_eq!(c.len(), 3);
    assert_eq!(metric_order(&c, &["m1", "m2"]), ["m2"]);
    let long = long_frame(&c).unwrap();
    let values: Vec<Option<f64>> = long.column("value").unwrap().f64().unwrap().iter().collect();
    assert_eq!(values, [Some(1.0), None, Some(0.25)]);
    c.retain_metrics(|_| false);
    assert!(c.is_empty() && c.metrics.is_empty());
}

#[test]
fn summary_averages_skip_nulls_and_missing_values() {
    let c = columns();
    assert_eq!(long_frame(&c).unwrap().height(), 7);
    let metrics = metric_order(&c, &["m2"]);
    assert_eq!(metrics, ["m2", "m1"]);
    let wide = wide_frame(&c, &metrics).unwrap();
    let t = summary(&wide, &metrics, &By::Document).unwrap();
    let docs: Vec<Option<&str>> = t.column("document").unwrap().str().unwrap().iter().collect();
    assert_eq!(docs, [Some("d1"), Some("d2"), Some("AVG"), Some("d1"), Some("d2"), Some("AVG")]);
    // v1: m1 = (0.5 + 0.7) / 2; m2 = 1.0 alone (d2's null is not a 0).
    // v2: m2 = 0.25 alone (d1 has no m2 at all).
    let m1 = f64s(&t, "m1");
    let m2 = f64s(&t, "m2");
    assert!((m1[2].unwrap() - 0.6).abs() < 1e-12);
    assert_eq!((m2[1], m2[2], m2[3], m2[5]), (None, Some(1.0), None, Some(0.25)));
    let by = summary(&wide, &metrics, &By::Attribute("lang".into())).unwrap();
    assert_eq!(by.height(), 4);
    let p = summary(&wide, &metrics, &By::Provider).unwrap();
    assert_eq!(f64s(&p, "m1"), [Some(0.6), Some(0.75)]);
}

#[test]
fn compare_gives_deltas_biggest_loss_first() {
    let c = columns();
    let long = long_frame(&c).unwrap();
    let a = Selector::parse("p@1").unwrap();
    let b = Selector::parse("p@2").unwrap();
    let (per_metric, rows) = compare(&long, &c, &a, &b, None).unwrap();
    let d = f64s(&rows, "delta");
    // d2/m1: 0.6 − 0.7 = −0.1 first; d1/m1: +0.4; then the pairs with a side missing.
    assert!((d[0].unwrap() + 0.1).abs() < 1e-12);
    assert!((d[1].unwrap() - 0.4).abs() < 1e-12);
    assert_eq!(d[2..], [None, None]);
    let m1 = f64s(&per_metric, "delta");
    assert!((m1[0].unwrap() - 0.15).abs() < 1e-12);
    assert_eq!(m1[1], None, "m2 has no document scored by both");
}

#[test]
fn history_has_one_row_per_run() {
    let c = columns();
    let long = long_frame(&c).unwrap();
    let h = history(&long, &["m1".to_string()]).unwrap();
    assert_eq!(h.height(), 2);
    let m1 = f64s(&h, "m1");
    assert!((m1[0].unwrap() - 0.6).abs() < 1e-12 && (m1[1].unwrap() - 0.75).abs() < 1e-12);
}
