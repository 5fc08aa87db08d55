//! The one combination policy: the rules' verdict and the verifier model's reading.
//!
//! docs/architecture.md, "Deterministic first, models subordinate": the rules decide first and stay the explanation; the
//! model (`amem_models::Verifier`) reads the claim against the evidence and one
//! fixed table, [`row`], combines the two. The audit, `amem verify`, `amem factcheck` and
//! `amem eval verify --method combined` all call [`combine`]. A model may settle what the rules left
//! undecided on topic and may lower a verdict, never flip supported and
//! contradicted:
//!
//! | the rules say | the model reads | reported | row |
//! |---|---|---|---|
//! | contradicted | the cited evidence unrelated, P(nei) ≥ `unrelated` | not_addressed | [`Row::ConflictUnrelated`] |
//! | contradicted | anything else | contradicted | [`Row::ConflictStands`] |
//! | partially_supported, not_addressed | P(supported) ≥ `supported`, on some evidence | supported | [`Row::UndecidedSupported`] |
//! | partially_supported, not_addressed | P(contradicted) ≥ `contradicted`, on some evidence | contradicted | [`Row::UndecidedContradicted`] |
//! | partially_supported, not_addressed | both of the above, on different evidence | ambiguous | [`Row::UndecidedDisputed`] |
//! | partially_supported, not_addressed | neither | unchanged | [`Row::UndecidedStays`] |
//! | supported | P(contradicted) ≥ `contradicted` on the cited evidence | ambiguous | [`Row::SupportDisputed`] |
//! | supported | anything else | supported | [`Row::SupportStands`] |
//! | supported, by evidence stating the claim word for word | not asked | supported | [`Row::NotConsulted`] |
//! | no_evidence, ambiguous, stale, source_unavailable | not asked | unchanged | [`Row::NotConsulted`] |
//!
//! The thresholds are the shipped calibration (`crates/models/weights/calibration.json`).
//! The model's reading is its own observation: it is added as a reason (rule
//! `model.verifier.*`, its probabilities, the rules' status before it) citing the
//! exact bytes it read, and the method names both (`deterministic@N+model:verifier@M`);
//! the rules' reasons are kept as they were.

use amem_models::{Passage, Probs, Thresholds, Verifier};
use amem_records::{Digest, Evidence, Reason, Span, Status};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// Passages the model reads for a claim: the rules' cited sentences item by item, then for an
/// undecided claim the best recalled items, up to this many (each reading costs about 40 ms
/// of a core on this project's machine, `scripts/bench-models.py`: two keep the audit's cost
/// bounded, and are read at once on two cores).
pub const MODEL_EVIDENCE: usize = 2;

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Row {
    /// Rules: contradicted; model: the evidence is unrelated → not_addressed.
    ConflictUnrelated,
    /// Rules: contradicted; the model does not read it as unrelated → contradicted.
    ConflictStands,
    /// Rules: undecided on topic; model: supported → supported.
    UndecidedSupported,
    /// Rules: undecided on topic; model: contradicted → contradicted.
    UndecidedContradicted,
    /// Rules: undecided on topic; model: supported by one passage, contradicted by another → ambiguous.
    UndecidedDisputed,
    /// Rules: undecided on topic; the model is not sure → unchanged.
    UndecidedStays,
    /// Rules: supported; model: contradicted → ambiguous.
    SupportDisputed,
    /// Rules: supported; the model does not read a contradiction → supported.
    SupportStands,
    /// The model is not asked.
    NotConsulted,
}

impl Row {
    /// The status reported under this row, given the rules' status.
    pub fn status(self, rules: Status) -> Status {
        match self {
            Row::ConflictUnrelated => Status::NotAddressed,
            Row::ConflictStands => Status::Contradicted,
            Row::UndecidedSupported => Status::Supported,
            Row::UndecidedContradicted => Status::Contradicted,
            Row::UndecidedDisputed | Row::SupportDisputed => Status::Ambiguous,
            Row::SupportStands => Status::Supported,
            Row::UndecidedStays | Row::NotConsulted => rules,
        }
    }

    /// The reason's rule name, `model.verifier.<row>`.
    pub fn rule(self) -> &'static str {
        match self {
            Row::ConflictUnrelated => "model.verifier.unrelated",
            Row::ConflictStands => "model.verifier.conflict_kept",
            Row::UndecidedSupported => "model.verifier.supported",
            Row::UndecidedContradicted => "model.verifier.contradicted",
            Row::UndecidedDisputed => "model.verifier.disputed",
            Row::UndecidedStays => "model.verifier.unsure",
            Row::SupportDisputed => "model.verifier.disputes_support",
            Row::SupportStands => "model.verifier.support_kept",
            Row::NotConsulted => "model.verifier.not_consulted",
        }
    }
}

/// Whether the model is asked about a claim the rules gave `rules`.
pub fn consults(rules: Status) -> bool {
    matches!(rules, Status::Contradicted | Status::Supported | Status::PartiallySupported | Status::NotAddressed)
}

/// The table: which row the rules' status and the model's readings fall in. `readings` are the
/// model's probabilities on each evidence passage it read (for contradicted and supported,
/// the passages the rules cited).
pub fn row(rules: Status, readings: &[Probs], t: &Thresholds) -> Row {
    if !consults(rules) || readings.is_empty() {
        return Row::NotConsulted;
    }
    let max = |f: fn(&Probs) -> f32| readings.iter().map(f).fold(0.0f32, f32::max);
    match rules {
        Status::Contradicted => {
            // Unrelated only when every passage the conflict rests on reads as unrelated.
            let least_unrelated = readings.iter().map(|p| p.not_enough_info).fold(1.0f32, f32::min);
            if least_unrelated >= t.unrelated { Row::ConflictUnrelated } else { Row::ConflictStands }
        }
        Status::Supported => {
            if max(|p| p.contradicted) >= t.contradicted {
                Row::SupportDisputed
            } else {
                Row::SupportStands
            }
        }
        _ => {
            let supported = max(|p| p.supported) >= t.supported;
            let contradicted = max(|p| p.contradicted) >= t.contradicted;
            match (supported, contradicted) {
                (true, true) => Row::UndecidedDisputed,
                (true, false) => Row::UndecidedSupported,
                (false, true) => Row::UndecidedContradicted,
                (false, false) => Row::UndecidedStays,
            }
        }
    }
}

/// What a model behind an endpoint (crate `amem-endpoint`, `[[models]]` in config.toml)
/// answered about a claim, once every quote of its answer was found verbatim in the passage it
/// named. The endpoint is a second verifier under this same table, not a second policy: its
/// answer is read as a reading with all its weight on one label ([`endpoint_row`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndpointAnswer {
    /// The passages state the claim.
    Supported,
    /// A quoted passage states what cannot hold together with the claim.
    Contradicted,
    /// Neither.
    NotEnoughInfo,
}

/// True when the rules found a value, date, unit or polarity in the evidence that cannot hold
/// together with the claim's: an endpoint's "supported" never settles such a claim.
pub fn rules_state_conflict(reasons: &[Reason]) -> bool {
    reasons.iter().any(|r| {
        let rule = r.rule.as_str();
        rule.ends_with(".value_mismatch")
            || rule.ends_with(".unit_mismatch")
            || matches!(rule, "polarity.antonym" | "polarity.claim_negates" | "polarity.differs" | "polarity.evidence_negates")
    })
}

/// The table's row for an endpoint's answer on a claim the rules gave `rules` with `reasons`.
/// The endpoint is asked only about what the rules left undecided on topic
/// (`partially_supported`, `not_addressed`): any other status is [`Row::NotConsulted`]. Its
/// answer goes through [`row`] as a certain reading, so it decides exactly as the in-process
/// model would at full confidence, except that a conflict the rules found
/// ([`rules_state_conflict`]) keeps a "supported" answer from settling the claim
/// ([`Row::UndecidedStays`]).
pub fn endpoint_row(rules: Status, reasons: &[Reason], answer: EndpointAnswer) -> Row {
    if !matches!(rules, Status::PartiallySupported | Status::NotAddressed) {
        return Row::NotConsulted;
    }
    let reading = match answer {
        EndpointAnswer::Supported => Probs { supported: 1.0, contradicted: 0.0, not_enough_info: 0.0 },
        EndpointAnswer::Contradicted => Probs { supported: 0.0, contradicted: 1.0, not_enough_info: 0.0 },
        EndpointAnswer::NotEnoughInfo => Probs { supported: 0.0, contradicted: 0.0, not_enough_info: 1.0 },
    };
    let certain = Thresholds { supported: 1.0, contradicted: 1.0, unrelated: 1.0 };
    match row(rules, &[reading], &certain) {
        Row::UndecidedSupported if rules_state_conflict(reasons) => Row::UndecidedStays,
        r => r,
    }
}

impl Row {
    /// The reason's rule name for an endpoint's answer under this row, `llm.verifier.<row>`.
    pub fn endpoint_rule(self) -> String {
        format!("llm.verifier.{}", self.rule().trim_start_matches("model.verifier."))
    }
}

/// The rules' verdict after the model: status, reasons (the rules' ones, then the model's),
/// and the method.
#[derive(Clone, Debug, PartialEq)]
pub struct Combined {
    /// The status reported.
    pub status: Status,
    /// The rules' reasons, then the model's.
    pub reasons: Vec<Reason>,
    /// `deterministic@N`, or `deterministic@N+model:verifier@M` when the model was asked.
    pub method: String,
    /// The row of the table.
    pub row: Row,
}

/// How many model readings the process remembers (by the digest of the window and the
/// claim). Past it the memory starts afresh.
pub const READINGS_MAX: usize = 100_000;

/// The model's readings remembered by input: the key is the digest of the model's name, the
/// window it read and the claim, so the same input is never computed twice while remembered
/// (the audit's outcome cache already assesses a claim text once per run; this covers the
/// same window read for the same claim by `amem verify`, `factcheck` and the eval's control).
#[derive(Debug)]
pub struct Readings {
    map: Mutex<HashMap<Digest, Probs>>,
    max: usize,
    hits: AtomicU64,
    misses: AtomicU64,
    /// Nanoseconds spent computing, summed over the threads that computed.
    compute_nanos: AtomicU64,
}

impl Readings {
    /// An empty memory of at most `max` readings.
    pub fn new(max: usize) -> Readings {
        Readings {
            map: Mutex::new(HashMap::new()),
            max,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            compute_nanos: AtomicU64::new(0),
        }
    }

    /// The process's memory, of [`READINGS_MAX`].
    pub fn shared() -> &'static Readings {
        static SHARED: OnceLock<Readings> = OnceLock::new();
        SHARED.get_or_init(|| Readings::new(READINGS_MAX))
    }

    /// Readings found remembered, and computed.
    pub fn counts(&self) -> (u64, u64) {
        (self.hits.load(Ordering::Relaxed), self.misses.load(Ordering::Relaxed))
    }

    /// Seconds spent computing readings, summed over the threads that computed: with
    /// [`Readings::counts`], the model's rate on the inputs a run really gave it.
    pub fn compute_seconds(&self) -> f64 {
        self.compute_nanos.load(Ordering::Relaxed) as f64 / 1e9
    }

    /// The model's readings of `claim` against each window, remembered or computed (all the
    /// missing ones in one batch).
    ///
    /// # Errors
    /// The model could not compute.
    pub fn read(&self, verifier: &Verifier, claim: &str, windows: &[String]) -> Result<Vec<Probs>, amem_models::ModelError> {
        let keys: Vec<Digest> = windows.iter().map(|w| reading_key(verifier, w, claim)).collect();
        let mut out: Vec<Option<Probs>> = {
            let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
            keys.iter().map(|k| map.get(k).copied()).collect()
        };
        let missing: Vec<usize> = (0..windows.len()).filter(|&i| out[i].is_none()).collect();
        self.hits.fetch_add((windows.len() - missing.len()) as u64, Ordering::Relaxed);
        if !missing.is_empty() {
            self.misses.fetch_add(missing.len() as u64, Ordering::Relaxed);
            let pairs: Vec<(&str, &str)> = missing.iter().map(|&i| (windows[i].as_str(), claim)).collect();
            let started = std::time::Instant::now();
            let scored = verifier.score(&pairs)?;
            let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.compute_nanos.fetch_add(nanos, Ordering::Relaxed);
            let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
            if map.len() + scored.len() > self.max {
                map.clear();
            }
            for (&i, p) in missing.iter().zip(scored) {
                map.insert(keys[i], p);
                out[i] = Some(p);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }
}

/// The key a reading is remembered under: the model and its weights, the window it read and
/// the claim.
fn reading_key(verifier: &Verifier, window: &str, claim: &str) -> Digest {
    let mut bytes = Vec::with_capacity(window.len() + claim.len() + 40);
    bytes.extend_from_slice(amem_models::METHOD.as_bytes());
    bytes.extend_from_slice(verifier.weights_sha256().as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(window.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(claim.as_bytes());
    Digest::of(&bytes)
}

/// [`Readings::read`] on the process's memory.
///
/// # Errors
/// The model could not compute.
pub fn read_windows(verifier: &Verifier, claim: &str, windows: &[String]) -> Result<Vec<Probs>, amem_models::ModelError> {
    Readings::shared().read(verifier, claim, windows)
}

/// What the model reads of one evidence item: its window and the window's parts as evidence
/// pointing at their bytes.
struct Read {
    window: String,
    cited: Vec<Evidence>,
}

/// The model's read of a whole evidence item: the window [`amem_models::window_spans`] cuts.
fn read_of(e: &Evidence, claim: &str) -> Option<Read> {
    let spans = amem_models::window_spans(&e.quote, claim);
    if spans.is_empty() {
        return None;
    }
    let passage = Passage { evidence: &e.quote, title: e.title.as_deref(), claim };
    let cited = spans
        .into_iter()
        .map(|r| {
            let mut part = e.clone();
            part.quote = e.quote[r.clone()].to_string();
            part.span = Span { start: e.span.start + r.start, end: e.span.start + r.end };
            part
        })
        .collect();
    Some(Read { window: passage.window(), cited })
}

/// The model's read of the sentences the rules cited from one item, together (the rules may
/// rest support on several sentences of one note): their quotes in text order, joined.
fn read_of_cited(parts: &[&Evidence], claim: &str) -> Option<Read> {
    let first = parts.first()?;
    let mut sorted: Vec<&Evidence> = parts.to_vec();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    sorted.dedup_by(|a, b| a.span == b.span);
    let text = sorted.iter().map(|e| e.quote.trim()).collect::<Vec<_>>().join(" ");
    let passage = Passage { evidence: &text, title: first.title.as_deref(), claim };
    Some(Read { window: passage.window(), cited: sorted.into_iter().cloned().collect() })
}

/// What the model reads for a claim the rules gave `rules` with `reasons`: the sentences the
/// rules cited, item by item; for a claim the rules left undecided, then the recalled items
/// not cited, whole; at most [`MODEL_EVIDENCE`] reads.
fn reads_for(rules: Status, reasons: &[Reason], evidence: &[Evidence], claim: &str) -> Vec<Read> {
    let mut by_item: Vec<(&amem_records::AmemUri, Vec<&Evidence>)> = Vec::new();
    for e in reasons.iter().flat_map(|r| r.evidence.iter()) {
        match by_item.iter_mut().find(|(uri, _)| **uri == e.uri) {
            Some((_, parts)) => parts.push(e),
            None => by_item.push((&e.uri, vec![e])),
        }
    }
    let mut out: Vec<Read> = by_item.iter().filter_map(|(_, parts)| read_of_cited(parts, claim)).collect();
    if !matches!(rules, Status::Contradicted | Status::Supported) {
        for e in evidence {
            if by_item.iter().any(|(uri, _)| **uri == e.uri) {
                continue;
            }
            out.extend(read_of(e, claim));
        }
    }
    out.truncate(MODEL_EVIDENCE);
    out
}

/// Lower-cased words of `text`, joined by single spaces: what [`states_verbatim`] compares.
fn folded(text: &str) -> String {
    amem_text::tokens::words_of(text, amem_text::tokens::WordRule::Alphanumeric).map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// True when evidence the rules cited states the whole claim word for word (case and
/// punctuation aside): support no reading can dispute, so the model is not asked.
fn states_verbatim(claim: &str, reasons: &[Reason]) -> bool {
    let claim = folded(claim);
    !claim.is_empty()
        && reasons.iter().flat_map(|r| r.evidence.iter()).any(|e| format!(" {} ", folded(&e.quote)).contains(&format!(" {claim} ")))
}

/// The model alone on `claim`: every evidence item read (its window), and the table's row for
/// a claim the rules left undecided, so the thresholds decide as they do in [`combine`]:
/// supported, contradicted, ambiguous (supported by one item, contradicted by another) or
/// not_addressed (the model is not sure). What `amem eval verify --method model` scores.
///
/// # Errors
/// The model could not compute.
pub fn model_alone(verifier: &Verifier, claim: &str, evidence: &[Evidence]) -> Result<Status, amem_models::ModelError> {
    let windows: Vec<String> = evidence.iter().filter_map(|e| read_of(e, claim)).map(|r| r.window).collect();
    if windows.is_empty() {
        return Ok(Status::NoEvidence);
    }
    let probs = read_windows(verifier, claim, &windows)?;
    Ok(row(Status::NotAddressed, &probs, &verifier.thresholds()).status(Status::NotAddressed))
}

/// Combine the rules' verdict (`rules`, `reasons`) on `claim` with the model's readings of
/// the evidence, by the table. When the model cannot compute, the rules' verdict stands and
/// a reason says so.
pub fn combine(verifier: &Verifier, claim: &str, rules: Status, reasons: Vec<Reason>, evidence: &[Evidence]) -> Combined {
    let rules_only = |reasons: Vec<Reason>| Combined { status: rules, reasons, method: crate::METHOD.to_string(), row: Row::NotConsulted };
    if !consults(rules) || (rules == Status::Supported && states_verbatim(claim, &reasons)) {
        return rules_only(reasons);
    }
    let reads = reads_for(rules, &reasons, evidence, claim);
    if reads.is_empty() {
        return rules_only(reasons);
    }
    let windows: Vec<String> = reads.iter().map(|r| r.window.clone()).collect();
    let probs = match read_windows(verifier, claim, &windows) {
        Ok(p) => p,
        Err(e) => {
            let mut reasons = reasons;
            reasons.push(Reason {
                facet: "model".into(),
                detail: format!("the verifier model could not read this claim ({e}); the rules' verdict stands"),
                claim_span: None,
                evidence: Vec::new(),
                rule: "model.verifier.failed".into(),
            });
            return rules_only(reasons);
        }
    };
    let t = verifier.thresholds();
    let row = row(rules, &probs, &t);
    let status = row.status(rules);
    // The passage the row rests on: the one read most strongly the way the row went.
    let pick = |f: fn(&Probs) -> f32| (0..probs.len()).max_by(|&a, &b| f(&probs[a]).total_cmp(&f(&probs[b]))).unwrap_or(0);
    let (at, what) = match row {
        Row::ConflictUnrelated => (pick(|p| p.not_enough_info), "as unrelated to the claim"),
        Row::UndecidedSupported => (pick(|p| p.supported), "as supporting the claim"),
        Row::SupportStands => (pick(|p| p.supported), "without a contradiction"),
        Row::UndecidedContradicted | Row::SupportDisputed => (pick(|p| p.contradicted), "as contradicting the claim"),
        Row::ConflictStands => (pick(|p| p.contradicted), "without settling the conflict either way"),
        Row::UndecidedDisputed => (pick(|p| p.contradicted), "as contradicting the claim, where another passage supports it"),
        Row::UndecidedStays | Row::NotConsulted => (pick(|p| p.supported.max(p.contradicted)), "without deciding it"),
    };
    let p = probs[at];
    let mut cited = reads[at].cited.clone();
    if row == Row::UndecidedDisputed {
        cited.extend(reads[pick(|p| p.supported)].cited.iter().cloned());
    }
    let mut reasons = reasons;
    reasons.push(Reason {
        facet: "model".into(),
        detail: format!(
            "the verifier model ({}) reads this evidence {what} (supported {:.2}, contradicted {:.2}, not enough info {:.2}); the rules said {}",
            amem_models::METHOD,
            p.supported,
            p.contradicted,
            p.not_enough_info,
            rules.as_str()
        ),
        claim_span: None,
        evidence: cited,
        rule: row.rule().into(),
    });
    Combined { status, reasons, method: format!("{}+{}", crate::METHOD, amem_models::METHOD), row }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Thresholds = Thresholds { supported: 0.8, contradicted: 0.8, unrelated: 0.9 };

    fn p(s: f32, c: f32, n: f32) -> Probs {
        Probs { supported: s, contradicted: c, not_enough_info: n }
    }

    #[test]
    fn conflict_lowered_only_when_every_passage_is_unrelated() {
        assert_eq!(row(Status::Contradicted, &[p(0.02, 0.03, 0.95)], &T), Row::ConflictUnrelated);
        assert_eq!(Row::ConflictUnrelated.status(Status::Contradicted), Status::NotAddressed);
        assert_eq!(row(Status::Contradicted, &[p(0.02, 0.03, 0.95), p(0.1, 0.5, 0.4)], &T), Row::ConflictStands);
        // The model reading support never flips a conflict to supported.
        assert_eq!(row(Status::Contradicted, &[p(0.99, 0.0, 0.01)], &T), Row::ConflictStands);
        assert_eq!(Row::ConflictStands.status(Status::Contradicted), Status::Contradicted);
    }

    #[test]
    fn undecided_settled_above_thresholds_only() {
        for rules in [Status::PartiallySupported, Status::NotAddressed] {
            assert_eq!(row(rules, &[p(0.85, 0.1, 0.05)], &T), Row::UndecidedSupported);
            assert_eq!(Row::UndecidedSupported.status(rules), Status::Supported);
            assert_eq!(row(rules, &[p(0.1, 0.85, 0.05)], &T), Row::UndecidedContradicted);
            assert_eq!(Row::UndecidedContradicted.status(rules), Status::Contradicted);
            assert_eq!(row(rules, &[p(0.6, 0.3, 0.1)], &T), Row::UndecidedStays);
            assert_eq!(Row::UndecidedStays.status(rules), rules);
            assert_eq!(row(rules, &[p(0.9, 0.05, 0.05), p(0.05, 0.9, 0.05)], &T), Row::UndecidedDisputed);
            assert_eq!(Row::UndecidedDisputed.status(rules), Status::Ambiguous);
        }
    }

    #[test]
    fn support_lowered_to_ambiguous_never_flipped() {
        assert_eq!(row(Status::Supported, &[p(0.05, 0.9, 0.05)], &T), Row::SupportDisputed);
        assert_eq!(Row::SupportDisputed.status(Status::Supported), Status::Ambiguous);
        assert_eq!(row(Status::Supported, &[p(0.05, 0.2, 0.75)], &T), Row::SupportStands);
        assert_eq!(Row::SupportStands.status(Status::Supported), Status::Supported);
    }

    #[test]
    fn readings_are_remembered_by_window_and_claim() {
        let model = Verifier::shipped().unwrap();
        let memory = Readings::new(3);
        let windows = vec!["The plant makes 40 MW.".to_string(), "Cats sleep.".to_string()];
        let first = memory.read(model, "The plant makes 80 MW.", &windows).unwrap();
        assert_eq!(memory.counts(), (0, 2));
        let again = memory.read(model, "The plant makes 80 MW.", &windows).unwrap();
        assert_eq!(memory.counts(), (2, 2));
        assert_eq!(first, again);
        // Another claim is another input.
        memory.read(model, "The plant makes 40 MW.", &windows[..1]).unwrap();
        assert_eq!(memory.counts(), (2, 3));
        // Past its size the memory starts afresh: the next read computes again.
        memory.read(model, "Something else.", &windows).unwrap();
        memory.read(model, "The plant makes 80 MW.", &windows[..1]).unwrap();
        assert_eq!(memory.counts(), (2, 6));
        assert!(memory.compute_seconds() > 0.0);
    }

    #[test]
    fn verbatim_support_is_not_disputed() {
        let e = amem_verify_evidence("Q3 results. The plant makes 40 MW, the board said.");
        let reason =
            Reason { facet: "topic".into(), detail: String::new(), claim_span: None, evidence: vec![e], rule: "align.entails".into() };
        assert!(states_verbatim("The plant makes 40 MW.", std::slice::from_ref(&reason)));
        assert!(!states_verbatim("The plant makes 40 MW a day.", std::slice::from_ref(&reason)));
        assert!(!states_verbatim("plant makes 4", std::slice::from_ref(&reason)));
    }

    fn amem_verify_evidence(text: &str) -> Evidence {
        crate::text_evidence(text, 0)
    }

    #[test]
    fn other_statuses_and_no_reading_are_not_consulted() {
        for rules in [Status::NoEvidence, Status::Ambiguous, Status::Stale, Status::SourceUnavailable] {
            assert_eq!(row(rules, &[p(0.99, 0.0, 0.01)], &T), Row::NotConsulted);
            assert_eq!(Row::NotConsulted.status(rules), rules);
        }
        assert_eq!(row(Status::PartiallySupported, &[], &T), Row::NotConsulted);
    }

    #[test]
    fn an_endpoint_settles_only_what_the_rules_left_undecided() {
        for rules in [Status::PartiallySupported, Status::NotAddressed] {
            assert_eq!(endpoint_row(rules, &[], EndpointAnswer::Supported), Row::UndecidedSupported);
            assert_eq!(endpoint_row(rules, &[], EndpointAnswer::Contradicted), Row::UndecidedContradicted);
            assert_eq!(endpoint_row(rules, &[], EndpointAnswer::NotEnoughInfo), Row::UndecidedStays);
        }
        for rules in [Status::Supported, Status::Contradicted, Status::NoEvidence, Status::Ambiguous, Status::Stale] {
            for answer in [EndpointAnswer::Supported, EndpointAnswer::Contradicted, EndpointAnswer::NotEnoughInfo] {
                assert_eq!(endpoint_row(rules, &[], answer), Row::NotConsulted);
            }
        }
        assert_eq!(Row::UndecidedSupported.endpoint_rule(), "llm.verifier.supported");
    }

    #[test]
    fn a_conflict_the_rules_found_is_never_supported_by_an_endpoint() {
        for rule in
            ["number.value_mismatch", "date.value_mismatch", "number.unit_mismatch", "polarity.evidence_negates", "polarity.antonym"]
        {
            let r = Reason { facet: "x".into(), detail: String::new(), claim_span: None, evidence: Vec::new(), rule: rule.into() };
            let reasons = std::slice::from_ref(&r);
            assert!(rules_state_conflict(reasons), "{rule}");
            assert_eq!(endpoint_row(Status::PartiallySupported, reasons, EndpointAnswer::Supported), Row::UndecidedStays, "{rule}");
            assert_eq!(endpoint_row(Status::PartiallySupported, reasons, EndpointAnswer::Contradicted), Row::UndecidedContradicted);
        }
        let topic = Reason {
            facet: "topic".into(),
            detail: String::new(),
            claim_span: None,
            evidence: Vec::new(),
            rule: "number.not_found".into(),
        };
        assert!(!rules_state_conflict(&[topic]));
    }

    #[test]
    fn every_row_keeps_supported_and_contradicted_apart() {
        // No row turns the rules' supported into contradicted or the reverse.
        let all = [
            Row::ConflictUnrelated,
            Row::ConflictStands,
            Row::UndecidedSupported,
            Row::UndecidedContradicted,
            Row::UndecidedDisputed,
            Row::UndecidedStays,
            Row::SupportDisputed,
            Row::SupportStands,
            Row::NotConsulted,
        ];
        for probs in [p(0.99, 0.0, 0.01), p(0.0, 0.99, 0.01), p(0.0, 0.0, 1.0)] {
            assert_ne!(row(Status::Supported, &[probs], &T).status(Status::Supported), Status::Contradicted);
            assert_ne!(row(Status::Contradicted, &[probs], &T).status(Status::Contradicted), Status::Supported);
        }
        assert_eq!(all.iter().map(|r| r.rule()).collect::<std::collections::HashSet<_>>().len(), all.len());
    }
}
