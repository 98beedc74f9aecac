//! `timeshare import FILE.json`: store a run written by `run --json` or `export` (on this
//! machine or another). The whole file is checked before anything is written, and the run
//! is stored in one transaction.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::{output, Exit, UsageError};
use crate::report;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A run's JSON file ('-' for standard input)
    pub file: PathBuf,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: ImportArgs) -> Result<Exit> {
    let shown = args.file.display().to_string();
    let bytes = if shown == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)?;
        buf
    } else {
        std::fs::read(&args.file).map_err(|e| UsageError(format!("cannot read {shown}: {e}")))?
    };
    let run = report::json::from_json(&bytes)
        .map_err(|e| UsageError(format!("{shown} is not a timeshare result: {e:#}")))?;
    let mut store = args.db.open()?;
    let id = store.import_run(&run, &shown)?;
    output::print_text(&format!(
        "imported {} results from {shown} as run {id} in {}\n",
        run.results.len(),
        store.path()
    ))?;
    Ok(Exit::Success)
}
