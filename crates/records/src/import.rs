//! What every importer shares: the [`Source`] face it shows the rest of amem,
//! options, the error that carries a locator, and the end-of-run summary.

use crate::{Message, SourceKind, TimeWindow};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One importer, as the rest of amem sees it: what it reads, how to tell an archive of its
/// kind, and how to open one as a stream of messages. Each importer crate implements it once
/// per archive format it reads; `amem_audit::sources::SOURCES` lists them, in the order a
/// path of unknown kind is probed (docs/architecture.md, "Adding a source").
pub trait Source: Sync {
    /// The kind its messages carry.
    fn kind(&self) -> SourceKind;
    /// What an archive of this kind is, in words (said when a path is given as the wrong kind).
    fn describe(&self) -> &'static str;
    /// Whether `path` looks like an archive of this kind. Cheap: a header or a directory
    /// listing, never the whole archive.
    fn probe(&self, path: &Path) -> bool;
    /// Open `path` as a stream of messages.
    ///
    /// # Errors
    /// The archive cannot be opened at all (missing, unreadable, not this format);
    /// record-level problems come through the stream instead.
    fn open(&self, path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError>;
}

/// Options every importer takes.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Only messages sent inside this window. Importers filter as early as the
    /// format allows (day-file names, the `date` column, the `Date:` header)
    /// and before decoding bodies where they can.
    pub window: TimeWindow,
}

/// A record-level import failure. The stream goes on after it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{path}: {position}: {reason}")]
pub struct ImportError {
    /// The file (or archive member) involved.
    pub path: PathBuf,
    /// Where in it: `byte 1234`, `line 17`, `message[3]`, `ROWID 42`.
    pub position: String,
    /// A short machine-friendly category: `truncated`, `json`, `charset`,
    /// `date`, `sqlite`, `io`, `missing_field`, ...
    pub kind: String,
    /// What went wrong, in words.
    pub reason: String,
}

impl ImportError {
    /// A new error.
    pub fn new(path: impl Into<PathBuf>, position: impl Into<String>, kind: impl Into<String>, reason: impl Into<String>) -> Self {
        ImportError { path: path.into(), position: position.into(), kind: kind.into(), reason: reason.into() }
    }
}

/// A lazy stream of messages. Importers are synchronous iterators (they do
/// file I/O); the pipeline runs them on a blocking thread and feeds a
/// bounded channel.
pub type MessageStream = Box<dyn Iterator<Item = Result<Message, ImportError>> + Send>;

/// Counts for the end of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportSummary {
    /// Messages yielded.
    pub messages: u64,
    /// Messages yielded but marked not to be claims, by reason.
    pub not_claims: BTreeMap<String, u64>,
    /// Errors, by kind.
    pub skipped: BTreeMap<String, u64>,
}

impl ImportSummary {
    /// Count one item of the stream.
    pub fn count(&mut self, item: &Result<Message, ImportError>) {
        match item {
            Ok(m) => {
                self.messages += 1;
                if let Some(r) = &m.not_claims {
                    *self.not_claims.entry(r.clone()).or_default() += 1;
                }
            }
            Err(e) => *self.skipped.entry(e.kind.clone()).or_default() += 1,
        }
    }

    /// Total skipped.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}
