//! `amem-report-arrow`: the machine-readable reports, `audit.arrow` (Arrow
//! IPC file), `audit.parquet` ([`ParquetSink`], the same rows) and
//! `audit.jsonl` (JSON Lines).
//!
//! Where it sits: a report sink at the end of the audit (DESIGN.md,
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
//! use amem_model::ReportSink;
//! use amem_report_arrow::ArrowSink;
//! # fn run(info: &amem_model::RunInfo, rows: Vec<amem_model::AuditRecord>, summary: &amem_model::RunSummary)
//! #     -> Result<(), amem_model::ReportError> {
//! let mut sink = ArrowSink::new(std::path::Path::new("reports").join(&info.run_id.0));
//! sink.begin(info)?;
//! for r in &rows {
//!     sink.write(r)?;
//! }
//! sink.finish(summary)?; // reports/<run-id>/audit.arrow
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod columns;
mod jsonl;
mod parquet_sink;
mod schema;

pub use jsonl::{FILE_NAME as JSONL_FILE_NAME, JsonlSink};
pub use parquet_sink::{FILE_NAME as PARQUET_FILE_NAME, ParquetSink};
pub use schema::{SCHEMA_VERSION, SCHEMA_VERSION_KEY, audit_schema};

use amem_model::{AuditRecord, ReportError, ReportSink, RunInfo, RunSummary};
use arrow_ipc::writer::FileWriter;
use columns::Columns;
use std::fs::{self, File};
use std::io::BufWriter;
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

struct Open {
    writer: FileWriter<BufWriter<File>>,
    cols: Columns,
    run_json: String,
}

/// Writes `<dir>/audit.arrow`. See the crate docs.
pub struct ArrowSink {
    dir: PathBuf,
    batch_rows: usize,
    open: Option<Open>,
}

impl std::fmt::Debug for ArrowSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrowSink").field("dir", &self.dir).field("batch_rows", &self.batch_rows).finish()
    }
}

pub(crate) fn remove_if_exists(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io { path: path.to_path_buf(), source }),
    }
}

impl ArrowSink {
    /// A sink writing into `dir` (created at `begin`), flushing every
    /// [`DEFAULT_BATCH_ROWS`] rows.
    pub fn new(dir: impl Into<PathBuf>) -> ArrowSink {
        ArrowSink { dir: dir.into(), batch_rows: DEFAULT_BATCH_ROWS, open: None }
    }

    /// Flush a batch every `n` rows (at least 1).
    pub fn with_batch_rows(mut self, n: usize) -> ArrowSink {
        self.batch_rows = n.max(1);
        self
    }

    /// Where the file goes.
    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    fn tmp_path(&self) -> PathBuf {
        self.dir.join(format!("{FILE_NAME}.tmp"))
    }

    fn arrow_err(&self) -> impl FnOnce(arrow_schema::ArrowError) -> Error + use<> {
        let path = self.tmp_path();
        move |source| Error::Arrow { path, source }
    }

    fn begin_inner(&mut self, run: &RunInfo) -> Result<()> {
        fs::create_dir_all(&self.dir).map_err(|source| Error::Io { path: self.dir.clone(), source })?;
        let tmp = self.tmp_path();
        let file = File::create(&tmp).map_err(|source| Error::Io { path: tmp.clone(), source })?;
        let writer = FileWriter::try_new_buffered(file, &audit_schema()).map_err(self.arrow_err())?;
        let run_json = serde_json::to_string(run).map_err(|source| Error::Json { path: tmp, what: "the run info", source })?;
        self.open = Some(Open { writer, cols: Columns::with_capacity(self.batch_rows), run_json });
        Ok(())
    }

    fn write_inner(&mut self, rec: &AuditRecord) -> Result<()> {
        let err = self.arrow_err();
        let batch_rows = self.batch_rows;
        let open = self.open.as_mut().ok_or(Error::NotBegun { sink: "arrow", call: "write" })?;
        open.cols.push(rec);
        if open.cols.len() >= batch_rows {
            let batch = open.cols.finish_batch().map_err(err)?;
            open.writer.write(&batch).map_err(self.arrow_err())?;
        }
        Ok(())
    }

    fn finish_inner(&mut self, summary: &RunSummary) -> Result<()> {
        let mut open = self.open.take().ok_or(Error::NotBegun { sink: "arrow", call: "finish" })?;
        let tmp = self.tmp_path();
        if open.cols.len() > 0 {
            let batch = open.cols.finish_batch().map_err(self.arrow_err())?;
            open.writer.write(&batch).map_err(self.arrow_err())?;
        }
        let summary_json =
            serde_json::to_string(summary).map_err(|source| Error::Json { path: tmp.clone(), what: "the run summary", source })?;
        open.writer.write_metadata(RUN_INFO_KEY, open.run_json.clone());
        open.writer.write_metadata(RUN_SUMMARY_KEY, summary_json);
        open.writer.finish().map_err(self.arrow_err())?;
        let buf = open.writer.into_inner().map_err(self.arrow_err())?;
        let file = buf.into_inner().map_err(|e| Error::Io { path: tmp.clone(), source: e.into_error() })?;
        file.sync_all().map_err(|source| Error::Io { path: tmp.clone(), source })?;
        drop(file);
        let dest = self.path();
        fs::rename(&tmp, &dest).map_err(|source| Error::Io { path: dest, source })?;
        Ok(())
    }
}

impl ReportSink for ArrowSink {
    fn begin(&mut self, run: &RunInfo) -> Result<(), ReportError> {
        Ok(self.begin_inner(run)?)
    }

    fn write(&mut self, rec: &AuditRecord) -> Result<(), ReportError> {
        Ok(self.write_inner(rec)?)
    }

    fn finish(&mut self, summary: &RunSummary) -> Result<(), ReportError> {
        Ok(self.finish_inner(summary)?)
    }
}

impl Drop for ArrowSink {
    fn drop(&mut self) {
        // Unfinished: the temp file is unreadable without its footer; remove it.
        if let Some(open) = self.open.take() {
            drop(open);
            let _ = remove_if_exists(&self.tmp_path());
        }
    }
}

#[cfg(test)]
mod tests;
