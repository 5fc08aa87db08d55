//! Stance cues the verifier reads in an aligned sentence: negation (polarity),
//! hedges (the source is less certain than the claim), narrower scope (the
//! source speaks of a subset: "in mice", "in some patients"), and antonym
//! pairs that flip a shared proposition ("increased" / "decreased").
//!
//! The lists are short on purpose: each entry is a word whose presence in an
//! aligned source sentence changes what the claim may take from it. Negation
//! and hedge entries follow the cue annotations of BioScope and SFU Review
//! (../shared/eval/bioscope, ../shared/eval/sfu_review), restricted to the
//! unambiguous single-word and fixed multi-word cues.

use super::text::Word;
use std::ops::Range;

/// A cue found in a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cue {
    /// Byte range in the sentence text.
    pub range: Range<usize>,
    /// The lexicon entry that fired.
    pub entry: &'static str,
    /// Word index (into the sentence's words) of the last cue word: a negation scopes over what follows.
    pub word: usize,
}

/// Negation cues (BioScope / SFU negation annotations: the closed-class cues).
const NEGATION: &[&str] = &[
    "not",
    "no",
    "never",
    "none",
    "nobody",
    "nothing",
    "neither",
    "nor",
    "without",
    "cannot",
    "lack",
    "lacks",
    "lacking",
    "lacked",
    "absence",
    "absent",
    "fail",
    "fails",
    "failed",
    "unable",
    "nowhere",
    "denied",
    "denies",
    "deny",
    "refute",
    "refuted",
    "refutes",
    "myth",
    "hoax",
    "unproven",
    "unfounded",
    "debunked",
];

/// Hedge cues (BioScope / SFU speculation annotations: modal and epistemic cues).
const HEDGE: &[&str] = &[
    "may",
    "might",
    "could",
    "possibly",
    "possible",
    "perhaps",
    "probably",
    "probable",
    "likely",
    "unlikely",
    "suggest",
    "suggests",
    "suggested",
    "suggesting",
    "suggestive",
    "appear",
    "appears",
    "appeared",
    "seem",
    "seems",
    "seemed",
    "potentially",
    "potential",
    "putative",
    "presumably",
    "hypothesis",
    "hypothesize",
    "hypothesized",
    "speculate",
    "indicate",
    "indicates",
    "preliminary",
    "unclear",
    "uncertain",
    "whether",
    "believed",
    "thought",
    "expected",
    "predicted",
    "predict",
    "predicts",
    "projected",
];

/// Two-word scope cues: the source states the finding for a narrower population or setting.
const SCOPE: &[(&str, &str)] = &[
    ("in", "mice"),
    ("in", "rats"),
    ("in", "animals"),
    ("in", "animal"),
    ("in", "vitro"),
    ("in", "hamsters"),
    ("in", "macaques"),
    ("in", "ferrets"),
    ("in", "monkeys"),
    ("in", "some"),
    ("in", "certain"),
    ("in", "selected"),
    ("a", "subset"),
    ("a", "few"),
    ("small", "sample"),
    ("pilot", "study"),
    ("case", "report"),
    ("in", "children"),
    ("in", "adults"),
    ("in", "men"),
    ("in", "women"),
    ("some", "patients"),
    ("some", "people"),
    ("some", "cases"),
    ("some", "studies"),
];

/// Antonym pairs: a source sentence that shares the proposition but carries the
/// other member asserts the opposite. Counter-claims in COVID-Fact and FEVER are
/// often built by exactly this swap.
const ANTONYMS: &[(&str, &str)] = &[
    ("increase", "decrease"),
    ("increase", "reduce"),
    ("increas", "decreas"),
    ("increas", "reduc"),
    ("higher", "lower"),
    ("more", "less"),
    ("more", "fewer"),
    ("rise", "fall"),
    ("rise", "drop"),
    ("gain", "loss"),
    ("high", "low"),
    ("larger", "smaller"),
    ("large", "small"),
    ("strong", "weak"),
    ("stronger", "weaker"),
    ("effective", "ineffective"),
    ("safe", "unsafe"),
    ("safe", "dangerous"),
    ("accept", "reject"),
    ("approv", "reject"),
    ("win", "lose"),
    ("won", "lost"),
    ("alive", "dead"),
    ("born", "died"),
    ("before", "after"),
    ("first", "last"),
    ("male", "female"),
    ("positive", "negative"),
    ("present", "absent"),
    ("major", "minor"),
    ("worse", "better"),
    ("best", "worst"),
    ("early", "late"),
    ("earlier", "later"),
    ("old", "young"),
    ("older", "younger"),
    ("north", "south"),
    ("east", "west"),
    ("maximum", "minimum"),
    ("enhanc", "inhibit"),
    ("activat", "inhibit"),
    ("promot", "suppress"),
    ("protect", "harm"),
    ("benefit", "harm"),
    ("success", "failure"),
    ("start", "end"),
    ("begin", "end"),
    ("open", "close"),
    ("common", "rare"),
    ("fast", "slow"),
    ("faster", "slower"),
    ("rich", "poor"),
    ("always", "never"),
    ("all", "none"),
    ("can", "cannot"),
];

/// Negation cues in `words` (the words of `text`), with "n't" read as a cue.
pub(crate) fn negations(text: &str, words: &[Word]) -> Vec<Cue> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if let Some(entry) = NEGATION.iter().find(|e| **e == w.lower) {
            // "no longer", "not only", "no doubt" do not deny what follows.
            let next = words.get(i + 1).map(|n| n.lower.as_str()).unwrap_or("");
            if matches!((w.lower.as_str(), next), ("not", "only") | ("no", "doubt") | ("not", "just")) {
                continue;
            }
            out.push(Cue { range: w.range.clone(), entry, word: i });
        } else if w.lower == "t" && i > 0 {
            // "isn't", "doesn't", "can't", "won't" (the tokeniser splits at the apostrophe).
            let prev = &words[i - 1];
            let between = text.get(prev.range.end..w.range.start).unwrap_or("");
            if prev.lower.ends_with('n') && matches!(between, "'" | "’") {
                out.push(Cue { range: prev.range.end.saturating_sub(1)..w.range.end, entry: "n't", word: i });
            }
        }
    }
    out
}

/// Hedge cues in `words`.
pub(crate) fn hedges(words: &[Word]) -> Vec<Cue> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if let Some(entry) = HEDGE.iter().find(|e| **e == w.lower) {
            // "May" the month is capitalised mid-sentence; the modal is not.
            if w.lower == "may" && w.capitalised && i > 0 {
                continue;
            }
            out.push(Cue { range: w.range.clone(), entry, word: i });
        }
    }
    out
}

/// Scope cues in `words`.
pub(crate) fn scopes(words: &[Word]) -> Vec<Cue> {
    let mut out = Vec::new();
    for (i, pair) in words.windows(2).enumerate() {
        if let Some((a, _)) = SCOPE.iter().find(|(a, b)| *a == pair[0].lower && *b == pair[1].lower) {
            out.push(Cue { range: pair[0].range.start..pair[1].range.end, entry: a, word: i + 1 });
        }
    }
    out
}

/// The antonym of a word stem or lower-case form, if it has one.
pub(crate) fn antonyms_of(stem: &str, lower: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (a, b) in ANTONYMS {
        for key in [stem, lower] {
            if key == *a {
                out.push(*b);
            } else if key == *b {
                out.push(*a);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::super::text::words;
    use super::*;

    #[test]
    fn finds_contracted_negation() {
        let t = "It doesn't work and is not safe";
        let w = words(t);
        let n = negations(t, &w);
        assert_eq!(n.len(), 2);
        assert_eq!(&t[n[0].range.clone()], "n't");
        assert_eq!(n[1].entry, "not");
    }

    #[test]
    fn may_the_month_is_not_a_hedge() {
        let w = words("It launched in May 2024");
        assert!(hedges(&w).is_empty());
        let w = words("It may launch");
        assert_eq!(hedges(&w).len(), 1);
    }

    #[test]
    fn scope_and_antonyms() {
        let w = words("The drug worked in mice");
        assert_eq!(scopes(&w).len(), 1);
        assert_eq!(antonyms_of("increas", "increased"), vec!["decreas", "reduc"]);
    }
}
