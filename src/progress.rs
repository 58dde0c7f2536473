//! Progress events from long library operations (the CLI draws a bar; tests ignore them).

/// Receives progress events.
pub trait Progress {
    /// The number of items that will be processed.
    fn start(&self, total: u64);
    /// One item finished.
    fn advance(&self, item: &str, ok: bool);
    /// All done.
    fn finish(&self);
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: u64) {}
    fn advance(&self, _: &str, _: bool) {}
    fn finish(&self) {}
}
