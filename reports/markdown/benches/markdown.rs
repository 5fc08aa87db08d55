//! Markdown sink throughput: `cargo bench -p amem-report-markdown --bench markdown`.
//! Writes 10,000 rows with `MarkdownSink` (rows parked in SQLite, read back
//! sorted); `reference_json_encode` (JSON-encoding the same rows in memory)
//! is the yardstick in the same process.

use amem_records::{AuditRecord, sample};
use amem_report_markdown::MarkdownSink;
use divan::counter::ItemsCount;

fn main() {
    divan::main();
}

const ROWS: usize = 10_000;

/// 10,000 report rows over 100 conversations, a third with a cue, evidence and a gate flag.
fn rows() -> Vec<AuditRecord> {
    sample::audit_records(ROWS)
}

/// The least a sink must do with a row: encode it (JSON into a reused buffer).
#[divan::bench(sample_count = 5)]
fn reference_json_encode(bencher: divan::Bencher) {
    let rows = rows();
    let mut buf = Vec::with_capacity(4096);
    bencher.counter(ItemsCount::new(ROWS)).bench_local(|| sample::json_encode_all(&rows, &mut buf).expect("json"));
}

#[divan::bench(sample_count = 5)]
fn markdown_sink(bencher: divan::Bencher) {
    let rows = rows();
    bencher.counter(ItemsCount::new(ROWS)).with_inputs(|| tempfile::tempdir().expect("temp dir")).bench_local_values(|dir| {
        sample::write_run(&mut MarkdownSink::new(dir.path()), &rows).expect("write");
        dir
    });
}
