//! Splitting a compound sentence into two claims, only when both halves
//! stand alone: each has its own subject and finite verb.
//!
//! "Her estimate is below $0.10, but her revenue estimate is above the
//! consensus" is two assessable claims; "It looks good, but has the
//! disadvantage that ..." is one (the second half has no subject), and so is
//! "I miss you, and look forward to hearing from you".
//!
//! Split points: `; ` and `, and|but|while|whereas|yet|so ` (a comma before
//! the conjunction: without it, "and" joins noun phrases far more often than
//! clauses). Spans are byte offsets into the sentence: the first half ends
//! before the comma or semicolon, the second starts at its subject (after
//! the conjunction).

use amem_text::stopwords::WordList;
use std::borrow::Cow;

/// Conjunctions that may join two independent clauses after a comma.
static CONJUNCTIONS: WordList = WordList::new(amem_text::claim_words::CLAUSE_CONJUNCTIONS);

/// Words that open a subordinate clause.
static SUBORDINATORS: WordList = WordList::new(amem_text::claim_words::CLAUSE_SUBORDINATORS);

/// Subject pronouns.
static PRONOUNS: WordList = WordList::new(amem_text::claim_words::CLAUSE_PRONOUNS);

/// Determiners that open a noun-phrase subject.
static DETERMINERS: WordList = WordList::new(amem_text::claim_words::CLAUSE_DETERMINERS);

/// Half-open byte ranges of the clauses of `sentence` (one range when it
/// does not split).
pub fn split_compound(sentence: &str) -> Vec<(usize, usize)> {
    let mut cuts: Vec<(usize, usize)> = Vec::new(); // (end of first half, start of second)
    let bytes = sentence.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b';' && bytes.get(i + 1) == Some(&b' ') {
            let start = skip_spaces(sentence, i + 1);
            cuts.push((i, start));
        } else if b == b',' && bytes.get(i + 1) == Some(&b' ') {
            let after = skip_spaces(sentence, i + 1);
            let word_end = sentence[after..].find(|c: char| !c.is_alphabetic()).map(|e| after + e).unwrap_or(sentence.len());
            // ASCII case folding gives the same answer as `to_lowercase`
            // here without a copy: no non-ASCII letter lower-cases into
            // the letters of these conjunctions (only the Kelvin sign maps
            // to ASCII, to "k").
            let word = &sentence[after..word_end];
            if CONJUNCTIONS.iter().any(|c| c.eq_ignore_ascii_case(word)) && word_end < sentence.len() {
                cuts.push((i, skip_spaces(sentence, word_end)));
            }
        }
        i += 1;
    }
    // Keep only cuts where both sides stand alone; test cuts left to right
    // against the current remainder.
    let mut out = Vec::new();
    let mut seg_start = 0;
    for (end_first, start_second) in cuts {
        if end_first <= seg_start || start_second >= sentence.len() {
            continue;
        }
        let first = &sentence[seg_start..end_first];
        let second = &sentence[start_second..];
        // The second half up to the next cut is what must stand alone; the
        // whole remainder is a fair proxy (a later cut is tested next).
        if stands_alone(first) && stands_alone(second) {
            out.push((seg_start, end_first));
            seg_start = start_second;
        }
    }
    out.push((seg_start, sentence.len()));
    out
}

fn skip_spaces(s: &str, mut i: usize) -> usize {
    while i < s.len() && s.as_bytes()[i] == b' ' {
        i += 1;
    }
    i
}

/// A clause with its own subject and a finite verb: it starts with a
/// pronoun, a determiner, a capitalised name or a number, has at least three
/// words, and holds an auxiliary/modal/copula or a past `-ed` form after
/// the subject.
fn stands_alone(clause: &str) -> bool {
    // Borrowed words (a copy only to straighten a curly apostrophe or to
    // lower-case a capital): this runs on every half of every candidate
    // cut, and a `String` per word was most of its cost.
    let words: Vec<Cow<'_, str>> = clause
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')))
        .filter(|w| !w.is_empty())
        .map(|w| if w.contains('’') { Cow::Owned(w.replace('’', "'")) } else { Cow::Borrowed(w) })
        .collect();
    if words.len() < 3 {
        return false;
    }
    // Skip a leading discourse word ("however, it is").
    let first_idx = usize::from(matches!(lower(&words[0]).as_ref(), "however" | "also" | "then" | "still" | "now" | "meanwhile"));
    let Some(first) = words.get(first_idx) else { return false };
    let fl = lower(first);
    let fl = fl.as_ref();
    // A subordinate clause ("Since the deadline is tomorrow, and I have yet
    // to receive it, ...": lewis-a/_sent_mail/22.) does not stand alone.
    if SUBORDINATORS.contains(&fl) {
        return false;
    }
    let subject_like = PRONOUNS.contains(&fl)
        || DETERMINERS.contains(&fl)
        || first.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        || fl.ends_with("'s") && PRONOUNS.iter().any(|p| fl.starts_with(p))
        // a bare noun subject followed directly by its verb: "power fell 2%"
        || words.get(first_idx + 1).is_some_and(|v| {
            let vl = lower(v);
            crate::classify::FINITE.contains(&vl.as_ref()) || crate::classify::is_past_or_present_verb(&vl)
        });
    if !subject_like {
        return false;
    }
    // Contractions carry the verb: "it's", "they're", "we've".
    if ["'s", "'re", "'ve", "'ll", "'m", "'d"].iter().any(|c| fl.ends_with(c)) && PRONOUNS.iter().any(|p| fl.starts_with(p)) {
        return true;
    }
    words.iter().skip(first_idx + 1).any(|w| {
        let l = lower(w);
        crate::classify::FINITE.contains(&l.as_ref()) || (l.len() > 4 && l.ends_with("ed") && l.chars().all(char::is_alphabetic))
    }) || crate::classify::text_has_finite_verb(clause)
        || (PRONOUNS.contains(&fl) && words.get(first_idx + 1).is_some_and(|w| w.chars().next().is_some_and(char::is_lowercase)))
}

/// `w` lower-cased, borrowed when that changes nothing (ASCII without
/// capitals: `to_lowercase` is the identity there).
fn lower(w: &str) -> Cow<'_, str> {
    if w.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) { Cow::Borrowed(w) } else { Cow::Owned(w.to_lowercase()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> Vec<&str> {
        split_compound(s).into_iter().map(|(a, b)| &s[a..b]).collect()
    }

    #[test]
    fn two_independent_clauses_split() {
        assert_eq!(
            parts("Her estimate is below $0.10 per share, but her revenue estimate is above the consensus."),
            ["Her estimate is below $0.10 per share", "her revenue estimate is above the consensus."]
        );
        assert_eq!(parts("Gas rose 5%; power fell 2%."), ["Gas rose 5%", "power fell 2%."]);
    }

    #[test]
    fn half_without_subject_stays() {
        assert_eq!(
            parts("It looks pretty good, but has the disadvantage that colors shift."),
            ["It looks pretty good, but has the disadvantage that colors shift."]
        );
        assert_eq!(parts("I miss you, and look forward to hearing from you."), ["I miss you, and look forward to hearing from you."]);
    }

    #[test]
    fn subordinate_clause_does_not_stand_alone() {
        let s = "Since the deadline for this application is tomorrow, and I have yet to receive this e-mail, I would appreciate a call.";
        assert_eq!(parts(s), [s]);
    }

    #[test]
    fn noun_lists_stay() {
        assert_eq!(parts("We sell gas, power, and coal."), ["We sell gas, power, and coal."]);
    }

    #[test]
    fn spans_are_exact_with_multibyte_text() {
        let s = "Der Preis ist gestiegen; the café was closed.";
        for (a, b) in split_compound(s) {
            assert!(s.is_char_boundary(a) && s.is_char_boundary(b));
        }
    }
}
