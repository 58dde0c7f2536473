//! The seeded page layout: document class, font, size, columns, margins, spacing and how
//! tables are placed, written as a LaTeX preamble. Every choice is recorded on the document
//! as an attribute, so reports can group scores by it.

use serde::Serialize;

use super::rng::Rng;

/// Fonts available from Debian's `texlive-fonts-recommended` (Type 1, T1-encoded), with the
/// packages that select them.
const FONTS: [(&str, &[&str]); 6] = [
    ("lmodern", &["\\usepackage{lmodern}"]),
    ("times", &["\\usepackage{mathptmx}"]),
    ("palatino", &["\\usepackage{mathpazo}"]),
    ("charter", &["\\usepackage{charter}"]),
    (
        "helvetica",
        &["\\usepackage[scaled]{helvet}", "\\renewcommand{\\familydefault}{\\sfdefault}"],
    ),
    ("bookman", &["\\usepackage{bookman}"]),
];

const CLASSES: [&str; 3] = ["article", "scrartcl", "report"];
const MARGINS_PT: [u32; 4] = [45, 55, 70, 85];
const COLUMN_SEPS_PT: [u32; 3] = [25, 30, 35];

/// One page's layout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layout {
    /// Document class.
    pub class: &'static str,
    /// Font name (`lmodern`, `times`, …).
    pub font: &'static str,
    /// Base font size in points (10, 11, 12).
    pub size_pt: u32,
    /// One or two columns.
    pub columns: u32,
    /// Margins in points: top, bottom, left, right.
    pub margins_pt: [u32; 4],
    /// Space between columns in points.
    pub column_sep_pt: u32,
    /// Line spacing: `single` or `onehalf`.
    pub spacing: &'static str,
    /// Paragraph indent (a LaTeX length).
    pub parindent: &'static str,
    /// Space between paragraphs (a LaTeX length).
    pub parskip: &'static str,
    /// How a table sits in its column: `center` or `left`.
    pub table_align: &'static str,
    /// Vertical space around a table in points.
    pub table_space_pt: u32,
    /// A page number at the foot (`plain`) or none (`empty`).
    pub page_style: &'static str,
}

impl Layout {
    /// Draws a layout.
    pub fn sample(rng: &mut Rng) -> Layout {
        let font_i = rng.below(FONTS.len());
        Layout {
            class: rng.pick(&CLASSES),
            font: FONTS[font_i].0,
            size_pt: rng.pick(&[10, 11, 12]),
            columns: if rng.chance(0.5) { 2 } else { 1 },
            margins_pt: [
                rng.pick(&MARGINS_PT),
                rng.pick(&MARGINS_PT),
                rng.pick(&MARGINS_PT),
                rng.pick(&MARGINS_PT),
            ],
            column_sep_pt: rng.pick(&COLUMN_SEPS_PT),
            spacing: rng.pick(&["single", "single", "onehalf"]),
            parindent: rng.pick(&["0pt", "1em", "1.5em", "2em"]),
            parskip: rng.pick(&["0pt", "0.5em", "1em"]),
            table_align: rng.pick(&["center", "center", "left"]),
            table_space_pt: rng.pick(&[6, 10, 14]),
            page_style: rng.pick(&["plain", "empty"]),
        }
    }

    /// The width of one column in points (A4 is 595.276 pt wide).
    pub(crate) fn column_width_pt(&self) -> f64 {
        let text = 595.276 - f64::from(self.margins_pt[2] + self.margins_pt[3]);
        if self.columns == 2 {
            (text - f64::from(self.column_sep_pt)) / 2.0
        } else {
            text
        }
    }

    /// The height of the text block in points (A4 is 841.89 pt high).
    pub(crate) fn text_height_pt(&self) -> f64 {
        841.89 - f64::from(self.margins_pt[0] + self.margins_pt[1])
    }

    /// The layout as (name, value) attributes for the store.
    pub fn attributes(&self) -> Vec<(String, String)> {
        let m = self.margins_pt;
        [
            ("layout.class", self.class.to_string()),
            ("layout.font", self.font.to_string()),
            ("layout.size", format!("{}pt", self.size_pt)),
            ("layout.columns", self.columns.to_string()),
            ("layout.margins", format!("{}/{}/{}/{}pt", m[0], m[1], m[2], m[3])),
            ("layout.spacing", self.spacing.to_string()),
            ("layout.table_align", self.table_align.to_string()),
            ("layout.table_space", format!("{}pt", self.table_space_pt)),
            (
                "layout.font_family",
                if self.font == "helvetica" { "sans" } else { "serif" }.to_string(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// The preamble: everything before `\begin{document}`.
    pub(crate) fn preamble(&self) -> String {
        let mut opts = vec![format!("{}pt", self.size_pt), "a4paper".to_string()];
        if self.columns == 2 {
            opts.push("twocolumn".into());
        }
        let [t, b, l, r] = self.margins_pt;
        let font = FONTS.iter().find(|(n, _)| *n == self.font).map_or(&[][..], |f| f.1);
        let mut lines = vec![
            format!("\\documentclass[{}]{{{}}}", opts.join(","), self.class),
            // Reproducible bytes: no trailer /ID (SOURCE_DATE_EPOCH fixes the dates).
            "\\pdftrailerid{}".to_string(),
            "\\usepackage[utf8]{inputenc}".into(),
            "\\usepackage[T1]{fontenc}".into(),
            "\\usepackage{amsmath,amssymb}".into(),
        ];
        lines.extend(font.iter().map(|s| s.to_string()));
        lines.extend([
            format!(
                "\\usepackage[a4paper,top={t}pt,bottom={b}pt,left={l}pt,right={r}pt]{{geometry}}"
            ),
            "\\usepackage{setspace}".into(),
            "\\usepackage[table]{xcolor}".into(),
            "\\usepackage{booktabs,multirow,makecell,graphicx,array,adjustbox,diagbox,pifont}"
                .into(),
            format!("\\setlength{{\\parindent}}{{{}}}", self.parindent),
            format!("\\setlength{{\\parskip}}{{{}}}", self.parskip),
            format!("\\setlength{{\\columnsep}}{{{}pt}}", self.column_sep_pt),
            format!("\\pagestyle{{{}}}", self.page_style),
        ]);
        if self.spacing == "onehalf" {
            lines.push("\\onehalfspacing".into());
        }
        // Old font switches that arXiv tables still use (KOMA classes refuse them otherwise).
        for (cmd, series, math) in [
            ("rm", "\\rmfamily", "\\mathrm"),
            ("bf", "\\bfseries", "\\mathbf"),
            ("it", "\\itshape", "\\mathit"),
            ("tt", "\\ttfamily", "\\mathtt"),
            ("sf", "\\sffamily", "\\mathsf"),
            ("sc", "\\scshape", "\\mathnormal"),
        ] {
            lines.push(format!(
                "\\DeclareOldFontCommand{{\\{cmd}}}{{\\normalfont{series}}}{{{math}}}"
            ));
        }
        lines.join("\n")
    }

    /// A table as the page writes it: scaled down to the column when wider, placed; `mark`
    /// goes right after its box, before the space below it.
    pub(crate) fn table_block(&self, latex: &str, mark: &str) -> String {
        let s = self.table_space_pt;
        let align = if self.table_align == "center" { "\\centering" } else { "\\raggedright" };
        format!(
            "\\addvspace{{{s}pt}}\n{{{align}\n\\adjustbox{{max width=\\columnwidth}}{{{latex}}}\n\\par}}{mark}\n\\addvspace{{{s}pt}}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_vary_with_the_seed_and_write_their_choices() {
        let a = Layout::sample(&mut Rng::new(1));
        assert_eq!(a, Layout::sample(&mut Rng::new(1)));
        let all: std::collections::BTreeSet<_> =
            (0..50).map(|s| Layout::sample(&mut Rng::new(s)).font).collect();
        assert!(all.len() >= 5, "{all:?}");
        let p = a.preamble();
        assert!(p.contains(&format!("{}pt", a.size_pt)) && p.contains("\\pdftrailerid{}"));
        assert!(a.column_width_pt() > 150.0 && a.text_height_pt() > 600.0);
    }
}
