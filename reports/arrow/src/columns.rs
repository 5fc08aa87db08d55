//! Typed column builders for one batch of `audit.arrow` rows.
//!
//! List-of-struct columns keep one builder per struct child plus the list
//! lengths, and are assembled into `StructArray` / `ListArray` at flush:
//! no downcasting of a generic `StructBuilder`, so no runtime type checks
//! that could fail.

use crate::schema::{audit_schema, cue_fields, evidence_fields, flag_fields, reason_fields, span_fields};
use amem_records::{AuditRecord, Group, Status, evidence_with_roles};
use arrow_array::builder::{BooleanBuilder, Int32Builder, StringBuilder, TimestampMicrosecondBuilder, UInt64Builder};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, ListArray, RecordBatch, StringArray, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{ArrowError, Field, Fields};
use std::sync::{Arc, LazyLock};

/// The status dictionary: every status, in `Status::ALL` order, so each
/// batch carries the *same* dictionary (the IPC file format allows one
/// dictionary per field for the whole file) and readers see a stable
/// category order.
static STATUS_VALUES: LazyLock<ArrayRef> =
    LazyLock::new(|| Arc::new(StringArray::from_iter_values(Status::ALL.iter().map(|s| s.as_str()))));

/// The group dictionary, in report order.
const GROUPS: [Group; 3] = [Group::Supported, Group::Contradicted, Group::Unverified];
static GROUP_VALUES: LazyLock<ArrayRef> = LazyLock::new(|| Arc::new(StringArray::from_iter_values(GROUPS.iter().map(|g| g.as_str()))));

fn status_key(s: Status) -> i32 {
    Status::ALL.iter().position(|x| *x == s).unwrap_or(0) as i32
}

fn group_key(g: Group) -> i32 {
    GROUPS.iter().position(|x| *x == g).unwrap_or(0) as i32
}

/// Parse an RFC 3339 time into microseconds; `None` when it does not parse
/// (the column is nullable and documented so).
fn micros(s: &str) -> Option<i64> {
    s.parse::<jiff::Timestamp>().ok().map(|t| t.as_microsecond())
}

fn utc_ts(cap: usize) -> TimestampMicrosecondBuilder {
    TimestampMicrosecondBuilder::with_capacity(cap).with_timezone("UTC")
}

fn strings(cap: usize) -> StringBuilder {
    // 32 bytes per value is a starting guess; builders grow as needed.
    StringBuilder::with_capacity(cap, cap * 32)
}

fn list(fields: Fields, children: Vec<ArrayRef>, lengths: &[usize]) -> Result<ArrayRef, ArrowError> {
    let values = StructArray::try_new(fields.clone(), children, None)?;
    let item = Arc::new(Field::new_list_field(arrow_schema::DataType::Struct(fields), false));
    let offsets = OffsetBuffer::<i32>::from_lengths(lengths.iter().copied());
    Ok(Arc::new(ListArray::try_new(item, offsets, Arc::new(values), None)?))
}

struct Cues {
    lengths: Vec<usize>,
    class: StringBuilder,
    text: StringBuilder,
    start: UInt64Builder,
    end: UInt64Builder,
}

struct EvidenceCols {
    lengths: Vec<usize>,
    uri: StringBuilder,
    quote: StringBuilder,
    start: UInt64Builder,
    end: UInt64Builder,
    captured_at: TimestampMicrosecondBuilder,
    digest: StringBuilder,
    source_url: StringBuilder,
    title: StringBuilder,
    role: StringBuilder,
    value: StringBuilder,
    value_start: UInt64Builder,
    value_end: UInt64Builder,
    note_path: StringBuilder,
    note_modified_at: TimestampMicrosecondBuilder,
    note_written_at: TimestampMicrosecondBuilder,
    note_written_from: StringBuilder,
}

struct ReasonCols {
    lengths: Vec<usize>,
    facet: StringBuilder,
    rule: StringBuilder,
    message: StringBuilder,
    claim_start: UInt64Builder,
    claim_end: UInt64Builder,
    /// Spans per reason, then the spans' own columns.
    span_lengths: Vec<usize>,
    span_uri: StringBuilder,
    span_start: UInt64Builder,
    span_end: UInt64Builder,
}

struct Flags {
    lengths: Vec<usize>,
    check: StringBuilder,
    cue: StringBuilder,
    source_sentence: StringBuilder,
    memory_sentence: StringBuilder,
    rule: StringBuilder,
}

/// One batch under construction.
pub(crate) struct Columns {
    rows: usize,
    run_id: StringBuilder,
    source_kind: StringBuilder,
    archive: StringBuilder,
    conversation: StringBuilder,
    message_id: StringBuilder,
    locator: StringBuilder,
    author: StringBuilder,
    sent_at: TimestampMicrosecondBuilder,
    subject: StringBuilder,
    message_digest: StringBuilder,
    claim_id: StringBuilder,
    text: StringBuilder,
    span_start: UInt64Builder,
    span_end: UInt64Builder,
    kind: StringBuilder,
    cues: Cues,
    status: Int32Builder,
    group: Int32Builder,
    method: StringBuilder,
    policy_version: StringBuilder,
    assessed_at: TimestampMicrosecondBuilder,
    evidence: EvidenceCols,
    gate_verdict: StringBuilder,
    flags: Flags,
    from_me: BooleanBuilder,
    reasons: ReasonCols,
    /// `also_filed_at`: each row's count, then the locators.
    also_filed_lengths: Vec<usize>,
    also_filed_at: StringBuilder,
    forwarded_by: StringBuilder,
    /// Scratch for URIs written as text (one per evidence item and span).
    uri_text: String,
    /// The last `assessed_at` parsed, and its microseconds: every row of a
    /// run has the same one, and parsing it per row was a measurable part
    /// of the sink.
    last_assessed_at: Option<(String, Option<i64>)>,
}

/// `uri` as text, in `buf`.
fn uri_text<'a>(buf: &'a mut String, uri: &amem_records::AmemUri) -> &'a str {
    use std::fmt::Write;
    buf.clear();
    // Writing into a String cannot fail.
    let _ = write!(buf, "{uri}");
    buf.as_str()
}

impl Columns {
    pub(crate) fn with_capacity(cap: usize) -> Columns {
        Columns {
            rows: 0,
            run_id: strings(cap),
            source_kind: strings(cap),
            archive: strings(cap),
            conversation: strings(cap),
            message_id: strings(cap),
            locator: strings(cap),
            author: strings(cap),
            sent_at: utc_ts(cap),
            subject: strings(cap),
            message_digest: strings(cap),
            claim_id: strings(cap),
            text: StringBuilder::with_capacity(cap, cap * 128),
            span_start: UInt64Builder::with_capacity(cap),
            span_end: UInt64Builder::with_capacity(cap),
            kind: strings(cap),
            cues: Cues {
                lengths: Vec::with_capacity(cap),
                class: strings(cap),
                text: strings(cap),
                start: UInt64Builder::with_capacity(cap),
                end: UInt64Builder::with_capacity(cap),
            },
            status: Int32Builder::with_capacity(cap),
            group: Int32Builder::with_capacity(cap),
            method: strings(cap),
            policy_version: strings(cap),
            assessed_at: utc_ts(cap),
            evidence: EvidenceCols {
                lengths: Vec::with_capacity(cap),
                uri: strings(cap),
                quote: StringBuilder::with_capacity(cap, cap * 128),
                start: UInt64Builder::with_capacity(cap),
                end: UInt64Builder::with_capacity(cap),
                captured_at: utc_ts(cap),
                digest: strings(cap),
                source_url: strings(cap),
                title: strings(cap),
                role: strings(cap),
                value: strings(cap),
                value_start: UInt64Builder::with_capacity(cap),
                value_end: UInt64Builder::with_capacity(cap),
                note_path: strings(cap),
                note_modified_at: utc_ts(cap),
                note_written_at: utc_ts(cap),
                note_written_from: strings(cap),
            },
            gate_verdict: strings(cap),
            flags: Flags {
                lengths: Vec::with_capacity(cap),
                check: strings(cap),
                cue: strings(cap),
                source_sentence: strings(cap),
                memory_sentence: strings(cap),
                rule: strings(cap),
            },
            from_me: BooleanBuilder::with_capacity(cap),
            reasons: ReasonCols {
                lengths: Vec::with_capacity(cap),
                facet: strings(cap),
                rule: strings(cap),
                message: strings(cap),
                claim_start: UInt64Builder::with_capacity(cap),
                claim_end: UInt64Builder::with_capacity(cap),
                span_lengths: Vec::with_capacity(cap),
                span_uri: strings(cap),
                span_start: UInt64Builder::with_capacity(cap),
                span_end: UInt64Builder::with_capacity(cap),
            },
            also_filed_lengths: Vec::with_capacity(cap),
            also_filed_at: strings(cap),
            forwarded_by: strings(cap),
            uri_text: String::new(),
            last_assessed_at: None,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.rows
    }

    pub(crate) fn push(&mut self, r: &AuditRecord) {
        let a = &r.assessment;
        let c = &r.claim;
        self.run_id.append_value(&r.run_id.0);
        self.source_kind.append_value(r.source.as_str());
        self.archive.append_value(&r.archive);
        self.conversation.append_value(&r.conversation);
        self.message_id.append_value(&r.message_id.0);
        self.locator.append_value(&r.locator);
        self.author.append_value(&r.author);
        self.sent_at.append_value(r.sent_at.as_microsecond());
        self.subject.append_option(r.subject.as_deref());
        let mut hex = [0u8; 64];
        self.message_digest.append_value(c.message_digest.write_hex(&mut hex));
        self.claim_id.append_value(c.id.0.write_hex(&mut hex));
        self.text.append_value(&c.text);
        self.span_start.append_value(c.span.start as u64);
        self.span_end.append_value(c.span.end as u64);
        self.kind.append_value(c.kind.as_str());

        self.cues.lengths.push(c.cues.len());
        for q in &c.cues {
            self.cues.class.append_value(q.class.as_str());
            self.cues.text.append_value(&q.text);
            self.cues.start.append_value(q.span.start as u64);
            self.cues.end.append_value(q.span.end as u64);
        }

        self.status.append_value(status_key(a.status));
        self.group.append_value(group_key(a.group()));
        self.method.append_value(&a.method);
        self.policy_version.append_value(&a.policy_version);
        let assessed_at = match &self.last_assessed_at {
            Some((text, t)) if *text == a.assessed_at => *t,
            _ => {
                let t = micros(&a.assessed_at);
                self.last_assessed_at = Some((a.assessed_at.clone(), t));
                t
            }
        };
        self.assessed_at.append_option(assessed_at);

        // The sentences the verdict rests on, each with its role; a value
        // cited inside a sentence is that sentence's `value`, not a row of
        // its own (amem_records::evidence_with_roles).
        let cited = evidence_with_roles(a);
        let e = &mut self.evidence;
        e.lengths.push(cited.len());
        for c in &cited {
            let ev = &c.evidence;
            let note = r.notes.iter().find(|n| n.item == ev.uri.item);
            e.role.append_value(c.role.as_str());
            e.value.append_option(c.value.as_ref().map(|v| v.quote.as_str()));
            e.value_start.append_option(c.value.as_ref().map(|v| v.span.start as u64));
            e.value_end.append_option(c.value.as_ref().map(|v| v.span.end as u64));
            e.note_path.append_option(note.map(|n| n.path.as_str()));
            e.note_modified_at.append_option(note.and_then(|n| n.modified_at.as_deref()).and_then(micros));
            e.note_written_at.append_option(note.and_then(|n| n.written_at.as_deref()).and_then(micros));
            e.note_written_from.append_option(note.and_then(|n| n.written_from.as_deref()));
            e.uri.append_value(uri_text(&mut self.uri_text, &ev.uri));
            e.quote.append_value(&ev.quote);
            e.start.append_value(ev.span.start as u64);
            e.end.append_value(ev.span.end as u64);
            e.captured_at.append_option(ev.captured_at.as_deref().and_then(micros));
            e.digest.append_value(ev.item_digest.write_hex(&mut hex));
            e.source_url.append_option(ev.source_url.as_deref());
            e.title.append_option(ev.title.as_deref());
        }

        match &a.gate {
            Some(g) => {
                self.gate_verdict.append_value(g.verdict.as_str());
                self.flags.lengths.push(g.flags.len());
                for f in &g.flags {
                    self.flags.check.append_value(&f.check);
                    self.flags.cue.append_value(&f.cue);
                    self.flags.source_sentence.append_value(&f.source_sentence);
                    self.flags.memory_sentence.append_value(&f.memory_sentence);
                    self.flags.rule.append_value(&f.rule);
                }
            }
            None => {
                self.gate_verdict.append_null();
                self.flags.lengths.push(0);
            }
        }
        self.from_me.append_value(r.from_me);
        let rc = &mut self.reasons;
        rc.lengths.push(a.reasons.len());
        for reason in &a.reasons {
            rc.facet.append_value(&reason.facet);
            rc.rule.append_value(&reason.rule);
            rc.message.append_value(&reason.detail);
            rc.claim_start.append_option(reason.claim_span.map(|s| s.start as u64));
            rc.claim_end.append_option(reason.claim_span.map(|s| s.end as u64));
            rc.span_lengths.push(reason.evidence.len());
            for ev in &reason.evidence {
                rc.span_uri.append_value(uri_text(&mut self.uri_text, &ev.uri));
                rc.span_start.append_value(ev.span.start as u64);
                rc.span_end.append_value(ev.span.end as u64);
            }
        }
        self.also_filed_lengths.push(r.also_filed_at.len());
        for l in &r.also_filed_at {
            self.also_filed_at.append_value(l);
        }
        self.forwarded_by.append_option(r.forwarded_by.as_deref());
        self.rows += 1;
    }

    /// The rows so far as one batch; the builders are left empty (and keep
    /// their capacity) for the next one.
    pub(crate) fn finish_batch(&mut self) -> Result<RecordBatch, ArrowError> {
        let cues = list(
            cue_fields(),
            vec![
                Arc::new(self.cues.class.finish()),
                Arc::new(self.cues.text.finish()),
                Arc::new(self.cues.start.finish()),
                Arc::new(self.cues.end.finish()),
            ],
            &self.cues.lengths,
        )?;
        self.cues.lengths.clear();
        let e = &mut self.evidence;
        let evidence = list(
            evidence_fields(),
            vec![
                Arc::new(e.uri.finish()),
                Arc::new(e.quote.finish()),
                Arc::new(e.start.finish()),
                Arc::new(e.end.finish()),
                Arc::new(e.captured_at.finish()),
                Arc::new(e.digest.finish()),
                Arc::new(e.source_url.finish()),
                Arc::new(e.title.finish()),
                Arc::new(e.role.finish()),
                Arc::new(e.value.finish()),
                Arc::new(e.value_start.finish()),
                Arc::new(e.value_end.finish()),
                Arc::new(e.note_path.finish()),
                Arc::new(e.note_modified_at.finish()),
                Arc::new(e.note_written_at.finish()),
                Arc::new(e.note_written_from.finish()),
            ],
            &e.lengths,
        )?;
        e.lengths.clear();
        let f = &mut self.flags;
        let flags = list(
            flag_fields(),
            vec![
                Arc::new(f.check.finish()),
                Arc::new(f.cue.finish()),
                Arc::new(f.source_sentence.finish()),
                Arc::new(f.memory_sentence.finish()),
                Arc::new(f.rule.finish()),
            ],
            &f.lengths,
        )?;
        f.lengths.clear();
        let rc = &mut self.reasons;
        let spans = list(
            span_fields(),
            vec![Arc::new(rc.span_uri.finish()), Arc::new(rc.span_start.finish()), Arc::new(rc.span_end.finish())],
            &rc.span_lengths,
        )?;
        rc.span_lengths.clear();
        let reasons = list(
            reason_fields(),
            vec![
                Arc::new(rc.facet.finish()),
                Arc::new(rc.rule.finish()),
                Arc::new(rc.message.finish()),
                Arc::new(rc.claim_start.finish()),
                Arc::new(rc.claim_end.finish()),
                spans,
            ],
            &rc.lengths,
        )?;
        rc.lengths.clear();
        let item = Arc::new(Field::new_list_field(arrow_schema::DataType::Utf8, false));
        let offsets = OffsetBuffer::<i32>::from_lengths(self.also_filed_lengths.iter().copied());
        let also_filed: ArrayRef = Arc::new(ListArray::try_new(item, offsets, Arc::new(self.also_filed_at.finish()), None)?);
        self.also_filed_lengths.clear();
        let status = DictionaryArray::<Int32Type>::try_new(self.status.finish(), STATUS_VALUES.clone())?;
        let group = DictionaryArray::<Int32Type>::try_new(self.group.finish(), GROUP_VALUES.clone())?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.run_id.finish()),
            Arc::new(self.source_kind.finish()),
            Arc::new(self.archive.finish()),
            Arc::new(self.conversation.finish()),
            Arc::new(self.message_id.finish()),
            Arc::new(self.locator.finish()),
            Arc::new(self.author.finish()),
            Arc::new(self.sent_at.finish()),
            Arc::new(self.subject.finish()),
            Arc::new(self.message_digest.finish()),
            Arc::new(self.claim_id.finish()),
            Arc::new(self.text.finish()),
            Arc::new(self.span_start.finish()),
            Arc::new(self.span_end.finish()),
            Arc::new(self.kind.finish()),
            cues,
            Arc::new(status),
            Arc::new(group),
            Arc::new(self.method.finish()),
            Arc::new(self.policy_version.finish()),
            Arc::new(self.assessed_at.finish()),
            evidence,
            Arc::new(self.gate_verdict.finish()),
            flags,
            Arc::new(self.from_me.finish()),
            reasons,
            also_filed,
            Arc::new(self.forwarded_by.finish()),
        ];
        self.rows = 0;
        RecordBatch::try_new(audit_schema(), columns)
    }
}
