//! The client against the local test server: every path of a call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::testing::{chat_json, Reply, TestServer};
use super::*;

fn client(server: &TestServer) -> Client {
    let mut c = ClientConfig::new(&server.base_url(), Some("sk-test-secret".into()));
    c.backoff = Duration::from_millis(10);
    c.read_timeout = Duration::from_millis(500);
    c.max_retries = 3;
    Client::new(c)
}

fn request() -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
           "response_format": {"type": "json_schema", "json_schema": {"name": "x", "strict": true,
             "schema": {"type": "object"}}}})
}

fn status(code: u16, headers: &[(&str, &str)]) -> Reply {
    Reply::Raw {
        status: code,
        headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        body: r#"{"error": {"message": "busy"}}"#.into(),
    }
}

#[test]
fn the_request_has_the_protocols_shape_and_the_key_only_in_its_header() {
    let server = TestServer::start(|_, _| Reply::Json(chat_json(r#"{"score": 7}"#, "m-rev-1")));
    let budget = Budget::default();
    let r = client(&server).chat(&request(), &budget).unwrap();
    assert_eq!(r.content, r#"{"score": 7}"#);
    assert_eq!(r.model.as_deref(), Some("m-rev-1"));
    assert_eq!((r.prompt_tokens, r.completion_tokens), (100, 20));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!((reqs[0].method.as_str(), reqs[0].path.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-test-secret"));
    assert_eq!(reqs[0].header("content-type"), Some("application/json"));
    assert_eq!(reqs[0].json(), request());
    assert_eq!(budget.tokens(), (100, 20));
    // The key is never printed.
    assert!(!format!("{:?}", client(&server)).contains("sk-test-secret"));
}

#[test]
fn a_429_waits_for_retry_after_then_succeeds() {
    let server = TestServer::start(|n, _| match n {
        0 => status(429, &[("Retry-After", "1")]),
        _ => Reply::Json(chat_json("ok", "m")),
    });
    let t = Instant::now();
    let budget = Budget::default();
    let r = client(&server).chat(&request(), &budget).unwrap();
    assert_eq!(r.content, "ok");
    assert_eq!(server.calls(), 2);
    assert!(t.elapsed() >= Duration::from_secs(1), "Retry-After honoured: {:?}", t.elapsed());
    assert_eq!(budget.sent(), 2);
}

#[test]
fn a_500_is_retried_and_a_401_is_not() {
    let server = TestServer::start(|n, _| match n {
        0 | 1 => status(500, &[]),
        _ => Reply::Json(chat_json("ok", "m")),
    });
    assert_eq!(client(&server).chat(&request(), &Budget::default()).unwrap().content, "ok");
    assert_eq!(server.calls(), 3);

    let server = TestServer::start(|_, _| status(401, &[]));
    let e = client(&server).chat(&request(), &Budget::default()).unwrap_err();
    assert!(matches!(e, LlmError::Status { status: 401, .. }), "{e}");
    assert_eq!(server.calls(), 1);

    // Retries run out: the last status is the error.
    let server = TestServer::start(|_, _| status(503, &[]));
    let e = client(&server).chat(&request(), &Budget::default()).unwrap_err();
    assert!(e.to_string().contains("HTTP 503"), "{e}");
    assert_eq!(server.calls(), 4);
}

#[test]
fn a_hang_past_the_read_timeout_is_retried() {
    let server = TestServer::start(|n, _| match n {
        0 => Reply::Hang(Duration::from_secs(3)),
        _ => Reply::Json(chat_json("late but fine", "m")),
    });
    let t = Instant::now();
    let r = client(&server).chat(&request(), &Budget::default()).unwrap();
    assert_eq!(r.content, "late but fine");
    assert_eq!(server.calls(), 2);
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "the client gave up on the hang: {:?}",
        t.elapsed()
    );

    let server = TestServer::start(|_, _| Reply::Hang(Duration::from_secs(3)));
    let mut c = ClientConfig::new(&server.base_url(), None);
    c.read_timeout = Duration::from_millis(200);
    c.max_retries = 0;
    let e = Client::new(c).chat(&request(), &Budget::default()).unwrap_err();
    assert!(matches!(e, LlmError::Transport(_)) && e.to_string().contains("in time"), "{e}");
}

#[test]
fn malformed_json_and_refusals_are_clear_errors() {
    let server = TestServer::start(|_, _| Reply::Raw {
        status: 200,
        headers: vec![],
        body: "<html>proxy error</html>".into(),
    });
    let e = client(&server).chat(&request(), &Budget::default()).unwrap_err();
    assert!(matches!(e, LlmError::Malformed(_)) && e.to_string().contains("proxy error"), "{e}");
    assert_eq!(server.calls(), 1, "not retried");

    let server = TestServer::start(|_, _| {
        Reply::Json(json!({"model": "m", "choices": [{"finish_reason": "stop",
            "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}}]}))
    });
    let e = client(&server).chat(&request(), &Budget::default()).unwrap_err();
    assert!(matches!(e, LlmError::Refused(_)) && e.to_string().contains("can't help"), "{e}");

    let server = TestServer::start(|_, _| {
        Reply::Json(json!({"model": "m", "choices": [{"finish_reason": "content_filter",
            "message": {"role": "assistant", "content": null}}]}))
    });
    let e = client(&server).chat(&request(), &Budget::default()).unwrap_err();
    assert!(e.to_string().contains("content_filter"), "{e}");
}

#[test]
fn caps_stop_before_sending() {
    let server = TestServer::start(|_, _| Reply::Json(chat_json("ok", "m")));
    let c = client(&server);
    let budget = Budget::new(Some(2), None, 0.0, 0.0);
    c.chat(&request(), &budget).unwrap();
    c.chat(&request(), &budget).unwrap();
    let e = c.chat(&request(), &budget).unwrap_err();
    assert!(matches!(e, LlmError::Capped(_)) && e.to_string().contains("request cap"), "{e}");
    assert_eq!(server.calls(), 2);
    assert!(budget.stopped());

    // 120 tokens a call at 1000 per 1M in and out: 0.12 per call; a cap of 0.2 allows two.
    let budget = Budget::new(None, Some(0.2), 1000.0, 1000.0);
    c.chat(&request(), &budget).unwrap();
    c.chat(&request(), &budget).unwrap();
    let e = c.chat(&request(), &budget).unwrap_err();
    assert!(e.to_string().contains("spend cap"), "{e}");
    assert_eq!(server.calls(), 4);
}

#[test]
fn the_first_json_object_is_found_in_prose_and_fences() {
    assert_eq!(first_json_object(r#"{"score": 3}"#), Some(json!({"score": 3})));
    let fenced = "Here you go:\n```json\n{\"errors\": [\"a } b\"], \"score\": 8}\n```\nDone.";
    assert_eq!(first_json_object(fenced), Some(json!({"errors": ["a } b"], "score": 8})));
    assert_eq!(first_json_object("{not json} then {\"score\": 1}"), Some(json!({"score": 1})));
    assert_eq!(first_json_object("score: 7"), None);
}

#[test]
fn bounded_work_never_exceeds_its_threads_and_stops_on_none() {
    let (live, peak) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let items: Vec<usize> = (0..20).collect();
    let mut got = Vec::new();
    for_each_bounded(
        &items,
        3,
        |&i| {
            let n = live.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(5));
            live.fetch_sub(1, Ordering::SeqCst);
            Some(i * 2)
        },
        |i, r| got.push((i, r)),
    );
    got.sort();
    assert_eq!(got.len(), 20);
    assert_eq!(got[7], (7, 14));
    assert!(peak.load(Ordering::SeqCst) <= 3);

    let mut seen = 0;
    for_each_bounded(&items, 1, |&i| (i < 5).then_some(i), |_, _| seen += 1);
    assert_eq!(seen, 5);
}
