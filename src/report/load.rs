//! The `load` family's tables, shaped like seed 000's: Table 9 (copies of a compute-bound
//! program: real, CPU, Inc and the knee), Table 10 (command scripts: real, CPU, Inc),
//! Attachment C (per-command accounting, one table per number of users) and Table 11
//! (user CPU beside readers: ratio alone, bytes per µs). Rendering only: everything comes
//! from the results' `details`.

use super::table::{new_table, right};
use super::views::{load, PerN};
use crate::model::details::load::CopiesSummary;
use crate::model::knee;
use crate::model::unit::format_seconds;
use crate::model::{BenchResult, Run, Status};

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 70,
        render: tables,
    }
}

pub fn tables(run: &Run) -> String {
    [table9, table10, attachment_c, table11]
        .iter()
        .map(|f| f(run))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn secs(v: Option<f64>) -> String {
    v.map(format_seconds).unwrap_or_else(|| "—".into())
}

fn ratio(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "—".into())
}

fn status(r: &BenchResult) -> String {
    match &r.status {
        Status::Ok => "ok".into(),
        Status::Skipped { reason } => format!("skipped: {reason}"),
        Status::Failed { error } => format!("FAILED: {error}"),
    }
}

/// Table 9: # execs, average real, the copies' spread, user, system, total CPU, Inc.
fn table9(run: &Run) -> String {
    let rs = load::copies(run);
    if rs.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "copies",
        "avg real",
        "min–max real",
        "user",
        "sys",
        "CPU",
        "Inc",
        "status",
    ]);
    let mut points = Vec::new();
    let mut footprint = None;
    for PerN {
        n,
        result: r,
        details,
    } in rs
    {
        footprint = footprint.or(details.as_ref().map(|d| d.footprint_bytes));
        let sum = details.and_then(|d| d.summary);
        if let (Some(inc), true) = (sum.as_ref().and_then(|s| s.inc), r.status.is_ok()) {
            points.push((n, inc));
        }
        let pick = |f: fn(&CopiesSummary) -> f64| sum.as_ref().map(f);
        let spread = match &sum {
            Some(s) => format!(
                "{}–{}",
                format_seconds(s.min_real_s),
                format_seconds(s.max_real_s)
            ),
            None => "—".into(),
        };
        t.add_row(vec![
            n.to_string(),
            secs(pick(|s| s.avg_real_s)),
            spread,
            secs(pick(|s| s.total_user_s)),
            secs(pick(|s| s.total_system_s)),
            secs(pick(|s| s.total_cpu_s)),
            if n == 1 {
                String::new()
            } else {
                ratio(sum.as_ref().and_then(|s| s.inc))
            },
            status(r),
        ]);
    }
    right(&mut t, &[0, 1, 2, 3, 4, 5, 6]);
    let footprint = footprint
        .map(|b| format!("{} MiB", b >> 20))
        .unwrap_or_else(|| "?".into());
    let knee = knee::knee(&points)
        .map(|k| format!("{}\n", k.statement))
        .unwrap_or_default();
    format!(
        "Table 9 (seed 000): N copies of a compute-bound program, {footprint} each; \
         CPU = user + system of all copies; Inc = avg real / real of one copy\n{t}\n{knee}"
    )
}

/// Table 10: # scripts, average real and CPU per script, Inc, failures.
fn table10(run: &Run) -> String {
    let rs = load::scripts(run);
    if rs.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "scripts", "real", "CPU", "Inc", "stagger", "failures", "status",
    ]);
    let mut script = String::new();
    for PerN {
        n,
        result: r,
        details: d,
    } in &rs
    {
        if let Some(d) = &d {
            script = d.script.clone();
        }
        let failures = d.as_ref().map_or(0, |d| d.failures);
        let clean = d.as_ref().is_some_and(|d| d.clean);
        let sum = d.as_ref().and_then(|d| d.summary.as_ref());
        t.add_row(vec![
            n.to_string(),
            secs(sum.map(|s| s.avg_real_s)),
            secs(sum.map(|s| s.avg_cpu_s)),
            if *n == 1 || !clean {
                String::new()
            } else {
                ratio(sum.and_then(|s| s.inc))
            },
            secs(d.as_ref().map(|d| d.stagger_s).filter(|s| *s > 0.0)),
            if failures > 0 {
                format!("{failures} FAILED")
            } else {
                "0".into()
            },
            status(r),
        ]);
    }
    right(&mut t, &[0, 1, 2, 3, 4, 5]);
    format!(
        "Table 10 (seed 000): N users running the command script '{script}', staggered \
         starts; real and CPU per script; no Inc for a run with failures\n{t}\n"
    )
}

/// Attachment C: per-command accounting, one table per number of users.
fn attachment_c(run: &Run) -> String {
    let mut out = String::new();
    for PerN {
        n: users, details, ..
    } in load::scripts(run)
    {
        let Some(d) = details else {
            continue;
        };
        let mut t = new_table(&[
            "command", "count", "%", "avg real", "%", "avg CPU", "%", "real/CPU", "failed",
            "missing",
        ]);
        let (mut n, mut failed, mut missing) = (0, 0, 0);
        for c in &d.commands {
            n += c.count;
            failed += c.failed;
            missing += c.missing;
            let pct = |v: f64| format!("{v:.1}%");
            failed += c.timed_out;
            let mut failed_cell = match (c.failed, c.timed_out) {
                (0, 0) => String::new(),
                (f, 0) => format!("{f} FAILED"),
                (0, t) => format!("{t} TIMED OUT"),
                (f, t) => format!("{f} FAILED, {t} TIMED OUT"),
            };
            if let (true, Some(e)) = (c.failed + c.timed_out > 0, &c.first_error) {
                failed_cell.push_str(&format!(" ({e})"));
            }
            t.add_row(vec![
                c.command.clone(),
                if c.count == 0 && c.absent > 0 {
                    format!("absent ×{}", c.absent)
                } else {
                    c.count.to_string()
                },
                pct(c.count_pct),
                secs(Some(c.avg_real_s)),
                pct(c.real_pct),
                secs(Some(c.avg_cpu_s)),
                pct(c.cpu_pct),
                c.real_per_cpu
                    .map(|x| format!("{x:.1}"))
                    .unwrap_or_else(|| "—".into()),
                failed_cell,
                if c.missing > 0 {
                    format!("{} MISSING", c.missing)
                } else {
                    String::new()
                },
            ]);
        }
        right(&mut t, &[1, 2, 3, 4, 5, 6, 7]);
        out.push_str(&format!(
            "Attachment C (seed 000): {} script(s) '{}', summation of {} run(s): \
             {n} commands, {failed} failed, {missing} missing\n{t}\n",
            users, d.script, d.runs,
        ));
    }
    out
}

/// Table 11: user CPU of the compute-bound program beside K readers.
fn table11(run: &Run) -> String {
    let rs = load::readers(run);
    if rs.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "readers",
        "usr CPU",
        "ratio alone",
        "bytes/µs",
        "real",
        "status",
    ]);
    let mut cache = String::new();
    for PerN {
        n: k,
        result: r,
        details: d,
    } in &rs
    {
        if let Some(c) = d.as_ref().map(|d| &d.cache).filter(|c| *c != "no readers") {
            cache = c.clone();
        }
        t.add_row(vec![
            if *k == 0 {
                "alone".into()
            } else {
                k.to_string()
            },
            secs(d.as_ref().map(|d| d.user_s)),
            if *k == 0 {
                String::new()
            } else {
                ratio(d.as_ref().and_then(|d| d.ratio_alone))
            },
            d.as_ref()
                .map(|d| format!("{:.0}", d.bytes_per_us))
                .unwrap_or_else(|| "—".into()),
            secs(d.as_ref().map(|d| d.real_s)),
            status(r),
        ]);
    }
    right(&mut t, &[0, 1, 2, 3, 4]);
    let cache = if cache.is_empty() {
        String::new()
    } else {
        format!("readers: {cache}\n")
    };
    format!(
        "Table 11 (seed 000): user CPU of a compute-bound program alone and beside K \
         sequential readers; ratio alone = usr CPU alone / usr CPU with readers\n{t}\n{cache}"
    )
}

/// "configuration tmp=tmpfs: scratch on a tmpfs …", for a run of a `--configs` sweep.
pub fn configuration_line(run: &Run) -> Option<String> {
    let o = &run.options.load;
    let name = o.configuration.as_deref()?;
    Some(match &o.configuration_note {
        Some(note) => format!(
            "configuration {}: {}\n",
            super::style::escape(name),
            super::style::escape(note)
        ),
        None => format!("configuration {}\n", super::style::escape(name)),
    })
}
