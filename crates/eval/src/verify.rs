//! Scoring the verifier on independently annotated claim–evidence sets
//! (`../shared/eval`): accuracy, macro-F1, balanced accuracy, per-class
//! precision and recall, and the confusion table, per set. Used by
//! `amem eval verify` and by the test that keeps the benchmarks page figures honest.
//!
//! The verifier's status is scored by its report group (supported /
//! contradicted / unverified), the three classes the sets are labelled in.
//!
//! Sets read from a corpus directory:
//! - `fever_symmetric`, `healthver`, `covid_fact`, `wice`: `pairs.jsonl`,
//!   `{"id","claim","evidence","label"}`;
//! - `climate_fever`: assembled from `claims.jsonl` and `corpus.jsonl`, one
//!   pair per (claim, candidate evidence sentence) with the annotators'
//!   evidence-level label (SUPPORTED / CONTRADICTED / NO_EVIDENCE), each
//!   sentence carrying its article's title as the evidence title (as a
//!   captured wiki page would);
//! - `climate_fever_claims`: the same claims against all five candidate
//!   sentences together, with the claim-level label (DISPUTED claims left out,
//!   as they are labelled both ways).

use amem_records::{Evidence, Group, Status};
use amem_verify::{Rarity, Verifier, text_evidence};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a corpus could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not the JSON record the set's README describes.
    #[error("{path}:{line}: {reason}")]
    Record {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// None of the known sets is in the directory.
    #[error("no claim-evidence set found in {0}: expected fever_symmetric/, healthver/, covid_fact/, wice/ or climate_fever/")]
    Empty(PathBuf),
}

/// Result alias for this module.
pub type Result<T, E = EvalError> = std::result::Result<T, E>;

/// One labelled claim–evidence pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The set's own id.
    pub id: String,
    /// The claim text.
    pub claim: String,
    /// Evidence items: text and, where the set gives it, the title of the document it is from.
    pub evidence: Vec<EvidenceText>,
    /// The gold group.
    pub label: Group,
    /// The document (or claim) the pair belongs to: pairs of one document share a claim or its
    /// evidence, so the shuffled control never gives a claim the evidence of its own document.
    pub doc: String,
}

/// One evidence item of a pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvidenceText {
    /// The text.
    pub text: String,
    /// The title of the document it is from (Climate-FEVER's Wikipedia article), if known.
    pub title: Option<String>,
}

impl EvidenceText {
    /// Text without a title.
    pub fn untitled(text: String) -> Self {
        EvidenceText { text, title: None }
    }
}

/// The three groups in table order.
pub const GROUPS: [Group; 3] = [Group::Supported, Group::Contradicted, Group::Unverified];

fn group_index(g: Group) -> usize {
    match g {
        Group::Supported => 0,
        Group::Contradicted => 1,
        Group::Unverified => 2,
    }
}

/// Scores of the verifier on one set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SetScore {
    /// Set name.
    pub name: String,
    /// `confusion[gold][predicted]`, groups in [`GROUPS`] order.
    pub confusion: [[usize; 3]; 3],
    /// How often each status was given.
    pub statuses: BTreeMap<String, usize>,
}

impl SetScore {
    /// Number of pairs.
    pub fn pairs(&self) -> usize {
        self.confusion.iter().flatten().sum()
    }

    fn gold(&self, g: usize) -> usize {
        self.confusion[g].iter().sum()
    }

    fn predicted(&self, g: usize) -> usize {
        self.confusion.iter().map(|row| row[g]).sum()
    }

    /// Classes present in the gold labels.
    pub fn gold_classes(&self) -> Vec<Group> {
        GROUPS.into_iter().filter(|g| self.gold(group_index(*g)) > 0).collect()
    }

    /// Share of pairs whose group matches the gold label.
    pub fn accuracy(&self) -> f64 {
        ratio((0..3).map(|g| self.confusion[g][g]).sum(), self.pairs())
    }

    /// Precision of one group (0 when never predicted).
    pub fn precision(&self, g: Group) -> f64 {
        let i = group_index(g);
        ratio(self.confusion[i][i], self.predicted(i))
    }

    /// Recall of one group (0 when absent from the gold labels).
    pub fn recall(&self, g: Group) -> f64 {
        let i = group_index(g);
        ratio(self.confusion[i][i], self.gold(i))
    }

    /// F1 of one group.
    pub fn f1(&self, g: Group) -> f64 {
        let (p, r) = (self.precision(g), self.recall(g));
        if p + r == 0.0 { 0.0 } else { 2.0 * p * r / (p + r) }
    }

    /// Mean F1 over the classes present in the gold labels.
    pub fn macro_f1(&self) -> f64 {
        let classes = self.gold_classes();
        if classes.is_empty() {
            return 0.0;
        }
        classes.iter().map(|g| self.f1(*g)).sum::<f64>() / classes.len() as f64
    }

    /// Mean recall over the classes present in the gold labels.
    pub fn balanced_accuracy(&self) -> f64 {
        let classes = self.gold_classes();
        if classes.is_empty() {
            return 0.0;
        }
        classes.iter().map(|g| self.recall(*g)).sum::<f64>() / classes.len() as f64
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// The trivial answers a verifier must beat: always `unverified`, and always the set's
/// majority gold group. Their macro-F1 over the gold classes, the better of the two.
impl SetScore {
    /// Macro-F1 of the better trivial answer (always unverified, or always the majority class).
    pub fn floor(&self) -> f64 {
        let constant = |g: usize| {
            let mut confusion = [[0usize; 3]; 3];
            for (gold, row) in confusion.iter_mut().enumerate() {
                row[g] = self.gold(gold);
            }
            SetScore { name: String::new(), confusion, statuses: BTreeMap::new() }.macro_f1()
        };
        let majority = (0..3).max_by_key(|&g| (self.gold(g), std::cmp::Reverse(g))).unwrap_or(2);
        constant(2).max(constant(majority))
    }

    /// Share of pairs given `supported` or `contradicted`: on the shuffled control every one
    /// of them is a false alarm.
    pub fn decided(&self) -> f64 {
        ratio(self.predicted(0) + self.predicted(1), self.pairs())
    }
}

/// One set scored twice: each claim against its own evidence (the signal) and, as the
/// shuffled control, against the evidence of the next claim ([`rotation`]), both scored
/// against the claim's gold label; beside them, the set's [`Ceiling`] for a lexical verifier.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scored {
    /// Each claim against its own evidence.
    pub signal: SetScore,
    /// Each claim against another document's evidence.
    pub shuffled: SetScore,
    /// How far a verifier that reads only the words could get on the set.
    pub ceiling: Ceiling,
}

/// The ceiling of a lexical verifier on a set, measured on the words alone: a rule can find a
/// gold `supported` pair only when every content word of the claim (past function words; stems
/// meeting as the verifier's do) is in the evidence, and a gold `contradicted` pair only when at
/// most one is missing (the word swapped or negated). An oracle right on exactly those pairs and
/// `unverified` on every other scores [`Ceiling::oracle`]: counted generously (it is never wrong
/// where words are shared, which no rule is), so a target above its macro-F1 cannot be met
/// without a model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ceiling {
    /// Gold supported pairs whose claim words are all in the evidence.
    pub supported_reachable: usize,
    /// Gold contradicted pairs that lack at most one claim word.
    pub contradicted_reachable: usize,
    /// The oracle's tally.
    pub oracle: SetScore,
}

/// Claim content words (stems) the evidence lacks: how the [`lexical_ceiling`] tells a
/// reachable pair.
pub fn missing_words(claim: &str, evidence: &[EvidenceText]) -> usize {
    use amem_text::words::{stems_match, words};
    let content = |w: &amem_text::words::Word| {
        !w.stop && w.lower.chars().any(char::is_alphanumeric) && (w.lower.len() >= 2 || w.lower.chars().all(|c| c.is_ascii_digit()))
    };
    let mut have: Vec<String> = evidence.iter().flat_map(|e| words(&e.text)).filter(|w| content(w)).map(|w| w.stem.into_string()).collect();
    have.sort_unstable();
    have.dedup();
    let mut stems: Vec<String> = words(claim).into_iter().filter(|w| content(w)).map(|w| w.stem.into_string()).collect();
    stems.sort_unstable();
    stems.dedup();
    stems.iter().filter(|c| have.binary_search(c).is_err() && !have.iter().any(|h| stems_match(c, h))).count()
}

/// The [`Ceiling`] of a set.
pub fn lexical_ceiling(name: &str, pairs: &[Pair]) -> Ceiling {
    let (mut supported_reachable, mut contradicted_reachable) = (0, 0);
    let oracle = tally(
        name,
        pairs,
        pairs.iter().map(|p| {
            let missing = missing_words(&p.claim, &p.evidence);
            match p.label {
                Group::Supported if missing == 0 => {
                    supported_reachable += 1;
                    Status::Supported
                }
                Group::Contradicted if missing <= 1 => {
                    contradicted_reachable += 1;
                    Status::Contradicted
                }
                _ => Status::NotAddressed,
            }
        }),
    );
    Ceiling { supported_reachable, contradicted_reachable, oracle }
}

/// The shuffled control's pairing, a fixed rotation: pair `i` is given the evidence of the
/// first pair after it (wrapping round) that belongs to another document, so a claim never
/// meets evidence written for it or for its own symmetric variants. `None` when the set has
/// a single document.
pub fn rotation(pairs: &[Pair]) -> Vec<Option<usize>> {
    let n = pairs.len();
    (0..n).map(|i| (1..n).map(|k| (i + k) % n).find(|&j| pairs[j].doc != pairs[i].doc)).collect()
}

/// A pair's evidence texts as evidence items (chunk = position), with their titles.
pub fn evidence_of(p: &Pair) -> Vec<Evidence> {
    p.evidence
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut ev = text_evidence(&e.text, i as u32);
            ev.title = e.title.clone();
            ev
        })
        .collect()
}

fn tally(name: &str, pairs: &[Pair], verdicts: impl Iterator<Item = Status>) -> SetScore {
    let mut confusion = [[0usize; 3]; 3];
    let mut statuses = BTreeMap::new();
    for (p, status) in pairs.iter().zip(verdicts) {
        confusion[group_index(p.label)][group_index(status.group())] += 1;
        *statuses.entry(status.as_str().to_string()).or_insert(0) += 1;
    }
    SetScore { name: name.to_string(), confusion, statuses }
}

/// Document frequencies of a set's own evidence texts (each distinct text one document): the
/// collection a claim of the set is checked against, as the wiki is for an audit.
pub fn rarity_of(pairs: &[Pair]) -> Arc<Rarity> {
    let mut texts: Vec<&str> = pairs.iter().flat_map(|p| p.evidence.iter().map(|e| e.text.as_str())).collect();
    texts.sort_unstable();
    texts.dedup();
    Arc::new(Rarity::from_texts(texts))
}

/// What gives the verdicts scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The deterministic rules alone (`amem_verify::METHOD`).
    Rules,
    /// The learned verifier alone, its calibrated thresholds deciding
    /// ([`amem_verify::combine::model_alone`]).
    Model,
    /// The rules and the model by the combination table ([`amem_verify::combine::combine`]):
    /// what the audit reports.
    Combined,
    /// [`Method::Combined`], then a model behind an endpoint for what that left undecided on
    /// topic (`amem_verify::combine::endpoint_row`): what the audit reports with a
    /// `[[models]]` verifier. Scored by [`score_with`] with the endpoint's judge.
    WithEndpoint,
}

impl Method {
    /// The name on the command line and in the tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Rules => "rules",
            Method::Model => "model",
            Method::Combined => "combined",
            Method::WithEndpoint => "combined+endpoint",
        }
    }
}

/// Which part of a dev-half document the learned verifier's training saw: `heldout` (one
/// document in five: never trained on, where its figures come from), `calib` (its thresholds'
/// calibration) or `train`. The rule of `models/verifier/data.py` (`part_of`): the first eight
/// hex digits of sha256("amem-verifier/<corpus>/<doc>") as a number, mod 5 == 0 held out, else
/// mod 50 < 5 calibration. `corpus` is the set's folder name (`climate_fever` for both
/// Climate-FEVER sets).
pub fn model_part(corpus: &str, doc: &str) -> &'static str {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(format!("amem-verifier/{corpus}/{doc}").as_bytes());
    let h = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    if h % 5 == 0 {
        "heldout"
    } else if h % 50 < 5 {
        "calib"
    } else {
        "train"
    }
}

/// The folder a set's pairs come from: the name [`model_part`] hashes.
pub fn corpus_of(set: &str) -> &str {
    set.strip_suffix("_claims").unwrap_or(set)
}

/// The pairs of `set` in the learned verifier's held-out part ([`model_part`]).
pub fn heldout_part(set: &str, pairs: &[Pair]) -> Vec<Pair> {
    pairs.iter().filter(|p| model_part(corpus_of(set), &p.doc) == "heldout").cloned().collect()
}

/// One claim's verdict by `method`.
fn judge(method: Method, rules: &mut Verifier, model: Option<&amem_models::Verifier>, claim: &str, evidence: &[Evidence]) -> Status {
    match (method, model) {
        (Method::Rules, _) | (_, None) => rules.verify(claim, evidence).status,
        (Method::Model, Some(m)) => amem_verify::combine::model_alone(m, claim, evidence).unwrap_or(Status::NotAddressed),
        (Method::Combined | Method::WithEndpoint, Some(m)) => {
            let r = rules.verify(claim, evidence);
            amem_verify::combine::combine(m, claim, r.status, r.reasons, evidence).status
        }
    }
}

/// [`score_with_control`] by `method` (`model` is required for [`Method::Model`] and
/// [`Method::Combined`]; without it they score the rules).
pub fn score_method(name: &str, pairs: &[Pair], method: Method, model: Option<&amem_models::Verifier>) -> Scored {
    score_with(name, pairs, &mut |rules, claim, evidence| judge(method, rules, model, claim, evidence))
}

/// Every pair judged by `judge` (given the set's rules verifier, the claim and the evidence)
/// against its own evidence and against the [`rotation`]'s: the signal and its control.
pub fn score_with(name: &str, pairs: &[Pair], judge: &mut dyn FnMut(&mut Verifier, &str, &[Evidence]) -> Status) -> Scored {
    let mut rules = Verifier::new().with_rarity(rarity_of(pairs));
    let signal = tally(name, pairs, pairs.iter().map(|p| judge(&mut rules, &p.claim, &evidence_of(p))));
    let shuffled = tally(
        name,
        pairs,
        rotation(pairs).into_iter().zip(pairs).map(|(j, p)| match j {
            Some(j) => judge(&mut rules, &p.claim, &evidence_of(&pairs[j])),
            None => Status::NoEvidence,
        }),
    );
    Scored { signal, shuffled, ceiling: lexical_ceiling(name, pairs) }
}

/// At most `limit` pairs of `pairs`, evenly spaced (0: all): a model's budget spread over the
/// whole set.
pub fn spread(pairs: &[Pair], limit: usize) -> Vec<Pair> {
    if limit == 0 || limit >= pairs.len() {
        return pairs.to_vec();
    }
    (0..limit).map(|i| pairs[i * pairs.len() / limit].clone()).collect()
}

/// Verify every pair against its own evidence and tally the groups, words weighed by
/// [`rarity_of`] the set.
pub fn score(name: &str, pairs: &[Pair]) -> SetScore {
    let mut verifier = Verifier::new().with_rarity(rarity_of(pairs));
    tally(name, pairs, pairs.iter().map(|p| verifier.verify(&p.claim, &evidence_of(p)).status))
}

/// Verify every pair against its own evidence and against the [`rotation`]'s evidence.
pub fn score_with_control(name: &str, pairs: &[Pair]) -> Scored {
    let signal = score(name, pairs);
    let mut verifier = Verifier::new().with_rarity(rarity_of(pairs));
    let shuffled = tally(
        name,
        pairs,
        rotation(pairs).into_iter().zip(pairs).map(|(j, p)| match j {
            Some(j) => verifier.verify(&p.claim, &evidence_of(&pairs[j])).status,
            None => Status::NoEvidence,
        }),
    );
    Scored { signal, shuffled, ceiling: lexical_ceiling(name, pairs) }
}

fn read_lines(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| EvalError::Io { path: path.to_path_buf(), source })
}

fn parse_group(s: &str) -> Option<Group> {
    match s.to_ascii_lowercase().as_str() {
        "supported" | "supports" => Some(Group::Supported),
        "contradicted" | "refutes" | "refuted" => Some(Group::Contradicted),
        "unverified" | "no_evidence" | "not_enough_info" => Some(Group::Unverified),
        _ => None,
    }
}

#[derive(Deserialize)]
struct PairRecord {
    id: String,
    claim: String,
    evidence: String,
    label: String,
    /// The set's document key; a pair without one is its own document.
    #[serde(default)]
    doc: Option<String>,
}

/// Read a `pairs.jsonl` file.
///
/// # Errors
/// [`EvalError::Io`] when it cannot be read, [`EvalError::Record`] for a line
/// that is not a pair with a known label.
pub fn load_pairs(path: &Path) -> Result<Vec<Pair>> {
    let text = read_lines(path)?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |reason: String| EvalError::Record { path: path.to_path_buf(), line: n + 1, reason };
        let r: PairRecord = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        let label = parse_group(&r.label).ok_or_else(|| bad(format!("unknown label {:?}", r.label)))?;
        let doc = r.doc.unwrap_or_else(|| r.id.clone());
        out.push(Pair { id: r.id, claim: r.claim, evidence: vec![EvidenceText::untitled(r.evidence)], label, doc });
    }
    Ok(out)
}

#[derive(Deserialize)]
struct CfEvidence {
    doc_id: String,
    sentences: Vec<u32>,
    label: String,
}

#[derive(Deserialize)]
struct CfClaim {
    id: String,
    claim: String,
    label: String,
    evidence: Vec<CfEvidence>,
}

#[derive(Deserialize)]
struct CfSentence {
    idx: u32,
    text: String,
}

#[derive(Deserialize)]
struct CfDoc {
    doc_id: String,
    title: String,
    sentences: Vec<CfSentence>,
}

/// Climate-FEVER assembled into pairs: `(evidence_pairs, claim_pairs)`.
/// Evidence pairs: one per (claim, candidate sentence), labelled by the
/// annotators' evidence-level label. Claim pairs: the claim against its five
/// candidates together, claim-level label, DISPUTED left out.
///
/// # Errors
/// [`EvalError::Io`] / [`EvalError::Record`] as for [`load_pairs`], and a
/// record error when a claim cites a sentence the corpus file lacks.
pub fn load_climate_fever(dir: &Path) -> Result<(Vec<Pair>, Vec<Pair>)> {
    let corpus_path = dir.join("corpus.jsonl");
    let mut sentences: BTreeMap<(String, u32), String> = BTreeMap::new();
    let mut titles: BTreeMap<String, String> = BTreeMap::new();
    for (n, line) in read_lines(&corpus_path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let d: CfDoc =
            serde_json::from_str(line).map_err(|e| EvalError::Record { path: corpus_path.clone(), line: n + 1, reason: e.to_string() })?;
        for s in d.sentences {
            sentences.insert((d.doc_id.clone(), s.idx), s.text);
        }
        titles.insert(d.doc_id, d.title);
    }
    let claims_path = dir.join("claims.jsonl");
    let mut evidence_pairs = Vec::new();
    let mut claim_pairs = Vec::new();
    for (n, line) in read_lines(&claims_path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |reason: String| EvalError::Record { path: claims_path.clone(), line: n + 1, reason };
        let c: CfClaim = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        let mut all = Vec::new();
        for (k, e) in c.evidence.iter().enumerate() {
            let mut parts = Vec::new();
            for idx in &e.sentences {
                let t = sentences
                    .get(&(e.doc_id.clone(), *idx))
                    .ok_or_else(|| bad(format!("sentence {} of {:?} is not in corpus.jsonl", idx, e.doc_id)))?;
                parts.push(t.as_str());
            }
            let item = EvidenceText { text: parts.join(" "), title: titles.get(&e.doc_id).cloned() };
            let label = parse_group(&e.label).ok_or_else(|| bad(format!("unknown evidence label {:?}", e.label)))?;
            evidence_pairs.push(Pair {
                id: format!("{}#{}", c.id, k),
                claim: c.claim.clone(),
                evidence: vec![item.clone()],
                label,
                doc: c.id.clone(),
            });
            all.push(item);
        }
        if c.label == "DISPUTED" {
            continue;
        }
        let label = parse_group(&c.label).ok_or_else(|| bad(format!("unknown claim label {:?}", c.label)))?;
        claim_pairs.push(Pair { id: c.id.clone(), claim: c.claim, evidence: all, label, doc: c.id });
    }
    Ok((evidence_pairs, claim_pairs))
}

/// The sets found under `dir`, in a fixed order, each loaded.
///
/// # Errors
/// Any read error, or [`EvalError::Empty`] when no set is present.
pub fn load_corpus(dir: &Path) -> Result<Vec<(String, Vec<Pair>)>> {
    let mut sets = Vec::new();
    for name in ["fever_symmetric", "healthver", "covid_fact", "wice"] {
        let p = dir.join(name).join("pairs.jsonl");
        if p.is_file() {
            sets.push((name.to_string(), load_pairs(&p)?));
        }
    }
    let cf = dir.join("climate_fever");
    if cf.join("claims.jsonl").is_file() {
        let (ev, claims) = load_climate_fever(&cf)?;
        sets.push(("climate_fever".to_string(), ev));
        sets.push(("climate_fever_claims".to_string(), claims));
    }
    if sets.is_empty() {
        return Err(EvalError::Empty(dir.to_path_buf()));
    }
    Ok(sets)
}

/// Load and score every set under `dir`, each with its shuffled control.
///
/// # Errors
/// As [`load_corpus`].
pub fn evaluate(dir: &Path) -> Result<Vec<Scored>> {
    Ok(load_corpus(dir)?.iter().map(|(name, pairs)| score_with_control(name, pairs)).collect())
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// The learned verifier's table: per set (its held-out part, [`heldout_part`]), each method's
/// macro-F1 beside the claim-only control (the same claims scored against the [`rotation`]'s
/// evidence, against their own gold labels: what the claim's wording alone earns) and the
/// margin; the share of the shuffled pairs given supported or contradicted (every one a false
/// alarm); and the precision of ✅ and ⚠.
pub fn render_methods_markdown(rows: &[(Method, Scored)]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| set (held-out part) | pairs | floor | method | macro-F1 | claim-only control | margin | shuffled committed | ✅ precision | ⚠ precision |"
    );
    let _ = writeln!(s, "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    for (method, x) in rows {
        let sig = &x.signal;
        let prec = |g: Group| {
            if sig.predicted(group_index(g)) == 0 { "–".to_string() } else { format!("{:.2}", sig.precision(g)) }
        };
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} | {} | {:.2} | {:.2} | {:+.2} | {}% | {} | {} |",
            sig.name,
            sig.pairs(),
            sig.floor(),
            method.as_str(),
            sig.macro_f1(),
            x.shuffled.macro_f1(),
            sig.macro_f1() - x.shuffled.macro_f1(),
            pct(x.shuffled.decided()),
            prec(Group::Supported),
            prec(Group::Contradicted),
        );
    }
    s
}

/// `signal · shuffled · margin`, in percent.
fn triple(signal: f64, shuffled: f64) -> String {
    format!("{} · {} · {:+.1}", pct(signal), pct(shuffled), (signal - shuffled) * 100.0)
}

/// The scores as the markdown block kept in the benchmarks page (tables only, no prose).
pub fn render_markdown(scores: &[Scored]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Each cell: signal · shuffled control · margin, in percent.");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| set | pairs | macro-F1 | floor (margin) | accuracy | supported P | supported R | contradicted P | contradicted R | shuffled S+C |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for Scored { signal: sc, shuffled: sh, .. } in scores {
        let gold = sc.gold_classes();
        let cell = |g: Group, f: &dyn Fn(&SetScore, Group) -> f64| {
            if gold.contains(&g) { triple(f(sc, g), f(sh, g)) } else { "n/a".to_string() }
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} ({:+.1}) | {} | {} | {} | {} | {} | {} |",
            sc.name,
            sc.pairs(),
            triple(sc.macro_f1(), sh.macro_f1()),
            pct(sc.floor()),
            (sc.macro_f1() - sc.floor()) * 100.0,
            triple(sc.accuracy(), sh.accuracy()),
            cell(Group::Supported, &SetScore::precision),
            cell(Group::Supported, &SetScore::recall),
            cell(Group::Contradicted, &SetScore::precision),
            cell(Group::Contradicted, &SetScore::recall),
            pct(sh.decided()),
        );
    }
    let _ = writeln!(s);
    // Where the verifier stands per class, over the sets that have the class in their gold labels.
    for g in GROUPS {
        let with: Vec<&SetScore> = scores.iter().map(|x| &x.signal).filter(|sc| sc.gold_classes().contains(&g)).collect();
        if with.is_empty() {
            continue;
        }
        let range = |f: &dyn Fn(&SetScore) -> f64| {
            let v: Vec<f64> = with.iter().map(|sc| f(sc)).collect();
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            format!("{}–{}%", pct(lo), pct(hi))
        };
        let _ = writeln!(
            s,
            "- {}: precision {}, recall {} over the {} sets labelled with it.",
            g.as_str(),
            range(&|sc| sc.precision(g)),
            range(&|sc| sc.recall(g)),
            with.len()
        );
    }
    let all: usize = scores.iter().map(|x| x.shuffled.pairs()).sum();
    let decided: usize = scores.iter().map(|x| x.shuffled.predicted(0) + x.shuffled.predicted(1)).sum();
    let _ = writeln!(
        s,
        "- shuffled control: {decided} of {all} mismatched pairs ({}%) came out supported or contradicted.",
        pct(ratio(decided, all))
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Lexical ceiling (an oracle right on every gold supported pair whose claim words are all in the evidence and every gold contradicted pair lacking at most one, unverified elsewhere):"
    );
    let _ = writeln!(s);
    let _ =
        writeln!(s, "| set | supported reachable | contradicted reachable | ceiling macro-F1 | target (floor + 15) | verifier macro-F1 |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
    for x in scores {
        let (sc, c) = (&x.signal, &x.ceiling);
        let share = |n: usize, g: usize| {
            if sc.gold(g) == 0 { "—".to_string() } else { format!("{n} of {} ({}%)", sc.gold(g), pct(ratio(n, sc.gold(g)))) }
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            sc.name,
            share(c.supported_reachable, 0),
            share(c.contradicted_reachable, 1),
            pct(c.oracle.macro_f1()),
            pct(sc.floor() + 0.15),
            pct(sc.macro_f1())
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "Confusion (rows: gold group; columns: predicted group S / C / U) and the statuses given:");
    let _ = writeln!(s);
    let _ = writeln!(s, "| set | gold supported | gold contradicted | gold unverified | statuses |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    for Scored { signal: sc, .. } in scores {
        let row = |g: usize| {
            if sc.gold(g) == 0 {
                "—".to_string()
            } else {
                format!("{} / {} / {}", sc.confusion[g][0], sc.confusion[g][1], sc.confusion[g][2])
            }
        };
        let st: Vec<String> = sc.statuses.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(s, "| {} | {} | {} | {} | {} |", sc.name, row(0), row(1), row(2), st.join(", "));
    }
    s
}

fn score_json(sc: &SetScore) -> serde_json::Value {
    let mut classes = serde_json::Map::new();
    for g in sc.gold_classes() {
        classes.insert(g.as_str().to_string(), serde_json::json!({"precision": sc.precision(g), "recall": sc.recall(g), "f1": sc.f1(g)}));
    }
    serde_json::json!({
        "pairs": sc.pairs(),
        "accuracy": sc.accuracy(),
        "macro_f1": sc.macro_f1(),
        "balanced_accuracy": sc.balanced_accuracy(),
        "decided": sc.decided(),
        "classes": classes,
        "confusion": {
            "order": ["supported", "contradicted", "unverified"],
            "rows_gold_columns_predicted": sc.confusion,
        },
        "statuses": sc.statuses,
    })
}

/// The scores of one set as one JSON object: the signal's figures at the top level (as
/// before), `floor` (the better trivial macro-F1), `shuffled` (the same figures for the
/// rotation control) and `margin` (signal minus shuffled, for each headline figure).
pub fn to_json(x: &Scored) -> serde_json::Value {
    let (sc, sh) = (&x.signal, &x.shuffled);
    let mut v = score_json(sc);
    let mut margin = serde_json::Map::new();
    margin.insert("accuracy".into(), serde_json::json!(sc.accuracy() - sh.accuracy()));
    margin.insert("macro_f1".into(), serde_json::json!(sc.macro_f1() - sh.macro_f1()));
    margin.insert("balanced_accuracy".into(), serde_json::json!(sc.balanced_accuracy() - sh.balanced_accuracy()));
    for g in sc.gold_classes() {
        margin.insert(format!("{}_precision", g.as_str()), serde_json::json!(sc.precision(g) - sh.precision(g)));
        margin.insert(format!("{}_recall", g.as_str()), serde_json::json!(sc.recall(g) - sh.recall(g)));
    }
    if let Some(o) = v.as_object_mut() {
        o.insert("set".into(), serde_json::json!(sc.name));
        o.insert("floor".into(), serde_json::json!(sc.floor()));
        o.insert("shuffled".into(), score_json(sh));
        o.insert("margin".into(), serde_json::Value::Object(margin));
        o.insert(
            "lexical_ceiling".into(),
            serde_json::json!({
                "supported_reachable": x.ceiling.supported_reachable,
                "contradicted_reachable": x.ceiling.contradicted_reachable,
                "macro_f1": x.ceiling.oracle.macro_f1(),
                "target": sc.floor() + 0.15,
            }),
        );
    }
    v
}

/// Markers around the generated block inside the benchmarks page's `verify` section.
pub const README_BEGIN: &str = "<!-- verify-eval:begin -->";
/// See [`README_BEGIN`].
pub const README_END: &str = "<!-- verify-eval:end -->";

/// The text between the markers in `readme`, if both are present.
pub fn readme_block(readme: &str) -> Option<&str> {
    let start = readme.find(README_BEGIN)? + README_BEGIN.len();
    let end = readme[start..].find(README_END)? + start;
    Some(readme[start..end].trim_matches('\n'))
}

/// `readme` with the block between the markers replaced by `block`.
pub fn replace_readme_block(readme: &str, block: &str) -> Option<String> {
    let start = readme.find(README_BEGIN)? + README_BEGIN.len();
    let end = readme[start..].find(README_END)? + start;
    Some(format!("{}\n{}\n{}", &readme[..start], block.trim_matches('\n'), &readme[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_on_a_known_table() {
        let sc = SetScore { name: "t".into(), confusion: [[8, 1, 1], [2, 6, 2], [0, 0, 0]], statuses: BTreeMap::new() };
        assert_eq!(sc.pairs(), 20);
        assert!((sc.accuracy() - 0.7).abs() < 1e-12);
        assert!((sc.precision(Group::Supported) - 0.8).abs() < 1e-12);
        assert!((sc.recall(Group::Contradicted) - 0.6).abs() < 1e-12);
        // macro-F1 over the two gold classes: F1(S)=0.8, F1(C)=2*.857*.6/(1.457)
        let f1c = 2.0 * (6.0 / 7.0) * 0.6 / (6.0 / 7.0 + 0.6);
        assert!((sc.macro_f1() - (0.8 + f1c) / 2.0).abs() < 1e-12);
        assert!((sc.balanced_accuracy() - 0.7).abs() < 1e-12);
        assert_eq!(sc.gold_classes(), vec![Group::Supported, Group::Contradicted]);
    }

    #[test]
    fn the_rotation_never_pairs_a_claim_with_its_own_document() {
        let pair = |id: &str, doc: &str| Pair {
            id: id.into(),
            claim: format!("claim {id}"),
            evidence: vec![EvidenceText::untitled(format!("evidence {id}"))],
            label: Group::Supported,
            doc: doc.into(),
        };
        let pairs = [pair("a", "x"), pair("b", "x"), pair("c", "y"), pair("d", "z")];
        assert_eq!(rotation(&pairs), vec![Some(2), Some(2), Some(3), Some(0)]);
        assert_eq!(rotation(&pairs[..2]), vec![None, None]);
    }

    #[test]
    fn the_floor_is_the_better_constant_answer() {
        // 6 supported, 4 contradicted: always-supported F1(S) = 2*.6/1.6 = .75, F1(C) = 0.
        let sc = SetScore { name: "t".into(), confusion: [[6, 0, 0], [0, 4, 0], [0, 0, 0]], statuses: BTreeMap::new() };
        assert!((sc.floor() - 0.375).abs() < 1e-12, "{}", sc.floor());
        // Mostly unverified: always-unverified is the majority answer.
        let sc = SetScore { name: "t".into(), confusion: [[1, 0, 0], [0, 1, 0], [0, 0, 8]], statuses: BTreeMap::new() };
        let f1u = 2.0 * 0.8 / 1.8;
        assert!((sc.floor() - f1u / 3.0).abs() < 1e-12, "{}", sc.floor());
        assert!((sc.decided() - 0.2).abs() < 1e-12);
    }

    #[test]
    fn the_lexical_ceiling_counts_the_pairs_words_can_reach() {
        let pair = |id: &str, claim: &str, ev: &str, label: Group| Pair {
            id: id.into(),
            claim: claim.into(),
            evidence: vec![EvidenceText::untitled(ev.into())],
            label,
            doc: id.into(),
        };
        let pairs = [
            // every claim word in the evidence: reachable
            pair("a", "The vaccine prevents infection.", "The vaccine prevents infection in adults.", Group::Supported),
            // a paraphrase ("stops"): no rule on words reaches it
            pair("b", "The vaccine stops infection.", "The vaccine prevents infection.", Group::Supported),
            // one word swapped: reachable as a contradiction
            pair("c", "The vaccine causes infection.", "The vaccine prevents infection.", Group::Contradicted),
            // two words missing: not
            pair("d", "The drug causes liver damage.", "The drug prevents kidney damage.", Group::Contradicted),
            pair("e", "Rates rose.", "Nothing about it.", Group::Unverified),
        ];
        let c = lexical_ceiling("t", &pairs);
        assert_eq!((c.supported_reachable, c.contradicted_reachable), (1, 1));
        let f1 = 2.0 * 0.5 / 1.5;
        let f1u = 2.0 * (1.0 / 3.0) / (1.0 / 3.0 + 1.0);
        assert!((c.oracle.macro_f1() - (f1 + f1 + f1u) / 3.0).abs() < 1e-12, "{}", c.oracle.macro_f1());
    }

    #[test]
    fn readme_block_round_trip() {
        let readme = format!("a\n{README_BEGIN}\nold\n{README_END}\nb");
        let new = replace_readme_block(&readme, "new table").expect("markers");
        assert_eq!(readme_block(&new), Some("new table"));
        assert!(new.starts_with("a\n") && new.ends_with("\nb"));
    }

    #[test]
    fn bad_lines_name_the_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("pairs.jsonl");
        std::fs::write(&p, "{\"id\":\"a\",\"claim\":\"c\",\"evidence\":\"e\",\"label\":\"supported\"}\n{\"id\":\"b\"}\n").expect("write");
        let err = load_pairs(&p).expect_err("second line is bad");
        assert!(err.to_string().contains(":2:"), "{err}");
    }

    /// The figures in the benchmarks page's `verify` section are what the verifier
    /// scores on ../shared/eval now. Set `AMEM_UPDATE_README=1` to rewrite them.
    #[test]
    fn readme_figures_match_the_dev_halves() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..");
        let corpus = root.join("..").join("shared").join("eval");
        if !corpus.is_dir() {
            eprintln!("SKIPPED readme_figures_match_the_dev_halves: ../shared is absent");
            return;
        }
        let scores = evaluate(&corpus).expect("the dev halves load");
        let block = render_markdown(&scores);
        let readme_path = root.join("docs").join("benchmarks.md");
        let readme = std::fs::read_to_string(&readme_path).expect("docs/benchmarks.md");
        if std::env::var_os("AMEM_UPDATE_README").is_some() {
            let new = replace_readme_block(&readme, &block).expect("verify-eval markers in docs/benchmarks.md");
            std::fs::write(&readme_path, new).expect("write docs/benchmarks.md");
            return;
        }
        let have = readme_block(&readme).unwrap_or("(markers missing)");
        assert_eq!(
            have,
            block.trim_matches('\n'),
            "benchmarks page verify figures differ from the measurement; rerun with AMEM_UPDATE_README=1"
        );
    }
}
