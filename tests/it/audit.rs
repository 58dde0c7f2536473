//! `corpus audit` end to end on self-made documents: a planted truth error ranks first, a
//! correct truth gives no finding, and the audit writes nothing to the store.

use std::path::Path;

use corpus::sample::pdf::{Font, Pdf, PdfPage};

use crate::util::{corpus, json, run};

const ROWS: [[&str; 3]; 4] = [
    ["Model", "Acc", "F1"],
    ["base", "1.12", "0.50"],
    ["large", "2.80", "0.75"],
    ["huge", "3.10", "0.90"],
];

fn table_pdf(root: &Path, name: &str) {
    let mut page = PdfPage::new(612.0, 792.0);
    // The name on the page: the store keys documents by content.
    page.text(Font::Regular, 10.0, 72.0, 720.0, &format!("Results of the three models ({name})."));
    for (r, row) in ROWS.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            page.text(Font::Regular, 10.0, 72.0 + 90.0 * c as f32, 690.0 - 14.0 * r as f32, cell);
        }
    }
    let mut pdf = Pdf::new();
    pdf.push(page);
    std::fs::write(root.join(format!("pdfs/{name}.pdf")), pdf.to_bytes()).unwrap();
}

fn latex(rows: &[[&str; 3]]) -> String {
    let body: Vec<String> = rows.iter().map(|r| format!("{} \\\\", r.join(" & "))).collect();
    format!("\\begin{{tabular}}{{lcc}}\n{}\n\\end{{tabular}}", body.join("\n"))
}

fn markdown(rows: &[[&str; 3]]) -> String {
    let mut s =
        format!("Results of the three models.\n\n| {} |\n|---|---|---|\n", rows[0].join(" | "));
    for r in &rows[1..] {
        s.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    s
}

/// Row counts of every table the audit could touch, and the store file's bytes.
fn store_state(db: &Path) -> (String, Vec<u8>) {
    let q = "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM truths), \
             (SELECT count(*) FROM outputs), (SELECT count(*) FROM metrics), \
             (SELECT count(*) FROM runs), (SELECT count(*) FROM blobs)";
    let out = run(corpus(db).args(["sql", q, "--format", "json"]));
    assert!(out.status.success());
    (String::from_utf8_lossy(&out.stdout).into_owned(), std::fs::read(db).unwrap())
}

#[test]
fn a_wrong_table_cell_ranks_first_and_a_correct_truth_has_no_finding() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("tables");
    std::fs::create_dir_all(root.join("pdfs")).unwrap();
    std::fs::create_dir_all(root.join("ground_truth")).unwrap();
    let preds = d.path().join("preds");
    std::fs::create_dir_all(&preds).unwrap();
    for name in ["good", "bad"] {
        table_pdf(&root, name);
        std::fs::write(preds.join(format!("{name}.md")), markdown(&ROWS)).unwrap();
    }
    let mut wrong = ROWS;
    wrong[2][1] = "2.30"; // the PDF says 2.80
    for (name, rows) in [("good", ROWS), ("bad", wrong)] {
        let truth = serde_json::json!([{"type": "table", "data": latex(&rows)}]);
        std::fs::write(root.join(format!("ground_truth/{name}.json")), truth.to_string()).unwrap();
    }
    let db = d.path().join("c.db");
    assert!(run(corpus(&db)
        .args(["ingest", "--truth", "latex-tables", "-q"])
        .arg(root.join("pdfs")))
    .status
    .success());
    for p in ["alpha", "beta"] {
        let out = run(corpus(&db)
            .args(["import", "--provider", p, "--format", "markdown", "-q"])
            .arg(&preds));
        assert!(out.status.success());
    }
    assert!(run(corpus(&db).args(["ocr", "--provider", "pdfium", "-q"])).status.success());
    // Too few providers: a usage error that says so.
    let out = run(corpus(&db).args(["audit", "--suite", "table", "--provider", "alpha"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least two providers"));

    let before = store_state(&db);
    let out =
        run(corpus(&db).args(["audit", "--suite", "table", "--format", "json", "--top", "0"]));
    assert!(out.status.success());
    let r = json(&out);
    let f = r["findings"].as_array().unwrap();
    assert!(!f.is_empty(), "{r}");
    assert_eq!(f[0]["document"], "bad", "{r}");
    assert_eq!(f[0]["element"], "table 0");
    assert_eq!(f[0]["at"], "r2c1");
    assert_eq!(f[0]["truth"], "… 0 50 large 2 [30] 0 75 huge 3 …");
    assert_eq!(f[0]["consensus"], "… 0 50 large 2 [80] 0 75 huge 3 …");
    let who: Vec<&str> =
        f[0]["providers"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert!(who.contains(&"alpha") && who.contains(&"beta"), "{who:?}");
    // Two identical imported readings: support ≥ 2/3, coherence 1 between them.
    assert!(f[0]["score"].as_f64().unwrap() >= 0.6, "{r}");
    // The correct truth: nothing the providers contradict together.
    assert!(f.iter().all(|x| x["document"] != "good"), "{r}");
    assert_eq!(store_state(&db), before, "the audit wrote to the store");

    // Table output names the cell; a suite it does not cover says so (exit 2).
    let out = run(corpus(&db).args(["audit", "--suite", "table"]));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("table 0 r2c1") && text.contains("[30]"), "{text}");
    let out = run(corpus(&db).args(["audit", "--suite", "paper"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not cover the paper suite"));
}

fn white_png(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().unwrap();
        wr.write_image_data(&vec![255u8; (w * h) as usize]).unwrap();
    }
    out
}

#[test]
fn omnidoc_a_misspelt_truth_word_ranks_first_with_its_page_crop() {
    let d = tempfile::tempdir().unwrap();
    let images = d.path().join("images");
    let preds = d.path().join("preds");
    std::fs::create_dir_all(&images).unwrap();
    std::fs::create_dir_all(&preds).unwrap();
    let one = "The quick brown fox jumps over the lazy dog near the river bank";
    let two = "A second paragraph that every reader takes as the truth has it";
    let block = |order: u32, text: &str, y: f64| {
        serde_json::json!({"category_type": "text_block", "order": order, "anno_id": order,
            "poly": [20.0, y, 380.0, y, 380.0, y + 40.0, 20.0, y + 40.0], "text": text,
            "ignore": false, "attribute": {"text_language": "text_english"}})
    };
    let mut pages = Vec::new();
    for (name, first) in [("p1", one.replace("jumps", "jumsp")), ("p2", one.to_string())] {
        std::fs::write(images.join(format!("{name}.png")), white_png(400, 200)).unwrap();
        // Each page image differs (the store keys documents by content): p2 is taller.
        if name == "p2" {
            std::fs::write(images.join("p2.png"), white_png(400, 201)).unwrap();
        }
        pages.push(serde_json::json!({
            "layout_dets": [block(1, &first, 20.0), block(2, two, 100.0)],
            "page_info": {"image_path": format!("{name}.png"), "width": 400, "height": 200,
                "page_no": 0, "page_attribute": {"data_source": "self-made"}},
            "extra": {"relation": []}
        }));
        std::fs::write(preds.join(format!("{name}.md")), format!("{one}\n\n{two}\n")).unwrap();
    }
    let truth = d.path().join("truth.json");
    std::fs::write(&truth, serde_json::Value::Array(pages).to_string()).unwrap();
    let db = d.path().join("c.db");
    let out = run(corpus(&db)
        .args(["ingest", "--truth", "omnidocbench", "--dataset", "own", "-q"])
        .arg(&truth)
        .arg("--images")
        .arg(&images));
    assert!(out.status.success());
    for p in ["alpha", "beta", "gamma"] {
        let out = run(corpus(&db)
            .args(["import", "--provider", p, "--format", "markdown", "-q"])
            .arg(&preds));
        assert!(out.status.success());
    }
    let before = store_state(&db);
    let out = run(corpus(&db).args([
        "audit",
        "--suite",
        "omnidoc",
        "--dataset",
        "own",
        "--format",
        "json",
    ]));
    assert!(out.status.success());
    let r = json(&out);
    let f = r["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{r}");
    assert_eq!(f[0]["document"], "p1");
    assert_eq!(f[0]["element"], "text_block order 1");
    assert_eq!(f[0]["truth"], "The quick brown fox [jumsp] over the lazy dog …");
    assert_eq!(f[0]["consensus"], "The quick brown fox [jumps] over the lazy dog …");
    assert_eq!(f[0]["score"].as_f64(), Some(1.0));
    assert_eq!(f[0]["bbox"], serde_json::json!([20.0, 20.0, 380.0, 60.0]));
    // Per page two text blocks and the reading order, each read by all three providers.
    assert_eq!(r["elements"], 6, "{r}");
    let site = d.path().join("site");
    let out =
        run(corpus(&db).args(["audit", "--suite", "omnidoc", "--format", "html", "-o"]).arg(&site));
    assert!(out.status.success());
    let html = std::fs::read_to_string(site.join("audit.html")).unwrap();
    assert!(html.contains("class=crop") && html.contains("[jumsp]"), "{html}");
    let pages: Vec<_> = std::fs::read_dir(site.join("pages")).unwrap().collect();
    assert_eq!(pages.len(), 1);
    assert_eq!(store_state(&db), before, "the audit wrote to the store");
}
