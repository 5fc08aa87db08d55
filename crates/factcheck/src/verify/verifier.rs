//! A verifier that remembers the evidence texts it has read.
//!
//! Verification splits each evidence quote into sentences and reads their
//! words, stems, values and cues before it looks at the claim. In an audit,
//! consecutive claims of one message usually recall the very same chunks (on
//! 3,000 messages of the Enron benchmark archive, 52% of recalled chunks are
//! the chunk of one of the previous 16 recalls, 58% of the previous 256), so a
//! [`Verifier`] keeps the analyses of recently seen texts in a small bounded
//! cache and reads a repeated chunk once. The verdict never depends on the
//! cache: an analysis is a pure function of the text, and a cached one is
//! only used for a byte-identical text.

use super::Verification;
use super::align;
use super::analysis::EvidenceAnalysis;
use super::text::FastHash;
use amem_model::Evidence;
use std::collections::HashMap;
use std::sync::Arc;

/// How many evidence texts a [`Verifier`] remembers by default. At the
/// benchmark's chunk sizes (up to 1,000 bytes) an analysis takes roughly
/// 15 KB, so the default cache stays within a few megabytes.
pub const DEFAULT_CAPACITY: usize = 256;

/// Counters of a [`Verifier`]'s cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Evidence texts found already analysed.
    pub hits: u64,
    /// Evidence texts analysed afresh.
    pub misses: u64,
    /// Analyses held now.
    pub entries: usize,
}

/// Verifies claims like [`super::verify`], remembering the analyses of the
/// last evidence texts it read (at most `capacity`).
///
/// Keep one per thread that verifies (it is `Send`, not meant to be shared
/// behind a lock): `verifier.verify(claim, &evidence)` gives exactly what
/// [`super::verify`] gives.
///
/// ```
/// use amem_factcheck::verify::{Verifier, text_evidence, verify};
///
/// let mut verifier = Verifier::new();
/// let evidence = [text_evidence("After the review, the launch moved to 3 May 2024. The budget was cut.", 0)];
/// for claim in ["The launch moved to May 3, 2024.", "The budget was cut."] {
///     assert_eq!(verifier.verify(claim, &evidence), verify(claim, &evidence));
/// }
/// assert_eq!(verifier.stats().misses, 1);
/// assert_eq!(verifier.stats().hits, 1);
/// ```
#[derive(Debug)]
pub struct Verifier {
    cache: Cache,
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier::new()
    }
}

impl Verifier {
    /// A verifier remembering up to [`DEFAULT_CAPACITY`] evidence texts.
    pub fn new() -> Self {
        Verifier::with_capacity(DEFAULT_CAPACITY)
    }

    /// A verifier remembering up to `capacity` evidence texts (0: none).
    pub fn with_capacity(capacity: usize) -> Self {
        Verifier { cache: Cache::new(capacity) }
    }

    /// Verify `claim` against `evidence`: the same [`Verification`] as [`super::verify`].
    pub fn verify(&mut self, claim: &str, evidence: &[Evidence]) -> Verification {
        let analyses: Vec<Arc<EvidenceAnalysis>> = evidence.iter().map(|e| self.cache.get(&e.quote)).collect();
        let refs: Vec<&EvidenceAnalysis> = analyses.iter().map(Arc::as_ref).collect();
        let out = align::decide(claim, evidence, &refs);
        Verification { status: out.status, reasons: out.reasons }
    }

    /// The cache's counters so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats { hits: self.cache.hits, misses: self.cache.misses, entries: self.cache.len() }
    }
}

/// Verify without any cache: every evidence text is analysed afresh.
pub(crate) fn verify_uncached(claim: &str, evidence: &[Evidence]) -> Verification {
    let analyses: Vec<EvidenceAnalysis> = evidence.iter().map(|e| EvidenceAnalysis::new(&e.quote)).collect();
    let refs: Vec<&EvidenceAnalysis> = analyses.iter().collect();
    let out = align::decide(claim, evidence, &refs);
    Verification { status: out.status, reasons: out.reasons }
}

/// Analyses by their text (a hit is confirmed by comparing the whole text, as any map does).
type Map = HashMap<Box<str>, Arc<EvidenceAnalysis>, FastHash>;

/// Two generations of analyses keyed by their text: new ones go into `young`; when `young`
/// holds half the capacity it becomes `old` (the previous `old` is dropped), and a hit in
/// `old` moves back into `young`. A text used within the last `capacity / 2` distinct texts
/// is always found; at most `capacity` are held.
#[derive(Debug)]
struct Cache {
    young: Map,
    old: Map,
    half: usize,
    hits: u64,
    misses: u64,
}

impl Cache {
    fn new(capacity: usize) -> Self {
        Cache { young: Map::default(), old: Map::default(), half: capacity / 2, hits: 0, misses: 0 }
    }

    fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    fn get(&mut self, text: &str) -> Arc<EvidenceAnalysis> {
        if let Some(a) = self.young.get(text) {
            self.hits += 1;
            return Arc::clone(a);
        }
        let found = self.old.remove_entry(text);
        let (key, analysis) = match found {
            Some(kv) => {
                self.hits += 1;
                kv
            }
            None => {
                self.misses += 1;
                let a = Arc::new(EvidenceAnalysis::new(text));
                if self.half == 0 {
                    return a;
                }
                (Box::from(text), a)
            }
        };
        if self.young.len() >= self.half {
            self.old = std::mem::take(&mut self.young);
        }
        self.young.insert(key, Arc::clone(&analysis));
        analysis
    }
}
