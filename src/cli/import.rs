//! `timeshare import FILE.json`: store a run written by `run --json` or `export` (on this
//! machine or another). The whole file is checked before anything is written, and the run
//! is stored in one transaction. A record older than this schema is brought up to it
//! first (its results get the bases their ids declare). Importing a run that is already
//! stored (same start instant, same host) writes nothing and says which run it is.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::{output, Exit, UsageError};
use crate::report;
use crate::store::Imported;

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
    let mut run = report::json::from_json(&bytes)
        .map_err(|e| UsageError(format!("{shown} is not a timeshare result: {e:#}")))?;
    crate::bench::fill_bases(&mut run);
    let mut store = args.db.open()?;
    let message = match store.import_run(&run, &shown)? {
        Imported::New(id) => format!(
            "imported {} results from {shown} as run {id} in {}\n",
            run.results.len(),
            store.path()
        ),
        Imported::AlreadyStored(id) => format!(
            "not imported: {shown} is run {id} already (started {} on {}); nothing written to {}\n",
            run.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
            run.environment.hostname,
            store.path()
        ),
    };
    output::print_text(&message)?;
    Ok(Exit::Success)
}
