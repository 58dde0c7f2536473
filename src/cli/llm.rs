//! The options every command that talks to a model behind an OpenAI-compatible endpoint
//! shares (`judge`, `ocr --provider openai`): where the server is, timeouts, retries,
//! concurrency, sampling, and the request and spend caps. The API key is read from the
//! environment only (docs/judge.md §Client).

use std::time::Duration;

use clap::Args;
use corpus::llm::{Budget, Client, ClientConfig, Sampling};
use corpus::providers::preset::{Price, SamplingSpec};

/// Options of a model behind an HTTP endpoint.
#[derive(Args, Debug, Clone)]
pub struct LlmArgs {
    /// The model id the server knows (`openai/gpt-5-mini`, `allenai/olmOCR-2-7B-1025`)
    #[arg(long)]
    pub model: Option<String>,
    /// The API's base URL, up to /v1 (http://localhost:8000/v1 for vLLM or SGLang,
    /// https://api.openai.com/v1 for OpenAI)
    #[arg(long)]
    pub base_url: Option<String>,
    /// Requests at a time
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Stop starting requests after this many HTTP requests (retries count)
    #[arg(long)]
    pub max_requests: Option<u64>,
    /// Stop starting requests once the reported tokens cost this much (needs --price-in and
    /// --price-out)
    #[arg(long)]
    pub max_cost: Option<f64>,
    /// Price in US dollars per 1M prompt tokens, for --max-cost and the cost recorded with
    /// each output [default: an endpoint preset's, else unknown: no cost recorded]
    #[arg(long)]
    pub price_in: Option<f64>,
    /// Price in US dollars per 1M completion tokens [default: as --price-in]
    #[arg(long)]
    pub price_out: Option<f64>,
    /// Sampling temperature (part of the cache key) [default: an endpoint preset's, else 0]
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Nucleus sampling top_p (part of the cache key) [default: an endpoint preset's, else 1]
    #[arg(long)]
    pub top_p: Option<f64>,
    /// Most tokens per reply (part of the cache key) [default: an endpoint preset's, else
    /// 2000 for judge and 8000 for ocr]
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// vLLM's repetition_penalty (part of the cache key) [default: an endpoint preset's, else
    /// not sent]
    #[arg(long)]
    pub repetition_penalty: Option<f64>,
    /// Seconds to connect
    #[arg(long, default_value_t = 10.0)]
    pub connect_timeout: f64,
    /// Seconds for a whole reply to arrive
    #[arg(long, default_value_t = 120.0)]
    pub read_timeout: f64,
    /// Retries of a request that got 429, 5xx, 408, a timeout or a broken connection
    #[arg(long, default_value_t = 5)]
    pub retries: u32,
}

impl LlmArgs {
    /// The model and base URL, or a usage error naming what is missing.
    pub fn target(&self) -> Result<(&str, &str), super::UsageError> {
        match (self.model.as_deref(), self.base_url.as_deref()) {
            (Some(m), Some(u)) => Ok((m, u)),
            _ => Err(super::UsageError("needs --model and --base-url".into())),
        }
    }

    /// Checks the numbers.
    pub fn check(&self) -> Result<(), super::UsageError> {
        let bad = |what: &str| Err(super::UsageError(what.into()));
        if self.concurrency == 0 {
            return bad("--concurrency must be at least 1");
        }
        if !(self.read_timeout > 0.0 && self.connect_timeout > 0.0) {
            return bad("timeouts must be positive numbers of seconds");
        }
        if self.max_cost.is_some() && self.price_in.is_none() && self.price_out.is_none() {
            return bad("--max-cost needs --price-in and/or --price-out (per 1M tokens)");
        }
        Ok(())
    }

    /// A client for the target with `api_key` (read from the environment by the caller).
    pub fn client(&self, base_url: &str, api_key: Option<String>) -> Client {
        let mut c = ClientConfig::new(base_url, api_key);
        c.connect_timeout = Duration::from_secs_f64(self.connect_timeout);
        c.read_timeout = Duration::from_secs_f64(self.read_timeout);
        c.max_retries = self.retries;
        if let Some(ms) = std::env::var("CORPUS_LLM_BACKOFF_MS").ok().and_then(|v| v.parse().ok()) {
            // Tests shorten the backoff; users never need to.
            c.backoff = Duration::from_millis(ms);
        }
        Client::new(c)
    }

    /// The prices: the flags where given (one flag alone leaves the other at 0), else
    /// `default` (an endpoint preset's), else none.
    pub fn price(&self, default: Option<Price>) -> Option<Price> {
        match (self.price_in, self.price_out) {
            (None, None) => default,
            (i, o) => Some(Price { prompt: i.unwrap_or(0.0), completion: o.unwrap_or(0.0) }),
        }
    }

    /// The caps and prices.
    pub fn budget(&self, price: Option<Price>) -> Budget {
        let p = price.unwrap_or(Price { prompt: 0.0, completion: 0.0 });
        Budget::new(self.max_requests, self.max_cost, p.prompt, p.completion)
    }

    /// The sampling parameters: the flags, else `defaults` (an endpoint preset's), else
    /// temperature 0, top_p 1 and `default_max_tokens`.
    pub fn sampling(&self, defaults: &SamplingSpec, default_max_tokens: u32) -> Sampling {
        Sampling {
            temperature: self.temperature.or(defaults.temperature).unwrap_or(0.0),
            top_p: self.top_p.or(defaults.top_p).unwrap_or(1.0),
            max_tokens: self.max_tokens.or(defaults.max_tokens).unwrap_or(default_max_tokens),
            repetition_penalty: self.repetition_penalty.or(defaults.repetition_penalty),
            top_k: defaults.top_k,
        }
    }
}

/// Reads an API key from the first of `vars` that is set and not empty.
pub fn api_key(vars: &[&str]) -> Option<String> {
    vars.iter().find_map(|v| std::env::var(v).ok().filter(|k| !k.trim().is_empty()))
}
