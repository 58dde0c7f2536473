//! `corpus import` of the files GPU parser pipelines write (MinerU, PaddleOCR, Marker,
//! olmOCR), each in the folder layout its tool writes, against the PDFs they were run on. The
//! outputs are written here by hand in each format's documented shape.

use std::path::Path;

use serde_json::{json, Value};

use crate::util::{corpus, json, run};

/// A Letter-sized PDF of two pages (the first saying `text`).
fn two_page_pdf(text: &str) -> Vec<u8> {
    use corpus::sample::pdf::{Font, Pdf, PdfPage};
    let mut pdf = Pdf::new();
    for t in [text, "page two"] {
        let mut page = PdfPage::new(612.0, 792.0);
        page.text(Font::Regular, 10.0, 72.0, 700.0, t);
        pdf.push(page);
    }
    pdf.to_bytes()
}

fn write(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
}

fn import(db: &Path, provider: &str, format: &str, dir: &Path) -> (Option<i32>, Value) {
    let out = run(corpus(db)
        .args(["import", "--provider", provider, "--format", format, "--print", "json"])
        .arg(dir));
    (out.status.code(), json(&out))
}

fn show(db: &Path, name: &str, provider: &str) -> Vec<Value> {
    let out = run(corpus(db).args(["show", name, "--provider", provider, "--format", "json"]));
    assert!(out.status.success(), "show {name} --provider {provider}");
    json(&out)["blocks"].as_array().unwrap().clone()
}

/// Each block as (kind, page, text).
fn kinds(blocks: &[Value]) -> Vec<(String, u64, String)> {
    blocks
        .iter()
        .map(|b| {
            (
                b["kind"].as_str().unwrap().to_string(),
                b["page"].as_u64().unwrap(),
                b["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn files(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s["file"].as_str().unwrap().to_string()).collect()
}

fn mineru_middle() -> Value {
    let line = |s: &str| json!({"bbox": [0, 0, 1, 1], "spans": [{"type": "text", "content": s}]});
    json!({
        "pdf_info": [
            {"page_idx": 0, "page_size": [612, 792], "para_blocks": [
                {"type": "title", "bbox": [122, 79, 490, 103], "lines": [line("Alpha Paper")]},
                {"type": "text", "bbox": [72, 166, 540, 238], "lines": [line("Some prose.")]}
            ], "discarded_blocks": [
                {"type": "discarded", "bbox": [300, 752, 312, 764], "lines": [line("1")]}
            ]},
            {"page_idx": 1, "page_size": [612, 792], "para_blocks": [
                {"type": "table", "bbox": [72, 79, 540, 238], "blocks": [
                    {"type": "table_body", "bbox": [72, 95, 540, 238], "lines": [{"spans": [
                        {"type": "table", "html": "<table><tr><td>a</td><td>b</td></tr></table>"}]}]}
                ]}
            ]}
        ],
        "_backend": "pipeline", "_version_name": "2.5.4"
    })
}

#[test]
fn pipeline_outputs_import_in_their_own_folder_layouts() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    std::fs::create_dir_all(d.path().join("pdfs")).unwrap();
    std::fs::write(d.path().join("pdfs/alpha.pdf"), two_page_pdf("Alpha")).unwrap();
    std::fs::write(d.path().join("pdfs/beta.pdf"), two_page_pdf("Beta")).unwrap();
    assert!(run(corpus(&db).arg("ingest").arg(d.path().join("pdfs"))).status.success());

    // MinerU: alpha has both files (the middle file is imported, the content list skipped);
    // beta has only a content list (its 0–1000 boxes need page sizes: empty boxes here).
    let mineru = d.path().join("mineru");
    write(&mineru.join("alpha/auto/alpha_middle.json"), &mineru_middle().to_string());
    write(
        &mineru.join("alpha/auto/alpha_content_list.json"),
        r#"[{"type": "text", "text": "Alpha Paper", "text_level": 1, "page_idx": 0}]"#,
    );
    write(&mineru.join("alpha/auto/alpha_model.json"), "[]");
    write(
        &mineru.join("beta/vlm/beta_content_list.json"),
        &json!([
            {"type": "text", "text": "Beta Paper", "text_level": 1, "bbox": [100, 100, 900, 130], "page_idx": 0},
            {"type": "equation", "text": "$$\nx^{2}\n$$", "text_format": "latex", "bbox": [300, 300, 700, 340], "page_idx": 1}
        ])
        .to_string(),
    );
    let (code, s) = import(&db, "mineru-cli-2.5", "mineru", &mineru);
    assert_eq!(code, Some(0), "{s}");
    assert_eq!((s["imported"].as_u64(), s["documents"].as_u64()), (Some(2), Some(2)), "{s}");
    assert!(files(&s["skipped"])[0].ends_with("alpha_content_list.json"), "{s}");
    let a = show(&db, "alpha", "mineru-cli-2.5");
    let want = [
        ("title", 0, "Alpha Paper"),
        ("paragraph", 0, "Some prose."),
        ("page_footer", 0, "1"),
        ("table", 1, "a b"),
    ];
    let want: Vec<(String, u64, String)> =
        want.iter().map(|(k, p, t)| (k.to_string(), *p, t.to_string())).collect();
    assert_eq!(kinds(&a), want);
    assert_eq!(a[1]["bbox"], json!({"x0": 72.0, "y0": 166.0, "x1": 540.0, "y1": 238.0}));
    let b = show(&db, "beta", "mineru-cli-2.5");
    assert_eq!(b[1]["latex"], "x^{2}");
    assert_eq!(b[1]["page"], 1);
    assert_eq!(b[0]["bbox"], json!({"x0": 0.0, "y0": 0.0, "x1": 0.0, "y1": 0.0}));

    // PaddleX: alpha's two page files become one output of the whole document.
    let paddle = d.path().join("paddle");
    let page = |n: u32, label: &str, text: &str| {
        json!({"input_path": "/in/alpha.pdf", "page_index": n, "page_count": 2,
               "width": 1224, "height": 1584, "model_settings": {},
               "parsing_res_list": [{"block_label": label, "block_content": text,
                                     "block_bbox": [144, 160, 1080, 220], "block_id": 0,
                                     "block_order": 1}]})
        .to_string()
    };
    write(&paddle.join("alpha_1_res.json"), &page(1, "text", "Second page."));
    write(&paddle.join("alpha_0_res.json"), &page(0, "doc_title", "Alpha Paper"));
    let (code, s) = import(&db, "ppstructure-3.2", "paddleocr-json", &paddle);
    assert_eq!(code, Some(0), "{s}");
    assert_eq!((s["files"].as_u64(), s["imported"].as_u64()), (Some(2), Some(1)), "{s}");
    let a = show(&db, "alpha", "ppstructure-3.2");
    assert_eq!(
        kinds(&a),
        [
            ("title".to_string(), 0, "Alpha Paper".to_string()),
            ("paragraph".to_string(), 1, "Second page.".to_string())
        ]
    );
    // Import knows no page sizes: PaddleX's pixels are kept.
    assert_eq!(a[0]["bbox"], json!({"x0": 144.0, "y0": 160.0, "x1": 1080.0, "y1": 220.0}));

    // Marker: <pdf>/<pdf>.json is imported, <pdf>_meta.json skipped as other JSON.
    let marker = d.path().join("marker");
    let blk = |id: &str, t: &str, html: &str| {
        json!({"id": id, "block_type": t, "html": html, "polygon": [[72, 79], [540, 79], [540, 103], [72, 103]],
               "bbox": [72, 79, 540, 103], "children": null, "section_hierarchy": {}, "images": {}})
    };
    let doc = json!({"block_type": "Document", "metadata": {}, "children": [
        {"id": "/page/0/Page/0", "block_type": "Page", "html": "", "bbox": [0, 0, 612, 792],
         "polygon": [[0, 0], [612, 0], [612, 792], [0, 792]], "children": [
            blk("/page/0/SectionHeader/0", "SectionHeader", "<h1>Beta Paper</h1>"),
            blk("/page/0/Text/1", "Text", "<p>Prose with <math>x^{2}</math>.</p>")]},
        {"id": "/page/1/Page/0", "block_type": "Page", "html": "", "bbox": [0, 0, 612, 792],
         "polygon": [[0, 0], [612, 0], [612, 792], [0, 792]], "children": [
            blk("/page/1/Table/0", "Table", "<table><tr><th>k</th><th>v</th></tr></table>")]}
    ]});
    write(&marker.join("beta/beta.json"), &doc.to_string());
    write(&marker.join("beta/beta_meta.json"), r#"{"table_of_contents": [], "page_stats": []}"#);
    let (code, s) = import(&db, "marker-1.10", "marker-json", &marker);
    assert_eq!(code, Some(0), "{s}");
    assert_eq!(s["imported"].as_u64(), Some(1), "{s}");
    assert!(files(&s["skipped"])[0].ends_with("beta_meta.json"), "{s}");
    let b = show(&db, "beta", "marker-1.10");
    assert_eq!(
        kinds(&b),
        [
            ("title".to_string(), 0, "Beta Paper".to_string()),
            ("paragraph".to_string(), 0, "Prose with x2 .".to_string()),
            ("table".to_string(), 1, "k v".to_string())
        ]
    );
    assert_eq!(b[0]["bbox"], json!({"x0": 72.0, "y0": 79.0, "x1": 540.0, "y1": 103.0}));

    // olmOCR: one results file, a document per line, each matched by its Source-File.
    let olmocr = d.path().join("workspace/results");
    let dolma = |src: &str, pages: [&str; 2]| {
        let text = format!("{}\n{}", pages[0], pages[1]);
        let first = pages[0].chars().count() + 1;
        json!({"id": "x", "text": text, "source": "olmocr", "added": "2025-06-02",
               "created": "2025-06-02",
               "metadata": {"Source-File": src, "olmocr-version": "0.3.0", "pdf-total-pages": 2,
                            "total-input-tokens": 1, "total-output-tokens": 1,
                            "total-fallback-pages": 0},
               "attributes": {"pdf_page_numbers": [[0, first, 1], [first, text.chars().count(), 2]]}})
        .to_string()
    };
    let lines = [
        dolma("s3://bucket/pdfs/alpha.pdf", ["# Alpha Paper\n\nÜber prose.", "Second page."]),
        dolma("/data/pdfs/beta.pdf", ["# Beta Paper", "More."]),
        dolma("/data/pdfs/gamma.pdf", ["# Gamma", "Gone."]),
    ];
    write(&olmocr.join("output_5e1f.jsonl"), &(lines.join("\n") + "\n"));
    let (code, s) = import(&db, "olmocr-pipeline-0.3", "olmocr-jsonl", &olmocr);
    assert_eq!(code, Some(3), "gamma.pdf is no document here: {s}");
    assert_eq!((s["files"].as_u64(), s["imported"].as_u64()), (Some(1), Some(2)), "{s}");
    assert!(files(&s["unmatched"])[0].ends_with("output_5e1f.jsonl:3"), "{s}");
    let a = show(&db, "alpha", "olmocr-pipeline-0.3");
    assert_eq!(
        kinds(&a),
        [
            ("title".to_string(), 0, "Alpha Paper".to_string()),
            ("paragraph".to_string(), 0, "Über prose.".to_string()),
            ("paragraph".to_string(), 1, "Second page.".to_string())
        ]
    );
    // Importing again changes nothing.
    let (_, s) = import(&db, "olmocr-pipeline-0.3", "olmocr-jsonl", &olmocr);
    assert_eq!((s["imported"].as_u64(), s["unchanged"].as_u64()), (Some(0), Some(2)), "{s}");
}
