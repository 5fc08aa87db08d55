//! The `Evidence` record: a verbatim quote out of a wiki item revision.

use crate::{AmemUri, Digest, Span};
use serde::{Deserialize, Serialize};

/// A verbatim quote from a chunk of a wiki item, with the revision it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// `amem://<item>#chunk=<n>`.
    pub uri: AmemUri,
    /// The quoted text, verbatim from the chunk.
    pub quote: String,
    /// Byte offsets of the quote inside the chunk text.
    pub span: Span,
    /// Digest of the item revision.
    pub item_digest: Digest,
    /// When a fetched item was captured (front matter `retrieved_at:`), RFC 3339.
    pub captured_at: Option<String>,
    /// When the user's own note was written, RFC 3339 UTC: the latest of its
    /// front matter's `date:`, `updated:`, `modified:`, ... , else its file's
    /// modification time; never when it was indexed. `None` for fetched
    /// items (their time is `captured_at`) and where it is not known (the
    /// ledger keeps the revision's `captured_at` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_at: Option<String>,
    /// Where the item came from, when fetched.
    pub source_url: Option<String>,
    /// The item's title.
    pub title: Option<String>,
}
