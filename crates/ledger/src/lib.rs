//! `amem-ledger`: the SQLite ledger at `$AMEM_HOME/ledger.sqlite`, and the
//! home lock.
//!
//! Where it sits: after verification and the gate, before the report sinks
//! (docs/architecture.md, "Data flow"). It takes [`Message`]s, [`Claim`]s and
//! [`Assessment`]s and keeps them as observations: runs, messages seen (by
//! digest), claims, evidence item revisions, and assessments, which are
//! **append-only** (SQL triggers refuse `UPDATE` and `DELETE` on them; "the
//! latest per claim" is a query, history stays). It gives back what nightly
//! runs need: [`Ledger::is_assessed`] (skip messages already assessed under
//! the same policy version), [`Ledger::latest_assessments`] and
//! [`Ledger::for_each_latest`] (report rows rebuilt as
//! [`amem_records::AuditRecord`]s),
//! and [`Ledger::mark_stale`] (new `stale` observations when an evidence
//! source changed).
//!
//! Compact (schema 4): assessments are rows and columns (status, method,
//! gate verdict; one row per reason, per cited evidence span, per gate
//! flag), not JSON; names that repeat on every row (methods, rules, facets,
//! policies, archive paths) are stored once and referred to by number; and
//! evidence is kept **by reference**: the item revision, the chunk, the span
//! and a check digest of the quote, not the quote. A reader gives the
//! ledger a [`QuoteSource`] (the wiki index) to read quotes back; a quote
//! whose item is no longer at the cited revision, or whose text no longer
//! matches the check, comes back as [`QUOTE_UNAVAILABLE`], never as other
//! text. Quotes that are not a verbatim slice of their chunk, and quotes
//! carried over from an older schema, are kept inline.
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
//! Recording the same thing twice leaves one row (messages by digest,
//! claims by id, assessments by a digest of their content).
//!
//! The file also holds the recall index's `wiki_*` tables; the ledger never
//! touches them (see the `schema` module).
//!
//! Modules: `schema` (tables, opening, migrations), `write` (batches and
//! records), `read` (queries), `lock` (the home lock).
//!
//! ```no_run
//! use amem_ledger::{HomeLock, Ledger, MessageOutcome, NoQuotes, Scope};
//! # fn run(home: &std::path::Path, info: amem_records::RunInfo, msg: amem_records::Message,
//! #        claims: Vec<amem_records::Claim>, assessments: Vec<amem_records::Assessment>,
//! #        summary: amem_records::RunSummary) -> amem_ledger::Result<()> {
//! let _lock = HomeLock::acquire(home, "amem audit chat-history")?;
//! let mut ledger = Ledger::open(&home.join("ledger.sqlite"))?;
//! ledger.begin_run(&info)?;
//! if !ledger.is_assessed(&msg.digest(), &info.params.policy_version)? {
//!     ledger.record(&MessageOutcome { message: &msg, claims: &claims, assessments: &assessments, skipped: &[] })?;
//! }
//! ledger.finish_run(&summary)?;
//! let latest = ledger.latest_assessments(Scope::Run(&info.run_id), &NoQuotes)?;
//! # let _ = latest; Ok(()) }
//! ```
#![deny(missing_docs)]

mod error;
mod lock;
mod read;
mod rebuild;
mod schema;
mod write;

pub use error::{Error, Result};
pub use lock::{DAMAGED_LOCK_GRACE, HomeLock, LOCK_FILE, LockHolder};
pub use read::{ROWS_PER_REBUILD, RowHead};

use amem_records::{AmemUri, Assessment, Claim, ClaimKind, Digest, Message, RunId, Skipped};
use rusqlite::{Connection, ErrorCode};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The ledger's file name inside `$AMEM_HOME`.
pub const LEDGER_FILE: &str = "ledger.sqlite";

/// The method name of the `stale` observations [`Ledger::mark_stale`] adds.
pub const STALE_METHOD: &str = "ledger.source_changed@1";

/// The quote text of evidence whose quote cannot be read back: the cited
/// item is no longer at the revision the verdict cited (or is gone), or its
/// text at that span no longer matches the check digest recorded with it.
/// Shown instead of the quote, so a changed note never reads as the quote.
pub const QUOTE_UNAVAILABLE: &str = "[quote unavailable: the cited note is no longer at the revision this verdict rests on]";

/// Where quotes are read back from: the text of a chunk at one item
/// revision. The wiki index implements it (the audit pipeline wraps it);
/// [`NoQuotes`] knows no chunk.
pub trait QuoteSource {
    /// The text of the chunk `uri` names, if the item is at revision
    /// `item_digest` now; `None` when it changed, is gone, or is unknown.
    fn chunk_text(&self, uri: &AmemUri, item_digest: &Digest) -> Option<String>;

    /// The text at `span` of that chunk (byte offsets), when there is such
    /// text. A source that keeps chunks can give the slice without copying
    /// the whole chunk first (the report pass reads a quote per evidence row).
    fn chunk_slice(&self, uri: &AmemUri, item_digest: &Digest, span: amem_records::Span) -> Option<String> {
        self.chunk_text(uri, item_digest).and_then(|text| text.get(span.start..span.end).map(str::to_string))
    }
}

/// A [`QuoteSource`] that knows no chunk: quotes kept by reference read
/// back as [`QUOTE_UNAVAILABLE`] (quotes kept inline still read back).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoQuotes;

impl QuoteSource for NoQuotes {
    fn chunk_text(&self, _: &AmemUri, _: &Digest) -> Option<String> {
        None
    }
}

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
        // indexes (messages seen, evidence by revision). Measured with schema
        // version 2, whose content-digest keys spread a batch over the whole
        // file, recording the 11,238 Enron mails of the audit bench cost
        // 1,657 µs per message in batches of 200, 910 in batches of 1,000,
        // 858 in batches of 5,000 (`stage_costs` example); schemas 3 and 4
        // key by message, which shrank that spread, and kept the batch size.
        // The age bound keeps the work a kill loses to about two seconds,
        // and the buffer to a few tens of MB.
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
    /// Numbers already looked up or given out: names (`names` table), run
    /// numbers, evidence revisions. Only what a committed transaction wrote
    /// is kept: a rolled-back batch clears them (see `write::rollback`).
    ids: Ids,
}

/// The number each interned thing has in this file.
#[derive(Debug, Default)]
struct Ids {
    names: HashMap<String, i64>,
    runs: HashMap<String, i64>,
    /// Evidence revisions by item digest, then item.
    revisions: HashMap<Digest, Vec<(String, i64)>>,
    /// Texts by their SHA-256 (see `write::text_id`).
    texts: HashMap<Digest, i64>,
    /// What readers looked up by number (see `rebuild`).
    read: std::cell::RefCell<rebuild::ReadCache>,
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
    Copy {
        run: RunId,
        original: Digest,
        archive: String,
        locator: String,
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
    /// Copies of messages this run found and did not audit again
    /// ([`Ledger::record_copy`]).
    pub copies: u64,
    /// Quoted and forwarded text in the messages this run recorded.
    pub quoted: amem_records::QuotedTally,
}

/// The error for a failed SQLite call. The path and action are copied only
/// when it fails: `map_err(self.err(..))` is on every row read and write,
/// and copying them each time was a measurable part of the report pass.
fn map_sql<'a>(path: &'a Path, action: &'a str, busy: Duration) -> impl FnOnce(rusqlite::Error) -> Error + 'a {
    move |e| match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::NotADatabase { path: path.to_path_buf(), source: e },
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            Error::Busy { path: path.to_path_buf(), waited_ms: busy.as_millis() as u64 }
        }
        _ => Error::Sqlite { path: path.to_path_buf(), action: action.to_string(), source: e },
    }
}

fn encode<T: serde::Serialize>(what: &str, v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|source| Error::Encode { what: what.to_string(), source })
}

impl Ledger {
    fn err<'a>(&'a self, action: &'a str) -> impl FnOnce(rusqlite::Error) -> Error + 'a {
        map_sql(&self.path, action, self.opts.busy_timeout)
    }

    fn corrupt(&self, table: &str, row: &str, reason: impl Into<String>) -> Error {
        Error::Corrupt { path: self.path.clone(), table: table.to_string(), row: row.to_string(), reason: reason.into() }
    }

    fn decode<T: serde::de::DeserializeOwned>(&self, table: &str, row: &str, json: &str) -> Result<T> {
        serde_json::from_str(json).map_err(|e| self.corrupt(table, row, e.to_string()))
    }

    /// The ledger file.
    pub fn path(&self) -> &Path {
        &self.path
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
