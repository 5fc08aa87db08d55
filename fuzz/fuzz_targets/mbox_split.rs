//! Fuzz the streaming mbox splitter, then parse every message it yields.
//! Invariants: no panic; the splitter never returns more bytes than it read;
//! it yields exactly what the line-by-line reference splitter yields (the
//! one it replaced, kept in importers/rfc822/tests/support).
#![no_main]

#[path = "../../importers/rfc822/tests/support/line_splitter.rs"]
mod line_splitter;

use amem_rfc822::{MailContext, MboxItem, MboxSplitter, parse_message};
use amem_records::{SourceKind, TimeWindow};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Small cap so the too-large path is exercised too.
    let cap = 4096;
    let mut reference = line_splitter::LineSplitter::new(data);
    reference.max_message_bytes = cap;
    let want: Vec<MboxItem> = reference.map(|r| r.expect("in-memory read")).collect();
    let mut splitter = MboxSplitter::new(data);
    splitter.max_message_bytes = cap;
    let items: Vec<MboxItem> = splitter.map(|r| r.expect("in-memory read")).collect();
    assert_eq!(items, want);
    let mut total = 0usize;
    for item in items {
        match item {
            MboxItem::Message(m) => {
                total += m.bytes.len() + m.from_line.len();
                assert!(total <= data.len());
                let cx = MailContext {
                    source: SourceKind::GMAIL,
                    archive: "fuzz.mbox",
                    locator: String::new(),
                    mailbox: "fuzz.mbox",
                    gmail: true,
                    keep_headers: &[],
                    window: TimeWindow::default(),
                    unterminated: m.unterminated,
                };
                let _ = parse_message(&m.bytes, &cx);
            }
            MboxItem::TooLarge { bytes, .. } => assert!(bytes as usize <= data.len()),
        }
    }
});
