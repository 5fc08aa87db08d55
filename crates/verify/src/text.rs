//! The verifier's words are the text layer's (`amem_text::words`): one word
//! iterator, one stemmer and one stopword reading for every stage. Sentences
//! are `amem_text::sentence`'s (line layout), so every sentence is a verbatim
//! byte range of the evidence it came from and can be cited.

pub(crate) use amem_text::words::{
    FastHash, StemReader, Word, lower_into, stem, stem_key, stems_match, with_stem_reader, word_ranges, word_with_stem, words,
};

/// The verbs that say what a thing is ("Seohyun *is* a dog", "is said to"): a closed class of
/// English, written here once for the rules that read it rather than as a word-list file.
pub(crate) fn is_copula(lower: &str) -> bool {
    matches!(lower, "is" | "was" | "are" | "were")
}

/// The articles: a closed class, as [`is_copula`].
pub(crate) fn is_article(lower: &str) -> bool {
    matches!(lower, "a" | "an" | "the")
}
