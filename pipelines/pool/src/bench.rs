//! `amem bench`: a memory system's writes scored as three figures that are
//! only ever shown together, so none can be read alone: the flag rate among
//! checkable writes, the share of writes the gate could not check, and the
//! share of sources the system wrote nothing for (abstention).

use crate::stats::Ratio;
use crate::{Error, Result};
use amem_records::GateVerdict;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::Path;

/// The three figures, tagged with the stimulus set they were measured on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchScore {
    /// The stimulus set's id, as given.
    pub stimulus_set: String,
    /// Sources in the set.
    pub sources: u64,
    /// Writes scored.
    pub writes: u64,
    /// Writes flagged (REWRITE or REJECT) among checkable writes.
    pub flag_rate: Ratio,
    /// Writes the gate could not check (UNCHECKABLE) among all writes.
    pub uncheckable_share: Ratio,
    /// Sources with no write among all sources.
    pub abstention_share: Ratio,
    /// Writes by gate verdict.
    pub by_verdict: BTreeMap<String, u64>,
    /// Writes naming a source id not in the sources file (not scored).
    pub writes_unmatched: u64,
    /// The model roles the gate asked (witness, added content), summed over the writes;
    /// empty for the deterministic gate alone.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gate_models: Vec<amem_gate::ModelUse>,
}

#[derive(Deserialize)]
struct SourceLine {
    #[serde(alias = "id")]
    source_id: String,
    #[serde(alias = "text")]
    source: String,
}

#[derive(Deserialize)]
struct WriteLine {
    source_id: String,
    memory: String,
}

fn lines(path: &Path) -> Result<impl Iterator<Item = (usize, std::io::Result<String>)>> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(std::io::BufReader::new(f).lines().enumerate())
}

/// Score `writes` against `sources` (JSONL: `{"source_id","source"}`, or the
/// `id`/`text` lines `amem import` prints), the gate asking `models` as second readers.
///
/// # Errors
/// Unreadable files or malformed lines (naming file and line).
pub fn score(sources: &Path, writes: &Path, stimulus_set: &str, models: amem_gate::GateModels<'_>) -> Result<BenchScore> {
    let mut src: HashMap<String, String> = HashMap::new();
    for (i, line) in lines(sources)? {
        let line = line.map_err(|e| Error::io(sources, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let s: SourceLine =
            serde_json::from_str(&line).map_err(|e| Error::Input { path: sources.to_path_buf(), line: i + 1, reason: e.to_string() })?;
        src.insert(s.source_id, s.source);
    }
    let mut written: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut by_verdict: BTreeMap<String, u64> = BTreeMap::new();
    let (mut n, mut flagged, mut unchecked, mut unmatched) = (0u64, 0u64, 0u64, 0u64);
    let mut gate_models = Vec::new();
    for (i, line) in lines(writes)? {
        let line = line.map_err(|e| Error::io(writes, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let w: WriteLine =
            serde_json::from_str(&line).map_err(|e| Error::Input { path: writes.to_path_buf(), line: i + 1, reason: e.to_string() })?;
        let Some(source) = src.get(&w.source_id) else {
            unmatched += 1;
            continue;
        };
        written.insert(w.source_id.clone());
        let report = amem_gate::check_with(source, &w.memory, models);
        amem_gate::ModelUse::add_all(&mut gate_models, &report.models);
        let verdict = report.verdict;
        n += 1;
        *by_verdict.entry(verdict.as_str().to_string()).or_default() += 1;
        match verdict {
            GateVerdict::Rewrite | GateVerdict::Reject => flagged += 1,
            GateVerdict::Uncheckable => unchecked += 1,
            GateVerdict::Pass | GateVerdict::PassWithFlags => {}
        }
    }
    let total_sources = src.len() as u64;
    Ok(BenchScore {
        stimulus_set: stimulus_set.to_string(),
        sources: total_sources,
        writes: n,
        flag_rate: Ratio::wilson(flagged, n - unchecked),
        uncheckable_share: Ratio::wilson(unchecked, n),
        abstention_share: Ratio::wilson(total_sources - written.len() as u64, total_sources),
        by_verdict,
        writes_unmatched: unmatched,
        gate_models,
    })
}

/// The three figures, together, for people.
pub fn render(s: &BenchScore) -> String {
    let mut text = format!(
        "stimulus set {}: {} sources, {} writes\n  flag rate among checkable writes: {}\n  uncheckable share of writes:      {}\n  abstention share of sources:      {}\n",
        s.stimulus_set,
        s.sources,
        s.writes,
        s.flag_rate.describe(),
        s.uncheckable_share.describe(),
        s.abstention_share.describe()
    );
    for m in &s.gate_models {
        text.push_str(&format!("  {}\n", m.describe()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_figures_from_a_small_set() {
        let dir = tempfile::tempdir().unwrap();
        let s = dir.path().join("s.jsonl");
        let w = dir.path().join("w.jsonl");
        let mut src = String::new();
        for i in 0..6 {
            src.push_str(&format!("{{\"source_id\":\"s{i}\",\"source\":\"Reportedly, the plant in Ohio shut down in May {i}.\"}}\n"));
        }
        std::fs::write(&s, src).unwrap();
        let mut wr = String::new();
        // s0..s2 faithful; s3 drops the attribution; s4 unrelated (uncheckable); s5 abstains.
        for i in 0..3 {
            wr.push_str(&format!(
                "{{\"source_id\":\"s{i}\",\"write_id\":\"w{i}\",\"memory\":\"Reportedly, the plant in Ohio shut down in May {i}.\"}}\n"
            ));
        }
        wr.push_str("{\"source_id\":\"s3\",\"write_id\":\"w3\",\"memory\":\"The plant in Ohio shut down in May 3.\"}\n");
        wr.push_str("{\"source_id\":\"s4\",\"write_id\":\"w4\",\"memory\":\"Bananas are yellow.\"}\n");
        wr.push_str("{\"source_id\":\"zz\",\"write_id\":\"w9\",\"memory\":\"x\"}\n");
        std::fs::write(&w, wr).unwrap();
        let b = score(&s, &w, "set-1", amem_gate::GateModels::default()).unwrap();
        assert_eq!((b.sources, b.writes, b.writes_unmatched), (6, 5, 1));
        assert_eq!((b.flag_rate.numerator, b.flag_rate.denominator), (1, 4));
        assert_eq!(b.flag_rate.value, None, "4 checkable writes: counts, not a ratio");
        assert_eq!((b.uncheckable_share.numerator, b.uncheckable_share.denominator), (1, 5));
        assert_eq!((b.abstention_share.numerator, b.abstention_share.denominator), (1, 6));
        let text = render(&b);
        assert!(text.contains("flag rate") && text.contains("uncheckable") && text.contains("abstention"));
    }
}
