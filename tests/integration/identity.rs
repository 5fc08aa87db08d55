//! Stable identities (issue 15): a message is what its archive says, not
//! where the archive was found. Another spelling of `--home` or `--source`,
//! or a moved export folder, assesses nothing again, and the unverified
//! queue holds each claim once.

use crate::util::*;
use std::path::Path;

fn summary(stdout: &str) -> serde_json::Value {
    let line = stdout.lines().find(|l| l.contains("\"run_summary\"")).unwrap_or_else(|| panic!("no run_summary in {stdout}"));
    serde_json::from_str::<serde_json::Value>(line).unwrap()["data"]["summary"].clone()
}

fn queue(t: &TestDir, home: &str) -> Vec<String> {
    let out = ok(t.amem().args(["unverified", "list", "--json", "--home", home]));
    let mut ids: Vec<String> =
        out.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_string()).collect();
    ids.sort();
    ids
}

#[test]
fn another_spelling_or_a_moved_export_assesses_nothing_again() {
    let t = TestDir::new();
    copy_dir(&repo_root().join("examples/home"), &t.path().join("h3"));
    std::fs::create_dir_all(t.path().join("x")).unwrap();
    // Each run a day later than the one before (the same clock and sources
    // would be the same run, resumed).
    let day = std::cell::Cell::new(0);
    let audit = |home: &str, sources: &[String], cwd: &Path| {
        day.set(day.get() + 1);
        let now = format!("2025-06-{:02}T00:00:00Z", day.get());
        let mut c = t.amem();
        c.current_dir(cwd).args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--now", &now, "--json"]);
        c.args(["--home", home]);
        for s in sources {
            c.args(["--source", s]);
        }
        summary(&ok(&mut c))
    };
    // First run: the [[imports]] of config.toml, home spelled relative.
    let first = audit("h3", &[], t.path());
    let read = first["messages_read"].as_u64().unwrap();
    assert!(read > 0 && first["assessed"].as_u64().unwrap() > 0, "{first}");
    let queued = queue(&t, &t.path().join("h3").display().to_string());
    assert!(!queued.is_empty(), "the example home files unverified claims");
    // The same home, absolute, then through `..`.
    let abs = t.path().join("h3").display().to_string();
    for (home, cwd) in [(abs.clone(), t.path().to_path_buf()), ("../x/../h3".to_string(), t.path().join("x"))] {
        let s = audit(&home, &[], &cwd);
        assert_eq!((s["messages_already_assessed"].as_u64(), s["assessed"].as_u64()), (Some(read), Some(0)), "--home {home}: {s}");
    }
    // The exports moved elsewhere and named by --source, in other spellings.
    let moved = t.path().join("moved/exports");
    copy_dir(&t.path().join("h3/exports"), &moved);
    std::fs::remove_dir_all(t.path().join("h3/exports")).unwrap();
    let sources = [
        "slack:~/moved/exports/slack".to_string(),
        format!("imessage:{}", moved.join("imessage/chat.db").display()),
        "gmail:moved/./exports/mail/takeout.mbox".to_string(),
        "auto:moved/exports/enron/maildir".to_string(),
        "moved/exports/enron/emails.csv".to_string(),
    ];
    let s = audit(&abs, &sources, t.path());
    assert_eq!((s["messages_already_assessed"].as_u64(), s["assessed"].as_u64()), (Some(read), Some(0)), "moved exports: {s}");
    assert_eq!(queue(&t, &abs), queued, "the unverified queue holds each claim once");
}
