//! The CLI contract every command shares: help, usage errors, exit codes.

use crate::util::*;

#[test]
fn help_on_every_subcommand() {
    let t = TestDir::new();
    let top = ok(t.amem().arg("--help"));
    for sub in [
        "audit",
        "gate",
        "inspect",
        "drift",
        "import",
        "index",
        "recall",
        "open",
        "capture",
        "factcheck",
        "verify",
        "grounding",
        "unverified",
        "pool",
        "bench",
        "eval",
        "completions",
        "man",
    ] {
        assert!(top.contains(sub), "top-level help lists {sub}");
        let h = ok(t.amem().args([sub, "--help"]));
        assert!(h.contains("Usage:"), "{sub} --help prints usage");
    }
}

#[test]
fn unknown_flag_is_usage_error() {
    let t = TestDir::new();
    let (_, err) = code(t.amem().args(["import", "--bogus"]), 2);
    assert!(err.contains("--bogus"));
}

#[test]
fn import_unknown_kind_is_usage_error() {
    let t = TestDir::new();
    let (_, err) = code(t.amem().args(["import", "fax", "x"]), 2);
    assert!(err.contains("unknown kind"), "{err}");
}

#[test]
fn import_missing_path_names_it() {
    let t = TestDir::new();
    let (_, err) = code(t.amem().args(["import", "gmail", "nope.mbox"]), 1);
    assert!(err.contains("nope.mbox") && err.contains("does not exist"), "{err}");
}

#[test]
fn bad_since_is_explained() {
    let t = TestDir::new();
    let p = t.write("a.mbox", "");
    let (_, err) = code(t.amem().args(["import", "gmail"]).arg(&p).args(["--since", "last-month"]), 2);
    assert!(err.contains("last-week") && err.contains("7d"), "error lists accepted forms: {err}");
}

/// Run `cmd` and give up after `secs` (a hang fails the test, never the suite).
fn within(cmd: &mut std::process::Command, secs: u64) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{cmd:?} still running after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// amem's own files and the texts a user names are read bounded by what
/// they are (issue 40): config.toml, grounding-cache.json or amem.lock as a
/// link to /dev/zero or a FIFO, and /dev/zero given to capture, gate and
/// drift, each end at once with an error naming the path, not after reading
/// gigabytes or never.
#[test]
fn own_files_and_named_texts_that_never_end_are_refused_at_once() {
    let t = TestDir::new();
    std::fs::create_dir_all(t.home().join("wiki")).unwrap();
    let zero = std::path::Path::new("/dev/zero");
    let link = |name: &str| {
        let p = t.home().join(name);
        let _ = std::fs::remove_file(&p);
        std::os::unix::fs::symlink(zero, &p).unwrap();
        p
    };
    let fifo = |name: &str| {
        let p = t.home().join(name);
        let _ = std::fs::remove_file(&p);
        assert!(std::process::Command::new("mkfifo").arg(&p).status().unwrap().success());
        p
    };
    let fails_naming = |args: &[&str], needle: &str| {
        let out = within(t.amem().args(args), 60);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(needle), "{args:?}: {err}");
    };
    link("config.toml");
    fails_naming(&["grounding", "list"], "config.toml is a character device");
    fifo("config.toml");
    fails_naming(&["grounding", "list"], "config.toml is a FIFO");
    std::fs::remove_file(t.home().join("config.toml")).unwrap();
    t.write(
        "home/config.toml",
        "[grounding]\n[[grounding.sources]]\nname = \"a\"\nurl_pattern = \"http://127.0.0.1:9/*\"\nadapter = \"arxiv\"\n",
    );
    link("grounding-cache.json");
    fails_naming(&["factcheck", "--offline", "The sky is green."], "grounding-cache.json is a character device");
    std::fs::remove_file(t.home().join("grounding-cache.json")).unwrap();
    let mbox = t.write("a.mbox", "From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nHello.\n");
    fifo("amem.lock");
    let source = format!("gmail:{}", mbox.display());
    fails_naming(&["audit", "chat-history", "--offline", "--since", "2001-01-01", "--source", &source], "amem.lock is a FIFO");
    std::fs::remove_file(t.home().join("amem.lock")).unwrap();
    fails_naming(&["capture", "/dev/zero"], "/dev/zero is a character device");
    fails_naming(&["gate", "--source", "/dev/zero", "--memory", "/dev/zero"], "/dev/zero is a character device");
    fails_naming(&["drift", "--chain", "/dev/zero"], "/dev/zero is a character device");
}

/// Issue 40, "disk full during `index`": on a 3 MB disk that the index
/// fills, `amem index` fails naming the full disk and leaves no write-ahead
/// log behind, so the next audit takes its lock (before, a 1.7 MB log kept
/// the disk full and the audit failed on `amem.lock`: "No space left on
/// device"). Then a log left by a writer killed mid-write on a full disk is
/// emptied when the lock cannot be written, and the run goes on. Runs in a
/// private mount namespace (`unshare -rm`) on a tmpfs; SKIPPED where user
/// namespaces or python3's sqlite3 are not available.
#[test]
fn a_full_disk_leaves_no_log_and_the_next_run_takes_its_lock() {
    let usable = |cmd: &mut std::process::Command| cmd.output().is_ok_and(|o| o.status.success());
    if !usable(std::process::Command::new("unshare").args(["-rm", "true"])) {
        eprintln!("SKIPPED a_full_disk_leaves_no_log_and_the_next_run_takes_its_lock: unshare -rm (user namespaces) is not available");
        return;
    }
    if !usable(std::process::Command::new("python3").args(["-c", "import sqlite3"])) {
        eprintln!("SKIPPED a_full_disk_leaves_no_log_and_the_next_run_takes_its_lock: python3 with sqlite3 is not installed");
        return;
    }
    let t = TestDir::new();
    let staged = t.dir.path().join("staged");
    copy_example_home(&staged);
    // About 1.2 MB of notes: their index does not fit in what is left.
    let mut seed = 40u64;
    for i in 0..150 {
        let words: Vec<String> = (0..700)
            .map(|_| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                format!("w{}", (seed >> 33) % 100_000)
            })
            .collect();
        t.write(&format!("staged/wiki/bulk/n{i}.md"), format!("# Note {i}\n\n{}\n", words.join(" ")));
    }
    let disk = t.dir.path().join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    // A writer killed mid-transaction: uncommitted frames in the log.
    let killed_writer = "import sqlite3, os, sys\n\
        c = sqlite3.connect(sys.argv[1], isolation_level=None)\n\
        c.execute('pragma cache_size=1')\n\
        c.execute('begin')\n\
        c.execute('create table filler(b blob)')\n\
        for _ in range(64): c.execute('insert into filler values (randomblob(16000))')\n\
        os._exit(0)\n";
    let script = r#"
        set -u
        mount -t tmpfs -o size=3m tmpfs "$DISK" || exit 90
        cp -r "$STAGED" "$DISK/h"
        amem() { "$AMEM" --no-models --no-progress "$@"; }
        amem index --home "$DISK/h" 2>"$DISK/index.err"; echo "index rc=$?"
        echo "index says: $(tr '\n' ' ' < "$DISK/index.err")"
        echo "log after index: $(stat -c %s "$DISK/h/ledger.sqlite-wal" 2>/dev/null || echo none)"
        amem audit chat-history --home "$DISK/h" --offline --out "$DISK/h/reports/one" -q >/dev/null 2>"$DISK/audit.err"; echo "audit rc=$?"
        echo "audit says: $(tr '\n' ' ' < "$DISK/audit.err")"
        rm -rf "$DISK/h/reports/one"
        python3 -c "$KILLED" "$DISK/h/ledger.sqlite"
        echo "log of the killed writer: $(stat -c %s "$DISK/h/ledger.sqlite-wal")"
        dd if=/dev/zero of="$DISK/filler" bs=4k 2>/dev/null
        echo "free after filling: $(df -k --output=avail "$DISK" | tail -1)"
        amem audit chat-history --home "$DISK/h" --offline --out "$DISK/h/reports/two" -q >/dev/null 2>"$DISK/audit2.err"; echo "audit2 rc=$?"
        echo "audit2 says: $(tr '\n' ' ' < "$DISK/audit2.err")"
    "#;
    let out = within(
        std::process::Command::new("unshare")
            .args(["-rm", "sh", "-c", script])
            .env("DISK", &disk)
            .env("STAGED", &staged)
            .env("AMEM", env!("CARGO_BIN_EXE_amem"))
            .env("KILLED", killed_writer),
        240,
    );
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(90) {
        eprintln!("SKIPPED a_full_disk_leaves_no_log_and_the_next_run_takes_its_lock: cannot mount a tmpfs here: {said}");
        return;
    }
    let line = |key: &str| {
        said.lines().find_map(|l| l.trim().strip_prefix(key).map(str::trim)).unwrap_or_else(|| panic!("no {key:?} in:\n{said}")).to_string()
    };
    assert_ne!(line("index rc="), "0", "{said}");
    assert!(line("index says:").contains("disk is full"), "{said}");
    assert!(matches!(line("log after index:").as_str(), "none" | "0"), "the failed index left its log behind:\n{said}");
    assert!(!line("audit says:").contains("amem.lock"), "{said}");
    assert!(line("log of the killed writer:").parse::<u64>().unwrap() > 500_000, "{said}");
    let audit2 = line("audit2 says:");
    assert!(!audit2.contains("amem.lock"), "the lock was not taken on the full disk:\n{said}");
    assert!(audit2.contains("ledger.sqlite-wal") && audit2.contains("emptied"), "{said}");
}

/// A home that does not exist is a usage error for every command that
/// reads or writes one, naming the path and `amem init`, and nothing is
/// created there (issue 41: `capture`, `index`, `recall` and `factcheck`
/// made a new empty home wherever a mistyped `--home` pointed). `amem init`
/// and `amem audit chat-history --init` create one.
#[test]
fn a_missing_home_is_a_usage_error_and_only_init_creates_one() {
    let t = TestDir::new();
    let missing = t.dir.path().join("no-such-home");
    let note = t.write("note.md", "# Falcon\n\nThe Falcon team has 14 engineers.\n");
    let mbox = t.write(
        "a.mbox",
        "From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nThe team has 14 engineers.\n",
    );
    let source = format!("gmail:{}", mbox.display());
    let note_arg = note.display().to_string();
    let commands: [&[&str]; 9] = [
        &["recall", "Falcon"],
        &["index"],
        &["open", "amem://x#chunk=0"],
        &["capture", &note_arg],
        &["factcheck", "--offline", "The team has 14 engineers."],
        &["unverified", "list"],
        &["grounding", "list"],
        &["mcp", "call", "amem_recall", "{\"query\": \"Falcon\"}"],
        &["audit", "chat-history", "--offline", "--since", "2001-01-01", "--source", &source],
    ];
    for args in commands {
        for via_env in [false, true] {
            let mut c = t.amem();
            c.arg("--no-models").args(args);
            if via_env {
                c.env("AMEM_HOME", &missing);
            } else {
                c.arg("--home").arg(&missing);
            }
            let (_, err) = code(&mut c, 2);
            assert!(
                err.contains(&format!("the home {} does not exist", missing.display())) && err.contains("amem init"),
                "{args:?}: {err}"
            );
            assert!(!missing.exists(), "{args:?} created the home");
        }
    }
    // A file where the home should be is no home either.
    let file = t.write("a-file", "x");
    let mut c = t.amem();
    c.args(["recall", "x", "--home"]).arg(&file);
    let (_, err) = code(&mut c, 2);
    assert!(err.contains("is not a folder"), "{err}");
    // `amem init` creates it; then the commands run.
    let mut c = t.amem();
    c.args(["init", "--home"]).arg(&missing);
    let (_, err) = code(&mut c, 0);
    assert!(missing.join("wiki").is_dir() && err.contains("created the home"), "{err}");
    let mut c = t.amem();
    c.args(["--no-models", "capture"]).arg(&note).arg("--home").arg(&missing);
    ok(&mut c);
    let mut c = t.amem();
    c.args(["recall", "Falcon", "--home"]).arg(&missing);
    assert!(ok(&mut c).contains("amem://falcon-"));
    // Again: nothing to do, nothing said about creating.
    let mut c = t.amem();
    c.args(["init", "--home"]).arg(&missing);
    let (_, err) = code(&mut c, 0);
    assert!(!err.contains("created"), "{err}");
    // `audit chat-history --init` creates a home and audits into it.
    let fresh = t.dir.path().join("fresh-home");
    let mut c = t.amem();
    c.args(["--no-models", "audit", "chat-history", "--init", "--offline", "--since", "2001-01-01", "--source", &source, "--home"])
        .arg(&fresh);
    ok(&mut c);
    assert!(fresh.join("wiki").is_dir() && fresh.join("ledger.sqlite").is_file());
}

/// Issue 41, item 6: `amem man` writes a page per command and subcommand
/// (`--out DIR`, named as git names its pages), prints one command's page,
/// and names a command that does not exist as a usage error.
#[test]
fn man_pages_for_every_subcommand() {
    let t = TestDir::new();
    let top = ok(t.amem().args(["man"]));
    assert!(top.contains(".TH amem 1"), "{}", &top[..top.len().min(300)]);
    let one = ok(t.amem().args(["man", "audit", "chat-history"]));
    assert!(one.contains(".TH amem-audit-chat-history 1"), "{}", &one[..one.len().min(300)]);
    assert!(one.contains("include\\-forwarded") && one.contains("since"), "the page lists the subcommand's own flags");
    let dir = t.path().join("man1");
    ok(t.amem().args(["man", "--out"]).arg(&dir));
    let mut pages: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    pages.sort();
    for want in ["amem.1", "amem-audit.1", "amem-audit-chat-history.1", "amem-unverified-list.1", "amem-mcp-serve.1", "amem-man.1"] {
        assert!(pages.iter().any(|p| p == want), "{want} missing from {pages:?}");
    }
    assert!(pages.iter().all(|p| !p.contains("-help")), "{pages:?}");
    let (_, err) = code(t.amem().args(["man", "audit", "nothing"]), 2);
    assert!(err.contains("no command \"audit nothing\""), "{err}");
}
