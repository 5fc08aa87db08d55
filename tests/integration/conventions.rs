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
        .args(["audit", "chat-history", "--init", "--offline", "--since", "2001-01-01", "--json"])
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
    // An empty home is refused, not taken as the current folder (issue 40).
    for (args, env) in [(vec!["--home", "", "index"], None), (vec!["index"], Some("")), (vec!["--home", "  ", "recall", "x"], None)] {
        let mut c = t.amem();
        c.current_dir(t.path()).args(&args);
        if let Some(v) = env {
            c.env("AMEM_HOME", v);
        }
        let (_, err) = code(&mut c, 2);
        assert!(err.contains("the home is empty"), "{args:?}: {err}");
        assert!(!t.path().join("ledger.sqlite").exists() && !t.path().join("wiki").exists(), "{args:?} wrote into the current folder");
    }
    let slack = repo_root().join("examples/home/exports/slack");
    let (_, err) = code(
        t.amem().args(["pool", "build", "--extractor", "rules", "--out", "pool", "--source"]).arg(format!("slack:{}", slack.display())),
        2,
    );
    assert!(err.contains("pools are built from mail"), "{err}");
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

/// Colour (issue 15): `--color auto|always|never` and NO_COLOR; no escapes
/// when stderr is not a terminal (here it is always a pipe).
#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let t = TestDir::new();
    let p = example_mbox(&t, "a.mbox");
    let audit = |extra: &[&str], no_color: Option<&str>| {
        let mut c = t.amem();
        c.args(extra)
            .args(["-v", "audit", "chat-history", "--offline", "--since", "2001-01-01", "--source"])
            .arg(format!("gmail:{}", p.display()));
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        let out = run(&mut c);
        assert!(out.status.success(), "{}", describe(&c, &out));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let piped = audit(&[], None);
    assert!(piped.contains("INFO") && !piped.contains('\x1b'), "no escapes into a pipe: {piped:?}");
    assert!(!audit(&["--color", "never"], None).contains('\x1b'));
    assert!(!audit(&["--color=auto"], Some("1")).contains('\x1b'));
    let forced = audit(&["--color", "always"], None);
    assert!(forced.contains('\x1b'), "--color always colours even a pipe: {forced:?}");
    // Warnings and errors are coloured the same way.
    let (_, err) = code(t.amem().args(["--color", "always", "recall", "anything"]), 0);
    assert!(err.contains("\x1b[1;33mwarning:\x1b[0m"), "{err:?}");
    let (_, err) = code(t.amem().args(["recall", "anything"]), 0);
    assert!(err.contains("warning:") && !err.contains('\x1b'), "{err:?}");
    let (_, err) = code(t.amem().args(["--color", "sometimes", "index"]), 2);
    assert!(err.contains("auto, always, never"), "{err}");
}

#[test]
fn completions_and_man_page_come_from_the_same_definition() {
    let t = TestDir::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = ok(t.amem().args(["completions", shell]));
        assert!(out.contains("amem") && out.contains("chat-history") && out.contains("since"), "{shell}: {}", &out[..out.len().min(300)]);
    }
    code(t.amem().args(["completions", "tcsh"]), 2);
    let man = ok(t.amem().arg("man"));
    assert!(man.contains(".TH amem 1") && man.contains("audit") && man.contains("completions"), "{}", &man[..man.len().min(400)]);
}

/// `--format json` is the machine-output flag everywhere; `--json` still works.
#[test]
fn format_json_on_every_command_with_machine_output() {
    let t = TestDir::new();
    let p = example_mbox(&t, "a.mbox");
    let is_jsonl = |s: &str| !s.trim().is_empty() && s.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok());
    let source = format!("gmail:{}", p.display());
    let audit = |fmt: &[&str]| {
        ok(t.amem().args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--rerun", "--source", &source]).args(fmt))
    };
    for fmt in [&["--format", "json"][..], &["--json"], &["--format", "md,json"]] {
        let out = audit(fmt);
        assert!(is_jsonl(&out) && out.contains("\"run_summary\""), "{fmt:?}: {out}");
    }
    assert_eq!(audit(&["--format", "md"]), "", "reports only: nothing on stdout");
    for args in [
        &["grounding", "list", "--format", "json"][..],
        &["grounding", "list", "--json"],
        &["unverified", "list", "--format", "json"],
        &["recall", "launch", "--format", "json"],
        &["factcheck", "The launch moved to Friday", "--offline", "--format", "json"],
    ] {
        let out = ok(t.amem().args(args));
        assert!(is_jsonl(&out), "{args:?}: {out}");
    }
}

/// A run that could not say much says what to do next.
#[test]
fn runs_with_nothing_to_say_say_what_to_do_next() {
    let t = TestDir::new();
    let p = example_mbox(&t, "a.mbox");
    let source = format!("gmail:{}", p.display());
    let run = |since: &str, now: &str, quiet: bool| {
        let q: &[&str] = if quiet { &["-q"] } else { &[] };
        code(t.amem().args(q).args(["audit", "chat-history", "--offline", "--since", since, "--now", now, "--source", &source]), 0).1
    };
    let err = run("2001-01-01", "2029-12-31T00:00:00Z", false);
    assert!(err.contains("hint:") && err.contains("holds no notes") && err.contains("--rerun"), "{err}");
    let err = run("2001-01-01", "2030-01-01T00:00:00Z", false);
    assert!(err.contains("nothing new since the last run"), "{err}");
    let err = run("2026-01-01", "2030-01-02T00:00:00Z", false);
    assert!(err.contains("no message fell inside the time window"), "{err}");
    let err = run("2001-01-01", "2030-01-03T00:00:00Z", true);
    assert!(!err.contains("hint:"), "-q keeps hints quiet: {err}");
}

/// The README opens with what amem is and how to install it, then the two
/// fresh-machine commands; the licences Cargo.toml names are at the root.
#[test]
fn readme_opening_and_licence_files() {
    let root = repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let before_first_block = &readme[..readme.find("```sh").unwrap()];
    assert!(before_first_block.starts_with("# amem\n\namem "), "one sentence of what amem is first");
    assert!(before_first_block.contains("`cargo install --path .`"), "{before_first_block}");
    let blocks: Vec<&str> = readme.split("```sh\n").skip(1).take(2).map(|b| b.lines().next().unwrap()).collect();
    assert!(blocks[0].contains("audit chat-history --home examples/home"), "{blocks:?}");
    assert_eq!(blocks[1], "cargo test --workspace");
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(cargo.contains("license = \"MIT OR Apache-2.0\""));
    let mit = std::fs::read_to_string(root.join("LICENSE-MIT")).unwrap();
    assert!(mit.starts_with("MIT License") && mit.contains("WITHOUT WARRANTY OF ANY KIND"));
    let apache = std::fs::read_to_string(root.join("LICENSE-APACHE")).unwrap();
    assert!(
        apache.contains("Apache License") && apache.contains("Version 2.0, January 2004") && apache.contains("END OF TERMS AND CONDITIONS")
    );
}
