//! The run loop: for each selected benchmark, check it can run here, prepare it in a
//! private scratch directory, sample it, record the kernel's counters, tear it down; then
//! compute the derived rows. Results go to the observer as soon as they exist, so that a
//! later failure or an interrupt loses nothing already measured.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use chrono::Utc;

use super::contract::{Benchmark, Ctx, Derived, Host, Skip};
use super::interrupt::{self, Interrupted};
use super::observe::{self, Watch};
use super::state::RunState;
use super::{invocations, quiet, sampler, sysinfo};
use crate::model::{
    resolution, runlevel, BenchResult, Details, Observation, Overhead, Run, RunOptions, RunStatus,
    Status, Summary, Tool, SCHEMA_VERSION,
};

/// Hooks called while a run goes on; every one defaults to doing nothing. Called between
/// benchmarks only, never while a sample is being timed.
pub trait Observer {
    fn run_started(&mut self, _run: &Run, _total: usize) {}
    fn bench_started(&mut self, _index: usize, _id: &str) {}
    fn bench_finished(&mut self, _result: &BenchResult) -> Result<()> {
        Ok(())
    }
}

pub struct Runner {
    pub options: RunOptions,
    pub host: Host,
    pub overhead: Overhead,
    /// Where the benchmarks' scratch directories are made.
    pub scratch_root: PathBuf,
    /// What the rows of this run share (see [`RunState`]).
    state: RunState,
    /// What each benchmark is watched by (`--observe`, `--profile`, `--counters`,
    /// `--trace`), and what this machine refused, said once.
    watch: Watch,
}

impl Runner {
    /// Pin if asked, then measure the clock and loop overhead that every figure is
    /// corrected by.
    pub fn new(options: RunOptions, scratch_root: &Path) -> Result<Runner> {
        if let Some(cpu) = options.cpu {
            super::cpu::check_usable(cpu)?;
            super::cpu::pin_to(&[cpu])?;
        }
        let host = Host::detect();
        let watch = Watch::new(&options.observe, &host, options.cpu);
        Ok(Runner {
            options,
            host,
            watch,
            overhead: sampler::measure_overhead()
                .context("measuring the clock and loop overhead")?,
            scratch_root: scratch_root.to_path_buf(),
            state: RunState::new(),
        })
    }

    /// The run record before anything is measured: environment, warnings, options.
    pub(super) fn begin(&self) -> Run {
        let environment = sysinfo::detect(&self.scratch_root);
        Run {
            schema_version: SCHEMA_VERSION,
            tool: Tool::this(),
            options: self.options.clone(),
            warnings: quiet::warnings(&environment)
                .into_iter()
                .chain(self.watch.warnings.iter().cloned())
                .chain(super::disturb::freq_warning())
                .collect(),
            environment,
            started_at: Utc::now(),
            finished_at: None,
            status: RunStatus::Running,
            results: Vec::new(),
        }
    }

    /// Run `benches` in order, then the derived rows whose inputs were all measured.
    pub fn execute(
        &self,
        benches: &[&Benchmark],
        derived: &[Derived],
        observer: &mut dyn Observer,
    ) -> Result<Run> {
        let mut run = self.begin();
        observer.run_started(&run, rows_expected(benches, derived));
        run.status = RunStatus::Complete;
        for (i, b) in benches.iter().enumerate() {
            observer.bench_started(i, b.id());
            match self.run_one(b) {
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
        finish(run, derived, observer)
    }

    /// Run `benches` in `side.invocations` fresh processes of `side.exe` (see
    /// [`invocations`]), then merge each id's invocations into one result (its headline
    /// across them) and compute the derived rows. The observer sees each round start
    /// (`bench_started` with "invocation r/K") and each merged result at the end.
    pub fn execute_invocations(
        &self,
        benches: &[&Benchmark],
        derived: &[Derived],
        observer: &mut dyn Observer,
        side: &invocations::Side,
        rounds: usize,
        earlier: &[BTreeMap<String, f64>],
    ) -> Result<Run> {
        let mut run = self.begin();
        observer.run_started(&run, rows_expected(benches, derived));
        let ids: Vec<String> = benches.iter().map(|b| b.id().to_string()).collect();
        let measured = invocations::measure(
            std::slice::from_ref(side),
            &ids,
            rounds,
            &self.scratch_root,
            &mut |r| observer.bench_started(r, &format!("invocation {}/{rounds}", r + 1)),
        )?;
        run.status = if measured.interrupted {
            RunStatus::Interrupted
        } else {
            RunStatus::Complete
        };
        let mut merged = crate::model::levels::merge_runs(&measured.runs[0], &ids);
        if run.status == RunStatus::Complete {
            with_run_level(&mut run, &mut merged, earlier);
        }
        for result in merged {
            observer.bench_finished(&result)?;
            run.results.push(result);
        }
        finish(run, derived, observer)
    }

    /// One benchmark, start to finish. Only an interrupt is an `Err`; a benchmark that
    /// cannot run or fails is an `Ok` result saying so.
    pub fn run_one(&self, b: &Benchmark) -> Result<BenchResult, Interrupted> {
        if interrupt::requested() {
            return Err(Interrupted);
        }
        let started = Instant::now();
        let mut result = empty_result(b);
        if let Err(skip) = b.supported(&self.host) {
            result.status = Status::Skipped { reason: skip.0 };
            return Ok(result);
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| self.measure(b, &mut result)))
            .unwrap_or_else(|panic| Err(anyhow::anyhow!("panicked: {}", panic_message(&panic))));
        if let Err(e) = outcome {
            if e.downcast_ref::<Interrupted>().is_some() {
                return Err(Interrupted);
            }
            if let Some(skip) = e.downcast_ref::<Skip>() {
                result.status = Status::Skipped {
                    reason: skip.0.clone(),
                };
                result.duration_s = started.elapsed().as_secs_f64();
                return Ok(result);
            }
            result.status = Status::Failed {
                error: format!("{e:#}"),
            };
        }
        result.duration_s = started.elapsed().as_secs_f64();
        Ok(result)
    }

    fn measure(&self, b: &Benchmark, result: &mut BenchResult) -> Result<()> {
        let scratch = tempfile::Builder::new()
            .prefix(&super::debris::scratch_prefix())
            .tempdir_in(&self.scratch_root)
            .with_context(|| {
                format!(
                    "cannot make a scratch directory in {}",
                    self.scratch_root.display()
                )
            })?;
        let ctx = Ctx {
            mode: self.options.mode,
            options: &self.options,
            scratch: scratch.path(),
            host: &self.host,
            state: &self.state,
        };
        let mut workload = b.prepare(&ctx)?;
        let overhead = sampler::refresh_overhead(&self.overhead)?;
        // The watchers start after the set-up and stop before the check: they see the
        // sampling, and nothing of theirs is inside a timed sample but the series thread,
        // which sleeps between its reads (and runs on another CPU when the run is pinned).
        let mut observation = Observation::default();
        let profiling = self.watch.start_profile();
        let series = self.watch.start_series()?;
        let plan = invocations::plan_for(b, &self.options);
        let m = sampler::measure(workload.as_mut(), &plan, b.metric(), &overhead);
        if let Some(s) = series {
            observation.series = Some(s.stop()?);
        }
        let mut watch_notes = Vec::new();
        match profiling.and_then(|p| p.map(|p| p.stop()).transpose()) {
            Ok(p) => observation.profile = p,
            Err(e) => watch_notes.push(format!("--profile: no profile: {e:#}")),
        }
        let mut m = m?;
        if b.times_single_calls() {
            // Seed 002's statistics are of single calls: time them too, after the batches
            // and before the workload's check, on the same prepared workload.
            let n = sampler::single_call_count(invocations::plan_mode(&self.options));
            result.single_calls = Some(sampler::single_calls(
                workload.as_mut(),
                n,
                &overhead,
                plan.subtract_loop,
            )?);
        }
        // The check first, while children are still there to report; the details and
        // notes are kept even when it fails the row.
        let checked = workload.finish();
        result.details = workload.details();
        result.notes = workload.notes();
        let own = workload.own_figures();
        drop(workload);
        if self.watch.wants_pass() && checked.is_ok() {
            let pass = scratch.path().join("counted");
            std::fs::create_dir(&pass)?;
            let ctx = Ctx {
                scratch: &pass,
                ..ctx
            };
            let per_op = m.times.elapsed_s;
            let ops =
                observe::pass_ops(m.calibration.batch, m.calibration.calibrated, Some(per_op));
            if let Err(e) =
                self.watch
                    .count_passes(b, &ctx, ops, &mut observation, &mut watch_notes)
            {
                watch_notes.push(format!(
                    "--counters/--trace: the counted pass failed: {e:#}"
                ));
            }
        }
        result.notes.extend(watch_notes);
        result.observe = (!observation.is_empty()).then_some(observation);
        scratch
            .close()
            .context("cannot remove the scratch directory")?;
        checked.context("the benchmark's check of its own work failed")?;
        if let Some(own) = own {
            sampler::restate(&mut m, own)?;
        }
        result.status = Status::Ok;
        result.calibration = Some(m.calibration);
        result.summary = Some(m.summary);
        result.raw_summary = Some(m.raw_summary);
        result.below_resolution = m.below_resolution;
        result.samples = m.samples;
        result.culled = m.culled;
        result.times = Some(m.times);
        result.counters = Some(m.counters);
        let own = std::mem::replace(&mut result.notes, m.notes);
        result.notes.extend(own);
        Ok(())
    }
}

/// The derived rows from the measured ones, then the run's end.
/// Widen the intervals of `merged` by the run-to-run spread of the `earlier` runs like
/// this one (see `model::runlevel`), learned from the rows this run measured with a
/// resolved figure (a derived row's or an unresolved one's spread is not the machine's);
/// without two earlier runs, the run says its intervals are of its processes only.
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

fn finish(mut run: Run, derived: &[Derived], observer: &mut dyn Observer) -> Result<Run> {
    for d in derived {
        if let Some(result) = derive(d, &run.results) {
            observer.bench_finished(&result)?;
            run.results.push(result);
        }
    }
    run.finished_at = Some(Utc::now());
    Ok(run)
}

fn empty_result(b: &Benchmark) -> BenchResult {
    let metric = b.metric();
    BenchResult {
        status: Status::Failed {
            error: "not run".into(),
        },
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

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{levels, Better, Calibration, Unit};

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
        let mut run = Run {
            schema_version: SCHEMA_VERSION,
            tool: Tool::this(),
            options: RunOptions::default(),
            environment: Default::default(),
            started_at: Utc::now(),
            finished_at: None,
            status: RunStatus::Running,
            warnings: Vec::new(),
            results: Vec::new(),
        };
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
}
