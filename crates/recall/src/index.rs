//! The full-text index: the only code that writes SQL for the wiki.
//!
//! It lives in `$AMEM_HOME/ledger.sqlite`, the same SQLite file as the ledger
//! (CRATES.md §5.1: one file, one transaction), in tables whose names all
//! start with `wiki_`; the ledger owns every other table. The file is opened
//! in WAL mode with a busy timeout so the ledger and the index can be open at
//! once.
//!
//! Tables (names are the constants below):
//! - [`T_META`]: `key`, `value`: the schema version and the last run's counts.
//! - [`T_ITEMS`]: one row per item revision (id, digest, front matter, path,
//!   and when the note was written: `written_at`, RFC 3339 UTC, from the
//!   front matter key named in `written_from`, or `mtime` for the file's
//!   modification time when the front matter gives none).
//! - [`T_FILES`]: one row per wiki file: path, item id, digest, size, mtime;
//!   what the last committed index run saw, used to skip unchanged files.
//! - [`T_CHUNKS`]: the chunk texts, `(item_id, chunk_no)` unique.
//! - [`T_FTS`]: an FTS5 table over each chunk's text and its item's title
//!   (external content read through the view [`V_CHUNK_DOCS`], kept in step
//!   by triggers on [`T_CHUNKS`]), `porter` stemming over `unicode61`, ranked
//!   by bm25 with [`TITLE_WEIGHT`].
//! - [`T_VECTORS`]: each chunk's embedding (its item's title and text) by the
//!   embedder [`EMBEDDER_KEY`] names, for recall by meaning (`crate::dense`);
//!   filled in the index run's transaction, deleted with its chunk.
//! - [`T_POSTINGS`]: the same postings as FTS5's, per stem in one blob, for
//!   ranking without FTS5 (`Wiki::rank_by_postings`); kept in step by each
//!   commit and trusted only at the generation it was written for.

use crate::error::{Error, Result};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Transaction, params};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

mod write;
pub(crate) use write::Writer;

/// Version of the wiki tables' layout. Bump on any change; an older layout is
/// rebuilt (it is derived data), a newer one is refused. 3: items carry when
/// the note was written (`written_at`, `written_from`). 4: chunk vectors
/// ([`T_VECTORS`]).
pub const SCHEMA_VERSION: i64 = 4;
/// Key/value table: schema version, last run.
pub const T_META: &str = "wiki_meta";
/// Item revisions.
pub const T_ITEMS: &str = "wiki_items";
/// Files seen by the last committed index run.
pub const T_FILES: &str = "wiki_files";
/// Chunk texts.
pub const T_CHUNKS: &str = "wiki_chunks";
/// Chunk vectors for recall by meaning (`crate::dense`): chunk row id and the
/// stored vector, made by the embedder [`EMBEDDER_KEY`] names.
pub const T_VECTORS: &str = "wiki_vectors";
/// The `wiki_meta` key of the embedder that made every row of [`T_VECTORS`]
/// (`amem_models::StaticEmbedder::id`).
pub const EMBEDDER_KEY: &str = "embedder";
/// The FTS5 index over chunk texts and their item's title.
pub const T_FTS: &str = "wiki_fts";
/// The view FTS5 reads its content from: chunk id, chunk text, item title.
pub const V_CHUNK_DOCS: &str = "wiki_chunk_docs";
/// bm25 weight of a title match relative to a text match. A chunk's title
/// says what the whole item is about, so it helps rank the right item's
/// chunks first. On the Climate-FEVER dev presence measure, indexing titles at
/// equal weight raised verbatim presence at k = 1/3/5 from 24.9/44.8/54.1% to
/// 25.4/46.7/56.8% (0.25: 25.1/45.5/55.6%; 2.0: 25.2/46.3/57.3%).
pub const TITLE_WEIGHT: f64 = 1.0;
/// bm25's k1, as FTS5 sets it.
pub(crate) const BM25_K1: f64 = 1.2;
/// bm25's b, as FTS5 sets it.
pub(crate) const BM25_B: f64 = 0.75;
/// Tokenizer: porter stemming over unicode61, accents folded.
pub const TOKENIZER: &str = "porter unicode61 remove_diacritics 2";
/// How long a writer waits for another process's lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// One item revision as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ItemRow {
    pub(crate) id: String,
    pub(crate) digest: String,
    pub(crate) kind: String,
    pub(crate) title: Option<String>,
    pub(crate) source_url: Option<String>,
    pub(crate) retrieved_at: Option<String>,
    pub(crate) indexed_at: String,
    /// When the note was written, RFC 3339 UTC (see [`crate::Hit::written_at`]).
    pub(crate) written_at: Option<String>,
    /// Where that time came from: a front matter key, or `mtime`.
    pub(crate) written_from: Option<String>,
    pub(crate) path: String,
    pub(crate) bytes: i64,
    pub(crate) chunks: i64,
}

/// One wiki file as the last run saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileRow {
    pub(crate) path: String,
    pub(crate) item_id: String,
    pub(crate) digest: String,
    pub(crate) size: i64,
    pub(crate) mtime_ns: i64,
}

/// A chunk with its item, as returned by search and lookup.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ChunkRow {
    pub(crate) item: ItemRow,
    pub(crate) chunk_no: u32,
    pub(crate) text: String,
    /// bm25 as FTS5 computes it (lower is better); 0 for a lookup.
    pub(crate) bm25: f64,
}

impl crate::postings::Weighed for std::sync::Arc<ChunkRow> {
    fn bytes(&self) -> usize {
        let i = &self.item;
        let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        std::mem::size_of::<ChunkRow>()
            + self.text.len()
            + i.id.len()
            + i.digest.len()
            + i.kind.len()
            + i.indexed_at.len()
            + i.path.len()
            + opt(&i.title)
            + opt(&i.source_url)
            + opt(&i.retrieved_at)
            + opt(&i.written_at)
            + opt(&i.written_from)
    }
}

/// Counts of what the index holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Item revisions.
    pub items: u64,
    /// Chunks.
    pub chunks: u64,
    /// Files mapped to items.
    pub files: u64,
}

/// The SQLite-backed index.
pub(crate) struct FtsIndex {
    conn: Connection,
    path: PathBuf,
    /// Document frequency by stem (the vocabulary reads a stem's whole
    /// doclist to count it, so it is worth keeping).
    df_cache: RefCell<HashMap<String, i64>>,
    /// Postings by term, and occurrences of phrases' stems, for ranking
    /// (see [`FtsIndex::postings`]), returned chunks, and the stems and
    /// document frequency of query terms (so a word seen before costs no
    /// SQL at all): shared by the handles on one file in this process
    /// ([`crate::postings::Shared`]). The caches of this handle (the df
    /// cache above, the lengths and count below) are cleared when a write
    /// begins through this handle, and by [`FtsIndex::refresh`] when
    /// another handle has committed one.
    caches: SharedCaches,
    /// Every chunk's length in tokens, for ranking.
    lengths: RefCell<Option<std::sync::Arc<ChunkLengths>>>,
    /// Chunk count.
    chunk_count: std::cell::Cell<Option<u64>>,
    /// The index generation the caches above were filled at
    /// ([`FtsIndex::refresh`]).
    generation: std::cell::Cell<Option<i64>>,
    /// Whether [`T_POSTINGS`] is in step with that generation.
    stored: std::cell::Cell<bool>,
}

/// The `wiki_meta` key of the index generation: a number every committed
/// index write raises, so a handle knows when another one (another thread
/// capturing a fetched source, another process indexing) changed the index
/// under its caches.
pub const GENERATION_KEY: &str = "generation";

/// The index's own postings: per stem, its document frequency and every
/// chunk row holding it with the counts per column
/// ([`crate::postings::encode`]). FTS5's vocabulary gives the same, but one
/// row per occurrence through a virtual table (~150 ns an occurrence, the
/// largest cost of a search); here a stem is one B-tree lookup and a blob.
/// Kept in step by every [`Writer::commit`]; trusted only while
/// [`POSTINGS_GENERATION_KEY`] equals the index generation, so a write that
/// did not maintain it (an older amem) makes searches read FTS5 again.
pub const T_POSTINGS: &str = "wiki_postings";
/// The `wiki_meta` key of the generation [`T_POSTINGS`] is in step with.
pub const POSTINGS_GENERATION_KEY: &str = "postings_generation";
/// Per-connection scratch FTS5 table that tokenizes changed chunks (text,
/// title) for [`T_POSTINGS`], and its `instance` vocabulary.
pub const T_QDOCS: &str = "wiki_qdocs";
/// Instances of the stems of [`T_QDOCS`].
pub const T_QDOCS_I: &str = "wiki_qdocs_i";
/// A write that changes more chunks than this rebuilds [`T_POSTINGS`] whole
/// from FTS5's vocabulary instead of updating the stems it touched.
const INCREMENTAL_MAX_CHUNKS: usize = 2_000;

/// Per-connection tables (in SQLite's `temp` schema, never in the file):
/// [`T_QTERMS`] holds one query's terms so SQLite's own tokenizer stems them
/// exactly as it stemmed the chunks; [`T_QTERMS_I`] lists those stems per
/// term; [`T_FTS_ROW`] gives each stem's document frequency in [`T_FTS`]
/// and [`T_FTS_INST`] its occurrences.
pub const T_QTERMS: &str = "wiki_qterms";
/// Stems of the query terms, one row per (term, stem) (fts5vocab `instance`).
pub const T_QTERMS_I: &str = "wiki_qterms_i";
/// Document frequency per stem of the index (fts5vocab `row`).
pub const T_FTS_ROW: &str = "wiki_fts_row";
/// Every occurrence of every stem in the index (fts5vocab `instance`).
pub const T_FTS_INST: &str = "wiki_fts_inst";
/// What the index knows of one query term.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TermInfo {
    /// Chunks holding it: the smallest document frequency of its stems.
    pub(crate) df: i64,
    /// The stems SQLite's tokenizer makes of it, in order.
    pub(crate) stems: Vec<String>,
}

pub(crate) use crate::postings::Postings;

impl crate::postings::Weighed for std::sync::Arc<TermInfo> {
    fn bytes(&self) -> usize {
        std::mem::size_of::<TermInfo>() + self.stems.iter().map(|s| s.len() + std::mem::size_of::<String>()).sum::<usize>()
    }
}
use crate::postings::{
    CacheBudgets, Posting, SharedCaches, decode, encode, merge, pack, phrase_starts, postings_of, shared_caches, with_shared,
};

/// A chunk row id as the compact postings hold it (below 2^28), or
/// [`Error::Corrupt`].
fn row_u32(doc: i64, path: &Path) -> Result<u32> {
    u32::try_from(doc)
        .ok()
        .filter(|&d| (d as usize) < MAX_ROW_ID)
        .ok_or_else(|| Error::Corrupt { path: path.to_path_buf(), reason: format!("chunk row id {doc} is out of range") })
}

/// What the postings cache may hold, in bytes (its own accounting: 8 bytes
/// per posting plus each entry's key and overhead). One cache serves every
/// handle on the same file in a process ([`crate::postings::Shared`]): the
/// audit's workers share it, and with the three caches below it stays within
/// 68 MiB for all of them. All the postings of the Enron bench wiki (35,152
/// chunks, 58,040 stems, 4.3 million occurrences) would take 27 MiB by this
/// accounting; a miss costs one lookup in [`T_POSTINGS`].
pub(crate) const POSTINGS_CACHE_BYTES: usize = 24 << 20;
/// What the cache of phrase stems' occurrences may hold, in bytes (8 per
/// occurrence). The stems of Enron's phrases (numbers' parts, `com`, `enron`)
/// have up to ~40,000 occurrences each on the bench wiki: 300 KB apiece.
pub(crate) const OCCURRENCES_CACHE_BYTES: usize = 8 << 20;
/// What the cache of returned chunks may hold, in bytes (a chunk's text is
/// at most 1,000 bytes; with its item's strings about 1.5 KB: some 20,000
/// chunks, over half of the Enron bench wiki). A miss is a join of the
/// chunk and its item in SQLite, the largest part of a search after
/// ranking when the cache held 2,500. At 8 MiB (5,000 chunks) those joins
/// were 4.4% of the x1 Enron audit's CPU (`perf`); 32 MiB, with the
/// verifier's 4,096 analyses, took that audit from 7.17-7.44 s to
/// 6.75-6.91 s wall for 20-35 MB more peak RSS (three runs each).
pub(crate) const CHUNK_CACHE_BYTES: usize = 32 << 20;
/// What the cache of query terms' stems and frequencies may hold, in bytes
/// (about 150 bytes a term with the entry's overhead: some 28,000 terms).
pub(crate) const TERM_CACHE_BYTES: usize = 4 << 20;
/// The budgets of the shared caches of one index file: 68 MiB in all, by
/// their accounting, whatever the number of handles.
pub(crate) const CACHE_BUDGETS: CacheBudgets = CacheBudgets {
    postings: POSTINGS_CACHE_BYTES,
    occurrences: OCCURRENCES_CACHE_BYTES,
    chunks: CHUNK_CACHE_BYTES,
    terms: TERM_CACHE_BYTES,
};

/// Chunk row ids above this are refused as corrupt (the flat per-row arrays
/// of ranking would be too large): 2^28 chunks ever written.
const MAX_ROW_ID: usize = 1 << 28;

/// Token counts of the chunks (text and title together), as FTS5 keeps them
/// for its own bm25: per row in its `docsize` table. Indexed by row id in a
/// flat array (row ids are the chunk table's, dense from 1), which ranking
/// reads once per posting.
#[derive(Debug, Default)]
pub(crate) struct ChunkLengths {
    by_row: Vec<u32>,
    /// Per row, the length part of bm25's denominator,
    /// `BM25_K1 * (1 - BM25_B + BM25_B * d / avgdl)`, computed once per
    /// index generation with the very operations FTS5 performs per row
    /// (so the same bits).
    norm_by_row: Vec<f64>,
    /// Rows.
    pub(crate) rows: u64,
    /// Tokens in all rows.
    pub(crate) tokens: u64,
}

impl ChunkLengths {
    /// bm25's length normalisation of one row (see `norm_by_row`).
    pub(crate) fn norm(&self, row: u32) -> Option<f64> {
        self.norm_by_row.get(row as usize).copied()
    }

    /// One past the largest row id.
    pub(crate) fn row_bound(&self) -> usize {
        self.by_row.len()
    }
}

/// The sum of the SQLite varints of a `docsize` blob (one per column), or
/// `None` when the blob is malformed.
fn docsize_tokens(blob: &[u8]) -> Option<u64> {
    let mut total: u64 = 0;
    let mut i = 0;
    while i < blob.len() {
        let mut v: u64 = 0;
        let mut n = 0;
        loop {
            let b = *blob.get(i)?;
            i += 1;
            n += 1;
            if n == 9 {
                v = (v << 8) | u64::from(b);
                break;
            }
            v = (v << 7) | u64::from(b & 0x7f);
            if b & 0x80 == 0 {
                break;
            }
        }
        total = total.checked_add(v)?;
    }
    Some(total)
}

/// Prepared statements kept per connection (see [`FtsIndex::open`]).
const STATEMENT_CACHE: usize = 64;

/// A stem in at most this many chunks has its postings read with its
/// document frequency ([`FtsIndex::term_info`]): such a stem fits a
/// search's row budget ([`crate::query::ROW_BUDGET`]), so it is likely to
/// be searched for; a more frequent one's postings (up to the whole index)
/// are read only when the plan keeps it.
const POSTINGS_WITH_DF: i64 = crate::query::ROW_BUDGET;

/// The term and stem caches are each dropped past this many entries
/// (bounded memory: about 100 bytes a term, 10 MB).
const DF_CACHE_MAX: usize = 100_000;

fn sql_err<'p>(path: &'p Path, what: &'static str) -> impl Fn(rusqlite::Error) -> Error + 'p {
    move |e| match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Error::Locked { path: path.to_path_buf() },
        _ => Error::Sql { what, path: path.to_path_buf(), source: e },
    }
}

const ITEM_COLS: &str = "i.item_id, i.digest, i.kind, i.title, i.source_url, i.retrieved_at, i.indexed_at, i.path, i.bytes, i.chunks, i.written_at, i.written_from";
/// How many columns [`ITEM_COLS`] selects: a query's own columns come after them.
const ITEM_COL_COUNT: usize = 12;

fn item_from_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<ItemRow> {
    Ok(ItemRow {
        id: r.get(at)?,
        digest: r.get(at + 1)?,
        kind: r.get(at + 2)?,
        title: r.get(at + 3)?,
        source_url: r.get(at + 4)?,
        retrieved_at: r.get(at + 5)?,
        indexed_at: r.get(at + 6)?,
        path: r.get(at + 7)?,
        bytes: r.get(at + 8)?,
        chunks: r.get(at + 9)?,
        written_at: r.get(at + 10)?,
        written_from: r.get(at + 11)?,
    })
}

impl FtsIndex {
    /// Open (creating if needed) the index in the SQLite file at `path`.
    pub(crate) fn open(path: &Path) -> Result<FtsIndex> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|source| Error::Open { path: path.to_path_buf(), source })?;
        Self::init(conn, path.to_path_buf())
    }

    /// An index in memory (tests and benches).
    #[cfg(test)]
    pub(crate) fn open_in_memory() -> Result<FtsIndex> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| Error::Open { path: path.clone(), source })?;
        Self::init(conn, path)
    }

    fn init(mut conn: Connection, path: PathBuf) -> Result<FtsIndex> {
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_err(&path, "configure"))?;
        // WAL: readers never block the writer, and a crash mid-transaction
        // leaves the last committed state (the uncommitted frames are ignored).
        let _mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(sql_err(&path, "configure"))?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(sql_err(&path, "configure"))?;
        // 32 MiB of page cache (default 2 MiB): FTS5 segment merges during a
        // large index build re-read their pages otherwise.
        conn.pragma_update(None, "cache_size", -32_768).map_err(sql_err(&path, "configure"))?;
        // The query planner stability guarantee: a statement's plan never
        // depends on the values bound to it. Without it SQLite re-prepares a
        // statement whenever a bound value switches between 0/1 and any
        // other integer (its `x = ?` estimates treat 0 and 1 apart), which
        // FTS5's own segment reads did on almost every search: 15% of a
        // search's time went to re-parsing SQL.
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).map_err(sql_err(&path, "configure"))?;
        // Room for every statement a search and an index run prepare (the
        // generation check, the read transaction, term and postings
        // lookups, chunk lookups for 1 to k rows, the writer's): at
        // rusqlite's default of 16 they evicted each other and a search
        // parsed SQL again.
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // No memory map (`mmap_size`): reading the index through one spares
        // the `pread` copies of pages that every ledger commit makes a WAL
        // reader read again, but each connection's touched pages then count
        // in the process's resident set: +60 MB of peak RSS on the x1 Enron
        // audit (392 against 330 MB) and 434 MB at x10, too near the 500 MB
        // bound.
        // Immediate: the write lock is taken (waiting up to the busy timeout) before the schema is
        // read. A deferred transaction that read the schema and then wrote failed at once with
        // SQLITE_BUSY, no waiting, when another process had committed in between (an audit
        // opening the index while `amem mcp serve` captured a page: seen in the MCP test), and
        // so would shards of one audit starting together.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(sql_err(&path, "create schema"))?;
        tx.execute_batch(&format!("CREATE TABLE IF NOT EXISTS {T_META} (key TEXT PRIMARY KEY, value TEXT NOT NULL);"))
            .map_err(sql_err(&path, "create schema"))?;
        let found: Option<String> = tx
            .query_row(&format!("SELECT value FROM {T_META} WHERE key = 'schema_version'"), [], |r| r.get(0))
            .optional()
            .map_err(sql_err(&path, "read schema version"))?;
        let found: Option<i64> = found.and_then(|v| v.parse().ok());
        match found {
            Some(v) if v > SCHEMA_VERSION => return Err(Error::Incompatible { path, found: v, expected: SCHEMA_VERSION }),
            Some(v) if v < SCHEMA_VERSION => {
                // Derived data: drop and rebuild from the wiki on the next `amem index`.
                tx.execute_batch(&format!(
                    "DROP TABLE IF EXISTS {T_FTS}; DROP VIEW IF EXISTS {V_CHUNK_DOCS}; DROP TABLE IF EXISTS {T_CHUNKS}; DROP TABLE IF EXISTS {T_FILES}; DROP TABLE IF EXISTS {T_ITEMS}; DROP TABLE IF EXISTS {T_POSTINGS}; DROP TABLE IF EXISTS {T_VECTORS};
                     DELETE FROM {T_META} WHERE key IN ('{POSTINGS_GENERATION_KEY}', '{EMBEDDER_KEY}');"
                ))
                .map_err(sql_err(&path, "drop old schema"))?;
            }
            _ => {}
        }
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS {T_ITEMS} (
                item_id TEXT PRIMARY KEY, digest TEXT NOT NULL, kind TEXT NOT NULL, title TEXT, source_url TEXT,
                retrieved_at TEXT, indexed_at TEXT NOT NULL, path TEXT NOT NULL, bytes INTEGER NOT NULL, chunks INTEGER NOT NULL,
                written_at TEXT, written_from TEXT);
             CREATE TABLE IF NOT EXISTS {T_FILES} (
                path TEXT PRIMARY KEY, item_id TEXT NOT NULL, digest TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL);
             CREATE INDEX IF NOT EXISTS {T_FILES}_item ON {T_FILES}(item_id);
             CREATE TABLE IF NOT EXISTS {T_POSTINGS} (term TEXT PRIMARY KEY, df INTEGER NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
             CREATE TABLE IF NOT EXISTS {T_CHUNKS} (
                id INTEGER PRIMARY KEY, item_id TEXT NOT NULL, chunk_no INTEGER NOT NULL, text TEXT NOT NULL, UNIQUE(item_id, chunk_no));
             CREATE VIEW IF NOT EXISTS {V_CHUNK_DOCS} AS
                SELECT c.id AS id, c.text AS text, coalesce(i.title, '') AS title FROM {T_CHUNKS} c JOIN {T_ITEMS} i ON i.item_id = c.item_id;
             CREATE VIRTUAL TABLE IF NOT EXISTS {T_FTS} USING fts5(text, title, content='{V_CHUNK_DOCS}', content_rowid='id', tokenize='{TOKENIZER}');
             CREATE TRIGGER IF NOT EXISTS {T_CHUNKS}_ai AFTER INSERT ON {T_CHUNKS} BEGIN
                INSERT INTO {T_FTS}(rowid, text, title)
                VALUES (new.id, new.text, coalesce((SELECT title FROM {T_ITEMS} WHERE item_id = new.item_id), '')); END;
             CREATE TRIGGER IF NOT EXISTS {T_CHUNKS}_ad AFTER DELETE ON {T_CHUNKS} BEGIN
                INSERT INTO {T_FTS}({T_FTS}, rowid, text, title)
                VALUES ('delete', old.id, old.text, coalesce((SELECT title FROM {T_ITEMS} WHERE item_id = old.item_id), '')); END;
             CREATE TABLE IF NOT EXISTS {T_VECTORS} (chunk_id INTEGER PRIMARY KEY, vec BLOB NOT NULL);
             CREATE TRIGGER IF NOT EXISTS {T_CHUNKS}_ad_vector AFTER DELETE ON {T_CHUNKS} BEGIN
                DELETE FROM {T_VECTORS} WHERE chunk_id = old.id; END;
             INSERT OR REPLACE INTO {T_META}(key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');"
        ))
        .map_err(sql_err(&path, "create schema"))?;
        tx.commit().map_err(sql_err(&path, "create schema"))?;
        // The per-connection query tables live in memory: on a temporary
        // file (SQLite's default), every query term lookup wrote and synced
        // journal pages of it.
        conn.pragma_update(None, "temp_store", "MEMORY").map_err(sql_err(&path, "configure"))?;
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.{T_QTERMS} USING fts5(t, tokenize='{TOKENIZER}');
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.{T_QTERMS_I} USING fts5vocab(temp, {T_QTERMS}, instance);
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.{T_QDOCS} USING fts5(text, title, tokenize='{TOKENIZER}');
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.{T_QDOCS_I} USING fts5vocab(temp, {T_QDOCS}, instance);
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.{T_FTS_ROW} USING fts5vocab(main, {T_FTS}, row);
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.{T_FTS_INST} USING fts5vocab(main, {T_FTS}, instance);"
        ))
        .map_err(sql_err(&path, "create query tables"))?;
        Ok(FtsIndex {
            conn,
            caches: shared_caches(&path, CACHE_BUDGETS),
            path,
            df_cache: RefCell::new(HashMap::new()),
            lengths: RefCell::new(None),
            generation: std::cell::Cell::new(None),
            stored: std::cell::Cell::new(false),
            chunk_count: std::cell::Cell::new(None),
        })
    }

    /// The SQLite file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Every file the last committed run saw, by path.
    pub(crate) fn files(&self) -> Result<BTreeMap<String, FileRow>> {
        let err = sql_err(&self.path, "read files");
        let mut st = self.conn.prepare(&format!("SELECT path, item_id, digest, size, mtime_ns FROM {T_FILES}")).map_err(&err)?;
        let rows = st
            .query_map([], |r| Ok(FileRow { path: r.get(0)?, item_id: r.get(1)?, digest: r.get(2)?, size: r.get(3)?, mtime_ns: r.get(4)? }))
            .map_err(&err)?;
        let mut out = BTreeMap::new();
        for row in rows {
            let row = row.map_err(&err)?;
            out.insert(row.path.clone(), row);
        }
        Ok(out)
    }

    /// Drop every cache filled from the index when another handle has
    /// committed a change since (its generation moved). One indexed lookup;
    /// searches call it first.
    pub(crate) fn refresh(&self) -> Result<()> {
        let (now, stored) = generations(&self.conn).map_err(sql_err(&self.path, "read the index generation"))?;
        // A generation that is not a number (hand edits) leaves nothing
        // cached.
        if now.is_none() || self.generation.get() != now {
            self.clear_caches();
        }
        self.generation.set(now);
        self.stored.set(now.is_some() && stored == now);
        Ok(())
    }

    /// Drop what this handle cached (the shared postings caches follow the
    /// generation on their own: [`crate::postings::Shared`]).
    fn clear_caches(&self) {
        self.df_cache.borrow_mut().clear();
        *self.lengths.borrow_mut() = None;
        self.chunk_count.set(None);
    }

    /// Give this handle private postings caches of another budget (tests:
    /// a tiny cache evicts all the time).
    #[cfg(test)]
    pub(crate) fn set_postings_cache_bytes(&mut self, bytes: usize) {
        self.caches = shared_caches(Path::new(":memory:"), CacheBudgets::all(bytes));
    }

    /// Test check: [`T_POSTINGS`] is in step with the index generation and
    /// holds, for every stem FTS5 has, exactly the postings FTS5's
    /// vocabulary gives, and nothing else. Returns the stems compared.
    #[cfg(test)]
    pub(crate) fn assert_stored_postings_exact(&self) -> usize {
        let (now, stored) = generations(&self.conn).unwrap();
        assert_eq!(stored, now, "the stored postings are marked as of the current generation");
        let terms: Vec<String> = self
            .conn
            .prepare(&format!("SELECT term FROM temp.{T_FTS_ROW} WHERE doc > 0"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        for t in &terms {
            let want = postings_of(&self.occurrences(t, false).unwrap()).unwrap();
            assert_eq!(self.stored_postings(t).unwrap(), want, "stem {t:?}");
            let df: i64 = self.conn.query_row(&format!("SELECT df FROM {T_POSTINGS} WHERE term = ?1"), [t], |r| r.get(0)).unwrap();
            assert_eq!(df as usize, want.len(), "df of {t:?}");
        }
        let rows: i64 = self.conn.query_row(&format!("SELECT count(*) FROM {T_POSTINGS}"), [], |r| r.get(0)).unwrap();
        assert_eq!(rows as usize, terms.len(), "no stored stem FTS5 does not have");
        terms.len()
    }

    /// Make searches read FTS5's vocabulary, not [`T_POSTINGS`], until
    /// the next refresh (tests of that path).
    #[cfg(test)]
    pub(crate) fn ignore_stored_postings(&self) {
        self.stored.set(false);
    }

    /// Whether searches read [`T_POSTINGS`] (as of the last refresh).
    #[cfg(test)]
    pub(crate) fn reads_stored_postings(&self) -> bool {
        self.stored.get()
    }

    /// Bytes held by each shared cache (postings, occurrences, chunks,
    /// terms), by their accounting (tests of the bounds).
    #[cfg(test)]
    pub(crate) fn shared_cache_bytes(&self) -> [usize; 4] {
        let c = self.caches.lock().unwrap();
        [c.postings.bytes(), c.occurrences.bytes(), c.chunks.bytes(), c.terms.bytes()]
    }

    /// Whether two handles share their postings caches.
    #[cfg(test)]
    pub(crate) fn shares_caches_with(&self, other: &FtsIndex) -> bool {
        std::sync::Arc::ptr_eq(&self.caches, &other.caches)
    }

    /// Begin the read transaction of one search (see [`ReadTxn`]).
    pub(crate) fn read_txn(&self) -> Result<ReadTxn<'_>> {
        if !self.conn.is_autocommit() {
            return Ok(ReadTxn { conn: None });
        }
        self.conn.prepare_cached("BEGIN").and_then(|mut s| s.execute([])).map_err(sql_err(&self.path, "begin a search"))?;
        Ok(ReadTxn { conn: Some(&self.conn) })
    }

    /// Start the one transaction an index run writes in.
    pub(crate) fn writer(&mut self) -> Result<Writer<'_>> {
        self.clear_caches();
        self.generation.set(None);
        let path = self.path.as_path();
        self.stored.set(false);
        // Copy what the log holds back into the file before the run's one
        // large write (never waiting on a reader). When that write fails on
        // a full disk, every frame left in the log is then uncommitted, so
        // closing the file deletes the log and the disk is as it was; with
        // committed frames in it the close must copy them first, cannot,
        // and the log stayed behind, keeping the disk full for the next run
        // (issue 40: 1.7 MB left on a 3 MB disk, the next audit failed on
        // its lock).
        let _ = self.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(sql_err(path, "begin"))?;
        let (now, stored) = generations(&tx).map_err(sql_err(path, "begin"))?;
        let track = now.is_some() && stored == now;
        Ok(Writer::new(tx, path, track))
    }

    /// The `k` best chunks for an FTS5 MATCH expression, best first.
    pub(crate) fn search(&self, expr: &str, k: usize) -> Result<Vec<ChunkRow>> {
        let err = sql_err(&self.path, "search");
        // Rank inside the FTS table first (FTS5 sorts by `rank` without
        // touching other tables), then join only the k winners. Ties break
        // on the chunk row id, which follows path order: deterministic.
        let sql = format!(
            "SELECT {ITEM_COLS}, c.chunk_no, c.text, m.r FROM
                (SELECT rowid AS id, bm25({T_FTS}, 1.0, {TITLE_WEIGHT:?}) AS r FROM {T_FTS} WHERE {T_FTS} MATCH ?1 ORDER BY r, rowid LIMIT ?2) m
             JOIN {T_CHUNKS} c ON c.id = m.id JOIN {T_ITEMS} i ON i.item_id = c.item_id
             ORDER BY m.r, m.id"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(&err)?;
        let k = i64::try_from(k).unwrap_or(i64::MAX);
        let rows = st
            .query_map(params![expr, k], |r| {
                Ok(ChunkRow {
                    item: item_from_row(r, 0)?,
                    chunk_no: r.get(ITEM_COL_COUNT)?,
                    text: r.get(ITEM_COL_COUNT + 1)?,
                    bm25: r.get(ITEM_COL_COUNT + 2)?,
                })
            })
            .map_err(&err)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(&err)
    }

    /// For each query term, its stems and how many chunks contain it: the
    /// smallest document frequency of its stems (a phrase cannot occur in
    /// more chunks than its rarest word), 0 when one of its stems is in no
    /// chunk (the term cannot match) or it has no token.
    pub(crate) fn term_info(&self, terms: &[&str]) -> Result<Vec<std::sync::Arc<TermInfo>>> {
        let err = sql_err(&self.path, "look up term frequencies");
        let generation = self.generation.get();
        // The cache key: the term lowercased (as it was, when it already is).
        let keys: Vec<std::borrow::Cow<'_, str>> = terms
            .iter()
            .map(|t| if t.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) { (*t).into() } else { t.to_lowercase().into() })
            .collect();
        let mut out: Vec<Option<std::sync::Arc<TermInfo>>> =
            with_shared(&self.caches, generation, |c| keys.iter().map(|k| c.terms.get(k.as_ref())).collect())
                .unwrap_or_else(|| vec![None; terms.len()]);
        let misses: Vec<usize> = (0..terms.len()).filter(|&i| out[i].is_none()).collect();
        if misses.is_empty() {
            return Ok(out.into_iter().map(Option::unwrap_or_default).collect());
        }
        // A term of ASCII text is stemmed here, exactly as FTS5 stems it
        // ([`crate::porter`]); any other goes through SQLite's tokenizer.
        // (Through SQLite, a claim with a new word cost a savepoint, an
        // insert and a vocabulary scan: 9.5% of the x1 audit's CPU.)
        let mut stems_of: Vec<Option<Vec<String>>> = misses.iter().map(|&i| crate::porter::fts5_stems(terms[i])).collect();
        let by_sqlite: Vec<&str> = misses.iter().zip(&stems_of).filter(|(_, s)| s.is_none()).map(|(&i, _)| terms[i]).collect();
        if !by_sqlite.is_empty() {
            let mut from_sqlite = self.fts5_stems(&by_sqlite)?.into_iter();
            for slot in stems_of.iter_mut().filter(|s| s.is_none()) {
                *slot = from_sqlite.next();
            }
        }
        let stems = misses.iter().zip(stems_of).flat_map(|(&i, s)| s.unwrap_or_default().into_iter().map(move |stem| (i, stem)));
        let mut df_of = self.conn.prepare_cached(&format!("SELECT doc FROM temp.{T_FTS_ROW} WHERE term = ?1")).map_err(&err)?;
        // The stored postings know each stem's frequency without reading
        // its doclist (which FTS5's `row` vocabulary does), and hold the
        // postings themselves in the same row: read with the frequency when
        // the stem is rare enough to be searched for ([`POSTINGS_WITH_DF`]),
        // so a search finds them cached and looks each stem up once.
        let df_stored = if self.stored.get() {
            Some(RefCell::new(
                self.conn
                    .prepare_cached(&format!("SELECT df, CASE WHEN df <= ?2 THEN data END FROM {T_POSTINGS} WHERE term = ?1"))
                    .map_err(&err)?,
            ))
        } else {
            None
        };
        let mut cache = self.df_cache.borrow_mut();
        if cache.len() > DF_CACHE_MAX {
            cache.clear();
        }
        let mut found: Vec<Option<TermInfo>> = vec![None; terms.len()];
        for (i, stem) in stems {
            let df = match cache.get(&stem) {
                Some(&df) => df,
                // Postings held for the stem give it at no cost (one per row).
                None if let Some(p) = with_shared(&self.caches, generation, |c| c.postings.get(stem.as_str())).flatten() => {
                    i64::try_from(p.len()).unwrap_or(i64::MAX)
                }
                None => {
                    let df: i64 = match &df_stored {
                        Some(st) => {
                            let row = st
                                .borrow_mut()
                                .query_row(params![&stem, POSTINGS_WITH_DF], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<Vec<u8>>>(1)?)))
                                .optional()
                                .map_err(&err)?;
                            match row {
                                Some((df, Some(data))) => {
                                    let p: Postings = decode(&data)
                                        .ok_or_else(|| Error::Corrupt {
                                            path: self.path.clone(),
                                            reason: format!("the stored postings of {stem:?} are malformed"),
                                        })?
                                        .into();
                                    with_shared(&self.caches, generation, |c| c.postings.insert(stem.as_str(), &p));
                                    df
                                }
                                Some((df, None)) => df,
                                None => 0,
                            }
                        }
                        None => df_of.query_row([&stem], |r| r.get(0)).optional().map_err(&err)?.unwrap_or(0),
                    };
                    cache.insert(stem.clone(), df);
                    df
                }
            };
            if let Some(slot) = found.get_mut(i) {
                let info = slot.get_or_insert_with(|| TermInfo { df, stems: Vec::new() });
                info.df = info.df.min(df);
                info.stems.push(stem);
            }
        }
        let fresh: Vec<(usize, std::sync::Arc<TermInfo>)> =
            misses.iter().map(|&i| (i, std::sync::Arc::new(found[i].take().unwrap_or_default()))).collect();
        with_shared(&self.caches, generation, |c| {
            for (i, info) in &fresh {
                c.terms.insert(keys[*i].as_ref(), info);
            }
        });
        for (i, info) in fresh {
            out[i] = Some(info);
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// The stems SQLite's tokenizer makes of each text, in order: the
    /// texts go into the temporary FTS5 table inside a savepoint that is
    /// rolled back once their stems are read, so the table is empty at rest
    /// and FTS5 never writes them out of its in-memory pending list (a
    /// DELETE and autocommitted INSERTs made it write and merge segments
    /// for every claim).
    pub(crate) fn fts5_stems(&self, texts: &[&str]) -> Result<Vec<Vec<String>>> {
        let err = sql_err(&self.path, "tokenize query terms");
        let _undo = Undo::begin(&self.conn, "wiki_qterms").map_err(&err)?;
        {
            let mut ins = self.conn.prepare_cached(&format!("INSERT INTO temp.{T_QTERMS}(rowid, t) VALUES (?1, ?2)")).map_err(&err)?;
            for (i, t) in texts.iter().enumerate() {
                ins.execute(params![i as i64, t]).map_err(&err)?;
            }
        }
        let mut out = vec![Vec::new(); texts.len()];
        let mut st = self.conn.prepare_cached(&format!("SELECT doc, term FROM temp.{T_QTERMS_I} ORDER BY doc, offset")).map_err(&err)?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))).map_err(&err)?;
        for row in rows {
            let (i, stem) = row.map_err(&err)?;
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                slot.push(stem);
            }
        }
        Ok(out)
    }

    /// Where a query term occurs: each chunk row holding it with its
    /// occurrences per column ([`Postings`]), ascending by row, read from
    /// FTS5's own index (its `instance` vocabulary). `stems` are the term's
    /// stems in order ([`TermInfo::stems`]): one for a word, several for a
    /// phrase, which occurs where its stems follow each other in one column
    /// ([`crate::postings::phrase_starts`], FTS5's own phrase match).
    /// Cached per term until the index changes ([`FtsIndex::refresh`]).
    /// `None` when a count does not fit the compact form (see
    /// [`crate::postings::postings_of`]): the caller then asks FTS5.
    pub(crate) fn postings(&self, stems: &[&str]) -> Result<Option<Postings>> {
        let key: std::borrow::Cow<'_, str> = match stems {
            [one] => (*one).into(),
            _ => stems.join(" ").into(),
        };
        let generation = self.generation.get();
        if let Some(p) = with_shared(&self.caches, generation, |c| c.postings.get(key.as_ref())).flatten() {
            return Ok(Some(p));
        }
        let list = match stems {
            [] => Some(Vec::new()),
            [one] if self.stored.get() => Some(self.stored_postings(one)?),
            [one] => postings_of(&self.occurrences(one, false)?),
            _ => {
                let mut occ: Vec<std::sync::Arc<[u64]>> = Vec::with_capacity(stems.len());
                for stem in stems {
                    let cached = with_shared(&self.caches, generation, |c| c.occurrences.get(*stem)).flatten();
                    let list = match cached {
                        Some(l) => l,
                        None => {
                            let l: std::sync::Arc<[u64]> = self.occurrences(stem, true)?.into();
                            with_shared(&self.caches, generation, |c| c.occurrences.insert(*stem, &l));
                            l
                        }
                    };
                    occ.push(list);
                }
                let lists: Vec<&[u64]> = occ.iter().map(|l| &l[..]).collect();
                postings_of(&phrase_starts(&lists))
            }
        };
        let Some(list) = list else { return Ok(None) };
        let p: Postings = list.into();
        with_shared(&self.caches, generation, |c| c.postings.insert(key.as_ref(), &p));
        Ok(Some(p))
    }

    /// One stem's postings from [`T_POSTINGS`] (empty when it has none).
    fn stored_postings(&self, stem: &str) -> Result<Vec<Posting>> {
        let err = sql_err(&self.path, "read postings");
        let mut st = self.conn.prepare_cached(&format!("SELECT data FROM {T_POSTINGS} WHERE term = ?1")).map_err(&err)?;
        let Some(b) = st.query_row([stem], |r| r.get::<_, Vec<u8>>(0)).optional().map_err(&err)? else { return Ok(Vec::new()) };
        decode(&b)
            .ok_or_else(|| Error::Corrupt { path: self.path.clone(), reason: format!("the stored postings of {stem:?} are malformed") })
    }

    /// Every occurrence of one stem, packed by [`crate::postings::pack`]
    /// and ascending; offsets only when asked for (0 otherwise).
    fn occurrences(&self, stem: &str, offsets: bool) -> Result<Vec<u64>> {
        let err = sql_err(&self.path, "read postings");
        let sql = if offsets {
            format!("SELECT doc, col, offset FROM temp.{T_FTS_INST} WHERE term = ?1")
        } else {
            format!("SELECT doc, col FROM temp.{T_FTS_INST} WHERE term = ?1")
        };
        let mut st = self.conn.prepare_cached(&sql).map_err(&err)?;
        let mut rows = st.query([stem]).map_err(&err)?;
        let mut list: Vec<u64> = Vec::new();
        while let Some(r) = rows.next().map_err(&err)? {
            let doc: i64 = r.get(0).map_err(&err)?;
            let row = u32::try_from(doc)
                .ok()
                .filter(|&d| (d as usize) < MAX_ROW_ID)
                .ok_or_else(|| Error::Corrupt { path: self.path.clone(), reason: format!("chunk row id {doc} is out of range") })?;
            let col = u32::from(r.get_ref(1).map_err(&err)?.as_str().is_ok_and(|c| c == "title"));
            let offset = if offsets {
                let o: i64 = r.get(2).map_err(&err)?;
                u32::try_from(o)
                    .map_err(|_| Error::Corrupt { path: self.path.clone(), reason: format!("token offset {o} is out of range") })?
            } else {
                0
            };
            list.push(pack(row, col, offset));
        }
        // FTS5 lists a stem's instances by row, column and offset; sort
        // anyway so the order is a fact here, not an assumption.
        if !list.is_sorted() {
            list.sort_unstable();
        }
        Ok(list)
    }

    /// Every chunk's length in tokens (text and title), read once per
    /// connection and write from FTS5's `docsize` table: the lengths its
    /// bm25 normalises by.
    pub(crate) fn chunk_lengths(&self) -> Result<std::sync::Arc<ChunkLengths>> {
        if let Some(l) = self.lengths.borrow().as_ref() {
            return Ok(std::sync::Arc::clone(l));
        }
        let err = sql_err(&self.path, "read chunk lengths");
        let mut st = self.conn.prepare(&format!("SELECT id, sz FROM {T_FTS}_docsize")).map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        let mut l = ChunkLengths::default();
        while let Some(r) = rows.next().map_err(&err)? {
            let id: i64 = r.get(0).map_err(&err)?;
            let blob: Vec<u8> = r.get(1).map_err(&err)?;
            let n = docsize_tokens(&blob).ok_or_else(|| Error::Corrupt {
                path: self.path.clone(),
                reason: format!("the FTS5 size record of chunk row {id} is malformed"),
            })?;
            // Row ids come from the chunk table's INTEGER PRIMARY KEY: dense,
            // growing by one per chunk ever written. A negative or absurd one
            // would mean a corrupt index, not a big wiki.
            let at = usize::try_from(id)
                .ok()
                .filter(|&i| i < MAX_ROW_ID)
                .ok_or_else(|| Error::Corrupt { path: self.path.clone(), reason: format!("chunk row id {id} is out of range") })?;
            if l.by_row.len() <= at {
                l.by_row.resize(at + 1, 0);
            }
            l.rows += 1;
            l.tokens += n;
            l.by_row[at] = u32::try_from(n).unwrap_or(u32::MAX);
        }
        if l.rows > 0 {
            let avgdl = l.tokens as f64 / l.rows as f64;
            l.norm_by_row = l.by_row.iter().map(|&d| BM25_K1 * (1.0 - BM25_B + BM25_B * f64::from(d) / avgdl)).collect();
        }
        let l = std::sync::Arc::new(l);
        *self.lengths.borrow_mut() = Some(std::sync::Arc::clone(&l));
        Ok(l)
    }

    /// Chunks with their items, by row id, in the order asked for (a row
    /// id not in the index is left out), each with its row id: one
    /// statement for all of a search's hits instead of one per hit.
    pub(crate) fn chunks_by_rows(&self, ids: &[i64]) -> Result<Vec<(i64, ChunkRow)>> {
        let generation = self.generation.get();
        // One lock for all of them, each by its row id.
        let cached: Vec<Option<std::sync::Arc<ChunkRow>>> =
            with_shared(&self.caches, generation, |c| ids.iter().map(|id| c.chunks.get(id)).collect())
                .unwrap_or_else(|| vec![None; ids.len()]);
        let mut found: Vec<Option<(i64, ChunkRow)>> =
            ids.iter().zip(cached).map(|(&id, r)| r.map(|r| (id, std::sync::Arc::unwrap_or_clone(r)))).collect();
        let missing: Vec<i64> = ids.iter().zip(&found).filter(|(_, f)| f.is_none()).map(|(&id, _)| id).collect();
        if missing.is_empty() {
            return Ok(found.into_iter().flatten().collect());
        }
        let err = sql_err(&self.path, "look up chunk");
        let marks = vec!["?"; missing.len()].join(", ");
        let sql = format!(
            "SELECT {ITEM_COLS}, c.chunk_no, c.text, c.id FROM {T_CHUNKS} c JOIN {T_ITEMS} i ON i.item_id = c.item_id WHERE c.id IN ({marks})"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(&err)?;
        let rows = st
            .query_map(rusqlite::params_from_iter(&missing), |r| {
                Ok((
                    r.get::<_, i64>(ITEM_COL_COUNT + 2)?,
                    ChunkRow { item: item_from_row(r, 0)?, chunk_no: r.get(ITEM_COL_COUNT)?, text: r.get(ITEM_COL_COUNT + 1)?, bm25: 0.0 },
                ))
            })
            .map_err(&err)?;
        let mut fresh: Vec<(i64, std::sync::Arc<ChunkRow>)> = Vec::with_capacity(missing.len());
        for row in rows {
            let (id, c) = row.map_err(&err)?;
            if let Some(at) = ids.iter().position(|&i| i == id) {
                found[at] = Some((id, c.clone()));
            }
            fresh.push((id, std::sync::Arc::new(c)));
        }
        with_shared(&self.caches, generation, |cache| {
            for (id, c) in &fresh {
                cache.chunks.insert(id, c);
            }
        });
        Ok(found.into_iter().flatten().collect())
    }

    /// Every stored chunk vector, when the stored ones were made by the embedder `id`
    /// (`None` otherwise: vectors of other weights are not comparable with its queries),
    /// read once per index generation and shared by the handles on this file.
    pub(crate) fn vectors(&self, id: &str, dim: usize) -> Result<Option<std::sync::Arc<crate::dense::Vectors>>> {
        let generation = self.generation.get();
        if let Some(v) = with_shared(&self.caches, generation, |c| c.vectors.clone()).flatten()
            && v.0 == id
        {
            return Ok(Some(std::sync::Arc::clone(&v.1)));
        }
        let err = sql_err(&self.path, "read chunk vectors");
        let stored: Option<String> = self
            .conn
            .query_row(&format!("SELECT value FROM {T_META} WHERE key = '{EMBEDDER_KEY}'"), [], |r| r.get(0))
            .optional()
            .map_err(&err)?;
        if stored.as_deref() != Some(id) {
            return Ok(None);
        }
        let mut vectors = crate::dense::Vectors::new(dim);
        let mut st = self.conn.prepare_cached(&format!("SELECT chunk_id, vec FROM {T_VECTORS} ORDER BY chunk_id")).map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        while let Some(r) = rows.next().map_err(&err)? {
            let row: i64 = r.get(0).map_err(&err)?;
            let blob =
                r.get_ref(1).map_err(&err)?.as_blob().map_err(|e| Error::Corrupt { path: self.path.clone(), reason: e.to_string() })?;
            if !vectors.push(row, blob) {
                return Err(Error::Corrupt {
                    path: self.path.clone(),
                    reason: format!("chunk row {row}: a stored vector is not {dim} wide"),
                });
            }
        }
        let vectors = std::sync::Arc::new(vectors);
        with_shared(&self.caches, generation, |c| c.vectors = Some((id.to_string(), std::sync::Arc::clone(&vectors))));
        Ok(Some(vectors))
    }

    /// One item by id.
    pub(crate) fn item(&self, id: &str) -> Result<Option<ItemRow>> {
        let sql = format!("SELECT {ITEM_COLS} FROM {T_ITEMS} i WHERE i.item_id = ?1");
        let mut st = self.conn.prepare_cached(&sql).map_err(sql_err(&self.path, "look up item"))?;
        st.query_row([id], |r| item_from_row(r, 0)).optional().map_err(sql_err(&self.path, "look up item"))
    }

    /// Up to `limit` items in id order, from the first id after `after`
    /// (keyset paging: a page is the same whatever was added before it).
    pub(crate) fn items_after(&self, after: &str, limit: usize) -> Result<Vec<ItemRow>> {
        let sql = format!("SELECT {ITEM_COLS} FROM {T_ITEMS} i WHERE i.item_id > ?1 ORDER BY i.item_id LIMIT ?2");
        let mut st = self.conn.prepare_cached(&sql).map_err(sql_err(&self.path, "list items"))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = st.query_map(params![after, limit], |r| item_from_row(r, 0)).map_err(sql_err(&self.path, "list items"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql_err(&self.path, "list items"))
    }

    /// One chunk's text.
    pub(crate) fn chunk_text(&self, id: &str, chunk_no: u32) -> Result<Option<String>> {
        let sql = format!("SELECT text FROM {T_CHUNKS} WHERE item_id = ?1 AND chunk_no = ?2");
        let mut st = self.conn.prepare_cached(&sql).map_err(sql_err(&self.path, "look up chunk"))?;
        st.query_row(params![id, chunk_no], |r| r.get(0)).optional().map_err(sql_err(&self.path, "look up chunk"))
    }

    /// How many chunks the index holds (cached until the next write).
    pub(crate) fn chunk_count(&self) -> Result<u64> {
        if let Some(n) = self.chunk_count.get() {
            return Ok(n);
        }
        let n = self.stats()?.chunks;
        self.chunk_count.set(Some(n));
        Ok(n)
    }

    /// Counts of items, chunks and files.
    pub(crate) fn stats(&self) -> Result<IndexStats> {
        let sql = format!("SELECT (SELECT count(*) FROM {T_ITEMS}), (SELECT count(*) FROM {T_CHUNKS}), (SELECT count(*) FROM {T_FILES})");
        self.conn
            .query_row(&sql, [], |r| {
                Ok(IndexStats {
                    items: r.get::<_, i64>(0)?.unsigned_abs(),
                    chunks: r.get::<_, i64>(1)?.unsigned_abs(),
                    files: r.get::<_, i64>(2)?.unsigned_abs(),
                })
            })
            .map_err(sql_err(&self.path, "count"))
    }

    /// FTS5's own consistency check of the index against its content table.
    pub(crate) fn integrity_check(&self) -> Result<()> {
        self.conn
            .execute(&format!("INSERT INTO {T_FTS}({T_FTS}, rank) VALUES ('integrity-check', 1)"), [])
            .map(|_| ())
            .map_err(sql_err(&self.path, "integrity check"))
    }
}

/// The index generation and the one [`T_POSTINGS`] is in step with (`None`
/// when absent or not a number; an index no write has given a generation
/// yet is at 0).
fn generations(conn: &Connection) -> rusqlite::Result<(Option<i64>, Option<i64>)> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT (SELECT value FROM {T_META} WHERE key = '{GENERATION_KEY}'), (SELECT value FROM {T_META} WHERE key = '{POSTINGS_GENERATION_KEY}')"
    ))?;
    let (g, p): (Option<String>, Option<String>) = st.query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok((g.map_or(Some(0), |v| v.parse().ok()), p.and_then(|v| v.parse().ok())))
}

/// A savepoint rolled back (and released) when dropped: what is written
/// under it is scratch work that never reaches the database.
struct Undo<'c> {
    conn: &'c Connection,
    name: &'static str,
}

impl<'c> Undo<'c> {
    fn begin(conn: &'c Connection, name: &'static str) -> rusqlite::Result<Undo<'c>> {
        conn.prepare_cached(&format!("SAVEPOINT {name}"))?.execute([])?;
        Ok(Undo { conn, name })
    }
}

impl Drop for Undo<'_> {
    fn drop(&mut self) {
        let undo = self.conn.prepare_cached(&format!("ROLLBACK TO {}", self.name)).and_then(|mut s| s.execute([]));
        let release = self.conn.prepare_cached(&format!("RELEASE {}", self.name)).and_then(|mut s| s.execute([]));
        if let Err(e) = undo.and(release) {
            // Nothing a caller could do; the next savepoint or transaction
            // reports the connection's state if it is wrong.
            tracing::warn!(error = %e, savepoint = self.name, "could not roll back a scratch savepoint");
        }
    }
}

/// A read transaction over one search, so its statements share one
/// snapshot and one lock (each statement otherwise begins and ends its own);
/// rolled back when dropped. Inside a transaction already, it does nothing.
pub(crate) struct ReadTxn<'c> {
    conn: Option<&'c Connection>,
}

impl Drop for ReadTxn<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.conn
            && let Err(e) = c.prepare_cached("ROLLBACK").and_then(|mut s| s.execute([]))
        {
            tracing::warn!(error = %e, "could not end a search's read transaction");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference (docs/reference.md) states the shared caches' budgets; they are these constants.
    #[test]
    fn readme_states_the_cache_budgets() {
        let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference.md")).unwrap();
        let mib = |b: usize| b >> 20;
        let b = CACHE_BUDGETS;
        let stated = format!(
            "postings ({} MiB), phrase positions ({} MiB), returned chunks ({} MiB) and each query term's stems and frequency ({} MiB), {} MiB in all",
            mib(b.postings),
            mib(b.occurrences),
            mib(b.chunks),
            mib(b.terms),
            mib(b.total()),
        );
        assert!(readme.contains(&stated), "docs/reference.md should say: {stated}");
    }

    #[test]
    fn docsize_blobs_are_sums_of_sqlite_varints() {
        assert_eq!(docsize_tokens(&[]), Some(0));
        assert_eq!(docsize_tokens(&[5, 0]), Some(5), "text 5 tokens, empty title");
        assert_eq!(docsize_tokens(&[0x81, 0x00, 0x02]), Some(130), "128 as two bytes, then 2");
        assert_eq!(docsize_tokens(&[0x83, 0xff, 0x7f]), Some((3 << 14) | (0x7f << 7) | 0x7f));
        let nine: Vec<u8> = [0xff; 8].into_iter().chain([0x01]).collect();
        assert_eq!(docsize_tokens(&nine), Some((((1u64 << 56) - 1) << 8) | 1), "the ninth byte carries 8 bits");
        assert_eq!(docsize_tokens(&[0x81]), None, "a varint cut short");
    }

    fn item(id: &str, chunks: i64) -> ItemRow {
        ItemRow {
            id: id.into(),
            digest: format!("d-{id}"),
            kind: "markdown".into(),
            title: Some(format!("T {id}")),
            source_url: None,
            retrieved_at: None,
            indexed_at: "2024-01-01T00:00:00Z".into(),
            written_at: Some("2019-03-01T00:00:00Z".into()),
            written_from: Some("date".into()),
            path: format!("{id}.md"),
            bytes: 10,
            chunks,
        }
    }

    fn file(id: &str) -> FileRow {
        FileRow { path: format!("{id}.md"), item_id: id.into(), digest: format!("d-{id}"), size: 1, mtime_ns: 1 }
    }

    #[test]
    fn insert_search_delete_and_integrity() {
        let mut ix = FtsIndex::open_in_memory().unwrap();
        {
            let w = ix.writer().unwrap();
            w.insert_item(&item("a", 2), &["Glaciers are melting fast.", "Penguins swim."]).unwrap();
            w.upsert_file(&file("a")).unwrap();
            w.insert_item(&item("b", 1), &["The glacier melted in 2019."]).unwrap();
            w.upsert_file(&file("b")).unwrap();
            w.commit().unwrap();
        }
        let hits = ix.search("\"melting\" OR \"glaciers\"", 5).unwrap();
        assert_eq!(hits.len(), 2, "porter stems melting/melted and glaciers/glacier");
        assert!(hits[0].bm25 <= hits[1].bm25);
        assert_eq!(ix.chunk_text("a", 1).unwrap().as_deref(), Some("Penguins swim."));
        assert_eq!(ix.item("b").unwrap().unwrap().title.as_deref(), Some("T b"));
        {
            let w = ix.writer().unwrap();
            w.delete_file("a.md").unwrap();
            assert_eq!(w.delete_orphans().unwrap(), 1);
            w.commit().unwrap();
        }
        assert_eq!(ix.stats().unwrap(), IndexStats { items: 1, chunks: 1, files: 1 });
        assert_eq!(ix.search("\"penguins\"", 5).unwrap().len(), 0);
        ix.integrity_check().unwrap();
    }

    #[test]
    fn dropped_writer_rolls_back() {
        let mut ix = FtsIndex::open_in_memory().unwrap();
        {
            let w = ix.writer().unwrap();
            w.insert_item(&item("a", 1), &["text"]).unwrap();
            w.upsert_file(&file("a")).unwrap();
            // dropped, not committed
        }
        assert_eq!(ix.stats().unwrap(), IndexStats::default());
        ix.integrity_check().unwrap();
    }

    #[test]
    fn older_schema_is_rebuilt_empty() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ledger.sqlite");
        {
            let mut ix = FtsIndex::open(&p).unwrap();
            let w = ix.writer().unwrap();
            w.insert_item(&item("a", 1), &["text"]).unwrap();
            w.upsert_file(&file("a")).unwrap();
            w.commit().unwrap();
        }
        let c = Connection::open(&p).unwrap();
        c.execute(&format!("UPDATE {T_META} SET value = '1' WHERE key = 'schema_version'"), []).unwrap();
        // A table the ledger owns is left alone.
        c.execute("CREATE TABLE ledger_runs (id TEXT)", []).unwrap();
        drop(c);
        let ix = FtsIndex::open(&p).unwrap();
        assert_eq!(ix.stats().unwrap(), IndexStats::default());
        ix.integrity_check().unwrap();
        let c = Connection::open(&p).unwrap();
        let n: i64 = c.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'ledger_runs'", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ledger.sqlite");
        drop(FtsIndex::open(&p).unwrap());
        let c = Connection::open(&p).unwrap();
        c.execute(&format!("UPDATE {T_META} SET value = '99' WHERE key = 'schema_version'"), []).unwrap();
        drop(c);
        assert!(matches!(FtsIndex::open(&p), Err(Error::Incompatible { found: 99, .. })));
    }
}
