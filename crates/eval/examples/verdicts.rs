//! One line per claim-evidence pair of the dev sets: set, pair id, gold
//! group, the verifier's status. Two runs diffed list the verdict changes a
//! change to the verifier (or to the text layer under it) causes:
//!
//! ```text
//! cargo run -p amem-eval --example verdicts -- ../shared/eval > after.tsv
//! diff before.tsv after.tsv
//! ```
#![allow(clippy::print_stdout)]

use amem_eval::verify::{evidence_of, load_corpus, rarity_of};
use amem_verify::Verifier;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: verdicts <eval dir>")?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (set, pairs) in load_corpus(std::path::Path::new(&dir))? {
        // as `amem eval verify` scores them: words weighed by the set's own rarity
        let mut verifier = Verifier::new().with_rarity(rarity_of(&pairs));
        for p in &pairs {
            let v = verifier.verify(&p.claim, &evidence_of(p));
            writeln!(out, "{set}\t{}\t{:?}\t{:?}\t{}", p.id, p.label, v.status.group(), v.status.as_str())?;
        }
    }
    out.flush()?;
    Ok(())
}
