//! The indexed wiki as the grounder's capture store: the one place where
//! factcheck's captures meet recall's index, so `amem-grounding` does not
//! depend on `amem-recall` (both sit left of the pipeline).

use amem_grounding::adapters::Document;
use amem_grounding::{CaptureStore, Error, StoredItem};
use std::path::Path;
use std::sync::Mutex;

/// The recall crate's indexed wiki as a capture store: each document is
/// written to `wiki/captured/` and indexed in one step (amem-recall's
/// `Wiki::capture`), so the next recall search finds it without a request.
pub struct RecallStore {
    wiki: Mutex<amem_recall::Wiki>,
}

impl RecallStore {
    /// Wrap an open wiki.
    pub fn new(wiki: amem_recall::Wiki) -> Self {
        RecallStore { wiki: Mutex::new(wiki) }
    }

    /// Open the wiki of `home`, reading meaning when `meaning` is given (captures then
    /// store their chunks' vectors, and searches rank by its method).
    ///
    /// # Errors
    /// `amem_grounding::Error::Store` when the wiki or its index cannot be opened.
    pub fn open(home: &Path, meaning: Option<amem_recall::Meaning>) -> amem_grounding::Result<Self> {
        amem_recall::Wiki::open(home).map(|w| Self::new(w.with_meaning(meaning))).map_err(|e| Error::Store(e.to_string()))
    }

    /// Run `f` on the wiki (search, open) while holding its lock.
    pub fn with_wiki<R>(&self, f: impl FnOnce(&mut amem_recall::Wiki) -> R) -> R {
        let mut guard = self.wiki.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }
}

impl CaptureStore for RecallStore {
    fn capture(&self, doc: &Document, retrieved_at: &str) -> amem_grounding::Result<StoredItem> {
        let text = amem_grounding::store::item_text(doc);
        let capture = amem_recall::Capture { text: &text, title: Some(&doc.title), source_url: Some(&doc.url), retrieved_at };
        self.with_wiki(|w| {
            let id = w.capture(&capture)?;
            // The revision digest recall's hits will carry for this item.
            let opened = w.open_uri(&amem_records::AmemUri::item(id.0.clone()))?;
            Ok::<_, amem_recall::Error>(StoredItem { item: id.0, item_digest: opened.item_digest })
        })
        .map_err(|e| Error::Store(format!("capturing {}: {e}", doc.url)))
    }
}
