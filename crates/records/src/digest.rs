//! Content digests: SHA-256, so a user can check one with `sha256sum`.

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use std::fmt;

/// A SHA-256 content digest. Stable across platforms: it is computed over
/// bytes amem defines (never over in-memory layouts or map iteration order).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// Digest of a byte string.
    pub fn of(bytes: &[u8]) -> Self {
        let out = Sha256::digest(bytes);
        let mut d = [0u8; 32];
        d.copy_from_slice(&out);
        Digest(d)
    }

    /// Digest of several fields, each length-prefixed so that `("ab","c")`
    /// and `("a","bc")` differ.
    pub fn of_fields<'a>(fields: impl IntoIterator<Item = &'a [u8]>) -> Self {
        let mut h = Sha256::new();
        for f in fields {
            h.update((f.len() as u64).to_le_bytes());
            h.update(f);
        }
        let out = h.finalize();
        let mut d = [0u8; 32];
        d.copy_from_slice(&out);
        Digest(d)
    }

    /// The first 8 bytes, as a number: a key for in-memory tables that a
    /// whole digest would make four times larger.
    pub fn prefix_u64(&self) -> u64 {
        u64::from_le_bytes([self.0[0], self.0[1], self.0[2], self.0[3], self.0[4], self.0[5], self.0[6], self.0[7]])
    }

    /// Lowercase hex, 64 characters.
    pub fn to_hex(&self) -> String {
        let mut buf = [0u8; 64];
        self.write_hex(&mut buf).to_string()
    }

    /// [`Digest::to_hex`] written into `buf`, without allocating (report
    /// writers put two digests in every row).
    pub fn write_hex<'a>(&self, buf: &'a mut [u8; 64]) -> &'a str {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for (i, b) in self.0.iter().enumerate() {
            buf[2 * i] = HEX[usize::from(b >> 4)];
            buf[2 * i + 1] = HEX[usize::from(b & 15)];
        }
        // Only ASCII hex digits were written.
        std::str::from_utf8(buf).unwrap_or_default()
    }

    /// The first `n` hex characters (for short, human-facing ids).
    pub fn short(&self, n: usize) -> String {
        let mut h = self.to_hex();
        h.truncate(n.min(64));
        h
    }

    /// Parse 64 hex characters.
    pub fn from_hex(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if b.len() != 64 {
            return None;
        }
        let mut d = [0u8; 32];
        for (i, pair) in b.chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            d[i] = (hi * 16 + lo) as u8;
        }
        Some(Digest(d))
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.short(12))
    }
}

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Digest::from_hex(&s).ok_or_else(|| serde::de::Error::custom("expected 64 hex characters"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vector() {
        // FIPS 180-2 example: SHA-256("abc").
        assert_eq!(Digest::of(b"abc").to_hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn fields_are_length_prefixed() {
        let a = Digest::of_fields([b"ab".as_slice(), b"c".as_slice()]);
        let b = Digest::of_fields([b"a".as_slice(), b"bc".as_slice()]);
        assert_ne!(a, b);
    }

    #[test]
    fn hex_round_trip() {
        let d = Digest::of(b"x");
        assert_eq!(Digest::from_hex(&d.to_hex()), Some(d));
        assert_eq!(Digest::from_hex("zz"), None);
    }
}
