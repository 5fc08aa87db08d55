//! Live counters the CLI draws a progress line from. Atomics, so every
//! stage can bump them without a lock; the display polls them.

use crate::sources::open_source;
use amem_records::{ImportOptions, SourceKind, TimeWindow};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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
    /// Messages read but not audited by choice: bulk or automated (without
    /// `--include-bulk`), or not selected by `--who`.
    pub deselected: AtomicU64,
    /// Messages read that are copies of one read before (src/copies.rs):
    /// not audited again.
    pub copies: AtomicU64,
    /// Messages read that belong to other shards (`--shard I/N`): not audited here.
    pub other_shards: AtomicU64,
    /// Set by [`Counters::interrupt`] (the CLI's Ctrl-C handler).
    interrupted: AtomicBool,
}

impl Counters {
    /// Ask the run to stop early: the importers read no further, the
    /// messages already read are assessed and recorded, and
    /// [`crate::run_audit`] returns [`crate::run::Interrupted`] without
    /// writing reports. The run stays open in the ledger, so the same command
    /// resumes it.
    pub fn interrupt(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
    }

    /// True once [`Counters::interrupt`] was called.
    pub fn is_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

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

    /// Messages finished: assessed and recorded, found already assessed, or left to another shard.
    /// The ETA counts these, not the messages read, since reading runs
    /// ahead of the assessing.
    pub fn finished(&self) -> u64 {
        Self::get(&self.recorded) + Self::get(&self.already_assessed) + Self::get(&self.copies) + Self::get(&self.other_shards)
    }

    /// The phase a run is in, for the progress display, given the number
    /// of messages in the window once the counting pass knows it.
    pub fn phase(&self, total: Option<u64>) -> &'static str {
        let finished = self.finished();
        match total {
            _ if Self::get(&self.messages) == 0 => "opening",
            Some(t) if finished >= t => "writing reports",
            _ if Self::get(&self.waiting_on_fetch) > 0 && total.is_some_and(|t| Self::get(&self.messages) >= t) => "grounding",
            _ => "assessing",
        }
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

/// Count the messages the sources hold inside `window`, for an ETA. The
/// importers parse far faster than the audit assesses (see docs/benchmarks.md's
/// whole-run figures), so this pass costs a small fraction of the run. It
/// stops early when `stop` is set; the count is then partial and `None`.
pub fn count_messages(sources: &[(SourceKind, PathBuf)], window: TimeWindow, stop: &AtomicBool) -> Option<u64> {
    let opts = ImportOptions { window };
    let mut n = 0u64;
    for (kind, path) in sources {
        let Ok(stream) = open_source(*kind, path, &opts) else { continue };
        for item in stream {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            // Only messages: the ETA compares this with the messages finished.
            if item.is_ok() {
                n += 1;
            }
        }
    }
    Some(n)
}

/// Seconds left at the current rate, when the total is known.
pub fn eta_seconds(done: u64, total: u64, elapsed_secs: f64) -> Option<f64> {
    if done == 0 || total <= done || elapsed_secs <= 0.0 {
        return None;
    }
    let rate = done as f64 / elapsed_secs;
    Some((total - done) as f64 / rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_and_finished() {
        let c = Counters::default();
        assert_eq!(c.phase(None), "opening");
        Counters::add(&c.messages, 10);
        assert_eq!(c.phase(None), "assessing");
        Counters::add(&c.recorded, 4);
        Counters::add(&c.already_assessed, 2);
        assert_eq!(c.finished(), 6);
        assert_eq!(c.phase(Some(10)), "assessing");
        Counters::add(&c.waiting_on_fetch, 3);
        assert_eq!(c.phase(Some(10)), "grounding", "all read, claims waiting on the trust list");
        Counters::add(&c.recorded, 4);
        assert_eq!(c.phase(Some(10)), "writing reports");
        // The ETA is over what is finished, not what is read: 10 read, 6 finished in 3 s, 4 left.
        assert!((eta_seconds(6, 10, 3.0).unwrap() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn eta() {
        assert_eq!(eta_seconds(0, 10, 1.0), None);
        assert_eq!(eta_seconds(10, 10, 1.0), None);
        assert!((eta_seconds(25, 100, 5.0).unwrap() - 15.0).abs() < 1e-9);
    }
}
