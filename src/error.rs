//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A store (SQLite) operation failed.
    #[error("store error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file's content is not what its format requires.
    #[error("{path}: {msg}")]
    BadInput {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        msg: String,
    },
    /// The store file was written by a newer corpus.
    #[error(
        "the store is at schema version {found} but this corpus knows only {known}: upgrade corpus"
    )]
    SchemaTooNew {
        /// The store's `user_version`.
        found: i64,
        /// How many migrations this build has.
        known: i64,
    },
    /// A native library could not be found or loaded.
    #[error("{0}")]
    Native(String),
    /// A provider failed on a document.
    #[error("provider {provider} failed: {msg}")]
    Provider {
        /// The provider id.
        provider: String,
        /// What went wrong.
        msg: String,
    },
    /// Something the user asked for does not exist or does not fit.
    #[error("{0}")]
    Usage(String),
    /// JSON (de)serialisation failed.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Returns an [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }
}
