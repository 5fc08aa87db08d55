use super::*;
use amem_records::{AmemUri, ClaimKind, Cue, CueClass, Evidence, GateFlag, GateSummary, GateVerdict, Group, RunParams, RunSource, Span};
use amem_records::{AuditRecord, Message, MessageId, Reason, RunInfo, RunSummary, SourceKind, Status, cited_evidence};
use jiff::Timestamp;
use rusqlite::{Connection, params};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

fn message(n: u32) -> Message {
    Message {
        source: SourceKind::GMAIL,
        archive: "mail.mbox".into(),
        conversation: format!("thread-{}", n % 2),
        id: MessageId(format!("<m{n}@example.org>")),
        author: "Alice <alice@example.org>".into(),
        recipients: vec![],
        sent_at: format!("2024-01-0{}T10:00:00Z", 1 + n % 9).parse().unwrap(),
        subject: Some("Plans".into()),
        text: format!("The launch moved to Friday, message {n}."),
        quoted: vec![],
        locator: format!("mail.mbox:byte {}", n * 100),
        meta: BTreeMap::new(),
        not_claims: None,
    }
}

fn claim(m: &Message) -> Claim {
    let span = Span::new(0, m.text.len());
    let d = m.digest();
    Claim {
        id: Claim::id_for(&d, span, &m.text),
        message: m.id.clone(),
        message_digest: d,
        span,
        text: m.text.clone(),
        kind: ClaimKind::Date,
        cues: vec![],
        extractor: "rules@1".into(),
    }
}

fn evidence(item: &str, rev: &[u8]) -> Evidence {
    Evidence {
        uri: AmemUri::chunk(item, 0),
        quote: "The launch is on Friday.".into(),
        span: Span::new(0, 24),
        item_digest: Digest::of(rev),
        captured_at: Some("2024-01-01T00:00:00Z".into()),
        written_at: None,
        source_url: None,
        title: Some("Launch notes".into()),
    }
}

/// The wiki as the tests know it: every item's chunk 0 holds the quote of
/// [`evidence`], at the revisions the tests cite.
struct TestQuotes;

impl QuoteSource for TestQuotes {
    fn chunk_text(&self, uri: &AmemUri, item_digest: &Digest) -> Option<String> {
        let known = [Digest::of(b"rev1"), Digest::of(b"rev2"), Digest::of(b"other-rev")];
        (uri.chunk == Some(0) && known.contains(item_digest)).then(|| "The launch is on Friday.".to_string())
    }
}

fn quotes() -> TestQuotes {
    TestQuotes
}

fn assessment(c: &Claim, status: Status, ev: Vec<Evidence>, at: &str) -> Assessment {
    Assessment {
        claim: c.id,
        status,
        method: "deterministic@1".into(),
        reasons: vec![Reason { facet: "date".into(), detail: "matched".into(), claim_span: None, evidence: ev, rule: "date.match".into() }],
        gate: Some(GateSummary { verdict: GateVerdict::Pass, flags: vec![] }),
        assessed_at: at.into(),
        policy_version: "policy@1".into(),
    }
}

fn run_info(id: &str) -> RunInfo {
    let t: Timestamp = "2024-02-01T00:00:00Z".parse().unwrap();
    RunInfo {
        run_id: RunId(id.into()),
        started_at: t,
        params: RunParams {
            sources: vec![RunSource { kind: SourceKind::GMAIL, path: "mail.mbox".into() }],
            since: None,
            until: None,
            now: t,
            offline: true,
            policy_version: "policy@1".into(),
            home: "home".into(),
            who: amem_records::Who::All,
            include_bulk: false,
            include_forwarded: false,
            shard: None,
            reassess: false,
        },
    }
}

fn record_one(l: &mut Ledger, n: u32, status: Status) -> (Message, Claim, Assessment) {
    let m = message(n);
    let c = claim(&m);
    let a = assessment(&c, status, vec![evidence("notes", b"rev1")], "2024-02-01T00:00:00Z");
    l.record(&MessageOutcome { message: &m, claims: std::slice::from_ref(&c), assessments: std::slice::from_ref(&a), skipped: &[] })
        .unwrap();
    (m, c, a)
}

fn count(l: &Ledger, table: &str) -> i64 {
    l.conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

#[test]
fn migrates_an_empty_file_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    std::fs::write(&path, b"").unwrap();
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), schema::latest_version());
    let mode: String = l.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    drop(l);
    // Reopening applies nothing twice.
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), schema::latest_version());
}

#[test]
fn leaves_other_components_tables_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    {
        let c = Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL);
             INSERT INTO schema_version VALUES ('recall', 3);
             CREATE VIRTUAL TABLE wiki_chunks USING fts5(body);
             INSERT INTO wiki_chunks VALUES ('hello');",
        )
        .unwrap();
    }
    let l = Ledger::open(&path).unwrap();
    assert_eq!(count(&l, "wiki_chunks"), 1);
    let recall: i64 = l.conn.query_row("SELECT version FROM schema_version WHERE component='recall'", [], |r| r.get(0)).unwrap();
    assert_eq!(recall, 3);
}

#[test]
fn newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    drop(Ledger::open(&path).unwrap());
    Connection::open(&path).unwrap().execute_batch("UPDATE schema_version SET version = 99 WHERE component = 'ledger'").unwrap();
    let err = Ledger::open(&path).unwrap_err();
    assert!(matches!(err, Error::TooNew { found: 99, .. }), "{err}");
    assert!(err.to_string().contains("upgrade amem"), "{err}");
}

#[test]
fn not_a_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    std::fs::write(&path, "this is a text file, not SQLite, and it is long enough to have a header.\n".repeat(20)).unwrap();
    let err = Ledger::open(&path).unwrap_err();
    assert!(matches!(err, Error::NotADatabase { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("ledger.sqlite") && msg.contains("not an SQLite database"), "{msg}");
}

#[test]
fn foreign_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    Connection::open(&path).unwrap().execute_batch("CREATE TABLE runs (id INTEGER, mileage REAL)").unwrap();
    let err = Ledger::open(&path).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Foreign { ref table, .. } if table == "runs"), "{msg}");
    assert!(msg.contains("not an amem ledger"), "{msg}");
    // The foreign table is untouched.
    let n: i64 = Connection::open(&path).unwrap().query_row("SELECT count(*) FROM pragma_table_info('runs')", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 2);
}

#[test]
fn locked_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("PRAGMA locking_mode=EXCLUSIVE; CREATE TABLE x (a); BEGIN EXCLUSIVE; INSERT INTO x VALUES (1);").unwrap();
    let opts = LedgerOptions { busy_timeout: Duration::from_millis(50), ..LedgerOptions::default() };
    let err = Ledger::open_with(&path, opts).unwrap_err();
    assert!(matches!(err, Error::Busy { waited_ms: 50, .. }), "{err:?}");
    assert!(err.to_string().contains("locked by another process"), "{err}");
    holder.execute_batch("COMMIT").unwrap();
}

#[test]
fn assessments_are_append_only() {
    let mut l = Ledger::open_in_memory().unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    record_one(&mut l, 1, Status::Supported);
    l.flush().unwrap();
    let upd = l.conn.execute("UPDATE assessments SET status = 'contradicted'", []);
    assert!(upd.unwrap_err().to_string().contains("append-only"));
    let del = l.conn.execute("DELETE FROM assessments", []);
    assert!(del.unwrap_err().to_string().contains("append-only"));
    assert!(l.conn.execute("DELETE FROM assessment_evidence", []).is_err());
    assert_eq!(count(&l, "assessments"), 1);
}

#[test]
fn re_recording_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let opts = LedgerOptions { batch_messages: 3, ..LedgerOptions::default() };
    {
        let mut l = Ledger::open_with(&path, opts.clone()).unwrap();
        l.begin_run(&run_info("r1")).unwrap();
        for n in 0..5 {
            record_one(&mut l, n, Status::Supported);
        }
        l.record_skipped(&Skipped { stage: "import".into(), locator: "bad.mbox:byte 9".into(), reason: "truncated".into() }).unwrap();
        // Dropped without finish_run: the open batch is still committed.
    }
    let mut l = Ledger::open_with(&path, opts).unwrap();
    // A restarted run with the same id re-records the same things.
    l.begin_run(&run_info("r1")).unwrap();
    for n in 0..5 {
        let m = message(n);
        assert!(l.is_assessed(&m.digest(), "policy@1").unwrap());
        assert!(!l.is_assessed(&m.digest(), "policy@2").unwrap());
        let c = claim(&m);
        let a = assessment(&c, Status::Supported, vec![evidence("notes", b"rev1")], "2024-02-01T00:00:00Z");
        l.record(&MessageOutcome { message: &m, claims: &[c], assessments: &[a], skipped: &[] }).unwrap();
        assert_eq!(l.flush().unwrap(), Recorded::default());
    }
    l.record_skipped(&Skipped { stage: "import".into(), locator: "bad.mbox:byte 9".into(), reason: "truncated".into() }).unwrap();
    l.finish_run(&RunSummary::default()).unwrap();
    for (t, n) in [
        ("runs", 1),
        ("messages_seen", 5),
        ("message_assessed", 5),
        ("claims", 5),
        ("assessments", 5),
        ("evidence_revisions", 1),
        ("assessment_evidence", 5),
        ("skipped", 1),
    ] {
        assert_eq!(count(&l, t), n, "{t}");
    }
    assert_eq!(l.skipped(&RunId("r1".into())).unwrap().len(), 1);
    let (_, summary) = l.run(&RunId("r1".into())).unwrap().unwrap();
    assert_eq!(summary, Some(RunSummary::default()));
}

#[test]
fn uncommitted_batch_is_lost_whole_never_half_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let opts = LedgerOptions { batch_messages: 2, ..LedgerOptions::default() };
    let mut l = Ledger::open_with(&path, opts).unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    for n in 0..3 {
        record_one(&mut l, n, Status::Supported);
    }
    // Simulate SIGKILL: the connection goes away without COMMIT or Drop.
    std::mem::forget(l);
    let reader = Connection::open(&path).unwrap();
    let seen: i64 = reader.query_row("SELECT count(*) FROM message_assessed", [], |r| r.get(0)).unwrap();
    let assessed: i64 = reader.query_row("SELECT count(*) FROM assessments", [], |r| r.get(0)).unwrap();
    assert_eq!((seen, assessed), (2, 2), "the first batch of two is durable, the third message not at all");
}

#[test]
fn latest_per_claim_is_a_query() {
    let mut l = Ledger::open_in_memory().unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    let (m, c, _) = record_one(&mut l, 1, Status::NoEvidence);
    record_one(&mut l, 2, Status::Supported);
    l.finish_run(&RunSummary::default()).unwrap();
    l.begin_run(&run_info("r2")).unwrap();
    let newer = assessment(&c, Status::Contradicted, vec![evidence("notes", b"rev2")], "2024-03-01T00:00:00Z");
    l.record(&MessageOutcome { message: &m, claims: std::slice::from_ref(&c), assessments: &[newer], skipped: &[] }).unwrap();
    assert_eq!(l.flush().unwrap(), Recorded { messages: 0, claims: 0, assessments: 1 });
    assert_eq!(count(&l, "assessments"), 3);

    let all = l.latest_assessments(Scope::All, &quotes()).unwrap();
    assert_eq!(all.len(), 2);
    let of_c: Vec<_> = all.iter().filter(|a| a.claim == c.id).collect();
    assert_eq!(of_c.len(), 1);
    assert_eq!(of_c[0].status, Status::Contradicted);

    let r1 = l.latest_assessments(Scope::Run(&RunId("r1".into())), &quotes()).unwrap();
    assert_eq!(r1.len(), 2);
    assert_eq!(r1.iter().find(|a| a.claim == c.id).unwrap().status, Status::NoEvidence);
    let r2 = l.latest_assessments(Scope::Run(&RunId("r2".into())), &quotes()).unwrap();
    assert_eq!(r2.len(), 1);

    let mut rows = Vec::new();
    l.for_each_latest::<Error, _>(Scope::All, &quotes(), |r| {
        rows.push(r);
        Ok(())
    })
    .unwrap();
    assert_eq!(rows.len(), 2);
    let row = rows.iter().find(|r| r.claim.id == c.id).unwrap();
    assert_eq!(row.run_id.0, "r2");
    assert_eq!(row.group(), Group::Contradicted);
    assert_eq!(row.message_id, m.id);
    assert_eq!(row.sent_at, m.sent_at);
    assert_eq!(row.subject.as_deref(), Some("Plans"));
    assert_eq!(row.evidence.len(), 1);
    assert_eq!(row.evidence[0].item_digest, Digest::of(b"rev2"));
    // Sorted by conversation, then time.
    assert!(rows[0].conversation <= rows[1].conversation);
}

#[test]
fn run_assessment_is_the_runs_latest_written_one() {
    let mut l = Ledger::open_in_memory().unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    let (m, c, a) = record_one(&mut l, 1, Status::NoEvidence);
    // Still in the unwritten batch: not seen yet.
    assert_eq!(l.run_assessment(&RunId("r1".into()), &c.message_digest, &c.id, &quotes()).unwrap(), None);
    l.flush().unwrap();
    assert_eq!(l.run_assessment(&RunId("r1".into()), &c.message_digest, &c.id, &quotes()).unwrap(), Some(a));
    l.finish_run(&RunSummary::default()).unwrap();
    // Another run's view: only its own assessments, latest first.
    l.begin_run(&run_info("r2")).unwrap();
    assert_eq!(l.run_assessment(&RunId("r2".into()), &c.message_digest, &c.id, &quotes()).unwrap(), None);
    let later = assessment(&c, Status::Supported, vec![], "2024-03-01T00:00:00Z");
    let latest = assessment(&c, Status::Contradicted, vec![], "2024-03-02T00:00:00Z");
    for x in [&later, &latest] {
        l.record(&MessageOutcome { message: &m, claims: std::slice::from_ref(&c), assessments: std::slice::from_ref(x), skipped: &[] })
            .unwrap();
    }
    l.flush().unwrap();
    assert_eq!(l.run_assessment(&RunId("r2".into()), &c.message_digest, &c.id, &quotes()).unwrap(), Some(latest));
    assert_eq!(
        l.run_assessment(&RunId("r1".into()), &c.message_digest, &c.id, &quotes()).unwrap().map(|a| a.status),
        Some(Status::NoEvidence)
    );
}

#[test]
fn mark_stale_adds_observations_once() {
    let mut l = Ledger::open_in_memory().unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    let (_, c1, _) = record_one(&mut l, 1, Status::Supported);
    let (_, c2, _) = record_one(&mut l, 2, Status::Contradicted);
    // A third claim cites a different item and must not go stale.
    let m3 = message(3);
    let c3 = claim(&m3);
    let a3 = assessment(&c3, Status::Supported, vec![evidence("other", b"other-rev")], "2024-02-01T00:00:00Z");
    l.record(&MessageOutcome { message: &m3, claims: std::slice::from_ref(&c3), assessments: &[a3], skipped: &[] }).unwrap();
    l.flush().unwrap();

    let at: Timestamp = "2024-04-01T00:00:00Z".parse().unwrap();
    assert_eq!(l.mark_stale(&Digest::of(b"rev1"), at).unwrap(), 2);
    assert_eq!(l.mark_stale(&Digest::of(b"rev1"), at).unwrap(), 0, "already stale");
    assert_eq!(l.mark_stale(&Digest::of(b"never-cited"), at).unwrap(), 0);
    assert_eq!(count(&l, "assessments"), 5, "history stays: 3 originals + 2 stale");

    let latest = l.latest_assessments(Scope::All, &quotes()).unwrap();
    for a in &latest {
        let expect = if a.claim == c3.id { Status::Supported } else { Status::Stale };
        assert_eq!(a.status, expect, "{:?}", a.claim);
        if a.claim == c1.id || a.claim == c2.id {
            assert_eq!(a.method, STALE_METHOD);
            assert_eq!(a.assessed_at, "2024-04-01T00:00:00Z");
            assert_eq!(a.reasons[0].evidence[0].item_digest, Digest::of(b"rev1"));
            assert!(a.reasons[0].detail.contains("changed"), "{}", a.reasons[0].detail);
        }
    }
}

/// A claim that is never audited (a greeting) is counted by kind, without a
/// row of its own; it cannot be assessed after the fact.
#[test]
fn counted_only_claims_keep_no_text() {
    let mut l = Ledger::open_in_memory().unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    let m = message(8);
    let mut hello = claim(&m);
    hello.kind = ClaimKind::Greeting;
    hello.cues = vec![Cue { class: CueClass::Hedge, text: "The".into(), span: Span::new(0, 3), rule: "hedge.x".into() }];
    l.record(&MessageOutcome { message: &m, claims: std::slice::from_ref(&hello), assessments: &[], skipped: &[] }).unwrap();
    l.flush().unwrap();
    assert_eq!((count(&l, "claims"), count(&l, "claim_cues"), count(&l, "claim_counts")), (0, 0, 1));
    assert_eq!(l.run_totals(&RunId("r1".into())).unwrap().claims_by_kind.get(&ClaimKind::Greeting), Some(&1));
    let a = assessment(&hello, Status::Supported, vec![], "2024-02-01T00:00:00Z");
    assert!(matches!(l.append_assessment(&m.digest(), &a), Err(Error::UnknownClaim(_))));
}

/// Texts are stored once; a different text under the same 8-byte key (a
/// collision, forced here) takes the next key and both read back.
#[test]
fn texts_are_stored_once_and_survive_a_key_collision() {
    let mut l = Ledger::open_in_memory().unwrap();
    let key = write::key_of(&Digest::of(b"The launch moved to Friday."));
    l.conn.execute("INSERT INTO texts (key, text) VALUES (?1, 'another text with the same key')", [key]).unwrap();
    let a = l.text_id("The launch moved to Friday.").unwrap();
    l.ids = Ids::default();
    assert_eq!(l.text_id("The launch moved to Friday.").unwrap(), a, "found again past the colliding row");
    let (k, t): (i64, String) = l.conn.query_row("SELECT key, text FROM texts WHERE id = ?1", [a], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!((k, t.as_str()), (key.wrapping_add(1), "The launch moved to Friday."));
    assert_eq!(count(&l, "texts"), 2);
}

#[test]
fn record_before_begin_run_is_an_error() {
    let mut l = Ledger::open_in_memory().unwrap();
    let m = message(1);
    let err = l.record(&MessageOutcome { message: &m, claims: &[], assessments: &[], skipped: &[] }).unwrap_err();
    assert!(matches!(err, Error::UnknownRun(_)));
    assert!(l.finish_run(&RunSummary::default()).is_err());
}

#[test]
fn migrates_a_version_1_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let d1 = Digest::of(b"d1");
    {
        // A ledger as the first release wrote it, with one assessed message.
        let c = Connection::open(&path).unwrap();
        c.execute_batch(schema::VERSION_TABLE).unwrap();
        c.execute_batch(schema::MIGRATIONS[0]).unwrap();
        c.execute("INSERT INTO schema_version VALUES ('ledger', 1)", []).unwrap();
        c.execute("INSERT INTO message_assessed VALUES (?1, 'policy@1', 'r0')", [d1.to_hex()]).unwrap();
    }
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), schema::latest_version());
    let run: String = l
        .conn
        .query_row(
            "SELECT r.run_id FROM message_assessed a JOIN runs r ON r.run_no = a.run_no JOIN messages_seen m ON m.msg = a.msg
             WHERE m.digest = ?1",
            [d1.0.as_slice()],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(run, "r0");
    assert!(l.is_assessed(&d1, "policy@1").unwrap());
    // One row per run (version 2 on).
    l.conn.execute_batch("INSERT INTO message_assessed SELECT msg, policy, run_no + 1 FROM message_assessed").unwrap();
    assert_eq!(count(&l, "message_assessed"), 2);
}

/// A version 2 ledger with a recorded message (claims, assessments across
/// two runs, evidence links) reads back the same after the move to version
/// 3 (indexes led by the message), and stays append-only.
#[test]
fn migrates_a_version_2_ledger_with_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let (m, c) = (message(1), claim(&message(1)));
    let first = assessment(&c, Status::Supported, vec![evidence("notes", b"rev1")], "2024-02-01T00:00:00Z");
    let second = assessment(&c, Status::Contradicted, vec![evidence("notes", b"rev2")], "2024-03-01T00:00:00Z");
    {
        // Written by hand in version 2's tables, as that release did.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(schema::VERSION_TABLE).unwrap();
        conn.execute_batch(schema::MIGRATIONS[0]).unwrap();
        conn.execute_batch(schema::MIGRATIONS[1]).unwrap();
        conn.execute("INSERT INTO schema_version VALUES ('ledger', 2)", []).unwrap();
        for run in ["r1", "r2"] {
            let info = serde_json::to_string(&run_info(run)).unwrap();
            conn.execute(
                "INSERT INTO runs (run_id, started_at, policy_version, info_json) VALUES (?1, 't', 'policy@1', ?2)",
                params![run, info],
            )
            .unwrap();
        }
        let d = m.digest().to_hex();
        conn.execute(
            "INSERT INTO messages_seen VALUES (?1, 'gmail', ?2, ?3, ?4, ?5, ?6, ?7, 'Plans', 'r1')",
            params![d, m.archive, m.conversation, m.id.0, m.locator, m.author, m.sent_at.to_string()],
        )
        .unwrap();
        conn.execute("INSERT INTO message_assessed VALUES (?1, 'policy@1', 'r1')", [&d]).unwrap();
        conn.execute(
            "INSERT INTO claims VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                c.id.0.to_hex(),
                d,
                c.span.start as i64,
                c.span.end as i64,
                c.kind.as_str(),
                c.text,
                serde_json::to_string(&c).unwrap()
            ],
        )
        .unwrap();
        for (run, a, id) in [("r1", &first, "a1"), ("r2", &second, "a2")] {
            conn.execute(
                "INSERT INTO assessments (assessment_id, run_id, claim_id, status, grp, method, policy_version, assessed_at, assessment_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    id,
                    run,
                    c.id.0.to_hex(),
                    a.status.as_str(),
                    a.group().as_str(),
                    a.method,
                    a.policy_version,
                    a.assessed_at,
                    serde_json::to_string(a).unwrap()
                ],
            )
            .unwrap();
            for e in cited_evidence(a) {
                conn.execute("INSERT INTO assessment_evidence VALUES (?1, ?2)", params![id, e.item_digest.to_hex()]).unwrap();
            }
        }
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), schema::latest_version());
    assert_eq!((count(&l, "claims"), count(&l, "assessments"), count(&l, "assessment_evidence")), (1, 2, 2));
    let d = m.digest();
    assert_eq!(l.run_assessment(&RunId("r1".into()), &d, &c.id, &quotes()).unwrap(), Some(first.clone()));
    assert_eq!(l.run_assessment(&RunId("r2".into()), &d, &c.id, &quotes()).unwrap(), Some(second.clone()));
    assert_eq!(l.latest_assessments(Scope::All, &quotes()).unwrap(), vec![second.clone()]);
    let mut rows = Vec::new();
    l.for_each_latest::<Error, _>(Scope::Run(&RunId("r1".into())), &quotes(), |r| {
        rows.push(r);
        Ok(())
    })
    .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].claim.clone(), rows[0].assessment.clone(), rows[0].message_id.clone()), (c.clone(), first, m.id.clone()));
    // The links moved with their message: the changed revision is found.
    l.begin_run(&run_info("r3")).unwrap();
    assert_eq!(l.mark_stale(&Digest::of(b"rev2"), "2024-04-01T00:00:00Z".parse().unwrap()).unwrap(), 1);
    assert_eq!(l.latest_assessments(Scope::All, &quotes()).unwrap()[0].status, Status::Stale);
    // Still append-only.
    assert!(l.conn.execute("UPDATE assessments SET status = 'supported'", []).is_err());
    assert!(l.conn.execute("DELETE FROM assessment_evidence", []).is_err());
    assert!(l.is_assessed(&d, "policy@1").unwrap());
}

/// Writes `outcomes` into a new schema-3 ledger at `path` the way schema 3's
/// write path did (its statements, its JSON and its content ids), run by
/// run: the file a user of the previous release has.
/// One run of a schema-3 ledger: run id, message, claims, assessments, skips.
type V3Run<'a> = (&'a str, &'a Message, &'a [Claim], &'a [Assessment], &'a [Skipped]);

fn write_schema_3(path: &Path, runs: &[V3Run<'_>]) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(schema::VERSION_TABLE).unwrap();
    for sql in &schema::MIGRATIONS[..3] {
        conn.execute_batch(sql).unwrap();
    }
    conn.execute("INSERT INTO schema_version VALUES ('ledger', 3)", []).unwrap();
    for (run, m, claims, assessments, skipped) in runs {
        let info = run_info(run);
        conn.execute(
            "INSERT OR IGNORE INTO runs (run_id, started_at, policy_version, info_json) VALUES (?1, ?2, ?3, ?4)",
            params![info.run_id.0, info.started_at.to_string(), info.params.policy_version, serde_json::to_string(&info).unwrap()],
        )
        .unwrap();
        let digest = m.digest().to_hex();
        conn.execute(
            "INSERT OR IGNORE INTO messages_seen
             (digest, source, archive, conversation, message_id, locator, author, sent_at, subject, first_run)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                digest,
                m.source.as_str(),
                m.archive,
                m.conversation,
                m.id.0,
                m.locator,
                m.author,
                m.sent_at.to_string(),
                m.subject,
                run
            ],
        )
        .unwrap();
        for c in *claims {
            conn.execute(
                "INSERT OR IGNORE INTO claims (claim_id, message_digest, span_start, span_end, kind, text, claim_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    c.id.0.to_hex(),
                    c.message_digest.to_hex(),
                    c.span.start as i64,
                    c.span.end as i64,
                    c.kind.as_str(),
                    c.text,
                    serde_json::to_string(c).unwrap()
                ],
            )
            .unwrap();
        }
        for a in *assessments {
            let json = serde_json::to_string(a).unwrap();
            let id = Digest::of_fields([run.as_bytes(), json.as_bytes()]).to_hex();
            conn.execute(
                "INSERT OR IGNORE INTO assessments
                 (assessment_id, run_id, message_digest, claim_id, status, grp, method, policy_version, assessed_at, assessment_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    id,
                    run,
                    digest,
                    a.claim.0.to_hex(),
                    a.status.as_str(),
                    a.group().as_str(),
                    a.method,
                    a.policy_version,
                    a.assessed_at,
                    json
                ],
            )
            .unwrap();
            for e in cited_evidence(a) {
                let item_digest = e.item_digest.to_hex();
                conn.execute(
                    "INSERT OR IGNORE INTO evidence_revisions (item_digest, item, captured_at, source_url, title) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![item_digest, e.uri.item, e.captured_at, e.source_url, e.title],
                )
                .unwrap();
                conn.execute(
                    "INSERT OR IGNORE INTO assessment_evidence (item_digest, message_digest, assessment_id) VALUES (?1, ?2, ?3)",
                    params![item_digest, digest, id],
                )
                .unwrap();
            }
        }
        for sk in *skipped {
            conn.execute(
                "INSERT OR IGNORE INTO skipped (run_id, stage, locator, reason) VALUES (?1, ?2, ?3, ?4)",
                params![run, sk.stage, sk.locator, sk.reason],
            )
            .unwrap();
        }
        conn.execute(
            "INSERT OR IGNORE INTO message_assessed (digest, policy_version, run_id) VALUES (?1, ?2, ?3)",
            params![digest, "policy@1", run],
        )
        .unwrap();
        conn.execute(
            "UPDATE runs SET finished_at = ?2, summary_json = ?3 WHERE run_id = ?1",
            params![run, "2024-02-01T00:00:01Z", serde_json::to_string(&RunSummary::default()).unwrap()],
        )
        .unwrap();
    }
}

/// A claim with a cue, an assessment with a gate flag and two reasons (one
/// quote a verbatim chunk slice, one not): everything schema 4 splits
/// into rows.
fn rich_outcome(m: &Message, status: Status, rev: &[u8], at: &str) -> (Vec<Claim>, Assessment) {
    let mut c = claim(m);
    c.cues = vec![Cue { class: CueClass::Temporal, text: "moved".into(), span: Span::new(11, 16), rule: "temporal.moved".into() }];
    let mut a = assessment(&c, status, vec![evidence("notes", rev)], at);
    let mut narrowed = evidence("notes", rev);
    narrowed.quote = "launch … Friday".into();
    a.reasons.push(Reason {
        facet: "date".into(),
        detail: "Friday in both".into(),
        claim_span: Some(Span::new(23, 29)),
        evidence: vec![narrowed],
        rule: "date.same_day".into(),
    });
    a.gate = Some(GateSummary {
        verdict: GateVerdict::PassWithFlags,
        flags: vec![GateFlag {
            check: "temporal".into(),
            source_sentence: "The launch is on Friday.".into(),
            source_span: Span::new(14, 16),
            cue: "on".into(),
            memory_sentence: m.text.clone(),
            rule: "temporal.on".into(),
        }],
    });
    (vec![c], a)
}

/// A schema-3 ledger as the previous release wrote it (two runs, claims
/// with cues, assessments with reasons, evidence and gate flags, a skip)
/// migrates in place to schema 4 in one transaction: every row reads back
/// the same (quotes kept inline, since the wiki may have moved on), the
/// JSON copies and the old tables are gone, append-only holds, and the
/// migrated rows keep working (stale marks, new records).
#[test]
fn migrates_a_schema_3_ledger_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let m = message(4);
    let (claims, first) = rich_outcome(&m, Status::Supported, b"rev1", "2024-02-01T00:00:00Z");
    let (_, second) = rich_outcome(&m, Status::Contradicted, b"rev2", "2024-03-01T00:00:00Z");
    let skip = Skipped { stage: "import".into(), locator: "mail.mbox:byte 7".into(), reason: "truncated header".into() };
    write_schema_3(
        &path,
        &[
            ("r1", &m, &claims, std::slice::from_ref(&first), std::slice::from_ref(&skip)),
            ("r2", &m, &claims, std::slice::from_ref(&second), &[]),
        ],
    );
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), 5, "through schema 4 (code) to 5 (copy keys)");
    let d = m.digest();
    let c = &claims[0];
    // Read back with no wiki at all: the migrated quotes are inline.
    assert_eq!(l.run_assessment(&RunId("r1".into()), &d, &c.id, &NoQuotes).unwrap(), Some(first.clone()));
    assert_eq!(l.run_assessment(&RunId("r2".into()), &d, &c.id, &NoQuotes).unwrap(), Some(second.clone()));
    assert_eq!(l.latest_assessments(Scope::All, &NoQuotes).unwrap(), vec![second.clone()]);
    let mut rows = Vec::new();
    l.for_each_latest::<Error, _>(Scope::Run(&RunId("r1".into())), &NoQuotes, |r| {
        rows.push(r);
        Ok(())
    })
    .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0], AuditRecord { run_id: RunId("r1".into()), ..AuditRecord::new(RunId("r1".into()), &m, c.clone(), first.clone()) });
    let totals = l.run_totals(&RunId("r1".into())).unwrap();
    assert_eq!((totals.messages, totals.assessments, totals.claims_by_kind.get(&ClaimKind::Date)), (1, 1, Some(&1)));
    assert_eq!(l.skipped(&RunId("r1".into())).unwrap(), vec![skip]);
    assert_eq!(l.run(&RunId("r2".into())).unwrap().map(|(i, s)| (i.run_id, s)), Some((RunId("r2".into()), Some(RunSummary::default()))));
    assert!(l.is_assessed(&d, "policy@1").unwrap());
    let tables: Vec<String> = {
        let mut st = l.conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'v3_%'").unwrap();
        st.query_map([], |r| r.get(0)).unwrap().map(|r| r.unwrap()).collect()
    };
    assert!(tables.is_empty(), "{tables:?}");
    let json_columns: i64 =
        l.conn.query_row("SELECT count(*) FROM pragma_table_info('assessments') WHERE name LIKE '%json%'", [], |r| r.get(0)).unwrap();
    assert_eq!(json_columns, 0);
    assert!(l.conn.execute("UPDATE assessments SET status = 'supported'", []).is_err());
    assert!(l.conn.execute("DELETE FROM assessment_evidence", []).is_err());
    // The migrated rows keep working.
    l.begin_run(&run_info("r3")).unwrap();
    assert_eq!(l.mark_stale(&Digest::of(b"rev2"), "2024-04-01T00:00:00Z".parse().unwrap()).unwrap(), 1);
    let latest = l.latest_assessments(Scope::All, &NoQuotes).unwrap();
    assert_eq!(latest[0].status, Status::Stale);
    assert_eq!(latest[0].reasons[0].evidence[0].item_digest, Digest::of(b"rev2"));
    let m5 = message(5);
    let c5 = claim(&m5);
    let a5 = assessment(&c5, Status::Supported, vec![evidence("notes", b"rev1")], "2024-04-01T00:00:00Z");
    l.record(&MessageOutcome { message: &m5, claims: std::slice::from_ref(&c5), assessments: std::slice::from_ref(&a5), skipped: &[] })
        .unwrap();
    l.flush().unwrap();
    assert_eq!(l.run_assessment(&RunId("r3".into()), &m5.digest(), &c5.id, &quotes()).unwrap(), Some(a5));
}

/// A schema-3 row that does not decode stops the migration with an error
/// naming it, and the file is left exactly as it was (one transaction).
#[test]
fn a_failed_migration_leaves_schema_3_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let m = message(6);
    let (claims, a) = rich_outcome(&m, Status::Supported, b"rev1", "2024-02-01T00:00:00Z");
    write_schema_3(&path, &[("r1", &m, &claims, std::slice::from_ref(&a), &[])]);
    Connection::open(&path).unwrap().execute_batch("UPDATE claims SET claim_json = '{\"truncated'").unwrap();
    let before = table_dump(&path);
    let err = Ledger::open(&path).unwrap_err();
    assert!(matches!(err, Error::Corrupt { ref table, .. } if table == "claims"), "{err}");
    assert_eq!(table_dump(&path), before);
    let v: i64 = Connection::open(&path)
        .unwrap()
        .query_row("SELECT version FROM schema_version WHERE component = 'ledger'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 3);
}

/// Quotes are kept by reference and read back from the wiki only while
/// they are still the cited text: a changed revision, a gone item or a
/// text that no longer matches the check digest reads as
/// QUOTE_UNAVAILABLE, never as other text; a quote that is not a verbatim
/// slice of its chunk is kept inline and reads back as it was.
#[test]
fn quotes_are_references_that_never_read_back_wrong() {
    struct Wiki(&'static str, Digest);
    impl QuoteSource for Wiki {
        fn chunk_text(&self, uri: &AmemUri, item_digest: &Digest) -> Option<String> {
            (uri.item == "notes" && uri.chunk == Some(0) && *item_digest == self.1).then(|| self.0.to_string())
        }
    }
    let mut l = Ledger::open_in_memory().unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    let m = message(7);
    let (claims, a) = rich_outcome(&m, Status::Supported, b"rev1", "2024-02-01T00:00:00Z");
    l.record(&MessageOutcome { message: &m, claims: &claims, assessments: std::slice::from_ref(&a), skipped: &[] }).unwrap();
    l.flush().unwrap();
    let stored: Option<String> = l.conn.query_row("SELECT quote FROM assessment_evidence WHERE reason = 0", [], |r| r.get(0)).unwrap();
    assert_eq!(stored, None, "a verbatim slice is kept by reference");
    let read = |q: &dyn QuoteSource| l.run_assessment(&RunId("r1".into()), &m.digest(), &claims[0].id, q).unwrap().unwrap();
    let same = read(&Wiki("The launch is on Friday. More text after.", Digest::of(b"rev1")));
    assert_eq!(same, a, "the same revision gives the quote back");
    for (what, q) in [
        ("the item moved to another revision", Wiki("The launch is on Friday.", Digest::of(b"rev9"))),
        ("same revision, different text at the span", Wiki("The launch is on Monday.", Digest::of(b"rev1"))),
        ("the chunk is shorter than the span", Wiki("The launch", Digest::of(b"rev1"))),
    ] {
        let got = read(&q);
        assert_eq!(got.reasons[0].evidence[0].quote, QUOTE_UNAVAILABLE, "{what}");
        assert_eq!(got.reasons[1].evidence[0].quote, "launch … Friday", "{what}: the inline quote stays");
    }
    assert_eq!(read(&NoQuotes).reasons[0].evidence[0].quote, QUOTE_UNAVAILABLE);
}

#[test]
fn second_connection_opens_while_a_batch_commits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    drop(Ledger::open(&path).unwrap());
    let writer = Connection::open(&path).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE; INSERT INTO skipped VALUES ('r', 's', 'l', 'x');").unwrap();
    let opts = LedgerOptions { busy_timeout: Duration::from_millis(50), ..LedgerOptions::default() };
    let reader = Ledger::open_with(&path, opts).unwrap();
    assert!(!reader.is_assessed(&Digest::of(b"x"), "policy@1").unwrap());
    writer.execute_batch("COMMIT").unwrap();
}

#[test]
fn rerun_under_the_same_policy_counts_as_its_own() {
    let mut l = Ledger::open_in_memory().unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    for n in 0..3 {
        record_one(&mut l, n, Status::Supported);
    }
    // A buffered message already counts as assessed for this ledger.
    assert!(l.is_assessed(&message(0).digest(), "policy@1").unwrap());
    l.finish_run(&RunSummary::default()).unwrap();
    l.begin_run(&run_info("r2")).unwrap();
    let m = message(1);
    let c = claim(&m);
    let a = assessment(&c, Status::Contradicted, vec![evidence("notes", b"rev1")], "2024-03-01T00:00:00Z");
    l.record(&MessageOutcome { message: &m, claims: std::slice::from_ref(&c), assessments: &[a], skipped: &[] }).unwrap();
    l.flush().unwrap();
    let t1 = l.run_totals(&RunId("r1".into())).unwrap();
    assert_eq!(t1.messages, 3);
    assert_eq!(t1.assessments, 3);
    assert_eq!(t1.claims_by_kind.get(&ClaimKind::Date), Some(&3));
    let t2 = l.run_totals(&RunId("r2".into())).unwrap();
    assert_eq!((t2.messages, t2.assessments), (1, 1));
    assert_eq!(t2.claims_by_kind.get(&ClaimKind::Date), Some(&1));
    assert_eq!(l.run_totals(&RunId("none".into())).unwrap(), RunTotals::default());
}

/// The writer half of `sigkill_mid_run_then_resume_has_no_duplicates`,
/// run in a child process: records messages until it is killed.
fn child_writer(path: &str) {
    // Batches by count only, so the test can check that they commit whole.
    let opts = LedgerOptions { batch_messages: 7, max_batch_age: Duration::from_secs(3600), ..LedgerOptions::default() };
    let mut l = Ledger::open_with(Path::new(path), opts).unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    for n in 0..1_000_000 {
        record_one(&mut l, n, Status::Supported);
    }
}

fn resume(path: &Path, upto: u32) {
    let mut l = Ledger::open_with(path, LedgerOptions { batch_messages: 7, ..LedgerOptions::default() }).unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    for n in 0..upto {
        if !l.is_assessed(&message(n).digest(), "policy@1").unwrap() {
            record_one(&mut l, n, Status::Supported);
        }
    }
    l.finish_run(&RunSummary::default()).unwrap();
}

/// Every row of every table in the file, each as text, tables by name and
/// rows sorted: two files with the same dump hold the same data.
fn table_dump(path: &Path) -> Vec<String> {
    let c = Connection::open(path).unwrap();
    let tables: Vec<String> = {
        let mut st = c.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").unwrap();
        st.query_map([], |r| r.get(0)).unwrap().map(|r| r.unwrap()).collect()
    };
    let mut out = Vec::new();
    for t in tables {
        let mut st = c.prepare(&format!("SELECT * FROM {t}")).unwrap();
        let n = st.column_count();
        let mut rows: Vec<String> = st
            .query_map([], |r| {
                let cells: Vec<String> = (0..n).map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap())).collect();
                Ok(format!("{t}: {}", cells.join(" | ")))
            })
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        rows.sort();
        out.extend(rows);
    }
    out
}

/// A writer killed with SIGKILL mid-run leaves whole messages only; a
/// resumed run then ends with exactly the ledger of an uninterrupted one.
#[test]
fn sigkill_mid_run_then_resume_has_no_duplicates() {
    if let Ok(path) = std::env::var("AMEM_LEDGER_TEST_CHILD") {
        child_writer(&path);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    drop(Ledger::open(&path).unwrap());
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "tests::sigkill_mid_run_then_resume_has_no_duplicates", "--test-threads=1"])
        .env("AMEM_LEDGER_TEST_CHILD", &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let probe = Connection::open(&path).unwrap();
    let started = Instant::now();
    let killed_at = loop {
        let n: i64 = probe.query_row("SELECT count(*) FROM message_assessed", [], |r| r.get(0)).unwrap_or(0);
        if n >= 40 || started.elapsed() > Duration::from_secs(20) {
            break n;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    assert!(killed_at >= 40, "the child wrote only {killed_at} messages in 20 s");
    drop(probe);
    // Whole messages only: every assessed message has its claim and assessment.
    let c = Connection::open(&path).unwrap();
    let (ma, cl, asm): (i64, i64, i64) = c
        .query_row(
            "SELECT (SELECT count(*) FROM message_assessed), (SELECT count(*) FROM claims), (SELECT count(*) FROM assessments)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert!(ma >= killed_at && ma == cl && cl == asm, "message_assessed {ma}, claims {cl}, assessments {asm}");
    assert_eq!(ma % 7, 0, "batches of 7 commit whole");
    drop(c);

    let upto = ma as u32 + 30;
    resume(&path, upto);
    let clean = dir.path().join("clean.sqlite");
    resume(&clean, upto);
    let (a, b) = (table_dump(&path), table_dump(&clean));
    for t in ["messages_seen", "message_assessed", "claims", "assessments", "assessment_reasons", "assessment_evidence"] {
        assert_eq!(a.iter().filter(|r| r.starts_with(&format!("{t}: "))).count(), upto as usize, "{t}");
    }
    assert_eq!(a, b);
}

/// Records `batches` batches of padded messages while another connection
/// reads the file back to back (as the audit's workers do), and returns the
/// largest size the write-ahead log reached after a batch.
fn wal_peak_under_readers(dir: &Path, wal_limit: u64, batches: u32) -> u64 {
    let path = dir.join("ledger.sqlite");
    let opts = LedgerOptions { batch_messages: 20, max_batch_age: Duration::from_secs(3600), wal_limit, ..LedgerOptions::default() };
    let mut l = Ledger::open_with(&path, opts).unwrap();
    l.begin_run(&run_info("wal")).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (path, stop) = (path.clone(), std::sync::Arc::clone(&stop));
        std::thread::spawn(move || {
            let r = Connection::open(&path).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _: i64 = r.query_row("SELECT count(*) FROM messages_seen", [], |row| row.get(0)).unwrap_or(0);
            }
        })
    };
    let wal = dir.join("ledger.sqlite-wal");
    let mut peak = 0;
    let pad = "x".repeat(2_000);
    for b in 0..batches {
        for i in 0..20 {
            let mut m = message(b * 20 + i);
            m.text = format!("{} {pad}", m.text);
            let c = claim(&m);
            let a = assessment(&c, Status::Supported, vec![evidence("notes", b"rev1")], "2024-02-01T00:00:00Z");
            l.record(&MessageOutcome {
                message: &m,
                claims: std::slice::from_ref(&c),
                assessments: std::slice::from_ref(&a),
                skipped: &[],
            })
            .unwrap();
        }
        peak = peak.max(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    reader.join().unwrap();
    assert_eq!(count(&l, "messages_seen"), i64::from(batches * 20), "nothing lost to the checkpoints");
    peak
}

#[test]
fn wal_stays_bounded_while_readers_keep_reading() {
    let limit = 1 << 20;
    let bounded = tempfile::tempdir().unwrap();
    // 120 batches write about 11 MB of log. Without the limit (u64::MAX)
    // the log reached 7.3 MB in this test: the reader kept SQLite's own
    // checkpoints from restarting it.
    let with_limit = wal_peak_under_readers(bounded.path(), limit, 120);
    // One batch past the limit at most: the checkpoint runs after each batch.
    assert!(with_limit < 3 * limit, "WAL reached {with_limit} bytes with a {limit}-byte limit");
}

/// A cached lookup is compiled once, not again on every use: with the query
/// planner stability guarantee off, SQLite treated the joined lookups'
/// bound values as plan inputs and each `prepare_cached` statement (its
/// bindings cleared on its way back to the cache) was re-prepared on its
/// next step, 15% of the whole audit's CPU.
#[test]
fn cached_lookups_are_not_prepared_again_on_every_use() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    for n in 0..20 {
        record_one(&mut l, n, Status::Supported);
    }
    l.flush().unwrap();
    let sql = "SELECT a.claim, sn.name, mn.name FROM assessments a
               JOIN names sn ON sn.id = a.status JOIN names mn ON mn.id = a.method WHERE a.seq = ?1";
    for seq in 1..=20i64 {
        let mut st = l.conn.prepare_cached(sql).unwrap();
        let _ = st.query_row([seq], |r| r.get::<_, i64>(0));
    }
    let st = l.conn.prepare_cached(sql).unwrap();
    assert!(st.get_status(rusqlite::StatementStatus::RePrepare) <= 1, "{}", st.get_status(rusqlite::StatementStatus::RePrepare));
}

/// The report rows are rebuilt a chunk at a time: across several chunks
/// and a partial last one, every row reads back as it was recorded (claim
/// with its cues, reasons, evidence by reference and inline, gate flags,
/// no gate at all), in report order, and the latest assessment per claim
/// (a later one of the same claim wins, an earlier run's does not count).
#[test]
fn report_rows_read_back_whole_across_chunks() {
    let mut l = Ledger::open_in_memory().unwrap();
    let n = (2 * crate::rebuild::CHUNK + 37) as u32;
    l.begin_run(&run_info("r0")).unwrap();
    let m0 = message(0);
    let (c0, a0) = rich_outcome(&m0, Status::Contradicted, b"rev2", "2024-01-31T00:00:00Z");
    l.record(&MessageOutcome { message: &m0, claims: &c0, assessments: std::slice::from_ref(&a0), skipped: &[] }).unwrap();
    l.begin_run(&run_info("r1")).unwrap();
    let mut want: Vec<(Message, Claim, Assessment)> = Vec::new();
    for i in 0..n {
        let m = message(i);
        let (claims, mut a) =
            rich_outcome(&m, if i % 3 == 0 { Status::Supported } else { Status::NoEvidence }, b"rev1", "2024-02-01T00:00:00Z");
        if i % 5 == 0 {
            a.gate = None;
        }
        if i % 7 == 0 {
            a.reasons.truncate(1);
            a.reasons[0].evidence.clear();
        }
        l.record(&MessageOutcome { message: &m, claims: &claims, assessments: std::slice::from_ref(&a), skipped: &[] }).unwrap();
        want.push((m, claims[0].clone(), a));
    }
    l.flush().unwrap();
    // A later verdict on one claim in the same run: it is the row shown.
    let (m, c, mut a) = want[11].clone();
    a.status = Status::Contradicted;
    a.assessed_at = "2024-02-02T00:00:00Z".into();
    l.append_assessment(&m.digest(), &a).unwrap();
    want[11] = (m, c, a);
    want.sort_by(|x, y| {
        (&x.0.conversation, x.0.sent_at, &x.0.id.0, x.1.span.start).cmp(&(&y.0.conversation, y.0.sent_at, &y.0.id.0, y.1.span.start))
    });
    let mut got = Vec::new();
    l.for_each_latest::<Error, _>(Scope::Run(&RunId("r1".into())), &quotes(), |r| {
        got.push(r);
        Ok(())
    })
    .unwrap();
    assert_eq!(got.len(), want.len());
    for (r, (m, c, a)) in got.iter().zip(&want) {
        assert_eq!(r.message_id, m.id);
        assert_eq!(
            (&r.conversation, &r.author, &r.locator, r.sent_at, &r.subject),
            (&m.conversation, &m.author, &m.locator, m.sent_at, &m.subject)
        );
        assert_eq!(&r.claim, c);
        assert_eq!(&r.assessment, a);
        assert_eq!(r.evidence, cited_evidence(a));
    }
    // The same assessments, one at a time and all at once.
    let seqs: Vec<i64> = l
        .conn
        .prepare("SELECT seq FROM assessments ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|s| s.unwrap())
        .collect();
    let all = l.latest_assessments(Scope::Run(&RunId("r1".into())), &quotes()).unwrap();
    assert_eq!(all.len(), want.len());
    assert_eq!(l.assessment_at(seqs[0], &quotes()).unwrap(), a0);
    assert!(l.assessment_at(seqs[seqs.len() - 1] + 1, &quotes()).is_err());
}

/// The report order as one SQL query over every key (the scan before the
/// claims were put in order in Rust): each row's seq, run id and locator.
fn latest_heads_by_sql(l: &Ledger, run: Option<&str>) -> Vec<(i64, String, String)> {
    let within = match run {
        Some(_) => {
            "WHERE a.run_no = (SELECT run_no FROM runs WHERE run_id = ?1)
                    AND a.seq = (SELECT max(seq) FROM assessments b WHERE b.run_no = a.run_no AND b.claim = a.claim)"
        }
        None => "WHERE a.seq = (SELECT max(seq) FROM assessments b WHERE b.claim = a.claim)",
    };
    let sql = format!(
        "SELECT a.seq, r.run_id, m.locator FROM assessments a JOIN runs r ON r.run_no = a.run_no JOIN claims c ON c.claim = a.claim
         JOIN messages_seen m ON m.msg = c.msg JOIN names an ON an.id = m.archive {within}
         ORDER BY m.source, an.name, m.conversation, m.sent_at, m.message_id, c.span_start, c.span_end, c.claim"
    );
    let mut st = l.conn.prepare(&sql).unwrap();
    let map = |r: &rusqlite::Row<'_>| Ok((r.get(0)?, r.get(1)?, r.get(2)?));
    match run {
        Some(id) => st.query_map([id], map).unwrap().collect::<rusqlite::Result<_>>().unwrap(),
        None => st.query_map([], map).unwrap().collect::<rusqlite::Result<_>>().unwrap(),
    }
}

fn latest_heads(l: &Ledger, scope: Scope<'_>) -> Vec<(i64, String, String)> {
    let mut out = Vec::new();
    l.for_each_latest_head::<Error, _>(scope, |h| {
        out.push((h.seq, h.run_id, h.locator));
        Ok(())
    })
    .unwrap();
    out
}

#[test]
fn report_order_is_the_order_of_one_query_over_every_key() {
    let mut l = Ledger::open_in_memory().unwrap();
    // Claims at several spans of a message, in an order unlike their spans.
    let claims_of = |m: &Message, spans: &[(usize, usize)]| -> Vec<Claim> {
        spans
            .iter()
            .map(|&(s, e)| {
                let span = Span::new(s, e);
                let text = m.text[s..e].to_string();
                Claim { id: Claim::id_for(&m.digest(), span, &text), span, text, ..claim(m) }
            })
            .collect()
    };
    let record = |l: &mut Ledger, m: &Message, claims: &[Claim], status: Status, at: &str| {
        let assessments: Vec<Assessment> = claims.iter().map(|c| assessment(c, status, vec![evidence("notes", b"rev1")], at)).collect();
        l.record(&MessageOutcome { message: m, claims, assessments: &assessments, skipped: &[] }).unwrap();
    };
    let mut kept = Vec::new();
    l.begin_run(&run_info("r1")).unwrap();
    for n in (1..=14).rev() {
        let m = message(n);
        let claims = claims_of(&m, &[(20, 30), (0, 10), (0, 5), (4, 12)]);
        record(&mut l, &m, &claims, Status::NoEvidence, "2024-02-01T00:00:00Z");
        kept.push((m, claims));
    }
    // A second revision of a message under the same keys (source, archive,
    // conversation, time, id): its claims interleave with the first's by span.
    let mut twin = message(3);
    twin.text = "The launch moved to Monday, for message 3.".into();
    twin.locator = "other.mbox:byte 7".into();
    let twin_claims = claims_of(&twin, &[(1, 9), (0, 10), (20, 25)]);
    record(&mut l, &twin, &twin_claims, Status::Supported, "2024-02-01T00:00:00Z");
    l.flush().unwrap();
    l.finish_run(&RunSummary::default()).unwrap();
    // A later run reassesses some claims, twice for one of them.
    l.begin_run(&run_info("r2")).unwrap();
    for (m, claims) in kept.iter().step_by(3) {
        record(&mut l, m, &claims[1..3], Status::Supported, "2024-03-01T00:00:00Z");
        record(&mut l, m, &claims[2..3], Status::Contradicted, "2024-03-02T00:00:00Z");
    }
    record(&mut l, &twin, &twin_claims[..1], Status::Contradicted, "2024-03-01T00:00:00Z");
    l.flush().unwrap();
    l.finish_run(&RunSummary::default()).unwrap();

    let all = latest_heads(&l, Scope::All);
    assert_eq!(all.len(), 14 * 4 + 3, "one row a claim");
    assert_eq!(all, latest_heads_by_sql(&l, None));
    for run in ["r1", "r2"] {
        let rows = latest_heads(&l, Scope::Run(&RunId(run.into())));
        assert_eq!(rows, latest_heads_by_sql(&l, Some(run)), "run {run}");
        assert!(!rows.is_empty());
    }
    assert!(all.iter().any(|(_, _, loc)| loc == "other.mbox:byte 7"));
    assert!(latest_heads(&l, Scope::Run(&RunId("r9".into()))).is_empty(), "an unknown run has no rows");
}
