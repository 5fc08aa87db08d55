//! `audit.parquet` (`--format parquet`): the same rows and schema as
//! `audit.arrow`, written with the `parquet` crate's `ArrowWriter`, so
//! DuckDB, Spark and polars read it directly. One row group per
//! [`crate::DEFAULT_BATCH_ROWS`]-row batch is not forced: the writer closes a
//! row group every 64 Ki rows by default; each batch is handed to it as it
//! fills, so memory stays bounded by the writer's open row group.
//!
//! The run's info and summary travel as the file's key-value metadata under
//! the same keys as in `audit.arrow` ([`crate::RUN_INFO_KEY`],
//! [`crate::RUN_SUMMARY_KEY`]); the Arrow schema (with
//! `amem.audit_schema_version`) is embedded, so readers get the same types
//! back (dictionaries, UTC timestamps). Written as `audit.parquet.tmp` and
//! renamed when finished: an unfinished Parquet file has no footer.

use crate::columns::Columns;
use crate::{DEFAULT_BATCH_ROWS, Error, RUN_INFO_KEY, RUN_SUMMARY_KEY, Result, audit_schema, remove_if_exists};
use amem_model::{AuditRecord, ReportError, ReportSink, RunInfo, RunSummary};
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::KeyValue;
use std::fs::{self, File};
use std::io::BufWriter;
use std::path::PathBuf;

/// The Parquet report's file name.
pub const FILE_NAME: &str = "audit.parquet";

struct Open {
    writer: ArrowWriter<BufWriter<File>>,
    cols: Columns,
    run_json: String,
}

/// Writes `<dir>/audit.parquet`. See the module docs.
pub struct ParquetSink {
    dir: PathBuf,
    batch_rows: usize,
    open: Option<Open>,
}

impl std::fmt::Debug for ParquetSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetSink").field("dir", &self.dir).field("batch_rows", &self.batch_rows).finish()
    }
}

impl ParquetSink {
    /// A sink writing into `dir` (created at `begin`).
    pub fn new(dir: impl Into<PathBuf>) -> ParquetSink {
        ParquetSink { dir: dir.into(), batch_rows: DEFAULT_BATCH_ROWS, open: None }
    }

    /// Hand a batch to the writer every `n` rows (at least 1).
    pub fn with_batch_rows(mut self, n: usize) -> ParquetSink {
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

    fn pq_err(&self) -> impl FnOnce(parquet::errors::ParquetError) -> Error + use<> {
        let path = self.tmp_path();
        move |source| Error::Parquet { path, source }
    }

    fn arrow_err(&self) -> impl FnOnce(arrow_schema::ArrowError) -> Error + use<> {
        let path = self.tmp_path();
        move |source| Error::Arrow { path, source }
    }

    fn begin_inner(&mut self, run: &RunInfo) -> Result<()> {
        fs::create_dir_all(&self.dir).map_err(|source| Error::Io { path: self.dir.clone(), source })?;
        let tmp = self.tmp_path();
        let file = File::create(&tmp).map_err(|source| Error::Io { path: tmp.clone(), source })?;
        let writer = ArrowWriter::try_new(BufWriter::new(file), audit_schema(), None).map_err(self.pq_err())?;
        let run_json = serde_json::to_string(run).map_err(|source| Error::Json { path: tmp, what: "the run info", source })?;
        self.open = Some(Open { writer, cols: Columns::with_capacity(self.batch_rows), run_json });
        Ok(())
    }

    fn write_inner(&mut self, rec: &AuditRecord) -> Result<()> {
        let (aerr, perr) = (self.arrow_err(), self.pq_err());
        let batch_rows = self.batch_rows;
        let open = self.open.as_mut().ok_or(Error::NotBegun { sink: "parquet", call: "write" })?;
        open.cols.push(rec);
        if open.cols.len() >= batch_rows {
            let batch = open.cols.finish_batch().map_err(aerr)?;
            open.writer.write(&batch).map_err(perr)?;
        }
        Ok(())
    }

    fn finish_inner(&mut self, summary: &RunSummary) -> Result<()> {
        let mut open = self.open.take().ok_or(Error::NotBegun { sink: "parquet", call: "finish" })?;
        let tmp = self.tmp_path();
        if open.cols.len() > 0 {
            let batch = open.cols.finish_batch().map_err(self.arrow_err())?;
            open.writer.write(&batch).map_err(self.pq_err())?;
        }
        let summary_json =
            serde_json::to_string(summary).map_err(|source| Error::Json { path: tmp.clone(), what: "the run summary", source })?;
        open.writer.append_key_value_metadata(KeyValue::new(RUN_INFO_KEY.to_string(), open.run_json.clone()));
        open.writer.append_key_value_metadata(KeyValue::new(RUN_SUMMARY_KEY.to_string(), summary_json));
        let buf = open.writer.into_inner().map_err(self.pq_err())?;
        let file = buf.into_inner().map_err(|e| Error::Io { path: tmp.clone(), source: e.into_error() })?;
        file.sync_all().map_err(|source| Error::Io { path: tmp.clone(), source })?;
        drop(file);
        let dest = self.path();
        fs::rename(&tmp, &dest).map_err(|source| Error::Io { path: dest, source })?;
        Ok(())
    }
}

impl ReportSink for ParquetSink {
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

impl Drop for ParquetSink {
    fn drop(&mut self) {
        // Unfinished: without its footer the file is unreadable; remove it.
        if let Some(open) = self.open.take() {
            drop(open);
            let _ = remove_if_exists(&self.tmp_path());
        }
    }
}
