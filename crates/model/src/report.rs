//! What report sinks receive: the run's parameters ([`RunInfo`]), one row per
//! claim assessment ([`AuditRecord`]), the end-of-run counts ([`RunSummary`]),
//! and the push-based [`ReportSink`] trait (begin / write / finish) that the
//! markdown, Arrow and JSON Lines sinks implement.
//!
//! The pipeline owns the order of calls: `begin` once, `write` per
//! assessment, `finish` once. Sinks keep memory bounded whatever the number
//! of rows; a sink that is dropped without `finish` leaves no final file.

use crate::{Assessment, Claim, ClaimKind, Digest, Evidence, GateVerdict, Group, Message, MessageId, Skipped, SourceKind, Status};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The change types the gate has no detector for (DESIGN.md, "The gate"):
/// listed as `not_checked` on every report, so a clean report is never read
/// as "nothing was lost".
pub const NOT_CHECKED_CHANGE_TYPES: [&str; 2] = ["broadened", "weakened"];

/// How many skipped records a [`RunSummary`] keeps as examples. The counts
/// are always complete; only the sample of locators is bounded, so a run over
/// a badly damaged archive cannot grow the summary without limit.
pub const SKIPPED_SAMPLE_LIMIT: usize = 50;

/// A run's id, e.g. `20240502T030405Z-1a2b3c4d`: the start time (so ids sort
/// by time in `reports/`) and a digest of the run's parameters (so two runs
/// started in the same second with different sources differ).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub String);

impl RunId {
    /// The id for a run started at `started_at` with parameters whose
    /// canonical bytes are `params` (e.g. the JSON of [`RunParams`]).
    pub fn derive(started_at: Timestamp, params: &[u8]) -> RunId {
        let t = started_at.strftime("%Y%m%dT%H%M%SZ").to_string();
        RunId(format!("{t}-{}", Digest::of(params).short(8)))
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One archive a run reads (`--source KIND:PATH` or `[[imports]]`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunSource {
    /// The archive format.
    pub kind: SourceKind,
    /// The path as the user gave it.
    pub path: String,
}

/// The parameters that define what a run does. Two runs with equal
/// parameters over equal input give equal reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunParams {
    /// The archives read, in the order given.
    pub sources: Vec<RunSource>,
    /// Lower bound of the time window (inclusive), if any.
    pub since: Option<Timestamp>,
    /// Upper bound of the time window (exclusive), if any.
    pub until: Option<Timestamp>,
    /// The run's notion of "now" (`--now`, else the start time): relative
    /// windows and freshness are computed against it.
    pub now: Timestamp,
    /// True when the network was not touched (`--offline`).
    pub offline: bool,
    /// The verification policy version verdicts are made under; a nightly
    /// re-run skips messages already assessed under the same version.
    pub policy_version: String,
    /// `$AMEM_HOME`, as resolved.
    pub home: String,
}

/// A run as reports and the ledger see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The run's id.
    pub run_id: RunId,
    /// When the run started (the user's run time: the one wall-clock value
    /// that reaches a report).
    pub started_at: Timestamp,
    /// What the run does.
    pub params: RunParams,
}

/// One report row: one assessment of one claim, with the message context a
/// reader needs (who, when, where) and the evidence the verdict cites.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// The run that made (or, read back from the ledger, recorded) the assessment.
    pub run_id: RunId,
    /// Archive format of the message.
    pub source: SourceKind,
    /// The archive path.
    pub archive: String,
    /// The conversation (Slack channel/thread, iMessage chat, mail thread).
    pub conversation: String,
    /// The message's id in its archive.
    pub message_id: MessageId,
    /// Where in the archive the message sits (file plus position).
    pub locator: String,
    /// Author's display name or address.
    pub author: String,
    /// When the message was sent, UTC.
    pub sent_at: Timestamp,
    /// Subject line, channel or chat name.
    pub subject: Option<String>,
    /// The claim, verbatim, with its stance cues.
    pub claim: Claim,
    /// The assessment of the claim.
    pub assessment: Assessment,
    /// The evidence the verdict cites: every reason's evidence, in reason
    /// order, without repeats.
    pub evidence: Vec<Evidence>,
}

impl AuditRecord {
    /// A row for `assessment` of `claim` out of `message`. The evidence list
    /// is gathered from the assessment's reasons.
    pub fn new(run_id: RunId, message: &Message, claim: Claim, assessment: Assessment) -> AuditRecord {
        let evidence = cited_evidence(&assessment);
        AuditRecord {
            run_id,
            source: message.source,
            archive: message.archive.clone(),
            conversation: message.conversation.clone(),
            message_id: message.id.clone(),
            locator: message.locator.clone(),
            author: message.author.clone(),
            sent_at: message.sent_at,
            subject: message.subject.clone(),
            claim,
            assessment,
            evidence,
        }
    }

    /// The report group.
    pub fn group(&self) -> Group {
        self.assessment.group()
    }

    /// True when the gate could align nothing: such a row is listed as
    /// uncheckable as well as in its group (uncheckable is never a pass).
    pub fn is_uncheckable(&self) -> bool {
        self.assessment.gate.as_ref().is_some_and(|g| g.verdict == GateVerdict::Uncheckable)
    }
}

/// Every reason's evidence, in order, each (item revision, uri, span) once.
pub fn cited_evidence(assessment: &Assessment) -> Vec<Evidence> {
    let mut out: Vec<Evidence> = Vec::new();
    for r in &assessment.reasons {
        for e in &r.evidence {
            if !out.iter().any(|o| o.item_digest == e.item_digest && o.uri == e.uri && o.span == e.span) {
                out.push(e.clone());
            }
        }
    }
    out
}

/// Skipped records counted by stage and reason, plus a bounded sample of
/// them. The sample keeps the [`SKIPPED_SAMPLE_LIMIT`] smallest records by
/// (stage, locator, reason), so it does not depend on the order a concurrent
/// pipeline delivered them in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedTally {
    /// Total skipped.
    pub total: u64,
    /// Counts: stage → reason → n.
    pub by_stage: BTreeMap<String, BTreeMap<String, u64>>,
    /// A bounded, sorted sample with locators.
    pub sample: Vec<Skipped>,
}

fn skipped_key(s: &Skipped) -> (&str, &str, &str) {
    (&s.stage, &s.locator, &s.reason)
}

impl SkippedTally {
    /// Count one skipped record.
    pub fn add(&mut self, s: &Skipped) {
        self.total += 1;
        *self.by_stage.entry(s.stage.clone()).or_default().entry(s.reason.clone()).or_default() += 1;
        self.keep_sample(s);
    }

    fn keep_sample(&mut self, s: &Skipped) {
        let pos = self.sample.partition_point(|x| skipped_key(x) < skipped_key(s));
        if self.sample.get(pos).is_some_and(|x| x == s) {
            return;
        }
        if pos < SKIPPED_SAMPLE_LIMIT {
            self.sample.insert(pos, s.clone());
            self.sample.truncate(SKIPPED_SAMPLE_LIMIT);
        }
    }

    /// Add another tally's counts and sample (shards, or a resumed run).
    pub fn merge(&mut self, other: &SkippedTally) {
        self.total += other.total;
        for (stage, reasons) in &other.by_stage {
            let into = self.by_stage.entry(stage.clone()).or_default();
            for (r, n) in reasons {
                *into.entry(r.clone()).or_default() += n;
            }
        }
        for s in &other.sample {
            self.keep_sample(s);
        }
    }
}

/// End-of-run counts. Every report shows them, including what could not
/// be checked (DESIGN principle 4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Messages read from the archives (inside the window).
    pub messages_read: u64,
    /// Messages skipped because the ledger already holds an assessment of
    /// them under the same policy version (nightly incremental runs).
    pub messages_already_assessed: u64,
    /// Claims extracted, by kind (audited and not).
    pub claims_by_kind: BTreeMap<ClaimKind, u64>,
    /// Claims of an audited kind.
    pub audited: u64,
    /// Assessments written (report rows).
    pub assessed: u64,
    /// Assessments by status.
    pub by_status: BTreeMap<Status, u64>,
    /// Assessments by report group.
    pub by_group: BTreeMap<Group, u64>,
    /// Claims answered from the local wiki.
    pub local_hits: u64,
    /// Fetches made from trust-list sources.
    pub fetches: u64,
    /// What was skipped, by stage and reason, with sample locators.
    pub skipped: SkippedTally,
    /// What could not be checked, by reason (`gate_unaligned`,
    /// `source_unavailable`, ...). Never counted as a pass.
    pub uncheckable: BTreeMap<String, u64>,
    /// Change types no detector covers (see [`NOT_CHECKED_CHANGE_TYPES`]).
    pub not_checked: Vec<String>,
    /// When the run finished (from the run's clock).
    pub finished_at: Option<Timestamp>,
}

impl Default for RunSummary {
    fn default() -> Self {
        RunSummary {
            messages_read: 0,
            messages_already_assessed: 0,
            claims_by_kind: BTreeMap::new(),
            audited: 0,
            assessed: 0,
            by_status: BTreeMap::new(),
            by_group: BTreeMap::new(),
            local_hits: 0,
            fetches: 0,
            skipped: SkippedTally::default(),
            uncheckable: BTreeMap::new(),
            not_checked: NOT_CHECKED_CHANGE_TYPES.iter().map(|s| s.to_string()).collect(),
            finished_at: None,
        }
    }
}

impl RunSummary {
    /// Count one extracted claim.
    pub fn count_claim(&mut self, claim: &Claim) {
        *self.claims_by_kind.entry(claim.kind).or_default() += 1;
        if claim.kind.is_audited() {
            self.audited += 1;
        }
    }

    /// Count one report row: status, group and, when the gate aligned
    /// nothing, `uncheckable["gate_unaligned"]`.
    pub fn count_record(&mut self, rec: &AuditRecord) {
        self.assessed += 1;
        *self.by_status.entry(rec.assessment.status).or_default() += 1;
        *self.by_group.entry(rec.group()).or_default() += 1;
        if rec.is_uncheckable() {
            *self.uncheckable.entry("gate_unaligned".to_string()).or_default() += 1;
        }
    }

    /// Count one skipped record.
    pub fn count_skipped(&mut self, s: &Skipped) {
        self.skipped.add(s);
    }

    /// Rows in a group (0 when none).
    pub fn group_count(&self, g: Group) -> u64 {
        self.by_group.get(&g).copied().unwrap_or(0)
    }
}

/// The error a sink returns: boxed, so each sink crate keeps its own
/// `thiserror` enum and the pipeline adds context.
pub type ReportError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A push-based report writer (STYLE.md §5): told when the run begins, given
/// each row, then the summary. `finish` is where a sink writes its counts,
/// makes its file final (temp file + rename) and reports nothing partial.
pub trait ReportSink: Send {
    /// The run starts. Called once, before any `write`.
    ///
    /// # Errors
    /// The output cannot be created.
    fn begin(&mut self, run: &RunInfo) -> Result<(), ReportError>;
    /// One assessment row.
    ///
    /// # Errors
    /// The output cannot be written.
    fn write(&mut self, rec: &AuditRecord) -> Result<(), ReportError>;
    /// The run ends: write the summary and make the output final.
    ///
    /// # Errors
    /// The output cannot be written, flushed or renamed into place.
    fn finish(&mut self, summary: &RunSummary) -> Result<(), ReportError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sk(stage: &str, loc: &str) -> Skipped {
        Skipped { stage: stage.into(), locator: loc.into(), reason: "truncated".into() }
    }

    #[test]
    fn run_id_shape() {
        let t: Timestamp = "2024-05-02T03:04:05Z".parse().unwrap();
        let a = RunId::derive(t, b"x");
        assert!(a.0.starts_with("20240502T030405Z-"), "{a}");
        assert_eq!(a.0.len(), "20240502T030405Z-".len() + 8);
        assert_ne!(a, RunId::derive(t, b"y"));
    }

    #[test]
    fn skipped_sample_is_bounded_and_order_free() {
        let mut a = SkippedTally::default();
        let mut b = SkippedTally::default();
        let items: Vec<Skipped> = (0..200).map(|i| sk("import", &format!("f:{i:04}"))).collect();
        for s in &items {
            a.add(s);
        }
        for s in items.iter().rev() {
            b.add(s);
        }
        assert_eq!(a, b);
        assert_eq!(a.total, 200);
        assert_eq!(a.sample.len(), SKIPPED_SAMPLE_LIMIT);
        assert_eq!(a.sample[0].locator, "f:0000");
        assert_eq!(a.by_stage["import"]["truncated"], 200);
    }

    #[test]
    fn skipped_merge_keeps_counts() {
        let mut a = SkippedTally::default();
        a.add(&sk("import", "a"));
        let mut b = SkippedTally::default();
        b.add(&sk("import", "b"));
        b.add(&sk("recall", "c"));
        a.merge(&b);
        assert_eq!(a.total, 3);
        assert_eq!(a.by_stage["import"]["truncated"], 2);
        assert_eq!(a.by_stage["recall"]["truncated"], 1);
        assert_eq!(a.sample.len(), 3);
    }

    #[test]
    fn summary_defaults_list_not_checked() {
        let mut s = RunSummary::default();
        assert_eq!(s.not_checked, vec!["broadened", "weakened"]);
        s.claims_by_kind.insert(ClaimKind::Quantity, 2);
        s.by_status.insert(Status::NoEvidence, 1);
        s.by_group.insert(Group::Unverified, 1);
        let j = serde_json::to_string(&s).unwrap();
        let back: RunSummary = serde_json::from_str(&j).unwrap();
        assert_eq!(back, s);
    }
}
