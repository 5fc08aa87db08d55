//! The harness: a fresh temp dir per test, the built binary with a clean
//! environment, and assertions that print everything on failure.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repo root (where Cargo.toml of the `amem` package is).
pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the checkout, or `None` (and a note on stderr saying
/// which test is skipped) when it is absent.
pub(crate) fn shared(test: &str) -> Option<PathBuf> {
    let p = repo_root().join("..").join("shared");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIPPED {test}: ../shared is absent beside the checkout");
        None
    }
}

/// A temp dir holding an `AMEM_HOME` and scratch files.
pub(crate) struct TestDir {
    pub(crate) dir: tempfile::TempDir,
}

impl TestDir {
    /// A scratch folder with an empty home in it (`home/`): the commands
    /// that use a home need one that exists.
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("home")).expect("mkdir home");
        TestDir { dir }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// Write a file (creating folders) and return its path.
    pub(crate) fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.dir.path().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, contents).expect("write");
        p
    }

    /// The `amem` binary with a clean environment and `AMEM_HOME` in this dir.
    pub(crate) fn amem(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_amem"));
        c.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            c.env("PATH", path);
        }
        c.env("AMEM_HOME", self.home());
        c.env("HOME", self.dir.path());
        c.current_dir(self.dir.path());
        c
    }
}

/// Run and return the output, printing the whole context on failure of `check`.
pub(crate) fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("spawn amem")
}

/// Describe a command's result for assertion messages.
pub(crate) fn describe(cmd: &Command, out: &Output) -> String {
    let dir = cmd.get_current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    let listing = cmd
        .get_current_dir()
        .and_then(|d| std::fs::read_dir(d).ok())
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    format!(
        "command: {:?}\ndir: {dir}\nlisting: {listing}\nstatus: {}\n--- stdout\n{}\n--- stderr\n{}",
        cmd,
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Run, assert exit code 0, return stdout as a String.
pub(crate) fn ok(cmd: &mut Command) -> String {
    let out = run(cmd);
    assert!(out.status.success(), "expected success\n{}", describe(cmd, &out));
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// Run, assert the given exit code, return (stdout, stderr).
pub(crate) fn code(cmd: &mut Command, expected: i32) -> (String, String) {
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(expected), "unexpected exit code\n{}", describe(cmd, &out));
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Copy a folder tree, leaving out what a run writes into a home (the
/// ledger and index, reports, the unverified queue, the fetch log, the lock):
/// a copy of `examples/home` is the example as committed.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        let name = e.file_name().to_string_lossy().into_owned();
        if ["ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm", "reports", "unverified", "grounding.log", "amem.lock"]
            .contains(&name.as_str())
        {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A fresh copy of `examples/home` at `to`.
pub(crate) fn copy_example_home(to: &Path) {
    copy_dir(&repo_root().join("examples").join("home"), to);
}

/// A home whose trust list is one arXiv source at `rate`, served on 127.0.0.1 by a server that
/// answers every query with the handmade one-entry feed (an entry on the arXiv API's rate
/// limit), with a wiki of one unrelated note, and a Slack export of `texts` (Ada's, in #general,
/// on 2025-05-20, a second apart): the server, the home and the export's `slack:` source.
pub(crate) fn arxiv_home(t: &TestDir, rate: &str, texts: &[String]) -> (amem_grounding::testing::LoopbackServer, PathBuf, String) {
    use amem_grounding::testing::{LoopbackServer, Reply, routes};
    let atom = std::fs::read(repo_root().join("crates/grounding/tests/fixtures/http/arxiv/handmade-one-entry.atom.xml")).unwrap();
    let server = LoopbackServer::start("127.0.0.1", routes(vec![("/api/query", Reply::ok("application/atom+xml", atom))])).unwrap();
    let home = t.path().join("net-home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    std::fs::write(home.join("wiki/unrelated.md"), "Notes about gardening. Tomatoes need sun.\n").unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[grounding]\nenabled = true\n\n[[grounding.sources]]\nname = \"arxiv-test\"\nurl_pattern = \"{}*\"\npriority = 1\nadapter = \"arxiv\"\nrate = \"{rate}\"\n",
            server.url()
        ),
    )
    .unwrap();
    t.write("slack/channels.json", r#"[{"id":"C1","name":"general"}]"#);
    t.write("slack/users.json", r#"[{"id":"U1","name":"ada","real_name":"Ada"}]"#);
    let messages: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            serde_json::json!({"type": "message", "user": "U1", "text": text, "ts": format!("{}.000100", 1_747_735_200 + i)}).to_string()
        })
        .collect();
    t.write("slack/general/2025-05-20.json", format!("[{}]", messages.join(",")));
    let source = format!("slack:{}", t.path().join("slack").display());
    (server, home, source)
}
