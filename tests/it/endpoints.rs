//! Every endpoint preset (`presets/*.toml` with `[endpoint]`) end to end against the local
//! chat-completions test server, which answers each in its model's own format (replies written
//! here from each format's description, not taken from any model): pages rendered and sent
//! with the preset's prompt, replies read by the preset's reader into blocks (with boxes where
//! the format has them), two-stage presets asked region by region, tokens and cost recorded,
//! and the olmocr and omnidoc suites scoring the outputs, with s/page and ¢/page beside the
//! scores in `report --by provider`. The server checks every request as vLLM does
//! ([`VllmRules`]: `max_tokens` and the prompt's estimated tokens within the preset's context,
//! `vllm_xargs` as vLLM types them) and records what was sent.

use base64::Engine as _;
use corpus::llm::testing::{chat_json, Reply, TestServer, VllmRules};
use corpus::sample::pdf::{Font, Pdf, PdfPage};
use serde_json::{json, Value};

use crate::util::{corpus, json, run};

/// The request's image part: (width, height) from the PNG header, or the JPEG/PNG sent as is.
fn image_size(req: &Value) -> Option<(u32, u32)> {
    let parts = req["messages"].as_array()?.last()?["content"].as_array()?.clone();
    let url = parts.iter().find_map(|p| p["image_url"]["url"].as_str())?.to_string();
    let b64 = url.split_once(";base64,")?.1;
    let png = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
    let be = |i: usize| u32::from_be_bytes(png[i..i + 4].try_into().unwrap());
    (png.len() > 24 && &png[1..4] == b"PNG").then(|| (be(16), be(20)))
}

/// The request's prompt text.
fn prompt(req: &Value) -> String {
    let parts = req["messages"].as_array().and_then(|m| m.last()).map(|m| m["content"].clone());
    parts
        .and_then(|c| c.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .find_map(|p| p["text"].as_str().map(str::to_string))
        .unwrap_or_default()
}

const TITLE: &str = "Measured Tables";
const BODY: &str = "The river flows north past the old mill.";

/// A page's answer in `format`, boxes laid out for a `w` x `h` image in the format's frame.
fn page_reply(format: &str, w: u32, h: u32) -> String {
    // Fractions of the page: title, paragraph, table.
    let f = [(0.1, 0.05, 0.9, 0.1), (0.1, 0.15, 0.9, 0.25), (0.1, 0.3, 0.9, 0.5)];
    let scaled = |(x0, y0, x1, y1): (f64, f64, f64, f64), sx: f64, sy: f64| {
        [(x0 * sx).round(), (y0 * sy).round(), (x1 * sx).round(), (y1 * sy).round()]
    };
    let table_html = "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>";
    match format {
        "markdown" => format!("# {TITLE}\n\n{BODY}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
        "olmocr-markdown" => format!(
            "---\nprimary_language: en\nis_rotation_valid: true\nrotation_correction: 0\nis_table: false\nis_diagram: false\n---\n# {TITLE}\n\n{BODY}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
        ),
        "dots-ocr-json" => {
            let b = |i: usize| scaled(f[i], w as f64, h as f64);
            json!([
                {"bbox": b(0), "category": "Title", "text": format!("# {TITLE}")},
                {"bbox": b(1), "category": "Text", "text": BODY},
                {"bbox": b(2), "category": "Table", "text": table_html},
            ])
            .to_string()
        }
        "deepseek-grounding" => {
            let b = |i: usize| {
                let v = scaled(f[i], 999.0, 999.0);
                format!("[[{}, {}, {}, {}]]", v[0], v[1], v[2], v[3])
            };
            format!(
                "<|ref|>title<|/ref|><|det|>{}<|/det|>\n# {TITLE}\n\n<|ref|>text<|/ref|><|det|>{}<|/det|>\n{BODY}\n\n<|ref|>table<|/ref|><|det|>{}<|/det|>\n{table_html}\n",
                b(0),
                b(1),
                b(2)
            )
        }
        "chandra-html" => {
            let b = |i: usize| {
                let v = scaled(f[i], 1000.0, 1000.0);
                format!("{} {} {} {}", v[0], v[1], v[2], v[3])
            };
            format!(
                "<div data-bbox=\"{}\" data-label=\"Section-Header\"><h1>{TITLE}</h1></div>\n<div data-bbox=\"{}\" data-label=\"Text\"><p>{BODY}</p></div>\n<div data-bbox=\"{}\" data-label=\"Table\">{table_html}</div>",
                b(0),
                b(1),
                b(2)
            )
        }
        "doctags" => {
            let b = |i: usize| {
                let v = scaled(f[i], 500.0, 500.0);
                v.iter().map(|x| format!("<loc_{x}>")).collect::<String>()
            };
            format!(
                "<doctag><title>{}{TITLE}</title><text>{}{BODY}</text><otsl>{}<ched>a<ched>b<nl><fcel>1<fcel>2<nl></otsl></doctag>",
                b(0),
                b(1),
                b(2)
            )
        }
        other => panic!("no test reply for {other}"),
    }
}

/// MinerU2.5's layout answer: title, text, table, formula regions on a 0-1000 grid.
fn layout_reply() -> String {
    [
        ("100 50 900 100", "title"),
        ("100 150 900 250", "text"),
        ("100 300 900 500", "table"),
        ("100 550 900 600", "equation"),
    ]
    .iter()
    .map(|(b, t)| format!("<|box_start|>{b}<|box_end|><|ref_start|>{t}<|ref_end|><|rotate_up|>"))
    .collect::<Vec<_>>()
    .join("\n")
}

/// One test PDF: a title, a paragraph and a small table.
fn write_pdf(path: &std::path::Path) {
    let mut pdf = Pdf::new();
    let mut p = PdfPage::new(612.0, 792.0);
    p.text(Font::Bold, 18.0, 72.0, 740.0, TITLE);
    p.text(Font::Regular, 11.0, 72.0, 700.0, BODY);
    p.text(Font::Regular, 11.0, 72.0, 660.0, "a   b");
    p.text(Font::Regular, 11.0, 72.0, 645.0, "1   2");
    pdf.push(p);
    std::fs::write(path, pdf.to_bytes()).unwrap();
}

/// A white PNG page image of `w` x `h`.
fn write_png(path: &std::path::Path, w: u32, h: u32) {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().unwrap();
    wr.write_image_data(&vec![255u8; (w * h * 3) as usize]).unwrap();
    wr.finish().unwrap();
    std::fs::write(path, out).unwrap();
}

#[test]
fn every_endpoint_preset_is_read_in_its_own_format_and_scored() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    // olmOCR-bench: one PDF with a present test and an order test.
    let bench = d.path().join("bench");
    std::fs::create_dir_all(bench.join("pdfs")).unwrap();
    write_pdf(&bench.join("pdfs/page.pdf"));
    let tests = [
        json!({"pdf": "page.pdf", "page": 1, "id": "page_present", "type": "present", "text": BODY}),
        json!({"pdf": "page.pdf", "page": 1, "id": "page_order", "type": "order",
               "before": TITLE, "after": BODY}),
    ];
    let lines: Vec<String> = tests.iter().map(Value::to_string).collect();
    std::fs::write(bench.join("t.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = run(corpus(&db)
        .args(["ingest", "-q", "--truth", "olmocr-bench", "--dataset", "olm"])
        .arg(&bench));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // OmniDocBench: one PNG page with a title, a paragraph and a table.
    let omni = d.path().join("omni");
    std::fs::create_dir_all(omni.join("images")).unwrap();
    write_png(&omni.join("images/scan.png"), 1000, 1300);
    let poly = |x0: f64, y0: f64, x1: f64, y1: f64| json!([x0, y0, x1, y0, x1, y1, x0, y1]);
    let page = json!([{
        "layout_dets": [
            {"category_type": "title", "poly": poly(100.0, 65.0, 900.0, 130.0), "order": 1, "text": TITLE, "anno_id": 1},
            {"category_type": "text_block", "poly": poly(100.0, 195.0, 900.0, 325.0), "order": 2, "text": BODY, "anno_id": 2},
            {"category_type": "table", "poly": poly(100.0, 390.0, 900.0, 650.0), "order": 3,
             "html": "<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>", "anno_id": 3}
        ],
        "extra": {"relation": []},
        "page_info": {"page_no": 0, "height": 1300, "width": 1000, "image_path": "scan.png",
                      "page_attribute": {"data_source": "test"}}
    }]);
    std::fs::write(omni.join("omni.json"), page.to_string()).unwrap();
    let out = run(corpus(&db)
        .args(["ingest", "-q", "--truth", "omnidocbench", "--dataset", "omni"])
        .arg(omni.join("omni.json")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let out = run(corpus(&db).args(["providers", "--format", "json"]));
    let list = json(&out);
    let presets: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "endpoint" && p["provider"] != "openai")
        .map(|p| p["provider"].as_str().unwrap().to_string())
        .collect();
    assert!(presets.len() >= 10, "{presets:?}");
    let mut own_layout = Vec::new();
    for id in &presets {
        let show = json(&run(corpus(&db).args(["providers", "show", id, "--format", "json"])));
        let preset = show["preset"].clone();
        let ep = preset["endpoint"].clone();
        let format = preset["output"].as_str().unwrap().to_string();
        let model = ep["model"].as_str().unwrap().to_string();
        let two = ep["two_stage"].clone();
        if two["layout"] == "corpus-layout" {
            own_layout.push(format!("{id}@"));
        }
        let served = model.clone();
        let (two_s, format_s) = (two.clone(), format.clone());
        let context = show["context"].as_u64().unwrap();
        let server = TestServer::vllm(VllmRules { context }, move |_, req| {
            let (two, format) = (&two_s, &format_s);
            if req.path == "/v1/models" {
                return Reply::Json(json!({"data": [{"id": served, "root": "/weights/rev-1",
                                                     "max_model_len": context}]}));
            }
            let body = req.json();
            let Some((w, h)) = image_size(&body) else {
                return Reply::Raw { status: 400, headers: vec![], body: "no image".into() };
            };
            let p = prompt(&body);
            let text = if two.is_object() {
                if two["layout_prompt"].as_str() == Some(p.as_str()) {
                    layout_reply()
                } else if two["table_prompt"].as_str() == Some(p.as_str()) {
                    match two["table_reply"].as_str() {
                        Some("otsl") => "<fcel>a<fcel>b<nl><fcel>1<fcel>2<nl>".to_string(),
                        _ => "<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>".to_string(),
                    }
                } else if two["formula_prompt"].as_str() == Some(p.as_str()) {
                    "$$x^{2}+1$$".to_string()
                } else if w > h * 8 {
                    TITLE.to_string()
                } else {
                    BODY.to_string()
                }
            } else {
                page_reply(format, w, h)
            };
            let mut r = chat_json(&text, &served);
            r["usage"] = json!({"prompt_tokens": 1000, "completion_tokens": 250});
            Reply::Json(r)
        });
        let out = run(corpus(&db).args([
            "ocr",
            "--provider",
            id,
            "--base-url",
            &server.base_url(),
            "--retries",
            "0",
            "--price-in",
            "0.5",
            "--price-out",
            "2",
            "--format",
            "json",
        ]));
        let s = json(&out);
        // corpus-layout presets find no regions on a white page image: that page fails,
        // said so; every other document is read.
        assert!(
            s["summary"]["ok"].as_u64().unwrap() >= 1,
            "{id}: {s}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let reqs = server.requests();
        let chat = reqs.iter().find(|r| r.path == "/v1/chat/completions").unwrap().json();
        assert_eq!(chat["model"], model.as_str(), "{id}: the preset's model id is sent");
        // What reaches vLLM: the max_tokens `providers show` says, within the context (the
        // server refused nothing: every request got a reply), the preset's vllm_xargs as the
        // logits processors read them, its skip_special_tokens and top_k or none.
        let sent_max = show["max_tokens_sent"].as_u64().unwrap();
        assert!(sent_max > 0 && sent_max < context, "{id}: {show}");
        for r in reqs.iter().filter(|r| r.path == "/v1/chat/completions") {
            let body = r.json();
            assert_eq!(body["max_tokens"].as_u64(), Some(sent_max), "{id}");
            let xargs = r.vllm_xargs().map(Value::Object).unwrap_or(Value::Null);
            assert_eq!(xargs, show["vllm_xargs"], "{id}: vllm_xargs sent");
            let skip = &ep["skip_special_tokens"];
            assert_eq!(&body["skip_special_tokens"], skip, "{id}: skip_special_tokens");
            assert_eq!(body["top_k"], ep["sampling"]["top_k"], "{id}: top_k");
            let est = VllmRules::prompt_tokens(&body).unwrap();
            assert!(est + sent_max <= context, "{id}: {est} + {sent_max} > {context}");
        }
        if ep["prompt"].is_string() {
            assert_eq!(
                prompt(&chat),
                ep["prompt"].as_str().unwrap(),
                "{id}: the prompt is sent verbatim"
            );
        }
        let doc =
            json(&run(corpus(&db).args(["show", "page", "--provider", id, "--format", "json"])));
        let blocks = doc["blocks"].as_array().cloned().unwrap_or_default();
        assert!(!blocks.is_empty(), "{id}: {doc}");
        assert!(doc.to_string().contains("old mill"), "{id}: {doc}");
        let boxed = blocks.iter().filter(|b| b["bbox"]["x1"].as_f64().unwrap_or(0.0) > 0.0).count();
        let has_boxes = two.is_object()
            || ["dots-ocr-json", "deepseek-grounding", "chandra-html", "doctags"]
                .contains(&format.as_str());
        if has_boxes {
            assert_eq!(boxed, blocks.len(), "{id}: every block has its box: {doc}");
            for b in &blocks {
                assert!(
                    b["bbox"]["x1"].as_f64().unwrap() <= 612.0 + 1e-3,
                    "{id}: box inside the page: {b}"
                );
            }
        }
        // corpus's own layout detector decides what is a table on this page; the models that
        // find regions themselves were told of one.
        if two["layout"] != "corpus-layout" {
            let table = blocks.iter().any(|b| b["kind"] == "table" && b["table"].is_object());
            assert!(table, "{id}: a table with cells: {doc}");
        }
    }
    // Scored by both suites, with what each page took beside the scores.
    let out = run(corpus(&db).args(["eval", "--suite", "olmocr", "--format", "json"]));
    assert!(out.status.success(), "olmocr: {}", String::from_utf8_lossy(&out.stderr));
    for id in &presets {
        let out = run(corpus(&db).args([
            "eval",
            "--suite",
            "omnidoc",
            "--provider",
            id,
            "--format",
            "json",
        ]));
        assert!(out.status.success(), "omnidoc {id}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // (The olmocr suite's scores are stored as olmocr-exact where KaTeX is missing; the
    // omnidoc suite's name does not change.)
    let out = run(corpus(&db).args([
        "report", "--by", "provider", "--suite", "omnidoc", "--ci", "none", "--format", "json",
    ]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = json(&out);
    let rows = rows.as_array().unwrap();
    assert!(rows.len() >= presets.len(), "{rows:?}");
    for r in rows {
        assert!(r["s/page"].as_f64().is_some(), "{r}");
        assert!(r["cpu s/page"].is_null(), "the work ran elsewhere: {r}");
        // corpus's detector finds no region on the white page image: nothing is asked.
        let p = r["provider"].as_str().unwrap();
        let asked = !own_layout.iter().any(|o| p.starts_with(o.as_str()));
        // 1,250 tokens a request at $0.5/M in and $2/M out: 0.1 ¢ a request, one or more a page.
        let (cents, tokens) = (r["¢/page"].as_f64().unwrap(), r["tokens/page"].as_f64().unwrap());
        assert!(!asked || (cents >= 0.1 - 1e-9 && tokens >= 1250.0), "{r}");
        assert!((cents - tokens * 0.1 / 1250.0).abs() < 1e-9, "{r}");
    }
    // The HTML leaderboard shows the same columns.
    let site = d.path().join("site");
    let out = run(corpus(&db)
        .args(["report", "--suite", "omnidoc", "--format", "html", "-o"])
        .arg(&site));
    // (Exit 3: the report draws PDF pages, and the OmniDocBench page here is a PNG.)
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", String::from_utf8_lossy(&out.stderr));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains(r#"data-usage="¢/page""#) && index.contains(r#"data-usage="s/page""#));
}

/// A max_tokens past what the context leaves fails as vLLM fails it: the test server answers
/// 400 with vLLM's message and the page's failure says so; where the server reports its
/// max_model_len, corpus refuses before it sends anything.
#[test]
fn a_max_tokens_past_the_context_fails_as_vllm_would() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let pdfs = d.path().join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    write_pdf(&pdfs.join("page.pdf"));
    let out = run(corpus(&db).args(["ingest", "-q"]).arg(&pdfs));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let show =
        json(&run(corpus(&db).args(["providers", "show", "deepseek-ocr", "--format", "json"])));
    assert_eq!(show["context"], 8192);
    assert_eq!(show["max_tokens_sent"], 2048);
    assert_eq!(show["vllm_xargs"]["ngram_size"], 30);
    // The table form prints the same three.
    let table = run(corpus(&db).args(["providers", "show", "deepseek-ocr"]));
    let table = String::from_utf8_lossy(&table.stdout).to_string();
    for field in ["context", "max_tokens_sent", "vllm_xargs.ngram_size", "vllm_xargs.window_size"] {
        assert!(table.lines().any(|l| l.trim_start().starts_with(field)), "{field}: {table}");
    }
    let ocr = |url: &str, max: &str| {
        run(corpus(&db).args([
            "ocr",
            "--provider",
            "deepseek-ocr",
            "--base-url",
            url,
            "--retries",
            "0",
            "--max-tokens",
            max,
            "--format",
            "json",
        ]))
    };
    let reply = page_reply("deepseek-grounding", 1224, 1584);
    let handler = move |_: usize, req: &corpus::llm::testing::Recorded| {
        if req.path == "/v1/models" {
            return Reply::Json(json!({"data": [{"id": "deepseek-ai/DeepSeek-OCR"}]}));
        }
        Reply::Json(chat_json(&reply, "deepseek-ai/DeepSeek-OCR"))
    };
    let server = TestServer::vllm(VllmRules { context: 8192 }, handler);
    // The authors' offline 8192: the whole context for the reply, nothing for the prompt.
    let out = ocr(&server.base_url(), "8192");
    let s = json(&out);
    assert_eq!(s["summary"]["failed"], 1, "{s}");
    let shown =
        run(corpus(&db).args(["show", "page", "--provider", "deepseek-ocr", "--format", "json"]));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&shown.stdout),
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(all.contains("HTTP 400") && all.contains("maximum input length of 0 tokens"), "{all}");
    // 7000 leaves 1192 for the prompt: the page image alone is more.
    let out = ocr(&server.base_url(), "7000");
    assert_eq!(json(&out)["summary"]["failed"], 1);
    // The preset's 2048 fits.
    let out = ocr(&server.base_url(), "2048");
    assert_eq!(json(&out)["summary"]["ok"], 1, "{}", String::from_utf8_lossy(&out.stderr));
    // A server that says its max_model_len: refused before anything is sent.
    let said = TestServer::vllm(VllmRules { context: 8192 }, |_, req| {
        if req.path == "/v1/models" {
            return Reply::Json(
                json!({"data": [{"id": "deepseek-ai/DeepSeek-OCR", "max_model_len": 8192}]}),
            );
        }
        Reply::Json(chat_json("", "deepseek-ai/DeepSeek-OCR"))
    });
    let out = ocr(&said.base_url(), "8000");
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("max_model_len") && err.contains("--max-tokens 6892"), "{err}");
    assert!(said.requests().iter().all(|r| r.path != "/v1/chat/completions"));
}
