//! Model manifests (`models/<provider>/<model>.toml`).
//!
//! A manifest names a model file, the registry package it comes from and its hash. The model
//! digest that enters the cache key folds the manifest text with the bytes of the file
//! actually loaded, so a new model (or a different native build) re-runs and an unchanged one
//! never does.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};

/// Where a model file comes from.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Source {
    /// The registry (`pypi`, `npm`).
    pub registry: String,
    /// The package name.
    pub package: String,
    /// The pinned package version.
    pub package_version: String,
    /// The file's path inside the package.
    pub path: String,
    /// sha256 of the file, as the set-up script verifies it.
    pub sha256: String,
    /// The file's size in bytes.
    pub size: u64,
}

/// One model manifest.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Manifest {
    /// The model's name.
    pub name: String,
    /// What it does.
    pub task: String,
    /// The model's own version.
    pub version: String,
    /// Its licence.
    pub licence: String,
    /// Where it comes from.
    pub source: Source,
}

impl Manifest {
    /// Parses a manifest's text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Manifest> {
        toml::from_str(text)
            .map_err(|e| Error::BadInput { path: origin.into(), msg: e.to_string() })
    }

    /// Returns the digest of this manifest (its exact text) with the model file at `file`.
    pub fn digest(text: &str, file: &Path) -> Result<String> {
        let mut h = blake3::Hasher::new();
        h.update(&(text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
        let f = std::fs::File::open(file).map_err(|e| Error::io(file, e))?;
        h.update_reader(f).map_err(|e| Error::io(file, e))?;
        Ok(h.finalize().to_hex().to_string())
    }
}

/// The manifests compiled into this build: (path under models/, text).
pub const MANIFESTS: &[(&str, &str)] =
    &[("pdfium/libpdfium.toml", include_str!("../../models/pdfium/libpdfium.toml"))];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_manifest_file_is_compiled_in_and_parses() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/models");
        let mut on_disk = Vec::new();
        for dir in std::fs::read_dir(root).unwrap() {
            let dir = dir.unwrap().path();
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "toml") {
                    on_disk.push(f.strip_prefix(root).unwrap().to_string_lossy().into_owned());
                }
            }
        }
        on_disk.sort();
        let mut listed: Vec<String> = MANIFESTS.iter().map(|(p, _)| p.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed);
        for (path, text) in MANIFESTS {
            let m = Manifest::parse(text, path).unwrap();
            assert_eq!(m.source.sha256.len(), 64, "{path}");
            assert_eq!(std::fs::read_to_string(format!("{root}/{path}")).unwrap(), *text);
        }
    }

    #[test]
    fn digest_changes_with_the_file_and_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("w");
        std::fs::write(&f, b"weights").unwrap();
        let a = Manifest::digest("v=1", &f).unwrap();
        assert_eq!(a, Manifest::digest("v=1", &f).unwrap());
        assert_ne!(a, Manifest::digest("v=2", &f).unwrap());
        std::fs::write(&f, b"weights2").unwrap();
        assert_ne!(a, Manifest::digest("v=1", &f).unwrap());
    }
}
