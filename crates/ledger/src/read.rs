//! Reading: whether a message was assessed, runs and their totals, skips,
//! and assessments rebuilt from their rows (quotes read back through a
//! [`QuoteSource`]).

use crate::{Error, Ledger, QUOTE_UNAVAILABLE, QuoteSource, Result, RunTotals, Scope, write::quote_check};
use amem_records::{
    AmemUri, Assessment, AuditRecord, ClaimId, ClaimKind, Digest, MessageId, RunId, RunInfo, RunSummary, Skipped, SourceKind, Span,
    cited_evidence,
};
use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};
use std::collections::{BTreeMap, HashMap};

/// A snake_case or SCREAMING_SNAKE name read back into its enum.
pub(crate) fn from_name<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
}

pub(crate) fn digest_of(bytes: &[u8]) -> Option<Digest> {
    let a: [u8; 32] = bytes.try_into().ok()?;
    Some(Digest(a))
}

pub(crate) fn span_of(start: i64, end: i64) -> Span {
    Span::new(start.max(0) as usize, end.max(0) as usize)
}

impl Ledger {
    /// True when the message revision with this digest was fully recorded
    /// (claims and assessments) under this policy version by some run, or
    /// is in this ledger's unwritten batch.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn is_assessed(&self, message_digest: &Digest, policy_version: &str) -> Result<bool> {
        if self.buffered.contains(message_digest) && self.run.as_ref().is_some_and(|(_, p)| p == policy_version) {
            return Ok(true);
        }
        let n: i64 = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM messages_seen m JOIN message_assessed a ON a.msg = m.msg
                 JOIN names p ON p.id = a.policy WHERE m.digest = ?1 AND p.name = ?2 LIMIT 1)",
            )
            .and_then(|mut s| s.query_row(params![message_digest.0.as_slice(), policy_version], |r| r.get(0)))
            .map_err(self.err("checking whether a message was assessed"))?;
        Ok(n > 0)
    }

    /// A run's number, read without remembering it (readers take `&self`).
    fn find_run_no(&self, run: &RunId) -> Result<Option<i64>> {
        if let Some(&n) = self.ids.runs.get(&run.0) {
            return Ok(Some(n));
        }
        self.conn
            .prepare_cached("SELECT run_no FROM runs WHERE run_id = ?1")
            .and_then(|mut s| s.query_row([&run.0], |r| r.get(0)).optional())
            .map_err(self.err("looking up a run"))
    }

    /// A run's recorded info and summary (`None` while unfinished).
    ///
    /// # Errors
    /// SQLite fails or a stored row does not decode.
    pub fn run(&self, run: &RunId) -> Result<Option<(RunInfo, Option<RunSummary>)>> {
        let row: Option<(String, Option<String>)> = self
            .conn
            .query_row("SELECT info_json, summary_json FROM runs WHERE run_id = ?1", [&run.0], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
            .map_err(self.err("reading a run"))?;
        let Some((info, summary)) = row else { return Ok(None) };
        let info: RunInfo = self.decode("runs", &run.0, &info)?;
        let summary = match summary {
            Some(s) => Some(self.decode("runs", &run.0, &s)?),
            None => None,
        };
        Ok(Some((info, summary)))
    }

    /// Run ids, oldest first.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn runs(&self) -> Result<Vec<RunId>> {
        let mut st = self.conn.prepare_cached("SELECT run_id FROM runs ORDER BY started_at, run_id").map_err(self.err("listing runs"))?;
        let rows = st.query_map([], |r| Ok(RunId(r.get(0)?))).map_err(self.err("listing runs"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(self.err("listing runs"))
    }

    /// Every run id, in the order the runs began in this ledger (a run given `--now` starts at
    /// that clock, so runs of one clock are told apart only by this order).
    ///
    /// # Errors
    /// SQLite fails.
    pub fn runs_in_recorded_order(&self) -> Result<Vec<RunId>> {
        let mut st = self.conn.prepare_cached("SELECT run_id FROM runs ORDER BY run_no").map_err(self.err("listing runs"))?;
        let rows = st.query_map([], |r| Ok(RunId(r.get(0)?))).map_err(self.err("listing runs"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(self.err("listing runs"))
    }

    /// What a run recorded: messages assessed, their claims by kind, and
    /// assessments. Reads written data only (see [`Ledger::flush`]).
    ///
    /// # Errors
    /// SQLite fails or a stored kind does not decode.
    pub fn run_totals(&self, run: &RunId) -> Result<RunTotals> {
        let action = "counting a run";
        let Some(run_no) = self.find_run_no(run)? else { return Ok(RunTotals::default()) };
        let messages: i64 = self
            .conn
            .query_row("SELECT count(*) FROM message_assessed WHERE run_no = ?1", [run_no], |r| r.get(0))
            .map_err(self.err(action))?;
        let assessments: i64 =
            self.conn.query_row("SELECT count(*) FROM assessments WHERE run_no = ?1", [run_no], |r| r.get(0)).map_err(self.err(action))?;
        let mut claims_by_kind = BTreeMap::new();
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT k.name, sum(x.n) FROM (
                     SELECT c.kind AS kind, count(*) AS n FROM message_assessed ma JOIN claims c ON c.msg = ma.msg
                     WHERE ma.run_no = ?1 GROUP BY c.kind
                     UNION ALL
                     SELECT q.kind AS kind, sum(q.n) AS n FROM message_assessed ma JOIN claim_counts q ON q.msg = ma.msg
                     WHERE ma.run_no = ?1 GROUP BY q.kind
                 ) x JOIN names k ON k.id = x.kind GROUP BY k.name ORDER BY k.name",
            )
            .map_err(self.err(action))?;
        let rows = st.query_map([run_no], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).map_err(self.err(action))?;
        for row in rows {
            let (kind, n) = row.map_err(self.err(action))?;
            let k: ClaimKind = from_name(&kind).ok_or_else(|| self.corrupt("claims", &kind, "unknown claim kind"))?;
            claims_by_kind.insert(k, n as u64);
        }
        let copies: i64 = self
            .conn
            .query_row("SELECT count(*) FROM message_copies WHERE run_no = ?1", [run_no], |r| r.get(0))
            .map_err(self.err(action))?;
        let quoted = self
            .conn
            .query_row(
                "SELECT count(CASE WHEN q.reply_chars > 0 THEN 1 END), coalesce(sum(q.reply_chars), 0),
                        count(CASE WHEN q.forward_chars > 0 THEN 1 END), coalesce(sum(q.forward_chars), 0)
                 FROM message_assessed ma JOIN message_quoted q ON q.msg = ma.msg WHERE ma.run_no = ?1",
                [run_no],
                |r| Ok([r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?, r.get::<_, i64>(3)?]),
            )
            .map_err(self.err(action))?;
        let forwarded: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM message_assessed ma JOIN messages_seen m ON m.msg = ma.msg
                 WHERE ma.run_no = ?1 AND m.forwarded_by IS NOT NULL",
                [run_no],
                |r| r.get(0),
            )
            .map_err(self.err(action))?;
        let quoted = amem_records::QuotedTally {
            reply_messages: quoted[0] as u64,
            reply_chars: quoted[1] as u64,
            forward_messages: quoted[2] as u64,
            forward_chars: quoted[3] as u64,
            forwarded_audited: forwarded as u64,
        };
        Ok(RunTotals { messages: messages as u64, claims_by_kind, assessments: assessments as u64, copies: copies as u64, quoted })
    }

    /// The digest of the message recorded under one of `keys` (see
    /// `Message::copy_keys`), the id key first. Reads written data only.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn original_of(&self, keys: &amem_records::CopyKeys) -> Result<Option<Digest>> {
        let action = "looking up a copy of a message";
        for key in keys.iter() {
            let found: Option<Vec<u8>> = self
                .conn
                .prepare_cached("SELECT m.digest FROM message_keys k JOIN messages_seen m ON m.msg = k.msg WHERE k.key = ?1")
                .and_then(|mut s| s.query_row([key.0.as_slice()], |r| r.get(0)).optional())
                .map_err(self.err(action))?;
            if let Some(bytes) = found {
                return digest_of(&bytes).map(Some).ok_or_else(|| self.corrupt("messages_seen", "digest", "not 32 bytes"));
            }
        }
        Ok(None)
    }

    /// Where a run found copies of the messages it audited: for each
    /// original's digest, the copies' locators, sorted.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn copies(&self, run: &RunId) -> Result<HashMap<Digest, Vec<String>>> {
        let action = "reading a run's copies of messages";
        let mut out: HashMap<Digest, Vec<String>> = HashMap::new();
        let Some(run_no) = self.find_run_no(run)? else { return Ok(out) };
        let mut st = self
            .conn
            .prepare_cached("SELECT original, locator FROM message_copies WHERE run_no = ?1 ORDER BY original, locator")
            .map_err(self.err(action))?;
        let rows = st.query_map([run_no], |r| Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?))).map_err(self.err(action))?;
        for row in rows {
            let (original, locator) = row.map_err(self.err(action))?;
            let d = digest_of(&original).ok_or_else(|| self.corrupt("message_copies", &locator, "original is not 32 bytes"))?;
            out.entry(d).or_default().push(locator);
        }
        Ok(out)
    }

    /// Skipped records of a run, sorted by (stage, locator, reason).
    ///
    /// # Errors
    /// SQLite fails.
    pub fn skipped(&self, run: &RunId) -> Result<Vec<Skipped>> {
        let Some(run_no) = self.find_run_no(run)? else { return Ok(Vec::new()) };
        let mut st = self
            .conn
            .prepare_cached("SELECT stage, locator, reason FROM skipped WHERE run_no = ?1 ORDER BY stage, locator, reason")
            .map_err(self.err("reading skipped records"))?;
        let rows = st
            .query_map([run_no], |r| Ok(Skipped { stage: r.get(0)?, locator: r.get(1)?, reason: r.get(2)? }))
            .map_err(self.err("reading skipped records"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(self.err("reading skipped records"))
    }

    /// The latest assessment of one claim that `run` recorded and wrote
    /// (a buffered batch is not seen until it is flushed), its quotes read
    /// back through `quotes`. The audit uses it to answer a claim text
    /// already assessed earlier in the same run without assessing it
    /// again, once the outcome itself has left its in-memory cache.
    ///
    /// # Errors
    /// SQLite fails or the stored row does not decode.
    pub fn run_assessment(
        &self,
        run: &RunId,
        message_digest: &Digest,
        claim: &ClaimId,
        quotes: &dyn QuoteSource,
    ) -> Result<Option<Assessment>> {
        let action = "reading an assessment of this run";
        let (Some(run_no), Some(claim_no)) = (self.find_run_no(run)?, self.claim_of(message_digest, claim)?) else { return Ok(None) };
        let seq: Option<i64> = self
            .conn
            .prepare_cached("SELECT max(seq) FROM assessments WHERE run_no = ?1 AND claim = ?2")
            .and_then(|mut s| s.query_row(params![run_no, claim_no], |r| r.get(0)))
            .map_err(self.err(action))?;
        match seq {
            Some(seq) => Ok(Some(self.assessment_at(seq, quotes)?)),
            None => Ok(None),
        }
    }

    /// The latest assessment of every claim in `scope`, in the order the
    /// claims were first recorded, quotes read back through `quotes`. Reads everything into memory: for
    /// report-sized output use [`Ledger::for_each_latest`].
    ///
    /// # Errors
    /// SQLite fails or a stored row does not decode.
    pub fn latest_assessments(&self, scope: Scope<'_>, quotes: &dyn QuoteSource) -> Result<Vec<Assessment>> {
        let action = "reading latest assessments";
        let run_no = match scope {
            Scope::All => None,
            Scope::Run(r) => match self.find_run_no(r)? {
                Some(n) => Some(n),
                None => return Ok(Vec::new()),
            },
        };
        let sql = match run_no {
            None => {
                "SELECT a.seq FROM assessments a
                 WHERE a.seq = (SELECT max(seq) FROM assessments b WHERE b.claim = a.claim)
                 ORDER BY a.claim"
            }
            Some(_) => {
                "SELECT a.seq FROM assessments a
                 WHERE a.run_no = ?1 AND a.seq = (SELECT max(seq) FROM assessments b WHERE b.run_no = ?1 AND b.claim = a.claim)
                 ORDER BY a.claim"
            }
        };
        let seqs: Vec<i64> = {
            let mut st = self.conn.prepare(sql).map_err(self.err(action))?;
            let mut rows = match run_no {
                Some(n) => st.query([n]),
                None => st.query([]),
            }
            .map_err(self.err(action))?;
            let mut seqs = Vec::new();
            while let Some(r) = rows.next().map_err(self.err(action))? {
                seqs.push(r.get(0).map_err(self.err(action))?);
            }
            seqs
        };
        let mut out = Vec::with_capacity(seqs.len());
        for chunk in seqs.chunks(crate::rebuild::CHUNK) {
            let mut got = self.rebuild(chunk, quotes)?;
            for seq in chunk {
                let (_, a) = got.remove(seq).ok_or_else(|| self.corrupt("assessments", &seq.to_string(), "no such assessment"))?;
                out.push(a);
            }
        }
        Ok(out)
    }

    /// Stream the latest assessment of every claim in `scope` as report rows
    /// (message context from `messages_seen`, the claim, the assessment, its
    /// evidence with quotes read back through `quotes`), sorted by source,
    /// archive, conversation, sent_at, message id and claim span. The rows
    /// are rebuilt [`ROWS_PER_REBUILD`] at a time; only their places in
    /// order are held for the whole scan ([`Ledger::for_each_latest_head`]).
    ///
    /// The same rows can be rebuilt on several connections at once:
    /// [`Ledger::for_each_latest_head`] gives each row's place in order, and
    /// [`Ledger::rebuild_rows`] rebuilds a run of them on any connection.
    ///
    /// # Errors
    /// SQLite fails, a stored row does not decode, or `f` fails (its error is returned).
    pub fn for_each_latest<E, F>(&self, scope: Scope<'_>, quotes: &dyn QuoteSource, mut f: F) -> std::result::Result<(), E>
    where
        E: From<Error>,
        F: FnMut(AuditRecord) -> std::result::Result<(), E>,
    {
        let mut chunk: Vec<RowHead> = Vec::with_capacity(ROWS_PER_REBUILD);
        let mut emit = |chunk: &mut Vec<RowHead>| -> std::result::Result<(), E> {
            for rec in self.rebuild_rows(std::mem::take(chunk), quotes)? {
                f(rec)?;
            }
            Ok(())
        };
        self.for_each_latest_head(scope, |head| -> std::result::Result<(), E> {
            chunk.push(head);
            if chunk.len() == ROWS_PER_REBUILD {
                emit(&mut chunk)?;
            }
            Ok(())
        })?;
        emit(&mut chunk)
    }

    /// The place of every row [`Ledger::for_each_latest`] gives, in its
    /// order: the message context and which assessment to rebuild
    /// ([`Ledger::rebuild_rows`]).
    ///
    /// The order is that of `ORDER BY m.source, an.name, m.conversation,
    /// m.sent_at, m.message_id, c.span_start, c.span_end, c.claim` over the
    /// latest assessment of each claim. SQLite sorts only the messages
    /// (one row each, by their five keys); the claims' rows are read as
    /// integers and put in order here. When SQLite sorted whole rows (eleven
    /// columns, most of them text), nothing came out before its sorter had
    /// them all, and the report pass waited on one core: the x1 audit
    /// bench's report scan took 0.46-0.57 s of CPU, now 0.17-0.20 s (five
    /// runs of each on one day), and the x10 archive's 5.4 s, now 1.9 s.
    /// What is held meanwhile is one message context per message and 48
    /// bytes per assessment in scope (x10: peak RSS 449 MB before, 451 after).
    ///
    /// # Errors
    /// SQLite fails, a stored row does not decode, or `f` fails (its error is returned).
    pub fn for_each_latest_head<E, F>(&self, scope: Scope<'_>, mut f: F) -> std::result::Result<(), E>
    where
        E: From<Error>,
        F: FnMut(RowHead) -> std::result::Result<(), E>,
    {
        let action = "reading report rows";
        let run_no = match scope {
            Scope::All => None,
            Scope::Run(r) => match self.find_run_no(r)? {
                Some(n) => Some(n),
                None => return Ok(()),
            },
        };
        let within = if run_no.is_some() { "WHERE a.run_no = ?1" } else { "" };
        let params: &[&dyn rusqlite::ToSql] = match &run_no {
            Some(n) => &[n],
            None => &[],
        };
        // The messages, in order; equal keys share a rank (their claims
        // then interleave by span, as one ORDER BY over all the keys has them).
        let mut messages: Vec<MessageHead> = Vec::new();
        let mut place: std::collections::HashMap<i64, (u32, u32)> = std::collections::HashMap::new();
        {
            let mut st = self
                .conn
                .prepare(&format!(
                    "SELECT m.msg, m.source, an.name, m.conversation, m.message_id, m.locator, m.author, m.sent_at, m.subject,
                            m.forwarded_by
                     FROM messages_seen m JOIN names an ON an.id = m.archive
                     WHERE m.msg IN (SELECT c.msg FROM assessments a JOIN claims c ON c.claim = a.claim {within})
                     ORDER BY m.source, an.name, m.conversation, m.sent_at, m.message_id"
                ))
                .map_err(self.err(action))?;
            let mut rows = st.query(params).map_err(self.err(action))?;
            let mut rank: u32 = 0;
            let mut last_key: Option<[String; 5]> = None;
            while let Some(row) = rows.next().map_err(self.err(action))? {
                let msg: i64 = row.get(0).map_err(self.err(action))?;
                let text = |i: usize| -> Result<String> { row.get::<_, String>(i).map_err(self.err(action)) };
                let key = [text(1)?, text(2)?, text(3)?, text(7)?, text(4)?];
                if last_key.as_ref().is_some_and(|k| *k != key) {
                    rank += 1;
                }
                let [source_name, archive, conversation, sent_at_text, message_id] = &key;
                let corrupt = |reason: String| self.corrupt("messages_seen", &msg.to_string(), reason);
                let source = SourceKind::parse(source_name).ok_or_else(|| corrupt(format!("unknown source kind {source_name:?}")))?;
                let sent_at: Timestamp =
                    sent_at_text.parse().map_err(|e: jiff::Error| corrupt(format!("sent_at {sent_at_text:?}: {e}")))?;
                let pos = u32::try_from(messages.len()).map_err(|_| corrupt("more messages than a report can hold".into()))?;
                messages.push(MessageHead {
                    source,
                    archive: archive.clone(),
                    conversation: conversation.clone(),
                    message_id: message_id.clone(),
                    locator: text(5)?,
                    author: text(6)?,
                    sent_at,
                    subject: row.get::<_, Option<String>>(8).map_err(self.err(action))?,
                    forwarded_by: row.get::<_, Option<String>>(9).map_err(self.err(action))?,
                });
                place.insert(msg, (rank, pos));
                last_key = Some(key);
            }
        }
        let mut run_ids: std::collections::HashMap<i64, String> = std::collections::HashMap::new();
        {
            let mut st = self.conn.prepare("SELECT run_no, run_id FROM runs").map_err(self.err(action))?;
            let mut rows = st.query([]).map_err(self.err(action))?;
            while let Some(row) = rows.next().map_err(self.err(action))? {
                run_ids.insert(row.get(0).map_err(self.err(action))?, row.get(1).map_err(self.err(action))?);
            }
        }
        // Every assessment in scope, then the latest (highest seq) of each claim.
        let mut latest: Vec<ClaimPlace> = Vec::new();
        {
            let mut st = self
                .conn
                .prepare(&format!(
                    "SELECT a.claim, a.seq, a.run_no, c.msg, c.span_start, c.span_end
                     FROM assessments a JOIN claims c ON c.claim = a.claim {within}"
                ))
                .map_err(self.err(action))?;
            let mut rows = st.query(params).map_err(self.err(action))?;
            while let Some(row) = rows.next().map_err(self.err(action))? {
                let get = |i: usize| -> Result<i64> { row.get::<_, i64>(i).map_err(self.err(action)) };
                let (claim, seq, run, msg) = (get(0)?, get(1)?, get(2)?, get(3)?);
                let &(rank, pos) =
                    place.get(&msg).ok_or_else(|| self.corrupt("claims", &claim.to_string(), format!("message {msg} is not recorded")))?;
                latest.push(ClaimPlace { rank, span: (get(4)?, get(5)?), claim, seq, run, pos });
            }
        }
        latest.sort_unstable_by_key(|p| (p.claim, std::cmp::Reverse(p.seq)));
        latest.dedup_by_key(|p| p.claim);
        latest.sort_unstable_by_key(|p| (p.rank, p.span, p.claim));
        for p in latest {
            let m = &messages[p.pos as usize];
            let run_id = run_ids.get(&p.run).cloned().ok_or_else(|| self.corrupt("assessments", &p.seq.to_string(), "no such run"))?;
            f(RowHead {
                seq: p.seq,
                run_id,
                source: m.source,
                archive: m.archive.clone(),
                conversation: m.conversation.clone(),
                message_id: m.message_id.clone(),
                locator: m.locator.clone(),
                author: m.author.clone(),
                sent_at: m.sent_at,
                subject: m.subject.clone(),
                forwarded_by: m.forwarded_by.clone(),
            })?;
        }
        Ok(())
    }

    /// The report rows at `heads` (from [`Ledger::for_each_latest_head`],
    /// on this or another connection to the same file), in that order,
    /// quotes read back through `quotes`: the claims and assessments
    /// rebuilt [`ROWS_PER_REBUILD`] at a time (see the `rebuild` module).
    ///
    /// # Errors
    /// SQLite fails or a stored row does not decode.
    pub fn rebuild_rows(&self, heads: Vec<RowHead>, quotes: &dyn QuoteSource) -> Result<Vec<AuditRecord>> {
        let mut out = Vec::with_capacity(heads.len());
        let mut heads = heads.into_iter().peekable();
        while heads.peek().is_some() {
            let chunk: Vec<RowHead> = heads.by_ref().take(ROWS_PER_REBUILD).collect();
            let seqs: Vec<i64> = chunk.iter().map(|h| h.seq).collect();
            let mut parts = self.rebuild(&seqs, quotes)?;
            for h in chunk {
                let (claim, assessment) =
                    parts.remove(&h.seq).ok_or_else(|| self.corrupt("assessments", &h.seq.to_string(), "no such assessment"))?;
                let evidence = cited_evidence(&assessment);
                out.push(AuditRecord {
                    run_id: RunId(h.run_id),
                    source: h.source,
                    archive: h.archive,
                    conversation: h.conversation,
                    message_id: MessageId(h.message_id),
                    locator: h.locator,
                    author: h.author,
                    sent_at: h.sent_at,
                    subject: h.subject,
                    claim,
                    assessment,
                    evidence,
                    // Filled in by the report pass: whose message it was (`[me]`)
                    // and where the cited notes are.
                    from_me: false,
                    notes: Vec::new(),
                    also_filed_at: Vec::new(),
                    forwarded_by: h.forwarded_by,
                    forwarded_by_me: false,
                });
            }
        }
        Ok(out)
    }
}

/// Report rows rebuilt per query round by [`Ledger::rebuild_rows`].
pub const ROWS_PER_REBUILD: usize = crate::rebuild::CHUNK;

/// A report row's place in [`Ledger::for_each_latest_head`]'s order: its
/// message context and the assessment [`Ledger::rebuild_rows`] rebuilds.
#[derive(Clone, Debug)]
pub struct RowHead {
    pub(crate) seq: i64,
    pub(crate) run_id: String,
    pub(crate) source: SourceKind,
    pub(crate) archive: String,
    pub(crate) conversation: String,
    pub(crate) message_id: String,
    pub(crate) locator: String,
    pub(crate) author: String,
    pub(crate) sent_at: Timestamp,
    pub(crate) subject: Option<String>,
    pub(crate) forwarded_by: Option<String>,
}

impl RowHead {
    /// The run that recorded the assessment this row shows.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }
}

/// The context of one message in [`Ledger::for_each_latest_head`], shared by its rows.
struct MessageHead {
    source: SourceKind,
    archive: String,
    conversation: String,
    message_id: String,
    locator: String,
    author: String,
    sent_at: Timestamp,
    subject: Option<String>,
    forwarded_by: Option<String>,
}

/// One assessment's place in report order: its message's rank (equal for
/// messages of equal keys), the claim's span and id.
struct ClaimPlace {
    rank: u32,
    span: (i64, i64),
    claim: i64,
    seq: i64,
    run: i64,
    /// Its message in the scan's list.
    pos: u32,
}

/// The quote a reference gives back: the chunk's text at `span` when the
/// item is still at the cited revision and that text has the recorded
/// check digest; [`QUOTE_UNAVAILABLE`] otherwise, never other text.
pub(crate) fn read_back(quotes: &dyn QuoteSource, uri: &AmemUri, item_digest: &Digest, span: Span, check: i64) -> String {
    quotes.chunk_slice(uri, item_digest, span).filter(|q| quote_check(q) == check).unwrap_or_else(|| QUOTE_UNAVAILABLE.to_string())
}
