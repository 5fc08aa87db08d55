//! `amem-audit`: `amem audit chat-history`, composed from the stages.
//!
//! Data flow (docs/architecture.md, "Data flow"): importers ([`sources`]) yield messages; the
//! extractor turns them into claims; [`assess`] grounds each audited claim
//! in the local wiki, verifies it and gates it against the evidence; on a
//! local miss the trust list is asked ([`ground`]) and the claim decided
//! again on what was captured; the ledger records everything; at the end
//! the reports are rendered from the ledger ([`report`]). [`run::run_audit`]
//! wires the stages with bounded channels.
#![deny(missing_docs)]

pub mod assess;
pub mod capture;
pub mod check;
pub mod copies;
pub mod cpu;
pub mod fetch;
pub mod ground;
pub mod progress;
pub mod quotes;
pub mod report;
pub mod run;
pub mod sources;
pub mod templates;
pub mod unverified;

pub use run::{AuditOutcome, AuditParams, Formats, Interrupted, policy_version, run_audit};
