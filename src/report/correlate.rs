//! `corpus correlate`: how well each stored metric agrees with human ratings.
//!
//! The ratings file is CSV with a header row naming at least `document` and `rating` columns
//! (and optionally `provider`); fields may be double-quoted (`""` inside is a quote). Each
//! rating is paired with the newest value of each metric for that document name, from the
//! rated provider when the file has a `provider` column, else from every provider scored.
//! Per metric: the number of pairs and Pearson's r, Spearman's ρ and Kendall's τ-b
//! ([`crate::metrics::correlation`]).

use serde::Serialize;

use crate::metrics::correlation::{kendall_tau_b, pearson, spearman};
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
}
