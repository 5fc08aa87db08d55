//! A thread's memory of what it computed from texts, by the text: the
//! extractor's clause readings (its one user; a memory of message cuts and
//! one of a claim's stance cues were taken out when measured to save
//! nothing).

use crate::words::FastHash;
use std::collections::HashMap;

/// What a thread remembers of texts it has read, by the text, in two
/// generations: when the newer one fills (`limit` bytes, estimated by the
/// caller), the older is dropped, so memory stays flat (at most twice the
/// limit a thread) on any archive while the entries in use stay. What is
/// remembered depends on the text alone: a remembered answer is the one a
/// second reading would give.
pub struct Memory<V> {
    newer: HashMap<Box<str>, V, FastHash>,
    older: HashMap<Box<str>, V, FastHash>,
    /// Estimated bytes held by `newer`.
    bytes: usize,
    /// Bytes a generation holds at most.
    limit: usize,
    /// Estimated bytes of an entry, to size a generation's table up front
    /// (growing it step by step was a tenth of the cost).
    per_entry: usize,
}

impl<V: Clone> Memory<V> {
    /// An empty memory of at most `limit` bytes a generation, entries of
    /// about `per_entry` bytes.
    pub fn new(limit: usize, per_entry: usize) -> Memory<V> {
        Memory {
            newer: HashMap::with_capacity_and_hasher(limit / per_entry, FastHash::default()),
            older: HashMap::default(),
            bytes: 0,
            limit,
            per_entry,
        }
    }

    /// The entry for `key`: remembered, else made by `make` (one found only
    /// in the older generation moves to the newer one); `size` estimates
    /// its bytes.
    pub fn get_or_make(&mut self, key: &str, make: impl FnOnce(&str) -> V, size: impl FnOnce(&V) -> usize) -> V {
        if let Some(v) = self.newer.get(key) {
            return v.clone();
        }
        let v = match self.older.get(key) {
            Some(v) => v.clone(),
            None => make(key),
        };
        let size = size(&v);
        if self.bytes + size > self.limit {
            let fresh = HashMap::with_capacity_and_hasher(self.limit / self.per_entry, FastHash::default());
            self.older = std::mem::replace(&mut self.newer, fresh);
            self.bytes = 0;
        }
        self.bytes += size;
        self.newer.insert(key.into(), v.clone());
        v
    }
}

impl<V> Memory<V> {
    /// Is `key` remembered (in either generation)?
    pub fn holds(&self, key: &str) -> bool {
        self.newer.contains_key(key) || self.older.contains_key(key)
    }

    /// Estimated bytes held by the newer generation.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_stay_within_two_generations() {
        let size = |_: &usize| 100;
        let mut m = Memory::new(1000, 100);
        let texts: Vec<String> = (0..100).map(|i| format!("text {i}")).collect();
        for (i, t) in texts.iter().enumerate() {
            assert_eq!(m.get_or_make(t, |_| i, size), i);
            assert!(m.bytes() <= 1000 && m.newer.len() <= 10 && m.older.len() <= 10);
        }
        // the oldest have gone, the latest are remembered
        assert!(!m.holds(&texts[0]) && m.holds(&texts[99]));
        let mut calls = 0;
        let got = m.get_or_make(
            &texts[99],
            |_| {
                calls += 1;
                0
            },
            size,
        );
        assert_eq!((got, calls), (99, 0));
    }
}
