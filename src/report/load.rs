//! The `load` family's tables, shaped like seed 000's: Table 9 (copies of a compute-bound
//! program: real, CPU, Inc and the knee), Table 10 (command scripts: real, CPU, Inc),
//! Attachment C (per-command accounting, one table per number of users) and Table 11
//! (user CPU beside readers: ratio alone, bytes per µs). Rendering only: everything comes
//! from the results' `details`.

use serde_json::Value;

use super::table::{new_table, right};
use crate::model::knee;
use crate::model::unit::format_seconds;
use crate::model::{BenchResult, Run, Status};

pub fn tables(run: &Run) -> String {
    [table9, table10, attachment_c, table11]
        .iter()
        .map(|f| f(run))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn rows<'a>(run: &'a Run, prefix: &str) -> Vec<&'a BenchResult> {
    let mut v: Vec<&BenchResult> = run
        .results
        .iter()
        .filter(|r| r.id.starts_with(prefix) && r.id[prefix.len()..].parse::<usize>().is_ok())
        .collect();
    v.sort_by_key(|r| r.id[prefix.len()..].parse::<usize>().unwrap_or(0));
    v
}

fn f(d: &Value, key: &str) -> Option<f64> {
    d.get(key).and_then(Value::as_f64)
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

fn n_of(r: &BenchResult) -> String {
    r.id.rsplit('.').next().unwrap_or("").to_string()
}

/// Table 9: # execs, average real, the copies' spread, user, system, total CPU, Inc.
fn table9(run: &Run) -> String {
    let rs = rows(run, "load.cpu.");
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
    for r in &rs {
        let d = r
            .details
            .as_ref()
            .map(|d| d.json().clone())
            .unwrap_or(Value::Null);
        let n: usize = n_of(r).parse().unwrap_or(0);
        if let (Some(inc), true) = (f(&d, "inc"), r.status.is_ok()) {
            points.push((n, inc));
        }
        let spread = match (f(&d, "min_real_s"), f(&d, "max_real_s")) {
            (Some(a), Some(b)) => format!("{}–{}", format_seconds(a), format_seconds(b)),
            _ => "—".into(),
        };
        t.add_row(vec![
            n.to_string(),
            secs(f(&d, "avg_real_s")),
            spread,
            secs(f(&d, "total_user_s")),
            secs(f(&d, "total_system_s")),
            secs(f(&d, "total_cpu_s")),
            if n == 1 {
                String::new()
            } else {
                ratio(f(&d, "inc"))
            },
            status(r),
        ]);
    }
    right(&mut t, &[0, 1, 2, 3, 4, 5, 6]);
    let footprint = rs
        .iter()
        .find_map(|r| {
            r.details
                .as_ref()
                .and_then(|d| d["footprint_bytes"].as_u64())
        })
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
    let rs = rows(run, "load.script.");
    if rs.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "scripts", "real", "CPU", "Inc", "stagger", "failures", "status",
    ]);
    let mut script = String::new();
    for r in &rs {
        let d = r
            .details
            .as_ref()
            .map(|d| d.json().clone())
            .unwrap_or(Value::Null);
        if let Some(s) = d["script"].as_str() {
            script = s.to_string();
        }
        let failures = d["failures"].as_u64().unwrap_or(0);
        let clean = d["clean"].as_bool().unwrap_or(false);
        t.add_row(vec![
            n_of(r),
            secs(f(&d, "avg_real_s")),
            secs(f(&d, "avg_cpu_s")),
            if n_of(r) == "1" || !clean {
                String::new()
            } else {
                ratio(f(&d, "inc"))
            },
            secs(f(&d, "stagger_s").filter(|s| *s > 0.0)),
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
    for r in rows(run, "load.script.") {
        let Some(d) = &r.details else { continue };
        let Some(cmds) = d["commands"].as_array() else {
            continue;
        };
        let mut t = new_table(&[
            "command", "count", "%", "avg real", "%", "avg CPU", "%", "real/CPU", "failed",
            "missing",
        ]);
        let (mut n, mut failed, mut missing) = (0, 0, 0);
        for c in cmds {
            let count = c["count"].as_u64().unwrap_or(0);
            let fl = c["failed"].as_u64().unwrap_or(0);
            let ms = c["missing"].as_u64().unwrap_or(0);
            let absent = c["absent"].as_u64().unwrap_or(0);
            n += count;
            failed += fl;
            missing += ms;
            let pct = |k: &str| format!("{:.1}%", f(c, k).unwrap_or(0.0));
            let mut failed_cell = if fl > 0 {
                format!("{fl} FAILED")
            } else {
                String::new()
            };
            if let (true, Some(e)) = (fl > 0, c["first_error"].as_str()) {
                failed_cell.push_str(&format!(" ({e})"));
            }
            t.add_row(vec![
                c["command"].as_str().unwrap_or("?").to_string(),
                if count == 0 && absent > 0 {
                    format!("absent ×{absent}")
                } else {
                    count.to_string()
                },
                pct("count_pct"),
                secs(f(c, "avg_real_s")),
                pct("real_pct"),
                secs(f(c, "avg_cpu_s")),
                pct("cpu_pct"),
                c["real_per_cpu"]
                    .as_f64()
                    .map(|x| format!("{x:.1}"))
                    .unwrap_or_else(|| "—".into()),
                failed_cell,
                if ms > 0 {
                    format!("{ms} MISSING")
                } else {
                    String::new()
                },
            ]);
        }
        right(&mut t, &[1, 2, 3, 4, 5, 6, 7]);
        let runs = d["runs"].as_u64().unwrap_or(0);
        out.push_str(&format!(
            "Attachment C (seed 000): {} script(s) '{}', summation of {runs} run(s): \
             {n} commands, {failed} failed, {missing} missing\n{t}\n",
            n_of(r),
            d["script"].as_str().unwrap_or("?"),
        ));
    }
    out
}

/// Table 11: user CPU of the compute-bound program beside K readers.
fn table11(run: &Run) -> String {
    let rs = rows(run, "load.iointerference.");
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
    for r in &rs {
        let d = r
            .details
            .as_ref()
            .map(|d| d.json().clone())
            .unwrap_or(Value::Null);
        if let Some(c) = d["cache"].as_str().filter(|c| *c != "no readers") {
            cache = c.to_string();
        }
        let k = n_of(r);
        t.add_row(vec![
            if k == "0" { "alone".into() } else { k.clone() },
            secs(f(&d, "user_s")),
            if k == "0" {
                String::new()
            } else {
                ratio(f(&d, "ratio_alone"))
            },
            f(&d, "bytes_per_us")
                .map(|x| format!("{x:.0}"))
                .unwrap_or_else(|| "—".into()),
            secs(f(&d, "real_s")),
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
