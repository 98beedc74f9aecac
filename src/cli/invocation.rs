//! `timeshare internal-invocation --options FILE --out FILE --dir DIR -- IDS…` (hidden):
//! one invocation of a run with several (`run --invocations K`, `ab`). Measures exactly
//! the ids given, in that order, with the options the parent wrote, and writes the `Run`
//! as JSON to `--out`; prints nothing (a byte per finished row to `--rows-done`, the
//! parent's progress). Not for people: its arguments are the parent's.

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
    /// A file to append one byte to as each row finishes: the parent's progress
    #[arg(long, value_name = "FILE")]
    pub rows_done: Option<PathBuf>,
    /// Not the run's first process: skip what a merged result keeps from the first only
    #[arg(long)]
    pub later: bool,
    /// Exact benchmark ids, in the order to measure them
    pub ids: Vec<String>,
}

/// Prints nothing; counts each finished row into the parent's `--rows-done` file, one
/// byte a row, which the parent reads as its size (`harness::invocations`). A failure to
/// write it costs the bar its motion, never the measurement.
struct RowsDone(Option<std::fs::File>);

impl Observer for RowsDone {
    fn bench_finished(&mut self, _result: &crate::model::BenchResult) -> Result<()> {
        if let Some(f) = &mut self.0 {
            use std::io::Write;
            if f.write_all(b".").is_err() {
                self.0 = None;
            }
        }
        Ok(())
    }
}

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
    let rows_done = args.rows_done.as_ref().and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let run = session
        .run(&chosen, &[], None, &mut RowsDone(rows_done))?
        .run;
    std::fs::write(&args.out, serde_json::to_vec(&run)?)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(Exit::Success)
}
