//! What "present in value" means in the [`crate::recall`] measure: the numbers
//! (with their anchor and unit) and dates a sentence states, and whether a
//! context states the same values in whatever written form.
//!
//! The values are read by the text layer's one value reader and one date
//! reader ([`amem_text::quantity`], [`amem_text::dates`]), the same readings
//! the verifier compares, and compared the way it compares them: a gold
//! sentence whose words were paraphrased still counts when every number
//! reappears with the same unit, or the same counted noun (`40 %` = `40 percent`, `1.5
//! million t` = `1,500,000 t`, `2.3 million` = `2,304,580` at its stated
//! precision) and every date reappears at the precision it was written (`1
//! March 2019` = `2019-03-01` = `March 1, 2019`). Numbers are read whole:
//! `86` never matches inside `1986`, and the `19` of `COVID-19` is a name.

use amem_text::dates::{self, Date, DateRelation};
use amem_text::quantity::{self, Quantity, Unit};

/// One value stated in a text.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number with its unit, anchor, bound and stated precision.
    Number(Quantity),
    /// A calendar date at the precision it was written.
    Date(Date),
}

/// The values a text states, in text order (a number inside a date, such as its day or
/// year, is the date's).
pub fn values(text: &str) -> Vec<Value> {
    let dates = dates::dates(text);
    let words = amem_text::words::words(text);
    let numbers = quantity::values_outside_dates(quantity::quantities(text, &words), &dates);
    // Figures written in digits: a spelled-out "two" or "three" is as often a figure of
    // speech as a value the sentence reports, and an ordinal ("the 20th century") is a rank.
    let digits = |q: &Quantity| !q.ordinal && text[q.range.clone()].chars().any(|c| c.is_ascii_digit());
    let mut found: Vec<(usize, Value)> = numbers.into_iter().filter(digits).map(|q| (q.range.start, Value::Number(q))).collect();
    found.extend(dates.into_iter().map(|d| (d.range.start, Value::Date(d))));
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, v)| v).collect()
}

/// True when `needle` (from the sentence) is stated by `have` (from the context).
fn matches(needle: &Value, have: &Value) -> bool {
    match (needle, have) {
        // Stated in value: the context's figure, written at the precision the sentence states
        // its own, is the sentence's figure ("2.3 million" is stated by "2,304,580"; any written
        // form: "1,500,000" = "1.5 million"), in the same unit, for the same noun when both name
        // one. A range in either text is not unpacked: a figure inside a range the context
        // states is consistent with it, not stated by it.
        (Value::Number(a), Value::Number(b)) => {
            // A stated unit is the figure's anchor ("1.5 °C" of warming or above pre-industrial
            // levels); a bare figure is anchored by the noun it counts.
            let anchors = match (&a.anchor, &b.anchor) {
                (Some(x), Some(y)) if a.unit == Unit::Plain => quantity::anchors_match(x, y),
                _ => true,
            };
            // The sentence's own bound says what it states: "about 30" is stated by 31, "more than
            // 30" by 108.
            a.unit == b.unit && anchors && quantity::value_agrees(a, b)
        }
        (Value::Date(a), Value::Date(b)) => dates::relate(a, b) == DateRelation::Agrees,
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

    fn present(s: &str, c: &str) -> Option<bool> {
        present_in_value(s, c)
    }

    #[test]
    fn numbers_with_units_and_anchors() {
        assert_eq!(present("Sea ice fell 40% and 3.5 million tonnes", "It lost 3,500,000 tonnes, 40 per cent of it"), Some(true));
        assert_eq!(present("It warmed by 1.5 °C", "a warming of 1.5 degrees Celsius"), Some(true));
        assert_eq!(present("It warmed by 1.5 °C", "a warming of 1.5 °F"), Some(false));
        assert_eq!(present("12,000 people came", "12000 people came"), Some(true));
        // four digits with no unit read as a year, in the sentence and in the context alike
        assert_eq!(present("1200 people came", "1200 people came"), Some(true));
        assert_eq!(present("2.3 million people", "2,304,580 people"), Some(true), "at the sentence's precision");
        // near misses: past the sentence's precision, and a figure the sentence states more precisely
        assert_eq!(present("2.3 million people", "2,354,580 people"), Some(false));
        assert_eq!(present("2,304,580 people", "2.3 million people"), Some(false));
    }

    #[test]
    fn dates_in_any_form() {
        for c in ["on 1 March 2019", "on March 1st, 2019", "on 2019-03-01"] {
            assert_eq!(present("It happened on 1 March 2019.", c), Some(true), "{c}");
        }
        assert_eq!(present("It happened in Sept. 2020.", "on 3 September 2020"), Some(true));
        assert_eq!(present("It happened on 1 March 2019.", "In March 2019 it happened."), Some(false));
        assert_eq!(present("since 1979", "from 1979 on"), Some(true));
        assert_eq!(present("2000 km", "a 2000 km road"), Some(true));
    }

    #[test]
    fn whole_tokens_only() {
        assert_eq!(values("CO2 and A380 and COVID-19"), vec![]);
        assert_eq!(present("86 people", "in 1986 people"), Some(false));
        assert_eq!(present("It rose 86 %", "a rise of 86 percent"), Some(true));
    }

    #[test]
    fn presence_by_value() {
        assert_eq!(present("Arctic ice fell 40% since 1979.", "Since 1979 the ice declined by 40 per cent."), Some(true));
        assert_eq!(present("Arctic ice fell 40% since 1979.", "Since 1979 the ice declined by 40 km."), Some(false));
        assert_eq!(present("It happened in March 2019.", "It happened on 2019-03-01."), Some(true));
        assert_eq!(present("No values here.", "anything"), None);
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_read_without_panic(s in "(\\PC|[0-9.,%$ ]|May|million){0,80}") {
            let _ = values(&s);
            let _ = present_in_value(&s, &s);
        }
    }
}
