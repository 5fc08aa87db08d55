//! The per-claim stage: local recall, deterministic verification, the gate.
//!
//! A plain synchronous function shape (STYLE.md §5): given a claim, search
//! the wiki, verify against what was found, and gate the claim against the
//! evidence its verdict rests on. Identical claims are assessed once per
//! run and the outcome is fanned out to every message that made them.
//! "Identical" is the exact text, not the normalised one (case, spacing and
//! trailing punctuation folded): an outcome's reasons cite spans of the
//! claim text and the verifier reads names by their case, so reusing the
//! outcome of "The plant makes 40 MW." for "the plant  makes 40 MW" would
//! cite characters that are not there, and which of the two variants was
//! assessed first (the workers race) would decide the report.

use amem_recall::{Hit, Recall};
use amem_records::{Assessment, Claim, Evidence, GateSummary, Reason, Status};
use amem_verify::Rarity;
use std::collections::HashMap;

/// Appended to the method of a verdict made after the trust list was asked
/// (what it returned was captured into the wiki, then verified locally).
pub const TRUST_LIST_SUFFIX: &str = "+trust-list";

/// How many chunks recall hands the verifier per claim.
pub const RECALL_K: usize = 5;

/// The verdict for one claim text, before it is attached to a claim id.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The status.
    pub status: Status,
    /// Reasons, citing evidence spans.
    pub reasons: Vec<Reason>,
    /// The gate on the claim against the evidence the verdict rests on.
    pub gate: Option<GateSummary>,
    /// The method that produced it.
    pub method: String,
    /// True when the local wiki held evidence the verdict rests on.
    pub local_hit: bool,
    /// When a model behind an endpoint answered (`[[models]]`, crate `amem-endpoint`): the
    /// verdict the rules (and the in-process model) gave before it. This outcome is then the
    /// endpoint's (method `llm:<model>@<prompt>`), and the ledger records the rules' verdict
    /// as an assessment of its own just before it ([`Outcome::into_assessments`]): never
    /// overwritten, and the latest (the reported one) is the table's.
    pub rules: Option<Box<RulesVerdict>>,
}

/// The rules' verdict on a claim an endpoint then answered about ([`Outcome::rules`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RulesVerdict {
    /// The status.
    pub status: Status,
    /// Reasons, citing evidence spans.
    pub reasons: Vec<Reason>,
    /// The gate on the claim against the evidence the verdict rests on.
    pub gate: Option<GateSummary>,
    /// The method (`deterministic@N`, with `+model:verifier@M` when the in-process model read it).
    pub method: String,
}

impl Outcome {
    /// The assessment of `claim` this outcome gives, at `at` under `policy`.
    pub fn to_assessment(&self, claim: &Claim, at: &str, policy: &str) -> Assessment {
        Assessment {
            claim: claim.id,
            status: self.status,
            method: self.method.clone(),
            reasons: self.reasons.clone(),
            gate: self.gate.clone(),
            assessed_at: at.to_string(),
            policy_version: policy.to_string(),
        }
    }

    /// [`Outcome::to_assessment`], taking the outcome apart instead of copying it.
    pub fn into_assessment(self, claim: &Claim, at: &str, policy: &str) -> Assessment {
        Assessment {
            claim: claim.id,
            status: self.status,
            method: self.method,
            reasons: self.reasons,
            gate: self.gate,
            assessed_at: at.to_string(),
            policy_version: policy.to_string(),
        }
    }

    /// Every assessment this outcome gives `claim`, in the order the ledger records them: the
    /// rules' verdict when an endpoint answered after it ([`Outcome::rules`]), then the reported one.
    pub fn into_assessments(mut self, claim: &Claim, at: &str, policy: &str) -> Vec<Assessment> {
        let mut out = Vec::with_capacity(2);
        if let Some(r) = self.rules.take() {
            let r = *r;
            out.push(Assessment {
                claim: claim.id,
                status: r.status,
                method: r.method,
                reasons: r.reasons,
                gate: r.gate,
                assessed_at: at.to_string(),
                policy_version: policy.to_string(),
            });
        }
        out.push(self.into_assessment(claim, at, policy));
        out
    }

    /// True when fetching from the trust list could change the verdict.
    pub fn wants_grounding(&self) -> bool {
        matches!(self.status, Status::NoEvidence | Status::NotAddressed | Status::SourceUnavailable)
    }

    /// The outcome after the trust list was consulted: when a source could
    /// not be asked (`unavailable`, its reason) and the local path still
    /// found nothing, the status says so. "No evidence" would claim a
    /// search that did not happen.
    pub fn after_grounding(&mut self, unavailable: Option<&Reason>) {
        if let Some(r) = unavailable {
            if !self.reasons.contains(r) {
                self.reasons.push(r.clone());
            }
            if matches!(self.status, Status::NoEvidence | Status::SourceUnavailable) {
                self.status = Status::SourceUnavailable;
            }
        }
    }
}

/// Assesses claim texts on one thread: recall, verification and the gate.
/// It keeps the verifier's cache of analysed evidence, so the chunks that
/// a message's claims share (they usually retrieve the same notes) are
/// analysed once. One per worker thread.
#[derive(Default)]
pub struct Assessor {
    verifier: amem_verify::Verifier,
    /// The learned verifier, combined with the rules by [`crate::combine`]; `None`: the
    /// rules alone (`--no-models`).
    model: Option<&'static amem_models::Verifier>,
    /// The verifier role of a model behind an endpoint (`[[models]]`), asked after the rules
    /// about what they left undecided on topic; `None`: none configured.
    endpoint: Option<std::sync::Arc<amem_endpoint::EndpointVerifier>>,
    /// The gate's model roles (witness, added content) behind an endpoint, second readers of
    /// the claim against the evidence it cites; `None`: the word lists alone.
    gate_roles: Option<std::sync::Arc<amem_endpoint::EndpointGate>>,
    /// The verifier was given a rarity table (it keeps the last one given).
    weighted: bool,
    /// The last verdict could depend on the claim's writing day.
    read_day: bool,
}

impl Assessor {
    /// A fresh assessor on the rules alone.
    pub fn new() -> Assessor {
        Assessor::default()
    }

    /// A fresh assessor combining the rules with `model` when given ([`crate::combine`]).
    pub fn with_model(model: Option<&'static amem_models::Verifier>) -> Assessor {
        Assessor { model, ..Assessor::default() }
    }

    /// This assessor, asking `endpoint` about what the rules leave undecided on topic.
    pub fn with_endpoint(mut self, endpoint: Option<std::sync::Arc<amem_endpoint::EndpointVerifier>>) -> Assessor {
        self.endpoint = endpoint;
        self
    }

    /// This assessor, gating each claim with `roles` as second readers (they can only add
    /// findings).
    pub fn with_gate_roles(mut self, roles: Option<std::sync::Arc<amem_endpoint::EndpointGate>>) -> Assessor {
        self.gate_roles = roles;
        self
    }

    /// The gate's second readers, when configured.
    fn gate_models(&self) -> amem_gate::GateModels<'_> {
        self.gate_roles.as_deref().map(amem_endpoint::EndpointGate::models).unwrap_or_default()
    }

    /// True when the last outcome could depend on the day its claim was
    /// written (the verification's [`amem_verify::Verification::reads_writing_day`]):
    /// remembered by text, it holds for that day only.
    pub fn last_read_writing_day(&self) -> bool {
        self.read_day
    }

    /// The counters of the verifier's cache of analysed evidence.
    pub fn evidence_cache(&self) -> amem_verify::CacheStats {
        self.verifier.stats()
    }

    /// Assess one claim text against the local wiki, its writing day unknown.
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn assess(&mut self, recall: &dyn Recall, text: &str) -> amem_recall::Result<Outcome> {
        self.assess_at(recall, text, None)
    }

    /// Assess one claim text, written at `sent_at` (RFC 3339, the message's
    /// time), against the local wiki: its words weighed by how rare they are
    /// in the wiki's chunks (the index's document frequencies), a time
    /// relative to its writing anchored to that day, and a claim about its
    /// present `stale` against evidence written a year or more away.
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn assess_at(&mut self, recall: &dyn Recall, text: &str, sent_at: Option<&str>) -> amem_recall::Result<Outcome> {
        Ok(self.assess_weighing(recall, text, sent_at, RECALL_K)?.0)
    }

    /// [`Assessor::assess_weighing`] with the chunks of the `except` items
    /// left out (earlier revisions of a document fetched again).
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn assess_weighing_except(
        &mut self,
        recall: &dyn Recall,
        text: &str,
        sent_at: Option<&str>,
        k: usize,
        except: &[&str],
    ) -> amem_recall::Result<(Outcome, Vec<Evidence>)> {
        // Whole chunks: the verifier picks the sentence it rests on and
        // narrows the quote itself. The rarity of the claim's words comes
        // from the same read of the index as the search (most of them are
        // the query's own terms, looked up once).
        let words = amem_text::words::words(text);
        let weighed = content_words(&words);
        let (hits, df) = recall.search_chunks_weighing(text, k + except.len() * 4, &weighed)?;
        let evidence: Vec<Evidence> = hits.iter().filter(|h| !except.contains(&h.item.0.as_str())).take(k).map(Hit::to_evidence).collect();
        let rarity = df.map(|df| rarity_from(&weighed, &df));
        let outcome = self.assess_read(text, words, sent_at, &evidence, rarity);
        Ok((outcome, evidence))
    }

    /// [`Assessor::assess_at`] over the `k` best chunks, with the evidence
    /// it weighed (what `amem factcheck` shows when nothing is cited).
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn assess_weighing(
        &mut self,
        recall: &dyn Recall,
        text: &str,
        sent_at: Option<&str>,
        k: usize,
    ) -> amem_recall::Result<(Outcome, Vec<Evidence>)> {
        self.assess_weighing_except(recall, text, sent_at, k, &[])
    }

    /// Assess one claim text against the evidence given: the verifier's
    /// verdict, then the gate on the claim against the evidence the verdict
    /// rests on. The audit calls it on what recall found ([`Assessor::assess`]);
    /// `amem factcheck` on what it weighed (recall and the trust list), so the
    /// two read a claim the same way.
    pub fn assess_evidence(&mut self, text: &str, evidence: &[Evidence]) -> Outcome {
        self.assess_evidence_with(text, None, evidence, None)
    }

    /// [`Assessor::assess_evidence`] with the claim's writing time and the
    /// rarity of its words (`None`: every word weighs the same).
    pub fn assess_evidence_with(
        &mut self,
        text: &str,
        sent_at: Option<&str>,
        evidence: &[Evidence],
        rarity: Option<std::sync::Arc<Rarity>>,
    ) -> Outcome {
        self.assess_read(text, amem_text::words::words(text), sent_at, evidence, rarity)
    }

    /// [`Assessor::assess_evidence_with`] on the claim's words as already read
    /// (`amem_text::words::words(text)`): the verifier reads them as they are.
    fn assess_read(
        &mut self,
        text: &str,
        words: Vec<amem_text::words::Word>,
        sent_at: Option<&str>,
        evidence: &[Evidence],
        rarity: Option<std::sync::Arc<Rarity>>,
    ) -> Outcome {
        match rarity {
            Some(r) => {
                self.verifier = std::mem::take(&mut self.verifier).with_rarity(r);
                self.weighted = true;
            }
            // The verifier keeps the table it was given: only a new one forgets it.
            None if self.weighted => {
                self.verifier = amem_verify::Verifier::new();
                self.weighted = false;
            }
            None => {}
        }
        let v = self.verifier.verify_words_at(text, words, sent_at, evidence);
        self.read_day = v.reads_writing_day;
        let v = match self.model {
            Some(model) => amem_verify::combine::combine(model, text, v.status, v.reasons, evidence),
            None => amem_verify::combine::Combined {
                status: v.status,
                reasons: v.reasons,
                method: amem_verify::METHOD.to_string(),
                row: amem_verify::combine::Row::NotConsulted,
            },
        };
        let gate = gate_on(text, &v.reasons, self.gate_models());
        let local_hit = matches!(v.status.group(), amem_records::Group::Supported | amem_records::Group::Contradicted);
        let outcome = Outcome { status: v.status, reasons: v.reasons, gate, method: v.method, local_hit, rules: None };
        match &self.endpoint {
            Some(endpoint) => consult_endpoint(endpoint, text, evidence, outcome, self.gate_models()),
            None => outcome,
        }
    }
}

/// The gate on `text` read as a memory of the evidence `reasons` cite: a claim flatter than
/// its source (hedge, attribution, condition dropped) is flagged even when the values match.
fn gate_on(text: &str, reasons: &[Reason], models: amem_gate::GateModels<'_>) -> Option<GateSummary> {
    let mut source = String::new();
    for e in reasons.iter().flat_map(|r| r.evidence.iter()) {
        if !source.contains(e.quote.as_str()) {
            if !source.is_empty() {
                source.push(' ');
            }
            source.push_str(&e.quote);
        }
    }
    (!source.is_empty()).then(|| amem_gate::check_with(&source, text, models).summary())
}

/// Ask the endpoint about `text` when the rules left it undecided on topic: a checked answer
/// becomes the reported outcome by the combination table, the rules' verdict kept beside it
/// ([`Outcome::rules`]); no usable answer leaves the rules' verdict with a reason saying so.
fn consult_endpoint(
    endpoint: &amem_endpoint::EndpointVerifier,
    text: &str,
    evidence: &[Evidence],
    mut rules: Outcome,
    models: amem_gate::GateModels<'_>,
) -> Outcome {
    match endpoint.judge(text, rules.status, &rules.reasons, evidence) {
        None => rules,
        Some(amem_endpoint::Judgement::Failed { reason }) => {
            rules.reasons.push(reason);
            rules
        }
        Some(amem_endpoint::Judgement::Answered { row, reason, .. }) => {
            let status = row.status(rules.status);
            let mut reasons = rules.reasons.clone();
            reasons.push(reason);
            let gate = gate_on(text, &reasons, models);
            let local_hit = matches!(status.group(), amem_records::Group::Supported | amem_records::Group::Contradicted);
            let before = RulesVerdict { status: rules.status, reasons: rules.reasons, gate: rules.gate, method: rules.method };
            Outcome { status, reasons, gate, method: endpoint.method().to_string(), local_hit, rules: Some(Box::new(before)) }
        }
    }
}

/// How rare the claim's content words are in the wiki, from the recall
/// index's document frequencies (chunks holding each word): the table the
/// verifier weighs the claim's words with. `None` when recall does not know.
///
/// # Errors
/// The index cannot be read.
pub fn rarity_of(recall: &dyn Recall, text: &str) -> amem_recall::Result<Option<std::sync::Arc<Rarity>>> {
    let words = amem_text::words::words(text);
    let lower = content_words(&words);
    Ok(recall.document_frequencies(&lower)?.map(|df| rarity_from(&lower, &df)))
}

/// The words whose rarity the verifier weighs: the content words,
/// lowercased, sorted and distinct.
fn content_words(words: &[amem_text::words::Word]) -> Vec<&str> {
    let mut lower: Vec<&str> = words.iter().filter(|w| !w.stop).map(|w| w.lower.as_str()).collect();
    lower.sort_unstable();
    lower.dedup();
    lower
}

/// The rarity table of `lower` ([`content_words`]) from their document
/// frequencies.
fn rarity_from(lower: &[&str], df: &amem_recall::DocumentFrequencies) -> std::sync::Arc<Rarity> {
    let counts = lower.iter().zip(&df.counts).map(|(w, &n)| ((*w).to_string(), n));
    std::sync::Arc::new(Rarity::from_counts(df.documents, counts))
}

/// Assess one claim text against the local wiki, with a fresh [`Assessor`].
///
/// # Errors
/// The index cannot be read.
pub fn assess_text(recall: &dyn Recall, text: &str) -> amem_recall::Result<Outcome> {
    Assessor::new().assess(recall, text)
}

/// How many bytes of outcomes the run's cache holds (estimated from their
/// text). Past it the cache starts afresh, so memory stays flat on any
/// archive; a repeat after that point is assessed again (same inputs, same
/// outcome), only slower. Bounding entries instead (50,000 per worker, the
/// first version) let the cache grow with how much evidence each outcome
/// quotes: about 100 MB of the audit's peak RSS on the Enron bench.
pub const CACHE_BYTES: usize = 32 << 20;

/// How many claim texts the run remembers as assessed after their outcomes
/// have left the byte-bounded cache: the digest of the claim text (first
/// 16 bytes) and the claim whose assessment the ledger holds (its message
/// digest and id), 80 bytes an entry, about 21 MB at most with the map's
/// slack. Past it the memory starts afresh, as the outcome cache does.
pub const EARLIER_MAX: usize = 200_000;

/// Outcomes already computed in this run, by the digest of the claim text,
/// shared by the worker threads (a claim one worker assessed is not
/// assessed again by another).
///
/// Two levels, so that "assessed once per run" holds far beyond what fits
/// in memory: whole outcomes for the most recent texts (bounded at
/// [`CACHE_BYTES`]), and for up to [`EARLIER_MAX`] texts only which claim
/// carried them, whose assessment the caller reads back from the ledger
/// ([`Lookup::Earlier`]). On the 10x Enron bench, where every mail comes
/// back 11,238 messages later, the outcomes alone (about 120 MB per pass)
/// were long evicted by then.
pub struct OutcomeCache {
    inner: std::sync::Mutex<CacheInner>,
    /// Claims answered from the cache.
    pub reused: std::sync::atomic::AtomicU64,
    cache_bytes: usize,
    earlier_max: usize,
}

impl Default for OutcomeCache {
    fn default() -> Self {
        OutcomeCache {
            inner: std::sync::Mutex::default(),
            reused: std::sync::atomic::AtomicU64::new(0),
            cache_bytes: CACHE_BYTES,
            earlier_max: EARLIER_MAX,
        }
    }
}

#[derive(Default)]
struct CacheInner {
    map: HashMap<amem_records::Digest, Slot>,
    bytes: usize,
    earlier: HashMap<u128, EarlierSlot>,
}

/// What the cache holds under a key.
enum Slot {
    /// The outcome of the text (or of the text on one day).
    Outcome(std::sync::Arc<Outcome>),
    /// The text's verdict can depend on the day it was written
    /// ([`amem_verify::reads_writing_day`]): look under the text and the day.
    ByDay,
}

/// What the cache remembers of a key once its outcome has left memory.
#[derive(Clone, Copy)]
enum EarlierSlot {
    Claim(EarlierClaim),
    ByDay,
}

/// The claim that carried a text assessed earlier in the run: where its
/// assessment is in the ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EarlierClaim {
    /// The message it was made in.
    pub message_digest: amem_records::Digest,
    /// Its id.
    pub claim: amem_records::ClaimId,
}

/// What [`OutcomeCache::lookup`] knows about a claim text.
#[derive(Debug, PartialEq)]
pub enum Lookup {
    /// Assessed in this run, outcome at hand.
    Outcome(Outcome),
    /// Assessed in this run as this claim: its assessment is in the ledger
    /// once its batch is written (until then, assess it again: same inputs,
    /// same outcome).
    Earlier(EarlierClaim),
    /// Not seen in this run (or forgotten).
    Miss,
}

impl Outcome {
    /// The outcome an assessment recorded: what [`OutcomeCache`] gives back
    /// for a claim text assessed earlier in the run. A verdict that needed
    /// the trust list (its method ends in [`TRUST_LIST_SUFFIX`]) was not a
    /// local hit, as the run's summary counts it.
    pub fn from_assessment(a: Assessment) -> Outcome {
        let local_hit = !a.method.ends_with(TRUST_LIST_SUFFIX)
            && matches!(a.status.group(), amem_records::Group::Supported | amem_records::Group::Contradicted);
        Outcome { status: a.status, reasons: a.reasons, gate: a.gate, method: a.method, local_hit, rules: None }
    }
}

fn cache_key(claim: &Claim) -> amem_records::Digest {
    amem_records::Digest::of(claim.text.as_bytes())
}

/// The key of a claim text on one writing day (`YYYY-MM-DD`).
fn day_key(claim: &Claim, day: &str) -> amem_records::Digest {
    let mut bytes = Vec::with_capacity(claim.text.len() + 1 + day.len());
    bytes.extend_from_slice(claim.text.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(day.as_bytes());
    amem_records::Digest::of(&bytes)
}

fn short_key(d: &amem_records::Digest) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(&d.0[..16]);
    u128::from_le_bytes(b)
}

/// A rough size of an outcome in memory: its strings plus fixed overheads.
fn outcome_bytes(o: &Outcome) -> usize {
    let evidence = |e: &Evidence| {
        96 + e.uri.item.len()
            + e.quote.len()
            + e.captured_at.as_ref().map_or(0, String::len)
            + e.written_at.as_ref().map_or(0, String::len)
            + e.source_url.as_ref().map_or(0, String::len)
            + e.title.as_ref().map_or(0, String::len)
    };
    let reasons = |rs: &[Reason]| -> usize {
        rs.iter().map(|r| 96 + r.facet.len() + r.detail.len() + r.rule.len() + r.evidence.iter().map(evidence).sum::<usize>()).sum()
    };
    let gate = |g: &Option<GateSummary>| {
        g.as_ref().map_or(0, |g| {
            64 + g
                .flags
                .iter()
                .map(|f| 96 + f.check.len() + f.source_sentence.len() + f.cue.len() + f.memory_sentence.len() + f.rule.len())
                .sum::<usize>()
        })
    };
    let rules = o.rules.as_ref().map_or(0, |r| 64 + r.method.len() + reasons(&r.reasons) + gate(&r.gate));
    // The entry itself, its key and the map's slot.
    160 + o.method.len() + reasons(&o.reasons) + gate(&o.gate) + rules
}

impl OutcomeCache {
    /// A cache with other bounds than [`CACHE_BYTES`] and [`EARLIER_MAX`].
    pub fn with_limits(cache_bytes: usize, earlier_max: usize) -> OutcomeCache {
        OutcomeCache { cache_bytes, earlier_max, ..OutcomeCache::default() }
    }

    /// The cached outcome for a claim written on `day` (`YYYY-MM-DD`), if its
    /// text was seen (on that day, when its verdict depends on the day) and
    /// the outcome is still in memory.
    pub fn get(&self, claim: &Claim, day: &str) -> Option<Outcome> {
        match self.lookup(claim, day) {
            Lookup::Outcome(o) => Some(o),
            Lookup::Earlier(_) | Lookup::Miss => None,
        }
    }

    /// What the run knows about a claim's text written on `day`: its
    /// outcome, the claim whose recorded assessment holds it, or nothing. A
    /// text whose verdict can depend on its writing day is known per day.
    pub fn lookup(&self, claim: &Claim, day: &str) -> Lookup {
        let plain = cache_key(claim);
        let Ok(inner) = self.inner.lock() else { return Lookup::Miss };
        let by_day =
            matches!(inner.map.get(&plain), Some(Slot::ByDay)) || matches!(inner.earlier.get(&short_key(&plain)), Some(EarlierSlot::ByDay));
        let key = if by_day { day_key(claim, day) } else { plain };
        if let Some(Slot::Outcome(o)) = inner.map.get(&key) {
            let o = std::sync::Arc::clone(o);
            drop(inner);
            self.reused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Lookup::Outcome((*o).clone());
        }
        match inner.earlier.get(&short_key(&key)) {
            // The claim itself (a restarted run reading back its own row)
            // or another one with the same text (on the same day).
            Some(&EarlierSlot::Claim(id)) => Lookup::Earlier(id),
            Some(EarlierSlot::ByDay) | None => Lookup::Miss,
        }
    }

    /// Count a claim answered from the ledger through [`Lookup::Earlier`].
    pub fn count_reuse(&self) {
        self.reused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Remember an outcome of a claim written on `day`, and that `claim`
    /// carries it; `by_day` when the verdict could depend on that day
    /// ([`Assessor::last_read_writing_day`]): it is then remembered for that
    /// day only.
    pub fn put(&self, claim: &Claim, day: &str, outcome: &Outcome, by_day: bool) {
        let plain = cache_key(claim);
        let size = outcome_bytes(outcome);
        let Ok(mut inner) = self.inner.lock() else { return };
        if inner.bytes + size > self.cache_bytes {
            inner.map = HashMap::new();
            inner.bytes = 0;
        }
        if inner.earlier.len() >= self.earlier_max {
            inner.earlier = HashMap::new();
        }
        let key = if by_day {
            if inner.map.insert(plain, Slot::ByDay).is_none() {
                inner.bytes += 96;
            }
            inner.earlier.insert(short_key(&plain), EarlierSlot::ByDay);
            day_key(claim, day)
        } else {
            plain
        };
        if inner.map.insert(key, Slot::Outcome(std::sync::Arc::new(outcome.clone()))).is_none() {
            inner.bytes += size;
        }
        inner
            .earlier
            .entry(short_key(&key))
            .or_insert(EarlierSlot::Claim(EarlierClaim { message_digest: claim.message_digest, claim: claim.id }));
    }

    /// Bytes held now (estimated).
    pub fn bytes(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_records::{ClaimKind, Digest, MessageId, Span};

    const DAY: &str = "2001-05-01";

    fn claim(text: &str) -> Claim {
        let message_digest = Digest::of(b"m");
        let span = Span::new(0, text.len());
        Claim {
            id: Claim::id_for(&message_digest, span, text),
            message: MessageId("m".into()),
            message_digest,
            span,
            text: text.into(),
            kind: ClaimKind::Fact,
            cues: vec![],
            extractor: "test".into(),
        }
    }

    fn outcome(detail: &str) -> Outcome {
        Outcome {
            status: Status::NoEvidence,
            reasons: vec![Reason { facet: "topic".into(), detail: detail.into(), claim_span: None, evidence: vec![], rule: "r".into() }],
            gate: None,
            method: "m".into(),
            local_hit: false,
            rules: None,
        }
    }

    /// The same text in another message: another claim id.
    fn claim_in(message: &[u8], text: &str) -> Claim {
        let message_digest = Digest::of(message);
        let span = Span::new(0, text.len());
        Claim { id: Claim::id_for(&message_digest, span, text), message_digest, ..claim(text) }
    }

    #[test]
    fn cache_is_shared_keyed_on_exact_text_and_bounded_in_bytes() {
        let cache = OutcomeCache::default();
        let a = claim("The plant makes 40 MW.");
        assert_eq!(cache.get(&a, DAY), None);
        cache.put(&a, DAY, &outcome("x"), false);
        // The same text from another message or thread: reused.
        let again = claim_in(b"other message", "The plant makes 40 MW.");
        assert_ne!(again.id, a.id);
        assert_eq!(cache.get(&again, DAY), Some(outcome("x")));
        assert_eq!(cache.get(&a, DAY), Some(outcome("x")));
        // Only the same text: another case, spacing or final stop is
        // assessed on its own (the outcome's spans cite the exact text).
        for variant in ["the plant makes 40 mw", "The plant  makes 40 MW.", "The plant makes 40 MW"] {
            assert_eq!(cache.lookup(&claim(variant), DAY), Lookup::Miss, "{variant:?}");
        }
        // Filling past the byte budget starts afresh: memory never exceeds it.
        let big = "y".repeat(1 << 20);
        for i in 0..40 {
            cache.put(&claim(&format!("claim number {i}")), DAY, &outcome(&big), false);
            assert!(cache.bytes() <= CACHE_BYTES);
        }
        assert_eq!(cache.get(&a, DAY), None, "evicted when the budget was reached");
        assert!(cache.reused.load(std::sync::atomic::Ordering::Relaxed) >= 1);
        // Its text is still known as assessed, by the claim that carried it.
        assert_eq!(cache.lookup(&again, DAY), Lookup::Earlier(EarlierClaim { message_digest: a.message_digest, claim: a.id }));
        assert_eq!(cache.lookup(&claim("The plant makes 41 MW."), DAY), Lookup::Miss);
    }

    /// Issue 13: a text whose verdict can depend on its writing day is
    /// remembered per day (a "currently" claim of 2001 and of 2020 are two
    /// verdicts), in memory and as an earlier claim; other texts once.
    #[test]
    fn a_text_read_against_its_writing_day_is_remembered_per_day() {
        let cache = OutcomeCache::with_limits(CACHE_BYTES, EARLIER_MAX);
        let now = claim("The plant currently makes 40 MW.");
        cache.put(&now, DAY, &outcome("2001"), true);
        assert_eq!(cache.get(&now, DAY), Some(outcome("2001")));
        assert_eq!(cache.lookup(&now, "2020-01-01"), Lookup::Miss, "another day is assessed afresh");
        cache.put(&now, "2020-01-01", &outcome("2020"), true);
        assert_eq!(cache.get(&now, "2020-01-01"), Some(outcome("2020")));
        assert_eq!(cache.get(&now, DAY), Some(outcome("2001")));
        // Out of memory, each day still knows which claim carried it.
        let evicting = OutcomeCache::with_limits(0, EARLIER_MAX);
        evicting.put(&now, DAY, &outcome("2001"), true);
        evicting.put(&claim("Something else."), DAY, &outcome("y"), false);
        let later = claim_in(b"a later message", "The plant currently makes 40 MW.");
        assert_eq!(evicting.lookup(&later, DAY), Lookup::Earlier(EarlierClaim { message_digest: now.message_digest, claim: now.id }));
        assert_eq!(evicting.lookup(&later, "2020-01-01"), Lookup::Miss);
        // A text that does not read its day is one entry for every day.
        let flat = claim("The plant makes 40 MW.");
        cache.put(&flat, DAY, &outcome("any"), false);
        assert_eq!(cache.get(&flat, "2020-01-01"), Some(outcome("any")));
    }

    #[test]
    fn earlier_texts_are_bounded_in_number() {
        let cache = OutcomeCache::with_limits(CACHE_BYTES, 1000);
        let first = claim("claim 0");
        for i in 0..1001 {
            cache.put(&claim(&format!("claim {i}")), DAY, &outcome("x"), false);
            assert!(cache.inner.lock().unwrap().earlier.len() <= 1000);
        }
        let inner = cache.inner.lock().unwrap();
        // The memory started afresh: the first text is forgotten, the last kept.
        assert!(!inner.earlier.contains_key(&short_key(&cache_key(&first))));
        assert!(inner.earlier.contains_key(&short_key(&cache_key(&claim("claim 1000")))));
    }

    #[test]
    fn outcome_from_assessment_keeps_the_verdict_and_counts_local_hits() {
        let c = claim("The plant makes 40 MW.");
        let mut o = outcome("x");
        o.status = Status::Supported;
        o.local_hit = true;
        let back = Outcome::from_assessment(o.to_assessment(&c, "2030-01-01T00:00:00Z", "p"));
        assert_eq!(back, o);
        o.method.push_str(TRUST_LIST_SUFFIX);
        assert!(!Outcome::from_assessment(o.to_assessment(&c, "t", "p")).local_hit, "grounded by the trust list");
        let miss = outcome("y");
        assert!(!Outcome::from_assessment(miss.to_assessment(&c, "t", "p")).local_hit);
    }

    /// Issue 16: a claim whose trust-list source could not be asked is
    /// `source_unavailable`, never `no_evidence`; a local verdict stands.
    #[test]
    fn r16_unavailable_source_is_never_no_evidence() {
        let why = Reason {
            facet: "source".into(),
            detail: "trust-list source unavailable: arxiv: 127.0.0.1:9: circuit open".into(),
            claim_span: None,
            evidence: vec![],
            rule: "factcheck.source_unavailable".into(),
        };
        let mut o = outcome("nothing local");
        o.after_grounding(Some(&why));
        assert_eq!(o.status, Status::SourceUnavailable);
        assert_eq!(o.reasons.iter().filter(|r| **r == why).count(), 1);
        o.after_grounding(Some(&why));
        assert_eq!(o.reasons.iter().filter(|r| **r == why).count(), 1, "the reason is kept once");
        assert!(o.wants_grounding(), "a later run asks again");
        let mut related = outcome("topically related");
        related.status = Status::NotAddressed;
        related.after_grounding(Some(&why));
        assert_eq!(related.status, Status::NotAddressed, "local evidence was found: its verdict stands, with the reason");
        assert!(related.reasons.contains(&why));
        let mut searched = outcome("searched, nothing");
        searched.after_grounding(None);
        assert_eq!(searched.status, Status::NoEvidence);
    }
}
