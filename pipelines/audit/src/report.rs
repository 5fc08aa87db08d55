//! Writing a run's reports, from the ledger rather than from the stream,
//! so an interrupted-and-resumed run renders exactly what an uninterrupted
//! one would. The unverified queue is refreshed from the same rows.

use crate::run::Formats;
use amem_ledger::{Ledger, QuoteSource, Scope};
use amem_model::{AuditRecord, Identity, NoteRef, ReportSink, RunInfo, RunSummary};
use amem_report_arrow::{ArrowSink, JsonlSink, ParquetSink};
use amem_report_markdown::MarkdownSink;
use anyhow::Context;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the reports show and how.
#[derive(Clone, Copy, Debug)]
pub struct ReportOptions<'a> {
    /// Which files.
    pub formats: Formats,
    /// `[me]`: rows of the user's own messages are marked and listed first.
    pub identity: &'a Identity,
    /// The names the user's Slack messages were recorded under (matched by
    /// user id while importing; a row carries only the name).
    pub slack_names: &'a std::collections::BTreeSet<String>,
    /// `--full`: the markdown report lists every unverified claim.
    pub full: bool,
}

/// Where the cited wiki items are: path, file modification time and when
/// the note was written (front matter date, else file time, as indexed),
/// looked up once per item through the index the quotes are read from (a
/// note's own time, not when it was indexed). An item the index no longer
/// holds gets no entry.
struct NoteLookup<'w> {
    wiki: &'w amem_recall::Wiki,
    known: HashMap<String, Option<NoteRef>>,
}

impl<'w> NoteLookup<'w> {
    fn new(wiki: &'w amem_recall::Wiki) -> NoteLookup<'w> {
        NoteLookup { wiki, known: HashMap::new() }
    }

    fn notes_for(&mut self, rec: &AuditRecord) -> Vec<NoteRef> {
        let mut out: Vec<NoteRef> = Vec::new();
        for e in &rec.evidence {
            if out.iter().any(|n| n.item == e.uri.item) {
                continue;
            }
            let wiki = self.wiki;
            let found = self.known.entry(e.uri.item.clone()).or_insert_with(|| {
                let opened = wiki.open_uri(&amem_model::AmemUri::item(e.uri.item.clone())).ok()?;
                let modified_at = std::fs::metadata(wiki.dir().join(&opened.path))
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| jiff::Timestamp::try_from(t).ok())
                    .map(|t| t.to_string());
                Some(NoteRef {
                    item: e.uri.item.clone(),
                    path: opened.path,
                    modified_at,
                    written_at: opened.written_at,
                    written_from: opened.written_from,
                })
            });
            if let Some(n) = found {
                out.push(n.clone());
            }
        }
        out
    }
}

/// Render every chosen report of `run` into `dir` (quotes and the cited
/// notes' paths read back from `wiki`'s index) and file its unverified
/// claims under `home`, in one pass over the run's rows, each also given to
/// `count` to complete `summary` before the sinks finish with it. Returns
/// the paths written.
///
/// # Errors
/// The ledger cannot be read, or a report cannot be written.
#[allow(clippy::too_many_arguments)]
pub fn write_reports(
    ledger: &Ledger,
    wiki: &amem_recall::Wiki,
    run: &RunInfo,
    summary: &mut RunSummary,
    count: fn(&mut RunSummary, &AuditRecord),
    dir: &Path,
    options: &ReportOptions<'_>,
    home: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    let formats = options.formats;
    let quotes = crate::quotes::WikiQuotes::new(wiki);
    let quotes: &dyn QuoteSource = &quotes;
    let mut notes = NoteLookup::new(wiki);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the report folder {}", dir.display()))?;
    let mut sinks: Vec<(PathBuf, Box<dyn ReportSink + Send>)> = Vec::new();
    if formats.markdown {
        let s = MarkdownSink::new(dir).full(options.full);
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
    if formats.parquet {
        let s = ParquetSink::new(dir);
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
        let read = ledger.for_each_latest(Scope::Run(&run.run_id), quotes, |mut rec: AuditRecord| -> anyhow::Result<()> {
            rec.from_me = options.identity.is_mine_by(rec.source, &rec.author, None)
                || (rec.source == amem_model::SourceKind::Slack && options.slack_names.contains(&rec.author));
            rec.notes = notes.notes_for(&rec);
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
