//! Request rates (`"1/3s"`, `"5/s"`, `"1/200ms"`, `"30/min"`) and the
//! published default policy of each adapter.

use crate::config::AdapterKind;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;
use std::time::Duration;

/// `count` requests per `per`, spaced evenly: `"5/s"` is one request every
/// 200 ms, never a burst of five. Even spacing is the stricter reading of a
/// published limit, and it is what the loopback test measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Requests allowed per window.
    pub count: u32,
    /// The window.
    pub per: Duration,
}

impl Rate {
    /// The minimum gap between two requests.
    pub fn period(&self) -> Duration {
        self.per / self.count.max(1)
    }

    /// The governor quota: one cell per period, burst 1.
    pub fn quota(&self) -> governor::Quota {
        let period = self.period().max(Duration::from_micros(1));
        governor::Quota::with_period(period).expect("invariant: period is non-zero").allow_burst(NonZeroU32::MIN)
    }

    /// The default for an adapter, from each service's published policy.
    ///
    /// - arXiv: "make no more than one request every three seconds, and limit
    ///   requests to a single connection at a time" (arXiv API Terms of Use).
    /// - Wikipedia: no fixed read limit, but Wikimedia's API etiquette asks
    ///   for serial requests and a descriptive User-Agent; 3 per second,
    ///   one at a time, keeps well inside that.
    /// - generic http: 1 per second, the conservative crawler convention.
    pub fn default_for(adapter: AdapterKind) -> Rate {
        match adapter {
            AdapterKind::Arxiv => Rate { count: 1, per: Duration::from_secs(3) },
            AdapterKind::Wikipedia => Rate { count: 3, per: Duration::from_secs(1) },
            AdapterKind::Http => Rate { count: 1, per: Duration::from_secs(1) },
        }
    }

    /// The cap across all hosts of a run unless configured otherwise.
    pub const GLOBAL_DEFAULT: Rate = Rate { count: 10, per: Duration::from_secs(1) };
}

/// Why a string is not a rate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad rate {0:?}: write <count>/<window> such as \"1/3s\", \"5/s\", \"1/200ms\", \"30/min\" or \"1/day\" (units ms, s, min, h, day), between 1000/s and 1/day"
)]
pub struct RateError(pub String);

impl Rate {
    /// The longest gap between two requests a rate may ask for. Longer
    /// would stall a run for good (and the time arithmetic of the limiter
    /// overflows long before: `1/5000000000h` used to panic).
    pub const MAX_PERIOD: Duration = Duration::from_secs(24 * 3600);
    /// The shortest: faster than this is no limit at all for a web service.
    pub const MIN_PERIOD: Duration = Duration::from_millis(1);
}

impl FromStr for Rate {
    type Err = RateError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || RateError(s.to_string());
        let (n, w) = s.trim().split_once('/').ok_or_else(bad)?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 {
            return Err(bad());
        }
        let w = w.trim();
        let split = w.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
        let (num, unit) = w.split_at(split);
        let k: u64 = if num.is_empty() { 1 } else { num.parse().map_err(|_| bad())? };
        if k == 0 {
            return Err(bad());
        }
        let unit_ms: u64 = match unit {
            "ms" => 1,
            "s" | "sec" => 1_000,
            "m" | "min" => 60_000,
            "h" | "hour" => 3_600_000,
            // "1/day" is the slowest rate the error message names.
            "d" | "day" => 86_400_000,
            _ => return Err(bad()),
        };
        let per = Duration::from_millis(k.checked_mul(unit_ms).ok_or_else(bad)?);
        let rate = Rate { count, per };
        if !(Rate::MIN_PERIOD..=Rate::MAX_PERIOD).contains(&rate.period()) {
            return Err(bad());
        }
        Ok(rate)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.per.as_millis();
        let (n, unit) = if ms.is_multiple_of(3_600_000) {
            (ms / 3_600_000, "h")
        } else if ms.is_multiple_of(60_000) {
            (ms / 60_000, "min")
        } else if ms.is_multiple_of(1_000) {
            (ms / 1_000, "s")
        } else {
            (ms, "ms")
        };
        // "3/s", not "3/1s".
        if n == 1 { write!(f, "{}/{unit}", self.count) } else { write!(f, "{}/{n}{unit}", self.count) }
    }
}

impl Serialize for Rate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_written_forms() {
        assert_eq!("1/3s".parse::<Rate>().unwrap().period(), Duration::from_secs(3));
        assert_eq!("5/s".parse::<Rate>().unwrap().period(), Duration::from_millis(200));
        assert_eq!("1/200ms".parse::<Rate>().unwrap().period(), Duration::from_millis(200));
        assert_eq!("30/min".parse::<Rate>().unwrap().period(), Duration::from_secs(2));
        assert_eq!("2/1h".parse::<Rate>().unwrap().period(), Duration::from_secs(1800));
        for bad in ["", "5", "0/s", "1/0s", "x/s", "1/3", "1/3parsecs", "-1/s", "1/99999999999999999999h"] {
            assert!(bad.parse::<Rate>().is_err(), "{bad}");
        }
    }

    /// Issue 16, probe case "config rate": `1/5000000000h` panicked (exit
    /// 101); out-of-range rates are a clear error, and any string either
    /// parses to a rate whose quota and period are usable or is refused.
    #[test]
    fn r16_out_of_range_rates_are_errors_not_panics() {
        for bad in ["1/5000000000h", "1/25h", "1/90000s", "4294967295/1ms", "2000/1s", "1/2d", "1/2day"] {
            let e = bad.parse::<Rate>().unwrap_err();
            assert!(e.to_string().contains("between 1000/s and 1/day"), "{bad}: {e}");
        }
        for ok in ["1/24h", "1/1440min", "1000/s", "1/1ms", "1/day", "1/1d", "24/day", "1/hour"] {
            let r: Rate = ok.parse().unwrap();
            let _ = r.quota();
            assert!(std::time::Instant::now().checked_add(r.period()).is_some());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn any_rate_string_parses_to_a_usable_rate_or_an_error(s in "[0-9]{0,12}/[0-9]{0,12}(ms|s|sec|m|min|h|x)?") {
            if let Ok(r) = s.parse::<Rate>() {
                proptest::prop_assert!((Rate::MIN_PERIOD..=Rate::MAX_PERIOD).contains(&r.period()));
                let _ = r.quota();
            }
        }
    }

    #[test]
    fn display_round_trips() {
        for (s, shown) in
            [("1/3s", "1/3s"), ("5/1s", "5/s"), ("1/200ms", "1/200ms"), ("30/1min", "30/min"), ("2/1h", "2/h"), ("1/90s", "1/90s")]
        {
            let r: Rate = s.parse().unwrap();
            assert_eq!(r.to_string(), shown);
            assert_eq!(r.to_string().parse::<Rate>().unwrap(), r);
        }
    }

    #[test]
    fn arxiv_default_is_one_per_three_seconds() {
        assert_eq!(Rate::default_for(AdapterKind::Arxiv).period(), Duration::from_secs(3));
    }
}
