//! Terminal tables: a run, the benchmark list, the environment record.

use comfy_table::{Cell, CellAlignment, ContentArrangement, Table};

use crate::harness::contract::{Benchmark, Derived};
use crate::model::unit::{format_seconds, format_value};
use crate::model::Overhead;
use crate::model::{BenchResult, Environment, Run, RunStatus, Status};

/// Rules above and below the table and under the header only: rows stay dense enough
/// to scan a family at a glance.
const RULES: &str = "  ── ──      ──    ";

/// A table that wraps to the terminal's width when printed to one, and not otherwise.
/// An empty header gives a headerless key/value table.
pub fn new_table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(RULES)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if !header.is_empty() {
        t.set_header(header.iter().map(Cell::new));
    }
    t
}

/// Right-align the numeric columns `cols`.
pub fn right(t: &mut Table, cols: &[usize]) {
    for &c in cols {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// The run: one row per benchmark with its median per operation, the 95% confidence
/// interval of the median, SD, samples (culled) and status. `wide` adds seed 001 Table
/// 2's elapsed, user and system time per operation and what the kernel counted (context
/// switches and this process's page faults per operation).
pub fn run_table(run: &Run, overhead: &Overhead, wide: bool) -> String {
    let mut header = vec!["benchmark", "median", "95% CI", "SD", "samples"];
    if wide {
        header.extend(["elapsed/op", "user/op", "sys/op", "ctxsw/op", "faults/op"]);
    }
    header.push("notes");
    let mut t = new_table(&header);
    for r in &run.results {
        let mut row = result_row(r);
        if wide {
            let notes = row.pop().unwrap_or_default();
            row.extend(wide_cells(r));
            row.push(notes);
        }
        t.add_row(row);
    }
    let numeric: Vec<usize> = (1..header.len() - 1).collect();
    right(&mut t, &numeric);
    let mut out = String::new();
    out.push_str(&format!(
        "timeshare {} · {} mode · {} · {} × {} · kernel {}\n",
        run.tool.version,
        format!("{:?}", run.options.mode).to_lowercase(),
        run.environment.hostname,
        run.environment.cpu.logical,
        run.environment.cpu.model,
        run.environment.kernel.release,
    ));
    if overhead.clock_s.is_finite() {
        out.push_str(&format!(
            "clock read {} per sample and empty loop {} per op subtracted; medians of clean \
             samples\n",
            format_seconds(overhead.clock_s),
            format_seconds(overhead.per_iter_s),
        ));
    } else {
        // A run of whole jobs timed by their own processes (the exerciser's): nothing was
        // calibrated, so nothing was subtracted.
        out.push_str("whole jobs, timed once each: no clock or loop overhead subtracted\n");
    }
    out.push_str(&t.to_string());
    out.push('\n');
    out.push_str(&summary_line(run));
    out
}

/// Elapsed, user, system per op and counters per op; blank where not measured.
fn wide_cells(r: &BenchResult) -> Vec<String> {
    let (Some(times), Some(c)) = (&r.times, &r.counters) else {
        return vec![String::new(); 5];
    };
    let per_op = |v: u64| {
        let x = v as f64 / times.ops.max(1) as f64;
        if x >= 10.0 {
            format!("{x:.0}")
        } else if x >= 0.01 {
            format!("{x:.2}")
        } else {
            format!("{x:.1e}")
        }
    };
    vec![
        format_seconds(times.elapsed_s),
        format_seconds(times.user_s),
        format_seconds(times.system_s),
        per_op(c.context_switches),
        per_op(c.self_minor_faults + c.self_major_faults),
    ]
}

fn result_row(r: &BenchResult) -> Vec<String> {
    match (&r.status, &r.summary) {
        (Status::Ok, Some(s)) => {
            let mut notes = Vec::new();
            if r.derived {
                notes.push("derived".to_string());
            }
            if r.below_resolution {
                notes.push("below resolution (raw figure)".to_string());
            }
            notes.extend(
                r.notes
                    .iter()
                    .filter(|n| !n.starts_with("below resolution") && !n.starts_with("derived"))
                    .cloned(),
            );
            // One figure (a derived row, a job timed once) has no spread to show.
            let single = r.derived || s.n < 2;
            let ci = if single {
                String::new()
            } else {
                format!("±{:.1}%", s.relative_ci() * 100.0)
            };
            let samples = if r.derived {
                String::new()
            } else if r.culled > 0 {
                format!("{} ({} culled)", r.samples.len(), r.culled)
            } else {
                r.samples.len().to_string()
            };
            vec![
                r.id.clone(),
                format_value(s.median, r.unit),
                ci,
                if single {
                    String::new()
                } else {
                    format_value(s.sd, r.unit)
                },
                samples,
                notes.join("; "),
            ]
        }
        (Status::Skipped { reason }, _) => {
            vec![
                r.id.clone(),
                "—".into(),
                "".into(),
                "".into(),
                "".into(),
                format!("skipped: {reason}"),
            ]
        }
        (Status::Failed { error }, _) => {
            vec![
                r.id.clone(),
                "—".into(),
                "".into(),
                "".into(),
                "".into(),
                format!("FAILED: {error}"),
            ]
        }
        (Status::Ok, None) => vec![
            r.id.clone(),
            "—".into(),
            "".into(),
            "".into(),
            "".into(),
            "no figure".into(),
        ],
    }
}

fn summary_line(run: &Run) -> String {
    let count = |f: fn(&Status) -> bool| run.results.iter().filter(|r| f(&r.status)).count();
    let ok = count(|s| matches!(s, Status::Ok));
    let skipped = count(|s| matches!(s, Status::Skipped { .. }));
    let failed = count(|s| matches!(s, Status::Failed { .. }));
    let secs = run
        .finished_at
        .map(|f| (f - run.started_at).num_milliseconds() as f64 / 1000.0)
        .unwrap_or(0.0);
    let state = match run.status {
        RunStatus::Interrupted => " — INTERRUPTED, partial results",
        _ => "",
    };
    format!("{ok} ok, {skipped} skipped, {failed} failed in {secs:.1} s{state}\n")
}

/// `timeshare list`: id, what it measures, where it comes from.
pub fn list_table(benches: &[&Benchmark], derived: &[&Derived]) -> String {
    let mut t = new_table(&["id", "measures", "source"]);
    for b in benches {
        t.add_row(vec![
            b.id().to_string(),
            b.about().to_string(),
            b.source().describe(),
        ]);
    }
    for d in derived {
        t.add_row(vec![
            d.id.to_string(),
            format!("{} (derived from {})", d.about, d.inputs.join(", ")),
            d.source.describe(),
        ]);
    }
    format!("{t}\n{} benchmarks\n", benches.len() + derived.len())
}

/// Binary sizes as caches are quoted: KiB, MiB or GiB.
pub fn format_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 => format!("{:.0} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

/// `timeshare sysinfo`.
pub fn sysinfo_table(env: &Environment, warnings: &[String]) -> String {
    let mut t = new_table(&[]);
    let gib = |b: u64| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64);
    let caches = env
        .cpu
        .caches
        .iter()
        .map(|c| {
            format!(
                "L{} {} {} (shared by {} CPU{})",
                c.level,
                c.kind.to_lowercase(),
                format_bytes(c.size_bytes),
                c.shared_by,
                if c.shared_by == 1 { "" } else { "s" }
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let vulnerable: Vec<String> = env
        .mitigations
        .iter()
        .filter(|(_, v)| v.starts_with("Vulnerable"))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    let rows: Vec<(&str, String)> = vec![
        ("host", env.hostname.clone()),
        (
            "kernel",
            format!(
                "{} {} {}",
                env.kernel.sysname, env.kernel.release, env.kernel.machine
            ),
        ),
        ("cpu", env.cpu.model.clone()),
        (
            "cpus",
            format!(
                "{} online, {} usable by this process",
                env.cpu.logical, env.cpu.usable
            ),
        ),
        (
            "clock rate",
            env.cpu
                .mhz
                .map(|m| format!("{m:.0} MHz"))
                .unwrap_or_else(|| "unknown".into()),
        ),
        (
            "caches",
            if caches.is_empty() {
                "unknown".into()
            } else {
                caches
            },
        ),
        (
            "memory",
            format!("{} (swap {})", gib(env.memory_bytes), gib(env.swap_bytes)),
        ),
        (
            "clock source",
            env.clocksource.clone().unwrap_or_else(|| "unknown".into()),
        ),
        (
            "governor",
            env.governor.clone().unwrap_or_else(|| "not exposed".into()),
        ),
        (
            "virtualization",
            env.virtualization
                .clone()
                .unwrap_or_else(|| "none detected".into()),
        ),
        (
            "container",
            env.container
                .clone()
                .unwrap_or_else(|| "none detected".into()),
        ),
        (
            "cpu quota",
            env.cpu_quota.clone().unwrap_or_else(|| "none".into()),
        ),
        (
            "mitigations",
            format!(
                "{} entries, {}",
                env.mitigations.len(),
                if vulnerable.is_empty() {
                    "none vulnerable".into()
                } else {
                    vulnerable.join("; ")
                }
            ),
        ),
        (
            "work directory",
            format!(
                "{} on {} ({}){}",
                env.workdir.path,
                env.workdir.fs_type,
                env.workdir.device,
                if env.workdir.memory_backed {
                    ", memory-backed"
                } else {
                    ""
                }
            ),
        ),
        (
            "privileged",
            if env.privileged {
                "yes (root)".into()
            } else {
                format!("no (uid {})", env.uid)
            },
        ),
        (
            "busy processes",
            if env.busy_processes.is_empty() {
                "none".into()
            } else {
                env.busy_processes.join(", ")
            },
        ),
        (
            "load average",
            format!(
                "{:.2} {:.2} {:.2}",
                env.load_average[0], env.load_average[1], env.load_average[2]
            ),
        ),
    ];
    for (k, v) in rows {
        t.add_row(vec![k.to_string(), v]);
    }
    let mut out = format!("{t}\n");
    for w in warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_read_as_people_quote_them() {
        assert_eq!(format_bytes(48 * 1024), "48 KiB");
        assert_eq!(format_bytes(2048 * 1024), "2 MiB");
        assert_eq!(format_bytes(266_240 * 1024), "260 MiB");
    }
}
