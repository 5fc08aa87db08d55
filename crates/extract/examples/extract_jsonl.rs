//! Extraction over messages as `amem import` prints them (JSON lines), for
//! timing and for comparing two builds' output claim for claim:
//!
//! ```text
//! amem import gmail archive.mbox > messages.jsonl
//! cargo run --release -p amem-extract --example extract_jsonl -- messages.jsonl [LIMIT] [--claims] [--rounds N]
//! ```
//!
//! Prints µs per message (the first round, and the best of N rounds, each
//! on a fresh thread); with `--claims`,
//! prints every claim as a JSON line instead (diff two builds' outputs).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use amem_records::Message;
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
    if args.iter().any(|a| a == "--init") {
        let t = Instant::now();
        let n = msgs.first().map(|m| amem_extract::extract(m).len()).unwrap_or(0);
        println!("first message ({n} claims, lexicons built): {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
        return;
    }
    if args.iter().any(|a| a == "--stages") {
        // Each stage alone on the same messages (best of `rounds`).
        let texts: Vec<(String, Vec<amem_records::Span>)> = msgs
            .iter()
            .map(|m| {
                let (spans, _) = amem_extract::sentence_spans(&m.text, amem_extract::layout_for(m.source));
                (m.text.clone(), spans)
            })
            .collect();
        let sentences: Vec<&str> = texts.iter().flat_map(|(t, s)| s.iter().map(move |s| &t[s.start..s.end])).collect();
        let with_cues: Vec<(&str, Vec<amem_records::Cue>)> = sentences.iter().map(|s| (*s, amem_text::cues::detect_cues(s))).collect();
        let n = msgs.len() as f64;
        let time = |name: &str, f: &dyn Fn() -> usize| {
            let mut best = f64::MAX;
            for _ in 0..rounds.max(1) {
                let t = Instant::now();
                std::hint::black_box(f());
                best = best.min(t.elapsed().as_secs_f64());
            }
            println!("{name}: {:.1} µs/msg", best * 1e6 / n);
        };
        time("sentence_spans", &|| {
            msgs.iter().map(|m| amem_extract::sentence_spans(&m.text, amem_extract::layout_for(m.source)).0.len()).sum()
        });
        time("split_compound", &|| sentences.iter().map(|s| amem_extract::split_compound(s).len()).sum());
        time("detect_cues", &|| sentences.iter().map(|s| amem_text::cues::detect_cues(s).len()).sum());
        time("classify", &|| with_cues.iter().map(|(s, c)| amem_extract::classify(s, c) as usize).sum());
        time("message digest", &|| msgs.iter().map(|m| m.digest().0[0] as usize).sum());
        time("extract", &|| msgs.iter().map(|m| amem_extract::extract(m).len()).sum());
        return;
    }
    if rounds == 0 {
        // load only: the reference for CPU-time comparisons
        println!("loaded {} msgs", msgs.len());
        return;
    }
    // Each round on a fresh thread, so no round profits from what an
    // earlier one left in the thread's memo; the first round also pays for
    // building the lexicons (as a single run does).
    let mut times = Vec::new();
    let mut claims = 0usize;
    for _ in 0..rounds {
        let (t, n) = std::thread::scope(|s| {
            s.spawn(|| {
                let t = Instant::now();
                let n: usize = msgs.iter().map(|m| std::hint::black_box(amem_extract::extract(m)).len()).sum();
                (t.elapsed().as_secs_f64(), n)
            })
            .join()
            .unwrap_or((f64::NAN, 0))
        });
        times.push(t);
        claims = n;
    }
    let per_msg = |t: f64| t * 1e6 / msgs.len().max(1) as f64;
    let best = times.iter().copied().fold(f64::MAX, f64::min);
    println!("first round (cold): {:.1} µs/msg", per_msg(times[0]));
    println!("extract: {:.1} µs/msg ({} msgs, {claims} claims, best of {rounds})", per_msg(best), msgs.len());
}
