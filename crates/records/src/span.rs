//! Byte spans into a text.

use serde::{Deserialize, Serialize};

/// A half-open byte range `[start, end)` into a UTF-8 text. Offsets are
/// bytes, not characters, and always fall on character boundaries of the
/// text they were taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True when the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text the span covers, or `None` when it is out of range or not on
    /// character boundaries.
    pub fn slice<'a>(&self, text: &'a str) -> Option<&'a str> {
        text.get(self.start..self.end)
    }

    /// True when the two spans share at least one byte.
    pub fn overlaps(&self, other: &Span) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// This span moved right by `offset` bytes (a span inside a sentence made
    /// relative to the whole text).
    pub fn shifted(&self, offset: usize) -> Span {
        Span::new(self.start + offset, self.end + offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_respects_boundaries() {
        let t = "café au lait";
        assert_eq!(Span::new(0, 5).slice(t), Some("café"));
        assert_eq!(Span::new(0, 4).slice(t), None);
        assert_eq!(Span::new(10, 99).slice(t), None);
    }

    #[test]
    fn overlap() {
        assert!(Span::new(0, 3).overlaps(&Span::new(2, 5)));
        assert!(!Span::new(0, 3).overlaps(&Span::new(3, 5)));
    }
}
