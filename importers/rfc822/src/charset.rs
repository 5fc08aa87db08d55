//! Body text decoding: charset labels through `encoding_rs` (WHATWG labels:
//! iso-8859-1 and us-ascii both mean windows-1252 there, which is what mail
//! clients send under those names; koi8-r, shift_jis, gb2312, ...), UTF-7
//! through the `charset` crate (mailparse's own dependency, itself built on
//! encoding_rs), and a record of every lossy decode.

use encoding_rs::Encoding;
use std::borrow::Cow;

/// What happened when a body was decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// Clean decode.
    Clean(String),
    /// Decoded, but some bytes were not valid in the charset and became U+FFFD.
    Lossy {
        /// The text.
        text: String,
        /// The charset label used.
        charset: String,
        /// How many replacement characters the decode added.
        replaced: usize,
    },
    /// The label names no charset we know and the bytes are not UTF-8.
    Unknown {
        /// The label as written.
        charset: String,
    },
}

/// `bytes` as they are, when [`decode`] would return them unchanged without
/// a lookup: pure ASCII reads the same in every charset mail uses except
/// UTF-7 (`+...-` runs) and the UTF-16/32 family. Lets a caller borrow
/// instead of copying the body.
pub(crate) fn plain_ascii<'a>(bytes: &'a [u8], label: &str) -> Option<&'a str> {
    if bytes.is_ascii() && !bytes.contains(&b'+') {
        let l = label.as_bytes();
        let wide = l.len() >= 6 && (l[..6].eq_ignore_ascii_case(b"utf-16") || l[..6].eq_ignore_ascii_case(b"utf-32"));
        if !wide {
            return std::str::from_utf8(bytes).ok();
        }
    }
    None
}

/// Decode `bytes` labelled `label` (a Content-Type charset parameter).
pub fn decode(bytes: &[u8], label: &str) -> Decoded {
    if let Some(s) = plain_ascii(bytes, label) {
        return Decoded::Clean(s.to_string());
    }
    let label = label.trim().trim_matches('"');
    let lower = label.to_ascii_lowercase();
    if (lower == "utf-7" || lower == "unicode-1-1-utf-7")
        && let Some(cs) = charset::Charset::for_label(b"utf-7")
    {
        let (text, had_errors) = cs.decode_without_bom_handling(bytes);
        return finish(text, had_errors, bytes, label);
    }
    // Labels seen in real mail that WHATWG does not list.
    let mapped = match lower.as_str() {
        "" | "ascii" | "us-ascii" | "ansi_x3.4-1968" | "7bit" | "8bit" | "default" | "unknown-8bit" | "x-unknown" | "us_ascii" => {
            "windows-1252"
        }
        "utf8" => "utf-8",
        "latin1" | "latin-1" | "iso8859-1" | "iso_8859-1" => "windows-1252",
        "cp1252" => "windows-1252",
        _ => lower.as_str(),
    };
    match Encoding::for_label(mapped.as_bytes()) {
        Some(enc) => {
            let (text, had_errors) = enc.decode_without_bom_handling(bytes);
            finish(text, had_errors, bytes, label)
        }
        None => match std::str::from_utf8(bytes) {
            // A wrong label on UTF-8 text is common; the text is still exact.
            Ok(s) => Decoded::Clean(s.to_string()),
            Err(_) => Decoded::Unknown { charset: label.to_string() },
        },
    }
}

fn finish(text: Cow<'_, str>, had_errors: bool, bytes: &[u8], label: &str) -> Decoded {
    if had_errors {
        // U+FFFD already present in the source (as UTF-8) is not a loss.
        let before = bytes.windows(3).filter(|w| *w == [0xEF, 0xBF, 0xBD]).count();
        let after = text.matches('\u{FFFD}').count();
        Decoded::Lossy { text: text.into_owned(), charset: label.to_string(), replaced: after.saturating_sub(before).max(1) }
    } else {
        Decoded::Clean(text.into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets() {
        assert_eq!(decode(b"caf\xe9", "iso-8859-1"), Decoded::Clean("café".into()));
        assert_eq!(decode(b"\x93hi\x94", "windows-1252"), Decoded::Clean("\u{201c}hi\u{201d}".into()));
        assert_eq!(decode(b"\xf0\xd2\xc9\xd7\xc5\xd4", "koi8-r"), Decoded::Clean("Привет".into()));
        assert_eq!(decode(b"ANSI", "ANSI_X3.4-1968"), Decoded::Clean("ANSI".into()));
        assert_eq!(decode(b"Hi Mom -+Jjo--!", "utf-7"), Decoded::Clean("Hi Mom -\u{263a}-!".into()));
        assert_eq!(decode("é".as_bytes(), "x-made-up"), Decoded::Clean("é".into()));
        assert_eq!(decode(b"\xe9", "x-made-up"), Decoded::Unknown { charset: "x-made-up".into() });
        match decode(b"ok \xff\xfe", "utf-8") {
            Decoded::Lossy { replaced, .. } => assert!(replaced >= 1),
            other => panic!("{other:?}"),
        }
    }
}
