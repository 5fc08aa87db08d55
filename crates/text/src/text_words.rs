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

/// `text/units.txt`.
pub const UNITS: &str = include_str!("../lexicons/text/units.txt");

/// `text/currency_codes_before.txt`.
pub const CURRENCY_CODES_BEFORE: &str = include_str!("../lexicons/text/currency_codes_before.txt");

#[cfg(test)]
mod tests {
    #[test]
    fn every_file_has_its_constant_and_every_constant_is_read() {
        let source = include_str!("text_words.rs");
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/lexicons/text");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "txt") {
                continue;
            }
            n += 1;
            let stem = path.file_stem().unwrap().to_str().unwrap();
            assert!(source.contains(&format!("\"../lexicons/text/{stem}.txt\"")), "{stem}.txt has no constant");
        }
        assert!(n >= 10, "{n} files");
        let readers = [include_str!("cues.rs"), include_str!("sentence.rs"), include_str!("words.rs"), include_str!("quantity.rs")];
        for name in source.lines().filter_map(|l| l.strip_prefix("pub const ")?.split(':').next()) {
            let read = format!("crate::text_words::{name}");
            assert!(readers.iter().any(|r| r.contains(&read)), "{name} is read by no rule");
        }
    }
}
