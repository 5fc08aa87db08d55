//! The one tokenizer: where every stage cuts a text into words.
//!
//! Stages read words differently on purpose, and a [`WordRule`] names each reading: the verifier
//! aligns runs of letters and digits, the gate keeps "don't" whole, recall keeps "3.5" whole, a
//! trust-list search sends "Dynegy's" and "2,304,580", the claim extractor reads "$5" and "10%"
//! as words, and the verifier model's evidence window counts ASCII words as its training script
//! does. [`word_spans`] cuts a text by one of them; each rule is written once, here, with the
//! fast path its stage measured (ASCII bytes classed without decoding).

use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// What a word is, for the reader asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordRule {
    /// A run of letters and digits; anything else separates ("don't" is "don" and "t"): the words
    /// the verifier aligns and the index stems ([`crate::words::words`]).
    Alphanumeric,
    /// [`WordRule::Alphanumeric`], with an apostrophe between two word characters kept inside
    /// (`'` before an ASCII letter or digit, `’` before any letter or digit): the gate's content
    /// words ([`crate::words::content_words`]), where "didn't" is one word.
    Apostrophes,
    /// [`WordRule::Alphanumeric`], with `.` and `,` between two digits kept inside ("3.5",
    /// "1,200"): recall's query terms.
    Numbers,
    /// A word begins with a letter and keeps inner apostrophes and hyphens ("Dynegy's",
    /// "well-known"); a number is a word of its own, inner `.` and `,` kept ("2,304,580"): the
    /// terms a trust-list search sends.
    SearchTerms,
    /// Whitespace-separated pieces trimmed at both ends to letters, digits and `' ’ $ % € £ - .`,
    /// trailing full stops cut: the claim extractor's words, where "$5", "10%" and "don't" are
    /// whole.
    Pieces,
    /// Runs of ASCII letters and digits, with one `'letters` tail kept ("company's"); every other
    /// character separates: what the verifier model's training script counts
    /// (`models/verifier/generate.py`), so its evidence window is cut the same in amem.
    AsciiWords,
}

/// The byte ranges of the words of `text` under `rule`, in text order.
pub fn word_spans(text: &str, rule: WordRule) -> WordSpans<'_> {
    WordSpans { text, at: 0, rule }
}

/// The words of `text` under `rule`, in text order: [`word_spans`] as slices of `text`.
pub fn words_of(text: &str, rule: WordRule) -> impl Iterator<Item = &str> + '_ {
    word_spans(text, rule).map(move |r| &text[r])
}

/// The iterator of [`word_spans`].
#[derive(Clone, Debug)]
pub struct WordSpans<'a> {
    text: &'a str,
    at: usize,
    rule: WordRule,
}

impl Iterator for WordSpans<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let (text, from) = (self.text, self.at);
        let found = match self.rule {
            WordRule::Alphanumeric => next_alphanumeric(text, from),
            WordRule::Apostrophes => next_with_apostrophes(text, from).map(|(s, e, _)| s..e),
            WordRule::Numbers => next_with_numbers(text, from),
            WordRule::SearchTerms => search_term_re().find_at(text, from).map(|m| m.range()),
            WordRule::Pieces => next_piece(text, from),
            WordRule::AsciiWords => next_ascii_word(text, from),
        };
        match found {
            Some(r) => {
                self.at = r.end;
                Some(r)
            }
            None => {
                self.at = text.len();
                None
            }
        }
    }
}

/// Whether the character at `at` (a char boundary) is alphanumeric, and its length in bytes.
/// ASCII bytes are classed without decoding (an ASCII character is alphanumeric exactly when
/// `u8::is_ascii_alphanumeric` says so); a non-ASCII character is decoded where it is met.
fn class(text: &str, at: usize) -> Option<(bool, usize)> {
    let &b = text.as_bytes().get(at)?;
    if b.is_ascii() {
        return Some((b.is_ascii_alphanumeric(), 1));
    }
    let c = text.get(at..)?.chars().next()?;
    Some((c.is_alphanumeric(), c.len_utf8()))
}

/// The first alphanumeric character at or after `from`.
fn word_start(text: &str, mut i: usize) -> Option<usize> {
    loop {
        let (alnum, len) = class(text, i)?;
        if alnum {
            return Some(i);
        }
        i += len;
    }
}

/// [`WordRule::Alphanumeric`]: the next word at or after `from`.
fn next_alphanumeric(text: &str, from: usize) -> Option<Range<usize>> {
    let start = word_start(text, from)?;
    let mut i = start;
    while let Some((true, len)) = class(text, i) {
        i += len;
    }
    Some(start..i)
}

/// [`WordRule::Apostrophes`]: the next word of `piece` at or after byte `from`, as
/// `(start, end, ascii)`, `ascii` when the word is all ASCII (the gate then hashes and stems it
/// in place). ASCII bytes are run over in a tight loop.
pub fn next_with_apostrophes(piece: &str, from: usize) -> Option<(usize, usize, bool)> {
    let bytes = piece.as_bytes();
    let n = bytes.len();
    let start = word_start(piece, from)?;
    let mut i = start;
    let mut ascii = true;
    loop {
        while i < n && bytes[i].is_ascii_alphanumeric() {
            i += 1;
        }
        let Some(&b) = bytes.get(i) else { break };
        if b == b'\'' {
            if bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric) {
                i += 1;
                continue;
            }
            break;
        }
        if b.is_ascii() {
            break;
        }
        let Some(c) = piece[i..].chars().next() else { break };
        let l = c.len_utf8();
        if c.is_alphanumeric() || (c == '’' && piece[i + l..].chars().next().is_some_and(char::is_alphanumeric)) {
            ascii = false;
            i += l;
            continue;
        }
        break;
    }
    Some((start, i, ascii))
}

/// [`WordRule::Numbers`]: the next word at or after `from`.
fn next_with_numbers(text: &str, from: usize) -> Option<Range<usize>> {
    let b = text.as_bytes();
    let start = word_start(text, from)?;
    let mut i = start;
    loop {
        match class(text, i) {
            Some((true, len)) => i += len,
            Some((false, 1))
                if matches!(b[i], b'.' | b',') && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit) =>
            {
                i += 1;
            }
            _ => return Some(start..i),
        }
    }
}

/// [`WordRule::SearchTerms`] as one pattern.
fn search_term_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\p{L}[\p{L}\p{N}]*(?:['’-]\p{L}[\p{L}\p{N}]*)*|\p{N}+(?:[.,]\p{N}+)*").expect("invariant: literal regex")
    })
}

/// What a [`WordRule::Pieces`] word keeps at its ends.
fn piece_keeps(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '\'' | '’' | '$' | '%' | '€' | '£' | '-' | '.')
}

/// The character at byte `at` (a char boundary): an ASCII byte without decoding.
fn char_at(text: &str, at: usize) -> Option<char> {
    let &b = text.as_bytes().get(at)?;
    if b.is_ascii() { Some(char::from(b)) } else { text.get(at..)?.chars().next() }
}

/// [`WordRule::Pieces`]: the next non-empty trimmed piece at or after `from` (pieces are cut at
/// `char::is_whitespace`, as `str::split_whitespace` cuts them).
fn next_piece(text: &str, from: usize) -> Option<Range<usize>> {
    let mut i = from;
    loop {
        while let Some(c) = char_at(text, i).filter(|c| c.is_whitespace()) {
            i += c.len_utf8();
        }
        let piece_start = i;
        while let Some(c) = char_at(text, i).filter(|c| !c.is_whitespace()) {
            i += c.len_utf8();
        }
        if piece_start == i {
            return None;
        }
        let piece = &text[piece_start..i];
        let trimmed = piece.trim_matches(|c: char| !piece_keeps(c)).trim_end_matches('.');
        if !trimmed.is_empty() {
            let a = piece_start + (trimmed.as_ptr() as usize - piece.as_ptr() as usize);
            return Some(a..a + trimmed.len());
        }
    }
}

/// [`WordRule::AsciiWords`]: the next word at or after `from`.
fn next_ascii_word(text: &str, from: usize) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() && !bytes[i].is_ascii_alphanumeric() {
        i += 1;
    }
    if i >= bytes.len() {
        return None;
    }
    let start = i;
    while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
        i += 1;
    }
    if i + 1 < bytes.len() && bytes[i] == b'\'' && bytes[i + 1].is_ascii_alphabetic() {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
    }
    Some(start..i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str, rule: WordRule) -> Vec<&str> {
        word_spans(text, rule).map(|r| &text[r]).collect()
    }

    const TEXTS: &[&str] = &[
        "Dynegy's $1.5 billion offer, 2,304,580 shares and 10% (don't) — well-known café’s 3.5 19th",
        "  Revenue rose 4%.  Thanks.\n\n--\nJohn  ",
        "naïve résumé ½ ² Ünïcödé 'quoted' ’tis O’Neill",
        "",
        "...",
        "a.b,c 1.2.3 1,,2 3. ,4 $5.00. £20 €3",
    ];

    #[test]
    fn each_rule_reads_its_stage_s_words() {
        let t = TEXTS[0];
        assert_eq!(&cut(t, WordRule::Alphanumeric)[..3], ["Dynegy", "s", "1"]);
        assert_eq!(&cut(t, WordRule::Apostrophes)[..3], ["Dynegy's", "1", "5"]);
        assert_eq!(&cut(t, WordRule::Numbers)[..3], ["Dynegy", "s", "1.5"]);
        assert_eq!(&cut(t, WordRule::SearchTerms)[..4], ["Dynegy's", "1.5", "billion", "offer"]);
        assert_eq!(&cut(t, WordRule::Pieces)[..4], ["Dynegy's", "$1.5", "billion", "offer"]);
        assert_eq!(&cut(t, WordRule::AsciiWords)[..3], ["Dynegy's", "1", "5"]);
        assert!(cut(t, WordRule::Pieces).contains(&"10%"));
        assert!(cut(t, WordRule::SearchTerms).contains(&"well-known"));
        assert!(cut(t, WordRule::SearchTerms).contains(&"2,304,580"));
        assert_eq!(cut(TEXTS[1], WordRule::Pieces), ["Revenue", "rose", "4%", "Thanks", "--", "John"]);
    }

    /// The character-by-character readings the rules were written as: the references their fast
    /// paths are held to.
    fn alphanumeric_by_chars(text: &str) -> Vec<&str> {
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect()
    }

    fn pieces_by_chars(text: &str) -> Vec<&str> {
        text.split_whitespace().map(|w| w.trim_matches(|c: char| !piece_keeps(c)).trim_end_matches('.')).filter(|w| !w.is_empty()).collect()
    }

    fn numbers_by_chars(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let b = text.as_bytes();
        let mut start: Option<usize> = None;
        let mut iter = text.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            let keep = c.is_alphanumeric()
                || (matches!(c, '.' | ',')
                    && start.is_some()
                    && i > 0
                    && b[i - 1].is_ascii_digit()
                    && iter.peek().is_some_and(|(_, n)| n.is_ascii_digit()));
            match (keep, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push(&text[s..i]);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push(&text[s..]);
        }
        out
    }

    #[test]
    fn fast_paths_agree_with_the_readings_they_replace() {
        for t in TEXTS {
            assert_eq!(cut(t, WordRule::Alphanumeric), alphanumeric_by_chars(t), "{t:?}");
            assert_eq!(cut(t, WordRule::Pieces), pieces_by_chars(t), "{t:?}");
            assert_eq!(cut(t, WordRule::Numbers), numbers_by_chars(t), "{t:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn fast_paths_agree_on_any_text(t in "[ a-zA-Z0-9.,'’$%€£\\-\t\n\u{0B}éü½²—]{0,40}") {
            proptest::prop_assert_eq!(cut(&t, WordRule::Alphanumeric), alphanumeric_by_chars(&t));
            proptest::prop_assert_eq!(cut(&t, WordRule::Pieces), pieces_by_chars(&t));
            proptest::prop_assert_eq!(cut(&t, WordRule::Numbers), numbers_by_chars(&t));
        }
    }
}
