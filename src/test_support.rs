//! What the crate's own unit tests share, as `tests/it/util.rs` gives the integration tests:
//! a skip that says why and is a failure under `CI=true` (`scripts/test.sh` installs what the
//! tests need and CI has the shared data), and the shared benchmark data.

use std::path::{Path, PathBuf};

/// A test that needs a tool, a library or data this machine lacks says why and returns;
/// under `CI=true` that is a failure.
pub(crate) fn skip_or_fail(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("cannot run under CI=true: {why}");
    }
    eprintln!("skipping: {why}");
}

/// `../shared/data/<sub>` (or `$CORPUS_SHARED_DATA/<sub>`) if it exists; else a skip
/// ([`skip_or_fail`]) and `None`.
pub(crate) fn shared_data(sub: &str) -> Option<PathBuf> {
    let root = std::env::var_os("CORPUS_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    let p = root.join(sub);
    if p.exists() {
        Some(p)
    } else {
        skip_or_fail(&format!("{} is absent (set CORPUS_SHARED_DATA)", p.display()));
        None
    }
}
