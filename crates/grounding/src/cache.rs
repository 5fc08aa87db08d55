//! The grounding cache: `$AMEM_HOME/grounding-cache.json`.
//!
//! - **queries**: per (source, key terms) — keyed by a SHA-256, so no claim
//!   text is stored — either the documents that search returned (a
//!   *positive* entry: the next run answers from the wiki with zero
//!   requests) or a *negative* entry (no evidence from that source), each
//!   with an expiry time (the TTL).
//! - **documents**: per document URL, the latest captured revision (item
//!   id, content digest, retrieval time, title and text), so a re-fetch can
//!   tell whether the content changed and which earlier item became stale.
//!
//! Why a JSON file rather than a table in `ledger.sqlite`: the cache is
//! small, private to this crate, rebuilt by simply deleting it, and keeping
//! it out of the ledger keeps the ledger append-only. It is rewritten whole
//! (temporary file + rename) after each change, so a killed run leaves the
//! previous or the next state, never half of one. Two concurrent runs on
//! one home may lose each other's cache entries (never the captured items).

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cache file's schema version.
pub const CACHE_VERSION: u32 = 1;

/// What a search at one source found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueryEntry {
    /// These documents (by URL), captured.
    Positive {
        /// The source's name.
        source: String,
        /// Document URLs, best first.
        urls: Vec<String>,
        /// Expiry, Unix seconds.
        expires: i64,
    },
    /// Nothing at this source.
    Negative {
        /// The source's name.
        source: String,
        /// Expiry, Unix seconds.
        expires: i64,
    },
}

impl QueryEntry {
    fn expires(&self) -> i64 {
        match self {
            QueryEntry::Positive { expires, .. } | QueryEntry::Negative { expires, .. } => *expires,
        }
    }
}

/// The latest captured revision of a document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentEntry {
    /// The wiki item id of that revision.
    pub item: String,
    /// Content digest (hex) of that revision: title and text as fetched,
    /// what a re-fetch is compared with.
    pub digest: String,
    /// The item revision digest (hex) evidence from it carries.
    #[serde(default)]
    pub item_digest: String,
    /// When it was fetched, RFC 3339.
    pub retrieved_at: String,
    /// The source's name.
    pub source: String,
    /// Title.
    pub title: String,
    /// The item's text.
    pub text: String,
}

/// The whole cache.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheFile {
    /// [`CACHE_VERSION`].
    pub version: u32,
    /// By query key.
    pub queries: BTreeMap<String, QueryEntry>,
    /// By document URL.
    pub documents: BTreeMap<String, DocumentEntry>,
}

/// The cache with its path.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    /// The content.
    pub file: CacheFile,
    dirty: bool,
    last_save: Option<std::time::Instant>,
}

/// Changes are written at most this often during a run (and always when the
/// grounder is dropped): rewriting the whole file after every claim of a
/// long audit would cost time quadratic in the cache size. A killed run
/// loses at most this much of the cache, never a captured item.
pub const SAVE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);

impl Cache {
    /// `home/grounding-cache.json`.
    pub fn path_in(home: &Path) -> PathBuf {
        home.join("grounding-cache.json")
    }

    /// Load the cache (empty when the file is missing).
    ///
    /// # Errors
    /// [`Error::Read`]; [`Error::Corrupt`] when the file does not parse or
    /// is from a newer amem.
    pub fn load(path: PathBuf) -> Result<Cache> {
        let file = match amem_records::source_file::read_file(&path, amem_records::source_file::Limit::CACHE) {
            Ok(bytes) => {
                let f: CacheFile = serde_json::from_slice(&bytes)
                    .map_err(|e| Error::Corrupt { path: path.clone(), detail: format!("{e}; delete the file to rebuild it") })?;
                if f.version > CACHE_VERSION {
                    return Err(Error::Corrupt {
                        path,
                        detail: format!("version {} is newer than this amem ({CACHE_VERSION})", f.version),
                    });
                }
                f
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => CacheFile { version: CACHE_VERSION, ..CacheFile::default() },
            Err(source) => return Err(Error::Read { path, source }),
        };
        Ok(Cache { path, file, dirty: false, last_save: None })
    }

    /// Note a change, and write it when the last write is older than
    /// [`SAVE_INTERVAL`].
    ///
    /// # Errors
    /// [`Error::Write`].
    pub fn changed(&mut self) -> Result<()> {
        self.dirty = true;
        if self.last_save.is_none_or(|t| t.elapsed() >= SAVE_INTERVAL) { self.save() } else { Ok(()) }
    }

    /// Write pending changes, if any.
    ///
    /// # Errors
    /// [`Error::Write`].
    pub fn flush(&mut self) -> Result<()> {
        if self.dirty { self.save() } else { Ok(()) }
    }

    /// The live entry for a key at `now` (Unix seconds).
    pub fn query(&self, key: &str, now: i64) -> Option<&QueryEntry> {
        self.file.queries.get(key).filter(|e| e.expires() > now)
    }

    /// Write the cache (temporary file, then rename).
    ///
    /// # Errors
    /// [`Error::Write`].
    pub fn save(&mut self) -> Result<()> {
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| Error::Write { path: parent.to_path_buf(), source })?;
        }
        let tmp = self.path.with_extension("json.tmp");
        let bytes = serde_json::to_vec(&self.file).map_err(|e| Error::Write { path: tmp.clone(), source: std::io::Error::other(e) })?;
        std::fs::write(&tmp, bytes).map_err(|source| Error::Write { path: tmp.clone(), source })?;
        std::fs::rename(&tmp, &self.path).map_err(|source| Error::Write { path: self.path.clone(), source })?;
        self.dirty = false;
        self.last_save = Some(std::time::Instant::now());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_expiry() {
        let dir = tempfile::tempdir().unwrap();
        let path = Cache::path_in(dir.path());
        let mut c = Cache::load(path.clone()).unwrap();
        c.file.queries.insert("k".into(), QueryEntry::Negative { source: "s".into(), expires: 100 });
        c.save().unwrap();
        let back = Cache::load(path.clone()).unwrap();
        assert_eq!(back.file, c.file);
        assert!(back.query("k", 99).is_some());
        assert!(back.query("k", 100).is_none());
        std::fs::write(&path, b"{oops").unwrap();
        assert!(matches!(Cache::load(path), Err(Error::Corrupt { .. })));
    }

    #[test]
    fn changes_are_batched_until_flush() {
        let dir = tempfile::tempdir().unwrap();
        let path = Cache::path_in(dir.path());
        let mut c = Cache::load(path.clone()).unwrap();
        c.file.queries.insert("a".into(), QueryEntry::Negative { source: "s".into(), expires: 1 });
        c.changed().unwrap();
        c.file.queries.insert("b".into(), QueryEntry::Negative { source: "s".into(), expires: 1 });
        c.changed().unwrap();
        assert_eq!(Cache::load(path.clone()).unwrap().file.queries.len(), 1, "second change written at once");
        c.flush().unwrap();
        assert_eq!(Cache::load(path).unwrap().file.queries.len(), 2);
    }
}
