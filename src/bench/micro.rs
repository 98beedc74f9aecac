//! What the micro-operation families of catalogue §2 (`signal`, `pipe`, `udg`, `proc`)
//! share: their sources and sampling plans, and helpers for their tests. Every row whose
//! operation involves a partner or child process is marked
//! [`partnered`](crate::harness::contract::Benchmark::partnered): the seed's `*self`
//! programs (pipeself, udgself, signocsw) and kt9 are the only ones a single process does.

use crate::harness::contract::Plan;
use crate::model::{Mode, Source};

/// Seed 001 (Berkeley), at `place`.
pub const fn berkeley(place: &'static str) -> Source {
    Source::seed("001", place)
}

/// Seed 003 (the PERQ note), at `place`.
pub const fn perq(place: &'static str) -> Source {
    Source::seed("003", place)
}

/// Rows whose operation is long (a 5 MB transfer, a whole piper run): a fixed number of
/// single-operation samples.
pub fn whole_transfers(mode: Mode) -> Plan {
    match mode {
        Mode::Quick => Plan::fixed(1, 9),
        Mode::Full => Plan::fixed(1, 31),
    }
}

/// Rows whose operation is a process creation (50 µs – 2 ms): fewer, longer samples than
/// the default, since each operation already dwarfs the clock.
pub fn processes(mode: Mode) -> Plan {
    let mut plan = Plan::calibrated(mode);
    plan.samples = match mode {
        Mode::Quick => 15,
        Mode::Full => 31,
    };
    plan.target = std::time::Duration::from_millis(match mode {
        Mode::Quick => 8,
        Mode::Full => 20,
    });
    plan
}

/// Helpers for the families' unit tests.
#[cfg(test)]
pub mod testing {
    use std::sync::{Mutex, MutexGuard};

    use crate::harness::contract::{Ctx, StandaloneCtx, Workload};
    use crate::model::{Placement, RunOptions};

    static FORKING: Mutex<()> = Mutex::new(());

    /// Tests that fork children holding pipe ends run one at a time: a child forked by
    /// another test thread would inherit our write ends and hide end-of-file.
    pub fn forking() -> MutexGuard<'static, ()> {
        FORKING.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run `f` with a context for `placement`.
    pub fn with_ctx<T>(placement: Placement, f: impl FnOnce(&Ctx) -> T) -> T {
        let standalone = StandaloneCtx::new(RunOptions {
            placement,
            ..RunOptions::default()
        })
        .unwrap();
        f(&standalone.ctx())
    }

    /// The calling thread's CPU time, in seconds: immune to waiting for a CPU, which on a
    /// loaded 2-CPU machine dwarfs the work; precise (the scheduler's own ns count).
    pub fn thread_cpu_s() -> f64 {
        // SAFETY: timespec is plain data that clock_gettime fills.
        let mut t: libc::timespec = unsafe { std::mem::zeroed() };
        // SAFETY: the timespec is valid to write.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
    }

    /// The measuring thread's CPU time for run(2n) over that for run(n), fastest of 9
    /// interleaved repeats each: about 2 when every operation really does the work.
    pub fn doubling_ratio(w: &mut dyn Workload, n: u64) -> f64 {
        w.run(n).unwrap();
        let mut one = Vec::new();
        let mut two = Vec::new();
        for _ in 0..9 {
            for (k, v) in [(n, &mut one), (2 * n, &mut two)] {
                let t = thread_cpu_s();
                w.run(k).unwrap();
                v.push(thread_cpu_s() - t);
            }
        }
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        min(&two) / min(&one)
    }

    pub fn assert_scales(what: &str, ratio: f64) {
        assert!(
            (1.3..3.5).contains(&ratio),
            "{what}: twice the operations took {ratio:.2}× the time"
        );
    }
}
