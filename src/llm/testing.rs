//! A chat-completions server for tests, on `127.0.0.1`, speaking just enough HTTP/1.1: it
//! records every request (method, path, headers, body), counts them, and answers each with
//! what the test's handler says — a reply, an error status with headers (`429` with
//! `Retry-After`, `500`), malformed JSON, a refusal, or silence past the client's timeout. The
//! unit tests of the client and the end-to-end tests of `judge` and `ocr --provider openai`
//! use it; nothing in it reaches the internet.
//!
//! [`TestServer::vllm`] adds what a vLLM server checks of a chat request before any model
//! runs ([`VllmRules`]): the context (`max_model_len`) against `max_tokens` and an estimate of
//! the prompt's tokens, answered with vLLM's 400 and message, and `vllm_xargs` read with the
//! types vLLM's request model accepts. The rules are in `docs/endpoints.md` §Context.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`, `GET`.
    pub method: String,
    /// The path, `/v1/chat/completions`.
    pub path: String,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Recorded {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The request's `vllm_xargs`, as vLLM hands them to its logits processors
    /// (`SamplingParams.extra_args`), if it sent any.
    pub fn vllm_xargs(&self) -> Option<serde_json::Map<String, Value>> {
        self.json().get("vllm_xargs")?.as_object().cloned()
    }
}

/// What a vLLM server checks of a chat-completions request without a model: its context
/// (`--max-model-len`) against the reply's `max_tokens` and the prompt's tokens.
///
/// The prompt's tokens are estimated, a rule stated here (the test server has no tokenizer):
/// each message's text, one token per 4 bytes rounded up, plus 4 tokens for the chat
/// template's markers around it; each PNG image, one token per 28 × 28 pixel cell started
/// (Qwen2-VL's 14-pixel patches merged 2 × 2; other encoders are near it or below it).
/// vLLM itself counts the rendered template's tokens when it checks `max_tokens`, and the
/// image's tokens count against the same context once the engine expands them: a request
/// past either limit fails, here with a 400.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VllmRules {
    /// The served context, `max_model_len`.
    pub context: u64,
}

/// A vLLM error reply: status 400 and its `ErrorResponse` body.
pub fn vllm_error(message: &str, param: &str) -> Reply {
    Reply::Raw {
        status: 400,
        headers: Vec::new(),
        body: json!({"error": {"message": message, "type": "BadRequestError",
                               "param": param, "code": 400}})
        .to_string(),
    }
}

impl VllmRules {
    /// The stated estimate of a request's prompt tokens (see [`VllmRules`]), or why an image
    /// part cannot be read.
    pub fn prompt_tokens(body: &Value) -> Result<u64, String> {
        let mut n = 0u64;
        for m in body["messages"].as_array().map(Vec::as_slice).unwrap_or_default() {
            n += 4;
            let parts = match &m["content"] {
                Value::String(s) => vec![json!({"type": "text", "text": s})],
                Value::Array(a) => a.clone(),
                _ => Vec::new(),
            };
            for p in parts {
                if let Some(t) = p["text"].as_str() {
                    n += (t.len() as u64).div_ceil(4);
                }
                if let Some(url) = p["image_url"]["url"].as_str() {
                    let (w, h) = png_size(url).ok_or("an image_url that is not a PNG data URL")?;
                    n += u64::from(w.div_ceil(28)) * u64::from(h.div_ceil(28));
                }
            }
        }
        Ok(n)
    }

    /// `None` where vLLM would take the request; else its 400 reply with vLLM's message.
    pub fn check(&self, body: &Value) -> Option<Reply> {
        if let Some(x) = body.get("vllm_xargs").filter(|x| !x.is_null()) {
            // ChatCompletionRequest.vllm_xargs: dict[str, str | int | float | list[str | int | float]]
            // (pydantic's lax mode takes a JSON boolean as an int.)
            let scalar = |v: &Value| v.is_string() || v.is_number() || v.is_boolean();
            let ok = x.as_object().is_some_and(|o| {
                o.values().all(|v| scalar(v) || v.as_array().is_some_and(|a| a.iter().all(scalar)))
            });
            if !ok {
                return Some(vllm_error(
                    &format!("1 validation error for ChatCompletionRequest\nvllm_xargs\n  Input should be a dictionary of strings, numbers or lists of them [input_value={x}]"),
                    "vllm_xargs",
                ));
            }
        }
        let (asked, param) = match body.get("max_completion_tokens").and_then(Value::as_u64) {
            Some(m) => (m, "max_completion_tokens"),
            None => (body.get("max_tokens").and_then(Value::as_u64).unwrap_or(0), "max_tokens"),
        };
        let c = self.context;
        if asked > c {
            // vllm/renderers/params.py TokenizeParams.__post_init__, its spacing as it is.
            return Some(vllm_error(
                &format!("{param}={asked}cannot be greater than max_model_len=max_total_tokens={c}. Please request fewer output tokens."),
                param,
            ));
        }
        let prompt = match Self::prompt_tokens(body) {
            Ok(n) => n,
            Err(e) => return Some(vllm_error(&e, "messages")),
        };
        if prompt > c - asked {
            // TokenizeParams._token_len_check.
            return Some(vllm_error(
                &format!("You passed {prompt} input tokens and requested {asked} output tokens. However, the model's context length is only {c} tokens, resulting in a maximum input length of {} tokens. Please reduce the length of the input prompt.", c - asked),
                "input_tokens",
            ));
        }
        None
    }
}

/// The size of a PNG sent as a base64 data URL.
fn png_size(url: &str) -> Option<(u32, u32)> {
    use base64::Engine as _;
    let b64 = url.strip_prefix("data:image/png;base64,")?;
    // The header is in the first 24 bytes: 32 base64 characters.
    let head = base64::engine::general_purpose::STANDARD.decode(b64.get(..32)?).ok()?;
    if !head.starts_with(b"\x89PNG\r\n\x1a\n") {
        return None;
    }
    let be = |i: usize| Some(u32::from_be_bytes(head.get(i..i + 4)?.try_into().ok()?));
    Some((be(16)?, be(20)?))
}

/// What the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `200` with this JSON body.
    Json(Value),
    /// Any status, headers and raw body.
    Raw {
        /// The status.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// The body.
        body: String,
    },
    /// Nothing for this long, then the connection is closed.
    Hang(Duration),
}

type Handler = dyn Fn(usize, &Recorded) -> Reply + Send + Sync;

/// A running test server; stops when dropped.
pub struct TestServer {
    addr: std::net::SocketAddr,
    log: Arc<Mutex<Vec<Recorded>>>,
    done: Arc<AtomicBool>,
}

/// A chat-completions reply whose first choice says `content`.
pub fn chat_json(content: &str, model: &str) -> Value {
    json!({
        "id": "chatcmpl-test", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    })
}

fn read_request(stream: &mut TcpStream) -> Option<Recorded> {
    let mut r = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Recorded { method, path, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

fn write_reply(stream: &mut TcpStream, reply: Reply) {
    let (status, headers, body) = match reply {
        Reply::Json(v) => (200, Vec::new(), v.to_string()),
        Reply::Raw { status, headers, body } => (status, headers, body),
        Reply::Hang(d) => {
            std::thread::sleep(d);
            return;
        }
    };
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

impl TestServer {
    /// Starts a server answering request number `n` (0-based, in arrival order) with
    /// `handler(n, &request)`.
    pub fn start(
        handler: impl Fn(usize, &Recorded) -> Reply + Send + Sync + 'static,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding a local port");
        let addr = listener.local_addr().expect("local address");
        let log: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let done = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (log2, done2) = (log.clone(), done.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if done2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let (log, handler) = (log2.clone(), handler.clone());
                std::thread::spawn(move || {
                    let Some(req) = read_request(&mut stream) else { return };
                    let n = {
                        let mut l = log.lock().unwrap();
                        l.push(req.clone());
                        l.len() - 1
                    };
                    write_reply(&mut stream, handler(n, &req));
                });
            }
        });
        TestServer { addr, log, done }
    }

    /// Starts a server that checks every chat request as vLLM does under `rules` (a 400 with
    /// vLLM's message where vLLM would refuse it) and answers the others with `handler`.
    pub fn vllm(
        rules: VllmRules,
        handler: impl Fn(usize, &Recorded) -> Reply + Send + Sync + 'static,
    ) -> TestServer {
        TestServer::start(move |n, req| {
            if req.path.ends_with("/chat/completions") {
                if let Some(refused) = rules.check(&req.json()) {
                    return refused;
                }
            }
            handler(n, req)
        })
    }

    /// The base URL to give a client: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Requests received so far.
    pub fn calls(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}
