//! The project's own sample corpus: three small two-column papers with PeerRead and JATS ground
//! truth.
//!
//! Each paper is written once, as structured data (`papers.rs`); a small layout engine
//! (`typeset`) typesets it into a PDF with a hand-written PDF writer ([`pdf`]), and the
//! PeerRead JSON (`truth.rs`) and the JATS XML (`jats.rs`) are derived from the same data, so
//! PDF and truths agree by construction. Nothing here comes from third-party data or code.
//!
//! The committed copies live in `tests/fixtures/papers/`; the test `fixtures_are_up_to_date`
//! fails when they differ from [`papers`], and rewrites them when `CORPUS_BLESS=1`.

use std::path::{Path, PathBuf};

use crate::doc::Doc;

mod jats;
pub mod large;
mod papers;
pub mod pdf;
mod peerread;
mod source;
mod styled;
mod typeset;

/// One generated sample paper.
#[derive(Debug, Clone)]
pub struct SamplePaper {
    /// File stem, e.g. `"101"`: the files are `101.pdf` and `101.pdf.json`.
    pub name: String,
    /// The PDF file's bytes.
    pub pdf: Vec<u8>,
    /// The PeerRead JSON ground truth, pretty-printed, keys in the schema's order.
    pub truth_json: String,
    /// The JATS XML ground truth (`<name>.nxml`), as PubMed Central would mark the paper.
    pub jats_xml: String,
    /// The blocks as typeset, in reading order, with their boxes: what a perfect parser
    /// would return (line numbers are not blocks).
    pub doc: Doc,
}

impl SamplePaper {
    /// Returns the PDF's file name, `<name>.pdf`.
    pub(crate) fn pdf_name(&self) -> String {
        format!("{}.pdf", self.name)
    }

    /// Returns the ground truth's file name, `<name>.pdf.json` (PeerRead's naming).
    pub(crate) fn truth_name(&self) -> String {
        format!("{}.pdf.json", self.name)
    }

    /// Returns the JATS truth's file name, `<name>.nxml` (PubMed Central's naming).
    pub(crate) fn jats_name(&self) -> String {
        format!("{}.nxml", self.name)
    }

    /// Returns every file of the paper: (name, bytes).
    pub fn files(&self) -> [(String, &[u8]); 3] {
        [
            (self.pdf_name(), self.pdf.as_slice()),
            (self.truth_name(), self.truth_json.as_bytes()),
            (self.jats_name(), self.jats_xml.as_bytes()),
        ]
    }
}

/// Returns the sample papers, generated afresh; the same bytes on every call.
pub fn papers() -> Vec<SamplePaper> {
    generate(&papers::SOURCES)
}

/// Returns the styled sample papers (`tests/fixtures/papers-styled/`): two papers from outside
/// computer science, each in several reference styles (Vancouver, APA, Harvard, Nature, IEEE,
/// ACM) with organisation authors, a work without authors and run-in headings (caps, bold,
/// numbered). Generated afresh; the same bytes on every call.
pub fn styled_papers() -> Vec<SamplePaper> {
    generate(&styled::SOURCES)
}

fn generate(sources: &[source::Source]) -> Vec<SamplePaper> {
    sources
        .iter()
        .map(|src| {
            let set = typeset::typeset(src);
            SamplePaper {
                name: src.name.to_string(),
                pdf: set.pdf,
                truth_json: peerread::peerread_json(src, &set.line_numbers),
                jats_xml: jats::jats_xml(src),
                doc: set.doc,
            }
        })
        .collect()
}

/// Writes every paper's `<name>.pdf`, `<name>.pdf.json` and `<name>.nxml` into `dir`
/// (created if missing), and returns the paths written.
pub fn write_all(dir: &Path, papers: &[SamplePaper]) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for p in papers {
        for (file, bytes) in p.files() {
            let path = dir.join(file);
            std::fs::write(&path, bytes)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Returns the names of the files in `dir` that are missing or differ from `papers`.
pub fn stale_fixtures(dir: &Path, papers: &[SamplePaper]) -> Vec<String> {
    let mut stale = Vec::new();
    for p in papers {
        for (file, bytes) in p.files() {
            if std::fs::read(dir.join(&file)).ok().as_deref() != Some(bytes) {
                stale.push(file);
            }
        }
    }
    stale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::BlockKind;

    /// The committed fixtures: `CORPUS_FIXTURES_DIR` where set (a crate that mounts these
    /// sources elsewhere), else this crate's `tests/fixtures`; `papers/` and `papers-styled/`.
    fn fixture_dir(sub: &str) -> PathBuf {
        match std::env::var_os("CORPUS_FIXTURES_DIR") {
            Some(d) => PathBuf::from(d).join(sub),
            None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures")).join(sub),
        }
    }

    #[test]
    fn fixtures_are_up_to_date() {
        for (sub, set) in [("papers", papers()), ("papers-styled", styled_papers())] {
            let dir = fixture_dir(sub);
            if std::env::var("CORPUS_BLESS").as_deref() == Ok("1") {
                write_all(&dir, &set).unwrap();
            }
            let stale = stale_fixtures(&dir, &set);
            assert!(
                stale.is_empty(),
                "{stale:?} in {} differ from sample::{sub}; run with CORPUS_BLESS=1 to rewrite",
                dir.display()
            );
        }
    }

    #[test]
    fn generation_is_deterministic() {
        let (a, b) = (papers(), papers());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.pdf, y.pdf);
            assert_eq!(x.truth_json, y.truth_json);
            assert_eq!(x.jats_xml, y.jats_xml);
        }
    }

    fn truth(p: &SamplePaper) -> serde_json::Value {
        serde_json::from_str(&p.truth_json).unwrap()
    }

    #[test]
    fn truth_keys_are_in_schema_order() {
        for p in papers() {
            let v = truth(&p);
            let top: Vec<&String> = v.as_object().unwrap().keys().collect();
            assert_eq!(top, ["name", "metadata"]);
            let keys: Vec<&String> = v["metadata"].as_object().unwrap().keys().collect();
            assert_eq!(keys, crate::formats::peerread::METADATA_KEYS);
            let r: Vec<&String> =
                v["metadata"]["references"][0].as_object().unwrap().keys().collect();
            assert_eq!(r, ["title", "author", "venue", "citeRegEx", "shortCiteRegEx", "year"]);
            let m: Vec<&String> =
                v["metadata"]["referenceMentions"][0].as_object().unwrap().keys().collect();
            assert_eq!(m, ["referenceID", "context", "startOffset", "endOffset"]);
            assert_eq!(v["name"], format!("{}.pdf", p.name));
        }
    }

    #[test]
    fn every_paper_has_two_pages_and_each_feature() {
        let ps = papers();
        assert_eq!(ps.len(), 3);
        for p in &ps {
            assert_eq!(p.doc.pages.len(), 2, "{}", p.name);
            let kinds: Vec<BlockKind> = p.doc.blocks.iter().map(|b| b.kind).collect();
            for k in [BlockKind::Title, BlockKind::Table, BlockKind::Formula, BlockKind::Caption] {
                assert!(kinds.contains(&k), "{} lacks {k}", p.name);
            }
            // Text reaches the right column of the second page.
            assert!(
                p.doc.blocks.iter().any(|b| b.page == 1
                    && b.bbox.x0 > 306.0
                    && matches!(b.kind, BlockKind::Paragraph | BlockKind::Reference)),
                "{}",
                p.name
            );
            let v = truth(p);
            let m = &v["metadata"];
            let mentions = m["referenceMentions"].as_array().unwrap();
            for (i, _) in m["references"].as_array().unwrap().iter().enumerate() {
                assert!(
                    mentions.iter().any(|x| x["referenceID"] == i),
                    "{}: ref {i} uncited",
                    p.name
                );
            }
            for x in mentions {
                let ctx: Vec<char> = x["context"].as_str().unwrap().chars().collect();
                let (s, e) = (x["startOffset"].as_u64().unwrap(), x["endOffset"].as_u64().unwrap());
                assert!(s < e && e as usize <= ctx.len());
            }
            let regexes: Vec<&str> = m["references"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["citeRegEx"].as_str().unwrap())
                .collect();
            for y in ["2016a", "2016b"] {
                let q = format!(r"\Q{y}\E");
                assert!(regexes.iter().any(|r| r.ends_with(&q)), "{}: no {y}", p.name);
            }
        }
    }

    #[test]
    fn one_paper_is_an_anonymous_review_copy_with_line_numbers() {
        let ps = papers();
        let reviews: Vec<&SamplePaper> = ps
            .iter()
            .filter(|p| truth(p)["metadata"]["sections"][0]["heading"].is_null())
            .collect();
        assert_eq!(reviews.len(), 1);
        let m = truth(reviews[0])["metadata"].clone();
        assert_eq!(m["authors"], serde_json::json!([]));
        let numbers = m["sections"][0]["text"].as_str().unwrap().to_string();
        assert!(numbers.starts_with("001\n002\n"));
        assert!(numbers.lines().all(|l| l.len() == 3 && l.bytes().all(|b| b.is_ascii_digit())));
        let pdf: String = reviews[0].pdf.iter().map(|&b| b as char).collect();
        assert!(pdf.contains("(001) Tj"));
    }

    #[test]
    fn one_word_is_hyphenated_at_a_line_end() {
        let ps = papers();
        let hyphenated: Vec<&SamplePaper> =
            ps.iter().filter(|p| String::from_utf8_lossy(&p.pdf).contains("evalu-) Tj")).collect();
        assert_eq!(hyphenated.len(), 1);
        let t = &hyphenated[0].truth_json;
        assert!(t.contains("evaluation") && !t.contains("evalu-") && !t.contains('\u{AD}'));
    }

    /// The JATS and PeerRead truths of a paper are one paper to the suite: the perfect parse
    /// scores the same against both on every metric both define, and a provider's output would
    /// too (the integration tests check pdfium's).
    #[test]
    fn jats_and_peerread_truths_score_alike() {
        use crate::formats::jats::read_jats;
        use crate::formats::peerread::read_peerread;
        use crate::metrics::paper::score;
        use crate::paper::{canonical, from_doc};
        for p in papers() {
            let jats = canonical(&read_jats(p.jats_xml.as_bytes()).unwrap());
            let peer = canonical(&read_peerread(p.truth_json.as_bytes()).unwrap());
            let pred = from_doc(&p.doc);
            let (a, b) = (score(&jats, &pred), score(&peer, &pred));
            let mut shared = 0;
            for (x, y) in a.iter().zip(&b) {
                if let (Some(u), Some(v)) = (x.value, y.value) {
                    shared += 1;
                    assert!((u - v).abs() < 1e-12, "{} {}: jats {u} peerread {v}", p.name, x.id);
                }
            }
            assert!(shared >= 15, "{}: {shared}", p.name);
            assert_eq!(jats.title, peer.title);
            assert_eq!(jats.headings(), peer.headings());
            assert_eq!(
                jats.references.as_ref().map(|r| r.iter().map(|r| r.key()).collect::<Vec<_>>()),
                peer.references.as_ref().map(|r| r.iter().map(|r| r.key()).collect())
            );
            assert_eq!(jats.mentions.len(), peer.mentions.len(), "{}", p.name);
        }
    }

    /// Issue 40, part 3: every styled paper's truths key every reference (none unkeyable,
    /// no two alike); the truth read back as a provider's output (what the `truth` provider
    /// stores) finds all of them and every heading in order; the perfect parse finds every heading
    /// in order (its reference blocks end with their column, so an entry split at a column
    /// break is two blocks).
    #[test]
    fn styled_truths_key_every_reference_and_score_one() {
        use crate::formats::jats::read_jats;
        use crate::formats::peerread::read_peerread;
        use crate::metrics::paper::score;
        use crate::paper::{canonical, from_doc, to_doc};
        for p in styled_papers() {
            let jats = canonical(&read_jats(p.jats_xml.as_bytes()).unwrap());
            let peer = canonical(&read_peerread(p.truth_json.as_bytes()).unwrap());
            let refs = jats.references.as_deref().unwrap_or_default();
            let keys: Vec<_> = refs.iter().map(|r| r.key()).collect();
            assert_eq!(keys.len(), styled::SOURCES[0].references.len(), "{}", p.name);
            assert!(keys.iter().all(Option::is_some), "{}: {keys:?}", p.name);
            let distinct: std::collections::HashSet<_> = keys.iter().collect();
            assert_eq!(distinct.len(), keys.len(), "{}: {keys:?}", p.name);
            for (what, pred) in
                [("perfect parse", from_doc(&p.doc)), ("truth", from_doc(&to_doc(&jats)))]
            {
                for truth in [&jats, &peer] {
                    let m = score(truth, &pred);
                    let ids: &[&str] =
                        if what == "truth" { &["ref_r", "ref_p", "order"] } else { &["order"] };
                    for id in ids {
                        let v = m.iter().find(|x| x.id == *id).and_then(|x| x.value);
                        assert_eq!(v, Some(1.0), "{} {what} {id}: {m:?}", p.name);
                    }
                }
            }
        }
    }

    /// Each style's printed entry, parsed as a provider's reference block is, gives the key its
    /// JATS truth gives: the rules of `docs/paper-suite.md` §2.1 for every style the generator
    /// writes.
    #[test]
    fn every_style_entry_parses_to_its_truth_key() {
        use crate::formats::jats::read_jats;
        use crate::paper::references::parse_reference;
        use source::RefStyle;
        let p = styled_papers().remove(0);
        let truth = read_jats(p.jats_xml.as_bytes()).unwrap();
        let want: Vec<_> = truth.references.unwrap().iter().map(|r| r.key()).collect();
        let styles = [
            RefStyle::Acl,
            RefStyle::Vancouver,
            RefStyle::Apa,
            RefStyle::Harvard,
            RefStyle::Ieee,
            RefStyle::Acm,
            RefStyle::Nature,
        ];
        for style in styles {
            for (i, r) in styled::SOURCES[0].references.iter().enumerate() {
                let entry = r.entry_in(style, i + 1);
                assert_eq!(parse_reference(&entry).key(), want[i], "{style:?}: {entry}");
            }
        }
    }

    #[test]
    fn diacritics_print_in_win_ansi() {
        for p in papers() {
            let truth = &p.truth_json;
            let pdf = String::from_utf8_lossy(&p.pdf);
            assert!(!pdf.contains("?"), "{}: a char outside WinAnsi", p.name);
            assert!(!truth.is_ascii(), "{}: no diacritic", p.name);
        }
    }
}
