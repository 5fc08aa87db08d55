//! Writing: runs, the buffered batches of message outcomes, assessments
//! appended later (a person's reassessment, `stale` marks), skips.
//!
//! Every write of a batch happens inside one transaction; the numbers the
//! ledger hands out inside it (names, runs, revisions) are remembered only
//! once it commits (a rollback forgets them all, see [`Ledger::rollback`]).

use crate::{Error, Ids, Ledger, NoQuotes, Pending, QUOTE_UNAVAILABLE, Recorded, Result, STALE_METHOD, encode};
use amem_records::{
    Assessment, Claim, ClaimId, Digest, Evidence, Message, Reason, RunId, RunInfo, RunSummary, Skipped, Status, cited_evidence,
};
use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};
use std::time::Instant;

/// The check digest kept with a quote kept by reference: the first 8 bytes
/// of its SHA-256, as SQLite's signed integer. A quote read back is shown
/// only when its text has this digest.
pub(crate) fn quote_check(quote: &str) -> i64 {
    key_of(&Digest::of(quote.as_bytes()))
}

/// Texts whose numbers [`Ledger::text_id`] remembers (by SHA-256) at most:
/// about 80,000 on the x1 audit bench; 50,000 keep the recent ones (a text
/// not remembered costs one insert that finds its key taken) in under 3 MB.
const TEXTS_REMEMBERED: usize = 50_000;

/// Rows written by one multi-row `INSERT` at most (see [`Ledger::insert_reasons`]).
const ROWS_PER_INSERT: usize = 16;

/// `INSERT INTO table (columns) VALUES (?, ...), ...` for 1 to [`ROWS_PER_INSERT`] rows.
fn multi_row_inserts(table: &str, columns: &[&str]) -> Vec<String> {
    let one = format!("({})", vec!["?"; columns.len()].join(", "));
    (1..=ROWS_PER_INSERT)
        .map(|n| format!("INSERT INTO {table} ({}) VALUES {}", columns.join(", "), vec![one.as_str(); n].join(", ")))
        .collect()
}

static REASON_INSERTS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    multi_row_inserts("assessment_reasons", &["seq", "ord", "facet", "rule", "detail", "claim_start", "claim_end"])
});

static EVIDENCE_INSERTS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    multi_row_inserts("assessment_evidence", &["seq", "reason", "ord", "rev", "chunk", "span_start", "span_end", "quote_check", "quote"])
});

/// One `assessment_reasons` row, its names and text numbered.
struct ReasonRow {
    ord: i64,
    facet: i64,
    rule: i64,
    detail: i64,
    claim_start: Option<i64>,
    claim_end: Option<i64>,
}

/// One `assessment_evidence` row.
struct EvidenceRow<'a> {
    reason: i64,
    ord: i64,
    rev: i64,
    chunk: Option<i64>,
    span: amem_records::Span,
    check: i64,
    quote: Option<&'a str>,
}

/// Appends one length-prefixed field to a content buffer.
fn field(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    buf.extend_from_slice(bytes);
}

/// [`field`] of a value's `Display` text, written in place (the content
/// digest of an assessment cites every evidence URI; a `String` per URI was
/// a measurable part of recording).
fn field_shown(buf: &mut Vec<u8>, v: &dyn std::fmt::Display) {
    use std::io::Write;
    let at = buf.len();
    buf.extend_from_slice(&[0; 8]);
    // Writing into a Vec cannot fail.
    let _ = write!(buf, "{v}");
    let n = (buf.len() - at - 8) as u64;
    buf[at..at + 8].copy_from_slice(&n.to_le_bytes());
}

fn opt_field(buf: &mut Vec<u8>, v: Option<&str>) {
    match v {
        Some(s) => {
            buf.push(1);
            field(buf, s.as_bytes());
        }
        None => buf.push(0),
    }
}

/// The first 8 bytes of a digest, as SQLite's signed integer.
pub(crate) fn key_of(d: &Digest) -> i64 {
    // The same bits, reinterpreted as signed.
    d.prefix_u64() as i64
}

/// An assessment's identity within its run and claim: 8 bytes of a digest
/// over every field, so the same observation recorded twice (a restarted
/// run) is one row and a different verdict is a new one.
fn content_digest(a: &Assessment) -> i64 {
    let mut buf = Vec::with_capacity(512);
    field(&mut buf, &a.claim.0.0);
    field(&mut buf, a.status.as_str().as_bytes());
    field(&mut buf, a.method.as_bytes());
    field(&mut buf, a.policy_version.as_bytes());
    field(&mut buf, a.assessed_at.as_bytes());
    field(&mut buf, &(a.reasons.len() as u64).to_le_bytes());
    for r in &a.reasons {
        field(&mut buf, r.facet.as_bytes());
        field(&mut buf, r.rule.as_bytes());
        field(&mut buf, r.detail.as_bytes());
        match r.claim_span {
            Some(s) => field(&mut buf, &[(s.start as u64).to_le_bytes(), (s.end as u64).to_le_bytes()].concat()),
            None => buf.push(0),
        }
        field(&mut buf, &(r.evidence.len() as u64).to_le_bytes());
        for e in &r.evidence {
            field(&mut buf, &e.item_digest.0);
            field_shown(&mut buf, &e.uri);
            field(&mut buf, &[(e.span.start as u64).to_le_bytes(), (e.span.end as u64).to_le_bytes()].concat());
            field(&mut buf, e.quote.as_bytes());
            opt_field(&mut buf, e.captured_at.as_deref());
            opt_field(&mut buf, e.source_url.as_deref());
            opt_field(&mut buf, e.title.as_deref());
        }
    }
    match &a.gate {
        Some(g) => {
            field(&mut buf, g.verdict.as_str().as_bytes());
            field(&mut buf, &(g.flags.len() as u64).to_le_bytes());
            for f in &g.flags {
                for s in [&f.check, &f.source_sentence, &f.cue, &f.memory_sentence, &f.rule] {
                    field(&mut buf, s.as_bytes());
                }
                field(&mut buf, &[(f.source_span.start as u64).to_le_bytes(), (f.source_span.end as u64).to_le_bytes()].concat());
            }
        }
        None => buf.push(0),
    }
    key_of(&Digest::of(&buf))
}

impl Ledger {
    /// Run `f` in one `BEGIN IMMEDIATE` transaction: committed when it
    /// returns `Ok`, rolled back (and the remembered numbers forgotten) when not.
    fn in_tx<T>(&mut self, what: &str, f: impl FnOnce(&mut Ledger) -> Result<T>) -> Result<T> {
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(self.err(&format!("starting {what}")))?;
        match f(self) {
            Ok(v) => match self.conn.execute_batch("COMMIT").map_err(self.err(&format!("committing {what}"))) {
                Ok(()) => Ok(v),
                Err(e) => {
                    self.rollback();
                    Err(e)
                }
            },
            Err(e) => {
                self.rollback();
                Err(e)
            }
        }
    }

    /// Roll back the open transaction and forget every number handed out
    /// since the last commit (they may belong to rows that are now gone).
    pub(crate) fn rollback(&mut self) {
        let _ = self.conn.execute_batch("ROLLBACK");
        self.ids = Ids::default();
    }

    /// Write the buffered batch in one transaction. `record` and
    /// `finish_run` call this themselves; call it before reading what was
    /// just recorded (queries see only written data) or to make progress
    /// durable at a point of your choosing. Returns what was new.
    ///
    /// # Errors
    /// SQLite fails; the whole batch is then rolled back (and dropped), so
    /// none of its messages count as assessed.
    pub fn flush(&mut self) -> Result<Recorded> {
        self.buffered.clear();
        self.buffer_since = None;
        if self.buffer.is_empty() {
            return Ok(Recorded::default());
        }
        let batch = std::mem::take(&mut self.buffer);
        let rec = self.in_tx("a batch", |l| l.write_batch(&batch))?;
        self.limit_wal();
        Ok(rec)
    }

    /// Keep the write-ahead log from growing with the run. SQLite's automatic
    /// checkpoints copy the log back into the file but only restart it when
    /// no reader is using it, and an audit's workers read the ledger and the
    /// index all the time: on the 112k-message bench the log had grown to
    /// 800 MB beside a 1.3 GB ledger. Past [`crate::LedgerOptions::wal_limit`] bytes a truncating
    /// checkpoint waits (up to the busy timeout) for the readers' current
    /// reads to end, then empties the log. Best effort: when the readers do
    /// not let go in time it is tried again after the next batch.
    fn limit_wal(&self) {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        if std::fs::metadata(&wal).is_ok_and(|m| m.len() > self.opts.wal_limit) {
            let _ = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }

    fn write_batch(&mut self, batch: &[Pending]) -> Result<Recorded> {
        let mut total = Recorded::default();
        for p in batch {
            match p {
                Pending::Outcome { run, policy, digest, message, claims, assessments, skipped } => {
                    let r = self.write_outcome(run, policy, digest, message, claims, assessments, skipped)?;
                    total.messages += r.messages;
                    total.claims += r.claims;
                    total.assessments += r.assessments;
                }
                Pending::Skipped { run, skipped } => {
                    let run_no = self.run_no(run)?;
                    self.insert_skipped(run_no, skipped)?;
                }
                Pending::Copy { run, original, archive, locator } => {
                    let run_no = self.run_no(run)?;
                    let archive = self.name_id(archive)?;
                    self.conn
                        .prepare_cached(
                            "INSERT INTO message_copies (run_no, original, archive, locator) VALUES (?1, ?2, ?3, ?4)
                             ON CONFLICT DO NOTHING",
                        )
                        .and_then(|mut s| s.execute(params![run_no, original.0.as_slice(), archive, locator]))
                        .map_err(self.err("recording a copy of a message"))?;
                }
            }
        }
        Ok(total)
    }

    /// The number of a name (method, rule, facet, policy, archive path...),
    /// added to `names` the first time.
    pub(crate) fn name_id(&mut self, name: &str) -> Result<i64> {
        if let Some(&id) = self.ids.names.get(name) {
            return Ok(id);
        }
        let action = "recording a name";
        let found: Option<i64> = self
            .conn
            .prepare_cached("SELECT id FROM names WHERE name = ?1")
            .and_then(|mut s| s.query_row([name], |r| r.get(0)).optional())
            .map_err(self.err(action))?;
        let id = match found {
            Some(id) => id,
            None => {
                self.conn
                    .prepare_cached("INSERT INTO names (name) VALUES (?1)")
                    .and_then(|mut s| s.execute([name]))
                    .map_err(self.err(action))?;
                self.conn.last_insert_rowid()
            }
        };
        self.ids.names.insert(name.to_string(), id);
        Ok(id)
    }

    /// The number of a text (claim text, reason text, gate sentence) in
    /// `texts`, added the first time: texts that repeat (the same claim in
    /// many mails, the same reason wording) are stored once. Found by the
    /// first 8 bytes of its SHA-256; a different text under the same key
    /// (a collision) takes the next free key.
    ///
    /// The texts this connection recorded or found are remembered by their
    /// whole SHA-256, so a repeat costs a digest, not a query; a text not
    /// remembered is inserted first and looked up only when its key is
    /// taken (on a new ledger nearly every text is new: the lookup before
    /// the insert was half the statements interning made).
    pub(crate) fn text_id(&mut self, text: &str) -> Result<i64> {
        let digest = Digest::of(text.as_bytes());
        if let Some(&id) = self.ids.texts.get(&digest) {
            return Ok(id);
        }
        let action = "recording a text";
        let mut key = key_of(&digest);
        let id = loop {
            let added = self
                .conn
                .prepare_cached("INSERT INTO texts (key, text) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING")
                .and_then(|mut s| s.execute(params![key, text]))
                .map_err(self.err(action))?;
            if added == 1 {
                break self.conn.last_insert_rowid();
            }
            let (id, stored): (i64, String) = self
                .conn
                .prepare_cached("SELECT id, text FROM texts WHERE key = ?1")
                .and_then(|mut s| s.query_row([key], |r| Ok((r.get(0)?, r.get(1)?))))
                .map_err(self.err(action))?;
            if stored == text {
                break id;
            }
            key = key.wrapping_add(1);
        };
        // Bounded (a few MB): past this the memory starts afresh, and a text
        // seen before is found by its key again.
        if self.ids.texts.len() >= TEXTS_REMEMBERED {
            self.ids.texts.clear();
        }
        self.ids.texts.insert(digest, id);
        Ok(id)
    }

    /// The number of a recorded run, if it is recorded.
    pub(crate) fn run_no_of(&mut self, run: &str) -> Result<Option<i64>> {
        if let Some(&n) = self.ids.runs.get(run) {
            return Ok(Some(n));
        }
        let n: Option<i64> = self
            .conn
            .prepare_cached("SELECT run_no FROM runs WHERE run_id = ?1")
            .and_then(|mut s| s.query_row([run], |r| r.get(0)).optional())
            .map_err(self.err("looking up a run"))?;
        if let Some(n) = n {
            self.ids.runs.insert(run.to_string(), n);
        }
        Ok(n)
    }

    /// The number of a run `begin_run` recorded.
    fn run_no(&mut self, run: &RunId) -> Result<i64> {
        self.run_no_of(&run.0)?.ok_or_else(|| Error::UnknownRun(run.0.clone()))
    }

    /// The number of a run named by schema 3's rows; a run they name that
    /// has no row of its own (hand-written ledgers) gets an empty one.
    pub(crate) fn run_no_or_insert(&mut self, run: &str) -> Result<i64> {
        if let Some(n) = self.run_no_of(run)? {
            return Ok(n);
        }
        self.conn
            .execute("INSERT INTO runs (run_id, started_at, policy_version, info_json) VALUES (?1, '', '', '')", [run])
            .map_err(self.err("recording a run named by schema 3's rows"))?;
        let n = self.conn.last_insert_rowid();
        self.ids.runs.insert(run.to_string(), n);
        Ok(n)
    }

    /// The number of a message revision, if it is recorded.
    pub(crate) fn msg_of(&self, digest: &Digest) -> Result<Option<i64>> {
        self.conn
            .prepare_cached("SELECT msg FROM messages_seen WHERE digest = ?1")
            .and_then(|mut s| s.query_row([digest.0.as_slice()], |r| r.get(0)).optional())
            .map_err(self.err("looking up a message"))
    }

    /// A message known by its digest only (schema 3 rows without their message).
    pub(crate) fn insert_bare_message(&mut self, digest: &Digest) -> Result<i64> {
        let archive = self.name_id("")?;
        self.conn
            .execute(
                "INSERT INTO messages_seen (digest, source, archive, conversation, message_id, locator, author, sent_at)
                 VALUES (?1, '', ?2, '', '', '', '', '')",
                params![digest.0.as_slice(), archive],
            )
            .map_err(self.err("recording a message known by digest only"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The number of a recorded claim of a message: found by the first 8
    /// bytes of its id, and checked against the whole id where the row
    /// can give it (a claim kept without its text cannot).
    pub(crate) fn claim_of(&self, message_digest: &Digest, claim: &ClaimId) -> Result<Option<i64>> {
        type Row = (i64, i64, i64, Option<String>, Option<Vec<u8>>);
        let row: Option<Row> = self
            .conn
            .prepare_cached(
                "SELECT c.claim, c.span_start, c.span_end, t.text, c.claim_id FROM claims c JOIN messages_seen m ON m.msg = c.msg
                 JOIN texts t ON t.id = c.text WHERE m.digest = ?1 AND c.id_key = ?2",
            )
            .and_then(|mut s| {
                s.query_row(params![message_digest.0.as_slice(), key_of(&claim.0)], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .optional()
            })
            .map_err(self.err("looking up a claim"))?;
        Ok(row.and_then(|(n, start, end, text, stored)| {
            let same = match (stored, text) {
                (Some(id), _) => id == claim.0.0,
                (None, Some(text)) => Claim::id_for(message_digest, crate::read::span_of(start, end), &text) == *claim,
                (None, None) => true,
            };
            same.then_some(n)
        }))
    }

    /// The number of an evidence item revision, added the first time.
    fn revision_id(&mut self, e: &Evidence) -> Result<i64> {
        // Keyed by digest, then item: a lookup copies nothing.
        if let Some(&(_, id)) = self.ids.revisions.get(&e.item_digest).and_then(|items| items.iter().find(|(item, _)| *item == e.uri.item))
        {
            return Ok(id);
        }
        let action = "recording an evidence revision";
        self.conn
            .prepare_cached(
                "INSERT OR IGNORE INTO evidence_revisions (item_digest, item, captured_at, source_url, title) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| s.execute(params![e.item_digest.0.as_slice(), e.uri.item, e.captured_at, e.source_url, e.title]))
            .map_err(self.err(action))?;
        let id: i64 = self
            .conn
            .prepare_cached("SELECT rev FROM evidence_revisions WHERE item_digest = ?1 AND item = ?2")
            .and_then(|mut s| s.query_row(params![e.item_digest.0.as_slice(), e.uri.item], |r| r.get(0)))
            .map_err(self.err(action))?;
        self.ids.revisions.entry(e.item_digest).or_default().push((e.uri.item.clone(), id));
        Ok(id)
    }

    /// Record the start of a run and make it the run that [`Ledger::record`]
    /// writes under. Beginning the same run id again (a restarted run) keeps
    /// the first row.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn begin_run(&mut self, run: &RunInfo) -> Result<()> {
        let info = encode("the run info", run)?;
        self.flush()?;
        self.conn
            .execute(
                "INSERT OR IGNORE INTO runs (run_id, started_at, policy_version, info_json) VALUES (?1, ?2, ?3, ?4)",
                params![run.run_id.0, run.started_at.to_string(), run.params.policy_version, info],
            )
            .map_err(self.err("recording the run"))?;
        self.run = Some((run.run_id.clone(), run.params.policy_version.clone()));
        Ok(())
    }

    fn push(&mut self, p: Pending) -> Result<()> {
        if let Pending::Outcome { digest, .. } = &p {
            self.buffered.insert(*digest);
        }
        self.buffer.push(p);
        let since = *self.buffer_since.get_or_insert_with(Instant::now);
        let messages = self.buffered.len();
        if messages >= self.opts.batch_messages.max(1)
            || self.buffer.len() >= 4 * self.opts.batch_messages.max(1)
            || since.elapsed() >= self.opts.max_batch_age
        {
            self.flush()?;
        }
        Ok(())
    }

    /// Record one message with its claims, assessments and skips, and mark
    /// it assessed under the current run's policy version. All of it is
    /// written in the same transaction (never half a message), in batches
    /// of [`crate::LedgerOptions::batch_messages`]. Idempotent: recording the same
    /// outcome again adds nothing.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; a batch write
    /// that fails (see [`Ledger::flush`]).
    pub fn record(&mut self, outcome: &crate::MessageOutcome<'_>) -> Result<()> {
        let digest = outcome.message.digest();
        self.record_owned(
            Box::new(outcome.message.clone()),
            digest,
            outcome.claims.to_vec(),
            outcome.assessments.to_vec(),
            outcome.skipped.to_vec(),
        )
    }

    /// [`Ledger::record`], taking the outcome instead of copying it into
    /// the batch (the pipeline's recording thread owns each message's
    /// outcome once it is assessed), with the message's [`Message::digest`]
    /// as the caller computed it (the pipeline has it from asking
    /// [`Ledger::is_assessed`]; computing it serialises the whole message).
    ///
    /// # Errors
    /// As [`Ledger::record`].
    pub fn record_owned(
        &mut self,
        message: Box<Message>,
        digest: Digest,
        claims: Vec<Claim>,
        assessments: Vec<Assessment>,
        skipped: Vec<Skipped>,
    ) -> Result<()> {
        debug_assert_eq!(digest, message.digest(), "record_owned takes the message's own digest");
        let (run, policy) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.push(Pending::Outcome { run, policy, digest, message, claims, assessments, skipped })
    }

    #[allow(clippy::too_many_arguments)]
    fn write_outcome(
        &mut self,
        run: &RunId,
        policy: &str,
        digest: &Digest,
        m: &Message,
        claims: &[Claim],
        assessments: &[Assessment],
        skipped: &[Skipped],
    ) -> Result<Recorded> {
        let run_no = self.run_no(run)?;
        let archive = self.name_id(&m.archive)?;
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT INTO messages_seen
                 (digest, source, archive, conversation, message_id, locator, author, sent_at, subject, first_run, forwarded_by)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (digest) DO NOTHING",
            )
            .and_then(|mut s| {
                s.execute(params![
                    digest.0.as_slice(),
                    m.source.as_str(),
                    archive,
                    m.conversation,
                    m.id.0,
                    m.locator,
                    m.author,
                    m.sent_at.to_string(),
                    m.subject,
                    run_no,
                    m.meta.get(amem_records::FORWARDED_BY)
                ])
            })
            .map_err(self.err("recording a message"))? as u64;
        let msg = if inserted == 1 {
            self.conn.last_insert_rowid()
        } else {
            self.msg_of(digest)?.ok_or_else(|| self.corrupt("messages_seen", &digest.to_hex(), "the row vanished while recording"))?
        };
        // The first message under a key keeps it: a copy read later points
        // at the message that was audited. Written on every recording, not
        // only the first, so a message recorded before schema 5 gets its
        // keys when it is assessed again.
        for key in m.copy_keys().iter() {
            self.conn
                .prepare_cached("INSERT INTO message_keys (key, msg) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING")
                .and_then(|mut s| s.execute(params![key.0.as_slice(), msg]))
                .map_err(self.err("recording a message's copy keys"))?;
        }
        if inserted == 1 && !m.quoted.is_empty() {
            let chars = |kind: amem_records::QuoteKind| -> i64 {
                m.quoted.iter().filter(|q| q.kind == kind).map(|q| q.text.chars().count() as i64).sum()
            };
            self.conn
                .prepare_cached("INSERT INTO message_quoted (msg, reply_chars, forward_chars) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")
                .and_then(|mut s| s.execute(params![msg, chars(amem_records::QuoteKind::Reply), chars(amem_records::QuoteKind::Forward)]))
                .map_err(self.err("recording a message's quoted text"))?;
        }
        let mut rec = Recorded { messages: inserted, ..Recorded::default() };
        // By id, not by scanning: one large mail has tens of thousands of
        // claims, and a scan per claim made recording it quadratic (a 4 MB
        // mail spent 30% of its audit here).
        let assessed: std::collections::HashSet<&ClaimId> = assessments.iter().map(|a| &a.claim).collect();
        let mut numbers: std::collections::HashMap<ClaimId, i64> = std::collections::HashMap::with_capacity(claims.len());
        let mut counted: Vec<(&'static str, u64)> = Vec::new();
        for c in claims {
            if c.kind.is_audited() || assessed.contains(&c.id) {
                let (claim, new) = self.insert_claim(msg, c)?;
                rec.claims += new;
                numbers.entry(c.id).or_insert(claim);
            } else {
                match counted.iter_mut().find(|(k, _)| *k == c.kind.as_str()) {
                    Some((_, n)) => *n += 1,
                    None => counted.push((c.kind.as_str(), 1)),
                }
            }
        }
        for (kind, n) in counted {
            rec.claims += self.count_claims(msg, kind, n)?;
        }
        for a in assessments {
            let claim = match numbers.get(&a.claim) {
                Some(n) => *n,
                None => self.claim_of(digest, &a.claim)?.ok_or_else(|| Error::UnknownClaim(a.claim.0.to_hex()))?,
            };
            rec.assessments += self.insert_assessment_at(run_no, claim, a, None, false)?;
        }
        for s in skipped {
            self.insert_skipped(run_no, s)?;
        }
        let policy = self.name_id(policy)?;
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO message_assessed (msg, policy, run_no) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![msg, policy, run_no]))
            .map_err(self.err("marking a message assessed"))?;
        Ok(rec)
    }

    /// Count `n` claims of `kind` that are never audited (greetings,
    /// opinions, ...) for message `msg`: nothing reads them back, so their
    /// rows would only be weight. Returns `n` when the count is new.
    fn count_claims(&mut self, msg: i64, kind: &str, n: u64) -> Result<u64> {
        let kind = self.name_id(kind)?;
        let action = "counting a message's claims";
        let added = self
            .conn
            .prepare_cached("INSERT OR IGNORE INTO claim_counts (msg, kind, n) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![msg, kind, n as i64]))
            .map_err(self.err(action))?;
        if added == 1 {
            return Ok(n);
        }
        // Recorded before (a re-run under another policy, a restarted run):
        // the larger count stands.
        self.conn
            .prepare_cached("UPDATE claim_counts SET n = max(n, ?3) WHERE msg = ?1 AND kind = ?2")
            .and_then(|mut s| s.execute(params![msg, kind, n as i64]))
            .map_err(self.err(action))?;
        Ok(0)
    }

    /// Record an audited (or assessed) claim of message `msg`, with its
    /// text and cues; returns its number and 1 when it was new.
    pub(crate) fn insert_claim(&mut self, msg: i64, c: &Claim) -> Result<(i64, u64)> {
        let extractor = self.name_id(&c.extractor)?;
        let kind = self.name_id(c.kind.as_str())?;
        let text = self.text_id(&c.text)?;
        // The whole id only when it cannot be computed back from the row.
        let whole = (Claim::id_for(&c.message_digest, c.span, &c.text) != c.id).then_some(c.id.0.0.as_slice());
        let n = self
            .conn
            .prepare_cached(
                "INSERT INTO claims (msg, id_key, span_start, span_end, kind, extractor, text, claim_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (msg, id_key) DO NOTHING",
            )
            .and_then(|mut s| {
                s.execute(params![msg, key_of(&c.id.0), c.span.start as i64, c.span.end as i64, kind, extractor, text, whole])
            })
            .map_err(self.err("recording a claim"))?;
        if n == 0 {
            let claim: i64 = self
                .conn
                .prepare_cached("SELECT claim FROM claims WHERE msg = ?1 AND id_key = ?2")
                .and_then(|mut s| s.query_row(params![msg, key_of(&c.id.0)], |r| r.get(0)))
                .map_err(self.err("recording a claim"))?;
            return Ok((claim, 0));
        }
        let claim = self.conn.last_insert_rowid();
        for (ord, cue) in c.cues.iter().enumerate() {
            let rule = self.name_id(&cue.rule)?;
            // The cue's text is the claim's at its span: kept only if not.
            let text = (c.text.get(cue.span.start..cue.span.end) != Some(cue.text.as_str())).then_some(cue.text.as_str());
            self.conn
                .prepare_cached(
                    "INSERT INTO claim_cues (claim, ord, class, text, span_start, span_end, rule) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .and_then(|mut s| {
                    s.execute(params![claim, ord as i64, cue.class.as_str(), text, cue.span.start as i64, cue.span.end as i64, rule])
                })
                .map_err(self.err("recording a claim's cues"))?;
        }
        Ok((claim, 1))
    }

    /// Record one assessment of claim number `claim` under run number
    /// `run_no` (at `seq` when carried over from an older schema); returns
    /// 1 when it was new. `inline_quotes` keeps every quote's text in the
    /// row (schema 3's rows: the wiki may have moved on since).
    pub(crate) fn insert_assessment_at(
        &mut self,
        run_no: i64,
        claim: i64,
        a: &Assessment,
        seq: Option<i64>,
        inline_quotes: bool,
    ) -> Result<u64> {
        let content = content_digest(a);
        let status = self.name_id(a.status.as_str())?;
        let method = self.name_id(&a.method)?;
        let policy = self.name_id(&a.policy_version)?;
        let at = self.name_id(&a.assessed_at)?;
        let gate = match &a.gate {
            Some(g) => Some(self.name_id(g.verdict.as_str())?),
            None => None,
        };
        let n = self
            .conn
            .prepare_cached(
                "INSERT INTO assessments (seq, run_no, claim, status, method, policy, assessed_at, gate, content)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (run_no, claim, content) DO NOTHING",
            )
            .and_then(|mut s| s.execute(params![seq, run_no, claim, status, method, policy, at, gate, content]))
            .map_err(self.err("recording an assessment"))?;
        if n == 0 {
            return Ok(0);
        }
        let seq = self.conn.last_insert_rowid();
        self.insert_reasons(seq, &a.reasons, inline_quotes)?;
        if let Some(g) = &a.gate {
            for (ord, f) in g.flags.iter().enumerate() {
                let check = self.name_id(&f.check)?;
                let rule = self.name_id(&f.rule)?;
                let source_sentence = self.text_id(&f.source_sentence)?;
                let memory_sentence = self.text_id(&f.memory_sentence)?;
                self.conn
                    .prepare_cached(
                        "INSERT INTO gate_flags (seq, ord, flag_check, rule, cue, source_start, source_end, source_sentence, memory_sentence)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    )
                    .and_then(|mut s| {
                        s.execute(params![
                            seq,
                            ord as i64,
                            check,
                            rule,
                            f.cue,
                            f.source_span.start as i64,
                            f.source_span.end as i64,
                            source_sentence,
                            memory_sentence
                        ])
                    })
                    .map_err(self.err("recording a gate flag"))?;
            }
        }
        Ok(1)
    }

    /// The reasons of assessment `seq` and the evidence they cite, each
    /// table written with as few statements as the rows allow (up to
    /// [`ROWS_PER_INSERT`] rows a statement): on the x1 audit bench an
    /// assessment has 2.7 reasons and 1.4 evidence rows, and a statement's
    /// own cost (fetching it from the cache, binding, stepping, resetting)
    /// was as large as its row's.
    fn insert_reasons(&mut self, seq: i64, reasons: &[Reason], inline_quotes: bool) -> Result<()> {
        let mut rows: Vec<ReasonRow> = Vec::with_capacity(reasons.len());
        let mut cited: Vec<EvidenceRow<'_>> = Vec::new();
        for (ord, r) in reasons.iter().enumerate() {
            rows.push(ReasonRow {
                ord: ord as i64,
                facet: self.name_id(&r.facet)?,
                rule: self.name_id(&r.rule)?,
                detail: self.text_id(&r.detail)?,
                claim_start: r.claim_span.map(|s| s.start as i64),
                claim_end: r.claim_span.map(|s| s.end as i64),
            });
            for (i, e) in r.evidence.iter().enumerate() {
                let rev = self.revision_id(e)?;
                // By reference unless the reference cannot give this text back.
                let (check, quote) = if e.quote == QUOTE_UNAVAILABLE {
                    (0, None)
                } else if inline_quotes || e.quote.len() != e.span.end.saturating_sub(e.span.start) {
                    (quote_check(&e.quote), Some(e.quote.as_str()))
                } else {
                    (quote_check(&e.quote), None)
                };
                cited.push(EvidenceRow {
                    reason: ord as i64,
                    ord: i as i64,
                    rev,
                    chunk: e.uri.chunk.map(i64::from),
                    span: e.span,
                    check,
                    quote,
                });
            }
        }
        for part in rows.chunks(ROWS_PER_INSERT) {
            let sql = &REASON_INSERTS[part.len() - 1];
            let mut st = self.conn.prepare_cached(sql).map_err(self.err("recording a reason"))?;
            for (k, r) in part.iter().enumerate() {
                let at = k * 7;
                self.bind(&mut st, at + 1, seq)?;
                self.bind(&mut st, at + 2, r.ord)?;
                self.bind(&mut st, at + 3, r.facet)?;
                self.bind(&mut st, at + 4, r.rule)?;
                self.bind(&mut st, at + 5, r.detail)?;
                self.bind(&mut st, at + 6, r.claim_start)?;
                self.bind(&mut st, at + 7, r.claim_end)?;
            }
            st.raw_execute().map_err(self.err("recording a reason"))?;
        }
        for part in cited.chunks(ROWS_PER_INSERT) {
            let sql = &EVIDENCE_INSERTS[part.len() - 1];
            let mut st = self.conn.prepare_cached(sql).map_err(self.err("recording an evidence reference"))?;
            for (k, e) in part.iter().enumerate() {
                let at = k * 9;
                self.bind(&mut st, at + 1, seq)?;
                self.bind(&mut st, at + 2, e.reason)?;
                self.bind(&mut st, at + 3, e.ord)?;
                self.bind(&mut st, at + 4, e.rev)?;
                self.bind(&mut st, at + 5, e.chunk)?;
                self.bind(&mut st, at + 6, e.span.start as i64)?;
                self.bind(&mut st, at + 7, e.span.end as i64)?;
                self.bind(&mut st, at + 8, e.check)?;
                self.bind(&mut st, at + 9, e.quote)?;
            }
            st.raw_execute().map_err(self.err("recording an evidence reference"))?;
        }
        Ok(())
    }

    /// Bind parameter `i` (1-based) of a statement of this connection.
    fn bind(&self, st: &mut rusqlite::CachedStatement<'_>, i: usize, v: impl rusqlite::ToSql) -> Result<()> {
        st.raw_bind_parameter(i, v).map_err(self.err("binding a value"))
    }

    fn insert_skipped(&mut self, run_no: i64, s: &Skipped) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO skipped (run_no, stage, locator, reason) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut st| st.execute(params![run_no, s.stage, s.locator, s.reason]))
            .map_err(self.err("recording a skipped record"))?;
        Ok(())
    }

    /// Record something skipped outside any message (an unreadable file, a
    /// corrupt record), with the current batch. Idempotent.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; SQLite fails.
    pub fn record_skipped(&mut self, s: &Skipped) -> Result<()> {
        let (run, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.push(Pending::Skipped { run, skipped: s.clone() })
    }

    /// Record that this run found a copy of the message whose digest is
    /// `original` (see [`Ledger::original_of`]) in `archive` at `locator`,
    /// with the current batch. The copy is not audited: the original's rows
    /// list where it was found. Idempotent.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; SQLite fails.
    pub fn record_copy(&mut self, original: Digest, archive: &str, locator: &str) -> Result<()> {
        let (run, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.push(Pending::Copy { run, original, archive: archive.to_string(), locator: locator.to_string() })
    }

    /// Commit everything and record the run's summary and end time.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; SQLite fails.
    pub fn finish_run(&mut self, summary: &RunSummary) -> Result<()> {
        let (run_id, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.flush()?;
        let json = encode("the run summary", summary)?;
        let finished = summary.finished_at.map(|t| t.to_string());
        let n = self
            .conn
            .execute("UPDATE runs SET finished_at = ?2, summary_json = ?3 WHERE run_id = ?1", params![run_id.0, finished, json])
            .map_err(self.err("finishing the run"))?;
        if n == 0 {
            return Err(Error::UnknownRun(run_id.0));
        }
        Ok(())
    }

    /// The evidence item revision with this digest changed at its source
    /// (a re-fetch came back different): add a `stale` observation for every
    /// claim whose latest assessment cites it. Earlier observations stay.
    /// Idempotent: a claim already latest-`stale` gets no second one.
    /// Returns how many observations were added. Written under the current run.
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`]; SQLite fails.
    pub fn mark_stale(&mut self, item_digest: &Digest, at: Timestamp) -> Result<u64> {
        let (run_id, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.flush()?;
        self.in_tx("marking stale", |l| l.mark_stale_in_tx(&run_id, item_digest, at))
    }

    /// Append one assessment of an already recorded claim under the current
    /// run (a person's reassessment, e.g. after capturing a source for an
    /// unverified claim). A new observation; nothing earlier changes.
    /// `message_digest` is the claim's [`Claim::message_digest`].
    ///
    /// # Errors
    /// [`Error::UnknownRun`] before [`Ledger::begin_run`];
    /// [`Error::UnknownClaim`] when the claim was never recorded; SQLite fails.
    pub fn append_assessment(&mut self, message_digest: &Digest, a: &Assessment) -> Result<u64> {
        let (run_id, _) = self.run.clone().ok_or_else(|| Error::UnknownRun("(none)".to_string()))?;
        self.flush()?;
        self.in_tx("appending an assessment", |l| {
            let run_no = l.run_no(&run_id)?;
            // A claim only counted (never audited) has no row: it cannot be
            // assessed after the fact.
            let claim = l.claim_of(message_digest, &a.claim)?.ok_or_else(|| Error::UnknownClaim(a.claim.0.to_hex()))?;
            l.insert_assessment_at(run_no, claim, a, None, false)
        })
    }

    fn mark_stale_in_tx(&mut self, run_id: &RunId, item_digest: &Digest, at: Timestamp) -> Result<u64> {
        let run_no = self.run_no(run_id)?;
        let action = "finding assessments that cite a changed item";
        let found: Vec<(i64, i64)> = {
            let mut st = self
                .conn
                .prepare_cached(
                    "SELECT DISTINCT a.seq, a.claim FROM evidence_revisions v
                     JOIN assessment_evidence e ON e.rev = v.rev
                     JOIN assessments a ON a.seq = e.seq
                     JOIN names st ON st.id = a.status
                     WHERE v.item_digest = ?1 AND st.name <> 'stale'
                       AND a.seq = (SELECT max(seq) FROM assessments b WHERE b.claim = a.claim)
                     ORDER BY a.seq",
                )
                .map_err(self.err(action))?;
            let rows = st.query_map([item_digest.0.as_slice()], |r| Ok((r.get(0)?, r.get(1)?))).map_err(self.err(action))?;
            rows.collect::<rusqlite::Result<_>>().map_err(self.err(action))?
        };
        let mut added = 0;
        for (seq, claim) in found {
            // Read without quotes: the cited text is what changed, so its
            // quote reads back as unavailable (or as kept inline).
            let prev = self.assessment_at(seq, &NoQuotes)?;
            let evidence: Vec<_> = cited_evidence(&prev).into_iter().filter(|e| e.item_digest == *item_digest).collect();
            let stale = Assessment {
                claim: prev.claim,
                status: Status::Stale,
                method: STALE_METHOD.to_string(),
                reasons: vec![Reason {
                    facet: "freshness".to_string(),
                    detail: format!(
                        "the source of evidence revision {} changed after the claim was assessed {} by {}",
                        item_digest.short(12),
                        prev.status.as_str(),
                        prev.method
                    ),
                    claim_span: None,
                    evidence,
                    rule: "ledger.source_changed".to_string(),
                }],
                gate: prev.gate.clone(),
                assessed_at: at.to_string(),
                policy_version: prev.policy_version.clone(),
            };
            added += self.insert_assessment_at(run_no, claim, &stale, None, false)?;
        }
        Ok(added)
    }
}
