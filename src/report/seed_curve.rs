//! A seed's graph as `timeshare table KEY` prints it (seed 004's graphs): the paper drew
//! its curves and printed no figures under them, so there is no historical column, only
//! today's curve, one row per point, from one stored run. Rendering only.

use crate::model::exercise::{Batch, BatchTrials, Spread};
use crate::model::{BenchResult, Run, Status};

use super::exercise::secs;
use super::seed_table::{describe, SeedTable, Source};
use super::table::{new_table, right};

/// The curve's points in a run: each result whose id is `prefix` followed by a number
/// (`exercise.batch.20`), by that number.
pub fn points<'a>(run: &'a Run, prefix: &str) -> Vec<(usize, &'a BenchResult)> {
    let mut points: Vec<(usize, &BenchResult)> = run
        .results
        .iter()
        .filter_map(|r| Some((r.id.strip_prefix(prefix)?.parse().ok()?, r)))
        .collect();
    points.sort_by_key(|(n, _)| *n);
    points
}

/// The table of `source`'s curve; when it has no point, a line saying how to make one.
pub fn render(table: &SeedTable, prefix: &str, source: Option<&Source>) -> String {
    let title = format!("seed {} {}: {}", table.seed, table.name(), table.title);
    let points = source.map(|s| points(s.run, prefix)).unwrap_or_default();
    let mut out = match source {
        Some(s) => format!("{title} — today = {}; no historical figures\n", describe(s)),
        None => format!("{title} — no stored run has a point of it\n"),
    };
    if points.is_empty() {
        out.push_str(&format!(
            "no {prefix}N rows{}: `timeshare exercise --sweep 1,5,10,20,40` draws today's curve\n",
            source
                .map(|s| format!(" in {}", s.name))
                .unwrap_or_default()
        ));
    } else {
        out.push_str(&format!("{}\n", curve_table(&points)));
        out.push_str(
            "real/proc: the batch's elapsed time over its processes (the paper's elapsed time \
             per process); user/proc, sys/proc: their CPU time per process (wait4, children \
             included); with several trials, each cell is their mean over ± their SD (n − 1)\n",
        );
    }
    for (n, r) in &points {
        if let Status::Failed { error } = &r.status {
            out.push_str(&format!("failed: {} ({n} processes): {error}\n", r.id));
        }
    }
    // Where the machine stopped coping is a result of the sweep, as the paper's graphs
    // end where its machines did: the first number of processes that failed.
    if let Some((n, _)) = points
        .iter()
        .find(|(_, r)| matches!(r.status, Status::Failed { .. }))
    {
        out.push_str(&format!(
            "failure point: {n} processes, the first number of the sweep that failed\n"
        ));
    }
    for line in (table.paper)(table.key) {
        out.push_str(&format!("paper: {line}\n"));
    }
    for w in table.why {
        out.push_str(&format!("why: {w}\n"));
    }
    out
}

fn curve_table(points: &[(usize, &BenchResult)]) -> String {
    let mut t = new_table(&[
        "procs",
        "id",
        "trials",
        "elapsed",
        "real/proc",
        "user/proc",
        "sys/proc",
    ]);
    for (n, r) in points {
        let mut row = vec![n.to_string(), r.id.clone()];
        match (trials_of(r), &r.status) {
            (Some(b), Status::Ok) => {
                let elapsed: Vec<f64> = b.trials.iter().map(|t| t.elapsed_s).collect();
                let several = b.trials.len() > 1;
                row.extend([
                    b.trials.len().to_string(),
                    figure(Spread::of(&elapsed), several),
                    figure(b.real_per_process, several),
                    figure(b.user_per_process, several),
                    figure(b.sys_per_process, several),
                ]);
            }
            (b, status) => {
                let trials = b.map_or("-".to_string(), |b| b.trials.len().to_string());
                let state = match status {
                    Status::Ok => "no record",
                    Status::Skipped { .. } => "skipped",
                    Status::Failed { .. } => "failed",
                };
                row.extend([trials, state.into(), "-".into(), "-".into(), "-".into()]);
            }
        }
        t.add_row(row);
    }
    right(&mut t, &[0, 2, 3, 4, 5, 6]);
    super::table::no_wrap(&mut t, &[1]);
    t.to_string()
}

/// A mean, with its SD on a line of its own when there were several trials (so that the
/// table stays as narrow as the paper's axes).
fn figure(s: Spread, several: bool) -> String {
    if several && s.mean.is_finite() {
        format!("{}\n± {}", secs(s.mean), secs(s.sd))
    } else {
        spread_or_mean(s)
    }
}

fn spread_or_mean(s: Spread) -> String {
    if s.mean.is_finite() {
        secs(s.mean)
    } else {
        "-".into()
    }
}

/// A point's record: its trials (a row stored before `--trials` holds one batch).
fn trials_of(r: &BenchResult) -> Option<BatchTrials> {
    r.details_as::<BatchTrials>()
        .or_else(|| r.details_as::<Batch>().map(|b| BatchTrials::of(vec![b])))
}
