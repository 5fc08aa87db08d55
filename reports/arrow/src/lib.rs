//! `amem-report-arrow`: the machine-readable reports, `audit.arrow` (Arrow
//! IPC file), `audit.parquet` ([`ParquetSink`], the same rows) and
//! `audit.jsonl` (JSON Lines).
//!
//! Where it sits: a report sink at the end of the audit (docs/architecture.md,
//! "Reports"). [`ArrowSink`] implements [`ReportSink`] and writes one row per
//! claim assessment ([`AuditRecord`]) with the schema [`audit_schema`],
//! defined once and documented field by field in `reports/arrow/README.md`.
//! Rows go into typed builders created `with_capacity(batch_rows)` and are
//! flushed as a `RecordBatch` every `batch_rows` rows, so memory is bounded
//! by one batch whatever the run's size. The file is written as
//! `audit.arrow.tmp`, finished (footer) and renamed: an unfinished IPC file
//! is unreadable, so a killed run leaves no `audit.arrow` rather than a
//! broken one. pyarrow, polars and DuckDB open the result unchanged.
//!
//! Rows are written in the order `write` is called; the pipeline delivers
//! them in a deterministic order so that equal runs give equal files.
//! The run's info and summary (skipped, uncheckable, not_checked counts)
//! travel in the file footer's custom metadata as JSON under
//! [`RUN_INFO_KEY`] and [`RUN_SUMMARY_KEY`].
//!
//! [`JsonlSink`] writes the same rows as JSON Lines in the CLI's `--json`
//! shape: `{"type": "run_begin" | "assessment" | "run_summary", "data": ...}`.
//!
//! ```no_run
//! use amem_records::ReportSink;
//! use amem_report_arrow::ArrowSink;
//! # fn run(info: &amem_records::RunInfo, rows: Vec<amem_records::AuditRecord>, summary: &amem_records::RunSummary)
//! #     -> Result<(), amem_records::ReportError> {
//! let mut sink = ArrowSink::new(std::path::Path::new("reports").join(&info.run_id.0));
//! sink.begin(info)?;
//! for r in &rows {
//!     sink.write(r)?;
//! }
//! sink.finish(summary)?; // reports/<run-id>/audit.arrow
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod batched;
mod columns;
mod jsonl;
mod schema;

pub use batched::{ArrowIpcFile, BatchFile, BatchedSink, ParquetFile};
pub use jsonl::{FILE_NAME as JSONL_FILE_NAME, JsonlSink};
pub use schema::{SCHEMA_VERSION, SCHEMA_VERSION_KEY, audit_schema};

use std::fs;
use std::path::{Path, PathBuf};

/// The Arrow report's file name.
pub const FILE_NAME: &str = "audit.arrow";

/// Footer metadata key: the run's [`RunInfo`] as JSON.
pub const RUN_INFO_KEY: &str = "amem.run_info";
/// Footer metadata key: the run's [`RunSummary`] as JSON.
pub const RUN_SUMMARY_KEY: &str = "amem.run_summary";

/// Rows per record batch by default. A row is typically well under 2 KiB
/// (claim text, one or two evidence quotes), so a batch stays within a few
/// MiB while large enough for readers' vectorised scans.
pub const DEFAULT_BATCH_ROWS: usize = 1024;

/// What can go wrong writing the Arrow or JSON Lines report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `write` or `finish` before `begin`.
    #[error("{sink} report: {call} called before begin")]
    NotBegun {
        /// Which sink.
        sink: &'static str,
        /// Which call.
        call: &'static str,
    },
    /// The directory or file could not be created, written or renamed.
    #[error("report file {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Arrow refused a batch or the IPC writer failed.
    #[error("arrow report {path}: {source}")]
    Arrow {
        /// The file being written.
        path: PathBuf,
        /// The Arrow error.
        #[source]
        source: arrow_schema::ArrowError,
    },
    /// The Parquet writer failed.
    #[error("parquet report {path}: {source}")]
    Parquet {
        /// The file being written.
        path: PathBuf,
        /// The Parquet error.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// A record could not be encoded as JSON.
    #[error("report {path}: cannot encode {what} as JSON: {source}")]
    Json {
        /// The file being written.
        path: PathBuf,
        /// What.
        what: &'static str,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn remove_if_exists(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io { path: path.to_path_buf(), source }),
    }
}

/// Writes `<dir>/audit.arrow` (Arrow IPC file). See the crate docs.
pub type ArrowSink = BatchedSink<ArrowIpcFile>;

/// Writes `<dir>/audit.parquet`: the same rows and schema as [`ArrowSink`].
pub type ParquetSink = BatchedSink<ParquetFile>;

/// The Parquet report's file name.
pub const PARQUET_FILE_NAME: &str = "audit.parquet";

#[cfg(test)]
mod tests;
