//! Postings for ranking: where a stem or a phrase occurs, per chunk row and
//! column, in a compact form, and the byte-bounded cache that keeps them
//! between searches of one index handle.
//!
//! [`crate::index::FtsIndex`] reads them from FTS5's own index (its
//! `instance` vocabulary: doc, column, offset); the search ranks chunks from
//! them with FTS5's bm25 term by term (`Wiki::rank_by_postings`). A phrase
//! (a query term of several stems, e.g. `3.5`, `1,200`, `U.S.`) is matched
//! here the way FTS5 matches it: its stems at consecutive token offsets
//! within one column of one row, every such start one instance, overlapping
//! starts included ([`phrase_starts`]).

use crate::index::TITLE_WEIGHT;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

/// One chunk row's occurrences of a stem or phrase: 8 bytes where the first
/// version held `(i64, f64)` in 16. Counts are per column; the weighted
/// frequency bm25 uses is [`Posting::freq`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Posting {
    /// The chunk row id.
    pub(crate) row: u32,
    /// Occurrences in the chunk text (column 0).
    pub(crate) text: u16,
    /// Occurrences in the item title (column 1).
    pub(crate) title: u16,
}

impl Posting {
    /// The weighted frequency FTS5's bm25 computes for this row: it starts
    /// from 0.0 and adds the column's weight once per instance, instances in
    /// (column, offset) order, text (weight 1.0) before title
    /// ([`TITLE_WEIGHT`]). The text part is an exact integer in f64; the
    /// title weight is then added one instance at a time, in the same order,
    /// so the sum has the same bits as FTS5's for any weight.
    pub(crate) fn freq(self) -> f64 {
        let mut f = f64::from(self.text);
        for _ in 0..self.title {
            f += TITLE_WEIGHT;
        }
        f
    }
}

/// A stem's or phrase's postings, ascending by row, one entry per row that
/// holds at least one instance. Shared with the cache.
pub(crate) type Postings = Arc<[Posting]>;

/// One occurrence: row, column (0 text, 1 title), token offset in the
/// column, packed so that sorting the numbers sorts by (row, column, offset)
/// and a phrase's later stems are found by subtracting their index from
/// the offset.
pub(crate) fn pack(row: u32, col: u32, offset: u32) -> u64 {
    (u64::from(row) << 33) | (u64::from(col & 1) << 32) | u64::from(offset)
}

fn unpack_row(p: u64) -> u32 {
    // The row occupies the 31 bits above bit 33 (rows are < 2^28).
    u32::try_from(p >> 33).unwrap_or(u32::MAX)
}

fn unpack_col(p: u64) -> u32 {
    u32::from((p >> 32) & 1 == 1)
}

/// Where a phrase starts, given each of its stems' occurrences (packed by
/// [`pack`], ascending): the occurrences of the first stem such that stem `j`
/// occurs at offset + `j` in the same row and column, for every `j`. This is
/// FTS5's phrase match (fts5 `fts5ExprPhraseIsMatch`: same column,
/// consecutive offsets), and every start counts, overlapping ones included
/// ("3 3" occurs twice in "3 3 3").
pub(crate) fn phrase_starts(stems: &[&[u64]]) -> Vec<u64> {
    let Some((first, rest)) = stems.split_first() else { return Vec::new() };
    let mut starts: Vec<u64> = first.to_vec();
    for (j, occ) in rest.iter().enumerate() {
        let shift = u64::try_from(j + 1).unwrap_or(u64::MAX);
        // Stem j+1 at offset o means the phrase would start at o - (j+1), in
        // the same row and column: only offsets >= j+1 can be such.
        let mut shifted = occ.iter().filter(|&&p| p & 0xffff_ffff >= shift).map(|&p| p - shift).peekable();
        starts.retain(|&s| {
            while shifted.next_if(|&p| p < s).is_some() {}
            shifted.peek() == Some(&s)
        });
        if starts.is_empty() {
            break;
        }
    }
    starts
}

/// Postings from occurrences (packed, ascending): one entry per row with its
/// per-column counts. `None` when a count does not fit a `u16` (more than
/// 65,535 instances of one stem in one chunk's column: a chunk's text is at
/// most [`crate::chunk::MAX_CHUNK`] bytes, so only a pathological title).
pub(crate) fn postings_of(occurrences: &[u64]) -> Option<Vec<Posting>> {
    let mut out: Vec<Posting> = Vec::new();
    for &p in occurrences {
        let row = unpack_row(p);
        let col = unpack_col(p);
        let last = match out.last_mut() {
            Some(l) if l.row == row => l,
            _ => {
                out.push(Posting { row, text: 0, title: 0 });
                out.last_mut()?
            }
        };
        let n = if col == 0 { &mut last.text } else { &mut last.title };
        *n = n.checked_add(1)?;
    }
    Some(out)
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &[u8], at: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u32::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Postings as stored in the index's own postings table: per row, the row
/// id's distance from the previous one, then the text and title counts,
/// each a LEB128 varint (about 3 bytes a posting).
pub(crate) fn encode(p: &[Posting]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len() * 3);
    let mut last = 0u32;
    for x in p {
        put_varint(&mut out, x.row.wrapping_sub(last));
        put_varint(&mut out, u32::from(x.text));
        put_varint(&mut out, u32::from(x.title));
        last = x.row;
    }
    out
}

/// The postings [`encode`] wrote; `None` when the bytes are not such
/// (rows not ascending, a count past `u16`, a varint cut short).
pub(crate) fn decode(b: &[u8]) -> Option<Vec<Posting>> {
    let mut out = Vec::with_capacity(b.len() / 3);
    let mut at = 0;
    let mut row = 0u32;
    while at < b.len() {
        let delta = get_varint(b, &mut at)?;
        if delta == 0 && !out.is_empty() {
            return None;
        }
        row = row.checked_add(delta)?;
        let text = u16::try_from(get_varint(b, &mut at)?).ok()?;
        let title = u16::try_from(get_varint(b, &mut at)?).ok()?;
        out.push(Posting { row, text, title });
    }
    Some(out)
}

/// `old` without the rows in `removed`, with `added` merged in (a row in
/// both replaces the old entry), ascending by row.
pub(crate) fn merge(old: &[Posting], removed: &std::collections::BTreeSet<u32>, added: &[Posting]) -> Vec<Posting> {
    let mut out: Vec<Posting> = Vec::with_capacity(old.len() + added.len());
    let mut a = added.iter().peekable();
    for o in old.iter().filter(|o| !removed.contains(&o.row)) {
        while let Some(n) = a.next_if(|n| n.row < o.row) {
            out.push(*n);
        }
        if a.peek().is_some_and(|n| n.row == o.row) {
            continue;
        }
        out.push(*o);
    }
    out.extend(a);
    out
}

/// Bytes one cached entry holds besides its postings: the key's heap
/// string, the map slot, the `Arc` header and the recency stamp.
const ENTRY_OVERHEAD: usize = 96;

/// What a cached value holds, in bytes, for the cache's budget.
pub(crate) trait Weighed: Clone {
    /// Bytes held (heap included).
    fn bytes(&self) -> usize;
}

impl<T> Weighed for Arc<[T]> {
    fn bytes(&self) -> usize {
        std::mem::size_of_val::<[T]>(self)
    }
}

/// A cache key's heap bytes, for the cache's budget (a row id has none).
pub(crate) trait KeyBytes {
    /// Heap bytes the key holds.
    fn key_bytes(&self) -> usize;
}

impl KeyBytes for String {
    fn key_bytes(&self) -> usize {
        self.len()
    }
}

impl KeyBytes for i64 {
    fn key_bytes(&self) -> usize {
        0
    }
}

struct Entry<V> {
    postings: V,
    used: u64,
}

/// Lists by key, bounded in bytes: [`Postings`] by term (a stem, or a
/// phrase's stems joined by a space: the tokenizer never puts one inside a
/// stem), and the occurrences of the stems of phrases (numbers' parts such
/// as "2" or "5" are in many phrases, and each phrase would read them again). When an insert
/// takes it over its budget, the least recently used entries go until a
/// quarter of the budget is free: one sort of the recency stamps per
/// quarter-budget of inserts, instead of clearing everything (the first
/// version cleared the whole cache at 1M entries and read the frequent
/// stems again at once).
pub(crate) struct PostingsCache<V = Postings, K = String> {
    map: HashMap<K, Entry<V>>,
    bytes: usize,
    budget: usize,
    tick: u64,
}

impl<V: Weighed, K: Hash + Eq + Clone + KeyBytes> PostingsCache<V, K> {
    /// An empty cache that holds at most `budget` bytes.
    pub(crate) fn new(budget: usize) -> PostingsCache<V, K> {
        PostingsCache { map: HashMap::new(), bytes: 0, budget, tick: 0 }
    }

    fn cost(key: &K, p: &V) -> usize {
        key.key_bytes() + p.bytes() + ENTRY_OVERHEAD
    }

    /// The postings under `key`, marked as just used.
    pub(crate) fn get<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(key).map(|e| {
            e.used = tick;
            e.postings.clone()
        })
    }

    /// Keep `p` under `key`, evicting the least recently used entries when
    /// over budget. An entry larger than the whole budget is not kept.
    pub(crate) fn insert<Q>(&mut self, key: &Q, p: &V)
    where
        Q: ToOwned<Owned = K> + ?Sized,
    {
        let key = key.to_owned();
        let cost = Self::cost(&key, p);
        if cost > self.budget {
            return;
        }
        self.tick += 1;
        let old = self.map.insert(key.clone(), Entry { postings: p.clone(), used: self.tick });
        if let Some(old) = old {
            self.bytes -= Self::cost(&key, &old.postings);
        }
        self.bytes += cost;
        if self.bytes > self.budget {
            self.evict(self.budget - self.budget / 4);
        }
    }

    fn evict(&mut self, target: usize) {
        let mut by_age: Vec<(u64, K)> = self.map.iter().map(|(k, e)| (e.used, k.clone())).collect();
        by_age.sort_unstable_by_key(|(used, _)| *used);
        for (_, k) in by_age {
            if self.bytes <= target {
                break;
            }
            if let Some(e) = self.map.remove(&k) {
                self.bytes -= Self::cost(&k, &e.postings);
            }
        }
    }

    /// Bytes held (by the accounting above).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Entries held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// Drop everything (the index changed).
    pub(crate) fn clear(&mut self) {
        self.map.clear();
        self.bytes = 0;
    }
}

/// The postings caches of every index handle on one SQLite file in this
/// process. The audit searches from one handle per worker; each used to
/// read (through FTS5's vocabulary, ~150 ns an occurrence) and hold its own
/// copy of the same stems. Shared, a stem is read once per process and held
/// once.
///
/// Coherence: the caches hold the index as of one generation (the
/// `wiki_meta` number every committed write raises). A handle whose
/// snapshot is at a newer generation empties them and takes them over; one
/// at an older generation (it began reading before another handle saw a
/// commit) neither reads nor fills them.
pub(crate) struct Shared {
    generation: Option<i64>,
    pub(crate) postings: PostingsCache<Postings>,
    pub(crate) occurrences: PostingsCache<Arc<[u64]>>,
    /// Chunks with their items by row id: the hits of one message's claims
    /// repeat (on the Enron bench, 55% of the hits are among the last 2,000
    /// chunks returned).
    pub(crate) chunks: PostingsCache<Arc<crate::index::ChunkRow>, i64>,
    /// What the index knows of a query term (its stems and document
    /// frequency) by the term lowercased: the claims of one archive share
    /// most of their words, and each worker's handle used to look every
    /// word up in SQLite on its own (a savepoint, an insert into the
    /// tokenizing table, its vocabulary and one frequency per stem).
    pub(crate) terms: PostingsCache<Arc<crate::index::TermInfo>>,
    /// Every chunk's vector, with the embedder that made them: read whole once per
    /// generation (27 MB at 100,000 chunks, outside the byte budgets: a search
    /// reads all of it).
    pub(crate) vectors: Option<(String, Arc<crate::dense::Vectors>)>,
}

/// A handle's share of [`Shared`].
pub(crate) type SharedCaches = Arc<std::sync::Mutex<Shared>>;

impl Shared {
    fn new(budgets: CacheBudgets) -> Shared {
        Shared {
            generation: None,
            postings: PostingsCache::new(budgets.postings),
            occurrences: PostingsCache::new(budgets.occurrences),
            chunks: PostingsCache::new(budgets.chunks),
            terms: PostingsCache::new(budgets.terms),
            vectors: None,
        }
    }

    /// Move to `generation` if it is newer than what is held (emptying
    /// both caches); whether the caches are now at `generation`.
    pub(crate) fn at(&mut self, generation: i64) -> bool {
        if self.generation.is_none_or(|g| g < generation) {
            self.postings.clear();
            self.occurrences.clear();
            self.chunks.clear();
            self.terms.clear();
            self.vectors = None;
            self.generation = Some(generation);
        }
        self.generation == Some(generation)
    }
}

/// Run `f` on the shared caches when they are at `generation` (see
/// [`Shared`]); `None` when they are not, or the lock is poisoned by a
/// panic elsewhere (the caches are then bypassed, not trusted).
pub(crate) fn with_shared<R>(caches: &SharedCaches, generation: Option<i64>, f: impl FnOnce(&mut Shared) -> R) -> Option<R> {
    let generation = generation?;
    let mut s = caches.lock().ok()?;
    if s.at(generation) { Some(f(&mut s)) } else { None }
}

/// The byte budgets of the caches in [`Shared`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct CacheBudgets {
    /// [`Shared::postings`].
    pub(crate) postings: usize,
    /// [`Shared::occurrences`].
    pub(crate) occurrences: usize,
    /// [`Shared::chunks`].
    pub(crate) chunks: usize,
    /// [`Shared::terms`].
    pub(crate) terms: usize,
}

impl CacheBudgets {
    /// Every cache at `bytes` (tests: a tiny budget evicts all the time).
    #[cfg(test)]
    pub(crate) fn all(bytes: usize) -> CacheBudgets {
        CacheBudgets { postings: bytes, occurrences: bytes, chunks: bytes, terms: bytes }
    }

    /// Their sum: what the shared caches of one file hold at most, by
    /// their accounting.
    #[cfg(test)]
    pub(crate) fn total(self) -> usize {
        self.postings + self.occurrences + self.chunks + self.terms
    }
}

/// The shared caches of the SQLite file at `path` (canonical path as the
/// key), created with these budgets when no live handle holds them. An
/// in-memory database (`:memory:`) is never shared.
pub(crate) fn shared_caches(path: &std::path::Path, budgets: CacheBudgets) -> SharedCaches {
    use std::sync::{Mutex, OnceLock, Weak};
    static ALL: OnceLock<Mutex<HashMap<std::path::PathBuf, Weak<Mutex<Shared>>>>> = OnceLock::new();
    let fresh = || Arc::new(Mutex::new(Shared::new(budgets)));
    if path.as_os_str() == ":memory:" {
        return fresh();
    }
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let Ok(mut all) = ALL.get_or_init(|| Mutex::new(HashMap::new())).lock() else { return fresh() };
    // Files no handle has open any more.
    all.retain(|_, w| w.strong_count() > 0);
    if let Some(c) = all.get(&key).and_then(Weak::upgrade) {
        return c;
    }
    let c = fresh();
    all.insert(key, Arc::downgrade(&c));
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(list: &[(u32, u32, u32)]) -> Vec<u64> {
        let mut v: Vec<u64> = list.iter().map(|&(r, c, o)| pack(r, c, o)).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn phrases_match_consecutive_offsets_in_one_column() {
        // "3 5": row 1 text "3 5 x 3 5", row 2 "5 3" (no), row 3 "3" at the
        // end of the text and "5" first in the title (no: another column),
        // row 4 title "3 5".
        let three = occ(&[(1, 0, 0), (1, 0, 3), (2, 0, 1), (3, 0, 7), (4, 1, 0)]);
        let five = occ(&[(1, 0, 1), (1, 0, 4), (2, 0, 0), (3, 1, 0), (4, 1, 1)]);
        let starts = phrase_starts(&[&three, &five]);
        assert_eq!(starts, occ(&[(1, 0, 0), (1, 0, 3), (4, 1, 0)]));
        let p = postings_of(&starts).unwrap();
        assert_eq!(p, vec![Posting { row: 1, text: 2, title: 0 }, Posting { row: 4, text: 0, title: 1 }]);
        // Overlapping starts each count: "3 3" in "3 3 3".
        let threes = occ(&[(9, 0, 0), (9, 0, 1), (9, 0, 2)]);
        assert_eq!(postings_of(&phrase_starts(&[&threes, &threes])).unwrap(), vec![Posting { row: 9, text: 2, title: 0 }]);
        assert!(phrase_starts(&[&three, &five, &[]]).is_empty());
        assert!(phrase_starts(&[]).is_empty());
    }

    #[test]
    fn freq_adds_title_weight_per_instance() {
        let p = Posting { row: 1, text: 3, title: 2 };
        let mut f = 0.0;
        for _ in 0..3 {
            f += 1.0;
        }
        for _ in 0..2 {
            f += TITLE_WEIGHT;
        }
        assert_eq!(p.freq().to_bits(), f64::to_bits(f));
        let mut many = vec![pack(5, 0, 0); 70_000];
        many.sort_unstable();
        assert!(postings_of(&many).is_none(), "a count past u16 is refused, not wrapped");
    }

    #[test]
    fn stored_postings_round_trip_and_merge() {
        let p = vec![
            Posting { row: 1, text: 1, title: 0 },
            Posting { row: 200, text: 300, title: 2 },
            Posting { row: 70_000, text: u16::MAX, title: 1 },
        ];
        assert_eq!(decode(&encode(&p)).unwrap(), p);
        assert_eq!(decode(&[]).unwrap(), vec![]);
        assert!(decode(&[0x81]).is_none(), "cut short");
        assert!(decode(&encode(&[Posting { row: 3, text: 1, title: 0 }, Posting { row: 3, text: 1, title: 0 }])).is_none(), "a row twice");
        let removed = [200u32].into_iter().collect();
        let added =
            [Posting { row: 5, text: 2, title: 0 }, Posting { row: 70_000, text: 9, title: 9 }, Posting { row: 80_000, text: 1, title: 0 }];
        assert_eq!(
            merge(&p, &removed, &added),
            vec![
                Posting { row: 1, text: 1, title: 0 },
                Posting { row: 5, text: 2, title: 0 },
                Posting { row: 70_000, text: 9, title: 9 },
                Posting { row: 80_000, text: 1, title: 0 }
            ]
        );
    }

    #[test]
    fn cache_is_bounded_in_bytes_and_evicts_the_least_recently_used() {
        let entry = |n: usize| -> Postings { (0..n).map(|i| Posting { row: i as u32, text: 1, title: 0 }).collect::<Vec<_>>().into() };
        let one = PostingsCache::<Postings>::cost(&"k00".to_string(), &entry(100));
        let mut c: PostingsCache = PostingsCache::new(one * 10);
        for i in 0..10 {
            c.insert(&format!("k{i:02}"), &entry(100));
        }
        assert_eq!((c.len(), c.bytes()), (10, one * 10));
        // k00 used again: it is the newest now, k01 the oldest.
        assert!(c.get("k00").is_some());
        c.insert("k10", &entry(100));
        assert!(c.bytes() <= one * 10 - one * 10 / 4, "{} bytes", c.bytes());
        assert!(c.get("k00").is_some(), "recently used entries stay");
        assert!(c.get("k10").is_some());
        assert!(c.get("k01").is_none(), "the least recently used went first");
        // Re-inserting a key replaces it without double counting.
        let before = c.bytes();
        c.insert("k10", &entry(100));
        assert_eq!(c.bytes(), before);
        // Too large for the budget: not kept at all.
        c.insert("huge", &entry(10_000));
        assert!(c.get("huge").is_none());
        c.clear();
        assert_eq!((c.len(), c.bytes()), (0, 0));
    }
}
