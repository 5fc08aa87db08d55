//! The mbox importer on the real samples in ../shared/corpora/mbox, and the
//! differential test against Python's standard `mailbox` + `email` modules.
//! Skipped (with a `SKIPPED` line) when ../shared is absent.

use amem_records::{ImportError, ImportOptions, Message};
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared(test: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIPPED {test}: ../shared is absent");
        None
    }
}

fn import(path: &Path) -> Vec<Result<Message, ImportError>> {
    amem_importer_mbox::open(path, &ImportOptions::default()).unwrap().collect()
}

const MBOX_SAMPLES: &[&str] = &["corpora/mbox/mail-box-mbox.src", "corpora/mbox/msgvault/test.mbox"];

#[derive(serde::Deserialize, Debug)]
struct PyMessage {
    id: Option<String>,
    subject: Option<String>,
    date: Option<i64>,
}

#[test]
fn differential_against_python_mailbox() {
    let Some(shared) = shared("differential_against_python_mailbox") else { return };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/differential.py");
    for rel in MBOX_SAMPLES {
        let path = shared.join(rel);
        let out = Command::new("python3").arg(&script).arg(&path).output().expect("python3 runs (it is on every machine amem supports)");
        assert!(out.status.success(), "python3 failed on {rel}: {}", String::from_utf8_lossy(&out.stderr));
        let py: Vec<PyMessage> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let ours = import(&path);
        assert_eq!(ours.len(), py.len(), "{rel}: message count");
        for (i, (o, p)) in ours.iter().zip(&py).enumerate() {
            let m = o.as_ref().unwrap_or_else(|e| panic!("{rel}[{i}]: {e}"));
            match &p.id {
                Some(id) => assert_eq!(&m.id.0, id, "{rel}[{i}] Message-ID"),
                None => assert!(m.id.0.starts_with("sha256:") && m.meta["id_from"] == "digest", "{rel}[{i}] digest id"),
            }
            assert_eq!(m.subject, p.subject, "{rel}[{i}] subject");
            assert_eq!(Some(m.sent_at.as_second()), p.date, "{rel}[{i}] date");
        }
        eprintln!("{rel}: {} messages agree with python3 mailbox+email", py.len());
    }
}

#[test]
fn mbox_samples_read_fully() {
    let Some(shared) = shared("mbox_samples_read_fully") else { return };
    let ms = import(&shared.join("corpora/mbox/mail-box-mbox.src"));
    assert_eq!(ms.len(), 45);
    let ms: Vec<Message> = ms.into_iter().map(Result::unwrap).collect();
    // The majordomo footer is a list footer, not the author's text.
    let first = &ms[0];
    assert!(first.text.starts_with("You can convert .html to .ps using Netscape."), "{}", first.text);
    assert!(!first.text.contains("majordomo"), "{}", first.text);
    assert!(first.meta["disclaimer"].contains("To remove yourself from this mailing list"));
    assert_eq!(first.quoted[0].author.as_deref(), Some("Mark Sappol"));
    assert_eq!(first.conversation, "<38A11D0E.A2064062@ipicorp.com>");
    // Every message has text or says why not.
    for m in &ms {
        assert!(!m.text.is_empty() || !m.quoted.is_empty() || m.meta.contains_key("body"), "{}", m.locator);
    }
    let ms: Vec<Message> = import(&shared.join("corpora/mbox/msgvault/test.mbox")).into_iter().map(Result::unwrap).collect();
    assert_eq!(ms.len(), 2);
    assert_eq!(ms[0].conversation, "1234567890123456");
    assert_eq!(ms[1].conversation, ms[0].conversation);
    assert_eq!(ms[1].text, "This is the reply.\nIt should be in the same thread.");
}

/// Each `.eml` sample, read as a one-message mbox: one item each, never a
/// panic, and a `date` error exactly when the file has no Date header (most
/// of these MIME test files have none). Then the MIME content of each, with
/// a Date header supplied: the well-formed folders all give messages with a
/// decoded body; the malformed folder never panics.
#[test]
fn eml_samples_parse() {
    let Some(shared) = shared("eml_samples_parse") else { return };
    for dir in ["thirdparty", "legacy", "malformed"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(shared.join("corpora/mbox/mail-parser-eml").join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .collect();
        files.sort();
        assert!(files.len() >= 20, "{dir}");
        let mut ok = 0;
        for f in &files {
            let raw = std::fs::read(f).unwrap();
            let has_date = raw
                .split(|&b| b == b'\n')
                .take_while(|l| !l.is_empty() && *l != b"\r")
                .any(|l| l.len() >= 5 && l[..5].eq_ignore_ascii_case(b"date:"));
            let items = import(f);
            assert_eq!(items.len(), 1, "{}", f.display());
            match &items[0] {
                Ok(_) => assert!(has_date, "{}", f.display()),
                Err(e) if e.kind == "date" => assert!(!has_date || e.reason.contains("unreadable"), "{}: {e}", f.display()),
                Err(e) => assert_eq!(dir, "malformed", "{}: {e}", f.display()),
            }
            let mut dated = b"Date: Tue, 3 Feb 2026 10:00:00 +0000\n".to_vec();
            dated.extend_from_slice(&raw);
            let cx = amem_rfc822::MailContext {
                source: amem_records::SourceKind::GMAIL,
                archive: "eml",
                locator: f.display().to_string(),
                mailbox: dir,
                gmail: true,
                keep_headers: &[],
                window: Default::default(),
                unterminated: false,
            };
            match amem_rfc822::parse_message(&dated, &cx) {
                Ok(Some(m)) => {
                    ok += 1;
                    assert!(m.meta.contains_key("body"), "{}", f.display());
                }
                Ok(None) => unreachable!(),
                Err(e) => assert_eq!(dir, "malformed", "{}: {e}", f.display()),
            }
        }
        eprintln!("{dir}: {ok} of {} parse to messages", files.len());
    }
}
