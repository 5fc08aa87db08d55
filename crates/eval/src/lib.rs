//! `amem-eval`: the measures behind `amem eval …` and the figures of docs/benchmarks.md,
//! kept out of the shipped stages.
//!
//! Where it sits: to the right of every stage it scores (the cue detector of
//! `amem-text`, the extractor, recall, the verifier), to the left of the CLI.
//! No stage depends on it.
//!
//! - [`cues`]: negation, hedge and attribution cues against annotated cue spans;
//! - [`claims`]: the claim extractor against hand labels;
//! - [`recall`]: the recall presence instrument with its shuffled control
//!   (and [`value`], what "present in value" means);
//! - [`verify`]: the deterministic verifier against claim–evidence sets.
//!
//! ```no_run
//! let scores = amem_eval::cues::evaluate_dir(std::path::Path::new("../shared/eval"))?;
//! print!("{}", amem_eval::cues::markdown_table(&scores));
//! # Ok::<(), amem_eval::Error>(())
//! ```
#![deny(missing_docs)]

pub mod claims;
pub mod cues;
pub mod recall;
pub mod value;
pub mod verify;

/// Errors of the cue and claim measures (recall's and the verifier's
/// measures keep their crates' error types).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A corpus or labels file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A corpus line is not the expected JSON.
    #[error("{path}:{line}: {message}")]
    Record {
        /// The file.
        path: std::path::PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// A labels line is not a valid label.
    #[error("{path}:{line}: {message}")]
    Label {
        /// The file (or the name of the bundled labels).
        path: String,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// The folder holds none of the cue corpora.
    #[error("no cue corpus under {0}: expected bioscope/, sfu_review/, sherlock_cdsco/ or polnear/ with sentences.jsonl")]
    NoCorpus(std::path::PathBuf),
}

/// Result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;
