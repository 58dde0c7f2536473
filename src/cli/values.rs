//! Value parsers for the options whose values come from one of this build's lists (truth
//! formats, import formats, suites, providers), so that a wrong value is a usage error
//! (exit 2) naming the valid ones, and `--help` lists them.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use corpus::formats::{ImportFormat, TruthFormat};

/// `--truth`: every [`TruthFormat`].
pub fn truth_format() -> impl TypedValueParser<Value = TruthFormat> {
    PossibleValuesParser::new(TruthFormat::ALL.map(TruthFormat::as_str))
        .map(|s| TruthFormat::parse(&s).expect("a listed truth format parses"))
}

/// `import --format` and `--output-format`: every [`ImportFormat`].
pub fn import_format() -> impl TypedValueParser<Value = ImportFormat> {
    PossibleValuesParser::new(ImportFormat::ALL.map(ImportFormat::as_str))
        .map(|s| ImportFormat::parse(&s).expect("a listed import format parses"))
}

/// `eval --suite`: the suites this build runs.
pub fn suite() -> PossibleValuesParser {
    PossibleValuesParser::new(corpus::suites::SUITES.iter().copied())
}

/// `--suite` where stored scores are read: the suites, and the names some of them store
/// under (`olmocr-exact` for `eval --suite olmocr --math exact`, `olmocr-mathml` for math
/// rendered without a browser, `formula-unimernet` for `eval --suite formula --cdm unimernet`).
pub fn stored_suite() -> PossibleValuesParser {
    let mut ids: Vec<&'static str> = corpus::suites::SUITES.to_vec();
    ids.push(corpus::suites::olmocr::SUITE_EXACT);
    ids.push(corpus::suites::olmocr::SUITE_MATHML);
    ids.push(corpus::suites::formula::SUITE_UNIMERNET);
    PossibleValuesParser::new(ids)
}

/// `ocr --provider`: the registry's providers, `command` and `truth`.
pub fn ocr_provider() -> PossibleValuesParser {
    PossibleValuesParser::new(corpus::providers::known_ids())
}

/// `score --metric`: every pairwise metric, and `cdm`.
pub fn score_metric() -> impl TypedValueParser<Value = super::score::ScoreMetric> {
    use super::score::ScoreMetric;
    use corpus::metrics::pairwise::Metric;
    let mut ids: Vec<&'static str> = Metric::ALL.map(Metric::id).to_vec();
    ids.push("cdm");
    PossibleValuesParser::new(ids).map(|s| match Metric::from_id(&s) {
        Some(m) => ScoreMetric::Pairwise(m),
        None => ScoreMetric::Cdm,
    })
}

/// `--cdm`: the official CDM variants.
pub fn cdm_variant() -> impl TypedValueParser<Value = corpus::metrics::cdm::Variant> {
    use corpus::metrics::cdm::Variant;
    PossibleValuesParser::new([Variant::OmniDocBench, Variant::UniMERNet].map(Variant::name)).map(
        |s| if s == Variant::UniMERNet.name() { Variant::UniMERNet } else { Variant::OmniDocBench },
    )
}
