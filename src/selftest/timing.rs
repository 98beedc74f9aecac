//! How the selftest times a workload: the fastest of several repeats, interleaved.
//!
//! # Timing model
//! One timing is one call `run(n)` between two reads of a clock: the measuring thread's
//! CPU time (user + system, the scheduler's own nanosecond count) when the operation's
//! work is done by that thread, or the monotonic wall clock when another process does it
//! (an exec'd job). Variants that are compared are timed in turn, round after round, so
//! that all of them see the same phases of the machine's load; the fastest timing of each
//! counts, since interference — another process's turn, a cache it evicted, a stolen
//! tick — only ever adds time.

use anyhow::Result;

use crate::harness::clock::now_ns;
pub use crate::harness::clock::thread_cpu_s;
use crate::harness::contract::Workload;

/// Which clock a timing reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// CPU time of the calling thread: immune to waiting for a CPU.
    Thread,
    /// Monotonic wall time: for work done by other processes.
    Wall,
}

/// The clock's reading, in seconds.
pub fn now(clock: Clock) -> f64 {
    match clock {
        Clock::Wall => now_ns() as f64 * 1e-9,
        Clock::Thread => thread_cpu_s(),
    }
}

/// Seconds for one `run(n)`.
pub fn time(w: &mut dyn Workload, n: u64, clock: Clock) -> Result<f64> {
    w.before_sample(n)?;
    let t = now(clock);
    w.run(n)?;
    Ok(now(clock) - t)
}

/// The fastest timings of `run(n)` and `run(2n)`, `repeats` of each, interleaved, after
/// one untimed `run(n)`.
#[derive(Debug, Clone, Copy)]
pub struct Doubling {
    pub n: u64,
    pub one: f64,
    pub two: f64,
}

impl Doubling {
    pub fn ratio(&self) -> f64 {
        self.two / self.one
    }

    /// "n = 10: 1.21 ms, 2n: 2.40 ms".
    pub fn basis(&self) -> String {
        format!(
            "n = {}: {}, 2n: {}",
            self.n,
            seconds(self.one),
            seconds(self.two)
        )
    }
}

pub fn doubling(w: &mut dyn Workload, n: u64, clock: Clock, repeats: usize) -> Result<Doubling> {
    w.before_sample(n)?;
    w.run(n)?;
    let mut d = Doubling {
        n,
        one: f64::INFINITY,
        two: f64::INFINITY,
    };
    for _ in 0..repeats.max(1) {
        d.one = d.one.min(time(w, n, clock)?);
        d.two = d.two.min(time(w, 2 * n, clock)?);
    }
    Ok(d)
}

/// The fastest time per operation of each workload, `run(n)` timed `repeats` times each,
/// the workloads in turn; after one untimed `run(n)` of each.
pub fn fastest_per_op(
    ws: &mut [&mut dyn Workload],
    n: u64,
    clock: Clock,
    repeats: usize,
) -> Result<Vec<f64>> {
    for w in ws.iter_mut() {
        w.before_sample(n)?;
        w.run(n)?;
    }
    let mut best = vec![f64::INFINITY; ws.len()];
    for _ in 0..repeats.max(1) {
        for (w, b) in ws.iter_mut().zip(&mut best) {
            *b = b.min(time(*w, n, clock)? / n as f64);
        }
    }
    Ok(best)
}

/// The smallest n (a power of 4) whose `run(n)` takes at least `at_least` seconds on
/// `clock`, fastest of three; at most 4^20.
pub fn batch_lasting(w: &mut dyn Workload, at_least: f64, clock: Clock) -> Result<u64> {
    let mut n = 1;
    while n < 1 << 40 {
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            best = best.min(time(w, n, clock)?);
        }
        if best >= at_least {
            break;
        }
        n *= 4;
    }
    Ok(n)
}

/// "1.21 ms", "35.2 µs", "812 ns".
pub fn seconds(s: f64) -> String {
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "µs")
    } else {
        (s * 1e9, "ns")
    };
    if v >= 100.0 {
        format!("{v:.0} {unit}")
    } else if v >= 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.2} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload that counts what it is asked to do and "takes" no time of its own.
    #[derive(Default)]
    struct Counted {
        runs: Vec<u64>,
        prepared: Vec<u64>,
    }

    impl Workload for Counted {
        fn run(&mut self, n: u64) -> Result<()> {
            self.runs.push(n);
            Ok(())
        }
        fn before_sample(&mut self, n: u64) -> Result<()> {
            self.prepared.push(n);
            Ok(())
        }
    }

    #[test]
    fn doubling_interleaves_n_and_2n_after_one_warm_up() {
        let mut w = Counted::default();
        let d = doubling(&mut w, 5, Clock::Thread, 3).unwrap();
        assert_eq!(w.runs, vec![5, 5, 10, 5, 10, 5, 10]);
        assert_eq!(w.prepared, w.runs, "every run is prepared for first");
        assert!(d.one.is_finite() && d.two.is_finite() && d.n == 5);
    }

    #[test]
    fn fastest_per_op_takes_the_workloads_in_turn() {
        let (mut a, mut b) = (Counted::default(), Counted::default());
        let per_op = fastest_per_op(&mut [&mut a, &mut b], 7, Clock::Wall, 2).unwrap();
        assert_eq!(per_op.len(), 2);
        assert_eq!(a.runs, vec![7, 7, 7]);
        assert_eq!(b.runs, vec![7, 7, 7]);
    }

    #[test]
    fn seconds_are_shown_in_a_unit_that_fits() {
        assert_eq!(seconds(1.21e-3), "1.21 ms");
        assert_eq!(seconds(35.2e-6), "35.2 µs");
        assert_eq!(seconds(812e-9), "812 ns");
        assert_eq!(seconds(2.5), "2.50 s");
    }
}
