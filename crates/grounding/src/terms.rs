//! The search key of a claim: its content words, numbers and names, without
//! URLs (a URL inside a claim is never fetched, and never sent as a term).

use amem_text::stopwords::FUNCTION_WORDS;
use amem_text::tokens::{WordRule, word_spans};
use regex::Regex;
use std::sync::OnceLock;

/// Most terms sent to a source: search APIs AND their terms, so a long list
/// finds nothing.
pub const MAX_TERMS: usize = 6;

fn url_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?i)\b(?:[a-z][a-z0-9+.-]*://|www\.)\S+").expect("invariant: literal regex"))
}

/// E-mail addresses (with `mailto:` or not) and bare host names
/// (`enron.com`, `mail.example.org`): who wrote to whom and where they work
/// stay on this machine; a trust-list host is sent the claim's words only.
/// A host name's last label is lowercase letters, so "done.Then" with a
/// missing space is left alone.
fn address_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i:mailto:)?[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*|\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.[a-z]{2,24}\b",
        )
        .expect("invariant: literal regex")
    })
}

/// The claim with every URL, e-mail address and host name removed.
pub fn strip_urls(claim: &str) -> String {
    let text = url_re().replace_all(claim, " ");
    address_re().replace_all(&text, " ").into_owned()
}

/// Up to [`MAX_TERMS`] search terms, most telling first: names
/// (capitalised words not at a sentence start), numbers, then longer words.
/// Lowercased except names; deduplicated; deterministic.
pub fn key_terms(claim: &str) -> Vec<String> {
    let text = strip_urls(claim);
    let mut scored: Vec<(u32, usize, String)> = Vec::new();
    let mut sentence_start = true;
    for (i, m) in word_spans(&text, WordRule::SearchTerms).enumerate() {
        let tok = text[m.clone()].trim_end_matches(['\'', '’']);
        let before = &text[..m.start];
        let starts = sentence_start || before.trim_end().ends_with(['.', '!', '?', ':']);
        sentence_start = false;
        let lower = tok.to_lowercase();
        if FUNCTION_WORDS.contains(&lower.as_str())
            || amem_text::stopwords::SEARCH_STOPWORDS.contains(&lower.as_str())
            || tok.chars().count() < 2 && !tok.chars().all(|c| c.is_ascii_digit())
        {
            continue;
        }
        let is_number = tok.chars().next().is_some_and(|c| c.is_numeric());
        let is_name = !starts && tok.chars().next().is_some_and(char::is_uppercase);
        let score = if is_name {
            300
        } else if is_number {
            250
        } else {
            100 + u32::try_from(tok.chars().count()).unwrap_or(50).min(50)
        };
        let term = if is_name || is_number { tok.to_string() } else { lower };
        if scored.iter().any(|(_, _, t)| t.to_lowercase() == term.to_lowercase()) {
            continue;
        }
        scored.push((score, i, term));
    }
    // Keep the best terms, then restore their order in the claim so phrase
    // fragments stay readable to the search engine.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(MAX_TERMS);
    scored.sort_by_key(|s| s.1);
    scored.into_iter().map(|s| s.2).collect()
}

/// The cache key of a claim at a source: SHA-256 over the adapter, the
/// source name and the key terms, so two phrasings with the same terms share
/// a cache entry and no claim text is stored.
pub fn cache_key(source: &str, terms: &[String]) -> String {
    let mut fields: Vec<&[u8]> = vec![source.as_bytes()];
    fields.extend(terms.iter().map(|t| t.as_bytes()));
    amem_records::Digest::of_fields(fields).to_hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_host_names_are_never_search_terms() {
        let terms =
            key_terms("Write to ann.smith@enron.com or MAILTO:bob@mail.example.org: Dynegy's 1.5 billion offer for enron.com stands.");
        for leaked in ["ann", "smith", "enron", "com", "bob", "mail", "example", "org", "mailto"] {
            assert!(!terms.iter().any(|t| t.eq_ignore_ascii_case(leaked)), "{leaked} in {terms:?}");
        }
        assert!(terms.iter().any(|t| t.eq_ignore_ascii_case("dynegy's")), "{terms:?}");
        assert!(terms.iter().any(|t| t == "1.5"), "{terms:?}");
        // A missing space after a full stop is not a host name; numbers with points are numbers.
        assert!(key_terms("The plant was done.Then it ran at 3.5 MW").iter().any(|t| t == "3.5"));
        assert!(key_terms("The plant was done.Then it ran").iter().any(|t| t.eq_ignore_ascii_case("then") || t == "plant"));
    }

    #[test]
    fn urls_never_become_terms() {
        let t = key_terms("See http://127.0.0.3:9999/secret?x=1 and www.evil.test/page: Python was created by Guido van Rossum");
        assert!(t.iter().all(|w| !w.contains("127") && !w.contains("evil") && !w.contains("secret")), "{t:?}");
        assert!(t.contains(&"Guido".to_string()), "{t:?}");
    }

    #[test]
    fn names_and_numbers_first() {
        let t = key_terms("The population of the city of Lyon was about 522,250 in 2020 according to the census.");
        assert!(t.contains(&"Lyon".to_string()) && t.contains(&"522,250".to_string()) && t.contains(&"2020".to_string()), "{t:?}");
        assert!(t.len() <= MAX_TERMS);
        assert!(!t.contains(&"the".to_string()));
    }

    #[test]
    fn deterministic_and_keyed() {
        let a = key_terms("Fermat's Last Theorem was proved by Andrew Wiles in 1994");
        assert_eq!(a, key_terms("Fermat's Last Theorem was proved by Andrew Wiles in 1994"));
        assert_eq!(cache_key("s", &a), cache_key("s", &a));
        assert_ne!(cache_key("s", &a), cache_key("t", &a));
        assert!(key_terms("").is_empty());
        assert!(key_terms("the of and").is_empty());
    }
}
