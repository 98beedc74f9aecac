//! `timeshare import FILE.json`: store a run written by `run --json` or `export` (on this
//! machine or another). The whole file is checked before anything is written, and the run
//! is stored in one transaction. A record older than this schema is brought up to it
//! first (its results get the bases their ids declare). Importing a run that is already
//! stored (same start instant, same host) writes nothing and says which run it is.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::errors::UsageError;
use super::{output, Exit};
use crate::report;
use crate::store::Imported;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A run's JSON file ('-' for standard input)
    pub file: PathBuf,
    #[command(flatten)]
    pub db: DbArgs,
}

/// The file's bytes, at most [`report::json::MAX_INPUT_BYTES`] of them: a run file is
/// a few megabytes, and `/dev/zero` must not take the machine's memory.
fn read_capped(path: &std::path::Path, shown: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let cap = report::json::MAX_INPUT_BYTES;
    let reader: Box<dyn Read> = if path == std::path::Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| UsageError(format!("cannot read {shown}: {e}")))?;
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(UsageError(format!("cannot read {shown}: it is a directory")).into());
        }
        Box::new(file)
    };
    let mut buf = Vec::new();
    reader
        .take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(|e| UsageError(format!("cannot read {shown}: {e}")))?;
    if buf.len() as u64 > cap {
        return Err(UsageError(format!(
            "{shown} is larger than {} MiB: not a run file",
            cap >> 20
        ))
        .into());
    }
    Ok(buf)
}

pub fn execute(args: ImportArgs) -> Result<Exit> {
    let shown = args.file.display().to_string();
    let shown = crate::report::style::escape(&shown).into_owned();
    let bytes = read_capped(&args.file, &shown)?;
    if crate::model::observation::is_observation_json(&bytes) {
        let mut store = args.db.open()?;
        return Ok(crate::usecase::observe::import(&mut store, &bytes, &shown)?.into());
    }
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
