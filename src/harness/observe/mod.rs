//! Watching the machine while a benchmark works (seed 001 §2): the vmstat series sampled
//! beside it ([`series`]), counters and system calls counted through `perf_event_open`
//! ([`perf`]), and a system-wide profile by `perf record` ([`profile`]). [`Watch`] holds
//! what a run was asked to watch and what this machine allows, said once.

mod bpfobj;
pub mod caches;
pub mod callmix;
pub mod cost;
pub mod kallsyms;
pub mod kcache;
pub mod kcount;
pub mod kprofile;
pub mod ksample;
pub mod pages;
pub mod perf;
pub mod profile;
pub mod series;
pub mod span;
pub mod stream;
pub mod system;
pub mod tally;
pub mod vmstat;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};

use super::contract::{Benchmark, Ctx, Host, Workload};
use crate::model::observe::{Observation, ObserveOptions};
use perf::{CounterSet, SyscallCounters, SyscallTracepoints};

/// The threads of this process that do the observing (the call counter's reader, the
/// series' sampler, the thread that drives an observation beside a workload): an
/// observation beside timeshare's own workload counts every other thread of the process,
/// and leaves out only these. With them, the CPU time of those that have ended, so that
/// what observing costs can be told from the workload's own time in the same process.
static OBSERVERS: Mutex<Observers> = Mutex::new(Observers {
    threads: Vec::new(),
    ended_cpu_s: 0.0,
});

struct Observers {
    threads: Vec<u32>,
    ended_cpu_s: f64,
}

/// Mark the calling thread as one of the observer's own; its calls are not counted.
pub fn register_observer_thread() {
    // SAFETY: gettid has no arguments and cannot fail.
    let tid = unsafe { libc::gettid() } as u32;
    if let Ok(mut o) = OBSERVERS.lock() {
        o.threads.push(tid);
    }
}

/// The observer's threads registered so far.
pub fn observer_threads() -> Vec<u32> {
    OBSERVERS
        .lock()
        .map(|o| o.threads.clone())
        .unwrap_or_default()
}

/// CPU seconds used by the observer's threads that have ended ([`ObserverThread`]).
pub fn ended_observer_cpu_s() -> f64 {
    OBSERVERS.lock().map_or(0.0, |o| o.ended_cpu_s)
}

/// The calling thread's user and system CPU seconds.
pub fn thread_cpu_s() -> f64 {
    // SAFETY: getrusage writes into the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_THREAD is a valid selector on Linux.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// An observing thread, for its life: registered when made, its CPU time added to
/// [`ended_observer_cpu_s`] when dropped (at the thread's end, however it ends).
pub struct ObserverThread(());

impl ObserverThread {
    pub fn register() -> ObserverThread {
        register_observer_thread();
        ObserverThread(())
    }
}

impl Drop for ObserverThread {
    fn drop(&mut self) {
        let cpu = thread_cpu_s();
        if let Ok(mut o) = OBSERVERS.lock() {
            o.ended_cpu_s += cpu;
        }
    }
}

/// What one run watches, decided once before its first benchmark: what was asked, less
/// what this machine or this user cannot have, each with its reason in
/// [`Watch::warnings`] (said once per run, not once per row).
pub struct Watch {
    pub options: ObserveOptions,
    /// The CPUs the sampling thread may use: every usable one but the measuring CPU.
    series_cpus: Option<Vec<usize>>,
    perf: Option<PathBuf>,
    tracepoints: Option<SyscallTracepoints>,
    /// The per-call counters, opened at the first row's pass and kept for the run:
    /// opening one on each of the kernel's ~370 call tracepoints takes the kernel about
    /// 15–30 s (perf stat takes as long), too much to pay again for every row.
    syscall_counters: std::sync::Mutex<Option<SyscallCounters>>,
    counters: bool,
    pub warnings: Vec<String>,
}

impl Watch {
    /// Check what `options` asks for on `host`; `pinned` is the measuring CPU (`--cpu`).
    pub fn new(options: &ObserveOptions, host: &Host, pinned: Option<usize>) -> Watch {
        let mut warnings = Vec::new();
        let series_cpus = pinned.map(|c| {
            let others: Vec<usize> = host
                .usable_cpus
                .iter()
                .copied()
                .filter(|&u| u != c)
                .collect();
            if others.is_empty() && options.interval_s.is_some() {
                warnings.push(format!(
                    "--observe: CPU {c} is the only one this process may use, so the \
                     sampling thread shares it with the benchmark"
                ));
            }
            others
        });
        let perf = if options.profile {
            match profile::available(host.find_program("perf"), host.is_root) {
                Ok(p) => Some(p),
                Err(why) => {
                    warnings.push(format!(
                        "--profile: cannot profile: {why}; the rows run unprofiled"
                    ));
                    None
                }
            }
        } else {
            None
        };
        let tracepoints = if options.trace {
            let found = SyscallTracepoints::find(host.is_root, &mut warnings).and_then(|tp| {
                // One trial open: the ids may be readable and the events still refused.
                SyscallCounters::open(&tp, true)
                    .map(|_| tp)
                    .map_err(|e| format!("{e:#}"))
            });
            match found {
                Ok(tp) => Some(tp),
                Err(why) => {
                    warnings.push(format!("--trace: cannot count system calls: {why}"));
                    None
                }
            }
        } else {
            None
        };
        if options.counters {
            let set = CounterSet::open();
            if let Some(why) = set.hardware_unavailable() {
                warnings.push(format!(
                    "--counters: hardware counters (cycles, instructions, cache and branch \
                     misses) unavailable: {why}; the software ones are counted"
                ));
            }
            for why in set.software_unavailable() {
                warnings.push(format!("--counters: {why}"));
            }
        }
        Watch {
            options: options.clone(),
            series_cpus,
            perf,
            tracepoints,
            syscall_counters: std::sync::Mutex::new(None),
            counters: options.counters,
            warnings,
        }
    }

    /// Start the vmstat series, when asked.
    pub fn start_series(&self) -> Result<Option<series::Sampling>> {
        let Some(s) = self.options.interval_s else {
            return Ok(None);
        };
        series::Sampling::start(Duration::from_secs_f64(s), self.series_cpus.clone())
            .map(Some)
            .context("starting the --observe sampling thread")
    }

    /// Start `perf record`, when asked and allowed.
    pub fn start_profile(&self) -> Result<Option<profile::Recording>> {
        self.perf
            .as_deref()
            .map(profile::Recording::start)
            .transpose()
    }

    /// Whether a counting pass is wanted (`--counters`, or `--trace` where it works).
    pub fn wants_pass(&self) -> bool {
        self.counters || self.tracepoints.is_some()
    }

    /// The untimed counting passes, after the measurement: `b` prepared afresh in `ctx`
    /// with the counters already open (so its partners and children inherit them), one
    /// warm-up batch where its plan has one, then one batch of `ops` operations counted.
    /// The counters and the system calls are counted in passes of their own: a syscall
    /// tracepoint switched on slows every call, which the task clock would see. Declared
    /// system calls not made are flagged in `notes`.
    pub fn count_passes(
        &self,
        b: &Benchmark,
        ctx: &Ctx,
        ops: u64,
        obs: &mut Observation,
        notes: &mut Vec<String>,
    ) -> Result<()> {
        if self.counters {
            let mut set = CounterSet::open();
            counted_pass(b, ctx, ops)?;
            obs.counters = Some(set.read(ops));
        }
        if let Some(tp) = &self.tracepoints {
            let mut opened = self
                .syscall_counters
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let calls = match opened.as_mut() {
                Some(calls) => calls,
                None => opened.insert(SyscallCounters::open(tp, true)?),
            };
            calls.reset()?;
            counted_pass(b, ctx, ops)?;
            let trace = calls.read(ops, b.expected_syscalls())?;
            for e in trace.expected.iter().filter(|e| !e.met) {
                notes.push(format!(
                    "--trace: declared {:.2} {} per operation, counted {:.2}: the row does \
                     not make the calls it claims",
                    e.expected_per_op, e.name, e.counted_per_op
                ));
            }
            obs.trace = Some(trace);
        }
        Ok(())
    }
}

/// One pass of `b` with this thread's (already open, disabled) counters switched on for
/// exactly one batch of `ops` operations.
fn counted_pass(b: &Benchmark, ctx: &Ctx, ops: u64) -> Result<()> {
    let mut w: Box<dyn Workload> = b.prepare(ctx)?;
    if b.plan(ctx.mode).warmup {
        w.before_sample(ops)?;
        w.run(ops)?;
    }
    w.before_sample(ops)?;
    perf::counting(|| w.run(ops))?;
    w.finish()
}

/// How many operations a counted pass does: the calibrated batch, doubled until the pass
/// lasts about 50 ms at the measured time per operation (so a call made once per
/// operation is counted thousands of times, not twice); a fixed batch (whole jobs, exact
/// counts) stays what it is.
pub fn pass_ops(batch: u64, calibrated: bool, seconds_per_op: Option<f64>) -> u64 {
    let mut ops = batch.max(1);
    if let (true, Some(t)) = (calibrated, seconds_per_op.filter(|t| *t > 0.0)) {
        while (ops as f64) * t < 0.05 && ops < batch.max(1) * 1024 {
            ops *= 2;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::contract::{LoopWorkload, StandaloneCtx};
    use crate::model::{RunOptions, Source};

    fn getpid_row(declared: &'static [(&'static str, f64)]) -> Benchmark {
        Benchmark::new("test.getpid", "x", Source::Modern("x"), |_| {
            Ok(Box::new(LoopWorkload::new(|| {
                // SAFETY: getpid has no preconditions.
                std::hint::black_box(unsafe { libc::syscall(libc::SYS_getpid) });
            })))
        })
        .expects_syscalls(declared)
    }

    #[test]
    fn a_row_that_does_not_make_its_declared_calls_is_flagged() {
        let opts = ObserveOptions {
            trace: true,
            ..ObserveOptions::default()
        };
        let sa = StandaloneCtx::new(RunOptions::default()).unwrap();
        let watch = Watch::new(&opts, &sa.host, None);
        if !watch.wants_pass() {
            // Not root, or no tracefs: the reason is the run's warning.
            eprintln!("skipped: {}", watch.warnings.join("; "));
            assert!(watch
                .warnings
                .iter()
                .any(|w| w.starts_with("--trace: cannot")));
            return;
        }
        let run = |declared| {
            let (mut obs, mut notes) = (Observation::default(), Vec::new());
            watch
                .count_passes(
                    &getpid_row(declared),
                    &sa.ctx(),
                    10_000,
                    &mut obs,
                    &mut notes,
                )
                .unwrap();
            (obs.trace.unwrap(), notes)
        };
        let (right, notes) = run(&[("getpid", 1.0)]);
        assert!(!right.flagged() && notes.is_empty(), "{right:?} {notes:?}");
        assert_eq!(right.expected[0].counted_per_op, 1.0, "{right:?}");
        // Deliberately wrong: it claims getppid, and twice the getpid it makes.
        let (wrong, notes) = run(&[("getppid", 1.0), ("getpid", 2.0)]);
        assert!(wrong.flagged());
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("declared 1.00 getppid per operation, counted 0.00"));
    }

    #[test]
    fn a_counted_pass_is_long_enough_to_count_but_a_fixed_batch_stays() {
        assert_eq!(
            pass_ops(2, true, Some(1e-3)),
            64,
            "64 ms of 1 ms operations"
        );
        assert_eq!(pass_ops(1, false, Some(1e-3)), 1);
        assert_eq!(pass_ops(10, true, Some(1e-9)), 10 * 1024, "capped");
        assert_eq!(pass_ops(100, true, None), 100);
    }
}
