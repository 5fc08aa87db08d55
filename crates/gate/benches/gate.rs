//! Gate throughput on realistic pairs against a baseline: one aho-corasick
//! pass of all word-list terms over the same bytes.
//!
//! Pairs are built from `enron_like.txt` (mail text written for this bench):
//! each message is a source, and three memories are derived from it: the
//! message itself (the all-pass path), its first two sentences with every
//! stance cue deleted (a rewrite that loses stance), and its sentences in
//! reverse order. `scripts/bench-gate.sh` runs this bench and writes the
//! ratio gate/baseline into docs/benchmarks.md (the gate's blocks).
#![allow(missing_docs)]

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use divan::counter::BytesCount;
use std::sync::OnceLock;

fn main() {
    divan::main();
}

struct Pairs {
    pairs: Vec<(String, String)>,
    bytes: usize,
}

fn pairs() -> &'static Pairs {
    static P: OnceLock<Pairs> = OnceLock::new();
    P.get_or_init(|| {
        let text = include_str!("enron_like.txt");
        let mut pairs = Vec::new();
        for msg in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let sentences: Vec<&str> = msg.split_inclusive(". ").map(str::trim).collect();
            // memory 1: identical
            pairs.push((msg.to_string(), msg.to_string()));
            // memory 2: first two sentences, stance cues deleted
            let head = sentences.iter().take(2).copied().collect::<Vec<_>>().join(" ");
            let mut stripped = head.clone();
            for c in amem_text::cues::detect_cues(&head).into_iter().rev() {
                stripped.replace_range(c.span.start..c.span.end, "");
            }
            pairs.push((msg.to_string(), stripped));
            // memory 3: sentences reversed
            pairs.push((msg.to_string(), sentences.iter().rev().copied().collect::<Vec<_>>().join(" ")));
        }
        let bytes = pairs.iter().map(|(s, m)| s.len() + m.len()).sum();
        Pairs { pairs, bytes }
    })
}

fn baseline_automaton() -> &'static AhoCorasick {
    static A: OnceLock<AhoCorasick> = OnceLock::new();
    A.get_or_init(|| {
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(amem_text::all_terms())
            .expect("terms build an automaton")
    })
}

/// The whole gate (alignment and all eight checks) on every pair.
#[divan::bench]
fn gate(bencher: divan::Bencher) {
    let p = pairs();
    let _ = amem_gate::check("warm up", "warm up");
    bencher.counter(BytesCount::new(p.bytes)).bench(|| {
        let mut flags = 0usize;
        for (s, m) in &p.pairs {
            flags += divan::black_box(amem_gate::check(s, m)).flags.len();
        }
        flags
    });
}

/// One aho-corasick pass of all word-list terms over the same bytes.
#[divan::bench]
fn baseline(bencher: divan::Bencher) {
    let p = pairs();
    let ac = baseline_automaton();
    bencher.counter(BytesCount::new(p.bytes)).bench(|| {
        let mut n = 0usize;
        for (s, m) in &p.pairs {
            n += ac.find_iter(divan::black_box(s.as_str())).count();
            n += ac.find_iter(divan::black_box(m.as_str())).count();
        }
        n
    });
}

// The gate's parts on the same texts (source and memory of every pair), to
// tell which one a change of the whole moves. The script reads only `gate`
// and `baseline`.

/// The lexicon's one automaton pass.
#[divan::bench]
fn part_scan(bencher: divan::Bencher) {
    let p = pairs();
    let lex = amem_text::lexicon::Lexicon::get();
    bencher.bench(|| {
        let mut n = 0usize;
        for (s, m) in &p.pairs {
            n += lex.scan(divan::black_box(s)).len() + lex.scan(divan::black_box(m)).len();
        }
        n
    });
}

/// The number scanner.
#[divan::bench]
fn part_numbers(bencher: divan::Bencher) {
    let p = pairs();
    let lex = amem_text::lexicon::Lexicon::get();
    bencher.bench(|| {
        let mut n = 0usize;
        for (s, m) in &p.pairs {
            n += amem_text::numbers::scan_numbers(lex, divan::black_box(s)).len()
                + amem_text::numbers::scan_numbers(lex, divan::black_box(m)).len();
        }
        n
    });
}

/// The sentence splitter (line layout, as the gate splits).
#[divan::bench]
fn part_sentences(bencher: divan::Bencher) {
    let p = pairs();
    bencher.bench(|| {
        let mut n = 0usize;
        for (s, m) in &p.pairs {
            n += amem_text::sentence::sentences(divan::black_box(s), amem_text::sentence::Layout::Lines).len()
                + amem_text::sentence::sentences(divan::black_box(m), amem_text::sentence::Layout::Lines).len();
        }
        n
    });
}

/// Content words (stopwords dropped, stemmed, hashed), no cue spans left out.
#[divan::bench]
fn part_words(bencher: divan::Bencher) {
    let p = pairs();
    let lex = amem_text::lexicon::Lexicon::get();
    bencher.bench(|| {
        let mut n = 0usize;
        for (s, m) in &p.pairs {
            n += amem_text::words::content_words(lex, divan::black_box(s), 0, s.len(), amem_text::words::NO_MARKS).len()
                + amem_text::words::content_words(lex, divan::black_box(m), 0, m.len(), amem_text::words::NO_MARKS).len();
        }
        n
    });
}
