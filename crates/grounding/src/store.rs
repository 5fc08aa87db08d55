//! Where fetched documents go: the capture side of the wiki. The grounder
//! sees only the [`CaptureStore`] trait, so the indexed wiki (the audit
//! pipeline's `RecallStore`, which wires recall in) and this crate's plain
//! folder store are interchangeable (and a test can count captures).

use crate::adapters::Document;
use crate::{Error, Result};
use amem_records::Digest;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A document stored as a wiki item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredItem {
    /// The item id (`amem://<item>`).
    pub item: String,
    /// The item revision's digest, as evidence from it carries it
    /// (`Evidence::item_digest`: SHA-256 of the item file's bytes).
    pub item_digest: Digest,
}

/// Turns a fetched document into a wiki item.
pub trait CaptureStore: Send + Sync {
    /// Store `doc` as a wiki item (front matter: title, source URL,
    /// retrieved_at, digest) and make it searchable.
    ///
    /// # Errors
    /// The item cannot be written or indexed.
    fn capture(&self, doc: &Document, retrieved_at: &str) -> Result<StoredItem>;
}

/// The text a captured item holds: the document's text, with its authors
/// and dates on a first line when the source gave them (they are evidence
/// for attribution and date claims).
pub fn item_text(doc: &Document) -> String {
    let mut meta = Vec::new();
    if !doc.authors.is_empty() {
        meta.push(format!("Authors: {}.", doc.authors.join(", ")));
    }
    if let Some(p) = &doc.published {
        meta.push(format!("Published: {p}."));
    }
    if let Some(u) = &doc.updated {
        meta.push(format!("Updated: {u}."));
    }
    if meta.is_empty() { doc.text.clone() } else { format!("{}\n\n{}", meta.join(" "), doc.text) }
}

/// The digest of a document's content as fetched (title and text): two
/// fetches with the same digest are the same revision.
pub fn content_digest(doc: &Document) -> Digest {
    Digest::of_fields([doc.title.as_bytes(), item_text(doc).as_bytes()])
}

/// A plain folder of captured items (`wiki/captured/<id>.md`), written with
/// the same front matter the recall crate reads (`title`, `source`,
/// `retrieved_at`, `digest`). It does not index: `amem index` picks the
/// files up. Used when no indexed wiki is at hand, and in tests.
pub struct DirStore {
    dir: PathBuf,
    lock: Mutex<()>,
}

impl DirStore {
    /// A store writing into `dir` (created on first capture).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        DirStore { dir: dir.into(), lock: Mutex::new(()) }
    }

    /// `home/wiki/captured`.
    pub fn in_home(home: &Path) -> Self {
        Self::new(home.join("wiki").join("captured"))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl CaptureStore for DirStore {
    fn capture(&self, doc: &Document, retrieved_at: &str) -> Result<StoredItem> {
        let body = format!("{}\n", item_text(doc).trim());
        let digest = Digest::of(body.as_bytes());
        let item = format!("captured-{}", digest.short(16));
        let text = format!(
            "---\ntitle: {}\nsource: {}\nretrieved_at: {}\ndigest: {}\n---\n{body}",
            one_line(&doc.title),
            one_line(&doc.url),
            one_line(retrieved_at),
            digest.to_hex()
        );
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        std::fs::create_dir_all(&self.dir).map_err(|source| Error::Write { path: self.dir.clone(), source })?;
        let path = self.dir.join(format!("{item}.md"));
        let tmp = self.dir.join(format!(".{item}.md.tmp"));
        std::fs::write(&tmp, &text).map_err(|source| Error::Write { path: tmp.clone(), source })?;
        std::fs::rename(&tmp, &path).map_err(|source| Error::Write { path, source })?;
        Ok(StoredItem { item, item_digest: Digest::of(text.as_bytes()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_front_matter_and_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let s = DirStore::new(dir.path());
        let doc = Document {
            url: "https://arxiv.org/abs/1".into(),
            title: "T\nitle".into(),
            text: "Body.".into(),
            published: Some("2020-01-01".into()),
            updated: None,
            authors: vec!["A B".into()],
        };
        let stored = s.capture(&doc, "2026-01-01T00:00:00Z").unwrap();
        assert_eq!(stored, s.capture(&doc, "2026-01-01T00:00:00Z").unwrap());
        let text = std::fs::read_to_string(dir.path().join(format!("{}.md", stored.item))).unwrap();
        assert_eq!(stored.item_digest, Digest::of(text.as_bytes()));
        assert!(
            text.starts_with("---\ntitle: T itle\nsource: https://arxiv.org/abs/1\nretrieved_at: 2026-01-01T00:00:00Z\ndigest: "),
            "{text}"
        );
        assert!(text.ends_with("---\nAuthors: A B. Published: 2020-01-01.\n\nBody.\n"), "{text}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
