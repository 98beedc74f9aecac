//! One benchmark, start to finish: check it can run here, prepare it in a private scratch
//! directory, sample it, record the kernel's counters, tear it down. The run around the
//! benchmarks (its record, its strategies, its end) is the session's
//! ([`super::session`]).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};

use super::contract::{Benchmark, Ctx, Host, Skip};
use super::interrupt::{self, Interrupted};
use super::observe::{self, Watch};
use super::state::RunState;
use super::{invocations, mock, quiet, sampler};
use crate::model::{
    BenchResult, Environment, Observation, Overhead, Run, RunOptions, RunStatus, Status, Tool,
    SCHEMA_VERSION,
};

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
    /// In the hidden test mode ([`mock`]): how often each id was measured so far, so that
    /// a row measured again (the quiet-machine reference) moves as a real one may.
    mocked: Option<RefCell<BTreeMap<String, usize>>>,
    /// Whether this process is the first of its run to measure its rows (see
    /// [`Ctx::first_process`]): false in the later processes of a run across several.
    pub first_process: bool,
    /// The monotonic clock at the run's start: its end is the start plus this clock's
    /// elapsed time whenever the wall clock stepped back meanwhile.
    began: Cell<Option<Instant>>,
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
        let mocked = mock::active().then(RefCell::default);
        let overhead = match mocked {
            Some(_) => mock::overhead(),
            None => sampler::measure_overhead().context("measuring the clock and loop overhead")?,
        };
        Ok(Runner {
            options,
            host,
            watch,
            overhead,
            scratch_root: scratch_root.to_path_buf(),
            state: RunState::new(),
            mocked,
            first_process: true,
            began: Cell::new(None),
        })
    }

    /// True in the hidden test mode ([`mock`]).
    pub fn mocked(&self) -> bool {
        self.mocked.is_some()
    }

    /// The run record before anything is measured: environment, warnings, options. A run
    /// whose rows are not sampled by this runner (`sampled` false: the exerciser's jobs)
    /// is not told what its samples will lack.
    pub(super) fn begin(&self, sampled: bool) -> Run {
        self.began.set(Some(Instant::now()));
        let environment = environment(&self.scratch_root);
        let freq_warning = match self.mocked {
            None if sampled => super::disturb::freq_warning(),
            _ => None,
        };
        Run {
            schema_version: SCHEMA_VERSION,
            tool: Tool::this(),
            options: self.options.clone(),
            warnings: quiet::warnings(&environment)
                .into_iter()
                .chain(self.watch.warnings.iter().cloned())
                .chain(freq_warning)
                .collect(),
            environment,
            started_at: match self.mocked {
                Some(_) => mock::started_at(),
                None => crate::model::wallclock::now(),
            },
            finished_at: None,
            status: RunStatus::Running,
            results: Vec::new(),
        }
    }

    /// Mark `run` finished now: in the mock, its start and its rows' durations after it.
    /// A wall clock stepped back during the run (NTP on a fresh machine) would put the
    /// end before the start; the end is then the start plus the monotonic clock's
    /// elapsed time, and the run says the clock stepped.
    pub(super) fn finish(&self, run: &mut Run) {
        let wall = match self.mocked {
            Some(_) => mock::finished_at(run.started_at, &run.results),
            None => crate::model::wallclock::now(),
        };
        let elapsed = self.began.get().map(|b| b.elapsed());
        let (end, warning) = end_after_start(run.started_at, wall, elapsed);
        run.finished_at = Some(end);
        run.warnings.extend(warning);
    }

    /// Tell the rows what this process measures after the next one (see
    /// [`super::state::Upcoming`]).
    pub(super) fn set_upcoming(&self, ids: &[&Benchmark]) {
        *self
            .state
            .get::<super::state::Upcoming>()
            .lock()
            .unwrap_or_else(|p| p.into_inner()) =
            super::state::Upcoming(ids.iter().map(|b| b.id().to_string()).collect());
    }

    /// One benchmark, start to finish. Only an interrupt is an `Err`; a benchmark that
    /// cannot run or fails is an `Ok` result saying so.
    pub fn run_one(&self, b: &Benchmark) -> Result<BenchResult, Interrupted> {
        if interrupt::requested() {
            return Err(Interrupted);
        }
        if let Some(repeats) = &self.mocked {
            let mut repeats = repeats.borrow_mut();
            let seen = repeats.entry(b.id().to_string()).or_default();
            *seen += 1;
            return Ok(mock::result(b, *seen - 1));
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
        crate::model::testpause::at("scratch");
        let plan = invocations::plan_for(b, &self.options);
        let ctx = Ctx {
            mode: self.options.mode,
            options: &self.options,
            scratch: scratch.path(),
            host: &self.host,
            state: &self.state,
            plan: Some(plan),
            first_process: self.first_process,
        };
        let mut workload = b.prepare(&ctx)?;
        let overhead = sampler::refresh_overhead(&self.overhead)?;
        // The watchers start after the set-up and stop before the check: they see the
        // sampling, and nothing of theirs is inside a timed sample but the series thread,
        // which sleeps between its reads (and runs on another CPU when the run is pinned).
        let mut observation = Observation::default();
        let profiling = self.watch.start_profile();
        let series = self.watch.start_series()?;
        crate::model::testpause::at("row");
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
        if b.times_single_calls() && self.first_process {
            // Seed 002's statistics are of single calls: time them too, after the batches
            // and before the workload's check, on the same prepared workload — in the
            // first process to measure the row only, whose single calls a result merged
            // across processes keeps.
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

fn empty_result(b: &Benchmark) -> BenchResult {
    b.failed_result("not run".into())
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The end of a run that started at `start` (wall clock) and whose wall clock reads
/// `wall` now, `elapsed` having passed on the monotonic clock: `wall`, unless it precedes
/// `start`, then `start + elapsed` with a warning saying by how much the clock stepped.
fn end_after_start(
    start: DateTime<Utc>,
    wall: DateTime<Utc>,
    elapsed: Option<std::time::Duration>,
) -> (DateTime<Utc>, Option<String>) {
    if wall >= start {
        return (wall, None);
    }
    let elapsed = elapsed
        .and_then(|d| chrono::Duration::from_std(d).ok())
        .unwrap_or_else(chrono::Duration::zero);
    let end = start + elapsed;
    let stepped = (end - wall).to_std().unwrap_or_default().as_secs_f64();
    let warning = format!(
        "the wall clock stepped back by {stepped:.1} s during the run; \
         finished_at is the start plus the monotonic clock's elapsed time"
    );
    (end, Some(warning))
}

/// The environment a run in this process records (the mock's in the mock).
pub fn environment(scratch_root: &Path) -> Environment {
    if super::mock::active() {
        super::mock::environment()
    } else {
        super::sysinfo::detect(scratch_root)
    }
}

#[cfg(test)]
mod clock_step_tests {
    use super::*;

    #[test]
    fn a_wall_clock_stepped_back_still_ends_after_the_start() {
        let start = crate::model::wallclock::now();
        let wall = start - chrono::Duration::seconds(30);
        let (end, warning) = end_after_start(start, wall, Some(std::time::Duration::from_secs(2)));
        assert!(end >= start, "{end} precedes {start}");
        assert_eq!(end - start, chrono::Duration::seconds(2));
        let warning = warning.expect("the step is said");
        assert!(warning.contains("stepped back by 32.0 s"), "{warning}");
    }

    #[test]
    fn a_wall_clock_that_went_forward_is_kept_and_says_nothing() {
        let start = crate::model::wallclock::now();
        let wall = start + chrono::Duration::seconds(5);
        assert_eq!(
            end_after_start(start, wall, Some(std::time::Duration::from_secs(1))),
            (wall, None)
        );
    }
}
