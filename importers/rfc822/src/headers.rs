//! The header block of one message, split exactly as mailparse's
//! `parse_headers` splits it and with values read exactly as its
//! `MailHeader::get_value` reads them, but with `memchr` jumps instead of
//! mailparse's byte-at-a-time state machine, and without its tokenizer for
//! values that hold no encoded word (`=?`). Those two were 14% and 8% of the
//! mbox import (profiled on the Enron bench: long, folded `X-To`/`X-cc`
//! lists). A value with an encoded word is still decoded by mailparse, from
//! the same header. Both are checked against mailparse in the tests below,
//! on handmade and generated header blocks and on every message of the real
//! mbox and `.eml` samples in ../shared/corpora.
//!
//! mailparse's rules, reproduced:
//! - the block ends at an empty line (`\n` or `\r\n`) or at the end of the
//!   input; a lone `\r` there, or a header line starting with a space, is an
//!   error ([`Headers::parse`] then returns `None` and the caller asks
//!   mailparse for its error);
//! - a header's name runs to the first `:`; a line with no `:` is a name
//!   with an empty value;
//! - after the `:`, spaces (not tabs) are skipped; the value runs to a line
//!   end not followed by a space or tab (folded lines stay in the value) and
//!   loses its trailing CR and LF bytes;
//! - the value's text is its bytes as UTF-8, else as Latin-1, each line
//!   without its leading whitespace, lines joined with one space.

use std::borrow::Cow;

/// One header: where it starts in the message, its name and raw value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header<'a> {
    /// Offset of the header's first byte in the message.
    pub(crate) start: usize,
    /// The name as written.
    pub(crate) key: &'a [u8],
    /// The raw value (folded lines included).
    pub(crate) value: &'a [u8],
}

/// The headers of one message, in order, and where its body starts.
#[derive(Debug)]
pub(crate) struct Headers<'a> {
    raw: &'a [u8],
    pub(crate) list: Vec<Header<'a>>,
    /// Offset of the first body byte (after the empty line).
    pub(crate) body_start: usize,
}

impl<'a> Headers<'a> {
    /// Split the header block of `raw`; `None` where mailparse's
    /// `parse_headers` returns an error.
    pub(crate) fn parse(raw: &'a [u8]) -> Option<Self> {
        let mut list = Vec::with_capacity(32);
        let mut ix = 0;
        while ix < raw.len() {
            match raw[ix] {
                b'\n' => {
                    ix += 1;
                    break;
                }
                b'\r' if raw.get(ix + 1) == Some(&b'\n') => {
                    ix += 2;
                    break;
                }
                b'\r' => return None,
                _ => {}
            }
            let (key, value, used) = parse_one(&raw[ix..])?;
            list.push(Header { start: ix, key, value });
            ix += used;
        }
        Some(Headers { raw, list, body_start: ix })
    }

    /// The first header named `name` (ASCII case-insensitive).
    pub(crate) fn first(&self, name: &str) -> Option<&Header<'a>> {
        self.list.iter().find(|h| h.key.eq_ignore_ascii_case(name.as_bytes()))
    }

    /// Every header named `name`, in order.
    pub(crate) fn all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Header<'a>> + 's {
        self.list.iter().filter(move |h| h.key.eq_ignore_ascii_case(name.as_bytes()))
    }

    /// The value as text: what mailparse's `get_value` returns for it.
    pub(crate) fn text(&self, h: &Header<'a>) -> String {
        if memchr::memmem::find(h.value, b"=?").is_some()
            && let Some(rest) = self.raw.get(h.start..)
            && let Ok((mh, _)) = mailparse::parse_header(rest)
        {
            // Encoded words: mailparse's own decoding, of the same header.
            return mh.get_value();
        }
        let chars: Cow<'_, str> = match std::str::from_utf8(h.value) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => Cow::Owned(h.value.iter().map(|&b| char::from(b)).collect()),
        };
        let mut out = String::with_capacity(chars.len());
        for (k, line) in chars.lines().enumerate() {
            if k > 0 {
                out.push(' ');
            }
            out.push_str(line.trim_start());
        }
        out
    }

    /// The first `name` header's text, as mailparse's `get_first_value`.
    pub(crate) fn first_text(&self, name: &str) -> Option<String> {
        self.first(name).map(|h| self.text(h))
    }
}

/// One header at the start of `d` (not empty, not at a line end): name,
/// value, bytes used. `None` when it starts with a space.
fn parse_one(d: &[u8]) -> Option<(&[u8], &[u8], usize)> {
    if d.first() == Some(&b' ') {
        return None;
    }
    let k = match memchr::memchr2(b':', b'\n', d) {
        None => return Some((d, &d[d.len()..], d.len())),
        Some(k) if d[k] == b'\n' => return Some((&d[..k], &d[k..k], k + 1)),
        Some(k) => k,
    };
    let mut v = k + 1;
    while v < d.len() && d[v] == b' ' {
        v += 1;
    }
    if v >= d.len() {
        return Some((&d[..k], &d[..0], d.len()));
    }
    // The value ends at a line end that no space or tab follows.
    let mut p = v;
    let end = loop {
        match memchr::memchr(b'\n', &d[p..]) {
            None => break d.len(),
            Some(i) => {
                let n = p + i;
                match d.get(n + 1) {
                    Some(b' ' | b'\t') => p = n + 1,
                    _ => break n + 1,
                }
            }
        }
    };
    let mut ve = end;
    while ve > v && matches!(d[ve - 1], b'\r' | b'\n') {
        ve -= 1;
    }
    Some((&d[..k], &d[v..ve], end))
}

#[cfg(test)]
mod tests {
    use super::Headers;
    use mailparse::MailHeaderMap;

    /// Same split and same values as mailparse, or an error for both.
    fn check(raw: &[u8]) {
        let ours = Headers::parse(raw);
        match mailparse::parse_headers(raw) {
            Err(_) => assert!(ours.is_none(), "mailparse refuses, we accept: {:?}", String::from_utf8_lossy(raw)),
            Ok((theirs, body)) => {
                let ours = ours.unwrap_or_else(|| panic!("we refuse, mailparse accepts: {:?}", String::from_utf8_lossy(raw)));
                assert_eq!(ours.body_start, body, "{:?}", String::from_utf8_lossy(raw));
                assert_eq!(ours.list.len(), theirs.len(), "{:?}", String::from_utf8_lossy(raw));
                for (a, b) in ours.list.iter().zip(&theirs) {
                    assert_eq!(a.key, b.get_key_ref().chars().map(|c| c as u8).collect::<Vec<u8>>().as_slice());
                    assert_eq!(a.value, b.get_value_raw(), "{:?}", String::from_utf8_lossy(raw));
                    assert_eq!(ours.text(a), b.get_value(), "{:?}", String::from_utf8_lossy(raw));
                }
                for name in ["Subject", "to", "X-FOO"] {
                    assert_eq!(ours.first_text(name), theirs.get_first_value(name));
                }
            }
        }
    }

    #[test]
    fn same_as_mailparse_on_handmade_blocks() {
        let cases: &[&[u8]] = &[
            b"",
            b"\n",
            b"\r\n",
            b"\r",
            b"\rx",
            b" leading: space\n\nb",
            b"\tleading: tab\n\nb",
            b"Subject: hi\n\nbody",
            b"Subject: hi\r\nTo: a@x,\r\n\tb@x\r\n\r\nbody",
            b"Subject:    \n\n",
            b"Subject:",
            b"Subject:   ",
            b"Subject:\n",
            b"Subject:\nTo: x\n\n",
            b"no colon here\nSubject: x\n\n",
            b"no colon at all",
            b"Subject: a\r\r\n b\rc \n\n",
            b"Subject: folded\n \n\t\nx: y\n",
            b"Subject: =?utf-8?Q?Caf=C3=A9?= and =?iso-8859-1?q?=E9t=E9?=\n\n",
            b"Subject: =?bogus?X?abc?=\n\n",
            b"Subject: =?\n =?utf-8?B?w6k=?=\n\n",
            b"Subject: caf\xe9 latin1\n\n",
            b"Subject: caf\xc3\xa9 utf8\n\n",
            b"Subject: \xc2\xa0nbsp lead\n\n",
            b"To: a\n\n",
            b"X-Foo: 1\nx-foo: 2\n\n",
            b"Subject: end\n",
            b"Subject: end\n ",
            b"Subject: end\n\t",
            b"Subject: end\r\n",
            b"Subject: x\n\r",
        ];
        for c in cases {
            check(c);
        }
    }

    #[test]
    fn same_as_mailparse_on_the_real_samples() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/mbox");
        if !root.is_dir() {
            println!("SKIPPED same_as_mailparse_on_the_real_samples: ../shared is absent");
            return;
        }
        let mut dirs = vec![root];
        let mut n = 0;
        while let Some(p) = dirs.pop() {
            if p.is_dir() {
                dirs.extend(std::fs::read_dir(&p).expect("list").map(|e| e.expect("entry").path()));
                continue;
            }
            let data = std::fs::read(&p).expect("read");
            for item in crate::MboxSplitter::new(&data[..]) {
                if let Ok(crate::MboxItem::Message(m)) = item {
                    check(&m.bytes);
                    n += 1;
                }
            }
        }
        assert!(n > 50, "only {n} messages");
    }

    #[test]
    fn same_as_mailparse_on_generated_blocks() {
        let alphabet: &[&[u8]] = &[b"Subject", b"To", b":", b" ", b"\t", b"\n", b"\r\n", b"\r", b"x", b"=?", b"?=", b"\xe9", b"a@b, c@d"];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..4000 {
            let mut s = Vec::new();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut y = x;
            for _ in 0..(x % 30) {
                y = y.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                s.extend_from_slice(alphabet[((y >> 33) % alphabet.len() as u64) as usize]);
            }
            check(&s);
        }
    }
}
