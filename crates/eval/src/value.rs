//! A small value matcher: the numbers (with their anchor) and dates a
//! sentence states, and whether a context states the same values, in
//! whatever written form.
//!
//! This is what "present in value" means in the [`crate::recall`] measure:
//! a gold sentence whose words were paraphrased still counts when every number
//! reappears with the same anchor (`40 %` = `40 percent`, `1.5 million t` =
//! `1,500,000 t`) and every date reappears at the precision it was written
//! (`1 March 2019` = `2019-03-01` = `March 1, 2019`). Tokens are whole: `86`
//! never matches inside `1986`.

use regex::Regex;
use std::sync::LazyLock;

/// One value stated in a text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    /// A number, canonical decimal form (`1500000`, `2.5`), with the word or
    /// unit after it, lowercased and singular (`percent`, `°c`, `ppm`, `tonne`).
    Number {
        /// Canonical decimal form.
        value: String,
        /// Unit or counted noun right after the number, if any.
        anchor: Option<String>,
    },
    /// A calendar date at the precision it was written.
    Date {
        /// Year.
        year: i32,
        /// Month 1–12, when written.
        month: Option<u8>,
        /// Day of month, when written.
        day: Option<u8>,
    },
}

const MONTHS: &str = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec";

static ISO: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?-u)\b(\d{4})-(\d{2})-(\d{2})\b").expect("invariant: valid regex"));
static DMY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i-u)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({MONTHS})\.?,?\s+(\d{{4}})\b")).expect("invariant: valid regex")
});
static MDY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i-u)\b({MONTHS})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")).expect("invariant: valid regex")
});
static MY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"(?i-u)\b({MONTHS})\.?,?\s+(\d{{4}})\b")).expect("invariant: valid regex"));
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?-u)\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?").expect("invariant: valid regex"));

/// Words after a number that are not its anchor.
const NOT_ANCHORS: &[&str] = &[
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "is", "of", "on", "or", "than", "that", "the", "to", "was", "were",
    "with", "which", "while", "and", "but", "are", "be", "has", "had", "have",
];
/// Units that make a four-digit number a quantity, not a year ("2000 km").
const UNITS: &[&str] = &[
    "km", "m", "mm", "cm", "kg", "g", "t", "tonne", "ton", "ppm", "ppb", "people", "foot", "ft", "mile", "metre", "meter", "year",
    "specie", "gt", "mw", "gw", "twh", "kwh", "°c", "°f", "percent", "degree", "mph", "kmh", "acre", "hectare", "ha", "dollar", "usd",
];

fn month_number(name: &str) -> Option<u8> {
    let n = name.to_ascii_lowercase();
    let m = match n.get(..3).unwrap_or(&n) {
        "jan" => 1,
        "feb" => 2,
        "mar" => 3,
        "apr" => 4,
        "may" => 5,
        "jun" => 6,
        "jul" => 7,
        "aug" => 8,
        "sep" => 9,
        "oct" => 10,
        "nov" => 11,
        "dec" => 12,
        _ => return None,
    };
    Some(m)
}

/// The values a text states, in text order (dates first claim their digits,
/// so the day and year of a date are not also read as numbers).
pub fn values(text: &str) -> Vec<Value> {
    let mut found: Vec<(usize, Value)> = Vec::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let free = |taken: &[(usize, usize)], s: usize, e: usize| taken.iter().all(|&(a, b)| e <= a || s >= b);
    for c in ISO.captures_iter(text) {
        let (Some(m0), Some(y), Some(mo), Some(d)) = (c.get(0), c.get(1), c.get(2), c.get(3)) else { continue };
        let (Ok(year), Ok(month), Ok(day)) = (y.as_str().parse(), mo.as_str().parse::<u8>(), d.as_str().parse::<u8>()) else { continue };
        if (1..=12).contains(&month) && (1..=31).contains(&day) {
            taken.push((m0.start(), m0.end()));
            found.push((m0.start(), Value::Date { year, month: Some(month), day: Some(day) }));
        }
    }
    for (re, day_at, month_at, year_at) in [(&*DMY, 1, 2, 3), (&*MDY, 2, 1, 3)] {
        for c in re.captures_iter(text) {
            let (Some(m0), Some(d), Some(mo), Some(y)) = (c.get(0), c.get(day_at), c.get(month_at), c.get(year_at)) else { continue };
            if !free(&taken, m0.start(), m0.end()) {
                continue;
            }
            let (Ok(day), Some(month), Ok(year)) = (d.as_str().parse::<u8>(), month_number(mo.as_str()), y.as_str().parse()) else {
                continue;
            };
            if (1..=31).contains(&day) {
                taken.push((m0.start(), m0.end()));
                found.push((m0.start(), Value::Date { year, month: Some(month), day: Some(day) }));
            }
        }
    }
    for c in MY.captures_iter(text) {
        let (Some(m0), Some(mo), Some(y)) = (c.get(0), c.get(1), c.get(2)) else { continue };
        // "may 2019" is too often the verb; only a capitalised "May" is the month.
        if !free(&taken, m0.start(), m0.end()) || mo.as_str() == "may" {
            continue;
        }
        let (Some(month), Ok(year)) = (month_number(mo.as_str()), y.as_str().parse()) else { continue };
        taken.push((m0.start(), m0.end()));
        found.push((m0.start(), Value::Date { year, month: Some(month), day: None }));
    }
    for m in NUMBER.find_iter(text) {
        if !free(&taken, m.start(), m.end()) {
            continue;
        }
        // Whole tokens only: not the tail of "CO2" or "A380", nor glued to
        // letters ("3rd"), except a unit ("10km") or a decade's "s" ("1990s").
        let before = text[..m.start()].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_') {
            continue;
        }
        let glued: String = text[m.end()..].chars().take_while(|c| c.is_alphabetic()).collect::<String>().to_lowercase();
        if !glued.is_empty() && glued != "s" && !UNITS.contains(&glued.as_str()) {
            continue;
        }
        let raw = m.as_str().replace(',', "");
        let Ok(mut v) = raw.parse::<f64>() else { continue };
        let rest = &text[m.end()..];
        let (scale, rest) = scale_word(rest);
        v *= scale;
        let anchor = anchor_of(rest);
        let is_plain_int = !m.as_str().contains([',', '.']) && m.as_str().len() == 4;
        if is_plain_int && scale == 1.0 && (1500.0..=2100.0).contains(&v) && anchor.as_deref().is_none_or(|a| !UNITS.contains(&a)) {
            // "1990s" is the decade; read it as its first year.
            found.push((m.start(), Value::Date { year: v as i32, month: None, day: None }));
            continue;
        }
        found.push((m.start(), Value::Number { value: canonical(v), anchor }));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    found.into_iter().map(|(_, v)| v).collect()
}

/// `million`, `billion` … right after a number.
fn scale_word(rest: &str) -> (f64, &str) {
    let t = rest.trim_start();
    for (w, s) in [("thousand", 1e3), ("million", 1e6), ("billion", 1e9), ("trillion", 1e12)] {
        if let (Some(head), Some(tail)) = (t.get(..w.len()), t.get(w.len()..))
            && head.eq_ignore_ascii_case(w)
            && !tail.starts_with(|c: char| c.is_alphabetic())
        {
            return (s, tail);
        }
    }
    (1.0, rest)
}

/// The unit or counted noun right after a number.
fn anchor_of(rest: &str) -> Option<String> {
    let t = rest.trim_start();
    if t.starts_with('%') {
        return Some("percent".into());
    }
    if let Some(deg) = t.strip_prefix('°') {
        let unit = deg.trim_start().chars().next().filter(|c| matches!(c, 'C' | 'F' | 'c' | 'f'));
        return Some(unit.map_or_else(|| "degree".to_string(), |u| format!("°{}", u.to_ascii_lowercase())));
    }
    let raw: &str = &t[..t.find(|c: char| !c.is_alphanumeric()).unwrap_or(t.len())];
    let word = raw.to_lowercase();
    if word.is_empty() || word.chars().next().is_some_and(|c| c.is_ascii_digit()) || NOT_ANCHORS.contains(&word.as_str()) {
        return None;
    }
    let word = match word.as_str() {
        "per" if t.get(..8).is_some_and(|h| h.eq_ignore_ascii_case("per cent")) => "percent".to_string(),
        "pc" | "pct" => "percent".to_string(),
        "degrees" | "degree" => {
            let after = t[raw.len()..].trim_start();
            let unit: String = after.chars().take_while(|c| c.is_alphabetic()).collect::<String>().to_lowercase();
            match unit.as_str() {
                "celsius" | "c" => "°c".to_string(),
                "fahrenheit" | "f" => "°f".to_string(),
                _ => "degree".to_string(),
            }
        }
        "metres" | "meters" => word.trim_end_matches('s').to_string(),
        "tonnes" | "tons" => word.trim_end_matches('s').to_string(),
        w if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") => w[..w.len() - 1].to_string(),
        w => w.to_string(),
    };
    Some(word)
}

fn canonical(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// True when `needle` (from the sentence) is stated by `have` (from the context).
fn matches(needle: &Value, have: &Value) -> bool {
    match (needle, have) {
        (Value::Number { value: a, anchor: aa }, Value::Number { value: b, anchor: ba }) => a == b && (aa.is_none() || aa == ba),
        (Value::Date { year: y1, month: m1, day: d1 }, Value::Date { year: y2, month: m2, day: d2 }) => {
            y1 == y2 && (m1.is_none() || m1 == m2) && (d1.is_none() || d1 == d2)
        }
        _ => false,
    }
}

/// Is every value of `sentence` stated in `context`? `None` when the sentence
/// states no value (the question does not apply).
pub fn present_in_value(sentence: &str, context: &str) -> Option<bool> {
    let need = values(sentence);
    if need.is_empty() {
        return None;
    }
    Some(all_stated(&need, &values(context)))
}

/// Is every value of `need` among `have` (see [`present_in_value`])?
pub fn all_stated(need: &[Value], have: &[Value]) -> bool {
    need.iter().all(|n| have.iter().any(|h| matches(n, h)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(v: &str, a: Option<&str>) -> Value {
        Value::Number { value: v.into(), anchor: a.map(Into::into) }
    }
    fn date(y: i32, m: Option<u8>, d: Option<u8>) -> Value {
        Value::Date { year: y, month: m, day: d }
    }

    #[test]
    fn numbers_with_anchors() {
        assert_eq!(values("Sea ice fell 40% and 3.5 million tonnes"), vec![num("40", Some("percent")), num("3500000", Some("tonne"))]);
        assert_eq!(values("It warmed by 1.5 °C (2.7 degrees Fahrenheit)"), vec![num("1.5", Some("°c")), num("2.7", Some("°f"))]);
        assert_eq!(values("1,200 people in 3 of them"), vec![num("1200", Some("people")), num("3", None)]);
        assert_eq!(values("40 per cent"), vec![num("40", Some("percent"))]);
    }

    #[test]
    fn dates_in_any_form() {
        let want = vec![date(2019, Some(3), Some(1))];
        assert_eq!(values("on 1 March 2019"), want);
        assert_eq!(values("on March 1st, 2019"), want);
        assert_eq!(values("on 2019-03-01"), want);
        assert_eq!(values("in Sept. 2020"), vec![date(2020, Some(9), None)]);
        assert_eq!(values("since 1979"), vec![date(1979, None, None)]);
        assert_eq!(values("in the 1990s"), vec![date(1990, None, None)]);
        assert_eq!(values("2000 km"), vec![num("2000", Some("km"))]);
        assert_eq!(values("we may 2019"), vec![date(2019, None, None)]);
    }

    #[test]
    fn whole_tokens_only() {
        assert!(values("CO2 and A380").is_empty());
        assert_eq!(present_in_value("86 people", "in 1986 people"), Some(false));
        assert_eq!(present_in_value("It rose 86 %", "a rise of 86 percent"), Some(true));
    }

    #[test]
    fn presence_by_value() {
        assert_eq!(present_in_value("Arctic ice fell 40% since 1979.", "Since 1979 the ice declined by 40 per cent."), Some(true));
        assert_eq!(present_in_value("Arctic ice fell 40% since 1979.", "Since 1979 the ice declined by 40 km."), Some(false));
        assert_eq!(present_in_value("It happened on 1 March 2019.", "In March 2019 it happened."), Some(false));
        assert_eq!(present_in_value("It happened in March 2019.", "It happened on 2019-03-01."), Some(true));
        assert_eq!(present_in_value("No values here.", "anything"), None);
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_read_without_panic(s in "(\\PC|[0-9.,%$ ]|May|million){0,80}") {
            let _ = values(&s);
            let _ = present_in_value(&s, &s);
        }
    }
}
