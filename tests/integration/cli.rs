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
