//! `corpus`: a corpus manager for people who evaluate PDF parsers.
//!
//! PDFs and their ground truth live in one content-hashed SQLite store ([`store`]); parsers
//! ("providers", [`providers`]) run once per model version and their outputs are cached by a
//! key that names everything that can change them ([`providers::key`]); suites score outputs
//! against the truth and keep every score.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Declares an enum and its `ALL`, every variant in declaration order, from one list: a
/// variant cannot be added without being in `ALL`, and every `match` on the enum is
/// exhaustive, so a registry built on it (suites, truth formats) is checked by the compiler.
macro_rules! listed_enum {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($(#[$vm:meta])* $v:ident),+ $(,)? }) => {
        $(#[$m])*
        $vis enum $name { $($(#[$vm])* $v),+ }
        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$(stringify!($v)),+].len()] = [$($name::$v),+];
        }
    };
}

pub mod cluster;
pub mod degrade;
pub mod doc;
pub mod draft;
pub mod error;
pub mod external;
pub mod formats;
pub mod import;
pub mod ingest;
pub mod install;
pub mod llm;
pub mod metrics;
pub mod normalize;
pub mod paper;
pub mod paths;
pub mod process;
pub mod progress;
pub mod providers;
pub mod report;
pub mod sample;
pub mod store;
pub mod suites;
pub mod synth;
#[cfg(test)]
pub(crate) mod test_support;
pub mod truth;
pub mod walk;

pub use error::{Error, Result};

/// Every name a user types is documented (datasette's rule): each suite, truth and import
/// format, reply format, provider and preset, and each metric id a suite stores appears in
/// the README, CONTRIBUTING.md, `bench/README.md` or a page under `docs/`.
#[cfg(test)]
mod documented {
    fn all_docs() -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut text = String::new();
        for f in ["README.md", "CONTRIBUTING.md", "bench/README.md"] {
            text.push_str(&std::fs::read_to_string(root.join(f)).unwrap_or_default());
        }
        let mut dirs = vec![root.join("docs")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "md") {
                    text.push_str(&std::fs::read_to_string(&p).unwrap());
                }
            }
        }
        text
    }

    #[test]
    fn every_suite_format_provider_and_metric_id_is_in_the_docs() {
        let docs = all_docs();
        let mut missing = Vec::new();
        let mut want = |what: &str, id: &str| {
            if !docs.contains(&format!("`{id}`")) && !docs.contains(&format!("`{id} ")) {
                missing.push(format!("{what} {id}"));
            }
        };
        for s in crate::suites::Suite::ALL {
            want("suite", s.name());
            for n in s.stored_names() {
                want("stored suite", n);
            }
            for m in s.metric_ids() {
                want("metric", m);
            }
        }
        for f in crate::formats::Format::ALL {
            want("format", f.name());
        }
        for e in crate::providers::entries().0 {
            want("provider", e.id());
        }
        assert!(missing.is_empty(), "not in the docs (as `id`): {missing:?}");
    }
}
