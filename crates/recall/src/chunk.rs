//! Sentence boundaries and chunks.
//!
//! A chunk is a run of whole sentences of an item's body, at most
//! [`MAX_CHUNK`] bytes (a single longer sentence is cut at a space). Chunks
//! are numbered from 0 in body order; the cut depends only on the body, so a
//! chunk number is stable for as long as the item's digest is.

use amem_text::sentence::Layout;
use std::ops::Range;

/// Chunks are filled with whole sentences up to this many bytes.
pub const MAX_CHUNK: usize = 1000;
/// A chunk shorter than this is merged into the previous one when they fit in
/// [`MAX_CHUNK`] together (so an item does not end on a stub).
pub const MIN_CHUNK: usize = 500;

/// Byte ranges of the sentences of `text`: the text layer's splitter with
/// the notes layout (wrapped lines join, headings, list items and quotes
/// stand alone, nothing is set aside), trimmed, in order, never empty.
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    amem_text::sentence::split_sentences_as(text, Layout::Notes).into_iter().map(|s| s.start..s.end).collect()
}

fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<Range<usize>>) {
    let seg = &text[start..end];
    let lead = seg.len() - seg.trim_start().len();
    let trail = seg.len() - seg.trim_end().len();
    if lead + trail < seg.len() {
        out.push(start + lead..end - trail);
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
        assert_eq!(texts(t), vec!["# Title", "First line\nwraps here.", "\"Quoted.\"", "Next.", "item one", "item two", "numbered"]);
    }

    #[test]
    fn unicode_and_no_final_punctuation() {
        let t = "Température moyenne: 15 °C… Ça monte. ok 👍";
        assert_eq!(texts(t), vec!["Température moyenne: 15 °C…", "Ça monte.", "ok 👍"]);
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
