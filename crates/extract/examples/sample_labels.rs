//! The deterministic sampler behind `crates/extract/eval/labels.jsonl`.
//!
//! ```text
//! cargo run -p amem-extract --example sample_labels -- ../shared/corpora > /tmp/sample.jsonl
//! ```
//!
//! Sampling rule (sampler version `v1`):
//! 1. Frame: every sentence of the author's own text of
//!    - every file under `enron/maildir/` (565 CMU maildir files),
//!    - every ordinary user message (no `subtype`) of the Slack export
//!      `slack/slack-export-viewer-testarchive/` (the other Slack sample,
//!      `slackdump-source_export_dir`, has scrambled random-string text and is
//!      left out),
//!    - every message of `mbox/mail-box-mbox.src` and `mbox/msgvault/test.mbox`
//!      whose body is a single non-base64 text part (multipart and base64
//!      bodies are left out: this sampler is not a MIME decoder).
//! 2. The author's own text is cut by a deliberately simple stand-in for the
//!    importers (so the sample does not depend on them): headers dropped,
//!    quoted-printable soft breaks undone, everything from the first reply or
//!    forward marker (`-----Original Message-----`, `Forwarded by`, a Notes
//!    `To:` block, `... wrote:`) dropped, `>` lines dropped; Slack `<url|label>`
//!    and `<@U…>` markup reduced to its label and `&gt;`/`&lt;`/`&amp;` decoded.
//! 3. Sentences are cut with [`amem_extract::segment`] after
//!    [`amem_extract::find_signature`] (prose layout for mail, chat layout for
//!    Slack); sentences over 400 bytes are left out of the frame.
//! 4. Each sentence gets the locator `<corpus path>#<message>/s<k>` (k = its index
//!    among the message's sentences); its key is SHA-256 of
//!    `amem-extract-labels-v1|<locator>` (the optional second argument
//!    replaces that prefix, for other draws); the frame is sorted by key and the
//!    first 230 Enron, 40 Slack and 50 mbox sentences are kept (fewer when a
//!    stratum is smaller), then printed in key order.
//!
//! The classifier is not called here.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use amem_extract::{Layout, find_signature, segment};
use sha2::{Digest as _, Sha256};
use std::path::{Path, PathBuf};

const ENRON_N: usize = 230;
const SLACK_N: usize = 40;
const MBOX_N: usize = 50;

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "../shared/corpora".into()));
    // A second argument changes the key prefix: a different draw from the
    // same frame, for looking at sentences outside the labelled set.
    let salt = std::env::args().nth(2).unwrap_or_else(|| "amem-extract-labels-v1".into());
    let mut enron = Vec::new();
    let mut files = Vec::new();
    walk(&root.join("enron/maildir"), &mut files);
    files.sort();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else { continue };
        let raw = decode_bytes(&bytes);
        let loc = format!("enron/maildir/{}", f.strip_prefix(root.join("enron/maildir")).unwrap_or(f).display());
        if let Some(body) = mail_body(&raw) {
            add_sentences(&mut enron, &salt, &format!("{loc}#body"), &body, Layout::Prose);
        }
    }

    let mut slack = Vec::new();
    let sroot = root.join("slack/slack-export-viewer-testarchive");
    let mut days = Vec::new();
    walk(&sroot, &mut days);
    days.retain(|p| p.parent() != Some(sroot.as_path()) && p.extension().is_some_and(|e| e == "json"));
    days.sort();
    for d in &days {
        let Ok(s) = std::fs::read_to_string(d) else { continue };
        let Ok(serde_json::Value::Array(msgs)) = serde_json::from_str::<serde_json::Value>(&s) else { continue };
        let loc = format!("slack/slack-export-viewer-testarchive/{}", d.strip_prefix(&sroot).unwrap_or(d).display());
        for (i, m) in msgs.iter().enumerate() {
            if m.get("subtype").is_some() {
                continue;
            }
            let Some(text) = m.get("text").and_then(|t| t.as_str()) else { continue };
            add_sentences(&mut slack, &salt, &format!("{loc}#{i}"), &slack_text(text), Layout::Chat);
        }
    }

    let mut mbox = Vec::new();
    for name in ["mbox/mail-box-mbox.src", "mbox/msgvault/test.mbox"] {
        let Ok(bytes) = std::fs::read(root.join(name)) else { continue };
        let raw = decode_bytes(&bytes);
        for (i, m) in split_mbox(&raw).iter().enumerate() {
            if let Some(body) = mail_body(m) {
                add_sentences(&mut mbox, &salt, &format!("{name}#{i}"), &body, Layout::Prose);
            }
        }
    }
    eprintln!("frame: enron {} slack {} mbox {}", enron.len(), slack.len(), mbox.len());
    let mut picked = Vec::new();
    for (mut v, n) in [(enron, ENRON_N), (slack, SLACK_N), (mbox, MBOX_N)] {
        v.sort();
        picked.extend(v.into_iter().take(n));
    }
    picked.sort();
    for (_, source, text) in picked {
        println!("{}", serde_json::json!({"source": source, "text": text}));
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// UTF-8 when valid, else Latin-1 (the mbox sample has raw 8-bit bytes).
fn decode_bytes(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => b.iter().map(|&c| c as char).collect(),
    }
}

fn add_sentences(out: &mut Vec<(String, String, String)>, salt: &str, loc: &str, body: &str, layout: Layout) {
    let end = find_signature(body).map(|s| s.start).unwrap_or(body.len());
    let seg = segment(&body[..end], layout);
    for (k, s) in seg.sentences.iter().enumerate() {
        let text = &body[s.start..s.end];
        if text.len() > 400 {
            continue;
        }
        let source = format!("{loc}/s{k}");
        let key = Sha256::digest(format!("{salt}|{source}").as_bytes());
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        out.push((hex, source, text.to_string()));
    }
}

fn split_mbox(raw: &str) -> Vec<String> {
    let mut msgs = Vec::new();
    let mut cur = String::new();
    let mut prev_blank = true;
    for line in raw.split_inclusive('\n') {
        if line.starts_with("From ") && prev_blank {
            if !cur.trim().is_empty() {
                msgs.push(std::mem::take(&mut cur));
            }
            cur.clear();
        } else {
            cur.push_str(line);
        }
        prev_blank = line.trim().is_empty();
    }
    if !cur.trim().is_empty() {
        msgs.push(cur);
    }
    msgs
}

/// Headers off, QP undone, quoted parts cut. `None` for multipart/base64.
fn mail_body(raw: &str) -> Option<String> {
    let raw = raw.replace("\r\n", "\n");
    let (head, body) = raw.split_once("\n\n")?;
    let head_l = head.to_ascii_lowercase();
    if head_l.contains("content-type: multipart") || head_l.contains("content-transfer-encoding: base64") {
        return None;
    }
    let body = if head_l.contains("quoted-printable") { qp_decode(body) } else { body.to_string() };
    let lines: Vec<&str> = body.lines().collect();
    let mut keep = lines.len();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim();
        let notes_to = t.starts_with("To:") && i >= 1;
        if t.contains("-----Original Message-----")
            || t.contains("Forwarded by")
            || t.starts_with("-----Forwarded")
            || t.starts_with("Begin forwarded message")
            || t.ends_with("wrote:")
            || t.starts_with("From:")
            || notes_to
        {
            keep = i;
            // A Notes reply header is "Name\nMM/DD/YYYY HH:MM AM\nTo:": drop its first lines too.
            if notes_to {
                let mut k = i;
                while k > 0 && i - k < 3 && !lines[k - 1].trim().is_empty() {
                    k -= 1;
                }
                keep = k;
            }
            break;
        }
    }
    let kept: Vec<&str> = lines[..keep].iter().copied().filter(|l| !l.trim_start().starts_with('>')).collect();
    let out = kept.join("\n");
    if out.trim().is_empty() { None } else { Some(out) }
}

fn qp_decode(s: &str) -> String {
    let s = s.replace("=\n", "");
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'='
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = ((b[i + 1] as char).to_digit(16), (b[i + 2] as char).to_digit(16))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    decode_bytes(&out)
}

fn slack_text(t: &str) -> String {
    let mut out = String::new();
    let mut rest = t;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('>') {
            Some(close) => {
                let inner = &after[..close];
                let shown = match inner.split_once('|') {
                    Some((_, label)) => label.to_string(),
                    None => inner.strip_prefix('@').map(|u| format!("@{u}")).unwrap_or_else(|| inner.to_string()),
                };
                out.push_str(&shown);
                rest = &after[close + 1..];
            }
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")
}
