//! `corpus show`.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use corpus::doc::Doc;
use corpus::store::{DocumentRow, Store};
use corpus::suites::Suite;

use super::GlobalArgs;

/// How a document is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ShowFormat {
    /// Blocks in reading order as plain text, headings marked with #
    Text,
    /// Exactly the Markdown the Markdown-reading suites score (olmocr, parsebench, omnidoc,
    /// formula): the provider's own Markdown verbatim where it wrote one, else the Doc rendered
    /// (tables as pipe or HTML tables); byte for byte, no newline added
    Markdown,
    /// The Doc as stored (JSON); with --metric/--suite, the scores as JSON
    Json,
    /// One line per block: page, kind, text
    Blocks,
}

/// Arguments of `corpus show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The document: its name, or a prefix (≥ 8 hex digits) of its blake3 hash; with
    /// --suite olmocr also a test id
    doc: String,
    /// The provider whose output to show
    #[arg(long, default_value = "pdfium")]
    provider: String,
    /// Look the name up only in this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Show this metric's score and its trace instead of the output
    #[arg(long)]
    metric: Option<String>,
    /// Show every score of this suite (newest suite version first) instead of the output
    #[arg(long, value_parser = super::values::stored_suite())]
    suite: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    format: ShowFormat,
}

/// Finds exactly one document by name or hash prefix.
pub fn resolve(store: &Store, key: &str, dataset: Option<&str>) -> anyhow::Result<DocumentRow> {
    let found = store.find_documents(key, dataset)?;
    match found.as_slice() {
        [] => anyhow::bail!("no document named {key:?} (or with that hash prefix)"),
        [one] => Ok(one.clone()),
        many if many.iter().all(|d| d.id == many[0].id) => Ok(many[0].clone()),
        many => {
            let names: Vec<String> =
                many.iter().map(|d| format!("{}/{}", d.dataset, d.name)).collect();
            anyhow::bail!("{key:?} names several documents ({}); pass --dataset", names.join(", "))
        }
    }
}

/// Returns the newest ok output of a provider for a document, as Doc JSON bytes.
pub fn load_output(store: &Store, doc: &DocumentRow, provider: &str) -> anyhow::Result<Vec<u8>> {
    let Some(out) = store.latest_output(doc.id, provider)? else {
        anyhow::bail!(
            "document {} has no output from provider {provider}; run `corpus ocr --provider {provider}`",
            doc.name
        )
    };
    let Some(blob) = out.blob.as_deref() else {
        anyhow::bail!(
            "provider {provider} failed on {}: {}",
            doc.name,
            out.error.unwrap_or_default()
        )
    };
    store.blob(blob)?.ok_or_else(|| anyhow::anyhow!("output blob {blob} is missing"))
}

/// Writes a stored Doc as it is (JSON), with a final newline.
pub fn write_json(out: &mut impl Write, doc_json: &[u8]) -> anyhow::Result<()> {
    out.write_all(doc_json)?;
    writeln!(out)?;
    Ok(())
}

/// Writes exactly the Markdown the suites score ([`Doc::markdown`]), byte for byte: imported
/// back with `--format markdown` it scores as the output itself does.
pub fn write_markdown(out: &mut impl Write, doc_json: &[u8]) -> anyhow::Result<()> {
    let d: Doc = serde_json::from_slice(doc_json)?;
    out.write_all(d.markdown().as_bytes())?;
    Ok(())
}

/// Writes a stored Doc as plain text, headings marked with #.
pub fn write_text(out: &mut impl Write, doc_json: &[u8]) -> anyhow::Result<()> {
    let d: Doc = serde_json::from_slice(doc_json)?;
    out.write_all(d.to_text().as_bytes())?;
    Ok(())
}

/// Runs `corpus show`.
pub fn run(g: &GlobalArgs, a: &ShowArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open_read_only(&g.db)?;
    // olmOCR-bench and ParseBench show their tests; the other suites their scores, below.
    if a.metric.is_none() {
        match a.suite.as_deref().and_then(Suite::of_stored) {
            Some(Suite::Olmocr) => return show_olmocr(&store, a),
            Some(Suite::Parsebench) => return show_parsebench(&store, a),
            Some(
                Suite::Paper | Suite::Omnidoc | Suite::Table | Suite::Formula | Suite::Detection,
            )
            | None => {}
        }
    }
    let doc = resolve(&store, &a.doc, a.dataset.as_deref())?;
    if a.metric.is_some() || a.suite.is_some() {
        return show_scores(&store, &doc, a);
    }
    let bytes = load_output(&store, &doc, &a.provider)?;
    let mut stdout = std::io::stdout().lock();
    match a.format {
        ShowFormat::Json => write_json(&mut stdout, &bytes)?,
        ShowFormat::Text => write_text(&mut stdout, &bytes)?,
        ShowFormat::Markdown => write_markdown(&mut stdout, &bytes)?,
        ShowFormat::Blocks => {
            let d: Doc = serde_json::from_slice(&bytes)?;
            for b in &d.blocks {
                let kind = match b.level {
                    Some(l) => format!("{}/{l}", b.kind),
                    None => b.kind.to_string(),
                };
                writeln!(stdout, "{:>3} {:<12} {}", b.page + 1, kind, b.text)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn show_scores(store: &Store, doc: &DocumentRow, a: &ShowArgs) -> anyhow::Result<ExitCode> {
    let rows = store.scores(doc.id, &a.provider, a.suite.as_deref(), a.metric.as_deref())?;
    if rows.is_empty() {
        anyhow::bail!(
            "no {} score for {} from provider {}; run `corpus eval --provider {}`",
            a.metric.as_deref().unwrap_or("stored"),
            doc.name,
            a.provider,
            a.provider
        );
    }
    let mut out = std::io::stdout().lock();
    if a.format == ShowFormat::Json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for r in &rows {
        let value = super::output::fmt_value(r.value);
        writeln!(
            out,
            "{} = {value}  ({} v{}, {}@{}, truth {}/{}, {})",
            r.metric,
            r.suite,
            r.suite_version,
            r.provider,
            r.provider_version,
            r.dataset,
            r.truth_format,
            r.computed_at
        )?;
        if a.metric.is_some() {
            if let Some(t) = &r.trace {
                let v: serde_json::Value = serde_json::from_str(t)?;
                writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `corpus show DOC|TEST --suite olmocr`: a document's tests with their results, or one test's
/// result explained (each repeat, and the best fuzzy match of a failing text test).
fn show_olmocr(store: &Store, a: &ShowArgs) -> anyhow::Result<ExitCode> {
    let suite = a.suite.as_deref().unwrap_or(corpus::suites::olmocr::SUITE);
    // `--provider` defaults to pdfium; an olmOCR-bench candidate is rarely that, so the
    // default falls back to every provider.
    let fallback = a.provider == "pdfium";
    let mut out = std::io::stdout().lock();
    if !store.find_documents(&a.doc, a.dataset.as_deref())?.is_empty() {
        let doc = resolve(store, &a.doc, a.dataset.as_deref())?;
        let mut rows = store.scores(doc.id, &a.provider, Some(suite), None)?;
        if rows.is_empty() && fallback {
            let named = store.scores_named_on(doc.id, suite)?;
            rows = named;
        }
        if rows.is_empty() {
            anyhow::bail!("no olmocr score for {}; run `corpus eval --suite olmocr`", doc.name);
        }
        if a.format == ShowFormat::Json {
            serde_json::to_writer_pretty(&mut out, &rows)?;
            writeln!(out)?;
            return Ok(ExitCode::SUCCESS);
        }
        // Newest first: show each metric once.
        let mut seen = std::collections::HashSet::new();
        for r in rows.iter().filter(|r| seen.insert((r.provider.clone(), r.metric.clone()))) {
            let t: serde_json::Value =
                r.trace.as_deref().and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default();
            match r.metric.strip_prefix("pass:") {
                Some(id) => {
                    let ok = t["passed"].as_bool().unwrap_or(false);
                    writeln!(
                        out,
                        "{} {}  {id}  ({}, {})  {}@{}{}",
                        if ok { "PASS" } else { "FAIL" },
                        super::output::fmt_value(r.value),
                        t["type"].as_str().unwrap_or(""),
                        t["group"].as_str().unwrap_or(""),
                        r.provider,
                        r.provider_version,
                        if ok {
                            String::new()
                        } else {
                            format!("\n     {}", t["explanation"].as_str().unwrap_or(""))
                        }
                    )?;
                }
                None => writeln!(
                    out,
                    "{} = {}  ({}@{})",
                    r.metric,
                    super::output::fmt_value(r.value),
                    r.provider,
                    r.provider_version
                )?,
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let metric = format!("pass:{}", a.doc);
    let mut rows = store.scores_named(suite, &metric, Some(&a.provider))?;
    if rows.is_empty() && fallback {
        rows = store.scores_named(suite, &metric, None)?;
    }
    if rows.is_empty() {
        anyhow::bail!(
            "no document and no olmocr test named {:?}; run `corpus eval --suite olmocr`",
            a.doc
        );
    }
    if a.format == ShowFormat::Json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut seen = std::collections::HashSet::new();
    for r in rows.iter().filter(|r| seen.insert((r.provider.clone(), r.provider_version.clone()))) {
        let t: serde_json::Value =
            r.trace.as_deref().and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default();
        let ok = t["passed"].as_bool().unwrap_or(false);
        writeln!(
            out,
            "{} {}: {} of {} repeat(s) passed ({}; {} test, group {}, page {}; {}@{}, olmocr v{})",
            a.doc,
            if ok { "PASS" } else { "FAIL" },
            t["repeats"].as_array().map_or(0, |v| v.iter().filter(|x| x["passed"] == true).count()),
            t["repeats"].as_array().map_or(0, Vec::len),
            r.document,
            t["type"].as_str().unwrap_or(""),
            t["group"].as_str().unwrap_or(""),
            t["page"],
            r.provider,
            r.provider_version,
            r.suite_version
        )?;
        for rep in t["repeats"].as_array().into_iter().flatten() {
            let why = rep["explanation"].as_str().unwrap_or("");
            writeln!(
                out,
                "  repeat {}: {}{}",
                rep["repeat"],
                if rep["passed"] == true { "pass" } else { "fail" },
                if why.is_empty() { String::new() } else { format!(": {why}") }
            )?;
        }
        for m in t["best_match"].as_array().into_iter().flatten() {
            writeln!(
                out,
                "  best match for {} (score {:.3}): {:?}",
                m["field"].as_str().unwrap_or(""),
                m["score"].as_f64().unwrap_or(0.0),
                m["text"].as_str().unwrap_or("")
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `corpus show DOC --suite parsebench`: per test case (category) its pass rate and headline,
/// then each failed rule with what it looked for and the closest stretch of the output, and
/// the rule types not run.
fn show_parsebench(store: &Store, a: &ShowArgs) -> anyhow::Result<ExitCode> {
    let suite = corpus::suites::parsebench::SUITE;
    let doc = resolve(store, &a.doc, a.dataset.as_deref())?;
    let mut rows = store.scores(doc.id, &a.provider, Some(suite), None)?;
    // `--provider` defaults to pdfium: fall back to every provider's scores.
    if rows.is_empty() && a.provider == "pdfium" {
        rows = store.scores_named_on(doc.id, suite)?;
    }
    if rows.is_empty() {
        anyhow::bail!("no parsebench score for {}; run `corpus eval --suite parsebench`", doc.name);
    }
    let mut out = std::io::stdout().lock();
    if a.format == ShowFormat::Json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut seen = std::collections::HashSet::new();
    let rows: Vec<_> =
        rows.into_iter().filter(|r| seen.insert((r.provider.clone(), r.metric.clone()))).collect();
    for r in rows.iter().filter(|r| r.metric.ends_with("/rule_pass_rate")) {
        let category = r.metric.trim_end_matches("/rule_pass_rate");
        let headline = corpus::metrics::parsebench::headline_of(category);
        let head = rows
            .iter()
            .find(|h| h.provider == r.provider && h.metric == format!("{category}/{headline}"))
            .map(|h| format!(", {headline} {}", super::output::fmt_value(h.value)))
            .unwrap_or_default();
        writeln!(
            out,
            "{category}: rule_pass_rate {}{head}  ({}@{}, parsebench v{})",
            super::output::fmt_value(r.value),
            r.provider,
            r.provider_version,
            r.suite_version
        )?;
        let t: serde_json::Value =
            r.trace.as_deref().and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default();
        if let Some(e) = t["output_error"].as_str() {
            writeln!(out, "  the output failed (scored as empty Markdown): {e}")?;
        }
        for rule in t["rules"].as_array().into_iter().flatten() {
            if rule.get("passed").is_none() || rule["passed"].as_bool() == Some(true) {
                continue;
            }
            writeln!(
                out,
                "  FAIL {:.3}  {}  {}{}",
                rule["score"].as_f64().unwrap_or(0.0),
                rule["type"].as_str().unwrap_or(""),
                rule["id"].as_str().unwrap_or("(no id)"),
                rule["page"].as_i64().map(|p| format!(" (page {p})")).unwrap_or_default()
            )?;
            writeln!(out, "       {}", rule["explanation"].as_str().unwrap_or(""))?;
            if let Some(b) = rule.get("best_match").filter(|b| b.is_object()) {
                writeln!(out, "       looked for: {}", b["looked_for"].as_str().unwrap_or(""))?;
                writeln!(
                    out,
                    "       best match ({:.3}): {}",
                    b["ratio"].as_f64().unwrap_or(0.0),
                    b["found"].as_str().unwrap_or("")
                )?;
            }
        }
        if let Some(m) = t["not_run"].as_object().filter(|m| !m.is_empty()) {
            let list: Vec<String> = m.iter().map(|(k, n)| format!("{k} ({n})")).collect();
            writeln!(out, "  not run by this build: {}", list.join(", "))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
