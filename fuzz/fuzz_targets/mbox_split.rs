//! Fuzz the streaming mbox splitter, then parse every message it yields.
//! Invariants: no panic; the splitter never returns more bytes than it read.
#![no_main]

use amem_importer_mail::{MailContext, MboxItem, MboxSplitter, parse_message};
use amem_model::{SourceKind, TimeWindow};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut splitter = MboxSplitter::new(data);
    // Small cap so the too-large path is exercised too.
    splitter.max_message_bytes = 4096;
    let mut total = 0usize;
    for item in splitter {
        match item {
            Ok(MboxItem::Message(m)) => {
                total += m.bytes.len() + m.from_line.len();
                assert!(total <= data.len());
                let cx = MailContext {
                    source: SourceKind::Gmail,
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
            Ok(MboxItem::TooLarge { bytes, .. }) => assert!(bytes as usize <= data.len()),
            Err(_) => break,
        }
    }
});
