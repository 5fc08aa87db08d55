//! Extraction output pinned byte for byte: every claim's span, kind, cues
//! (class, span, rule) and id, for the mails and chats of `examples/home`,
//! the labelled sentences and a handmade fixture of hard cases (Unicode
//! case mappings that change byte lengths, curly quotes, Slack mentions and
//! emoji codes, signatures, code blocks). The expected files were written by
//! the extractor before its speed rewrite, so any drift in a rewrite of
//! segmentation, classification or cue detection fails here.
//!
//! With ../shared present, the same is checked on its Enron maildir, Slack
//! and mbox corpora through one digest of every claim's JSON.
//!
//! `AMEM_BLESS=1 cargo test -p amem-extract --test golden` rewrites the
//! expected files (only when a rule change is intended: bump `EXTRACTOR`).

#![allow(clippy::print_stderr)]

use amem_extract::extract;
use amem_records::{Claim, Message, MessageId, SourceKind};
use sha2::{Digest as _, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn message(source: SourceKind, locator: &str, text: &str) -> Message {
    Message {
        source,
        archive: "golden".into(),
        conversation: "c".into(),
        id: MessageId(locator.into()),
        author: "a".into(),
        recipients: vec![],
        sent_at: "2001-02-01T00:00:00Z".parse().expect("timestamp"),
        subject: None,
        text: text.into(),
        quoted: vec![],
        locator: locator.into(),
        meta: Default::default(),
        not_claims: None,
    }
}

/// One line per claim: locator, layout, span, kind, id, cues.
fn line(source: SourceKind, c: &Claim, out: &mut String) {
    let _ = write!(out, "{}\t{source}\t{}..{}\t{}\t{}\t", c.message.0, c.span.start, c.span.end, c.kind.as_str(), c.id.0.short(16));
    for (i, q) in c.cues.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(out, "{sep}{}:{}..{}:{}", q.class.as_str(), q.span.start, q.span.end, q.rule);
    }
    out.push('\n');
}

/// Every text under test, extracted as prose (Enron) and as chat (Slack).
fn render(texts: &[(String, String)]) -> String {
    let mut out = String::new();
    for (locator, text) in texts {
        for source in [SourceKind::ENRON, SourceKind::SLACK] {
            let m = message(source, locator, text);
            for c in extract(&m) {
                assert_eq!(&m.text[c.span.start..c.span.end], c.text);
                line(source, &c, &mut out);
            }
        }
    }
    out
}

fn read(p: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).replace("\r\n", "\n")
}

/// Files under `dir`, sorted, paths relative to `base`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() { stack.push(p) } else { out.push(p) }
        }
    }
    out.sort();
    out
}

/// The `text` fields of a Slack day file (any JSON array of objects).
fn slack_texts(json: &str) -> Vec<String> {
    let Ok(serde_json::Value::Array(items)) = serde_json::from_str::<serde_json::Value>(json) else { return Vec::new() };
    items.iter().filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_string)).collect()
}

/// Bodies of an mbox: each message after its first blank line.
fn mbox_bodies(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in raw.split("\nFrom ") {
        if let Some((_, body)) = part.split_once("\n\n") {
            out.push(body.to_string());
        }
    }
    out
}

/// The texts of a corpus tree: maildir bodies, Slack day-file texts, mbox
/// bodies, anything else whole; the longest cut to 64 KiB.
fn corpus_texts(root: &Path, label: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in files(root) {
        let rel = p.strip_prefix(root).unwrap_or(&p).to_string_lossy().replace('\\', "/");
        let name = format!("{label}/{rel}");
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        let raw = read(&p);
        let pieces: Vec<String> = match ext {
            "json" => slack_texts(&raw),
            "mbox" | "eml" => mbox_bodies(&raw),
            "db" | "sqlite" | "zip" | "gz" | "png" | "jpg" => Vec::new(),
            _ if rel.contains("maildir/") => raw.split_once("\n\n").map(|(_, b)| vec![b.to_string()]).unwrap_or_default(),
            _ => vec![raw],
        };
        for (i, mut t) in pieces.into_iter().enumerate() {
            if t.len() > 65_536 {
                let mut cut = 65_536;
                while !t.is_char_boundary(cut) {
                    cut -= 1;
                }
                t.truncate(cut);
            }
            out.push((format!("{name}#{i}"), t));
        }
    }
    out
}

fn in_repo_texts() -> Vec<(String, String)> {
    let mut texts = Vec::new();
    let fixture = read(&manifest().join("tests/fixtures/golden_input.txt"));
    for (i, t) in fixture.split("=====\n").enumerate() {
        texts.push((format!("fixture#{i}"), t.to_string()));
    }
    for (i, l) in include_str!("../eval/labels.jsonl").lines().enumerate() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(l)
            && let Some(t) = v.get("text").and_then(|t| t.as_str())
        {
            texts.push((format!("labels#{i}"), t.to_string()));
        }
    }
    texts.extend(corpus_texts(&manifest().join("../../examples/home/exports"), "home"));
    texts
}

fn compare(expected_path: &Path, got: &str) {
    if std::env::var_os("AMEM_BLESS").is_some() {
        std::fs::write(expected_path, got).expect("write expected");
        eprintln!("wrote {}", expected_path.display());
        return;
    }
    let want = read(expected_path);
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        assert_eq!(w, g, "{}: first difference at line {}", expected_path.display(), i + 1);
    }
    assert_eq!(want.lines().count(), got.lines().count(), "{}: line count", expected_path.display());
}

#[test]
fn claims_of_home_labels_and_fixture_are_unchanged() {
    let texts = in_repo_texts();
    assert!(texts.len() > 330, "{}", texts.len());
    let got = render(&texts);
    assert!(got.lines().count() > 700);
    compare(&manifest().join("tests/fixtures/golden_claims.tsv"), &got);
}

#[test]
fn claims_of_shared_corpora_are_unchanged() {
    let root = manifest().join("../../../shared/corpora");
    if !root.is_dir() {
        eprintln!("SKIPPED claims_of_shared_corpora_are_unchanged: ../shared is absent");
        return;
    }
    let mut texts = corpus_texts(&root.join("enron"), "enron");
    texts.extend(corpus_texts(&root.join("slack"), "slack"));
    texts.extend(corpus_texts(&root.join("mbox"), "mbox"));
    let (mut claims, mut hasher) = (0usize, Sha256::new());
    for (locator, text) in &texts {
        for source in [SourceKind::ENRON, SourceKind::SLACK] {
            for c in extract(&message(source, locator, text)) {
                claims += 1;
                hasher.update(serde_json::to_vec(&c).expect("claim serialises"));
                hasher.update(b"\n");
            }
        }
    }
    let digest: String = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let got = format!("texts {}\nclaims {claims}\nsha256 {digest}\n", texts.len());
    compare(&manifest().join("tests/fixtures/golden_shared.txt"), &got);
}
