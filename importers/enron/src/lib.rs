//! `amem-importer-enron`: the Enron mail corpus in its two published forms,
//! as lazy streams of [`Message`]s.
//!
//! Where it sits: an importer, the first stage of the data flow. Inputs:
//! - the CMU maildir tree ([`open`]): `maildir/<user>/<folder>/<n>.`, given
//!   as the `maildir` root, one user's folder, one mail folder, or one file.
//!   Folders nest (`buy-r/personal/home_buy/`). The tree is walked lazily,
//!   depth first, one directory listing at a time, in a stable order (files by
//!   their number, then subfolders by name), so memory does not grow with the
//!   corpus and two runs yield the same order.
//! - the Kaggle `emails.csv` ([`open_csv`]): columns `file,message`, one
//!   whole RFC 822 message per RFC 4180-quoted cell, read record by record
//!   with the `csv` crate. `file` is the maildir path without `maildir/`
//!   (`allen-p/_sent_mail/1.`).
//!
//! Output: [`MessageStream`]. Each mail goes through
//! [`amem_rfc822::parse_message`]: the `Date:` header is read first
//! and mail outside the window is dropped before its body is decoded;
//! `X-From`, `X-To`, `X-cc`, `X-bcc`, `X-Folder`, `X-Origin` and `X-FileName`
//! are kept in `meta` under their lowercase names, with `meta["file"]` the
//! path below the maildir root (the same string the CSV's `file` column
//! holds). Conversation: the References/In-Reply-To root, else the subject
//! with `RE:`/`FW:` stripped, scoped to the custodian's mailbox
//! (`buy-r/subject:western frontier`). Quoted `-----Original Message-----`
//! and `Forwarded by` blocks are separated from the author's text.
//!
//! ```no_run
//! use amem_records::ImportOptions;
//! for item in amem_importer_enron::open("maildir".as_ref(), &ImportOptions::default()).unwrap() {
//!     if let Ok(m) = item {
//!         println!("{} {} {}", m.meta["file"], m.author, m.text.len());
//!     }
//! }
//! ```
#![deny(missing_docs)]

use amem_records::{ImportError, ImportOptions, Message, MessageStream, SourceKind, TimeWindow};
use amem_rfc822::parallel::{default_workers, ordered_map};
use amem_rfc822::{ENRON_X_HEADERS, MailContext, parse_message};
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Largest single mail file read (64 MiB): the biggest CMU Enron file is
/// about 2 MB; past this it is not a mail.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Largest single CSV record read (64 MiB, the mbox importer's cap on one
/// message): the csv crate holds a whole record in memory, so a record past
/// this is skipped, counted, and reading resumes at the next record.
pub const MAX_CSV_RECORD_BYTES: u64 = amem_rfc822::mbox::DEFAULT_MAX_MESSAGE_BYTES as u64;

/// How the mailbox (custodian) of a file is found from its path below the root.
#[derive(Debug, Clone)]
enum MailboxRule {
    /// Root is the `maildir` folder: the first path component is the custodian.
    FirstComponent,
    /// Root is one custodian's folder (or a folder inside one): this name.
    Fixed(String),
}

/// A maildir tree as an iterator of messages, read and parsed on the
/// calling thread ([`open`] parses on several).
pub struct MaildirImporter {
    tree: Tree,
    walk: Walk,
}

/// What reading one file of the tree needs; shared with parsing threads.
#[derive(Debug, Clone)]
struct Tree {
    root: PathBuf,
    archive: String,
    rule: MailboxRule,
    window: TimeWindow,
}

/// The lazy depth-first walk: paths of files below the root.
struct Walk {
    root: PathBuf,
    /// Directories being walked, with the entries still to visit.
    stack: Vec<Frame>,
}

struct Frame {
    /// Path below the root.
    rel: PathBuf,
    /// Entries still to visit, reversed (pop from the end). Names as the
    /// file system gives them: a name that is not UTF-8 is still a file to
    /// read, and its lossy form would name one that does not exist.
    entries: Vec<(bool, OsString)>,
}

/// Sort key: files before folders, then by the number a CMU file name
/// carries (`2.` before `10.`), then by name.
fn entry_key(is_dir: bool, name: &str) -> (bool, u64, String) {
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    let n = if digits.is_empty() { u64::MAX } else { digits.parse().unwrap_or(u64::MAX) };
    (is_dir, n, name.to_string())
}

fn list_dir(dir: &Path) -> std::io::Result<Vec<(bool, OsString)>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name();
        if name.as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let ft = match e.file_type() {
            Ok(t) => t,
            Err(_) => continue,
        };
        // Never follow symlinks into folders (no cycles). Everything else
        // is a file to read: one that is not a regular file (a FIFO, a
        // device, a symlink to one) is refused when read, and counted.
        let is_dir = ft.is_dir();
        if is_dir || !(ft.is_symlink() && e.path().is_dir()) {
            v.push((is_dir, name));
        }
    }
    v.sort_by_cached_key(|(d, n)| entry_key(*d, &n.to_string_lossy()));
    v.reverse();
    Ok(v)
}

impl MaildirImporter {
    /// Open a maildir root, a custodian folder, a mail folder or one file.
    ///
    /// # Errors
    /// The path cannot be read (kind `io`).
    pub fn open(path: &Path, opts: &ImportOptions) -> Result<Self, ImportError> {
        let meta = std::fs::metadata(path).map_err(|e| ImportError::new(path, "start", "io", format!("cannot read: {e}")))?;
        let name_of = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let archive = path.display().to_string();
        if meta.is_file() {
            let parent = path.parent().unwrap_or(Path::new(""));
            let user = parent.parent().map(name_of).filter(|n| !n.is_empty()).unwrap_or_else(|| name_of(parent));
            let name = path.file_name().map(OsString::from).unwrap_or_default();
            let root = parent.to_path_buf();
            return Ok(MaildirImporter {
                tree: Tree { root: root.clone(), archive, rule: MailboxRule::Fixed(user), window: opts.window },
                walk: Walk { root, stack: vec![Frame { rel: PathBuf::new(), entries: vec![(false, name)] }] },
            });
        }
        let entries = list_dir(path).map_err(|e| ImportError::new(path, "start", "io", format!("cannot list folder: {e}")))?;
        let rule = detect_rule(path, &entries);
        Ok(MaildirImporter {
            tree: Tree { root: path.to_path_buf(), archive, rule, window: opts.window },
            walk: Walk { root: path.to_path_buf(), stack: vec![Frame { rel: PathBuf::new(), entries }] },
        })
    }

    /// The same walk, with files read and parsed on `workers` threads; the
    /// order of the output is unchanged.
    pub fn into_parallel(self, workers: usize) -> MessageStream {
        let MaildirImporter { tree, walk } = self;
        let root = tree.root.clone();
        let root_w = tree.root.clone();
        let stream = ordered_map(
            walk,
            workers,
            move |rel: Result<PathBuf, ImportError>| rel.and_then(|rel| tree.read_one(&rel)).transpose(),
            // The file is read by the worker: its size, from a stat, is what it will hold.
            move |rel: &Result<PathBuf, ImportError>| {
                rel.as_ref()
                    .ok()
                    .and_then(|r| std::fs::metadata(root_w.join(r)).ok())
                    .map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX))
            },
            move |i| Some(Err(ImportError::new(&root, format!("file[{i}]"), "internal", "the parser panicked on this file"))),
        );
        Box::new(stream.flatten())
    }
}

impl Tree {
    fn mailbox(&self, rel: &Path) -> String {
        match &self.rule {
            MailboxRule::Fixed(s) => s.clone(),
            MailboxRule::FirstComponent => {
                rel.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default()
            }
        }
    }

    fn read_one(&self, rel: &Path) -> Result<Option<Message>, ImportError> {
        let full = self.root.join(rel);
        let bytes = read_capped(&full).map_err(|e| ImportError::new(&full, "byte 0", e.0, e.1))?;
        let mailbox = self.mailbox(rel);
        let file = self.file_key(rel);
        let cx = MailContext {
            source: SourceKind::ENRON,
            archive: &self.archive,
            locator: full.display().to_string(),
            mailbox: &mailbox,
            gmail: false,
            keep_headers: ENRON_X_HEADERS,
            window: self.window,
            unterminated: false,
        };
        match parse_message(&bytes, &cx) {
            Ok(Some(mut m)) => {
                m.meta.insert("file".into(), file);
                Ok(Some(m))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(e.into_import(&full, "byte 0")),
        }
    }

    /// `user/folder/n.` (the CSV's `file` form) for a path below the root.
    fn file_key(&self, rel: &Path) -> String {
        let rel = rel.to_string_lossy().replace('\\', "/");
        match &self.rule {
            MailboxRule::FirstComponent => rel,
            MailboxRule::Fixed(user) => {
                // Re-root below the custodian folder when the walk started inside it.
                let root_name = self.root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                if &root_name == user { format!("{user}/{rel}") } else { format!("{user}/{root_name}/{rel}") }
            }
        }
    }
}

/// Is `root` the `maildir` folder (custodian folders below it, whose mail
/// folders hold files) or a custodian's own folder (mail folders below it
/// holding files directly) or a mail folder (files directly)?
fn detect_rule(root: &Path, entries: &[(bool, OsString)]) -> MailboxRule {
    let name_of = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if entries.iter().any(|(d, _)| !d) {
        // Files right here: a mail folder. The custodian is the folder above.
        let user = root.parent().map(name_of).filter(|n| !n.is_empty()).unwrap_or_else(|| name_of(root));
        return MailboxRule::Fixed(user);
    }
    // Hidden files do not count: the five-custodian tarball has a macOS
    // `.DS_Store` directly in `buy-r/`, `keavey-p/` and `presto-k/`.
    let child_has_files = entries.iter().filter(|(d, _)| *d).any(|(_, n)| {
        std::fs::read_dir(root.join(n))
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .any(|e| e.file_type().is_ok_and(|t| t.is_file()) && !e.file_name().to_string_lossy().starts_with('.'))
            })
            .unwrap_or(false)
    });
    if child_has_files { MailboxRule::Fixed(name_of(root)) } else { MailboxRule::FirstComponent }
}

fn read_capped(p: &Path) -> Result<Vec<u8>, (&'static str, String)> {
    amem_records::source_file::read_regular(p, MAX_FILE_BYTES).map_err(|r| (r.kind(), format!("{r}, skipped")))
}

impl Iterator for Walk {
    type Item = Result<PathBuf, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let frame = self.stack.last_mut()?;
            let Some((is_dir, name)) = frame.entries.pop() else {
                self.stack.pop();
                continue;
            };
            let rel = frame.rel.join(&name);
            if is_dir {
                match list_dir(&self.root.join(&rel)) {
                    Ok(entries) => self.stack.push(Frame { rel, entries }),
                    Err(e) => return Some(Err(ImportError::new(self.root.join(&rel), "folder", "io", format!("cannot list folder: {e}")))),
                }
                continue;
            }
            return Some(Ok(rel));
        }
    }
}

impl Iterator for MaildirImporter {
    type Item = Result<Message, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let rel = match self.walk.next()? {
                Ok(rel) => rel,
                Err(e) => return Some(Err(e)),
            };
            match self.tree.read_one(&rel) {
                Ok(Some(m)) => return Some(Ok(m)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Open a maildir tree (root, custodian, folder or single file) as a lazy stream.
///
/// # Errors
/// The path does not exist or cannot be listed (kind `io`).
pub fn open(path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
    Ok(MaildirImporter::open(path, opts)?.into_parallel(default_workers()))
}

/// A cheap look: is `path` Enron-style mail, that is one RFC 822 message
/// file or a folder tree whose first mail file (the walk's order, hidden
/// files aside, at most four folders down) starts with header fields? Reads
/// a few listings and a few KiB; never an error.
pub fn probe(path: &Path) -> bool {
    use amem_rfc822::probe::{head, is_message_head};
    fn first_file(dir: &Path, depth: usize) -> Option<PathBuf> {
        let mut entries = list_dir(dir).ok()?;
        entries.retain(|(_, n)| !n.as_encoded_bytes().starts_with(b"."));
        entries.truncate(512);
        entries.sort_by_cached_key(|(d, n)| entry_key(*d, &n.to_string_lossy()));
        for (is_dir, name) in entries {
            let p = dir.join(&name);
            if !is_dir {
                return Some(p);
            }
            if depth > 0
                && let Some(f) = first_file(&p, depth - 1)
            {
                return Some(f);
            }
        }
        None
    }
    let file = if path.is_dir() { first_file(path, 4) } else { Some(path.to_path_buf()) };
    file.is_some_and(|f| is_message_head(&head(&f)))
}

/// A cheap look: is `path` a CSV whose header row names the `file` and
/// `message` columns (the Kaggle Enron `emails.csv`)? Reads a few KiB;
/// never an error.
pub fn probe_csv(path: &Path) -> bool {
    if path.is_dir() {
        return false;
    }
    let head = amem_rfc822::probe::head(path);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(head.as_slice());
    reader.byte_headers().is_ok_and(|h| {
        let has = |want: &str| h.iter().any(|c| String::from_utf8_lossy(c).trim().eq_ignore_ascii_case(want));
        has("file") && has("message")
    })
}

/// The Kaggle `file,message` CSV as an iterator of messages, parsed on the
/// calling thread ([`open_csv`] parses on several).
pub struct CsvImporter {
    rows: CsvRows,
    ctx: CsvContext,
}

/// The record reader: one `(line, file, message bytes)` per CSV record.
///
/// A quote error cannot be seen in what the csv crate returns: it reads a
/// stray `"` leniently, so the broken record is cut short (or swallows the
/// next one) and the records after it are read out of phase. In the Kaggle
/// layout (`file,"Message-ID: ..."`, one record per mail) every record ends
/// with the closing quote and a line break, and every record starts a line
/// with `<file>,"Message-ID:`. So each record is checked against the raw
/// bytes: one that does not end so, or whose message holds the start of
/// another record, is reported at the line where it starts, and reading
/// resumes at the next line that starts a record ([`CsvRows::resync`]).
struct CsvRows {
    reader: csv::Reader<CappedFile>,
    record: csv::ByteRecord,
    /// Where the record being read may end at most (file offset), shared
    /// with the [`CappedFile`] under the reader.
    record_limit: Arc<AtomicU64>,
    /// Largest record read, in bytes.
    max_record_bytes: u64,
    path: PathBuf,
    file_col: usize,
    message_col: usize,
    done: bool,
    /// A second handle on the file, for the checks against the raw bytes;
    /// `None` until the first record shows the Kaggle layout.
    raw: Option<File>,
    /// The file's length when opened.
    len: u64,
    /// Whether the layout was decided (from the first record).
    layout_known: bool,
}

/// How a record of the Kaggle layout starts its line: a file key with no
/// quote or comma, then the quoted message's first header.
const RECORD_START: &[u8] = b",\"Message-ID:";

/// True when a line after the first of `message` starts a Kaggle record
/// (one search over the whole message; lines are looked at only on a hit).
fn holds_record_start(message: &[u8]) -> bool {
    memchr::memmem::find_iter(message, RECORD_START).any(|hit| match memchr::memrchr(b'\n', &message[..hit]) {
        Some(nl) => starts_record(&message[nl + 1..]),
        None => false,
    })
}

/// True when `line` (without its line break) starts a Kaggle record.
fn starts_record(line: &[u8]) -> bool {
    memchr::memmem::find(line, RECORD_START).is_some_and(|i| i > 0 && !line[..i].iter().any(|b| matches!(b, b'"' | b',')))
}

/// The CSV file under the csv crate's reader, refusing to read past the
/// current record's limit: the reader asks for more bytes only while the
/// record is unfinished, so a read at the limit means the record is larger
/// than the cap, and it fails before the record's buffer can grow further.
struct CappedFile {
    file: File,
    pos: u64,
    limit: Arc<AtomicU64>,
}

/// The error [`CappedFile`] returns at the limit, recognised by [`CsvRows`].
#[derive(Debug)]
struct RecordTooLarge;

impl std::fmt::Display for RecordTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("record too large")
    }
}

impl std::error::Error for RecordTooLarge {}

impl Read for CappedFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = self.limit.load(Ordering::Relaxed).saturating_sub(self.pos);
        if room == 0 && !buf.is_empty() {
            return Err(std::io::Error::other(RecordTooLarge));
        }
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let n = self.file.read(&mut buf[..want])?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for CappedFile {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.pos = self.file.seek(to)?;
        Ok(self.pos)
    }
}

/// Where reading goes on after a broken record ([`CsvRows::resume_after`]),
/// with the line the broken record starts on.
enum Resume {
    /// At the line `at`, the start of the next record.
    At { broken: u64, at: u64 },
    /// Nowhere: no record starts after it.
    End { broken: u64 },
}

/// One CSV record, owned.
struct Row {
    line: u64,
    file: String,
    raw: Vec<u8>,
}

/// What parsing one record needs; shared with parsing threads.
struct CsvContext {
    path: PathBuf,
    archive: String,
    window: TimeWindow,
}

impl CsvImporter {
    /// Open the CSV and check its header names a `file` and a `message` column.
    ///
    /// # Errors
    /// The file cannot be opened, or its header row lacks those columns (kind `io` / `csv`).
    pub fn open(path: &Path, opts: &ImportOptions) -> Result<Self, ImportError> {
        Self::open_with_cap(path, opts, MAX_CSV_RECORD_BYTES)
    }

    /// [`CsvImporter::open`] with another cap on one record (in bytes).
    ///
    /// # Errors
    /// As [`CsvImporter::open`].
    pub fn open_with_cap(path: &Path, opts: &ImportOptions, max_record_bytes: u64) -> Result<Self, ImportError> {
        let f = File::open(path).map_err(|e| ImportError::new(path, "start", "io", format!("cannot open: {e}")))?;
        let record_limit = Arc::new(AtomicU64::new(max_record_bytes.max(1)));
        let capped = CappedFile { file: f, pos: 0, limit: Arc::clone(&record_limit) };
        let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).buffer_capacity(256 << 10).from_reader(capped);
        let headers =
            reader.byte_headers().map_err(|e| ImportError::new(path, "line 1", "csv", format!("cannot read the header row: {e}")))?;
        let col = |want: &str| headers.iter().position(|h| String::from_utf8_lossy(h).trim().eq_ignore_ascii_case(want));
        let (Some(file_col), Some(message_col)) = (col("file"), col("message")) else {
            return Err(ImportError::new(
                path,
                "line 1",
                "csv",
                "the header row has no `file` and `message` columns: is this the Kaggle Enron emails.csv?",
            ));
        };
        Ok(CsvImporter {
            rows: CsvRows {
                reader,
                record: csv::ByteRecord::new(),
                record_limit,
                max_record_bytes: max_record_bytes.max(1),
                path: path.to_path_buf(),
                file_col,
                message_col,
                done: false,
                raw: None,
                len: std::fs::metadata(path).map_or(0, |m| m.len()),
                layout_known: false,
            },
            ctx: CsvContext { path: path.to_path_buf(), archive: path.display().to_string(), window: opts.window },
        })
    }

    /// The same records, parsed on `workers` threads; the order of the output is unchanged.
    pub fn into_parallel(self, workers: usize) -> MessageStream {
        let CsvImporter { rows, ctx } = self;
        let path = ctx.path.clone();
        let stream = ordered_map(
            rows,
            workers,
            move |row: Result<Row, ImportError>| row.and_then(|r| ctx.parse(r)).transpose(),
            |row: &Result<Row, ImportError>| row.as_ref().map_or(0, |r| r.raw.len()),
            move |i| Some(Err(ImportError::new(&path, format!("record[{i}]"), "internal", "the parser panicked on this record"))),
        );
        Box::new(stream.flatten())
    }
}

impl CsvRows {
    /// Is the record just read whole? `Err` carries the error to report
    /// when it is not (reading has then moved on to the next record start).
    fn check(&mut self, start: &csv::Position, message: &[u8]) -> Result<(), ImportError> {
        if !self.layout_known {
            self.layout_known = true;
            if message.starts_with(b"Message-ID:") {
                self.raw = File::open(&self.path).ok();
            }
        }
        let Some(raw) = self.raw.as_mut() else { return Ok(()) };
        let end = self.reader.position().byte();
        let mut tail = [0u8; 3];
        let n = usize::try_from(end.min(3)).unwrap_or(0);
        let closed = n > 0
            && raw.seek(SeekFrom::Start(end - n as u64)).is_ok()
            && raw.read_exact(&mut tail[..n]).is_ok()
            // After a `\r\n` terminator the csv crate may stand between the
            // two bytes (it takes the `\n` with the next record).
            && (tail[..n].ends_with(b"\"\n") || tail[..n].ends_with(b"\"\r\n") || tail[..n].ends_with(b"\"\r") || (end == self.len && tail[n - 1] == b'"'));
        let swallowed = holds_record_start(message);
        if closed && !swallowed {
            return Ok(());
        }
        match self.resume_after(start)? {
            Resume::At { broken, at } => Err(ImportError::new(
                &self.path,
                format!("line {broken}"),
                "csv_quote",
                format!(
                    "unbalanced quote in the record starting here: it runs to line {at}, where reading resumes; its message is not imported"
                ),
            )),
            Resume::End { broken } => Err(ImportError::new(
                &self.path,
                format!("line {broken}"),
                "truncated",
                "the last record is cut short (its quote never closes before the end of the file): its message is not imported",
            )),
        }
    }

    /// Move the reader past the broken record starting at `start`, to the
    /// next line that starts a Kaggle record; at the end of the file,
    /// reading is done.
    ///
    /// # Errors
    /// The seek to that line failed (kind `io`).
    fn resume_after(&mut self, start: &csv::Position) -> Result<Resume, ImportError> {
        let mut broken = start.line();
        match self.resync(start, &mut broken) {
            Some(next) => {
                let at = next.line();
                self.reader.seek(next).map_err(|e| ImportError::new(&self.path, format!("line {at}"), "io", e.to_string()))?;
                Ok(Resume::At { broken, at })
            }
            None => {
                self.done = true;
                Ok(Resume::End { broken })
            }
        }
    }

    /// Skip the record starting at `start`, which is over the cap: its
    /// buffer is freed and reading resumes at the next line that starts a
    /// Kaggle record (or stops, when there is none).
    fn skip_too_large(&mut self, start: &csv::Position) -> ImportError {
        self.record = csv::ByteRecord::new();
        self.record_limit.store(u64::MAX, Ordering::Relaxed);
        if self.raw.is_none() {
            self.raw = File::open(&self.path).ok();
        }
        let cap = self.max_record_bytes;
        match self.resume_after(start) {
            Ok(Resume::At { broken, at }) => ImportError::new(
                &self.path,
                format!("line {broken}"),
                "too_large",
                format!("the record starting here is larger than {cap} bytes: skipped, reading resumes at line {at}"),
            ),
            Ok(Resume::End { broken }) => ImportError::new(
                &self.path,
                format!("line {broken}"),
                "too_large",
                format!(
                    "the record starting here is larger than {cap} bytes and no record starts after it: the rest of the file is not read"
                ),
            ),
            Err(e) => {
                self.done = true;
                e
            }
        }
    }

    /// The position of the first line after `start` that starts a record.
    /// `line` is set to the line the broken record starts on.
    fn resync(&mut self, start: &csv::Position, line_of_start: &mut u64) -> Option<csv::Position> {
        let raw = self.raw.as_mut()?;
        raw.seek(SeekFrom::Start(start.byte())).ok()?;
        let mut lines = BufReader::with_capacity(256 << 10, &*raw);
        // Only a line's head is kept: a record start is a short file key and
        // `,"Message-ID:`, and a line may be as long as the file.
        let mut head = Vec::with_capacity(LINE_HEAD);
        let (mut byte, mut line) = (start.byte(), start.line());
        let mut first = true;
        loop {
            head.clear();
            let (n, ended) = read_line_head(&mut lines, &mut head)?;
            if n == 0 {
                return None;
            }
            if first && n == 1 && ended {
                // After a `\r\n` the csv crate places the record at the `\n`
                // that ends the line before it, not yet counted: the record
                // itself starts on the next line.
                byte += 1;
                line += 1;
                *line_of_start = line;
                continue;
            }
            if !first && starts_record(&head) {
                let mut p = csv::Position::new();
                p.set_byte(byte).set_line(line).set_record(start.record() + 1);
                return Some(p);
            }
            first = false;
            byte += n;
            line += 1;
        }
    }
}

/// Bytes of a line's head that [`CsvRows::resync`] looks at.
const LINE_HEAD: usize = 4096;

/// Read one line of `r` (through its `\n`), keeping at most [`LINE_HEAD`]
/// bytes of it (without the `\n`) in `head`. Returns the line's length in
/// bytes and whether it ended with `\n`; `None` on a read error.
fn read_line_head(r: &mut impl BufRead, head: &mut Vec<u8>) -> Option<(u64, bool)> {
    let mut n = 0u64;
    loop {
        let buf = r.fill_buf().ok()?;
        if buf.is_empty() {
            return Some((n, false));
        }
        let (take, ended) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let body = &buf[..if ended { take - 1 } else { take }];
        let room = LINE_HEAD.saturating_sub(head.len());
        head.extend_from_slice(&body[..body.len().min(room)]);
        r.consume(take);
        n += take as u64;
        if ended {
            return Some((n, true));
        }
    }
}

/// Is `e` the [`CappedFile`]'s refusal to read past a record's cap?
fn too_large(e: &csv::Error) -> bool {
    match e.kind() {
        csv::ErrorKind::Io(io) => io.get_ref().is_some_and(|inner| inner.is::<RecordTooLarge>()),
        _ => false,
    }
}

impl Iterator for CsvRows {
    type Item = Result<Row, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next_start = self.reader.position().clone();
        self.record_limit.store(next_start.byte().saturating_add(self.max_record_bytes), Ordering::Relaxed);
        match self.reader.read_byte_record(&mut self.record) {
            Ok(false) => {
                self.done = true;
                return None;
            }
            Ok(true) => {}
            Err(e) if too_large(&e) => return Some(Err(self.skip_too_large(&next_start))),
            Err(e) => {
                let line = e.position().map_or_else(|| "unknown line".to_string(), |p| format!("line {}", p.line()));
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    self.done = true;
                }
                return Some(Err(ImportError::new(&self.path, line, "csv", e.to_string())));
            }
        }
        let start = self.record.position().cloned().unwrap_or_else(csv::Position::new);
        let line = start.line();
        let (Some(file), Some(raw)) = (self.record.get(self.file_col), self.record.get(self.message_col)) else {
            return Some(Err(ImportError::new(&self.path, format!("line {line}"), "csv", "record lacks the file or message column")));
        };
        let (file, raw) = (String::from_utf8_lossy(file).into_owned(), raw.to_vec());
        if let Err(e) = self.check(&start, &raw) {
            return Some(Err(e));
        }
        Some(Ok(Row { line, file, raw }))
    }
}

impl CsvContext {
    fn parse(&self, row: Row) -> Result<Option<Message>, ImportError> {
        let Row { line, file, raw } = row;
        let mailbox = file.split(['/', '\\']).next().unwrap_or("").to_string();
        let cx = MailContext {
            source: SourceKind::ENRON_CSV,
            archive: &self.archive,
            locator: format!("{}:line {line}", self.archive),
            mailbox: &mailbox,
            gmail: false,
            keep_headers: ENRON_X_HEADERS,
            window: self.window,
            unterminated: false,
        };
        match parse_message(&raw, &cx) {
            Ok(Some(mut m)) => {
                m.meta.insert("file".into(), file);
                Ok(Some(m))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(e.into_import(&self.path, format!("line {line} ({file})"))),
        }
    }
}

impl Iterator for CsvImporter {
    type Item = Result<Message, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let row = match self.rows.next()? {
                Ok(r) => r,
                Err(e) => return Some(Err(e)),
            };
            match self.ctx.parse(row) {
                Ok(Some(m)) => return Some(Ok(m)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Open a Kaggle-style `file,message` CSV as a lazy stream.
///
/// # Errors
/// The file cannot be opened or has no `file`/`message` header (kinds `io`, `csv`).
pub fn open_csv(path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
    Ok(CsvImporter::open(path, opts)?.into_parallel(default_workers()))
}

/// The Enron CSV form, as amem's importers are listed ([`amem_records::Source`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct EnronCsvSource;

impl amem_records::Source for EnronCsvSource {
    fn kind(&self) -> amem_records::SourceKind {
        amem_records::SourceKind::ENRON_CSV
    }
    fn describe(&self) -> &'static str {
        "an Enron CSV (a header row with file and message columns)"
    }
    fn probe(&self, path: &Path) -> bool {
        probe_csv(path)
    }
    fn open(&self, path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
        open_csv(path, opts)
    }
}

/// Enron-style mail: a maildir tree or one message file, as amem's importers are listed ([`amem_records::Source`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct EnronSource;

impl amem_records::Source for EnronSource {
    fn kind(&self) -> amem_records::SourceKind {
        amem_records::SourceKind::ENRON
    }
    fn describe(&self) -> &'static str {
        "Enron-style mail (a maildir tree or one message file starting with header fields)"
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

    #[test]
    fn natural_order() {
        let mut v = [(false, "10.".to_string()), (true, "a".into()), (false, "2.".into()), (false, "x".into())];
        v.sort_by_key(|(d, n)| entry_key(*d, n));
        let names: Vec<_> = v.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, ["2.", "10.", "x", "a"]);
    }
}
