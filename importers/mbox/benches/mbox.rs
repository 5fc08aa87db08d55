//! Micro-benchmarks of the mail path (the archive-scale figures, with peak
//! RSS and the Python comparison, come from scripts/bench-importers-mail.py).
//! Input: the handmade Takeout fixture repeated 200 times in memory.

use amem_records::{SourceKind, TimeWindow};
use amem_rfc822::{MailContext, MboxItem, MboxSplitter, parse_message, split_quoted};
use divan::counter::BytesCount;

fn main() {
    divan::main();
}

fn mbox() -> Vec<u8> {
    let one = include_bytes!("../tests/fixtures/takeout.mbox");
    let mut v = Vec::with_capacity(one.len() * 200 + 200);
    for _ in 0..200 {
        v.extend_from_slice(one);
        v.push(b'\n');
    }
    v
}

#[divan::bench]
fn split_only(b: divan::Bencher) {
    let data = mbox();
    b.counter(BytesCount::of_slice(&data)).bench(|| MboxSplitter::new(&data[..]).filter(|r| matches!(r, Ok(MboxItem::Message(_)))).count());
}

#[divan::bench]
fn split_and_parse(b: divan::Bencher) {
    let data = mbox();
    b.counter(BytesCount::of_slice(&data)).bench(|| {
        let mut n = 0usize;
        for item in MboxSplitter::new(&data[..]) {
            if let Ok(MboxItem::Message(m)) = item {
                let cx = MailContext {
                    source: SourceKind::GMAIL,
                    archive: "bench.mbox",
                    locator: String::new(),
                    mailbox: "bench.mbox",
                    gmail: true,
                    keep_headers: &[],
                    window: TimeWindow::default(),
                    unterminated: m.unterminated,
                };
                n += usize::from(matches!(parse_message(&m.bytes, &cx), Ok(Some(_))));
            }
        }
        n
    });
}

#[divan::bench]
fn quote_split(b: divan::Bencher) {
    let body = "Sounds good.\n\nOn Mon, Feb 2, 2026 at 9:24 PM Ann <a@x.org> wrote:\n> Can we move it?\n>\n> Ann\n\n-----Original Message-----\nFrom: Bob\nSent: Monday\nSubject: x\n\nEarlier text.\n"
        .repeat(20);
    b.counter(BytesCount::of_str(&body)).bench(|| split_quoted(divan::black_box(&body)).1.len());
}
