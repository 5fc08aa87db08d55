//! `amem audit chat-history` end to end: the README's first command on a
//! copy of the bundled example home, incremental re-runs, a SIGKILL in the
//! middle of a run, bad input among good, and the Arrow file read by pyarrow.

use crate::util::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The README's first command, as written there (between the first ```sh fence).
fn readme_first_command() -> String {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let mut lines = readme.lines().skip_while(|l| *l != "```sh").skip(1);
    lines.next().expect("a command after the first ```sh fence").to_string()
}

/// A fresh copy of `examples/home` in the test's temp dir.
fn example_home(t: &TestDir) -> PathBuf {
    let home = t.path().join("example-home");
    copy_dir(&repo_root().join("examples").join("home"), &home);
    home
}

fn summary_line(stdout: &str) -> serde_json::Value {
    let line = stdout.lines().find(|l| l.contains("\"run_summary\"")).unwrap_or_else(|| panic!("no run_summary line in {stdout}"));
    serde_json::from_str(line).unwrap()
}

#[test]
fn readme_first_command_audits_the_example_home() {
    let cmd = readme_first_command();
    let args: Vec<&str> = cmd.split_whitespace().collect();
    let dashdash = args.iter().position(|a| *a == "--").expect("the README command runs the binary after `--`");
    let mut args: Vec<String> = args[dashdash + 1..].iter().map(|s| s.to_string()).collect();
    assert_eq!(args[..2], ["audit".to_string(), "chat-history".to_string()], "the README's first command is the audit: {cmd}");
    // Same command, on a copy of the home so the test leaves the repo alone.
    let t = TestDir::new();
    let home = example_home(&t);
    let i = args.iter().position(|a| a == "--home").expect("the README command names --home");
    args[i + 1] = home.display().to_string();
    let mut c = t.amem();
    c.args(&args).arg("--json").arg("--format").arg("md,arrow,jsonl");
    let out = ok(&mut c);
    let s = summary_line(&out);
    let by_group = &s["data"]["summary"]["by_group"];
    for g in ["supported", "contradicted", "unverified"] {
        assert!(by_group[g].as_u64().unwrap_or(0) > 0, "group {g} is empty: {by_group}\n{out}");
    }
    let dir = PathBuf::from(s["data"]["report_dir"].as_str().unwrap());
    let md = std::fs::read_to_string(dir.join("audit.md")).unwrap();
    for heading in ["Supported", "Contradicted", "Unverified", "Skipped", "Not checked"] {
        assert!(md.contains(heading), "audit.md has a {heading} section");
    }
    assert!(md.contains("amem://"), "verdicts cite amem:// evidence");
    // A cited note's time is when it was written, and the report says which time it is: the
    // front matter's date for a dated note, the file's time for one without.
    assert!(md.contains("`wiki/team.md` · written 2025-04-02 (front matter `updated:`)"), "{md}");
    assert!(md.contains("`wiki/places.txt` · modified ") && md.contains(" (file time)"), "{md}");
    // The example home names its user in [me]: the report marks and leads with her claims.
    assert!(md.contains("(you)") && md.contains("## What needs attention"), "{md}");
    assert!(dir.join("audit.arrow").is_file() && dir.join("audit.jsonl").is_file());
    // Every source format contributed messages.
    let jsonl = std::fs::read_to_string(dir.join("audit.jsonl")).unwrap();
    for kind in ["slack", "imessage", "gmail", "enron", "enron-csv"] {
        assert!(jsonl.contains(&format!("\"source\":\"{kind}\"")), "no row from {kind}");
    }
}

#[test]
fn rerun_is_incremental_and_rerun_flag_reassesses() {
    let t = TestDir::new();
    let home = example_home(&t);
    let run = |extra: &[&str]| {
        let mut c = t.amem();
        c.args(["audit", "chat-history", "--since", "2001-01-01", "--now", "2025-06-01T00:00:00Z", "--json", "--home"])
            .arg(&home)
            .args(extra);
        summary_line(&ok(&mut c))
    };
    let first = run(&[]);
    let n = first["data"]["summary"]["messages_read"].as_u64().unwrap();
    assert!(n > 0);
    assert_eq!(first["data"]["summary"]["messages_already_assessed"], 0);
    // A nightly run a day later sees nothing new.
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--now", "2025-06-02T00:00:00Z", "--json", "--home"]).arg(&home);
    let second = summary_line(&ok(&mut c));
    assert_eq!(second["data"]["summary"]["messages_already_assessed"].as_u64().unwrap(), n);
    assert_eq!(second["data"]["summary"]["assessed"], 0);
    let third = run(&["--rerun"]);
    assert_eq!(third["data"]["summary"]["assessed"], first["data"]["summary"]["assessed"]);
}

#[test]
fn no_sources_says_how_to_name_one() {
    let t = TestDir::new();
    let (_, err) = code(t.amem().args(["audit", "chat-history"]), 1);
    assert!(err.contains("--source KIND:PATH") && err.contains("[[imports]]"), "{err}");
}

#[test]
fn missing_source_is_an_error_before_any_work() {
    let t = TestDir::new();
    let (_, err) = code(t.amem().args(["audit", "chat-history", "--source", "gmail:nope.mbox"]), 1);
    assert!(err.contains("nope.mbox"), "{err}");
    assert!(!t.home().join("ledger.sqlite").exists(), "nothing was started");
}

#[test]
fn corrupt_file_among_good_ones_is_counted_not_fatal() {
    let t = TestDir::new();
    let home = example_home(&t);
    let bad = t.write("bad/2025-05-20.json", "[{\"type\": \"message\", \"text\": \"trunc");
    std::fs::create_dir_all(t.path().join("badslack/general")).unwrap();
    std::fs::write(t.path().join("badslack/channels.json"), r#"[{"id":"C1","name":"general"}]"#).unwrap();
    std::fs::write(t.path().join("badslack/users.json"), "[]").unwrap();
    std::fs::copy(&bad, t.path().join("badslack/general/2025-05-20.json")).unwrap();
    std::fs::write(
        t.path().join("badslack/general/2025-05-21.json"),
        r#"[{"type":"message","user":"U1","text":"The Eiffel Tower was completed in 1889.","ts":"1747818000.000100"}]"#,
    )
    .unwrap();
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--json", "--home"])
        .arg(&home)
        .arg("--source")
        .arg(format!("slack:{}", t.path().join("badslack").display()));
    let out = ok(&mut c);
    let s = summary_line(&out);
    assert!(s["data"]["summary"]["skipped"]["total"].as_u64().unwrap() >= 1, "{s}");
    assert!(s["data"]["summary"]["assessed"].as_u64().unwrap() >= 1, "the good day file was audited: {s}");
    let dir = PathBuf::from(s["data"]["report_dir"].as_str().unwrap());
    let md = std::fs::read_to_string(dir.join("audit.md")).unwrap();
    assert!(md.contains("2025-05-20.json"), "the report names the skipped file");
    // --strict turns skipped records into exit code 1.
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--rerun", "--strict", "--home"])
        .arg(&home)
        .arg("--source")
        .arg(format!("slack:{}", t.path().join("badslack").display()));
    code(&mut c, 1);
}

#[test]
fn fail_on_contradicted_exits_3() {
    let t = TestDir::new();
    let home = example_home(&t);
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--fail-on", "contradicted", "--home"]).arg(&home);
    code(&mut c, 3);
}

#[test]
fn two_runs_on_one_home_are_refused_naming_the_holder() {
    let t = TestDir::new();
    let home = example_home(&t);
    // The lock of a live process (this test's own) on this host.
    let lock =
        format!("pid={}\nhost={}\nstarted_at=2025-01-01T00:00:00Z\ncommand=amem audit chat-history\n", std::process::id(), hostname());
    std::fs::write(home.join("amem.lock"), lock).unwrap();
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--home"]).arg(&home);
    let (_, err) = code(&mut c, 1);
    assert!(err.contains(&std::process::id().to_string()), "names the holder: {err}");
}

/// Run an audit (`--json`, reports including `jsonl` and `md`): its summary,
/// its report rows (`audit.jsonl`'s assessments) and its `audit.md`.
fn audit_report(c: &mut Command) -> (serde_json::Value, Vec<serde_json::Value>, String) {
    let s = summary_line(&ok(c));
    let dir = PathBuf::from(s["data"]["report_dir"].as_str().unwrap());
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "assessment")
        .map(|v| v["data"].clone())
        .collect();
    (s["data"]["summary"].clone(), rows, std::fs::read_to_string(dir.join("audit.md")).unwrap())
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_default()
}

/// Generate an mbox of `n` real-format messages with varied ids and dates.
/// `n` mails from seven people, each with a subject of its own: a subject
/// that repeated day after day would make a sender's template (bulk mail,
/// src/templates.rs) and leave this archive nearly nothing to audit.
fn big_mbox(path: &Path, n: usize) {
    let mut s = String::new();
    let letters = |mut i: usize| {
        let mut w = String::new();
        loop {
            w.push((b'a' + (i % 26) as u8) as char);
            i /= 26;
            if i == 0 {
                return w;
            }
        }
    };
    for i in 0..n {
        let day = 1 + (i % 28);
        s.push_str(&format!(
            "From {i}@xxx Mon May {day:02} 10:00:00 +0000 2025\nMessage-ID: <gen-{i}@example.org>\nDate: Mon, {day} May 2025 10:{:02}:00 +0000\nFrom: Sender {} <s{}@example.org>\nTo: team@example.org\nSubject: update {}\n\nThe launch budget was ${}.{} million this quarter. Berlin office has {} employees.\nCan you send me the file?\n\n",
            i % 60,
            i % 7,
            i % 7,
            letters(i),
            1 + i % 3,
            i % 10,
            30 + i % 20
        ));
    }
    std::fs::write(path, s).unwrap();
}

fn ledger_messages(home: &Path) -> i64 {
    let Ok(conn) = rusqlite::Connection::open_with_flags(home.join("ledger.sqlite"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY) else {
        return 0;
    };
    conn.query_row("SELECT count(*) FROM message_assessed", [], |r| r.get(0)).unwrap_or(0)
}

/// The offline, reproducible audit of one generated mbox into `home` that
/// the kill test runs twice (once to completion, once to be killed).
fn audit_mbox(t: &TestDir, home: &Path, mbox: &Path) -> Command {
    let mut c = t.amem();
    c.args([
        "audit",
        "chat-history",
        "--since",
        "2001-01-01",
        "--now",
        "2025-06-01T00:00:00Z",
        "--offline",
        "--format",
        "md,jsonl",
        "--home",
    ])
    .arg(home)
    .arg("--source")
    .arg(format!("gmail:{}", mbox.display()));
    c
}

/// The report of a run with its own run id and home path replaced, and its summary.
fn report_rows(home: &Path, t: &TestDir, mbox: &Path) -> (String, serde_json::Value) {
    let mut c = audit_mbox(t, home, mbox);
    c.arg("--json");
    let s = summary_line(&ok(&mut c));
    let dir = PathBuf::from(s["data"]["report_dir"].as_str().unwrap());
    let md = std::fs::read_to_string(dir.join("audit.md")).unwrap();
    let md = md.replace(s["data"]["run_id"].as_str().unwrap(), "RUN").replace(&home.display().to_string(), "HOME");
    (md, s["data"]["summary"].clone())
}

/// A run killed with SIGKILL, or stopped with Ctrl-C, and started again
/// ends with the same report and counts as an uninterrupted run, and no
/// duplicate rows.
#[test]
fn killed_or_interrupted_run_resumes_to_the_uninterrupted_report() {
    let t = TestDir::new();
    let mbox = t.path().join("big.mbox");
    big_mbox(&mbox, 3000);
    let wiki_note = "Project notes. The launch budget was $1.2 million. The Berlin office has 42 employees.\n";
    let (a, b) = (t.path().join("home-a"), t.path().join("home-b"));
    for h in [&a, &b] {
        std::fs::create_dir_all(h.join("wiki")).unwrap();
        std::fs::write(h.join("wiki").join("notes.md"), wiki_note).unwrap();
        // The report shows a note's modification time: the same note, the same time.
        let f = std::fs::File::options().write(true).open(h.join("wiki").join("notes.md")).unwrap();
        f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_714_000_000)).unwrap();
        drop(f);
    }
    // Uninterrupted.
    let (md_a, sum_a) = report_rows(&a, &t, &mbox);
    // Interrupted: start, wait until some messages are recorded, SIGKILL.
    let mut c = audit_mbox(&t, &b, &mbox);
    let mut child = c.spawn().unwrap();
    let start = std::time::Instant::now();
    while ledger_messages(&b) == 0 && start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed_at = ledger_messages(&b);
    let _ = Command::new("kill").arg("-9").arg(child.id().to_string()).status();
    let _ = child.wait();
    assert!(killed_at > 0, "the run recorded something before the kill");
    let _ = std::fs::remove_file(b.join("amem.lock")); // the dead holder's lock is detected as stale anyway
    let (md_b, sum_b) = report_rows(&b, &t, &mbox);
    let (ra, rb) = (md_a, md_b);
    if ra != rb {
        let first = ra.lines().zip(rb.lines()).position(|(x, y)| x != y).unwrap_or(0);
        let at = |s: &str| s.lines().skip(first.saturating_sub(2)).take(5).collect::<Vec<_>>().join("\n");
        panic!("the resumed report differs from line {first}:\n--- uninterrupted\n{}\n--- resumed\n{}", at(&ra), at(&rb));
    }
    for k in ["messages_read", "assessed", "by_status", "by_group", "claims_by_kind", "audited"] {
        assert_eq!(sum_a[k], sum_b[k], "{k}");
    }
    assert_eq!(ledger_messages(&a), ledger_messages(&b), "no duplicate messages");

    // Ctrl-C (SIGINT): the run stops reading, records what it read, says
    // how to resume and exits 130 without writing a report; the same
    // command then resumes it to the same report.
    let c_home = t.path().join("home-c");
    std::fs::create_dir_all(c_home.join("wiki")).unwrap();
    std::fs::write(c_home.join("wiki").join("notes.md"), wiki_note).unwrap();
    let f = std::fs::File::options().write(true).open(c_home.join("wiki").join("notes.md")).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_714_000_000)).unwrap();
    drop(f);
    let mut c = audit_mbox(&t, &c_home, &mbox);
    let child = c.stderr(std::process::Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    while ledger_messages(&c_home) == 0 && start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = Command::new("kill").arg("-INT").arg(child.id().to_string()).status();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "exit code after Ctrl-C; stderr: {err}");
    assert!(err.contains("run the same command to resume"), "{err}");
    let recorded = ledger_messages(&c_home);
    assert!(recorded > 0 && recorded < ledger_messages(&a), "stopped part way: {recorded} recorded");
    assert!(!c_home.join("reports").exists(), "no report for an interrupted run");
    let (md_c, sum_c) = report_rows(&c_home, &t, &mbox);
    assert_eq!(md_c, ra, "the resumed report is the uninterrupted one");
    assert_eq!(sum_a["assessed"], sum_c["assessed"]);
    assert_eq!(ledger_messages(&a), ledger_messages(&c_home), "no duplicate messages");
}

/// The Arrow report opens in pyarrow unchanged (CI installs pyarrow).
#[test]
fn arrow_report_opens_in_pyarrow() {
    let probe = Command::new("python3").args(["-c", "import pyarrow"]).output();
    if !probe.map(|o| o.status.success()).unwrap_or(false) {
        eprintln!("SKIPPED arrow_report_opens_in_pyarrow: python3 with pyarrow is not installed");
        return;
    }
    let t = TestDir::new();
    let home = example_home(&t);
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--json", "--home"]).arg(&home);
    let s = summary_line(&ok(&mut c));
    let arrow = PathBuf::from(s["data"]["report_dir"].as_str().unwrap()).join("audit.arrow");
    let rows = s["data"]["summary"]["assessed"].as_u64().unwrap();
    let script = r#"
import sys, pyarrow.ipc as ipc
t = ipc.open_file(sys.argv[1]).read_all()
names = t.schema.names
for f in ["run_id", "source_kind", "sent_at", "claim_id", "text", "status", "group", "evidence", "gate_flags"]:
    assert f in names, f
assert str(t.schema.field("sent_at").type) == "timestamp[us, tz=UTC]", t.schema.field("sent_at").type
groups = set(t.column("group").to_pylist())
print(t.num_rows, ",".join(sorted(groups)))
"#;
    let out = Command::new("python3").arg("-c").arg(script).arg(&arrow).output().unwrap();
    assert!(out.status.success(), "pyarrow: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.trim(), format!("{rows} contradicted,supported,unverified"));
}

/// The unverified queue: list, reject with a reason, capture a source and reassess.
#[test]
fn unverified_queue_list_reject_capture() {
    let t = TestDir::new();
    let home = example_home(&t);
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--now", "2025-06-01T00:00:00Z", "--home"]).arg(&home);
    ok(&mut c);
    let list = |t: &TestDir| -> Vec<serde_json::Value> {
        let mut c = t.amem();
        c.args(["unverified", "list", "--json", "--home"]).arg(&home);
        ok(&mut c).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    };
    let items = list(&t);
    assert!(items.len() >= 2, "the example home files unverified claims");
    let find = |items: &[serde_json::Value], needle: &str| -> String {
        items
            .iter()
            .find(|v| v["record"]["claim"]["text"].as_str().unwrap_or_default().contains(needle))
            .unwrap_or_else(|| panic!("no unverified claim containing {needle:?}"))["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // (the bakery's opening, which this test captured before, is no longer audited: the
    // check-worthiness model finds a shop's opening day not worth checking)
    let paper = find(&items, "Transformer paper");
    let other = items.iter().map(|v| v["id"].as_str().unwrap().to_string()).find(|id| *id != paper).unwrap();

    // Reject one: it leaves the queue, the reason is kept.
    let mut c = t.amem();
    c.args(["unverified", "reject", &other, "--why", "a joke, not a claim", "--home"]).arg(&home);
    ok(&mut c);
    assert!(!list(&t).iter().any(|v| v["id"] == other.as_str()));
    let log = std::fs::read_to_string(home.join("unverified/rejected.jsonl")).unwrap();
    assert!(log.contains("a joke, not a claim"));
    // Reassessing everything files the other unverified claims again, never the rejected one.
    let before = list(&t).len();
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--rerun", "--since", "2001-01-01", "--now", "2025-06-01T00:00:00Z", "--home"]).arg(&home);
    ok(&mut c);
    let after = list(&t);
    assert!(!after.iter().any(|v| v["id"] == other.as_str()), "a rejected claim stays off the queue");
    assert_eq!(after.len(), before);

    // Capture a source for the other and reassess: supported, off the queue, in the ledger.
    let src = t.write("transformer.txt", "Reading list note: the Transformer paper came out in 2017.\n");
    let mut c = t.amem();
    c.args(["unverified", "capture", &paper[..8]]).arg(&src).args(["--source", "https://example.org/transformer", "--home"]).arg(&home);
    let out = ok(&mut c);
    assert!(out.contains("supported") && out.contains("amem://"), "{out}");
    assert!(!list(&t).iter().any(|v| v["id"] == paper.as_str()));
    let conn = rusqlite::Connection::open(home.join("ledger.sqlite")).unwrap();
    let n: i64 = conn
        .query_row(
            "SELECT count(*) FROM assessments a JOIN names m ON m.id = a.method JOIN names s ON s.id = a.status \
             WHERE s.name = 'supported' AND m.name LIKE 'deterministic%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(n >= 1);
    // Unknown ids are clear errors.
    let mut c = t.amem();
    c.args(["unverified", "reject", "ffffffffffff", "--why", "x", "--home"]).arg(&home);
    let (_, err) = code(&mut c, 1);
    assert!(err.contains("no unverified claim"), "{err}");
}

/// The network stage inside the audit: a claim the wiki cannot settle is
/// grounded on the trust list (a loopback arXiv server), captured into the
/// wiki and decided again; the next run answers it locally with no request,
/// and `--offline` asks nobody.
#[test]
fn audit_grounds_a_local_miss_on_the_trust_list_then_answers_locally() {
    let t = TestDir::new();
    let (server, home, source) = arxiv_home(&t, "20/s", &["The arXiv API allows one request every three seconds per client.".to_string()]);
    let run = |extra: &[&str]| {
        let mut c = t.amem();
        c.args([
            "audit",
            "chat-history",
            "--since",
            "2025-01-01",
            "--now",
            "2025-06-01T00:00:00Z",
            "--json",
            "--format",
            "md,jsonl",
            "--home",
        ])
        .arg(&home)
        .args(["--source", &source])
        .args(extra);
        summary_line(&ok(&mut c))
    };
    let first = run(&[]);
    assert_eq!(server.count(), 1, "one request for the one local miss");
    assert_eq!(first["data"]["summary"]["fetches"], 1, "{first}");
    assert_eq!(first["data"]["summary"]["by_group"]["supported"], 1, "{first}");
    let dir = PathBuf::from(first["data"]["report_dir"].as_str().unwrap());
    let jsonl = std::fs::read_to_string(dir.join("audit.jsonl")).unwrap();
    assert!(jsonl.contains("+trust-list\""), "the verdict names the trust-list path: {jsonl}");
    assert!(std::fs::read_dir(home.join("wiki/captured")).unwrap().count() == 1, "the fetched document was captured");
    // Next run: a local hit, no request.
    let second = run(&["--rerun"]);
    assert_eq!(server.count(), 1, "answered from the wiki");
    assert_eq!(second["data"]["summary"]["by_group"]["supported"], 1);
    assert_eq!(second["data"]["summary"]["local_hits"], 1);
    // Offline asks nobody, whatever the trust list says.
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2025-01-01", "--offline", "--rerun", "--home"]).arg(&home).args(["--source", &source]);
    ok(&mut c);
    assert_eq!(server.count(), 1);
}

/// Issue 16: a trust-list source that asks for a 15-minute pause. Both
/// claims are reported `source_unavailable` (never `no_evidence`), the run
/// finishes at once, and the circuit keeps the host from being asked again
/// for the second claim. (The dead-host case, time-outs opening the same
/// circuit, is `r16_dead_host_opens_a_circuit_shared_by_every_claim` in
/// the grounding crate, with short time-outs.)
#[test]
fn r16_unreachable_source_is_reported_source_unavailable() {
    use amem_grounding::testing::{LoopbackServer, Reply, routes};
    let server = LoopbackServer::start("127.0.0.1", routes(vec![("/", Reply::status(503).header("Retry-After", "900"))])).unwrap();
    let t = TestDir::new();
    let home = t.path().join("down-home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    std::fs::write(home.join("wiki/unrelated.md"), "Notes about gardening. Tomatoes need sun.\n").unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[grounding]\nenabled = true\n\n[[grounding.sources]]\nname = \"down\"\nurl_pattern = \"{}*\"\npriority = 1\nadapter = \"arxiv\"\nrate = \"20/s\"\n",
            server.url()
        ),
    )
    .unwrap();
    t.write("slack/channels.json", r#"[{"id":"C1","name":"general"}]"#);
    t.write("slack/users.json", r#"[{"id":"U1","name":"ada","real_name":"Ada"}]"#);
    t.write(
        "slack/general/2025-05-20.json",
        r#"[{"type":"message","user":"U1","text":"The arXiv API allows one request every three seconds per client.","ts":"1747735200.000100"},
            {"type":"message","user":"U1","text":"The Zenodo API allows sixty requests per minute per client.","ts":"1747735300.000100"}]"#,
    );
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2025-01-01", "--now", "2025-06-01T00:00:00Z", "--json", "--format", "md,jsonl", "--home"])
        .arg(&home)
        .arg("--source")
        .arg(format!("slack:{}", t.path().join("slack").display()));
    let out = summary_line(&ok(&mut c));
    assert_eq!(server.count(), 1, "the Retry-After opened the circuit for the second claim too");
    let summary = &out["data"]["summary"];
    assert_eq!(summary["by_status"]["source_unavailable"], 2, "{out}");
    assert!(summary["by_status"].get("no_evidence").is_none(), "{out}");
    let dir = PathBuf::from(out["data"]["report_dir"].as_str().unwrap());
    let jsonl = std::fs::read_to_string(dir.join("audit.jsonl")).unwrap();
    let statuses: Vec<String> = jsonl
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["data"]["assessment"]["status"].as_str().map(str::to_string))
        .collect();
    assert_eq!(statuses, ["source_unavailable", "source_unavailable"], "{jsonl}");
    let md = std::fs::read_to_string(dir.join("audit.md")).unwrap();
    assert!(md.contains("source_unavailable"), "{md}");
}

/// The example home's chat.db is the committed chat.sql, built: the two agree
/// row for row, so the binary file can be reviewed as text.
#[test]
fn example_chat_db_matches_its_sql() {
    let dir = repo_root().join("examples/home/exports/imessage");
    let sql = std::fs::read_to_string(dir.join("chat.sql")).unwrap();
    let built = rusqlite::Connection::open_in_memory().unwrap();
    built.execute_batch(&sql).unwrap();
    let committed = rusqlite::Connection::open_with_flags(dir.join("chat.db"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    for q in [
        "SELECT ROWID, guid, text, handle_id, date, is_from_me, associated_message_type FROM message ORDER BY ROWID",
        "SELECT ROWID, id, service FROM handle ORDER BY ROWID",
        "SELECT ROWID, guid, style, display_name FROM chat ORDER BY ROWID",
        "SELECT chat_id, message_id FROM chat_message_join ORDER BY chat_id, message_id",
    ] {
        let rows = |c: &rusqlite::Connection| -> Vec<String> {
            let mut st = c.prepare(q).unwrap();
            let n = st.column_count();
            st.query_map([], |r| Ok((0..n).map(|i| format!("{:?}", r.get_ref(i).unwrap())).collect::<Vec<_>>().join("|")))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(rows(&built), rows(&committed), "{q}");
    }
}

/// `[me]`, `--who`, bulk mail and HTML in a text/plain part, end to end on
/// one small mbox: bulk and automated mail is skipped and counted by reason
/// unless `--include-bulk`; `--who me` keeps the user's own (matched
/// case-insensitively on the From address); the user's claims are marked
/// in every report; no tag of an HTML plain part reaches a claim.
#[test]
fn whose_claims_and_which_mail() {
    let t = TestDir::new();
    let home = t.path().join("home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    std::fs::write(home.join("config.toml"), "[me]\nemails = [\"ANN@example.org\"]\n").unwrap();
    let mbox = t.path().join("mail.mbox");
    let mail = |n: u32, from: &str, extra: &str, body: &str| {
        format!(
            "From x@x Mon May 05 10:00:00 +0000 2025\nMessage-ID: <w{n}@example.org>\nDate: Mon, 5 May 2025 10:0{n}:00 +0000\nFrom: {from}\n{extra}Subject: s{n}\n\n{body}\n\n"
        )
    };
    let text = [
        mail(1, "Ann <ann@example.org>", "", "The Berlin office has 40 employees."),
        mail(
            2,
            "Shop <deals@shop.example>",
            "List-Unsubscribe: <mailto:u@shop.example>\n",
            "The sale ends on Friday with 50% off every order.",
        ),
        mail(3, "GitHub <noreply@github.com>", "", "Build 42 passed on main in 3 minutes."),
        mail(4, "Bob <bob@example.org>", "", "The launch budget was $2 million in 2024."),
        mail(
            5,
            "Bob <bob@example.org>",
            "Content-Type: text/plain\n",
            "<FONT FACE=\"Arial, Helvetica\">Gas prices rose 4% on Monday.</FONT><BR>",
        ),
    ]
    .concat();
    std::fs::write(&mbox, text).unwrap();
    let run = |extra: &[&str]| {
        let mut c = t.amem();
        c.args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--now", "2025-06-01T00:00:00Z", "--json"])
            .args(["--format", "md,jsonl", "--home"])
            .arg(&home)
            .arg("--source")
            .arg(format!("gmail:{}", mbox.display()))
            .args(extra);
        audit_report(&mut c)
    };
    let authors = |rows: &[serde_json::Value]| {
        let mut a: Vec<String> = rows.iter().map(|r| r["author"].as_str().unwrap().to_string()).collect();
        a.sort();
        a.dedup();
        a
    };

    let (s, rows, md) = run(&[]);
    assert_eq!(s["skipped"]["by_stage"]["select"]["bulk: list-unsubscribe"], 1, "{s}");
    assert_eq!(s["skipped"]["by_stage"]["select"]["bulk: automated sender"], 1, "{s}");
    assert_eq!(authors(&rows), ["Ann <ann@example.org>", "Bob <bob@example.org>"]);
    assert!(rows.iter().all(|r| r["from_me"] == (r["author"] == "Ann <ann@example.org>")), "{rows:?}");
    assert!(rows.iter().any(|r| r["claim"]["text"].as_str().unwrap().contains("Gas prices rose 4%")), "{rows:?}");
    assert!(rows.iter().all(|r| !r["claim"]["text"].as_str().unwrap().contains('<')), "{rows:?}");
    assert!(md.contains("**Ann \\<ann@example.org\\>** (you)"), "{md}");
    assert!(md.contains("| select | bulk: list-unsubscribe | 1 |"), "{md}");
    assert_eq!(s["messages_already_assessed"], 0, "skipped mail is not counted as already assessed");

    let (s, rows, _) = run(&["--who", "me", "--rerun"]);
    assert_eq!(authors(&rows), ["Ann <ann@example.org>"]);
    assert_eq!(s["skipped"]["by_stage"]["select"]["--who me: not the user's"], 4, "{s}");

    let (_, rows, _) = run(&["--include-bulk", "--rerun"]);
    assert_eq!(authors(&rows).len(), 4, "{:?}", authors(&rows));
}

/// A damaged line in the unverified queue is skipped and named, and the
/// rest of the queue is listed (issue 40: one corrupt line made
/// `unverified list` exit 1 with nothing listed).
#[test]
fn unverified_list_skips_and_names_a_damaged_queue_line() {
    let t = TestDir::new();
    let home = example_home(&t);
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--now", "2025-06-01T00:00:00Z", "--offline", "--home"]).arg(&home);
    ok(&mut c);
    let queue = std::fs::read_dir(home.join("unverified"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "jsonl") && !p.ends_with("rejected.jsonl"))
        .expect("the audit filed a queue file");
    let listed = |t: &TestDir| {
        let mut c = t.amem();
        c.args(["unverified", "list", "--json", "--home"]).arg(&home);
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8_lossy(&out.stdout).lines().count(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (before, _) = listed(&t);
    assert!(before >= 2);
    let mut text = std::fs::read_to_string(&queue).unwrap();
    let damaged_line = text.lines().count() + 1;
    text.push_str("{\"filed\": {\"not\": \"a record\"\n");
    std::fs::write(&queue, text).unwrap();
    let (after, err) = listed(&t);
    assert_eq!(after, before, "every intact entry is still listed");
    assert!(err.contains(&format!("{}:{damaged_line}", queue.display())) && err.contains("1 damaged entry skipped"), "{err}");
}

/// `--out` inside the wiki is refused before any work (issue 40: the report
/// was indexed on `--rerun` and cited, contradicted 5 → 0, supported 5 → 8,
/// all citing `amem://amem-audit-run-…`).
#[test]
fn a_report_folder_inside_the_wiki_is_refused() {
    let t = TestDir::new();
    let home = example_home(&t);
    for out in [home.join("wiki/reports"), home.join("wiki"), home.join("wiki/../wiki/new/deeper")] {
        let mut c = t.amem();
        c.args(["audit", "chat-history", "--since", "2001-01-01", "--offline", "--home"]).arg(&home).arg("--out").arg(&out);
        let (_, err) = code(&mut c, 2);
        assert!(err.contains("is inside the wiki"), "{}: {err}", out.display());
    }
    assert!(!home.join("wiki/reports").exists() && !home.join("wiki/new").exists(), "nothing was written");
    // Beside the wiki is fine.
    let mut c = t.amem();
    c.args(["audit", "chat-history", "--since", "2001-01-01", "--offline", "--home"])
        .arg(&home)
        .arg("--out")
        .arg(home.join("wiki-reports"));
    ok(&mut c);
}

/// A report copied into the wiki is never indexed or cited (issue 40: with
/// the report inside `wiki/`, `--rerun` cited it: contradicted 5 → 0,
/// supported 5 → 8, every one citing `amem://amem-audit-run-…`).
#[test]
fn a_report_inside_the_wiki_is_never_cited() {
    let t = TestDir::new();
    let home = example_home(&t);
    let run = |extra: &[&str]| {
        let mut c = t.amem();
        c.args(["audit", "chat-history", "--since", "2001-01-01", "--now", "2025-06-01T00:00:00Z", "--offline", "--json", "--home"])
            .arg(&home)
            .args(extra);
        summary_line(&ok(&mut c))
    };
    let first = run(&[]);
    let dir = PathBuf::from(first["data"]["report_dir"].as_str().unwrap());
    std::fs::create_dir_all(home.join("wiki/copied")).unwrap();
    std::fs::copy(dir.join("audit.md"), home.join("wiki/copied/audit.md")).unwrap();
    let mut index = t.amem();
    index.args(["index", "--home"]).arg(&home);
    let out = index.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains("copied/audit.md") && err.contains("an amem audit report"), "{err}");
    let again = run(&["--rerun"]);
    assert_eq!(again["data"]["summary"]["by_group"], first["data"]["summary"]["by_group"]);
    let md = std::fs::read_to_string(PathBuf::from(again["data"]["report_dir"].as_str().unwrap()).join("audit.md")).unwrap();
    assert!(!md.contains("amem://amem-audit-run"), "the report cites a report");
}

/// `unverified list` filters by status, author, conversation and time,
/// newest or most check-worthy first with `--sort`, at most `--limit` (issue 41, item 6): each
/// filter's answer is the unfiltered queue filtered here by the same rule.
#[test]
fn unverified_list_filters_orders_and_limits() {
    let t = TestDir::new();
    let home = example_home(&t);
    let mut c = t.amem();
    c.args(["--no-models", "audit", "chat-history", "--since", "2001-01-01", "--now", "2025-06-01T00:00:00Z", "--offline", "--home"])
        .arg(&home);
    ok(&mut c);
    let listed = |args: &[&str]| -> Vec<serde_json::Value> {
        let mut c = t.amem();
        c.args(["unverified", "list", "--json", "--home"]).arg(&home).args(args);
        ok(&mut c).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    };
    let ids = |v: &[serde_json::Value]| v.iter().map(|x| x["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let all = listed(&[]);
    assert!(all.len() >= 4, "the example home files several unverified claims: {}", all.len());
    let pick = |keep: &dyn Fn(&serde_json::Value) -> bool| ids(&all.iter().filter(|x| keep(x)).cloned().collect::<Vec<_>>());
    let status = |x: &serde_json::Value| x["record"]["assessment"]["status"].as_str().unwrap().to_string();
    let one_status = status(&all[0]);
    assert_eq!(ids(&listed(&["--status", &one_status])), pick(&|x| status(x) == one_status));
    assert_eq!(ids(&listed(&["--status", &format!("{one_status},stale")])), pick(&|x| status(x) == one_status || status(x) == "stale"));
    let author = all[0]["record"]["author"].as_str().unwrap().to_string();
    let part = author.chars().take(4).collect::<String>().to_uppercase();
    let by_author = listed(&["--author", &part]);
    assert_eq!(ids(&by_author), pick(&|x| x["record"]["author"].as_str().unwrap().to_lowercase().contains(&part.to_lowercase())));
    assert!(!by_author.is_empty());
    let conversation = all[0]["record"]["conversation"].as_str().unwrap().to_string();
    assert_eq!(
        ids(&listed(&["--conversation", &conversation])),
        pick(&|x| { x["record"]["conversation"].as_str().unwrap().to_lowercase().contains(&conversation.to_lowercase()) })
    );
    // Time: the sent times sorted, a cut between two of them.
    let sent = |x: &serde_json::Value| x["record"]["sent_at"].as_str().unwrap().parse::<jiff::Timestamp>().unwrap();
    let mut times: Vec<_> = all.iter().map(sent).collect();
    times.sort();
    let cut = times[times.len() / 2];
    assert_eq!(ids(&listed(&["--since", &cut.to_string()])), pick(&|x| sent(x) >= cut));
    assert_eq!(ids(&listed(&["--until", &cut.to_string()])), pick(&|x| sent(x) < cut));
    // Newest first, then at most two.
    let newest = listed(&["--sort", "newest"]);
    assert_eq!(newest.len(), all.len());
    assert!(newest.windows(2).all(|w| sent(&w[0]) >= sent(&w[1])), "{:?}", ids(&newest));
    assert_eq!(ids(&listed(&["--sort", "newest", "--limit", "2"])), ids(&newest)[..2].to_vec());
    // Most check-worthy first: the same order as the record's own score.
    let worthy = listed(&["--sort", "check-worthy"]);
    let worth = |x: &serde_json::Value| serde_json::from_value::<amem_records::AuditRecord>(x["record"].clone()).unwrap().check_worth();
    assert_eq!(worthy.len(), all.len());
    assert!(worthy.windows(2).all(|w| worth(&w[0]) >= worth(&w[1])), "{:?}", worthy.iter().map(worth).collect::<Vec<_>>());
    assert!(worth(&worthy[0]) > worth(&worthy[worthy.len() - 1]), "the example queue is not all one score");
    // A status that is not one is a usage error naming the known ones.
    let mut c = t.amem();
    c.args(["unverified", "list", "--status", "maybe", "--home"]).arg(&home);
    let (_, err) = code(&mut c, 2);
    assert!(err.contains("\"maybe\" is not a status") && err.contains("no_evidence"), "{err}");
}

/// Issue 41, item 3: one mail filed in three Enron folders (a new
/// Message-ID in each, as Enron's archive does) and once more in an mbox
/// export (the same Message-ID as one of them) is audited once; its rows
/// list where else it was filed; the counts say how many copies were read.
/// A later run over the same archives reads the copies as copies again,
/// through the ledger, and audits nothing twice.
#[test]
fn each_mail_is_audited_once_wherever_it_is_filed() {
    let t = TestDir::new();
    let home = t.path().join("home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    let root = t.path().join("maildir");
    let mail = |id: &str, body: &str| {
        format!(
            "Message-ID: <{id}.JavaMail.evans@thyme>\nDate: Tue, 1 May 2001 10:00:00 -0700 (PDT)\nFrom: ann.lee@enron.com\n\
             To: bob.ray@enron.com\nSubject: Q2 numbers\nX-From: Lee, Ann\nX-To: Ray, Bob\nX-Folder: \\Ann_Lee\\x\n\n{body}\n"
        )
    };
    let body = "The Portland plant produced 410 megawatts in April.\nRevenue for the quarter was $2.1 billion.";
    for (folder, id, text) in [
        ("sent_items", "101", body.to_string()),
        ("_sent_mail", "202", body.replace('\n', "\n\n")),
        ("all_documents", "303", format!("{body}\n\n")),
        ("inbox", "404", "The Houston office moved to the 40th floor on Monday.".to_string()),
    ] {
        let dir = root.join("lee-a").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("1."), mail(id, &text)).unwrap();
    }
    let mbox = t.path().join("export.mbox");
    std::fs::write(&mbox, format!("From ann.lee@enron.com Tue May  1 17:00:00 2001\n{}\n", mail("202", "Re-exported, another text.")))
        .unwrap();
    let run = |now: &str| {
        let mut c = t.amem();
        c.args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--now", now, "--json"])
            .args(["--format", "md,jsonl,parquet", "--home"])
            .arg(&home)
            .arg("--source")
            .arg(format!("enron:{}", root.display()))
            .arg("--source")
            .arg(format!("gmail:{}", mbox.display()));
        audit_report(&mut c)
    };
    let (s, rows, md) = run("2002-01-01T00:00:00Z");
    assert_eq!(s["messages_read"], 5, "{s}");
    assert_eq!(s["copies"], 3, "{s}");
    let texts: Vec<&str> = rows.iter().map(|r| r["claim"]["text"].as_str().unwrap()).collect();
    let mut distinct = texts.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(texts.len(), distinct.len(), "no claim is reported twice: {texts:?}");
    let plant: Vec<&serde_json::Value> = rows.iter().filter(|r| r["claim"]["text"].as_str().unwrap().contains("Portland")).collect();
    assert_eq!(plant.len(), 1, "{rows:?}");
    // The first copy read (maildir order is sorted: `_sent_mail` first) is the one audited.
    let filed: Vec<&str> = plant[0]["also_filed_at"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(plant[0]["locator"].as_str().unwrap().contains("_sent_mail"), "{}", plant[0]);
    assert_eq!(filed.len(), 3, "{filed:?}");
    assert!(filed.iter().any(|l| l.contains("all_documents")) && filed.iter().any(|l| l.contains("sent_items")), "{filed:?}");
    assert!(filed.iter().any(|l| l.contains("export.mbox")), "the mbox copy, by its Message-ID: {filed:?}");
    let other: Vec<&serde_json::Value> = rows.iter().filter(|r| r["claim"]["text"].as_str().unwrap().contains("Houston")).collect();
    assert!(other.iter().all(|r| r.get("also_filed_at").is_none()), "{other:?}");
    assert!(md.contains("audited once | 3 |"), "{md}");

    // Another run over the same archives: the audited mail is already
    // assessed; its copies are known as copies from the ledger.
    let (s, rows, _) = run("2002-01-02T00:00:00Z");
    assert_eq!(s["messages_already_assessed"], 2, "{s}");
    assert_eq!(s["copies"], 3, "{s}");
    assert!(rows.is_empty(), "{rows:?}");
}

/// Issue 41, item 4: quoted and forwarded text is counted in audit.md, not
/// audited silently away; `--include-forwarded` audits a forwarded story as
/// its original author's claims, passed on by the forwarder, never as the
/// forwarder's own words; a quoted reply stays out either way.
#[test]
fn forwarded_text_is_counted_and_audited_as_its_authors_on_request() {
    let t = TestDir::new();
    let home = t.path().join("home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    std::fs::write(home.join("config.toml"), "[me]\nemails = [\"ann@example.org\"]\n").unwrap();
    let mbox = t.path().join("mail.mbox");
    let forward = "FYI, see below.\n\n---------- Forwarded message ---------\nFrom: Wire Desk <desk@news.example>\n\
                   Date: Mon, 14 May 2001 09:00:00 -0500\nSubject: Markets\n\nEnron shares fell 12% on Monday after the filing.\n";
    let reply = "The Houston office has 40 desks.\n\nOn Mon, 14 May 2001 at 10:00, Ann <ann@example.org> wrote:\n\
                 > The budget is $5 million for the pilot.\n";
    let mail = |n: u32, from: &str, body: &str| {
        format!(
            "From x@x Mon May 14 18:00:00 +0000 2001\nMessage-ID: <q{n}@example.org>\nDate: Mon, 14 May 2001 18:0{n}:00 +0000\nFrom: {from}\nSubject: s{n}\n\n{body}\n"
        )
    };
    std::fs::write(&mbox, [mail(1, "Ann <ann@example.org>", forward), mail(2, "Bob <bob@example.org>", reply)].concat()).unwrap();
    let run = |now: &str, extra: &[&str]| {
        let mut c = t.amem();
        c.args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--now", now, "--json", "--format", "md,jsonl", "--home"])
            .arg(&home)
            .arg("--source")
            .arg(format!("gmail:{}", mbox.display()))
            .args(extra);
        audit_report(&mut c)
    };
    let text_of = |r: &serde_json::Value| r["claim"]["text"].as_str().unwrap().to_string();

    let (s, rows, md) = run("2002-01-01T00:00:00Z", &[]);
    let q = &s["quoted"];
    assert_eq!(
        (q["reply_messages"].as_u64(), q["forward_messages"].as_u64(), q["forwarded_audited"].as_u64()),
        (Some(1), Some(1), Some(0)),
        "{s}"
    );
    assert!(q["forward_chars"].as_u64().unwrap() >= 45 && q["reply_chars"].as_u64().unwrap() >= 30, "{q}");
    assert!(rows.iter().all(|r| !text_of(r).contains("shares fell") && !text_of(r).contains("budget")), "{rows:?}");
    assert!(md.contains("| forwarded text, not audited (`--include-forwarded`"), "{md}");
    assert!(md.contains("| quoted replies, not audited"), "{md}");

    let (s, rows, md) = run("2002-01-02T00:00:00Z", &["--include-forwarded", "--rerun"]);
    assert_eq!(s["quoted"]["forwarded_audited"], 1, "{s}");
    let fwd: Vec<&serde_json::Value> = rows.iter().filter(|r| text_of(r).contains("shares fell 12%")).collect();
    assert_eq!(fwd.len(), 1, "{rows:?}");
    assert_eq!(fwd[0]["author"], "Wire Desk <desk@news.example>", "the original author's words");
    assert_eq!(fwd[0]["forwarded_by"], "Ann <ann@example.org>");
    assert_eq!(fwd[0]["forwarded_by_me"], true);
    assert!(fwd[0].get("from_me").is_none_or(|v| v == false), "the user did not write it: {}", fwd[0]);
    assert!(fwd[0]["locator"].as_str().unwrap().ends_with("(forwarded part 1)"), "{}", fwd[0]);
    assert!(rows.iter().all(|r| !text_of(r).contains("budget")), "a quoted reply stays out: {rows:?}");
    assert!(md.contains("**Wire Desk \\<desk@news.example\\>** (you forwarded this)"), "{md}");
    assert!(md.contains("audited as its original authors' claims (`--include-forwarded`) | 1 messages"), "{md}");

    // Chosen by the forwarder: with --who others, the user's forward is out.
    let (_, rows, _) = run("2002-01-03T00:00:00Z", &["--include-forwarded", "--rerun", "--who", "others"]);
    assert!(rows.iter().all(|r| r.get("forwarded_by").is_none()), "{rows:?}");
}

/// Issue 41, item 2: a newsletter without list headers or an unsubscribe
/// line is known by its structure: the same subject from one sender on a
/// third day is bulk, skipped and counted by reason; `--include-bulk`
/// audits it; a conversation's `Re:` is never a template.
#[test]
fn the_same_template_from_one_sender_day_after_day_is_bulk() {
    let t = TestDir::new();
    let home = t.path().join("home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    let mbox = t.path().join("mail.mbox");
    let mail = |n: u32, from: &str, subject: &str, body: &str| {
        format!(
            "From x@x Mon May 05 10:00:00 +0000 2025\nMessage-ID: <t{n}@example.org>\nDate: Mon, {n} May 2025 10:00:00 +0000\nFrom: {from}\nTo: ann@example.org\nSubject: {subject}\n\n{body}\n\n"
        )
    };
    let mut text = String::new();
    for day in 1..=4 {
        text.push_str(&mail(
            day,
            "Energy Wire <wire@energy.example>",
            &format!("Energy Wire No. {}", 900 + day),
            &format!("Gas closed at {}.5 dollars on day {day}.", day + 1),
        ));
        text.push_str(&mail(
            10 + day,
            "Bob <bob@example.org>",
            "Re: the Portland plant",
            &format!("The plant ran at {}0 MW on day {day}.", 40 + day),
        ));
    }
    std::fs::write(&mbox, text).unwrap();
    let run = |now: &str, extra: &[&str]| {
        let mut c = t.amem();
        c.args(["audit", "chat-history", "--offline", "--since", "2001-01-01", "--now", now, "--json", "--home"])
            .arg(&home)
            .arg("--source")
            .arg(format!("gmail:{}", mbox.display()))
            .args(extra);
        summary_line(&ok(&mut c))["data"]["summary"].clone()
    };
    let s = run("2026-01-01T00:00:00Z", &[]);
    assert_eq!(s["skipped"]["by_stage"]["select"]["bulk: same template from one sender"], 2, "days 3 and 4 of the wire: {s}");
    assert!(s["skipped"]["by_stage"]["select"].as_object().unwrap().len() == 1, "Bob's replies are a conversation: {s}");
    let s = run("2026-01-02T00:00:00Z", &["--include-bulk", "--rerun"]);
    assert!(s["skipped"]["by_stage"].get("select").is_none(), "{s}");
}

/// Issue 41, item 1: the check-worthiness model reads beside the rules by
/// default; `--no-models` is the rules alone and `--no-verifier-model` keeps
/// it. Both read the same sentences; the model's run names its extractor on
/// every row and in its policy, and counts what it left out as
/// `not_check_worthy`, never audited.
#[test]
fn the_check_worthiness_model_decides_what_is_audited_and_says_so() {
    let t = TestDir::new();
    let run = |flag: &str| {
        let home = t.path().join(format!("home{flag}"));
        copy_dir(&repo_root().join("examples").join("home"), &home);
        let mut c = t.amem();
        c.args([
            flag,
            "audit",
            "chat-history",
            "--since",
            "2001-01-01",
            "--now",
            "2025-06-01T00:00:00Z",
            "--offline",
            "--format",
            "jsonl,json",
            "--home",
        ])
        .arg(&home);
        let summary = summary_line(&ok(&mut c));
        let dir = PathBuf::from(summary["data"]["report_dir"].as_str().unwrap());
        let rows: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("audit.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["type"] == "assessment")
            .collect();
        (summary["data"]["summary"].clone(), rows)
    };
    let (rules, rules_rows) = run("--no-models");
    let (model, model_rows) = run("--no-verifier-model");
    let total = |s: &serde_json::Value| s["claims_by_kind"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum::<u64>();
    assert_eq!(total(&rules), total(&model), "the same sentences are read");
    assert!(rules["claims_by_kind"].get("not_check_worthy").is_none(), "the rules alone never say not_check_worthy");
    let left_out = model["claims_by_kind"].get("not_check_worthy").and_then(|n| n.as_u64()).unwrap_or(0);
    assert_eq!(model_rows.len() as u64, model["audited"].as_u64().unwrap());
    assert!(!model_rows.is_empty() && !rules_rows.is_empty());
    for row in &model_rows {
        assert_eq!(row["data"]["claim"]["extractor"], amem_extract::EXTRACTOR_WITH_MODEL);
        assert_ne!(row["data"]["claim"]["kind"], "not_check_worthy", "a sentence left out was audited");
    }
    for row in &rules_rows {
        assert_eq!(row["data"]["claim"]["extractor"], amem_extract::EXTRACTOR);
    }
    // What the model took out plus what it let in is the difference in audited claims.
    let promoted =
        model_rows.iter().filter(|r| !rules_rows.iter().any(|x| x["data"]["claim"]["id"] == r["data"]["claim"]["id"])).count() as i64;
    assert_eq!(model["audited"].as_i64().unwrap() - rules["audited"].as_i64().unwrap(), promoted - left_out as i64);
}
