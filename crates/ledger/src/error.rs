//! The ledger's error enum.

use std::path::PathBuf;

/// What can go wrong opening or writing the ledger, or taking the home lock.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file exists but is not an SQLite database.
    #[error("{path} is not an amem ledger (not an SQLite database): move it away or point AMEM_HOME elsewhere")]
    NotADatabase {
        /// The ledger path.
        path: PathBuf,
        /// The SQLite error.
        #[source]
        source: rusqlite::Error,
    },
    /// The file is an SQLite database written by something else: it has
    /// tables named like the ledger's but no ledger schema version.
    #[error("{path} is an SQLite database but not an amem ledger (it has a `{table}` table and no ledger schema version): move it away")]
    Foreign {
        /// The ledger path.
        path: PathBuf,
        /// The conflicting table.
        table: String,
    },
    /// The ledger was written by a newer amem.
    #[error("{path} has ledger schema version {found}, newer than this amem knows ({known}): upgrade amem")]
    TooNew {
        /// The ledger path.
        path: PathBuf,
        /// Version in the file.
        found: i64,
        /// Latest version this build knows.
        known: i64,
    },
    /// Another process holds a lock on the database longer than the busy timeout.
    #[error("{path} is locked by another process (waited {waited_ms} ms): is another amem run or an sqlite3 shell using it?")]
    Busy {
        /// The ledger path.
        path: PathBuf,
        /// How long we waited.
        waited_ms: u64,
    },
    /// Any other SQLite failure, with what the ledger was doing.
    #[error("ledger {path}: {action}")]
    Sqlite {
        /// The ledger path.
        path: PathBuf,
        /// What was being done (`recording claims`, `migrating to version 2`...).
        action: String,
        /// The SQLite error.
        #[source]
        source: rusqlite::Error,
    },
    /// A stored row could not be decoded (a JSON column, a digest).
    #[error("ledger {path}: row {row} of `{table}` is unreadable: {reason}")]
    Corrupt {
        /// The ledger path.
        path: PathBuf,
        /// Table.
        table: String,
        /// Row id or key.
        row: String,
        /// What is wrong.
        reason: String,
    },
    /// A record could not be serialised for storage.
    #[error("cannot encode {what} for the ledger: {source}")]
    Encode {
        /// What was being encoded.
        what: String,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
    /// The run is not in the ledger (finish before begin).
    #[error("run {0} is not in the ledger: begin_run was not called")]
    UnknownRun(String),
    /// An assessment names a claim the ledger never recorded (claim id, hex).
    #[error("claim {0} is not in the ledger: record the message that made it first")]
    UnknownClaim(String),
    /// Another run holds the home lock.
    #[error("another amem run is using {home}: {holder}. Wait for it to finish; if that process is gone, delete {lock} and retry")]
    Locked {
        /// The home.
        home: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// Who holds it, in words (pid, host, since, command).
        holder: String,
    },
    /// The lock file could not be created, read or removed.
    #[error("home lock {path}: {source}")]
    LockIo {
        /// The lock file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The ledger's directory could not be created.
    #[error("cannot create the ledger directory {path}: {source}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The ledger's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
