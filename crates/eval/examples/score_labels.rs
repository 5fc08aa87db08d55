//! Score the classifier on a labels file, whole and per half (the stable
//! split of `amem_eval::claims::Half`), a tuning aid; `--misses` lists the
//! tuning half's sentences whose audited decision differs from the label,
//! `--dump` prints every sentence (half, label, decision, kind, text):
//!
//! ```text
//! cargo run -p amem-eval --example score_labels -- ../shared/eval/claimbuster/labels.jsonl [--misses]
//! ```

#![allow(clippy::print_stdout)]

use amem_eval::claims::{Half, half, load_labels, score};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        println!("usage: score_labels LABELS.jsonl [--misses]");
        return;
    };
    let labels = match load_labels(std::path::Path::new(path)) {
        Ok(l) => l,
        Err(e) => {
            println!("{e}");
            return;
        }
    };
    let line = |name: &str, s: &amem_eval::claims::ClaimsScore| {
        println!(
            "{name:<6} n={:<5} P={:.3} R={:.3} F1={:.3} audited={:.2} base={:.3}",
            s.n,
            s.precision,
            s.recall,
            s.f1,
            (s.true_positives + s.false_positives) as f64 / s.n.max(1) as f64,
            s.labelled_audited as f64 / s.n.max(1) as f64
        )
    };
    line("all", &score(&labels));
    let tune = score(&half(&labels, Half::Tune));
    line("tune", &tune);
    line("check", &score(&half(&labels, Half::Check)));
    if args.iter().any(|a| a == "--all") {
        for l in half(&labels, Half::Tune) {
            println!("{}\t{}\t{}", u8::from(l.audited), amem_extract::classify_sentence(&l.text).as_str(), l.text.replace('\n', " "));
        }
    }
    // every sentence of both halves, for diffing two rule sets' decisions
    if args.iter().any(|a| a == "--dump") {
        for l in &labels {
            let got = amem_extract::classify_sentence(&l.text);
            println!(
                "{}\t{}\t{}\t{}\t{}",
                Half::of(l).as_str(),
                u8::from(l.audited),
                u8::from(got.is_audited()),
                got.as_str(),
                l.text.replace('\n', " ")
            );
        }
    }
    if args.iter().any(|a| a == "--misses") {
        for m in &tune.misses {
            if m.expected.is_audited() != m.got.is_audited() {
                println!("{}\t{}\t{}", if m.expected.is_audited() { "FN" } else { "FP" }, m.got.as_str(), m.text.replace('\n', " "));
            }
        }
    }
}
