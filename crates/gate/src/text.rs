//! Sentences, clauses, words: the small text toolkit the gate needs, all
//! with byte offsets into the text they came from.

use crate::lexicon::Lexicon;

/// A sentence of a text: its byte range and the text itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sentence<'a> {
    pub start: usize,
    pub end: usize,
    pub text: &'a str,
}

/// Abbreviations whose period does not end a sentence (lower-cased, without
/// the period). Short on purpose: the gate compares sentences of two texts
/// split the same way, so a missed split costs little.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "inc", "ltd", "co", "corp", "no", "fig", "approx", "u.s",
];

/// Split a text into sentences on `.`, `!`, `?` (followed by whitespace or
/// the end) and on line breaks. Empty pieces are dropped; each sentence is
/// trimmed of surrounding whitespace.
pub(crate) fn sentences(text: &str) -> Vec<Sentence<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(text.len() / 64 + 1);
    let mut start = 0usize;
    let mut i = 0usize;
    // closing punctuation swallowed after a terminator: . ! ? " ' ) and the
    // UTF-8 forms of ” ’ … (all start with 0xE2 0x80)
    let closing_len = |j: usize| -> usize {
        match b.get(j) {
            Some(b'.' | b'!' | b'?' | b'"' | b'\'' | b')') => 1,
            Some(0xE2) if b.get(j + 1) == Some(&0x80) && matches!(b.get(j + 2), Some(0x9D | 0x99 | 0xA6)) => 3,
            _ => 0,
        }
    };
    while i < b.len() {
        let c = b[i];
        let term_len = match c {
            b'\n' => {
                push_trimmed(text, start, i, &mut out);
                start = i + 1;
                i += 1;
                continue;
            }
            b'.' | b'!' | b'?' => 1,
            0xE2 if b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0xA6) => 3,
            _ => {
                i += 1;
                continue;
            }
        };
        let mut end = i + term_len;
        loop {
            let l = closing_len(end);
            if l == 0 {
                break;
            }
            end += l;
        }
        let next_ws = b.get(end).is_none_or(|x| x.is_ascii_whitespace());
        if next_ws && !(c == b'.' && is_abbreviation(&text[start..i])) && !quote_then_lower(text, i + term_len, end) {
            push_trimmed(text, start, end, &mut out);
            start = end;
        }
        i = end;
    }
    push_trimmed(text, start, text.len(), &mut out);
    out
}

/// A quotation closed after its terminator and followed by a lower-case
/// word (`"Caught cold, Watson?" said he.`, also tokenised as `? '' said`)
/// continues the sentence: the attribution belongs to the quote.
fn quote_then_lower(text: &str, after_term: usize, end: usize) -> bool {
    let rest = &text[after_term.min(text.len())..];
    let trimmed = rest.trim_start_matches([' ', '\t']);
    let unquoted = trimmed.trim_start_matches(['"', '\'', '”', '’', '`']);
    let quoted = unquoted.len() < trimmed.len() || text[after_term.min(end)..end].contains(['"', '\'', '”', '’']);
    quoted && unquoted.trim_start_matches([' ', '\t']).starts_with(|c: char| c.is_lowercase())
}

fn is_abbreviation(before: &str) -> bool {
    let word = before.rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap_or("");
    // a single letter ("J. Smith") or a known abbreviation
    (word.len() == 1 && word.bytes().all(|b| b.is_ascii_alphabetic())) || ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word))
}

fn push_trimmed<'a>(text: &'a str, start: usize, end: usize, out: &mut Vec<Sentence<'a>>) {
    if start >= end {
        return;
    }
    let piece = &text[start..end];
    let lead = piece.len() - piece.trim_start().len();
    let trimmed = piece.trim();
    if trimmed.is_empty() {
        return;
    }
    let s = start + lead;
    out.push(Sentence { start: s, end: s + trimmed.len(), text: trimmed });
}

/// A content word, as a 64-bit hash of its lower-cased stem: the
/// alignment compares sets of these (no string allocation per word;
/// collisions among a few dozen words of two sentences are negligible).
pub(crate) type Word = u64;

/// A fast 64-bit word hash, eight bytes at a time (multiply-rotate in the
/// style of FxHash, with the length folded in). Not for adversarial input:
/// a collision can only make two different words count as shared.
pub(crate) fn word_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // assembled in a register: a copy into a stack buffer costs a
        // memcpy call and a store-forwarding stall per word
        let v = rest.iter().enumerate().fold(0u64, |v, (k, b)| v | (u64::from(*b) << (8 * k)));
        h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// A light stem so that "promoted"/"promotes"/"promoting" and
/// "servers"/"server" meet: possessive, then one of -ing, -ed, -es, -s when
/// at least four letters remain (and the rest does not end in "s":
/// "access" stays "access").
pub(crate) fn stem(word: &str) -> &str {
    let w = word.strip_suffix("'s").or_else(|| word.strip_suffix("’s")).unwrap_or(word);
    for suf in ["ing", "ed", "es", "s"] {
        if let Some(base) = w.strip_suffix(suf)
            && base.chars().count() >= 4
            && !base.ends_with('s')
        {
            return base;
        }
    }
    w
}

/// [`stem`] on an ASCII word of any case (the same rules, compared
/// case-insensitively).
fn stem_ascii(w: &[u8]) -> &[u8] {
    let ends = |w: &[u8], suf: &[u8]| w.len() >= suf.len() && w[w.len() - suf.len()..].eq_ignore_ascii_case(suf);
    let w = if ends(w, b"'s") { &w[..w.len() - 2] } else { w };
    for suf in [&b"ing"[..], b"ed", b"es", b"s"] {
        if ends(w, suf) {
            let base = &w[..w.len() - suf.len()];
            if base.len() >= 4 && !ends(base, b"s") {
                return base;
            }
        }
    }
    w
}

/// [`word_hash`] of the ASCII lower-case form of a word made of ASCII
/// letters, digits and apostrophes, without copying it: bit 0x20 turns
/// `A-Z` into `a-z` and leaves digits and `'` unchanged.
pub(crate) fn word_hash_ascii_lower(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    const LOWER: u64 = 0x2020_2020_2020_2020;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ (u64::from_le_bytes(w) | LOWER)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let v = rest.iter().enumerate().fold(0u64, |v, (k, b)| v | (u64::from(*b | 0x20) << (8 * k)));
        h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// A content word of a sentence: where it starts (bytes of the text), its
/// hash, and whether it lies inside a temporal cue ("Monday").
#[derive(Clone, Copy, Debug)]
pub(crate) struct WordAt {
    pub start: usize,
    pub word: Word,
    pub temporal: bool,
}

/// Content words of `text[start..end]` in text order: alphanumeric runs
/// (inner apostrophes kept) that are not stopwords and not covered by a
/// non-temporal cue span (`covered`, bytes of `text`), stemmed and hashed;
/// those inside a `temporal` span are kept and marked.
pub(crate) fn content_words(
    lex: &Lexicon,
    text: &str,
    start: usize,
    end: usize,
    covered: &[(usize, usize)],
    temporal: &[(usize, usize)],
) -> Vec<WordAt> {
    let piece = &text[start..end];
    let mut out = Vec::with_capacity(piece.len() / 6 + 1);
    let mut lower = String::new();
    let bytes = piece.as_bytes();
    // Spans are sorted and do not overlap, and tokens come in text order:
    // one cursor per span list moves forward only.
    let (mut ci, mut ti) = (covered.partition_point(|&(_, ce)| ce <= start), temporal.partition_point(|&(_, ce)| ce <= start));
    let mut emit = |s: usize, e: usize, lower: &mut String| {
        let (as_, ae) = (s + start, e + start);
        while covered.get(ci).is_some_and(|&(_, ce)| ce <= as_) {
            ci += 1;
        }
        if covered.get(ci).is_some_and(|&(cs, _)| cs < ae) {
            return;
        }
        let w = &piece[s..e];
        let word = if w.is_ascii() {
            // ASCII word characters (letters, digits, apostrophe) lower-case
            // by setting bit 0x20, so the hash reads the text in place
            if lex.is_stopword(word_hash_ascii_lower(w.as_bytes())) {
                return;
            }
            word_hash_ascii_lower(stem_ascii(w.as_bytes()))
        } else {
            lower.clear();
            lower.extend(w.chars().flat_map(char::to_lowercase));
            if lex.is_stopword(word_hash(lower.as_bytes())) {
                return;
            }
            word_hash(stem(lower).as_bytes())
        };
        while temporal.get(ti).is_some_and(|&(_, ce)| ce <= as_) {
            ti += 1;
        }
        let in_temporal = temporal.get(ti).is_some_and(|&(cs, _)| cs < ae);
        out.push(WordAt { start: as_, word, temporal: in_temporal });
    };
    // Word characters: ASCII alphanumerics fast, other chars decoded; an
    // apostrophe between two word characters stays inside the word.
    let mut cur: Option<usize> = None;
    let mut i = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        let (is_word, len) = if b.is_ascii() {
            let inner_apos = b == b'\'' && cur.is_some() && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric);
            (b.is_ascii_alphanumeric() || inner_apos, 1)
        } else {
            let c = piece[i..].chars().next().unwrap_or(' ');
            let l = c.len_utf8();
            let inner_apos = c == '’' && cur.is_some() && piece[i + l..].chars().next().is_some_and(char::is_alphanumeric);
            (c.is_alphanumeric() || inner_apos, l)
        };
        if is_word {
            if cur.is_none() {
                cur = Some(i);
            }
        } else if let Some(s) = cur.take() {
            emit(s, i, &mut lower);
        }
        i += len;
    }
    if let Some(s) = cur {
        emit(s, piece.len(), &mut lower);
    }
    out
}

/// The sorted, deduplicated word set of some content words.
pub(crate) fn word_set(words: impl Iterator<Item = Word>) -> Vec<Word> {
    let mut v: Vec<Word> = words.collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Clause boundaries inside a sentence (byte offsets relative to the
/// sentence): commas, semicolons, colons, dashes and the coordinators
/// " but ", " while ", " whereas ", " although ". Used by the polarity check
/// to tell a dropped clause from a reversed one.
pub(crate) fn clauses(sentence: &str) -> Vec<(usize, usize)> {
    const COORDINATORS: &[&[u8]] = &[b"but", b"while", b"whereas", b"although", b"and"];
    let bytes = sentence.as_bytes();
    let mut cuts = vec![0usize];
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b',' | b';' | b':' => cuts.push(i + 1),
            // em dash and en dash (U+2014, U+2013)
            0xE2 if bytes.get(i + 1) == Some(&0x80) && matches!(bytes.get(i + 2), Some(0x93 | 0x94)) => cuts.push(i + 3),
            b' ' => {
                // " but " and the like: cut before the coordinator
                let rest = &bytes[i + 1..];
                for w in COORDINATORS {
                    if rest.len() > w.len() && rest[..w.len()].eq_ignore_ascii_case(w) && rest[w.len()] == b' ' {
                        cuts.push(i + 1);
                    }
                }
            }
            _ => {}
        }
    }
    cuts.push(sentence.len());
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|w| (w[0], w[1])).filter(|&(a, b)| a < b && !sentence[a..b].trim().is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sentences_with_offsets() {
        let t = "Alice has admin. Not sure though.";
        let s = sentences(t);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].text, "Alice has admin.");
        assert_eq!(&t[s[1].start..s[1].end], "Not sure though.");
    }

    #[test]
    fn abbreviations_do_not_split() {
        let s = sentences("Mr. Smith met Dr. Jones in the U.S. office. Then left.");
        assert_eq!(s.len(), 2, "{s:?}");
    }

    #[test]
    fn decimal_points_do_not_split() {
        assert_eq!(sentences("It cost 1.2 million dollars. Fine.").len(), 2);
    }

    #[test]
    fn attribution_after_a_quote_stays_with_it() {
        assert_eq!(sentences("\"Caught cold, Watson?\" said he. Then he left.").len(), 2);
        assert_eq!(sentences("`` Caught cold , Watson ? '' said he .").len(), 1);
        assert_eq!(sentences("Is it cold? yes it is.").len(), 2);
    }

    #[test]
    fn newlines_split() {
        assert_eq!(sentences("one line\nanother line").len(), 2);
    }

    #[test]
    fn ascii_hash_matches_lowercase_hash() {
        for w in ["Alice", "PROMOTED", "server2", "didn't", "abcdefghIJKLMNOPq", "x"] {
            assert_eq!(word_hash_ascii_lower(w.as_bytes()), word_hash(w.to_lowercase().as_bytes()), "{w}");
            assert_eq!(
                std::str::from_utf8(stem_ascii(w.as_bytes())).map(str::to_lowercase).ok(),
                Some(stem(&w.to_lowercase()).to_string())
            );
        }
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("promoted"), stem("promotes"));
        assert_eq!(stem("servers"), "server");
        assert_eq!(stem("alice's"), "alice");
        assert_eq!(stem("access"), "access");
        assert_eq!(stem("is"), "is");
    }

    #[test]
    fn clauses_cut_on_commas_and_but() {
        let c = clauses("Alice has admin, but Bob does not");
        assert_eq!(c.len(), 2);
    }
}
