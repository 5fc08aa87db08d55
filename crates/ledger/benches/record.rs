//! Ledger write throughput: `cargo bench -p amem-ledger --bench record`.
//!
//! `record` writes 1,000 messages (two claims and two assessments each) to a
//! fresh WAL ledger in its default batches. `reference` does only what any
//! recorder must: the message digest and the JSON of its claims and
//! assessments. The ratio of the two is the ledger's cost over encoding.

use amem_ledger::{Ledger, MessageOutcome};
use amem_records::sample;
use divan::counter::ItemsCount;

const MESSAGES: usize = 1_000;

fn main() {
    divan::main();
}

#[divan::bench(sample_count = 5)]
fn record(bencher: divan::Bencher) {
    let data = sample::outcomes(MESSAGES);
    bencher
        .counter(ItemsCount::new(MESSAGES))
        .with_inputs(|| {
            // Opening (migrations on a fresh file) is setup, not timed.
            let dir = tempfile::tempdir().expect("temp dir");
            let mut l = Ledger::open(&dir.path().join("ledger.sqlite")).expect("open");
            l.begin_run(&sample::run_info()).expect("begin");
            (dir, l)
        })
        .bench_local_values(|(dir, mut l)| {
            for o in &data {
                l.record(&MessageOutcome { message: &o.message, claims: &o.claims, assessments: &o.assessments, skipped: &[] })
                    .expect("record");
            }
            l.flush().expect("flush");
            (dir, l)
        });
}

#[divan::bench(sample_count = 5)]
fn reference(bencher: divan::Bencher) {
    let data = sample::outcomes(MESSAGES);
    bencher.counter(ItemsCount::new(MESSAGES)).bench_local(|| {
        let mut bytes = 0;
        for o in &data {
            bytes += o.message.digest().0.len();
            bytes += serde_json::to_vec(&o.claims).expect("json").len();
            bytes += serde_json::to_vec(&o.assessments).expect("json").len();
        }
        bytes
    });
}
