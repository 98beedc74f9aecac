//! The whole machine's counters for `timeshare observe` (001 §2.1's vmstat and iostat):
//! one [`SystemReading`] of /proc, the rates between two readings as a
//! [`SeriesLine`] in [`RATE_KEYS`]' columns, disks and interfaces over a span, and the
//! sampling thread that keeps the series. Parsing takes the files' texts, so it is tested
//! on fixed input.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use procfs::net::InterfaceDeviceStatus;
use procfs::{DiskStat, FromBufRead, FromBufReadSI, KernelStats};

use super::vmstat::physical_disks;
use crate::model::observation::rates::{DiskSpan, InterfaceSpan, TerminalChars};
use crate::model::observation::{Part, SeriesLine, RATE_KEYS};

/// Everything one line needs, read at one instant.
#[derive(Debug, Clone, Default)]
pub struct SystemReading {
    pub at: Option<Instant>,
    /// Cumulative counters by [`RATE_KEYS`] key (events since boot), and the levels
    /// `runnable` and `blocked`.
    pub counters: BTreeMap<&'static str, u64>,
    /// CPU ticks by state: user, nice, system, iowait, irq, softirq, steal, idle.
    pub cpu: [u64; 8],
    /// Per whole disk: reads, writes completed, sectors read, written, ms busy, ms waited.
    pub disks: BTreeMap<String, [u64; 6]>,
    /// Per interface: rx packets, tx packets, rx bytes, tx bytes.
    pub interfaces: BTreeMap<String, [u64; 4]>,
    /// NET_RX and NET_TX softirqs, all CPUs.
    pub net_softirqs: [u64; 2],
    /// IP datagrams received and sent (/proc/net/snmp).
    pub ip_messages: [u64; 2],
    /// Serial ports' characters received and sent, when readable.
    pub serial: Option<[u64; 2]>,
}

/// The texts of the files one reading is made of.
#[derive(Default)]
pub struct Texts {
    pub stat: String,
    pub vmstat: String,
    pub diskstats: String,
    pub net_dev: String,
    pub softirqs: String,
    pub snmp: String,
    pub serial: Option<String>,
}

impl Texts {
    /// Read the files now; the serial ports' counts only where this user may.
    pub fn read() -> Result<Texts> {
        let read = |p: &str| std::fs::read_to_string(p).with_context(|| format!("reading {p}"));
        let optional = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        Ok(Texts {
            stat: read("/proc/stat")?,
            vmstat: read("/proc/vmstat")?,
            diskstats: optional("/proc/diskstats"),
            net_dev: optional("/proc/net/dev"),
            softirqs: optional("/proc/softirqs"),
            snmp: optional("/proc/net/snmp"),
            serial: std::fs::read_to_string(SERIAL).ok(),
        })
    }
}

/// Where the kernel keeps its serial ports' character counts (root only).
pub const SERIAL: &str = "/proc/tty/driver/serial";

impl SystemReading {
    /// Read /proc now, keeping the disks in `disks`.
    pub fn take(disks: &[String]) -> Result<SystemReading> {
        let mut r = SystemReading::parse(&Texts::read()?, disks)?;
        r.at = Some(Instant::now());
        Ok(r)
    }

    /// A reading from the files' texts.
    pub fn parse(t: &Texts, disks: &[String]) -> Result<SystemReading> {
        let si = procfs::current_system_info();
        let stat =
            KernelStats::from_buf_read(t.stat.as_bytes(), si).context("parsing /proc/stat")?;
        let vm = procfs::VmStat::from_buf_read(t.vmstat.as_bytes())
            .context("parsing /proc/vmstat")?
            .0;
        let vmv = |k: &str| vm.get(k).copied().unwrap_or(0).max(0) as u64;
        let scanned: u64 = vm
            .iter()
            .filter(|(k, _)| {
                k.starts_with("pgscan_") && !k.contains("_anon") && !k.contains("_file")
            })
            .map(|(_, v)| (*v).max(0) as u64)
            .sum();
        let mut counters = BTreeMap::new();
        counters.insert("cs", stat.ctxt);
        counters.insert("intr", first_number_after(&t.stat, "intr "));
        counters.insert("forks", stat.processes);
        counters.insert("faults", vmv("pgfault"));
        counters.insert("major_faults", vmv("pgmajfault"));
        counters.insert("pgin_kb", vmv("pgpgin"));
        counters.insert("pgout_kb", vmv("pgpgout"));
        counters.insert("swap_in", vmv("pswpin"));
        counters.insert("swap_out", vmv("pswpout"));
        counters.insert("scan", scanned);
        counters.insert("runnable", u64::from(stat.procs_running.unwrap_or(0)));
        counters.insert("blocked", u64::from(stat.procs_blocked.unwrap_or(0)));
        let c = &stat.total;
        let o = |x: Option<u64>| x.unwrap_or(0);
        let cpu = [
            c.user,
            c.nice,
            c.system,
            o(c.iowait),
            o(c.irq),
            o(c.softirq),
            o(c.steal),
            c.idle,
        ];
        let mut kept = BTreeMap::new();
        for line in t.diskstats.lines() {
            let Ok(d) = DiskStat::from_line(line) else {
                continue;
            };
            if disks.contains(&d.name) {
                kept.insert(
                    d.name.clone(),
                    [
                        d.reads,
                        d.writes,
                        d.sectors_read,
                        d.sectors_written,
                        d.time_in_progress,
                        d.time_reading + d.time_writing,
                    ],
                );
            }
        }
        let interfaces = InterfaceDeviceStatus::from_buf_read(t.net_dev.as_bytes())
            .map(|s| {
                s.0.into_iter()
                    .map(|(name, d)| {
                        (
                            name,
                            [d.recv_packets, d.sent_packets, d.recv_bytes, d.sent_bytes],
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(SystemReading {
            at: None,
            counters,
            cpu,
            disks: kept,
            interfaces,
            net_softirqs: [
                softirq_total(&t.softirqs, "NET_RX:"),
                softirq_total(&t.softirqs, "NET_TX:"),
            ],
            ip_messages: [
                snmp_field(&t.snmp, "Ip:", "InReceives"),
                snmp_field(&t.snmp, "Ip:", "OutRequests"),
            ],
            serial: t.serial.as_deref().map(serial_totals),
        })
    }

    /// Seconds from `earlier` to this reading (at least a microsecond).
    pub fn seconds_since(&self, earlier: &SystemReading) -> f64 {
        match (self.at, earlier.at) {
            (Some(a), Some(b)) => a.saturating_duration_since(b).as_secs_f64().max(1e-6),
            _ => 1.0,
        }
    }

    /// The line for the interval from `earlier` to `self`, in `columns`' order; `t_s`
    /// is its end, from the start of the series; `syscalls` the calls counted in it.
    pub fn line_since(
        &self,
        earlier: &SystemReading,
        t_s: f64,
        secs: f64,
        columns: &[String],
        syscalls: Option<u64>,
    ) -> SeriesLine {
        let ticks: Vec<u64> = (0..8)
            .map(|i| self.cpu[i].saturating_sub(earlier.cpu[i]))
            .collect();
        let total_ticks = ticks.iter().sum::<u64>().max(1) as f64;
        let values = columns
            .iter()
            .map(|key| {
                let delta = |k: &str| {
                    self.counters
                        .get(k)
                        .copied()
                        .unwrap_or(0)
                        .saturating_sub(earlier.counters.get(k).copied().unwrap_or(0))
                        as f64
                        / secs
                };
                match key.as_str() {
                    "runnable" | "blocked" => {
                        self.counters.get(key.as_str()).copied().unwrap_or(0) as f64
                    }
                    "syscalls" => syscalls.map_or(f64::NAN, |n| n as f64 / secs),
                    k if k.starts_with("cpu_") => {
                        let i = CPU_STATES.iter().position(|s| *s == &k[4..]).unwrap_or(7);
                        100.0 * ticks[i] as f64 / total_ticks
                    }
                    k => delta(k),
                }
            })
            .collect();
        SeriesLine {
            t_s,
            interval_s: secs,
            values,
        }
    }

    /// The disks between `earlier` and `self`.
    pub fn disks_since(&self, earlier: &SystemReading) -> Vec<DiskSpan> {
        let secs = self.seconds_since(earlier);
        self.disks
            .iter()
            .filter_map(|(name, now)| {
                let then = earlier.disks.get(name)?;
                let d = |i: usize| now[i].saturating_sub(then[i]);
                let transfers = d(0) + d(1);
                let per_transfer =
                    |ms: u64| (transfers > 0).then(|| ms as f64 / 1000.0 / transfers as f64);
                // Sectors in /proc/diskstats are always 512 bytes.
                Some(DiskSpan {
                    name: name.clone(),
                    transfers_per_s: transfers as f64 / secs,
                    read_kb_per_s: d(2) as f64 * 512.0 / 1024.0 / secs,
                    write_kb_per_s: d(3) as f64 * 512.0 / 1024.0 / secs,
                    service_time_s: per_transfer(d(4)),
                    wait_time_s: per_transfer(d(5)),
                    utilisation: (d(4) as f64 / 1000.0 / secs).min(1.0),
                })
            })
            .collect()
    }

    /// The interfaces between `earlier` and `self` (those that moved anything, and `lo`).
    pub fn interfaces_since(&self, earlier: &SystemReading) -> Vec<InterfaceSpan> {
        let secs = self.seconds_since(earlier);
        self.interfaces
            .iter()
            .filter_map(|(name, now)| {
                let then = earlier.interfaces.get(name)?;
                let d = |i: usize| now[i].saturating_sub(then[i]) as f64 / secs;
                Some(InterfaceSpan {
                    name: name.clone(),
                    rx_packets_per_s: d(0),
                    tx_packets_per_s: d(1),
                    rx_bytes_per_s: d(2),
                    tx_bytes_per_s: d(3),
                })
            })
            .collect()
    }

    /// Terminal characters between `earlier` and `self`, or exactly why not.
    pub fn terminal_since(&self, earlier: &SystemReading) -> Part<TerminalChars> {
        match (self.serial, earlier.serial) {
            (Some(now), Some(then)) => {
                let secs = self.seconds_since(earlier);
                Part::Measured(TerminalChars {
                    in_per_s: now[1].saturating_sub(then[1]) as f64 / secs,
                    out_per_s: now[0].saturating_sub(then[0]) as f64 / secs,
                    how: format!(
                        "the serial ports' rx/tx counters ({SERIAL}); pseudo-terminals (ssh, \
                         terminal windows), where people type today, keep no character \
                         count in the kernel, so their characters are not in it"
                    ),
                })
            }
            _ => Part::unavailable(format!(
                "the kernel counts terminal characters only for serial ports, in {SERIAL}, \
                 which only root may read; pseudo-terminals (ssh, terminal windows) keep no \
                 count at all"
            )),
        }
    }
}

const CPU_STATES: [&str; 8] = [
    "user", "nice", "system", "iowait", "irq", "softirq", "steal", "idle",
];

/// The first number after `prefix` at the start of a line (`intr 4242 …` → 4242).
fn first_number_after(text: &str, prefix: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The sum over CPUs of one /proc/softirqs line.
fn softirq_total(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix(name))
        .map(|rest| {
            rest.split_whitespace()
                .filter_map(|n| n.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0)
}

/// One field of /proc/net/snmp, which gives each protocol a header line and a value line.
fn snmp_field(text: &str, proto: &str, field: &str) -> u64 {
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with(proto)).collect();
    let [header, values, ..] = lines.as_slice() else {
        return 0;
    };
    header
        .split_whitespace()
        .position(|h| h == field)
        .and_then(|i| values.split_whitespace().nth(i))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Characters sent and received by every serial port: `0: uart:16550A … tx:12 rx:3 …`.
fn serial_totals(text: &str) -> [u64; 2] {
    let mut tx_rx = [0u64; 2];
    for word in text.split_whitespace() {
        if let Some(n) = word.strip_prefix("tx:").and_then(|n| n.parse::<u64>().ok()) {
            tx_rx[0] += n;
        }
        if let Some(n) = word.strip_prefix("rx:").and_then(|n| n.parse::<u64>().ok()) {
            tx_rx[1] += n;
        }
    }
    tx_rx
}

/// The series' columns: every [`RATE_KEYS`] key, `syscalls` only when counted.
pub fn columns(with_syscalls: bool) -> Vec<String> {
    RATE_KEYS
        .iter()
        .filter(|k| with_syscalls || k.key != "syscalls")
        .map(|k| k.key.to_string())
        .collect()
}

/// What the sampling thread hands back.
pub struct SeriesOutcome {
    pub first: SystemReading,
    pub last: SystemReading,
    pub lines: Vec<SeriesLine>,
    pub columns: Vec<String>,
}

/// The thread that reads /proc every interval and keeps one line; [`Series::stop`] ends
/// it and returns the lines (the last one partial).
pub struct Series {
    stop: Option<Sender<()>>,
    /// Each line as it is taken, for an observation stored as it goes.
    fresh: Receiver<SeriesLine>,
    thread: Option<JoinHandle<Result<SeriesOutcome>>>,
}

impl Series {
    /// Start sampling every `interval`; `calls` is the running total of system calls
    /// when they are being counted.
    pub fn start(interval: Duration, calls: Option<Arc<AtomicU64>>) -> Result<Series> {
        let (tx, rx) = mpsc::channel::<()>();
        let (fresh_tx, fresh) = mpsc::channel::<SeriesLine>();
        let disks = physical_disks();
        let columns = columns(calls.is_some());
        let first = SystemReading::take(&disks)?;
        let thread = std::thread::Builder::new()
            .name("timeshare-observe-series".into())
            .spawn(move || -> Result<SeriesOutcome> {
                let _observer = super::ObserverThread::register();
                let start = first.at.expect("taken now");
                let count = || calls.as_ref().map(|c| c.load(Ordering::Relaxed));
                let (mut last, mut last_calls) = (first.clone(), count());
                let mut lines = Vec::new();
                let mut next = start + interval;
                loop {
                    let wait = next.saturating_duration_since(Instant::now());
                    let stopping = !matches!(rx.recv_timeout(wait), Err(RecvTimeoutError::Timeout));
                    let now = SystemReading::take(&disks)?;
                    let now_calls = count();
                    let secs = now.seconds_since(&last);
                    if !stopping || lines.is_empty() || secs >= interval.as_secs_f64() / 20.0 {
                        let t = now
                            .at
                            .expect("taken now")
                            .duration_since(start)
                            .as_secs_f64();
                        let made = now_calls.zip(last_calls).map(|(n, l)| n.saturating_sub(l));
                        let line = now.line_since(&last, t, secs, &columns, made);
                        // Nobody listening is no error: the lines are kept below.
                        let _ = fresh_tx.send(line.clone());
                        lines.push(line);
                    }
                    if stopping {
                        return Ok(SeriesOutcome {
                            first,
                            last: now,
                            lines,
                            columns,
                        });
                    }
                    (last, last_calls) = (now, now_calls);
                    next += interval;
                    if next < Instant::now() {
                        next = Instant::now() + interval;
                    }
                }
            })?;
        Ok(Series {
            stop: Some(tx),
            fresh,
            thread: Some(thread),
        })
    }

    /// The lines taken since the last call (the first: since the start).
    pub fn fresh_lines(&self) -> Vec<SeriesLine> {
        self.fresh.try_iter().collect()
    }

    /// Stop now and return what was sampled.
    pub fn stop(mut self) -> Result<SeriesOutcome> {
        drop(self.stop.take());
        self.thread
            .take()
            .ok_or_else(|| anyhow!("the series was already stopped"))?
            .join()
            .map_err(|_| anyhow!("the observing thread panicked"))?
    }
}

impl Drop for Series {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  100 5 50 1000 10 1 2 3 0 0\ncpu0 100 5 50 1000 10 1 2 3 0 0\n\
intr 4242 1 2 3\nctxt 777\nbtime 1\nprocesses 55\nprocs_running 3\nprocs_blocked 1\n";
    const VMSTAT: &str = "pgfault 1000\npgmajfault 1\npgpgin 10\npgpgout 20\npswpin 0\n\
pswpout 0\npgscan_kswapd 5\npgscan_direct 2\npgscan_anon 7\n";
    const DISKS: &str = " 254 0 vda 10 0 80 5 20 0 160 9 0 100 14\n";
    const NETDEV: &str = "Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:  1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0
";
    const SOFTIRQS: &str =
        "                    CPU0       CPU1\n          HI:          0          0\n\
      NET_TX:          3          4\n      NET_RX:        100        200\n";
    const SNMP: &str = "Ip: Forwarding DefaultTTL InReceives InHdrErrors OutRequests\n\
Ip: 1 64 500 0 400\nIcmp: InMsgs\nIcmp: 0\n";

    fn texts() -> Texts {
        Texts {
            stat: STAT.into(),
            vmstat: VMSTAT.into(),
            diskstats: DISKS.into(),
            net_dev: NETDEV.into(),
            softirqs: SOFTIRQS.into(),
            snmp: SNMP.into(),
            serial: Some("serinfo:1.0 driver revision:\n0: uart:16550A port:000003F8 irq:4 tx:12 rx:3 RTS|DTR\n1: uart:unknown port:000002F8 irq:3\n".into()),
        }
    }

    #[test]
    fn a_reading_has_every_counter() {
        let r = SystemReading::parse(&texts(), &["vda".into()]).unwrap();
        assert_eq!(r.counters["cs"], 777);
        assert_eq!(r.counters["intr"], 4242);
        assert_eq!(r.counters["forks"], 55);
        assert_eq!(
            r.counters["scan"], 7,
            "kswapd's and direct scans, not the anon/file split"
        );
        assert_eq!(r.cpu, [100, 5, 50, 10, 1, 2, 3, 1000]);
        assert_eq!(r.disks["vda"], [10, 20, 80, 160, 100, 14]);
        assert_eq!(r.interfaces["lo"], [10, 10, 1000, 1000]);
        assert_eq!(r.net_softirqs, [300, 7]);
        assert_eq!(r.ip_messages, [500, 400]);
        assert_eq!(r.serial, Some([12, 3]));
    }

    #[test]
    fn a_line_is_the_rates_between_two_readings() {
        let mut a = SystemReading::parse(&texts(), &["vda".into()]).unwrap();
        let mut t = texts();
        t.stat = STAT
            .replace("cpu  100 5 50 1000 10 1 2 3", "cpu  160 5 70 1100 20 1 2 3")
            .replace("ctxt 777", "ctxt 2777")
            .replace("processes 55", "processes 65");
        t.diskstats = " 254 0 vda 30 0 2128 25 40 0 4256 29 0 600 54\n".into();
        let mut b = SystemReading::parse(&t, &["vda".into()]).unwrap();
        let now = Instant::now();
        a.at = Some(now);
        b.at = Some(now + Duration::from_secs(2));
        let cols = columns(true);
        let l = b.line_since(&a, 2.0, 2.0, &cols, Some(900));
        let v = |k: &str| l.values[cols.iter().position(|c| c == k).unwrap()];
        assert_eq!(v("cs"), 1000.0);
        assert_eq!(v("forks"), 5.0);
        assert_eq!(v("syscalls"), 450.0);
        assert_eq!(v("runnable"), 3.0);
        // 60 user, 20 system, 100 idle, 10 iowait ticks of 190.
        assert!((v("cpu_user") - 6000.0 / 190.0).abs() < 1e-9);
        assert!((v("cpu_idle") - 10000.0 / 190.0).abs() < 1e-9);
        let sum: f64 = cols
            .iter()
            .filter(|c| c.starts_with("cpu_"))
            .map(|c| v(c))
            .sum();
        assert!((sum - 100.0).abs() < 1e-9);
        let d = &b.disks_since(&a)[0];
        // 40 transfers in 2 s; 500 ms busy: 12.5 ms each; 40 ms waited: 1 ms each.
        assert_eq!(d.transfers_per_s, 20.0);
        assert_eq!(d.service_time_s, Some(0.0125));
        assert_eq!(d.wait_time_s, Some(0.001));
        assert_eq!(d.read_kb_per_s, 2048.0 * 512.0 / 1024.0 / 2.0);
        assert!(columns(false).iter().all(|c| c != "syscalls"));
    }

    #[test]
    fn terminal_characters_say_why_not_when_the_serial_counts_are_closed() {
        let mut t = texts();
        t.serial = None;
        let r = SystemReading::parse(&t, &[]).unwrap();
        let why = r.terminal_since(&r).reason().unwrap().to_string();
        assert!(
            why.contains("only root") && why.contains("pseudo-terminals"),
            "{why}"
        );
    }

    #[test]
    fn the_machine_reads() {
        let s = Series::start(Duration::from_millis(20), None).unwrap();
        std::thread::sleep(Duration::from_millis(70));
        let out = s.stop().unwrap();
        assert!(!out.lines.is_empty());
        assert_eq!(out.lines[0].values.len(), out.columns.len());
    }
}
