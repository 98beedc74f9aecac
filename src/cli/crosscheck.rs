//! `timeshare crosscheck [FAMILY|ID…] [--pairs N] [--cpu N]`
//!
//! Every selected row that declares an anchor (the tool a user would pick instead: perf
//! bench, lmbench, fio) is run beside that tool: row, tool, row, tool… `--pairs` times,
//! the whole command pinned to one CPU (children inherit the affinity, so a two-process
//! row and a two-process tool both share that CPU). The row runs as its own quick
//! `timeshare run ID --no-save`, a fresh process each time as the tool is. The table gives
//! both medians, the median and range of the per-pair ratios and the verdict against the
//! row's declared tolerance. Exit status 1 when a row is outside its tolerance without a
//! declared reason, or gave no figure.
//!
//! lmbench's programs calibrate themselves (timer resolution, timing and loop overhead)
//! for up to a minute on every start unless `ENOUGH`, `TIMING_O` and `LOOP_O` are set;
//! lmbench's own run script measures them once with its `enough`, `timing_o` and `loop_o`
//! programs and exports them, and so does this command (values already in the
//! environment are kept).
//!
//! Each tool run's CPU time (its and its children's, from getrusage of reaped children)
//! over its wall time is the share of its pinned CPU it had: below 1, other processes ran
//! there in the meantime and the tool's wall-clock figure includes their time.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use clap::Args;

use super::{output, suggest, Exit, UsageError};
use crate::bench::Registry;
use crate::harness::anchor::{self, Anchor};
use crate::harness::contract::Benchmark;
use crate::harness::{cpu, interrupt, rusage};
use crate::model::crosscheck::{CheckRow, Outcome, Pairing};
use crate::model::{Run, Status, Unit};
use crate::report;

#[derive(Debug, Args)]
pub struct CrosscheckArgs {
    /// Families, ids or id prefixes (default: every row that declares an anchor)
    pub select: Vec<String>,
    /// Interleaved pairs (row, tool) per row
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub pairs: u32,
    /// The CPU to pin everything to (default: the last usable one)
    #[arg(long, value_name = "N")]
    pub cpu: Option<usize>,
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
        .prefix("timeshare-crosscheck-")
        .tempdir()?;
    let exe = std::env::current_exe().context("cannot find timeshare's own program")?;
    let lmbench_env = if anchored
        .iter()
        .flat_map(|b| b.anchors())
        .any(|a| a.package == "lmbench" && a.locate().is_some())
    {
        eprintln!("crosscheck: lmbench's timing calibration, once (enough, timing_o, loop_o) …");
        lmbench_calibration()
    } else {
        Vec::new()
    };
    let mut rows = Vec::new();
    for b in &anchored {
        for a in b.anchors() {
            if interrupt::requested() {
                break;
            }
            eprintln!("crosscheck: {} against {} …", b.id(), a.tool);
            let env: &[(String, String)] = if a.package == "lmbench" {
                &lmbench_env
            } else {
                &[]
            };
            let outcome = check(&exe, b, a, args.pairs, scratch.path(), env);
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
    output::print_text(&format!(
        "pinned to CPU {pin}; {} interleaved pairs per row{lmbench_line}\n{}",
        args.pairs,
        report::crosscheck::crosscheck_table(&rows)
    ))?;
    Ok(if interrupt::requested() {
        Exit::Interrupted
    } else if rows.iter().any(CheckRow::fails) {
        Exit::Failed
    } else {
        Exit::Success
    })
}

fn check(
    exe: &Path,
    b: &Benchmark,
    a: &Anchor,
    pairs: u32,
    scratch: &Path,
    env: &[(String, String)],
) -> Outcome {
    let Some(program) = a.locate() else {
        return Outcome::Missing {
            package: a.package.into(),
        };
    };
    let attempt = || -> Result<Pairing> {
        let file = match a.file {
            Some(f) => {
                let path = scratch.join("anchor-file");
                make_file(&path, f.bytes)?;
                Some(path)
            }
            None => None,
        };
        let mut figures = Vec::new();
        let mut shares = Vec::new();
        for _ in 0..pairs {
            if interrupt::requested() {
                bail!("interrupted");
            }
            let row = run_row(exe, b.id(), scratch)?;
            let (tool, share) = run_tool(&program, a, file.as_deref(), env)?;
            figures.push((row, tool));
            shares.push(share);
        }
        Ok(Pairing::of(&figures)
            .context("a figure was not a positive number")?
            .with_tool_shares(&shares))
    };
    match attempt() {
        Ok(pairing) => {
            let verdict = pairing.verdict(a.tolerance, a.explained.is_some());
            Outcome::Paired { pairing, verdict }
        }
        Err(e) => Outcome::Failed {
            error: format!("{e:#}").replace('\n', " "),
        },
    }
}

/// One quick run of the row in a fresh timeshare: its median, seconds per operation (for a
/// throughput row, seconds per byte: the inverse of its bytes per second).
fn run_row(exe: &Path, id: &str, scratch: &Path) -> Result<f64> {
    let json = scratch.join("row.json");
    let status = Command::new(exe)
        .args(["run", id, "--quick", "--no-save", "--json"])
        .arg(&json)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("cannot run timeshare")?;
    let text = std::fs::read_to_string(&json)
        .with_context(|| format!("timeshare run {id} wrote no result ({status})"))?;
    let run: Run = serde_json::from_str(&text).context("cannot read the row's result")?;
    let r = run
        .results
        .iter()
        .find(|r| r.id == id)
        .with_context(|| format!("{id} is not in its own run"))?;
    if r.status != Status::Ok {
        bail!("{id} gave no time per operation ({:?})", r.status);
    }
    let median = r.median().context("no median")?;
    match r.unit {
        Unit::SecondsPerOp => Ok(median),
        Unit::BytesPerSecond if median > 0.0 => Ok(1.0 / median),
        _ => bail!("{id} gave no time per operation ({:?})", r.unit),
    }
}

/// One run of the tool: its figure in seconds per row operation, and the share of its CPU
/// it had (CPU time of it and its children over its wall time).
fn run_tool(
    program: &Path,
    a: &Anchor,
    file: Option<&Path>,
    env: &[(String, String)],
) -> Result<(f64, f64)> {
    let before = rusage::children();
    let start = std::time::Instant::now();
    let out = Command::new(program)
        .args(a.args_with(file))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {}", program.display()))?;
    let wall = start.elapsed().as_secs_f64();
    let after = rusage::children();
    let cpu = (after.user_s - before.user_s) + (after.system_s - before.system_s);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let figure = a.seconds_per_row_op(&text).with_context(|| {
        let last = text.lines().last().unwrap_or("(no output)");
        format!("{} printed no figure ({}): {last}", a.tool, out.status)
    })?;
    Ok((figure, cpu / wall.max(1e-9)))
}

/// lmbench's calibration as its run script does it: `ENOUGH`, `TIMING_O` and `LOOP_O`
/// from its `enough`, `timing_o` and `loop_o` programs (kept from the environment when
/// set there). A program that is missing or prints no number leaves its variable unset,
/// and the lmbench programs then calibrate themselves as usual.
fn lmbench_calibration() -> Vec<(String, String)> {
    [
        ("ENOUGH", "enough"),
        ("TIMING_O", "timing_o"),
        ("LOOP_O", "loop_o"),
    ]
    .into_iter()
    .filter_map(|(var, program)| {
        if let Ok(v) = std::env::var(var) {
            return Some((var.to_string(), v));
        }
        let path = anchor::locate(program)?;
        let out = Command::new(path).stdin(Stdio::null()).output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let v = text.split_whitespace().next()?;
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(|_| (var.to_string(), v.to_string()))
    })
    .collect()
}

/// A file of `bytes` bytes, written and read back so its pages are cached.
fn make_file(path: &Path, bytes: u64) -> Result<()> {
    if path.metadata().is_ok_and(|m| m.len() == bytes) {
        return Ok(());
    }
    // A page at a time, as vm.pagefault's own file is written: the page cache then holds
    // single pages, and a fault maps its fault-around window rather than a large folio
    // (which made lat_pagefault a ninth as long here).
    let chunk = vec![7u8; 4096];
    let mut f = std::fs::File::create(path)?;
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        std::io::Write::write_all(&mut f, &chunk[..n])?;
        left -= n as u64;
    }
    f.sync_all()?;
    std::fs::read(path)?;
    Ok(())
}
