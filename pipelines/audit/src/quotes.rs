//! Quotes read back from the wiki index for the ledger, which keeps
//! evidence by reference (item revision, chunk, span), not as copied text.

use amem_ledger::QuoteSource;
use amem_model::{AmemUri, Digest};
use amem_recall::Recall;
use std::cell::RefCell;
use std::collections::HashMap;

/// How many chunks [`WikiQuotes`] remembers. A report pass reads the rows of
/// one message after another, and a message's claims mostly cite the same
/// few notes; past this the memory starts afresh, so it stays flat.
const REMEMBERED_CHUNKS: usize = 4096;

/// A [`QuoteSource`] over the wiki index: a chunk's text, when the item is
/// still at the revision asked for. One per thread (it remembers chunks).
pub struct WikiQuotes<'a> {
    wiki: &'a dyn Recall,
    chunks: RefCell<HashMap<AmemUri, Option<(Digest, String)>>>,
}

impl<'a> WikiQuotes<'a> {
    /// Quotes out of `wiki`.
    pub fn new(wiki: &'a dyn Recall) -> WikiQuotes<'a> {
        WikiQuotes { wiki, chunks: RefCell::new(HashMap::new()) }
    }
}

impl QuoteSource for WikiQuotes<'_> {
    fn chunk_text(&self, uri: &AmemUri, item_digest: &Digest) -> Option<String> {
        let mut chunks = self.chunks.borrow_mut();
        if !chunks.contains_key(uri) {
            if chunks.len() >= REMEMBERED_CHUNKS {
                chunks.clear();
            }
            // Not in the index (an item removed since) or unreadable: no
            // quote, which the ledger shows as unavailable.
            let opened = self.wiki.open(uri).ok().map(|c| (c.item_digest, c.text));
            chunks.insert(uri.clone(), opened);
        }
        match chunks.get(uri) {
            Some(Some((d, text))) if d == item_digest => Some(text.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a real index: the chunk text while the note is at the cited
    /// revision, nothing once the note changed.
    #[test]
    fn chunk_text_only_at_the_cited_revision() {
        let home = tempfile::tempdir().unwrap();
        let notes = home.path().join("wiki");
        std::fs::create_dir_all(&notes).unwrap();
        std::fs::write(notes.join("plant.md"), "The plant makes 40 MW of power.\n").unwrap();
        let mut wiki = amem_recall::Wiki::open(home.path()).unwrap();
        let opts = amem_recall::IndexOptions { rehash: false, now: Some("2030-01-01T00:00:00Z".parse().unwrap()) };
        wiki.index_wiki(opts, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
        let hit = wiki.search("plant power", 1).unwrap().remove(0);
        let q = WikiQuotes::new(&wiki);
        let text = q.chunk_text(&hit.uri, &hit.item_digest).unwrap();
        assert!(text.contains("40 MW"), "{text}");
        assert_eq!(q.chunk_text(&hit.uri, &Digest::of(b"another revision")), None);
        std::fs::write(notes.join("plant.md"), "The plant makes 45 MW of power.\n").unwrap();
        let opts = amem_recall::IndexOptions { rehash: true, now: Some("2030-01-02T00:00:00Z".parse().unwrap()) };
        wiki.index_wiki(opts, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
        assert_eq!(WikiQuotes::new(&wiki).chunk_text(&hit.uri, &hit.item_digest), None, "the note changed");
    }
}
