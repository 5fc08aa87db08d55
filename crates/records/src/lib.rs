//! `amem-records`: the records every amem stage passes along.
//!
//! Data flow (see `docs/architecture.md`, "Data flow"): importers yield [`Message`]s,
//! extraction turns them into [`Claim`]s, recall and fact-check find
//! [`Evidence`], verification and the gate produce [`Assessment`]s. All of
//! them are immutable values identified by content [`Digest`]s, so a re-run
//! adds observations and never rewrites one.
//!
//! ```
//! use amem_records::{AmemUri, Digest};
//! let uri: AmemUri = "amem://notes-1a2b#chunk=3".parse().unwrap();
//! assert_eq!(uri.chunk, Some(3));
//! assert_eq!(Digest::of(b"abc").to_hex().len(), 64);
//! ```
#![deny(missing_docs)]

mod assessment;
mod claim;
mod digest;
mod evidence;
mod identity;
mod import;
mod message;
mod report;
#[cfg(feature = "sample")]
pub mod sample;
mod shard;
pub mod source_file;
mod span;
mod time;
mod uri;

pub use assessment::{Assessment, GateFlag, GateSummary, GateVerdict, Group, Reason, Skipped, Status};
pub use claim::{Claim, ClaimId, ClaimKind, Cue, CueClass};
pub use digest::Digest;
pub use evidence::Evidence;
pub use identity::{Identity, Who, address_of};
pub use import::{ImportError, ImportOptions, ImportSummary, MessageStream, Source};
pub use message::{AuthorForm, CopyKeys, FORWARDED_BY, KindInfo, Message, MessageId, QuoteKind, QuotedPart, SourceKind};
pub use report::{
    AuditRecord, CitedEvidence, EvidenceRole, EvidenceValue, NOT_CHECKED_CHANGE_TYPES, NoteRef, QuotedTally, REPORT_HEADING, ReportError,
    ReportSink, RunId, RunInfo, RunParams, RunSource, RunSummary, SKIPPED_SAMPLE_LIMIT, SkippedTally, cited_evidence, evidence_with_roles,
};
pub use shard::Shard;
pub use span::Span;
pub use time::{TimeError, TimeWindow, parse_instant};
pub use uri::{AmemUri, UriError};
