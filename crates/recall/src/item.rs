//! One wiki file read into an item: kind, front matter, body text, digest-based id.
//!
//! The id is `<slug>-<first 12 hex digits of the SHA-256 of the file bytes>`,
//! where the slug comes from the item's own title (front matter `title:`, a
//! first `# heading`, or the HTML `<title>`), never from the file name: moving
//! or renaming a file keeps its id, and editing it makes a new revision with a
//! new id. Without a title the id is the 12 hex digits alone.

use amem_records::Digest;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How many hex digits of the digest go into an item id (48 bits: a
/// collision needs about 16 million items before it becomes likely).
const ID_HEX: usize = 12;
/// The slug part of an id is cut to this many bytes at a word boundary.
const SLUG_MAX: usize = 40;

/// A wiki item id, made only of `[A-Za-z0-9._-]` (the `amem://` item charset).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ItemId(pub String);

impl fmt::Display for ItemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl ItemId {
    /// The id of a file with these bytes and this (content-derived) title.
    pub fn for_content(digest: &Digest, title: Option<&str>) -> ItemId {
        let slug = title.map(slug).unwrap_or_default();
        if slug.is_empty() { ItemId(digest.short(ID_HEX)) } else { ItemId(format!("{slug}-{}", digest.short(ID_HEX))) }
    }

    /// The id as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Lowercase ASCII words of `title` joined by `-`, at most [`SLUG_MAX`] bytes.
fn slug(title: &str) -> String {
    let mut out = String::new();
    for word in title.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        let extra = word.len() + usize::from(!out.is_empty());
        if out.len() + extra > SLUG_MAX {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out
}

/// The file formats the wiki reads, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// `.md`, `.markdown`: front matter, then markdown kept verbatim.
    Markdown,
    /// `.txt`: front matter allowed, then text kept verbatim.
    Text,
    /// `.html`, `.htm`: tags stripped, `<title>` read.
    Html,
}

impl ItemKind {
    /// The kind for a file name, by its extension (case-insensitive).
    pub fn from_name(name: &str) -> Option<ItemKind> {
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "md" | "markdown" => Some(ItemKind::Markdown),
            "txt" => Some(ItemKind::Text),
            "html" | "htm" => Some(ItemKind::Html),
            _ => None,
        }
    }

    /// Stable lowercase name, as stored in the index.
    pub fn as_str(&self) -> &'static str {
        match self {
            ItemKind::Markdown => "markdown",
            ItemKind::Text => "text",
            ItemKind::Html => "html",
        }
    }
}

/// Why a wiki file was skipped. Each is reported with the file's path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum SkipReason {
    /// The file could not be read (permissions, vanished, I/O).
    Unreadable {
        /// The OS message.
        error: String,
    },
    /// The bytes are not UTF-8.
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// The file holds NUL bytes: a binary file with a text extension.
    Binary {
        /// Byte offset of the first NUL.
        offset: usize,
    },
    /// No text at all after the front matter.
    Empty,
    /// Not a format the wiki reads (by extension).
    Unsupported,
    /// Not a regular file (a FIFO, device or socket, or a symlink to one):
    /// reading it could block or never end.
    NotRegular {
        /// `FIFO`, `character device`, ...
        kind: String,
    },
    /// One of amem's own reports (it begins with [`amem_records::REPORT_HEADING`]):
    /// never evidence for the claims it reports.
    AmemReport,
    /// Larger than the wiki reads in one file.
    TooLarge {
        /// The file's size.
        size: u64,
        /// The cap.
        limit: u64,
    },
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Unreadable { error } => write!(f, "unreadable: {error}"),
            SkipReason::InvalidUtf8 { offset } => write!(f, "not UTF-8 text (invalid bytes at offset {offset})"),
            SkipReason::Binary { offset } => write!(f, "binary file (NUL byte at offset {offset})"),
            SkipReason::Empty => f.write_str("no text after the front matter"),
            SkipReason::Unsupported => f.write_str("not a wiki format (.md, .markdown, .txt, .html, .htm)"),
            SkipReason::NotRegular { kind } => write!(f, "not a regular file ({kind})"),
            SkipReason::AmemReport => f.write_str("an amem audit report, never indexed as a note"),
            SkipReason::TooLarge { size, limit } => write!(f, "{size} bytes, more than the {limit}-byte limit for one file"),
        }
    }
}

/// A wiki file read and ready to chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedItem {
    /// Digest-based id.
    pub id: ItemId,
    /// SHA-256 of the file bytes (the item revision).
    pub digest: Digest,
    /// Format.
    pub kind: ItemKind,
    /// Title from the content, if any.
    pub title: Option<String>,
    /// Front matter `source:` (or `source_url:` / `url:`).
    pub source_url: Option<String>,
    /// Front matter `retrieved_at:` (or `captured_at:`).
    pub retrieved_at: Option<String>,
    /// Front matter or Logseq `aliases:` / `alias::`.
    pub aliases: Vec<String>,
    /// Front matter or Logseq `tags:` (`#` dropped).
    pub tags: Vec<String>,
    /// Front matter or Logseq `date:` (or `created:`), as written.
    pub date: Option<String>,
    /// `[[wikilink]]` and `![[embed]]` targets, as written, once each.
    pub links: Vec<String>,
    /// The text that is chunked: what a reader of the rendered note sees
    /// (links as their display text, properties out, entities decoded), or
    /// the visible text of an HTML page.
    pub body: String,
    /// Set when the front matter could not be read and the note was read
    /// as plain text, whole: the caller names the file with it.
    pub warning: Option<crate::note::NoteWarning>,
    /// When the note says it was written: the latest of its front matter's
    /// `date`, `created`, `updated`, `modified`, `last_modified`, ...
    /// ([`crate::note::WRITTEN_KEYS`]). `None` when it says nothing (the
    /// index then takes the file's modification time).
    pub written: Option<crate::note::WrittenTime>,
    /// Set when one of those values is not a date: the line and the value
    /// (the file's modification time stands in when no other key is read).
    pub time_warning: Option<crate::note::NoteWarning>,
}

/// Read the bytes of a wiki file of the given kind.
///
/// # Errors
/// A [`SkipReason`] when the file is binary, not UTF-8 or has no text. A
/// note whose front matter cannot be read is not an error: it is read as
/// plain text with [`ParsedItem::warning`] set.
pub fn parse_item(bytes: &[u8], kind: ItemKind) -> Result<ParsedItem, SkipReason> {
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(SkipReason::Binary { offset });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| SkipReason::InvalidUtf8 { offset: e.valid_up_to() })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.starts_with(amem_records::REPORT_HEADING) {
        return Err(SkipReason::AmemReport);
    }
    let digest = Digest::of(bytes);
    let note = match kind {
        ItemKind::Markdown | ItemKind::Text => crate::note::read_note(text, kind == ItemKind::Markdown),
        ItemKind::Html => {
            let (title, text) = crate::html_text(text);
            crate::note::Note { title, body: text, ..Default::default() }
        }
    };
    if note.body.trim().is_empty() {
        return Err(SkipReason::Empty);
    }
    let id = ItemId::for_content(&digest, note.title.as_deref());
    Ok(ParsedItem {
        id,
        digest,
        kind,
        title: note.title,
        source_url: note.source_url,
        retrieved_at: note.retrieved_at,
        aliases: note.aliases,
        tags: note.tags,
        date: note.date,
        links: note.links,
        body: note.body,
        warning: note.warning,
        written: note.written,
        time_warning: note.time_warning,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_from_title_and_digest_only() {
        let bytes =
            b"---\ntitle: Sea level: 2023 report\nsource: https://example.org/x\nretrieved_at: 2024-05-01T10:00:00Z\n---\nThe sea rose.\n";
        let it = parse_item(bytes, ItemKind::Markdown).unwrap();
        assert_eq!(it.title.as_deref(), Some("Sea level: 2023 report"));
        assert_eq!(it.source_url.as_deref(), Some("https://example.org/x"));
        assert_eq!(it.retrieved_at.as_deref(), Some("2024-05-01T10:00:00Z"));
        assert_eq!(it.body, "The sea rose.\n");
        let hex = Digest::of(bytes).short(12);
        assert_eq!(it.id.0, format!("sea-level-2023-report-{hex}"));
        assert!(format!("amem://{}#chunk=0", it.id).parse::<amem_records::AmemUri>().is_ok());
        // No title: the hex alone.
        let plain = parse_item(b"just text", ItemKind::Text).unwrap();
        assert_eq!(plain.id.0, Digest::of(b"just text").short(12));
        // Non-ASCII titles keep only their ASCII words.
        assert_eq!(slug("Über 15 °C — année"), "ber-15-c-ann-e");
        assert!(slug(&"word ".repeat(30)).len() <= SLUG_MAX);
    }

    #[test]
    fn notes_metadata_reaches_the_item() {
        let it = parse_item(
            b"---\ntitle: Plan\naliases: [p]\ntags:\n  - work\ndate: 2025-05-01\n---\nSee [[Budget#Launch|the budget note]].\n",
            ItemKind::Markdown,
        )
        .unwrap();
        assert_eq!(
            (it.aliases.as_slice(), it.tags.as_slice(), it.date.as_deref()),
            (&["p".to_string()][..], &["work".to_string()][..], Some("2025-05-01"))
        );
        assert_eq!(it.body, "See the budget note.\n");
        assert_eq!(it.links, ["Budget#Launch"]);
        assert_eq!(it.warning, None);
    }

    #[test]
    fn heading_is_the_title_of_markdown_without_front_matter() {
        let it = parse_item(b"intro\n# Glaciers\nThey melt.", ItemKind::Markdown).unwrap();
        assert_eq!(it.title.as_deref(), Some("Glaciers"));
        let txt = parse_item(b"# not a title in txt", ItemKind::Text).unwrap();
        assert_eq!(txt.title, None);
    }

    #[test]
    fn bad_files_are_reasons_not_panics() {
        assert_eq!(parse_item(b"ab\0cd", ItemKind::Markdown), Err(SkipReason::Binary { offset: 2 }));
        assert_eq!(parse_item(b"ok \xff\xfe", ItemKind::Text), Err(SkipReason::InvalidUtf8 { offset: 3 }));
        // Front matter that cannot be read is a warning, and the file is read whole.
        let open = parse_item(b"---\ntitle: x\nbody never closes", ItemKind::Markdown).unwrap();
        assert_eq!(open.warning.as_ref().map(|w| w.line), Some(1));
        assert_eq!(open.body, "---\ntitle: x\nbody never closes");
        let bad = parse_item(b"---\ntitle: x\nthis line: has: [no close\n---\nbody", ItemKind::Markdown).unwrap();
        assert_eq!(bad.warning.as_ref().map(|w| w.line), Some(3), "{:?}", bad.warning);
        assert!(bad.body.contains("body"));
        assert_eq!(parse_item(b"---\ntitle: x\n---\n \n", ItemKind::Markdown), Err(SkipReason::Empty));
        assert_eq!(parse_item(b"", ItemKind::Markdown), Err(SkipReason::Empty));
    }

    #[test]
    fn front_matter_details() {
        let it = parse_item(b"---\r\n# comment\r\ntitle: \"Quoted\"\r\nurl: u\r\n---\r\nBody", ItemKind::Markdown).unwrap();
        assert_eq!(it.title.as_deref(), Some("Quoted"));
        assert_eq!(it.source_url.as_deref(), Some("u"));
        assert_eq!(it.body, "Body");
        // A rule later in the file is not front matter.
        let it = parse_item(b"Text\n---\nmore", ItemKind::Markdown).unwrap();
        assert_eq!(it.body, "Text\n---\nmore");
        // BOM stripped before looking for front matter.
        let it = parse_item("\u{feff}---\ntitle: B\n---\nx".as_bytes(), ItemKind::Markdown).unwrap();
        assert_eq!(it.title.as_deref(), Some("B"));
    }

    #[test]
    fn kinds_by_extension() {
        assert_eq!(ItemKind::from_name("a.MD"), Some(ItemKind::Markdown));
        assert_eq!(ItemKind::from_name("a.htm"), Some(ItemKind::Html));
        assert_eq!(ItemKind::from_name("a.png"), None);
        assert_eq!(ItemKind::from_name("README"), None);
    }
}
