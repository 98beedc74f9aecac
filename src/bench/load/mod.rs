//! §6 of the catalogue: many processes at once (seed 000, Brandt & Thompson 1975, Tables
//! 9, 10, 11 and Attachment C).
//!
//! - `load.cpu.N` (`cpu.rs`): N copies of a compute-bound program at once (Table 9).
//! - `load.script.N` (`script/`): N users running a command script, started at staggered
//!   intervals, with per-command accounting (Table 10, Attachment C).
//! - `load.iointerference.K` (`io.rs`): a compute-bound program alone and beside K
//!   sequential readers (Table 11).
//!
//! The rows of one kind share their work size and their single-copy baseline through
//! [`LoadState`] in the run's state, so that `Inc` (average real at N / real at 1) compares like with like even
//! when the user selects only `load.cpu.10`: the baseline is then measured first.

use std::collections::HashMap;

use crate::harness::contract::{Benchmark, Plan};
use crate::harness::rusage::DriverMeter;
use crate::harness::state::Shared;
use crate::model::details::load::DriverCpu;
use crate::model::{LoadOptions, Mode};

mod cpu;
mod io;
pub mod kernel;
pub mod options;
pub mod script;

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 110,
        family: "load",
        heading: "`load` — many users at once",
        seeds: "Seed 000 Tables 9–11 and Attachment C: concurrent copies, command scripts with \
            per-command accounting, I/O interference.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family {
        options: Some(&options::OPTIONS),
        ..crate::bench::Family::rows("load", 150, |o| all(&o.load))
    }
}

/// The family's rows for the lists the user gave (`--copies`, `--users`, `--readers`).
pub fn all(options: &LoadOptions) -> Vec<Benchmark> {
    let mut all = Vec::new();
    all.extend(options.copies().into_iter().map(cpu::row));
    all.extend(options.users().into_iter().map(script::row));
    all.extend(options.readers().into_iter().map(io::row));
    all
}

/// How a load row is sampled: whole runs of its processes, one in quick mode — the row is
/// already an experiment of many processes, and one run of them answers a first look —
/// and five in full. A run across processes measures these rows in its first process
/// only ([`ONE_PROCESS`]), with this plan.
pub fn plan(mode: Mode) -> Plan {
    Plan {
        samples: repetitions(mode),
        ..Plan::job(mode)
    }
}

/// The rows a configuration sweep (`run --configs`) runs when none are named: the command
/// scripts (the scratch directory's file system matters to them) and the copies (the memory
/// limit does).
pub const CONFIGURATION_ROWS: [&str; 2] = ["load.script", "load.cpu"];

/// Why a run across processes measures every load row in its first process only: the
/// row is an experiment of many processes already and lasts seconds.
pub const ONE_PROCESS: &str = "the row starts many processes itself";

/// Repetitions of a load row in `mode` (see [`plan`]).
pub fn repetitions(mode: Mode) -> usize {
    match mode {
        Mode::Quick => 1,
        Mode::Full => 5,
    }
}

/// The note every load row carries: the time it was given, `work` saying how long its
/// processes' work is ("copies of 0.2 s of work each").
pub fn budget_note(mode: Mode, work: &str) -> String {
    let (name, n) = match mode {
        Mode::Quick => ("quick", repetitions(mode)),
        Mode::Full => ("full", repetitions(mode)),
    };
    let times = if n == 1 {
        "one repetition".to_string()
    } else {
        format!("{n} repetitions")
    };
    format!("{name} mode: {times}, {work}")
}

/// Figures shared between the rows of a run (kept in the run's state, see
/// [`crate::harness::state`]): calibrated work sizes and baselines, keyed by everything
/// they depend on.
#[derive(Default)]
pub struct LoadState {
    values: HashMap<String, f64>,
    works: HashMap<String, kernel::Work>,
    /// (N, Inc) of the `load.cpu` rows measured so far, for the knee.
    pub cpu_incs: Vec<(usize, f64)>,
}

impl LoadState {
    pub fn get(&self, key: &str) -> Option<f64> {
        self.values.get(key).copied()
    }
    pub fn set(&mut self, key: &str, value: f64) {
        self.values.insert(key.to_string(), value);
    }
}

/// Lock the run's load state (a poisoned lock still holds usable figures).
pub fn lock(shared: &Shared<LoadState>) -> std::sync::MutexGuard<'_, LoadState> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// The value under `key`, computed by `make` the first time (outside the lock: `make` may
/// take seconds).
pub fn remembered(
    shared: &Shared<LoadState>,
    key: &str,
    make: impl FnOnce() -> anyhow::Result<f64>,
) -> anyhow::Result<f64> {
    if let Some(v) = lock(shared).get(key) {
        return Ok(v);
    }
    let v = make()?;
    lock(shared).set(key, v);
    Ok(v)
}

/// The calibrated work under `key`, calibrated by `make` the first time.
pub fn remembered_work(
    shared: &Shared<LoadState>,
    key: &str,
    make: impl FnOnce() -> anyhow::Result<kernel::Work>,
) -> anyhow::Result<kernel::Work> {
    if let Some(w) = lock(shared).works.get(key) {
        return Ok(*w);
    }
    let w = make()?;
    lock(shared).works.insert(key.to_string(), w);
    Ok(w)
}

/// The driver's CPU time beside its children's since `meter` started (at the row's set-up,
/// so that calibrations and baselines count too).
pub fn driver_cpu(meter: &DriverMeter) -> DriverCpu {
    let (driver, children) = meter.read();
    DriverCpu::new(driver, children)
}

/// A progress line on standard error while copies run, only when it is a terminal,
/// at most once a second, drawn by the parent between waits (no ticking thread).
pub struct Ticker {
    label: String,
    started: std::time::Instant,
    last: Option<std::time::Instant>,
    enabled: bool,
}

impl Ticker {
    pub fn new(label: &str) -> Ticker {
        use std::io::IsTerminal;
        Ticker {
            label: label.to_string(),
            started: std::time::Instant::now(),
            last: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }

    pub fn tick(&mut self, done: usize, total: usize, what: &str) {
        let now = std::time::Instant::now();
        if !self.enabled
            || self
                .last
                .is_some_and(|l| now - l < std::time::Duration::from_secs(1))
        {
            return;
        }
        self.last = Some(now);
        eprint!(
            "\r\x1b[K  {}: {:.0} s, {done}/{total} {what} done",
            self.label,
            (now - self.started).as_secs_f64()
        );
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        if self.enabled && self.last.is_some() {
            eprint!("\r\x1b[K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_mode_gives_a_load_row_one_repetition_and_says_so() {
        assert_eq!(plan(Mode::Quick).samples, 1);
        assert_eq!(plan(Mode::Full).samples, 5);
        assert_eq!(plan(Mode::Quick).batch, Plan::job(Mode::Quick).batch);
        let note = budget_note(Mode::Quick, "copies of 0.2 s of work each");
        assert!(
            note.starts_with("quick mode: one repetition, copies of 0.2 s"),
            "{note}"
        );
        assert_eq!(budget_note(Mode::Full, "x"), "full mode: 5 repetitions, x");
    }
}
