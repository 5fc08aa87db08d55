//! The gate's view of the one number reader ([`crate::quantity::read_numbers`]):
//! byte span, value (scale applied), canonical unit or currency, and whether
//! the number is a year or a day of a date (those are temporal cues, not
//! quantities).

use crate::lexicon::Lexicon;
use crate::quantity::each_number;

/// A number found in a text.
#[derive(Clone, Debug, PartialEq)]
pub struct Number {
    /// Byte range of the whole expression (currency sign to unit word).
    pub start: usize,
    /// End of that range (exclusive).
    pub end: usize,
    /// Value with any scale word applied ("1.2 million" = 1200000).
    pub value: f64,
    /// Canonical unit or currency (`USD`, `EUR`, `PERCENT`, ...), if stated.
    pub unit: Option<String>,
    /// The unit text as written.
    pub unit_text: Option<String>,
    /// A year (1900-2099, no unit, no separators) or a date part.
    pub is_date: bool,
}

/// Is `w` a month name or abbreviation (trailing period allowed)? "May",
/// "March" and "Mar" count only capitalised: lower-case they are the modal
/// and the verb ("IL-6 may play a role" has no date in it). The month names
/// are the date reader's ([`crate::dates`]).
pub fn is_month(w: &str) -> bool {
    crate::dates::is_month_word(w)
}

/// The previous word before byte `i` (letters and periods), as written, on its line.
fn prev_word(text: &str, i: usize) -> Option<&str> {
    Some(crate::words::word_before(text, i, |c| c.is_alphabetic() || c == '.', crate::words::Gap::Blanks)).filter(|w| !w.is_empty())
}

/// The next word after byte `i` (letters only), as written, on its line.
fn next_word(text: &str, i: usize) -> Option<&str> {
    Some(crate::words::word_after(text, i, char::is_alphabetic, crate::words::Gap::Blanks)).filter(|w| !w.is_empty())
}

/// All numbers in `text`, left to right: the gate's view of [`crate::quantity::read_numbers`] (every number
/// that states a value, with its byte span, canonical unit and whether it is part of a date).
/// `_lex` is the lexicon the reader uses (kept so the gate passes the one it scans with).
pub fn scan_numbers(_lex: &Lexicon, text: &str) -> Vec<Number> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    each_number(text, |r| {
        if r.in_name || r.name_suffix {
            return;
        }
        let (num_start, j) = (r.digits.start, r.digits.end);
        let plain_int = r.decimals == 0 && !r.grouped && r.unit.is_none();
        let year = r.year_form() && (1900.0..=2099.0).contains(&r.unsigned);
        // a day of the month sits next to a month name ("August 3", "3 May")
        let day = plain_int
            && (1.0..=31.0).contains(&r.unsigned)
            && (prev_word(text, r.range.start).is_some_and(is_month) || next_word(text, r.range.end).is_some_and(is_month));
        // ISO dates and numeric dates: 2026-08-03, 3/8/2026
        let dated = matches!(b.get(j), Some(b'-' | b'/')) && b.get(j + 1).is_some_and(u8::is_ascii_digit)
            || (num_start > 1 && matches!(b[num_start - 1], b'-' | b'/') && b[num_start - 2].is_ascii_digit());
        // The span ends at the digits unless a scale or unit follows: "22nd" is cited as "22".
        let worded = r.scale != 1.0 || r.unit_text.as_ref().is_some_and(|u| u.start >= j);
        out.push(Number {
            start: r.range.start,
            end: if worded { r.range.end } else { j },
            value: r.value(),
            unit: r.unit.map(str::to_string),
            unit_text: r.unit_text.as_ref().map(|u| text[u.clone()].to_string()),
            is_date: year || day || dated,
        });
    });
    out
}

/// Two values equal at the precision they were written with (relative 1e-9).
pub fn same_value(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(t: &str) -> Vec<Number> {
        scan_numbers(Lexicon::get(), t)
    }

    #[test]
    fn money_with_scale_and_unit() {
        let n = nums("It cost 1.2 million dollars.");
        assert_eq!(n.len(), 1);
        assert!(same_value(n[0].value, 1_200_000.0));
        assert_eq!(n[0].unit.as_deref(), Some("USD"));
        let n = nums("It cost $1.2M, or €3k.");
        assert_eq!(n[0].unit.as_deref(), Some("USD"));
        assert!(same_value(n[0].value, 1_200_000.0));
        assert_eq!(n[1].unit.as_deref(), Some("EUR"));
        assert!(same_value(n[1].value, 3000.0));
    }

    #[test]
    fn percent_and_points_differ() {
        assert_eq!(nums("up 5%")[0].unit.as_deref(), Some("PERCENT"));
        assert_eq!(nums("up 5 percentage points")[0].unit.as_deref(), Some("PP"));
    }

    #[test]
    fn years_and_days_are_dates() {
        let n = nums("On August 3, 2026 we paid 40 dollars.");
        assert!(n[0].is_date && n[1].is_date);
        assert!(!n[2].is_date);
    }

    #[test]
    fn lower_case_may_is_not_a_month() {
        // "IL-6" is a name, not a number; lower-case "may" after a number is the modal
        assert!(nums("IL-6 may play a role").is_empty());
        assert!(!nums("the 6 may play a role")[0].is_date);
        assert!(nums("on 6 May we left")[0].is_date);
        assert!(nums("on May 6 we left")[0].is_date);
    }

    #[test]
    fn separators() {
        let n = nums("2,304,580 people");
        assert!(same_value(n[0].value, 2_304_580.0));
    }

    #[test]
    fn eighty_six_is_not_inside_1986() {
        let n = nums("in 1986");
        assert_eq!(n.len(), 1);
        assert!(!same_value(n[0].value, 86.0));
    }
}
