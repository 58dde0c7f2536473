//! `corpus ocr --provider openai` end to end against the local chat-completions test server:
//! pages rendered by pdfium and sent as PNG images, replies read back through the Markdown
//! reader, a page failure recorded on its document, and a retry that sends only the page
//! that failed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use base64::Engine as _;
use corpus::llm::testing::{chat_json, Reply, TestServer};
use corpus::sample::pdf::{Font, Pdf, PdfPage};
use serde_json::json;

use crate::util::{corpus, json, run};

/// The rendered page's (width, height) from the request's PNG (IHDR).
fn png_size(req: &serde_json::Value) -> Option<(u32, u32)> {
    let url = req["messages"][0]["content"][1]["image_url"]["url"].as_str()?;
    let b64 = url.strip_prefix("data:image/png;base64,")?;
    let png = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
    let be = |i: usize| u32::from_be_bytes(png[i..i + 4].try_into().unwrap());
    (png.len() > 24 && &png[1..4] == b"PNG").then(|| (be(16), be(20)))
}

fn write_pdfs(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut a = Pdf::new();
    let mut p = PdfPage::new(612.0, 792.0);
    p.text(Font::Regular, 12.0, 72.0, 700.0, "Portrait page of document A.");
    a.push(p);
    std::fs::write(dir.join("a.pdf"), a.to_bytes()).unwrap();
    let mut b = Pdf::new();
    let mut p = PdfPage::new(612.0, 792.0);
    p.text(Font::Regular, 12.0, 72.0, 700.0, "Portrait page of document B.");
    b.push(p);
    let mut p = PdfPage::new(792.0, 612.0);
    p.text(Font::Regular, 12.0, 72.0, 500.0, "Landscape page of document B.");
    b.push(p);
    std::fs::write(dir.join("b.pdf"), b.to_bytes()).unwrap();
}

#[test]
fn pages_go_to_the_model_and_only_failed_pages_are_sent_again() {
    let d = tempfile::tempdir().unwrap();
    write_pdfs(&d.path().join("pdfs"));
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).args(["ingest", "-q"]).arg(d.path().join("pdfs"))).status.success());

    let landscape_ok = Arc::new(AtomicBool::new(false));
    let flag = landscape_ok.clone();
    let server = TestServer::start(move |_, req| {
        if req.path == "/v1/models" {
            return Reply::Json(json!({"data": [{"id": "vlm", "root": "/weights/vlm-rev-3"}]}));
        }
        match png_size(&req.json()) {
            Some((w, h)) if w > h && !flag.load(Ordering::SeqCst) => {
                Reply::Raw { status: 401, headers: vec![], body: r#"{"error": "bad key"}"#.into() }
            }
            Some((w, h)) if w > h => {
                Reply::Json(chat_json("---\nis_table: false\n---\nLandscape text.", "vlm"))
            }
            Some(_) => Reply::Json(chat_json(
                "---\nprimary_language: en\n---\n# Portrait\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
                "vlm",
            )),
            None => Reply::Raw { status: 400, headers: vec![], body: "no image".into() },
        }
    });
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = ["ocr", "--provider", "openai", "--model", "vlm", "--base-url"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.push(server.base_url());
        v.extend(["--prompt", "olmocr", "--retries", "0", "--format", "json"].map(String::from));
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let chats =
        |s: &TestServer| s.requests().iter().filter(|r| r.path == "/v1/chat/completions").count();

    let out = run(corpus(&db).args(args(&[])).env("CORPUS_OPENAI_API_KEY", "sk-ocr-secret"));
    assert_eq!(out.status.code(), Some(3), "page 2 of b failed");
    let s = json(&out);
    assert_eq!((s["summary"]["ok"].as_u64(), s["summary"]["failed"].as_u64()), (Some(1), Some(1)));
    assert!(
        s["summary"]["failures"][0]["error"].as_str().unwrap().starts_with("page 2: HTTP 401"),
        "{s}"
    );
    assert_eq!(chats(&server), 3);
    // The request: the prompt then the page as a PNG at 1288 px on its longest side.
    let reqs = server.requests();
    let chat = reqs.iter().find(|r| r.path == "/v1/chat/completions").unwrap();
    assert_eq!(chat.header("authorization"), Some("Bearer sk-ocr-secret"));
    let body = chat.json();
    assert_eq!(body["model"], "vlm");
    assert!(body["messages"][0]["content"][0]["text"].as_str().unwrap().contains("front matter"));
    let (w, h) = png_size(&body).unwrap();
    assert_eq!(w.max(h), 1288, "{w}x{h}");

    // Again: a's output and b's failure are cached, nothing is sent.
    let out = run(corpus(&db).args(args(&[])));
    assert_eq!(chats(&server), 3);
    assert_eq!(json(&out)["summary"]["cached"], 1);

    // --retry-errors: only b's failed page goes out.
    landscape_ok.store(true, Ordering::SeqCst);
    let out = run(corpus(&db).args(args(&["--retry-errors"])));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(chats(&server), 4);

    // The Doc: b's two pages read through the Markdown reader, front matter removed.
    let out = run(corpus(&db).args(["show", "b", "--provider", "openai", "--format", "json"]));
    let doc = json(&out);
    assert_eq!(doc["pages"].as_array().unwrap().len(), 2);
    let text = doc.to_string();
    assert!(text.contains("Landscape text.") && !text.contains("is_table"), "{text}");
    assert!(doc["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["kind"] == "table" && b["page"] == 0));
}

#[test]
fn a_run_stopped_midway_sends_only_the_missing_pages_when_started_again() {
    let d = tempfile::tempdir().unwrap();
    write_pdfs(&d.path().join("pdfs"));
    std::fs::remove_file(d.path().join("pdfs/a.pdf")).unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).args(["ingest", "-q"]).arg(d.path().join("pdfs"))).status.success());
    let server = TestServer::start(|_, req| {
        if req.path == "/v1/models" {
            return Reply::Raw { status: 404, headers: vec![], body: "no such route".into() };
        }
        Reply::Json(chat_json("Some page text.", "vlm"))
    });
    let chats =
        |s: &TestServer| s.requests().iter().filter(|r| r.path == "/v1/chat/completions").count();
    let base = [
        "ocr",
        "--provider",
        "openai",
        "--model",
        "vlm",
        "--prompt",
        "markdown",
        "--concurrency",
        "1",
        "--retries",
        "0",
    ];
    // The cap allows the /models probe and one page: the run stops, says so, stores no output.
    let out =
        run(corpus(&db).args(base).args(["--base-url", &server.base_url(), "--max-requests", "2"]));
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stopped early: request cap of 2"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(chats(&server), 1);
    // Started again: only the second page is sent.
    let out =
        run(corpus(&db).args(base).args(["--base-url", &server.base_url(), "--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(chats(&server), 2);
    assert_eq!(json(&out)["summary"]["ok"], 1);
    // --pages is refused: every page is read.
    let out = run(corpus(&db).args(base).args(["--base-url", &server.base_url(), "--pages", "1"]));
    assert_eq!(out.status.code(), Some(2));
}

/// A reply that ended as the server says (`length`: cut at the token limit).
fn reply_ending(content: &str, finish: &str) -> serde_json::Value {
    let mut v = chat_json(content, "vlm");
    v["choices"][0]["finish_reason"] = json!(finish);
    v
}

/// A self-hosted model with no token price: `--gpu-price` records an estimated cost from the
/// GPU time the requests took (the server here is one GPU serving one request at a time, so
/// the concurrency it really ran is below the 4 requests sent at once), and each page's
/// degenerate reply is counted: cut at the token limit, a repeated tail removed, empty.
#[test]
fn gpu_time_is_priced_and_degenerate_replies_are_counted() {
    let d = tempfile::tempdir().unwrap();
    let bench = d.path().join("bench");
    std::fs::create_dir_all(bench.join("pdfs")).unwrap();
    let mut pdf = Pdf::new();
    for i in 1..=4 {
        let mut p = PdfPage::new(612.0, 792.0);
        p.text(Font::Regular, 12.0, 72.0, 700.0, &format!("Page {i} of the report."));
        pdf.push(p);
    }
    std::fs::write(bench.join("pdfs/r.pdf"), pdf.to_bytes()).unwrap();
    let test = r#"{"pdf": "r.pdf", "page": 1, "id": "r_1", "type": "present", "text": "Page 1"}"#;
    std::fs::write(bench.join("t.jsonl"), format!("{test}\n")).unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db).args(["ingest", "-q", "--truth", "olmocr-bench"]).arg(&bench));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let gpu = Arc::new(std::sync::Mutex::new(()));
    let served = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let server = TestServer::start(move |_, req| {
        if req.path == "/v1/models" {
            return Reply::Json(json!({"data": [{"id": "vlm", "root": "/weights/vlm"}]}));
        }
        let _busy = gpu.lock().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        let loop_tail = format!("Page text.\n{}", "| 1 | 2 |\n".repeat(40));
        Reply::Json(match served.fetch_add(1, Ordering::SeqCst) {
            0 => reply_ending("Page 1 of the report.", "stop"),
            1 => reply_ending(&loop_tail, "length"),
            2 => reply_ending("A sentence cut mid", "length"),
            _ => reply_ending("", "stop"),
        })
    });
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = ["ocr", "--provider", "openai", "--model", "vlm", "--prompt"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(
            ["markdown", "--retries", "0", "--concurrency", "4", "--base-url"].map(String::from),
        );
        v.push(server.base_url());
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    // --gpu-price is for endpoints only, and a usage error stores nothing.
    let out = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--gpu-price", "2"]));
    assert_eq!(out.status.code(), Some(2));
    let out = run(corpus(&db).args(args(&["--gpu-price", "-1"])));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(server.calls(), 0);

    let out = run(corpus(&db).args(args(&["--gpu-price", "3.6", "-q"])));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db).args([
        "sql",
        "SELECT cost_usd, cost_basis, wall_ms, pages_cut, pages_looped, pages_empty, page_count \
         FROM v_outputs WHERE provider = 'openai'",
        "--format",
        "json",
    ]));
    let row = &json(&out)[0];
    assert_eq!(
        [&row["pages_cut"], &row["pages_looped"], &row["pages_empty"], &row["page_count"]],
        [2, 1, 1, 4].map(|n| json!(n)).each_ref(),
        "{row}"
    );
    assert_eq!(row["cost_basis"], "gpu-time");
    // At 3.6 $/h a GPU second costs 0.001 $. The one GPU served the 4 requests one after
    // another, 200 ms each: at least 0.8 s of GPU time (divided by the 4 requests sent at once
    // it would be 0.2 s), and never more than the document's wall time.
    let cost = row["cost_usd"].as_f64().unwrap();
    let wall_s = row["wall_ms"].as_f64().unwrap() / 1000.0;
    assert!(cost >= 0.0008 - 1e-9 && cost <= wall_s * 0.001 + 1e-9, "{cost} over {wall_s} s");

    // The report: ¢/page, and the shares of degenerate pages, with the estimate said.
    let out = run(corpus(&db).args(["eval", "--suite", "olmocr", "--math", "exact", "-q"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(corpus(&db).args([
        "report",
        "--suite",
        "olmocr-exact",
        "--by",
        "provider",
        "--format",
        "json",
    ]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json(&out);
    let r = r
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["provider"].as_str().unwrap().starts_with("openai@"))
        .unwrap()
        .clone();
    let provider = r["provider"].as_str().unwrap().to_string();
    assert!((r["¢/page"].as_f64().unwrap() - cost * 100.0 / 4.0).abs() < 1e-9, "{r}");
    for (col, want) in [("cut %", 50.0), ("loop %", 25.0), ("empty %", 25.0)] {
        assert_eq!(r[col].as_f64(), Some(want), "{col}: {r}");
    }
    let note = String::from_utf8_lossy(&out.stderr);
    assert!(note.contains(&format!("¢/page of {provider} is an estimate")), "{note}");
}
