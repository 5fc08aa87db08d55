//! `amem-gate`: the deterministic write-time gate (the factwash checks).
//!
//! Where it sits: the audit pipeline runs [`check`] on each claim against the
//! evidence text its verdict rests on, and `amem gate` runs it on a memory
//! write against the text it came from. Its reading of text (sentences,
//! words, cues, numbers, the word lists) is `amem-text`'s, shared with the
//! extractor and the verifier.
//!
//! Input: a source text and a memory text. Each memory sentence is aligned
//! to its best source sentence by content-word containment
//! ([`ALIGN_THRESHOLD`]); eight checks run on each aligned pair (polarity,
//! condition, hedge, attribution, temporal, brittle, truncated, unit).
//! Output: a [`GateReport`] with the per-sentence alignment and scores, the
//! flags (each with the source sentence, cue text and byte span, memory
//! sentence and the rule that fired), the verdict from one fixed table
//! ([`Check::severity`]) and `not_checked`. [`GateReport::summary`] converts
//! it to the model's [`amem_records::GateSummary`]. [`inspect()`] gives the same
//! findings as typed changes; [`drift()`] runs a chain of rewrites.
//!
//! Models, when the user configured them, are second readers ([`models`], [`check_with`]):
//! a witness for hedges and attributions the word lists miss and an added-content
//! detector, each quote-checked and able only to add a finding; and a fixer ([`fix()`])
//! whose proposed rewrite is shown only when it passes the same gate.
//!
//! The word lists are `amem-text`'s data files (`crates/text/lexicons/`), all
//! matched in one aho-corasick pass per text.
//!
//! ```
//! use amem_records::GateVerdict;
//! let r = amem_gate::check(
//!     "Someone said Alice was promoted this morning.",
//!     "Alice was elevated to administrator status on August 3, 2026.",
//! );
//! assert_eq!(r.verdict, GateVerdict::Rewrite);
//! assert_eq!(r.flags[0].check, amem_gate::Check::Attribution);
//! assert_eq!(r.flags[0].cue, "said");
//! ```
#![deny(missing_docs)]

mod check;
mod drift;
mod fix;
mod inspect;
pub mod models;
mod report;
mod second;

pub use check::{ALIGN_THRESHOLD, check, check_with};
pub use drift::{DriftReport, Hop, Loss, drift};
pub use fix::{FixOutcome, Fixer, Proposal, fix};
pub use inspect::{Change, InspectReport, inspect};
pub use models::{AddedContent, Addition, GateModels, ModelUse, Stance, Witness};
pub use report::{Alignment, Check, Flag, GateReport, NOT_CHECKED, Severity};

/// The gate's version, as named in assessment methods (`gate@<VERSION>`).
/// Bump it when a lexicon or a check changes what the gate reports.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
