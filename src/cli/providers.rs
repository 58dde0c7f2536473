//! `corpus providers`: list every provider, show one, install presets' environments.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use corpus::providers::preset::{env, Preset, RunKind};
use corpus::providers::{entries, resolve, Entry, Kind};
use serde_json::{json, Value};

use super::output::{print_json, print_table, Format, OutputArgs};
use super::{GlobalArgs, UsageError, EXIT_SOME_FAILED};

/// Arguments of `corpus providers`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ProvidersArgs {
    #[command(subcommand)]
    cmd: Option<ProvidersCmd>,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Subcommand, Debug)]
enum ProvidersCmd {
    /// One provider in full: for a preset its pins, what it runs, its output format, what the
    /// output carries, its licence, and the parts of its cache key on this machine
    Show {
        /// The provider id
        id: String,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Install presets: each Python preset into its own pinned environment under the user
    /// cache (`python3 -m venv` + `pip install`, from the package registry); for a command
    /// preset, check that its tools are on PATH and name the Debian package of a missing one
    Install {
        /// Preset ids
        #[arg(required_unless_present = "all")]
        ids: Vec<String>,
        /// Every preset not marked heavy (heavy ones pull torch: name them)
        #[arg(long, conflicts_with = "ids")]
        all: bool,
    },
}

/// Runs `corpus providers`.
pub fn run(g: &GlobalArgs, a: &ProvidersArgs) -> anyhow::Result<ExitCode> {
    match &a.cmd {
        None => list(&a.output),
        Some(ProvidersCmd::Show { id, output }) => show(id, output),
        Some(ProvidersCmd::Install { ids, all }) => install(g, ids, *all),
    }
}

/// Whether an entry can run now, and if not, what it lacks.
fn readiness(e: &Entry) -> String {
    match e {
        Entry::Builtin(p) => match p.model_digest() {
            Ok(_) => "yes".into(),
            Err(_) => "no: run `corpus setup`".into(),
        },
        Entry::Command | Entry::Truth => "yes".into(),
        Entry::Endpoint => "needs --base-url".into(),
        Entry::Preset(p) => preset_readiness(p),
    }
}

fn preset_readiness(p: &Preset) -> String {
    if let Err(e) = env::check_tools(p) {
        let missing = p.tools.iter().find(|t| env::which(&t.name).is_none());
        return match missing {
            Some(t) => format!("no: needs {} (Debian {})", t.name, t.debian),
            None => format!("no: {e}"),
        };
    }
    match p.kind() {
        RunKind::Command => "yes".into(),
        RunKind::Endpoint => "needs --base-url (a server running the model)".into(),
        RunKind::Python => match env::locate(p) {
            Ok(Some(e)) => match e.disk_bytes {
                Some(b) => format!("yes ({} on disk)", env::human_bytes(b)),
                None => "yes".into(),
            },
            Ok(None) => "installs on first use".into(),
            Err(e) => format!("no: {e}"),
        },
    }
}

fn output_of(e: &Entry) -> String {
    match e {
        Entry::Preset(p) => p.output.clone(),
        Entry::Builtin(_) | Entry::Truth => "doc".into(),
        Entry::Command => "--output-format".into(),
        Entry::Endpoint => "markdown".into(),
    }
}

fn notes(e: &Entry) -> String {
    match e {
        Entry::Preset(p) => {
            let mut n = Vec::new();
            if p.heavy {
                n.push("heavy".to_string());
            }
            if let Some(c) = &p.caveat {
                n.push(c.clone());
            }
            if p.endpoint.is_some() {
                n.push("GPU server".to_string());
            } else if p.needs.is_some() {
                n.push("needs weights".to_string());
            }
            if !p.source.starts_with("presets/") {
                n.push("user preset".to_string());
            }
            n.join(", ")
        }
        Entry::Builtin(_) | Entry::Command | Entry::Truth | Entry::Endpoint => String::new(),
    }
}

fn list(o: &OutputArgs) -> anyhow::Result<ExitCode> {
    let (all, errors) = entries();
    for e in &errors {
        eprintln!("corpus: {e}");
    }
    let rows: Vec<Value> = all
        .iter()
        .map(|e| {
            json!({
                "provider": e.id(),
                "kind": e.kind().as_str(),
                "ready": readiness(e),
                "output": output_of(e),
                "carries": match e { Entry::Preset(p) => json!(p.carries), _ => json!([]) },
                "notes": notes(e),
                "description": e.description(),
            })
        })
        .collect();
    match o.format {
        Format::Json => print_json(&rows)?,
        Format::Table => {
            let cell = |v: &Value, k: &str| match &v[k] {
                Value::String(s) => s.clone(),
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(","),
                other => other.to_string(),
            };
            let keys = ["provider", "kind", "ready", "output", "carries", "notes", "description"];
            let table: Vec<Vec<String>> =
                rows.iter().map(|r| keys.iter().map(|k| cell(r, k)).collect()).collect();
            print_table(&keys, &table)?;
        }
    }
    Ok(if errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

fn show(id: &str, o: &OutputArgs) -> anyhow::Result<ExitCode> {
    let e = resolve(id).map_err(|e| UsageError(e.to_string()))?;
    let mut v = json!({
        "provider": e.id(),
        "kind": e.kind().as_str(),
        "ready": readiness(&e),
        "description": e.description(),
    });
    match &e {
        Entry::Builtin(p) => {
            v["adapter_version"] = json!(p.adapter_version());
            v["model_digest"] = match p.model_digest() {
                Ok(d) => json!(d),
                Err(err) => json!(format!("unavailable: {err}")),
            };
            v["config"] = p.config();
        }
        Entry::Command | Entry::Truth | Entry::Endpoint => {}
        Entry::Preset(p) => {
            v["preset"] = serde_json::to_value(p.as_ref())?;
            v["source"] = json!(p.source);
            v["preset_digest"] = json!(p.digest());
            if let Some(ep) = &p.endpoint {
                // What reaches the server, beside the preset as written (docs/endpoints.md
                // §Context).
                v["context"] = json!(ep.context);
                v["max_tokens_sent"] = json!(ep.max_tokens());
                v["max_tokens_why"] = json!(ep.max_tokens_source());
                v["vllm_xargs"] = json!(ep.vllm_xargs);
            }
            if let Some(py) = &p.python {
                let python = env::python_version().unwrap_or_else(|e| format!("unavailable: {e}"));
                v["environment"] = json!(env::dir_for(&py.packages, &python));
                if let Ok(Some(installed)) = env::locate(p) {
                    v["installed_version"] = json!(installed.version_of(&py.version_of));
                    v["python"] = json!(installed.python);
                    v["freeze_digest"] = json!(installed.freeze_digest());
                    v["model_digest"] =
                        json!(corpus::providers::preset::run::python_digest(p, &installed));
                    v["freeze"] = json!(installed.freeze.lines().collect::<Vec<_>>());
                }
            }
        }
    }
    match o.format {
        Format::Json => print_json(&v)?,
        Format::Table => {
            let mut rows = Vec::new();
            flatten("", &v, &mut rows);
            print_table(&["field", "value"], &rows)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Flattens a JSON object into (dotted key, value) rows; multi-line strings stay whole.
fn flatten(prefix: &str, v: &Value, rows: &mut Vec<Vec<String>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, x, rows);
            }
        }
        Value::Array(a) if a.iter().all(|x| !x.is_object()) => rows.push(vec![
            prefix.to_string(),
            a.iter()
                .map(|x| x.as_str().map(str::to_string).unwrap_or_else(|| x.to_string()))
                .collect::<Vec<_>>()
                .join(" "),
        ]),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, rows);
            }
        }
        Value::String(s) => rows.push(vec![prefix.to_string(), s.clone()]),
        other => rows.push(vec![prefix.to_string(), other.to_string()]),
    }
}

fn install(g: &GlobalArgs, ids: &[String], all: bool) -> anyhow::Result<ExitCode> {
    let targets: Vec<Entry> = if all {
        entries()
            .0
            .into_iter()
            .filter(|e| matches!(e, Entry::Preset(p) if !p.heavy && p.endpoint.is_none()))
            .collect()
    } else {
        ids.iter()
            .map(|id| resolve(id).map_err(|e| UsageError(e.to_string())))
            .collect::<Result<_, _>>()?
    };
    let mut failed = 0;
    for e in &targets {
        let Entry::Preset(p) = e else {
            let why = match e.kind() {
                Kind::InProcess => "compiled in (its libraries come from `corpus setup`)",
                Kind::Command | Kind::Truth | Kind::Endpoint | Kind::PythonWorker => {
                    "not a preset: nothing to install"
                }
            };
            eprintln!("{}: {why}", e.id());
            continue;
        };
        if let Some(ep) = &p.endpoint {
            eprintln!(
                "{}: a model behind an endpoint, nothing to install here; start its server on a GPU host ({}) and run `corpus ocr --provider {} --base-url URL`",
                p.id, ep.server, p.id
            );
            continue;
        }
        let spinner = super::progress::Spinner::new(&p.id, g.quiet);
        let prepared = corpus::providers::preset::run::PresetProvider::prepare(
            p,
            Duration::from_secs(120),
            &mut |m| spinner.say(m),
        );
        spinner.finish();
        match prepared {
            Ok(pp) => {
                use corpus::providers::Provider;
                let size = match env::locate(p) {
                    Ok(Some(e)) => match (e.downloaded_bytes, e.disk_bytes) {
                        (Some(d), Some(b)) => format!(
                            "; {} downloaded, {} on disk",
                            env::human_bytes(d),
                            env::human_bytes(b)
                        ),
                        (_, _) => String::new(),
                    },
                    _ => String::new(),
                };
                println!("{}: ready ({} {}{size})", p.id, p.name, pp.version());
            }
            Err(err) => {
                failed += 1;
                eprintln!("corpus: {}: {err}", p.id);
            }
        }
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}
