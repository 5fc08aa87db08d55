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

/// A word token: byte range and lower-cased form.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub start: usize,
    pub end: usize,
    pub lower: String,
}

/// Alphanumeric runs (apostrophes inside words kept: "didn't", "Alice's").
pub(crate) fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut cur: Option<usize> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let inner_apos = (c == '\'' || c == '’') && cur.is_some() && chars.peek().is_some_and(|&(_, d)| d.is_alphanumeric());
        if c.is_alphanumeric() || inner_apos {
            if cur.is_none() {
                cur = Some(i);
            }
        } else if let Some(s) = cur.take() {
            out.push(Token { start: s, end: i, lower: text[s..i].to_lowercase() });
        }
    }
    if let Some(s) = cur {
        out.push(Token { start: s, end: text.len(), lower: text[s..].to_lowercase() });
    }
    out
}

/// A light stem so that "promoted"/"promotes"/"promoting" and
/// "servers"/"server" meet: possessive, then one of -ing, -ed, -es, -s when
/// at least four letters remain.
pub(crate) fn stem(word: &str) -> String {
    let w = word.trim_end_matches("'s").trim_end_matches("’s");
    for suf in ["ing", "ed", "es", "s"] {
        if let Some(base) = w.strip_suffix(suf)
            && base.chars().count() >= 4
            && !base.ends_with('s')
        {
            return base.to_string();
        }
    }
    w.to_string()
}

/// Content words of `text[range]`: tokens that are not stopwords and not
/// covered by a cue span (`covered` in bytes of `text`), stemmed.
pub(crate) fn content_words(lex: &Lexicon, text: &str, start: usize, end: usize, covered: &[(usize, usize)]) -> Vec<String> {
    let mut out: Vec<String> = tokens(&text[start..end])
        .into_iter()
        .filter(|t| {
            let (s, e) = (t.start + start, t.end + start);
            !lex.stopwords.contains(&t.lower) && !covered.iter().any(|&(cs, ce)| cs < e && s < ce)
        })
        .map(|t| stem(&t.lower))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Clause boundaries inside a sentence (byte offsets relative to the
/// sentence): commas, semicolons, colons, dashes and the coordinators
/// " but ", " while ", " whereas ", " although ". Used by the polarity check
/// to tell a dropped clause from a reversed one.
pub(crate) fn clauses(sentence: &str) -> Vec<(usize, usize)> {
    let mut cuts = vec![0usize];
    for (i, c) in sentence.char_indices() {
        if matches!(c, ',' | ';' | ':' | '—' | '–') {
            cuts.push(i + c.len_utf8());
        }
    }
    let lower = sentence.to_ascii_lowercase();
    for w in [" but ", " while ", " whereas ", " although ", " and "] {
        let mut from = 0;
        while let Some(p) = lower[from..].find(w) {
            cuts.push(from + p + 1);
            from += p + w.len();
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
        assert_eq!(stem("is"), "is");
    }

    #[test]
    fn clauses_cut_on_commas_and_but() {
        let c = clauses("Alice has admin, but Bob does not");
        assert_eq!(c.len(), 2);
    }
}
