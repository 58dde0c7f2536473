//! The GT-vs-GT invariant as a seeded property test: random papers, written as truth files of
//! every paper format with what real truths do to them (dates, authors or titles dropped,
//! years moved into titles, duplicated references and keys, unusual Unicode in names, empty
//! and keyword-named sections, bare citations), read back, rendered by the `truth` provider
//! and scored against the truth as the suite scores it: every non-null metric must be 1.

use serde_json::{json, Value};

use crate::doc::Doc;
use crate::formats::TruthFormat;
use crate::metrics::paper::score;
use crate::paper::{canonical, from_doc, to_doc, Paper};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const WORDS: [&str; 16] = [
    "parsing", "model", "tables", "the", "of", "neural", "results", "we", "show", "data", "graph",
    "entity", "2014", "accuracy", "scanned", "text",
];
const SURNAMES: [&str; 14] = [
    "Kiros",
    "Lee",
    "van der Berg",
    "Pylkkänen",
    "Müller",
    "O'Neil",
    "Nguyễn",
    "Ça\u{301}rdenas",
    "Zhāng",
    "Smith-Jones",
    "Al\u{200b}varez",
    "李",
    "Åsa",
    "D\u{2019}Arcy",
];
const GIVEN: [&str; 6] = ["Ann", "Bo", "J.", "Marie-Claire", "Ψ", "Ōta"];
const HEADINGS: [&str; 9] = [
    "1 Introduction",
    "2 Method",
    "2.1 Data",
    "Results",
    "Abstract",
    "References",
    "",
    "4. Conclusion",
    "Appendix A",
];

/// One generated reference.
#[derive(Clone)]
struct R {
    surnames: Vec<String>,
    given: Vec<String>,
    year: Option<String>,
    title: Option<String>,
    venue: Option<String>,
    volume: Option<String>,
    page: Option<String>,
    doi: Option<String>,
}

/// One generated paper, before it is written in a format.
struct G {
    title: Option<String>,
    authors: Vec<(String, String)>,
    abstract_: Option<String>,
    keywords: Vec<String>,
    sections: Vec<(Option<String>, Vec<String>)>,
    refs: Vec<R>,
}

fn sentence(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| rng.pick(&WORDS)).collect::<Vec<_>>().join(" ")
}

fn gen(rng: &mut Rng) -> G {
    let nrefs = rng.below(7);
    let mut refs: Vec<R> = (0..nrefs)
        .map(|i| {
            let n = 1 + rng.below(4);
            let mut r = R {
                surnames: (0..n).map(|_| rng.pick(&SURNAMES).to_string()).collect(),
                given: (0..n).map(|_| rng.pick(&GIVEN).to_string()).collect(),
                year: Some(format!(
                    "{}{}",
                    1990 + rng.below(30),
                    if rng.chance(20) { "a" } else { "" }
                )),
                title: Some(format!("{} {i}", sentence(rng, 3))),
                venue: rng.chance(70).then(|| format!("Journal of {}", rng.pick(&WORDS))),
                volume: rng.chance(40).then(|| (1 + rng.below(60)).to_string()),
                page: rng.chance(40).then(|| (1 + rng.below(900)).to_string()),
                doi: rng.chance(25).then(|| format!("10.{}/x{i}", 1000 + rng.below(9000))),
            };
            // What real truths lack or get wrong.
            if rng.chance(25) {
                let y = r.year.take().unwrap_or_default();
                if rng.chance(60) {
                    r.title = Some(format!("{} in {y}", r.title.take().unwrap_or_default()));
                }
            }
            if rng.chance(15) {
                r.surnames.clear();
                r.given.clear();
            }
            if rng.chance(15) {
                r.title = None;
            }
            r
        })
        .collect();
    // Duplicated entries and duplicated keys (same first author and year).
    if !refs.is_empty() && rng.chance(30) {
        let d = refs[rng.below(refs.len())].clone();
        refs.push(d);
    }
    if refs.len() > 1 && rng.chance(30) {
        let (a, b) = (0, refs.len() - 1);
        refs[b].surnames = refs[a].surnames.clone();
        refs[b].given = refs[a].given.clone();
        refs[b].year = refs[a].year.clone();
    }
    let mut sections = Vec::new();
    for s in 0..rng.below(6) {
        let heading = match rng.below(10) {
            0 => None,
            _ => Some(rng.pick(&HEADINGS).to_string()),
        };
        let mut lines = Vec::new();
        for _ in 0..rng.below(4) {
            let n = 4 + rng.below(8);
            let mut l = sentence(rng, n);
            match rng.below(12) {
                0 if !refs.is_empty() => {
                    let r = &refs[rng.below(refs.len())];
                    if let (Some(n), Some(y)) = (r.surnames.first(), &r.year) {
                        l.push_str(&format!(" ({n}, {y})."));
                    }
                }
                1 if !refs.is_empty() => l.push_str(&format!(" [{}].", 1 + rng.below(refs.len()))),
                2 => {
                    l = format!(
                        "Test {} {}.{} {}%",
                        10 + rng.below(90),
                        rng.below(99),
                        rng.below(9),
                        rng.below(99)
                    )
                }
                6 => {
                    l = format!(
                        "{} {} {}",
                        10 + rng.below(90),
                        10 + rng.below(90),
                        1990 + rng.below(30)
                    )
                }
                7 => l = format!("<!-- {l} --> &amp; {l}"),
                3 => l.push_str(" where y = a x + b"),
                4 => l = format!("Abstract {l}"),
                5 => l = format!("{:03}", s),
                _ => {}
            }
            lines.push(l);
        }
        if rng.chance(15) && !lines.is_empty() {
            let d = lines[0].clone();
            lines.push(d);
        }
        sections.push((heading, lines));
    }
    for r in refs.iter_mut() {
        if rng.chance(5) {
            r.title = Some(rng.pick(&["...", "\u{2014}", "?", "(1)"]).to_string());
        }
    }
    G {
        title: rng.chance(85).then(|| {
            if rng.chance(5) {
                "\u{2026}".to_string()
            } else {
                sentence(rng, 5)
            }
        }),
        authors: (0..rng.below(4))
            .map(|_| (rng.pick(&GIVEN).to_string(), rng.pick(&SURNAMES).to_string()))
            .collect(),
        abstract_: rng.chance(75).then(|| {
            if rng.chance(20) {
                format!("Abstract {}", sentence(rng, 8))
            } else {
                sentence(rng, 10)
            }
        }),
        keywords: (0..rng.below(3)).map(|_| rng.pick(&WORDS).to_string()).collect(),
        sections,
        refs,
    }
}

fn name(given: &str, surname: &str) -> String {
    format!("{given} {surname}")
}

fn x(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn peerread(g: &G, rng: &mut Rng) -> Vec<u8> {
    let refs: Vec<Value> = g
        .refs
        .iter()
        .map(|r| {
            let authors: Vec<String> =
                r.given.iter().zip(&r.surnames).map(|(a, b)| name(a, b)).collect();
            let year = r.year.as_ref().map(|y| y[..4].parse::<i64>().unwrap());
            let cite = match (&r.surnames.first(), &r.year) {
                (Some(s), Some(y)) => Value::String(format!("{s},? \\Q{y}\\E")),
                _ => Value::Null,
            };
            let mut v = r.venue.clone().unwrap_or_default();
            if let Some(vol) = &r.volume {
                v.push_str(&format!(", {vol}:{}", r.page.clone().unwrap_or("1".into())));
            }
            json!({"title": r.title, "author": authors, "venue": (!v.is_empty()).then_some(v),
                   "citeRegEx": cite, "shortCiteRegEx": Value::Null, "year": year})
        })
        .collect();
    let sections: Vec<Value> =
        g.sections.iter().map(|(h, l)| json!({"heading": h, "text": l.join("\n")})).collect();
    let authors: Vec<String> = g.authors.iter().map(|(a, b)| name(a, b)).collect();
    let mut meta = json!({"source": "CRF", "title": g.title, "authors": authors, "emails": [],
        "sections": sections, "references": refs, "referenceMentions": [],
        "year": 2020, "abstractText": g.abstract_, "creator": "x"});
    if rng.chance(20) {
        meta["sections"] = Value::Null;
    }
    if rng.chance(15) {
        meta["references"] = Value::Null;
    }
    let mut s = serde_json::to_string(&json!({"name": "p.pdf", "metadata": meta})).unwrap();
    if rng.chance(20) {
        // A duplicated key: the reader keeps the last one.
        s = s.replacen("\"metadata\":{", "\"metadata\":{\"title\":\"Dropped duplicate\",", 1);
    }
    s.into_bytes()
}

fn s2orc(g: &G, rng: &mut Rng) -> Vec<u8> {
    let mut bib = serde_json::Map::new();
    for (i, r) in g.refs.iter().enumerate() {
        let authors: Vec<Value> = r
            .given
            .iter()
            .zip(&r.surnames)
            .map(|(a, b)| json!({"first": a, "middle": [], "last": b, "suffix": ""}))
            .collect();
        let year = r.year.as_ref().map(|y| y[..4].parse::<i64>().unwrap());
        let doi: Vec<&String> = r.doi.iter().collect();
        bib.insert(
            format!("BIBREF{i}"),
            json!({"title": r.title.clone().unwrap_or_default(), "authors": authors, "year": year,
                   "venue": r.venue.clone().unwrap_or_default(), "volume": r.volume.clone().unwrap_or_default(),
                   "issue": "", "pages": r.page.clone().unwrap_or_default(), "other_ids": {"DOI": doi}}),
        );
    }
    let mut body = Vec::new();
    for (i, (h, lines)) in g.sections.iter().enumerate() {
        for l in lines {
            body.push(json!({"text": l, "section": h.clone().unwrap_or_default(),
                             "sec_num": if rng.chance(30) { Value::from(i.to_string()) } else { Value::Null }}));
        }
    }
    let authors: Vec<Value> =
        g.authors.iter().map(|(a, b)| json!({"first": a, "middle": [], "last": b})).collect();
    serde_json::to_vec(&json!({"paper_id": "p", "title": g.title, "authors": authors,
        "abstract": g.abstract_,
        "pdf_parse": {"body_text": body, "back_matter": [], "bib_entries": bib}}))
    .unwrap()
}

fn tei_output(g: &G, rng: &mut Rng) -> Vec<u8> {
    let mut t = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<TEI xmlns=\"http://www.tei-c.org/ns/1.0\"><teiHeader><fileDesc><titleStmt>",
    );
    if let Some(ti) = &g.title {
        t.push_str(&format!("<title level=\"a\" type=\"main\">{}</title>", x(ti)));
    }
    t.push_str("</titleStmt><sourceDesc><biblStruct><analytic>");
    for (a, b) in &g.authors {
        t.push_str(&format!(
            "<author><persName><forename>{}</forename><surname>{}</surname></persName></author>",
            x(a),
            x(b)
        ));
    }
    t.push_str("</analytic></biblStruct></sourceDesc></fileDesc><profileDesc>");
    if !g.keywords.is_empty() {
        t.push_str("<textClass><keywords>");
        for k in &g.keywords {
            t.push_str(&format!("<term>{}</term>", x(k)));
        }
        t.push_str("</keywords></textClass>");
    }
    if let Some(a) = &g.abstract_ {
        t.push_str(&format!("<abstract><div><p>{}</p></div></abstract>", x(a)));
    }
    t.push_str("</profileDesc></teiHeader><text><body>");
    for (h, lines) in &g.sections {
        t.push_str("<div>");
        if let Some(h) = h {
            t.push_str(&format!("<head>{}</head>", x(h)));
        }
        for l in lines {
            if (l.starts_with("Test ") || l.bytes().all(|b| b.is_ascii_digit() || b == b' '))
                && rng.chance(50)
            {
                t.push_str(&format!(
                    "<figure type=\"table\"><head>Table 1</head><table><row><cell>{}</cell></row></table></figure>",
                    x(l)
                ));
            } else {
                t.push_str(&format!("<p>{}</p>", x(l)));
            }
        }
        t.push_str("</div>");
    }
    t.push_str("</body><back><div type=\"references\"><listBibl>");
    for r in &g.refs {
        t.push_str("<biblStruct><analytic>");
        if let Some(ti) = &r.title {
            t.push_str(&format!("<title level=\"a\">{}</title>", x(ti)));
        }
        for (a, b) in r.given.iter().zip(&r.surnames) {
            t.push_str(&format!(
                "<author><persName><forename>{}</forename><surname>{}</surname></persName></author>",
                x(a),
                x(b)
            ));
        }
        if let Some(d) = &r.doi {
            t.push_str(&format!("<idno type=\"DOI\">{}</idno>", x(d)));
        }
        t.push_str("</analytic><monogr>");
        if let Some(v) = &r.venue {
            t.push_str(&format!("<title level=\"j\">{}</title>", x(v)));
        }
        t.push_str("<imprint>");
        if let Some(v) = &r.volume {
            t.push_str(&format!("<biblScope unit=\"volume\">{}</biblScope>", x(v)));
        }
        if let Some(p) = &r.page {
            t.push_str(&format!("<biblScope unit=\"page\" from=\"{p}\"/>"));
        }
        if let Some(y) = &r.year {
            t.push_str(&format!("<date type=\"published\" when=\"{}\"/>", &y[..4]));
        }
        t.push_str("</imprint></monogr></biblStruct>");
    }
    t.push_str("</listBibl></div></back></text></TEI>");
    t.into_bytes()
}

fn tei_training(g: &G) -> Vec<(&'static str, Vec<u8>)> {
    let mut header = String::from("<tei><teiHeader/><text><front>");
    if let Some(ti) = &g.title {
        header.push_str(&format!("<docTitle><titlePart>{}<lb/></titlePart></docTitle>", x(ti)));
    }
    let authors: Vec<String> = g.authors.iter().map(|(a, b)| name(a, b)).collect();
    if !authors.is_empty() {
        header.push_str(&format!(
            "<byline><docAuthor>{} 1</docAuthor></byline>",
            x(&authors.join(" and "))
        ));
    }
    if let Some(a) = &g.abstract_ {
        header.push_str(&format!("<div type=\"abstract\">{}<lb/></div>", x(a)));
    }
    if !g.keywords.is_empty() {
        header.push_str(&format!("<keyword>{}</keyword>", x(&g.keywords.join(", "))));
    }
    header.push_str("</front></text></tei>");
    let mut full = String::from("<tei><teiHeader/><text>");
    for (h, lines) in &g.sections {
        if let Some(h) = h {
            full.push_str(&format!("<head>{}<lb/></head>", x(h)));
        }
        for l in lines {
            full.push_str(&format!("<p>{}<lb/></p>", x(l)));
        }
    }
    full.push_str("<p>end.</p></text></tei>");
    let mut refs = String::from("<tei><text><listBibl>");
    for r in &g.refs {
        let authors: Vec<String> =
            r.given.iter().zip(&r.surnames).map(|(a, b)| name(a, b)).collect();
        let e = [
            authors.join(", "),
            r.year.clone().unwrap_or_default(),
            r.title.clone().unwrap_or_default(),
            r.venue.clone().unwrap_or_default(),
        ]
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(". ");
        refs.push_str(&format!("<bibl>{}.<lb/></bibl>", x(&e)));
    }
    refs.push_str("</listBibl></text></tei>");
    vec![
        ("header", header.into_bytes()),
        ("fulltext", full.into_bytes()),
        ("references", refs.into_bytes()),
    ]
}

fn jats(g: &G, rng: &mut Rng) -> Vec<u8> {
    let mut j = String::from("<article><front><article-meta>");
    if let Some(ti) = &g.title {
        j.push_str(&format!("<title-group><article-title>{}</article-title></title-group>", x(ti)));
    }
    j.push_str("<contrib-group>");
    for (a, b) in &g.authors {
        j.push_str(&format!(
            "<contrib contrib-type=\"author\"><name><surname>{}</surname><given-names>{}</given-names></name></contrib>",
            x(b),
            x(a)
        ));
    }
    j.push_str("</contrib-group>");
    if let Some(a) = &g.abstract_ {
        j.push_str(&format!("<abstract><p>{}</p></abstract>", x(a)));
    }
    if !g.keywords.is_empty() {
        j.push_str("<kwd-group>");
        for k in &g.keywords {
            j.push_str(&format!("<kwd>{}</kwd>", x(k)));
        }
        j.push_str("</kwd-group>");
    }
    j.push_str("</article-meta></front><body>");
    for (h, lines) in &g.sections {
        j.push_str("<sec>");
        if let Some(h) = h {
            j.push_str(&format!("<title>{}</title>", x(h)));
        }
        for l in lines {
            if (l.starts_with("Test ") || l.bytes().all(|b| b.is_ascii_digit() || b == b' '))
                && rng.chance(50)
            {
                j.push_str(&format!(
                    "<table-wrap><label>Table 1</label><table><tr><td>{}</td></tr></table></table-wrap>",
                    x(l)
                ));
            } else if l.contains(" = ") && rng.chance(50) {
                j.push_str(&format!(
                    "<p>{}<disp-formula><tex-math>y = a x + b</tex-math></disp-formula></p>",
                    x(l)
                ));
            } else {
                j.push_str(&format!("<p>{}</p>", x(l)));
            }
        }
        j.push_str("</sec>");
    }
    j.push_str("</body><back><ref-list>");
    for (i, r) in g.refs.iter().enumerate() {
        j.push_str(&format!("<ref id=\"R{i}\">"));
        let mixed = rng.chance(40);
        j.push_str(if mixed { "<mixed-citation>" } else { "<element-citation>" });
        j.push_str("<person-group person-group-type=\"author\">");
        for (a, b) in r.given.iter().zip(&r.surnames) {
            j.push_str(&format!(
                "<name><surname>{}</surname><given-names>{}</given-names></name>",
                x(b),
                x(a)
            ));
        }
        j.push_str("</person-group>");
        for (tag, v) in [
            ("year", &r.year),
            ("article-title", &r.title),
            ("source", &r.venue),
            ("volume", &r.volume),
            ("fpage", &r.page),
        ] {
            if let Some(v) = v {
                j.push_str(&format!("<{tag}>{}</{tag}>. ", x(v)));
            }
        }
        if let Some(d) = &r.doi {
            j.push_str(&format!("<pub-id pub-id-type=\"doi\">{}</pub-id>", x(d)));
        }
        j.push_str(if mixed { "</mixed-citation>" } else { "</element-citation>" });
        j.push_str("</ref>");
    }
    j.push_str("</ref-list></back></article>");
    j.into_bytes()
}

/// Scores a truth (its parts) as the suite does against the `truth` provider's rendering of
/// it, stored as JSON; returns the metrics that are not 1 (with their traces), and whether the
/// truth as read (not canonical) would have failed.
fn check(format: TruthFormat, parts: &[(&str, &[u8])]) -> (Vec<String>, bool) {
    let raw = format.to_paper(parts).unwrap_or_else(|e| panic!("{format:?}: {e}"));
    let gt = canonical(&raw);
    let json = serde_json::to_vec(&to_doc(&raw)).unwrap();
    let doc: Doc = serde_json::from_slice(&json).unwrap();
    let pred = from_doc(&doc);
    let bad = score(&gt, &pred)
        .into_iter()
        .filter(|m| m.value.is_some_and(|v| v != 1.0))
        .map(|m| format!("{} = {:?} {}", m.id, m.value, m.trace))
        .collect();
    let raw_fails = score(&raw, &pred).iter().any(|m| m.value.is_some_and(|v| v != 1.0));
    (bad, raw_fails)
}

fn assert_one(format: TruthFormat, parts: &[(&str, &[u8])], what: &str, raw_fails: &mut usize) {
    let (bad, raw) = check(format, parts);
    assert!(bad.is_empty(), "{what} ({format:?}): {bad:#?}");
    *raw_fails += usize::from(raw);
}

#[test]
fn gt_vs_gt_is_one_on_mutated_truths_of_every_format() {
    let mut rng =
        Rng(std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_0019));
    let mut cases = 0;
    let mut raw_fails = 0;
    let n: usize = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(70);
    for i in 0..n {
        let g = gen(&mut rng);
        let what = format!("case {i}");
        assert_one(TruthFormat::PeerRead, &[("", &peerread(&g, &mut rng))], &what, &mut raw_fails);
        assert_one(TruthFormat::S2orc, &[("", &s2orc(&g, &mut rng))], &what, &mut raw_fails);
        assert_one(
            TruthFormat::GrobidTei,
            &[("full", &tei_output(&g, &mut rng))],
            &what,
            &mut raw_fails,
        );
        let parts = tei_training(&g);
        let parts: Vec<(&str, &[u8])> = parts.iter().map(|(p, b)| (*p, b.as_slice())).collect();
        assert_one(TruthFormat::GrobidTei, &parts, &what, &mut raw_fails);
        assert_one(TruthFormat::Jats, &[("", &jats(&g, &mut rng))], &what, &mut raw_fails);
        cases += 5;
    }
    // The mutations reach what the canonical form is for: scored as read, without the
    // linearizer on the truth side, a good part of them would not be 1.
    println!("{cases} mutated truths score 1; {raw_fails} would not as read");
    assert!(raw_fails * 10 >= cases, "{raw_fails} of {cases}");
}

/// Every truth file of the shared data, and the sample's, scores 1 against itself (all
/// metrics, field scores included), through the same path.
#[test]
fn every_shared_and_sample_truth_scores_one() {
    let mut raw_fails = 0;
    for p in crate::sample::papers() {
        assert_one(
            TruthFormat::PeerRead,
            &[("", p.truth_json.as_bytes())],
            &p.name,
            &mut raw_fails,
        );
        assert_one(TruthFormat::Jats, &[("", p.jats_xml.as_bytes())], &p.name, &mut raw_fails);
    }
    let Some(root) = crate::test_support::shared_data("") else { return };
    let read = |p: &std::path::Path| std::fs::read(p).unwrap();
    let mut n = 0;
    for (dir, ext, format) in [
        ("jats", ".nxml", TruthFormat::Jats),
        ("s2orc", ".json", TruthFormat::S2orc),
        ("s2orc", ".tei.xml", TruthFormat::GrobidTei),
    ] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in rd.flatten() {
            let path = e.path();
            if path.to_string_lossy().ends_with(ext) {
                let part = if format == TruthFormat::GrobidTei { "full" } else { "" };
                assert_one(
                    format,
                    &[(part, &read(&path))],
                    &path.display().to_string(),
                    &mut raw_fails,
                );
                n += 1;
            }
        }
    }
    if let Ok(rd) = std::fs::read_dir(root.join("grobid-gold/tei")) {
        let names: Vec<String> =
            rd.flatten().map(|e| e.path().to_string_lossy().into_owned()).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        for g in crate::formats::tei::group_tei_files(&refs) {
            let files = [
                ("full", &g.full),
                ("header", &g.header),
                ("fulltext", &g.fulltext),
                ("references", &g.references),
            ];
            let bytes: Vec<(&str, Vec<u8>)> = files
                .iter()
                .filter_map(|(p, f)| Some((*p, read(std::path::Path::new(f.as_ref()?)))))
                .collect();
            let parts: Vec<(&str, &[u8])> = bytes.iter().map(|(p, b)| (*p, b.as_slice())).collect();
            assert_one(TruthFormat::GrobidTei, &parts, &g.paper, &mut raw_fails);
            n += 1;
        }
    }
    println!("{n} shared truths score 1 against themselves");
    assert!(n >= 10, "{n}");
}

#[test]
fn a_paper_without_anything_is_null_everywhere() {
    let p = Paper::default();
    let ms = score(&canonical(&p), &from_doc(&to_doc(&p)));
    assert!(ms.iter().all(|m| m.value.is_none()), "{:?}", ms.iter().find(|m| m.value.is_some()));
}
