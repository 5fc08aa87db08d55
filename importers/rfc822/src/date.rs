//! The `Date:` header to a UTC instant.
//!
//! RFC 5322 through jiff's RFC 2822 parser first (it knows the obsolete zone
//! names `EST`, `PDT`, `GMT`... and two-digit years), after dropping the
//! trailing zone comment Enron mail carries (`-0800 (PST)`); then mailparse's
//! lenient `dateparse` for the forms real mail also has (missing weekday
//! comma, extra words, numeric zones without sign...).

use jiff::Timestamp;

/// Parse a Date header value. `None` when neither parser reads it.
pub fn parse_date(value: &str) -> Option<Timestamp> {
    let v = value.trim();
    if v.is_empty() {
        return None;
    }
    let cleaned = strip_comments(v);
    if let Ok(z) = jiff::fmt::rfc2822::parse(cleaned.trim()) {
        return Some(z.timestamp());
    }
    // mailparse skips tokens it does not know and returns the epoch for
    // text with no date in it at all ("soon"): require a month name and a
    // digit before trusting it.
    let lower = cleaned.to_ascii_lowercase();
    let has_month = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].iter().any(|m| lower.contains(m));
    if !has_month || !lower.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs = mailparse::dateparse(&cleaned).ok()?;
    Timestamp::from_second(secs).ok()
}

/// Remove `(...)` comments (not nested deeper than the input has).
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> String {
        parse_date(s).map(|t| t.to_string()).unwrap_or_default()
    }

    #[test]
    fn forms() {
        assert_eq!(p("Wed, 2 Jan 2002 10:13:00 -0800 (PST)"), "2002-01-02T18:13:00Z");
        assert_eq!(p("Mon, 2 Feb 2026 21:24:14 -0600"), "2026-02-03T03:24:14Z");
        assert_eq!(p("Wed, 9 Feb 2000 15:44:05 -0500"), "2000-02-09T20:44:05Z");
        assert_eq!(p("9 Feb 2000 15:44:05 EST"), "2000-02-09T20:44:05Z");
        assert_eq!(p("Fri, 26 Oct 2001 12:19:39 -0700 (PDT)"), "2001-10-26T19:19:39Z");
        assert_eq!(p(""), "");
        assert_eq!(p("tomorrow-ish"), "");
        assert_eq!(p("((("), "");
    }
}
