//! `timeshare crosscheck [FAMILY|ID…] [--pairs N] [--max-pairs M] [--budget S] [--cpu N]`
//!
//! Every selected row that declares an anchor (the tool a user would pick instead: perf
//! bench, lmbench, fio) is run beside that tool, pair after pair, the whole command pinned
//! to one CPU; the verdicts are printed as a table or exported. This file parses and
//! checks the arguments, hands a [`Request`] to [`crosscheck::run`], prints its outcome
//! through [`crate::report::crosscheck`] and maps it to an exit status. How each pair is
//! run and bounded, the tools' namespaces and lmbench's calibration: the use case.

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use super::compare::CompareFormat;
use super::errors::UsageError;
use super::{output, suggest, Exit};
use crate::bench::Registry;
use crate::harness::contract::Benchmark;
use crate::harness::{cpu, quiet};
use crate::model::crosscheck::{CheckRow, Plan};
use crate::report;
use crate::usecase::crosscheck::{self, Request};

#[derive(Debug, Args)]
pub struct CrosscheckArgs {
    /// Families, ids or id prefixes (default: every row that declares an anchor)
    pub select: Vec<String>,
    /// Interleaved pairs (row, tool) before a row's first verdict (at least 2 are taken)
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub pairs: u32,
    /// The most pairs a row takes while its verdict is undecided
    #[arg(long, value_name = "M", default_value_t = 13, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub max_pairs: u32,
    /// Seconds a row may spend on further pairs once past its first verdict
    #[arg(long, value_name = "S", default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub budget: u32,
    /// Seconds the whole cross-check aims to take: every row gets its first verdict, and
    /// the rows still undecided share what is left of this for further pairs
    #[arg(long, value_name = "S", default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=86400))]
    pub total: u32,
    /// The CPU to pin everything to (default: the last usable one)
    #[arg(long, value_name = "N")]
    pub cpu: Option<usize>,
    /// Measure lmbench's timing calibration again instead of taking the one kept for this
    /// machine
    #[arg(long)]
    pub recalibrate: bool,
    /// How to print the pairs: a table, or JSON, CSV or Markdown (every pair: both figures
    /// and their intervals, the ratio with its interval, the verdict and its test)
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
}

pub fn execute(args: CrosscheckArgs) -> Result<Exit> {
    let cpu = chosen_cpu(args.cpu)?;
    let reg = Registry::with_defaults();
    let rows: Vec<&Benchmark> = suggest::select(&reg, &args.select)?
        .into_iter()
        .filter(|b| !b.anchors().is_empty())
        .collect();
    if rows.is_empty() {
        return Err(UsageError(
            "none of the selected rows declares an anchor (try `timeshare crosscheck`)".into(),
        )
        .into());
    }
    let checked = crosscheck::run(Request {
        rows,
        cpu,
        pairs_first: args.pairs,
        plan: Plan::new(args.pairs as usize, args.max_pairs as usize),
        budget: Duration::from_secs(args.budget.into()),
        total: Duration::from_secs(args.total.into()),
        recalibrate: args.recalibrate,
        reference: reg.find(quiet::REFERENCE),
    })?;
    print(&checked, args.format)?;
    // After the table, as `run` says its late warnings (JSON carries them too).
    for w in checked.checks.warnings() {
        output::warn(&w);
    }
    Ok(if checked.settings.interrupted {
        Exit::Interrupted
    } else if checked.rows.iter().any(CheckRow::fails) {
        Exit::Failed
    } else {
        Exit::Success
    })
}

/// `--cpu`, checked usable, or the last usable CPU.
fn chosen_cpu(asked: Option<usize>) -> Result<usize> {
    match asked {
        Some(c) => {
            cpu::check_usable(c).map_err(|e| UsageError(e.to_string()))?;
            Ok(c)
        }
        None => cpu::usable_cpus().last().copied().context("no usable CPU"),
    }
}

/// The outcome in the format asked for.
fn print(checked: &crosscheck::Outcome, format: CompareFormat) -> Result<()> {
    let rows = &checked.rows;
    match format {
        CompareFormat::Text => output::print_text(&report::crosscheck::crosscheck_text(
            rows,
            &checked.settings,
        ))?,
        CompareFormat::Json => {
            let settings = report::crosscheck_export::settings_json(&checked.settings);
            let checks = &checked.checks;
            let json = report::crosscheck_export::to_json(
                rows,
                settings,
                checks.clock_rate.as_ref(),
                &checks.warnings(),
            );
            output::print(format!("{}\n", serde_json::to_string_pretty(&json)?))?;
        }
        CompareFormat::Csv => output::print(report::crosscheck_export::to_csv(rows)?)?,
        CompareFormat::Markdown => output::print(report::crosscheck_export::to_markdown(rows))?,
    }
    Ok(())
}
