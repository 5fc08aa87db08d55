//! A small decoder for the NSArchiver "typedstream" in `message.attributedBody`,
//! enough to take the text of the archived `NSAttributedString`.
//!
//! Written from the format as the blobs show it (`../shared/corpora/imessage/
//! imessage-exporter-streamtyped/`, read as data) and Apple's description of
//! typedstream in the old `objc/typedstream.h`: no third-party decoder's code.
//!
//! Layout, as read here:
//! - header: version byte `0x04`, the signature as a length-prefixed string
//!   (`0x0B "streamtyped"`), then the system version as an integer (`0x81 E8 03` = 1000);
//! - then typed values: a *type string* (shared: `0x84` + integer length +
//!   bytes adds it to the string table; a byte `>= 0x92` refers to entry
//!   `byte - 0x92`), followed by one value per type character;
//! - integers: one signed byte, or `0x81` + i16 LE, or `0x82` + i32 LE;
//! - `@` (object): `0x85` nil, a reference `>= 0x92` into the object table,
//!   or `0x84` new: the object is entered in the table, then its class
//!   (`0x84` new class = shared name string + integer version + superclass,
//!   recursively, ending in `0x85`; or a reference to a known class, which
//!   shares the object table), then its contents as typed values, ended by `0x86`;
//! - `+`: an integer byte count and that many bytes (the string's UTF-8).
//!
//! The root object is an `NSAttributedString`/`NSMutableAttributedString`
//! whose first value is an `@` holding an `NSString`/`NSMutableString` whose
//! first value is the `+` text. Decoding stops there: the attribute runs that
//! follow (links, attachment GUIDs) are not needed for the text.
//!
//! Every read is bounds-checked and returns [`DecodeError`]; the decoder
//! never panics (a proptest and the `typedstream` fuzz target feed it random bytes).

/// Marker bytes of the format.
const I16: u8 = 0x81;
const I32: u8 = 0x82;
const NEW: u8 = 0x84;
const NIL: u8 = 0x85;
/// Bytes at or above this are table references (`byte - REF_BASE`).
const REF_BASE: u8 = 0x92;

/// Objects nest; real blobs go 3 deep. Bounded so crafted input cannot
/// recurse without end.
const MAX_DEPTH: usize = 64;

/// Why a blob could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The blob does not start with `04 0B "streamtyped"`.
    #[error("not a typedstream (expected 04 0B \"streamtyped\" at byte 0)")]
    Header,
    /// The blob ended before a value was complete.
    #[error("typedstream ends early at byte {0}")]
    Truncated(usize),
    /// A byte that is not valid where it stands.
    #[error("unexpected byte 0x{byte:02x} at byte {at} ({what})")]
    Unexpected {
        /// Offset.
        at: usize,
        /// The byte.
        byte: u8,
        /// What was expected.
        what: &'static str,
    },
    /// A reference to a table entry that does not exist.
    #[error("reference to unknown entry {index} at byte {at}")]
    BadReference {
        /// Offset.
        at: usize,
        /// The index.
        index: usize,
    },
    /// The root object is not an attributed string (or holds no string).
    #[error("no NSString text in the archived object ({0})")]
    NoText(String),
    /// Objects nested deeper than the decoder allows.
    #[error("objects nested deeper than {MAX_DEPTH}")]
    TooDeep,
}

/// The text of an `attributedBody` blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The string, verbatim (U+FFFC object-replacement characters mark
    /// attachments and are kept here).
    pub text: String,
    /// True when the stored byte count ran past the end of the blob or the
    /// bytes were not UTF-8, and the text is the valid UTF-8 prefix of what
    /// was there (seen in the `ExtraData` sample, whose text block was cut).
    pub lossy: bool,
}

/// Decode the text of an `attributedBody` typedstream.
///
/// # Errors
/// [`DecodeError`] when the blob is not a typedstream or its root object
/// holds no `NSString`.
pub fn decode_text(blob: &[u8]) -> Result<Decoded, DecodeError> {
    let mut r = Reader { b: blob, at: 0, strings: Vec::new(), objects: Vec::new() };
    r.header()?;
    let ty = r.type_string()?;
    if r.bytes(ty) != b"@" {
        return Err(DecodeError::NoText(format!("root type is {:?}, not an object", r.lossy(ty))));
    }
    // Root object: must be new and of an attributed-string class.
    let root = match r.object_start(0)? {
        Some(c) => c,
        None => return Err(DecodeError::NoText("root object is nil".into())),
    };
    if !root.attributed {
        // A bare NSString root would carry its `+` directly.
        if root.string {
            return r.plus_text();
        }
        return Err(DecodeError::NoText(format!("root class is {}", r.lossy(root.name))));
    }
    let ty = r.type_string()?;
    if r.bytes(ty) != b"@" {
        return Err(DecodeError::NoText("attributed string does not start with its string object".into()));
    }
    match r.object_start(1)? {
        Some(c) if c.string => r.plus_text(),
        Some(c) => Err(DecodeError::NoText(format!("string object has class {}", r.lossy(c.name)))),
        None => Err(DecodeError::NoText("string object is nil".into())),
    }
}

/// A byte range of the blob (strings are never copied out while decoding).
type Range = (usize, usize);

/// What the decoder needs of a class chain: the most derived name and
/// whether any class in the chain is an attributed string / a string.
#[derive(Clone, Copy, Default)]
struct ClassInfo {
    name: Range,
    attributed: bool,
    string: bool,
}

/// An object-table entry: a class or an object.
#[derive(Clone, Copy)]
enum Entry {
    Class(ClassInfo),
    Object,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    strings: Vec<Range>,
    objects: Vec<Entry>,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, DecodeError> {
        let v = *self.b.get(self.at).ok_or(DecodeError::Truncated(self.at))?;
        self.at += 1;
        Ok(v)
    }

    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        let end = self.at.checked_add(n).ok_or(DecodeError::Truncated(self.at))?;
        let s = self.b.get(self.at..end).ok_or(DecodeError::Truncated(self.at))?;
        self.at = end;
        Ok(s)
    }

    fn header(&mut self) -> Result<(), DecodeError> {
        let ok = self.byte().ok() == Some(0x04) && self.byte().ok() == Some(0x0b) && self.take(11).ok() == Some(b"streamtyped".as_slice());
        if !ok {
            return Err(DecodeError::Header);
        }
        self.int().map_err(|_| DecodeError::Header)?;
        Ok(())
    }

    /// A typedstream integer.
    fn int(&mut self) -> Result<i64, DecodeError> {
        let at = self.at;
        let b = self.byte()?;
        match b {
            I16 => {
                let s = self.take(2)?;
                Ok(i64::from(i16::from_le_bytes([s[0], s[1]])))
            }
            I32 => {
                let s = self.take(4)?;
                Ok(i64::from(i32::from_le_bytes([s[0], s[1], s[2], s[3]])))
            }
            0x80 | 0x83..=0x91 => Err(DecodeError::Unexpected { at, byte: b, what: "an integer" }),
            _ => Ok(i64::from(b as i8)),
        }
    }

    fn length(&mut self) -> Result<usize, DecodeError> {
        let at = self.at;
        let n = self.int()?;
        usize::try_from(n).map_err(|_| DecodeError::Unexpected { at, byte: self.b.get(at).copied().unwrap_or(0), what: "a length" })
    }

    /// The bytes of a range (empty if out of bounds, which cannot happen
    /// for ranges made by `take`).
    fn bytes(&self, r: Range) -> &[u8] {
        self.b.get(r.0..r.1).unwrap_or(&[])
    }

    fn lossy(&self, r: Range) -> String {
        String::from_utf8_lossy(self.bytes(r)).into_owned()
    }

    /// A shared string: new (`0x84` + length + bytes) or a reference.
    fn shared_string(&mut self) -> Result<Range, DecodeError> {
        let at = self.at;
        let b = self.byte()?;
        match b {
            NEW => {
                let n = self.length()?;
                let start = self.at;
                self.take(n)?;
                self.strings.push((start, self.at));
                Ok((start, self.at))
            }
            b if b >= REF_BASE => {
                let index = usize::from(b - REF_BASE);
                self.strings.get(index).copied().ok_or(DecodeError::BadReference { at, index })
            }
            _ => Err(DecodeError::Unexpected { at, byte: b, what: "a shared string" }),
        }
    }

    fn type_string(&mut self) -> Result<Range, DecodeError> {
        self.shared_string()
    }

    /// A class: `0x84` name version superclass… `0x85`, or a reference.
    /// Returns what the chain says, the most derived name first.
    fn class(&mut self, depth: usize) -> Result<ClassInfo, DecodeError> {
        if depth > MAX_DEPTH {
            return Err(DecodeError::TooDeep);
        }
        let at = self.at;
        let b = self.byte()?;
        match b {
            NIL => Ok(ClassInfo::default()),
            NEW => {
                let name = self.shared_string()?;
                let bytes = self.bytes(name);
                let mut info = ClassInfo { name, attributed: bytes.ends_with(b"AttributedString"), string: bytes.ends_with(b"String") };
                self.int()?; // class version
                let slot = self.objects.len();
                self.objects.push(Entry::Class(info));
                let sup = self.class(depth + 1)?;
                info.attributed |= sup.attributed;
                info.string |= sup.string;
                if let Some(e) = self.objects.get_mut(slot) {
                    *e = Entry::Class(info);
                }
                Ok(info)
            }
            b if b >= REF_BASE => {
                let index = usize::from(b - REF_BASE);
                match self.objects.get(index) {
                    Some(Entry::Class(c)) => Ok(*c),
                    _ => Err(DecodeError::BadReference { at, index }),
                }
            }
            _ => Err(DecodeError::Unexpected { at, byte: b, what: "a class" }),
        }
    }

    /// The start of an `@` value: `None` for nil, the class of a new
    /// object (whose contents follow). A reference to an earlier object is
    /// not a new string and is reported as unexpected here.
    fn object_start(&mut self, depth: usize) -> Result<Option<ClassInfo>, DecodeError> {
        let at = self.at;
        let b = self.byte()?;
        match b {
            NIL => Ok(None),
            NEW => {
                // The object takes its table slot before its class (the
                // samples' NSObject back-reference 0x95 counts it).
                self.objects.push(Entry::Object);
                Ok(Some(self.class(depth + 1)?))
            }
            b if b >= REF_BASE => {
                let index = usize::from(b - REF_BASE);
                match self.objects.get(index) {
                    Some(Entry::Object) => Err(DecodeError::Unexpected { at, byte: b, what: "a new object (found a back-reference)" }),
                    _ => Err(DecodeError::BadReference { at, index }),
                }
            }
            _ => Err(DecodeError::Unexpected { at, byte: b, what: "an object" }),
        }
    }

    /// The string object's first value: type `+`, a byte count, the bytes.
    fn plus_text(&mut self) -> Result<Decoded, DecodeError> {
        let ty = self.type_string()?;
        if self.bytes(ty) != b"+" {
            return Err(DecodeError::NoText(format!("string holds type {:?}, not +", self.lossy(ty))));
        }
        let n = self.length()?;
        let start = self.at;
        let end = start.saturating_add(n);
        let (bytes, cut) = match self.b.get(start..end) {
            Some(s) => (s, false),
            None => (self.b.get(start..).unwrap_or(&[]), true),
        };
        match std::str::from_utf8(bytes) {
            Ok(s) if !cut => Ok(Decoded { text: s.to_string(), lossy: false }),
            Ok(s) => Ok(Decoded { text: valid_prefix(s.as_bytes()), lossy: true }),
            Err(_) => Ok(Decoded { text: valid_prefix(bytes), lossy: true }),
        }
    }
}

/// The longest valid UTF-8 prefix. After a cut text block the next byte is
/// usually a `0x86` end marker, never a valid UTF-8 lead byte, so this stops
/// where the text stopped.
fn valid_prefix(bytes: &[u8]) -> String {
    let n = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    String::from_utf8_lossy(bytes.get(..n).unwrap_or(&[])).into_owned()
}

/// Build typedstream blobs of each shape for tests: the encoder mirrors the
/// layout described above, so each test blob is made byte by byte.
#[cfg(test)]
pub(crate) mod build {
    /// Integer in typedstream form.
    pub(crate) fn int(n: i64, out: &mut Vec<u8>) {
        if (-110..=127).contains(&n) {
            out.push(n as i8 as u8);
        } else if i16::try_from(n).is_ok() {
            out.push(0x81);
            out.extend_from_slice(&(n as i16).to_le_bytes());
        } else {
            out.push(0x82);
            out.extend_from_slice(&(n as i32).to_le_bytes());
        }
    }

    fn new_string(s: &str, out: &mut Vec<u8>) {
        out.push(0x84);
        int(s.len() as i64, out);
        out.extend_from_slice(s.as_bytes());
    }

    /// `NSMutableAttributedString` (or `NSAttributedString` when `mutable` is
    /// false) holding `text`, with one attribute run covering it, as Messages
    /// writes for a plain message.
    pub(crate) fn attributed(text: &str, mutable: bool) -> Vec<u8> {
        let mut b = vec![0x04, 0x0b];
        b.extend_from_slice(b"streamtyped");
        int(1000, &mut b);
        new_string("@", &mut b); // str 0
        b.push(0x84); // new object (obj 0)
        b.push(0x84); // new class (obj 1)
        if mutable {
            new_string("NSMutableAttributedString", &mut b);
            b.push(0);
            b.push(0x84); // superclass (obj 2)
        }
        new_string("NSAttributedString", &mut b);
        b.push(0);
        b.push(0x84);
        new_string("NSObject", &mut b);
        b.push(0);
        b.push(0x85);
        b.push(0x92); // type "@"
        b.push(0x84); // new object: the string
        b.push(0x84);
        new_string("NSString", &mut b);
        b.push(1);
        // superclass NSObject: a reference into the object table
        b.push(0x92 + if mutable { 3 } else { 2 });
        new_string("+", &mut b);
        int(text.len() as i64, &mut b);
        b.extend_from_slice(text.as_bytes());
        b.push(0x86);
        // one attribute run: type "iI", location 1, length = UTF-16 units
        new_string("iI", &mut b);
        int(1, &mut b);
        int(text.encode_utf16().count() as i64, &mut b);
        b.extend_from_slice(&[0x86]);
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(b: &[u8]) -> String {
        decode_text(b).unwrap().text
    }

    #[test]
    fn handmade_shapes() {
        assert_eq!(text(&build::attributed("Noter test", true)), "Noter test");
        assert_eq!(text(&build::attributed("Test 3", false)), "Test 3");
        assert_eq!(text(&build::attributed("", true)), "");
        let multi = "\u{FFFC}test 1\u{FFFC}test 2 \u{FFFC}test 3";
        assert_eq!(text(&build::attributed(multi, true)), multi);
        let url = "https://example.org/a?b=c";
        assert_eq!(text(&build::attributed(url, true)), url);
        // 0x81 (i16) and 0x82 (i32) length prefixes.
        let long = "x".repeat(300);
        assert_eq!(text(&build::attributed(&long, true)), long);
        let longer = "y".repeat(70_000);
        assert_eq!(text(&build::attributed(&longer, true)), longer);
        let weird = "𝖍𝖊𝖑𝖑𝖔 ☃";
        assert_eq!(text(&build::attributed(weird, true)), weird);
    }

    #[test]
    fn cut_text_block_keeps_the_valid_prefix() {
        let mut b = build::attributed("This is parsing", true);
        // Claim 157 bytes where 15 are stored, as the ExtraData sample does.
        let pos = b.windows(2).position(|w| w == [b'+', 15]).unwrap() + 1;
        b.splice(pos..pos + 1, [0x81, 157, 0]);
        let d = decode_text(&b).unwrap();
        assert!(d.lossy);
        assert_eq!(d.text, "This is parsing");
    }

    #[test]
    fn errors_not_panics() {
        assert_eq!(decode_text(b""), Err(DecodeError::Header));
        assert_eq!(decode_text(b"bplist00"), Err(DecodeError::Header));
        let full = build::attributed("hello there", true);
        for cut in 0..full.len() {
            let _ = decode_text(&full[..cut]);
        }
        let mut bad_ref = full.clone();
        let p = bad_ref.iter().position(|&x| x == 0x92).unwrap();
        bad_ref[p] = 0xfe;
        assert!(decode_text(&bad_ref).is_err());
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = decode_text(&bytes);
        }

        #[test]
        fn random_tails_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut b = vec![0x04, 0x0b];
            b.extend_from_slice(b"streamtyped");
            b.extend_from_slice(&[0x81, 0xe8, 0x03, 0x84, 0x01, b'@']);
            b.extend_from_slice(&tail);
            let _ = decode_text(&b);
        }

        #[test]
        fn round_trip(s in "\\PC{0,300}") {
            prop_assert_eq!(text(&build::attributed(&s, true)), s);
        }
    }
}
