//! Seed 001 Table 2's shape for the micro-operation families (`signal`, `pipe`, `udg`,
//! `proc`): elapsed, user and system time per operation, plus what a long-lived partner
//! process spent (it is reaped only after sampling, so getrusage of reaped children
//! cannot include it), context switches per operation and where the processes ran.

use crate::model::details::micro::Partnership;
use crate::model::unit::format_seconds;
use crate::model::{BenchResult, Run};
use crate::report::table::{new_table, right};

const FAMILIES: &[&str] = &["signal", "pipe", "udg", "proc"];

pub fn table(run: &Run) -> String {
    let rows: Vec<&BenchResult> = run
        .results
        .iter()
        .filter(|r| FAMILIES.contains(&r.family.as_str()) && r.status.is_ok() && !r.derived)
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "001 Table 2 per op",
        "elapsed",
        "user",
        "system",
        "partner user+sys",
        "csw/op",
        "placement",
    ]);
    for r in rows {
        t.add_row(row(r));
    }
    right(&mut t, &[1, 2, 3, 4, 5]);
    format!(
        "Micro-operations per operation (user and system include reaped children; a \
         partner process's own CPU time is shown apart):\n{t}\n"
    )
}

fn row(r: &BenchResult) -> Vec<String> {
    // Throughput rows too: their operation is one whole transfer.
    let per_op = format_seconds;
    let (elapsed, user, system, ops) = match &r.times {
        Some(t) => (
            per_op(t.elapsed_s),
            per_op(t.user_s),
            per_op(t.system_s),
            t.ops,
        ),
        None => (String::new(), String::new(), String::new(), 0),
    };
    // Every two-process record flattens its partnership; one-process rows have none.
    let partnership = r.details_as::<Partnership>();
    let partner = partnership
        .as_ref()
        .and_then(|p| p.child_cpu_time.as_ref())
        .map(|c| format_seconds(c.user_s_per_op + c.system_s_per_op))
        .unwrap_or_default();
    let csw = match (&r.counters, ops) {
        (Some(c), n) if n > 0 => format!("{:.1}", c.context_switches as f64 / n as f64),
        _ => String::new(),
    };
    let placement = partnership
        .map(|p| p.placement.name().to_string())
        .unwrap_or_else(|| "—".into());
    vec![r.id.clone(), elapsed, user, system, partner, csw, placement]
}
