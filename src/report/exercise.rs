//! The exerciser's tables (seed 004): per instance, per job type and total for one batch;
//! for a sweep, the per-process real/user/system figures against the number of processes
//! — the seed's graphs as a table. Rendering only.

use crate::model::devez::Devez;
use crate::model::exercise::{by_batch, Batch, Outcome, Report, Spread, Times, TypeState};
use crate::model::unit;
use crate::model::unit::format_bytes;
use crate::model::Run;
use crate::report::table::{new_table, right};

/// The whole text report: types, the batch or sweep tables, failures, summary line.
pub fn render(report: &Report) -> String {
    let mut out = tables(report);
    out.push_str(&summary_line(report));
    out.push('\n');
    out
}

/// Types, the batch or sweep tables and the failures, without the summary line.
fn tables(report: &Report) -> String {
    let mut out = String::new();
    out.push_str(&types_section(report));
    if report.trials > 1 {
        out.push_str(&format!("{}\n\n", each_trial_table(report)));
        out.push_str(&format!("{}\n", trials_table(report)));
    } else if report.sweep {
        out.push_str(&format!("{}\n", sweep_table(report)));
    } else {
        for b in &report.batches {
            out.push_str(&format!("{}\n\n", instance_table(b)));
            out.push_str(&format!("{}\n", type_table(b)));
        }
    }
    out.push_str(&devez_section(report));
    out.push_str(&failures(report));
    out
}

/// The device exerciser beside each batch (`--devez`): one row per batch, how it read
/// back, and why it was skipped when it was. Empty without `--devez`.
fn devez_section(report: &Report) -> String {
    let beside: Vec<(&Batch, &Devez)> = report
        .batches
        .iter()
        .filter_map(|b| b.devez.as_ref().map(|d| (b, d)))
        .collect();
    let Some((_, first)) = beside.first() else {
        return String::new();
    };
    let Some(run) = first.ran() else {
        let Devez::Skipped { target, reason } = first else {
            unreachable!("not run is skipped")
        };
        return format!("\ndevez ({target}) skipped: {reason}\n\n");
    };
    let mut t = new_table(&[
        "trial",
        "procs",
        "passes",
        "written",
        "read",
        "write rate",
        "read rate",
        "errors",
    ]);
    for (b, d) in &beside {
        let Some(r) = d.ran() else { continue };
        t.add_row(vec![
            b.trial.to_string(),
            b.processes.to_string(),
            r.passes.to_string(),
            format_bytes(r.bytes_written),
            format_bytes(r.bytes_read),
            rate(r.write_rate()),
            rate(r.read_rate()),
            if r.failed() {
                format!("FAIL {}", r.verify_errors)
            } else {
                "0".into()
            },
        ]);
    }
    right(&mut t, &[0, 1, 2, 3, 4, 5, 6, 7]);
    let cache = match (&run.direct, &run.cache_note) {
        (true, Some(note)) => format!("read back with O_DIRECT; {note}"),
        (true, None) => "read back with O_DIRECT, past the page cache".to_string(),
        (false, Some(note)) => note.clone(),
        (false, None) => "read back through the page cache".to_string(),
    };
    format!(
        "\ndevez beside each batch: {} ({}, {} in {} blocks); every pass writes every block, \
         syncs, reads it back and checks every byte; {cache}\n{t}\n\n",
        run.device,
        run.target,
        format_bytes(run.size_bytes),
        format_bytes(run.block_bytes),
    )
}

/// "812 MB/s"; "-" when nothing was timed.
fn rate(bytes_per_s: f64) -> String {
    if bytes_per_s > 0.0 {
        format!(
            "{} MB/s",
            crate::report::compare::figures3(bytes_per_s / 1e6)
        )
    } else {
        "-".into()
    }
}

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 90,
        render: stored_tables,
    }
}

/// The exerciser's tables of a stored run (`show`), rebuilt from its results' details;
/// empty when the run has no exercise result.
pub fn stored_tables(run: &Run) -> String {
    Report::from_run(run)
        .map(|r| tables(&r))
        .unwrap_or_default()
}

fn types_section(report: &Report) -> String {
    let mut s = String::new();
    for t in &report.types {
        match &t.state {
            TypeState::Ready {
                trusted_file,
                trusted_bytes,
                setup_real_s,
                ..
            } => s.push_str(&format!(
                "{:<6} ready: trusted {trusted_file} ({trusted_bytes} bytes) in {}\n",
                t.name,
                secs(*setup_real_s)
            )),
            TypeState::Skipped { reason } => {
                s.push_str(&format!("{:<6} skipped: {reason}\n", t.name))
            }
            TypeState::SetupFailed { reason } => {
                s.push_str(&format!("{:<6} SETUP FAILED: {reason}\n", t.name))
            }
        }
    }
    s.push('\n');
    s
}

fn instance_table(b: &Batch) -> String {
    let mut t = new_table(&["instance", "result", "exit", "real", "user", "sys"]);
    for i in &b.instances {
        let result = if i.outcome.passed() { "pass" } else { "FAIL" };
        let exit = match (&i.exit_code, &i.outcome) {
            (Some(c), _) => c.to_string(),
            (None, Outcome::Signalled { name, .. }) => name.clone(),
            _ => "-".into(),
        };
        let mut row = vec![i.name(), result.into(), exit];
        if i.outcome.started() {
            row.extend([secs(i.real_s), secs(i.user_s), secs(i.sys_s)]);
        } else {
            row.extend(["-".into(), "-".into(), "-".into()]);
        }
        t.add_row(row);
    }
    right(&mut t, &[2, 3, 4, 5]);
    t.to_string()
}

fn type_table(b: &Batch) -> String {
    let mut t = new_table(&[
        "type",
        "procs",
        "pass",
        "fail",
        "mean real",
        "user/proc",
        "sys/proc",
    ]);
    for x in b.per_type.iter().chain(std::iter::once(&b.total)) {
        t.add_row(times_row(x));
    }
    right(&mut t, &[1, 2, 3, 4, 5, 6]);
    format!(
        "{t}\nbatch of {} processes: {} elapsed ({} per process)",
        b.processes,
        secs(b.elapsed_s),
        secs(b.elapsed_s / b.processes.max(1) as f64)
    )
}

fn times_row(x: &Times) -> Vec<String> {
    vec![
        x.job.clone(),
        x.processes.to_string(),
        x.passed.to_string(),
        x.failed.to_string(),
        secs(x.mean_real_s),
        secs(x.user_per_process_s),
        secs(x.sys_per_process_s),
    ]
}

/// One row per number of processes and type: the seed's user, system and elapsed time per
/// process against the number of processes.
fn sweep_table(report: &Report) -> String {
    let mut t = new_table(&[
        "procs",
        "type",
        "n",
        "pass",
        "fail",
        "mean real",
        "user/proc",
        "sys/proc",
        "elapsed",
        "elapsed/proc",
    ]);
    for b in &report.batches {
        for x in &b.per_type {
            let mut row = vec![b.processes.to_string()];
            row.extend(times_row(x).into_iter().take(1));
            row.extend(times_row(x).into_iter().skip(1));
            row.extend(["".into(), "".into()]);
            t.add_row(row);
        }
        let mut row = vec![b.processes.to_string()];
        row.extend(times_row(&b.total));
        row.push(secs(b.elapsed_s));
        row.push(secs(b.elapsed_s / b.processes.max(1) as f64));
        t.add_row(row);
    }
    right(&mut t, &[0, 2, 3, 4, 5, 6, 7, 8, 9]);
    format!(
        "{t}\nmean real: elapsed time of one process, start to end; user/proc, sys/proc: \
         CPU time per process; elapsed/proc: the batch's elapsed time over its processes"
    )
}

/// With `--trials`: each trial of each batch, in the order they ran (trial by trial), so
/// a drift over the run shows.
fn each_trial_table(report: &Report) -> String {
    let mut t = new_table(&[
        "trial",
        "procs",
        "pass",
        "fail",
        "elapsed",
        "elapsed/proc",
        "user/proc",
        "sys/proc",
    ]);
    for b in &report.batches {
        t.add_row(vec![
            b.trial.to_string(),
            b.processes.to_string(),
            b.total.passed.to_string(),
            b.total.failed.to_string(),
            secs(b.elapsed_s),
            secs(b.elapsed_s / b.processes.max(1) as f64),
            secs(b.total.user_per_process_s),
            secs(b.total.sys_per_process_s),
        ]);
    }
    right(&mut t, &[0, 1, 2, 3, 4, 5, 6, 7]);
    format!("each trial, in the order they ran:\n{t}")
}

/// With `--trials`: one row per batch, its per-process figures as mean ± SD across the
/// trials — the seed's "average times … with standard deviations".
fn trials_table(report: &Report) -> String {
    let mut t = new_table(&[
        "procs",
        "trials",
        "pass",
        "fail",
        "elapsed/proc",
        "user/proc",
        "sys/proc",
    ]);
    for b in by_batch(&report.batches) {
        let passed: usize = b.trials.iter().map(|x| x.total.passed).sum();
        t.add_row(vec![
            b.processes.to_string(),
            b.trials.len().to_string(),
            passed.to_string(),
            b.failed().to_string(),
            spread(b.real_per_process),
            spread(b.user_per_process),
            spread(b.sys_per_process),
        ]);
    }
    right(&mut t, &[0, 1, 2, 3, 4, 5, 6]);
    format!(
        "mean ± SD of {} trials per batch (SD: sample standard deviation, n − 1):\n{t}\n\
         elapsed/proc: the batch's elapsed time over its processes; user/proc, sys/proc: CPU \
         time per process. A batch with a failed instance in any trial has no figure in the \
         stored run",
        report.trials
    )
}

/// "512 ms ± 12.0 ms".
fn spread(s: Spread) -> String {
    if !s.mean.is_finite() {
        return "-".into();
    }
    format!("{} ± {}", secs(s.mean), secs(s.sd))
}

fn failures(report: &Report) -> String {
    let mut s = String::new();
    for (bi, b) in report.batches.iter().enumerate() {
        if let Some(r) = b.devez.as_ref().and_then(Devez::ran).filter(|r| r.failed()) {
            s.push_str(&format!(
                "FAIL devez beside {}: {} of {} blocks read did not come back as written\n",
                where_batch(report, bi, b),
                r.verify_errors,
                r.bytes_read / r.block_bytes.max(1)
            ));
            for e in &r.errors {
                s.push_str(&format!("  {}\n", e.describe()));
            }
            if r.verify_errors > r.errors.len() as u64 {
                s.push_str(&format!(
                    "  … and {} more\n",
                    r.verify_errors - r.errors.len() as u64
                ));
            }
            if let Some(why) = &r.stopped_by {
                s.push_str(&format!("  stopped: {why}\n"));
            }
        }
        for i in b.instances.iter().filter(|i| !i.outcome.passed()) {
            let at = if report.trials > 1 {
                format!(" (trial {}, batch of {} processes)", b.trial, b.processes)
            } else if report.sweep {
                format!(" (batch {} of {} processes)", bi + 1, b.processes)
            } else {
                String::new()
            };
            s.push_str(&format!(
                "FAIL {}{at}: {}\n",
                i.name(),
                i.outcome.describe()
            ));
            if let Outcome::Mismatch { difference: d, .. } = &i.outcome {
                s.push_str(&format!(
                    "  bytes {}..: expected \"{}\"\n  bytes {}..: actual   \"{}\"\n",
                    d.context_start, d.expected, d.context_start, d.actual
                ));
            }
        }
    }
    s
}

/// Which batch, for a failure: its trial and size when there are several.
fn where_batch(report: &Report, index: usize, b: &Batch) -> String {
    if report.trials > 1 {
        format!("trial {}, batch of {} processes", b.trial, b.processes)
    } else if report.sweep {
        format!("batch {} of {} processes", index + 1, b.processes)
    } else {
        format!("the batch of {} processes", b.processes)
    }
}

/// "summary: PASS — 8 passed, 0 failed; 1 job type skipped (chess)".
pub fn summary_line(report: &Report) -> String {
    let verdict = if report.failed > 0 || report.devez_failed() > 0 {
        "FAIL"
    } else if report.passed == 0 {
        "NOTHING CHECKED"
    } else {
        "PASS"
    };
    let skipped: Vec<&str> = report
        .types
        .iter()
        .filter(|t| matches!(t.state, TypeState::Skipped { .. }))
        .map(|t| t.name.as_str())
        .collect();
    let skipped = if skipped.is_empty() {
        "0 job types skipped".to_string()
    } else {
        format!(
            "{} job type{} skipped ({})",
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" },
            skipped.join(", ")
        )
    };
    format!(
        "summary: {verdict} — {} passed, {} failed; {skipped}{}",
        report.passed,
        report.failed,
        devez_summary(report)
    )
}

/// "; devez: 3 passes, 0 verify errors" (or skipped, with why); empty without `--devez`.
fn devez_summary(report: &Report) -> String {
    let records: Vec<&Devez> = report
        .batches
        .iter()
        .filter_map(|b| b.devez.as_ref())
        .collect();
    let Some(first) = records.first() else {
        return String::new();
    };
    if let Devez::Skipped { target, .. } = first {
        return format!("; devez ({target}) skipped");
    }
    let runs: Vec<_> = records.iter().filter_map(|d| d.ran()).collect();
    let passes: u64 = runs.iter().map(|r| r.passes).sum();
    let errors: u64 = runs.iter().map(|r| r.verify_errors).sum();
    let stopped = runs.iter().filter(|r| r.stopped_by.is_some()).count();
    format!(
        "; devez: {passes} pass{}, {errors} verify error{}{}",
        if passes == 1 { "" } else { "es" },
        if errors == 1 { "" } else { "s" },
        if stopped > 0 {
            format!(", stopped early beside {stopped} batch(es)")
        } else {
            String::new()
        }
    )
}

/// Seconds for display; an exact zero (a share of CPU time below the clock tick) as "0".
pub(super) fn secs(s: f64) -> String {
    if s == 0.0 {
        "0".into()
    } else {
        unit::format_seconds(s)
    }
}
