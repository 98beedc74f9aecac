//! The environment record: what the machine was when a run was made (docs/method.md).
//! Without it two results cannot be compared honestly.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Environment {
    pub hostname: String,
    pub kernel: Kernel,
    pub cpu: Cpu,
    pub memory_bytes: u64,
    pub swap_bytes: u64,
    /// `/sys/devices/system/cpu/vulnerabilities/*`: the kernel's speculative-execution state.
    pub mitigations: BTreeMap<String, String>,
    pub clocksource: Option<String>,
    /// Hypervisor vendor or product when running in a virtual machine.
    pub virtualization: Option<String>,
    /// Container runtime when running in one.
    pub container: Option<String>,
    /// The cgroup CPU limit (`cpu.max`), when one is set.
    pub cpu_quota: Option<String>,
    /// cpufreq scaling governor of CPU 0, where cpufreq is exposed.
    pub governor: Option<String>,
    pub workdir: WorkDir,
    /// True when the run had root privileges.
    pub privileged: bool,
    pub uid: u32,
    /// The load average (1, 5, 15 minutes) when the run started.
    pub load_average: [f64; 3],
    /// Other processes found runnable when the run started (name and pid), the one that
    /// had used the most CPU time first.
    pub busy_processes: Vec<String>,
    /// CLOCK_MONOTONIC's rate against CLOCK_MONOTONIC_RAW over the run (absent in older
    /// records and outside `run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_rate: Option<ClockRate>,
}

/// How many processes a one-line list names before it counts the rest.
pub const PROCESSES_NAMED: usize = 5;

/// `12: cc1[812], rustc[77], … and 7 more`: a list of processes (the busiest first, as
/// [`Environment::busy_processes`] keeps them) in one short line, with their count.
pub fn few_processes(list: &[String]) -> String {
    if list.len() <= PROCESSES_NAMED {
        return format!("{}: {}", list.len(), list.join(", "));
    }
    format!(
        "{}, the busiest {} and {} more",
        list.len(),
        list[..PROCESSES_NAMED].join(", "),
        list.len() - PROCESSES_NAMED
    )
}

/// How fast the clock every figure is read from ran against the hardware's own: seed 002
/// checked its timer against two other clocks before trusting it. CLOCK_MONOTONIC is
/// slewed by NTP (at most 500 ppm by adjtime's own limit); CLOCK_MONOTONIC_RAW is not.
/// A larger difference means the clock was being pulled, and every duration of the run
/// with it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct ClockRate {
    /// How long the comparison lasted, on CLOCK_MONOTONIC_RAW.
    pub window_s: f64,
    /// (CLOCK_MONOTONIC's elapsed − CLOCK_MONOTONIC_RAW's) / CLOCK_MONOTONIC_RAW's, in
    /// parts per million: positive when the monotonic clock ran fast.
    pub ppm: f64,
}

impl ClockRate {
    /// The rate between two pairs of readings (monotonic ns, raw ns), the second taken
    /// later; `None` when no raw time passed between them.
    pub fn between(start: (u64, u64), end: (u64, u64)) -> Option<ClockRate> {
        let mono = end.0 as f64 - start.0 as f64;
        let raw = end.1 as f64 - start.1 as f64;
        if raw <= 0.0 {
            return None;
        }
        Some(ClockRate {
            window_s: raw * 1e-9,
            ppm: (mono - raw) / raw * 1e6,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Kernel {
    pub sysname: String,
    pub release: String,
    pub version: String,
    pub machine: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Cpu {
    pub model: String,
    /// Logical CPUs online.
    pub logical: usize,
    /// CPUs this process may run on (its affinity mask).
    pub usable: usize,
    /// Nominal frequency in MHz as /proc/cpuinfo reports it, if it does.
    pub mhz: Option<f64>,
    pub caches: Vec<Cache>,
    pub flags_of_note: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Cache {
    pub level: u32,
    /// "Data", "Instruction" or "Unified".
    pub kind: String,
    pub size_bytes: u64,
    pub line_bytes: Option<u64>,
    /// How many logical CPUs share it.
    pub shared_by: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct WorkDir {
    pub path: String,
    pub fs_type: String,
    pub device: String,
    /// True for tmpfs/ramfs: today's "memory-simulated disk" (seed 000 C8, C9).
    pub memory_backed: bool,
}
