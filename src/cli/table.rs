//! `timeshare table [KEY] [--run RUN]`: stored figures in the layout of a seed's table,
//! with the historical machines' columns beside them: each row from the newest complete
//! run that measured it (a column says which), or all from `--run RUN`. Without KEY, the
//! list of every table and figure of the five papers.

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::errors::UsageError;
use super::{output, suggest, Exit};
use crate::model::{RunStatus, Status};
use crate::report::observation_tables::{self, ObservationTable, OBSERVATION_TABLES};
use crate::report::seed_table::{self, TABLES};

#[derive(Debug, Args)]
pub struct TableArgs {
    /// A seed table, e.g. 001-2 (Berkeley's Table 2) or 002-4 (Bell Labs' Figure 4)
    pub key: Option<String>,
    /// Take every row from this run: an id, a label, `last` (the newest complete run) or
    /// `last-any` (default: each row from the newest complete run that measured it)
    #[arg(long)]
    pub run: Option<String>,
    /// Every column of the paper: also the user and system times of the tables that
    /// have them (by default only the elapsed time, the paper's headline, so that the
    /// table fits 100 columns)
    #[arg(long)]
    pub wide: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: TableArgs) -> Result<Exit> {
    let Some(key) = args.key else {
        output::print_text(&seed_table::tables_list())?;
        return Ok(Exit::Success);
    };
    if let Some(t) = crate::report::observation_tables::find(&key) {
        return observation_table(&args.db, t);
    }
    let table = seed_table::find(&key).ok_or_else(|| {
        let keys: Vec<_> = TABLES
            .iter()
            .map(|t| t.key)
            .chain(OBSERVATION_TABLES.iter().map(|t| t.key))
            .collect();
        UsageError(format!(
            "no seed table {key:?} (known: {}){}",
            keys.join(", "),
            suggest::hint(&key, keys.iter().copied())
        ))
    })?;
    let store = args.db.open_existing()?;
    if let Some(run) = &args.run {
        let mut stored = super::show::load(&store, run)?;
        stored.run = crate::report::style::escaped(&stored.run);
        let name = format!("run {}", stored.row.id);
        let mut text = seed_table::render(table, &stored.run, &name, args.wide);
        if let Some(why) = stored.run.options.not_ordinary() {
            text.push_str(&format!(
                "run {} was {why}: not what the table takes as today by default\n",
                stored.row.id
            ));
        }
        output::print_text(&text)?;
        return Ok(Exit::Success);
    }
    if let Some(prefix) = table.curve {
        return curve(&store, table, prefix);
    }
    if table.key == "000-B" {
        return configurations(&store, table);
    }
    // Newest first, complete runs only, loaded until every row has a measured figure.
    let ids: Vec<String> = table
        .rows(&table.figures())
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    let mut runs = Vec::new();
    let mut passed_over = Vec::new();
    for row in store.runs()? {
        if row.status != RunStatus::Complete {
            if runs.is_empty() {
                passed_over.push((row.id, "not complete"));
            }
            continue;
        }
        let stored = super::db::load_id(&store, row.id)?;
        if let Some(why) = stored.run.options.not_ordinary() {
            if runs.is_empty() {
                passed_over.push((row.id, why));
            }
            continue;
        }
        let has = |id: &String| {
            stored
                .run
                .results
                .iter()
                .any(|r| &r.id == id && r.status == Status::Ok)
        };
        let useful = ids.iter().any(has);
        let done_before = |runs: &[(i64, crate::model::Run)], id: &String| {
            runs.iter().any(|(_, r)| {
                r.results
                    .iter()
                    .any(|x| &x.id == id && x.status == Status::Ok)
            })
        };
        if useful && ids.iter().any(|id| has(id) && !done_before(&runs, id)) {
            runs.push((row.id, crate::report::style::escaped(&stored.run)));
        }
        if ids.iter().all(|id| done_before(&runs, id)) {
            break;
        }
    }
    if runs.is_empty() {
        // Nothing measured any row: the newest complete run, to say "not run" honestly.
        let stored = super::show::load(&store, "last")?;
        runs.push((stored.row.id, crate::report::style::escaped(&stored.run)));
    }
    let sources = sources_of(&runs);
    let mut text = seed_table::render_from(table, &sources, args.wide);
    text.push_str(&passed_over_line(&passed_over));
    if NAMEI_TABLES.contains(&table.key) {
        let newest = newest_observation(&store);
        text.push_str(&observation_tables::namei_line(
            newest.as_ref().map(|(n, o)| (n.as_str(), o)),
        ));
    }
    output::print_text(&text)?;
    Ok(Exit::Success)
}

/// What the table took as today and why it passed over the runs newer than the newest it
/// took: empty when it passed over none.
fn passed_over_line(passed_over: &[(i64, &str)]) -> String {
    if passed_over.is_empty() {
        return String::new();
    }
    let each: Vec<String> = passed_over
        .iter()
        .map(|(id, why)| format!("run {id} ({why})"))
        .collect();
    format!(
        "today's figures are from the newest ordinary runs (complete, not observed, not a \
         configuration run); passed over the newer {}\n",
        each.join(", ")
    )
}

/// Seed 001's namei tables, to which today's share (from an observation) is added.
const NAMEI_TABLES: [&str; 3] = ["001-4", "001-9", "001-10"];

/// A graph's table: its points from the newest complete run that has any (a curve is one
/// run's; points of several runs would make a curve no machine drew).
fn curve(store: &crate::store::Store, table: &seed_table::SeedTable, prefix: &str) -> Result<Exit> {
    for row in store.runs()? {
        if row.status != RunStatus::Complete {
            continue;
        }
        let stored = super::db::load_id(store, row.id)?;
        if !crate::report::seed_curve::points(&stored.run, prefix).is_empty() {
            let source = seed_table::Source {
                name: format!("run {}", row.id),
                run: &stored.run,
            };
            output::print_text(&seed_table::render_from(table, &[source], false))?;
            return Ok(Exit::Success);
        }
    }
    output::print_text(&seed_table::render_from(table, &[], false))?;
    Ok(Exit::Success)
}

/// Attachment B's table: the newest complete run of each configuration a `run --configs`
/// sweep stored (a configuration's figures are never another's).
fn configurations(store: &crate::store::Store, table: &seed_table::SeedTable) -> Result<Exit> {
    let mut runs: Vec<(i64, crate::model::Run)> = Vec::new();
    for row in store.runs()? {
        if row.status != RunStatus::Complete {
            continue;
        }
        let stored = super::db::load_id(store, row.id)?;
        let Some(c) = stored.run.options.load.configuration.clone() else {
            continue;
        };
        let seen = runs
            .iter()
            .any(|(_, r)| r.options.load.configuration.as_deref() == Some(c.as_str()));
        if !seen {
            runs.push((row.id, stored.run));
        }
    }
    let sources = sources_of(&runs);
    output::print_text(&seed_table::render_from(table, &sources, false))?;
    Ok(Exit::Success)
}

/// The stored runs a table is filled from, each named by its id.
fn sources_of(runs: &[(i64, crate::model::Run)]) -> Vec<seed_table::Source<'_>> {
    runs.iter()
        .map(|(id, run)| seed_table::Source {
            name: format!("run {id}"),
            run,
        })
        .collect()
}

/// A table of seed 001's observations, from the newest stored observation.
fn observation_table(db: &DbArgs, t: &ObservationTable) -> Result<Exit> {
    let store = db.open_existing()?;
    let newest = newest_observation(&store);
    let obs = newest.as_ref().map(|(n, o)| (n.as_str(), o));
    output::print_text(&observation_tables::render(t, obs))?;
    Ok(Exit::Success)
}

/// The newest stored observation, named.
fn newest_observation(
    store: &crate::store::Store,
) -> Option<(String, crate::model::observation::SystemObservation)> {
    store
        .load_observation("o-last")
        .ok()
        .map(|(id, o)| (format!("o{id}"), crate::report::style::escaped(&o)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_passed_over_are_named_with_their_reason() {
        assert_eq!(passed_over_line(&[]), "");
        let line =
            passed_over_line(&[(7, "measured beside --observe-system"), (6, "not complete")]);
        assert!(
            line.contains("run 7 (measured beside --observe-system)"),
            "{line}"
        );
        assert!(line.contains("run 6 (not complete)"), "{line}");
    }

    #[test]
    fn an_observed_or_configuration_run_is_not_ordinary() {
        let mut o = crate::model::RunOptions::default();
        assert_eq!(o.not_ordinary(), None);
        o.load.configuration = Some("tmp=disk".into());
        assert_eq!(o.not_ordinary(), Some("a configuration run (--configs)"));
        o.observed_system = true;
        assert_eq!(o.not_ordinary(), Some("measured beside --observe-system"));
        // Stored JSON: the field only when set, and old runs (without it) still load.
        let json = serde_json::to_string(&crate::model::RunOptions::default()).unwrap();
        assert!(!json.contains("observed_system"), "{json}");
        let back: crate::model::RunOptions = serde_json::from_str(&json).unwrap();
        assert!(!back.observed_system);
    }
}
