//! What was watched while a benchmark ran, beyond its timing (seed 001 §2: vmstat and
//! iostat sampled during the runs, the kernel profiled, the system calls counted):
//!
//! - [`Series`]: the machine's vmstat/iostat view, one [`VmstatLine`] per interval
//!   (`run --observe`, and `timeshare monitor` line by line);
//! - [`Profile`]: the flat profile of the benchmark's processes (`run --profile`);
//! - [`PerfCounters`]: hardware and software counters per operation (`run --counters`);
//! - [`SyscallTrace`]: the system calls made per operation, checked against the ones the
//!   benchmark declares (`run --trace`).
//!
//! Raw SI values (bytes, seconds, per second, shares 0..1); display units are chosen when
//! rendering. Every field is optional or defaulted, so results written before this record
//! existed still read.

use serde::{Deserialize, Serialize};

/// Everything watched for one benchmark; each part only when it was asked for and could
/// be had (what could not is said once, in the run's warnings).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<Series>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<PerfCounters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<SyscallTrace>,
}

impl Observation {
    pub fn is_empty(&self) -> bool {
        self.series.is_none()
            && self.profile.is_none()
            && self.counters.is_none()
            && self.trace.is_none()
    }
}

/// What `run` was asked to watch (`--observe`, `--profile`, `--counters`, `--trace`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObserveOptions {
    /// Sample the vmstat view every this many seconds during each benchmark.
    #[serde(default)]
    pub interval_s: Option<f64>,
    #[serde(default)]
    pub profile: bool,
    #[serde(default)]
    pub counters: bool,
    #[serde(default)]
    pub trace: bool,
}

impl ObserveOptions {
    /// The default `--observe` interval: 100 ms.
    pub const DEFAULT_INTERVAL_S: f64 = 0.1;

    pub fn any(&self) -> bool {
        self.interval_s.is_some() || self.profile || self.counters || self.trace
    }
}

/// The vmstat view sampled during one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// The interval asked for, in seconds; the last line may cover less.
    pub interval_s: f64,
    pub lines: Vec<VmstatLine>,
}

impl Series {
    /// The mean of `f` over the lines, weighted by their intervals.
    pub fn mean(&self, f: impl Fn(&VmstatLine) -> f64) -> Option<f64> {
        let total: f64 = self.lines.iter().map(|l| l.interval_s).sum();
        (total > 0.0).then(|| self.lines.iter().map(|l| f(l) * l.interval_s).sum::<f64>() / total)
    }

    /// The largest value of `f` over the lines.
    pub fn max(&self, f: impl Fn(&VmstatLine) -> f64) -> Option<f64> {
        self.lines.iter().map(f).reduce(f64::max)
    }
}

/// One interval of the machine's life, in vmstat's and iostat's columns: rates per
/// second over the interval, levels at its end.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VmstatLine {
    /// Seconds from the start of the series to the end of this interval.
    pub t_s: f64,
    /// The interval's length, in seconds.
    pub interval_s: f64,
    /// Processes runnable (running or waiting for a CPU) and blocked on I/O at the end.
    pub runnable: u32,
    pub blocked: u32,
    pub free_bytes: u64,
    /// Page cache and buffers.
    pub cached_bytes: u64,
    pub swap_in_bytes_per_s: f64,
    pub swap_out_bytes_per_s: f64,
    /// Page faults (minor and major) and major faults alone, per second.
    pub faults_per_s: f64,
    pub major_faults_per_s: f64,
    pub interrupts_per_s: f64,
    pub context_switches_per_s: f64,
    /// Shares of all CPUs' time, 0..1.
    pub cpu: CpuShares,
    /// Whole physical disks.
    #[serde(default)]
    pub disks: Vec<DiskRates>,
}

/// Shares of CPU time by state, 0..1, summing to 1 (user includes nice; system includes
/// interrupt handling).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuShares {
    pub user: f64,
    pub system: f64,
    pub idle: f64,
    pub iowait: f64,
    pub steal: f64,
}

/// One disk over one interval, in iostat's terms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskRates {
    pub name: String,
    pub read_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
    /// Share of the interval the device had I/O in flight (iostat's %util), 0..1.
    pub utilisation: f64,
}

/// The flat profile of one benchmark: where the CPU was when sampled, system-wide, with
/// the functions counted over the samples of the benchmark's own processes (timeshare
/// and every process it started meanwhile).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// The sampling event (`cpu-clock` where there is no hardware PMU).
    pub event: String,
    pub frequency_hz: u32,
    /// Whether call chains were recorded (then each function names its commonest caller).
    pub call_graph: bool,
    /// Samples on any CPU, any process, while the benchmark ran.
    pub machine_samples: u64,
    /// Of those, the samples in the benchmark's processes (the shares' denominator).
    pub samples: u64,
    /// The top functions by self share, most first.
    pub functions: Vec<ProfileEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileEntry {
    pub symbol: String,
    /// The object it is in: `[kernel.kallsyms]`, a library, the program.
    pub dso: String,
    pub kernel: bool,
    /// Share of the benchmark's samples with this function at the top of the stack, 0..1.
    pub share: f64,
    pub samples: u64,
    /// The caller seen most often, when call chains were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
}

/// Counters through perf_event_open over a pass of `ops` operations: the benchmark's
/// process and every process it started (a partner's work is part of a round trip).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfCounters {
    pub ops: u64,
    pub counters: Vec<Counted>,
}

impl PerfCounters {
    /// The reading of the counter named `name`, if it was asked for.
    pub fn reading(&self, name: &str) -> Option<&Reading> {
        self.counters
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.reading)
    }

    /// The counter named `name`, if it was counted.
    pub fn total(&self, name: &str) -> Option<u64> {
        match self.reading(name)? {
            Reading::Counted { total, .. } => Some(*total),
            Reading::Unavailable { .. } => None,
        }
    }

    /// Why the counter named `name` could not be counted, if it could not.
    pub fn unavailable(&self, name: &str) -> Option<&str> {
        match self.reading(name)? {
            Reading::Unavailable { reason } => Some(reason),
            Reading::Counted { .. } => None,
        }
    }

    /// Instructions per cycle, when both were counted.
    pub fn ipc(&self) -> Option<f64> {
        let cycles = self.total("cycles")?;
        let instructions = self.total("instructions")?;
        (cycles > 0).then(|| instructions as f64 / cycles as f64)
    }
}

/// One counter's reading, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counted {
    /// perf's name: `cycles`, `instructions`, `cache-misses`, `task-clock`…
    pub name: String,
    pub hardware: bool,
    pub reading: Reading,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum Reading {
    Counted {
        total: u64,
        /// `total / ops`; task-clock in seconds per operation, the rest in events.
        per_op: f64,
        /// Share of the pass the counter was on the PMU (below 1 when multiplexed; the
        /// total is then scaled up by perf's usual estimate).
        #[serde(default = "one")]
        running: f64,
    },
    Unavailable {
        reason: String,
    },
}

fn one() -> f64 {
    1.0
}

/// The system calls of a pass of `ops` operations, counted through the kernel's syscall
/// tracepoints in the benchmark's process and every process it started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyscallTrace {
    pub ops: u64,
    /// All system calls per operation.
    pub total_per_op: f64,
    /// Every call made at least once, most frequent first.
    pub calls: Vec<SyscallCount>,
    /// The benchmark's declared calls, each compared with what was counted.
    pub expected: Vec<ExpectationCheck>,
}

impl SyscallTrace {
    /// True when a declared call was not made at the declared rate.
    pub fn flagged(&self) -> bool {
        self.expected.iter().any(|e| !e.met)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyscallCount {
    pub name: String,
    pub count: u64,
    pub per_op: f64,
}

/// A declared call per operation beside the counted one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectationCheck {
    pub name: String,
    pub expected_per_op: f64,
    pub counted_per_op: f64,
    pub met: bool,
}

/// How far a counted rate may stray from a declared one and still meet it: 10 %, plus two
/// calls over the whole pass (a partner blocked in a call when counting starts or ends).
pub fn expectation_met(expected_per_op: f64, count: u64, ops: u64) -> bool {
    if ops == 0 {
        return false;
    }
    let expected = expected_per_op * ops as f64;
    (count as f64 - expected).abs() <= 0.1 * expected + 2.0
}

/// Each declared `(call, per_op)` checked against `counted` over `ops` operations.
pub fn check_expectations(
    declared: &[(&str, f64)],
    counted: &[SyscallCount],
    ops: u64,
) -> Vec<ExpectationCheck> {
    declared
        .iter()
        .map(|&(name, expected_per_op)| {
            let count = counted
                .iter()
                .find(|c| c.name == name)
                .map_or(0, |c| c.count);
            ExpectationCheck {
                name: name.to_string(),
                expected_per_op,
                counted_per_op: if ops > 0 {
                    count as f64 / ops as f64
                } else {
                    0.0
                },
                met: expectation_met(expected_per_op, count, ops),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(name: &str, count: u64) -> SyscallCount {
        SyscallCount {
            name: name.into(),
            count,
            per_op: 0.0,
        }
    }

    #[test]
    fn a_call_made_as_declared_meets_its_expectation() {
        let calls = [counted("getpid", 10_001), counted("ioctl", 1)];
        let checks = check_expectations(&[("getpid", 1.0)], &calls, 10_000);
        assert!(checks[0].met, "{checks:?}");
        assert!((checks[0].counted_per_op - 1.0001).abs() < 1e-9);
    }

    #[test]
    fn a_call_not_made_or_made_at_another_rate_is_flagged() {
        let calls = [counted("getpid", 10_000)];
        let wrong = check_expectations(&[("getppid", 1.0), ("getpid", 2.0)], &calls, 10_000);
        assert!(!wrong[0].met && wrong[0].counted_per_op == 0.0);
        assert!(
            !wrong[1].met,
            "half the declared rate is not the declared rate"
        );
        let trace = SyscallTrace {
            ops: 10_000,
            total_per_op: 1.0,
            calls: calls.to_vec(),
            expected: wrong,
        };
        assert!(trace.flagged());
    }

    #[test]
    fn a_few_calls_at_the_edges_of_a_short_pass_are_forgiven() {
        // 20 forks: a partner's call caught at either end of the pass is not a failure.
        assert!(expectation_met(1.0, 22, 20));
        assert!(!expectation_met(1.0, 25, 20));
        assert!(!expectation_met(1.0, 0, 0));
    }

    #[test]
    fn ipc_needs_both_counters() {
        let c = |name: &str, total| Counted {
            name: name.into(),
            hardware: true,
            reading: Reading::Counted {
                total,
                per_op: 0.0,
                running: 1.0,
            },
        };
        let mut pc = PerfCounters {
            ops: 1,
            counters: vec![c("cycles", 200), c("instructions", 300)],
        };
        assert_eq!(pc.ipc(), Some(1.5));
        pc.counters[1].reading = Reading::Unavailable { reason: "x".into() };
        assert_eq!(pc.ipc(), None);
    }

    #[test]
    fn an_old_result_without_observation_fields_still_reads() {
        let o: Observation = serde_json::from_str("{}").unwrap();
        assert!(o.is_empty());
        let opts: ObserveOptions = serde_json::from_str("{}").unwrap();
        assert!(!opts.any());
    }
}
