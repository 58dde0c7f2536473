//! Inline SVG drawn by the report itself (no script, no library): a line chart of one
//! metric's mean per run, one line per provider version. Colours come from a fixed palette
//! by series index (`docs/html-report.md`, "Charts").

use std::fmt::Write as _;

use super::escape::{esc, num};

/// The series palette (colour-blind-safe, Okabe–Ito order).
pub const PALETTE: [&str; 8] =
    ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"];

/// One line: a label and its points (run index on the x axis, value or none).
#[derive(Debug, Clone)]
pub struct Series {
    /// The legend's text (`pdfium@2 44c795951b55`).
    pub label: String,
    /// (x position: the run's index among all runs shown, y value).
    pub points: Vec<(usize, f64)>,
}

/// Draws a line chart of `series` over `runs` (the x-axis labels, run ids), titled `title`.
/// The y axis spans the values' range, widened to include 0 and 1 when the values lie in
/// [0, 1] (most metrics).
pub(crate) fn line_chart(title: &str, runs: &[String], series: &[Series]) -> String {
    let (w, h) = (520.0_f64, 220.0_f64);
    let (left, right, top, bottom) = (44.0, 12.0, 22.0, 40.0);
    let ys: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).collect();
    let (mut lo, mut hi) =
        ys.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| (a.min(y), b.max(y)));
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if lo >= 0.0 && hi <= 1.0 {
        (lo, hi) = (0.0, 1.0);
    } else if hi - lo < 1e-9 {
        (lo, hi) = (lo - 0.5, hi + 0.5);
    }
    let n = runs.len().max(1);
    let x = |i: usize| {
        if n == 1 {
            left + (w - left - right) / 2.0
        } else {
            left + (w - left - right) * i as f64 / (n - 1) as f64
        }
    };
    let y = |v: f64| top + (h - top - bottom) * (1.0 - (v - lo) / (hi - lo));
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = esc(title)
    );
    let _ = write!(s, r#"<text x="{left}" y="14" class="ct">{}</text>"#, esc(title));
    // Axes and three grid lines.
    for k in 0..=2 {
        let v = lo + (hi - lo) * k as f64 / 2.0;
        let yy = y(v);
        let _ = write!(
            s,
            r#"<line x1="{left}" x2="{x2}" y1="{yy:.1}" y2="{yy:.1}" class="grid"/><text x="{tx}" y="{ty:.1}" class="ax" text-anchor="end">{v:.2}</text>"#,
            x2 = w - right,
            tx = left - 4.0,
            ty = yy + 4.0
        );
    }
    let step = (n / 8).max(1);
    for (i, r) in runs.iter().enumerate() {
        if i % step == 0 || i + 1 == n {
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" class="ax" text-anchor="middle">{}</text>"#,
                x(i),
                h - bottom + 14.0,
                esc(r)
            );
        }
    }
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" class="ax" text-anchor="middle">run</text>"#,
        left + (w - left - right) / 2.0,
        h - bottom + 28.0
    );
    for (k, ser) in series.iter().enumerate() {
        let c = PALETTE[k % PALETTE.len()];
        let pts: Vec<String> =
            ser.points.iter().map(|&(i, v)| format!("{:.1},{:.1}", x(i), y(v))).collect();
        if pts.len() > 1 {
            let _ = write!(
                s,
                r#"<polyline class="series" data-series="{}" points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#,
                esc(&ser.label),
                pts.join(" ")
            );
        }
        for &(i, v) in &ser.points {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{c}"><title>{} run {}: {}</title></circle>"#,
                x(i),
                y(v),
                esc(&ser.label),
                esc(runs.get(i).map_or("", String::as_str)),
                num(Some(v))
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// The chart's legend as HTML: one swatch and label per series.
pub(crate) fn legend(series: &[Series]) -> String {
    let mut s = String::from(r#"<ul class="legend">"#);
    for (k, ser) in series.iter().enumerate() {
        let _ = write!(
            s,
            r#"<li><span class="sw" style="background:{}"></span>{}</li>"#,
            PALETTE[k % PALETTE.len()],
            esc(&ser.label)
        );
    }
    s.push_str("</ul>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_one_line_per_series_and_escapes_labels() {
        let runs = vec!["1".to_string(), "2".to_string(), "3".to_string()];
        let series = vec![
            Series { label: "a@1".into(), points: vec![(0, 0.5), (1, 0.7), (2, 0.9)] },
            Series { label: "<b>@2".into(), points: vec![(1, 0.2), (2, 0.4)] },
        ];
        let svg = line_chart("text_r", &runs, &series);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 5);
        assert!(svg.contains("&lt;b&gt;@2") && !svg.contains("<b>"));
        // y = 0.5 on a [0, 1] axis sits halfway between top (22) and bottom (220 - 40).
        assert!(svg.contains("cx=\"44.0\" cy=\"101.0\""), "{svg}");
        assert!(legend(&series).contains("&lt;b&gt;@2"));
    }
}
