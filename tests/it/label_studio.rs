//! `corpus truth draft` and the Label Studio round trip (`docs/label-studio.md`): a draft
//! ingested unchanged is marked a draft and scores its provider perfectly; a real Label Studio
//! (PyPI `label-studio`, installed by `scripts/label-studio.sh`) started here on 127.0.0.1
//! gets corpus's project, tasks and an annotator's corrections through its REST API, and the
//! export ingested moves the provider's scores exactly as the corrections imply; bad exports
//! and drafts fail whole, naming the file and the task.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{corpus, json, run, skip_or_fail};

/// A two-page PDF: a title and three paragraphs, then one paragraph.
fn two_pages() -> Vec<u8> {
    use corpus::sample::pdf::{Font, Pdf, PdfPage};
    let mut pdf = Pdf::new();
    let mut p = PdfPage::new(612.0, 792.0);
    p.text(Font::Bold, 18.0, 72.0, 700.0, "Drafted Truths");
    p.text(Font::Regular, 10.0, 72.0, 640.0, "Alpha beta gamma delta.");
    p.text(Font::Regular, 10.0, 72.0, 580.0, "Second paragraph here.");
    p.text(Font::Regular, 10.0, 72.0, 520.0, "Third paragraph text.");
    pdf.push(p);
    let mut p = PdfPage::new(612.0, 792.0);
    p.text(Font::Regular, 10.0, 72.0, 700.0, "Page two words.");
    pdf.push(p);
    pdf.to_bytes()
}

/// A store with the PDF in dataset `mine` and pdfium's output of it; returns the store.
fn store_with_pdfium(dir: &Path) -> PathBuf {
    let db = dir.join("c.db");
    std::fs::create_dir_all(dir.join("pdfs")).unwrap();
    std::fs::write(dir.join("pdfs/doc.pdf"), two_pages()).unwrap();
    let pdfs = dir.join("pdfs");
    let out = run(corpus(&db).args(["ingest", "--dataset", "mine"]).arg(&pdfs));
    assert!(out.status.success());
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--dataset", "mine", "-q"]));
    assert!(out.status.success());
    db
}

fn truths(db: &Path) -> i64 {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row("SELECT count(*) FROM truths", [], |r| r.get(0)).unwrap()
}

fn attribute(db: &Path, name: &str) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c.prepare("SELECT value FROM document_attributes WHERE name = ?1").unwrap();
    st.query_map([name], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

/// `eval --suite omnidoc --provider P` and its whole-run figures by name.
fn omnidoc(db: &Path, provider: &str) -> Value {
    let out = run(corpus(db)
        .args(["eval", "--suite", "omnidoc", "--provider", provider])
        .args(["--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let v = json(&out);
    let summary = if v.is_array() { v[0].clone() } else { v };
    let figures: serde_json::Map<String, Value> = summary["figures"]
        .as_array()
        .unwrap_or_else(|| panic!("no figures: {summary}"))
        .iter()
        .map(|f| (f[0].as_str().unwrap().to_string(), f[1].clone()))
        .collect();
    json!({"scored": summary["scored"], "figures": figures})
}

fn draft(db: &Path, dir: &Path, extra: &[&str]) -> std::process::Output {
    run(corpus(db)
        .args(["truth", "draft", "--dataset", "mine", "--from", "pdfium", "--format", "json"])
        .arg("-o")
        .arg(dir.join("draft"))
        .args(extra))
}

#[test]
fn a_draft_ingested_unchanged_is_marked_and_scores_its_provider_perfectly() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_pdfium(d.path());
    let out = draft(&db, d.path(), &["--pages", "1"]);
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!(s["pages"], 1);
    assert_eq!(s["placed_by_provider"], s["blocks"]);
    let draft_json = d.path().join("draft/draft.json");
    let pages: Value = serde_json::from_slice(&std::fs::read(&draft_json).unwrap()).unwrap();
    let info = &pages[0]["page_info"];
    assert_eq!(info["corpus_source"]["page"], 1);
    assert_eq!(info["width"], 1224, "612 pt at 144 dpi");
    assert!(info["corpus_draft"]["note"].as_str().unwrap().ends_with(", not reviewed"));
    let image = d.path().join("draft/images").join(info["image_path"].as_str().unwrap());
    assert!(std::fs::read(&image).unwrap().starts_with(b"\x89PNG"));
    // Ingested as it is: attached to the stored PDF's page 1, no new document.
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "mine"])
        .arg(&draft_json)
        .args(["--format", "json"]));
    assert!(out.status.success());
    assert_eq!(json(&out)["new_documents"], 0);
    assert_eq!(json(&out)["truths_added"], 1);
    let status = attribute(&db, "truth_status");
    assert_eq!(status.len(), 1);
    assert!(status[0].starts_with("draft pdfium@"), "{status:?}");
    let f = omnidoc(&db, "pdfium");
    assert_eq!(f["scored"], 1);
    assert_eq!(f["figures"]["text_edit"], json!(0.0));
    assert_eq!(f["figures"]["order_edit"], json!(0.0));
    // GT-vs-GT through the truth provider.
    assert!(run(corpus(&db).args(["ocr", "--provider", "truth", "-q"])).status.success());
    let f = omnidoc(&db, "truth");
    assert_eq!(f["figures"]["text_edit"], json!(0.0));
}

#[test]
fn a_draft_from_a_provider_without_outputs_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_pdfium(d.path());
    let out = run(corpus(&db)
        .args(["truth", "draft", "--dataset", "mine", "--from", "pymupdf4llm"])
        .arg("-o")
        .arg(d.path().join("nothing")));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("provider pymupdf4llm has no outputs on dataset mine"), "{err}");
    assert!(!d.path().join("nothing").exists());
    let out = run(corpus(&db)
        .args(["truth", "draft", "--dataset", "mine", "--from", "pdfium"])
        .args(["--pages", "2", "--most-disagreed"]));
    // The ranking needs two providers: with pdfium alone there is nothing to compare (exit 1,
    // as `corpus agree` says it).
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to compare"));
    // With a second provider the most disagreed page is drafted.
    assert!(run(corpus(&db).args(["ocr", "--provider", "empty", "-q"])).status.success());
    let out = run(corpus(&db)
        .args(["truth", "draft", "--dataset", "mine", "--from", "pdfium", "--format", "json"])
        .args(["--pages", "1", "--most-disagreed"])
        .arg("-o")
        .arg(d.path().join("top")));
    assert!(out.status.success());
    assert_eq!(json(&out)["pages"], 1);
}

#[test]
fn markdown_blocks_are_placed_by_the_text_layer_or_left_without_a_region() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_pdfium(d.path());
    let md = d.path().join("md");
    std::fs::create_dir_all(&md).unwrap();
    std::fs::write(md.join("doc.md"), "# Drafted Truths\n\nAlpha beta gamma delta.\n\nNot on the page at all.\n\u{c}Page two words.\n").unwrap();
    let out =
        run(corpus(&db).args(["import", "--provider", "mdtool", "--format", "markdown"]).arg(&md));
    assert!(out.status.success());
    let out = run(corpus(&db)
        .args(["truth", "draft", "--dataset", "mine", "--from", "mdtool", "--format", "json"])
        .arg("-o")
        .arg(d.path().join("draft")));
    assert!(out.status.success());
    let s = json(&out);
    assert_eq!((s["placed_by_text_layer"].clone(), s["unplaced"].clone()), (json!(3), json!(1)));
    let pages: Value =
        serde_json::from_slice(&std::fs::read(d.path().join("draft/draft.json")).unwrap()).unwrap();
    let dets = &pages[0]["layout_dets"];
    assert_eq!(dets[2]["corpus_placement"], "none");
    assert_eq!(dets[2]["poly"], json!([]));
    // The title's box is where pdfium's glyphs are: 72 pt from the left, at 144 dpi.
    assert_eq!(dets[0]["corpus_placement"], "text-layer");
    let x0 = dets[0]["poly"][0].as_f64().unwrap();
    assert!((x0 - 144.0).abs() < 4.0, "{x0}");
}

#[test]
fn bad_exports_fail_whole_naming_the_file_and_the_task() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_pdfium(d.path());
    let ls = d.path().join("ls");
    let out = draft(&db, d.path(), &["--label-studio", ls.to_str().unwrap()]);
    assert!(out.status.success());
    let tasks: Vec<Value> =
        serde_json::from_slice(&std::fs::read(ls.join("tasks.json")).unwrap()).unwrap();
    // As Label Studio exports a task an annotator submitted unchanged.
    let submitted = |t: &Value, id: i64, result: Value| {
        let mut t = t.clone();
        t["id"] = json!(id);
        t["annotations"] = json!([{"id": id, "result": result, "was_cancelled": false,
            "updated_at": "2026-01-01T00:00:00Z"}]);
        t
    };
    let good = submitted(&tasks[1], 2, tasks[1]["predictions"][0]["result"].clone());
    let mut outside = tasks[0]["predictions"][0]["result"].clone();
    outside[0]["value"]["x"] = json!(95.0);
    let mut elsewhere = tasks[0].clone();
    elsewhere["data"]["corpus"]["document"] = json!("f".repeat(64));
    let cases = [
        (
            "other-config",
            json!([{"id": 1, "data": {"image": "a.png"}, "annotations": []}]),
            "task 1: not a task of a corpus labelling configuration",
        ),
        (
            "outside",
            json!([submitted(&tasks[0], 1, outside), good.clone()]),
            "task 1: region b0 lies outside the image",
        ),
        (
            "not-stored",
            json!([submitted(&elsewhere, 1, json!([])), good.clone()]),
            "task 1: document ffffffffffffffff is not in the store",
        ),
    ];
    for (name, export, msg) in cases {
        let path = d.path().join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_vec(&export).unwrap()).unwrap();
        let out = run(corpus(&db)
            .args(["ingest", "--truth", "label-studio", "--dataset", "mine"])
            .arg(&path));
        assert!(!out.status.success(), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&path.display().to_string()), "{name}: {err}");
        assert!(err.contains(msg), "{name}: {err}");
        assert!(err.contains("nothing was stored"), "{name}: {err}");
        assert_eq!(truths(&db), 0, "{name}: nothing stored half");
    }
}

/// Label Studio, started on a free port of 127.0.0.1 and stopped (its process group) when
/// dropped.
struct LabelStudio {
    child: Child,
    url: String,
    token: String,
}

impl Drop for LabelStudio {
    fn drop(&mut self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::TERM);
        }
        let _ = self.child.wait();
    }
}

impl LabelStudio {
    /// Starts the Label Studio of `CORPUS_LABEL_STUDIO` (or the pinned environment under the
    /// user cache) with its local files served from `root`; `Err` says why it cannot.
    fn start(root: &Path, data: &Path) -> Result<LabelStudio, String> {
        let exe = std::env::var_os("CORPUS_LABEL_STUDIO").map(PathBuf::from).unwrap_or_else(|| {
            let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
            home.join(".cache/corpus/label-studio-1.23.2/bin/label-studio")
        });
        if !exe.is_file() {
            return Err(format!(
                "{} is absent (scripts/label-studio.sh installs it; scripts/test.sh runs it)",
                exe.display()
            ));
        }
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let token = "corpus-test-token-0123456789".to_string();
        let log = std::fs::File::create(data.join("label-studio.log")).unwrap();
        let child = Command::new(&exe)
            .args(["start", "--no-browser", "--internal-host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .arg("--data-dir")
            .arg(data)
            .args(["--username", "annotator@example.org", "--password", "corpus-test-pass"])
            .args(["--user-token", &token, "--enable-legacy-api-token"])
            .env("LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED", "true")
            .env("LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT", root)
            .env("LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK", "true")
            // No error reporting to Label Studio's Sentry (an address off this machine; and
            // the sentry-sdk pip resolves may not take its options): empty DSNs turn it off.
            .env("SENTRY_DSN", "")
            .env("FRONTEND_SENTRY_DSN", "")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("starting {}: {e}", exe.display()))?;
        let ls = LabelStudio { child, url: format!("http://127.0.0.1:{port}"), token };
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(180) {
            if ureq::get(format!("{}/health", ls.url)).call().is_ok() {
                eprintln!("Label Studio up in {:.1} s", t0.elapsed().as_secs_f64());
                return Ok(ls);
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        let tail = std::fs::read_to_string(data.join("label-studio.log")).unwrap_or_default();
        Err(format!(
            "Label Studio did not answer in 180 s: {}",
            &tail[tail.len().saturating_sub(2000)..]
        ))
    }

    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let url = format!("{}{path}", self.url);
        let auth = format!("Token {}", self.token);
        let resp = match body {
            None => ureq::get(&url).header("Authorization", &auth).call(),
            Some(b) => {
                let req = match method {
                    "POST" => ureq::post(&url),
                    _ => ureq::patch(&url),
                };
                req.header("Authorization", &auth)
                    .header("Content-Type", "application/json")
                    .send(b.to_string())
            }
        };
        let mut resp = resp.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let text = resp.body_mut().read_to_string().unwrap();
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }
}

#[test]
fn label_studio_round_trip_moves_the_scores_as_the_corrections_imply() {
    let d = tempfile::tempdir().unwrap();
    let db = store_with_pdfium(d.path());
    let ls_dir = d.path().join("ls");
    let out = draft(&db, d.path(), &["--label-studio", ls_dir.to_str().unwrap()]);
    assert!(out.status.success());
    let data = d.path().join("ls-data");
    std::fs::create_dir_all(&data).unwrap();
    let t0 = Instant::now();
    let ls = match LabelStudio::start(&ls_dir, &data) {
        Ok(ls) => ls,
        Err(why) => return skip_or_fail(&why),
    };
    // A project with corpus's configuration, and the tasks imported.
    let config = std::fs::read_to_string(ls_dir.join("label_config.xml")).unwrap();
    let project = ls.call(
        "POST",
        "/api/projects",
        Some(&json!({"title": "corpus draft",
        "label_config": config})),
    );
    let pid = project["id"].as_i64().unwrap();
    let tasks: Value =
        serde_json::from_slice(&std::fs::read(ls_dir.join("tasks.json")).unwrap()).unwrap();
    let imported = ls.call("POST", &format!("/api/projects/{pid}/import"), Some(&tasks));
    assert_eq!(imported["task_count"], 2, "{imported}");
    let listed = ls.call("GET", &format!("/api/tasks?project={pid}&fields=all"), None);
    let listed = listed.get("tasks").cloned().unwrap_or(listed);
    let by_page = |p: u64| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["data"]["corpus"]["page"] == p)
            .unwrap()
            .clone()
    };
    let (page1, page2) = (by_page(1), by_page(2));
    // The annotator starts from the pre-annotation of page 1: "delta" corrected to "deltas" in
    // the first paragraph, the second paragraph's region deleted, a region added.
    let mut result: Vec<Value> = tasks[0]["predictions"][0]["result"].as_array().unwrap().clone();
    let text_of = |r: &Value| r["value"]["text"][0].as_str().unwrap_or("").to_string();
    let region = |needle: &str| {
        result
            .iter()
            .find(|r| r["from_name"] == "transcription" && text_of(r).contains(needle))
            .map(|r| r["id"].clone())
            .unwrap()
    };
    let (first, second) = (region("Alpha"), region("Second"));
    result.retain(|r| r["id"] != second);
    for r in result.iter_mut().filter(|r| r["id"] == first && r["from_name"] == "transcription") {
        r["value"]["text"] = json!(["Alpha beta gamma deltas."]);
    }
    let geo = json!({"x": 10.0, "y": 80.0, "width": 40.0, "height": 3.0, "rotation": 0});
    let add = |from: &str, kind: &str, key: &str, v: Value| {
        let mut value = geo.clone();
        value[key] = v;
        json!({"id": "added1", "from_name": from, "to_name": "image", "type": kind,
            "original_width": 1224, "original_height": 1584, "image_rotation": 0, "value": value})
    };
    result.push(add("category", "rectanglelabels", "rectanglelabels", json!(["text_block"])));
    result.push(add("transcription", "textarea", "text", json!(["Added by hand."])));
    result.push(add("order", "number", "number", json!(9)));
    let ann = json!({"result": result, "was_cancelled": false, "lead_time": 12.5});
    ls.call("POST", &format!("/api/tasks/{}/annotations", page1["id"]), Some(&ann));
    // Page 2 is skipped.
    let skip = json!({"result": [], "was_cancelled": true});
    ls.call("POST", &format!("/api/tasks/{}/annotations", page2["id"]), Some(&skip));
    let export = ls.call("GET", &format!("/api/projects/{pid}/export?exportType=JSON"), None);
    drop(ls);
    eprintln!("Label Studio part: {:.1} s", t0.elapsed().as_secs_f64());
    let export_path = d.path().join("export.json");
    std::fs::write(&export_path, serde_json::to_vec_pretty(&export).unwrap()).unwrap();
    // Ingested: page 1 a reviewed truth, page 2 named as skipped.
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "label-studio", "--dataset", "mine"])
        .arg(&export_path));
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("not ingested: task {}", page2["id"])) && err.contains("skipped"),
        "{err}"
    );
    assert_eq!(truths(&db), 1);
    assert_eq!(attribute(&db, "truth_status"), ["reviewed"]);
    // GT-vs-GT.
    assert!(run(corpus(&db).args(["ocr", "--provider", "truth", "-q"])).status.success());
    let f = omnidoc(&db, "truth");
    assert_eq!(f["figures"]["text_edit"], json!(0.0));
    assert_eq!(f["figures"]["order_edit"], json!(0.0));
    // pdfium on page 1 scored 0 against its own draft. The corrected truth (docs/label-studio.md,
    // "A worked example"; the rules in docs/omnidocbench.md §3–§5), normalized (white space and
    // punctuation gone): "DraftedTruths" (13), "Alphabetagammadeltas" (20), "Thirdparagraphtext"
    // (18), "Addedbyhand" (11). pdfium's page 1: the same title and third paragraph (0 edits
    // each), "Alphabetagammadelta" (1 edit of 20) and "Secondparagraphhere" (19), whose truth
    // region was deleted. Quick matching pairs the first three; the Hungarian pairing of
    // "Addedbyhand" with "Secondparagraphhere" costs 17/19 > 0.7 and is undone, but the
    // leftover truth and the leftover prediction are then paired again
    // (`convert_final_matches`) and scored by their own distance: 17 of 19. Page text_edit =
    // (0 + 1 + 0 + 17) / (13 + 20 + 18 + 19) = 18/70. (Counting "Addedbyhand" as unmatched,
    // 11/11, and the extra prediction as dropped gives 12/62: not the evaluator's rule.)
    let f = omnidoc(&db, "pdfium");
    assert_eq!(f["scored"], 1);
    let text = f["figures"]["text_edit"].as_f64().unwrap();
    assert!((text - 18.0 / 70.0).abs() < 1e-12, "{text}");
}
