//! `timeshare show RUN`: a stored run as `timeshare run` printed it — its tables, then the
//! warnings it recorded about the machine, then its summary line. RUN is a run id, a label
//! (`run --label`), or `last`.

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::{output, Exit};
use crate::report;
use crate::store::{overhead_from_calibration, status_name, Store, StoredRun};

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A run id, a label, or `last`; or an observation (`o3`, `o-last`)
    pub run: String,
    /// Also show elapsed, user and system time per operation and the kernel's counters
    #[arg(long, short = 'w')]
    pub wide: bool,
    /// Draw a small text chart under the memory-hierarchy, paging, load and sweep tables
    #[arg(long)]
    pub chart: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: ShowArgs) -> Result<Exit> {
    let store = args.db.open_existing()?;
    if crate::store::is_observation_name(&args.run) {
        return Ok(crate::usecase::observe::show(&store, &args.run)?.into());
    }
    let mut stored = load(&store, &args.run)?;
    // Every string of the run escaped once, for every printer below (see `escaped`).
    stored.run = report::style::escaped(&stored.run);
    let mut overhead = stored.overhead;
    if !overhead.clock_s.is_finite() {
        if let Some(o) = overhead_from_calibration(&stored.run) {
            overhead = o;
        }
    }
    let mut text = format!(
        "run {} · {} · {}{}\n",
        stored.row.id,
        stored.row.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
        status_name(stored.row.status),
        stored
            .row
            .label
            .as_deref()
            .map(|l| format!(" · label {}", report::style::escape(l)))
            .unwrap_or_default()
    );
    if let Some(line) = report::load::configuration_line(&stored.run) {
        text.push_str(&line);
    }
    if stored.run.options.observed_system {
        text.push_str(
            "measured beside --observe-system: its figures carry the observer's cost, and \
             tables do not take them as today's\n",
        );
    }
    text.push_str(&report::extra::full_report(
        &stored.run,
        &overhead,
        args.wide,
    ));
    if args.chart {
        let charts = report::textchart::charts(&stored.run);
        if !charts.is_empty() {
            text.push('\n');
            text.push_str(&charts);
        }
    }
    for w in &stored.run.warnings {
        text.push_str(&format!("warning: {}\n", report::style::escape(w)));
    }
    text.push_str(&report::table::summary_line(&stored.run));
    output::print_text(&text)?;
    Ok(Exit::Success)
}

/// The run the user named, in full.
pub fn load(store: &Store, name: &str) -> Result<StoredRun> {
    super::db::load_run(store, name)
}
