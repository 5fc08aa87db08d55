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
use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

/// Pronouns that, opening a sentence of a document, refer to the document's subject.
pub(crate) static SUBJECT_PRONOUNS: amem_text::stopwords::WordList =
    amem_text::stopwords::WordList::new(amem_text::verify_words::DOCUMENT_SUBJECT_PRONOUNS);

/// One evidence text, split into sentences and read once.
#[derive(Debug)]
pub(crate) struct EvidenceAnalysis {
    /// The text analysed (the evidence item's quote).
    pub text: Box<str>,
    /// Its sentences, in order.
    pub sentences: Vec<SentenceAnalysis>,
    /// The stems of every word of the text, one after another; [`Stem::end`] points in here.
    stems: Box<str>,
    /// Every word's stem, in text order (allocated to its length: see [`EvidenceAnalysis::read`]).
    words: Box<[Stem]>,
    /// `key, position in words` of every content word, sorted: the words a claim word can
    /// match (the same key) are found without reading the others, in text order.
    index: KeyIndex,
    /// The title this text was first verified under and its words: a recalled chunk comes
    /// with its note's title every time, and each claim reads the title's words.
    title: OnceLock<(Box<str>, Vec<Word>)>,
}

/// One sentence of an evidence text. Past its stems, each fact is read on first use: a claim
/// without numbers never needs the sentence's quantities, and only sentences aligned with a
/// claim are searched for negations, hedges, scope and hearsay.
///
/// The facts sit behind one box made when the first of them is read: most sentences of a
/// recalled chunk share no word with any claim and never read one, and seven empty cells
/// inline took 208 of the 256 bytes of every sentence the cache holds (17 sentences a chunk
/// of the Enron bench wiki: a third of a cached analysis).
#[derive(Debug)]
pub(crate) struct SentenceAnalysis {
    /// Byte range in the evidence text.
    pub range: Range<usize>,
    /// Index of its first word in [`EvidenceAnalysis::words`] (its words follow in order).
    first_word: usize,
    /// True when the first word is one of [`SUBJECT_PRONOUNS`].
    pub opens_with_pronoun: bool,
    facts: OnceLock<Box<SentenceFacts>>,
}

/// What a [`SentenceAnalysis`] reads of its sentence on demand, each on its own first use.
#[derive(Debug, Default)]
struct SentenceFacts {
    instruction: OnceLock<bool>,
    /// Allocated to the sentence's word count.
    words: OnceLock<Box<[Word]>>,
    dates: OnceLock<Vec<Date>>,
    quantities: OnceLock<Vec<Quantity>>,
    /// Negations and hedges.
    stance: OnceLock<(Vec<Cue>, Vec<Cue>)>,
    scopes: OnceLock<Vec<Cue>>,
    hearsay: OnceLock<Vec<Cue>>,
}

impl SentenceAnalysis {
    fn facts(&self) -> &SentenceFacts {
        self.facts.get_or_init(Box::default)
    }
}

/// A word's stem, in text order (the order of [`text::words`], sentence after sentence): it ends
/// at `end` in [`EvidenceAnalysis::stems`] and starts where the previous word's ends. Kept this
/// small (16 bytes, against 40 with its sentence, word index and range) because every word of
/// every cached text has one; the sentence and word index are found from the position.
#[derive(Clone, Copy, Debug)]
struct Stem {
    end: usize,
    /// [`text::is_stopword`] of the word.
    stopword: bool,
}

impl EvidenceAnalysis {
    /// Split `text` into sentences and read the stems of their words.
    pub(super) fn new(text: &str) -> Self {
        text::with_stem_reader(|reader| Self::read(text, reader))
    }

    fn read(text: &str, reader: &mut text::StemReader<'_>) -> Self {
        let mut all = String::with_capacity(text.len() + 16);
        let mut lower = String::new();
        let mut words = Vec::with_capacity(text.len() / 5 + 1);
        let mut index = KeyIndex::for_text(text);
        let mut lowered = String::new();
        let sentences: Vec<SentenceAnalysis> = amem_text::sentence::split_sentences_as(text, Layout::Lines)
            .into_iter()
            .map(|s| s.start..s.end)
            .map(|range| {
                let sentence = &text[range.clone()];
                let first_word = words.len();
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
                    let (stem, stopword) = reader.read(lower);
                    all.push_str(stem);
                    // A claim word is a content word, so it never matches a function word of the
                    // evidence: "cans" is not "can", "wills" is not "will" (their stems meet).
                    if !stopword {
                        index.push(text::stem_key(stem), words.len());
                    }
                    words.push(Stem { end: all.len(), stopword });
                }
                SentenceAnalysis { range, first_word, opens_with_pronoun, facts: OnceLock::new() }
            })
            .collect();
        index.sort();
        // What the cache holds is allocated to its length: the word tables were sized for a
        // word every five bytes (a fifth more than the wiki's chunks have), and a vector of
        // sentences grows by doubling. The allocator keeps a shrunk block whole, so these
        // are copies.
        EvidenceAnalysis {
            text: text.into(),
            sentences,
            stems: all.as_str().into(),
            words: words.as_slice().into(),
            index: index.exact(),
            title: OnceLock::new(),
        }
    }

    /// The stem of word `i` (a position in `words`).
    fn stem(&self, i: usize) -> &str {
        let start = i.checked_sub(1).and_then(|p| self.words.get(p)).map_or(0, |w| w.end);
        self.words.get(i).and_then(|w| self.stems.get(start..w.end)).unwrap_or("")
    }

    /// The sentence of word `i` and the word's index within it.
    fn locate(&self, i: usize) -> (usize, usize) {
        let sentence = self.sentences.partition_point(|s| s.first_word <= i).saturating_sub(1);
        (sentence, i - self.sentences.get(sentence).map_or(0, |s| s.first_word.min(i)))
    }

    /// For each sentence that has a word matching one of `stems` (each a claim word's stem
    /// with its [`text::stem_key`]) by [`text::stems_match`], in sentence order: the sentence
    /// index and, for each of `stems`, the index of the first word of the sentence matching it.
    pub(super) fn first_matches(&self, stems: &[(u64, &str)]) -> Vec<(usize, Vec<Option<usize>>)> {
        let mut found: Vec<(usize, Vec<Option<usize>>)> = Vec::new();
        let mut positions = Vec::new();
        for (k, &(key, stem)) in stems.iter().enumerate() {
            self.index.positions(key, &mut positions);
            for &i in &positions {
                let (sentence, word) = self.locate(i);
                // Entries of one sentence come in word order: the first match is the earliest.
                let at = found.binary_search_by_key(&sentence, |f| f.0);
                if at.is_ok_and(|i| found[i].1[k].is_some()) {
                    continue;
                }
                if !text::stems_match(stem, self.stem(i)) {
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

    /// [`text::words`] of `title`, the title of an evidence item whose quote this text is: kept
    /// for the first title asked for, read afresh for another.
    pub(super) fn title_words(&self, title: &str) -> Cow<'_, [Word]> {
        let (kept, words) = self.title.get_or_init(|| (title.into(), text::words(title)));
        if **kept == *title { Cow::Borrowed(words) } else { Cow::Owned(text::words(title)) }
    }

    /// The text of sentence `s`.
    pub(super) fn sentence_text(&self, s: &SentenceAnalysis) -> &str {
        &self.text[s.range.clone()]
    }

    /// True when sentence `s` addresses the verifier (see `align::is_instruction`).
    pub(super) fn is_instruction(&self, s: &SentenceAnalysis) -> bool {
        *s.facts().instruction.get_or_init(|| super::align::is_instruction_words(self.sentence_text(s), self.words(s)))
    }

    /// The words of sentence `s`: [`text::words`] of its text, from the stems read already.
    pub(super) fn words<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Word] {
        s.facts().words.get_or_init(|| {
            let sentence = self.sentence_text(s);
            // Its words end where the next sentence with words starts (an empty sentence
            // starts where the next one does, and holds none of them).
            // Sentences are in text order, so their first words ascend: a binary search.
            let after = self.sentences.partition_point(|x| x.first_word <= s.first_word);
            let next = self.sentences.get(after).map_or(self.words.len(), |x| x.first_word);
            let mut words = Vec::with_capacity(next - s.first_word);
            let mut lower = String::new();
            for (k, r) in text::word_ranges(sentence).enumerate() {
                let i = s.first_word + k;
                text::lower_into(&sentence[r.clone()], &mut lower);
                let stopword = self.words.get(i).is_some_and(|w| w.stopword);
                words.push(text::word_with_stem(sentence, r, &lower, self.stem(i), stopword));
            }
            words.into_boxed_slice()
        })
    }

    /// The dates of sentence `s`.
    pub(super) fn dates<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Date] {
        s.facts().dates.get_or_init(|| date::dates(self.sentence_text(s)))
    }

    /// The quantities of sentence `s`, outside its dates.
    pub(super) fn quantities<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Quantity] {
        s.facts().quantities.get_or_init(|| values_outside_dates(number::quantities(self.sentence_text(s), self.words(s)), self.dates(s)))
    }

    /// The negation and hedge cues of sentence `s`.
    pub(super) fn stance<'a>(&'a self, s: &'a SentenceAnalysis) -> (&'a [Cue], &'a [Cue]) {
        let (n, h) = s.facts().stance.get_or_init(|| cues::stance(self.sentence_text(s), self.words(s)));
        (n, h)
    }

    /// The scope cues of sentence `s`.
    pub(super) fn scopes<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Cue] {
        s.facts().scopes.get_or_init(|| cues::scopes(self.words(s)))
    }

    /// The hearsay cues of sentence `s`.
    pub(super) fn hearsay<'a>(&'a self, s: &'a SentenceAnalysis) -> &'a [Cue] {
        s.facts().hearsay.get_or_init(|| cues::hearsay(self.words(s)))
    }
}

/// Bits of a [`KeyIndex::Narrow`] entry below its key: positions up to 2^21 words. A key
/// ([`text::stem_key`]: a length up to 5 above up to five bytes) takes 43 bits.
const POSITION_BITS: u32 = 21;

/// The content words of a text by [`text::stem_key`], then position. A text shorter than
/// 2^21 bytes (every recalled chunk) packs both in 64 bits, which sort in half the time of
/// 128; a longer one keeps them apart.
#[derive(Debug)]
enum KeyIndex {
    /// `key << POSITION_BITS | position`.
    Narrow(Vec<u64>),
    /// `key << 64 | position`.
    Wide(Vec<u128>),
}

impl KeyIndex {
    fn for_text(text: &str) -> Self {
        let room = text.len() / 5 + 1;
        // A text has fewer words than bytes.
        if text.len() < 1 << POSITION_BITS { KeyIndex::Narrow(Vec::with_capacity(room)) } else { KeyIndex::Wide(Vec::with_capacity(room)) }
    }

    fn push(&mut self, key: u64, position: usize) {
        match self {
            KeyIndex::Narrow(v) => v.push(key << POSITION_BITS | position as u64),
            KeyIndex::Wide(v) => v.push(u128::from(key) << 64 | position as u128),
        }
    }

    /// The same entries, allocated to their number.
    fn exact(self) -> Self {
        match self {
            KeyIndex::Narrow(v) => KeyIndex::Narrow(v.as_slice().into()),
            KeyIndex::Wide(v) => KeyIndex::Wide(v.as_slice().into()),
        }
    }

    fn sort(&mut self) {
        match self {
            KeyIndex::Narrow(v) => v.sort_unstable(),
            KeyIndex::Wide(v) => v.sort_unstable(),
        }
    }

    /// The positions of the words with `key`, in text order, into `out` (cleared first).
    fn positions(&self, key: u64, out: &mut Vec<usize>) {
        out.clear();
        match self {
            KeyIndex::Narrow(v) => {
                let low = key << POSITION_BITS;
                let start = v.partition_point(|&e| e < low);
                let mask = (1u64 << POSITION_BITS) - 1;
                out.extend(v[start..].iter().take_while(|&&e| e >> POSITION_BITS == key).map(|&e| (e & mask) as usize));
            }
            KeyIndex::Wide(v) => {
                let low = u128::from(key) << 64;
                let start = v.partition_point(|&e| e < low);
                out.extend(
                    v[start..]
                        .iter()
                        .take_while(|&&e| e >> 64 == u128::from(key))
                        .filter_map(|&e| usize::try_from(e & u128::from(u64::MAX)).ok()),
                );
            }
        }
    }
}

/// Quantities that are not part of a date, and not bare years (the text layer's rule).
pub(crate) use amem_text::quantity::values_outside_dates;

#[cfg(test)]
mod tests {
    use super::*;

    /// The 64-bit packing and the 128-bit one give every key's positions alike, in text order.
    #[test]
    fn both_key_indexes_find_the_same_positions() {
        let text = "The launch moved to 3 May 2024. The launched rocket launches again; launch! Launching 12,000 rockets.";
        let words = text::words(text);
        let (mut narrow, mut wide) = (KeyIndex::Narrow(Vec::new()), KeyIndex::Wide(Vec::new()));
        for (i, w) in words.iter().enumerate().rev() {
            narrow.push(w.key, i);
            wide.push(w.key, i);
        }
        narrow.sort();
        wide.sort();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (i, w) in words.iter().enumerate() {
            narrow.positions(w.key, &mut a);
            wide.positions(w.key, &mut b);
            assert_eq!(a, b, "{:?}", w.stem);
            assert!(a.contains(&i) && a.windows(2).all(|p| p[0] < p[1]), "{a:?}");
        }
        assert!(matches!(KeyIndex::for_text(text), KeyIndex::Narrow(_)));
        assert!(matches!(KeyIndex::for_text(&"a ".repeat(1 << 20)), KeyIndex::Wide(_)));
    }
}
