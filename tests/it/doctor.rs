//! `corpus doctor` and `corpus setup` through the binary (docs/guide/install.md).

use crate::util::{corpus, json, run};

/// With a PATH that hides Chromium (and CORPUS_CHROMIUM unset), doctor names it, says why
/// and gives the command that installs it; `--for math` then fails, `--for core` does not.
#[test]
fn doctor_names_a_hidden_chromium_and_its_fix() {
    let d = tempfile::tempdir().unwrap();
    let empty = d.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let db = d.path().join("c.db");
    let mut c = corpus(&db);
    c.env("PATH", &empty).env_remove("CORPUS_CHROMIUM");
    let out = run(c.args(["doctor", "--for", "math", "--format", "json"]));
    assert_eq!(out.status.code(), Some(1), "math needs Chromium");
    let v = json(&out);
    let parts = v["parts"].as_array().unwrap();
    let chromium = parts.iter().find(|p| p["part"] == "Chromium").expect("a Chromium line");
    assert_eq!(chromium["status"], "missing");
    assert!(
        chromium["detail"].as_str().unwrap().contains("is on PATH, and CORPUS_CHROMIUM is unset"),
        "{chromium}"
    );
    assert!(chromium["fix"].as_str().unwrap().starts_with("apt-get install chromium"));
    assert_eq!(v["ok"], false);

    let mut c = corpus(&db);
    c.env("PATH", &empty).env_remove("CORPUS_CHROMIUM");
    let out = run(c.arg("doctor"));
    assert!(out.status.success(), "core needs only libpdfium, which the cache holds");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("missing  Chromium")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("found    libpdfium")), "{text}");
    assert!(text.contains("doctor: everything core needs is present"), "{text}");
}

/// Setup with everything in place does nothing and says so.
#[test]
fn setup_with_everything_present_says_there_is_nothing_to_do() {
    let d = tempfile::tempdir().unwrap();
    let out = run(corpus(&d.path().join("c.db")).args(["setup", "--skip-models"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing to do: all 1 file(s) present and verified"), "{err}");
}
