//! Stopword lists, kept as data files under `lexicons/` and compiled in.

use std::sync::OnceLock;

/// English function words that carry no topic: the verifier never aligns on
/// them and factcheck's search keys drop them (`lexicons/function_words.txt`).
pub static FUNCTION_WORDS: FunctionWords = FunctionWords(OnceLock::new());

/// The parsed function-word list; derefs to a slice of lower-case words.
pub struct FunctionWords(OnceLock<Vec<&'static str>>);

impl std::ops::Deref for FunctionWords {
    type Target = [&'static str];
    fn deref(&self) -> &[&'static str] {
        self.0.get_or_init(|| {
            include_str!("../lexicons/function_words.txt").lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_words_are_lower_case_and_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for w in FUNCTION_WORDS.iter() {
            assert_eq!(*w, w.to_lowercase());
            assert!(seen.insert(*w), "{w} listed twice");
        }
        assert!(FUNCTION_WORDS.contains(&"the"));
        assert!(!FUNCTION_WORDS.contains(&"coal"));
    }
}
