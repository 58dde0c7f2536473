//! `corpus report --format html`, loaded in Debian's headless chromium (driven through
//! `scripts/browser/site.mjs`, playwright-core pinned by its package-lock.json): the sample
//! corpus plus a hostile document whose name, text and truth are markup. Nothing may load
//! from outside the site, nothing may log an error, no injected markup may run, the
//! leaderboard must hold the JSON report's numbers, and each page must show one box per
//! block of the output.
//!
//! scripts/test.sh installs chromium (Debian) and playwright-core (npm ci) when missing.
//! Without them the test skips with the reason; under `CI=true` that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{corpus, json, run, sample_dir, skip_or_fail};
use scraper::{ElementRef, Html, Selector};

const SCRIPT: &str = "<script>window.__pwned=1</script>";
const IMG: &str = "\"><img src=x onerror=window.__pwned=2>";
const NAME: &str = "x\"><img src=x onerror=window.__pwned=3>";

/// The browser and the driver, or why they are not there.
fn browser() -> Result<(PathBuf, PathBuf), String> {
    let chromium = std::env::var_os("CORPUS_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !chromium.is_file() {
        return Err(format!(
            "{} is absent (scripts/test.sh installs Debian's chromium)",
            chromium.display()
        ));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/browser");
    if !root.join("node_modules/playwright-core/package.json").is_file() {
        return Err(format!(
            "{} has no playwright-core (scripts/test.sh runs npm ci there)",
            root.display()
        ));
    }
    let node_ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !node_ok {
        return Err("node is not on PATH".into());
    }
    Ok((chromium, root.join("site.mjs")))
}

fn hostile_dir(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let text = format!("{SCRIPT} {IMG}");
    std::fs::write(dir.join(format!("{NAME}.pdf")), crate::util::tiny_pdf(&text, "")).unwrap();
    let truth = serde_json::json!({
        "name": format!("{NAME}.pdf"),
        "metadata": {
            "title": SCRIPT,
            "sections": [{"heading": IMG, "text": text}],
            "references": [{"title": IMG, "author": [SCRIPT]}]
        }
    });
    std::fs::write(dir.join(format!("{NAME}.pdf.json")), truth.to_string()).unwrap();
}

#[test]
fn the_html_report_is_safe_self_contained_and_shows_the_stores_numbers() {
    let (chromium, script) = match browser() {
        Ok(b) => b,
        Err(why) => return skip_or_fail(&format!("the HTML report's browser test: {why}")),
    };
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let hostile = d.path().join("hostile");
    hostile_dir(&hostile);
    for dir in [sample_dir(), hostile] {
        let out = run(corpus(&db)
            .args(["ingest", "--dataset", "sample", "--truth", "peerread"])
            .arg(dir));
        assert!(out.status.success());
    }
    for p in ["pdfium", "truth"] {
        assert!(run(corpus(&db).args(["ocr", "-q", "--provider", p])).status.success());
        let e = run(corpus(&db).args(["eval", "-q", "--suite", "paper", "--provider", p]));
        assert!(e.status.code().is_some_and(|c| c == 0 || c == 3));
    }
    let site = d.path().join("site");
    let images = d.path().join("images");
    let html = |site: &Path| {
        run(corpus(&db)
            .args(["report", "--suite", "paper", "--format", "html", "-o"])
            .arg(site)
            .env("CORPUS_PAGE_IMAGES", &images))
    };
    let first = html(&site);
    assert!(first.status.success());
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(stderr.contains("4 document pages"), "{stderr}");
    assert!(stderr.contains("0 reused, 0 failed"), "{stderr}");
    // The second run reuses every page image.
    let again = html(&d.path().join("site2"));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("page images: 0 rendered, 7 reused, 0 failed"), "{stderr}");

    let out = Command::new("node")
        .arg(&script)
        .arg("check")
        .arg(&site)
        .env("CORPUS_CHROMIUM", &chromium)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = json(&out);

    // Every page: no console error, no script error, no request outside the site, no
    // dialog, no script element, the flag an injected script would set unset.
    let pages: Vec<&serde_json::Value> = std::iter::once(&seen["index"])
        .chain(seen["documents"].as_array().unwrap().iter())
        .collect();
    assert_eq!(pages.len(), 5, "the index and four documents");
    for p in &pages {
        let url = p["url"].as_str().unwrap();
        for k in ["console_errors", "page_errors", "foreign_requests", "dialogs"] {
            assert_eq!(p[k], serde_json::json!([]), "{k} on {url}");
        }
        assert_eq!(p["scripts"], 0, "{url}");
        assert!(p["pwned"].is_null(), "{url}");
    }

    // The leaderboard holds the JSON report's numbers of the suite's headlines, cell for
    // cell (every metric with its interval: `the_leaderboard_leads_with_the_headlines_...`).
    let report =
        run(corpus(&db)
            .args(["report", "--suite", "paper", "--by", "provider", "--format", "json"]));
    let rows = json(&report);
    let cells = seen["index"]["leaderboard"].as_array().unwrap();
    let mut expected = 0;
    for r in rows.as_array().unwrap() {
        for (k, v) in r.as_object().unwrap() {
            if !corpus::report::html::headline_metrics("paper").contains(&k.as_str()) {
                continue;
            }
            expected += 1;
            let cell = cells
                .iter()
                .find(|c| {
                    c["provider"] == r["provider"] && c["model"] == r["model"] && c["metric"] == *k
                })
                .unwrap_or_else(|| panic!("no leaderboard cell for {} {k}", r["provider"]));
            // Equal as numbers (JSON from JS writes 1, serde_json 1.0), bit for bit.
            assert_eq!(cell["value"].as_f64(), v.as_f64(), "{} {k}", r["provider"]);
            assert_eq!(cell["value"].is_null(), v.is_null(), "{} {k}", r["provider"]);
        }
    }
    assert_eq!(cells.len(), expected);
    assert_eq!(seen["index"]["doc_links"].as_array().unwrap().len(), 4);
    assert!(seen["index"]["charts"].as_u64().unwrap() >= 6);

    // One box per block of each pdfium output, page by page; each page image loaded.
    let store = corpus::store::Store::open_read_only(&db).unwrap();
    for page in seen["documents"].as_array().unwrap() {
        let file = page["file"].as_str().unwrap();
        let doc = store
            .documents(None)
            .unwrap()
            .into_iter()
            .find(|d| corpus::report::html::doc_href(&d.hash) == format!("doc/{file}"))
            .unwrap();
        let out = store.latest_output(doc.id, "pdfium").unwrap().unwrap();
        let blob = store.blob(out.blob.as_deref().unwrap()).unwrap().unwrap();
        let parsed: corpus::doc::Doc = serde_json::from_slice(&blob).unwrap();
        let figures = page["figures"].as_array().unwrap();
        let mut drawn = 0;
        let pdfium = format!("pdfium@{}", corpus::providers::pdfium::ADAPTER_VERSION);
        for f in figures.iter().filter(|f| f["provider"] == pdfium.as_str()) {
            let p = f["page"].as_u64().unwrap() as u32 - 1;
            let n = parsed.blocks.iter().filter(|b| b.page == p).count();
            assert_eq!(f["boxes"].as_u64().unwrap() as usize, n, "{file} page {}", p + 1);
            drawn += n;
            assert_eq!(f["image"]["loaded"], true, "{file} page {}", p + 1);
        }
        assert_eq!(drawn, parsed.blocks.len(), "{file}: every block drawn");
        assert!(drawn > 0);
        // No <img> but the page images.
        let imgs = page["imgs"].as_array().unwrap();
        assert_eq!(imgs.len(), figures.len(), "{file}");
        assert!(imgs.iter().all(|s| s.as_str().unwrap().starts_with("../img/")), "{file}");
        assert!(page["traces"].as_u64().unwrap() >= 19, "{file}: every score's trace");
    }

    // The hostile document: its markup is shown as text.
    let h = seen["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["title"] == NAME)
        .expect("the hostile document's page, titled with its name as text");
    let text = h["body_text"].as_str().unwrap();
    assert!(text.contains(SCRIPT), "{text}");
    assert!(text.contains(IMG), "{text}");
}

/// Without a browser: every file of the site carries the CSP, refers to no other host, and
/// holds the hostile strings only escaped.
#[test]
fn the_html_files_carry_the_csp_and_only_escaped_markup() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let hostile = d.path().join("hostile");
    hostile_dir(&hostile);
    let ingest = corpus(&db)
        .args(["ingest", "-q", "--dataset", "sample", "--truth", "peerread"])
        .arg(&hostile)
        .status()
        .unwrap();
    assert!(ingest.success());
    assert!(run(corpus(&db).args(["ocr", "-q", "--provider", "pdfium"])).status.success());
    assert!(run(corpus(&db).args(["eval", "-q", "--suite", "paper"])).status.success());
    let site = d.path().join("site");
    let out = run(corpus(&db)
        .args(["report", "--suite", "paper", "--format", "html", "-o"])
        .arg(&site)
        .env("CORPUS_PAGE_IMAGES", d.path().join("images")));
    assert!(out.status.success());
    let mut files = vec![site.join("index.html")];
    for e in std::fs::read_dir(site.join("doc")).unwrap() {
        files.push(e.unwrap().path());
    }
    assert_eq!(files.len(), 2);
    for f in &files {
        let html = std::fs::read_to_string(f).unwrap();
        assert!(
            html.contains(
                r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none';"#
            ),
            "{}",
            f.display()
        );
        for bad in ["<script", "<img src=x", "http://", "https://"] {
            assert!(!html.contains(bad), "{bad} in {}", f.display());
        }
    }
    let doc = std::fs::read_to_string(&files[1]).unwrap();
    assert!(doc.contains("&lt;script&gt;window.__pwned=1&lt;/script&gt;"));
    assert!(doc.contains("&quot;&gt;&lt;img src=x onerror=window.__pwned=2&gt;"));
    // The document's name is the page's title, escaped.
    assert!(doc.contains("<h1>x&quot;&gt;&lt;img src=x onerror=window.__pwned=3&gt;</h1>"));
}

/// The elements of `html` that `css` selects.
fn select<'a>(html: &'a Html, css: &str) -> Vec<ElementRef<'a>> {
    html.select(&Selector::parse(css).unwrap()).collect()
}

/// A cell's `data-` number (`null` for none), read by serde_json as the JSON report's numbers
/// are (its fast float parser may miss by one ulp, the same way on both sides).
fn data(e: &ElementRef<'_>, name: &str) -> Option<f64> {
    let v = e.value().attr(name).unwrap_or_else(|| panic!("no {name}"));
    (v != "null").then(|| serde_json::from_str(v).unwrap())
}

/// Issue 35, part 5: the index leads with the paper suite's headlines, providers sorted by the
/// first (the empty provider last, as the floor), each mean with the interval `report --by
/// provider --format json` gives it, the best of each column marked, every metric in the
/// `<details>` table, and no script.
#[test]
fn the_leaderboard_leads_with_the_headlines_sorted_with_the_json_reports_intervals() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let ingest = ["ingest", "-q", "--dataset", "sample", "--truth", "peerread"];
    assert!(run(corpus(&db).args(ingest).arg(sample_dir())).status.success());
    for p in ["pdfium", "truth", "empty"] {
        assert!(run(corpus(&db).args(["ocr", "-q", "--provider", p])).status.success(), "{p}");
        let e = run(corpus(&db).args(["eval", "-q", "--suite", "paper", "--provider", p]));
        assert!(e.status.code().is_some_and(|c| c == 0 || c == 3), "{p}");
    }
    let site = d.path().join("site");
    let out = run(corpus(&db)
        .args(["report", "--suite", "paper", "--format", "html", "--max-pages", "1", "-o"])
        .arg(&site)
        .env("CORPUS_PAGE_IMAGES", d.path().join("images")));
    assert!(out.status.success());
    let text = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(!text.to_lowercase().contains("<script"));
    let index = Html::parse_document(&text);
    let rows =
        json(&run(corpus(&db)
            .args(["report", "--suite", "paper", "--by", "provider", "--format", "json"])));
    // empty@1, pdfium and the truth (one model per document: the truth's digest).
    let rows = rows.as_array().unwrap();
    assert!(rows.len() >= 3);
    let heads = corpus::metrics::paper::HEADLINE;

    // The headline table: rank, provider, model, n, then the headlines in the suite's order.
    let board = select(&index, "table.leaderboard");
    assert_eq!(board.len(), 1);
    let th: Vec<String> = board[0]
        .select(&Selector::parse("thead th").unwrap())
        .map(|t| t.value().attr("data-metric").unwrap_or("").to_string())
        .collect();
    assert_eq!(th[..4], ["", "", "", ""]);
    assert_eq!(th[4..4 + heads.len()], heads);
    // Then what a page took (class `usage`, no data-metric).
    let usage = board[0].select(&Selector::parse("thead th.usage").unwrap()).count();
    assert_eq!(th.len(), 4 + heads.len() + usage, "{th:?}");
    assert!(usage >= 1, "s/page at least: {th:?}");

    for (table, metrics) in [
        ("table.leaderboard", heads.iter().map(|h| h.to_string()).collect::<Vec<_>>()),
        (
            "table.all-metrics",
            rows[0]
                .as_object()
                .unwrap()
                .keys()
                .filter(|k| {
                    !["provider", "model", "n"].contains(&k.as_str())
                        && !["s/page", "cpu s/page", "tokens/page", "¢/page"].contains(&k.as_str())
                        && !k.ends_with("_lo")
                        && !k.ends_with("_hi")
                })
                .cloned()
                .collect(),
        ),
    ] {
        let trs = select(&index, &format!("{table} tbody tr"));
        assert_eq!(trs.len(), rows.len(), "{table}");
        // Sorted by text_r, best first; the floor last, muted and noted.
        let firsts: Vec<Option<f64>> = trs
            .iter()
            .map(|tr| {
                let sel = Selector::parse(r#"td[data-metric="text_r"]"#).unwrap();
                data(&tr.select(&sel).next().unwrap(), "data-value")
            })
            .collect();
        assert!(firsts.windows(2).all(|w| w[0] >= w[1]), "{table}: {firsts:?}");
        let last = trs.last().unwrap();
        assert_eq!(last.value().attr("data-provider"), Some("empty@1"), "{table}");
        assert_eq!(last.value().attr("class"), Some("floor"));
        assert!(last.text().collect::<String>().contains("floor: every page empty"));
        // Every metric of the JSON report, with its interval, in every row.
        for r in rows {
            let tr = trs
                .iter()
                .find(|tr| {
                    tr.value().attr("data-provider") == r["provider"].as_str()
                        && tr.value().attr("data-model") == r["model"].as_str()
                })
                .unwrap_or_else(|| panic!("{table}: no row for {}", r["provider"]));
            let cells: Vec<ElementRef<'_>> =
                tr.select(&Selector::parse("td[data-metric]").unwrap()).collect();
            assert_eq!(cells.len(), metrics.len(), "{table}");
            for m in &metrics {
                let td = cells
                    .iter()
                    .find(|c| c.value().attr("data-metric") == Some(m.as_str()))
                    .unwrap_or_else(|| panic!("{table}: no {m} of {}", r["provider"]));
                for (attr, key) in [
                    ("data-value", m.clone()),
                    ("data-lo", format!("{m}_lo")),
                    ("data-hi", format!("{m}_hi")),
                ] {
                    assert_eq!(data(td, attr), r[&key].as_f64(), "{table} {} {key}", r["provider"]);
                }
            }
        }
        // The best of each column is marked, and only it.
        for m in &metrics {
            let tds = select(&index, &format!(r#"{table} td[data-metric="{m}"]"#));
            let best = tds
                .iter()
                .filter_map(|td| data(td, "data-value"))
                .fold(None, |b: Option<f64>, v| Some(b.map_or(v, |b| b.max(v))));
            for td in &tds {
                let marked = td.value().classes().any(|c| c == "best");
                assert_eq!(marked, best.is_some() && data(td, "data-value") == best, "{table} {m}");
            }
        }
    }
    // The headline table draws each mean as a bar with its interval's whisker.
    let valued = select(&index, "table.leaderboard td[data-metric]")
        .iter()
        .filter(|td| data(td, "data-value").is_some())
        .count();
    assert_eq!(select(&index, "table.leaderboard td svg.bar").len(), valued);
    assert!(!select(&index, "table.leaderboard svg.bar path.whisker").is_empty());
    // The full table is behind a <details> that names how many metrics it holds.
    let summary = select(&index, "details.all-metrics > summary");
    let n_all = select(&index, "table.all-metrics thead th[data-metric]").len();
    assert!(n_all > heads.len());
    assert_eq!(summary[0].text().collect::<String>(), format!("All {n_all} metrics"));
}

/// Issue 35, part 5: `report --format html` with no scores to show writes no site and exits 1
/// with its message.
#[test]
fn an_html_report_without_scores_exits_1() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("c.db");
    let hostile = d.path().join("hostile");
    hostile_dir(&hostile);
    let ingest = ["ingest", "-q", "--dataset", "sample", "--truth", "peerread"];
    assert!(run(corpus(&db).args(ingest).arg(&hostile)).status.success());
    let site = d.path().join("site");
    for quiet in [false, true] {
        let mut c = corpus(&db);
        c.args(["report", "--suite", "paper", "--format", "html", "-o"]).arg(&site);
        if quiet {
            c.arg("-q");
        }
        let out = run(&mut c);
        assert_eq!(out.status.code(), Some(1));
        // Names what matched nothing (here: no scores at all yet).
        assert!(String::from_utf8_lossy(&out.stderr).contains("no scores"));
        assert!(!site.join("index.html").exists());
    }
}

/// A store whose documents have no truth: sample PDFs ingested without one, read by pdfium
/// (boxes), by imported Markdown (no boxes) and by `empty`.
fn untruthed_store(d: &Path) -> PathBuf {
    let db = d.join("c.db");
    assert!(run(corpus(&db).args(["ingest", "-q", "--dataset", "mine"]).arg(sample_dir()))
        .status
        .success());
    for p in ["pdfium", "empty"] {
        assert!(run(corpus(&db).args(["ocr", "-q", "--provider", p])).status.success(), "{p}");
    }
    let md = d.join("md");
    std::fs::create_dir_all(&md).unwrap();
    for name in ["101", "102", "103"] {
        let text = format!("# {name}\n\nA paragraph of {name}.\u{c}Page two of {name}.\n");
        std::fs::write(md.join(format!("{name}.md")), text).unwrap();
    }
    let out = run(corpus(&db)
        .args(["import", "-q", "--format", "markdown", "--provider", "md"])
        .arg(&md));
    assert!(out.status.success());
    db
}

/// Issue 47, part 5: `report --format html` on documents without truth writes the agreement
/// site (heat maps, the ranking linking to each page, every provider's blocks drawn) instead of
/// refusing; a store with truthed and untruthed datasets gets the usual site plus these.
#[test]
fn the_html_report_works_without_truth_and_shows_the_agreement() {
    let d = tempfile::tempdir().unwrap();
    let db = untruthed_store(d.path());
    let images = d.path().join("images");
    let site = d.path().join("site");
    // With --suite and no score: the agreement alone, said on stderr.
    let out = run(corpus(&db)
        .args(["report", "--suite", "paper", "--format", "html", "--max-pages", "2", "-o"])
        .arg(&site)
        .env("CORPUS_PAGE_IMAGES", &images));
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no scores of suite paper match"));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    let page = Html::parse_document(&index);
    let maps = select(&page, "table.heatmap");
    let measures: Vec<&str> =
        maps.iter().map(|m| m.value().attr("data-measure").unwrap()).collect();
    assert_eq!(measures, ["text", "table", "formula", "order"]);
    // Three providers: six off-diagonal cells per map; the JSON of `agree` holds the same.
    let v = json(&run(corpus(&db).args(["agree", "-q", "--format", "json"])));
    for (m, map) in measures.iter().zip(&maps) {
        let cells: Vec<ElementRef<'_>> = map.select(&Selector::parse("td.heat").unwrap()).collect();
        assert_eq!(cells.len(), 6, "{m}");
        for c in cells {
            let (a, b) = (c.value().attr("data-a").unwrap(), c.value().attr("data-b").unwrap());
            let want = v["measures"][m]["matrix"][a.parse::<usize>().unwrap()]
                [b.parse::<usize>().unwrap()]["mean"]
                .as_f64();
            assert_eq!(data(&c, "data-value"), want, "{m} {a} {b}");
        }
    }
    // The ranking: every page with a spread, each linked to its section of an existing page.
    let links = select(&page, "table.ranking tbody tr a");
    assert!(links[0].value().attr("href").unwrap().contains("#p"), "the top page is drawn");
    assert_eq!(
        links.len(),
        v["pages"].as_array().unwrap().iter().filter(|p| !p["spread"].is_null()).count()
    );
    for a in &links {
        let href = a.value().attr("href").unwrap();
        let (file, anchor) = href.split_once('#').unwrap_or((href, ""));
        let doc =
            std::fs::read_to_string(site.join(file)).unwrap_or_else(|e| panic!("{href}: {e}"));
        assert!(anchor.is_empty() || doc.contains(&format!("id=\"{anchor}\"")), "{href}");
    }
    // A document page: pdfium's blocks drawn, the Markdown's listed, the CSP, no script.
    for e in std::fs::read_dir(site.join("agree")).unwrap() {
        let f = e.unwrap().path();
        let html = std::fs::read_to_string(&f).unwrap();
        assert!(html.contains("Content-Security-Policy"), "{}", f.display());
        assert!(!html.contains("<script"), "{}", f.display());
        let doc = Html::parse_document(&html);
        let sections = select(&doc, "section.agree-page");
        assert!(!sections.is_empty() && sections.len() <= 2, "{}", f.display());
        assert!(!select(&doc, "figure.page[data-provider^=\"pdfium@\"] rect.blk").is_empty());
        assert!(!select(&doc, "div.unplaced[data-provider=\"md@imported\"]").is_empty());
    }

    // Nothing to compare and no score: no site, a failure.
    let lone = d.path().join("lone.db");
    assert!(run(corpus(&lone).args(["ingest", "-q", "--dataset", "mine"]).arg(sample_dir()))
        .status
        .success());
    let out =
        run(corpus(&lone).args(["report", "--format", "html", "-o"]).arg(d.path().join("none")));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to compare"));

    // A truthed dataset beside it: the usual site, linking to the agreement pages.
    let hostile = d.path().join("hostile");
    hostile_dir(&hostile);
    let ingest = ["ingest", "-q", "--dataset", "sample", "--truth", "peerread"];
    assert!(run(corpus(&db).args(ingest).arg(&hostile)).status.success());
    assert!(run(corpus(&db).args(["ocr", "-q", "--provider", "pdfium"])).status.success());
    let e = run(corpus(&db).args(["eval", "-q", "--suite", "paper", "--provider", "pdfium"]));
    assert!(e.status.code().is_some_and(|c| c == 0 || c == 3));
    let both = d.path().join("both");
    let out = run(corpus(&db)
        .args(["report", "--suite", "paper", "--format", "html", "--max-pages", "1", "-o"])
        .arg(&both)
        .env("CORPUS_PAGE_IMAGES", &images));
    assert!(out.status.success());
    let index = std::fs::read_to_string(both.join("index.html")).unwrap();
    assert!(
        index.contains("table class=\"leaderboard") || index.contains("class=\"leaderboard"),
        "the usual index"
    );
    assert!(index.contains("href=\"agree.html\""));
    let agree = std::fs::read_to_string(both.join("agree.html")).unwrap();
    assert_eq!(select(&Html::parse_document(&agree), "table.heatmap").len(), 4);
    assert!(agree.contains("href=\"index.html\""));

    // In a browser: no error, no foreign request, the heat maps coloured, every drawn page's
    // image loaded.
    let (chromium, script) = match browser() {
        Ok(b) => b,
        Err(why) => return skip_or_fail(&format!("the agreement pages' browser test: {why}")),
    };
    let out = Command::new("node")
        .arg(&script)
        .arg("check")
        .arg(&site)
        .env("CORPUS_CHROMIUM", &chromium)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = json(&out);
    let agree = &seen["agree"];
    assert_eq!(agree["file"], "index.html");
    let pages: Vec<&serde_json::Value> =
        std::iter::once(agree).chain(seen["agree_documents"].as_array().unwrap()).collect();
    assert_eq!(pages.len(), 4, "agreement index and three documents");
    for p in &pages {
        for k in ["console_errors", "page_errors", "foreign_requests", "dialogs"] {
            assert_eq!(p[k], serde_json::json!([]), "{k} on {}", p["url"]);
        }
        assert_eq!(p["scripts"], 0);
    }
    let heat = agree["heat"].as_array().unwrap();
    assert_eq!(heat.len(), 24);
    assert!(
        heat.iter().all(|c| c["value"].is_null() != c["coloured"].as_bool().unwrap()),
        "{heat:?}"
    );
    for doc in seen["agree_documents"].as_array().unwrap() {
        for sec in doc["sections"].as_array().unwrap() {
            assert_eq!(sec["figures"], 2, "pdfium and empty drawn: {sec}");
            assert_eq!(sec["unplaced"], 1, "the Markdown as text: {sec}");
            assert_eq!(sec["pairs"], 3);
            assert!(sec["images"].as_array().unwrap().iter().all(|x| x == true), "{sec}");
        }
    }
}
