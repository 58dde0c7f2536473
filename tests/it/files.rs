//! Folders as they exist on real disks, and PDFs larger than one SQLite value
//! (`docs/walking.md`, `docs/large-files.md`), through the `corpus` binary.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::util::{corpus, json, run, tiny_pdf};

/// Runs the command like [`run`], but fails the test (killing the command) when it has not
/// finished after a minute: a walk that loops or a read that blocks must fail, not hang.
fn run_bounded(c: &mut Command) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let (o, e) = (dir.path().join("out"), dir.path().join("err"));
    let file = |p: &Path| std::fs::File::create(p).unwrap();
    let mut child = c.stdout(file(&o)).stderr(file(&e)).spawn().expect("running corpus");
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "corpus did not finish within a minute: {}",
                std::fs::read_to_string(&e).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out =
        Output { status, stdout: std::fs::read(&o).unwrap(), stderr: std::fs::read(&e).unwrap() };
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn names(db: &Path) -> Vec<String> {
    let out = run(corpus(db).args([
        "sql",
        "--format",
        "json",
        "SELECT name FROM document_names ORDER BY name",
    ]));
    let v = json(&out);
    v.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_link_to_a_parent_folder_is_skipped_or_followed_once() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("papers");
    let sub = tree.join("sub dir");
    std::fs::create_dir_all(sub.join("in")).unwrap();
    std::fs::write(sub.join("a b (1).pdf"), tiny_pdf("first", "")).unwrap();
    std::fs::write(sub.join("in/b.pdf"), tiny_pdf("second", "")).unwrap();
    symlink("../..", sub.join("in/loop")).unwrap();
    symlink("missing.pdf", sub.join("dangling.pdf")).unwrap();

    let db = d.path().join("plain.db");
    let out = run(corpus(&db).args(["ingest", "--format", "json"]).arg(&tree));
    let s = json(&out);
    assert_eq!(s["new_documents"], 2, "{s}");
    assert_eq!(s["dir_links_skipped"], 1, "{s}");
    assert_eq!(s["dangling_links"].as_array().unwrap().len(), 1, "{s}");
    assert_eq!(names(&db), ["sub dir/a b (1)", "sub dir/in/b"]);

    let db = d.path().join("follow.db");
    let out = run_bounded(corpus(&db).args(["ingest", "--follow", "--format", "json"]).arg(&tree));
    let s = json(&out);
    assert_eq!(s["new_documents"], 2, "{s}");
    assert_eq!(s["files"], 2, "every PDF once: {s}");
    assert_eq!(s["loops"], 1, "{s}");
    assert_eq!(s["dangling_links"].as_array().unwrap().len(), 1, "one warning: {s}");
    assert_eq!(names(&db), ["sub dir/a b (1)", "sub dir/in/b"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("symlink to nothing").count(), 1, "{stderr}");
}

#[test]
fn fifos_sockets_and_dangling_links_are_named_and_never_read() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("in");
    std::fs::create_dir_all(&tree).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        tree.join("x.pdf"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(tree.join("s.pdf")).unwrap();
    symlink("gone.pdf", tree.join("d.pdf")).unwrap();
    std::fs::write(tree.join("ok.pdf"), tiny_pdf("fine", "")).unwrap();
    let db = d.path().join("s.db");
    // Nothing waits for a writer that never comes.
    let out = run_bounded(corpus(&db).args(["ingest", "--format", "json"]).arg(&tree));
    assert_eq!(out.status.code(), Some(3), "some files failed");
    let s = json(&out);
    assert_eq!(s["new_documents"], 1, "{s}");
    let errors: Vec<String> = s["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{}: {}", e["path"].as_str().unwrap(), e["error"].as_str().unwrap()))
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].ends_with("s.pdf: not a regular file: it is a socket; not read"));
    assert!(errors[1].ends_with("x.pdf: not a regular file: it is a named pipe (FIFO); not read"));
    assert!(s["dangling_links"][0].as_str().unwrap().ends_with("d.pdf"), "{s}");
    // Recorded in the store's error log too.
    let log = json(&run(corpus(&db).args([
        "sql",
        "--format",
        "json",
        "SELECT count(*) AS n FROM ingest_errors",
    ])));
    assert_eq!(log[0]["n"], 2, "{log}");
}

/// A PDF of 1.5 GB (over SQLite's 1,000,000,000-byte value limit): it ingests in chunks
/// under the blake3 of its bytes, and `ocr --provider pdfium` reads its text back.
#[test]
fn a_pdf_larger_than_one_sqlite_value_ingests_and_parses() {
    let d = tempfile::tempdir().unwrap();
    let pdf = d.path().join("atlas.pdf");
    let text = "Atlas sheet one of a very large scan";
    let size = corpus::sample::large::write_large_pdf(
        &pdf,
        1_500_000_000,
        corpus::sample::large::Bulk::Image,
        text,
    )
    .unwrap();
    assert!(size > 1_500_000_000);
    let mut f = std::fs::File::open(&pdf).unwrap();
    let (hash, n) = corpus::store::hash_file(&mut f, size).unwrap();
    assert_eq!(n, size);
    let db = d.path().join("s.db");
    let s = json(&run(corpus(&db).args(["ingest", "--format", "json"]).arg(&pdf)));
    assert_eq!(s["new_documents"], 1, "{s}");
    assert!(s["errors"].as_array().unwrap().is_empty(), "{s}");
    let row = json(&run(corpus(&db).args([
        "sql",
        "--format",
        "json",
        "SELECT d.blob, b.size, b.chunks FROM documents d JOIN blobs b ON b.hash = d.blob",
    ])));
    assert_eq!(row[0]["blob"].as_str().unwrap(), hash, "the document's hash is the file's");
    assert_eq!(row[0]["size"], size);
    assert_eq!(row[0]["chunks"], size.div_ceil(corpus::store::CHUNK));
    // Parsed from the store in pieces.
    let o = json(&run(corpus(&db).args(["ocr", "--provider", "pdfium", "--format", "json"])));
    assert_eq!(o["ok"], 1, "{o}");
    let shown = run(corpus(&db).args(["show", "atlas"]));
    assert!(String::from_utf8_lossy(&shown.stdout).contains(text));
    // A second ingest is a no-op, and the file's bytes read back equal the file.
    let again = json(&run(corpus(&db).args(["ingest", "--format", "json"]).arg(&pdf)));
    assert_eq!(again["unchanged"], 1, "{again}");
    std::fs::remove_file(&pdf).unwrap();
}
