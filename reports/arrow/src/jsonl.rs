//! `audit.jsonl`: the same rows as JSON Lines, one object per line, tagged
//! like the CLI's `--json` output (STYLE.md §7): `run_begin` (with
//! `schema_version`), one `assessment` per row, `run_summary`.

use crate::{Error, Result, remove_if_exists};
use amem_records::{AuditRecord, ReportError, ReportSink, RunInfo, RunSummary};
use serde::Serialize;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// The JSON Lines report's file name.
pub const FILE_NAME: &str = "audit.jsonl";

/// Bumped when a line's shape changes.
const JSONL_SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
enum Line<'a> {
    RunBegin { schema_version: u32, run: &'a RunInfo },
    Assessment(&'a AuditRecord),
    RunSummary(&'a RunSummary),
}

/// Writes `<dir>/audit.jsonl` (temp file, then rename at `finish`).
#[derive(Debug)]
pub struct JsonlSink {
    dir: PathBuf,
    out: Option<BufWriter<File>>,
}

impl JsonlSink {
    /// A sink writing into `dir` (created at `begin`).
    pub fn new(dir: impl Into<PathBuf>) -> JsonlSink {
        JsonlSink { dir: dir.into(), out: None }
    }

    /// Where the file goes.
    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    fn tmp_path(&self) -> PathBuf {
        self.dir.join(format!("{FILE_NAME}.tmp"))
    }

    fn line(&mut self, line: &Line<'_>, call: &'static str) -> Result<()> {
        let tmp = self.tmp_path();
        let out = self.out.as_mut().ok_or(Error::NotBegun { sink: "jsonl", call })?;
        serde_json::to_writer(&mut *out, line).map_err(|source| Error::Json { path: tmp.clone(), what: "a line", source })?;
        out.write_all(b"\n").map_err(|source| Error::Io { path: tmp, source })
    }

    fn begin_inner(&mut self, run: &RunInfo) -> Result<()> {
        fs::create_dir_all(&self.dir).map_err(|source| Error::Io { path: self.dir.clone(), source })?;
        let tmp = self.tmp_path();
        let f = File::create(&tmp).map_err(|source| Error::Io { path: tmp, source })?;
        self.out = Some(BufWriter::new(f));
        self.line(&Line::RunBegin { schema_version: JSONL_SCHEMA_VERSION, run }, "begin")
    }

    fn finish_inner(&mut self, summary: &RunSummary) -> Result<()> {
        self.line(&Line::RunSummary(summary), "finish")?;
        let tmp = self.tmp_path();
        let out = self.out.take().ok_or(Error::NotBegun { sink: "jsonl", call: "finish" })?;
        let f = out.into_inner().map_err(|e| Error::Io { path: tmp.clone(), source: e.into_error() })?;
        f.sync_all().map_err(|source| Error::Io { path: tmp.clone(), source })?;
        drop(f);
        let dest = self.path();
        fs::rename(&tmp, &dest).map_err(|source| Error::Io { path: dest, source })
    }
}

impl ReportSink for JsonlSink {
    fn begin(&mut self, run: &RunInfo) -> Result<(), ReportError> {
        Ok(self.begin_inner(run)?)
    }

    fn write(&mut self, rec: &AuditRecord) -> Result<(), ReportError> {
        Ok(self.line(&Line::Assessment(rec), "write")?)
    }

    fn finish(&mut self, summary: &RunSummary) -> Result<(), ReportError> {
        Ok(self.finish_inner(summary)?)
    }
}

impl Drop for JsonlSink {
    fn drop(&mut self) {
        if let Some(out) = self.out.take() {
            drop(out);
            let _ = remove_if_exists(&self.tmp_path());
        }
    }
}
