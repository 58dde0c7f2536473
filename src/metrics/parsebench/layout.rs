//! ParseBench's visual grounding dimension (`layout`): the per-element rules of
//! `LayoutDetectionEvaluator.evaluate` (`evaluation/evaluators/layoutdet.py`), written from its
//! description; rules in `docs/parsebench.md` ("The layout dimension").
//!
//! A `layout` rule is one ground-truth element: a page (1-based), a box in page-normalized
//! COCO form `[x, y, w, h]`, a `canonical_class` and optional `attributes` (`ignore`) and
//! `content`. The provider's blocks are its predictions ([`predictions`]): each block's kind
//! mapped to a Canonical17 class ([`canonical_of`]), its box divided by its page's size. Per
//! element: **localization** (IoA of the element ≥ 0.5 and IoA of the prediction ≥ 0.2 for
//! the best-IoU eligible prediction; page headers and footers by the band the overlapping
//! predictions cover), **classification** (the matched prediction's class equals the
//! element's, both in the case's ontology, Basic by default), **attribution** where the case
//! has content (the element's text against the overlapping predictions' text,
//! [`super::attribution`]), and the element passes when all that apply do. The case's
//! headline is `layout_element_rule_pass_rate`, the share of elements that pass.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{attribution, Outcome};
use crate::doc::{BlockKind, Doc};

/// `LOCALIZATION_IOA_THRESHOLD`: the element's share covered by the prediction.
pub const IOA_GT: f64 = 0.50;
/// `LOCALIZATION_IOA_PRED_THRESHOLD`: the prediction's share inside the element.
pub const IOA_PRED: f64 = 0.20;
/// Page furniture: the horizontal span the predictions must recover.
pub const FURNITURE_X_SPAN: f64 = 0.80;
/// Page furniture: the vertical extent the predictions must recover.
pub const FURNITURE_Y: f64 = 0.50;

/// An axis-aligned box `[x1, y1, x2, y2]` in page-normalized units.
pub type Xyxy = [f64; 4];

/// One prediction: a block with a box on a page of known size.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// 1-based page.
    pub page: u32,
    /// Its box, normalized by the page's size.
    pub bbox: Xyxy,
    /// Its Canonical17 class.
    pub class: &'static str,
    /// Its text (the block's).
    pub text: String,
}

/// A block kind's Canonical17 class (`schemas/layout_ontology.py`'s names).
pub fn canonical_of(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::Title => "Title",
        BlockKind::Heading => "Section-header",
        BlockKind::Paragraph => "Text",
        BlockKind::ListItem => "List-item",
        BlockKind::Caption => "Caption",
        BlockKind::Table => "Table",
        BlockKind::Formula => "Formula",
        BlockKind::Figure => "Picture",
        BlockKind::PageHeader => "Page-header",
        BlockKind::PageFooter => "Page-footer",
        BlockKind::Footnote => "Footnote",
        // Bibliography entries: Docling's `reference`, Text in the evaluator's mapping.
        BlockKind::Reference => "Text",
        BlockKind::Code => "Code",
    }
}

/// The block kind a class is read back as by [`canonical_of`] (a Basic `Section` as a
/// heading; the extended classes with no block kind as paragraphs, Text in Basic); `None`
/// for a name that is not a class.
pub fn block_kind_of(class: &str) -> Option<BlockKind> {
    Some(match class.trim() {
        "Title" => BlockKind::Title,
        "Section-header" | "Section" => BlockKind::Heading,
        "Text"
        | "Document Index"
        | "Key-Value Region"
        | "Form"
        | "Checkbox-Selected"
        | "Checkbox-Unselected" => BlockKind::Paragraph,
        "List-item" => BlockKind::ListItem,
        "Caption" => BlockKind::Caption,
        "Table" => BlockKind::Table,
        "Formula" => BlockKind::Formula,
        "Picture" => BlockKind::Figure,
        "Page-header" => BlockKind::PageHeader,
        "Page-footer" => BlockKind::PageFooter,
        "Footnote" => BlockKind::Footnote,
        "Code" => BlockKind::Code,
        _ => return None,
    })
}

/// A coordinate as the Doc's JSON writes it, read in double precision (as the evaluator reads
/// the exported boxes).
fn wide(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

/// The Doc's predictions: every block whose page has a positive size and whose box has a
/// positive area, in block order. A Doc read from Markdown has none.
pub fn predictions(doc: &Doc) -> Vec<Prediction> {
    doc.blocks
        .iter()
        .filter_map(|b| {
            let p = doc.pages.get(b.page as usize)?;
            if p.width <= 0.0 || p.height <= 0.0 || b.bbox.width() <= 0.0 || b.bbox.height() <= 0.0
            {
                return None;
            }
            let (w, h) = (wide(p.width), wide(p.height));
            let bx = &b.bbox;
            Some(Prediction {
                page: b.page + 1,
                bbox: [wide(bx.x0) / w, wide(bx.y0) / h, wide(bx.x1) / w, wide(bx.y1) / h],
                class: canonical_of(b.kind),
                text: b.text.clone(),
            })
        })
        .collect()
}

/// The evaluation ontology of a case (`normalize_evaluation_ontology`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ontology {
    /// Basic7 (the default): Title and Section-header are `Section`; List-item, Caption,
    /// Footnote, Formula and the extended classes are `Text`.
    Basic,
    /// Canonical17 or Core11: predictions projected to Core11, classes kept.
    Core,
}

impl Ontology {
    /// From a rule's `ontology` (prefix `basic`, `canonical` or `core`, any case).
    pub fn parse(s: Option<&str>) -> Result<Ontology, String> {
        let Some(s) = s else { return Ok(Ontology::Basic) };
        let n = s.trim().to_lowercase();
        if n.starts_with("basic") {
            Ok(Ontology::Basic)
        } else if n.starts_with("canonical") || n.starts_with("core") {
            Ok(Ontology::Core)
        } else {
            Err(format!("Unsupported layout ontology '{s}'"))
        }
    }
}

/// `CANONICAL_TO_BASIC`; `None` for a name that is not Canonical17.
fn basic_of(canonical: &str) -> Option<&'static str> {
    Some(match canonical {
        "Title" | "Section-header" => "Section",
        "Text"
        | "List-item"
        | "Caption"
        | "Footnote"
        | "Formula"
        | "Code"
        | "Document Index"
        | "Key-Value Region"
        | "Form"
        | "Checkbox-Selected"
        | "Checkbox-Unselected" => "Text",
        "Page-footer" => "Page-footer",
        "Page-header" => "Page-header",
        "Picture" => "Picture",
        "Table" => "Table",
        _ => return None,
    })
}

/// `CANONICAL_TO_CORE`; `None` for the classes with no Core11 equivalent.
fn core_of(canonical: &'static str) -> Option<&'static str> {
    match canonical {
        "Checkbox-Selected" | "Checkbox-Unselected" | "Form" => None,
        "Code" | "Document Index" | "Key-Value Region" => Some("Text"),
        c => Some(c),
    }
}

const BASIC_LABELS: [&str; 7] =
    ["Formula", "Page-footer", "Page-header", "Picture", "Section", "Table", "Text"];

/// `map_label_to_target_ontology` of a ground-truth class: in Basic, a Basic label stays
/// (`Formula` becomes `Text`), a Canonical17 one is mapped, anything else stays.
fn gt_class(class: &str, ontology: Ontology) -> String {
    match ontology {
        Ontology::Core => class.to_string(),
        Ontology::Basic if class == "Formula" => "Text".into(),
        Ontology::Basic if BASIC_LABELS.contains(&class) => class.to_string(),
        Ontology::Basic => basic_of(class).map_or_else(|| class.to_string(), str::to_string),
    }
}

/// A prediction's class in the case's view (`project_layout_predictions`): Basic maps the
/// canonical class, Core projects it to Core11 (`None`: dropped).
fn pred_class(class: &'static str, ontology: Ontology) -> Option<&'static str> {
    match ontology {
        Ontology::Basic => basic_of(class),
        Ontology::Core => core_of(class),
    }
}

/// One `layout` rule's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    /// 1-based page.
    pub page: i64,
    /// `[x, y, w, h]`, page-normalized.
    pub bbox: [f64; 4],
    /// Its class.
    pub class: String,
    /// `attributes.ignore` is truthy.
    pub ignored: bool,
    /// Its `content`'s text (a table's cell text), where it carries content.
    pub content: Option<String>,
    /// Its `content` is a table.
    pub table: bool,
    /// `attributes.explicit` (or `content: explicit`): attribution by recall.
    pub explicit: bool,
    /// A formula (class or `text_role`) or a `caption`: no attribution.
    pub skips_attribution: bool,
    /// Its place in the reading order (`ro_index`), where given.
    pub ro_index: Option<i64>,
    /// The case's ontology, where this rule names one.
    pub ontology: Option<String>,
    /// `page_index`, where given.
    pub page_index: Option<i64>,
}

/// Python's `str()` of an attribute value.
fn py_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        v => v.to_string(),
    }
}

/// `is_truthy`: `true`, `1` or `yes` (any case, trimmed), a JSON `true`.
fn truthy(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => ["true", "1", "yes"].contains(&s.trim().to_lowercase().as_str()),
        Some(Value::Number(n)) => n.to_string() == "1",
        _ => false,
    }
}

impl Element {
    /// From a rule's fields (`LayoutTestRule`); the error names the field.
    pub fn from_fields(f: &Map<String, Value>) -> Result<Element, String> {
        let bbox = match f.get("bbox") {
            Some(Value::Array(a)) if a.len() == 4 => {
                let v: Option<Vec<f64>> = a.iter().map(Value::as_f64).collect();
                let v = v.ok_or("field bbox: expected four numbers")?;
                [v[0], v[1], v[2], v[3]]
            }
            _ => return Err("field bbox: expected four numbers".into()),
        };
        let class = match f.get("canonical_class") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err("field canonical_class: expected a string".into()),
        };
        let page = match f.get("page").and_then(Value::as_i64) {
            Some(p) if p >= 1 => p,
            _ => return Err("field page: expected an integer ≥ 1".into()),
        };
        let attrs = match f.get("attributes") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err("field attributes: expected an object".into()),
        };
        let attr = |k: &str| attrs.get(k).map(py_value).unwrap_or_default();
        let (content, table) = match f.get("content") {
            None | Some(Value::Null) => (None, false),
            Some(Value::Object(c)) if c.get("type").and_then(Value::as_str) == Some("table") => {
                let html = c.get("html").and_then(Value::as_str).unwrap_or("");
                let thead = truthy(attrs.get("ignore_thead")) || truthy(attrs.get("ignore_head"));
                (Some(super::attribution::html_text(html, thead)), true)
            }
            Some(Value::Object(c)) => {
                (Some(c.get("text").and_then(Value::as_str).unwrap_or("").to_string()), false)
            }
            Some(_) => return Err("field content: expected an object".into()),
        };
        let formula = class.trim().to_lowercase() == "formula"
            || attr("text_role").trim().to_lowercase() == "formula";
        Ok(Element {
            page,
            bbox,
            ignored: truthy(attrs.get("ignore")),
            explicit: truthy(attrs.get("explicit"))
                || attr("content").trim().to_lowercase() == "explicit",
            skips_attribution: formula || truthy(attrs.get("caption")),
            ro_index: f.get("ro_index").and_then(Value::as_i64),
            class,
            content,
            table,
            ontology: f.get("ontology").and_then(Value::as_str).map(str::to_string),
            page_index: f.get("page_index").and_then(Value::as_i64),
        })
    }

    /// The box as `[x1, y1, x2, y2]`.
    pub fn xyxy(&self) -> Xyxy {
        let b = self.bbox;
        [b[0], b[1], b[0] + b[2], b[1] + b[3]]
    }

    /// A page header or footer (`_is_page_furniture`).
    pub fn is_furniture(&self) -> bool {
        matches!(self.class.trim(), "Page-header" | "Page-footer")
    }
}

fn inter(a: &Xyxy, b: &Xyxy) -> f64 {
    let w = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let h = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    w * h
}

fn area(a: &Xyxy) -> f64 {
    (a[2] - a[0]) * (a[3] - a[1])
}

/// IoA of `a`: the share of `a` that `b` covers (`compute_ioa_matrix`).
pub fn ioa(a: &Xyxy, b: &Xyxy) -> f64 {
    inter(a, b) / area(a).max(1e-10)
}

/// IoU (`compute_iou_matrix`).
pub fn iou(a: &Xyxy, b: &Xyxy) -> f64 {
    let i = inter(a, b);
    i / (area(a) + area(b) - i).max(1e-10)
}

/// The first index of the largest value (`np.argmax`).
fn argmax(idx: &[usize], v: impl Fn(usize) -> f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for &i in idx {
        let x = v(i);
        if best.is_none_or(|(_, b)| x > b) {
            best = Some((i, x));
        }
    }
    best.map(|b| b.0)
}

/// The total length covered by intervals (`_interval_union_length`).
fn union_length(mut iv: Vec<(f64, f64)>) -> f64 {
    iv.retain(|(s, e)| e > s);
    iv.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let Some(&(mut cs, mut ce)) = iv.first() else { return 0.0 };
    let mut total = 0.0;
    for &(s, e) in &iv[1..] {
        if s <= ce {
            ce = ce.max(e);
            continue;
        }
        total += ce - cs;
        (cs, ce) = (s, e);
    }
    total + ce - cs
}

/// The predictions that recover a page-furniture band (`_build_page_furniture_group`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FurnitureGroup {
    /// Predictions with IoA ≥ 0.2 inside the band and a part in it.
    pub members: Vec<usize>,
    /// The member with the highest IoU with the band.
    pub representative: Option<usize>,
    /// Share of the band's width between the members' leftmost and rightmost edges (≤ 1).
    pub x_span: f64,
    /// Share of the band's height the members cover (≤ 1).
    pub y_coverage: f64,
}

/// The band `gt` and the predictions that recover it.
pub fn furniture_group(gt: &Xyxy, preds: &[Xyxy]) -> FurnitureGroup {
    let mut members = Vec::new();
    let mut clipped: Vec<Xyxy> = Vec::new();
    for (j, p) in preds.iter().enumerate() {
        if ioa(p, gt) < IOA_PRED {
            continue;
        }
        let c = [p[0].max(gt[0]), p[1].max(gt[1]), p[2].min(gt[2]), p[3].min(gt[3])];
        if c[2] <= c[0] || c[3] <= c[1] {
            continue;
        }
        members.push(j);
        clipped.push(c);
    }
    if members.is_empty() {
        return FurnitureGroup::default();
    }
    let representative = argmax(&members, |j| iou(gt, &preds[j]));
    let (w, h) = ((gt[2] - gt[0]).max(0.0), (gt[3] - gt[1]).max(0.0));
    let (x_span, y_coverage) = if w <= 0.0 || h <= 0.0 {
        (0.0, 0.0)
    } else {
        let right = clipped.iter().map(|c| c[2]).fold(f64::NEG_INFINITY, f64::max);
        let left = clipped.iter().map(|c| c[0]).fold(f64::INFINITY, f64::min);
        let y = union_length(clipped.iter().map(|c| (c[1], c[3])).collect());
        (((right - left) / w).min(1.0), (y / h).min(1.0))
    };
    FurnitureGroup { members, representative, x_span, y_coverage }
}

/// One element checked: localization, then classification of the matched prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementCheck {
    /// Localized.
    pub localized: bool,
    /// Localized and the matched prediction's class is the element's.
    pub classified: bool,
    /// The matched prediction, where there is one.
    pub best: Option<usize>,
    /// IoA of the element covered by it.
    pub ioa: f64,
    /// Share of it inside the element.
    pub ioa_pred: f64,
    /// Why it failed (`no_overlap`, `below_threshold`, `class_mismatch`).
    pub reason: &'static str,
}

/// Checks one element (box `gt`, class `class` in the case's ontology) against a page's
/// predictions (boxes, classes in the same ontology).
pub fn check_element(
    gt: &Xyxy,
    furniture: bool,
    class: &str,
    boxes: &[Xyxy],
    classes: &[&str],
) -> ElementCheck {
    let all: Vec<usize> = (0..boxes.len()).collect();
    let mut best = argmax(&all, |j| ioa(gt, &boxes[j]));
    let mut best_ioa = best.map_or(0.0, |j| ioa(gt, &boxes[j]));
    let mut best_ioa_pred = 0.0;
    let mut group = FurnitureGroup::default();
    if !boxes.is_empty() {
        if furniture {
            group = furniture_group(gt, boxes);
            if let Some(r) = group.representative {
                best = Some(r);
                best_ioa = ioa(gt, &boxes[r]);
                best_ioa_pred = ioa(&boxes[r], gt);
            }
        } else {
            let eligible: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&j| ioa(gt, &boxes[j]) >= IOA_GT && ioa(&boxes[j], gt) >= IOA_PRED)
                .collect();
            if let Some(j) = argmax(&eligible, |j| iou(gt, &boxes[j])) {
                best = Some(j);
                best_ioa = ioa(gt, &boxes[j]);
            }
            if let Some(j) = best {
                best_ioa_pred = ioa(&boxes[j], gt);
            }
        }
    }
    let localized = if furniture {
        !group.members.is_empty()
            && group.x_span >= FURNITURE_X_SPAN
            && group.y_coverage >= FURNITURE_Y
    } else {
        best_ioa >= IOA_GT && best_ioa_pred >= IOA_PRED
    };
    let classified = localized && best.is_some_and(|j| classes[j] == class);
    let reason = if (furniture && group.members.is_empty()) || best.is_none() || best_ioa == 0.0 {
        "no_overlap"
    } else if !localized {
        "below_threshold"
    } else if !classified {
        "class_mismatch"
    } else {
        "pass"
    };
    ElementCheck { localized, classified, best, ioa: best_ioa, ioa_pred: best_ioa_pred, reason }
}

/// A layout case scored.
#[derive(Debug, Clone, PartialEq)]
pub enum LayoutCase {
    /// Every element's outcome (in rule order; `None` for an ignored one) and the case's
    /// metrics.
    Scored(Vec<Option<Outcome>>, BTreeMap<String, f64>),
    /// The provider has boxes, none on the case's page: the evaluator skips the case ("No
    /// layout data for page").
    Skipped,
    /// The evaluator fails on the case (why), which its runner leaves out as a harness error.
    Failed(String),
}

impl Element {
    /// The tokens of its content (images' markup read as their alt text for pictures and
    /// page furniture, `layout_element_uses_image_alt_text_normalization`).
    pub fn tokens(&self) -> Vec<String> {
        let class = self.class.trim().to_lowercase();
        let alt = matches!(class.as_str(), "picture" | "image" | "page-header" | "page-footer");
        let text = self.content.as_deref().unwrap_or("");
        attribution::tokenize(&attribution::normalize_attribution_text(text, alt))
    }
}

/// An element's attribution: `None` where it does not apply, else whether it passed and the
/// best token score.
fn attribute(
    g: usize,
    e: &Element,
    gts: &[attribution::Gt],
    blocks: &[attribution::Block],
) -> Option<(bool, f64)> {
    if e.skips_attribution || e.content.is_none() || gts[g].tokens.is_empty() {
        return None;
    }
    let (n, best) = if e.is_furniture() {
        attribution::furniture_match(g, gts, blocks, e.explicit)
    } else {
        attribution::best_match(g, gts, blocks, e.explicit)
    };
    let score = best.map_or(0.0, |(_, r, f)| if e.explicit { r } else { f });
    Some((n > 0 && best.is_some() && score >= attribution::TOKEN_THRESHOLD, score))
}

#[derive(Default)]
struct Tally {
    elements: usize,
    localized: usize,
    classified: usize,
    passed: usize,
    attributed: usize,
    attribution_total: usize,
}

/// Scores a case's `layout` rules against the provider's predictions (`None`: the output has
/// no boxes at all, which the evaluator cannot adapt and counts as 0).
pub fn score(rules: &[Map<String, Value>], preds: Option<&[Prediction]>) -> LayoutCase {
    let elements: Vec<Result<Element, String>> = rules.iter().map(Element::from_fields).collect();
    let ok: Vec<&Element> = elements.iter().filter_map(|e| e.as_ref().ok()).collect();
    let first = ok.first();
    let ontology = match Ontology::parse(first.and_then(|e| e.ontology.as_deref())) {
        Ok(o) => o,
        Err(e) => return fail_all(&elements, &format!("Error executing rule: {e}")),
    };
    let Some(preds) = preds.filter(|p| !p.is_empty()) else {
        return fail_all(&elements, "The output has no layout boxes");
    };
    // The runner keeps the predictions of the case's page (`page_index` + 1) only.
    let page = first.and_then(|e| e.page_index).unwrap_or(0) + 1;
    let preds: Vec<&Prediction> = preds.iter().filter(|p| i64::from(p.page) == page).collect();
    if preds.is_empty() {
        return LayoutCase::Skipped;
    }
    let with_content = ok.iter().any(|e| e.content.is_some() && !e.ignored);
    let mut outcomes: Vec<Option<Outcome>> = vec![None; elements.len()];
    let mut t = Tally::default();
    let mut pages: Vec<i64> = ok.iter().map(|e| e.page).collect();
    pages.sort_unstable();
    pages.dedup();
    for page in pages {
        let on_page: Vec<&Prediction> =
            preds.iter().copied().filter(|p| i64::from(p.page) == page).collect();
        let projected: Vec<(&'static str, Xyxy)> = on_page
            .iter()
            .filter_map(|p| pred_class(p.class, ontology).map(|c| (c, p.bbox)))
            .collect();
        let boxes: Vec<Xyxy> = projected.iter().map(|p| p.1).collect();
        let classes: Vec<&str> = projected.iter().map(|p| p.0).collect();
        let idx: Vec<usize> = (0..elements.len())
            .filter(|&i| matches!(&elements[i], Ok(e) if e.page == page && !e.ignored))
            .collect();
        let els: Vec<&Element> = idx.iter().filter_map(|&i| elements[i].as_ref().ok()).collect();
        // The attribution metrics sort the page's attributable elements by `ro_index`, which
        // fails on a missing one when there are two or more and any prediction.
        let attributable: Vec<&&Element> = els.iter().filter(|e| !e.skips_attribution).collect();
        if with_content
            && attributable.len() >= 2
            && !on_page.is_empty()
            && attributable.iter().any(|e| e.ro_index.is_none())
        {
            return LayoutCase::Failed(format!(
                "page {page}: an element without ro_index in the attribution's reading order"
            ));
        }
        let gts: Vec<attribution::Gt> =
            els.iter().map(|e| attribution::Gt { bbox: e.xyxy(), tokens: e.tokens() }).collect();
        let blocks: Vec<attribution::Block> = on_page
            .iter()
            .map(|p| attribution::Block {
                bbox: p.bbox,
                tokens: attribution::tokenize(&attribution::normalize_attribution_text(
                    &p.text, false,
                )),
            })
            .collect();
        for (g, (&i, e)) in idx.iter().zip(&els).enumerate() {
            let gt = gt_class(&e.class, ontology);
            let c = check_element(&e.xyxy(), e.is_furniture(), &gt, &boxes, &classes);
            let attr = if with_content { attribute(g, e, &gts, &blocks) } else { None };
            t.elements += 1;
            t.localized += usize::from(c.localized);
            t.classified += usize::from(c.classified);
            t.attribution_total += usize::from(attr.is_some());
            t.attributed += usize::from(attr.is_some_and(|a| a.0));
            let pass = c.localized && c.classified && attr.is_none_or(|a| a.0);
            t.passed += usize::from(pass);
            outcomes[i] = Some(outcome(&c, &gt, attr, &classes));
        }
    }
    for (i, e) in elements.iter().enumerate() {
        if let Err(why) = e {
            outcomes[i] = Some(Outcome::error(why.clone()));
        }
    }
    LayoutCase::Scored(outcomes, metrics(&t))
}

fn metrics(t: &Tally) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    if t.elements == 0 {
        return m;
    }
    let n = t.elements as f64;
    let rule = (t.localized + t.classified + t.attributed) as f64
        / (2 * t.elements + t.attribution_total) as f64;
    m.insert("layout_localization_pass_rate".into(), t.localized as f64 / n);
    m.insert("layout_classification_pass_rate".into(), t.classified as f64 / n);
    if t.attribution_total > 0 {
        m.insert(
            "layout_attribution_pass_rate".into(),
            t.attributed as f64 / t.attribution_total as f64,
        );
    }
    m.insert("layout_rule_pass_rate".into(), rule);
    m.insert("rule_pass_rate".into(), rule);
    m.insert("layout_element_rule_pass_rate".into(), t.passed as f64 / n);
    m
}

fn outcome(c: &ElementCheck, gt: &str, attr: Option<(bool, f64)>, classes: &[&str]) -> Outcome {
    if !c.localized || !c.classified {
        let got = c.best.map_or("none", |j| classes[j]);
        return Outcome::fail(match c.reason {
            "class_mismatch" => format!("class_mismatch: expected {gt}, the matched box is {got}"),
            r => format!(
                "localization {r}: best IoA of the element {:.3}, of the prediction {:.3}",
                c.ioa, c.ioa_pred
            ),
        });
    }
    match attr {
        Some((false, score)) => {
            Outcome::fail(format!("attribution: best token score {score:.3} below 0.8"))
        }
        _ => Outcome::pass(),
    }
}

/// Every element fails (an output without boxes, a bad ontology); the metrics are 0.
fn fail_all(elements: &[Result<Element, String>], why: &str) -> LayoutCase {
    let outcomes: Vec<Option<Outcome>> = elements
        .iter()
        .map(|e| match e {
            Ok(e) if e.ignored => None,
            Ok(_) => Some(Outcome::fail(why)),
            Err(w) => Some(Outcome::error(w.clone())),
        })
        .collect();
    let m = [
        "layout_localization_pass_rate",
        "layout_classification_pass_rate",
        "layout_rule_pass_rate",
        "rule_pass_rate",
        "layout_element_rule_pass_rate",
    ]
    .iter()
    .map(|k| (k.to_string(), 0.0))
    .collect();
    LayoutCase::Scored(outcomes, m)
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
