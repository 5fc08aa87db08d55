//! The per-claim stage: local recall, deterministic verification, the gate.
//!
//! A plain synchronous function shape (STYLE.md §5): given a claim, search
//! the wiki, verify against what was found, and gate the claim against the
//! evidence its verdict rests on. Identical claims (normalised text) are
//! assessed once per run and the outcome is fanned out to every message
//! that made them.

use amem_model::{Assessment, Claim, Evidence, GateSummary, Reason, Span, Status};
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

/// The evidence record for a whole retrieved chunk: the verifier picks the
/// sentence it rests on and narrows the quote itself.
fn chunk_evidence(hit: &Hit) -> Evidence {
    let mut e = hit.to_evidence();
    e.quote = hit.text.clone();
    e.span = Span::new(0, hit.text.len());
    e
}

/// Assess one claim text against the local wiki.
///
/// # Errors
/// The index cannot be read.
pub fn assess_text(recall: &dyn Recall, text: &str) -> amem_recall::Result<Outcome> {
    let hits = recall.search(text, RECALL_K)?;
    let evidence: Vec<Evidence> = hits.iter().map(chunk_evidence).collect();
    let v = amem_factcheck::verify::verify(text, &evidence);
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

/// How many distinct claim texts the cache remembers. Past it the cache
/// starts afresh, so memory stays flat on any archive; a repeat after that
/// point is assessed again (same inputs, same outcome), only slower.
pub const CACHE_LIMIT: usize = 50_000;

/// Outcomes already computed in this run, by normalised claim text.
#[derive(Default)]
pub struct OutcomeCache {
    map: HashMap<String, Outcome>,
    /// Claims answered from the cache.
    pub reused: u64,
}

impl OutcomeCache {
    /// The cached outcome for a claim, if its normalised text was seen.
    pub fn get(&mut self, claim: &Claim) -> Option<Outcome> {
        let hit = self.map.get(&claim.normalised_text()).cloned();
        if hit.is_some() {
            self.reused += 1;
        }
        hit
    }

    /// Remember an outcome.
    pub fn put(&mut self, claim: &Claim, outcome: &Outcome) {
        if self.map.len() >= CACHE_LIMIT {
            self.map.clear();
        }
        self.map.insert(claim.normalised_text(), outcome.clone());
    }
}
