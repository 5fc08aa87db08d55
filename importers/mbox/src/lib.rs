//! `amem-importer-mbox`: an mbox file (Google Takeout's `.mbox`, or any
//! mboxo/mboxrd file) as a lazy stream of [`Message`]s.
//!
//! Where it sits: an importer, the first stage of the data flow
//! (`importers ──Message──▶ extract`). Input: a path to an `.mbox` file, or a
//! folder whose `*.mbox` files are read in name order (a Takeout `Mail/`
//! folder). Output: [`MessageStream`], one `Result<Message, ImportError>` per
//! mail.
//!
//! The file is read in large chunks by
//! [`amem_rfc822::MboxSplitter`] (the `mbox-reader` crate was
//! replaced: `docs/adr/0001-mbox-splitting.md`) and the messages are parsed
//! on a few threads by `amem_rfc822::parallel`, in bounded batches and in
//! file order, so memory does not grow with the archive. Each message goes to
//! [`amem_rfc822::parse_message`] with Gmail conventions on:
//! `X-GM-THRID` is the conversation, `X-Gmail-Labels` (encoded words decoded,
//! then read as CSV) go to `meta["labels"]` as a JSON array. Mail without
//! `X-GM-THRID` threads by References/In-Reply-To, else by normalised subject
//! within the file. Errors name the file and the byte offset and line of the
//! message's `From ` line.
//!
//! ```no_run
//! use amem_records::ImportOptions;
//! let stream = amem_importer_mbox::open("All mail Including Spam and Trash.mbox".as_ref(), &ImportOptions::default()).unwrap();
//! for item in stream {
//!     match item {
//!         Ok(m) => println!("{} {}", m.sent_at, m.subject.unwrap_or_default()),
//!         Err(e) => eprintln!("skipped: {e}"),
//!     }
//! }
//! ```
#![deny(missing_docs)]

use amem_records::{ImportError, ImportOptions, Message, MessageStream, SourceKind, TimeWindow};
use amem_rfc822::parallel::{default_workers, ordered_map};
use amem_rfc822::{MailContext, MboxItem, MboxSplitter, RawMessage, parse_message};
use std::fs::File;
use std::path::{Path, PathBuf};

/// One mbox file as an iterator of messages, in file order. The file is
/// split on the calling side of a bounded channel and the messages are
/// parsed on [`default_workers`] threads (`amem_rfc822::parallel`).
pub struct MboxImporter {
    inner: Box<dyn Iterator<Item = Option<Result<Message, ImportError>>> + Send>,
}

/// What the parsing threads need to know about the file.
struct FileInfo {
    path: PathBuf,
    archive: String,
    mailbox: String,
    window: TimeWindow,
}

impl FileInfo {
    fn parse(&self, raw: Result<RawMessage, ImportError>) -> Option<Result<Message, ImportError>> {
        let raw = match raw {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let cx = MailContext {
            source: SourceKind::GMAIL,
            archive: &self.archive,
            locator: format!("{}:byte {}", self.archive, raw.offset),
            mailbox: &self.mailbox,
            gmail: true,
            keep_headers: &[],
            window: self.window,
            unterminated: raw.unterminated,
        };
        match parse_message(&raw.bytes, &cx) {
            Ok(Some(m)) => Some(Ok(m)),
            Ok(None) => None,
            Err(e) => Some(Err(e.into_import(&self.path, format!("byte {}, line {}", raw.offset, raw.line)))),
        }
    }
}

/// The splitter's items as owned raw messages or located errors.
struct RawSource {
    splitter: MboxSplitter<File>,
    path: PathBuf,
    failed: bool,
}

impl Iterator for RawSource {
    type Item = Result<RawMessage, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        Some(match self.splitter.next()? {
            Ok(MboxItem::Message(m)) => Ok(m),
            Ok(MboxItem::TooLarge { offset, line, bytes }) => {
                Err(amem_rfc822::Error::TooLarge(bytes).into_import(&self.path, format!("byte {offset}, line {line}")))
            }
            Err(e) => {
                self.failed = true;
                Err(ImportError::new(&self.path, format!("byte {}", self.splitter.position()), "io", format!("read failed: {e}")))
            }
        })
    }
}

impl MboxImporter {
    /// Open one mbox file, parsing on [`default_workers`] threads.
    ///
    /// # Errors
    /// The file cannot be opened (kind `io`).
    pub fn open(path: &Path, opts: &ImportOptions) -> Result<Self, ImportError> {
        Self::open_with_workers(path, opts, default_workers())
    }

    /// Open one mbox file, parsing on `workers` threads (1: all on the caller's thread).
    ///
    /// # Errors
    /// The file cannot be opened (kind `io`).
    pub fn open_with_workers(path: &Path, opts: &ImportOptions, workers: usize) -> Result<Self, ImportError> {
        // A FIFO would block the open (and the run, holding the home lock);
        // a device never ends. The mbox is streamed, so no size cap.
        amem_records::source_file::check_regular(path, u64::MAX).map_err(|r| ImportError::new(path, "start", r.kind(), r.to_string()))?;
        let file = File::open(path).map_err(|e| ImportError::new(path, "start", "io", format!("cannot open: {e}")))?;
        let mailbox = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
        let source = RawSource { splitter: MboxSplitter::new(file), path: path.to_path_buf(), failed: false };
        let info = FileInfo { path: path.to_path_buf(), archive: path.display().to_string(), mailbox, window: opts.window };
        let panic_path = path.to_path_buf();
        let inner = ordered_map(
            source,
            workers,
            move |raw| info.parse(raw),
            |raw: &Result<RawMessage, ImportError>| raw.as_ref().map_or(0, |m| m.bytes.len() + m.from_line.len()),
            move |i| Some(Err(ImportError::new(&panic_path, format!("message[{i}]"), "internal", "the parser panicked on this message"))),
        );
        Ok(MboxImporter { inner })
    }
}

impl Iterator for MboxImporter {
    type Item = Result<Message, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.inner.next()? {
                return Some(item);
            }
        }
    }
}

/// A cheap look: is `path` an mbox (its first line a `From ` separator), or
/// a folder holding one (`*.mbox`)? Reads a few KiB; never an error.
pub fn probe(path: &Path) -> bool {
    use amem_rfc822::probe::{head, is_mbox_head};
    if !path.is_dir() {
        return is_mbox_head(&head(path));
    }
    std::fs::read_dir(path).is_ok_and(|rd| {
        rd.filter_map(Result::ok)
            .take(256)
            .map(|e| e.path())
            .any(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("mbox")) && is_mbox_head(&head(&p)))
    })
}

/// Open an mbox file, or a folder of `*.mbox` files, as a lazy stream.
///
/// # Errors
/// The path does not exist, cannot be read, or is a folder with no `.mbox`
/// file in it (kind `io`). Problems with single messages come through the
/// stream instead.
pub fn open(path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
    let meta = std::fs::metadata(path).map_err(|e| ImportError::new(path, "start", "io", format!("cannot read: {e}")))?;
    if !meta.is_dir() {
        return Ok(Box::new(MboxImporter::open(path, opts)?));
    }
    let rd = std::fs::read_dir(path).map_err(|e| ImportError::new(path, "start", "io", format!("cannot list folder: {e}")))?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("mbox")))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(ImportError::new(path, "start", "io", "no .mbox file in this folder: give the Takeout .mbox file itself"));
    }
    let opts = opts.clone();
    Ok(Box::new(files.into_iter().flat_map(move |f| -> Box<dyn Iterator<Item = Result<Message, ImportError>> + Send> {
        match MboxImporter::open(&f, &opts) {
            Ok(i) => Box::new(i),
            Err(e) => Box::new(std::iter::once(Err(e))),
        }
    })))
}

/// An mbox file (Gmail Takeout or any other), as amem's importers are listed ([`amem_records::Source`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct MboxSource;

impl amem_records::Source for MboxSource {
    fn kind(&self) -> amem_records::SourceKind {
        amem_records::SourceKind::GMAIL
    }
    fn describe(&self) -> &'static str {
        "an mbox file (its first line a `From ` separator)"
    }
    fn probe(&self, path: &Path) -> bool {
        probe(path)
    }
    fn open(&self, path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
        open(path, opts)
    }
}
