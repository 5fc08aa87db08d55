//! Scope: whether a claim and an evidence sentence speak of the same time.
//!
//! Two texts can share every word of a proposition and still state two facts:
//! "Prices pushed to a fresh two-month low just Tuesday" and "... a fresh
//! nine-month low just Tuesday" are two reports, two weeks apart. A time
//! written relative to when the text was written ("today", "Tuesday", "this
//! week", "last year") names the same time in both only when both were
//! written on the same day; when either side's writing date is unknown, or
//! the dates differ, the two cannot be shown to share a scope and a
//! difference between them is no contradiction (V0M3: "If scopes differed,
//! the result was unresolved").

use super::number::{Quantity, Unit};
use super::text::Word;
use std::ops::Range;

/// Units of time a span of time is counted in.
// The claim extractor's list of time units (singular and plural): a unit is compared with its
// trailing "s" cut, so only the singulars can match.
static TIME_UNITS: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::claim_words::TIME_UNITS);

/// True when `q` in `text` is a window of time the proposition holds over ("over the past 30 years",
/// "within the last 50 years", "in the next 10 years"): the scope of the statement, not its value, so
/// two texts giving two windows state two facts.
pub(crate) fn time_window(text: &str, q: &Quantity) -> bool {
    let unit = match &q.unit {
        Unit::Measure(m) => Some(m.as_str()),
        _ => q.anchor.as_deref(),
    };
    let is_time = unit.is_some_and(|u| TIME_UNITS.contains(&u.trim_end_matches('s')) || u == "centuri");
    let before = text.get(..q.range.start).unwrap_or("").to_lowercase();
    let last: Vec<&str> = before.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).rev().take(3).collect();
    is_time && last.iter().any(|w| matches!(*w, "past" | "last" | "next" | "recent" | "within" | "over" | "coming" | "first"))
}

/// Words that name a time relative to the moment of writing.
static RELATIVE: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::RELATIVE);

/// Periods that "this", "next" or "last" make relative ("this week", "last year").
static PERIODS: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::PERIODS);

/// The first time expression of `words` relative to the moment of writing, as a byte range
/// of the text the words were read from.
pub(crate) fn relative_time(words: &[Word]) -> Option<Range<usize>> {
    for (i, w) in words.iter().enumerate() {
        if RELATIVE.contains(&w.lower.as_str()) {
            return Some(w.range.clone());
        }
        if matches!(w.lower.as_str(), "this" | "next" | "last" | "past" | "coming")
            && let Some(n) = words.get(i + 1)
            && PERIODS.contains(&n.lower.as_str())
        {
            return Some(w.range.start..n.range.end);
        }
    }
    None
}

/// Why a claim and a sentence do not share a time scope, if they do not: each side's
/// relative time (byte range in its own text) and writing day (`YYYY-MM-DD`, when known).
pub(crate) fn time_difference(
    claim: Option<&Range<usize>>,
    claim_day: Option<&str>,
    sentence: Option<&Range<usize>>,
    sentence_day: Option<&str>,
) -> Option<TimeScope> {
    if claim.is_none() && sentence.is_none() {
        return None;
    }
    match (claim_day, sentence_day) {
        (Some(a), Some(b)) if a == b => None,
        (Some(_), Some(_)) => Some(TimeScope::Differs),
        _ => Some(TimeScope::Unanchored),
    }
}

/// How two time scopes fail to be shown the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeScope {
    /// A relative time on either side, and a side whose writing day is unknown.
    Unanchored,
    /// Both written on known days, and the days differ.
    Differs,
}

#[cfg(test)]
mod tests {
    use super::super::text::words;
    use super::*;

    #[test]
    fn reads_relative_times() {
        let t = "Prices pushed to a fresh two-month low just Tuesday.";
        assert_eq!(relative_time(&words(t)).map(|r| &t[r]), Some("Tuesday"));
        let t = "He is expected to play in this week's game.";
        assert_eq!(relative_time(&words(t)).map(|r| &t[r]), Some("this week"));
        assert_eq!(relative_time(&words("The office opened in May 2019.")), None);
    }

    #[test]
    fn a_relative_time_needs_the_same_writing_day() {
        let r = 0..7;
        assert_eq!(time_difference(Some(&r), None, None, None), Some(TimeScope::Unanchored));
        assert_eq!(time_difference(Some(&r), Some("2001-05-01"), Some(&r), Some("2001-05-15")), Some(TimeScope::Differs));
        assert_eq!(time_difference(Some(&r), Some("2001-05-01"), Some(&r), Some("2001-05-01")), None);
        assert_eq!(time_difference(None, None, None, None), None);
    }
}
