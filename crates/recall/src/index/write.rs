//! The write side of the index: one run's transaction ([`Writer`]), which
//! inserts and deletes items, files and chunks, keeps the stored postings in
//! step, and commits. Split out of `index.rs`, which keeps the schema, the
//! open and the reads.

use super::*;

/// The open transaction of one index run. Dropped without [`Writer::commit`]
/// it rolls back, leaving the previous committed state.
pub(crate) struct Writer<'a> {
    tx: Transaction<'a>,
    path: &'a Path,
    /// Whether [`T_POSTINGS`] was in step when the write began and is kept
    /// so stem by stem; otherwise the commit rebuilds it whole.
    track: std::cell::Cell<bool>,
    /// Chunk rows inserted by this write.
    inserted: RefCell<Vec<i64>>,
    /// Chunk rows deleted by this write: (row, text, title).
    deleted: RefCell<Vec<(i64, String, String)>>,
}

impl<'a> Writer<'a> {
    /// The writer of one index run over `tx` (`track`: the stored postings
    /// were in step when the run began).
    pub(super) fn new(tx: Transaction<'a>, path: &'a Path, track: bool) -> Writer<'a> {
        Writer { tx, path, track: std::cell::Cell::new(track), inserted: RefCell::new(Vec::new()), deleted: RefCell::new(Vec::new()) }
    }

    /// The digest stored for an item id, if the item exists.
    pub(crate) fn item_digest(&self, id: &str) -> Result<Option<String>> {
        let mut st = self
            .tx
            .prepare_cached(&format!("SELECT digest FROM {T_ITEMS} WHERE item_id = ?1"))
            .map_err(sql_err(self.path, "look up item"))?;
        st.query_row([id], |r| r.get(0)).optional().map_err(sql_err(self.path, "look up item"))
    }

    /// Embed every chunk that has no vector by `embedder` (all of them when the stored
    /// vectors were made by another embedder, which are dropped first), in this
    /// transaction; how many were embedded. An index run calls it last, so a chunk that
    /// is unchanged keeps its vector and is never embedded again.
    pub(crate) fn fill_vectors(&self, embedder: &amem_models::StaticEmbedder) -> Result<usize> {
        let err = sql_err(self.path, "store chunk vectors");
        let stored: Option<String> = self
            .tx
            .query_row(&format!("SELECT value FROM {T_META} WHERE key = '{EMBEDDER_KEY}'"), [], |r| r.get(0))
            .optional()
            .map_err(&err)?;
        if stored.as_deref() != Some(embedder.id()) {
            self.tx.execute(&format!("DELETE FROM {T_VECTORS}"), []).map_err(&err)?;
            self.set_meta(EMBEDDER_KEY, embedder.id())?;
        }
        let missing: Vec<(i64, String, String)> = {
            let mut st = self
                .tx
                .prepare_cached(&format!(
                    "SELECT c.id, c.text, coalesce(i.title, '') FROM {T_CHUNKS} c JOIN {T_ITEMS} i ON i.item_id = c.item_id
                     WHERE NOT EXISTS (SELECT 1 FROM {T_VECTORS} v WHERE v.chunk_id = c.id) ORDER BY c.id"
                ))
                .map_err(&err)?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(&err)?;
            rows.collect::<rusqlite::Result<_>>().map_err(&err)?
        };
        let mut insert = self.tx.prepare_cached(&format!("INSERT INTO {T_VECTORS}(chunk_id, vec) VALUES (?1, ?2)")).map_err(&err)?;
        for (id, text, title) in &missing {
            let v = embedder.embed(&crate::dense::embedded_text(title, text))?;
            insert.execute(params![id, crate::dense::encode(&v)]).map_err(&err)?;
        }
        Ok(missing.len())
    }

    /// Insert an item revision and its chunks.
    pub(crate) fn insert_item(&self, item: &ItemRow, chunks: &[&str]) -> Result<()> {
        let err = sql_err(self.path, "insert item");
        let mut st = self
            .tx
            .prepare_cached(&format!(
                "INSERT INTO {T_ITEMS}(item_id, digest, kind, title, source_url, retrieved_at, indexed_at, path, bytes, chunks, written_at, written_from)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
            ))
            .map_err(&err)?;
        st.execute(params![
            item.id,
            item.digest,
            item.kind,
            item.title,
            item.source_url,
            item.retrieved_at,
            item.indexed_at,
            item.path,
            item.bytes,
            item.chunks,
            item.written_at,
            item.written_from
        ])
        .map_err(&err)?;
        let mut st =
            self.tx.prepare_cached(&format!("INSERT INTO {T_CHUNKS}(item_id, chunk_no, text) VALUES (?1, ?2, ?3)")).map_err(&err)?;
        for (n, text) in chunks.iter().enumerate() {
            st.execute(params![item.id, n as i64, text]).map_err(&err)?;
            if self.track.get() {
                self.inserted.borrow_mut().push(self.tx.last_insert_rowid());
            }
        }
        self.check_volume();
        Ok(())
    }

    /// Record what a file holds now.
    pub(crate) fn upsert_file(&self, f: &FileRow) -> Result<()> {
        let mut st = self
            .tx
            .prepare_cached(&format!("INSERT OR REPLACE INTO {T_FILES}(path, item_id, digest, size, mtime_ns) VALUES (?1, ?2, ?3, ?4, ?5)"))
            .map_err(sql_err(self.path, "record file"))?;
        st.execute(params![f.path, f.item_id, f.digest, f.size, f.mtime_ns]).map(|_| ()).map_err(sql_err(self.path, "record file"))
    }

    /// Forget a file (removed, or now unreadable).
    pub(crate) fn delete_file(&self, path: &str) -> Result<()> {
        let mut st =
            self.tx.prepare_cached(&format!("DELETE FROM {T_FILES} WHERE path = ?1")).map_err(sql_err(self.path, "forget file"))?;
        st.execute([path]).map(|_| ()).map_err(sql_err(self.path, "forget file"))
    }

    /// Delete items no file points at any more (and their chunks). Returns
    /// how many items went.
    pub(crate) fn delete_orphans(&self) -> Result<usize> {
        let err = sql_err(self.path, "delete removed items");
        if self.track.get() {
            // What FTS5 is told to forget is what the postings lose.
            let mut st = self
                .tx
                .prepare(&format!(
                    "SELECT id, text, title FROM {V_CHUNK_DOCS} WHERE id IN
                     (SELECT id FROM {T_CHUNKS} WHERE item_id NOT IN (SELECT item_id FROM {T_FILES}))"
                ))
                .map_err(&err)?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(&err)?;
            let mut deleted = self.deleted.borrow_mut();
            for row in rows {
                deleted.push(row.map_err(&err)?);
            }
            drop(deleted);
            self.check_volume();
        }
        self.tx.execute(&format!("DELETE FROM {T_CHUNKS} WHERE item_id NOT IN (SELECT item_id FROM {T_FILES})"), []).map_err(&err)?;
        self.tx.execute(&format!("DELETE FROM {T_ITEMS} WHERE item_id NOT IN (SELECT item_id FROM {T_FILES})"), []).map_err(&err)
    }

    /// Point each item at the first (by path) file that holds it, so a moved
    /// file's item shows its new path.
    pub(crate) fn refresh_item_paths(&self) -> Result<()> {
        self.tx
            .execute(
                &format!(
                    "UPDATE {T_ITEMS} SET path = (SELECT min(f.path) FROM {T_FILES} f WHERE f.item_id = {T_ITEMS}.item_id)
                     WHERE path IS NOT (SELECT min(f.path) FROM {T_FILES} f WHERE f.item_id = {T_ITEMS}.item_id)"
                ),
                [],
            )
            .map(|_| ())
            .map_err(sql_err(self.path, "update item paths"))
    }

    /// Set a meta key.
    pub(crate) fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.tx
            .execute(&format!("INSERT OR REPLACE INTO {T_META}(key, value) VALUES (?1, ?2)"), [key, value])
            .map(|_| ())
            .map_err(sql_err(self.path, "record run"))
    }

    /// Past [`INCREMENTAL_MAX_CHUNKS`] changed chunks, stop tracking
    /// them: the commit rebuilds the postings whole.
    fn check_volume(&self) {
        if self.track.get() && self.inserted.borrow().len() + self.deleted.borrow().len() > INCREMENTAL_MAX_CHUNKS {
            self.track.set(false);
            self.inserted.borrow_mut().clear();
            self.deleted.borrow_mut().clear();
        }
    }

    /// Commit everything written in this run at once, with a new
    /// generation number: other handles see it and drop what they cached.
    /// [`T_POSTINGS`] is brought in step first (the stems of the changed
    /// chunks, or all of it) and marked as of the new generation.
    pub(crate) fn commit(self) -> Result<()> {
        if self.track.get() {
            self.update_postings()?;
        } else {
            self.rebuild_postings()?;
        }
        self.tx
            .execute_batch(&format!(
                "INSERT INTO {T_META}(key, value) VALUES ('{GENERATION_KEY}', '1')
                 ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT);
                 INSERT OR REPLACE INTO {T_META}(key, value) SELECT '{POSTINGS_GENERATION_KEY}', value FROM {T_META} WHERE key = '{GENERATION_KEY}';"
            ))
            .map_err(sql_err(self.path, "commit"))?;
        self.tx.commit().map_err(sql_err(self.path, "commit"))
    }

    /// Every stem's postings in chunk rows `docs` (row, text, title), as
    /// FTS5 tokenizes them: the scratch table takes them in a savepoint
    /// that is rolled back.
    fn tokenize(&self, docs: &[(i64, String, String)]) -> Result<BTreeMap<String, Vec<Posting>>> {
        let err = sql_err(self.path, "update postings");
        let mut out: BTreeMap<String, Vec<Posting>> = BTreeMap::new();
        if docs.is_empty() {
            return Ok(out);
        }
        let _undo = Undo::begin(&self.tx, "wiki_qdocs").map_err(&err)?;
        let mut ins =
            self.tx.prepare_cached(&format!("INSERT INTO temp.{T_QDOCS}(rowid, text, title) VALUES (?1, ?2, ?3)")).map_err(&err)?;
        for (id, text, title) in docs {
            ins.execute(params![id, text, title]).map_err(&err)?;
        }
        let mut st = self.tx.prepare_cached(&format!("SELECT term, doc, col FROM temp.{T_QDOCS_I}")).map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        let mut occ: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        while let Some(r) = rows.next().map_err(&err)? {
            let term: String = r.get(0).map_err(&err)?;
            let doc: i64 = r.get(1).map_err(&err)?;
            let row = row_u32(doc, self.path)?;
            let col = u32::from(r.get_ref(2).map_err(&err)?.as_str().is_ok_and(|c| c == "title"));
            occ.entry(term).or_default().push(pack(row, col, 0));
        }
        for (term, mut list) in occ {
            list.sort_unstable();
            let p = postings_of(&list).ok_or_else(|| Error::Corrupt {
                path: self.path.to_path_buf(),
                reason: format!("stem {term:?} occurs more than 65,535 times in one chunk column"),
            })?;
            out.insert(term, p);
        }
        Ok(out)
    }

    /// Update the stored postings of the stems the changed chunks hold.
    fn update_postings(&self) -> Result<()> {
        let err = sql_err(self.path, "update postings");
        let inserted: Vec<(i64, String, String)> = {
            let mut st = self.tx.prepare_cached(&format!("SELECT id, text, title FROM {V_CHUNK_DOCS} WHERE id = ?1")).map_err(&err)?;
            let mut out = Vec::new();
            for &id in self.inserted.borrow().iter() {
                if let Some(d) = st.query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional().map_err(&err)? {
                    out.push(d);
                }
            }
            out
        };
        let added = self.tokenize(&inserted)?;
        let removed = self.tokenize(&self.deleted.borrow())?;
        let terms: std::collections::BTreeSet<&String> = added.keys().chain(removed.keys()).collect();
        let mut get = self.tx.prepare_cached(&format!("SELECT data FROM {T_POSTINGS} WHERE term = ?1")).map_err(&err)?;
        let mut put =
            self.tx.prepare_cached(&format!("INSERT OR REPLACE INTO {T_POSTINGS}(term, df, data) VALUES (?1, ?2, ?3)")).map_err(&err)?;
        let mut del = self.tx.prepare_cached(&format!("DELETE FROM {T_POSTINGS} WHERE term = ?1")).map_err(&err)?;
        for term in terms {
            let old: Option<Vec<u8>> = get.query_row([term], |r| r.get(0)).optional().map_err(&err)?;
            let old = match old {
                Some(b) => decode(&b).ok_or_else(|| Error::Corrupt {
                    path: self.path.to_path_buf(),
                    reason: format!("the stored postings of {term:?} are malformed"),
                })?,
                None => Vec::new(),
            };
            let gone: std::collections::BTreeSet<u32> = removed.get(term).into_iter().flatten().map(|p| p.row).collect();
            let new = merge(&old, &gone, added.get(term).map_or(&[][..], Vec::as_slice));
            if new.is_empty() {
                del.execute([term]).map_err(&err)?;
            } else {
                put.execute(params![term, new.len() as i64, encode(&new)]).map_err(&err)?;
            }
        }
        Ok(())
    }

    /// Rebuild the stored postings from FTS5's vocabulary, stem by stem in
    /// its order (one pass; the write's own changes are visible to it).
    fn rebuild_postings(&self) -> Result<()> {
        let err = sql_err(self.path, "rebuild postings");
        // The scan reads every page of the FTS5 index once, which through
        // the 32 MiB page cache would leave the connection holding all
        // 32 MiB for no later use: 4 MiB while it runs.
        self.tx.pragma_update(None, "cache_size", -4096).map_err(&err)?;
        let rebuilt = self.rebuild_postings_scan();
        self.tx.pragma_update(None, "cache_size", -32_768).map_err(&err)?;
        rebuilt
    }

    fn rebuild_postings_scan(&self) -> Result<()> {
        let err = sql_err(self.path, "rebuild postings");
        self.tx.execute(&format!("DELETE FROM {T_POSTINGS}"), []).map_err(&err)?;
        let mut put = self.tx.prepare_cached(&format!("INSERT INTO {T_POSTINGS}(term, df, data) VALUES (?1, ?2, ?3)")).map_err(&err)?;
        let mut st = self.tx.prepare(&format!("SELECT term, doc, col FROM temp.{T_FTS_INST}")).map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        let mut term = String::new();
        let mut list: Vec<Posting> = Vec::new();
        let mut flush = |term: &str, list: &mut Vec<Posting>| -> Result<()> {
            if !list.is_empty() {
                put.execute(params![term, list.len() as i64, encode(list)]).map_err(&err)?;
                list.clear();
            }
            Ok(())
        };
        while let Some(r) = rows.next().map_err(&err)? {
            let t = r.get_ref(0).map_err(&err)?.as_str().map_err(|e| Error::Corrupt {
                path: self.path.to_path_buf(),
                reason: format!("a stem of the FTS5 vocabulary is not text: {e}"),
            })?;
            if t != term {
                flush(&term, &mut list)?;
                term = t.to_string();
            }
            let row = row_u32(r.get(1).map_err(&err)?, self.path)?;
            let title = r.get_ref(2).map_err(&err)?.as_str().is_ok_and(|c| c == "title");
            let last = match list.last_mut() {
                Some(l) if l.row == row => l,
                _ => {
                    list.push(Posting { row, text: 0, title: 0 });
                    list.last_mut().ok_or_else(|| Error::Corrupt { path: self.path.to_path_buf(), reason: String::new() })?
                }
            };
            let n = if title { &mut last.title } else { &mut last.text };
            *n = n.checked_add(1).ok_or_else(|| Error::Corrupt {
                path: self.path.to_path_buf(),
                reason: format!("stem {term:?} occurs more than 65,535 times in chunk row {row}"),
            })?;
        }
        flush(&term, &mut list)
    }
}
