//! The options every command that talks to a model behind an OpenAI-compatible endpoint
//! shares (`judge`, `ocr --provider openai`): where the server is, timeouts, retries,
//! concurrency, sampling, and the request and spend caps. The API key is read from the
//! environment only (docs/judge.md §Client).

use std::time::Duration;

use clap::Args;
use corpus::llm::{Budget, Client, ClientConfig, Sampling};

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
    /// Price per 1M prompt tokens, for --max-cost and the cost printed
    #[arg(long, default_value_t = 0.0)]
    pub price_in: f64,
    /// Price per 1M completion tokens
    #[arg(long, default_value_t = 0.0)]
    pub price_out: f64,
    /// Sampling temperature (part of the cache key)
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f64,
    /// Nucleus sampling top_p (part of the cache key)
    #[arg(long, default_value_t = 1.0)]
    pub top_p: f64,
    /// Most tokens per reply (part of the cache key) [default: 2000 for judge, 8000 for ocr]
    #[arg(long)]
    pub max_tokens: Option<u32>,
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
        if self.max_cost.is_some() && self.price_in == 0.0 && self.price_out == 0.0 {
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

    /// The caps and prices.
    pub fn budget(&self) -> Budget {
        Budget::new(self.max_requests, self.max_cost, self.price_in, self.price_out)
    }

    /// The sampling parameters, `max_tokens` defaulting to `default_max_tokens`.
    pub fn sampling(&self, default_max_tokens: u32) -> Sampling {
        Sampling {
            temperature: self.temperature,
            top_p: self.top_p,
            max_tokens: self.max_tokens.unwrap_or(default_max_tokens),
        }
    }
}

/// Reads an API key from the first of `vars` that is set and not empty.
pub fn api_key(vars: &[&str]) -> Option<String> {
    vars.iter().find_map(|v| std::env::var(v).ok().filter(|k| !k.trim().is_empty()))
}
