//! The chunked [`MboxSplitter`] against the line-by-line splitter it
//! replaced (`support/line_splitter.rs`): the same items, byte for byte, on
//! generated mbox text full of the cases the rules are about (separators
//! with and without a blank line before them, `>From ` at several depths,
//! CRLF and lone `\r`, a preamble, a missing final line end, messages and
//! lines over the size cap), read through readers that return a few bytes at
//! a time so every rule also meets a buffer boundary; and on the real mbox
//! samples in ../shared/corpora when they are there.

#[path = "support/line_splitter.rs"]
mod line_splitter;

use amem_rfc822::{MboxItem, MboxSplitter};
use line_splitter::LineSplitter;
use std::io::Read;

/// A reader that hands out at most `step` bytes per call (varying), to put
/// buffer boundaries everywhere.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
    calls: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        let n = (1 + (self.calls * 7) % self.step).min(out.len()).min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn reference(data: &[u8], cap: usize) -> Vec<MboxItem> {
    let mut s = LineSplitter::new(data);
    s.max_message_bytes = cap;
    s.map(|r| r.expect("in-memory read")).collect()
}

fn chunked<R: Read>(r: R, cap: usize) -> Vec<MboxItem> {
    let mut s = MboxSplitter::new(r);
    s.max_message_bytes = cap;
    s.map(|r| r.expect("in-memory read")).collect()
}

fn check(data: &[u8], cap: usize) {
    let want = reference(data, cap);
    assert_eq!(chunked(data, cap), want, "whole input, cap {cap}: {:?}", String::from_utf8_lossy(data));
    for step in [2, 23] {
        let got = chunked(Trickle { data, step, calls: 0 }, cap);
        assert_eq!(got, want, "trickle {step}, cap {cap}: {:?}", String::from_utf8_lossy(data));
    }
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a>(&mut self, xs: &[&'a [u8]]) -> &'a [u8] {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

const PIECES: &[&[u8]] = &[
    b"From a@b Mon Jan  1 00:00:00 2024",
    b"From ",
    b"From",
    b">From x",
    b">>From y",
    b">>>From ",
    b"> From not",
    b"x>From no",
    b"From here on",
    b"Subject: s",
    b"Date: Tue, 3 Feb 2026 10:00:00 +0000",
    b"",
    b"",
    b"\r",
    b"\r\r",
    b" ",
    b"body text From inside",
    b"\xe9\xff From \x80",
    b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
];

#[test]
fn same_items_as_the_line_splitter_on_generated_mboxes() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..1000 {
        let mut data = Vec::new();
        let lines = (rng.next() % 40) as usize;
        for _ in 0..lines {
            data.extend_from_slice(rng.pick(PIECES));
            match rng.next() % 6 {
                0 => data.extend_from_slice(b"\r\n"),
                _ => data.push(b'\n'),
            }
        }
        if rng.next().is_multiple_of(3) {
            // No final line end.
            data.extend_from_slice(rng.pick(PIECES));
        }
        let cap = match case % 4 {
            0 => 20,
            1 => 64,
            2 => 300,
            _ => 1 << 20,
        };
        check(&data, cap);
    }
}

#[test]
fn same_items_on_handmade_edge_cases() {
    let cases: &[&[u8]] = &[
        b"",
        b"\n",
        b"From ",
        b"From x",
        b"\nFrom x\n",
        b"\r\nFrom x\r\n",
        b"\rFrom x\n",
        b"From a\nFrom b\n",
        b"From a\n\nFrom b\n\n",
        b"From a\n>From b\n\n>>From c",
        b"pre\n\nFrom a\nS: 1\n\nb\n",
        b"  \n\t\n\nFrom a\nx\n",
        b"From a\r\nS: 1\r\n\r\nb\r\n\r\nFrom b\r\n\r\n",
        b">From first\n",
        b"From a\n\r\r\nFrom b\n",
    ];
    for c in cases {
        for cap in [1, 5, 100, 1 << 20] {
            check(c, cap);
        }
    }
    // A separator line far longer than the cap and than the read buffer.
    let mut long = b"From ".to_vec();
    long.extend(std::iter::repeat_n(b'x', 700_000));
    long.extend_from_slice(b"\r\nS: 1\n\nbody\n\nFrom b\nS: 2\n\nok\n");
    check(&long, 1000);
    check(&long, 1 << 20);
    // A message larger than the read buffer, under and over the cap.
    let mut big = b"From a\nS: 1\n\n".to_vec();
    for i in 0..40_000u32 {
        big.extend_from_slice(if i.is_multiple_of(97) { b">From quoted line\n" } else { b"some ordinary body line\n" });
    }
    big.extend_from_slice(b"\nFrom b\nS: 2\n\nok\n");
    for cap in [1000, 900_000, 1 << 20] {
        assert_eq!(chunked(&big[..], cap), reference(&big, cap));
    }
}

#[test]
fn same_items_on_the_real_mbox_samples() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/mbox");
    if !root.is_dir() {
        println!("SKIPPED same_items_on_the_real_mbox_samples: ../shared is absent");
        return;
    }
    let mut files = vec![root.clone()];
    let mut n = 0;
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).expect("list").map(|e| e.expect("entry").path()));
        } else {
            let data = std::fs::read(&p).expect("read");
            check(&data, 1 << 20);
            n += 1;
        }
    }
    assert!(n > 10, "only {n} sample files");
}
