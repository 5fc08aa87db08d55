//! Reading: whether a message was assessed, runs and their totals, skips,
//! and assessments rebuilt from their rows (quotes read back through a
//! [`QuoteSource`]).

use crate::{Error, Ledger, QUOTE_UNAVAILABLE, QuoteSource, Result, RunTotals, Scope, write::quote_check};
use amem_model::{
    AmemUri, Assessment, AuditRecord, Claim, ClaimId, ClaimKind, Cue, CueClass, Digest, Evidence, GateFlag, GateSummary, GateVerdict,
    MessageId, Reason, RunId, RunInfo, RunSummary, Skipped, SourceKind, Span, Status, cited_evidence,
};
use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};
use std::collections::BTreeMap;

/// A snake_case or SCREAMING_SNAKE name read back into its enum.
fn from_name<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
}

fn digest_of(bytes: &[u8]) -> Option<Digest> {
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
        Ok(RunTotals { messages: messages as u64, claims_by_kind, assessments: assessments as u64 })
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
        seqs.into_iter().map(|seq| self.assessment_at(seq, quotes)).collect()
    }

    /// Stream the latest assessment of every claim in `scope` as report rows
    /// (message context from `messages_seen`, the claim, the assessment, its
    /// evidence with quotes read back through `quotes`), sorted by source,
    /// archive, conversation, sent_at, message id and claim span. Memory
    /// stays flat: one row at a time.
    ///
    /// # Errors
    /// SQLite fails, a stored row does not decode, or `f` fails (its error is returned).
    pub fn for_each_latest<E, F>(&self, scope: Scope<'_>, quotes: &dyn QuoteSource, mut f: F) -> std::result::Result<(), E>
    where
        E: From<Error>,
        F: FnMut(AuditRecord) -> std::result::Result<(), E>,
    {
        let action = "reading report rows";
        let run_no = match scope {
            Scope::All => None,
            Scope::Run(r) => match self.find_run_no(r)? {
                Some(n) => Some(n),
                None => return Ok(()),
            },
        };
        let base = "SELECT a.seq, r.run_id, a.claim, m.source, an.name, m.conversation, m.message_id, m.locator, m.author, m.sent_at,
                           m.subject
                    FROM assessments a
                    JOIN runs r ON r.run_no = a.run_no
                    JOIN claims c ON c.claim = a.claim
                    JOIN messages_seen m ON m.msg = c.msg
                    JOIN names an ON an.id = m.archive";
        let order = "ORDER BY m.source, an.name, m.conversation, m.sent_at, m.message_id, c.span_start, c.span_end, c.claim";
        let sql = match run_no {
            None => format!("{base} WHERE a.seq = (SELECT max(seq) FROM assessments b WHERE b.claim = a.claim) {order}"),
            Some(_) => format!(
                "{base} WHERE a.run_no = ?1 AND a.seq = (SELECT max(seq) FROM assessments b WHERE b.run_no = ?1 AND b.claim = a.claim) {order}"
            ),
        };
        let mut st = self.conn.prepare(&sql).map_err(self.err(action))?;
        let mut rows = match run_no {
            Some(n) => st.query([n]),
            None => st.query([]),
        }
        .map_err(self.err(action))?;
        while let Some(row) = rows.next().map_err(self.err(action))? {
            let seq: i64 = row.get(0).map_err(self.err(action))?;
            let key = seq.to_string();
            let text = |i: usize| -> Result<String> { row.get::<_, String>(i).map_err(self.err(action)) };
            let claim_no: i64 = row.get(2).map_err(self.err(action))?;
            let source_name = text(3)?;
            let source = SourceKind::parse(&source_name)
                .ok_or_else(|| self.corrupt("messages_seen", &key, format!("unknown source kind {source_name:?}")))?;
            let sent_at_text = text(9)?;
            let sent_at: Timestamp = sent_at_text
                .parse()
                .map_err(|e: jiff::Error| self.corrupt("messages_seen", &key, format!("sent_at {sent_at_text:?}: {e}")))?;
            let assessment = self.assessment_at(seq, quotes)?;
            let claim = self.claim_at(claim_no)?;
            let evidence = cited_evidence(&assessment);
            let rec = AuditRecord {
                run_id: RunId(text(1)?),
                source,
                archive: text(4)?,
                conversation: text(5)?,
                message_id: MessageId(text(6)?),
                locator: text(7)?,
                author: text(8)?,
                sent_at,
                subject: row.get::<_, Option<String>>(10).map_err(self.err(action))?,
                claim,
                assessment,
                evidence,
                // Filled in by the report pass: whose message it was (`[me]`)
                // and where the cited notes are.
                from_me: false,
                notes: Vec::new(),
            };
            f(rec)?;
        }
        Ok(())
    }

    /// Claim number `claim`, rebuilt from its row and its cues.
    fn claim_at(&self, claim: i64) -> Result<Claim> {
        let action = "reading a claim";
        let key = claim.to_string();
        type Row = (Option<Vec<u8>>, String, Vec<u8>, i64, i64, String, Option<String>, String);
        let (stored_id, message_id, digest, start, end, kind, text, extractor): Row = self
            .conn
            .prepare_cached(
                "SELECT c.claim_id, m.message_id, m.digest, c.span_start, c.span_end, k.name, t.text, x.name
                 FROM claims c JOIN messages_seen m ON m.msg = c.msg JOIN names x ON x.id = c.extractor JOIN names k ON k.id = c.kind
                 JOIN texts t ON t.id = c.text
                 WHERE c.claim = ?1",
            )
            .and_then(|mut s| {
                s.query_row([claim], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?)))
            })
            .map_err(self.err(action))?;
        let message_digest = digest_of(&digest).ok_or_else(|| self.corrupt("messages_seen", &key, "digest is not 32 bytes"))?;
        let text = text.ok_or_else(|| self.corrupt("claims", &key, "an assessed claim was kept without its text"))?;
        let span = span_of(start, end);
        let id = match stored_id {
            Some(b) => ClaimId(digest_of(&b).ok_or_else(|| self.corrupt("claims", &key, "claim_id is not 32 bytes"))?),
            None => Claim::id_for(&message_digest, span, &text),
        };
        let kind: ClaimKind = from_name(&kind).ok_or_else(|| self.corrupt("claims", &key, format!("unknown claim kind {kind:?}")))?;
        let mut cues = Vec::new();
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT q.class, q.text, q.span_start, q.span_end, n.name FROM claim_cues q JOIN names n ON n.id = q.rule
                 WHERE q.claim = ?1 ORDER BY q.ord",
            )
            .map_err(self.err(action))?;
        let rows = st
            .query_map([claim], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .map_err(self.err(action))?;
        for row in rows {
            let (class, cue_text, s, e, rule): (String, Option<String>, i64, i64, String) = row.map_err(self.err(action))?;
            let class: CueClass =
                from_name(&class).ok_or_else(|| self.corrupt("claim_cues", &key, format!("unknown cue class {class:?}")))?;
            let span = span_of(s, e);
            let cue_text = match cue_text {
                Some(t) => t,
                None => text
                    .get(span.start..span.end)
                    .ok_or_else(|| self.corrupt("claim_cues", &key, "the cue's span is not inside the claim text"))?
                    .to_string(),
            };
            cues.push(Cue { class, text: cue_text, span, rule });
        }
        Ok(Claim { id, message: MessageId(message_id), message_digest, span, text, kind, cues, extractor })
    }

    /// The id of claim number `claim`: kept whole, or computed back from its
    /// message digest, span and text.
    fn claim_id_at(&self, claim: i64) -> Result<ClaimId> {
        let key = claim.to_string();
        let (stored, digest, start, end, text): (Option<Vec<u8>>, Vec<u8>, i64, i64, Option<String>) = self
            .conn
            .prepare_cached(
                "SELECT c.claim_id, m.digest, c.span_start, c.span_end, t.text FROM claims c JOIN messages_seen m ON m.msg = c.msg
                 JOIN texts t ON t.id = c.text
                 WHERE c.claim = ?1",
            )
            .and_then(|mut s| s.query_row([claim], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))))
            .map_err(self.err("reading a claim id"))?;
        if let Some(b) = stored {
            return digest_of(&b).map(ClaimId).ok_or_else(|| self.corrupt("claims", &key, "claim_id is not 32 bytes"));
        }
        let d = digest_of(&digest).ok_or_else(|| self.corrupt("messages_seen", &key, "digest is not 32 bytes"))?;
        let text = text.ok_or_else(|| self.corrupt("claims", &key, "an assessed claim was kept without its text"))?;
        Ok(Claim::id_for(&d, span_of(start, end), &text))
    }

    /// Assessment `seq`, rebuilt from its row, its reasons, their evidence
    /// (quotes read back through `quotes`) and its gate flags.
    pub(crate) fn assessment_at(&self, seq: i64, quotes: &dyn QuoteSource) -> Result<Assessment> {
        let action = "reading an assessment";
        let key = seq.to_string();
        let (claim_no, status, method, policy, assessed_at, gate): (i64, String, String, String, String, Option<String>) = self
            .conn
            .prepare_cached(
                "SELECT a.claim, sn.name, mn.name, pn.name, tn.name, gn.name FROM assessments a
                 JOIN names sn ON sn.id = a.status JOIN names mn ON mn.id = a.method JOIN names pn ON pn.id = a.policy
                 JOIN names tn ON tn.id = a.assessed_at LEFT JOIN names gn ON gn.id = a.gate
                 WHERE a.seq = ?1",
            )
            .and_then(|mut s| s.query_row([seq], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))))
            .map_err(self.err(action))?;
        let claim = self.claim_id_at(claim_no)?;
        let status = Status::parse(&status).ok_or_else(|| self.corrupt("assessments", &key, format!("unknown status {status:?}")))?;
        let mut reasons: Vec<Reason> = Vec::new();
        {
            let mut st = self
                .conn
                .prepare_cached(
                    "SELECT f.name, u.name, d.text, x.claim_start, x.claim_end FROM assessment_reasons x
                     JOIN names f ON f.id = x.facet JOIN names u ON u.id = x.rule JOIN texts d ON d.id = x.detail
                     WHERE x.seq = ?1 ORDER BY x.ord",
                )
                .map_err(self.err(action))?;
            let rows = st
                .query_map([seq], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get(2)?,
                        r.get::<_, Option<i64>>(3)?,
                        r.get::<_, Option<i64>>(4)?,
                    ))
                })
                .map_err(self.err(action))?;
            for row in rows {
                let (facet, rule, detail, s, e) = row.map_err(self.err(action))?;
                let claim_span = match (s, e) {
                    (Some(s), Some(e)) => Some(span_of(s, e)),
                    _ => None,
                };
                reasons.push(Reason { facet, detail, claim_span, evidence: Vec::new(), rule });
            }
        }
        {
            let mut st = self
                .conn
                .prepare_cached(
                    "SELECT e.reason, e.chunk, e.span_start, e.span_end, e.quote_check, e.quote,
                            v.item_digest, v.item, v.captured_at, v.source_url, v.title
                     FROM assessment_evidence e JOIN evidence_revisions v ON v.rev = e.rev WHERE e.seq = ?1 ORDER BY e.reason, e.ord",
                )
                .map_err(self.err(action))?;
            let mut rows = st.query([seq]).map_err(self.err(action))?;
            while let Some(r) = rows.next().map_err(self.err(action))? {
                let get_err = self.err(action);
                let parts = (|| -> rusqlite::Result<_> {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, Option<String>>(5)?,
                        r.get::<_, Vec<u8>>(6)?,
                        r.get::<_, String>(7)?,
                        r.get::<_, Option<String>>(8)?,
                        r.get::<_, Option<String>>(9)?,
                        r.get::<_, Option<String>>(10)?,
                    ))
                })()
                .map_err(get_err)?;
                let (reason, chunk, s, e, check, inline, digest, item, captured_at, source_url, title) = parts;
                let item_digest =
                    digest_of(&digest).ok_or_else(|| self.corrupt("evidence_revisions", &key, "item_digest is not 32 bytes"))?;
                let uri = AmemUri { item, chunk: chunk.and_then(|c| u32::try_from(c).ok()) };
                let span = span_of(s, e);
                let quote = match inline {
                    Some(q) => q,
                    None => read_back(quotes, &uri, &item_digest, span, check),
                };
                let target = reasons
                    .get_mut(reason as usize)
                    .ok_or_else(|| self.corrupt("assessment_evidence", &key, format!("cites reason {reason}, which is not recorded")))?;
                target.evidence.push(Evidence { uri, quote, span, item_digest, captured_at, written_at: None, source_url, title });
            }
        }
        let gate = match gate {
            None => None,
            Some(v) => {
                let verdict: GateVerdict =
                    from_name(&v).ok_or_else(|| self.corrupt("assessments", &key, format!("unknown gate verdict {v:?}")))?;
                let mut flags = Vec::new();
                let mut st = self
                    .conn
                    .prepare_cached(
                        "SELECT k.name, u.name, g.cue, g.source_start, g.source_end, ss.text, ms.text
                         FROM gate_flags g JOIN names k ON k.id = g.flag_check JOIN names u ON u.id = g.rule
                         JOIN texts ss ON ss.id = g.source_sentence JOIN texts ms ON ms.id = g.memory_sentence
                         WHERE g.seq = ?1 ORDER BY g.ord",
                    )
                    .map_err(self.err(action))?;
                let rows = st
                    .query_map([seq], |r| {
                        Ok(GateFlag {
                            check: r.get(0)?,
                            rule: r.get(1)?,
                            cue: r.get(2)?,
                            source_span: span_of(r.get(3)?, r.get(4)?),
                            source_sentence: r.get(5)?,
                            memory_sentence: r.get(6)?,
                        })
                    })
                    .map_err(self.err(action))?;
                for f in rows {
                    flags.push(f.map_err(self.err(action))?);
                }
                Some(GateSummary { verdict, flags })
            }
        };
        Ok(Assessment { claim, status, method, reasons, gate, assessed_at, policy_version: policy })
    }
}

/// The quote a reference gives back: the chunk's text at `span` when the
/// item is still at the cited revision and that text has the recorded
/// check digest; [`QUOTE_UNAVAILABLE`] otherwise, never other text.
fn read_back(quotes: &dyn QuoteSource, uri: &AmemUri, item_digest: &Digest, span: Span, check: i64) -> String {
    quotes
        .chunk_text(uri, item_digest)
        .and_then(|text| text.get(span.start..span.end).map(str::to_string))
        .filter(|q| quote_check(q) == check)
        .unwrap_or_else(|| QUOTE_UNAVAILABLE.to_string())
}
