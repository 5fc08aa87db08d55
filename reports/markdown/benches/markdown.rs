//! Markdown sink throughput: `cargo bench -p amem-report-markdown --bench markdown`.
//! Writes 10,000 rows with `MarkdownSink` (rows parked in SQLite, read back
//! sorted); `reference_json_encode` (JSON-encoding the same rows in memory)
//! is the yardstick in the same process.

use amem_model::{
    AmemUri, Assessment, AuditRecord, Claim, ClaimKind, Cue, CueClass, Digest, Evidence, GateFlag, GateSummary, GateVerdict, MessageId,
    Reason, ReportSink, RunId, RunInfo, RunParams, RunSummary, SourceKind, Span, Status,
};
use amem_report_markdown::MarkdownSink;
use divan::counter::ItemsCount;

fn main() {
    divan::main();
}

const ROWS: usize = 10_000;

/// 10,000 report rows over 100 conversations, a third with a cue, evidence and a gate flag.
fn rows() -> Vec<AuditRecord> {
    (0..ROWS)
        .map(|i| {
            let text = format!("The launch probably moved to Friday and revenue was {i} million in 2023.");
            let digest = Digest::of(format!("m{i}").as_bytes());
            let span = Span::new(0, text.len());
            let extras = i.is_multiple_of(3);
            let claim = Claim {
                id: Claim::id_for(&digest, span, &text),
                message: MessageId(format!("<m{i}@example.org>")),
                message_digest: digest,
                span,
                cues: if extras {
                    vec![Cue { class: CueClass::Hedge, text: "probably".into(), span: Span::new(11, 19), rule: "hedge.probably".into() }]
                } else {
                    vec![]
                },
                text,
                kind: ClaimKind::Quantity,
                extractor: "rules@1".into(),
            };
            let evidence = if extras {
                vec![Evidence {
                    uri: AmemUri::chunk(format!("note-{}", i % 300), 2),
                    quote: "Revenue was 2.3 million in 2023, according to the annual report.".into(),
                    span: Span::new(40, 104),
                    item_digest: Digest::of(format!("rev{}", i % 300).as_bytes()),
                    captured_at: Some("2024-04-30T12:00:00Z".into()),
                    source_url: Some("https://example.org/report".into()),
                    title: Some("Annual report".into()),
                }]
            } else {
                vec![]
            };
            let gate = GateSummary {
                verdict: if extras { GateVerdict::Rewrite } else { GateVerdict::Pass },
                flags: if extras {
                    vec![GateFlag {
                        check: "attribution".into(),
                        source_sentence: "Revenue was 2.3 million in 2023, according to the annual report.".into(),
                        source_span: Span::new(33, 62),
                        cue: "according to the annual report".into(),
                        memory_sentence: "Revenue was 2.3 million in 2023.".into(),
                        rule: "attribution.according_to".into(),
                    }]
                } else {
                    vec![]
                },
            };
            let assessment = Assessment {
                claim: claim.id,
                status: Status::ALL[i % Status::ALL.len()],
                method: "deterministic@1".into(),
                reasons: vec![Reason {
                    facet: "number".into(),
                    detail: "2.3 million".into(),
                    claim_span: None,
                    evidence: evidence.clone(),
                    rule: "number.match".into(),
                }],
                gate: Some(gate),
                assessed_at: "2024-05-02T03:04:06Z".into(),
                policy_version: "policy@1".into(),
            };
            AuditRecord {
                run_id: RunId("bench".into()),
                source: SourceKind::Gmail,
                archive: "mail.mbox".into(),
                conversation: format!("thread-{:03}", i % 100),
                message_id: claim.message.clone(),
                locator: format!("mail.mbox:byte {}", i * 900),
                author: "Alice <alice@example.org>".into(),
                sent_at: jiff::Timestamp::from_second(1_714_000_000 + i as i64).expect("in range"),
                subject: Some("Plans".into()),
                claim,
                assessment,
                evidence,
            }
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

fn write_all(sink: &mut dyn ReportSink, rows: &[AuditRecord]) {
    sink.begin(&run_info()).expect("begin");
    for r in rows {
        sink.write(r).expect("write");
    }
    sink.finish(&RunSummary::default()).expect("finish");
}

/// The least a sink must do with a row: encode it (JSON into a reused buffer).
#[divan::bench(sample_count = 5)]
fn reference_json_encode(bencher: divan::Bencher) {
    let rows = rows();
    let mut buf = Vec::with_capacity(4096);
    bencher.counter(ItemsCount::new(ROWS)).bench_local(|| {
        let mut n = 0;
        for r in &rows {
            buf.clear();
            serde_json::to_writer(&mut buf, r).expect("json");
            n += buf.len();
        }
        n
    });
}

#[divan::bench(sample_count = 5)]
fn markdown_sink(bencher: divan::Bencher) {
    let rows = rows();
    bencher.counter(ItemsCount::new(ROWS)).with_inputs(|| tempfile::tempdir().expect("temp dir")).bench_local_values(|dir| {
        write_all(&mut MarkdownSink::new(dir.path()), &rows);
        dir
    });
}
