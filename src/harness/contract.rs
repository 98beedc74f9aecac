//! What a benchmark is: the contract between the benchmark families (`bench/`) and the
//! harness that measures them. Families depend on this module; it depends on nothing of
//! theirs.
//!
//! A benchmark is a [`Benchmark`] descriptor — its id, its one line for `list`, its seed
//! source, its metric and sampling plan, what it needs to run — plus a function that
//! prepares a [`Workload`]. A workload only knows how to do `n` operations: the harness
//! chooses `n`, times the call, subtracts overhead, repeats, culls perturbed samples and
//! summarises (lmbench's `benchmp` split; stress-ng's stressor descriptor).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use super::anchor::Anchor;
use super::state::RunState;
use crate::model::{family_of, Basis, Metric, Mode, RunOptions, Source, Unit};

/// Prepares a benchmark's workload in its context.
type Prepare = dyn Fn(&Ctx) -> Result<Box<dyn Workload>> + Send + Sync;

/// Whether a benchmark can run on a host; `Err` carries the reason it is skipped.
pub type SupportCheck = fn(&Host) -> Result<(), Skip>;

/// One registered benchmark: metadata beside the function that prepares it.
///
/// Built with [`Benchmark::new`] and the `with_*` settings; the common case (a calibrated
/// latency row that runs anywhere) needs nothing more than `new`.
pub struct Benchmark {
    id: Cow<'static, str>,
    family: Option<&'static str>,
    about: &'static str,
    source: Source,
    metric: Metric,
    plan: fn(Mode) -> Plan,
    root_only: Option<&'static str>,
    requires: Option<SupportCheck>,
    partnered: bool,
    single_calls: bool,
    measured_once: Option<&'static str>,
    syscalls: &'static [(&'static str, f64)],
    anchors: Vec<Anchor>,
    prepare: Box<Prepare>,
}

impl Benchmark {
    /// A calibrated latency row (seconds per operation) with no requirement.
    pub fn new(
        id: impl Into<Cow<'static, str>>,
        about: &'static str,
        source: Source,
        prepare: impl Fn(&Ctx) -> Result<Box<dyn Workload>> + Send + Sync + 'static,
    ) -> Benchmark {
        Benchmark {
            id: id.into(),
            family: None,
            about,
            source,
            metric: Metric::latency(),
            plan: Plan::calibrated,
            root_only: None,
            requires: None,
            partnered: false,
            single_calls: false,
            measured_once: None,
            syscalls: &[],
            anchors: Vec::new(),
            prepare: Box::new(prepare),
        }
    }

    /// The catalogue section `run FAMILY` selects it by, when it is not the id's first
    /// component (`call.*` and `timer.clock` belong to `syscall`, catalogue §1).
    pub fn with_family(mut self, family: &'static str) -> Self {
        self.family = Some(family);
        self
    }

    /// Its unit, direction and basis. The constructors' bases are generic: a row with a
    /// historical figure names its operation after this (`per`, `per_job`).
    pub fn with_metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    /// Its figure is per one `op` ("system call", "page touch"; for a throughput row, what
    /// its bytes are). Set after [`Benchmark::with_metric`], which replaces the basis.
    pub fn per(mut self, op: &'static str) -> Self {
        self.metric.basis = Basis::per(op);
        self
    }

    /// Its figure is per job of `ops` operations `op` (cpu.proc_call: 1,000,000 calls).
    pub fn per_job(mut self, ops: u64, op: &'static str) -> Self {
        self.metric.basis = Basis::job(ops, op);
        self
    }

    /// How it is sampled in each mode (default: [`Plan::calibrated`]).
    pub fn with_plan(mut self, plan: fn(Mode) -> Plan) -> Self {
        self.plan = plan;
        self
    }

    /// Skipped unless run as root, for the reason given (seed 002 "tested apart in a
    /// program that had super-user permissions").
    pub fn root_only(mut self, why: &'static str) -> Self {
        self.root_only = Some(why);
        self
    }

    /// Skipped where `check` says it cannot run (a missing program, an old kernel).
    pub fn requires(mut self, check: SupportCheck) -> Self {
        self.requires = Some(check);
        self
    }

    /// The operation involves a partner or child process. Its preempting the measuring
    /// process is then part of the operation (on one CPU every round trip does it), so
    /// samples are neither culled nor replaced: culling would keep only the samples where
    /// the other process happened to run elsewhere.
    pub fn partnered(mut self) -> Self {
        self.partnered = true;
        self
    }

    /// A run across several processes measures it in its first process only, with its
    /// own mode's plan, for the reason given: the row is already an experiment of many
    /// processes or sizes that lasts seconds, and repeating it in every fresh process
    /// multiplies a run's time for a level of variation the row samples itself (see
    /// [`crate::harness::invocations::ids_of_round`]).
    pub fn measured_in_one_process(mut self, why: &'static str) -> Self {
        self.measured_once = Some(why);
        self
    }

    /// Why a run across processes measures it in one of them only, for the rows that
    /// declare it ([`Benchmark::measured_in_one_process`]).
    pub fn measured_once_reason(&self) -> Option<&'static str> {
        self.measured_once
    }

    /// After its batches, its operation is also timed one call at a time (seed 002's
    /// statistics are of single calls): see [`crate::harness::sampler::single_calls`].
    pub fn timed_one_by_one(mut self) -> Self {
        self.single_calls = true;
        self
    }

    /// The system calls one operation makes, by name and count per operation, in this
    /// process and its partners together (`getpid` once for `syscall.getpid`; `clone`,
    /// `wait4` and the child's `exit_group` for `proc.fork.0`). `run --trace` counts them
    /// through the kernel's tracepoints and flags a row that does not make them.
    pub fn expects_syscalls(mut self, calls: &'static [(&'static str, f64)]) -> Self {
        self.syscalls = calls;
        self
    }

    /// The declared system calls per operation (see [`Benchmark::expects_syscalls`]).
    pub fn expected_syscalls(&self) -> &'static [(&'static str, f64)] {
        self.syscalls
    }

    /// The tool a user would pick instead (perf bench, lmbench, fio), which
    /// `timeshare crosscheck` runs beside this row; a row may have several.
    pub fn anchor(mut self, anchor: Anchor) -> Self {
        self.anchors.push(anchor);
        self
    }

    /// The tools this row is checked against.
    pub fn anchors(&self) -> &[Anchor] {
        &self.anchors
    }

    /// The stable id, `family.name[.variant]`: the key of stored results and comparisons.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The catalogue section it belongs to.
    pub fn family(&self) -> &str {
        self.family.unwrap_or_else(|| family_of(&self.id))
    }

    /// One line for `timeshare list`.
    pub fn about(&self) -> &'static str {
        self.about
    }

    /// The seed table or figure it reproduces, or why it is a modern addition.
    pub fn source(&self) -> Source {
        self.source
    }

    /// This row, failed with `error` and nothing measured.
    pub fn failed_result(&self, error: String) -> crate::model::BenchResult {
        let metric = self.metric();
        crate::model::BenchResult {
            status: crate::model::Status::Failed { error },
            ..crate::model::BenchResult::new(
                self.id(),
                self.family(),
                self.source().describe(),
                metric.unit,
                metric.better,
                Some(metric.basis.clone()),
            )
        }
    }

    pub fn metric(&self) -> &Metric {
        &self.metric
    }

    /// How many samples of how many operations in `mode`.
    pub fn plan(&self, mode: Mode) -> Plan {
        let mut plan = (self.plan)(mode);
        if self.partnered {
            plan.cull = false;
            plan.resample = false;
        }
        plan
    }

    /// Whether the operation involves another process (see [`Benchmark::partnered`]).
    pub fn is_partnered(&self) -> bool {
        self.partnered
    }

    /// Whether its single calls are timed too ([`Benchmark::timed_one_by_one`]).
    pub fn times_single_calls(&self) -> bool {
        self.single_calls
    }

    /// Why it needs root, for the rows that do.
    pub fn root_only_reason(&self) -> Option<&'static str> {
        self.root_only
    }

    /// Whether it checks at run time for something the machine may lack.
    pub fn has_requirement(&self) -> bool {
        self.requires.is_some()
    }

    /// `Err(Skip)` when it cannot run on `host`, with the reason.
    pub fn supported(&self, host: &Host) -> Result<(), Skip> {
        if let (Some(why), false) = (self.root_only, host.is_root) {
            return Err(Skip::new(format!(
                "needs root: {why} (run as root to include it)"
            )));
        }
        self.requires.map_or(Ok(()), |check| check(host))
    }

    /// Set up (open descriptors, create files, start children); the workload's `Drop`
    /// undoes all of it. A reason that shows only here (the scratch directory's file
    /// system cannot run programs) is returned as a [`Skip`] error: the row is skipped
    /// with it, not failed.
    pub fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        (self.prepare)(ctx)
    }
}

/// A prepared benchmark, ready to do operations. `Drop` releases everything `prepare`
/// acquired: descriptors, temporary files, child processes.
pub trait Workload {
    /// Do exactly `n` operations. The harness times this call; an error fails the row.
    /// It may be called any number of times: perturbed samples are replaced by new ones.
    fn run(&mut self, n: u64) -> Result<()>;
    /// Untimed, before each timed `run(n)`: replenish what operations consume (the files
    /// that `fs.unlink` deletes, the names `fs.create` uses), so set-up never lands inside
    /// a sample and the sample count need not be known in advance.
    fn before_sample(&mut self, _n: u64) -> Result<()> {
        Ok(())
    }
    /// After sampling and before `details`, check that the work was really done: the copy
    /// matches, the child read every byte and exited 0, every command of the script
    /// succeeded. An error fails the row — the details stay, the figure goes: work not done
    /// is never a figure.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
    /// The family's typed record of anything beyond the timing (parameters, checks made,
    /// tables), read once after `finish`; see [`crate::model::details`].
    fn details(&mut self) -> Option<crate::model::Details> {
        None
    }
    /// Sentences for the main table beside the harness's own (what the page cache did,
    /// the placement used), read once after `details`.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// The row's own figure for each sample, when the timed call is not the figure the
    /// seed measured: seed 000's Table 9 is the average real time of the copies a batch
    /// started, not the batch's wall time. `None` (the default): the harness's timing is
    /// the figure. Read once after `notes`; see [`OwnFigures`].
    fn own_figures(&mut self) -> Option<OwnFigures> {
        None
    }
}

/// A workload's own figures, replacing the harness's timing of each sample in the headline
/// (the harness's timing stays the workload's to keep in its details).
#[derive(Debug, Clone, PartialEq)]
pub struct OwnFigures {
    /// One value per sample taken, in order, in the row's unit and basis.
    pub values: Vec<f64>,
    /// Elapsed, user and system time per operation of the row's basis.
    pub times: crate::model::OpTimes,
    /// One sentence for the main table: what the figure is.
    pub note: String,
}

/// Why a benchmark cannot run on this machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
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

    /// Calibrated batches without the empty loop's cost subtracted: for operations whose
    /// latency hides the loop's own instructions (a dependent load, a page fault).
    pub fn calibrated_no_loop(mode: Mode) -> Self {
        Plan {
            subtract_loop: false,
            ..Plan::calibrated(mode)
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
    /// State the rows of one run share (calibrated work sizes, baselines), by type.
    pub state: &'a RunState,
    /// The plan this process samples the row with (`harness::invocations::plan_for`: in
    /// a quick run across processes, a third of one process's samples), so that what a
    /// row makes beforehand (files to delete) fits what it will take; `None` outside a
    /// run, meaning the row's own plan for `mode`.
    pub plan: Option<Plan>,
    /// Whether this process is the first of its run to measure the row. A result merged
    /// across processes keeps the first's details and single calls
    /// (`model::levels::merge`), so a later process skips what only they are made of
    /// (see [`Ctx::percentile_ops`]); outside a run across processes, always true.
    pub first_process: bool,
}

impl Ctx<'_> {
    /// Operations of a percentile pass after sampling (per-operation p50/p90/p99 in the
    /// row's details): `ops` in the first process to measure the row, none in a later one,
    /// whose details the merged result does not keep.
    pub fn percentile_ops(&self, ops: u64) -> u64 {
        if self.first_process {
            ops
        } else {
            0
        }
    }
}

/// A context of its own, for preparing a benchmark outside a run (tests, tools): the
/// options, this host, a fresh run state and a scratch directory removed on drop.
pub struct StandaloneCtx {
    pub options: RunOptions,
    pub host: Host,
    pub state: RunState,
    pub scratch: tempfile::TempDir,
}

impl StandaloneCtx {
    pub fn new(options: RunOptions) -> Result<StandaloneCtx> {
        Ok(StandaloneCtx {
            options,
            host: Host::detect(),
            state: RunState::new(),
            scratch: tempfile::Builder::new()
                .prefix(&super::debris::scratch_prefix())
                .tempdir()?,
        })
    }

    /// The scratch directory.
    pub fn path(&self) -> &Path {
        self.scratch.path()
    }

    pub fn ctx(&self) -> Ctx<'_> {
        Ctx {
            mode: self.options.mode,
            options: &self.options,
            scratch: self.scratch.path(),
            host: &self.host,
            state: &self.state,
            plan: None,
            first_process: true,
        }
    }
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
            // SAFETY: geteuid has no preconditions and cannot fail.
            is_root: unsafe { libc::geteuid() } == 0,
            usable_cpus: super::cpu::usable_cpus(),
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
    /// What its figure is per.
    pub basis: Basis,
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
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            (self.op)();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nothing(_: &Ctx) -> Result<Box<dyn Workload>> {
        Ok(Box::new(LoopWorkload::new(|| {})))
    }

    #[test]
    fn the_family_is_the_first_component_unless_given() {
        let b = Benchmark::new("pipe.back.4", "x", Source::Modern("x"), nothing);
        assert_eq!(b.family(), "pipe");
        let b =
            Benchmark::new("timer.clock", "x", Source::Modern("x"), nothing).with_family("syscall");
        assert_eq!(b.family(), "syscall");
    }

    #[test]
    fn a_partnered_row_is_neither_culled_nor_resampled() {
        let b = Benchmark::new("pipe.back.4", "x", Source::Modern("x"), nothing).partnered();
        let plan = b.plan(Mode::Quick);
        assert!(!plan.cull && !plan.resample);
        let alone = Benchmark::new("pipe.self.4", "x", Source::Modern("x"), nothing);
        assert!(alone.plan(Mode::Quick).cull);
    }

    #[test]
    fn root_only_rows_say_why_they_are_skipped() {
        let b = Benchmark::new("syscall.setuid", "x", Source::Modern("x"), nothing)
            .root_only("setting the process's ids is privileged");
        let user = Host {
            is_root: false,
            usable_cpus: vec![0],
        };
        let root = Host {
            is_root: true,
            ..user.clone()
        };
        let Err(Skip(why)) = b.supported(&user) else {
            panic!("an ordinary user ran a root-only row");
        };
        assert!(why.starts_with("needs root: setting"), "{why}");
        assert!(b.supported(&root).is_ok());
    }
}
