//! Realistic synthetic records for benches and tests (cargo feature `sample`).
//!
//! The report-sink benches (`amem-report-arrow`, `amem-report-markdown`) and
//! the ledger bench used to carry their own copies of these generators; they
//! live here so every bench measures the same rows. Only enabled from
//! `[dev-dependencies]`, never in the shipped binary.

use crate::{
    AmemUri, Assessment, AuditRecord, Claim, ClaimKind, Cue, CueClass, Digest, Evidence, GateFlag, GateSummary, GateVerdict, Message,
    MessageId, Reason, ReportError, ReportSink, RunId, RunInfo, RunParams, RunSummary, SourceKind, Span, Status,
};
use jiff::Timestamp;
use std::collections::BTreeMap;

/// `base + offset` seconds; the epoch if out of range (never for
/// the row counts benches use).
fn at(base: i64, offset: usize) -> Timestamp {
    i64::try_from(offset).ok().and_then(|o| Timestamp::from_second(base.saturating_add(o)).ok()).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// The run the benches record into: id `bench`, offline, started at
/// 2024-04-24T23:06:40Z, no sources.
pub fn run_info() -> RunInfo {
    let t = at(1_714_000_000, 0);
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
            who: crate::Who::All,
            include_bulk: false,
            include_forwarded: false,
            shard: None,
            reassess: false,
        },
    }
}

/// `n` report rows over 100 conversations; statuses cycle through all
/// seven; every third row has a hedge cue, one evidence item and a gate
/// flag (verdict `Rewrite`), the rest pass the gate.
pub fn audit_records(n: usize) -> Vec<AuditRecord> {
    (0..n)
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
                    written_at: None,
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
                source: SourceKind::GMAIL,
                archive: "mail.mbox".into(),
                conversation: format!("thread-{:03}", i % 100),
                message_id: claim.message.clone(),
                locator: format!("mail.mbox:byte {}", i * 900),
                author: "Alice <alice@example.org>".into(),
                sent_at: at(1_714_000_000, i),
                subject: Some("Plans".into()),
                claim,
                assessment,
                evidence,
                from_me: i % 7 == 0,
                notes: Vec::new(),
                also_filed_at: Vec::new(),
                forwarded_by: None,
                forwarded_by_me: false,
            }
        })
        .collect()
}

/// Drive `sink` through one whole run: begin with [`run_info`], write every
/// row, finish with an empty summary.
///
/// # Errors
///
/// The first error the sink returns.
pub fn write_run(sink: &mut dyn ReportSink, rows: &[AuditRecord]) -> Result<(), ReportError> {
    sink.begin(&run_info())?;
    for r in rows {
        sink.write(r)?;
    }
    sink.finish(&RunSummary::default())
}

/// The least any sink must do with the rows, the benches' yardstick:
/// JSON-encode each into `buf` (cleared per row). Returns the bytes encoded.
///
/// # Errors
///
/// A row that does not serialise (none of ours).
pub fn json_encode_all(rows: &[AuditRecord], buf: &mut Vec<u8>) -> Result<usize, serde_json::Error> {
    let mut n = 0;
    for r in rows {
        buf.clear();
        serde_json::to_writer(&mut *buf, r)?;
        n += buf.len();
    }
    Ok(n)
}

/// One processed message: what a recorder (the ledger) receives per message.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The message.
    pub message: Message,
    /// Its two claims (one per sentence).
    pub claims: Vec<Claim>,
    /// One `Supported` assessment per claim, each citing one evidence item.
    pub assessments: Vec<Assessment>,
}

/// `n` messages over 50 threads, each with two sentence claims and one
/// supported assessment per claim (one evidence item, gate `Pass`).
pub fn outcomes(n: usize) -> Vec<Outcome> {
    (0..n)
        .map(|n| {
            let text = format!("The launch moved to Friday, message {n}. Revenue was {n} million in 2023.");
            let message = Message {
                source: SourceKind::GMAIL,
                archive: "mail.mbox".into(),
                conversation: format!("thread-{}", n % 50),
                id: MessageId(format!("<m{n}@example.org>")),
                author: "Alice <alice@example.org>".into(),
                recipients: vec!["bob@example.org".into()],
                sent_at: at(1_700_000_000, n),
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
                            written_at: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_deterministic_and_shaped_as_documented() {
        let a = audit_records(7);
        assert_eq!(a.len(), 7);
        assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&audit_records(7)).unwrap());
        assert_eq!(a[3].evidence.len(), 1);
        assert!(a[4].evidence.is_empty());
        assert_eq!(a[6].assessment.status, Status::ALL[6]);
        assert_eq!(a[2].sent_at.as_second(), 1_714_000_002);
        let o = outcomes(3);
        assert_eq!(o[2].claims.len(), 2);
        assert_eq!(o[2].claims[1].text, "Revenue was 2 million in 2023.");
        assert_eq!(o[1].message.sent_at.as_second(), 1_700_000_001);
        assert_eq!(run_info().run_id, RunId("bench".into()));
        let mut buf = Vec::new();
        let n = json_encode_all(&a[..2], &mut buf).unwrap();
        assert_eq!(n, serde_json::to_vec(&a[0]).unwrap().len() + serde_json::to_vec(&a[1]).unwrap().len());
        assert_eq!(buf, serde_json::to_vec(&a[1]).unwrap());
    }
}
