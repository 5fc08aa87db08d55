//! The one sink behind `audit.arrow` and `audit.parquet`: rows go into typed
//! builders ([`Columns`]) created `with_capacity(batch_rows)` and are handed
//! to the file writer as a `RecordBatch` every `batch_rows` rows, so memory
//! is bounded by one batch (plus, for Parquet, the writer's open row group)
//! whatever the run's size. The file is written as `<name>.tmp`, finished
//! (footer, with the run's info and summary as metadata) and renamed: both
//! formats are unreadable without their footer, so a killed run leaves no
//! file rather than a broken one. What differs between the formats is a
//! [`BatchFile`].

use crate::columns::Columns;
use crate::{DEFAULT_BATCH_ROWS, Error, RUN_INFO_KEY, RUN_SUMMARY_KEY, Result, audit_schema, remove_if_exists};
use amem_records::{AuditRecord, ReportError, ReportSink, RunInfo, RunSummary};
use arrow_array::RecordBatch;
use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A file format the batched sink writes: how its writer is opened on the
/// temporary file, takes a batch, and is finished with the footer metadata.
pub trait BatchFile: Sized + Send {
    /// The sink's name in errors (`arrow`, `parquet`).
    const KIND: &'static str;
    /// The final file name inside the report directory.
    const FILE_NAME: &'static str;

    /// Open a writer with [`audit_schema`] on `file` (at `path`, for errors).
    ///
    /// # Errors
    /// The writer refuses the schema or cannot write its header.
    fn create(file: BufWriter<File>, path: &Path) -> Result<Self>;

    /// Write one batch.
    ///
    /// # Errors
    /// The writer fails.
    fn write(&mut self, batch: &RecordBatch, path: &Path) -> Result<()>;

    /// Write the footer with `metadata` (key, value) and give the file back.
    ///
    /// # Errors
    /// The writer fails.
    fn finish(self, metadata: Vec<(&'static str, String)>, path: &Path) -> Result<BufWriter<File>>;
}

struct Open<F> {
    writer: F,
    cols: Columns,
    run_json: String,
}

/// Writes `<dir>/<F::FILE_NAME>`: [`crate::ArrowSink`] or [`crate::ParquetSink`].
pub struct BatchedSink<F: BatchFile> {
    dir: PathBuf,
    batch_rows: usize,
    open: Option<Open<F>>,
}

impl<F: BatchFile> std::fmt::Debug for BatchedSink<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchedSink").field("kind", &F::KIND).field("dir", &self.dir).field("batch_rows", &self.batch_rows).finish()
    }
}

impl<F: BatchFile> BatchedSink<F> {
    /// A sink writing into `dir` (created at `begin`), flushing every
    /// [`DEFAULT_BATCH_ROWS`] rows.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        BatchedSink { dir: dir.into(), batch_rows: DEFAULT_BATCH_ROWS, open: None }
    }

    /// Flush a batch every `n` rows (at least 1).
    pub fn with_batch_rows(mut self, n: usize) -> Self {
        self.batch_rows = n.max(1);
        self
    }

    /// Where the file goes.
    pub fn path(&self) -> PathBuf {
        self.dir.join(F::FILE_NAME)
    }

    fn tmp_path(&self) -> PathBuf {
        self.dir.join(format!("{}.tmp", F::FILE_NAME))
    }

    fn arrow_err(&self) -> impl FnOnce(arrow_schema::ArrowError) -> Error + use<F> {
        let path = self.tmp_path();
        move |source| Error::Arrow { path, source }
    }

    fn begin_inner(&mut self, run: &RunInfo) -> Result<()> {
        fs::create_dir_all(&self.dir).map_err(|source| Error::Io { path: self.dir.clone(), source })?;
        let tmp = self.tmp_path();
        let file = File::create(&tmp).map_err(|source| Error::Io { path: tmp.clone(), source })?;
        let writer = F::create(BufWriter::new(file), &tmp)?;
        let run_json = serde_json::to_string(run).map_err(|source| Error::Json { path: tmp, what: "the run info", source })?;
        self.open = Some(Open { writer, cols: Columns::with_capacity(self.batch_rows), run_json });
        Ok(())
    }

    fn write_inner(&mut self, rec: &AuditRecord) -> Result<()> {
        let (err, tmp) = (self.arrow_err(), self.tmp_path());
        let batch_rows = self.batch_rows;
        let open = self.open.as_mut().ok_or(Error::NotBegun { sink: F::KIND, call: "write" })?;
        open.cols.push(rec);
        if open.cols.len() >= batch_rows {
            let batch = open.cols.finish_batch().map_err(err)?;
            open.writer.write(&batch, &tmp)?;
        }
        Ok(())
    }

    fn finish_inner(&mut self, summary: &RunSummary) -> Result<()> {
        let mut open = self.open.take().ok_or(Error::NotBegun { sink: F::KIND, call: "finish" })?;
        let tmp = self.tmp_path();
        if open.cols.len() > 0 {
            let batch = open.cols.finish_batch().map_err(self.arrow_err())?;
            open.writer.write(&batch, &tmp)?;
        }
        let summary_json =
            serde_json::to_string(summary).map_err(|source| Error::Json { path: tmp.clone(), what: "the run summary", source })?;
        let buf = open.writer.finish(vec![(RUN_INFO_KEY, open.run_json), (RUN_SUMMARY_KEY, summary_json)], &tmp)?;
        let file = buf.into_inner().map_err(|e| Error::Io { path: tmp.clone(), source: e.into_error() })?;
        file.sync_all().map_err(|source| Error::Io { path: tmp.clone(), source })?;
        drop(file);
        let dest = self.path();
        fs::rename(&tmp, &dest).map_err(|source| Error::Io { path: dest, source })?;
        Ok(())
    }
}

impl<F: BatchFile> ReportSink for BatchedSink<F> {
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

impl<F: BatchFile> Drop for BatchedSink<F> {
    fn drop(&mut self) {
        // Unfinished: the temp file is unreadable without its footer; remove it.
        if let Some(open) = self.open.take() {
            drop(open);
            let _ = remove_if_exists(&self.tmp_path());
        }
    }
}

/// `audit.arrow`: the Arrow IPC file format (random access, with a footer);
/// the run's info and summary are the footer's custom metadata.
pub struct ArrowIpcFile(arrow_ipc::writer::FileWriter<BufWriter<File>>);

impl std::fmt::Debug for ArrowIpcFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ArrowIpcFile")
    }
}

impl BatchFile for ArrowIpcFile {
    const KIND: &'static str = "arrow";
    const FILE_NAME: &'static str = crate::FILE_NAME;

    fn create(file: BufWriter<File>, path: &Path) -> Result<Self> {
        let w = arrow_ipc::writer::FileWriter::try_new(file, &audit_schema())
            .map_err(|source| Error::Arrow { path: path.to_path_buf(), source })?;
        Ok(ArrowIpcFile(w))
    }

    fn write(&mut self, batch: &RecordBatch, path: &Path) -> Result<()> {
        self.0.write(batch).map_err(|source| Error::Arrow { path: path.to_path_buf(), source })
    }

    fn finish(mut self, metadata: Vec<(&'static str, String)>, path: &Path) -> Result<BufWriter<File>> {
        let err = |source| Error::Arrow { path: path.to_path_buf(), source };
        for (k, v) in metadata {
            self.0.write_metadata(k, v);
        }
        self.0.finish().map_err(err)?;
        self.0.into_inner().map_err(err)
    }
}

/// `audit.parquet`: the `parquet` crate's `ArrowWriter` (the Arrow schema is
/// embedded, so readers get the same types back); the run's info and summary
/// are the file's key-value metadata.
pub struct ParquetFile(parquet::arrow::ArrowWriter<BufWriter<File>>);

impl std::fmt::Debug for ParquetFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParquetFile")
    }
}

impl BatchFile for ParquetFile {
    const KIND: &'static str = "parquet";
    const FILE_NAME: &'static str = crate::PARQUET_FILE_NAME;

    fn create(file: BufWriter<File>, path: &Path) -> Result<Self> {
        let w = parquet::arrow::ArrowWriter::try_new(file, audit_schema(), None)
            .map_err(|source| Error::Parquet { path: path.to_path_buf(), source })?;
        Ok(ParquetFile(w))
    }

    fn write(&mut self, batch: &RecordBatch, path: &Path) -> Result<()> {
        self.0.write(batch).map_err(|source| Error::Parquet { path: path.to_path_buf(), source })
    }

    fn finish(mut self, metadata: Vec<(&'static str, String)>, path: &Path) -> Result<BufWriter<File>> {
        for (k, v) in metadata {
            self.0.append_key_value_metadata(parquet::file::metadata::KeyValue::new(k.to_string(), v));
        }
        self.0.into_inner().map_err(|source| Error::Parquet { path: path.to_path_buf(), source })
    }
}
