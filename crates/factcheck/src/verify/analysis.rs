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
}

/// One sentence of an evidence text. Past its stems, each fact is read on first use: a claim
/// without numbers never needs the sentence's quantities, and only sentences aligned with a
/// claim are searched for negations, hedges, scope and hearsay.
#[derive(Debug)]
pub(crate) struct SentenceAnalysis {
    /// Byte range in the evidence text.
    pub range: Range<usize>,
    /// The stem of each word, in order (the order of [`text::words`]).
    stems: Vec<Stem>,
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

/// A word's stem, as a key and a range of [`EvidenceAnalysis::stems`].
#[derive(Debug)]
struct Stem {
    key: u64,
    range: Range<u32>,
}

impl EvidenceAnalysis {
    /// Split `text` into sentences and read the stems of their words.
    pub(super) fn new(text: &str) -> Self {
        let mut all = String::new();
        let (mut lower, mut stem) = (String::new(), String::new());
        let sentences = text::sentences(text)
            .into_iter()
            .map(|range| {
                let sentence = &text[range.clone()];
                let mut stems = Vec::new();
                let mut opens_with_pronoun = false;
                for w in text::word_ranges(sentence) {
                    text::lower_into(&sentence[w], &mut lower);
                    if stems.is_empty() {
                        opens_with_pronoun = SUBJECT_PRONOUNS.contains(&lower.as_str());
                    }
                    text::stem_into(&lower, &mut stem);
                    let at = all.len();
                    all.push_str(&stem);
                    // Offsets past 4 GiB do not fit: such a word gets a key no claim word has.
                    let (Ok(a), Ok(b)) = (u32::try_from(at), u32::try_from(all.len())) else {
                        stems.push(Stem { key: u64::MAX, range: 0..0 });
                        continue;
                    };
                    stems.push(Stem { key: text::stem_key(&stem), range: a..b });
                }
                SentenceAnalysis {
                    range,
                    stems,
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
        EvidenceAnalysis { text: text.into(), sentences, stems: all }
    }

    fn stem<'a>(&'a self, w: &Stem) -> &'a str {
        self.stems.get(w.range.start as usize..w.range.end as usize).unwrap_or("")
    }

    /// Index of the first word of sentence `s` whose stem matches `stem` (whose
    /// [`text::stem_key`] is `key`) by [`text::stems_match`].
    pub(super) fn first_match(&self, s: &SentenceAnalysis, key: u64, stem: &str) -> Option<usize> {
        s.stems.iter().position(|w| w.key == key && text::stems_match(stem, self.stem(w)))
    }

    /// True when a word of sentence `s` matches one of `stems` (each with its key).
    pub(super) fn shares_a_stem(&self, s: &SentenceAnalysis, stems: &[(u64, &str)]) -> bool {
        s.stems.iter().any(|w| stems.iter().any(|&(key, stem)| key == w.key && text::stems_match(stem, self.stem(w))))
    }

    /// The text of sentence `s`.
    pub(super) fn sentence_text(&self, s: &SentenceAnalysis) -> &str {
        &self.text[s.range.clone()]
    }

    /// True when sentence `s` addresses the verifier (see `align::is_instruction`).
    pub(super) fn is_instruction(&self, s: &SentenceAnalysis) -> bool {
        *s.instruction.get_or_init(|| super::align::is_instruction(self.sentence_text(s)))
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

/// Quantities that are not part of a date, and not bare years (dates handle those).
pub(crate) fn values_outside_dates(q: Vec<Quantity>, dates: &[Date]) -> Vec<Quantity> {
    q.into_iter().filter(|q| !q.is_year && !dates.iter().any(|d| d.range.start < q.range.end && q.range.start < d.range.end)).collect()
}
