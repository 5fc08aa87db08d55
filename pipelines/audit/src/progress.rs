//! Live counters the CLI draws a progress line from. Atomics, so every
//! stage can bump them without a lock; the display polls them.

use std::sync::atomic::{AtomicU64, Ordering};

/// Counters of a running audit.
#[derive(Debug, Default)]
pub struct Counters {
    /// Messages read from the archives (inside the window).
    pub messages: AtomicU64,
    /// Messages skipped as already assessed.
    pub already_assessed: AtomicU64,
    /// Claims extracted (all kinds).
    pub claims: AtomicU64,
    /// Claims of audited kinds.
    pub audited: AtomicU64,
    /// Audited claims answered from the local wiki.
    pub local_hits: AtomicU64,
    /// Claims waiting for the trust list (queued or behind a rate limit).
    pub waiting_on_fetch: AtomicU64,
    /// Requests made to trust-list sources.
    pub fetches: AtomicU64,
    /// Records skipped.
    pub skipped: AtomicU64,
    /// Messages recorded in the ledger.
    pub recorded: AtomicU64,
}

impl Counters {
    /// Add to a counter.
    pub fn add(c: &AtomicU64, n: u64) {
        c.fetch_add(n, Ordering::Relaxed);
    }

    /// Raise a counter to `n` if it is below (for totals read from elsewhere).
    pub fn add_max(c: &AtomicU64, n: u64) {
        c.fetch_max(n, Ordering::Relaxed);
    }

    /// Take one from a counter.
    pub fn sub(c: &AtomicU64, n: u64) {
        c.fetch_sub(n, Ordering::Relaxed);
    }

    /// Read a counter.
    pub fn get(c: &AtomicU64) -> u64 {
        c.load(Ordering::Relaxed)
    }

    /// One line for a progress display.
    pub fn line(&self) -> String {
        format!(
            "{} messages ({} already assessed), {} claims ({} audited), {} local hits, {} waiting on fetch, {} skipped",
            Self::get(&self.messages),
            Self::get(&self.already_assessed),
            Self::get(&self.claims),
            Self::get(&self.audited),
            Self::get(&self.local_hits),
            Self::get(&self.waiting_on_fetch),
            Self::get(&self.skipped),
        )
    }
}
