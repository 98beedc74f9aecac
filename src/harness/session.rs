//! A run's life in one place. A [`Session`] is made from the run's options and a
//! [`Strategy`] (one process, `k` fresh processes, or as many as a precision target
//! needs) and owns the run record from start to finish:
//!
//! 1. the quiet-machine reference measured before (a run across processes only) and the
//!    clock's rate started;
//! 2. the record begun — environment, warnings, options — and handed to the observers;
//! 3. the strategy's measurements, each result to the observers as soon as it exists;
//! 4. the derived rows, the end time;
//! 5. the checks made at the end: the clock's rate over the run, the reference measured
//!    again (the machine's drift);
//! 6. the finished record, final warnings and environment included, to the observers
//!    once ([`Observer::run_finished`]): the store writes the run's end in one go.
//!
//! Strategies differ only in step 3; the rest is written once, here. Steps 1 and 5, the
//! run-level checks, are the session's *sitting* ([`Session::sitting`]): two-sided
//! experiments and crosscheck's pairs, which make no run of this shape, run inside it too.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use super::contract::{Benchmark, Derived};
use super::hooks::Observer;
use super::interrupt::Interrupted;
use super::invocations::{self, Side, Step};
use super::precision::{self, Target};
use super::runner::Runner;
use super::{clock, debris, quiet};
use crate::model::{
    resolution, runlevel, BenchResult, ClockRate, Details, Overhead, Run, RunOptions, RunStatus,
    Summary, Unit,
};

/// How a session measures its rows (step 3 of the module's list).
pub enum Strategy {
    /// Every row once, in this process.
    OneProcess,
    /// Every row in `rounds` fresh processes, the order shuffled between them, merged
    /// into one result per row (its headline across them; see `model::levels`), the
    /// intervals widened by the run-to-run spread of the `earlier` runs like this one.
    Invocations {
        rounds: usize,
        earlier: Vec<BTreeMap<String, f64>>,
    },
    /// A pilot of processes, then as many more as each row needs to reach the target
    /// (see [`precision`]).
    ToPrecision(Target),
}

impl Strategy {
    /// The processes every row is measured in at least.
    pub fn processes(&self) -> usize {
        match self {
            Strategy::OneProcess => 1,
            Strategy::Invocations { rounds, .. } => *rounds,
            Strategy::ToPrecision(target) => target.pilot,
        }
    }
}

/// What a session ends with.
pub struct Ended {
    /// The run as it was handed to [`Observer::run_finished`].
    pub run: Run,
    /// The warnings the checks at the end added, the drift first: said again after the
    /// tables, where they are read.
    pub late_warnings: Vec<String>,
}

/// What a two-sided experiment ([`Session::run_two_sided`]) ends with.
pub struct TwoSided {
    /// Each side's run: its rows merged across its processes, the run's checks in its
    /// environment and warnings.
    pub runs: [Run; 2],
    /// The warnings the checks at the end added, as [`Ended::late_warnings`].
    pub late_warnings: Vec<String>,
    /// The processes each side was measured in (fewer than asked when interrupted).
    pub processes: [usize; 2],
    pub interrupted: bool,
}

pub struct Session {
    runner: Runner,
    strategy: Strategy,
    /// This program, re-executed for each fresh process (strategies across processes).
    side: Option<Side>,
}

impl Session {
    /// Pin if asked and measure the clock and loop overhead (see [`Runner::new`]);
    /// nothing of the run is measured yet.
    pub fn new(options: RunOptions, scratch_root: &Path, strategy: Strategy) -> Result<Session> {
        let runner = Runner::new(options, scratch_root)?;
        let side = match strategy {
            Strategy::OneProcess => None,
            _ => Some(Side {
                name: "self".into(),
                exe: crate::harness::children::own_program()?,
                options: runner.options.clone(),
                dir: scratch_root.to_path_buf(),
            }),
        };
        Ok(Session {
            runner,
            strategy,
            side,
        })
    }

    /// This session as a later process of a run across several: its rows' details and
    /// single calls are not kept by the merged result (the first process's are), so it
    /// skips what only they are made of (see [`Ctx::first_process`]).
    ///
    /// [`Ctx::first_process`]: super::contract::Ctx::first_process
    pub fn as_later_process(mut self) -> Session {
        self.runner.first_process = false;
        self
    }

    /// The clock and loop overhead every figure of the run is corrected by.
    pub fn overhead(&self) -> Overhead {
        self.runner.overhead
    }

    /// Run `benches` in order by the session's strategy, then the derived rows whose
    /// inputs were all measured; `reference` is the quiet-machine reference row (see
    /// [`quiet::REFERENCE`]), measured before and after a run across processes. Only an
    /// error of the machinery is an `Err`: a row that fails is a result saying so, and
    /// an interrupt ends the run early with what was measured.
    pub fn run(
        &self,
        benches: &[&Benchmark],
        derived: &[Derived],
        reference: Option<&Benchmark>,
        observer: &mut dyn Observer,
    ) -> Result<Ended> {
        let total = rows_expected(benches, derived);
        self.life(total, reference, true, observer, &mut |run, observer| {
            let measured = self.measure(benches, run, observer);
            debris::remove_own_scratch(&self.runner.scratch_root);
            measured?;
            for d in derived {
                if let Some(result) = derive(d, &run.results) {
                    observer.bench_finished(&result)?;
                    run.results.push(result);
                }
            }
            Ok(())
        })
    }

    /// A run whose rows are not the registry's, measured by `measure` in this process
    /// (the exerciser's jobs): the same life as [`Session::run`] — the record begun with
    /// the environment and warnings, the end checks, the finished record to the observers
    /// once — around `measure`, which puts its results in the run (each also to the
    /// observer) and sets its status. `total` is the rows it expects, for the progress.
    pub fn run_own(
        &self,
        total: usize,
        observer: &mut dyn Observer,
        measure: &mut dyn FnMut(&mut Run, &mut dyn Observer) -> Result<()>,
    ) -> Result<Ended> {
        self.life(total, None, false, observer, measure)
    }

    /// Two sides (two builds, two settings) measured alternately in `rounds` fresh
    /// processes each (see [`invocations::measure`]), with the checks a run has around
    /// them: the quiet-machine `reference` measured before and after in this process,
    /// the clock's rate over the whole experiment. Each side becomes a run of its own,
    /// spanning its own processes (two runs of one host that began at the same instant
    /// would be one run to `import`), and both carry the checks' findings.
    pub fn run_two_sided(
        &self,
        sides: &[Side; 2],
        benches: &[&Benchmark],
        rounds: usize,
        reference: Option<&Benchmark>,
        on_step: &mut dyn FnMut(Step),
    ) -> Result<TwoSided> {
        let ((begun, measured, status), checks) = self.sitting(reference, || {
            let begun = self.runner.begin(false);
            let measured =
                invocations::measure(sides, benches, rounds, &self.runner.scratch_root, on_step)?;
            let status = RunStatus::ended(measured.interrupted);
            Ok(((begun, measured, status), status))
        })?;
        let ids: Vec<String> = benches.iter().map(|b| b.id().to_string()).collect();
        let runs = [0, 1].map(|k| {
            let processes = &measured.runs[k];
            let mut run = begun.clone();
            run.options = sides[k].options.clone();
            run.status = status;
            if let Some(first) = processes.iter().map(|r| r.started_at).min() {
                run.started_at = first;
            }
            self.runner.finish(&mut run);
            if let Some(last) = processes.iter().filter_map(|r| r.finished_at).max() {
                run.finished_at = Some(last);
            }
            run.results = crate::model::levels::merge_runs(processes, &ids);
            checks.write_into(&mut run);
            run
        });
        Ok(TwoSided {
            runs,
            late_warnings: checks.warnings(),
            processes: [measured.runs[0].len(), measured.runs[1].len()],
            interrupted: measured.interrupted,
        })
    }

    /// Steps 1, 2 and 4–6 around `measure` (step 3); `sampled`: whether `measure` samples
    /// rows with the runner (see [`Runner::begin`]).
    fn life(
        &self,
        total: usize,
        reference: Option<&Benchmark>,
        sampled: bool,
        observer: &mut dyn Observer,
        measure: &mut dyn FnMut(&mut Run, &mut dyn Observer) -> Result<()>,
    ) -> Result<Ended> {
        // A run measures the reference only around a run across processes (step 1), as
        // it did before the checks were a sitting of their own.
        let reference = reference.filter(|_| self.strategy.processes() > 1);
        let (mut run, checks) = self.sitting(reference, || {
            let mut run = self.runner.begin(sampled);
            observer.run_started(&run, total);
            measure(&mut run, observer)?;
            self.runner.finish(&mut run);
            let status = run.status;
            Ok((run, status))
        })?;
        checks.write_into(&mut run);
        observer.run_finished(&run);
        Ok(Ended {
            run,
            late_warnings: checks.warnings(),
        })
    }

    /// The run-level checks around `measure`, whatever it measures (a run's rows, two
    /// sides, crosscheck's rounds of a row beside its tool): the quiet-machine
    /// `reference` (see [`quiet::REFERENCE`]) measured in this process before and, when
    /// `measure` ended [`RunStatus::Complete`], after it — a change beyond both intervals
    /// is the machine's drift —, and the clock's rate against the unslewed raw clock over
    /// the whole of it (seed 002 checked its timer before trusting it). `measure` returns
    /// its outcome and whether it went to its end; an interrupted sitting is not held up
    /// by a second reference.
    pub fn sitting<T>(
        &self,
        reference: Option<&Benchmark>,
        measure: impl FnOnce() -> Result<(T, RunStatus)>,
    ) -> Result<(T, Checks)> {
        let reference = reference
            .filter(|b| b.supported(&self.runner.host).is_ok())
            .map(|b| Reference {
                id: b.id(),
                unit: b.metric().unit,
                take: Box::new(move || self.measure_reference(b)),
            });
        sit(reference, !self.runner.mocked(), measure)
    }

    /// Step 3: the strategy's own measurements, into `run`'s results and status.
    fn measure(
        &self,
        benches: &[&Benchmark],
        run: &mut Run,
        observer: &mut dyn Observer,
    ) -> Result<()> {
        let side = || {
            self.side
                .as_ref()
                .context("no program to start processes of")
        };
        match &self.strategy {
            Strategy::OneProcess => in_this_process(&self.runner, benches, run, observer),
            Strategy::Invocations { rounds, earlier } => across_processes(
                &self.runner,
                side()?,
                benches,
                *rounds,
                earlier,
                run,
                observer,
            ),
            Strategy::ToPrecision(target) => {
                precision::measure(&self.runner, side()?, target, benches, run, observer)
            }
        }
    }

    /// The reference row's figure, when it was measured whole.
    fn measure_reference(&self, b: &Benchmark) -> Option<Summary> {
        self.runner
            .run_one(b)
            .ok()
            .filter(|r| r.status.is_ok())?
            .summary
    }
}

/// What the run-level checks of a sitting found (see [`Session::sitting`]).
#[derive(Debug, Clone, Default)]
pub struct Checks {
    /// The clock's rate against the raw clock over the sitting; none in the mock, whose
    /// clock stands still.
    pub clock_rate: Option<ClockRate>,
    /// The warning of a clock slewed beyond its limit.
    slewed: Option<String>,
    /// The warning of the reference row's figure moved beyond its intervals.
    drift: Option<String>,
}

impl Checks {
    /// The warnings the checks gave, the drift first: said again after the tables, where
    /// they are read.
    pub fn warnings(&self) -> Vec<String> {
        self.drift.iter().chain(&self.slewed).cloned().collect()
    }

    /// The clock's rate into `run`'s environment and the warnings into its warnings (the
    /// slewed clock before the drift, the order stored runs have always had).
    pub fn write_into(&self, run: &mut Run) {
        run.environment.clock_rate = self.clock_rate;
        run.warnings.extend(self.slewed.iter().cloned());
        run.warnings.extend(self.drift.iter().cloned());
    }
}

/// The quiet-machine reference row as a sitting takes it: its id and unit for the
/// warning, and how to measure its figure (`None` when it was not measured whole).
struct Reference<'a> {
    id: &'a str,
    unit: Unit,
    take: Box<dyn Fn() -> Option<Summary> + 'a>,
}

/// [`Session::sitting`]'s checks with the reference's measuring handed in (a test gives
/// its own figures); `watch_clock`: whether the clock's rate means anything (not in the
/// mock).
fn sit<T>(
    reference: Option<Reference>,
    watch_clock: bool,
    measure: impl FnOnce() -> Result<(T, RunStatus)>,
) -> Result<(T, Checks)> {
    let before = reference.as_ref().and_then(|r| (r.take)());
    let clock_start = clock::monotonic_and_raw_ns();
    let (outcome, status) = measure()?;
    let clock_rate = if watch_clock {
        ClockRate::between(clock_start, clock::monotonic_and_raw_ns())
    } else {
        None
    };
    let slewed = clock_rate.as_ref().and_then(quiet::clock_rate_warning);
    let drift = match (reference, before, status) {
        (Some(r), Some(before), RunStatus::Complete) => {
            (r.take)().and_then(|after| quiet::drift_warning(r.id, r.unit, &before, &after))
        }
        _ => None,
    };
    let checks = Checks {
        clock_rate,
        slewed,
        drift,
    };
    Ok((outcome, checks))
}

/// [`Strategy::OneProcess`]: every row in turn, each result to the observer at once.
fn in_this_process(
    runner: &Runner,
    benches: &[&Benchmark],
    run: &mut Run,
    observer: &mut dyn Observer,
) -> Result<()> {
    run.status = RunStatus::Complete;
    for (i, b) in benches.iter().enumerate() {
        observer.bench_started(i, b.id());
        runner.set_upcoming(&benches[i + 1..]);
        match runner.run_one(b) {
            Ok(result) => {
                observer.bench_finished(&result)?;
                run.results.push(result);
            }
            Err(Interrupted) => {
                run.status = RunStatus::Interrupted;
                break;
            }
        }
    }
    Ok(())
}

/// [`Strategy::Invocations`]: `rounds` fresh processes of `side` (see [`invocations`]),
/// then each id's invocations merged into one result. The observer sees each round start
/// (`bench_started` with "invocation r/K"), each row a process finishes (`work_done`),
/// and each merged result at the end.
fn across_processes(
    runner: &Runner,
    side: &Side,
    benches: &[&Benchmark],
    rounds: usize,
    earlier: &[BTreeMap<String, f64>],
    run: &mut Run,
    observer: &mut dyn Observer,
) -> Result<()> {
    let ids: Vec<String> = benches.iter().map(|b| b.id().to_string()).collect();
    let mut round = 0;
    let measured = invocations::measure(
        std::slice::from_ref(side),
        benches,
        rounds,
        &runner.scratch_root,
        &mut |step| match step {
            Step::Round(r) => {
                round = r;
                observer.bench_started(r, &format!("invocation {}/{rounds}", r + 1));
            }
            Step::Row { done, planned, id } => observer.work_done(
                done,
                planned,
                &id,
                &format!("process {}/{rounds}", round + 1),
            ),
        },
    )?;
    run.status = RunStatus::ended(measured.interrupted);
    let mut merged = crate::model::levels::merge_runs(&measured.runs[0], &ids);
    if rounds > 1 {
        note_measured_once(benches, &mut merged);
    }
    if run.status == RunStatus::Complete {
        with_run_level(run, &mut merged, earlier);
    }
    for result in merged {
        observer.bench_finished(&result)?;
        run.results.push(result);
    }
    Ok(())
}

/// Widen the intervals of `merged` by the run-to-run spread of the `earlier` runs like
/// this one (see `model::runlevel`), learned from the rows this run measured with a
/// resolved figure (a derived row's or an unresolved one's spread is not the machine's);
/// without two earlier runs, the run says its intervals are of its processes only.
/// Says on each row measured in the first process only
/// ([`Benchmark::measured_in_one_process`]) that it was, and why.
fn note_measured_once(benches: &[&Benchmark], merged: &mut [BenchResult]) {
    for r in merged.iter_mut() {
        let why = benches
            .iter()
            .find(|b| b.id() == r.id)
            .and_then(|b| b.measured_once_reason());
        if let Some(why) = why {
            r.notes.push(format!(
                "measured in the first of the run's processes only: {why}"
            ));
        }
    }
}

fn with_run_level(run: &mut Run, merged: &mut [BenchResult], earlier: &[BTreeMap<String, f64>]) {
    // Only figures the printers would show as measured: a row under the clock's or the
    // CPU's resolution moves between runs by whole clock ticks (a single call timed at 10
    // and then 30 ns), and one such row dominated the pooled spread of every other.
    let mhz = run.environment.cpu.mhz;
    let measured: Vec<&str> = merged
        .iter()
        .filter(|r| r.status.is_ok() && !r.below_resolution)
        .filter(|r| resolution::shown_stored(r, mhz).is_some_and(|s| s.is_figure()))
        .map(|r| r.id.as_str())
        .collect();
    let alike: Vec<BTreeMap<String, f64>> = earlier
        .iter()
        .map(|e| {
            e.iter()
                .filter(|(id, _)| measured.contains(&id.as_str()))
                .map(|(id, x)| (id.clone(), *x))
                .collect()
        })
        .collect();
    match runlevel::spread(&alike) {
        Some(spread) => {
            merged.iter_mut().for_each(|r| runlevel::widen(r, &spread));
            run.warnings.push(runlevel::widened_note(&spread));
        }
        None => run.warnings.push(runlevel::no_earlier_run_note()),
    }
}

/// The rows a run of `benches` ends with when every one is measured: they and the derived
/// rows whose inputs are all among them (what the progress line counts to).
pub fn rows_expected(benches: &[&Benchmark], derived: &[Derived]) -> usize {
    let chosen = |id: &&str| benches.iter().any(|b| b.id() == *id);
    benches.len()
        + derived
            .iter()
            .filter(|d| d.inputs.iter().all(chosen))
            .count()
}

/// The derived row `d`, when every one of its inputs was measured in `results`.
pub fn derive(d: &Derived, results: &[BenchResult]) -> Option<BenchResult> {
    let inputs: Option<Vec<f64>> = d
        .inputs
        .iter()
        .map(|id| {
            results
                .iter()
                .find(|r| r.id == *id && r.status.is_ok())
                .and_then(|r| r.median())
        })
        .collect();
    let value = (d.compute)(&inputs?);
    let summary = Summary::from_values(&[value]).ok()?;
    Some(BenchResult {
        derived: true,
        summary: Some(summary),
        below_resolution: value <= 0.0,
        details: Some(Details::of(&crate::model::details::DerivedInputs {
            inputs: d.inputs.iter().map(|s| s.to_string()).collect(),
        })),
        notes: vec![format!("derived from {}", d.inputs.join(", "))],
        ..BenchResult::new(
            d.id,
            crate::model::family_of(d.id),
            d.source.describe(),
            d.unit,
            d.unit.default_better(),
            Some(d.basis.clone()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    use crate::model::{levels, Better, Calibration, Tool, Unit, SCHEMA_VERSION};

    /// `id` measured in ten processes at `ns`, one operation of `batch` per sample.
    fn across(id: &str, ns: f64, batch: u64) -> BenchResult {
        let parts: Vec<BenchResult> = (0..10)
            .map(|i| {
                let m = ns * 1e-9 * (1.0 + 0.001 * i as f64);
                let mut r = BenchResult::new(id, "t", "x", Unit::SecondsPerOp, Better::Lower, None);
                r.summary = Some(Summary::from_values(&[m * 0.99, m, m * 1.01]).unwrap());
                r.calibration = Some(Calibration {
                    batch,
                    calibrated: batch > 1,
                    target_s: 0.002,
                    clock_overhead_s: 20e-9,
                    loop_overhead_s: 0.3e-9,
                });
                r
            })
            .collect();
        levels::merge(&parts)
    }

    #[test]
    fn a_row_under_the_clock_s_resolution_does_not_widen_the_others() {
        // Earlier runs agree on "a" within 1%, while the single call, timed by clock
        // ticks, read 10 ns and then 30.
        let earlier: Vec<BTreeMap<String, f64>> = [(100.0, 10.0), (101.0, 30.0), (100.5, 10.0)]
            .iter()
            .map(|&(a, single)| {
                BTreeMap::from([
                    ("a".to_string(), a * 1e-9),
                    ("single".to_string(), single * 1e-9),
                ])
            })
            .collect();
        let mut merged = vec![across("a", 100.0, 20_000), across("single", 10.0, 1)];
        let mut run = empty_run();
        with_run_level(&mut run, &mut merged, &earlier);
        let level = merged[0]
            .invocations
            .as_ref()
            .unwrap()
            .runs
            .clone()
            .unwrap();
        assert!(level.sd_log < 0.01, "{level:?}");
        // With the single call counted, one run's spread would have been about ±60%.
        let mut both = vec![across("a", 100.0, 20_000), across("single", 10.0, 20_000)];
        with_run_level(&mut run, &mut both, &earlier);
        let level = both[0].invocations.as_ref().unwrap().runs.clone().unwrap();
        assert!(level.sd_log > 0.3, "{level:?}");
    }

    /// A reference that reads `figures` in turn (ns, a tight spread around each), and
    /// how many times it was taken.
    fn reference_reading(figures: &[f64]) -> (Reference<'static>, std::rc::Rc<Cell<usize>>) {
        let taken = std::rc::Rc::new(Cell::new(0));
        let counter = taken.clone();
        let figures = figures.to_vec();
        let take = move || {
            let ns = *figures.get(counter.get())?;
            counter.set(counter.get() + 1);
            let values: Vec<f64> = (0..20)
                .map(|i| ns * 1e-9 * (1.0 + 1e-3 * (i % 3) as f64))
                .collect();
            Summary::from_values(&values).ok()
        };
        let reference = Reference {
            id: quiet::REFERENCE,
            unit: Unit::SecondsPerOp,
            take: Box::new(take),
        };
        (reference, taken)
    }

    fn empty_run() -> Run {
        Run {
            schema_version: SCHEMA_VERSION,
            tool: Tool::this(),
            options: RunOptions::default(),
            environment: Default::default(),
            started_at: crate::model::wallclock::now(),
            finished_at: None,
            status: RunStatus::Running,
            warnings: Vec::new(),
            results: Vec::new(),
        }
    }

    #[test]
    fn a_sitting_whose_reference_moved_warns_of_the_drift_and_one_that_held_does_not() {
        let (moved, _) = reference_reading(&[100.0, 130.0]);
        let (outcome, checks) =
            sit(Some(moved), false, || Ok(("measured", RunStatus::Complete))).unwrap();
        assert_eq!(outcome, "measured");
        let warnings = checks.warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("drifted"), "{warnings:?}");
        assert!(warnings[0].contains(quiet::REFERENCE), "{warnings:?}");
        let mut run = empty_run();
        checks.write_into(&mut run);
        assert_eq!(run.warnings, warnings);
        assert_eq!(run.environment.clock_rate, None, "the clock not watched");

        let (held, taken) = reference_reading(&[100.0, 100.0]);
        let (_, checks) = sit(Some(held), false, || Ok(((), RunStatus::Complete))).unwrap();
        assert_eq!(checks.warnings(), Vec::<String>::new());
        assert_eq!(taken.get(), 2, "measured before and after");
    }

    #[test]
    fn an_interrupted_sitting_skips_the_reference_after_and_so_warns_of_no_drift() {
        let (moved, taken) = reference_reading(&[100.0, 130.0]);
        let (_, checks) = sit(Some(moved), false, || Ok(((), RunStatus::Interrupted))).unwrap();
        assert_eq!(taken.get(), 1, "the reference taken after an interrupt");
        assert!(checks.warnings().is_empty(), "{:?}", checks.warnings());
    }

    #[test]
    fn a_sitting_watching_the_clock_gives_its_rate_and_an_error_ends_it() {
        let (_, checks) = sit(None, true, || {
            std::thread::sleep(std::time::Duration::from_millis(5));
            Ok(((), RunStatus::Complete))
        })
        .unwrap();
        let rate = checks.clock_rate.expect("a rate over 5 ms");
        assert!(rate.window_s > 0.004, "{rate:?}");
        let failed = sit(None, true, || -> Result<((), RunStatus)> {
            anyhow::bail!("broken")
        });
        assert!(failed.is_err());
    }

    #[test]
    fn a_strategy_names_the_processes_every_row_gets() {
        assert_eq!(Strategy::OneProcess.processes(), 1);
        let invocations = Strategy::Invocations {
            rounds: 4,
            earlier: Vec::new(),
        };
        assert_eq!(invocations.processes(), 4);
        let target = Target {
            precision: 0.02,
            budget_s: 60.0,
            pilot: 3,
            max_invocations: 30,
        };
        assert_eq!(Strategy::ToPrecision(target).processes(), 3);
    }
}
