//! One wiki file read into an item: kind, front matter, body text, digest-based id.
//!
//! The id is `<slug>-<first 12 hex digits of the SHA-256 of the file bytes>`,
//! where the slug comes from the item's own title (front matter `title:`, a
//! first `# heading`, or the HTML `<title>`), never from the file name: moving
//! or renaming a file keeps its id, and editing it makes a new revision with a
//! new id. Without a title the id is the 12 hex digits alone.

use amem_model::Digest;
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
    /// The `---` front matter block is malformed.
    FrontMatter {
        /// 1-based line of the problem.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// No text at all after the front matter.
    Empty,
    /// Not a format the wiki reads (by extension).
    Unsupported,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Unreadable { error } => write!(f, "unreadable: {error}"),
            SkipReason::InvalidUtf8 { offset } => write!(f, "not UTF-8 text (invalid bytes at offset {offset})"),
            SkipReason::Binary { offset } => write!(f, "binary file (NUL byte at offset {offset})"),
            SkipReason::FrontMatter { line, problem } => write!(f, "broken front matter at line {line}: {problem}"),
            SkipReason::Empty => f.write_str("no text after the front matter"),
            SkipReason::Unsupported => f.write_str("not a wiki format (.md, .markdown, .txt, .html, .htm)"),
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
    /// The text that is chunked: the markdown/text after the front matter,
    /// verbatim, or the visible text of an HTML page.
    pub body: String,
}

/// Read the bytes of a wiki file of the given kind.
///
/// # Errors
/// A [`SkipReason`] when the file is binary, not UTF-8, has broken front
/// matter or no text.
pub fn parse_item(bytes: &[u8], kind: ItemKind) -> Result<ParsedItem, SkipReason> {
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(SkipReason::Binary { offset });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| SkipReason::InvalidUtf8 { offset: e.valid_up_to() })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let digest = Digest::of(bytes);
    let (title, source_url, retrieved_at, body) = match kind {
        ItemKind::Markdown | ItemKind::Text => {
            let (fm, body) = split_front_matter(text)?;
            let title = fm.get("title").cloned().or_else(|| if kind == ItemKind::Markdown { first_heading(body) } else { None });
            let source = fm.get("source").or_else(|| fm.get("source_url")).or_else(|| fm.get("url")).cloned();
            let retrieved = fm.get("retrieved_at").or_else(|| fm.get("captured_at")).cloned();
            (title, source, retrieved, body.to_string())
        }
        ItemKind::Html => {
            let (title, text) = crate::html_text(text);
            (title, None, None, text)
        }
    };
    if body.trim().is_empty() {
        return Err(SkipReason::Empty);
    }
    let id = ItemId::for_content(&digest, title.as_deref());
    Ok(ParsedItem { id, digest, kind, title, source_url, retrieved_at, body })
}

/// Split `---` front matter (YAML-ish `key: value` lines) from the body.
/// Text that does not start with a `---` line has no front matter.
fn split_front_matter(text: &str) -> Result<(std::collections::BTreeMap<String, String>, &str), SkipReason> {
    let mut map = std::collections::BTreeMap::new();
    let first_end = text.find('\n').unwrap_or(text.len());
    if text[..first_end].trim_end() != "---" {
        return Ok((map, text));
    }
    let mut pos = (first_end + 1).min(text.len());
    let mut line_no = 1;
    while pos < text.len() {
        line_no += 1;
        let end = text[pos..].find('\n').map_or(text.len(), |e| pos + e);
        let line = text[pos..end].trim_end_matches('\r');
        let next = (end + 1).min(text.len());
        if line.trim_end() == "---" || line.trim_end() == "..." {
            return Ok((map, &text[next..]));
        }
        let trimmed = line.trim();
        if !(trimmed.is_empty() || trimmed.starts_with('#')) {
            let Some((k, v)) = line.split_once(':') else {
                return Err(SkipReason::FrontMatter { line: line_no, problem: format!("expected `key: value`, found {trimmed:?}") });
            };
            let key = k.trim();
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                return Err(SkipReason::FrontMatter { line: line_no, problem: format!("bad key {key:?}") });
            }
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
                .unwrap_or(v);
            if !v.is_empty() {
                map.insert(key.to_ascii_lowercase(), v.to_string());
            }
        }
        pos = next;
        if end == text.len() {
            break;
        }
    }
    Err(SkipReason::FrontMatter { line: 1, problem: "the `---` block is never closed".to_string() })
}

/// The text of the first `# ` heading.
fn first_heading(body: &str) -> Option<String> {
    body.lines().find_map(|l| l.strip_prefix("# ")).map(|t| t.trim().to_string()).filter(|t| !t.is_empty())
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
        assert!(format!("amem://{}#chunk=0", it.id).parse::<amem_model::AmemUri>().is_ok());
        // No title: the hex alone.
        let plain = parse_item(b"just text", ItemKind::Text).unwrap();
        assert_eq!(plain.id.0, Digest::of(b"just text").short(12));
        // Non-ASCII titles keep only their ASCII words.
        assert_eq!(slug("Über 15 °C — année"), "ber-15-c-ann-e");
        assert!(slug(&"word ".repeat(30)).len() <= SLUG_MAX);
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
        assert!(matches!(parse_item(b"---\ntitle: x\nbody never closes", ItemKind::Markdown), Err(SkipReason::FrontMatter { .. })));
        assert!(matches!(
            parse_item(b"---\ntitle: x\nthis line has no colon\n---\nbody", ItemKind::Markdown),
            Err(SkipReason::FrontMatter { line: 3, .. })
        ));
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
