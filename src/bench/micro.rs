//! The row type shared by the micro-operation families of CATALOGUE §2 (`signal`, `pipe`,
//! `udg`, `proc`): metadata beside a function that prepares the workload, as
//! `syscall::Row` does, plus a metric, a plan and a support check per row.

use anyhow::Result;

use super::{Benchmark, Ctx, Host, Plan, Skip, Workload};
use crate::model::{Metric, Mode, Source};

/// Whether a row can run here; `Err` carries the skip reason.
pub type SupportCheck = fn(&Host) -> Result<(), Skip>;

#[derive(Clone, Copy)]
pub struct Row {
    pub id: &'static str,
    pub about: &'static str,
    pub source: Source,
    pub metric: Metric,
    /// `None`: the default calibrated plan.
    pub plan: Option<fn(Mode) -> Plan>,
    pub supported: Option<SupportCheck>,
    pub prepare: fn(&Ctx) -> Result<Box<dyn Workload>>,
}

impl Row {
    /// A calibrated latency row that runs everywhere: the common case.
    pub const fn new(
        id: &'static str,
        about: &'static str,
        source: Source,
        prepare: fn(&Ctx) -> Result<Box<dyn Workload>>,
    ) -> Row {
        Row {
            id,
            about,
            source,
            metric: Metric::latency(),
            plan: None,
            supported: None,
            prepare,
        }
    }
}

impl Row {
    /// True for the rows where one process does all the work: the seed's `*self` programs
    /// (pipeself, udgself, signocsw) and kt9, named `.self` in their ids. Every other row
    /// of these families involves a partner or child process.
    fn alone(&self) -> bool {
        self.id.split('.').any(|part| part == "self")
    }
}

impl Benchmark for Row {
    fn id(&self) -> &'static str {
        self.id
    }
    fn about(&self) -> &'static str {
        self.about
    }
    fn source(&self) -> Source {
        self.source
    }
    fn metric(&self) -> Metric {
        self.metric
    }
    fn plan(&self, mode: Mode) -> Plan {
        let mut plan = self
            .plan
            .map_or_else(|| Plan::calibrated(mode), |p| p(mode));
        if !self.alone() {
            // The partner or child preempting the measuring process is part of the
            // operation here (on one CPU every round trip does it): culling such samples
            // would keep only those where the other process happened to run elsewhere.
            plan.cull = false;
            plan.resample = false;
        }
        plan
    }
    fn supported(&self, host: &Host) -> Result<(), Skip> {
        self.supported.map_or(Ok(()), |s| s(host))
    }
    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        (self.prepare)(ctx)
    }
}

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

    use crate::bench::{Ctx, Host, Workload};
    use crate::model::{Placement, RunOptions};

    static FORKING: Mutex<()> = Mutex::new(());

    /// Tests that fork children holding pipe ends run one at a time: a child forked by
    /// another test thread would inherit our write ends and hide end-of-file.
    pub fn forking() -> MutexGuard<'static, ()> {
        FORKING.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run `f` with a context for `placement`.
    pub fn with_ctx<T>(placement: Placement, f: impl FnOnce(&Ctx) -> T) -> T {
        let dir = tempfile::tempdir().unwrap();
        let options = RunOptions {
            placement,
            ..RunOptions::default()
        };
        let host = Host::detect();
        let ctx = Ctx {
            mode: options.mode,
            options: &options,
            scratch: dir.path(),
            host: &host,
        };
        f(&ctx)
    }

    /// The calling thread's CPU time, in seconds: immune to waiting for a CPU, which on a
    /// loaded 2-CPU machine dwarfs the work; precise (the scheduler's own ns count).
    pub fn thread_cpu_s() -> f64 {
        // SAFETY: timespec is plain data that clock_gettime fills.
        let mut t: libc::timespec = unsafe { std::mem::zeroed() };
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
