//! The one error type of `amem-recall`. Record-level problems with single wiki
//! files are not errors: they are [`crate::SkippedFile`]s and the run goes on.

use std::path::PathBuf;

/// What can go wrong in recall. Every variant names the file or URI involved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The index database could not be opened or created.
    #[error("cannot open the index at {path}")]
    Open {
        /// The SQLite file.
        path: PathBuf,
        /// SQLite's reason.
        #[source]
        source: rusqlite::Error,
    },
    /// Another process holds the index (busy after the busy timeout).
    #[error("the index at {path} is locked by another amem process: wait for it to finish and retry")]
    Locked {
        /// The SQLite file.
        path: PathBuf,
    },
    /// The index was written by a newer amem with a schema this one cannot read.
    #[error("the index at {path} has wiki schema version {found}, this amem reads version {expected}: upgrade amem")]
    Incompatible {
        /// The SQLite file.
        path: PathBuf,
        /// Version found in the file.
        found: i64,
        /// Version this build writes.
        expected: i64,
    },
    /// A statement against the index failed (corruption, disk full, I/O).
    #[error("index {what} failed on {path}")]
    Sql {
        /// Which operation.
        what: &'static str,
        /// The SQLite file.
        path: PathBuf,
        /// SQLite's reason.
        #[source]
        source: rusqlite::Error,
    },
    /// A row of the index holds a value this build cannot read (hand edits, corruption).
    #[error("the index at {path} is damaged ({reason}): delete the wiki_* tables or the file and run `amem index`")]
    Corrupt {
        /// The SQLite file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// Indexing was stopped by the caller (Ctrl-C, or a test simulating a crash); nothing was committed.
    #[error("indexing was interrupted after {done} of {total} files; the index is unchanged")]
    Interrupted {
        /// Files looked at before the stop.
        done: usize,
        /// Files found.
        total: usize,
    },
    /// No item with this id is in the index.
    #[error("no wiki item {item:?} in the index: check the id, or run `amem index` if the file was added since")]
    UnknownItem {
        /// The item id asked for.
        item: String,
    },
    /// The item exists but has no such chunk.
    #[error("wiki item {item:?} has {chunks} chunks (numbered from 0); there is no chunk {chunk}")]
    UnknownChunk {
        /// The item id.
        item: String,
        /// The chunk asked for.
        chunk: u32,
        /// How many chunks the item has.
        chunks: u32,
    },
    /// Reading or writing a wiki file or folder failed.
    #[error("cannot {what} {path}")]
    Io {
        /// What was being done ("read", "write", "create folder").
        what: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The OS reason.
        #[source]
        source: std::io::Error,
    },
    /// Text handed to `capture` is unusable (empty after trimming).
    #[error("nothing to capture: {0}")]
    EmptyCapture(String),
    /// An evaluation corpus record could not be read.
    #[error("{path}:{line}: {reason}")]
    Corpus {
        /// The JSONL file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with the record.
        reason: String,
    },
    /// The static embedder could not embed a text (recall by meaning).
    #[error("the static embedder failed: {0}")]
    Embedding(#[from] amem_models::ModelError),
    /// A recall method that reads vectors was asked for without an embedder.
    #[error("recall method {0} reads the static embedder, and none was given")]
    NoEmbedder(crate::RecallMethod),
}

/// `Result` with [`Error`] as the default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
