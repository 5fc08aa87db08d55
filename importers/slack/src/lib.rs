//! `amem-importer-slack`: a Slack workspace export, as a folder or as the
//! `.zip` Slack produces, turned into a lazy stream of [`amem_records::Message`]s.
//!
//! Place in the data flow: first stage. `amem import slack PATH` and
//! `amem audit --source slack:PATH` call [`open`] through
//! `amem_audit::sources`; the stream feeds extraction.
//!
//! Input: `users.json`, `channels.json`, `groups.json`, `mpims.json`,
//! `dms.json` (any may be missing) and `<folder>/<YYYY-MM-DD>.json` day files,
//! where `<folder>` is the channel *name* (the slackdump sample's folder
//! `B75B4C7/` holds channel id `CO69735E8A`), or the DM id. Output: one
//! `Message` per array element of each day file:
//!
//! | field | value |
//! |---|---|
//! | `id` | `<folder>/<ts>`, `ts` kept as the exact string |
//! | `conversation` | `<folder>`, or `<folder>/<thread_ts>` for a thread parent and its replies |
//! | `subject` | the channel name |
//! | `author` | the user's display name from `users.json` (else real name, else id); bots: `username` or `bot_profile.name` |
//! | `sent_at` | `ts` as UTC, to the microsecond |
//! | `text` | `text` with `<@U…>`, `<#C…\|name>`, `<url\|label>`, `<!here>` and `&amp; &lt; &gt;` decoded; the `blocks` rendering when `text` is empty; then attachment text and file titles |
//! | `recipients` | the other members, for DMs and MPIMs only |
//! | `meta` | `ts`, `channel_id`, `conversation_kind`, `subtype`, `bot`/`bot_id`, `user` (the author's user id), `bulk` (a bot or integration: `slack bot_message`, `slack bot B1`), `edited`/`edited_ts`/`edited_by`, `thread_ts`/`thread_parent`/`reply_count`, `reactions`, `attachments`, `files`, `hidden` |
//! | `not_claims` | the subtype for channel events: joins, leaves, topic/purpose/name changes, bot add/remove, pins, tombstones |
//!
//! Streaming: the member list is read at open, then one day file at a time
//! is read, parsed and yielded; nothing else of the archive is held. With a
//! [`TimeWindow`](amem_records::TimeWindow), a day file whose name lies more
//! than a day outside the window is not read at all (day-file names are dates
//! in the exporter's time zone, UTC−12 to UTC+14, so a file can hold messages
//! from the UTC day before or after its name); every message is then checked
//! against the window by its own `ts`.
//!
//! Errors: a path that is neither a folder nor a zip, or a folder with no
//! day files and no `channels.json`/`users.json`, fails [`open`]. A
//! malformed JSON file (position `line L column C`), a non-array day file,
//! a message without `ts` or with a malformed one (position `message[i]`),
//! an unreadable zip member, a channel folder that cannot be read, a day
//! file that is not a regular file (a FIFO, a device, a symlink to one) or
//! is over 256 MiB, each extra copy of a zip member stored twice (position
//! `copy i of k`): each is one [`ImportError`] in the stream, and the stream
//! goes on.
//!
//! ```no_run
//! use amem_records::ImportOptions;
//! let stream = amem_importer_slack::open("export.zip".as_ref(), &ImportOptions::default())?;
//! for item in stream {
//!     match item {
//!         Ok(m) => println!("{} {}: {}", m.sent_at, m.author, m.text),
//!         Err(e) => eprintln!("skipped: {e}"),
//!     }
//! }
//! # Ok::<(), amem_records::ImportError>(())
//! ```
//!
//! Not handled: Enterprise Grid exports with per-workspace subfolders (only
//! one level of `<folder>/<date>.json` is read); file *contents* (only titles
//! and comments: exports hold links, not files); `message_changed` edit
//! history (only the final text and `edited` are in standard exports);
//! `canvas`/`list` members; a thread reply whose parent lies outside the
//! time window keeps its thread conversation but its parent is not yielded;
//! zip members compressed with anything but stored or deflate (the zip crate
//! is built with deflate only).
#![deny(missing_docs)]

mod archive;
mod day;
mod directory;
mod markup;

use amem_records::{ImportError, ImportOptions, Message, MessageStream, TimeWindow};
use archive::Archive;
use day::{DayContext, Planned, convert_planned, parse_day, plan_day};
use directory::{ConvKind, Directory};
use jiff::{SignedDuration, Timestamp, civil::Date, tz::TimeZone};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// What can stop an export from being opened at all.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The path cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The path is readable but is not a Slack export.
    #[error("{path} is not a Slack export: {why}")]
    NotAnExport {
        /// The path.
        path: PathBuf,
        /// What was found instead, and what to pass.
        why: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<Error> for ImportError {
    fn from(e: Error) -> Self {
        let (path, kind) = match &e {
            Error::Io { path, .. } => (path.clone(), "io"),
            Error::NotAnExport { path, .. } => (path.clone(), "not_slack"),
        };
        ImportError::new(path, "start", kind, e.to_string())
    }
}

/// Open a Slack export folder or `.zip` as a lazy stream of messages.
///
/// # Errors
/// The path cannot be read, is neither a folder nor a zip, or holds no day
/// files and no `channels.json`/`users.json`. Problems inside the export come
/// through the stream as [`ImportError`]s.
pub fn open(path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
    Ok(Box::new(SlackStream::open(path, opts.window)?))
}

/// A cheap look: is `path` a Slack export (a folder, or a zip, holding
/// `channels.json` or `users.json`)? A zip's listing is read, never its
/// contents; never an error.
pub fn probe(path: &Path) -> bool {
    Archive::open(path).is_ok_and(|mut a| a.has("channels.json") || a.has("users.json"))
}

/// The metadata files and the kind of conversation each lists.
const METADATA: [(&str, Option<ConvKind>); 5] = [
    ("users.json", None),
    ("channels.json", Some(ConvKind::Channel)),
    ("groups.json", Some(ConvKind::Group)),
    ("mpims.json", Some(ConvKind::Mpim)),
    ("dms.json", Some(ConvKind::Dm)),
];

struct SlackStream {
    archive: Archive,
    dir: Directory,
    label: String,
    window: TimeWindow,
    days: std::vec::IntoIter<(String, String)>,
    pending: VecDeque<Result<Message, ImportError>>,
    /// The day file being read: its bytes and the plan of its elements,
    /// each built into a message when it is its turn.
    day: Option<OpenDay>,
}

/// One day file being read ([`plan_day`]).
struct OpenDay {
    bytes: Vec<u8>,
    file: PathBuf,
    member: String,
    folder: String,
    plan: std::vec::IntoIter<Planned>,
}

impl SlackStream {
    fn open(path: &Path, window: TimeWindow) -> Result<Self> {
        let mut archive = Archive::open(path)?;
        let mut dir = Directory::default();
        let mut pending = VecDeque::new();
        let mut has_metadata = false;
        for (name, kind) in METADATA {
            if !archive.has(name) {
                continue;
            }
            has_metadata |= matches!(name, "users.json" | "channels.json");
            let file = archive.display_path(name);
            let v = match archive.read(name) {
                Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes).map_err(|e| {
                    ImportError::new(&file, format!("line {} column {}", e.line(), e.column()), "json", format!("malformed JSON: {e}"))
                }),
                Err(e) => Err(ImportError::new(&file, "start", "io", e.to_string())),
            };
            match (v, kind) {
                (Ok(v), None) => dir.load_users(&v),
                (Ok(v), Some(k)) => dir.load_conversations(&v, k),
                (Err(e), _) => pending.push_back(Err(e)),
            }
        }
        let (days, skipped) = archive.day_files()?;
        pending.extend(skipped.into_iter().map(Err));
        if days.is_empty() && !has_metadata {
            return Err(Error::NotAnExport {
                path: path.to_path_buf(),
                why: "no <channel>/<YYYY-MM-DD>.json day files and no channels.json or users.json: is this a Slack export root (it should contain channels.json)?".into(),
            });
        }
        Ok(SlackStream { archive, dir, label: path.display().to_string(), window, days: days.into_iter(), pending, day: None })
    }
}

impl Iterator for SlackStream {
    type Item = Result<Message, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if let Some(day) = self.day.as_mut() {
                let ctx = DayContext {
                    archive: &self.label,
                    file: &day.file,
                    member: &day.member,
                    folder: &day.folder,
                    dir: &self.dir,
                    window: self.window,
                };
                match day.plan.next() {
                    Some(planned) => match convert_planned(&day.bytes, planned, &ctx) {
                        Some(item) => return Some(item),
                        None => continue,
                    },
                    None => self.day = None,
                }
            }
            let (folder, name) = self.days.next()?;
            if !day_date(&name).is_some_and(|d| day_may_hold(d, &self.window)) {
                continue;
            }
            let member = format!("{folder}/{name}");
            let file = self.archive.display_path(&member);
            match self.archive.read(&member) {
                Err(e) => return Some(Err(ImportError::new(file, "start", "io", e.to_string()))),
                Ok(bytes) => {
                    let ctx = DayContext {
                        archive: &self.label,
                        file: &file,
                        member: &member,
                        folder: &folder,
                        dir: &self.dir,
                        window: self.window,
                    };
                    let plan = plan_day(&bytes, &ctx).into_iter();
                    self.day = Some(OpenDay { bytes, file, member, folder, plan });
                }
            }
        }
    }
}

/// The date a day file is named for (`2016-01-14.json`), or `None` for any
/// other file name.
pub(crate) fn day_date(name: &str) -> Option<Date> {
    let stem = name.strip_suffix(".json")?;
    if stem.len() != 10 {
        return None;
    }
    stem.parse::<Date>().ok()
}

/// Whether a day file named `date` can hold a message inside `window`.
/// The name is a date in the exporter's time zone (UTC−12 to UTC+14), so its
/// messages lie within [date − 14 h, date + 36 h) UTC; widened to whole days,
/// [date − 1 day, date + 2 days).
fn day_may_hold(date: Date, window: &TimeWindow) -> bool {
    let Ok(start) = TimeZone::UTC.to_timestamp(date.to_datetime(jiff::civil::Time::midnight())) else { return true };
    let day = SignedDuration::from_hours(24);
    let lo = start.checked_sub(day).unwrap_or(Timestamp::MIN);
    let hi = start.checked_add(day * 2).unwrap_or(Timestamp::MAX);
    window.since.is_none_or(|s| hi > s) && window.until.is_none_or(|u| lo < u)
}

/// Parse the bytes of one day file on their own (no `users.json`, folder
/// `fuzz`): the entry point of the `slack_day` fuzz target. Never panics.
pub fn parse_day_bytes(bytes: &[u8]) -> Vec<Result<Message, ImportError>> {
    let dir = Directory::default();
    let ctx = DayContext {
        archive: "fuzz",
        file: Path::new("fuzz/2024-01-01.json"),
        member: "fuzz/2024-01-01.json",
        folder: "fuzz",
        dir: &dir,
        window: TimeWindow::default(),
    };
    parse_day(bytes, &ctx)
}

/// A Slack workspace export, as amem's importers are listed ([`amem_records::Source`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct SlackSource;

impl amem_records::Source for SlackSource {
    fn kind(&self) -> amem_records::SourceKind {
        amem_records::SourceKind::SLACK
    }
    fn describe(&self) -> &'static str {
        "a Slack export (a folder or .zip with channels.json or users.json)"
    }
    fn probe(&self, path: &Path) -> bool {
        probe(path)
    }
    fn open(&self, path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
        open(path, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    proptest::proptest! {
        #[test]
        fn day_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let _ = parse_day_bytes(&bytes);
        }

        #[test]
        fn day_json_never_panics(text in "[\\[\\]{}\",:<>@#!|&;a-z0-9. ]{0,200}") {
            let _ = parse_day_bytes(text.as_bytes());
            let wrapped = format!("[{{\"ts\": \"1.5\", \"text\": \"{}\"}}]", text.replace('"', ""));
            let _ = parse_day_bytes(wrapped.as_bytes());
        }
    }

    #[test]
    fn day_names() {
        assert!(day_date("2016-01-14.json").is_some());
        for bad in ["2016-1-14.json", "2016-01-14.txt", "users.json", "2016-13-01.json", "x2016-01-14.json"] {
            assert!(day_date(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn day_window_is_widened_by_a_day() {
        let d: Date = "2024-05-10".parse().unwrap();
        let w = |s: &str, u: &str| TimeWindow { since: Some(t(s)), until: Some(t(u)) };
        // A UTC+14 exporter's 05-10 starts 05-09T10:00Z; a UTC-12 one's ends 05-11T12:00Z.
        assert!(day_may_hold(d, &w("2024-05-09T00:00:00Z", "2024-05-09T11:00:00Z")));
        assert!(day_may_hold(d, &w("2024-05-11T11:00:00Z", "2024-05-12T00:00:00Z")));
        assert!(!day_may_hold(d, &w("2024-05-12T00:00:00Z", "2024-05-13T00:00:00Z")));
        assert!(!day_may_hold(d, &w("2024-05-01T00:00:00Z", "2024-05-09T00:00:00Z")));
        assert!(day_may_hold(d, &TimeWindow::default()));
    }
}
