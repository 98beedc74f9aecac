//! What to measure. One folder per benchmark family, each exporting `all()`; this file is
//! the interface they implement and the one registry list that `list`, `run`, the docs and
//! the smoke test are all driven by.
//!
//! A benchmark only knows how to do `n` operations. The harness chooses `n`, times the
//! call, subtracts overhead, repeats, culls perturbed samples and summarises.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::model::{family_of, Metric, Mode, RunOptions, Source, Unit};

pub mod cache;
pub mod cpu;
pub mod fs;
pub mod io;
pub mod load;
pub mod message;
pub mod micro;
pub mod mixed;
pub mod pipe;
pub mod proc;
pub mod row;
pub mod select;
pub mod signal;
pub mod syscall;
pub mod udg;
pub mod vm;

/// Every registered benchmark, in the order `run` executes them and `list` shows them.
pub fn registry() -> Vec<Box<dyn Benchmark>> {
    let mut all = Vec::new();
    all.extend(syscall::all());
    all.extend(signal::all());
    all.extend(pipe::all());
    all.extend(udg::all());
    all.extend(proc::all());
    all.extend(vm::all());
    all.extend(cache::all());
    all.extend(cpu::all());
    all.extend(io::all());
    all.extend(fs::all());
    all.extend(load::all());
    all.extend(mixed::all());
    all
}

/// Every derived row: computed from measured rows of the same run, never measured itself.
pub fn derived_rows() -> Vec<Derived> {
    let mut all = Vec::new();
    all.extend(signal::derived());
    all.extend(proc::derived());
    all
}

pub trait Benchmark: Send + Sync {
    /// The stable id, `family.name[.variant]`: the key of stored results and comparisons.
    fn id(&self) -> &'static str;
    /// One line for `timeshare list`.
    fn about(&self) -> &'static str;
    /// The seed table or figure it reproduces, or why it is a modern addition.
    fn source(&self) -> Source;
    /// The catalogue section it belongs to, which `run FAMILY` selects. Defaults to the
    /// first component of the id; `call.*` and `timer.clock` belong to `syscall` (§1).
    fn family(&self) -> &'static str {
        family_of(self.id())
    }
    fn metric(&self) -> Metric {
        Metric::latency()
    }
    /// How many samples of how many operations; the default calibrates the batch size.
    fn plan(&self, mode: Mode) -> Plan {
        Plan::calibrated(mode)
    }
    /// `Err(Skip)` when the benchmark cannot run here, with the reason.
    fn supported(&self, _host: &Host) -> Result<(), Skip> {
        Ok(())
    }
    /// Set up (open descriptors, create files, start children); the workload's `Drop`
    /// undoes all of it.
    fn prepare(&self, ctx: &Ctx) -> anyhow::Result<Box<dyn Workload>>;
}

/// A prepared benchmark, ready to do operations. `Drop` releases everything `prepare`
/// acquired: descriptors, temporary files, child processes.
pub trait Workload {
    /// Do exactly `n` operations. The harness times this call; an error fails the row.
    /// It may be called any number of times: perturbed samples are replaced by new ones.
    fn run(&mut self, n: u64) -> anyhow::Result<()>;
    /// Untimed, before each timed `run(n)`: replenish what operations consume (the files
    /// that `fs.unlink` deletes, the names `fs.create` uses), so set-up never lands inside
    /// a sample and the sample count need not be known in advance.
    fn before_sample(&mut self, _n: u64) -> anyhow::Result<()> {
        Ok(())
    }
    /// Anything to record beyond the timing (parameters, checks made, tables), read once
    /// after sampling.
    fn details(&mut self) -> Option<serde_json::Value> {
        None
    }
    /// Sentences for the main table beside the harness's own (what the page cache did,
    /// the placement used), read once after `details`.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// After sampling and before `details`, check that the work was really done: the copy matches, the child
    /// read every byte and exited 0, every command of the script succeeded. An error fails
    /// the row — the details stay, the figure goes: work not done is never a figure.
    fn finish(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Why a benchmark cannot run on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip(pub String);

impl Skip {
    pub fn new(reason: impl Into<String>) -> Self {
        Skip(reason.into())
    }
}

/// How a benchmark is sampled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub batch: Batch,
    /// Samples to take (before culling).
    pub samples: usize,
    /// How long one calibrated sample should last.
    pub target: Duration,
    /// Run one untimed batch first (caches, page tables, branch predictors).
    pub warmup: bool,
    /// Subtract the empty loop's cost per operation: right for benchmarks whose `run` is a
    /// plain loop over a cheap operation, pointless for whole jobs.
    pub subtract_loop: bool,
    /// Replace perturbed samples by taking more, up to three times `samples`, so that the
    /// statistics rest on `samples` clean ones; off for whole jobs, too long to repeat.
    pub resample: bool,
    /// Leave preempted or migrated samples out of the statistics. Right when the measuring
    /// thread does the work; meaningless for jobs run by other processes while it waits.
    pub cull: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Batch {
    /// The harness doubles the batch until one lasts `target`.
    Calibrated,
    /// Exactly this many operations per sample (e.g. 002's "single calls timed one by one").
    Fixed(u64),
}

impl Plan {
    /// Calibrated batches: quick = 21 samples of ≥ 2 ms, full = 51 samples of ≥ 10 ms.
    pub fn calibrated(mode: Mode) -> Self {
        let (samples, target_ms) = match mode {
            Mode::Quick => (21, 2),
            Mode::Full => (51, 10),
        };
        Plan {
            batch: Batch::Calibrated,
            samples,
            target: Duration::from_millis(target_ms),
            warmup: true,
            subtract_loop: true,
            resample: true,
            cull: true,
        }
    }

    /// A fixed number of operations per sample, `samples` times.
    pub fn fixed(batch: u64, samples: usize) -> Self {
        Plan {
            batch: Batch::Fixed(batch),
            samples,
            target: Duration::ZERO,
            warmup: true,
            subtract_loop: batch > 1,
            resample: true,
            cull: true,
        }
    }

    /// Whole jobs (a game, a build): one per sample, a few samples, no loop correction.
    pub fn job(mode: Mode) -> Self {
        let samples = match mode {
            Mode::Quick => 3,
            Mode::Full => 7,
        };
        Plan {
            batch: Batch::Fixed(1),
            samples,
            target: Duration::ZERO,
            warmup: false,
            subtract_loop: false,
            resample: false,
            cull: false,
        }
    }
}

/// What a benchmark may know about the run it is part of.
pub struct Ctx<'a> {
    pub mode: Mode,
    pub options: &'a RunOptions,
    /// A private directory for this benchmark's files, removed by the harness afterwards.
    pub scratch: &'a Path,
    pub host: &'a Host,
}

/// Facts about the machine that decide whether a benchmark can run.
#[derive(Debug, Clone)]
pub struct Host {
    pub is_root: bool,
    /// CPUs this process may run on.
    pub usable_cpus: Vec<usize>,
}

impl Host {
    pub fn detect() -> Self {
        Host {
            is_root: unsafe { libc::geteuid() } == 0,
            usable_cpus: crate::harness::cpu::usable_cpus(),
        }
    }

    /// The full path of `program` on PATH, if it is there.
    pub fn find_program(&self, program: &str) -> Option<PathBuf> {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|p| is_executable(p))
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// A row computed from measured rows of the same run (e.g. 001's ctx.switch = csw − 2 ×
/// signocsw). Its value exists only when every input was measured.
pub struct Derived {
    pub id: &'static str,
    pub about: &'static str,
    pub source: Source,
    pub unit: Unit,
    /// Ids of the rows whose medians `compute` receives, in this order.
    pub inputs: &'static [&'static str],
    pub compute: fn(&[f64]) -> f64,
}

/// A workload that is a plain loop over one cheap operation: the common case. The closure
/// is monomorphised into the loop, so the loop is exactly the shape the harness's empty
/// loop measures.
pub struct LoopWorkload<F: FnMut()> {
    op: F,
}

impl<F: FnMut()> LoopWorkload<F> {
    pub fn new(op: F) -> Self {
        LoopWorkload { op }
    }
}

impl<F: FnMut()> Workload for LoopWorkload<F> {
    fn run(&mut self, n: u64) -> anyhow::Result<()> {
        for _ in 0..n {
            (self.op)();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for b in registry() {
            let id = b.id();
            assert!(seen.insert(id), "duplicate id {id}");
            assert!(
                id.split('.').all(|part| !part.is_empty()
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')),
                "malformed id {id}"
            );
            assert!(!b.about().is_empty(), "{id} has no description");
        }
        for d in derived_rows() {
            assert!(seen.insert(d.id), "derived id {} clashes", d.id);
        }
    }

    /// stress-ng's verify-test-all: every registered benchmark is prepared and does one
    /// operation, or says why it cannot run here.
    #[test]
    fn every_registered_benchmark_runs_once() {
        let host = Host::detect();
        let options = RunOptions::default();
        for b in registry() {
            if let Err(Skip(reason)) = b.supported(&host) {
                assert!(reason.len() > 10, "{}: skip without a reason", b.id());
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            let ctx = Ctx {
                mode: Mode::Quick,
                options: &options,
                scratch: dir.path(),
                host: &host,
            };
            let mut w = b
                .prepare(&ctx)
                .unwrap_or_else(|e| panic!("{}: prepare failed: {e:#}", b.id()));
            w.run(1)
                .unwrap_or_else(|e| panic!("{}: one operation failed: {e:#}", b.id()));
        }
    }

    #[test]
    fn derived_inputs_are_registered() {
        let ids: HashSet<_> = registry().iter().map(|b| b.id()).collect();
        for d in derived_rows() {
            for input in d.inputs {
                assert!(ids.contains(input), "{} needs unknown {input}", d.id);
            }
        }
    }
}
