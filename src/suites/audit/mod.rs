//! `corpus audit`: the truth elements on which the providers agree with each other but not
//! with the truth, ranked by how strongly (rules in `docs/audit.md`).
//!
//! Each covered suite lists its truth elements with every provider's reading of each, found
//! by the suite's own matching: [`omnidoc`] (text blocks, display formulas, tables and each
//! page's reading order, through OmniDocBench's `match_page`), [`table`] (each GT table,
//! paired by the table suite's `match_tables`) and [`tests`] (olmOCR-bench's tests, from the
//! stored `pass:<test>` rows). The pure judgement of one element is
//! [`crate::metrics::audit::judge`]; here the findings are assembled and ranked. The store is
//! only read: every function takes `&Store`.

pub mod omnidoc;
pub mod table;
pub mod tests;

use serde::Serialize;

use super::Suite;
use crate::error::{Error, Result};
use crate::metrics::audit::{evidence, judge, similarity, Edit, Evidence};
use crate::store::Store;

/// What to audit.
#[derive(Debug, Clone)]
pub struct AuditOptions<'a> {
    /// The suite whose truths are audited.
    pub suite: Suite,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The providers whose readings are compared; empty = every provider with outputs
    /// (except `truth` and `empty`, which are no witnesses).
    pub providers: Vec<String>,
}

/// One truth element as the audit sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    /// What kind of element (`text`, `formula`, `table`, `order`, `test`).
    pub kind: &'static str,
    /// The dataset of its truth.
    pub dataset: String,
    /// The document's name.
    pub document: String,
    /// Its page (1-based), where the truth says.
    pub page: Option<u32>,
    /// Which element of the document (e.g. `text_block order 5`, `table 0`).
    pub label: String,
    /// The truth's text of it, as written.
    pub truth_text: String,
    /// The truth, as tokens.
    pub truth: Vec<String>,
    /// For each truth token, the part of the element it is in (e.g. a table cell), if any.
    pub units: Option<Vec<String>>,
    /// Its box on the page image, `[x0, y0, x1, y1]` in the truth's pixels, if it has one.
    pub bbox: Option<[f64; 4]>,
    /// The page image: the document's blob hash and its size in pixels, where the truth's
    /// document is a page image.
    pub image: Option<(String, [f64; 2])>,
    /// Each provider's reading: (provider, its text as written, its tokens).
    pub readings: Vec<(String, String, Vec<String>)>,
}

/// One truth element the providers contradict together.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// What the consensus edit says about the page (`docs/audit.md`, "Evidence"); findings
    /// are ranked by it first. Order and olmOCR test elements are always `content`.
    pub evidence: Evidence,
    /// `support × coherence` (`docs/audit.md`), in [0, 1].
    pub score: f64,
    /// Sum of the providers' agreement with the consensus edit / providers that read it.
    pub support: f64,
    /// The supporters' mean pairwise similarity over the whole element.
    pub coherence: f64,
    /// The element's kind.
    pub kind: &'static str,
    /// Dataset.
    pub dataset: String,
    /// Document name.
    pub document: String,
    /// Page, where known.
    pub page: Option<u32>,
    /// Which element.
    pub element: String,
    /// Where in it the edit is (a table cell), where the element has parts.
    pub at: Option<String>,
    /// The truth around the edit, the edit in `[…]`.
    pub truth: String,
    /// The providers' consensus there, the edit in `[…]`.
    pub consensus: String,
    /// The providers that support the consensus.
    pub providers: Vec<String>,
    /// The providers that read the element.
    pub readers: Vec<String>,
    /// The truth's whole text of the element.
    pub truth_text: String,
    /// The whole reading of the supporter closest to the other supporters.
    pub consensus_text: String,
    /// The element's box on the page image, where the truth has one.
    pub bbox: Option<[f64; 4]>,
    /// The page image (blob hash, [width, height]), where the document is one.
    pub image: Option<(String, [f64; 2])>,
}

/// The audit of one suite's truths.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AuditReport {
    /// Suite id.
    pub suite: String,
    /// Dataset, if one was chosen.
    pub dataset: Option<String>,
    /// The providers compared.
    pub providers: Vec<String>,
    /// Truth elements read by at least two providers (the ones that could be contradicted).
    pub elements: usize,
    /// Truth elements read by fewer than two providers.
    pub unwitnessed: usize,
    /// Every finding, strongest first.
    pub findings: Vec<Finding>,
    /// What the audit could not read (unreadable truths, outputs), one line each.
    pub notes: Vec<String>,
}

/// Providers that never witness against a truth: the truth itself and the empty floor.
const NOT_WITNESSES: [&str; 2] = [crate::providers::truth::ID, "empty"];

/// The providers to compare: the chosen ones, or every provider with an ok output.
pub fn providers(store: &Store, chosen: &[String]) -> Result<Vec<String>> {
    if !chosen.is_empty() {
        let mut v = chosen.to_vec();
        v.dedup();
        return Ok(v);
    }
    let mut v: Vec<String> = store
        .provider_counts()?
        .into_iter()
        .filter(|c| c.ok > 0 && !NOT_WITNESSES.contains(&c.provider.as_str()))
        .map(|c| c.provider)
        .collect();
    v.sort();
    v.dedup();
    Ok(v)
}

/// Audits the truths of `opts.suite`.
pub fn audit(store: &Store, opts: &AuditOptions<'_>) -> Result<AuditReport> {
    let providers = providers(store, &opts.providers)?;
    if providers.len() < 2 {
        return Err(Error::Usage(format!(
            "the audit needs at least two providers with outputs; found {}: run `corpus ocr` \
             with more providers or pass --provider",
            if providers.is_empty() { "none".to_string() } else { providers.join(", ") }
        )));
    }
    let mut notes = Vec::new();
    let elements = match opts.suite {
        Suite::Omnidoc => omnidoc::elements(store, opts.dataset, &providers, &mut notes)?,
        Suite::Table => table::elements(store, opts.dataset, &providers, &mut notes)?,
        Suite::Olmocr => tests::elements(store, opts.dataset, &providers)?,
        Suite::Paper | Suite::Formula | Suite::Parsebench | Suite::Detection => {
            return Err(Error::Usage(format!(
                "the audit does not cover the {} suite yet; it covers {} (docs/audit.md)",
                opts.suite.name(),
                covered().join(", ")
            )))
        }
    };
    let witnessed = elements.iter().filter(|e| e.readings.len() >= 2).count();
    let mut findings: Vec<Finding> = elements.iter().filter_map(find).collect();
    rank(&mut findings);
    Ok(AuditReport {
        suite: opts.suite.name().to_string(),
        dataset: opts.dataset.map(str::to_string),
        providers,
        elements: witnessed,
        unwitnessed: elements.len() - witnessed,
        findings,
        notes,
    })
}

/// The suites the audit covers.
pub fn covered() -> Vec<&'static str> {
    Suite::ALL
        .into_iter()
        .filter(|s| match s {
            Suite::Omnidoc | Suite::Table | Suite::Olmocr => true,
            Suite::Paper | Suite::Formula | Suite::Parsebench | Suite::Detection => false,
        })
        .map(Suite::name)
        .collect()
}

/// Orders findings strongest first: evidence (content, omission, form), then score, then more
/// supporters, then document and element for a stable order.
pub fn rank(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        a.evidence
            .cmp(&b.evidence)
            .then(b.score.total_cmp(&a.score))
            .then(b.providers.len().cmp(&a.providers.len()))
            .then(a.document.cmp(&b.document))
            .then(a.element.cmp(&b.element))
    });
}

/// Words of context shown on each side of an edit.
const CONTEXT: usize = 4;

fn excerpt(tokens: &[String], start: usize, end: usize, with: Option<&[String]>) -> String {
    let from = start.saturating_sub(CONTEXT);
    let to = (end + CONTEXT).min(tokens.len());
    let mut s: Vec<String> = Vec::new();
    if from > 0 {
        s.push("…".into());
    }
    s.extend(tokens[from..start].iter().cloned());
    let mid = with.unwrap_or(&tokens[start..end]);
    s.push(format!("[{}]", mid.join(" ")));
    s.extend(tokens[end..to].iter().cloned());
    if to < tokens.len() {
        s.push("…".into());
    }
    s.join(" ")
}

/// The finding on one element, if the providers contradict its truth together.
pub fn find(e: &Element) -> Option<Finding> {
    if e.readings.len() < 2 {
        return None;
    }
    let tokens: Vec<Vec<String>> = e.readings.iter().map(|r| r.2.clone()).collect();
    let v = judge(&e.truth, &tokens)?;
    let Edit { start, end, with } = &v.edit;
    // The supporter whose reading is closest to the other supporters'.
    let medoid = v
        .supporters
        .iter()
        .copied()
        .max_by(|&a, &b| {
            let s = |i: usize| -> f64 {
                v.supporters
                    .iter()
                    .filter(|&&j| j != i)
                    .map(|&j| similarity(&tokens[i], &tokens[j]))
                    .sum()
            };
            s(a).total_cmp(&s(b)).then(b.cmp(&a))
        })
        .unwrap_or(v.supporters[0]);
    let at = e.units.as_ref().and_then(|u| {
        let mut parts: Vec<&str> =
            u[*start..(*end).max(*start + 1).min(u.len())].iter().map(String::as_str).collect();
        if parts.is_empty() {
            parts.extend(u.get(start.saturating_sub(1)).map(String::as_str));
        }
        parts.dedup();
        (!parts.is_empty()).then(|| parts.join(", "))
    });
    // Order and test elements have no characters to compare: their tokens are positions and
    // verdicts.
    let evidence = if matches!(e.kind, "order" | "test") {
        Evidence::Content
    } else {
        evidence(&e.truth[*start..*end], with)
    };
    Some(Finding {
        evidence,
        score: v.score,
        support: v.support,
        coherence: v.coherence,
        kind: e.kind,
        dataset: e.dataset.clone(),
        document: e.document.clone(),
        page: e.page,
        element: e.label.clone(),
        at,
        truth: excerpt(&e.truth, *start, *end, None),
        consensus: excerpt(&e.truth, *start, *end, Some(with)),
        providers: v.supporters.iter().map(|&i| e.readings[i].0.clone()).collect(),
        readers: e.readings.iter().map(|r| r.0.clone()).collect(),
        truth_text: e.truth_text.clone(),
        consensus_text: e.readings[medoid].1.clone(),
        bbox: e.bbox,
        image: e.image.clone(),
    })
}

#[cfg(test)]
mod unit {
    use super::*;
    use crate::metrics::audit::text_tokens;

    fn element(truth: &str, readings: &[(&str, &str)]) -> Element {
        Element {
            kind: "text",
            dataset: "d".into(),
            document: "doc".into(),
            page: Some(1),
            label: "text_block order 1".into(),
            truth_text: truth.into(),
            truth: text_tokens(truth),
            units: None,
            bbox: None,
            image: None,
            readings: readings
                .iter()
                .map(|(p, t)| (p.to_string(), t.to_string(), text_tokens(t)))
                .collect(),
        }
    }

    #[test]
    fn a_finding_shows_the_edit_in_context_and_its_supporters() {
        let e = element(
            "one two three four five six seven teh nine ten eleven twelve",
            &[
                ("a", "one two three four five six seven the nine ten eleven twelve"),
                ("b", "one two three four five six seven the nine ten eleven twelve"),
                ("c", "one two three four five six seven teh nine ten eleven twelve"),
            ],
        );
        let f = find(&e).unwrap();
        assert_eq!(f.truth, "… four five six seven [teh] nine ten eleven twelve");
        assert_eq!(f.consensus, "… four five six seven [the] nine ten eleven twelve");
        assert_eq!(f.providers, ["a", "b"]);
        assert_eq!(f.readers, ["a", "b", "c"]);
        // Support (1 + 1 + 0) / 3, coherence 1 (a and b read alike).
        assert!((f.score - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(
            f.consensus_text,
            "one two three four five six seven the nine ten eleven twelve"
        );
    }

    #[test]
    fn ranking_puts_the_strongest_first() {
        let strong = find(&element("a b c", &[("x", "a b d"), ("y", "a b d")])).unwrap();
        let weak =
            find(&element("a b c", &[("x", "a b d"), ("y", "a b d"), ("z", "a b c")])).unwrap();
        let mut v = vec![weak.clone(), strong.clone()];
        rank(&mut v);
        assert_eq!(v, vec![strong, weak.clone()]);
        assert!(find(&element("a b c", &[("x", "a b c")])).is_none());
        // A weaker content finding ranks above a stronger omission and a stronger form one.
        let omission = find(&element("a b c", &[("x", "a b"), ("y", "a b")])).unwrap();
        let form = find(&element("a bc", &[("x", "a b c"), ("y", "a b c")])).unwrap();
        assert_eq!((omission.evidence, form.evidence), (Evidence::Omission, Evidence::Form));
        let mut v = vec![form.clone(), omission.clone(), weak.clone()];
        rank(&mut v);
        assert_eq!(v, vec![weak, omission, form]);
    }
}
