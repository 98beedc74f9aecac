//! `timeshare history [--db PATH]`: the stored runs, newest first.

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::{output, Exit};
use crate::report::style::escape;
use crate::report::table::{new_table, right};
use crate::store::{status_name, RunRow};

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: HistoryArgs) -> Result<Exit> {
    // No default database yet is a fresh start; a database the user named and that is
    // not there is a wrong path (exit 2), as for every command that reads one.
    if let crate::store::Location::File(path) = args.db.location()? {
        if !path.exists() && !args.db.is_chosen() {
            output::print_text(&format!(
                "no runs stored yet (no database at {})\n",
                path.display()
            ))?;
            return Ok(Exit::Success);
        }
    }
    let store = args.db.open_existing()?;
    let rows = store.runs()?;
    let marks = marks_of(&store, &rows);
    let mut text = history_table(&rows, &marks);
    let observations = store.observations()?;
    if !observations.is_empty() {
        text.push_str(&observation_table(&observations));
    }
    output::print_text(&text)?;
    Ok(Exit::Success)
}

/// Why each run that is not an ordinary one is not (measured beside an observer, a
/// configuration run), by id: read from each run's stored options.
fn marks_of(
    store: &crate::store::Store,
    rows: &[RunRow],
) -> std::collections::HashMap<i64, &'static str> {
    rows.iter()
        .filter_map(|r| {
            let stored = store.load(r.id).ok()?;
            Some((r.id, stored.run.options.not_ordinary()?))
        })
        .collect()
}

fn history_table(rows: &[RunRow], marks: &std::collections::HashMap<i64, &'static str>) -> String {
    if rows.is_empty() {
        return "no runs stored yet\n".to_string();
    }
    let mut t = new_table(&[
        "id",
        "time (UTC)",
        "host",
        "selection",
        "mode",
        "results",
        "status",
        "label",
    ]);
    for r in rows {
        let mut status = status_name(r.status).to_string();
        if let Some(from) = &r.imported_from {
            status.push_str(&format!(" (imported from {})", escape(from)));
        }
        if let Some(why) = marks.get(&r.id) {
            status.push_str(&format!(" ({why})"));
        }
        t.add_row(vec![
            r.id.to_string(),
            r.started_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            escape(&r.host).into_owned(),
            escape(&r.selection).into_owned(),
            escape(&r.mode).into_owned(),
            r.results.to_string(),
            status,
            escape(r.label.as_deref().unwrap_or_default()).into_owned(),
        ]);
    }
    right(&mut t, &[0, 5]);
    format!("{t}\n")
}

/// The stored observations (`timeshare observe`), newest first, named `oN`.
fn observation_table(rows: &[crate::store::ObservationRow]) -> String {
    let mut t = new_table(&[
        "observation",
        "time (UTC)",
        "host",
        "span",
        "seconds",
        "status",
        "label",
    ]);
    for r in rows {
        let mut status = if r.partial {
            "partial (going, or killed)"
        } else if r.complete {
            "complete"
        } else {
            "interrupted"
        }
        .to_string();
        if let Some(from) = &r.imported_from {
            status.push_str(&format!(" (imported from {})", escape(from)));
        }
        t.add_row(vec![
            r.name(),
            r.started_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            escape(&r.host).into_owned(),
            escape(&r.span).into_owned(),
            format!(
                "{:.0}",
                (r.finished_at - r.started_at).num_milliseconds() as f64 / 1000.0
            ),
            status,
            escape(r.label.as_deref().unwrap_or_default()).into_owned(),
        ]);
    }
    right(&mut t, &[4]);
    format!("\n{t}\n")
}
