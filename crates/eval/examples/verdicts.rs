//! One line per claim-evidence pair of the dev sets: set, pair id, gold
//! group, the verifier's status. Two runs diffed list the verdict changes a
//! change to the verifier (or to the text layer under it) causes:
//!
//! ```text
//! cargo run -p amem-eval --example verdicts -- ../shared/eval > after.tsv
//! diff before.tsv after.tsv
//! ```
//!
//! With `--json` after the directory, one JSON object a pair instead, with the
//! claim, the evidence texts and the reasons, for reading a verdict whole.
#![allow(clippy::print_stdout)]

use amem_eval::verify::{evidence_of, load_corpus, missing_words, rarity_of};
use amem_verify::Verifier;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: verdicts <eval dir> [--json]")?;
    let json = std::env::args().nth(2).is_some_and(|a| a == "--json");
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (set, pairs) in load_corpus(std::path::Path::new(&dir))? {
        // as `amem eval verify` scores them: words weighed by the set's own rarity
        let mut verifier = Verifier::new().with_rarity(rarity_of(&pairs));
        for p in &pairs {
            let v = verifier.verify(&p.claim, &evidence_of(p));
            if json {
                let evidence: Vec<_> = p.evidence.iter().map(|e| serde_json::json!({"text": e.text, "title": e.title})).collect();
                let line = serde_json::json!({
                    "set": set, "id": p.id, "gold": p.label.as_str(), "group": v.status.group().as_str(),
                    "status": v.status.as_str(), "missing": missing_words(&p.claim, &p.evidence), "claim": p.claim, "evidence": evidence, "reasons": v.reasons,
                });
                writeln!(out, "{line}")?;
            } else {
                writeln!(out, "{set}\t{}\t{:?}\t{:?}\t{}", p.id, p.label, v.status.group(), v.status.as_str())?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
