//! The per-claim stage: local recall, deterministic verification, the gate.
//!
//! A plain synchronous function shape (STYLE.md §5): given a claim, search
//! the wiki, verify against what was found, and gate the claim against the
//! evidence its verdict rests on. Identical claims (normalised text) are
//! assessed once per run and the outcome is fanned out to every message
//! that made them.

use amem_model::{Assessment, Claim, Evidence, GateSummary, Reason, Status};
use amem_recall::{Hit, Recall};
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

    /// True when fetching from the trust list could change the verdict.
    pub fn wants_grounding(&self) -> bool {
        matches!(self.status, Status::NoEvidence | Status::NotAddressed)
    }
}

/// Assesses claim texts on one thread: recall, verification and the gate.
/// It keeps the verifier's cache of analysed evidence, so the chunks that
/// a message's claims share (they usually retrieve the same notes) are
/// analysed once. One per worker thread.
#[derive(Default)]
pub struct Assessor {
    verifier: amem_factcheck::verify::Verifier,
}

impl Assessor {
    /// A fresh assessor.
    pub fn new() -> Assessor {
        Assessor::default()
    }

    /// Assess one claim text against the local wiki.
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn assess(&mut self, recall: &dyn Recall, text: &str) -> amem_recall::Result<Outcome> {
        // Whole chunks: the verifier picks the sentence it rests on and
        // narrows the quote itself.
        let hits = recall.search_chunks(text, RECALL_K)?;
        let evidence: Vec<Evidence> = hits.iter().map(Hit::to_evidence).collect();
        let v = self.verifier.verify(text, &evidence);
        let cited: Vec<&Evidence> = v.reasons.iter().flat_map(|r| r.evidence.iter()).collect();
        // The gate reads the claim as a memory of the evidence it rests on: a
        // claim flatter than its source (hedge, attribution, condition dropped)
        // is flagged even when the values match.
        let gate = if cited.is_empty() {
            None
        } else {
            let mut source = String::new();
            for e in &cited {
                if !source.contains(e.quote.as_str()) {
                    if !source.is_empty() {
                        source.push(' ');
                    }
                    source.push_str(&e.quote);
                }
            }
            Some(amem_gate::check(&source, text).summary())
        };
        let local_hit = matches!(v.status.group(), amem_model::Group::Supported | amem_model::Group::Contradicted);
        Ok(Outcome { status: v.status, reasons: v.reasons, gate, method: amem_factcheck::verify::METHOD.to_string(), local_hit })
    }
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

/// Outcomes already computed in this run, by the digest of the normalised
/// claim text, shared by the worker threads (a claim one worker assessed is
/// not assessed again by another).
#[derive(Default)]
pub struct OutcomeCache {
    inner: std::sync::Mutex<CacheInner>,
    /// Claims answered from the cache.
    pub reused: std::sync::atomic::AtomicU64,
}

#[derive(Default)]
struct CacheInner {
    map: HashMap<amem_model::Digest, std::sync::Arc<Outcome>>,
    bytes: usize,
}

/// A rough size of an outcome in memory: its strings plus fixed overheads.
fn outcome_bytes(o: &Outcome) -> usize {
    let evidence = |e: &Evidence| {
        96 + e.uri.item.len()
            + e.quote.len()
            + e.captured_at.as_ref().map_or(0, String::len)
            + e.source_url.as_ref().map_or(0, String::len)
            + e.title.as_ref().map_or(0, String::len)
    };
    let reasons: usize =
        o.reasons.iter().map(|r| 96 + r.facet.len() + r.detail.len() + r.rule.len() + r.evidence.iter().map(evidence).sum::<usize>()).sum();
    let gate = o.gate.as_ref().map_or(0, |g| {
        64 + g
            .flags
            .iter()
            .map(|f| 96 + f.check.len() + f.source_sentence.len() + f.cue.len() + f.memory_sentence.len() + f.rule.len())
            .sum::<usize>()
    });
    // The entry itself, its key and the map's slot.
    160 + o.method.len() + reasons + gate
}

impl OutcomeCache {
    /// The cached outcome for a claim, if its normalised text was seen.
    pub fn get(&self, claim: &Claim) -> Option<Outcome> {
        let key = amem_model::Digest::of(claim.normalised_text().as_bytes());
        let hit = self.inner.lock().ok()?.map.get(&key).cloned();
        if hit.is_some() {
            self.reused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        hit.map(|o| (*o).clone())
    }

    /// Remember an outcome.
    pub fn put(&self, claim: &Claim, outcome: &Outcome) {
        let key = amem_model::Digest::of(claim.normalised_text().as_bytes());
        let size = outcome_bytes(outcome);
        let Ok(mut inner) = self.inner.lock() else { return };
        if inner.bytes + size > CACHE_BYTES {
            inner.map = HashMap::new();
            inner.bytes = 0;
        }
        if inner.map.insert(key, std::sync::Arc::new(outcome.clone())).is_none() {
            inner.bytes += size;
        }
    }

    /// Bytes held now (estimated).
    pub fn bytes(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_model::{ClaimKind, Digest, MessageId, Span};

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
        }
    }

    #[test]
    fn cache_is_shared_keyed_on_normalised_text_and_bounded_in_bytes() {
        let cache = OutcomeCache::default();
        let a = claim("The plant makes 40 MW.");
        assert_eq!(cache.get(&a), None);
        cache.put(&a, &outcome("x"));
        // Same normalised text from another message or thread: reused.
        assert_eq!(cache.get(&claim("the plant  makes 40 mw")), Some(outcome("x")));
        assert_eq!(cache.get(&a), Some(outcome("x")));
        // Filling past the byte budget starts afresh: memory never exceeds it.
        let big = "y".repeat(1 << 20);
        for i in 0..40 {
            cache.put(&claim(&format!("claim number {i}")), &outcome(&big));
            assert!(cache.bytes() <= CACHE_BYTES);
        }
        assert_eq!(cache.get(&a), None, "evicted when the budget was reached");
        assert!(cache.reused.load(std::sync::atomic::Ordering::Relaxed) >= 1);
    }
}
