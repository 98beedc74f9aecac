//! The environment record (docs/method.md): machine, kernel and mitigations, clock source,
//! virtualisation and container limits, the working directory's file system, privilege.
//! Every reader is forgiving: a missing file gives an empty field, never an error.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::fs;
use std::path::Path;

use crate::harness::meminfo;
use crate::model::unit::parse_bytes;
use crate::model::{Cache, Cpu, Environment, Kernel, WorkDir};

fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Detect everything; `workdir` is where the run's files go.
pub fn detect(workdir: &Path) -> Environment {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    Environment {
        hostname: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_default(),
        kernel: kernel(),
        cpu: cpu(&cpuinfo),
        memory_bytes: meminfo::total_bytes(),
        swap_bytes: meminfo::swap_bytes(),
        mitigations: mitigations(),
        clocksource: read_trimmed(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        ),
        virtualization: virtualization(&cpuinfo),
        container: container(),
        cpu_quota: cpu_quota(),
        governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        workdir: workdir_info(workdir),
        // SAFETY: no arguments.
        privileged: unsafe { libc::geteuid() } == 0,
        // SAFETY: a plain system call with no memory arguments.
        uid: unsafe { libc::getuid() },
        load_average: load_average(),
        busy_processes: busy_processes(),
        // Measured over the run by `run`, not at detection.
        clock_rate: None,
    }
}

fn kernel() -> Kernel {
    // SAFETY: utsname is plain data that uname fills with NUL-terminated strings.
    let u = unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        libc::uname(&mut u);
        u
    };
    let s = |f: &[libc::c_char]| {
        // SAFETY: uname fills each field with a NUL-terminated string.
        unsafe { CStr::from_ptr(f.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    };
    Kernel {
        sysname: s(&u.sysname),
        release: s(&u.release),
        version: s(&u.version),
        machine: s(&u.machine),
    }
}

fn cpuinfo_field<'a>(cpuinfo: &'a str, name: &str) -> Option<&'a str> {
    cpuinfo
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == name)
        .map(|(_, v)| v.trim())
}

fn cpu(cpuinfo: &str) -> Cpu {
    let flags = cpuinfo_field(cpuinfo, "flags").unwrap_or("");
    let of_note = [
        "hypervisor",
        "constant_tsc",
        "nonstop_tsc",
        "avx2",
        "avx512f",
        "pti",
    ];
    Cpu {
        model: cpuinfo_field(cpuinfo, "model name")
            .or_else(|| cpuinfo_field(cpuinfo, "Model"))
            .unwrap_or("unknown")
            .to_string(),
        logical: online_cpus(),
        usable: super::cpu::usable_cpus().len(),
        mhz: cpuinfo_field(cpuinfo, "cpu MHz").and_then(|v| v.parse().ok()),
        caches: caches(),
        flags_of_note: flags
            .split_whitespace()
            .filter(|f| of_note.contains(f))
            .map(String::from)
            .collect(),
    }
}

fn online_cpus() -> usize {
    // SAFETY: sysconf with a valid name.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    n.max(1) as usize
}

/// Clock ticks per second of /proc's CPU times (`_SC_CLK_TCK`, 100 if the system will
/// not say).
pub fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// The size of a memory page in bytes (4096 if the system will not say).
pub fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
}

/// The caches of CPU 0, from sysfs.
pub fn caches() -> Vec<Cache> {
    let base = Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut out: Vec<Cache> = (0..8)
        .map(|i| base.join(format!("index{i}")))
        .filter(|d| d.exists())
        .filter_map(|d| {
            Some(Cache {
                level: read_trimmed(d.join("level"))?.parse().ok()?,
                kind: read_trimmed(d.join("type"))?,
                size_bytes: parse_bytes(&read_trimmed(d.join("size"))?)?,
                line_bytes: read_trimmed(d.join("coherency_line_size"))
                    .and_then(|s| s.parse().ok()),
                shared_by: read_trimmed(d.join("shared_cpu_list"))
                    .map(|l| count_cpu_list(&l))
                    .unwrap_or(1),
            })
        })
        .collect();
    out.sort_by_key(|c| (c.level, c.kind.clone()));
    out
}

/// "0-3,6" → 5.
pub fn count_cpu_list(list: &str) -> usize {
    list.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().unwrap_or(0), b.parse().unwrap_or(0));
                b.saturating_sub(a) + 1
            }
            None => 1,
        })
        .sum()
}

fn mitigations() -> BTreeMap<String, String> {
    let dir = Path::new("/sys/devices/system/cpu/vulnerabilities");
    fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    Some((name, read_trimmed(e.path())?))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn virtualization(cpuinfo: &str) -> Option<String> {
    let hypervisor = cpuinfo_field(cpuinfo, "flags")
        .is_some_and(|f| f.split_whitespace().any(|x| x == "hypervisor"));
    if !hypervisor {
        return None;
    }
    let vendor = read_trimmed("/sys/class/dmi/id/sys_vendor");
    let product = read_trimmed("/sys/class/dmi/id/product_name");
    Some(match (vendor, product) {
        (Some(v), Some(p)) => format!("{v} {p}"),
        (Some(v), None) | (None, Some(v)) => v,
        (None, None) => "unknown hypervisor".to_string(),
    })
}

fn container() -> Option<String> {
    if Path::new("/.dockerenv").exists() {
        return Some("docker".into());
    }
    if let Some(c) = read_trimmed("/run/systemd/container") {
        return Some(c);
    }
    let env1 = fs::read("/proc/1/environ").unwrap_or_default();
    env1.split(|&b| b == 0)
        .filter_map(|kv| std::str::from_utf8(kv).ok())
        .find_map(|kv| kv.strip_prefix("container=").map(String::from))
}

/// The cgroup v2 CPU limit of this process's cgroup, when one is set ("max" means none).
fn cpu_quota() -> Option<String> {
    let cgroup = fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let max = read_trimmed(format!("/sys/fs/cgroup{rel}/cpu.max"))
        .or_else(|| read_trimmed("/sys/fs/cgroup/cpu.max"))?;
    let (quota, period) = max.split_once(' ')?;
    if quota == "max" {
        return None;
    }
    let cpus = quota.parse::<f64>().ok()? / period.parse::<f64>().ok()?;
    Some(format!("{max} ({cpus:.2} CPUs)"))
}

fn load_average() -> [f64; 3] {
    let s = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut f = s.split_whitespace().map(|x| x.parse().unwrap_or(0.0));
    [
        f.next().unwrap_or(0.0),
        f.next().unwrap_or(0.0),
        f.next().unwrap_or(0.0),
    ]
}

/// Other processes in state R (runnable) right now: each competes for the CPUs. The one
/// that has used the most CPU time comes first: a warning that names a few names the
/// ones that matter.
pub fn busy_processes() -> Vec<String> {
    let me = std::process::id();
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut busy: Vec<(u64, String)> = dir
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter_map(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            runnable_with_cpu(&stat).map(|(comm, ticks)| (ticks, format!("{comm}[{pid}]")))
        })
        .collect();
    busy.sort_by_key(|b| std::cmp::Reverse(b.0));
    busy.into_iter().map(|(_, name)| name).collect()
}

/// From a `/proc/PID/stat` line, the command and its user + system CPU ticks, when the
/// process is runnable. "pid (comm) S ..." — comm may contain spaces and parentheses, so
/// the fields are counted from the last ')': state is the first after it, utime the 12th.
fn runnable_with_cpu(stat: &str) -> Option<(&str, u64)> {
    let close = stat.rfind(')')?;
    let comm = &stat[stat.find('(')? + 1..close];
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    if *fields.first()? != "R" {
        return None;
    }
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Some((comm, ticks(11) + ticks(12)))
}

/// File system type and device of `path`, from the longest matching mount point.
pub fn workdir_info(path: &Path) -> WorkDir {
    let abs = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let best = mounts
        .lines()
        .filter_map(parse_mountinfo_line)
        .filter(|(mnt, _, _)| abs.starts_with(mnt))
        .max_by_key(|(mnt, _, _)| mnt.len());
    let (fs_type, device) = best
        .map(|(_, t, d)| (t, d))
        .unwrap_or_else(|| ("unknown".into(), "unknown".into()));
    WorkDir {
        path: abs.display().to_string(),
        memory_backed: matches!(fs_type.as_str(), "tmpfs" | "ramfs"),
        fs_type,
        device,
    }
}

/// (mount point, fs type, source) of one /proc/self/mountinfo line.
fn parse_mountinfo_line(line: &str) -> Option<(String, String, String)> {
    let (left, right) = line.split_once(" - ")?;
    let mount_point = left.split_whitespace().nth(4)?.replace("\\040", " ");
    let mut r = right.split_whitespace();
    let fs_type = r.next()?.to_string();
    let source = r.next().unwrap_or("none").to_string();
    Some((mount_point, fs_type, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_cpu_lists() {
        assert_eq!(parse_bytes("32K"), Some(32 * 1024));
        assert_eq!(parse_bytes("16M"), Some(16 << 20));
        assert_eq!(count_cpu_list("0-3,6"), 5);
        assert_eq!(count_cpu_list("1"), 1);
    }

    #[test]
    fn a_runnable_process_is_read_with_its_cpu_time_and_a_sleeping_one_is_not() {
        // Fields after the comm: state ppid pgrp session tty tpgid flags minflt cminflt
        // majflt cmajflt utime stime ...
        let stat = "812 (cc1 (x)) R 1 812 812 0 -1 4194304 10 0 0 0 250 40 0 0 20 0 1";
        assert_eq!(runnable_with_cpu(stat), Some(("cc1 (x)", 290)));
        let asleep = stat.replace(") R ", ") S ");
        assert_eq!(runnable_with_cpu(&asleep), None);
    }

    #[test]
    fn parses_a_mountinfo_line() {
        let l = "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw";
        assert_eq!(
            parse_mountinfo_line(l),
            Some(("/".into(), "ext4".into(), "/dev/vda".into()))
        );
    }

    #[test]
    fn detects_this_machine() {
        let env = detect(Path::new("/"));
        assert!(env.cpu.logical >= 1);
        assert!(env.memory_bytes > 0);
        assert_eq!(env.kernel.sysname, "Linux");
        assert!(!env.workdir.fs_type.is_empty());
    }
}
