//! Extraction on real messages from ../shared/corpora (skipped, with a
//! `SKIPPED` line, when ../shared is absent beside the checkout).
//!
//! The message text is built here the way the importers hand it over
//! (headers off, the author's own text only), with the simplest cut that
//! fits each file, so these tests do not depend on the importer crates.

#![allow(clippy::print_stderr)]

use amem_extract::{SetAsideReason, extract, extract_all};
use amem_records::{ClaimKind, Message, MessageId, SourceKind};
use std::path::PathBuf;

fn corpora(test: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIPPED {test}: ../shared is absent beside the checkout");
        None
    }
}

fn message(source: SourceKind, locator: &str, text: String) -> Message {
    Message {
        source,
        archive: "../shared/corpora".into(),
        conversation: "c".into(),
        id: MessageId(locator.into()),
        author: "a".into(),
        recipients: vec![],
        sent_at: "2001-02-01T00:00:00Z".parse().expect("timestamp"),
        subject: None,
        text,
        quoted: vec![],
        locator: locator.into(),
        meta: Default::default(),
        not_claims: None,
    }
}

/// The body of a maildir file: after the first blank line, CRLF folded.
fn enron_body(raw: &str) -> String {
    let raw = raw.replace("\r\n", "\n");
    raw.split_once("\n\n").map(|(_, b)| b.to_string()).unwrap_or_default()
}

#[test]
fn enron_meeting_notice_with_signature() {
    let Some(root) = corpora("enron_meeting_notice_with_signature") else { return };
    let path = root.join("enron/maildir/buy-r/discussion_threads/5.");
    let raw = std::fs::read_to_string(&path).expect("read");
    let m = message(SourceKind::ENRON, "buy-r/discussion_threads/5.", enron_body(&raw));
    let ex = extract_all(&m);
    let texts: Vec<&str> = ex.claims.iter().map(|c| c.text.as_str()).collect();
    // The hard-wrapped line is one sentence; "p.m." does not end it early.
    assert_eq!(ex.claims.len(), 2, "{texts:#?}");
    assert!(texts[0].starts_with("Please be advised") && texts[0].ends_with("4:00 p.m."), "{texts:#?}");
    assert_eq!(ex.claims[0].kind, ClaimKind::Logistics);
    assert_eq!(texts[1], "Thanks.");
    assert_eq!(ex.claims[1].kind, ClaimKind::Greeting);
    // "Emy C. Geraldo / 3-5391 / Enron Corp." is a signature, set aside.
    let sig = ex.set_aside.iter().find(|(_, r)| *r == SetAsideReason::Signature).expect("signature");
    assert!(m.text[sig.0.start..sig.0.end].starts_with("Emy C. Geraldo"));
}

#[test]
fn slack_day_file_chat_lines() {
    let Some(root) = corpora("slack_day_file_chat_lines") else { return };
    let path = root.join("slack/slack-export-viewer-testarchive/enrique/2016-03-17.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    let msgs = v.as_array().expect("array");
    let text_of = |i: usize| msgs[i]["text"].as_str().expect("text").replace("&gt;", ">");
    // #8: a quoted line (set aside) then "so....what now then?"
    let m = message(SourceKind::SLACK, "enrique/2016-03-17.json#8", text_of(8));
    let ex = extract_all(&m);
    assert_eq!(ex.claims.len(), 1);
    assert_eq!(ex.claims[0].text, "so....what now then?");
    assert_eq!(ex.claims[0].kind, ClaimKind::Question);
    assert_eq!(ex.set_aside[0].1, SetAsideReason::Quoted);
    // #11: ":+1: " is a reaction.
    let m = message(SourceKind::SLACK, "enrique/2016-03-17.json#11", text_of(11));
    let kinds: Vec<ClaimKind> = extract(&m).iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [ClaimKind::Greeting]);
    // #3: a heading line, then a quoted answer between """ lines, one claim per sentence.
    let m = message(SourceKind::SLACK, "enrique/2016-03-17.json#3", text_of(3));
    let claims = extract(&m);
    assert!(claims.len() >= 4, "{claims:#?}");
    assert!(claims.iter().any(|c| c.kind.is_audited()));
}

#[test]
fn slack_code_block_is_set_aside() {
    let Some(root) = corpora("slack_code_block_is_set_aside") else { return };
    let path = root.join("slack/slack-export-viewer-testarchive/traveling-sailor/2016-03-26.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    let text = v[1]["text"].as_str().expect("text").to_string();
    assert!(text.starts_with("```"));
    let m = message(SourceKind::SLACK, "traveling-sailor/2016-03-26.json#1", text);
    let ex = extract_all(&m);
    assert!(ex.claims.is_empty(), "{:#?}", ex.claims);
    assert_eq!(ex.set_aside[0].1, SetAsideReason::Code);
}

/// Every Enron sample file: spans slice the text, claims are in order, the
/// run is deterministic, and it is fast enough for the hot path.
#[test]
fn every_enron_sample_file() {
    let Some(root) = corpora("every_enron_sample_file") else { return };
    let mut files = Vec::new();
    let mut stack = vec![root.join("enron/maildir")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() { stack.push(p) } else { files.push(p) }
        }
    }
    files.sort();
    assert!(files.len() >= 500, "{} files", files.len());
    let started = std::time::Instant::now();
    let (mut claims, mut bytes) = (0usize, 0usize);
    for f in &files {
        let bytes_raw = std::fs::read(f).expect("read");
        let m = message(SourceKind::ENRON, &f.display().to_string(), enron_body(&String::from_utf8_lossy(&bytes_raw)));
        bytes += m.text.len();
        let out = extract(&m);
        let mut last = 0;
        for c in &out {
            assert_eq!(&m.text[c.span.start..c.span.end], c.text, "{}", f.display());
            assert!(c.span.start >= last, "{}", f.display());
            last = c.span.end;
        }
        claims += out.len();
    }
    let secs = started.elapsed().as_secs_f64();
    eprintln!("{} files, {bytes} bytes, {claims} claims in {secs:.2}s", files.len());
    assert!(claims > 1000);
    // A debug build on 2 shared cores: generous, but catches a per-call regex compile.
    assert!(secs < 20.0, "extraction took {secs:.1}s");
}

/// A list reply from the mbox sample: technical facts audited, the pointer
/// to an article is logistics, the closing name is a greeting.
#[test]
fn mbox_list_reply() {
    let Some(root) = corpora("mbox_list_reply") else { return };
    let raw = String::from_utf8_lossy(&std::fs::read(root.join("mbox/mail-box-mbox.src")).expect("read")).replace("\r\n", "\n");
    let msg = raw.split("\nFrom ").find(|m| m.contains("-stegano option")).expect("the watermarking reply");
    let body = msg.split_once("\n\n").map(|(_, b)| b).unwrap_or("");
    let own: Vec<&str> = body.lines().take_while(|l| !l.ends_with("wrote:")).filter(|l| !l.starts_with('>')).collect();
    let m = message(SourceKind::GMAIL, "mail-box-mbox.src#stegano", own.join("\n"));
    let claims = extract(&m);
    let stegano = claims.iter().find(|c| c.text.contains("-stegano")).expect("stegano sentence");
    assert_eq!(stegano.kind, ClaimKind::Fact);
    let see = claims.iter().find(|c| c.text.starts_with("See this interesting article")).expect("pointer sentence");
    assert_eq!(see.kind, ClaimKind::Logistics);
    assert_eq!(claims.last().map(|c| (c.text.as_str(), c.kind)), Some(("Bob", ClaimKind::Greeting)));
}
