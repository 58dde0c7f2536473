//! CDM (Character Detection Matching), the formula metric of OmniDocBench v1.5 and UniMERNet:
//! the pure half. LaTeX is tokenized and each token given its own colour ([`tokens`]); a TeX
//! run (in `crate::external::cdm`, the IO half) renders the coloured formula and reads one box per
//! token; the boxes of the truth and the prediction are matched here (token identity,
//! position and order costs, a linear assignment, RANSAC-style inlier filtering with a fixed
//! seed) and F1 = 2·matched / (|gt| + |pred|). Two official variants differ in their TeX,
//! token lists and matching parameters ([`Variant`]); `docs/cdm.md` says where.

pub mod matching;
pub mod rng;
pub mod tokens;

/// Which official CDM a score reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// OmniDocBench v1.5's vendored copy: xelatex with xeCJK, RANSAC 3 iterations / 3 samples
    /// / residual 25. The default of the `omnidoc` and `formula` suites.
    OmniDocBench,
    /// UniMERNet's upstream `cdm/`: pdflatex, RANSAC 5 / 2 / 20 (what the formula-metric
    /// study's `cdm_score` used).
    UniMERNet,
}

impl Variant {
    /// The variant's name on the command line and in traces.
    pub fn name(self) -> &'static str {
        match self {
            Variant::OmniDocBench => "omnidocbench",
            Variant::UniMERNet => "unimernet",
        }
    }
}
