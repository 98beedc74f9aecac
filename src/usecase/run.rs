//! `run`: one run of the chosen rows in a [`Session`], from the strategy the options ask
//! for to what is printed and written at the end. The progress line and the store
//! observe the session as it goes; the tables, the JSON, the HTML and the one-screen
//! answer come once it has ended.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::observe::{keep_beside, SystemWatch};
use super::Ended;
use crate::bench::Registry;
use crate::harness::contract::Benchmark;
use crate::harness::hooks::Observer;
use crate::harness::precision::Target;
use crate::harness::session::{self, Session, Strategy};
use crate::harness::tee::Tee;
use crate::harness::{invocations, quiet, runner};
use crate::model::eta::PlanEta;
use crate::model::{BenchResult, Overhead, Run, RunOptions, RunStatus, Status};
use crate::report;
use crate::report::outfile::OutputFile;
use crate::report::output;
use crate::store::{Recorder, Store};

/// A run, as the command line checked it.
pub struct Request<'a> {
    pub options: RunOptions,
    /// The scratch directory, checked.
    pub dir: PathBuf,
    pub outputs: Outputs,
    pub registry: &'a Registry,
    /// The rows chosen, in the order they run.
    pub chosen: Vec<&'a Benchmark>,
    /// Where the run goes as it is measured; `None` for `--no-save`.
    pub store: Option<Store>,
    /// `--observe-system`.
    pub observe_system: bool,
}

/// Measure the run, print and write it, store it.
pub fn run(request: Request) -> Result<Ended> {
    let Request {
        options,
        dir,
        outputs,
        registry: reg,
        chosen,
        store,
        observe_system,
    } = request;
    let strategy = strategy(&options, &dir, store.as_ref())?;
    // The bar's plan, only where a bar is drawn: its weights read the newest earlier run
    // whole. A store that cannot be read gives none, not a failed run.
    let bar_shown = std::io::stderr().is_terminal();
    let eta = bar_shown
        .then(|| plan_of(&chosen, &strategy))
        .flatten()
        .map(|plan| {
            let expected = store
                .as_ref()
                .and_then(|s| s.row_seconds(&runner::environment(&dir), &options).ok())
                .unwrap_or_default();
            PlanEta::new(&plan, expected)
        });
    let session = Session::new(options, &dir, strategy)?;
    let mut recorder = store.map(|s| Recorder::new(s, session.overhead()));
    let mut progress = Progress::new(eta);
    let mut observers = Tee {
        first: &mut progress,
        second: recorder.as_mut().map(|r| r as &mut dyn Observer),
    };
    let reference = reg.find(quiet::REFERENCE);
    let watch = SystemWatch::start(observe_system)?;
    let ended = session.run(&chosen, reg.derived(), reference, &mut observers)?;
    let observed = watch.map(SystemWatch::stop);
    let ended_as = outputs.write(&ended, &session.overhead(), recorder.as_mut())?;
    if let Some(o) = observed {
        keep_beside(o, recorder.as_mut().map(Recorder::store_and_run));
    }
    Ok(ended_as)
}

/// How the session measures, from the options: one process, several, or to a precision
/// target. A run across processes reads what earlier runs like it measured (for its run
/// level, `model::runlevel`) now, before the store goes to the recorder.
fn strategy(options: &RunOptions, dir: &Path, store: Option<&Store>) -> Result<Strategy> {
    if let (Some(precision), Some(budget_s)) = (options.precision, options.budget_s) {
        return Ok(Strategy::ToPrecision(Target {
            precision,
            budget_s,
            pilot: options.invocations.unwrap_or(PILOT),
            max_invocations: MAX_INVOCATIONS,
        }));
    }
    let rounds = options.invocations.unwrap_or(1);
    if rounds <= 1 {
        return Ok(Strategy::OneProcess);
    }
    let earlier = match store {
        Some(s) => s
            .earlier_headlines(
                &crate::harness::runner::environment(dir),
                options,
                crate::model::runlevel::MAX_EARLIER_RUNS,
            )
            .context("reading the earlier runs of this machine")?,
        None => Vec::new(),
    };
    Ok(Strategy::Invocations { rounds, earlier })
}
/// Where the run is written besides the terminal: `--json`, `--html`, the tables' stream
/// and what `--wide` and `--chart` add to them; opened (and refused) by the command line
/// before anything runs.
pub struct Outputs {
    pub json: Option<OutputFile>,
    pub html: Option<OutputFile>,
    pub wide: bool,
    pub chart: bool,
    pub verbose: bool,
}

impl Outputs {
    /// What a run prints and writes once it has ended, in this order: the tables (with
    /// `--verbose`) and charts, the JSON, the warnings of the checks at its end, where it
    /// was stored, the HTML, then the closing summary (with `--verbose`) or the one-screen
    /// answer (without). A store error comes after all of it (a full disk cannot
    /// hide what was measured): it is then the run's error.
    fn write(
        self,
        ended: &session::Ended,
        overhead: &Overhead,
        recorder: Option<&mut Recorder>,
    ) -> Result<Ended> {
        let run = &ended.run;
        // With the JSON on standard output, the tables go to standard error, out of its way.
        let to_stderr = self.json.as_ref().is_some_and(OutputFile::is_stdout);
        let text_out = |text: &str| -> Result<()> {
            if to_stderr {
                eprint!("{}", report::style::fit(text));
            } else {
                output::print_text(text)?;
            }
            Ok(())
        };
        if self.verbose {
            text_out(&report::extra::full_report(run, overhead, self.wide))?;
        }
        if self.chart {
            let charts = report::textchart::charts(run);
            if !charts.is_empty() {
                text_out(&format!("\n{charts}"))?;
            }
        }
        if let Some(out) = self.json {
            out.write(&report::json::to_json(run)?)?;
        }
        for w in &ended.late_warnings {
            output::warn(w);
        }
        let stored = recorder.map(|r| {
            r.stored()
                .with_context(|| format!("storing in {}", r.path()))
                .inspect(|id| {
                    if let Some(id) = id {
                        output::say(&format!("stored as run {id} in {}", r.path()));
                    }
                })
        });
        if let Some(out) = self.html {
            let id = stored
                .as_ref()
                .and_then(|s| s.as_ref().ok().copied().flatten());
            out.write(html_report(run, id).as_bytes())?;
        }
        if self.verbose {
            text_out(&report::summary::summary(run))?;
        } else {
            text_out(&format!("\n{}", report::answer::answer(run)))?;
        }
        stored.transpose()?;
        Ok(exit_status(run))
    }
}
/// The HTML report of one run: its stored id, when it was stored, names it.
fn html_report(run: &Run, stored_as: Option<i64>) -> String {
    let name = match stored_as {
        Some(id) => format!("run {id}"),
        None => "this run".to_string(),
    };
    let about = format!(
        "{} · {}",
        run.started_at.format("%Y-%m-%d %H:%M UTC"),
        run.environment.hostname
    );
    let columns = [report::compare::Column::Run {
        name,
        about,
        run: Box::new(run.clone()),
    }];
    report::html::report(&columns, crate::model::change::DEFAULT_MIN_EFFECT)
}

/// The pilot of a `--precision` run when `--invocations` is not given.
pub const PILOT: usize = 3;
/// A `--precision` run's budget when `--budget` is not given: ten minutes.
pub const DEFAULT_BUDGET_S: f64 = 600.0;
/// No row is planned more invocations than this.
pub const MAX_INVOCATIONS: usize = 30;
fn exit_status(run: &Run) -> Ended {
    if run.status == RunStatus::Interrupted {
        Ended::Interrupted
    } else if run
        .results
        .iter()
        .any(|r| matches!(r.status, Status::Failed { .. }))
    {
        Ended::Failed
    } else {
        Ended::Success
    }
}

/// A progress line on standard error, drawn only between benchmarks (no ticking thread
/// that could steal a CPU from a sample) and only when standard error is a terminal.
///
/// It counts rows (in one process) or rows × processes (across processes, as each
/// process reports each row: `Observer::work_done`), and the bar and the time left come
/// from the plan ([`PlanEta`]): each row weighs what it took in the newest earlier run
/// of this machine, stretched by the pace so far. The merged rows that come all at once
/// at the end of a run across processes are not counted again.
struct Progress {
    bar: Option<ProgressBar>,
    eta: Option<PlanEta>,
    across_processes: bool,
}

/// The bar: elapsed, the bar, the count and the time left (the prefix), what runs.
const BAR_TEMPLATE: &str = "{elapsed:>4} [{bar:30}] {prefix} · {msg}";
/// The bar's length: its position is the plan's share done, in thousandths.
const BAR_STEPS: u64 = 1000;

impl Progress {
    fn new(eta: Option<PlanEta>) -> Progress {
        Progress {
            bar: None,
            eta,
            across_processes: false,
        }
    }

    /// The bar moved to `done` of `planned` rows (× processes), with the time left.
    fn show(&self, done: usize, planned: usize) {
        let Some(bar) = &self.bar else { return };
        let what = if self.across_processes {
            "rows × processes"
        } else {
            "rows"
        };
        let elapsed = bar.elapsed().as_secs_f64();
        let (fraction, left) = match &self.eta {
            Some(eta) => (eta.fraction_done(), eta.remaining_s(elapsed)),
            // No plan (a run to a precision): the rows left at the rate of those done.
            None => {
                let f = done as f64 / planned.max(1) as f64;
                let left = if done > 0 {
                    elapsed / done as f64 * planned.saturating_sub(done) as f64
                } else {
                    0.0
                };
                (f, left)
            }
        };
        bar.set_position((fraction * BAR_STEPS as f64).round() as u64);
        bar.set_prefix(format!(
            "{done}/{planned} {what}, ~{} left",
            short_duration(left)
        ));
    }
}

/// Seconds as the bar says them: "40s", "3m 05s", "1h 02m".
fn short_duration(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

/// The rows a run will measure and the processes that measure each, for the bar's plan;
/// None for a run to a precision, whose processes are decided as it goes.
fn plan_of(chosen: &[&Benchmark], strategy: &Strategy) -> Option<Vec<(String, usize)>> {
    let processes = |b: &Benchmark| match strategy {
        Strategy::Invocations { rounds, .. } if !invocations::measured_once(b) => *rounds,
        _ => 1,
    };
    match strategy {
        Strategy::ToPrecision(_) => None,
        _ => Some(
            chosen
                .iter()
                .map(|b| (b.id().to_string(), processes(b)))
                .collect(),
        ),
    }
}

impl Observer for Progress {
    fn run_started(&mut self, run: &Run, total: usize) {
        for w in &run.warnings {
            output::warn(w);
        }
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(BAR_STEPS), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(BAR_TEMPLATE)
                .expect("valid template")
                .progress_chars("=> "),
        );
        self.bar = Some(bar);
        let planned = self.eta.as_ref().map_or(total, |e| e.rows().1);
        self.show(0, planned);
    }

    fn bench_started(&mut self, _index: usize, id: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(id.to_string());
        }
    }

    fn work_done(&mut self, done: usize, planned: usize, id: &str, what: &str) {
        self.across_processes = true;
        if let Some(eta) = &mut self.eta {
            eta.row_done(id);
        }
        self.show(done, planned);
        if let Some(bar) = &self.bar {
            bar.set_message(what.to_string());
        }
    }

    fn bench_finished(&mut self, result: &BenchResult) -> Result<()> {
        if self.across_processes || result.derived {
            return Ok(());
        }
        let Some(eta) = &mut self.eta else {
            return Ok(());
        };
        eta.row_done(&result.id);
        let (done, planned) = eta.rows();
        self.show(done, planned);
        Ok(())
    }

    fn run_finished(&mut self, _run: &Run) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
