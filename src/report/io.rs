//! The `io` and `fs` rows the way the seeds printed them: 000 Table 5's µs per (16-bit)
//! word beside MB/s and ns per byte, what the page cache did for each row, and the
//! per-operation percentiles of the latency rows.

use super::table::{new_table, right};
use crate::model::details::io::{Latency, OpRecord, Through};
use crate::model::unit::format_seconds;
use crate::model::{BenchResult, Run, Unit};

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 60,
        render: io_table,
    }
}

pub fn io_table(run: &Run) -> String {
    let rows: Vec<&BenchResult> = run
        .results
        .iter()
        .filter(|r| matches!(r.family.as_str(), "io" | "fs") && r.status.is_ok())
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "benchmark",
        "measured through",
        "fsync",
        "MB/s",
        "ns/byte",
        "µs/word",
        "p50",
        "p99",
    ]);
    for r in &rows {
        t.add_row(row(r));
    }
    right(&mut t, &[3, 4, 5, 6, 7]);
    let w = &run.environment.workdir;
    let mut out = format!(
        "Files and disks (seed 000 Table 5, 003 kt5/kt6/Zilog, 001 §3.2.2): files in {} \
         on {} ({}{})\n",
        w.path,
        w.fs_type,
        w.device,
        if w.memory_backed {
            ", memory-backed: today's memory-simulated disk"
        } else {
            ""
        },
    );
    out.push_str(&t.to_string());
    out.push('\n');
    out.push_str(
        "µs/word: 000's unit, time per 16-bit word (bytes / 2); p50, p99: per operation, \
         from a separate timed pass\n",
    );
    if let Some(lsl) = super::views::fs::lsl(&rows) {
        if let Some(m) = lsl.median() {
            out.push_str(&format!(
                "fs.lsl: {} per entry of the 600 (001 §4.1.1: 22.3 s of system time before \
                 the name cache, 3.3 s after, for the whole ls -l)\n",
                format_seconds(m / 600.0)
            ));
        }
    }
    out
}

/// Three significant figures, for µs/word values from 0.0001 to 100.
fn sig3(v: f64) -> String {
    let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 8) as usize;
    format!("{v:.decimals$}")
}

fn row(r: &BenchResult) -> Vec<String> {
    // Every row of the two families is an operation record that flattens `Through`.
    let d = r.details_as::<OpRecord<Through>>();
    let through = d.as_ref().map(|d| &d.facts);
    let latency = d.as_ref().and_then(|d| d.latency.as_ref()?.measured());
    let secs =
        |pick: fn(&Latency) -> f64| latency.map(|l| format_seconds(pick(l))).unwrap_or_default();
    let (mbs, ns_byte, us_word) = match (r.unit, r.median()) {
        (Unit::BytesPerSecond, Some(bps)) if bps > 0.0 => (
            format!("{:.1}", bps / 1e6),
            format!("{:.3}", 1e9 / bps),
            sig3(2e6 / bps),
        ),
        _ => Default::default(),
    };
    vec![
        r.id.clone(),
        through.map(|t| t.cache.clone()).unwrap_or_default(),
        through.and_then(|t| t.fsync.clone()).unwrap_or_default(),
        mbs,
        ns_byte,
        us_word,
        secs(|l| l.p50_s),
        secs(|l| l.p99_s),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_three_figures() {
        assert_eq!(sig3(15.23), "15.2");
        assert_eq!(sig3(0.019_66), "0.0197");
        assert_eq!(sig3(0.000_123_4), "0.000123");
    }

    #[test]
    fn a_run_without_io_rows_adds_nothing() {
        let run: Run = serde_json::from_value(serde_json::json!({
            "schema_version": 1,
            "tool": {"name": "timeshare", "version": "0"},
            "options": {"mode": "quick", "selection": [], "cpu": null, "placement": "free", "label": null},
            "environment": serde_json::to_value(crate::model::Environment::default()).unwrap(),
            "started_at": "2026-01-01T00:00:00Z",
            "finished_at": null,
            "status": "complete",
            "warnings": [],
            "results": [],
        }))
        .unwrap();
        assert_eq!(io_table(&run), "");
    }
}
