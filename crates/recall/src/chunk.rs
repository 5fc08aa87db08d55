//! Sentence boundaries and chunks.
//!
//! A chunk is a run of whole sentences of an item's body, at most
//! [`MAX_CHUNK`] bytes (a single longer sentence is cut at a space). Chunks
//! are numbered from 0 in body order; the cut depends only on the body, so a
//! chunk number is stable for as long as the item's digest is.

use std::ops::Range;

/// Chunks are filled with whole sentences up to this many bytes.
pub const MAX_CHUNK: usize = 1000;
/// A chunk shorter than this is merged into the previous one when they fit in
/// [`MAX_CHUNK`] together (so an item does not end on a stub).
pub const MIN_CHUNK: usize = 500;

/// Words after which a period does not end a sentence. Lowercase, without the
/// final period. Titles, company suffixes and Latin abbreviations are the
/// cases seen in notes and Wikipedia text ("Mr. Smith", "Acme Inc. said",
/// "e.g. Paris", "approx. 3 m").
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "inc", "ltd", "co", "corp", "vs", "etc", "e.g", "i.e", "cf", "al", "approx",
    "ca", "no", "nos", "fig", "figs", "vol", "p", "pp", "ed", "eds", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec", "u.s", "u.k", "a.m", "p.m", "gen", "gov", "rev", "est", "dept", "univ",
];

/// Byte ranges of the sentences of `text`, trimmed of surrounding whitespace,
/// in order, never empty. Boundaries: `.`, `!`, `?` or `…` (with closing
/// quotes or brackets) followed by whitespace and a capital, digit, quote or
/// bracket; a blank line; a line that starts a markdown heading, list item or
/// quote.
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            // Paragraph or block boundary?
            let next_line = &text[i + 1..];
            let trimmed = next_line.trim_start_matches([' ', '\t', '\r']);
            if trimmed.starts_with('\n') || starts_block(trimmed) || line_is_block(&text[start..i]) {
                push_trimmed(text, start, i, &mut out);
                start = i + 1;
            }
            i += 1;
            continue;
        }
        let ch_len = utf8_len(b);
        let is_term = matches!(b, b'.' | b'!' | b'?') || text[i..].starts_with('…');
        if is_term {
            // Swallow runs of terminators and closing punctuation.
            let mut j = i + ch_len;
            while j < bytes.len() {
                let rest = &text[j..];
                let c = rest.chars().next().unwrap_or(' ');
                if matches!(c, '.' | '!' | '?' | '…' | '"' | '\'' | ')' | ']' | '”' | '’' | '»') {
                    j += c.len_utf8();
                } else {
                    break;
                }
            }
            let rest = &text[j..];
            let after_ws = rest.trim_start();
            let had_ws = after_ws.len() < rest.len();
            let ends = if rest.is_empty() {
                true
            } else if !had_ws {
                false
            } else {
                let next = after_ws.chars().next().unwrap_or('\n');
                let opens = next.is_uppercase() || next.is_ascii_digit() || matches!(next, '"' | '\'' | '(' | '[' | '“' | '‘' | '«' | '\n');
                opens && !(b == b'.' && is_abbreviation(&text[start..i]))
            };
            if ends {
                push_trimmed(text, start, j, &mut out);
                start = j;
            }
            i = j.max(i + ch_len);
            continue;
        }
        i += ch_len;
    }
    push_trimmed(text, start, bytes.len(), &mut out);
    out
}

/// A line that stands alone as a block: a heading or horizontal rule.
fn line_is_block(segment: &str) -> bool {
    let last_line = segment.rsplit('\n').next().unwrap_or("").trim_start();
    last_line.starts_with('#') || last_line.starts_with("---")
}

/// A line that starts a new block: heading, list item, block quote, rule, table row.
fn starts_block(line: &str) -> bool {
    if line.starts_with('#') || line.starts_with('>') || line.starts_with('|') || line.starts_with("---") {
        return true;
    }
    if let Some(rest) = line.strip_prefix(['-', '*', '+']) {
        return rest.starts_with(' ');
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits < 4 && line[digits..].starts_with(['.', ')']) && line[digits + 1..].starts_with(' ')
}

fn is_abbreviation(before: &str) -> bool {
    let word = before.rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"').next().unwrap_or("");
    let lower = word.to_lowercase();
    // A single letter is an initial ("J. Smith", "U. S."), never a sentence.
    if lower.chars().count() == 1 && lower.chars().all(char::is_alphabetic) {
        return true;
    }
    ABBREVIATIONS.contains(&lower.as_str())
}

fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<Range<usize>>) {
    let seg = &text[start..end];
    let lead = seg.len() - seg.trim_start().len();
    let trail = seg.len() - seg.trim_end().len();
    if lead + trail < seg.len() {
        out.push(start + lead..end - trail);
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// Byte ranges of the chunks of `body`, in order. Each is a run of whole
/// sentences (see [`sentences`]) of at most [`MAX_CHUNK`] bytes, or a piece of
/// one overlong sentence cut at a space.
pub fn chunks(body: &str) -> Vec<Range<usize>> {
    let mut pieces: Vec<Range<usize>> = Vec::new();
    for s in sentences(body) {
        split_long(body, s, &mut pieces);
    }
    let mut out: Vec<Range<usize>> = Vec::new();
    for p in pieces {
        match out.last_mut() {
            Some(cur) if p.end - cur.start <= MAX_CHUNK => cur.end = p.end,
            _ => out.push(p),
        }
    }
    // Merge a short tail into its neighbour when both fit.
    if out.len() >= 2 {
        let n = out.len();
        if out[n - 1].len() < MIN_CHUNK && out[n - 1].end - out[n - 2].start <= MAX_CHUNK {
            let end = out[n - 1].end;
            out.pop();
            if let Some(prev) = out.last_mut() {
                prev.end = end;
            }
        }
    }
    out
}

/// Cut one sentence longer than [`MAX_CHUNK`] at spaces (or at a character
/// boundary when there is no space).
fn split_long(text: &str, r: Range<usize>, out: &mut Vec<Range<usize>>) {
    let mut start = r.start;
    while r.end - start > MAX_CHUNK {
        let mut cut = start + MAX_CHUNK;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        if let Some(sp) = text[start..cut].rfind(char::is_whitespace)
            && sp > 0
        {
            cut = start + sp;
        }
        push_trimmed(text, start, cut, out);
        start = cut;
    }
    push_trimmed(text, start, r.end, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(t: &str) -> Vec<&str> {
        sentences(t).into_iter().map(|r| &t[r]).collect()
    }

    #[test]
    fn splits_on_terminators_not_abbreviations_or_decimals() {
        let t = "Mr. Smith paid 3.5 dollars at 10:30 a.m. on Monday. Then he left! Did he? Yes, e.g. for lunch. J. R. R. Tolkien wrote it.";
        assert_eq!(
            texts(t),
            vec![
                "Mr. Smith paid 3.5 dollars at 10:30 a.m. on Monday.",
                "Then he left!",
                "Did he?",
                "Yes, e.g. for lunch.",
                "J. R. R. Tolkien wrote it."
            ]
        );
    }

    #[test]
    fn blocks_and_quotes() {
        let t = "# Title\nFirst line\nwraps here. \"Quoted.\" Next.\n\n- item one\n- item two\n1. numbered";
        assert_eq!(texts(t), vec!["# Title", "First line\nwraps here.", "\"Quoted.\"", "Next.", "- item one", "- item two", "1. numbered"]);
    }

    #[test]
    fn unicode_and_no_final_punctuation() {
        let t = "Température moyenne: 15 °C… Ça monte. ok 👍";
        assert_eq!(texts(t), vec!["Température moyenne: 15 °C…", "Ça monte. ok 👍"]);
        assert!(sentences("").is_empty());
        assert!(sentences("  \n\n ").is_empty());
    }

    #[test]
    fn chunks_hold_whole_sentences_within_bounds() {
        let sentence = "The sea level rose by three millimetres a year over the period. ";
        let body = sentence.repeat(60);
        let cs = chunks(&body);
        assert!(cs.len() >= 3);
        for c in &cs {
            assert!(c.len() <= MAX_CHUNK, "{}", c.len());
            assert!(body[c.clone()].ends_with('.'));
            assert!(body[c.clone()].starts_with("The sea"));
        }
        let covered: usize = cs.iter().map(|c| c.len()).sum();
        assert!(covered + cs.len() >= body.trim().len());
    }

    #[test]
    fn overlong_sentence_is_cut_at_spaces() {
        let body = "word ".repeat(700);
        let cs = chunks(&body);
        assert!(cs.len() >= 3);
        for c in &cs {
            assert!(c.len() <= MAX_CHUNK);
            assert!(!body[c.clone()].starts_with(' '));
        }
        let nospace = "x".repeat(2500);
        assert_eq!(chunks(&nospace).len(), 3);
        let multibyte = "é".repeat(1200);
        for c in chunks(&multibyte) {
            assert!(multibyte.is_char_boundary(c.start) && multibyte.is_char_boundary(c.end));
        }
    }

    #[test]
    fn short_tail_merges() {
        let body = format!("{} {}", "A".repeat(600) + ".", "Tail sentence.");
        assert_eq!(chunks(&body).len(), 1);
    }
}
