//! `timeshare internal-load-user --job FILE --report FILE` (hidden): the shell of one
//! user of a `load.script.N` row. Runs the user's commands one after another as the
//! driver wrote them in `--job`, and writes what each took to `--report`; prints
//! nothing. Not for people: its arguments are the driver's.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::Exit;
use crate::bench::load::script;

#[derive(Debug, Args)]
pub struct LoadUserArgs {
    /// The user's job, as JSON
    #[arg(long, value_name = "FILE")]
    pub job: PathBuf,
    /// Where to write the report, as JSON
    #[arg(long, value_name = "FILE")]
    pub report: PathBuf,
}

pub fn execute(args: LoadUserArgs) -> Result<Exit> {
    script::user_shell(&args.job, &args.report)?;
    Ok(Exit::Success)
}
