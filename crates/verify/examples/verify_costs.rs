//! Where verification's time goes, without recall in the way.
//!
//! `cargo run --release -p amem-verify --example verify_costs -- CASES.jsonl [ROUNDS [VERDICTS]]` reads
//! claims with their evidence (one JSON object a line: `claim`, `sent_at`, `evidence` as
//! [`amem_records::Evidence`] values, `rarity` as `[documents, [[word, chunks], ...]]` or null:
//! what an audit hands the verifier), then verifies them in order ROUNDS times (default 3),
//! each round with a fresh [`amem_verify::Verifier`] as an audit worker keeps one, and prints
//! the best round's cost per claim, the cache's counters and a digest of every verdict (the
//! status and reasons serialised), so that a change meant for speed alone can be shown to
//! leave each verdict byte for byte as it was (VERDICTS, when given, receives them one a line).
use amem_records::{Digest, Evidence};
use amem_verify::{Rarity, Verifier};
use std::sync::Arc;
use std::time::Instant;

// The allocator of the `amem` binary: allocation is a good part of verification's cost.
#[global_allocator]
static GLOBAL: amem_alloc::SplitAllocator = amem_alloc::SplitAllocator;

struct Case {
    claim: String,
    sent_at: Option<String>,
    evidence: Vec<Evidence>,
    rarity: Option<Arc<Rarity>>,
}

fn read_cases(path: &str) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        let evidence: Vec<Evidence> =
            serde_json::from_value(v["evidence"].clone()).map_err(|e| format!("{path}:{}: evidence: {e}", n + 1))?;
        let rarity = v["rarity"].as_array().map(|r| {
            let documents = r.first().and_then(serde_json::Value::as_u64).unwrap_or(0);
            let counts = r
                .get(1)
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|p| Some((p.get(0)?.as_str()?.to_string(), p.get(1)?.as_u64()?)));
            Arc::new(Rarity::from_counts(documents, counts))
        });
        cases.push(Case {
            claim: v["claim"].as_str().unwrap_or("").to_string(),
            sent_at: v["sent_at"].as_str().map(str::to_string),
            evidence,
            rarity,
        });
    }
    Ok(cases)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: verify_costs CASES.jsonl [ROUNDS [VERDICTS]]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3).max(1);
    let cases = match read_cases(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let mut best = f64::MAX;
    let mut digest = String::new();
    let mut stats = None;
    for _ in 0..rounds {
        let mut verifier = match std::env::var("VERIFY_COSTS_CAPACITY").ok().and_then(|c| c.parse().ok()) {
            Some(c) => Verifier::with_capacity(c),
            None => Verifier::new(),
        };
        let mut verdicts = Vec::with_capacity(cases.len());
        let t = Instant::now();
        for c in &cases {
            if let Some(r) = &c.rarity {
                verifier = verifier.with_rarity(Arc::clone(r));
            }
            let v = verifier.verify_at(&c.claim, c.sent_at.as_deref(), &c.evidence);
            // the audit asks this of every verdict it remembers by claim text
            let day = amem_verify::reads_writing_day(&c.claim, &c.evidence);
            verdicts.push((v, day));
        }
        let secs = t.elapsed().as_secs_f64();
        let out = serde_json::to_vec(&verdicts).unwrap_or_default();
        if let Some(keep) = args.get(2) {
            let lines: Vec<String> = verdicts.iter().filter_map(|v| serde_json::to_string(v).ok()).collect();
            if let Err(e) = std::fs::write(keep, lines.join("\n") + "\n") {
                eprintln!("{keep}: {e}");
            }
        }
        best = best.min(secs);
        digest = Digest::of(&out).short(16).to_string();
        stats = Some(verifier.stats());
    }
    println!(
        "{{\"claims\":{},\"verify_us_per_claim\":{:.1},\"cache\":\"{:?}\",\"verdicts\":\"{}\"}}",
        cases.len(),
        best * 1e6 / cases.len().max(1) as f64,
        stats.unwrap_or_default(),
        digest
    );
}
