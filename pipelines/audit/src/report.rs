//! Writing a run's reports, from the ledger rather than from the stream,
//! so an interrupted-and-resumed run renders exactly what an uninterrupted
//! one would. The unverified queue is refreshed from the same rows.

use crate::run::Formats;
use amem_ledger::{Ledger, QuoteSource, Scope};
use amem_model::{AuditRecord, ReportSink, RunInfo, RunSummary};
use amem_report_arrow::{ArrowSink, JsonlSink};
use amem_report_markdown::MarkdownSink;
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Render every chosen report of `run` into `dir` (quotes read back
/// through `quotes`) and file its unverified
/// claims under `home`, in one pass over the run's rows, each also given to
/// `count` to complete `summary` before the sinks finish with it. Returns
/// the paths written.
///
/// # Errors
/// The ledger cannot be read, or a report cannot be written.
#[allow(clippy::too_many_arguments)]
pub fn write_reports(
    ledger: &Ledger,
    quotes: &dyn QuoteSource,
    run: &RunInfo,
    summary: &mut RunSummary,
    count: fn(&mut RunSummary, &AuditRecord),
    dir: &Path,
    formats: Formats,
    home: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the report folder {}", dir.display()))?;
    let mut sinks: Vec<(PathBuf, Box<dyn ReportSink + Send>)> = Vec::new();
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
    let mut filer = crate::unverified::Filer::open(home, &run.run_id)?;
    // Each sink, and the unverified queue, consumes the rows on a thread of
    // its own (bounded channels, rows shared, not copied), while this thread
    // reads and decodes them from the ledger and counts them: a report pass
    // over a large run is otherwise one core's work while the others idle.
    type Rows = std::sync::mpsc::Receiver<Arc<AuditRecord>>;
    let finished = std::thread::scope(|scope| -> anyhow::Result<Vec<(PathBuf, Box<dyn ReportSink + Send>)>> {
        let mut senders = Vec::new();
        let mut handles = Vec::new();
        for (p, mut s) in sinks {
            let (tx, rx): (_, Rows) = std::sync::mpsc::sync_channel(1024);
            senders.push(tx);
            handles.push(scope.spawn(move || -> anyhow::Result<(PathBuf, Box<dyn ReportSink + Send>)> {
                for rec in rx {
                    s.write(&rec).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                }
                Ok((p, s))
            }));
        }
        let (tx, rx): (_, Rows) = std::sync::mpsc::sync_channel(1024);
        senders.push(tx);
        let filing = scope.spawn(move || -> anyhow::Result<()> {
            for rec in rx {
                filer.file(&rec)?;
            }
            filer.finish()
        });
        let read = ledger.for_each_latest(Scope::Run(&run.run_id), quotes, |rec: AuditRecord| -> anyhow::Result<()> {
            count(summary, &rec);
            let rec = Arc::new(rec);
            for tx in &senders {
                // A closed channel means its consumer failed: its error is
                // reported when it is joined below.
                if tx.send(Arc::clone(&rec)).is_err() {
                    return Ok(());
                }
            }
            Ok(())
        });
        drop(senders);
        let mut out = Vec::new();
        for h in handles {
            out.push(h.join().map_err(|_| anyhow::anyhow!("a report writer panicked"))??);
        }
        filing.join().map_err(|_| anyhow::anyhow!("the unverified queue writer panicked"))??;
        read?;
        Ok(out)
    })?;
    // The counts are complete now: every sink renders its file, at once.
    let summary: &RunSummary = summary;
    std::thread::scope(|scope| -> anyhow::Result<Vec<PathBuf>> {
        let handles: Vec<_> = finished
            .into_iter()
            .map(|(p, mut s)| {
                scope.spawn(move || -> anyhow::Result<PathBuf> {
                    s.finish(summary).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                    Ok(p)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().map_err(|_| anyhow::anyhow!("a report writer panicked"))?).collect()
    })
}
