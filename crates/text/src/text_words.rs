//! The text layer's own word lists (`crates/text/lexicons/text/`): the cue scanner's, the sentence splitter's, the number reader's and the stemmer's irregular forms.
//! One constant per file of `crates/text/lexicons/text/`, compiled in, each read as a
//! [`crate::stopwords::WordList`] (or [`crate::stopwords::WordPairs`] for `a = b` lines), the one
//! loader of word-list files. The folder's README says what the files are.

/// `text/unrealised.txt`.
pub const UNREALISED: &str = include_str!("../lexicons/text/unrealised.txt");

/// `text/appear_place.txt`.
pub const APPEAR_PLACE: &str = include_str!("../lexicons/text/appear_place.txt");

/// `text/possible_degree.txt`.
pub const POSSIBLE_DEGREE: &str = include_str!("../lexicons/text/possible_degree.txt");

/// `text/month_before.txt`.
pub const MONTH_BEFORE: &str = include_str!("../lexicons/text/month_before.txt");

/// `text/pronouns.txt`.
pub const PRONOUNS: &str = include_str!("../lexicons/text/pronouns.txt");

/// `text/connectors.txt`.
pub const CONNECTORS: &str = include_str!("../lexicons/text/connectors.txt");

/// `text/openers.txt`.
pub const OPENERS: &str = include_str!("../lexicons/text/openers.txt");

/// `text/irregular.txt`.
pub const IRREGULAR: &str = include_str!("../lexicons/text/irregular.txt");

/// `text/anchor_skip.txt`.
pub const ANCHOR_SKIP: &str = include_str!("../lexicons/text/anchor_skip.txt");

/// `text/links.txt`.
pub const LINKS: &str = include_str!("../lexicons/text/links.txt");

/// `text/spelled_numbers.txt` (`word = value` lines).
pub const SPELLED_NUMBERS: &str = include_str!("../lexicons/text/spelled_numbers.txt");

/// `text/number_word_units.txt`.
pub const NUMBER_WORD_UNITS: &str = include_str!("../lexicons/text/number_word_units.txt");

/// `text/currency_codes_before.txt`.
pub const CURRENCY_CODES_BEFORE: &str = include_str!("../lexicons/text/currency_codes_before.txt");

#[cfg(test)]
mod tests {
    use crate::stopwords::unread_constants;

    #[test]
    fn every_constant_is_read() {
        let readers = [
            include_str!("cues.rs"),
            include_str!("sentence.rs"),
            include_str!("words.rs"),
            include_str!("quantity.rs"),
            include_str!("spelled.rs"),
        ];
        let unread = unread_constants(include_str!("text_words.rs"), "crate::text_words", &readers);
        assert!(unread.is_empty(), "read by no rule: {unread:?}");
    }
}
