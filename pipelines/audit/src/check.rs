//! One claim checked on demand: `amem factcheck`, the MCP tool
//! `amem_factcheck` and the browser bridge's `POST /factcheck` all call
//! [`check_claim`], and it decides the claim on the audit's own path, so the
//! three never disagree with each other nor with the audit on the same home:
//! the wiki's best chunks weighed by how rare the claim's words are
//! ([`Assessor::assess_weighing`]); on a local miss the trust list
//! ([`amem_grounding::Grounder`], given by the caller as a function so that
//! each caller runs it on its own runtime); then, what was fetched being in
//! the wiki now, the same local path decides again, its method suffixed
//! [`crate::assess::TRUST_LIST_SUFFIX`] as in the audit.
//!
//! The answer is the JSON object `amem factcheck --format json` prints, in the
//! RFC shape `{verdict, status, evidence: [{source_uri, snippet, captured_at,
//! similarity}], amem_uri}` plus `claim`, `method`, `reasons` (`facet`, `rule`,
//! `detail`, `claim_span`), `gate` and `grounding` (see the CLI's
//! `cmd/factcheck.rs` for each field).

use crate::assess::{Assessor, Outcome, TRUST_LIST_SUFFIX};
use crate::capture::RecallStore;
use amem_grounding::GroundOutcome;
use amem_records::{Evidence, Reason};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// How [`check_claim`] reads one claim.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// How many wiki chunks to weigh (the audit weighs [`crate::assess::RECALL_K`]).
    pub k: usize,
    /// Ask the trust list even when the wiki already settles the claim.
    pub refresh: bool,
    /// The trust list was configured offline (what its outcome is called).
    pub offline: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions { k: crate::assess::RECALL_K, refresh: false, offline: false }
    }
}

/// A step of a check, for a caller that shows progress (an MCP client's
/// progress notifications): `(step, total, message)`.
pub type ProgressFn<'a> = dyn FnMut(u32, u32, &str) + 'a;

/// What [`check_claim`] found.
#[derive(Debug)]
pub struct Checked {
    /// The answer object (module docs).
    pub answer: Value,
    /// What the user should hear beside it: a source that could not be
    /// asked, a captured document that changed since an earlier capture.
    pub warnings: Vec<String>,
}

/// Decide `claim` (module docs). `ground` asks the trust list; `None` when it
/// is disabled (no sources, or not configured).
///
/// # Errors
/// The wiki's index cannot be read.
pub fn check_claim(
    store: &RecallStore,
    ground: Option<&mut dyn FnMut(&str) -> GroundOutcome>,
    assessor: &mut Assessor,
    claim: &str,
    opts: CheckOptions,
    progress: &mut ProgressFn<'_>,
) -> amem_recall::Result<Checked> {
    let k = opts.k.max(1);
    let total = 3;
    progress(0, total, "searching the wiki");
    let (mut outcome, mut weighed) = store.with_wiki(|w| assessor.assess_weighing(w, claim, None, k))?;
    let mut grounding = json!({"outcome": "local", "searched": [], "unavailable": [], "stale": [], "requests": 0});
    let mut warnings = Vec::new();
    if opts.refresh || outcome.wants_grounding() {
        let found = match ground {
            Some(ground) => {
                progress(1, total, "asking the trust list");
                Some(ground(claim))
            }
            None => None,
        };
        grounding = describe(found.as_ref(), opts.offline);
        if let Some(found) = &found {
            // As the audit's regrade stage: what was fetched is in the wiki
            // now, and the same local path decides.
            let mut unavailable = None;
            match found {
                GroundOutcome::Captured { stale, failures, .. } => {
                    for s in stale {
                        warnings.push(format!(
                            "{} changed since it was captured: assessments citing amem://{} are stale (new revision amem://{})",
                            s.source_url, s.old_item, s.new_item
                        ));
                    }
                    for f in failures {
                        warnings.push(format!("source {} unavailable: {}", f.source, f.reason));
                    }
                    progress(2, total, "deciding on what was captured");
                    // An earlier revision of a re-fetched document is no longer evidence.
                    let replaced: Vec<&str> = stale.iter().map(|s| s.old_item.as_str()).collect();
                    let (again, evidence) = store.with_wiki(|w| assessor.assess_weighing_except(w, claim, None, k, &replaced))?;
                    let before = std::mem::replace(&mut outcome, again);
                    outcome.reasons.extend(before.reasons.into_iter().filter(|r| r.facet == "source"));
                    weighed = evidence;
                }
                // Offline, the trust list answers from earlier captures only: a
                // miss there is the user's choice, not an unreachable source.
                GroundOutcome::Unavailable { .. } if opts.offline => {}
                GroundOutcome::Unavailable { reasons, .. } => {
                    for r in reasons {
                        warnings.push(format!("source {} unavailable: {}", r.source, r.reason));
                    }
                    // Unreachable is never "no evidence": the status says what could not be searched.
                    let why = reasons.iter().map(|r| format!("{}: {}", r.source, r.reason)).collect::<Vec<_>>().join("; ");
                    unavailable = Some(Reason {
                        facet: "source".into(),
                        detail: format!("trust-list source unavailable: {why}"),
                        claim_span: None,
                        evidence: vec![],
                        rule: crate::run::UNAVAILABLE_RULE.into(),
                    });
                }
                GroundOutcome::NoEvidence { .. } => {}
            }
            outcome.method.push_str(TRUST_LIST_SUFFIX);
            outcome.after_grounding(unavailable.as_ref());
        }
    }
    progress(total, total, "decided");
    Ok(Checked { answer: answer(claim, &outcome, &weighed, k, grounding), warnings })
}

/// The answer object of one decided claim.
fn answer(claim: &str, outcome: &Outcome, weighed: &[Evidence], k: usize, grounding: Value) -> Value {
    let terms = amem_grounding::terms::key_terms(claim);
    let shown = shown_evidence(&outcome.reasons, weighed, k);
    let amem_uri = shown.first().map(|e| e.uri.to_string());
    let evidence: Vec<Value> = shown
        .iter()
        .map(|e| {
            json!({
                "source_uri": e.source_url.clone().unwrap_or_else(|| e.uri.to_string()),
                "snippet": e.quote,
                "captured_at": e.captured_at,
                "written_at": e.written_at,
                "similarity": similarity(&terms, &e.quote),
                "amem_uri": e.uri.to_string(),
                "title": e.title,
            })
        })
        .collect();
    let reasons: Vec<Value> = outcome
        .reasons
        .iter()
        .map(|r| {
            json!({
                "facet": r.facet,
                "rule": r.rule,
                "detail": r.detail,
                "claim_span": r.claim_span.map(|s| json!({"start": s.start, "end": s.end})),
            })
        })
        .collect();
    json!({
        "claim": claim,
        "verdict": outcome.status.rfc_verdict(),
        "status": outcome.status.as_str(),
        "evidence": evidence,
        "amem_uri": amem_uri,
        "method": outcome.method,
        "reasons": reasons,
        "gate": outcome.gate,
        "grounding": grounding,
    })
}

/// The share of the claim's search terms present in `text` (0 to 1, three decimals).
fn similarity(terms: &[String], text: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let lower = text.to_lowercase();
    let found = terms.iter().filter(|t| lower.contains(&t.to_lowercase())).count();
    ((found as f64 / terms.len() as f64) * 1000.0).round() / 1000.0
}

/// The evidence the verdict cites (deduplicated, in citation order), or
/// when nothing is cited, everything weighed.
fn shown_evidence(reasons: &[Reason], weighed: &[Evidence], k: usize) -> Vec<Evidence> {
    let mut seen = BTreeSet::new();
    let mut cited: Vec<Evidence> = Vec::new();
    for r in reasons {
        for e in &r.evidence {
            if seen.insert((e.uri.clone(), e.span)) {
                cited.push(e.clone());
            }
        }
    }
    if cited.is_empty() {
        cited = weighed.to_vec();
    }
    cited.truncate(k.max(1));
    cited
}

/// The `grounding` object of the answer; `requests` is filled in by the caller.
fn describe(outcome: Option<&GroundOutcome>, offline: bool) -> Value {
    let (name, searched, unavailable, stale) = match outcome {
        None => ("disabled", Vec::new(), Vec::new(), Vec::new()),
        Some(GroundOutcome::Captured { cached, stale, failures, .. }) => (
            if *cached { "cached" } else { "captured" },
            Vec::new(),
            failures.iter().map(|f| json!({"source": f.source, "reason": f.reason})).collect(),
            stale.iter().map(|s| json!({"source_url": s.source_url, "old_item": s.old_item, "new_item": s.new_item})).collect(),
        ),
        Some(GroundOutcome::NoEvidence { searched }) => ("no_evidence", searched.clone(), Vec::new(), Vec::new()),
        Some(GroundOutcome::Unavailable { reasons, searched }) => (
            if offline { "offline" } else { "unavailable" },
            searched.clone(),
            reasons.iter().map(|f| json!({"source": f.source, "reason": f.reason})).collect(),
            Vec::new(),
        ),
    };
    json!({"outcome": name, "searched": searched, "unavailable": unavailable, "stale": stale, "requests": 0})
}
