//! `--since` / `--until` parsing and the time window importers filter on.
//!
//! Accepted forms: `last-week` (7 days before now), `yesterday` and `today`
//! (midnight UTC starting that day), `<n>h`, `<n>d`, `<n>w` (that long
//! before now), an ISO date `2024-05-01`, and RFC 3339 `2024-05-01T10:00:00Z`.
//! As an `--until` bound a bare date (and `yesterday`/`today`) means the
//! *end* of that day, so `--since 2024-05-01 --until 2024-05-01` is that day.

use jiff::{Timestamp, ToSpan, civil::Date, tz::TimeZone};

/// A half-open window `[since, until)` in UTC. Either bound may be open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeWindow {
    /// Inclusive lower bound.
    pub since: Option<Timestamp>,
    /// Exclusive upper bound.
    pub until: Option<Timestamp>,
}

impl TimeWindow {
    /// True when `t` falls inside the window.
    pub fn contains(&self, t: Timestamp) -> bool {
        self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u)
    }

    /// Parse both bounds against `now`.
    ///
    /// # Errors
    /// A bound that is none of the accepted forms, or `since` after `until`.
    pub fn parse(since: Option<&str>, until: Option<&str>, now: Timestamp) -> Result<Self, TimeError> {
        let since = since.map(|s| parse_instant(s, now, false)).transpose()?;
        let until = until.map(|s| parse_instant(s, now, true)).transpose()?;
        if let (Some(s), Some(u)) = (since, until)
            && s >= u
        {
            return Err(TimeError::Empty { since: s.to_string(), until: u.to_string() });
        }
        Ok(TimeWindow { since, until })
    }
}

/// Why a time bound could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// Not one of the accepted forms.
    #[error(
        "cannot read {0:?} as a time: use last-week, yesterday, today, 7d, 48h, 2w, an ISO date (2024-05-01) or RFC 3339 (2024-05-01T10:00:00Z)"
    )]
    Unrecognised(String),
    /// The window is empty.
    #[error("the time window is empty: since {since} is not before until {until}")]
    Empty {
        /// Lower bound.
        since: String,
        /// Upper bound.
        until: String,
    },
}

/// Parse one bound. `end_of_day` makes day-granular forms mean the end of
/// that day (for `--until`).
///
/// # Errors
/// [`TimeError::Unrecognised`] for anything else.
pub fn parse_instant(s: &str, now: Timestamp, end_of_day: bool) -> Result<Timestamp, TimeError> {
    let bad = || TimeError::Unrecognised(s.to_string());
    let t = s.trim();
    let today = TimeZone::UTC.to_datetime(now).date();
    let day_start = |d: Date| -> Result<Timestamp, TimeError> {
        let d = if end_of_day { d.checked_add(1.day()).map_err(|_| bad())? } else { d };
        TimeZone::UTC.to_timestamp(d.to_datetime(jiff::civil::Time::midnight())).map_err(|_| bad())
    };
    match t {
        "last-week" | "last_week" | "lastweek" => return sub_hours(now, 7 * 24).ok_or_else(bad),
        "today" => return day_start(today),
        "yesterday" => return day_start(today.checked_sub(1.day()).map_err(|_| bad())?),
        _ => {}
    }
    if let Some(unit) = t.chars().last().filter(|c| matches!(c, 'h' | 'd' | 'w')) {
        let n = &t[..t.len() - 1];
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            let n: i64 = n.parse().map_err(|_| bad())?;
            let hours = match unit {
                'h' => n,
                'd' => n.checked_mul(24).ok_or_else(bad)?,
                _ => n.checked_mul(24 * 7).ok_or_else(bad)?,
            };
            return sub_hours(now, hours).ok_or_else(bad);
        }
    }
    if let Ok(ts) = t.parse::<Timestamp>() {
        return Ok(ts);
    }
    if let Ok(d) = t.parse::<Date>() {
        return day_start(d);
    }
    Err(bad())
}

fn sub_hours(now: Timestamp, hours: i64) -> Option<Timestamp> {
    // Cap at ~100 years so `999999999d` is an error, not an overflow panic.
    if hours > 24 * 366 * 100 {
        return None;
    }
    now.checked_sub(hours.hours()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        "2026-11-29T15:00:00Z".parse().unwrap()
    }

    #[test]
    fn relative_forms() {
        let p = |s| parse_instant(s, now(), false).unwrap().to_string();
        assert_eq!(p("last-week"), "2026-11-22T15:00:00Z");
        assert_eq!(p("7d"), "2026-11-22T15:00:00Z");
        assert_eq!(p("48h"), "2026-11-27T15:00:00Z");
        assert_eq!(p("2w"), "2026-11-15T15:00:00Z");
        assert_eq!(p("today"), "2026-11-29T00:00:00Z");
        assert_eq!(p("yesterday"), "2026-11-28T00:00:00Z");
        assert_eq!(p("2024-05-01"), "2024-05-01T00:00:00Z");
        assert_eq!(p("2024-05-01T10:00:00+02:00"), "2024-05-01T08:00:00Z");
    }

    #[test]
    fn until_dates_mean_end_of_day() {
        let w = TimeWindow::parse(Some("2024-05-01"), Some("2024-05-01"), now()).unwrap();
        assert!(w.contains("2024-05-01T23:59:59Z".parse().unwrap()));
        assert!(!w.contains("2024-05-02T00:00:00Z".parse().unwrap()));
        assert!(!w.contains("2024-04-30T23:59:59Z".parse().unwrap()));
    }

    #[test]
    fn errors() {
        for bad in ["", "last-month", "d", "-3d", "99999999999999999999d", "2024-13-01", "tomorrowish"] {
            assert!(parse_instant(bad, now(), false).is_err(), "{bad}");
        }
        assert!(matches!(TimeWindow::parse(Some("today"), Some("yesterday"), now()), Err(TimeError::Empty { .. })));
    }

    #[test]
    fn open_window_contains_everything() {
        assert!(TimeWindow::default().contains(Timestamp::UNIX_EPOCH));
    }
}
