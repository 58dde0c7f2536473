//! A source's truth made the twin's (`docs/degrade.md`): the same file, with every box a suite
//! reads moved by the page's homography. Formats without boxes travel unchanged; the compiler
//! asks for a decision on every truth format.

use serde_json::Value;

use super::geometry::Homography;
use crate::formats::TruthFormat;

/// One page of the source: its size in points and its homography (in points, top-left
/// origin).
#[derive(Debug, Clone, Copy)]
pub struct PageMove {
    /// Width, points.
    pub width: f64,
    /// Height, points.
    pub height: f64,
    /// The page's homography.
    pub h: Homography,
}

/// The twin's truth: its format and bytes. `twin_hash` is the twin PDF's content hash (a page
/// truth names its document by it).
pub fn move_truth(
    format: TruthFormat,
    bytes: &[u8],
    pages: &[PageMove],
    twin_hash: &str,
) -> Result<(TruthFormat, Vec<u8>), String> {
    match format {
        // Text, tables as LaTeX or HTML, references and unit tests: nothing placed on the page.
        TruthFormat::PeerRead
        | TruthFormat::GrobidTei
        | TruthFormat::S2orc
        | TruthFormat::Jats
        | TruthFormat::OlmocrBench
        | TruthFormat::LatexTables
        | TruthFormat::PdfParseBench
        | TruthFormat::ParseBench => Ok((format, bytes.to_vec())),
        TruthFormat::OmniDocBench => {
            let page: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
            Ok((
                format,
                serde_json::to_vec(&omnidoc_page(page, pages, twin_hash)?)
                    .map_err(|e| e.to_string())?,
            ))
        }
        // A Label Studio task travels as the OmniDocBench page it reads as (its boxes are then
        // polygons, which a turned or warped rectangle is).
        TruthFormat::LabelStudio => {
            let task: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
            let page =
                match crate::formats::label_studio::read_task(&task).map_err(|e| e.to_string())? {
                    crate::formats::label_studio::Outcome::Annotated(p) => p,
                    _ => return Err("a Label Studio task without a submitted annotation".into()),
                };
            let page = omnidoc_page(page, pages, twin_hash)?;
            Ok((TruthFormat::OmniDocBench, serde_json::to_vec(&page).map_err(|e| e.to_string())?))
        }
        TruthFormat::Icdar2013 => {
            let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
            Ok((format, icdar(text, pages)?.into_bytes()))
        }
        TruthFormat::Coco => {
            let mut v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
            coco(&mut v, bytes, pages)?;
            Ok((format, serde_json::to_vec(&v).map_err(|e| e.to_string())?))
        }
        TruthFormat::Docling => {
            let mut v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
            docling(&mut v, pages, None)?;
            Ok((format, serde_json::to_vec(&v).map_err(|e| e.to_string())?))
        }
    }
}

/// An OmniDocBench page: every `poly` moved, in the frame its boxes are in (a page truth's
/// `corpus_source.dpi`, else `page_info`'s width and height over the page's size), and a page
/// truth's `corpus_source` pointed at the twin.
fn omnidoc_page(mut page: Value, pages: &[PageMove], twin_hash: &str) -> Result<Value, String> {
    let info = &page["page_info"];
    let (index, sx, sy) = if let Some(src) = info.get("corpus_source").filter(|s| !s.is_null()) {
        let p = src["page"].as_u64().ok_or("corpus_source without page")? as usize;
        let dpi = src["dpi"].as_f64().ok_or("corpus_source without dpi")?;
        (p.checked_sub(1).ok_or("page 0")?, dpi / 72.0, dpi / 72.0)
    } else {
        let (w, h) = (info["width"].as_f64(), info["height"].as_f64());
        let (Some(w), Some(h)) = (w, h) else {
            return Err(
                "page_info has no width and height: the frame of its boxes is unknown".into()
            );
        };
        let p = pages.first().ok_or("the document has no page")?;
        (0, w / p.width, h / p.height)
    };
    let m = pages.get(index).ok_or_else(|| format!("the document has no page {}", index + 1))?;
    let h = m.h.in_frame(sx, sy);
    let (fw, fh) = (m.width * sx, m.height * sy);
    move_polys(&mut page, &h, fw, fh);
    if let Some(src) = page["page_info"].get_mut("corpus_source").filter(|s| s.is_object()) {
        src["document"] = Value::String(twin_hash.to_string());
    }
    Ok(page)
}

/// Moves every `poly` (`[x1, y1, …]`) below `v`, each point clamped to the frame.
fn move_polys(v: &mut Value, h: &Homography, fw: f64, fh: f64) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match (k.as_str(), &mut *x) {
                    ("poly", Value::Array(a))
                        if a.len() % 2 == 0 && a.iter().all(Value::is_number) =>
                    {
                        for pair in a.chunks_exact_mut(2) {
                            let (px, py) =
                                (pair[0].as_f64().unwrap_or(0.0), pair[1].as_f64().unwrap_or(0.0));
                            let (u, w) = h.apply(px, py);
                            pair[0] = Value::from(round(u.clamp(0.0, fw)));
                            pair[1] = Value::from(round(w.clamp(0.0, fh)));
                        }
                    }
                    _ => move_polys(x, h, fw, fh),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| move_polys(x, h, fw, fh)),
        _ => {}
    }
}

/// Rounded to 1/1000 of a unit: moved boxes print short and compare exactly after a round
/// trip through JSON.
fn round(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// An ICDAR 2013 region or structure file: every `<bounding-box>` moved on the page of the
/// `<region>` it is in (PDF points, origin bottom-left).
fn icdar(text: &str, pages: &[PageMove]) -> Result<String, String> {
    let tag = regex::Regex::new(r#"<(region|bounding-box)\b[^>]*>"#).expect("a valid pattern");
    let attr = |t: &str, name: &str| -> Option<String> {
        let re = regex::Regex::new(&format!(r#"\b{name}\s*=\s*["']([^"']*)["']"#)).ok()?;
        re.captures(t).map(|c| c[1].to_string())
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut page: usize = 1;
    for m in tag.find_iter(text) {
        let t = m.as_str();
        if t.starts_with("<region") {
            page = attr(t, "page").and_then(|p| p.trim().parse().ok()).unwrap_or(1);
            continue;
        }
        let num = |n: &str| -> Result<f64, String> {
            attr(t, n)
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| format!("{t}: no number {n}"))
        };
        let (x1, y1, x2, y2) = (num("x1")?, num("y1")?, num("x2")?, num("y2")?);
        let p = page
            .checked_sub(1)
            .and_then(|i| pages.get(i))
            .ok_or_else(|| format!("the document has no page {page}"))?;
        let ph = p.height;
        let b =
            p.h.move_box([x1.min(x2), ph - y1.max(y2), x1.max(x2), ph - y1.min(y2)], p.width, ph);
        let moved = format!(
            r#"<bounding-box x1="{}" y1="{}" x2="{}" y2="{}"{}>"#,
            round(b[0]),
            round(ph - b[3]),
            round(b[2]),
            round(ph - b[1]),
            if t.ends_with("/>") { "/" } else { "" }
        );
        out.push_str(&text[last..m.start()]);
        out.push_str(&moved);
        last = m.end();
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// A COCO file: every annotation's `bbox` (`[x, y, w, h]` in its image's pixels) moved on its
/// image's page, the box around its moved corners, and its `area` made `w·h` again.
fn coco(v: &mut Value, bytes: &[u8], pages: &[PageMove]) -> Result<(), String> {
    let t = crate::formats::coco::read(bytes).map_err(|e| e.to_string())?;
    let frames: std::collections::HashMap<i64, (usize, [f64; 2])> =
        t.images.iter().map(|i| (i.id, (i.page as usize, i.size))).collect();
    let Some(anns) = v.get_mut("annotations").and_then(Value::as_array_mut) else { return Ok(()) };
    for a in anns {
        let id = a["image_id"].as_i64().ok_or("an annotation without image_id")?;
        let (page, size) = *frames.get(&id).ok_or_else(|| format!("no image {id}"))?;
        let p = pages.get(page).ok_or_else(|| format!("the document has no page {}", page + 1))?;
        let b: Vec<f64> = a["bbox"]
            .as_array()
            .map(|b| b.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        let [x, y, w, h] = b[..] else {
            return Err(format!("image {id}: a bbox that is not [x, y, w, h]"));
        };
        let m = p.h.in_frame(size[0] / p.width, size[1] / p.height).move_box(
            [x, y, x + w, y + h],
            size[0],
            size[1],
        );
        let (w, h) = (round(m[2] - m[0]), round(m[3] - m[1]));
        a["bbox"] = serde_json::json!([round(m[0]), round(m[1]), w, h]);
        if a.get("area").is_some() {
            a["area"] = Value::from(round(w * h));
        }
    }
    Ok(())
}

/// A DoclingDocument: every `bbox` (`l, t, r, b`, `coord_origin` TOPLEFT unless BOTTOMLEFT)
/// moved on the page of its `prov` (a table cell's: its item's first `prov`), in the frame of
/// Docling's page size where it gives one.
fn docling(v: &mut Value, pages: &[PageMove], page: Option<usize>) -> Result<(), String> {
    match v {
        Value::Object(m) => {
            let own = m
                .get("page_no")
                .and_then(Value::as_u64)
                .or_else(|| m.get("prov").and_then(|p| p[0]["page_no"].as_u64()))
                .map(|p| p as usize)
                .or(page);
            if let (Some(p), Some(Value::Object(b))) = (own, m.get_mut("bbox")) {
                let pm = p
                    .checked_sub(1)
                    .and_then(|i| pages.get(i))
                    .ok_or_else(|| format!("the document has no page {p}"))?;
                let f = |k: &str| b.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                let bottom_left =
                    b.get("coord_origin").and_then(Value::as_str) == Some("BOTTOMLEFT");
                let ph = pm.height;
                let (t, bo) =
                    if bottom_left { (ph - f("t"), ph - f("b")) } else { (f("t"), f("b")) };
                let r = pm.h.move_box([f("l"), t.min(bo), f("r"), t.max(bo)], pm.width, ph);
                b.insert("l".into(), round(r[0]).into());
                b.insert("r".into(), round(r[2]).into());
                if bottom_left {
                    b.insert("t".into(), round(ph - r[1]).into());
                    b.insert("b".into(), round(ph - r[3]).into());
                } else {
                    b.insert("t".into(), round(r[1]).into());
                    b.insert("b".into(), round(r[3]).into());
                }
            }
            for (k, x) in m.iter_mut() {
                if k != "bbox" {
                    docling(x, pages, own)?;
                }
            }
            Ok(())
        }
        Value::Array(a) => a.iter_mut().try_for_each(|x| docling(x, pages, page)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turned() -> Vec<PageMove> {
        // A 100 × 200 pt page turned a quarter about its centre (50, 100).
        vec![PageMove { width: 100.0, height: 200.0, h: Homography::rotation(90.0, 50.0, 100.0) }]
    }

    #[test]
    fn omnidocbench_polys_move_in_their_own_frame_and_text_formats_travel_as_they_are() {
        // Boxes in a 200 × 400 pixel image of the page (2 px a point).
        let page = serde_json::json!({"layout_dets": [{"category_type": "text_block",
            "poly": [100, 180, 120, 180, 120, 220, 100, 220], "text": "x"}],
            "page_info": {"width": 200, "height": 400, "image_path": "a.jpg"}});
        let bytes = serde_json::to_vec(&page).unwrap();
        let (f, out) = move_truth(TruthFormat::OmniDocBench, &bytes, &turned(), "h").unwrap();
        assert_eq!(f, TruthFormat::OmniDocBench);
        let v: Value = serde_json::from_slice(&out).unwrap();
        // In points the poly is (50, 90), (60, 90), (60, 110), (50, 110); a quarter turn about
        // (50, 100) takes (x, y) to (50 + (y - 100), 100 - (x - 50)): (40, 100), (40, 90),
        // (60, 90), (60, 100); in pixels twice that.
        assert_eq!(
            v["layout_dets"][0]["poly"],
            serde_json::json!([80.0, 200.0, 80.0, 180.0, 120.0, 180.0, 120.0, 200.0])
        );
        assert_eq!(v["layout_dets"][0]["text"], "x");
        let (_, same) = move_truth(TruthFormat::PdfParseBench, b"[1]", &turned(), "h").unwrap();
        assert_eq!(same, b"[1]");
        let no_frame = serde_json::to_vec(&serde_json::json!({"page_info": {}})).unwrap();
        assert!(move_truth(TruthFormat::OmniDocBench, &no_frame, &turned(), "h")
            .unwrap_err()
            .contains("frame"));
    }

    #[test]
    fn icdar_boxes_move_on_their_regions_page_in_pdf_coordinates() {
        let reg = r#"<document><table id="1"><region id="1" page="1"><bounding-box x1="40" y1="100" x2="60" y2="110"/></region></table></document>"#;
        let out = icdar(reg, &turned()).unwrap();
        // PDF y up: the box is y 100..110 from the bottom = 90..100 from the top, x 40..60:
        // corners (40, 90), (60, 90), (60, 100), (40, 100) turned go to (40, 110), (40, 90),
        // (50, 90), (50, 110): x 40..50, top 90..110 = PDF y 90..110.
        assert!(out.contains(r#"<bounding-box x1="40" y1="90" x2="50" y2="110"/>"#), "{out}");
        assert!(icdar(
            r#"<region page="3"><bounding-box x1="1" y1="1" x2="2" y2="2"/>"#,
            &turned()
        )
        .is_err());
    }
}
