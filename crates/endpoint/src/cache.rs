//! Answers already given, in the ledger (`ledger.sqlite`, table `endpoint_answers`), so a
//! re-run makes no call for a pair already answered. The key digests the model, the prompt
//! version, the claim text and each passage's item revision, span and given text: a note
//! that changes is another revision, so its old answers are never read again (stale by
//! construction). Only checked answers are kept; a failure is asked again next time.

use crate::answer::Checked;
use amem_records::Digest;
use amem_verify::combine::EndpointAnswer;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Mutex;

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS endpoint_answers (
    key BLOB PRIMARY KEY,
    method TEXT NOT NULL,
    answer_json TEXT NOT NULL,
    answered_at TEXT NOT NULL
) WITHOUT ROWID";

/// The answers table of one ledger file.
pub struct AnswerCache {
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for AnswerCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerCache").finish_non_exhaustive()
    }
}

/// A checked answer as stored.
#[derive(Serialize, Deserialize)]
struct Stored {
    status: String,
    quotes: Vec<(usize, usize, usize)>,
    missing: String,
}

impl AnswerCache {
    /// Open (and if needed create) the table in the SQLite file at `path`.
    ///
    /// # Errors
    /// The file cannot be opened or the table created.
    pub fn open(path: &Path) -> rusqlite::Result<AnswerCache> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.execute_batch(SCHEMA)?;
        Ok(AnswerCache { conn: Mutex::new(conn) })
    }

    /// The text stored under `key`, if any.
    pub fn get_text(&self, key: &Digest) -> Option<String> {
        let conn = self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        conn.query_row("SELECT answer_json FROM endpoint_answers WHERE key = ?1", params![key.0.as_slice()], |r| r.get(0))
            .optional()
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "cannot read the model answers table");
                None
            })
    }

    /// Store `text` under `key` (an entry already there is kept). The gate's roles store the
    /// model's checked reply as given and check it again when they read it back.
    pub fn put_text(&self, key: &Digest, method: &str, text: &str) {
        let now = jiff::Timestamp::now().to_string();
        let conn = self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(e) = conn.execute(
            "INSERT INTO endpoint_answers (key, method, answer_json, answered_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (key) DO NOTHING",
            params![key.0.as_slice(), method, text, now],
        ) {
            tracing::warn!(error = %e, "cannot store a model answer");
        }
    }

    /// The answer stored under `key`, if any.
    pub fn get(&self, key: &Digest) -> Option<Checked> {
        let s: Stored = serde_json::from_str(&self.get_text(key)?).ok()?;
        let answer = match s.status.as_str() {
            "supported" => EndpointAnswer::Supported,
            "contradicted" => EndpointAnswer::Contradicted,
            "not_enough_info" => EndpointAnswer::NotEnoughInfo,
            _ => return None,
        };
        Some(Checked { answer, quotes: s.quotes.into_iter().map(|(i, a, b)| (i, a..b)).collect(), missing: s.missing })
    }

    /// Store `answer` under `key` (an answer already there is kept).
    pub fn put(&self, key: &Digest, method: &str, answer: &Checked) {
        let status = match answer.answer {
            EndpointAnswer::Supported => "supported",
            EndpointAnswer::Contradicted => "contradicted",
            EndpointAnswer::NotEnoughInfo => "not_enough_info",
        };
        let stored = Stored {
            status: status.into(),
            quotes: answer.quotes.iter().map(|(i, r)| (*i, r.start, r.end)).collect(),
            missing: answer.missing.clone(),
        };
        if let Ok(json) = serde_json::to_string(&stored) {
            self.put_text(key, method, &json);
        }
    }
}
