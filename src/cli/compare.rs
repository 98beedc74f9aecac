//! `timeshare compare A B [C…] [--threshold PCT]`: runs (id, label, `last`, `last-any`) and
//! historical machines (`timeshare reference` lists them) side by side.

use anyhow::Result;
use clap::Args;

use super::db::{usage_if_user, DbArgs};
use super::errors::UsageError;
use super::{output, suggest, Exit};
use crate::model::agreement;
use crate::model::change::DEFAULT_MIN_EFFECT;
use crate::reference::{self, Quantity};
use crate::report;
use crate::report::compare::{compare_table, Column};
use crate::store::{status_name, Store, StoreError, StoredRun, LAST, LAST_ANY};

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Runs (an id, a label, `last` = the newest complete run, `last-any`, a fleet host's
    /// name = its newest complete run, CAMPAIGN/HOST), campaigns (one column per host) and
    /// reference machines; the first is the baseline
    #[arg(required = true, num_args = 1..)]
    pub names: Vec<String>,
    /// The smallest difference of medians, in percent, that is called a change
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_MIN_EFFECT * 100.0)]
    pub threshold: f64,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: CompareArgs) -> Result<Exit> {
    if let [only] = args.names.as_slice() {
        return Err(UsageError(one_name_needs_another(only)).into());
    }
    if !(args.threshold >= 0.0 && args.threshold.is_finite()) {
        return Err(UsageError(format!(
            "--threshold {}: give a percentage ≥ 0",
            args.threshold
        ))
        .into());
    }
    if args
        .names
        .iter()
        .any(|n| crate::store::is_observation_name(n))
    {
        let [a, b] = args.names.as_slice() else {
            return Err(UsageError(
                "observations are compared two at a time: compare oA oB".into(),
            )
            .into());
        };
        return super::observe::compare(&args.db.open_existing()?, a, b);
    }
    // The database is needed only when some name is not a reference machine.
    let needs_store = args.names.iter().any(|n| reference::machine(n).is_none());
    let store = if needs_store {
        Some(args.db.open_existing()?)
    } else {
        None
    };
    let mut columns = Vec::new();
    for n in &args.names {
        columns.extend(self::columns(store.as_ref(), n)?);
    }
    let table =
        compare_table(&columns, args.threshold / 100.0).map_err(|e| UsageError(e.to_string()))?;
    output::print_text(&table)?;
    if let [Column::Run { run: a, .. }, Column::Run { run: b, .. }] = columns.as_slice() {
        output::print_text(&detection_line(a, b, args.threshold / 100.0))?;
    }
    Ok(Exit::Success)
}

/// The slow-downs injected into each id in turn, to say how large a change this pair of
/// runs can tell (see `model::agreement::detection`).
const INJECTED: [f64; 3] = [1.05, 1.10, 1.20];

/// "this comparison can tell changes of about 10% here: …", from slow-downs injected into
/// the second run one id at a time and the whole comparison decided again each time.
fn detection_line(a: &crate::model::Run, b: &crate::model::Run, min_effect: f64) -> String {
    let found = agreement::detection(&a.results, &b.results, &INJECTED, min_effect);
    let tried = found.first().map_or(0, |d| d.tried);
    if tried == 0 {
        return "no id of both runs could be tested for what this comparison can tell\n".into();
    }
    let shares: Vec<String> = found
        .iter()
        .map(|d| format!("{:.0}%: {}", (d.factor - 1.0) * 100.0, d.found))
        .collect();
    let tell = agreement::detectable(&found).map_or_else(
        || format!("more than {:.0}%", (INJECTED[2] - 1.0) * 100.0),
        |f| format!("about {:.0}%", (f - 1.0) * 100.0),
    );
    format!(
        "this comparison can tell changes of {tell} here: a slow-down injected into each of \
         the {tried} unchanged ids in turn was found for {} of them\n",
        shares.join(", ")
    )
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
    let id = store.resolve(name).or_else(|e| match e {
        StoreError::UnknownLabel(_) => fleet_host_run(store, name)?.ok_or(e),
        e => Err(e),
    });
    let id = id.map_err(|e| match e {
        StoreError::UnknownLabel(_) => {
            let machines = reference::machines();
            let runs = super::db::run_names(store);
            let names = machines
                .iter()
                .map(|m| m.name)
                .chain(runs.iter().map(String::as_str));
            UsageError(format!(
                "no run or reference machine named {name:?} (see `timeshare history` and \
                 `timeshare reference`){}",
                suggest::hint(name, names)
            ))
            .into()
        }
        e => usage_if_user(e),
    })?;
    let stored = super::db::load_id(store, id)?;
    Ok(run_column(stored))
}

/// The columns a name gives: one per host for a campaign, else the one of [`column()`].
pub(super) fn columns(store: Option<&Store>, name: &str) -> Result<Vec<Column>> {
    match store.map(|s| campaign_columns(s, name)).transpose()? {
        Some(Some(hosts)) => Ok(hosts),
        _ => Ok(vec![column(store, name)?]),
    }
}

/// One column per host of campaign `name`, when there is such a campaign and `name` is
/// no label (a label wins: it was there first).
fn campaign_columns(store: &Store, name: &str) -> Result<Option<Vec<Column>>> {
    if store.has_run(name) || reference::machine(name).is_some() {
        return Ok(None);
    }
    let known = store
        .headers()?
        .iter()
        .any(|(_, r)| r.options.fleet.campaign.as_deref() == Some(name));
    if !known {
        return Ok(None);
    }
    let (_, hosts) = super::fleet::campaign_runs(store, Some(name))?;
    Ok(Some(
        hosts
            .into_iter()
            .map(|(h, stored)| {
                let mut c = run_column(stored);
                if let Column::Run { name: n, .. } = &mut c {
                    *n = format!("{} ({n})", h.name);
                }
                c
            })
            .collect(),
    ))
}

/// The newest complete run of the fleet host `name` (`--host-name`, else its hostname),
/// or of `CAMPAIGN/HOST`.
fn fleet_host_run(store: &Store, name: &str) -> Result<Option<i64>, StoreError> {
    let (campaign, host) = match name.split_once('/') {
        Some((c, h)) => (Some(c), h),
        None => (None, name),
    };
    Ok(store
        .headers()?
        .iter()
        .rev()
        .find(|(row, run)| {
            row.status == crate::model::RunStatus::Complete
                && super::fleet::host_name(run) == host
                && campaign.is_none_or(|c| run.options.fleet.campaign.as_deref() == Some(c))
        })
        .map(|(row, _)| row.id))
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

/// What `compare` with one name says, on one line: it needs a second, and two to try.
fn one_name_needs_another(only: &str) -> String {
    let other = if only == LAST { "1" } else { LAST };
    format!("compare needs a second name: e.g. `compare {only} {other}` or `compare {only} vax750-4.3bsd`")
}
