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
    /// blake3 of the file, as `corpus models check` and every load verify it. Optional for
    /// manifests written before it existed (their text is part of cache keys, so it stays).
    #[serde(default)]
    pub blake3: Option<String>,
    /// The file's size in bytes.
    pub size: u64,
}

/// How a network model's input is prepared and its output read (absent for native libraries).
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct ModelInfo {
    /// Input shape without the batch axis: channels, height, width (0 = any).
    pub input: Vec<u32>,
    /// Channel order of the input image (`bgr` or `rgb`).
    pub channels: String,
    /// Per-channel mean, after scaling to 0..1.
    pub mean: [f32; 3],
    /// Per-channel standard deviation.
    pub std: [f32; 3],
    /// Class labels in output order, for detectors.
    #[serde(default)]
    pub labels: Vec<String>,
}

/// One model manifest.
#[derive(Debug, Clone, Deserialize, PartialEq)]
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
    /// Input and output conventions, for network models.
    #[serde(default)]
    pub model: Option<ModelInfo>,
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
pub const MANIFESTS: &[(&str, &str)] = &[
    ("pdfium/libpdfium.toml", include_str!("../../models/pdfium/libpdfium.toml")),
    (
        "onnxruntime/libonnxruntime.toml",
        include_str!("../../models/onnxruntime/libonnxruntime.toml"),
    ),
    ("layout/layout_cdla.toml", include_str!("../../models/layout/layout_cdla.toml")),
    ("layout/slanet_plus.toml", include_str!("../../models/layout/slanet_plus.toml")),
    ("layout/ppocrv4_det.toml", include_str!("../../models/layout/ppocrv4_det.toml")),
    ("layout/ppocrv4_rec.toml", include_str!("../../models/layout/ppocrv4_rec.toml")),
];

/// Returns the text of the compiled-in manifest at `path` (under models/).
pub fn text(path: &str) -> &'static str {
    MANIFESTS.iter().find(|(p, _)| *p == path).map(|(_, t)| *t).unwrap_or_default()
}

/// One model file as installed on this machine, with its manifest.
#[derive(Debug, Clone)]
pub struct Installed {
    /// The manifest's path under models/ (`layout/layout_cdla.toml`).
    pub manifest_path: &'static str,
    /// The manifest's exact text.
    pub text: &'static str,
    /// The parsed manifest.
    pub manifest: Manifest,
    /// Where the file is (or would be) on this machine.
    pub file: std::path::PathBuf,
}

impl Installed {
    /// Looks up the compiled-in manifest at `path` and where its file is installed:
    /// `CORPUS_MODELS/<package>-<version>/<file>` (default: the cache's `models/`) for models,
    /// `CORPUS_ONNXRUNTIME` or the cache's `native/onnxruntime-<version>/` for the runtime.
    pub fn find(path: &'static str) -> Result<Installed> {
        let text = text(path);
        let manifest = Manifest::parse(text, path)?;
        let file = install_path(&manifest);
        Ok(Installed { manifest_path: path, text, manifest, file })
    }

    /// Checks the file against the manifest (exists, size, blake3) and returns its digest with
    /// the manifest (see [`Manifest::digest`]). Every error names the file and says how to fix it.
    pub fn verify(&self) -> Result<String> {
        let f = &self.file;
        let name = &self.manifest.name;
        let fix = "run `corpus setup` to install it";
        let meta = std::fs::metadata(f).map_err(|_| {
            Error::Native(format!("model {name}: {} is missing; {fix}", f.display()))
        })?;
        let src = &self.manifest.source;
        if meta.len() != src.size {
            return Err(Error::Native(format!(
                "model {name}: {} has {} bytes, its manifest {} says {}; the file is damaged or \
                 another version: delete it and {fix}",
                f.display(),
                meta.len(),
                self.manifest_path,
                src.size
            )));
        }
        let file = std::fs::File::open(f).map_err(|e| Error::io(f, e))?;
        let mut h = blake3::Hasher::new();
        h.update_reader(file).map_err(|e| Error::io(f, e))?;
        let got = h.finalize().to_hex().to_string();
        if let Some(want) = &src.blake3 {
            if &got != want {
                return Err(Error::Native(format!(
                    "model {name}: {} has blake3 {got}, its manifest {} says {want}; the file \
                     is corrupted or was replaced: delete it and {fix}",
                    f.display(),
                    self.manifest_path
                )));
            }
        }
        Manifest::digest(self.text, f)
    }
}

/// Where `corpus setup` installs a manifest's file in the cache (no overrides):
/// `native/pdfium-<version>/`, `native/onnxruntime-<version>/` or
/// `models/<package>-<version>/`, then the file's name.
pub fn cache_path(m: &Manifest) -> std::path::PathBuf {
    use std::path::PathBuf;
    let base = std::path::Path::new(&m.source.path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cache = crate::paths::cache_dir().unwrap_or_else(|| PathBuf::from(".corpus-cache"));
    let v = &m.source.package_version;
    match m.task.as_str() {
        "text-layer" => cache.join("native").join(format!("pdfium-{v}")).join(base),
        "runtime" => cache.join("native").join(format!("onnxruntime-{v}")).join(base),
        _ => cache.join("models").join(format!("{}-{v}", m.source.package)).join(base),
    }
}

fn install_path(m: &Manifest) -> std::path::PathBuf {
    use std::path::PathBuf;
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let at = cache_path(m);
    let base = at.file_name().map(PathBuf::from).unwrap_or_default();
    if m.task == "text-layer" {
        return super::pdfium::library_path().unwrap_or(at);
    }
    if m.task == "runtime" {
        if let Some(p) = var("CORPUS_ONNXRUNTIME") {
            return if p.is_dir() { p.join(base) } else { p };
        }
        return at;
    }
    match var("CORPUS_MODELS") {
        Some(root) => {
            root.join(format!("{}-{}", m.source.package, m.source.package_version)).join(base)
        }
        None => at,
    }
}

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
