//! `amem import slack|imessage`: the built binary on the importers' own
//! fixtures and, when present, on the real samples in ../shared/corpora,
//! checked against the day files and against the `sqlite3` command (or a
//! direct rusqlite query where the command is missing).

use crate::util::{TestDir, code, ok, repo_root, shared};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn lines(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str(l).expect("one JSON object per line")).collect()
}

fn slack_fixture(name: &str) -> PathBuf {
    repo_root().join("importers/slack/tests/fixtures").join(name)
}

fn chat_db(t: &TestDir, sql_fixture: &str) -> PathBuf {
    let sql = std::fs::read_to_string(repo_root().join("importers/imessage/tests/fixtures").join(sql_fixture)).unwrap();
    let p = t.path().join("chat.db");
    rusqlite::Connection::open(&p).unwrap().execute_batch(&sql).unwrap();
    p
}

#[test]
fn slack_fixture_as_jsonl() {
    let t = TestDir::new();
    let out = ok(t.amem().args(["import", "slack"]).arg(slack_fixture("basic")));
    let ms = lines(&out);
    assert_eq!(ms.len(), 10);
    for m in &ms {
        for k in [
            "source",
            "archive",
            "conversation",
            "id",
            "author",
            "recipients",
            "sent_at",
            "subject",
            "text",
            "quoted",
            "locator",
            "meta",
            "not_claims",
        ] {
            assert!(m.get(k).is_some(), "field {k} missing in {m}");
        }
        assert_eq!(m["source"], "slack");
    }
    let m = ms.iter().find(|m| m["id"] == "general/1714550460.000200").unwrap();
    assert_eq!(m["sent_at"], "2024-05-01T08:01:00.0002Z");
    assert!(m["text"].as_str().unwrap().starts_with("Revenue grew 12% & costs fell <3% says @Bob Brown"));
}

#[test]
fn slack_bad_input_is_counted_and_strict_fails() {
    let t = TestDir::new();
    let (stdout, stderr) = code(t.amem().args(["import", "slack"]).arg(slack_fixture("bad")), 0);
    assert_eq!(lines(&stdout).len(), 1);
    assert!(stderr.contains("2024-05-01.json: line 3 column 0"), "{stderr}");
    assert!(stderr.contains("2024-05-02.json: message[0]: message has no ts"), "{stderr}");
    assert!(stderr.contains("1 messages, 6 skipped"), "{stderr}");
    code(t.amem().args(["import", "slack", "--strict"]).arg(slack_fixture("bad")), 1);
}

#[test]
fn slack_window_flags() {
    let t = TestDir::new();
    let out = ok(t.amem().args(["import", "slack", "--since", "2024-05-02", "--until", "2024-05-02"]).arg(slack_fixture("basic")));
    let ids: Vec<String> = lines(&out).iter().map(|m| m["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["general/1714608000.000400", "general/1714608060.000500"]);
    // Relative forms count from --now.
    let out = ok(t.amem().args(["import", "slack", "--since", "24h", "--now", "2024-05-03T00:00:00Z"]).arg(slack_fixture("basic")));
    assert_eq!(lines(&out).len(), 2);
}

#[test]
fn slack_not_an_export() {
    let t = TestDir::new();
    std::fs::create_dir_all(t.path().join("empty")).unwrap();
    let (_, stderr) = code(t.amem().args(["import", "slack", "empty"]), 1);
    assert!(stderr.contains("channels.json"), "{stderr}");
}

#[test]
fn imessage_fixture_as_jsonl() {
    let t = TestDir::new();
    let db = chat_db(&t, "modern.sql");
    let (stdout, stderr) = code(t.amem().args(["import", "imessage"]).arg(&db), 0);
    let ms = lines(&stdout);
    assert_eq!(ms.len(), 10);
    assert!(stderr.contains("ROWID 303"), "{stderr}");
    assert!(stderr.contains("10 messages"), "{stderr}");
    assert!(stderr.contains("1 reaction (not claims)"), "{stderr}");
    let m = ms.iter().find(|m| m["id"] == "G-205").unwrap();
    assert_eq!(m["text"], "Dinner is at 7 on Friday.");
    assert_eq!(m["author"], "me");
    let out = ok(t.amem().args(["import", "imessage", "--since", "2024-05-02"]).arg(&db));
    assert_eq!(lines(&out).len(), 1);
}

#[test]
fn imessage_not_a_database() {
    let t = TestDir::new();
    t.write("notes.db", "hello, I am text");
    let (_, stderr) = code(t.amem().args(["import", "imessage", "notes.db"]), 1);
    assert!(stderr.contains("not a SQLite database"), "{stderr}");
}

/// `sqlite3 -readonly FILE QUERY` when the command exists, else rusqlite.
fn sql_lines(db: &Path, query: &str) -> Vec<String> {
    if let Ok(out) = std::process::Command::new("sqlite3").arg("-readonly").arg(db).arg(query).output()
        && out.status.success()
    {
        return String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
    }
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut st = c.prepare(query).unwrap();
    st.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn imessage_real_samples_against_sqlite3() {
    let Some(shared) = shared("imessage_real_samples_against_sqlite3") else { return };
    let t = TestDir::new();
    for sample in ["plaso-imessage_chat.db", "xevg-imessagedb/chat.db"] {
        let db = shared.join("corpora/imessage").join(sample);
        let out = ok(t.amem().args(["import", "imessage"]).arg(&db));
        let ms = lines(&out);
        let guids = sql_lines(&db, "SELECT guid FROM message ORDER BY ROWID");
        assert_eq!(ms.iter().map(|m| m["id"].as_str().unwrap().to_string()).collect::<Vec<_>>(), guids, "{sample}");
        // Texts, where the column is set (hex so newlines cannot split rows).
        let texts = sql_lines(&db, "SELECT guid || '|' || hex(text) FROM message WHERE text IS NOT NULL ORDER BY ROWID");
        for row in texts {
            let (guid, hex) = row.split_once('|').unwrap();
            let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
            let want = String::from_utf8(bytes).unwrap().replace('\u{FFFC}', "");
            let m = ms.iter().find(|m| m["id"] == guid).unwrap();
            assert_eq!(m["text"].as_str().unwrap(), want.trim(), "{sample} {guid}");
        }
    }
}

#[test]
fn slack_real_samples_count_the_day_files() {
    let Some(shared) = shared("slack_real_samples_count_the_day_files") else { return };
    let t = TestDir::new();
    for sample in ["slack-export-viewer-testarchive", "slackdump-source_export_dir"] {
        let dir = shared.join("corpora/slack").join(sample);
        let mut want = 0;
        for conv in std::fs::read_dir(&dir).unwrap().flatten().filter(|e| e.path().is_dir()) {
            for f in std::fs::read_dir(conv.path()).unwrap().flatten() {
                let v: Value = serde_json::from_slice(&std::fs::read(f.path()).unwrap()).unwrap();
                want += v.as_array().unwrap().len();
            }
        }
        let out = ok(t.amem().args(["import", "slack"]).arg(&dir));
        assert_eq!(lines(&out).len(), want, "{sample}");
    }
}
