//! What a search returns, and what `open` returns.

use crate::item::ItemId;
use amem_records::{AmemUri, Digest, Evidence, Span};
use serde::{Deserialize, Serialize};

/// One retrieved chunk with the sentence that best matches the query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// `amem://<item>#chunk=<n>`.
    pub uri: AmemUri,
    /// The item id.
    pub item: ItemId,
    /// The chunk number inside the item (from 0).
    pub chunk: u32,
    /// Relevance, higher is better, comparable only within one query: FTS5's
    /// bm25 negated (`bm25` recall), the cosine (`dense`), or the reciprocal-rank
    /// fusion's sum (`hybrid`).
    pub score: f64,
    /// The whole chunk text.
    pub text: String,
    /// The best-matching sentence: byte offsets into `text`, on sentence boundaries.
    pub span: Span,
    /// `text[span]`, verbatim.
    pub quote: String,
    /// Digest of the item revision (SHA-256 of the file bytes).
    pub item_digest: Digest,
    /// The item's title, if it has one.
    pub title: Option<String>,
    /// Where the item came from (front matter `source:`).
    pub source_url: Option<String>,
    /// When it was fetched (front matter `retrieved_at:`).
    pub retrieved_at: Option<String>,
    /// When this revision was first indexed, RFC 3339.
    pub indexed_at: String,
    /// When the note was written, RFC 3339 UTC: the latest of its front
    /// matter's `date:`, `updated:`, `modified:`, `last_modified:`, ...
    /// ([`crate::WRITTEN_KEYS`]), else the file's modification time when it
    /// was indexed; `None` when neither is known.
    #[serde(default)]
    pub written_at: Option<String>,
    /// Which time `written_at` is: the front matter key (`updated`), or
    /// [`WRITTEN_FROM_MTIME`].
    #[serde(default)]
    pub written_from: Option<String>,
    /// The file's path relative to the wiki folder, `/`-separated.
    pub path: String,
}

/// [`Hit::written_from`] of a note whose front matter gives no time: its
/// file's modification time stands in.
pub const WRITTEN_FROM_MTIME: &str = "mtime";

impl Hit {
    /// The evidence record the verifier cites: the quote is the best span,
    /// `captured_at` is the fetch time of captured items, `written_at` the
    /// time the user's own notes were written (never when they were
    /// indexed: a note of 2019 indexed today is a note of 2019).
    pub fn to_evidence(&self) -> Evidence {
        Evidence {
            uri: self.uri.clone(),
            quote: self.quote.clone(),
            span: self.span,
            item_digest: self.item_digest,
            captured_at: self.retrieved_at.clone(),
            written_at: if self.retrieved_at.is_some() { None } else { self.written_at.clone() },
            source_url: self.source_url.clone(),
            title: self.title.clone(),
        }
    }
}

/// A chunk looked up by its URI.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenedChunk {
    /// The URI asked for, with the chunk number filled in (0 for a whole-item URI).
    pub uri: AmemUri,
    /// The chunk text.
    pub text: String,
    /// How many chunks the item has.
    pub chunks: u32,
    /// The item's title.
    pub title: Option<String>,
    /// The item's source URL.
    pub source_url: Option<String>,
    /// When it was fetched.
    pub retrieved_at: Option<String>,
    /// When the note was written (see [`Hit::written_at`]).
    #[serde(default)]
    pub written_at: Option<String>,
    /// Which time that is (see [`Hit::written_from`]).
    #[serde(default)]
    pub written_from: Option<String>,
    /// Digest of the item revision.
    pub item_digest: Digest,
    /// The file's path relative to the wiki folder.
    pub path: String,
}
