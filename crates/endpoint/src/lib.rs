//! Model roles behind an OpenAI-compatible endpoint: Ollama, llama.cpp's server, vLLM, LM
//! Studio or a hosted key, configured under `[[models]]` in config.toml ([`config`]).
//!
//! Where it sits (docs/architecture.md, "Deterministic first, models subordinate"): after the
//! rules and the in-process verifier, for a claim they left undecided on topic
//! (`partially_supported`, `not_addressed`) with evidence at hand, the verifier role asks
//! the endpoint once ([`EndpointVerifier::judge`]). Its answer counts only once checked
//! ([`answer::check`]: every quote verbatim in the passage it names) and only through the
//! one combination table (`amem_verify::combine::endpoint_row`): it can settle an undecided
//! claim, never a conflict the rules found into supported, never anything else. Every way of
//! not answering (time-out, 429, 5xx, malformed or truncated output, a hostile or unquoted
//! reply) leaves the rules' verdict standing with a reason saying so, counted in the report.
//! The answer is recorded as an assessment of its own (method `llm:<model>@verify-1`) beside
//! the rules' one, and remembered in the ledger ([`cache`]) so a re-run makes no call.
//!
//! The gate's roles ([`gate_roles`]): a witness reading hedges and attributions, an
//! added-content detector and a fixer, second readers of `amem gate`, `amem pool` and
//! `amem bench` under the same rule: checked against the text before they count, and able
//! only to add a finding (a fix is shown only when it passes the same gate).

pub mod answer;
pub mod cache;
pub mod chat;
pub mod config;
pub mod gate_roles;

pub use chat::{Endpoint, Unavailable};
pub use config::{ModelConfig, ModelsTable, Role};
pub use gate_roles::EndpointGate;

use amem_records::{Digest, Evidence, Reason, Status};
use amem_verify::combine::{EndpointAnswer, Row, endpoint_row};
use std::sync::atomic::{AtomicU64, Ordering};

/// The rule of a reason saying the endpoint gave no answer (the call failed).
pub const RULE_UNAVAILABLE: &str = "llm.verifier.unavailable";
/// The rule of a reason saying the endpoint's answer was discarded (not checked).
pub const RULE_DISCARDED: &str = "llm.verifier.discarded";

/// What the verifier role made of one claim.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// A checked answer: the table's row and the reason to add (it cites the quoted bytes).
    Answered {
        /// The row of the combination table.
        row: Row,
        /// The endpoint's reason, rule `llm.verifier.<row>`.
        reason: Reason,
        /// Read from the ledger's answers, no call made.
        cached: bool,
    },
    /// No usable answer: the rules' verdict stands, with this reason
    /// ([`RULE_UNAVAILABLE`] or [`RULE_DISCARDED`]).
    Failed {
        /// Why.
        reason: Reason,
    },
}

/// Counts of one verifier's calls, for the eval and the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Claims the endpoint was consulted on.
    pub consulted: u64,
    /// Answers read from the ledger instead of asked.
    pub cache_hits: u64,
    /// Calls that gave a checked answer.
    pub answered: u64,
    /// Calls that gave no answer.
    pub unavailable: u64,
    /// Answers discarded by the check.
    pub discarded: u64,
    /// Tokens the endpoint reported using.
    pub tokens: u64,
    /// Milliseconds spent waiting for answers.
    pub wait_ms: u64,
}

impl Counts {
    /// One line for people: what was asked, how it came back, and what it cost.
    pub fn describe(&self) -> String {
        let calls = self.consulted.saturating_sub(self.cache_hits);
        format!(
            "{} questions, {} remembered answers, {} answered, {} unavailable, {} discarded; {} tokens; {} ms waiting ({} ms a call)",
            self.consulted,
            self.cache_hits,
            self.answered,
            self.unavailable,
            self.discarded,
            self.tokens,
            self.wait_ms,
            self.wait_ms / calls.max(1)
        )
    }
}

/// The counters of one role, shared by its worker threads.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    consulted: AtomicU64,
    cache_hits: AtomicU64,
    answered: AtomicU64,
    unavailable: AtomicU64,
    discarded: AtomicU64,
    tokens: AtomicU64,
    wait_ms: AtomicU64,
}

impl Tally {
    fn add(a: &AtomicU64, n: u64) {
        a.fetch_add(n, Ordering::Relaxed);
    }

    /// The counts so far.
    pub(crate) fn counts(&self) -> Counts {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Counts {
            consulted: l(&self.consulted),
            cache_hits: l(&self.cache_hits),
            answered: l(&self.answered),
            unavailable: l(&self.unavailable),
            discarded: l(&self.discarded),
            tokens: l(&self.tokens),
            wait_ms: l(&self.wait_ms),
        }
    }

    /// One call made: its wait and, when it got a reply, the tokens the endpoint reported.
    pub(crate) fn call(&self, started: std::time::Instant, tokens: Option<u64>) {
        Self::add(&self.wait_ms, u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
        Self::add(&self.tokens, tokens.unwrap_or(0));
    }
}

/// The verifier role of one configured endpoint.
#[derive(Debug)]
pub struct EndpointVerifier {
    endpoint: std::sync::Arc<Endpoint>,
    cache: Option<cache::AnswerCache>,
    method: String,
    tally: Tally,
}

impl EndpointVerifier {
    /// The verifier role of `endpoint`, remembering answers in the SQLite file at `answers`
    /// (the run's ledger) when given.
    ///
    /// # Errors
    /// The answers table cannot be opened.
    pub fn new(endpoint: impl Into<std::sync::Arc<Endpoint>>, answers: Option<&std::path::Path>) -> rusqlite::Result<EndpointVerifier> {
        let endpoint = endpoint.into();
        let cache = answers.map(cache::AnswerCache::open).transpose()?;
        let method = format!("llm:{}@{}", endpoint.config().model, answer::PROMPT_VERSION);
        Ok(EndpointVerifier { endpoint, cache, method, tally: Tally::default() })
    }

    /// `llm:<model>@<prompt-version>`: the method of the assessments it makes.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The endpoint.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        self.tally.counts()
    }

    /// Whether a claim the rules gave `rules` is put to the endpoint.
    pub fn consults(rules: Status) -> bool {
        matches!(rules, Status::PartiallySupported | Status::NotAddressed)
    }

    /// Ask about `claim`, which the rules gave `rules` with `reasons`, against `evidence` (what
    /// recall found). `None` when the endpoint is not consulted: the rules settled the claim or
    /// gave no on-topic verdict, or there is no evidence to give. Blocks the calling thread.
    pub fn judge(&self, claim: &str, rules: Status, reasons: &[Reason], evidence: &[Evidence]) -> Option<Judgement> {
        if !Self::consults(rules) {
            return None;
        }
        let cited: Vec<&amem_records::AmemUri> = reasons.iter().flat_map(|r| r.evidence.iter().map(|e| &e.uri)).collect();
        let passages = answer::passages(&cited, evidence);
        if passages.is_empty() {
            return None;
        }
        Tally::add(&self.tally.consulted, 1);
        let key = self.key(claim, &passages);
        let (checked, cached) = match self.cache.as_ref().and_then(|c| c.get(&key)) {
            Some(c) => {
                Tally::add(&self.tally.cache_hits, 1);
                (c, true)
            }
            None => match self.ask(claim, &passages) {
                Ok(c) => {
                    if let Some(cache) = &self.cache {
                        cache.put(&key, &self.method, &c);
                    }
                    (c, false)
                }
                Err(reason) => return Some(Judgement::Failed { reason }),
            },
        };
        let row = endpoint_row(rules, reasons, checked.answer);
        let said = match checked.answer {
            EndpointAnswer::Supported => "supported",
            EndpointAnswer::Contradicted => "contradicted",
            EndpointAnswer::NotEnoughInfo => "not enough info",
        };
        let held = if row == Row::UndecidedStays && checked.answer == EndpointAnswer::Supported {
            "; the rules found a conflict of value or polarity, which no model answer turns into support"
        } else {
            ""
        };
        let missing = if checked.missing.trim().is_empty() {
            String::new()
        } else {
            format!(" It says the evidence lacks: {:?}.", checked.missing.trim())
        };
        let reason = Reason {
            facet: "model".into(),
            detail: format!(
                "the model {} at endpoint {:?} ({}) answered {said}, its quotes found verbatim in the evidence; the rules said {}{held}.{missing}",
                self.endpoint.config().model,
                self.endpoint.config().name,
                answer::PROMPT_VERSION,
                rules.as_str()
            ),
            claim_span: None,
            evidence: checked.cited(&passages),
            rule: row.endpoint_rule(),
        };
        Some(Judgement::Answered { row, reason, cached })
    }

    /// One call and the check of its answer; the failure reason otherwise.
    fn ask(&self, claim: &str, passages: &[answer::Passage<'_>]) -> Result<answer::Checked, Reason> {
        let claim_sha = Digest::of(claim.as_bytes()).to_hex();
        let started = std::time::Instant::now();
        let reply = self.endpoint.chat_json(&answer::messages(claim, passages), &claim_sha);
        self.tally.call(started, reply.as_ref().ok().and_then(|r| r.tokens));
        let failed = |rule: &str, why: String| Reason {
            facet: "model".into(),
            detail: format!(
                "the model {} at endpoint {:?} gave no usable answer ({why}); the rules' verdict stands",
                self.endpoint.config().model,
                self.endpoint.config().name
            ),
            claim_span: None,
            evidence: Vec::new(),
            rule: rule.into(),
        };
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                Tally::add(&self.tally.unavailable, 1);
                return Err(failed(RULE_UNAVAILABLE, e.to_string()));
            }
        };
        match answer::check(&reply.content, claim, passages) {
            Ok(c) => {
                Tally::add(&self.tally.answered, 1);
                Ok(c)
            }
            Err(d) => {
                Tally::add(&self.tally.discarded, 1);
                Err(failed(RULE_DISCARDED, format!("answer discarded: {d}")))
            }
        }
    }

    /// The answers table's key: the method, the claim, and each passage's revision, span and
    /// given text.
    fn key(&self, claim: &str, passages: &[answer::Passage<'_>]) -> Digest {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(self.method.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(claim.as_bytes());
        for p in passages {
            bytes.push(0);
            bytes.extend_from_slice(&p.evidence.item_digest.0);
            bytes.extend_from_slice(&(p.evidence.span.start as u64).to_le_bytes());
            bytes.extend_from_slice(p.text().as_bytes());
        }
        Digest::of(&bytes)
    }
}

/// True when a reason says an endpoint gave no usable answer: what the report counts as
/// "model unavailable".
pub fn is_failure(reason: &Reason) -> bool {
    reason.rule == RULE_UNAVAILABLE || reason.rule == RULE_DISCARDED
}
