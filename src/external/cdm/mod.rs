//! CDM's IO half: renders prepared formulas with a real TeX (batched, one page per formula),
//! reads one box per coloured token, caches renders in the store by content hash and renderer
//! version, and scores pairs with the pure matching in [`crate::metrics::cdm`].

pub mod render;

use std::cell::Cell;
use std::collections::HashMap;

use serde_json::{json, Value};

use crate::metrics::cdm::matching::{self, Rendered};
use crate::metrics::cdm::tokens::{self, Prepared, Template};
use crate::metrics::cdm::Variant;
use crate::store::Store;
use render::RenderedBoxes;

/// One pair's CDM.
#[derive(Debug, Clone, PartialEq)]
pub struct CdmScore {
    /// 2·matched / (|gt| + |pred|), rounded to 3 decimals as the official code does.
    pub f1: f64,
    /// matched / |gt|.
    pub recall: f64,
    /// matched / |pred|.
    pub precision: f64,
    /// Tokens, boxes and matches, for traces.
    pub trace: serde_json::Value,
}

/// Scores formula pairs with one CDM variant, rendering each distinct formula once.
pub struct CdmEngine<'a> {
    variant: Variant,
    store: Option<&'a Store>,
    jobs: usize,
    renders: Cell<usize>,
}

/// Python's `str.strip()` whitespace: Unicode white space plus the four ASCII separators.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// OmniDocBench's `_process_single_cdm_sample`: `$` stripped from both ends of the truth;
/// of the prediction, what follows the last ```` ```latex ```` up to the next ```` ``` ````,
/// then `$` stripped likewise.
pub fn omnidocbench_input(gt: &str, pred: &str) -> (String, String) {
    let strip = |s: &str| -> String {
        let s = s.trim_start_matches('$').trim_end_matches('$').trim_matches(py_space);
        s.trim_start_matches('$').trim_end_matches('$').trim_matches(py_space).to_string()
    };
    let pred = pred.rsplit("```latex").next().unwrap_or("");
    let pred = pred.split("```").next().unwrap_or("");
    (strip(gt), strip(pred))
}

/// The cache key of one render: blake3 over the renderer version, the variant, the template,
/// the paper size and the coloured LaTeX, each length-prefixed.
pub(crate) fn render_key(variant: Variant, p: &Prepared) -> String {
    let template = match (variant, p.template) {
        (Variant::OmniDocBench, _) | (_, Template::Formula) => "formula",
        (_, Template::Tabular) => "tabular",
        (_, Template::FormulaZh) => "formula_zh",
    };
    let mut h = blake3::Hasher::new();
    for part in [render::RENDERER_VERSION, variant.name(), template, &p.paper.to_string(), &p.body]
    {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().to_hex().to_string()
}

fn boxes_to_json(b: &RenderedBoxes) -> String {
    json!({"width": b.width, "height": b.height, "boxes": b.boxes, "tex_errors": b.tex_errors})
        .to_string()
}

fn boxes_from_json(s: &str) -> Option<RenderedBoxes> {
    let v: Value = serde_json::from_str(s).ok()?;
    let boxes = v["boxes"]
        .as_array()?
        .iter()
        .map(|b| {
            if b.is_null() {
                return Some(None);
            }
            let a = b.as_array()?;
            let n = |k: usize| a.get(k)?.as_i64().map(|x| x as i32);
            Some(Some([n(0)?, n(1)?, n(2)?, n(3)?]))
        })
        .collect::<Option<Vec<_>>>()?;
    let tex_errors =
        v["tex_errors"].as_array()?.iter().filter_map(|e| e.as_str().map(String::from)).collect();
    Some(RenderedBoxes {
        boxes,
        width: v["width"].as_u64()? as u32,
        height: v["height"].as_u64()? as u32,
        tex_errors,
    })
}

impl<'a> CdmEngine<'a> {
    /// An engine for `variant`; with a store, renders are cached there.
    pub fn new(variant: Variant, store: Option<&'a Store>) -> Self {
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        CdmEngine { variant, store, jobs, renders: Cell::new(0) }
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// How many formulas this engine has rendered with TeX (cache hits are not renders).
    pub fn renders(&self) -> usize {
        self.renders.get()
    }

    /// Scores each `(gt, pred)` pair; an error (a formula TeX cannot render, no TeX) is that
    /// pair's alone and says why.
    pub fn score_pairs(&self, pairs: &[(String, String)]) -> Vec<Result<CdmScore, String>> {
        let v = self.variant;
        let inputs: Vec<(String, String)> = pairs
            .iter()
            .map(|(g, p)| match v {
                Variant::OmniDocBench => omnidocbench_input(g, p),
                Variant::UniMERNet => (g.clone(), p.clone()),
            })
            .collect();
        // Each distinct formula prepared and rendered once.
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut distinct: Vec<&str> = Vec::new();
        for (g, p) in &inputs {
            for s in [g.as_str(), p.as_str()] {
                index.entry(s).or_insert_with(|| {
                    distinct.push(s);
                    distinct.len() - 1
                });
            }
        }
        let prepared: Vec<Prepared> = distinct.iter().map(|s| tokens::prepare(s, v)).collect();
        let keys: Vec<String> = prepared.iter().map(|p| render_key(v, p)).collect();
        // A formula the official tokenizer gives up on gets no boxes there (and 0 or no score
        // after its bare `except`); here it is that pair's error, with the reason.
        let mut rendered: Vec<Option<Result<RenderedBoxes, String>>> = prepared
            .iter()
            .map(|p| {
                p.error.as_ref().map(|e| Err(format!("the official tokenizer rejects it: {e}")))
            })
            .collect();
        let mut store_error: Option<String> = None;
        if let Some(store) = self.store {
            for (i, k) in keys.iter().enumerate() {
                if rendered[i].is_some() {
                    continue;
                }
                match store.cdm_render(k) {
                    Ok(Some(s)) => rendered[i] = boxes_from_json(&s).map(Ok),
                    Ok(None) => {}
                    Err(e) => store_error = Some(e.to_string()),
                }
            }
        }
        // Distinct keys still missing (two formulas may prepare alike).
        let mut todo: Vec<usize> = Vec::new();
        let mut by_key: HashMap<&str, usize> = HashMap::new();
        for i in 0..prepared.len() {
            if rendered[i].is_none() && !by_key.contains_key(keys[i].as_str()) {
                by_key.insert(&keys[i], i);
                todo.push(i);
            }
        }
        let items: Vec<&Prepared> = todo.iter().map(|&i| &prepared[i]).collect();
        let fresh = render::render_all(v, &items, self.jobs);
        self.renders.set(self.renders.get() + items.len());
        for (&i, r) in todo.iter().zip(fresh) {
            if let (Some(store), Ok(b)) = (self.store, &r) {
                if let Err(e) = store.put_cdm_render(
                    &keys[i],
                    v.name(),
                    render::RENDERER_VERSION,
                    &boxes_to_json(b),
                ) {
                    store_error = Some(e.to_string());
                }
            }
            rendered[i] = Some(r);
        }
        for i in 0..prepared.len() {
            if rendered[i].is_none() {
                rendered[i] = rendered[by_key[keys[i].as_str()]].clone();
            }
        }
        if let Some(e) = store_error {
            tracing::warn!("CDM render cache: {e}");
        }
        inputs
            .iter()
            .map(|(g, p)| {
                let (gi, pi) = (index[g.as_str()], index[p.as_str()]);
                self.score_one(
                    (
                        &prepared[gi],
                        rendered[gi].as_ref().expect("every formula rendered or failed"),
                    ),
                    (
                        &prepared[pi],
                        rendered[pi].as_ref().expect("every formula rendered or failed"),
                    ),
                )
            })
            .collect()
    }

    fn score_one(
        &self,
        gt: (&Prepared, &Result<RenderedBoxes, String>),
        pred: (&Prepared, &Result<RenderedBoxes, String>),
    ) -> Result<CdmScore, String> {
        let v = self.variant;
        let g = gt.1.as_ref().map_err(|e| format!("gt: {e}"))?;
        let p = pred.1.as_ref().map_err(|e| format!("pred: {e}"))?;
        let as_rendered = |prep: &Prepared, b: &RenderedBoxes| Rendered {
            tokens: prep.tokens.iter().cloned().zip(b.boxes.iter().copied()).collect(),
            width: b.width,
            height: b.height,
        };
        let (gr, pr) = (as_rendered(gt.0, g), as_rendered(pred.0, p));
        let (gb, pb) = (gr.boxed(), pr.boxed());
        let mut trace = json!({
            "variant": v.name(),
            "gt_tokens": gt.0.tokens.len(),
            "pred_tokens": pred.0.tokens.len(),
            "gt_boxes": gb.len(),
            "pred_boxes": pb.len(),
        });
        if !g.tex_errors.is_empty() {
            trace["gt_tex_errors"] = json!(g.tex_errors);
        }
        if !p.tex_errors.is_empty() {
            trace["pred_tex_errors"] = json!(p.tex_errors);
        }
        if gb.is_empty() && v == Variant::UniMERNet {
            return Err("gt: no token of the truth got a box (UniMERNet's evaluation leaves \
                        such a pair out)"
                .into());
        }
        if gb.is_empty() || pb.is_empty() {
            // OmniDocBench: the matcher fails on an empty side and its bare `except` gives 0;
            // UniMERNet: a prediction without boxes scores 0.
            trace["matched"] = json!(0);
            trace["note"] = json!("a side has no token box: F1 0 as the official code");
            return Ok(CdmScore { f1: 0.0, recall: 0.0, precision: 0.0, trace });
        }
        let m = matching::match_boxes(&gb, (gr.width, gr.height), &pb, (pr.width, pr.height), v);
        trace["matched"] = json!(m.matched);
        trace["unmatched_gt"] = json!(unmatched(&gb, m.pairs.iter().map(|&(a, _, k)| (a, k))));
        trace["unmatched_pred"] = json!(unmatched(&pb, m.pairs.iter().map(|&(_, b, k)| (b, k))));
        Ok(CdmScore { f1: m.f1, recall: m.recall, precision: m.precision, trace })
    }
}

/// Tokens of one side that no kept match covers.
fn unmatched(boxes: &[(&str, [i32; 4])], kept: impl Iterator<Item = (usize, bool)>) -> Vec<String> {
    let mut hit = vec![false; boxes.len()];
    for (i, k) in kept {
        if k {
            hit[i] = true;
        }
    }
    boxes.iter().zip(hit).filter(|(_, h)| !h).map(|((t, _), _)| t.to_string()).collect()
}
