//! `corpus status`.

use std::process::ExitCode;

use clap::Args;
use corpus::store::Store;
use serde_json::json;

use super::output::{print_json, print_table, Format, OutputArgs};
use super::GlobalArgs;

/// Arguments of `corpus status`.
#[derive(Args, Debug)]
pub struct StatusArgs {
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `corpus status`.
pub fn run(g: &GlobalArgs, a: &StatusArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open_read_only(&g.db)?;
    let datasets = store.dataset_counts()?;
    let providers = store.provider_counts()?;
    let (docs, pages, ingest_errors) = store.totals()?;
    let without = store.documents_without_truth()?;
    match a.output.format {
        Format::Json => print_json(&json!({
            "store": g.db,
            "documents": docs,
            "pages": pages,
            "ingest_errors": ingest_errors,
            "without_truth": without,
            "datasets": datasets.iter().map(|(n, d, p, t, w)| json!({
                "dataset": n, "documents": d, "pages": p, "truths": t, "without_truth": w}))
                .collect::<Vec<_>>(),
            "outputs": providers.iter().map(|c| json!({
                "provider": c.provider, "provider_version": c.provider_version,
                "ok": c.ok, "errors": c.errors})).collect::<Vec<_>>(),
        }))?,
        Format::Table => {
            println!(
                "store {}: {docs} documents ({without} without a truth), {pages} pages, \
                 {ingest_errors} ingest errors",
                g.db.display()
            );
            println!();
            let rows: Vec<Vec<String>> = datasets
                .iter()
                .map(|(n, d, p, t, w)| {
                    vec![n.clone(), d.to_string(), p.to_string(), t.to_string(), w.to_string()]
                })
                .collect();
            print_table(&["dataset", "documents", "pages", "truths", "without truth"], &rows)?;
            if without > 0 && !g.quiet {
                eprintln!(
                    "corpus: {without} document(s) have no truth: `corpus agree` compares parsers \
                     on them, `corpus truth draft` drafts one to correct"
                );
            }
            println!();
            let rows: Vec<Vec<String>> = providers
                .iter()
                .map(|c| {
                    vec![
                        c.provider.clone(),
                        c.provider_version.clone(),
                        c.ok.to_string(),
                        c.errors.to_string(),
                    ]
                })
                .collect();
            print_table(&["provider", "version", "outputs", "errors"], &rows)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
