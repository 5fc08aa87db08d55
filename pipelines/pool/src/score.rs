//! Scoring a labelled session against its hidden key.
//!
//! Labels are `bad`, `ok`, `ambiguous` and `malformed`. Precision is read on
//! the flagged stratum alone (bad among bad+ok there, Wilson interval);
//! recall is estimated over the whole pool by inverse-probability weighting
//! with a stratified bootstrap interval. `ambiguous` and `malformed` are
//! reported apart and excluded from both figures.

use crate::session::{KeyRow, SessionRow, Stratum};
use crate::stats::{self, Ratio, WeightedUnit};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// A label a person gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    /// The write lost or distorted what the source said.
    Bad,
    /// The write is faithful.
    Ok,
    /// The labeller could not decide: first-class, reported apart.
    Ambiguous,
    /// The pair itself is broken (garbled source or write).
    Malformed,
}

impl Label {
    /// Parse a label cell (case-insensitive, trimmed).
    pub fn parse(s: &str) -> Option<Label> {
        match s.trim().to_ascii_lowercase().as_str() {
            "bad" => Some(Label::Bad),
            "ok" => Some(Label::Ok),
            "ambiguous" => Some(Label::Ambiguous),
            "malformed" => Some(Label::Malformed),
            _ => None,
        }
    }
}

/// The mechanisms a labeller may name for a bad write.
pub const MECHANISMS: [&str; 4] = ["stance_loss", "fabricated", "inferred", "other"];

/// One labelled row joined with its key.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    /// Session id.
    pub id: String,
    /// The label.
    pub label: Label,
    /// Mechanism, when given.
    pub mechanism: Option<String>,
    /// Its key row.
    pub key: KeyRow,
}

/// Agreement between two labelling passes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    /// Items labelled in both passes.
    pub items: u64,
    /// Cohen's kappa over the four labels.
    pub kappa_labels: Option<f64>,
    /// Cohen's kappa over bad vs not bad (would each pass flag it).
    pub kappa_flag: Option<f64>,
    /// First pass bad, second pass not bad.
    pub bad_then_not: u64,
    /// First pass not bad, second pass bad.
    pub not_then_bad: u64,
}

/// The scored figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scores {
    /// Labelled rows used.
    pub labelled: u64,
    /// Rows left unlabelled.
    pub unlabelled: u64,
    /// Precision of the flagged stratum: bad / (bad + ok) there.
    pub precision: Ratio,
    /// Recall by inverse-probability weighting; `None` when no sampled row is bad
    /// or too few bad rows to give a ratio.
    pub recall: Option<f64>,
    /// Bootstrap 95% interval of the recall.
    pub recall_interval: Option<(f64, f64)>,
    /// Bad rows that carried the recall estimate.
    pub recall_bad_rows: u64,
    /// Counts of each label by stratum.
    pub counts: BTreeMap<String, BTreeMap<String, u64>>,
    /// Mechanism counts among bad rows, by stratum.
    pub mechanisms: BTreeMap<String, BTreeMap<String, u64>>,
    /// Second-pass agreement, when given.
    pub agreement: Option<Agreement>,
}

/// Read a labelled session and join it with the key.
///
/// # Errors
/// Unreadable files, a row whose id is not in the key, an unknown label or
/// mechanism (each naming the file and line).
pub fn read_labelled(session: &Path, key: &[KeyRow]) -> Result<(Vec<Labelled>, u64)> {
    let by_id: HashMap<&str, &KeyRow> = key.iter().map(|k| (k.id.as_str(), k)).collect();
    let mut r = csv::Reader::from_path(session).map_err(|e| Error::csv(session, e))?;
    let mut out = Vec::new();
    let mut unlabelled = 0;
    for (i, row) in r.deserialize::<SessionRow>().enumerate() {
        let line = i + 2;
        let row = row.map_err(|e| Error::csv(session, e))?;
        let k = by_id.get(row.id.as_str()).ok_or_else(|| Error::Input {
            path: session.to_path_buf(),
            line,
            reason: format!("id {:?} is not in the key", row.id),
        })?;
        if row.label.trim().is_empty() {
            unlabelled += 1;
            continue;
        }
        let label = Label::parse(&row.label).ok_or_else(|| Error::Input {
            path: session.to_path_buf(),
            line,
            reason: format!("label {:?} is not one of bad, ok, ambiguous, malformed", row.label),
        })?;
        let mechanism = match row.mechanism.trim() {
            "" => None,
            m if MECHANISMS.contains(&m) => Some(m.to_string()),
            m => {
                return Err(Error::Input {
                    path: session.to_path_buf(),
                    line,
                    reason: format!("mechanism {m:?} is not one of {}", MECHANISMS.join(", ")),
                });
            }
        };
        out.push(Labelled { id: row.id, label, mechanism, key: (*k).clone() });
    }
    Ok((out, unlabelled))
}

/// Read a key file.
///
/// # Errors
/// Unreadable or malformed file.
pub fn read_key(path: &Path) -> Result<Vec<KeyRow>> {
    let mut r = csv::Reader::from_path(path).map_err(|e| Error::csv(path, e))?;
    r.deserialize::<KeyRow>().map(|row| row.map_err(|e| Error::csv(path, e))).collect()
}

/// Score labelled rows (and a second pass, if any). `seed` drives the bootstrap.
pub fn score(rows: &[Labelled], unlabelled: u64, second: Option<&[Labelled]>, seed: u64) -> Scores {
    let mut counts: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let mut mechanisms: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let (mut bad_f, mut ok_f) = (0, 0);
    let mut units = Vec::new();
    for r in rows {
        let label = serde_json::to_value(r.label).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        *counts.entry(r.key.stratum.as_str().to_string()).or_default().entry(label).or_default() += 1;
        if r.label == Label::Bad {
            let m = r.mechanism.clone().unwrap_or_else(|| "unspecified".into());
            *mechanisms.entry(r.key.stratum.as_str().to_string()).or_default().entry(m).or_default() += 1;
        }
        match (r.key.stratum, r.label) {
            (Stratum::Flagged, Label::Bad) => bad_f += 1,
            (Stratum::Flagged, Label::Ok) => ok_f += 1,
            _ => {}
        }
        if matches!(r.label, Label::Bad | Label::Ok) {
            units.push(WeightedUnit {
                stratum: if r.key.stratum == Stratum::Flagged { 0 } else { 1 },
                inclusion_probability: r.key.inclusion_probability,
                bad: r.label == Label::Bad,
                flagged: r.key.stratum == Stratum::Flagged,
            });
        }
    }
    let recall_bad_rows = units.iter().filter(|u| u.bad).count() as u64;
    let enough = recall_bad_rows >= stats::MIN_DENOMINATOR;
    let recall = if enough { stats::ipw_recall(&units) } else { None };
    let recall_interval = if enough { stats::ipw_recall_bootstrap(&units, 2000, seed, 0.95) } else { None };
    let agreement = second.map(|s| agree(rows, s));
    Scores {
        labelled: rows.len() as u64,
        unlabelled,
        precision: Ratio::wilson(bad_f, bad_f + ok_f),
        recall,
        recall_interval,
        recall_bad_rows,
        counts,
        mechanisms,
        agreement,
    }
}

fn agree(first: &[Labelled], second: &[Labelled]) -> Agreement {
    let by_id: HashMap<&str, Label> = second.iter().map(|r| (r.id.as_str(), r.label)).collect();
    let pairs: Vec<(Label, Label)> = first.iter().filter_map(|r| by_id.get(r.id.as_str()).map(|&b| (r.label, b))).collect();
    let flag: Vec<(bool, bool)> = pairs.iter().map(|(a, b)| (*a == Label::Bad, *b == Label::Bad)).collect();
    Agreement {
        items: pairs.len() as u64,
        kappa_labels: stats::cohen_kappa(&pairs),
        kappa_flag: stats::cohen_kappa(&flag),
        bad_then_not: flag.iter().filter(|(a, b)| *a && !*b).count() as u64,
        not_then_bad: flag.iter().filter(|(a, b)| !*a && *b).count() as u64,
    }
}

/// Mechanism counts among bad rows of a labelled session (for `compare`).
pub fn mechanism_counts(rows: &[Labelled]) -> [u64; 4] {
    let mut c = [0u64; 4];
    for r in rows.iter().filter(|r| r.label == Label::Bad) {
        if let Some(i) = r.mechanism.as_deref().and_then(|m| MECHANISMS.iter().position(|x| *x == m)) {
            c[i] += 1;
        }
    }
    c
}

/// Render scores for people. Ratios with small denominators come out as counts.
pub fn render(s: &Scores) -> String {
    let mut out = String::new();
    out.push_str(&format!("labelled rows: {} ({} left unlabelled)\n", s.labelled, s.unlabelled));
    out.push_str(&format!("precision of the flagged stratum: {}\n", s.precision.describe()));
    match (s.recall, s.recall_interval) {
        (Some(r), Some((lo, hi))) => {
            out.push_str(&format!("recall (inverse-probability weighted): {r:.3} [{lo:.3}, {hi:.3}] from {} bad rows\n", s.recall_bad_rows))
        }
        (Some(r), None) => out.push_str(&format!("recall (inverse-probability weighted): {r:.3} from {} bad rows\n", s.recall_bad_rows)),
        _ => out.push_str(&format!(
            "recall: {} bad rows (fewer than {} bad rows: no ratio given)\n",
            s.recall_bad_rows,
            stats::MIN_DENOMINATOR
        )),
    }
    out.push_str("labels by stratum (ambiguous and malformed are excluded from both figures):\n");
    for (stratum, labels) in &s.counts {
        let parts: Vec<String> = labels.iter().map(|(l, n)| format!("{l} {n}")).collect();
        out.push_str(&format!("  {stratum}: {}\n", parts.join(", ")));
    }
    if s.mechanisms.values().any(|m| m.keys().any(|k| k != "unspecified")) {
        out.push_str("mechanisms among bad rows:\n");
        for (stratum, m) in &s.mechanisms {
            let parts: Vec<String> = m.iter().map(|(l, n)| format!("{l} {n}")).collect();
            out.push_str(&format!("  {stratum}: {}\n", parts.join(", ")));
        }
    }
    if let Some(a) = &s.agreement {
        let k = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "undefined".into());
        out.push_str(&format!(
            "second pass: {} items; kappa over four labels {}; kappa over bad/not bad {}; disagreements: {} bad→not bad, {} not bad→bad\n",
            a.items,
            k(a.kappa_labels),
            k(a.kappa_flag),
            a.bad_then_not,
            a.not_then_bad
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: &str, stratum: Stratum, p: f64) -> KeyRow {
        KeyRow { id: id.into(), stratum, inclusion_probability: p, source_id: id.into(), write_id: "w".into(), verdict: "X".into() }
    }

    fn row(id: &str, stratum: Stratum, p: f64, label: Label) -> Labelled {
        Labelled { id: id.into(), label, mechanism: None, key: key(id, stratum, p) }
    }

    /// The IPW hand computation of stats::tests, through the scorer: flagged
    /// 6 bad + 4 ok (π = 0.1), passed 2 bad + 8 ok (π = 1/90), plus one
    /// ambiguous and one malformed that must not count.
    #[test]
    fn scores_hand_computed_case() {
        let mut rows = Vec::new();
        for i in 0..10 {
            rows.push(row(&format!("f{i}"), Stratum::Flagged, 0.1, if i < 6 { Label::Bad } else { Label::Ok }));
            rows.push(row(&format!("p{i}"), Stratum::Passed, 1.0 / 90.0, if i < 2 { Label::Bad } else { Label::Ok }));
        }
        rows.push(row("a", Stratum::Flagged, 0.1, Label::Ambiguous));
        rows.push(row("m", Stratum::Passed, 1.0 / 90.0, Label::Malformed));
        let s = score(&rows, 3, None, 1);
        assert_eq!((s.precision.numerator, s.precision.denominator), (6, 10));
        assert!((s.precision.value.unwrap() - 0.6).abs() < 1e-12);
        assert!((s.recall.unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(s.recall_bad_rows, 8);
        assert_eq!(s.counts["flagged"]["ambiguous"], 1);
        assert_eq!(s.counts["passed"]["malformed"], 1);
        assert_eq!(s.unlabelled, 3);
    }

    #[test]
    fn too_few_bad_rows_gives_counts() {
        let rows = vec![row("a", Stratum::Flagged, 0.5, Label::Bad), row("b", Stratum::Passed, 0.5, Label::Ok)];
        let s = score(&rows, 0, None, 1);
        assert_eq!(s.recall, None);
        assert!(render(&s).contains("no ratio given"));
    }

    #[test]
    fn agreement_direction() {
        let a = vec![
            row("1", Stratum::Flagged, 1.0, Label::Bad),
            row("2", Stratum::Flagged, 1.0, Label::Ok),
            row("3", Stratum::Passed, 1.0, Label::Bad),
        ];
        let b = vec![
            row("1", Stratum::Flagged, 1.0, Label::Bad),
            row("2", Stratum::Flagged, 1.0, Label::Bad),
            row("3", Stratum::Passed, 1.0, Label::Ok),
        ];
        let s = score(&a, 0, Some(&b), 1);
        let ag = s.agreement.unwrap();
        assert_eq!(ag.items, 3);
        assert_eq!((ag.bad_then_not, ag.not_then_bad), (1, 1));
    }

    #[test]
    fn labels_parse() {
        assert_eq!(Label::parse(" Bad "), Some(Label::Bad));
        assert_eq!(Label::parse("maybe"), None);
    }
}
