//! Dates under every written form, read to the precision the writer gave:
//! `2024-05-01`, `May 1, 2024`, `1 May 2024`, `May 1st , 2024` (FEVER
//! tokenisation), `05/01/2024` and `13/05/2024` when only one reading is a
//! valid date, `May 2024`, and a bare year ("in 1986").
//!
//! A slash date whose day and month can be swapped (05/01/2024) is kept as
//! *ambiguous*: it matches either reading and never contradicts. Day and month
//! written in words cannot be swapped: "6 April" against "April 4" is a
//! conflict.
//!
//! Quarters ("Q3 2024", "3Q24", "the third quarter of 2024") are dates of
//! three months. A weekday written with a date ("Tuesday, 6 April 2024") is
//! part of it. Forms relative to the moment of writing ("today",
//! "yesterday", "this week", "last year", "next month", "on Tuesday", "three
//! days ago") are dates only when that moment is known ([`dates_at`] with an
//! anchor day); without one they are left unread, never compared as if they
//! named a fixed day.

use crate::stopwords::WordList;
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
    /// Quarter 1–4, when written as one ("Q3 2024", "the third quarter of 2024").
    pub quarter: Option<i8>,
    /// The Monday of a week ("this week", "last week", resolved against the writing day).
    pub week: Option<jiff::civil::Date>,
    /// The last year of a decade ("the 1990s" is 1990–1999), whose first year is `year`.
    pub last_year: Option<i16>,
    /// Read from a form relative to the writing day ("yesterday", "last year", "on Tuesday")
    /// and resolved against it.
    pub relative: bool,
}

impl Date {
    /// A date as written: a year, month and day where stated, nothing ambiguous or relative.
    fn written(range: Range<usize>, year: Option<i16>, month: Option<i8>, day: Option<i8>) -> Date {
        Date { range, year, month, day, swapped: None, quarter: None, week: None, last_year: None, relative: false }
    }
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

/// Month names and abbreviations (`lexicons/months.txt`): the twelve names in calendar order,
/// then abbreviations, each the start of its month's name.
pub static MONTH_WORDS: WordList = WordList::new(include_str!("../lexicons/months.txt"));

/// The month (1–12) of a lower-case month name or abbreviation in [`MONTH_WORDS`].
fn month_of(lower: &str) -> Option<i8> {
    if !MONTH_WORDS.contains(&lower) {
        return None;
    }
    MONTH_WORDS.iter().take(12).position(|m| m.starts_with(lower)).and_then(|i| i8::try_from(i + 1).ok())
}

/// The first three letters of each month's name: a text none of which is in needs no month
/// pattern ([`Needs`]).
fn month_prefixes() -> &'static [[u8; 3]] {
    static PREFIXES: OnceLock<Vec<[u8; 3]>> = OnceLock::new();
    PREFIXES.get_or_init(|| MONTH_WORDS.iter().take(12).filter_map(|m| m.as_bytes().first_chunk::<3>().copied()).collect())
}

/// Is `w` a month name or abbreviation (trailing period allowed)? "May",
/// "March" and "Mar" count only capitalised: lower-case they are the modal
/// and the verb ("IL-6 may play a role" has no date in it).
pub fn is_month_word(w: &str) -> bool {
    let w = w.strip_suffix('.').unwrap_or(w);
    if !(3..=9).contains(&w.len()) {
        return false;
    }
    if ["may", "march", "mar"].iter().any(|m| m.eq_ignore_ascii_case(w)) {
        return w.starts_with(|c: char| c.is_ascii_uppercase());
    }
    MONTH_WORDS.iter().any(|m| m.eq_ignore_ascii_case(w))
}

/// The month (1–12) a month name or abbreviation names ("October", "oct.": 10), any case;
/// `None` for any other word. Pair with [`is_month_word`] to keep "may" the modal.
pub fn month_number(s: &str) -> Option<i8> {
    let l = s.trim_end_matches('.').to_lowercase();
    month_of(&l)
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
    quarter: Regex,
    decade: Regex,
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
            year: re(r"(?-u:\b)(1[0-9]{3}|20[0-9]{2}|2100)(?-u:\b)"),
            // "the 1990s", "1950s", "the '90s" is left out; "1970 's" is FEVER's tokenisation
            decade: re(r"(?-u:\b)(1[0-9]{2}0|20[0-9]0)(?:['’]?s| ['’]s)(?-u:\b)"),
            // "Q3 2024", "Q3 of 2024", "Q3'24", "3Q 2024", "3Q24", "the third quarter of 2024", "fourth-quarter 2024"
            quarter: re(concat!(
                r"(?-u:\b)Q([1-4])(?:\s*(?:of\s+)?(\d{4})|\s*['’](\d{2}))?(?-u:\b)",
                r"|(?-u:\b)([1-4])Q(?:\s*(\d{4})|['’]?(\d{2}))?(?-u:\b)",
                r"|(?i:(?-u:\b)(first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+quarter)(?:\s*,?\s*(?:(?i:of|in)\s+)?(?i:fiscal\s+(?:year\s+)?)?(\d{4}))?(?-u:\b)",
            )),
        }
    })
}

/// What a text holds that the date patterns need, read in one pass over its bytes, so that a
/// pattern that cannot match is not run (ten regex searches a sentence were most of the cost
/// of reading dates). Exact for ASCII text, where `\d` is `[0-9]` and a case-insensitive
/// month name is ASCII letters in either case; a text with other characters (whose case
/// folding reaches ASCII letters: `ſ` is `s`) runs every pattern.
#[derive(Debug, PartialEq, Eq)]
struct Needs {
    /// Four ASCII digits in a row (every pattern with a year).
    four_digits: bool,
    dash: bool,
    slash: bool,
    dot: bool,
    /// `q` or `Q` ("Q3", "3Q", "quarter").
    q: bool,
    /// The first three letters of a month's name, in any case.
    month: bool,
}

impl Needs {
    const ALL: Needs = Needs { four_digits: true, dash: true, slash: true, dot: true, q: true, month: true };

    fn of(text: &str) -> Needs {
        if !text.is_ascii() {
            return Needs::ALL;
        }
        let months = month_prefixes();
        let b = text.as_bytes();
        let mut n = Needs { four_digits: false, dash: false, slash: false, dot: false, q: false, month: false };
        let mut run = 0usize;
        for (i, &c) in b.iter().enumerate() {
            if c.is_ascii_digit() {
                run += 1;
                n.four_digits |= run >= 4;
                continue;
            }
            run = 0;
            match c {
                b'-' => n.dash = true,
                b'/' => n.slash = true,
                b'.' => n.dot = true,
                b'q' | b'Q' => n.q = true,
                _ if !n.month && c.is_ascii_alphabetic() => {
                    if let Some(w) = b.get(i..i + 3) {
                        let lower = [w[0].to_ascii_lowercase(), w[1].to_ascii_lowercase(), w[2].to_ascii_lowercase()];
                        n.month = months.contains(&lower);
                    }
                }
                _ => {}
            }
        }
        n
    }
}

fn valid(y: i16, m: i8, d: i8) -> bool {
    jiff::civil::Date::new(y, m, d).is_ok()
}

/// The dates written in `text`, left to right, none overlapping (the most precise form wins).
/// Relative forms ("yesterday", "last year") are not read: see [`dates_at`].
pub fn dates(text: &str) -> Vec<Date> {
    dates_at(text, None)
}

/// True when `text` may hold a form relative to the moment of writing ("yesterday", "last
/// week", "on Tuesday", "two days ago"). When false, [`dates_at`] reads what [`dates`] reads,
/// whatever the anchor.
pub fn may_be_relative(text: &str) -> bool {
    may_hold_relative_word(text) && relative_pattern().is_match(text)
}

/// False when `text` cannot hold a relative form: every form of [`relative_pattern`] ends in
/// one of these words (a weekday and "today" or "yesterday" in "day", "tonight" in "night"),
/// so an ASCII text without any of them, in any case, has none. A text with other characters
/// is always searched (case folding reaches ASCII letters from outside it: the Kelvin sign is
/// a `k`).
fn may_hold_relative_word(text: &str) -> bool {
    static WORDS: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    if !text.is_ascii() {
        return true;
    }
    let words = WORDS.get_or_init(|| {
        const ENDINGS: &[&str] =
            &["day", "tomorrow", "week", "month", "year", "quarter", "morning", "afternoon", "evening", "night", "ago"];
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(ENDINGS)
            .expect("invariant: the relative-date words build an automaton")
    });
    words.is_match(text)
}

/// The dates written in `text`, with the relative forms ("today", "last week", "on Tuesday",
/// "next month", "two days ago") resolved against `anchor`, the day the text was written
/// (a message's `sent_at`). With no anchor, relative forms are left out.
pub fn dates_at(text: &str, anchor: Option<jiff::civil::Date>) -> Vec<Date> {
    let mut found = absolute_dates(text);
    if let Some(day) = anchor {
        relative_dates(text, day, &mut found);
        found.sort_by_key(|d| d.range.start);
    }
    found
}

fn absolute_dates(text: &str) -> Vec<Date> {
    // Every absolute written form has a digit; most sentences have none, and skipping them keeps long pages cheap.
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    absolute_dates_with(text, &Needs::of(text))
}

/// [`absolute_dates`], running only the patterns whose `needs` hold.
fn absolute_dates_with(text: &str, needs: &Needs) -> Vec<Date> {
    let p = patterns();
    // A pattern whose needs the text lacks finds nothing: it searches an empty text instead.
    let within = |run: bool| if run { text } else { "" };
    let with_year = needs.four_digits;
    let mut found: Vec<Date> = Vec::new();
    let free = |found: &Vec<Date>, r: &Range<usize>| found.iter().all(|d| d.range.end <= r.start || r.end <= d.range.start);
    let num = |s: &str| s.parse::<i32>().ok();
    for c in p.iso.captures_iter(within(with_year && needs.dash)) {
        let (Some(y), Some(m), Some(d)) = (num(&c[1]), num(&c[2]), num(&c[3])) else { continue };
        let (y, m, d) = (y as i16, m as i8, d as i8);
        if valid(y, m, d) {
            let r = c.get(0).map(|m| m.range()).unwrap_or_default();
            found.push(Date::written(r, Some(y), Some(m), Some(d)));
        }
    }
    for c in p.month_day_year.captures_iter(within(with_year && needs.month)) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (Some(m), Some(d), Some(y)) = (month_number(&c[1]), num(&c[2]), num(&c[3])) else { continue };
        if free(&found, &r) && valid(y as i16, m, d as i8) {
            found.push(Date::written(r, Some(y as i16), Some(m), Some(d as i8)));
        }
    }
    for c in p.day_month_year.captures_iter(within(with_year && needs.month)) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (Some(d), Some(m), Some(y)) = (num(&c[1]), month_number(&c[2]), num(&c[3])) else { continue };
        if free(&found, &r) && valid(y as i16, m, d as i8) {
            found.push(Date::written(r, Some(y as i16), Some(m), Some(d as i8)));
        }
    }
    for c in p.ymd_slash.captures_iter(within(with_year && needs.slash)) {
        let (Some(y), Some(m), Some(d)) = (num(&c[1]), num(&c[2]), num(&c[3])) else { continue };
        let (y, m, d) = (y as i16, m as i8, d as i8);
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        if valid(y, m, d) && free(&found, &r) {
            found.push(Date::written(r, Some(y), Some(m), Some(d)));
        }
    }
    for c in p.slash.captures_iter(within(with_year && (needs.slash || needs.dot))) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (Some(a), Some(b), Some(y)) = (num(&c[1]), num(&c[2]), num(&c[3])) else { continue };
        let (a, b, y) = (a as i8, b as i8, y as i16);
        if !free(&found, &r) {
            continue;
        }
        let us = valid(y, a, b); // month/day
        let eu = valid(y, b, a); // day/month
        let date = match (us, eu) {
            (true, true) if a == b => Date::written(r, Some(y), Some(a), Some(b)),
            (true, true) => Date {
                range: r,
                year: Some(y),
                month: Some(a),
                day: Some(b),
                swapped: Some((b, a)),
                quarter: None,
                week: None,
                last_year: None,
                relative: false,
            },
            (true, false) => Date::written(r, Some(y), Some(a), Some(b)),
            (false, true) => Date::written(r, Some(y), Some(b), Some(a)),
            (false, false) => continue,
        };
        found.push(date);
    }
    for c in p.decade.captures_iter(within(with_year)) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let Some(y) = num(&c[1]).map(|y| y as i16) else { continue };
        if free(&found, &r) {
            found.push(Date {
                range: r,
                year: Some(y),
                month: None,
                day: None,
                swapped: None,
                quarter: None,
                week: None,
                last_year: Some(y + 9),
                relative: false,
            });
        }
    }
    for c in p.quarter.captures_iter(within(needs.q)) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        if !free(&found, &r) {
            continue;
        }
        let q = c
            .get(1)
            .or(c.get(4))
            .and_then(|m| m.as_str().parse::<i8>().ok())
            .or_else(|| c.get(7).and_then(|m| ordinal_quarter(m.as_str())));
        let year = [2, 5, 8].iter().find_map(|&g| c.get(g)).and_then(|m| num(m.as_str())).map(|y| y as i16);
        let short = [3, 6].iter().find_map(|&g| c.get(g)).and_then(|m| num(m.as_str())).map(|y| 2000 + y as i16);
        let Some(q) = q.filter(|q| (1..=4).contains(q)) else { continue };
        found.push(Date {
            range: r,
            year: year.or(short),
            month: None,
            day: None,
            swapped: None,
            quarter: Some(q),
            week: None,
            last_year: None,
            relative: false,
        });
    }
    for c in p.month_year.captures_iter(within(with_year && needs.month)) {
        let r = c.get(0).map(|m| m.range()).unwrap_or_default();
        let (Some(m), Some(y)) = (month_number(&c[1]), num(&c[2])) else { continue };
        // "may 2020" is only a date when written "May"; the modal verb is lower-case.
        if &c[1] == "may" || !free(&found, &r) {
            continue;
        }
        found.push(Date::written(r, Some(y as i16), Some(m), None));
    }
    for c in p.month_day.captures_iter(within(needs.month)) {
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
        found.push(Date::written(r, None, Some(m), Some(d as i8)));
    }
    for c in p.year.captures_iter(within(with_year)) {
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
            || unit_after(text, r.end)
        {
            continue;
        }
        let Some(y) = num(&c[1]) else { continue };
        found.push(Date::written(r, Some(y as i16), None, None));
    }
    found.sort_by_key(|d| d.range.start);
    found
}

/// "2000 km", "1500 dollars": a four-digit number with a unit after it is a quantity, not a year.
fn unit_after(text: &str, end: usize) -> bool {
    let rest = text[end..].trim_start_matches(' ');
    let w: &str = &rest[..rest.find(|c: char| !c.is_alphabetic()).unwrap_or(rest.len())];
    rest.starts_with(['%', '°']) || (!w.is_empty() && crate::unit_canonical(w).is_some())
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

fn ordinal_quarter(w: &str) -> Option<i8> {
    match w.to_ascii_lowercase().as_str() {
        "first" | "1st" => Some(1),
        "second" | "2nd" => Some(2),
        "third" | "3rd" => Some(3),
        "fourth" | "4th" => Some(4),
        _ => None,
    }
}

const WEEKDAYS: &[(&str, jiff::civil::Weekday)] = &[
    ("monday", jiff::civil::Weekday::Monday),
    ("tuesday", jiff::civil::Weekday::Tuesday),
    ("wednesday", jiff::civil::Weekday::Wednesday),
    ("thursday", jiff::civil::Weekday::Thursday),
    ("friday", jiff::civil::Weekday::Friday),
    ("saturday", jiff::civil::Weekday::Saturday),
    ("sunday", jiff::civil::Weekday::Sunday),
];

fn relative_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(concat!(
            r"(?i)(?-u:\b)(?:",
            r"(today|tonight|yesterday|tomorrow)",
            r"|(this|last|next)\s+(week|month|year|quarter|morning|afternoon|evening|night)",
            r"|(?:(on|this|last|next)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
            r"|(\d{1,3}|an?|one|two|three|four|five|six|seven|ten)\s+(day|week|month|year)s?\s+ago",
            r")(?-u:\b)",
        ))
        .expect("invariant: the relative date pattern is valid")
    })
}

/// A period resolved from a relative form: a year, a month of it, a quarter of it, or a week.
fn period_date(range: Range<usize>, year: i16, month: Option<i8>, quarter: Option<i8>, week: Option<jiff::civil::Date>) -> Date {
    Date { range, year: Some(year), month, day: None, swapped: None, quarter, week, last_year: None, relative: true }
}

fn day_date(range: Range<usize>, d: jiff::civil::Date) -> Date {
    Date {
        range,
        year: Some(d.year()),
        month: Some(d.month()),
        day: Some(d.day()),
        swapped: None,
        quarter: None,
        week: None,
        last_year: None,
        relative: true,
    }
}

/// The relative forms of `text`, resolved against `anchor`, added to `found` where no
/// absolute form was read.
fn relative_dates(text: &str, anchor: jiff::civil::Date, found: &mut Vec<Date>) {
    if may_hold_relative_word(text) {
        relative_dates_searched(text, anchor, found);
    }
}

/// [`relative_dates`] searched for in any text.
fn relative_dates_searched(text: &str, anchor: jiff::civil::Date, found: &mut Vec<Date>) {
    use jiff::ToSpan;
    let free = |found: &Vec<Date>, r: &Range<usize>| found.iter().all(|d| d.range.end <= r.start || r.end <= d.range.start);
    let monday = |d: jiff::civil::Date| d.checked_sub((d.weekday().to_monday_zero_offset() as i32).days()).ok();
    let shift_days = |n: i32| anchor.checked_add(n.days()).ok();
    for c in relative_pattern().captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        let r = m.range();
        if !free(found, &r) {
            continue;
        }
        let lower = |g: usize| c.get(g).map(|m| m.as_str().to_ascii_lowercase());
        let date = if let Some(w) = lower(1) {
            let d = match w.as_str() {
                "yesterday" => shift_days(-1),
                "tomorrow" => shift_days(1),
                _ => Some(anchor),
            };
            d.map(|d| day_date(r.clone(), d))
        } else if let (Some(which), Some(period)) = (lower(2), lower(3)) {
            let step = match which.as_str() {
                "last" => -1,
                "next" => 1,
                _ => 0,
            };
            match period.as_str() {
                // "this morning" is today, "last night" yesterday
                "morning" | "afternoon" | "evening" | "night" => {
                    let back = if period == "night" && step == -1 {
                        -1
                    } else if step == 0 {
                        0
                    } else {
                        continue;
                    };
                    shift_days(back).map(|d| day_date(r.clone(), d))
                }
                "week" => shift_days(7 * step).and_then(monday).map(|mon| period_date(r.clone(), mon.year(), None, None, Some(mon))),
                "month" => anchor.checked_add(step.months()).ok().map(|d| period_date(r.clone(), d.year(), Some(d.month()), None, None)),
                "quarter" => {
                    let q = (i32::from(anchor.year()) * 4 + (i32::from(anchor.month()) - 1) / 3) + step;
                    Some(period_date(r.clone(), q.div_euclid(4) as i16, None, Some((q.rem_euclid(4) + 1) as i8), None))
                }
                _ => Some(period_date(r.clone(), anchor.year() + step as i16, None, None, None)),
            }
        } else if let Some(name) = lower(5) {
            // A weekday written with a date ("Tuesday, 6 April 2024") is part of that date.
            let after = text.len() - text[r.end..].trim_start_matches([',', ' ']).len();
            let glued = found.iter().any(|d| {
                d.range.start == after || (d.range.end <= r.start && text[d.range.end..r.start].trim_matches([',', ' ', '(']).is_empty())
            });
            // "Friday" capitalised names the day; lower-case only after "on", "this", "last", "next"
            let named = m.as_str().chars().next().is_some_and(char::is_uppercase) || lower(4).is_some();
            if glued || !named {
                continue;
            }
            let Some((_, wd)) = WEEKDAYS.iter().find(|(n, _)| *n == name) else { continue };
            let ahead = (wd.to_monday_zero_offset() as i32 - anchor.weekday().to_monday_zero_offset() as i32).rem_euclid(7);
            let offset = match lower(4).as_deref() {
                // the latest such day before the writing day
                Some("last") => {
                    if ahead == 0 {
                        -7
                    } else {
                        ahead - 7
                    }
                }
                // the first such day after it
                Some("next") => {
                    if ahead == 0 {
                        7
                    } else {
                        ahead
                    }
                }
                // "on Tuesday", "this Tuesday": the nearest, past or coming
                _ => {
                    if ahead <= 3 {
                        ahead
                    } else {
                        ahead - 7
                    }
                }
            };
            shift_days(offset).map(|d| day_date(r.clone(), d))
        } else if let (Some(n), Some(unit)) = (lower(6), lower(7)) {
            // A count before "ago": digits, "a", "an" or "one", or a spelled number the pattern
            // admits ("two days ago").
            let n = match n.as_str() {
                "a" | "an" | "one" => Some(1),
                _ => n.parse::<i32>().ok().or_else(|| crate::spelled::value(&n).map(|v| v as i32)),
            };
            let Some(n) = n else { continue };
            match unit.as_str() {
                "day" => shift_days(-n).map(|d| day_date(r.clone(), d)),
                "week" => shift_days(-7 * n).and_then(monday).map(|mon| period_date(r.clone(), mon.year(), None, None, Some(mon))),
                "month" => anchor.checked_sub(n.months()).ok().map(|d| period_date(r.clone(), d.year(), Some(d.month()), None, None)),
                _ => Some(period_date(r.clone(), anchor.year() - n as i16, None, None, None)),
            }
        } else {
            None
        };
        if let Some(d) = date {
            found.push(d);
        }
    }
}

/// The first and last day a date with a year covers, for each of its readings.
fn intervals(d: &Date) -> Vec<(jiff::civil::Date, jiff::civil::Date)> {
    use jiff::ToSpan;
    let Some(y) = d.year else { return Vec::new() };
    if let Some(mon) = d.week {
        return mon.checked_add(6.days()).ok().map(|sun| vec![(mon, sun)]).unwrap_or_default();
    }
    let mut readings = vec![(d.month, d.day)];
    if let Some((m, dd)) = d.swapped {
        readings.push((Some(m), Some(dd)));
    }
    readings
        .into_iter()
        .filter_map(|(m, day)| {
            let (first_month, last_month) = match (m, d.quarter) {
                (Some(m), _) => (m, m),
                (None, Some(q)) => (q * 3 - 2, q * 3),
                (None, None) => (1, 12),
            };
            let first = jiff::civil::Date::new(y, first_month, day.unwrap_or(1)).ok()?;
            let last_y = d.last_year.unwrap_or(y);
            let last = match day {
                Some(dd) => jiff::civil::Date::new(last_y, last_month, dd).ok()?,
                None => jiff::civil::Date::new(last_y, last_month, 1).ok()?.last_of_month(),
            };
            Some((first, last))
        })
        .collect()
}

/// Compare a claim date with an evidence date.
pub fn relate(claim: &Date, ev: &Date) -> DateRelation {
    let ambiguous = claim.swapped.is_some() || ev.swapped.is_some();
    let best = if claim.year.is_some() && ev.year.is_some() { relate_days(claim, ev) } else { relate_parts(claim, ev) };
    // An ambiguous slash date never contradicts: we cannot say which reading the writer meant.
    if ambiguous && best == DateRelation::Conflicts && claim.year == ev.year {
        return DateRelation::Coarser;
    }
    best
}

/// Both dates have a year: compare the days they cover. The evidence's days inside the
/// claim's agree ("2024" is stated by "May 1, 2024"; "Q2 2024" by "May 2024"); the claim's
/// inside the evidence's, or overlapping, is a coarser statement; no day in common conflicts.
fn relate_days(claim: &Date, ev: &Date) -> DateRelation {
    let mut best = DateRelation::Conflicts;
    for (c0, c1) in intervals(claim) {
        for (e0, e1) in intervals(ev) {
            let rel = if e1 < c0 || c1 < e0 {
                DateRelation::Conflicts
            } else if c0 <= e0 && e1 <= c1 {
                DateRelation::Agrees
            } else {
                DateRelation::Coarser
            };
            best = better(best, rel);
        }
    }
    best
}

fn better(a: DateRelation, b: DateRelation) -> DateRelation {
    match (a, b) {
        (DateRelation::Agrees, _) | (_, DateRelation::Agrees) => DateRelation::Agrees,
        (DateRelation::Coarser, _) | (_, DateRelation::Coarser) => DateRelation::Coarser,
        _ => DateRelation::Conflicts,
    }
}

/// Either date lacks a year ("May 1", "Q3"): compare the components both state.
fn relate_parts(claim: &Date, ev: &Date) -> DateRelation {
    let readings = |d: &Date| {
        let mut v = vec![(d.month, d.day)];
        if let Some((m, dd)) = d.swapped {
            v.push((Some(m), Some(dd)));
        }
        v
    };
    let quarter_of = |m: Option<i8>| m.map(|m| (m - 1) / 3 + 1);
    let mut best = DateRelation::Conflicts;
    for (cm, cd) in readings(claim) {
        for (em, ed) in readings(ev) {
            let parts = [
                (claim.year.map(i32::from), ev.year.map(i32::from)),
                (claim.quarter.or(quarter_of(cm)).map(i32::from), ev.quarter.or(quarter_of(em)).map(i32::from)),
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
            best = better(best, rel);
        }
    }
    best
}

/// True when the two dates share no stated component at all (a year against a month-day).
pub fn comparable(claim: &Date, ev: &Date) -> bool {
    let within_year = |d: &Date| d.month.is_some() || d.quarter.is_some();
    (claim.year.is_some() && ev.year.is_some()) || (within_year(claim) && within_year(ev))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_month_word_names_its_month() {
        let names =
            ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
        for (i, name) in names.iter().enumerate() {
            assert_eq!(month_number(name), Some(i as i8 + 1), "{name}");
            assert_eq!(month_number(&name.to_uppercase()), Some(i as i8 + 1), "{name}");
        }
        for (word, month) in [("Jan.", 1), ("mar", 3), ("jun", 6), ("Sept.", 9), ("sep", 9), ("dec", 12)] {
            assert_eq!(month_number(word), Some(month), "{word}");
        }
        for word in ["ma", "ju", "janu", "mays", "monday", ""] {
            assert_eq!(month_number(word), None, "{word}");
        }
        assert_eq!(MONTH_WORDS.len(), 24);
        assert_eq!(month_prefixes().len(), 12);
    }
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
        assert!(dates("a 2000 km road and 1500 dollars").is_empty(), "a unit after four digits makes them a quantity");
        assert_eq!(dates("In 2000 people moved").len(), 1, "a noun after a year is no unit");
        assert_eq!(dates("In 2000 Fox released it").len(), 1);
        assert!(dates("Feb 30, 2024").iter().all(|d| d.day.is_none()));
    }

    #[test]
    fn swapped_day_and_month_in_words_conflict() {
        // "6 April" against "April 4": a day written in words next to its month cannot be read the other way
        assert_eq!(relate(&one("on 6 April 2024"), &one("on April 4, 2024")), DateRelation::Conflicts);
        assert_eq!(relate(&one("on 6 April"), &one("on April 4")), DateRelation::Conflicts);
        // near misses that stay as they are: the same day in both orders agrees; a swappable slash date never conflicts
        assert_eq!(relate(&one("on 6 April 2024"), &one("on April 6, 2024")), DateRelation::Agrees);
        assert_ne!(relate(&one("on 6 April 2024"), &one("04/06/2024")), DateRelation::Conflicts);
    }

    #[test]
    fn decades() {
        let d = one("since the 1950s");
        assert_eq!((d.year, d.last_year), (Some(1950), Some(1959)));
        assert_eq!(relate(&d, &one("in 1957")), DateRelation::Agrees);
        assert_eq!(relate(&one("in 1957"), &d), DateRelation::Coarser);
        assert_eq!(relate(&d, &one("in 1962")), DateRelation::Conflicts);
        assert_eq!(relate(&d, &one("in the 1950 's")), DateRelation::Agrees);
        assert_eq!(one("by 2100").year, Some(2100));
        // near misses: a count of years is no decade; a century is a rank, not read as a date
        assert!(dates("some 1950 people").iter().all(|d| d.last_year.is_none()));
        assert!(dates("the 20th century").is_empty());
    }

    #[test]
    fn quarters() {
        let q3 = one("results for Q3 2024");
        assert_eq!((q3.year, q3.quarter), (Some(2024), Some(3)));
        for f in ["in the third quarter of 2024", "3Q24 numbers", "Q3'24 numbers", "third-quarter 2024 profit", "Q3 of 2024"] {
            let d = one(f);
            assert_eq!((d.year, d.quarter), (Some(2024), Some(3)), "{f}");
            assert_eq!(relate(&q3, &d), DateRelation::Agrees, "{f}");
        }
        assert_eq!(relate(&q3, &one("in August 2024")), DateRelation::Agrees, "August is in the third quarter");
        assert_eq!(relate(&one("in August 2024"), &q3), DateRelation::Coarser);
        assert_eq!(relate(&q3, &one("in May 2024")), DateRelation::Conflicts);
        assert_eq!(relate(&q3, &one("Q2 2024")), DateRelation::Conflicts);
        assert_eq!(relate(&q3, &one("Q3 2023")), DateRelation::Conflicts);
        // near misses: a quarter is no quarter without its number; "3 quarters" is a count
        assert!(dates("three quarters of the vote in 2024").iter().all(|d| d.quarter.is_none()));
    }

    #[test]
    fn weekdays_and_relative_forms_need_an_anchor() {
        // Wednesday 8 May 2024
        let sent = jiff::civil::date(2024, 5, 8);
        let at = |t: &str| {
            let v = dates_at(t, Some(sent));
            assert_eq!(v.len(), 1, "{t}: {v:?}");
            v.into_iter().next().expect("one")
        };
        let day = |t: &str| {
            let d = at(t);
            assert!(d.relative, "{t}");
            (d.year, d.month, d.day)
        };
        assert_eq!(day("It closed today."), (Some(2024), Some(5), Some(8)));
        assert_eq!(day("It closed yesterday."), (Some(2024), Some(5), Some(7)));
        assert_eq!(day("It opens tomorrow."), (Some(2024), Some(5), Some(9)));
        assert_eq!(day("We met on Tuesday."), (Some(2024), Some(5), Some(7)));
        assert_eq!(day("We meet on Friday."), (Some(2024), Some(5), Some(10)));
        assert_eq!(day("We met last Wednesday."), (Some(2024), Some(5), Some(1)));
        assert_eq!(day("We meet next Monday."), (Some(2024), Some(5), Some(13)));
        assert_eq!(day("It broke two days ago."), (Some(2024), Some(5), Some(6)));
        assert_eq!(day("It broke Seven days ago."), (Some(2024), Some(5), Some(1)));
        assert_eq!(day("It broke a day ago."), (Some(2024), Some(5), Some(7)));
        let d = at("It rained last year.");
        assert_eq!((d.year, d.month), (Some(2023), None));
        let d = at("It opens next month.");
        assert_eq!((d.year, d.month), (Some(2024), Some(6)));
        let d = at("Sales rose this quarter.");
        assert_eq!((d.year, d.quarter), (Some(2024), Some(2)));
        let d = at("We shipped it this week.");
        assert_eq!(d.week, Some(jiff::civil::date(2024, 5, 6)));
        assert_eq!(relate(&d, &one("on May 7, 2024")), DateRelation::Agrees, "7 May is in the week of 6 May");
        assert_eq!(relate(&d, &one("on May 14, 2024")), DateRelation::Conflicts);
        assert_eq!(relate(&at("It closed yesterday."), &one("It closed on 7 May 2024.")), DateRelation::Agrees);
        assert_eq!(relate(&at("It closed yesterday."), &one("It closed on 6 May 2024.")), DateRelation::Conflicts);
        assert_eq!(relate(&at("It rained last year."), &one("It rained in March 2023.")), DateRelation::Agrees);
        // a weekday written with its date is part of it, not a second date
        assert_eq!(dates_at("Tuesday, 6 April 2024", Some(sent)).len(), 1);
        // without an anchor, relative forms are not dates at all
        assert!(dates("It closed yesterday, last week and on Tuesday.").is_empty());
        // near misses: lower-case weekday words alone, "last" before a non-period
        assert!(dates_at("the monday crowd", Some(sent)).is_empty());
        assert!(dates_at("the last minute", Some(sent)).is_empty());
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
        fn without_a_relative_form_the_anchor_changes_nothing(
            s in "(yesterday|today|last|next|week|year|Tuesday|on|two|days|ago|May|2024|[0-9]{1,4}|[a-z]{1,6}| |, )*"
        ) {
            let anchored = dates_at(&s, Some(jiff::civil::date(2024, 5, 8)));
            proptest::prop_assert!(may_be_relative(&s) || anchored == dates(&s), "{:?}", s);
        }

        #[test]
        fn the_pattern_prefilter_never_changes_what_is_read(
            s in "([0-9]{1,5}|[-/.,' ]|[QqsS]|of|the|third|quarter|[Mm]ay|MAY|Jan\\.?|sept|Dec|December|[a-z]{1,6}|\u{17f}|\u{e9})*"
        ) {
            proptest::prop_assert_eq!(absolute_dates_with(&s, &Needs::of(&s)), absolute_dates_with(&s, &Needs::ALL), "{:?}", s);
        }

        #[test]
        fn never_panics(s in ".{0,80}") {
            let _ = dates(&s);
        }

        #[test]
        fn relative_forms_never_panic_and_stay_unread_without_an_anchor(
            s in "((today|yesterday|last|next|this|on|ago|week|month|year|quarter|Tuesday|Sunday|two|[0-9]{1,3}|Q[1-4]|days) ?){0,8}",
            y in -9999i16..9999, m in 1i8..=12, d in 1i8..=28,
        ) {
            let anchor = jiff::civil::Date::new(y, m, d).ok();
            let with = dates_at(&s, anchor);
            let without = dates(&s);
            prop_assert!(without.iter().all(|d| !d.relative));
            prop_assert!(with.len() >= without.len());
        }
    }
    proptest::proptest! {
        /// The word prefilter of relative forms never hides one: with and without it, the same
        /// dates on texts of relative words in any case, numbers and other words.
        #[test]
        fn the_relative_word_prefilter_hides_no_form(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "today", "TONIGHT", "Yesterday", "tomorrow", "this", "Last", "next", "week", "MONTH", "year", "quarter",
                "morning", "afternoon", "Evening", "night", "on", "Monday", "tuesday", "WEDNESDAY", "Friday", "sunday",
                "2", "10", "an", "a", "one", "Two", "ten", "days", "weeks", "ago", "AGO", "the", "3 May 2024", ",", " ",
                "holiday", "dayton", "agog", "wee", "k", "\u{212a}", "ſ", "é",
            ]), 0..12),
            day in 1i8..28,
        ) {
            let text = parts.join(" ");
            let anchor = jiff::civil::date(2024, 5, day);
            let (mut filtered, mut searched) = (Vec::new(), Vec::new());
            relative_dates(&text, anchor, &mut filtered);
            relative_dates_searched(&text, anchor, &mut searched);
            proptest::prop_assert_eq!(&filtered, &searched, "{:?}", text);
            proptest::prop_assert_eq!(may_be_relative(&text), relative_pattern().is_match(&text), "{:?}", text);
        }
    }
}
