//! The checks that tell a shared proposition from a conflicting one: a value, a rank, a
//! direction, a polarity, an antonym, a name or a nationality that the evidence gives where the
//! claim gives another, and the facets (an unstated value or direction) that keep a sentence from
//! supporting. Split from the alignment (`super`) by responsibility: these read one claim against
//! one aligned sentence; the parent decides the status.

use super::*;
use crate::text::{is_article, is_copula};

/// A claim word the evidence has only as the unit or the counted noun of a number, when the claim
/// gives it no number: "marketed in only one country" against "marketed in over 180 countries",
/// "one-minute test kits" against "in ten minutes". The evidence states a value the claim does not
/// (or one the claim spells in a way not read as a number), so the claim is not entailed as it stands.
pub(super) fn value_unstated(claim: &ClaimView<'_>, per: &[(&Sentence<'_>, &[Option<usize>])], evidence: &[Evidence]) -> Option<Reason> {
    if !claim.quantities.is_empty() {
        return None;
    }
    for (s, m) in per {
        for (k, p) in m.iter().enumerate() {
            let Some(p) = p.filter(|&p| p != VIA_TITLE) else { continue };
            let r = &s.words()[p].range;
            let w = &s.words()[p];
            let counts = |q: &Quantity| {
                let inside = q.range.start <= r.start && r.end <= q.range.end;
                // the counted noun right after the number, plural ("180 countries"; not the label
                // of "Phase 1 COVID-19 trial" or "a Formula 1 driver")
                let plural = w.lower.ends_with('s') && w.lower != w.stem;
                let after = plural
                    && q.anchor.as_deref().is_some_and(|a| text::stems_match(a, &w.stem))
                    && s.text
                        .get(q.range.end..r.start)
                        .is_some_and(|gap| gap.split_whitespace().count() <= 1 && !gap.contains([',', ';', '.']));
                !q.is_year && (inside || after)
            };
            let Some(q) = s.quantities().iter().find(|q| counts(q)) else { continue };
            let detail = format!(
                "the evidence states {:?} where the claim gives {:?} no number",
                &s.text[q.range.clone()],
                &claim.text[claim.words[claim.content[k]].range.clone()]
            );
            return Some(reason("number", "number.value_unstated", detail, None, vec![cite(evidence, s)]));
        }
    }
    None
}

/// A claim of two words says little beyond their co-occurrence, so the two must be said together:
/// not on either side of a colon or a semicolon, which part two statements ("Trump was not
/// confused or inadequately briefed: He flat-out lied, repeatedly, about science" for "Trump is
/// about science").
pub(super) fn apart_in_short_claim(
    claim: &ClaimView<'_>,
    per: &[(&Sentence<'_>, &[Option<usize>])],
    evidence: &[Evidence],
) -> Option<Reason> {
    let checked: Vec<usize> = (0..claim.content.len()).filter(|&k| !claim.optional[k]).collect();
    if checked.len() > 2 || !claim.quantities.is_empty() || !claim.dates.is_empty() {
        return None;
    }
    let [(s, m)] = per else { return None };
    let at: Vec<usize> = checked.iter().filter_map(|&k| m[k].filter(|&p| p != VIA_TITLE)).map(|p| s.words()[p].range.start).collect();
    let (&lo, &hi) = (at.iter().min()?, at.iter().max()?);
    s.text.get(lo..hi).filter(|gap| gap.contains([':', ';'])).map(|_| {
        reason(
            "topic",
            "align.statements_apart",
            "the claim's two words are in two statements of the sentence (a colon or a semicolon between them)".into(),
            None,
            vec![cite(evidence, s)],
        )
    })
}

/// The content word a rank is said of: the first content word after the ordinal, within three words.
fn ranked_word(words: &[Word], ordinal: usize) -> Option<usize> {
    (ordinal + 1..words.len().min(ordinal + 4)).find(|&i| !words[i].stop && words[i].lower.chars().any(char::is_alphabetic))
}

/// True when the sentence ranks the claim word `ranked` (a claim word index) with `ordinal`.
fn ranks(claim: &ClaimView<'_>, s: &Sentence<'_>, ordinal: &str, ranked: usize) -> bool {
    let sw = s.words();
    sw.iter()
        .enumerate()
        .any(|(j, w)| w.lower == ordinal && ranked_word(sw, j).is_some_and(|r| text::stems_match(&sw[r].stem, &claim.words[ranked].stem)))
}

/// A rank that does not carry over: the claim's ordinal said of another word in the evidence ("the
/// second confirmed case" against "infected a second time"), or the evidence ranking a superlative the
/// claim states bare ("the largest planet" against "the second-largest").
pub(super) fn rank_unshared(claim: &ClaimView<'_>, per: &[(&Sentence<'_>, &[Option<usize>])], evidence: &[Evidence]) -> Option<Reason> {
    for &ci in &claim.content {
        let w = &claim.words[ci];
        if !cues::is_ordinal(&w.lower) {
            continue;
        }
        let Some(ranked) = ranked_word(&claim.words, ci) else { continue };
        if !per.iter().any(|(s, _)| ranks(claim, s, &w.lower, ranked)) {
            let detail = format!(
                "the evidence does not rank {:?} {:?}",
                &claim.text[w.range.clone()],
                &claim.text[claim.words[ranked].range.clone()]
            );
            return Some(reason("entity", "rank.not_found", detail, span(&w.range), vec![]));
        }
    }
    for (s, m) in per {
        let sw = s.words();
        for (j, w) in sw.iter().enumerate() {
            let next = j + 1;
            if !cues::is_ordinal(&w.lower) || !sw.get(next).is_some_and(|n| cues::is_superlative(&n.lower)) {
                continue;
            }
            let Some(k) = m.iter().position(|&p| p == Some(next)) else { continue };
            let ci = claim.content[k];
            if ci > 0 && cues::is_ordinal(&claim.words[ci - 1].lower) {
                continue;
            }
            let detail = format!(
                "the evidence says {:?} where the claim says {:?}",
                &s.text[w.range.start..sw[next].range.end],
                &claim.text[claim.words[ci].range.clone()]
            );
            return Some(reason("entity", "rank.evidence_ranks", detail, span(&claim.words[ci].range), vec![cite(evidence, s)]));
        }
    }
    None
}

/// A direction the evidence gives a shared word and the claim does not: "reduced pneumonia risk"
/// against "sauna use is pneumonia risk". A claim that states a direction anywhere is compared by its
/// antonyms instead.
pub(super) fn direction_unstated(
    claim: &ClaimView<'_>,
    per: &[(&Sentence<'_>, &[Option<usize>])],
    evidence: &[Evidence],
) -> Option<Reason> {
    if claim.words.iter().any(|w| !w.stop && cues::is_direction(&w.lower)) {
        return None;
    }
    for (s, m) in per {
        let sw = s.words();
        for &p in m.iter().flatten() {
            if p == VIA_TITLE || p == 0 {
                continue;
            }
            let before = &sw[p - 1];
            if before.stop || !cues::is_direction(&before.lower) || m.contains(&Some(p - 1)) {
                continue;
            }
            let detail =
                format!("the evidence says {:?}, a direction the claim does not state", &s.text[before.range.start..sw[p].range.end]);
            return Some(reason("polarity", "polarity.direction_unstated", detail, None, vec![cite(evidence, s)]));
        }
    }
    None
}

/// One claim against one aligned sentence, with what the conflict rules share, computed once.
pub(super) struct Aligned<'a> {
    claim: &'a ClaimView<'a>,
    s: &'a Sentence<'a>,
    /// For each claim content word, the sentence word it matched.
    m: &'a [Option<usize>],
    /// For each claim content word, a given name the sentence leaves off a surname it holds
    /// ([`given_names_left_off`]): it stands for the same person, so it counts as held.
    excused: Vec<bool>,
    /// The share of the claim the sentence holds, excused names counted.
    cov: f64,
    evidence: &'a [Evidence],
    /// True when another sentence of the same item states the claim's quantity.
    item_states: &'a dyn Fn(&Quantity) -> bool,
    /// Claim words that must be held (not optional).
    checked: usize,
    /// Claim words the sentence lacks (not optional, not excused).
    missing: usize,
    /// The same, a name of several words missing whole counted once ("Fort Lauderdale").
    missing_units: usize,
}

impl<'a> Aligned<'a> {
    fn new(
        claim: &'a ClaimView<'a>,
        s: &'a Sentence<'a>,
        m: &'a [Option<usize>],
        cov: f64,
        evidence: &'a [Evidence],
        item_states: &'a dyn Fn(&Quantity) -> bool,
    ) -> Aligned<'a> {
        let excused = given_names_left_off(claim, s, m);
        let units =
            m.len() - claim.optional.iter().zip(m).filter(|(o, x)| **o && x.is_none()).count() + claim.quantities.len() + claim.dates.len();
        let cov = cov + excused.iter().filter(|e| **e).count() as f64 / units.max(1) as f64;
        let unheld = |k: usize| m[k].is_none() && !claim.optional[k] && !excused[k];
        let missing_units = (0..m.len())
            .filter(|&k| unheld(k))
            .filter(|&k| {
                let (ci, prev) = (claim.content[k], k.checked_sub(1));
                let joined = prev.is_some_and(|p| {
                    m[p].is_none() && claim.names.contains(&claim.content[p]) && claim.names.contains(&ci) && claim.content[p] + 1 == ci
                });
                !joined
            })
            .count();
        let checked = claim.optional.iter().filter(|o| !**o).count();
        let missing = (0..m.len()).filter(|&k| unheld(k)).count();
        Aligned { claim, s, m, excused, cov, evidence, item_states, checked, missing, missing_units }
    }

    /// The sentence cited whole, then the conflicting value's own bytes inside it.
    fn cited(&self, r: &Range<usize>) -> Vec<Evidence> {
        let mut e = cite(self.evidence, self.s);
        let base = self.evidence[self.s.item].span.start + self.s.range.start;
        e.span = Span::new(base + r.start, base + r.end);
        e.quote = self.s.text[r.clone()].to_string();
        vec![cite(self.evidence, self.s), e]
    }

    /// An evidence value that states one of the claim's values is accounted for and cannot
    /// also conflict with another ("held in 2018, and again in November 2019" against "4 November 2019").
    fn quantity_used(&self, e: &Quantity) -> bool {
        self.claim.quantities.iter().any(|q| number::relate(q, e) == Relation::Agrees)
    }

    /// [`Aligned::quantity_used`] for dates.
    fn date_used(&self, e: &Date) -> bool {
        self.claim.dates.iter().any(|d| date::comparable(d, e) && date::relate(d, e) != DateRelation::Conflicts)
    }

    /// The claim word a value at `at` is bound to, as written (empty when none).
    fn binder(&self, at: usize) -> &'a str {
        let claim = self.claim;
        bound_word(&claim.words, claim.text, at).map_or("", |b| &claim.text[claim.words[b].range.clone()])
    }

    /// The one content word the sentence lacks is a name swapped for another in the same slot
    /// only in a claim of three words or more: with more missing, the sentence may well be about
    /// something else, and names have aliases ("Al Kurtenbach" for "Aelred Kurtenbach").
    fn one_missing(&self) -> bool {
        self.missing_units == 1 && self.m.len() >= 3
    }
}

/// A conflict rule: one claim against one aligned sentence, a reason when they conflict.
type ConflictRule = fn(&Aligned<'_>) -> Option<Reason>;

/// The conflict rules, in the order they are asked; the first that finds a conflict decides.
/// Values first (bound to a shared word, then plain), then ranks, a swapped name or nationality,
/// the frame's other readings, and last polarity and antonyms.
const CONFLICT_RULES: [ConflictRule; 17] = [
    bound_number_differs,
    bound_date_differs,
    number_differs,
    date_differs,
    rank_conflict,
    name_substitution,
    nationality_substitution,
    role_differs,
    place_differs,
    month_differs,
    comparison_ranked_otherwise,
    outside_against_in,
    exclusive_slot_differs,
    agent_kind_differs,
    kind_differs,
    polarity_conflict,
    antonym_conflict,
];

/// A conflict between the claim and one aligned sentence: a value, a date, a name, a rank or
/// the polarity ([`CONFLICT_RULES`]).
pub(super) fn conflict_in(
    claim: &ClaimView<'_>,
    s: &Sentence<'_>,
    m: &[Option<usize>],
    cov: f64,
    evidence: &[Evidence],
    item_states: &dyn Fn(&Quantity) -> bool,
) -> Option<Reason> {
    let aligned = Aligned::new(claim, s, m, cov, evidence, item_states);
    CONFLICT_RULES.iter().find_map(|rule| rule(&aligned))
}

/// A value bound to a shared word ("born on 22 November 1968", "grossed more than $1 million")
/// against the value the sentence binds to that word ("born 22 November 1948 ... after graduating
/// on 22 November 1968", "grossed $181,674 on a budget of $160 million"): the sentence's other
/// value is said of something else. Read only where the sentence states the claim's value
/// somewhere: elsewhere the plain comparison ([`number_differs`]) decides.
fn bound_number_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s) = (a.claim, a.s);
    for q in &claim.quantities {
        if !s.quantities().iter().any(|e| number::relate(q, e) == Relation::Agrees) {
            continue;
        }
        // The bound value must be one the claim does not state itself: a sentence giving both
        // of the claim's values to one word ("reading was 1273/1592") restates the claim.
        let Some(e) = bound_value(claim, &q.range, s, s.quantities(), |e| &e.range).filter(|e| !a.quantity_used(e)) else { continue };
        if !period_or_ratio(q) && !period_or_ratio(e) && !vague(s.text, e) && number::relate(q, e) == Relation::Conflicts {
            let detail = format!(
                "the claim says {:?}, the evidence says {:?} of the same word {:?}",
                &claim.text[q.range.clone()],
                &s.text[e.range.clone()],
                a.binder(q.range.start)
            );
            return Some(reason("number", "number.value_mismatch", detail, span(&q.range), a.cited(&e.range)));
        }
    }
    None
}

/// [`bound_number_differs`] for dates.
fn bound_date_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s) = (a.claim, a.s);
    for d in &claim.dates {
        if !s.dates().iter().any(|e| date::comparable(d, e) && date::relate(d, e) != DateRelation::Conflicts) {
            continue;
        }
        let Some(e) = bound_value(claim, &d.range, s, s.dates(), |e| &e.range).filter(|e| !a.date_used(e)) else { continue };
        if date::comparable(d, e) && date::relate(d, e) == DateRelation::Conflicts {
            let detail = format!(
                "the claim dates it {:?}, the evidence {:?} of the same word {:?}",
                &claim.text[d.range.clone()],
                &s.text[e.range.clone()],
                a.binder(d.range.start)
            );
            return Some(reason("date", "date.value_mismatch", detail, span(&d.range), a.cited(&e.range)));
        }
    }
    None
}

/// A claim value the sentence gives otherwise for the same quantity (or the same value in
/// another unit), when neither this sentence nor another of its item states it.
fn number_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s) = (a.claim, a.s);
    for q in &claim.quantities {
        if s.quantities().iter().any(|e| number::relate(q, e) == Relation::Agrees) || (a.item_states)(q) {
            continue;
        }
        // A span of time ("over the past 30 years", "a two-month low") scopes the proposition
        // rather than stating its value, a multiplier ("104 times greater") compares with
        // something the claim may not name, and a vague count ("several hundred") states no value.
        let comparable_value = |e: &Quantity| !period_or_ratio(q) && !period_or_ratio(e) && !vague(s.text, e);
        if let Some(e) =
            s.quantities().iter().find(|e| !a.quantity_used(e) && comparable_value(e) && number::relate(q, e) == Relation::Conflicts)
        {
            return Some(reason(
                "number",
                "number.value_mismatch",
                format!(
                    "the claim says {:?}, the evidence says {:?} for the same quantity",
                    &claim.text[q.range.clone()],
                    &s.text[e.range.clone()]
                ),
                span(&q.range),
                a.cited(&e.range),
            ));
        }
        if let Some(e) = s.quantities().iter().find(|e| !a.quantity_used(e) && number::relate(q, e) == Relation::UnitMismatch) {
            return Some(reason(
                "number",
                "number.unit_mismatch",
                format!(
                    "the claim says {:?} ({}), the evidence says {:?} ({}) for the same quantity: same value, other unit",
                    &claim.text[q.range.clone()],
                    number::unit_label(&q.unit),
                    &s.text[e.range.clone()],
                    number::unit_label(&e.unit)
                ),
                span(&q.range),
                a.cited(&e.range),
            ));
        }
    }
    None
}

/// A claim date the sentence gives otherwise, when it states none that agrees.
fn date_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m) = (a.claim, a.s, a.m);
    for d in &claim.dates {
        if s.dates().iter().any(|e| date::comparable(d, e) && date::relate(d, e) != DateRelation::Conflicts) {
            continue;
        }
        let comparable: Vec<&Date> = s.dates().iter().filter(|e| date::comparable(d, e) && !a.date_used(e)).collect();
        // A bare year anchors to nothing in particular ("a 2013 study" beside "published in 2017"):
        // it conflicts only in a sentence about the same proposition.
        // A sentence that holds every word of the claim states the same proposition whatever
        // the share the value weighs in a short claim ("Brubaker is a 2007 drama").
        let bare = d.month.is_none() || comparable.iter().all(|e| e.month.is_none());
        // (two words at least: "because I have 2000 emails" against "an email of 1999" is no proposition)
        let all_words = a.checked >= 2 && (0..m.len()).all(|k| m[k].is_some() || claim.optional[k] || a.excused[k]);
        if comparable.is_empty() || (bare && a.cov < POLARITY_MIN && !all_words) {
            continue;
        }
        let e = comparable[0];
        let swapped = d.day.is_some() && d.day == e.month && d.month == e.day && d.day != d.month;
        return Some(reason(
            "date",
            "date.value_mismatch",
            format!(
                "the claim dates it {:?}, the aligned evidence {:?}{}",
                &claim.text[d.range.clone()],
                &s.text[e.range.clone()],
                if swapped { " (day and month swapped)" } else { "" }
            ),
            span(&d.range),
            a.cited(&e.range),
        ));
    }
    None
}

/// For each claim content word, true when it is a given name the sentence leaves off: part of
/// a name of the claim whose last word (the surname) the sentence holds, with no other
/// capitalised word just before it there ("Wilk" for "Brad Wilk"; not "Pierre Curie" for
/// "Marie Curie", where another given name stands in its place).
fn given_names_left_off(claim: &ClaimView<'_>, s: &Sentence<'_>, m: &[Option<usize>]) -> Vec<bool> {
    let sw = s.words();
    let held_at = |ci: usize| claim.content.iter().position(|&c| c == ci).and_then(|k| m[k]).filter(|&p| p != VIA_TITLE);
    claim
        .content
        .iter()
        .zip(m)
        .map(|(&ci, held)| {
            if held.is_some() || !claim.names.contains(&ci) || HONORIFICS.contains(&claim.words[ci].lower.as_str()) {
                return false;
            }
            // a short form of a name the sentence writes whole ("Tim" for "Timothy", "Alex" for "Alexander")
            let short = &claim.words[ci].lower;
            if short.len() >= 3 && sw.iter().any(|w| w.capitalised && w.lower.len() > short.len() && w.lower.starts_with(short.as_str())) {
                return true;
            }
            // the run of names after it, up to the first the sentence holds
            let mut j = ci + 1;
            // fragments of one name that are no content word ("O" of "O'Neal")
            let fragment = |j: usize| claim.words.get(j).is_some_and(|w| w.capitalised && w.lower.len() < 2);
            while (claim.names.contains(&j) && held_at(j).is_none()) || fragment(j) {
                j += 1;
            }
            let surname_last = !claim.names.contains(&(j + 1));
            let Some(p) = held_at(j).filter(|_| claim.names.contains(&j) && surname_last) else { return false };
            let before = p.checked_sub(1).map(|b| &sw[b]);
            !before.is_some_and(|b| b.capitalised && !b.stop && !claim.words.iter().any(|w| text::stems_match(&w.stem, &b.stem)))
        })
        .collect()
}

/// Another rank said of the word the claim's ordinal ranks: "the second confirmed case" against
/// "the first confirmed case". Not when the sentence also gives the claim's own rank to that word.
fn rank_conflict(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, evidence) = (a.claim, a.s, a.evidence);
    for &ci in &claim.content {
        let w = &claim.words[ci];
        if !cues::is_ordinal(&w.lower) {
            continue;
        }
        let Some(ranked) = ranked_word(&claim.words, ci) else { continue };
        if ranks(claim, s, &w.lower, ranked) {
            continue;
        }
        let sw = s.words();
        let other = sw.iter().enumerate().find(|(j, e)| {
            cues::is_ordinal(&e.lower)
                && e.lower != w.lower
                && ranked_word(sw, *j).is_some_and(|r| text::stems_match(&sw[r].stem, &claim.words[ranked].stem))
        });
        if let Some((_, e)) = other {
            let cited = cite_part(evidence, s, &e.range);
            return Some(reason(
                "entity",
                "rank.mismatch",
                format!(
                    "the claim ranks {:?} {:?}, the evidence {:?}",
                    &claim.text[claim.words[ranked].range.clone()],
                    &claim.text[w.range.clone()],
                    &s.text[e.range.clone()]
                ),
                span(&w.range),
                vec![cite(evidence, s), cited],
            ));
        }
    }
    superlative_ranked_otherwise(claim, s, evidence)
}

/// A superlative ranked on one side and bare on the other: "the largest planet" against "the
/// second-largest in the Solar System", and the reverse. The largest is not the second largest.
fn superlative_ranked_otherwise(claim: &ClaimView<'_>, s: &Sentence<'_>, evidence: &[Evidence]) -> Option<Reason> {
    let sw = s.words();
    let superlative = |w: &Word| w.lower != "most" && w.lower != "least" && cues::is_superlative(&w.lower);
    let ranked_at =
        |words: &[Word], i: usize| i.checked_sub(1).is_some_and(|b| cues::is_ordinal(&words[b].lower) && words[b].lower != "first");
    for (ci, w) in claim.words.iter().enumerate() {
        if w.stop || !superlative(w) {
            continue;
        }
        let claim_ranked = ranked_at(&claim.words, ci);
        let found: Vec<usize> = (0..sw.len()).filter(|&j| sw[j].lower == w.lower).collect();
        // the sentence says it the claim's way somewhere ("Jupiter is the largest, Saturn the second largest")
        if found.iter().any(|&j| ranked_at(sw, j) == claim_ranked) {
            continue;
        }
        if let Some(&j) = found.first() {
            let e = &sw[j];
            let ev_from = if ranked_at(sw, j) { sw[j - 1].range.start } else { e.range.start };
            let claim_from = if claim_ranked { claim.words[ci - 1].range.start } else { w.range.start };
            return Some(reason(
                "entity",
                "rank.mismatch",
                format!("the claim says {:?}, the evidence {:?}", &claim.text[claim_from..w.range.end], &s.text[ev_from..e.range.end]),
                span(&(claim_from..w.range.end)),
                vec![cite(evidence, s), cite_part(evidence, s, &(ev_from..e.range.end))],
            ));
        }
    }
    None
}

/// The content word after the one a negation cue denies, within the clause: its argument
/// ("cannot reset *prices*"). `None` when the denied word ends the clause.
fn negated_argument(cue: &Cue, words: &[Word], text: &str) -> Option<usize> {
    let content = |i: &usize| !words[*i].stop && words[*i].lower.chars().any(char::is_alphabetic);
    let head = negated_head(cue, words)?;
    let next = (head + 1..words.len().min(head + 4)).find(content)?;
    let gap = &text[words[head].range.end..words[next].range.start];
    // a coordinator starts the next member of a list, not the denied word's argument ("no
    // awareness and very little funds")
    let coordinated = words[head + 1..next].iter().any(|w| matches!(w.lower.as_str(), "and" | "or" | "but" | "nor"));
    (!gap.contains([',', ';', ':', '.', '(', ')']) && !coordinated).then_some(next)
}

/// A negation on one side of a proposition the other side asserts, bound to shared words.
fn polarity_conflict(a: &Aligned<'_>) -> Option<Reason> {
    // A negation conflicts only when the sentence lacks at most one claim word in four (one in
    // a short claim); the negated word's own argument is checked below.
    if a.cov < POLARITY_MIN || a.missing > (a.checked / 4).max(1) {
        return None;
    }
    let (claim, s, m, evidence) = (a.claim, a.s, a.m, a.evidence);
    let cited = |r: &Range<usize>| vec![cite(evidence, s), cite_part(evidence, s, r)];
    // Polarity: the evidence denies what the claim asserts, or the reverse. A claim word that
    // carries its own denial ("childless" for "no children") is not asserted: the evidence's
    // denial of the word it matches agrees with it.
    let privative = |k: usize| {
        let w = &claim.words[claim.content[k]];
        w.lower.ends_with("less") && m[k].is_some_and(|p| p != VIA_TITLE && s.words()[p].lower != w.lower)
    };
    let targets: Vec<usize> = m.iter().enumerate().filter(|(k, _)| !privative(*k)).filter_map(|(_, p)| *p).collect();
    let ev_neg = negates_any(s.negations(), s.words(), &targets);
    let claim_targets: Vec<usize> = claim.content.iter().zip(m).filter(|(_, m)| m.is_some()).map(|(&ci, _)| ci).collect();
    // (a denied privative, "not childless", asserts what the evidence's "had children" does)
    let asserted: Vec<usize> =
        claim.content.iter().enumerate().filter(|(k, _)| m[*k].is_some() && !privative(*k)).map(|(_, &ci)| ci).collect();
    let claim_neg = negates_any(&claim.negations, &claim.words, &asserted);
    // A conflict needs one side to deny a shared word and the other to have no negation near the shared words at all.
    let claim_near = negation_near(&claim.negations, &claim_targets);
    let ev_near = negation_near(s.negations(), &targets);
    // The negated word's argument must be one the other side shares too.
    let ev_bound = |k: &usize| negated_argument(&s.negations()[*k], s.words(), s.text).is_none_or(|a| targets.contains(&a));
    let claim_bound = |k: &usize| {
        negated_argument(&claim.negations[*k], &claim.words, claim.text)
            .is_none_or(|a| claim_targets.contains(&a) || !claim.content.contains(&a))
    };
    match (claim_neg.filter(|_| !ev_near).filter(claim_bound), ev_neg.filter(|_| !claim_near).filter(ev_bound)) {
        (None, Some(k)) => {
            let cue = &s.negations()[k];
            return Some(reason(
                "polarity",
                "polarity.evidence_negates",
                format!("the evidence denies it ({:?}) where the claim asserts it", &s.text[cue.range.clone()]),
                None,
                cited(&cue.range),
            ));
        }
        (Some(k), None) => {
            let cue = &claim.negations[k];
            return Some(reason(
                "polarity",
                "polarity.claim_negates",
                format!("the claim denies it ({:?}) where the evidence asserts it", &claim.text[cue.range.clone()]),
                span(&cue.range),
                vec![cite(evidence, s)],
            ));
        }
        _ => {}
    }
    // A privative claim word ("childless") against the evidence giving the thing it lacks a
    // count or a possessor, undenied ("she had three children"): the claim's "without" against
    // the evidence's "with".
    if claim.negations.is_empty() {
        let sw = s.words();
        for k in (0..m.len()).filter(|&k| privative(k)) {
            let Some(p) = m[k].filter(|&p| p > 0) else { continue };
            if negation_near(s.negations(), &[p]) {
                continue;
            }
            let counted = s.quantities().iter().any(|q| {
                !q.is_year
                    && q.range.end <= sw[p].range.start
                    && s.text.get(q.range.end..sw[p].range.start).is_some_and(|g| g.trim().is_empty())
            });
            let had = matches!(sw[p - 1].lower.as_str(), "had" | "has" | "have" | "having");
            if counted || had {
                let w = &claim.words[claim.content[k]];
                let from = if had {
                    sw[p - 1].range.start
                } else {
                    s.quantities().iter().map(|q| q.range.start).filter(|&b| b < sw[p].range.start).max().unwrap_or(sw[p].range.start)
                };
                let ev = from..sw[p].range.end;
                return Some(reason(
                    "polarity",
                    "polarity.antonym",
                    format!("the claim says {:?}, the evidence {:?}", &claim.text[w.range.clone()], &s.text[ev.clone()]),
                    span(&w.range),
                    cited(&ev),
                ));
            }
        }
    }
    None
}

/// An antonym conflict: the one claim word the sentence lacks has its opposite in the sentence,
/// bound to the same argument: next to (only function words between) a word the sentence shares
/// with the claim's neighbouring content word. "Cases decreased" against "cases increased";
/// not "jobs decreased" against "rising rates of job losses", where "rising" is said of "rates".
fn antonym_conflict(a: &Aligned<'_>) -> Option<Reason> {
    // An antonym only when it is the one word missing (so it needs no coverage threshold beyond that).
    if a.missing != 1 {
        return None;
    }
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    let missing: Vec<usize> = (0..m.len()).filter(|&k| m[k].is_none() && !claim.optional[k] && !excused[k]).collect();
    let &[k] = missing.as_slice() else { return None };
    let ci = claim.content[k];
    let w = &claim.words[ci];
    let sw = s.words();
    // A denied word is its antonym asserted: "not allowed" is "prohibited".
    if negation_near(&claim.negations, &[ci]) {
        return None;
    }
    // The sentence positions of the claim's content words next to the missing one.
    let neighbours: Vec<usize> =
        [k.checked_sub(1), Some(k + 1)].into_iter().flatten().filter_map(|n| m.get(n).copied().flatten()).collect();
    let bound = |j: usize| {
        neighbours.iter().any(|&p| {
            p != VIA_TITLE && p != j && {
                let (lo, hi) = if p < j { (p, j) } else { (j, p) };
                hi - lo <= 4 && sw[lo + 1..hi].iter().all(|x| x.stop)
            }
        })
    };
    // The hand-written pairs (stems and forms of general English), then WordNet's direct antonyms.
    let listed = cues::antonyms_of(&w.stem, &w.lower);
    let wordnet = amem_text::relations::antonyms(&w.stem).iter().map(String::as_str);
    for ant in listed.into_iter().chain(wordnet) {
        if let Some((_, ew)) =
            sw.iter().enumerate().find(|(j, e)| (e.stem == ant || e.lower == ant) && bound(*j) && !negation_near(s.negations(), &[*j]))
        {
            let e = cite_part(evidence, s, &ew.range);
            return Some(reason(
                "polarity",
                "polarity.antonym",
                format!("the claim says {:?}, the evidence says {:?}", &claim.text[w.range.clone()], &s.text[ew.range.clone()]),
                span(&w.range),
                vec![cite(evidence, s), e],
            ));
        }
    }
    None
}

/// True when the quantity counts a span of time or a ratio: its anchor is a unit of time or
/// "times"/"fold".
fn period_or_ratio(q: &Quantity) -> bool {
    q.anchor.as_deref().is_some_and(|a| {
        let a = a.trim_end_matches('s');
        matches!(
            a,
            "year" | "yr" | "month" | "week" | "day" | "decade" | "century" | "centurie" | "hour" | "minute" | "second" | "time" | "fold"
        )
    })
}

/// True when the quantity is written without digits after a vague quantifier ("several
/// hundred", "many thousands").
fn vague(text: &str, q: &Quantity) -> bool {
    let surface = text.get(q.range.clone()).unwrap_or("");
    if surface.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let before = text.get(..q.range.start).unwrap_or("").trim_end().to_lowercase();
    let last = before.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    matches!(last, "several" | "many" | "few" | "some" | "dozens" | "hundreds" | "thousands" | "couple" | "of")
}

/// True when a capitalised word has the shape of a nationality or a language ("American",
/// "Italian", "Chinese", "Swedish", "Israeli", "French").
fn nationality_shaped(surface: &str) -> bool {
    let lower = surface.to_lowercase();
    surface.chars().next().is_some_and(char::is_uppercase)
        && surface.chars().skip(1).all(char::is_lowercase)
        && lower.len() > 4
        && (["an", "ese", "ish", "i"].iter().any(|s| lower.ends_with(s))
            || matches!(lower.as_str(), "french" | "dutch" | "greek" | "swiss" | "czech"))
}

/// The one claim word the sentence lacks is a nationality and the sentence gives another one
/// the claim does not name: "Matteo Renzi is German" against "... an Italian politician", "The
/// Gifted is Swedish" against "an American television series". One thing has one nationality
/// in the claim's sense; two of them said of it is a conflict.
fn nationality_substitution(a: &Aligned<'_>) -> Option<Reason> {
    // Also a claim of two words that says only the subject's nationality ("The Gifted is Swedish")
    // against a sentence whose copula, after the same subject, gives another ("The Gifted is an
    // upcoming American television series").
    let copular_two = a.missing_units == 1 && a.m.len() == 2 && nationality_after_copula(a.claim, a.s, a.m, &a.excused);
    if !(a.one_missing() || copular_two) {
        return None;
    }
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    let k = (0..m.len()).find(|&k| m[k].is_none() && !claim.optional[k] && !excused[k])?;
    let w = &claim.words[claim.content[k]];
    if !claim.names.contains(&claim.content[k]) || !nationality_shaped(&claim.text[w.range.clone()]) {
        return None;
    }
    let claim_has = |stem: &str| claim.words.iter().any(|c| text::stems_match(&c.stem, stem));
    let other =
        s.words().iter().enumerate().find(|(j, e)| *j > 0 && nationality_shaped(&s.text[e.range.clone()]) && !claim_has(&e.stem))?.1;
    Some(reason(
        "entity",
        "entity.nationality_differs",
        format!("the claim says {:?}, the evidence {:?}", &claim.text[w.range.clone()], &s.text[other.range.clone()]),
        span(&w.range),
        vec![cite(evidence, s), cite_part(evidence, s, &other.range)],
    ))
}

/// Titles that stand before a name without being one.
static HONORIFICS: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::verify_words::HONORIFICS);

/// A name of the claim missing from an aligned sentence whose slot, next to a
/// word both share, holds another name ("Star Trek" / "Star Wars",
/// "English-language" / "Spanish-language"): the same proposition with another
/// value of a discriminant.
fn name_substitution(a: &Aligned<'_>) -> Option<Reason> {
    if !a.one_missing() {
        return None;
    }
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    let claim_has = |stem: &str| claim.words.iter().any(|w| !w.stop && text::stems_match(&w.stem, stem));
    let name_like = |j: usize| {
        s.words().get(j).is_some_and(|w| {
            let surface = &s.text[w.range.clone()];
            !w.stop
                && w.lower.chars().any(char::is_alphabetic)
                && ((w.capitalised && (j > 0 || s.words().get(1).is_some_and(|n| n.capitalised && !n.stop)))
                    || (surface.len() > 1 && surface.chars().all(|c| c.is_uppercase())))
                && !claim_has(&w.stem)
        })
    };
    for (k, &ci) in claim.content.iter().enumerate() {
        // The claim's opening word is a name when capitalised and no common noun ("Disney
        // released ...", not "Scientists found ..."): read only as the doer of the verb after it.
        let opening = ci == 0
            && claim.words[ci].capitalised
            && !claim.words[ci].stop
            && amem_text::relations::noun_kinds(&claim.words[ci].lower).is_none()
            && claim.words.get(1).is_some_and(|w| !w.stop && !w.capitalised);
        if m[k].is_some() || excused[k] || (!claim.names.contains(&ci) && !opening) {
            continue;
        }
        // A denied name is not the claim's value: "is not an album by Danny DeVito" agrees with
        // "an album by ... Pink Floyd".
        if negation_near(&claim.negations, &[ci]) {
            continue;
        }
        // Short forms and titles are not other names: "Tim" for "Timothy", "Comic-Con" for
        // "Comic Book Convention", "Mr Singer" for "Frederick Singer".
        let lower = &claim.words[ci].lower;
        if HONORIFICS.contains(&lower.as_str())
            || s.words().iter().any(|w| w.lower.len() > lower.len() && w.lower.starts_with(lower.as_str()))
        {
            continue;
        }
        // The slot: next to a word both share, or after the same frame of a word and its function
        // words ("born in Trieste" / "Born in Naples", "directed by Christopher Nolan").
        // A list ("Iraq, Libya and Nepal") is no frame: another member is not a substitute.
        let framed = (ci.saturating_sub(4)..ci)
            .rev()
            .find(|&n| !claim.words[n].stop)
            .filter(|&n| n + 1 < ci && !claim.words[n + 1..ci].iter().any(|w| matches!(w.lower.as_str(), "and" | "or" | "nor")));
        let frame: Vec<&str> = framed.map(|n| claim.words[n + 1..ci].iter().map(|w| w.lower.as_str()).collect()).unwrap_or_default();
        let neighbours = [(ci.checked_sub(1), 1isize, 0usize), (Some(ci + 1), -1isize, 0usize), (framed, 1isize, frame.len())];
        // The name as the doer before a shared verb ("Peter Jackson produced Soul Food") against
        // another name as that verb's agent ("Soul Food ... produced by Kenneth Edmonds").
        let mut after = ci + 1;
        while claim.names.contains(&after) {
            after += 1;
        }
        if let Some(verb) = claim.words.get(after).filter(|w| !w.stop && !claim.names.contains(&after)) {
            for (j, e) in s.words().iter().enumerate() {
                if e.stop || !text::stems_match(&e.stem, &verb.stem) || s.words().get(j + 1).is_none_or(|b| b.lower != "by") {
                    continue;
                }
                if !name_like(j + 2) {
                    continue;
                }
                let w = &claim.words[ci];
                let ev = &s.words()[j + 2];
                return Some(reason(
                    "entity",
                    "entity.substituted",
                    format!(
                        "the claim says {:?} {:?}, the evidence {:?} by {:?}",
                        &claim.text[w.range.clone()],
                        &claim.text[verb.range.clone()],
                        &s.text[e.range.clone()],
                        &s.text[ev.range.clone()]
                    ),
                    span(&w.range),
                    vec![cite(evidence, s), cite_part(evidence, s, &ev.range)],
                ));
            }
        }
        for (nb, dir, gap) in neighbours.into_iter().filter(|_| !opening) {
            let Some(nw) = nb.and_then(|n| claim.words.get(n)) else { continue };
            if nw.stop || !nw.lower.chars().any(char::is_alphabetic) {
                continue;
            }
            for (j, sw) in s.words().iter().enumerate() {
                if sw.stop || !text::stems_match(&sw.stem, &nw.stem) {
                    continue;
                }
                let same_frame =
                    s.words().get(j + 1..j + 1 + gap).is_some_and(|f| f.iter().map(|w| w.lower.as_str()).eq(frame.iter().copied()));
                if gap > 0 && !same_frame {
                    continue;
                }
                let Some(mut slot) = j.checked_add_signed(dir).map(|p| p + gap) else { continue };
                // after a frame, an article and up to three modifiers may stand before the other name
                // ("in central Luxembourg" for "in Canada", "in the novel Alibaba", "on the British
                // television series Game of Thrones"); not another function word ("in the north
                // of Luxembourg")
                if gap > 0 {
                    let sw = s.words();
                    let nationality = |i: usize| sw.get(i).is_some_and(|w| nationality_shaped(&s.text[w.range.clone()]));
                    let skippable = |i: usize, at_start: bool| {
                        sw.get(i).is_some_and(|w| {
                            (at_start && is_article(&w.lower))
                                || (!w.stop
                                    && !claim_has(&w.stem)
                                    && (nationality(i) || (!w.capitalised && w.lower.chars().all(char::is_alphabetic))))
                        })
                    };
                    let first = slot;
                    while slot - first < 4 && (!name_like(slot) || nationality(slot)) && skippable(slot, slot == first) {
                        slot += 1;
                    }
                }
                if !name_like(slot) {
                    continue;
                }
                let w = &claim.words[ci];
                let ev = &s.words()[slot];
                let cited = cite_part(evidence, s, &ev.range);
                return Some(reason(
                    "entity",
                    "entity.substituted",
                    format!(
                        "the claim says {:?} where the evidence says {:?} next to the same word {:?}",
                        &claim.text[w.range.clone()],
                        &s.text[ev.range.clone()],
                        &claim.text[nw.range.clone()]
                    ),
                    span(&w.range),
                    vec![cite(evidence, s), cited],
                ));
            }
        }
    }
    None
}

/// The nouns a copula's complement names, from the word after the copula: the last noun of
/// each member of its list ("an American *actor*, *comedian* and *singer*"), up to the first
/// function word that is not "and" / "or" ("a fictional *character* in the novel ...") or a
/// stop in the text ("." ";" ":" "(" or a comma after the list). Nouns are the words WordNet
/// files as nouns ([`amem_text::relations::noun_kinds`]).
fn complement_heads(words: &[Word], text: &str, from: usize) -> Vec<usize> {
    let mut heads = Vec::new();
    let mut last_noun: Option<usize> = None;
    let mut seen_content = false;
    for i in from..words.len() {
        let w = &words[i];
        let gap = if i > from { text.get(words[i - 1].range.end..w.range.start).unwrap_or("") } else { "" };
        if gap.contains(['.', ';', ':', '(', ')']) {
            break;
        }
        let joins = matches!(w.lower.as_str(), "and" | "or");
        if gap.contains(',') || joins {
            heads.extend(last_noun.take());
            if joins {
                continue;
            }
        }
        // determiners and adverbs before the first noun ("is a", "was the", "is also an")
        if w.stop {
            if seen_content {
                break;
            }
            continue;
        }
        seen_content = true;
        // a name ("Lady Gaga") is not a kind of thing
        if !w.capitalised && amem_text::relations::noun_kinds(&w.lower).is_some() {
            last_noun = Some(i);
        }
    }
    heads.extend(last_noun);
    heads
}

/// True when the copula at `cop` is followed by an article before any content word: a noun
/// complement ("is a dog", "was also an American actor"), not an adjective or a participle
/// ("was born", "is active").
fn noun_complement(words: &[Word], cop: usize) -> bool {
    words[cop + 1..].iter().take_while(|w| w.stop).any(|w| is_article(&w.lower))
}

/// True when every content word between `from` and `to` (sentence word indices) is inside
/// parentheses or brackets: "Colin Kaepernick (born November 3, 1987) is ...", "Seo Ju-hyun,
/// known professionally as Seohyun, is ..."; not "Rex's owner is ...".
fn only_asides_between(words: &[Word], text: &str, from: usize, to: usize) -> bool {
    let mut depth = 0i32;
    let mut commas = 0;
    for i in from + 1..to {
        let gap = text.get(words[i - 1].range.end..words[i].range.start).unwrap_or("");
        // a closing bracket without its opening one (a pronunciation cut short) closes nothing
        for c in gap.chars() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth = (depth - 1).max(0),
                _ => {}
            }
        }
        commas += gap.matches(',').count();
        match words[i].lower.as_str() {
            "lrb" | "lsb" => depth += 1,
            "rrb" | "rsb" => depth = (depth - 1).max(0),
            // a word of another script is a native spelling or a pronunciation ("Yara Sayeh Shahidi شهیدی")
            _ if !text[words[i].range.clone()].chars().any(|c| c.is_ascii_alphanumeric()) => {}
            _ if depth <= 0 && !words[i].stop && commas == 0 => return false,
            _ => {}
        }
    }
    true
}

/// What a thing is, said two ways: the claim's copula names a noun (its complement's head) the
/// sentence lacks, and the sentence, speaking of the same subject with its own copula, names
/// nouns of no common kind with it ("Seohyun is a dog" against "Seo Ju-hyun, known
/// professionally as Seohyun, is a South Korean singer and actress": an animal, a person). Two
/// kinds of person ("a writer" against "an actor and comedian"), a subject the sentence does not
/// open with ("Rex's owner is a singer"), a negated copula, or a claim word missing outside the
/// complement leave it as it is. Kinds are WordNet's ([`amem_text::relations::kinds_disjoint`]).
fn kind_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    let cw = &claim.words;
    let cop = cw.iter().position(|w| is_copula(&w.lower))?;
    if !claim.negations.is_empty() || cop == 0 || !noun_complement(cw, cop) {
        return None;
    }
    let heads = complement_heads(cw, claim.text, cop + 1);
    let &head = heads.last()?;
    let hk = claim.content.iter().position(|&c| c == head)?;
    if m[hk].is_some() {
        return None;
    }
    let end = cw[head].range.end;
    // the subject all held, every word the sentence lacks inside the complement
    for (k, &ci) in claim.content.iter().enumerate() {
        let held = m[k].is_some() || excused[k] || claim.optional[k];
        if ci < cop && (m[k].is_none_or(|p| p == VIA_TITLE) && !excused[k]) {
            return None;
        }
        if !held && (ci < cop || cw[ci].range.start > end) {
            return None;
        }
    }
    let sw = s.words();
    let subject_end = claim.content.iter().zip(m).filter(|(ci, _)| **ci < cop).filter_map(|(_, p)| *p).max()?;
    let ecop = (subject_end + 1..sw.len()).find(|&j| is_copula(&sw[j].lower))?;
    if !noun_complement(sw, ecop)
        || !only_asides_between(sw, s.text, subject_end, ecop)
        || negation_near(s.negations(), &[ecop + 1, ecop + 2])
    {
        return None;
    }
    let theirs = complement_heads(sw, s.text, ecop + 1);
    let claim_has = |st: &str| cw.iter().any(|w| text::stems_match(&w.stem, st));
    if theirs.is_empty() || theirs.iter().any(|&j| claim_has(&sw[j].stem)) {
        return None;
    }
    let disjoint = theirs.iter().all(|&j| amem_text::relations::kinds_disjoint(&cw[head].lower, &sw[j].lower) == Some(true));
    if !disjoint {
        return None;
    }
    let named: Vec<&str> = theirs.iter().map(|&j| &s.text[sw[j].range.clone()]).collect();
    let first = &sw[theirs[0]].range;
    Some(reason(
        "entity",
        "entity.kind_differs",
        format!(
            "the claim says it is {:?}, the evidence says {}: things of no common kind",
            &claim.text[cw[head].range.clone()],
            named.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        ),
        span(&cw[head].range),
        vec![cite(evidence, s), cite_part(evidence, s, first)],
    ))
}

/// The content word a value at byte `at` is said of: the last content word before it with at
/// most three function words between ("born *on* 22 May", "grossed *more than* $1 million").
fn bound_word(words: &[Word], text: &str, at: usize) -> Option<usize> {
    let before = words.iter().rposition(|w| w.range.end <= at)?;
    let gap_ok = |from: usize| text.get(words[from].range.end..at).is_some_and(|g| !g.contains([',', ';', ':', '.', '(', ')']));
    // a preposition of time ("since 2000", "until 1990") binds the value to nothing in particular,
    // and a name's last word ("the Clean Air Act of 1963") names something of its own
    let relational = |w: &Word| {
        matches!(
            w.lower.as_str(),
            "since"
                | "until"
                | "till"
                | "before"
                | "after"
                | "during"
                | "from"
                | "through"
                | "between"
                | "around"
                | "about"
                | "over"
                | "under"
        )
    };
    (before.saturating_sub(3)..=before).rev().find(|&i| {
        let w = &words[i];
        !w.stop
            && !w.capitalised
            && !relational(w)
            && w.lower.chars().all(char::is_alphabetic)
            && gap_ok(i)
            && words[i + 1..=before].iter().all(|x| x.stop)
    })
}

/// The sentence's value bound to the word the claim's value (at `range`) is bound to: the first
/// of `values` after that word in the sentence with only function words between.
fn bound_value<'v, V>(
    claim: &ClaimView<'_>,
    range: &Range<usize>,
    s: &Sentence<'_>,
    values: &'v [V],
    range_of: impl Fn(&V) -> &Range<usize>,
) -> Option<&'v V> {
    let b = bound_word(&claim.words, claim.text, range.start)?;
    let stem = &claim.words[b].stem;
    let sw = s.words();
    sw.iter().enumerate().filter(|(_, w)| !w.stop && text::stems_match(&w.stem, stem)).find_map(|(j, _)| {
        values.iter().find(|v| {
            let r = range_of(v);
            r.start >= sw[j].range.end && bound_word(sw, s.text, r.start) == Some(j)
        })
    })
}

/// The claim's name as the agent of a verb ("produced by Luc Besson") where the sentence gives
/// that verb another agent and the claim's name another verb ("produced by Olivier Megaton and
/// directed by Luc Besson"): the name holds another role of the same frame. Not when the
/// sentence lists the name beside the other agent ("produced by Olivier Megaton and Luc Besson").
fn role_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m, evidence) = (a.claim, a.s, a.m, a.evidence);
    let cw = &claim.words;
    let sw = s.words();
    let held = |ci: usize| claim.content.iter().position(|&c| c == ci).and_then(|k| m[k]).filter(|&p| p != VIA_TITLE);
    for i in 0..cw.len().saturating_sub(2) {
        let (verb, by, name) = (&cw[i], &cw[i + 1], i + 2);
        if verb.stop || verb.capitalised || by.lower != "by" || !claim.names.contains(&name) {
            continue;
        }
        let Some(p) = held(name) else { continue };
        // in the sentence the claim's name is the agent of another word
        let other_role = p >= 2 && sw[p - 1].lower == "by" && !sw[p - 2].stop && !text::stems_match(&sw[p - 2].stem, &verb.stem);
        if !other_role {
            continue;
        }
        let claim_has = |w: &Word| cw.iter().any(|c| !c.stop && text::stems_match(&c.stem, &w.stem));
        let agent = sw.iter().enumerate().find_map(|(j, e)| {
            let theirs = sw.get(j + 2).filter(|a| a.capitalised && !a.stop && !claim_has(a))?;
            (!e.stop && text::stems_match(&e.stem, &verb.stem) && sw.get(j + 1).is_some_and(|b| b.lower == "by")).then_some(theirs)
        });
        if let Some(a) = agent {
            return Some(reason(
                "entity",
                "entity.role_differs",
                format!(
                    "the claim says {:?} by {:?}; the evidence gives it to {:?} and {:?} to {:?}",
                    &claim.text[verb.range.clone()],
                    &claim.text[cw[name].range.clone()],
                    &s.text[a.range.clone()],
                    &s.text[sw[p].range.clone()],
                    &s.text[sw[p - 2].range.clone()]
                ),
                span(&cw[name].range),
                vec![cite(evidence, s), cite_part(evidence, s, &a.range)],
            ));
        }
    }
    None
}

/// True when the one word a two-word claim lacks is a nationality right after its copula, and
/// the sentence speaks of the claim's subject with a copula followed, within three words, by
/// another nationality ("is an upcoming American ...").
fn nationality_after_copula(claim: &ClaimView<'_>, s: &Sentence<'_>, m: &[Option<usize>], excused: &[bool]) -> bool {
    let Some(k) = (0..m.len()).find(|&k| m[k].is_none() && !claim.optional[k] && !excused[k]) else { return false };
    let ci = claim.content[k];
    if ci == 0 || !is_copula(&claim.words[ci - 1].lower) || !nationality_shaped(&claim.text[claim.words[ci].range.clone()]) {
        return false;
    }
    let sw = s.words();
    let Some(subject_end) = claim.content.iter().zip(m).filter(|(c, _)| **c < ci).filter_map(|(_, p)| p.filter(|&p| p != VIA_TITLE)).max()
    else {
        return false;
    };
    let Some(ecop) = (subject_end + 1..sw.len()).find(|&j| is_copula(&sw[j].lower)) else { return false };
    only_asides_between(sw, s.text, subject_end, ecop)
        && !negation_near(s.negations(), &[ecop + 1, ecop + 2])
        && (ecop + 1..sw.len().min(ecop + 4)).any(|j| nationality_shaped(&s.text[sw[j].range.clone()]))
}

/// The run of capitalised content words from `from` (a name of one or more words: "United
/// States", "Luxembourg"), as a word-index range.
fn capitalised_run(words: &[Word], from: usize) -> Range<usize> {
    let end = (from..words.len()).find(|&i| !words[i].capitalised || words[i].stop).unwrap_or(words.len());
    from..end
}

/// The text of a run of words, the words joined by single spaces ("United States").
fn run_text(words: &[Word], text: &str, run: &Range<usize>) -> String {
    words[run.clone()].iter().map(|w| &text[w.range.clone()]).collect::<Vec<_>>().join(" ")
}

/// Where the claim puts its subject, said two ways: the claim's copula places the subject in a
/// named place the sentence lacks ("Angelsberg is in Canada", "Arizona is a state in the United
/// States"), and the sentence, speaking of the same subject with its own copula, places it in
/// another that neither lies in the claim's nor holds it ("Angelsberg is a small town ... in
/// central Luxembourg", "... a state in the southwestern region of Mexico"). A thing is in one
/// place and in whatever holds that place: not in a place apart from it. Places and what lies
/// in what are WordNet's ([`amem_text::relations::places_disjoint`]); a sentence that also
/// names a place agreeing with the claim's ("in Paris" for "in Europe"), a place the list does
/// not know, or a claim missing any word outside the place leave it as it is.
fn place_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    use amem_text::relations::{is_place, places_disjoint};
    let cw = &claim.words;
    let cop = cw.iter().position(|w| is_copula(&w.lower))?;
    if !claim.negations.is_empty() || cop == 0 {
        return None;
    }
    // "in" within three words of the copula, no name between ("is in", "is located in", "is a state in")
    let at = (cop + 1..cw.len().min(cop + 5)).find(|&i| cw[i].lower == "in")?;
    if cw[cop + 1..at].iter().any(|w| w.capitalised) {
        return None;
    }
    let start = if cw.get(at + 1).is_some_and(|w| w.lower == "the") { at + 2 } else { at + 1 };
    let run = capitalised_run(cw, start);
    if run.is_empty() {
        return None;
    }
    let theirs_place = run_text(cw, claim.text, &run);
    if !is_place(&theirs_place) {
        return None;
    }
    // every word the sentence lacks is one of the place's; the subject is held
    let mut lacks_place = false;
    for (k, &ci) in claim.content.iter().enumerate() {
        let held = m[k].is_some() || excused[k] || claim.optional[k];
        if run.contains(&ci) {
            lacks_place |= m[k].is_none();
        } else if !held || (ci < cop && m[k].is_none_or(|p| p == VIA_TITLE) && !excused[k]) {
            return None;
        }
    }
    if !lacks_place {
        return None;
    }
    let sw = s.words();
    let ecop = subject_copula(claim, s, m, cop)?;
    let claim_has = |w: &Word| cw.iter().any(|c| !c.stop && text::stems_match(&c.stem, &w.stem));
    // the sentence's places that are not the claim's words, each with where it starts
    let mut places: Vec<(Range<usize>, String)> = Vec::new();
    let mut j = 0;
    while j < sw.len() {
        let r = capitalised_run(sw, j);
        if r.is_empty() {
            j += 1;
            continue;
        }
        j = r.end;
        if sw[r.clone()].iter().all(claim_has) {
            continue;
        }
        let name = run_text(sw, s.text, &r);
        if is_place(&name) {
            places.push((r, name));
        }
    }
    if places.iter().any(|(_, b)| places_disjoint(&theirs_place, b) != Some(true)) {
        return None;
    }
    // a place after "in" in the copula's predication: "in B", "in central B", "in the
    // southwestern region of the B" (articles, lower-case words and "of" between)
    let placed = places.iter().find(|(r, _)| {
        r.start > ecop
            && (r.start.saturating_sub(6)..r.start).rev().take_while(|&i| i > ecop).any(|i| {
                sw[i].lower == "in"
                    && sw[i + 1..r.start].iter().all(|w| !w.capitalised && w.lower.chars().all(char::is_alphabetic))
                    && s.text.get(sw[i].range.end..sw[r.start].range.start).is_some_and(|g| !g.contains([',', ';', ':', '(', ')']))
            })
    })?;
    let (r, b) = placed;
    let ev = sw[r.start].range.start..sw[r.end - 1].range.end;
    let claim_span = cw[run.start].range.start..cw[run.end - 1].range.end;
    Some(reason(
        "entity",
        "entity.place_differs",
        format!("the claim places it in {theirs_place:?}, the evidence in {b:?}: neither lies in the other"),
        span(&claim_span),
        vec![cite(evidence, s), cite_part(evidence, s, &ev)],
    ))
}

/// A month the claim gives a word without a day or a year ("released in October") against the
/// date the sentence gives the same word in another month ("released on March 30, 2007"): the
/// event happened once, in one month. Only when the month is the one claim word the sentence
/// lacks, the sentence names that month nowhere, and the value is bound to the word on both
/// sides (not "released in October" against "recorded on 30 March, released later").
fn month_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    let cw = &claim.words;
    let k = only_unheld(claim, m, excused)?;
    let ci = claim.content[k];
    let w = &cw[ci];
    let surface = &claim.text[w.range.clone()];
    if !amem_text::dates::is_month_word(surface) || claim.dates.iter().any(|d| d.range.start <= w.range.start && w.range.end <= d.range.end)
    {
        return None;
    }
    let month = amem_text::dates::month_number(surface)?;
    if s.dates().iter().any(|e| e.month == Some(month)) || !claim.negations.is_empty() {
        return None;
    }
    let b = bound_word(cw, claim.text, w.range.start)?;
    let sw = s.words();
    let e = s.dates().iter().find(|e| {
        e.month.is_some() && bound_word(sw, s.text, e.range.start).is_some_and(|j| text::stems_match(&sw[j].stem, &cw[b].stem))
    })?;
    Some(reason(
        "date",
        "date.value_mismatch",
        format!(
            "the claim dates {:?} {:?}, the evidence {:?}: another month",
            &claim.text[cw[b].range.clone()],
            surface,
            &s.text[e.range.clone()]
        ),
        span(&w.range),
        vec![cite(evidence, s), cite_part(evidence, s, &e.range)],
    ))
}

/// The superlative of a comparative adjective: "larger" -> "largest", "bigger" -> "biggest",
/// "better" -> "best". `None` for a word that is no "-er" comparative.
fn superlative_of(comparative: &str) -> Option<String> {
    match comparative {
        "better" => Some("best".into()),
        "worse" => Some("worst".into()),
        c if c.len() > 4 && c.ends_with("er") => Some(format!("{}est", &c[..c.len() - 2])),
        _ => None,
    }
}

/// A comparison the claim makes of its subject ("Saturn is smaller than Jupiter") against the
/// rank the sentence gives the subject: the superlative of the opposite, bare ("Saturn is the
/// largest planet ..., followed by Jupiter": larger than every other, so not smaller than
/// Jupiter), or its own superlative ranked after the claim's other term ("Saturn is ... the
/// second-largest in the Solar System, after Jupiter" against "Saturn is larger than Jupiter").
/// Only when the comparative is the one word the sentence lacks, its other term is held, and the
/// superlative is said by the sentence's copula of the claim's subject.
fn comparison_ranked_otherwise(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    let cw = &claim.words;
    let k = only_unheld(claim, m, excused)?;
    let ci = claim.content[k];
    if !claim.negations.is_empty() || ci == 0 || !is_copula(&cw[ci - 1].lower) || cw.get(ci + 1).is_none_or(|w| w.lower != "than") {
        return None;
    }
    let own = superlative_of(&cw[ci].lower)?;
    let opposite: Vec<String> = cues::antonyms_of(&cw[ci].stem, &cw[ci].lower).into_iter().filter_map(superlative_of).collect();
    // the other term ("than Jupiter") is held
    let other = claim.content.iter().position(|&c| c > ci + 1).and_then(|k| m[k]).filter(|&p| p != VIA_TITLE)?;
    let sw = s.words();
    let ecop = subject_copula(claim, s, m, ci)?;
    let ranked = |j: usize| j > 0 && cues::is_ordinal(&sw[j - 1].lower) && sw[j - 1].lower != "first";
    let found = (ecop + 1..sw.len()).find(|&j| {
        let bare_opposite = opposite.iter().any(|o| *o == sw[j].lower) && !ranked(j);
        let after_other = sw[j].lower == own && ranked(j) && other > j && sw[other - 1].lower == "after";
        bare_opposite || after_other
    })?;
    let from = if ranked(found) { sw[found - 1].range.start } else { sw[found].range.start };
    let ev = from..sw[found].range.end;
    Some(reason(
        "entity",
        "rank.mismatch",
        format!(
            "the claim says {:?} than {:?}, the evidence {:?}",
            &claim.text[cw[ci].range.clone()],
            &s.text[sw[other].range.clone()],
            &s.text[ev.clone()]
        ),
        span(&cw[ci].range),
        vec![cite(evidence, s), cite_part(evidence, s, &ev)],
    ))
}

/// For a word "outside" at `at`: the word before it it is said of, and the content word after
/// it ("born *outside* of *Trieste*"), as word indices.
fn outside_of(words: &[Word], at: usize) -> Option<(usize, usize)> {
    let before = at.checked_sub(1).filter(|&b| !words[b].stop && words[b].lower.chars().all(char::is_alphabetic))?;
    let place = if words.get(at + 1).is_some_and(|w| w.lower == "of") { at + 2 } else { at + 1 };
    words.get(place).filter(|w| !w.stop).map(|_| (before, place))
}

/// "Outside" a place on one side and "in" it on the other, said of the same word: "born outside
/// of Trieste" against "Born in Trieste", and the reverse. Outside is the complement of in.
fn outside_against_in(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m, evidence) = (a.claim, a.s, a.m, a.evidence);
    let cw = &claim.words;
    let sw = s.words();
    let held = |ci: usize| {
        claim.content.iter().position(|&c| text::stems_match(&cw[c].stem, &cw[ci].stem)).and_then(|k| m[k]).filter(|&p| p != VIA_TITLE)
    };
    let inside = |w: &Word| matches!(w.lower.as_str(), "in" | "inside" | "within");
    // (the outside side's words, its "outside", the in side's words, and where each place is)
    let found = |(ow, oi): (&[Word], usize), iw: &[Word], place_at: &dyn Fn(usize) -> Option<usize>| -> Option<usize> {
        let (before, place) = outside_of(ow, oi)?;
        let p = place_at(place)?;
        (p >= 2 && inside(&iw[p - 1]) && text::stems_match(&iw[p - 2].stem, &ow[before].stem)).then_some(p)
    };
    for (ci, w) in cw.iter().enumerate() {
        if w.lower == "outside"
            && let Some(p) = found((cw, ci), sw, &|place| held(place))
        {
            return Some(reason(
                "polarity",
                "polarity.antonym",
                format!(
                    "the claim says {:?}, the evidence {:?}",
                    &claim.text[w.range.start..cw[ci + 1].range.end],
                    &s.text[sw[p - 1].range.start..sw[p].range.end]
                ),
                span(&w.range),
                vec![cite(evidence, s), cite_part(evidence, s, &sw[p - 1].range)],
            ));
        }
    }
    let claim_at = |place: usize| cw.iter().position(|c| !c.stop && text::stems_match(&c.stem, &sw[place].stem));
    for (j, w) in sw.iter().enumerate() {
        if w.lower == "outside"
            && let Some(p) = found((sw, j), cw, &claim_at)
        {
            return Some(reason(
                "polarity",
                "polarity.antonym",
                format!(
                    "the claim says {:?}, the evidence {:?}",
                    &claim.text[cw[p - 1].range.start..cw[p].range.end],
                    &s.text[w.range.clone()]
                ),
                span(&cw[p - 1].range),
                vec![cite(evidence, s), cite_part(evidence, s, &w.range)],
            ));
        }
    }
    None
}

/// True for the words that make a role exclusive: one thing holds it ("their *main* food
/// source", "the *only* country", "its *sole* owner").
fn exclusive(lower: &str) -> bool {
    matches!(lower, "main" | "only" | "sole" | "primary" | "principal" | "chief")
}

/// Another noun in an exclusive role of the same frame: "polar bears depend on the land as
/// their main food source" against "they depend on the ocean as their main food source". The
/// claim's one missing word is a common noun between two shared words, the sentence has the same
/// words around another noun, and the role is one only one thing can hold ([`exclusive`], next
/// to the noun or to its neighbour). Without such a word two fillers of one frame may both be
/// true ("plays the guitar in the band" and "plays the piano in the band").
fn exclusive_slot_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    let cw = &claim.words;
    let k = only_unheld(claim, m, excused)?;
    let ci = claim.content[k];
    let w = &cw[ci];
    if w.capitalised || amem_text::relations::noun_kinds(&w.lower).is_none() || !claim.negations.is_empty() {
        return None;
    }
    let content = |i: usize| !cw[i].stop && cw[i].lower.chars().any(char::is_alphabetic);
    let li = (ci.saturating_sub(4)..ci).rev().find(|&i| content(i))?;
    let ri = (ci + 1..cw.len().min(ci + 5)).find(|&i| content(i))?;
    let is_exclusive = [ri, ci.saturating_sub(1)].iter().any(|&i| exclusive(&cw[i].lower));
    if !is_exclusive {
        return None;
    }
    let at = |i: usize| {
        claim.content.iter().position(|&c| text::stems_match(&cw[c].stem, &cw[i].stem)).and_then(|k| m[k]).filter(|&p| p != VIA_TITLE)
    };
    // the frame's right end where the sentence holds it, its left end as far before it as in the claim
    let pr = at(ri)?;
    let pl = pr.checked_sub(ri - li)?;
    let sw = s.words();
    if sw[pl].stop || !text::stems_match(&sw[pl].stem, &cw[li].stem) {
        return None;
    }
    let other = pl + (ci - li);
    let same_frame = (1..ri - li).all(|d| d == ci - li || sw[pl + d].lower == cw[li + d].lower);
    let x = &sw[other];
    let claim_has = cw.iter().any(|c| !c.stop && text::stems_match(&c.stem, &x.stem));
    if !same_frame || x.stop || x.capitalised || claim_has || amem_text::relations::noun_kinds(&x.lower).is_none() {
        return None;
    }
    Some(reason(
        "entity",
        "entity.substituted",
        format!(
            "the claim says {:?} where the evidence says {:?} in the same exclusive role ({:?})",
            &claim.text[w.range.clone()],
            &s.text[x.range.clone()],
            &claim.text[cw[li].range.start..cw[ri].range.end]
        ),
        span(&w.range),
        vec![cite(evidence, s), cite_part(evidence, s, &x.range)],
    ))
}

/// The agent of a shared verb named by a noun of no common kind with the claim's: "I Kissed a
/// Girl was recorded by cats" against "... a song recorded by American singer Katy Perry" (an
/// animal, a person). The claim's agent is the one word the sentence lacks; the sentence's is
/// the first noun after its "by", past a nationality or an article (a name gives no kind, and
/// leaves it as it is). Kinds are WordNet's, as for [`kind_differs`].
fn agent_kind_differs(a: &Aligned<'_>) -> Option<Reason> {
    let (claim, s, m, excused, evidence) = (a.claim, a.s, a.m, &a.excused[..], a.evidence);
    use amem_text::relations::kinds_disjoint;
    let cw = &claim.words;
    let k = only_unheld(claim, m, excused)?;
    let ci = claim.content[k];
    if cw[ci].capitalised || !claim.negations.is_empty() {
        return None;
    }
    let mut by = ci.checked_sub(1)?;
    if is_article(&cw[by].lower) {
        by = by.checked_sub(1)?;
    }
    let verb = by.checked_sub(1).filter(|_| cw[by].lower == "by").map(|v| &cw[v]).filter(|v| !v.stop)?;
    let sw = s.words();
    let j =
        (0..sw.len().saturating_sub(1)).find(|&j| !sw[j].stop && text::stems_match(&sw[j].stem, &verb.stem) && sw[j + 1].lower == "by")?;
    let theirs = (j + 2..sw.len().min(j + 6)).find_map(|i| {
        let w = &sw[i];
        let gap = s.text.get(sw[i - 1].range.end..w.range.start).unwrap_or("");
        if gap.contains([',', ';', ':', '.', '(', ')']) {
            return Some(None);
        }
        if is_article(&w.lower) || nationality_shaped(&s.text[w.range.clone()]) {
            return None;
        }
        Some((!w.stop && !w.capitalised && amem_text::relations::noun_kinds(&w.lower).is_some()).then_some(i))
    })??;
    if kinds_disjoint(&cw[ci].lower, &sw[theirs].lower) != Some(true) {
        return None;
    }
    Some(reason(
        "entity",
        "entity.kind_differs",
        format!(
            "the claim says {:?} by {:?}, the evidence by {:?}: things of no common kind",
            &claim.text[verb.range.clone()],
            &claim.text[cw[ci].range.clone()],
            &s.text[sw[theirs].range.clone()]
        ),
        span(&cw[ci].range),
        vec![cite(evidence, s), cite_part(evidence, s, &sw[theirs].range)],
    ))
}

/// The index (into `claim.content`) of the one claim word the sentence lacks, not counting stance
/// words and excused given names; `None` when none or more than one is missing.
fn only_unheld(claim: &ClaimView<'_>, m: &[Option<usize>], excused: &[bool]) -> Option<usize> {
    let mut unheld = (0..m.len()).filter(|&k| m[k].is_none() && !claim.optional[k] && !excused[k]);
    let k = unheld.next()?;
    unheld.next().is_none().then_some(k)
}

/// The sentence's copula said of the claim's subject: the first copula after the last sentence
/// word holding a claim word before `before` (a claim word index), with only asides between
/// and no negation right after it ("Peking University (...), is a major ... university").
fn subject_copula(claim: &ClaimView<'_>, s: &Sentence<'_>, m: &[Option<usize>], before: usize) -> Option<usize> {
    let sw = s.words();
    let subject_end = claim.content.iter().zip(m).filter(|(c, _)| **c < before).filter_map(|(_, p)| p.filter(|&p| p != VIA_TITLE)).max()?;
    let ecop = (subject_end + 1..sw.len()).find(|&j| is_copula(&sw[j].lower))?;
    (only_asides_between(sw, s.text, subject_end, ecop) && !negation_near(s.negations(), &[ecop + 1, ecop + 2])).then_some(ecop)
}
