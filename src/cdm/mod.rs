//! CDM's IO half: renders prepared formulas with a real TeX (batched, one page per formula),
//! reads one box per coloured token, caches renders in the store by content hash and renderer
//! version, and scores pairs with the pure matching in [`crate::metrics::cdm`].

use crate::metrics::cdm::Variant;
use crate::store::Store;

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
}

impl<'a> CdmEngine<'a> {
    /// An engine for `variant`; with a store, renders are cached there.
    pub fn new(variant: Variant, store: Option<&'a Store>) -> Self {
        CdmEngine { variant, store }
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Scores each `(gt, pred)` pair; an error (a formula TeX cannot render, no TeX) is that
    /// pair's alone and says why.
    pub fn score_pairs(&self, pairs: &[(String, String)]) -> Vec<Result<CdmScore, String>> {
        let _ = self.store;
        pairs.iter().map(|_| Err("CDM is not built yet".to_string())).collect()
    }
}
