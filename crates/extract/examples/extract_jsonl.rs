//! Extraction over messages as `amem import` prints them (JSON lines), for
//! timing and for comparing two builds' output claim for claim:
//!
//! ```text
//! amem import gmail archive.mbox > messages.jsonl
//! cargo run --release -p amem-extract --example extract_jsonl -- messages.jsonl [LIMIT] [--claims] [--rounds N]
//! ```
//!
//! Prints µs per message (best of N rounds, one thread); with `--claims`,
//! prints every claim as a JSON line instead (diff two builds' outputs).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use amem_model::Message;
use std::io::Write;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: extract_jsonl MESSAGES.jsonl [LIMIT] [--claims] [--rounds N]");
        std::process::exit(2);
    };
    let limit: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(usize::MAX);
    let claims_out = args.iter().any(|a| a == "--claims");
    let rounds: usize = args.iter().position(|a| a == "--rounds").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(3);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let msgs: Vec<Message> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).take(limit).collect();
    if claims_out {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        for m in &msgs {
            for c in amem_extract::extract(m) {
                let line = serde_json::to_string(&c).unwrap_or_default();
                let _ = writeln!(out, "{line}");
            }
        }
        return;
    }
    let mut best = f64::MAX;
    let mut claims = 0usize;
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        claims = msgs.iter().map(|m| std::hint::black_box(amem_extract::extract(m)).len()).sum();
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("extract: {:.1} µs/msg ({} msgs, {claims} claims, best of {rounds})", best * 1e6 / msgs.len().max(1) as f64, msgs.len());
}
