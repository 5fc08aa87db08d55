//! Sentence classification into [`ClaimKind`]: deterministic rules, no model.
//!
//! The rule users were promised: factual claims about the world are audited;
//! logistics, opinions, jokes and the user's own preferences are not. "I
//! think X is Y" is a hedged claim about X: a hedge never makes a sentence an
//! opinion by itself; only an evaluative predicate does.
//!
//! Order of the rules (first match wins):
//! 1. no letters at all: emoji, `:+1:`, `^` → greeting; bare numbers → logistics
//! 2. greetings, thanks, sign-offs, sign-off names, laughter → greeting
//! 3. ends with `?` → question
//! 4. requests, instructions, scheduling, attachments, the author's own
//!    plans, lines introducing a list or link (ending with `:`) → logistics
//! 5. an evaluative predicate (good, worth, not clear, ...) → opinion
//! 6. no finite verb: a named value ("NASDAQ: 2,022.7", "33MB zip file") →
//!    quantity; any other fragment (heading, address, URL, table row) → logistics
//! 7. audited, first that applies: attribution > prediction > causal >
//!    comparison > quantity > date > fact
//!
//! Stance cues come from [`amem_text::cues::detect_cues`]; the word lists of
//! the gate are not copied here. This classifier's own lists (sentence
//! openers, imperative verbs, evaluative adjectives, comparison and causal
//! connectives, ...) are data files in `crates/text/lexicons/claims/`, one entry
//! a line with its evidence in comments, each an [`amem_text::stopwords::WordList`].

use amem_records::{ClaimKind, Cue, CueClass};
use amem_text::stopwords::WordList;
use amem_text::tokens::{WordRule, word_spans};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::LazyLock;

/// Greeting and social openers (lower case, matched as a prefix on word boundaries).
static GREETING_PREFIXES: WordList = WordList::new(amem_text::claim_words::GREETING_PREFIXES);

/// The greeting prefixes that open a message rather than thank or apologise:
/// only a name may follow them in a greeting.
static SALUTATIONS: WordList = WordList::new(amem_text::claim_words::SALUTATIONS);

/// Whole-sentence reactions (lower case, punctuation trimmed).
static REACTIONS: WordList = WordList::new(amem_text::claim_words::REACTIONS);

/// Laughter and smileys that mark a joke wherever they appear.
static JOKE_MARKS: WordList = WordList::new(amem_text::claim_words::JOKE_MARKS);

/// Base-form verbs that open an imperative (a request or instruction).
static IMPERATIVE_VERBS: WordList = WordList::new(amem_text::claim_words::IMPERATIVE_VERBS);

/// Words that may precede the imperative verb ("Just compare", "Or just look").
static IMPERATIVE_LEADS: WordList = WordList::new(amem_text::claim_words::IMPERATIVE_LEADS);

/// Phrases that mark logistics anywhere in the sentence (lower case).
static LOGISTICS_PHRASES: WordList = WordList::new(amem_text::claim_words::LOGISTICS_PHRASES);

/// Phrases of request and advice (`text/lexicons/claims/request_phrases.txt`): logistics
/// unless the sentence is long and states a quantity.
static REQUEST_PHRASES: WordList = WordList::new(amem_text::claim_words::REQUEST_PHRASES);

/// The author's own plans and intentions (a sentence starting so is logistics).
static OWN_PLAN_PREFIXES: WordList = WordList::new(amem_text::claim_words::OWN_PLAN_PREFIXES);

/// Line labels that introduce contact and schedule data ("CONTACT: ...").
static LABEL_PREFIXES: WordList = WordList::new(amem_text::claim_words::LABEL_PREFIXES);

/// Evaluative words: a predicate made of one is a judgement, not a checkable property.
static EVALUATIVE: WordList = WordList::new(amem_text::claim_words::EVALUATIVE);

/// First-person preference openers: the user's own preferences are opinions.
static PREFERENCE_PREFIXES: WordList = WordList::new(amem_text::claim_words::PREFERENCE_PREFIXES);

/// Connectives that state a cause or a consequence.
static CAUSAL: WordList = WordList::new(amem_text::claim_words::CAUSAL);

/// Comparison words.
static COMPARISON: WordList = WordList::new(amem_text::claim_words::COMPARISON);

/// Markers of a statement about the future (the subject is not the author:
/// the author's own plans are logistics, rule 4).
static FUTURE: WordList = WordList::new(amem_text::claim_words::FUTURE);

/// Modal verbs that, with a non-first-person subject and a bare verb after
/// them, speak of a possible future event ("AEP May Sell Some Foreign Assets").
static MODALS_OF_POSSIBILITY: WordList = WordList::new(amem_text::claim_words::MODALS_OF_POSSIBILITY);

/// Finite auxiliaries, copulas and modals: the finite verbs a clause can
/// hang on (shared with the compound splitter).
pub(crate) static FINITE: WordList = WordList::new(amem_text::claim_words::FINITE);

/// Auxiliaries and copulas beyond [`FINITE`]: infinitive and participle
/// forms and subject contractions; together with it, a finite verb.
static AUX_EXTRA: WordList = WordList::new(amem_text::claim_words::AUX_EXTRA);

/// Irregular past-tense verbs (no -ed ending).
static IRREGULAR_PAST: WordList = WordList::new(amem_text::claim_words::IRREGULAR_PAST);

/// Common verbs whose third-person `-s` form marks a finite verb in a
/// headline ("Hacker Modifies NPA-Operated Site", "Honeywell Lands ...").
static VERB_STEMS: WordList = WordList::new(amem_text::claim_words::VERB_STEMS);

/// Subject pronouns: a pronoun followed by a lower-case word is a clause.
static SUBJECT_PRONOUNS: WordList = WordList::new(amem_text::claim_words::CLAUSE_SUBJECT_PRONOUNS);

/// Determiners that open a noun phrase subject.
static DETERMINERS: WordList = WordList::new(amem_text::claim_words::DETERMINERS);

/// Calendar-anchored temporal cues (the gate's temporal class also holds
/// scope words such as "currently" or "since", which do not date an event).
static CALENDAR_WORDS: WordList = WordList::new(amem_text::claim_words::CALENDAR_WORDS);

/// Spelled-out numbers that count something ("four schemes"). "one" is left
/// out: "one of the few analysts" counts nothing.
static NUMBER_WORDS: WordList = WordList::new(amem_text::claim_words::NUMBER_WORDS);

/// First-person subjects (`text/lexicons/claims/first_person.txt`).
static FIRST_PERSON: WordList = WordList::new(amem_text::claim_words::FIRST_PERSON);

/// Second-person subjects (`text/lexicons/claims/second_person_subjects.txt`).
static SECOND_PERSON: WordList = WordList::new(amem_text::claim_words::SECOND_PERSON_SUBJECTS);

/// Subjects that point rather than name (`text/lexicons/claims/vague_subjects.txt`).
static VAGUE_SUBJECTS: WordList = WordList::new(amem_text::claim_words::VAGUE_SUBJECTS);

/// Verbs of stance that frame a clause (`text/lexicons/claims/stance_verbs.txt`).
static STANCE_VERBS: WordList = WordList::new(amem_text::claim_words::STANCE_VERBS);

/// Modals of obligation (`text/lexicons/claims/deontic.txt`).
static DEONTIC: WordList = WordList::new(amem_text::claim_words::DEONTIC);

/// Future and volition markers (`text/lexicons/claims/intent.txt`).
static INTENT: WordList = WordList::new(amem_text::claim_words::INTENT);

/// Modals of possibility and ability (`text/lexicons/claims/possibility_modals.txt`).
static POSSIBILITY_MODALS: WordList = WordList::new(amem_text::claim_words::POSSIBILITY_MODALS);

/// Words after which a pronoun opens a clause (`text/lexicons/claims/clause_openers.txt`).
static CLAUSE_OPENERS: WordList = WordList::new(amem_text::claim_words::CLAUSE_OPENERS);

/// Units of time (`text/lexicons/claims/time_units.txt`).
static TIME_UNITS: WordList = WordList::new(amem_text::claim_words::TIME_UNITS);

/// Irregular past participles (`text/lexicons/claims/participles.txt`).
static PARTICIPLES: WordList = WordList::new(amem_text::claim_words::PARTICIPLES);

/// Phrases marking the speaker's view (`text/lexicons/claims/stance_markers.txt`).
static STANCE_MARKERS: WordList = WordList::new(amem_text::claim_words::STANCE_MARKERS);

/// Openers that introduce a statement (`text/lexicons/claims/discourse_frames.txt`).
static DISCOURSE_FRAMES: WordList = WordList::new(amem_text::claim_words::DISCOURSE_FRAMES);

/// Predicates that state nothing after a modal (`text/lexicons/claims/empty_predicates.txt`).
static EMPTY_PREDICATES: WordList = WordList::new(amem_text::claim_words::EMPTY_PREDICATES);

/// The word lists above as hash sets: each is probed for every word of
/// every sentence.
static AUX_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(FINITE.iter().chain(AUX_EXTRA.iter()).copied()));
static DETERMINERS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(DETERMINERS.iter().copied()));
static EVALUATIVE_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(EVALUATIVE.iter().copied()));
static IMPERATIVE_VERBS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(IMPERATIVE_VERBS.iter().copied()));
static IRREGULAR_PAST_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(IRREGULAR_PAST.iter().copied()));
static VERB_STEMS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(VERB_STEMS.iter().copied()));
static NUMBER_WORDS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(NUMBER_WORDS.iter().copied()));
static FIRST_PERSON_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(FIRST_PERSON.iter().copied()));
static SECOND_PERSON_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(SECOND_PERSON.iter().copied()));
static VAGUE_SUBJECTS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(VAGUE_SUBJECTS.iter().copied()));
static STANCE_VERBS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(STANCE_VERBS.iter().copied()));
static CLAUSE_OPENERS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(CLAUSE_OPENERS.iter().copied()));
static PARTICIPLES_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(PARTICIPLES.iter().copied()));
/// The first words of discourse leads and frames: a sentence opening with
/// none of them has no frame to skip.
static FRAME_OPENERS: LazyLock<WordSet> = LazyLock::new(|| {
    let leads = DISCOURSE_LEADS.iter().chain(EXTRA_FRAME_LEADS.iter()).chain(DISCOURSE_FRAMES.iter());
    WordSet::new(leads.filter_map(|p| p.split([' ', '\'', ',']).next()))
});
/// Lexicon entries split into words once (multi-word modals and
/// predicates are compared word by word with a clause's tokens).
static DEONTIC_WORDS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| split_entries(&DEONTIC));
static INTENT_WORDS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| split_entries(&INTENT));
static POSSIBILITY_WORDS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| split_entries(&POSSIBILITY_MODALS));
static EMPTY_PREDICATE_WORDS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| split_entries(&EMPTY_PREDICATES));

fn split_entries(l: &'static WordList) -> Vec<Vec<&'static str>> {
    l.iter().map(|e| e.split(' ').collect()).collect()
}

/// Verbs of the speaker's own experience (`text/lexicons/claims/experience_verbs.txt`).
static EXPERIENCE_VERBS: WordList = WordList::new(amem_text::claim_words::EXPERIENCE_VERBS);
static EXPERIENCE_VERBS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(EXPERIENCE_VERBS.iter().copied()));

/// Month names and abbreviations (`text/lexicons/months.txt`, the one list the date reader uses).
static MONTH_NAMES_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(amem_text::dates::MONTH_WORDS.iter().copied()));

/// Superlatives (`text/lexicons/claims/superlatives.txt`).
static SUPERLATIVES: WordList = WordList::new(amem_text::claim_words::SUPERLATIVES);
static SUPERLATIVES_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(SUPERLATIVES.iter().copied()));
/// The sets a superlative ranks over (`text/lexicons/claims/ranking_scopes.txt`), split into words.
static RANKING_SCOPES: WordList = WordList::new(amem_text::claim_words::RANKING_SCOPES);
static RANKING_SCOPE_WORDS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| split_entries(&RANKING_SCOPES));

/// A ranking over a named set: a superlative within three words after
/// "the" or a possessive, then a scope ("the largest manufacturer in the
/// world", "the biggest turnaround in the history of the country"), or a
/// comparison against the whole set ("more troops than any president").
/// A reader can check it as they check a number.
fn has_ranking(ws: &[Word<'_>]) -> bool {
    let mut superlative_at = None;
    let mut than = false;
    for (i, w) in ws.iter().enumerate() {
        let l = w.lower.as_ref();
        if l == "than" {
            than = true;
        } else if superlative_at.is_none()
            && SUPERLATIVES_SET.contains(l)
            // "the most important issue": a ranking of a judgement
            && !ws.get(i + 1).is_some_and(|n| EVALUATIVE_SET.contains(n.lower.as_ref()))
            && ws[i.saturating_sub(3)..i]
                .iter()
                .any(|p| matches!(p.lower.as_ref(), "the" | "its" | "our" | "their" | "his" | "her" | "my" | "your") || p.lower.ends_with("'s"))
        {
            superlative_at = Some(i);
        }
    }
    if superlative_at.is_none() && !than {
        return false;
    }
    let tokens: Vec<&str> = ws.iter().map(|w| w.lower.as_ref()).collect();
    (0..tokens.len()).any(|j| {
        let t = &tokens[j..];
        let whole_set = t.len() >= 2 && t[0] == "than" && matches!(t[1], "any" | "ever");
        // "the closest I have ever come": the speaker's own experience, not a set
        let own_ever = t[0] == "ever" && tokens[j.saturating_sub(2)..j].iter().any(|p| FIRST_PERSON_SET.contains(p));
        whole_set || (superlative_at.is_some_and(|i| j > i) && !own_ever && phrase_len(t, &RANKING_SCOPE_WORDS).is_some())
    })
}

static TIME_UNITS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(TIME_UNITS.iter().copied()));

/// A set of short words probed once or more per word of every sentence.
/// Two layers: a bit per (first byte, length) that the set's words take,
/// which answers most probes with one load (a word of 1-8 letters
/// starting with a letter the set has no word of that length for), then a
/// hash set. SipHash (the std default, built against flooding, which
/// constant word lists do not need) was 4% of extraction; a multiply-rotate
/// hash is a few instructions per word. Only membership is asked, so
/// neither layer shows in any output.
struct WordSet {
    /// Bit `min(len, 63)` of `shapes[first byte]`: some word has that
    /// first byte and length.
    shapes: Box<[u64; 256]>,
    /// The empty word is a member (never, for these lists; kept exact).
    empty: bool,
    set: HashSet<Box<str>, amem_text::words::FastHash>,
}

impl WordSet {
    fn new<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> WordSet {
        let mut ws = WordSet { shapes: Box::new([0u64; 256]), empty: false, set: HashSet::default() };
        for w in words {
            ws.insert(w.as_ref());
        }
        ws
    }

    fn insert(&mut self, w: &str) {
        match w.as_bytes().first() {
            Some(&b) => self.shapes[usize::from(b)] |= 1 << w.len().min(63),
            None => self.empty = true,
        }
        self.set.insert(w.into());
    }

    fn contains(&self, w: &str) -> bool {
        match w.as_bytes().first() {
            Some(&b) => self.shapes[usize::from(b)] >> w.len().min(63) & 1 == 1 && self.set.contains(w),
            None => self.empty,
        }
    }
}

/// Unit and scale words of the gate's number scanner, read from its data
/// files so the lists live in one place.
static UNITS: LazyLock<WordSet> = LazyLock::new(|| {
    let mut set = WordSet::new(None::<&str>);
    for (name, body) in amem_text::LEXICON_FILES {
        if *name != "units" && *name != "scales" {
            continue;
        }
        for line in body.lines() {
            let l = line.split('#').next().unwrap_or("").trim();
            let lhs = l.split_once('=').map(|(a, _)| a).unwrap_or(l);
            for f in lhs.split('|') {
                let f = f.trim().to_lowercase();
                // Single letters ("m", "b", "k") are only units glued to a number.
                if f.chars().count() > 1 {
                    set.insert(&f);
                }
            }
        }
    }
    set
});

/// One word of a sentence.
#[derive(Debug)]
struct Word<'a> {
    /// The word as written, punctuation trimmed.
    raw: &'a str,
    /// Lower case (borrowed from `raw` when it is lower-case ASCII already:
    /// most words of mail are, and a `String` per word was a tenth of
    /// extraction).
    lower: Cow<'a, str>,
}

/// The words of `s`: the one tokenizer's [`WordRule::Pieces`] (whitespace-separated, trimmed to
/// what a word keeps at its ends: "$5", "10%" and "don't" are whole).
fn words(s: &str) -> Vec<Word<'_>> {
    let mut out = Vec::with_capacity(s.len() / 5 + 1);
    out.extend(word_spans(s, WordRule::Pieces).map(|r| {
        let raw = &s[r];
        Word { raw, lower: lower_word(raw) }
    }));
    out
}

/// [`words`] of `cased`, whose lower-case form is `body`: for ASCII text (most mail) the
/// lower-case words are slices of `body` at the same byte offsets (`body` is `cased`
/// lower-cased), with no copy.
fn words_lowered<'a>(cased: &'a str, body: &'a str) -> Vec<Word<'a>> {
    if !cased.is_ascii() || body.len() != cased.len() {
        return words(cased);
    }
    let mut out = Vec::with_capacity(cased.len() / 5 + 1);
    out.extend(word_spans(cased, WordRule::Pieces).map(|r| Word { raw: &cased[r.clone()], lower: Cow::Borrowed(&body[r]) }));
    out
}

/// `char::is_whitespace` on an ASCII byte (U+0009..U+000D and the space;
/// `u8::is_ascii_whitespace` leaves out U+000B).
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// `raw` in lower case with curly apostrophes straightened, borrowed when
/// that changes nothing (ASCII without capitals: no `’`, and
/// `to_lowercase` is the identity there).
fn lower_word(raw: &str) -> Cow<'_, str> {
    if raw.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        Cow::Borrowed(raw)
    } else {
        Cow::Owned(raw.to_lowercase().replace('’', "'"))
    }
}

/// Lower-case text with single spaces, curly quotes straightened, and a
/// leading Slack mention (`@U0BMYT2FL:`) and `[IMAGE]` markers removed.
fn normalise(s: &str) -> String {
    // U+FFFC marks an iMessage attachment inside the text: not content.
    // Most sentences hold none of the three (’ and U+FFFC start with the
    // bytes 0xE2 and 0xEF, "[IMAGE]" with '['): one byte scan instead of
    // three copies.
    let replaced: Cow<'_, str> = if s.bytes().any(|b| matches!(b, 0xE2 | 0xEF | b'[')) {
        Cow::Owned(s.replace('’', "'").replace("[IMAGE]", " ").replace('\u{FFFC}', " "))
    } else {
        Cow::Borrowed(s)
    };
    let mut t: &str = &replaced;
    // "<@U0BMYT2FL>: " or "@U0BMYT2FL: " at the start
    let trimmed = t.trim_start();
    if let Some(rest) = trimmed.strip_prefix("<@").or_else(|| trimmed.strip_prefix('@'))
        && let Some(colon) = rest.find(':')
        && !rest[..colon].contains(' ')
    {
        t = &rest[colon + 1..];
    }
    // The words joined by single spaces; an ASCII text with no other space
    // than single ones between words is that already.
    let b = t.as_bytes();
    if t.is_ascii()
        && b.first().is_some_and(|&c| !is_ascii_space(c))
        && b.last().is_some_and(|&c| !is_ascii_space(c))
        && !b.windows(2).any(|w| is_ascii_space(w[0]) && (w[0] != b' ' || is_ascii_space(w[1])))
    {
        return t.to_string();
    }
    let mut out = String::with_capacity(t.len());
    if t.is_ascii() {
        // hard-wrapped mail sentences hold line breaks: the same join by
        // bytes (ASCII whitespace runs become one space, none at the ends)
        let mut pending_space = false;
        for &c in b {
            if is_ascii_space(c) {
                pending_space = !out.is_empty();
            } else {
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
                out.push(char::from(c));
            }
        }
        return out;
    }
    for w in t.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

fn starts_with_phrase(text: &str, phrase: &str) -> bool {
    // the first byte settles nearly every probe of the prefix lists without
    // a `memcmp` call
    text.as_bytes().first() == phrase.as_bytes().first()
        && text.starts_with(phrase)
        && text[phrase.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric())
}

fn contains_phrase(text: &str, phrase: &str) -> bool {
    let mut from = 0;
    while let Some(i) = text[from..].find(phrase) {
        let s = from + i;
        if is_word_match(text, s, s + phrase.len(), phrase) {
            return true;
        }
        from = s + phrase.len().max(1);
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// A phrase occurrence at `[s, e)` that starts and ends on word boundaries
/// (a phrase ending in punctuation, such as `"vs."`, or the stem
/// `"reschedul"`, may be followed by anything).
fn is_word_match(text: &str, s: usize, e: usize, phrase: &str) -> bool {
    let before_ok = text[..s].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
    let after_ok = phrase.ends_with(|c: char| !c.is_alphanumeric()) || text[e..].chars().next().is_none_or(|c| !c.is_alphanumeric());
    before_ok && (after_ok || phrase == "reschedul")
}

/// Bits of [`PhraseHits`]: which phrase list a sentence hits.
const P_LOGISTICS: u8 = 1;
const P_CAUSAL: u8 = 2;
const P_COMPARISON: u8 = 4;
const P_FUTURE: u8 = 8;
const P_JOKE: u8 = 16;
const P_STANCE: u8 = 32;
const P_REQUEST: u8 = 64;

/// The phrase lists (logistics, causal, comparison, future, joke marks)
/// in one aho-corasick automaton, so a sentence is scanned once for all of
/// them. They were five passes (three automata, one of them run twice, and
/// twelve `str::find` scans for the joke marks), a quarter of extraction.
struct Phrases {
    ac: aho_corasick::AhoCorasick,
    /// Per pattern: the phrase, the lists holding it, and whether it is a
    /// joke mark that counts anywhere (`:)`, `;-)`, `(that was a joke`),
    /// word boundaries or not.
    patterns: Vec<(&'static str, u8, bool)>,
}

static PHRASES: LazyLock<Option<Phrases>> = LazyLock::new(|| {
    let mut patterns: Vec<(&'static str, u8, bool)> = Vec::new();
    let lists: [(&'static WordList, u8); 7] = [
        (&LOGISTICS_PHRASES, P_LOGISTICS),
        (&REQUEST_PHRASES, P_REQUEST),
        (&CAUSAL, P_CAUSAL),
        (&COMPARISON, P_COMPARISON),
        (&FUTURE, P_FUTURE),
        (&JOKE_MARKS, P_JOKE),
        (&STANCE_MARKERS, P_STANCE),
    ];
    for (list, bit) in lists {
        for &p in list.iter() {
            let loose = bit == P_JOKE && p.starts_with([':', ';', '(']);
            match patterns.iter_mut().find(|(q, _, _)| *q == p) {
                Some(e) => {
                    e.1 |= bit;
                    e.2 |= loose;
                }
                None => patterns.push((p, bit, loose)),
            }
        }
    }
    // Building can only fail on pattern sets far beyond these sizes; the
    // fallback then scans phrase by phrase.
    let ac = aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(patterns.iter().map(|p| p.0))
        .or_else(|_| aho_corasick::AhoCorasick::new(patterns.iter().map(|p| p.0)))
        .ok()?;
    Some(Phrases { ac, patterns })
});

/// The phrase lists a sentence's lower-case `body` hits (on word
/// boundaries, see [`is_word_match`]; loose joke marks anywhere): `all`
/// over the whole body, `after_lead` over the body after its discourse
/// lead (the matches starting at or after `lead`; the character before
/// `lead` is never alphanumeric, so a match there is on a word boundary in
/// the cut text exactly when it is in the whole).
#[derive(Clone, Copy, Debug, Default)]
struct PhraseHits {
    all: u8,
    after_lead: u8,
}

fn phrase_hits(body: &str, lead: usize) -> PhraseHits {
    let mut h = PhraseHits::default();
    match PHRASES.as_ref() {
        Some(ph) => {
            // Every occurrence of every phrase (overlapping search): one
            // phrase may fail its word boundaries where another one, or a
            // later occurrence, holds.
            for m in ph.ac.find_overlapping_iter(body) {
                let (p, bits, loose) = ph.patterns[m.pattern().as_usize()];
                let bits = if is_word_match(body, m.start(), m.end(), p) {
                    bits
                } else if loose {
                    P_JOKE
                } else {
                    0
                };
                h.all |= bits;
                if m.start() >= lead {
                    h.after_lead |= bits;
                }
            }
        }
        None => {
            let cut = &body[lead..];
            for (list, bit) in [
                (&LOGISTICS_PHRASES, P_LOGISTICS),
                (&REQUEST_PHRASES, P_REQUEST),
                (&CAUSAL, P_CAUSAL),
                (&COMPARISON, P_COMPARISON),
                (&FUTURE, P_FUTURE),
            ] {
                if list.iter().any(|p| contains_phrase(body, p)) {
                    h.all |= bit;
                }
                if list.iter().any(|p| contains_phrase(cut, p)) {
                    h.after_lead |= bit;
                }
            }
            if JOKE_MARKS.iter().any(|j| contains_phrase(body, j) || body.contains(j) && j.starts_with([':', ';', '('])) {
                h.all |= P_JOKE;
            }
            if STANCE_MARKERS.iter().any(|p| contains_phrase(body, p)) {
                h.all |= P_STANCE;
            }
        }
    }
    h
}

/// Classify one sentence. `cues` are the sentence's stance cues (from
/// [`amem_text::cues::detect_cues`] on the same text).
pub fn classify(sentence: &str, cues: &[Cue]) -> ClaimKind {
    classify_settled(sentence, cues).0
}

/// What settled a sentence's kind in [`classify_settled`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Its form: no letters, a greeting, a question, a heading in capitals, a
    /// fragment with no verb and no value. Never a claim whatever it says, so a
    /// check-worthiness model is not asked.
    Structure,
    /// The word rules (logistics, opinion, the audited kinds, the assertion
    /// check): a judgement a check-worthiness model may overrule.
    Rules,
}

/// [`classify`], with what settled the kind: its form, or the word rules.
pub fn classify_settled(sentence: &str, cues: &[Cue]) -> (ClaimKind, Settled) {
    use Settled::{Rules, Structure};
    let normalised = normalise(sentence);
    let cased = strip_emoji_codes(&normalised);
    let body = cased.to_lowercase();
    // 1. No letters: emoji and reactions, or bare numbers. Nothing left once
    // markup is removed ("[IMAGE]", a bare "@U0BMYT2FL:") is a fragment, not an emoji.
    if normalised.trim().is_empty() {
        return (ClaimKind::Logistics, Structure);
    }
    // (an ASCII letter settles it without decoding; else any alphabetic char)
    if !body.bytes().any(|b| b.is_ascii_alphabetic()) && !body.chars().any(char::is_alphabetic) {
        return (if body.chars().any(|c| c.is_ascii_digit()) { ClaimKind::Logistics } else { ClaimKind::Greeting }, Structure);
    }
    let ws = words_lowered(&cased, &body);
    let lower_trim = body.trim_matches(|c: char| !c.is_alphanumeric());
    let after_lead = without_discourse_lead(&body);
    let hits = phrase_hits(&body, body.len() - after_lead.len());
    // 2. Greetings, thanks, sign-offs.
    if is_greeting(&body, lower_trim, &ws, sentence, hits) {
        return (ClaimKind::Greeting, Structure);
    }
    // 3. Questions.
    let last = sentence
        .trim_end()
        .trim_end_matches(|c: char| matches!(c, '"' | '\'' | ')' | '”' | '’') || (!c.is_ascii() && !c.is_alphanumeric()));
    if last.ends_with('?') {
        // "Do you know that it's tripled in the last five years?": a
        // rhetorical question that asserts its clause
        if let Some(rest) = after_rhetorical_question(last) {
            return classify_settled(rest, &amem_text::cues::detect_cues(rest));
        }
        return (ClaimKind::Question, Structure);
    }
    if is_question_without_mark(&body) {
        return (ClaimKind::Question, Structure);
    }
    // A frame that introduces a statement ("Let me remind you it was a
    // Democratic tax increase"): the statement decides.
    if let Some(rest) = after_discourse_frame(sentence) {
        return classify_settled(rest, &amem_text::cues::detect_cues(rest));
    }
    // 4. Logistics.
    if is_logistics(after_lead, &ws, hits) {
        return (ClaimKind::Logistics, Rules);
    }
    // 5. Opinions: the user's preferences, or an evaluative predicate.
    if is_opinion(sentence, after_lead, &ws, cues, hits) {
        return (ClaimKind::Opinion, Rules);
    }
    // 6. Fragments. A line in capitals without a lower-case letter is a
    // heading or a shout ("FREE MANAGED FUTURES & IRA RETIREMENT KIT").
    // (the lower-case test first: it settles nearly every sentence)
    if !cased.chars().any(char::is_lowercase) && ws.iter().filter(|w| w.raw.chars().filter(|c| c.is_alphabetic()).count() >= 2).count() >= 2
    {
        return (ClaimKind::Logistics, Structure);
    }
    if !has_finite_verb(&ws) {
        // A named value ("Natural Gas: $2.791") is left to the model: a price tick is rarely worth checking.
        return if is_named_value(&ws, cues) || is_prose_with_value(&ws, cues) {
            (ClaimKind::Quantity, Rules)
        } else {
            (ClaimKind::Logistics, Structure)
        };
    }
    // 7. Audited kinds, 8. if the sentence asserts something checkable.
    let kind = audited_kind(sentence, &ws, cues, hits);
    (assertion_check(sentence, &ws, cues, hits, kind).unwrap_or(kind), Rules)
}

/// Spoken leads skipped before a discourse frame, beyond [`DISCOURSE_LEADS`]
/// (`text/lexicons/claims/frame_leads.txt`).
static EXTRA_FRAME_LEADS: WordList = WordList::new(amem_text::claim_words::FRAME_LEADS);

/// The statement after a leading discourse frame ("Keep in mind that ...",
/// "Well, let me say ..."), when one opens `sentence` and at least three
/// words follow it.
fn after_discourse_frame(sentence: &str) -> Option<&str> {
    fn skip(t: &str) -> &str {
        t.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ',' | '-' | '–' | '—' | ':'))
    }
    let starts = |t: &str, p: &str| {
        t.len() >= p.len()
            && t.is_char_boundary(p.len())
            && t[..p.len()].eq_ignore_ascii_case(p)
            && t[p.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '\'')
    };
    let mut t = skip(sentence);
    // Most sentences open with neither a lead nor a frame: one probe of
    // their first word settles them.
    let first = t.split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    if first.len() > 12 || !FRAME_OPENERS.contains(first.to_ascii_lowercase().as_str()) {
        return None;
    }
    // discourse leads first ("Well, now, ...")
    loop {
        let before = t.len();
        for d in DISCOURSE_LEADS.iter().chain(EXTRA_FRAME_LEADS.iter()) {
            if starts(t, d) {
                t = skip(&t[d.len()..]);
            }
        }
        if t.len() == before {
            break;
        }
    }
    let frame = DISCOURSE_FRAMES.iter().filter(|f| starts(t, f)).max_by_key(|f| f.len())?;
    let mut rest = skip(&t[frame.len()..]);
    if starts(rest, "that") {
        rest = skip(&rest[4..]);
    }
    (rest.split_whitespace().count() >= 3).then_some(rest)
}

/// The clause a rhetorical question asserts ("Do you know that ...?",
/// "Did you know that ...?", "Do you realize ...?"), without its question
/// mark, when at least four words follow the frame.
fn after_rhetorical_question(sentence: &str) -> Option<&str> {
    let t = sentence.trim_start();
    let frames =
        ["do you know that ", "did you know that ", "do you realize that ", "do you realise that ", "do you realize ", "do you realise "];
    let frame = frames.iter().find(|f| t.len() > f.len() && t.is_char_boundary(f.len()) && t[..f.len()].eq_ignore_ascii_case(f))?;
    let rest = t[frame.len()..].trim_end().trim_end_matches('?').trim_end();
    (rest.split_whitespace().count() >= 4).then_some(rest)
}

/// `:+1:`, `:smile:` Slack emoji codes removed.
fn strip_emoji_codes(s: &str) -> Cow<'_, str> {
    if !s.contains(':') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(':') {
        let after = &rest[i + 1..];
        let code_len = after.find(':').filter(|&j| j > 0 && after[..j].chars().all(|c| c.is_ascii_alphanumeric() || "_+-".contains(c)));
        match code_len {
            Some(j) => {
                out.push_str(&rest[..i]);
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[..=i]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

fn is_greeting(body: &str, lower_trim: &str, ws: &[Word<'_>], original: &str, hits: PhraseHits) -> bool {
    if amem_text::signature::is_sign_off_line(original) {
        return true;
    }
    if REACTIONS.contains(&lower_trim) {
        return true;
    }
    let opener = body.trim_start_matches(['-', ' ']);
    if let Some(p) = GREETING_PREFIXES.iter().find(|p| starts_with_phrase(opener, p)) {
        // A salutation is a greeting only with at most a name after it:
        // "hey, the server is down" is a chat line that opens with "hey",
        // and the claim after it must not be dropped from the audit.
        if SALUTATIONS.contains(p) {
            let rest_words = opener[p.len()..].split_whitespace().count();
            if rest_words <= 3 {
                return true;
            }
        } else if ws.len() <= 25 && !body.bytes().any(|c| c.is_ascii_digit()) {
            // "Thanks to the storm, prices rose" is causal, not thanks.
            return !body.starts_with("thanks to ");
        }
    }
    if hits.all & P_JOKE != 0 {
        return true;
    }
    // A lone sign-off name: "Andy", "-Andy", "Rick" (one capitalised word, not all caps).
    let t = original.trim().trim_start_matches(['-', '–', ' ']).trim_end_matches(['.', ',']);
    if !t.contains(char::is_whitespace) {
        let mut cs = t.chars();
        let first_upper = cs.next().is_some_and(char::is_uppercase);
        let rest_lower = t.chars().skip(1).all(char::is_lowercase);
        if first_upper && rest_lower && (2..=12).contains(&t.chars().count()) && !AUX_SET.contains(t.to_lowercase().as_str()) {
            return true;
        }
    }
    false
}

/// Leading discourse words that do not change what a sentence does
/// ("Unfortunately, I will not be available" is still the author's plan).
static DISCOURSE_LEADS: WordList = WordList::new(amem_text::claim_words::DISCOURSE_LEADS);

/// `body` without leading discourse words and their commas.
fn without_discourse_lead(body: &str) -> &str {
    let mut b = body;
    loop {
        let before = b;
        for d in DISCOURSE_LEADS.iter() {
            if starts_with_phrase(b, d) {
                b = b[d.len()..].trim_start_matches([',', ' ']);
            }
        }
        if b.len() == before.len() {
            return b;
        }
    }
}

/// `body`: the lower-case sentence after its discourse lead.
fn is_logistics(body: &str, ws: &[Word<'_>], hits: PhraseHits) -> bool {
    if LABEL_PREFIXES.iter().any(|p| body.as_bytes().first() == p.as_bytes().first() && body.starts_with(p)) {
        return true;
    }
    // A line introducing a list, a link or a block: "It can be found at:".
    if body.trim_end().ends_with(':') {
        return true;
    }
    if hits.after_lead & P_LOGISTICS != 0 {
        return true;
    }
    // A request phrase inside a long sentence that states a value ("I
    // think we need to be more even-handed, as evidently 99 senators
    // supported that position") does not make the value a request.
    if hits.after_lead & P_REQUEST != 0 && !(ws.len() >= 12 && has_quantity(ws, &[])) {
        return true;
    }
    if OWN_PLAN_PREFIXES.iter().any(|p| starts_with_phrase(body, p)) {
        return true;
    }
    // Imperative: the first word (after "please", "just", "or") is a bare verb.
    let mut i = 0;
    while i < ws.len() && IMPERATIVE_LEADS.contains(&ws[i].lower.as_ref()) {
        i += 1;
    }
    if let Some(w) = ws.get(i) {
        let verb = IMPERATIVE_VERBS_SET.contains(w.lower.as_ref());
        // "Report says ..." or "Call volumes rose": a verb-like first word
        // followed by a finite verb is a noun subject, not an imperative.
        let followed_by_finite = ws.get(i + 1).is_some_and(|n| is_finite_word(n, true));
        if verb && !followed_by_finite && ws.len() > i + 1 {
            return true;
        }
    }
    // Bare URLs, addresses, code-like lines.
    if ws.iter().all(|w| is_url_like(w.raw) || w.raw.starts_with('@')) {
        return true;
    }
    false
}

/// "Could anybody tell me what this means, ..." asked without a `?`.
fn is_question_without_mark(body: &str) -> bool {
    let mut it = body.split_whitespace();
    let (Some(a), Some(b)) = (it.next(), it.next()) else { return false };
    matches!(a, "could" | "can" | "would" | "will" | "does" | "do" | "is" | "are" | "has" | "have")
        && matches!(b.trim_matches(|c: char| !c.is_alphanumeric()), "anybody" | "anyone" | "someone" | "somebody" | "any")
}

fn is_url_like(w: &str) -> bool {
    // ASCII case-insensitive prefixes: the same test as on the lower-cased
    // word, without a copy per word (this runs on every word).
    let prefix = |p: &str| w.len() >= p.len() && w.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    prefix("http") || prefix("www.") || w.contains("://") || (w.contains('@') && w.contains('.')) || prefix("mailto:")
}

/// `body`: the lower-case sentence after its discourse lead.
fn is_opinion(sentence: &str, body: &str, ws: &[Word<'_>], cues: &[Cue], hits: PhraseHits) -> bool {
    if PREFERENCE_PREFIXES.iter().any(|p| starts_with_phrase(body, p)) {
        return true;
    }
    // An opinion needs all of: no causal connective, at most 30 words, an
    // evaluative word, no value, no reported speech. Tested cheapest first
    // (pure tests: the order does not change the answer).
    if hits.after_lead & P_CAUSAL != 0 || ws.len() > 30 || !ws.iter().any(|w| EVALUATIVE_SET.contains(w.lower.as_ref())) {
        return false;
    }
    // Digits inside a link or a mention ("watch?v=zwYV11a__HQ") are no value.
    let has_digit = ws.iter().any(|w| {
        (w.raw.bytes().any(|c| c.is_ascii_digit()) && !is_url_like(w.raw) && !w.raw.starts_with('@'))
            || NUMBER_WORDS_SET.contains(w.lower.as_ref())
            || w.lower == "percent"
    });
    !has_digit && !has_ranking(ws) && !cues.iter().any(|c| c.class == CueClass::Attribution && is_reported_speech(sentence, c))
}

/// True when the word is a finite verb form. `strict` leaves out the
/// ambiguous `-s` forms (nouns in plural look the same).
fn is_finite_word(w: &Word<'_>, strict: bool) -> bool {
    let l = w.lower.as_ref();
    if AUX_SET.contains(l) || IRREGULAR_PAST_SET.contains(l) {
        return true;
    }
    if strict {
        return false;
    }
    if l.len() > 4 && l.ends_with("ed") && l.chars().all(|c| c.is_alphabetic() || c == '-') {
        return true;
    }
    if l.len() > 3 && l.ends_with('s') && !l.ends_with("ss") && !l.ends_with("us") && !l.ends_with("is") {
        let stem1 = &l[..l.len() - 1];
        let stem2 = l.strip_suffix("es").unwrap_or(stem1);
        let stem3 = l.strip_suffix("ies").map(|s| format!("{s}y"));
        if VERB_STEMS_SET.contains(stem1) || VERB_STEMS_SET.contains(stem2) || stem3.as_deref().is_some_and(|s| VERB_STEMS_SET.contains(s))
        {
            return true;
        }
    }
    false
}

/// True for an irregular past form, a `-ed` form or a known verb's `-s`
/// form (used by the compound splitter).
pub(crate) fn is_past_or_present_verb(lower: &str) -> bool {
    let w = Word { raw: lower, lower: Cow::Borrowed(lower) };
    IRREGULAR_PAST_SET.contains(lower) || is_finite_word(&w, false)
}

/// True when the text has a finite verb (used by the compound splitter too).
pub(crate) fn text_has_finite_verb(text: &str) -> bool {
    has_finite_verb(&words(text))
}

fn has_finite_verb(ws: &[Word<'_>]) -> bool {
    finite_index(ws).is_some()
}

/// The index of the first word that shows the sentence has a finite verb:
/// the verb itself, or a subject pronoun followed by a lower-case word
/// ("we do GA": the pronoun's index).
fn finite_index(ws: &[Word<'_>]) -> Option<usize> {
    for (i, w) in ws.iter().enumerate() {
        let l = w.lower.as_ref();
        // "AM"/"PM" after a time ("Departure: Tulsa 8:39 AM") is not the verb "am".
        if l == "am" && !(i > 0 && ws[i - 1].lower == "i") {
            continue;
        }
        if AUX_SET.contains(l) || IRREGULAR_PAST_SET.contains(l) {
            return Some(i);
        }
        // A subject pronoun followed by a lower-case word: "We do GA", "you begin".
        if SUBJECT_PRONOUNS.contains(&l)
            && !matches!(l, "this" | "that" | "these" | "those")
            && let Some(n) = ws.get(i + 1)
            && n.raw.chars().next().is_some_and(char::is_lowercase)
            && !DETERMINERS_SET.contains(n.lower.as_ref())
        {
            return Some(i);
        }
        // "-ed" past forms, not as the first word of a title ("Unregulated storage"),
        // nor right after a determiner ("the unspent reserves").
        if l.len() > 4 && l.ends_with("ed") && l.chars().all(|c| c.is_alphabetic() || c == '-') {
            let prev_det = i > 0 && DETERMINERS_SET.contains(ws[i - 1].lower.as_ref());
            let next_det = ws.get(i + 1).is_some_and(|n| DETERMINERS_SET.contains(n.lower.as_ref()) || n.lower == "to");
            if (i > 0 && !prev_det) || next_det {
                return Some(i);
            }
        }
        if i > 0 && i + 1 < ws.len() && is_finite_word(w, false) && !l.ends_with("ed") {
            return Some(i);
        }
        // A base-form verb after a plural noun: "the two groups own 12 shipyards".
        if i > 0 && i + 1 < ws.len() && VERB_STEMS_SET.contains(l) {
            let p = ws[i - 1].lower.as_ref();
            if p.len() > 3 && p.ends_with('s') && !p.ends_with("ss") && !DETERMINERS_SET.contains(p) {
                return Some(i);
            }
        }
    }
    None
}

/// A number token: digits with optional `$ % , .`, not a phone number,
/// date, time, year, version or code.
/// A token that states a quantity, read by the text layer's one number reader
/// (`amem_text::quantity::read_numbers`): one number, not part of a name ("B12",
/// "COVID-19", "5G"), a version ("5.2.1") or a slash form, and not a year
/// standing alone (a year is a date, not a quantity).
fn is_quantity_number(w: &str) -> bool {
    let t = w.trim_matches(|c: char| matches!(c, '(' | ')' | '+' | '-' | '*'));
    let readings = amem_text::quantity::read_numbers(t);
    let [r] = readings.as_slice() else {
        return false;
    };
    if r.in_name || r.name_suffix || r.slashed {
        return false;
    }
    let bare = r.unit.is_none() && r.scale == 1.0 && !r.ordinal;
    let year_alone = bare && !r.grouped && r.decimals == 0 && r.digits.len() == 4 && (1900.0..=2100.0).contains(&r.unsigned);
    !year_alone
}

fn is_phone_like(w: &str) -> bool {
    let digits = w.chars().filter(char::is_ascii_digit).count();
    digits >= 7
        && w.chars().all(|c| c.is_ascii_digit() || "-()/.+x ".contains(c))
        && (w.contains('-') || w.contains('/') || w.contains('('))
}

fn has_quantity(ws: &[Word<'_>], cues: &[Cue]) -> bool {
    // Numbers the gate's scanner reads as parts of a date ("December 11",
    // "Jan. 5, 2001") are dates, not quantities.
    let date_numbers: Vec<&str> =
        cues.iter().filter(|c| c.class == CueClass::Temporal && c.rule.starts_with("temporal:date")).map(|c| c.text.as_str()).collect();
    for (i, w) in ws.iter().enumerate() {
        if is_phone_like(w.raw) || w.raw.contains(':') || w.raw.contains('/') {
            continue;
        }
        if date_numbers.contains(&w.raw.trim_matches(|c: char| !c.is_ascii_digit())) {
            continue;
        }
        if is_quantity_number(w.raw) {
            let next = ws.get(i + 1);
            let money_or_pct = w.raw.contains(['$', '%', '€', '£']);
            let glued = w.raw.chars().last().is_some_and(|c| c.is_ascii_alphabetic());
            let unit_next = next.is_some_and(|n| UNITS.contains(&n.lower) || n.raw.chars().next().is_some_and(char::is_lowercase));
            let prev_label = i > 0 && ws[i - 1].raw.chars().any(char::is_alphabetic) && !DETERMINERS_SET.contains(ws[i - 1].lower.as_ref());
            if money_or_pct || glued || unit_next || prev_label {
                return true;
            }
        }
        if NUMBER_WORDS_SET.contains(w.lower.as_ref())
            && let Some(n) = ws.get(i + 1)
            && n.raw.chars().next().is_some_and(char::is_lowercase)
            && !matches!(n.lower.as_ref(), "of" | "and" | "or" | "to")
        {
            return true;
        }
    }
    false
}

/// A verbless line that names a value: "NASDAQ: 2,022.7", "7 minutes cpu
/// time", "Net Open Position - 18.4 Million Tons". Table rows with several
/// numbers and no label, addresses ("315 Pacific Ave."), phone numbers and
/// year-only headings ("Gas Storage 2002") are not.
fn is_named_value(ws: &[Word<'_>], cues: &[Cue]) -> bool {
    if ws.len() > 8 {
        return false;
    }
    let numbers = ws.iter().filter(|w| w.raw.chars().any(|c| c.is_ascii_digit())).count();
    if numbers == 0 || numbers > 2 {
        return false;
    }
    // An address: a leading number followed by a capitalised word.
    if ws.len() >= 2 && ws[0].raw.chars().all(|c| c.is_ascii_digit()) && ws[1].raw.chars().next().is_some_and(char::is_uppercase) {
        return false;
    }
    // Every word with letters must be a real word, not a code ("03FEB").
    let has_label = ws.iter().any(|w| w.raw.chars().all(|c| c.is_alphabetic() || c == '-') && w.raw.chars().count() >= 2);
    has_label && has_quantity(ws, cues)
}

/// A clause of running prose that carries a value although its verb is
/// not in the lists ("just 1 percent of the richest people derive 25
/// percent of all the tax benefits"): eight words or more, most of them
/// lower-case words (not a table row, a heading or an address).
fn is_prose_with_value(ws: &[Word<'_>], cues: &[Cue]) -> bool {
    if ws.len() < 8 {
        return false;
    }
    let prose = ws
        .iter()
        .filter(|w| {
            w.raw.chars().next().is_some_and(char::is_lowercase) && w.raw.chars().all(|c| c.is_alphabetic() || c == '\'' || c == '-')
        })
        .count();
    prose * 10 >= ws.len() * 6 && has_quantity(ws, cues)
}

fn audited_kind(sentence: &str, ws: &[Word<'_>], cues: &[Cue], hits: PhraseHits) -> ClaimKind {
    if cues.iter().any(|c| c.class == CueClass::Attribution && is_reported_speech(sentence, c)) {
        return ClaimKind::Attribution;
    }
    if is_prediction(ws, hits) {
        return ClaimKind::Prediction;
    }
    if hits.all & P_CAUSAL != 0 || is_price_move_on(ws) {
        return ClaimKind::Causal;
    }
    if hits.all & P_COMPARISON != 0 {
        return ClaimKind::Comparison;
    }
    if has_quantity(ws, cues) {
        return ClaimKind::Quantity;
    }
    if cues.iter().any(|c| c.class == CueClass::Temporal && is_calendar_cue(c) && !is_inside_link(sentence, c)) {
        return ClaimKind::Date;
    }
    ClaimKind::Fact
}

/// Who a clause is about, read from the word its first finite verb hangs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Subject {
    /// "I", "we" and their contractions.
    FirstPerson,
    /// "you".
    SecondPerson,
    /// A pronoun that points ("it", "that", "they", "there").
    Pointing,
    /// A noun phrase or a name ("the plant", "Vitamin D", "Senator Obama").
    Named,
}

/// The modality of a clause, read at its first finite verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Modality {
    /// Obligation: "must", "should", "have to".
    Deontic,
    /// Future or volition: "will", "going to", "want to".
    Intent,
    /// Possibility or ability: "may", "could", "can".
    Possible,
    /// None of these.
    Plain,
}

/// Adverbs that may stand between a subject and its verb ("we really must",
/// "I also think").
fn is_inner_adverb(w: &str) -> bool {
    matches!(w, "also" | "still" | "just" | "really" | "all" | "now" | "then" | "certainly" | "always" | "actually" | "only" | "simply")
        || (w.len() > 4 && w.ends_with("ly"))
}

/// The lower-case tokens of a clause's predicate from `verb` on: a
/// contraction glued to the subject word ("we'll", "I'd") gives its suffix
/// as the first token ("'ll"). `glued` is the subject word when the finite
/// verb is part of it.
fn predicate_tokens<'a>(ws: &'a [Word<'a>], verb: usize, glued: Option<&'a str>) -> Vec<&'a str> {
    let mut out = Vec::with_capacity(ws.len().saturating_sub(verb) + 1);
    if let Some(g) = glued
        && let Some(i) = g.find('\'')
    {
        out.push(&g[i..]);
    }
    out.extend(ws.iter().skip(verb).map(|w| w.lower.as_ref()).filter(|w| !is_inner_adverb(w)));
    out
}

/// The number of tokens a list entry matches at the start of `tokens` (the
/// longest entry wins), if any.
fn phrase_len(tokens: &[&str], list: &[Vec<&'static str>]) -> Option<usize> {
    list.iter().filter(|e| tokens.len() >= e.len() && e.iter().zip(tokens).all(|(a, b)| a == b)).map(Vec::len).max()
}

/// What in a sentence ties it to something a reader could check.
#[derive(Clone, Copy, Debug, Default)]
struct Anchors {
    /// A value, a count, a date or a span of time ("15 million", "in
    /// 1985", "the last few days"), or a kind that rests on one.
    value: bool,
    /// A name: a capitalised word that is not the sentence's first word
    /// nor the pronoun "I".
    name: bool,
    /// Two names or more.
    names: bool,
    /// A capitalised word inside the sentence (`name` also holds for
    /// every attribution, whose source counts as named).
    capitalised: bool,
}

fn anchors(ws: &[Word<'_>], kind: ClaimKind) -> Anchors {
    // (a date is added by the caller: "today" and "tonight" date no claim)
    let mut a = Anchors { value: kind == ClaimKind::Quantity, name: kind == ClaimKind::Attribution, names: false, capitalised: false };
    let mut named = 0;
    for (i, w) in ws.iter().enumerate() {
        let digit = w.raw.bytes().any(|c| c.is_ascii_digit()) && !is_url_like(w.raw) && !w.raw.starts_with('@');
        let count = NUMBER_WORDS_SET.contains(w.lower.as_ref()) || w.lower == "percent";
        // "the last few days", "about one hour after", "the coming weeks"
        let span_of_time = TIME_UNITS_SET.contains(w.lower.as_ref())
            && ws[i.saturating_sub(2)..i].iter().any(|p| {
                NUMBER_WORDS_SET.contains(p.lower.as_ref())
                    || matches!(p.lower.as_ref(), "one" | "few" | "several" | "last" | "past" | "next" | "coming" | "previous")
            });
        // "by March", "in May": a capitalised month after a preposition of time
        let month = i > 0
            && w.raw.chars().next().is_some_and(char::is_uppercase)
            && MONTH_NAMES_SET.contains(w.lower.as_ref())
            && matches!(
                ws[i - 1].lower.as_ref(),
                "by" | "in"
                    | "on"
                    | "until"
                    | "since"
                    | "before"
                    | "after"
                    | "from"
                    | "through"
                    | "during"
                    | "early"
                    | "late"
                    | "mid"
                    | "last"
                    | "next"
                    | "this"
            );
        a.value |= digit || count || span_of_time || month;
        if i > 0
            && w.raw.chars().next().is_some_and(char::is_uppercase)
            && w.raw.chars().count() >= 2
            && !FIRST_PERSON_SET.contains(w.lower.as_ref())
        {
            named += 1;
        }
    }
    a.name |= named > 0;
    a.names = named > 1;
    a.capitalised = named > 0;
    a.value |= has_ranking(ws);
    a
}

/// The words after "it" of a cleft: a copula (glued in "it's" when
/// `glued`), "not" at most, a focus opened by "the", a possessive or a
/// name, then "that" or "who" within six words.
fn is_cleft(after: &[Word<'_>], glued: bool) -> bool {
    let mut i = 0;
    if !glued {
        if !after.first().is_some_and(|w| matches!(w.lower.as_ref(), "is" | "was")) {
            return false;
        }
        i = 1;
    }
    if after.get(i).is_some_and(|w| w.lower == "not") {
        i += 1;
    }
    let Some(focus) = after.get(i) else { return false };
    let definite = matches!(focus.lower.as_ref(), "the" | "my" | "our" | "his" | "her" | "their" | "your")
        || focus.raw.chars().next().is_some_and(char::is_uppercase);
    definite && after.iter().skip(i + 1).take(6).any(|w| matches!(w.lower.as_ref(), "that" | "who" | "that's" | "who's"))
}

/// "not", "n't" or "never": the words a predicate's verb is read past.
fn is_negator(token: &str) -> bool {
    matches!(token, "not" | "n't" | "never")
}

/// The predicate's lexical verb (after its auxiliaries and "not") is a
/// verb of the speaker's own experience ("met with", "have seen").
fn tells_experience(tokens: &[&str]) -> bool {
    tokens.iter().find(|t| !AUX_SET.contains(t) && !is_negator(t)).is_some_and(|t| EXPERIENCE_VERBS_SET.contains(t))
}

/// First- or second-person words in a predicate ("hurt us", "our
/// country", "your future").
fn speaks_of_persons(tokens: &[&str]) -> bool {
    tokens.iter().any(|t| {
        FIRST_PERSON_SET.contains(t)
            || SECOND_PERSON_SET.contains(t)
            || matches!(*t, "me" | "my" | "us" | "our" | "your" | "myself" | "ourselves" | "yourself")
    })
}

/// A subject noun phrase opened by "my" ("my plan", "well, my last
/// word"), after at most one discourse word.
fn owned_subject(np: &[Word<'_>]) -> bool {
    let mut it = np.iter().map(|w| w.lower.as_ref());
    let first = it.next();
    let owned = |w: Option<&str>| w == Some("my");
    owned(first) || (first.is_some_and(|w| DISCOURSE_LEADS.contains(&w) || matches!(w, "now" | "well")) && owned(it.next()))
}

/// Does the predicate report an event: a past tense ("cut", "opposed",
/// "was") or a perfect ("has taken", "have grown")? `tokens` start at the
/// clause's finite verb.
fn reports_event(tokens: &[&str]) -> bool {
    let mut t = tokens.iter().copied().filter(|t| !is_negator(t));
    let Some(first) = t.next() else { return false };
    let past_form =
        |w: &str| IRREGULAR_PAST_SET.contains(w) || (w.len() > 4 && w.ends_with("ed") && w.chars().all(|c| c.is_alphabetic() || c == '-'));
    if matches!(first, "was" | "were" | "did" | "didn't" | "wasn't" | "weren't" | "had" | "hadn't" | "'d") || past_form(first) {
        return true;
    }
    // "have got" is possession ("we've got a plan"), not an event
    matches!(first, "has" | "have" | "'ve" | "'s" | "hasn't" | "haven't")
        && t.next().is_some_and(|n| n != "got" && (past_form(n) || PARTICIPLES_SET.contains(n)))
}

/// A copula followed by a noun phrase ("is the most important criterion",
/// "is what we look for"), not by an adjective, a preposition or a
/// participle ("is full", "is above the consensus", "is being
/// decommissioned"). `tokens` start at the clause's finite verb.
fn is_classification(tokens: &[&str]) -> bool {
    let mut t = tokens.iter().copied().filter(|t| !is_negator(t));
    let Some(first) = t.next() else { return false };
    if !matches!(first, "is" | "are" | "was" | "were" | "'s" | "'re" | "isn't" | "aren't" | "wasn't" | "weren't") {
        return false;
    }
    // a noun phrase or a free relative after the copula; an adjective or a
    // preposition ("is full", "is above the consensus") states a checkable
    // property
    t.next().is_some_and(|n| DETERMINERS_SET.contains(n) || matches!(n, "what" | "one" | "something" | "someone"))
}

/// Step 8: does an audited-looking sentence assert something a reader
/// could check? `None` keeps `kind`; `Some(k)` is the not-audited kind it
/// is instead. A checkable assertion names what it is about (a noun-phrase
/// subject: "The plant runs on coal."), or reports an event ("I opposed the
/// grain embargo."), or carries a value or a date ("We cut taxes for 15
/// million working Americans."). It is not advocacy ("We've got to help
/// them."), the speaker's own plan ("I'm going to bring rates down."), a
/// stance ("We didn't think so.", "You're right.", "I think we've seen a
/// deterioration of values.") or a pointer at a suggestion ("Even the
/// creation time might do."). A stance frame ("I think ...", "in my
/// judgment") keeps a sentence audited only with a value or a date (a frame
/// heading the clause, "I believe I discussed this with Pug", also with a
/// name);
/// a pointing, first- or second-person subject needs a value, a date, an
/// event or two names.
fn assertion_check(sentence: &str, ws: &[Word<'_>], cues: &[Cue], hits: PhraseHits, kind: ClaimKind) -> Option<ClaimKind> {
    let mut anchor = anchors(ws, kind);
    // "today", "tonight": the day of speaking, which places nothing in
    // time a reader could check ("I appreciate your listening tonight")
    anchor.value |= cues.iter().any(|c| {
        c.class == CueClass::Temporal
            && is_calendar_cue(c)
            && !is_inside_link(sentence, c)
            && !matches!(c.text.to_lowercase().as_str(), "today" | "tonight" | "this morning" | "this afternoon" | "this evening")
    });
    // A sentence opening with its condition ("If we invest now in our
    // young people, that will allow them to ...") states a hypothesis;
    // with figures in it ("If you make less than $250,000, you will not
    // see ...") it states a rule a reader can check.
    let opening = ws.iter().map(|w| w.lower.as_ref()).find(|w| !DISCOURSE_LEADS.contains(w) && !EXTRA_FRAME_LEADS.contains(w));
    let figures = ws.iter().any(|w| w.raw.bytes().any(|c| c.is_ascii_digit()) && !is_url_like(w.raw));
    if opening == Some("if") && !figures {
        return Some(ClaimKind::Opinion);
    }
    // "Because I was a senator with a Republican president.": a reason
    // standing alone, the answer to a question, with no main clause
    if opening == Some("because") && !figures && !sentence.contains(',') {
        return Some(ClaimKind::Opinion);
    }
    let mut framed = hits.all & P_STANCE != 0;
    // "I think", "we don't know", "I firmly believe" anywhere in the sentence.
    for (i, w) in ws.iter().enumerate() {
        if FIRST_PERSON_SET.contains(w.lower.as_ref()) {
            let mut k = i + 1;
            while ws.get(k).is_some_and(|n| {
                matches!(
                    n.lower.as_ref(),
                    "do" | "don't" | "did" | "didn't" | "not" | "really" | "firmly" | "strongly" | "just" | "also" | "still"
                )
            }) {
                k += 1;
            }
            framed |= ws.get(k).is_some_and(|n| STANCE_VERBS_SET.contains(n.lower.as_ref()));
        }
    }
    let mut start = 0;
    // At most two stance frames at the clause's head ("I think I know ..."), then the clause.
    for _ in 0..3 {
        let clause = &ws[start..];
        // A stance verb with a plain object and no clause after it ("I
        // remember the world with NATO", "I know something about
        // prosecuting") is the speaker's own memory or knowledge.
        let Some(fi) = finite_index(clause) else {
            return (start > 0 && !anchor.value).then_some(ClaimKind::Opinion);
        };
        let at = clause[fi].lower.as_ref();
        let pronoun_here = FIRST_PERSON_SET.contains(at)
            || SECOND_PERSON_SET.contains(at)
            || VAGUE_SUBJECTS_SET.contains(at)
            || SUBJECT_PRONOUNS.contains(&at);
        // A pronoun after a noun ("the volume we generate makes ...") opens
        // a relative clause: the subject is the noun phrase before it.
        let relative = pronoun_here
            && fi > 0
            && !at.contains('\'')
            && !CLAUSE_OPENERS_SET.contains(clause[fi - 1].lower.as_ref())
            && !DISCOURSE_LEADS.contains(&clause[fi - 1].lower.as_ref())
            && clause[fi - 1].raw.chars().next().is_some_and(char::is_lowercase)
            && finite_index(&clause[fi + 1..]).is_some();
        let (subject_word, verb, glued) = if relative {
            (None, fi + 1, None)
        } else if pronoun_here {
            (Some(at), fi + 1, at.contains('\'').then_some(at))
        } else {
            (fi.checked_sub(1).map(|p| clause[p].lower.as_ref()), fi, None)
        };
        // A proper name as the subject ("ClearStation is not an investment
        // service"): capitalised inside the sentence, or with a capital
        // inside the word, or followed by another capitalised word.
        let proper_subject = !pronoun_here
            && !relative
            && fi.checked_sub(1).is_some_and(|p| {
                let raw = clause[p].raw;
                let cap = raw.chars().next().is_some_and(char::is_uppercase);
                cap && (start + p > 0 || raw.chars().skip(1).any(char::is_uppercase))
            });
        let subject = match subject_word {
            Some(w) if FIRST_PERSON_SET.contains(w) => Subject::FirstPerson,
            Some(w) if SECOND_PERSON_SET.contains(w) => Subject::SecondPerson,
            Some(w) if VAGUE_SUBJECTS_SET.contains(w) => Subject::Pointing,
            // "My priority is ...", "My friend is here": a noun phrase the
            // speaker owns is the speaker's own story ("our" is left out:
            // "our military", "our country" name the nation)
            _ if !pronoun_here && !relative && owned_subject(&clause[..fi]) => Subject::FirstPerson,
            _ => Subject::Named,
        };
        let tokens = predicate_tokens(clause, verb, glued);
        // A stance frame at the head: "I think ...", "we don't know ...".
        if subject == Subject::FirstPerson {
            let mut k = 0;
            let mut negated = false;
            while tokens.get(k).is_some_and(|t| matches!(*t, "do" | "don't" | "did" | "didn't" | "not" | "'m" | "am" | "'d" | "would")) {
                negated |= matches!(tokens[k], "don't" | "didn't" | "not");
                k += 1;
            }
            if tokens.get(k).is_some_and(|t| STANCE_VERBS_SET.contains(t)) {
                let rest: Vec<&str> = tokens[k + 1..].iter().copied().filter(|t| *t != "that").collect();
                // "I believe in ...", "I think of ...": a creed or a
                // thought, no clause; "I don't think ...": a denial of
                // belief, which states nothing checkable without a value.
                if rest.is_empty()
                    || matches!(rest.as_slice(), ["so"] | ["it"] | ["this"] | ["about", ..] | ["with", ..] | ["in", ..] | ["of", ..])
                    // "I know how to do that", "I know what many of them say"
                    || (!anchor.value && matches!(rest.first(), Some(&("how" | "what" | "why" | "where" | "whether"))))
                    || (negated && !anchor.value)
                {
                    return Some(ClaimKind::Opinion);
                }
                // judge the clause after the frame
                let skip = clause.len() - rest.len();
                if skip == 0 || skip >= clause.len() {
                    return None;
                }
                start += skip;
                continue;
            }
        }
        // A cleft ("It's the private sector that creates jobs.", "It was
        // not my administration that put the sanctions on Iran."): the
        // focus is a definite noun phrase or a name, and the clause after
        // "that" or "who" says what it did.
        if subject_word.is_some_and(|w| matches!(w, "it" | "it's")) && is_cleft(&clause[verb..], glued.is_some()) {
            return None;
        }
        let modal = |list: &[Vec<&'static str>]| phrase_len(&tokens, list);
        let (modality, n) = if let Some(n) = modal(&DEONTIC_WORDS) {
            (Modality::Deontic, n)
        } else if let Some(n) = modal(&INTENT_WORDS) {
            (Modality::Intent, n)
        } else if let Some(n) = modal(&POSSIBILITY_WORDS) {
            (Modality::Possible, n)
        } else {
            (Modality::Plain, 0)
        };
        // "Governor Thompson of Illinois did.", "Mr. Bush and Mr. Quayle do
        // not.": an auxiliary standing for a predicate said before; alone
        // it states nothing
        if !tokens.is_empty() && tokens.iter().all(|t| AUX_SET.contains(t) || matches!(*t, "not" | "n't" | "too" | "either" | "so")) {
            return Some(ClaimKind::Opinion);
        }
        if modality != Modality::Plain {
            let rest = &tokens[n.min(tokens.len())..];
            if !rest.is_empty() && phrase_len(rest, &EMPTY_PREDICATE_WORDS) == Some(rest.len()) {
                return Some(ClaimKind::Opinion);
            }
        }
        // "I think the pipeline is full" and "I think the build broke
        // because of the new flag" are hedged claims: a frame at the head
        // of a clause that names its subject leaves the clause to be judged
        // on its own when the clause reports an event or is a short report
        // of a state. A long framed clause with neither ("I think these
        // questions are inherently personal and moral, and ...") argues.
        let event = modality == Modality::Plain && reports_event(&tokens);
        let head_framed_named = start > 0 && subject == Subject::Named && (event || clause.len() <= 6);
        // A frame heading a clause that reports an event with a name in it
        // keeps it audited too ("I believe I discussed this with Pug").
        let named_after_frame = start > 0 && anchor.name && event;
        if framed && !head_framed_named && !anchor.value && !named_after_frame {
            return Some(ClaimKind::Opinion);
        }
        // A forecast in the future tense with neither a value nor a name
        // ("A promise made will be a promise kept.", "Prosperity is not
        // just going to trickle down.") foretells nothing a reader could
        // later check; a reported expectation ("Many creditors are
        // expecting to recoup little of the money") is a present state.
        let future_tense = ws.iter().any(|w| matches!(w.lower.as_ref(), "will" | "won't" | "gonna") || w.lower.ends_with("'ll"))
            || ws.windows(2).any(|p| p[0].lower == "going" && p[1].lower == "to");
        if kind == ClaimKind::Prediction && future_tense && !anchor.value && !anchor.name {
            return Some(ClaimKind::Opinion);
        }
        // Someone else's statement reported is checkable as such; the
        // speaker reporting what they heard or say ("I heard them ask ...",
        // "I'm saying that ...") is judged as their own story; "you said
        // that ..." reports the listener's statement. A pointer reporting
        // with nothing named or counted ("He said it would hurt the
        // economy.") gives a reader nothing to look up, unless the report is
        // a long "that" clause ("He said that there is no doubt that almost
        // everyone, from the board of directors on down, knew ...").
        let long_report = ws.len() > 15 && ws.iter().any(|w| w.lower == "that");
        if kind == ClaimKind::Attribution && subject == Subject::Pointing && !anchor.value && !anchor.capitalised && !long_report {
            return Some(ClaimKind::Opinion);
        }
        if kind == ClaimKind::Attribution && subject != Subject::FirstPerson {
            return None;
        }
        let valued = ws.iter().any(|w| w.raw.bytes().any(|c| c.is_ascii_digit()) && !is_url_like(w.raw));
        return match (modality, subject) {
            (Modality::Deontic, Subject::Named) if anchor.value => None,
            (Modality::Deontic, _) => Some(ClaimKind::Opinion),
            (Modality::Intent, Subject::FirstPerson) if !valued => Some(ClaimKind::Logistics),
            (Modality::Intent | Modality::Possible, Subject::Named) if anchor.value || anchor.name => None,
            (Modality::Intent | Modality::Possible, _) if !anchor.value => Some(ClaimKind::Opinion),
            (_, Subject::Pointing) if kind == ClaimKind::Causal => None,
            // "Merit selection of judges is the most important criterion":
            // a noun phrase classified by a copula, with nothing to check
            // it against, is a judgement; a process or a state reached
            // ("is being decommissioned", "are expecting") is reported.
            // "Russia is an adversary.": a name given a kind with an
            // indefinite article, nothing else named, no value, is a
            // characterisation ("Russia is not an ally" and "Enron is the
            // largest trader" are left to the other rules)
            (_, Subject::Named)
                if proper_subject
                    && is_classification(&tokens)
                    && matches!(tokens.get(1), Some(&("a" | "an")))
                    && !anchor.value
                    && !anchor.names =>
            {
                Some(ClaimKind::Opinion)
            }
            (_, Subject::Named) if !proper_subject && is_classification(&tokens) && !anchor.value && !anchor.names => {
                Some(ClaimKind::Opinion)
            }
            // "These kinds of things have hurt us very much", "Race
            // remains a challenge in our country": a present state that
            // the speaker or the listener is part of, with nothing to check
            // it against, is the speaker's view of their own situation
            (_, Subject::Named) if !anchor.value && !anchor.name && !event && speaks_of_persons(&tokens) => Some(ClaimKind::Opinion),
            (_, Subject::Named) => None,
            // the speaker's own story ("I was an altar boy.", "we were
            // taunted") and what "it" or "they" did are checkable with a
            // value, or an event with names in it
            _ if anchor.value => None,
            (_, Subject::FirstPerson) if event && anchor.name && !tells_experience(&tokens) => None,
            (_, Subject::Pointing) if event && anchor.name => None,
            _ => Some(ClaimKind::Opinion),
        };
    }
    None
}

/// Does an attribution cue from the gate's lexicon report someone's
/// statement here? The lexicon is built for recall on the memory side and
/// holds verbs that often take a plain object ("March silver posted a
/// downside reversal", "has not been confirmed"); as a claim kind we want a
/// reporting verb with its reported clause: "said he", "claimed that",
/// "told clients that", `," said Alvaro`, or a fixed phrase ("according
/// to", "reportedly").
fn is_reported_speech(sentence: &str, c: &Cue) -> bool {
    let cue = c.text.to_lowercase();
    // Fixed phrases ("according to", "sources say", "reportedly"); not the
    // verb + "to" entries ("agreed to", "wanted to"), which take an infinitive.
    if cue == "according to" || (cue.contains(' ') && !cue.ends_with(" to")) || cue.ends_with("ly") {
        return true;
    }
    if cue.ends_with(" to") {
        return false;
    }
    let (Some(before), Some(after)) = (sentence.get(..c.span.start), sentence.get(c.span.end..)) else { return false };
    let before = before.trim_end();
    let after = after.trim_start();
    let prev = before.rsplit(char::is_whitespace).next().unwrap_or("").trim_matches(|ch: char| !ch.is_alphanumeric()).to_lowercase();
    // A noun ("the report"), the author quoting themselves ("as I said"), a passive ("been confirmed").
    if DETERMINERS_SET.contains(prev.as_str())
        || matches!(prev.as_str(), "i" | "as" | "be" | "been" | "being" | "is" | "was" | "are" | "were")
    {
        return false;
    }
    // `"...," said X` and `..., said X`.
    if before.ends_with([',', '"', '”']) {
        return true;
    }
    if after.starts_with(['"', '“', ':', '\'']) {
        return true;
    }
    let next_words: Vec<String> =
        after.split_whitespace().take(4).map(|w| w.trim_matches(|ch: char| !ch.is_alphanumeric()).to_lowercase()).collect();
    let Some(next) = next_words.first() else { return false };
    if matches!(
        next.as_str(),
        "that"
            | "he"
            | "she"
            | "they"
            | "it"
            | "we"
            | "you"
            | "there"
            | "its"
            | "their"
            | "his"
            | "her"
            | "our"
            | "the"
            | "this"
            | "these"
            | "those"
            | "on"
            | "in"
            | "yesterday"
            | "today"
            | "earlier"
            | "last"
    ) {
        return true;
    }
    // A named subject of the reported clause ("Says Enron Officials Knew").
    if after.chars().next().is_some_and(char::is_uppercase) {
        return true;
    }
    // "told clients that", "told that committee that": an object of one
    // or two words, then "that" opening the reported clause.
    next_words.iter().skip(1).take(2).any(|w| w == "that")
}

/// "Dollar up on Bush's Supreme Court victory": a price move "on" news.
fn is_price_move_on(ws: &[Word<'_>]) -> bool {
    ws.windows(2)
        .any(|p| matches!(p[0].lower.as_ref(), "up" | "down" | "higher" | "lower" | "rallies" | "falls" | "rises") && p[1].lower == "on")
}

fn is_prediction(ws: &[Word<'_>], hits: PhraseHits) -> bool {
    // "may have operated": a hedged statement about the past, not the future.
    let may_have = ws.windows(2).any(|p| MODALS_OF_POSSIBILITY.contains(&p[0].lower.as_ref()) && p[1].lower == "have");
    if hits.all & P_FUTURE != 0 {
        return true;
    }
    if may_have {
        return false;
    }
    // Modal of possibility after a non-first-person subject, then a bare verb.
    ws.windows(3).any(|p| {
        MODALS_OF_POSSIBILITY.contains(&p[1].lower.as_ref())
            && !matches!(p[0].lower.as_ref(), "i" | "we" | "you")
            && p[2].lower.chars().all(char::is_alphabetic)
            && !AUX_SET.contains(p[2].lower.as_ref())
            && p[2].lower != "not"
    }) || ws.first().is_some_and(|w| {
        // "May $2.227 79 52.2%" is a month in a table row, not a modal.
        MODALS_OF_POSSIBILITY.contains(&w.lower.as_ref()) && ws.len() > 2 && ws[1].raw.chars().next().is_some_and(char::is_alphabetic)
    })
}

/// True when the cue sits inside a URL or an address of the sentence (the
/// number scanner reads "8675459/1798683" in a link as dates).
fn is_inside_link(sentence: &str, c: &Cue) -> bool {
    let start = sentence.get(..c.span.start).and_then(|b| b.rfind(char::is_whitespace)).map(|i| i + 1).unwrap_or(0);
    let end = sentence.get(c.span.end..).and_then(|a| a.find(char::is_whitespace)).map(|i| c.span.end + i).unwrap_or(sentence.len());
    sentence.get(start..end).is_some_and(|tok| is_url_like(tok.trim_start_matches(['<', '(', '['])))
}

fn is_calendar_cue(c: &Cue) -> bool {
    if c.rule.starts_with("temporal:year") || c.rule.starts_with("temporal:date") || c.rule.starts_with("temporal:month") {
        return true;
    }
    let l = c.text.to_lowercase();
    if c.text.chars().any(|ch| ch.is_ascii_digit()) || CALENDAR_WORDS.contains(&l.as_str()) {
        return true;
    }
    // Weekday and month names are capitalised in running text.
    c.text.chars().next().is_some_and(char::is_uppercase) && c.text.len() > 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_text::cues::detect_cues;

    fn kind(s: &str) -> ClaimKind {
        classify(s, &detect_cues(s))
    }

    #[test]
    fn facts() {
        assert_eq!(kind("The alpha channel contains a value for each pixel."), ClaimKind::Fact);
        assert_eq!(kind("This list is being decommissioned."), ClaimKind::Fact);
        assert_eq!(kind("Hacker Modifies NPA-Operated Site"), ClaimKind::Fact);
    }

    #[test]
    fn check_worthiness() {
        // Declaratives about the world are facts without a number.
        assert_eq!(kind("Vitamin D prevents colds."), ClaimKind::Fact);
        assert_eq!(kind("The plant runs on coal."), ClaimKind::Fact);
        assert_eq!(kind("Senator Dole opposed the crime bill."), ClaimKind::Fact);
        assert_eq!(kind("I vetoed the Kemp-Roth bill in Washington."), ClaimKind::Fact);
        assert!(kind("Let me remind you that the Congress cut $70 million from the Coast Guard.").is_audited());
        assert!(kind("We cut taxes for 15 million working Americans.").is_audited());
        // Reactions, agreement, advocacy, plans and vague pointers are not audited.
        for s in [
            "You're right.",
            "That might do.",
            "We didn't think so.",
            "Even the creation time might do.",
            "We've got to help them.",
            "I'm going to bring rates down.",
            "I think we've seen a deterioration of values.",
            "I was an altar boy.",
        ] {
            assert!(!kind(s).is_audited(), "{s}: {:?}", kind(s));
        }
        assert_eq!(kind("I'm going to bring rates down."), ClaimKind::Logistics);
    }

    #[test]
    fn hedged_claim_is_not_an_opinion() {
        assert_eq!(kind("I think the pipeline is full."), ClaimKind::Fact);
        assert!(kind("I believe the deal closed in May 2001.").is_audited());
        assert!(kind("I believe I discussed this with Pug and that is what we concluded.").is_audited());
        // a month after a preposition of time dates the clause
        assert!(kind("I think the pipeline will be full by March.").is_audited());
    }

    #[test]
    fn stances_creeds_and_own_story() {
        for s in [
            "I believe in the sanctity of marriage.",
            "I don't think the government ought to do anything about it.",
            "I think these questions are inherently personal and moral, and every individual instance is different.",
            "My priority is putting people back to work.",
            "I'm saying that those of us who are elected to positions of leadership have a special responsibility.",
            "But let's look at the performance.",
        ] {
            assert!(!kind(s).is_audited(), "{s}: {:?}", kind(s));
        }
        // a ranking over a named set is checkable like a number
        assert!(kind("China is now the largest manufacturer in the world.").is_audited());
        assert!(kind("He has deployed more troops than any president in history.").is_audited());
        assert!(!kind("That is the closest I have ever come to it.").is_audited());
        // an elliptical predicate, and a present state the speaker or the
        // listener is part of, state nothing checkable
        assert!(!kind("Governor Thompson of Illinois did.").is_audited());
        assert!(!kind("These kinds of things have hurt us very much.").is_audited());
        assert!(kind("The company also provides online business services.").is_audited());
        // a stance verb with a plain object is the speaker's memory
        assert!(!kind("I remember the world with NATO, and the world of the Marshall Plan.").is_audited());
        // the day of speaking dates nothing
        assert!(!kind("I appreciate your listening tonight.").is_audited());
        assert!(kind("I met with the board in Houston on Monday.").is_audited());
        // a request phrase inside a long statement of a value
        assert!(kind("I think we need to be more even-handed, as evidently 99 senators supported that position.").is_audited());
        assert_eq!(kind("I'd like to get the numbers from you."), ClaimKind::Logistics);
        // an enumeration label counts nothing; "have got" is possession
        assert_eq!(kind("Number one, add another million children to the insured ranks."), ClaimKind::Logistics);
        assert!(!kind("Again, we've got plans lying all over the place in Washington.").is_audited());
        // a future-tense forecast needs a value or a name; a reported
        // expectation is a present state
        assert!(!kind("Prosperity is not just going to trickle down.").is_audited());
        assert!(kind("The budget will be released to Congress in February.").is_audited());
        assert!(kind("Many creditors are expecting to recoup little or none of the money owed to them.").is_audited());
        assert!(!kind("I know how to do that.").is_audited());
        // a name characterised with an indefinite article
        assert!(!kind("But Russia is an adversary.").is_audited());
        assert!(kind("ClearStation is not an investment advisory service.").is_audited());
        // a cleft with a definite focus says what the focus did
        assert!(kind("It's the private sector that creates jobs.").is_audited());
        assert!(!kind("It's a culture that we have begun to disrespect.").is_audited());
        // a pointer reporting a pointer's words, with nothing named
        assert!(!kind("He said it would hurt the economy.").is_audited());
        assert!(kind("He said the Senate would vote on the bill.").is_audited());
        // the speaker's encounters are their story; their acts are claims
        assert!(!kind("I visited a Chrysler dealership in Tokyo.").is_audited());
        assert!(kind("I vetoed the Kemp-Roth bill in Washington.").is_audited());
        // a rhetorical question asserts its clause
        assert!(kind("Do you know that it's tripled in the last five years?").is_audited());
        assert_eq!(kind("Do you know if the meeting moved?"), ClaimKind::Question);
        // a condition first is a hypothesis, unless it carries figures
        assert!(!kind("If the job were finished, I might have thought twice about it.").is_audited());
        assert!(kind("If you make less than $250,000 a year, you will not see a tax increase.").is_audited());
        // an announcement frame leaves the announced statement
        assert!(kind("We are proud to announce that VillageEdocs has started trading under the symbol VEDO.").is_audited());
    }

    #[test]
    fn quantities() {
        assert_eq!(kind("For the year, the ISDEX has fallen 41.8%."), ClaimKind::Quantity);
        assert_eq!(kind("Together, the two groups own 12 shipyards in Europe."), ClaimKind::Quantity);
        assert_eq!(kind("NASDAQ: 2,022.7"), ClaimKind::Quantity);
        assert_eq!(kind("33MB zip file"), ClaimKind::Quantity);
    }

    #[test]
    fn dates() {
        assert_eq!(kind("March silver posted a downside reversal on Wednesday."), ClaimKind::Date);
        assert_eq!(kind("The plant reopened in September 2001."), ClaimKind::Date);
    }

    #[test]
    fn attributions() {
        assert_eq!(kind("Euford said he already spoke w/ Gorte."), ClaimKind::Attribution);
        assert_eq!(kind("Profit was 1%, according to estimates."), ClaimKind::Attribution);
        assert_eq!(kind("Powers told that committee that over 70% of earnings were false."), ClaimKind::Attribution);
        // Reporting verbs without a reported clause.
        assert_eq!(kind("March silver posted a downside reversal on Wednesday."), ClaimKind::Date);
        assert_ne!(kind("I have always wanted to visit that part of the world."), ClaimKind::Attribution);
        assert_eq!(kind("The reaction low has not been confirmed."), ClaimKind::Fact);
    }

    #[test]
    fn comparisons() {
        assert_eq!(kind("Gas is cheaper than power this winter in Texas."), ClaimKind::Comparison);
        assert_eq!(kind("Her estimate is slightly above the consensus."), ClaimKind::Comparison);
    }

    #[test]
    fn causal() {
        assert_eq!(kind("Today's rally was triggered by fresh news out of Washington."), ClaimKind::Causal);
        assert_eq!(kind("Prices fell because storage was full."), ClaimKind::Causal);
    }

    #[test]
    fn predictions() {
        assert_eq!(kind("The budget will be released to Congress in February."), ClaimKind::Prediction);
        assert_eq!(kind("AEP May Sell Some Foreign Assets"), ClaimKind::Prediction);
        assert_eq!(kind("Enron Trading Unit May Have Operated in Red"), ClaimKind::Fact);
    }

    #[test]
    fn digits_in_links_are_not_values() {
        assert_eq!(kind("This is a pretty good intro: <https://www.youtube.com/watch?v=zwYV11a__HQ>"), ClaimKind::Opinion);
        assert_eq!(kind("This answer echoes the same point: http://stackoverflow.com/a/8675459/1798683"), ClaimKind::Fact);
    }

    #[test]
    fn opinions_and_preferences() {
        assert_eq!(kind("The functions there are pretty unit-testable."), ClaimKind::Opinion);
        assert_eq!(kind("I prefer aisle seats."), ClaimKind::Opinion);
        assert_eq!(kind("I think it's great."), ClaimKind::Opinion);
    }

    #[test]
    fn questions() {
        assert_eq!(kind("what should setup.py do?"), ClaimKind::Question);
        assert_eq!(kind("Will the recession affect storage development?"), ClaimKind::Question);
    }

    #[test]
    fn logistics() {
        assert_eq!(kind("Please send me the file."), ClaimKind::Logistics);
        assert_eq!(kind("send me the file"), ClaimKind::Logistics);
        assert_eq!(kind("Call at 3"), ClaimKind::Logistics);
        assert_eq!(kind("Let me know if you have any questions."), ClaimKind::Logistics);
        assert_eq!(kind("Attached is the file Phillip asked me to send you."), ClaimKind::Logistics);
        assert_eq!(kind("It can be found at:"), ClaimKind::Logistics);
        assert_eq!(kind("Market Breadth"), ClaimKind::Logistics);
        assert_eq!(kind("315 Pacific Ave."), ClaimKind::Logistics);
        assert_eq!(kind("https://github.com/perrygeo/simanneal"), ClaimKind::Logistics);
        assert_eq!(kind("I'll keep you posted on anything major."), ClaimKind::Logistics);
    }

    #[test]
    fn greetings_and_jokes() {
        assert_eq!(kind("Hey Eva,"), ClaimKind::Greeting);
        assert_eq!(kind("Thank you,"), ClaimKind::Greeting);
        assert_eq!(kind("Regards,"), ClaimKind::Greeting);
        assert_eq!(kind("Andy"), ClaimKind::Greeting);
        assert_eq!(kind(":+1:"), ClaimKind::Greeting);
        assert_eq!(kind("👍"), ClaimKind::Greeting);
        assert_eq!(kind("I'm seriously starting to get ticked now... hehe :)"), ClaimKind::Greeting);
        assert_eq!(kind("Nope."), ClaimKind::Greeting);
        assert_eq!(kind("\u{FFFC}"), ClaimKind::Logistics);
        assert_eq!(kind("Dear Fellow Profit Seeker:"), ClaimKind::Greeting);
        // A chat line that opens with a salutation still carries its claim.
        assert_eq!(kind("hey, the server in Houston is down again"), ClaimKind::Fact);
        assert_eq!(kind("Hi John, the deal closed at $5 a share."), ClaimKind::Quantity);
    }

    // The fast paths against the plain forms they replaced (the rules as
    // first written): same answers on any text.

    fn normalise_reference(s: &str) -> String {
        let mut t = s.replace('’', "'").replace("[IMAGE]", " ").replace('\u{FFFC}', " ");
        let trimmed = t.trim_start();
        if let Some(rest) = trimmed.strip_prefix("<@").or_else(|| trimmed.strip_prefix('@'))
            && let Some(colon) = rest.find(':')
            && !rest[..colon].contains(' ')
        {
            t = rest[colon + 1..].to_string();
        }
        t.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn url_reference(w: &str) -> bool {
        let l = w.to_ascii_lowercase();
        l.starts_with("http")
            || l.starts_with("www.")
            || l.contains("://")
            || (l.contains('@') && l.contains('.'))
            || l.starts_with("mailto:")
    }

    /// Every occurrence of every phrase of a list, overlapping, on word
    /// boundaries (what one aho-corasick automaton per list answered).
    fn list_hits_reference(text: &str, list: &[&str]) -> bool {
        list.iter().any(|p| {
            (0..text.len()).any(|i| text.is_char_boundary(i) && text[i..].starts_with(p) && is_word_match(text, i, i + p.len(), p))
        })
    }

    fn check_fast_paths(text: &str) {
        assert_eq!(normalise(text), normalise_reference(text), "{text:?}");
        let lower = text.to_lowercase();
        let fast: Vec<(&str, String)> = words_lowered(text, &lower).into_iter().map(|w| (w.raw, w.lower.into_owned())).collect();
        let slow: Vec<(&str, String)> = words(text).into_iter().map(|w| (w.raw, w.raw.to_lowercase().replace('’', "'"))).collect();
        assert_eq!(fast, slow, "{text:?}");
        for w in text.split_whitespace() {
            assert_eq!(is_url_like(w), url_reference(w), "{w:?}");
            let l = w.to_lowercase();
            assert_eq!(AUX_SET.contains(&l), FINITE.contains(&l.as_str()) || AUX_EXTRA.contains(&l.as_str()), "{l:?}");
            assert_eq!(EVALUATIVE_SET.contains(&l), EVALUATIVE.contains(&l.as_str()), "{l:?}");
        }
        let after_lead = without_discourse_lead(&lower);
        let lead = lower.len() - after_lead.len();
        let h = phrase_hits(&lower, lead);
        for (list, bit) in [
            (&LOGISTICS_PHRASES, P_LOGISTICS),
            (&REQUEST_PHRASES, P_REQUEST),
            (&CAUSAL, P_CAUSAL),
            (&COMPARISON, P_COMPARISON),
            (&FUTURE, P_FUTURE),
        ] {
            assert_eq!(h.all & bit != 0, list_hits_reference(&lower, list), "{bit} in {lower:?}");
            assert_eq!(h.after_lead & bit != 0, list_hits_reference(after_lead, list), "{bit} after lead in {lower:?}");
        }
        let joke = JOKE_MARKS.iter().any(|j| contains_phrase(&lower, j) || lower.contains(j) && j.starts_with([':', ';', '(']));
        assert_eq!(h.all & P_JOKE != 0, joke, "{lower:?}");
    }

    #[test]
    fn fast_paths_agree_on_hard_cases() {
        for t in [
            "",
            " ",
            "Also, because of the storm we'll see higher prices next week.",
            "so that's it lol :) hahaha",
            "lolol rofl,(that was a joke)",
            "İSTANBUL Straße ΣΊΣΥΦΟΣ K-rated ﬁle",
            "a\u{b}b\u{c}c\rd\te\n\nf  g",
            "<@U0BMYT2FL>: [IMAGE] it’s http://X.com/A WWW.y.org me@x.org MAILTO:z",
            "In addition, thanks to the team, results in rescheduling vs. reschedule",
            "\u{a0}non-breaking\u{2003}em space\u{3000}ideographic",
        ] {
            check_fast_paths(t);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, .. proptest::prelude::ProptestConfig::default() })]
        #[test]
        fn fast_paths_agree_on_word_soup(
            words in proptest::collection::vec(proptest::sample::select(vec![
                "also", "and", "so", "because", "due to", "than", "more", "will", "lol", "haha", ":)", ";-)", "(that",
                "please", "let me know", "meeting", "reschedul", "vs.", "The", "PRICE", "rose", "5%", "$3", "it’s", "I'll",
                "http://a.b", "x@y.z", "İ", "ß", "[IMAGE]", "@U1:", "\u{a0}", "\u{b}", "\t", "\n", " ", "", ",", ".", "-", "Also,",
            ]), 0..16)
        ) {
            check_fast_paths(&words.concat());
            check_fast_paths(&words.join(" "));
        }

        #[test]
        fn fast_paths_agree_on_any_text(text in "\\PC{0,80}") {
            check_fast_paths(&text);
        }
    }
}
