//! `amem-recall`: local recall over the user's own wiki.
//!
//! Where it sits (docs/architecture.md, "Data flow"): extraction yields a `Claim`;
//! recall looks for text in `$AMEM_HOME/wiki` that could support or
//! contradict it; the verifier cites what recall returns as
//! `amem://<item>#chunk=<n>` [`amem_records::Evidence`]; on a miss, fact-check
//! fetches from the trust list and [`capture`]s the page back into
//! `wiki/captured/` so the next run is a local hit.
//!
//! - Input: wiki files (`.md`, `.markdown`, `.txt`, `.html`, `.htm`) with
//!   optional `---` front matter (`title`, `source`, `retrieved_at`, `digest`,
//!   and when the note was written: the dates of [`WRITTEN_KEYS`], else the
//!   file's modification time, kept per revision as [`Hit::written_at`]).
//!   Each file is an item whose id comes from its content digest ([`ItemId`]);
//!   its body is cut into chunks of whole sentences ([`chunk`]).
//! - Index: SQLite FTS5 (bm25, porter over unicode61) in
//!   `$AMEM_HOME/ledger.sqlite`, tables prefixed `wiki_` (see [`index`]),
//!   updated by digest in one transaction ([`Wiki::index_wiki`]).
//! - Meaning (with [`Wiki::with_meaning`]): each chunk's vector from
//!   `amem_models::StaticEmbedder`, stored beside the index in the same
//!   transaction, searched exactly, alone (`dense`) or fused with bm25 by
//!   reciprocal rank (`hybrid`, [`RecallMethod`]).
//! - Output: [`Hit`]s through the [`Recall`] trait, each with the best
//!   sentence as a byte [`amem_records::Span`] and [`Hit::to_evidence`].
//! - Measure: `amem_eval::recall` scores whether gold evidence sentences reach
//!   the top-k context, verbatim and in value, against a shuffled control.
//!
//! ```no_run
//! use amem_recall::{IndexOptions, Recall, Wiki};
//! use std::ops::ControlFlow;
//! # fn main() -> amem_recall::Result<()> {
//! let mut wiki = Wiki::open(std::path::Path::new("/home/me/.amem"))?;
//! let report = wiki.index_wiki(IndexOptions::default(), &mut |_| ControlFlow::Continue(()))?;
//! println!("{} files, {} skipped", report.files, report.skipped.len());
//! for hit in wiki.search("Arctic sea ice fell 40% since 1979", 3)? {
//!     println!("{} {:.2} {}", hit.uri, hit.score, hit.quote);
//! }
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

pub mod chunk;
mod dense;
mod error;
mod hit;
pub mod index;
mod item;
mod note;
mod porter;
mod postings;
pub mod query;
mod walk;
mod wiki;

pub use dense::{FUSION_CANDIDATES, RRF_K, RecallMethod};
pub use error::{Error, Result};
pub use hit::{Hit, OpenedChunk, WRITTEN_FROM_MTIME};
pub use index::IndexStats;
pub use item::{ItemId, ItemKind, ParsedItem, SkipReason, parse_item};
pub use note::{NoteWarning, WRITTEN_KEYS, WrittenTime};
pub use walk::MAX_NOTE_BYTES;
pub use wiki::{
    Capture, DocumentFrequencies, IndexOptions, IndexProgress, IndexReport, ListedItem, Meaning, Recall, SkippedFile, WarnedFile, Wiki,
    capture, yaml_quoted,
};

/// The visible text and title of an HTML page (what the wiki indexes for
/// `.html` files), for callers that capture fetched pages.
pub fn html_text(html: &str) -> (Option<String>, String) {
    use amem_text::html::{Quotes, element_text, html_to_text};
    (element_text(html, "title").or_else(|| element_text(html, "h1")), html_to_text(html, Quotes::Plain))
}
