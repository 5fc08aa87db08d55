//! The ledger's tables, as versioned migrations. This module is the only
//! place that writes DDL for them.
//!
//! The file is shared: the recall index keeps its `wiki_*` FTS5 tables in
//! the same `ledger.sqlite`, so that indexing and recording a run can commit
//! together (docs/architecture.md, "Local recall and the wiki"). The ledger never touches those
//! tables, and its own version lives in `schema_version` under the component
//! name [`COMPONENT`] rather than in `PRAGMA user_version`, which is one
//! number per file and so cannot serve two owners.

use crate::{Error, Ids, Ledger, LedgerOptions, Result, map_sql};
use amem_records::{Assessment, Claim, Digest};
use rusqlite::{Connection, ErrorCode, OptionalExtension, params};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The ledger's name in `schema_version`.
pub(crate) const COMPONENT: &str = "ledger";

/// Tables the ledger owns: a database that has one of them but no
/// `schema_version` row for [`COMPONENT`] was written by something else.
pub(crate) const OWN_TABLES: [&str; 17] = [
    "runs",
    "texts",
    "claim_counts",
    "messages_seen",
    "message_assessed",
    "claims",
    "claim_cues",
    "evidence_revisions",
    "assessments",
    "assessment_reasons",
    "assessment_evidence",
    "gate_flags",
    "skipped",
    "names",
    "message_keys",
    "message_copies",
    "message_quoted",
];

/// `schema_version` itself: created before any migration runs.
pub(crate) const VERSION_TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_version (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)";

/// Migrations written in SQL alone, in order; entry `i` brings the schema
/// to version `i + 1`. Append only: a released migration is never edited.
/// Version 4 ([`V4_SET_ASIDE`], [`V4_TABLES`], then `Ledger::copy_from_v3`)
/// decodes schema 3's JSON, which takes code.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    "
CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    started_at TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    info_json TEXT NOT NULL,
    finished_at TEXT,
    summary_json TEXT
);
CREATE TABLE messages_seen (
    digest TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    archive TEXT NOT NULL,
    conversation TEXT NOT NULL,
    message_id TEXT NOT NULL,
    locator TEXT NOT NULL,
    author TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    subject TEXT,
    first_run TEXT NOT NULL
);
CREATE INDEX messages_seen_by_id ON messages_seen (source, archive, message_id);
-- A message counts as assessed under a policy only once its claims and
-- assessments are committed with this row, in the same transaction.
CREATE TABLE message_assessed (
    digest TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    run_id TEXT NOT NULL,
    PRIMARY KEY (digest, policy_version)
) WITHOUT ROWID;
CREATE TABLE claims (
    claim_id TEXT PRIMARY KEY,
    message_digest TEXT NOT NULL,
    span_start INTEGER NOT NULL,
    span_end INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    claim_json TEXT NOT NULL
);
CREATE INDEX claims_by_message ON claims (message_digest);
CREATE TABLE evidence_revisions (
    item_digest TEXT PRIMARY KEY,
    item TEXT NOT NULL,
    captured_at TEXT,
    source_url TEXT,
    title TEXT
);
-- Append-only: seq orders observations; the latest per claim is a query.
CREATE TABLE assessments (
    seq INTEGER PRIMARY KEY,
    assessment_id TEXT NOT NULL UNIQUE,
    run_id TEXT NOT NULL,
    claim_id TEXT NOT NULL,
    status TEXT NOT NULL,
    grp TEXT NOT NULL,
    method TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    assessed_at TEXT NOT NULL,
    assessment_json TEXT NOT NULL
);
CREATE INDEX assessments_by_claim ON assessments (claim_id, seq);
CREATE INDEX assessments_by_run ON assessments (run_id, claim_id, seq);
CREATE TABLE assessment_evidence (
    assessment_id TEXT NOT NULL,
    item_digest TEXT NOT NULL,
    PRIMARY KEY (assessment_id, item_digest)
) WITHOUT ROWID;
CREATE INDEX assessment_evidence_by_item ON assessment_evidence (item_digest);
CREATE TRIGGER assessments_no_update BEFORE UPDATE ON assessments
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessments_no_delete BEFORE DELETE ON assessments
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessment_evidence_no_update BEFORE UPDATE ON assessment_evidence
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessment_evidence_no_delete BEFORE DELETE ON assessment_evidence
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TABLE skipped (
    run_id TEXT NOT NULL,
    stage TEXT NOT NULL,
    locator TEXT NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (run_id, stage, locator, reason)
) WITHOUT ROWID;
",
    // 2: `message_assessed` gets one row per run that assessed the message
    // (was: the first run only), so a `--rerun` under the same policy is
    // counted as assessing its messages, and per-run totals are a query.
    "
CREATE TABLE message_assessed_v2 (
    digest TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    run_id TEXT NOT NULL,
    PRIMARY KEY (digest, policy_version, run_id)
) WITHOUT ROWID;
INSERT INTO message_assessed_v2 (digest, policy_version, run_id) SELECT digest, policy_version, run_id FROM message_assessed;
DROP TABLE message_assessed;
ALTER TABLE message_assessed_v2 RENAME TO message_assessed;
CREATE INDEX message_assessed_by_run ON message_assessed (run_id, digest);
",
    // 3: the rows of one message sit together. Claim and assessment ids
    // are content digests: indexes led by them put every row of a message
    // on a different page, so each batch dirtied pages all over the file
    // and wrote them to the log at every commit, a cost that grew with the
    // ledger (on the 112k-message bench it wrote a few hundred MB per
    // batch). Every index on claims and assessments now starts with the
    // message digest (or the run, then the message digest), and the tables
    // themselves grow at the end (rowid order). The assessment-to-evidence
    // links are keyed by the item first, the only way they are read.
    "
CREATE TABLE claims_v3 (
    claim_id TEXT NOT NULL,
    message_digest TEXT NOT NULL,
    span_start INTEGER NOT NULL,
    span_end INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    claim_json TEXT NOT NULL
);
INSERT INTO claims_v3 (claim_id, message_digest, span_start, span_end, kind, text, claim_json)
    SELECT claim_id, message_digest, span_start, span_end, kind, text, claim_json FROM claims ORDER BY rowid;

CREATE TABLE assessments_v3 (
    seq INTEGER PRIMARY KEY,
    assessment_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    message_digest TEXT NOT NULL,
    claim_id TEXT NOT NULL,
    status TEXT NOT NULL,
    grp TEXT NOT NULL,
    method TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    assessed_at TEXT NOT NULL,
    assessment_json TEXT NOT NULL
);
INSERT INTO assessments_v3
    (seq, assessment_id, run_id, message_digest, claim_id, status, grp, method, policy_version, assessed_at, assessment_json)
    SELECT a.seq, a.assessment_id, a.run_id, coalesce((SELECT c.message_digest FROM claims c WHERE c.claim_id = a.claim_id LIMIT 1), ''),
           a.claim_id, a.status, a.grp, a.method, a.policy_version, a.assessed_at, a.assessment_json
    FROM assessments a ORDER BY a.seq;

CREATE TABLE assessment_evidence_v3 (
    item_digest TEXT NOT NULL,
    message_digest TEXT NOT NULL,
    assessment_id TEXT NOT NULL,
    PRIMARY KEY (item_digest, message_digest, assessment_id)
) WITHOUT ROWID;
INSERT INTO assessment_evidence_v3 (item_digest, message_digest, assessment_id)
    SELECT ae.item_digest, a.message_digest, ae.assessment_id
    FROM assessment_evidence ae JOIN assessments_v3 a ON a.assessment_id = ae.assessment_id;

DROP TABLE assessment_evidence;
DROP TABLE assessments;
DROP TABLE claims;
ALTER TABLE claims_v3 RENAME TO claims;
CREATE UNIQUE INDEX claims_by_message ON claims (message_digest, claim_id);
ALTER TABLE assessments_v3 RENAME TO assessments;
ALTER TABLE assessment_evidence_v3 RENAME TO assessment_evidence;
CREATE UNIQUE INDEX assessments_by_message ON assessments (message_digest, assessment_id);
CREATE INDEX assessments_by_claim ON assessments (message_digest, claim_id, seq);
CREATE INDEX assessments_by_run ON assessments (run_id, message_digest, claim_id, seq);
CREATE TRIGGER assessments_no_update BEFORE UPDATE ON assessments
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessments_no_delete BEFORE DELETE ON assessments
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessment_evidence_no_update BEFORE UPDATE ON assessment_evidence
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessment_evidence_no_delete BEFORE DELETE ON assessment_evidence
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
",
];

/// Version 4, first step: schema 3's tables are renamed `v3_*` (their
/// triggers and indexes dropped, their names are reused), to be copied
/// into the new tables and dropped.
pub(crate) const V4_SET_ASIDE: &str = "
DROP TRIGGER IF EXISTS assessments_no_update;
DROP TRIGGER IF EXISTS assessments_no_delete;
DROP TRIGGER IF EXISTS assessment_evidence_no_update;
DROP TRIGGER IF EXISTS assessment_evidence_no_delete;
DROP INDEX IF EXISTS messages_seen_by_id;
DROP INDEX IF EXISTS message_assessed_by_run;
DROP INDEX IF EXISTS claims_by_message;
DROP INDEX IF EXISTS assessments_by_message;
DROP INDEX IF EXISTS assessments_by_claim;
DROP INDEX IF EXISTS assessments_by_run;
ALTER TABLE runs RENAME TO v3_runs;
ALTER TABLE messages_seen RENAME TO v3_messages_seen;
ALTER TABLE message_assessed RENAME TO v3_message_assessed;
ALTER TABLE claims RENAME TO v3_claims;
ALTER TABLE evidence_revisions RENAME TO v3_evidence_revisions;
ALTER TABLE assessments RENAME TO v3_assessments;
ALTER TABLE assessment_evidence RENAME TO v3_assessment_evidence;
ALTER TABLE skipped RENAME TO v3_skipped;
";

/// Version 4: compact rows. Schema 3 kept every claim and assessment as a
/// JSON copy beside its columns, every cited quote verbatim inside that
/// JSON (once per reason citing it), and 64-character hex digests in every
/// key: 53 KB a message on the Enron audit bench. Now:
/// - rows refer to each other by integer (`msg`, `claim`, `seq`, `run_no`,
///   `rev`), digests are 32-byte blobs, stored once;
/// - names repeated on every row (status, method, policy, time of the
///   verdict, extractor, claim kind, facet, rule, gate verdict and check,
///   archive path) are numbers into `names`, and longer texts that repeat
///   (claim texts, reason texts, gate sentences) into `texts`: on the bench
///   185,234 reasons have 21,081 distinct texts, and 104,928 audited
///   claims 52,654 distinct ones;
/// - claims that are audited or assessed are rows (text, span, cues; the
///   32-byte id only when it is not the digest of its message, span and
///   text); the others (on the bench 60% of claims are greetings, opinions
///   and the like) are counted by kind per message, since nothing reads
///   them back;
/// - an assessment is a row of columns, with one row per reason, per
///   evidence span a reason cites, and per gate flag;
/// - evidence is a reference: revision, chunk, span, and `quote_check`
///   (the first 8 bytes of the quote's SHA-256, as a signed integer), so a
///   quote read back from the wiki is shown only when it is still the text
///   cited. `quote` holds the text only where the reference cannot give
///   it back (a quote that is not a verbatim slice of its chunk, rows
///   carried over from schema 3);
/// - an assessment's identity is `content` (8 bytes of a digest of every
///   field) within its run and claim, so recording it twice adds nothing.
pub(crate) const V4_TABLES: &str = "
CREATE TABLE names (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
-- Longer texts that repeat (claim texts, reason texts, gate sentences),
-- stored once; `key` is the first 8 bytes of the text's SHA-256 (the next
-- free one on a collision), so the index does not hold the text again.
CREATE TABLE texts (
    id INTEGER PRIMARY KEY,
    key INTEGER NOT NULL UNIQUE,
    text TEXT NOT NULL
);
CREATE TABLE runs (
    run_no INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    started_at TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    info_json TEXT NOT NULL,
    finished_at TEXT,
    summary_json TEXT
);
CREATE TABLE messages_seen (
    msg INTEGER PRIMARY KEY,
    digest BLOB NOT NULL UNIQUE,
    source TEXT NOT NULL,
    archive INTEGER NOT NULL,
    conversation TEXT NOT NULL,
    message_id TEXT NOT NULL,
    locator TEXT NOT NULL,
    author TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    subject TEXT,
    first_run INTEGER
);
-- A message counts as assessed under a policy only once its claims and
-- assessments are committed with this row, in the same transaction.
CREATE TABLE message_assessed (
    msg INTEGER NOT NULL,
    policy INTEGER NOT NULL,
    run_no INTEGER NOT NULL,
    PRIMARY KEY (msg, policy, run_no)
) WITHOUT ROWID;
CREATE INDEX message_assessed_by_run ON message_assessed (run_no, msg);
-- Claims that are audited or assessed. `id_key` is the first 8 bytes of
-- the claim id; `claim_id` holds the whole id only when it is not
-- `Claim::id_for(message digest, span, text)`.
CREATE TABLE claims (
    claim INTEGER PRIMARY KEY,
    msg INTEGER NOT NULL,
    id_key INTEGER NOT NULL,
    span_start INTEGER NOT NULL,
    span_end INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    extractor INTEGER NOT NULL,
    text INTEGER NOT NULL,
    claim_id BLOB
);
-- Claims never audited (greetings, opinions, ...), counted by kind: nothing
-- reads them back.
CREATE TABLE claim_counts (
    msg INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (msg, kind)
) WITHOUT ROWID;
CREATE UNIQUE INDEX claims_by_message ON claims (msg, id_key);
-- `text` is NULL when it is the claim text at the span (always, today).
CREATE TABLE claim_cues (
    claim INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    class TEXT NOT NULL,
    text TEXT,
    span_start INTEGER NOT NULL,
    span_end INTEGER NOT NULL,
    rule INTEGER NOT NULL,
    PRIMARY KEY (claim, ord)
) WITHOUT ROWID;
CREATE TABLE evidence_revisions (
    rev INTEGER PRIMARY KEY,
    item_digest BLOB NOT NULL,
    item TEXT NOT NULL,
    captured_at TEXT,
    source_url TEXT,
    title TEXT,
    UNIQUE (item_digest, item)
);
-- Append-only: seq orders observations; the latest per claim is a query.
CREATE TABLE assessments (
    seq INTEGER PRIMARY KEY,
    run_no INTEGER NOT NULL,
    claim INTEGER NOT NULL,
    status INTEGER NOT NULL,
    method INTEGER NOT NULL,
    policy INTEGER NOT NULL,
    assessed_at INTEGER NOT NULL,
    gate INTEGER,
    content INTEGER NOT NULL
);
CREATE INDEX assessments_by_claim ON assessments (claim, seq);
CREATE UNIQUE INDEX assessments_by_run ON assessments (run_no, claim, content);
CREATE TABLE assessment_reasons (
    seq INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    facet INTEGER NOT NULL,
    rule INTEGER NOT NULL,
    detail INTEGER NOT NULL,
    claim_start INTEGER,
    claim_end INTEGER,
    PRIMARY KEY (seq, ord)
) WITHOUT ROWID;
CREATE TABLE assessment_evidence (
    seq INTEGER NOT NULL,
    reason INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    rev INTEGER NOT NULL,
    chunk INTEGER,
    span_start INTEGER NOT NULL,
    span_end INTEGER NOT NULL,
    quote_check INTEGER NOT NULL,
    quote TEXT,
    PRIMARY KEY (seq, reason, ord)
) WITHOUT ROWID;
CREATE INDEX assessment_evidence_by_revision ON assessment_evidence (rev, seq);
CREATE TABLE gate_flags (
    seq INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    flag_check INTEGER NOT NULL,
    rule INTEGER NOT NULL,
    cue TEXT NOT NULL,
    source_start INTEGER NOT NULL,
    source_end INTEGER NOT NULL,
    source_sentence INTEGER NOT NULL,
    memory_sentence INTEGER NOT NULL,
    PRIMARY KEY (seq, ord)
) WITHOUT ROWID;
CREATE TABLE skipped (
    run_no INTEGER NOT NULL,
    stage TEXT NOT NULL,
    locator TEXT NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (run_no, stage, locator, reason)
) WITHOUT ROWID;
CREATE TRIGGER assessments_no_update BEFORE UPDATE ON assessments
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessments_no_delete BEFORE DELETE ON assessments
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessment_reasons_no_update BEFORE UPDATE ON assessment_reasons
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessment_reasons_no_delete BEFORE DELETE ON assessment_reasons
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessment_evidence_no_update BEFORE UPDATE ON assessment_evidence
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER assessment_evidence_no_delete BEFORE DELETE ON assessment_evidence
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER gate_flags_no_update BEFORE UPDATE ON gate_flags
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
CREATE TRIGGER gate_flags_no_delete BEFORE DELETE ON gate_flags
BEGIN SELECT RAISE(ABORT, 'assessments are append-only: record a new observation instead'); END;
";

/// Schema 3's tables, dropped once copied.
const V4_DROP_V3: &str = "
DROP TABLE v3_assessment_evidence;
DROP TABLE v3_assessments;
DROP TABLE v3_claims;
DROP TABLE v3_evidence_revisions;
DROP TABLE v3_message_assessed;
DROP TABLE v3_messages_seen;
DROP TABLE v3_skipped;
DROP TABLE v3_runs;
";

/// Migrations after version 4, in SQL alone, in order; entry `i` brings the
/// schema to version `i + 5`. Append only, like [`MIGRATIONS`].
pub(crate) const LATER_MIGRATIONS: &[&str] = &[
    // 5: each mail once. A message's copy keys (`Message::copy_keys`: its
    // Message-ID, its content) point at the message recorded under them, so
    // a copy filed elsewhere, read in this run or a later one, is known as
    // one; `message_copies` lists where each run found copies of a message
    // (by the original's digest: the original may be recorded after its
    // copy, while it waits on the trust list). Messages recorded before
    // this version have no keys: a copy of one is audited once more.
    // Quoted and forwarded text kept apart from the author's words is
    // counted per message (`message_quoted`), so a run's report can say
    // what it did not audit; a forwarded part audited as its author's
    // message (`--include-forwarded`) records its forwarder.
    "
CREATE TABLE message_keys (
    key BLOB PRIMARY KEY,
    msg INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE message_copies (
    run_no INTEGER NOT NULL,
    original BLOB NOT NULL,
    archive INTEGER NOT NULL,
    locator TEXT NOT NULL,
    PRIMARY KEY (run_no, original, archive, locator)
) WITHOUT ROWID;
CREATE TABLE message_quoted (
    msg INTEGER PRIMARY KEY,
    reply_chars INTEGER NOT NULL,
    forward_chars INTEGER NOT NULL
);
ALTER TABLE messages_seen ADD COLUMN forwarded_by TEXT;
",
];

/// The version schema 4 (the one migration that takes code) brings a ledger to.
const CODED_VERSION: i64 = MIGRATIONS.len() as i64 + 1;

/// The version this build writes.
pub(crate) fn latest_version() -> i64 {
    CODED_VERSION + LATER_MIGRATIONS.len() as i64
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
        // 16 MiB page cache (SQLite's default is 2 MiB): a batch touches
        // pages of several indexes at once, and a small cache turns them
        // into page reloads. Bounded, so memory stays flat.
        conn.execute_batch("PRAGMA foreign_keys=ON; PRAGMA cache_size=-16384").map_err(map_sql(
            &path,
            "configuring the connection",
            busy,
        ))?;
        // Room for every statement the ledger prepares (rusqlite keeps 16 by
        // default): writing a batch uses about 50 (the multi-row inserts
        // have one shape per row count) and the report's rebuild 10 more; an
        // evicted statement is compiled again on its next use.
        conn.set_prepared_statement_cache_capacity(128);
        // The query planner stability guarantee (as the recall index sets it):
        // a plan never depends on the values bound to it. Without it SQLite
        // marks the joined lookups (`... WHERE a.seq = ?1`) as value-dependent,
        // and every `prepare_cached` statement, whose bindings are cleared when
        // it goes back to the cache, was compiled again on its next step: 15%
        // of the whole audit's CPU on the Enron bench, most of the report pass
        // (about 58 µs a lookup, 9 µs with it).
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).map_err(map_sql(
            &path,
            "configuring the connection",
            busy,
        ))?;
        let mut ledger =
            Ledger { conn, path, opts, run: None, buffer: Vec::new(), buffered: HashSet::new(), buffer_since: None, ids: Ids::default() };
        ledger.migrate()?;
        Ok(ledger)
    }

    /// The schema version in the file.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn schema_version(&self) -> Result<i64> {
        self.conn
            .query_row("SELECT version FROM schema_version WHERE component = ?1", [COMPONENT], |r| r.get(0))
            .map_err(self.err("reading the schema version"))
    }

    fn migrate(&mut self) -> Result<()> {
        // Fast path, read-only: an up-to-date ledger needs no write lock, so
        // a second connection (the pipeline's reader) opens even while the
        // writer is committing a batch.
        let up_to_date =
            self.conn.query_row("SELECT version FROM schema_version WHERE component = ?1", [COMPONENT], |r| r.get::<_, i64>(0)).optional();
        match up_to_date {
            Ok(Some(v)) if v == latest_version() => return Ok(()),
            Ok(Some(v)) if v > latest_version() => {
                return Err(Error::TooNew { path: self.path.clone(), found: v, known: latest_version() });
            }
            Err(e)
                if matches!(e.sqlite_error_code(), Some(ErrorCode::NotADatabase | ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)) =>
            {
                return Err(self.err("reading the schema version")(e));
            }
            // Older, absent, or no such table (a fresh or foreign file): the slow path decides.
            _ => {}
        }
        // IMMEDIATE: two processes opening a fresh file at once must not
        // both migrate. The whole migration is this one transaction: a
        // failure (or a kill) leaves the file at its old version.
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(self.err("starting the migration"))?;
        let result = self.migrate_in_tx();
        match result {
            Ok(()) => self.conn.execute_batch("COMMIT").map_err(self.err("committing the migration")),
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                self.ids = Ids::default();
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
                .query_row("SELECT version FROM schema_version WHERE component = ?1", [COMPONENT], |r| r.get(0))
                .optional()
                .map_err(self.err("reading the schema version"))?
                .unwrap_or(0);
        }
        if current == 0 {
            for t in OWN_TABLES {
                let exists: i64 = self
                    .conn
                    .query_row("SELECT count(*) FROM sqlite_master WHERE name = ?1", [t], |r| r.get(0))
                    .map_err(self.err("reading the schema"))?;
                if exists > 0 {
                    return Err(Error::Foreign { path: self.path.clone(), table: t.to_string() });
                }
            }
        }
        let known = latest_version();
        if current > known {
            return Err(Error::TooNew { path: self.path.clone(), found: current, known });
        }
        self.conn.execute_batch(VERSION_TABLE).map_err(self.err("creating schema_version"))?;
        for v in (current + 1)..=known {
            let action = format!("migrating to version {v}");
            if v == CODED_VERSION {
                self.conn.execute_batch(V4_SET_ASIDE).map_err(self.err(&action))?;
                self.conn.execute_batch(V4_TABLES).map_err(self.err(&action))?;
                self.copy_from_v3()?;
                self.conn.execute_batch(V4_DROP_V3).map_err(self.err(&action))?;
            } else {
                let sql =
                    if v < CODED_VERSION { MIGRATIONS.get(v as usize - 1) } else { LATER_MIGRATIONS.get((v - CODED_VERSION - 1) as usize) };
                let sql = sql.ok_or_else(|| self.corrupt("schema_version", &v.to_string(), "no migration to this version"))?;
                self.conn.execute_batch(sql).map_err(self.err(&action))?;
            }
            self.conn
                .execute(
                    "INSERT INTO schema_version (component, version) VALUES (?1, ?2)
                     ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                    params![COMPONENT, v],
                )
                .map_err(self.err(&format!("recording version {v}")))?;
        }
        Ok(())
    }

    /// Copy schema 3's rows (set aside as `v3_*`) into schema 4's tables:
    /// runs, messages and skips by SQL, claims and assessments decoded from
    /// their JSON and written as the write path writes them (in their old
    /// order: `seq` is kept, so "latest" is unchanged), with every quote
    /// kept inline (the wiki may have moved on since they were cited).
    fn copy_from_v3(&mut self) -> Result<()> {
        let action = "copying schema 3's rows";
        self.conn
            .execute_batch(
                "INSERT INTO runs (run_id, started_at, policy_version, info_json, finished_at, summary_json)
                     SELECT run_id, started_at, policy_version, info_json, finished_at, summary_json FROM v3_runs ORDER BY rowid;",
            )
            .map_err(self.err(action))?;
        // Messages.
        let rows: Vec<[Option<String>; 10]> = {
            let mut st = self
                .conn
                .prepare(
                    "SELECT digest, source, archive, conversation, message_id, locator, author, sent_at, subject, first_run
                     FROM v3_messages_seen ORDER BY rowid",
                )
                .map_err(self.err(action))?;
            let it = st
                .query_map([], |r| {
                    Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?])
                })
                .map_err(self.err(action))?;
            it.collect::<rusqlite::Result<_>>().map_err(self.err(action))?
        };
        for [digest, source, archive, conversation, message_id, locator, author, sent_at, subject, first_run] in rows {
            let hex = digest.unwrap_or_default();
            let d = Digest::from_hex(&hex).ok_or_else(|| self.corrupt("messages_seen", &hex, "digest is not 64 hex characters"))?;
            let archive = self.name_id(&archive.unwrap_or_default())?;
            let first_run = match first_run {
                Some(r) => self.run_no_of(&r)?,
                None => None,
            };
            self.conn
                .execute(
                    "INSERT OR IGNORE INTO messages_seen
                     (digest, source, archive, conversation, message_id, locator, author, sent_at, subject, first_run)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![
                        d.0.as_slice(),
                        source.unwrap_or_default(),
                        archive,
                        conversation.unwrap_or_default(),
                        message_id.unwrap_or_default(),
                        locator.unwrap_or_default(),
                        author.unwrap_or_default(),
                        sent_at.unwrap_or_default(),
                        subject,
                        first_run
                    ],
                )
                .map_err(self.err(action))?;
        }
        // The "assessed under policy P by run R" marks.
        let marks: Vec<(String, String, String)> = {
            let mut st = self
                .conn
                .prepare("SELECT digest, policy_version, run_id FROM v3_message_assessed ORDER BY digest, policy_version, run_id")
                .map_err(self.err(action))?;
            let it = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(self.err(action))?;
            it.collect::<rusqlite::Result<_>>().map_err(self.err(action))?
        };
        for (hex, policy, run) in marks {
            let Some(d) = Digest::from_hex(&hex) else {
                return Err(self.corrupt("message_assessed", &hex, "digest is not 64 hex characters"));
            };
            // A mark without its message row (written by hand, or by a
            // version that allowed it) keeps its meaning: the message is
            // known by digest only.
            let msg = match self.msg_of(&d)? {
                Some(m) => m,
                None => self.insert_bare_message(&d)?,
            };
            let policy = self.name_id(&policy)?;
            let run_no = self.run_no_or_insert(&run)?;
            self.conn
                .execute("INSERT OR IGNORE INTO message_assessed (msg, policy, run_no) VALUES (?1, ?2, ?3)", params![msg, policy, run_no])
                .map_err(self.err(action))?;
        }
        // Claims, from their JSON.
        let claims: Vec<(i64, String)> = {
            let mut st = self.conn.prepare("SELECT rowid, claim_json FROM v3_claims ORDER BY rowid").map_err(self.err(action))?;
            let it = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(self.err(action))?;
            it.collect::<rusqlite::Result<_>>().map_err(self.err(action))?
        };
        for (rowid, json) in claims {
            let c: Claim = self.decode("claims", &rowid.to_string(), &json)?;
            let msg = match self.msg_of(&c.message_digest)? {
                Some(m) => m,
                None => self.insert_bare_message(&c.message_digest)?,
            };
            self.insert_claim(msg, &c)?;
        }
        // Assessments, in their order.
        let assessments: Vec<(i64, String, String, String)> = {
            let mut st = self
                .conn
                .prepare("SELECT seq, run_id, message_digest, assessment_json FROM v3_assessments ORDER BY seq")
                .map_err(self.err(action))?;
            let it = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).map_err(self.err(action))?;
            it.collect::<rusqlite::Result<_>>().map_err(self.err(action))?
        };
        for (seq, run, hex, json) in assessments {
            let a: Assessment = self.decode("assessments", &seq.to_string(), &json)?;
            let Some(d) = Digest::from_hex(&hex) else {
                return Err(self.corrupt("assessments", &seq.to_string(), "message digest is not 64 hex characters"));
            };
            let run_no = self.run_no_or_insert(&run)?;
            let Some(claim) = self.claim_of(&d, &a.claim)? else {
                return Err(self.corrupt("assessments", &seq.to_string(), "it assesses a claim that is not in `claims`"));
            };
            self.insert_assessment_at(run_no, claim, &a, Some(seq), true)?;
        }
        self.conn
            .execute_batch(
                "INSERT OR IGNORE INTO skipped (run_no, stage, locator, reason)
                     SELECT r.run_no, s.stage, s.locator, s.reason FROM v3_skipped s JOIN runs r ON r.run_id = s.run_id;",
            )
            .map_err(self.err(action))?;
        Ok(())
    }
}
