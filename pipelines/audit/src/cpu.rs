//! Where a run's CPU time goes, by part: the index check, the assessing
//! workers, the recording thread, the importers and everything else of the
//! assessing phase, the report pass's reader and each report writer. The
//! run logs the parts at `info` level when it ends, and
//! `scripts/bench-audit.py` puts them beside the stage costs, so the whole
//! run's CPU is accounted for, not only the stages'.
//!
//! Clocks: the process's and the calling thread's CPU time (user + system),
//! from the kernel. Where the platform has no such clock they read zero and
//! the parts are left out.

use std::sync::Mutex;
use std::time::Duration;

#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "freebsd"))]
fn clock(id: rustix::time::ClockId) -> Duration {
    let t = rustix::time::clock_gettime(id);
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

/// CPU time of the whole process so far, all threads (zero where unknown).
pub fn process_cpu() -> Duration {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "freebsd"))]
    return clock(rustix::time::ClockId::ProcessCPUTime);
    #[allow(unreachable_code)]
    Duration::ZERO
}

/// CPU time of the calling thread so far (zero where unknown).
pub fn thread_cpu() -> Duration {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "freebsd"))]
    return clock(rustix::time::ClockId::ThreadCPUTime);
    #[allow(unreachable_code)]
    Duration::ZERO
}

/// CPU time by part, added from any thread; parts keep the order they were
/// first added in.
#[derive(Debug, Default)]
pub struct CpuParts {
    parts: Mutex<Vec<(String, Duration)>>,
}

impl CpuParts {
    /// Add `d` to `part`.
    pub fn add(&self, part: &str, d: Duration) {
        let Ok(mut parts) = self.parts.lock() else { return };
        match parts.iter_mut().find(|(p, _)| p == part) {
            Some((_, t)) => *t += d,
            None => parts.push((part.to_string(), d)),
        }
    }

    /// All parts together.
    pub fn total(&self) -> Duration {
        self.parts().iter().map(|(_, d)| *d).sum()
    }

    /// The parts so far.
    pub fn parts(&self) -> Vec<(String, Duration)> {
        self.parts.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// One line: `part 1.23 s, part 0.45 s, ...; process 2.00 s`, the
    /// process's total at the end (what no part names is `other`).
    pub fn line(&self, process: Duration) -> String {
        let parts = self.parts();
        let named: Duration = parts.iter().map(|(_, d)| *d).sum();
        let mut out: Vec<String> = parts.iter().map(|(p, d)| format!("{p} {:.2} s", d.as_secs_f64())).collect();
        out.push(format!("other {:.2} s", process.saturating_sub(named).as_secs_f64()));
        format!("{}; process {:.2} s", out.join(", "), process.as_secs_f64())
    }
}

/// One phase of a run: its wall time and the process's CPU over it. At
/// [`Phase::end`] the CPU no part added during the phase is put under the
/// phase's own name, and the phase is logged.
#[derive(Debug)]
pub struct Phase<'a> {
    parts: &'a CpuParts,
    wall: std::time::Instant,
    cpu: Duration,
    named: Duration,
}

impl<'a> Phase<'a> {
    /// A phase starting now.
    pub fn start(parts: &'a CpuParts) -> Phase<'a> {
        Phase { parts, wall: std::time::Instant::now(), cpu: process_cpu(), named: parts.total() }
    }

    /// End the phase: `rest` gets its CPU that no part took, and `what`
    /// is logged with the wall and CPU time.
    pub fn end(self, rest: &str, what: &str) {
        let cpu = process_cpu().saturating_sub(self.cpu);
        let named = self.parts.total().saturating_sub(self.named);
        self.parts.add(rest, cpu.saturating_sub(named));
        tracing::info!("{what} in {:.2?} (CPU {:.2} s)", self.wall.elapsed(), cpu.as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clocks move with work done, and the thread's is within the process's.
    #[test]
    fn clocks_count_work_and_parts_add_up() {
        let (p0, t0) = (process_cpu(), thread_cpu());
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        std::hint::black_box(x);
        let (p1, t1) = (process_cpu(), thread_cpu());
        if cfg!(target_os = "linux") {
            assert!(t1 > t0 && p1 > p0, "{t0:?} {t1:?} {p0:?} {p1:?}");
            assert!(t1 - t0 <= p1 - p0 + Duration::from_millis(5));
        }
        let parts = CpuParts::default();
        parts.add("assess", Duration::from_millis(1500));
        parts.add("record", Duration::from_millis(250));
        parts.add("assess", Duration::from_millis(500));
        assert_eq!(parts.line(Duration::from_secs(3)), "assess 2.00 s, record 0.25 s, other 0.75 s; process 3.00 s");
    }
}
