//! KaTeX under node: one long-lived `node` process running `scripts/katex/render.js` (requests
//! and replies are JSON lines, see [`super::NodeHelper`]) and a cache of renders, as a
//! [`MathRenderer`] for olmOCR-bench's `math` tests. What a render is and how two are compared
//! is pure and lives in [`crate::metrics::katex`] (its module docs give the reference).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;

use super::NodeHelper;
use crate::metrics::katex::{compare, KatexRender, Normalization, INSTALL_HINT};
use crate::metrics::olmocr::MathRenderer;

/// How long node may take to load KaTeX and greet.
const HANDSHAKE: Duration = Duration::from_secs(60);
/// How long one formula may take (KaTeX renders one in milliseconds; a hang is a failure).
const PER_FORMULA: Duration = Duration::from_secs(60);

/// Why the renderer could not start or answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KatexError {
    /// The `node` executable could not be started.
    NodeMissing(String),
    /// The script or the katex package is missing or does not load.
    KatexMissing(String),
    /// The node process died or answered something unexpected.
    Protocol(String),
}

impl fmt::Display for KatexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KatexError::NodeMissing(why) => write!(
                f,
                "cannot run node ({why}); install Node.js (20 or later), then run `{INSTALL_HINT}`"
            ),
            KatexError::KatexMissing(why) => {
                write!(f, "KaTeX is not available ({why}); run `{INSTALL_HINT}`")
            }
            KatexError::Protocol(why) => write!(f, "KaTeX renderer failed: {why}"),
        }
    }
}

impl std::error::Error for KatexError {}

fn read_reply(line: String) -> Result<Reply, KatexError> {
    serde_json::from_str(&line)
        .map_err(|e| KatexError::Protocol(format!("bad reply {line:?}: {e}")))
}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    markup: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    ready: bool,
    #[serde(default)]
    katex: Option<String>,
    #[serde(default)]
    fatal: Option<String>,
}

struct State {
    node: NodeHelper,
    cache: HashMap<String, Arc<KatexRender>>,
    failure: Option<KatexError>,
}

/// A [`MathRenderer`] that renders with KaTeX in one long-lived `node` process running
/// `scripts/katex/render.js`, caching renders by formula.
pub struct KatexRenderer {
    state: Mutex<State>,
    mode: Normalization,
    version: String,
}

impl fmt::Debug for KatexRenderer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KatexRenderer")
            .field("mode", &self.mode)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl KatexRenderer {
    /// The folder holding `render.js` and `node_modules/katex` (`CORPUS_KATEX_DIR`, the
    /// cache, the installed `share/corpus/`, the checkout: [`crate::paths::asset_dir`]).
    pub fn default_dir() -> PathBuf {
        crate::paths::asset_dir(crate::paths::Asset::Katex)
    }

    /// Start `node` (from `PATH`) on `dir/render.js`, with the lxml normalization.
    pub fn start(dir: &Path) -> Result<KatexRenderer, KatexError> {
        KatexRenderer::start_with(Path::new("node"), dir, Normalization::Xml)
    }

    /// Start the given `node` executable on `dir/render.js` with the given normalization.
    pub fn start_with(
        node: &Path,
        dir: &Path,
        mode: Normalization,
    ) -> Result<KatexRenderer, KatexError> {
        let script = dir.join("render.js");
        if !script.is_file() {
            return Err(KatexError::KatexMissing(format!("{} not found", script.display())));
        }
        let package = dir.join("node_modules").join("katex").join("package.json");
        if !package.is_file() {
            return Err(KatexError::KatexMissing(format!("{} not found", package.display())));
        }
        let mut cmd = Command::new(node);
        cmd.arg(&script).current_dir(dir);
        let mut helper = NodeHelper::start(cmd, "node")
            .map_err(|e| KatexError::NodeMissing(format!("{}: {e}", node.display())))?;
        let hello = read_reply(helper.greeting(HANDSHAKE).map_err(KatexError::Protocol)?)?;
        if let Some(fatal) = hello.fatal {
            return Err(KatexError::KatexMissing(fatal));
        }
        let version = match (hello.ready, hello.katex) {
            (true, Some(v)) => v,
            _ => return Err(KatexError::Protocol("no handshake from render.js".to_string())),
        };
        Ok(KatexRenderer {
            state: Mutex::new(State { node: helper, cache: HashMap::new(), failure: None }),
            mode,
            version,
        })
    }

    /// The KaTeX version the node process loaded.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The normalization in use.
    pub fn normalization(&self) -> Normalization {
        self.mode
    }

    /// Render `tex` (cached). A KaTeX error is a successful call whose render has `error` set;
    /// `Err` means the node process failed.
    pub fn render_checked(&self, tex: &str) -> Result<Arc<KatexRender>, KatexError> {
        let mut state = self.state.lock().map_err(|_| KatexError::Protocol("poisoned".into()))?;
        if let Some(r) = state.cache.get(tex) {
            return Ok(Arc::clone(r));
        }
        let msg = serde_json::json!({ "tex": tex }).to_string();
        let reply =
            read_reply(state.node.request(&msg, PER_FORMULA).map_err(KatexError::Protocol)?)?;
        let render = match (reply.markup, reply.error) {
            (Some(m), _) => KatexRender::from_reply(Ok(&m), self.mode),
            (None, Some(e)) => KatexRender::from_reply(Err(&e), self.mode),
            (None, None) => return Err(KatexError::Protocol("empty reply".to_string())),
        };
        let render = Arc::new(render);
        state.cache.insert(tex.to_string(), Arc::clone(&render));
        Ok(render)
    }

    /// The first process failure met by [`MathRenderer::render`] (which can only answer
    /// `None`), if any. A caller should check it after scoring.
    pub fn failure(&self) -> Option<KatexError> {
        self.state.lock().ok().and_then(|s| s.failure.clone())
    }

    /// Number of distinct formulas rendered so far.
    pub fn cached(&self) -> usize {
        self.state.lock().map_or(0, |s| s.cache.len())
    }
}

impl MathRenderer for KatexRenderer {
    type Rendered = Arc<KatexRender>;

    /// Always `Some` while node works, KaTeX errors included (olmocr 0.4.27's `render_equation`
    /// never returns `None`); `None` after a process failure (see [`KatexRenderer::failure`]).
    fn render(&self, latex: &str) -> Option<Arc<KatexRender>> {
        match self.render_checked(latex) {
            Ok(r) => Some(r),
            Err(e) => {
                if let Ok(mut s) = self.state.lock() {
                    s.failure.get_or_insert(e);
                }
                None
            }
        }
    }

    fn matches(&self, reference: &Arc<KatexRender>, hypothesis: &Arc<KatexRender>) -> bool {
        compare(reference, hypothesis).matched()
    }

    fn decide(&self, reference: &Arc<KatexRender>, hypothesis: &Arc<KatexRender>) -> Option<bool> {
        compare(reference, hypothesis).decided()
    }
}

/// Tests with the real node + katex (skipped, saying why, when either is missing).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::katex::{Comparison, KATEX_VERSION};

    fn renderer() -> Option<KatexRenderer> {
        match KatexRenderer::start(&KatexRenderer::default_dir()) {
            Ok(r) => Some(r),
            Err(e) => {
                crate::test_support::skip_or_fail(&e.to_string());
                None
            }
        }
    }

    #[test]
    fn node_renders_and_caches() {
        let Some(r) = renderer() else { return };
        assert_eq!(r.version(), KATEX_VERSION);
        let a = r.render_checked("a^{2}+b^{2}=c^{2}").expect("render");
        // Chromium's outerHTML of this formula (olmocr's equation cache), run through lxml +
        // BeautifulSoup and whitespace removal.
        assert_eq!(
            a.key,
            "<mrow><msup><mi>a</mi><mn>2</mn></msup><mo>+</mo><msup><mi>b</mi><mn>2</mn></msup>\
                 <mo>=</mo><msup><mi>c</mi><mn>2</mn></msup></mrow>"
        );
        assert_eq!(a.chars.iter().collect::<String>(), "a2+b2=c2");
        assert!(a.error.is_none());
        let b = r.render_checked("a^{2}+b^{2}=c^{2}").expect("render");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(r.cached(), 1);
        let e = r.render_checked("\\frac{1}{").expect("render");
        assert!(e.error.as_deref().is_some_and(|m| m.starts_with("KaTeX parse error")));
        assert_eq!(r.cached(), 2);
        assert!(r.failure().is_none());
    }

    #[test]
    fn node_comparisons() {
        let Some(r) = renderer() else { return };
        let get = |t: &str| r.render(t).expect("render");
        // Spacing and braces do not change KaTeX's MathML.
        assert!(r.matches(&get("e^{i \\pi}+1=0"), &get("e^{i\\pi} + 1 = 0")));
        // A reference that is part of a larger hypothesis.
        // (A lone x^2 is wrapped in an <mrow>, so it is not contained in y = x^2 + 1; a
        // \left..\right group is its own wrapper.)
        assert!(r.matches(&get("\\left(x^{2}\\right)"), &get("\\left( x^2 \\right) + 1")));
        assert!(!r.matches(&get("x^{2}"), &get("y = x^2 + 1")));
        assert_eq!(compare(&get("x^{2}"), &get("y = x^2 + 1")), Comparison::NeedsLayout);
        // Different symbols: glyphs missing.
        assert_eq!(compare(&get("x^2"), &get("y^2")), Comparison::GlyphsMissing);
        // In display mode \dfrac and \frac give the same MathML.
        assert!(r.matches(&get("\\dfrac{a}{b}"), &get("\\frac{a}{b}")));
        // Same glyphs in another order: different MathML, so only layout decides.
        assert_eq!(compare(&get("\\frac{a}{b}"), &get("\\frac{b}{a}")), Comparison::NeedsLayout);
        // A reference KaTeX rejects matches any hypothesis (no reference glyphs).
        assert!(r.matches(&get("\\frac{a}{"), &get("z")));
        let raw = KatexRenderer::start_with(
            Path::new("node"),
            &KatexRenderer::default_dir(),
            Normalization::RawHtml,
        )
        .expect("second renderer");
        let get_raw = |t: &str| raw.render(t).expect("render");
        // Without lxml the annotation (TeX source minus whitespace) is part of the key.
        assert!(raw.matches(&get_raw("e^{i \\pi}+1=0"), &get_raw("e^{i\\pi} + 1 = 0")));
        assert!(!raw.matches(&get_raw("e^{i \\pi}+1=0"), &get_raw("e^{i \\pi}+1={0}")));
        assert!(r.matches(&get("e^{i \\pi}+1=0"), &get("e^{i \\pi}+1={0}")));
    }

    #[test]
    fn missing_katex_is_reported() {
        let dir = std::env::temp_dir().join("corpus-katex-missing-test");
        let err = KatexRenderer::start(&dir).expect_err("no script there");
        assert!(matches!(err, KatexError::KatexMissing(_)));
        assert!(err.to_string().contains(INSTALL_HINT));
        let err = KatexRenderer::start_with(
            Path::new("/nonexistent/node"),
            &KatexRenderer::default_dir(),
            Normalization::Xml,
        );
        match err {
            Err(KatexError::NodeMissing(_)) => {}
            Err(KatexError::KatexMissing(why)) => crate::test_support::skip_or_fail(&why),
            other => panic!("unexpected: {other:?}"),
        }
    }
}
