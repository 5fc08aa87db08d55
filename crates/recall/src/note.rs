//! Notes as people keep them: Obsidian-style YAML front matter (lists,
//! nested maps), Logseq `key:: value` properties and outline bullets,
//! `[[wikilinks]]` and `![[embeds]]`, HTML entities (decoded by the text
//! layer, `amem_text::html`).
//!
//! What is read: `title`, `aliases` (`alias`), `tags` (`tag`), `source`
//! (`source_url`, `url`), `date` (`created`), `retrieved_at`
//! (`captured_at`), from the front matter or else from the page's first
//! block of Logseq properties. The body that is chunked is what a reader of
//! the rendered note sees: a link shows its display text
//! (`[[Budget#Launch|the budget note]]` is "the budget note", `[[Budget]]`
//! is "Budget", `[[Budget#Launch]]` is "Budget > Launch"), with the target
//! kept in [`Note::links`]; properties are metadata, not text; bullets of
//! an outline lose their markers.
//!
//! A note whose front matter cannot be read is never dropped: it is read
//! as plain text, whole, with a [`NoteWarning`] naming the line.
//!
//! When a note was written ([`WrittenTime`]) is the latest of the times its
//! front matter (or first block of Logseq properties) gives under
//! [`WRITTEN_KEYS`]; a value there that is not an ISO 8601 date or date-time
//! is a [`NoteWarning`] naming its line, and the caller falls back to the
//! file's modification time.

use std::collections::BTreeMap;
use std::sync::LazyLock;
use yaml_rust2::{Yaml, YamlLoader};

/// Why a note was read as plain text.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NoteWarning {
    /// 1-based line in the file.
    pub line: usize,
    /// What could not be read.
    pub problem: String,
}

/// The front matter keys that say when a note was written or last changed:
/// Obsidian's and Zola's `date`/`created`/`updated`/`modified`, Jekyll's
/// `last_modified_at`, Hugo's `lastmod`, and `last_modified`. A note that
/// gives several was last written at the latest of them.
pub const WRITTEN_KEYS: [&str; 7] = ["date", "created", "updated", "modified", "last_modified", "last_modified_at", "lastmod"];

/// When a note says it was written, and which key said so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenTime {
    /// The time, UTC (a bare date is its midnight UTC; a date-time without
    /// an offset is read as UTC).
    pub at: jiff::Timestamp,
    /// The front matter key it came from, lowercase (`updated`).
    pub key: String,
}

/// A note's metadata and the text a reader sees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Note {
    pub title: Option<String>,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub source_url: Option<String>,
    pub retrieved_at: Option<String>,
    pub date: Option<String>,
    /// Link and embed targets, as written (`Budget#Launch`), in order, once each.
    pub links: Vec<String>,
    pub body: String,
    pub warning: Option<NoteWarning>,
    /// The latest readable time under [`WRITTEN_KEYS`].
    pub written: Option<WrittenTime>,
    /// The first value under [`WRITTEN_KEYS`] that is no date, with its line.
    pub time_warning: Option<NoteWarning>,
}

/// Scalar metadata by lowercase key; lists for `aliases` and `tags`.
#[derive(Default)]
struct Meta {
    scalars: BTreeMap<String, String>,
    lists: BTreeMap<String, Vec<String>>,
}

impl Meta {
    fn scalar(&self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|k| self.scalars.get(*k)).cloned()
    }
    fn list(&self, keys: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for k in keys {
            for v in self.lists.get(*k).into_iter().flatten() {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
        }
        out
    }
}

/// Read a markdown (`heading_title`) or text note.
pub(crate) fn read_note(text: &str, heading_title: bool) -> Note {
    let (meta, rest, warning) = match front_matter(text) {
        FrontMatter::None => (Meta::default(), text, None),
        FrontMatter::Read { meta, body } => (meta, body, None),
        FrontMatter::Broken(w) => (Meta::default(), text, Some(w)),
    };
    let (props, body) = logseq_properties(rest);
    let mut links = Vec::new();
    let body = render_links(&body, &mut links);
    let body = amem_text::html::decode_entities(&body).into_owned();
    let pick = |keys: &[&str]| meta.scalar(keys).or_else(|| props.scalar(keys));
    let title = pick(&["title"])
        .map(|t| amem_text::html::decode_entities(&render_links(&t, &mut Vec::new())).into_owned())
        .or_else(|| if heading_title { first_heading(&body) } else { None });
    let mut aliases = meta.list(&["aliases", "alias"]);
    aliases.extend(props.list(&["aliases", "alias"]).into_iter().filter(|a| !aliases.contains(a)).collect::<Vec<_>>());
    let mut tags = meta.list(&["tags", "tag"]);
    tags.extend(props.list(&["tags", "tag"]).into_iter().filter(|t| !tags.contains(t)).collect::<Vec<_>>());
    let (written, time_warning) = written_time(text, |k| pick(&[k]));
    Note {
        title,
        aliases,
        tags,
        source_url: pick(&["source", "source_url", "url"]),
        retrieved_at: pick(&["retrieved_at", "captured_at"]),
        date: pick(&["date", "created"]),
        links,
        body,
        warning,
        written,
        time_warning,
    }
}

/// The latest time under [`WRITTEN_KEYS`] (`value` looks a key up), and a
/// warning for the first value that is not a time, naming its line in `text`.
fn written_time(text: &str, value: impl Fn(&str) -> Option<String>) -> (Option<WrittenTime>, Option<NoteWarning>) {
    let mut latest: Option<WrittenTime> = None;
    let mut warning = None;
    for key in WRITTEN_KEYS {
        let Some(v) = value(key) else { continue };
        match parse_time(&v) {
            Some(at) if latest.as_ref().is_none_or(|l| at > l.at) => latest = Some(WrittenTime { at, key: key.to_string() }),
            Some(_) => {}
            None if warning.is_none() => {
                warning = Some(NoteWarning {
                    line: line_of_key(text, key),
                    problem: format!("`{key}: {v}` is not an ISO 8601 date or date-time (such as 2019-03-01 or 2019-03-01T10:00:00Z)"),
                });
            }
            None => {}
        }
    }
    (latest, warning)
}

/// An ISO 8601 date or date-time as YAML and people write it in front
/// matter: `2019-03-01`, `2019-03-01T10:00:00Z`, `2019-03-01 10:00`,
/// `2019-03-01 10:00:00 +01:00` (YAML's timestamp allows the space before
/// the offset), `[[2019-03-01]]` (an Obsidian daily-note link). A date-time
/// without an offset is read as UTC: the note says nothing of its zone.
/// This reads one machine-written value, not prose (prose dates are
/// `amem_text::dates`).
fn parse_time(value: &str) -> Option<jiff::Timestamp> {
    let v = value.trim().trim_matches(['"', '\'']).trim();
    let v = v.strip_prefix("[[").and_then(|x| x.strip_suffix("]]")).unwrap_or(v).trim();
    if v.is_empty() || !v.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let joined;
    let v = match v.rfind([' ']) {
        // `2019-03-01 10:00:00 +01:00`: the offset glued to the time.
        Some(i) if i > 10 && v[i + 1..].starts_with(['+', '-', 'Z', 'z']) => {
            joined = format!("{}{}", &v[..i], &v[i + 1..]);
            joined.as_str()
        }
        _ => v,
    };
    if let Ok(t) = v.parse::<jiff::Timestamp>() {
        return Some(t);
    }
    if let Ok(dt) = v.parse::<jiff::civil::DateTime>() {
        return jiff::tz::TimeZone::UTC.to_timestamp(dt).ok();
    }
    let d = v.parse::<jiff::civil::Date>().ok()?;
    jiff::tz::TimeZone::UTC.to_timestamp(d.at(0, 0, 0, 0)).ok()
}

/// The 1-based line where `key:` (front matter) or `key::` (a Logseq
/// property, perhaps as a bullet) is first written; 1 when not found.
fn line_of_key(text: &str, key: &str) -> usize {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let t = t.strip_prefix(['-', '*', '+']).map_or(t, str::trim_start);
        if t.len() > key.len()
            && t.is_char_boundary(key.len())
            && t[..key.len()].eq_ignore_ascii_case(key)
            && t[key.len()..].trim_start().starts_with(':')
        {
            return i + 1;
        }
    }
    1
}

enum FrontMatter<'a> {
    None,
    Read { meta: Meta, body: &'a str },
    Broken(NoteWarning),
}

/// The `---` block at the top, read as YAML; a block that YAML rejects but
/// that is plain `key: value` lines (`title: Sea level: 2023 report`, which
/// hand-written notes are full of) is read line by line.
fn front_matter(text: &str) -> FrontMatter<'_> {
    let first_end = text.find('\n').unwrap_or(text.len());
    if text[..first_end].trim_end() != "---" {
        return FrontMatter::None;
    }
    let mut pos = (first_end + 1).min(text.len());
    let block_start = pos;
    let mut close = None;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |e| pos + e);
        let line = text[pos..end].trim_end_matches('\r').trim_end();
        if line == "---" || line == "..." {
            close = Some((pos, (end + 1).min(text.len())));
            break;
        }
        pos = end + 1;
    }
    let Some((block_end, body_start)) = close else {
        return FrontMatter::Broken(NoteWarning { line: 1, problem: "the `---` front matter block is never closed".into() });
    };
    let block = &text[block_start..block_end];
    let body = &text[body_start..];
    if let Some(problem) = shape_problem(block) {
        return FrontMatter::Broken(problem);
    }
    match YamlLoader::load_from_str(block) {
        Ok(docs) => match docs.into_iter().next() {
            None | Some(Yaml::Null) => FrontMatter::Read { meta: Meta::default(), body },
            Some(Yaml::Hash(h)) => FrontMatter::Read { meta: meta_of_yaml(&h), body },
            Some(_) => FrontMatter::Broken(NoteWarning { line: 2, problem: "the front matter is not a map of `key: value`".into() }),
        },
        Err(e) => match key_value_lines(block) {
            Some(meta) => FrontMatter::Read { meta, body },
            // The scanner counts lines from 1 inside the block, which starts on line 2.
            None => {
                FrontMatter::Broken(NoteWarning { line: e.marker().line() + 1, problem: format!("front matter is not YAML: {}", e.info()) })
            }
        },
    }
}

/// How deep front matter may nest: a note's metadata is a flat map with a
/// few lists; deeper is not metadata, and the YAML loader recurses per level.
const MAX_FRONT_MATTER_DEPTH: usize = 32;

/// Why a front matter block is not handed to the YAML loader, read from its
/// events (the parser's pull API, one event at a time, no tree built): an
/// alias, which the loader expands by copying its anchor's node (nine levels
/// of ten aliases in a 545-byte note are a billion nodes, and the index ran
/// out of memory past 4 GiB), or nesting past [`MAX_FRONT_MATTER_DEPTH`].
/// `None` when neither (or the block does not parse, which the loader says).
fn shape_problem(block: &str) -> Option<NoteWarning> {
    use yaml_rust2::parser::{Event, Parser};
    let mut parser = Parser::new_from_str(block);
    let mut depth = 0usize;
    loop {
        let Ok((event, mark)) = parser.next_token() else { return None };
        // The scanner counts lines from 1 inside the block, which starts on line 2.
        let line = mark.line() + 1;
        match event {
            Event::StreamEnd => return None,
            Event::Alias(_) => {
                return Some(NoteWarning {
                    line,
                    problem: "the front matter uses a YAML alias (`*name`), which amem does not expand".into(),
                });
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                depth += 1;
                if depth > MAX_FRONT_MATTER_DEPTH {
                    return Some(NoteWarning {
                        line,
                        problem: format!("the front matter nests deeper than {MAX_FRONT_MATTER_DEPTH} levels"),
                    });
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
}

fn meta_of_yaml(h: &yaml_rust2::yaml::Hash) -> Meta {
    let mut meta = Meta::default();
    for (k, v) in h {
        let Some(key) = scalar_text(k) else { continue };
        let key = key.to_ascii_lowercase();
        if is_list_key(&key) {
            let items: Vec<String> = match v {
                Yaml::Array(a) => a.iter().filter_map(scalar_text).flat_map(|s| split_list(&key, &s)).collect(),
                other => scalar_text(other).map(|s| split_list(&key, &s)).unwrap_or_default(),
            };
            meta.lists.insert(key, items);
        } else if let Some(s) = scalar_text(v).filter(|s| !s.is_empty()) {
            meta.scalars.insert(key, s);
        }
        // Nested maps and lists under other keys are read (so the note is
        // not broken) but carry nothing amem uses.
    }
    meta
}

fn is_list_key(key: &str) -> bool {
    matches!(key, "aliases" | "alias" | "tags" | "tag")
}

/// One written value as a list: tags split on commas and spaces (`#`
/// dropped), aliases on commas; `[[links]]` lose their brackets.
fn split_list(key: &str, s: &str) -> Vec<String> {
    let tags = matches!(key, "tags" | "tag");
    s.split(|c: char| c == ',' || (tags && c.is_whitespace()))
        .map(|p| {
            p.trim().trim_matches(['\'', '"']).trim_start_matches('#').trim_start_matches("[[").trim_end_matches("]]").trim().to_string()
        })
        .filter(|p| !p.is_empty())
        .collect()
}

fn scalar_text(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) | Yaml::Real(s) => Some(s.trim().to_string()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The lenient reader: every line blank, a `# comment`, or `key: value`.
fn key_value_lines(block: &str) -> Option<Meta> {
    let mut meta = Meta::default();
    for line in block.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (k, v) = t.split_once(':')?;
        let key = k.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return None;
        }
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
            .unwrap_or(v);
        let key = key.to_ascii_lowercase();
        if is_list_key(&key) {
            let v = v.trim_start_matches('[').trim_end_matches(']');
            meta.lists.insert(key.clone(), split_list(&key, v));
        } else if !v.is_empty() {
            meta.scalars.insert(key, v.to_string());
        }
    }
    Some(meta)
}

/// A Logseq property line: `key:: value`, perhaps as a bullet.
static PROPERTY: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"^\s*(?:[-*+]\s+)?([A-Za-z][A-Za-z0-9_-]*):: ?(.*)$").expect("invariant: valid regex"));
/// An outline bullet: indentation, then `-`, `*` or `+` and a space.
static BULLET: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new(r"^\s*[-*+]\s+").expect("invariant: valid regex"));

/// Logseq properties out of the text: the first block's are the page's
/// (returned), later ones belong to blocks (`id::`, `collapsed::`) and are
/// dropped. A page with properties, or whose every line is a bullet (a
/// journal), is an outline, so its bullets lose their markers and
/// indentation.
fn logseq_properties(text: &str) -> (Meta, String) {
    let mut meta = Meta::default();
    let mut in_first_block = true;
    let mut any = false;
    let mut kept: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        // A fenced code line or a URL's `https://` is no property; the regex
        // wants `::` right after a bare key.
        if let Some(c) = PROPERTY.captures(line) {
            any = true;
            if in_first_block {
                let key = c[1].to_ascii_lowercase();
                let value = c[2].trim();
                if is_list_key(&key) {
                    meta.lists.insert(key.clone(), split_list(&key, value));
                } else if !value.is_empty() {
                    meta.scalars.insert(key, value.trim_start_matches("[[").trim_end_matches("]]").to_string());
                }
            }
            continue;
        }
        if !line.trim().is_empty() {
            in_first_block = false;
        }
        kept.push(line);
    }
    let outline = kept.iter().filter(|l| !l.trim().is_empty()).all(|l| BULLET.is_match(l)) && kept.iter().any(|l| !l.trim().is_empty());
    if !any && !outline {
        return (meta, text.to_string());
    }
    let mut body = String::with_capacity(text.len());
    for line in kept {
        let line = match BULLET.find(line) {
            Some(m) => &line[m.end()..],
            None => line.trim_start(),
        };
        body.push_str(line);
        body.push('\n');
    }
    (meta, body)
}

/// `[[target|display]]`, `![[embed]]`, Logseq `#[[tag]]` and `((block refs))`.
static LINK: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"(?:!|#)?\[\[([^\[\]\n]+?)\]\]|\(\(([0-9a-fA-F-]{36})\)\)").expect("invariant: valid regex"));

/// Links shown as their display text; targets pushed to `links`.
fn render_links(text: &str, links: &mut Vec<String>) -> String {
    if !text.contains("[[") && !text.contains("((") {
        return text.to_string();
    }
    LINK.replace_all(text, |c: &regex::Captures<'_>| {
        let Some(inner) = c.get(1) else { return String::new() }; // a block ref shows nothing readable
        let (target, display) = match inner.as_str().split_once('|') {
            Some((t, d)) => (t.trim(), Some(d.trim())),
            None => (inner.as_str().trim(), None),
        };
        if !target.is_empty() && !links.iter().any(|l| l == target) {
            links.push(target.to_string());
        }
        match display {
            Some(d) if !d.is_empty() => d.to_string(),
            _ => match target.split_once('#') {
                Some((page, heading)) if !heading.starts_with('^') && !heading.is_empty() => {
                    if page.is_empty() {
                        heading.to_string()
                    } else {
                        format!("{page} > {heading}")
                    }
                }
                Some((page, _)) => page.to_string(),
                None => target.to_string(),
            },
        }
    })
    .into_owned()
}

/// The first `# ` heading, else the first heading of any level.
fn first_heading(body: &str) -> Option<String> {
    let heading = |want_h1: bool| {
        body.lines().find_map(|l| {
            let hashes = l.bytes().take_while(|&b| b == b'#').count();
            let ok = if want_h1 { hashes == 1 } else { (1..=6).contains(&hashes) };
            l.get(hashes..).filter(|rest| ok && rest.starts_with(' ')).map(|rest| rest.trim().trim_end_matches('#').trim().to_string())
        })
    };
    heading(true).or_else(|| heading(false)).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_lists_nested_maps_and_aliases() {
        let n = read_note(
            "---\ntitle: Launch plan\naliases:\n  - launch\n  - \"Q3 launch\"\ntags:\n  - project\n  - '#budget'\nauthor:\n  name: Ada\n  team: [a, b]\ndate: 2025-05-01\nsource: https://example.org/plan\n---\nThe launch moves to June.\n",
            true,
        );
        assert_eq!(n.warning, None);
        assert_eq!(n.title.as_deref(), Some("Launch plan"));
        assert_eq!(n.aliases, ["launch", "Q3 launch"]);
        assert_eq!(n.tags, ["project", "budget"]);
        assert_eq!(n.date.as_deref(), Some("2025-05-01"));
        assert_eq!(n.source_url.as_deref(), Some("https://example.org/plan"));
        assert_eq!(n.body, "The launch moves to June.\n");
        // Flow lists and a single string.
        let n = read_note("---\ntags: [a, b]\nalias: One\n---\nx", true);
        assert_eq!((n.tags, n.aliases), (vec!["a".to_string(), "b".into()], vec!["One".to_string()]));
        // In YAML ` #` starts a comment; quoted, `#tag` is a tag.
        let n = read_note("---\ntags: alpha beta, '#gamma' # a comment\n---\nx", true);
        assert_eq!(n.tags, ["alpha", "beta", "gamma"]);
    }

    /// Issue 40: a 545-byte note whose front matter nests aliases (a
    /// "billion laughs") made `amem index` abort past 4 GiB. Aliases are not
    /// expanded: the note is plain text with a warning at the alias's line;
    /// front matter nested deeper than the limit likewise.
    #[test]
    fn aliases_and_deep_nesting_are_warnings_not_memory() {
        let mut laughs = String::from("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().zip(["a", "b", "c", "d", "e", "f", "g", "h"]) {
            laughs.push_str(&format!("{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        laughs.push_str("---\nThe body.\n");
        let n = read_note(&laughs, true);
        let w = n.warning.expect("a warning");
        assert!(w.problem.contains("alias") && w.line == 3, "{w:?}");
        assert!(n.body.contains("The body."));
        let deep = format!("---\nk: {}{}\n---\nx\n", "[".repeat(200), "]".repeat(200));
        let w = read_note(&deep, true).warning.expect("a warning");
        assert!(w.problem.contains("deeper than 32") || w.problem.contains("not YAML"), "{w:?}");
        let deep_block = format!("---\n{}---\nx\n", (0..100).map(|i| format!("{}k{i}:\n", "  ".repeat(i))).collect::<String>());
        let w = read_note(&deep_block, true).warning.expect("a warning");
        assert!(w.problem.contains("deeper than 32"), "{w:?}");
    }

    #[test]
    fn hand_written_key_value_lines_still_read() {
        let n = read_note("---\ntitle: Sea level: 2023 report\n---\nThe sea rose.\n", true);
        assert_eq!((n.title.as_deref(), n.warning), (Some("Sea level: 2023 report"), None));
    }

    #[test]
    fn broken_front_matter_is_plain_text_with_its_line() {
        let text = "---\ntitle: x\ntags:\n  - a\n - b\n---\nBody text.\n";
        let n = read_note(text, true);
        let w = n.warning.expect("a warning");
        assert!(w.line >= 4 && w.line <= 5, "{w:?}");
        assert!(w.problem.contains("not YAML"), "{w:?}");
        assert_eq!(n.body, text, "the whole file is the text");
        let open = read_note("---\ntitle: x\nnever closed\n", true);
        assert_eq!(open.warning.map(|w| w.line), Some(1));
        assert!(open.body.contains("never closed"));
        let list = read_note("---\n- a\n- b\n---\nx\n", true);
        assert_eq!(list.warning.map(|w| w.line), Some(2));
    }

    #[test]
    fn wikilinks_and_embeds_show_their_display_text() {
        let n =
            read_note("See [[Budget#Launch|the budget note]], [[Budget]], [[Budget#Launch]], ![[chart.png]] and [[Budget#^ab12]].", true);
        assert_eq!(n.body, "See the budget note, Budget, Budget > Launch, chart.png and Budget.");
        assert_eq!(n.links, ["Budget#Launch", "Budget", "chart.png", "Budget#^ab12"]);
        let n = read_note("Tagged #[[deep work]] and ((64f1c2aa-1111-2222-3333-444455556666)) done.", true);
        assert_eq!(n.body, "Tagged deep work and  done.");
        // Not links.
        assert_eq!(read_note("a [b] [[ c ]] d", true).body, "a [b] c d");
        assert_eq!(read_note("[[]] and [[x\ny]]", true).body, "[[]] and [[x\ny]]");
    }

    #[test]
    fn logseq_properties_and_bullets() {
        let n = read_note(
            "title:: Falcon budget\nalias:: falcon, [[Project Falcon]]\ntags:: finance, planning\n\n- The budget is 4.2 million euros.\n  id:: 64f1c2aa-1111-2222-3333-444455556666\n\t- It was approved in May.\n- See [[Launch]].\n",
            true,
        );
        assert_eq!(n.title.as_deref(), Some("Falcon budget"));
        assert_eq!(n.aliases, ["falcon", "Project Falcon"]);
        assert_eq!(n.tags, ["finance", "planning"]);
        assert_eq!(n.body, "\nThe budget is 4.2 million euros.\nIt was approved in May.\nSee Launch.\n");
        assert_eq!(n.links, ["Launch"]);
        // A journal, all bullets, is an outline too.
        assert_eq!(read_note("- Met Ada.\n\t- About the room.\n", true).body, "Met Ada.\nAbout the room.\n");
        assert_eq!(read_note("Intro\n- one\n", true).body, "Intro\n- one\n");
        // A URL is not a property.
        assert_eq!(read_note("Visit https://example.org today.", true).body, "Visit https://example.org today.");
    }

    #[test]
    fn entities_decoded_and_title_order() {
        let n = read_note("---\ntitle: Caf&eacute; &amp; bar\n---\n5&nbsp;&euro; at the Caf&#xE9; &#8364;.", true);
        assert_eq!(n.title.as_deref(), Some("Café & bar"));
        assert!(n.body.starts_with("5") && n.body.ends_with("€ at the Café €."), "{:?}", n.body);
        assert_eq!(read_note("intro\n## Later\n# Glaciers\n", true).title.as_deref(), Some("Glaciers"));
        assert_eq!(read_note("intro\n## Only h2 ##\n", true).title.as_deref(), Some("Only h2"));
        assert_eq!(read_note("#hashtag not a heading\n", true).title, None);
        assert_eq!(read_note("# heading in text\n", false).title, None);
    }

    #[test]
    fn written_time_is_the_latest_front_matter_date() {
        let at = |s: &str| s.parse::<jiff::Timestamp>().unwrap();
        let n = read_note("---\ntitle: Plan\ndate: 2019-03-01\n---\nBody.\n", true);
        assert_eq!(n.written, Some(WrittenTime { at: at("2019-03-01T00:00:00Z"), key: "date".into() }));
        assert_eq!(n.time_warning, None);
        // Several keys: the latest; a date-time with an offset is read in UTC.
        let n = read_note("---\ncreated: 2018-01-01\nupdated: 2024-01-10 09:00:00 +01:00\nmodified: 2020-05-05T10:00\n---\nBody.\n", true);
        assert_eq!(n.written, Some(WrittenTime { at: at("2024-01-10T08:00:00Z"), key: "updated".into() }));
        let n = read_note("---\nlast_modified: \"2023-11-30T23:59:59Z\"\nDate: 2023-01-01\n---\nBody.\n", true);
        assert_eq!(n.written.map(|w| w.key), Some("last_modified".into()));
        // An Obsidian daily-note link, and a Logseq property.
        assert_eq!(read_note("---\ndate: \"[[2021-06-07]]\"\n---\nBody.\n", true).written.map(|w| w.at), Some(at("2021-06-07T00:00:00Z")));
        assert_eq!(read_note("date:: 2021-06-07\n- Met Ada.\n", true).written.map(|w| w.at), Some(at("2021-06-07T00:00:00Z")));
        // None given.
        assert_eq!(read_note("---\ntitle: x\n---\nBody.\n", true).written, None);
        assert_eq!(read_note("Just text.\n", true).written, None);
    }

    #[test]
    fn a_bad_date_is_a_warning_naming_its_line() {
        let n = read_note("---\ntitle: Faro\ntags: [a]\ndate: next Tuesday\n---\nBody.\n", true);
        assert_eq!(n.written, None);
        let w = n.time_warning.expect("a warning");
        assert_eq!(w.line, 4);
        assert!(w.problem.contains("next Tuesday"), "{}", w.problem);
        assert_eq!(n.warning, None, "the note is still read");
        // A bare year, a day out of range, a date with slashes: none is an ISO 8601 date.
        for bad in ["2019", "2019-02-30", "03/01/2019", "2019-03-01T25:00:00Z"] {
            let n = read_note(&format!("---\ndate: {bad}\n---\nBody.\n"), true);
            assert_eq!((n.written, n.time_warning.map(|w| w.line)), (None, Some(2)), "{bad}");
        }
        // A bad key beside a good one: the good one is the time, and the bad one is still named.
        let n = read_note("---\ndate: soon\nupdated: 2024-01-10\n---\nBody.\n", true);
        assert_eq!(n.written.map(|w| w.key), Some("updated".into()));
        assert_eq!(n.time_warning.map(|w| w.line), Some(2));
    }
}
