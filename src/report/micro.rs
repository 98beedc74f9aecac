//! Seed 001 Table 2's shape for the micro-operation families (`signal`, `pipe`, `udg`,
//! `proc`): the time per operation, user and system CPU time per operation, plus what a
//! long-lived partner process spent (it is reaped only after sampling, so getrusage of
//! reaped children cannot include it), context switches per operation and where the
//! processes ran.
//!
//! The time per operation is the main table's figure, the median of the clean samples
//! with the clock and loop overhead subtracted: one row has one time per operation. (The
//! mean over every sample, culled ones included, once printed here as "elapsed", differed
//! from it by up to three times on a busy machine.) The CPU columns are per operation over
//! every timed sample, culled ones included, and are named for whose CPU they count.

use crate::model::details::micro::Partnership;
use crate::model::unit::format_seconds;
use crate::model::{BenchResult, Run};
use crate::report::table::{new_table, right};

const FAMILIES: &[&str] = &["signal", "pipe", "udg", "proc"];

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 10,
        render: table,
    }
}

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
        "median",
        "our user",
        "our system",
        "partner CPU",
        "csw/op",
        "placement",
    ]);
    for r in rows {
        t.add_row(row(r, run.environment.cpu.mhz));
    }
    right(&mut t, &[1, 2, 3, 4, 5]);
    format!(
        "Micro-operations, per operation. median: the main table's figure. our user, our \
         system: CPU time of timeshare's measuring process and the children it reaped \
         (a forked or exec'd child), over every timed sample, culled ones too. partner CPU: \
         user + system of a long-lived partner process (the other end of a pipe or \
         socket), which those do not include. csw/op: context switches, machine-wide.\n{t}\n"
    )
}

fn row(r: &BenchResult, mhz: Option<f64>) -> Vec<String> {
    // Throughput rows too: their operation is one whole transfer.
    let per_op = format_seconds;
    let (user, system, ops) = match &r.times {
        Some(t) => (per_op(t.user_s), per_op(t.system_s), t.ops),
        None => (String::new(), String::new(), 0),
    };
    // The headline as the main table shows it: a bound where it is not resolved.
    let median = match crate::model::resolution::shown_stored(r, mhz) {
        Some(s) => crate::report::table::bound_text(s)
            .or_else(|| {
                r.median()
                    .map(|m| crate::model::unit::format_value(m, r.unit))
            })
            .unwrap_or_default(),
        None => r
            .median()
            .map(|m| crate::model::unit::format_value(m, r.unit))
            .unwrap_or_default(),
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
    vec![r.id.clone(), median, user, system, partner, csw, placement]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, OpTimes, Status, Summary, Unit};

    #[test]
    fn a_row_has_one_time_per_operation_the_main_table_s() {
        // The mean over every sample (culled ones too) three times the median, as a busy
        // machine makes it: the table shows the median, and names whose CPU it counts.
        let mut r = BenchResult::new(
            "proc.exec.null.0",
            "proc",
            "fixture",
            Unit::SecondsPerOp,
            Better::Lower,
            None,
        );
        r.status = Status::Ok;
        r.summary = Some(Summary::around(208e-6, 4e-6));
        r.times = Some(OpTimes {
            ops: 100,
            elapsed_s: 628e-6,
            user_s: 120e-6,
            system_s: 80e-6,
        });
        let text = table(&Run::of(vec![r]));
        assert!(text.contains("208 µs"), "{text}");
        assert!(!text.contains("628"), "{text}");
        assert!(
            text.contains("our user") && text.contains("measuring process"),
            "{text}"
        );
    }
}
