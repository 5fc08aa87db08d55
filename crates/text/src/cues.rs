//! Stance cue detection: [`detect_cues`] finds every hedge, attribution,
//! negation, condition and temporal cue of a text in one automaton pass,
//! plus the number scanner's years and dates (rule `temporal:year`,
//! `temporal:date`).
//!
//! The claim extractor reuses this function, so the word lists live only in
//! this crate (`lexicons/*.txt`).

use crate::lexicon::{Hit, Kind, Lexicon};
use crate::numbers::{Number, scan_numbers};
use amem_records::{Cue, CueClass, Span};

/// Every stance cue in `text`, sorted by position, byte spans relative to
/// `text`, `rule` naming the lexicon entry (`<file>:<first form>`) or the
/// scanner rule (`temporal:year`, `temporal:date`).
///
/// ```
/// use amem_records::CueClass;
/// let cues = amem_text::cues::detect_cues("Reuters said it may not close if it rains.");
/// let classes: Vec<CueClass> = cues.iter().map(|c| c.class).collect();
/// assert_eq!(classes, [CueClass::Attribution, CueClass::Hedge, CueClass::Negation, CueClass::Condition]);
/// assert_eq!(cues[0].rule, "attribution:say");
/// assert_eq!(&"Reuters said it may not close if it rains."[cues[0].span.start..cues[0].span.end], "said");
/// ```
pub fn detect_cues(text: &str) -> Vec<Cue> {
    // Not remembered here: the extractor remembers each clause's reading (its kind and these
    // cues) by text, and nothing else in an audit reads a claim's cues again.
    let lex = Lexicon::get();
    let hits = lex.scan(text);
    let numbers = scan_numbers(lex, text);
    cues_from(lex, text, &hits, &numbers)
        .into_iter()
        .map(|c| Cue { class: c.class, text: c.text.to_string(), span: c.span, rule: c.rule.to_string() })
        .collect()
}

/// A cue borrowed from its text and the lexicon (the gate's internal form:
/// no allocation per cue; [`detect_cues`] turns it into a [`Cue`]).
#[derive(Clone, Copy, Debug)]
pub struct CueAt<'a> {
    /// The cue's class.
    pub class: CueClass,
    /// The cue as written.
    pub text: &'a str,
    /// Its byte span in the text.
    pub span: Span,
    /// The lexicon rule that matched (`<file>:<first form>`).
    pub rule: &'static str,
}

impl crate::words::MarkedSpan for CueAt<'_> {
    fn span(&self) -> Span {
        self.span
    }
    fn is_temporal(&self) -> bool {
        self.class == CueClass::Temporal
    }
}

/// Cues from an existing scan (the gate scans once and reuses the hits).
pub fn cues_from<'a>(lex: &'static Lexicon, text: &'a str, hits: &[Hit], numbers: &[Number]) -> Vec<CueAt<'a>> {
    let mut out: Vec<CueAt<'a>> = Vec::with_capacity(hits.len() + numbers.len());
    for h in hits {
        let e = &lex.entries[h.entry];
        let Kind::Cue(class) = e.kind else { continue };
        if class == CueClass::Condition && e.rule == "condition:if" && if_means_whether(lex, text, h.start) {
            continue;
        }
        if class == CueClass::Attribution && attribution_is_unrealised(text, h.start) {
            continue;
        }
        if class == CueClass::Hedge && hedge_is_false_friend(e.rule.as_str(), text, h.start, h.end) {
            continue;
        }
        let (class, rule) = if class == CueClass::Hedge && e.rule == "hedge:may" && may_is_month(text, h.start, h.end) {
            (CueClass::Temporal, "temporal:month")
        } else {
            (class, e.rule.as_str())
        };
        out.push(CueAt { class, text: &text[h.start..h.end], span: Span::new(h.start, h.end), rule });
    }
    for n in numbers.iter().filter(|n| n.is_date) {
        let span = Span::new(n.start, n.end);
        if out.iter().any(|c| c.span.overlaps(&span)) {
            continue;
        }
        let rule = if n.end - n.start == 4 { "temporal:year" } else { "temporal:date" };
        out.push(CueAt { class: CueClass::Temporal, text: &text[n.start..n.end], span, rule });
    }
    // "May 3", "March 2026": the month names left out of the word list
    // (modal "may", verb "march") count when a date number follows.
    for n in numbers.iter().filter(|n| n.is_date) {
        let before = text[..n.start].trim_end_matches([' ', ',']);
        for m in ["may", "march"] {
            if before.len() >= m.len() && before.is_char_boundary(before.len() - m.len()) {
                let s = before.len() - m.len();
                let w = &before[s..];
                if w.eq_ignore_ascii_case(m) && !crate::lexicon::is_word_char_before(text, s) {
                    let span = Span::new(s, before.len());
                    // the month replaces a hedge reading of "May"
                    out.retain(|c| !c.span.overlaps(&span));
                    out.push(CueAt { class: CueClass::Temporal, text: w, span, rule: "temporal:month" });
                }
            }
        }
    }
    // Speech reported inside a quotation ("“I said no,” Bob told us") is
    // nested in the quoted speaker's words: the attribution that matters is
    // the one outside the quote. PolNeAR dev: 677 attribution matches inside
    // a closed quotation, 2% of them annotated, against 83% outside.
    if out.iter().any(|c| c.class == CueClass::Attribution) {
        let quotes = quoted_spans(text);
        if !quotes.is_empty() {
            out.retain(|c| c.class != CueClass::Attribution || !quotes.iter().any(|&(s, e)| s <= c.span.start && c.span.end <= e));
        }
    }
    out.sort_by(|a, b| a.span.cmp(&b.span).then(a.class.cmp(&b.class)));
    out
}

/// Words after which a speech verb reports no actual utterance: the
/// infinitive ("wrong to say", "refused to comment") and the modals ("would
/// say", "could tell"). PolNeAR dev: 180 attribution matches after these
/// words (outside quotations), 44% annotated, against 83% elsewhere.
static UNREALISED: crate::stopwords::WordList = crate::stopwords::WordList::new(crate::text_words::UNREALISED);

/// True when the word before `start` makes the speech verb at `start`
/// unrealised (see [`UNREALISED`]).
fn attribution_is_unrealised(text: &str, start: usize) -> bool {
    is_one_of(word_before(text, start), &UNREALISED)
}

/// The word (letters and digits) ending right before `start`, whitespace skipped; empty at
/// the start of the text or after punctuation.
fn word_before(text: &str, start: usize) -> &str {
    crate::words::word_before(text, start, char::is_alphanumeric, crate::words::Gap::Whitespace)
}

/// The word (letters and digits) starting right after `end`, whitespace skipped.
fn word_after(text: &str, end: usize) -> &str {
    crate::words::word_after(text, end, char::is_alphanumeric, crate::words::Gap::Whitespace)
}

fn is_one_of(w: &str, set: &[&str]) -> bool {
    w.len() <= 10 && set.iter().any(|u| u.eq_ignore_ascii_case(w))
}

/// Prepositions of place after "appear": "appears in the erratum",
/// "appeared on the membrane" is being seen, not seeming. BioScope dev: 12
/// such matches, none annotated as speculation.
static APPEAR_PLACE: crate::stopwords::WordList = crate::stopwords::WordList::new(crate::text_words::APPEAR_PLACE);

/// Words before "possible" that make it feasibility or degree, not
/// uncertainty: "as soon as possible", "whenever possible", "if possible".
/// Dev: 25 such matches (bioscope and sfu_review), none annotated.
static POSSIBLE_DEGREE: crate::stopwords::WordList = crate::stopwords::WordList::new(crate::text_words::POSSIBLE_DEGREE);

/// A hedge match whose context gives the word another sense (see
/// [`APPEAR_PLACE`], [`POSSIBLE_DEGREE`]).
fn hedge_is_false_friend(rule: &str, text: &str, start: usize, end: usize) -> bool {
    match rule {
        "hedge:appear" => is_one_of(word_after(text, end), &APPEAR_PLACE),
        "hedge:possible" => is_one_of(word_before(text, start), &POSSIBLE_DEGREE),
        _ => false,
    }
}

/// Words before a capitalised "May" that make it the month ("in May",
/// "since May", "early May"). Dev: 13 such hedge matches, none annotated.
static MONTH_BEFORE: crate::stopwords::WordList = crate::stopwords::WordList::new(crate::text_words::MONTH_BEFORE);

/// "May" capitalised after a preposition of time is the month, not the modal.
fn may_is_month(text: &str, start: usize, end: usize) -> bool {
    &text[start..end] == "May" && is_one_of(word_before(text, start), &MONTH_BEFORE)
}

/// Byte spans of the closed quotations of `text` (“…” or "…"), quote marks
/// included. An unclosed quote yields nothing (a quotation that runs on into
/// the next paragraph cannot be told from a stray mark), and a quotation
/// that is the whole text (nothing but punctuation outside it) is not
/// counted: then the quoted words are the message itself.
fn quoted_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    // most texts hold no quote mark at all: two memchr scans settle it
    // ('"', and 0xE2, the lead byte of “ and ”)
    if !b.contains(&b'"') && !b.contains(&0xE2) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut open: Option<(u8, usize)> = None;
    let mut i = 0;
    while i < b.len() {
        // b'"' for a straight quote, b'L' / b'R' for “ / ”
        let (mark, len) = match b[i] {
            b'"' => (b'"', 1),
            0xE2 if b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0x9C) => (b'L', 3),
            0xE2 if b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0x9D) => (b'R', 3),
            _ => {
                i += 1;
                continue;
            }
        };
        match (mark, open) {
            (b'L', None) | (b'"', None) => open = Some((mark, i)),
            (b'R', Some((b'L', s))) | (b'"', Some((b'"', s))) => {
                out.push((s, i + len));
                open = None;
            }
            _ => {}
        }
        i += len;
    }
    let wordy = |t: &str| t.chars().any(char::is_alphanumeric);
    out.retain(|&(s, e)| wordy(&text[..s]) || wordy(&text[e..]));
    out
}

/// "if" right after a verb of asking or testing ("we tested if X held",
/// "asked him if") is an embedded question ("whether"), not a condition.
fn if_means_whether(lex: &Lexicon, text: &str, if_start: usize) -> bool {
    static PRONOUNS: crate::stopwords::WordList = crate::stopwords::WordList::new(crate::text_words::PRONOUNS);
    // the two words before "if", lower-cased (borrowed when they already are)
    fn as_lower(w: &str) -> std::borrow::Cow<'_, str> {
        if w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'\'') { w.into() } else { w.to_lowercase().into() }
    }
    let mut before = text[..if_start].split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).rev();
    let Some(w0) = before.next().map(as_lower) else { return false };
    if lex.if_whether.contains(w0.as_ref()) {
        return true;
    }
    if let Some(w1) = before.next().map(as_lower) {
        if lex.if_whether.contains(&format!("{w1} {w0}")) {
            return true;
        }
        if PRONOUNS.contains(&w0.as_ref()) && lex.if_whether.contains(w1.as_ref()) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(t: &str) -> Vec<(CueClass, String)> {
        detect_cues(t).into_iter().map(|c| (c.class, c.text)).collect()
    }

    fn has(t: &str, class: CueClass) -> bool {
        detect_cues(t).iter().any(|c| c.class == class)
    }

    #[test]
    fn spans_are_bytes_of_the_text() {
        let t = "Café owners said it's not open.";
        for c in detect_cues(t) {
            assert_eq!(&t[c.span.start..c.span.end], c.text);
        }
    }

    #[test]
    fn inflections_of_say() {
        for t in ["they say so", "she says so", "he said so", "they are saying so", "german media say Alice won"] {
            assert!(has(t, CueClass::Attribution), "{t}");
        }
    }

    #[test]
    fn word_boundaries() {
        assert!(!has("the notary signed", CueClass::Negation));
        assert!(!has("the Maybach", CueClass::Hedge));
        assert!(has("it didn't work", CueClass::Negation));
        assert!(has("it didn’t work", CueClass::Negation));
        assert!(has("it did n't work", CueClass::Negation));
    }

    #[test]
    fn longest_wins_across_classes() {
        // "not sure" is a hedge, not a negation
        assert_eq!(classes("Not sure though."), vec![(CueClass::Hedge, "Not sure though".into())]);
    }

    // False friends, each pinned.
    #[test]
    fn false_friend_subject_to_change() {
        assert!(!has("Prices are subject to change.", CueClass::Condition));
        assert!(has("The deal is subject to approval.", CueClass::Condition));
    }

    #[test]
    fn false_friend_assumed_command() {
        let t = "General Lee assumed command of the army.";
        assert!(detect_cues(t).is_empty(), "{:?}", detect_cues(t));
        assert!(has("Assuming the vote passes, we ship.", CueClass::Condition));
        assert!(has("I assumed it was fine.", CueClass::Hedge));
    }

    #[test]
    fn false_friend_if_whether() {
        assert!(!has("We tested if the fix held.", CueClass::Condition));
        assert!(!has("She asked him if it worked.", CueClass::Condition));
        assert!(!has("Let's find out if it ships.", CueClass::Condition));
        assert!(has("If the fix held, we ship.", CueClass::Condition));
        assert!(has("We ship if the fix held.", CueClass::Condition));
    }

    #[test]
    fn attribution_inside_a_quotation_is_nested_speech() {
        let t = "“They told me it was fine,” Bob said.";
        let a: Vec<String> = detect_cues(t).into_iter().filter(|c| c.class == CueClass::Attribution).map(|c| c.text).collect();
        assert_eq!(a, ["said"]);
        // straight quotes too; an unclosed quote hides nothing
        assert_eq!(detect_cues("\"I said no,\" she wrote.").iter().filter(|c| c.class == CueClass::Attribution).count(), 1);
        assert!(has("“They told me it was fine", CueClass::Attribution));
        // a message that is all quotation is the message itself
        assert!(has("“Someone said Alice was promoted.”", CueClass::Attribution));
    }

    #[test]
    fn attribution_after_to_or_a_modal_is_unrealised() {
        assert!(!has("It is wrong to say that.", CueClass::Attribution));
        assert!(!has("Nobody would say that.", CueClass::Attribution));
        assert!(has("Nobody said that.", CueClass::Attribution));
        assert!(has("According to Reuters, it closed.", CueClass::Attribution));
    }

    #[test]
    fn hedge_false_friends_appear_possible_may() {
        assert!(!has("The erratum appears in the next issue.", CueClass::Hedge));
        assert!(has("The effect appears to be small.", CueClass::Hedge));
        assert!(!has("Reply as soon as possible.", CueClass::Hedge));
        assert!(!has("Ship it whenever possible.", CueClass::Hedge));
        assert!(has("A leak is possible.", CueClass::Hedge));
        let c = detect_cues("We bought it in May and it broke.");
        assert_eq!(c.iter().map(|c| (c.class, c.rule.as_str())).collect::<Vec<_>>(), [(CueClass::Temporal, "temporal:month")]);
        assert!(has("May it rain? It may rain.", CueClass::Hedge));
    }

    #[test]
    fn indicate_is_a_hedge_only_with_a_that_clause() {
        assert!(has("The results indicate that the fix held.", CueClass::Hedge));
        assert!(!has("Arrows indicate the binding sites.", CueClass::Hedge));
    }

    #[test]
    fn nothing_but_means_only() {
        assert!(!has("It brought nothing but trouble.", CueClass::Negation));
        assert!(has("It brought nothing.", CueClass::Negation));
    }

    #[test]
    fn years_dates_and_may() {
        let c = detect_cues("Alice was elevated on August 3, 2026 and may leave in May 2027.");
        let rules: Vec<&str> = c.iter().map(|c| c.rule.as_str()).collect();
        assert!(rules.contains(&"temporal:august"));
        assert!(rules.contains(&"temporal:year"));
        assert!(rules.contains(&"hedge:may"));
        assert!(rules.contains(&"temporal:month"), "{rules:?}");
    }

    #[test]
    fn arbitrary_bytes_do_not_panic() {
        for t in ["", "’", "n’t", "é if", "\u{0}\u{ffff}", "1,2", "$", "5%", "3/", "May"] {
            let _ = detect_cues(t);
        }
    }
}
