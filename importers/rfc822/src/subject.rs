//! Subject normalisation for threading mail that has no References.

/// Reply/forward prefixes, lowercase, without the colon. "RE:" and "FW:" are
/// what Outlook and Lotus Notes wrote in the Enron mail; "Fwd:" is Gmail and
/// Apple Mail; AW/WG (German), SV/VS (Nordic), TR (French), RIF (Italian),
/// ANTW (Dutch) are Outlook's localised forms. One-letter forms (Italian `I:`)
/// are left alone: they collide with ordinary subjects.
static PREFIXES: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::mail_words::PREFIXES);

/// The subject with leading reply/forward prefixes (`RE:`, `Fw:`, `Re[2]:`,
/// `RE: FW: `...) removed and whitespace collapsed; case kept.
pub fn strip_subject_prefixes(subject: &str) -> String {
    let mut s = subject.trim();
    loop {
        let before = s;
        if let Some((head, rest)) = s.split_once(':') {
            let mut h = head.trim().to_ascii_lowercase();
            // `Re[2]`, `Re(2)`: a counter some clients add.
            if let Some(i) = h.find(['[', '(']) {
                let tail = &h[i + 1..];
                if tail.ends_with([']', ')']) && tail[..tail.len() - 1].bytes().all(|b| b.is_ascii_digit()) {
                    h.truncate(i);
                }
            }
            if PREFIXES.contains(&h.as_str()) {
                s = rest.trim_start();
            }
        }
        if s == before {
            break;
        }
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The conversation key of a subject: prefixes stripped, whitespace
/// collapsed, lowercased. `"RE: FW:  Western  Frontier"` and
/// `"Western Frontier"` give the same key.
pub fn normalize_subject(subject: &str) -> String {
    strip_subject_prefixes(subject).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        assert_eq!(normalize_subject("RE: FW:  Western  Frontier"), "western frontier");
        assert_eq!(normalize_subject("Re[2]: Fwd: plan"), "plan");
        assert_eq!(normalize_subject("Re: Re: re:x"), "x");
        assert_eq!(strip_subject_prefixes("Agenda: Monday"), "Agenda: Monday");
        assert_eq!(normalize_subject("Fw:"), "");
        assert_eq!(normalize_subject(""), "");
        assert_eq!(normalize_subject("Re(x): y"), "re(x): y");
    }
}
