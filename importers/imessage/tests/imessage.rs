//! The iMessage importer on chat.db fixtures built at test time from SQL
//! text (`tests/fixtures/*.sql`), on bad files (not SQLite, encrypted-looking,
//! not Messages, locked, damaged), on a WAL-mode database, and on the real
//! samples in `../shared/corpora/imessage`, checked against direct SQL
//! queries of the same files.

use amem_records::{ImportError, ImportOptions, Message, TimeWindow};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

fn fixture_sql(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)).unwrap()
}

fn build(dir: &Path, name: &str, sql: &str) -> PathBuf {
    let p = dir.join(name);
    let c = Connection::open(&p).unwrap();
    c.execute_batch(sql).unwrap();
    p
}

fn shared(test: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/imessage");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIPPED {test}: ../shared is absent");
        None
    }
}

fn run(path: &Path, window: TimeWindow) -> (Vec<Message>, Vec<ImportError>) {
    let (mut ok, mut errs) = (Vec::new(), Vec::new());
    for item in amem_importer_imessage::open(path, &ImportOptions { window }).expect("open") {
        match item {
            Ok(m) => ok.push(m),
            Err(e) => errs.push(e),
        }
    }
    (ok, errs)
}

fn by_id<'a>(ms: &'a [Message], id: &str) -> &'a Message {
    ms.iter().find(|m| m.id.0 == id).unwrap_or_else(|| panic!("no message {id}"))
}

#[test]
fn modern_fixture() {
    let tmp = tempfile::tempdir().unwrap();
    let db = build(tmp.path(), "chat.db", &fixture_sql("modern.sql"));
    let before = std::fs::read(&db).unwrap();
    let (ms, errs) = run(&db, TimeWindow::default());
    assert_eq!(std::fs::read(&db).unwrap(), before, "the database is never modified");

    let ids: Vec<&str> = ms.iter().map(|m| m.id.0.as_str()).collect();
    assert_eq!(ids, ["G-100", "G-205", "G-206", "G-207", "G-300", "G-301", "G-302", "G-305", "G-306", "G-400"]);
    let errs: Vec<(String, String)> = errs.iter().map(|e| (e.position.clone(), e.kind.clone())).collect();
    assert_eq!(errs, [("ROWID 303".to_string(), "typedstream".to_string()), ("ROWID 304".into(), "date".into())]);

    let m = by_id(&ms, "G-100");
    assert_eq!(m.text, "The launch moved to Friday.");
    assert_eq!(m.author, "+15551230001");
    assert_eq!(m.recipients, ["me"]);
    assert_eq!(m.conversation, "iMessage;-;+15551230001");
    assert_eq!(m.subject.as_deref(), Some("+15551230001"));
    assert_eq!(m.sent_at.to_string(), "2024-05-01T12:00:00Z");
    assert_eq!(m.meta["chat_style"], "direct");
    assert!(m.locator.ends_with("chat.db:ROWID 100"));

    let m = by_id(&ms, "G-205");
    assert_eq!(m.text, "Dinner is at 7 on Friday.");
    assert_eq!(m.author, "me");
    assert_eq!(m.recipients, ["+15551230001"]);
    assert_eq!(m.meta["text_source"], "attributed_body");

    let m = by_id(&ms, "G-206");
    assert_eq!(m.text, "See the photo");
    assert_eq!(m.meta["attachment_placeholders"], "2");
    assert_eq!(m.conversation, "iMessage;+;chat100200300");
    assert_eq!(m.subject.as_deref(), Some("Book club"));
    assert_eq!(m.meta["chat_style"], "group");
    assert_eq!(m.recipients, ["me", "+15551230003"]);

    let m = by_id(&ms, "G-207");
    assert_eq!(m.not_claims.as_deref(), Some("reaction"));
    assert_eq!(m.meta["tapback"], "like");
    assert_eq!(m.meta["tapback_target"], "p:0/G-206");
    assert_eq!(m.recipients, ["+15551230003", "reader@example.org"]);

    assert_eq!(by_id(&ms, "G-300").not_claims.as_deref(), Some("edited"));
    assert_eq!(by_id(&ms, "G-300").text, "Meeting is at 3pm");
    assert_eq!(by_id(&ms, "G-301").not_claims.as_deref(), Some("unsent"));
    assert_eq!(by_id(&ms, "G-302").not_claims.as_deref(), Some("group_event"));
    assert_eq!(by_id(&ms, "G-305").conversation, "rowid:305");
    assert_eq!(by_id(&ms, "G-306").text, "See the photo");
    assert_eq!(by_id(&ms, "G-306").meta["text_source"], "attributed_body");
    assert_eq!(by_id(&ms, "G-100").not_claims, None);
}

#[test]
fn legacy_fixture_seconds_era() {
    let tmp = tempfile::tempdir().unwrap();
    let db = build(tmp.path(), "chat.db", &fixture_sql("legacy.sql"));
    let (ms, errs) = run(&db, TimeWindow::default());
    assert!(errs.is_empty(), "{errs:?}");
    let got: Vec<(String, String, String)> = ms.iter().map(|m| (m.sent_at.to_string(), m.author.clone(), m.text.clone())).collect();
    assert_eq!(
        got,
        [
            ("2015-11-22T18:09:46Z".to_string(), "+441234500001".to_string(), "Black Friday deals start this week.".to_string()),
            ("2015-11-22T23:01:12Z".into(), "me".into(), "I got mine last year.".into()),
            ("2015-11-22T23:04:46Z".into(), "+441234500001".into(), "Old text only in the body".into()),
        ]
    );
}

#[test]
fn window_is_applied_on_the_date_column() {
    let tmp = tempfile::tempdir().unwrap();
    let db = build(tmp.path(), "chat.db", &fixture_sql("modern.sql"));
    let w = TimeWindow { since: Some("2024-05-02T00:00:00Z".parse().unwrap()), until: None };
    let (ms, errs) = run(&db, w);
    assert_eq!(ms.iter().map(|m| m.id.0.as_str()).collect::<Vec<_>>(), ["G-400"]);
    // Row 303's broken body is outside the window and is never decoded; the
    // date-0 row still reports (it has no time to filter on).
    assert_eq!(errs.iter().map(|e| e.position.as_str()).collect::<Vec<_>>(), ["ROWID 304"]);
    let w = TimeWindow { since: Some("2024-05-01T12:01:00Z".parse().unwrap()), until: Some("2024-05-01T12:02:00.5Z".parse().unwrap()) };
    let (ms, _) = run(&db, w);
    assert_eq!(ms.iter().map(|m| m.id.0.as_str()).collect::<Vec<_>>(), ["G-205", "G-206"]);
    let legacy = build(tmp.path(), "legacy.db", &fixture_sql("legacy.sql"));
    let w = TimeWindow { since: Some("2015-11-22T23:00:00Z".parse().unwrap()), until: Some("2015-11-22T23:02:00Z".parse().unwrap()) };
    let (ms, _) = run(&legacy, w);
    assert_eq!(ms.iter().map(|m| m.id.0.as_str()).collect::<Vec<_>>(), ["L-2"]);
}

#[test]
fn many_rows_page_through_in_rowid_order() {
    let tmp = tempfile::tempdir().unwrap();
    let db = build(tmp.path(), "chat.db", &fixture_sql("modern.sql"));
    {
        let mut c = Connection::open(&db).unwrap();
        let tx = c.transaction().unwrap();
        for i in 0..700i64 {
            tx.execute(
                "INSERT INTO message (ROWID, guid, text, handle_id, date, is_from_me) VALUES (?1, ?2, ?3, 1, ?4, 0)",
                rusqlite::params![1000 + i * 3, format!("P-{i}"), format!("row {i}"), 736257600000000000i64 + i * 1_000_000_000],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    let (ms, _) = run(&db, TimeWindow::default());
    let extra: Vec<&Message> = ms.iter().filter(|m| m.id.0.starts_with("P-")).collect();
    assert_eq!(extra.len(), 700);
    assert!(extra.iter().enumerate().all(|(i, m)| m.text == format!("row {i}")));
}

#[test]
fn wal_mode_database_reads_the_log() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("chat.db");
    let writer = Connection::open(&p).unwrap();
    writer.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;").unwrap();
    writer.execute_batch(&fixture_sql("modern.sql")).unwrap();
    // The rows live only in chat.db-wal while the writer stays open.
    let wal = tmp.path().join("chat.db-wal");
    assert!(std::fs::metadata(&wal).unwrap().len() > 0);
    let (ms, _) = run(&p, TimeWindow::default());
    assert_eq!(ms.len(), 10);
    assert_eq!(by_id(&ms, "G-205").text, "Dinner is at 7 on Friday.");
    drop(writer);
}

#[test]
fn bad_files_fail_open_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let open = |p: &Path| amem_importer_imessage::open(p, &ImportOptions::default()).err().expect("refused");

    let e = open(&tmp.path().join("missing.db"));
    assert_eq!(e.kind, "io");
    let e = open(tmp.path());
    assert!(e.reason.contains("is a folder"), "{e}");

    // Encrypted (iOS backup) copies have no plaintext header: random-looking bytes.
    let enc = tmp.path().join("encrypted.db");
    let mut x: u32 = 0x9e37_79b9;
    let bytes: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    std::fs::write(&enc, bytes).unwrap();
    let e = open(&enc);
    assert_eq!(e.kind, "not_sqlite");
    assert!(e.reason.contains("encrypted"), "{e}");
    let empty = tmp.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(open(&empty).kind, "not_sqlite");

    let other = build(tmp.path(), "other.db", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);");
    let e = open(&other);
    assert_eq!(e.kind, "not_messages");
    assert!(e.reason.contains("no message table"), "{e}");
    let odd = build(tmp.path(), "odd.db", "CREATE TABLE message (id INTEGER PRIMARY KEY, body TEXT);");
    assert_eq!(open(&odd).kind, "not_messages");
}

#[test]
fn locked_database_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let db = build(tmp.path(), "chat.db", &fixture_sql("modern.sql"));
    let holder = Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE; UPDATE message SET text = text;").unwrap();
    let e = amem_importer_imessage::open(&db, &ImportOptions::default()).err().expect("locked");
    assert_eq!(e.kind, "locked");
    assert!(e.reason.contains("copy chat.db"), "{e}");
    holder.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn damaged_database_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let db = build(tmp.path(), "chat.db", &fixture_sql("modern.sql"));
    {
        let mut c = Connection::open(&db).unwrap();
        let c = c.transaction().unwrap();
        for i in 0..300i64 {
            c.execute(
                "INSERT INTO message (guid, text, date) VALUES (?1, ?2, 736257600000000000)",
                rusqlite::params![format!("D-{i}"), "x".repeat(400)],
            )
            .unwrap();
        }
        c.commit().unwrap();
    }
    let mut bytes = std::fs::read(&db).unwrap();
    let page = 4096;
    assert!(bytes.len() > 20 * page);
    for b in &mut bytes[10 * page..14 * page] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    match amem_importer_imessage::open(&db, &ImportOptions::default()) {
        Err(e) => assert!(["corrupt", "sqlite"].contains(&e.kind.as_str()), "{e}"),
        Ok(stream) => {
            let errs: Vec<ImportError> = stream.filter_map(Result::err).collect();
            assert!(errs.iter().any(|e| e.kind == "corrupt" || e.kind == "sqlite"), "{errs:?}");
        }
    }
}

/// The reference: rows straight from SQL, with the time computed by SQLite.
fn direct_rows(db: &Path) -> Vec<(String, Option<String>, String)> {
    let c = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut st = c
        .prepare(
            "SELECT guid, text, CASE WHEN abs(date) > 100000000000 THEN strftime('%Y-%m-%dT%H:%M:%S', date / 1000000000 + 978307200, 'unixepoch')
                                     ELSE strftime('%Y-%m-%dT%H:%M:%S', date + 978307200, 'unixepoch') END
             FROM message ORDER BY ROWID",
        )
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn real_samples_match_direct_queries() {
    let Some(root) = shared("real_samples_match_direct_queries") else { return };
    for (sample, total) in [("plaso-imessage_chat.db", 10), ("xevg-imessagedb/chat.db", 2)] {
        let db = root.join(sample);
        let (ms, errs) = run(&db, TimeWindow::default());
        assert!(errs.is_empty(), "{sample}: {errs:?}");
        let want = direct_rows(&db);
        assert_eq!(ms.len(), want.len(), "{sample}");
        assert_eq!(ms.len(), total, "{sample}: FORMATS.md count");
        for (m, (guid, text, when)) in ms.iter().zip(&want) {
            assert_eq!(&m.id.0, guid);
            assert_eq!(m.sent_at.strftime("%Y-%m-%dT%H:%M:%S").to_string(), *when, "{guid}");
            match text {
                Some(t) => assert_eq!(m.text, t.replace('\u{FFFC}', "").trim(), "{guid}"),
                None => assert_eq!(m.meta["text_source"], "attributed_body", "{guid}"),
            }
        }
    }
    // The xevg row whose text is NULL, decoded from attributedBody.
    let (ms, _) = run(&root.join("xevg-imessagedb/chat.db"), TimeWindow::default());
    let m = by_id(&ms, "DA016DAD-9188-4D80-87A4-7FD3FF03167B");
    assert_eq!(m.text, "iMessagedb test: Let’s set something up");
    assert_eq!(m.conversation, "iMessage;+;chat78806267822556021");
    assert_eq!(m.meta["chat_style"], "group");
    assert_eq!(m.author, "me");
    assert_eq!(m.recipients, ["+17324475860", "scripting@schore.org"]);
}

#[test]
fn real_sample_attributed_bodies_agree_with_text_where_both_exist() {
    // The plaso rows hold both `text` and `attributedBody`: the decoder must
    // give back the text column, except on ROWIDs 6 and 10, whose `text`
    // differs from their blob in the sample file itself (the blobs, read by
    // hand with a hex dump, say "Microsoft Office" where `text` says "Open Office").
    let Some(root) = shared("real_sample_attributed_bodies_agree_with_text_where_both_exist") else { return };
    let c = Connection::open_with_flags(root.join("plaso-imessage_chat.db"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut st =
        c.prepare("SELECT ROWID, text, attributedBody FROM message WHERE text IS NOT NULL AND attributedBody IS NOT NULL").unwrap();
    let rows: Vec<(i64, String, Vec<u8>)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 10);
    let mut differ = Vec::new();
    for (rowid, text, body) in rows {
        let d = amem_importer_imessage::typedstream::decode_text(&body).unwrap();
        assert!(!d.lossy);
        if d.text != text {
            assert_eq!(d.text.replace("Microsoft Office", "Open Office"), text, "ROWID {rowid}");
            differ.push(rowid);
        }
    }
    assert_eq!(differ, [6, 10]);
}

#[test]
fn real_typedstream_blobs() {
    let Some(root) = shared("real_typedstream_blobs") else { return };
    let dir = root.join("imessage-exporter-streamtyped");
    let want = [
        ("AttributedBodyTextOnly", "Noter test", false),
        ("AttributedBodyTextOnly2", "Test 3", false),
        ("Blank", "", false),
        ("MultiPart", "\u{FFFC}test 1\u{FFFC}test 2 \u{FFFC}test 3", false),
        ("URL", "https://github.com/ReagentX/Logria", false),
        ("WeirdText", "𝖍𝖊𝖑𝖑𝖔 𝖜𝖔𝖗𝖑𝖉", false),
        // Its text block was cut out (the stored length says 157 bytes).
        ("ExtraData", "This is parsing  ", true),
    ];
    for (file, text, lossy) in want {
        let d = amem_importer_imessage::typedstream::decode_text(&std::fs::read(dir.join(file)).unwrap()).unwrap();
        assert_eq!(d.text, text, "{file}");
        assert_eq!(d.lossy, lossy, "{file}");
    }
}

// ---- Issue 16: rows read by a key the importer controls, every unusable row counted, nothing written beside the source.

/// A `message` table whose `ROWID` is an ordinary TEXT column (the probe's
/// chat.db looped forever, yielding one row 470,035 times in 20 s), with
/// duplicate ROWID values, and dates stored as TEXT, REAL and out of range.
const HOSTILE: &str = "
CREATE TABLE message (ROWID TEXT, guid TEXT, text TEXT, date);
INSERT INTO message VALUES ('a', 'G-1', 'first', 706018963580999808);
INSERT INTO message VALUES ('b', 'G-2', 'second', 706018964580999808);
INSERT INTO message VALUES ('b', 'G-3', 'same ROWID as G-2', 706018965580999808);
INSERT INTO message VALUES ('c', 'G-4', 'date as text', '706018966580999808');
INSERT INTO message VALUES ('d', 'G-5', 'date as real', 7.06018967e17);
INSERT INTO message VALUES ('e', 'G-6', 'date in 5000', 95000000000);
INSERT INTO message VALUES ('f', 'G-7', 'before 2001', -5);
INSERT INTO message VALUES ('g', 'G-8', 'last', 706018968580999808);
";

/// Probe case "TEXT ROWID": the stream ends, every row is seen once, and
/// each unusable row is one error with its reason.
#[test]
fn r16_text_rowid_table_is_read_once_with_every_bad_row_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let db = build(tmp.path(), "chat.db", HOSTILE);
    let items: Vec<_> = amem_importer_imessage::open(&db, &ImportOptions::default()).unwrap().take(100).collect();
    assert_eq!(items.len(), 8, "one item per row, then the end");
    let ok: Vec<&str> = items.iter().filter_map(|r| r.as_ref().ok()).map(|m| m.id.0.as_str()).collect();
    assert_eq!(ok, ["G-1", "G-2", "G-8"]);
    let errs: Vec<(&str, &str, &str)> =
        items.iter().filter_map(|r| r.as_ref().err()).map(|e| (e.position.as_str(), e.kind.as_str(), e.reason.as_str())).collect();
    let kinds: Vec<(&str, &str)> = errs.iter().map(|(p, k, _)| (*p, *k)).collect();
    assert_eq!(
        kinds,
        [("ROWID 3", "duplicate_rowid"), ("ROWID 4", "date"), ("ROWID 5", "date"), ("ROWID 6", "date"), ("ROWID 7", "date")],
        "{errs:?}"
    );
    assert!(errs[0].2.contains("ROWID b is also the ROWID of row 2"), "{}", errs[0].2);
    assert!(errs[1].2.contains("stored as TEXT"), "{}", errs[1].2);
    assert!(errs[2].2.contains("stored as REAL"), "{}", errs[2].2);
    assert!(errs[3].2.contains("out of range"), "{}", errs[3].2);
    assert!(errs[4].2.contains("before 2001"), "{}", errs[4].2);
}

/// With a time window the SQL filter still lets every unusable row through
/// to be counted (before, TEXT and out-of-range dates vanished in SQL).
#[test]
fn r16_window_does_not_hide_unusable_dates() {
    let tmp = tempfile::tempdir().unwrap();
    let db = build(tmp.path(), "chat.db", HOSTILE);
    let w = TimeWindow { since: Some("2023-05-17T00:00:00Z".parse().unwrap()), until: Some("2023-05-18T00:00:00Z".parse().unwrap()) };
    let (ms, errs) = run(&db, w);
    assert_eq!(ms.len(), 3);
    assert_eq!(errs.iter().filter(|e| e.kind == "date").count(), 4, "{errs:?}");
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Nothing is created beside the source: a WAL-mode chat.db whose writer
/// has closed (no log beside it) is read `immutable`, and before this a
/// read-only open created `chat.db-shm` next to the user's database.
#[test]
fn r16_no_shm_or_wal_appears_beside_the_source() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("chat.db");
    {
        let c = Connection::open(&db).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
        c.execute_batch(&fixture_sql("modern.sql")).unwrap();
    }
    assert_eq!(listing(tmp.path()), ["chat.db"], "the writer checkpointed and removed its log");
    let before = std::fs::read(&db).unwrap();
    let (ms, _) = run(&db, TimeWindow::default());
    assert_eq!(ms.len(), 10);
    assert_eq!(listing(tmp.path()), ["chat.db"], "no -shm or -wal beside the source");
    assert_eq!(std::fs::read(&db).unwrap(), before);

    // A live log beside it: read from a private copy; the source's files are untouched.
    let writer = Connection::open(&db).unwrap();
    writer
        .execute_batch(
            "PRAGMA wal_autocheckpoint=0; INSERT INTO message (guid, text, date) VALUES ('G-900', 'only in the log', 706018963580999808);",
        )
        .unwrap();
    let files = listing(tmp.path());
    let stamp = |n: &str| std::fs::read(tmp.path().join(n)).unwrap();
    let (db_before, wal_before) = (stamp("chat.db"), stamp("chat.db-wal"));
    let (ms, _) = run(&db, TimeWindow::default());
    assert!(ms.iter().any(|m| m.id.0 == "G-900"), "the log's rows are read");
    assert_eq!(listing(tmp.path()), files);
    assert_eq!((stamp("chat.db"), stamp("chat.db-wal")), (db_before, wal_before));
    drop(writer);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// Issue 16, finding 7: a `message` table with any declared ROWID type
    /// and any cell types in `ROWID`, `date` and `text` streams one item per
    /// row and ends: never a loop, never a panic.
    #[test]
    fn any_cell_types_give_one_item_per_row(
        rowid_type in proptest::sample::select(vec!["TEXT", "INTEGER", "REAL", "BLOB", ""]),
        rows in proptest::collection::vec((0u8..5, 0u8..6, any_text()), 0..40),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("chat.db");
        let c = Connection::open(&db).unwrap();
        c.execute_batch(&format!("CREATE TABLE message (ROWID {rowid_type}, guid TEXT, text TEXT, date);")).unwrap();
        for (i, (rk, dk, text)) in rows.iter().enumerate() {
            let rowid: rusqlite::types::Value = match rk {
                0 => (i as i64).into(),
                1 => format!("r{}", i % 3).into(),
                2 => (i as f64 + 0.5).into(),
                3 => rusqlite::types::Value::Null,
                _ => 7i64.into(),
            };
            let date: rusqlite::types::Value = match dk {
                0 => 706018963580999808i64.into(),
                1 => "706018963580999808".to_string().into(),
                2 => 7.06e17f64.into(),
                3 => i64::MAX.into(),
                4 => rusqlite::types::Value::Null,
                _ => vec![1u8, 2, 3].into(),
            };
            c.execute("INSERT INTO message VALUES (?1, ?2, ?3, ?4)", rusqlite::params![rowid, format!("G-{i}"), text, date]).unwrap();
        }
        drop(c);
        let items: Vec<_> = amem_importer_imessage::open(&db, &ImportOptions::default()).unwrap().take(rows.len() + 10).collect();
        proptest::prop_assert_eq!(items.len(), rows.len());
    }
}

fn any_text() -> impl proptest::strategy::Strategy<Value = Option<String>> {
    proptest::option::of("[a-z \u{fffc}]{0,12}")
}

/// The kind probe opens a chat.db as the import does: nothing appears beside
/// a WAL-mode database, and one in a read-only folder is still recognised
/// (issue 40: the probe created `chat.db-shm` and an empty `-wal`, and in a
/// read-only folder said "not an iMessage chat.db").
#[test]
fn the_probe_writes_nothing_beside_a_wal_database_and_reads_a_read_only_folder() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ro");
    std::fs::create_dir(&dir).unwrap();
    let db = dir.join("chat.db");
    {
        let c = Connection::open(&db).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
        c.execute_batch(&fixture_sql("modern.sql")).unwrap();
    }
    assert_eq!(listing(&dir), ["chat.db"]);
    assert!(amem_importer_imessage::probe(&db));
    assert_eq!(listing(&dir), ["chat.db"], "no -shm or -wal beside the source after the probe");
    // (Run as root, the folder's mode does not stop a write: this half bites under a normal user.)
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let recognised = amem_importer_imessage::probe(&db);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(recognised, "a chat.db in a read-only folder is a chat.db");
    assert_eq!(listing(&dir), ["chat.db"]);
}
