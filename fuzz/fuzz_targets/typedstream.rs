//! Any bytes as an iMessage `attributedBody` typedstream: the decoder must
//! return text or a `DecodeError`, never panic or loop.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = amem_importer_imessage::typedstream::decode_text(data) {
        assert!(d.text.len() <= data.len());
    }
});
