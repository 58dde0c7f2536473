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
    PossibleValuesParser::new(corpus::suites::names())
}

/// `--suite` where stored scores are read: the suites, and the names some of them store
/// under (`olmocr-exact` for `eval --suite olmocr --math exact`, `olmocr-mathml` for math
/// rendered without a browser, `formula-unimernet` for `eval --suite formula --cdm unimernet`).
pub fn stored_suite() -> PossibleValuesParser {
    let ids: Vec<&'static str> =
        corpus::suites::Suite::ALL.iter().flat_map(|s| s.stored_names().iter().copied()).collect();
    PossibleValuesParser::new(ids)
}

/// `ocr --provider`: every registry entry. `--help` lists the compiled-in providers and
/// the repository's presets; a preset from the user's folder is taken too.
pub fn ocr_provider() -> ProviderParser {
    ProviderParser
}

/// The value parser of `--provider` (see [`ocr_provider`]).
#[derive(Clone)]
pub struct ProviderParser;

impl TypedValueParser for ProviderParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let s = value.to_string_lossy();
        match corpus::providers::resolve(&s) {
            Ok(_) => Ok(s.into_owned()),
            Err(e) => {
                let what = arg.map(|a| format!(" for '{a}'")).unwrap_or_default();
                let msg = format!("invalid value '{s}'{what}: {e}\n  (see `corpus providers`)\n");
                Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, msg).with_cmd(cmd))
            }
        }
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        // The repository's entries only: a user's presets must not change `--help`.
        let ids: Vec<String> = corpus::providers::entries()
            .0
            .iter()
            .filter(|e| {
                !matches!(e, corpus::providers::Entry::Preset(p) if !p.source.starts_with("presets/"))
            })
            .map(|e| e.id().to_string())
            .collect();
        Some(Box::new(ids.into_iter().map(|id| {
            let id: &'static str = Box::leak(id.into_boxed_str());
            clap::builder::PossibleValue::new(id)
        })))
    }
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

/// `--gt-format`, `--pred-format`: a table notation, or `auto` (detected per line).
pub fn table_format() -> impl TypedValueParser<Value = super::score::Notation> {
    use corpus::formats::tables::TableFormat;
    let mut names: Vec<&'static str> = vec!["auto"];
    names.extend(TableFormat::ALL.map(TableFormat::name));
    PossibleValuesParser::new(names).map(|s| super::score::Notation(TableFormat::parse(&s).ok()))
}

/// `--cdm`: the official CDM variants.
pub fn cdm_variant() -> impl TypedValueParser<Value = corpus::metrics::cdm::Variant> {
    use corpus::metrics::cdm::Variant;
    PossibleValuesParser::new([Variant::OmniDocBench, Variant::UniMERNet].map(Variant::name)).map(
        |s| if s == Variant::UniMERNet.name() { Variant::UniMERNet } else { Variant::OmniDocBench },
    )
}
