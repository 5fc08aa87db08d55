//! A streaming mbox splitter over any [`Read`].
//!
//! Why our own and not `mbox-reader` 0.2: see `docs/adr/0001-mbox-splitting.md`.
//! In short, that crate loses the last message of every file, yields nothing
//! for a one-message file, panics on a short `From ` line, memory-maps the
//! whole file (RSS grows with the archive, SIGBUS if it is truncated while
//! read) and cannot hand out owned entries without a self-referential wrapper.
//!
//! Rules (mboxo/mboxrd as read by liberal readers, `man 5 mbox`):
//! - A separator is a line starting with `From ` at the start of the file or
//!   right after an empty line. Everything after `From ` is ignored (Gmail
//!   Takeout writes `From <thrid>@xxx Fri Feb 04 17:10:22 +0000 2022`, other
//!   writers asctime, some put raw 8-bit bytes there): dates come from the
//!   `Date:` header. A `From ` line that does not follow an empty line is body
//!   text, so an unquoted `From ` inside a paragraph does not split a message.
//! - The empty line before a separator belongs to the separator, not to the
//!   message before it.
//! - Body lines `>From `, `>>From `… lose one `>` (mboxrd unquoting; for
//!   mboxo files this restores the `From ` the writer quoted).
//! - Bytes before the first separator that are not blank form a message of
//!   their own (a lone `.eml` file read as an mbox is one message, not zero).
//! - Both LF and CRLF line ends are accepted and kept as they are.
//! - A message larger than [`MboxSplitter::max_message_bytes`] is skipped with
//!   an error (its bytes are read and dropped), and a line is never buffered
//!   past that limit either, so memory stays bounded whatever the input.
//!
//! How (the rules above, without looking at every line): the file is read
//! in 256 KiB chunks into one buffer that holds the message being cut, and
//! a SIMD substring search (`memchr::memmem`) jumps from one `From ` to the
//! next. Both the separators and the `>From ` lines contain `From `, so only
//! those hits are looked at: a hit is a separator when it starts a line and
//! the line before it is blank (`\n` or `\r\n`), and an mboxrd quote when a
//! run of `>` before it starts a line. A finished message is copied out of
//! the buffer once, into a vector of its exact size, skipping the one `>` of
//! each quoted line. Line numbers come from counting `\n` between separators.
//! The line-by-line splitter this replaced is kept as the reference it is
//! tested against (`tests/support/line_splitter.rs`).

use std::io::{self, Read};

/// Default cap on one message: 64 MiB. Takeout messages with attachments
/// reach tens of MiB; a "message" past this is a broken file.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 64 << 20;

/// Bytes asked of the reader per read: large enough that the per-read
/// syscall cost disappears.
const CHUNK: usize = 256 << 10;

/// Bytes kept before the scan position when the buffer is compacted: the
/// separator test looks back over `\n\r\n` (3 bytes), the quote test one
/// byte before the message's first line.
const LOOKBACK: usize = 8;

/// A separator line is kept whole only up to this length while its line end
/// is sought; past it the [`RawMessage::from_line`] prefix is taken and the
/// rest of the line is read and dropped (memory stays bounded on a file of
/// one endless `From ` line).
const LONG_SEPARATOR: usize = 4096;

/// One message cut out of an mbox, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawMessage {
    /// Byte offset of the message's `From ` line (or of its first byte when it
    /// has none) in the file.
    pub offset: u64,
    /// 1-based line number of that same line.
    pub line: u64,
    /// The separator line without its line end (empty when there was none).
    /// Not necessarily UTF-8.
    pub from_line: Vec<u8>,
    /// The RFC 822 bytes: headers and body, `>From ` unquoted.
    pub bytes: Vec<u8>,
    /// True for the file's final message when the file did not end with a
    /// line end: together with an unfinished MIME structure this marks a
    /// truncated file.
    pub unterminated: bool,
}

/// An item of the splitter: a message, or a message too large to hold.
#[derive(Debug, PartialEq, Eq)]
pub enum MboxItem {
    /// A message.
    Message(RawMessage),
    /// A message over the size cap, skipped. Offset and line as in [`RawMessage`].
    TooLarge {
        /// Byte offset of its `From ` line.
        offset: u64,
        /// Line number of its `From ` line.
        line: u64,
        /// How many bytes it had.
        bytes: u64,
    },
}

/// Splits an mbox stream into messages, lazily, holding one message at a time.
#[derive(Debug)]
pub struct MboxSplitter<R> {
    reader: R,
    /// Largest message kept in memory; larger ones become [`MboxItem::TooLarge`].
    pub max_message_bytes: usize,
    /// Input bytes; `buf[..hi]` are valid and `buf[0]` is at file offset `base`.
    buf: Vec<u8>,
    hi: usize,
    base: u64,
    /// Where the next search starts (an index into `buf`).
    scan: usize,
    /// `\n` bytes in the file before `buf[nl_at]`.
    lines: u64,
    nl_at: usize,
    /// The message being cut.
    cur: Pending,
    /// Inside the separator line that opened `cur` (its line end not found yet).
    in_separator: bool,
    eof: bool,
    done: bool,
    from: memchr::memmem::Finder<'static>,
}

#[derive(Debug)]
struct Pending {
    /// File offset and line number of its `From ` line (of its first byte
    /// for the bytes before the first separator).
    offset: u64,
    line: u64,
    /// `None` while the separator line is still being read.
    from_line: Option<Vec<u8>>,
    /// File offset of the first byte after the separator line.
    start: u64,
    /// File offsets of the `>` to drop (mboxrd unquoting), ascending.
    unquote: Vec<u64>,
    /// Past the size cap: its bytes are no longer kept.
    over: bool,
}

impl<R: Read> MboxSplitter<R> {
    /// A splitter over `reader`, which is read from its current position
    /// (counted as offset 0). It does its own buffering: a `BufReader`
    /// around `reader` only adds a copy.
    pub fn new(reader: R) -> Self {
        MboxSplitter {
            reader,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            buf: Vec::new(),
            hi: 0,
            base: 0,
            scan: 0,
            lines: 0,
            nl_at: 0,
            // Bytes before the first separator (usually none) form a message
            // without a `From ` line.
            cur: Pending { offset: 0, line: 1, from_line: Some(Vec::new()), start: 0, unquote: Vec::new(), over: false },
            in_separator: false,
            eof: false,
            done: false,
            from: memchr::memmem::Finder::new(b"From ").into_owned(),
        }
    }

    /// Bytes consumed so far (for progress reports).
    pub fn position(&self) -> u64 {
        self.base + self.scan as u64
    }

    /// Index in `buf` of file offset `abs` (which the buffer still holds).
    fn idx(&self, abs: u64) -> usize {
        abs.saturating_sub(self.base) as usize
    }

    /// Drop what is no longer needed from the front of the buffer, then read
    /// one more chunk (sets `eof` at the end of input).
    fn refill(&mut self) -> io::Result<()> {
        let mut keep = self.scan.saturating_sub(LOOKBACK);
        if self.in_separator {
            if self.cur.from_line.is_none() {
                keep = keep.min(self.idx(self.cur.offset));
            }
        } else if !self.cur.over {
            // Everything between the message's start and `scan` is its content.
            let start = self.idx(self.cur.start);
            let unquoted = self.scan.saturating_sub(start).saturating_sub(self.cur.unquote.len());
            if unquoted > self.max_message_bytes {
                // Over the cap already: stop keeping its bytes.
                self.cur.over = true;
                self.cur.unquote = Vec::new();
            } else {
                keep = keep.min(start.saturating_sub(LOOKBACK));
            }
        }
        if keep > 0 {
            if self.nl_at < keep {
                self.lines += memchr::memchr_iter(b'\n', &self.buf[self.nl_at..keep]).count() as u64;
                self.nl_at = keep;
            }
            self.buf.copy_within(keep..self.hi, 0);
            self.hi -= keep;
            self.scan -= keep;
            self.nl_at -= keep;
            self.base += keep as u64;
        }
        // Reads start at 8 KiB and double up to CHUNK, so a small input
        // does not pay for a large buffer.
        let chunk = (self.buf.len().max(4096) * 2).min(CHUNK);
        if self.buf.len() - self.hi < chunk / 2 {
            // Past CHUNK, grows only while one message is larger than the buffer.
            self.buf.resize(self.hi + chunk, 0);
        } else if self.buf.len() > 4 * CHUNK && self.hi + CHUNK < self.buf.len() / 4 {
            // Give back what a large message needed.
            self.buf.truncate(self.hi + CHUNK);
            self.buf.shrink_to_fit();
        }
        loop {
            match self.reader.read(&mut self.buf[self.hi..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.hi += n.min(self.buf.len() - self.hi);
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The byte at index `i`, `None` before the buffer.
    fn at(&self, i: usize, back: usize) -> Option<u8> {
        i.checked_sub(back).and_then(|j| self.buf.get(j).copied())
    }

    /// The `From ` at `buf[h]` is a separator when it is at the start of the
    /// file or the line before it is blank (`\n` or `\r\n`). Returns the
    /// length of that blank line (0 at the start of the file).
    fn separator_at(&self, h: usize) -> Option<usize> {
        if self.max_message_bytes < 3 {
            // Lines are kept up to the cap + 2 bytes: under 3, no line can
            // show its `From ` (so, as when lines were read one by one,
            // everything is one oversized preamble).
            return None;
        }
        let abs = self.base + h as u64;
        if abs == 0 {
            return Some(0);
        }
        if self.at(h, 1) != Some(b'\n') {
            return None;
        }
        // The line ending with that `\n`: blank when it is nothing or `\r`.
        if abs == 1 || self.at(h, 2) == Some(b'\n') {
            return Some(1);
        }
        if self.at(h, 2) == Some(b'\r') && (abs == 2 || self.at(h, 3) == Some(b'\n')) {
            return Some(2);
        }
        None
    }

    /// The `From ` at `buf[h]` is a quoted `>From ` line (one or more `>`
    /// from the start of the line): the index of the first `>`.
    fn quote_at(&self, h: usize) -> Option<usize> {
        let mut k = h;
        while k > 0 && self.buf[k - 1] == b'>' {
            k -= 1;
        }
        (k < h && (self.base + k as u64 == 0 || self.at(k, 1) == Some(b'\n'))).then_some(k)
    }

    /// End the current message at `buf[end]` (a separator preceded by a
    /// blank line of `blank` bytes, or the end of input).
    fn finish(&mut self, end: usize, blank: Option<usize>) -> Option<MboxItem> {
        let p = &mut self.cur;
        let end_abs = self.base + end as u64;
        let seen = end_abs.saturating_sub(p.start);
        if p.over {
            return Some(MboxItem::TooLarge { offset: p.offset, line: p.line, bytes: seen });
        }
        let start = p.start.saturating_sub(self.base) as usize;
        let start = start.min(end);
        // The cap counts the blank line before the separator too.
        if (end - start).saturating_sub(p.unquote.len()) > self.max_message_bytes {
            return Some(MboxItem::TooLarge { offset: p.offset, line: p.line, bytes: seen });
        }
        // The blank line before `From ` is part of the separator.
        let stop = end - blank.unwrap_or(0).min(end - start);
        let mut bytes = Vec::with_capacity(stop - start);
        let mut from = start;
        for &q in &p.unquote {
            let q = q.saturating_sub(self.base) as usize;
            if q >= from && q < stop {
                bytes.extend_from_slice(&self.buf[from..q]);
                from = q + 1;
            }
        }
        bytes.extend_from_slice(&self.buf[from..stop]);
        let unterminated = blank.is_none() && !bytes.is_empty() && !bytes.ends_with(b"\n");
        let from_line = p.from_line.take().unwrap_or_default();
        if from_line.is_empty() && bytes.iter().all(u8::is_ascii_whitespace) {
            // Blank preamble before the first separator: not a message.
            return None;
        }
        Some(MboxItem::Message(RawMessage { offset: p.offset, line: p.line, from_line, bytes, unterminated }))
    }

    /// `from_line` of a separator line whose first bytes are `line`
    /// (`complete`: `line` ends with its `\n`): as the line-by-line reading
    /// kept it, at most `max_message_bytes + 2` bytes of the line, line end
    /// stripped, at most 1024 bytes.
    fn separator_text(&self, line: &[u8]) -> Vec<u8> {
        let line = &line[..line.len().min(self.max_message_bytes.saturating_add(2))];
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        line[..line.len().min(1024)].to_vec()
    }

    fn step(&mut self) -> io::Result<Option<Option<MboxItem>>> {
        if self.in_separator {
            let h = self.idx(self.cur.offset).min(self.hi);
            let from = self.scan.max(h);
            match memchr::memchr(b'\n', &self.buf[from..self.hi]) {
                Some(i) => {
                    let e = from + i + 1;
                    if self.cur.from_line.is_none() {
                        self.cur.from_line = Some(self.separator_text(&self.buf[h..e]));
                    }
                    self.cur.start = self.base + e as u64;
                    self.scan = e;
                    self.in_separator = false;
                }
                None if self.eof => {
                    if self.cur.from_line.is_none() {
                        self.cur.from_line = Some(self.separator_text(&self.buf[h..self.hi]));
                    }
                    self.cur.start = self.base + self.hi as u64;
                    self.scan = self.hi;
                    self.in_separator = false;
                }
                None => {
                    if self.cur.from_line.is_none() && self.hi - h > LONG_SEPARATOR {
                        self.cur.from_line = Some(self.separator_text(&self.buf[h..self.hi]));
                    }
                    self.scan = self.hi;
                    self.refill()?;
                }
            }
            return Ok(None);
        }
        let Some(rel) = self.from.find(&self.buf[self.scan..self.hi]) else {
            if self.eof {
                self.done = true;
                return Ok(Some(self.finish(self.hi, None)));
            }
            // A `From ` cut by the end of the buffer is found again after the refill.
            self.scan = self.scan.max(self.hi.saturating_sub(4));
            self.refill()?;
            return Ok(None);
        };
        let h = self.scan + rel;
        if let Some(blank) = self.separator_at(h) {
            self.lines += memchr::memchr_iter(b'\n', &self.buf[self.nl_at.min(h)..h]).count() as u64;
            self.nl_at = h;
            let item = self.finish(h, Some(blank));
            self.cur =
                Pending { offset: self.base + h as u64, line: self.lines + 1, from_line: None, start: 0, unquote: Vec::new(), over: false };
            self.in_separator = true;
            self.scan = h;
            return Ok(Some(item));
        }
        if !self.cur.over
            && let Some(k) = self.quote_at(h)
        {
            self.cur.unquote.push(self.base + k as u64);
        }
        self.scan = h + 5;
        Ok(None)
    }
}

impl<R: Read> Iterator for MboxSplitter<R> {
    type Item = io::Result<MboxItem>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.step() {
                Ok(Some(Some(item))) => return Some(Ok(item)),
                Ok(_) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(input: &[u8]) -> Vec<RawMessage> {
        MboxSplitter::new(input)
            .map(|r| match r.unwrap() {
                MboxItem::Message(m) => m,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn last_and_single_message_are_kept() {
        let one = split(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nbody\n");
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].bytes, b"Subject: x\n\nbody\n");
        let three = split(b"From a\nS: 1\n\nb1\n\nFrom b\nS: 2\n\nb2\n\nFrom c\nS: 3\n\nb3\n");
        assert_eq!(three.len(), 3);
        assert_eq!(three[0].bytes, b"S: 1\n\nb1\n");
        assert_eq!(three[2].bytes, b"S: 3\n\nb3\n");
        assert_eq!(three[1].offset, 17);
        assert_eq!(three[1].line, 6);
    }

    #[test]
    fn from_inside_a_paragraph_does_not_split() {
        let m = split(b"From a\nS: 1\n\nline\nFrom here on\n\nFrom b\nS: 2\n\nx\n");
        assert_eq!(m.len(), 2);
        assert!(m[0].bytes.ends_with(b"line\nFrom here on\n"));
    }

    #[test]
    fn unquotes_one_level() {
        let m = split(b"From a\nS: 1\n\n>From me\n>>From you\n> From not\n");
        assert_eq!(m[0].bytes, b"S: 1\n\nFrom me\n>From you\n> From not\n");
    }

    #[test]
    fn crlf_and_preamble() {
        let m = split(b"Subject: eml\r\n\r\nhi\r\n\r\nFrom x\r\nS: 2\r\n\r\nb\r\n");
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].bytes, b"Subject: eml\r\n\r\nhi\r\n");
        assert!(m[0].from_line.is_empty());
        assert_eq!(m[1].from_line, b"From x");
        assert!(split(b"\n\n  \n").is_empty());
        assert!(split(b"").is_empty());
    }

    #[test]
    fn unterminated_last_line() {
        let m = split(b"From x\nS: 1\n\ncut");
        assert!(m[0].unterminated);
    }

    #[test]
    fn too_large_is_skipped_with_bounded_memory() {
        let mut input = b"From a\nS: 1\n\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 5000));
        input.extend_from_slice(b"\n\nFrom b\nS: 2\n\nok\n");
        let mut s = MboxSplitter::new(&input[..]);
        s.max_message_bytes = 1000;
        let items: Vec<_> = s.map(|r| r.unwrap()).collect();
        assert!(matches!(items[0], MboxItem::TooLarge { offset: 0, line: 1, .. }));
        assert!(matches!(&items[1], MboxItem::Message(m) if m.bytes == b"S: 2\n\nok\n"));
    }
}
