//! Ledger write throughput: `cargo bench -p amem-ledger --bench record`.
//!
//! `record` writes 1,000 messages (two claims and two assessments each) to a
//! fresh WAL ledger in batches of 200. `reference` does only what any
//! recorder must: the message digest and the JSON of its claims and
//! assessments. The ratio of the two is the ledger's cost over encoding.

use amem_ledger::{Ledger, MessageOutcome};
use amem_model::{
    AmemUri, Assessment, Claim, ClaimKind, Digest, Evidence, GateSummary, GateVerdict, Message, MessageId, Reason, RunId, RunInfo,
    RunParams, Span, Status,
};
use divan::counter::ItemsCount;
use std::collections::BTreeMap;

const MESSAGES: usize = 1_000;

fn main() {
    divan::main();
}

struct Outcome {
    message: Message,
    claims: Vec<Claim>,
    assessments: Vec<Assessment>,
}

fn outcomes() -> Vec<Outcome> {
    (0..MESSAGES)
        .map(|n| {
            let text = format!("The launch moved to Friday, message {n}. Revenue was {n} million in 2023.");
            let message = Message {
                source: amem_model::SourceKind::Gmail,
                archive: "mail.mbox".into(),
                conversation: format!("thread-{}", n % 50),
                id: MessageId(format!("<m{n}@example.org>")),
                author: "Alice <alice@example.org>".into(),
                recipients: vec!["bob@example.org".into()],
                sent_at: jiff::Timestamp::from_second(1_700_000_000 + n as i64).expect("in range"),
                subject: Some("Plans".into()),
                text: text.clone(),
                quoted: vec![],
                locator: format!("mail.mbox:byte {}", n * 700),
                meta: BTreeMap::new(),
                not_claims: None,
            };
            let d = message.digest();
            let cut = text.find(". ").map(|i| i + 1).unwrap_or(text.len());
            let claims: Vec<Claim> = [Span::new(0, cut), Span::new(cut + 1, text.len())]
                .into_iter()
                .map(|span| {
                    let t = &text[span.start..span.end];
                    Claim {
                        id: Claim::id_for(&d, span, t),
                        message: message.id.clone(),
                        message_digest: d,
                        span,
                        text: t.to_string(),
                        kind: ClaimKind::Fact,
                        cues: vec![],
                        extractor: "rules@1".into(),
                    }
                })
                .collect();
            let assessments = claims
                .iter()
                .map(|c| Assessment {
                    claim: c.id,
                    status: Status::Supported,
                    method: "deterministic@1".into(),
                    reasons: vec![Reason {
                        facet: "date".into(),
                        detail: "matched".into(),
                        claim_span: None,
                        evidence: vec![Evidence {
                            uri: AmemUri::chunk(format!("note-{}", n % 100), 1),
                            quote: "The launch is on Friday.".into(),
                            span: Span::new(0, 24),
                            item_digest: Digest::of(format!("rev{}", n % 100).as_bytes()),
                            captured_at: None,
                            source_url: None,
                            title: None,
                        }],
                        rule: "date.match".into(),
                    }],
                    gate: Some(GateSummary { verdict: GateVerdict::Pass, flags: vec![] }),
                    assessed_at: "2024-05-02T03:04:05Z".into(),
                    policy_version: "policy@1".into(),
                })
                .collect();
            Outcome { message, claims, assessments }
        })
        .collect()
}

fn run_info() -> RunInfo {
    let t = jiff::Timestamp::from_second(1_714_000_000).expect("in range");
    RunInfo {
        run_id: RunId("bench".into()),
        started_at: t,
        params: RunParams {
            sources: vec![],
            since: None,
            until: None,
            now: t,
            offline: true,
            policy_version: "policy@1".into(),
            home: "h".into(),
        },
    }
}

#[divan::bench(sample_count = 5)]
fn record(bencher: divan::Bencher) {
    let data = outcomes();
    bencher
        .counter(ItemsCount::new(MESSAGES))
        .with_inputs(|| {
            // Opening (migrations on a fresh file) is setup, not timed.
            let dir = tempfile::tempdir().expect("temp dir");
            let mut l = Ledger::open(&dir.path().join("ledger.sqlite")).expect("open");
            l.begin_run(&run_info()).expect("begin");
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
    let data = outcomes();
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
