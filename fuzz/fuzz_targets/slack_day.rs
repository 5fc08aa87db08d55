//! Any bytes as a Slack day file (`<channel>/<YYYY-MM-DD>.json`): the parser
//! must return messages or `ImportError`s, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for item in amem_importer_slack::parse_day_bytes(data) {
        match item {
            Ok(m) => assert!(m.id.0.starts_with("fuzz/")),
            Err(e) => assert!(!e.kind.is_empty()),
        }
    }
});
