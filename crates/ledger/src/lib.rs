//! `amem-ledger`: the SQLite ledger at `$AMEM_HOME/ledger.sqlite`, and the
//! home lock.
//!
//! Where it sits: after verification and the gate, before the report sinks
//! (DESIGN.md, "Data flow"). It takes [`Message`]s, [`Claim`]s and
//! [`Assessment`]s and keeps them as observations: runs, messages seen (by
//! digest), claims, evidence item revisions, and assessments, which are
//! **append-only** (SQL triggers refuse `UPDATE` and `DELETE` on them; "the
//! latest per claim" is a query, history stays). It gives back what nightly
//! runs need: [`Ledger::is_assessed`] (skip messages already assessed under
//! the same policy version), [`Ledger::latest_assessments`] and
//! [`Ledger::for_each_latest`] (report rows rebuilt as [`AuditRecord`]s),
//! and [`Ledger::mark_stale`] (new `stale` observations when an evidence
//! source changed).
//!
//! Crash safety: everything about one message (the message, its claims, its
//! assessments, the evidence revisions they cite, and the "assessed under
//! policy P" mark) is written in the same transaction. Messages are
//! buffered in memory and written in batches of
//! [`LedgerOptions::batch_messages`] (or when the batch is older than
//! [`LedgerOptions::max_batch_age`]), one short transaction each, so the
//! write lock on the shared file is never held while the pipeline waits. A
//! run killed with SIGKILL loses at most the unwritten batch, and never half
//! a message: on restart those messages are simply not yet assessed.
//! Inserts are `INSERT OR IGNORE` on content ids, so recording the same
//! thing twice leaves one row.
//!
//! The file also holds the recall index's `wiki_*` tables; the ledger never
//! touches them (see the `schema` module).
//!
//! ```no_run
//! use amem_ledger::{HomeLock, Ledger, MessageOutcome, Scope};
//! # fn run(home: &std::path::Path, info: amem_model::RunInfo, msg: amem_model::Message,
//! #        claims: Vec<amem_model::Claim>, assessments: Vec<amem_model::Assessment>,
//! #        summary: amem_model::RunSummary) -> amem_ledger::Result<()> {
//! let _lock = HomeLock::acquire(home, "amem audit chat-history")?;
//! let mut ledger = Ledger::open(&home.join("ledger.sqlite"))?;
//! ledger.begin_run(&info)?;
//! if !ledger.is_assessed(&msg.digest(), &info.params.policy_version)? {
//!     ledger.record(&MessageOutcome { message: &msg, claims: &claims, assessments: &assessments, skipped: &[] })?;
//! }
//! ledger.finish_run(&summary)?;
//! let latest = ledger.latest_assessments(Scope::Run(&info.run_id))?;
//! # let _ = latest; Ok(()) }
//! ```
#![deny(missing_docs)]

mod error;
mod lock;
mod schema;

pub use error::{Error, Result};
pub use lock::{DAMAGED_LOCK_GRACE, HomeLock, LOCK_FILE, LockHolder};

use amem_model::{
    Assessment, AuditRecord, Claim, ClaimId, ClaimKind, Digest, Message, MessageId, Reason, RunId, RunInfo, RunSummary, Skipped,
    SourceKind, Status, cited_evidence,
};
use jiff::Timestamp;
use rusqlite::{Connection, ErrorCode, OptionalExtension, params};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The ledger's file name inside `$AMEM_HOME`.
pub const LEDGER_FILE: &str = "ledger.sqlite";

/// The method name of the `stale` observations [`Ledger::mark_stale`] adds.
pub const STALE_METHOD: &str = "ledger.source_changed@1";

/// How the ledger is opened.
#[derive(Clone, Debug)]
pub struct LedgerOptions {
    /// How long to wait for another connection's lock before failing with
    /// [`Error::Busy`].
    pub busy_timeout: Duration,
    /// Messages per transaction. Larger batches are faster (one commit per
    /// batch); smaller ones lose less work to a SIGKILL.
    pub batch_messages: usize,
    /// A batch older than this is written at the next `record`, so a slow
    /// run (waiting on rate-limited fetches) still makes progress durable.
    pub max_batch_age: Duration,
    /// Past this many bytes the write-ahead log is checkpointed and emptied
    /// after a batch (see [`Ledger::flush`]).
    pub wal_limit: u64,
}

impl Default for LedgerOptions {
    fn default() -> Self {
        // 5 s rides out the recall index's own short write transactions.
        // 1,000 messages per commit: every dirty page is written to the log
        // once per commit, and a batch still touches pages of several
        // indexes (messages seen, evidence by item). Measured with schema
        // version 2, whose content-digest keys spread a batch over the whole
        // file, recording the 11,238 Enron mails of the audit bench cost
        // 1,657 µs per message in batches of 200, 910 in batches of 1,000,
        // 858 in batches of 5,000 (`stage_costs` example); schema 3 keys by
        // message, which shrank that spread, and kept the batch size. The
        // age bound keeps the work a kill loses to about two seconds, and
        // the buffer to a few tens of MB.
        LedgerOptions {
            busy_timeout: Duration::from_secs(5),
            batch_messages: 1000,
            max_batch_age: Duration::from_secs(2),
            wal_limit: 64 << 20,
        }
    }
}

/// Which assessments [`Ledger::latest_assessments`] looks at.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// Only assessments recorded by this run: the latest per claim among them.
    Run(&'a RunId),
    /// All assessments ever recorded: the current view of every claim.
    All,
}

/// Everything one message produced, recorded atomically by [`Ledger::record`].
#[derive(Clone, Copy, Debug)]
pub struct MessageOutcome<'a> {
    /// The message.
    pub message: &'a Message,
    /// Every claim extracted from it (audited or not).
    pub claims: &'a [Claim],
    /// The assessments of those claims.
    pub assessments: &'a [Assessment],
    /// What a stage could not use while handling it.
    pub skipped: &'a [Skipped],
}

/// What [`Ledger::record`] added (0 everywhere when it had all been recorded before).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// 1 when the message was new to the ledger.
    pub messages: u64,
    /// New claims.
    pub claims: u64,
    /// New assessments.
    pub assessments: u64,
}

/// The open ledger. One per process; not shared across threads (the
/// pipeline gives it its own task).
#[derive(Debug)]
pub struct Ledger {
    conn: Connection,
    path: PathBuf,
    opts: LedgerOptions,
    /// The run `record` writes under, with its policy version.
    run: Option<(RunId, String)>,
    /// The batch not yet written: kept in memory (bounded by
    /// `batch_messages`) and written in one short transaction, so the write
    /// lock on the shared file is held for milliseconds, never while the
    /// pipeline waits for work (the recall index writes to the same file).
    buffer: Vec<Pending>,
    /// Digests of the messages in `buffer`, for `is_assessed`.
    buffered: HashSet<Digest>,
    /// When the first entry of `buffer` arrived.
    buffer_since: Option<Instant>,
}

/// One buffered write.
#[derive(Debug)]
enum Pending {
    Outcome {
        run: RunId,
        policy: String,
        digest: Digest,
        message: Box<Message>,
        claims: Vec<Claim>,
        assessments: Vec<Assessment>,
        skipped: Vec<Skipped>,
    },
    Skipped {
        run: RunId,
        skipped: Skipped,
    },
}

/// Counts for one run, read back from the ledger (so a resumed run and an
/// uninterrupted one report the same figures).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunTotals {
    /// Messages this run recorded as assessed.
    pub messages: u64,
    /// Claims of those messages, by kind.
    pub claims_by_kind: BTreeMap<ClaimKind, u64>,
    /// Assessments recorded under this run (including `stale` marks).
    pub assessments: u64,
}

fn map_sql(path: &Path, action: &str, busy: Duration) -> impl FnOnce(rusqlite::Error) -> Error + use<> {
    let path = path.to_path_buf();
    let action = action.to_string();
    move |e| match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::NotADatabase { path, source: e },
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => Error::Busy { path, waited_ms: busy.as_millis() as u64 },
        _ => Error::Sqlite { path, action, source: e },
    }
}

fn encode<T: serde::Serialize>(what: &str, v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|source| Error::Encode { what: what.to_string(), source })
}

impl Ledger {
    /// Open (creating and migrating as needed) the ledger at `path`, in WAL
    /// mode with the default options.
    ///
    /// # Errors
    /// The file is not SQLite ([`Error::NotADatabase`]), is someone else's
    /// database ([`Error::Foreign`]), was written by a newer amem
    /// ([`Error::TooNew`]), or stays locked ([`Error::Busy`]).
    pub fn open(path: &Path) -> Result<Ledger> {
        Ledger::open_with(path, LedgerOptions::default())
    }

    /// [`Ledger::open`] with explicit options.
    ///
    /// # Errors
    /// As [`Ledger::open`].
    pub fn open_with(path: &Path, opts: LedgerOptions) -> Result<Ledger> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::Dir { path: dir.to_path_buf(), source })?;
        }
        let conn = Connection::open(path).map_err(map_sql(path, "opening", opts.busy_timeout))?;
        Ledger::setup(conn, path.to_path_buf(), opts, true)
    }

    /// An in-memory ledger, for tests and `StageContext::for_test`.
    ///
    /// # Errors
    /// SQLite cannot create it.
    pub fn open_in_memory() -> Result<Ledger> {
        let path = PathBuf::from(":memory:");
        let opts = LedgerOptions::default();
        let conn = Connection::open_in_memory().map_err(map_sql(&path, "opening", opts.busy_timeout))?;
        Ledger::setup(conn, path, opts, false)
    }

    fn setup(conn: Connection, path: PathBuf, opts: LedgerOptions, wal: bool) -> Result<Ledger> {
        let busy = opts.busy_timeout;
        conn.busy_timeout(busy).map_err(map_sql(&path, "setting the busy timeout", busy))?;
        if wal {
            // WAL: readers (a report, `sqlite3` on the file) never block the
            // run. synchronous=NORMAL is durable across a process kill (the
            // WAL is written before COMMIT returns); only an OS crash can
            // lose the last commits, never consistency.
            let mode: String =
                conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(map_sql(&path, "switching to WAL", busy))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(Error::Sqlite {
                    path,
                    action: format!("switching to WAL (the file stays in {mode} mode)"),
                    source: rusqlite::Error::InvalidQuery,
                });
            }
            conn.execute_batch("PRAGMA synchronous=NORMAL").map_err(map_sql(&path, "setting synchronous", busy))?;
        }
        // 16 MiB page cache (SQLite's default is 2 MiB): the ledger's indexes
        // are keyed by digests, so inserts land all over the B-trees and a
        // small cache turns them into page reloads. Bounded, so memory stays flat.
        conn.execute_batch("PRAGMA foreign_keys=ON; PRAGMA cache_size=-16384").map_err(map_sql(
            &path,
            "configuring the connection",
            busy,
        ))?;
        let mut ledger = Ledger { conn, path, opts, run: None, buffer: Vec::new(), buffered: HashSet::new(), buffer_since: None };
        ledger.migrate()?;
        Ok(ledger)
    }

    fn err(&self, action: &str) -> impl FnOnce(rusqlite::Error) -> Error + use<> {
        map_sql(&self.path, action, self.opts.busy_timeout)
    }

    /// The schema version in the file.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn schema_version(&self) -> Result<i64> {
        self.conn
            .query_row("SELECT version FROM schema_version WHERE component = ?1", [schema::COMPONENT], |r| r.get(0))
            .map_err(self.err("reading the schema version"))
    }

    fn migrate(&mut self) -> Result<()> {
        // Fast path, read-only: an up-to-date ledger needs no write lock, so
        // a second connection (the pipeline's reader) opens even while the
        // writer is committing a batch.
        let up_to_date = self
            .conn
            .query_row("SELECT version FROM schema_version WHERE component = ?1", [schema::COMPONENT], |r| r.get::<_, i64>(0))
            .optional();
        match up_to_date {
            Ok(Some(v)) if v == schema::latest_version() => return Ok(()),
            Ok(Some(v)) if v > schema::latest_version() => {
                return Err(Error::TooNew { path: self.path.clone(), found: v, known: schema::latest_version() });
            }
            Err(e)
                if matches!(e.sqlite_error_code(), Some(ErrorCode::NotADatabase | ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)) =>
            {
                return Err(self.err("reading the schema version")(e));
            }
            // Older, absent, or no such table (a fresh or foreign file): the slow path decides.
            _ => {}
        }
        let tx_err = |s: &Self, a: &str| map_sql(&s.path, a, s.opts.busy_timeout);
        // IMMEDIATE: two processes opening a fresh file at once must not both migrate.
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(tx_err(self, "starting the migration"))?;
        let result = self.migrate_in_tx();
        match result {
            Ok(()) => self.conn.execute_batch("COMMIT").map_err(tx_err(self, "committing the migration")),
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    fn migrate_in_tx(&mut self) -> Result<()> {
        let has_version_table: bool = self
            .conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'", [], |r| r.get::<_, i64>(0))
            .map_err(self.err("reading the schema"))?
            > 0;
        let mut current: i64 = 0;
        if has_version_table {
            let has_component: bool = self
                .conn
                .query_row("SELECT count(*) FROM pragma_table_info('schema_version') WHERE name = 'component'", [], |r| r.get::<_, i64>(0))
                .map_err(self.err("reading the schema"))?
                > 0;
            if !has_component {
                return Err(Error::Foreign { path: self.path.clone(), table: "schema_version".to_string() });
            }
            current = self
                .conn
                .query_row("SELECT version FROM schema_version WHERE component = ?1", [schema::COMPONENT], |r| r.get(0))
                .optional()
                .map_err(self.err("reading the schema version"))?
                .unwrap_or(0);
        }
        if current == 0 {
            for t in schema::OWN_TABLES {
                let exists: i64 = self
                    .conn
                    .query_row("SELECT count(*) FROM sqlite_master WHERE name = ?1", [t], |r| r.get(0))
                    .map_err(self.err("reading the schema"))?;
                if exists > 0 {
                    return Err(Error::Foreign { path: self.path.clone(), table: t.to_string() });
                }
            }
        }
        let known = schema::latest_version();
        if current > known {
            return Err(Error::TooNew { path: self.path.clone(), found: current, known });
        }
        self.conn.execute_batch(schema::VERSION_TABLE).map_err(self.err("creating schema_version"))?;
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(current as usize) {
            let v = i as i64 + 1;
            self.conn.execute_batch(sql).map_err(self.err(&format!("migrating to version {v}")))?;
            self.conn
                .execute(
                    "INSERT INTO schema_version (component, version) VALUES (?1, ?2)
                     ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                    params![schema::COMPONENT, v],
                )
                .map_err(self.err(&format!("recording version {v}")))?;
        }
        Ok(())
    }

    /// The ledger file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write the buffered batch in one transaction. `record` and
    /// `finish_run` call this themselves; call it before reading what was
    /// just recorded (queries see only written data) or to make progress
    /// durable at a point of your choosing. Returns what was new.
    ///
    /// # Errors
    /// SQLite fails; the whole batch is then rolled back (and dropped), so
    /// none of its messages count as assessed.
    pub fn flush(&mut self) -> Result<Recorded> {
        self.buffered.clear();
        self.buffer_since = None;
        if self.buffer.is_empty() {
            return Ok(Recorded::default());
        }
        let batch = std::mem::take(&mut self.buffer);
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(self.err("starting a batch"))?;
        match self.write_batch(&batch) {
            Ok(rec) => {
                self.conn.execute_batch("COMMIT").map_err(self.err("committing a batch"))?;
                self.limit_wal();
                Ok(rec)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Keep the write-ahead log from growing with the run. SQLite's automatic
    /// checkpoints copy the log back into the file but only restart it when
    /// no reader is using it, and an audit's workers read the ledger and the
    /// index all the time: on the 112k-message bench the log had grown to
    /// 800 MB beside a 1.3 GB ledger. Past [`LedgerOptions::wal_limit`] bytes a truncating
    /// checkpoint waits (up to the busy timeout) for the readers' current
    /// reads to end, then empties the log. Best effort: when the readers do
    /// not let go in time it is tried again after the next batch.
    fn limit_wal(&self) {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        if std::fs::metadata(&wal).is_ok_and(|m| m.len() > self.opts.wal_limit) {
            let _ = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }

    fn write_batch(&mut self, batch: &[Pending]) -> Result<Recorded> {
        let mut total = Recorded::default();
        for p in batch {
            match p {
                Pending::Outcome { run, policy, digest, message, claims, assessments, skipped } => {
                    let r = self.write_outcome(run, policy, digest, message, claims, assessments, skipped)?;
                    total.messages += r.messages;
                    total.claims += r.claims;
                    total.assessments += r.assessments;
                }
                Pending::Skipped { run, skipped } => self.insert_skipped(run, skipped)?,
            }
        }
        Ok(total)
    }

    /// Record the start of a run and make it the run that [`Ledger::record`]
    /// writes under. Beginning the same run id again (a restarted run) keeps
    /// the first row.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn begin_run(&mut self, run: &RunInfo) -> Result<()> {
        let info = encode("the run info", run)?;
        self.flush()?;
        self.conn
            .execute(
                "INSERT OR IGNORE INTO runs (run_id, started_at, policy_version, info_json) VALUES (?1, ?2, ?3, ?4)",
                params![run.run_id.0, run.started_at.to_string(), run.params.policy_version, info],
            )
            .map_err(self.err("recording the run"))?;
        self.run = Some((run.run_id.clone(), run.params.policy_version.clone()));
        Ok(())
    }

    /// True when the message revision with this digest was fully recorded
    /// (claims and assessments) under this policy version by some run, or
    /// is in this ledger's unwritten batch.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn is_assessed(&self, message_digest: &Digest, policy_version: &str) -> Result<bool> {
        if self.buffered.contains(message_digest) && self.run.as_ref().is_some_and(|(_, p)| p == policy_version) {
            return Ok(true);
        }
        let n: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM (SELECT 1 FROM message_assessed WHERE digest = ?1 AND policy_version = ?2 LIMIT 1)")
            .and_then(|mut s| s.query_row(params![message_digest.to_hex(), policy_version], |r| r.get(0)))
            .map_err(self.err("checking whether a message was assessed"))?;
        Ok(n > 0)
    }

    fn push(&mut self, p: Pending) -> Result<()> {
        if let Pending::Outcome { digest, .. } = &p {
            self.buffered.insert(*digest);
        }
        self.buffer.push(p);
        let since = *self.buffer_since.get_or_insert_with(Instant::now);
        let messages = self.buffered.len();
        if messages >= self.opts.batch_messages.max(1)
            || self.buffer.len() >= 4 * self.opts.batch_messages.max(1)
            || since.elapsed() >= self.opts.max_batch_age
        {
            self.flush()?;
        }
        Ok(())
    }

    /// Record one message with its claims, assessments and skips, and mark
    /// it assessed under the current run's policy version. All of it is
    /// written in the same transaction (never half a message), in batches
    /// of [`LedgerOptions::batch_messages`]. Idempotent: recording the same
    /// outcome again adds nothing.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; a batch write
    /// that fails (see [`Ledger::flush`]).
    pub fn record(&mut self, outcome: &MessageOutcome<'_>) -> Result<()> {
        let (run, policy) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        let m = outcome.message;
        self.push(Pending::Outcome {
            run,
            policy,
            digest: m.digest(),
            message: Box::new(m.clone()),
            claims: outcome.claims.to_vec(),
            assessments: outcome.assessments.to_vec(),
            skipped: outcome.skipped.to_vec(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn write_outcome(
        &mut self,
        run_id: &RunId,
        policy: &str,
        digest: &Digest,
        m: &Message,
        claims: &[Claim],
        assessments: &[Assessment],
        skipped: &[Skipped],
    ) -> Result<Recorded> {
        let digest = digest.to_hex();
        let messages = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO messages_seen
                 (digest, source, archive, conversation, message_id, locator, author, sent_at, subject, first_run)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    digest,
                    m.source.as_str(),
                    m.archive,
                    m.conversation,
                    m.id.0,
                    m.locator,
                    m.author,
                    m.sent_at.to_string(),
                    m.subject,
                    run_id.0
                ])
            })
            .map_err(self.err("recording a message"))? as u64;
        let mut rec = Recorded { messages, ..Recorded::default() };
        for c in claims {
            rec.claims += self.insert_claim(c)?;
        }
        for a in assessments {
            rec.assessments += self.insert_assessment(run_id, &digest, a)?;
        }
        for s in skipped {
            self.insert_skipped(run_id, s)?;
        }
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO message_assessed (digest, policy_version, run_id) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![digest, policy, run_id.0]))
            .map_err(self.err("marking a message assessed"))?;
        Ok(rec)
    }

    fn insert_claim(&mut self, c: &Claim) -> Result<u64> {
        let json = encode("a claim", c)?;
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO claims (claim_id, message_digest, span_start, span_end, kind, text, claim_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    c.id.0.to_hex(),
                    c.message_digest.to_hex(),
                    c.span.start as i64,
                    c.span.end as i64,
                    c.kind.as_str(),
                    c.text,
                    json
                ])
            })
            .map_err(self.err("recording a claim"))?;
        Ok(n as u64)
    }

    /// The content id of an assessment recorded by `run`: the same
    /// observation recorded twice (a restarted run) is one row; the same
    /// verdict reached by a later run is a new observation.
    fn assessment_id(run: &RunId, json: &str) -> String {
        Digest::of_fields([run.0.as_bytes(), json.as_bytes()]).to_hex()
    }

    /// `message_digest` (hex) is the message the claim was made in: every
    /// index on assessments starts with it (schema version 3).
    fn insert_assessment(&mut self, run: &RunId, message_digest: &str, a: &Assessment) -> Result<u64> {
        let json = encode("an assessment", a)?;
        let id = Ledger::assessment_id(run, &json);
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO assessments
                 (assessment_id, run_id, message_digest, claim_id, status, grp, method, policy_version, assessed_at, assessment_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    id,
                    run.0,
                    message_digest,
                    a.claim.0.to_hex(),
                    a.status.as_str(),
                    a.group().as_str(),
                    a.method,
                    a.policy_version,
                    a.assessed_at,
                    json
                ])
            })
            .map_err(self.err("recording an assessment"))?;
        for e in cited_evidence(a) {
            let item_digest = e.item_digest.to_hex();
            self.conn
                .prepare_cached(
                    "INSERT OR IGNORE INTO evidence_revisions (item_digest, item, captured_at, source_url, title) VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .and_then(|mut s| s.execute(params![item_digest, e.uri.item, e.captured_at, e.source_url, e.title]))
                .map_err(self.err("recording an evidence revision"))?;
            self.conn
                .prepare_cached(
                    "INSERT OR IGNORE INTO assessment_evidence (item_digest, message_digest, assessment_id) VALUES (?1, ?2, ?3)",
                )
                .and_then(|mut s| s.execute(params![item_digest, message_digest, id]))
                .map_err(self.err("linking an assessment to its evidence"))?;
        }
        Ok(n as u64)
    }

    fn insert_skipped(&mut self, run: &RunId, s: &Skipped) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO skipped (run_id, stage, locator, reason) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut st| st.execute(params![run.0, s.stage, s.locator, s.reason]))
            .map_err(self.err("recording a skipped record"))?;
        Ok(())
    }

    /// Record something skipped outside any message (an unreadable file, a
    /// corrupt record), with the current batch. Idempotent.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; SQLite fails.
    pub fn record_skipped(&mut self, s: &Skipped) -> Result<()> {
        let (run, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.push(Pending::Skipped { run, skipped: s.clone() })
    }

    /// Skipped records of a run, sorted by (stage, locator, reason).
    ///
    /// # Errors
    /// SQLite fails.
    pub fn skipped(&self, run: &RunId) -> Result<Vec<Skipped>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT stage, locator, reason FROM skipped WHERE run_id = ?1 ORDER BY stage, locator, reason")
            .map_err(self.err("reading skipped records"))?;
        let rows = st
            .query_map([&run.0], |r| Ok(Skipped { stage: r.get(0)?, locator: r.get(1)?, reason: r.get(2)? }))
            .map_err(self.err("reading skipped records"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(self.err("reading skipped records"))
    }

    /// Commit everything and record the run's summary and end time.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; SQLite fails.
    pub fn finish_run(&mut self, summary: &RunSummary) -> Result<()> {
        let (run_id, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.flush()?;
        let json = encode("the run summary", summary)?;
        let finished = summary.finished_at.map(|t| t.to_string());
        let n = self
            .conn
            .execute("UPDATE runs SET finished_at = ?2, summary_json = ?3 WHERE run_id = ?1", params![run_id.0, finished, json])
            .map_err(self.err("finishing the run"))?;
        if n == 0 {
            return Err(Error::UnknownRun(run_id.0));
        }
        Ok(())
    }

    /// A run's recorded info and summary (`None` while unfinished).
    ///
    /// # Errors
    /// SQLite fails or a stored row does not decode.
    pub fn run(&self, run: &RunId) -> Result<Option<(RunInfo, Option<RunSummary>)>> {
        let row: Option<(String, Option<String>)> = self
            .conn
            .query_row("SELECT info_json, summary_json FROM runs WHERE run_id = ?1", [&run.0], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
            .map_err(self.err("reading a run"))?;
        let Some((info, summary)) = row else { return Ok(None) };
        let info: RunInfo = self.decode("runs", &run.0, &info)?;
        let summary = match summary {
            Some(s) => Some(self.decode("runs", &run.0, &s)?),
            None => None,
        };
        Ok(Some((info, summary)))
    }

    /// Run ids, oldest first.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn runs(&self) -> Result<Vec<RunId>> {
        let mut st = self.conn.prepare_cached("SELECT run_id FROM runs ORDER BY started_at, run_id").map_err(self.err("listing runs"))?;
        let rows = st.query_map([], |r| Ok(RunId(r.get(0)?))).map_err(self.err("listing runs"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(self.err("listing runs"))
    }

    /// What a run recorded: messages assessed, their claims by kind, and
    /// assessments. Reads written data only (see [`Ledger::flush`]).
    ///
    /// # Errors
    /// SQLite fails or a stored kind does not decode.
    pub fn run_totals(&self, run: &RunId) -> Result<RunTotals> {
        let action = "counting a run";
        let messages: i64 = self
            .conn
            .query_row("SELECT count(*) FROM message_assessed WHERE run_id = ?1", [&run.0], |r| r.get(0))
            .map_err(self.err(action))?;
        let assessments: i64 =
            self.conn.query_row("SELECT count(*) FROM assessments WHERE run_id = ?1", [&run.0], |r| r.get(0)).map_err(self.err(action))?;
        let mut claims_by_kind = BTreeMap::new();
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT c.kind, count(*) FROM message_assessed ma JOIN claims c ON c.message_digest = ma.digest
                 WHERE ma.run_id = ?1 GROUP BY c.kind ORDER BY c.kind",
            )
            .map_err(self.err(action))?;
        let rows = st.query_map([&run.0], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).map_err(self.err(action))?;
        for row in rows {
            let (kind, n) = row.map_err(self.err(action))?;
            let k: ClaimKind = serde_json::from_value(serde_json::Value::String(kind.clone())).map_err(|e| Error::Corrupt {
                path: self.path.clone(),
                table: "claims".into(),
                row: kind.clone(),
                reason: e.to_string(),
            })?;
            claims_by_kind.insert(k, n as u64);
        }
        Ok(RunTotals { messages: messages as u64, claims_by_kind, assessments: assessments as u64 })
    }

    fn decode<T: serde::de::DeserializeOwned>(&self, table: &str, row: &str, json: &str) -> Result<T> {
        serde_json::from_str(json).map_err(|e| Error::Corrupt {
            path: self.path.clone(),
            table: table.to_string(),
            row: row.to_string(),
            reason: e.to_string(),
        })
    }

    /// The latest assessment of one claim that `run` recorded and wrote
    /// (a buffered batch is not seen until it is flushed). The audit uses it
    /// to answer a claim text already assessed earlier in the same run
    /// without assessing it again, once the outcome itself has left its
    /// in-memory cache.
    ///
    /// # Errors
    /// SQLite fails or the stored row does not decode.
    pub fn run_assessment(&self, run: &RunId, message_digest: &Digest, claim: &ClaimId) -> Result<Option<Assessment>> {
        let action = "reading an assessment of this run";
        let row: Option<(i64, String)> = self
            .conn
            .prepare_cached(
                "SELECT seq, assessment_json FROM assessments
                 WHERE run_id = ?1 AND message_digest = ?2 AND claim_id = ?3 ORDER BY seq DESC LIMIT 1",
            )
            .and_then(|mut s| {
                s.query_row(params![run.0, message_digest.to_hex(), claim.0.to_hex()], |r| Ok((r.get(0)?, r.get(1)?))).optional()
            })
            .map_err(self.err(action))?;
        match row {
            Some((seq, json)) => Ok(Some(self.decode("assessments", &seq.to_string(), &json)?)),
            None => Ok(None),
        }
    }

    /// The latest assessment of every claim in `scope`, ordered by claim id.
    /// Reads everything into memory: for report-sized output use
    /// [`Ledger::for_each_latest`].
    ///
    /// # Errors
    /// SQLite fails or a stored row does not decode.
    pub fn latest_assessments(&self, scope: Scope<'_>) -> Result<Vec<Assessment>> {
        let (sql, arg) = match scope {
            Scope::All => (
                "SELECT a.seq, a.assessment_json FROM assessments a
                 WHERE a.seq = (SELECT max(seq) FROM assessments b WHERE b.message_digest = a.message_digest AND b.claim_id = a.claim_id)
                 ORDER BY a.claim_id",
                None,
            ),
            Scope::Run(r) => (
                "SELECT a.seq, a.assessment_json FROM assessments a
                 WHERE a.run_id = ?1
                   AND a.seq = (SELECT max(seq) FROM assessments b WHERE b.run_id = ?1 AND b.message_digest = a.message_digest AND b.claim_id = a.claim_id)
                 ORDER BY a.claim_id",
                Some(r.0.clone()),
            ),
        };
        let mut st = self.conn.prepare(sql).map_err(self.err("reading latest assessments"))?;
        let mut rows = match &arg {
            Some(r) => st.query([r]),
            None => st.query([]),
        }
        .map_err(self.err("reading latest assessments"))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(self.err("reading latest assessments"))? {
            let seq: i64 = row.get(0).map_err(self.err("reading latest assessments"))?;
            let json: String = row.get(1).map_err(self.err("reading latest assessments"))?;
            out.push(self.decode("assessments", &seq.to_string(), &json)?);
        }
        Ok(out)
    }

    /// Stream the latest assessment of every claim in `scope` as report rows
    /// (message context from `messages_seen`, the claim, the assessment, its
    /// evidence), sorted by source, archive, conversation, sent_at, message
    /// id and claim span. Memory stays flat: one row at a time.
    ///
    /// # Errors
    /// SQLite fails, a stored row does not decode, or `f` fails (its error is returned).
    pub fn for_each_latest<E, F>(&self, scope: Scope<'_>, mut f: F) -> std::result::Result<(), E>
    where
        E: From<Error>,
        F: FnMut(AuditRecord) -> std::result::Result<(), E>,
    {
        let base = "SELECT a.seq, a.run_id, a.assessment_json, c.claim_json,
                           m.source, m.archive, m.conversation, m.message_id, m.locator, m.author, m.sent_at, m.subject
                    FROM assessments a
                    JOIN claims c ON c.message_digest = a.message_digest AND c.claim_id = a.claim_id
                    JOIN messages_seen m ON m.digest = a.message_digest";
        let (sql, arg) = match scope {
            Scope::All => (
                format!(
                    "{base} WHERE a.seq = (SELECT max(seq) FROM assessments b WHERE b.message_digest = a.message_digest AND b.claim_id = a.claim_id)
                     ORDER BY m.source, m.archive, m.conversation, m.sent_at, m.message_id, c.span_start, a.claim_id"
                ),
                None,
            ),
            Scope::Run(r) => (
                format!(
                    "{base} WHERE a.run_id = ?1
                       AND a.seq = (SELECT max(seq) FROM assessments b WHERE b.run_id = ?1 AND b.message_digest = a.message_digest AND b.claim_id = a.claim_id)
                     ORDER BY m.source, m.archive, m.conversation, m.sent_at, m.message_id, c.span_start, a.claim_id"
                ),
                Some(r.0.clone()),
            ),
        };
        let action = "reading report rows";
        let mut st = self.conn.prepare(&sql).map_err(self.err(action))?;
        let mut rows = match &arg {
            Some(r) => st.query([r]),
            None => st.query([]),
        }
        .map_err(self.err(action))?;
        while let Some(row) = rows.next().map_err(self.err(action))? {
            let get = |i: usize| -> Result<Option<String>> { row.get::<_, Option<String>>(i).map_err(self.err(action)) };
            let seq: i64 = row.get(0).map_err(self.err(action))?;
            let key = seq.to_string();
            let req = |i: usize| -> Result<String> {
                get(i)?.ok_or_else(|| Error::Corrupt {
                    path: self.path.clone(),
                    table: "assessments".into(),
                    row: key.clone(),
                    reason: format!("column {i} is NULL"),
                })
            };
            let assessment: Assessment = self.decode("assessments", &key, &req(2)?)?;
            let claim: Claim = self.decode("claims", &key, &req(3)?)?;
            let source_name = req(4)?;
            let source = SourceKind::parse(&source_name).ok_or_else(|| Error::Corrupt {
                path: self.path.clone(),
                table: "messages_seen".into(),
                row: key.clone(),
                reason: format!("unknown source kind {source_name:?}"),
            })?;
            let sent_at_text = req(10)?;
            let sent_at: Timestamp = sent_at_text.parse().map_err(|e: jiff::Error| Error::Corrupt {
                path: self.path.clone(),
                table: "messages_seen".into(),
                row: key.clone(),
                reason: format!("sent_at {sent_at_text:?}: {e}"),
            })?;
            let evidence = cited_evidence(&assessment);
            let rec = AuditRecord {
                run_id: RunId(req(1)?),
                source,
                archive: req(5)?,
                conversation: req(6)?,
                message_id: MessageId(req(7)?),
                locator: req(8)?,
                author: req(9)?,
                sent_at,
                subject: get(11)?,
                claim,
                assessment,
                evidence,
                from_me: false,
                notes: Vec::new(),
            };
            f(rec)?;
        }
        Ok(())
    }

    /// The evidence item revision with this digest changed at its source
    /// (a re-fetch came back different): add a `stale` observation for every
    /// claim whose latest assessment cites it. Earlier observations stay.
    /// Idempotent: a claim already latest-`stale` gets no second one.
    /// Returns how many observations were added. Written under the current run.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; SQLite fails.
    pub fn mark_stale(&mut self, item_digest: &Digest, at: Timestamp) -> Result<u64> {
        let (run_id, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.flush()?;
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(self.err("starting to mark stale"))?;
        match self.mark_stale_in_tx(&run_id, item_digest, at) {
            Ok(n) => {
                self.conn.execute_batch("COMMIT").map_err(self.err("committing stale marks"))?;
                Ok(n)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Append one assessment of an already recorded claim under the current
    /// run (a person's reassessment, e.g. after capturing a source for an
    /// unverified claim). A new observation; nothing earlier changes.
    /// `message_digest` is the claim's [`Claim::message_digest`].
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; SQLite fails.
    pub fn append_assessment(&mut self, message_digest: &Digest, a: &Assessment) -> Result<u64> {
        let (run_id, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.flush()?;
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(self.err("starting to append an assessment"))?;
        match self.insert_assessment(&run_id, &message_digest.to_hex(), a) {
            Ok(n) => {
                self.conn.execute_batch("COMMIT").map_err(self.err("committing an assessment"))?;
                Ok(n)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    fn mark_stale_in_tx(&mut self, run_id: &RunId, item_digest: &Digest, at: Timestamp) -> Result<u64> {
        let hex = item_digest.to_hex();
        let action = "finding assessments that cite a changed item";
        let mut found: Vec<(i64, String, String)> = Vec::new();
        {
            let mut st = self
                .conn
                .prepare_cached(
                    "SELECT a.seq, a.message_digest, a.assessment_json FROM assessment_evidence ae
                     JOIN assessments a ON a.message_digest = ae.message_digest AND a.assessment_id = ae.assessment_id
                     WHERE ae.item_digest = ?1 AND a.status <> 'stale'
                       AND a.seq = (SELECT max(seq) FROM assessments b WHERE b.message_digest = a.message_digest AND b.claim_id = a.claim_id)
                     ORDER BY a.seq",
                )
                .map_err(self.err(action))?;
            let rows = st.query_map([&hex], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(self.err(action))?;
            for r in rows {
                found.push(r.map_err(self.err(action))?);
            }
        }
        let mut added = 0;
        for (seq, message_digest, json) in found {
            let prev: Assessment = self.decode("assessments", &seq.to_string(), &json)?;
            let evidence: Vec<_> = cited_evidence(&prev).into_iter().filter(|e| e.item_digest == *item_digest).collect();
            let stale = Assessment {
                claim: prev.claim,
                status: Status::Stale,
                method: STALE_METHOD.to_string(),
                reasons: vec![Reason {
                    facet: "freshness".to_string(),
                    detail: format!(
                        "the source of evidence revision {} changed after the claim was assessed {} by {}",
                        item_digest.short(12),
                        prev.status.as_str(),
                        prev.method
                    ),
                    claim_span: None,
                    evidence,
                    rule: "ledger.source_changed".to_string(),
                }],
                gate: prev.gate.clone(),
                assessed_at: at.to_string(),
                policy_version: prev.policy_version.clone(),
            };
            added += self.insert_assessment(run_id, &message_digest, &stale)?;
        }
        Ok(added)
    }
}

impl Drop for Ledger {
    fn drop(&mut self) {
        // Every buffered message is complete, so writing the batch on a
        // normal drop keeps work a later error would otherwise throw away.
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests;
