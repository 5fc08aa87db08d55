//! Recall as the audit calls it, claim by claim, with every answer written
//! out: what a speed change to recall must leave exactly as it was.
//!
//! `cargo run --release -p amem-recall --example recall_trace -- HOME CLAIMS [OUT]`
//! reads CLAIMS (one claim text a line, as a JSON string), opens the wiki
//! of HOME and asks [`Recall::search_chunks_weighing`] of each (k = 5, the
//! claim's content words weighed, as `amem audit` does), then prints the
//! time a claim on stderr. With OUT, writes one line per claim: each hit's
//! URI and the bits of its score, its digest, title, times and path, the
//! document count and the weighed words' counts (diff two runs' files).
use amem_recall::{Recall, Wiki};
use std::io::{BufRead, Write};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(home), Some(claims)) = (args.first(), args.get(1)) else {
        return Err("usage: recall_trace HOME CLAIMS [OUT]".into());
    };
    let mut texts = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(claims)?).lines() {
        texts.push(serde_json::from_str::<String>(&line?)?);
    }
    let wiki = Wiki::open(home.as_ref())?;
    // The words outside the timing, as the audit computes them before recall.
    let words: Vec<Vec<amem_text::words::Word>> = texts.iter().map(|t| amem_text::words::words(t)).collect();
    let weighed: Vec<Vec<&str>> = words
        .iter()
        .map(|ws| {
            let mut lower: Vec<&str> = ws.iter().filter(|w| !w.stop).map(|w| w.lower.as_str()).collect();
            lower.sort_unstable();
            lower.dedup();
            lower
        })
        .collect();
    let t = Instant::now();
    let mut answers = Vec::with_capacity(texts.len());
    for (text, words) in texts.iter().zip(&weighed) {
        answers.push(wiki.search_chunks_weighing(text, 5, words)?);
    }
    let secs = t.elapsed().as_secs_f64();
    eprintln!("{} claims, {:.1} µs a claim", texts.len(), secs * 1e6 / texts.len().max(1) as f64);
    if let Some(out) = args.get(2) {
        let mut w = std::io::BufWriter::new(std::fs::File::create(out)?);
        for (hits, df) in &answers {
            for h in hits {
                write!(
                    w,
                    "{} {:016x} {} {} {:?} {:?} {:?} {:?} {} {} {} {}|",
                    h.uri,
                    h.score.to_bits(),
                    h.item_digest.to_hex(),
                    h.chunk,
                    h.title,
                    h.source_url,
                    h.retrieved_at,
                    h.written_at,
                    h.indexed_at,
                    h.path,
                    h.span.start,
                    h.text == h.quote && h.span.end == h.text.len(),
                )?;
                write!(w, "{}|", amem_records::Digest::of(h.text.as_bytes()).to_hex())?;
            }
            match df {
                Some(df) => writeln!(w, " df {} {:?}", df.documents, df.counts)?,
                None => writeln!(w, " df none")?,
            }
        }
    }
    Ok(())
}
