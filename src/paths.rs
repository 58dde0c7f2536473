//! Where corpus keeps and finds the files it needs at run time, the same for a binary built
//! in a checkout and one installed from the `corpus-eval` wheel (docs/guide/install.md):
//!
//! - the cache, `${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}` ([`cache_dir`]):
//!   native libraries, models, preset environments, page images, and the node packages that
//!   `corpus setup --katex` installs;
//! - assets, the node scripts of the KaTeX renderers ([`asset_dir`]): an environment variable
//!   first, then the cache (where `corpus setup --katex` puts them with their node packages),
//!   then `share/corpus/` beside the executable's folder (where the wheel installs them), then
//!   the checkout the binary was built from, when it is still there. The first folder that
//!   holds the asset's marker file wins; without one, the first that holds its script.

use std::path::{Path, PathBuf};

/// `${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}`.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("CORPUS_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|x| x.join("corpus")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("corpus")))
}

/// A folder of node scripts corpus runs, and how to tell it is usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asset {
    /// KaTeX under node: `render.js` and `node_modules/katex`.
    Katex,
    /// KaTeX in headless Chromium: `katex.mjs` and `node_modules/playwright-core`.
    Browser,
}

impl Asset {
    /// The folder's name (under `scripts/` in the checkout, `share/corpus/` when installed,
    /// `node/` in the cache).
    pub fn name(self) -> &'static str {
        match self {
            Asset::Katex => "katex",
            Asset::Browser => "browser",
        }
    }

    /// The environment variable that names the folder outright.
    pub fn env(self) -> &'static str {
        match self {
            Asset::Katex => "CORPUS_KATEX_DIR",
            Asset::Browser => "CORPUS_BROWSER_DIR",
        }
    }

    /// The script node runs.
    pub fn script(self) -> &'static str {
        match self {
            Asset::Katex => "render.js",
            Asset::Browser => "katex.mjs",
        }
    }

    /// The installed node package that makes the folder usable.
    pub fn package(self) -> &'static str {
        match self {
            Asset::Katex => "katex",
            Asset::Browser => "playwright-core",
        }
    }

    /// Whether `dir` holds the script and its installed package.
    pub fn ready(self, dir: &Path) -> bool {
        dir.join(self.script()).is_file()
            && dir.join("node_modules").join(self.package()).join("package.json").is_file()
    }
}

/// The folders an asset is looked for in, in order (see the module docs).
pub fn asset_candidates(asset: Asset) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(d) = std::env::var_os(asset.env()).filter(|v| !v.is_empty()) {
        out.push(PathBuf::from(d));
    }
    if let Some(c) = cache_dir() {
        out.push(c.join("node").join(asset.name()));
    }
    if let Some(share) = installed_share() {
        out.push(share.join(asset.name()));
    }
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(asset.name());
    if checkout.is_dir() {
        out.push(checkout);
    }
    out
}

/// The folder of `asset`: the first candidate where it is ready, else the first that holds
/// its script (so the error names what is missing there), else the first candidate.
pub fn asset_dir(asset: Asset) -> PathBuf {
    let c = asset_candidates(asset);
    c.iter()
        .find(|d| asset.ready(d))
        .or_else(|| c.iter().find(|d| d.join(asset.script()).is_file()))
        .or(c.first())
        .cloned()
        .unwrap_or_else(|| PathBuf::from("scripts").join(asset.name()))
}

/// `<prefix>/share/corpus` for an executable installed as `<prefix>/bin/corpus` (a wheel, a
/// virtual environment, `cargo install`'s root), when it exists.
pub fn installed_share() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let share = exe.parent()?.parent()?.join("share").join("corpus");
    share.is_dir().then_some(share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asset_is_found_where_it_is_ready() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        let b = tmp.path().join("b");
        std::fs::create_dir_all(a.join("node_modules/katex")).unwrap();
        std::fs::write(a.join("render.js"), "").unwrap();
        assert!(!Asset::Katex.ready(&a), "no package.json yet");
        std::fs::write(a.join("node_modules/katex/package.json"), "{}").unwrap();
        assert!(Asset::Katex.ready(&a));
        assert!(!Asset::Katex.ready(&b));
        assert!(!Asset::Browser.ready(&a));
    }
}
