//! One client for OpenAI-compatible chat completions (vLLM, SGLang, llama.cpp's server,
//! Ollama, OpenRouter, OpenAI): the LLM judge (`corpus judge`) and the `openai` OCR provider
//! both send their requests through it, so timeouts, retries, caps and the handling of the API
//! key are the same for both. The rules are in `docs/judge.md` §Client.
//!
//! - **HTTP**: `ureq` (blocking, rustls), one agent shared by every thread; a connect timeout
//!   and a read timeout (the reply must start, and finish, within it).
//! - **Retries**: a `429`, any `5xx`, `408`, a timeout or a broken connection is retried up to
//!   [`ClientConfig::max_retries`] times with exponential backoff (`backoff · 2^attempt`,
//!   at most 60 s); a `Retry-After` header in seconds is honoured instead (at most 300 s).
//!   Other `4xx` and a body that is not the protocol's JSON fail at once.
//! - **Caps**: [`Budget`] counts every HTTP request sent (retries too) and the tokens the
//!   server reports; once `max_requests` or the spend cap is reached no new request starts
//!   (requests in flight finish), and the caller says so.
//! - **The API key** is passed in by the caller from the environment; it goes into the
//!   `Authorization` header and nowhere else (never in an error, a log line, a trace or a
//!   cache key: `Debug` prints it as `<set>`).

pub mod testing;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

/// How to reach the server.
#[derive(Clone)]
pub struct ClientConfig {
    /// The API's base URL, up to and including `/v1` (`http://localhost:8000/v1`).
    pub base_url: String,
    /// The bearer token, if the server wants one (from the environment only).
    pub api_key: Option<String>,
    /// Time to establish the connection.
    pub connect_timeout: Duration,
    /// Time for the whole reply to arrive once the request is sent (a call, connecting
    /// included, never takes longer than both timeouts together).
    pub read_timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first backoff; doubled on every retry.
    pub backoff: Duration,
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff", &self.backoff)
            .finish()
    }
}

impl ClientConfig {
    /// A configuration with the defaults: 10 s to connect, 120 s to reply, 5 retries from 1 s.
    pub fn new(base_url: &str, api_key: Option<String>) -> ClientConfig {
        ClientConfig {
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key: api_key.filter(|k| !k.is_empty()),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(120),
            max_retries: 5,
            backoff: Duration::from_secs(1),
        }
    }
}

/// Why a call gave no usable reply.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmError {
    /// The request cap or the spend cap was reached before this call: nothing was sent.
    Capped(String),
    /// The server could not be reached, or did not answer in time, after every retry.
    Transport(String),
    /// The server answered with an error status (after every retry, for retryable ones).
    Status {
        /// The HTTP status.
        status: u16,
        /// The start of the body (the server's message).
        body: String,
    },
    /// The body is not a chat-completions reply.
    Malformed(String),
    /// The model refused, or the reply has no content.
    Refused(String),
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmError::Capped(m) => write!(f, "not sent: {m}"),
            LlmError::Transport(m) => write!(f, "{m}"),
            LlmError::Status { status, body } => write!(f, "HTTP {status}: {body}"),
            LlmError::Malformed(m) => write!(f, "malformed reply: {m}"),
            LlmError::Refused(m) => write!(f, "no answer: {m}"),
        }
    }
}

impl std::error::Error for LlmError {}

/// A chat-completions reply, reduced to what callers use.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatReply {
    /// `choices[0].message.content`.
    pub content: String,
    /// The `model` the server says answered (a revision, for servers that report one).
    pub model: Option<String>,
    /// `usage.prompt_tokens`.
    pub prompt_tokens: u64,
    /// `usage.completion_tokens`.
    pub completion_tokens: u64,
    /// `choices[0].finish_reason`.
    pub finish_reason: Option<String>,
}

/// Request and spend caps, shared by every thread of a run.
#[derive(Debug, Default)]
pub struct Budget {
    /// At most this many HTTP requests (retries count).
    pub max_requests: Option<u64>,
    /// At most this much spent, in the currency of the prices.
    pub max_cost: Option<f64>,
    /// Price per 1M prompt tokens.
    pub price_in: f64,
    /// Price per 1M completion tokens.
    pub price_out: f64,
    sent: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    stopped: AtomicBool,
}

impl Budget {
    /// A budget with these caps and prices.
    pub fn new(
        max_requests: Option<u64>,
        max_cost: Option<f64>,
        price_in: f64,
        price_out: f64,
    ) -> Budget {
        Budget { max_requests, max_cost, price_in, price_out, ..Default::default() }
    }

    /// Takes one request from the budget, or says which cap is reached.
    pub(crate) fn acquire(&self) -> Result<(), LlmError> {
        if let Some(c) = self.max_cost {
            let spent = self.cost();
            if spent >= c {
                self.stopped.store(true, Ordering::SeqCst);
                return Err(LlmError::Capped(format!(
                    "spend cap reached ({spent:.4} of {c:.4} spent)"
                )));
            }
        }
        let n = self.sent.fetch_add(1, Ordering::SeqCst);
        if let Some(m) = self.max_requests {
            if n >= m {
                self.sent.fetch_sub(1, Ordering::SeqCst);
                self.stopped.store(true, Ordering::SeqCst);
                return Err(LlmError::Capped(format!("request cap reached ({m} requests)")));
            }
        }
        Ok(())
    }

    /// Counts the tokens of one reply.
    pub fn record(&self, prompt: u64, completion: u64) {
        self.prompt_tokens.fetch_add(prompt, Ordering::SeqCst);
        self.completion_tokens.fetch_add(completion, Ordering::SeqCst);
    }

    /// HTTP requests sent.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    /// (prompt, completion) tokens the server reported.
    pub fn tokens(&self) -> (u64, u64) {
        (self.prompt_tokens.load(Ordering::SeqCst), self.completion_tokens.load(Ordering::SeqCst))
    }

    /// What the reported tokens cost at the given prices.
    pub fn cost(&self) -> f64 {
        let (p, c) = self.tokens();
        (p as f64 * self.price_in + c as f64 * self.price_out) / 1e6
    }

    /// Whether a cap stopped a request.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

/// A client: one HTTP agent and its configuration.
#[derive(Debug)]
pub struct Client {
    config: ClientConfig,
    agent: ureq::Agent,
}

fn truncate(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// What one attempt gave.
enum Attempt {
    Done(Result<Value, LlmError>),
    Retry(LlmError, Option<Duration>),
}

impl Client {
    /// A client for `config`.
    pub fn new(config: ClientConfig) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(config.connect_timeout))
            .timeout_recv_response(Some(config.read_timeout))
            .timeout_recv_body(Some(config.read_timeout))
            .timeout_per_call(Some(config.connect_timeout + config.read_timeout))
            .user_agent(concat!("corpus/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Client { config, agent }
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    fn attempt(&self, path: &str, body: Option<&[u8]>) -> Attempt {
        let url = format!("{}{path}", self.config.base_url);
        let result = match body {
            Some(b) => {
                let mut req = self.agent.post(&url).header("Content-Type", "application/json");
                if let Some(k) = &self.config.api_key {
                    req = req.header("Authorization", &format!("Bearer {k}"));
                }
                req.send(b)
            }
            None => {
                let mut req = self.agent.get(&url);
                if let Some(k) = &self.config.api_key {
                    req = req.header("Authorization", &format!("Bearer {k}"));
                }
                req.call()
            }
        };
        let mut resp = match result {
            Ok(r) => r,
            Err(e) => {
                let what = match &e {
                    ureq::Error::Timeout(t) => format!(
                        "no reply from {url} in time ({t}; connect {:?}, read {:?})",
                        self.config.connect_timeout, self.config.read_timeout
                    ),
                    ureq::Error::Io(io) => format!("{url}: {io}"),
                    ureq::Error::ConnectionFailed => format!("{url}: connection failed"),
                    ureq::Error::HostNotFound => {
                        return Attempt::Done(Err(LlmError::Transport(format!(
                            "{url}: host not found"
                        ))))
                    }
                    ureq::Error::BadUri(m) => {
                        return Attempt::Done(Err(LlmError::Transport(format!(
                            "bad base URL {}: {m}",
                            self.config.base_url
                        ))))
                    }
                    other => format!("{url}: {other}"),
                };
                return Attempt::Retry(LlmError::Transport(what), None);
            }
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|s| Duration::from_secs(s.min(300)));
        let text = match resp.body_mut().with_config().limit(64 << 20).read_to_string() {
            Ok(t) => t,
            Err(e) => {
                return Attempt::Retry(
                    LlmError::Transport(format!("{url}: reading the reply: {e}")),
                    None,
                )
            }
        };
        if status == 429 || status == 408 || status >= 500 {
            let err = LlmError::Status { status, body: truncate(text.trim(), 300) };
            return Attempt::Retry(err, retry_after);
        }
        if !(200..300).contains(&status) {
            return Attempt::Done(Err(LlmError::Status {
                status,
                body: truncate(text.trim(), 300),
            }));
        }
        Attempt::Done(
            serde_json::from_str::<Value>(&text)
                .map_err(|e| LlmError::Malformed(format!("{e}: {}", truncate(text.trim(), 200)))),
        )
    }

    /// Sends one request with retries; each attempt takes one request from `budget`.
    fn send(&self, path: &str, body: Option<&[u8]>, budget: &Budget) -> Result<Value, LlmError> {
        let mut attempt = 0u32;
        loop {
            budget.acquire()?;
            match self.attempt(path, body) {
                Attempt::Done(r) => return r,
                Attempt::Retry(e, after) => {
                    if attempt >= self.config.max_retries {
                        return Err(e);
                    }
                    let backoff = self.config.backoff.saturating_mul(1 << attempt.min(16));
                    let wait = after.unwrap_or(backoff.min(Duration::from_secs(60)));
                    tracing::debug!("retrying in {wait:?} after: {e}");
                    std::thread::sleep(wait);
                    attempt += 1;
                }
            }
        }
    }

    /// Sends a chat-completions request (`POST {base}/chat/completions`) and returns the
    /// first choice. A refusal (`message.refusal`, or no content with `finish_reason`
    /// `content_filter`) is [`LlmError::Refused`].
    pub fn chat(&self, request: &Value, budget: &Budget) -> Result<ChatReply, LlmError> {
        let body = serde_json::to_vec(request).map_err(|e| LlmError::Malformed(e.to_string()))?;
        let v = self.send("/chat/completions", Some(&body), budget)?;
        let usage = |k: &str| v["usage"][k].as_u64().unwrap_or(0);
        budget.record(usage("prompt_tokens"), usage("completion_tokens"));
        let choice = v["choices"].get(0).ok_or_else(|| {
            LlmError::Malformed(format!("no choices: {}", truncate(&v.to_string(), 200)))
        })?;
        let message = &choice["message"];
        let finish_reason = choice["finish_reason"].as_str().map(str::to_string);
        if let Some(r) = message["refusal"].as_str().filter(|r| !r.is_empty()) {
            return Err(LlmError::Refused(format!("the model refused: {}", truncate(r, 300))));
        }
        let content = match message["content"].as_str() {
            Some(c) => c.to_string(),
            None => {
                return Err(LlmError::Refused(format!(
                    "the reply has no content (finish_reason {})",
                    finish_reason.as_deref().unwrap_or("none")
                )))
            }
        };
        Ok(ChatReply {
            content,
            model: v["model"].as_str().map(str::to_string),
            prompt_tokens: usage("prompt_tokens"),
            completion_tokens: usage("completion_tokens"),
            finish_reason,
        })
    }

    /// The entries `GET {base}/models` lists (`id`, and for vLLM `root`, the weights it
    /// serves), if the server has that endpoint.
    pub fn models(&self, budget: &Budget) -> Result<Vec<Value>, LlmError> {
        let v = self.send("/models", None, budget)?;
        Ok(v["data"].as_array().cloned().unwrap_or_default())
    }
}

/// Sampling parameters, part of every cache key.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    /// `temperature`.
    pub temperature: f64,
    /// `top_p`.
    pub top_p: f64,
    /// `max_tokens`.
    pub max_tokens: u32,
    /// `repetition_penalty` (vLLM's and SGLang's extension), where a model's client sends it.
    pub repetition_penalty: Option<f64>,
    /// `top_k` (vLLM's and SGLang's extension), where a model's client sends it.
    pub top_k: Option<u32>,
}

impl Sampling {
    /// The canonical text of the parameters, for cache keys.
    pub fn canonical(&self) -> String {
        let mut s = format!(
            "temperature={};top_p={};max_tokens={}",
            self.temperature, self.top_p, self.max_tokens
        );
        if let Some(r) = self.repetition_penalty {
            s.push_str(&format!(";repetition_penalty={r}"));
        }
        if let Some(k) = self.top_k {
            s.push_str(&format!(";top_k={k}"));
        }
        s
    }

    /// Adds the parameters to a request body.
    pub(crate) fn apply(&self, request: &mut Value) {
        request["temperature"] = json!(self.temperature);
        request["top_p"] = json!(self.top_p);
        request["max_tokens"] = json!(self.max_tokens);
        if let Some(r) = self.repetition_penalty {
            request["repetition_penalty"] = json!(r);
        }
        if let Some(k) = self.top_k {
            request["top_k"] = json!(k);
        }
    }
}

/// The first JSON object in a text: the whole text if it parses as an object, else the first
/// balanced `{…}` (strings and escapes respected) that parses, as a model wraps JSON in prose
/// or a Markdown fence when structured output is not enforced.
pub(crate) fn first_json_object(text: &str) -> Option<Value> {
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(text.trim()) {
        return Some(v);
    }
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(off) = text[start..].find('{') {
        let open = start + off;
        let (mut depth, mut in_str, mut esc) = (0i32, false, false);
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            if in_str {
                match (esc, b) {
                    (true, _) => esc = false,
                    (false, b'\\') => esc = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if let Ok(v @ Value::Object(_)) = serde_json::from_str(&text[open..=i]) {
                            return Some(v);
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
        start = open + 1;
    }
    None
}

/// Runs `work` on every item with at most `threads` at a time and hands each result to `sink`
/// on the calling thread as it arrives (so the caller, the store's only writer, can store it
/// at once). `work` returning `None` stops the run: no new item starts (items in flight
/// finish and reach `sink`). Returns the number of items whose work ran.
pub(crate) fn for_each_bounded<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&T) -> Option<R> + Sync,
    mut sink: impl FnMut(usize, R),
) -> usize {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let ran = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, R)>();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(items.len().max(1)) {
            let tx = tx.clone();
            let (next, stop, ran, work) = (&next, &stop, &ran, &work);
            s.spawn(move || loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(i) else { break };
                ran.fetch_add(1, Ordering::SeqCst);
                match work(item) {
                    Some(r) => {
                        if tx.send((i, r)).is_err() {
                            break;
                        }
                    }
                    None => stop.store(true, Ordering::SeqCst),
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            sink(i, r);
        }
    });
    ran.load(Ordering::SeqCst)
}

#[cfg(test)]
mod tests;
