//! Stopword lists, kept as data files under `lexicons/` and compiled in.
//! Each list has one job, named for it; the gate's own list
//! (`lexicons/stopwords.txt`) is read by [`crate::lexicon`].

use std::sync::OnceLock;

/// English function words that carry no topic: the verifier never aligns on
/// them and factcheck's search keys drop them (`lexicons/function_words.txt`).
pub static FUNCTION_WORDS: WordList = WordList(OnceLock::new(), include_str!("../lexicons/function_words.txt"));

/// What the verifier drops beyond [`FUNCTION_WORDS`] (`lexicons/alignment_stopwords.txt`).
pub static ALIGNMENT_STOPWORDS: WordList = WordList(OnceLock::new(), include_str!("../lexicons/alignment_stopwords.txt"));

/// Words recall leaves out of a full-text query: no retrieval signal for bm25
/// (`lexicons/query_stopwords.txt`).
pub static QUERY_STOPWORDS: WordList = WordList(OnceLock::new(), include_str!("../lexicons/query_stopwords.txt"));

/// What a trust-list search leaves out beyond [`FUNCTION_WORDS`]: claim verbs and the like that
/// carry no search value (`lexicons/search_stopwords.txt`).
pub static SEARCH_STOPWORDS: WordList = WordList(OnceLock::new(), include_str!("../lexicons/search_stopwords.txt"));

/// The text of `lexicons/window_stopwords.txt`: the function words the verifier model's evidence
/// window ignores (`amem_models::content_words`), one list with its training script.
pub const WINDOW_STOPWORDS: &str = include_str!("../lexicons/window_stopwords.txt");

/// A parsed word list (one word a line, `#` comments); derefs to a slice of
/// lower-case words.
pub struct WordList(OnceLock<Vec<&'static str>>, &'static str);

impl WordList {
    /// A list over a lexicon file's text (`include_str!`), parsed on first
    /// use; for the lists other crates keep as data files of their own
    /// (`crates/text/lexicons/claims/`).
    pub const fn new(text: &'static str) -> WordList {
        WordList(OnceLock::new(), text)
    }
}

impl std::ops::Deref for WordList {
    type Target = [&'static str];
    fn deref(&self) -> &[&'static str] {
        self.0.get_or_init(|| self.1.lines().map(|l| l.split('#').next().unwrap_or("").trim()).filter(|l| !l.is_empty()).collect())
    }
}

/// A parsed list of pairs (`a = b` a line, `#` comments): the antonyms, the two-word cues and
/// the other lists whose entries come two by two. Derefs to a slice of pairs, in file order.
pub struct WordPairs(OnceLock<Vec<(&'static str, &'static str)>>, &'static str);

impl WordPairs {
    /// Pairs over a lexicon file's text (`include_str!`), parsed on first use. A line without
    /// ` = ` is no pair and is left out (the file's test names it).
    pub const fn new(text: &'static str) -> WordPairs {
        WordPairs(OnceLock::new(), text)
    }
}

impl std::ops::Deref for WordPairs {
    type Target = [(&'static str, &'static str)];
    fn deref(&self) -> &[(&'static str, &'static str)] {
        self.0.get_or_init(|| {
            self.1
                .lines()
                .filter_map(|l| l.split('#').next().unwrap_or("").split_once('='))
                .map(|(a, b)| (a.trim(), b.trim()))
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                .collect()
        })
    }
}

/// The `.txt` files of the word-list folder `dir` (`lexicons/<folder>/`) that `module_source`,
/// the module compiling them in (one constant per file), does not include: what each such
/// module's test asserts is empty, with the number of files it read.
///
/// # Panics
/// `dir` cannot be read (a test's folder, named by the test).
pub fn files_without_constant(module_source: &str, dir: &std::path::Path, folder: &str) -> (Vec<String>, usize) {
    let mut missing = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        files += 1;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if !module_source.contains(&format!("\"../lexicons/{folder}/{stem}.txt\"")) {
            missing.push(format!("{stem}.txt"));
        }
    }
    (missing, files)
}

/// The constants of `module_source` (`pub const NAME:` lines) that none of `readers` (the
/// sources of the rules) names as `<path>::NAME`: a word list read by no rule.
pub fn unread_constants<'a>(module_source: &'a str, path: &str, readers: &[&str]) -> Vec<&'a str> {
    module_source
        .lines()
        .filter_map(|l| l.strip_prefix("pub const ")?.split(':').next())
        .filter(|name| !readers.iter().any(|r| r.contains(&format!("{path}::{name}"))))
        .collect()
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
        for list in [&ALIGNMENT_STOPWORDS, &QUERY_STOPWORDS] {
            assert!(list.iter().all(|w| *w == w.to_lowercase() && !w.contains(' ')));
        }
        assert!(ALIGNMENT_STOPWORDS.contains(&"lrb") && QUERY_STOPWORDS.contains(&"the"));
    }

    /// Every word-list folder: each file has its constant in the module compiling it in.
    #[test]
    fn every_file_of_each_folder_has_its_constant() {
        let folders = [
            (include_str!("claim_words.rs"), "claims", 20),
            (include_str!("verify_words.rs"), "verify", 20),
            (include_str!("mail_words.rs"), "mail", 8),
            (include_str!("text_words.rs"), "text", 10),
        ];
        for (module, folder, least) in folders {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("lexicons").join(folder);
            let (missing, files) = files_without_constant(module, &dir, folder);
            assert!(missing.is_empty() && files >= least, "{folder}: {files} files; without a constant: {missing:?}");
        }
    }

    #[test]
    fn pairs_are_read_two_by_two_in_order() {
        static P: WordPairs = WordPairs::new("# head\nincrease = decrease  # a comment\n\nin = mice\nno pair here\n= half\n");
        assert_eq!(*P, [("increase", "decrease"), ("in", "mice")]);
    }
}
