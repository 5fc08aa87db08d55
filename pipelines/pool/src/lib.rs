//! `amem-pool`: research write pools — build from mail threads that carry
//! quoted or forwarded content, gate every candidate write, draw a blind
//! stratified labelling session, and score the labels.
//!
//! The loop (docs/architecture.md, "Research pools"): [`session::draw`] samples the
//! flagged and passed strata of a gated pool; people fill the `label`
//! column of `session.csv`; [`score::score`] reads it with the hidden key.
#![deny(missing_docs)]

pub mod bench;
pub mod build;
pub mod pool_file;
pub mod score;
pub mod session;
pub mod stats;

use amem_records::{GateFlag, GateVerdict};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One candidate memory write paired with the source it came from, gated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// The source's id (the message id `amem import` prints).
    pub source_id: String,
    /// The write's id.
    pub write_id: String,
    /// The source text the write should be faithful to.
    pub source: String,
    /// The memory write.
    pub memory: String,
    /// The gate verdict.
    pub verdict: GateVerdict,
    /// The gate flags.
    pub flags: Vec<GateFlag>,
}

impl Candidate {
    #[cfg(test)]
    pub(crate) fn for_test(source_id: &str, write_id: &str, verdict: GateVerdict) -> Candidate {
        Candidate {
            source_id: source_id.into(),
            write_id: write_id.into(),
            source: format!("source of {source_id}"),
            memory: format!("memory of {source_id}"),
            verdict,
            flags: vec![],
        }
    }
}

/// Errors of the pool commands.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A CSV file is malformed.
    #[error("{path}: {source}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: csv::Error,
    },
    /// An Arrow file cannot be written or read.
    #[error("{path}: {source}")]
    Arrow {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: arrow_schema::ArrowError,
    },
    /// A row's content is wrong.
    #[error("{path}: line {line}: {reason}")]
    Input {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

impl Error {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io { path: path.to_path_buf(), source }
    }
    pub(crate) fn arrow(path: &Path, source: arrow_schema::ArrowError) -> Self {
        Error::Arrow { path: path.to_path_buf(), source }
    }
    pub(crate) fn csv(path: &Path, source: csv::Error) -> Self {
        Error::Csv { path: path.to_path_buf(), source }
    }
}

/// Result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;
