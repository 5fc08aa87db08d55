//! Cheap looks at a file's first bytes, for the importers' `probe`s: is
//! this an mbox (a `From ` separator line first), or one RFC 5322 message
//! (a header field first)?

use std::io::Read;
use std::path::Path;

/// How much of a file a probe reads.
pub const PROBE_BYTES: u64 = 8 << 10;

/// Up to [`PROBE_BYTES`] from the start of `path` (empty when unreadable).
pub fn head(path: &Path) -> Vec<u8> {
    let mut buf = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(PROBE_BYTES).read_to_end(&mut buf);
    }
    buf
}

/// The first line that is not blank, without a UTF-8 byte-order mark.
fn first_line(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).find(|l| !l.iter().all(u8::is_ascii_whitespace)).unwrap_or(b"")
}

/// An mbox starts with a `From ` separator line.
pub fn is_mbox_head(bytes: &[u8]) -> bool {
    first_line(bytes).starts_with(b"From ")
}

/// One message starts with header fields (`Name: value`, the name printable
/// ASCII without a colon), and among the first few a field every mail has.
pub fn is_message_head(bytes: &[u8]) -> bool {
    if is_mbox_head(bytes) {
        return false;
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut known = false;
    for (i, line) in bytes.split(|&b| b == b'\n').take(40).enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            break;
        }
        if line.starts_with(b" ") || line.starts_with(b"\t") {
            if i == 0 {
                return false;
            }
            continue; // a folded continuation
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else { return false };
        let name = &line[..colon];
        if name.is_empty() || !name.iter().all(|&b| (33..=126).contains(&b)) {
            return false;
        }
        known |= ["message-id", "date", "from", "to", "subject", "received", "return-path", "mime-version"]
            .iter()
            .any(|k| name.eq_ignore_ascii_case(k.as_bytes()));
    }
    known
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mbox_and_message_heads() {
        assert!(is_mbox_head(b"From 123@xxx Tue May 20 08:30:00 +0000 2025\nSubject: x\n\nbody\n"));
        assert!(is_mbox_head(b"\n\nFrom MAILER-DAEMON Fri Jul  8 12:08:34 2011\n"));
        assert!(!is_mbox_head(b"From: Ada <a@example.org>\n"));
        assert!(!is_mbox_head(b"file,message\n"));
        let enron =
            b"Message-ID: <1.JavaMail.evans@thyme>\r\nDate: Mon, 14 May 2001 16:39:00 -0700 (PDT)\r\nSubject:\r\n\tfolded\r\n\r\nbody";
        assert!(is_message_head(enron));
        assert!(!is_message_head(b"From 1@xxx Tue May 20 08:30:00 +0000 2025\nMessage-ID: <x>\n"));
        assert!(!is_message_head(b"file,message\n\"a/1.\",\"Message-ID: <x>\"\n"));
        assert!(!is_message_head(b"# My notes\n\nSome text.\n"));
        assert!(!is_message_head(b"X-Custom: 1\n\nno known field\n"));
        assert!(!is_message_head(b""));
    }
}
