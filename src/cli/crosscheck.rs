//! `timeshare crosscheck [FAMILY|ID…] [--pairs N] [--max-pairs M] [--budget S] [--cpu N]`
//!
//! Every selected row that declares an anchor (the tool a user would pick instead: perf
//! bench, lmbench, fio) is run beside that tool, pair after pair, the whole command pinned
//! to one CPU; the verdicts are printed as a table or exported. How each pair is run and
//! bounded, the tools' namespaces and lmbench's calibration: [`crate::usecase::crosscheck`].

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use super::compare::CompareFormat;
use super::errors::UsageError;
use super::{output, suggest, Exit};
use crate::bench::Registry;
use crate::harness::contract::Benchmark;
use crate::harness::toolrun::kept_lmbench_calibration;
use crate::harness::{cpu, debris, interrupt};
use crate::model::crosscheck::{CheckRow, Plan, FAMILY_ALPHA};
use crate::report;
use crate::usecase::crosscheck::{check, rough_duration, Pacing, Progress, TotalShare};

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
    let usable = cpu::usable_cpus();
    let pin = match args.cpu {
        Some(c) => {
            cpu::check_usable(c).map_err(|e| UsageError(e.to_string()))?;
            c
        }
        None => *usable.last().context("no usable CPU")?,
    };
    let reg = Registry::with_defaults();
    let chosen = suggest::select(&reg, &args.select)?;
    let anchored: Vec<&Benchmark> = chosen
        .into_iter()
        .filter(|b| !b.anchors().is_empty())
        .collect();
    if anchored.is_empty() {
        return Err(UsageError(
            "none of the selected rows declares an anchor (try `timeshare crosscheck`)".into(),
        )
        .into());
    }
    cpu::pin_to(&[pin])?;
    interrupt::install()?;
    let scratch = tempfile::Builder::new()
        .prefix(&debris::crosscheck_prefix())
        .tempdir()?;
    let exe = std::env::current_exe().context("cannot find timeshare's own program")?;
    let lmbench_env = if anchored
        .iter()
        .flat_map(|b| b.anchors())
        .any(|a| a.package == "lmbench" && a.locate().is_some())
    {
        kept_lmbench_calibration(scratch.path(), args.recalibrate)
    } else {
        Vec::new()
    };
    let mut rows = Vec::new();
    let plan = Plan::new(args.pairs as usize, args.max_pairs as usize);
    let budget = Duration::from_secs(args.budget.into());
    let anchors = anchored.iter().map(|b| b.anchors().len()).sum::<usize>();
    let mut progress = Progress::new(anchors * plan.max());
    let mut share = TotalShare::new(Duration::from_secs(args.total.into()), anchors);
    'rows: for b in &anchored {
        for a in b.anchors() {
            if interrupt::requested() {
                break 'rows;
            }
            eprintln!(
                "{}",
                progress.line(&format!("{} against {}", b.id(), a.tool))
            );
            let env: &[(String, String)] = if a.package == "lmbench" {
                &lmbench_env
            } else {
                &[]
            };
            let pacing = Pacing {
                plan: &plan,
                budget: budget.min(share.next_row()),
            };
            let Some((outcome, first_look)) =
                check(&exe, b, a, &pacing, scratch.path(), env, &mut progress)
            else {
                break 'rows;
            };
            share.row_done(first_look);
            rows.push(CheckRow {
                id: b.id().to_string(),
                tool: a.tool.to_string(),
                command: a.command_line(),
                basis: a.basis.to_string(),
                tolerance: a.tolerance,
                why: a.explained.or(a.why).map(str::to_string),
                outcome,
            });
        }
    }
    let lmbench_line = if lmbench_env.is_empty() {
        String::new()
    } else {
        let vars: Vec<String> = lmbench_env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("; lmbench with {}", vars.join(" "))
    };
    let stopped = if interrupt::requested() {
        format!(
            "\ninterrupted: {} of {} pairs measured; the rows above hold those finished\n",
            progress.done, progress.total
        )
    } else {
        String::new()
    };
    let took = share.start.elapsed().as_secs_f64();
    match args.format {
        CompareFormat::Text => output::print_text(&format!(
            "pinned to CPU {pin}; interleaved pairs per row: {} while undecided, up to {} s \
             a row and {} s in all (looks at {:?}, each interval at {:.1}%, {:.0}% for a \
             verdict in all); took {}{lmbench_line}\n{}{stopped}",
            plan.max(),
            args.budget,
            args.total,
            plan.looks(),
            (1.0 - plan.alpha_per_look()) * 100.0,
            (1.0 - FAMILY_ALPHA) * 100.0,
            rough_duration(took),
            report::crosscheck::crosscheck_table(&rows)
        ))?,
        CompareFormat::Json => {
            let settings = serde_json::json!({
                "cpu": pin,
                "pairs_first": args.pairs,
                "pairs_max": plan.max(),
                "budget_s": args.budget,
                "total_s": args.total,
                "looks": plan.looks(),
                "interval_level": 1.0 - plan.alpha_per_look(),
                "family_level": 1.0 - FAMILY_ALPHA,
                "took_s": took,
                "lmbench_calibration": lmbench_env.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
                "interrupted": interrupt::requested(),
            });
            let json = report::crosscheck_export::to_json(&rows, settings);
            output::print(format!("{}\n", serde_json::to_string_pretty(&json)?))?;
        }
        CompareFormat::Csv => output::print(report::crosscheck_export::to_csv(&rows)?)?,
        CompareFormat::Markdown => output::print(report::crosscheck_export::to_markdown(&rows))?,
    }
    Ok(if interrupt::requested() {
        Exit::Interrupted
    } else if rows.iter().any(CheckRow::fails) {
        Exit::Failed
    } else {
        Exit::Success
    })
}
