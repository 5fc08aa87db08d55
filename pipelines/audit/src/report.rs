//! Writing a run's reports, from the ledger rather than from the stream,
//! so an interrupted-and-resumed run renders exactly what an uninterrupted
//! one would. The unverified queue is refreshed from the same rows.

use crate::run::Formats;
use amem_ledger::{Ledger, Scope};
use amem_model::{AuditRecord, ReportSink, RunInfo, RunSummary};
use amem_report_arrow::{ArrowSink, JsonlSink};
use amem_report_markdown::MarkdownSink;
use anyhow::Context;
use std::path::{Path, PathBuf};

/// Render every chosen report of `run` into `dir` and file its unverified
/// claims under `home`. Returns the paths written.
///
/// # Errors
/// The ledger cannot be read, or a report cannot be written.
pub fn write_reports(
    ledger: &Ledger,
    run: &RunInfo,
    summary: &RunSummary,
    dir: &Path,
    formats: Formats,
    home: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the report folder {}", dir.display()))?;
    let mut sinks: Vec<(PathBuf, Box<dyn ReportSink>)> = Vec::new();
    if formats.markdown {
        let s = MarkdownSink::new(dir);
        sinks.push((s.path(), Box::new(s)));
    }
    if formats.arrow {
        let s = ArrowSink::new(dir);
        sinks.push((s.path(), Box::new(s)));
    }
    if formats.jsonl {
        let s = JsonlSink::new(dir);
        sinks.push((s.path(), Box::new(s)));
    }
    for (p, s) in &mut sinks {
        s.begin(run).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    }
    ledger.for_each_latest(Scope::Run(&run.run_id), |rec: AuditRecord| -> anyhow::Result<()> {
        for (p, s) in &mut sinks {
            s.write(&rec).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        }
        crate::unverified::file(home, &rec)
    })?;
    let mut written = Vec::new();
    for (p, s) in &mut sinks {
        s.finish(summary).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        written.push(p.clone());
    }
    Ok(written)
}
