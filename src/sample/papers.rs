//! The three sample papers, as structured source. Every name, title and number is invented.
//!
//! Paragraphs are lists of sentences: a sentence is the `context` of any citation in it. A
//! soft hyphen (`\u{AD}`) marks the one word that the line breaker hyphenates.

use super::source::{Item, Reference, Source, TableSource};

/// Every sample paper, in name order.
pub(crate) const SOURCES: [Source; 3] = [P101, P102, P103];

/// A camera-ready paper with authors, subsections, an empty-bodied heading and a hyphenated
/// word.
const P101: Source = Source {
    name: "101",
    title: "Robust Sequence Tagging for Noisy Scanned Text",
    short_title: "Robust Sequence Tagging for Noisy Scanned Text",
    authors: &["Mara Olsen", "Tomas Brandt", "Inés Ferreira"],
    affiliation: "Northfield Institute of Technology",
    emails: &["mara.olsen@nit.example", "tomas.brandt@nit.example", "ines.ferreira@nit.example"],
    review: false,
    abstract_: &[
        "Sequence taggers trained on clean text lose much of their accuracy on text that comes out of a scanner.",
        "We describe a tagger that reads character noise as a feature rather than an error.",
        "On three test sets of scanned reports it gains up to six points of accuracy over a strong baseline, at no cost in speed.",
    ],
    body: &[
        Item::Heading("1 Introduction"),
        Item::Para(&[
            "Most documents that reach a language pipeline today were never typed: they were printed, stored and scanned again.",
            "The text layer of such a document is full of split words, merged lines and letters read as digits.",
            "Taggers trained on clean text are known to fail on it (Smith and Jones, 2019; Kim et al., 2016a).",
        ]),
        Item::Para(&[
            "Smith (2018) argues that the noise is not random but follows the shape of the printed page.",
            "We take this view one step further and let the tagger see the noise directly.",
            "Our contributions are a feature set for noisy tokens, a training objective for rare tags, and a careful evalu\u{AD}ation on scanned reports.",
        ]),
        Item::Heading("2 Method"),
        Item::Para(&[
            "The tagger is a linear chain model over tokens.",
            "Each token carries the usual word features and a small set of noise features.",
        ]),
        Item::Heading("2.1 Features"),
        Item::Para(&[
            "Noise features describe how a token looks rather than what it says.",
            "They record mixed letters and digits, broken hyphens, unusual case and the distance of the token from the margin.",
            "Pylkkänen (2014) shows that most reading errors of a scanner cluster near the margin, which motivates the last feature.",
        ]),
        Item::Heading("2.2 Training"),
        Item::Para(&[
            "Given a token sequence x and a tag sequence y, the model scores the pair with a weight vector w and a feature map f, and normalises over all tag sequences:",
        ]),
        Item::Equation { text: "P(y|x) = exp(w·f(x,y))/Z(x)", latex: r"P(y \mid x) = \frac{\exp(w \cdot f(x, y))}{Z(x)}" },
        Item::Para(&[
            "We train with a weighted log loss in which each tag counts in inverse proportion to its frequency, following Kim et al. (2016b).",
            "Training converges in under ten passes over the data.",
        ]),
        Item::Heading("3 Experiments"),
        Item::Heading("3.1 Data"),
        Item::Para(&[
            "We use three sets of scanned technical reports: a small set of 1,024 pages scanned at high resolution, a faxed set, and a set photographed with a phone.",
            "The collection process mirrors the one of Berg and Haddad (2019), but with reports instead of newspapers.",
            "Each set was tagged by two annotators, who agreed on 93.5% of tokens.",
        ]),
        Item::Heading("3.2 Results"),
        Item::Para(&[
            "Table 1 compares the baseline, the baseline with noise features, and the full model with the weighted loss.",
        ]),
        Item::Table(TableSource {
            caption: "Table 1: Tagging accuracy, F1 and pages per second on the three test sets.",
            header: &["System", "Acc", "F1", "Pages", "Gain"],
            rows: &[
                &["Baseline", "81.2", "78.4", "1,024", "0%"],
                &["Features", "84.7", "82.1", "1,018", "4%"],
                &["Full", "86.3", "84.9", "1,011", "6%"],
            ],
        }),
        Item::Para(&[
            "Noise features give most of the gain, and the weighted loss adds almost two points of F1 on rare tags.",
            "Speed barely changes, since the new features are cheap to compute.",
            "The largest gains come from the phone set, where the baseline is weakest.",
        ]),
        Item::Heading("3.3 Error Analysis"),
        Item::Para(&[
            "We read 200 errors of the full model by hand.",
            "Most of them fall on tokens that the scanner merged across a line break, so that two words carry one tag.",
            "A smaller group comes from table cells, where the reading order of the text layer differs from the order of the printed page.",
            "Neither kind of error can be fixed by the tagger alone, and both call for better text extraction upstream.",
        ]),
        Item::Heading("4 Conclusion"),
        Item::Para(&[
            "Treating scanner noise as a signal makes a plain sequence tagger robust to scanned text.",
            "The features are simple to add to any tagger, and we plan to release them with the test sets.",
        ]),
        Item::Heading("Acknowledgments"),
        Item::Para(&[
            "We thank the annotators of the three test sets and the anonymous reviewers for their comments.",
        ]),
    ],
    references: &[
        Reference {
            authors: &["Hanna Berg", "Omar Haddad"],
            year: "2019",
            title: "Character noise in digitised newspapers",
            venue: "Journal of Document Studies",
            volume: Some("14"),
            issue: Some("2"),
            pages: Some("33-51"),
        },
        Reference {
            authors: &["Jae Kim", "Lucia Moretti", "Peter Novak"],
            year: "2016a",
            title: "Sequence labelling with sparse features",
            venue: "Proceedings of the Workshop on Text Structure",
            volume: None,
            issue: None,
            pages: Some("12-20"),
        },
        Reference {
            authors: &["Jae Kim", "Lucia Moretti", "Peter Novak"],
            year: "2016b",
            title: "Learning rare tags from few examples",
            venue: "Transactions on Language Data",
            volume: Some("4"),
            issue: None,
            pages: Some("101-118"),
        },
        Reference {
            authors: &["Aino Pylkkänen"],
            year: "2014",
            title: "Reading errors in optical character recognition",
            venue: "PhD thesis, University of Eastfield",
            volume: None,
            issue: None,
            pages: None,
        },
        Reference {
            authors: &["Daniel Smith"],
            year: "2018",
            title: "A field guide to document layout",
            venue: "Northfield Press",
            volume: None,
            issue: None,
            pages: None,
        },
        Reference {
            authors: &["Daniel Smith", "Ruth Jones"],
            year: "2019",
            title: "Why taggers fail on scanned text",
            venue: "Proceedings of the Conference on Applied Text Processing",
            volume: None,
            issue: None,
            pages: Some("88-97"),
        },
    ],
};

/// An anonymous review submission: line numbers in both margins, no authors.
const P102: Source = Source {
    name: "102",
    title: "Cross-Lingual Transfer of Morphological Taggers with Small Lexicons",
    short_title: "Cross-Lingual Transfer with Small Lexicons",
    authors: &[],
    affiliation: "",
    emails: &[],
    review: true,
    abstract_: &[
        "Morphological taggers for languages with little annotated text are often built by transfer from a related language.",
        "We show that a lexicon of a few thousand words, induced from raw text, closes most of the gap between transfer and full supervision.",
        "Across six language pairs the induced lexicon adds 7.4 points of accuracy on average.",
    ],
    body: &[
        Item::Heading("1 Introduction"),
        Item::Para(&[
            "A morphological tagger assigns each word its case, number, gender and other features.",
            "For most of the languages of the world there is no annotated text to train one.",
            "Transfer from a related language is the usual remedy (García et al., 2020; Tanaka, 2016a), yet it leaves a large gap to supervised taggers.",
        ]),
        Item::Para(&[
            "We ask how much of this gap a small lexicon can close.",
            "Lexicons are cheap: a linguist can write a few hundred entries in a day, and many more can be induced from raw text.",
        ]),
        Item::Para(&[
            "Our contributions are a simple method to induce a tag lexicon from the predictions of a transferred tagger, a way to use it as a soft constraint during training, and experiments on six language pairs.",
            "The method needs no parallel text and no annotation in the target language.",
        ]),
        Item::Heading("2 Related Work"),
        Item::Para(&[
            "Evans and Chen (2015) first projected tags across aligned parallel text.",
            "Later work replaced alignment with shared subword vectors (Müller and Berg, 2017).",
            "Tanaka (2016b) used a hand-written lexicon as a constraint at decoding time, which is closest to our approach.",
            "Unlike that work, we induce the lexicon and use it during training.",
        ]),
        Item::Para(&[
            "Lexicons have also been used to evaluate taggers rather than to train them (Holm, 2019).",
            "Holm (2019) finds that a lexicon check catches most errors on closed-class words, but few on open-class words.",
        ]),
        Item::Heading("3 Approach"),
        Item::Para(&[
            "We start from a tagger trained on the source language and adapt it on unlabelled target text.",
            "The lexicon restricts the tags that a word may take.",
        ]),
        Item::Heading("3.1 Lexicon Induction"),
        Item::Para(&[
            "For each frequent target word we collect the tags that the source tagger predicts for it in context.",
            "A tag enters the lexicon when its share of the predictions passes a threshold, where the score of tag t for word v is",
        ]),
        Item::Equation { text: "s(t,v) = c(t,v) / c(v)", latex: r"s(t, v) = \frac{c(t, v)}{c(v)}" },
        Item::Para(&[
            "Here c(t,v) counts the predictions of t for v and c(v) counts the occurrences of v.",
            "We keep tags with a score of at least 0.25 and at most four tags per word.",
        ]),
        Item::Heading("4 Experiments"),
        Item::Para(&[
            "We test six language pairs, each with a source language that has a large treebank and a target language with a small test set of 2,000 words.",
            "The lexicon is induced from one million words of raw target text.",
        ]),
        Item::Heading("4.1 Results"),
        Item::Table(TableSource {
            caption: "Table 1: Tagging accuracy on the target test sets, averaged over six pairs.",
            header: &["Setting", "Acc", "Oracle", "Words"],
            rows: &[
                &["Transfer", "62.8", "71.0", "0"],
                &["Hand lexicon", "66.1", "73.4", "500"],
                &["Induced", "70.2", "76.9", "4,096"],
                &["Supervised", "79.5", "84.3", "20,000"],
            ],
        }),
        Item::Para(&[
            "The induced lexicon recovers 7.4 of the 16.7 points between transfer and supervision.",
            "A hand lexicon of 500 words helps less, since it covers few of the frequent ambiguous words.",
            "Gains are largest for the pairs whose languages are least related.",
        ]),
        Item::Heading("4.2 Analysis"),
        Item::Para(&[
            "The lexicon helps most on words that are ambiguous in the target language but not in the source.",
            "Such words are frequent in languages with rich case systems, where one form can carry several cases.",
            "When we remove the ten most frequent entries, half of the gain disappears, which suggests that coverage of frequent words matters more than size.",
        ]),
        Item::Heading("5 Limitations"),
        Item::Para(&[
            "All six target languages are written in the Latin script and have a related source language with a large treebank.",
            "We do not know how well the method works for isolated languages or for scripts without word boundaries.",
        ]),
        Item::Heading("6 Conclusion"),
        Item::Para(&[
            "A small induced lexicon is a cheap and effective addition to cross-lingual transfer of morphological taggers.",
            "We will release the lexicons and the code after review.",
        ]),
    ],
    references: &[
        Reference {
            authors: &["Rhys Evans", "Mei Chen"],
            year: "2015",
            title: "Projecting morphology across parallel text",
            venue: "Proceedings of the Meeting on Multilingual Processing",
            volume: None,
            issue: None,
            pages: Some("201-209"),
        },
        Reference {
            authors: &["Ana García", "Piotr Nowak", "Elif Demir"],
            year: "2020",
            title: "Transfer learning for low-resource morphology",
            venue: "Computational Morphology Journal",
            volume: Some("9"),
            issue: Some("1"),
            pages: Some("1-24"),
        },
        Reference {
            authors: &["Ingrid Holm"],
            year: "2019",
            title: "Checking taggers against lexicons",
            venue: "Proceedings of the Workshop on Evaluation",
            volume: None,
            issue: None,
            pages: Some("77-84"),
        },
        Reference {
            authors: &["Lars Müller", "Sofie Berg"],
            year: "2017",
            title: "Shared subwords for tagging related languages",
            venue: "Proceedings of the Workshop on Related Languages",
            volume: None,
            issue: None,
            pages: Some("40-48"),
        },
        Reference {
            authors: &["Yuki Tanaka"],
            year: "2016a",
            title: "Tagging without treebanks",
            venue: "Proceedings of the Student Research Workshop",
            volume: None,
            issue: None,
            pages: Some("5-11"),
        },
        Reference {
            authors: &["Yuki Tanaka"],
            year: "2016b",
            title: "Lexicon constraints for morphological decoding",
            venue: "Journal of Language Resources",
            volume: Some("22"),
            issue: Some("4"),
            pages: Some("310-329"),
        },
    ],
};

/// A camera-ready paper with a two-author 2016a/2016b pair and diacritics in author names.
const P103: Source = Source {
    name: "103",
    title: "Predicting Reading Difficulty from Page Layout",
    short_title: "Predicting Reading Difficulty from Page Layout",
    authors: &["Jonas Lindqvist", "Amélie Roux"],
    affiliation: "University of Westmark",
    emails: &["jonas.lindqvist@westmark.example", "amelie.roux@westmark.example"],
    review: false,
    abstract_: &[
        "Readability formulas look at words and sentences but ignore the page that carries them.",
        "We show that a handful of layout features, such as line length, column count and font size, predict reading time as well as the classic formulas do.",
        "Combined with them, they cut the error of reading time prediction by 18%.",
    ],
    body: &[
        Item::Heading("1 Introduction"),
        Item::Para(&[
            "How hard a text is to read depends on more than its words.",
            "Long lines tire the eye, narrow columns break phrases, and small print slows every reader down.",
            "Classic readability formulas count syllables and words per sentence (Nyström, 2012), and newer models add word frequency and syntax (Chen and Ortiz, 2016a).",
        ]),
        Item::Para(&[
            "None of them sees the page.",
            "We measure reading time on the same texts set in different layouts and ask how much of its variance layout explains.",
        ]),
        Item::Heading("2 Background"),
        Item::Para(&[
            "Nyström (2012) reviews forty years of readability formulas and finds that most differ only in their weights.",
            "Eye tracking studies report that line length changes reading speed by up to a fifth (Abara et al., 2018).",
            "Chen and Ortiz (2016b) predict reading time from word features alone, which gives the baseline of this paper.",
        ]),
        Item::Para(&[
            "Layout has been studied mostly in typography, where advice on line length and spacing goes back a long way (Okafor, 2020).",
            "Such advice rests on small studies with few readers and is rarely tested against reading time.",
        ]),
        Item::Heading("3 Model"),
        Item::Para(&[
            "We predict the reading time of a passage from its text features and its layout features with a linear model.",
            "Let T be the reading time in seconds, x the text features and z the layout features:",
        ]),
        Item::Equation { text: "T = a·x + b·z + c", latex: r"T = a \cdot x + b \cdot z + c" },
        Item::Para(&[
            "The weights a and b and the constant c are fitted by least squares on the training passages.",
            "Layout features are line length in characters, column count, font size in points, line spacing and the share of the page left blank.",
        ]),
        Item::Para(&[
            "All features are scaled to zero mean and unit variance before fitting, so that their weights can be compared.",
            "We report mean absolute error and the share of variance explained, both under ten-fold cross-validation over passages.",
        ]),
        Item::Heading("4 Evaluation"),
        Item::Heading("4.1 Corpus"),
        Item::Para(&[
            "We set 120 passages from school textbooks in four layouts each and recorded 48 adult readers with an eye tracker.",
            "Every reader saw each passage once, in one of its layouts, so that no reader read the same text twice.",
            "This gives 5,760 readings with a mean reading time of 41.3 seconds.",
        ]),
        Item::Heading("4.2 Findings"),
        Item::Table(TableSource {
            caption: "Table 1: Mean absolute error of reading time in seconds and variance explained.",
            header: &["Model", "MAE", "R2", "Gain"],
            rows: &[
                &["Formula", "6.82", "0.41", "0%"],
                &["Text", "6.15", "0.49", "10%"],
                &["Layout", "6.30", "0.47", "8%"],
                &["Combined", "5.59", "0.58", "18%"],
            ],
        }),
        Item::Para(&[
            "Layout features alone predict reading time almost as well as the text model, and the two are largely complementary.",
            "Line length has the largest weight, followed by font size.",
            "Column count matters only for passages longer than 300 words.",
        ]),
        Item::Para(&[
            "The effect of layout is strongest for the slowest quarter of readers, whose reading time rises by a third when line length doubles.",
            "For the fastest readers the effect of layout is small but still significant.",
        ]),
        Item::Heading("5 Discussion"),
        Item::Para(&[
            "Readability is a property of a page as much as of a text.",
            "Tools that rate texts for readers with reading difficulties should take layout into account, and layout should be reported with every reading study.",
        ]),
        Item::Para(&[
            "Our readers were adults reading in their first language, and all passages came from one genre.",
            "Children, second language readers and other genres may well respond to layout in other ways, which we leave to future work.",
        ]),
        Item::Heading("Acknowledgments"),
        Item::Para(&[
            "We thank the 48 readers who took part in the study and the school publishers who let us reuse their textbooks.",
        ]),
    ],
    references: &[
        Reference {
            authors: &["Kofi Abara", "Lena Fischer", "Tomás Ruiz"],
            year: "2018",
            title: "Line length and reading speed in adult readers",
            venue: "Journal of Reading Research",
            volume: Some("31"),
            issue: Some("3"),
            pages: Some("215-230"),
        },
        Reference {
            authors: &["Wei Chen", "Marta Ortiz"],
            year: "2016a",
            title: "Word frequency and reading time",
            venue: "Proceedings of the Workshop on Cognitive Modelling",
            volume: None,
            issue: None,
            pages: Some("60-67"),
        },
        Reference {
            authors: &["Wei Chen", "Marta Ortiz"],
            year: "2016b",
            title: "A reading time model from word features",
            venue: "Cognitive Text Processing",
            volume: Some("7"),
            issue: None,
            pages: Some("44-59"),
        },
        Reference {
            authors: &["Åsa Nyström"],
            year: "2012",
            title: "Forty years of readability formulas",
            venue: "Westmark University Press",
            volume: None,
            issue: None,
            pages: None,
        },
        Reference {
            authors: &["Grace Okafor"],
            year: "2020",
            title: "A short history of the readable page",
            venue: "Typography Quarterly",
            volume: Some("58"),
            issue: Some("1"),
            pages: Some("9-27"),
        },
    ],
};
