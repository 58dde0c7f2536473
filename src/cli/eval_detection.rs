//! `corpus eval --suite detection`'s table: per class and overall, pooled over the pages.

use corpus::suites::detection::DetectionSummary;

use super::eval::Render;
use super::output::{fmt_value, print_table};
use super::GlobalArgs;

impl Render for DetectionSummary {
    fn render(&self, g: &GlobalArgs, _: &super::eval::EvalArgs) -> anyhow::Result<()> {
        let headers = ["class", "gt_boxes", "dt_boxes", "ap", "ap50", "ap75", "ar100"];
        let mut rows: Vec<Vec<String>> = self
            .per_class
            .iter()
            .map(|c| {
                vec![
                    c.class.clone(),
                    c.gt_boxes.to_string(),
                    c.dt_boxes.to_string(),
                    fmt_value(c.ap),
                    fmt_value(c.ap50),
                    fmt_value(c.ap75),
                    fmt_value(c.ar100),
                ]
            })
            .collect();
        let fig = |n: &str| self.figures.iter().find(|(m, _)| m == n).and_then(|(_, v)| *v);
        if !rows.is_empty() {
            let gt: usize = self.per_class.iter().map(|c| c.gt_boxes).sum();
            let dt: usize = self.per_class.iter().map(|c| c.dt_boxes).sum();
            rows.push(vec![
                "all".into(),
                gt.to_string(),
                dt.to_string(),
                fmt_value(fig("map")),
                fmt_value(fig("ap50")),
                fmt_value(fig("ap75")),
                fmt_value(fig("ar100")),
            ]);
        }
        print_table(&headers, &rows)?;
        let ro = |n: &str| self.reading_order.iter().find(|(m, _)| m == n).and_then(|(_, v)| *v);
        println!(
            "reading order (matched boxes): ard {}, ard_weighted {}",
            fmt_value(ro("ard")),
            fmt_value(ro("ard_weighted"))
        );
        // Named whatever --quiet says: a label no map names is part of the result.
        for (label, n) in &self.unmapped {
            eprintln!("corpus: unmapped class {label}: {n} box(es) not scored (classes/ has no map for it)");
        }
        if !g.quiet {
            for (label, n) in &self.left_out {
                eprintln!("corpus: {label}: {n} box(es) left out by its class map");
            }
            if self.without_box > 0 {
                eprintln!("corpus: {} block(s) without a box not scored", self.without_box);
            }
            eprintln!(
                "{} of {} document(s) scored now, {} already scored by {} v{}; {} page(s) pooled, classes {}, in {}; a block without a confidence counts as 1.0.",
                self.scored,
                self.documents,
                self.cached,
                self.suite,
                self.suite_version,
                self.pages,
                self.classes,
                self.frame
            );
        }
        Ok(())
    }
}
