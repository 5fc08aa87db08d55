//! The extractor's word lists, kept as data files under `lexicons/` (one
//! entry per line, `#` starts a comment giving the entry's evidence) and
//! compiled in, so the rules read as code and the words as data.
//!
//! Each list is parsed once, on first use. The format is the one of the
//! gate's lexicons (`crates/gate/lexicons/README.md`) without inflection
//! groups: an entry is the whole line, lower case, matched as the rule
//! using it says (a word, a phrase, a prefix).

use std::sync::OnceLock;

/// One word list: its name (the file stem) and its entries, in file order.
pub struct Lexicon {
    name: &'static str,
    text: &'static str,
    entries: OnceLock<Vec<&'static str>>,
}

impl Lexicon {
    /// A list named `name` whose file text is `text` (`include_str!`).
    pub const fn new(name: &'static str, text: &'static str) -> Lexicon {
        Lexicon { name, text, entries: OnceLock::new() }
    }

    /// The file stem (`lexicons/<name>.txt`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The entries: every line with its comment and surrounding space
    /// removed, blank lines skipped.
    pub fn entries(&self) -> &[&'static str] {
        self.entries.get_or_init(|| parse(self.text))
    }
}

impl std::ops::Deref for Lexicon {
    type Target = [&'static str];
    fn deref(&self) -> &[&'static str] {
        self.entries()
    }
}

/// The entries of a lexicon file's text.
pub fn parse(text: &str) -> Vec<&str> {
    text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).filter(|l| !l.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/lexicons");
    const SOURCES: [&str; 3] = [include_str!("classify.rs"), include_str!("compound.rs"), include_str!("strip.rs")];

    #[test]
    fn comments_and_blank_lines_are_not_entries() {
        assert_eq!(parse("# head\n\nsaid   # reported speech\n  due to \n#\n"), ["said", "due to"]);
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
            let text = std::fs::read_to_string(&path).unwrap();
            let words = parse(&text);
            assert!(!words.is_empty(), "{stem} is empty");
            let mut seen = std::collections::BTreeSet::new();
            for w in &words {
                assert_eq!(*w, w.to_lowercase(), "{stem}: {w} is not lower case");
                assert!(seen.insert(*w), "{stem}: {w} listed twice");
            }
            let include = format!("\"../lexicons/{stem}.txt\"");
            assert!(SOURCES.iter().any(|s| s.contains(&include)), "{stem}.txt is loaded by no rule");
        }
        assert!(n >= 20, "{n} lexicon files");
    }
}
