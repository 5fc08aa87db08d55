//! The line-by-line mbox splitter the crate used before the chunked one in
//! `src/mbox.rs`: kept as the reference the fast splitter is checked against
//! (`tests/splitter_equivalence.rs`, and the `mbox_split` fuzz target). It
//! is slow (it copies every line twice) but each rule is one line of code.
//! Items are the crate's own types, so the two outputs compare directly.
#![allow(dead_code)]

use amem_rfc822::{MboxItem, RawMessage};
use std::io::{self, BufRead};

/// Splits an mbox stream into messages, lazily, holding one message at a time.
#[derive(Debug)]
pub(crate) struct LineSplitter<R> {
    reader: R,
    /// Largest message kept in memory; larger ones become [`MboxItem::TooLarge`].
    pub(crate) max_message_bytes: usize,
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

impl<R: BufRead> LineSplitter<R> {
    /// A splitter over `reader`, which is read from its current position
    /// (counted as offset 0).
    pub(crate) fn new(reader: R) -> Self {
        LineSplitter {
            reader,
            max_message_bytes: 64 << 20,
            pos: 0,
            lines: 0,
            cur: None,
            prev_blank: true,
            line_buf: Vec::new(),
            done: false,
        }
    }

    /// Bytes consumed so far (for progress reports).
    pub(crate) fn position(&self) -> u64 {
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
                    let (chunk, done) = match find_nl(buf) {
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

fn find_nl(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n')
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

impl<R: BufRead> Iterator for LineSplitter<R> {
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
