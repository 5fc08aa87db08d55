//! Quotes read back from the wiki index for the ledger, which keeps
//! evidence by reference (item revision, chunk, span), not as copied text.

use amem_ledger::QuoteSource;
use amem_recall::Recall;
use amem_records::{AmemUri, Digest};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many chunks a [`ChunkMemory`] remembers. A report pass reads the
/// rows in conversation order, and the notes they cite come in no order (on
/// the x1 audit bench 92,000 evidence rows cite 9,300 distinct chunks), so
/// a memory smaller than that finds many of them again in the index (with
/// one memory of 4,096 chunks per rebuild thread, reading chunks back was
/// 1% of the whole run's CPU). The report's rebuild threads share one
/// memory, so it is held once; past this it starts afresh, so it stays
/// flat (a chunk is about a kilobyte and a half: 4,096 are about 6 MB;
/// at 16,384, with the extract, cue and text memories at twice their
/// bounds, the x10 audit peaked at 509 MB).
pub const REMEMBERED_CHUNKS: usize = 4_096;

/// Chunks as read from the index: the text and the item revision it was
/// read at, or `None` when the index does not have it.
type Chunks = HashMap<AmemUri, Option<(Digest, Arc<str>)>>;

/// Chunks remembered for [`WikiQuotes`], shareable by the threads of a
/// report pass (each has its own index connection; the index does not
/// change while the report is written).
#[derive(Default)]
pub struct ChunkMemory {
    chunks: Mutex<Chunks>,
}

/// A [`QuoteSource`] over the wiki index: a chunk's text, when the item is
/// still at the revision asked for.
pub struct WikiQuotes<'a> {
    wiki: &'a dyn Recall,
    memory: Memory<'a>,
}

enum Memory<'a> {
    Own(ChunkMemory),
    Shared(&'a ChunkMemory),
}

impl<'a> WikiQuotes<'a> {
    /// Quotes out of `wiki`, remembering chunks for itself.
    pub fn new(wiki: &'a dyn Recall) -> WikiQuotes<'a> {
        WikiQuotes { wiki, memory: Memory::Own(ChunkMemory::default()) }
    }

    /// Quotes out of `wiki` (a connection of this thread), remembering
    /// chunks in `memory` (shared with other threads reading the same index).
    pub fn sharing(wiki: &'a dyn Recall, memory: &'a ChunkMemory) -> WikiQuotes<'a> {
        WikiQuotes { wiki, memory: Memory::Shared(memory) }
    }
}

impl WikiQuotes<'_> {
    fn memory(&self) -> &ChunkMemory {
        match &self.memory {
            Memory::Own(m) => m,
            Memory::Shared(m) => m,
        }
    }

    /// `f` of the chunk's text at `item_digest`, read from the index once.
    fn with_chunk<T>(&self, uri: &AmemUri, item_digest: &Digest, f: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        let memory = self.memory();
        let known = memory.chunks.lock().ok().and_then(|chunks| chunks.get(uri).cloned());
        let chunk = match known {
            Some(c) => c,
            None => {
                // Read outside the lock. Not in the index (an item removed
                // since) or unreadable: no quote, which the ledger shows as
                // unavailable.
                let opened: Option<(Digest, Arc<str>)> = self.wiki.open(uri).ok().map(|c| (c.item_digest, Arc::from(c.text)));
                if let Ok(mut chunks) = memory.chunks.lock() {
                    if chunks.len() >= REMEMBERED_CHUNKS {
                        chunks.clear();
                    }
                    chunks.insert(uri.clone(), opened.clone());
                }
                opened
            }
        };
        match chunk {
            Some((d, text)) if d == *item_digest => f(&text),
            _ => None,
        }
    }
}

impl QuoteSource for WikiQuotes<'_> {
    fn chunk_text(&self, uri: &AmemUri, item_digest: &Digest) -> Option<String> {
        self.with_chunk(uri, item_digest, |text| Some(text.to_string()))
    }

    fn chunk_slice(&self, uri: &AmemUri, item_digest: &Digest, span: amem_records::Span) -> Option<String> {
        self.with_chunk(uri, item_digest, |text| text.get(span.start..span.end).map(str::to_string))
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
        let at = text.find("40 MW").unwrap();
        let span = amem_records::Span::new(at, at + 5);
        assert_eq!(q.chunk_slice(&hit.uri, &hit.item_digest, span).as_deref(), Some("40 MW"));
        assert_eq!(q.chunk_slice(&hit.uri, &hit.item_digest, amem_records::Span::new(at, text.len() + 1)), None, "past the end");
        assert_eq!(q.chunk_slice(&hit.uri, &Digest::of(b"another revision"), span), None);
        std::fs::write(notes.join("plant.md"), "The plant makes 45 MW of power.\n").unwrap();
        let opts = amem_recall::IndexOptions { rehash: true, now: Some("2030-01-02T00:00:00Z".parse().unwrap()) };
        wiki.index_wiki(opts, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
        assert_eq!(WikiQuotes::new(&wiki).chunk_text(&hit.uri, &hit.item_digest), None, "the note changed");
    }
}
