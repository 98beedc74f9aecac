//! `timeshare observe --for 10m | -- COMMAND ARGS`: the whole machine at work (seed 001
//! §2) — rates, call mix, kernel profile, caches, the network's share — stored as an
//! observation beside the runs (`history`, `show oN`, `export oN`, `import`, `report oN`,
//! `compare oA oB`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::errors::UsageError;
use super::outfile::OutputFile;
use super::Exit;
use crate::harness::interrupt;
use crate::harness::observe::span::{Parts, Plan, PlanSpan};
use crate::harness::observe::tally::CallTimes;
use crate::usecase::observe;
#[derive(Debug, Args)]
pub struct ObserveArgs {
    /// Observe for this long: 90 (seconds), 60s, 10m, 2h
    #[arg(long = "for", value_name = "DURATION")]
    pub for_: Option<String>,
    /// Seconds per line of the rates' time series
    #[arg(long, short = 'i', value_name = "SECONDS", default_value_t = 1.0)]
    pub interval: f64,
    /// Do not count the system calls (the tracepoint costs every call a little)
    #[arg(long)]
    pub no_calls: bool,
    /// Count the system calls but do not time them (tracing each call's exit as well
    /// as its entry roughly doubles what counting costs every call)
    #[arg(long)]
    pub no_call_times: bool,
    /// Time one call in N of each number on each CPU (a power of two; 1 times every
    /// call), the others only counted: in the kernel each timed call costs two clock reads
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = power_of_two)]
    pub time_one_in: u32,
    /// Do not trace the page cache's reads (the hit ratio and read-ahead figures)
    #[arg(long)]
    pub no_caches: bool,
    /// Do not record the kernel profile (perf record -a -g)
    #[arg(long)]
    pub no_profile: bool,
    /// Measure what observing costs instead: pinned loops timed with nothing observed
    /// and with each part on, alternating, ROUNDS rounds (3 when left out)
    #[arg(long, value_name = "ROUNDS", num_args = 0..=1, default_missing_value = "3")]
    pub cost: Option<usize>,
    /// A label stored with the observation
    #[arg(long)]
    pub label: Option<String>,
    /// Do not store the observation
    #[arg(long)]
    pub no_save: bool,
    /// Also write the observation as JSON to FILE ('-' for standard output)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Seconds between the stored aggregates while it goes (60; less for tests)
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, hide = true)]
    pub keep_every: f64,
    #[command(flatten)]
    pub db: DbArgs,
    /// The command whose life is the span (after `--`)
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `90`, `60s`, `10m`, `2h` → a duration.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    match crate::model::unit::parse_seconds(text) {
        Some(secs) if secs > 0.0 && secs <= 7.0 * 86400.0 => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!(
            "--for {text}: give a duration from a fraction of a second to 7 days, as 90, 60s, \
             10m or 2h"
        )),
    }
}

fn plan(args: &ObserveArgs) -> Result<Plan> {
    if !(args.interval.is_finite() && (0.05..=3600.0).contains(&args.interval)) {
        return Err(UsageError(format!(
            "--interval {}: give seconds from 0.05 to 3600",
            args.interval
        ))
        .into());
    }
    let span = match (&args.for_, args.command.is_empty()) {
        (Some(_), false) => {
            return Err(UsageError("give --for DURATION or -- COMMAND, not both".into()).into())
        }
        (None, true) => {
            return Err(UsageError(
                "what to observe: --for DURATION (60s, 10m, 2h) or -- COMMAND ARGS".into(),
            )
            .into())
        }
        (Some(d), true) => PlanSpan::For(parse_duration(d).map_err(UsageError)?),
        (None, false) => {
            crate::harness::process::runnable(&args.command[0]).map_err(UsageError)?;
            PlanSpan::Command(args.command.clone())
        }
    };
    Ok(Plan {
        span,
        interval: Duration::from_secs_f64(args.interval),
        parts: Parts {
            calls: !args.no_calls,
            call_times: if args.no_call_times {
                CallTimes::Off
            } else {
                CallTimes::OneIn(args.time_one_in)
            },
            caches: !args.no_caches,
            profile: !args.no_profile,
        },
        label: args.label.clone(),
        keep_every: Duration::from_secs_f64(args.keep_every.clamp(0.05, 3600.0)),
    })
}

/// `--time-one-in`'s N: a power of two up to 1024 (the kernel's program tests it with a
/// mask).
fn power_of_two(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if n.is_power_of_two() && n <= 1024 => Ok(n),
        _ => Err(format!("'{s}' is not a power of two from 1 to 1024")),
    }
}

pub fn execute(args: ObserveArgs) -> Result<Exit> {
    if let Some(rounds) = args.cost {
        return cost(&args, rounds);
    }
    if let Some(label) = &args.label {
        crate::model::names::check("--label", label).map_err(UsageError)?;
    }
    let plan = plan(&args)?;
    let rules = args.db.output_rules();
    let json = args
        .json
        .as_deref()
        .map(|p| OutputFile::open(p, "--json", &rules))
        .transpose()?;
    // The store is opened before anything is observed: a bad --db is bad input.
    let store = if args.no_save {
        None
    } else {
        Some(args.db.open()?)
    };
    interrupt::install()?;
    Ok(observe::run(observe::Request { plan, store, json })?.into())
}

/// `observe --cost ROUNDS`: what observing costs, measured and printed; nothing stored.
fn cost(args: &ObserveArgs, rounds: usize) -> Result<Exit> {
    if args.for_.is_some() || !args.command.is_empty() {
        return Err(
            UsageError("--cost measures on its own: no --for and no COMMAND".into()).into(),
        );
    }
    if !(1..=50).contains(&rounds) {
        return Err(UsageError(format!("--cost {rounds}: give 1 to 50 rounds")).into());
    }
    interrupt::install()?;
    Ok(observe::cost(rounds)?.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("0.5s"), Ok(Duration::from_millis(500)));
        for bad in ["", "0", "-1m", "10x", "m", "8d", "1e9h", "nan"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
