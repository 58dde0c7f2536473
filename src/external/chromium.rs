//! KaTeX in headless Chromium, as olmOCR-bench's runner renders math (`render.py`): a
//! [`MathRenderer`] that drives Debian's `chromium` through node and playwright-core
//! (`scripts/browser/katex.mjs`, one browser for the whole run), so that `math` tests are
//! decided exactly as there: MathML containment first, then the positional comparison of the
//! laid-out glyphs ([`crate::metrics::katex::compare`], pure). Formulas travel in batches (one
//! JSON line per batch each way) and every formula is rendered once per run (an in-memory
//! cache). See docs/olmocr-bench.md §3.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;

use crate::metrics::katex::{compare, KatexRender, Normalization, SpanBox};
use crate::metrics::olmocr::MathRenderer;

use super::NodeHelper;

/// How long node may take to start Chromium, load KaTeX and greet.
const HANDSHAKE: Duration = Duration::from_secs(120);
/// A batch's time limit: this, plus [`PER_FORMULA`] for each formula in it.
const PER_BATCH: Duration = Duration::from_secs(60);
/// Each formula's share of a batch's time limit (a render takes milliseconds).
const PER_FORMULA: Duration = Duration::from_secs(2);

/// The command that installs the driver, relative to the project root.
pub const INSTALL_HINT: &str = "corpus setup --katex, and Debian's chromium";

/// Why the browser renderer could not start or answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrowserError {
    /// `node` could not be started.
    NodeMissing(String),
    /// The script, playwright-core, KaTeX or Chromium is missing or does not start.
    Unavailable(String),
    /// The process died or answered something unexpected.
    Protocol(String),
}

impl fmt::Display for BrowserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BrowserError::NodeMissing(why) => write!(f, "cannot run node ({why})"),
            BrowserError::Unavailable(why) => write!(f, "no headless Chromium for KaTeX: {why}"),
            BrowserError::Protocol(why) => write!(f, "the Chromium KaTeX renderer failed: {why}"),
        }
    }
}

impl std::error::Error for BrowserError {}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    ready: bool,
    #[serde(default)]
    katex: Option<String>,
    #[serde(default)]
    browser: Option<String>,
    #[serde(default)]
    fatal: Option<String>,
    #[serde(default)]
    renders: Option<Vec<Rendered>>,
}

/// One formula as `katex.mjs` returns it.
#[derive(Deserialize)]
struct Rendered {
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    mathml: String,
    #[serde(default)]
    spans: Vec<SpanBox>,
}

/// Reads one reply line of `katex.mjs`.
fn read_reply(line: &str) -> Result<Reply, BrowserError> {
    serde_json::from_str(line).map_err(|e| {
        let shown: String = line.chars().take(200).collect();
        BrowserError::Protocol(format!("bad reply {shown:?}: {e}"))
    })
}

/// Sends one batch of formulas and reads their renders, one per formula.
fn batch(node: &mut NodeHelper, texs: &[&str]) -> Result<Vec<Rendered>, BrowserError> {
    let msg = serde_json::json!({ "batch": texs }).to_string();
    let limit = PER_BATCH + PER_FORMULA * texs.len() as u32;
    let reply = read_reply(&node.request(&msg, limit).map_err(BrowserError::Protocol)?)?;
    if let Some(fatal) = reply.fatal {
        return Err(BrowserError::Protocol(fatal));
    }
    let renders = reply.renders.ok_or_else(|| BrowserError::Protocol("no renders".into()))?;
    if renders.len() != texs.len() {
        return Err(BrowserError::Protocol(format!(
            "{} renders for {} formulas",
            renders.len(),
            texs.len()
        )));
    }
    Ok(renders)
}

struct State {
    node: NodeHelper,
    cache: HashMap<String, Arc<KatexRender>>,
    failure: Option<BrowserError>,
    batches: usize,
}

/// KaTeX rendered in one headless Chromium for the whole run (see the module docs).
pub struct BrowserKatex {
    state: Mutex<State>,
    mode: Normalization,
    katex: String,
    browser: String,
}

impl fmt::Debug for BrowserKatex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BrowserKatex")
            .field("katex", &self.katex)
            .field("browser", &self.browser)
            .finish_non_exhaustive()
    }
}

impl BrowserKatex {
    /// `katex.mjs` in the browser scripts' folder (`CORPUS_BROWSER_DIR`, the cache, the
    /// installed `share/corpus/`, the checkout: [`crate::paths::asset_dir`]).
    pub fn default_script() -> PathBuf {
        crate::paths::asset_dir(crate::paths::Asset::Browser).join("katex.mjs")
    }

    /// Start `node` (from `PATH`) on `script`, with `chromium` (else `$CORPUS_CHROMIUM`, else
    /// `/usr/bin/chromium`), and the lxml normalization of the MathML.
    pub fn start(script: &Path, chromium: Option<&Path>) -> Result<BrowserKatex, BrowserError> {
        BrowserKatex::start_with(Path::new("node"), script, chromium, Normalization::Xml)
    }

    /// [`BrowserKatex::start`] with a given `node` and normalization.
    pub fn start_with(
        node: &Path,
        script: &Path,
        chromium: Option<&Path>,
        mode: Normalization,
    ) -> Result<BrowserKatex, BrowserError> {
        if !script.is_file() {
            return Err(BrowserError::Unavailable(format!("{} not found", script.display())));
        }
        let dir = script.parent().unwrap_or(Path::new("."));
        if !dir.join("node_modules").join("playwright-core").join("package.json").is_file() {
            return Err(BrowserError::Unavailable(format!(
                "{} has no playwright-core ({INSTALL_HINT})",
                dir.display()
            )));
        }
        let mut cmd = Command::new(node);
        cmd.arg(script).current_dir(dir);
        if let Some(c) = chromium {
            cmd.env("CORPUS_CHROMIUM", c);
        }
        let mut helper = NodeHelper::start(cmd, "node")
            .map_err(|e| BrowserError::NodeMissing(format!("{}: {e}", node.display())))?;
        let hello = read_reply(&helper.greeting(HANDSHAKE).map_err(BrowserError::Protocol)?)?;
        if let Some(fatal) = hello.fatal {
            return Err(BrowserError::Unavailable(fatal));
        }
        let (true, Some(katex), Some(browser)) = (hello.ready, hello.katex, hello.browser) else {
            return Err(BrowserError::Protocol("no handshake from katex.mjs".to_string()));
        };
        Ok(BrowserKatex {
            state: Mutex::new(State {
                node: helper,
                cache: HashMap::new(),
                failure: None,
                batches: 0,
            }),
            mode,
            katex,
            browser,
        })
    }

    /// The KaTeX version loaded in the page.
    pub fn katex_version(&self) -> &str {
        &self.katex
    }

    /// Chromium's version.
    pub fn browser_version(&self) -> &str {
        &self.browser
    }

    /// Render every formula of `texs` not rendered yet, in one batch.
    pub fn render_batch(&self, texs: &[&str]) -> Result<(), BrowserError> {
        let mut state = self.state.lock().map_err(|_| BrowserError::Protocol("poisoned".into()))?;
        let mut seen = HashSet::new();
        let todo: Vec<&str> = texs
            .iter()
            .copied()
            .filter(|t| !state.cache.contains_key(*t) && seen.insert(*t))
            .collect();
        if todo.is_empty() {
            return Ok(());
        }
        let renders = batch(&mut state.node, &todo)?;
        state.batches += 1;
        for (tex, r) in todo.into_iter().zip(renders) {
            let render = match &r.error {
                Some(message) => KatexRender::from_browser(Err(message), self.mode),
                None => KatexRender::from_browser(Ok((&r.mathml, r.spans)), self.mode),
            };
            state.cache.insert(tex.to_string(), Arc::new(render));
        }
        Ok(())
    }

    /// Render `tex` (cached). A KaTeX error is a render with `error` set; `Err` means the
    /// browser process failed.
    pub fn render_checked(&self, tex: &str) -> Result<Arc<KatexRender>, BrowserError> {
        self.render_batch(&[tex])?;
        let state = self.state.lock().map_err(|_| BrowserError::Protocol("poisoned".into()))?;
        state
            .cache
            .get(tex)
            .cloned()
            .ok_or_else(|| BrowserError::Protocol("render missing from the cache".into()))
    }

    /// The first process failure met through [`MathRenderer`] (whose methods cannot return
    /// it), if any: a caller checks it after scoring.
    pub fn failure(&self) -> Option<BrowserError> {
        self.state.lock().ok().and_then(|s| s.failure.clone())
    }

    /// Distinct formulas rendered so far.
    pub fn cached(&self) -> usize {
        self.state.lock().map_or(0, |s| s.cache.len())
    }

    /// Batches sent to the browser so far.
    pub fn batches(&self) -> usize {
        self.state.lock().map_or(0, |s| s.batches)
    }

    fn note(&self, e: BrowserError) {
        if let Ok(mut s) = self.state.lock() {
            s.failure.get_or_insert(e);
        }
    }
}

impl MathRenderer for BrowserKatex {
    type Rendered = Arc<KatexRender>;

    /// `Some` while the browser works, KaTeX errors included; `None` after a process failure
    /// (see [`BrowserKatex::failure`]).
    fn render(&self, latex: &str) -> Option<Arc<KatexRender>> {
        self.render_checked(latex).map_err(|e| self.note(e)).ok()
    }

    fn matches(&self, reference: &Arc<KatexRender>, hypothesis: &Arc<KatexRender>) -> bool {
        compare(reference, hypothesis).matched()
    }

    fn decide(&self, reference: &Arc<KatexRender>, hypothesis: &Arc<KatexRender>) -> Option<bool> {
        compare(reference, hypothesis).decided()
    }

    fn prefetch(&self, latex: &[&str]) {
        if let Err(e) = self.render_batch(latex) {
            self.note(e);
        }
    }
}
