//! `timeshare sysinfo [--json] [--dir DIR]`: the environment record a run would store,
//! with `--dir` meaning what it means for `run`: where the scratch files would go.

use anyhow::Result;
use clap::Args;

use super::{output, Exit};
use crate::harness::{quiet, sysinfo};
use crate::report;

#[derive(Debug, Args)]
pub struct SysinfoArgs {
    /// Print the record as JSON instead of a table
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dir: super::dir::DirArgs,
}

pub fn execute(args: SysinfoArgs) -> Result<Exit> {
    let env = sysinfo::detect(&args.dir.checked()?);
    if args.json {
        output::print(format!("{}\n", serde_json::to_string_pretty(&env)?))?;
    } else {
        output::print_text(&report::environment::sysinfo_table(
            &env,
            &quiet::warnings(&env),
        ))?;
    }
    Ok(Exit::Success)
}
