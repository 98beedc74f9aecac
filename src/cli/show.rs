//! `timeshare show RUN`: a stored run as the table `timeshare run` printed.
//! RUN is a run id, a label (`run --label`), or `last`.

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use crate::report;
use crate::store::{overhead_from_calibration, status_name, Store, StoredRun};

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A run id, a label, or `last`
    pub run: String,
    /// Also show elapsed, user and system time per operation and the kernel's counters
    #[arg(long, short = 'w')]
    pub wide: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

pub fn execute(args: ShowArgs) -> Result<u8> {
    let store = args.db.open_existing()?;
    let stored = load(&store, &args.run)?;
    let mut overhead = stored.overhead;
    if !overhead.clock_s.is_finite() {
        if let Some(o) = overhead_from_calibration(&stored.run) {
            overhead = o;
        }
    }
    println!(
        "run {} · {} · {}{}",
        stored.row.id,
        stored.row.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
        status_name(stored.row.status),
        stored
            .row
            .label
            .as_deref()
            .map(|l| format!(" · label {l}"))
            .unwrap_or_default()
    );
    print!(
        "{}",
        report::extra::full_report(&stored.run, &overhead, args.wide)
    );
    Ok(0)
}

/// The run the user named, in full.
pub fn load(store: &Store, name: &str) -> Result<StoredRun> {
    super::db::load_run(store, name)
}
