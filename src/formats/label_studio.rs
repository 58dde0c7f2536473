//! Label Studio (HumanSignal's annotation tool): the labelling configuration corpus gives a
//! project, the tasks `corpus truth draft --label-studio` writes, and the JSON export `corpus
//! ingest EXPORT.json --truth label-studio` reads (rules: `docs/label-studio.md`).
//!
//! A task is one page: `data.image` (the page image's URL), `data.corpus` (the stored page:
//! document hash, page, dpi; the draft's provider and version; a digest of the pre-annotation)
//! and one prediction, the draft's blocks. Each block is one region: a `rectanglelabels` result
//! from `category` (its OmniDocBench category), a `textarea` result from `transcription` with the
//! same region id (its text; a table's HTML, a formula's LaTeX) and a `number` result from
//! `order` (its reading-order index). Blocks the draft could not place on the page are lines of
//! the task-level `unplaced` text area. Boxes are percentages of the image, as Label Studio keeps
//! them (`x`, `y`, `width`, `height` of `original_width` × `original_height` pixels).
//!
//! Reading an export: a task's latest submitted annotation (by `updated_at`, then `id`) that is
//! not cancelled is its truth; predictions are never read as truth; a task whose annotations are
//! all cancelled is skipped (Label Studio's "skip"), one without any is unannotated. The
//! annotation becomes one OmniDocBench page object ([`super::omnidocbench`]) with corpus's
//! `corpus_source`, boxes in the image's pixels; it carries the draft mark when its regions are
//! the prediction's unchanged. Left alone: relations, `ground_truth` flags, drafts (unsubmitted
//! work), rotation (a rotated region is an error).

use serde_json::{json, Map, Value};

use super::omnidocbench::{dets_digest, DraftMark, Source};
use super::{Format, FormatError};

/// The control that labels each region with its category.
pub const CATEGORY: &str = "category";
/// The per-region text area: a region's text, a table's HTML, a formula's LaTeX.
pub const TRANSCRIPTION: &str = "transcription";
/// The per-region number: a region's reading-order index.
pub const ORDER: &str = "order";
/// The task-level text area of blocks that have no region (one line each).
pub const UNPLACED: &str = "unplaced";
/// The image object the controls point at.
pub const IMAGE: &str = "image";

/// The OmniDocBench categories a region may take, in the labelling interface's order.
pub const CATEGORIES: [&str; 17] = [
    "title",
    "text_block",
    "figure",
    "figure_caption",
    "figure_footnote",
    "table",
    "table_caption",
    "table_footnote",
    "equation_isolated",
    "equation_caption",
    "header",
    "footer",
    "page_number",
    "page_footnote",
    "reference",
    "code_txt",
    "abandon",
];

/// Regions may reach this many percent past the image's edge (rounding of a box drawn to the
/// border) before they count as outside it.
const EDGE_SLACK: f64 = 0.01;

fn err(msg: impl Into<String>) -> FormatError {
    FormatError::new(Format::LabelStudio, msg.into())
}

/// The labelling configuration (Label Studio's XML) of a corpus project.
pub fn label_config() -> String {
    let labels: String =
        CATEGORIES.iter().map(|c| format!("    <Label value=\"{c}\"/>\n")).collect();
    format!(
        "<View>\n  <Image name=\"{IMAGE}\" value=\"$image\" zoom=\"true\"/>\n  \
         <RectangleLabels name=\"{CATEGORY}\" toName=\"{IMAGE}\">\n{labels}  </RectangleLabels>\n  \
         <TextArea name=\"{TRANSCRIPTION}\" toName=\"{IMAGE}\" perRegion=\"true\" editable=\"true\" \
         required=\"false\" rows=\"4\" displayMode=\"region-list\" maxSubmissions=\"1\" \
         placeholder=\"text; HTML for a table, LaTeX for a formula\"/>\n  \
         <Number name=\"{ORDER}\" toName=\"{IMAGE}\" perRegion=\"true\" min=\"0\"/>\n  \
         <Header value=\"Blocks without a region (one per line)\"/>\n  \
         <TextArea name=\"{UNPLACED}\" toName=\"{IMAGE}\" editable=\"true\" rows=\"4\"/>\n\
         </View>\n"
    )
}

/// A block's text as the transcription holds it: HTML for a table, LaTeX for a formula.
fn det_text(det: &Value) -> String {
    let field = match det["category_type"].as_str() {
        Some("table") => "html",
        Some("equation_isolated") => "latex",
        _ => "text",
    };
    det[field].as_str().unwrap_or("").to_string()
}

/// Writes one draft page (an OmniDocBench page object with `corpus_source` and
/// `corpus_draft`) as a Label Studio task whose image is at `image_url`.
pub fn task(page: &Value, image_url: &str, dataset: &str) -> Result<Value, FormatError> {
    let info = &page["page_info"];
    let (Some(w), Some(h)) = (info["width"].as_f64(), info["height"].as_f64()) else {
        return Err(err("the draft page has no image width and height").at("page_info"));
    };
    let source: Source = serde_json::from_value(info["corpus_source"].clone())
        .map_err(|e| err(format!("no corpus_source: {e}")).at("page_info"))?;
    let mark: DraftMark = serde_json::from_value(info["corpus_draft"].clone())
        .map_err(|e| err(format!("no corpus_draft: {e}")).at("page_info"))?;
    let mut result = Vec::new();
    let mut unplaced = Vec::new();
    let dets = page["layout_dets"].as_array().cloned().unwrap_or_default();
    for (i, det) in dets.iter().enumerate() {
        let poly: Vec<f64> = det["poly"]
            .as_array()
            .map(|p| p.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        if poly.len() < 8 {
            unplaced.push(det_text(det).replace('\n', " "));
            continue;
        }
        let xs = poly.iter().step_by(2);
        let ys = poly.iter().skip(1).step_by(2);
        let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
        let id = format!("b{i}");
        let geo = |extra: (&str, Value)| {
            let mut v = json!({"x": x0 * 100.0 / w, "y": y0 * 100.0 / h,
                "width": (x1 - x0) * 100.0 / w, "height": (y1 - y0) * 100.0 / h, "rotation": 0});
            v[extra.0] = extra.1;
            v
        };
        let item = |from: &str, kind: &str, value: Value| {
            json!({"id": id, "from_name": from, "to_name": IMAGE, "type": kind,
                "original_width": w, "original_height": h, "image_rotation": 0, "value": value})
        };
        let category = det["category_type"].as_str().unwrap_or("text_block");
        result.push(item(CATEGORY, "rectanglelabels", geo(("rectanglelabels", json!([category])))));
        result.push(item(TRANSCRIPTION, "textarea", geo(("text", json!([det_text(det)])))));
        if let Some(o) = det["order"].as_f64() {
            result.push(item(ORDER, "number", geo(("number", json!(o)))));
        }
    }
    if !unplaced.is_empty() {
        result.push(json!({"id": "unplaced", "from_name": UNPLACED, "to_name": IMAGE,
            "type": "textarea", "value": {"text": unplaced}}));
    }
    let digest = result_digest(&result);
    Ok(json!({
        "data": {
            "image": image_url,
            "corpus": {"dataset": dataset, "document": source.document, "page": source.page,
                "dpi": source.dpi, "image_path": info["image_path"], "width": w, "height": h,
                "provider": mark.provider, "version": mark.version, "note": mark.note,
                "prediction_digest": digest},
        },
        "predictions": [{"model_version": format!("{}@{}", mark.provider, mark.version),
            "result": result}],
    }))
}

/// A digest of a result list that Label Studio's round trip keeps: each item's region id,
/// control, box (to 1e-3 %), labels, text and number, in (id, control) order.
fn result_digest(result: &[Value]) -> String {
    let round = |v: &Value| v.as_f64().map(|x| (x * 1000.0).round() as i64);
    let mut items: Vec<Value> = result
        .iter()
        .map(|r| {
            let v = &r["value"];
            json!([
                r["id"],
                r["from_name"],
                round(&v["x"]),
                round(&v["y"]),
                round(&v["width"]),
                round(&v["height"]),
                v["rectanglelabels"],
                v["text"],
                v["number"]
            ])
        })
        .collect();
    items.sort_by_key(|v| (v[1].to_string(), v[0].to_string()));
    dets_digest(&Value::Array(items))
}

/// Reads an export: the JSON list of tasks Label Studio's "JSON" export writes.
pub fn read_export(bytes: &[u8]) -> Result<Vec<Value>, FormatError> {
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| FormatError::json(Format::LabelStudio, e))?;
    match v {
        Value::Array(tasks) => Ok(tasks),
        _ => Err(FormatError::shape(Format::LabelStudio, "a JSON list of tasks", "$")),
    }
}

/// What a task of an export holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Its latest submitted annotation, as an OmniDocBench page object.
    Annotated(Value),
    /// Every annotation was cancelled (skipped).
    Skipped,
    /// No annotation was submitted.
    Unannotated,
}

/// The stored page a task of a corpus project is (`data.corpus`); an error for a task of
/// another labelling configuration.
pub fn task_source(task: &Value) -> Result<Source, FormatError> {
    let c = &task["data"]["corpus"];
    if !c.is_object() {
        return Err(err(
            "not a task of a corpus labelling configuration (no data.corpus: export a project \
             made from `corpus truth draft --label-studio`)",
        )
        .at("data"));
    }
    serde_json::from_value(c.clone())
        .map_err(|e| err(format!("data.corpus: {e}")).at("data.corpus"))
}

/// The task's id, for messages (`task 12`).
pub fn task_name(task: &Value) -> String {
    match &task["id"] {
        Value::Null => "task (no id)".into(),
        id => format!("task {id}"),
    }
}

/// Reads one exported task: its latest submitted annotation into an OmniDocBench page.
pub fn read_task(task: &Value) -> Result<Outcome, FormatError> {
    let source = task_source(task)?;
    let corpus = &task["data"]["corpus"];
    let anns = task["annotations"].as_array().cloned().unwrap_or_default();
    if anns.is_empty() {
        return Ok(Outcome::Unannotated);
    }
    let latest = anns
        .iter()
        .filter(|a| a["was_cancelled"] != Value::Bool(true))
        .max_by_key(|a| (a["updated_at"].as_str().unwrap_or("").to_string(), a["id"].as_i64()));
    let Some(ann) = latest else { return Ok(Outcome::Skipped) };
    let result = ann["result"].as_array().cloned().unwrap_or_default();
    let (w, h) =
        (corpus["width"].as_f64().unwrap_or(0.0), corpus["height"].as_f64().unwrap_or(0.0));
    let dets = regions(&result, w, h)?;
    let mut info = Map::new();
    info.insert("image_path".into(), corpus["image_path"].clone());
    info.insert("width".into(), json!(w));
    info.insert("height".into(), json!(h));
    info.insert("page_no".into(), json!(source.page));
    info.insert("corpus_source".into(), serde_json::to_value(&source).unwrap_or_default());
    let dets = Value::Array(dets);
    if corpus["prediction_digest"].as_str() == Some(&result_digest(&result)) {
        let mark = DraftMark {
            provider: corpus["provider"].as_str().unwrap_or("").into(),
            version: corpus["version"].as_str().unwrap_or("").into(),
            note: corpus["note"].as_str().unwrap_or("").into(),
            digest: dets_digest(&dets),
        };
        info.insert("corpus_draft".into(), serde_json::to_value(mark).unwrap_or_default());
    }
    Ok(Outcome::Annotated(json!({"layout_dets": dets, "page_info": info})))
}

/// One region as the results give it.
#[derive(Default)]
struct Region {
    bbox: Option<[f64; 4]>,
    category: Option<String>,
    text: Option<String>,
    order: Option<f64>,
}

/// The regions of an annotation's results as OmniDocBench blocks, boxes in pixels of a `w` ×
/// `h` image; unplaced lines after them.
fn regions(result: &[Value], w: f64, h: f64) -> Result<Vec<Value>, FormatError> {
    let mut by_id: Vec<(String, Region)> = Vec::new();
    let mut unplaced: Vec<String> = Vec::new();
    for (k, r) in result.iter().enumerate() {
        let at = format!("result[{k}]");
        let from = r["from_name"].as_str().unwrap_or("");
        let v = &r["value"];
        let text = || -> String {
            v["text"]
                .as_array()
                .map(|t| t.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n"))
                .unwrap_or_default()
        };
        if from == UNPLACED {
            unplaced.extend(text().lines().filter(|l| !l.trim().is_empty()).map(str::to_string));
            continue;
        }
        if ![CATEGORY, TRANSCRIPTION, ORDER].contains(&from) {
            return Err(err(format!(
                "control {from:?} is not one of corpus's labelling configuration ({CATEGORY}, \
                 {TRANSCRIPTION}, {ORDER}, {UNPLACED})"
            ))
            .at(at));
        }
        let id = r["id"].as_str().map(str::to_string).unwrap_or_else(|| r["id"].to_string());
        let slot = match by_id.iter().position(|(i, _)| *i == id) {
            Some(p) => p,
            None => {
                by_id.push((id.clone(), Region::default()));
                by_id.len() - 1
            }
        };
        let reg = &mut by_id[slot].1;
        if let (Some(x), Some(y), Some(bw), Some(bh)) =
            (v["x"].as_f64(), v["y"].as_f64(), v["width"].as_f64(), v["height"].as_f64())
        {
            if v["rotation"].as_f64().unwrap_or(0.0).abs() > 1e-9 {
                return Err(
                    err(format!("region {id} is rotated (corpus reads upright boxes)")).at(at)
                );
            }
            let outside = x < -EDGE_SLACK
                || y < -EDGE_SLACK
                || x + bw > 100.0 + EDGE_SLACK
                || y + bh > 100.0 + EDGE_SLACK
                || bw < 0.0
                || bh < 0.0;
            if outside {
                return Err(err(format!(
                    "region {id} lies outside the image (x {x:.2} %, y {y:.2} %, width {bw:.2} %, \
                     height {bh:.2} %)"
                ))
                .at(at));
            }
            let c = |p: f64, side: f64| p.clamp(0.0, 100.0) * side / 100.0;
            reg.bbox = Some([c(x, w), c(y, h), c(x + bw, w), c(y + bh, h)]);
        }
        match from {
            CATEGORY => {
                let label =
                    v["rectanglelabels"].as_array().and_then(|l| l.first()).and_then(Value::as_str);
                match label {
                    Some(l) if CATEGORIES.contains(&l) => reg.category = Some(l.to_string()),
                    other => {
                        return Err(err(format!(
                            "region {id} has label {other:?}, not a category of corpus's \
                             labelling configuration"
                        ))
                        .at(at))
                    }
                }
            }
            TRANSCRIPTION => reg.text = Some(text()),
            _ => reg.order = v["number"].as_f64(),
        }
    }
    let mut dets = Vec::new();
    let mut next_order = by_id.iter().filter_map(|(_, r)| r.order).fold(-1.0f64, f64::max) + 1.0;
    for (k, (id, reg)) in by_id.into_iter().enumerate() {
        let Some(category) = reg.category else {
            return Err(err(format!("region {id} has a text or an order but no category")));
        };
        let [x0, y0, x1, y1] = reg.bbox.unwrap_or_default();
        let mut det = json!({"category_type": category, "poly": [x0, y0, x1, y0, x1, y1, x0, y1],
            "ignore": false, "order": reg.order, "anno_id": k});
        let text = reg.text.unwrap_or_default();
        match category.as_str() {
            "table" => det["html"] = json!(text),
            "equation_isolated" => det["latex"] = json!(text),
            _ => det["text"] = json!(text),
        }
        if reg.order.is_none() && category != "figure" && category != "abandon" {
            det["order"] = json!(next_order);
            next_order += 1.0;
        }
        dets.push(det);
    }
    let base = dets.len();
    for (k, line) in unplaced.into_iter().enumerate() {
        dets.push(json!({"category_type": "text_block", "poly": [], "ignore": false,
            "order": next_order + k as f64, "anno_id": base + k, "text": line,
            "corpus_placement": "none"}));
    }
    Ok(dets)
}

/// Reads one stored task (the truth blob of a `label-studio` truth) as its page.
pub fn read_page(bytes: &[u8]) -> Result<super::omnidocbench::Page, FormatError> {
    let task: Value =
        serde_json::from_slice(bytes).map_err(|e| FormatError::json(Format::LabelStudio, e))?;
    match read_task(&task)? {
        Outcome::Annotated(page) => {
            serde_json::from_value(page).map_err(|e| err(format!("{}: {e}", task_name(&task))))
        }
        Outcome::Skipped => Err(err(format!("{} was skipped", task_name(&task)))),
        Outcome::Unannotated => {
            Err(err(format!("{} has no submitted annotation", task_name(&task))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft() -> Value {
        let dets = json!([
            {"category_type": "title", "poly": [10, 20, 110, 20, 110, 40, 10, 40], "order": 0,
             "text": "Intro", "anno_id": 0},
            {"category_type": "table", "poly": [0, 50, 200, 50, 200, 100, 0, 100], "order": 1,
             "text": "a", "html": "<table><tr><td>a</td></tr></table>", "anno_id": 1},
            {"category_type": "text_block", "poly": [], "order": 2, "text": "lost line",
             "anno_id": 2, "corpus_placement": "none"},
        ]);
        let digest = dets_digest(&dets);
        json!({"layout_dets": dets, "page_info": {"image_path": "h_p1.png", "width": 200,
            "height": 400, "corpus_source": {"document": "h", "page": 1, "dpi": 144.0},
            "corpus_draft": {"provider": "layout", "version": "3",
                "note": "drafted from layout@3, not reviewed", "digest": digest}}})
    }

    /// The task as Label Studio exports it after an annotator submitted `result`.
    fn exported(mut task: Value, result: Value, cancelled: bool) -> Value {
        task["id"] = json!(7);
        task["annotations"] = json!([{"id": 1, "result": result, "was_cancelled": cancelled,
            "updated_at": "2026-01-01T00:00:00Z"}]);
        task
    }

    #[test]
    fn a_draft_becomes_a_task_and_an_unchanged_annotation_reads_back_as_the_draft() {
        let t = task(&draft(), "/data/local-files/?d=images/h_p1.png", "mine").unwrap();
        let pred = t["predictions"][0]["result"].clone();
        // Title: x 10/200 = 5 %, y 20/400 = 5 %, 50 % wide, 5 % high.
        assert_eq!(pred[0]["value"]["x"], json!(5.0));
        assert_eq!(pred[0]["value"]["width"], json!(50.0));
        assert_eq!(pred[0]["value"]["rectanglelabels"], json!(["title"]));
        assert_eq!(pred[4]["value"]["text"], json!(["<table><tr><td>a</td></tr></table>"]));
        assert_eq!(pred.as_array().unwrap().last().unwrap()["value"]["text"], json!(["lost line"]));
        let Outcome::Annotated(page) =
            read_task(&exported(t.clone(), pred.clone(), false)).unwrap()
        else {
            panic!()
        };
        assert_eq!(super::super::omnidocbench::truth_status(&page), "draft layout@3");
        let dets = page["layout_dets"].as_array().unwrap();
        assert_eq!(dets[0]["poly"], json!([10.0, 20.0, 110.0, 20.0, 110.0, 40.0, 10.0, 40.0]));
        assert_eq!(dets[1]["html"], json!("<table><tr><td>a</td></tr></table>"));
        assert_eq!(
            (dets[2]["text"].clone(), dets[2]["order"].clone()),
            (json!("lost line"), json!(2.0))
        );
        // A corrected text: reviewed.
        let mut fixed = pred.clone();
        fixed[1]["value"]["text"] = json!(["Introduction"]);
        let Outcome::Annotated(page) = read_task(&exported(t.clone(), fixed, false)).unwrap()
        else {
            panic!()
        };
        assert_eq!(page["layout_dets"][0]["text"], json!("Introduction"));
        assert_eq!(super::super::omnidocbench::truth_status(&page), "reviewed");
        // Skipped, unannotated.
        assert_eq!(read_task(&exported(t.clone(), json!([]), true)).unwrap(), Outcome::Skipped);
        assert_eq!(read_task(&t).unwrap(), Outcome::Unannotated);
    }

    #[test]
    fn bad_exports_name_the_place() {
        let t = task(&draft(), "x.png", "mine").unwrap();
        let mut out = t["predictions"][0]["result"].clone();
        out[0]["value"]["x"] = json!(80.0); // 80 % + 50 % wide
        let e = read_task(&exported(t.clone(), out, false)).unwrap_err().to_string();
        assert!(
            e.contains("region b0 lies outside the image") && e.ends_with("at result[0]"),
            "{e}"
        );
        let other = json!({"id": 3, "data": {"image": "a.png"}, "annotations": []});
        assert!(read_task(&other).unwrap_err().to_string().contains("not a task of a corpus"));
        let foreign =
            json!([{"id": "r", "from_name": "label", "value": {"rectanglelabels": ["cat"]}}]);
        let e = read_task(&exported(t, foreign, false)).unwrap_err().to_string();
        assert!(e.contains("control \"label\" is not one of corpus's"), "{e}");
        assert!(read_export(b"{}").unwrap_err().to_string().contains("expected a JSON list"));
    }

    #[test]
    fn the_config_names_every_control_and_category() {
        let c = label_config();
        for name in [CATEGORY, TRANSCRIPTION, ORDER, UNPLACED, IMAGE] {
            assert!(c.contains(&format!("name=\"{name}\"")), "{name}");
        }
        assert!(CATEGORIES.iter().all(|k| c.contains(&format!("<Label value=\"{k}\"/>"))));
        assert!(roxmltree::Document::parse(&c).is_ok());
    }
}
