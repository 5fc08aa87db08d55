//! Residual signatures: the name, title, phone and company lines a mail
//! ends with. Importers remove quoted parts and known disclaimers; what they
//! leave of the author's own text still ends, in Enron mail, like
//!
//! ```text
//! Please be advised that the above referenced meeting has been rescheduled ...  Thanks.
//!
//! Emy C. Geraldo
//! 3-5391
//! Enron Corp.
//! ```
//! (../shared/corpora/enron/maildir/buy-r/discussion_threads/5.). Those lines
//! are not sentences of the message; they are set aside, never classified.
//! Greetings and sign-offs themselves ("Thanks,", "Hi John,") stay sentences
//! and are classified `greeting` so the audit counts them as not audited.

use amem_records::Span;
use amem_text::sentence::lines_of;
use amem_text::stopwords::WordList;

/// The longest signature block we set aside (lines). A longer tail is more
/// likely content (a list of names, a table) than a signature.
const MAX_SIGNATURE_LINES: usize = 7;

/// Sign-off phrases a line may consist of (lower case, without punctuation).
static SIGN_OFFS: WordList = WordList::new(amem_text::claim_words::SIGN_OFFS);

/// True when the line is a sign-off, optionally followed by a short name:
/// "Thanks,", "Regards", "Thanks, John", "Thanks.".
pub(crate) fn is_sign_off_line(line: &str) -> bool {
    let t = line.trim().trim_end_matches(['.', ',', '!', '-', ' ']);
    // Every sentence is asked this: an ASCII line longer than the longest
    // sign-off ("thanks in advance", 17 bytes) with no ',' or '-' after
    // which a name could follow is none, without a lower-cased copy.
    if t.len() > 17 && t.is_ascii() && !t.bytes().any(|b| b == b',' || b == b'-') {
        return false;
    }
    let l = t.to_lowercase();
    if SIGN_OFFS.contains(&l.as_str()) {
        return true;
    }
    // "Thanks, John" / "Regards - Rick"
    if let Some((head, tail)) = l.split_once([',', '-']) {
        let tail = tail.trim();
        return SIGN_OFFS.contains(&head.trim()) && !tail.is_empty() && tail.split_whitespace().count() <= 3;
    }
    false
}

/// A line that looks like part of a signature: a name, title, company,
/// phone number, address or e-mail, and no sentence.
pub(crate) fn is_signature_like(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.chars().count() > 60 {
        return false;
    }
    let digits = t.chars().filter(char::is_ascii_digit).count();
    let phone_chars = t.chars().all(|c| c.is_ascii_digit() || " -+().x/ext:".contains(c) || c.is_alphabetic());
    if digits >= 4 && phone_chars && t.split_whitespace().count() <= 5 {
        return true;
    }
    if !t.contains(' ') && (t.contains('@') || t.starts_with("http") || t.starts_with("www.")) {
        return true;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.len() > 7 {
        return false;
    }
    // Title-case: every word starts upper-case, is a digit group, an initial,
    // or one of the small joiners found in titles and company names.
    words.iter().all(|w| {
        let w = w.trim_matches(|c: char| matches!(c, ',' | '.' | '(' | ')' | '"' | '\''));
        w.is_empty()
            || w.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
            || matches!(w, "of" | "and" | "&" | "the" | "for" | "|" | "-" | "/")
    })
}

/// The signature block at the end of `text`, if any: after a `-- ` line,
/// or the lines after a final sign-off line, or a trailing block of
/// name/phone/company lines after a blank line.
pub fn find_signature(text: &str) -> Option<Span> {
    let lines = lines_of(text);
    // "-- " (RFC 3676 signature delimiter) or a bare "--".
    if let Some(l) = lines.iter().find(|l| matches!(&text[l.start..l.end], "-- " | "--")) {
        return Some(Span::new(l.start, text.trim_end().len().max(l.end)));
    }
    let non_empty: Vec<Span> = lines.iter().copied().filter(|l| !text[l.start..l.end].trim().is_empty()).collect();
    if non_empty.len() < 2 {
        return None;
    }
    // Walk back over signature-like lines.
    let mut k = non_empty.len();
    while k > 0 && non_empty.len() - k < MAX_SIGNATURE_LINES {
        let line = &text[non_empty[k - 1].start..non_empty[k - 1].end];
        if is_sign_off_line(line) || !is_signature_like(line) {
            break;
        }
        k -= 1;
    }
    if k == non_empty.len() || k == 0 {
        return None;
    }
    let block_start = non_empty[k].start;
    let end = non_empty[non_empty.len() - 1].end;
    let before = &text[non_empty[k - 1].start..non_empty[k - 1].end];
    // The line before the block is a sign-off ("Thanks,") or ends with one
    // ("... 4:00 p.m.  Thanks."), or a blank line separates the block from
    // the text and the block is at least two lines (a lone capitalised line
    // after a paragraph may be a heading or a one-line reply).
    let last_word_sign_off = before.rsplit(['.', '!', ' ']).find(|w| !w.is_empty()).is_some_and(is_sign_off_line);
    let blank_between = text[non_empty[k - 1].end..block_start].matches('\n').count() >= 2;
    if is_sign_off_line(before) || last_word_sign_off || (blank_between && non_empty.len() - k >= 2) {
        return Some(Span::new(block_start, end));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(t: &str) -> Option<&str> {
        find_signature(t).map(|s| &t[s.start..s.end])
    }

    #[test]
    fn enron_signature_after_thanks() {
        let t = "The meeting moved to Wednesday.  Thanks.\n\nEmy C. Geraldo\n3-5391\nEnron Corp.";
        assert_eq!(sig(t), Some("Emy C. Geraldo\n3-5391\nEnron Corp."));
    }

    #[test]
    fn name_after_sign_off() {
        assert_eq!(sig("I sent the file.\nThanks,\nRick"), Some("Rick"));
        assert_eq!(sig("I sent the file.\n\nRegards,\nJohn Smith\nVP Trading\n713-853-1234"), Some("John Smith\nVP Trading\n713-853-1234"));
    }

    #[test]
    fn delimiter() {
        assert_eq!(sig("Body here.\n-- \nJohn\nwww.example.org"), Some("-- \nJohn\nwww.example.org"));
    }

    #[test]
    fn content_is_never_a_signature() {
        assert_eq!(sig("The price rose 5% today.\nWe will buy more."), None);
        assert_eq!(sig("Hi,\nthe deal is done"), None);
        assert_eq!(sig("Sales Report\nThe price rose 5% today."), None);
    }

    #[test]
    fn sign_off_lines() {
        assert!(is_sign_off_line("Thanks,"));
        assert!(is_sign_off_line("Best regards"));
        assert!(is_sign_off_line("Thanks, John"));
        assert!(!is_sign_off_line("Thanks for the numbers, they look right"));
    }

    /// The sign-off test as first written (no length shortcut).
    fn sign_off_reference(line: &str) -> bool {
        let l = line.trim().trim_end_matches(['.', ',', '!', '-', ' ']).to_lowercase();
        if SIGN_OFFS.contains(&l.as_str()) {
            return true;
        }
        if let Some((head, tail)) = l.split_once([',', '-']) {
            let tail = tail.trim();
            return SIGN_OFFS.contains(&head.trim()) && !tail.is_empty() && tail.split_whitespace().count() <= 3;
        }
        false
    }

    #[test]
    fn sign_off_shortcut_agrees() {
        for t in [
            "Thanks in advance",
            "Thanks in advance!!!",
            "THANKS IN ADVANCE.",
            "thanks in advance for the numbers",
            "Sincerely yours",
            "Regards - Rick Buy",
            "Best regards,      John Smith",
            "Kind regards from all of us here",
            "TAKE CARE",
            "Thanks,",
            "",
        ] {
            assert_eq!(is_sign_off_line(t), sign_off_reference(t), "{t:?}");
        }
    }
}
