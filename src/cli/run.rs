//! `timeshare run [ID|FAMILY…] [--quick|--full] [--json FILE] [--cpu N]`
//!
//! Everything the user typed is checked before the first measurement: the selection, the
//! CPU and the placement, the options that only some rows read, the directories and the
//! output file, so a typo costs nothing and leaves nothing.
//!
//! What it prints ends with a one-screen answer (`report::answer`; the full tables first
//! with `--verbose`) and the summary line ("N ok, M skipped, K failed in T s"), after the
//! note of where the run was stored.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::errors::UsageError;
use super::observe::{keep_beside, SystemWatch};
use super::outfile::OutputFile;
use super::{output, suggest, Exit};
use crate::bench::Registry;
use crate::harness::children::Pair;
use crate::harness::contract::Benchmark;
use crate::harness::hooks::Observer;
use crate::harness::precision::Target;
use crate::harness::session::{Ended, Session, Strategy};
use crate::harness::tee::Tee;
use crate::harness::{cpu, interrupt, invocations, quiet, runner};
use crate::model::eta::PlanEta;
use crate::model::fleet::FleetTag;
use crate::model::{
    BenchResult, Mode, ObserveOptions, Overhead, Placement, Run, RunOptions, RunStatus, Status,
};
use crate::report;
use crate::store::{Recorder, Store};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Benchmark ids (that id only), families or id prefixes (`pipe.back.` or `pipe.back*`:
    /// every id under it), mixed freely (default: everything registered)
    pub select: Vec<String>,
    /// Few, short samples: a first look in seconds (the default)
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// More and longer samples: figures to keep
    #[arg(long)]
    pub full: bool,
    /// Measure every benchmark in K fresh processes, the order shuffled between them; the
    /// headline is then across processes [default: 3 with --quick, sharing one quick
    /// process's samples; 10 with --full, each with the quick plan's samples]
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u16).range(1..=100))]
    pub invocations: Option<u16>,
    /// Plan invocations and samples per row until its 95% CI is within ±PCT (e.g. 2%),
    /// from a pilot of --invocations processes (default 3), within --budget
    #[arg(long, value_name = "PCT", value_parser = parse_precision)]
    pub precision: Option<f64>,
    /// The time a --precision run may take in all, pilot included: 90s, 10m, 1h [default:
    /// 10m]
    #[arg(long, value_name = "TIME", value_parser = parse_budget, requires = "precision")]
    pub budget: Option<f64>,
    /// Also write the whole result as JSON to FILE ('-' for standard output)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write a self-contained HTML report with charts to FILE (see `timeshare report`)
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Draw a small text chart under the memory-hierarchy, paging, load and sweep tables
    #[arg(long)]
    pub chart: bool,
    /// Pin the measuring process to CPU N
    #[arg(long, value_name = "N")]
    pub cpu: Option<usize>,
    /// Where two-process benchmarks put their two sides
    #[arg(long, value_enum, default_value_t = PlacementArg::Free)]
    pub placement: PlacementArg,
    #[command(flatten)]
    pub dir: super::dir::DirArgs,
    /// A label to remember the run by
    #[arg(long)]
    pub label: Option<String>,
    /// Also show elapsed, user and system time per operation and the kernel's counters
    /// (in the full table: implies --verbose)
    #[arg(long, short = 'w')]
    pub wide: bool,
    /// Print the full table of every row with its notes, and every family's tables, before
    /// the summary (without it: a one-screen answer; `timeshare show last` prints the
    /// full table later)
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Do not store the run in the results database
    #[arg(long)]
    pub no_save: bool,
    #[command(flatten)]
    pub db: super::db::DbArgs,
    /// File the run under this campaign (the runs of one occasion on many hosts; see
    /// `timeshare fleet`)
    #[arg(long, value_name = "NAME")]
    pub campaign: Option<String>,
    /// This host's name in the fleet (an inventory name) [default: the hostname]
    #[arg(long, value_name = "NAME")]
    pub host_name: Option<String>,
    /// The group of hosts this one belongs to (an inventory group)
    #[arg(long, value_name = "NAME")]
    pub group: Option<String>,
    /// Sample the machine's vmstat view during each row, every SECONDS (default 0.1)
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "0.1")]
    pub observe: Option<f64>,
    /// Profile each row system-wide with `perf record -g`; `timeshare profile` shows it
    #[arg(long)]
    pub profile: bool,
    /// Count task clock, context switches, faults, migrations (and cycles, instructions,
    /// cache and branch misses where there is a PMU) per operation
    #[arg(long)]
    pub counters: bool,
    /// Count the system calls per operation and check the ones each row declares
    #[arg(long)]
    pub trace: bool,
    /// Observe the whole machine while the run goes on, as `timeshare observe` does
    /// (rates, every system call by name, a kernel profile); the run's own calls are
    /// counted apart; stored as an observation naming the run
    #[arg(long)]
    pub observe_system: bool,
    /// Run the rows once per configuration and store one run per configuration (seed
    /// 000's Attachment B): e.g. `tmp=tmpfs,tmp=disk,tmp=disk+mem=256M`; settings
    /// `tmp=tmpfs|disk|DIR`, `mem=SIZE` (root). Default rows: load.script and load.cpu.
    /// `timeshare table 000-B` sets the runs side by side
    #[arg(long, value_name = "LIST")]
    pub configs: Option<String>,
    /// The configuration a sweep's run measures (set by `--configs`)
    #[arg(long, hide = true, value_name = "NAME", conflicts_with = "configs")]
    pub configuration: Option<String>,
    /// What the configuration is on this machine, in words (set by `--configs`)
    #[arg(long, hide = true, value_name = "TEXT", requires = "configuration")]
    pub configuration_note: Option<String>,
    // The options that only some rows read, declared beside them (`bench::OPTIONS`).
    #[command(flatten, next_help_heading = "Options some rows read")]
    pub rows: super::declared::RowArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PlacementArg {
    /// Let the scheduler place them
    Free,
    /// Both on one CPU
    Same,
    /// On different CPUs
    Spread,
}

impl From<PlacementArg> for Placement {
    fn from(p: PlacementArg) -> Self {
        match p {
            PlacementArg::Free => Placement::Free,
            PlacementArg::Same => Placement::Same,
            PlacementArg::Spread => Placement::Spread,
        }
    }
}

/// The names the run is filed under, checked before anything is measured: capped, not
/// empty; a campaign and a host name also name files (the fleet playbook's
/// `CAMPAIGN/HOST.json`), so they hold no `/` and do not start with `.`.
fn check_names(args: &RunArgs) -> Result<()> {
    use crate::model::names;
    let given = |v: &Option<String>| v.clone();
    for (flag, value, path) in [
        ("--label", given(&args.label), false),
        ("--campaign", given(&args.campaign), true),
        ("--host-name", given(&args.host_name), true),
        ("--group", given(&args.group), false),
    ] {
        let Some(value) = value else { continue };
        let checked = if path {
            names::check_path_safe(flag, &value)
        } else {
            names::check(flag, &value)
        };
        checked.map_err(UsageError)?;
    }
    Ok(())
}

/// One run. (A `--configs` sweep never comes here: the command line sends it to the
/// configurations' sweep, which runs this once per configuration in a child.)
pub fn execute(args: RunArgs) -> Result<Exit> {
    // First: from here on a signal asks the run to stop and clean up.
    interrupt::install()?;
    let options = run_options(&args)?;
    let dir = args.dir.checked()?;
    let outputs = Outputs::open(&args)?;
    let reg = Registry::new(&options);
    let chosen = suggest::select(&reg, &args.select)?;
    args.rows.check_read(&chosen)?;
    // The database is opened (and its schema checked) before anything is measured.
    let store = if args.no_save {
        None
    } else {
        args.db.open_for_run()?
    };
    super::clean::sweep(&dir);
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
    let watch = SystemWatch::start(args.observe_system)?;
    let ended = session.run(&chosen, reg.derived(), reference, &mut observers)?;
    let observed = watch.map(SystemWatch::stop);
    let exit = outputs.write(&ended, &session.overhead(), recorder.as_mut())?;
    if let Some(o) = observed {
        keep_beside(o, recorder.as_mut().map(Recorder::store_and_run));
    }
    Ok(exit)
}

/// The run's options from the command line, every one checked: a typo costs nothing.
fn run_options(args: &RunArgs) -> Result<RunOptions> {
    if let Some(c) = args.cpu {
        cpu::check_usable(c).map_err(|e| UsageError(e.to_string()))?;
    }
    check_placement(args.placement.into(), args.cpu)?;
    check_names(args)?;
    if let Some(s) = args.observe {
        if !(s.is_finite() && (0.01..=60.0).contains(&s)) {
            return Err(UsageError(format!(
                "--observe {s}: give an interval from 0.01 to 60 seconds"
            ))
            .into());
        }
    }
    let mode = if args.full { Mode::Full } else { Mode::Quick };
    let target = target(args)?;
    let invocations = match target {
        Some(t) => t.pilot,
        None => args
            .invocations
            .map(usize::from)
            .unwrap_or_else(|| invocations::default_invocations(mode)),
    };
    let mut options = RunOptions {
        mode,
        invocations: (invocations > 1).then_some(invocations),
        selection: args.select.clone(),
        cpu: args.cpu,
        placement: args.placement.into(),
        label: args.label.clone(),
        observe: ObserveOptions {
            interval_s: args.observe,
            profile: args.profile,
            counters: args.counters,
            trace: args.trace,
        },
        fleet: FleetTag {
            campaign: args.campaign.clone(),
            host: args.host_name.clone(),
            group: args.group.clone(),
        },
        precision: target.map(|t| t.precision),
        budget_s: target.map(|t| t.budget_s),
        observed_system: args.observe_system,
        ..RunOptions::default()
    };
    args.rows.apply(&mut options)?;
    options.load.configuration = args.configuration.clone();
    options.load.configuration_note = args.configuration_note.clone();
    Ok(options)
}

/// What `--precision` (with `--invocations` as its pilot and `--budget`) asks, checked.
fn target(args: &RunArgs) -> Result<Option<Target>> {
    let Some(precision) = args.precision else {
        return Ok(None);
    };
    let pilot = args.invocations.map_or(PILOT, usize::from);
    if pilot < 2 {
        return Err(UsageError(
            "--precision needs a pilot of at least 2 invocations (leave --invocations out for \
             3)"
            .into(),
        )
        .into());
    }
    Ok(Some(Target {
        precision,
        budget_s: args.budget.unwrap_or(DEFAULT_BUDGET_S),
        pilot,
        max_invocations: MAX_INVOCATIONS,
    }))
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
/// and what `--wide` and `--chart` add to them; opened (and refused) before anything runs.
/// Whether two output paths are one file: the same path, or (when it exists) the same
/// device and inode reached another way (`./x`, a link).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if a == b {
        return true;
    }
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        _ => {
            let absolute = |p: &std::path::Path| std::path::absolute(p).ok();
            absolute(a).is_some_and(|x| Some(x) == absolute(b))
        }
    }
}

struct Outputs {
    json: Option<OutputFile>,
    html: Option<OutputFile>,
    wide: bool,
    chart: bool,
    verbose: bool,
}

impl Outputs {
    fn open(args: &RunArgs) -> Result<Outputs> {
        if let (Some(json), Some(html)) = (&args.json, &args.html) {
            if same_file(json, html) {
                return Err(UsageError(format!(
                    "--json and --html both name {}: the HTML would overwrite the JSON; \
                     give each its own file",
                    json.display()
                ))
                .into());
            }
        }
        let rules = args.db.output_rules();
        let open = |path: &Option<PathBuf>, flag| {
            path.as_deref()
                .map(|p| OutputFile::open(p, flag, &rules))
                .transpose()
        };
        Ok(Outputs {
            json: open(&args.json, "--json")?,
            html: open(&args.html, "--html")?,
            wide: args.wide,
            chart: args.chart,
            verbose: args.verbose || args.wide,
        })
    }

    /// What a run prints and writes once it has ended, in this order: the tables (with
    /// `--verbose`) and charts, the JSON, the warnings of the checks at its end, where it
    /// was stored, the HTML, then the closing summary (with `--verbose`) or the one-screen
    /// answer (without). A store error comes after all of it (a full disk cannot
    /// hide what was measured): it is then the run's error.
    fn write(
        self,
        ended: &Ended,
        overhead: &Overhead,
        recorder: Option<&mut Recorder>,
    ) -> Result<Exit> {
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
const PILOT: usize = 3;
/// A `--precision` run's budget when `--budget` is not given: ten minutes.
const DEFAULT_BUDGET_S: f64 = 600.0;
/// No row is planned more invocations than this.
const MAX_INVOCATIONS: usize = 30;

/// "2%" or "2" → 0.02; from 0.1% to 50%.
fn parse_precision(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("'{s}': give a percentage, e.g. 2%"))?;
    if !(v.is_finite() && (0.1..=50.0).contains(&v)) {
        return Err(format!("'{s}': give a percentage from 0.1% to 50%"));
    }
    Ok(v / 100.0)
}

/// "90s", "10m", "1h", "600" (seconds) → seconds; at least 1 s, at most a day.
fn parse_budget(s: &str) -> Result<f64, String> {
    let secs = crate::model::unit::parse_seconds(s)
        .ok_or_else(|| format!("'{s}': give a time, e.g. 90s, 10m or 1h"))?;
    if !(1.0..=86_400.0).contains(&secs) {
        return Err(format!("'{s}': give a time from 1s to 24h"));
    }
    Ok(secs)
}

/// `--placement spread` needs two CPUs this process may use (`--cpu` leaves it one): a
/// contradiction refused now, not a row failed later. The harness's own rule decides.
fn check_placement(placement: Placement, pinned: Option<usize>) -> Result<()> {
    let usable = match pinned {
        Some(c) => vec![c],
        None => cpu::usable_cpus(),
    };
    Pair::resolve(placement, &usable).map_err(|e| UsageError(e.to_string()))?;
    Ok(())
}

fn exit_status(run: &Run) -> Exit {
    if run.status == RunStatus::Interrupted {
        Exit::Interrupted
    } else if run
        .results
        .iter()
        .any(|r| matches!(r.status, Status::Failed { .. }))
    {
        Exit::Failed
    } else {
        Exit::Success
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_and_budget_parse_as_written() {
        assert_eq!(parse_precision("2%"), Ok(0.02));
        assert_eq!(parse_precision("0.5"), Ok(0.005));
        assert!(parse_precision("0%").is_err());
        assert!(parse_precision("two").is_err());
        assert_eq!(parse_budget("10m"), Ok(600.0));
        assert_eq!(parse_budget("90s"), Ok(90.0));
        assert_eq!(parse_budget("1h"), Ok(3600.0));
        assert_eq!(parse_budget("45"), Ok(45.0));
        assert!(parse_budget("0s").is_err());
        assert!(parse_budget("m").is_err());
    }
}
