//! The mbox importer on handmade fixtures, one per known hazard
//! (../shared/CRATES.md §2 lists the `mbox-reader` 0.2 defects these pin).

use amem_records::{ImportError, ImportOptions, Message, QuoteKind, TimeWindow};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn read(name: &str) -> Vec<Result<Message, ImportError>> {
    amem_importer_mbox::open(&fixture(name), &ImportOptions::default()).unwrap().collect()
}

fn ok(name: &str) -> Vec<Message> {
    read(name).into_iter().map(|r| r.unwrap_or_else(|e| panic!("{name}: {e}"))).collect()
}

fn subjects(ms: &[Message]) -> Vec<String> {
    ms.iter().map(|m| m.subject.clone().unwrap_or_default()).collect()
}

#[test]
fn last_message_is_yielded() {
    let ms = ok("last_message.mbox");
    assert_eq!(subjects(&ms), ["Message 1", "Message 2", "Message 3"]);
    assert_eq!(ms[2].text, "Body of message 3.");
    assert!(ms[1].locator.ends_with(":byte 200"), "{}", ms[1].locator);
}

#[test]
fn single_message_file_is_yielded() {
    let ms = ok("single_message.mbox");
    assert_eq!(subjects(&ms), ["Message 1"]);
}

#[test]
fn short_from_lines_split_without_panic() {
    let ms = ok("short_from_line.mbox");
    assert_eq!(subjects(&ms), ["Message 1", "Message 2", "Message 3"]);
}

#[test]
fn from_quoting_is_undone() {
    let ms = ok("from_quoted.mbox");
    assert_eq!(ms.len(), 2);
    // `>From ` lost one `>`; `>>From ` became `>From `, a reply-quoted line
    // (as the writer meant it), kept apart with the `> From` line after it.
    assert_eq!(ms[0].text, "Line one.\nFrom the start, the plan was set.\nFrom mid-paragraph lines do not split.");
    assert_eq!(ms[0].quoted.len(), 1);
    assert_eq!(ms[0].quoted[0].text, "From here it was quoted twice.\nFrom is not a quoted separator.");
}

#[test]
fn crlf_files_read_like_lf_files() {
    let ms = ok("crlf.mbox");
    assert_eq!(subjects(&ms), ["Message 1", "Message 2"]);
    assert_eq!(ms[1].text, "Body of message 2.");
    assert_eq!(ms[0].author, "Ann <ann@example.org>");
}

#[test]
fn non_ascii_from_lines_do_not_stop_the_file() {
    let ms = ok("non_ascii_from_line.mbox");
    assert_eq!(subjects(&ms), ["Message 1", "Message 2"]);
}

#[test]
fn truncated_file_reports_the_cut_message() {
    let items = read("truncated.mbox");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().subject.as_deref(), Some("Message 1"));
    let e = items[1].as_ref().unwrap_err();
    assert_eq!(e.kind, "truncated");
    assert_eq!(e.position, "byte 186, line 10");
    assert!(e.path.ends_with("truncated.mbox"));
}

#[test]
fn missing_and_bad_dates_are_errors_and_the_stream_goes_on() {
    let items = read("no_date.mbox");
    assert_eq!(items.len(), 4);
    assert!(items[0].is_ok() && items[3].is_ok());
    let e1 = items[1].as_ref().unwrap_err();
    assert_eq!((e1.kind.as_str(), e1.position.as_str()), ("date", "byte 186, line 10"));
    assert!(e1.reason.contains("no Date header"));
    let e2 = items[2].as_ref().unwrap_err();
    assert_eq!(e2.kind, "date");
    assert!(e2.reason.contains("the day after tomorrow"), "{}", e2.reason);
}

#[test]
fn takeout_conventions() {
    let items = read("takeout.mbox");
    assert_eq!(items.len(), 5);
    let m = items[0].as_ref().unwrap();
    assert_eq!(m.conversation, "1723853304940284153");
    assert_eq!(m.meta["labels"], r#"["Inbox","Trips, 2023","Café","Important"]"#);
    assert_eq!(m.subject.as_deref(), Some("Re: Café plans"));
    assert_eq!(m.author, "René <rene@example.org>");
    assert_eq!(m.recipients, ["Ann <ann@example.org>", "Doe, Jon <jon@example.org>", "team@example.org"]);
    assert_eq!(m.text, "The café opens at 9.");
    // Quoted-printable decoding drops trailing spaces (RFC 2045 §6.7), so the delimiter is `--`.
    assert_eq!(m.meta["signature"], "--\nRené");
    assert_eq!(m.meta["attachments"], "1");
    assert_eq!(m.meta["body"], "text/plain");
    assert_eq!(m.quoted.len(), 1);
    assert_eq!(m.quoted[0].kind, QuoteKind::Reply);
    assert_eq!(m.quoted[0].author.as_deref(), Some("Ann <ann@example.org>"));
    assert_eq!(m.quoted[0].sent_at.as_deref(), Some("Thu, Feb 3, 2022 at 10:00 AM"));
    assert_eq!(m.quoted[0].text, "When does it open?");
    assert_eq!(m.sent_at.to_string(), "2022-02-04T17:10:22Z");

    let m = items[1].as_ref().unwrap();
    assert_eq!(m.conversation, "1723853304940284153");
    assert_eq!(m.text, "Привет, встреча в пятницу.");

    let m = items[2].as_ref().unwrap();
    assert_eq!(m.meta["body"], "text/html");
    assert_eq!(m.text, "The budget is $4.2M.");
    assert_eq!(m.quoted[0].text, "Is it final?");

    let e = items[3].as_ref().unwrap_err();
    assert_eq!(e.kind, "charset");

    let m = items[4].as_ref().unwrap();
    assert_eq!(m.text, "ok \u{fffd}\u{fffd} ok");
    assert!(m.meta["charset_lossy"].starts_with("utf-8: 2"), "{}", m.meta["charset_lossy"]);
}

#[test]
fn date_window_filters_inside_the_importer() {
    let opts = ImportOptions {
        window: TimeWindow { since: Some("2022-02-04T17:30:00Z".parse().unwrap()), until: Some("2022-02-05T09:30:00Z".parse().unwrap()) },
    };
    let ms: Vec<_> = amem_importer_mbox::open(&fixture("takeout.mbox"), &opts).unwrap().collect();
    let ids: Vec<_> = ms.iter().map(|r| r.as_ref().unwrap().id.0.clone()).collect();
    assert_eq!(ids, ["<t2@example.org>", "<t3@example.org>"]);
    // The undecodable-charset message is outside the window: its body is never decoded, so no error.
}

#[test]
fn folder_of_mbox_files_and_open_errors() {
    let ms: Vec<_> = amem_importer_mbox::open(&fixture(""), &ImportOptions::default()).unwrap().collect();
    assert!(ms.len() > 20);
    let missing = amem_importer_mbox::open(&fixture("nope.mbox"), &ImportOptions::default()).err().unwrap();
    assert_eq!(missing.kind, "io");
    let dir = tempfile::tempdir().unwrap();
    assert!(amem_importer_mbox::open(dir.path(), &ImportOptions::default()).is_err());
}

#[test]
fn arbitrary_bytes_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("junk.mbox");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for round in 0..200 {
        let mut bytes = Vec::new();
        for _ in 0..(round * 7 % 900) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let pick = [b'\n', b'F', b'r', b'o', b'm', b' ', b'>', b':', b'-', b'=', b'\r', (seed >> 24) as u8];
            bytes.push(pick[(seed % pick.len() as u64) as usize]);
        }
        if round % 3 == 0 {
            bytes.splice(
                0..0,
                b"From x\nDate: Mon, 2 Feb 2026 21:21:14 -0600\nContent-Type: multipart/mixed; boundary=-\n\n".iter().copied(),
            );
        }
        std::fs::write(&p, &bytes).unwrap();
        for item in amem_importer_mbox::open(&p, &ImportOptions::default()).unwrap() {
            let _ = item;
        }
    }
}

/// Why the splitter is our own: `mbox-reader` 0.2 on the same fixtures
/// (docs/adr/0001-mbox-splitting.md). If a new release fixes these, this test
/// fails and the ADR should be revisited.
#[test]
fn mbox_reader_defects_still_present() {
    let count = |name: &str| mbox_reader::MboxFile::from_file(&fixture(name)).unwrap().iter().filter(|e| e.message().is_some()).count();
    assert_eq!(count("last_message.mbox"), 2, "mbox-reader drops the last message");
    assert_eq!(count("single_message.mbox"), 0, "mbox-reader yields nothing for one message");
    let short = std::panic::catch_unwind(|| {
        let f = mbox_reader::MboxFile::from_file(&fixture("short_from_line.mbox")).unwrap();
        f.iter().map(|e| e.start().as_str().len()).sum::<usize>()
    });
    assert!(short.is_err(), "mbox-reader panics in Entry::start on a short From line");
    let f = mbox_reader::MboxFile::from_file(&fixture("from_quoted.mbox")).unwrap();
    let first = f.iter().next().and_then(|e| e.message().map(<[u8]>::to_vec)).unwrap();
    assert!(first.windows(7).any(|w| w == b"\n>From "), "mbox-reader leaves >From quoted");
}
