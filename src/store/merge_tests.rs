//! Tests of `merge.rs`: shard files folded into a store.

use super::*;
use crate::cluster::ShardSpec;
use crate::store::{IngestDoc, NewOutput, TruthFile};

struct Fixture {
    _dir: tempfile::TempDir,
    main: std::path::PathBuf,
    shard: std::path::PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.db");
    let shard = dir.path().join("s.db");
    let mut s = Store::open(&main).unwrap();
    for i in 0..4 {
        let truth = [TruthFile {
            format: "peerread",
            part: "",
            bytes: format!("{{\"t\":{i}}}").into_bytes().leak(),
            source_path: "t.json",
        }];
        s.ingest(&IngestDoc {
            dataset: "d",
            name: &format!("doc{i}"),
            source_path: "x.pdf",
            pdf: crate::store::PdfData::Bytes(format!("%PDF doc {i}").as_bytes()),
            pages: 1,
            truths: &truth,
            attributes: &[],
        })
        .unwrap();
    }
    Fixture { _dir: dir, main, shard }
}

fn out<'a>(
    key: &'a str,
    doc: i64,
    result: std::result::Result<&'a [u8], &'a str>,
) -> NewOutput<'a> {
    NewOutput {
        cache_key: key,
        document: doc,
        provider: "p",
        provider_version: "1",
        model_digest: "m",
        config: "{}",
        pages: "all",
        result,
        usage: crate::store::Usage { wall_ms: 1, ..Default::default() },
        device: "cpu",
        run: None,
    }
}

fn count(s: &Store, table: &str) -> i64 {
    s.conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

#[test]
fn new_present_superseded_stale_and_conflicting_outputs() {
    let f = fixture();
    {
        let mut main = Store::open(&f.main).unwrap();
        main.put_output(&out("k-error", 1, Err("timed out"))).unwrap();
        main.put_output(&out("k-ok", 2, Ok(b"{\"a\":1}"))).unwrap();
        main.put_output(&out("k-same", 3, Ok(b"{\"same\":1}"))).unwrap();
        main.put_output(&out("k-stale", 4, Ok(b"{\"ok\":1}"))).unwrap();
    }
    {
        let mut task = Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap();
        let run = task.start_run("ocr", &["corpus".into()]).unwrap();
        let mut o = out("k-error", 1, Ok(b"{\"retried\":1}"));
        o.run = Some(run);
        task.put_output(&o).unwrap();
        task.put_output(&out("k-ok", 2, Ok(b"{\"a\":2}"))).unwrap(); // not deterministic
        task.put_output(&out("k-same", 3, Ok(b"{\"same\":1}"))).unwrap();
        task.put_output(&out("k-stale", 4, Err("crashed"))).unwrap();
        task.put_output(&out("k-new", 1, Ok(b"{\"new\":1}"))).unwrap();
        task.finish_run(run, &serde_json::json!({}), 0).unwrap();
        // The task never wrote the main store.
        let main = Store::open_read_only(&f.main).unwrap();
        assert_eq!(count(&main, "outputs"), 4);
        assert_eq!(count(&main, "runs"), 0);
    }
    let mut main = Store::open(&f.main).unwrap();
    let mut merge_run = None;
    let r = main.merge_shard(&f.shard, "s.db", &[], &mut merge_run).unwrap();
    let c = &r.counts;
    assert_eq!(
        (c.new, c.present, c.superseded, c.stale_errors, c.conflicts, c.runs_new),
        (1, 1, 1, 1, 1, 1)
    );
    assert_eq!(r.conflicts.len(), 1);
    let k = &r.conflicts[0];
    assert_eq!(k.cache_key, "k-ok");
    assert_eq!(k.stored, blake3::hash(b"{\"a\":1}").to_hex().to_string());
    assert_eq!(k.shard, blake3::hash(b"{\"a\":2}").to_hex().to_string());
    // The stored output is kept; the failure is superseded and attributed to the task's run.
    let blob = |key: &str| -> Option<String> {
        main.conn
            .query_row("SELECT blob FROM outputs WHERE cache_key = ?1", [key], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(blob("k-ok"), Some(blake3::hash(b"{\"a\":1}").to_hex().to_string()));
    assert_eq!(blob("k-error"), Some(blake3::hash(b"{\"retried\":1}").to_hex().to_string()));
    assert_eq!(main.output_status("k-stale").unwrap().as_deref(), Some("ok"));
    let (shard, by): (String, i64) = main
        .conn
        .query_row(
            "SELECT r.shard, r.merged_by FROM outputs o JOIN runs r ON r.id = o.run
                 WHERE o.cache_key = 'k-error'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((shard.as_str(), Some(RunId(by))), ("0/1", merge_run));
    // A second merge of the same file changes nothing: not even a run is recorded.
    let runs = count(&main, "runs");
    let mut again = None;
    let r2 = main.merge_shard(&f.shard, "s.db", &[], &mut again).unwrap();
    assert_eq!((r2.counts.new, r2.counts.superseded, r2.counts.runs_new), (0, 0, 0));
    assert_eq!(r2.counts.present, 3);
    assert_eq!(again, None);
    assert_eq!(count(&main, "runs"), runs);
    assert_eq!(count(&main, "outputs"), 5);
}

#[test]
fn scores_merge_by_output_key_and_truth_identity() {
    let f = fixture();
    let (o, t) = {
        let mut main = Store::open(&f.main).unwrap();
        main.put_output(&out("k1", 1, Ok(b"{}"))).unwrap();
        let o = main.scorable_outputs(None).unwrap()[0].id;
        let t = main.truths(None).unwrap().iter().find(|t| t.document == 1).unwrap().id;
        main.put_metrics(o, t, "paper", 1, None, &[("kept", Some(0.5), "{}".into())]).unwrap();
        (o, t)
    };
    {
        let mut task = Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap();
        // Scored already in the main store: the task sees it.
        assert_eq!(task.metric_values(o, t, "paper", 1).unwrap().len(), 1);
        task.put_metrics(
            o,
            t,
            "paper",
            2,
            None,
            &[("a", Some(1.0), "{}".into()), ("b", None, "{}".into())],
        )
        .unwrap();
        assert_eq!(task.metric_values(o, t, "paper", 2).unwrap().len(), 2);
        // A derived row (an aggregate over every document) is not written by a task.
        task.put_derived_metrics(o, t, "olmocr", 1, None, &[("overall", Some(1.0), "{}".into())])
            .unwrap();
    }
    let mut main = Store::open(&f.main).unwrap();
    let r = main.merge_shard(&f.shard, "s", &[], &mut None).unwrap();
    assert_eq!((r.counts.metrics_new, r.counts.metrics_present), (2, 0));
    let v = main.metric_values(o, t, "paper", 2).unwrap();
    assert_eq!(v, vec![("a".to_string(), Some(1.0)), ("b".to_string(), None)]);
    assert!(main.metric_rows(o, t, "olmocr", 1).unwrap().is_empty());
    // A different value under the same identity is a conflict; the stored row stays.
    drop(main);
    {
        let shard2 = f.shard.with_file_name("s2.db");
        let mut task = Store::open_shard_task(&f.main, &shard2, ShardSpec::ALL).unwrap();
        // The task sees the stored rows, so it would not score again; write a different
        // version's rows as a second, disagreeing scorer would.
        task.put_metrics(o, t, "paper", 3, None, &[("a", Some(0.25), "{}".into())]).unwrap();
        drop(task);
        let mut main = Store::open(&f.main).unwrap();
        main.put_metrics(o, t, "paper", 3, None, &[("a", Some(0.75), "{}".into())]).unwrap();
        let r = main.merge_shard(&shard2, "s2", &[], &mut None).unwrap();
        assert_eq!(r.counts.metric_conflicts, 1);
        assert_eq!(r.conflicts[0].stored, "0.75");
        assert_eq!(r.conflicts[0].shard, "0.25");
    }
}

#[test]
fn a_task_sees_only_its_shard() {
    let f = fixture();
    let all = Store::open_read_only(&f.main).unwrap().documents(None).unwrap();
    let mut seen = Vec::new();
    for k in 0..3 {
        let spec = ShardSpec::new(k, 3).unwrap();
        let file = f.shard.with_file_name(format!("t{k}.db"));
        let task = Store::open_shard_task(&f.main, &file, spec).unwrap();
        for d in task.documents(None).unwrap() {
            assert!(spec.contains(&d.hash));
            seen.push(d.id);
        }
        assert!(task
            .truths(None)
            .unwrap()
            .iter()
            .all(|t| spec.contains(&all.iter().find(|d| d.id == t.document).unwrap().hash)));
    }
    seen.sort();
    assert_eq!(seen, all.iter().map(|d| d.id).collect::<Vec<_>>());
}

#[test]
fn refuses_bad_shard_files_whole() {
    let f = fixture();
    {
        let mut task = Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap();
        for i in 1..=4 {
            let key = format!("k{i}");
            let body = format!("{{\"doc\":{i},\"pad\":\"{}\"}}", "x".repeat(3000));
            task.put_output(&out(&key, i, Ok(body.as_bytes()))).unwrap();
        }
    }
    let mut main = Store::open(&f.main).unwrap();
    let refused = |main: &mut Store, p: &std::path::Path| -> String {
        let e = match main.merge_shard(p, "x", &[], &mut None) {
            Ok(r) => panic!("{} merged: {r:?}", p.display()),
            Err(e) => e.to_string(),
        };
        assert_eq!(count(main, "outputs"), 0, "nothing of a refused file is merged");
        assert!(e.contains(&p.display().to_string()), "{e}");
        e
    };
    // Truncated.
    let bytes = std::fs::read(&f.shard).unwrap();
    let cut = f.shard.with_file_name("cut.db");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = refused(&mut main, &cut);
    assert!(e.contains("corrupt"), "{e}");
    // A blob whose bytes changed under its hash (a bit flip SQLite's checks cannot see).
    let bad = f.shard.with_file_name("flip.db");
    std::fs::copy(&f.shard, &bad).unwrap();
    Connection::open(&bad)
        .unwrap()
        .execute("UPDATE blobs SET data = CAST(replace(CAST(data AS TEXT), 'xxx', 'xyx') AS BLOB) WHERE rowid = 1", [])
        .unwrap();
    assert!(refused(&mut main, &bad).contains("does not match its hash"));
    // Not a database at all; a store instead of a shard file; another format version.
    let junk = f.shard.with_file_name("junk.db");
    std::fs::write(&junk, b"not sqlite at all, just text").unwrap();
    assert!(refused(&mut main, &junk).contains("not a corpus shard file"));
    let plain = f.shard.with_file_name("plain.db");
    drop(Store::open(&plain).unwrap());
    let e = refused(&mut main, &plain);
    assert!(e.contains("is a corpus store"), "{e}");
    let old = f.shard.with_file_name("old.db");
    std::fs::copy(&f.shard, &old).unwrap();
    Connection::open(&old).unwrap().pragma_update(None, "user_version", 99).unwrap();
    assert!(refused(&mut main, &old).contains("format version 99"));
    let schema = f.shard.with_file_name("schema.db");
    std::fs::copy(&f.shard, &schema).unwrap();
    Connection::open(&schema)
        .unwrap()
        .execute("UPDATE shard_info SET value = '3' WHERE key = 'store_schema'", [])
        .unwrap();
    assert!(refused(&mut main, &schema).contains("store schema version 3"));
    // A shard of another store: its documents are unknown here.
    let other_main = f.shard.with_file_name("other.db");
    {
        let mut o = Store::open(&other_main).unwrap();
        o.ingest(&IngestDoc {
            dataset: "d",
            name: "z",
            source_path: "z.pdf",
            pdf: crate::store::PdfData::Bytes(b"%PDF other"),
            pages: 1,
            truths: &[],
            attributes: &[],
        })
        .unwrap();
    }
    let foreign = f.shard.with_file_name("foreign.db");
    {
        let mut task = Store::open_shard_task(&other_main, &foreign, ShardSpec::ALL).unwrap();
        task.put_output(&out("kz", 1, Ok(b"{}"))).unwrap();
    }
    assert!(refused(&mut main, &foreign).contains("does not hold"));
    // The good file still merges.
    let r = main.merge_shard(&f.shard, "s", &[], &mut None).unwrap();
    assert_eq!(r.counts.new, 4);
}

#[test]
fn a_task_refuses_unsafe_stores_and_mismatched_files() {
    let f = fixture();
    // A writer with an open log: an immutable reader would miss what it holds.
    let writer = Connection::open(&f.main).unwrap();
    writer.execute("INSERT INTO datasets (name, created_at) VALUES ('w', 'now')", []).unwrap();
    let e = Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap_err().to_string();
    assert!(e.contains("un-checkpointed write-ahead log"), "{e}");
    let store = Store::open(&f.main).unwrap();
    store.checkpoint().unwrap();
    drop(store);
    Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap();
    drop(writer);
    // The same file for another shard.
    let e = Store::open_shard_task(&f.main, &f.shard, ShardSpec::new(1, 2).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("holds shard 0/1, not 1/2"), "{e}");
    // A store of another schema version.
    Connection::open(&f.main).unwrap().pragma_update(None, "user_version", 4).unwrap();
    let e = Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap_err().to_string();
    assert!(e.contains("schema version 4"), "{e}");
    // A shard file opened as a store.
    let e = Store::open(&f.shard).unwrap_err().to_string();
    assert!(e.contains("shard file"), "{e}");
}

#[test]
fn a_second_task_on_the_same_file_is_told_it_is_in_use() {
    let f = fixture();
    let _first = Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap();
    let e = Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap_err().to_string();
    assert!(e.contains("in use by another process"), "{e}");
}

#[test]
fn the_store_is_back_in_wal_after_a_merge_with_or_without_a_reader() {
    let f = fixture();
    {
        let mut task = Store::open_shard_task(&f.main, &f.shard, ShardSpec::ALL).unwrap();
        task.put_output(&out("k1", 1, Ok(b"{}"))).unwrap();
    }
    let journal = |s: &Store| -> String {
        s.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap()
    };
    for reader in [false, true] {
        let mut main = Store::open(&f.main).unwrap();
        let other = reader.then(|| Store::open_read_only(&f.main).unwrap());
        main.begin_merge().unwrap();
        let r = main.merge_shard(&f.shard, "s", &[], &mut None).unwrap();
        main.end_merge().unwrap();
        assert_eq!(r.counts.new + r.counts.present, 1);
        assert_eq!(journal(&main), "wal");
        if let Some(o) = other {
            assert_eq!(o.output_status("k1").unwrap().as_deref(), Some("ok"));
        }
    }
}

#[test]
fn a_store_under_an_awkward_path_is_read_as_a_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("données ?#% 1");
    std::fs::create_dir_all(&sub).unwrap();
    let main = sub.join("c.db");
    {
        let mut s = Store::open(&main).unwrap();
        s.ingest(&IngestDoc {
            dataset: "d",
            name: "a",
            source_path: "a.pdf",
            pdf: crate::store::PdfData::Bytes(b"%PDF a"),
            pages: 1,
            truths: &[],
            attributes: &[],
        })
        .unwrap();
    }
    let snap = Store::open_snapshot(&main).unwrap();
    assert_eq!(snap.documents(None).unwrap().len(), 1);
}
