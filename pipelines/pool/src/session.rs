//! Drawing a blind labelling session from a gated pool.
//!
//! The session file shows a labeller only the id, the source and the memory
//! write, with empty `label` and `mechanism` columns: no verdict, flag or
//! stratum, and an order that carries no signal (the strata are shuffled
//! together by the seed). What the labeller must not see goes to the hidden
//! key: stratum, inclusion probability, and the candidate it stands for.

use crate::stats::SplitMix64;
use crate::{Candidate, Error, Result};
use amem_records::{Digest, GateVerdict};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The two strata a session samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stratum {
    /// The gate asked for a rewrite or rejected the write.
    Flagged,
    /// The gate passed the write (with or without informational flags).
    Passed,
}

impl Stratum {
    /// The stratum of a gate verdict; `None` for UNCHECKABLE, which is never
    /// sampled as if it had passed (it is counted apart).
    pub fn of(verdict: GateVerdict) -> Option<Stratum> {
        match verdict {
            GateVerdict::Rewrite | GateVerdict::Reject => Some(Stratum::Flagged),
            GateVerdict::Pass | GateVerdict::PassWithFlags => Some(Stratum::Passed),
            GateVerdict::Uncheckable => None,
        }
    }

    /// snake_case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Stratum::Flagged => "flagged",
            Stratum::Passed => "passed",
        }
    }
}

/// One row of the blind session file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRow {
    /// An opaque id (digest of seed and candidate), the same in the key.
    pub id: String,
    /// The source text.
    pub source: String,
    /// The memory write.
    pub memory: String,
    /// Left empty for the labeller: bad, ok, ambiguous or malformed.
    pub label: String,
    /// Left empty: stance_loss, fabricated, inferred or other (optional).
    pub mechanism: String,
}

/// One row of the hidden key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyRow {
    /// The session id.
    pub id: String,
    /// The stratum drawn from.
    pub stratum: Stratum,
    /// Probability that a candidate of this stratum was drawn (n / N).
    pub inclusion_probability: f64,
    /// The candidate's source id.
    pub source_id: String,
    /// The candidate's write id.
    pub write_id: String,
    /// The gate verdict.
    pub verdict: String,
}

/// What a draw produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    /// The blind rows, in presentation order.
    pub rows: Vec<SessionRow>,
    /// The key rows, sorted by id.
    pub key: Vec<KeyRow>,
    /// Candidates per stratum in the pool (N).
    pub pool_sizes: [u64; 2],
    /// Uncheckable candidates, never sampled.
    pub uncheckable: u64,
}

/// Draw up to `per_stratum` candidates from each stratum, seeded.
pub fn draw(candidates: &[Candidate], per_stratum: usize, seed: u64) -> Session {
    let mut strata: [Vec<&Candidate>; 2] = [Vec::new(), Vec::new()];
    let mut uncheckable = 0;
    for c in candidates {
        match Stratum::of(c.verdict) {
            Some(Stratum::Flagged) => strata[0].push(c),
            Some(Stratum::Passed) => strata[1].push(c),
            None => uncheckable += 1,
        }
    }
    let mut rng = SplitMix64::new(seed);
    let mut rows = Vec::new();
    let mut key = Vec::new();
    let pool_sizes = [strata[0].len() as u64, strata[1].len() as u64];
    for (i, members) in strata.iter_mut().enumerate() {
        let stratum = if i == 0 { Stratum::Flagged } else { Stratum::Passed };
        // Sort first so the draw depends on the seed and the pool's content,
        // not on the order the pool was built in.
        members.sort_by(|a, b| (&a.source_id, &a.write_id).cmp(&(&b.source_id, &b.write_id)));
        rng.shuffle(members);
        let n = per_stratum.min(members.len());
        let p = if members.is_empty() { 0.0 } else { n as f64 / members.len() as f64 };
        for c in &members[..n] {
            let id = Digest::of_fields([seed.to_le_bytes().as_slice(), c.source_id.as_bytes(), c.write_id.as_bytes()]).short(12);
            rows.push(SessionRow {
                id: id.clone(),
                source: c.source.clone(),
                memory: c.memory.clone(),
                label: String::new(),
                mechanism: String::new(),
            });
            key.push(KeyRow {
                id,
                stratum,
                inclusion_probability: p,
                source_id: c.source_id.clone(),
                write_id: c.write_id.clone(),
                verdict: c.verdict.as_str().to_string(),
            });
        }
    }
    // Interleave the strata: one seeded shuffle of the whole session, so a
    // row's position says nothing about its stratum.
    rng.shuffle(&mut rows);
    key.sort_by(|a, b| a.id.cmp(&b.id));
    Session { rows, key, pool_sizes, uncheckable }
}

/// Write `session.csv` and `key.csv` into `dir`.
///
/// # Errors
/// The files cannot be written.
pub fn write(session: &Session, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let sp = dir.join("session.csv");
    let mut w = csv::Writer::from_path(&sp).map_err(|e| Error::csv(&sp, e))?;
    for r in &session.rows {
        w.serialize(r).map_err(|e| Error::csv(&sp, e))?;
    }
    w.flush().map_err(|e| Error::io(&sp, e))?;
    let kp = dir.join("key.csv");
    let mut w = csv::Writer::from_path(&kp).map_err(|e| Error::csv(&kp, e))?;
    for r in &session.key {
        w.serialize(r).map_err(|e| Error::csv(&kp, e))?;
    }
    w.flush().map_err(|e| Error::io(&kp, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn pool(n_flagged: usize, n_passed: usize) -> Vec<Candidate> {
        let mut v = Vec::new();
        for i in 0..n_flagged {
            v.push(Candidate::for_test(&format!("s{i}"), "w", GateVerdict::Rewrite));
        }
        for i in 0..n_passed {
            v.push(Candidate::for_test(&format!("p{i}"), "w", GateVerdict::Pass));
        }
        v.push(Candidate::for_test("u", "w", GateVerdict::Uncheckable));
        v
    }

    #[test]
    fn draws_per_stratum_with_probabilities() {
        let s = draw(&pool(10, 40), 5, 42);
        assert_eq!(s.rows.len(), 10);
        assert_eq!(s.pool_sizes, [10, 40]);
        assert_eq!(s.uncheckable, 1);
        let f: Vec<_> = s.key.iter().filter(|k| k.stratum == Stratum::Flagged).collect();
        assert_eq!(f.len(), 5);
        assert!(f.iter().all(|k| (k.inclusion_probability - 0.5).abs() < 1e-12));
        assert!(s.key.iter().filter(|k| k.stratum == Stratum::Passed).all(|k| (k.inclusion_probability - 0.125).abs() < 1e-12));
    }

    #[test]
    fn seeded_and_interleaved() {
        let a = draw(&pool(30, 30), 10, 1);
        assert_eq!(a, draw(&pool(30, 30), 10, 1));
        assert_ne!(a.rows, draw(&pool(30, 30), 10, 2).rows);
        // Not all flagged first: the first ten rows mix both strata.
        let first: Vec<_> = a.rows[..10].iter().map(|r| a.key.iter().find(|k| k.id == r.id).unwrap().stratum).collect();
        assert!(first.contains(&Stratum::Flagged) && first.contains(&Stratum::Passed), "{first:?}");
    }

    #[test]
    fn session_file_leaks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let s = draw(&pool(6, 6), 3, 9);
        write(&s, dir.path()).unwrap();
        let text = std::fs::read_to_string(dir.path().join("session.csv")).unwrap();
        let header = text.lines().next().unwrap();
        assert_eq!(header, "id,source,memory,label,mechanism");
        for word in ["flagged", "passed", "REWRITE", "PASS", "stratum", "verdict", "inclusion"] {
            assert!(!text.contains(word), "session.csv leaks {word:?}");
        }
        // Every data row has empty label and mechanism columns.
        let mut r = csv::Reader::from_reader(text.as_bytes());
        for row in r.deserialize::<SessionRow>() {
            let row = row.unwrap();
            assert!(row.label.is_empty() && row.mechanism.is_empty());
        }
    }
}
