//! `timeshare selftest [CHECK…] [--quick|--full] [--loose] [--cpu N] [--attempts N] [--list]`

use std::time::Instant;

use anyhow::Result;
use clap::Args;

use super::errors::UsageError;
use super::{output, suggest, Exit};
use crate::harness::{cpu, interrupt};
use crate::model::Mode;
use crate::selftest::{self, Options, Strictness};

#[derive(Debug, Args)]
pub struct SelftestArgs {
    /// Checks to run: ids or their first components, e.g. `proc` (default: every check)
    pub select: Vec<String>,
    /// The usual number of repeats per timing (the default)
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// More repeats per timing: slower, steadier
    #[arg(long)]
    pub full: bool,
    /// Hold the figures to the wide bounds meant for a machine busy with other work
    #[arg(long)]
    pub loose: bool,
    /// Pin the measuring process to CPU N (default: the last CPU it may use)
    #[arg(long, value_name = "N")]
    pub cpu: Option<usize>,
    /// Measure a check that misses its bounds up to N times before calling it failed
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u8).range(1..=20))]
    pub attempts: u8,
    /// List the checks and their claims; measure nothing
    #[arg(long)]
    pub list: bool,
}

pub fn execute(args: SelftestArgs) -> Result<Exit> {
    let checks = selftest::all();
    let chosen = selftest::select(&checks, &args.select).map_err(|w| {
        let hint = suggest::hint(&w, checks.iter().map(|c| c.id));
        UsageError(format!(
            "unknown check '{w}'{hint} (see `timeshare selftest --list`)"
        ))
    })?;
    if args.list {
        let text: String = chosen
            .iter()
            .map(|c| format!("{:<w$}  {}\n", c.id, c.claim, w = selftest::ID_WIDTH))
            .collect();
        output::print_text(&text)?;
        return Ok(Exit::Success);
    }
    let usable = cpu::usable_cpus();
    let cpu = match args.cpu {
        Some(c) => {
            cpu::check_usable(c).map_err(|e| UsageError(e.to_string()))?;
            c
        }
        None => *usable.last().unwrap_or(&0),
    };
    let options = Options {
        mode: if args.full { Mode::Full } else { Mode::Quick },
        strictness: if args.loose {
            Strictness::Loose
        } else {
            Strictness::Strict
        },
        attempts: args.attempts as usize,
        cpu,
    };
    interrupt::install()?;
    output::print_text(&format!(
        "timeshare selftest: {} checks, pinned to CPU {cpu} (except those that need every \
         CPU), {} bounds, at most {} attempts each\n",
        chosen.len(),
        if args.loose { "loose" } else { "strict" },
        options.attempts
    ))?;
    let started = Instant::now();
    let mut outcomes = Vec::new();
    for check in chosen {
        match selftest::run_check(check, &options) {
            Ok(o) => {
                output::print_text(&selftest::render(&o, options.strictness))?;
                outcomes.push(o);
            }
            Err(_) => {
                output::print_text("interrupted\n")?;
                return Ok(Exit::Interrupted);
            }
        }
    }
    output::print_text(&format!(
        "{}\n",
        selftest::summary(&outcomes, started.elapsed().as_secs_f64())
    ))?;
    Ok(if selftest::any_failed(&outcomes) {
        Exit::Failed
    } else {
        Exit::Success
    })
}
