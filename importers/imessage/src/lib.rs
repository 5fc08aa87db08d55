//! PLACEHOLDER: replaced by the owner of this importer.

use amem_model::{ImportError, ImportOptions, MessageStream};
use std::path::Path;

/// Open an archive as a lazy stream of messages.
///
/// # Errors
/// The archive cannot be opened at all.
pub fn open(path: &Path, _opts: &ImportOptions) -> Result<MessageStream, ImportError> {
    Err(ImportError::new(path, "start", "unsupported", "importer not built yet"))
}
