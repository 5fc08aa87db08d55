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
    let feed = Arc::new(Mutex::new(Feed { source, next: 0, done: false }));
    let (out_tx, out_rx) = sync_channel::<(u64, Vec<Option<T>>)>(2 * workers);
    let f = Arc::new(f);
    for _ in 0..workers {
        let (feed, out_tx, f) = (Arc::clone(&feed), out_tx.clone(), Arc::clone(&f));
        std::thread::spawn(move || work(&feed, &out_tx, &*f));
    }
    drop(out_tx);
    Box::new(Ordered { rx: out_rx, next: 0, pending: BTreeMap::new(), current: None, on_panic })
}

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
}

fn work<I: Iterator, T, F: Fn(I::Item) -> T>(feed: &Mutex<Feed<I>>, out_tx: &SyncSender<(u64, Vec<Option<T>>)>, f: &F) {
    loop {
        let (first, batch) = {
            let Ok(mut feed) = feed.lock() else { return };
            if feed.done {
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
    fn early_drop_does_not_hang() {
        let mut it = ordered_map(0..1_000_000u64, 2, |x| x, |_| 0);
        assert_eq!(it.next(), Some(0));
        drop(it);
    }
}
