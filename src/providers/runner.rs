//! Runs a provider over the documents that have no cached output for it.
//!
//! The parent (this module) decides what to run by cache key, hands documents to worker
//! processes (`corpus __worker`, see [`super::worker`]) and writes every result itself, one
//! transaction per document, so the store has one writer and a killed run loses at most the
//! documents in flight. A worker that exceeds the per-document time limit is killed; one that
//! dies is replaced; either way the document is recorded as a failure and the batch goes on.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::key::{canonical_json, CacheKey, PageSelection};
use super::worker::{run_one, Reply};
use super::Provider;
use crate::error::{Error, Result};
use crate::process::WorkerProc;
use crate::progress::Progress;
pub use crate::store::Usage;
use crate::store::{DocumentRow, NewOutput, RunId, Store};

/// How the documents are parsed.
#[derive(Debug, Clone)]
pub enum Executor {
    /// In this process, one after another, with no time limit (tests, debugging).
    InProcess,
    /// In `jobs` threads of this process, each with its own engine and read-only store
    /// connection: for providers that isolate their work themselves (the `command`
    /// provider runs an external process under its own time limit).
    Threads {
        /// The store file the threads read PDFs from.
        db: PathBuf,
        /// Read it as an immutable snapshot, without locks (a task of a sharded run).
        snapshot: bool,
        /// Number of threads.
        jobs: usize,
    },
    /// In `jobs` worker processes started as `exe __worker ...`.
    Workers {
        /// The `corpus` binary.
        exe: PathBuf,
        /// The store file the workers read PDFs from.
        db: PathBuf,
        /// Read it as an immutable snapshot, without locks (a task of a sharded run).
        snapshot: bool,
        /// Number of worker processes.
        jobs: usize,
        /// Per-document time limit.
        timeout: Duration,
    },
}

/// What to run.
pub struct OcrOptions<'a> {
    /// The provider.
    pub provider: &'a dyn Provider,
    /// Only documents named in this dataset.
    pub dataset: Option<&'a str>,
    /// Pages to parse.
    pub pages: PageSelection,
    /// Re-run documents whose cached result is a failure.
    pub retry_errors: bool,
    /// Stop scheduling new documents after the first failure.
    pub fail_fast: bool,
    /// How to run.
    pub executor: Executor,
    /// The run to attribute outputs to.
    pub run: Option<RunId>,
    /// Where it runs (`cpu`, `cuda`): recorded, not part of the key.
    pub device: &'a str,
}

/// One document that failed.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Failure {
    /// Its name.
    pub document: String,
    /// Why.
    pub error: String,
}

/// What a run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OcrSummary {
    /// Provider id.
    pub provider: String,
    /// Provider adapter version.
    pub provider_version: String,
    /// Model digest.
    pub model_digest: String,
    /// Documents considered.
    pub documents: u64,
    /// Documents served from the cache (outputs already stored).
    pub cached: u64,
    /// Documents skipped because a failure is cached (see `--retry-errors`).
    pub cached_errors: u64,
    /// Documents parsed now.
    pub ran: u64,
    /// Of those, parsed successfully.
    pub ok: u64,
    /// Of those, failed.
    pub failed: u64,
    /// Pages of the documents parsed now.
    pub pages_ran: u64,
    /// The failures of this run.
    pub failures: Vec<Failure>,
    /// Wall time of the whole command part, in ms.
    pub wall_ms: u64,
}

struct Job {
    doc: DocumentRow,
    key: CacheKey,
}

/// The documents a provider has to run on, from the cache: what every kind that parses PDFs
/// shares (the runner's executors, the `openai` endpoint).
pub struct Plan {
    /// The counts so far (documents, cached, cached errors), to be completed by the run.
    pub summary: OcrSummary,
    /// The documents to run, each with its cache key, in the store's order.
    pub todo: VecDeque<(DocumentRow, CacheKey)>,
}

/// The identity of a provider's outputs: what enters the cache key, and the version stored.
pub struct KeyParts<'a> {
    /// Provider id.
    pub id: &'a str,
    /// Adapter version (in the key).
    pub adapter_version: u32,
    /// The version stored with each output.
    pub version: String,
    /// Model digest (in the key).
    pub model_digest: &'a str,
    /// Config (in the key, canonicalised).
    pub config: &'a serde_json::Value,
    /// Pages (in the key).
    pub pages: &'a PageSelection,
}

/// Decides, by cache key, which documents of `dataset` (all, if `None`) still need a run.
pub(crate) fn plan(
    store: &Store,
    parts: &KeyParts<'_>,
    dataset: Option<&str>,
    retry_errors: bool,
) -> Result<Plan> {
    let mut summary = OcrSummary {
        provider: parts.id.into(),
        provider_version: parts.version.clone(),
        model_digest: parts.model_digest.into(),
        ..Default::default()
    };
    let mut todo = VecDeque::new();
    for doc in store.documents(dataset)? {
        summary.documents += 1;
        let key = CacheKey::builder(parts.id, parts.adapter_version, parts.model_digest, &doc.hash)
            .config(parts.config)
            .pages(parts.pages)
            .compute();
        match store.output_status(key.as_str())?.as_deref() {
            Some("ok") => summary.cached += 1,
            Some(_) if !retry_errors => summary.cached_errors += 1,
            _ => todo.push_back((doc, key)),
        }
    }
    Ok(Plan { summary, todo })
}

/// Stores one document's result (its output, or its failure) in one transaction and counts
/// it in `summary`; returns whether it succeeded.
#[allow(clippy::too_many_arguments)]
pub fn record(
    store: &mut Store,
    summary: &mut OcrSummary,
    parts: &KeyParts<'_>,
    doc: &DocumentRow,
    key: &CacheKey,
    result: std::result::Result<&[u8], &str>,
    usage: &Usage,
    device: &str,
    run: Option<RunId>,
) -> Result<bool> {
    store.put_output(&NewOutput {
        cache_key: key.as_str(),
        document: doc.id,
        provider: parts.id,
        provider_version: &parts.version,
        model_digest: parts.model_digest,
        config: &canonical_json(parts.config),
        pages: &parts.pages.to_string(),
        result,
        usage: *usage,
        device,
        run,
    })?;
    let wall_ms = usage.wall_ms;
    summary.ran += 1;
    summary.pages_ran += usage.pages;
    match result {
        Err(msg) => {
            summary.failed += 1;
            tracing::warn!(document = %doc.name, provider = parts.id, "failed: {msg}");
            summary.failures.push(Failure { document: doc.name.clone(), error: msg.into() });
            Ok(false)
        }
        Ok(_) => {
            summary.ok += 1;
            tracing::info!(document = %doc.name, provider = parts.id, wall_ms, "stored");
            Ok(true)
        }
    }
}

/// Runs `opts.provider` over every selected document without a cached output.
pub fn run_ocr(
    store: &mut Store,
    opts: &OcrOptions<'_>,
    progress: &dyn Progress,
) -> Result<OcrSummary> {
    let t0 = Instant::now();
    let p = opts.provider;
    let digest = p.model_digest()?;
    let config = p.config();
    let parts = KeyParts {
        id: p.id(),
        adapter_version: p.adapter_version(),
        version: p.version(),
        model_digest: &digest,
        config: &config,
        pages: &opts.pages,
    };
    let Plan { mut summary, todo } = plan(store, &parts, opts.dataset, opts.retry_errors)?;
    let mut todo: VecDeque<Job> = todo.into_iter().map(|(doc, key)| Job { doc, key }).collect();
    if todo.is_empty() {
        summary.wall_ms = t0.elapsed().as_millis() as u64;
        return Ok(summary);
    }
    progress.start(todo.len() as u64);
    let pages = opts.pages.to_string();
    let mut store_reply = |store: &mut Store, job: &Job, reply: Reply| -> Result<bool> {
        let (result, wall_ms, cpu_ms) = match &reply {
            Reply::Ok { wall_ms, cpu_ms, json } => (Ok(json.as_bytes()), *wall_ms, *cpu_ms),
            Reply::Error { wall_ms, cpu_ms, message } => (Err(message.as_str()), *wall_ms, *cpu_ms),
        };
        let usage =
            Usage { pages: opts.pages.count(job.doc.pages), wall_ms, cpu_ms, ..Usage::default() };
        let ok = record(
            store,
            &mut summary,
            &parts,
            &job.doc,
            &job.key,
            result,
            &usage,
            opts.device,
            opts.run,
        )?;
        progress.advance(&job.doc.name, ok);
        if let Some(pause) = test_pause() {
            std::thread::sleep(pause);
        }
        Ok(ok)
    };
    match &opts.executor {
        Executor::InProcess => {
            let mut engine = p.load()?;
            while let Some(job) = todo.pop_front() {
                let pdf = store.pdf(&job.doc.hash)?.ok_or_else(|| missing_blob(&job.doc))?;
                let reply = run_one(engine.as_mut(), pdf, &opts.pages);
                if !store_reply(store, &job, reply)? && opts.fail_fast {
                    break;
                }
            }
        }
        Executor::Threads { db, snapshot, jobs } => {
            let n = (*jobs).clamp(1, todo.len());
            let queue = Mutex::new(todo);
            let (tx, rx) = mpsc::channel::<std::result::Result<(Job, Reply), String>>();
            let sel = &opts.pages;
            std::thread::scope(|scope| -> Result<()> {
                for _ in 0..n {
                    let (queue, tx) = (&queue, tx.clone());
                    scope.spawn(move || thread_worker(p, db, *snapshot, sel, queue, &tx));
                }
                drop(tx);
                let mut fatal = None;
                for msg in rx {
                    match msg {
                        Ok((job, reply)) => {
                            if !store_reply(store, &job, reply)? && opts.fail_fast {
                                clear(&queue);
                            }
                        }
                        Err(e) => {
                            clear(&queue);
                            fatal.get_or_insert(e);
                        }
                    }
                }
                match fatal {
                    Some(e) => Err(Error::Provider { provider: p.id().into(), msg: e }),
                    None => Ok(()),
                }
            })?;
        }
        Executor::Workers { exe, db, snapshot, jobs, timeout } => {
            let n = (*jobs).clamp(1, todo.len());
            let queue = Arc::new(Mutex::new(todo));
            let (tx, rx) = mpsc::channel::<std::result::Result<(Job, Reply), String>>();
            let spec = WorkerSpec {
                exe: exe.clone(),
                db: db.clone(),
                snapshot: *snapshot,
                provider: p.id().to_string(),
                pages: pages.clone(),
                timeout: *timeout,
            };
            let mut handles = Vec::new();
            for _ in 0..n {
                let (queue, tx, spec) = (queue.clone(), tx.clone(), spec.clone());
                handles.push(std::thread::spawn(move || worker_thread(&spec, &queue, &tx)));
            }
            drop(tx);
            let mut fatal = None;
            for msg in rx {
                match msg {
                    Ok((job, reply)) => {
                        if !store_reply(store, &job, reply)? && opts.fail_fast {
                            clear(&queue);
                        }
                    }
                    Err(e) => {
                        clear(&queue);
                        fatal.get_or_insert(e);
                    }
                }
            }
            for h in handles {
                let _ = h.join();
            }
            if let Some(e) = fatal {
                return Err(Error::Provider { provider: p.id().into(), msg: e });
            }
        }
    }
    progress.finish();
    summary.wall_ms = t0.elapsed().as_millis() as u64;
    Ok(summary)
}

/// One thread of [`Executor::Threads`]: its own engine and store connection.
fn thread_worker(
    p: &dyn Provider,
    db: &std::path::Path,
    snapshot: bool,
    pages: &PageSelection,
    queue: &Mutex<VecDeque<Job>>,
    tx: &Sender,
) {
    let open = || if snapshot { Store::open_snapshot(db) } else { Store::open_read_only(db) };
    let setup = p.load().and_then(|e| Ok((e, open()?)));
    let (mut engine, store) = match setup {
        Ok(x) => x,
        Err(e) => return drop(tx.send(Err(e.to_string()))),
    };
    while let Some(job) = next_job(queue) {
        let reply = match store.pdf(&job.doc.hash) {
            Ok(Some(pdf)) => run_one(engine.as_mut(), pdf, pages),
            Ok(None) => Reply::Error {
                wall_ms: 0,
                cpu_ms: None,
                message: missing_blob(&job.doc).to_string(),
            },
            Err(e) => Reply::Error { wall_ms: 0, cpu_ms: None, message: e.to_string() },
        };
        if tx.send(Ok((job, reply))).is_err() {
            break;
        }
    }
}

/// A pause after each stored document, for tests that stop a run part-way
/// (`CORPUS_TEST_PAUSE_MS`, honoured only with `CORPUS_TEST_PROVIDERS=1`).
fn test_pause() -> Option<Duration> {
    if std::env::var("CORPUS_TEST_PROVIDERS").ok()? != "1" {
        return None;
    }
    let ms: u64 = std::env::var("CORPUS_TEST_PAUSE_MS").ok()?.parse().ok()?;
    Some(Duration::from_millis(ms))
}

fn missing_blob(doc: &DocumentRow) -> Error {
    Error::Usage(format!("the store has no PDF blob for document {} ({})", doc.name, doc.hash))
}

fn clear(queue: &Mutex<VecDeque<Job>>) {
    if let Ok(mut q) = queue.lock() {
        q.clear();
    }
}

#[derive(Clone)]
struct WorkerSpec {
    exe: PathBuf,
    db: PathBuf,
    snapshot: bool,
    provider: String,
    pages: String,
    timeout: Duration,
}

type Sender = mpsc::Sender<std::result::Result<(Job, Reply), String>>;

/// Pops the next job; the lock is released before the job runs.
fn next_job(queue: &Mutex<VecDeque<Job>>) -> Option<Job> {
    queue.lock().ok()?.pop_front()
}

fn worker_thread(spec: &WorkerSpec, queue: &Mutex<VecDeque<Job>>, tx: &Sender) {
    let mut args: Vec<std::ffi::OsString> = vec![
        "__worker".into(),
        "--provider".into(),
        spec.provider.clone().into(),
        "--db".into(),
        spec.db.clone().into(),
        "--pages".into(),
        spec.pages.clone().into(),
    ];
    if spec.snapshot {
        args.push("--snapshot".into());
    }
    let mut proc: Option<WorkerProc> = None;
    while let Some(job) = next_job(queue) {
        let w = match proc.as_mut() {
            Some(w) => w,
            None => match WorkerProc::spawn(&spec.exe, &args) {
                Ok(w) => proc.insert(w),
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            },
        };
        let t0 = Instant::now();
        let answer = w.request(&job.doc.hash, spec.timeout);
        let wall_ms = t0.elapsed().as_millis() as u64;
        let reply = match answer {
            Ok(line) => Reply::decode(&line).unwrap_or_else(|message| Reply::Error {
                wall_ms,
                cpu_ms: None,
                message,
            }),
            Err(gone) => {
                // The process was killed (time limit) or died: the next job gets a new one.
                proc = None;
                Reply::Error { wall_ms, cpu_ms: None, message: gone }
            }
        };
        if tx.send(Ok((job, reply))).is_err() {
            break;
        }
    }
    if let Some(w) = proc {
        w.close();
    }
}
