//! What was watched while the benchmarks ran (seed 001 §2), as text: the vmstat lines of
//! `timeshare monitor`, and after a run's tables a summary of each row's series, counters,
//! system calls and profile; `timeshare profile` prints one row's flat profile.

use crate::model::observe::{Observation, Profile, Reading, Series, SyscallTrace, VmstatLine};
use crate::model::unit::format_seconds;
use crate::model::{BenchResult, Run};
use crate::report::table::{new_table, right};

const MIB: f64 = 1024.0 * 1024.0;

/// The header of `timeshare monitor`, vmstat's columns then iostat's per disk.
pub fn vmstat_header(disks: &[String]) -> String {
    let mut h = format!(
        "{:>3} {:>3} {:>8} {:>8} {:>6} {:>6} {:>8} {:>7} {:>8} {:>3} {:>3} {:>3} {:>3} {:>3}",
        "r",
        "b",
        "free(M)",
        "cache(M)",
        "si(K/s)",
        "so(K/s)",
        "flt/s",
        "in/s",
        "cs/s",
        "us",
        "sy",
        "id",
        "wa",
        "st"
    );
    for d in disks {
        h.push_str(&format!(
            "  {:>12} {:>12} {:>6}",
            format!("{d} rKB/s"),
            format!("{d} wKB/s"),
            "%util"
        ));
    }
    h
}

/// One line of `timeshare monitor`, under [`vmstat_header`].
pub fn vmstat_row(l: &VmstatLine, disks: &[String]) -> String {
    let pct = |x: f64| (x * 100.0).round() as u64;
    let mut s = format!(
        "{:>3} {:>3} {:>8.0} {:>8.0} {:>7.0} {:>7.0} {:>8.0} {:>7.0} {:>8.0} {:>3} {:>3} {:>3} {:>3} {:>3}",
        l.runnable,
        l.blocked,
        l.free_bytes as f64 / MIB,
        l.cached_bytes as f64 / MIB,
        l.swap_in_bytes_per_s / 1024.0,
        l.swap_out_bytes_per_s / 1024.0,
        l.faults_per_s,
        l.interrupts_per_s,
        l.context_switches_per_s,
        pct(l.cpu.user),
        pct(l.cpu.system),
        pct(l.cpu.idle),
        pct(l.cpu.iowait),
        pct(l.cpu.steal),
    );
    for d in disks {
        match l.disks.iter().find(|r| &r.name == d) {
            Some(r) => s.push_str(&format!(
                "  {:>12.1} {:>12.1} {:>6.1}",
                r.read_bytes_per_s / 1024.0,
                r.write_bytes_per_s / 1024.0,
                r.utilisation * 100.0
            )),
            None => s.push_str(&format!("  {:>12} {:>12} {:>6}", "-", "-", "-")),
        }
    }
    s
}

/// The observation tables of a run, empty when nothing was watched.
pub fn tables(run: &Run) -> String {
    let watched: Vec<(&BenchResult, &Observation)> = run
        .results
        .iter()
        .filter_map(|r| r.observe.as_ref().map(|o| (r, o)))
        .collect();
    let parts = [
        series_table(&watched),
        counters_table(&watched),
        trace_table(&watched),
        profiles(&watched),
    ];
    parts
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn series_table(rows: &[(&BenchResult, &Observation)]) -> String {
    let rows: Vec<(&BenchResult, &Series)> = rows
        .iter()
        .filter_map(|(r, o)| o.series.as_ref().map(|s| (*r, s)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "observed (--observe)",
        "lines",
        "r max",
        "cs/s mean",
        "cs/s max",
        "in/s",
        "flt/s",
        "us/sy/id/wa/st %",
        "disk KB/s r/w",
    ]);
    let interval = rows.first().map_or(0.0, |(_, s)| s.interval_s);
    for (r, s) in rows {
        let m = |f: fn(&VmstatLine) -> f64| s.mean(f).unwrap_or(0.0);
        let pct = |x: f64| (x * 100.0).round() as u64;
        let disk_r = m(|l| l.disks.iter().map(|d| d.read_bytes_per_s).sum());
        let disk_w = m(|l| l.disks.iter().map(|d| d.write_bytes_per_s).sum());
        t.add_row(vec![
            r.id.clone(),
            s.lines.len().to_string(),
            format!("{:.0}", s.max(|l| l.runnable as f64).unwrap_or(0.0)),
            format!("{:.0}", m(|l| l.context_switches_per_s)),
            format!("{:.0}", s.max(|l| l.context_switches_per_s).unwrap_or(0.0)),
            format!("{:.0}", m(|l| l.interrupts_per_s)),
            format!("{:.0}", m(|l| l.faults_per_s)),
            format!(
                "{}/{}/{}/{}/{}",
                pct(m(|l| l.cpu.user)),
                pct(m(|l| l.cpu.system)),
                pct(m(|l| l.cpu.idle)),
                pct(m(|l| l.cpu.iowait)),
                pct(m(|l| l.cpu.steal))
            ),
            format!("{:.0}/{:.0}", disk_r / 1024.0, disk_w / 1024.0),
        ]);
    }
    right(&mut t, &[1, 2, 3, 4, 5, 6, 7, 8]);
    format!(
        "The machine while each row ran, in vmstat's terms (means over the series, sampled \
         every {} s):\n{t}\n",
        interval
    )
}

/// The counters shown, in order, with how a value per operation reads.
const COUNTER_COLUMNS: &[(&str, &str)] = &[
    ("task-clock", "task-clock/op"),
    ("context-switches", "csw/op"),
    ("page-faults", "faults/op"),
    ("cpu-migrations", "migr/op"),
    ("cycles", "cycles/op"),
    ("instructions", "instr/op"),
    ("cache-misses", "cache-miss/op"),
    ("branch-misses", "br-miss/op"),
];

fn counters_table(rows: &[(&BenchResult, &Observation)]) -> String {
    let rows: Vec<_> = rows
        .iter()
        .filter_map(|(r, o)| o.counters.as_ref().map(|c| (*r, c)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut header = vec!["counters (--counters)", "ops"];
    header.extend(COUNTER_COLUMNS.iter().map(|c| c.1));
    header.push("IPC");
    let mut t = new_table(&header);
    // Each reason once, after the names of the counters it kept away.
    let mut reasons: Vec<(Vec<&str>, String)> = Vec::new();
    for (r, pc) in rows {
        let mut row = vec![r.id.clone(), pc.ops.to_string()];
        for (name, _) in COUNTER_COLUMNS {
            let cell = match pc.reading(name) {
                Some(Reading::Counted { per_op, .. }) if *name == "task-clock" => {
                    format_seconds(*per_op)
                }
                Some(Reading::Counted { per_op, .. }) => format_count(*per_op),
                Some(Reading::Unavailable { reason }) => {
                    match reasons.iter_mut().find(|(_, why)| why == reason) {
                        Some((names, _)) if !names.contains(name) => names.push(name),
                        Some(_) => {}
                        None => reasons.push((vec![name], reason.clone())),
                    }
                    "unavail.".to_string()
                }
                None => "-".to_string(),
            };
            row.push(cell);
        }
        row.push(pc.ipc().map_or("-".into(), |i| format!("{i:.2}")));
        t.add_row(row);
    }
    right(&mut t, &(1..=COUNTER_COLUMNS.len() + 2).collect::<Vec<_>>());
    let mut out = format!(
        "perf_event_open counters per operation, over one counted batch (the process and \
         its children):\n{t}\n"
    );
    for (names, why) in reasons {
        out.push_str(&format!("  {}: unavailable: {why}\n", names.join(", ")));
    }
    out
}

fn trace_table(rows: &[(&BenchResult, &Observation)]) -> String {
    let rows: Vec<(&BenchResult, &SyscallTrace)> = rows
        .iter()
        .filter_map(|(r, o)| o.trace.as_ref().map(|t| (*r, t)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "system calls (--trace)",
        "ops",
        "calls/op",
        "most made, per op",
        "declared",
    ]);
    for (r, tr) in rows {
        let top = tr
            .calls
            .iter()
            .take(5)
            .map(|c| format!("{} {}", c.name, format_count(c.per_op)))
            .collect::<Vec<_>>()
            .join(", ");
        let declared = if tr.expected.is_empty() {
            "none declared".to_string()
        } else {
            tr.expected
                .iter()
                .map(|e| {
                    format!(
                        "{} {} {}",
                        e.name,
                        format_count(e.expected_per_op),
                        if e.met { "ok" } else { "MISMATCH" }
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        t.add_row(vec![
            r.id.clone(),
            tr.ops.to_string(),
            format_count(tr.total_per_op),
            top,
            declared,
        ]);
    }
    right(&mut t, &[1, 2]);
    format!(
        "System calls per operation, counted at the kernel's raw_syscalls:sys_enter \
         tracepoint over one batch (the process and its children):\n{t}\n"
    )
}

fn profiles(rows: &[(&BenchResult, &Observation)]) -> String {
    rows.iter()
        .filter_map(|(r, o)| o.profile.as_ref().map(|p| (*r, p)))
        .map(|(r, p)| format!("{}{}", profile_heading(&r.id, p), flat_profile_rows(p, 5)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn profile_heading(id: &str, p: &Profile) -> String {
    format!(
        "Profile of {id} (perf record -a{}, {} Hz): {} of {} samples on the machine were \
         its processes'; top functions by self share:\n",
        if p.call_graph { " -g" } else { "" },
        p.frequency_hz,
        p.samples,
        p.machine_samples
    )
}

fn flat_profile_rows(p: &Profile, n: usize) -> String {
    let mut t = new_table(&["share", "samples", "function", "where", "called from"]);
    for f in p.functions.iter().take(n) {
        t.add_row(vec![
            format!("{:.1}%", f.share * 100.0),
            f.samples.to_string(),
            f.symbol.clone(),
            if f.kernel {
                "kernel".to_string()
            } else {
                short_dso(&f.dso)
            },
            f.caller.clone().unwrap_or_default(),
        ]);
    }
    right(&mut t, &[0, 1]);
    format!("{t}\n")
}

/// `timeshare profile RUN ID`: the row's whole flat profile, or why there is none.
pub fn profile_text(r: &BenchResult) -> Option<String> {
    let p = r.observe.as_ref()?.profile.as_ref()?;
    Some(format!(
        "{}{}",
        profile_heading(&r.id, p),
        flat_profile_rows(p, p.functions.len())
    ))
}

fn short_dso(dso: &str) -> String {
    dso.rsplit('/').next().unwrap_or(dso).to_string()
}

/// A count per operation: whole numbers plainly, small ones with two decimals.
fn format_count(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observe::{CpuShares, DiskRates};

    #[test]
    fn a_vmstat_row_lines_up_under_its_header() {
        let disks = vec!["vda".to_string()];
        let l = VmstatLine {
            t_s: 1.0,
            interval_s: 1.0,
            runnable: 2,
            blocked: 0,
            free_bytes: 512 << 20,
            cached_bytes: 1 << 30,
            context_switches_per_s: 12345.0,
            cpu: CpuShares {
                user: 0.5,
                system: 0.25,
                idle: 0.25,
                ..CpuShares::default()
            },
            disks: vec![DiskRates {
                name: "vda".into(),
                read_bytes_per_s: 2048.0,
                write_bytes_per_s: 0.0,
                utilisation: 0.125,
            }],
            ..VmstatLine::default()
        };
        let h = vmstat_header(&disks);
        let row = vmstat_row(&l, &disks);
        assert_eq!(h.len(), row.len(), "\n{h}\n{row}");
        assert!(
            row.contains(" 12345 ") && row.contains(" 50  25  25"),
            "{row}"
        );
        assert!(row.contains("2.0") && row.contains("12.5"), "{row}");
        assert!(row.contains(" 512 ") && row.contains(" 1024 "), "{row}");
    }
}
