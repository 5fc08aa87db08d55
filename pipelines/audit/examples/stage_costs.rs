//! Where the time of an offline audit goes, stage by stage, on one thread.
//!
//! `cargo run --release -p amem-audit --example stage_costs -- HOME MBOX`
//! reads the mbox once into memory, then times, as the audit runs them:
//! extraction alone; recall (the FTS5 query, whole chunks) per audited
//! claim; verification (one verifier, its evidence cache warm across
//! claims) per audited claim; the gate per audited claim. Prints per-message and per-claim costs.
use amem_model::{ImportOptions, SourceKind};
use amem_recall::{Recall, Wiki};
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let home = std::path::PathBuf::from(&args[1]);
    let mbox = std::path::PathBuf::from(&args[2]);
    let limit: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3000);
    let t = Instant::now();
    let msgs: Vec<_> =
        amem_audit::sources::open_source(SourceKind::Gmail, &mbox, &ImportOptions::default())?.filter_map(Result::ok).take(limit).collect();
    let n = msgs.len() as f64;
    println!("import: {:.1} µs/msg ({} msgs)", t.elapsed().as_secs_f64() * 1e6 / n, msgs.len());
    let t = Instant::now();
    let claims: Vec<Vec<amem_model::Claim>> = msgs.iter().map(amem_extract::extract).collect();
    println!("extract: {:.1} µs/msg", t.elapsed().as_secs_f64() * 1e6 / n);
    let audited: Vec<&amem_model::Claim> = claims.iter().flatten().filter(|c| c.kind.is_audited()).collect();
    let total: usize = claims.iter().map(Vec::len).sum();
    let na = audited.len() as f64;
    println!("claims: {total} ({:.1}/msg), audited {} ({:.1}/msg)", total as f64 / n, audited.len(), na / n);
    let wiki = Wiki::open(&home)?;
    let t = Instant::now();
    let mut hits = Vec::new();
    for c in &audited {
        hits.push(wiki.search_chunks(&c.text, amem_audit::assess::RECALL_K)?);
    }
    let ts = t.elapsed().as_secs_f64();
    println!("recall: {:.1} µs/claim, {:.1} µs/msg", ts * 1e6 / na, ts * 1e6 / n);
    let mut groups = std::collections::BTreeMap::new();
    let mut verifier = amem_factcheck::verify::Verifier::new();
    let t = Instant::now();
    for (c, h) in audited.iter().zip(&hits) {
        let ev: Vec<amem_model::Evidence> = h.iter().map(amem_recall::Hit::to_evidence).collect();
        let v = verifier.verify(&c.text, &ev);
        *groups.entry(format!("{:?}", v.status.group())).or_insert(0usize) += 1;
    }
    let tv = t.elapsed().as_secs_f64();
    println!("verify: {:.1} µs/claim, {:.1} µs/msg; verdicts {groups:?}", tv * 1e6 / na, tv * 1e6 / n);
    let t = Instant::now();
    for (c, h) in audited.iter().zip(&hits) {
        if let Some(h) = h.first() {
            std::hint::black_box(amem_gate::check(&h.text, &c.text).summary());
        }
    }
    let tg = t.elapsed().as_secs_f64();
    println!("gate (top chunk): {:.1} µs/claim, {:.1} µs/msg", tg * 1e6 / na, tg * 1e6 / n);
    let mut texts: Vec<String> = audited.iter().map(|c| c.normalised_text()).collect();
    texts.sort();
    texts.dedup();
    println!("distinct audited texts: {}", texts.len());
    Ok(())
}
