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

use crate::lexicon::Lexicon;
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
    /// Written as an ordinal ("3rd", "20th century"): a rank, not a count.
    pub ordinal: bool,
}

/// One number as written, read once for every stage: its digits, sign, scale, and the unit or
/// currency written around it. The gate ([`crate::numbers`]), the verifier ([`quantities`]) and
/// the evaluation's presence measure all read numbers through [`read_numbers`].
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// Byte range of the digit run.
    pub digits: Range<usize>,
    /// Byte range of the whole expression: currency before, scale, unit or ordinal suffix after.
    pub range: Range<usize>,
    /// Value of the digits alone (no sign, no scale).
    pub unsigned: f64,
    /// A minus sign stands right before the number ("fell to -5%", "(−3.2)").
    pub negative: bool,
    /// Digits after the decimal point.
    pub decimals: i32,
    /// Written with thousands separators ("2,304,580").
    pub grouped: bool,
    /// The scale word's factor (1 when none): "110M", "4.2bn", "$3k", "7B-parameter", "2.3 million".
    pub scale: f64,
    /// Canonical unit or currency (`USD`, `PERCENT`, `PP`, `CELSIUS`, `KM`, ...): `lexicons/units.txt`.
    pub unit: Option<&'static str>,
    /// Byte range of the unit as written (sign, code or word), when stated.
    pub unit_text: Option<Range<usize>>,
    /// Letters before it make it part of a name ("COVID-19", "CD177", "B.1"), or it is a later
    /// part of a dotted number ("1.2.3").
    pub in_name: bool,
    /// Letters glued after it that are neither scale, unit nor ordinal ("5G", "10x", "3D").
    pub name_suffix: bool,
    /// Part of a slash form ("05/01/2024", "3/4").
    pub slashed: bool,
    /// Written with an ordinal suffix ("22nd", "3rd"): a rank.
    pub ordinal: bool,
}

impl Reading {
    /// The value: sign and scale applied ("-2.3 million" = -2 300 000).
    pub fn value(&self) -> f64 {
        let v = self.unsigned * self.scale;
        if self.negative { -v } else { v }
    }

    /// Four digits, no separator, point, scale or unit: the form of a year.
    pub fn year_form(&self) -> bool {
        self.digits.len() == 4 && self.decimals == 0 && !self.grouped && self.scale == 1.0 && self.unit.is_none()
    }
}

/// Canonical codes of `lexicons/units.txt` that are currencies.
const CURRENCIES: &[&str] = &["USD", "EUR", "GBP", "JPY", "INR", "CHF", "CNY"];

/// Currency signs written before a number.
const CURRENCY_SIGNS: &[(char, &str)] = &[('$', "USD"), ('€', "EUR"), ('£', "GBP"), ('¥', "JPY"), ('₹', "INR")];

/// Currency codes written as a word before a number ("USD 5", "EUR 3.1 million", "Rs. 500").
static CURRENCY_CODES_BEFORE: crate::stopwords::WordPairs = crate::stopwords::WordPairs::new(crate::text_words::CURRENCY_CODES_BEFORE);

/// Look a word up in a lexicon map keyed by lower-case forms, without allocating for the usual
/// short ASCII word (this runs for every number the gate reads).
fn lookup<'m, V>(map: &'m std::collections::HashMap<String, V>, w: &str) -> Option<&'m V> {
    // the longest unit form is "degrees centigrade" (18 bytes)
    if w.len() > 24 {
        return None;
    }
    let mut buf = [0u8; 32];
    if w.is_ascii() {
        let b = &mut buf[..w.len()];
        b.copy_from_slice(w.as_bytes());
        b.make_ascii_lowercase();
        std::str::from_utf8(b).ok().and_then(|k| map.get(k))
    } else {
        map.get(&w.to_lowercase())
    }
}

/// The word (letters only) starting at byte `i`, and its end.
fn word_at(text: &str, i: usize) -> Option<(&str, usize)> {
    let rest = text.get(i..)?;
    // ASCII letters by byte (the usual word); any other letter by char.
    let ascii = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
    let len = if rest.as_bytes().get(ascii).is_none_or(u8::is_ascii) {
        ascii
    } else {
        ascii + rest[ascii..].chars().take_while(|c| c.is_alphabetic()).map(char::len_utf8).sum::<usize>()
    };
    if len == 0 { None } else { Some((&rest[..len], i + len)) }
}

fn skip_spaces(text: &str, mut i: usize) -> usize {
    let b = text.as_bytes();
    loop {
        match b.get(i) {
            Some(b' ' | b'\t') => i += 1,
            Some(0xC2) if b.get(i + 1) == Some(&0xA0) => i += 2,
            _ => return i,
        }
    }
}

/// The end of `text[..end]` with spaces (and no-break spaces) trimmed off.
fn trim_spaces_back(text: &str, mut end: usize) -> usize {
    let b = text.as_bytes();
    loop {
        if end > 0 && b[end - 1] == b' ' {
            end -= 1;
        } else if end > 1 && b[end - 2] == 0xC2 && b[end - 1] == 0xA0 {
            end -= 2;
        } else {
            return end;
        }
    }
}

/// Can `w` be a scale word? Its first letter starts one of `lexicons/scales.txt` (a bit set
/// built once), so most words after a number skip the hash look-up.
fn may_start_scale(lex: &'static Lexicon, w: &str) -> bool {
    static INITIALS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let bit = |c: u8| c.is_ascii_alphabetic().then(|| 1u32 << (c.to_ascii_lowercase() - b'a'));
    let mask = *INITIALS.get_or_init(|| lex.scales.keys().filter_map(|k| k.bytes().next().and_then(bit)).fold(0, |m, b| m | b));
    w.bytes().next().and_then(bit).is_some_and(|b| mask & b != 0)
}

/// The currency written before the number at `start` ("$", "US$", "USD ", "€"): its code and
/// where it starts.
fn currency_before(text: &str, start: usize) -> Option<(&'static str, usize)> {
    let before = &text[..trim_spaces_back(text, start)];
    // Every sign and code ends in a letter, a period, '$' or a multi-byte sign.
    let last = *before.as_bytes().last()?;
    if !(last.is_ascii_alphabetic() || last == b'.' || last == b'$' || last >= 0x80) {
        return None;
    }
    let c = before.chars().next_back()?;
    if let Some((_, code)) = CURRENCY_SIGNS.iter().find(|(s, _)| *s == c) {
        let at = before.len() - c.len_utf8();
        // "US$5", "A$5", "C$5": the country letters are part of the sign
        let letters: usize = before[..at].chars().rev().take_while(char::is_ascii_uppercase).map(char::len_utf8).sum();
        let at = if (1..=2).contains(&letters) && !crate::lexicon::is_word_char_before(text, at - letters) { at - letters } else { at };
        return Some((code, at));
    }
    let word = before.strip_suffix('.').unwrap_or(before);
    let len: usize = word.chars().rev().take_while(char::is_ascii_alphabetic).map(char::len_utf8).sum();
    if !(2..=3).contains(&len) || crate::lexicon::is_word_char_before(text, word.len() - len) {
        return None;
    }
    let w = &word[word.len() - len..];
    CURRENCY_CODES_BEFORE.iter().find(|(c, _)| c.eq_ignore_ascii_case(w)).map(|(_, code)| (*code, word.len() - len))
}

/// Letters before the digits at `start` make them part of a name: "COVID-19", "CD177",
/// "B.1.1.7", "H1N1"; a number after "<digit>." is a later part of a dotted number.
fn in_name(text: &str, start: usize) -> bool {
    let mut rev = text[..start].chars().rev();
    match rev.next() {
        Some(c) if c.is_alphabetic() => true,
        Some('-') => rev.next().is_some_and(char::is_alphabetic),
        Some('.') => rev.next().is_some_and(|c| c.is_alphanumeric()),
        _ => false,
    }
}

/// A scale letter glued to a number: lower-case "5k", "2m", "3b" and the upper-case "110M",
/// "7B"; an upper-case "K" only after a currency ("$3K"), else it names a thing ("4K").
fn glued_scale(glued: &str, lex: &'static Lexicon, currency: bool) -> Option<f64> {
    let m = *lookup(&lex.scales, glued)?;
    let single_upper = glued.len() == 1 && glued.chars().all(|c| c.is_ascii_uppercase());
    (!single_upper || glued != "K" || currency).then_some(m)
}

/// Every number written in `text`, left to right, with its scale and unit. A number is read
/// whole: the reader starts at the first digit of a run and takes the run, so "86" is never
/// found inside "1986" or "2,086".
pub fn read_numbers(text: &str) -> Vec<Reading> {
    let mut out = Vec::new();
    each_number(text, |r| out.push(r));
    out
}

/// [`read_numbers`], handing each reading to `f` as it is read (the gate's path: no list of
/// readings is built).
pub fn each_number(text: &str, mut f: impl FnMut(Reading)) {
    let lex = Lexicon::get();
    let b = text.as_bytes();
    let mut i = 0usize;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        // The whole run: digits, thousands separators between groups of three, one decimal point.
        let start = i;
        let mut j = i;
        let (mut point, mut grouped) = (false, false);
        while j < b.len() {
            let c = b[j];
            let separator = c == b','
                && b.get(j + 1..j + 4).is_some_and(|g| g.iter().all(u8::is_ascii_digit))
                && !b.get(j + 4).is_some_and(u8::is_ascii_digit);
            if c.is_ascii_digit() {
                j += 1;
            } else if separator && j > start {
                grouped = true;
                j += 1;
            } else if c == b'.' && !point && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
                point = true;
                j += 1;
            } else {
                break;
            }
        }
        i = j;
        let digits = &text[start..j];
        // Most numbers have no separator: parse them in place.
        let parsed = if grouped { digits.replace(',', "").parse::<f64>() } else { digits.parse::<f64>() };
        let Ok(unsigned) = parsed else { continue };
        let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len() as i32);
        let mut before = text[..start].chars().rev();
        let negative = matches!(before.next(), Some('-' | '−')) && before.next().is_none_or(|c| c.is_whitespace() || c == '(');
        let slashed = (b.get(j) == Some(&b'/') && b.get(j + 1).is_some_and(u8::is_ascii_digit)) || (start > 0 && b[start - 1] == b'/');
        let currency = currency_before(text, start);
        let mut r = Reading {
            digits: start..j,
            range: currency.map_or(start, |(_, at)| at)..j,
            unsigned,
            negative,
            decimals,
            grouped,
            scale: 1.0,
            unit: currency.map(|(c, _)| c),
            unit_text: currency.map(|(_, at)| at..trim_spaces_back(text, start)),
            in_name: in_name(text, start),
            name_suffix: false,
            slashed,
            ordinal: false,
        };
        let mut end = j;
        // Letters glued to the number: a scale ("4.2bn", "110M"), a unit ("10km", "20C") or an
        // ordinal ("22nd", "1990s"); anything else makes it a name ("5G", "10x").
        if let Some((glued, gend)) = word_at(text, j) {
            let lower_single_upper = glued.len() == 1 && glued.chars().all(|c| c.is_ascii_uppercase());
            if let Some(m) = glued_scale(glued, lex, currency.is_some()) {
                r.scale = m;
                end = gend;
            } else if let Some(u) = lookup(&lex.units, glued).filter(|_| !lower_single_upper || matches!(glued, "C" | "F" | "L")) {
                r.unit = Some(u.as_str());
                r.unit_text = Some(j..gend);
                end = gend;
            } else if ["st", "nd", "rd", "th", "s"].iter().any(|o| o.eq_ignore_ascii_case(glued)) {
                r.ordinal = glued.len() == 2;
                end = gend;
            } else {
                r.name_suffix = true;
                end = gend;
            }
        }
        if !r.name_suffix {
            end = read_after(text, lex, &mut r, end, currency.is_some());
        }
        r.range.end = end;
        i = i.max(end);
        f(r);
    }
}

/// The scale and unit words after a number (and its glued letters) ending at `end`; returns
/// the end of the expression.
fn read_after(text: &str, lex: &'static Lexicon, r: &mut Reading, mut end: usize, currency: bool) -> usize {
    let b = text.as_bytes();
    // A scale word spaced away: "2.3 million", "5 hundred"; a bare letter ("5 m" may be metres)
    // only right after a currency ("$5 m").
    if r.scale == 1.0 && r.unit_text.as_ref().is_none_or(|u| u.end <= r.digits.start) {
        let k = skip_spaces(text, end);
        if let Some((w, wend)) = word_at(text, k)
            && may_start_scale(lex, w)
            && let Some(m) = lookup(&lex.scales, w)
            && (w.len() > 1 || currency)
        {
            r.scale = *m;
            end = wend;
        }
    }
    if r.unit_text.as_ref().is_some_and(|u| u.start >= r.digits.end) {
        return end;
    }
    let k = skip_spaces(text, end);
    match text.as_bytes().get(k) {
        Some(c) if c.is_ascii_alphabetic() => {}
        Some(b'%') => {
            r.unit = Some("PERCENT");
            r.unit_text = Some(k..k + 1);
            return k + 1;
        }
        _ => {}
    }
    match text[k..].chars().next() {
        Some('%') => {
            r.unit = Some("PERCENT");
            r.unit_text = Some(k..k + 1);
            // "5% points" is still percent; "5 percentage points" is read below
            return k + 1;
        }
        Some('°') => {
            // "20 °C", "20°C", "20° F", and a bare "40°" (an angle, or a scale left unnamed)
            let after = skip_spaces(text, k + '°'.len_utf8());
            let (unit, uend) = match word_at(text, after) {
                Some((w, e)) if w.eq_ignore_ascii_case("c") || w.eq_ignore_ascii_case("celsius") => ("CELSIUS", e),
                Some((w, e)) if w.eq_ignore_ascii_case("f") || w.eq_ignore_ascii_case("fahrenheit") => ("FAHRENHEIT", e),
                _ => ("DEGREE", k + '°'.len_utf8()),
            };
            r.unit = Some(unit);
            r.unit_text = Some(k..uend);
            return uend;
        }
        _ => {}
    }
    // A unit word: two words joined by one space first ("percentage points", "degrees
    // Celsius"), glued by a hyphen too ("7B-parameter" has none; "5-day" reads "day").
    let k = if b.get(end) == Some(&b'-') && word_at(text, end + 1).is_some() { end + 1 } else { k };
    let Some((w1, e1)) = word_at(text, k) else { return end };
    let two =
        word_at(text, e1 + 1).filter(|_| b.get(e1) == Some(&b' ')).and_then(|(_, e2)| lookup(&lex.units, &text[k..e2]).map(|u| (u, e2)));
    if let Some((u, e2)) = two {
        r.unit = Some(u.as_str());
        r.unit_text = Some(k..e2);
        return e2;
    }
    if r.unit.is_none()
        && let Some(u) = lookup(&lex.units, w1)
    {
        // a single capital letter spaced away is a unit only for temperatures ("20 C"); "5 G" is not grams
        let single_upper = w1.len() == 1 && w1.chars().all(|c| c.is_ascii_uppercase());
        if !single_upper || matches!(w1, "C" | "F") {
            r.unit = Some(u.as_str());
            r.unit_text = Some(k..e1);
            return e1;
        }
    }
    end
}

/// The units of a hyphenated spelled number ("twenty-one" … "ninety-nine").
static NUMBER_WORD_UNITS: crate::stopwords::WordList = crate::stopwords::WordList::new(crate::text_words::NUMBER_WORD_UNITS);

/// Words between a number and the noun it counts that do not change what is counted.
static ANCHOR_SKIP: crate::stopwords::WordList = crate::stopwords::WordList::new(crate::text_words::ANCHOR_SKIP);

/// All quantities in `text`: the numbers of [`read_numbers`] that state a value (not a name
/// such as "COVID-19" or "5G", not part of a slash date), with their anchor, bound, stated
/// precision and range, and the spelled-out numbers ("three patients", "twenty-five years").
/// `words` must be [`crate::words::words`] of the same text.
pub fn quantities(text: &str, words: &[Word]) -> Vec<Quantity> {
    let mut out: Vec<Quantity> =
        read_numbers(text).iter().filter(|r| !r.in_name && !r.name_suffix && !r.slashed).map(|r| build(text, words, r)).collect();
    // Spelled-out numbers ("three patients", "two million", "twenty-five years").
    let mut skip_next = false;
    for (wi, w) in words.iter().enumerate() {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        let Some(v) = crate::spelled::value(&w.lower) else { continue };
        // "hundred"/"dozen" after a digit number are scale words of that number, already read.
        if wi > 0 && words[wi - 1].lower.chars().all(|c| c.is_ascii_digit()) && w.range.start <= words[wi - 1].range.end + 1 {
            continue;
        }
        let mut value = v;
        let mut end = w.range.end;
        let hyphen_unit = words.get(wi + 1).filter(|n| n.range.start == w.range.end + 1 && text[w.range.end..].starts_with('-'));
        if let Some(u) =
            hyphen_unit.and_then(|n| NUMBER_WORD_UNITS.iter().position(|u| *u == n.lower)).filter(|_| (20.0..100.0).contains(&v))
        {
            value += (u + 1) as f64;
            end = words[wi + 1].range.end;
            skip_next = true;
        }
        let reading = Reading {
            digits: w.range.start..end,
            range: w.range.start..end,
            unsigned: value,
            negative: false,
            decimals: 0,
            grouped: false,
            scale: 1.0,
            unit: None,
            unit_text: None,
            in_name: false,
            name_suffix: false,
            slashed: false,
            ordinal: false,
        };
        let mut r = reading;
        let after = read_after(text, Lexicon::get(), &mut r, end, false);
        r.range.end = after;
        let mut q = build(text, words, &r);
        q.is_year = false;
        out.push(q);
    }
    out.sort_by_key(|q| q.range.start);
    link_ranges(text, &mut out);
    out
}

/// The verifier's unit class of a canonical unit.
fn unit_of(canon: Option<&'static str>) -> Unit {
    match canon {
        None => Unit::Plain,
        Some("PERCENT") => Unit::Percent,
        Some("PP") => Unit::PercentagePoint,
        Some(c) => match CURRENCIES.iter().find(|code| **code == c) {
            Some(code) => Unit::Currency(code),
            None => Unit::Measure(c.to_lowercase()),
        },
    }
}

fn build(text: &str, words: &[Word], r: &Reading) -> Quantity {
    let start = r.digits.start;
    let range_end = r.range.end;
    let unit = unit_of(r.unit);
    // The words after the number and its unit words.
    let after: Vec<&Word> = words.iter().filter(|w| w.range.start >= range_end).take(6).collect();
    // The anchor: the first content word after the number and its unit words, within the same
    // clause ("$1.2 million, approved by the board" does not count approvals).
    let mut anchor = None;
    // "four of the warmest years": a part of a set, not a count of the next word.
    let part_of_set = after.first().is_some_and(|w| w.lower == "of") && after.get(1).is_some_and(|w| w.lower == "the");
    let mut prev_end = range_end;
    for w in after.iter().take(3) {
        let gap = text.get(prev_end..w.range.start).unwrap_or("");
        prev_end = w.range.end;
        if gap.contains([',', ';', ':', '.', '!', '?', '(', ')']) {
            break;
        }
        if ANCHOR_SKIP.contains(&w.lower.as_str()) && after.iter().take(3).any(|o| !o.stop && !ANCHOR_SKIP.contains(&o.lower.as_str())) {
            continue;
        }
        if w.stop || w.lower.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        anchor = Some(stem(&w.lower));
        break;
    }
    let is_year = r.year_form() && (1000.0..=2100.0).contains(&r.unsigned);
    // Dividing the scale (an exact power of ten or 12) keeps the step exact: 1e6 / 10 = 100 000.
    let step = r.scale / 10f64.powi(r.decimals);
    if part_of_set {
        anchor = None;
    } else if anchor.is_none() {
        anchor = subject_anchor(text, words, r.range.start.min(start));
    }
    Quantity {
        range: r.range.clone(),
        value: r.value(),
        step,
        unit,
        anchor,
        bound: bound_before(text, r.range.start.min(start)),
        is_year,
        scale: r.scale,
        range_of: None,
        ordinal: r.ordinal,
    }
}

/// Quantities that are not part of a date, and not bare years (the date reader reads those).
pub fn values_outside_dates(q: Vec<Quantity>, dates: &[crate::dates::Date]) -> Vec<Quantity> {
    q.into_iter().filter(|q| !q.is_year && !dates.iter().any(|d| d.range.start < q.range.end && q.range.start < d.range.end)).collect()
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

/// Verbs that link a subject to the value it has ("the budget was $1.2 million",
/// "revenue reached 3 million", "a budget of $2 million").
static LINKS: crate::stopwords::WordList = crate::stopwords::WordList::new(crate::text_words::LINKS);

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
/// docs/architecture.md, "Verification", keeps them apart as different quantities, not different values), same anchor,
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
    // An approximate evidence figure ("about 3 million") states the claim's value when the claim,
    // rounded to the evidence's own precision, is that figure.
    let ev_states =
        ev.bound == Bound::About && ev.step > 0.0 && ((claim.value / ev.step).round() * ev.step - ev.value).abs() <= ev.step * 1e-6;
    match claim.bound {
        Bound::Exact => close || ev_states,
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

    #[test]
    fn scale_abbreviations() {
        assert_eq!(one("It has 110M users").value, 110e6);
        assert_eq!(one("revenue of 4.2bn").value, 4.2e9);
        let k = one("it cost $3k");
        assert_eq!((k.value, &k.unit), (3000.0, &Unit::Currency("USD")));
        assert_eq!(one("it cost $3K").value, 3000.0);
        let b = one("a 7B-parameter model");
        assert_eq!(b.value, 7e9);
        assert_eq!(relate(&b, &one("a model with 7 billion parameters")), Relation::Agrees);
        assert_eq!(relate(&b, &one("a model with 13 billion parameters")), Relation::Conflicts);
        // near misses: one capital letter names a thing ("5G", "4K", "3D"), and "m" spaced away may be metres
        assert!(q("5G and 4K video in 3D").is_empty());
        assert_eq!(one("ran 5 m").value, 5.0);
    }

    #[test]
    fn currencies_before_and_after() {
        let c = one("It raised €3.1 million.");
        assert_eq!((c.value, &c.unit), (3.1e6, &Unit::Currency("EUR")));
        assert_eq!(relate(&c, &one("It raised 3.1 million euros.")), Relation::Agrees);
        assert_eq!(relate(&one("It costs USD 5"), &one("It costs 5 dollars")), Relation::Agrees);
        assert_eq!(relate(&one("It costs USD 5"), &one("It costs $5")), Relation::Agrees);
        assert_eq!(one("a fee of US$ 40").unit, Unit::Currency("USD"));
        // near misses: another currency at the same value is a unit change, a code glued to a word is not a currency
        assert_eq!(relate(&one("It raised €3.1 million."), &one("It raised $3.1 million.")), Relation::UnitMismatch);
        assert_eq!(one("the BUSD 5 pool").unit, Unit::Plain);
    }

    #[test]
    fn unit_aliases_and_spellings() {
        let c = one("It was 20 °C outside.");
        assert_eq!(c.unit, Unit::Measure("celsius".into()));
        for f in [
            "It was 20 degrees Celsius outside.",
            "It was 20C outside.",
            "It was 20 C outside.",
            "It was 20°C outside.",
            "It was 20 degrees C.",
        ] {
            assert_eq!(relate(&c, &one(f)), Relation::Agrees, "{f}");
        }
        assert_eq!(relate(&one("a 5 metres wall"), &one("a 5 meters wall")), Relation::Agrees);
        assert_eq!(relate(&one("a 12 km trail"), &one("a 12 kilometres trail")), Relation::Agrees);
        // near misses: Fahrenheit is another scale; a bare degree is not Celsius; percent is not points
        assert_eq!(relate(&c, &one("It was 20 °F outside.")), Relation::UnitMismatch);
        assert_ne!(relate(&c, &one("turned 20 degrees")), Relation::Agrees);
        assert_eq!(relate(&one("rose 5%"), &one("rose 5 pp")), Relation::Unrelated);
    }

    #[test]
    fn ranges_and_approximate_markers() {
        let v = q("It takes 3–5 days.");
        assert_eq!(v[0].range_of, Some((3.0, 5.0)));
        assert_eq!(v[0].unit, Unit::Measure("day".into()));
        assert_eq!(relate(&one("It takes 4 days."), &v[1]), Relation::Agrees);
        let between = q("It takes between 3 and 5 days.");
        assert_eq!(relate(&one("It takes 4 days."), &between[1]), Relation::Agrees);
        let from = q("rates from 10 to 20%");
        assert_eq!(from[0].unit, Unit::Percent);
        assert_eq!(relate(&one("rates of 15%"), &from[0]), Relation::Agrees);
        // near miss: outside the range is no agreement (and a range end never conflicts)
        assert_ne!(relate(&one("It takes 9 days."), &v[1]), Relation::Agrees);
        for marker in ["about", "roughly", "nearly", "approximately", "some", "~"] {
            let claim = one(&format!("{marker} 100 people came"));
            assert_eq!(claim.bound, Bound::About, "{marker}");
            assert_eq!(relate(&claim, &one("108 people came")), Relation::Agrees, "{marker}");
            assert_eq!(relate(&claim, &one("150 people came")), Relation::Conflicts, "{marker}");
        }
        // an exact claim is stated by an approximate figure at that figure's precision, and conflicts beyond
        assert_eq!(relate(&one("3.1 million people live there"), &one("about 3 million people live there")), Relation::Agrees);
        assert_eq!(relate(&one("4.1 million people live there"), &one("about 3 million people live there")), Relation::Conflicts);
        // near miss: the exact claim is not widened by its own exactness
        assert_eq!(relate(&one("108 people came"), &one("100 people came")), Relation::Conflicts);
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

        #[test]
        fn the_gate_and_the_verifier_read_the_same_numbers(s in "([0-9]{1,5}|[$€]|,|\\.|%|°C|M|bn|k| |million|km|COVID-|dollars|-|/){0,12}") {
            // Every number the verifier reads (digits, not a slash date) the gate reads too, with the
            // same value; a range's first end alone takes the second's scale ("2–3 million"), in the verifier only.
            let gate = crate::numbers::scan_numbers(crate::lexicon::Lexicon::get(), &s);
            let read = q(&s);
            for v in read.iter().filter(|v| v.range_of.is_none() && s[v.range.clone()].chars().any(|c| c.is_ascii_digit())) {
                prop_assert!(gate.iter().any(|n| n.start == v.range.start && (n.value - v.value).abs() <= 1e-9 * v.value.abs().max(1.0)), "{s:?}: {v:?} / {gate:?}");
            }
        }
    }
}
