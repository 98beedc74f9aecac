//! `timeshare exercise [--jobs cc=4,…|--sweep 1,2,4,…] [--trials N] [--quick] [--json FILE]`
//! — the system exerciser of seed 004 (see `crate::exercise`).
//!
//! The exercise is stored like any run (`--db`, `--label`, `--no-save`): `exercise.TYPE`
//! is each job type alone (its trusted run), `exercise.batch.N` each batch of N processes,
//! every trial of it with `--trials` (see [`crate::model::exercise::Report::results`]), so
//! `history`, `show`, `export`, `compare` (e.g. with `vax780-4.1bsd`) and `table 004-jobs`
//! read it. `--json` writes the exerciser's own record (schema `timeshare.exercise/1`);
//! `export` writes the stored run.
//!
//! Exit status: 0 every instance ran and matched its trusted output; 1 at least one
//! instance failed (differed, crashed, was killed, could not start) or a type's setup
//! failed; 2 bad input; 3 nothing was checked because every requested job type was
//! skipped (stress-ng exits 0 then; a check that checked nothing must not look like a
//! pass); 130 interrupted.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, CommandFactory};

use super::errors::UsageError;
use super::outfile::OutputFile;
use super::{Cli, Exit};
use crate::exercise::{devez, jobs, Config, Request};
use crate::harness::interrupt;
use crate::model::{Mode, RunOptions};

const MAX_INSTANCES: usize = 10_000;
/// More trials than this is a typing slip, not a measurement: the seed ran 7.
const MAX_TRIALS: usize = 100;

#[derive(Debug, Args)]
#[command(
    after_help = "Job types: cc, nroff, ed, float, chess (when built in). \
A type whose program is missing is skipped with the reason.\n\
Exit status: 0 all passed, 1 an instance or a setup failed, 2 bad input, \
3 every job type was skipped (nothing checked), 130 interrupted."
)]
pub struct ExerciseArgs {
    /// Instances per job type, e.g. cc=4,nroff=4,ed=4,float=4 (default: 4 of every type,
    /// 2 with --quick)
    #[arg(long, value_name = "TYPE=N,...", conflicts_with = "sweep")]
    pub jobs: Option<String>,
    /// One batch per N, e.g. 1,2,4,8: N copies of each type (with --blend, N processes
    /// in the blend's proportions), so every batch has the same mix; real/user/sys per
    /// process against the number of processes
    #[arg(long, value_name = "N,...")]
    pub sweep: Option<String>,
    /// The job types a sweep uses (default: all)
    #[arg(long, value_name = "TYPE,...", requires = "sweep")]
    pub types: Option<String>,
    /// The sweep's mix by share, e.g. cc=1,nroff=1,ed=1,float=1: every number of processes
    /// must be a whole number of blends (here a multiple of 4), so the mix is the same at
    /// every one
    #[arg(
        long,
        value_name = "TYPE=SHARE,...",
        requires = "sweep",
        conflicts_with = "types"
    )]
    pub blend: Option<String>,
    /// Run every batch N times, each a fresh batch checked in full, and report the mean and
    /// standard deviation across the trials (1 to 100)
    #[arg(long, value_name = "N", default_value = "1")]
    pub trials: String,
    /// A few instances of each type: a first look in seconds
    #[arg(long)]
    pub quick: bool,
    /// Also write the whole record as JSON to FILE ('-' for standard output)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub dir: super::dir::DirArgs,
    /// One copy of a device exerciser beside every batch (seed 004's devez): patterned
    /// blocks written to TARGET, read back past the page cache and checked byte for byte.
    /// TARGET: file (a scratch file in --dir; the default) or loop (a loop device over one,
    /// as root; skipped with the reason otherwise)
    #[arg(long, value_name = "TARGET", num_args = 0..=1, default_missing_value = "file")]
    pub devez: Option<String>,
    /// Size of the devez target: 1M to 4G, in whole 64K blocks (default 64M)
    #[arg(long, value_name = "SIZE")]
    pub devez_size: Option<String>,
    /// Keep the scratch directory and print its path (to look at a failure)
    #[arg(long)]
    pub keep: bool,
    /// Kill an instance still running after SECONDS (it fails)
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub timeout: u64,
    /// A label to remember the run by
    #[arg(long)]
    pub label: Option<String>,
    /// Observe the whole machine while the exercise runs, as `timeshare observe` does
    /// (rates, every system call by name, a kernel profile); its instances' calls are
    /// counted apart; stored as an observation naming the exercise's run
    #[arg(long)]
    pub observe_system: bool,
    /// Do not store the run in the results database
    #[arg(long)]
    pub no_save: bool,
    #[command(flatten)]
    pub db: super::db::DbArgs,
}

pub fn execute(args: ExerciseArgs) -> Result<Exit> {
    // First: from here on a signal asks the run to stop and clean up.
    interrupt::install()?;
    let request = request(&args)?;
    let trials = parse_trials(&args.trials)?;
    let devez = parse_devez(args.devez.as_deref(), args.devez_size.as_deref())?;
    let dir = args.dir.checked()?;
    if args.timeout == 0 {
        return Err(UsageError("--timeout must be at least 1 second".into()).into());
    }
    if let Some(label) = &args.label {
        crate::model::names::check("--label", label).map_err(UsageError)?;
    }
    let json = args
        .json
        .as_deref()
        .map(|p| OutputFile::open(p, "--json", &args.db.output_rules()))
        .transpose()?;
    // The database is opened (and its schema checked) before anything runs.
    let store = if args.no_save {
        None
    } else {
        args.db.open_for_run()?
    };
    let options = run_options(&args, trials);
    let config = Config {
        request,
        dir,
        keep: args.keep,
        timeout: Duration::from_secs(args.timeout),
        trials,
        exe: std::env::current_exe().context("cannot find the timeshare executable")?,
        subcommands: Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect(),
        devez,
    };
    super::clean::sweep(&config.dir);
    crate::usecase::exercise::preflight(&config)?;
    Ok(
        crate::usecase::exercise::run(crate::usecase::exercise::Request {
            config,
            options,
            store,
            json,
            observe_system: args.observe_system,
        })?
        .into(),
    )
}

/// `--devez [TARGET]` and `--devez-size SIZE`, checked.
fn parse_devez(target: Option<&str>, size: Option<&str>) -> Result<Option<devez::Setup>> {
    let Some(target) = target else {
        if size.is_some() {
            return Err(UsageError("--devez-size needs --devez".into()).into());
        }
        return Ok(None);
    };
    let kind = devez::Kind::parse(target).map_err(UsageError)?;
    let size = match size {
        None => devez::DEFAULT_SIZE,
        Some(s) => crate::bench::vm::parse_size(s)
            .map_err(|why| UsageError(format!("--devez-size: {why}")))
            .and_then(|n| devez::check_size(n).map_err(UsageError))?,
    };
    Ok(Some(devez::Setup {
        kind,
        size,
        tamper: None,
    }))
}

/// The options recorded with the stored run: the mode and the words that chose the jobs.
fn run_options(args: &ExerciseArgs, trials: usize) -> RunOptions {
    let mut selection = vec!["exercise".to_string()];
    if let Some(sweep) = &args.sweep {
        selection.extend(["--sweep".to_string(), sweep.clone()]);
        if let Some(types) = &args.types {
            selection.extend(["--types".to_string(), types.clone()]);
        }
        if let Some(blend) = &args.blend {
            selection.extend(["--blend".to_string(), blend.clone()]);
        }
    } else if let Some(jobs) = &args.jobs {
        selection.extend(["--jobs".to_string(), jobs.clone()]);
    }
    if trials > 1 {
        selection.extend(["--trials".to_string(), trials.to_string()]);
    }
    if let Some(target) = &args.devez {
        selection.extend(["--devez".to_string(), target.clone()]);
        if let Some(size) = &args.devez_size {
            selection.extend(["--devez-size".to_string(), size.clone()]);
        }
    }
    RunOptions {
        mode: if args.quick { Mode::Quick } else { Mode::Full },
        selection,
        label: args.label.clone(),
        observed_system: args.observe_system,
        ..RunOptions::default()
    }
}

/// The validated request: counts, a sweep, or the default counts.
fn request(args: &ExerciseArgs) -> Result<Request> {
    if let Some(sweep) = &args.sweep {
        let totals = parse_list(sweep, "--sweep")?;
        if let Some(spec) = &args.blend {
            let (types, shares) = parse_blend(spec, &totals)?;
            return Ok(Request::Sweep {
                types,
                totals,
                blend: Some(shares),
            });
        }
        let types = match &args.types {
            Some(t) => parse_types(t)?,
            None => jobs::JOBS.iter().collect(),
        };
        return Ok(Request::Sweep {
            types,
            totals,
            blend: None,
        });
    }
    if let Some(spec) = &args.jobs {
        return Ok(Request::Counts(parse_counts(spec)?));
    }
    let n = if args.quick { 2 } else { 4 };
    Ok(Request::Counts(jobs::JOBS.iter().map(|j| (j, n)).collect()))
}

fn unknown_type(name: &str) -> anyhow::Error {
    UsageError(format!(
        "unknown job type `{name}` (known: {})",
        jobs::names().join(", ")
    ))
    .into()
}

/// `cc=4,nroff=2` → [(cc, 4), (nroff, 2)].
pub fn parse_counts(spec: &str) -> Result<Vec<(&'static jobs::JobType, usize)>> {
    parse_pairs(spec, "--jobs")
}

/// `TYPE=N,...` for `flag`: each type once, each N a count.
fn parse_pairs(spec: &str, flag: &str) -> Result<Vec<(&'static jobs::JobType, usize)>> {
    let mut out: Vec<(&'static jobs::JobType, usize)> = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, count) = item
            .split_once('=')
            .ok_or_else(|| UsageError(format!("{flag}: `{item}` is not TYPE=N (e.g. cc=4)")))?;
        let job = jobs::find(name.trim()).ok_or_else(|| unknown_type(name.trim()))?;
        let n = parse_count(count.trim(), flag)?;
        if out.iter().any(|(j, _)| j.name == job.name) {
            return Err(UsageError(format!("{flag}: `{}` given twice", job.name)).into());
        }
        out.push((job, n));
    }
    if out.is_empty() {
        return Err(UsageError(format!("{flag}: no job types given (e.g. cc=4,ed=2)")).into());
    }
    Ok(out)
}

/// `--blend cc=2,ed=1` → the types and their shares, refused unless every number of the
/// sweep is a whole number of blends: only then is the mix the same at every one.
fn parse_blend(spec: &str, totals: &[usize]) -> Result<(Vec<&'static jobs::JobType>, Vec<usize>)> {
    let pairs = parse_pairs(spec, "--blend")?;
    let size: usize = pairs.iter().map(|p| p.1).sum();
    if let Some(n) = totals.iter().find(|n| *n % size != 0) {
        return Err(UsageError(format!(
            "--blend: a batch of {n} is not a whole number of blends of {size} processes, so \
             its mix would differ from the others'; use multiples of {size} in --sweep"
        ))
        .into());
    }
    Ok(pairs.into_iter().unzip())
}

fn parse_types(spec: &str) -> Result<Vec<&'static jobs::JobType>> {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|n| jobs::find(n).ok_or_else(|| unknown_type(n)))
        .collect()
}

fn parse_list(spec: &str, flag: &str) -> Result<Vec<usize>> {
    let list: Vec<usize> = spec
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse_count(s, flag))
        .collect::<Result<_>>()?;
    if list.is_empty() {
        return Err(UsageError(format!("{flag}: give numbers of processes, e.g. 1,5,10")).into());
    }
    // Each number is one batch, stored as `exercise.batch.N`: twice the same is one id
    // for two batches.
    if let Some(n) = list
        .iter()
        .find(|n| list.iter().filter(|m| m == n).count() > 1)
    {
        return Err(UsageError(format!("{flag}: {n} given twice")).into());
    }
    Ok(list)
}

fn parse_trials(s: &str) -> Result<usize> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_TRIALS).contains(&n) => Ok(n),
        _ => Err(UsageError(format!(
            "--trials: `{s}` is not a number of trials from 1 to {MAX_TRIALS}"
        ))
        .into()),
    }
}

fn parse_count(s: &str, flag: &str) -> Result<usize> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_INSTANCES).contains(&n) => Ok(n),
        _ => Err(UsageError(format!(
            "{flag}: `{s}` is not a number of instances from 1 to {MAX_INSTANCES}"
        ))
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse_and_bad_ones_are_usage_errors() {
        let c = parse_counts("cc=4, ed=2").unwrap();
        assert_eq!(
            c.iter().map(|(j, n)| (j.name, *n)).collect::<Vec<_>>(),
            [("cc", 4), ("ed", 2)]
        );
        for bad in ["cc", "vi=2", "cc=0", "cc=x", "cc=1,cc=2", ""] {
            let e = parse_counts(bad).unwrap_err();
            assert!(e.downcast_ref::<UsageError>().is_some(), "{bad}: {e}");
        }
        assert_eq!(parse_list("1,5,40", "--sweep").unwrap(), [1, 5, 40]);
        assert!(parse_list("1,-5", "--sweep").is_err());
        let twice = parse_list("1,5,1", "--sweep").unwrap_err();
        assert!(twice.to_string().contains("1 given twice"), "{twice}");
        assert_eq!(parse_trials("7").unwrap(), 7);
        let (types, shares) = parse_blend("cc=2,ed=1", &[3, 9]).unwrap();
        let names: Vec<&str> = types.iter().map(|j| j.name).collect();
        assert_eq!((names, shares), (vec!["cc", "ed"], vec![2, 1]));
        let e = parse_blend("cc=2,ed=1", &[3, 5]).unwrap_err().to_string();
        assert!(
            e.contains(
                "a batch of 5 is not a whole number of blends of 3 processes, so its mix would"
            ),
            "{e}"
        );
        assert!(parse_blend("cc=0", &[3]).is_err());
        assert!(parse_blend("cc=1,cc=2", &[3])
            .unwrap_err()
            .to_string()
            .contains("twice"));
        let d = parse_devez(Some("loop"), Some("2M")).unwrap().unwrap();
        assert_eq!((d.kind, d.size), (devez::Kind::Loop, 2 << 20));
        assert_eq!(
            parse_devez(Some("file"), None).unwrap().unwrap().size,
            64 << 20
        );
        assert!(parse_devez(None, None).unwrap().is_none());
        for (target, size) in [
            (Some("tape"), None),
            (Some("file"), Some("0")),
            (Some("file"), Some("5G")),
            (Some("file"), Some("1000K")),
            (Some("file"), Some("lots")),
            (None, Some("1M")),
        ] {
            let e = parse_devez(target, size).unwrap_err();
            assert!(
                e.downcast_ref::<UsageError>().is_some(),
                "{target:?} {size:?}: {e}"
            );
            assert!(!e.to_string().contains('\n'), "one line: {e}");
        }
        for bad in ["0", "101", "-1", "x", ""] {
            let e = parse_trials(bad).unwrap_err();
            assert!(e.downcast_ref::<UsageError>().is_some(), "{bad}: {e}");
        }
    }
}
