//! Issue 13's audit wiring: the audit verifies each claim at its message's
//! time (`Verifier::verify_at`) with the wiki's document frequencies
//! (`Verifier::with_rarity`), and its outcome cache keeps a verdict that
//! depends on the writing day per day.
//!
//! A note dated 2015 in its front matter (`date: 2015-03-01`), indexed
//! today, says the Berlin office has 42 employees. The same "currently"
//! claim, mailed in 2015 and in 2020, is `supported` the first time and
//! `stale` the second (the note was written five years before it); a claim
//! without a present-tense marker is supported on both days. A note without
//! a date is as old as its file's modification time.

use amem_audit::progress::Counters;
use amem_audit::{AuditParams, Formats, run_audit};
use amem_recall::{IndexOptions, Wiki};
use amem_records::{SourceKind, Status};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

fn mail(n: u32, date: &str, body: &str) -> String {
    format!(
        "From {n}@xxx Mon Jan 01 10:00:00 +0000 2001\nMessage-ID: <day-{n}@example.org>\nDate: {date}\nFrom: Sender <s{n}@example.org>\nTo: team@example.org\nSubject: office {n}\n\n{body}\n\n"
    )
}

fn params(home: &Path, mbox: &Path) -> AuditParams {
    AuditParams {
        since: Some("1970-01-01".into()),
        now: Some("2030-01-01T00:00:00Z".parse().unwrap()),
        formats: Formats { markdown: false, arrow: false, jsonl: true, parquet: false },
        ..AuditParams::new(home, vec![(SourceKind::GMAIL, mbox.to_path_buf())])
    }
}

/// The status of each report row, by claim text and message time.
fn statuses(report_dir: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(report_dir.join("audit.jsonl")).unwrap();
    let mut rows: Vec<(String, String, String)> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "assessment")
        .map(|v| {
            let v = &v["data"];
            (
                v["claim"]["text"].as_str().unwrap_or_default().to_string(),
                v["sent_at"].as_str().unwrap_or_default().get(..4).unwrap_or_default().to_string(),
                v["assessment"]["status"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_currently_claim_against_a_note_written_years_before_it_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    std::fs::write(
        home.join("wiki").join("berlin.md"),
        "---\ntitle: Berlin office\ndate: 2015-03-01\n---\nThe Berlin office has 42 employees. It opened in a former bakery.\n",
    )
    .unwrap();
    // Indexed in 2020: when it was indexed says nothing of when it was written.
    let mut wiki = Wiki::open(&home).unwrap();
    wiki.index_wiki(IndexOptions { rehash: false, now: Some("2020-03-01T00:00:00Z".parse().unwrap()) }, &mut |_| ControlFlow::Continue(()))
        .unwrap();
    drop(wiki);
    let now = "The Berlin office currently has 42 employees.";
    let flat = "The Berlin office has 42 employees.";
    let mbox = dir.path().join("mail.mbox");
    let mails = [
        mail(1, "Mon, 2 Mar 2015 10:00:00 +0000", now),
        mail(2, "Mon, 2 Mar 2015 11:00:00 +0000", flat),
        mail(3, "Mon, 2 Mar 2020 10:00:00 +0000", now),
        mail(4, "Mon, 2 Mar 2020 11:00:00 +0000", flat),
    ];
    std::fs::write(&mbox, mails.concat()).unwrap();

    let out = run_audit(&params(&home, &mbox), Arc::new(Counters::default()), None).unwrap();
    let rows = statuses(&out.report_dir);
    let mut want = vec![
        (flat.to_string(), "2015".to_string(), "supported".to_string()),
        (flat.to_string(), "2020".to_string(), "supported".to_string()),
        (now.to_string(), "2015".to_string(), "supported".to_string()),
        (now.to_string(), "2020".to_string(), "stale".to_string()),
    ];
    want.sort();
    assert_eq!(rows, want, "report rows: {rows:?}");
    assert_eq!(out.summary.by_status.get(&Status::Stale).copied(), Some(1));
}

/// A note without a front matter date is as old as its file: a note last
/// changed in 2015 and indexed today makes a 2020 "currently" claim stale,
/// and a `updated:` date near the claim keeps it supported.
#[test]
fn a_note_without_a_date_is_as_old_as_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    let old = home.join("wiki").join("berlin.md");
    std::fs::write(&old, "# Berlin office\nThe Berlin office has 42 employees. It opened in a former bakery.\n").unwrap();
    let file = std::fs::File::options().write(true).open(&old).unwrap();
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_425_168_000)).unwrap(); // 2015-03-01
    drop(file);
    std::fs::write(
        home.join("wiki").join("lisbon.md"),
        "---\ntitle: Lisbon office\ndate: 2012-01-01\nupdated: 2020-01-10\n---\nThe Lisbon office has 17 employees.\n",
    )
    .unwrap();
    let mbox = dir.path().join("mail.mbox");
    let berlin = "The Berlin office currently has 42 employees.";
    let lisbon = "The Lisbon office currently has 17 employees.";
    std::fs::write(&mbox, [mail(1, "Mon, 2 Mar 2020 10:00:00 +0000", berlin), mail(2, "Mon, 2 Mar 2020 11:00:00 +0000", lisbon)].concat())
        .unwrap();
    let out = run_audit(&params(&home, &mbox), Arc::new(Counters::default()), None).unwrap();
    let rows = statuses(&out.report_dir);
    let mut want = vec![
        (berlin.to_string(), "2020".to_string(), "stale".to_string()),
        (lisbon.to_string(), "2020".to_string(), "supported".to_string()),
    ];
    want.sort();
    assert_eq!(rows, want, "report rows: {rows:?}");
}

/// The audit weighs a claim's words by the wiki's document frequencies: a
/// word in every chunk weighs less than one in a single chunk.
#[test]
fn the_audit_weighs_claim_words_by_the_wikis_document_frequencies() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    for (i, body) in
        ["The office is open.", "Our office moved.", "The office party.", "Curie found polonium in the office."].iter().enumerate()
    {
        std::fs::write(home.join("wiki").join(format!("n{i}.md")), format!("{body}\n")).unwrap();
    }
    let mut wiki = Wiki::open(home).unwrap();
    wiki.index_wiki(IndexOptions::default(), &mut |_| ControlFlow::Continue(())).unwrap();
    let rarity =
        amem_audit::assess::rarity_of(&wiki, "Curie found polonium in the offices.").unwrap().expect("the wiki knows its frequencies");
    assert_eq!(rarity.documents(), 4);
    assert!(rarity.weight("polonium") > 2.0 * rarity.weight("office"), "{} vs {}", rarity.weight("polonium"), rarity.weight("office"));
}

/// Which claims the outcome cache keeps per writing day: those whose
/// verdict can depend on it, and only those.
#[test]
fn claims_that_read_their_writing_day() {
    use amem_verify::reads_writing_day;
    for c in [
        "The office currently has 42 employees.",
        "The launch moved last week.",
        "Prices fell on Tuesday.",
        "The deal closed two days ago.",
    ] {
        assert!(reads_writing_day(c, &[]), "{c}");
    }
    for c in ["The Berlin office has 42 employees.", "The launch moved to 3 May 2024."] {
        assert!(!reads_writing_day(c, &[]), "{c}");
    }
}
