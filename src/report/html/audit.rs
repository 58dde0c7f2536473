//! `corpus audit --format html -o DIR`: one page, `DIR/audit.html`, with every finding of a
//! truth audit (`docs/audit.md`): its score, the truth and the providers' consensus around
//! the edit, the providers, and, where the truth's document is a page image and the element
//! has a box, the crop of the page that shows it. The crop is the page image itself (copied
//! once into `DIR/pages/`, named by its hash) shown through a window the size of the box, so
//! no image is decoded or re-encoded. Every outside string goes through `esc`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::escape::esc;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::suites::audit::{AuditReport, Finding};

/// Widest crop shown, in CSS pixels.
const CROP_WIDTH: f64 = 640.0;

/// Pixels of page shown around an element's box.
const MARGIN: f64 = 12.0;

fn extension(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG") {
        Some("png")
    } else if bytes.starts_with(&[0xff, 0xd8]) {
        Some("jpg")
    } else {
        None
    }
}

/// Copies a page image into `pages/` once; returns its path relative to the page.
fn place_image(store: &Store, hash: &str, dir: &Path) -> Result<Option<String>> {
    let Some(bytes) = store.blob(hash)? else { return Ok(None) };
    let Some(ext) = extension(&bytes) else { return Ok(None) };
    let name = format!("pages/{hash}.{ext}");
    let path = dir.join(&name);
    if !path.exists() {
        let io = |e| Error::Io { path: path.clone(), source: e };
        std::fs::create_dir_all(dir.join("pages")).map_err(io)?;
        std::fs::write(&path, &bytes).map_err(|e| Error::Io { path: path.clone(), source: e })?;
    }
    Ok(Some(name))
}

fn crop(f: &Finding, src: &str) -> String {
    let (Some(b), Some((_, [w, h]))) = (f.bbox, &f.image) else { return String::new() };
    let x0 = (b[0] - MARGIN).max(0.0);
    let y0 = (b[1] - MARGIN).max(0.0);
    let x1 = (b[2] + MARGIN).min(*w);
    let y1 = (b[3] + MARGIN).min(*h);
    if x1 <= x0 || y1 <= y0 {
        return String::new();
    }
    let s = (CROP_WIDTH / (x1 - x0)).min(1.0);
    format!(
        "<div class=crop style=\"width:{:.0}px;height:{:.0}px\"><img src=\"{}\" alt=\"\" \
         style=\"width:{:.0}px;left:{:.0}px;top:{:.0}px\"></div>",
        (x1 - x0) * s,
        (y1 - y0) * s,
        esc(src),
        w * s,
        -x0 * s,
        -y0 * s
    )
}

/// Writes `dir/audit.html` (and the page images it shows) and returns its path.
pub fn write(store: &Store, r: &AuditReport, dir: &Path) -> Result<PathBuf> {
    let io = |e| Error::Io { path: dir.to_path_buf(), source: e };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html><head><meta charset=utf-8><title>Truth audit: {suite}</title>\
         <style>body{{font:14px system-ui,sans-serif;margin:2em}} .f{{border-top:1px solid #ccc;\
         padding:1em 0}} .crop{{position:relative;overflow:hidden;border:1px solid #888}} \
         .crop img{{position:absolute;max-width:none}} code{{white-space:pre-wrap}} \
         .t{{color:#a00}} .c{{color:#060}}</style></head><body>\
         <h1>Truth audit: {suite}{ds}</h1><p>{n} truth elements read by at least two of \
         {providers}; {k} findings shown, strongest first (rules: docs/audit.md).</p>",
        suite = esc(&r.suite),
        ds = r.dataset.as_deref().map(|d| format!(", dataset {}", esc(d))).unwrap_or_default(),
        n = r.elements,
        providers = esc(&r.providers.join(", ")),
        k = r.findings.len(),
    );
    for (i, f) in r.findings.iter().enumerate() {
        let img = match &f.image {
            Some((hash, _)) if f.bbox.is_some() => place_image(store, hash, dir)?,
            _ => None,
        };
        let _ = write!(
            h,
            "<div class=f><h3>{rank}. {doc} · {el}{at}{page} · {ev} · score {score:.3}</h3>\
             <p>support {sup:.3} × coherence {coh:.3}; providers: {prov} (of {readers})</p>\
             <p class=t>truth: <code>{truth}</code></p><p class=c>consensus: <code>{cons}</code></p>\
             {crop}<details><summary>whole element</summary><p>truth:</p><code>{tt}</code>\
             <p>consensus reading:</p><code>{ct}</code></details></div>",
            rank = i + 1,
            doc = esc(&f.document),
            el = esc(&f.element),
            at = f.at.as_deref().map(|a| format!(" {}", esc(a))).unwrap_or_default(),
            page = f.page.map(|p| format!(", page {p}")).unwrap_or_default(),
            ev = f.evidence.as_str(),
            score = f.score,
            sup = f.support,
            coh = f.coherence,
            prov = esc(&f.providers.join(", ")),
            readers = esc(&f.readers.join(", ")),
            truth = esc(&f.truth),
            cons = esc(&f.consensus),
            crop = img.map(|src| crop(f, &src)).unwrap_or_default(),
            tt = esc(&f.truth_text),
            ct = esc(&f.consensus_text),
        );
    }
    h.push_str("</body></html>\n");
    let path = dir.join("audit.html");
    std::fs::write(&path, h).map_err(|e| Error::Io { path: path.clone(), source: e })?;
    Ok(path)
}
