//! Numbers written as words, with their values: one list (`lexicons/text/spelled_numbers.txt`)
//! for the quantity reader ("three patients", [`crate::quantity`]) and the relative-date reader
//! ("two days ago", [`crate::dates`]), which both ask it and neither asks the other.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Numbers written as words, with their values (`text/spelled_numbers.txt`).
static SPELLED: crate::stopwords::WordPairs = crate::stopwords::WordPairs::new(crate::text_words::SPELLED_NUMBERS);

/// The value of a spelled-out number ([`SPELLED`], the first entry for the word), found by a
/// set look-up: every word of a text is asked. `lower` is the word in lower case.
pub fn value(lower: &str) -> Option<f64> {
    static BY_WORD: OnceLock<HashMap<&'static str, f64, crate::words::FastHash>> = OnceLock::new();
    let map = BY_WORD.get_or_init(|| {
        let mut m = HashMap::default();
        for &(word, value) in SPELLED.iter() {
            // A value that is no number is left out; the file's test names it.
            if let Ok(v) = value.parse::<f64>() {
                m.entry(word).or_insert(v);
            }
        }
        m
    });
    map.get(lower).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry of `text/spelled_numbers.txt` is a word with a number: none is left out.
    #[test]
    fn every_spelled_number_has_a_value() {
        assert!(SPELLED.len() >= 28, "{} entries", SPELLED.len());
        for (word, stated) in SPELLED.iter() {
            assert!(stated.parse::<f64>().is_ok_and(|v| v >= 2.0), "{word} = {stated}");
            assert_eq!(value(word), stated.parse::<f64>().ok(), "{word}");
        }
        assert_eq!(value("twenty"), Some(20.0));
        assert_eq!(value("one"), None, "\"one of the few\" states no quantity");
    }
}
