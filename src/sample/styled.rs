//! The styled sample papers: two papers from outside computer science, each set in several
//! reference and heading styles (`docs/paper-suite.md` §2.1; `tests/fixtures/papers-styled/`).
//! Every name, title and number is invented.
//!
//! `201` is a medical meta-analysis with unnumbered sections; `202` an engineering report with
//! numbered ones. Both cite the same reference list, which holds what the author–year papers do
//! not: an organisation as author (plain text in the JATS), a collaboration group (a `collab`),
//! a work without authors, seven authors (Vancouver cuts them to six and `et al`), a hyphenated
//! given name and two given names. Citations are markers (`[@3]`), printed in each style.

use super::source::{HeadingStyle, Item, RefStyle, Reference, Source, TableSource};

/// Every styled paper, in name order: `201` in Vancouver, APA, Harvard and Nature style, `202`
/// in IEEE and ACM style, with caps, bold and numbered run-in headings among them.
pub const SOURCES: [Source; 6] = [
    Source { name: "201-vancouver", ..P201 },
    Source { name: "201-apa", refs: RefStyle::Apa, headings: HeadingStyle::RunInBold, ..P201 },
    Source { name: "201-harvard", refs: RefStyle::Harvard, headings: HeadingStyle::Block, ..P201 },
    Source {
        name: "201-nature",
        refs: RefStyle::Nature,
        headings: HeadingStyle::RunInBold,
        ..P201
    },
    Source { name: "202-ieee", ..P202 },
    Source { name: "202-acm", refs: RefStyle::Acm, headings: HeadingStyle::Block, ..P202 },
];

/// The reference list both papers cite, in order of first citation in `201`.
const REFERENCES: &[Reference] = &[
    Reference {
        authors: &["Hanna Berg", "Omar Haddad"],
        org: false,
        year: "2019",
        title: "Iron status and attention in children aged six to twelve",
        venue: "Journal of Child Nutrition",
        volume: Some("14"),
        issue: Some("2"),
        pages: Some("133-151"),
    },
    Reference {
        authors: &["World Health Organization"],
        org: true,
        year: "2008",
        title: "Worldwide prevalence of anaemia in school-age children",
        venue: "Geneva: Corpus Health Press",
        volume: None,
        issue: None,
        pages: None,
    },
    Reference {
        authors: &[
            "Lucia Moretti",
            "Jae Kim",
            "Peter Novak",
            "Sara Lind",
            "Tomas Brandt",
            "Inés Ferreira",
            "Mara Olsen",
        ],
        org: false,
        year: "2017",
        title: "Ferritin thresholds for iron deficiency in childhood",
        venue: "Paediatric Haematology Reports",
        volume: Some("9"),
        issue: Some("1"),
        pages: Some("12-28"),
    },
    Reference {
        authors: &["Nordic Child Health Collaborative Group"],
        org: true,
        year: "2020",
        title: "Reading speed norms for primary school pupils",
        venue: "Scandinavian Journal of School Health",
        volume: Some("31"),
        issue: Some("4"),
        pages: Some("201-219"),
    },
    Reference {
        authors: &[],
        org: false,
        year: "2021",
        title: "Iron supplementation in childhood: a practice guide",
        venue: "Corpus Health Press",
        volume: None,
        issue: None,
        pages: None,
    },
    Reference {
        authors: &["Åsa Nyström"],
        org: false,
        year: "2015",
        title: "Measuring reading fluency in the classroom",
        venue: "Proceedings of the Nordic Education Conference",
        volume: None,
        issue: None,
        pages: Some("45-52"),
    },
    Reference {
        authors: &["Jean-Paul Martin", "Ana Lima"],
        org: false,
        year: "2018",
        title: "Random effects models for small meta-analyses",
        venue: "Statistics in Medicine Letters",
        volume: Some("22"),
        issue: None,
        pages: Some("77-94"),
    },
    Reference {
        authors: &["Mary Anne Lee", "Bo Jones", "Wei Zhang"],
        org: false,
        year: "2016",
        title: "Publication bias in nutrition trials",
        venue: "Evidence Synthesis Review",
        volume: Some("5"),
        issue: Some("3"),
        pages: Some("301-315"),
    },
];

/// A meta-analysis, set by default in Vancouver style with caps run-in headings.
const P201: Source = Source {
    name: "201",
    title: "Iron Status and Reading Speed in School-Age Children: A Meta-Analysis",
    short_title: "Iron Status and Reading Speed",
    authors: &["Kwame Mensah", "Lena Vogel", "Rosa Campos"],
    affiliation: "Lakeside School of Public Health",
    emails: &["k.mensah@lsph.example", "l.vogel@lsph.example", "r.campos@lsph.example"],
    review: false,
    abstract_: &[
        "Iron deficiency is common in school-age children and may slow their reading.",
        "We pooled twelve trials and cohorts that measured both iron status and reading speed.",
        "Children with iron deficiency read four words per minute more slowly, and supplementation closed about half of the gap.",
    ],
    body: &[
        Item::Heading("Introduction"),
        Item::Para(&[
            "Iron deficiency is the most common nutritional deficiency in children worldwide [@1,2].",
            "Its effects on attention are well described, but its effects on reading have been studied in small samples only.",
            "Thresholds for deficiency differ between studies, which makes their results hard to compare [@3].",
        ]),
        Item::Heading("Methods"),
        Item::Subheading("Search strategy"),
        Item::Para(&[
            "We searched four databases for trials and cohorts that reported iron status and reading speed in children aged six to twelve.",
            "Reading speed was taken as words read correctly per minute, the measure used by school health services [@4].",
        ]),
        Item::Subheading("Data extraction"),
        Item::Para(&[
            "Two reviewers extracted the data of each study independently and settled disagreements by discussion.",
            "Deficiency was defined by the thresholds of the practice guide [@5] where a study reported ferritin.",
        ]),
        Item::Subheading("Statistical analysis"),
        Item::Para(&[
            "Fluency scores were converted to words per minute with published norms [@6].",
            "We pooled mean differences with a random effects model [@7] and tested for small study effects [@8].",
        ]),
        Item::Heading("Results"),
        Item::Para(&[
            "Twelve studies with 4,210 children met the criteria.",
            "Table 1 gives the pooled differences by design.",
        ]),
        Item::Table(TableSource {
            caption: "Table 1: Pooled difference in words per minute by study design.",
            header: &["Design", "Studies", "Children", "Diff"],
            rows: &[
                &["Trial", "5", "1,380", "-2.1"],
                &["Cohort", "7", "2,830", "-4.6"],
                &["All", "12", "4,210", "-4.0"],
            ],
        }),
        Item::Para(&[
            "Heterogeneity was moderate, and the funnel plot showed no sign of small study effects.",
            "Supplementation trials closed about half of the difference within six months.",
        ]),
        Item::Heading("Discussion"),
        Item::Para(&[
            "Children with iron deficiency read more slowly, and the difference is large enough to matter in class.",
            "The trials suggest that part of the gap is reversible [@1,5].",
            "Most studies came from high income countries, so the results may not carry over to settings where deficiency is more severe [@2].",
        ]),
        Item::Heading("Conclusions"),
        Item::Para(&[
            "Screening for iron deficiency deserves a place in school health programmes that aim to improve reading.",
        ]),
    ],
    references: REFERENCES,
    refs: RefStyle::Vancouver,
    headings: HeadingStyle::RunInCaps,
};

/// An engineering report with numbered sections, set by default in IEEE style with numbered
/// bold run-in headings.
const P202: Source = Source {
    name: "202",
    title: "A Low-Cost Haemoglobin Reader for School Screening",
    short_title: "A Low-Cost Haemoglobin Reader",
    authors: &["Ana Lima", "Jean-Paul Martin"],
    affiliation: "Riverside Institute of Applied Engineering",
    emails: &["ana.lima@riae.example", "jp.martin@riae.example"],
    review: false,
    abstract_: &[
        "Screening school children for anaemia needs a reader that is cheap, fast and accurate.",
        "We describe a reflectance reader built from stock parts and compare it with a laboratory analyser on 318 children.",
        "The reader agrees with the analyser within 0.6 grams per decilitre in 95 percent of children.",
    ],
    body: &[
        Item::Heading("1 Introduction"),
        Item::Para(&[
            "Anaemia affects a large share of school-age children [@2], and iron deficiency is its most common cause [@1].",
            "Laboratory analysers are accurate but cost more than most school health services can spend [@4].",
        ]),
        Item::Heading("2 Design"),
        Item::Heading("2.1 Optics"),
        Item::Para(&[
            "The reader shines two light emitting diodes through a drop of blood on a paper strip and measures the reflected light.",
            "The ratio of the two wavelengths depends on the haemoglobin concentration, as in earlier designs [@6].",
        ]),
        Item::Heading("2.2 Calibration"),
        Item::Para(&[
            "Each batch of strips is calibrated against five reference samples.",
            "The calibration curve is a quadratic fit whose coefficients are stored on the strip box.",
        ]),
        Item::Heading("3 Evaluation"),
        Item::Para(&[
            "We measured 318 children with the reader and with a laboratory analyser on the same day.",
            "Agreement was assessed with limits of agreement and a random effects model across schools [@7].",
        ]),
        Item::Table(TableSource {
            caption: "Table 1: Agreement with the laboratory analyser by school.",
            header: &["School", "Children", "Bias", "Limit"],
            rows: &[
                &["North", "104", "0.1", "0.5"],
                &["River", "121", "-0.2", "0.6"],
                &["Hill", "93", "0.0", "0.7"],
            ],
        }),
        Item::Para(&[
            "The reader missed four of 57 anaemic children, all close to the threshold [@3,5].",
            "Publication of negative results for such devices is rare, which we took into account [@8].",
        ]),
        Item::Heading("4 Conclusion"),
        Item::Para(&[
            "A reader built from stock parts is accurate enough for school screening and costs a tenth of a laboratory analyser.",
        ]),
    ],
    references: REFERENCES,
    refs: RefStyle::Ieee,
    headings: HeadingStyle::RunInBold,
};
