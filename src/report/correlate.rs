//! `corpus correlate`: how well each stored metric agrees with human ratings.
//!
//! The ratings file is CSV with a header row naming at least `document` and `rating` columns
//! (and optionally `provider`); fields may be double-quoted (`""` inside is a quote). Each
//! rating is paired with the newest value of each metric for that document name, from the
//! rated provider when the file has a `provider` column, else from every provider scored.
//! Per metric: the number of pairs and Pearson's r, Spearman's ρ and Kendall's τ-b
//! ([`crate::metrics::correlation`]).
//!
//! A **study file** ([`read_study`]) brings its own pairs, ratings and scores: a JSON array of
//! items as pdf-parse-bench's formula metric study writes them (`formulas-dev.json`: each
//! item with `gt_formula`, `extracted_formula`, `human_study_scores`, `llm_scores` of several
//! judge models and `metrics` such as `cdm_score`). The reference is the mean human score;
//! every recorded score becomes a column (`judge:<model> (recorded)`, `cdm_score
//! (recorded)`, …), and corpus adds its own `edit_sim` = 1 − Levenshtein / max length on the
//! two strings as given, so recorded and recomputed metrics sit in one table
//! ([`correlate_study`]). Columns from elsewhere (`corpus judge --pairs` output) join by id
//! ([`Study::add_column`]).
//!
//! The **table study** (`tables-dev.json` of pdf-parse-bench's table metric study) nests its
//! pairs: each item is a ground-truth table (`gt_id`, LaTeX `gt_table`, `gt_table_html`,
//! `complexity`) with `extractions`, one per parser (`parser`, `extracted_table` as the parser
//! wrote it, `metrics`, `llm_scores`, `human_scores`). A pair is an extraction with at least
//! one human score and a non-empty table, named `<gt_id>/<parser>`. Judges come in as in the
//! formula study, only the scores whose `prompt_variant` is the one asked (`tuned` by default;
//! a score without a variant is kept: the file then has one prompt). corpus adds the table
//! suite's own scores of each pair (`table_columns`): the GT's LaTeX and the extraction
//! read by the suite's readers ([`crate::formats::tables`]) and scored as the suite scores a
//! matched pair (`teds`, `teds_s`, `grits_top`, `grits_con` as F, `score_index`,
//! `score_content`, `value_acc`); an extraction in which no table can be read scores as the
//! suite scores a missed table (0; `value_acc` 0 where the GT has numbers).

use serde::Serialize;

use crate::metrics::correlation::{kendall_tau_b, pearson, spearman};
use crate::metrics::levenshtein;
use crate::store::LatestValue;

/// One human rating.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating {
    /// The document's name.
    pub document: String,
    /// The provider rated, if the file says.
    pub provider: Option<String>,
    /// The rating.
    pub rating: f64,
}

fn split_csv_line(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|f| f.trim().to_string()).collect()
}

/// Reads a ratings CSV; names the line of a malformed row.
pub fn read_ratings(text: &str) -> Result<Vec<Rating>, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or("the ratings file is empty")?;
    let cols = split_csv_line(header.trim_start_matches('\u{feff}'));
    let find = |name: &str| cols.iter().position(|c| c.eq_ignore_ascii_case(name));
    let doc = find("document").ok_or("the header has no `document` column")?;
    let rating = find("rating").ok_or("the header has no `rating` column")?;
    let provider = find("provider");
    let mut out = Vec::new();
    for (i, line) in lines {
        let f = split_csv_line(line);
        let get = |k: usize| f.get(k).map(String::as_str).unwrap_or("");
        let r: f64 = get(rating)
            .parse()
            .map_err(|_| format!("line {}: rating {:?} is not a number", i + 1, get(rating)))?;
        out.push(Rating {
            document: get(doc).to_string(),
            provider: provider.map(|k| get(k).to_string()).filter(|p| !p.is_empty()),
            rating: r,
        });
    }
    Ok(out)
}

/// One metric's agreement with the ratings.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Correlation {
    /// Metric id.
    pub metric: String,
    /// Pairs (metric value, rating).
    pub n: usize,
    /// Pearson's r.
    pub pearson: Option<f64>,
    /// Spearman's ρ.
    pub spearman: Option<f64>,
    /// Kendall's τ-b.
    pub kendall: Option<f64>,
}

/// Correlates every metric in `values` with the ratings, metrics in name order.
pub fn correlate(values: &[LatestValue], ratings: &[Rating]) -> Vec<Correlation> {
    let mut metrics: Vec<&str> = values.iter().map(|v| v.metric.as_str()).collect();
    metrics.sort_unstable();
    metrics.dedup();
    metrics
        .into_iter()
        .map(|m| {
            let (mut x, mut y) = (Vec::new(), Vec::new());
            for r in ratings {
                for v in values.iter().filter(|v| {
                    v.metric == m
                        && v.document == r.document
                        && r.provider.as_deref().is_none_or(|p| p == v.provider)
                }) {
                    x.push(v.value);
                    y.push(r.rating);
                }
            }
            Correlation {
                metric: m.to_string(),
                n: x.len(),
                pearson: pearson(&x, &y),
                spearman: spearman(&x, &y),
                kendall: kendall_tau_b(&x, &y),
            }
        })
        .collect()
}

/// A study's pairs: one human reference per pair and named score columns.
#[derive(Debug, Clone, Default)]
pub struct Study {
    /// Pair ids, in file order.
    pub ids: Vec<String>,
    /// The reference per pair: the mean of its human ratings.
    pub human: Vec<f64>,
    /// (column name, one value per pair or none).
    pub columns: Vec<(String, Vec<Option<f64>>)>,
    /// (ground truth, prediction) per pair, where the item has both, for metrics computed
    /// here (edit similarity; CDM in the CLI, which renders).
    pub pairs: Vec<Option<(String, String)>>,
}

impl Study {
    fn column(&mut self, name: &str) -> &mut Vec<Option<f64>> {
        if let Some(i) = self.columns.iter().position(|(n, _)| n == name) {
            return &mut self.columns[i].1;
        }
        self.columns.push((name.to_string(), vec![None; self.ids.len()]));
        &mut self.columns.last_mut().expect("just pushed").1
    }

    /// Adds a column from (pair id, value) pairs; returns how many ids were not in the study.
    pub fn add_column(&mut self, name: &str, values: &[(String, f64)]) -> usize {
        let index: std::collections::HashMap<&str, usize> =
            self.ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect();
        let hits: Vec<(usize, f64)> =
            values.iter().filter_map(|(id, v)| index.get(id.as_str()).map(|&i| (i, *v))).collect();
        let missing = values.len() - hits.len();
        let col = self.column(name);
        for (i, v) in hits {
            col[i] = Some(v);
        }
        missing
    }
}

/// corpus's own columns of the table study, in report order.
pub const TABLE_COLUMNS: [&str; 7] =
    ["teds", "teds_s", "grits_top", "grits_con", "score_index", "score_content", "value_acc"];

/// Each recorded metric of the table study beside the corpus column with its definition.
pub const SAME_DEFINITION: [(&str, &str); 6] = [
    ("teds (recorded)", "teds"),
    ("teds_structure (recorded)", "teds_s"),
    ("grits_top (recorded)", "grits_top"),
    ("grits_con (recorded)", "grits_con"),
    ("score_index (recorded)", "score_index"),
    ("score_content (recorded)", "score_content"),
];

/// Reads a study file (see the module doc); names the item of a malformed entry. Judge
/// scores are kept where their `prompt_variant` is `prompt_variant` or absent.
pub fn read_study(text: &str, prompt_variant: &str) -> Result<Study, String> {
    let items: Vec<serde_json::Value> = serde_json::from_str::<serde_json::Value>(text)
        .map_err(|e| format!("not JSON: {e}"))?
        .as_array()
        .cloned()
        .ok_or("expected a JSON array of pairs")?;
    if items.first().is_some_and(|i| i.get("extractions").is_some()) {
        return read_table_study(&items, prompt_variant);
    }
    let mut study = Study::default();
    let mut rows = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let humans: Vec<f64> = it["human_study_scores"]
            .as_array()
            .ok_or_else(|| format!("item {}: no human_study_scores array", i + 1))?
            .iter()
            .filter_map(|v| v.as_f64())
            .collect();
        if humans.is_empty() {
            return Err(format!("item {}: human_study_scores has no number", i + 1));
        }
        let id = it["gt_id"].as_str().map(str::to_string).unwrap_or_else(|| (i + 1).to_string());
        study.ids.push(id);
        study.human.push(humans.iter().sum::<f64>() / humans.len() as f64);
        rows.push(it);
    }
    for (i, it) in rows.iter().enumerate() {
        recorded_columns(&mut study, i, it, prompt_variant);
        let gt = it["gt_formula"].as_str().or(it["gt_table"].as_str());
        let pred = it["extracted_formula"].as_str().or(it["extracted_table"].as_str());
        let pair = gt.zip(pred);
        if let Some((g, p)) = pair {
            study.column("edit_sim")[i] = Some(levenshtein::similarity(g, p));
        }
        study.pairs.push(pair.map(|(g, p)| (g.to_string(), p.to_string())));
    }
    Ok(study)
}

/// The judges' and metrics' recorded scores of pair `i` as `(recorded)` columns.
fn recorded_columns(study: &mut Study, i: usize, it: &serde_json::Value, prompt_variant: &str) {
    if let Some(scores) = it["llm_scores"].as_array() {
        for s in scores {
            let variant = s["prompt_variant"].as_str();
            if variant.is_some_and(|v| v != prompt_variant) {
                continue;
            }
            if let (Some(m), Some(v)) = (s["judge_model"].as_str(), s["score"].as_f64()) {
                study.column(&format!("judge:{m} (recorded)"))[i] = Some(v);
            }
        }
    }
    if let Some(m) = it["metrics"].as_object() {
        for (k, v) in m {
            if let Some(v) = v.as_f64() {
                study.column(&format!("{k} (recorded)"))[i] = Some(v);
            }
        }
    }
}

/// Reads the table study's nested layout (see the module doc).
fn read_table_study(items: &[serde_json::Value], prompt_variant: &str) -> Result<Study, String> {
    let mut study = Study::default();
    let mut rows: Vec<(&serde_json::Value, &str, &str)> = Vec::new();
    for (i, gt) in items.iter().enumerate() {
        let gt_id = gt["gt_id"].as_str().map(str::to_string).unwrap_or_else(|| (i + 1).to_string());
        let gt_table = gt["gt_table"]
            .as_str()
            .ok_or_else(|| format!("item {} ({gt_id}): no gt_table", i + 1))?;
        let extractions = gt["extractions"]
            .as_array()
            .ok_or_else(|| format!("item {} ({gt_id}): extractions is not an array", i + 1))?;
        for (j, ex) in extractions.iter().enumerate() {
            let humans: Vec<f64> = ex["human_scores"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
                .unwrap_or_default();
            let pred = ex["extracted_table"].as_str().unwrap_or("");
            if humans.is_empty() || pred.trim().is_empty() {
                continue;
            }
            let parser =
                ex["parser"].as_str().map(str::to_string).unwrap_or_else(|| (j + 1).to_string());
            study.ids.push(format!("{gt_id}/{parser}"));
            study.human.push(humans.iter().sum::<f64>() / humans.len() as f64);
            rows.push((ex, gt_table, pred));
        }
    }
    for (i, (ex, gt, pred)) in rows.iter().enumerate() {
        recorded_columns(&mut study, i, ex, prompt_variant);
        study.pairs.push(Some((gt.to_string(), pred.to_string())));
    }
    table_columns(&mut study);
    Ok(study)
}

/// Adds corpus's own table columns ([`TABLE_COLUMNS`]) from each pair: the GT as LaTeX and the
/// extraction in its notation, read and scored as the table suite reads and scores a matched
/// pair; an extraction without a readable table scores as a missed table.
pub(crate) fn table_columns(study: &mut Study) {
    use crate::formats::tables::{read_table, TableFormat};
    use crate::metrics::table::{score_pair, TableScores};
    let scored: Vec<Option<TableScores>> = study
        .pairs
        .iter()
        .map(|p| {
            let (gt, pred) = p.as_ref()?;
            let g = read_table(gt, Some(TableFormat::Latex)).ok()?;
            Some(match read_table(pred, None) {
                Ok(t) => score_pair(&g, &t),
                Err(_) => TableScores::missed(&g),
            })
        })
        .collect();
    type Pick = fn(&TableScores) -> Option<f64>;
    let picks: [Pick; 7] = [
        |s| Some(s.teds),
        |s| Some(s.teds_s),
        |s| Some(s.grits_top.f),
        |s| Some(s.grits_con.f),
        |s| Some(s.score.index()),
        |s| Some(s.score.content()),
        |s| s.values.value(),
    ];
    for (name, pick) in TABLE_COLUMNS.iter().zip(picks) {
        let col: Vec<Option<f64>> = scored.iter().map(|s| s.as_ref().and_then(pick)).collect();
        *study.column(name) = col;
    }
}

/// How often a corpus column equals the recorded column of the same definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// The recorded column.
    pub recorded: String,
    /// corpus's column.
    pub corpus: String,
    /// Pairs where both have a value.
    pub n: usize,
    /// Of those, pairs where they differ by at most 1e-6.
    pub equal: usize,
    /// The largest difference.
    pub max_diff: f64,
    /// The mean signed difference, corpus − recorded.
    pub mean_diff: f64,
}

/// Each recorded metric against corpus's column of the same definition ([`SAME_DEFINITION`]).
pub fn agreement(study: &Study) -> Vec<Agreement> {
    let col = |name: &str| study.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c);
    SAME_DEFINITION
        .iter()
        .filter_map(|(rec, ours)| {
            let (r, o) = (col(rec)?, col(ours)?);
            let diffs: Vec<f64> =
                r.iter().zip(o).filter_map(|(a, b)| Some(b.as_ref()? - a.as_ref()?)).collect();
            Some(Agreement {
                recorded: rec.to_string(),
                corpus: ours.to_string(),
                n: diffs.len(),
                equal: diffs.iter().filter(|d| d.abs() <= 1e-6).count(),
                max_diff: diffs.iter().fold(0.0f64, |m, d| m.max(d.abs())),
                mean_diff: if diffs.is_empty() {
                    0.0
                } else {
                    diffs.iter().sum::<f64>() / diffs.len() as f64
                },
            })
        })
        .collect()
}

/// Correlates every column of a study with its human reference, columns in file order
/// (corpus's own last).
pub fn correlate_study(study: &Study) -> Vec<Correlation> {
    study
        .columns
        .iter()
        .map(|(name, col)| {
            let (x, y): (Vec<f64>, Vec<f64>) =
                col.iter().zip(&study.human).filter_map(|(v, h)| v.map(|v| (v, *h))).unzip();
            Correlation {
                metric: name.clone(),
                n: x.len(),
                pearson: pearson(&x, &y),
                spearman: spearman(&x, &y),
                kendall: kendall_tau_b(&x, &y),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(doc: &str, provider: &str, metric: &str, value: f64) -> LatestValue {
        LatestValue {
            document: doc.into(),
            provider: provider.into(),
            metric: metric.into(),
            value,
        }
    }

    #[test]
    fn ratings_csv_is_read_with_quotes_and_optional_provider() {
        let r = read_ratings("Document,rating,provider\n\"a,b\",3,pdfium\nc, 4.5 ,\n").unwrap();
        assert_eq!(
            r[0],
            Rating { document: "a,b".into(), provider: Some("pdfium".into()), rating: 3.0 }
        );
        assert_eq!(r[1].provider, None);
        assert_eq!(r[1].rating, 4.5);
        assert!(read_ratings("document,score\n").unwrap_err().contains("rating"));
        assert!(read_ratings("document,rating\nx,good\n").unwrap_err().contains("line 2"));
    }

    #[test]
    fn metrics_are_paired_with_ratings_by_document_and_provider() {
        let values = vec![
            v("d1", "p", "teds", 0.1),
            v("d2", "p", "teds", 0.5),
            v("d3", "p", "teds", 0.9),
            v("d1", "q", "teds", 0.9),
            v("d1", "p", "value_acc", 0.3),
        ];
        let ratings = read_ratings("document,provider,rating\nd1,p,1\nd2,p,2\nd3,p,3\n").unwrap();
        let c = correlate(&values, &ratings);
        assert_eq!(c[0].metric, "teds");
        assert_eq!(c[0].n, 3);
        assert!((c[0].pearson.unwrap() - 1.0).abs() < 1e-12);
        assert_eq!((c[0].spearman, c[0].kendall), (Some(1.0), Some(1.0)));
        // One pair: undefined.
        assert_eq!((c[1].metric.as_str(), c[1].n, c[1].pearson), ("value_acc", 1, None));
    }

    #[test]
    fn a_study_file_gives_recorded_and_recomputed_columns() {
        let text = r#"[
          {"gt_id": "a", "gt_formula": "x^2", "extracted_formula": "x^2",
           "metrics": {"cdm_score": 1.0}, "human_study_scores": [10, 9, 8],
           "llm_scores": [{"judge_model": "j1", "score": 10}]},
          {"gt_id": "b", "gt_formula": "abcd", "extracted_formula": "abxy",
           "metrics": {"cdm_score": 0.5}, "human_study_scores": [4, 6],
           "llm_scores": [{"judge_model": "j1", "score": 5}]},
          {"gt_id": "c", "gt_formula": "ab", "extracted_formula": "zz",
           "metrics": {"cdm_score": 0.0}, "human_study_scores": [0],
           "llm_scores": []}
        ]"#;
        let mut s = read_study(text, "tuned").unwrap();
        assert_eq!(s.human, [9.0, 5.0, 0.0]);
        let names: Vec<&str> = s.columns.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(names, ["judge:j1 (recorded)", "cdm_score (recorded)", "edit_sim"]);
        assert_eq!(s.columns[0].1, [Some(10.0), Some(5.0), None]);
        assert_eq!(s.columns[2].1, [Some(1.0), Some(0.5), Some(0.0)]);
        assert_eq!(s.add_column("mine", &[("b".into(), 0.4), ("zz".into(), 1.0)]), 1);
        let c = correlate_study(&s);
        assert_eq!((c[0].n, c[1].n, c[2].n, c[3].n), (2, 3, 3, 1));
        assert!(
            (c[1].pearson.unwrap() - pearson(&[1.0, 0.5, 0.0], &[9.0, 5.0, 0.0]).unwrap()).abs()
                < 1e-12
        );
        assert_eq!(c[2].spearman, Some(1.0));
        assert!(read_study(r#"[{"gt_id": "a"}]"#, "tuned").unwrap_err().contains("item 1"));
    }

    #[test]
    fn a_table_study_names_its_pairs_and_adds_the_suites_scores() {
        let text = r#"[{"gt_id": "t1", "gt_table": "\\begin{tabular}{cc} a & b \\\\ 1 & 2 \\\\ \\end{tabular}",
            "extractions": [
              {"parser": "md", "extracted_table": "| a | b |\n|---|---|\n| 1 | 2 |",
               "metrics": {"teds": 0.9}, "human_scores": [10, 8],
               "llm_scores": [{"judge_model": "j", "score": 9, "prompt_variant": "tuned"},
                              {"judge_model": "j", "score": 1, "prompt_variant": "plain"},
                              {"judge_model": "k", "score": 7}]},
              {"parser": "html", "extracted_table": "<table><tr><td>a</td><td>x</td></tr></table>",
               "metrics": {"teds": 0.4}, "human_scores": [3]},
              {"parser": "empty", "extracted_table": " ", "human_scores": [0]},
              {"parser": "unrated", "extracted_table": "| a |", "human_scores": []},
              {"parser": "prose", "extracted_table": "no table here", "human_scores": [1]}]}]"#;
        let s = read_study(text, "tuned").unwrap();
        assert_eq!(s.ids, ["t1/md", "t1/html", "t1/prose"]);
        assert_eq!(s.human, [9.0, 3.0, 1.0]);
        let col = |n: &str| s.columns.iter().find(|(c, _)| c == n).unwrap().1.clone();
        assert_eq!(col("judge:j (recorded)"), [Some(9.0), None, None]);
        assert_eq!(col("judge:k (recorded)"), [Some(7.0), None, None]);
        assert_eq!(col("teds (recorded)"), [Some(0.9), Some(0.4), None]);
        // The exact Markdown extraction scores 1; prose without a table, as a missed table, 0.
        let teds = col("teds");
        assert_eq!((teds[0], teds[2]), (Some(1.0), Some(0.0)));
        assert!(teds[1].unwrap() > 0.0 && teds[1].unwrap() < 1.0);
        assert_eq!(col("value_acc")[0], Some(1.0));
        let plain = read_study(text, "plain").unwrap();
        let j = plain.columns.iter().find(|(c, _)| c == "judge:j (recorded)").unwrap();
        assert_eq!(j.1, [Some(1.0), None, None]);
        let a = agreement(&s);
        assert_eq!(a[0].recorded, "teds (recorded)");
        assert_eq!((a[0].n, a[0].equal), (2, 0));
    }
}
