//! `--since` / `--until` parsing and the time window importers filter on.
//!
//! Accepted forms: `last-week` (7 days before now), `yesterday` and `today`
//! (midnight UTC starting that day), `<n>h`, `<n>d`, `<n>w` (that long
//! before now), any span jiff reads (`1mo`, `2 weeks`, `1 day ago`,
//! `3 days 4 hours`, ISO 8601 `P1M`: that long before now, calendar units
//! counted in UTC), a month `2024-05`, an ISO date `2024-05-01`, and RFC 3339
//! `2024-05-01T10:00:00Z`. As an `--until` bound a bare date (and
//! `yesterday`/`today`) means the *end* of that day, and a month the end of
//! that month, so `--since 2024-05 --until 2024-05` is May.

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
        "cannot read {0:?} as a time: use last-week, yesterday, today, a span (7d, 48h, 2w, 1mo, \"2 weeks\", \"1 day ago\"), a month (2024-05), an ISO date (2024-05-01) or RFC 3339 (2024-05-01T10:00:00Z)"
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
    if let Some(month) = parse_month(t) {
        let start = if end_of_day { month.checked_add(1.month()).map_err(|_| bad())? } else { month };
        return TimeZone::UTC.to_timestamp(start.to_datetime(jiff::civil::Time::midnight())).map_err(|_| bad());
    }
    // A span, always read as "that long before now": `1 day ago` and
    // `1 day` name the same instant. A leading sign is refused, since
    // `-3d` reads as either direction.
    if !t.starts_with(['-', '+'])
        && let Ok(span) = t.parse::<jiff::Span>()
    {
        return sub_span(now, span.abs()).ok_or_else(bad);
    }
    Err(bad())
}

/// `YYYY-MM` as the first day of that month.
fn parse_month(t: &str) -> Option<Date> {
    let (y, m) = t.split_once('-')?;
    if y.len() != 4 || m.len() != 2 || !y.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    Date::new(y.parse().ok()?, m.parse().ok()?, 1).ok()
}

/// `now` minus `span` (calendar units in UTC), or `None` past ~100 years.
fn sub_span(now: Timestamp, span: jiff::Span) -> Option<Timestamp> {
    let then = TimeZone::UTC.to_timestamp(TimeZone::UTC.to_datetime(now).checked_sub(span).ok()?).ok()?;
    let floor = now.checked_sub((24 * 366 * 100).hours()).ok()?;
    (then >= floor).then_some(then)
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
    fn spans_and_months() {
        let p = |s| parse_instant(s, now(), false).unwrap().to_string();
        assert_eq!(p("1mo"), "2026-10-29T15:00:00Z");
        assert_eq!(p("2 weeks"), "2026-11-15T15:00:00Z");
        assert_eq!(p("1 day ago"), "2026-11-28T15:00:00Z");
        assert_eq!(p("1 day"), p("1 day ago"));
        assert_eq!(p("3 days 4 hours"), "2026-11-26T11:00:00Z");
        assert_eq!(p("1y"), "2025-11-29T15:00:00Z");
        assert_eq!(p("P1M"), "2026-10-29T15:00:00Z");
        assert_eq!(p("2025-05"), "2025-05-01T00:00:00Z");
        let may = TimeWindow::parse(Some("2025-05"), Some("2025-05"), now()).unwrap();
        assert!(may.contains("2025-05-31T23:59:59Z".parse().unwrap()));
        assert!(!may.contains("2025-06-01T00:00:00Z".parse().unwrap()));
        assert!(!may.contains("2025-04-30T23:59:59Z".parse().unwrap()));
        assert_eq!(TimeWindow::parse(None, Some("2025-12"), now()).unwrap().until.unwrap().to_string(), "2026-01-01T00:00:00Z");
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
        for bad in [
            "",
            "last-month",
            "d",
            "-3d",
            "+2 weeks",
            "99999999999999999999d",
            "200y",
            "2024-13-01",
            "2024-13",
            "2024-5",
            "tomorrowish",
            "1 fortnight",
        ] {
            assert!(parse_instant(bad, now(), false).is_err(), "{bad}");
        }
        assert!(matches!(TimeWindow::parse(Some("today"), Some("yesterday"), now()), Err(TimeError::Empty { .. })));
    }

    #[test]
    fn open_window_contains_everything() {
        assert!(TimeWindow::default().contains(Timestamp::UNIX_EPOCH));
    }
}
