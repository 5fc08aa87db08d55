//! Why one mail could not become a [`amem_records::Message`].

use amem_records::ImportError;
use std::path::Path;

/// A record-level failure while reading one mail. Importers turn it into an
/// [`ImportError`] with the file and position ([`Error::into_import`]); the
/// stream goes on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// No `Date:` header, or one neither date parser reads.
    #[error("{0}")]
    Date(String),
    /// The body's charset is unknown and its bytes are not UTF-8.
    #[error("body charset {0:?} is unknown and the bytes are not UTF-8")]
    Charset(String),
    /// The file ends inside this message (unfinished header block or MIME structure).
    #[error("truncated: {0}")]
    Truncated(String),
    /// The header block or MIME structure cannot be parsed at all.
    #[error("malformed mail: {0}")]
    Malformed(String),
    /// The message is larger than the importer holds in memory.
    #[error("message of {0} bytes is over the size limit, skipped")]
    TooLarge(u64),
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The machine-friendly kind used in [`ImportError::kind`] and the run summary.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Date(_) => "date",
            Error::Charset(_) => "charset",
            Error::Truncated(_) => "truncated",
            Error::Malformed(_) => "malformed",
            Error::TooLarge(_) => "too_large",
        }
    }

    /// The same failure, located.
    pub fn into_import(self, path: &Path, position: impl Into<String>) -> ImportError {
        ImportError::new(path, position, self.kind(), self.to_string())
    }
}
