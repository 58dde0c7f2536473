//! Parser presets end to end: every preset not marked heavy is installed into its own
//! environment (or its Debian tool found), run on real PDFs through `corpus ocr`, and scored;
//! a user's preset runs with no code change; a new pin re-runs; a killed worker costs one
//! document. `scripts/test.sh` installs the Debian tools; the environments come from the
//! package registry on first use and are kept in the user cache.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use corpus::sample::pdf::{Font, Pdf, PdfPage};

use crate::util::{corpus, json, run, sample_dir, skip_or_fail};

fn sql(db: &Path, q: &str) -> serde_json::Value {
    let out = run(corpus(db).args(["sql", "--format", "json", q]));
    assert!(out.status.success());
    json(&out)
}

/// Installs a preset (`corpus providers install`); `false` (after `skip_or_fail`) when this
/// machine cannot have it.
fn install(id: &str, env: &[(&str, &Path)]) -> bool {
    let mut c = corpus(Path::new("unused.db"));
    c.args(["providers", "install", id]);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = run(&mut c);
    if !out.status.success() {
        skip_or_fail(&format!(
            "preset {id} cannot be installed here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
        return false;
    }
    true
}

/// Writes `pdfs/grid.pdf`, a ruled 4 × 3 table under a line of text, and its truth
/// (`ground_truth/grid.json`, pdf-parse-bench's table form).
fn ruled_table(root: &Path) {
    let rows = [
        ["Model", "Acc", "F1"],
        ["base", "71.2", "0.64"],
        ["large", "74.9", "0.70"],
        ["ours", "78.3", "0.75"],
    ];
    let mut page = PdfPage::new(612.0, 792.0);
    page.text(Font::Regular, 10.0, 72.0, 720.0, "Table 1 compares the three models.");
    let (x0, top, w, h) = (72.0, 700.0, 100.0, 18.0);
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let y = top - h * (r as f32 + 1.0) + 5.0;
            page.text(Font::Regular, 10.0, x0 + w * c as f32 + 6.0, y, cell);
        }
    }
    for r in 0..=rows.len() {
        let y = top - h * r as f32;
        page.line(x0, y, x0 + 3.0 * w, y, 0.8);
    }
    for c in 0..=3 {
        let x = x0 + w * c as f32;
        page.line(x, top, x, top - h * rows.len() as f32, 0.8);
    }
    let mut pdf = Pdf::new();
    pdf.push(page);
    std::fs::create_dir_all(root.join("pdfs")).unwrap();
    std::fs::create_dir_all(root.join("ground_truth")).unwrap();
    std::fs::write(root.join("pdfs/grid.pdf"), pdf.to_bytes()).unwrap();
    let tabular = "\\begin{tabular}{|l|c|c|}\n\\hline\nModel & Acc & F1 \\\\\n\\hline\nbase & 71.2 & 0.64 \\\\\n\\hline\nlarge & 74.9 & 0.70 \\\\\n\\hline\nours & 78.3 & 0.75 \\\\\n\\hline\n\\end{tabular}";
    let truth = serde_json::json!([
        {"type": "text", "data": "Table 1 compares the three models."},
        {"type": "table", "complexity": "simple", "data": tabular}
    ]);
    std::fs::write(root.join("ground_truth/grid.json"), truth.to_string()).unwrap();
}

/// What a preset is checked on.
#[derive(Clone, Copy)]
enum Data {
    /// The three sample papers, paper suite, `text_r`.
    Papers,
    /// The ruled table, table suite, `teds`.
    Tables,
}

/// Installs `id`, runs it over its kind of data, scores it, and checks that the scores are not
/// all zero and that a second run is served from the cache.
fn runs_and_scores(id: &str, data: Data) {
    if !install(id, &[]) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let (ingest, suite, metric, n): (Vec<String>, &str, &str, u64) = match data {
        Data::Papers => (
            vec!["--truth".into(), "peerread".into(), sample_dir().display().to_string()],
            "paper",
            "text_r",
            3,
        ),
        Data::Tables => {
            ruled_table(d.path());
            let pdfs = d.path().join("pdfs").display().to_string();
            (vec!["--truth".into(), "latex-tables".into(), pdfs], "table", "teds", 1)
        }
    };
    assert!(run(corpus(&db).arg("ingest").args(&ingest).arg("-q")).status.success());
    let ocr = ["ocr", "--provider", id, "--timeout", "600", "--format", "json"];
    let out = run(corpus(&db).args(ocr));
    assert!(out.status.success(), "{id}: {}", String::from_utf8_lossy(&out.stdout));
    let s = json(&out);
    assert_eq!((s["ran"].as_u64(), s["ok"].as_u64()), (Some(n), Some(n)), "{id}: {s}");
    assert!(s["provider_version"].as_str().is_some_and(|v| v.chars().any(|c| c.is_ascii_digit())));
    let again = json(&run(corpus(&db).args(ocr)));
    assert_eq!((again["cached"].as_u64(), again["ran"].as_u64()), (Some(n), Some(0)), "{id}");
    let out = run(corpus(&db).args(["eval", "-q", "--suite", suite, "--provider", id]));
    assert!(out.status.success(), "{id}: eval failed");
    let rows = sql(
        &db,
        &format!(
            "SELECT max(value) AS hi, count(*) AS n FROM v_scores \
             WHERE provider = '{id}' AND metric = '{metric}'"
        ),
    );
    let hi = rows[0]["hi"].as_f64().unwrap_or(0.0);
    assert!(hi > 0.0, "{id}: every {metric} is zero or missing: {rows}");
    eprintln!("{id}: best {metric} {hi:.3} over {} document(s)", rows[0]["n"]);
}

macro_rules! preset_tests {
    ($($name:ident: $id:literal on $data:ident,)*) => {
        $(
            #[test]
            fn $name() {
                runs_and_scores($id, Data::$data);
            }
        )*
        /// The presets a test above installs and runs.
        const RUN_HERE: &[&str] = &[$($id),*];
    };
}

preset_tests! {
    pymupdf4llm_runs: "pymupdf4llm" on Papers,
    pymupdf_runs: "pymupdf" on Papers,
    pypdf_runs: "pypdf" on Papers,
    pdfminer_runs: "pdfminer" on Papers,
    pdfplumber_runs: "pdfplumber" on Tables,
    markitdown_runs: "markitdown" on Papers,
    pdftext_runs: "pdftext" on Papers,
    kreuzberg_runs: "kreuzberg" on Papers,
    pdf_oxide_runs: "pdf-oxide" on Papers,
    camelot_lattice_runs: "camelot-lattice" on Tables,
    camelot_stream_runs: "camelot-stream" on Tables,
    opendataloader_runs: "opendataloader" on Papers,
    pdfalto_runs: "pdfalto" on Papers,
    pdftotext_runs: "pdftotext" on Papers,
    mutool_runs: "mutool" on Papers,
    tesseract_runs: "tesseract" on Papers,
}

/// The presets this file does not install and run, each with the reason; the endpoint
/// presets run in `endpoints.rs` against the local model server.
const NOT_RUN_HERE: [(&str, &str); 4] = [
    (
        "docling",
        "its environment pulls torch (several GB): a benchmark's, not CI's; its output is \
         read by `import.rs`'s docling-json tests",
    ),
    (
        "mineru",
        "its models come from a model hub (mineru-models-download), outside the package \
         registries; its output files are read by `import_pipelines.rs`",
    ),
    (
        "rapidocr",
        "its environment (onnxruntime, OpenCV) is a benchmark's: the degrade and audit benches \
         run it",
    ),
    (
        "unstructured",
        "partition_pdf needs NLTK data its installer fetches from outside the package \
         registries; its element JSON is read by `formats::unstructured`'s tests",
    ),
];

/// Every preset in `presets/` is either installed and run by a test here, run by
/// `endpoints.rs` (an `[endpoint]` preset), or listed in [`NOT_RUN_HERE`] with its reason;
/// none is in two places, and no list names a preset that does not exist.
#[test]
fn every_preset_is_run_by_a_test_or_listed_with_its_reason() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("presets");
    let mut all = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&p).unwrap();
            let v: toml::Value = toml::from_str(&text).unwrap();
            let id = v["id"].as_str().unwrap().to_string();
            all.push((id, v.get("endpoint").is_some()));
        }
    }
    assert!(all.len() >= 20, "{all:?}");
    let not_run: Vec<&str> = NOT_RUN_HERE.iter().map(|(id, _)| *id).collect();
    for (id, endpoint) in &all {
        let places = [RUN_HERE.contains(&id.as_str()), *endpoint, not_run.contains(&id.as_str())];
        assert_eq!(
            places.iter().filter(|p| **p).count(),
            1,
            "preset {id}: run here {}, endpoint {}, listed as not run {}",
            places[0],
            places[1],
            places[2]
        );
    }
    for id in RUN_HERE.iter().chain(&not_run) {
        assert!(all.iter().any(|(a, _)| a == id), "{id} is named but is no preset");
    }
}

#[test]
fn the_listing_has_every_kind_and_at_least_twenty_entries() {
    let out = run(corpus(Path::new("unused.db")).args(["providers", "--format", "json"]));
    assert!(out.status.success());
    let v = json(&out);
    let rows = v.as_array().unwrap();
    assert!(rows.len() >= 20, "{} providers", rows.len());
    for kind in ["in-process", "command", "python", "endpoint", "truth"] {
        assert!(rows.iter().any(|r| r["kind"] == kind), "no {kind} entry");
    }
    let heavy: Vec<&str> = rows
        .iter()
        .filter(|r| r["notes"].as_str().is_some_and(|n| n.contains("heavy")))
        .map(|r| r["provider"].as_str().unwrap())
        .collect();
    assert!(heavy.contains(&"docling") && heavy.contains(&"unstructured"), "{heavy:?}");
    let out = run(corpus(Path::new("unused.db")).args([
        "providers",
        "show",
        "pypdf",
        "--format",
        "json",
    ]));
    let v = json(&out);
    assert_eq!(v["preset"]["python"]["packages"][0], "pypdf==7.1.0");
    assert_eq!(v["preset"]["output"], "text");
    assert_eq!(v["preset_digest"].as_str().map(str::len), Some(64));
    let out = run(corpus(Path::new("unused.db")).args(["ocr", "--provider", "no-such-parser"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("known providers"));
}

/// A user preset: pypdf's pin (so it shares pypdf's environment), code of its own.
fn user_preset(dir: &Path, id: &str, pin: &str, code: &str) -> PathBuf {
    let text = format!(
        "id = \"{id}\"\nname = \"{id}\"\nhome = \"https://example.org/{id}\"\nlicence = \"MIT\"\n\
         description = \"a test's own preset\"\noutput = \"text\"\ncarries = [\"text\"]\n\n\
         [python]\npackages = [\"pypdf=={pin}\"]\nversion_of = \"pypdf\"\ncode = '''\n{code}\n'''\n"
    );
    let path = dir.join(format!("{id}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

const PYPDF_CODE: &str = "from pypdf import PdfReader\n\ndef parse(pdf, pages, workdir):\n    \
    return \"\\f\".join(p.extract_text() for p in PdfReader(pdf).pages)";

#[test]
fn a_user_preset_runs_with_no_code_change_and_a_new_pin_reruns() {
    let d = tempfile::tempdir().unwrap();
    let presets = d.path().join("presets");
    std::fs::create_dir(&presets).unwrap();
    user_preset(&presets, "my-parser", "7.1.0", PYPDF_CODE);
    if !install("my-parser", &[("CORPUS_PRESETS", &presets)]) {
        return;
    }
    let db = d.path().join("c.db");
    let c = |args: &[&str]| {
        let mut c = corpus(&db);
        c.env("CORPUS_PRESETS", &presets).args(args);
        c
    };
    assert!(run(c(&["ingest", "-q", "--truth", "peerread"]).arg(sample_dir())).status.success());
    let listing = json(&run(&mut c(&["providers", "--format", "json"])));
    let mine = listing.as_array().unwrap().iter().find(|r| r["provider"] == "my-parser").unwrap();
    assert_eq!(mine["notes"], "user preset");
    let ocr = ["ocr", "--provider", "my-parser", "--format", "json"];
    let s = json(&run(&mut c(&ocr)));
    assert_eq!((s["ran"].as_u64(), s["ok"].as_u64()), (Some(3), Some(3)), "{s}");
    assert_eq!(s["provider_version"], "7.1.0");
    let first_digest = s["model_digest"].as_str().unwrap().to_string();
    let out = run(&mut c(&["eval", "-q", "--suite", "paper", "--provider", "my-parser"]));
    assert!(out.status.success());
    let rows = sql(
        &db,
        "SELECT min(value) AS lo FROM v_scores WHERE provider = 'my-parser' AND metric = 'text_r'",
    );
    assert!(rows[0]["lo"].as_f64().unwrap() > 0.5, "{rows}");
    // Same pins, same code: served from the cache.
    let s = json(&run(&mut c(&ocr)));
    assert_eq!((s["cached"].as_u64(), s["ran"].as_u64()), (Some(3), Some(0)));
    // Another pinned version: a new environment, a new key, everything runs again.
    user_preset(&presets, "my-parser", "7.0.0", PYPDF_CODE);
    let s = json(&run(&mut c(&ocr)));
    assert_eq!((s["ran"].as_u64(), s["ok"].as_u64()), (Some(3), Some(3)), "{s}");
    assert_eq!(s["provider_version"], "7.0.0");
    assert_ne!(s["model_digest"].as_str().unwrap(), first_digest);
    let versions = sql(
        &db,
        "SELECT count(DISTINCT provider_version) AS n, count(*) AS outputs FROM v_outputs WHERE provider = 'my-parser'",
    );
    assert_eq!((versions[0]["n"].as_i64(), versions[0]["outputs"].as_i64()), (Some(2), Some(6)));
    // A broken user preset is named, and does not hide the others.
    std::fs::write(presets.join("broken.toml"), "id = \"broken\"\n").unwrap();
    let out = run(&mut c(&["providers"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.toml"));
}

#[test]
fn a_killed_worker_costs_its_document_only() {
    let d = tempfile::tempdir().unwrap();
    let presets = d.path().join("presets");
    std::fs::create_dir(&presets).unwrap();
    // The first document the worker gets: it writes its pid and waits to be killed.
    let code = "import os, time\nfrom pypdf import PdfReader\n\n\
        def parse(pdf, pages, workdir):\n    \
            marker = os.environ['CORPUS_TEST_MARKER']\n    \
            if not os.path.exists(marker):\n        \
                with open(marker + '.tmp', 'w') as f:\n            \
                    f.write(str(os.getpid()))\n        \
                os.rename(marker + '.tmp', marker)\n        \
                time.sleep(120)\n    \
            return '\\f'.join(p.extract_text() for p in PdfReader(pdf).pages)";
    user_preset(&presets, "killme", "7.1.0", code);
    if !install("killme", &[("CORPUS_PRESETS", &presets)]) {
        return;
    }
    let db = d.path().join("c.db");
    let marker = d.path().join("pid");
    let mut c = corpus(&db);
    c.env("CORPUS_PRESETS", &presets);
    assert!(run(c.arg("ingest").arg("-q").arg(sample_dir())).status.success());
    let child = corpus(&db)
        .env("CORPUS_PRESETS", &presets)
        .env("CORPUS_TEST_MARKER", &marker)
        .args(["ocr", "--provider", "killme", "-j", "1", "--format", "json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !marker.exists() {
        assert!(t0.elapsed() < Duration::from_secs(120), "the worker never started a document");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = std::fs::read_to_string(&marker).unwrap();
    assert!(Command::new("kill").args(["-9", pid.trim()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "some documents failed");
    let s = json(&out);
    assert_eq!((s["ok"].as_u64(), s["failed"].as_u64()), (Some(2), Some(1)), "{s}");
    let err = s["failures"][0]["error"].as_str().unwrap();
    assert!(err.contains("worker process died") && err.contains("SIGKILL"), "{err}");
    let rows = sql(&db, "SELECT status, count(*) AS n FROM v_outputs WHERE provider = 'killme' GROUP BY status ORDER BY status");
    assert_eq!(rows.as_array().unwrap().len(), 2, "{rows}");
    // The failure is cached; --retry-errors runs it again, now with a worker that lives.
    let out = run(corpus(&db)
        .env("CORPUS_PRESETS", &presets)
        .env("CORPUS_TEST_MARKER", &marker)
        .args(["ocr", "--provider", "killme", "--retry-errors", "--format", "json"]));
    let s = json(&out);
    assert_eq!((s["ran"].as_u64(), s["ok"].as_u64()), (Some(1), Some(1)), "{s}");
}

#[test]
fn a_worker_over_the_time_limit_is_killed_with_what_it_started() {
    let d = tempfile::tempdir().unwrap();
    let presets = d.path().join("presets");
    std::fs::create_dir(&presets).unwrap();
    // Starts a child process (as parsers that run Java do), records its pid, and hangs.
    let code = "import os, subprocess, time\n\n\
        def parse(pdf, pages, workdir):\n    \
            child = subprocess.Popen(['sleep', '300'])\n    \
            with open(os.environ['CORPUS_TEST_MARKER'], 'a') as f:\n        \
                f.write('%d\\n' % child.pid)\n    \
            time.sleep(300)";
    user_preset(&presets, "hangs", "7.1.0", code);
    if !install("hangs", &[("CORPUS_PRESETS", &presets)]) {
        return;
    }
    let db = d.path().join("c.db");
    let marker = d.path().join("pids");
    assert!(run(corpus(&db).arg("ingest").arg("-q").arg(sample_dir())).status.success());
    let t0 = Instant::now();
    let out = run(corpus(&db)
        .env("CORPUS_PRESETS", &presets)
        .env("CORPUS_TEST_MARKER", &marker)
        .args(["ocr", "--provider", "hangs", "-j", "1", "--timeout", "1", "--format", "json"]));
    assert!(t0.elapsed() < Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(3));
    let s = json(&out);
    assert_eq!((s["failed"].as_u64(), s["ok"].as_u64()), (Some(3), Some(0)), "{s}");
    for f in s["failures"].as_array().unwrap() {
        assert!(f["error"].as_str().unwrap().starts_with("timed out after 1 s"), "{f}");
    }
    // Each document's worker was killed with its process group: no `sleep` is left.
    let pids = std::fs::read_to_string(&marker).unwrap();
    assert_eq!(pids.lines().count(), 3, "a new worker for each document");
    std::thread::sleep(Duration::from_millis(200));
    for pid in pids.lines() {
        let alive = std::path::Path::new(&format!("/proc/{}", pid.trim())).exists()
            && !std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
                .unwrap_or_default()
                .contains(") Z ");
        assert!(!alive, "the parser's child {pid} outlived the time limit");
    }
}
