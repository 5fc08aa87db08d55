//! Score (evidence, claim, title?) pairs from JSON lines on stdin with the shipped verifier,
//! printing the probabilities: what the parity check against the training script reads
//! (`models/verifier/score.py --compare`), and a quick way to try the model by hand.
//!
//! `echo '{"evidence":"...","claim":"..."}' | cargo run --release -p amem-models --example score_pairs`
//!
//! `-- --weights DIR` scores with the verifier files in DIR (a `crates/models/weights` folder
//! the training script exported elsewhere), checked against its own SHA256SUMS: how a candidate
//! is compared with the shipped model before it replaces it.

use std::io::BufRead;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let candidate = match args.as_slice() {
        [] => None,
        [flag, dir] if flag == "--weights" => Some(dir.clone()),
        _ => return Err("usage: score_pairs [--weights DIR] < PAIRS.jsonl".into()),
    };
    let loaded;
    let verifier = match &candidate {
        None => amem_models::Verifier::shipped()?,
        Some(dir) => {
            loaded = amem_models::Verifier::from_dir(std::path::Path::new(dir))?;
            &loaded
        }
    };
    let mut rows: Vec<(String, String, Option<String>)> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        let get = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        rows.push((get("evidence").unwrap_or_default(), get("claim").unwrap_or_default(), get("title")));
    }
    let passages: Vec<amem_models::Passage<'_>> =
        rows.iter().map(|(e, c, t)| amem_models::Passage { evidence: e, title: t.as_deref(), claim: c }).collect();
    let started = std::time::Instant::now();
    let probs = verifier.score_passages(&passages)?;
    let secs = started.elapsed().as_secs_f64();
    for p in &probs {
        println!("{:.5} {:.5} {:.5}", p.supported, p.contradicted, p.not_enough_info);
    }
    eprintln!("{} pairs in {:.3} s: {:.1} pairs/s", probs.len(), secs, probs.len() as f64 / secs.max(1e-9));
    Ok(())
}
