//! Evidence text analysed once, for any number of claims.
//!
//! Everything the verifier reads from an evidence sentence depends on the
//! sentence alone, never on the claim: its words and stems, whether it
//! addresses the verifier, its dates, quantities, negations, hedges, scope and
//! hearsay cues. An [`EvidenceAnalysis`] holds that for one evidence text, so
//! a chunk that several claims retrieve (consecutive claims of one message
//! usually recall the very same chunks) is split and read once; the claim side
//! of the decision stays in `align`.
//!
//! Only the stems of every sentence are read up front, into one buffer per
//! text (they decide which sentences share a word with a claim and which
//! word each claim word matches); every other fact of a sentence is read the
//! first time the decision asks for it, since most sentences of a chunk share
//! no word with any claim and most claims have no number or date.

use super::cues::{self, Cue};
use super::date::{self, Date};
use super::number::{self, Quantity};
use super::text::{self, Word};
use amem_text::sentence::Layout;
use std::ops::Range;
use std::sync::OnceLock;

/// Pronouns that, opening a sentence of a document, refer to the document's subject.
pub(crate) const SUBJECT_PRONOUNS: &[&str] = &["he", "she", "it", "they", "his", "her", "its", "their"];

/// One evidence text, split into sentences and read once.
#[derive(Debug)]
pub(crate) struct EvidenceAnalysis {
    /// The text analysed (the evidence item's quote).
    pub text: Box<str>,
    /// Its sentences, in order.
    pub sentences: Vec<SentenceAnalysis>,
    /// The stems of every word of the text, one after another; [`Stem::range`] points in here.
    stems: String,
    /// Every word's stem, in text order.
    words: Vec<Stem>,
    /// `key << 64 | position in words` of every word, sorted: the words a claim word can match
    /// (the same key) are found without reading the others, in text order.
    index: Vec<u128>,
}

/// One sentence of an evidence text. Past its stems, each fact is read on first use: a claim
/// without numbers never needs the sentence's quantities, and only sentences aligned with a
/// claim are searched for negations, hedges, scope and hearsay.
#[derive(Debug)]
pub(crate) struct SentenceAnalysis {
    /// Byte range in the evidence text.
    pub range: Range<usize>,
    /// True when the first word is one of [`SUBJECT_PRONOUNS`].
    pub opens_with_pronoun: bool,
    instruction: OnceLock<bool>,
    words: OnceLock<Vec<Word>>,
    dates: OnceLock<Vec<Date>>,
    quantities: OnceLock<Vec<Quantity>>,
    /// Negations and hedges.
    stance: OnceLock<(Vec<Cue>, Vec<Cue>)>,
    scopes: OnceLock<Vec<Cue>>,
    hearsay: OnceLock<Vec<Cue>>,
}

/// A word's stem: where the word is (sentence, then word index within the sentence, the order
/// of [`text::words`]) and its range in [`EvidenceAnalysis::stems`].
#[derive(Debug)]
struct Stem {
    sentence: usize,
    word: usize,
    range: Range<usize>,
}

impl EvidenceAnalysis {
    /// Split `text` into sentences and read the stems of their words.
    pub(super) fn new(text: &str) -> Self {
        let mut all = String::with_capacity(text.len() + 16);
        let (mut lower, mut stem) = (String::new(), String::new());
        let mut words = Vec::with_capacity(text.len() / 5 + 1);
        let mut index: Vec<u128> = Vec::with_capacity(text.len() / 5 + 1);
        let mut lowered = String::new();
        let sentences: Vec<SentenceAnalysis> = amem_text::sentence::split_sentences_as(text, Layout::Lines)
            .into_iter()
            .map(|s| s.start..s.end)
            .enumerate()
            .map(|(at_sentence, range)| {
                let sentence = &text[range.clone()];
                // An ASCII sentence is lower-cased once; a word of it is then a slice.
                let ascii = sentence.is_ascii();
                if ascii {
                    lowered.clear();
                    lowered.push_str(sentence);
                    lowered.make_ascii_lowercase();
                }
                let mut opens_with_pronoun = false;
                for (at_word, w) in text::word_ranges(sentence).enumerate() {
                    let lower = if ascii {
                        &lowered[w]
                    } else {
                        text::lower_into(&sentence[w], &mut lower);
                        lower.as_str()
                    };
                    if at_word == 0 {
                        opens_with_pronoun = SUBJECT_PRONOUNS.contains(&lower);
                    }
                    text::stem_into(lower, &mut stem);
                    let at = all.len();
                    all.push_str(&stem);
                    // A claim word is a content word, so it never matches a function word of the
                    // evidence: "cans" is not "can", "wills" is not "will" (their stems meet).
                    if !text::is_stopword(lower) {
                        index.push(u128::from(text::stem_key(&stem)) << 64 | words.len() as u128);
                    }
                    words.push(Stem { sentence: at_sentence, word: at_word, range: at..all.len() });
                }
                SentenceAnalysis {
                    range,
                    opens_with_pronoun,
                    instruction: OnceLock::new(),
                    words: OnceLock::new(),
                    dates: OnceLock::new(),
                    quantities: OnceLock::new(),
                    stance: OnceLock::new(),
                    scopes: OnceLock::new(),
                    hearsay: OnceLock::new(),
                }
            })
            .collect();
        index.sort_unstable();
        EvidenceAnalysis { text: text.into(), sentences, stems: all, words, index }
    }

    /// For each sentence that has a word matching one of `stems` (each a claim word's stem
    /// with its [`text::stem_key`]) by [`text::stems_match`], in sentence order: the sentence
    /// index and, for each of `stems`, the index of the first word of the sentence matching it.
    pub(super) fn first_matches(&self, stems: &[(u64, &str)]) -> Vec<(usize, Vec<Option<usize>>)> {
        let mut found: Vec<(usize, Vec<Option<usize>>)> = Vec::new();
        for (k, &(key, stem)) in stems.iter().enumerate() {
            let key = u128::from(key) << 64;
            let start = self.index.partition_point(|&e| e < key);
            for &e in self.index[start..].iter().take_while(|&&e| e >> 64 == key >> 64) {
                let Some(w) = usize::try_from(e & u128::from(u64::MAX)).ok().and_then(|i| self.words.get(i)) else { continue };
                let (sentence, word) = (w.sentence, w.word);
                // Entries of one sentence come in word order: the first match is the earliest.
                let at = found.binary_search_by_key(&sentence, |f| f.0);
                if at.is_ok_and(|i| found[i].1[k].is_some()) {
                    continue;
                }
                if !text::stems_match(stem, self.stems.get(w.range.clone()).unwrap_or("")) {
                    continue;
                }
                match at {
                    Ok(i) => found[i].1[k] = Some(word),
                    Err(i) => {
                        let mut firsts = vec![None; stems.len()];
                        firsts[k] = Some(word);
                        found.insert(i, (sentence, firsts));
                    }
                }
            }
        }
        found
    }

    /// The text of sentence `s`.
    pub(super) fn sentence_text(&self, s: &SentenceAnalysis) -> &str {
        &self.text[s.range.clone()]
    }

    /// True when sentence `s` addresses the verifier (see `align::is_instruction`).
    pub(super) fn is_instruction(&self, s: &SentenceAnalysis) -> bool {
        *s.instruction.get_or_init(|| super::align::is_instruction_words(self.sentence_text(s), self.words(s)))
    }

    /// The words of sentence `s`.
    pub(super) fn words<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Word] {
        s.words.get_or_init(|| text::words(self.sentence_text(s)))
    }

    /// The dates of sentence `s`.
    pub(super) fn dates<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Date] {
        s.dates.get_or_init(|| date::dates(self.sentence_text(s)))
    }

    /// The quantities of sentence `s`, outside its dates.
    pub(super) fn quantities<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Quantity] {
        s.quantities.get_or_init(|| values_outside_dates(number::quantities(self.sentence_text(s), self.words(s)), self.dates(s)))
    }

    /// The negation and hedge cues of sentence `s`.
    pub(super) fn stance<'a>(&'a self, s: &'a SentenceAnalysis) -> (&'a [Cue], &'a [Cue]) {
        let (n, h) = s.stance.get_or_init(|| cues::stance(self.sentence_text(s), self.words(s)));
        (n, h)
    }

    /// The scope cues of sentence `s`.
    pub(super) fn scopes<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Cue] {
        s.scopes.get_or_init(|| cues::scopes(self.words(s)))
    }

    /// The hearsay cues of sentence `s`.
    pub(super) fn hearsay<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Cue] {
        s.hearsay.get_or_init(|| cues::hearsay(self.words(s)))
    }
}

/// Quantities that are not part of a date, and not bare years (the text layer's rule).
pub(crate) use amem_text::quantity::values_outside_dates;
