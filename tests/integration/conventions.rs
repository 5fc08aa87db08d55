//! How people type things (issue 15): `~` and `$VAR` in paths, spans and
//! months in `--since`/`--until`, usage errors exiting 2.

use crate::util::*;
use std::path::PathBuf;

/// The example mbox copied to `rel` under the test dir.
fn example_mbox(t: &TestDir, rel: &str) -> PathBuf {
    let text = std::fs::read(repo_root().join("examples/home/exports/mail/takeout.mbox")).unwrap();
    t.write(rel, text)
}

fn messages(stdout: &str) -> usize {
    stdout.lines().filter(|l| l.starts_with('{')).count()
}

#[test]
fn tilde_and_variables_in_source_home_and_out() {
    let t = TestDir::new();
    example_mbox(&t, "Takeout/All.mbox");
    // The harness sets HOME to the test dir: `~` after `gmail:` is that.
    let mut c = t.amem();
    c.env_remove("AMEM_HOME")
        .env("EXPORT_ROOT", t.path().join("Takeout"))
        .args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--json"])
        .args(["--source", "gmail:~/Takeout/All.mbox", "--source", "gmail:$EXPORT_ROOT/All.mbox"])
        .args(["--home", "~/h", "--out", "${EXPORT_ROOT}/reports"]);
    let out = ok(&mut c);
    assert!(t.path().join("h").join("ledger.sqlite").is_file(), "--home ~/h is the test dir's h\n{out}");
    assert!(t.path().join("Takeout/reports/audit.md").is_file(), "--out expanded\n{out}");
    assert!(!t.path().join("~").exists(), "no folder named ~ was made");
    // AMEM_HOME is expanded the same way.
    let mut c = t.amem();
    c.env("AMEM_HOME", "~/h").args(["grounding", "init"]);
    ok(&mut c);
    assert!(t.path().join("h/config.toml").is_file());
}

#[test]
fn tilde_in_config_imports_is_the_users_home() {
    let t = TestDir::new();
    example_mbox(&t, "Takeout/All.mbox");
    t.write("home/config.toml", "[[imports]]\nkind = \"gmail\"\npath = \"~/Takeout/All.mbox\"\n");
    let out = ok(t.amem().args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--json"]));
    assert!(out.contains("\"messages_read\":2"), "{out}");
    t.write("home/config.toml", "[[imports]]\nkind = \"gmail\"\npath = \"$NOT_SET_ANYWHERE/All.mbox\"\n");
    let (_, err) = code(t.amem().args(["audit", "chat-history", "--offline"]), 2);
    assert!(err.contains("config.toml") && err.contains("$NOT_SET_ANYWHERE is not set"), "{err}");
}

#[test]
fn since_reads_spans_and_months() {
    let t = TestDir::new();
    let p = example_mbox(&t, "a.mbox");
    // The two mails are of 20 and 21 May 2025.
    let import = |since: &str, until: Option<&str>| {
        let mut c = t.amem();
        c.args(["import", "gmail"]).arg(&p).args(["--now", "2025-06-01T00:00:00Z", "--since", since]);
        if let Some(u) = until {
            c.args(["--until", u]);
        }
        messages(&ok(&mut c))
    };
    assert_eq!(import("1mo", None), 2);
    assert_eq!(import("2 weeks", None), 2);
    assert_eq!(import("1 week ago", None), 0);
    assert_eq!(import("11 days ago", None), 1, "only the mail of 21 May is within 11 days of 1 June");
    assert_eq!(import("2025-05", Some("2025-05")), 2);
    assert_eq!(import("2025-04", Some("2025-04")), 0);
}

#[test]
fn bad_values_are_usage_errors_everywhere() {
    let t = TestDir::new();
    let p = example_mbox(&t, "a.mbox");
    let (_, err) = code(t.amem().args(["import", "gmail"]).arg(&p).args(["--since", "fortnight"]), 2);
    assert!(err.contains("1mo") && err.contains("2024-05"), "the error lists the accepted forms: {err}");
    code(t.amem().args(["import", "gmail"]).arg(&p).args(["--now", "noon"]), 2);
    code(
        t.amem().args(["audit", "chat-history", "--offline", "--source"]).arg(format!("gmail:{}", p.display())).args(["--since", "soon"]),
        2,
    );
    code(
        t.amem()
            .args(["audit", "chat-history", "--offline", "--source"])
            .arg(format!("gmail:{}", p.display()))
            .args(["--until", "2025-13"]),
        2,
    );
    let (_, err) = code(t.amem().args(["audit", "chat-history", "--source", "fax:x.mbox"]), 2);
    assert!(err.contains("unknown source kind"), "{err}");
    code(t.amem().args(["audit", "chat-history", "--source", "gmail:$NOPE_NOT_SET/x"]), 2);
    code(t.amem().args(["--home", "$NOPE_NOT_SET", "grounding", "list"]), 2);
}

/// Archive kinds are checked before any work (issue 15): content of another
/// kind is an error naming what it looks like; `auto:` and a bare path probe.
#[test]
fn wrong_archive_kind_names_what_it_looks_like() {
    let t = TestDir::new();
    let mbox = example_mbox(&t, "takeout.mbox");
    let csv = t.write("emails.csv", std::fs::read(repo_root().join("examples/home/exports/enron/emails.csv")).unwrap());
    for (given, path, looks, hint) in [
        ("slack", &mbox, "this looks like an mbox file", "use gmail:"),
        ("enron", &mbox, "this looks like an mbox file", "use gmail:"),
        ("gmail", &csv, "this looks like an Enron CSV", "use enron-csv:"),
    ] {
        let (_, err) =
            code(t.amem().args(["audit", "chat-history", "--offline", "--source"]).arg(format!("{given}:{}", path.display())), 1);
        assert!(err.contains(looks) && err.contains(hint), "{given}: {err}");
        assert!(!t.home().join("ledger.sqlite").exists(), "nothing was done before the check");
        let (_, err) = code(t.amem().args(["import", given]).arg(path), 1);
        assert!(err.contains(looks), "import {given}: {err}");
    }
    let notes = t.write("notes.txt", "Shopping: eggs, milk.\n");
    let (_, err) = code(t.amem().args(["audit", "chat-history", "--offline", "--source"]).arg(format!("gmail:{}", notes.display())), 1);
    assert!(err.contains("nor any other kind"), "{err}");
    let (_, err) = code(t.amem().args(["audit", "chat-history", "--offline", "--source"]).arg(&notes), 1);
    assert!(err.contains("cannot tell what kind"), "{err}");
    // A wrong kind in config.toml is caught the same way.
    t.write("home/config.toml", format!("[[imports]]\nkind = \"slack\"\npath = {:?}\n", mbox.display().to_string()));
    let (_, err) = code(t.amem().args(["audit", "chat-history", "--offline"]), 1);
    assert!(err.contains("use gmail:"), "{err}");
}

#[test]
fn auto_and_bare_paths_pick_the_kind_by_probing() {
    let t = TestDir::new();
    let mbox = example_mbox(&t, "takeout.mbox");
    let slack = repo_root().join("examples/home/exports/slack");
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--json", "--format", "jsonl", "--source"])
        .arg(format!("auto:{}", mbox.display()))
        .arg("--source")
        .arg(&slack);
    let out = ok(&mut c);
    let line = out.lines().find(|l| l.contains("run_summary")).unwrap();
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let dir = std::path::PathBuf::from(v["data"]["report_dir"].as_str().unwrap());
    let rows = std::fs::read_to_string(dir.join("audit.jsonl")).unwrap();
    assert!(rows.contains("\"source\":\"gmail\"") && rows.contains("\"source\":\"slack\""), "{rows}");
    let out = ok(t.amem().args(["import", "auto"]).arg(&mbox));
    assert_eq!(messages(&out), 2);
}
