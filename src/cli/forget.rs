//! `timeshare forget RUN --yes`: delete one stored run and its results. Nothing else
//! removes a run, and a run is evidence, so the command says what it would delete and
//! does it only with `--yes`.

use anyhow::Result;
use clap::Args;

use super::db::{load_run, DbArgs};
use super::errors::UsageError;
use super::{output, Exit};
use crate::report::style::escape;

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// The run: an id, a label, `last` or `last-any`
    pub run: String,
    /// Delete it (without this, only say what would be deleted)
    #[arg(long)]
    pub yes: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: ForgetArgs) -> Result<Exit> {
    if let crate::store::Location::File(path) = args.db.location()? {
        if !path.exists() {
            return Err(UsageError(format!("no results database at {}", path.display())).into());
        }
    }
    let store = args.db.open()?;
    let stored = load_run(&store, &args.run)?;
    let row = &stored.row;
    let what = format!(
        "run {} of {} ({}, {} results{})",
        row.id,
        row.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
        escape(&row.host),
        row.results,
        row.label
            .as_deref()
            .map(|l| format!(", label {}", escape(l)))
            .unwrap_or_default()
    );
    if !args.yes {
        return Err(UsageError(format!(
            "this would delete {what} from {}; give --yes to delete it",
            store.path()
        ))
        .into());
    }
    store.forget(row.id)?;
    output::print_text(&format!("deleted {what}\n"))?;
    Ok(Exit::Success)
}
