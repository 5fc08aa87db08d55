//! The verifier's words are the text layer's (`amem_text::words`): one word
//! iterator, one stemmer and one stopword reading for every stage. Sentences
//! are `amem_text::sentence`'s (line layout), so every sentence is a verbatim
//! byte range of the evidence it came from and can be cited.

pub(crate) use amem_text::words::{
    FastHash, StemReader, Word, lower_into, stem, stem_key, stems_match, with_stem_reader, word_ranges, word_with_stem, words,
};
