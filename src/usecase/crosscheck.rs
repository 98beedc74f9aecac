//! `crosscheck`'s work: each row beside the tool it cites, pair after pair.
//!
//! Every selected row that declares an anchor (the tool a user would pick instead: perf
//! bench, lmbench, fio) is run beside that tool: row, tool, row, tool…, the whole command
//! pinned to one CPU (children inherit the affinity, so a two-process row and a
//! two-process tool both share that CPU). The row runs as its own quick `timeshare run ID
//! --no-save`, a fresh process each time as the tool is. The verdict is the ratio's
//! interval against the row's declared tolerance, looked at after `--pairs` pairs and then
//! at growing numbers of them while it straddles an edge, up to `--max-pairs` or the
//! row's `--budget` of seconds ([`crate::model::crosscheck::Plan`]); one still straddling
//! then is *undecided*. The table gives both medians, the median ratio, its interval and
//! the verdict. Exit status 1 when a row is outside its tolerance without a declared
//! reason, or gave no figure; undecided is not a failure.
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
//!
//! A tool that uses a directory at a fixed path of a shared place (lmbench's
//! `/var/tmp/lmbench`, where `lat_proc exec` runs `hello` and `lat_fcntl` makes its lock
//! files) runs in a mount namespace of its own with a fresh private directory in place
//! of it (see [`crate::harness::toolview`]): nothing is put, copied, chmod-ed or run at
//! the shared path, whoever made it.
//!
//! Every tool invocation (its server, the client, the command that stops the server)
//! runs in a network namespace of the tool run's own, whose only interface is its
//! loopback (see [`crate::harness::netview`]): lmbench's servers bind every address,
//! and there that is a loopback nobody else can reach, nor sit on the port of. A server
//! that puts itself in the background ends with that namespace, however the crosscheck
//! ends.
//!
//! Every child (the row's timeshare, the tool, lmbench's calibration) runs in a process
//! group of its own, with its output in a file of the scratch directory, and is polled:
//! on Ctrl-C, SIGTERM or SIGHUP the group is stopped (TERM, then KILL a second later: some
//! lmbench programs ignore TERM), the pairs measured so far are printed, and the scratch
//! directory (`timeshare-crosscheck-PID-…` in the temporary directory, which `timeshare
//! clean` knows) is removed. Each child is bounded in wall-clock time ([`TOOL_LIMIT`](crate::harness::toolrun::TOOL_LIMIT) for
//! a tool): one that has not ended by then (a server that never answers, a tool blocked
//! on a file) has its whole process group killed and the row fails naming the bound.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::harness::anchor::{Anchor, RowFigure};
use crate::harness::contract::Benchmark;
use crate::harness::netview::PrivateNet;
use crate::harness::toolrun::{
    build_c, kept_lmbench_calibration, make_file, run_stoppable, run_tool, tool_view, Leftovers,
    ToolServer,
};
use crate::harness::{debris, interrupt, Checks, Session, Strategy};
use crate::model::crosscheck::{CheckRow, Outcome as RowOutcome, Pairing, Plan, Settings};
use crate::model::details::cache::CacheSweep;
use crate::model::{Run, RunOptions, RunStatus, Status, Unit};
use crate::report::crosscheck::rough_duration;

/// The longest one quick run of the row may take.
const ROW_LIMIT: Duration = Duration::from_secs(600);

/// A cross-check, as the command line checked it.
pub struct Request<'a> {
    /// The rows to set beside their tools: each declares at least one anchor.
    pub rows: Vec<&'a Benchmark>,
    /// The CPU to pin everything to, checked usable.
    pub cpu: usize,
    /// `--pairs`, as given (the plan takes at least 2).
    pub pairs_first: u32,
    pub plan: Plan,
    /// `--budget`: what a row may spend past its first verdict.
    pub budget: Duration,
    /// `--total`: what the whole cross-check aims to take.
    pub total: Duration,
    /// Measure lmbench's calibration again rather than take the one kept.
    pub recalibrate: bool,
    /// The quiet-machine reference row, measured before and after the pairs (see
    /// [`Session::sitting`]).
    pub reference: Option<&'a Benchmark>,
}

/// The cross-check's outcome: a row a (row, tool) pair, in the order taken, how they
/// were taken, and what the run-level checks around them found.
pub struct Outcome {
    pub rows: Vec<CheckRow>,
    pub settings: Settings,
    pub checks: Checks,
}

/// Run every row beside each of its tools, pinned to the request's CPU, until each
/// row's plan is decided, its budget spent or the user stops it (then the rows finished
/// are the outcome, marked interrupted). The pairs are one sitting of a [`Session`], with
/// the checks a run has around them. A line of progress per row goes to standard error.
pub fn run(request: Request) -> Result<Outcome> {
    let Request {
        rows: anchored,
        cpu: pin,
        pairs_first,
        plan,
        budget,
        total,
        recalibrate,
        reference,
    } = request;
    interrupt::install()?;
    let scratch = tempfile::Builder::new()
        .prefix(&debris::crosscheck_prefix())
        .tempdir()?;
    // The session pins this process, and so every child it starts, to the CPU.
    let options = RunOptions {
        cpu: Some(pin),
        ..RunOptions::default()
    };
    let session = Session::new(options, scratch.path(), Strategy::OneProcess)?;
    let exe = std::env::current_exe().context("cannot find timeshare's own program")?;
    let lmbench_env = if uses_lmbench(&anchored) {
        kept_lmbench_calibration(scratch.path(), recalibrate)
    } else {
        Vec::new()
    };
    let anchors = anchored.iter().map(|b| b.anchors().len()).sum::<usize>();
    let mut progress = Progress::new(anchors * plan.max());
    let mut share = TotalShare::new(total, anchors);
    let (rows, checks) = session.sitting(reference, || {
        let mut rows = Vec::new();
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
                rows.push(check_row(b, a, outcome));
            }
        }
        let status = RunStatus::ended(interrupt::requested());
        Ok((rows, status))
    })?;
    let settings = Settings {
        cpu: pin,
        pairs_first,
        plan,
        budget,
        total,
        took: share.start.elapsed(),
        lmbench_calibration: lmbench_env,
        interrupted: interrupt::requested(),
        pairs_done: progress.done,
        pairs_total: progress.total,
    };
    Ok(Outcome {
        rows,
        settings,
        checks,
    })
}

/// Whether any of the rows' tools is an installed lmbench program: only then is its
/// calibration worth a minute.
fn uses_lmbench(rows: &[&Benchmark]) -> bool {
    rows.iter()
        .flat_map(|b| b.anchors())
        .any(|a| a.package == "lmbench" && a.locate().is_some())
}

/// The row of the table: the row and its tool as declared, with what the pairs gave.
fn check_row(b: &Benchmark, a: &Anchor, outcome: RowOutcome) -> CheckRow {
    CheckRow {
        id: b.id().to_string(),
        tool: a.tool.to_string(),
        command: a.command_line(),
        basis: a.basis.to_string(),
        tolerance: a.tolerance,
        why: a.explained.or(a.why).map(str::to_string),
        outcome,
    }
}
/// How many pairs a row may take: the plan's looks, and the time past the first look.
struct Pacing<'a> {
    plan: &'a Plan,
    budget: Duration,
}

/// The whole cross-check's time, shared out row by row: every row takes its first look
/// (a verdict needs it), and what the first looks still to come are expected to leave of
/// the total is split evenly among the rows left, so a row decided at its first look
/// leaves its part to the undecided rows after it.
struct TotalShare {
    total: Duration,
    start: Instant,
    rows_left: usize,
    first_looks: Duration,
    first_looks_taken: u32,
}

impl TotalShare {
    fn new(total: Duration, rows: usize) -> TotalShare {
        TotalShare {
            total,
            start: Instant::now(),
            rows_left: rows,
            first_looks: Duration::ZERO,
            first_looks_taken: 0,
        }
    }

    /// The time the next row may spend past its first look.
    fn next_row(&self) -> Duration {
        self.allowance(self.start.elapsed())
    }

    /// The next row's time past its first look, `elapsed` into the cross-check.
    fn allowance(&self, elapsed: Duration) -> Duration {
        let left = self.total.saturating_sub(elapsed);
        let mean_first_look = if self.first_looks_taken == 0 {
            Duration::ZERO
        } else {
            self.first_looks / self.first_looks_taken
        };
        let rows = self.rows_left.max(1) as u32;
        left.saturating_sub(mean_first_look * rows) / rows
    }

    fn row_done(&mut self, first_look: Option<Duration>) {
        self.rows_left = self.rows_left.saturating_sub(1);
        if let Some(t) = first_look {
            self.first_looks += t;
            self.first_looks_taken += 1;
        }
    }
}

/// Pairs done (or no longer needed: a row decided early) out of the most the plans allow,
/// and an estimate of the time left from the pairs measured.
struct Progress {
    done: usize,
    measured: usize,
    total: usize,
    start: Instant,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            done: 0,
            measured: 0,
            total,
            start: Instant::now(),
        }
    }

    /// "crosscheck: 12/100 pairs done, at most 4 min left; now ID against TOOL …"
    fn line(&self, now: &str) -> String {
        let left = if self.measured == 0 {
            String::new()
        } else {
            let per_pair = self.start.elapsed().as_secs_f64() / self.measured as f64;
            let secs = per_pair * (self.total - self.done) as f64;
            format!(", at most {} left", rough_duration(secs))
        };
        format!(
            "crosscheck: {}/{} pairs done{left}; now {now} …",
            self.done, self.total
        )
    }
}

/// The row beside its anchor, pair after pair until the pacing's plan is decided, and
/// how long its first look took (`None` when it never got there); `None` when the user
/// stopped the command before the first pair was done (with at least one, the pairs done
/// are the outcome).
fn check(
    exe: &Path,
    b: &Benchmark,
    a: &Anchor,
    pacing: &Pacing,
    scratch: &Path,
    env: &[(String, String)],
    progress: &mut Progress,
) -> Option<(RowOutcome, Option<Duration>)> {
    let plan = pacing.plan;
    let row_start = Instant::now();
    let mut first_look_took = None;
    let alpha = plan.alpha_per_look();
    let judge = |figures: &[(f64, f64)], shares: &[f64]| {
        Pairing::with_interval(figures, alpha)
            .map(|p| p.with_tool_shares(shares))
            .map(|p| p.verdict(a.tolerance, a.explained.is_some()))
    };
    let Some(found) = a.locate() else {
        progress.done += plan.max();
        return Some((
            RowOutcome::Missing {
                package: a.package.into(),
            },
            None,
        ));
    };
    let mut figures = Vec::new();
    let mut shares = Vec::new();
    let mut attempt = || -> Result<()> {
        let program = match a.built {
            Some(c) => build_c(&found, c, scratch)?,
            None => found.clone(),
        };
        let net = PrivateNet::new()
            .with_context(|| format!("cannot give {} a private network", a.tool))?;
        let view = tool_view(a, scratch)?;
        let file = match a.file {
            Some(f) => {
                let path = scratch.join(format!("anchor-file-{}", f.block));
                make_file(&path, f.bytes, f.block)?;
                Some(path)
            }
            None => None,
        };
        let _server = match a.server {
            Some(s) => Some(ToolServer::start(&program, s, env, &net, scratch)?),
            None => None,
        };
        let mut first_look: Option<Instant> = None;
        let out_of_time =
            |first: Option<Instant>| first.is_some_and(|t| t.elapsed() > pacing.budget);
        while plan.wants_more(
            figures.len(),
            judge(&figures, &shares),
            out_of_time(first_look),
        ) {
            if figures.len() >= plan.looks()[0] {
                first_look.get_or_insert_with(Instant::now);
            }
            let Some(row) = run_row(exe, b.id(), a.row_figure, scratch)? else {
                return Ok(());
            };
            let Some((tool, share)) = run_tool(
                &program,
                a,
                file.as_deref(),
                env,
                scratch,
                &net,
                view.as_ref(),
            )?
            else {
                return Ok(());
            };
            figures.push((row, tool));
            if figures.len() == plan.looks()[0] {
                first_look_took = Some(row_start.elapsed());
            }
            // A tool with a server in the background: the server's CPU time is no
            // child's, so the share would undercount; none is claimed.
            if a.server.is_none() {
                shares.push(share);
            }
            progress.done += 1;
            progress.measured += 1;
        }
        Ok(())
    };
    let result = attempt();
    progress.done += plan.max().saturating_sub(figures.len());
    if interrupt::requested() && figures.is_empty() {
        return None;
    }
    let outcome = match result.and_then(|()| {
        Ok(Pairing::with_interval(&figures, alpha)
            .context("a figure was not a positive number")?
            .with_tool_shares(&shares))
    }) {
        Ok(pairing) => {
            let verdict = pairing.verdict(a.tolerance, a.explained.is_some());
            RowOutcome::Paired { pairing, verdict }
        }
        Err(e) => RowOutcome::Failed {
            error: format!("{e:#}").replace('\n', " "),
        },
    };
    Some((outcome, first_look_took))
}

/// One quick run of the row in a fresh timeshare, in one process: the figure `figure`
/// names, seconds per operation (for a throughput row, seconds per byte: the inverse of
/// its bytes per second); `None` when the user stopped it.
fn run_row(exe: &Path, id: &str, figure: RowFigure, scratch: &Path) -> Result<Option<f64>> {
    let json = scratch.join("row.json");
    let _ = std::fs::remove_file(&json);
    let mut cmd = Command::new(exe);
    cmd.args([
        "run",
        id,
        "--quick",
        "--invocations",
        "1",
        "--no-save",
        "--json",
    ])
    .arg(&json);
    let Some(done) = run_stoppable(
        &mut cmd,
        &scratch.join("row.out"),
        ROW_LIMIT,
        Leftovers::Kill,
    )
    .context("cannot run timeshare")?
    else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&json)
        .with_context(|| format!("timeshare run {id} wrote no result ({:?})", done.reaped.end))?;
    let run: Run = serde_json::from_str(&text).context("cannot read the row's result")?;
    let r = run
        .results
        .iter()
        .find(|r| r.id == id)
        .with_context(|| format!("{id} is not in its own run"))?;
    if r.status != Status::Ok {
        bail!("{id} gave no time per operation ({:?})", r.status);
    }
    if let RowFigure::SweepMinimumAt { bytes } = figure {
        return sweep_minimum_at(r, bytes).map(Some);
    }
    let median = r.median().context("no median")?;
    match r.unit {
        Unit::SecondsPerOp => Ok(Some(median)),
        Unit::BytesPerSecond if median > 0.0 => Ok(Some(1.0 / median)),
        _ => bail!("{id} gave no time per operation ({:?})", r.unit),
    }
}

/// The minimum of `cpu.cache`'s repeats at `bytes`, in seconds per read.
fn sweep_minimum_at(r: &crate::model::BenchResult, bytes: u64) -> Result<f64> {
    let sweep = r
        .details_as::<CacheSweep>()
        .with_context(|| format!("{} has no sweep in its details", r.id))?;
    let point = sweep
        .sizes
        .iter()
        .find(|p| p.bytes == bytes)
        .with_context(|| format!("{}'s sweep did not reach {bytes} bytes", r.id))?;
    Ok(point.min_ns * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn the_total_is_shared_among_the_rows_left_after_their_first_looks() {
        let mut share = TotalShare::new(secs(600), 4);
        // Nothing known of first looks yet: an even quarter each.
        assert_eq!(share.allowance(secs(0)), secs(150));
        // One row done, its first look 30 s, 100 s gone: 500 s left, three first looks of
        // 30 s to come, so (500 - 90) / 3 for the next.
        share.row_done(Some(secs(30)));
        let next = share.allowance(secs(100));
        assert!((next.as_secs_f64() - 410.0 / 3.0).abs() < 1e-6, "{next:?}");
        // A row without a first look (its tool missing) does not change the mean.
        share.row_done(None);
        assert_eq!(share.allowance(secs(100)), (secs(500) - secs(60)) / 2);
    }

    #[test]
    fn a_spent_total_leaves_rows_only_their_first_look() {
        let mut share = TotalShare::new(secs(60), 3);
        share.row_done(Some(secs(40)));
        assert_eq!(share.allowance(secs(50)), Duration::ZERO);
        assert_eq!(share.allowance(secs(700)), Duration::ZERO);
    }
}
