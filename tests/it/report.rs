//! `corpus report`: hand-computed averages and deltas on a store with two runs of two
//! provider versions, `--since`, nulls, every output format, and a snapshot of the table.

use std::path::{Path, PathBuf};

use corpus::store::{IngestDoc, NewOutput, Store, TruthFile};

use crate::util::{corpus, json, run};

/// d1 and d2 (attributes lang=en / lang=zh), scored by p@1 in run A and p@2 in run B.
///
/// | doc | metric  | p@1  | p@2  |
/// |-----|---------|------|------|
/// | d1  | text_r  | 0.50 | 0.90 |
/// | d1  | table_r | 1.00 | –    | (p@2 has no table_r for d1)
/// | d2  | text_r  | 0.70 | 0.60 |
/// | d2  | table_r | null | 0.25 |
fn store() -> (tempfile::TempDir, PathBuf, i64) {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let mut s = Store::open(&db).unwrap();
    let mut ids = Vec::new();
    for (name, lang) in [("d1", "en"), ("d2", "zh")] {
        let bytes = format!("%PDF-1.4 {name}");
        let truth = TruthFile {
            format: "peerread",
            part: "",
            bytes: b"{\"name\": \"x\"}",
            source_path: "x.json",
        };
        let out = s
            .ingest(&IngestDoc {
                dataset: "set",
                name,
                source_path: name,
                pdf: corpus::store::PdfData::Bytes(bytes.as_bytes()),
                pages: 1,
                truths: &[truth],
                attributes: &[("lang".to_string(), lang.to_string())],
            })
            .unwrap();
        ids.push(out.document);
    }
    let truths = s.truths(None).unwrap();
    let mut second_run = 0;
    for (version, values) in [
        ("1", [Some(0.5), Some(1.0), Some(0.7), None]),
        ("2", [Some(0.9), None, Some(0.6), Some(0.25)]),
    ] {
        let run = s.start_run("eval", &[]).unwrap();
        second_run = run.0;
        for (i, doc) in ids.iter().enumerate() {
            let key = format!("key-{version}-{doc}");
            s.put_output(&NewOutput {
                cache_key: &key,
                document: *doc,
                provider: "p",
                provider_version: version,
                model_digest: "m",
                config: "{}",
                pages: "all",
                result: Ok(b"{\"pages\": [], \"blocks\": []}"),
                usage: corpus::store::Usage { wall_ms: 1, ..Default::default() },
                device: "cpu",
                run: Some(run),
            })
            .unwrap();
            let out = s.latest_output(*doc, "p").unwrap().unwrap();
            let truth = truths.iter().find(|t| t.document == *doc).unwrap().id;
            let mut rows = vec![("text_r", values[2 * i], String::new())];
            // p@2 scored no table_r for d1 at all; p@1 stored a null for d2.
            if !(version == "2" && i == 0) {
                rows.push(("table_r", values[2 * i + 1], String::new()));
            }
            s.put_metrics(out.id, truth, "paper", 1, Some(run), &rows).unwrap();
        }
        s.finish_run(run, &serde_json::json!({}), 0).unwrap();
    }
    (d, db, second_run)
}

fn report(db: &Path, args: &[&str]) -> serde_json::Value {
    let out = run(corpus(db).arg("report").args(args).args(["--format", "json"]));
    assert!(out.status.success());
    json(&out)
}

fn close(v: &serde_json::Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-12)
}

#[test]
fn averages_skip_nulls_and_missing_values() {
    let (_d, db, _) = store();
    let rows = report(&db, &["--suite", "paper"]);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 6, "two documents and an AVG row per provider version");
    let avg1 = &rows[2];
    assert_eq!((avg1["document"].as_str(), avg1["provider"].as_str()), (Some("AVG"), Some("p@1")));
    assert!(close(&avg1["text_r"], 0.6));
    assert!(close(&avg1["table_r"], 1.0), "d2's null is not averaged as 0");
    assert!(rows[1]["table_r"].is_null(), "a null stays null");
    let avg2 = &rows[5];
    assert!(close(&avg2["text_r"], 0.75));
    assert!(close(&avg2["table_r"], 0.25), "d1 has no table_r for p@2");
    let by = report(&db, &["--suite", "paper", "--by", "attribute:lang"]);
    let en: Vec<_> = by.as_array().unwrap().iter().filter(|r| r["lang"] == "en").collect();
    assert_eq!(en.len(), 2);
    assert!(close(&en[1]["text_r"], 0.9));
}

#[test]
fn compare_and_since_and_history() {
    let (_d, db, second_run) = store();
    // --format json: one object, the per-metric summary beside the per-document rows.
    let both = report(&db, &["--compare", "p@v1", "p@2"]);
    assert_eq!((both["a"].as_str(), both["b"].as_str()), (Some("p@v1"), Some("p@2")));
    assert!(both["note"].as_str().unwrap().contains("NOT stratified by dataset"), "{both}");
    let text_r = both["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "text_r");
    let text_r = text_r.expect("text_r in the summary");
    assert!(close(&text_r["p"], 1.0) && close(&text_r["p_holm"], 1.0), "{text_r}");
    assert!(close(&text_r["delta_lo"], -0.1) && close(&text_r["delta_hi"], 0.4), "{text_r}");
    let rows = &both["documents"];
    let first = &rows[0];
    assert_eq!(
        (first["document"].as_str(), first["metric"].as_str()),
        (Some("d2"), Some("text_r"))
    );
    assert!(close(&first["delta"], -0.1), "the biggest loss comes first: {first}");
    assert!(close(&rows[1]["delta"], 0.4));
    // Per metric, paired: text_r's differences are 0.4 (d1) and -0.1 (d2). The four sign
    // flips give means 0.15, -0.25, 0.25, -0.15; SciPy's two-sided p is
    // 2 min(#{<= 0.15}, #{>= 0.15}) / 4 = 2 min(3, 2) / 4 = 1. table_r has no document with
    // both values: d1 lacks p@2's, d2 has p@1's null.
    let m = report(&db, &["--compare", "p@1", "p@2", "--per-metric"]);
    let m = m.as_array().unwrap();
    assert_eq!(m.len(), 2);
    let (table_r, text_r) = (&m[0], &m[1]);
    assert_eq!(text_r["metric"], "text_r");
    assert_eq!((text_r["n"].as_u64(), text_r["dropped"].as_u64()), (Some(2), Some(0)));
    assert!(close(&text_r["a"], 0.6) && close(&text_r["b"], 0.75) && close(&text_r["delta"], 0.15));
    assert!(close(&text_r["p"], 1.0) && close(&text_r["p_holm"], 1.0), "{text_r}");
    assert_eq!(text_r["exact"], true);
    // The paired bootstrap of two differences: means 0.4, 0.15, -0.1.
    assert!(close(&text_r["delta_lo"], -0.1) && close(&text_r["delta_hi"], 0.4), "{text_r}");
    assert_eq!((table_r["n"].as_u64(), table_r["dropped"].as_u64()), (Some(0), Some(2)));
    assert!(table_r["p"].is_null() && table_r["delta"].is_null());
    // Text output: both tables, and the intervals' recipe on stderr.
    let out = run(corpus(&db).args(["report", "--compare", "p@1", "p@2"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("metric   n  dropped"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("2000 resamples, seed 0"));
    // Nothing matched: the message names the filter that matched nothing.
    for (extra, named) in [
        (&["--compare", "p@1", "nope@1"][..], "no scores match provider nope"),
        (&["--compare", "p@1", "p@7"][..], "no scores of p@7 match; versions there: 1, 2"),
        (
            &["--compare", "p@1", "p@2", "--dataset", "elsewhere"][..],
            "no scores match --dataset elsewhere; datasets there: set",
        ),
        (
            &["--compare", "p@1", "p@2", "--since", "2999-01-01"][..],
            "no scores match --since 2999-01-01",
        ),
    ] {
        let out = run(corpus(&db).arg("report").args(extra));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(named), "{extra:?}: {err}");
    }
    let out = run(corpus(&db).args(["report", "--suite", "paper", "--dataset", "elsewhere"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no scores match --dataset elsewhere (within --suite paper)"), "{err}");
    // --rank: p@2 (mean 0.75) before p@1 (0.6). Resampling two documents: {d1, d1} puts p@2
    // first (0.9 vs 0.5), {d2, d2} p@1 (0.7 vs 0.6), a mixed draw p@2: first in 3/4 of them.
    let r = report(&db, &["--rank", "--metric", "text_r"]);
    let r = r.as_array().unwrap();
    assert_eq!((r[0]["provider"].as_str(), r[1]["provider"].as_str()), (Some("p@2"), Some("p@1")));
    assert!(close(&r[0]["rank"], 1.0) && close(&r[0]["text_r"], 0.75));
    let first = r[0]["place_1"].as_f64().unwrap();
    assert!((first - 0.75).abs() < 0.04, "{first}");
    assert!(close(&(first + r[1]["place_1"].as_f64().unwrap()).into(), 1.0));
    let since = report(&db, &["--since", &second_run.to_string()]);
    assert!(since.as_array().unwrap().iter().all(|r| r["provider"] == "p@2"), "{since}");
    assert_eq!(report(&db, &["--since", "2000-01-01"]).as_array().unwrap().len(), 6);
    let out = run(corpus(&db).args(["report", "--since", "2999-01-01"]));
    assert!(out.status.success() && out.stdout.is_empty());
    let h = report(&db, &["--history", "--metric", "text_r"]);
    let h = h.as_array().unwrap();
    assert_eq!(h.len(), 2);
    assert!(close(&h[0]["text_r"], 0.6) && close(&h[1]["text_r"], 0.75));
    assert!(h[0]["run"].as_i64() < h[1]["run"].as_i64());
}

#[test]
fn table_output_snapshot() {
    let (_d, db, _) = store();
    let out = run(corpus(&db).args(["report", "--suite", "paper", "--by", "provider"]));
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "provider  model  n  text_r                table_r\n\
         p@2       m      2  0.750 [0.600, 0.900]  0.250 [0.250, 0.250]\n\
         p@1       m      2  0.600 [0.500, 0.700]  1.000 [1.000, 1.000]\n",
        "sorted by the paper suite's first headline, text_r, best first; two documents: the \
         resampled means of text_r are 0.5, 0.6 and 0.7 for p@1"
    );
    let out =
        run(corpus(&db).args(["report", "--suite", "paper", "--by", "provider", "--ci", "none"]));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "provider  model  n  text_r  table_r\n\
         p@2       m      2   0.750    0.250\n\
         p@1       m      2   0.600    1.000\n"
    );
    let out = run(corpus(&db).args(["report", "--suite", "paper"]));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "provider  model  dataset  document  text_r  table_r\n\
         p@1       m      set      d1         0.500    1.000\n\
         p@1       m      set      d2         0.700        –\n\
         p@1       m               AVG        0.600    1.000\n\
         p@2       m      set      d1         0.900        –\n\
         p@2       m      set      d2         0.600    0.250\n\
         p@2       m               AVG        0.750    0.250\n"
    );
    let out =
        run(corpus(&db)
            .args(["report", "--by", "provider", "--format", "markdown", "--ci", "none"]));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(
        "| provider | model | n | text_r | table_r |\n| --- | --- | ---: | ---: | ---: |\n"
    ));
}

#[test]
fn csv_and_parquet_round_trip() {
    use polars_io::prelude::*;
    let (d, db, _) = store();
    let csv = d.path().join("r.csv");
    let pq = d.path().join("r.parquet");
    for (fmt, path) in [("csv", &csv), ("parquet", &pq)] {
        let out =
            run(corpus(&db).args(["report", "--suite", "paper", "--format", fmt, "-o"]).arg(path));
        assert!(out.status.success());
    }
    let from_csv = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(csv))
        .unwrap()
        .finish()
        .unwrap();
    let from_pq = ParquetReader::new(std::fs::File::open(&pq).unwrap()).finish().unwrap();
    for df in [&from_csv, &from_pq] {
        assert_eq!(df.height(), 6);
        let t: Vec<Option<f64>> = df.column("table_r").unwrap().f64().unwrap().iter().collect();
        assert_eq!(t, [Some(1.0), None, Some(1.0), None, Some(0.25), Some(0.25)]);
    }
    let nd = run(corpus(&db).args(["report", "--format", "ndjson"]));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&nd.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    let out = run(corpus(&db).args(["report", "--format", "parquet"]));
    assert_eq!(out.status.code(), Some(2), "parquet needs --output (a usage error)");
    let out = run(corpus(&db).args([
        "sql",
        "SELECT metric, avg(value) AS v FROM v_latest_scores GROUP BY 1 ORDER BY 1",
        "--format",
        "markdown",
    ]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("| table_r | 0.625 |"));
}

#[test]
fn the_fast_score_reader_returns_exactly_the_rows_of_the_views() {
    let (_d, db, _) = store();
    {
        // A second output for (d1, p@1) (a re-import) and a second suite version for d2.
        let mut s = Store::open(&db).unwrap();
        let truths = s.truths(None).unwrap();
        let docs = s.documents(None).unwrap();
        let run = s.start_run("eval", &[]).unwrap();
        let d1 = docs.iter().find(|d| d.name == "d1").unwrap().id;
        let d2 = docs.iter().find(|d| d.name == "d2").unwrap().id;
        s.put_output(&NewOutput {
            cache_key: "key-again",
            document: d1,
            provider: "p",
            provider_version: "1",
            model_digest: "m",
            config: "{\"again\": true}",
            pages: "all",
            result: Ok(b"{\"pages\": [], \"blocks\": []}"),
            usage: corpus::store::Usage { wall_ms: 1, ..Default::default() },
            device: "cpu",
            run: Some(run),
        })
        .unwrap();
        let newest = s.latest_output(d1, "p").unwrap().unwrap();
        let t1 = truths.iter().find(|t| t.document == d1).unwrap().id;
        s.put_metrics(
            newest.id,
            t1,
            "paper",
            1,
            Some(run),
            &[("text_r", Some(0.55), String::new())],
        )
        .unwrap();
        let out2 = s.latest_output(d2, "p").unwrap().unwrap();
        let t2 = truths.iter().find(|t| t.document == d2).unwrap().id;
        s.put_metrics(out2.id, t2, "paper", 2, Some(run), &[("text_r", Some(0.1), String::new())])
            .unwrap();
    }
    let s = Store::open_read_only(&db).unwrap();
    for latest in [true, false] {
        let c =
            s.score_columns(&corpus::store::ScoreFilter { latest, ..Default::default() }).unwrap();
        let mut fast: Vec<String> = (0..c.len())
            .map(|i| {
                let k = &c.keys[c.key[i] as usize];
                format!(
                    "{} {} {}@{} {} {:?}",
                    k.document,
                    k.dataset,
                    k.provider,
                    k.provider_version,
                    c.metrics[c.metric[i] as usize],
                    c.value[i]
                )
            })
            .collect();
        fast.sort();
        let view = if latest { "v_latest_scores" } else { "v_scores" };
        let q = format!(
            "SELECT document, dataset, provider, provider_version, metric, value FROM {view}"
        );
        let r = Store::query_read_only(&db, &q, &[], std::time::Duration::from_secs(10)).unwrap();
        let mut want: Vec<String> = r
            .rows
            .iter()
            .map(|row| {
                let t = |i: usize| row[i].as_str().unwrap().to_string();
                format!("{} {} {}@{} {} {:?}", t(0), t(1), t(2), t(3), t(4), row[5].as_f64())
            })
            .collect();
        want.sort();
        assert_eq!(fast, want, "{view}");
    }
}
