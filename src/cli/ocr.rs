//! `corpus ocr`.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use corpus::providers::command::CommandProvider;
use corpus::providers::preset::run::PresetProvider;
use corpus::providers::runner::{run_ocr, Executor, OcrOptions};
use corpus::providers::{resolve, Entry, PageSelection};
use corpus::store::Store;

use super::output::{print_json, print_table, Format, OutputArgs};
use super::{argv, GlobalArgs, UsageError, EXIT_SOME_FAILED};

/// Arguments of `corpus ocr`.
#[derive(Args, Debug)]
pub struct OcrArgs {
    /// The provider to run (see `corpus providers`): compiled in, a preset (installed into its
    /// own environment on first use), or a preset file of yours in CORPUS_PRESETS or
    /// ~/.config/corpus/presets; `truth` stores each ground truth as a Doc; `command` runs an
    /// external tool (see --name, --version, --argv, --output-format)
    #[arg(long, default_value = "pdfium", value_parser = super::values::ocr_provider())]
    provider: String,
    /// Only documents of this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Where model-based providers (layout) run their models: cpu, or cuda (the CUDA execution
    /// provider; fails with an error, never falls back to the CPU). Recorded with each output,
    /// not part of the cache key
    #[arg(long, default_value = "cpu", value_parser = corpus::providers::layout::runtime::Device::parse)]
    device: corpus::providers::layout::runtime::Device,
    /// Worker processes [default: the number of cores]
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Per-document time limit in seconds; a document over it is recorded as failed
    #[arg(long, default_value_t = 120.0)]
    timeout: f64,
    /// Pages to parse: all, or a list like 1-3,5 (part of the cache key)
    #[arg(long, default_value = "all", value_parser = PageSelection::parse)]
    pages: PageSelection,
    /// Re-run documents whose cached result is a failure
    #[arg(long)]
    retry_errors: bool,
    /// Stop scheduling documents after the first failure
    #[arg(long)]
    fail_fast: bool,
    /// With --provider command: the tool's name, which becomes the provider id of its outputs
    #[arg(long, requires = "argv")]
    name: Option<String>,
    /// With --provider command: the tool's version (part of the cache key)
    #[arg(long = "version", requires = "argv")]
    tool_version: Option<String>,
    /// With --provider command: the command line, run without a shell; {pdf} is the input PDF,
    /// {outdir} an empty folder for its output, {pages} the page selection
    ///
    /// Example: --argv 'docling {pdf} --to json --output {outdir}'
    #[arg(long)]
    argv: Option<String>,
    /// With --provider command: the format of what the tool writes (a file under {outdir},
    /// else its stdout)
    #[arg(long, value_parser = super::values::import_format(), requires = "argv")]
    output_format: Option<corpus::formats::ImportFormat>,
    /// With --provider openai: the prompt preset, olmocr (olmOCR's prompt, pages at 1288 px
    /// longest side), markdown (a plain convert-to-Markdown prompt, 1600 px), or a prompt file
    #[arg(long)]
    prompt: Option<String>,
    /// With --provider openai: render pages at this longest side in pixels instead of the
    /// preset's (part of the cache key)
    #[arg(long)]
    longest_side: Option<u32>,
    /// Endpoint providers: the GPU's price in US dollars per hour, for a self-hosted model with
    /// no token price: each output records an estimated cost, its requests' wall time × this
    /// price ÷ the concurrency the server actually ran [default: the preset's gpu_price]
    #[arg(long, value_name = "USD_PER_HOUR")]
    gpu_price: Option<f64>,
    /// With --provider openai: the model, server, caps and sampling (API key from
    /// CORPUS_OPENAI_API_KEY)
    #[command(flatten)]
    llm: super::llm::LlmArgs,
    #[command(flatten)]
    shard: super::shard::ShardArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `corpus ocr`.
pub fn run(g: &GlobalArgs, a: &OcrArgs) -> anyhow::Result<ExitCode> {
    let entry = resolve(&a.provider).map_err(|e| UsageError(e.to_string()))?;
    if a.argv.is_some() && !matches!(entry, Entry::Command) {
        usage_bail!("--argv is for --provider command only");
    }
    let endpoint = matches!(&entry, Entry::Endpoint)
        || matches!(&entry, Entry::Preset(p) if p.endpoint.is_some());
    if a.gpu_price.is_some() && !endpoint {
        usage_bail!("--gpu-price is for endpoint providers (openai and the presets with [endpoint]): {} runs on this machine, whose time is recorded as s/page", a.provider);
    }
    if !a.timeout.is_finite() || a.timeout <= 0.0 {
        usage_bail!("--timeout must be a positive number of seconds");
    }
    let timeout = Duration::from_secs_f64(a.timeout);
    // Every kind runs through the runner's cache loop except the truth (no PDF is read) and
    // the endpoint (pages to a server, `--concurrency` at a time).
    let owned: Box<dyn corpus::providers::Provider>;
    let (provider, in_threads): (&dyn corpus::providers::Provider, bool) = match &entry {
        Entry::Truth => {
            if a.shard.into.is_some() {
                usage_bail!(
                    "--provider truth is not sharded (it reads no PDF and takes seconds): run it without --shard/--into"
                );
            }
            return run_truth(g, a);
        }
        Entry::Endpoint => {
            if a.shard.into.is_some() {
                usage_bail!("--provider openai is not sharded: the server does the work; run it without --shard/--into");
            }
            return run_openai(g, a);
        }
        Entry::Preset(preset) if preset.endpoint.is_some() => {
            if a.shard.into.is_some() {
                usage_bail!("--provider {} is not sharded: the server does the work; run it without --shard/--into", preset.id);
            }
            if a.prompt.is_some() || a.longest_side.is_some() {
                usage_bail!("--prompt and --longest-side are for --provider openai; {} uses its model's own prompt and image size", preset.id);
            }
            let Some(ep) = corpus::providers::endpoint::Endpoint::of_preset(preset) else {
                usage_bail!("preset {} has no [endpoint]", preset.id);
            };
            // Invariant: the guard above saw [endpoint].
            let default_model =
                preset.endpoint.as_ref().map(|e| e.model.clone()).unwrap_or_default();
            return run_endpoint(g, a, &ep, &default_model);
        }
        Entry::Command => {
            let (Some(name), Some(version), Some(argv), Some(format)) =
                (&a.name, &a.tool_version, &a.argv, a.output_format)
            else {
                usage_bail!(
                    "--provider command needs --name, --version, --argv and --output-format"
                );
            };
            owned = Box::new(
                CommandProvider::new(name, version, argv, format, timeout)
                    .map_err(|e| UsageError(e.to_string()))?,
            );
            // The tool runs in its own process under the time limit: threads are enough.
            (owned.as_ref(), true)
        }
        Entry::Builtin(p) => (*p, false),
        Entry::Preset(preset) => {
            if !g.quiet && preset.heavy {
                eprintln!("{}: a heavy preset (it pulls a large stack such as torch)", preset.id);
            }
            if let Some(needs) = &preset.needs {
                eprintln!("{}: needs {needs}", preset.id);
            }
            let spinner = super::progress::Spinner::new(&preset.id, g.quiet);
            let mut said_install = false;
            let prepared = PresetProvider::prepare(preset, timeout, &mut |m| {
                if !said_install && !g.quiet {
                    said_install = true;
                    eprintln!("{}: not installed yet; installing it first", preset.id);
                }
                spinner.say(m)
            });
            spinner.finish();
            owned = Box::new(prepared?);
            // Each job slot keeps its own worker process (Python) or starts the tool per PDF
            // (command), under the time limit: threads of this process are enough.
            (owned.as_ref(), true)
        }
    };
    use corpus::providers::layout::runtime::Device;
    if a.device != Device::Cpu {
        if provider.id() != corpus::providers::layout::ID {
            usage_bail!("--device {} is for model-based providers (layout)", a.device.as_str());
        }
        // Fail here, once, with the reason, rather than in every worker.
        corpus::providers::layout::check_device(a.device)?;
    }
    // Workers read the device from their environment.
    std::env::set_var("CORPUS_DEVICE", a.device.as_str());
    let task = a.shard.task("ocr", provider.id())?;
    let mut store = super::shard::open(g, task.as_ref())?;
    let snapshot = task.is_some();
    let run = store.start_run("ocr", &argv())?;
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let opts = OcrOptions {
        provider,
        dataset: a.dataset.as_deref(),
        pages: a.pages.clone(),
        retry_errors: a.retry_errors,
        fail_fast: a.fail_fast,
        executor: if in_threads {
            Executor::Threads { db: std::path::absolute(&g.db)?, snapshot, jobs: jobs.max(1) }
        } else {
            Executor::Workers {
                exe: std::env::current_exe().context("locating the corpus binary")?,
                db: std::path::absolute(&g.db)?,
                snapshot,
                jobs: jobs.max(1),
                timeout,
            }
        },
        run: Some(run),
        device: a.device.as_str(),
    };
    let bar = super::progress::Bar::new(provider.id(), g.quiet);
    let sum = run_ocr(&mut store, &opts, &bar)?;
    store.finish_run(run, &serde_json::to_value(&sum)?, sum.failed)?;
    super::shard::note(g, &store, "outputs");
    print_summary(g, a.output.format, &sum)?;
    Ok(if sum.failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// Prints one run's summary (a row, or JSON) and, on a terminal, its failures.
fn print_summary(
    g: &GlobalArgs,
    format: Format,
    sum: &corpus::providers::runner::OcrSummary,
) -> anyhow::Result<()> {
    match format {
        Format::Json => print_json(sum)?,
        Format::Table => {
            let secs = sum.wall_ms as f64 / 1000.0;
            let rate = if sum.ran > 0 && secs > 0.0 {
                format!("{:.1}", sum.pages_ran as f64 / secs)
            } else {
                "–".into()
            };
            print_table(
                &[
                    "provider",
                    "version",
                    "documents",
                    "cached",
                    "ran",
                    "ok",
                    "failed",
                    "pages",
                    "pages/s",
                ],
                &[vec![
                    sum.provider.clone(),
                    sum.provider_version.clone(),
                    sum.documents.to_string(),
                    (sum.cached + sum.cached_errors).to_string(),
                    sum.ran.to_string(),
                    sum.ok.to_string(),
                    sum.failed.to_string(),
                    sum.pages_ran.to_string(),
                    rate,
                ]],
            )?;
            if !g.quiet {
                print_failures(sum, "runs them again");
            }
        }
    }
    Ok(())
}

/// Prints each failure of this run, and how many documents have a failure cached from before
/// and what `--retry-errors` does with them.
fn print_failures(sum: &corpus::providers::runner::OcrSummary, retry: &str) {
    for f in &sum.failures {
        eprintln!("corpus: {}: {}", f.document, f.error);
    }
    if sum.cached_errors > 0 {
        eprintln!(
            "{} document(s) have a cached failure; --retry-errors {retry}.",
            sum.cached_errors
        );
    }
}

/// `ocr --provider truth`: stores each truth, of every format a suite scores, as a Doc (in
/// this process; no PDF is read but ICDAR 2013's, for its page sizes). Prints per format the
/// truths rendered, cached and failed, and the olmOCR-bench tests the renderings do not pass;
/// says so when there is no truth to render.
fn run_truth(g: &GlobalArgs, a: &OcrArgs) -> anyhow::Result<ExitCode> {
    use corpus::providers::truth::{materialize, ADAPTER_VERSION};
    let mut store = Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let run = store.start_run("ocr", &argv())?;
    let m = materialize(&mut store, a.dataset.as_deref(), Some(run))?;
    let c = m.totals();
    let nothing = (m.truths() == 0).then(|| match a.dataset.as_deref() {
        Some(d) => format!("nothing to do: dataset {d} has no truth (ingest one with --truth)"),
        None => "nothing to do: the store has no truth (ingest one with --truth)".to_string(),
    });
    let counts = serde_json::json!({"provider": "truth", "version": ADAPTER_VERSION,
        "cached": c.cached, "ran": c.written + c.failed, "ok": c.written, "failed": c.failed,
        "unrendered_tests": m.unrendered(), "formats": m.formats, "note": nothing});
    store.finish_run(run, &counts, c.failed)?;
    match a.output.format {
        Format::Json => print_json(&counts)?,
        Format::Table => match &nothing {
            Some(note) => println!("{note}"),
            None => {
                let mut rows: Vec<Vec<String>> = m
                    .formats
                    .iter()
                    .map(|f| {
                        let by_type: Vec<String> =
                            f.unrendered.iter().map(|(k, t)| format!("{k} {}", t.len())).collect();
                        let unrendered: usize = f.unrendered.values().map(Vec::len).sum();
                        let unrendered = if by_type.is_empty() {
                            unrendered.to_string()
                        } else {
                            format!("{unrendered} ({})", by_type.join(", "))
                        };
                        vec![
                            f.format.to_string(),
                            f.truths.to_string(),
                            f.counts.written.to_string(),
                            f.counts.cached.to_string(),
                            f.counts.failed.to_string(),
                            unrendered,
                        ]
                    })
                    .collect();
                rows.push(vec![
                    "total".into(),
                    m.truths().to_string(),
                    c.written.to_string(),
                    c.cached.to_string(),
                    c.failed.to_string(),
                    m.unrendered().to_string(),
                ]);
                print_table(
                    &[
                        "truth format",
                        "truths",
                        "rendered",
                        "cached",
                        "failed",
                        "tests not rendered",
                    ],
                    &rows,
                )?;
            }
        },
    }
    if !g.quiet {
        for f in &m.formats {
            for e in &f.failures {
                eprintln!(
                    "corpus: {} truth of {} ({}): {}",
                    f.format, e.document, e.dataset, e.error
                );
            }
            for (kind, tests) in &f.unrendered {
                let ids: Vec<String> =
                    tests.iter().map(|t| format!("{} ({})", t.id, t.document)).collect();
                eprintln!(
                    "{}: {} {kind} test(s) the truth cannot render as Markdown that passes them: {}",
                    f.format,
                    tests.len(),
                    ids.join(", ")
                );
            }
        }
    }
    Ok(if c.failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// The environment variable the `openai` provider's API key is read from.
pub const KEY_VAR: &str = "CORPUS_OPENAI_API_KEY";

/// `ocr --provider openai`: the generic prompt presets, read as Markdown.
fn run_openai(g: &GlobalArgs, a: &OcrArgs) -> anyhow::Result<ExitCode> {
    use corpus::providers::openai::Preset;
    let Some(prompt) = a.prompt.as_deref() else {
        usage_bail!("--provider openai needs --prompt olmocr|markdown|FILE");
    };
    let mut preset = Preset::parse(prompt)?;
    if let Some(px) = a.longest_side {
        if !(64..=10_000).contains(&px) {
            usage_bail!("--longest-side must be between 64 and 10000 pixels");
        }
        preset.longest_side = px;
    }
    let Some(model) = a.llm.model.clone() else {
        usage_bail!("--provider openai needs --model and --base-url");
    };
    run_endpoint(g, a, &preset.endpoint(), &model)
}

/// `ocr --provider P` for an endpoint provider: pages (or regions) to a model behind an
/// OpenAI-compatible endpoint, in this process (the server does the work; requests run
/// `--concurrency` at a time). `default_model` is the model id used without `--model`.
fn run_endpoint(
    g: &GlobalArgs,
    a: &OcrArgs,
    ep: &corpus::providers::endpoint::Endpoint,
    default_model: &str,
) -> anyhow::Result<ExitCode> {
    use corpus::providers::endpoint::{run_endpoint, RunOptions};
    a.llm.check()?;
    let model = a.llm.model.as_deref().unwrap_or(default_model);
    let Some(base_url) = a.llm.base_url.as_deref() else {
        usage_bail!("--provider {} needs --base-url (the server's URL up to /v1)", ep.id);
    };
    if a.pages != corpus::providers::PageSelection::All {
        usage_bail!("--pages is not supported with --provider {}: every page is read", ep.id);
    }
    let price = a.llm.price(ep.price);
    if a.gpu_price.is_some_and(|p| !p.is_finite() || p <= 0.0) {
        usage_bail!("--gpu-price must be a positive number of US dollars per hour");
    }
    let gpu_price = a.gpu_price.or(ep.gpu_price);
    let client = a.llm.client(base_url, super::llm::api_key(&[KEY_VAR]));
    let budget = a.llm.budget(price);
    let mut store = Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let run = store.start_run("ocr", &argv())?;
    let opts = RunOptions {
        model,
        sampling: a.llm.sampling(&ep.sampling, ep.max_tokens.unwrap_or(8000)),
        concurrency: a.llm.concurrency,
        dataset: a.dataset.as_deref(),
        retry_errors: a.retry_errors,
        run: Some(run),
        price,
        gpu_price,
    };
    let bar = super::progress::Bar::new(&ep.id, g.quiet);
    let (sum, stopped) = run_endpoint(&mut store, &client, &budget, ep, &opts, &bar)?;
    store.finish_run(run, &serde_json::to_value(&sum)?, sum.failed)?;
    let (pt, ct) = budget.tokens();
    match a.output.format {
        Format::Json => print_json(&serde_json::json!({"summary": sum, "stopped": stopped,
            "requests": budget.sent(), "tokens": [pt, ct],
            "cost_usd": price.map(|_| budget.cost())}))?,
        Format::Table => print_table(
            &[
                "provider",
                "documents",
                "cached",
                "ran",
                "ok",
                "failed",
                "pages",
                "requests",
                "tokens",
                "cost $",
            ],
            &[vec![
                sum.provider.clone(),
                sum.documents.to_string(),
                (sum.cached + sum.cached_errors).to_string(),
                sum.ran.to_string(),
                sum.ok.to_string(),
                sum.failed.to_string(),
                sum.pages_ran.to_string(),
                budget.sent().to_string(),
                (pt + ct).to_string(),
                price.map_or_else(|| "-".to_string(), |_| format!("{:.4}", budget.cost())),
            ]],
        )?,
    }
    if !g.quiet {
        print_failures(&sum, "sends their failed pages again");
        if let Some(s) = &stopped {
            eprintln!("stopped early: {s}; every page reply that arrived is stored, run again to continue");
        }
    }
    let bad = sum.failed > 0 || stopped.is_some();
    Ok(if bad { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}
