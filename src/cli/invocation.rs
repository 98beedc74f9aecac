//! `timeshare internal-invocation --options FILE --out FILE --dir DIR -- IDS…` (hidden):
//! one invocation of a run with several (`run --invocations K`, `ab`). Measures exactly
//! the ids given, in that order, with the options the parent wrote, and writes the `Run`
//! as JSON to `--out`; prints nothing. Not for people: its arguments are the parent's.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::errors::UsageError;
use super::Exit;
use crate::bench::Registry;
use crate::harness::{interrupt, Observer, Session, Strategy};
use crate::model::RunOptions;

#[derive(Debug, Args)]
pub struct InvocationArgs {
    /// The run's options, as JSON
    #[arg(long, value_name = "FILE")]
    pub options: PathBuf,
    /// Where to write the run, as JSON
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The scratch directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Not the run's first process: skip what a merged result keeps from the first only
    #[arg(long)]
    pub later: bool,
    /// Exact benchmark ids, in the order to measure them
    pub ids: Vec<String>,
}

struct Silent;
impl Observer for Silent {}

pub fn execute(args: InvocationArgs) -> Result<Exit> {
    let text = std::fs::read(&args.options)
        .with_context(|| format!("cannot read {}", args.options.display()))?;
    let options: RunOptions = serde_json::from_slice(&text)
        .with_context(|| format!("{} is not a run's options", args.options.display()))?;
    let reg = Registry::new(&options);
    let chosen = args
        .ids
        .iter()
        .map(|id| {
            reg.find(id)
                .ok_or_else(|| UsageError(format!("no benchmark {id} in this build")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    interrupt::install()?;
    let mut session = Session::new(options, &args.dir, Strategy::OneProcess)?;
    if args.later {
        session = session.as_later_process();
    }
    let run = session.run(&chosen, &[], None, &mut Silent)?.run;
    std::fs::write(&args.out, serde_json::to_vec(&run)?)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(Exit::Success)
}
