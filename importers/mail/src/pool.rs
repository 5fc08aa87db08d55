//! An ordered, bounded parallel map for importers: `workers` threads take
//! turns reading and splitting the archive (a batch at a time, under a lock)
//! and parse what they took; the caller receives results in input order.
//!
//! Why: parsing is about 85% of a mail importer's CPU time (MIME walk,
//! charset, quote splitting) and each message is independent, while the
//! reading must stay sequential. DESIGN.md asks CPU stages to run on a
//! blocking pool; this is that pool at importer level, so the stream a
//! pipeline receives is already parsed in parallel. Order is kept with
//! sequence numbers, so output is identical to a serial run. Memory stays
//! bounded: each worker holds one batch, at most `2 * workers` parsed
//! batches wait in the channel.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

/// Threads to parse with: `AMEM_IMPORT_THREADS` when set (1 = everything on
/// the caller's thread), else the machine's parallelism, at most 4 (past
/// that the reading, one batch at a time under a lock, is the bottleneck).
pub fn default_workers() -> usize {
    if let Some(n) = std::env::var("AMEM_IMPORT_THREADS").ok().and_then(|v| v.trim().parse::<usize>().ok()) {
        return n.clamp(1, 64);
    }
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4)
}

/// Map `source` through `f` on `workers` threads, yielding results in input
/// order. `on_panic(i)` stands in for the result of item `i` if `f` panics
/// (it must not; this keeps a bug from silently dropping a message).
/// With `workers <= 1` everything runs on the caller's thread.
pub fn ordered_map<I, T, F, P>(source: I, workers: usize, f: F, on_panic: P) -> Box<dyn Iterator<Item = T> + Send>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
    T: Send + 'static,
    F: Fn(I::Item) -> T + Send + Sync + 'static,
    P: Fn(u64) -> T + Send + 'static,
{
    if workers <= 1 {
        return Box::new(source.map(f));
    }
    // Batches in flight (taken from the source, not yet handed to the
    // caller) are bounded by tokens: a worker takes one before a batch, the
    // caller gives it back when it starts on that batch. Without this, a
    // worker descheduled in the middle of a batch (a loaded machine) let the
    // others run ahead and the reorder buffer grow: peak RSS at 10x rose
    // from 16 to 29 MiB in the bench under load.
    let window = IN_FLIGHT_PER_WORKER * workers;
    let (token_tx, token_rx) = sync_channel::<()>(window);
    for _ in 0..window {
        if token_tx.send(()).is_err() {
            break;
        }
    }
    let feed = Arc::new(Mutex::new(Feed { source, next: 0, done: false, tokens: token_rx }));
    let (out_tx, out_rx) = sync_channel::<(u64, Vec<Option<T>>)>(window);
    let f = Arc::new(f);
    for _ in 0..workers {
        let (feed, out_tx, f) = (Arc::clone(&feed), out_tx.clone(), Arc::clone(&f));
        std::thread::spawn(move || work(&feed, &out_tx, &*f));
    }
    drop(out_tx);
    Box::new(Ordered { rx: out_rx, next: 0, pending: BTreeMap::new(), current: None, on_panic, tokens: token_tx })
}

/// Batches in flight per worker: one being parsed, the rest parsed and
/// waiting for the caller (to cover a worker that is briefly slower).
const IN_FLIGHT_PER_WORKER: usize = 4;

/// Items per handoff. Small enough that a batch of large messages stays
/// well within memory; large enough to amortise the lock and the channel.
const BATCH: usize = 32;

/// The source, shared by the workers: each takes the next batch under the
/// lock, then parses it outside. No thread of its own for the reading (it is
/// about 12% of the work, measured on the mbox bench): one thread and one
/// channel fewer to wake, and the raw bytes are freed by the thread that
/// allocated them.
struct Feed<I> {
    source: I,
    /// Sequence number of the next item.
    next: u64,
    done: bool,
    /// One per batch allowed in flight (see `ordered_map`).
    tokens: Receiver<()>,
}

fn work<I: Iterator, T, F: Fn(I::Item) -> T>(feed: &Mutex<Feed<I>>, out_tx: &SyncSender<(u64, Vec<Option<T>>)>, f: &F) {
    loop {
        let (first, batch) = {
            let Ok(mut feed) = feed.lock() else { return };
            if feed.done || feed.tokens.recv().is_err() {
                return;
            }
            let batch: Vec<I::Item> = feed.source.by_ref().take(BATCH).collect();
            if batch.is_empty() {
                feed.done = true;
                return;
            }
            let first = feed.next;
            feed.next += batch.len() as u64;
            (first, batch)
        };
        let out = batch.into_iter().map(|item| catch_unwind(AssertUnwindSafe(|| f(item))).ok()).collect();
        if out_tx.send((first, out)).is_err() {
            return; // The consumer went away.
        }
    }
}

struct Ordered<T, P> {
    rx: Receiver<(u64, Vec<Option<T>>)>,
    next: u64,
    pending: BTreeMap<u64, std::vec::IntoIter<Option<T>>>,
    current: Option<std::vec::IntoIter<Option<T>>>,
    on_panic: P,
    /// Given back to the workers as each batch is started.
    tokens: SyncSender<()>,
}

impl<T, P: Fn(u64) -> T> Iterator for Ordered<T, P> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        loop {
            if let Some(v) = self.current.as_mut().and_then(Iterator::next) {
                let i = self.next;
                self.next += 1;
                return Some(v.unwrap_or_else(|| (self.on_panic)(i)));
            }
            if let Some(batch) = self.pending.remove(&self.next) {
                self.current = Some(batch);
                // Never blocks: no more tokens are out than the channel holds.
                let _ = self.tokens.try_send(());
                continue;
            }
            match self.rx.recv() {
                Ok((first, v)) => {
                    self.pending.insert(first, v.into_iter());
                }
                // All workers are done and nothing is pending for `next`: the end.
                Err(_) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_counts() {
        for workers in [1, 2, 3] {
            let out: Vec<u64> = ordered_map(0..1000u64, workers, |x| x * 2, |_| u64::MAX).collect();
            assert_eq!(out, (0..1000).map(|x| x * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_panic_becomes_the_fallback_in_place() {
        let out: Vec<i64> = ordered_map(0..10i64, 2, |x| if x == 3 { panic!("boom") } else { x }, |i| -(i as i64)).collect();
        assert_eq!(out, [0, 1, 2, -3, 4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn a_slow_worker_does_not_let_the_others_run_ahead() {
        use std::sync::atomic::{AtomicU64, Ordering};
        // Item 0 takes long; meanwhile the other worker may parse at most
        // the window, not the whole input.
        let parsed = Arc::new(AtomicU64::new(0));
        let seen = Arc::clone(&parsed);
        let mut it = ordered_map(
            0..100_000u64,
            2,
            move |x| {
                if x == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                seen.fetch_add(1, Ordering::SeqCst);
                x
            },
            |_| 0,
        );
        assert_eq!(it.next(), Some(0));
        let ahead = parsed.load(Ordering::SeqCst);
        assert!(ahead <= (IN_FLIGHT_PER_WORKER * 2 * BATCH) as u64 + BATCH as u64, "{ahead} parsed while item 0 waited");
        assert_eq!(it.count(), 99_999);
    }

    #[test]
    fn early_drop_does_not_hang() {
        let mut it = ordered_map(0..1_000_000u64, 2, |x| x, |_| 0);
        assert_eq!(it.next(), Some(0));
        drop(it);
    }
}
