//! Stream one archive through a mail importer and print what came out: the
//! measuring half of `scripts/bench-importers.py` (run in release mode, in a
//! process of its own so that its peak RSS is the importer's).
//!
//! ```text
//! cargo run --release -p amem-importer-mbox --example import_stats -- gmail|enron|enron-csv PATH [--dump N]
//! ```
//! Prints one JSON object: `messages`, `errors` (by kind), `bytes` (input
//! size), `seconds`, `text_bytes`, `quoted_parts`. With `--dump N`, the
//! first N messages as JSON lines before it (for eyeballing the splitter).

use amem_records::{ImportOptions, MessageStream};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

fn size(p: &Path) -> u64 {
    if p.is_file() {
        return p.metadata().map(|m| m.len()).unwrap_or(0);
    }
    std::fs::read_dir(p).map(|rd| rd.filter_map(Result::ok).map(|e| size(&e.path())).sum()).unwrap_or(0)
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        let _ = writeln!(std::io::stderr(), "usage: import_stats gmail|enron|enron-csv PATH [--dump N]");
        return std::process::ExitCode::from(2);
    }
    let path = Path::new(&args[2]);
    let dump: usize = args.iter().position(|a| a == "--dump").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok()).unwrap_or(0);
    let opts = ImportOptions::default();
    let t = Instant::now();
    let stream: MessageStream = match args[1].as_str() {
        "gmail" => amem_importer_mbox::open(path, &opts),
        "enron" => amem_importer_enron::open(path, &opts),
        "enron-csv" => amem_importer_enron::open_csv(path, &opts),
        other => {
            let _ = writeln!(std::io::stderr(), "unknown kind {other}");
            return std::process::ExitCode::from(2);
        }
    }
    .unwrap_or_else(|e| panic!("cannot open: {e}"));
    let (mut messages, mut text_bytes, mut quoted) = (0u64, 0u64, 0u64);
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let mut out = std::io::stdout().lock();
    for item in stream {
        match item {
            Ok(m) => {
                if (messages as usize) < dump {
                    let _ = writeln!(out, "{}", serde_json::to_string(&m).unwrap_or_default());
                }
                messages += 1;
                text_bytes += m.text.len() as u64;
                quoted += m.quoted.len() as u64;
            }
            Err(e) => *errors.entry(e.kind).or_default() += 1,
        }
    }
    let seconds = t.elapsed().as_secs_f64();
    let summary = serde_json::json!({
        "messages": messages, "errors": errors, "bytes": size(path), "seconds": seconds,
        "text_bytes": text_bytes, "quoted_parts": quoted,
    });
    let _ = writeln!(out, "{summary}");
    std::process::ExitCode::SUCCESS
}
