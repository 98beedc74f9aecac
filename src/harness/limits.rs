//! What can run out, and which one did: free space in a directory, this user's process
//! and open-file limits, the address-space limit, and the `pids.max` / `memory.max` of the
//! cgroup this process is in (v2, or the v1 `pids` and `memory` hierarchies).
//!
//! Two uses: [`preflight`] refuses a run that cannot fit before anything starts, naming
//! the limit; [`Snapshot`] + [`cause`] name the resource behind a failure afterwards
//! (ENOSPC, EAGAIN from fork, EMFILE, ENOMEM, a cgroup's `max` events), instead of the
//! symptom ("cc.out differs at byte 0", a compiler's last line).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Bytes free to this user on the file system holding `path` (statvfs `f_bavail`).
pub fn available_bytes(path: &Path) -> Option<u64> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain data the call fills.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a struct valid to write.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 || s.f_blocks == 0 {
        return None;
    }
    Some(s.f_bavail as u64 * s.f_frsize as u64)
}

/// Whether the file system holding `path` is mounted read-only (statvfs `ST_RDONLY`).
pub fn read_only_fs(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statvfs is plain data the call fills.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a struct valid to write.
    unsafe { libc::statvfs(c.as_ptr(), &mut s) == 0 && s.f_flag & libc::ST_RDONLY != 0 }
}

/// The file system type of `path` by `statfs`'s magic number, `None` if unreadable.
pub fn file_system_magic(path: &Path) -> Option<i64> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statfs fills a plain struct for a NUL-terminated path.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above; both live for the call.
    (unsafe { libc::statfs(c.as_ptr(), &mut st) } == 0).then_some(st.f_type as i64)
}

/// `statfs`'s magic number of a tmpfs.
pub const TMPFS_MAGIC: i64 = 0x0102_1994;

/// Whether `path` is on a tmpfs (memory, not a disk).
pub fn on_tmpfs(path: &Path) -> bool {
    file_system_magic(path) == Some(TMPFS_MAGIC)
}

/// The kernel's pseudo file systems (proc, sysfs, cgroup…), by `statfs`'s magic number.
pub fn pseudo_file_system(dir: &Path) -> Option<&'static str> {
    Some(match file_system_magic(dir)? {
        0x9fa0 => "proc",
        0x6265_6572 => "sysfs",
        0x0027_e0eb => "cgroup",
        0x6367_7270 => "cgroup2",
        0x6462_6720 => "debugfs",
        0x7472_6163 => "tracefs",
        0x1cd1 => "devpts",
        0x7363_6673 => "securityfs",
        0x6e73_6673 => "nsfs",
        0xcafe_4a11 => "bpf",
        _ => return None,
    })
}

/// The soft limit of `resource`, `None` when unlimited.
pub fn rlimit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    // SAFETY: rlimit is plain data that getrlimit fills.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: lim is valid to write.
    let ok = unsafe { libc::getrlimit(resource, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
}

/// The directory of `controller` (`pids`, `memory`) for this process's cgroup.
fn cgroup_dir(controller: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    // v1: "8:pids:/a/b"; v2: "0::/a/b" (used when no v1 hierarchy has the controller).
    let v1 = text.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, ctrls, path) = (parts.next()?, parts.next()?, parts.next()?);
        ctrls.split(',').any(|c| c == controller).then(|| {
            Path::new("/sys/fs/cgroup")
                .join(controller)
                .join(path.trim_start_matches('/'))
        })
    });
    if let Some(d) = v1.filter(|d| d.is_dir()) {
        return Some(d);
    }
    let v2 = text.lines().find_map(|l| l.strip_prefix("0::"))?;
    let d = Path::new("/sys/fs/cgroup").join(v2.trim_start_matches('/'));
    d.join(format!("{controller}.max")).exists().then_some(d)
}

fn read_number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// A cgroup's limit and usage, `None` for the limit when it is `max`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cgroup {
    pub pids_max: Option<u64>,
    pub pids_current: Option<u64>,
    pub memory_max: Option<u64>,
    pub memory_current: Option<u64>,
    /// Forks refused at `pids.max` so far (`pids.events` "max").
    pub pids_events: u64,
    /// Times `memory.max` was hit or the OOM killer ran in it (`memory.events` "max",
    /// "oom_kill"; v1 `memory.failcnt`).
    pub memory_events: u64,
}

fn event(text: &str, key: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.trim().parse().ok())
        .unwrap_or(0)
}

impl Cgroup {
    pub fn read() -> Cgroup {
        let mut c = Cgroup::default();
        if let Some(d) = cgroup_dir("pids") {
            c.pids_max = read_number(&d.join("pids.max"));
            c.pids_current = read_number(&d.join("pids.current"));
            let ev = std::fs::read_to_string(d.join("pids.events")).unwrap_or_default();
            c.pids_events = event(&ev, "max ");
        }
        if let Some(d) = cgroup_dir("memory") {
            let huge = |v: u64| (v < 1 << 60).then_some(v);
            c.memory_max = read_number(&d.join("memory.max"))
                .or_else(|| read_number(&d.join("memory.limit_in_bytes")))
                .and_then(huge);
            c.memory_current = read_number(&d.join("memory.current"))
                .or_else(|| read_number(&d.join("memory.usage_in_bytes")));
            let ev = std::fs::read_to_string(d.join("memory.events")).unwrap_or_default();
            // v1 has no memory.events; its memory.oom_control counts the OOM kills
            // (memory.failcnt also counts ordinary reclaim, so it is no evidence).
            let oom = std::fs::read_to_string(d.join("memory.oom_control")).unwrap_or_default();
            c.memory_events =
                event(&ev, "max ") + event(&ev, "oom_kill ") + event(&oom, "oom_kill ");
        }
        c
    }
}

/// This process's cgroup's memory limit and what is charged to it that the kernel cannot
/// simply drop — its usage less the page cache (`memory.stat` `file`, v1 `total_cache`) —
/// in bytes; `None` without a limit. Past the limit the kernel's OOM killer ends the
/// largest process, taking a whole run with it: a row about to allocate asks first.
pub fn cgroup_memory() -> Option<(u64, u64)> {
    let d = cgroup_dir("memory")?;
    let cg = Cgroup::read();
    let max = cg.memory_max?;
    let stat = std::fs::read_to_string(d.join("memory.stat")).unwrap_or_default();
    let cache = [event(&stat, "file "), event(&stat, "total_cache ")]
        .into_iter()
        .max()
        .unwrap_or(0);
    let used = cg.memory_current.unwrap_or(0).saturating_sub(cache);
    Some((max, used))
}

/// What a piece of work needs, for [`preflight`].
#[derive(Debug, Clone, Copy)]
pub struct Needs<'a> {
    /// Where it writes, and how many bytes at least.
    pub dir: &'a Path,
    pub bytes: u64,
    /// Processes alive at once.
    pub processes: u64,
    /// Open files per process (a compiler's passes).
    pub files: u64,
    /// Address space per process (a compiler's), bytes.
    pub memory: u64,
}

/// Refuse, naming the limit and what to do, when the work cannot fit; `Ok` when every
/// limit that can be read leaves room.
pub fn preflight(n: &Needs, is_root: bool) -> Result<(), String> {
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1 << 20) as f64);
    if let Some(free) = available_bytes(n.dir) {
        if free < n.bytes {
            return Err(format!(
                "no space left: {} free in {} and this needs about {}; free some space or \
                 give another --dir",
                mib(free),
                n.dir.display(),
                mib(n.bytes)
            ));
        }
    }
    let cg = Cgroup::read();
    if let (Some(max), cur) = (cg.pids_max, cg.pids_current.unwrap_or(0)) {
        if cur + n.processes > max {
            return Err(format!(
                "the cgroup's pids.max is {max} ({cur} in use) and this needs {} more \
                 processes; raise pids.max or ask for fewer",
                n.processes
            ));
        }
    }
    if let (Some(limit), false) = (rlimit(libc::RLIMIT_NPROC), is_root) {
        if n.processes + 16 > limit {
            return Err(format!(
                "RLIMIT_NPROC is {limit} (ulimit -u) and this needs {} processes; raise it \
                 or ask for fewer",
                n.processes
            ));
        }
    }
    if let Some(limit) = rlimit(libc::RLIMIT_NOFILE) {
        if limit < n.files {
            return Err(format!(
                "RLIMIT_NOFILE is {limit} (ulimit -n) and each process needs about {}; raise it",
                n.files
            ));
        }
    }
    if let Some(limit) = rlimit(libc::RLIMIT_AS) {
        if limit < n.memory {
            return Err(format!(
                "RLIMIT_AS is {} (ulimit -v) and each process needs about {}; raise it",
                mib(limit),
                mib(n.memory)
            ));
        }
    }
    if let (Some(max), cur) = (cg.memory_max, cg.memory_current.unwrap_or(0)) {
        if cur + n.memory > max {
            return Err(format!(
                "the cgroup's memory.max is {} ({} in use) and a process needs about {}; \
                 raise memory.max",
                mib(max),
                mib(cur),
                mib(n.memory)
            ));
        }
    }
    Ok(())
}

/// The machine's limits before some work, to compare with after it.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot {
    cgroup: Cgroup,
}

impl Snapshot {
    pub fn take() -> Snapshot {
        Snapshot {
            cgroup: Cgroup::read(),
        }
    }
}

/// The resource that ran out, if the evidence names one: `dir`'s file system full, the
/// cgroup's `pids.max` or `memory.max` hit since `before`, or the error a program wrote
/// (`stderr`: "No space left on device", "Resource temporarily unavailable" from fork,
/// "Too many open files", "Cannot allocate memory"). Returns (resource, detail).
pub fn cause(before: &Snapshot, dir: &Path, stderr: &str) -> Option<(String, String)> {
    let now = Cgroup::read();
    classify(&before.cgroup, &now, available_bytes(dir), stderr, dir)
}

/// [`cause`] on given readings (pure, for tests).
pub fn classify(
    before: &Cgroup,
    now: &Cgroup,
    free: Option<u64>,
    stderr: &str,
    dir: &Path,
) -> Option<(String, String)> {
    let says = |needles: &[&str]| {
        let lower = stderr.to_lowercase();
        needles.iter().any(|n| lower.contains(n))
    };
    let value = |v: Option<u64>| v.map_or("unlimited".to_string(), |v| v.to_string());
    // A file system with less than this free after a failure is taken as the cause.
    const FULL: u64 = 64 << 10;
    if says(&["no space left on device", "enospc", "disk full"]) || free.is_some_and(|f| f < FULL) {
        return Some((
            "disk space (ENOSPC)".into(),
            format!(
                "no space left on device in {} ({} bytes free)",
                dir.display(),
                free.map_or("?".into(), |f| f.to_string())
            ),
        ));
    }
    if now.pids_events > before.pids_events {
        return Some((
            "processes (the cgroup's pids.max)".into(),
            format!(
                "the cgroup's pids.max ({}) refused {} fork(s)",
                value(now.pids_max),
                now.pids_events - before.pids_events
            ),
        ));
    }
    if now.memory_events > before.memory_events {
        return Some((
            "memory (the cgroup's memory.max)".into(),
            format!(
                "the cgroup's memory.max ({}) was reached",
                value(now.memory_max)
            ),
        ));
    }
    if says(&[
        "resource temporarily unavailable",
        "cannot fork",
        "fork: retry",
        "eagain",
    ]) {
        return Some((
            "processes (EAGAIN from fork)".into(),
            format!(
                "fork refused: RLIMIT_NPROC (ulimit -u) is {}",
                value(rlimit(libc::RLIMIT_NPROC))
            ),
        ));
    }
    if says(&["too many open files", "emfile"]) {
        return Some((
            "open files (EMFILE)".into(),
            format!(
                "RLIMIT_NOFILE (ulimit -n) is {}",
                value(rlimit(libc::RLIMIT_NOFILE))
            ),
        ));
    }
    if says(&[
        "cannot allocate memory",
        "out of memory",
        "memory exhausted",
        "enomem",
    ]) {
        return Some((
            "memory (ENOMEM)".into(),
            format!(
                "RLIMIT_AS (ulimit -v) is {}",
                rlimit(libc::RLIMIT_AS).map_or("unlimited".into(), |v| format!("{} MiB", v >> 20))
            ),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause_of(before: Cgroup, now: Cgroup, free: Option<u64>, err: &str) -> Option<String> {
        classify(&before, &now, free, err, Path::new("/d")).map(|c| c.0)
    }

    #[test]
    fn each_cause_is_named_by_its_evidence() {
        let c = Cgroup::default();
        assert_eq!(cause_of(c, c, Some(1 << 30), "all fine"), None);
        let disk = cause_of(c, c, Some(0), "cc.out differs").unwrap();
        assert!(disk.contains("ENOSPC"), "{disk}");
        let disk = cause_of(
            c,
            c,
            Some(1 << 30),
            "ld: final link failed: No space left on device",
        );
        assert!(disk.unwrap().contains("ENOSPC"));
        let pids = Cgroup {
            pids_events: 3,
            pids_max: Some(15),
            ..c
        };
        let why = cause_of(c, pids, None, "sh: fork: Resource temporarily unavailable").unwrap();
        assert!(
            why.contains("pids.max"),
            "the cgroup, not RLIMIT_NPROC: {why}"
        );
        let why = cause_of(c, c, None, "sh: fork: Resource temporarily unavailable").unwrap();
        assert!(why.contains("EAGAIN"), "{why}");
        let why = cause_of(c, c, None, "cc1: error: Too many open files").unwrap();
        assert!(why.contains("EMFILE"), "{why}");
        let why = cause_of(c, c, None, "cc1: out of memory allocating 65536 bytes").unwrap();
        assert!(why.contains("ENOMEM"), "{why}");
        let mem = Cgroup {
            memory_events: 1,
            ..c
        };
        assert!(cause_of(c, mem, None, "Killed")
            .unwrap()
            .contains("memory.max"));
    }

    #[test]
    fn a_full_directory_is_refused_before_starting() {
        let tmp = tempfile::tempdir().unwrap();
        let needs = |bytes| Needs {
            dir: tmp.path(),
            bytes,
            processes: 1,
            files: 1,
            memory: 1,
        };
        assert!(preflight(&needs(1), true).is_ok());
        let e = preflight(&needs(u64::MAX / 2), true).unwrap_err();
        assert!(e.starts_with("no space left"), "{e}");
    }
}
