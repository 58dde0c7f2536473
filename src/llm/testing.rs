//! A chat-completions server for tests, on `127.0.0.1`, speaking just enough HTTP/1.1: it
//! records every request (method, path, headers, body), counts them, and answers each with
//! what the test's handler says — a reply, an error status with headers (`429` with
//! `Retry-After`, `500`), malformed JSON, a refusal, or silence past the client's timeout. The
//! unit tests of the client and the end-to-end tests of `judge` and `ocr --provider openai`
//! use it; nothing in it reaches the internet.

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
