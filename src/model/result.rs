//! The result record: one run, and per benchmark everything needed to trust its figure.
//! Serialised as JSON (schema in `docs/result-format.md`); `SCHEMA_VERSION` changes whenever
//! a field changes meaning or a required field is added.
//!
//! Version 2 added each result's `basis` (what its figure is per). A version-1 record has
//! none; whoever reads one fills it from the id's registered metric
//! (`bench::fill_bases`), and a row no longer registered keeps `None`: its figure is
//! then shown but never divided by another.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::basis::Basis;
use super::environment::Environment;
use super::measure::Measure;
use super::stats::Summary;
use super::unit::{Better, Unit};
use super::Mode;

pub const SCHEMA_VERSION: u32 = 2;

/// One invocation of `timeshare run`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    pub schema_version: u32,
    pub tool: Tool,
    pub options: RunOptions,
    pub environment: Environment,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub status: RunStatus,
    /// Warnings about the machine's state that may disturb the figures (002's "quiet system").
    pub warnings: Vec<String>,
    pub results: Vec<BenchResult>,
}

impl Run {
    /// A complete run of `results`, started now, with default options and environment: a
    /// run assembled in memory for tests rather than measured (outside tests, a run is
    /// begun by the harness or read by the store).
    #[cfg(test)]
    pub fn of(results: Vec<BenchResult>) -> Run {
        Run {
            schema_version: super::SCHEMA_VERSION,
            tool: Tool::this(),
            options: RunOptions::default(),
            environment: Environment::default(),
            started_at: crate::model::wallclock::now(),
            finished_at: None,
            status: RunStatus::Complete,
            warnings: Vec::new(),
            results,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Tool {
    pub fn this() -> Self {
        Tool {
            name: env!("CARGO_PKG_NAME").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Still running (as stored while it goes on).
    Running,
    /// Every selected benchmark was attempted.
    Complete,
    /// Stopped by a signal (Ctrl-C, SIGTERM) before the end; what was measured is kept.
    Interrupted,
}

impl RunStatus {
    /// How measuring that went to its end, or was stopped, ended.
    pub fn ended(interrupted: bool) -> RunStatus {
        if interrupted {
            RunStatus::Interrupted
        } else {
            RunStatus::Complete
        }
    }
}

/// The options a run was made with: recorded so that two runs can be compared honestly.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RunOptions {
    pub mode: Mode,
    /// What the user asked for (ids and families), as given.
    pub selection: Vec<String>,
    /// The CPU the measuring process was pinned to, if any.
    pub cpu: Option<usize>,
    /// Where two-process benchmarks put their processes: free, same CPU, or spread.
    pub placement: Placement,
    /// A user label for the run (`--label`).
    pub label: Option<String>,
    /// Pages the `vm` family allocates (`--pages`; default 7,500 as in seed 001's run).
    #[serde(default)]
    pub pages: Option<u64>,
    /// Run the `vm` family in a child under this memory limit, in bytes (`--memory-limit`).
    #[serde(default)]
    pub memory_limit: Option<u64>,
    /// Options of the `load` family (§6).
    #[serde(default)]
    pub load: super::load::LoadOptions,
    /// What to watch while each benchmark runs (`--observe`, `--profile`, `--counters`,
    /// `--trace`).
    #[serde(default, skip_serializing_if = "no_observation")]
    pub observe: super::observe::ObserveOptions,
    /// Fresh processes each benchmark was measured in (`--invocations`); absent = one,
    /// in the process of the run itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations: Option<usize>,
    /// Where the run belongs in a fleet (`--campaign`, `--host-name`, `--group`).
    #[serde(default, skip_serializing_if = "super::fleet::FleetTag::is_empty")]
    pub fleet: super::fleet::FleetTag,
    /// `--precision`: the relative half-width of the 95% CI each row's plan aimed at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// `--budget`: the seconds the run was allowed to reach that precision in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// Samples per invocation for these ids instead of their mode's plan (what the
    /// precision plan chose for its further invocations).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub samples: BTreeMap<String, usize>,
    /// `--cache-max`: the largest array `cpu.cache` sweeps to, in bytes (default 8 × the
    /// last cache level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_max: Option<u64>,
    /// Measured beside a whole-system observer (`--observe-system`): every figure carries
    /// the observer's cost (getpid 1.45 µs beside it, 171 ns without), so tables never
    /// take such a run as today's. Absent (false) in ordinary runs and in runs stored
    /// before the field existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub observed_system: bool,
}

impl RunOptions {
    /// Why a run made with these options is not an ordinary run, whose figures a table
    /// takes as today's: measured beside an observer, or one configuration of a
    /// `--configs` sweep (a scratch directory and memory limit of its own).
    pub fn not_ordinary(&self) -> Option<&'static str> {
        if self.observed_system {
            Some("measured beside --observe-system")
        } else if self.load.configuration.is_some() {
            Some("a configuration run (--configs)")
        } else {
            None
        }
    }
}

fn no_observation(o: &super::observe::ObserveOptions) -> bool {
    !o.any()
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Let the scheduler place both sides.
    #[default]
    Free,
    /// Both processes on one CPU.
    Same,
    /// The two processes on different CPUs.
    Spread,
}

impl Placement {
    /// The name as the option and the result format spell it.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Free => "free",
            Placement::Same => "same",
            Placement::Spread => "spread",
        }
    }
}

/// Everything recorded for one benchmark id in one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchResult {
    pub id: String,
    pub family: String,
    /// Seed file and place, or "modern: …".
    pub source: String,
    pub unit: Unit,
    pub better: Better,
    /// What the figure (and every sample, and `times`) is per: one operation, or a job of
    /// several. `None` only in a record older than schema version 2 whose id is no longer
    /// registered.
    #[serde(default)]
    pub basis: Option<Basis>,
    pub status: Status,
    /// True for a row computed from other rows (e.g. `ctx.switch`), not measured itself.
    #[serde(default)]
    pub derived: bool,
    /// How the batch size was chosen and what overhead was subtracted.
    pub calibration: Option<Calibration>,
    /// Statistics of the corrected per-operation figures of the clean samples.
    pub summary: Option<Summary>,
    /// The same statistics before overhead correction.
    pub raw_summary: Option<Summary>,
    /// True when the corrected figure would have been zero or negative: the operation is
    /// cheaper than the harness can resolve, and `summary` is then the raw figure.
    #[serde(default)]
    pub below_resolution: bool,
    /// Every sample, culled ones included, in the headline unit.
    pub samples: Vec<Sample>,
    /// How many samples were left out of the statistics as perturbed.
    pub culled: usize,
    /// Elapsed, user and system time per operation over the whole sampling phase.
    pub times: Option<OpTimes>,
    /// What the kernel counted meanwhile (the vmstat view of seed 001 §2).
    pub counters: Option<CounterDeltas>,
    /// Anything the benchmark itself reports beyond the headline (parameters, tables).
    pub details: Option<super::Details>,
    /// What was watched while it ran: the vmstat series, profile, counters, system calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<super::observe::Observation>,
    /// What a reader should know about this row (below resolution, culling not possible,
    /// placement used…), in words.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Wall-clock seconds this benchmark took, calibration included.
    pub duration_s: f64,
    /// When the run measured this id in several processes (`run --invocations K`): each
    /// invocation's own statistics. `summary` is then across invocations; see
    /// [`super::levels`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations: Option<super::invocations::Invocations>,
    /// For the rows of seed 002 Figures 4–6: calls timed one by one, as the paper's
    /// statistics were, beside the batches the headline is the median of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub single_calls: Option<SingleCalls>,
}

/// Statistics of operations timed one per pair of clock reads, the clock's own cost (an
/// empty timed region) and the loop's subtracted from each: seed 002's median, mean and
/// SD "of single calls", where a batch's mean hides the spread of its calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SingleCalls {
    /// The number of calls timed.
    pub n: usize,
    /// The cost subtracted from each call: one empty timed region plus one loop iteration.
    pub subtracted_s: f64,
    pub median_s: f64,
    pub mean_s: f64,
    /// Sample standard deviation of the single calls.
    pub sd_s: f64,
}

impl BenchResult {
    /// A result that names what it measures and holds nothing measured yet: status `Ok`,
    /// no summary, samples, times or notes. Every maker of results (the runner, derived
    /// rows, the exerciser, tests) starts here and sets what it has, so a field added to
    /// the record is given its empty value in one place.
    pub fn new(
        id: impl Into<String>,
        family: impl Into<String>,
        source: impl Into<String>,
        unit: Unit,
        better: Better,
        basis: Option<Basis>,
    ) -> BenchResult {
        BenchResult {
            id: id.into(),
            family: family.into(),
            source: source.into(),
            unit,
            better,
            basis,
            status: Status::Ok,
            derived: false,
            calibration: None,
            summary: None,
            raw_summary: None,
            below_resolution: false,
            samples: Vec::new(),
            culled: 0,
            times: None,
            counters: None,
            details: None,
            observe: None,
            notes: Vec::new(),
            duration_s: 0.0,
            invocations: None,
            single_calls: None,
        }
    }

    /// The headline figure: the median of the clean samples, in `unit`.
    pub fn median(&self) -> Option<f64> {
        self.summary.as_ref().map(|s| s.median)
    }

    /// The headline figure with its unit and basis, when there is one and its basis is
    /// known: what comparisons divide.
    pub fn measure(&self) -> Option<Measure> {
        let basis = self.basis.clone()?;
        self.median().map(|m| Measure::new(m, self.unit, basis))
    }

    /// `value` (a sample, or one of `times`) as a figure of this row: same unit and basis.
    pub fn measure_of(&self, value: f64, unit: Unit) -> Option<Measure> {
        self.basis.clone().map(|b| Measure::new(value, unit, b))
    }

    /// The family's record, when the details are one of type `T`.
    pub fn details_as<T: super::details::Record>(&self) -> Option<T> {
        self.details.as_ref().and_then(|d| d.read())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Cannot run here (no privilege, missing program, unsupported kernel).
    Skipped {
        reason: String,
    },
    /// Tried and failed; no figure is given.
    Failed {
        error: String,
    },
}

impl Status {
    pub fn is_ok(&self) -> bool {
        matches!(self, Status::Ok)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Calibration {
    /// Operations per timed sample.
    pub batch: u64,
    /// Whether `batch` was calibrated or fixed by the benchmark.
    pub calibrated: bool,
    /// The sample duration aimed at, in seconds.
    pub target_s: f64,
    /// The cost of the two clock reads around a sample, subtracted once per sample.
    pub clock_overhead_s: f64,
    /// The cost of one empty loop iteration, subtracted once per operation.
    pub loop_overhead_s: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// The corrected per-operation figure, in the result's unit.
    pub value: f64,
    /// Involuntary context switches of the measuring thread during the sample.
    pub preemptions: u64,
    /// The CPU the sample started and ended on.
    pub cpu_start: i32,
    pub cpu_end: i32,
    /// True when the sample was left out of the statistics as perturbed.
    pub culled: bool,
    /// The invocation (0-based, in the order they ran) the sample was taken in, when the
    /// run had several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<u32>,
    /// Steal time of the CPU the sample started on while it ran, in seconds (the
    /// hypervisor ran something else on it): from `/proc/stat`, in the kernel's ticks
    /// (10 ms at USER_HZ 100), so a short sample reads 0 or a whole tick. Absent where the
    /// kernel does not count it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_s: Option<f64>,
    /// The frequency of the CPU the sample ended on, in Hz, where the kernel exposes it
    /// (`cpufreq/scaling_cur_freq`); absent otherwise (the run says so once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freq_hz: Option<f64>,
}

impl Sample {
    /// A clean sample of `value`: not preempted, started and ended on CPU 0, nothing else
    /// recorded (fixtures, and the mock runner's figures).
    pub fn unperturbed(value: f64) -> Sample {
        Sample {
            value,
            preemptions: 0,
            cpu_start: 0,
            cpu_end: 0,
            culled: false,
            invocation: None,
            steal_s: None,
            freq_hz: None,
        }
    }

    /// A sample was perturbed if the thread was preempted or moved to another CPU.
    pub fn perturbed(&self) -> bool {
        self.preemptions > 0 || self.cpu_start != self.cpu_end
    }
}

/// Elapsed, user and system seconds per operation (seed 001 Table 2's three columns), with
/// the reaped children's CPU time included.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OpTimes {
    pub ops: u64,
    pub elapsed_s: f64,
    pub user_s: f64,
    pub system_s: f64,
}

/// Deltas of the kernel's own counters over one benchmark; system-wide unless named
/// `self_*` (this process and its reaped children).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CounterDeltas {
    pub context_switches: u64,
    pub interrupts: u64,
    pub forks: u64,
    pub page_faults: u64,
    pub major_faults: u64,
    pub disk_reads: u64,
    pub disk_writes: u64,
    pub disk_read_bytes: u64,
    pub disk_write_bytes: u64,
    /// Share of CPU time spent in user, system, idle, iowait and steal, 0..1.
    pub cpu_split: BTreeMap<String, f64>,
    pub self_minor_faults: u64,
    pub self_major_faults: u64,
    pub self_voluntary_switches: u64,
    pub self_involuntary_switches: u64,
}
