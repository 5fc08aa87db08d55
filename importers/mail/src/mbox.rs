//! A streaming mbox splitter over any [`BufRead`].
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

use std::io::{self, BufRead};

/// Default cap on one message: 64 MiB. Takeout messages with attachments
/// reach tens of MiB; a "message" past this is a broken file.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 64 << 20;

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
#[derive(Debug)]
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
    /// Bytes consumed so far.
    pos: u64,
    /// Lines consumed so far.
    lines: u64,
    /// The message being filled.
    cur: Option<Pending>,
    /// Was the previous line empty (or are we at the start of the file)?
    prev_blank: bool,
    line_buf: Vec<u8>,
    done: bool,
}

#[derive(Debug)]
struct Pending {
    offset: u64,
    line: u64,
    from_line: Vec<u8>,
    bytes: Vec<u8>,
    /// Total size seen, kept past the cap so the error can say how big.
    seen: u64,
    over: bool,
    /// Was the last line appended empty (to drop it at a separator)?
    last_blank_len: usize,
}

impl<R: BufRead> MboxSplitter<R> {
    /// A splitter over `reader`, which is read from its current position
    /// (counted as offset 0).
    pub fn new(reader: R) -> Self {
        MboxSplitter {
            reader,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            pos: 0,
            lines: 0,
            cur: None,
            prev_blank: true,
            line_buf: Vec::new(),
            done: false,
        }
    }

    /// Bytes consumed so far (for progress reports).
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Read one line (with its line end) into `line_buf`, keeping at most
    /// `max_message_bytes + 2` bytes of it. Returns the full length of the
    /// line, 0 at end of input.
    fn read_line(&mut self) -> io::Result<usize> {
        self.line_buf.clear();
        let cap = self.max_message_bytes.saturating_add(2);
        let mut total = 0usize;
        loop {
            let (done, used) = {
                let buf = match self.reader.fill_buf() {
                    Ok(b) => b,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                if buf.is_empty() {
                    (true, 0)
                } else {
                    let (chunk, done) = match memchr_nl(buf) {
                        Some(i) => (&buf[..=i], true),
                        None => (buf, false),
                    };
                    let room = cap.saturating_sub(self.line_buf.len());
                    self.line_buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
                    (done, chunk.len())
                }
            };
            self.reader.consume(used);
            total += used;
            if done {
                return Ok(total);
            }
        }
    }

    fn finish(&mut self, at_separator: bool) -> Option<MboxItem> {
        let mut p = self.cur.take()?;
        if p.over {
            return Some(MboxItem::TooLarge { offset: p.offset, line: p.line, bytes: p.seen });
        }
        let mut unterminated = false;
        if at_separator {
            // The empty line before `From ` is part of the separator.
            let n = p.bytes.len() - p.last_blank_len.min(p.bytes.len());
            p.bytes.truncate(n);
        } else {
            unterminated = !p.bytes.is_empty() && !p.bytes.ends_with(b"\n");
        }
        if p.from_line.is_empty() && p.bytes.iter().all(u8::is_ascii_whitespace) {
            // Blank preamble before the first separator: not a message.
            return None;
        }
        Some(MboxItem::Message(RawMessage { offset: p.offset, line: p.line, from_line: p.from_line, bytes: p.bytes, unterminated }))
    }
}

fn memchr_nl(buf: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', buf)
}

fn strip_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn is_blank(line: &[u8]) -> bool {
    strip_eol(line).is_empty()
}

/// `>From `, `>>From `...: the number of leading `>` when the line is a
/// quoted `From ` line, else 0.
fn quoted_from_depth(line: &[u8]) -> usize {
    let n = line.iter().take_while(|&&b| b == b'>').count();
    if n > 0 && line[n..].starts_with(b"From ") { n } else { 0 }
}

impl<R: BufRead> Iterator for MboxSplitter<R> {
    type Item = io::Result<MboxItem>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let start = self.pos;
            let n = match self.read_line() {
                Ok(n) => n,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            if n == 0 {
                self.done = true;
                return self.finish(false).map(Ok);
            }
            self.pos += n as u64;
            self.lines += 1;
            let line_no = self.lines;
            let line = std::mem::take(&mut self.line_buf);
            let blank = is_blank(&line);
            let separator = self.prev_blank && line.starts_with(b"From ");
            self.prev_blank = blank;
            if separator {
                let done = self.finish(true);
                let mut from_line = strip_eol(&line).to_vec();
                from_line.truncate(1024);
                self.cur =
                    Some(Pending { offset: start, line: line_no, from_line, bytes: Vec::new(), seen: 0, over: false, last_blank_len: 0 });
                self.line_buf = line;
                if let Some(item) = done {
                    return Some(Ok(item));
                }
                continue;
            }
            let cap = self.max_message_bytes;
            let p = self.cur.get_or_insert_with(|| Pending {
                offset: start,
                line: line_no,
                from_line: Vec::new(),
                bytes: Vec::new(),
                seen: 0,
                over: false,
                last_blank_len: 0,
            });
            p.seen += n as u64;
            if !p.over {
                let body: &[u8] = if quoted_from_depth(&line) > 0 { &line[1..] } else { &line };
                if p.bytes.len() + body.len() > cap || n > line.len() {
                    p.over = true;
                    p.bytes = Vec::new();
                } else {
                    p.bytes.extend_from_slice(body);
                    p.last_blank_len = if blank { body.len() } else { 0 };
                }
            }
            self.line_buf = line;
        }
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
