//! Sentences and words with byte offsets: the units the verifier aligns.
//!
//! Sentence boundaries are found by rule (terminal punctuation followed by
//! whitespace and an upper-case letter, digit or quote; or a line break), with
//! the usual abbreviation exceptions, so every sentence is a verbatim byte range
//! of the evidence it came from and can be cited.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::OnceLock;

/// One word of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    /// Byte range in the text it was read from.
    pub range: Range<usize>,
    /// Lower-cased surface form.
    pub lower: String,
    /// Normalised stem used for alignment (see [`stem`]).
    pub stem: String,
    /// True when the surface form starts with an upper-case letter.
    pub capitalised: bool,
    /// True when the word is a function word (see [`is_stopword`]).
    pub stop: bool,
    /// [`stem_key`] of `stem`: words whose keys differ never match.
    pub key: u64,
}

/// Abbreviations after which a full stop does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "al", "fig", "no", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "inc", "ltd", "co", "corp", "jr", "sr", "u.s", "u.k", "approx", "vol", "p", "pp", "ca",
];

/// Byte ranges of the sentences of `text`, trimmed, never empty.
pub(crate) fn sentences(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        let mut cut: Option<usize> = None; // end of the current sentence (exclusive)
        if b == b'\n' {
            cut = Some(i);
        } else if matches!(b, b'.' | b'!' | b'?') {
            // Absorb runs of terminal punctuation and closing quotes/brackets.
            let mut j = i + 1;
            while j < bytes.len() && matches!(bytes[j], b'.' | b'!' | b'?' | b'"' | b'\'' | b')' | b']') {
                j += 1;
            }
            if j >= bytes.len() {
                cut = Some(j);
            } else if bytes[j].is_ascii_whitespace() {
                let mut k = j;
                while k < bytes.len() && bytes[k].is_ascii_whitespace() {
                    k += 1;
                }
                let next_starts = k >= bytes.len()
                    || bytes[k].is_ascii_uppercase()
                    || bytes[k].is_ascii_digit()
                    || matches!(bytes[k], b'"' | b'\'' | b'(' | b'[' | b'`')
                    || bytes[k] >= 0x80;
                if next_starts && !(b == b'.' && is_abbreviation(text, start, i)) {
                    cut = Some(j);
                }
            }
            if cut.is_none() {
                i = j;
                continue;
            }
        }
        if let Some(end) = cut {
            push_trimmed(text, start, end, &mut out);
            start = end;
            i = end.max(i + 1);
            continue;
        }
        i += 1;
    }
    push_trimmed(text, start, bytes.len(), &mut out);
    out
}

fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<Range<usize>>) {
    let Some(s) = text.get(start..end) else { return };
    let lead = s.len() - s.trim_start().len();
    let trimmed = s.trim();
    if trimmed.chars().any(|c| c.is_alphanumeric()) {
        out.push(start + lead..start + lead + trimmed.len());
    }
}

/// True when the word ending at byte `dot` (a full stop) is an abbreviation or a single initial.
fn is_abbreviation(text: &str, sentence_start: usize, dot: usize) -> bool {
    let before = &text[sentence_start..dot];
    // The run of letters, digits and dots that ends at the full stop.
    let start = before.char_indices().rev().find(|(_, c)| !(c.is_alphanumeric() || *c == '.')).map_or(0, |(i, c)| i + c.len_utf8());
    let word = &before[start..];
    if word.is_empty() {
        return false;
    }
    // A single upper-case initial ("J. Smith") or a dotted acronym ("U.S.").
    if word.chars().count() == 1 && word.chars().all(|c| c.is_uppercase()) {
        return true;
    }
    if word.is_ascii() {
        // The list is lower-case ASCII: comparing without case is comparing the lower-cased word.
        return ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word));
    }
    ABBREVIATIONS.contains(&word.to_lowercase().as_str())
}

pub(crate) use amem_text::stopwords::FUNCTION_WORDS;

/// Function words: never used to decide whether two sentences talk about the same thing
/// ([`FUNCTION_WORDS`] plus these).
/// `lrb`/`rrb`/`lsb`/`rsb` are the bracket escapes of the FEVER tokenisation (`-LRB-`).
const VERIFY_STOPWORDS: &[&str] = &[
    "below",
    "herself",
    "himself",
    "itself",
    "myself",
    "themselves",
    "may",
    "might",
    "must",
    "shall",
    "s",
    // the tails of contractions ("you're", "we'll", "they've"): the pronoun before them is a function word too
    "re",
    "ll",
    "ve",
    "t",
    "lrb",
    "rrb",
    "lsb",
    "rsb",
    "via",
    "within",
    "upon",
    "among",
    "yet",
    "whether",
    "new",
    "get",
    "got",
    "make",
    "even",
    "amp",
    "quot",
    // the stems of contracted negations ("doesn't" → "doesn" + "t"): the negation itself is read by the cue scanner
    "doesn",
    "isn",
    "aren",
    "wasn",
    "weren",
    "don",
    "didn",
    "hasn",
    "haven",
    "hadn",
    "wouldn",
    "couldn",
    "shouldn",
    "ain",
    "mustn",
    "needn",
    "never",
    "cannot",
    "neither",
];

pub(crate) fn is_stopword(lower: &str) -> bool {
    // A set, not a scan of the list: this runs for every word of every evidence sentence.
    static SET: OnceLock<HashSet<&'static str, FastHash>> = OnceLock::new();
    SET.get_or_init(|| FUNCTION_WORDS.iter().chain(VERIFY_STOPWORDS).copied().collect()).contains(lower)
}

fn irregular(lower: &str) -> Option<&'static str> {
    // Most words can be ruled out by their first byte and length before any hashing.
    static SHAPES: OnceLock<[u16; 256]> = OnceLock::new();
    let shapes = SHAPES.get_or_init(|| {
        let mut t = [0u16; 256];
        for (w, _) in IRREGULAR {
            if let Some(&b) = w.as_bytes().first() {
                t[usize::from(b)] |= 1 << w.len().min(15);
            }
        }
        t
    });
    let &first = lower.as_bytes().first()?;
    if lower.len() > 15 || shapes[usize::from(first)] & (1 << lower.len()) == 0 {
        return None;
    }
    static MAP: OnceLock<HashMap<&'static str, &'static str, FastHash>> = OnceLock::new();
    MAP.get_or_init(|| IRREGULAR.iter().copied().collect()).get(lower).copied()
}

/// The hasher of the verifier's in-memory tables (word lists, the evidence cache): FNV-1a
/// over eight bytes at a step. The keys are the verifier's own strings, not chosen by an
/// adversary to collide, and a collision costs time, never a wrong answer.
pub(crate) type FastHash = BuildHasherDefault<FastHasher>;

/// See [`FastHash`].
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h ^ u64::from_le_bytes(w)).wrapping_mul(PRIME).rotate_left(23);
        }
        for &b in chunks.remainder() {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
        self.0 = h;
    }
}

/// Byte ranges of the words of `text`: runs of letters and digits (hyphens and apostrophes split words).
pub(crate) fn word_ranges(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut chars = text.char_indices();
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut start: Option<usize> = None;
        for (i, c) in chars.by_ref() {
            if c.is_alphanumeric() {
                if start.is_none() {
                    start = Some(i);
                }
            } else if let Some(s) = start {
                return Some(s..i);
            }
        }
        done = true;
        start.map(|s| s..text.len())
    })
}

/// The words of `text` (letters and digits; hyphens and apostrophes split words),
/// with byte ranges relative to `text`.
pub(crate) fn words(text: &str) -> Vec<Word> {
    word_ranges(text).map(|r| make_word(text, r)).collect()
}

fn make_word(text: &str, range: Range<usize>) -> Word {
    let surface = &text[range.clone()];
    let mut lower = String::new();
    lower_into(surface, &mut lower);
    let stop = is_stopword(&lower) || lower.chars().all(|c| c.is_ascii_digit());
    let stem = stem(&lower);
    Word { range, key: stem_key(&stem), stem, capitalised: surface.chars().next().is_some_and(|c| c.is_uppercase()), stop, lower }
}

/// `surface.to_lowercase()` written into `out` (cleared first), without allocating for ASCII text.
pub(crate) fn lower_into(surface: &str, out: &mut String) {
    out.clear();
    if surface.is_ascii() {
        out.push_str(surface);
        out.make_ascii_lowercase();
    } else {
        out.push_str(&surface.to_lowercase());
    }
}

/// A small, symmetric suffix stripper. It only has to map the inflections and
/// derivations that separate a claim from its source onto one key ("infected",
/// "infection", "infects" → "infect"; "vaccines", "vaccinated" → "vaccin…");
/// both sides go through the same function, so over-stripping is harmless.
pub(crate) fn stem(lower: &str) -> String {
    let mut w = String::new();
    stem_into(lower, &mut w);
    w
}

/// [`stem`] written into `w` (cleared first), so a caller can reuse one buffer.
pub(crate) fn stem_into(lower: &str, w: &mut String) {
    w.clear();
    if let Some(lemma) = irregular(lower) {
        w.push_str(lemma);
        return;
    }
    w.push_str(lower);
    // For ASCII the byte length is the character count.
    if !w.is_ascii() || w.len() <= 3 {
        return;
    }
    // The suffix rules, first applicable wins; a rule can only apply to a word ending in its
    // suffix's last letter, so only those are tried (in the same order).
    let rules: &[(&str, &str, usize)] = match w.as_bytes()[w.len() - 1] {
        b's' => &[
            ("ies", "y", 5),
            ("sses", "ss", 5),
            ("ations", "ate", 8),
            ("ions", "", 7),
            ("ings", "", 7),
            ("ments", "", 8),
            ("ness", "", 7),
            ("s", "", 4),
        ],
        b'n' => &[("ation", "ate", 7), ("ion", "", 6)],
        b'g' => &[("ing", "", 6)],
        b'y' => &[("edly", "", 7), ("ly", "", 6)],
        b'd' => &[("ed", "", 5)],
        b't' => &[("ment", "", 7)],
        _ => &[],
    };
    for &(suffix, repl, min) in rules {
        if w.len() >= min && w.ends_with(suffix) {
            if suffix == "s" && (w.ends_with("ss") || w.ends_with("us") || w.ends_with("is")) {
                continue;
            }
            w.truncate(w.len() - suffix.len());
            w.push_str(repl);
            break;
        }
    }
    // "caused"/"cause", "vaccinate"/"vaccinat": drop a final e, undouble a final consonant ("stopped").
    if w.len() > 4 && w.ends_with('e') {
        w.pop();
    }
    let b = w.as_bytes();
    if b.len() > 4 && b[b.len() - 1] == b[b.len() - 2] && !matches!(b[b.len() - 1], b'l' | b's' | b'z' | b'e' | b'o') {
        w.pop();
    }
}

/// Irregular English inflections (and the derivations "death"/"dead" of "die",
/// "birth" of "born") that no suffix rule can join to their lemma. A closed
/// class of the language, listed once, not tuned to any corpus; forms that are
/// also other words ("found", "left", "saw", "lead") are left out.
const IRREGULAR: &[(&str, &str)] = &[
    ("died", "die"),
    ("dies", "die"),
    ("dying", "die"),
    ("death", "die"),
    ("deaths", "die"),
    ("dead", "die"),
    ("birth", "born"),
    ("births", "born"),
    ("began", "begin"),
    ("begun", "begin"),
    ("begins", "begin"),
    ("beginning", "begin"),
    ("grew", "grow"),
    ("grown", "grow"),
    ("grows", "grow"),
    ("growing", "grow"),
    ("growth", "grow"),
    ("wrote", "write"),
    ("written", "write"),
    ("writes", "write"),
    ("writing", "write"),
    ("writer", "write"),
    ("took", "take"),
    ("taken", "take"),
    ("takes", "take"),
    ("gave", "give"),
    ("given", "give"),
    ("gives", "give"),
    ("spoke", "speak"),
    ("spoken", "speak"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("fell", "fall"),
    ("fallen", "fall"),
    ("rose", "rise"),
    ("risen", "rise"),
    ("drew", "draw"),
    ("drawn", "draw"),
    ("knew", "know"),
    ("known", "know"),
    ("built", "build"),
    ("sold", "sell"),
    ("bought", "buy"),
    ("taught", "teach"),
    ("held", "hold"),
    ("kept", "keep"),
    ("sent", "send"),
    ("spent", "spend"),
    ("won", "win"),
    ("wins", "win"),
    ("winning", "win"),
    ("winner", "win"),
    ("lost", "lose"),
    ("loses", "lose"),
    ("paid", "pay"),
    ("told", "tell"),
    ("said", "say"),
    ("says", "say"),
    ("went", "go"),
    ("gone", "go"),
    ("came", "come"),
    ("became", "become"),
    ("ran", "run"),
    ("met", "meet"),
    ("brought", "bring"),
    ("fought", "fight"),
    ("caught", "catch"),
    ("sang", "sing"),
    ("sung", "sing"),
    ("singer", "sing"),
    ("stood", "stand"),
    ("wore", "wear"),
    ("worn", "wear"),
    ("men", "man"),
    ("women", "woman"),
    ("children", "child"),
    ("mice", "mouse"),
    ("feet", "foot"),
    ("teeth", "tooth"),
    ("people", "person"),
];

/// A cheap necessary condition for [`stems_match`]: the stem's first five bytes (all of it
/// when shorter) and that count, packed into one integer. Two stems that match are equal or
/// share a prefix of at least five bytes, so their keys are equal; unequal keys rule a match
/// out with one integer comparison.
pub(crate) fn stem_key(stem: &str) -> u64 {
    let b = stem.as_bytes();
    let n = b.len().min(5);
    let mut key = n as u64;
    for &byte in &b[..n] {
        key = (key << 8) | u64::from(byte);
    }
    key
}

/// True when two stems name the same word: equal, or one a prefix (at least
/// five letters) of the other ("vaccin" / "vaccinat").
pub(crate) fn stems_match(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 5 && long.starts_with(short)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(t: &str) -> Vec<&str> {
        sentences(t).into_iter().map(|r| &t[r]).collect()
    }

    #[test]
    fn splits_sentences_with_offsets() {
        let t = "Dr. Smith arrived on Jan. 5. He left in 2019! Was it 3.5 km? Yes.\nNext line";
        assert_eq!(texts(t), vec!["Dr. Smith arrived on Jan. 5.", "He left in 2019!", "Was it 3.5 km?", "Yes.", "Next line"]);
    }

    #[test]
    fn fever_tokenisation_and_initials() {
        let t = "Henry -LRB- born 1519 -RRB- was king . J. R. R. Tolkien wrote it . the U.S. army";
        assert_eq!(texts(t), vec!["Henry -LRB- born 1519 -RRB- was king .", "J. R. R. Tolkien wrote it . the U.S. army"]);
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("infected"), stem("infects"));
        assert_eq!(stem("caused"), stem("cause"));
        assert!(stems_match(&stem("vaccines"), &stem("vaccination")));
        assert_eq!(stem("studies"), stem("study"));
        assert!(!stems_match(&stem("cat"), &stem("catastrophe")));
    }

    #[test]
    fn words_have_ranges() {
        let t = "SARS-CoV-2 isn't new";
        let w = words(t);
        let surf: Vec<&str> = w.iter().map(|w| &t[w.range.clone()]).collect();
        assert_eq!(surf, vec!["SARS", "CoV", "2", "isn", "t", "new"]);
        assert!(w[0].capitalised && w[2].stop);
    }
}
