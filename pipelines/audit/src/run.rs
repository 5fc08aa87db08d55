//! The whole run: importers → extract → recall + verify + gate → (on a
//! local miss) the trust list → ledger, then the report sinks.
//!
//! Threads and channels, all bounded so a slow stage applies backpressure
//! instead of buffering the archive:
//!
//! ```text
//! importer thread ──msgs(256)──▶ assess thread ──done(1024)─────────────────────▶ ledger (calling thread)
//!                                      │                                              ▲
//!                                      └─misses(32)─▶ grounding (tokio, N at once) ─▶ regrade thread
//! ```
//!
//! `done` holds about a ledger batch's worth of messages, so the workers
//! keep assessing while the ledger writes a batch (a second or two on a
//! large ledger); with 256 they stopped after a fraction of a second.
//!
//! Everything about one message is recorded in the ledger atomically, so a
//! run killed at any point and started again resumes the same run (same id,
//! same clock) and ends with the same ledger and reports, without
//! duplicates. Reports are rendered from the ledger at the end, not from
//! the stream, for that reason.

use crate::assess::{Assessor, Lookup, Outcome, OutcomeCache};
use crate::copies::{CopyFinder, Seen};
use crate::cpu::{CpuParts, Phase};
use crate::ground::{Grounded, Grounding};
use crate::progress::Counters;
use crate::sources::open_source;
use amem_ledger::{HomeLock, Ledger};
use amem_recall::{IndexOptions, Wiki};
use amem_records::{
    Assessment, AuditRecord, Claim, CopyKeys, Digest, Identity, ImportOptions, Message, Reason, RunId, RunInfo, RunParams, RunSource,
    RunSummary, Shard, Skipped, SourceKind, TimeWindow, Who,
};
use anyhow::Context;
use jiff::Timestamp;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Which report files to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Formats {
    /// `audit.md`.
    pub markdown: bool,
    /// `audit.arrow`.
    pub arrow: bool,
    /// `audit.jsonl`.
    pub jsonl: bool,
    /// `audit.parquet`: the same rows as `audit.arrow`.
    pub parquet: bool,
}

impl Default for Formats {
    fn default() -> Self {
        Formats { markdown: true, arrow: true, jsonl: false, parquet: false }
    }
}

impl Formats {
    /// Parse `md,arrow,jsonl,parquet`.
    ///
    /// # Errors
    /// An unknown name.
    pub fn parse(s: &str) -> Result<Formats, String> {
        let mut f = Formats { markdown: false, arrow: false, jsonl: false, parquet: false };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "md" | "markdown" => f.markdown = true,
                "arrow" => f.arrow = true,
                "jsonl" | "json" => f.jsonl = true,
                "parquet" => f.parquet = true,
                other => return Err(format!("unknown report format {other:?}: use md, arrow, jsonl, parquet")),
            }
        }
        if !(f.markdown || f.arrow || f.jsonl || f.parquet) {
            return Err("no report format given: use md, arrow, jsonl, parquet".into());
        }
        Ok(f)
    }
}

/// What to audit and how.
#[derive(Clone, Debug)]
pub struct AuditParams {
    /// `$AMEM_HOME`.
    pub home: PathBuf,
    /// Archives to read.
    pub sources: Vec<(SourceKind, PathBuf)>,
    /// `--since` as the user wrote it.
    pub since: Option<String>,
    /// `--until` as the user wrote it.
    pub until: Option<String>,
    /// `--now`: the clock relative windows count from. When given, it is
    /// also the run's start time, so a run is reproducible byte for byte.
    pub now: Option<Timestamp>,
    /// Touch no network.
    pub offline: bool,
    /// Where reports go [default: `$AMEM_HOME/reports/<run-id>/`].
    pub out_dir: Option<PathBuf>,
    /// Which reports.
    pub formats: Formats,
    /// Reassess messages already assessed under this policy version.
    pub rerun: bool,
    /// Claims grounded at once on the trust list.
    pub ground_concurrency: usize,
    /// Threads running extraction, recall, verification and the gate (at most the cores).
    pub workers: usize,
    /// `[me]` of config.toml: the user's addresses and handles.
    pub identity: Identity,
    /// `--who`: whose messages are audited.
    pub who: Who,
    /// `--include-bulk`: audit bulk and automated mail and Slack bots too.
    pub include_bulk: bool,
    /// `--include-forwarded`: audit forwarded parts of mail as their
    /// original authors' messages (src/forwarded.rs).
    pub include_forwarded: bool,
    /// `--full`: the markdown report lists every unverified claim.
    pub full_report: bool,
    /// The learned verifier combined with the rules ([`crate::combine`]); `None` with
    /// `--no-models`.
    pub model: Option<&'static amem_models::Verifier>,
    /// The check-worthiness model read beside the extractor's rules
    /// ([`amem_extract::classify_with_model`]); `None` with `--no-models`.
    pub check_worthiness: Option<&'static amem_models::CheckWorthiness>,
    /// Recall by meaning beside the words ([`amem_recall::Meaning`]); `None` with
    /// `--no-models`: bm25 alone.
    pub meaning: Option<amem_recall::Meaning>,
    /// `--shard I/N`: audit only this shard's messages ([`Shard`]); the ledger, lock and
    /// unverified queue are the shard's own, under [`state_dir`]; the wiki is the home's.
    pub shard: Option<Shard>,
    /// `--reassess`: assess again every message with a claim on the unverified queue (after
    /// `amem grounding fetch --queue` captured sources for them); what else was recorded stays.
    pub reassess: bool,
    /// The verifier role of a model behind an endpoint (`[[models]]` in config.toml), asked
    /// about what the rules leave undecided on topic; `None`: none configured.
    pub endpoint: Option<std::sync::Arc<amem_endpoint::EndpointVerifier>>,
    /// The gate's model roles (witness, added content) behind an endpoint: second readers of
    /// each claim against the evidence it cites; `None`: the word lists alone.
    pub gate_roles: Option<std::sync::Arc<amem_endpoint::EndpointGate>>,
}

impl AuditParams {
    /// An offline audit of `sources` with the home `home`, every other option as the command
    /// line leaves it by default, and no model: the library's starting point, whose fields a
    /// caller then sets.
    pub fn new(home: impl Into<PathBuf>, sources: Vec<(SourceKind, PathBuf)>) -> AuditParams {
        AuditParams {
            home: home.into(),
            sources,
            since: None,
            until: None,
            now: None,
            offline: true,
            out_dir: None,
            formats: Formats::default(),
            rerun: false,
            ground_concurrency: 1,
            workers: 1,
            identity: Identity::default(),
            who: Who::All,
            include_bulk: false,
            include_forwarded: false,
            full_report: false,
            model: None,
            check_worthiness: None,
            meaning: None,
            shard: None,
            reassess: false,
            endpoint: None,
            gate_roles: None,
        }
    }

    /// Where this run keeps its ledger, lock and unverified queue.
    pub fn state_dir(&self) -> PathBuf {
        state_dir(&self.home, self.shard)
    }
}

/// Where a run keeps its ledger, lock and unverified queue: the home, or for shard `I` of `N`
/// the home's `shards/<I>-of-<N>/`, so the shards of one home run at once, each resuming on
/// its own, over the one wiki.
pub fn state_dir(home: &Path, shard: Option<Shard>) -> PathBuf {
    match shard {
        Some(s) => home.join("shards").join(s.dir_name()),
        None => home.to_path_buf(),
    }
}

/// What a finished run produced.
#[derive(Debug)]
pub struct AuditOutcome {
    /// The run.
    pub run: RunInfo,
    /// Its counts.
    pub summary: RunSummary,
    /// Where its reports are.
    pub report_dir: PathBuf,
    /// The report files written.
    pub files: Vec<PathBuf>,
    /// True when this process resumed a run that had been interrupted.
    pub resumed: bool,
}

/// The run stopped early on request ([`Counters::interrupt`]): what was
/// read is recorded, no report was written, and the same command resumes.
#[derive(Debug)]
pub struct Interrupted {
    /// The run left open.
    pub run_id: RunId,
    /// Messages recorded in the ledger by this process before it stopped.
    pub recorded: u64,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted: run {} stopped after recording {} messages; run the same command to resume it", self.run_id, self.recorded)
    }
}

impl std::error::Error for Interrupted {}

/// The policy version verdicts are made under: the extractor and the
/// verifier together, on the rules alone. A new version of either reassesses on the next run.
pub fn policy_version() -> String {
    format!("{}+{}+gate@{}", amem_extract::EXTRACTOR, amem_verify::METHOD, amem_gate::VERSION)
}

/// [`policy_version`] with the learned models that are on: each model's version and the
/// first bytes of its weights' checksum, so new weights reassess on the next run.
pub fn policy_version_with(
    model: Option<&amem_models::Verifier>,
    check_worthiness: Option<&amem_models::CheckWorthiness>,
    meaning: Option<amem_recall::Meaning>,
) -> String {
    let mut version = policy_version();
    let short = |sha: &str| sha.get(..12).unwrap_or(sha).to_string();
    if let Some(m) = check_worthiness {
        version = format!("{version}+{}#{}", amem_models::CHECKWORTHY_METHOD, short(m.weights_sha256()));
    }
    if let Some(m) = model {
        version = format!("{version}+{}#{}", amem_models::METHOD, short(m.weights_sha256()));
    }
    // Recall by meaning finds other evidence: its method and embedder are part of the verdicts.
    if let Some(m) = meaning.filter(|m| m.method.reads_vectors()) {
        version = format!("{version}+recall:{}#{}", m.method, m.embedder.id());
    }
    version
}

/// One message on its way through the stages.
struct Work {
    message: Message,
    /// `message.digest()`, computed once (it serialises the whole message).
    digest: amem_records::Digest,
    claims: Vec<Claim>,
    /// One slot per claim: `None` for claims not audited.
    outcomes: Vec<Option<Outcome>>,
    /// Indexes of claims waiting on the trust list.
    pending: Vec<usize>,
    skipped: Vec<Skipped>,
    /// Item revisions a re-fetch replaced while grounding this message.
    stale: Vec<amem_records::Digest>,
}

enum Item {
    Message(Box<Work>),
    Skipped(Skipped),
    /// A copy of a message read before: where it was.
    Copy {
        original: amem_records::Digest,
        archive: String,
        locator: String,
    },
    /// The assess or regrade stage failed for good (index unreadable).
    Fatal(String),
}

/// Run an audit.
///
/// # Errors
/// Anything that stops the whole run: a missing archive, an unreadable
/// home, the home locked by another run, the ledger or index unusable.
/// Record-level problems are counted in the summary instead.
pub fn run_audit(params: &AuditParams, counters: Arc<Counters>, grounder: Option<Arc<dyn Grounding>>) -> anyhow::Result<AuditOutcome> {
    for (kind, path) in &params.sources {
        if !path.exists() {
            anyhow::bail!("{kind} source {} does not exist", path.display());
        }
        // Content of another kind is an error before any work, not "1 skipped".
        crate::sources::resolve_kind(Some(*kind), path)?;
    }
    if params.sources.is_empty() {
        anyhow::bail!("no sources to audit: pass --source KIND:PATH or add [[imports]] to config.toml");
    }
    std::fs::create_dir_all(&params.home).with_context(|| format!("cannot create the home {}", params.home.display()))?;
    let state = params.state_dir();
    std::fs::create_dir_all(&state).with_context(|| format!("cannot create the shard's folder {}", state.display()))?;
    let _lock = HomeLock::acquire(&state, "amem audit chat-history")?;
    let ledger_path = state.join(amem_ledger::LEDGER_FILE);
    // The messages whose claims are on the queue, to assess again (`--reassess`).
    let reassess: Arc<std::collections::HashSet<Digest>> = Arc::new(if params.reassess {
        crate::unverified::list(&state)?.items.iter().map(|(_, rec)| rec.claim.message_digest).collect()
    } else {
        Default::default()
    });
    let workers = capped_workers(params.workers);

    let wall = Timestamp::now();
    let now = params.now.unwrap_or(wall);
    let mut policy = policy_version_with(params.model, params.check_worthiness, params.meaning);
    // An endpoint's answers are verdicts: adding, changing or removing one assesses again.
    if let Some(e) = &params.endpoint {
        policy = format!("{policy}+{}", e.method());
    }
    // So are the gate's model findings.
    if let Some(g) = &params.gate_roles {
        let m = g.models();
        for method in [m.witness.map(|w| w.method()), m.added.map(|a| a.method())].into_iter().flatten() {
            policy = format!("{policy}+gate:{method}");
        }
    }

    // Where the run's CPU goes, logged by part at the end (src/cpu.rs).
    let cpu = CpuParts::default();
    // Bring the index up to date with the wiki before anything is assessed.
    let mut wiki = open_wiki(&params.home, params.meaning)?;
    let phase = Phase::start(&cpu);
    let report = wiki.index_wiki(IndexOptions { rehash: false, now: Some(now) }, &mut |_| ControlFlow::Continue(()))?;
    phase.end("index check", "wiki index brought up to date");
    let mut ledger = Ledger::open(&ledger_path)?;

    let sources: Vec<RunSource> = params.sources.iter().map(|(k, p)| RunSource { kind: *k, path: p.display().to_string() }).collect();
    let (run, resumed) = resolve_run(&ledger, params, sources, now, wall, &policy)?;
    let window = TimeWindow { since: run.params.since, until: run.params.until };
    ledger.begin_run(&run)?;
    for f in &report.skipped {
        let s = Skipped { stage: "recall".into(), locator: f.path.display().to_string(), reason: f.reason.to_string() };
        ledger.record_skipped(&s)?;
    }
    drop(wiki);

    let assessed_at = run.started_at.to_string();
    // The names the user's Slack messages (matched by user id) are recorded
    // under: a report row carries the author's name, not the id.
    let my_slack_names = std::sync::Mutex::new(std::collections::BTreeSet::<String>::new());
    let (msg_tx, msg_rx) = sync_channel::<Vec<Incoming>>(256 / BATCH);
    // The importer thread's own read connection, to find copies of messages
    // recorded before (src/copies.rs).
    let copies_ledger = Ledger::open(&ledger_path)?;
    let (done_tx, done_rx) = sync_channel::<Vec<Item>>(1024 / BATCH);
    let phase = Phase::start(&cpu);

    std::thread::scope(|scope| -> anyhow::Result<()> {
        // Importers, one after the other, on their own thread.
        let srcs = params.sources.clone();
        let opts = ImportOptions { window };
        let forwarded = params.include_forwarded;
        let c = Arc::clone(&counters);
        let cpu = &cpu;
        let shard = params.shard;
        scope.spawn(move || {
            import_all(&srcs, &opts, msg_tx, &c, Reading { forwarded, copies: CopyFinder::new(Some(&copies_ledger)), shard });
            cpu.add("import", crate::cpu::thread_cpu());
        });

        let grounding = grounder.filter(|_| !params.offline);
        let (miss_tx, regrade_handle) = match &grounding {
            Some(g) => {
                let (miss_tx, miss_rx) = tokio::sync::mpsc::channel::<Box<Work>>(32);
                let (back_tx, back_rx) = tokio::sync::mpsc::channel::<Box<Work>>(32);
                let g = Arc::clone(g);
                let conc = params.ground_concurrency.clamp(1, MAX_GROUND_CONCURRENCY);
                let c = Arc::clone(&counters);
                scope.spawn(move || ground_stage(g, conc, miss_rx, back_tx, c));
                let done = done_tx.clone();
                let wiki = open_wiki(&params.home, params.meaning)?;
                let h = scope.spawn(move || {
                    regrade_stage(wiki, back_rx, done, params.model, params.endpoint.clone(), params.gate_roles.clone());
                    cpu.add("regrade", crate::cpu::thread_cpu());
                });
                (Some(miss_tx), Some(h))
            }
            None => (None, None),
        };

        // The CPU stage runs on several workers, each with its own index and
        // ledger connections, all pulling from the one bounded channel. Order
        // does not matter downstream: the ledger records per message and the
        // reports are rendered sorted.
        let shared_rx = Arc::new(std::sync::Mutex::new(msg_rx));
        // One outcome cache for all workers: a claim text one of them
        // assessed is reused by the others.
        let cache = Arc::new(OutcomeCache::default());
        for _ in 0..workers {
            // Connections are opened here, one after the other, not in the
            // threads: concurrent schema checks on one SQLite file can fail
            // with SQLITE_BUSY at once, without waiting.
            let wiki = open_wiki(&params.home, params.meaning)?;
            // A read connection of its own: the recording thread owns the writer.
            let seen = Ledger::open(&ledger_path)?;
            let c = Arc::clone(&counters);
            let policy = policy.clone();
            let rerun = params.rerun;
            let reassess = Arc::clone(&reassess);
            let done = done_tx.clone();
            let misses = miss_tx.clone();
            let rx = Arc::clone(&shared_rx);
            let cache = Arc::clone(&cache);
            let run_id = run.run_id.clone();
            let select =
                Selection { identity: &params.identity, who: params.who, include_bulk: params.include_bulk, slack_names: &my_slack_names };
            scope.spawn(move || {
                assess_stage(AssessStage {
                    wiki,
                    seen,
                    run_id: &run_id,
                    policy: &policy,
                    rerun,
                    reassess: &reassess,
                    select: &select,
                    rx: &rx,
                    done,
                    misses,
                    counters: c,
                    cache: &cache,
                    model: params.model,
                    check_worthiness: params.check_worthiness,
                    endpoint: params.endpoint.clone(),
                    gate_roles: params.gate_roles.clone(),
                });
                cpu.add("assess", crate::cpu::thread_cpu());
            });
        }
        drop(done_tx);
        drop(miss_tx);
        let _ = regrade_handle;

        let recording = crate::cpu::thread_cpu();
        let recorded = record_all(&mut ledger, done_rx, &counters, &assessed_at, &policy);
        cpu.add("record", crate::cpu::thread_cpu().saturating_sub(recording));
        // What sharding gives up: a claim text met again in another message is reused only
        // within one process (scripts/bench-shards.py).
        tracing::info!(
            "claim outcomes reused from an earlier message of this run: {}",
            cache.reused.load(std::sync::atomic::Ordering::Relaxed)
        );
        recorded
    })?;
    ledger.flush()?;
    phase.end("assessing (other)", "messages assessed and recorded");

    if counters.is_interrupted() {
        return Err(Interrupted { run_id: run.run_id, recorded: Counters::get(&counters.recorded) }.into());
    }
    let phase = Phase::start(&cpu);
    // The counts come from the ledger, in the same pass over the run's rows
    // that writes the reports (the sinks take the summary when they finish),
    // so a resumed run and an uninterrupted one give the same figures. The
    // run is marked finished once its reports exist.
    let report_dir = params.out_dir.clone().unwrap_or_else(|| params.home.join("reports").join(&run.run_id.0));
    // Quotes and the cited notes' paths are read back from the wiki index
    // (the ledger keeps evidence by reference).
    let my_slack_names = my_slack_names.into_inner().unwrap_or_default();
    let options = crate::report::ReportOptions {
        formats: params.formats,
        identity: &params.identity,
        slack_names: &my_slack_names,
        full: params.full_report,
        queue: &state,
    };
    let fixed_clock = params.now.is_some();
    let totals = |own: &Ledger| {
        summary_totals(own, &run, &counters, fixed_clock).map(|s| RunSummary { slack_names_of_me: my_slack_names.clone(), ..s })
    };
    let (files, summary) = crate::report::write_reports(&ledger, &run, &totals, count_row, &report_dir, &options, &params.home, &cpu)?;
    ledger.finish_run(&summary)?;
    phase.end("reports (other)", "reports written");
    tracing::info!("CPU by part: {}", cpu.line(crate::cpu::process_cpu()));
    if params.model.is_some() {
        let readings = amem_verify::combine::Readings::shared();
        let (remembered, computed) = readings.counts();
        let secs = readings.compute_seconds();
        tracing::info!(
            "verifier model: {computed} pairs read in {secs:.3} s of thread time ({:.1} pairs/s a thread), {remembered} remembered",
            if secs > 0.0 { computed as f64 / secs } else { 0.0 }
        );
    }
    Ok(AuditOutcome { run, summary, report_dir, files, resumed })
}

/// The most claims grounded at once: each host serves one request at a
/// time anyway, so more only queues tasks.
const MAX_GROUND_CONCURRENCY: usize = 64;

/// `-j` within 1 and the cores: each worker holds its own index and ledger
/// connections, so a huge `-j` only costs memory and file handles.
fn capped_workers(asked: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if asked > cores {
        tracing::warn!("-j {asked} is more than the {cores} cores: using {cores}");
    }
    asked.clamp(1, cores)
}

fn open_wiki(home: &Path, meaning: Option<amem_recall::Meaning>) -> anyhow::Result<Wiki> {
    Ok(Wiki::open(home).context("cannot open the wiki index")?.with_meaning(meaning))
}

/// Resume the latest run when it was interrupted and is the same command
/// (same sources, policy, network mode and window as resolved against its
/// own clock); else start a new one.
fn resolve_run(
    ledger: &Ledger,
    params: &AuditParams,
    sources: Vec<RunSource>,
    now: Timestamp,
    wall: Timestamp,
    policy: &str,
) -> anyhow::Result<(RunInfo, bool)> {
    if !params.rerun
        && let Some(last) = ledger.runs()?.last()
        && let Some((info, None)) = ledger.run(last)?
    {
        let p = &info.params;
        let w = TimeWindow::parse(params.since.as_deref(), params.until.as_deref(), p.now)?;
        let same_clock = params.now.is_none_or(|n| n == p.now);
        if p.sources == sources
            && p.who == params.who
            && p.include_bulk == params.include_bulk
            && p.include_forwarded == params.include_forwarded
            && p.policy_version == policy
            && p.offline == params.offline
            && p.since == w.since
            && p.until == w.until
            && same_clock
            && p.home == params.home.display().to_string()
            && p.shard == params.shard
            && p.reassess == params.reassess
        {
            return Ok((info, true));
        }
    }
    let w = TimeWindow::parse(params.since.as_deref(), params.until.as_deref(), now)?;
    let rp = RunParams {
        sources,
        since: w.since,
        until: w.until,
        now,
        offline: params.offline,
        policy_version: policy.to_string(),
        home: params.home.display().to_string(),
        who: params.who,
        include_bulk: params.include_bulk,
        include_forwarded: params.include_forwarded,
        shard: params.shard,
        reassess: params.reassess,
    };
    // With --now the run is reproducible: its start time is that clock too.
    let started_at = if params.now.is_some() { now } else { wall };
    let bytes = serde_json::to_vec(&rp).context("encoding the run parameters")?;
    let run_id = RunId::derive(started_at, &bytes);
    Ok((RunInfo { run_id, started_at, params: rp }, false))
}

/// A message as an importer gives it, or why one could not be read.
type Imported = Result<Message, amem_records::ImportError>;

/// What the importer thread passes on.
// Nearly every item is a message, moved in a batch as before: boxing it to
// shrink the rare copy would add an allocation per message.
#[allow(clippy::large_enum_variant)]
enum Incoming {
    /// A message to audit, with its digest (computed once, for the copy
    /// check: it serialises the whole message). `recurring`: its sender has
    /// now sent its template on several days (src/templates.rs), so it is
    /// bulk unless `--include-bulk`.
    Message { message: Message, digest: amem_records::Digest, recurring: bool },
    /// A record an importer could not read.
    Failed(amem_records::ImportError),
    /// A copy of a message read before (src/copies.rs): not audited, its
    /// place recorded.
    Copy { original: amem_records::Digest, archive: String, locator: String },
}

/// Messages (and the workers' results) travel between the run's threads
/// this many at a time. One at a time, every message woke the importer
/// (blocked on a full channel) and the recording thread (waiting on an
/// empty one): five context switches a message on the x1 Enron bench
/// (53,558-57,270 for 11,238 messages, `perf stat`), on two cores shared by
/// four threads. In batches of 32: 13,636-16,325, and the run's system CPU
/// 1.75-2.22 s -> 1.46-1.76 s (four runs each, alternating binaries). A
/// batch is small next to a worker's share of any archive, so the workers
/// still end together.
const BATCH: usize = 32;

/// How the importer thread passes messages on.
struct Reading<'l> {
    /// `--include-forwarded`: each forwarded part follows its message as a
    /// message of its own (src/forwarded.rs).
    forwarded: bool,
    /// Copies of messages read before are passed on as copies.
    copies: CopyFinder<'l>,
    /// `--shard I/N`: only this shard's messages are passed on; the others are read all the
    /// same, since a sender's templates are decided over every message in archive order.
    shard: Option<Shard>,
}

fn import_all(sources: &[(SourceKind, PathBuf)], opts: &ImportOptions, tx: SyncSender<Vec<Incoming>>, c: &Counters, reading: Reading<'_>) {
    let Reading { forwarded, mut copies, shard } = reading;
    let mut templates = crate::templates::Templates::default();
    let mut ledger_failed = false;
    let mut shard_keys = crate::copies::ShardKeys::default();
    let mut pass_on = |m: Message, keys: CopyKeys, recurring: bool| -> Incoming {
        let digest = m.digest();
        match copies.check(&keys, digest) {
            Ok(Seen::CopyOf(original)) => Incoming::Copy { original, archive: m.archive, locator: m.locator },
            Ok(Seen::First) => Incoming::Message { message: m, digest, recurring },
            Err(e) => {
                // Audited rather than dropped: at worst a copy is audited twice.
                if !ledger_failed {
                    tracing::warn!(
                        "cannot look up copies of messages in the ledger ({e}): copies recorded before this run are audited again"
                    );
                    ledger_failed = true;
                }
                Incoming::Message { message: m, digest, recurring }
            }
        }
    };
    let mut batch = Vec::with_capacity(BATCH);
    for (kind, path) in sources {
        if c.is_interrupted() {
            return;
        }
        let items: Box<dyn Iterator<Item = Imported>> = match open_source(*kind, path, opts) {
            Ok(stream) => Box::new(stream),
            Err(e) => Box::new(std::iter::once(Err(e))),
        };
        for item in items {
            // Stop reading; what was sent is assessed and recorded.
            if c.is_interrupted() {
                return;
            }
            let recurring = matches!(&item, Ok(m) if templates.recurring(m));
            let parts: Vec<(Message, CopyKeys)> = match &item {
                Ok(m) if forwarded => amem_rfc822::forwarded_messages(m).into_iter().map(with_copy_keys).collect(),
                _ => Vec::new(),
            };
            let item = item.map(with_copy_keys);
            // A forwarded part goes with the message that carries it.
            let ours = match (&item, shard) {
                (_, None) => true,
                (Ok((_, keys)), Some(s)) => s.owns_key(shard_keys.shard_key(keys, parts.iter().map(|(_, k)| k))),
                (Err(e), Some(s)) => s.owns_locator(&format!("{}: {}", e.path.display(), e.position)),
            };
            if !ours {
                Counters::add(&c.other_shards, 1);
                continue;
            }
            let first = match item {
                Ok((m, keys)) => pass_on(m, keys, recurring),
                Err(e) => Incoming::Failed(e),
            };
            let parts = parts.into_iter().map(|(p, keys)| pass_on(p, keys, recurring));
            for incoming in std::iter::once(first).chain(parts) {
                batch.push(incoming);
                if batch.len() == BATCH && tx.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH))).is_err() {
                    return;
                }
            }
        }
    }
    if !batch.is_empty() {
        let _ = tx.send(batch);
    }
}

/// `m` with its copy keys, computed once for the shard and the copy checks.
fn with_copy_keys(m: Message) -> (Message, CopyKeys) {
    let keys = m.copy_keys();
    (m, keys)
}

/// Which messages are audited: whose (`--who`, against `[me]`) and
/// whether bulk or automated ones are (`--include-bulk`).
struct Selection<'a> {
    identity: &'a Identity,
    who: Who,
    include_bulk: bool,
    /// Authors of the user's Slack messages seen so far.
    slack_names: &'a std::sync::Mutex<std::collections::BTreeSet<String>>,
}

impl Selection<'_> {
    /// Why `message` is not audited, as a skipped record's reason, or
    /// `None` when it is. The importers mark bulk mail and bots
    /// (`meta["bulk"]`), the importer thread a sender's recurring template
    /// (`recurring`); the reason keeps the kind of signal, not the sender,
    /// so the report's skipped table has one row per kind.
    fn reason_to_skip(&self, message: &Message, recurring: bool) -> Option<String> {
        // A forwarded part is chosen by its forwarder, who passed it on.
        let mine = match message.meta.get(amem_records::FORWARDED_BY) {
            Some(by) => self.identity.is_mine_by(message.source, by, None),
            None => self.identity.is_mine(message),
        };
        if mine
            && message.source == SourceKind::SLACK
            && let Ok(mut names) = self.slack_names.lock()
            && !names.contains(&message.author)
        {
            names.insert(message.author.clone());
        }
        if !self.who.is_all() && !self.who.admits(mine) {
            let whose = if self.who == Who::Me { "not the user's" } else { "the user's own" };
            return Some(format!("--who {}: {whose}", self.who));
        }
        if self.include_bulk {
            return None;
        }
        let Some(bulk) = message.meta.get("bulk") else {
            return recurring.then(|| "bulk: same template from one sender".to_string());
        };
        let kind = match bulk.split_once(':') {
            Some((k, v)) if v.contains('@') || k == "slack bot" => k.trim(),
            _ => bulk.trim(),
        };
        Some(format!("bulk: {kind}"))
    }
}

/// What one assessing worker owns and shares: its own wiki and ledger
/// connections, the run's identity, the queues it reads from and feeds, the
/// counters and the run's outcome cache.
struct AssessStage<'a> {
    /// This worker's wiki connection.
    wiki: Wiki,
    /// This worker's read connection to the ledger ("already assessed?").
    seen: Ledger,
    run_id: &'a amem_records::RunId,
    policy: &'a str,
    /// Assess messages the ledger already holds under this policy.
    rerun: bool,
    /// Assess these messages again (`--reassess`), whatever the ledger holds.
    reassess: &'a std::collections::HashSet<Digest>,
    /// The imported messages, shared by the workers.
    rx: &'a std::sync::Mutex<Receiver<Vec<Incoming>>>,
    /// Whose messages, and whether bulk mail, are audited.
    select: &'a Selection<'a>,
    /// To the recording thread, a batch of messages at a time.
    done: SyncSender<Vec<Item>>,
    /// To the trust-list stage, when grounding is on.
    misses: Option<tokio::sync::mpsc::Sender<Box<Work>>>,
    counters: Arc<Counters>,
    cache: &'a OutcomeCache,
    /// The learned verifier, when on.
    model: Option<&'static amem_models::Verifier>,
    /// The check-worthiness model, when on.
    check_worthiness: Option<&'static amem_models::CheckWorthiness>,
    /// A model behind an endpoint, when configured.
    endpoint: Option<Arc<amem_endpoint::EndpointVerifier>>,
    /// The gate's model roles, when configured.
    gate_roles: Option<Arc<amem_endpoint::EndpointGate>>,
}

fn assess_stage(stage: AssessStage<'_>) {
    let AssessStage {
        wiki,
        seen,
        run_id,
        policy,
        rerun,
        reassess,
        select,
        rx,
        done,
        misses,
        counters: c,
        cache,
        model,
        check_worthiness,
        endpoint,
        gate_roles,
    } = stage;
    // What came before a failure is recorded, then the failure.
    let fatal = |done: &SyncSender<Vec<Item>>, mut out: Vec<Item>, e: String| {
        out.push(Item::Fatal(e));
        let _ = done.send(out);
    };
    let mut assessor = Assessor::with_model(model).with_endpoint(endpoint).with_gate_roles(gate_roles);
    loop {
        // Hold the lock only to take one batch.
        let next = match rx.lock() {
            Ok(guard) => guard.recv(),
            Err(_) => return,
        };
        let Ok(batch) = next else {
            let e = assessor.evidence_cache();
            tracing::debug!(hits = e.hits, misses = e.misses, held = e.entries, "evidence analyses of this worker");
            return;
        };
        let mut out: Vec<Item> = Vec::with_capacity(batch.len());
        for item in batch {
            let (message, digest, recurring) = match item {
                Incoming::Message { message, digest, recurring } => (message, digest, recurring),
                Incoming::Copy { original, archive, locator } => {
                    Counters::add(&c.messages, 1);
                    Counters::add(&c.copies, 1);
                    out.push(Item::Copy { original, archive, locator });
                    continue;
                }
                Incoming::Failed(e) => {
                    Counters::add(&c.skipped, 1);
                    let s = Skipped {
                        stage: "import".into(),
                        locator: format!("{}: {}", e.path.display(), e.position),
                        reason: format!("{}: {}", e.kind, e.reason),
                    };
                    out.push(Item::Skipped(s));
                    continue;
                }
            };
            Counters::add(&c.messages, 1);
            if let Some(reason) = select.reason_to_skip(&message, recurring) {
                Counters::add(&c.deselected, 1);
                Counters::add(&c.skipped, 1);
                out.push(Item::Skipped(Skipped { stage: "select".into(), locator: message.locator.clone(), reason }));
                continue;
            }
            if !rerun && !reassess.contains(&digest) {
                match seen.is_assessed(&digest, policy) {
                    Ok(true) => {
                        Counters::add(&c.already_assessed, 1);
                        continue;
                    }
                    Ok(false) => {}
                    Err(e) => return fatal(&done, out, format!("cannot read the ledger: {e}")),
                }
            }
            // A message marked `not_claims` (a reaction, a join) yields none: the extractor checks.
            let claims = amem_extract::extract_digested_with(&message, digest, check_worthiness);
            Counters::add(&c.claims, claims.len() as u64);
            let mut work = Work {
                outcomes: vec![None; claims.len()],
                pending: Vec::new(),
                skipped: Vec::new(),
                stale: Vec::new(),
                claims,
                message,
                digest,
            };
            let sent_at = work.message.sent_at.to_string();
            for i in 0..work.claims.len() {
                let claim = &work.claims[i];
                if !claim.kind.is_audited() {
                    continue;
                }
                Counters::add(&c.audited, 1);
                let outcome = match outcome_for(claim, &sent_at, cache, &seen, run_id, &mut assessor, &wiki) {
                    Ok(o) => o,
                    Err(e) => return fatal(&done, out, e),
                };
                if outcome.local_hit {
                    Counters::add(&c.local_hits, 1);
                }
                if misses.is_some() && outcome.wants_grounding() {
                    work.pending.push(i);
                }
                work.outcomes[i] = Some(outcome);
            }
            let item = Box::new(work);
            match (&misses, item.pending.is_empty()) {
                (Some(m), false) => {
                    Counters::add(&c.waiting_on_fetch, item.pending.len() as u64);
                    if m.blocking_send(item).is_err() {
                        return;
                    }
                }
                _ => out.push(Item::Message(item)),
            }
        }
        if !out.is_empty() && done.send(out).is_err() {
            return;
        }
    }
}

/// The outcome for one claim, written at `sent_at` (RFC 3339): from this
/// run's memory of its text (in memory, or the assessment an earlier claim
/// with that text got, read back from the ledger; per writing day when the
/// verdict depends on it), else assessed now and remembered. The error is
/// the message the run stops with.
fn outcome_for(
    claim: &amem_records::Claim,
    sent_at: &str,
    cache: &OutcomeCache,
    seen: &Ledger,
    run_id: &amem_records::RunId,
    assessor: &mut Assessor,
    wiki: &Wiki,
) -> Result<Outcome, String> {
    let day = sent_at.get(..10).unwrap_or(sent_at);
    let earlier = match cache.lookup(claim, day) {
        Lookup::Outcome(o) => Some(o),
        Lookup::Earlier(e) => match seen.run_assessment(run_id, &e.message_digest, &e.claim, &crate::quotes::WikiQuotes::new(wiki)) {
            Ok(a) => a.map(|a| {
                cache.count_reuse();
                Outcome::from_assessment(a)
            }),
            Err(e) => return Err(format!("cannot read the ledger: {e}")),
        },
        Lookup::Miss => None,
    };
    match earlier {
        Some(o) => Ok(o),
        None => {
            let o = assessor.assess_at(wiki, &claim.text, Some(sent_at)).map_err(|e| format!("cannot search the wiki index: {e}"))?;
            cache.put(claim, day, &o, assessor.last_read_writing_day());
            Ok(o)
        }
    }
}

/// The rule of the reason a claim carries when a trust-list source could not be asked.
pub(crate) const UNAVAILABLE_RULE: &str = "factcheck.source_unavailable";

fn ground_stage(
    g: Arc<dyn Grounding>,
    concurrency: usize,
    rx: tokio::sync::mpsc::Receiver<Box<Work>>,
    back: tokio::sync::mpsc::Sender<Box<Work>>,
    c: Arc<Counters>,
) {
    use futures::StreamExt;
    let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the network runtime: {e}");
            return;
        }
    };
    rt.block_on(async move {
        let stream = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|w| (w, rx)) });
        stream
            .map(|mut work| {
                let g = Arc::clone(&g);
                let c = Arc::clone(&c);
                async move {
                    for &i in &work.pending {
                        let text = work.claims[i].text.clone();
                        let grounded = g.ground(text).await;
                        Counters::sub(&c.waiting_on_fetch, 1);
                        Counters::add_max(&c.fetches, g.requests());
                        if let Grounded::Captured { stale } = &grounded {
                            work.stale.extend(stale.iter().copied());
                        }
                        if let Grounded::Unavailable(why) = &grounded
                            && let Some(o) = work.outcomes[i].as_mut()
                        {
                            // Unreachable is never "no evidence": say what
                            // could not be searched, next to the status.
                            o.reasons.push(Reason {
                                facet: "source".into(),
                                detail: format!("trust-list source unavailable: {why}"),
                                claim_span: None,
                                evidence: vec![],
                                rule: UNAVAILABLE_RULE.into(),
                            });
                        }
                        if let Grounded::Unavailable(why) = grounded {
                            work.skipped.push(Skipped {
                                stage: "factcheck".into(),
                                locator: work.message.locator.clone(),
                                reason: format!("source unavailable: {why}"),
                            });
                        }
                    }
                    work
                }
            })
            .buffer_unordered(concurrency)
            .for_each(|work| {
                let back = back.clone();
                async move {
                    let _ = back.send(work).await;
                }
            })
            .await;
    });
}

fn regrade_stage(
    wiki: Wiki,
    mut rx: tokio::sync::mpsc::Receiver<Box<Work>>,
    done: SyncSender<Vec<Item>>,
    model: Option<&'static amem_models::Verifier>,
    endpoint: Option<std::sync::Arc<amem_endpoint::EndpointVerifier>>,
    gate_roles: Option<std::sync::Arc<amem_endpoint::EndpointGate>>,
) {
    let mut assessor = Assessor::with_model(model).with_endpoint(endpoint).with_gate_roles(gate_roles);
    while let Some(mut work) = rx.blocking_recv() {
        for i in std::mem::take(&mut work.pending) {
            // What was fetched is in the wiki now: the same local path decides.
            match assessor.assess_at(&wiki, &work.claims[i].text, Some(&work.message.sent_at.to_string())) {
                Ok(mut o) => {
                    o.method.push_str(crate::assess::TRUST_LIST_SUFFIX);
                    if let Some(prev) = &work.outcomes[i] {
                        o.reasons.extend(prev.reasons.iter().filter(|r| r.facet == "source" && r.rule != UNAVAILABLE_RULE).cloned());
                        o.after_grounding(prev.reasons.iter().find(|r| r.rule == UNAVAILABLE_RULE));
                    }
                    work.outcomes[i] = Some(o);
                }
                Err(e) => {
                    let _ = done.send(vec![Item::Fatal(format!("cannot search the wiki index: {e}"))]);
                    return;
                }
            }
        }
        // One at a time: fetches come back far apart.
        if done.send(vec![Item::Message(work)]).is_err() {
            return;
        }
    }
}

fn record_all(ledger: &mut Ledger, rx: Receiver<Vec<Item>>, c: &Counters, at: &str, policy: &str) -> anyhow::Result<()> {
    let stale_at: Timestamp = at.parse().context("invariant: the run's start time is RFC 3339")?;
    for item in rx.into_iter().flatten() {
        match item {
            Item::Skipped(s) => ledger.record_skipped(&s)?,
            Item::Copy { original, archive, locator } => ledger.record_copy(original, &archive, &locator)?,
            Item::Fatal(e) => anyhow::bail!("{e}"),
            Item::Message(w) => {
                let Work { message, digest, claims, outcomes, skipped, stale, .. } = *w;
                // Each outcome is this message's own: moved into its assessment, not copied.
                // An outcome an endpoint answered gives two: the rules' verdict, then the reported one.
                let assessments: Vec<Assessment> = claims
                    .iter()
                    .zip(outcomes)
                    .filter_map(|(claim, o)| o.map(|o| o.into_assessments(claim, at, policy)))
                    .flatten()
                    .collect();
                Counters::add(&c.skipped, skipped.len() as u64);
                ledger.record_owned(Box::new(message), digest, claims, assessments, skipped)?;
                for d in &stale {
                    // A source changed since it was captured: earlier verdicts
                    // resting on the old revision are now stale (new observations).
                    ledger.mark_stale(d, stale_at)?;
                }
                Counters::add(&c.recorded, 1);
            }
        }
    }
    Ok(())
}

/// The counts of the run that do not depend on its rows, read back from the
/// ledger so that a resumed run and an uninterrupted one give the same
/// figures; [`count_row`] adds each row's.
fn summary_totals(ledger: &Ledger, run: &RunInfo, c: &Counters, fixed_clock: bool) -> anyhow::Result<RunSummary> {
    let mut s =
        RunSummary { messages_read: Counters::get(&c.messages), other_shards: Counters::get(&c.other_shards), ..RunSummary::default() };
    let totals = ledger.run_totals(&run.run_id)?;
    // Messages recorded under this run id (by this process or by the
    // interrupted one it resumes) were assessed here; the rest of what was
    // read had been assessed by earlier runs.
    s.copies = totals.copies;
    s.quoted = totals.quoted;
    s.messages_already_assessed =
        s.messages_read.saturating_sub(totals.messages).saturating_sub(Counters::get(&c.deselected)).saturating_sub(totals.copies);
    s.claims_by_kind = totals.claims_by_kind;
    s.audited = s.claims_by_kind.iter().filter(|(k, _)| k.is_audited()).map(|(_, n)| n).sum();
    for sk in ledger.skipped(&run.run_id)? {
        s.count_skipped(&sk);
    }
    s.fetches = Counters::get(&c.fetches);
    // The real time the run's work ended, not its clock (the time relative
    // windows count from). A run given `--now` is reproducible byte for
    // byte, so it reports that clock instead.
    s.finished_at = Some(if fixed_clock { run.params.now } else { Timestamp::now() });
    Ok(s)
}

/// Count one report row (the latest assessment of one claim in the run).
pub fn count_row(s: &mut RunSummary, rec: &AuditRecord) {
    s.count_record(rec);
    if rec.assessment.reasons.iter().any(|r| r.rule == UNAVAILABLE_RULE) {
        *s.uncheckable.entry("source_unavailable".into()).or_default() += 1;
    }
    if !rec.assessment.method.ends_with(crate::assess::TRUST_LIST_SUFFIX) && rec.group() != amem_records::Group::Unverified {
        s.local_hits += 1;
    }
    if rec.assessment.method.starts_with("llm:") {
        s.model_answered += 1;
    }
    if rec.assessment.reasons.iter().any(amem_endpoint::is_failure) {
        s.model_unavailable += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_ledger::MessageOutcome;
    use amem_records::{Claim, ClaimKind, MessageId, Reason, RunParams, Span, Status};
    use std::collections::BTreeMap;

    fn message(n: u32, text: &str) -> Message {
        Message {
            source: SourceKind::GMAIL,
            archive: "mail.mbox".into(),
            conversation: "thread".into(),
            id: MessageId(format!("<m{n}@example.org>")),
            author: "Alice <alice@example.org>".into(),
            recipients: vec![],
            sent_at: "2024-01-01T10:00:00Z".parse().unwrap(),
            subject: None,
            text: text.into(),
            quoted: vec![],
            locator: format!("mail.mbox:byte {n}"),
            meta: BTreeMap::new(),
            not_claims: None,
        }
    }

    fn claim_of(m: &Message) -> Claim {
        let d = m.digest();
        let span = Span::new(0, m.text.len());
        Claim {
            id: Claim::id_for(&d, span, &m.text),
            message: m.id.clone(),
            message_digest: d,
            span,
            text: m.text.clone(),
            kind: ClaimKind::Fact,
            cues: vec![],
            extractor: "test".into(),
        }
    }

    fn run_info(id: &str) -> RunInfo {
        let t: Timestamp = "2030-01-01T00:00:00Z".parse().unwrap();
        let params = RunParams {
            sources: vec![],
            since: None,
            until: None,
            now: t,
            offline: true,
            policy_version: "p@1".into(),
            home: String::new(),
            who: amem_records::Who::All,
            include_bulk: false,
            include_forwarded: false,
            shard: None,
            reassess: false,
        };
        RunInfo { run_id: RunId(id.into()), started_at: t, params }
    }

    fn write_mbox(path: &Path, first: u32, n: u32) {
        let mut s = String::new();
        for i in first..first + n {
            s.push_str(&format!(
                "From ann@example.org Mon Feb  2 21:21:14 2026\nFrom: Ann <ann@example.org>\nTo: bob@example.org\n\
                 Subject: Message {i}\nDate: Mon, 2 Feb 2026 21:21:14 -0600\nMessage-ID: <m{i}@example.org>\n\nBody of message {i}.\n\n"
            ));
        }
        std::fs::write(path, s).unwrap();
    }

    /// The importer thread sends full batches, then what is left, in the
    /// order read: every message and every import error arrives once, an
    /// error where it came (here a source that cannot be opened between two
    /// archives, one of them past two batches).
    #[test]
    fn imported_messages_travel_in_batches_in_order_and_none_is_lost() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a.mbox"), d.path().join("b.mbox"));
        write_mbox(&a, 0, 2 * BATCH as u32 + 6);
        write_mbox(&b, 1000, 3);
        let sources = vec![(SourceKind::GMAIL, a), (SourceKind::GMAIL, d.path().join("missing.mbox")), (SourceKind::GMAIL, b)];
        let (tx, rx) = sync_channel::<Vec<Incoming>>(256 / BATCH);
        let c = Counters::default();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                import_all(
                    &sources,
                    &ImportOptions::default(),
                    tx,
                    &c,
                    Reading { forwarded: false, copies: CopyFinder::new(None), shard: None },
                )
            });
            let batches: Vec<Vec<Incoming>> = rx.iter().collect();
            let sizes: Vec<usize> = batches.iter().map(Vec::len).collect();
            assert_eq!(sizes, vec![BATCH, BATCH, 10], "full batches, then the rest");
            let got: Vec<String> = batches
                .into_iter()
                .flatten()
                .map(|m| match m {
                    Incoming::Message { message, digest, .. } => {
                        assert_eq!(digest, message.digest());
                        message.id.0
                    }
                    Incoming::Failed(e) => format!("error: {}", e.path.file_name().unwrap().to_string_lossy()),
                    Incoming::Copy { locator, .. } => format!("copy: {locator}"),
                })
                .collect();
            let mut want: Vec<String> = (0..2 * BATCH as u32 + 6).map(|i| format!("<m{i}@example.org>")).collect();
            want.push("error: missing.mbox".into());
            want.extend((1000..1003).map(|i| format!("<m{i}@example.org>")));
            assert_eq!(got, want);
        });
    }

    /// A claim text assessed earlier in the run, whose outcome has left the
    /// in-memory cache, is answered from the assessment the ledger recorded
    /// for it, not assessed again; in another run it is assessed afresh.
    #[test]
    fn an_evicted_claim_text_is_answered_from_the_runs_ledger_rows() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join("wiki")).unwrap();
        let wiki = open_wiki(home.path(), None).unwrap();
        let path = home.path().join(amem_ledger::LEDGER_FILE);
        let mut writer = Ledger::open(&path).unwrap();
        let run = run_info("r1");
        writer.begin_run(&run).unwrap();
        // The first message's claim, with a verdict the (empty) wiki could
        // never give: only reading it back can produce it.
        let first = message(1, "The plant makes 40 MW.");
        let c1 = claim_of(&first);
        let recorded = Outcome {
            status: Status::Supported,
            reasons: vec![Reason {
                facet: "topic".into(),
                detail: "from the ledger".into(),
                claim_span: None,
                evidence: vec![],
                rule: "r".into(),
            }],
            gate: None,
            method: "deterministic@2".into(),
            local_hit: true,
            rules: None,
        };
        let a1 = recorded.to_assessment(&c1, "2030-01-01T00:00:00Z", "p@1");
        writer.record(&MessageOutcome { message: &first, claims: std::slice::from_ref(&c1), assessments: &[a1], skipped: &[] }).unwrap();
        writer.flush().unwrap();

        // No outcome stays in memory: every put evicts the one before.
        let cache = OutcomeCache::with_limits(0, crate::assess::EARLIER_MAX);
        let day = "2024-01-01";
        cache.put(&c1, day, &recorded, false);
        cache.put(&claim_of(&message(2, "Something else entirely.")), day, &recorded, false);
        let later = claim_of(&message(3, "The plant makes 40 MW."));
        assert_eq!(cache.get(&later, day), None);

        let seen = Ledger::open(&path).unwrap();
        let mut assessor = Assessor::new();
        let sent = "2024-01-01T10:00:00Z";
        let got = outcome_for(&later, sent, &cache, &seen, &run.run_id, &mut assessor, &wiki).unwrap();
        assert_eq!(got, recorded);
        assert_eq!(cache.reused.load(std::sync::atomic::Ordering::Relaxed), 1);

        // Another run has no row for it: assessed now (nothing in the wiki).
        let other = outcome_for(&later, sent, &cache, &seen, &RunId("r2".into()), &mut assessor, &wiki).unwrap();
        assert_eq!(other.status, Status::NoEvidence);
    }

    /// Issue 16, finding 6: `-j` has an upper bound, the cores.
    #[test]
    fn r16_workers_are_capped_at_the_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(capped_workers(1_000_000), cores);
        assert_eq!(capped_workers(0), 1);
        assert_eq!(capped_workers(1), 1);
    }
}
