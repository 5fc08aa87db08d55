//! The part of an evidence passage the verifier reads.
//!
//! The model was trained on windows cut by `models/verifier/generate.py`
//! (`evidence_window`); this is the same cut, rule for rule, so what the model
//! reads in amem is what it read in training: the whole passage when it fits
//! [`WINDOW_CHARS`], else the [`WINDOW_SENTENCES`] sentences sharing most
//! content words with the claim, in passage order. A test compares the two on
//! recorded passages (`tests/window.rs`).

use amem_text::tokens::{WordRule, word_spans};
use std::ops::Range;

/// Characters of evidence the verifier reads at most.
pub const WINDOW_CHARS: usize = 600;
/// Sentences kept from a passage longer than [`WINDOW_CHARS`].
pub const WINDOW_SENTENCES: usize = 3;

/// The function words the overlap ignores: the training script's list (`models/verifier/generate.py`
/// reads the same file).
static STOP: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::stopwords::WINDOW_STOPWORDS);

/// Lower-cased ASCII words of three characters or more that are not function words: runs of
/// ASCII letters and digits, with one `'letters` tail kept ("company's"), the one tokenizer's
/// [`WordRule::AsciiWords`].
pub fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in word_spans(text, WordRule::AsciiWords) {
        let word = text[r].to_ascii_lowercase();
        if word.len() >= 3 && !STOP.contains(&word.as_str()) && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// Sentences of a passage: split after `.`, `!` or `?` (and any closing quotes or brackets)
/// where whitespace is followed by a capital or a digit (an opening quote or bracket may come
/// first), and at line breaks. Each piece is trimmed; empty pieces are dropped.
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_spans(text).into_iter().map(|r| &text[r]).collect()
}

/// [`sentences`] as byte ranges of `text`.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut piece_start = 0;
    let mut i = 0;
    while i < chars.len() {
        // After a terminator: closers, whitespace, then a sentence start.
        if i > 0 && matches!(chars[i - 1].1, '.' | '!' | '?') {
            let mut j = i;
            while j < chars.len() && matches!(chars[j].1, '"' | '\'' | ')' | ']') {
                j += 1;
            }
            let ws = j;
            while j < chars.len() && chars[j].1.is_whitespace() {
                j += 1;
            }
            if j > ws && j < chars.len() {
                let mut k = j;
                if matches!(chars[k].1, '"' | '\'' | '(' | '[') {
                    k += 1;
                }
                if k < chars.len() && (chars[k].1.is_ascii_uppercase() || chars[k].1.is_ascii_digit()) {
                    push(&mut out, text, piece_start..chars[i].0);
                    piece_start = chars[j].0;
                    i = j;
                    continue;
                }
            }
        }
        if chars[i].1 == '\n' {
            let mut j = i;
            while j < chars.len() && chars[j].1 == '\n' {
                j += 1;
            }
            push(&mut out, text, piece_start..chars[i].0);
            piece_start = chars.get(j).map_or(text.len(), |c| c.0);
            i = j;
            continue;
        }
        i += 1;
    }
    push(&mut out, text, piece_start..text.len());
    out
}

/// Adds `range` of `text` to `out`, trimmed, unless nothing is left.
fn push(out: &mut Vec<Range<usize>>, text: &str, range: Range<usize>) {
    let piece = &text[range.clone()];
    let lead = piece.len() - piece.trim_start().len();
    let trimmed = piece.trim();
    if !trimmed.is_empty() {
        let start = range.start + lead;
        out.push(start..start + trimmed.len());
    }
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut(text: String, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => text[..at].to_string(),
        None => text,
    }
}

/// The parts of `evidence` the verifier reads for `claim`, as byte ranges in passage order:
/// the whole passage (trimmed) when it fits [`WINDOW_CHARS`] characters once its whitespace
/// is squeezed, else the [`WINDOW_SENTENCES`] sentences sharing most content words with the
/// claim (ties: the earlier). What a verdict resting on the window cites.
pub fn window_spans(evidence: &str, claim: &str) -> Vec<Range<usize>> {
    let trimmed_start = evidence.len() - evidence.trim_start().len();
    let trimmed = evidence.trim();
    if trimmed.is_empty() {
        return Vec::new();
    }
    if squeeze(trimmed).chars().count() <= WINDOW_CHARS {
        // One part: the whole passage (a list of one range, not the range's numbers).
        #[allow(clippy::single_range_in_vec_init)]
        return vec![trimmed_start..trimmed_start + trimmed.len()];
    }
    let spans = sentence_spans(evidence);
    let claim_words = content_words(claim);
    let shared = |s: &str| content_words(s).iter().filter(|w| claim_words.contains(w)).count();
    let mut order: Vec<(usize, usize)> = spans.iter().enumerate().map(|(i, r)| (shared(&evidence[r.clone()]), i)).collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut keep: Vec<usize> = order.iter().take(WINDOW_SENTENCES).map(|&(_, i)| i).collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| spans[i].clone()).collect()
}

/// The text of the window of `evidence` the verifier reads for `claim` ([`window_spans`]):
/// each part's whitespace squeezed, joined by a space, cut at [`WINDOW_CHARS`] characters.
pub fn evidence_window(evidence: &str, claim: &str) -> String {
    let joined = window_spans(evidence, claim).into_iter().map(|r| squeeze(&evidence[r])).collect::<Vec<_>>().join(" ");
    cut(joined, WINDOW_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_passage_is_whole() {
        assert_eq!(evidence_window("A  short\npassage.", "x"), "A short passage.");
    }

    #[test]
    fn splits_like_the_training_script() {
        assert_eq!(sentences("He left. \"Then\" she came.\nNext line"), vec!["He left.", "\"Then\" she came.", "Next line"]);
        assert_eq!(sentences("e.g. this stays. 3 goes."), vec!["e.g. this stays.", "3 goes."]);
        assert_eq!(sentences("Closing.\" New one."), vec!["Closing.", "New one."]);
    }

    #[test]
    fn content_words_drop_function_words_and_short_ones() {
        assert_eq!(content_words("The company's revenue was 40 of 2019"), vec!["company's", "revenue", "2019"]);
    }

    #[test]
    fn long_passage_keeps_best_sentences_in_order() {
        let filler: String = (0..40).map(|i| format!("Filler sentence number {i} about weather. ")).collect();
        let text = format!("Revenue reached 40 million dollars. {filler}The revenue figure was audited.");
        let out = evidence_window(&text, "Revenue was 40 million dollars.");
        assert!(out.starts_with("Revenue reached 40 million dollars."), "{out}");
        assert!(out.contains("The revenue figure was audited."), "{out}");
        assert!(out.chars().count() <= WINDOW_CHARS);
    }
}
