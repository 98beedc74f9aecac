//! `timeshare monitor [--interval S] [--count N] [--json]`: the machine's vmstat/iostat
//! view, one line per interval (seed 001 §2's vmstat and iostat), read from /proc. The
//! first line covers the first interval, not the time since boot.

use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;

use super::errors::UsageError;
use super::{output, Exit};
use crate::harness::interrupt;
use crate::harness::observe::vmstat::{physical_disks, Reading};
use crate::report;

#[derive(Debug, Args)]
pub struct MonitorArgs {
    /// Seconds per line
    #[arg(long, short = 'i', value_name = "SECONDS", default_value_t = 1.0)]
    pub interval: f64,
    /// Lines to print, then stop (default: until Ctrl-C)
    #[arg(long, short = 'c', value_name = "N")]
    pub count: Option<u64>,
    /// One JSON object per line, for scripts (rates per second, bytes, shares 0..1)
    #[arg(long)]
    pub json: bool,
}

pub fn execute(args: MonitorArgs) -> Result<Exit> {
    if !(args.interval.is_finite() && (0.01..=3600.0).contains(&args.interval)) {
        return Err(UsageError(format!(
            "--interval {}: give seconds from 0.01 to 3600",
            args.interval
        ))
        .into());
    }
    if args.count == Some(0) {
        return Err(UsageError("--count 0: give at least one line".into()).into());
    }
    interrupt::install()?;
    let disks = physical_disks();
    let groups =
        report::observe::disk_groups(&disks, usize::from(crate::report::style::current().width));
    let interval = Duration::from_secs_f64(args.interval);
    let start = Reading::take(&disks)?;
    let mut last = start.clone();
    let mut next = start.at + interval;
    if !args.json {
        output::print_text(&format!("{}\n", report::observe::vmstat_header(&groups)))?;
    }
    let mut printed = 0;
    // Until the count, or until no one reads what is printed (`| head` closed the pipe).
    while args.count.is_none_or(|n| printed < n) && !output::reader_gone() {
        // Sleep in short steps, so Ctrl-C ends it at once.
        while Instant::now() < next {
            if interrupt::requested() {
                return Ok(Exit::Success);
            }
            std::thread::sleep(
                next.saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(50)),
            );
        }
        let now = Reading::take(&disks)?;
        let line = now.line_since(&last, now.at.duration_since(start.at).as_secs_f64());
        let text = if args.json {
            serde_json::to_string(&line)?
        } else {
            report::observe::vmstat_row(&line, &groups)
        };
        output::print_text(&format!("{text}\n"))?;
        printed += 1;
        last = now;
        next += interval;
    }
    Ok(Exit::Success)
}
