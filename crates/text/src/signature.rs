//! The one signature detector: where a message's own text ends and its sign-off, name, title,
//! phone and delimiter lines begin.
//!
//! Two readers ask it, at two depths on purpose:
//! - the mail parser (`importers/rfc822`) cuts at import only what is clearly not the author's
//!   assertion: a `-- ` delimiter ([`is_delimiter_line`]), a closing phrase followed by short
//!   lines ([`is_closing_line`]), a mobile footer ([`is_mobile_footer`]). Bare name lines under a
//!   plain sign-off stay in the text: Enron signatures are mostly bare name lines,
//!   indistinguishable from a one-line reply;
//! - the claim extractor sets aside what is left ([`find_signature`]): a name, title, phone and
//!   company block under a sign-off or after a blank line, as in
//!
//! ```text
//! Please be advised that the above referenced meeting has been rescheduled ...  Thanks.
//!
//! Emy C. Geraldo
//! 3-5391
//! Enron Corp.
//! ```
//! (../shared/corpora/enron/maildir/buy-r/discussion_threads/5.). Those lines are not sentences
//! of the message; they are never classified. Greetings and sign-offs themselves ("Thanks,",
//! "Hi John,") stay sentences ([`is_sign_off_line`]) and are classified `greeting`.
//!
//! The closing phrases both read are one list (`lexicons/sign_offs.txt`); the extractor also reads
//! `lexicons/sign_offs_kept_at_import.txt` ("take care", "later": they end wrapped prose too, so
//! the mail parser does not cut at them), and the mail parser also cuts at
//! `lexicons/sign_offs_cut_at_import.txt` ("best wishes", "rgds"). Merging the three changes which
//! lines the extractor sets aside: a new extractor version, left for a change of its own.

use crate::sentence::lines_of;
use crate::stopwords::WordList;
use amem_records::Span;
use regex::Regex;
use std::sync::LazyLock;

/// Phrases that close a message (lower case, without punctuation).
static SIGN_OFFS: WordList = WordList::new(include_str!("../lexicons/sign_offs.txt"));

/// Closing phrases the mail parser cuts a signature at beside [`SIGN_OFFS`].
static SIGN_OFFS_CUT_AT_IMPORT: WordList = WordList::new(include_str!("../lexicons/sign_offs_cut_at_import.txt"));

/// Sign-offs the extractor reads beside [`SIGN_OFFS`] and the mail parser does not cut a signature at.
static SIGN_OFFS_KEPT_AT_IMPORT: WordList = WordList::new(include_str!("../lexicons/sign_offs_kept_at_import.txt"));

/// The longest line a closing phrase stands on (bytes, trimmed): "warmest regards," and a little.
const CLOSING_LINE_BYTES: usize = 24;

/// The longest signature block the extractor sets aside (lines). A longer tail is more likely
/// content (a list of names, a table) than a signature.
const MAX_SIGNATURE_LINES: usize = 7;

/// True when `line` is the RFC 3676 signature delimiter `-- `, or the `--` that trimming
/// editors leave of it.
pub fn is_delimiter_line(line: &str) -> bool {
    matches!(line, "-- " | "--")
}

/// True when `line` is a closing phrase alone ("Thanks,", "Best regards", "Cheers!"), what the
/// mail parser cuts a signature at: the phrase, then at most some of `, . ! -`, in any case,
/// blanks around; no longer than [`CLOSING_LINE_BYTES`] trimmed.
pub fn is_closing_line(line: &str) -> bool {
    let t = line.trim();
    if t.len() > CLOSING_LINE_BYTES {
        return false;
    }
    let phrase = t.trim_end_matches([',', '.', '!', '-']).trim_end();
    if phrase.is_empty() {
        return false;
    }
    // The lists are lower-case ASCII: an ASCII phrase is compared in place, another lower-cased once.
    let lower = (!phrase.is_ascii()).then(|| phrase.to_lowercase());
    SIGN_OFFS
        .iter()
        .chain(SIGN_OFFS_CUT_AT_IMPORT.iter())
        .any(|s| lower.as_deref().map_or_else(|| s.eq_ignore_ascii_case(phrase), |l| l == *s))
}

static MOBILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(sent from my |sent from yahoo|sent from mail for windows|get outlook for |sent via |sent using )")
        .expect("invariant: regex")
});

/// True when `line` is a mobile or client footer ("Sent from my iPhone", "Get Outlook for iOS").
pub fn is_mobile_footer(line: &str) -> bool {
    line.trim_start().starts_with(['s', 'S', 'g', 'G']) && MOBILE.is_match(line)
}

/// True when `phrase` (lower case) is a sign-off the extractor reads.
fn is_sign_off(phrase: &str) -> bool {
    SIGN_OFFS.contains(&phrase) || SIGN_OFFS_KEPT_AT_IMPORT.contains(&phrase)
}

/// True when the line is a sign-off, optionally followed by a short name: "Thanks,",
/// "Regards", "Thanks, John", "Thanks.".
pub fn is_sign_off_line(line: &str) -> bool {
    let t = line.trim().trim_end_matches(['.', ',', '!', '-', ' ']);
    // Every sentence is asked this: an ASCII line longer than the longest
    // sign-off ("thanks in advance", 17 bytes) with no ',' or '-' after
    // which a name could follow is none, without a lower-cased copy.
    if t.len() > 17 && t.is_ascii() && !t.bytes().any(|b| b == b',' || b == b'-') {
        return false;
    }
    is_lower_sign_off_line(&t.to_lowercase())
}

/// [`is_sign_off_line`] on a line already trimmed and lower-cased: a sign-off alone, or one
/// followed by a short name ("thanks, john" / "regards - rick").
fn is_lower_sign_off_line(l: &str) -> bool {
    if is_sign_off(l) {
        return true;
    }
    if let Some((head, tail)) = l.split_once([',', '-']) {
        let tail = tail.trim();
        return is_sign_off(head.trim()) && !tail.is_empty() && tail.split_whitespace().count() <= 3;
    }
    false
}

/// A line that looks like part of a signature: a name, title, company,
/// phone number, address or e-mail, and no sentence.
pub fn is_signature_like(line: &str) -> bool {
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
    if let Some(l) = lines.iter().find(|l| is_delimiter_line(&text[l.start..l.end])) {
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
        assert!(is_delimiter_line("-- ") && is_delimiter_line("--") && !is_delimiter_line("-- x") && !is_delimiter_line("---"));
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
        assert!(is_sign_off_line("Take care"));
        assert!(!is_sign_off_line("Thanks for the numbers, they look right"));
    }

    /// The sign-off test without the length shortcut.
    fn sign_off_reference(line: &str) -> bool {
        is_lower_sign_off_line(&line.trim().trim_end_matches(['.', ',', '!', '-', ' ']).to_lowercase())
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

    /// The closing test as the mail parser first wrote it, one pattern over the phrases.
    fn closing_reference(line: &str) -> bool {
        static CLOSING: LazyLock<Regex> = LazyLock::new(|| {
            let phrases: Vec<String> = SIGN_OFFS.iter().chain(SIGN_OFFS_CUT_AT_IMPORT.iter()).map(|p| regex::escape(p)).collect();
            Regex::new(&format!(r"(?i)^\s*({})\s*[,.!-]*\s*$", phrases.join("|"))).unwrap()
        });
        line.trim().len() <= CLOSING_LINE_BYTES && CLOSING.is_match(line)
    }

    #[test]
    fn closing_lines_are_read_as_the_pattern_read_them() {
        for t in [
            "Thanks,",
            "  Best regards  ",
            "Cheers!",
            "thanks , .",
            "thanks.  ,",
            "thanks  .",
            "THANK YOU!!",
            "thank  you",
            "Regards-",
            "Rgds",
            "Take care",
            "later",
            "Thanks, John",
            "Best regards from the whole team here",
            "",
            "-",
            "Ta.",
            "warmest regards,",
        ] {
            assert_eq!(is_closing_line(t), closing_reference(t), "{t:?}");
        }
        assert!(is_closing_line("Best regards,") && !is_closing_line("Take care") && !is_closing_line("Thanks, John"));
    }

    proptest::proptest! {
        #[test]
        fn closing_lines_agree_with_the_pattern(t in "[ \t]{0,2}(thanks|Thank you|BEST|regards|ta|cheers|x|take care)[ ,.!\\-]{0,4}[a-z]{0,2}[ \t]{0,2}") {
            proptest::prop_assert_eq!(is_closing_line(&t), closing_reference(&t));
        }
    }
}
