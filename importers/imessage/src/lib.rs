//! `amem-importer-imessage`: an iMessage `chat.db`, opened read-only, turned
//! into a lazy stream of [`amem_records::Message`]s.
//!
//! Place in the data flow: first stage. `amem import imessage PATH` and
//! `amem audit --source imessage:PATH` call [`open`] through
//! `amem_audit::sources`; the stream feeds extraction.
//!
//! Input: the SQLite file (`~/Library/Messages/chat.db`, or a copy with its
//! `-wal`/`-shm` files beside it). Nothing is ever written beside it, not
//! even SQLite's `-shm` index ([`open_connection`]): a rollback-journal
//! database is opened `SQLITE_OPEN_READ_ONLY` (locks respected); a WAL
//! database with no log beside it is opened `immutable=1` (a read-only
//! connection would otherwise create `chat.db-shm`, and fails on read-only
//! media); a WAL database with a non-empty `chat.db-wal` is copied, with its
//! log, into a private temporary folder and read there, so the log's recent
//! messages are seen. Columns differ between macOS versions, so the query
//! names only the `message` columns `pragma table_info(message)` lists.
//! Rows are read in the order of SQLite's own integer row key (`_rowid_`,
//! whatever type the table declares for a `ROWID` column) in pages of
//! [`PAGE_ROWS`] (keyset paging), so memory does not grow with the database
//! and paging always ends.
//!
//! Output, one `Message` per `message` row:
//!
//! | field | value |
//! |---|---|
//! | `id` | `guid` |
//! | `conversation` | the chat `guid` (`iMessage;-;+1555…` one-to-one, `iMessage;+;chat…` group), else `handle:<id>` |
//! | `author` | `me` when `is_from_me`, else the handle (`+1555…`, `a@b.org`) |
//! | `recipients` | the chat's other participants (and `me` for received messages) |
//! | `sent_at` | `date`: seconds since 2001-01-01 UTC on old databases, nanoseconds on macOS 10.13+ ([`apple_time`]) |
//! | `subject` | the chat's `display_name`, else its `chat_identifier` |
//! | `text` | `text`, or when it is NULL or empty the text decoded from `attributedBody` ([`typedstream`]); U+FFFC attachment placeholders removed |
//! | `meta` | `rowid`, `service`, `chat_style` (`group`/`direct`), `text_source`, `attachment_placeholders`, `has_attachments`, `tapback`, `tapback_target`, `edited_at`, `unsent_at`, `item_type`, `thread_originator_guid`, `balloon_bundle_id`, `expressive_send_style_id`, `is_spam` |
//! | `not_claims` | `reaction` (tapbacks, `associated_message_type` 2000–3006), `sticker` (1000), `unsent`, `edited`, `group_event` (`item_type` ≠ 0) |
//!
//! Time windows are applied in SQL on the `date` column (both units), before
//! any `attributedBody` is read, then checked exactly per row.
//!
//! Errors: a missing path, a folder, a file that is not SQLite (wrong
//! header: an encrypted iOS-backup copy looks like this), a database that is
//! locked or malformed, or one without a `message` table fails [`open`] with
//! a sentence saying which. Per row, a missing or zero `date`, a `date`
//! stored as TEXT or REAL, a `date` out of range (before 2001 or from 2100,
//! in either unit), a `ROWID` value another row already has (when the table
//! declares `ROWID` as an ordinary column), and an undecodable
//! `attributedBody` (when `text` is NULL) are [`ImportError`]s at `ROWID n`
//! (kinds `date`, `duplicate_rowid`, `typedstream`), and the stream goes on:
//! the window filter in SQL lets every such row through to be counted. An SQLite error while paging (a
//! malformed page met mid-way) is yielded once and ends the stream, since
//! later pages cannot be reached without it.
//!
//! ```no_run
//! use amem_records::ImportOptions;
//! let stream = amem_importer_imessage::open("chat.db".as_ref(), &ImportOptions::default())?;
//! for m in stream.flatten() {
//!     println!("{} {}: {}", m.sent_at, m.author, m.text);
//! }
//! # Ok::<(), amem_records::ImportError>(())
//! ```
//!
//! Not handled: edit history in `message_summary_info` (a plist: only the
//! final text and the edit time are taken), the text of unsent parts,
//! attachment contents and their `attachment` rows (only the placeholder
//! count and `cache_has_attachments`), `payload_data` of app/balloon
//! messages (URL previews, Apple Pay), rich-link and mention attributes of
//! `attributedBody` (only its string is decoded), `deleted_messages` and
//! `recoverable_message_part` (recently deleted), contact names (handles are
//! phone numbers and addresses; the Contacts database is separate), and
//! encrypted iOS-backup copies (decrypt the backup first).
#![deny(missing_docs)]

pub mod typedstream;

use amem_records::{ImportError, ImportOptions, Message, MessageId, MessageStream, SourceKind, TimeWindow};
use jiff::Timestamp;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Unix time of the Apple (Cocoa) epoch, 2001-01-01T00:00:00Z.
pub const APPLE_EPOCH_UNIX: i64 = 978_307_200;

/// `date` values whose magnitude is above this are nanoseconds. Seconds since
/// 2001 stay below it until the year 5169; nanoseconds pass it 100 s after
/// the epoch. Old databases store seconds (plaso sample: 469908586 =
/// 2015-11-22); macOS 10.13+ stores nanoseconds (xevg sample:
/// 706018963580999808 = 2023-05-17).
pub const NANOS_THRESHOLD: i64 = 100_000_000_000;

/// Rows read per query. Keyset paging on `ROWID` keeps memory flat.
pub const PAGE_ROWS: i64 = 256;

/// How long to wait for a writer (Messages) to release the database.
const BUSY_TIMEOUT: Duration = Duration::from_millis(1000);

/// The latest `date` in seconds that is a message time: 2100-01-01 UTC.
/// Later values (up to [`NANOS_THRESHOLD`]) are out of range.
pub const SECONDS_MAX: i64 = 3_124_137_600;

/// The same bound in nanoseconds.
pub const NANOS_MAX: i64 = SECONDS_MAX * 1_000_000_000;

/// Why an integer `date` is not a message time, if it is not.
fn date_problem(raw: i64) -> Option<String> {
    if raw == 0 {
        Some("date is 0 (not set)".into())
    } else if raw < 0 {
        Some(format!("date {raw} is before 2001-01-01, the start of chat.db time"))
    } else if (SECONDS_MAX..=NANOS_THRESHOLD).contains(&raw) || raw > NANOS_MAX {
        Some(format!("date {raw} is out of range (2100 or later, in seconds or nanoseconds since 2001)"))
    } else {
        None
    }
}

/// Convert a chat.db `date` (seconds or nanoseconds since 2001-01-01 UTC,
/// told apart by magnitude) to a timestamp. `0` means "not set" and gives `None`.
pub fn apple_time(raw: i64) -> Option<Timestamp> {
    if raw == 0 {
        return None;
    }
    let (secs, nanos) =
        if raw.unsigned_abs() > NANOS_THRESHOLD as u64 { (raw.div_euclid(1_000_000_000), raw.rem_euclid(1_000_000_000)) } else { (raw, 0) };
    Timestamp::new(APPLE_EPOCH_UNIX.checked_add(secs)?, i32::try_from(nanos).ok()?).ok()
}

/// What can stop a chat.db from being opened.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The path does not exist, is a folder, or cannot be read.
    #[error("{path}: {why}")]
    Path {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        why: String,
    },
    /// The file does not start with the SQLite header.
    #[error(
        "{0} is not a SQLite database (no \"SQLite format 3\" header): an encrypted copy (iOS backups encrypt chat.db; decrypt the backup first) or another kind of file"
    )]
    NotSqlite(PathBuf),
    /// Another process holds a lock.
    #[error(
        "{0} is locked by another process (Messages may be writing it): quit Messages, or copy chat.db with chat.db-wal and chat.db-shm and import the copy"
    )]
    Locked(PathBuf),
    /// SQLite says the file is damaged.
    #[error("{path} is damaged: {why}")]
    Corrupt {
        /// The path.
        path: PathBuf,
        /// SQLite's message.
        why: String,
    },
    /// A valid SQLite file without the Messages tables.
    #[error("{path} is a SQLite database but not a Messages chat.db: {why}")]
    NotMessages {
        /// The path.
        path: PathBuf,
        /// What is missing.
        why: String,
    },
    /// Any other SQLite failure.
    #[error("{path}: sqlite: {source}")]
    Sqlite {
        /// The path.
        path: PathBuf,
        /// The error.
        source: rusqlite::Error,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    fn kind(&self) -> &'static str {
        match self {
            Error::Path { .. } => "io",
            Error::NotSqlite(_) => "not_sqlite",
            Error::Locked(_) => "locked",
            Error::Corrupt { .. } => "corrupt",
            Error::NotMessages { .. } => "not_messages",
            Error::Sqlite { .. } => "sqlite",
        }
    }

    fn path(&self) -> &Path {
        match self {
            Error::Path { path, .. } | Error::Corrupt { path, .. } | Error::NotMessages { path, .. } | Error::Sqlite { path, .. } => path,
            Error::NotSqlite(p) | Error::Locked(p) => p,
        }
    }

    /// Map an SQLite error to the variant a user can act on.
    fn from_sqlite(path: &Path, e: rusqlite::Error) -> Error {
        use rusqlite::ErrorCode as C;
        match e.sqlite_error_code() {
            Some(C::DatabaseBusy | C::DatabaseLocked) => Error::Locked(path.to_path_buf()),
            Some(C::NotADatabase) => Error::NotSqlite(path.to_path_buf()),
            Some(C::DatabaseCorrupt) => Error::Corrupt { path: path.to_path_buf(), why: e.to_string() },
            _ => Error::Sqlite { path: path.to_path_buf(), source: e },
        }
    }
}

impl From<Error> for ImportError {
    fn from(e: Error) -> Self {
        ImportError::new(e.path(), "start", e.kind(), e.to_string())
    }
}

/// Open a chat.db as a lazy stream of messages.
///
/// # Errors
/// See the crate docs: the path, the header, a lock, damage, or a database
/// without a `message` table. Row-level problems come through the stream.
pub fn open(path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
    Ok(Box::new(ChatDb::open(path, opts.window)?))
}

/// A cheap look: is `path` a SQLite file with a `message` table (an
/// iMessage `chat.db`)? Reads the 16-byte header, then the schema,
/// read-only; never an error.
///
/// It opens the file as [`open`] does ([`open_connection`]): a plain
/// read-only open of a WAL database would create `chat.db-shm` beside it,
/// and in a read-only folder fail and call a real chat.db "not iMessage".
pub fn probe(path: &Path) -> bool {
    let Ok(wal) = check_header(path) else { return false };
    open_connection(path, wal).ok().and_then(|(c, _copy)| table_names(&c).ok()).is_some_and(|t| t.contains("message"))
}

/// `message` columns read when present, in this order after `ROWID, guid, date`.
const OPTIONAL_COLUMNS: [&str; 15] = [
    "text",
    "attributedBody",
    "handle_id",
    "is_from_me",
    "service",
    "associated_message_type",
    "associated_message_guid",
    "date_edited",
    "date_retracted",
    "item_type",
    "cache_has_attachments",
    "thread_originator_guid",
    "balloon_bundle_id",
    "expressive_send_style_id",
    "is_spam",
];

/// Column positions in the page query.
mod col {
    pub(crate) const ROWID: usize = 0;
    pub(crate) const GUID: usize = 1;
    pub(crate) const DATE: usize = 2;
    pub(crate) const OPT: usize = 3; // OPTIONAL_COLUMNS start here
    pub(crate) const HANDLE: usize = OPT + super::OPTIONAL_COLUMNS.len();
    pub(crate) const CHAT_ROWID: usize = HANDLE + 1;
    pub(crate) const CHAT_GUID: usize = HANDLE + 2;
    pub(crate) const CHAT_NAME: usize = HANDLE + 3;
    pub(crate) const CHAT_IDENT: usize = HANDLE + 4;
    pub(crate) const CHAT_STYLE: usize = HANDLE + 5;
    pub(crate) const DECLARED_ROWID: usize = HANDLE + 6;
}

fn opt(name: &str) -> usize {
    col::OPT + OPTIONAL_COLUMNS.iter().position(|c| *c == name).unwrap_or(0)
}

struct ChatDb {
    conn: Connection,
    path: PathBuf,
    label: String,
    window: TimeWindow,
    sql: String,
    bounds: [i64; 4],
    has_participants: bool,
    last_rowid: i64,
    done: bool,
    page: VecDeque<Result<Message, ImportError>>,
    participants: BTreeMap<i64, Vec<String>>,
    /// Declared `ROWID` values seen, with the row key that had each, when
    /// `ROWID` is an ordinary column (its values may repeat).
    seen_rowids: Option<BTreeMap<String, i64>>,
    /// The private copy read instead of a WAL database with a live log.
    _copy: Option<tempfile::TempDir>,
}

/// Read only the first 20 bytes: a file that is not SQLite (or is encrypted)
/// is refused before SQLite sees it. Returns true for a WAL-mode database
/// (file format write version 2, byte 18 of the header).
fn check_header(path: &Path) -> Result<bool> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| Error::Path { path: path.to_path_buf(), why: format!("cannot read: {e}") })?;
    if meta.is_dir() {
        return Err(Error::Path {
            path: path.to_path_buf(),
            why: "is a folder: pass the chat.db file itself (~/Library/Messages/chat.db)".into(),
        });
    }
    if !meta.is_file() {
        // A FIFO would block the read below; a device is no database.
        return Err(Error::Path { path: path.to_path_buf(), why: "is not a regular file: pass the chat.db file itself".into() });
    }
    let mut head = [0u8; 20];
    let mut f = std::fs::File::open(path).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::PermissionDenied {
            // macOS guards ~/Library/Messages behind Full Disk Access.
            " (on macOS, give the terminal Full Disk Access in System Settings > Privacy & Security, or import a copy)"
        } else {
            ""
        };
        Error::Path { path: path.to_path_buf(), why: format!("cannot open: {e}{hint}") }
    })?;
    if f.read_exact(&mut head[..16]).is_err() || &head[..16] != b"SQLite format 3\0" {
        return Err(Error::NotSqlite(path.to_path_buf()));
    }
    Ok(f.read_exact(&mut head[16..]).is_ok() && head[18] == 2)
}

/// `path` with `suffix` appended to its file name (`chat.db` -> `chat.db-wal`).
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// A path as an SQLite URI filename: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | '?' | '#' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Open the database without writing anything beside it (see the crate
/// docs). The second value, when set, is the private copy being read; it
/// is removed when dropped.
fn open_connection(path: &Path, wal: bool) -> Result<(Connection, Option<tempfile::TempDir>)> {
    let sqlite = |e| Error::from_sqlite(path, e);
    let log = sibling(path, "-wal");
    if wal && std::fs::metadata(&log).is_ok_and(|m| m.len() > 0) {
        let io =
            |e: std::io::Error| Error::Path { path: path.to_path_buf(), why: format!("cannot copy it with its -wal log to read it: {e}") };
        let dir = tempfile::Builder::new().prefix("amem-chat-db-").tempdir().map_err(io)?;
        let copy = dir.path().join("chat.db");
        std::fs::copy(path, &copy).map_err(io)?;
        std::fs::copy(&log, dir.path().join("chat.db-wal")).map_err(io)?;
        let conn =
            Connection::open_with_flags(&copy, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(sqlite)?;
        return Ok((conn, Some(dir)));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let uri = if wal { format!("file:{}?immutable=1", uri_path(path)) } else { format!("file:{}?mode=ro", uri_path(path)) };
    Ok((Connection::open_with_flags(uri, flags).map_err(sqlite)?, None))
}

/// How `message` rows are addressed: SQLite's integer row key, under a name
/// the table does not declare, and whether a declared `ROWID` column is an
/// ordinary column (not the key's alias) whose values may repeat.
fn row_key(conn: &Connection) -> rusqlite::Result<Option<(&'static str, bool)>> {
    let mut st = conn.prepare("PRAGMA table_info(message)")?;
    let cols: Vec<(String, String, i64)> = st
        .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(5)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let declared = |n: &str| cols.iter().find(|(c, _, _)| c.eq_ignore_ascii_case(n));
    let pks = cols.iter().filter(|(_, _, pk)| *pk > 0).count();
    let ordinary_rowid = declared("ROWID").is_some_and(|(_, ty, pk)| !(ty.eq_ignore_ascii_case("INTEGER") && *pk == 1 && pks == 1));
    Ok(["_rowid_", "oid", "rowid"].into_iter().find(|n| declared(n).is_none()).map(|k| (k, ordinary_rowid)))
}

fn table_names(conn: &Connection) -> rusqlite::Result<BTreeSet<String>> {
    let mut st = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?;
    let rows = st.query_map([], |r| r.get::<_, String>(0))?;
    rows.collect()
}

fn columns(conn: &Connection, table: &str) -> rusqlite::Result<BTreeSet<String>> {
    // Table names come from a fixed list in this file, never from input.
    let mut st = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let rows = st.query_map([], |r| r.get::<_, String>(1))?;
    rows.collect()
}

/// SQL bounds for the window on `date`, as `[since_s, until_s, since_ns, until_ns]`
/// in Apple-epoch units, widened to whole seconds (rows are checked exactly later).
fn sql_bounds(w: &TimeWindow) -> [i64; 4] {
    let secs = |t: Timestamp, up: bool| {
        let s = t.as_second() - APPLE_EPOCH_UNIX;
        if up && t.subsec_nanosecond() > 0 { s + 1 } else { s }
    };
    let nanos = |t: Timestamp| -> i64 {
        let n = t.as_nanosecond() - i128::from(APPLE_EPOCH_UNIX) * 1_000_000_000;
        i64::try_from(n).unwrap_or(if n < 0 { i64::MIN } else { i64::MAX })
    };
    [
        w.since.map_or(i64::MIN, |t| secs(t, false)),
        w.until.map_or(i64::MAX, |t| secs(t, true)),
        w.since.map_or(i64::MIN, nanos),
        w.until.map_or(i64::MAX, nanos),
    ]
}

impl ChatDb {
    fn open(path: &Path, window: TimeWindow) -> Result<Self> {
        let wal = check_header(path)?;
        let (conn, copy) = open_connection(path, wal)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| Error::from_sqlite(path, e))?;
        let tables = table_names(&conn).map_err(|e| Error::from_sqlite(path, e))?;
        if !tables.contains("message") {
            return Err(Error::NotMessages { path: path.to_path_buf(), why: "it has no message table".into() });
        }
        let cols = columns(&conn, "message").map_err(|e| Error::from_sqlite(path, e))?;
        for needed in ["guid", "date"] {
            if !cols.contains(needed) {
                return Err(Error::NotMessages { path: path.to_path_buf(), why: format!("its message table has no {needed} column") });
            }
        }
        let Some((key, ordinary_rowid)) = row_key(&conn).map_err(|e| Error::from_sqlite(path, e))? else {
            return Err(Error::NotMessages {
                path: path.to_path_buf(),
                why: "its message table declares columns named _rowid_, oid and rowid, so its rows cannot be addressed".into(),
            });
        };
        let mut select = vec![format!("m.{key}"), "m.guid".into(), "m.date".into()];
        for c in OPTIONAL_COLUMNS {
            select.push(if cols.contains(c) { format!("m.{c}") } else { "NULL".into() });
        }
        let has_handle = tables.contains("handle") && cols.contains("handle_id");
        let has_chat = tables.contains("chat") && tables.contains("chat_message_join");
        select.push(if has_handle { "h.id".into() } else { "NULL".into() });
        for c in ["ROWID", "guid", "display_name", "chat_identifier", "style"] {
            select.push(if has_chat { format!("c.{c}") } else { "NULL".into() });
        }
        select.push(if ordinary_rowid { "m.ROWID".into() } else { "NULL".into() });
        let mut sql = format!("SELECT {} FROM message m", select.join(", "));
        if has_handle {
            sql.push_str(" LEFT JOIN handle h ON h.ROWID = m.handle_id");
        }
        if has_chat {
            // A message may be joined to several chats (rare); take the lowest chat id.
            // Join rows pointing at deleted messages (the plaso sample) are never reached.
            sql.push_str(
                " LEFT JOIN chat c ON c.ROWID = (SELECT min(cmj.chat_id) FROM chat_message_join cmj WHERE cmj.message_id = m.ROWID)",
            );
        }
        // The window on `date`, for both units, before any body is read.
        // Only integer dates in range are filtered here: every other row
        // (NULL, 0, TEXT, REAL, out of range) goes through to be reported.
        // (No abs(): it raises an overflow error on i64::MIN.)
        let secs = format!("m.date BETWEEN 1 AND {}", SECONDS_MAX - 1);
        let nanos = format!("m.date BETWEEN {} AND {NANOS_MAX}", NANOS_THRESHOLD + 1);
        sql.push_str(&format!(
            " WHERE m.{key} > ?1 AND (typeof(m.date) != 'integer' OR ({secs} AND m.date >= ?2 AND m.date < ?3) OR ({nanos} AND m.date >= ?4 AND m.date < ?5) OR NOT ({secs} OR {nanos})) ORDER BY m.{key} LIMIT ?6"
        ));
        // Prepare now so a schema problem is an open error, not a stream error.
        conn.prepare(&sql).map_err(|e| Error::from_sqlite(path, e))?;
        let has_participants = tables.contains("chat_handle_join") && tables.contains("handle") && has_chat;
        Ok(ChatDb {
            conn,
            path: path.to_path_buf(),
            label: path.display().to_string(),
            window,
            sql,
            bounds: sql_bounds(&window),
            has_participants,
            last_rowid: i64::MIN,
            done: false,
            page: VecDeque::new(),
            participants: BTreeMap::new(),
            seen_rowids: ordinary_rowid.then(BTreeMap::new),
            _copy: copy,
        })
    }

    /// Read the next page of rows into `self.page`.
    fn fill(&mut self) -> rusqlite::Result<()> {
        let mut raws = Vec::new();
        {
            let mut st = self.conn.prepare_cached(&self.sql)?;
            let [s0, u0, s1, u1] = self.bounds;
            let mut rows = st.query(rusqlite::params![self.last_rowid, s0, u0, s1, u1, PAGE_ROWS])?;
            while let Some(r) = rows.next()? {
                raws.push(RawRow::read(r));
            }
        }
        if raws.is_empty() {
            self.done = true;
        }
        for raw in raws {
            self.last_rowid = raw.rowid;
            if let Some(item) = self.convert(raw) {
                self.page.push_back(item);
            }
        }
        Ok(())
    }

    fn chat_participants(&mut self, chat_rowid: i64) -> Vec<String> {
        if !self.has_participants {
            return Vec::new();
        }
        if let Some(p) = self.participants.get(&chat_rowid) {
            return p.clone();
        }
        let list = (|| -> rusqlite::Result<Vec<String>> {
            let mut st = self.conn.prepare_cached(
                "SELECT h.id FROM chat_handle_join chj JOIN handle h ON h.ROWID = chj.handle_id WHERE chj.chat_id = ?1 ORDER BY h.id",
            )?;
            let rows = st.query_map([chat_rowid], |r| r.get::<_, Option<String>>(0))?;
            Ok(rows.filter_map(|r| r.ok().flatten()).collect())
        })()
        .unwrap_or_default();
        self.participants.insert(chat_rowid, list.clone());
        list
    }

    /// One row to a message; `None` when outside the window.
    fn convert(&mut self, raw: RawRow) -> Option<Result<Message, ImportError>> {
        let pos = format!("ROWID {}", raw.rowid);
        let err = |kind: &str, reason: String| ImportError::new(&self.path, pos.clone(), kind, reason);
        if let (Some(seen), Some(v)) = (self.seen_rowids.as_mut(), raw.declared_rowid.as_ref()) {
            if let Some(first) = seen.get(v) {
                return Some(Err(err(
                    "duplicate_rowid",
                    format!(
                        "ROWID {v} is also the ROWID of row {first}: chats point to messages by ROWID, so this row cannot be placed; not imported"
                    ),
                )));
            }
            seen.insert(v.clone(), raw.rowid);
        }
        let date = match raw.date {
            DateCell::Integer(n) => n,
            DateCell::Null => return Some(Err(err("date", "date is NULL".into()))),
            DateCell::Other(kind, v) => return Some(Err(err("date", format!("date is stored as {kind} ({v}), not an integer time")))),
        };
        if let Some(problem) = date_problem(date) {
            return Some(Err(err("date", problem)));
        }
        let Some(sent_at) = apple_time(date) else {
            return Some(Err(err("date", format!("date {date} is not a time"))));
        };
        if !self.window.contains(sent_at) {
            return None;
        }
        let mut meta = BTreeMap::new();
        meta.insert("rowid".to_string(), raw.rowid.to_string());
        // `text` when it has anything; else the body. An empty `text` with an
        // undecodable body stays an empty message rather than an error.
        let text_col = raw.text.as_ref().filter(|t| !t.is_empty());
        let (text_raw, source) = match (text_col, &raw.body) {
            (Some(t), _) => (t.clone(), "text"),
            (None, Some(b)) => match typedstream::decode_text(b) {
                Ok(d) => {
                    if d.lossy {
                        meta.insert("text_lossy".into(), "true".into());
                    }
                    (d.text, "attributed_body")
                }
                Err(_) if raw.text.is_some() => (String::new(), "text"),
                Err(e) => return Some(Err(err("typedstream", format!("text is NULL and attributedBody cannot be decoded: {e}")))),
            },
            (None, None) => (String::new(), if raw.text.is_some() { "text" } else { "none" }),
        };
        meta.insert("text_source".into(), source.into());
        // U+FFFC marks where an attachment sits in the text (xevg sample row 1602655).
        let placeholders = text_raw.matches('\u{FFFC}').count();
        if placeholders > 0 {
            meta.insert("attachment_placeholders".into(), placeholders.to_string());
        }
        let text = if placeholders > 0 {
            text_raw.replace('\u{FFFC}', "").trim().to_string()
        } else if text_raw.trim().len() == text_raw.len() {
            text_raw
        } else {
            text_raw.trim().to_string()
        };

        let from_me = raw.is_from_me == Some(1);
        let author = if from_me { "me".to_string() } else { raw.handle.clone().unwrap_or_else(|| "unknown".into()) };
        let mut recipients: Vec<String> = match raw.chat_rowid {
            Some(c) => self.chat_participants(c),
            None => raw.handle.iter().cloned().collect(),
        };
        recipients.retain(|r| *r != author);
        if !from_me {
            recipients.insert(0, "me".into());
        }
        let conversation = raw
            .chat_guid
            .clone()
            .or_else(|| raw.handle.as_ref().map(|h| format!("handle:{h}")))
            .unwrap_or_else(|| format!("rowid:{}", raw.rowid));
        let subject = raw.chat_name.clone().filter(|s| !s.is_empty()).or_else(|| raw.chat_ident.clone());
        if let Some(s) = raw.chat_style {
            // chat.style: 43 = group, 45 = one-to-one (xevg sample).
            meta.insert("chat_style".into(), if s == 43 { "group".into() } else { "direct".into() });
        }
        for (k, v) in [
            ("service", &raw.service),
            ("thread_originator_guid", &raw.thread_originator),
            ("balloon_bundle_id", &raw.balloon),
            ("expressive_send_style_id", &raw.effect),
        ] {
            if let Some(v) = v.as_ref().filter(|v| !v.is_empty()) {
                meta.insert(k.into(), v.clone());
            }
        }
        if raw.has_attachments == Some(1) {
            meta.insert("has_attachments".into(), "true".into());
        }
        if raw.is_spam == Some(1) {
            meta.insert("is_spam".into(), "true".into());
        }

        let mut not_claims = None;
        let assoc = raw.assoc_type.unwrap_or(0);
        if (2000..=3006).contains(&assoc) {
            meta.insert("tapback".into(), tapback_name(assoc).into());
            if let Some(g) = &raw.assoc_guid {
                meta.insert("tapback_target".into(), g.clone());
            }
            not_claims = Some("reaction");
        } else if assoc == 1000 {
            not_claims = Some("sticker");
        }
        let retracted = raw.date_retracted.and_then(apple_time);
        let edited = raw.date_edited.and_then(apple_time);
        if let Some(t) = retracted {
            meta.insert("unsent_at".into(), t.to_string());
            not_claims = not_claims.or(Some("unsent"));
        }
        if let Some(t) = edited {
            meta.insert("edited_at".into(), t.to_string());
            // macOS 13 empties an unsent message and stamps date_edited.
            not_claims = not_claims.or(Some(if text.is_empty() { "unsent" } else { "edited" }));
        }
        if let Some(it) = raw.item_type.filter(|t| *t != 0) {
            meta.insert("item_type".into(), it.to_string());
            not_claims = not_claims.or(Some("group_event"));
        }
        Some(Ok(Message {
            source: SourceKind::IMESSAGE,
            archive: self.label.clone(),
            conversation,
            id: MessageId(raw.guid.clone().unwrap_or_else(|| format!("rowid:{}", raw.rowid))),
            author,
            recipients,
            sent_at,
            subject,
            text,
            quoted: Vec::new(),
            locator: format!("{}:ROWID {}", self.label, raw.rowid),
            meta,
            not_claims: not_claims.map(str::to_string),
        }))
    }
}

/// Tapback names by `associated_message_type`: 2000–2006 added, 3000–3006
/// removed (love, like, dislike, laugh, emphasize, question, emoji).
fn tapback_name(t: i64) -> &'static str {
    const NAMES: [&str; 7] = ["love", "like", "dislike", "laugh", "emphasize", "question", "emoji"];
    let name = usize::try_from(t % 1000).ok().and_then(|i| NAMES.get(i)).copied().unwrap_or("other");
    if t >= 3000 {
        match name {
            "love" => "remove_love",
            "like" => "remove_like",
            "dislike" => "remove_dislike",
            "laugh" => "remove_laugh",
            "emphasize" => "remove_emphasize",
            "question" => "remove_question",
            "emoji" => "remove_emoji",
            _ => "remove_other",
        }
    } else {
        name
    }
}

/// One row as read, with lenient typing: chat.db columns are declared loosely
/// and old rows hold text where integers are expected.
struct RawRow {
    rowid: i64,
    guid: Option<String>,
    date: DateCell,
    declared_rowid: Option<String>,
    text: Option<String>,
    body: Option<Vec<u8>>,
    is_from_me: Option<i64>,
    service: Option<String>,
    assoc_type: Option<i64>,
    assoc_guid: Option<String>,
    date_edited: Option<i64>,
    date_retracted: Option<i64>,
    item_type: Option<i64>,
    has_attachments: Option<i64>,
    thread_originator: Option<String>,
    balloon: Option<String>,
    effect: Option<String>,
    is_spam: Option<i64>,
    handle: Option<String>,
    chat_rowid: Option<i64>,
    chat_guid: Option<String>,
    chat_name: Option<String>,
    chat_ident: Option<String>,
    chat_style: Option<i64>,
}

/// The `date` cell as stored: only an integer is a chat.db time.
enum DateCell {
    Integer(i64),
    Null,
    /// `TEXT`, `REAL` or `BLOB`, and the value shown.
    Other(&'static str, String),
}

fn date_at(r: &rusqlite::Row<'_>, i: usize) -> DateCell {
    match r.get_ref(i) {
        Ok(ValueRef::Integer(n)) => DateCell::Integer(n),
        Ok(ValueRef::Null) | Err(_) => DateCell::Null,
        Ok(ValueRef::Real(f)) => DateCell::Other("REAL", f.to_string()),
        Ok(ValueRef::Text(t)) => DateCell::Other("TEXT", format!("{:?}", String::from_utf8_lossy(&t[..t.len().min(40)]))),
        Ok(ValueRef::Blob(b)) => DateCell::Other("BLOB", format!("{} bytes", b.len())),
    }
}

fn int_at(r: &rusqlite::Row<'_>, i: usize) -> Option<i64> {
    match r.get_ref(i).ok()? {
        ValueRef::Integer(n) => Some(n),
        ValueRef::Real(f) if f.is_finite() => Some(f as i64),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

fn text_at(r: &rusqlite::Row<'_>, i: usize) -> Option<String> {
    match r.get_ref(i).ok()? {
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Integer(n) => Some(n.to_string()),
        _ => None,
    }
}

fn blob_at(r: &rusqlite::Row<'_>, i: usize) -> Option<Vec<u8>> {
    match r.get_ref(i).ok()? {
        ValueRef::Blob(b) | ValueRef::Text(b) => Some(b.to_vec()),
        _ => None,
    }
}

impl RawRow {
    fn read(r: &rusqlite::Row<'_>) -> RawRow {
        RawRow {
            // The row key is SQLite's integer rowid: always an integer.
            rowid: int_at(r, col::ROWID).unwrap_or(0),
            guid: text_at(r, col::GUID),
            date: date_at(r, col::DATE),
            declared_rowid: text_at(r, col::DECLARED_ROWID),
            text: text_at(r, opt("text")),
            body: blob_at(r, opt("attributedBody")),
            is_from_me: int_at(r, opt("is_from_me")),
            service: text_at(r, opt("service")),
            assoc_type: int_at(r, opt("associated_message_type")),
            assoc_guid: text_at(r, opt("associated_message_guid")),
            date_edited: int_at(r, opt("date_edited")),
            date_retracted: int_at(r, opt("date_retracted")),
            item_type: int_at(r, opt("item_type")),
            has_attachments: int_at(r, opt("cache_has_attachments")),
            thread_originator: text_at(r, opt("thread_originator_guid")),
            balloon: text_at(r, opt("balloon_bundle_id")),
            effect: text_at(r, opt("expressive_send_style_id")),
            is_spam: int_at(r, opt("is_spam")),
            handle: text_at(r, col::HANDLE),
            chat_rowid: int_at(r, col::CHAT_ROWID),
            chat_guid: text_at(r, col::CHAT_GUID),
            chat_name: text_at(r, col::CHAT_NAME),
            chat_ident: text_at(r, col::CHAT_IDENT),
            chat_style: int_at(r, col::CHAT_STYLE),
        }
    }
}

impl Iterator for ChatDb {
    type Item = Result<Message, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.page.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            if let Err(e) = self.fill() {
                self.done = true;
                let e = Error::from_sqlite(&self.path, e);
                let pos = if self.last_rowid == i64::MIN { "start".to_string() } else { format!("after ROWID {}", self.last_rowid) };
                return Some(Err(ImportError::new(&self.path, pos, e.kind(), e.to_string())));
            }
        }
    }
}

/// An iMessage chat.db, as amem's importers are listed ([`amem_records::Source`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct ImessageSource;

impl amem_records::Source for ImessageSource {
    fn kind(&self) -> amem_records::SourceKind {
        amem_records::SourceKind::IMESSAGE
    }
    fn describe(&self) -> &'static str {
        "an iMessage chat.db (a SQLite file with a message table)"
    }
    fn probe(&self, path: &Path) -> bool {
        probe(path)
    }
    fn open(&self, path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
        open(path, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apple_time_seconds_era() {
        // plaso sample, OS X 10.10/10.11: seconds.
        assert_eq!(apple_time(469908586).unwrap().to_string(), "2015-11-22T18:09:46Z");
    }

    #[test]
    fn apple_time_nanoseconds_era() {
        // xevg sample, macOS 13: nanoseconds.
        assert_eq!(apple_time(706018963580999808).unwrap().to_string(), "2023-05-17T12:22:43.580999808Z");
    }

    #[test]
    fn apple_time_edges() {
        assert_eq!(apple_time(0), None);
        assert_eq!(apple_time(1).unwrap().to_string(), "2001-01-01T00:00:01Z");
        assert_eq!(apple_time(NANOS_THRESHOLD + 1).unwrap().to_string(), "2001-01-01T00:01:40.000000001Z");
        assert!(apple_time(i64::MAX).is_some());
        assert!(apple_time(i64::MIN).is_some());
        // The largest seconds value is still a date (year 5169).
        assert!(apple_time(NANOS_THRESHOLD).unwrap().to_string().starts_with("5169-"));
    }

    #[test]
    fn tapbacks() {
        assert_eq!(tapback_name(2000), "love");
        assert_eq!(tapback_name(2005), "question");
        assert_eq!(tapback_name(3001), "remove_like");
        assert_eq!(tapback_name(2006), "emoji");
    }

    #[test]
    fn bounds_cover_both_units() {
        let w = TimeWindow { since: Some("2015-11-22T00:00:00Z".parse().unwrap()), until: Some("2015-11-23T00:00:00Z".parse().unwrap()) };
        let [s, u, sn, un] = sql_bounds(&w);
        assert!(s <= 469908586 && 469908586 < u);
        assert_eq!(sn, s * 1_000_000_000);
        assert_eq!(un, u * 1_000_000_000);
    }
}
