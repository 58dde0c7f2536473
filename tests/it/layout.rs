//! The `layout` provider on real models (installed by `scripts/setup.sh`, which
//! `scripts/test.sh` runs): block kinds and table cells on the sample papers, OCR of an
//! image-only page, refusal of a corrupted model, and the CLI's `--device` and `models`.

use corpus::doc::{BlockKind, Doc};
use corpus::providers::layout::{self, runtime::Device, LayoutEngine};
use corpus::providers::pdfium as pdf;
use corpus::providers::raster::Bgr;
use corpus::providers::{Engine, PageSelection};
use corpus::sample::papers;

use crate::util::{corpus, json, run, sample_dir};

fn engine() -> LayoutEngine {
    LayoutEngine::new(Device::Cpu)
        .unwrap_or_else(|e| panic!("the layout models must be installed (scripts/setup.sh): {e}"))
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn layout_finds_title_headings_table_and_caption_on_the_sample_papers() {
    let mut e = engine();
    for paper in papers() {
        let doc = e.run(&paper.pdf, &PageSelection::All).unwrap();
        let want = &paper.doc;
        let of = |d: &Doc, k: BlockKind| -> Vec<String> {
            d.blocks.iter().filter(|b| b.kind == k).map(|b| norm(&b.text)).collect()
        };
        assert_eq!(of(&doc, BlockKind::Title), of(want, BlockKind::Title), "{}: title", paper.name);
        // Every heading of the source is found as a heading (the order across columns is the
        // reading-order metric's business, not this test's).
        let got = of(&doc, BlockKind::Heading);
        for h in of(want, BlockKind::Heading) {
            assert!(got.contains(&h), "{}: heading {h:?} not among {got:?}", paper.name);
        }
        let caps = of(&doc, BlockKind::Caption);
        assert!(
            caps.iter().any(|c| c.starts_with("Table 1:")),
            "{}: captions {caps:?}",
            paper.name
        );
        // The table's cells equal the source table's, cell for cell.
        let table = |d: &Doc| {
            let t = d.blocks.iter().find_map(|b| b.table.clone()).expect("a table");
            let mut cells: Vec<(u32, u32, String)> =
                t.cells.iter().map(|c| (c.row, c.col, norm(&c.text))).collect();
            cells.sort();
            (t.rows, t.cols, cells)
        };
        assert_eq!(table(&doc), table(want), "{}: table", paper.name);
        assert!(doc.blocks.iter().any(|b| b.kind == BlockKind::PageHeader), "{}", paper.name);
    }
}

/// A one-page PDF whose only content is `img` (uncompressed RGB) filling the page.
fn image_pdf(img: &Bgr, w_pt: f32, h_pt: f32) -> Vec<u8> {
    let rgb: Vec<u8> = img.data.chunks_exact(3).flat_map(|p| [p[2], p[1], p[0]]).collect();
    let content = format!("q {w_pt} 0 0 {h_pt} 0 0 cm /Im0 Do Q");
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    let mut obj = |out: &mut Vec<u8>, body: &[u8]| {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", offsets.len()).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    };
    obj(&mut out, b"<< /Type /Catalog /Pages 2 0 R >>");
    obj(&mut out, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    obj(
        &mut out,
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w_pt} {h_pt}] \
             /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>"
        )
        .as_bytes(),
    );
    obj(
        &mut out,
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()).as_bytes(),
    );
    let mut img_obj = format!(
        "<< /Type /XObject /Subtype /Image /Width {} /Height {} /ColorSpace /DeviceRGB \
         /BitsPerComponent 8 /Length {} >>\nstream\n",
        img.width,
        img.height,
        rgb.len()
    )
    .into_bytes();
    img_obj.extend_from_slice(&rgb);
    img_obj.extend_from_slice(b"\nendstream");
    obj(&mut out, &img_obj);
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes(),
    );
    for o in &offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            offsets.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[test]
fn an_image_only_page_is_read_by_ocr() {
    let paper = papers().into_iter().next().unwrap();
    let pdfium = pdf::bind().unwrap();
    let img = {
        let doc = pdf::open(&pdfium, &paper.pdf).unwrap();
        let page = doc.pages().get(0).unwrap();
        corpus::providers::raster::render(&page, 2.0).unwrap()
    };
    let scan = image_pdf(&img, 612.0, 792.0);
    // No text layer: pdfium alone finds nothing.
    let text_layer = pdf::parse(&pdfium, &scan).unwrap();
    assert!(text_layer.blocks.iter().all(|b| b.text.trim().is_empty()));
    drop(pdfium);

    let doc = engine().run(&scan, &PageSelection::All).unwrap();
    // PP-OCR drops some spaces between words of this monospace font: compare without them.
    let got: String =
        doc.to_text().chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
    assert!(got.contains("robustsequencetaggingfornoisyscannedtext"), "{got}");
    // Most words of the page's source text come back.
    let want: Vec<String> = paper
        .doc
        .blocks
        .iter()
        .filter(|b| b.page == 0)
        .flat_map(|b| b.text.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>())
        .collect();
    let found = want.iter().filter(|w| got.contains(w.as_str())).count();
    let recall = found as f64 / want.len() as f64;
    assert!(recall > 0.8, "word recall {recall:.3} ({found} of {})", want.len());
    assert!(doc.blocks.iter().any(|b| b.kind == BlockKind::Heading));
}

#[test]
fn a_corrupted_model_file_is_refused_by_its_digest() {
    let d = tempfile::tempdir().unwrap();
    let inst = corpus::providers::manifest::Installed::find(layout::LAYOUT_MANIFEST).unwrap();
    let m = &inst.manifest.source;
    let dir = d.path().join(format!("{}-{}", m.package, m.package_version));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = std::fs::read(&inst.file).expect("layout model installed (scripts/setup.sh)");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    let bad = dir.join(inst.file.file_name().unwrap());
    std::fs::write(&bad, &bytes).unwrap();

    let db = d.path().join("c.db");
    let out = run(corpus(&db).env("CORPUS_MODELS", d.path()).args(["models", "check"]));
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("blake3") && stdout.contains("corrupted"), "{stdout}");

    assert!(run(corpus(&db).args(["ingest", "--dataset", "s"]).arg(sample_dir())).status.success());
    let out = run(corpus(&db).env("CORPUS_MODELS", d.path()).args(["ocr", "--provider", "layout"]));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("layout_cdla") && err.contains(&bad.display().to_string()), "{err}");
    assert!(err.contains("corpus setup"), "{err}");
    // Nothing was run or stored.
    let n = run(corpus(&db).args(["sql", "select count(*) as n from outputs", "--format", "json"]));
    assert_eq!(json(&n), serde_json::json!([{"n": 0}]));
}

#[test]
fn ocr_with_layout_caches_records_the_device_and_refuses_cuda_without_it() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    assert!(run(corpus(&db).args(["ingest", "--dataset", "s"]).arg(sample_dir())).status.success());
    let first = json(&run(corpus(&db).args([
        "ocr",
        "--provider",
        "layout",
        "-j",
        "2",
        "--format",
        "json",
    ])));
    assert_eq!((first["ran"].as_u64(), first["ok"].as_u64()), (Some(3), Some(3)), "{first}");
    let again = json(&run(corpus(&db).args(["ocr", "--provider", "layout", "--format", "json"])));
    assert_eq!((again["cached"].as_u64(), again["ran"].as_u64()), (Some(3), Some(0)));
    let dev = run(corpus(&db).args([
        "sql",
        "select device, count(*) as n from outputs where provider = 'layout' group by device",
        "--format",
        "json",
    ]));
    assert_eq!(json(&dev), serde_json::json!([{"device": "cpu", "n": 3}]));

    // The CPU onnxruntime has no CUDA provider: a clear error, no silent CPU fallback.
    let cuda = run(corpus(&db).args([
        "ocr",
        "--provider",
        "layout",
        "--device",
        "cuda",
        "--retry-errors",
    ]));
    assert!(!cuda.status.success());
    let err = String::from_utf8_lossy(&cuda.stderr);
    assert!(err.contains("CUDA") && err.contains("--device cpu"), "{err}");
    let bad = run(corpus(&db).args(["ocr", "--provider", "pdfium", "--device", "cuda"]));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("model-based providers"));

    // `show` prints the layout provider's blocks with their kinds.
    let shown = run(corpus(&db).args(["show", "101", "--provider", "layout"]));
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("# Robust Sequence Tagging"), "{text}");
}

#[test]
fn models_list_shows_every_manifest() {
    let d = tempfile::tempdir().unwrap();
    let out = run(corpus(&d.path().join("c.db")).args(["models", "list", "--format", "json"]));
    assert!(out.status.success());
    let v = json(&out);
    let names: Vec<&str> =
        v.as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    for n in ["libonnxruntime", "layout_cdla", "slanet_plus", "ppocrv4_det", "ppocrv4_rec"] {
        assert!(names.contains(&n), "{names:?}");
    }
    assert!(v.as_array().unwrap().iter().all(|m| m["status"] == "present"), "{v}");
}
