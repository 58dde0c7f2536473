//! The report site's index page: leaderboard, breakdowns, history, comparison, failing tests,
//! documents; one function per section.

use super::*;

/// The index: leaderboard, breakdowns, history, comparison, failing tests, documents.
#[allow(clippy::too_many_arguments)]
pub(super) fn index_page(
    store: &Store,
    filter: &ScoreFilter<'_>,
    cols: &ScoreColumns,
    board: &[String],
    opts: &SiteOptions,
    links: &HashMap<(String, String), String>,
    summary: &SiteSummary,
    failing: &[FailingTest],
    failing_total: usize,
) -> Result<String> {
    let suite = &opts.suite;
    let mut s = head(&format!("corpus report: {suite}"));
    let _ = write!(
        s,
        "<header><h1>corpus report · suite {}</h1><div>store {} · {} documents · generated {}</div></header><main>",
        esc(suite),
        esc(&opts.store_label),
        summary.documents,
        esc(&crate::store::now())
    );
    s.push_str(
        r##"<nav class="toc"><a href="#leaderboard">Leaderboard</a><a href="#breakdowns">Breakdowns</a><a href="#history">History</a>"##,
    );
    if opts.compare.is_some() {
        s.push_str(r##"<a href="#compare">Comparison</a>"##);
    }
    if failing_total > 0 {
        s.push_str(r##"<a href="#failing">Failing tests</a>"##);
    }
    s.push_str(r##"<a href="#documents">Documents</a>"##);
    if let Some(a) = &opts.agreement {
        let _ = write!(s, r#"<a href="{}">Agreement between providers</a>"#, esc(a));
    }
    s.push_str("</nav>");

    let wide = crate::report::wide_frame(cols, board).map_err(pe)?;
    // The detection suite's COCO figures are pooled over each group's pages in every table
    // (`docs/detection.md` §7), never averaged over documents.
    let pooled = crate::report::detection_page_sets(
        store,
        &ScoreFilter { suite: Some(suite), ..filter.clone() },
    )?;
    index_leaderboard(&mut s, store, filter, cols, board, &wide, suite, &pooled)?;
    index_breakdowns(&mut s, store, filter, board, links, wide, &pooled)?;
    index_history(&mut s, store, filter, board)?;
    index_comparison(&mut s, cols, opts, links)?;
    index_failing(&mut s, failing, failing_total);

    // Documents.
    s.push_str(r#"<h2 id="documents">Documents</h2>"#);
    let doc_metrics: Vec<String> = board.iter().take(8).cloned().collect();
    let w = crate::report::wide_frame(cols, &doc_metrics).map_err(pe)?;
    let t = pooled_summary(&w, &doc_metrics, &By::Document, &pooled)?;
    s.push_str(&frame_table(&t, "documents", links, ""));
    s.push_str("</main></body></html>\n");
    Ok(s)
}

/// The means of `summary` by `by`, with the detection suite's COCO figures pooled over each
/// group's pages (`pooled`: its page sets; none for another suite).
fn pooled_summary(
    wide: &DataFrame,
    metrics: &[String],
    by: &By,
    pooled: &[(crate::store::ScoreKey, String)],
) -> Result<DataFrame> {
    crate::report::summary_ci(wide, metrics, by, None, &[], None, pooled).map_err(pe)
}

/// The index's leaderboard: the numbers of `report --by provider --format json`, intervals
/// included, and the bootstrap intervals the suite stores (olmOCR's overall).
#[allow(clippy::too_many_arguments)]
fn index_leaderboard(
    s: &mut String,
    store: &Store,
    filter: &ScoreFilter<'_>,
    cols: &ScoreColumns,
    board: &[String],
    wide: &DataFrame,
    suite: &str,
    pooled: &[(crate::store::ScoreKey, String)],
) -> Result<()> {
    let stored = store.stored_intervals(suite, filter.dataset)?;
    let lb = crate::report::summary_ci(
        wide,
        board,
        &By::Provider,
        Some(&crate::report::Ci::DEFAULT),
        &stored,
        crate::report::Headline::of_suite(suite),
        pooled,
    )
    .map_err(pe)?;
    drop(stored);
    let lb = crate::report::with_usage(&lb, cols, &store.output_usage()?).map_err(pe)?;
    s.push_str(r#"<h2 id="leaderboard">Leaderboard</h2>"#);
    let heads = headline_columns(suite, board);
    s.push_str(&board::leaderboard(&lb, board, &heads).map_err(pe)?);
    drop(lb);
    // Bootstrap intervals, where the suite stores one (olmOCR's overall).
    let cis = store.latest_named(suite, "overall")?;
    let mut ci_rows = String::new();
    for r in &cis {
        if filter.provider.is_some_and(|p| p != r.provider)
            || filter.dataset.is_some_and(|d| d != r.dataset)
        {
            continue;
        }
        let Some(t) =
            r.trace.as_deref().and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        else {
            continue;
        };
        let Some(ci) = t.get("ci95").and_then(|c| c.as_array()) else { continue };
        let (lo, hi) = (ci.first().and_then(|x| x.as_f64()), ci.get(1).and_then(|x| x.as_f64()));
        let l = label(&r.provider, &r.provider_version);
        let _ = write!(
            ci_rows,
            r#"<tr data-provider="{}" data-model="{}"><td>{}</td><td>{}</td><td>{}</td><td class="n">{}</td><td class="n">[{}, {}]</td></tr>"#,
            esc(&l),
            esc(short_model(&r.model_digest)),
            esc(&l),
            esc(short_model(&r.model_digest)),
            esc(&r.dataset),
            num(r.value),
            num(lo),
            num(hi)
        );
    }
    if !ci_rows.is_empty() {
        let _ = write!(
            s,
            r#"<h3>overall with its 95% bootstrap interval</h3><div class="scroll"><table class="intervals"><thead><tr><th>provider</th><th>model</th><th>dataset</th><th>overall</th><th>95% interval</th></tr></thead><tbody>{ci_rows}</tbody></table></div>"#
        );
    }
    Ok(())
}

/// The index's breakdowns: by dataset, and by each attribute.
fn index_breakdowns(
    s: &mut String,
    store: &Store,
    filter: &ScoreFilter<'_>,
    board: &[String],
    links: &HashMap<(String, String), String>,
    wide: DataFrame,
    pooled: &[(crate::store::ScoreKey, String)],
) -> Result<()> {
    s.push_str(r#"<h2 id="breakdowns">Breakdowns</h2><h3>By dataset</h3>"#);
    let by_ds = pooled_summary(&wide, board, &By::Dataset, pooled)?;
    s.push_str(&frame_table(&by_ds, "by-dataset", links, ""));
    drop(wide);
    for name in store.attribute_names()? {
        let f = ScoreFilter { attribute: Some(&name), ..filter.clone() };
        let mut c = store.score_columns(&f)?;
        let keep: HashSet<&str> = board.iter().map(String::as_str).collect();
        c.retain_metrics(|m| keep.contains(m));
        if c.is_empty() {
            continue;
        }
        let w = crate::report::wide_frame(&c, board).map_err(pe)?;
        let mut t = pooled_summary(&w, board, &By::Attribute(name.clone()), pooled)?;
        t.rename("attribute", name.as_str().into()).map_err(pe)?;
        let _ = write!(s, "<h3>By attribute {}</h3>", esc(&name));
        s.push_str(&frame_table(&t, "by-attribute", links, ""));
    }
    Ok(())
}

/// The index's history: each headline metric's mean per run, one line per provider version.
fn index_history(
    s: &mut String,
    store: &Store,
    filter: &ScoreFilter<'_>,
    board: &[String],
) -> Result<()> {
    s.push_str(r#"<h2 id="history">History</h2>"#);
    let hf = ScoreFilter { latest: false, ..filter.clone() };
    let mut hc = store.score_columns(&hf)?;
    let chart_metrics: Vec<String> = board.iter().take(8).cloned().collect();
    {
        let keep: HashSet<&str> = chart_metrics.iter().map(String::as_str).collect();
        hc.retain_metrics(|m| keep.contains(m));
    }
    if hc.is_empty() {
        s.push_str("<p class=\"muted\">No runs to chart.</p>");
    } else {
        let long = crate::report::long_frame(&hc).map_err(pe)?;
        drop(hc);
        let h = crate::report::history(&long, &chart_metrics).map_err(pe)?;
        drop(long);
        let runs_col = h.column("run").map_err(pe)?;
        let mut runs: Vec<Option<i64>> = (0..h.height())
            .map(|i| runs_col.get(i).ok().and_then(|v| v.extract::<i64>()))
            .collect();
        runs.sort();
        runs.dedup();
        let run_labels: Vec<String> =
            runs.iter().map(|r| r.map_or("–".into(), |r| r.to_string())).collect();
        let mut series_of: BTreeMap<String, usize> = BTreeMap::new();
        for i in 0..h.height() {
            let key = format!("{} {}", str_at(&h, "provider", i), str_at(&h, "model", i));
            let n = series_of.len();
            series_of.entry(key).or_insert(n);
        }
        let mut labels: Vec<(usize, String)> =
            series_of.iter().map(|(k, &i)| (i, k.clone())).collect();
        labels.sort();
        let mut first = true;
        s.push_str(r#"<div class="charts">"#);
        for m in &chart_metrics {
            let mut series: Vec<svg::Series> = labels
                .iter()
                .map(|(_, l)| svg::Series { label: l.clone(), points: Vec::new() })
                .collect();
            let col = h.column(m.as_str()).map_err(pe)?;
            for i in 0..h.height() {
                let Some(v) = cell(col, i).1 else { continue };
                let r = runs_col.get(i).ok().and_then(|v| v.extract::<i64>());
                let x = runs.iter().position(|q| *q == r).unwrap_or(0);
                let key = format!("{} {}", str_at(&h, "provider", i), str_at(&h, "model", i));
                series[series_of[&key]].points.push((x, v));
            }
            for ser in &mut series {
                ser.points.sort_by_key(|p| p.0);
            }
            if first {
                s.push_str("</div>");
                s.push_str(&svg::legend(&series));
                s.push_str(r#"<div class="charts">"#);
                first = false;
            }
            s.push_str(&svg::line_chart(m, &run_labels, &series));
        }
        s.push_str("</div>");
    }
    Ok(())
}

/// The index's comparison of two selections (`--compare`), when asked for.
fn index_comparison(
    s: &mut String,
    cols: &ScoreColumns,
    opts: &SiteOptions,
    links: &HashMap<(String, String), String>,
) -> Result<()> {
    if let Some((a, b)) = &opts.compare {
        let long = crate::report::long_frame(cols).map_err(pe)?;
        let ci = crate::report::Ci::DEFAULT;
        let (per_metric, rows) =
            crate::report::compare(&long, cols, a, b, Some(&ci)).map_err(pe)?;
        drop(long);
        let _ = write!(
            s,
            r#"<h2 id="compare">Comparison: {} → {}</h2><p class="muted">Per metric, over the documents both scored (n; documents scored by one side only are dropped): the means, their difference B − A with its paired {}, the paired sign-flip test's p and Holm's adjusted p across the metrics, and how many documents got worse and better.</p>"#,
            esc(&sel_text(a)),
            esc(&sel_text(b)),
            esc(&ci.describe())
        );
        s.push_str(&frame_table(&per_metric, "compare", links, ""));
        let delta = rows.column("delta").map_err(pe)?;
        let n = rows.height();
        let losses: Vec<usize> = (0..n)
            .filter(|&i| cell(delta, i).1.is_some_and(|d| d < 0.0))
            .take(opts.limit)
            .collect();
        let wins: Vec<usize> = (0..n)
            .rev()
            .filter(|&i| cell(delta, i).1.is_some_and(|d| d > 0.0))
            .take(opts.limit)
            .collect();
        for (title, idx, class) in
            [("Biggest regressions", losses, "regressions"), ("Biggest wins", wins, "wins")]
        {
            let _ = write!(s, "<h3>{title}</h3>");
            if idx.is_empty() {
                s.push_str("<p class=\"muted\">None.</p>");
                continue;
            }
            let sub = rows
                .take(&IdxCa::from_vec("i".into(), idx.iter().map(|&i| i as IdxSize).collect()))
                .map_err(pe)?;
            s.push_str(&frame_table(&sub, class, links, ""));
        }
    }
    Ok(())
}

/// The index's failing tests (olmOCR), per group.
fn index_failing(s: &mut String, failing: &[FailingTest], failing_total: usize) {
    if failing_total > 0 {
        let _ = write!(
            s,
            r#"<h2 id="failing">Failing tests</h2><p class="muted">{failing_total} failing tests{}; per group, with the first failing repeat's explanation and the best fuzzy match of the test's text in the output.</p>"#,
            if failing_total > failing.len() {
                format!(", the first {} listed", failing.len())
            } else {
                String::new()
            }
        );
        let mut groups: BTreeMap<&str, Vec<&FailingTest>> = BTreeMap::new();
        for f in failing {
            groups.entry(f.group.as_str()).or_default().push(f);
        }
        for (g, tests) in groups {
            let _ = write!(
                s,
                r#"<h3>{} <span class="muted">({} failing)</span></h3><div class="scroll"><table class="failing"><thead><tr><th>provider</th><th>document</th><th>test</th><th>explanation</th><th>best match</th></tr></thead><tbody>"#,
                esc(g),
                tests.len()
            );
            for f in tests {
                let clip = |t: &str| t.chars().take(300).collect::<String>();
                let _ = write!(
                    s,
                    r#"<tr><td>{}</td><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                    esc(&f.provider),
                    esc(&f.href),
                    esc(&f.document),
                    esc(&f.id),
                    esc(&clip(&f.explanation)),
                    f.best.as_ref().map_or(String::from("–"), |(field, score, text)| format!(
                        "{} {}: {}",
                        esc(field),
                        num(Some(*score)),
                        esc(&clip(text))
                    ))
                );
            }
            s.push_str("</tbody></table></div>");
        }
    }
}

fn sel_text(s: &Selector) -> String {
    match &s.version {
        Some(v) => format!("{}@{v}", s.provider),
        None => s.provider.clone(),
    }
}
