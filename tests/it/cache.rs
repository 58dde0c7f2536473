//! The cache: a hit provably skips the provider; every key input re-runs it.

use std::sync::atomic::{AtomicUsize, Ordering};

use corpus::doc::{BBox, Block, BlockKind, Doc};
use corpus::progress::NoProgress;
use corpus::providers::runner::{run_ocr, Executor, OcrOptions};
use corpus::providers::{Engine, PageSelection, Provider};
use corpus::store::{IngestDoc, Store};
use serde_json::json;

/// Counts every call to `run`, and returns a paragraph naming its config.
struct CountingProvider {
    calls: &'static AtomicUsize,
    version: u32,
    digest: &'static str,
    fail: bool,
}

struct CountingEngine {
    calls: &'static AtomicUsize,
    fail: bool,
}

impl Provider for CountingProvider {
    fn id(&self) -> &'static str {
        "counting"
    }
    fn description(&self) -> &'static str {
        "counts calls"
    }
    fn adapter_version(&self) -> u32 {
        self.version
    }
    fn model_digest(&self) -> corpus::Result<String> {
        Ok(self.digest.into())
    }
    fn config(&self) -> serde_json::Value {
        json!({"fail": self.fail})
    }
    fn load(&self) -> corpus::Result<Box<dyn Engine>> {
        Ok(Box::new(CountingEngine { calls: self.calls, fail: self.fail }))
    }
}

impl Engine for CountingEngine {
    fn run(&mut self, pdf: &[u8], _: &PageSelection) -> Result<Doc, String> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.fail {
            return Err("deliberate failure".into());
        }
        let text = String::from_utf8_lossy(pdf).into_owned();
        Ok(Doc {
            pages: vec![],
            blocks: vec![Block::new(BlockKind::Paragraph, 0, BBox::default(), text)],
            markdown: None,
            meta: None,
        })
    }
}

fn store_with(n: usize) -> Store {
    let mut s = Store::open_in_memory().unwrap();
    for i in 0..n {
        let bytes = format!("%PDF-1.4 doc {i}");
        s.ingest(&IngestDoc {
            dataset: "d",
            name: &format!("doc{i}"),
            source_path: "x",
            pdf: corpus::store::PdfData::Bytes(bytes.as_bytes()),
            pages: 1,
            truths: &[],
            attributes: &[],
        })
        .unwrap();
    }
    s
}

fn opts(p: &dyn Provider, retry: bool) -> OcrOptions<'_> {
    OcrOptions {
        provider: p,
        dataset: None,
        pages: PageSelection::All,
        retry_errors: retry,
        fail_fast: false,
        executor: Executor::InProcess,
        run: None,
        device: "cpu",
    }
}

#[test]
fn a_cache_hit_skips_the_provider() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let p = CountingProvider { calls: &CALLS, version: 1, digest: "m1", fail: false };
    let mut s = store_with(3);
    let first = run_ocr(&mut s, &opts(&p, false), &NoProgress).unwrap();
    assert_eq!((first.ran, first.ok, first.cached), (3, 3, 0));
    assert_eq!(CALLS.load(Ordering::SeqCst), 3);
    let second = run_ocr(&mut s, &opts(&p, false), &NoProgress).unwrap();
    assert_eq!((second.ran, second.cached), (0, 3));
    assert_eq!(CALLS.load(Ordering::SeqCst), 3, "a cache hit must not call the provider");

    // A new adapter version or model digest is a new key: everything re-runs, beside the old.
    let v2 = CountingProvider { calls: &CALLS, version: 2, digest: "m1", fail: false };
    assert_eq!(run_ocr(&mut s, &opts(&v2, false), &NoProgress).unwrap().ran, 3);
    let m2 = CountingProvider { calls: &CALLS, version: 1, digest: "m2", fail: false };
    assert_eq!(run_ocr(&mut s, &opts(&m2, false), &NoProgress).unwrap().ran, 3);
    assert_eq!(CALLS.load(Ordering::SeqCst), 9);
    let outputs: i64 =
        s.connection().query_row("SELECT count(*) FROM outputs", [], |r| r.get(0)).unwrap();
    assert_eq!(outputs, 9);
}

#[test]
fn failures_are_cached_and_retried_only_when_asked() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let p = CountingProvider { calls: &CALLS, version: 1, digest: "m", fail: true };
    let mut s = store_with(2);
    let first = run_ocr(&mut s, &opts(&p, false), &NoProgress).unwrap();
    assert_eq!((first.failed, first.failures.len()), (2, 2));
    assert_eq!(first.failures[0].error, "deliberate failure");
    let again = run_ocr(&mut s, &opts(&p, false), &NoProgress).unwrap();
    assert_eq!((again.ran, again.cached_errors), (0, 2));
    assert_eq!(CALLS.load(Ordering::SeqCst), 2);
    let retried = run_ocr(&mut s, &opts(&p, true), &NoProgress).unwrap();
    assert_eq!(retried.ran, 2);
    assert_eq!(CALLS.load(Ordering::SeqCst), 4);
    let (rows, errs): (i64, i64) = s
        .connection()
        .query_row("SELECT count(*), sum(status = 'error') FROM v_outputs", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((rows, errs), (2, 2), "a retry replaces the failure row, never adds one");
}
