//! Stance cues the verifier reads in an aligned sentence: negation (polarity),
//! hedges (the source is less certain than the claim), narrower scope (the
//! source speaks of a subset: "in mice", "in some patients"), and antonym
//! pairs that flip a shared proposition ("increased" / "decreased").
//!
//! Negation and hedge cues come from the gate's lexicons
//! (`amem_text::cues::detect_cues`), so the verifier and the gate agree on
//! what a negator or a hedge is. The scope, denial and antonym lists here are
//! short on purpose: each entry is a word whose presence in an aligned source
//! sentence changes what the claim may take from it.

use super::text::Word;
use amem_records::CueClass;
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

/// Words that deny the proposition they govern in a fact-check context
/// ("the claim was debunked", "a myth that 5G spreads the virus"), beyond the
/// closed-class negators of the gate's lexicon (`amem_text::cues`).
/// Fact-checking prose (Climate-FEVER, HealthVer evidence) uses them exactly so.
/// The lexical negatives ("refused to", "incapable of") deny the predicate they govern the same way.
static DENIAL: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::DENIAL);

/// Two-word scope cues: the source states the finding for a narrower population or setting.
static SCOPE: amem_text::stopwords::WordPairs = amem_text::stopwords::WordPairs::new(amem_text::verify_words::SCOPE);

/// Antonym pairs: a source sentence that shares the proposition but carries the
/// other member asserts the opposite. Counter-claims in COVID-Fact and FEVER are
/// often built by exactly this swap.
static ANTONYMS: amem_text::stopwords::WordPairs = amem_text::stopwords::WordPairs::new(amem_text::verify_words::COUNTER_CLAIM_ANTONYMS);

/// Verbs whose negation denies what follows them ("never *agreed* to become an entrepreneur"
/// is "never became one"; "did not *become* a folk hero" is "was not one"): the implicative
/// verbs of general English and the copular "become". Not "try" or "want", whose negation
/// leaves what follows open.
static PASSES_ON: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::PASSES_ON);

/// True when the lower-case word is a verb a negation passes through to what follows ([`PASSES_ON`]).
pub(crate) fn passes_on(lower: &str) -> bool {
    PASSES_ON.contains(&lower)
}

/// Ordinal words: a rank is a discriminant bound to the word it ranks ("the first confirmed
/// case" is not "the second confirmed case"; "second-largest" is not "largest").
static ORDINALS: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::ORDINALS);

/// True when the lower-case word is an ordinal ([`ORDINALS`]).
pub(crate) fn is_ordinal(lower: &str) -> bool {
    ORDINALS.contains(&lower)
}

/// True when the lower-case word reads as a superlative ("largest", "most", "least"). Read only
/// after an ordinal ("second-largest", "third most"), where an "-est" word is one.
pub(crate) fn is_superlative(lower: &str) -> bool {
    matches!(lower, "most" | "least" | "best" | "worst") || (lower.len() > 4 && lower.ends_with("est"))
}

/// Beginnings of the words that give a quantity its direction ("reduced risk", "increased
/// levels", "higher mortality"): said of a word, they state which way it goes.
static DIRECTION: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::DIRECTION);

/// True when the lower-case word states a direction ([`DIRECTION`]).
pub(crate) fn is_direction(lower: &str) -> bool {
    DIRECTION.iter().any(|d| lower.starts_with(d))
}

/// Index of the word a byte offset falls in (or the last word before it).
fn word_at(words: &[Word], byte: usize) -> usize {
    words.iter().rposition(|w| w.range.start <= byte).unwrap_or(0)
}

/// Negation and hedge cues of a sentence: `(negations, hedges)`.
///
/// Negators and hedges come from the gate's lexicons (`amem_text::cues::detect_cues`,
/// one source of truth for the word lists and their false-friend exclusions),
/// plus the [`DENIAL`] words read here.
pub(crate) fn stance(text: &str, words: &[Word]) -> (Vec<Cue>, Vec<Cue>) {
    stance_of(text, words, &amem_text::cues::detect_cues(text))
}

/// [`stance`] from the gate's cues of `text` (`amem_text::cues::detect_cues`), read by the caller.
fn stance_of(text: &str, words: &[Word], found: &[amem_records::Cue]) -> (Vec<Cue>, Vec<Cue>) {
    let mut negations = Vec::new();
    let mut hedges = Vec::new();
    for c in found {
        let range = c.span.start..c.span.end;
        let cue = Cue { word: word_at(words, c.span.end.saturating_sub(1)), range, entry: "gate" };
        match c.class {
            CueClass::Negation => {
                // "no longer", "not only", "no doubt" do not deny what follows.
                let after = text[c.span.end..].trim_start().to_lowercase();
                let lower = c.text.to_lowercase();
                if (lower == "not" && (after.starts_with("only") || after.starts_with("just")))
                    || (lower == "no" && after.starts_with("doubt"))
                {
                    continue;
                }
                negations.push(cue);
            }
            CueClass::Hedge => {
                // "appeared on the cover", "appears in the film": the verb of showing up, not of seeming.
                // Only "appear(s) to / that / likely" hedges.
                let lower = c.text.to_lowercase();
                let next: String =
                    text[c.span.end..].trim_start().chars().take_while(|c| c.is_alphabetic()).collect::<String>().to_lowercase();
                if lower.starts_with("appear") && !matches!(next.as_str(), "to" | "that" | "likely" | "unlikely" | "possible" | "probable")
                {
                    continue;
                }
                hedges.push(cue);
            }
            _ => {}
        }
    }
    for (i, w) in words.iter().enumerate() {
        let overlaps = |c: &Cue| c.range.start < w.range.end && w.range.start < c.range.end;
        if let Some(entry) = DENIAL.iter().find(|e| **e == w.lower).filter(|_| !negations.iter().any(overlaps)) {
            negations.push(Cue { range: w.range.clone(), entry, word: i });
        }
    }
    // "avoids practicing", "avoided paying": to avoid doing a thing is not to do it (a
    // negative implicative, like "refused to"); only before a gerund, since "avoid smoking"
    // names no denied predicate of its own and "avoid ibuprofen" is advice, not a fact.
    for i in 0..words.len().saturating_sub(1) {
        let avoid = matches!(words[i].lower.as_str(), "avoid" | "avoids" | "avoided");
        let next = &words[i + 1];
        if avoid && !next.stop && next.lower.len() > 5 && next.lower.ends_with("ing") && next.lower != next.stem {
            negations.push(Cue { range: words[i].range.clone(), entry: "avoid", word: i });
        }
    }
    // "is something other than an Indian film", "is anything but an animal": the copula's
    // complement denied. Only right after a copula: "nothing but" affirms, and "no one other
    // than the mayor" names someone.
    for i in 1..words.len().saturating_sub(2) {
        let copula = matches!(words[i - 1].lower.as_str(), "is" | "was" | "are" | "were" | "be");
        let (a, b) = (words[i + 1].lower.as_str(), words.get(i + 2).map(|w| w.lower.as_str()));
        let other_than =
            matches!(words[i].lower.as_str(), "something" | "anything" | "someone" | "anyone") && a == "other" && b == Some("than");
        let but = words[i].lower == "anything" && a == "but";
        if copula && (other_than || but) {
            let last = if other_than { i + 2 } else { i + 1 };
            negations.push(Cue { range: words[i].range.start..words[last].range.end, entry: "other than", word: last });
        }
    }
    // "turned down offers to work under FNC", "declined an invitation to join": to refuse the
    // chance of a deed is not to do it; the denial reaches past the offer to what it was for.
    for i in 0..words.len() {
        let refusal = match words[i].lower.as_str() {
            "turn" | "turns" | "turned" | "turning" => words.get(i + 1).is_some_and(|w| w.lower == "down").then_some(i + 2),
            "refused" | "refuses" | "declined" | "declines" | "rejected" | "rejects" => Some(i + 1),
            _ => None,
        };
        let Some(mut at) = refusal else { continue };
        if words.get(at).is_some_and(|w| matches!(w.lower.as_str(), "an" | "the" | "several" | "many" | "repeated" | "all")) {
            at += 1;
        }
        let offer = words.get(at).is_some_and(|w| {
            matches!(w.lower.as_str(), "offer" | "offers" | "invitation" | "invitations" | "chance" | "opportunity" | "opportunities")
        });
        if offer && words.get(at + 1).is_some_and(|w| w.lower == "to") {
            negations.push(Cue { range: words[i].range.start..words[at + 1].range.end, entry: "refused offer", word: at + 1 });
        }
    }
    // "has yet to work", "is yet to be decided": the predicate has not happened.
    for i in 1..words.len().saturating_sub(1) {
        let aux = matches!(words[i - 1].lower.as_str(), "has" | "have" | "had" | "is" | "are" | "was" | "were" | "am");
        if aux && words[i].lower == "yet" && words[i + 1].lower == "to" {
            negations.push(Cue { range: words[i].range.start..words[i + 1].range.end, entry: "yet to", word: i + 1 });
        }
    }
    negations.sort_by_key(|c| c.range.start);
    (negations, hedges)
}

/// Time deixis the gate's temporal lexicon lists only inside phrases ("right now", "as of
/// now"), because alone "now" is as often a discourse marker; in a claim either reading
/// places the statement in the speaker's present, it adds nothing to match.
static DEIXIS: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::DEIXIS);

/// Words of a claim that carry the speaker's stance, not the proposition (word indices into
/// `words`): hedges ("I think", "probably"), time deixis ("now", "currently", "these days"
/// from the gate's temporal cues; a capitalised one such as "Monday" is a date, kept), and
/// attributions with their source ("according to Maria, ...", "Maria said that ...",
/// "..., Maria said", "reportedly"). Returns the indices and the cue ranges, for the report,
/// with the claim's negation and hedge cues (what [`stance`] gives).
///
/// A reporting verb that is the claim's own predicate ("Apple announced the iPhone") is
/// content: only a verb that introduces a clause ("said that", after a comma at the end)
/// or "according to" is stance.
pub(crate) fn claim_stance(text: &str, words: &[Word]) -> ClaimStance {
    // The gate's cues are read once and serve both the stance cues and the stance words.
    let found = amem_text::cues::detect_cues(text);
    let (negations, hedges) = stance_of(text, words, &found);
    let (stance_words, stance) = stance_words(text, words, &found, &hedges);
    ClaimStance { negations, hedges, stance_words, stance }
}

/// What [`claim_stance`] reads in a claim.
pub(crate) struct ClaimStance {
    /// Negation cues, as [`stance`] gives them.
    pub negations: Vec<Cue>,
    /// Hedge cues, as [`stance`] gives them.
    pub hedges: Vec<Cue>,
    /// Indices of the words that carry the speaker's stance, ascending.
    pub stance_words: Vec<usize>,
    /// Byte ranges of the stance cues, sorted.
    pub stance: Vec<Range<usize>>,
}

fn stance_words(text: &str, words: &[Word], found: &[amem_records::Cue], hedges: &[Cue]) -> (Vec<usize>, Vec<Range<usize>>) {
    let mut idx: Vec<usize> = Vec::new();
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let overlapping = |r: &Range<usize>| -> Vec<usize> {
        words.iter().enumerate().filter(|(_, w)| w.range.start < r.end && r.start < w.range.end).map(|(i, _)| i).collect()
    };
    let punct_between = |a: usize, b: usize| text.get(a..b).is_some_and(|g| g.contains([',', ';', ':', '.', '!', '?']));
    for h in hedges {
        idx.extend(overlapping(&h.range));
        ranges.push(h.range.clone());
    }
    for c in found {
        let r = c.span.start..c.span.end;
        let ws = overlapping(&r);
        let (Some(&first), Some(&last)) = (ws.first(), ws.last()) else { continue };
        match c.class {
            CueClass::Temporal if !c.rule.starts_with("temporal:year") && !c.rule.starts_with("temporal:date") => {
                // Content, not deixis: a named day ("on Monday"), a cue that scopes a stated time
                // ("since 2019", "until March"), or the object of a comparison ("greener than today").
                let named = words[first].capitalised && first > 0;
                let scopes_a_time = words.get(last + 1).is_some_and(|w| {
                    w.lower.starts_with(|ch: char| ch.is_ascii_digit())
                        || (w.capitalised && !punct_between(words[last].range.end, w.range.start))
                });
                let compared = first > 0 && matches!(words[first - 1].lower.as_str(), "than" | "as");
                if !(named || scopes_a_time || compared) {
                    idx.extend(ws);
                    ranges.push(r);
                }
            }
            CueClass::Attribution => {
                let lower = c.text.to_lowercase();
                let mut span_words: Vec<usize> = Vec::new();
                if lower.starts_with("according") {
                    // "according to Maria, X" or "X, according to Maria": the source runs to the comma or the end.
                    let mut j = last + 1;
                    if words.get(j).is_some_and(|w| w.lower == "to") {
                        j += 1;
                    }
                    let mut end = last;
                    while j < words.len() && j <= last + 7 && !punct_between(words[end].range.end, words[j].range.start) {
                        end = j;
                        j += 1;
                    }
                    span_words.extend(first..=end);
                } else if let Some(start) = source_before(text, words, first)
                    .filter(|_| !lower.starts_with("claim") && words.get(last + 1).is_some_and(|w| w.lower == "that"))
                {
                    // "Maria said that X": the source is the short clause opening the sentence. ("their
                    // claim that", "retracted the claim that": a noun, and what is said of it is content.)
                    span_words.extend(start..=last + 1);
                } else if let Some(p) = (first.saturating_sub(4)..first)
                    .rev()
                    .find(|&p| punct_between(words[p].range.end, words[p + 1].range.start))
                    .filter(|_| words.len() - last <= 3)
                {
                    // "X, Maria said." / "X, said Maria.": the source is the last clause.
                    span_words.extend(p + 1..words.len());
                } else if words[first].lower.ends_with("ly") && first == last {
                    // "reportedly", "allegedly": the adverb alone.
                    span_words.push(first);
                }
                if !span_words.is_empty() {
                    let (a, b) = (words[span_words[0]].range.start, words[span_words[span_words.len() - 1]].range.end);
                    ranges.push(a..b);
                    idx.extend(span_words);
                }
            }
            _ => {}
        }
    }
    for (i, w) in words.iter().enumerate() {
        if DEIXIS.contains(&w.lower.as_str()) {
            idx.push(i);
            ranges.push(w.range.clone());
        }
    }
    idx.sort_unstable();
    idx.dedup();
    ranges.sort_by_key(|r| (r.start, r.end));
    ranges.dedup();
    (idx, ranges)
}

/// The first word of the source of a reporting verb at word `verb`: the clause from the
/// sentence start (or the last punctuation) to the verb, when it is at most three words and
/// holds no negation ("Maria", "The CFO", "Experts"). `None` otherwise: a longer clause
/// before the verb says more than who is speaking.
fn source_before(text: &str, words: &[Word], verb: usize) -> Option<usize> {
    let mut start = verb;
    while start > 0
        && !text.get(words[start - 1].range.end..words[start].range.start).is_some_and(|g| g.contains([',', ';', ':', '.', '!', '?']))
    {
        start -= 1;
    }
    let negated = words[start..verb].iter().any(|w| matches!(w.lower.as_str(), "no" | "not" | "never" | "nobody" | "none"));
    (verb - start <= 3 && verb > start && !negated).then_some(start)
}

/// Hearsay: the source relays a claim without asserting it ("it was claimed that",
/// "allegedly", "is said to"). A narrow subset of the gate's attribution cues: plain
/// attribution ("according to the census", "reported cases") states facts and is not read here.
static HEARSAY: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::HEARSAY);

/// Hearsay cues in `words` (the words of a sentence).
pub(crate) fn hearsay(words: &[Word]) -> Vec<Cue> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).map(|n| n.lower.as_str()).unwrap_or("");
        let prev = if i > 0 { words[i - 1].lower.as_str() } else { "" };
        let hit = if let Some(entry) = HEARSAY.iter().find(|e| **e == w.lower) {
            Some(*entry)
        } else if matches!(w.lower.as_str(), "claim" | "claims") && next == "that" {
            Some("claim that")
        } else if w.lower == "said" && next == "to" && crate::text::is_copula(prev) {
            Some("is said to")
        } else {
            None
        };
        if let Some(entry) = hit {
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
    for (a, b) in ANTONYMS.iter() {
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
    fn finds_contracted_negation_and_denials() {
        let t = "It doesn't work, is not safe and the claim was debunked";
        let w = words(t);
        let (n, h) = stance(t, &w);
        assert_eq!(n.len(), 3, "{n:?}");
        assert!(t[n[0].range.clone()].contains("n't"));
        assert_eq!(&t[n[2].range.clone()], "debunked");
        assert!(h.is_empty());
    }

    #[test]
    fn appearing_somewhere_is_not_a_hedge() {
        let t = "She appeared on the cover and appears to be tall";
        let (_, h) = stance(t, &words(t));
        assert_eq!(h.len(), 1);
        assert_eq!(&t[h[0].range.clone()], "appears");
    }

    #[test]
    fn hearsay_is_not_plain_attribution() {
        let t = "It was claimed that prices rose, according to the census of reported cases";
        let h = hearsay(&words(t));
        assert_eq!(h.len(), 1);
        assert_eq!(&t[h[0].range.clone()], "claimed");
    }

    #[test]
    fn may_the_month_is_not_a_hedge() {
        let t = "It launched on May 3, 2024";
        assert!(stance(t, &words(t)).1.is_empty());
        let t = "It may launch";
        assert_eq!(stance(t, &words(t)).1.len(), 1);
    }

    #[test]
    fn scope_and_antonyms() {
        let w = words("The drug worked in mice");
        assert_eq!(scopes(&w).len(), 1);
        assert_eq!(antonyms_of("increas", "increased"), vec!["decreas", "reduc"]);
    }
}
