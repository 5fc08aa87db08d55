//! Writing a run's reports, from the ledger rather than from the stream,
//! so an interrupted-and-resumed run renders exactly what an uninterrupted
//! one would. The unverified queue is refreshed from the same rows.

use crate::run::Formats;
use amem_ledger::{Ledger, ROWS_PER_REBUILD, RowHead, Scope};
use amem_records::{AuditRecord, Identity, NoteRef, ReportSink, RunInfo, RunSummary};
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
    /// Where the unverified claims are filed: the home, or a shard's folder under it.
    pub queue: &'a Path,
}

/// Batches (each one rebuilt chunk of [`ROWS_PER_REBUILD`] rows) waiting per sink.
const BATCHES_QUEUED: usize = 4;

/// Threads rebuilding report rows: the cores, at most four (each holds a
/// ledger and an index connection).
fn rebuild_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4)
}

/// Rows on their way to the sinks, shared by all of them.
type Batch = Arc<Vec<AuditRecord>>;

/// A report's part in the run's CPU by part: its file name.
fn part_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
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
            if !self.known.contains_key(&e.uri.item) {
                let wiki = self.wiki;
                let found = wiki.open_uri(&amem_records::AmemUri::item(e.uri.item.clone())).ok().map(|opened| {
                    let modified_at = std::fs::metadata(wiki.dir().join(&opened.path))
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| jiff::Timestamp::try_from(t).ok())
                        .map(|t| t.to_string());
                    NoteRef {
                        item: e.uri.item.clone(),
                        path: opened.path,
                        modified_at,
                        written_at: opened.written_at,
                        written_from: opened.written_from,
                    }
                });
                self.known.insert(e.uri.item.clone(), found);
            }
            if let Some(Some(n)) = self.known.get(&e.uri.item) {
                out.push(n.clone());
            }
        }
        out
    }
}

/// What a report row shows beyond the ledger's record: whether it is the user's own message
/// (or forwarded by the user), the notes its evidence cites, and where else the message was filed.
fn decorate(
    rec: &mut AuditRecord,
    options: &ReportOptions<'_>,
    notes: &mut NoteLookup<'_>,
    copies: &HashMap<amem_records::Digest, Vec<String>>,
) {
    rec.from_me = options.identity.is_mine_by(rec.source, &rec.author, None)
        || (rec.source == amem_records::SourceKind::SLACK && options.slack_names.contains(&rec.author));
    rec.notes = notes.notes_for(rec);
    rec.also_filed_at = copies.get(&rec.claim.message_digest).cloned().unwrap_or_default();
    rec.forwarded_by_me = rec.forwarded_by.as_deref().is_some_and(|by| options.identity.is_mine_by(rec.source, by, None));
}

/// A report sink and the file it writes.
type Sink = (PathBuf, Box<dyn ReportSink + Send>);

/// The chosen sinks, writing into `dir`, begun with `run`.
fn open_sinks(dir: &Path, options: &ReportOptions<'_>, run: &RunInfo) -> anyhow::Result<Vec<Sink>> {
    let formats = options.formats;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the report folder {}", dir.display()))?;
    let mut sinks: Vec<Sink> = Vec::new();
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
    Ok(sinks)
}

/// Render every chosen report of `run` into `dir` (quotes and the cited
/// notes' paths read back from the wiki index of `home`) and file its
/// unverified claims in `options.queue`, in one pass over the run's rows. The
/// run's summary is `totals` (the counts that do not depend on its rows,
/// read on a ledger connection of its own while the rows are scanned) with
/// each row given to `count`, complete before the sinks finish with it.
/// Returns the paths written and the summary.
///
/// # Errors
/// The ledger cannot be read, or a report cannot be written.
#[allow(clippy::too_many_arguments)]
pub fn write_reports(
    ledger: &Ledger,
    run: &RunInfo,
    totals: &(dyn Fn(&Ledger) -> anyhow::Result<RunSummary> + Sync),
    count: fn(&mut RunSummary, &AuditRecord),
    dir: &Path,
    options: &ReportOptions<'_>,
    home: &Path,
    cpu: &crate::cpu::CpuParts,
) -> anyhow::Result<(Vec<PathBuf>, RunSummary)> {
    let sinks = open_sinks(dir, options, run)?;
    let mut filer = crate::unverified::Filer::open(options.queue, &run.run_id)?;
    // Connections for the threads that rebuild rows, opened here one after
    // the other (as the assessing workers' are: concurrent schema checks on
    // one file can fail with SQLITE_BUSY at once).
    let mut rebuilders = Vec::new();
    for _ in 0..rebuild_threads() {
        let own = Ledger::open(ledger.path()).context("cannot open the ledger to read the report rows")?;
        rebuilders.push((own, amem_recall::Wiki::open(home).context("cannot open the wiki index")?));
    }
    // The run's totals are read by the collector while this thread scans
    // the rows (the collector has nothing else to do until the first chunk
    // is rebuilt); read before the pass, they were a step on one core.
    let totals_ledger = Ledger::open(ledger.path()).context("cannot open the ledger to count the run")?;
    // The pass, all threads at once, every channel bounded:
    //
    //   this thread: the sorted scan of the run's rows ──chunks──▶ rebuild threads (each its own ledger and
    //   index connections: claims, assessments, quotes, cited notes) ──▶ the collector (puts chunks back in
    //   order, counts the rows) ──batches──▶ each sink and the unverified queue, a thread each.
    //
    // Rows are shared by the consumers, not copied. On one thread the
    // rebuilding alone kept a core busy for the whole pass (about 1.3 s of
    // CPU for 65,000 rows on the x1 bench) while the sinks waited.
    type Rows = std::sync::mpsc::Receiver<Batch>;
    let threads = rebuilders.len();
    let (work_tx, work_rx) = std::sync::mpsc::sync_channel::<(usize, Vec<RowHead>)>(threads);
    let work_rx = std::sync::Mutex::new(work_rx);
    let chunks = crate::quotes::ChunkMemory::default();
    // Where the run found copies of its messages, for the rows' `also_filed_at`.
    let copies = ledger.copies(&run.run_id).context("cannot read the copies of messages")?;
    let copies = &copies;
    type Finished = (Vec<Sink>, RunSummary);
    let (finished, summary) = std::thread::scope(|scope| -> anyhow::Result<Finished> {
        let mut senders = Vec::new();
        let mut handles = Vec::new();
        for (p, mut s) in sinks {
            let (tx, rx): (_, Rows) = std::sync::mpsc::sync_channel(BATCHES_QUEUED);
            senders.push(tx);
            handles.push(scope.spawn(move || -> anyhow::Result<Sink> {
                for batch in rx {
                    for rec in batch.iter() {
                        s.write(rec).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                    }
                }
                cpu.add(&part_name(&p), crate::cpu::thread_cpu());
                Ok((p, s))
            }));
        }
        let (tx, rx): (_, Rows) = std::sync::mpsc::sync_channel(BATCHES_QUEUED);
        senders.push(tx);
        let filing = scope.spawn(move || -> anyhow::Result<()> {
            for batch in rx {
                for rec in batch.iter() {
                    filer.file(rec)?;
                }
            }
            let done = filer.finish();
            cpu.add("unverified queue", crate::cpu::thread_cpu());
            done
        });

        let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<anyhow::Result<(usize, Vec<AuditRecord>)>>(2 * threads);
        // One memory of the cited chunks for all rebuild threads.
        let chunks = &chunks;
        for (own, own_wiki) in rebuilders {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || {
                let quotes = crate::quotes::WikiQuotes::sharing(&own_wiki, chunks);
                let mut notes = NoteLookup::new(&own_wiki);
                loop {
                    // Hold the lock only to take one chunk.
                    let next = match work_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => break,
                    };
                    let Ok((i, heads)) = next else { break };
                    let rows = own.rebuild_rows(heads, &quotes).map_err(anyhow::Error::from).map(|mut rows| {
                        for rec in &mut rows {
                            decorate(rec, options, &mut notes, copies);
                        }
                        (i, rows)
                    });
                    let failed = rows.is_err();
                    if done_tx.send(rows).is_err() || failed {
                        break;
                    }
                }
                cpu.add("report rebuild", crate::cpu::thread_cpu());
            });
        }
        drop(done_tx);
        let collecting = scope.spawn(move || -> anyhow::Result<RunSummary> {
            let mut next = 0usize;
            let mut early: std::collections::BTreeMap<usize, Vec<AuditRecord>> = std::collections::BTreeMap::new();
            let result = (|| -> anyhow::Result<RunSummary> {
                let mut tally = totals(&totals_ledger)?;
                for got in done_rx {
                    let (i, rows) = got?;
                    early.insert(i, rows);
                    while let Some(rows) = early.remove(&next) {
                        next += 1;
                        for rec in &rows {
                            count(&mut tally, rec);
                        }
                        let batch = Arc::new(rows);
                        // A closed channel means its consumer failed: its
                        // error is reported when it is joined below.
                        if !senders.iter().all(|tx| tx.send(Arc::clone(&batch)).is_ok()) {
                            return Ok(tally);
                        }
                    }
                }
                Ok(tally)
            })();
            cpu.add("report collect", crate::cpu::thread_cpu());
            result
        });

        let scanning = crate::cpu::thread_cpu();
        let mut chunk: Vec<RowHead> = Vec::with_capacity(ROWS_PER_REBUILD);
        let mut sent = 0usize;
        let mut send = |chunk: Vec<RowHead>| -> anyhow::Result<()> {
            work_tx.send((sent, chunk)).map_err(|_| anyhow::anyhow!("the report rows stopped being rebuilt"))?;
            sent += 1;
            Ok(())
        };
        let scan = ledger
            .for_each_latest_head(Scope::Run(&run.run_id), |head| -> anyhow::Result<()> {
                chunk.push(head);
                if chunk.len() == ROWS_PER_REBUILD {
                    send(std::mem::replace(&mut chunk, Vec::with_capacity(ROWS_PER_REBUILD)))?;
                }
                Ok(())
            })
            .and_then(|()| if chunk.is_empty() { Ok(()) } else { send(std::mem::take(&mut chunk)) });
        drop(work_tx);
        cpu.add("report scan", crate::cpu::thread_cpu().saturating_sub(scanning));
        let collected = collecting.join().map_err(|_| anyhow::anyhow!("the report row collector panicked"))?;
        let mut out = Vec::new();
        for h in handles {
            out.push(h.join().map_err(|_| anyhow::anyhow!("a report writer panicked"))??);
        }
        filing.join().map_err(|_| anyhow::anyhow!("the unverified queue writer panicked"))??;
        let summary = collected?;
        scan?;
        Ok((out, summary))
    })?;
    // The counts are complete now: every sink renders its file, at once.
    let counted = &summary;
    let files = std::thread::scope(|scope| -> anyhow::Result<Vec<PathBuf>> {
        let handles: Vec<_> = finished
            .into_iter()
            .map(|(p, mut s)| {
                scope.spawn(move || -> anyhow::Result<PathBuf> {
                    let done = s.finish(counted).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()));
                    cpu.add(&part_name(&p), crate::cpu::thread_cpu());
                    done?;
                    Ok(p)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().map_err(|_| anyhow::anyhow!("a report writer panicked"))?).collect()
    })?;
    Ok((files, summary))
}

/// One shard's part of a merged report: the shard's latest audit and the reassessments after it.
#[derive(Debug)]
pub struct ShardPart {
    /// The shard's state folder (its ledger is there).
    pub state: PathBuf,
    /// Its latest finished audit run (not a `--reassess` run, not a capture).
    pub run: RunInfo,
    /// That run's counts.
    pub summary: RunSummary,
    /// The runs after it (reassessments): their verdicts replace the audit's.
    pub later: Vec<amem_records::RunId>,
}

/// The part of a merged report the shard whose state folder is `state` gives.
///
/// # Errors
/// No ledger there, or it holds no finished audit.
pub fn shard_part(state: &Path) -> anyhow::Result<ShardPart> {
    let path = state.join(amem_ledger::LEDGER_FILE);
    if !path.is_file() {
        anyhow::bail!(
            "{} holds no ledger ({}): name a shard's folder, e.g. $AMEM_HOME/shards/0-of-4",
            state.display(),
            amem_ledger::LEDGER_FILE
        );
    }
    let ledger = Ledger::open(&path)?;
    let mut base: Option<(RunInfo, RunSummary)> = None;
    let mut later = Vec::new();
    for id in ledger.runs_in_recorded_order()? {
        let Some((info, Some(summary))) = ledger.run(&id)? else { continue };
        if info.params.reassess || info.params.sources.is_empty() {
            later.push(id);
        } else {
            base = Some((info, summary));
            later.clear();
        }
    }
    let (run, summary) = base.ok_or_else(|| anyhow::anyhow!("{} holds no finished audit run", path.display()))?;
    Ok(ShardPart { state: state.to_path_buf(), run, summary, later })
}

/// The run a merged report stands for: the shards' audit as one run over the whole archive,
/// its id derived from the shards' run ids.
///
/// # Errors
/// No shard, or shards of different audits (other archives, window, whose messages or policy).
pub fn merged_run(parts: &[ShardPart]) -> anyhow::Result<RunInfo> {
    let Some(first) = parts.first() else { anyhow::bail!("no shard to merge") };
    let same_audit = |p: &amem_records::RunParams| {
        let q = &first.run.params;
        (&p.sources, p.since, p.until, &p.policy_version, p.who, p.include_bulk, p.include_forwarded)
            == (&q.sources, q.since, q.until, &q.policy_version, q.who, q.include_bulk, q.include_forwarded)
    };
    if let Some(other) = parts.iter().find(|p| !same_audit(&p.run.params)) {
        anyhow::bail!(
            "{} and {} hold different audits (archives, window, whose messages or policy differ): merge the shards of one audit",
            first.state.display(),
            other.state.display()
        );
    }
    let mut shards: Vec<amem_records::Shard> = parts.iter().filter_map(|p| p.run.params.shard).collect();
    shards.sort_by_key(|s| (s.count, s.index));
    shards.dedup();
    if shards.len() != parts.len() {
        tracing::warn!("{} shard folders given, {} distinct shards among them", parts.len(), shards.len());
    }
    if let Some(count) = shards.first().map(|s| s.count)
        && (shards.iter().any(|s| s.count != count) || shards.len() != count as usize)
    {
        let have: Vec<String> = shards.iter().map(ToString::to_string).collect();
        tracing::warn!("the shards merged ({}) are not every shard of one split: the report covers part of the archives", have.join(", "));
    }
    let started_at = parts.iter().map(|p| p.run.started_at).min().unwrap_or(first.run.started_at);
    let ids: Vec<&str> = parts.iter().map(|p| p.run.run_id.0.as_str()).collect();
    let mut params = first.run.params.clone();
    params.shard = None;
    params.reassess = false;
    Ok(RunInfo { run_id: amem_records::RunId::derive(started_at, format!("merge {}", ids.join(" ")).as_bytes()), started_at, params })
}

/// Render one set of reports of `merged` ([`merged_run`]) from the shards' `parts`, as one run
/// over the whole archive would: each shard's latest audit with its reassessments, quotes read
/// back from the wiki of `home`. Rows go to the sinks shard after shard (the markdown report
/// orders them itself); the counts are the shards' added up, the row counts counted again from
/// the rows written. Rows of the user's Slack messages matched by user id alone (not by a name
/// in `[me]`) are marked as the user's by the names each shard recorded them under
/// (`RunSummary::slack_names_of_me`). Returns the files and the counts.
///
/// # Errors
/// A shard's ledger cannot be read, or a report cannot be written.
pub fn merge_reports(
    home: &Path,
    parts: &[ShardPart],
    merged: &RunInfo,
    dir: &Path,
    options: &ReportOptions<'_>,
    count: fn(&mut RunSummary, &AuditRecord),
) -> anyhow::Result<(Vec<PathBuf>, RunSummary)> {
    // A row read back carries only its author's name: the names each shard recorded the user's
    // Slack messages under (matched by user id) mark them as the single run marks them.
    let mut slack_names = options.slack_names.clone();
    slack_names.extend(parts.iter().flat_map(|p| p.summary.slack_names_of_me.iter().cloned()));
    let options = &ReportOptions { slack_names: &slack_names, ..*options };
    let mut sinks = open_sinks(dir, options, merged)?;
    let wiki = amem_recall::Wiki::open(home).context("cannot open the wiki index")?;
    let chunks = crate::quotes::ChunkMemory::default();
    let quotes = crate::quotes::WikiQuotes::sharing(&wiki, &chunks);
    let mut notes = NoteLookup::new(&wiki);
    let mut total: Option<RunSummary> = None;
    for part in parts {
        let ledger = Ledger::open(&part.state.join(amem_ledger::LEDGER_FILE))?;
        let mut runs: std::collections::HashSet<&str> = part.later.iter().map(|r| r.0.as_str()).collect();
        runs.insert(&part.run.run_id.0);
        let copies = ledger.copies(&part.run.run_id).context("cannot read the copies of messages")?;
        let mut tally = part.summary.clone().without_row_counts();
        let mut write = |heads: Vec<RowHead>, tally: &mut RunSummary| -> anyhow::Result<()> {
            for mut rec in ledger.rebuild_rows(heads, &quotes)? {
                decorate(&mut rec, options, &mut notes, &copies);
                count(tally, &rec);
                for (p, s) in &mut sinks {
                    s.write(&rec).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                }
            }
            Ok(())
        };
        // Every claim's latest verdict in this ledger, kept when the shard's audit or a
        // reassessment after it gave it.
        let mut chunk = Vec::with_capacity(ROWS_PER_REBUILD);
        ledger.for_each_latest_head(Scope::All, |head| -> anyhow::Result<()> {
            if runs.contains(head.run_id()) {
                chunk.push(head);
            }
            if chunk.len() == ROWS_PER_REBUILD {
                write(std::mem::replace(&mut chunk, Vec::with_capacity(ROWS_PER_REBUILD)), &mut tally)?;
            }
            Ok(())
        })?;
        write(chunk, &mut tally)?;
        match &mut total {
            Some(t) => t.add_shard(&tally),
            None => total = Some(tally),
        }
    }
    let mut summary = total.unwrap_or_default();
    // Together the shards read the whole archive: none of it was another shard's.
    summary.other_shards = 0;
    let mut files = Vec::new();
    for (p, mut s) in sinks {
        s.finish(&summary).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        files.push(p);
    }
    Ok((files, summary))
}
