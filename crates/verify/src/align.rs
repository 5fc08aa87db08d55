//! The decision: align the claim to evidence sentences by content words, then
//! compare the discriminants (numbers, dates, names), polarity, hedges and
//! scope of the aligned sentences, and pick a status from a fixed order.
//!
//! Order of the decision (first that applies):
//! 1. nothing to align in the claim → `ambiguous`;
//! 2. no sentence shares enough content words → `no_evidence`;
//! 3. an aligned sentence states the claim's quantity, date or proposition with
//!    another value or the other polarity → `contradicted` (both spans named),
//!    unless another sentence fully supports the claim (then `ambiguous`: the
//!    sources disagree);
//! 4. one sentence, or up to three together, hold every content word of the
//!    claim, with every number, date and name matched in value and the same
//!    polarity → `supported`, lowered to `partially_supported` when the
//!    evidence is hedged or scoped where the claim is flat, or dates it less
//!    precisely;
//! 5. most content words aligned but a facet unmatched → `partially_supported`;
//! 6. otherwise the evidence is on topic but does not entail → `not_addressed`.

use super::admission::{self, Refusal};
use super::analysis::{EvidenceAnalysis, SentenceAnalysis, values_outside_dates};
use super::cues::{self, Cue};
use super::date::{self, Date, DateRelation};
use super::number::{self, Quantity, Relation};
use super::relevance::{self, Rarity, Subject};
use super::scope::{self, TimeScope};
use super::text::{self, Word};
use amem_records::{Evidence, Reason, Span, Status};
use regex::Regex;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::OnceLock;

mod conflict;
use conflict::{apart_in_short_claim, conflict_in, direction_unstated, rank_unshared, value_unstated};

/// A facet rule: the claim against every sentence aligned to it (each with its word matches), a
/// reason when the evidence leaves part of the claim unstated.
type FacetRule = fn(&ClaimView<'_>, &[(&Sentence<'_>, &[Option<usize>])], &[Evidence]) -> Option<Reason>;

/// The facet rules asked of supporting sentences beside polarity, each adding its reason: a value,
/// two words said apart, a rank, a direction.
const UNSTATED_FACET_RULES: [FacetRule; 4] = [value_unstated, apart_in_short_claim, rank_unshared, direction_unstated];

/// Share of the claim's content words a sentence must hold to count as on topic at all.
pub(crate) const TOPIC_MIN: f64 = 0.25;
/// Share needed before a sentence's values and polarity are compared with the claim's.
pub(crate) const ALIGN_MIN: f64 = 0.5;
/// Share needed (one sentence or up to three together) for the evidence to entail the claim: all of it.
/// Lexical containment is the only entailment test a rule can make, so a claim word the
/// evidence lacks is an unsupported facet, named as such. (On the dev halves, allowing one
/// word in five to be missing admitted the one-word counter-claims of COVID-Fact as
/// supported: supported precision 46% there, against 76% with full containment.)
pub(crate) const SUPPORT_MIN: f64 = 1.0;
/// Share needed before a negation or an antonym in a sentence is read as denying the claim:
/// the sentence must be about the same proposition, not merely on topic.
pub(crate) const POLARITY_MIN: f64 = 0.75;
/// At most this many sentences together may entail a claim.
const MAX_JOINT: usize = 3;
/// Words after a hearsay cue ("claimed that ...") that it relays.
const HEARSAY_WINDOW: usize = 10;
/// Words after a negation cue that it scopes over.
const NEGATION_WINDOW: usize = 6;

/// The claim, read once.
struct ClaimView<'a> {
    text: &'a str,
    words: Vec<Word>,
    /// Indices into `words` of the content words, one per distinct stem.
    content: Vec<usize>,
    /// Subset of `content` that are names (capitalised, not sentence-initial, or all-caps).
    names: BTreeSet<usize>,
    quantities: Vec<Quantity>,
    dates: Vec<Date>,
    negations: Vec<Cue>,
    hedged: bool,
    scoped: bool,
    hearsay: bool,
    /// Byte ranges of the claim's stance cues (hedges, time deixis, attributions with their
    /// source): the speaker's stance, kept in the claim and named in the reasons, never
    /// aligned as content (see [`cues::claim_stance`]).
    stance: Vec<Range<usize>>,
    /// Parallel to `content`: true for a stance word ("think", "now", "Maria" in "according to
    /// Maria"). It counts when the evidence has it and is never missing when it does not.
    optional: Vec<bool>,
    /// Parallel to `content`: how rare the word is in the collection ([`Rarity::weight`]).
    weights: Vec<f64>,
    /// The weight of a number or a date.
    value_weight: f64,
    /// What the claim is about (see [`relevance::subject`]).
    subject: Subject,
    /// The claim's time relative to when it was written ("today", "this week"), if any.
    relative_time: Option<Range<usize>>,
    /// True when the claim speaks of the present ("now", "currently", "today").
    about_now: bool,
}

/// What the verifier knows of a claim besides its text.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Context<'a> {
    /// The day the claim was written (`YYYY-MM-DD`, the message's `sent_at`), when known.
    pub sent_on: Option<&'a str>,
    /// Document frequencies of the collection the evidence comes from.
    pub rarity: Option<&'a Rarity>,
    /// Read every sentence that shares a word with the claim in full, not only those that can
    /// be on topic (see [`could_be_on_topic`]): the reference the prefilter is tested against.
    pub read_all: bool,
}

/// One evidence sentence on the claim's topic: a view of its [`EvidenceAnalysis`].
struct Sentence<'a> {
    item: usize,
    /// Byte range in the evidence item's quote.
    range: Range<usize>,
    text: &'a str,
    analysis: &'a EvidenceAnalysis,
    sentence: &'a SentenceAnalysis,
    /// Stems of the item's title when the sentence opens with a pronoun: the pronoun stands for
    /// the subject the document is about ("She has appeared on ..." in the page "Ashley Graham").
    subject: &'a [String],
    /// For each claim content word, the index of the first word of the sentence it matches.
    firsts: Vec<Option<usize>>,
}

impl<'a> Sentence<'a> {
    fn words(&self) -> &'a [Word] {
        self.analysis.words(self.sentence)
    }
    fn quantities(&self) -> &'a [Quantity] {
        self.analysis.quantities(self.sentence)
    }
    fn dates(&self) -> &'a [Date] {
        self.analysis.dates(self.sentence)
    }
    fn negations(&self) -> &'a [Cue] {
        self.analysis.stance(self.sentence).0
    }
    fn hedges(&self) -> &'a [Cue] {
        self.analysis.stance(self.sentence).1
    }
    fn scopes(&self) -> &'a [Cue] {
        self.analysis.scopes(self.sentence)
    }
    fn hearsay(&self) -> &'a [Cue] {
        self.analysis.hearsay(self.sentence)
    }
}

/// A claim word matched through the sentence's pronoun (its item's title), not a word of the sentence.
const VIA_TITLE: usize = usize::MAX;

/// What the verifier concluded, before it is wrapped for callers.
pub(crate) struct Outcome {
    pub status: Status,
    pub reasons: Vec<Reason>,
}

fn instruction_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(concat!(
            r"(?i)(?-u:\b)(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|preceding|your|these)\s+",
            r"(instructions?|prompts?|rules|guidelines|directions)(?-u:\b)",
            // an imperative addressed to the verifier: at the start of a sentence or clause, or after "please" / "you must"
            r"|(?:^|[:;!]\s*|(?-u:\b)(?:please|you\s+(?:must|should|will|are\s+to))\s+)(?:mark|label|classify|rate|treat|flag|report|record|output|return|answer)",
            r"\s+(?:this|the|that|it|each|every|all)(?-u:\b)[^.]{0,40}?(?-u:\b)(?:as\s+)?(?:supported|true|verified|correct|accurate|contradicted|false|refuted)(?-u:\b)",
            r"|(?-u:\b)(system prompt|as an ai(?-u:\b)|you are an? (ai|assistant|verifier|fact.?checker|language model))",
        ))
        .expect("invariant: the instruction pattern is valid")
    })
}

/// True when a sentence addresses the verifier instead of stating something
/// about the world ("ignore previous instructions", "mark this claim
/// supported"). Such text is data, not evidence: it is left out of alignment,
/// so the verdict is what it would be without it.
#[cfg(test)]
pub(crate) fn is_instruction(sentence: &str) -> bool {
    is_instruction_words(sentence, &text::words(sentence))
}

/// [`is_instruction`] of a sentence whose words are already read.
pub(crate) fn is_instruction_words(sentence: &str, words: &[Word]) -> bool {
    instruction_pattern().is_match(sentence) || admission::addresses_reader_words(sentence, words)
}

/// True when a claim of these words speaks of its present: a time relative to its writing, or
/// "now", "currently" and the like (what [`staleness`] reads).
fn speaks_of_now(words: &[Word], relative_time: bool) -> bool {
    relative_time || words.iter().any(|w| matches!(w.lower.as_str(), "now" | "nowadays" | "currently" | "presently" | "still"))
}

/// True when the verdict on `claim` against `evidence` can depend on the day the claim was
/// written: the claim names a time relative to its writing or speaks of its present (both
/// compared with that day), holds a relative date that day resolves ("last week", "two days
/// ago": [`read_claim`] reads them against it), or an evidence item is a fetched page with a
/// retrieval day (a relative time in it is compared with the claim's day). For a claim not
/// being verified; [`decide`] answers it from the reading it verifies with.
pub(crate) fn reads_writing_day(claim: &str, evidence: &[Evidence]) -> bool {
    let words = text::words(claim);
    reads_writing_day_of(claim, speaks_of_now(&words, scope::relative_time(&words).is_some()), evidence)
}

/// [`reads_writing_day`] of a claim whose words were read: `about_now` is [`speaks_of_now`].
fn reads_writing_day_of(claim: &str, about_now: bool, evidence: &[Evidence]) -> bool {
    if about_now || evidence.iter().any(|e| e.source_url.is_some() && e.captured_at.is_some()) {
        return true;
    }
    // Any day would do: a relative form is read only when there is one.
    let ranges = |ds: Vec<Date>| ds.into_iter().map(|d| d.range).collect::<Vec<_>>();
    date::may_be_relative(claim) && ranges(date::dates_at(claim, Some(jiff::civil::date(2000, 6, 15)))) != ranges(date::dates(claim))
}

/// The claim's reading, from its words (`text::words(text)`, read by the caller).
fn read_claim<'a>(text: &'a str, words: Vec<Word>, ctx: &Context<'_>) -> ClaimView<'a> {
    let rarity = ctx.rarity;
    // "yesterday", "last week", "on Tuesday" are dates only against the day the claim was written.
    let anchor = ctx.sent_on.and_then(|d| d.parse::<jiff::civil::Date>().ok());
    let dates = date::dates_at(text, anchor);
    let quantities = values_outside_dates(number::quantities(text, &words), &dates);
    let mut seen: Vec<&str> = Vec::new();
    let mut content = Vec::new();
    let mut names = BTreeSet::new();
    let mut optional = Vec::new();
    let cues::ClaimStance { negations, hedges, stance_words, stance } = cues::claim_stance(text, &words);
    for (i, w) in words.iter().enumerate() {
        let in_value = quantities.iter().any(|q| q.range.start <= w.range.start && w.range.end <= q.range.end);
        let is_stance = stance_words.binary_search(&i).is_ok();
        // The tail of a contraction ("you're", "we'll", "they've") belongs to the pronoun before it.
        let contraction = matches!(w.lower.as_str(), "re" | "ll" | "ve") && i > 0 && text[..w.range.start].ends_with(['\'', '\u{2019}']);
        if w.stop || contraction || !w.lower.chars().any(char::is_alphabetic) || in_any(&w.range, &dates) || in_value || w.lower.len() < 2 {
            continue;
        }
        if seen.contains(&w.stem.as_str()) {
            continue;
        }
        seen.push(&w.stem);
        if is_stance {
            content.push(i);
            optional.push(true);
            continue;
        }
        let surface = &text[w.range.clone()];
        let all_caps = surface.len() > 1 && surface.chars().all(|c| c.is_uppercase() || c.is_ascii_digit());
        // A capitalised word counts as a name mid-sentence, or at the start when the next word is
        // capitalised too ("Tracey Edmonds produced ...", not "Vitamins help ...").
        let starts_name = words.get(i + 1).is_some_and(|n| n.capitalised && !n.stop);
        let mid = i > 0 && !after_sentence_end(text, w.range.start);
        if (w.capitalised && (mid || starts_name)) || all_caps || is_identifier_part(text, &w.range) {
            names.insert(i);
        }
        content.push(i);
        optional.push(false);
    }
    let hedged = !hedges.is_empty();
    let scoped = !cues::scopes(&words).is_empty();
    let hearsay = !cues::hearsay(&words).is_empty();
    let weights: Vec<f64> = content.iter().map(|&ci| rarity.map_or(1.0, |r| r.weight(&words[ci].stem))).collect();
    let value_weight = rarity.map_or(1.0, Rarity::value_weight);
    let name_list: Vec<usize> = names.iter().copied().collect();
    let subject = relevance::subject(&words, &content, &optional, &name_list);
    let relative_time = scope::relative_time(&words);
    let about_now = speaks_of_now(&words, relative_time.is_some());
    ClaimView {
        text,
        words,
        content,
        names,
        quantities,
        dates,
        negations,
        hedged,
        scoped,
        hearsay,
        stance,
        optional,
        weights,
        value_weight,
        subject,
        relative_time,
        about_now,
    }
}

/// True when the word is part of an identifier: a hyphenated token mixing letters and digits
/// ("sars-cov-2", "covid-19", "b.1.1.7"). Such tokens name things, so they are discriminants like names.
fn is_identifier_part(text: &str, r: &Range<usize>) -> bool {
    let bound = |c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '(' | ')' | '"' | '[' | ']');
    let start = text[..r.start].char_indices().rev().find(|(_, c)| bound(*c)).map(|(p, c)| p + c.len_utf8()).unwrap_or(0);
    let end = text[r.end..].find(bound).map(|p| r.end + p).unwrap_or(text.len());
    let token = text[start..end].trim_end_matches(['.', '?', '!']);
    token.contains(['-', '.']) && token.chars().any(|c| c.is_ascii_digit()) && token.chars().any(char::is_alphabetic)
}

fn after_sentence_end(text: &str, start: usize) -> bool {
    text[..start].trim_end().ends_with(['.', '!', '?', ':'])
}

fn in_any(r: &Range<usize>, dates: &[Date]) -> bool {
    dates.iter().any(|d| d.range.start <= r.start && r.end <= d.range.end)
}

/// A sentence that shares a word with the claim but was not read in full: even with every
/// claim value stated and every claim word its item's title could lend it, it would not be on
/// topic ([`could_be_on_topic`]). Only a claim quantity stated elsewhere in its item reads it.
struct Unread<'a> {
    item: usize,
    analysis: &'a EvidenceAnalysis,
    sentence: &'a SentenceAnalysis,
}

impl Unread<'_> {
    /// True when the sentence states `q` (and is evidence at all): what the conflict check asks
    /// of every sentence of an item.
    fn states(&self, q: &Quantity) -> bool {
        !self.analysis.is_instruction(self.sentence)
            && self.analysis.quantities(self.sentence).iter().any(|e| number::relate(q, e) == Relation::Agrees)
    }
}

/// False when a sentence whose claim words are at most `upper` cannot pass `decide`'s on-topic
/// test: its coverage, weighted and not, with every claim value counted as stated, stays under
/// [`TOPIC_MIN`], or it cannot speak of the claim's subject. Coverage and the subject test only
/// grow with more matched words and values, so a sentence this rules out is never on topic,
/// and its words, cues and values need not be read (most sentences of a recalled chunk share
/// only a common word or two with a claim). The margin absorbs rounding: the bound may let
/// through a sentence the test then rejects, never the other way.
fn could_be_on_topic(claim: &ClaimView<'_>, upper: &[Option<usize>]) -> bool {
    const MARGIN: f64 = 1e-9;
    let values = vec![true; claim.quantities.len() + claim.dates.len()];
    coverage(claim, upper, &values) >= TOPIC_MIN - MARGIN
        && rare_coverage(claim, upper, &values) >= TOPIC_MIN - MARGIN
        && addresses_subject(claim, upper)
}

/// The evidence sentences that share at least one content word with the claim
/// (no other sentence can be on topic) and can be on topic ([`could_be_on_topic`]), each read
/// in full; the others go to `unread`. Sentences that address the verifier are left out (see
/// [`is_instruction`]). `analyses[i]` is the analysis of `evidence[i].quote`; `subjects[i]`
/// receives the stems of item `i`'s title when a sentence of it needs them.
fn read_sentences<'a>(
    claim: &ClaimView<'_>,
    evidence: &[Evidence],
    analyses: &[&'a EvidenceAnalysis],
    subjects: &'a mut [Vec<String>],
    admitted: &[bool],
    read_all: bool,
    unread: &mut Vec<Unread<'a>>,
) -> Vec<Sentence<'a>> {
    let content: Vec<(u64, &str)> = claim.content.iter().map(|&ci| (claim.words[ci].key, claim.words[ci].stem.as_str())).collect();
    let mut on_topic: Vec<(usize, &'a SentenceAnalysis, Vec<Option<usize>>)> = Vec::new();
    let mut upper: Vec<Option<usize>> = Vec::with_capacity(content.len());
    // The words of each item's title, read once (the analysis keeps them for the next claim).
    let titles: Vec<Option<Cow<'a, [Word]>>> =
        evidence.iter().zip(analyses).map(|(e, a)| e.title.as_deref().map(|t| a.title_words(t))).collect();
    for (item, a) in analyses.iter().enumerate() {
        if !admitted.get(item).copied().unwrap_or(true) {
            continue;
        }
        // The claim words the item's title could lend a sentence of it (see `match_words`).
        let lent: Vec<bool> = match (&titles[item], read_all) {
            (Some(tw), false) => content.iter().map(|&(_, c)| tw.iter().any(|t| !t.stop && text::stems_match(c, &t.stem))).collect(),
            _ => vec![false; content.len()],
        };
        for (at, firsts) in a.first_matches(&content) {
            let Some(sa) = a.sentences.get(at) else { continue };
            // A markdown heading names what the note or section is about: context (its words
            // reach the sentences through the title), never a sentence a verdict rests on.
            if a.sentence_text(sa).trim_start().starts_with('#') {
                continue;
            }
            if !read_all {
                upper.clear();
                upper.extend(firsts.iter().zip(&lent).map(|(f, &l)| f.or(l.then_some(VIA_TITLE))));
                if !could_be_on_topic(claim, &upper) {
                    unread.push(Unread { item, analysis: a, sentence: sa });
                    continue;
                }
            }
            if !a.is_instruction(sa) {
                on_topic.push((item, sa, firsts));
            }
        }
    }
    // A sentence speaks of its item's titled subject when it opens with a pronoun ("She has
    // appeared ...") or names the subject by part of its title ("Curie discovered polonium" in
    // the note "Marie Curie"), not preceded by another name ("Pierre Curie").
    let mut title_words: Vec<Option<Vec<Word>>> = vec![None; evidence.len()];
    let borrows: Vec<bool> = on_topic
        .iter()
        .map(|&(item, sa, _)| {
            let Some(t) = &titles[item] else { return false };
            if sa.opens_with_pronoun {
                return true;
            }
            let tw = title_words[item].get_or_insert_with(|| t.iter().filter(|w| !w.stop && w.capitalised).cloned().collect());
            names_part_of_title(analyses[item].words(sa), analyses[item].sentence_text(sa), tw)
        })
        .collect();
    for (&(item, _, _), &b) in on_topic.iter().zip(&borrows) {
        if let (Some(t), true, Some(slot)) = (&titles[item], b, subjects.get_mut(item))
            && slot.is_empty()
        {
            *slot = t.iter().filter(|w| !w.stop).map(|w| w.stem.to_string()).collect();
        }
    }
    let subjects: &'a [Vec<String>] = subjects;
    on_topic
        .into_iter()
        .zip(borrows)
        .map(|((item, sa, firsts), b)| Sentence {
            item,
            range: sa.range.clone(),
            text: analyses[item].sentence_text(sa),
            analysis: analyses[item],
            sentence: sa,
            subject: if b { &subjects[item] } else { &[] },
            firsts,
        })
        .collect()
}

/// True when the sentence names its item's titled subject by a capitalised word of the
/// title (a surname, a short form) that no other capitalised word precedes.
fn names_part_of_title(words: &[Word], sentence: &str, title_words: &[Word]) -> bool {
    if title_words.len() < 2 {
        return false;
    }
    let in_title = |w: &Word| title_words.iter().any(|t| text::stems_match(&t.stem, &w.stem));
    words.iter().enumerate().any(|(j, w)| {
        let named = w.capitalised && !w.stop && in_title(w) && sentence[w.range.clone()].chars().any(char::is_lowercase);
        let other_name_before = j > 0 && words[j - 1].capitalised && !words[j - 1].stop && !in_title(&words[j - 1]);
        named && !other_name_before
    })
}

/// For each claim content word (by position in `claim.content`), the index of
/// the sentence word it matches, if any.
fn match_words(claim: &ClaimView<'_>, s: &Sentence<'_>) -> Vec<Option<usize>> {
    claim
        .content
        .iter()
        .zip(&s.firsts)
        .map(|(&ci, first)| {
            let stem = &claim.words[ci].stem;
            first.or_else(|| s.subject.iter().any(|t| text::stems_match(stem, t)).then_some(VIA_TITLE))
        })
        .collect()
}

/// Share of the claim's content units (content words, then its numbers and
/// dates) the sentence holds: a matched value counts like a matched word.
fn coverage(claim: &ClaimView<'_>, matches: &[Option<usize>], values: &[bool]) -> f64 {
    coverage_by(claim, matches, values, false)
}

/// [`coverage`], each word weighed by its rarity ([`Rarity::weight`]), values as the rarest
/// word: how much of what the claim says that is particular to it the sentence holds.
fn rare_coverage(claim: &ClaimView<'_>, matches: &[Option<usize>], values: &[bool]) -> f64 {
    coverage_by(claim, matches, values, true)
}

fn coverage_by(claim: &ClaimView<'_>, matches: &[Option<usize>], values: &[bool], weighted: bool) -> f64 {
    let (mut held, mut total) = (0.0, 0.0);
    let value_weight = if weighted { claim.value_weight } else { 1.0 };
    for ((m, o), &w) in matches.iter().zip(&claim.optional).zip(&claim.weights) {
        let w = if weighted { w } else { 1.0 };
        // An unmatched stance word of the claim is neither matched nor missing.
        if m.is_none() && *o {
            continue;
        }
        total += w;
        if m.is_some() {
            held += w;
        }
    }
    for v in values {
        total += value_weight;
        if *v {
            held += value_weight;
        }
    }
    if total == 0.0 { 0.0 } else { held / total }
}

/// True when the sentence speaks of the claim's subject: one of its names, or half the weight
/// of its opening noun phrase. A claim whose subject is a pronoun cannot be checked for it.
fn addresses_subject(claim: &ClaimView<'_>, matches: &[Option<usize>]) -> bool {
    let named = claim.content.iter().zip(matches).any(|(ci, m)| m.is_some() && claim.names.contains(ci));
    match &claim.subject {
        // A pronoun subject cannot be checked; the names it is said with still must be there.
        Subject::Deictic(_) => claim.names.is_empty() || named,
        Subject::Words(ks) if ks.is_empty() => true,
        Subject::Words(ks) => {
            // One of the claim's names, or half the weight of its opening noun phrase.
            let held: f64 = ks.iter().filter(|&&k| matches[k].is_some()).map(|&k| claim.weights[k]).sum();
            let all: f64 = ks.iter().map(|&k| claim.weights[k]).sum();
            named || held * 2.0 >= all
        }
    }
}

/// For each claim value (quantities, then dates), whether the sentence states it.
fn match_values(claim: &ClaimView<'_>, s: &Sentence<'_>) -> Vec<bool> {
    let q = claim.quantities.iter().map(|q| s.quantities().iter().any(|e| number::relate(q, e) == Relation::Agrees));
    let d = claim.dates.iter().map(|d| s.dates().iter().any(|e| date::relate(d, e) != DateRelation::Conflicts && date::comparable(d, e)));
    q.chain(d).collect()
}

/// The evidence item narrowed to one sentence, with the span moved accordingly.
fn cite(evidence: &[Evidence], s: &Sentence<'_>) -> Evidence {
    let ev = &evidence[s.item];
    let mut e = ev.clone();
    e.quote = s.text.to_string();
    e.span = Span::new(ev.span.start + s.range.start, ev.span.start + s.range.end);
    e
}

/// [`cite`], narrowed further to the part `r` of the sentence (a conflicting value or word).
fn cite_part(evidence: &[Evidence], s: &Sentence<'_>, r: &Range<usize>) -> Evidence {
    let mut e = cite(evidence, s);
    let base = evidence[s.item].span.start + s.range.start;
    e.span = Span::new(base + r.start, base + r.end);
    e.quote = s.text[r.clone()].to_string();
    e
}

fn span(r: &Range<usize>) -> Option<Span> {
    Some(Span::new(r.start, r.end))
}

fn reason(facet: &str, rule: &str, detail: String, claim_span: Option<Span>, evidence: Vec<Evidence>) -> Reason {
    Reason { facet: facet.to_string(), detail, claim_span, evidence, rule: rule.to_string() }
}

/// True when a negation cue in `cues` scopes over one of the word indices in `targets`.
/// True when any negation cue has one of `targets` within [`NEGATION_WINDOW`] words after it:
/// the broad reading, used to make sure the *other* text does not also deny the proposition.
fn negation_near(cues: &[Cue], targets: &[usize]) -> bool {
    cues.iter().any(|c| targets.iter().any(|&t| t > c.word && t <= c.word + NEGATION_WINDOW))
}

/// The first negation cue whose head is one of `targets` (word indices into `words`).
/// A negation denies the first content word after it, within [`NEGATION_WINDOW`] words
/// ("does not cause" denies "cause"; "no evidence that X" denies "evidence", not X), so
/// a negated word the other text does not share never flips polarity.
fn negates_any(cues: &[Cue], words: &[Word], targets: &[usize]) -> Option<usize> {
    cues.iter().position(|c| negated_head(c, words).is_some_and(|h| targets.contains(&h)))
}

/// The word a negation cue denies: the first content word after it, within [`NEGATION_WINDOW`],
/// past a verb that hands its truth to what follows it ("never agreed to become an
/// entrepreneur", "did not become a folk hero": [`cues::passes_on`]).
fn negated_head(c: &Cue, words: &[Word]) -> Option<usize> {
    let content = |(i, w): &(usize, &Word)| *i > c.word && !w.stop && w.lower.chars().any(char::is_alphabetic);
    let mut found = words.iter().enumerate().skip(c.word + 1).take(NEGATION_WINDOW + 2).filter(content);
    let first = found.next()?;
    if first.0 > c.word + NEGATION_WINDOW {
        return None;
    }
    let mut head = first;
    while cues::passes_on(&head.1.lower) {
        match found.next() {
            Some(next) => head = next,
            None => break,
        }
    }
    Some(head.0)
}

/// True when a word one side denies is not denied where the other side has it: "cannot be
/// modified by dexamethasone" against "did not demonstrate cytokine storm but ... predicted to be
/// modified by dexamethasone", where the evidence's negation governs another shared word. The
/// claim's denial is shared when the evidence denies any shared word within its reach ("is not an
/// album by Linkin Park" against "an album by Metallica, not Linkin Park").
fn denial_unshared(claim: &ClaimView<'_>, per: &[(&Sentence<'_>, &[Option<usize>])]) -> bool {
    let claim_side = claim.negations.iter().any(|c| {
        let Some(h) = negated_head(c, &claim.words) else { return false };
        if !claim.content.contains(&h) {
            return false;
        }
        let reach: Vec<usize> =
            (0..claim.content.len()).filter(|&k| claim.content[k] > c.word && claim.content[k] <= c.word + NEGATION_WINDOW).collect();
        let held: Vec<(&Sentence<'_>, usize)> =
            per.iter().flat_map(|(s, m)| reach.iter().filter_map(move |&k| m[k].filter(|&p| p != VIA_TITLE).map(|p| (*s, p)))).collect();
        !held.is_empty() && !held.iter().any(|(s, p)| negation_near(s.negations(), &[*p]))
    });
    let evidence_side = per.iter().any(|(s, m)| {
        s.negations()
            .iter()
            .filter_map(|c| negated_head(c, s.words()))
            .any(|h| m.iter().position(|&p| p == Some(h)).is_some_and(|k| !negation_near(&claim.negations, &[claim.content[k]])))
    });
    claim_side || evidence_side
}

/// Run the decision. `analyses[i]` is the analysis of `evidence[i].quote`. With the outcome,
/// whether it can depend on the claim's writing day ([`reads_writing_day`]), from the same
/// reading of the claim. `claim_words` are `text::words(claim_text)`.
pub(crate) fn decide(
    claim_text: &str,
    claim_words: Vec<Word>,
    evidence: &[Evidence],
    analyses: &[&EvidenceAnalysis],
    ctx: &Context<'_>,
) -> (Outcome, bool) {
    let claim = read_claim(claim_text, claim_words, ctx);
    let writing_day = reads_writing_day_of(claim_text, claim.about_now, evidence);
    (decide_read(claim, evidence, analyses, ctx), writing_day)
}

/// [`decide`] on the claim's reading.
fn decide_read(claim: ClaimView<'_>, evidence: &[Evidence], analyses: &[&EvidenceAnalysis], ctx: &Context<'_>) -> Outcome {
    let claim_text = claim.text;
    if claim.content.is_empty() {
        return Outcome {
            status: Status::NotCheckable,
            reasons: vec![reason("topic", "claim.no_content_words", "the claim has no content words to align".into(), None, vec![])],
        };
    }
    let words_to_check = claim.optional.iter().filter(|o| !**o).count();
    if !relevance::checkable(words_to_check, claim.quantities.len() + claim.dates.len()) {
        let left: Vec<&str> = claim
            .content
            .iter()
            .zip(&claim.optional)
            .filter(|(_, o)| !**o)
            .map(|(&ci, _)| &claim.text[claim.words[ci].range.clone()])
            .collect();
        return Outcome {
            status: Status::NotCheckable,
            reasons: vec![reason(
                "topic",
                "claim.not_checkable",
                format!(
                    "past its function words, pronouns and stance words the claim says nothing a note could check ({})",
                    if left.is_empty() { "nothing left".to_string() } else { format!("only {:?}", left.join(" ")) }
                ),
                span(&(0..claim_text.len())),
                vec![],
            )],
        };
    }
    // Fetched text that echoes the claim or was made from a query of it is not evidence.
    let mut refused: Vec<Reason> = Vec::new();
    let admitted: Vec<bool> = evidence
        .iter()
        .map(|e| match admission::refusal(&claim.words, &e.quote, e.source_url.as_deref()) {
            None => true,
            Some(r) => {
                let url = e.source_url.as_deref().unwrap_or("");
                let (rule, why) = match r {
                    Refusal::Echo => ("admission.echoes_claim", "reproduces the claim nearly word for word"),
                    Refusal::QueryPage => ("admission.query_page", "was made from a query of the claim's words"),
                };
                refused.push(reason("admission", rule, format!("the fetched page {url} {why}: not evidence"), None, vec![]));
                false
            }
        })
        .collect();
    let mut subjects = vec![Vec::new(); evidence.len()];
    let mut unread = Vec::new();
    let sentences = read_sentences(&claim, evidence, analyses, &mut subjects, &admitted, ctx.read_all, &mut unread);
    let matches: Vec<Vec<Option<usize>>> = sentences.iter().map(|s| match_words(&claim, s)).collect();
    let values: Vec<Vec<bool>> = sentences.iter().map(|s| match_values(&claim, s)).collect();
    let cov: Vec<f64> = matches.iter().zip(&values).map(|(m, v)| coverage(&claim, m, v)).collect();
    let rare: Vec<f64> = matches.iter().zip(&values).map(|(m, v)| rare_coverage(&claim, m, v)).collect();
    let mut order: Vec<usize> = (0..sentences.len()).collect();
    order.sort_by(|&a, &b| cov[b].total_cmp(&cov[a]).then(rare[b].total_cmp(&rare[a])).then(a.cmp(&b)));
    // On topic: a quarter of the claim's content units, and a quarter of their weight by rarity
    // (common words alone do not make two sentences about the same thing), at least one of
    // them a word (nor does a shared number or date alone), and the claim's own subject.
    // `could_be_on_topic` is an upper bound of this test that `read_sentences` prunes by: a
    // change here must keep it one (the prefilter tests fail otherwise).
    let on_topic = |i: usize| {
        cov[i] >= TOPIC_MIN && rare[i] >= TOPIC_MIN && matches[i].iter().any(Option::is_some) && addresses_subject(&claim, &matches[i])
    };
    let Some(&best) = order.iter().find(|&&b| on_topic(b)) else {
        let mut reasons = vec![reason(
            "topic",
            "align.below_topic_threshold",
            format!("no evidence sentence speaks of the claim's subject with {:.0}% of the weight of its content words", TOPIC_MIN * 100.0),
            span(&(0..claim_text.len())),
            vec![],
        )];
        reasons.append(&mut refused);
        return Outcome { status: Status::NoEvidence, reasons };
    };

    // 3. Conflicts in the aligned sentences, in a shared scope.
    let aligned: Vec<usize> = order.iter().copied().filter(|&i| cov[i] >= ALIGN_MIN && on_topic(i)).collect();
    let mut conflicts: Vec<Reason> = Vec::new();
    let mut conflicting: Option<usize> = None;
    let mut out_of_scope: Vec<Reason> = Vec::new();
    for &i in &aligned {
        let s = &sentences[i];
        // A claim quantity the same item states in another of its sentences is accounted for there:
        // the item speaks of two quantities ("at 80% and above" ... "at the 90% level"), and a
        // value in one of them does not contradict what the item itself states.
        let item_states = |q: &Quantity| {
            sentences.iter().any(|o| o.item == s.item && o.quantities().iter().any(|e| number::relate(q, e) == Relation::Agrees))
                || unread.iter().any(|o| o.item == s.item && o.states(q))
        };
        if let Some(r) = conflict_in(&claim, s, &matches[i], cov[i], evidence, &item_states) {
            match scope_difference(&claim, s, &r, evidence, ctx) {
                Some(why) => {
                    if out_of_scope.is_empty() {
                        out_of_scope.push(why);
                    }
                }
                None => {
                    conflicts.push(r);
                    conflicts.push(proposition(&claim, s, &matches[i], evidence));
                    conflicting = Some(i);
                    break;
                }
            }
        }
    }

    // 4. Support from the best sentence, or from up to MAX_JOINT on-topic sentences of the same
    // item together, added greedily by the coverage each one adds (a claim can rest on a few
    // sentences of a page, never on sentences of unrelated notes).
    let same_item = |j: usize| {
        let (a, b) = (&evidence[sentences[j].item].uri, &evidence[sentences[best].item].uri);
        sentences[j].item == sentences[best].item || a.item == b.item
    };
    let mut candidates: Vec<Vec<usize>> = vec![vec![best]];
    let mut current = vec![best];
    while current.len() < MAX_JOINT {
        let now = joint_cov(&claim, &matches, &values, &current, None);
        let next = order
            .iter()
            .copied()
            .filter(|&j| !current.contains(&j) && on_topic(j) && same_item(j))
            .map(|j| (joint_cov(&claim, &matches, &values, &current, Some(j)), j))
            .filter(|(c, _)| *c > now)
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        let Some((_, j)) = next else { break };
        current.push(j);
        candidates.push(current.clone());
    }
    let mut best_partial: Option<(f64, Vec<Reason>)> = None;
    for cand in &candidates {
        // A sentence that conflicts with the claim cannot also be what entails it.
        if conflicting.is_some_and(|c| cand.contains(&c)) {
            continue;
        }
        let joint: Vec<Option<usize>> = (0..claim.content.len()).map(|k| cand.iter().find_map(|&i| matches[i][k])).collect();
        let joint_values: Vec<bool> = (0..values[best].len()).map(|k| cand.iter().any(|&i| values[i][k])).collect();
        let c = coverage(&claim, &joint, &joint_values);
        if fills_a_hole(&claim, &sentences, &matches, cand) {
            if best_partial.as_ref().is_none_or(|(bc, _)| c > *bc) {
                let detail =
                    "another sentence supplies a claim word where the closest sentence has a word of its own: it says something else there"
                        .to_string();
                best_partial = Some((c, vec![reason("topic", "align.hole_filled", detail, None, vec![])]));
            }
            continue;
        }
        let check = facets(&claim, cand.iter().map(|&i| (&sentences[i], matches[i].as_slice())).collect(), &joint, c, evidence);
        match check {
            Facets::Entails { lowered } => {
                let cited: Vec<Evidence> = cand.iter().map(|&i| cite(evidence, &sentences[i])).collect();
                if !conflicts.is_empty() {
                    let mut reasons = vec![reason(
                        "topic",
                        "align.sources_disagree",
                        "one evidence sentence entails the claim and another conflicts with it".into(),
                        span(&(0..claim_text.len())),
                        cited,
                    )];
                    reasons.append(&mut conflicts);
                    return Outcome { status: Status::Ambiguous, reasons };
                }
                if lowered.is_empty() {
                    let mut reasons = vec![reason(
                        "topic",
                        "align.entails",
                        format!(
                            "{:.0}% of the claim's content words aligned; every number, date and name matched; same polarity",
                            c * 100.0
                        ),
                        span(&(0..claim_text.len())),
                        cited.clone(),
                    )];
                    if let Some(r) = stance_reason(&claim) {
                        reasons.push(r);
                    }
                    reasons.push(proposition(&claim, &sentences[best], &joint, evidence));
                    if let Some(r) = staleness(&claim, &cited, ctx) {
                        reasons.insert(0, r);
                        return Outcome { status: Status::Stale, reasons };
                    }
                    return Outcome { status: Status::Supported, reasons };
                }
                return Outcome { status: Status::PartiallySupported, reasons: lowered };
            }
            Facets::Missing(reasons) => {
                if best_partial.as_ref().is_none_or(|(bc, _)| c > *bc) {
                    best_partial = Some((c, reasons));
                }
            }
        }
    }
    if !conflicts.is_empty() {
        return Outcome { status: Status::Contradicted, reasons: conflicts };
    }
    let (c, missing) = best_partial.unwrap_or((cov[best], vec![]));
    let partial = c >= ALIGN_MIN && claim.content.len() >= 2 && out_of_scope.is_empty();
    let status = if partial { Status::PartiallySupported } else { Status::NotAddressed };
    let mut reasons = out_of_scope;
    reasons.push(reason(
        "topic",
        if status == Status::PartiallySupported { "align.partial" } else { "align.topical_only" },
        format!("the closest evidence sentence holds {:.0}% of the weight of the claim's content words", cov[best] * 100.0),
        span(&(0..claim_text.len())),
        vec![cite(evidence, &sentences[best])],
    ));
    reasons.extend(missing);
    reasons.append(&mut refused);
    Outcome { status, reasons }
}

/// Why a conflict between the claim and sentence `s` does not count: the two do not share a
/// scope. The claim's subject is a pronoun or a demonstrative only its conversation resolves
/// ("He is not expected to play" against another "he"), or either side places the proposition
/// at a time relative to its writing ("just Tuesday", "this week") and the two were not
/// written on the same known day.
fn scope_difference(
    claim: &ClaimView<'_>,
    s: &Sentence<'_>,
    conflict: &Reason,
    evidence: &[Evidence],
    ctx: &Context<'_>,
) -> Option<Reason> {
    if let Subject::Deictic(r) = &claim.subject {
        return Some(reason(
            "scope",
            "scope.subject_unnamed",
            format!(
                "the claim's subject {:?} is named only in its conversation, so the evidence cannot be shown to speak of the same one",
                &claim.text[r.clone()]
            ),
            span(r),
            vec![cite(evidence, s)],
        ));
    }
    let personal = s.words().first().is_some_and(|w| matches!(w.lower.as_str(), "he" | "she" | "it" | "they"));
    if personal && s.subject.is_empty() {
        let first = s.words().first().map(|w| &s.text[w.range.clone()]).unwrap_or("");
        return Some(reason(
            "scope",
            "scope.evidence_subject_unnamed",
            format!("the evidence's subject {first:?} is not named in its item, so it cannot be shown to be the claim's"),
            None,
            vec![cite(evidence, s)],
        ));
    }
    // Two windows of time ("over the past 30 years" against "within the past 50 years") are two
    // scopes of the proposition, not two values of it.
    if conflict.facet == "number" {
        let claim_window = conflict
            .claim_span
            .and_then(|c| claim.quantities.iter().find(|q| q.range.start == c.start))
            .is_some_and(|q| scope::time_window(claim.text, q));
        let base = evidence[s.item].span.start + s.range.start;
        let ev_window = conflict
            .evidence
            .get(1)
            .and_then(|e| s.quantities().iter().find(|q| q.range.start + base == e.span.start))
            .is_some_and(|q| scope::time_window(s.text, q));
        if claim_window || ev_window {
            return Some(reason(
                "scope",
                "scope.period_differs",
                "the claim and the evidence state the proposition over different windows of time".into(),
                None,
                vec![cite(evidence, s)],
            ));
        }
    }
    // A quantity changes over time: the evidence's figure for a period stated in its clause
    // ("revenue was up 12% from Q4 2024") is not the undated claim's ("revenues were only up
    // 9%"); a date in another clause ("$1.2 million, approved in January 2025") dates something else.
    let base = evidence[s.item].span.start + s.range.start;
    let value = conflict.evidence.get(1).map(|e| e.span.start.saturating_sub(base)..e.span.end.saturating_sub(base));
    let same_clause = |d: &Date| {
        value.as_ref().is_some_and(|v| {
            let (a, b) = if d.range.start < v.start { (d.range.end, v.start) } else { (v.end, d.range.start) };
            s.text.get(a.min(b)..b.max(a)).is_some_and(|gap| {
                let gap = gap.to_lowercase();
                // Punctuation or a coordinating word starts another predicate ("opened in 2019 and has 42 employees").
                !gap.contains([',', ';', ':', '(', ')'])
                    && !amem_text::tokens::words_of(&gap, amem_text::tokens::WordRule::Alphanumeric)
                        .any(|w| matches!(w, "and" | "but" | "while" | "which" | "who" | "whereas"))
            })
        })
    };
    if conflict.facet == "number"
        && claim.dates.is_empty()
        && let Some(d) = s.dates().iter().find(|d| same_clause(d))
    {
        return Some(reason(
            "scope",
            "scope.time_unstated",
            format!("the evidence states the quantity for {:?}; the claim says for when, not", &s.text[d.range.clone()]),
            None,
            vec![cite(evidence, s)],
        ));
    }
    // A dated claim's quantity against the evidence's quantity for another time in its clause
    // ("the 18 warmest years have occurred since 2000" against "the thirteen warmest years have
    // all occurred since 1998"): two times, two facts.
    let claim_dated = |d: &Date| claim.dates.iter().any(|c| date::comparable(c, d) && date::relate(c, d) != DateRelation::Conflicts);
    if conflict.facet == "number"
        && !claim.dates.is_empty()
        && let Some(d) = s.dates().iter().find(|d| same_clause(d) && !claim_dated(d))
    {
        return Some(reason(
            "scope",
            "scope.time_differs",
            format!("the evidence states the quantity for {:?}, another time than the claim's", &s.text[d.range.clone()]),
            None,
            vec![cite(evidence, s)],
        ));
    }
    // A relative date of the claim resolved against its writing day ("yesterday" sent on
    // 8 May is 7 May) is compared as that day: a date conflict with it shares the scope.
    if conflict.facet == "date" && claim.dates.iter().any(|d| d.relative) {
        return None;
    }
    let ev = &evidence[s.item];
    // A fetched page's retrieval day is when it was read; a note's index time says nothing of
    // when it was written, so a note's relative time is unanchored.
    let ev_day = ev.source_url.as_ref().and(ev.captured_at.as_deref()).and_then(|t| t.get(..10));
    let ev_time = scope::relative_time(s.words());
    let diff = scope::time_difference(claim.relative_time.as_ref(), ctx.sent_on, ev_time.as_ref(), ev_day)?;
    let side = match (&claim.relative_time, &ev_time) {
        (Some(c), Some(e)) => format!("the claim's {:?} and the evidence's {:?}", &claim.text[c.clone()], &s.text[e.clone()]),
        (Some(c), None) => format!("the claim's {:?}", &claim.text[c.clone()]),
        (None, Some(e)) => format!("the evidence's {:?}", &s.text[e.clone()]),
        (None, None) => String::new(),
    };
    let (rule, detail) = match diff {
        TimeScope::Unanchored => {
            ("scope.time_unanchored", format!("{side} is relative to when it was written, and that day is not known on both sides"))
        }
        TimeScope::Differs => (
            "scope.time_differs",
            format!("{side} is relative to when it was written: {} against {}", ctx.sent_on.unwrap_or("?"), ev_day.unwrap_or("?")),
        ),
    };
    Some(reason("scope", rule, detail, claim.relative_time.as_ref().and_then(span), vec![cite(evidence, s)]))
}

/// The proposition a verdict rests on: the claim's words the sentence holds, in claim order,
/// with its subject named.
fn proposition(claim: &ClaimView<'_>, s: &Sentence<'_>, m: &[Option<usize>], evidence: &[Evidence]) -> Reason {
    let held: Vec<&str> =
        claim.content.iter().zip(m).filter(|(_, m)| m.is_some()).map(|(&ci, _)| &claim.text[claim.words[ci].range.clone()]).collect();
    let subject = match &claim.subject {
        Subject::Deictic(r) => claim.text[r.clone()].to_string(),
        Subject::Words(ks) => ks.iter().map(|&k| &claim.text[claim.words[claim.content[k]].range.clone()]).collect::<Vec<_>>().join(" "),
    };
    let first = claim.content.iter().zip(m).find(|(_, m)| m.is_some()).map(|(&ci, _)| claim.words[ci].range.start);
    let last = claim.content.iter().zip(m).filter(|(_, m)| m.is_some()).map(|(&ci, _)| claim.words[ci].range.end).next_back();
    reason(
        "proposition",
        "proposition.shared",
        format!("subject {:?}; shared: {}", subject, held.join(" ")),
        first.zip(last).map(|(a, b)| Span::new(a, b)),
        vec![cite(evidence, s)],
    )
}

/// A claim about the present ("now", "currently", "today") supported by evidence written a
/// year or more away from the claim is `stale`: the evidence says what held then. A note's
/// time is when it was written (`written_at`: its front matter's date, else its file's
/// modification time), a fetched page's when it was fetched (`captured_at`).
fn staleness(claim: &ClaimView<'_>, cited: &[Evidence], ctx: &Context<'_>) -> Option<Reason> {
    if !claim.about_now {
        return None;
    }
    let sent = day_number(ctx.sent_on?)?;
    let (e, days) = cited.iter().find_map(|e| {
        let d = day_number(e.written_at.as_deref().or(e.captured_at.as_deref())?)?;
        ((d - sent).abs() >= 365).then_some((e, d - sent))
    })?;
    Some(reason(
        "time",
        "time.evidence_years_apart",
        format!(
            "the claim speaks of its present ({}), the evidence was written {} days {} it",
            ctx.sent_on.unwrap_or(""),
            days.abs(),
            if days < 0 { "before" } else { "after" }
        ),
        None,
        vec![e.clone()],
    ))
}

/// Days since the epoch of a `YYYY-MM-DD...` string.
fn day_number(t: &str) -> Option<i64> {
    let d: jiff::civil::Date = t.get(..10)?.parse().ok()?;
    Some(i64::from(d.since(jiff::civil::date(1970, 1, 1)).ok()?.get_days()))
}

/// A note that the claim's stance cues were read as the speaker's stance and not aligned.
fn stance_reason(claim: &ClaimView<'_>) -> Option<Reason> {
    let first = claim.stance.first()?;
    let cues: Vec<String> = claim.stance.iter().map(|r| format!("{:?}", &claim.text[r.clone()])).collect();
    Some(reason(
        "stance",
        "stance.claim_cues",
        format!(
            "the claim's stance ({}) is the speaker's and was not matched as content; the evidence states the proposition",
            cues.join(", ")
        ),
        span(first),
        vec![],
    ))
}

/// Most words between two claim words in the sentence that a hole between them can be said to sit in.
const SLOT_SPAN: usize = 6;

/// True when sentences joined to support a claim fill a slot of the closest one: another
/// sentence supplies a claim word that sits, in the claim, between two words the closest sentence
/// holds close together, and the closest sentence has a word of its own in that place
/// ("leronlimab has *induced* the cytokine storm" from "Leronlimab Has Significantly *Reduced* the
/// Cytokine Storm" and "leronlimab induced significant reductions"). The closest sentence then
/// says something else there, so the two do not state one proposition together; sentences that
/// each hold their own stretch of the claim ("X, born in 1950," and "X died in Paris") do.
fn fills_a_hole(claim: &ClaimView<'_>, sentences: &[Sentence<'_>], matches: &[Vec<Option<usize>>], cand: &[usize]) -> bool {
    let Some(&best) = cand.first() else { return false };
    if cand.len() < 2 {
        return false;
    }
    let held = |k: usize| matches[best][k].filter(|&p| p != VIA_TITLE);
    let words = sentences[best].words();
    let claim_has = |w: &Word| claim.content.iter().any(|&ci| text::stems_match(&claim.words[ci].stem, &w.stem));
    let checked: Vec<usize> = (0..claim.content.len()).filter(|&k| !claim.optional[k]).collect();
    checked.iter().enumerate().any(|(at, &k)| {
        if matches[best][k].is_some() || !cand.iter().any(|&i| matches[i][k].is_some()) {
            return false;
        }
        let before = checked[..at].iter().rev().find_map(|&j| held(j));
        let after = checked[at + 1..].iter().find_map(|&j| held(j));
        let (Some(p1), Some(p2)) = (before, after) else { return false };
        p1 < p2
            && p2 - p1 <= SLOT_SPAN
            && words[p1 + 1..p2].iter().any(|w| !w.stop && w.lower.chars().any(char::is_alphabetic) && !claim_has(w))
    })
}

/// [`coverage`] of the sentences `set` (and `extra`) taken together: a unit counts as matched
/// when any of them matches it. Counted in place, as this runs for every candidate of every
/// greedy step.
fn joint_cov(claim: &ClaimView<'_>, matches: &[Vec<Option<usize>>], values: &[Vec<bool>], set: &[usize], extra: Option<usize>) -> f64 {
    let Some(first) = set.first().copied().or(extra) else { return 0.0 };
    let members = || set.iter().copied().chain(extra);
    let (mut matched, mut skipped) = (0usize, 0usize);
    for (k, _) in matches[first].iter().enumerate() {
        if members().any(|i| matches[i][k].is_some()) {
            matched += 1;
        } else if claim.optional.get(k) == Some(&true) {
            skipped += 1;
        }
    }
    let stated = (0..values[first].len()).filter(|&k| members().any(|i| values[i][k])).count();
    let total = matches[first].len() + values[first].len() - skipped;
    if total == 0 {
        return 0.0;
    }
    (matched + stated) as f64 / total as f64
}

enum Facets {
    /// Everything matched; `lowered` lists hedge/scope reasons that make it partial.
    Entails { lowered: Vec<Reason> },
    /// Some facet is missing; the reasons name it.
    Missing(Vec<Reason>),
}

/// Check every facet of the claim against the candidate sentences taken together.
fn facets(
    claim: &ClaimView<'_>,
    per: Vec<(&Sentence<'_>, &[Option<usize>])>,
    joint: &[Option<usize>],
    c: f64,
    evidence: &[Evidence],
) -> Facets {
    let sents: Vec<&Sentence<'_>> = per.iter().map(|(s, _)| *s).collect();
    let mut missing = Vec::new();
    let mut lowered = Vec::new();
    let cited = |s: &Sentence<'_>| vec![cite(evidence, s)];
    if c < SUPPORT_MIN {
        let absent: Vec<&str> = claim
            .content
            .iter()
            .zip(joint)
            .zip(&claim.optional)
            .filter(|((_, m), o)| m.is_none() && !**o)
            .map(|((&ci, _), _)| &claim.text[claim.words[ci].range.clone()])
            .collect();
        // Every word the claim must have is there, but too few of all its
        // words: say that, never an empty list.
        let detail = if absent.is_empty() {
            format!("{:.0}% of the claim's content words aligned, under the {:.0}% that support needs", c * 100.0, SUPPORT_MIN * 100.0)
        } else {
            format!("claim words not found in the evidence: {}", absent.join(", "))
        };
        missing.push(reason("topic", "align.content_missing", detail, None, vec![]));
    }
    for (k, &ci) in claim.content.iter().enumerate() {
        if claim.names.contains(&ci) && joint[k].is_none() {
            let w = &claim.words[ci];
            missing.push(reason(
                "entity",
                "entity.not_found",
                format!("the name {:?} is not in the evidence", &claim.text[w.range.clone()]),
                span(&w.range),
                vec![],
            ));
        }
    }
    for q in &claim.quantities {
        let found = sents.iter().find_map(|s| s.quantities().iter().find(|e| number::relate(q, e) == Relation::Agrees).map(|e| (*s, e)));
        if found.is_none() {
            missing.push(reason(
                "number",
                "number.not_found",
                format!("{:?} is not stated with that value and anchor in the evidence", &claim.text[q.range.clone()]),
                span(&q.range),
                vec![],
            ));
        }
    }
    for d in &claim.dates {
        let mut best: Option<(DateRelation, &Sentence<'_>)> = None;
        for s in &sents {
            for e in s.dates() {
                let r = date::relate(d, e);
                let better = r == DateRelation::Agrees || (r == DateRelation::Coarser && best.is_none());
                if better {
                    best = Some((r, s));
                }
            }
        }
        match best {
            Some((DateRelation::Agrees, _)) => {}
            Some((_, s)) => lowered.push(reason(
                "date",
                "date.evidence_coarser",
                format!("the evidence dates it less precisely than the claim's {:?}", &claim.text[d.range.clone()]),
                span(&d.range),
                cited(s),
            )),
            None => missing.push(reason(
                "date",
                "date.not_found",
                format!("the date {:?} is not in the evidence", &claim.text[d.range.clone()]),
                span(&d.range),
                vec![],
            )),
        }
    }
    // Polarity of the aligned words.
    let claim_targets: Vec<usize> = claim.content.iter().zip(joint).filter(|(_, m)| m.is_some()).map(|(&ci, _)| ci).collect();
    let claim_neg = negates_any(&claim.negations, &claim.words, &claim_targets).is_some();
    let claim_near = negation_near(&claim.negations, &claim_targets);
    let (mut ev_neg, mut ev_near) = (false, false);
    for (s, m) in &per {
        let targets: Vec<usize> = m.iter().flatten().copied().collect();
        ev_neg |= negates_any(s.negations(), s.words(), &targets).is_some();
        ev_near |= negation_near(s.negations(), &targets);
    }
    // Support needs the same polarity around the shared words: a negation near them on one side
    // only ("offers no benefit in preventing" against "appears to prevent") leaves it unclear.
    if (claim_neg && !ev_near) || (ev_neg && !claim_near) || claim_near != ev_near || denial_unshared(claim, &per) {
        missing.push(reason("polarity", "polarity.differs", "the claim and the evidence differ in negation".into(), None, vec![]));
    }
    missing.extend(UNSTATED_FACET_RULES.iter().filter_map(|rule| rule(claim, &per, evidence)));
    if !missing.is_empty() {
        return Facets::Missing(missing);
    }
    // The first evidence sentence carrying a cue of a kind the claim lacks lowers the verdict, citing it.
    let first_cue = |cues_of: for<'s> fn(&Sentence<'s>) -> &'s [Cue]| sents.iter().find_map(|s| cues_of(s).first().map(|c| (*s, c)));
    if !claim.hedged
        && let Some((s, h)) = first_cue(|s| s.hedges())
    {
        let detail = format!("the evidence is hedged ({:?}) where the claim is flat", &s.text[h.range.clone()]);
        lowered.push(reason("hedge", "hedge.evidence_hedged", detail, None, cited(s)));
    }
    if !claim.hearsay {
        for (s, m) in &per {
            // Hearsay relays what follows it: it lowers the verdict only when the claim's words are in its reach.
            let relays = |c: &&Cue| m.iter().flatten().any(|&w| w > c.word && w <= c.word + HEARSAY_WINDOW);
            if let Some(h) = s.hearsay().iter().find(relays) {
                lowered.push(reason(
                    "attribution",
                    "attribution.evidence_relays",
                    format!("the evidence relays it as hearsay ({:?}) where the claim asserts it", &s.text[h.range.clone()]),
                    None,
                    cited(s),
                ));
                break;
            }
        }
    }
    if !claim.scoped
        && let Some((s, sc)) = first_cue(|s| s.scopes())
    {
        let detail = format!("the evidence is scoped ({:?}) where the claim is general", &s.text[sc.range.clone()]);
        lowered.push(reason("scope", "scope.evidence_narrower", detail, None, cited(s)));
    }
    Facets::Entails { lowered }
}
