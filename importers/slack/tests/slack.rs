//! The Slack importer on handmade fixtures (`tests/fixtures/`), on zips
//! built from them at test time, and on the real samples in
//! `../shared/corpora/slack` (skipped, saying so, when ../shared is absent).

use amem_records::{ImportError, ImportOptions, Message, TimeWindow};
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn shared(test: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/slack");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIPPED {test}: ../shared is absent");
        None
    }
}

fn run(path: &Path, window: TimeWindow) -> (Vec<Message>, Vec<ImportError>) {
    let mut ok = Vec::new();
    let mut errs = Vec::new();
    for item in amem_importer_slack::open(path, &ImportOptions { window }).expect("open") {
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

fn window(since: &str, until: &str) -> TimeWindow {
    TimeWindow { since: Some(since.parse().unwrap()), until: Some(until.parse().unwrap()) }
}

#[test]
fn basic_fixture_fields() {
    let (ms, errs) = run(&fixture("basic"), TimeWindow::default());
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(ms.len(), 10);

    let join = by_id(&ms, "general/1714550400.000100");
    assert_eq!(join.not_claims.as_deref(), Some("channel_join"));
    assert_eq!(join.author, "carol");
    assert_eq!(join.sent_at.to_string(), "2024-05-01T08:00:00.0001Z");

    let m = by_id(&ms, "general/1714550460.000200");
    assert_eq!(m.text, "Revenue grew 12% & costs fell <3% says @Bob Brown, see the Q1 report (https://example.org/q1) in #random @here");
    assert_eq!(m.author, "alice.a");
    assert_eq!(m.subject.as_deref(), Some("general"));
    assert_eq!(m.conversation, "general");
    assert_eq!(m.meta["edited"], "true");
    assert_eq!(m.meta["edited_ts"], "1714550500.000000");
    assert_eq!(m.meta["reactions"], "tada:1");
    assert_eq!(m.meta["channel_id"], "C1");
    assert_eq!(m.locator, "general/2024-05-01.json:message[1]");
    assert_eq!(m.not_claims, None);

    // Thread: the parent and its reply (in the next day file) share a conversation.
    let parent = by_id(&ms, "general/1714550520.000300");
    let reply = by_id(&ms, "general/1714608000.000400");
    assert_eq!(parent.conversation, "general/1714550520.000300");
    assert_eq!(reply.conversation, parent.conversation);
    assert_eq!(parent.meta["thread_parent"], "true");
    assert_eq!(parent.meta["reply_count"], "1");
    assert!(!reply.meta.contains_key("thread_parent"));

    let bot = by_id(&ms, "general/1714550580.000500");
    assert_eq!(bot.author, "deploybot");
    assert_eq!(bot.meta["bulk"], "slack bot_message");
    assert_eq!(bot.meta["bot"], "true");
    assert_eq!(bot.text, "Deploy finished\nBuild #42 (https://ci.example.org/42) passed\nEnv: prod");
    assert_eq!(bot.not_claims, None);

    assert_eq!(by_id(&ms, "general/1714550640.000600").text, "Launch moved to Friday, ask @alice.a");
    assert_eq!(by_id(&ms, "general/1714550700.000700").text, "[file: Q2 plan]");
    assert_eq!(by_id(&ms, "general/1714550760.000800").not_claims.as_deref(), Some("channel_topic"));
    assert_eq!(by_id(&ms, "general/1714608060.000500").not_claims.as_deref(), Some("channel_leave"));

    let dm = by_id(&ms, "D0DM1/1714560000.000001");
    assert_eq!(dm.recipients, vec!["alice.a"]);
    assert_eq!(dm.meta["conversation_kind"], "dm");

    // Folders in name order, messages in ts order inside each file.
    let ids: Vec<&str> = ms.iter().map(|m| m.id.0.as_str()).collect();
    assert_eq!(ids[0], "D0DM1/1714560000.000001");
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len(), "ids are unique");
}

#[test]
fn bad_input_is_errors_with_positions_and_the_stream_goes_on() {
    let dir = fixture("bad");
    let (ms, errs) = run(&dir, TimeWindow::default());
    assert_eq!(ms.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["still imported"]);
    let got: Vec<(String, String, String)> =
        errs.iter().map(|e| (e.path.strip_prefix(&dir).unwrap().display().to_string(), e.position.clone(), e.kind.clone())).collect();
    let want = [
        ("general/2024-05-01.json", "line 3 column 0", "json"),
        ("general/2024-05-02.json", "message[0]", "missing_field"),
        ("general/2024-05-02.json", "message[1]", "ts"),
        ("general/2024-05-02.json", "message[2]", "ts"),
        ("general/2024-05-02.json", "message[3]", "json"),
        ("general/2024-05-03.json", "line 1", "json"),
    ];
    let want: Vec<(String, String, String)> = want.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect();
    assert_eq!(got, want);
}

#[test]
fn window_skips_day_files_before_reading_them() {
    // The malformed 05-01 file lies more than a day before the window, so it
    // is never read: no json error. The 05-02 file is read (its errors show).
    let (ms, errs) = run(&fixture("bad"), window("2024-05-03T12:00:00Z", "2024-05-10T00:00:00Z"));
    assert!(ms.is_empty());
    assert!(errs.iter().all(|e| !e.path.ends_with("2024-05-01.json")), "{errs:?}");
    assert!(errs.iter().any(|e| e.path.ends_with("2024-05-02.json")), "{errs:?}");
    // Exact per-message filtering inside files that are read.
    let (ms, _) = run(&fixture("basic"), window("2024-05-01T08:00:30Z", "2024-05-01T08:02:01Z"));
    assert_eq!(ms.iter().map(|m| m.id.0.as_str()).collect::<Vec<_>>(), ["general/1714550460.000200", "general/1714550520.000300"]);
}

fn zip_dir(src: &Path, out: &Path, prefix: &str) {
    let f = std::fs::File::create(out).unwrap();
    let mut z = zip::ZipWriter::new(f);
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut stack = vec![src.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() { stack.push(p) } else { files.push(p) }
        }
    }
    files.sort();
    for p in files {
        let rel = p.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
        z.start_file(format!("{prefix}{rel}"), opts).unwrap();
        z.write_all(&std::fs::read(&p).unwrap()).unwrap();
    }
    z.finish().unwrap();
}

#[test]
fn zip_export_matches_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (folder_ms, _) = run(&fixture("basic"), TimeWindow::default());
    for prefix in ["", "Acme Slack export Jan 1 2024 - May 2 2024/"] {
        let zp = tmp.path().join("export.zip");
        zip_dir(&fixture("basic"), &zp, prefix);
        let (zip_ms, errs) = run(&zp, TimeWindow::default());
        assert!(errs.is_empty(), "{errs:?}");
        let strip =
            |ms: &[Message]| ms.iter().map(|m| (m.id.clone(), m.text.clone(), m.author.clone(), m.locator.clone())).collect::<Vec<_>>();
        assert_eq!(strip(&zip_ms), strip(&folder_ms), "prefix {prefix:?}");
    }
}

#[test]
fn not_an_export_fails_open_with_a_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let e = amem_importer_slack::open(tmp.path(), &ImportOptions::default()).err().expect("empty folder is refused");
    assert!(e.reason.contains("channels.json"), "{e}");
    let f = tmp.path().join("x.zip");
    std::fs::write(&f, b"not a zip").unwrap();
    let e = amem_importer_slack::open(&f, &ImportOptions::default()).err().expect("non-zip file is refused");
    assert_eq!(e.kind, "not_slack");
    let e = amem_importer_slack::open(&tmp.path().join("missing"), &ImportOptions::default()).err().expect("missing");
    assert_eq!(e.kind, "io");
}

/// Messages per day file, read with serde_json directly, as the reference.
fn day_file_counts(root: &Path) -> Vec<(String, usize, Vec<String>)> {
    let mut out = Vec::new();
    for conv in std::fs::read_dir(root).unwrap() {
        let conv = conv.unwrap().path();
        if !conv.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&conv).unwrap() {
            let f = f.unwrap().path();
            let v: Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
            let arr = v.as_array().unwrap();
            let folder = conv.file_name().unwrap().to_string_lossy().into_owned();
            let ts = arr.iter().map(|m| format!("{folder}/{}", m["ts"].as_str().unwrap())).collect();
            out.push((format!("{folder}/{}", f.file_name().unwrap().to_string_lossy()), arr.len(), ts));
        }
    }
    out.sort();
    out
}

#[test]
fn real_samples_match_the_day_files() {
    let Some(root) = shared("real_samples_match_the_day_files") else { return };
    for (sample, total) in [("slack-export-viewer-testarchive", 158), ("slackdump-source_export_dir", 16)] {
        let dir = root.join(sample);
        let (ms, errs) = run(&dir, TimeWindow::default());
        assert!(errs.is_empty(), "{sample}: {errs:?}");
        let counts = day_file_counts(&dir);
        assert_eq!(ms.len(), counts.iter().map(|c| c.1).sum::<usize>(), "{sample}");
        assert_eq!(ms.len(), total, "{sample}: FORMATS.md count");
        for (file, n, ids) in &counts {
            let got: BTreeSet<&str> = ms.iter().filter(|m| m.locator.starts_with(&format!("{file}:"))).map(|m| m.id.0.as_str()).collect();
            assert_eq!(got.len(), *n, "{file}");
            assert_eq!(got, ids.iter().map(String::as_str).collect(), "{file}");
        }
        for m in &ms {
            let ts = m.meta["ts"].as_str();
            assert!(m.id.0.ends_with(ts));
            assert!(!m.text.contains("<@U") && !m.text.contains("&amp;") && !m.text.contains("&lt;"), "{}: {}", m.id, m.text);
        }
    }
}

#[test]
fn real_sample_2016_features() {
    let Some(root) = shared("real_sample_2016_features") else { return };
    let (ms, _) = run(&root.join("slack-export-viewer-testarchive"), TimeWindow::default());
    let count = |f: &dyn Fn(&Message) -> bool| ms.iter().filter(|m| f(m)).count();
    assert_eq!(count(&|m| m.meta.get("subtype").map(String::as_str) == Some("bot_message")), 94);
    assert_eq!(count(&|m| m.not_claims.as_deref() == Some("channel_join")), 8);
    assert_eq!(count(&|m| m.not_claims.as_deref() == Some("bot_add")), 3);
    assert_eq!(count(&|m| m.meta.contains_key("edited")), 1);
    assert_eq!(count(&|m| m.meta.contains_key("reactions")), 1);
    // Bot messages are kept and marked; every one has text from its attachments.
    assert!(ms.iter().filter(|m| m.meta.contains_key("bot")).all(|m| !m.text.is_empty()));
    // ... and marked bulk, so the audit skips them by default.
    assert!(ms.iter().filter(|m| m.meta.contains_key("bot")).all(|m| m.meta.contains_key("bulk")));
    // The file_comment author comes from `comment.user`.
    let fc = ms.iter().find(|m| m.meta.get("subtype").map(String::as_str) == Some("file_comment")).unwrap();
    assert_eq!(fc.author, "doubledeez");
    // Mentions resolved to display names from users.json.
    let m = by_id(&ms, "enrique/1452837352.000006");
    assert_eq!(m.text, "@abilinski: Created an issue for a setup.py so that it can be installed to a standard place");
    assert_eq!(m.author, "hamza");
}

#[test]
fn real_sample_2025_threads() {
    let Some(root) = shared("real_sample_2025_threads") else { return };
    let (ms, _) = run(&root.join("slackdump-source_export_dir"), TimeWindow::default());
    // Folder B75B4C7 is channel CO69735E8A in channels.json (joined on the name).
    assert!(ms.iter().all(|m| m.meta["channel_id"] == "CO69735E8A"));
    let threads: BTreeSet<&str> = ms.iter().filter(|m| m.conversation.contains('/')).map(|m| m.conversation.as_str()).collect();
    assert_eq!(threads.len(), 3);
    // Each parent's reply_count equals the replies found under its conversation.
    for p in ms.iter().filter(|m| m.meta.contains_key("thread_parent")) {
        let replies = ms.iter().filter(|m| m.conversation == p.conversation && m.id != p.id).count();
        assert_eq!(p.meta["reply_count"], replies.to_string(), "{}", p.id);
    }
    assert_eq!(ms.iter().filter(|m| m.not_claims.as_deref() == Some("tombstone")).count(), 1);
    // A files-only message (no `text` key) still has text.
    assert!(by_id(&ms, "B75B4C7/1736582524.607359").text.starts_with("[file: "));
}

#[test]
fn real_sample_window_counts_match_a_direct_count() {
    let Some(root) = shared("real_sample_window_counts_match_a_direct_count") else { return };
    let dir = root.join("slack-export-viewer-testarchive");
    let w = window("2016-02-08T00:00:00Z", "2016-03-17T12:00:00Z");
    let (ms, errs) = run(&dir, w);
    assert!(errs.is_empty());
    let mut want = 0;
    for (_, _, ids) in day_file_counts(&dir) {
        for id in ids {
            let ts = id.rsplit('/').next().unwrap();
            let secs: i64 = ts.split('.').next().unwrap().parse().unwrap();
            let t = jiff::Timestamp::from_second(secs).unwrap();
            if w.contains(t) {
                want += 1;
            }
        }
    }
    assert!(want > 0);
    assert_eq!(ms.len(), want);
}

// ---- Issue 16: nothing dropped without a count.

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn errors_at<'a>(errs: &'a [ImportError], tail: &str) -> Vec<&'a ImportError> {
    errs.iter().filter(|e| e.path.ends_with(tail)).collect()
}

/// Probe case "unreadable folder": a channel folder that cannot be read is
/// one error naming it (its messages were dropped silently before). As
/// root, permissions do not stop a read, so the dangling-symlink folder is
/// the case that always runs.
#[test]
fn r16_unreadable_channel_folder_is_counted_and_named() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("export");
    copy_tree(&fixture("basic"), &root);
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.path().join("gone"), root.join("ghost")).unwrap();
    let (_, errs) = run(&root, TimeWindow::default());
    #[cfg(unix)]
    {
        let ghost = errors_at(&errs, "ghost");
        assert_eq!(ghost.len(), 1, "{errs:?}");
        assert!(ghost[0].reason.contains("dangling symlink"), "{}", ghost[0]);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let general = root.join("general");
        std::fs::set_permissions(&general, std::fs::Permissions::from_mode(0o000)).unwrap();
        if std::fs::read_dir(&general).is_ok() {
            eprintln!("SKIPPED the chmod 000 case: permissions do not apply (running as root)");
        } else {
            let (ms, errs) = run(&root, TimeWindow::default());
            let e = errors_at(&errs, "general");
            assert_eq!(e.len(), 1, "{errs:?}");
            assert!(e[0].reason.contains("cannot read the channel folder"), "{}", e[0]);
            assert!(ms.iter().all(|m| m.conversation != "general"));
        }
        std::fs::set_permissions(&general, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Probe case "FIFO" for Slack: a day file that is a FIFO or a symlink to
/// `/dev/zero` is one error each (kind `not_regular`), never read (a FIFO
/// would block the run); a symlink to a real day file is read.
#[cfg(unix)]
#[test]
fn r16_fifo_and_device_day_files_are_counted_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("export");
    copy_tree(&fixture("basic"), &root);
    let (before, _) = run(&root, TimeWindow::default());
    let general = root.join("general");
    let fifo = std::process::Command::new("mkfifo").arg(general.join("2024-05-09.json")).status().is_ok_and(|s| s.success());
    std::os::unix::fs::symlink("/dev/zero", general.join("2024-05-10.json")).unwrap();
    std::fs::rename(general.join("2024-05-02.json"), tmp.path().join("elsewhere.json")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("elsewhere.json"), general.join("2024-05-02.json")).unwrap();
    let (ms, errs) = run(&root, TimeWindow::default());
    assert_eq!(ms.len(), before.len(), "the symlinked regular day file is read");
    let zero = errors_at(&errs, "2024-05-10.json");
    assert_eq!(zero.len(), 1, "{errs:?}");
    assert_eq!(zero[0].kind, "not_regular");
    assert!(zero[0].reason.contains("character device"), "{}", zero[0]);
    if fifo {
        let f = errors_at(&errs, "2024-05-09.json");
        assert_eq!(f.len(), 1, "{errs:?}");
        assert!(f[0].reason.contains("FIFO"), "{}", f[0]);
    } else {
        eprintln!("SKIPPED the FIFO case: no mkfifo");
    }
}

/// Probe case "duplicate zip member": a zip storing one day file twice
/// (the zip crate keeps one entry per name) reports the extra copy.
#[test]
fn r16_duplicate_zip_members_are_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let zp = tmp.path().join("export.zip");
    {
        let f = std::fs::File::create(&zp).unwrap();
        let mut z = zip::ZipWriter::new(f);
        let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for name in ["channels.json", "users.json", "general/2024-05-01.json", "general/2024-05-0X.json"] {
            let rel = if name.contains("0X") { "general/2024-05-02.json" } else { name };
            z.start_file(name, opts).unwrap();
            z.write_all(&std::fs::read(fixture("basic").join(rel)).unwrap()).unwrap();
        }
        z.finish().unwrap();
    }
    // The writer refuses duplicate names: rename the second member to the
    // first in place (same length, in both the local and central headers).
    let bytes = std::fs::read(&zp).unwrap();
    let (from, to) = (b"general/2024-05-0X.json", b"general/2024-05-01.json");
    let mut patched = bytes.clone();
    let mut n = 0;
    for i in 0..bytes.len() - from.len() {
        if &bytes[i..i + from.len()] == from {
            patched[i..i + from.len()].copy_from_slice(to);
            n += 1;
        }
    }
    assert_eq!(n, 2);
    std::fs::write(&zp, patched).unwrap();
    let (_, errs) = run(&zp, TimeWindow::default());
    let dup = errors_at(&errs, "general/2024-05-01.json");
    assert_eq!(dup.len(), 1, "{errs:?}");
    assert_eq!(dup[0].kind, "duplicate_member");
    assert_eq!(dup[0].position, "copy 1 of 2");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Issue 16, finding 7: an export folder with any metadata and day-file
    /// bytes opens and streams to the end; every error names a file of it.
    #[test]
    fn any_export_folder_streams_to_the_end(
        channels in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
        day in "[\\[\\]{}\",:<>@#!|&;a-z0-9. ]{0,160}",
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("export");
        std::fs::create_dir_all(root.join("general")).unwrap();
        std::fs::write(root.join("channels.json"), &channels).unwrap();
        std::fs::write(root.join("general/2024-05-01.json"), &day).unwrap();
        let stream = amem_importer_slack::open(&root, &ImportOptions::default()).unwrap();
        for item in stream.take(10_000) {
            if let Err(e) = item {
                proptest::prop_assert!(e.path.starts_with(&root), "{}", e);
            }
        }
    }
}

/// One message nested 100,000 deep is one error at its position; the other
/// messages of the day come through (issue 40: the whole day file was
/// dropped and counted as one error).
#[test]
fn a_message_nested_too_deep_is_one_error_and_the_day_goes_on() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let day = format!(
        "[\n{{\"type\": \"message\", \"user\": \"U1\", \"text\": \"first ] }} \\\" [\", \"ts\": \"1714550400.000100\"}},\n\
         {{\"type\": \"message\", \"user\": \"U1\", \"text\": \"deep\", \"ts\": \"1714550401.000100\", \"blocks\": {deep}}},\n\
         {{\"type\": \"message\", \"user\": \"U1\", \"text\": \"third\", \"ts\": \"1714550402.000100\"}}\n]\n"
    );
    let items = amem_importer_slack::parse_day_bytes(day.as_bytes());
    let texts: Vec<&str> = items.iter().filter_map(|r| r.as_ref().ok()).map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["first ] } \" [", "third"]);
    let errors: Vec<_> = items.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!((errors[0].position.as_str(), errors[0].kind.as_str()), ("message[1]", "json"));
    assert!(errors[0].reason.contains("line 3 column 1"), "{}", errors[0].reason);
}
