//! Sharded audits (`--shard I/N`): the union of the shards is the single run, whatever N; the
//! trust list is asked in one process for every shard's misses; the shards' reports read as one
//! table and merge into one report; a crashed shard is rerun alone.

use crate::util::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An archive with what sharding must keep whole: copies of one mail under other Message-IDs
/// (as Enron files them), copies under one Message-ID with other text, and a sender's daily
/// template (bulk only once seen on three days).
fn extra_mbox(path: &Path, n: usize) {
    let mut s = String::new();
    let mail = |s: &mut String, id: &str, day: usize, from: &str, subject: &str, body: &str| {
        s.push_str(&format!(
            "From x@xxx Mon May {day:02} 10:00:00 +0000 2025\nMessage-ID: <{id}>\nDate: Mon, {day} May 2025 10:00:00 +0000\nFrom: {from}\nTo: team@example.org\nSubject: {subject}\n\n{body}\n\n"
        ));
    };
    for i in 0..n {
        let body = format!(
            "The plant in Site {i} produced {} tonnes in April. The Falcon team has {} engineers.\nThanks!",
            100 + i * 7,
            10 + i % 9
        );
        let from = format!("Person {} <p{}@example.org>", i % 5, i % 5);
        let file = |s: &mut String, id: String, body: &str| mail(s, &id, 1 + i % 27, &from, &format!("plant {i}"), body);
        file(&mut s, format!("gen-{i}@example.org"), &body);
        // Every fifth mail filed again under another Message-ID: a copy found by its content.
        if i % 5 == 0 {
            file(&mut s, format!("copy-{i}@example.org"), &body);
        }
        // Every seventh filed again under its own Message-ID with a sentence added: a copy found
        // by the id alone (its content key, so the shard it would hash to, differs).
        if i % 7 == 3 {
            let refiled = body.replace("\nThanks!", &format!(" The Site {i} audit found {} faults.\nThanks!", 3 + i % 4));
            file(&mut s, format!("gen-{i}@example.org"), &refiled);
        }
    }
    for day in 1..=6 {
        let body = format!("Gas closed at ${}.{} on the day. Power prices rose {} percent.", 2 + day % 3, 10 + day, day + 1);
        mail(&mut s, &format!("daily-{day}@example.org"), day, "Gas Daily <daily@gas.example>", &format!("Gas Daily No. {day}"), &body);
    }
    std::fs::write(path, s).unwrap();
}

/// The example home with the extra archive among its imports.
fn corpus(t: &TestDir) -> PathBuf {
    let home = t.path().join("home-sharded");
    copy_example_home(&home);
    extra_mbox(&home.join("exports/extra.mbox"), 40);
    let mut config = std::fs::read_to_string(home.join("config.toml")).unwrap();
    // The user's Slack messages are known by user id alone: a row read back carries only the
    // name, so a merged report must learn the names from the shards.
    assert!(config.contains("slack_names = [\"Alice\"]\n"));
    config = config.replace("slack_names = [\"Alice\"]\n", "");
    config.push_str("\n[[imports]]\nkind = \"gmail\"\npath = \"exports/extra.mbox\"\n");
    std::fs::write(home.join("config.toml"), config).unwrap();
    home
}

/// One audit of `home` (its [[imports]]), reproducible, reports in `out`; its summary line.
fn audit(t: &TestDir, home: &Path, out: &Path, extra: &[&str]) -> Value {
    let mut c = t.amem();
    c.args(["--no-models", "audit", "chat-history", "--since", "2001-01-01", "--now", "2026-01-01T00:00:00Z", "--json"])
        .args(["--format", "md,jsonl,parquet", "--home"])
        .arg(home)
        .arg("--out")
        .arg(out)
        .args(extra);
    let stdout = ok(&mut c);
    stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|v| v["type"] == "run_summary").expect("a run_summary line")
}

/// With `--include-forwarded`, one story forwarded by two people is audited once, as its
/// author's: the second forward's part is a copy of the first's, so its carrier goes to the
/// shard of the first, whatever N.
#[test]
fn a_story_forwarded_twice_is_audited_once_whatever_the_shards() {
    let t = TestDir::new();
    let home = t.path().join("home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    std::fs::create_dir_all(home.join("exports")).unwrap();
    std::fs::write(home.join("config.toml"), "[[imports]]\nkind = \"gmail\"\npath = \"exports/forwards.mbox\"\n").unwrap();
    let mut mbox = String::new();
    for k in 0..12 {
        let story = format!(
            "---------- Forwarded message ---------\nFrom: Wire Desk <desk@news.example>\nDate: Mon, 14 May 2001 09:{k:02}:00 -0500\n\
             Subject: Markets {k}\n\nEnron shares fell {} percent on Monday after filing {k}.\n",
            10 + k
        );
        for (n, (from, note)) in
            [("Ann <ann@example.org>", "FYI, see below."), ("Bob <bob@example.org>", "Worth a read.")].iter().enumerate()
        {
            mbox.push_str(&format!(
                "From x@x Mon May 14 18:00:00 +0000 2001\nMessage-ID: <f{k}-{n}@example.org>\nDate: Mon, 14 May 2001 1{n}:{k:02}:00 +0000\n\
                 From: {from}\nSubject: Fw: Markets {k}\n\n{note}\n\n{story}\n"
            ));
        }
    }
    std::fs::write(home.join("exports/forwards.mbox"), mbox).unwrap();
    let extra = ["--include-forwarded"];
    let single = audit(&t, &home, &t.path().join("single"), &extra);
    let want: BTreeSet<String> = rows(&t.path().join("single")).into_iter().collect();
    let copies = single["data"]["summary"]["copies"].as_u64().unwrap();
    assert_eq!(want.iter().filter(|r| r.contains("shares fell")).count(), 12, "each story once: {want:?}");
    assert_eq!(copies, 12, "each second forward's part is a copy: {single}");
    for n in [2u32, 4, 7] {
        let mut got = Vec::new();
        let mut found = 0;
        for i in 0..n {
            let out = t.path().join(format!("n{n}/{i}"));
            let sum = audit(&t, &home, &out, &["--include-forwarded", "--shard", &format!("{i}/{n}")]);
            found += sum["data"]["summary"]["copies"].as_u64().unwrap();
            got.extend(rows(&out));
        }
        let got_set: BTreeSet<String> = got.iter().cloned().collect();
        assert_eq!(got.len(), got_set.len(), "N = {n}: a row in two shards");
        assert_eq!(got_set, want, "N = {n}: the shards' rows are not the single run's");
        assert_eq!(found, copies, "N = {n}: copies");
    }
}

/// What must be equal between a single run and the union of its shards: each row's claim,
/// verdict, evidence and copies.
fn rows(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("audit.jsonl")).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "assessment")
        .map(|v| {
            let v = &v["data"];
            let uris: Vec<&str> =
                v["evidence"].as_array().map(|e| e.iter().filter_map(|x| x["uri"].as_str()).collect()).unwrap_or_default();
            format!(
                "{} {} {} {} {:?} {}",
                v["claim"]["id"], v["claim"]["text"], v["assessment"]["status"], v["assessment"]["method"], uris, v["also_filed_at"]
            )
        })
        .collect()
}

/// Counts every shard adds up to the single run's.
const ADDED: [&str; 6] = ["messages_read", "copies", "assessed", "audited", "local_hits", "messages_already_assessed"];

/// The union of N shards' rows is the single run's rows, for N = 1, 2, 4 and 7; their counts
/// add up to its counts; copies of a mail land in one shard; a sender's template is bulk in
/// every shard as in the single run; `amem report --merge` writes the single run's audit.md.
#[test]
fn the_union_of_the_shards_is_the_single_run() {
    let t = TestDir::new();
    let home = corpus(&t);
    let single = audit(&t, &home, &t.path().join("single"), &[]);
    let want: BTreeSet<String> = rows(&t.path().join("single")).into_iter().collect();
    let s = &single["data"]["summary"];
    assert!(want.len() > 40, "{} rows", want.len());
    // 8 under other Message-IDs, 6 under their own with other text.
    assert!(s["copies"].as_u64().unwrap() >= 14, "copies found: {s}");
    assert!(s["skipped"]["by_stage"]["select"].to_string().contains("same template"), "the template is bulk: {s}");
    let single_rows = std::fs::read_to_string(t.path().join("single/audit.jsonl")).unwrap();
    assert!(
        single_rows.lines().any(|l| l.contains("\"source\":\"slack\"") && l.contains("\"from_me\":true")),
        "a Slack row of the user's, matched by user id"
    );
    for n in [1u32, 2, 4, 7] {
        let mut got = Vec::new();
        let mut sums = [0u64; ADDED.len()];
        let (mut skipped, mut other) = (0u64, 0u64);
        for i in 0..n {
            let sum = audit(&t, &home, &t.path().join(format!("n{n}/{i}")), &["--shard", &format!("{i}/{n}")]);
            let ss = &sum["data"]["summary"];
            for (k, name) in ADDED.iter().enumerate() {
                sums[k] += ss[name].as_u64().unwrap();
            }
            skipped += ss["skipped"]["total"].as_u64().unwrap();
            other += ss["other_shards"].as_u64().unwrap();
            got.extend(rows(&t.path().join(format!("n{n}/{i}"))));
        }
        let got_set: BTreeSet<String> = got.iter().cloned().collect();
        assert_eq!(got.len(), got_set.len(), "N = {n}: a row in two shards");
        assert_eq!(got_set, want, "N = {n}: the shards' rows are not the single run's");
        for (k, name) in ADDED.iter().enumerate() {
            assert_eq!(sums[k], s[name].as_u64().unwrap(), "N = {n}: {name}");
        }
        assert_eq!(skipped, s["skipped"]["total"].as_u64().unwrap(), "N = {n}: skipped");
        let read = s["messages_read"].as_u64().unwrap();
        assert_eq!(other, read * u64::from(n - 1), "N = {n}: each shard reads every message, audits its own");
    }
    // The shards of N = 4 merged: the single run's report, but for the run id.
    let mut c = t.amem();
    c.args(["report", "--merge"]);
    for i in 0..4 {
        c.arg(home.join(format!("shards/{i}-of-4")));
    }
    c.args(["--reports", "md,parquet", "--out"]).arg(t.path().join("merged")).arg("--home").arg(&home);
    ok(&mut c);
    let body = |p: PathBuf| std::fs::read_to_string(p).unwrap().lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(t.path().join("merged/audit.md")), body(t.path().join("single/audit.md")), "the merged report is the single run's");
    // Without --merge: every shard under the home, refused here: the splits of 1, 2, 4 and 7
    // shards each cover the whole archive.
    let mut c = t.amem();
    c.args(["report", "--out"]).arg(t.path().join("all")).arg("--home").arg(&home);
    let (_, err) = code(&mut c, 2);
    assert!(err.contains("shards of 4 splits (of 1, 2, 4, 7 shards)"), "{err}");

    // The shards' Parquet files read as one table (DuckDB, DataFusion): the single run's counts.
    let check = repo_root().join("tests/shard/read_as_one_table.py");
    for engine in ["duckdb", "datafusion"] {
        let probe = Command::new("python3").args(["-c", &format!("import {engine}")]).output();
        if !probe.is_ok_and(|o| o.status.success()) {
            eprintln!("SKIPPED the_union_of_the_shards_is_the_single_run ({engine} part): python3 cannot import {engine}");
            continue;
        }
        let mut c = Command::new("python3");
        c.arg(&check).arg(engine).arg(t.path().join("n4")).arg(t.path().join("single/audit.parquet"));
        let out = ok(&mut c);
        assert!(out.contains("equal"), "{out}");
    }
}

/// A shard asks no host; `amem grounding fetch` asks the trust list once per distinct claim of
/// every shard's queue, one request per period of the source's rate however many shards filed
/// them; `--reassess` then decides each shard's claims on what was captured, and the merged
/// report shows them supported.
#[test]
fn one_fetch_stage_serves_every_shard_under_the_source_rate() {
    let t = TestDir::new();
    let mut texts = vec!["The arXiv API allows one request every three seconds per client.".to_string()];
    texts.extend((0..11).map(|i| format!("The Orion reactor produced {} megawatts in {}.", 300 + i * 11, 1990 + i)));
    let (server, home, source) = arxiv_home(&t, "10/s", &texts);
    let shard = |i: u32, extra: &[&str]| {
        let mut c = t.amem();
        c.args(["--no-models", "audit", "chat-history", "--since", "2025-01-01", "--now", "2025-06-01T00:00:00Z", "--json", "--home"])
            .arg(&home)
            .args(["--source", &source, "--shard", &format!("{i}/4")])
            .args(extra);
        let stdout = ok(&mut c);
        stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|v| v["type"] == "run_summary").unwrap()
    };
    let mut unverified = 0;
    for i in 0..4 {
        unverified += shard(i, &[])["data"]["summary"]["by_group"]["unverified"].as_u64().unwrap_or(0);
    }
    assert_eq!(server.count(), 0, "a shard asks no host");
    assert_eq!(unverified, 12, "every claim is a local miss, filed on its shard's queue");
    let mut listed = 0;
    for i in 0..4 {
        let mut c = t.amem();
        c.args(["unverified", "list", "--format", "json", "--shard", &format!("{i}/4"), "--home"]).arg(&home);
        listed += ok(&mut c).lines().count();
    }
    assert_eq!(listed, 12, "each shard's queue lists its own");

    let mut c = t.amem();
    c.args(["grounding", "fetch", "--format", "json", "--concurrency", "8", "--home"]).arg(&home);
    let out = ok(&mut c);
    let report: Value = out.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|v| v["type"] == "grounding_fetch").unwrap();
    assert_eq!(report["data"]["queues"], 4, "{out}");
    assert_eq!(report["data"]["claims"], 12, "{out}");
    let seen = server.requests();
    assert_eq!(seen.len(), 12, "one request per distinct claim");
    // 10/s is one request every 100 ms, whatever the number of shards (a little slack for the
    // server's own clock: it stamps a request when its head is read).
    let gaps: Vec<u128> = seen.windows(2).map(|w| w[1].at.duration_since(w[0].at).as_millis()).collect();
    assert!(gaps.iter().all(|&g| g >= 90), "requests closer than the source's rate allows: {gaps:?} ms");

    // Each shard decides its queued claims on what was captured, asking nobody.
    let mut supported = 0;
    for i in 0..4 {
        let s = shard(i, &["--reassess"]);
        supported += s["data"]["summary"]["by_group"]["supported"].as_u64().unwrap_or(0);
    }
    assert_eq!(server.count(), 12, "--reassess asks nobody");
    assert_eq!(supported, 1, "the captured arXiv entry supports the claim about its API");
    let mut c = t.amem();
    c.args(["report", "--format", "json", "--out"]).arg(t.path().join("merged")).arg("--home").arg(&home);
    let out = ok(&mut c);
    let merged: Value = out.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|v| v["type"] == "report_merge").unwrap();
    assert_eq!(merged["data"]["summary"]["by_group"]["supported"], 1, "{out}");
    assert_eq!(merged["data"]["summary"]["by_group"]["unverified"], 11, "{out}");
    let md = std::fs::read_to_string(t.path().join("merged/audit.md")).unwrap();
    assert!(md.contains("one request every three seconds"), "{md}");
}

/// A shard killed part way is run again alone: it resumes its own run, and the shards' union
/// is still the single run.
#[test]
fn a_crashed_shard_is_rerun_alone() {
    let t = TestDir::new();
    let home = corpus(&t);
    // A larger archive, so the kill lands part way.
    extra_mbox(&home.join("exports/extra.mbox"), 1500);
    let single = rows(&{
        audit(&t, &home, &t.path().join("single"), &[]);
        t.path().join("single")
    });
    audit(&t, &home, &t.path().join("s0"), &["--shard", "0/2"]);
    let ledger = home.join("shards/1-of-2/ledger.sqlite");
    let recorded = || -> i64 {
        rusqlite::Connection::open_with_flags(&ledger, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .and_then(|c| c.query_row("SELECT count(*) FROM message_assessed", [], |r| r.get(0)))
            .unwrap_or(0)
    };
    let mut c = t.amem();
    c.args(["--no-models", "audit", "chat-history", "--since", "2001-01-01", "--now", "2026-01-01T00:00:00Z"])
        .args(["--format", "md,jsonl,parquet", "--shard", "1/2", "--home"])
        .arg(&home)
        .arg("--out")
        .arg(t.path().join("s1"));
    let mut child = c.spawn().unwrap();
    let start = std::time::Instant::now();
    while recorded() == 0 && start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = Command::new("kill").arg("-9").arg(child.id().to_string()).status();
    let _ = child.wait();
    assert!(recorded() > 0, "the shard recorded something before the kill");
    assert!(!t.path().join("s1/audit.jsonl").exists(), "killed before its report");
    // Shard 0 is done and untouched; shard 1 alone runs again and resumes its run.
    let resumed = audit(&t, &home, &t.path().join("s1"), &["--shard", "1/2"]);
    assert_eq!(resumed["data"]["resumed"], true, "{resumed}");
    let mut union = rows(&t.path().join("s0"));
    union.extend(rows(&t.path().join("s1")));
    union.sort();
    let mut single = single;
    single.sort();
    assert_eq!(union, single);
}

/// The Dask runner (examples/scale-out/dask_audit.py) on a local Dask cluster: four shards, one
/// of them killed part way the first time (Dask retries it, and it resumes its own run), then one
/// merged report equal to the single run's.
#[test]
fn the_dask_runner_fans_out_the_shards_and_retries_a_crash() {
    let probe = Command::new("python3").args(["-c", "import dask.distributed"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED the_dask_runner_fans_out_the_shards_and_retries_a_crash: python3 cannot import dask.distributed");
        return;
    }
    let t = TestDir::new();
    let home = corpus(&t);
    extra_mbox(&home.join("exports/extra.mbox"), 1500);
    audit(&t, &home, &t.path().join("single"), &[]);
    // The binary as the runner calls it, except that shard 2's first run is killed (SIGKILL)
    // once it has recorded messages: a crashed worker.
    let flaky = t.write(
        "amem-flaky.py",
        format!(
            r#"import os, sqlite3, subprocess, sys, time
args = sys.argv[1:]
first = not os.path.exists({mark:?})
if "2/4" in args and "--reassess" not in args and first:
    open({mark:?}, "w").close()
    child = subprocess.Popen([{bin:?}, *args], stdout=subprocess.DEVNULL)
    ledger = {ledger:?}
    while child.poll() is None:
        try:
            n = sqlite3.connect(f"file:{{ledger}}?mode=ro", uri=True).execute("SELECT count(*) FROM message_assessed").fetchone()[0]
        except sqlite3.Error:
            n = 0
        if n > 0:
            child.kill()
            break
        time.sleep(0.01)
    child.wait()
    sys.exit(137)
os.execv({bin:?}, [{bin:?}, *args])
"#,
            mark = t.path().join("killed-once").display().to_string(),
            bin = env!("CARGO_BIN_EXE_amem"),
            ledger = home.join("shards/2-of-4/ledger.sqlite").display().to_string(),
        ),
    );
    let wrapper = t.write("amem-flaky", format!("#!/bin/sh\nexec python3 {} \"$@\"\n", flaky.display()));
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut c = Command::new("python3");
    c.arg(repo_root().join("examples/scale-out/dask_audit.py"))
        .arg("--amem")
        .arg(&wrapper)
        .arg("--home")
        .arg(&home)
        .args(["--shards", "4", "--workers", "2", "--out"])
        .arg(t.path().join("dask"))
        .args(["--", "--no-models", "--since", "2001-01-01", "--now", "2026-01-01T00:00:00Z", "--format", "md,parquet"]);
    let out = ok(&mut c);
    assert!(t.path().join("killed-once").exists(), "shard 2 was killed once");
    let result: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let shards = result["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 4);
    assert_eq!(shards[2]["resumed"], true, "the retried shard resumed its run: {}", shards[2]);
    assert!(result["fetched"].is_null(), "the example home has no trust list: nothing fetched");
    let body = |p: PathBuf| std::fs::read_to_string(p).unwrap().lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(t.path().join("dask/merged/audit.md")), body(t.path().join("single/audit.md")));
}

/// The Kubernetes manifest (one Indexed Job per sharded stage) validates against the Job schema,
/// and each Indexed Job's completions are the N of its `--shard`.
#[test]
fn the_kubernetes_manifest_validates() {
    let manifest = repo_root().join("examples/scale-out/kubernetes/audit-job.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    for job in text.split("\n---\n").filter(|d| d.contains("completionMode: Indexed")) {
        let completions = job.lines().find_map(|l| l.trim().strip_prefix("completions: ")).unwrap();
        assert!(job.contains(&format!("--shard \"${{JOB_COMPLETION_INDEX}}/{completions}\"")), "{job}");
        assert!(job.contains(&format!("parallelism: {completions}")), "{job}");
    }
    let probe = Command::new("python3").args(["-m", "kubernetes_validate", "--version"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED the_kubernetes_manifest_validates (schema part): python3 has no kubernetes_validate");
        return;
    }
    let mut c = Command::new("python3");
    c.args(["-m", "kubernetes_validate", "--strict", "--kubernetes-version", "1.33.0"]).arg(&manifest);
    let out = ok(&mut c);
    assert_eq!(out.matches("passed").count(), 4, "{out}");
}

/// A claim on a shard's queue is captured by hand with `--shard`: the source goes into the
/// home's wiki (every shard reads it), the reassessment into that shard's ledger and queue.
#[test]
fn a_shards_claim_is_captured_by_hand_into_that_shard() {
    let t = TestDir::new();
    let home = t.home();
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    let mbox = t.write(
        "mail.mbox",
        "From x@x Mon May 05 10:00:00 +0000 2025\nMessage-ID: <orion@example.org>\nDate: Mon, 5 May 2025 10:00:00 +0000\nFrom: Ann <ann@example.org>\nSubject: s\n\nThe Orion reactor produced 300 megawatts in 1990.\n\n",
    );
    // Run both shards; the one mail lands on one of them, filed as unverified there.
    let mut owner = None;
    for i in 0..2 {
        let mut c = t.amem();
        c.args(["--no-models", "audit", "chat-history", "--since", "2025-01-01", "--now", "2025-06-01T00:00:00Z", "--home"])
            .arg(&home)
            .args(["--source", &format!("gmail:{}", mbox.display()), "--shard", &format!("{i}/2")]);
        ok(&mut c);
        let mut c = t.amem();
        c.args(["unverified", "list", "--format", "json", "--shard", &format!("{i}/2"), "--home"]).arg(&home);
        let listed: Vec<Value> = ok(&mut c).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        if let Some(v) = listed.iter().find(|v| v["record"]["claim"]["text"].as_str().is_some_and(|c| c.contains("Orion"))) {
            owner = Some((i, v["id"].as_str().unwrap().to_string()));
        }
    }
    let (i, id) = owner.expect("the claim is on one shard's queue");
    let src = t.write("orion.txt", "Plant log: the Orion reactor produced 300 megawatts in 1990.\n");
    // Without the shard, the home's own queue does not hold it.
    let mut c = t.amem();
    c.args(["--no-models", "unverified", "capture", &id[..8]]).arg(&src).arg("--home").arg(&home);
    code(&mut c, 1);
    let mut c = t.amem();
    c.args(["--no-models", "unverified", "capture", &id[..8]]).arg(&src).args(["--shard", &format!("{i}/2"), "--home"]).arg(&home);
    let out = ok(&mut c);
    assert!(out.contains("supported") && out.contains("amem://"), "{out}");
    let mut c = t.amem();
    c.args(["unverified", "list", "--format", "json", "--shard", &format!("{i}/2"), "--home"]).arg(&home);
    assert!(!ok(&mut c).contains(&id), "off the shard's queue");
    let shard_ledger = home.join("shards").join(format!("{i}-of-2")).join("ledger.sqlite");
    let conn = rusqlite::Connection::open(&shard_ledger).unwrap();
    let n: i64 = conn
        .query_row("SELECT count(*) FROM assessments a JOIN names s ON s.id = a.status WHERE s.name = 'supported'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1, "the reassessment is in the shard's ledger");
    // The home's own ledger file (it holds the wiki's index) records no assessment.
    let conn = rusqlite::Connection::open(home.join("ledger.sqlite")).unwrap();
    let has: i64 = conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'assessments'", [], |r| r.get(0)).unwrap();
    let n: i64 = if has == 0 { 0 } else { conn.query_row("SELECT count(*) FROM assessments", [], |r| r.get(0)).unwrap() };
    assert_eq!(n, 0, "the home's own ledger records no assessment of a shard's claim");
}
