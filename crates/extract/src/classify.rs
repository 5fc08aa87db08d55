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
//! the gate are not copied here. The lists below are this classifier's own:
//! sentence openers, imperative verbs, evaluative adjectives, comparison and
//! causal connectives, each chosen from reading the corpora in
//! ../shared/corpora (Enron mail, the 2016 Slack export, ImageMagick list mail).

use amem_model::{ClaimKind, Cue, CueClass};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::LazyLock;

/// Greeting and social openers (lower case, matched as a prefix on word boundaries).
const GREETING_PREFIXES: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "dear",
    "good morning",
    "good afternoon",
    "good evening",
    "greetings",
    "to whom it may concern",
    "thanks",
    "thank you",
    "thx",
    "ty",
    "many thanks",
    "apologies",
    "sorry",
    "congrats",
    "congratulations",
    "welcome",
    "cheers",
    "happy holidays",
    "happy new year",
    "merry christmas",
    "have a great",
    "have a good",
    "have a nice",
    "sent from my",
    "i miss you",
    "miss you",
    "take care",
    "talk soon",
    "that's it for now",
    "that is it for now",
    "that's all for now",
    "just wanted to compliment",
    "just wanted to say thanks",
    "if i may interject",
    "best wishes",
    "talk to you later",
    "talk to you soon",
    "looking forward to",
    "look forward to",
    "i look forward to",
    "we look forward to",
];

/// The greeting prefixes that open a message rather than thank or apologise:
/// only a name may follow them in a greeting.
const SALUTATIONS: &[&str] = &["hi", "hello", "hey", "dear", "good morning", "good afternoon", "good evening", "greetings"];

/// Whole-sentence reactions (lower case, punctuation trimmed).
const REACTIONS: &[&str] = &[
    "ok",
    "okay",
    "k",
    "kk",
    "yes",
    "yeah",
    "yep",
    "yup",
    "no",
    "nope",
    "nah",
    "sure",
    "cool",
    "great",
    "nice",
    "awesome",
    "np",
    "lol",
    "haha",
    "hahaha",
    "hehe",
    "lmao",
    "rofl",
    "wow",
    "oops",
    "ugh",
    "hmm",
    "thanks!",
    "done",
    "agreed",
    "same",
    "indeed",
    "right",
    "exactly",
    "gotcha",
    "got it",
    "sounds good",
    "will do",
    "good luck",
    "noted",
];

/// Laughter and smileys that mark a joke wherever they appear.
const JOKE_MARKS: &[&str] = &["lol", "haha", "hehe", "lmao", "rofl", ":)", ":-)", ";)", ";-)", ":d", ":p", "(that was a joke"];

/// Base-form verbs that open an imperative (a request or instruction).
const IMPERATIVE_VERBS: &[&str] = &[
    "send",
    "call",
    "forward",
    "review",
    "check",
    "see",
    "look",
    "give",
    "get",
    "take",
    "print",
    "fax",
    "sign",
    "use",
    "make",
    "remember",
    "note",
    "find",
    "talk",
    "meet",
    "join",
    "come",
    "bring",
    "update",
    "schedule",
    "reschedule",
    "reply",
    "respond",
    "contact",
    "advise",
    "ping",
    "email",
    "e-mail",
    "read",
    "visit",
    "click",
    "order",
    "save",
    "register",
    "subscribe",
    "unsubscribe",
    "go",
    "try",
    "ask",
    "include",
    "install",
    "reinstall",
    "copy",
    "compare",
    "turn",
    "phone",
    "feel",
    "enjoy",
    "act",
    "buy",
    "witness",
    "overlay",
    "create",
    "design",
    "download",
    "follow",
    "scroll",
    "point",
    "consult",
    "report",
    "keep",
    "write",
    "add",
    "put",
    "fill",
    "complete",
    "return",
    "submit",
    "attend",
    "stop",
    "discover",
    "learn",
    "receive",
    "start",
    "need",
    "must",
    "let",
    "lets",
    "let's",
    "don't",
    "do",
    "be",
    "pick",
    "grab",
    "drop",
    "leave",
    "move",
    "post",
    "share",
    "ship",
    "tell",
    "confirm",
    "approve",
    "sort",
    "fix",
    "run",
    "test",
    "merge",
    "push",
    "pull",
    "ask",
    "request",
    "book",
    "reserve",
    "hold",
    "plan",
    "prepare",
    "verify",
    "pay",
    "invest",
    "apply",
    "claim",
    "mark",
    "imagine",
    "watch",
    "listen",
    "think",
    "consider",
    "please",
    "kindly",
    "rsvp",
];

/// Words that may precede the imperative verb ("Just compare", "Or just look").
const IMPERATIVE_LEADS: &[&str] = &["please", "pls", "plz", "just", "kindly", "also", "or", "and", "so", "now", "then", "maybe", "simply"];

/// Phrases that mark logistics anywhere in the sentence (lower case).
const LOGISTICS_PHRASES: &[&str] = &[
    "please",
    "let me know",
    "let us know",
    "attached is",
    "attached are",
    "attached please find",
    "please find attached",
    "i have attached",
    "i've attached",
    "see attached",
    "here is",
    "here's",
    "here are",
    "i will send",
    "i'll send",
    "i'll call",
    "i will call",
    "keep you posted",
    "get back to you",
    "i would like to",
    "i'd like to",
    "we need to",
    "need you to",
    "can you",
    "could you",
    "would you",
    "to remove yourself",
    "to unsubscribe",
    "to subscribe",
    "unsubscribe",
    "click here",
    "click on",
    "reply with",
    "if you would prefer",
    "call me",
    "give me a call",
    "conference call",
    "meeting",
    "reschedul",
    "dial-in",
    "dial in",
    "bridge line",
    "fyi",
    "for your information",
    "can be found at",
    "is available at",
    "for more information",
    "for details",
    "act now",
    "offer expires",
    "free shipping",
    "sign up",
    "log in",
    "login",
    "when you have a minute",
    "at your convenience",
    "you can just",
    "you should",
    "you may want",
    "you might want",
    "feel free",
    "reach me",
    "contact me",
    "my cell",
    "cell phone",
    "phone number",
    "my number",
];

/// The author's own plans and intentions (a sentence starting so is logistics).
const OWN_PLAN_PREFIXES: &[&str] = &[
    "i will",
    "i'll",
    "we will",
    "we'll",
    "i am going to",
    "i'm going to",
    "we are going to",
    "we're going to",
    "i plan to",
    "we plan to",
    "i need to",
    "i have to",
    "we have to",
    "i must",
    "i'm going",
    "i am out",
    "i'm out",
    "i will be out",
    "i'll be out",
    "we do",
    "we'll do",
];

/// Line labels that introduce contact and schedule data ("CONTACT: ...").
const LABEL_PREFIXES: &[&str] = &[
    "contact:",
    "url:",
    "location:",
    "course location:",
    "when:",
    "where:",
    "to:",
    "cc:",
    "bcc:",
    "subject:",
    "from:",
    "phone:",
    "fax:",
    "tel:",
    "email:",
    "e-mail:",
    "web:",
    "website:",
    "address:",
    "date:",
    "time:",
    "re:",
    "product site:",
    "visit:",
    "sent:",
];

/// Evaluative words: a predicate made of one is a judgement, not a checkable property.
const EVALUATIVE: &[&str] = &[
    "good",
    "great",
    "excellent",
    "awesome",
    "cool",
    "nice",
    "bad",
    "terrible",
    "awful",
    "amazing",
    "wonderful",
    "beautiful",
    "sweet",
    "worth",
    "useful",
    "useless",
    "relevant",
    "interesting",
    "boring",
    "ugly",
    "horrible",
    "fantastic",
    "lovely",
    "pretty",
    "crazy",
    "stupid",
    "silly",
    "funny",
    "fun",
    "happy",
    "sad",
    "glad",
    "luckily",
    "unfortunately",
    "hopefully",
    "fortunately",
    "easy",
    "annoying",
    "helpful",
    "impressive",
    "disappointing",
    "weird",
    "strange",
    "perfect",
    "brilliant",
    "neat",
    "fine",
    "love",
    "like",
    "hate",
    "prefer",
    "enjoy",
    "miss",
    "wish",
    "favorite",
    "favourite",
    "worst",
    "elegant",
    "messy",
    "confusing",
    "clear",
    "unclear",
    "ticked",
    "proud",
    "excited",
    "worried",
    "afraid",
    "tired",
    "sorry",
];

/// First-person preference openers: the user's own preferences are opinions.
const PREFERENCE_PREFIXES: &[&str] = &[
    "i like",
    "i love",
    "i hate",
    "i prefer",
    "i'd rather",
    "i would rather",
    "i want",
    "i wish",
    "i hope",
    "i feel",
    "i'm happy",
    "i am happy",
    "i'm glad",
    "i am glad",
    "i'm excited",
    "i'm worried",
    "i recommend",
    "i'd recommend",
    "i would recommend",
    "i would strongly",
    "i'd suggest",
    "i would suggest",
    "i suggest",
    "my favorite",
    "my favourite",
    "we all know",
    "you can do",
    "you don't need",
];

/// Connectives that state a cause or a consequence.
const CAUSAL: &[&str] = &[
    "because",
    "due to",
    "as a result",
    "result in",
    "results in",
    "resulted in",
    "resulting in",
    "caused",
    "causes",
    "cause of",
    "led to",
    "leads to",
    "lead to",
    "triggered",
    "trigger",
    "owing to",
    "therefore",
    "thus",
    "hence",
    "consequently",
    "that means",
    "which means",
    "this means",
    "means that",
    "driven by",
    "weigh on",
    "weighs on",
    "weighed on",
    "that's because",
    "that is because",
    "so that",
    "thanks to the",
    "in response to",
    "attributed to",
    "blamed on",
];

/// Comparison words.
const COMPARISON: &[&str] = &[
    "than",
    "compared to",
    "compared with",
    "versus",
    "vs",
    "vs.",
    "higher",
    "lower",
    "more",
    "less",
    "fewer",
    "greater",
    "bigger",
    "smaller",
    "larger",
    "better",
    "worse",
    "faster",
    "slower",
    "cheaper",
    "stronger",
    "weaker",
    "most",
    "least",
    "biggest",
    "largest",
    "smallest",
    "highest",
    "lowest",
    "best",
    "above",
    "below",
    "outperform",
    "outperforms",
    "outperformed",
    "same as",
    "as much as",
    "as many as",
    "exceed",
    "exceeds",
    "exceeded",
];

/// Markers of a statement about the future (the subject is not the author:
/// the author's own plans are logistics, rule 4).
const FUTURE: &[&str] = &[
    "will",
    "won't",
    "'ll",
    "going to",
    "gonna",
    "expect",
    "expects",
    "expected",
    "expecting",
    "forecast",
    "forecasts",
    "projected",
    "likely to",
    "unlikely",
    "plans to",
    "plan to",
    "planning to",
    "is set to",
    "are set to",
    "to be released",
    "should begin",
    "would confirm",
    "next week",
    "next month",
    "next year",
    "tomorrow",
    "upcoming",
    "coming weeks",
    "coming months",
    "outlook",
    "be surprised to see",
];

/// Modal verbs that, with a non-first-person subject and a bare verb after
/// them, speak of a possible future event ("AEP May Sell Some Foreign Assets").
const MODALS_OF_POSSIBILITY: &[&str] = &["may", "might", "could"];

/// Finite auxiliaries, copulas and modals: the finite verbs a clause can
/// hang on (shared with the compound splitter).
pub(crate) const FINITE: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "am",
    "has",
    "have",
    "had",
    "do",
    "does",
    "did",
    "will",
    "would",
    "can",
    "could",
    "shall",
    "should",
    "may",
    "might",
    "must",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "hasn't",
    "haven't",
    "hadn't",
    "don't",
    "doesn't",
    "didn't",
    "won't",
    "wouldn't",
    "can't",
    "cannot",
    "couldn't",
    "shouldn't",
];

/// Auxiliaries and copulas beyond [`FINITE`]: infinitive and participle
/// forms and subject contractions; together with it, a finite verb.
const AUX_EXTRA: &[&str] = &[
    "be", "been", "it's", "that's", "there's", "here's", "what's", "he's", "she's", "i'm", "we're", "they're", "you're", "i've", "we've",
    "they've", "you've", "i'll", "we'll", "i'd", "we'd", "let's",
];

/// Irregular past-tense verbs (no -ed ending).
const IRREGULAR_PAST: &[&str] = &[
    "rose",
    "fell",
    "said",
    "made",
    "took",
    "went",
    "came",
    "got",
    "gave",
    "saw",
    "told",
    "found",
    "left",
    "paid",
    "sold",
    "bought",
    "built",
    "held",
    "kept",
    "led",
    "lost",
    "met",
    "ran",
    "sent",
    "spent",
    "stood",
    "won",
    "wrote",
    "began",
    "became",
    "brought",
    "thought",
    "knew",
    "grew",
    "hit",
    "cut",
    "put",
    "quit",
    "set",
    "shut",
    "struck",
    "drove",
    "broke",
    "chose",
    "fought",
    "flew",
    "forgot",
    "heard",
    "meant",
    "rang",
    "sank",
    "sat",
    "slid",
    "spoke",
    "stole",
    "swore",
    "taught",
    "threw",
    "understood",
    "woke",
    "wore",
    "dropped",
];

/// Common verbs whose third-person `-s` form marks a finite verb in a
/// headline ("Hacker Modifies NPA-Operated Site", "Honeywell Lands ...").
const VERB_STEMS: &[&str] = &[
    "win",
    "land",
    "modify",
    "plan",
    "sell",
    "buy",
    "cut",
    "raise",
    "lower",
    "post",
    "report",
    "rise",
    "fall",
    "close",
    "open",
    "hit",
    "add",
    "drop",
    "gain",
    "lose",
    "make",
    "take",
    "see",
    "get",
    "give",
    "seem",
    "appear",
    "look",
    "provide",
    "offer",
    "include",
    "cover",
    "become",
    "show",
    "expect",
    "need",
    "want",
    "say",
    "tell",
    "use",
    "help",
    "work",
    "run",
    "move",
    "pay",
    "cost",
    "return",
    "lead",
    "build",
    "keep",
    "hold",
    "start",
    "end",
    "continue",
    "remain",
    "weigh",
    "spend",
    "approve",
    "file",
    "face",
    "sign",
    "agree",
    "join",
    "leave",
    "announce",
    "acquire",
    "merge",
    "launch",
    "introduce",
    "receive",
    "reach",
    "trade",
    "jump",
    "surge",
    "slip",
    "slide",
    "climb",
    "tumble",
    "plunge",
    "soar",
    "fix",
    "contain",
    "define",
    "require",
    "echo",
    "evaluate",
    "own",
    "operate",
    "know",
    "think",
    "believe",
    "mean",
    "like",
    "love",
    "hate",
    "prefer",
    "happen",
    "exist",
    "support",
    "allow",
    "affect",
    "benefit",
    "break",
    "core",
    "crash",
    "fail",
    "read",
    "write",
    "print",
    "return",
    "deny",
    "warn",
    "predict",
    "estimate",
    "beat",
    "miss",
    "top",
    "trail",
    "lag",
    "boost",
    "slash",
    "double",
    "triple",
    "halve",
    "eye",
    "seek",
    "name",
    "hire",
    "fire",
    "sue",
    "settle",
    "buy",
    "ban",
    "block",
    "back",
    "reject",
    "accept",
];

/// Subject pronouns: a pronoun followed by a lower-case word is a clause.
const SUBJECT_PRONOUNS: &[&str] = &["i", "we", "you", "he", "she", "it", "they", "this", "that", "there", "these", "those", "everyone"];

/// Determiners that open a noun phrase subject.
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "our", "my", "your", "his", "her", "its", "their", "this", "that", "these", "those", "some", "many", "most", "all",
    "both", "each", "every", "no", "any", "several", "few", "other", "others",
];

/// Calendar-anchored temporal cues (the gate's temporal class also holds
/// scope words such as "currently" or "since", which do not date an event).
const CALENDAR_WORDS: &[&str] = &[
    "yesterday",
    "today",
    "tomorrow",
    "tonight",
    "this morning",
    "this afternoon",
    "last week",
    "next week",
    "last month",
    "next month",
    "last year",
    "next year",
    "ago",
];

/// Spelled-out numbers that count something ("four schemes"). "one" is left
/// out: "one of the few analysts" counts nothing.
const NUMBER_WORDS: &[&str] = &[
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "hundred",
    "hundreds",
    "thousand",
    "thousands",
    "million",
    "millions",
    "billion",
    "billions",
    "dozen",
    "dozens",
    "half",
    "double",
    "triple",
    "twice",
];

/// The word lists above as hash sets: each is probed for every word of
/// every sentence.
static AUX_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(FINITE.iter().chain(AUX_EXTRA).copied()));
static DETERMINERS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(DETERMINERS.iter().copied()));
static EVALUATIVE_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(EVALUATIVE.iter().copied()));
static IMPERATIVE_VERBS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(IMPERATIVE_VERBS.iter().copied()));
static IRREGULAR_PAST_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(IRREGULAR_PAST.iter().copied()));
static VERB_STEMS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(VERB_STEMS.iter().copied()));
static NUMBER_WORDS_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(NUMBER_WORDS.iter().copied()));

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

fn words(s: &str) -> Vec<Word<'_>> {
    let mut out = Vec::with_capacity(s.len() / 5 + 1);
    for w in s.split_whitespace() {
        let raw = w.trim_matches(|c: char| !(c.is_alphanumeric() || matches!(c, '\'' | '’' | '$' | '%' | '€' | '£' | '-' | '.')));
        let raw = raw.trim_end_matches('.');
        if raw.is_empty() {
            continue;
        }
        out.push(Word { raw, lower: lower_word(raw) });
    }
    out
}

/// [`words`] of `cased`, whose lower-case form is `body`: for ASCII text
/// (most mail) the lower-case words are slices of `body` at the same byte
/// offsets, and the words are cut by a byte loop; the same words as
/// [`words`] (`body` is `cased` lower-cased, so each slice is the word
/// lower-cased).
fn words_lowered<'a>(cased: &'a str, body: &'a str) -> Vec<Word<'a>> {
    if !cased.is_ascii() || body.len() != cased.len() {
        return words(cased);
    }
    // The characters `words` keeps at a word's ends, ASCII only.
    let keep = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'\'' | b'$' | b'%' | b'-' | b'.');
    let bytes = cased.as_bytes();
    let mut out = Vec::with_capacity(cased.len() / 5 + 1);
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && is_ascii_space(bytes[i]) {
            i += 1;
        }
        let piece_start = i;
        while i < bytes.len() && !is_ascii_space(bytes[i]) {
            i += 1;
        }
        let (mut a, mut b) = (piece_start, i);
        while a < b && !keep(bytes[a]) {
            a += 1;
        }
        while b > a && !keep(bytes[b - 1]) {
            b -= 1;
        }
        while b > a && bytes[b - 1] == b'.' {
            b -= 1;
        }
        if a < b {
            out.push(Word { raw: &cased[a..b], lower: Cow::Borrowed(&body[a..b]) });
        }
    }
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
    let lists: [(&'static [&'static str], u8); 5] =
        [(LOGISTICS_PHRASES, P_LOGISTICS), (CAUSAL, P_CAUSAL), (COMPARISON, P_COMPARISON), (FUTURE, P_FUTURE), (JOKE_MARKS, P_JOKE)];
    for (list, bit) in lists {
        for &p in list {
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
            for (list, bit) in [(LOGISTICS_PHRASES, P_LOGISTICS), (CAUSAL, P_CAUSAL), (COMPARISON, P_COMPARISON), (FUTURE, P_FUTURE)] {
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
        }
    }
    h
}

/// Classify one sentence. `cues` are the sentence's stance cues (from
/// [`amem_text::cues::detect_cues`] on the same text).
pub fn classify(sentence: &str, cues: &[Cue]) -> ClaimKind {
    let normalised = normalise(sentence);
    let cased = strip_emoji_codes(&normalised);
    let body = cased.to_lowercase();
    // 1. No letters: emoji and reactions, or bare numbers. Nothing left once
    // markup is removed ("[IMAGE]", a bare "@U0BMYT2FL:") is a fragment, not an emoji.
    if normalised.trim().is_empty() {
        return ClaimKind::Logistics;
    }
    // (an ASCII letter settles it without decoding; else any alphabetic char)
    if !body.bytes().any(|b| b.is_ascii_alphabetic()) && !body.chars().any(char::is_alphabetic) {
        return if body.chars().any(|c| c.is_ascii_digit()) { ClaimKind::Logistics } else { ClaimKind::Greeting };
    }
    let ws = words_lowered(&cased, &body);
    let lower_trim = body.trim_matches(|c: char| !c.is_alphanumeric());
    let after_lead = without_discourse_lead(&body);
    let hits = phrase_hits(&body, body.len() - after_lead.len());
    // 2. Greetings, thanks, sign-offs.
    if is_greeting(&body, lower_trim, &ws, sentence, hits) {
        return ClaimKind::Greeting;
    }
    // 3. Questions.
    let last = sentence
        .trim_end()
        .trim_end_matches(|c: char| matches!(c, '"' | '\'' | ')' | '”' | '’') || (!c.is_ascii() && !c.is_alphanumeric()));
    if last.ends_with('?') {
        return ClaimKind::Question;
    }
    if is_question_without_mark(&body) {
        return ClaimKind::Question;
    }
    // 4. Logistics.
    if is_logistics(after_lead, &ws, hits) {
        return ClaimKind::Logistics;
    }
    // 5. Opinions: the user's preferences, or an evaluative predicate.
    if is_opinion(sentence, after_lead, &ws, cues, hits) {
        return ClaimKind::Opinion;
    }
    // 6. Fragments. A line in capitals without a lower-case letter is a
    // heading or a shout ("FREE MANAGED FUTURES & IRA RETIREMENT KIT").
    // (the lower-case test first: it settles nearly every sentence)
    if !cased.chars().any(char::is_lowercase) && ws.iter().filter(|w| w.raw.chars().filter(|c| c.is_alphabetic()).count() >= 2).count() >= 2
    {
        return ClaimKind::Logistics;
    }
    if !has_finite_verb(&ws) {
        return if is_named_value(&ws, cues) { ClaimKind::Quantity } else { ClaimKind::Logistics };
    }
    // 7. Audited kinds.
    audited_kind(sentence, &ws, cues, hits)
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
    if crate::strip::is_sign_off_line(original) {
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
const DISCOURSE_LEADS: &[&str] = &[
    "unfortunately",
    "fortunately",
    "also",
    "however",
    "so",
    "but",
    "and",
    "actually",
    "well",
    "ok",
    "okay",
    "now",
    "anyway",
    "btw",
    "plus",
    "then",
    "again",
    "still",
    "otherwise",
    "additionally",
    "in addition",
];

/// `body` without leading discourse words and their commas.
fn without_discourse_lead(body: &str) -> &str {
    let mut b = body;
    loop {
        let before = b;
        for d in DISCOURSE_LEADS {
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
    let has_digit = ws.iter().any(|w| w.raw.bytes().any(|c| c.is_ascii_digit()) && !is_url_like(w.raw) && !w.raw.starts_with('@'));
    !has_digit && !cues.iter().any(|c| c.class == CueClass::Attribution && is_reported_speech(sentence, c))
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
    for (i, w) in ws.iter().enumerate() {
        let l = w.lower.as_ref();
        // "AM"/"PM" after a time ("Departure: Tulsa 8:39 AM") is not the verb "am".
        if l == "am" && !(i > 0 && ws[i - 1].lower == "i") {
            continue;
        }
        if AUX_SET.contains(l) || IRREGULAR_PAST_SET.contains(l) {
            return true;
        }
        // A subject pronoun followed by a lower-case word: "We do GA", "you begin".
        if SUBJECT_PRONOUNS.contains(&l)
            && !matches!(l, "this" | "that" | "these" | "those")
            && let Some(n) = ws.get(i + 1)
            && n.raw.chars().next().is_some_and(char::is_lowercase)
            && !DETERMINERS_SET.contains(n.lower.as_ref())
        {
            return true;
        }
        // "-ed" past forms, not as the first word of a title ("Unregulated storage"),
        // nor right after a determiner ("the unspent reserves").
        if l.len() > 4 && l.ends_with("ed") && l.chars().all(|c| c.is_alphabetic() || c == '-') {
            let prev_det = i > 0 && DETERMINERS_SET.contains(ws[i - 1].lower.as_ref());
            let next_det = ws.get(i + 1).is_some_and(|n| DETERMINERS_SET.contains(n.lower.as_ref()) || n.lower == "to");
            if (i > 0 && !prev_det) || next_det {
                return true;
            }
        }
        if i > 0 && i + 1 < ws.len() && is_finite_word(w, false) && !l.ends_with("ed") {
            return true;
        }
        // A base-form verb after a plural noun: "the two groups own 12 shipyards".
        if i > 0 && i + 1 < ws.len() && VERB_STEMS_SET.contains(l) {
            let p = ws[i - 1].lower.as_ref();
            if p.len() > 3 && p.ends_with('s') && !p.ends_with("ss") && !DETERMINERS_SET.contains(p) {
                return true;
            }
        }
    }
    false
}

/// A number token: digits with optional `$ % , .`, not a phone number,
/// date, time, year, version or code.
fn is_quantity_number(w: &str) -> bool {
    let t = w.trim_matches(|c: char| matches!(c, '(' | ')' | '+' | '-' | '*'));
    if !t.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let money_or_pct = t.starts_with(['$', '€', '£']) || t.ends_with('%');
    let digits_only = t.trim_start_matches(['$', '€', '£']).trim_end_matches('%');
    // Glued unit: "33MB", "100k".
    let (num, unit) = split_glued(digits_only);
    if num.is_empty() {
        return false;
    }
    if !num.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.') {
        return false;
    }
    if num.matches('.').count() > 1 {
        return false; // version "5.2.1" or "0.27.0"
    }
    if !unit.is_empty() {
        return money_or_pct || (unit.chars().all(|c| c.is_ascii_alphabetic()) && unit.len() <= 3);
    }
    // A year alone is a date, not a quantity.
    let n: f64 = num.replace(',', "").parse().unwrap_or(-1.0);
    if !money_or_pct && !num.contains(['.', ',']) && (1900.0..=2100.0).contains(&n) && num.len() == 4 {
        return false;
    }
    true
}

fn split_glued(s: &str) -> (&str, &str) {
    let idx = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    (&s[..idx], &s[idx..])
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
    fn hedged_claim_is_not_an_opinion() {
        assert_eq!(kind("I think the pipeline is full."), ClaimKind::Fact);
        assert!(kind("I believe the deal closed in May 2001.").is_audited());
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
        assert_eq!(kind("I have always wanted to visit that part of the world."), ClaimKind::Fact);
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
        for (list, bit) in [(LOGISTICS_PHRASES, P_LOGISTICS), (CAUSAL, P_CAUSAL), (COMPARISON, P_COMPARISON), (FUTURE, P_FUTURE)] {
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
