//! Suites: score stored outputs against stored truths and keep every score.
//!
//! A suite reads outputs and truths from the store, calls pure metric functions
//! ([`crate::metrics`]) and writes one `metrics` row per (output, truth, metric), tagged with
//! the suite's id and version. Scoring is idempotent per version: an (output, truth) pair
//! already scored by this version is not scored again; a new version adds rows beside the old.
//! Every suite runs through one loop, [`driver::run`]: the suite says what it scores and
//! how, the driver does the reading, reuse, storing, progress and failures.

pub mod audit;
pub mod detection;
pub mod driver;
pub mod formula;
pub mod icdar2013;
pub mod judge;
pub mod olmocr;
pub mod omnidoc;
pub mod paper;
pub mod parsebench;
pub mod table;

use serde::Serialize;

/// One (output, truth) pair that could not be scored.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct EvalFailure {
    /// The document's name.
    pub document: String,
    /// The provider.
    pub provider: String,
    /// Why.
    pub error: String,
}

listed_enum! {
    /// The suites this build has: the one registry `eval`, `report`, `gate`, `correlate` and
    /// the HTML report read. A suite added here is not wired until every `match` on it says
    /// what it does (the compiler), and its rule document, `--help` and GT-vs-GT test name it
    /// (`every_suite_is_documented_rendered_and_checked` below). Recipe: CONTRIBUTING.md.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Suite {
        /// GROBID-style paper metrics against paper truths ([`paper`]).
        Paper,
        /// OmniDocBench v1.5's end-to-end evaluation ([`omnidoc`]).
        Omnidoc,
        /// olmOCR-bench's unit tests ([`olmocr`]).
        Olmocr,
        /// Tables against LaTeX or ICDAR 2013 truths ([`table`]).
        Table,
        /// Display formulas against LaTeX truths, CDM and edit similarity ([`formula`]).
        Formula,
        /// ParseBench's rule-based parse evaluation ([`parsebench`]).
        Parsebench,
        /// Layout detection: COCO AP/AR per class and reading order ([`detection`]).
        Detection,
    }
}

impl Suite {
    /// Its name, as typed and as stored (each suite module's `SUITE`).
    pub fn name(self) -> &'static str {
        match self {
            Suite::Paper => paper::SUITE,
            Suite::Omnidoc => omnidoc::SUITE,
            Suite::Olmocr => olmocr::SUITE,
            Suite::Table => table::SUITE,
            Suite::Formula => formula::SUITE,
            Suite::Parsebench => parsebench::SUITE,
            Suite::Detection => detection::SUITE,
        }
    }

    /// The suite named `name`.
    pub fn parse(name: &str) -> Option<Suite> {
        Suite::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Every name its scores are stored under: its own, and the variants a run may store
    /// instead (`olmocr-exact` without KaTeX, `formula-unimernet` for UniMERNet's CDM,
    /// `detection-docling` for DocLayNet's classes).
    pub fn stored_names(self) -> &'static [&'static str] {
        match self {
            Suite::Paper => &[paper::SUITE],
            Suite::Omnidoc => &[omnidoc::SUITE],
            Suite::Olmocr => &[olmocr::SUITE, olmocr::SUITE_EXACT, olmocr::SUITE_MATHML],
            Suite::Table => &[table::SUITE],
            Suite::Formula => &[formula::SUITE, formula::SUITE_UNIMERNET],
            Suite::Parsebench => &[parsebench::SUITE],
            Suite::Detection => &[detection::SUITE, detection::SUITE_DOCLING],
        }
    }

    /// The suite whose scores are stored under `name`.
    pub fn of_stored(name: &str) -> Option<Suite> {
        Suite::ALL.into_iter().find(|s| s.stored_names().contains(&name))
    }

    /// The truth formats it scores.
    pub fn formats(self) -> &'static [crate::formats::TruthFormat] {
        match self {
            Suite::Paper => &paper::FORMATS,
            Suite::Omnidoc => omnidoc::FORMATS,
            Suite::Olmocr => &[crate::formats::TruthFormat::OlmocrBench],
            Suite::Table => &table::FORMATS,
            Suite::Formula => &formula::FORMATS,
            Suite::Parsebench => &parsebench::FORMATS,
            Suite::Detection => &detection::FORMATS,
        }
    }

    /// The metric ids it stores per document (olmOCR-bench adds `pass:<test>` and
    /// `group_score:<group>` ids named by the data).
    pub const fn metric_ids(self) -> &'static [&'static str] {
        match self {
            Suite::Paper => &crate::metrics::paper::METRIC_IDS,
            Suite::Omnidoc => &omnidoc::METRIC_IDS,
            Suite::Olmocr => &["pass_rate", "overall"],
            Suite::Table => &table::METRIC_IDS,
            Suite::Formula => &formula::METRIC_IDS,
            Suite::Parsebench => &parsebench::METRIC_IDS,
            Suite::Detection => &detection::METRIC_IDS,
        }
    }

    /// The headline metrics of its leaderboard, in order: the first sorts the rows
    /// (`report --by provider`, the HTML leaderboard). olmOCR-bench's `overall` is followed by
    /// each `group_score:<group>` the store holds.
    pub const fn headline(self) -> &'static [&'static str] {
        match self {
            Suite::Paper => &crate::metrics::paper::HEADLINE,
            Suite::Omnidoc => &omnidoc::HEADLINE,
            Suite::Olmocr => &olmocr::HEADLINE,
            Suite::Table => &table::HEADLINE,
            Suite::Formula => &formula::HEADLINE,
            Suite::Parsebench => &parsebench::HEADLINE,
            Suite::Detection => &detection::HEADLINE,
        }
    }

    /// Its rule document, under `docs/`.
    pub fn rules(self) -> &'static str {
        match self {
            Suite::Paper => "docs/paper-suite.md",
            Suite::Omnidoc => "docs/omnidocbench.md",
            Suite::Olmocr => "docs/olmocr-bench.md",
            Suite::Table => "docs/table-metrics.md",
            Suite::Formula => "docs/formula-suite.md",
            Suite::Parsebench => "docs/parsebench.md",
            Suite::Detection => "docs/detection.md",
        }
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether every id of `heads` is one of `ids`.
const fn all_in(heads: &[&str], ids: &[&str]) -> bool {
    let mut i = 0;
    while i < heads.len() {
        let mut found = false;
        let mut j = 0;
        while j < ids.len() {
            if str_eq(heads[i], ids[j]) {
                found = true;
            }
            j += 1;
        }
        if !found {
            return false;
        }
        i += 1;
    }
    true
}

// Each headline is a metric its suite stores: renaming one there fails the build here.
const _: () = {
    let mut i = 0;
    while i < Suite::ALL.len() {
        assert!(all_in(Suite::ALL[i].headline(), Suite::ALL[i].metric_ids()));
        i += 1;
    }
};

/// The suites' names, in registry order (`--suite` values).
pub fn names() -> Vec<&'static str> {
    Suite::ALL.iter().map(|s| s.name()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every suite has its rule document, which names it and its metrics; its truth formats
    /// are named there too; the HTML leaderboard has headlines for it. Its GT-vs-GT case is
    /// `tests/it/gt_vs_gt.rs`'s `case_of`, an exhaustive match (a new suite does not compile
    /// there without one); the name check below only points there early.
    #[test]
    fn every_suite_is_documented_rendered_and_checked() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let gt_vs_gt =
            std::fs::read_to_string(root.join("tests/it/gt_vs_gt.rs")).unwrap_or_default();
        for s in Suite::ALL {
            let doc = std::fs::read_to_string(root.join(s.rules()))
                .unwrap_or_else(|e| panic!("{}: {}: {e}", s.name(), s.rules()));
            assert!(doc.contains(s.name()), "{} does not name the suite {}", s.rules(), s.name());
            for m in s.metric_ids() {
                assert!(doc.contains(m), "{}: metric {m} is not in {}", s.name(), s.rules());
            }
            for f in s.formats() {
                assert!(
                    doc.contains(f.as_str()),
                    "{}: truth format {} is not in {}",
                    s.name(),
                    f.as_str(),
                    s.rules()
                );
            }
            assert!(!s.headline().is_empty(), "{}: no leaderboard headlines", s.name());
            assert!(
                gt_vs_gt.contains(&format!("\"{}\"", s.name())),
                "{}: tests/it/gt_vs_gt.rs does not run it",
                s.name()
            );
            for n in s.stored_names() {
                assert_eq!(Suite::of_stored(n), Some(s));
            }
            assert_eq!(Suite::parse(s.name()), Some(s));
        }
    }

    /// Every truth format is scored by a suite; every name olmOCR-bench's scores are stored
    /// under says how its math tests were decided.
    #[test]
    fn every_truth_format_is_scored_and_every_stored_name_explained() {
        for f in crate::formats::TruthFormat::ALL {
            assert!(
                Suite::ALL.iter().any(|s| s.formats().contains(&f)),
                "no suite scores truth format {}",
                f.as_str()
            );
        }
        for n in Suite::Olmocr.stored_names() {
            assert!(olmocr::MATH_RULES.iter().any(|(m, _)| m == n), "{n}: no math rule");
        }
    }
}
