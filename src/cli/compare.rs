//! `timeshare compare A B [C…] [--threshold PCT]`: runs (id, label, `last`, `last-any`) and
//! historical machines (`timeshare reference` lists them) side by side.

use anyhow::Result;
use clap::Args;

use super::db::{usage_if_user, DbArgs};
use super::{output, suggest, Exit, UsageError};
use crate::model::change::DEFAULT_MIN_EFFECT;
use crate::reference::{self, Quantity};
use crate::report;
use crate::report::compare::{compare_table, Column};
use crate::store::{status_name, Store, StoreError, StoredRun, LAST, LAST_ANY};

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Runs (an id, a label, `last` = the newest complete run, `last-any`) and reference
    /// machines; the first is the baseline
    #[arg(required = true, num_args = 2..)]
    pub names: Vec<String>,
    /// The smallest difference of medians, in percent, that is called a change
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_MIN_EFFECT * 100.0)]
    pub threshold: f64,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: CompareArgs) -> Result<Exit> {
    if !(args.threshold >= 0.0 && args.threshold.is_finite()) {
        return Err(UsageError(format!(
            "--threshold {}: give a percentage ≥ 0",
            args.threshold
        ))
        .into());
    }
    // The database is needed only when some name is not a reference machine.
    let needs_store = args.names.iter().any(|n| reference::machine(n).is_none());
    let store = if needs_store {
        Some(args.db.open_existing()?)
    } else {
        None
    };
    let columns = args
        .names
        .iter()
        .map(|n| column(store.as_ref(), n))
        .collect::<Result<Vec<_>>>()?;
    let table =
        compare_table(&columns, args.threshold / 100.0).map_err(|e| UsageError(e.to_string()))?;
    output::print_text(&table)?;
    Ok(Exit::Success)
}

/// A name is a run when it is `last`, `last-any` or a number; else a reference machine;
/// else a label.
pub(super) fn column(store: Option<&Store>, name: &str) -> Result<Column> {
    let is_run_name = name == LAST || name == LAST_ANY || name.parse::<i64>().is_ok();
    if !is_run_name {
        if let Some(machine) = reference::machine(name) {
            let figures: Vec<_> = reference::figures_of(name)
                .into_iter()
                .filter(|f| f.quantity == Quantity::Headline)
                .collect();
            if figures.is_empty() {
                return Err(UsageError(format!(
                    "{name} has no figure to compare with: {}",
                    machine.about
                ))
                .into());
            }
            return Ok(Column::Machine { machine, figures });
        }
    }
    let store = store.expect("a store is opened when a name is not a machine");
    let id = store.resolve(name).map_err(|e| match e {
        StoreError::UnknownLabel(_) => {
            let machines = reference::machines();
            UsageError(format!(
                "no run or reference machine named {name:?} (see `timeshare history` and \
                 `timeshare reference`){}",
                suggest::hint(name, machines.iter().map(|m| m.name))
            ))
            .into()
        }
        e => usage_if_user(e),
    })?;
    let stored = super::db::load_id(store, id)?;
    Ok(run_column(stored))
}

pub(super) fn run_column(stored: StoredRun) -> Column {
    let row = &stored.row;
    let about = format!(
        "{} · {} · {} · {}{}{}",
        row.started_at.format("%Y-%m-%d %H:%M UTC"),
        report::style::escape(&row.host),
        row.mode,
        report::style::escape(&row.selection),
        row.label
            .as_deref()
            .map(|l| format!(" · label {}", report::style::escape(l)))
            .unwrap_or_default(),
        if row.status == crate::model::RunStatus::Complete {
            String::new()
        } else {
            format!(" · {}", status_name(row.status))
        }
    );
    Column::Run {
        name: format!("run {}", row.id),
        about,
        run: Box::new(stored.run),
    }
}
