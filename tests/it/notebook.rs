//! `notebooks/history.ipynb`, executed headless on the sample corpus.

use crate::util::{corpus, run, sample_dir, skip_or_fail};

const EXECUTE: &str = r#"
import sys, nbformat, nbclient
nb = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
nbformat.write(nb, sys.argv[2])
"#;

#[test]
fn history_notebook_runs_on_the_sample_corpus_and_draws_its_figures() {
    let Some(python) = std::env::var_os("CORPUS_NOTEBOOK_PYTHON") else {
        skip_or_fail("CORPUS_NOTEBOOK_PYTHON is not set (scripts/test.sh sets it)");
        return;
    };
    let ok = std::process::Command::new(&python)
        .args(["-c", "import nbclient, polars, matplotlib, ipykernel"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        skip_or_fail(&format!("{python:?} lacks nbclient, polars, matplotlib or ipykernel"));
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).args(["ingest", "--truth", "peerread"]).arg(sample_dir()))
        .status
        .success());
    assert!(run(corpus(&db).args(["ocr", "-q"])).status.success());
    assert!(run(corpus(&db).args(["eval", "-q"])).status.success());
    assert!(run(corpus(&db).args(["ocr", "--provider", "truth", "-q"])).status.success());
    assert!(run(corpus(&db).args(["eval", "-q", "--provider", "truth"])).status.success());
    let before = std::fs::read(&db).unwrap();
    let nb = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("notebooks/history.ipynb");
    let out_nb = d.path().join("executed.ipynb");
    let figures = d.path().join("figures");
    let out = std::process::Command::new(&python)
        .args(["-c", EXECUTE])
        .arg(&nb)
        .arg(&out_nb)
        .env("CORPUS_DB", &db)
        .env("CORPUS_FIGURES", &figures)
        .output()
        .unwrap();
    assert!(out.status.success(), "notebook failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let executed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out_nb).unwrap()).unwrap();
    let code: Vec<&serde_json::Value> =
        executed["cells"].as_array().unwrap().iter().filter(|c| c["cell_type"] == "code").collect();
    assert!(code.iter().all(|c| c["execution_count"].is_number()), "every cell ran");
    let errors = code
        .iter()
        .flat_map(|c| c["outputs"].as_array().unwrap())
        .any(|o| o["output_type"] == "error");
    assert!(!errors);
    let images = code
        .iter()
        .flat_map(|c| c["outputs"].as_array().unwrap())
        .filter(|o| o["data"]["image/png"].is_string())
        .count();
    assert_eq!(images, 2, "the history plot and the heat map");
    // Every headline metric of the paper suite is plotted (the ids are the suite's own).
    let printed: String = code
        .iter()
        .flat_map(|c| c["outputs"].as_array().unwrap())
        .filter(|o| o["output_type"] == "stream")
        .flat_map(|o| o["text"].as_array().cloned().unwrap_or_else(|| vec![o["text"].clone()]))
        .filter_map(|t| t.as_str().map(str::to_string))
        .collect();
    let line = printed.lines().find(|l| l.starts_with("plotted:")).expect("the plotted line");
    let plotted: Vec<&str> = line["plotted:".len()..].split_whitespace().collect();
    assert_eq!(plotted, corpus::metrics::paper::HEADLINE, "{line}");
    for f in ["history.png", "heatmap.png"] {
        let png = std::fs::read(figures.join(f)).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{f}");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before, "the notebook opened the store read-only");
}
