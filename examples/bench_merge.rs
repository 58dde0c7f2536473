//! Times `corpus merge`: F shard files of O outputs each (of about S bytes, the size of a
//! `pdfium` output) folded into a store that already holds B outputs.
//!
//! Usage: `bench_merge DIR [--files F] [--outputs O] [--size S] [--base B] [--keep]`
//! (defaults 100, 1000, 21000, 100000). Builds everything through the library in DIR: a store
//! with B + F·O documents and B outputs, checkpointed; F shard files written by task handles
//! (`Store::open_shard_task`), each holding O new outputs; then merges them one by one
//! (`Store::merge_shard`, what `corpus merge` does per file) and prints outputs/s, MB/s and
//! the slowest file. Then merges them all again (the idempotent no-op) and times that too.
//! `bench/merge_throughput.sh` builds this example and runs it pinned to one core.

use std::path::{Path, PathBuf};
use std::time::Instant;

use corpus::cluster::ShardSpec;
use corpus::store::{IngestDoc, NewOutput, Store};

struct Args {
    dir: PathBuf,
    files: usize,
    outputs: usize,
    size: usize,
    base: usize,
    keep: bool,
    /// Reuse the store and shard files a `--keep` run left in DIR (store saved as main.orig.db).
    reuse: bool,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut a = Args {
        dir: PathBuf::new(),
        files: 100,
        outputs: 1000,
        size: 21_000,
        base: 100_000,
        keep: false,
        reuse: false,
    };
    let usage =
        "usage: bench_merge DIR [--files F] [--outputs O] [--size S] [--base B] [--keep] [--reuse]";
    while let Some(x) = it.next() {
        let mut num = |name: &str| -> Result<usize, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number; {usage}"))
        };
        match x.as_str() {
            "--files" => a.files = num("--files")?,
            "--outputs" => a.outputs = num("--outputs")?,
            "--size" => a.size = num("--size")?,
            "--base" => a.base = num("--base")?,
            "--keep" => a.keep = true,
            "--reuse" => a.reuse = true,
            _ if a.dir.as_os_str().is_empty() => a.dir = PathBuf::from(x),
            _ => return Err(usage.into()),
        }
    }
    if a.dir.as_os_str().is_empty() {
        return Err(usage.into());
    }
    Ok(a)
}

/// A Doc-shaped JSON of about `size` bytes, different for every `i`.
fn output_json(i: usize, size: usize) -> String {
    let words = [
        "table", "model", "parser", "layout", "reading", "order", "score", "corpus", "page",
        "heading", "figure", "caption", "value", "result", "method", "baseline",
    ];
    let mut blocks = Vec::new();
    let mut len = 40;
    let mut k: u64 = (i as u64).wrapping_mul(2_654_435_761);
    let mut b = 0;
    while len < size {
        let mut text = String::new();
        for _ in 0..40 {
            k = k.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            text.push_str(words[(k >> 60) as usize]);
            text.push(' ');
        }
        text.push_str(&format!("doc {i} block {b}"));
        let block = format!(
            "{{\"kind\":\"paragraph\",\"page\":{},\"bbox\":[72.0,{}.5,540.0,{}.5],\"text\":\"{text}\"}}",
            b / 20,
            100 + b % 20 * 30,
            120 + b % 20 * 30
        );
        len += block.len() + 1;
        blocks.push(block);
        b += 1;
    }
    format!(
        "{{\"pages\":[{{\"width\":612.0,\"height\":792.0}}],\"blocks\":[{}]}}",
        blocks.join(",")
    )
}

fn output<'a>(key: &'a str, doc: i64, json: &'a [u8]) -> NewOutput<'a> {
    NewOutput {
        cache_key: key,
        document: doc,
        provider: "pdfium",
        provider_version: "1",
        model_digest: "bench",
        config: "{}",
        pages: "all",
        result: Ok(json),
        usage: corpus::store::Usage { wall_ms: 20, ..Default::default() },
        device: "cpu",
        run: None,
    }
}

/// This thread's CPU time in ns (`/proc/thread-self/schedstat`); the merge is one thread.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn dir_size(p: &Path) -> u64 {
    std::fs::read_dir(p)
        .map(|rd| rd.filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = parse()?;
    std::fs::create_dir_all(&a.dir)?;
    let db = a.dir.join("main.db");
    let shards = a.dir.join("shards");
    std::fs::create_dir_all(&shards)?;
    let total = a.base + a.files * a.outputs;
    let orig = a.dir.join("main.orig.db");
    let mut files = Vec::new();
    let mut bytes_in = 0u64;
    if a.reuse {
        std::fs::copy(&orig, &db)?;
        for f in 0..a.files {
            let path = shards.join(format!("ocr-pdfium-{f:03}-of-{:03}.db", a.files));
            for j in 0..a.outputs {
                bytes_in += output_json(a.base + f * a.outputs + j, a.size).len() as u64;
            }
            files.push(path);
        }
    } else {
        build(&a, &db, &shards, total, &mut files, &mut bytes_in)?;
        if a.keep {
            std::fs::copy(&db, &orig)?;
        }
    }
    merge(&a, &db, &files, bytes_in)
}

fn build(
    a: &Args,
    db: &Path,
    shards: &Path,
    total: usize,
    files: &mut Vec<PathBuf>,
    bytes_in: &mut u64,
) -> Result<(), Box<dyn std::error::Error>> {
    let t0 = Instant::now();
    {
        let mut s = Store::open(db)?;
        for i in 0..total {
            let bytes = format!("%PDF-1.4 bench document {i}");
            s.ingest(&IngestDoc {
                dataset: "bench",
                name: &format!("d{i:07}"),
                source_path: "bench",
                pdf: corpus::store::PdfData::Bytes(bytes.as_bytes()),
                pages: 1,
                truths: &[],
                attributes: &[],
            })?;
        }
        for i in 0..a.base {
            let json = output_json(i, a.size);
            s.put_output(&output(&format!("key-{i:07}"), i as i64 + 1, json.as_bytes()))?;
        }
        s.checkpoint()?;
    }
    eprintln!(
        "bench: store with {total} documents and {} outputs built in {:.1} s",
        a.base,
        t0.elapsed().as_secs_f64()
    );
    let t0 = Instant::now();
    for f in 0..a.files {
        let path = shards.join(format!("ocr-pdfium-{f:03}-of-{:03}.db", a.files));
        let mut task = Store::open_shard_task(db, &path, ShardSpec::ALL)?;
        for j in 0..a.outputs {
            let i = a.base + f * a.outputs + j;
            let json = output_json(i, a.size);
            *bytes_in += json.len() as u64;
            task.put_output(&output(&format!("key-{i:07}"), i as i64 + 1, json.as_bytes()))?;
        }
        drop(task);
        files.push(path);
    }
    eprintln!(
        "bench: {} shard files ({:.1} MB on disk) written in {:.1} s",
        a.files,
        dir_size(shards) as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

fn merge(
    a: &Args,
    db: &Path,
    files: &[PathBuf],
    bytes_in: u64,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut store = Store::open(db)?;
    let mut run = None;
    let mut slowest = 0f64;
    let t0 = Instant::now();
    let cpu0 = cpu_ns();
    let mut new = 0;
    store.begin_merge()?;
    for f in files {
        let t = Instant::now();
        let r = store.merge_shard(f, &f.display().to_string(), &[], &mut run)?;
        slowest = slowest.max(t.elapsed().as_secs_f64());
        new += r.counts.new;
        assert_eq!(r.counts.conflicts, 0);
    }
    store.end_merge()?;
    let secs = t0.elapsed().as_secs_f64();
    let cpu = (cpu_ns() - cpu0) as f64 / 1e9;
    assert_eq!(new as usize, a.files * a.outputs);
    let t1 = Instant::now();
    for f in files {
        let r = store.merge_shard(f, "again", &[], &mut None)?;
        assert_eq!(r.counts.new, 0);
    }
    let again = t1.elapsed().as_secs_f64();
    drop(store);
    let n = (a.files * a.outputs) as f64;
    println!("files                 {}", a.files);
    println!("outputs per file      {}", a.outputs);
    println!("output size           {:.0} bytes (mean)", bytes_in as f64 / n);
    println!("store before          {} outputs", a.base);
    println!("store after           {:.1} MB on disk", std::fs::metadata(db)?.len() as f64 / 1e6);
    println!(
        "merge                 {secs:.2} s: {:.0} outputs/s, {:.1} MB/s",
        n / secs,
        bytes_in as f64 / 1e6 / secs
    );
    println!("merge CPU time        {cpu:.2} s: {:.0} outputs per CPU-second", n / cpu);
    println!("slowest file          {slowest:.3} s");
    println!("merge again (no-op)   {again:.2} s: {:.0} outputs/s", n / again);
    let verdict = if n / secs >= 5000.0 { "PASS" } else { "MISS" };
    println!("target >= 5000 outputs/s on one core: {verdict}");
    if !a.keep && !a.reuse {
        std::fs::remove_dir_all(&a.dir)?;
    }
    Ok(())
}
