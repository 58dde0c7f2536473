//! Class maps as data: the files under `classes/` (compiled in, parsed and checked when first
//! used, and by a test). `taxonomies.toml` names the evaluation taxonomies and their classes;
//! each other file is one vocabulary (the labels a truth or a parser uses) with, per taxonomy,
//! the class each label is scored as, or `"-"` for a label left out by rule. A label a map does
//! not name is *unmapped*: its boxes are counted and named in the output, never scored under
//! another class (`docs/detection.md` §5).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::doc::BlockKind;

/// The files, as compiled in: (file name, text).
pub const FILES: [(&str, &str); 10] = [
    ("corpus.toml", include_str!("../../classes/corpus.toml")),
    ("omnidocbench.toml", include_str!("../../classes/omnidocbench.toml")),
    ("doclaynet.toml", include_str!("../../classes/doclaynet.toml")),
    ("docling.toml", include_str!("../../classes/docling.toml")),
    ("parsebench.toml", include_str!("../../classes/parsebench.toml")),
    ("mineru25.toml", include_str!("../../classes/mineru25.toml")),
    ("doctags.toml", include_str!("../../classes/doctags.toml")),
    ("unstructured.toml", include_str!("../../classes/unstructured.toml")),
    ("icdar2013.toml", include_str!("../../classes/icdar2013.toml")),
    ("taxonomies.toml", include_str!("../../classes/taxonomies.toml")),
];

/// An evaluation taxonomy: `--classes NAME`.
#[derive(Debug, Clone, Deserialize)]
pub struct Taxonomy {
    /// Where its class list comes from.
    pub source: String,
    /// Its classes; category id = position + 1.
    pub classes: Vec<String>,
}

/// One vocabulary's file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    /// Its name (`omnidocbench`, `corpus`, …): the prefix of a block's `label`.
    pub vocabulary: String,
    /// Where its labels come from.
    pub source: String,
    /// Every label it has.
    pub labels: Vec<String>,
    /// Per taxonomy: label → class, or `"-"` (left out by rule).
    pub to: BTreeMap<String, BTreeMap<String, String>>,
    /// Label → corpus block kind, for drawing a truth of this vocabulary as a Doc.
    #[serde(default)]
    pub kind: BTreeMap<String, String>,
}

/// What a label becomes in a taxonomy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mapped {
    /// Scored as this category id.
    Class(u32),
    /// Left out by the map's rule (`"-"`).
    LeftOut,
    /// The map does not name the label.
    Unmapped,
}

/// Every map, parsed and checked.
#[derive(Debug, Clone)]
pub struct ClassMaps {
    /// Taxonomies by name.
    pub taxonomies: BTreeMap<String, Taxonomy>,
    /// Vocabularies by name, in [`FILES`]' order.
    pub vocabularies: Vec<Vocabulary>,
}

/// The label a block kind has in the `corpus` vocabulary (its serde name).
pub fn kind_label(kind: BlockKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

impl ClassMaps {
    /// Parses and checks files: every file parses; every vocabulary maps only its own labels;
    /// every target is a class of its taxonomy or `"-"`; every taxonomy has a map in every
    /// vocabulary; kinds name corpus block kinds.
    pub fn parse(files: &[(&str, &str)]) -> Result<ClassMaps, String> {
        let mut taxonomies = None;
        let mut vocabularies = Vec::new();
        for (name, text) in files {
            if *name == "taxonomies.toml" {
                let t: BTreeMap<String, Taxonomy> =
                    toml::from_str(text).map_err(|e| format!("classes/{name}: {e}"))?;
                taxonomies = Some(t);
            } else {
                let v: Vocabulary =
                    toml::from_str(text).map_err(|e| format!("classes/{name}: {e}"))?;
                vocabularies.push(v);
            }
        }
        let taxonomies = taxonomies.ok_or("classes/taxonomies.toml is missing")?;
        let kinds: Vec<String> = BlockKind::ALL.iter().map(|k| kind_label(*k)).collect();
        for v in &vocabularies {
            let at = format!("classes/{}.toml", v.vocabulary);
            for (tax, map) in &v.to {
                let t = taxonomies
                    .get(tax)
                    .ok_or_else(|| format!("{at}: [to.{tax}]: no such taxonomy"))?;
                for (label, class) in map {
                    if !v.labels.contains(label) {
                        return Err(format!("{at}: [to.{tax}] maps {label:?}, not a label of it"));
                    }
                    if class != "-" && !t.classes.contains(class) {
                        return Err(format!(
                            "{at}: [to.{tax}] maps {label:?} to {class:?}, not a class of {tax}"
                        ));
                    }
                }
            }
            for tax in taxonomies.keys() {
                if !v.to.contains_key(tax) {
                    return Err(format!("{at}: no map to the {tax} taxonomy ([to.{tax}])"));
                }
            }
            for (label, kind) in &v.kind {
                if !v.labels.contains(label) || !kinds.contains(kind) {
                    return Err(format!("{at}: [kind] {label:?} = {kind:?}: unknown"));
                }
            }
            if vocabularies.iter().filter(|w| w.vocabulary == v.vocabulary).count() > 1 {
                return Err(format!("{at}: vocabulary {} given twice", v.vocabulary));
            }
        }
        if let Some(corpus) = vocabularies.iter().find(|v| v.vocabulary == "corpus") {
            for k in &kinds {
                if !corpus.labels.contains(k) {
                    return Err(format!("classes/corpus.toml: block kind {k} is not a label"));
                }
            }
        } else {
            return Err("classes/corpus.toml is missing".into());
        }
        Ok(ClassMaps { taxonomies, vocabularies })
    }

    /// The compiled-in maps (checked by a test, so this cannot fail in a built binary).
    pub fn builtin() -> &'static ClassMaps {
        static MAPS: OnceLock<ClassMaps> = OnceLock::new();
        MAPS.get_or_init(|| ClassMaps::parse(&FILES).expect("classes/ is checked by a test"))
    }

    /// A taxonomy's names.
    pub fn taxonomy_names(&self) -> Vec<&str> {
        self.taxonomies.keys().map(String::as_str).collect()
    }

    /// A vocabulary by name.
    pub fn vocabulary(&self, name: &str) -> Option<&Vocabulary> {
        self.vocabularies.iter().find(|v| v.vocabulary == name)
    }

    /// What `label` of `vocabulary` becomes in `taxonomy`.
    pub fn map(&self, taxonomy: &str, vocabulary: &str, label: &str) -> Mapped {
        let (Some(t), Some(v)) = (self.taxonomies.get(taxonomy), self.vocabulary(vocabulary))
        else {
            return Mapped::Unmapped;
        };
        match v.to.get(taxonomy).and_then(|m| m.get(label)) {
            None => Mapped::Unmapped,
            Some(c) if c == "-" => Mapped::LeftOut,
            Some(c) => t
                .classes
                .iter()
                .position(|x| x == c)
                .map(|i| Mapped::Class(i as u32 + 1))
                .unwrap_or(Mapped::Unmapped),
        }
    }

    /// The vocabulary whose labels hold every one of `names` (a COCO file's category names),
    /// the first in [`FILES`]' order after `corpus`; `None` where none holds them all.
    pub fn vocabulary_of(&self, names: &[&str]) -> Option<&Vocabulary> {
        let mut order: Vec<&Vocabulary> =
            self.vocabularies.iter().filter(|v| v.vocabulary != "corpus").collect();
        order.extend(self.vocabularies.iter().filter(|v| v.vocabulary == "corpus"));
        order.into_iter().find(|v| names.iter().all(|n| v.labels.iter().any(|l| l == n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under `classes/` is compiled in, parses, and maps to classes that exist.
    #[test]
    fn every_class_map_parses_and_every_target_class_exists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("classes");
        let mut on_disk: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed, "classes/ and FILES differ");
        for (name, text) in FILES {
            let disk = std::fs::read_to_string(root.join(name)).unwrap();
            assert_eq!(disk, text, "{name}");
        }
        let maps = ClassMaps::parse(&FILES).unwrap();
        assert_eq!(maps.taxonomy_names(), ["docling", "omnidoc"]);
        assert_eq!(maps.taxonomies["docling"].classes.len(), 11);
        assert_eq!(maps.taxonomies["omnidoc"].classes.len(), 10);
        for v in &maps.vocabularies {
            for (tax, m) in &v.to {
                for (label, class) in m {
                    let got = maps.map(tax, &v.vocabulary, label);
                    match class.as_str() {
                        "-" => assert_eq!(got, Mapped::LeftOut),
                        _ => assert!(matches!(got, Mapped::Class(_)), "{label} → {class}"),
                    }
                }
            }
        }
    }

    #[test]
    fn a_bad_map_is_refused_naming_the_file_and_the_label() {
        let tax = FILES.iter().find(|(n, _)| *n == "taxonomies.toml").unwrap().1;
        let corpus = FILES[0].1;
        let bad = "vocabulary = \"x\"\nsource = \"s\"\nlabels = [\"a\"]\n\
                   [to.omnidoc]\na = \"nothing\"\n[to.docling]\na = \"Text\"\n";
        let e =
            ClassMaps::parse(&[("corpus.toml", corpus), ("x.toml", bad), ("taxonomies.toml", tax)])
                .unwrap_err();
        assert!(e.contains("classes/x.toml") && e.contains("\"nothing\""), "{e}");
        let missing =
            "vocabulary = \"x\"\nsource = \"s\"\nlabels = [\"a\"]\n[to.omnidoc]\na = \"text\"\n";
        let e = ClassMaps::parse(&[
            ("corpus.toml", corpus),
            ("x.toml", missing),
            ("taxonomies.toml", tax),
        ])
        .unwrap_err();
        assert!(e.contains("[to.docling]"), "{e}");
    }

    #[test]
    fn labels_map_left_out_and_unmapped() {
        let m = ClassMaps::builtin();
        assert_eq!(m.map("omnidoc", "omnidocbench", "text_block"), Mapped::Class(2));
        assert_eq!(m.map("omnidoc", "omnidocbench", "header"), Mapped::Class(3));
        assert_eq!(m.map("omnidoc", "omnidocbench", "reference"), Mapped::LeftOut);
        assert_eq!(m.map("omnidoc", "omnidocbench", "text_mask"), Mapped::Unmapped);
        assert_eq!(m.map("docling", "docling", "form"), Mapped::Unmapped);
        assert_eq!(m.map("docling", "corpus", "heading"), Mapped::Class(8));
        assert_eq!(m.vocabulary_of(&["Text", "Table"]).unwrap().vocabulary, "doclaynet");
        assert_eq!(m.vocabulary_of(&["text_block"]).unwrap().vocabulary, "omnidocbench");
        assert!(m.vocabulary_of(&["Text", "text_block"]).is_none());
    }
}
