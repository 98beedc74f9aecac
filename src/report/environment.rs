//! The environment record as people read it: `timeshare sysinfo`'s table and the lines
//! the HTML report shows.

use super::table::new_table;
use crate::model::unit::format_bytes;
use crate::model::Environment;

/// `timeshare sysinfo`.
pub fn sysinfo_table(env: &Environment, warnings: &[String]) -> String {
    let mut t = new_table(&[]);
    for (k, v) in environment_rows(env) {
        t.add_row(vec![k.to_string(), v]);
    }
    let mut out = format!("{t}\n");
    for w in warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

/// The environment record as (what, value) lines: `sysinfo`'s table and the HTML report's.
pub fn environment_rows(env: &Environment) -> Vec<(&'static str, String)> {
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
    let rows: Vec<(&'static str, String)> = vec![
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
        ("clock source", clock_source(env)),
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
    rows
}

/// The clock source, and how its monotonic clock's rate compared with the raw one over
/// the run where that was measured.
fn clock_source(env: &Environment) -> String {
    let source = env.clocksource.clone().unwrap_or_else(|| "unknown".into());
    match env.clock_rate {
        Some(r) => format!(
            "{source}; CLOCK_MONOTONIC {:+.1} ppm against CLOCK_MONOTONIC_RAW over {:.1} s",
            r.ppm, r.window_s
        ),
        None => source,
    }
}
