//! The LLM judge: a model behind an OpenAI-compatible endpoint scores each (ground truth,
//! prediction) pair on pdf-parse-bench's 0–10 scale, and the scores are stored as ordinary
//! metric rows `judge:<model>@<prompt version>` (score / 10) beside the suite's own. The
//! rules — prompts, reply parsing, cache key, what a missing prediction scores — are in
//! `docs/judge.md`.
//!
//! The judge is generic over what it judges: a [`Kind`] names the prompt and reply schema,
//! and callers hand it (GT text, predicted text) pairs. [`judge_tables`] builds the pairs of
//! the `table` suite (its own matching of GT and predicted tables), [`judge_formulas`] those
//! of the `formula` suite (its pairing of GT and predicted formulas), and [`judge_pairs`]
//! judges pairs given outside any store (`corpus judge --pairs FILE`).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::driver::usable_doc;
use super::formula;
use super::table::{self, load_truth, predicted_tables};
use super::EvalFailure;
use crate::error::Result;
use crate::llm::{first_json_object, for_each_bounded, Budget, Client, LlmError, Sampling};
use crate::metrics::table::match_tables;
use crate::progress::Progress;
use crate::store::{RunId, Store};
use crate::truth::truth_groups;

/// The prefix of every judge metric id.
pub const PREFIX: &str = "judge:";

/// What is judged: names the prompt file and the reply schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Tables: `{"errors": [...], "score": n}`.
    Table,
    /// Formulas: `{"score": n}`.
    Formula,
}

/// A versioned prompt.
#[derive(Debug, Clone, Copy)]
pub struct Prompt {
    /// What it judges.
    pub kind: Kind,
    /// Its version, `v1`: in the cache key and the metric id.
    pub version: &'static str,
    /// The text, with `{{gt}}` and `{{prediction}}`.
    pub text: &'static str,
}

impl Prompt {
    /// The current prompt of a kind.
    pub fn current(kind: Kind) -> Prompt {
        match kind {
            Kind::Table => Prompt {
                kind,
                version: "v1",
                text: include_str!("../../prompts/judge/table-v1.txt"),
            },
            Kind::Formula => Prompt {
                kind,
                version: "v1",
                text: include_str!("../../prompts/judge/formula-v1.txt"),
            },
        }
    }

    /// `table-v1`, `formula-v1`: the prompt's file name without `.txt`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.kind_name(), self.version)
    }

    fn kind_name(&self) -> &'static str {
        match self.kind {
            Kind::Table => "table",
            Kind::Formula => "formula",
        }
    }

    /// The prompt with both sides filled in.
    pub fn render(&self, gt: &str, prediction: &str) -> String {
        self.text.replace("{{gt}}", gt.trim()).replace("{{prediction}}", prediction.trim())
    }

    /// The JSON schema of the reply (`response_format`).
    pub fn schema(&self) -> Value {
        let score = json!({"type": "integer", "minimum": 0, "maximum": 10});
        match self.kind {
            Kind::Table => json!({
                "type": "object",
                "properties": {"errors": {"type": "array", "items": {"type": "string"}},
                               "score": score},
                "required": ["errors", "score"], "additionalProperties": false
            }),
            Kind::Formula => json!({
                "type": "object", "properties": {"score": score},
                "required": ["score"], "additionalProperties": false
            }),
        }
    }
}

/// The judge's settings.
#[derive(Debug, Clone)]
pub struct Judge {
    /// The model id sent to the server (`openai/gpt-5-mini`).
    pub model: String,
    /// Sampling parameters (pdf-parse-bench: temperature 0, top_p 1, max_tokens 2000).
    pub sampling: Sampling,
    /// Whether to ask for structured output (`response_format`); off for servers without it.
    pub structured: bool,
    /// Requests at a time.
    pub concurrency: usize,
}

impl Judge {
    /// The metric id its scores are stored under: `judge:<model>@<prompt version>`.
    pub fn metric(&self, prompt: &Prompt) -> String {
        format!("{PREFIX}{}@{}", self.model, prompt.version)
    }

    /// The cache key of one pair: blake3 over the judge's model id, the prompt's name, the
    /// sampling parameters, whether output is structured, and the digests of both sides, each
    /// length-prefixed. Never the API key or the server's address.
    pub fn cache_key(&self, prompt: &Prompt, gt: &str, prediction: &str) -> String {
        let mut h = blake3::Hasher::new();
        let gt_digest = blake3::hash(gt.as_bytes()).to_hex();
        let pred_digest = blake3::hash(prediction.as_bytes()).to_hex();
        for part in [
            "corpus-judge-1",
            &self.model,
            &prompt.name(),
            &self.sampling.canonical(),
            if self.structured { "structured" } else { "free" },
            gt_digest.as_str(),
            pred_digest.as_str(),
        ] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().to_hex().to_string()
    }

    /// The chat-completions request of one pair.
    pub fn request(&self, prompt: &Prompt, gt: &str, prediction: &str) -> Value {
        let mut r = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": prompt.render(gt, prediction)}],
        });
        self.sampling.apply(&mut r);
        if self.structured {
            r["response_format"] = json!({"type": "json_schema", "json_schema": {
                "name": format!("{}_judgement", prompt.kind_name()), "strict": true,
                "schema": prompt.schema()}});
        }
        r
    }
}

/// A parsed judgement.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Verdict {
    /// 0–10, clamped.
    pub score: u8,
    /// The errors the model listed (tables).
    #[serde(default)]
    pub errors: Vec<String>,
    /// The model's reply, as sent.
    pub reply: String,
    /// The model the server says answered.
    #[serde(default)]
    pub served_by: Option<String>,
}

/// Reads a judgement from a reply: the reply as JSON, else its first JSON object, else (for
/// formulas, whose study asked for a bare integer) its first integer. Scores are clamped to
/// 0–10; a reply without a score is an error naming it.
pub(crate) fn parse_verdict(
    kind: Kind,
    content: &str,
) -> std::result::Result<(u8, Vec<String>), String> {
    let clamp = |n: f64| n.round().clamp(0.0, 10.0) as u8;
    if let Some(v) = first_json_object(content) {
        if let Some(n) = v["score"].as_f64() {
            let errors = v["errors"]
                .as_array()
                .map(|a| a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            return Ok((clamp(n), errors));
        }
    }
    if kind == Kind::Formula {
        let re = regex::Regex::new(r"\b(\d+)\b").expect("a valid pattern");
        if let Some(n) = re.captures(content).and_then(|c| c[1].parse::<f64>().ok()) {
            return Ok((clamp(n), Vec::new()));
        }
    }
    let mut short: String = content.chars().take(200).collect();
    if short.len() < content.len() {
        short.push('…');
    }
    Err(format!("no score in the reply: {short:?}"))
}

/// One pair to judge.
#[derive(Debug, Clone)]
pub struct Pair {
    /// Its cache key.
    pub key: String,
    /// The ground truth text.
    pub gt: String,
    /// The predicted text.
    pub prediction: String,
}

/// What asking the judge about some pairs gave.
#[derive(Debug, Default)]
pub struct Asked {
    /// Verdicts by cache key (stored ones and new ones).
    pub verdicts: HashMap<String, Verdict>,
    /// Errors by cache key.
    pub errors: HashMap<String, String>,
    /// Pairs whose verdict was stored before.
    pub cached: usize,
    /// Pairs sent to the model.
    pub asked: usize,
    /// Why the run stopped early (a cap), if it did.
    pub stopped: Option<String>,
}

/// Finds stored verdicts, asks the model about the rest (unless `client` is `None`: a dry
/// run), and stores each new verdict as it arrives.
pub fn ask(
    store: &mut Store,
    client: Option<&Client>,
    budget: &Budget,
    judge: &Judge,
    prompt: &Prompt,
    pairs: &[Pair],
    progress: &dyn Progress,
) -> Result<Asked> {
    let mut out = Asked::default();
    let mut todo: Vec<&Pair> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in pairs {
        if !seen.insert(p.key.as_str()) {
            continue;
        }
        match store.llm_reply(&p.key)? {
            Some(r) => match serde_json::from_str::<Verdict>(&r.reply) {
                Ok(v) => {
                    out.cached += 1;
                    out.verdicts.insert(p.key.clone(), v);
                }
                Err(_) => todo.push(p),
            },
            None => todo.push(p),
        }
    }
    let Some(client) = client else {
        out.asked = 0;
        for p in todo {
            out.errors.insert(p.key.clone(), "not asked (dry run)".into());
        }
        return Ok(out);
    };
    let kind = format!("judge:{}", prompt.kind_name());
    progress.start(todo.len() as u64);
    let mut write_error = None;
    let asked = for_each_bounded(
        &todo,
        judge.concurrency,
        |p| {
            let r = client.chat(&judge.request(prompt, &p.gt, &p.prediction), budget);
            match r {
                Err(LlmError::Capped(_)) => None,
                r => Some(r),
            }
        },
        |i, r| {
            let p = todo[i];
            let result = r.map_err(|e| e.to_string()).and_then(|reply| {
                let (score, errors) = parse_verdict(prompt.kind, &reply.content)?;
                Ok((
                    Verdict { score, errors, reply: reply.content, served_by: reply.model },
                    (reply.prompt_tokens, reply.completion_tokens),
                ))
            });
            match result {
                Ok((v, tokens)) => {
                    let text = serde_json::to_string(&v).expect("a verdict serialises");
                    if let Err(e) = store.put_llm_reply(&p.key, &kind, &judge.model, &text, tokens)
                    {
                        write_error.get_or_insert(e);
                    }
                    progress.advance(&p.key[..12], true);
                    out.verdicts.insert(p.key.clone(), v);
                }
                Err(e) => {
                    progress.advance(&p.key[..12], false);
                    out.errors.insert(p.key.clone(), e);
                }
            }
        },
    );
    progress.finish();
    if let Some(e) = write_error {
        return Err(e);
    }
    out.asked = asked.min(todo.len());
    if budget.stopped() {
        out.asked = out.verdicts.len() + out.errors.len() - out.cached;
        out.stopped = Some(match (budget.max_requests, budget.max_cost) {
            (Some(m), _) if budget.sent() >= m => format!("request cap of {m} reached"),
            (_, Some(c)) => format!("spend cap of {c} reached ({:.4} spent)", budget.cost()),
            _ => "a cap was reached".to_string(),
        });
        for p in todo {
            if !out.verdicts.contains_key(&p.key) && !out.errors.contains_key(&p.key) {
                out.errors.insert(p.key.clone(), "not asked: a cap was reached".into());
            }
        }
    }
    Ok(out)
}

/// Rough token counts of pairs not yet judged: prompt characters / 4 (the usual rule of
/// thumb for English and markup) plus `completion` tokens per reply.
pub(crate) fn estimate_tokens(prompt: &Prompt, pairs: &[&Pair], completion: u64) -> (u64, u64) {
    let prompt_tokens: u64 =
        pairs.iter().map(|p| prompt.render(&p.gt, &p.prediction).chars().count() as u64 / 4).sum();
    (prompt_tokens, completion * pairs.len() as u64)
}

/// What to judge in the table suite.
#[derive(Debug, Clone)]
pub struct TableJudgeOptions<'a> {
    /// The provider whose tables are judged.
    pub provider: &'a str,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// What a judge run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JudgeSummary {
    /// The metric id the scores are stored under.
    pub metric: String,
    /// The prompt (`table-v1`).
    pub prompt: String,
    /// Documents with a truth and an output of the provider.
    pub documents: u64,
    /// (GT, prediction) pairs that need a judgement.
    pub pairs: u64,
    /// GT tables without a matched prediction: 0 without a call.
    pub missed: u64,
    /// Pairs judged before (stored replies).
    pub cached: u64,
    /// Pairs sent to the model now.
    pub asked: u64,
    /// Pairs that would be sent (what a dry run counts).
    pub to_ask: u64,
    /// Estimated (prompt, completion) tokens of the pairs to ask.
    pub estimated_tokens: (u64, u64),
    /// Tokens the server reported now.
    pub tokens: (u64, u64),
    /// HTTP requests sent now (retries included).
    pub requests: u64,
    /// Metric rows written now.
    pub rows_written: u64,
    /// Mean judge score (0–1) over the documents judged.
    pub mean: Option<f64>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<String>,
    /// Documents that could not be judged (whole), with why.
    pub failures: Vec<EvalFailure>,
}

/// One document's items (tables or formulas), ready for the judge.
struct DocPairs {
    name: String,
    output: i64,
    truth: i64,
    /// Per GT item: (what the trace says of its prediction, the pair) or `None` for a miss.
    items: Vec<Option<(Value, Pair)>>,
}

/// Where a suite's judge rows go and what its items are called in traces and messages.
struct Target<'a> {
    suite: &'a str,
    version: u32,
    /// `table` or `formula`.
    item: &'static str,
    provider: &'a str,
    run: Option<RunId>,
}

/// Judges the provider's tables of every document with a `table`-suite truth: one call per
/// (GT table, matched predicted table) pair, the GT as its truth file writes it (LaTeX for
/// pdf-parse-bench; HTML from its cells for ICDAR 2013), the prediction as HTML
/// ([`crate::doc::Table::to_html`]);
/// a GT table without a matched prediction scores 0 without a call. Stores one row per
/// document (`judge:<model>@<version>`, the mean over its GT tables) once every pair of the
/// document has a verdict. With `client` `None` nothing is sent (a dry run).
pub fn judge_tables(
    store: &mut Store,
    client: Option<&Client>,
    budget: &Budget,
    judge: &Judge,
    opts: &TableJudgeOptions<'_>,
    progress: &dyn Progress,
) -> Result<JudgeSummary> {
    let prompt = Prompt::current(Kind::Table);
    let mut summary =
        JudgeSummary { metric: judge.metric(&prompt), prompt: prompt.name(), ..Default::default() };
    let groups = truth_groups(store, opts.dataset, |f| table::FORMATS.contains(&f))?;
    let mut docs = Vec::new();
    for t in &groups {
        let name = store.name_in(t.document, &t.dataset)?.unwrap_or_default();
        let fail = |error: String| EvalFailure {
            document: name.clone(),
            provider: opts.provider.to_string(),
            error,
        };
        let Some(out) = store.latest_output(t.document, opts.provider)? else { continue };
        let gt = match load_truth(store, t)? {
            Ok(gt) => gt,
            Err(e) => {
                summary.failures.push(fail(format!("bad truth: {e}")));
                continue;
            }
        };
        // A pdf-parse-bench truth of its formulas folder has no tables: not this suite's.
        if gt.tables.is_empty() && t.format == crate::formats::TruthFormat::PdfParseBench {
            continue;
        }
        let doc = match usable_doc(store, &out) {
            Ok(d) => d,
            Err(e) => {
                summary.failures.push(fail(e));
                continue;
            }
        };
        summary.documents += 1;
        let pred = predicted_tables(&doc);
        let gt_tables: Vec<crate::doc::Table> = gt.tables.iter().map(|g| g.table.clone()).collect();
        let pairing = match_tables(&gt_tables, &pred);
        let items = gt
            .tables
            .iter()
            .zip(&pairing)
            .map(|(g, p)| {
                p.map(|j| {
                    let gt = g.source.clone().unwrap_or_else(|| g.table.to_html());
                    let prediction = pred[j].to_html();
                    let key = judge.cache_key(&prompt, &gt, &prediction);
                    (json!({"pred": j}), Pair { key, gt, prediction })
                })
            })
            .collect();
        docs.push(DocPairs { name, output: out.id, truth: t.id(), items });
    }
    let target = Target {
        suite: table::SUITE,
        version: table::TABLE_SUITE_VERSION,
        item: "table",
        provider: opts.provider,
        run: opts.run,
    };
    judge_docs(store, client, budget, judge, &prompt, &docs, &target, summary, progress)
}

/// What to judge in the formula suite.
#[derive(Debug, Clone)]
pub struct FormulaJudgeOptions<'a> {
    /// The provider whose formulas are judged.
    pub provider: &'a str,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// Judges the provider's formulas of every document with a formula truth: the formula suite's
/// pairs (`formula::pair_formulas`: each GT formula with the predicted formula it
/// corresponds to), one call per pair, both sides as written (GT with its `$` delimiters, a
/// predicted math span in `$…$` / `$$…$$`, text as found); a GT formula without a prediction
/// scores 0 without a call. Stores one row per document (`judge:<model>@<version>`, the mean
/// over its GT formulas) under the `formula` suite once every pair has a verdict. With
/// `client` `None` nothing is sent (a dry run).
pub fn judge_formulas(
    store: &mut Store,
    client: Option<&Client>,
    budget: &Budget,
    judge: &Judge,
    opts: &FormulaJudgeOptions<'_>,
    progress: &dyn Progress,
) -> Result<JudgeSummary> {
    let prompt = Prompt::current(Kind::Formula);
    let mut summary =
        JudgeSummary { metric: judge.metric(&prompt), prompt: prompt.name(), ..Default::default() };
    let groups = truth_groups(store, opts.dataset, |f| formula::FORMATS.contains(&f))?;
    let mut docs = Vec::new();
    for t in &groups {
        let name = store.name_in(t.document, &t.dataset)?.unwrap_or_default();
        let fail = |error: String| EvalFailure {
            document: name.clone(),
            provider: opts.provider.to_string(),
            error,
        };
        let Some(out) = store.latest_output(t.document, opts.provider)? else { continue };
        let gt = match formula::load_truth(store, t)? {
            Ok(gt) if gt.is_empty() => continue,
            Ok(gt) => gt,
            Err(e) => {
                summary.failures.push(fail(format!("bad truth: {e}")));
                continue;
            }
        };
        let doc = match usable_doc(store, &out) {
            Ok(d) => d,
            Err(e) => {
                summary.failures.push(fail(e));
                continue;
            }
        };
        summary.documents += 1;
        let paired = formula::pair_formulas(&gt, &formula::prediction_text(&doc));
        let items = gt
            .iter()
            .zip(paired)
            .map(|(g, p)| {
                p.map(|p| {
                    let gt = g.source.trim().to_string();
                    let prediction = p.delimited();
                    let key = judge.cache_key(&prompt, &gt, &prediction);
                    (json!({"type": g.kind.name(), "found": p.found}), Pair { key, gt, prediction })
                })
            })
            .collect();
        docs.push(DocPairs { name, output: out.id, truth: t.id(), items });
    }
    let target = Target {
        suite: formula::SUITE,
        version: formula::FORMULA_SUITE_VERSION,
        item: "formula",
        provider: opts.provider,
        run: opts.run,
    };
    judge_docs(store, client, budget, judge, &prompt, &docs, &target, summary, progress)
}

/// Asks about every pair of `docs` (or only counts them, without a client) and stores one row
/// per fully judged document.
#[allow(clippy::too_many_arguments)]
fn judge_docs(
    store: &mut Store,
    client: Option<&Client>,
    budget: &Budget,
    judge: &Judge,
    prompt: &Prompt,
    docs: &[DocPairs],
    target: &Target<'_>,
    mut summary: JudgeSummary,
    progress: &dyn Progress,
) -> Result<JudgeSummary> {
    let pairs: Vec<Pair> =
        docs.iter().flat_map(|d| d.items.iter().flatten().map(|(_, p)| p.clone())).collect();
    summary.pairs = pairs.len() as u64;
    summary.missed =
        docs.iter().map(|d| d.items.iter().filter(|t| t.is_none()).count() as u64).sum();

    let dry = ask(store, None, budget, judge, prompt, &pairs, progress)?;
    let todo: Vec<&Pair> = {
        let mut seen = std::collections::HashSet::new();
        pairs.iter().filter(|p| !dry.verdicts.contains_key(&p.key) && seen.insert(&p.key)).collect()
    };
    summary.to_ask = todo.len() as u64;
    summary.estimated_tokens = estimate_tokens(prompt, &todo, 150);
    let asked = match client {
        None => {
            summary.cached = dry.cached as u64;
            return Ok(summary);
        }
        Some(_) => ask(store, client, budget, judge, prompt, &pairs, progress)?,
    };
    summary.cached = asked.cached as u64;
    summary.asked = asked.asked as u64;
    summary.stopped = asked.stopped.clone();
    summary.tokens = budget.tokens();
    summary.requests = budget.sent();

    let metric = judge.metric(prompt);
    let (mut sum, mut n) = (0.0, 0usize);
    for d in docs {
        let mut per = Vec::new();
        let mut missing = Vec::new();
        let mut total = 0.0;
        for (i, t) in d.items.iter().enumerate() {
            match t {
                None => per.push(json!({"gt": i, "pred": null, "score": null, "value": 0.0})),
                Some((about, p)) => match asked.verdicts.get(&p.key) {
                    Some(v) => {
                        let value = f64::from(v.score) / 10.0;
                        total += value;
                        let mut e = json!({"gt": i, "score": v.score, "value": value,
                            "errors": v.errors, "reply": v.reply, "served_by": v.served_by,
                            "key": p.key});
                        if let (Some(e), Some(a)) = (e.as_object_mut(), about.as_object()) {
                            e.extend(a.iter().map(|(k, v)| (k.clone(), v.clone())));
                        }
                        per.push(e);
                    }
                    None => missing.push(format!(
                        "{} {i}: {}",
                        target.item,
                        asked.errors.get(&p.key).map(String::as_str).unwrap_or("no verdict")
                    )),
                },
            }
        }
        if !missing.is_empty() {
            summary.failures.push(EvalFailure {
                document: d.name.clone(),
                provider: target.provider.to_string(),
                error: format!("not judged: {}", missing.join("; ")),
            });
            continue;
        }
        let value = (!d.items.is_empty()).then(|| total / d.items.len() as f64);
        if let Some(v) = value {
            sum += v;
            n += 1;
        }
        let mut trace = json!({"model": judge.model, "prompt": prompt.name(),
            "sampling": judge.sampling.canonical()});
        trace[format!("{}s", target.item)] = Value::Array(per);
        let before = store.metric_rows(d.output, d.truth, target.suite, target.version)?;
        if !before.iter().any(|r| r.metric == metric) {
            store.put_metrics(
                d.output,
                d.truth,
                target.suite,
                target.version,
                target.run,
                &[(metric.as_str(), value, trace.to_string())],
            )?;
            summary.rows_written += 1;
        }
    }
    summary.mean = (n > 0).then(|| sum / n as f64);
    Ok(summary)
}

/// One pair given outside any store, and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct JudgedPair {
    /// The pair's id in the input (its `id`, or its line number).
    pub id: String,
    /// The score, 0–10.
    pub score: Option<u8>,
    /// Score / 10.
    pub value: Option<f64>,
    /// Why there is none.
    pub error: Option<String>,
}

/// Judges (id, GT, prediction) triples given outside any store (`corpus judge --pairs`);
/// replies are still cached in `store`.
#[allow(clippy::too_many_arguments)]
pub fn judge_pairs(
    store: &mut Store,
    client: Option<&Client>,
    budget: &Budget,
    judge: &Judge,
    kind: Kind,
    triples: &[(String, String, String)],
    progress: &dyn Progress,
) -> Result<(Vec<JudgedPair>, Asked)> {
    let prompt = Prompt::current(kind);
    let pairs: Vec<Pair> = triples
        .iter()
        .map(|(_, g, p)| Pair {
            key: judge.cache_key(&prompt, g, p),
            gt: g.clone(),
            prediction: p.clone(),
        })
        .collect();
    let asked = ask(store, client, budget, judge, &prompt, &pairs, progress)?;
    let out = triples
        .iter()
        .zip(&pairs)
        .map(|((id, _, _), p)| {
            let v = asked.verdicts.get(&p.key);
            JudgedPair {
                id: id.clone(),
                score: v.map(|v| v.score),
                value: v.map(|v| f64::from(v.score) / 10.0),
                error: v.is_none().then(|| {
                    asked.errors.get(&p.key).cloned().unwrap_or_else(|| "no verdict".into())
                }),
            }
        })
        .collect();
    Ok((out, asked))
}

#[cfg(test)]
mod tests;
