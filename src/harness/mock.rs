//! The run path's hidden test mode, after hyperfine's mock executor: with [`ENV`] set in
//! its environment, `timeshare run` (and every invocation it starts, which inherits the
//! variable) measures nothing. Each row gets figures computed from its id, the machine is
//! a fixed one, and the clock stands still but for each row's fixed duration, so that
//! what `run` prints — its tables, its warnings, its closing summary — is the same on
//! every machine and can be pinned by snapshots (`tests/it/snapshots.rs`). Everything
//! else of the run path is real: the selection, the options' checks, the session with its
//! strategies, the store, the printers.
//!
//! Not for people: it is named nowhere in `--help`, and a run made so says
//! "mock" in its environment (host, CPU model, hypervisor).

use chrono::{DateTime, TimeZone, Utc};

use super::contract::Benchmark;
use crate::model::environment::{Cpu, Kernel, WorkDir};
use crate::model::{
    BenchResult, Better, Calibration, Environment, Overhead, Sample, Status, Summary, Unit,
};

/// The environment variable that turns the mock on (any value).
pub const ENV: &str = "TIMESHARE_MOCK_RUN";

/// Whether this process measures in the mock.
pub fn active() -> bool {
    std::env::var_os(ENV).is_some()
}

/// The instant every mock run starts at.
pub fn started_at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0)
        .single()
        .expect("a valid instant")
}

/// Seconds each mock row takes: what the closing summary's total adds up.
const ROW_SECONDS: f64 = 0.25;

/// The mock's clock and loop overhead.
pub fn overhead() -> Overhead {
    Overhead {
        clock_s: 20e-9,
        per_iter_s: 0.5e-9,
        resolution_s: 1e-9,
    }
}

/// A fixed machine: two CPUs in a virtual machine (so the run warns about it, and the
/// warning's path through the printers is pinned too).
pub fn environment() -> Environment {
    Environment {
        hostname: "mock".into(),
        kernel: Kernel {
            sysname: "Linux".into(),
            release: "6.1.0-mock".into(),
            version: "#1 SMP mock".into(),
            machine: "x86_64".into(),
        },
        cpu: Cpu {
            model: "Mock CPU @ 2.00GHz".into(),
            logical: 2,
            usable: 2,
            mhz: Some(2000.0),
            caches: Vec::new(),
            flags_of_note: Vec::new(),
        },
        memory_bytes: 8 << 30,
        swap_bytes: 0,
        clocksource: Some("tsc".into()),
        virtualization: Some("mock".into()),
        workdir: WorkDir {
            path: "/tmp".into(),
            fs_type: "tmpfs".into(),
            device: "tmpfs".into(),
            memory_backed: true,
        },
        ..Environment::default()
    }
}

/// The relative offsets of a mock row's samples from its figure: eleven, spread ±5%.
const OFFSETS: [f64; 11] = [
    -0.05, -0.04, -0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03, 0.04, 0.05,
];

/// How much a row's figure moves each time this process measures it again: the quiet
/// machine's reference, measured before and after a run across processes, then drifts
/// by more than its intervals, and the warning that says so is pinned as well.
const DRIFT_PER_REPEAT: f64 = 0.2;

/// The result of `b`, measured for the `repeat`-th time (0-based) in this process.
pub fn result(b: &Benchmark, repeat: usize) -> BenchResult {
    let metric = b.metric();
    let drift = 1.0 + DRIFT_PER_REPEAT * repeat as f64;
    let figure = match metric.better {
        Better::Lower => typical(metric.unit) * spread(b.id()) * drift,
        Better::Higher => typical(metric.unit) * spread(b.id()) / drift,
    };
    let values: Vec<f64> = OFFSETS.iter().map(|o| figure * (1.0 + o)).collect();
    let summary = Summary::from_values(&values).ok();
    let overhead = overhead();
    BenchResult {
        status: Status::Ok,
        calibration: Some(Calibration {
            batch: 1000,
            calibrated: true,
            target_s: 0.002,
            clock_overhead_s: overhead.clock_s,
            loop_overhead_s: overhead.per_iter_s,
        }),
        raw_summary: summary.clone(),
        summary,
        samples: values
            .iter()
            .map(|&value| Sample::unperturbed(value))
            .collect(),
        duration_s: ROW_SECONDS,
        ..BenchResult::new(
            b.id(),
            b.family(),
            b.source().describe(),
            metric.unit,
            metric.better,
            Some(metric.basis.clone()),
        )
    }
}

/// A plausible figure of a row in `unit`.
fn typical(unit: Unit) -> f64 {
    match unit {
        Unit::SecondsPerOp => 1e-6,
        Unit::BytesPerSecond => 1e9,
        Unit::Seconds => 0.1,
        Unit::Ratio => 1.0,
        Unit::Count => 100.0,
    }
}

/// A factor from 0.1 to 10, the same for an id on every machine and in every release
/// (FNV-1a of its bytes: the standard library's hasher may change between releases).
fn spread(id: &str) -> f64 {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let unit_interval = (hash % 10_000) as f64 / 10_000.0;
    10f64.powf(2.0 * unit_interval - 1.0)
}

/// When a mock run ends: its start, and the durations of its rows after it.
pub fn finished_at(started_at: DateTime<Utc>, results: &[BenchResult]) -> DateTime<Utc> {
    let seconds: f64 = results.iter().map(|r| r.duration_s).sum();
    started_at + chrono::Duration::milliseconds((seconds * 1000.0).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_s_mock_figure_is_fixed_by_its_id_and_drifts_when_measured_again() {
        assert_eq!(spread("syscall.getpid"), spread("syscall.getpid"));
        assert_ne!(spread("syscall.getpid"), spread("syscall.getppid"));
        assert!((0.1..=10.0).contains(&spread("x")));
        let b = crate::harness::contract::Benchmark::new(
            "t.mock",
            "a mock row",
            crate::model::Source::Modern("a test"),
            |_| anyhow::bail!("not prepared in the mock"),
        );
        let first = result(&b, 0).median().unwrap();
        let again = result(&b, 1).median().unwrap();
        assert_eq!(first, result(&b, 0).median().unwrap());
        assert!((again / first - 1.2).abs() < 1e-9, "{first} {again}");
        let s = result(&b, 0).summary.unwrap();
        assert!(s.ci_low < s.median && s.median < s.ci_high);
    }
}
