//! Relevance: whether an evidence sentence speaks of the claim's own subject,
//! and how much of the claim it covers, weighted by how rare each word is.
//!
//! A shared word is evidence of a shared topic only in proportion to how
//! rarely the collection uses it: "office" or "day" are in half the notes of a
//! work wiki, "polonium" in one. [`Rarity`] holds document frequencies (the
//! recall index has them; the eval uses each set's own evidence texts) and
//! turns a word into an inverse-document-frequency weight; without a table
//! every word weighs the same.
//!
//! A claim's subject is what a sentence must speak of before anything else
//! is compared: its names when it has any, otherwise its opening noun phrase
//! (the first run of content words). A claim that opens with a pronoun or a
//! demonstrative ("He is not expected to play", "These sessions start at
//! 3:30") has a subject only its own conversation can resolve: it can be
//! stated by evidence but never shares a proposition a conflict could rest on.
//! A claim with fewer than two content words and no value ("You're right.",
//! "Will be all day") has nothing a note could check.

use super::text::FastHash;
use super::text::{self, Word};
use std::collections::HashMap;

/// Document frequencies of stems in a collection.
///
/// ```
/// use amem_verify::Rarity;
///
/// let notes = ["The office opened in May.", "The office moved.", "Curie discovered polonium."];
/// let rarity = Rarity::from_texts(notes.iter().copied());
/// assert!(rarity.weight("polonium") > rarity.weight("office"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Rarity {
    documents: u64,
    frequencies: HashMap<String, u64, FastHash>,
}

impl Rarity {
    /// Document frequencies counted over `texts`, one document each, with the verifier's
    /// own stems (a word counts once per document).
    pub fn from_texts<'a>(texts: impl IntoIterator<Item = &'a str>) -> Rarity {
        let mut r = Rarity::default();
        for t in texts {
            r.documents += 1;
            let mut stems: Vec<String> = text::words(t).into_iter().filter(|w| !w.stop).map(|w| w.stem.into_string()).collect();
            stems.sort_unstable();
            stems.dedup();
            for s in stems {
                *r.frequencies.entry(s).or_insert(0) += 1;
            }
        }
        r
    }

    /// Document frequencies given by a caller (an index that has them): `documents` in the
    /// collection and, per word, how many hold it. Words are stemmed as the verifier stems.
    pub fn from_counts(documents: u64, counts: impl IntoIterator<Item = (String, u64)>) -> Rarity {
        let mut r = Rarity { documents, frequencies: HashMap::default() };
        for (w, n) in counts {
            let stem = text::stem(&w.to_lowercase());
            let e = r.frequencies.entry(stem).or_insert(0);
            *e = (*e).max(n);
        }
        r
    }

    /// Documents counted.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// The weight of a word (given as a stem or a lower-cased word): its inverse document
    /// frequency, `ln((N + 1) / (df + 0.5))`, at least 0.05; 1 for every word when the table
    /// is empty. A word the collection never uses weighs the most.
    pub fn weight(&self, word: &str) -> f64 {
        if self.documents == 0 {
            return 1.0;
        }
        let df = self.frequencies.get(word).or_else(|| self.frequencies.get(&text::stem(word))).copied().unwrap_or(0);
        (((self.documents + 1) as f64) / (df as f64 + 0.5)).ln().max(0.05)
    }

    /// The weight of a value (a number or a date): as rare as a word the collection never uses.
    pub(crate) fn value_weight(&self) -> f64 {
        if self.documents == 0 { 1.0 } else { self.weight("\u{0}") }
    }
}

/// Words that open a claim whose subject only its conversation can resolve.
static DEICTIC: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::DEICTIC);

/// What a claim is about.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Subject {
    /// Positions in the claim's `content` list of the words that name its subject.
    Words(Vec<usize>),
    /// The claim opens with a pronoun or a demonstrative: the byte range of that word.
    Deictic(std::ops::Range<usize>),
}

/// The claim's subject: the first run of content words (its opening noun phrase; a sentence
/// speaks of the subject when it holds one of the claim's names or half of that run), unless
/// the claim opens (past its stance words) with a pronoun or a demonstrative and has no name.
/// `content[k]` is a word index; `stance[k]` marks stance words.
pub(crate) fn subject(words: &[Word], content: &[usize], stance: &[bool], names: &[usize]) -> Subject {
    let named: Vec<usize> = content.iter().enumerate().filter(|(k, ci)| !stance[*k] && names.contains(ci)).map(|(k, _)| k).collect();
    let stance_word = |i: usize| content.iter().position(|&c| c == i).is_some_and(|k| stance[k]);
    // The first word past the claim's stance words ("I think", "According to Maria,").
    let first =
        (0..words.len()).find(|&i| !stance_word(i) && !matches!(words[i].lower.as_str(), "so" | "and" | "but" | "well" | "yes" | "oh"));
    // A personal pronoun is the subject whatever names follow ("We didn't have global warming
    // during the Industrial Revolution", "It is also popular in Iraq"): they are its objects. A
    // demonstrative or a possessive may open a claim about a name ("This is where Marie Curie
    // worked", "Her album Prism").
    // Not the speaker's stance ("I think the Berlin office ...") nor the start of a name ("You
    // Belong with Me").
    let personal = |f: usize| {
        matches!(words[f].lower.as_str(), "he" | "she" | "it" | "they" | "we" | "i" | "you")
            && !words.get(f + 1).is_some_and(|n| n.capitalised || stance_word(f + 1))
    };
    if let Some(f) = first
        && DEICTIC.contains(&words[f].lower.as_str())
        && (named.is_empty() || personal(f))
    {
        return Subject::Deictic(words[f].range.clone());
    }
    let mut run = Vec::new();
    for (k, &ci) in content.iter().enumerate() {
        if stance[k] {
            continue;
        }
        if let Some(&last) = run.last().map(|&k: &usize| &content[k])
            && words[last + 1..ci].iter().any(|w| w.stop)
        {
            break;
        }
        run.push(k);
    }
    Subject::Words(run)
}

/// True when the claim has something a note could check: two content words (past its stance
/// words), or one and a number or a date.
pub(crate) fn checkable(content_words: usize, values: usize) -> bool {
    content_words >= 2 || (content_words == 1 && values > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_words_weigh_more() {
        let r = Rarity::from_texts(["the office is open", "our office moved", "the office party", "polonium was found"]);
        assert!(r.weight("polonium") > 2.0 * r.weight("office"), "{} {}", r.weight("polonium"), r.weight("office"));
        assert!(r.weight("unseen") >= r.weight("polonium"));
        assert_eq!(Rarity::default().weight("anything"), 1.0);
        let c = Rarity::from_counts(10, [("Offices".to_string(), 9)]);
        assert!(c.weight("office") < c.weight("polonium"));
    }

    fn subject_of(claim: &str) -> Subject {
        let words = text::words(claim);
        let content: Vec<usize> = words.iter().enumerate().filter(|(_, w)| !w.stop).map(|(i, _)| i).collect();
        let names: Vec<usize> = content.iter().copied().filter(|&i| i > 0 && words[i].capitalised).collect();
        subject(&words, &content, &vec![false; content.len()], &names)
    }

    #[test]
    fn pronoun_and_demonstrative_subjects_are_deictic() {
        for c in [
            "He is not expected to play this week.",
            "These sessions will start at 3:30 p.m.",
            "It is the site of the creation.",
            "We closed the deal.",
        ] {
            assert!(matches!(subject_of(c), Subject::Deictic(_)), "{c}");
        }
        assert_eq!(subject_of("The vaccine causes infertility."), Subject::Words(vec![0, 1, 2]));
        assert_eq!(subject_of("The launch budget was cut in May."), Subject::Words(vec![0, 1]));
        // A name is the subject even after a demonstrative opening word, not after a personal pronoun.
        assert!(matches!(subject_of("This is where Marie Curie worked."), Subject::Words(_)));
        assert!(matches!(subject_of("We didn't have global warming during the Industrial Revolution."), Subject::Deictic(_)));
        assert!(matches!(subject_of("It is also popular in Iraq, Libya and Nepal."), Subject::Deictic(_)));
        assert_eq!(subject_of("Telemundo is an English-language network."), Subject::Words(vec![0]));
    }

    #[test]
    fn one_word_claims_are_not_checkable() {
        assert!(!checkable(1, 0));
        assert!(!checkable(0, 1));
        assert!(checkable(1, 1));
        assert!(checkable(2, 0));
    }
}
