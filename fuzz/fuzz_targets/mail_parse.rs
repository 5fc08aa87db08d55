//! Fuzz one RFC 822 message through the whole mail path: headers, Date,
//! MIME walk, charset decoding, HTML to text, quote/signature splitting.
#![no_main]

use amem_rfc822::{ENRON_X_HEADERS, MailContext, charset, normalize_subject, parse_message, split_quoted, trim_signature};
use amem_text::html;
use amem_records::{SourceKind, TimeWindow};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for gmail in [true, false] {
        let cx = MailContext {
            source: if gmail { SourceKind::GMAIL } else { SourceKind::ENRON },
            archive: "fuzz",
            locator: String::new(),
            mailbox: "fuzz",
            gmail,
            keep_headers: if gmail { &[] } else { ENRON_X_HEADERS },
            window: TimeWindow::default(),
            unterminated: !gmail,
        };
        if let Ok(Some(m)) = parse_message(data, &cx) {
            let _ = m.digest();
        }
    }
    let text = String::from_utf8_lossy(data);
    let (new, _parts) = split_quoted(&text);
    let _ = trim_signature(&new);
    for quotes in [html::Quotes::Prefixed, html::Quotes::Plain] {
        let _ = html::html_to_text(&text, quotes);
    }
    let _ = normalize_subject(&text);
    for label in ["utf-7", "utf-8", "koi8-r", "x-unknown"] {
        let _ = charset::decode(data, label);
    }
});
