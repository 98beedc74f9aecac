//! `timeshare sysinfo [--json]`

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::harness::{quiet, sysinfo};
use crate::report;

#[derive(Debug, Args)]
pub struct SysinfoArgs {
    /// Print the record as JSON instead of a table
    #[arg(long)]
    pub json: bool,
    /// The directory whose file system and device to describe (default: the temporary directory)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn execute(args: SysinfoArgs) -> Result<u8> {
    let dir = args.dir.unwrap_or_else(std::env::temp_dir);
    let env = sysinfo::detect(&dir);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&env)?);
    } else {
        print!(
            "{}",
            report::table::sysinfo_table(&env, &quiet::warnings(&env))
        );
    }
    Ok(0)
}
