//! What report sinks receive: the run's parameters ([`RunInfo`]), one row per
//! claim assessment ([`AuditRecord`]), the end-of-run counts ([`RunSummary`]),
//! and the push-based [`ReportSink`] trait (begin / write / finish) that the
//! markdown, Arrow and JSON Lines sinks implement.
//!
//! The pipeline owns the order of calls: `begin` once, `write` per
//! assessment, `finish` once. Sinks keep memory bounded whatever the number
//! of rows; a sink that is dropped without `finish` leaves no final file.

use crate::{
    Assessment, Claim, ClaimKind, Digest, Evidence, GateVerdict, Group, Message, MessageId, Skipped, SourceKind, Span, Status, Who,
};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The change types the gate has no detector for (docs/architecture.md, "The gate"):
/// listed as `not_checked` on every report, so a clean report is never read
/// as "nothing was lost".
pub const NOT_CHECKED_CHANGE_TYPES: [&str; 2] = ["broadened", "weakened"];

/// How `audit.md` begins (then the run id in backticks). The wiki's indexer
/// skips a file that begins so: a report copied or written into the wiki
/// would otherwise be indexed and cited as evidence for the very claims it
/// reports.
pub const REPORT_HEADING: &str = "# amem audit: run ";

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
    /// `--who`: whose messages are audited. Left out of the serialised
    /// parameters when `all`, so a default run keeps the id it always had.
    #[serde(default, skip_serializing_if = "Who::is_all")]
    pub who: Who,
    /// `--include-bulk`: bulk and automated mail and Slack bots are audited
    /// too (by default they are skipped and counted).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_bulk: bool,
    /// `--include-forwarded`: forwarded parts of mail are audited as their
    /// original authors' claims, passed on by the forwarder.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_forwarded: bool,
    /// `--shard I/N`: the part of the archives this run audits ([`crate::Shard`]). Left out
    /// when unsharded, so an unsharded run keeps the id it always had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::Shard>,
    /// `--reassess`: the messages with a claim on the unverified queue were assessed again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reassess: bool,
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
    /// True when the user wrote the message (`[me]` in config.toml, or
    /// iMessage's `is_from_me`); set by the pipeline when it reports.
    #[serde(default)]
    pub from_me: bool,
    /// Where each cited wiki item is and when its file last changed, one
    /// per item, when the pipeline could look it up (see [`NoteRef`]).
    #[serde(default)]
    pub notes: Vec<NoteRef>,
    /// Where else this run found the message: the locators of its copies
    /// (the same mail in another folder or export), which were not audited
    /// again. Set by the pipeline when it reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_filed_at: Vec<String>,
    /// For a forwarded part audited as its original author's message
    /// (`--include-forwarded`): who forwarded it, as the forwarding
    /// message's author. `author` is then the original author.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarded_by: Option<String>,
    /// True when the user forwarded it (`forwarded_by` is one of `[me]`);
    /// set by the pipeline when it reports.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forwarded_by_me: bool,
}

/// A cited wiki item as the reader finds it: its file and modification time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteRef {
    /// The item id of the `amem://` URI.
    pub item: String,
    /// The file's path relative to the wiki folder, `/`-separated.
    pub path: String,
    /// The file's modification time, RFC 3339 UTC, when it could be read.
    pub modified_at: Option<String>,
    /// When the note was written, RFC 3339 UTC, as the index holds it for
    /// the cited revision: its front matter's date, else its file's
    /// modification time when it was indexed (never the indexing time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_at: Option<String>,
    /// Which time `written_at` is: the front matter key it came from
    /// (`date`, `updated`, ...), or `mtime` for the file's modification time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_from: Option<String>,
}

/// What one piece of evidence does for the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceRole {
    /// The sentence the claim is entailed by.
    Supports,
    /// The sentence stating an incompatible value, polarity or name.
    Conflicts,
    /// Related text the verdict mentions but does not rest on.
    Context,
}

impl EvidenceRole {
    /// snake_case name, as serialised.
    pub fn as_str(&self) -> &'static str {
        match self {
            EvidenceRole::Supports => "supports",
            EvidenceRole::Conflicts => "conflicts",
            EvidenceRole::Context => "context",
        }
    }

    fn rank(&self) -> u8 {
        match self {
            EvidenceRole::Conflicts => 2,
            EvidenceRole::Supports => 1,
            EvidenceRole::Context => 0,
        }
    }
}

/// The part of an evidence sentence a reason points at (the conflicting
/// number, date or name), inside the sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceValue {
    /// The value's text, verbatim.
    pub quote: String,
    /// Its byte offsets in the chunk, inside the sentence's.
    pub span: Span,
}

/// One evidence sentence with its role in the verdict, the value inside it a
/// reason points at, and the rule that cited it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitedEvidence {
    /// The sentence and where it is.
    pub evidence: Evidence,
    /// What it does for the verdict.
    pub role: EvidenceRole,
    /// The conflicting value inside it, when a reason names one.
    pub value: Option<EvidenceValue>,
    /// The rule of the first reason citing it.
    pub rule: String,
}

/// The role evidence cited by a reason with `rule` plays.
fn role_of(rule: &str, status: Status) -> EvidenceRole {
    let conflicting = rule.ends_with("_mismatch")
        || rule.ends_with("_negates")
        || rule.ends_with(".antonym")
        || rule.ends_with(".substituted")
        || rule.ends_with(".conflicts");
    if conflicting {
        EvidenceRole::Conflicts
    } else if rule == "align.entails" || rule == "align.sources_disagree" || status == Status::Supported {
        EvidenceRole::Supports
    } else {
        EvidenceRole::Context
    }
}

/// The evidence a verdict rests on, sentence by sentence: every reason's
/// evidence in reason order, each sentence once (with the strongest role
/// any reason gives it: conflicts, then supports, then context), and a
/// piece cited inside a sentence already listed (the verifier cites the
/// conflicting value apart from its sentence) folded into that sentence as
/// its [`EvidenceValue`] rather than listed as evidence of its own.
pub fn evidence_with_roles(assessment: &Assessment) -> Vec<CitedEvidence> {
    let mut out: Vec<CitedEvidence> = Vec::new();
    for r in &assessment.reasons {
        let role = role_of(&r.rule, assessment.status);
        for e in &r.evidence {
            let same_item = |o: &CitedEvidence| o.evidence.item_digest == e.item_digest && o.evidence.uri == e.uri;
            if let Some(o) = out.iter_mut().find(|o| same_item(o) && o.evidence.span == e.span) {
                if role.rank() > o.role.rank() {
                    o.role = role;
                }
                continue;
            }
            let inside = |o: &CitedEvidence| same_item(o) && o.evidence.span.start <= e.span.start && e.span.end <= o.evidence.span.end;
            if let Some(o) = out.iter_mut().find(|o| inside(o)) {
                if o.value.is_none() {
                    o.value = Some(EvidenceValue { quote: e.quote.clone(), span: e.span });
                }
                if role.rank() > o.role.rank() {
                    o.role = role;
                }
                continue;
            }
            out.push(CitedEvidence { evidence: e.clone(), role, value: None, rule: r.rule.clone() });
        }
    }
    out
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
            from_me: false,
            notes: Vec::new(),
            also_filed_at: Vec::new(),
            forwarded_by: None,
            forwarded_by_me: false,
        }
    }

    /// How much the claim is worth checking, by rules (higher first): the
    /// user's own first, then evidence that came close (partial support,
    /// stale, disputed, related), then the kinds that carry checkable values
    /// (quantities, dates, comparisons, causes), then a digit in the claim; a
    /// claim with nothing to check last. audit.md's short list of unverified
    /// claims and `amem unverified list --sort check-worthy` order by it.
    pub fn check_worth(&self) -> i64 {
        let status = match self.assessment.status {
            Status::PartiallySupported => 40,
            Status::Stale => 35,
            Status::Ambiguous => 30,
            Status::NotAddressed => 20,
            // Nothing in it to check: last, whatever its kind.
            Status::NotCheckable => -100,
            _ => 0,
        };
        let kind = match self.claim.kind {
            ClaimKind::Quantity => 15,
            ClaimKind::Date => 12,
            ClaimKind::Comparison | ClaimKind::Causal => 10,
            ClaimKind::Fact => 6,
            ClaimKind::Attribution => 4,
            ClaimKind::Prediction => 3,
            _ => 0,
        };
        let digit = if self.claim.text.bytes().any(|b| b.is_ascii_digit()) { 5 } else { 0 };
        (self.from_me as i64) * 1000 + status + kind + digit
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

/// Quoted and forwarded text in a run's messages: what the author's own
/// text leaves out, so a report can say what it did not read as the
/// author's words.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuotedTally {
    /// Messages with quoted reply text (someone's earlier mail, audited
    /// where it was sent), and its characters.
    pub reply_messages: u64,
    /// Characters of quoted reply text.
    pub reply_chars: u64,
    /// Messages with forwarded text, and its characters.
    pub forward_messages: u64,
    /// Characters of forwarded text.
    pub forward_chars: u64,
    /// Forwarded parts audited as their original authors' messages
    /// (`--include-forwarded`); 0 when forwarded text was not audited.
    pub forwarded_audited: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// End-of-run counts. Every report shows them, including what could not
/// be checked (docs/architecture.md, "Uncheckable is never a pass").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Messages read from the archives (inside the window).
    pub messages_read: u64,
    /// Messages skipped because the ledger already holds an assessment of
    /// them under the same policy version (nightly incremental runs).
    pub messages_already_assessed: u64,
    /// Messages read that are copies of one read before (the same mail in
    /// another folder or export: `Message::copy_keys`), not audited again;
    /// the original's rows list where they were ([`AuditRecord::also_filed_at`]).
    #[serde(default)]
    pub copies: u64,
    /// Messages read that belong to other shards of a sharded run (`--shard I/N`): read, for
    /// the copies and templates every shard must see, and left to the shard that owns them.
    #[serde(default)]
    pub other_shards: u64,
    /// Quoted and forwarded text in the messages this run assessed, kept
    /// apart from their authors' own words.
    #[serde(default)]
    pub quoted: QuotedTally,
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
    /// Rows whose verdict a model behind an endpoint gave (method `llm:...`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub model_answered: u64,
    /// Rows where a model endpoint was asked and gave no usable answer (unreachable, an error,
    /// malformed, truncated or unquoted output): the rules' verdict stands on each.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub model_unavailable: u64,
    /// What was skipped, by stage and reason, with sample locators.
    pub skipped: SkippedTally,
    /// What could not be checked, by reason (`gate_unaligned`,
    /// `source_unavailable`, ...). Never counted as a pass.
    pub uncheckable: BTreeMap<String, u64>,
    /// Change types no detector covers (see [`NOT_CHECKED_CHANGE_TYPES`]).
    pub not_checked: Vec<String>,
    /// When the run finished (from the run's clock).
    pub finished_at: Option<Timestamp>,
    /// The names the user's own Slack messages were recorded under when `[me]` matched them by
    /// user id (a row read back carries only the name): kept with the run so that a report
    /// merged from shards marks those rows as the single run does.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub slack_names_of_me: std::collections::BTreeSet<String>,
}

impl Default for RunSummary {
    fn default() -> Self {
        RunSummary {
            messages_read: 0,
            messages_already_assessed: 0,
            copies: 0,
            other_shards: 0,
            quoted: QuotedTally::default(),
            claims_by_kind: BTreeMap::new(),
            audited: 0,
            assessed: 0,
            by_status: BTreeMap::new(),
            by_group: BTreeMap::new(),
            local_hits: 0,
            fetches: 0,
            model_answered: 0,
            model_unavailable: 0,
            skipped: SkippedTally::default(),
            uncheckable: BTreeMap::new(),
            not_checked: NOT_CHECKED_CHANGE_TYPES.iter().map(|s| s.to_string()).collect(),
            finished_at: None,
            slack_names_of_me: std::collections::BTreeSet::new(),
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

    /// The counts that come from a run's report rows (assessed, by status and group, local
    /// hits, uncheckable), set to none: a merge counts them again from the rows it writes.
    pub fn without_row_counts(mut self) -> RunSummary {
        self.assessed = 0;
        self.by_status.clear();
        self.by_group.clear();
        self.local_hits = 0;
        self.model_answered = 0;
        self.model_unavailable = 0;
        self.uncheckable.clear();
        self
    }

    /// Add another shard's counts: the union of shards that split one archive between them
    /// (each message read by every shard, audited by one) counts what one run over it would.
    pub fn add_shard(&mut self, other: &RunSummary) {
        fn add<K: Ord + Clone>(into: &mut BTreeMap<K, u64>, from: &BTreeMap<K, u64>) {
            for (k, n) in from {
                *into.entry(k.clone()).or_default() += n;
            }
        }
        self.messages_read += other.messages_read;
        self.messages_already_assessed += other.messages_already_assessed;
        self.copies += other.copies;
        self.other_shards += other.other_shards;
        let (q, o) = (&mut self.quoted, &other.quoted);
        q.reply_messages += o.reply_messages;
        q.reply_chars += o.reply_chars;
        q.forward_messages += o.forward_messages;
        q.forward_chars += o.forward_chars;
        q.forwarded_audited += o.forwarded_audited;
        add(&mut self.claims_by_kind, &other.claims_by_kind);
        self.audited += other.audited;
        self.assessed += other.assessed;
        add(&mut self.by_status, &other.by_status);
        add(&mut self.by_group, &other.by_group);
        self.local_hits += other.local_hits;
        self.fetches += other.fetches;
        self.model_answered += other.model_answered;
        self.model_unavailable += other.model_unavailable;
        self.slack_names_of_me.extend(other.slack_names_of_me.iter().cloned());
        self.skipped.merge(&other.skipped);
        add(&mut self.uncheckable, &other.uncheckable);
        for t in &other.not_checked {
            if !self.not_checked.contains(t) {
                self.not_checked.push(t.clone());
            }
        }
        self.finished_at = self.finished_at.max(other.finished_at);
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

    fn ev(item: &str, start: usize, end: usize, quote: &str) -> Evidence {
        Evidence {
            uri: crate::AmemUri::chunk(item, 0),
            quote: quote.into(),
            span: Span::new(start, end),
            item_digest: Digest::of(item.as_bytes()),
            captured_at: None,
            written_at: None,
            source_url: None,
            title: None,
        }
    }

    fn reason(rule: &str, evidence: Vec<Evidence>) -> crate::Reason {
        crate::Reason { facet: "number".into(), detail: String::new(), claim_span: None, evidence, rule: rule.into() }
    }

    fn assessment(status: Status, reasons: Vec<crate::Reason>) -> Assessment {
        Assessment {
            claim: crate::ClaimId(Digest::of(b"c")),
            status,
            method: "m".into(),
            reasons,
            gate: None,
            assessed_at: String::new(),
            policy_version: String::new(),
        }
    }

    /// The verifier cites a conflict as [sentence, value inside it]: one
    /// evidence item with role conflicts and the value folded in.
    #[test]
    fn conflicting_value_is_folded_into_its_sentence() {
        let sentence = ev("n1", 10, 40, "The plant makes 60 MW of power.");
        let value = ev("n1", 26, 31, "60 MW");
        let a = assessment(Status::Contradicted, vec![reason("number.value_mismatch", vec![sentence.clone(), value])]);
        let got = evidence_with_roles(&a);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].role, EvidenceRole::Conflicts);
        assert_eq!(got[0].evidence, sentence);
        assert_eq!(got[0].value.as_ref().map(|v| v.quote.as_str()), Some("60 MW"));
        assert_eq!(got[0].rule, "number.value_mismatch");
    }

    #[test]
    fn roles_by_rule_and_status() {
        let a = assessment(
            Status::Ambiguous,
            vec![
                reason("align.sources_disagree", vec![ev("n1", 0, 9, "It is 40.")]),
                reason("polarity.evidence_negates", vec![ev("n2", 0, 9, "It isn't.")]),
            ],
        );
        let roles: Vec<EvidenceRole> = evidence_with_roles(&a).iter().map(|c| c.role).collect();
        assert_eq!(roles, [EvidenceRole::Supports, EvidenceRole::Conflicts]);
        let a = assessment(Status::NotAddressed, vec![reason("align.topical_only", vec![ev("n1", 0, 9, "Nearby.")])]);
        assert_eq!(evidence_with_roles(&a)[0].role, EvidenceRole::Context);
        // The same sentence cited twice is listed once, with the stronger role.
        let s = ev("n1", 0, 9, "It is 40.");
        let a = assessment(Status::Contradicted, vec![reason("align.partial", vec![s.clone()]), reason("number.value_mismatch", vec![s])]);
        let got = evidence_with_roles(&a);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].role, EvidenceRole::Conflicts);
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
