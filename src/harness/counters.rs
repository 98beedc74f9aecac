//! The kernel's own counters before and after a benchmark: the vmstat/iostat view of seed
//! 001 §2 (context switches, interrupts, forks, faults, disk transfers, CPU split).
//! Parsers take the file's text so they can be tested on fixed input.

use std::collections::BTreeMap;
use std::fs;

use super::rusage::{self, Usage};
use crate::model::CounterDeltas;

/// One reading of every counter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub stat: ProcStat,
    pub page_faults: u64,
    pub major_faults: u64,
    pub disk: DiskTotals,
    pub usage: Usage,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcStat {
    pub context_switches: u64,
    pub interrupts: u64,
    pub forks: u64,
    /// Aggregate CPU jiffies by state: user (incl. nice), system (incl. irq), idle, iowait, steal.
    pub cpu: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiskTotals {
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

impl Snapshot {
    pub fn take() -> Snapshot {
        let vm = fs::read_to_string("/proc/vmstat").unwrap_or_default();
        Snapshot {
            stat: parse_proc_stat(&fs::read_to_string("/proc/stat").unwrap_or_default()),
            page_faults: vmstat_field(&vm, "pgfault"),
            major_faults: vmstat_field(&vm, "pgmajfault"),
            disk: parse_diskstats(
                &fs::read_to_string("/proc/diskstats").unwrap_or_default(),
                &physical_disks(),
            ),
            usage: rusage::process_and_children(),
        }
    }

    /// What happened between `self` (earlier) and `later`.
    pub fn delta(&self, later: &Snapshot) -> CounterDeltas {
        let own = later.usage.since(&self.usage);
        CounterDeltas {
            context_switches: later
                .stat
                .context_switches
                .saturating_sub(self.stat.context_switches),
            interrupts: later.stat.interrupts.saturating_sub(self.stat.interrupts),
            forks: later.stat.forks.saturating_sub(self.stat.forks),
            page_faults: later.page_faults.saturating_sub(self.page_faults),
            major_faults: later.major_faults.saturating_sub(self.major_faults),
            disk_reads: later.disk.reads.saturating_sub(self.disk.reads),
            disk_writes: later.disk.writes.saturating_sub(self.disk.writes),
            disk_read_bytes: later.disk.read_bytes.saturating_sub(self.disk.read_bytes),
            disk_write_bytes: later.disk.write_bytes.saturating_sub(self.disk.write_bytes),
            cpu_split: cpu_split(&self.stat.cpu, &later.stat.cpu),
            self_minor_faults: own.minor_faults,
            self_major_faults: own.major_faults,
            self_voluntary_switches: own.voluntary_switches,
            self_involuntary_switches: own.involuntary_switches,
        }
    }
}

/// Shares of each CPU state between two readings of the aggregate `cpu` line.
fn cpu_split(
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> BTreeMap<String, f64> {
    let deltas: BTreeMap<String, u64> = after
        .iter()
        .map(|(k, v)| (k.clone(), v.saturating_sub(*before.get(k).unwrap_or(&0))))
        .collect();
    let total: u64 = deltas.values().sum();
    if total == 0 {
        return BTreeMap::new();
    }
    deltas
        .into_iter()
        .map(|(k, v)| (k, v as f64 / total as f64))
        .collect()
}

pub fn parse_proc_stat(text: &str) -> ProcStat {
    let mut out = ProcStat::default();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let Some(key) = f.next() else { continue };
        let nums: Vec<u64> = f.filter_map(|x| x.parse().ok()).collect();
        let first = nums.first().copied().unwrap_or(0);
        match key {
            "ctxt" => out.context_switches = first,
            "intr" => out.interrupts = first,
            "processes" => out.forks = first,
            "cpu" => {
                // user nice system idle iowait irq softirq steal [guest guest_nice]
                let at = |i: usize| nums.get(i).copied().unwrap_or(0);
                out.cpu.insert("user".into(), at(0) + at(1));
                out.cpu.insert("system".into(), at(2) + at(5) + at(6));
                out.cpu.insert("idle".into(), at(3));
                out.cpu.insert("iowait".into(), at(4));
                out.cpu.insert("steal".into(), at(7));
            }
            _ => {}
        }
    }
    out
}

pub fn vmstat_field(text: &str, name: &str) -> u64 {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .find(|(k, _)| *k == name)
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Whole physical disks (those with a `device` link in /sys/block): partitions, loop and
/// device-mapper devices would count the same transfers twice.
fn physical_disks() -> Vec<String> {
    fs::read_dir("/sys/block")
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .filter(|e| e.path().join("device").exists())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

pub fn parse_diskstats(text: &str, disks: &[String]) -> DiskTotals {
    let mut out = DiskTotals::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 10 || !disks.iter().any(|d| d == f[2]) {
            continue;
        }
        let n = |i: usize| f[i].parse::<u64>().unwrap_or(0);
        // Sectors in /proc/diskstats are always 512 bytes, whatever the device's own size.
        out.reads += n(3);
        out.read_bytes += n(5) * 512;
        out.writes += n(7);
        out.write_bytes += n(9) * 512;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  100 5 50 1000 10 1 2 3 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n\
intr 4242 1 2 3\nctxt 777\nbtime 1\nprocesses 55\nprocs_running 1\n";

    #[test]
    fn parses_proc_stat() {
        let s = parse_proc_stat(STAT);
        assert_eq!(s.context_switches, 777);
        assert_eq!(s.interrupts, 4242);
        assert_eq!(s.forks, 55);
        assert_eq!(s.cpu["user"], 105);
        assert_eq!(s.cpu["system"], 53);
        assert_eq!(s.cpu["steal"], 3);
    }

    #[test]
    fn parses_vmstat_and_diskstats() {
        let vm = "pgfault 12345\npgmajfault 7\n";
        assert_eq!(vmstat_field(vm, "pgfault"), 12345);
        assert_eq!(vmstat_field(vm, "pgmajfault"), 7);
        let ds = " 254 0 vda 10 0 80 5 20 0 160 9 0 0 0\n 254 1 vda1 10 0 80 5 20 0 160 9 0 0 0\n";
        let d = parse_diskstats(ds, &["vda".to_string()]);
        assert_eq!((d.reads, d.writes), (10, 20));
        assert_eq!((d.read_bytes, d.write_bytes), (80 * 512, 160 * 512));
    }

    #[test]
    fn forks_show_in_the_delta() {
        let before = Snapshot::take();
        for _ in 0..3 {
            std::process::Command::new("true").status().unwrap();
        }
        let d = before.delta(&Snapshot::take());
        assert!(d.forks >= 3, "{d:?}");
        assert!(d.context_switches > 0);
    }
}
