//! Sharded runs end to end: `ocr` and `eval` split by content over N tasks, each writing its
//! own shard file from a read-only store, folded back by `corpus merge` into exactly what one
//! process would have stored; a task killed part-way resumes; merging is idempotent.

use std::io::BufRead;
use std::path::Path;
use std::time::{Duration, Instant};

use corpus::store::Store;

use crate::util::{corpus, json, output_set, run, sample_variants, score_set};

fn ingest(db: &Path, dir: &Path) {
    let out =
        run(corpus(db).args(["ingest", "--dataset", "s", "--truth", "peerread", "-q"]).arg(dir));
    assert!(out.status.success());
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn shards_merge_into_what_one_process_stores() {
    let d = tempfile::tempdir().unwrap();
    let pdfs = d.path().join("pdfs");
    let n = sample_variants(&pdfs, 4);
    let single = d.path().join("single.db");
    ingest(&single, &pdfs);
    let sharded = d.path().join("sharded.db");
    std::fs::copy(&single, &sharded).unwrap();

    ok(&run(corpus(&single).args(["ocr", "--provider", "pdfium", "-j", "2", "-q"])));
    ok(&run(corpus(&single).args(["eval", "--suite", "paper", "--provider", "pdfium", "-q"])));

    // Four tasks; the store is never written by them.
    let before = std::fs::read(&sharded).unwrap();
    let mut docs = 0;
    let mut non_empty = 0;
    for k in 0..4 {
        let shard = format!("{k}/4");
        let out = run(corpus(&sharded)
            .args(["ocr", "--provider", "pdfium", "-j", "1", "--format", "json"])
            .args(["--shard", &shard, "--into"])
            .arg(d.path().join("ocr")));
        ok(&out);
        let here = json(&out)["documents"].as_u64().unwrap();
        docs += here;
        non_empty += i64::from(here > 0);
    }
    assert_eq!(docs as usize, n, "every document is in exactly one shard");
    assert_eq!(std::fs::read(&sharded).unwrap(), before, "tasks never write the store");
    let files: Vec<_> =
        std::fs::read_dir(d.path().join("ocr")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(files.len(), 4);
    assert!(d.path().join("ocr/ocr-pdfium-2-of-4.db").is_file(), "{files:?}");

    let merged =
        json(&run(corpus(&sharded).args(["merge", "--format", "json"]).arg(d.path().join("ocr"))));
    assert_eq!(merged["total"]["new"].as_u64(), Some(n as u64));
    assert_eq!(output_set(&sharded), output_set(&single));

    // Merging again is a no-op: same outputs, no run recorded.
    let runs = |db: &Path| -> i64 {
        let s = Store::open_read_only(db).unwrap();
        s.connection().query_row("SELECT count(*) FROM runs", [], |r| r.get(0)).unwrap()
    };
    let runs_before = runs(&sharded);
    let again = run(corpus(&sharded).args(["merge", "--format", "json"]).arg(d.path().join("ocr")));
    ok(&again);
    let again = json(&again);
    assert_eq!(
        (again["total"]["new"].as_u64(), again["total"]["present"].as_u64()),
        (Some(0), Some(n as u64))
    );
    assert!(again["run"].is_null());
    assert_eq!(runs(&sharded), runs_before);
    assert_eq!(output_set(&sharded), output_set(&single));

    // The merged runs say which shard made each output.
    let s = Store::open_read_only(&sharded).unwrap();
    let shards: i64 = s
        .connection()
        .query_row(
            "SELECT count(DISTINCT r.shard) FROM v_outputs o JOIN v_runs r ON r.run = o.run
         WHERE r.merged_by IS NOT NULL AND r.host IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(shards, non_empty);
    drop(s);

    // eval shards the same way and gives the same scores.
    for k in 0..3 {
        let shard = format!("{k}/3");
        ok(&run(corpus(&sharded)
            .args(["eval", "--suite", "paper", "--provider", "pdfium", "-q"])
            .args(["--shard", &shard, "--into"])
            .arg(d.path().join("eval"))));
    }
    ok(&run(corpus(&sharded).args(["merge", "-q"]).arg(d.path().join("eval"))));
    assert_eq!(score_set(&sharded), score_set(&single));
    // And an eval over the merged store scores nothing again.
    let e = json(&run(corpus(&sharded).args([
        "eval",
        "--suite",
        "paper",
        "--provider",
        "pdfium",
        "--format",
        "json",
    ])));
    assert_eq!((e["scored"].as_u64(), e["cached"].as_u64()), (Some(0), Some(n as u64)));
}

#[test]
fn a_task_killed_part_way_resumes_with_nothing_twice() {
    let d = tempfile::tempdir().unwrap();
    let pdfs = d.path().join("pdfs");
    sample_variants(&pdfs, 4);
    let db = d.path().join("c.db");
    ingest(&db, &pdfs);
    let single = d.path().join("single.db");
    std::fs::copy(&db, &single).unwrap();
    ok(&run(corpus(&single).args(["ocr", "--provider", "pdfium", "-j", "1", "-q"])));
    let file = d.path().join("s/one.db");
    let args = ["ocr", "--provider", "pdfium", "-j", "1", "-v", "--shard", "0/1", "--into"];

    // Slowed down after each stored document, so that it is killed part-way.
    let mut child = corpus(&db)
        .args(args)
        .arg(&file)
        .env("CORPUS_TEST_PAUSE_MS", "400")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("stored") {
                let _ = tx.send(());
            }
        }
    });
    let t0 = Instant::now();
    let mut stored = 0;
    while stored < 2 {
        rx.recv_timeout(Duration::from_secs(60)).expect("the task never stored a document");
        stored += 1;
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(60));

    // Started again on the same file: it recovers, skips what it stored, does the rest.
    let again = run(corpus(&db).args(args).arg(&file).args(["--format", "json"]));
    ok(&again);
    let s = json(&again);
    let total = s["documents"].as_u64().unwrap();
    assert!(s["cached"].as_u64().unwrap() >= 2, "{s}");
    assert!(s["ran"].as_u64().unwrap() > 0 && s["ran"].as_u64().unwrap() < total, "{s}");
    assert_eq!(s["cached"].as_u64().unwrap() + s["ran"].as_u64().unwrap(), total);
    let m = json(&run(corpus(&db).args(["merge", "--format", "json"]).arg(&file)));
    assert_eq!(m["total"]["new"].as_u64(), Some(total));
    assert_eq!(m["total"]["runs_new"].as_u64(), Some(2), "the killed run and the resumed one");
    assert_eq!(output_set(&db), output_set(&single));
    let store = Store::open(&db).unwrap();
    assert_eq!(store.duplicate_outputs().unwrap(), 0);
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let unfinished: i64 = store
        .connection()
        .query_row(
            "SELECT count(*) FROM runs WHERE command = 'ocr' AND finished_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(unfinished, 1, "the killed run stays recorded as unfinished");
}

#[test]
fn a_retried_failure_supersedes_and_a_corrupt_file_is_refused_whole() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let dir = d.path().join("in");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["a", "b", "c"] {
        std::fs::write(
            dir.join(format!("{name}.pdf")),
            crate::util::tiny_pdf(name, "%CORPUS-SLOW\n"),
        )
        .unwrap();
    }
    ok(&run(corpus(&db).arg("ingest").arg(&dir).arg("-q")));
    // Every document times out in the store: cached failures.
    let first =
        run(corpus(&db).args(["ocr", "--provider", "test-faulty", "--timeout", "0.02", "-q"]));
    assert_eq!(first.status.code(), Some(3));
    // A task retries them with time enough.
    let file = d.path().join("retry.db");
    ok(&run(corpus(&db)
        .args([
            "ocr",
            "--provider",
            "test-faulty",
            "--retry-errors",
            "-q",
            "--shard",
            "0/1",
            "--into",
        ])
        .arg(&file)));
    // A copy of that file cut in half is refused, naming it; nothing of it is merged.
    let cut = d.path().join("cut.db");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = run(corpus(&db).args(["merge", "--format", "json"]).arg(&cut).arg(&file));
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("refused: {}", cut.display())), "{stderr}");
    let m = json(&out);
    assert_eq!(m["total"]["superseded"].as_u64(), Some(3));
    assert_eq!(m["refused"].as_array().unwrap().len(), 1);
    // A shard file with another output under a stored key (a provider that is not
    // deterministic): reported with both digests, the stored output kept, exit 3.
    let (key, blob, doc): (String, String, i64) = Store::open_read_only(&db)
        .unwrap()
        .connection()
        .query_row("SELECT cache_key, blob, document FROM outputs ORDER BY id LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    let other = d.path().join("other.db");
    {
        let mut task =
            Store::open_shard_task(&db, &other, corpus::cluster::ShardSpec::ALL).unwrap();
        task.put_output(&corpus::store::NewOutput {
            cache_key: &key,
            document: doc,
            provider: "test-faulty",
            provider_version: "1",
            model_digest: "none",
            config: "{}",
            pages: "all",
            result: Ok(b"{\"pages\":[],\"blocks\":[]}"),
            usage: corpus::store::Usage { wall_ms: 1, ..Default::default() },
            device: "cpu",
            run: None,
        })
        .unwrap();
    }
    let out = run(corpus(&db).arg("merge").arg(&other));
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let theirs = blake3::hash(b"{\"pages\":[],\"blocks\":[]}").to_hex().to_string();
    assert!(
        stderr.contains("conflict") && stderr.contains(&blob) && stderr.contains(&theirs),
        "{stderr}"
    );
    let s = Store::open_read_only(&db).unwrap();
    let kept: String = s
        .connection()
        .query_row("SELECT blob FROM outputs WHERE cache_key = ?1", [&key], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, blob);
    let ok_outputs: i64 = s
        .connection()
        .query_row("SELECT count(*) FROM outputs WHERE status = 'ok'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok_outputs, 3);
}

#[test]
fn shard_auto_reads_the_scheduler_and_says_when_there_is_none() {
    let d = tempfile::tempdir().unwrap();
    let pdfs = d.path().join("pdfs");
    sample_variants(&pdfs, 1);
    let db = d.path().join("c.db");
    ingest(&db, &pdfs);
    let clean = |c: &mut std::process::Command| {
        for v in [
            "SLURM_ARRAY_TASK_ID",
            "SLURM_ARRAY_TASK_COUNT",
            "SLURM_ARRAY_TASK_MIN",
            "SLURM_ARRAY_TASK_MAX",
            "SLURM_ARRAY_TASK_STEP",
            "SLURM_JOB_ID",
            "SLURM_ARRAY_JOB_ID",
            "JOB_COMPLETION_INDEX",
            "CORPUS_SHARDS",
        ] {
            c.env_remove(v);
        }
    };
    let mut c = corpus(&db);
    clean(&mut c);
    let out =
        run(c.args(["ocr", "--provider", "pdfium", "--shard", "auto", "--into"]).arg(d.path()));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no scheduler variables are set"));

    let mut c = corpus(&db);
    clean(&mut c);
    c.envs([
        ("SLURM_JOB_ID", "41"),
        ("SLURM_ARRAY_JOB_ID", "40"),
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
        ("SLURM_ARRAY_TASK_MIN", "0"),
        ("SLURM_ARRAY_TASK_MAX", "1"),
    ]);
    ok(&run(c
        .args(["ocr", "--provider", "pdfium", "-q", "--shard", "auto", "--into"])
        .arg(d.path().join("s"))));
    let file = d.path().join("s/ocr-pdfium-1-of-2.db");
    assert!(file.is_file());
    let m = json(&run(corpus(&db).args(["merge", "--format", "json"]).arg(&file)));
    assert_eq!(m["total"]["runs_new"].as_u64(), Some(1));
    let s = Store::open_read_only(&db).unwrap();
    let (sched, job, array, task, shard): (String, String, String, String, String) = s.connection().query_row(
        "SELECT scheduler, job_id, array_job_id, array_task_id, shard FROM v_runs WHERE merged_by IS NOT NULL",
        [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).unwrap();
    assert_eq!(
        (sched.as_str(), job.as_str(), array.as_str(), task.as_str(), shard.as_str()),
        ("slurm", "41", "40", "1", "1/2")
    );
}

#[test]
fn omnidoc_scored_in_shards_equals_one_run_on_the_demo() {
    let Some(demo) = crate::util::shared_data("omnidocbench/demo_data") else { return };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let gt = demo.join("omnidocbench_demo/OmniDocBench_demo.json");
    ok(&run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "omnidoc", "-q"])
        .arg(gt)));
    ok(&run(corpus(&db)
        .args(["import", "--provider", "demo", "--format", "markdown", "-q"])
        .arg(demo.join("end2end"))));
    let single = d.path().join("single.db");
    std::fs::copy(&db, &single).unwrap();
    let ev = ["eval", "--suite", "omnidoc", "--provider", "demo", "-q"];
    ok(&run(corpus(&single).args(ev)));
    for k in 0..3 {
        let shard = format!("{k}/3");
        ok(&run(corpus(&db).args(ev).args(["--shard", &shard, "--into"]).arg(d.path().join("s"))));
    }
    ok(&run(corpus(&db).args(["merge", "-q"]).arg(d.path().join("s"))));
    let scores = score_set(&db);
    assert_eq!(scores.len(), 18 * corpus::suites::omnidoc::METRIC_IDS.len());
    assert_eq!(scores, score_set(&single));
}
