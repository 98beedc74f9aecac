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
    /// How to print the comparison: a table, or JSON, CSV or Markdown (every id: both
    /// figures and their intervals, the ratio and its range, the verdict with its test)
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
    /// Exit with status 1 when any row is judged slower than the baseline (for CI; the
    /// comparison is printed all the same)
    #[arg(long, value_enum, value_name = "VERDICT")]
    pub fail_on: Option<FailOn>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    Text,
    Json,
    Csv,
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// A row judged slower than the baseline
    Slower,
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
        return Ok(crate::usecase::observe::compare(&args.db.open_existing()?, a, b)?.into());
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
    let judged = print_as(&columns, args.format, args.threshold)?;
    let slower = judged
        .iter()
        .flat_map(|(_, rows)| rows)
        .any(|j| j.verdict.starts_with("slower"));
    Ok(match args.fail_on {
        Some(FailOn::Slower) if slower => Exit::Failed,
        _ => Exit::Success,
    })
}

/// Prints the comparison of `columns` (the first is the baseline) in `format`, and
/// returns its verdicts: for `compare` and `ab`.
pub(super) fn print_as(
    columns: &[Column],
    format: CompareFormat,
    threshold_pct: f64,
) -> Result<Vec<(String, Vec<report::compare::Judgement>)>> {
    let min_effect = threshold_pct / 100.0;
    let judged =
        report::compare::judgements(columns, min_effect).map_err(|e| UsageError(e.to_string()))?;
    match format {
        CompareFormat::Text => {
            let table =
                compare_table(columns, min_effect).map_err(|e| UsageError(e.to_string()))?;
            output::print_text(&table)?;
            if let Some(found) = detection_of(columns, min_effect) {
                output::print_text(&detection_line(&found))?;
            }
        }
        CompareFormat::Json => {
            let mut json = as_json(columns, &judged, threshold_pct);
            if let Some(found) = detection_of(columns, min_effect) {
                json["detection"] = detection_json(&found);
            }
            let mut text = serde_json::to_string_pretty(&json)?;
            text.push('\n');
            output::print(text)?;
        }
        CompareFormat::Csv => output::print(report::compare_export::to_csv(&judged)?)?,
        CompareFormat::Markdown => output::print(report::compare_export::to_markdown(&judged))?,
    }
    Ok(judged)
}

/// The comparison as JSON: the baseline's name, and per later column every id with both
/// figures, their intervals, the ratio (later ÷ baseline, per one operation) and its
/// range, and the verdict with the test that decided it.
fn as_json(
    columns: &[Column],
    judged: &[(String, Vec<report::compare::Judgement>)],
    threshold_pct: f64,
) -> serde_json::Value {
    use serde_json::json;
    let figure = |f: &Option<report::compare::SideFigure>, shown: &str| match f {
        Some(f) => json!({
            "value": f.value,
            "unit": f.unit,
            "ci_low": f.interval.map(|i| i.0),
            "ci_high": f.interval.map(|i| i.1),
            "shown": shown,
        }),
        None => json!({ "value": null, "shown": shown }),
    };
    let compared: Vec<serde_json::Value> = judged
        .iter()
        .map(|(name, rows)| {
            let rows: Vec<serde_json::Value> = rows
                .iter()
                .map(|j| {
                    json!({
                        "id": j.id,
                        "baseline": figure(&j.first_figure, &j.first),
                        "other": figure(&j.other_figure, &j.other),
                        "ratio": j.ratio,
                        "ratio_low": j.ratio_range.map(|r| r.0),
                        "ratio_high": j.ratio_range.map(|r| r.1),
                        "verdict": report::compare_export::verdict_word(&j.verdict),
                        "verdict_text": j.verdict,
                    })
                })
                .collect();
            json!({ "name": name, "rows": rows })
        })
        .collect();
    json!({
        "baseline": columns.first().map(Column::name),
        "threshold_pct": threshold_pct,
        "columns": compared,
    })
}

/// The slow-downs injected into each id in turn, to say how large a change this pair of
/// runs can tell (see `model::agreement::detection`).
const INJECTED: [f64; 3] = [1.05, 1.10, 1.20];

/// For two runs side by side: how a slow-down injected into each unchanged id in turn
/// fared (`model::agreement::detection`); `None` for anything else.
fn detection_of(columns: &[Column], min_effect: f64) -> Option<Vec<agreement::Detection>> {
    match columns {
        [Column::Run { run: a, .. }, Column::Run { run: b, .. }] => Some(agreement::detection(
            agreement::Side::of(a),
            agreement::Side::of(b),
            &INJECTED,
            min_effect,
        )),
        _ => None,
    }
}

/// "this comparison can tell changes of about 10% here: …".
fn detection_line(found: &[agreement::Detection]) -> String {
    let tried = found.first().map_or(0, |d| d.tried);
    if tried == 0 {
        return "no id of both runs could be tested for what this comparison can tell\n".into();
    }
    let shares: Vec<String> = found
        .iter()
        .map(|d| format!("{:.0}%: {}", (d.factor - 1.0) * 100.0, d.found))
        .collect();
    let tell = agreement::detectable(found).map_or_else(
        || format!("more than {:.0}%", (INJECTED[2] - 1.0) * 100.0),
        |f| format!("about {:.0}%", (f - 1.0) * 100.0),
    );
    format!(
        "this comparison can tell changes of {tell} here: a slow-down injected into each of \
         the {tried} unchanged ids in turn was found for {} of them\n",
        shares.join(", ")
    )
}

/// The injected slow-downs and how many ids each was found in, for `--format json`.
fn detection_json(found: &[agreement::Detection]) -> serde_json::Value {
    serde_json::json!({
        "detectable_pct": agreement::detectable(found).map(|f| (f - 1.0) * 100.0),
        "injected": found
            .iter()
            .map(|d| serde_json::json!({
                "slowdown_pct": (d.factor - 1.0) * 100.0,
                "found": d.found,
                "tried": d.tried,
            }))
            .collect::<Vec<_>>(),
    })
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
    if name == LAST {
        if let Some(id) = newest_ordinary(store)? {
            return Ok(run_column(super::db::load_id(store, id)?));
        }
    }
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

/// `last` in a comparison: the newest complete run that is ordinary — not measured beside
/// `--observe-system`, not a `--configs` run — as a table takes it; the newer runs passed
/// over are said on standard error. `None` when no complete run is ordinary (then `last`
/// is the newest complete run, its column marked with what it was).
fn newest_ordinary(store: &Store) -> Result<Option<i64>> {
    let mut passed_over = Vec::new();
    for row in store.runs()? {
        if row.status != crate::model::RunStatus::Complete {
            continue;
        }
        let stored = super::db::load_id(store, row.id)?;
        match stored.run.options.not_ordinary() {
            Some(why) => passed_over.push(format!("run {} ({why})", row.id)),
            None => {
                if !passed_over.is_empty() {
                    output::say(&format!(
                        "last: run {}, the newest ordinary run; passed over the newer {}",
                        row.id,
                        passed_over.join(", ")
                    ));
                }
                return Ok(Some(row.id));
            }
        }
    }
    Ok(None)
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
    let about = match stored.run.options.not_ordinary() {
        Some(why) => format!("{about} · {why}"),
        None => about,
    };
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
