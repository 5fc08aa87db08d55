//! The ledger's tables, as versioned migrations. This module is the only
//! place that writes DDL for them.
//!
//! The file is shared: the recall index keeps its `wiki_*` FTS5 tables in
//! the same `ledger.sqlite`, so that indexing and recording a run can commit
//! together (DESIGN.md, "Local recall"). The ledger never touches those
//! tables, and its own version lives in `schema_version` under the component
//! name [`COMPONENT`] rather than in `PRAGMA user_version`, which is one
//! number per file and so cannot serve two owners.

/// The ledger's name in `schema_version`.
pub(crate) const COMPONENT: &str = "ledger";

/// Tables the ledger owns: a database that has one of them but no
/// `schema_version` row for [`COMPONENT`] was written by something else.
pub(crate) const OWN_TABLES: [&str; 8] =
    ["runs", "messages_seen", "message_assessed", "claims", "evidence_revisions", "assessments", "assessment_evidence", "skipped"];

/// `schema_version` itself: created before any migration runs.
pub(crate) const VERSION_TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_version (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)";

/// Migrations in order; entry `i` brings the schema to version `i + 1`.
/// Append only: a released migration is never edited.
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

/// The version this build writes.
pub(crate) fn latest_version() -> i64 {
    MIGRATIONS.len() as i64
}
