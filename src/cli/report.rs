//! `timeshare report [RUN|MACHINE|FILE…] [-o FILE] [--force]` and `report --trend ID`: one
//! self-contained HTML file (inline CSS and SVG, no script, nothing fetched) for a stored
//! run, several side by side with the first as baseline, a JSON file (`run --json`,
//! `exercise --json`), or one id's history across the stored runs.
//!
//! The file is named after what it shows (`timeshare-run-12.html`) unless `-o` names it,
//! and an existing file is never overwritten without `--force`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

use super::db::DbArgs;
use super::errors::UsageError;
use super::outfile::OutputFile;
use super::Exit;
use crate::harness::outpolicy::Rules;
use crate::model::change::DEFAULT_MIN_EFFECT;
use crate::model::exercise::Report;
use crate::model::Run;
use crate::report::compare::Column;
use crate::report::html;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Runs (an id, a label, `last`, `last-any`), JSON files of a run or of `exercise
    /// --json`, and reference machines; the first is the baseline [default: last]
    #[arg(conflicts_with = "trend")]
    pub names: Vec<String>,
    /// The history of one id across every stored run, with its confidence intervals
    #[arg(long, value_name = "ID")]
    pub trend: Option<String>,
    /// Write to FILE ('-' for standard output) [default: timeshare-run-N.html]
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite FILE if it exists
    #[arg(long)]
    pub force: bool,
    /// Leave out the papers' machines a report of runs alone sets beside them (the three
    /// with the most figures of the runs' rows)
    #[arg(long)]
    pub no_machines: bool,
    /// The smallest difference of medians, in percent, that is called a change
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_MIN_EFFECT * 100.0)]
    pub threshold: f64,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: ReportArgs) -> Result<Exit> {
    if !(args.threshold >= 0.0 && args.threshold.is_finite()) {
        return Err(UsageError(format!(
            "--threshold {}: give a percentage ≥ 0",
            args.threshold
        ))
        .into());
    }
    if let [name] = args.names.as_slice() {
        if crate::store::is_observation_name(name) {
            let store = args.db.open_existing()?;
            let (id, o) = crate::usecase::observe::load(&store, name)?;
            let prediction = crate::usecase::observe::prediction_for(&store, &o);
            let page = html::observation::report(&format!("o{id}"), &o, prediction.as_ref());
            let path = args
                .output
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("timeshare-observation-o{id}.html")));
            let rules = Rules {
                force: args.force,
                replace_needs_force: true,
                ..args.db.output_rules()
            };
            write(&path, &rules, page.as_bytes())?;
            return Ok(Exit::Success);
        }
    }
    let (default_name, page) = match &args.trend {
        Some(id) => (format!("trend-{id}"), trend(&args.db, id)?),
        None => {
            let names = if args.names.is_empty() {
                vec![crate::store::LAST.to_string()]
            } else {
                args.names.clone()
            };
            let mut columns = columns(&args.db, &names)?;
            let stem: Vec<String> = columns.iter().map(|c| c.name().replace(' ', "-")).collect();
            if !args.no_machines {
                columns.extend(papers_machines(&columns));
            }
            (
                stem.join("-"),
                html::report(&columns, args.threshold / 100.0),
            )
        }
    };
    let default_file = || {
        let safe: String = default_name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        PathBuf::from(format!("timeshare-{safe}.html"))
    };
    // `-o DIR`: the file of its default name in that directory.
    let path = match args.output.clone() {
        Some(dir) if dir.is_dir() => dir.join(default_file()),
        Some(file) => file,
        None => default_file(),
    };
    let rules = Rules {
        force: args.force,
        replace_needs_force: true,
        ..args.db.output_rules()
    };
    write(&path, &rules, page.as_bytes())?;
    Ok(Exit::Success)
}

/// Write `bytes` to `path` as `rules` allow (an existing file only with `--force`); says
/// where and how big on standard error.
pub fn write(path: &Path, rules: &Rules, bytes: &[u8]) -> Result<()> {
    let out = OutputFile::open(path, "--output", rules)?;
    let stdout = out.is_stdout();
    out.write(bytes)?;
    if !stdout {
        eprintln!(
            "report written to {} ({} KiB)",
            path.display(),
            bytes.len().div_ceil(1024)
        );
    }
    Ok(())
}

/// How many of the papers' machines a report of runs alone sets beside them.
const DEFAULT_MACHINES: usize = 3;

/// For columns that are all runs: the papers' machines with the most headline figures of
/// the runs' rows (ties in the catalogue's order), so that a report shows today beside
/// the past without being asked. None when a machine is named already.
fn papers_machines(columns: &[Column]) -> Vec<Column> {
    use crate::reference::{self, Quantity};
    let ids: Vec<&str> = columns
        .iter()
        .filter_map(|c| match c {
            Column::Run { run, .. } => Some(run.results.iter().map(|r| r.id.as_str())),
            Column::Machine { .. } => None,
        })
        .flatten()
        .collect();
    if columns.iter().any(|c| matches!(c, Column::Machine { .. })) || ids.is_empty() {
        return Vec::new();
    }
    let mut ranked: Vec<(usize, usize, Column)> = reference::machines()
        .into_iter()
        .enumerate()
        .filter_map(|(order, machine)| {
            let figures: Vec<_> = reference::figures_of(machine.name)
                .into_iter()
                .filter(|f| f.quantity == Quantity::Headline && ids.contains(&f.id.as_str()))
                .collect();
            let count = figures.len();
            (count > 0).then_some((count, order, Column::Machine { machine, figures }))
        })
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked
        .into_iter()
        .take(DEFAULT_MACHINES)
        .map(|(_, _, c)| c)
        .collect()
}

/// The columns named: a JSON file when the name is one, else a run or a machine.
fn columns(db: &DbArgs, names: &[String]) -> Result<Vec<Column>> {
    let is_file = |n: &str| n.ends_with(".json") && Path::new(n).is_file();
    let store = if names
        .iter()
        .all(|n| is_file(n) || crate::reference::machine(n).is_some())
    {
        None
    } else {
        Some(db.open_existing()?)
    };
    let mut columns = Vec::new();
    for n in names {
        if is_file(n) {
            columns.push(file_column(Path::new(n))?);
        } else {
            // A campaign's name is a column per host.
            columns.extend(super::compare::columns(store.as_ref(), n)?);
        }
    }
    Ok(columns)
}

/// A run from a JSON file: a run (`run --json`, `export`) or an exerciser's record
/// (`exercise --json`), which becomes a run as `exercise` stores it.
fn file_column(path: &Path) -> Result<Column> {
    let bad = |why: String| UsageError(format!("{}: {why}", path.display()));
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let mut run: Run = if value["schema"] == "timeshare.exercise/1" {
        let report: Report = serde_json::from_value(value)
            .map_err(|e| bad(format!("not an exerciser record: {e}")))?;
        crate::store::exercise_record::as_run(&report)
    } else {
        // The checks `import` makes, so that a report shows nothing import would refuse.
        crate::report::json::from_json(text.as_bytes())
            .map_err(|e| bad(format!("not a timeshare result: {e:#}")))?
    };
    crate::bench::fill_bases(&mut run);
    let name = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    Ok(Column::Run {
        about: format!(
            "{} · {} · from {}",
            run.started_at.format("%Y-%m-%d %H:%M UTC"),
            run.environment.hostname,
            path.display()
        ),
        name,
        run: Box::new(run),
    })
}

/// `--trend ID`: every stored run that has `id`, oldest first.
fn trend(db: &DbArgs, id: &str) -> Result<String> {
    let store = db.open_existing()?;
    let mut rows = store.runs()?;
    rows.reverse();
    let mut points = Vec::new();
    for row in rows {
        let stored = super::db::load_id(&store, row.id)?;
        if let Some(r) = stored.run.results.into_iter().find(|r| r.id == id) {
            points.push(html::TrendPoint {
                name: format!("run {}", row.id),
                label: row.label,
                started_at: row.started_at,
                result: r,
            });
        }
    }
    if points.is_empty() {
        return Err(UsageError(format!(
            "no stored run has {id} (see `timeshare history` and `timeshare list`)"
        ))
        .into());
    }
    Ok(html::trend(id, &points))
}
