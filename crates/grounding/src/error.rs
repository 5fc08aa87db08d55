//! The crate's error type: the `[grounding]` table, capture, cache and log failures.
//! Per-source fetch failures are not errors of the run: they are
//! [`crate::FetchError`]s carried inside [`crate::GroundOutcome::Unavailable`].

use std::path::PathBuf;

/// Everything that can fail in `amem-grounding` outside a single fetch.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `config.toml` is not valid: the message names the line, column and key.
    #[error("{path}:{line}:{column}: {}{message}", key.as_ref().map(|k| format!("key `{k}`: ")).unwrap_or_default())]
    Config {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The key on that line, when there is one.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// Writing a file under the home failed (config, captured item, cache).
    #[error("cannot write {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Reading a file under the home failed (captured item, cache).
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file amem wrote earlier no longer parses (cache, captured front matter).
    #[error("{path} is corrupt: {detail}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The HTTP client could not be built (TLS provider, bad setting).
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    /// A capture store from another crate failed.
    #[error("capture store: {0}")]
    Store(String),
}

/// The crate's result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;
