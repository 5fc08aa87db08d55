//! Numbers with their anchors: value (scale applied), unit or currency, and
//! whether the number is a year or a day of a date (those are temporal
//! cues, not quantities).

use crate::lexicon::Lexicon;

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

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

/// Is `w` a month name or abbreviation (trailing period allowed)? "May",
/// "March" and "Mar" count only capitalised: lower-case they are the modal
/// and the verb ("IL-6 may play a role" has no date in it).
pub fn is_month(w: &str) -> bool {
    let w = w.strip_suffix('.').unwrap_or(w);
    if !(3..=9).contains(&w.len()) {
        return false;
    }
    if ["may", "march", "mar"].iter().any(|m| m.eq_ignore_ascii_case(w)) {
        return w.starts_with(|c: char| c.is_ascii_uppercase());
    }
    MONTHS.iter().any(|m| m.eq_ignore_ascii_case(w))
}

fn currency_sign(c: char) -> Option<&'static str> {
    match c {
        '$' => Some("USD"),
        '€' => Some("EUR"),
        '£' => Some("GBP"),
        '¥' => Some("JPY"),
        _ => None,
    }
}

/// The word (letters only) starting at byte `i`, as written, and its end.
fn word_at(text: &str, i: usize) -> Option<(&str, usize)> {
    let rest = &text[i..];
    let len: usize = rest.chars().take_while(|c| c.is_alphabetic()).map(char::len_utf8).sum();
    if len == 0 { None } else { Some((&rest[..len], i + len)) }
}

/// Look a word up in a map keyed by lower-case forms, without allocating
/// for the usual short ASCII word.
fn lookup<'m, V>(map: &'m std::collections::HashMap<String, V>, w: &str) -> Option<&'m V> {
    // the longest unit or scale form is "percentage points" (17 bytes)
    if w.len() > 20 {
        return None;
    }
    let mut buf = [0u8; 32];
    if w.is_ascii() && w.len() <= buf.len() {
        let b = &mut buf[..w.len()];
        b.copy_from_slice(w.as_bytes());
        b.make_ascii_lowercase();
        std::str::from_utf8(b).ok().and_then(|k| map.get(k))
    } else {
        map.get(&w.to_lowercase())
    }
}

fn skip_spaces(text: &str, i: usize) -> usize {
    i + text[i..].chars().take_while(|c| *c == ' ' || *c == '\t').map(char::len_utf8).sum::<usize>()
}

/// The previous word before byte `i` (letters and periods), as written.
fn prev_word(text: &str, i: usize) -> Option<&str> {
    let before = text[..i].trim_end_matches([' ', '\t']);
    let len: usize = before.chars().rev().take_while(|c| c.is_alphabetic() || *c == '.').map(char::len_utf8).sum();
    if len == 0 { None } else { Some(&before[before.len() - len..]) }
}

/// All numbers in `text`, left to right.
pub fn scan_numbers(lex: &Lexicon, text: &str) -> Vec<Number> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.' && i > 1 && b[i - 2].is_ascii_digit()))
        {
            i += 1;
            continue;
        }
        // digits with thousands separators and one decimal point
        let num_start = i;
        let mut j = i;
        let mut seen_dot = false;
        let mut has_sep = false;
        while j < b.len() {
            let c = b[j];
            if c.is_ascii_digit() {
                j += 1;
            } else if c == b',' && j + 3 < b.len() + 1 && b[j + 1..].iter().take(3).all(u8::is_ascii_digit) && b.len() >= j + 4 {
                has_sep = true;
                j += 1;
            } else if c == b'.' && !seen_dot && j + 1 < b.len() && b[j + 1].is_ascii_digit() {
                seen_dot = true;
                j += 1;
            } else {
                break;
            }
        }
        let digits: String = text[num_start..j].chars().filter(|c| *c != ',').collect();
        let Ok(mut value) = digits.parse::<f64>() else {
            i = j.max(i + 1);
            continue;
        };
        let mut start = num_start;
        let mut unit: Option<String> = None;
        let mut unit_text: Option<String> = None;
        // currency sign before ("$1.2", "US$ 5" is read as "$ 5")
        if let Some(c) = text[..num_start].trim_end_matches(' ').chars().next_back()
            && let Some(cur) = currency_sign(c)
        {
            unit = Some(cur.to_string());
            unit_text = Some(c.to_string());
            start = text[..num_start].trim_end_matches(' ').len() - c.len_utf8();
        }
        let mut end = j;
        // percent sign
        if b.get(end) == Some(&b'%') {
            unit = Some("PERCENT".into());
            unit_text = Some("%".into());
            end += 1;
        } else {
            // scale word, glued ("5k", "1.2M") or spaced ("1.2 million")
            let k = if b.get(end).is_some_and(u8::is_ascii_alphabetic) { end } else { skip_spaces(text, end) };
            // a bare "m"/"b" spaced away from the number is too ambiguous
            // ("5 m" may be metres); only glued.
            if let Some((w, wend)) = word_at(text, k)
                && let Some(m) = lookup(&lex.scales, w)
                && (w.len() > 1 || k == end)
            {
                value *= m;
                end = wend;
            }
            // unit word (one or two words: "percentage points", "per cent")
            let k = if b.get(end).is_some_and(u8::is_ascii_alphabetic) { end } else { skip_spaces(text, end) };
            if let Some((w1, e1)) = word_at(text, k) {
                let k2 = skip_spaces(text, e1);
                // two-word units ("percentage points") joined by one space
                let two = word_at(text, k2).filter(|_| k2 == e1 + 1).map(|(_, e2)| (&text[k..e2], e2));
                if let Some((w, e)) = two.filter(|(w, _)| lookup(&lex.units, w).is_some()) {
                    unit = lookup(&lex.units, w).cloned();
                    unit_text = Some(text[k..e].to_string());
                    end = e;
                } else if let Some(u) = lookup(&lex.units, w1)
                    && unit.is_none()
                {
                    unit = Some(u.clone());
                    unit_text = Some(text[k..e1].to_string());
                    end = e1;
                }
            }
        }
        let plain_int = !seen_dot && !has_sep && unit.is_none();
        let year = plain_int && j - num_start == 4 && (1900.0..=2099.0).contains(&value);
        // a day of the month sits next to a month name ("August 3", "3 May")
        let day = plain_int
            && (1.0..=31.0).contains(&value)
            && (prev_word(text, start).is_some_and(is_month) || word_at(text, skip_spaces(text, j)).is_some_and(|(w, _)| is_month(w)));
        // ISO dates and numeric dates: 2026-08-03, 3/8/2026
        let dated = matches!(b.get(j), Some(b'-' | b'/')) && b.get(j + 1).is_some_and(u8::is_ascii_digit)
            || (num_start > 0 && matches!(b[num_start - 1], b'-' | b'/') && num_start > 1 && b[num_start - 2].is_ascii_digit());
        out.push(Number { start, end, value, unit, unit_text, is_date: year || day || dated });
        i = end.max(j);
    }
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
        assert!(!nums("IL-6 may play a role")[0].is_date);
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
