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
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let boundary_end = match c {
            '\n' => Some(i),
            '.' | '!' | '?' | '…' => {
                // swallow a run of closing punctuation
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = iter.peek() {
                    if matches!(d, '.' | '!' | '?' | '"' | '\'' | ')' | '”' | '’' | '…') {
                        end = j + d.len_utf8();
                        iter.next();
                    } else {
                        break;
                    }
                }
                let next_ws = iter.peek().is_none_or(|&(_, d)| d.is_whitespace());
                if next_ws && !(c == '.' && is_abbreviation(&text[start..i])) { Some(end) } else { None }
            }
            _ => None,
        };
        if let Some(end) = boundary_end {
            push_trimmed(text, start, end, &mut out);
            start = if c == '\n' { i + 1 } else { end };
        }
    }
    push_trimmed(text, start, text.len(), &mut out);
    out
}

fn is_abbreviation(before: &str) -> bool {
    let word = before.rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap_or("");
    let w = word.to_lowercase();
    // a single letter ("J. Smith") or a known abbreviation
    (w.chars().count() == 1 && w.chars().all(char::is_alphabetic)) || ABBREVIATIONS.contains(&w.as_str())
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
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
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
    let mut out = Vec::new();
    let mut lower = String::new();
    let piece = &text[start..end];
    let bytes = piece.as_bytes();
    // `covered` is sorted by start (cues come sorted and do not overlap):
    // the first span ending after the token start is the only one that can
    // overlap it.
    let mut emit = |s: usize, e: usize, lower: &mut String| {
        let (as_, ae) = (s + start, e + start);
        let k = covered.partition_point(|&(_, ce)| ce <= as_);
        if covered.get(k).is_some_and(|&(cs, _)| cs < ae) {
            return;
        }
        lower.clear();
        let w = &piece[s..e];
        if w.is_ascii() {
            lower.push_str(w);
            lower.make_ascii_lowercase();
        } else {
            lower.extend(w.chars().flat_map(char::to_lowercase));
        }
        if lex.is_stopword(word_hash(lower.as_bytes())) {
            return;
        }
        let k = temporal.partition_point(|&(_, ce)| ce <= as_);
        let in_temporal = temporal.get(k).is_some_and(|&(cs, _)| cs < ae);
        out.push(WordAt { start: as_, word: word_hash(stem(lower).as_bytes()), temporal: in_temporal });
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
    for (i, c) in sentence.char_indices() {
        if matches!(c, ',' | ';' | ':' | '—' | '–') {
            cuts.push(i + c.len_utf8());
        } else if c == ' ' {
            // " but " and the like: cut before the coordinator
            let rest = &bytes[i + 1..];
            for w in COORDINATORS {
                if rest.len() > w.len() && rest[..w.len()].eq_ignore_ascii_case(w) && rest[w.len()] == b' ' {
                    cuts.push(i + 1);
                }
            }
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
    fn newlines_split() {
        assert_eq!(sentences("one line\nanother line").len(), 2);
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
