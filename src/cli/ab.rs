//! `timeshare ab A B [SELECTION…] [--rounds K] [--full]`: two builds or two settings
//! measured alternately in one sitting (A B, B A, A B … with the benchmark order shuffled
//! every round), then compared at the invocation level, so that a drift of the machine
//! falls on both alike. A side is `self` (this binary), the path of another timeshare
//! binary, `dir:PATH` (this binary, scratch files in PATH) or `cpu:N` (this binary,
//! pinned to CPU N).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::compare::CompareFormat;
use super::errors::UsageError;
use super::{suggest, Exit};
use crate::bench::Registry;
use crate::harness::interrupt;
use crate::harness::invocations::Side;
use crate::model::change::DEFAULT_MIN_EFFECT;
use crate::model::{Mode, RunOptions};
use crate::report::compare::Column;
use crate::usecase;

#[derive(Debug, Args)]
pub struct AbArgs {
    /// The first side: `self`, a timeshare binary's path, `dir:PATH` or `cpu:N`
    pub a: String,
    /// The second side, in the same forms
    pub b: String,
    /// Benchmark ids, families or id prefixes (default: everything registered)
    pub select: Vec<String>,
    /// Rounds: each side is measured in this many fresh processes
    #[arg(long, value_name = "K", default_value_t = 5, value_parser = clap::value_parser!(u16).range(3..=100))]
    pub rounds: u16,
    /// More and longer samples per process
    #[arg(long)]
    pub full: bool,
    /// The smallest difference, in percent, that is called a change
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_MIN_EFFECT * 100.0)]
    pub threshold: f64,
    #[command(flatten)]
    pub dir: super::dir::DirArgs,
    /// Also write side A's results, merged across its processes, as a run in the result
    /// format to FILE (importable; `timeshare import`)
    #[arg(long, value_name = "FILE")]
    pub json_a: Option<PathBuf>,
    /// The same for side B
    #[arg(long, value_name = "FILE")]
    pub json_b: Option<PathBuf>,
    /// How to print the comparison: a table, or JSON, CSV or Markdown (every id: both
    /// figures and their intervals, the ratio and its range, the verdict with its test)
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
}

fn side(spec: &str, options: &RunOptions, dir: &std::path::Path) -> Result<Side> {
    let this = std::env::current_exe().context("cannot find this program's path")?;
    let mut s = Side {
        name: spec.to_string(),
        exe: this,
        options: options.clone(),
        dir: dir.to_path_buf(),
    };
    if spec == "self" {
    } else if let Some(d) = spec.strip_prefix("dir:") {
        s.dir = super::dir::DirArgs {
            dir: Some(PathBuf::from(d)),
        }
        .checked()?;
    } else if let Some(n) = spec.strip_prefix("cpu:") {
        let cpu: usize = n
            .parse()
            .map_err(|_| UsageError(format!("{spec}: give cpu:N with N a CPU number")))?;
        crate::harness::cpu::check_usable(cpu).map_err(|e| UsageError(e.to_string()))?;
        s.options.cpu = Some(cpu);
    } else {
        let p = PathBuf::from(spec);
        if !p.is_file() {
            return Err(UsageError(format!(
                "{spec}: not `self`, `dir:PATH`, `cpu:N` or the path of a timeshare binary"
            ))
            .into());
        }
        s.exe = p;
    }
    Ok(s)
}

pub fn execute(args: AbArgs) -> Result<Exit> {
    let dir = args.dir.checked()?;
    let open = |p: &Option<PathBuf>, flag: &str| {
        p.as_deref()
            .map(|p| super::outfile::OutputFile::open(p, flag, &Default::default()))
            .transpose()
    };
    let json = [
        open(&args.json_a, "--json-a")?,
        open(&args.json_b, "--json-b")?,
    ];
    let options = RunOptions {
        mode: if args.full { Mode::Full } else { Mode::Quick },
        selection: args.select.clone(),
        invocations: Some(args.rounds as usize),
        ..RunOptions::default()
    };
    let reg = Registry::new(&options);
    let benches = suggest::select(&reg, &args.select)?;
    let sides = [
        side(&args.a, &options, &dir)?,
        side(&args.b, &options, &dir)?,
    ];
    interrupt::install()?;
    let outcome = usecase::ab::run(usecase::ab::Request {
        options,
        dir,
        sides,
        registry: &reg,
        chosen: benches,
        rounds: args.rounds as usize,
    })?;
    let columns = outcome.columns;
    super::compare::print_as(&columns, args.format, args.threshold)?;
    for (out, column) in json.into_iter().zip(&columns) {
        if let (Some(out), Column::Run { run, .. }) = (out, column) {
            out.write(&crate::report::json::to_json(run)?)?;
        }
    }
    for w in &outcome.late_warnings {
        super::output::warn(w);
    }
    Ok(if outcome.interrupted {
        Exit::Interrupted
    } else {
        Exit::Success
    })
}
