//! Quantities: a number in value with its anchor (unit, currency, scale word
//! or the noun it counts), and the precision the writer stated.
//!
//! Rules, each with its reason:
//! - a number is read whole: the scanner starts at the first digit of a run and
//!   takes the run, so "86" can never be found inside "1986" or "2,086";
//! - digits glued to letters before them ("COVID-19", "CD177", "B12") are names,
//!   not quantities;
//! - "%" / "percent" and "percentage points" are different units, so 5% never
//!   matches 5 percentage points;
//! - "2.3 million" states its value to the nearest 0.1 million, so it matches
//!   2,304,580 (which rounds to 2.3 million) and not 2,350,001.

use crate::words::{Word, stem};
use std::ops::Range;

/// The unit class a quantity is stated in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    /// No unit word: a count of the anchor noun, or a bare number.
    Plain,
    /// "%", "percent", "per cent".
    Percent,
    /// "percentage point(s)", "pp".
    PercentagePoint,
    /// A currency, by ISO-like code ("USD", "EUR", "GBP", "JPY", "INR").
    Currency(&'static str),
    /// A measurement unit word, normalised ("km", "kg", "c", "mg", "year", ...).
    Measure(String),
}

/// A comparison the writer put on the number ("more than 30").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Stated as the value.
    Exact,
    /// "about", "around", "nearly", "almost", "roughly", "approximately", "some", "~".
    About,
    /// "more than", "over", "above", "at least", "exceeding".
    AtLeast,
    /// "less than", "under", "below", "at most", "fewer than", "up to".
    AtMost,
}

/// One quantity found in a text.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    /// Byte range of the number with its scale and unit words, in the text it was read from.
    pub range: Range<usize>,
    /// Value with the scale applied (2.3 million → 2 300 000).
    pub value: f64,
    /// The unit of the last stated digit, scaled (2.3 million → 100 000): the precision the writer stated.
    pub step: f64,
    /// Unit class.
    pub unit: Unit,
    /// Stem of the noun the number counts or measures ("18 patients" → "patient"), if any.
    pub anchor: Option<String>,
    /// Comparison stated with it.
    pub bound: Bound,
    /// True when the number looks like a calendar year (four digits, 1000–2099, no unit).
    pub is_year: bool,
    /// The scale word's factor (1 when none).
    pub scale: f64,
    /// When the number is one end of a range ("36–70%", "between 75% and 90%"), the range.
    pub range_of: Option<(f64, f64)>,
}

const SCALES: &[(&str, f64)] = &[
    ("thousand", 1e3),
    ("million", 1e6),
    ("millions", 1e6),
    ("billion", 1e9),
    ("billions", 1e9),
    ("trillion", 1e12),
    ("bn", 1e9),
    ("mn", 1e6),
    ("k", 1e3),
    ("m", 1e6),
    ("b", 1e9),
];

const SPELLED: &[(&str, f64)] = &[
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
    ("hundred", 100.0),
    ("dozen", 12.0),
];

/// The units of a hyphenated spelled number ("twenty-one" … "ninety-nine").
const UNITS: &[&str] = &["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

/// Measurement units, surface → normalised. Time spans count as units so that
/// "17 seasons" and "17 years" are not compared as the same quantity.
const MEASURES: &[(&str, &str)] = &[
    ("km", "km"),
    ("kilometres", "km"),
    ("kilometers", "km"),
    ("kilometre", "km"),
    ("kilometer", "km"),
    ("m2", "m2"),
    ("miles", "mile"),
    ("mile", "mile"),
    ("kg", "kg"),
    ("kilograms", "kg"),
    ("g", "g"),
    ("mg", "mg"),
    ("µg", "ug"),
    ("ug", "ug"),
    ("ml", "ml"),
    ("l", "l"),
    ("litres", "l"),
    ("liters", "l"),
    ("c", "c"),
    ("°c", "c"),
    ("f", "f"),
    ("°f", "f"),
    ("degrees", "deg"),
    ("years", "year"),
    ("year", "year"),
    ("yrs", "year"),
    ("months", "month"),
    ("month", "month"),
    ("weeks", "week"),
    ("week", "week"),
    ("days", "day"),
    ("day", "day"),
    ("hours", "hour"),
    ("hour", "hour"),
    ("minutes", "minute"),
    ("seconds", "second"),
    ("decades", "decade"),
    ("decade", "decade"),
    ("centuries", "century"),
    ("ppm", "ppm"),
    ("gt", "gt"),
    ("mw", "mw"),
    ("gw", "gw"),
    ("mph", "mph"),
    ("feet", "ft"),
    ("ft", "ft"),
    ("metres", "metre"),
    ("meters", "metre"),
    ("tonnes", "tonne"),
    ("tons", "tonne"),
];

const CURRENCY_SYMBOLS: &[(char, &str)] = &[('$', "USD"), ('€', "EUR"), ('£', "GBP"), ('¥', "JPY"), ('₹', "INR")];
const CURRENCY_WORDS: &[(&str, &str)] = &[
    ("usd", "USD"),
    ("dollars", "USD"),
    ("dollar", "USD"),
    ("eur", "EUR"),
    ("euros", "EUR"),
    ("euro", "EUR"),
    ("gbp", "GBP"),
    ("pounds", "GBP"),
    ("jpy", "JPY"),
    ("yen", "JPY"),
    ("inr", "INR"),
    ("rupees", "INR"),
];

/// Words between a number and the noun it counts that do not change what is counted.
const ANCHOR_SKIP: &[&str] = &[
    "of",
    "the",
    "new",
    "more",
    "additional",
    "confirmed",
    "reported",
    "total",
    "other",
    "further",
    "american",
    "different",
    "consecutive",
    "people", // "1 million people" and "1 million" name the same population; the anchor is kept when it is the only noun
];

/// All quantities in `text`. `words` must be [`crate::words::words`] of the same text.
pub fn quantities(text: &str, words: &[Word]) -> Vec<Quantity> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        // Take the whole run: digits, thousands separators between digit groups, one decimal point.
        let start = i;
        let mut j = i;
        let mut seen_point = false;
        while j < bytes.len() {
            let b = bytes[j];
            let group_separator = b == b','
                && bytes.get(j + 1..j + 4).is_some_and(|g| g.iter().all(u8::is_ascii_digit))
                && !bytes.get(j + 4).is_some_and(u8::is_ascii_digit);
            if b.is_ascii_digit() || group_separator {
                j += 1;
            } else if b == b'.' && !seen_point && bytes.get(j + 1).is_some_and(u8::is_ascii_digit) {
                seen_point = true;
                j += 1;
            } else {
                break;
            }
        }
        let end = j;
        i = end;
        if is_glued_to_name(text, start) || glued_letters_after(text, end) {
            continue;
        }
        // A number in a date form (05/01/2024, 2024-05-01) or a ratio/range part is read by the date scanner or skipped.
        if matches!(bytes.get(end), Some(b'/')) && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
            i = skip_run(bytes, end);
            continue;
        }
        if start > 0 && bytes[start - 1] == b'/' {
            continue;
        }
        let digits = &text[start..end];
        let clean: String = digits.chars().filter(|c| *c != ',').collect();
        let Ok(unsigned) = clean.parse::<f64>() else { continue };
        // A minus sign standing before the number ("fell to -5%", "(−3.2)") makes it negative;
        // a hyphen between numbers is a range, after letters a name.
        let mut before = text[..start].chars().rev();
        let negative = matches!(before.next(), Some('-' | '−')) && before.next().is_none_or(|c| c.is_whitespace() || c == '(');
        let base = if negative { -unsigned } else { unsigned };
        let decimals = clean.split_once('.').map(|(_, d)| d.len()).unwrap_or(0);
        out.push(build(text, words, start, end, base, decimals as i32, digits.len() == 4 && !digits.contains([',', '.'])));
    }
    // Spelled-out numbers ("three patients", "two million", "twenty-five years").
    let mut skip_next = false;
    for (wi, w) in words.iter().enumerate() {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        let Some((_, v)) = SPELLED.iter().find(|(s, _)| *s == w.lower) else { continue };
        // "hundred"/"dozen" after a digit number are scale words of that number, already read.
        if wi > 0 && words[wi - 1].lower.chars().all(|c| c.is_ascii_digit()) && w.range.start <= words[wi - 1].range.end + 1 {
            continue;
        }
        let mut value = *v;
        let mut end = w.range.end;
        let hyphen_unit = words.get(wi + 1).filter(|n| n.range.start == w.range.end + 1 && text[w.range.end..].starts_with('-'));
        if let Some(u) = hyphen_unit.and_then(|n| UNITS.iter().position(|u| *u == n.lower)).filter(|_| (20.0..100.0).contains(v)) {
            value += (u + 1) as f64;
            end = words[wi + 1].range.end;
            skip_next = true;
        }
        out.push(build(text, words, w.range.start, end, value, 0, false));
    }
    out.sort_by_key(|q| q.range.start);
    link_ranges(text, &mut out);
    out
}

/// Mark the two ends of a range ("36–70%", "15 to 50 W/m2", "between 75% and 90%"); the
/// first end takes the unit and scale of the second when it has none ("2–3 million").
fn link_ranges(text: &str, qs: &mut [Quantity]) {
    for i in 1..qs.len() {
        let (a, b) = (&qs[i - 1], &qs[i]);
        let Some(between) = text.get(a.range.end..b.range.start) else { continue };
        let between = between.trim();
        let before = text[..a.range.start].trim_end().to_lowercase();
        let dash = matches!(between, "-" | "–" | "—" | "to");
        let and = between == "and" && (before.ends_with("between") || before.ends_with("from"));
        if !(dash || and) || a.is_year || b.is_year {
            continue;
        }
        let (unit, scale) = (b.unit.clone(), b.scale);
        let a = &mut qs[i - 1];
        if a.unit == Unit::Plain && a.scale == 1.0 {
            a.unit = unit;
            a.value *= scale;
            a.step *= scale;
            a.scale = scale;
        }
        let first = a.value;
        let (lo, hi) = (first.min(qs[i].value), first.max(qs[i].value));
        qs[i - 1].range_of = Some((lo, hi));
        qs[i].range_of = Some((lo, hi));
    }
}

fn skip_run(bytes: &[u8], mut j: usize) -> usize {
    while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'/') {
        j += 1;
    }
    j
}

/// "COVID-19", "CD177", "B.1.1.7", "H1N1": digits glued to letters before them are part of a name.
fn is_glued_to_name(text: &str, start: usize) -> bool {
    let before = &text[..start];
    let mut rev = before.chars().rev();
    match rev.next() {
        Some(c) if c.is_alphabetic() => true,
        Some('-') | Some('.') => rev.next().is_some_and(|c| c.is_alphabetic()),
        _ => false,
    }
}

/// "5G", "10x", "3D": letters glued after the number that are neither an ordinal
/// suffix nor a known unit make it a name.
fn glued_letters_after(text: &str, end: usize) -> bool {
    let after: String = text[end..].chars().take_while(|c| c.is_alphabetic()).collect();
    if after.is_empty() {
        return false;
    }
    // "5G", "3D", "4K": one capital letter glued to a number names a thing, it is not a unit ("5g" is grams).
    if after.chars().count() == 1 && after.chars().all(char::is_uppercase) {
        return true;
    }
    let lower = after.to_lowercase();
    let ordinal = matches!(lower.as_str(), "st" | "nd" | "rd" | "th" | "s");
    let unit = MEASURES.iter().any(|(s, _)| *s == lower) || SCALES.iter().any(|(s, _)| *s == lower);
    !(ordinal || unit)
}

fn build(text: &str, words: &[Word], start: usize, end: usize, base: f64, decimals: i32, four_digits: bool) -> Quantity {
    let mut range_end = end;
    let mut unit = Unit::Plain;
    let mut scale = 1.0f64;
    let mut scaled = false;
    // Letters glued to the number: a scale ("3.5bn", "2m") or a unit ("70C", "5mg").
    let glued: String = text[end..].chars().take_while(|c| c.is_alphabetic()).collect();
    let glued_lower = glued.to_lowercase();
    if let Some((_, s)) = SCALES.iter().find(|(s, _)| *s == glued_lower) {
        scale = *s;
        scaled = true;
        range_end = end + glued.len();
    } else if let Some((_, m)) = MEASURES.iter().find(|(s, _)| *s == glued_lower) {
        unit = Unit::Measure((*m).to_string());
        range_end = end + glued.len();
    } else if !glued.is_empty() {
        range_end = end + glued.len(); // an ordinal suffix ("22nd")
    }
    let end = range_end;
    // Words after the number, in order.
    let after: Vec<&Word> = words.iter().filter(|w| w.range.start >= end).take(6).collect();
    let mut k = 0usize;
    // Glued or spaced suffix: "%", "2.3m", "70 °C".
    let tail = &text[end..];
    let tail_trim = tail.trim_start();
    let gap = tail.len() - tail_trim.len();
    if tail_trim.starts_with('%') {
        unit = Unit::Percent;
        range_end = end + gap + 1;
    }
    if unit == Unit::Plain {
        if let Some(w) = after.get(k).filter(|w| !scaled && w.range.start <= end + 1) {
            if let Some((_, s)) = SCALES.iter().find(|(s, _)| *s == w.lower) {
                // a lone "m"/"b"/"k" glued or spaced only counts as a scale right after a currency symbol or glued
                let single = w.lower.len() == 1;
                if !single || w.range.start == end || currency_before(text, start).is_some() {
                    scale = *s;
                    scaled = true;
                    range_end = w.range.end;
                    k += 1;
                }
            } else if w.lower == "hundred" {
                scale = 100.0;
                scaled = true;
                range_end = w.range.end;
                k += 1;
            }
        }
        if let Some(w) = after.get(k) {
            let near = text.get(range_end..w.range.start).is_some_and(|g| g.trim().is_empty() || g.trim() == "°");
            if near {
                if w.lower == "percent" || (w.lower == "per" && after.get(k + 1).is_some_and(|n| n.lower == "cent")) {
                    unit = Unit::Percent;
                    range_end = if w.lower == "per" { after[k + 1].range.end } else { w.range.end };
                    k += if w.lower == "per" { 2 } else { 1 };
                } else if w.lower == "percentage" && after.get(k + 1).is_some_and(|n| n.lower.starts_with("point")) {
                    unit = Unit::PercentagePoint;
                    range_end = after[k + 1].range.end;
                    k += 2;
                } else if w.lower == "pp" {
                    unit = Unit::PercentagePoint;
                    range_end = w.range.end;
                    k += 1;
                } else if let Some((_, c)) = CURRENCY_WORDS.iter().find(|(s, _)| *s == w.lower) {
                    unit = Unit::Currency(c);
                    range_end = w.range.end;
                    k += 1;
                } else if let Some((_, m)) = MEASURES.iter().find(|(s, _)| *s == w.lower) {
                    unit = Unit::Measure((*m).to_string());
                    range_end = w.range.end;
                    k += 1;
                } else if let Some(u) = crate::unit_canonical(&w.lower).and_then(gate_unit) {
                    // Any other unit or currency word of the gate's unit lexicon (one list for both crates).
                    unit = u;
                    range_end = w.range.end;
                    k += 1;
                }
            }
        }
    }
    if let Some(c) = currency_before(text, start).filter(|_| unit == Unit::Plain) {
        unit = Unit::Currency(c);
    }
    if unit == Unit::Percent && matches!(after.first(), Some(w) if w.lower == "percentage") {
        unit = Unit::PercentagePoint;
    }
    // The anchor: the first content word after the number and its unit words, within the same
    // clause ("$1.2 million, approved by the board" does not count approvals).
    let mut anchor = None;
    // "four of the warmest years": a part of a set, not a count of the next word.
    let part_of_set = after.get(k).is_some_and(|w| w.lower == "of") && after.get(k + 1).is_some_and(|w| w.lower == "the");
    let mut prev_end = range_end;
    for w in after.iter().skip(k).take(3) {
        let gap = text.get(prev_end..w.range.start).unwrap_or("");
        prev_end = w.range.end;
        if gap.contains([',', ';', ':', '.', '!', '?', '(', ')']) {
            break;
        }
        if ANCHOR_SKIP.contains(&w.lower.as_str())
            && after.iter().skip(k).take(3).any(|o| !o.stop && !ANCHOR_SKIP.contains(&o.lower.as_str()))
        {
            continue;
        }
        if w.stop || w.lower.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        anchor = Some(stem(&w.lower));
        break;
    }
    let is_year = four_digits && unit == Unit::Plain && !scaled && (1000.0..2100.0).contains(&base);
    // Dividing the scale (an exact power of ten or 12) keeps the step exact: 1e6 / 10 = 100 000.
    let step = scale / 10f64.powi(decimals);
    if part_of_set {
        anchor = None;
    } else if anchor.is_none() {
        anchor = subject_anchor(text, words, start);
    }
    // A currency sign written against the number is part of the value as cited ("$1.2 million").
    let sign = text[..start].chars().next_back().filter(|c| CURRENCY_SYMBOLS.iter().any(|(s, _)| s == c));
    let range_start = sign.map_or(start, |c| start - c.len_utf8());
    Quantity {
        range: range_start..range_end,
        value: base * scale,
        step,
        unit,
        anchor,
        bound: bound_before(text, start),
        is_year,
        scale,
        range_of: None,
    }
}

/// Verbs that link a subject to the value it has ("the budget was $1.2 million",
/// "revenue reached 3 million", "a budget of $2 million").
const LINKS: &[&str] = &[
    "was", "is", "were", "are", "be", "been", "of", "remains", "remained", "reached", "totalled", "totaled", "totals", "stood", "hit",
    "worth", "cost", "costs",
];

/// The noun phrase a value is predicated of, when nothing after the number says what it
/// counts: "The launch budget was $1.2 million" anchors 1.2 million to "launch budget".
/// Up to three content words right before the linking verb (or "stood at"), stems joined by
/// a space, head last; a bound word ("about", "more than") may stand between.
fn subject_anchor(text: &str, words: &[Word], start: usize) -> Option<String> {
    let before: Vec<&Word> = words.iter().filter(|w| w.range.end <= start).collect();
    let mut i = before.len();
    // Bound and currency words between the link and the number.
    while i > 0
        && matches!(
            before[i - 1].lower.as_str(),
            "about"
                | "around"
                | "nearly"
                | "almost"
                | "roughly"
                | "approximately"
                | "some"
                | "than"
                | "more"
                | "less"
                | "over"
                | "under"
                | "at"
                | "least"
                | "most"
                | "us"
                | "usd"
                | "eur"
                | "gbp"
        )
    {
        i -= 1;
    }
    if i == 0 || !LINKS.contains(&before[i - 1].lower.as_str()) {
        return None;
    }
    // "was worth", "has been": a chain of link words.
    while i > 0 && LINKS.contains(&before[i - 1].lower.as_str()) {
        i -= 1;
    }
    let mut np: Vec<String> = Vec::new();
    while i > 0 && np.len() < 3 {
        let w = before[i - 1];
        // The phrase ends at punctuation or at a word that is not a content word.
        let gap = text.get(w.range.end..before[i].range.start).unwrap_or("");
        if gap.contains([',', ';', ':', '.', '!', '?', '(', ')']) || w.stop || !w.lower.chars().all(char::is_alphabetic) {
            break;
        }
        np.push(stem(&w.lower));
        i -= 1;
    }
    if np.is_empty() {
        return None;
    }
    // "the human contribution to global warming was ...": the phrase after a preposition
    // modifies the noun before it, which is the head.
    let prep = i > 0 && matches!(before[i - 1].lower.as_str(), "of" | "to" | "for" | "in" | "on");
    if prep && i > 1 && !before[i - 2].stop && before[i - 2].lower.chars().all(char::is_alphabetic) {
        let head = stem(&before[i - 2].lower);
        let mut mods: Vec<String> = np.into_iter().rev().collect();
        if i > 2 && !before[i - 3].stop && before[i - 3].lower.chars().all(char::is_alphabetic) {
            mods.insert(0, stem(&before[i - 3].lower));
        }
        mods.push(head);
        return Some(mods.join(" "));
    }
    np.reverse();
    Some(np.join(" "))
}

/// True when two anchors name the same thing: the same head noun (the last stem), and, when
/// both name a modifier, at least one modifier in common ("launch budget" / "budget" agree;
/// "launch budget" / "marketing budget" do not).
pub fn anchors_match(a: &str, b: &str) -> bool {
    let (ha, ma) = a.rsplit_once(' ').map_or((a, ""), |(m, h)| (h, m));
    let (hb, mb) = b.rsplit_once(' ').map_or((b, ""), |(m, h)| (h, m));
    if !crate::words::stems_match(ha, hb) {
        return false;
    }
    ma.is_empty() || mb.is_empty() || ma.split(' ').any(|x| mb.split(' ').any(|y| crate::words::stems_match(x, y)))
}

/// The verifier's unit for a canonical unit of the gate's lexicon.
fn gate_unit(canon: &'static str) -> Option<Unit> {
    match canon {
        "PERCENT" => Some(Unit::Percent),
        "PP" => Some(Unit::PercentagePoint),
        c => match CURRENCY_SYMBOLS.iter().find(|(_, code)| *code == c) {
            Some((_, code)) => Some(Unit::Currency(code)),
            None => Some(Unit::Measure(c.to_lowercase())),
        },
    }
}

/// A short name of a unit for reasons: the currency code, "%", "percentage points" or the unit.
pub fn unit_label(u: &Unit) -> String {
    match u {
        Unit::Plain => "no unit".into(),
        Unit::Percent => "%".into(),
        Unit::PercentagePoint => "percentage points".into(),
        Unit::Currency(c) => (*c).to_string(),
        Unit::Measure(m) => m.clone(),
    }
}

fn currency_before(text: &str, start: usize) -> Option<&'static str> {
    let before = text[..start].trim_end();
    let c = before.chars().next_back()?;
    if let Some((_, code)) = CURRENCY_SYMBOLS.iter().find(|(s, _)| *s == c) {
        return Some(code);
    }
    let lower = before.to_lowercase();
    for (w, code) in [("us$", "USD"), ("usd", "USD"), ("eur", "EUR"), ("gbp", "GBP"), ("rs", "INR"), ("rs.", "INR")] {
        if lower.ends_with(w) && !lower[..lower.len() - w.len()].chars().next_back().is_some_and(char::is_alphanumeric) {
            return Some(code);
        }
    }
    None
}

fn bound_before(text: &str, start: usize) -> Bound {
    let before = text[..start].trim_end().trim_end_matches(['$', '€', '£', '~']).trim_end().to_lowercase();
    if text[..start].trim_end().ends_with('~') {
        return Bound::About;
    }
    let tail: Vec<&str> = before.split(|c: char| !c.is_alphanumeric()).filter(|s| !s.is_empty()).rev().take(2).collect();
    let last = tail.first().copied().unwrap_or("");
    let two = if tail.len() == 2 { format!("{} {}", tail[1], tail[0]) } else { String::new() };
    match two.as_str() {
        "more than" | "greater than" | "at least" | "higher than" | "in excess" => return Bound::AtLeast,
        "less than" | "fewer than" | "at most" | "up to" | "lower than" => return Bound::AtMost,
        _ => {}
    }
    match last {
        "over" | "above" | "exceeding" | "exceeds" | "exceeded" => Bound::AtLeast,
        "under" | "below" => Bound::AtMost,
        "about" | "around" | "nearly" | "almost" | "approximately" | "roughly" | "some" | "circa" | "approx" | "estimated" => Bound::About,
        _ => Bound::Exact,
    }
}

/// How a claim's quantity relates to one stated in the evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Same unit, values agree at the claim's stated precision (and bound).
    Agrees,
    /// Same unit and anchor, values disagree.
    Conflicts,
    /// Same anchor and the same value, stated in another unit or currency ("3.4 million
    /// dollars" / "3.4 million euros"): an incompatible value.
    UnitMismatch,
    /// Not the same quantity (unit or anchor differs).
    Unrelated,
}

/// Compare a claim quantity with an evidence quantity.
pub fn relate(claim: &Quantity, ev: &Quantity) -> Relation {
    if claim.is_year != ev.is_year {
        return Relation::Unrelated;
    }
    if claim.unit != ev.unit {
        return unit_mismatch(claim, ev);
    }
    let rel = relate_values(claim, ev);
    // One end of a range says nothing alone: a value inside the other side's range agrees,
    // and a range end never conflicts.
    let inside = |v: f64, r: Option<(f64, f64)>| r.is_some_and(|(lo, hi)| lo <= v && v <= hi);
    let anchors_fit = match (&claim.anchor, &ev.anchor) {
        (Some(a), Some(b)) => anchors_match(a, b),
        _ => true,
    };
    if anchors_fit && (inside(claim.value, ev.range_of) || inside(ev.value, claim.range_of)) {
        return Relation::Agrees;
    }
    if rel == Relation::Conflicts && (claim.range_of.is_some() || ev.range_of.is_some()) {
        return Relation::Unrelated;
    }
    rel
}

/// Units differ. Both stated with a unit or currency (percent and percentage points aside:
/// DESIGN.md keeps them apart as different quantities, not different values), same anchor,
/// same value, neither a range end: the value was kept and its unit changed, which no
/// conversion explains, so the two are incompatible. Anything else is another quantity.
fn unit_mismatch(claim: &Quantity, ev: &Quantity) -> Relation {
    let measured = |u: &Unit| matches!(u, Unit::Currency(_) | Unit::Measure(_));
    if !measured(&claim.unit) || !measured(&ev.unit) || claim.range_of.is_some() || ev.range_of.is_some() {
        return Relation::Unrelated;
    }
    let same_anchor = match (&claim.anchor, &ev.anchor) {
        (Some(a), Some(b)) => anchors_match(a, b),
        (None, None) => true,
        _ => false,
    };
    let same_value = (claim.value - ev.value).abs() <= claim.step.max(f64::MIN_POSITIVE) * 1e-6 && claim.bound == ev.bound;
    if same_anchor && same_value { Relation::UnitMismatch } else { Relation::Unrelated }
}

fn relate_values(claim: &Quantity, ev: &Quantity) -> Relation {
    let same_anchor = match (&claim.anchor, &ev.anchor) {
        (Some(a), Some(b)) => anchors_match(a, b),
        (None, None) => claim.unit != Unit::Plain,
        _ => false,
    };
    if value_agrees(claim, ev) {
        // Equal values with different anchors ("17 seasons" / "17 players") are not the same fact,
        // but a bare equal value with a unit (a percentage, a sum) is.
        return if same_anchor || claim.anchor.is_none() || ev.anchor.is_none() { Relation::Agrees } else { Relation::Unrelated };
    }
    if same_anchor { Relation::Conflicts } else { Relation::Unrelated }
}

/// True when `ev`'s value satisfies the claim's value at the claim's stated precision and bound.
pub fn value_agrees(claim: &Quantity, ev: &Quantity) -> bool {
    // Round the evidence to the claim's step: 2,304,580 at a step of 100,000 is 2,300,000.
    let step = claim.step;
    let rounded = if step > 0.0 { (ev.value / step).round() * step } else { ev.value };
    let close = (rounded - claim.value).abs() <= step * 1e-6;
    match claim.bound {
        Bound::Exact => close,
        // An approximate claim tolerates 10% either way (and anything the evidence itself calls approximate at the same precision).
        Bound::About => close || (ev.value - claim.value).abs() <= claim.value.abs() * 0.1,
        Bound::AtLeast => ev.value > claim.value || (close && ev.bound == Bound::AtLeast),
        Bound::AtMost => ev.value < claim.value || (close && ev.bound == Bound::AtMost),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::words;
    use proptest::prelude::*;

    fn q(t: &str) -> Vec<Quantity> {
        quantities(t, &words(t))
    }

    fn one(t: &str) -> Quantity {
        let v = q(t);
        assert_eq!(v.len(), 1, "{t}: {v:?}");
        v.into_iter().next().expect("one")
    }

    #[test]
    fn reads_whole_numbers_only() {
        let v = q("He was born in 1986 and scored 86 points.");
        assert_eq!(v.len(), 2);
        assert!(v[0].is_year && v[0].value == 1986.0);
        assert_eq!(v[1].value, 86.0);
        assert_eq!(v[1].anchor.as_deref(), Some("point"));
        assert!(q("COVID-19 and CD177 and H1N1 and 5G").is_empty());
    }

    #[test]
    fn scale_and_precision() {
        let c = one("2.3 million people");
        assert_eq!(c.value, 2_300_000.0);
        let e = one("2,304,580 people");
        assert_eq!(e.value, 2_304_580.0);
        assert_eq!(relate(&c, &e), Relation::Agrees);
        let far = one("2,350,001 people");
        assert_eq!(relate(&c, &far), Relation::Conflicts);
        let exact = one("2,304,580 people");
        assert_eq!(relate(&exact, &c), Relation::Conflicts, "the claim's own precision rules");
    }

    #[test]
    fn percent_is_not_percentage_points() {
        let p = one("rose 5% last year");
        let pp = one("rose 5 percentage points");
        assert_eq!(p.unit, Unit::Percent);
        assert_eq!(pp.unit, Unit::PercentagePoint);
        assert_eq!(relate(&p, &pp), Relation::Unrelated);
        assert_eq!(relate(&p, &one("up 5 percent")), Relation::Agrees);
        assert_eq!(relate(&p, &one("up 5 per cent")), Relation::Agrees);
    }

    #[test]
    fn currency_and_bounds() {
        let c = one("costs $3.5bn");
        assert_eq!(c.unit, Unit::Currency("USD"));
        assert_eq!(c.value, 3.5e9);
        assert_eq!(relate(&c, &one("3.5 billion dollars")), Relation::Agrees);
        let more = one("more than 30 million people");
        assert_eq!(more.bound, Bound::AtLeast);
        assert!(value_agrees(&more, &one("nearly 108 million people")));
        assert!(!value_agrees(&more, &one("20 million people")));
    }

    #[test]
    fn ranges() {
        let v = q("between 75% and 90% of it, and 3–7 million people");
        assert_eq!(v.len(), 4);
        assert_eq!(v[0].range_of, Some((75.0, 90.0)));
        assert_eq!(v[2].unit, Unit::Plain);
        assert_eq!(v[2].value, 3e6);
        assert_eq!(relate(&one("about 80% of it"), &v[0]), Relation::Agrees);
        assert_eq!(relate(&one("95% of it"), &v[1]), Relation::Unrelated, "a range end never conflicts");
        assert_eq!(relate(&one("4 million people"), &v[3]), Relation::Agrees);
        assert_eq!(one("four of the warmest years").anchor, None);
        assert_eq!(one("twenty-five years").value, 25.0);
        assert_eq!(one("fell to -5%").value, -5.0);
        assert_eq!(relate(&one("fell to -5%"), &one("fell to 5%")), Relation::Conflicts, "the sign is part of the value");
    }

    #[test]
    fn anchors_separate_counts() {
        let a = one("18 patients");
        assert_eq!(relate(&a, &one("18 patients")), Relation::Agrees);
        assert_eq!(relate(&a, &one("20 patients")), Relation::Conflicts);
        assert_eq!(relate(&a, &one("20 doctors")), Relation::Unrelated);
        assert_eq!(relate(&one("three patients"), &one("3 patients")), Relation::Agrees);
    }

    #[test]
    fn the_subject_anchors_a_value_nothing_after_counts() {
        assert_eq!(one("The launch budget was $1.2 million, approved by the board").anchor.as_deref(), Some("launch budget"));
        assert_eq!(one("Revenue reached about 3 million euros.").anchor.as_deref(), Some("revenu"));
        assert_eq!(
            one("The human contribution to global warming was about 0.01°C.").anchor.as_deref(),
            Some("human global warm contribut")
        );
        assert!(anchors_match("launch budget", "budget"));
        assert!(!anchors_match("launch budget", "market budget"));
        // A noun after a comma is not what the number counts.
        assert_eq!(one("It cost $5 million, officials said").anchor.as_deref(), None);
        // Same anchor and value in another currency or unit: incompatible; percent and points stay apart.
        let c = one("The fee was 40 dollars.");
        assert_eq!(relate(&c, &one("The fee was 40 euros.")), Relation::UnitMismatch);
        assert_eq!(relate(&c, &one("The fee was 45 euros.")), Relation::Unrelated, "another value may be a conversion");
        assert_eq!(relate(&one("The trail is 12 km long"), &one("The trail is 12 miles long")), Relation::UnitMismatch);
        assert_eq!(relate(&one("rose 5% last year"), &one("rose 5 percentage points")), Relation::Unrelated);
        assert_eq!(relate(&one("40 dollars"), &one("40 patients")), Relation::Unrelated);
        // Unit words the verifier does not list itself come from the gate's unit lexicon.
        assert_eq!(one("a 40 gallon tank").unit, Unit::Measure("gal".into()));
    }

    proptest! {
        #[test]
        fn never_inside_a_longer_number(n in 1u32..100, prefix in 1u32..100) {
            let long = format!("{prefix}{n}");
            let t = format!("The value was {long} in total.");
            let v = q(&t);
            prop_assert_eq!(v.len(), 1);
            prop_assert_eq!(v[0].value, long.parse::<f64>().unwrap_or(0.0));
            prop_assert!(v.iter().all(|x| x.value != n as f64 || long == n.to_string()));
        }

        #[test]
        fn separators_do_not_change_value(n in 1000u64..1_000_000_000) {
            let plain = n.to_string();
            let mut grouped = String::new();
            for (i, c) in plain.chars().enumerate() {
                if i > 0 && (plain.len() - i) % 3 == 0 { grouped.push(','); }
                grouped.push(c);
            }
            let a = one(&format!("{plain} cases"));
            let b = one(&format!("{grouped} cases"));
            prop_assert_eq!(a.value, b.value);
            prop_assert_eq!(relate(&a, &b), Relation::Agrees);
        }

        #[test]
        fn scaled_claim_matches_at_its_precision(m in 1u64..999, tenth in 0u64..10, rest in 0u64..100_000) {
            let claim = one(&format!("{m}.{tenth} million people"));
            let exact = m * 1_000_000 + tenth * 100_000 + rest;
            // within the stated step (rounds to the claim) unless it crosses the half-way point
            let ev = one(&format!("{exact} people"));
            let agrees = rest < 50_000;
            prop_assert_eq!(relate(&claim, &ev) == Relation::Agrees, agrees, "{} vs {}", m, exact);
        }

        #[test]
        fn never_panics(s in ".{0,80}") {
            let _ = q(&s);
        }
    }
}
