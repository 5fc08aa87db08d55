//! `amem import gmail|enron|enron-csv`: the mail importers through the CLI.
//! Fixtures: importers/mbox/tests/fixtures (handmade), ../shared/corpora
//! (real samples; skipped with a `SKIPPED` line when absent).

use crate::util::{TestDir, code, ok, repo_root, shared};
use serde_json::Value;

fn lines(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str(l).expect("one JSON object per line")).collect()
}

#[test]
fn gmail_takeout_fixture_as_jsonl() {
    let t = TestDir::new();
    let mbox = repo_root().join("importers/mbox/tests/fixtures/takeout.mbox");
    let mut cmd = t.amem();
    cmd.args(["import", "gmail"]).arg(&mbox);
    let (out, err) = code(&mut cmd, 0);
    let ms = lines(&out);
    assert_eq!(ms.len(), 4, "{err}");
    let m = &ms[0];
    assert_eq!(m["source"], "gmail");
    assert_eq!(m["conversation"], "1723853304940284153");
    assert_eq!(m["id"], "<t1@example.org>");
    assert_eq!(m["sent_at"], "2022-02-04T17:10:22Z");
    assert_eq!(m["text"], "The café opens at 9.");
    assert_eq!(m["quoted"][0]["author"], "Ann <ann@example.org>");
    assert_eq!(m["meta"]["labels"], r#"["Inbox","Trips, 2023","Café","Important"]"#);
    // The undecodable charset is skipped, named with its position, and counted.
    assert!(err.contains("takeout.mbox: byte 1853, line 68: body charset"), "{err}");
    assert!(err.contains("4 messages, 1 skipped [charset: 1]"), "{err}");
    // --strict turns a skip into exit 1.
    let mut cmd = t.amem();
    cmd.args(["import", "gmail", "--strict"]).arg(&mbox);
    code(&mut cmd, 1);
}

#[test]
fn gmail_date_window_with_fixed_now() {
    let t = TestDir::new();
    let mbox = repo_root().join("importers/mbox/tests/fixtures/takeout.mbox");
    let mut cmd = t.amem();
    cmd.args(["import", "mbox", "--since", "2022-02-05", "--until", "2022-02-05", "--now", "2026-11-29T00:00:00Z"]).arg(&mbox);
    let (out, err) = code(&mut cmd, 0);
    let ids: Vec<_> = lines(&out).iter().map(|m| m["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["<t3@example.org>", "<t5@example.org>"], "{err}");
    let mut cmd = t.amem();
    // 16 hours before 2022-02-05T10:00Z is 2022-02-04T18:00Z: t2 (exactly then), t3, t5.
    cmd.args(["import", "gmail", "--since", "16h", "--now", "2022-02-05T10:00:00Z"]).arg(&mbox);
    let ids: Vec<_> = lines(&ok(&mut cmd)).iter().map(|m| m["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["<t2@example.org>", "<t3@example.org>", "<t5@example.org>"]);
}

#[test]
fn truncated_and_undated_mbox_keep_going() {
    let t = TestDir::new();
    let fixtures = repo_root().join("importers/mbox/tests/fixtures");
    let mut cmd = t.amem();
    cmd.args(["import", "gmail"]).arg(fixtures.join("no_date.mbox"));
    let (out, err) = code(&mut cmd, 0);
    assert_eq!(lines(&out).len(), 2);
    assert!(err.contains("no_date.mbox: byte 186, line 10: no Date header"), "{err}");
    assert!(err.contains("[date: 2]"), "{err}");
    let mut cmd = t.amem();
    cmd.args(["import", "gmail"]).arg(fixtures.join("truncated.mbox"));
    let (out, err) = code(&mut cmd, 0);
    assert_eq!(lines(&out).len(), 1);
    assert!(err.contains("[truncated: 1]"), "{err}");
}

#[test]
fn enron_maildir_and_csv_agree() {
    let Some(shared) = shared("enron_maildir_and_csv_agree") else { return };
    let t = TestDir::new();
    let root = shared.join("corpora/enron/maildir");
    let mut cmd = t.amem();
    cmd.args(["import", "enron"]).arg(&root);
    let dir_ms = lines(&ok(&mut cmd));
    assert_eq!(dir_ms.len(), 565);
    // Kaggle layout, built now from the same files (lewis-a only, to stay quick).
    let csv_path = t.path().join("emails.csv");
    let mut w = csv::Writer::from_path(&csv_path).unwrap();
    w.write_record(["file", "message"]).unwrap();
    let mut stack = vec![root.join("lewis-a")];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() { stack.push(p) } else { files.push(p) }
        }
    }
    files.sort();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        w.write_record([rel.as_bytes(), &std::fs::read(f).unwrap()]).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let mut cmd = t.amem();
    cmd.args(["import", "enron-csv"]).arg(&csv_path);
    let csv_ms = lines(&ok(&mut cmd));
    assert_eq!(csv_ms.len(), 260);
    for c in &csv_ms {
        let file = c["meta"]["file"].as_str().unwrap();
        let d = dir_ms.iter().find(|d| d["meta"]["file"] == file).unwrap();
        for k in ["id", "conversation", "author", "recipients", "sent_at", "subject", "text", "quoted", "meta"] {
            assert_eq!(c[k], d[k], "{file} {k}");
        }
        assert_eq!(c["source"], "enron-csv");
    }
}

#[test]
fn mbox_samples_through_the_cli() {
    let Some(shared) = shared("mbox_samples_through_the_cli") else { return };
    let t = TestDir::new();
    let mut cmd = t.amem();
    cmd.args(["import", "gmail"]).arg(shared.join("corpora/mbox/mail-box-mbox.src"));
    assert_eq!(lines(&ok(&mut cmd)).len(), 45);
}
