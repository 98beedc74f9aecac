//! `timeshare table [KEY] [--run RUN]`: a stored run (default `last`) in the layout of a
//! seed's table, with the historical machines' columns beside it. Without KEY, the list.

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::{output, suggest, Exit, UsageError};
use crate::report::seed_table::{self, TABLES};
use crate::report::table::new_table;

#[derive(Debug, Args)]
pub struct TableArgs {
    /// A seed table, e.g. 001-2 (Berkeley's Table 2) or 002-4 (Bell Labs' Figure 4)
    pub key: Option<String>,
    /// The run to show: an id, a label, `last` (the newest complete run) or `last-any`
    #[arg(long, default_value = "last")]
    pub run: String,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: TableArgs) -> Result<Exit> {
    let Some(key) = args.key else {
        output::print_text(&list())?;
        return Ok(Exit::Success);
    };
    let table = seed_table::find(&key).ok_or_else(|| {
        let keys: Vec<_> = TABLES.iter().map(|t| t.key).collect();
        UsageError(format!(
            "no seed table {key:?} (known: {}){}",
            keys.join(", "),
            suggest::hint(&key, keys.iter().copied())
        ))
    })?;
    let store = args.db.open_existing()?;
    let stored = super::show::load(&store, &args.run)?;
    let name = format!("run {}", stored.row.id);
    output::print_text(&seed_table::render(table, &stored.run, &name))?;
    Ok(Exit::Success)
}

fn list() -> String {
    let mut t = new_table(&["table", "seed", "what"]);
    for s in TABLES {
        t.add_row(vec![
            s.key.to_string(),
            format!("{} {}", s.seed, s.prefix.trim_end_matches([',', ' '])),
            s.title.to_string(),
        ]);
    }
    format!("{t}\n")
}
