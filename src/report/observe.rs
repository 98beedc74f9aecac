//! What was watched while the benchmarks ran (seed 001 §2), as text: the vmstat lines of
//! `timeshare monitor`, and after a run's tables a summary of each row's series, counters,
//! system calls and profile; `timeshare profile` prints one row's flat profile.

use crate::model::observe::{Observation, Profile, Reading, Series, SyscallTrace, VmstatLine};
use crate::model::unit::format_seconds;
use crate::model::{BenchResult, Run};
use crate::report::table::{new_table, right};

const MIB: f64 = 1024.0 * 1024.0;

/// The columns of `timeshare monitor`'s disks: one group per disk while they fit the
/// output's width, the rest summed in one last group (`+3 disks`), so that a machine
/// with many disks still prints lines that fit (`--json` has every disk).
#[derive(Debug, Clone, PartialEq)]
pub struct DiskGroup {
    /// A disk's name, or `+N disks` for the ones summed.
    pub label: String,
    pub members: Vec<String>,
}

/// The width of vmstat's columns, and of one disk's group.
const VMSTAT_WIDTH: usize = 77;
const DISK_WIDTH: usize = 21;

/// The disks' groups for an output `width` columns wide.
pub fn disk_groups(disks: &[String], width: usize) -> Vec<DiskGroup> {
    let room = width.saturating_sub(VMSTAT_WIDTH) / DISK_WIDTH;
    let one = |d: &String| DiskGroup {
        label: d.clone(),
        members: vec![d.clone()],
    };
    if disks.len() <= room.max(1) {
        return disks.iter().map(one).collect();
    }
    // Keep a group for the rest: the first disks each get one, the others share the last.
    let own = room.saturating_sub(1);
    let mut groups: Vec<DiskGroup> = disks[..own].iter().map(one).collect();
    let rest = &disks[own..];
    groups.push(DiskGroup {
        label: format!("{}{} disks", if own > 0 { "+" } else { "" }, rest.len()),
        members: rest.to_vec(),
    });
    groups
}

/// The header of `timeshare monitor`: a line saying the units, then vmstat's columns and
/// iostat's for each group of disks, the groups named on a line above theirs.
pub fn vmstat_header(groups: &[DiskGroup]) -> String {
    let mut units = String::from(
        "memory in MiB; si, so (swap in, out) and disks in KiB/s; flt, in, cs per second",
    );
    for g in groups.iter().filter(|g| g.members.len() > 1) {
        units.push_str(&format!(
            "; {}: {} summed, %util the busiest's",
            g.label,
            g.members.join(", ")
        ));
    }
    let mut names = " ".repeat(VMSTAT_WIDTH);
    let mut h = format!(
        "{:>3} {:>3} {:>7} {:>8} {:>5} {:>5} {:>6} {:>6} {:>6} {:>3} {:>3} {:>3} {:>3} {:>3}",
        "r",
        "b",
        "free",
        "cache",
        "si",
        "so",
        "flt/s",
        "in/s",
        "cs/s",
        "us",
        "sy",
        "id",
        "wa",
        "st"
    );
    for g in groups {
        names.push_str(&format!("{:>width$}", g.label, width = DISK_WIDTH));
        h.push_str(&format!("  {:>6} {:>6} {:>5}", "read", "write", "%util"));
    }
    if groups.is_empty() {
        format!("{units}\n{h}")
    } else {
        format!("{units}\n{}\n{h}", names.trim_end())
    }
}

/// A rate in at most `width` characters: whole below that, else with k, M or G.
fn compact(x: f64, width: usize) -> String {
    let whole = format!("{x:.0}");
    if whole.len() <= width {
        return whole;
    }
    let (mut v, mut suffix) = (x, "");
    for s in ["k", "M", "G", "T"] {
        v /= 1000.0;
        suffix = s;
        if format!("{v:.0}{suffix}").len() <= width {
            break;
        }
    }
    format!("{v:.0}{suffix}")
}

/// One line of `timeshare monitor`, under [`vmstat_header`].
pub fn vmstat_row(l: &VmstatLine, groups: &[DiskGroup]) -> String {
    let pct = |x: f64| (x * 100.0).round() as u64;
    let mut s = format!(
        "{:>3} {:>3} {:>7} {:>8} {:>5} {:>5} {:>6} {:>6} {:>6} {:>3} {:>3} {:>3} {:>3} {:>3}",
        l.runnable,
        l.blocked,
        compact(l.free_bytes as f64 / MIB, 7),
        compact(l.cached_bytes as f64 / MIB, 8),
        compact(l.swap_in_bytes_per_s / 1024.0, 5),
        compact(l.swap_out_bytes_per_s / 1024.0, 5),
        compact(l.faults_per_s, 6),
        compact(l.interrupts_per_s, 6),
        compact(l.context_switches_per_s, 6),
        pct(l.cpu.user),
        pct(l.cpu.system),
        pct(l.cpu.idle),
        pct(l.cpu.iowait),
        pct(l.cpu.steal),
    );
    for g in groups {
        let rates: Vec<_> = l
            .disks
            .iter()
            .filter(|r| g.members.contains(&r.name))
            .collect();
        if rates.is_empty() {
            s.push_str(&format!("  {:>6} {:>6} {:>5}", "-", "-", "-"));
            continue;
        }
        let read: f64 = rates.iter().map(|r| r.read_bytes_per_s).sum();
        let write: f64 = rates.iter().map(|r| r.write_bytes_per_s).sum();
        let busiest = rates.iter().map(|r| r.utilisation).fold(0.0, f64::max);
        s.push_str(&format!(
            "  {:>6} {:>6} {:>5.1}",
            compact(read / 1024.0, 6),
            compact(write / 1024.0, 6),
            busiest * 100.0
        ));
    }
    s
}

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 100,
        render: tables,
    }
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

    /// A line of the machine's figures, with these disks each reading 2 KiB/s.
    fn line(disks: &[String]) -> VmstatLine {
        VmstatLine {
            t_s: 1.0,
            interval_s: 1.0,
            runnable: 2,
            blocked: 0,
            free_bytes: 512 << 20,
            cached_bytes: 1 << 30,
            context_switches_per_s: 12345.0,
            faults_per_s: 98_765_432.0,
            cpu: CpuShares {
                user: 0.5,
                system: 0.25,
                idle: 0.25,
                ..CpuShares::default()
            },
            disks: disks
                .iter()
                .enumerate()
                .map(|(i, d)| DiskRates {
                    name: d.clone(),
                    read_bytes_per_s: 2048.0,
                    write_bytes_per_s: 0.0,
                    utilisation: 0.125 * (i + 1) as f64,
                })
                .collect(),
            ..VmstatLine::default()
        }
    }

    #[test]
    fn a_vmstat_row_lines_up_under_its_header() {
        let disks = vec!["vda".to_string()];
        let groups = disk_groups(&disks, 100);
        let h = vmstat_header(&groups);
        let row = vmstat_row(&line(&disks), &groups);
        let columns = h.lines().last().unwrap();
        assert_eq!(columns.len(), row.len(), "\n{h}\n{row}");
        assert!(h.lines().nth(1).unwrap().ends_with(" vda"), "{h}");
        assert!(
            row.contains(" 12345 ") && row.contains(" 50  25  25"),
            "{row}"
        );
        // 98,765,432 faults a second in a column of six: shortened, not widened.
        assert!(row.contains(" 98765k "), "{row}");
        assert!(row.contains("     2      0  12.5"), "{row}");
        assert!(row.contains(" 512 ") && row.contains(" 1024 "), "{row}");
    }

    #[test]
    fn many_disks_fit_the_width_summed_in_a_last_group() {
        let disks: Vec<String> = (0..12)
            .map(|i| format!("sd{}", (b'a' + i) as char))
            .collect();
        for width in [100, 120, 160, 400] {
            let groups = disk_groups(&disks, width);
            let h = vmstat_header(&groups);
            let row = vmstat_row(&line(&disks), &groups);
            for l in h.lines().skip(1).chain([row.as_str()]) {
                assert!(l.chars().count() <= width, "{width}: {l}");
            }
            let shown: usize = groups.iter().map(|g| g.members.len()).sum();
            assert_eq!(shown, 12, "{groups:?}");
        }
        // At 100 columns one group holds all twelve: their reads summed, the busiest's
        // utilisation.
        let groups = disk_groups(&disks, 100);
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].label, "12 disks");
        let row = vmstat_row(&line(&disks), &groups);
        assert!(row.ends_with("    24      0 150.0"), "{row}");
        assert!(vmstat_header(&groups).contains("12 disks: sda, sdb"));
        // Wide enough for each: no group is summed.
        let groups = disk_groups(&disks, 400);
        assert!(groups.iter().all(|g| g.members.len() == 1), "{groups:?}");
        let groups = disk_groups(&disks, 160);
        assert_eq!(groups.last().unwrap().label, "+10 disks");
    }
}
