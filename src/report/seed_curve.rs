//! A seed's graph as `timeshare table KEY` prints it (seed 004's graphs): the paper drew
//! its curves and printed no figures under them, so there is no historical column, only
//! today's curve, one row per point, from one stored run. Rendering only.

use crate::model::exercise::{Batch, BatchTrials, Spread};
use crate::model::{BenchResult, Run, Status};
use crate::reference::{eighty_spread, EIGHTY_TRIALS};

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
        Some(s) => format!(
            "{title} — today = {}; {}\n",
            describe(s),
            super::seed_table::without_columns(table)
        ),
        None => format!("{title} — no stored run has a point of it\n"),
    };
    if points.is_empty() {
        out.push_str(&format!(
            "no {prefix}N rows{}: `timeshare exercise --sweep 1,2,4,8` draws today's curve\n",
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
    if table.key == "004-graphs" {
        out.push_str(&spread_beside_paper(&points));
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

/// The size at 80 processes the paper gave its spread at: today's batch of 80 when it
/// passed with several trials, otherwise the largest that did (named in the table).
fn spread_point(points: &[(usize, &BenchResult)]) -> Option<(usize, BatchTrials)> {
    let several: Vec<(usize, BatchTrials)> = points
        .iter()
        .filter(|(_, r)| r.status == Status::Ok)
        .filter_map(|(n, r)| Some((*n, trials_of(r)?)))
        .filter(|(_, b)| b.trials.len() > 1)
        .collect();
    let at_80 = several.iter().position(|(n, _)| *n == 80);
    let k = at_80.or(several.len().checked_sub(1))?;
    several.into_iter().nth(k)
}

/// Seed 004's one statement of its spread (7 trials at 80 processes on the P-E, the
/// batch's real, user and sys) set beside today's trials of one size: the mean, the SD
/// and the SD over the mean, the last the figure comparable across machines (the means
/// are totals of two different mixes of jobs, so no ratio of them is formed).
fn spread_beside_paper(points: &[(usize, &BenchResult)]) -> String {
    let Some((n, b)) = spread_point(points) else {
        return "spread: no size of this run passed with several trials, so nothing is set \
                beside the paper's 80-process trials: `timeshare exercise --sweep 16 \
                --trials 7` repeats the paper's (16 of each of the five job types)\n"
            .to_string();
    };
    let today: [Vec<f64>; 3] = [
        b.trials.iter().map(|t| t.elapsed_s).collect(),
        b.trials.iter().map(|t| t.total.user_total_s).collect(),
        b.trials.iter().map(|t| t.total.sys_total_s).collect(),
    ];
    let today_head = format!("today {n} procs");
    let mut t = new_table(&[
        "batch",
        "P-E 80 procs",
        "SD",
        "SD/mean",
        &today_head,
        "SD",
        "SD/mean",
    ]);
    let share = |sd: f64, mean: f64| {
        if mean > 0.0 && sd.is_finite() {
            format!("{:.2}%", 100.0 * sd / mean)
        } else {
            "-".into()
        }
    };
    for ((what, mean, sd), values) in eighty_spread().into_iter().zip(today) {
        let s = Spread::of(&values);
        t.add_row(vec![
            what.to_string(),
            secs(mean),
            secs(sd),
            share(sd, mean),
            secs(s.mean),
            secs(s.sd),
            share(s.sd, s.mean),
        ]);
    }
    right(&mut t, &[1, 2, 3, 4, 5, 6]);
    format!(
        "spread across trials, the whole batch's times: the paper's {EIGHTY_TRIALS} trials at \
         80 processes on the P-E beside today's {} trials at {n} (exercise.batch.{n}); SD/mean \
         is comparable, the times are of two mixes of jobs (no ratio)\n{t}\n",
        b.trials.len()
    )
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
