//! The judge's prompts, reply parsing and cache, and a formula judge run against the local
//! test server.

use std::time::Duration;

use super::*;
use crate::llm::testing::{chat_json, Reply, TestServer};
use crate::llm::ClientConfig;
use crate::progress::NoProgress;

fn judge(model: &str) -> Judge {
    Judge {
        model: model.into(),
        sampling: Sampling {
            temperature: 0.0,
            top_p: 1.0,
            max_tokens: 2000,
            repetition_penalty: None,
            top_k: None,
        },
        structured: true,
        concurrency: 4,
    }
}

#[test]
fn prompts_have_both_placeholders_and_render_them() {
    for kind in [Kind::Table, Kind::Formula] {
        let p = Prompt::current(kind);
        assert!(p.text.contains("{{gt}}") && p.text.contains("{{prediction}}"), "{}", p.name());
        let r = p.render(" GT-SIDE ", "PRED-SIDE");
        assert!(r.contains("GT-SIDE\n") && r.contains("PRED-SIDE") && !r.contains("{{"));
        assert_eq!(p.schema()["required"].as_array().unwrap().last().unwrap(), "score");
    }
    assert_eq!(Prompt::current(Kind::Table).name(), "table-v1");
    assert_eq!(judge("m").metric(&Prompt::current(Kind::Formula)), "judge:m@v1");
}

#[test]
fn verdicts_are_read_from_json_prose_or_a_bare_integer() {
    assert_eq!(
        parse_verdict(Kind::Table, r#"{"errors": ["1.12 became 112"], "score": 4}"#),
        Ok((4, vec!["1.12 became 112".to_string()]))
    );
    assert_eq!(
        parse_verdict(Kind::Table, "Sure! ```json\n{\"errors\": [], \"score\": 12}\n```"),
        Ok((10, vec![]))
    );
    assert_eq!(parse_verdict(Kind::Formula, "8"), Ok((8, vec![])));
    assert_eq!(parse_verdict(Kind::Formula, "Score: 7/10"), Ok((7, vec![])));
    assert!(parse_verdict(Kind::Table, "looks fine to me").unwrap_err().contains("no score"));
}

#[test]
fn the_cache_key_changes_with_every_input_it_names() {
    let t = Prompt::current(Kind::Table);
    let f = Prompt::current(Kind::Formula);
    let j = judge("m");
    let base = j.cache_key(&t, "gt", "pred");
    assert_eq!(base, judge("m").cache_key(&t, "gt", "pred"));
    let mut hot = judge("m");
    hot.sampling.temperature = 0.7;
    let mut free = judge("m");
    free.structured = false;
    for other in [
        judge("m2").cache_key(&t, "gt", "pred"),
        j.cache_key(&f, "gt", "pred"),
        j.cache_key(&Prompt { version: "v2", ..t }, "gt", "pred"),
        hot.cache_key(&t, "gt", "pred"),
        free.cache_key(&t, "gt", "pred"),
        j.cache_key(&t, "gt2", "pred"),
        j.cache_key(&t, "gt", "pred2"),
        j.cache_key(&t, "gtp", "red"),
    ] {
        assert_ne!(other, base);
    }
}

#[test]
fn the_request_carries_the_schema_and_the_sampling() {
    let r = judge("m").request(&Prompt::current(Kind::Table), "G", "P");
    assert_eq!(r["model"], "m");
    assert_eq!(
        (r["temperature"].as_f64(), r["top_p"].as_f64(), r["max_tokens"].as_u64()),
        (Some(0.0), Some(1.0), Some(2000))
    );
    assert_eq!(r["response_format"]["type"], "json_schema");
    assert_eq!(r["response_format"]["json_schema"]["strict"], true);
    assert!(r["messages"][0]["content"].as_str().unwrap().contains("G\n"));
    let mut free = judge("m");
    free.structured = false;
    assert!(free.request(&Prompt::current(Kind::Table), "G", "P").get("response_format").is_none());
}

fn triples() -> Vec<(String, String, String)> {
    vec![
        ("a".into(), r"\frac{1}{2}".into(), r"\frac12".into()),
        ("b".into(), "x^2".into(), "x_2".into()),
        ("c".into(), "E=mc^2".into(), "E=mc^2".into()),
    ]
}

#[test]
fn formula_pairs_are_judged_once_and_a_rerun_or_dry_run_sends_nothing() {
    let server = TestServer::start(|_, req| {
        let prompt = req.json()["messages"][0]["content"].as_str().unwrap_or("").to_string();
        // The judge says 10 for identical sides, 3 otherwise; a bare integer for one pair.
        if prompt.contains("x_2") {
            Reply::Json(chat_json("3", "judge-rev-7"))
        } else if prompt.contains("E=mc^2\n\nExtracted formula:\nE=mc^2") {
            Reply::Json(chat_json(r#"{"score": 10}"#, "judge-rev-7"))
        } else {
            Reply::Json(chat_json(r#"{"score": 9}"#, "judge-rev-7"))
        }
    });
    let mut cfg = ClientConfig::new(&server.base_url(), None);
    cfg.backoff = Duration::from_millis(5);
    let client = Client::new(cfg);
    let mut store = Store::open_in_memory().unwrap();
    let j = judge("m");
    let budget = Budget::default();
    let (out, asked) =
        judge_pairs(&mut store, Some(&client), &budget, &j, Kind::Formula, &triples(), &NoProgress)
            .unwrap();
    assert_eq!(server.calls(), 3);
    assert_eq!((asked.asked, asked.cached), (3, 0));
    let scores: Vec<Option<u8>> = out.iter().map(|p| p.score).collect();
    assert_eq!(scores, [Some(9), Some(3), Some(10)]);
    assert_eq!(out[1].value, Some(0.3));
    assert_eq!(store.llm_reply_count("judge:formula").unwrap(), 3);

    // Again: every verdict is stored, nothing is sent.
    let (again, asked) =
        judge_pairs(&mut store, Some(&client), &budget, &j, Kind::Formula, &triples(), &NoProgress)
            .unwrap();
    assert_eq!(server.calls(), 3);
    assert_eq!((asked.asked, asked.cached), (0, 3));
    assert_eq!(again.iter().map(|p| p.score).collect::<Vec<_>>(), scores);

    // Another model: a dry run sends nothing and says what is missing.
    let (dry, asked) = judge_pairs(
        &mut store,
        None,
        &budget,
        &judge("m2"),
        Kind::Formula,
        &triples(),
        &NoProgress,
    )
    .unwrap();
    assert_eq!(server.calls(), 3);
    assert_eq!(asked.errors.len(), 3);
    assert!(dry.iter().all(|p| p.score.is_none()));
}

#[test]
fn a_cap_stops_cleanly_and_keeps_what_arrived() {
    let server = TestServer::start(|_, _| Reply::Json(chat_json(r#"{"score": 5}"#, "m")));
    let client = Client::new(ClientConfig::new(&server.base_url(), None));
    let mut store = Store::open_in_memory().unwrap();
    let mut j = judge("m");
    j.concurrency = 1;
    let budget = Budget::new(Some(2), None, 0.0, 0.0);
    let (out, asked) =
        judge_pairs(&mut store, Some(&client), &budget, &j, Kind::Formula, &triples(), &NoProgress)
            .unwrap();
    assert_eq!(server.calls(), 2);
    assert!(asked.stopped.as_deref().unwrap().contains("request cap of 2"), "{:?}", asked.stopped);
    assert_eq!(out.iter().filter(|p| p.score.is_some()).count(), 2);
    assert!(out[2].error.as_deref().unwrap().contains("cap"));
    // The next run asks only the third.
    let budget = Budget::default();
    let (_, asked) =
        judge_pairs(&mut store, Some(&client), &budget, &j, Kind::Formula, &triples(), &NoProgress)
            .unwrap();
    assert_eq!((asked.asked, asked.cached, server.calls()), (1, 2, 3));
}

#[test]
fn unparseable_and_refused_replies_are_errors_not_scores() {
    let server = TestServer::start(|n, _| match n {
        0 => Reply::Json(chat_json("I would rather not say.", "m")),
        _ => Reply::Json(serde_json::json!({"model": "m", "choices": [{"finish_reason": "stop",
            "message": {"role": "assistant", "content": null, "refusal": "no"}}]})),
    });
    let client = Client::new(ClientConfig::new(&server.base_url(), None));
    let mut store = Store::open_in_memory().unwrap();
    let mut j = judge("m");
    j.concurrency = 1;
    let t = vec![("a".into(), "x".into(), "y".into()), ("b".into(), "p".into(), "q".into())];
    let (out, _) = judge_pairs(
        &mut store,
        Some(&client),
        &Budget::default(),
        &j,
        Kind::Table,
        &t,
        &NoProgress,
    )
    .unwrap();
    assert!(out[0].error.as_deref().unwrap().contains("no score in the reply"), "{:?}", out[0]);
    assert!(out[1].error.as_deref().unwrap().contains("refused"), "{:?}", out[1]);
    assert_eq!(store.llm_reply_count("judge:table").unwrap(), 0, "failures are not cached");
}
