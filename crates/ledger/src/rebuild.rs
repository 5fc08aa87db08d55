//! Assessments and their claims rebuilt from their rows, [`CHUNK`] at a
//! time: one query per table for the whole chunk (the assessment with its
//! claim and names, the claims' cues, the reasons, their evidence, the gate
//! flags), each walking the chunk's numbers in order, instead of five or six
//! lookups per assessment. On the 11,238-mail audit bench the report pass
//! made about 250,000 single-row lookups for 42,000 rows (each a statement
//! bound, stepped and reset, and its columns copied out) and took a core
//! for about three seconds.
//!
//! The statements take the chunk's numbers as [`CHUNK`] parameters (unused
//! ones NULL, which match nothing), so each is prepared once per connection.
//! Names (a few hundred: statuses, methods, rules, facets...) and evidence
//! revisions (one per cited item revision) are looked up by number in a
//! cache the connection keeps, not joined into every row: rows never change
//! the name or revision a number stands for (both are append-only), and the
//! cache is dropped with the numbers a rolled-back batch handed out.

use crate::read::{digest_of, from_name, read_back, span_of};
use crate::{Ledger, QuoteSource, Result};
use amem_records::{
    AmemUri, Assessment, Claim, ClaimId, ClaimKind, Cue, CueClass, Evidence, GateFlag, GateSummary, GateVerdict, MessageId, Reason, Status,
};
use rusqlite::{OptionalExtension, ToSql};
use std::collections::HashMap;

/// Assessments rebuilt per query round. Large enough that the statements'
/// own cost vanishes, small enough that a chunk's rows are a few MB.
pub(crate) const CHUNK: usize = 256;

/// Names and evidence revisions by number, as read so far.
#[derive(Debug, Default)]
pub(crate) struct ReadCache {
    names: HashMap<i64, String>,
    revisions: HashMap<i64, Revision>,
    /// Reason texts and gate sentences by number: on the x1 audit bench
    /// 173,000 reasons have 21,000 distinct texts, and joining `texts`
    /// into every reason row was a lookup per row.
    texts: HashMap<i64, String>,
}

/// Texts remembered at most; past this the cache starts afresh.
const TEXTS_KEPT: usize = 50_000;

/// An evidence item revision's row.
#[derive(Clone, Debug)]
struct Revision {
    item_digest: amem_records::Digest,
    item: String,
    captured_at: Option<String>,
    source_url: Option<String>,
    title: Option<String>,
}

/// Revisions remembered at most; past this the cache starts afresh.
const REVISIONS_KEPT: usize = 50_000;

/// An assessment and its claim, being put together.
struct Parts {
    claim: Claim,
    assessment: Assessment,
}

/// `?1, ?2, ..., ?n`.
fn placeholders(n: usize) -> String {
    (1..=n).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ")
}

impl Ledger {
    /// The name with number `id`.
    fn name(&self, id: i64) -> Result<String> {
        if let Some(n) = self.ids.read.borrow().names.get(&id) {
            return Ok(n.clone());
        }
        let name: Option<String> = self
            .conn
            .prepare_cached("SELECT name FROM names WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
            .map_err(self.err("reading a name"))?;
        let name = name.ok_or_else(|| self.corrupt("names", &id.to_string(), "a row refers to a name that is not recorded"))?;
        self.ids.read.borrow_mut().names.insert(id, name.clone());
        Ok(name)
    }

    /// The text with number `id` (a reason's or a gate flag's).
    fn text(&self, id: i64) -> Result<String> {
        if let Some(t) = self.ids.read.borrow().texts.get(&id) {
            return Ok(t.clone());
        }
        let text: Option<String> = self
            .conn
            .prepare_cached("SELECT text FROM texts WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
            .map_err(self.err("reading a text"))?;
        let text = text.ok_or_else(|| self.corrupt("texts", &id.to_string(), "a row refers to a text that is not recorded"))?;
        let mut cache = self.ids.read.borrow_mut();
        if cache.texts.len() >= TEXTS_KEPT {
            cache.texts.clear();
        }
        cache.texts.insert(id, text.clone());
        Ok(text)
    }

    /// The evidence revision with number `rev`.
    fn revision(&self, rev: i64) -> Result<Revision> {
        if let Some(r) = self.ids.read.borrow().revisions.get(&rev) {
            return Ok(r.clone());
        }
        type Row = (Vec<u8>, String, Option<String>, Option<String>, Option<String>);
        let row: Option<Row> = self
            .conn
            .prepare_cached("SELECT item_digest, item, captured_at, source_url, title FROM evidence_revisions WHERE rev = ?1")
            .and_then(|mut s| s.query_row([rev], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).optional())
            .map_err(self.err("reading an evidence revision"))?;
        let key = rev.to_string();
        let (digest, item, captured_at, source_url, title) =
            row.ok_or_else(|| self.corrupt("evidence_revisions", &key, "evidence cites a revision that is not recorded"))?;
        let item_digest = digest_of(&digest).ok_or_else(|| self.corrupt("evidence_revisions", &key, "item_digest is not 32 bytes"))?;
        let r = Revision { item_digest, item, captured_at, source_url, title };
        let mut cache = self.ids.read.borrow_mut();
        if cache.revisions.len() >= REVISIONS_KEPT {
            cache.revisions.clear();
        }
        cache.revisions.insert(rev, r.clone());
        Ok(r)
    }

    /// Assessment `seq`, rebuilt from its row, its reasons, their evidence
    /// (quotes read back through `quotes`) and its gate flags.
    pub(crate) fn assessment_at(&self, seq: i64, quotes: &dyn QuoteSource) -> Result<Assessment> {
        let mut got = self.rebuild(&[seq], quotes)?;
        got.remove(&seq).map(|(_, a)| a).ok_or_else(|| self.corrupt("assessments", &seq.to_string(), "no such assessment"))
    }

    /// Assessments `seqs` (at most [`CHUNK`], each once) with their claims
    /// (row and cues), rebuilt as one chunk. A number with no assessment
    /// row is missing from the map.
    pub(crate) fn rebuild(&self, seqs: &[i64], quotes: &dyn QuoteSource) -> Result<HashMap<i64, (Claim, Assessment)>> {
        // One statement shape per width: a single lookup and full chunks.
        let width = if seqs.len() <= 1 { 1 } else { CHUNK };
        debug_assert!(seqs.len() <= CHUNK, "a chunk holds at most CHUNK assessments");
        let mut bound: Vec<Option<i64>> = seqs.iter().copied().map(Some).collect();
        bound.resize(width.max(seqs.len()), None);
        let args: Vec<&dyn ToSql> = bound.iter().map(|v| v as &dyn ToSql).collect();
        let list = placeholders(args.len());
        let mut parts = self.heads(&list, &args)?;
        self.cues_into(&list, &args, &mut parts)?;
        self.reasons_into(&list, &args, &mut parts)?;
        self.evidence_into(&list, &args, &mut parts, quotes)?;
        self.flags_into(&list, &args, &mut parts)?;
        Ok(parts.into_iter().map(|(seq, p)| (seq, (p.claim, p.assessment))).collect())
    }

    /// The assessments' own rows, their claims' rows and the names they use.
    fn heads(&self, list: &str, args: &[&dyn ToSql]) -> Result<HashMap<i64, Parts>> {
        let action = "reading an assessment";
        let sql = format!(
            "SELECT a.seq, a.claim, a.status, a.method, a.policy, a.assessed_at, a.gate,
                    c.claim_id, m.message_id, m.digest, c.span_start, c.span_end, c.kind, t.text, c.extractor
             FROM assessments a JOIN claims c ON c.claim = a.claim JOIN messages_seen m ON m.msg = c.msg JOIN texts t ON t.id = c.text
             WHERE a.seq IN ({list})"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(self.err(action))?;
        let mut rows = st.query(args).map_err(self.err(action))?;
        let mut out = HashMap::with_capacity(args.len());
        while let Some(r) = rows.next().map_err(self.err(action))? {
            type Row = (i64, i64, i64, i64, i64, i64, Option<i64>);
            let head =
                (|| -> rusqlite::Result<Row> { Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)) })()
                    .map_err(self.err(action))?;
            let (seq, claim_no, status, method, policy, assessed_at, gate) = head;
            type ClaimRow = (Option<Vec<u8>>, String, Vec<u8>, i64, i64, i64, String, i64);
            let claim_row = (|| -> rusqlite::Result<ClaimRow> {
                Ok((r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?, r.get(11)?, r.get(12)?, r.get(13)?, r.get(14)?))
            })()
            .map_err(self.err("reading a claim"))?;
            let (stored_id, message_id, digest, start, end, kind, text, extractor) = claim_row;
            let (status, method, policy, assessed_at) =
                (self.name(status)?, self.name(method)?, self.name(policy)?, self.name(assessed_at)?);
            let gate = gate.map(|g| self.name(g)).transpose()?;
            let (kind, extractor) = (self.name(kind)?, self.name(extractor)?);
            let key = seq.to_string();
            let claim_key = claim_no.to_string();
            let message_digest = digest_of(&digest).ok_or_else(|| self.corrupt("messages_seen", &claim_key, "digest is not 32 bytes"))?;
            let span = span_of(start, end);
            let id = match stored_id {
                Some(b) => ClaimId(digest_of(&b).ok_or_else(|| self.corrupt("claims", &claim_key, "claim_id is not 32 bytes"))?),
                None => Claim::id_for(&message_digest, span, &text),
            };
            let kind: ClaimKind =
                from_name(&kind).ok_or_else(|| self.corrupt("claims", &claim_key, format!("unknown claim kind {kind:?}")))?;
            let status = Status::parse(&status).ok_or_else(|| self.corrupt("assessments", &key, format!("unknown status {status:?}")))?;
            let gate = match gate {
                None => None,
                Some(v) => Some(GateSummary {
                    verdict: from_name::<GateVerdict>(&v)
                        .ok_or_else(|| self.corrupt("assessments", &key, format!("unknown gate verdict {v:?}")))?,
                    flags: Vec::new(),
                }),
            };
            let claim = Claim { id, message: MessageId(message_id), message_digest, span, text, kind, cues: Vec::new(), extractor };
            let assessment = Assessment { claim: id, status, method, reasons: Vec::new(), gate, assessed_at, policy_version: policy };
            out.insert(seq, Parts { claim, assessment });
        }
        Ok(out)
    }

    fn cues_into(&self, list: &str, args: &[&dyn ToSql], parts: &mut HashMap<i64, Parts>) -> Result<()> {
        let action = "reading a claim";
        let sql = format!(
            "SELECT a.seq, a.claim, q.class, q.text, q.span_start, q.span_end, q.rule
             FROM assessments a JOIN claim_cues q ON q.claim = a.claim
             WHERE a.seq IN ({list}) ORDER BY a.seq, q.ord"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(self.err(action))?;
        let mut rows = st.query(args).map_err(self.err(action))?;
        while let Some(r) = rows.next().map_err(self.err(action))? {
            type Row = (i64, i64, String, Option<String>, i64, i64, i64);
            let row = (|| -> rusqlite::Result<Row> { Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)) })()
                .map_err(self.err(action))?;
            let (seq, claim_no, class, cue_text, s, e, rule) = row;
            let Some(p) = parts.get_mut(&seq) else { continue };
            let key = claim_no.to_string();
            let class: CueClass =
                from_name(&class).ok_or_else(|| self.corrupt("claim_cues", &key, format!("unknown cue class {class:?}")))?;
            let span = span_of(s, e);
            let cue_text = match cue_text {
                Some(t) => t,
                None => p
                    .claim
                    .text
                    .get(span.start..span.end)
                    .ok_or_else(|| self.corrupt("claim_cues", &key, "the cue's span is not inside the claim text"))?
                    .to_string(),
            };
            p.claim.cues.push(Cue { class, text: cue_text, span, rule: self.name(rule)? });
        }
        Ok(())
    }

    fn reasons_into(&self, list: &str, args: &[&dyn ToSql], parts: &mut HashMap<i64, Parts>) -> Result<()> {
        let action = "reading an assessment";
        let sql = format!(
            "SELECT x.seq, x.facet, x.rule, x.detail, x.claim_start, x.claim_end FROM assessment_reasons x
             WHERE x.seq IN ({list}) ORDER BY x.seq, x.ord"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(self.err(action))?;
        let mut rows = st.query(args).map_err(self.err(action))?;
        while let Some(r) = rows.next().map_err(self.err(action))? {
            type Row = (i64, i64, i64, i64, Option<i64>, Option<i64>);
            let row = (|| -> rusqlite::Result<Row> { Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)) })()
                .map_err(self.err(action))?;
            let (seq, facet, rule, detail, s, e) = row;
            let Some(p) = parts.get_mut(&seq) else { continue };
            let claim_span = match (s, e) {
                (Some(s), Some(e)) => Some(span_of(s, e)),
                _ => None,
            };
            let (facet, rule, detail) = (self.name(facet)?, self.name(rule)?, self.text(detail)?);
            p.assessment.reasons.push(Reason { facet, detail, claim_span, evidence: Vec::new(), rule });
        }
        Ok(())
    }

    fn evidence_into(&self, list: &str, args: &[&dyn ToSql], parts: &mut HashMap<i64, Parts>, quotes: &dyn QuoteSource) -> Result<()> {
        let action = "reading an assessment";
        let sql = format!(
            "SELECT e.seq, e.reason, e.chunk, e.span_start, e.span_end, e.quote_check, e.quote, e.rev
             FROM assessment_evidence e
             WHERE e.seq IN ({list}) ORDER BY e.seq, e.reason, e.ord"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(self.err(action))?;
        let mut rows = st.query(args).map_err(self.err(action))?;
        while let Some(r) = rows.next().map_err(self.err(action))? {
            type Row = (i64, i64, Option<i64>, i64, i64, i64, Option<String>, i64);
            let row = (|| -> rusqlite::Result<Row> {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?))
            })()
            .map_err(self.err(action))?;
            let (seq, reason, chunk, s, e, check, inline, rev) = row;
            let Some(p) = parts.get_mut(&seq) else { continue };
            let key = seq.to_string();
            let Revision { item_digest, item, captured_at, source_url, title } = self.revision(rev)?;
            let uri = AmemUri { item, chunk: chunk.and_then(|c| u32::try_from(c).ok()) };
            let span = span_of(s, e);
            let quote = match inline {
                Some(q) => q,
                None => read_back(quotes, &uri, &item_digest, span, check),
            };
            let target = usize::try_from(reason)
                .ok()
                .and_then(|i| p.assessment.reasons.get_mut(i))
                .ok_or_else(|| self.corrupt("assessment_evidence", &key, format!("cites reason {reason}, which is not recorded")))?;
            target.evidence.push(Evidence { uri, quote, span, item_digest, captured_at, written_at: None, source_url, title });
        }
        Ok(())
    }

    fn flags_into(&self, list: &str, args: &[&dyn ToSql], parts: &mut HashMap<i64, Parts>) -> Result<()> {
        let action = "reading an assessment";
        let sql = format!(
            "SELECT g.seq, g.flag_check, g.rule, g.cue, g.source_start, g.source_end, g.source_sentence, g.memory_sentence
             FROM gate_flags g
             WHERE g.seq IN ({list}) ORDER BY g.seq, g.ord"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(self.err(action))?;
        let mut rows = st.query(args).map_err(self.err(action))?;
        while let Some(r) = rows.next().map_err(self.err(action))? {
            type Row = (i64, i64, i64, String, i64, i64, i64, i64);
            let row = (|| -> rusqlite::Result<Row> {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?))
            })()
            .map_err(self.err(action))?;
            let (seq, check, rule, cue, s, e, source_sentence, memory_sentence) = row;
            // Flags count only under a gate verdict (as they were written).
            let Some(g) = parts.get_mut(&seq).and_then(|p| p.assessment.gate.as_mut()) else { continue };
            let (check, rule) = (self.name(check)?, self.name(rule)?);
            let (source_sentence, memory_sentence) = (self.text(source_sentence)?, self.text(memory_sentence)?);
            g.flags.push(GateFlag { check, rule, cue, source_span: span_of(s, e), source_sentence, memory_sentence });
        }
        Ok(())
    }
}
