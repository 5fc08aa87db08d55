//! The extractor's measure: hand labels (`eval/labels.jsonl`, committed
//! before the classifier was first run on them) against
//! [`amem_extract::classify_sentence`].
//!
//! Each label line: `{"source": "<corpus path>#<locator>", "text": ...,
//! "audited": true|false, "kind": "<ClaimKind>"}`. The text is carried in the
//! line, so the measure needs no corpus.

use crate::{Error, Result};
use amem_extract::CheckWorthiness;
use amem_records::ClaimKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The committed labels, compiled in so `amem eval claims` works anywhere.
pub const BUNDLED_LABELS: &str = include_str!("../../extract/eval/labels.jsonl");

/// Name of the bundled labels in reports.
pub const BUNDLED_LABELS_NAME: &str = "crates/extract/eval/labels.jsonl";

/// One hand-labelled sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// `<corpus path>#<locator>`.
    pub source: String,
    /// The sentence.
    pub text: String,
    /// Is it an audited claim?
    pub audited: bool,
    /// Its kind.
    pub kind: ClaimKind,
}

/// Parse JSON-lines labels; `name` is used in error messages.
///
/// # Errors
/// [`Error::Label`] for a line that is not a label, or whose `audited`
/// disagrees with its kind.
pub fn parse_labels(text: &str, name: &str) -> Result<Vec<Label>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let label: Label =
            serde_json::from_str(line).map_err(|e| Error::Label { path: name.to_string(), line: i + 1, message: e.to_string() })?;
        if label.audited != label.kind.is_audited() {
            return Err(Error::Label {
                path: name.to_string(),
                line: i + 1,
                message: format!(
                    "audited is {} but kind {} is {}audited",
                    label.audited,
                    label.kind.as_str(),
                    if label.kind.is_audited() { "" } else { "not " }
                ),
            });
        }
        out.push(label);
    }
    Ok(out)
}

/// Read labels from a file.
///
/// # Errors
/// [`Error::Read`] when the file cannot be read, [`Error::Label`] as in [`parse_labels`].
pub fn load_labels(path: &Path) -> Result<Vec<Label>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
    parse_labels(&text, &path.display().to_string())
}

/// A sentence the classifier got wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Miss {
    /// Where it came from.
    pub source: String,
    /// The sentence.
    pub text: String,
    /// The hand label.
    pub expected: ClaimKind,
    /// What the classifier said.
    pub got: ClaimKind,
}

/// Scores of the classifier on a label set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClaimsScore {
    /// The extractor measured.
    pub extractor: String,
    /// Labelled sentences.
    pub n: usize,
    /// Labelled audited.
    pub labelled_audited: usize,
    /// Audited by both.
    pub true_positives: usize,
    /// Audited by the classifier only.
    pub false_positives: usize,
    /// Audited by the label only.
    pub false_negatives: usize,
    /// Precision for "audited claim".
    pub precision: f64,
    /// Recall for "audited claim".
    pub recall: f64,
    /// F1 for "audited claim".
    pub f1: f64,
    /// Share of sentences labelled audited: the precision of auditing
    /// every sentence.
    pub base_rate: f64,
    /// F1 of the trivial control, auditing every sentence ([`always_audit_f1`]).
    pub always_audit_f1: f64,
    /// Share of sentences whose kind matches exactly.
    pub kind_accuracy: f64,
    /// Share of labelled-audited sentences whose kind matches exactly.
    pub audited_kind_accuracy: f64,
    /// Confusion counts: label kind → classifier kind → count.
    pub confusion: BTreeMap<ClaimKind, BTreeMap<ClaimKind, usize>>,
    /// The misclassified sentences, in label order.
    pub misses: Vec<Miss>,
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// The classifier's output on the labels at its first run (commit d734281,
/// before any change made after seeing its errors), kept so docs/benchmarks.md can
/// show the first run next to the current one: `{"source", "kind"}` per line,
/// in label order.
pub const FIRST_RUN: &str = include_str!("../../extract/eval/first_run.jsonl");

/// One recorded prediction.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Prediction {
    source: String,
    kind: ClaimKind,
}

/// Score recorded predictions (`{"source","kind"}` lines, in label order)
/// against the labels, as if they came from `extractor`.
///
/// # Errors
/// [`Error::Label`] when a line does not parse or its source is not the
/// label's at that position.
pub fn score_recorded(labels: &[Label], predictions: &str, name: &str, extractor: &str) -> Result<ClaimsScore> {
    let mut kinds = Vec::with_capacity(labels.len());
    for (i, line) in predictions.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let p: Prediction =
            serde_json::from_str(line).map_err(|e| Error::Label { path: name.to_string(), line: i + 1, message: e.to_string() })?;
        match labels.get(i) {
            Some(l) if l.source == p.source => kinds.push(p.kind),
            _ => {
                return Err(Error::Label {
                    path: name.to_string(),
                    line: i + 1,
                    message: format!("{} is not the label at this position", p.source),
                });
            }
        }
    }
    if kinds.len() != labels.len() {
        return Err(Error::Label {
            path: name.to_string(),
            line: kinds.len(),
            message: format!("{} predictions for {} labels", kinds.len(), labels.len()),
        });
    }
    let mut it = kinds.into_iter();
    Ok(score_with(labels, extractor, |_| it.next().unwrap_or(ClaimKind::Greeting)))
}

/// The two halves of a label set: rules are tuned looking at [`Half::Tune`]
/// only, and [`Half::Check`] shows how far the figures carry to sentences
/// the tuning did not see (the generalisation gap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Half {
    /// The half the rules were tuned on.
    Tune,
    /// The half kept out of tuning.
    Check,
}

impl Half {
    /// The half a label falls in: SHA-256 of `amem-extract-split-v1|<source>`,
    /// even first byte = tune. Stable across runs, machines and label order.
    pub fn of(label: &Label) -> Half {
        use sha2::Digest;
        let d = sha2::Sha256::digest(format!("amem-extract-split-v1|{}", label.source).as_bytes());
        if d[0] % 2 == 0 { Half::Tune } else { Half::Check }
    }

    /// Name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Half::Tune => "tune",
            Half::Check => "check",
        }
    }
}

/// The labels of one half, in label order.
pub fn half(labels: &[Label], h: Half) -> Vec<Label> {
    labels.iter().filter(|l| Half::of(l) == h).cloned().collect()
}

/// The ClaimBuster dev half (crowd labels of check-worthiness on debate
/// sentences, `../shared/eval/claimbuster/README.md`), relative to the
/// repository root; read in place, never bundled.
pub const CLAIMBUSTER_DEV: &str = "../shared/eval/claimbuster/labels.jsonl";

/// The shuffled control of [`score`]: the classifier's audited decisions,
/// each moved to another sentence (rotated by half the set), scored against
/// the labels. Its precision sits at the base rate; the gap to [`score`] is
/// what the rules know about the sentences.
pub fn score_shuffled(labels: &[Label]) -> ClaimsScore {
    score_shuffled_with(labels, None)
}

/// [`score_shuffled`] of the extractor with the check-worthiness model
/// beside the rules (`None`: the rules alone).
pub fn score_shuffled_with(labels: &[Label], model: Option<&CheckWorthiness>) -> ClaimsScore {
    let kinds: Vec<ClaimKind> = labels.iter().map(|l| amem_extract::classify_sentence_with(&l.text, model)).collect();
    let shift = kinds.len() / 2;
    let mut i = 0;
    score_with(labels, extractor_name(model), |_| {
        let k = kinds.get((i + shift) % kinds.len().max(1)).copied().unwrap_or(ClaimKind::Greeting);
        i += 1;
        k
    })
}

/// F1 of the trivial answer "audit every sentence": precision is the base
/// rate `b`, recall 1, so F1 = 2b / (1 + b).
pub fn always_audit_f1(labelled_audited: usize, n: usize) -> f64 {
    let b = ratio(labelled_audited, n);
    if b == 0.0 { 0.0 } else { 2.0 * b / (1.0 + b) }
}

/// One table of the audited-claim measure on each label set, whole and per
/// [`Half`], with its two controls (the shuffled control, and the trivial
/// answer "audit every sentence", whose precision is the base rate) and the
/// margin over the stronger of them: the docs/benchmarks.md `extract:halves` block and
/// `amem eval claims` print it.
pub fn halves_markdown(sets: &[(&str, &[Label])]) -> String {
    let mut out = format!(
        "| `{}` on | sentences | base rate | audited | precision | recall | F1 | F1, shuffled control | F1, always audit | margin over the stronger control |\n|---|---|---|---|---|---|---|---|---|---|\n",
        amem_extract::EXTRACTOR
    );
    for (name, labels) in sets {
        let parts = [("tune half", half(labels, Half::Tune)), ("check half", half(labels, Half::Check)), ("whole", labels.to_vec())];
        for (part, ls) in parts {
            let s = score(&ls);
            let c = score_shuffled(&ls);
            let always = always_audit_f1(s.labelled_audited, s.n);
            out.push_str(&format!(
                "| {name}, {part} | {} | {:.3} | {:.3} | {:+.3} |\n",
                s.measure_cells(),
                c.f1,
                always,
                s.f1 - c.f1.max(always)
            ));
        }
    }
    out
}

/// Score the classifier on labels.
pub fn score(labels: &[Label]) -> ClaimsScore {
    score_with(labels, amem_extract::EXTRACTOR, amem_extract::classify_sentence)
}

/// Score the extractor with the check-worthiness model beside the rules
/// (`None`: the rules alone, [`score`]).
pub fn score_with_model(labels: &[Label], model: Option<&CheckWorthiness>) -> ClaimsScore {
    score_with(labels, extractor_name(model), |t| amem_extract::classify_sentence_with(t, model))
}

fn extractor_name(model: Option<&CheckWorthiness>) -> &'static str {
    if model.is_some() { amem_extract::EXTRACTOR_WITH_MODEL } else { amem_extract::EXTRACTOR }
}

/// The part of the ClaimBuster dev half a sentence fell in when the
/// check-worthiness model was trained (`models/checkworthy/common.py`
/// `part_of`, the same hash): only [`ModelPart::Check`] was never trained on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelPart {
    /// Trained on.
    Train,
    /// Picked the threshold and the epoch.
    Calib,
    /// Never seen in training: the model's figures.
    Check,
}

impl ModelPart {
    /// SHA-256 of `amem-checkworthy|<source>`: first byte divisible by 5 =
    /// check; else second byte divisible by 10 = calib; else train.
    pub fn of(label: &Label) -> ModelPart {
        use sha2::Digest;
        let d = sha2::Sha256::digest(format!("amem-checkworthy|{}", label.source).as_bytes());
        if d[0] % 5 == 0 {
            ModelPart::Check
        } else if d[1] % 10 == 0 {
            ModelPart::Calib
        } else {
            ModelPart::Train
        }
    }

    /// Name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelPart::Train => "train part",
            ModelPart::Calib => "calibration part",
            ModelPart::Check => "check part (never trained on)",
        }
    }
}

/// The audited-claim measure of the rules alone and of the rules with the
/// check-worthiness model, on each part of a label set as the model's
/// training split it ([`ModelPart`]), with the labels-permuted control (the
/// decisions rotated by half the set) and the margin over it: the
/// docs/benchmarks.md `extract:model` block and `amem eval claims` print it.
pub fn model_parts_markdown(name: &str, labels: &[Label], model: &CheckWorthiness) -> String {
    let mut out = format!(
        "checkworthiness weights sha256 `{}`, threshold {:.2}, demotion below {:.2}\n\n| extractor | {name} | sentences | base rate | audited | precision | recall | F1 | F1, labels permuted | margin |\n|---|---|---|---|---|---|---|---|---|---|\n",
        model.weights_sha256(),
        model.threshold(),
        model.demote_below()
    );
    for part in [ModelPart::Check, ModelPart::Calib, ModelPart::Train] {
        let ls: Vec<Label> = labels.iter().filter(|l| ModelPart::of(l) == part).cloned().collect();
        for m in [None, Some(model)] {
            let s = score_with_model(&ls, m);
            let c = score_shuffled_with(&ls, m);
            out.push_str(&format!(
                "| `{}` | {} | {} | {:.3} | {:+.3} |\n",
                s.extractor,
                part.as_str(),
                s.measure_cells(),
                c.f1,
                s.f1 - c.f1
            ));
        }
    }
    out
}

fn score_with(labels: &[Label], extractor: &str, mut classify: impl FnMut(&str) -> ClaimKind) -> ClaimsScore {
    let (mut tp, mut fp, mut fnn, mut kind_ok, mut aud_kind_ok, mut aud) = (0, 0, 0, 0, 0, 0);
    let mut confusion: BTreeMap<ClaimKind, BTreeMap<ClaimKind, usize>> = BTreeMap::new();
    let mut misses = Vec::new();
    for l in labels {
        let got = classify(&l.text);
        *confusion.entry(l.kind).or_default().entry(got).or_default() += 1;
        match (l.audited, got.is_audited()) {
            (true, true) => tp += 1,
            (false, true) => fp += 1,
            (true, false) => fnn += 1,
            (false, false) => {}
        }
        if l.audited {
            aud += 1;
        }
        if got == l.kind {
            kind_ok += 1;
            if l.audited {
                aud_kind_ok += 1;
            }
        } else {
            misses.push(Miss { source: l.source.clone(), text: l.text.clone(), expected: l.kind, got });
        }
    }
    let precision = ratio(tp, tp + fp);
    let recall = ratio(tp, tp + fnn);
    let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
    ClaimsScore {
        extractor: extractor.to_string(),
        n: labels.len(),
        labelled_audited: aud,
        true_positives: tp,
        false_positives: fp,
        false_negatives: fnn,
        precision,
        recall,
        f1,
        base_rate: ratio(aud, labels.len()),
        always_audit_f1: always_audit_f1(aud, labels.len()),
        kind_accuracy: ratio(kind_ok, labels.len()),
        audited_kind_accuracy: ratio(aud_kind_ok, aud),
        confusion,
        misses,
    }
}

impl ClaimsScore {
    /// The measure's cells of a table row: sentences, base rate, share audited, precision,
    /// recall, F1 (the halves and the model tables print them alike).
    fn measure_cells(&self) -> String {
        format!(
            "{} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3}",
            self.n,
            ratio(self.labelled_audited, self.n),
            ratio(self.true_positives + self.false_positives, self.n),
            self.precision,
            self.recall,
            self.f1
        )
    }

    /// The figures as docs/benchmarks.md prints them (a markdown table); docs/benchmarks.md
    /// test compares its `extract` figures block with this text.
    pub fn figures_markdown(&self, labels_name: &str) -> String {
        format!(
            "| measure (`{ex}` on {n} hand-labelled sentences, `{labels_name}`) | value |\n\
             |---|---|\n\
             | labelled audited claims | {aud} of {n} |\n\
             | precision, audited claim | {p:.3} ({tp} of {pp}) |\n\
             | recall, audited claim | {r:.3} ({tp} of {aud}) |\n\
             | F1, audited claim | {f1:.3} |\n\
             | base rate (precision if every sentence were audited) | {base:.3} |\n\
             | kind accuracy, all sentences | {ka:.3} |\n\
             | kind accuracy, labelled-audited sentences | {aka:.3} |\n",
            ex = self.extractor,
            n = self.n,
            aud = self.labelled_audited,
            p = self.precision,
            tp = self.true_positives,
            pp = self.true_positives + self.false_positives,
            r = self.recall,
            f1 = self.f1,
            base = ratio(self.labelled_audited, self.n),
            ka = self.kind_accuracy,
            aka = self.audited_kind_accuracy,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_labels_parse_and_are_enough() {
        let labels = parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME).unwrap();
        assert!(labels.len() >= 300, "{} labels", labels.len());
        assert!(labels.iter().all(|l| l.source.starts_with("../shared/corpora/")));
    }

    #[test]
    fn inconsistent_label_is_an_error_with_line() {
        let bad = "{\"source\":\"x#1\",\"text\":\"Hi\",\"audited\":true,\"kind\":\"greeting\"}\n";
        let e = parse_labels(bad, "t.jsonl").unwrap_err();
        assert!(e.to_string().starts_with("t.jsonl:1:"), "{e}");
        assert!(parse_labels("not json\n", "t.jsonl").is_err());
    }

    #[test]
    fn first_run_is_recorded_for_every_label() {
        let labels = parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME).unwrap();
        let s = score_recorded(&labels, FIRST_RUN, "first_run.jsonl", "rules@1 (d734281)").unwrap();
        assert_eq!(s.n, labels.len());
        assert!(score_recorded(&labels, "", "x", "x").is_err());
    }

    #[test]
    fn halves_are_stable_and_both_used() {
        let labels = parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME).unwrap();
        let (a, b) = (half(&labels, Half::Tune), half(&labels, Half::Check));
        assert_eq!(a.len() + b.len(), labels.len());
        assert!(a.len() > labels.len() / 3 && b.len() > labels.len() / 3, "{} / {}", a.len(), b.len());
        // the half depends on the source only, not on the order of the set
        let mut rev = labels.clone();
        rev.reverse();
        assert_eq!(half(&rev, Half::Tune).len(), a.len());
        let table = halves_markdown(&[("own", &labels)]);
        assert_eq!(table.lines().count(), 2 + 3, "{table}");
    }

    #[test]
    fn shuffled_control_falls_to_the_base_rate() {
        let labels = parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME).unwrap();
        let (s, c) = (score(&labels), score_shuffled(&labels));
        assert_eq!(s.true_positives + s.false_positives, c.true_positives + c.false_positives);
        assert!(c.f1 + 0.2 < s.f1, "control {} vs {}", c.f1, s.f1);
    }

    #[test]
    fn always_audit_f1_is_the_base_rate_answer() {
        // base rate 0.25: precision 0.25, recall 1, F1 = 0.5 / 1.25 = 0.4
        assert!((always_audit_f1(25, 100) - 0.4).abs() < 1e-9);
        assert_eq!(always_audit_f1(0, 10), 0.0);
        assert_eq!(always_audit_f1(0, 0), 0.0);
    }

    #[test]
    fn score_counts() {
        let labels = parse_labels(
            concat!(
                "{\"source\":\"a#1\",\"text\":\"Prices fell because storage was full.\",\"audited\":true,\"kind\":\"causal\"}\n",
                "{\"source\":\"a#2\",\"text\":\"Please send me the file.\",\"audited\":false,\"kind\":\"logistics\"}\n",
                "{\"source\":\"a#3\",\"text\":\"Thanks,\",\"audited\":true,\"kind\":\"fact\"}\n",
            ),
            "t",
        )
        .unwrap();
        let s = score(&labels);
        assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (1, 0, 1));
        assert!((s.precision - 1.0).abs() < 1e-9);
        assert!((s.recall - 0.5).abs() < 1e-9);
        assert_eq!(s.misses.len(), 1);
    }
}
