//! The extractor's word lists, kept as data files with every other word list of amem in the
//! text layer's folder (`crates/text/lexicons/claims/`, one entry per line, `#` starts a
//! comment giving the entry's evidence) and compiled in there (`amem_text::claim_words`), so
//! the rules read as code and the words as data.
//!
//! Each list is an [`amem_text::stopwords::WordList`] (the one loader of
//! word-list files: parsed once, on first use, into lower-case entries).
//! An entry is the whole line, matched as the rule using it says (a word, a
//! phrase, a prefix). This module holds the checks every file must pass.

#[cfg(test)]
mod tests {
    use amem_text::stopwords::WordList;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../text/lexicons/claims");
    const SOURCES: [&str; 2] = [include_str!("classify.rs"), include_str!("compound.rs")];

    #[test]
    fn comments_and_blank_lines_are_not_entries() {
        static L: WordList = WordList::new("# head\n\nsaid   # reported speech\n  due to \n#\n");
        assert_eq!(*L, ["said", "due to"]);
    }

    #[test]
    fn every_file_is_lower_case_unique_and_used() {
        let mut n = 0;
        for entry in std::fs::read_dir(DIR).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "txt") {
                continue;
            }
            n += 1;
            let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
            let text: &'static str = String::leak(std::fs::read_to_string(&path).unwrap());
            let words: Vec<&str> = WordList::new(text).to_vec();
            assert!(!words.is_empty(), "{stem} is empty");
            let mut seen = std::collections::BTreeSet::new();
            for w in &words {
                assert_eq!(*w, w.to_lowercase(), "{stem}: {w} is not lower case");
                assert!(seen.insert(*w), "{stem}: {w} listed twice");
            }
            let constant = format!("amem_text::claim_words::{}", stem.to_uppercase());
            assert!(SOURCES.iter().any(|s| s.contains(&constant)), "{stem}.txt is loaded by no rule");
        }
        assert!(n >= 20, "{n} lexicon files");
    }
}
