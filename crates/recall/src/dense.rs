//! Recall by meaning: chunk embeddings stored beside the full-text index, searched
//! exactly, and fused with bm25 by reciprocal rank.
//!
//! Each chunk's vector (its item's title and its text, embedded by
//! [`amem_models::StaticEmbedder`]) is stored in [`crate::index::T_VECTORS`] in the
//! index's own transaction, so a chunk is embedded once: an unchanged note keeps its
//! vectors, a changed one gets new chunks and new vectors, a deleted chunk's vector goes
//! with it (a trigger). Vectors are stored as 8-bit integers with a scale (a quarter of
//! f32's room; the cosine moves by under 0.01) and searched in two passes over every
//! chunk ([`Vectors::nearest_with`]): the leading quarter of each vector picks the candidates,
//! the whole vector orders them; up to 700 chunks that is exact. At 100,000 chunks the
//! first pass is 3.2 million multiply-adds, about a millisecond; a graph index (HNSW)
//! would only pay past that (docs/benchmarks.md, "Local recall").

use std::str::FromStr;

/// How recall ranks the wiki's chunks for a claim.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RecallMethod {
    /// bm25 over the full-text index: the words.
    #[default]
    Bm25,
    /// Cosine of the static embeddings: the meaning.
    Dense,
    /// Both lists, fused by reciprocal rank ([`RRF_K`]).
    Hybrid,
}

impl RecallMethod {
    /// The name the CLI and reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            RecallMethod::Bm25 => "bm25",
            RecallMethod::Dense => "dense",
            RecallMethod::Hybrid => "hybrid",
        }
    }

    /// Whether the method reads the vectors.
    pub fn reads_vectors(self) -> bool {
        self != RecallMethod::Bm25
    }
}

impl FromStr for RecallMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "bm25" => Ok(RecallMethod::Bm25),
            "dense" => Ok(RecallMethod::Dense),
            "hybrid" => Ok(RecallMethod::Hybrid),
            other => Err(format!("unknown recall method {other:?} (bm25, dense or hybrid)")),
        }
    }
}

impl std::fmt::Display for RecallMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The constant of reciprocal-rank fusion: a chunk scores `1 / (RRF_K + rank)` in each
/// list. Measured on the Climate-FEVER dev half's presence at k = 5 (models/embed/README.md):
/// 10 was better than the usual 60, which flattens the head of each list.
pub const RRF_K: f64 = 10.0;

/// How many chunks each list gives the fusion (at least the k asked for).
pub const FUSION_CANDIDATES: usize = 30;

/// The text of a chunk that is embedded: its item's title, when it has one, and its text.
pub(crate) fn embedded_text(title: &str, text: &str) -> String {
    if title.trim().is_empty() { text.to_string() } else { format!("{}. {text}", title.trim()) }
}

/// A unit vector as stored: its scale (f32, little-endian) and one signed byte per
/// dimension (`value / scale`, rounded).
pub(crate) fn encode(v: &[f32]) -> Vec<u8> {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let mut out = Vec::with_capacity(4 + v.len());
    out.extend_from_slice(&scale.to_le_bytes());
    out.extend(v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8));
    out
}

/// Every stored vector of one embedder, as of one index generation, in one block.
#[derive(Debug, Default)]
pub(crate) struct Vectors {
    pub(crate) dim: usize,
    rows: Vec<i64>,
    scales: Vec<f32>,
    /// Each vector's first [`HEAD`] values (its leading principal axes: the embedder's
    /// table is projected on them in order of variance), widened to 16 bits once at load
    /// so the CPU's multiply-add of 16-bit lanes reads them as they are. Kept apart from
    /// the rest so the first pass streams half the bytes: at 34,000 chunks the search was
    /// bound by memory bandwidth.
    head: Vec<i16>,
    /// The rest of each vector, read only for the candidates.
    tail: Vec<i16>,
}

/// Leading dimensions of the first pass ([`Vectors::nearest`]). With 64 the search was
/// still a fifth of the x1 audit's CPU; with 32 it is half that.
pub(crate) const HEAD: usize = 32;

/// Candidates the first pass hands to the second: at least this many, and at least one
/// chunk in [`CANDIDATE_SHARE`]. On the dev sets the 30 nearest came out those of an exact
/// search for 98.8% of claims (Climate-FEVER), 94.9% (WiCE) and 100% (HealthVer), and
/// every presence figure equal.
pub(crate) const MIN_CANDIDATES: usize = 700;

/// The share of the chunks the first pass keeps, when more than [`MIN_CANDIDATES`].
pub(crate) const CANDIDATE_SHARE: usize = 50; // one in 50

impl Vectors {
    pub(crate) fn new(dim: usize) -> Vectors {
        Vectors { dim, ..Vectors::default() }
    }

    /// Add a stored blob for chunk row `row`; false (and nothing added) when its length
    /// is not the width's.
    pub(crate) fn push(&mut self, row: i64, blob: &[u8]) -> bool {
        let Some((scale, values)) = blob.split_first_chunk::<4>() else { return false };
        if values.len() != self.dim {
            return false;
        }
        let head = self.dim.min(HEAD);
        self.rows.push(row);
        self.scales.push(f32::from_le_bytes(*scale));
        self.head.extend(values[..head].iter().map(|&b| i16::from(b as i8)));
        self.tail.extend(values[head..].iter().map(|&b| i16::from(b as i8)));
        true
    }

    /// How many chunks have a vector.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// [`Vectors::nearest_with`] with a buffer of its own (tests).
    #[cfg(test)]
    pub(crate) fn nearest(&self, query: &[f32], n: usize) -> Vec<(f32, i64)> {
        self.nearest_with(query, n, &mut Vec::new())
    }

    /// The `n` chunk rows most similar to `query` (a unit vector of the same width), best
    /// first, with their cosine; ties to the lower row. The query is quantized like the
    /// stored vectors, so each product is of two small integers summed in integers.
    ///
    /// Two passes: the first scores every chunk by the leading [`HEAD`] dimensions and
    /// keeps the best [`MIN_CANDIDATES`] (or one chunk in [`CANDIDATE_SHARE`], whichever is
    /// more); the second scores those by the whole vector. With no more chunks than
    /// candidates the search is exact. The first pass's scores are kept in `scratch` (a
    /// search per claim: the audit's workers reuse one buffer each instead of allocating
    /// one entry per chunk every time).
    pub(crate) fn nearest_with(&self, query: &[f32], n: usize, scratch: &mut Vec<(f32, u32)>) -> Vec<(f32, i64)> {
        if n == 0 || query.len() != self.dim || self.rows.is_empty() {
            return Vec::new();
        }
        let q = encode(query);
        let q_scale = f32::from_le_bytes([q[0], q[1], q[2], q[3]]);
        let q: Vec<i16> = q[4..].iter().map(|&b| i16::from(b as i8)).collect();
        let head = self.dim.min(HEAD);
        let tail = self.dim - head;
        let (q_head, q_tail) = q.split_at(head);
        let order = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        let keep = MIN_CANDIDATES.max(self.rows.len() / CANDIDATE_SHARE).max(n);
        scratch.clear();
        if self.rows.len() <= keep {
            scratch.extend((0..self.rows.len()).map(|i| (0.0, i as u32)));
        } else {
            scratch.extend(
                self.head
                    .chunks_exact(head)
                    .zip(&self.scales)
                    .enumerate()
                    .map(|(i, (values, &scale))| (scale * dot_i16(q_head, values) as f32, i as u32)),
            );
            scratch.select_nth_unstable_by(keep - 1, order);
            scratch.truncate(keep);
        }
        let mut candidates = std::mem::take(scratch);
        for c in candidates.iter_mut() {
            let i = c.1 as usize;
            let dot = dot_i16(q_head, &self.head[i * head..(i + 1) * head]) + dot_i16(q_tail, &self.tail[i * tail..(i + 1) * tail]);
            c.0 = q_scale * self.scales[i] * dot as f32;
        }
        // Ties go to the lower row, as everywhere in recall.
        let by_row = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(self.rows[a.1 as usize].cmp(&self.rows[b.1 as usize]));
        candidates.sort_unstable_by(by_row);
        let best = candidates.iter().take(n).map(|&(cos, i)| (cos, self.rows[i as usize])).collect();
        *scratch = candidates;
        best
    }
}

/// `a · b` for byte-range values held in 16 bits, summed in 16 i32 lanes so it vectorises
/// into multiply-adds of 16-bit pairs (at most 127 * 127 a step per lane: no overflow below
/// a width of 100,000).
// Not `#[inline(always)]`: inlined into the scan with the head's width known, the
// compiler unrolled it into scalar loads (the x1 audit got slower); called, it is the
// vectorised multiply-add loop.
#[inline(never)]
fn dot_i16(a: &[i16], b: &[i16]) -> i32 {
    let mut lanes = [0i32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| i32::from(x) * i32::from(y)).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            lanes[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    lanes.iter().sum::<i32>() + tail
}

/// Reciprocal-rank fusion of ranked lists of chunk rows: each row's sum of
/// `1 / (RRF_K + rank)` (rank from 1) over the lists it is in, best first, ties to the
/// lower row.
pub(crate) fn fuse(lists: &[&[i64]]) -> Vec<(f64, i64)> {
    let mut scores: Vec<(f64, i64)> = Vec::new();
    for list in lists {
        for (rank, &row) in list.iter().enumerate() {
            let s = 1.0 / (RRF_K + rank as f64 + 1.0);
            match scores.iter_mut().find(|(_, r)| *r == row) {
                Some(hit) => hit.0 += s,
                None => scores.push((s, row)),
            }
        }
    }
    scores.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_vector_reads_back_within_a_rounding() {
        let v: Vec<f32> = (0..16).map(|i| ((i as f32) - 7.5) / 20.0).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let v: Vec<f32> = v.iter().map(|x| x / n).collect();
        let mut m = Vectors::new(16);
        assert!(m.push(7, &encode(&v)));
        assert!(!m.push(8, &encode(&v[..15])), "a blob of another width is refused");
        let (cos, row) = m.nearest(&v, 1)[0];
        assert_eq!(row, 7);
        assert!((cos - 1.0).abs() < 0.01, "{cos}");
    }

    #[test]
    fn nearest_ranks_by_cosine_and_ties_go_to_the_lower_row() {
        let mut m = Vectors::new(2);
        for (row, v) in [(5, [1.0, 0.0]), (3, [0.0, 1.0]), (9, [0.6, 0.8]), (1, [0.6, 0.8])] {
            m.push(row, &encode(&v));
        }
        let got: Vec<i64> = m.nearest(&[0.0, 1.0], 3).into_iter().map(|x| x.1).collect();
        assert_eq!(got, vec![3, 1, 9]);
        assert!(m.nearest(&[0.0, 1.0, 0.0], 3).is_empty(), "a query of another width finds nothing");
    }

    #[test]
    fn the_two_passes_find_what_an_exact_search_finds() {
        // 20,000 random unit vectors of 128 dims with decaying variance (as principal axes
        // have), and queries near some of them: the two passes give the exact top 10.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 20_001) as f32 / 10_000.0 - 1.0
        };
        let unit = |v: Vec<f32>| {
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.into_iter().map(|x| x / n).collect::<Vec<f32>>()
        };
        let dim = 128;
        let mut m = Vectors::new(dim);
        let mut all = Vec::new();
        for row in 0..20_000i64 {
            let v = unit((0..dim).map(|d| next() / (1.0 + d as f32 / 16.0)).collect());
            m.push(row, &encode(&v));
            all.push(v);
        }
        for target in [3usize, 777, 19_999] {
            let q = unit(all[target].iter().map(|x| x + 0.3 * next() / 8.0).collect());
            let got: Vec<i64> = m.nearest(&q, 10).into_iter().map(|x| x.1).collect();
            // Exact, over the same quantized vectors.
            let mut exact = Vectors::new(dim);
            let mut full: Vec<(f32, i64)> = Vec::new();
            for (row, v) in all.iter().enumerate() {
                exact.push(row as i64, &encode(v));
                full.push((exact.nearest(&q, 1)[0].0, row as i64));
                exact = Vectors::new(dim);
            }
            full.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let want: Vec<i64> = full.into_iter().take(10).map(|x| x.1).collect();
            assert_eq!(got, want, "query near row {target}");
            assert_eq!(got[0], target as i64);
        }
    }

    #[test]
    fn fusion_adds_reciprocal_ranks() {
        // Row 2 is second in both lists; row 1 first in one only: 2/(K+2) > 1/(K+1).
        let fused = fuse(&[&[1, 2, 3], &[4, 2]]);
        assert_eq!(fused[0].1, 2);
        assert!((fused[0].0 - 2.0 / (RRF_K + 2.0)).abs() < 1e-12);
        assert_eq!(fused.iter().map(|x| x.1).collect::<Vec<_>>(), vec![2, 1, 4, 3]);
    }

    #[test]
    fn methods_read_back_from_their_names() {
        for m in [RecallMethod::Bm25, RecallMethod::Dense, RecallMethod::Hybrid] {
            assert_eq!(m.as_str().parse::<RecallMethod>().unwrap(), m);
        }
        assert!("cosine".parse::<RecallMethod>().is_err());
    }
}
