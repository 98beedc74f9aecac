//! The machine's vmstat/iostat view: one [`Reading`] of /proc (through the `procfs`
//! crate's parsers), and the [`VmstatLine`] between two readings. Parsing takes the
//! files' text, so it is tested on fixed input.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::{Context, Result};
use procfs::{DiskStat, FromBufRead, FromBufReadSI, KernelStats, Meminfo};

use crate::harness::sysinfo::page_size;
use crate::model::observe::{CpuShares, DiskRates, VmstatLine};

/// Everything one line needs, read at one instant.
#[derive(Debug, Clone)]
pub struct Reading {
    pub at: Instant,
    pub runnable: u32,
    pub blocked: u32,
    pub context_switches: u64,
    pub interrupts: u64,
    /// Aggregate CPU ticks by state (user incl. nice, system incl. irq and softirq, idle,
    /// iowait, steal).
    pub cpu: [u64; 5],
    pub free_bytes: u64,
    pub cached_bytes: u64,
    pub faults: u64,
    pub major_faults: u64,
    /// Pages swapped in and out since boot.
    pub swap_in_pages: u64,
    pub swap_out_pages: u64,
    pub page_size: u64,
    /// Per whole disk: sectors read, sectors written, ms with I/O in flight.
    pub disks: BTreeMap<String, [u64; 3]>,
}

/// The texts of the files one reading is made of.
pub struct Texts<'a> {
    pub stat: &'a str,
    pub meminfo: &'a str,
    pub vmstat: &'a str,
    pub diskstats: &'a str,
}

impl Reading {
    /// Read /proc now.
    pub fn take(disks: &[String]) -> Result<Reading> {
        let read = |p: &str| std::fs::read_to_string(p).with_context(|| format!("reading {p}"));
        let (stat, meminfo, vmstat, diskstats) = (
            read("/proc/stat")?,
            crate::harness::meminfo::text().context("reading /proc/meminfo")?,
            read("/proc/vmstat")?,
            read("/proc/diskstats").unwrap_or_default(),
        );
        let texts = Texts {
            stat: &stat,
            meminfo: &meminfo,
            vmstat: &vmstat,
            diskstats: &diskstats,
        };
        Reading::parse(&texts, disks, page_size(), Instant::now())
    }

    /// A reading from the files' texts; `disks` are the devices to keep.
    pub fn parse(t: &Texts, disks: &[String], page_size: u64, at: Instant) -> Result<Reading> {
        let si = procfs::current_system_info();
        let stat =
            KernelStats::from_buf_read(t.stat.as_bytes(), si).context("parsing /proc/stat")?;
        let mem = Meminfo::from_buf_read(t.meminfo.as_bytes()).context("parsing /proc/meminfo")?;
        let vm = procfs::VmStat::from_buf_read(t.vmstat.as_bytes())
            .context("parsing /proc/vmstat")?
            .0;
        let vmv = |k: &str| vm.get(k).copied().unwrap_or(0).max(0) as u64;
        let c = &stat.total;
        let o = |x: Option<u64>| x.unwrap_or(0);
        let mut kept = BTreeMap::new();
        for line in t.diskstats.lines() {
            let Ok(d) = DiskStat::from_line(line) else {
                continue;
            };
            if disks.contains(&d.name) {
                kept.insert(
                    d.name.clone(),
                    [d.sectors_read, d.sectors_written, d.time_in_progress],
                );
            }
        }
        Ok(Reading {
            at,
            runnable: stat.procs_running.unwrap_or(0),
            blocked: stat.procs_blocked.unwrap_or(0),
            context_switches: stat.ctxt,
            interrupts: interrupts(t.stat),
            cpu: [
                c.user + c.nice,
                c.system + o(c.irq) + o(c.softirq),
                c.idle,
                o(c.iowait),
                o(c.steal),
            ],
            free_bytes: mem.mem_free,
            cached_bytes: mem.cached + mem.buffers,
            faults: vmv("pgfault"),
            major_faults: vmv("pgmajfault"),
            swap_in_pages: vmv("pswpin"),
            swap_out_pages: vmv("pswpout"),
            page_size,
            disks: kept,
        })
    }

    /// The line for the interval from `earlier` to `self`; `t_s` is its end, counted from
    /// wherever the caller's series began.
    pub fn line_since(&self, earlier: &Reading, t_s: f64) -> VmstatLine {
        let secs = self
            .at
            .saturating_duration_since(earlier.at)
            .as_secs_f64()
            .max(1e-6);
        let rate = |a: u64, b: u64| a.saturating_sub(b) as f64 / secs;
        let ticks: Vec<u64> = (0..5)
            .map(|i| self.cpu[i].saturating_sub(earlier.cpu[i]))
            .collect();
        let total = ticks.iter().sum::<u64>().max(1) as f64;
        let share = |i: usize| ticks[i] as f64 / total;
        let disks = self
            .disks
            .iter()
            .filter_map(|(name, now)| {
                let then = earlier.disks.get(name)?;
                // Sectors in /proc/diskstats are always 512 bytes.
                Some(DiskRates {
                    name: name.clone(),
                    read_bytes_per_s: rate(now[0], then[0]) * 512.0,
                    write_bytes_per_s: rate(now[1], then[1]) * 512.0,
                    utilisation: (rate(now[2], then[2]) / 1000.0).min(1.0),
                })
            })
            .collect();
        VmstatLine {
            t_s,
            interval_s: secs,
            runnable: self.runnable,
            blocked: self.blocked,
            free_bytes: self.free_bytes,
            cached_bytes: self.cached_bytes,
            swap_in_bytes_per_s: rate(self.swap_in_pages, earlier.swap_in_pages)
                * self.page_size as f64,
            swap_out_bytes_per_s: rate(self.swap_out_pages, earlier.swap_out_pages)
                * self.page_size as f64,
            faults_per_s: rate(self.faults, earlier.faults),
            major_faults_per_s: rate(self.major_faults, earlier.major_faults),
            interrupts_per_s: rate(self.interrupts, earlier.interrupts),
            context_switches_per_s: rate(self.context_switches, earlier.context_switches),
            cpu: CpuShares {
                user: share(0),
                system: share(1),
                idle: share(2),
                iowait: share(3),
                steal: share(4),
            },
            disks,
        }
    }
}

/// The total of /proc/stat's `intr` line (procfs does not keep it).
fn interrupts(stat: &str) -> u64 {
    stat.lines()
        .find_map(|l| l.strip_prefix("intr "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Whole physical disks (those with a `device` link in /sys/block): partitions, loop and
/// device-mapper devices would count the same transfers twice.
pub fn physical_disks() -> Vec<String> {
    let mut disks: Vec<String> = std::fs::read_dir("/sys/block")
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .filter(|e| e.path().join("device").exists())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    disks.sort();
    disks
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const STAT: &str = "cpu  100 5 50 1000 10 1 2 3 0 0\ncpu0 100 5 50 1000 10 1 2 3 0 0\n\
intr 4242 1 2 3\nctxt 777\nbtime 1\nprocesses 55\nprocs_running 3\nprocs_blocked 1\n";
    const MEMINFO: &str = "MemTotal: 1000 kB\nMemFree: 400 kB\nBuffers: 10 kB\nCached: 90 kB\n\
SwapCached: 0 kB\nActive: 0 kB\nInactive: 0 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n\
Dirty: 0 kB\nWriteback: 0 kB\nMapped: 0 kB\nShmem: 0 kB\nSlab: 0 kB\nPageTables: 0 kB\n\
CommitLimit: 0 kB\nCommitted_AS: 0 kB\nVmallocTotal: 0 kB\nVmallocUsed: 0 kB\nVmallocChunk: 0 kB\n\
Active(anon): 0 kB\nInactive(anon): 0 kB\nActive(file): 0 kB\nInactive(file): 0 kB\n\
Unevictable: 0 kB\nMlocked: 0 kB\nAnonPages: 0 kB\nKernelStack: 0 kB\nNFS_Unstable: 0 kB\n\
Bounce: 0 kB\nWritebackTmp: 0 kB\nSReclaimable: 0 kB\nSUnreclaim: 0 kB\n";
    const DISKS: &str =
        " 254 0 vda 10 0 80 5 20 0 160 9 0 100 0\n 254 1 vda1 10 0 80 5 20 0 160 9 0 100 0\n";

    fn reading(at: Instant, stat: &str, vmstat: &str, disks: &str) -> Reading {
        let t = Texts {
            stat,
            meminfo: MEMINFO,
            vmstat,
            diskstats: disks,
        };
        Reading::parse(&t, &["vda".to_string()], 4096, at).unwrap()
    }

    #[test]
    fn a_line_is_the_rates_between_two_readings() {
        let t0 = Instant::now();
        let a = reading(
            t0,
            STAT,
            "pgfault 1000\npgmajfault 1\npswpin 0\npswpout 0\n",
            DISKS,
        );
        let later = STAT
            .replace("cpu  100 5 50 1000 10", "cpu  160 5 70 1100 20")
            .replace("ctxt 777", "ctxt 2777")
            .replace("intr 4242", "intr 5242");
        let b = reading(
            t0 + Duration::from_secs(2),
            &later,
            "pgfault 3000\npgmajfault 5\npswpin 2\npswpout 4\n",
            " 254 0 vda 14 0 2128 5 20 0 4256 9 0 600 0\n",
        );
        let l = b.line_since(&a, 2.0);
        assert_eq!((l.runnable, l.blocked), (3, 1));
        assert_eq!(l.context_switches_per_s, 1000.0);
        assert_eq!(l.interrupts_per_s, 500.0);
        assert_eq!(l.faults_per_s, 1000.0);
        assert_eq!(l.major_faults_per_s, 2.0);
        assert_eq!(l.swap_out_bytes_per_s, 2.0 * 4096.0);
        assert_eq!((l.free_bytes, l.cached_bytes), (400 * 1024, 100 * 1024));
        // 60 user, 20 system, 100 idle, 10 iowait ticks of 190.
        assert!((l.cpu.user - 60.0 / 190.0).abs() < 1e-12);
        assert!((l.cpu.idle - 100.0 / 190.0).abs() < 1e-12);
        let sum = l.cpu.user + l.cpu.system + l.cpu.idle + l.cpu.iowait + l.cpu.steal;
        assert!((sum - 1.0).abs() < 1e-12);
        // 2048 sectors read in 2 s = 512 KiB/s; 500 ms busy of 2 s = 25 %.
        assert_eq!(l.disks.len(), 1, "the partition is not a disk of its own");
        assert_eq!(l.disks[0].read_bytes_per_s, 2048.0 * 512.0 / 2.0);
        assert!((l.disks[0].utilisation - 0.25).abs() < 1e-12);
    }

    #[test]
    fn the_machine_reads() {
        let a = Reading::take(&physical_disks()).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let b = Reading::take(&physical_disks()).unwrap();
        let l = b.line_since(&a, 0.02);
        assert!(l.free_bytes > 0 && l.runnable >= 1, "{l:?}");
        assert!(l.interval_s >= 0.02);
    }
}
