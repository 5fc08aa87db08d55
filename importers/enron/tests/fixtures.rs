//! The Enron importers on trees and CSVs written at test time (these run
//! without ../shared).

use amem_records::{ImportOptions, Message};
use std::path::Path;

const MAIL: &str = "Message-ID: <1.JavaMail.evans@thyme>\r\nDate: Mon, 26 Mar 2001 16:22:00 -0800 (PST)\r\nFrom: a@enron.com\r\nTo: b@enron.com,\r\n\tc@enron.com\r\nSubject: RE: FW: Curve\nX-From: Lewis, Andrew H. </O=ENRON/CN=ALEWIS>\nX-To: \nX-cc: \nX-Folder: \\Lewis\\Sent Items\nX-Origin: Lewis-A\nX-FileName: x.pst\n\nThe curve moved 3 cents.\n\n -----Original Message-----\nFrom: \tB\nSent:\tMonday, March 26, 2001 9:00 AM\nSubject:\tCurve\n\nWhere is the curve?\n";

fn write(root: &Path, rel: &str, body: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

fn tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("maildir");
    write(&root, "lewis-a/sent_items/10.", &MAIL.replace("<1.", "<10."));
    write(&root, "lewis-a/sent_items/2.", &MAIL.replace("<1.", "<2."));
    write(&root, "lewis-a/personal/home/1.", &MAIL.replace("<1.", "<3."));
    write(&root, "lewis-a/inbox/1.", "Message-ID: <nodate@x>\nSubject: no date\n\nHello\n");
    write(&root, "buy-r/inbox/1.", &MAIL.replace("<1.", "<4."));
    // A macOS `.DS_Store` beside the folders (as in enron-5users.tar.gz) is
    // neither a mail nor a sign that `buy-r` is a mail folder.
    write(&root, "buy-r/.DS_Store", "\0\0\0\x01Bud1");
    d
}

fn ids(items: &[Result<Message, amem_records::ImportError>]) -> Vec<String> {
    items.iter().map(|r| r.as_ref().map(|m| m.id.0.clone()).unwrap_or_else(|e| format!("ERR {} {}", e.kind, e.path.display()))).collect()
}

#[test]
fn walks_root_user_folder_and_file_in_stable_order() {
    let d = tree();
    let root = d.path().join("maildir");
    let items: Vec<_> = amem_importer_enron::open(&root, &ImportOptions::default()).unwrap().collect();
    let got = ids(&items);
    assert_eq!(got.len(), 5);
    assert_eq!(got[0], "<4.JavaMail.evans@thyme>");
    assert!(got[1].starts_with("ERR date") && got[1].ends_with("inbox/1."), "{got:?}");
    assert_eq!(&got[2..], ["<3.JavaMail.evans@thyme>", "<2.JavaMail.evans@thyme>", "<10.JavaMail.evans@thyme>"]);
    let m = items[4].as_ref().unwrap();
    assert_eq!(m.meta["file"], "lewis-a/sent_items/10.");
    assert_eq!(m.meta["x-origin"], "Lewis-A");
    assert_eq!(m.meta["x-to"], "");
    assert_eq!(m.conversation, "lewis-a/subject:curve");
    assert_eq!(m.recipients, ["b@enron.com", "c@enron.com"]);
    assert_eq!(m.text, "The curve moved 3 cents.");
    assert_eq!(m.quoted[0].text, "Where is the curve?");

    // One custodian, one folder, one file: same mailbox and file keys.
    for (p, n) in [(root.join("lewis-a"), 4), (root.join("lewis-a/sent_items"), 2), (root.join("lewis-a/sent_items/10."), 1)] {
        let items: Vec<_> = amem_importer_enron::open(&p, &ImportOptions::default()).unwrap().collect();
        assert_eq!(items.len(), n, "{}", p.display());
        let last = items.last().unwrap().as_ref().unwrap();
        assert_eq!(last.meta["file"], "lewis-a/sent_items/10.", "{}", p.display());
        assert_eq!(last.conversation, "lewis-a/subject:curve");
    }
    assert_eq!(amem_importer_enron::open(&root.join("nope"), &ImportOptions::default()).err().unwrap().kind, "io");
}

#[test]
fn csv_rows_errors_and_bad_header() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("emails.csv");
    let mut w = csv::WriterBuilder::new().flexible(true).from_path(&p).unwrap();
    w.write_record(["file", "message"]).unwrap();
    w.write_record(["allen-p/_sent_mail/1.", MAIL]).unwrap();
    w.write_record(["allen-p/_sent_mail/2.", "Subject: no date\n\nx\n"]).unwrap();
    w.write_record(["allen-p/_sent_mail/3."]).unwrap();
    w.write_record(["allen-p/inbox/4.", &MAIL.replace("<1.", "<4.")]).unwrap();
    w.flush().unwrap();
    drop(w);
    let items: Vec<_> = amem_importer_enron::open_csv(&p, &ImportOptions::default()).unwrap().collect();
    assert_eq!(items.len(), 4);
    let m = items[0].as_ref().unwrap();
    assert_eq!(m.meta["file"], "allen-p/_sent_mail/1.");
    assert_eq!(m.conversation, "allen-p/subject:curve");
    assert_eq!(m.locator, format!("{}:line 2", p.display()));
    let e = items[1].as_ref().unwrap_err();
    assert_eq!(e.kind, "date");
    assert!(e.position.starts_with("line ") && e.position.contains("allen-p/_sent_mail/2."), "{}", e.position);
    assert_eq!(items[2].as_ref().unwrap_err().kind, "csv");
    assert!(items[3].is_ok());

    let bad = d.path().join("bad.csv");
    std::fs::write(&bad, "a,b\n1,2\n").unwrap();
    assert_eq!(amem_importer_enron::open_csv(&bad, &ImportOptions::default()).err().unwrap().kind, "csv");
    // A quote left open to the end of the file: an error, then the end.
    let open_quote = d.path().join("open.csv");
    std::fs::write(&open_quote, format!("file,message\nu/f/1.,\"{}\nu/f/2.,\"unterminated", MAIL.replace('"', "\"\""))).unwrap();
    let items: Vec<_> = amem_importer_enron::open_csv(&open_quote, &ImportOptions::default()).unwrap().collect();
    assert!(!items.is_empty() && items.len() <= 2);
}

// ---- Issue 16: nothing dropped without a count.

fn csv_items(p: &Path) -> Vec<Result<Message, amem_records::ImportError>> {
    amem_importer_enron::open_csv(p, &ImportOptions::default()).unwrap().collect()
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Probe case "CSV quote": a record with a stray (undoubled) quote mid-file
/// is one error at the line where the broken record starts; its neighbours
/// come through intact. Before, one message was lost, its neighbour
/// corrupted, and nothing was counted.
#[test]
fn r16_csv_unbalanced_quote_is_counted_at_the_line_the_record_starts() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("emails.csv");
    let mail = |n: u32| {
        MAIL.replace("<1.", &format!("<{n}.")).replace("The curve moved 3 cents.", &format!("The curve moved {n} cents, \"fast\"."))
    };
    let broken = format!("\"{}\"", mail(2).replace('"', "\"\"").replace("Where is the curve?", "He said \"where is, the curve?"));
    let text =
        format!("file,message\nu/f/1.,{}\nu/f/2.,{}\nu/f/3.,{}\nu/f/4.,{}\n", quoted(&mail(1)), broken, quoted(&mail(3)), quoted(&mail(4)));
    std::fs::write(&p, &text).unwrap();
    let items = csv_items(&p);
    let got = ids(&items);
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got[0], "<1.JavaMail.evans@thyme>");
    let e = items[1].as_ref().unwrap_err();
    assert_eq!(e.kind, "csv_quote", "{e}");
    let line2 = text.lines().position(|l| l.starts_with("u/f/2.,")).unwrap() + 1;
    assert_eq!(e.position, format!("line {line2}"), "{e}");
    assert_eq!(&got[2..], ["<3.JavaMail.evans@thyme>", "<4.JavaMail.evans@thyme>"]);
    for m in [&items[2], &items[3]] {
        let m = m.as_ref().unwrap();
        assert!(m.text.contains("cents, \"fast\"."), "neighbour intact: {}", m.text);
        assert_eq!(m.quoted[0].text, "Where is the curve?");
    }
}

/// The check against the raw bytes reads CRLF files (what Python's csv
/// module writes) as whole records, and still finds a broken one.
#[test]
fn r16_csv_crlf_records_are_whole() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("emails.csv");
    let crlf = |m: &str| m.replace("\r\n", "\n").replace('\n', "\r\n");
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_path(&p).unwrap();
    w.write_record(["file", "message"]).unwrap();
    for n in 1..=3 {
        w.write_record([format!("u/f/{n}."), crlf(&MAIL.replace("<1.", &format!("<{n}.")))]).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let items = csv_items(&p);
    assert_eq!(ids(&items), ["<1.JavaMail.evans@thyme>", "<2.JavaMail.evans@thyme>", "<3.JavaMail.evans@thyme>"]);
    // A stray quote in the second record: one error, the third intact.
    let text = std::fs::read_to_string(&p).unwrap().replacen("Where is the curve?", "He said \"where, is the curve?", 2);
    let text = text.replacen("He said \"where, is the curve?", "Where is the curve?", 1);
    std::fs::write(&p, text).unwrap();
    let items = csv_items(&p);
    let got = ids(&items);
    let why: Vec<String> = items.iter().filter_map(|r| r.as_ref().err()).map(|e| format!("{} {}", e.position, e.reason)).collect();
    assert_eq!(got.len(), 3, "{got:?} {why:?}");
    assert!(got[1].starts_with("ERR csv_quote"), "{got:?}");
    let line2 = std::fs::read_to_string(&p).unwrap().lines().position(|l| l.starts_with("u/f/2.,")).unwrap() + 1;
    assert!(why[0].starts_with(&format!("line {line2} ")), "{why:?}");
    assert_eq!(got[2], "<3.JavaMail.evans@thyme>");
}

/// A last record cut short (its quote never closes) is counted, not taken.
#[test]
fn r16_csv_truncated_last_record_is_counted() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("emails.csv");
    let two = MAIL.replace("<1.", "<2.");
    let text = format!("file,message\nu/f/1.,{}\nu/f/2.,\"{}", quoted(MAIL), &two[..two.len() / 2]);
    std::fs::write(&p, &text).unwrap();
    let items = csv_items(&p);
    let got = ids(&items);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0], "<1.JavaMail.evans@thyme>");
    let e = items[1].as_ref().unwrap_err();
    assert_eq!(e.kind, "truncated", "{e}");
    let line2 = text.lines().position(|l| l.starts_with("u/f/2.,")).unwrap() + 1;
    assert_eq!(e.position, format!("line {line2}"));
}

/// Probe case "FIFO" for a maildir: a FIFO or a symlink to `/dev/zero` among
/// the mails is one error each (kind `not_regular`), never read.
#[cfg(unix)]
#[test]
fn r16_maildir_fifo_and_device_entries_are_counted_not_read() {
    let d = tree();
    let folder = d.path().join("maildir/lewis-a/sent_items");
    std::os::unix::fs::symlink("/dev/zero", folder.join("20.")).unwrap();
    let fifo = std::process::Command::new("mkfifo").arg(folder.join("21.")).status().is_ok_and(|s| s.success());
    let items: Vec<_> = amem_importer_enron::open(&d.path().join("maildir"), &ImportOptions::default()).unwrap().collect();
    let errs: Vec<_> = items.iter().filter_map(|r| r.as_ref().err()).filter(|e| e.kind == "not_regular").collect();
    assert_eq!(errs.len(), 1 + usize::from(fifo), "{errs:?}");
    assert!(errs.iter().any(|e| e.path.ends_with("20.") && e.reason.contains("character device")), "{errs:?}");
    assert_eq!(items.iter().filter(|r| r.is_ok()).count(), 4);
}

/// A mail whose file name is not UTF-8 is read (issue 40: it was "No such
/// file or directory" and the message was lost), by the walk and in parallel.
#[test]
fn a_file_name_that_is_not_utf8_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let folder = d.path().join("maildir/lewis-a/inbox");
    std::fs::create_dir_all(&folder).unwrap();
    let odd = folder.join(std::ffi::OsStr::from_bytes(b"1.\xff\xfe"));
    std::fs::write(&odd, MAIL).unwrap();
    write(&d.path().join("maildir"), "lewis-a/inbox/2.", &MAIL.replace("<1.", "<2."));
    let root = d.path().join("maildir");
    let items: Vec<_> = amem_importer_enron::open(&root, &ImportOptions::default()).unwrap().collect();
    assert_eq!(ids(&items), ["<1.JavaMail.evans@thyme>", "<2.JavaMail.evans@thyme>"]);
    let parallel: Vec<_> = amem_importer_enron::MaildirImporter::open(&root, &ImportOptions::default()).unwrap().into_parallel(2).collect();
    assert_eq!(ids(&parallel), ids(&items));
    let one: Vec<_> = amem_importer_enron::open(&odd, &ImportOptions::default()).unwrap().collect();
    assert_eq!(ids(&one), ["<1.JavaMail.evans@thyme>"]);
}

// ---- Issue 40: every read bounded.

/// One CSV record past the cap (here 8 KiB; 64 MiB by default) is skipped
/// and counted at the line it starts on, without holding more than the cap:
/// the records after it are read. Before, the csv crate held any record
/// whole (a 100 MB record took the audit past 4 GiB).
#[test]
fn r40_csv_record_over_the_cap_is_skipped_and_counted() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("emails.csv");
    let cap = 8 << 10;
    let mail = |n: u32| MAIL.replace("<1.", &format!("<{n}."));
    // One long line and many short ones: both shapes of a huge body.
    let one_line = mail(2).replace("The curve moved 3 cents.", &"word ".repeat(20_000));
    let many_lines = mail(4).replace("The curve moved 3 cents.", &"a line\n".repeat(20_000));
    let text = format!(
        "file,message\nu/f/1.,{}\nu/f/2.,{}\nu/f/3.,{}\nu/f/4.,{}\nu/f/5.,{}\n",
        quoted(&mail(1)),
        quoted(&one_line),
        quoted(&mail(3)),
        quoted(&many_lines),
        quoted(&mail(5))
    );
    std::fs::write(&p, &text).unwrap();
    let items: Vec<_> = amem_importer_enron::CsvImporter::open_with_cap(&p, &ImportOptions::default(), cap).unwrap().collect();
    let got: Vec<String> = ids(&items).into_iter().map(|s| s.split(" /").next().unwrap().to_string()).collect();
    assert_eq!(got, ["<1.JavaMail.evans@thyme>", "ERR too_large", "<3.JavaMail.evans@thyme>", "ERR too_large", "<5.JavaMail.evans@thyme>"]);
    for (i, file) in [(1, "u/f/2.,"), (3, "u/f/4.,")] {
        let e = items[i].as_ref().unwrap_err();
        let line = text.lines().position(|l| l.starts_with(file)).unwrap() + 1;
        assert_eq!(e.position, format!("line {line}"), "{e}");
        assert!(e.reason.contains(&cap.to_string()) && e.reason.contains("resumes"), "{e}");
    }
    // The same file under the default cap: every record read.
    assert_eq!(ids(&csv_items(&p)).iter().filter(|s| s.starts_with("ERR")).count(), 0);
    // A huge last record: counted, and reading ends.
    let last = format!("file,message\nu/f/1.,{}\nu/f/2.,{}\n", quoted(&mail(1)), quoted(&one_line));
    std::fs::write(&p, &last).unwrap();
    let items: Vec<_> = amem_importer_enron::CsvImporter::open_with_cap(&p, &ImportOptions::default(), cap).unwrap().collect();
    assert!(ids(&items)[1].starts_with("ERR too_large"), "{items:?}");
    assert_eq!(items.len(), 2);
    assert!(items[1].as_ref().unwrap_err().reason.contains("rest of the file"), "{:?}", items[1]);
}
