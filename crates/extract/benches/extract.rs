//! Extraction throughput on the Enron maildir sample (bodies after the
//! first blank line), when ../shared is present; otherwise on a small
//! handmade mail repeated. Each stage is timed on the same texts so the
//! stages can be compared with the whole: `cargo bench -p amem-extract`.

#![allow(clippy::print_stderr)]

use amem_extract::{Layout, classify, extract, segment};
use amem_records::{Message, MessageId, SourceKind};
use std::path::PathBuf;
use std::sync::LazyLock;

fn main() {
    divan::main();
}

const HANDMADE: &str = "Hi John,\n\nThe price at Henry Hub rose 4% to $2.31 on Monday because storage was low. \
I think the pipeline will be full by March. Please send me the file by 3 p.m.\n\nThanks,\nRick";

static TEXTS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/enron/maildir");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() { stack.push(p) } else { files.push(p) }
        }
    }
    files.sort();
    let texts: Vec<String> = files
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .map(|b| String::from_utf8_lossy(&b).replace("\r\n", "\n"))
        .filter_map(|raw| raw.split_once("\n\n").map(|(_, b)| b.to_string()))
        .collect();
    if texts.is_empty() {
        eprintln!("../shared is absent: benchmarking a handmade mail");
        vec![HANDMADE.to_string(); 500]
    } else {
        texts
    }
});

static MESSAGES: LazyLock<Vec<Message>> = LazyLock::new(|| {
    TEXTS
        .iter()
        .enumerate()
        .map(|(i, t)| Message {
            source: SourceKind::ENRON,
            archive: "bench".into(),
            conversation: "c".into(),
            id: MessageId(format!("m{i}")),
            author: "a".into(),
            recipients: vec![],
            sent_at: "2001-02-01T00:00:00Z".parse().expect("timestamp"),
            subject: None,
            text: t.clone(),
            quoted: vec![],
            locator: format!("bench:{i}"),
            meta: Default::default(),
            not_claims: None,
        })
        .collect()
});

static SENTENCES: LazyLock<Vec<String>> = LazyLock::new(|| {
    TEXTS.iter().flat_map(|t| segment(t, Layout::Prose).sentences.into_iter().map(|s| t[s.start..s.end].to_string())).collect()
});

fn total_bytes() -> usize {
    TEXTS.iter().map(String::len).sum()
}

/// The whole of `extract` over every message.
#[divan::bench]
fn extract_all_messages(b: divan::Bencher) {
    b.counter(divan::counter::BytesCount::new(total_bytes())).bench(|| MESSAGES.iter().map(|m| extract(m).len()).sum::<usize>());
}

/// Sentence segmentation alone.
#[divan::bench]
fn segment_only(b: divan::Bencher) {
    b.counter(divan::counter::BytesCount::new(total_bytes()))
        .bench(|| TEXTS.iter().map(|t| segment(t, Layout::Prose).sentences.len()).sum::<usize>());
}

/// The gate's cue detection alone, on every sentence.
#[divan::bench]
fn detect_cues_only(b: divan::Bencher) {
    b.counter(divan::counter::BytesCount::new(total_bytes()))
        .bench(|| SENTENCES.iter().map(|s| amem_text::cues::detect_cues(s).len()).sum::<usize>());
}

/// Classification alone, with cues computed beforehand.
#[divan::bench]
fn classify_only(b: divan::Bencher) {
    let with_cues: Vec<(String, Vec<amem_records::Cue>)> = SENTENCES.iter().map(|s| (s.clone(), amem_text::cues::detect_cues(s))).collect();
    b.counter(divan::counter::BytesCount::new(total_bytes()))
        .bench(|| with_cues.iter().map(|(s, c)| classify(s, c) as usize).sum::<usize>());
}

/// The message digest alone (`Message::digest`, needed for claim ids).
#[divan::bench]
fn message_digest_only(b: divan::Bencher) {
    b.counter(divan::counter::BytesCount::new(total_bytes())).bench(|| MESSAGES.iter().map(|m| m.digest().0[0] as usize).sum::<usize>());
}
