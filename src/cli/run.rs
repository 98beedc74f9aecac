//! `timeshare run [ID|FAMILY…] [--quick|--full] [--json FILE] [--cpu N]`
//!
//! Everything the user typed is checked before the first measurement: the selection, the
//! CPU and the placement, the options that only some rows read, the directories and the
//! output file, so a typo costs nothing and leaves nothing.
//!
//! What it prints ends with a one-screen answer (`report::answer`; the full tables first
//! with `--verbose`) and the summary line ("N ok, M skipped, K failed in T s"), after the
//! note of where the run was stored.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};

use super::errors::UsageError;
use super::outfile::OutputFile;
use super::{suggest, Exit};
use crate::bench::Registry;
use crate::harness::children::Pair;
use crate::harness::precision::Target;
use crate::harness::{cpu, interrupt, invocations};
use crate::model::fleet::FleetTag;
use crate::model::{Mode, ObserveOptions, Placement, RunOptions};
use crate::usecase;
use crate::usecase::run::{Outputs, DEFAULT_BUDGET_S, MAX_INVOCATIONS, PILOT};

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
    // The options that only some rows read, declared beside them (`bench::options()`).
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
    let outputs = outputs(&args)?;
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
    Ok(usecase::run::run(usecase::run::Request {
        options,
        dir,
        outputs,
        registry: &reg,
        chosen,
        store,
        observe_system: args.observe_system,
    })?
    .into())
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

/// `--json` and `--html` opened (and refused) before anything runs, with what `--wide`,
/// `--chart` and `--verbose` add to the tables.
fn outputs(args: &RunArgs) -> Result<Outputs> {
    if let (Some(json), Some(html)) = (&args.json, &args.html) {
        if crate::harness::outpolicy::same_file(json, html) {
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
