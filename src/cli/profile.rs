//! `timeshare profile RUN ID`: the flat profile `run --profile` stored for one row.

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::errors::UsageError;
use super::{output, Exit};
use crate::report;

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// A run id, a label, or `last`
    pub run: String,
    /// The benchmark id whose profile to print
    pub id: String,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: ProfileArgs) -> Result<Exit> {
    let store = args.db.open_existing()?;
    let stored = super::db::load_run(&store, &args.run)?;
    let Some(r) = stored.run.results.iter().find(|r| r.id == args.id) else {
        return Err(UsageError(format!("run {} has no row {}", args.run, args.id)).into());
    };
    match report::observe::profile_text(r) {
        Some(text) => output::print_text(&text)?,
        None => {
            return Err(UsageError(format!(
                "row {} of run {} was not profiled (run it with --profile)",
                args.id, args.run
            ))
            .into())
        }
    }
    Ok(Exit::Success)
}
