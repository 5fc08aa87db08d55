//! Score the cue detectors on an eval folder, or print the mining
//! candidates, without building the `amem` binary:
//!
//! ```sh
//! cargo run -p amem-eval --release --example cue_eval -- ../shared/eval
//! cargo run -p amem-eval --release --example cue_eval -- ../shared/eval --mine
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(args.first().map(String::as_str).unwrap_or("../shared/eval"));
    if args.iter().any(|a| a == "--mine") {
        for (name, path) in amem_eval::cues::corpora(&dir)? {
            for c in amem_eval::cues::mine_file(&name, &path)?.into_iter().filter(|c| c.fires >= amem_eval::cues::MINE_MIN_FIRES) {
                println!("{c}");
            }
        }
        return Ok(());
    }
    if args.iter().any(|a| a == "--dump") {
        // every detected cue of an annotated class, one line each:
        // corpus, record index, class, rule, overlaps-annotation, text (for error analysis)
        for (name, path) in amem_eval::cues::corpora(&dir)? {
            let recs = amem_eval::cues::load(&path)?;
            for (i, r) in recs.iter().enumerate() {
                for c in amem_text::cues::detect_cues(&r.text) {
                    let ok = r.cues.iter().any(|(k, s)| *k == c.class && s.overlaps(&c.span));
                    println!("{name}\t{i}\t{}\t{}\t{}\t{}\t{}\t{}", c.class.as_str(), c.rule, ok, c.span.start, c.span.end, c.text);
                }
            }
        }
        return Ok(());
    }
    if args.iter().any(|a| a == "--rules") {
        for (name, path) in amem_eval::cues::corpora(&dir)? {
            let recs = amem_eval::cues::load(&path)?;
            for (class, rule, fired, ok) in amem_eval::cues::rule_precision(&recs).into_iter().take(25) {
                println!("{name} {class} {rule} fired={fired} ok={ok}");
            }
        }
        return Ok(());
    }
    let t = std::time::Instant::now();
    let scores = amem_eval::cues::evaluate_dir(&dir)?;
    print!("{}", amem_eval::cues::markdown_table(&scores));
    eprintln!("{:?}", t.elapsed());
    Ok(())
}
