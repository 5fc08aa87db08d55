//! Dates under every written form, read to the precision the writer gave:
//! `2024-05-01`, `May 1, 2024`, `1 May 2024`, `May 1st , 2024` (FEVER
//! tokenisation), `05/01/2024` and `13/05/2024` when only one reading is a
//! valid date, `May 2024`, and a bare year ("in 1986").
//!
//! A slash date whose day and month can be swapped (05/01/2024) is kept as
//! *ambiguous*: it matches either reading and never contradicts.

use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// A calendar date at the precision it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Date {
    /// Byte range in the text.
    pub range: Range<usize>,
    /// Year, when written.
    pub year: Option<i16>,
    /// Month 1–12, when written.
    pub month: Option<i8>,
    /// Day of month, when written.
    pub day: Option<i8>,
    /// For an ambiguous slash date, the other reading (month, day swapped).
    pub swapped: Option<(i8, i8)>,
}

/// How a claim date relates to an evidence date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateRelation {
    /// Every component the claim states matches.
    Agrees,
    /// The evidence states the same components less precisely and they agree
    /// ("May 2024" for a claim of "May 1, 2024"): the claim is narrower than its evidence.
    Coarser,
    /// A component both state differs.
    Conflicts,
}

const MONTHS: &[(&str, i8)] = &[
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("sept", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];

fn month_number(s: &str) -> Option<i8> {
    let l = s.trim_end_matches('.').to_lowercase();
    MONTHS.iter().find(|(n, _)| *n == l).map(|(_, m)| *m)
}

struct Patterns {
    iso: Regex,
    month_day_year: Regex,
    day_month_year: Regex,
    month_year: Regex,
    month_day: Regex,
    slash: Regex,
    ymd_slash: Regex,
    year: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        const M: &str = r"(?i:(January|February|March|April|May|June|July|August|September|October|November|December|Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept?\.?|Oct\.?|Nov\.?|Dec\.?))";
        let re = |s: &str| Regex::new(s).expect("invariant: the date patterns are valid");
        Patterns {
            iso: re(r"(?-u:\b)(\d{4})-(\d{2})-(\d{2})(?-u:\b)"),
            month_day_year: re(&format!(r"(?-u:\b){M}\s+(\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*(\d{{4}})(?-u:\b)")),
            day_month_year: re(&format!(r"(?-u:\b)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{M}\s*,?\s*(\d{{4}})(?-u:\b)")),
            month_year: re(&format!(r"(?-u:\b){M}\s*,?\s*(?:of\s+)?(\d{{4}})(?-u:\b)")),
            month_day: re(&format!(r"(?-u:\b){M}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?-u:\b)|(?-u:\b)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{M}(?-u:\b)")),
            // 05/01/2024 and the dotted European 01.05.2024: read by the same ambiguity rule
            slash: re(r"(?-u:\b)(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?-u:\b)"),
            ymd_slash: re(r"(?-u:\b)(\d{4})/(\d{1,2})/(\d{1,2})(?-u:\b)"),
            year: re(r"(?-u:\b)(1[0-9]{3}|20[0-9]{2})(?-u:\b)"),
        }
    })
}

fn valid(y: i16, m: i8, d: i8) -> bool {
    jiff::civil::Date::new(y, m, d).is_ok()
}

/// The dates written in `text`, left to right, none overlapping (the most precise form wins).
pub fn dates(text: &str) -> Vec<Date> {
    // Every written form has a digit; most sentences have none, and skipping them keeps long pages cheap.
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let p = patterns();
    let mut found: Vec<Date> = Vec::new();
    let free = |found: &Vec<Date>, r: &Range<usize>| found.iter().all(|d| d.range.end <= r.start || r.end <= d.range.start);
    let num = |s: &str| s.parse::<i32>().ok();
    for c in p.iso.captures_iter(text) {
        let (Some(y), Some(m), Some(d)) = (num(&c[1]), num(&c[2]), num(&c[3])) else { continue };
        let (y, m, d) = (y as i16, m as i8, d as i8);
        if valid(y, m, d) {
            let r = c.get(0).map(|m| m.range()).unwrap_or_default();
            found.push(Date { range: r, year: Some(y), month: Some(m), day: Some(d), swapped: None });
        }
    }
    for c in p.month_day_year.captures_iter(text) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (Some(m), Some(d), Some(y)) = (month_number(&c[1]), num(&c[2]), num(&c[3])) else { continue };
        if free(&found, &r) && valid(y as i16, m, d as i8) {
            found.push(Date { range: r, year: Some(y as i16), month: Some(m), day: Some(d as i8), swapped: None });
        }
    }
    for c in p.day_month_year.captures_iter(text) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (Some(d), Some(m), Some(y)) = (num(&c[1]), month_number(&c[2]), num(&c[3])) else { continue };
        if free(&found, &r) && valid(y as i16, m, d as i8) {
            found.push(Date { range: r, year: Some(y as i16), month: Some(m), day: Some(d as i8), swapped: None });
        }
    }
    for c in p.ymd_slash.captures_iter(text) {
        let (Some(y), Some(m), Some(d)) = (num(&c[1]), num(&c[2]), num(&c[3])) else { continue };
        let (y, m, d) = (y as i16, m as i8, d as i8);
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        if valid(y, m, d) && free(&found, &r) {
            found.push(Date { range: r, year: Some(y), month: Some(m), day: Some(d), swapped: None });
        }
    }
    for c in p.slash.captures_iter(text) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (Some(a), Some(b), Some(y)) = (num(&c[1]), num(&c[2]), num(&c[3])) else { continue };
        let (a, b, y) = (a as i8, b as i8, y as i16);
        if !free(&found, &r) {
            continue;
        }
        let us = valid(y, a, b); // month/day
        let eu = valid(y, b, a); // day/month
        let date = match (us, eu) {
            (true, true) if a == b => Date { range: r, year: Some(y), month: Some(a), day: Some(b), swapped: None },
            (true, true) => Date { range: r, year: Some(y), month: Some(a), day: Some(b), swapped: Some((b, a)) },
            (true, false) => Date { range: r, year: Some(y), month: Some(a), day: Some(b), swapped: None },
            (false, true) => Date { range: r, year: Some(y), month: Some(b), day: Some(a), swapped: None },
            (false, false) => continue,
        };
        found.push(date);
    }
    for c in p.month_year.captures_iter(text) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (Some(m), Some(y)) = (month_number(&c[1]), num(&c[2])) else { continue };
        // "may 2020" is only a date when written "May"; the modal verb is lower-case.
        if &c[1] == "may" || !free(&found, &r) {
            continue;
        }
        found.push(Date { range: r, year: Some(y as i16), month: Some(m), day: None, swapped: None });
    }
    for c in p.month_day.captures_iter(text) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (m, d) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
            (Some(m), Some(d), _, _) => (m.as_str(), d.as_str()),
            (_, _, Some(d), Some(m)) => (m.as_str(), d.as_str()),
            _ => continue,
        };
        let (Some(m), Some(d)) = (month_number(m), num(d)) else { continue };
        // No year: valid in a leap year (2000) is the test, so "Feb 29" passes and "Feb 30" does not.
        if m == 5 && text[r.clone()].contains("may") || !free(&found, &r) || !valid(2000, m, d as i8) {
            continue;
        }
        found.push(Date { range: r, year: None, month: Some(m), day: Some(d as i8), swapped: None });
    }
    for c in p.year.captures_iter(text) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        // A year stands alone: not part of a number ("1,986"), a decimal, a range of digits or a name ("COVID-2019").
        let before = text[..r.start].chars().next_back();
        let after = text[r.end..].chars().next();
        if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, ',' | '.' | '$' | '-'))
            || after.is_some_and(|c| c.is_alphanumeric() || c == '%')
            || text[r.end..].starts_with(",0")
            || text[r.end..].starts_with(".") && text[r.end + 1..].chars().next().is_some_and(|c| c.is_ascii_digit())
            || !free(&found, &r)
            || inside_name(text, &r)
        {
            continue;
        }
        let Some(y) = num(&c[1]) else { continue };
        found.push(Date { range: r, year: Some(y as i16), month: None, day: None, swapped: None });
    }
    found.sort_by_key(|d| d.range.start);
    found
}

/// "Fox 2000 Pictures", "Windows 2000 Server": a four-digit number between two
/// capitalised content words is part of a name, not a year.
fn inside_name(text: &str, r: &Range<usize>) -> bool {
    let before = text[..r.start].strip_suffix(' ').unwrap_or("");
    let after = text[r.end..].strip_prefix(' ').unwrap_or("");
    let prev: String = before.chars().rev().take_while(|c| c.is_alphabetic()).collect::<Vec<_>>().into_iter().rev().collect();
    let next: String = after.chars().take_while(|c| c.is_alphabetic()).collect();
    let is_name = |w: &str| {
        w.chars().next().is_some_and(char::is_uppercase) && !crate::words::is_stopword(&w.to_lowercase()) && month_number(w).is_none()
    };
    is_name(&prev) && is_name(&next)
}

/// Compare a claim date with an evidence date.
pub fn relate(claim: &Date, ev: &Date) -> DateRelation {
    let readings = |d: &Date| {
        let mut v = vec![(d.month, d.day)];
        if let Some((m, dd)) = d.swapped {
            v.push((Some(m), Some(dd)));
        }
        v
    };
    let ambiguous = claim.swapped.is_some() || ev.swapped.is_some();
    let mut best = DateRelation::Conflicts;
    for (cm, cd) in readings(claim) {
        for (em, ed) in readings(ev) {
            let parts = [
                (claim.year.map(i32::from), ev.year.map(i32::from)),
                (cm.map(i32::from), em.map(i32::from)),
                (cd.map(i32::from), ed.map(i32::from)),
            ];
            let mut conflict = false;
            let mut coarser = false;
            for (c, e) in parts {
                match (c, e) {
                    (Some(c), Some(e)) if c != e => conflict = true,
                    (Some(_), None) => coarser = true,
                    _ => {}
                }
            }
            let rel = if conflict {
                DateRelation::Conflicts
            } else if coarser {
                DateRelation::Coarser
            } else {
                DateRelation::Agrees
            };
            best = match (best, rel) {
                (DateRelation::Agrees, _) | (_, DateRelation::Agrees) => DateRelation::Agrees,
                (DateRelation::Coarser, _) | (_, DateRelation::Coarser) => DateRelation::Coarser,
                _ => DateRelation::Conflicts,
            };
        }
    }
    // An ambiguous slash date never contradicts: we cannot say which reading the writer meant.
    if ambiguous && best == DateRelation::Conflicts && claim.year == ev.year {
        return DateRelation::Coarser;
    }
    best
}

/// True when the two dates share no stated component at all (a year against a month-day).
pub fn comparable(claim: &Date, ev: &Date) -> bool {
    (claim.year.is_some() && ev.year.is_some()) || (claim.month.is_some() && ev.month.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn one(t: &str) -> Date {
        let v = dates(t);
        assert_eq!(v.len(), 1, "{t}: {v:?}");
        v.into_iter().next().expect("one")
    }

    #[test]
    fn every_written_form_is_the_same_day() {
        let forms = [
            "2024-05-01",
            "May 1, 2024",
            "1 May 2024",
            "May 1st , 2024",
            "1st of May, 2024",
            "on May 1 2024",
            "Released 5/1/2024 x",
            "2024/05/01",
            "1.5.2024",
            "Thu, 1 May 2024",
        ];
        let base = one("2024-05-01");
        for f in forms {
            let d = one(f);
            assert_eq!(relate(&base, &d), DateRelation::Agrees, "{f}");
        }
        assert_eq!(one("13/05/2024").month, Some(5));
        assert_eq!(one("05/13/2024").day, Some(13));
    }

    #[test]
    fn ambiguous_slash_never_conflicts() {
        let d = one("05/01/2024");
        assert!(d.swapped.is_some());
        assert_eq!(relate(&one("January 5, 2024"), &d), DateRelation::Agrees);
        assert_eq!(relate(&one("May 1, 2024"), &d), DateRelation::Agrees);
        assert_ne!(relate(&one("March 3, 2024"), &d), DateRelation::Conflicts);
    }

    #[test]
    fn precision() {
        assert_eq!(relate(&one("May 2024"), &one("May 1, 2024")), DateRelation::Agrees);
        assert_eq!(relate(&one("May 1, 2024"), &one("May 2024")), DateRelation::Coarser);
        assert_eq!(relate(&one("September 22nd , 1917"), &one("22 January 1917")), DateRelation::Conflicts);
        assert_eq!(relate(&one("in 1986"), &one("in 1987")), DateRelation::Conflicts);
        assert_eq!(dates("It may 2020 be").len(), 1, "lower-case may is the verb; 2020 is a bare year");
        assert!(dates("1,986 people and 19865 and COVID-2019").is_empty());
        assert!(dates("released by Fox 2000 Pictures").is_empty());
        assert_eq!(dates("In 2000 Fox released it").len(), 1);
        assert!(dates("Feb 30, 2024").iter().all(|d| d.day.is_none()));
    }

    proptest! {
        #[test]
        fn written_forms_round_trip(y in 1000i16..2099, m in 1i8..=12, d in 1i8..=28) {
            const NAMES: [&str; 12] = ["January","February","March","April","May","June","July","August","September","October","November","December"];
            let name = NAMES[(m - 1) as usize];
            let iso = format!("{y:04}-{m:02}-{d:02}");
            for form in [iso.clone(), format!("{name} {d}, {y}"), format!("{d} {name} {y}")] {
                let v = dates(&form);
                prop_assert_eq!(v.len(), 1, "{}", form);
                prop_assert_eq!((v[0].year, v[0].month, v[0].day), (Some(y), Some(m), Some(d)));
            }
        }

        #[test]
        fn never_panics(s in ".{0,80}") {
            let _ = dates(&s);
        }
    }
}
